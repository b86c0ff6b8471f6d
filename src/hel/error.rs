//! Rule errors: the rule, a caret under the offending column, what was expected.

use std::fmt;

/// A rule that failed to parse or check (hel.md §7).
///
/// `Display` writes the message, the offending line of the rule and a caret
/// under the offending column.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct RuleError {
    /// The text the fault is in, as the user wrote it: the rule, or the
    /// `DB.Result` prefix when the fault is there.
    pub rule: String,
    /// Byte offset of the fault in `rule`.
    pub offset: usize,
    /// 1-based line of the fault.
    pub line: usize,
    /// 1-based column (in characters) of the fault.
    pub column: usize,
    /// What is wrong, and what was expected there.
    pub message: String,
    /// A corrected piece of the rule, where one is evident (`tr[i:*]` for the
    /// seed's `tr[i:*.td[1]`).
    pub suggestion: Option<String>,
}

impl RuleError {
    /// An error at byte `offset` of `text`.
    pub(crate) fn at(text: &str, offset: usize, message: impl Into<String>) -> RuleError {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &text[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |p| p + 1);
        let column = text[line_start..offset].chars().count() + 1;
        RuleError {
            rule: text.to_string(),
            offset,
            line,
            column,
            message: message.into(),
            suggestion: None,
        }
    }

    pub(crate) fn with_suggestion(mut self, suggestion: String) -> RuleError {
        self.message = format!("{}; did you mean `{suggestion}`?", self.message);
        self.suggestion = Some(suggestion);
        self
    }

    /// The same error, said to be in the `DB.Result` prefix.
    pub(crate) fn in_prefix(mut self) -> RuleError {
        self.message = format!("in the DB.Result prefix: {}", self.message);
        self
    }
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let line_text = self
            .rule
            .lines()
            .nth(self.line.saturating_sub(1))
            .unwrap_or("");
        let line_text = line_text.trim_end_matches('\r');
        // Keep tabs so that the caret lines up under tabbed text.
        let pad: String = line_text
            .chars()
            .take(self.column.saturating_sub(1))
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        if self.rule.contains('\n') {
            write!(f, "{} (line {})", self.message, self.line)?;
        } else {
            write!(f, "{}", self.message)?;
        }
        write!(f, "\n  {line_text}\n  {pad}^")
    }
}

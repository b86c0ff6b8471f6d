//! Rule errors: what is wrong, where, and the rule with a caret under it.

use std::fmt;

use crate::span::{Excerpt, Span};

/// A rule that failed to parse or check (hel.md §7).
///
/// `Display` writes what is wrong (what was expected there, a suggestion
/// where one is evident), then the offending line of the text with a caret
/// under the span.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct RuleError {
    pub kind: RuleErrorKind,
    /// Where in `text` the fault is.
    pub span: Span,
    /// The text the fault is in, as the user wrote it: the rule, or the
    /// `DB.Result` prefix when the fault is there.
    pub text: String,
    /// True when `text` is the `DB.Result` prefix, not the rule.
    pub in_prefix: bool,
    /// A corrected piece of the rule, where one is evident (`tr[i:*]` for the
    /// seed's `tr[i:*.td[1]`, `.txt` for `.text`).
    pub suggestion: Option<String>,
}

/// What can be wrong with a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleErrorKind {
    /// The text does not follow the grammar: what could come at that point,
    /// and the character found there (`None`: the end of the text).
    Syntax {
        expected: Vec<Expected>,
        found: Option<char>,
    },
    /// An index left open (`tr[i:*.td`): a `Syntax` error where `]` was
    /// expected after an unclosed `[`; the suggestion closes it.
    UnclosedIndex {
        expected: Vec<Expected>,
        found: Option<char>,
    },
    /// A path ending in a step where a property was meant (`p.text`); the
    /// suggestion names the property.
    UnknownProperty { name: String },
    /// An index number that does not fit in memory.
    IndexTooLarge { digits: String },
    /// A range `[a-b]` whose end comes before its start.
    EmptyRange { start: usize, end: usize },
    /// Forks nested deeper than the parser allows.
    ForkTooDeep { max: usize },
    /// A `match`/`split` regex or an `=~`/`!~` literal (the text under the
    /// span) that does not compile, and why.
    BadRegex { reason: String },
    /// A variable in the `DB.Result` prefix.
    VariableInPrefix { var: String },
    /// A condition that mentions no variable.
    ConditionWithoutVariable,
    /// A condition that mentions several variables (each named once, in
    /// the order they come); the span is the second one.
    ConditionWithSeveralVariables { vars: Vec<String> },
    /// A variable bound by a second condition.
    BoundTwice { var: String },
    /// A condition binding a variable that the rule's path does not use.
    UnusedVariable { var: String },
    /// A variable of the rule's path that no condition binds.
    Unbound { var: String },
}

/// What the parser could have read at the point of a syntax error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    Label,
    /// `.label` or `->label`.
    Step,
    /// `html`.
    Root,
    /// `[…]` after a label.
    Index,
    /// Something inside an index (a number, a range, a list).
    IndexContent,
    Number,
    Variable,
    /// `*`.
    All,
    /// `.txt`, `.src`, `.getAttr(name)`, `.numberOf(label)`.
    Property,
    AttributeName,
    /// `( … # … )`.
    Fork,
    /// A fork branch, starting with `.` or `->`.
    Branch,
    /// `, match/…/` or `, split/…/`.
    RegexOp,
    /// `match` or `split`.
    MatchOrSplit,
    /// `/…/`.
    Regex,
    Where,
    And,
    Path,
    /// `=`, `!=`, `=~` or `!~`.
    Operator,
    /// A quoted string.
    Literal,
    /// The end of the rule.
    End,
    /// `]`.
    CloseBracket,
    /// `)`.
    CloseParen,
    /// A literal token (shown between backticks).
    Token(String),
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Expected::Label => "a label",
            Expected::Step => "a step (`.label` or `->label`)",
            Expected::Root => "`html`",
            Expected::Index => "an index `[…]`",
            Expected::IndexContent => "an index",
            Expected::Number => "a number",
            Expected::Variable => "a variable",
            Expected::All => "`*`",
            Expected::Property => {
                "a property (`.txt`, `.src`, `.getAttr(name)`, `.numberOf(label)`)"
            }
            Expected::AttributeName => "an attribute name",
            Expected::Fork => "a fork `( … # … )`",
            Expected::Branch => "a fork branch (starting with `.` or `->`)",
            Expected::RegexOp => "a regex operator (`, match/…/`, `, split/…/`)",
            Expected::MatchOrSplit => "`match` or `split`",
            Expected::Regex => "a regex `/…/`",
            Expected::Where => "`WHERE`",
            Expected::And => "`AND`",
            Expected::Path => "a path",
            Expected::Operator => "`=`, `!=`, `=~` or `!~`",
            Expected::Literal => "a quoted string",
            Expected::End => "the end of the rule",
            Expected::CloseBracket => "`]`",
            Expected::CloseParen => "`)`",
            Expected::Token(t) => return write!(f, "`{t}`"),
        })
    }
}

fn found(c: Option<char>) -> String {
    match c {
        None => "the end of the rule".to_string(),
        Some(c) if c.is_whitespace() => "white space".to_string(),
        Some(c) => format!("`{c}`"),
    }
}

fn expected_found(
    f: &mut fmt::Formatter<'_>,
    expected: &[Expected],
    c: Option<char>,
) -> fmt::Result {
    let list: Vec<String> = expected.iter().map(ToString::to_string).collect();
    match list.as_slice() {
        [] => write!(f, "unexpected {}", found(c)),
        [one] => write!(f, "expected {one}, found {}", found(c)),
        [init @ .., last] => write!(
            f,
            "expected {} or {last}, found {}",
            init.join(", "),
            found(c)
        ),
    }
}

impl fmt::Display for RuleErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleErrorKind::Syntax { expected, found }
            | RuleErrorKind::UnclosedIndex { expected, found } => {
                expected_found(f, expected, *found)
            }
            RuleErrorKind::UnknownProperty { name } => write!(
                f,
                "unknown property `.{name}`: a path ends in `.txt`, `.src`, `.getAttr(name)` or `.numberOf(label)`"
            ),
            RuleErrorKind::IndexTooLarge { digits } => write!(f, "index {digits} is too large"),
            RuleErrorKind::EmptyRange { start, end } => write!(
                f,
                "the range {start}-{end} is empty: its end comes before its start"
            ),
            RuleErrorKind::ForkTooDeep { max } => write!(f, "forks nested more than {max} deep"),
            RuleErrorKind::BadRegex { reason } => {
                write!(f, "the regex does not compile: {reason}")
            }
            RuleErrorKind::VariableInPrefix { var } => write!(
                f,
                "a DB.Result prefix cannot use variables (`{var}`); put the condition in each rule"
            ),
            RuleErrorKind::ConditionWithoutVariable => f.write_str(
                "this condition mentions no variable; a condition binds the variable of an index such as `tr[i]`",
            ),
            RuleErrorKind::ConditionWithSeveralVariables { vars } => {
                let named: Vec<String> = vars.iter().map(|v| format!("`{v}`")).collect();
                let named = match named.as_slice() {
                    [init @ .., last] if !init.is_empty() => {
                        format!("{} and {last}", init.join(", "))
                    }
                    _ => named.concat(),
                };
                write!(
                    f,
                    "a condition mentions exactly one variable; this one mentions {named}"
                )
            }
            RuleErrorKind::BoundTwice { var } => {
                write!(f, "variable `{var}` is bound by two conditions")
            }
            RuleErrorKind::UnusedVariable { var } => write!(
                f,
                "the condition binds `{var}`, which the rule's path does not use"
            ),
            RuleErrorKind::Unbound { var } => write!(
                f,
                "variable `{var}` is not bound: add a condition `WHERE … [{var}] … = '…'`"
            ),
        }
    }
}

impl RuleError {
    /// An error of `kind` at `span` of `text` (the rule).
    pub(crate) fn new(text: &str, span: Span, kind: RuleErrorKind) -> RuleError {
        RuleError {
            kind,
            span,
            text: text.to_string(),
            in_prefix: false,
            suggestion: None,
        }
    }

    pub(crate) fn with_suggestion(mut self, suggestion: String) -> RuleError {
        self.suggestion = Some(suggestion);
        self
    }

    /// The same error, said to be in the `DB.Result` prefix.
    pub(crate) fn in_prefix(mut self) -> RuleError {
        self.in_prefix = true;
        self
    }

    /// The offending line of the text with a caret under the span.
    pub fn excerpt(&self) -> Excerpt {
        Excerpt::new(&self.text, &self.span)
    }
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.in_prefix {
            f.write_str("in the DB.Result prefix: ")?;
        }
        match &self.kind {
            // The regex is the text under the span.
            RuleErrorKind::BadRegex { reason } => {
                let regex = self.text.get(self.span.offset..self.span.end());
                write!(
                    f,
                    "the regex `{}` does not compile: {reason}",
                    regex.unwrap_or_default()
                )?
            }
            kind => write!(f, "{kind}")?,
        }
        if let Some(s) = &self.suggestion {
            write!(f, "; did you mean `{s}`?")?;
        }
        write!(f, "{}", self.excerpt())
    }
}

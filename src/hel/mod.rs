//! HEL, the HTML Extraction Language of W4F (seed §4.3, spec/hel.md).
//!
//! PLACEHOLDER INTERFACE: replaced by the real grammar, checker and evaluator.

use serde::Serialize;

use crate::page::Page;

/// A nested string list, the value of a rule (hel.md §6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Nsl {
    Null,
    Str(String),
    List(Vec<Nsl>),
}

impl Nsl {
    /// The index values: flattened in document order, nulls and empty strings dropped.
    pub fn flatten(&self) -> Vec<String> {
        let mut out = Vec::new();
        fn walk(n: &Nsl, out: &mut Vec<String>) {
            match n {
                Nsl::Null => {}
                Nsl::Str(s) if s.is_empty() => {}
                Nsl::Str(s) => out.push(s.clone()),
                Nsl::List(items) => items.iter().for_each(|i| walk(i, out)),
            }
        }
        walk(self, &mut out);
        out
    }
}

/// A rule that failed to parse or check.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}\n  {rule}\n  {caret:>width$}", caret = "^", width = column)]
pub struct RuleError {
    pub rule: String,
    /// Byte offset of the fault in `rule`.
    pub offset: usize,
    /// 1-based line and column.
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// A parsed and checked rule.
#[derive(Debug, Clone)]
pub struct Rule {
    source: String,
}

impl Rule {
    pub fn parse(source: &str) -> Result<Rule, RuleError> {
        Rule::parse_with_prefix(source, None)
    }

    /// Parses a rule, applying a `DB.Result` prefix to it and its conditions
    /// when they are relative.
    pub fn parse_with_prefix(source: &str, prefix: Option<&str>) -> Result<Rule, RuleError> {
        let props = [".txt", ".src", ".getattr(", ".numberof("];
        let lower = source.to_ascii_lowercase();
        if props.iter().any(|p| lower.contains(p)) {
            Ok(Rule {
                source: match prefix {
                    Some(p) if !lower.trim_start().starts_with("html") => format!("{p}{source}"),
                    _ => source.to_string(),
                },
            })
        } else {
            Err(RuleError {
                rule: source.to_string(),
                offset: source.len(),
                line: 1,
                column: source.len() + 1,
                message: "expected a property (.txt, .src, .getAttr, .numberOf)".into(),
            })
        }
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    pub fn eval(&self, _page: &Page) -> Nsl {
        Nsl::Null
    }
}

//! HEL, the HTML Extraction Language of W4F (seed §4.3, spec/hel.md): the
//! language of every `DB.Result.*` rule.
//!
//! A rule is parsed (grammar `grammar/hel.pest`) and checked completely —
//! syntax, variables, conditions, regexes — by [`Rule::parse`], before any
//! page is fetched; [`Rule::eval`] then never fails: a path that leads nowhere
//! is null.
//!
//! Decisions where hel.md is silent:
//! - A relative rule without a `DB.Result` prefix starts at the root:
//!   `body.h1.txt` reads as `html.body.h1.txt`.
//! - A relative rule starting with a label takes the separator the prefix ends
//!   with (`html.body->table[1].` + `tr[0]…` = `…table[1].tr[0]…`); a prefix
//!   ending in neither `.` nor `->` is followed by a child step. A prefix
//!   cannot use variables.
//! - W4F's `value = … ;` form is accepted: the name and the `;` are ignored.
//! - A multi-valued index that matches nothing gives the empty list `[]`;
//!   a position of an `[n,m,k]` list that does not exist gives null there;
//!   a range is cut at the last match.
//! - In a literal, `\'` (or `\"` in a double-quoted one) is the quote
//!   character; every other backslash is kept as written, so `'U\.S\.'` is
//!   the regex `U\.S\.` for `=~`.
//! - In `match/…/` and `split/…/`, `\/` is a slash.
//! - A condition whose path gives null holds for no operator (`!=` and `!~`
//!   need a value to compare); empty strings are values.
//! - `.numberOf(tr)` of a table counts the rows of its row groups, like a
//!   `.tr` step; of a `pcdata` node it is `"0"`.
//! - Variable names are case-sensitive; labels, attribute names and keywords
//!   are not.

mod error;
mod eval;
mod parse;
mod rows;

use serde::Serialize;

use crate::page::Page;

pub use error::{Expected, RuleError, RuleErrorKind};

/// A nested string list, the value of a rule (hel.md §6); serialised to JSON
/// as `null`, `"s"` or `[…]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Nsl {
    /// A path that leads nowhere, an absent attribute, a `match` that failed.
    Null,
    /// One value.
    Str(String),
    /// The values of a multi-valued index, a fork, `match` with groups, `split`.
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

/// How many steps one rule may take on one page (each node a step visits,
/// each branch of a fork): a bound on the size of the value's lists.
pub const MAX_RESULT_ITEMS: usize = 1_000_000;

/// How many bytes of strings one rule may produce on one page.
pub const MAX_RESULT_BYTES: usize = 16 << 20;

/// Which bound cut a rule's value short.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultLimit {
    /// [`MAX_RESULT_ITEMS`] steps.
    Items,
    /// [`MAX_RESULT_BYTES`] bytes of strings.
    Bytes,
}

impl std::fmt::Display for ResultLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ResultLimit::Items => write!(
                f,
                "the rule's value was cut at {MAX_RESULT_ITEMS} steps (its multi-valued steps nest too deep for this page)"
            ),
            ResultLimit::Bytes => write!(
                f,
                "the rule's value was cut at {} MiB of text",
                MAX_RESULT_BYTES >> 20
            ),
        }
    }
}

/// A rule's value on a page, and the bound that cut it, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluation {
    pub value: Nsl,
    pub limit: Option<ResultLimit>,
}

/// The page nodes a rule's value comes from ([`Rule::evaluate_rows`]):
/// element k of the value's top-level list comes from node k, the node its
/// first multi-valued step bound (the `tr[j]` of `tr[j:*]`); `None` where an
/// `[n,m]` position does not exist. Empty for a rule without a
/// multi-valued step. Meaningful with the page it was evaluated on only.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowNodes(pub(crate) Vec<Option<crate::page::NodeId>>);

/// Which rows a rule's value is over ([`Rule::row_key`]): the canonical
/// text of the rule's path up to and including its first multi-valued step,
/// the conditions of the variables used there written out, variables written
/// `$` (so `tr[j:*] WHERE tr[j]…` and `tr[k:*] WHERE tr[k]…` have the same
/// key).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RowKey(String);

impl std::fmt::Display for RowKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A parsed and checked rule.
#[derive(Debug, Clone)]
pub struct Rule {
    source: String,
    prefix: Option<String>,
    ast: parse::Ast,
}

impl Rule {
    /// Parses and checks an absolute rule (or a relative one, read from the root).
    pub fn parse(source: &str) -> Result<Rule, RuleError> {
        Rule::parse_with_prefix(source, None)
    }

    /// Parses and checks a rule, applying a `DB.Result` prefix to it and its
    /// conditions when they are relative. Errors point into the text the user
    /// wrote: the rule, or the prefix.
    pub fn parse_with_prefix(source: &str, prefix: Option<&str>) -> Result<Rule, RuleError> {
        let ast = parse::parse(source, prefix)?;
        Ok(Rule {
            source: source.to_string(),
            prefix: prefix.map(str::to_string),
            ast,
        })
    }

    /// The `DB.Result` prefix the rule was read with, if any.
    pub fn prefix(&self) -> Option<&str> {
        self.prefix.as_deref()
    }

    /// The rule as written (without the prefix).
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The rule's value on a page; a value that grows past a limit (see
    /// [`Rule::evaluate`]) is cut there.
    pub fn eval(&self, page: &Page) -> Nsl {
        eval::eval(&self.ast, page).0
    }

    /// The rule's value on a page, with the limit that cut it short, if one
    /// did: at most [`MAX_RESULT_ITEMS`] steps and [`MAX_RESULT_BYTES`] bytes
    /// of strings per rule and page. A rule whose `[*]` steps nest over a
    /// deeply nested page would otherwise need memory beyond any machine.
    pub fn evaluate(&self, page: &Page) -> Evaluation {
        let (value, limit) = eval::eval(&self.ast, page);
        Evaluation { value, limit }
    }

    /// [`Rule::evaluate`], and the nodes the value's rows come from (see
    /// [`RowNodes`]), for records.
    pub fn evaluate_rows(&self, page: &Page) -> (Evaluation, RowNodes) {
        let (value, limit, rows) = eval::eval_rows(&self.ast, page, true);
        (Evaluation { value, limit }, RowNodes(rows))
    }

    /// The rows the rule's value is over, for records: `None` when the
    /// rule's path (before a fork) has no multi-valued step (`[*]`, `[a-b]`,
    /// `[n,m]`, `[v:*]`). The rows are the elements of the list the first
    /// multi-valued step makes — the top-level list of the rule's value.
    ///
    /// Two rules with the same key have the same path up to and including
    /// that step (axes, labels, indexes; `DB.Result` prefix applied) and the
    /// same conditions for the variables used there, whatever the variables
    /// are called: on every page, element k of one's value and element k of
    /// the other's come from the same node, the same row.
    pub fn row_key(&self) -> Option<RowKey> {
        rows::row_key(&self.ast).map(RowKey)
    }

    /// The number of branches of the fork the rule's path ends in
    /// (`tr[*](.td[0].txt # .td[1].txt)` has 2), `None` without a fork.
    pub fn fork_width(&self) -> Option<usize> {
        rows::fork_width(&self.ast)
    }

    /// Splits a value this rule gave into its rows (see [`Rule::row_key`])
    /// and each row into fields: one field for a rule without a fork, one
    /// per fork branch for a rule ending in a fork. A field is the row's
    /// strings (or the branch's, over every element of the multi-valued
    /// steps between the row's step and the fork), flattened in document
    /// order, nulls and empty strings dropped. Empty for a rule without a
    /// row key.
    pub fn row_fields<'a>(&self, value: &'a Nsl) -> Vec<Vec<Vec<&'a str>>> {
        rows::row_fields(&self.ast, value)
    }
}

#[cfg(test)]
mod tests;

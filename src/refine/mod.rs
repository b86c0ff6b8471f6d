//! Refining truncated queries (seed §5 names it the open problem): a
//! provider that shows at most 50 hits per query, or whose result pages
//! stop at `DB.MaxPages`, hides most of its database from the static plan.
//! The refiner tells when an answer was cut short and which narrower
//! queries together cover it.
//!
//! **Cut short.** A query's [`Answer`] is truncated when the page limit
//! stopped its navigator, when the provider's hit count (`DB.ResultCount`)
//! is larger than the rows it showed, or, without a count, when the rows
//! shown reach `DB.MaxResults`. Without either name, several queries (three
//! or more) ending at the same, largest row count betray a cap
//! ([`Refiner::common_cap`]).
//!
//! **Narrower queries.** The first way that applies, in order:
//!
//! - *Split* by an element the query leaves open — a select or radio group
//!   (a query element or any other element of the form) whose value in the
//!   query means "any": absent, empty, or an option labelled like "alle",
//!   "all", "any", "beliebig", "egal". One query per other value: a region
//!   by `preis=1` … `preis=4`.
//! - *Extend a prefix*: a query element whose domain is a simple regex and
//!   whose value ends in `%` (`A%`) gets one more character from the
//!   pattern's own alphabet, and the space: `AA%` … `A9%`, `A %`, plus the
//!   exact `A`. When a rule's values came in ascending order and all start
//!   with the prefix (results sorted by that field), every extension that
//!   sorts before the last value shown was shown whole, and is left out.
//!
//! `DB.Refine` limits the elements to those named, in that order. A
//! refined query is a query like the others: its key is its request, it is
//! stored with its parent, and it is counted against `DB.MaxQueries`.

pub mod learn;

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::form::{ElementKind, Form};
use crate::metadata::{Domain, Metadata};

/// What a query's answer revealed, kept with the query.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    /// The provider's hit count (`DB.ResultCount`), when it says one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hits: Option<u64>,
    /// The rows shown: the most values one rule found over the query's
    /// result pages.
    pub shown: u64,
    /// The page limit stopped the walk while more pages were linked.
    #[serde(default)]
    pub cut_short: bool,
    /// The attributes whose values came in ascending order (ignoring case),
    /// with their first and last value.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sorted: Vec<Sorted>,
}

/// An attribute whose values on a query's pages came in ascending order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sorted {
    pub attribute: String,
    pub first: String,
    pub last: String,
}

/// Collects an [`Answer`] page by page.
#[derive(Debug, Clone, Default)]
pub struct AnswerTally {
    hits: Option<u64>,
    cut_short: bool,
    rules: Vec<RuleTally>,
}

/// One rule's values over a query's pages.
#[derive(Debug, Clone)]
struct RuleTally {
    attribute: String,
    count: u64,
    first: Option<String>,
    last: Option<String>,
    ascending: bool,
}

impl AnswerTally {
    /// Counts one result page: each rule's values, in document order
    /// (attribute, values).
    pub fn page(&mut self, lists: &[(String, Vec<String>)]) {
        for (attribute, list) in lists {
            let at = match self.rules.iter().position(|r| r.attribute == *attribute) {
                Some(at) => at,
                None => {
                    self.rules.push(RuleTally {
                        attribute: attribute.clone(),
                        count: 0,
                        first: None,
                        last: None,
                        ascending: true,
                    });
                    self.rules.len() - 1
                }
            };
            let rule = &mut self.rules[at];
            let mut previous = rule.last.as_deref().map(fold);
            for value in list.iter().filter(|v| !v.is_empty()) {
                rule.count += 1;
                let folded = fold(value);
                if let Some(before) = &previous {
                    rule.ascending &= *before <= folded;
                }
                if rule.first.is_none() {
                    rule.first = Some(value.clone());
                }
                previous = Some(folded);
            }
            if let Some(last) = list.iter().rev().find(|v| !v.is_empty()) {
                rule.last = Some(last.clone());
            }
        }
    }

    /// The provider's hit count, read from the query's first page.
    pub fn hits(&mut self, hits: Option<u64>) {
        self.hits = self.hits.or(hits);
    }

    pub fn cut_short(&mut self, cut_short: bool) {
        self.cut_short |= cut_short;
    }

    pub fn answer(&self) -> Answer {
        Answer {
            hits: self.hits,
            shown: self.rules.iter().map(|r| r.count).max().unwrap_or(0),
            cut_short: self.cut_short,
            sorted: self
                .rules
                .iter()
                .filter(|r| r.ascending && r.count > 1)
                .filter_map(|r| {
                    Some(Sorted {
                        attribute: r.attribute.clone(),
                        first: r.first.clone()?,
                        last: r.last.clone()?,
                    })
                })
                .collect(),
        }
    }
}

/// The first number of a text, thousands separators (`.`, `,`, thin
/// spaces) allowed: `"ergab 1.234 Treffer"` → 1234.
pub fn first_number(text: &str) -> Option<u64> {
    static NUMBER: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\d{1,3}(?:[.,\u{202f}\u{a0}]\d{3})+\b|\d+").expect("a valid regex")
    });
    let m = NUMBER.find(text)?;
    m.as_str()
        .chars()
        .filter(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .ok()
}

/// Why an answer is incomplete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Truncation {
    /// The page limit stopped the walk.
    PageLimit,
    /// The provider found more hits than it showed.
    MoreHits { hits: u64, shown: u64 },
    /// The rows shown reach `DB.MaxResults`.
    AtCap { cap: u64 },
    /// Several queries ended at this row count, the largest.
    CommonCap { shown: u64 },
}

impl fmt::Display for Truncation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Truncation::PageLimit => write!(f, "the page limit stopped its result pages"),
            Truncation::MoreHits { hits, shown } => {
                write!(f, "the provider found {hits} hits and showed {shown}")
            }
            Truncation::AtCap { cap } => write!(f, "it shows DB.MaxResults {cap} rows"),
            Truncation::CommonCap { shown } => {
                write!(f, "it ends at {shown} rows, as several other queries do")
            }
        }
    }
}

/// One way to narrow a query.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Way {
    /// One query per value of an element the query leaves open.
    Split {
        element: String,
        values: Vec<String>,
        /// The values that mean "any", and the form's default.
        any: Vec<String>,
        default: Option<String>,
    },
    /// One more character after a `%` prefix.
    Prefix {
        element: String,
        alphabet: Vec<char>,
    },
}

/// The refinements of one source.
#[derive(Debug, Clone, Default)]
pub struct Refiner {
    ways: Vec<Way>,
    max_results: Option<u64>,
    /// The source says its hit counts or its cap: no cap is inferred.
    told: bool,
}

/// Labels of an option that stands for every value.
const ANY_LABELS: [&str; 9] = [
    "alle", "all", "any", "beliebig", "egal", "jede", "every", "tous", "toutes",
];

impl Refiner {
    /// The ways the form and the metadata allow (`DB.Refine`, or every
    /// select, radio group and `%` pattern).
    pub fn new(form: Option<&Form>, metadata: &Metadata) -> Refiner {
        let mut ways = Vec::new();
        let prefix = |element: &str| match metadata.domains.get(element) {
            Some(Domain::Pattern(p)) if metadata.query_elements.iter().any(|e| e == element) => {
                let mut alphabet: Vec<char> = p
                    .values()
                    .take(100_000)
                    .filter(|v| v.ends_with('%'))
                    .flat_map(|v| v.chars().collect::<Vec<_>>())
                    .filter(|c| *c != '%')
                    .collect();
                alphabet.push(' ');
                alphabet.sort_unstable();
                alphabet.dedup();
                (alphabet.len() > 1).then(|| Way::Prefix {
                    element: element.to_string(),
                    alphabet,
                })
            }
            _ => None,
        };
        let split = |element: &crate::form::Element| {
            let choices = match &element.kind {
                ElementKind::Select {
                    multiple: false,
                    options,
                } => options,
                ElementKind::Radio { choices } => choices,
                _ => return None,
            };
            let any: Vec<String> = choices
                .iter()
                .filter(|c| {
                    let label = c.label.trim().to_lowercase();
                    c.value.trim().is_empty()
                        || ANY_LABELS.iter().any(|w| {
                            label
                                .split(|ch: char| !ch.is_alphanumeric())
                                .any(|t| t == *w)
                        })
                })
                .map(|c| c.value.clone())
                .collect();
            let values: Vec<String> = choices
                .iter()
                .map(|c| c.value.clone())
                .filter(|v| !any.contains(v))
                .collect();
            (values.len() > 1).then(|| Way::Split {
                element: element.name.clone(),
                values,
                any,
                default: element.default_values().into_iter().next(),
            })
        };
        let named = |name: &str| {
            prefix(name).or_else(|| form.and_then(|f| f.element(name)).and_then(split))
        };
        if metadata.refine.is_empty() {
            if let Some(f) = form {
                ways.extend(f.elements.iter().filter_map(split));
            }
            ways.extend(metadata.query_elements.iter().filter_map(|e| prefix(e)));
        } else {
            ways.extend(metadata.refine.iter().filter_map(|e| named(e)));
        }
        Refiner {
            ways,
            max_results: metadata.max_results,
            told: metadata.result_count.is_some() || metadata.max_results.is_some(),
        }
    }

    /// Whether the source can refine at all.
    pub fn is_empty(&self) -> bool {
        self.ways.is_empty()
    }

    /// The elements it refines by, in order (what `gather plan` shows).
    pub fn elements(&self) -> Vec<String> {
        self.ways
            .iter()
            .map(|w| match w {
                Way::Split {
                    element, values, ..
                } => {
                    format!("{element} (split into {} values)", values.len())
                }
                Way::Prefix { element, alphabet } => format!(
                    "{element} (a % prefix extended by one of {} characters)",
                    alphabet.len()
                ),
            })
            .collect()
    }

    /// The row count that betrays a cap the provider does not name: the
    /// largest count, when three or more answers end at it. Only for
    /// sources without `DB.ResultCount` and `DB.MaxResults`.
    pub fn common_cap<'a>(&self, answers: impl IntoIterator<Item = &'a Answer>) -> Option<u64> {
        if self.told {
            return None;
        }
        let mut largest = 0;
        let mut at_largest = 0;
        for answer in answers {
            match answer.shown.cmp(&largest) {
                std::cmp::Ordering::Greater => {
                    largest = answer.shown;
                    at_largest = 1;
                }
                std::cmp::Ordering::Equal => at_largest += 1,
                std::cmp::Ordering::Less => {}
            }
        }
        (largest > 1 && at_largest >= 3).then_some(largest)
    }

    /// Whether an answer is cut short, and why; `common_cap` is what
    /// [`Refiner::common_cap`] found over the source's answers.
    pub fn truncation(&self, answer: &Answer, common_cap: Option<u64>) -> Option<Truncation> {
        if answer.cut_short {
            return Some(Truncation::PageLimit);
        }
        match (answer.hits, self.max_results) {
            (Some(hits), _) if hits > answer.shown => Some(Truncation::MoreHits {
                hits,
                shown: answer.shown,
            }),
            (Some(_), _) => None,
            (None, Some(cap)) if answer.shown >= cap => Some(Truncation::AtCap { cap }),
            (None, Some(_)) => None,
            (None, None) => common_cap
                .filter(|c| answer.shown == *c)
                .map(|shown| Truncation::CommonCap { shown }),
        }
    }

    /// The narrower queries (their element values) that together cover a
    /// truncated query with `values`, by the first way that applies; empty
    /// when none does.
    pub fn children(
        &self,
        values: &[(String, String)],
        answer: &Answer,
    ) -> Vec<Vec<(String, String)>> {
        let value_of = |name: &str| values.iter().find(|(n, _)| n == name).map(|(_, v)| v);
        for way in &self.ways {
            match way {
                Way::Split {
                    element,
                    values: all,
                    any,
                    default,
                } => {
                    let open = match value_of(element) {
                        Some(v) => any.contains(v),
                        None => default.as_ref().is_none_or(|d| any.contains(d)),
                    };
                    if !open {
                        continue;
                    }
                    return all.iter().map(|v| with(values, element, v)).collect();
                }
                Way::Prefix { element, alphabet } => {
                    let Some(stem) = value_of(element).and_then(|v| v.strip_suffix('%')) else {
                        continue;
                    };
                    // The last value shown of a field sorted by the prefix.
                    let last = answer
                        .sorted
                        .iter()
                        .find(|s| {
                            fold(&s.first).starts_with(&fold(stem))
                                && fold(&s.last).starts_with(&fold(stem))
                        })
                        .map(|s| fold(&s.last));
                    let mut out = Vec::new();
                    if !stem.is_empty() && last.is_none() {
                        out.push(with(values, element, stem));
                    }
                    for c in alphabet {
                        let longer = format!("{stem}{c}");
                        let shown_whole = last.as_ref().is_some_and(|last| {
                            let folded = fold(&longer);
                            let head: String = last.chars().take(folded.chars().count()).collect();
                            folded < head
                        });
                        if !shown_whole {
                            out.push(with(values, element, &format!("{longer}%")));
                        }
                    }
                    return out;
                }
            }
        }
        Vec::new()
    }
}

/// `values` with `element` set to `value` (added at the end when absent).
fn with(values: &[(String, String)], element: &str, value: &str) -> Vec<(String, String)> {
    let mut out = values.to_vec();
    match out.iter_mut().find(|(n, _)| n == element) {
        Some(slot) => slot.1 = value.to_string(),
        None => out.push((element.to_string(), value.to_string())),
    }
    out
}

/// How values are compared for order: case folded.
fn fold(s: &str) -> String {
    s.to_uppercase()
}

/// Whether a choice of a select or radio group stands for every value: an
/// empty value, or a label with a word like "alle", "all", "any".
pub fn means_any(value: &str, label: &str) -> bool {
    let label = label.trim().to_lowercase();
    value.trim().is_empty()
        || ANY_LABELS.iter().any(|w| {
            label
                .split(|ch: char| !ch.is_alphanumeric())
                .any(|t| t == *w)
        })
}

#[cfg(test)]
mod tests;

//! Refining truncated queries (seed §5 names it the open problem): a
//! provider that shows at most 50 hits per query, or whose result pages
//! stop at `DB.MaxPages`, hides most of its database from the static plan.
//! The refiner tells when an answer was cut short and which narrower
//! queries together cover it.
//!
//! **Cut short.** A query's [`Answer`] is truncated when the page limit
//! stopped its navigator, when the provider's hit count (`DB.ResultCount`)
//! is larger than the rows it showed, or, without a count, when the rows
//! shown reach `DB.MaxResults`. Without either name, any one rule whose
//! count repeats as the largest over the queries betrays a cap, and the
//! hit count may be a number the first page states ([`Refiner::census`],
//! [`stated_numbers`]). A walk that ended before a next page its last page
//! links is cut short too ([`Truncation::UnreadPages`]).
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

pub mod initials;
pub mod learn;

use std::collections::HashSet;
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
    /// The rows shown: the records of the query's result pages where the
    /// rules describe rows (several attributes of one row), otherwise the
    /// most values one rule found over its result pages.
    pub shown: u64,
    /// The page limit stopped the walk while more pages were linked.
    #[serde(default)]
    pub cut_short: bool,
    /// When the walk stopped after the query's first page, which proved
    /// that the page limit would cut it short (its pager links more pages
    /// than `DB.MaxPages` allows, or its hit count exceeds what they can
    /// show): the page limit's pages — its other pages are left to its
    /// refinements ([`Splits`]). 0 for a walk that went on.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub early: u64,
    /// The walk ended while its last page linked a next page of the query
    /// that could not be followed (no link matched the navigation).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub more_linked: bool,
    /// The result pages read.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pages: u64,
    /// Each rule's values over the query's pages (attribute, count).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counts: Vec<(String, u64)>,
    /// The numbers the query's first page states next to a word of
    /// counting (`312 Treffer`, `of 1,234`), keyed by their wording
    /// ([`stated_numbers`]): one of them may be the hit count.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stated: Vec<(String, u64)>,
    /// The attributes whose values came in ascending order (ignoring case),
    /// with their first and last value.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sorted: Vec<Sorted>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
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
    early: u64,
    more_linked: bool,
    pages: u64,
    /// The records of the pages (rows), when the rules describe rows.
    rows: u64,
    stated: Vec<(String, u64)>,
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
        self.pages += 1;
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
            let last = rule.last.take();
            let mut previous = last.as_deref();
            for value in list.iter().filter(|v| !v.is_empty()) {
                rule.count += 1;
                if let Some(before) = previous {
                    rule.ascending &= folded_le(before, value);
                }
                if rule.first.is_none() {
                    rule.first = Some(value.clone());
                }
                previous = Some(value);
            }
            rule.last = match list.iter().rev().find(|v| !v.is_empty()) {
                Some(last) => Some(last.clone()),
                None => last,
            };
        }
    }

    /// The provider's hit count, read from the query's first page.
    pub fn hits(&mut self, hits: Option<u64>) {
        self.hits = self.hits.or(hits);
    }

    pub fn cut_short(&mut self, cut_short: bool) {
        self.cut_short |= cut_short;
    }

    /// The walk stopped after the first page, which proved that the page
    /// limit (`max_pages`) would cut it short ([`Answer::early`]).
    pub fn early(&mut self, max_pages: u64) {
        self.early = max_pages.max(1);
        self.cut_short = true;
    }

    /// Whether the walk ended while a next page was linked but not read.
    pub fn more_linked(&mut self, more_linked: bool) {
        self.more_linked = more_linked;
    }

    /// The rows (records) of one page, where the rules describe rows.
    pub fn rows(&mut self, rows: u64) {
        self.rows += rows;
    }

    /// The numbers the query's first page states ([`stated_numbers`]).
    pub fn stated(&mut self, stated: Vec<(String, u64)>) {
        if self.stated.is_empty() {
            self.stated = stated;
        }
    }

    pub fn answer(&self) -> Answer {
        let most = self.rules.iter().map(|r| r.count).max().unwrap_or(0);
        Answer {
            hits: self.hits,
            shown: if self.rows > 0 { self.rows } else { most },
            cut_short: self.cut_short,
            early: self.early,
            more_linked: self.more_linked,
            pages: self.pages,
            counts: self
                .rules
                .iter()
                .map(|r| (r.attribute.clone(), r.count))
                .collect(),
            stated: self.stated.clone(),
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

/// Nouns that a hit count counts: `312 Treffer`, `1.234 Ergebnisse`,
/// `57 jobs match`, `1 234 résultats`. The page reader counts by them
/// too ([`crate::listing`]).
pub(crate) const COUNTED: &[&str] = &[
    "treffer",
    "ergebnis",
    "ergebnisse",
    "titel",
    "einträge",
    "angebote",
    "stellen",
    "artikel",
    "produkte",
    "results",
    "result",
    "hits",
    "matches",
    "match",
    "jobs",
    "records",
    "items",
    "entries",
    "titles",
    "listings",
    "products",
    "résultats",
    "resultats",
    "resultados",
    "risultati",
    "resultaten",
];

/// Other words that stand next to a hit count: `ergab 312`, `of 1,234`,
/// `57 found`.
const BESIDE_COUNT: &[&str] = &[
    "ergab",
    "gefunden",
    "von",
    "aus",
    "insgesamt",
    "found",
    "of",
    "total",
];

/// The numbers a page's text states next to a word of counting (the word
/// before or after it is one of the words of counting), each keyed by its wording:
/// the word before (`*` where the word after is a noun of counting,
/// [`COUNTED`]), `#`, the word after, and its rank among the numbers of
/// that wording on the page (`* # treffer 0`, `found # pictures 0`). Numbers may carry
/// thousands separators. At most the first 60 numbers of the text are read:
/// a hit count stands above the results.
pub fn stated_numbers(text: &str) -> Vec<(String, u64)> {
    static NUMBER: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\b(?:\d{1,3}(?:[.,\u{202f}\u{a0}]\d{3})+|\d+)\b")
            .expect("a valid regex")
    });
    let word = |w: &str| {
        if w.chars().all(|c| c.is_ascii_digit()) {
            "#".to_string()
        } else {
            w.to_lowercase()
        }
    };
    let mut out: Vec<(String, u64)> = Vec::new();
    for m in NUMBER.find_iter(text).take(60) {
        let before = text[..m.start()]
            .rsplit(|c: char| !c.is_alphanumeric())
            .find(|w| !w.is_empty())
            .map(word)
            .unwrap_or_default();
        let after = text[m.end()..]
            .split(|c: char| !c.is_alphanumeric())
            .find(|w| !w.is_empty())
            .map(word)
            .unwrap_or_default();
        let counting = |w: &str| COUNTED.contains(&w) || BESIDE_COUNT.contains(&w);
        if !counting(&before) && !counting(&after) {
            continue;
        }
        let Ok(number) = m
            .as_str()
            .chars()
            .filter(char::is_ascii_digit)
            .collect::<String>()
            .parse::<u64>()
        else {
            continue;
        };
        // Before a noun of counting, the word before the number does not
        // matter: the query's own word may stand there (`« vélo » : 1 234
        // résultats`).
        let before = if COUNTED.contains(&after.as_str()) {
            "*".to_string()
        } else {
            before
        };
        let wording = format!("{before} # {after}");
        let rank = out
            .iter()
            .filter(|(k, _)| k.rsplit_once(' ').is_some_and(|(w, _)| w == wording))
            .count();
        out.push((format!("{wording} {rank}"), number));
    }
    out
}

/// What the answers of one source reveal together: the row counts that
/// betray a cap, and which of the numbers the pages state is the hit count.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Census {
    /// Rules (attribute; empty for the rows shown) whose count, the
    /// largest over the answers, several answers end at.
    caps: Vec<(String, u64)>,
    /// The wording of the stated number that is the hit count.
    stated: Option<String>,
}

impl Census {
    /// The hit count of an answer: the provider's `DB.ResultCount`, or the
    /// stated number found to be the hit count.
    pub fn hits(&self, answer: &Answer) -> Option<u64> {
        answer.hits.or_else(|| {
            let key = self.stated.as_ref()?;
            answer
                .stated
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, n)| *n)
        })
    }
}

/// What a [`Census`] is computed from, counted answer by answer in a
/// size that does not grow with the answers: per rule its largest count,
/// how many answers end at it and whether one ends below; per wording of
/// a stated number how often it was seen and how it relates to the rows.
#[derive(Debug, Clone, Default)]
pub struct CensusTally {
    counts: Vec<(String, RuleCounts)>,
    stated: Vec<(String, StatedTally)>,
    showing: usize,
}

#[derive(Debug, Clone, Copy, Default)]
struct RuleCounts {
    largest: u64,
    at: usize,
    below: bool,
}

#[derive(Debug, Clone, Copy)]
struct StatedTally {
    seen: usize,
    first: u64,
    differs: bool,
    never_below: bool,
    above: bool,
}

impl CensusTally {
    /// Counts one answer.
    pub fn add(&mut self, answer: &Answer) {
        // A walk stopped after its first page counts as the page limit
        // would have ended it: as many pages as its first.
        let scale = if answer.early > 0 && answer.pages == 1 {
            answer.early
        } else {
            1
        };
        let rows = std::iter::once((String::new(), answer.shown * scale));
        // A rule with one value a page (a heading) counts pages, not
        // rows: its count betrays no cap.
        let per_row = answer
            .counts
            .iter()
            .filter(|(_, count)| *count > answer.pages.max(1))
            .map(|(rule, count)| (rule.clone(), count * scale));
        for (rule, count) in rows.chain(per_row) {
            let at = match self.counts.iter().position(|(r, _)| *r == rule) {
                Some(at) => at,
                None => {
                    self.counts.push((
                        rule,
                        RuleCounts {
                            largest: count,
                            at: 0,
                            below: false,
                        },
                    ));
                    self.counts.len() - 1
                }
            };
            let c = &mut self.counts[at].1;
            if count > c.largest {
                // Every answer so far ended below the new largest count.
                c.below |= c.at > 0;
                c.largest = count;
                c.at = 1;
            } else if count == c.largest {
                c.at += 1;
            } else {
                c.below = true;
            }
        }
        self.showing += usize::from(answer.shown > 0);
        for (key, number) in &answer.stated {
            let (n, shown) = (*number, answer.shown);
            match self.stated.iter_mut().find(|(k, _)| k == key) {
                Some((_, s)) => {
                    s.seen += 1;
                    s.differs |= n != s.first;
                    s.never_below &= n >= shown;
                    s.above |= n > shown;
                }
                None => self.stated.push((
                    key.clone(),
                    StatedTally {
                        seen: 1,
                        first: n,
                        differs: false,
                        never_below: n >= shown,
                        above: n > shown,
                    },
                )),
            }
        }
    }
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
    /// The walk ended while its last page linked a next page it could not
    /// follow.
    UnreadPages,
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
            Truncation::UnreadPages => write!(
                f,
                "its last page links a next page the navigation could not follow"
            ),
        }
    }
}

/// One way to narrow a query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    /// An open text field left empty, filled with each value gathered so
    /// far for the attribute of the same name or label.
    Text { element: String, attribute: String },
}

/// The refinements of one source.
#[derive(Debug, Clone, Default)]
pub struct Refiner {
    ways: Vec<Way>,
    /// The values gathered so far for the attributes of text ways.
    gathered: std::collections::HashMap<String, Vec<String>>,
    /// The values gathered near the query being refined (by the queries
    /// of its own tree): a text way tries these alone ([`Refiner::nearby`]).
    nearby: Option<HashSet<String>>,
    max_results: Option<u64>,
    /// The source says its hit counts or its cap: no cap is inferred.
    told: bool,
    /// The source names its hit count (`DB.ResultCount`).
    counted: bool,
    /// `DB.Refine` gave the ways, in the order to take them.
    ordered: bool,
    /// The query elements whose domain is a pattern of `%` prefixes, with
    /// the first characters their prefixes try ([`Refiner::prefix_firsts`]).
    firsts: Vec<(String, Vec<char>)>,
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
        let firsts = metadata
            .query_elements
            .iter()
            .filter_map(|element| match metadata.domains.get(element) {
                Some(Domain::Pattern(p)) => {
                    let mut firsts: Vec<char> = p
                        .values()
                        .take(100_000)
                        .filter(|v| v.ends_with('%'))
                        .filter_map(|v| v.chars().next())
                        .filter(|c| *c != '%')
                        .collect();
                    firsts.sort_unstable();
                    firsts.dedup();
                    (!firsts.is_empty()).then(|| (element.clone(), firsts))
                }
                _ => None,
            })
            .collect();
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
        let text = |element: &crate::form::Element| {
            Some(Way::Text {
                element: element.name.clone(),
                attribute: text_field_attribute(element, metadata)?,
            })
        };
        let named = |name: &str| {
            prefix(name).or_else(|| {
                let element = form.and_then(|f| f.element(name))?;
                split(element).or_else(|| text(element))
            })
        };
        if metadata.refine.is_empty() {
            if let Some(f) = form {
                ways.extend(f.elements.iter().filter_map(split));
            }
            ways.extend(metadata.query_elements.iter().filter_map(|e| prefix(e)));
            if let Some(f) = form {
                ways.extend(f.elements.iter().filter_map(text));
            }
        } else {
            ways.extend(metadata.refine.iter().filter_map(|e| named(e)));
        }
        Refiner {
            ways,
            gathered: Default::default(),
            nearby: None,
            max_results: metadata.max_results,
            told: metadata.result_count.is_some() || metadata.max_results.is_some(),
            counted: metadata.result_count.is_some(),
            ordered: !metadata.refine.is_empty(),
            firsts,
        }
    }

    /// The query elements whose domain is a pattern of `%` prefixes
    /// (`/[A-Z]%/`), with the first characters their prefixes try.
    pub fn prefix_firsts(&self) -> &[(String, Vec<char>)] {
        &self.firsts
    }

    /// Whether the source can refine at all.
    pub fn is_empty(&self) -> bool {
        self.ways.is_empty()
    }

    /// The ways to refine, for telling before a query's walk ends whether
    /// it will be refined whatever its answer shows ([`Splits`]).
    pub fn splits(&self) -> Splits {
        Splits {
            ways: self.ways.clone(),
        }
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
                Way::Text { element, attribute } => {
                    format!("{element} (a text field, filled with the {attribute} values gathered)")
                }
            })
            .collect()
    }

    /// The attributes whose gathered values fill text fields
    /// ([`Refiner::gathered`]).
    pub fn text_attributes(&self) -> Vec<&str> {
        self.ways
            .iter()
            .filter_map(|w| match w {
                Way::Text { attribute, .. } => Some(attribute.as_str()),
                _ => None,
            })
            .collect()
    }

    /// Limits a text way to the values gathered near the query about to be
    /// refined (`None`: every value gathered).
    pub fn nearby(&mut self, values: Option<HashSet<String>>) {
        self.nearby = values;
    }

    /// Tells the values gathered so far for an attribute of a text field.
    pub fn gathered(&mut self, attribute: &str, mut values: Vec<String>) {
        values.sort_unstable();
        values.dedup();
        self.gathered.insert(attribute.to_string(), values);
    }

    /// What the answers of a source reveal together ([`Census`]).
    ///
    /// A cap the provider does not name is betrayed by any one rule (or
    /// the rows shown) whose count is the largest over the answers, when
    /// three or more answers end at it and some end below it (a count the
    /// same on every page, such as a legend, is no cap). Only for sources
    /// without `DB.ResultCount` and `DB.MaxResults`.
    ///
    /// Without `DB.ResultCount`, the hit count is the number the first
    /// pages state in one wording ([`stated_numbers`]) that differs between
    /// queries, is never below the rows shown and above them somewhere,
    /// found on at least three answers and half of those that show rows.
    pub fn census<'a>(&self, answers: impl IntoIterator<Item = &'a Answer>) -> Census {
        let mut tally = CensusTally::default();
        for answer in answers {
            tally.add(answer);
        }
        self.census_of(tally)
    }

    /// The [`Census`] of the answers a [`CensusTally`] counted, for a
    /// caller that reads the answers in batches.
    pub fn census_of(&self, tally: CensusTally) -> Census {
        let caps = if self.told {
            Vec::new()
        } else {
            tally
                .counts
                .into_iter()
                .filter_map(|(rule, c)| {
                    (c.largest > 1 && c.at >= 3 && c.below).then_some((rule, c.largest))
                })
                .collect()
        };
        let showing = tally.showing;
        let stated = if self.counted {
            None
        } else {
            tally
                .stated
                .into_iter()
                .filter(|(_, s)| {
                    s.seen >= 3 && s.seen * 2 >= showing && s.differs && s.never_below && s.above
                })
                .max_by_key(|(_, s)| s.seen)
                .map(|(key, _)| key)
        };
        Census { caps, stated }
    }

    /// Whether gather can tell an answer that is not cut short whole: it
    /// showed no row, the provider's hit count is known, the provider told
    /// its cap, the answers betray a common cap (the others end below it),
    /// or its walk read a pager to its end (more than one page). An answer
    /// of a single page without any of these cannot be judged.
    pub fn judged(&self, answer: &Answer, census: &Census) -> bool {
        answer.shown == 0
            || census.hits(answer).is_some()
            || self.max_results.is_some()
            || !census.caps.is_empty()
            || answer.pages > 1
    }

    /// Whether an answer is cut short, and why, given what the source's
    /// answers reveal together ([`Refiner::census`]).
    pub fn truncation(&self, answer: &Answer, census: &Census) -> Option<Truncation> {
        if answer.cut_short {
            return Some(Truncation::PageLimit);
        }
        if answer.more_linked {
            return Some(Truncation::UnreadPages);
        }
        match (census.hits(answer), self.max_results) {
            (Some(hits), _) if hits > answer.shown => Some(Truncation::MoreHits {
                hits,
                shown: answer.shown,
            }),
            (Some(_), _) => None,
            (None, Some(cap)) if answer.shown >= cap => Some(Truncation::AtCap { cap }),
            (None, Some(_)) => None,
            (None, None) => census.caps.iter().find_map(|(rule, cap)| {
                let count = if rule.is_empty() {
                    answer.shown
                } else {
                    answer
                        .counts
                        .iter()
                        .find(|(r, _)| r == rule)
                        .map_or(0, |(_, c)| *c)
                };
                (count == *cap).then_some(Truncation::CommonCap { shown: count })
            }),
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
                    if !left_open(value_of(element), any, default.as_ref()) {
                        continue;
                    }
                    let (element, all) = self
                        .cheapest_split(values, answer)
                        .unwrap_or((element, all));
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
                Way::Text { element, attribute } => {
                    if value_of(element).is_some_and(|v| !v.trim().is_empty()) {
                        continue;
                    }
                    let Some(known) = self.gathered.get(attribute).filter(|k| !k.is_empty()) else {
                        continue;
                    };
                    // The values seen near the query first, when told.
                    let known: Vec<&String> = match &self.nearby {
                        Some(nearby) => known
                            .iter()
                            .filter(|v| nearby.contains(v.as_str()))
                            .collect(),
                        None => known.iter().collect(),
                    };
                    return known.iter().map(|v| with(values, element, v)).collect();
                }
            }
        }
        Vec::new()
    }
}

/// The wildcards a provider may take at the end of a text field's value
/// (`Ro%`, `Ro*`), in the order they are probed.
pub const WILDCARDS: [char; 2] = ['%', '*'];

/// Whether a provider takes a wildcard in a text field, as its answers
/// show ([`Refiner::text_prefixes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Wildcard {
    /// Not probed yet.
    #[default]
    Unknown,
    /// This wildcard narrowed an answer to the values it starts.
    Accepted(char),
    /// No wildcard did.
    Refused,
}

impl Refiner {
    /// The open text field a query leaves to be refined by prefixes, and
    /// the prefix it holds now (`Some("Ro")` for `Ro*`, `Some("")` for an
    /// empty field), when every select is fixed: `(element, attribute,
    /// stem)`.
    pub fn text_prefix<'a>(
        &'a self,
        values: &[(String, String)],
        wildcard: char,
    ) -> Option<(&'a str, &'a str, String)> {
        let value_of = |name: &str| values.iter().find(|(n, _)| n == name).map(|(_, v)| v);
        self.ways.iter().find_map(|way| match way {
            Way::Text { element, attribute } => {
                let stem = match value_of(element).map(|v| v.trim()) {
                    None | Some("") => String::new(),
                    Some(v) => v.strip_suffix(wildcard)?.to_string(),
                };
                Some((element.as_str(), attribute.as_str(), stem))
            }
            _ => None,
        })
    }

    /// The open text field refinement fills, if any.
    pub fn text_element(&self) -> Option<&str> {
        self.ways.iter().find_map(|way| match way {
            Way::Text { element, .. } => Some(element.as_str()),
            _ => None,
        })
    }

    /// A query's refinements by prefixes of its open text field: the stem
    /// one character longer, each followed by `wildcard`. The characters
    /// are those the gathered values of the attribute hold at that place,
    /// and for the first one every letter A–Z too: a town no answer showed
    /// may begin with a letter none of the gathered ones does.
    pub fn text_prefixes(
        &self,
        values: &[(String, String)],
        wildcard: char,
    ) -> Vec<Vec<(String, String)>> {
        let Some((element, attribute, stem)) = self.text_prefix(values, wildcard) else {
            return Vec::new();
        };
        let known = self.gathered.get(attribute).map_or(&[][..], Vec::as_slice);
        let at = stem.chars().count();
        let mut alphabet: Vec<char> = known
            .iter()
            .filter(|v| fold(v).starts_with(&fold(&stem)))
            .filter_map(|v| v.chars().nth(at))
            .map(|c| {
                if at == 0 {
                    c.to_uppercase().next().unwrap_or(c)
                } else {
                    c
                }
            })
            .filter(|c| *c != wildcard)
            .collect();
        if at == 0 {
            alphabet.extend('A'..='Z');
        }
        alphabet.sort_unstable();
        alphabet.dedup();
        alphabet
            .into_iter()
            .map(|c| with(values, element, &format!("{stem}{c}{wildcard}")))
            .collect()
    }

    /// The probes of whether the provider takes a wildcard: the query with
    /// its open text field set to `letter` (the first letter of a value
    /// the query is known to find) followed by each wildcard
    /// ([`WILDCARDS`]).
    pub fn wildcard_probes(
        &self,
        values: &[(String, String)],
        letter: char,
    ) -> Vec<Vec<(String, String)>> {
        let Some((element, _, stem)) = self.text_prefix(values, '\0') else {
            return Vec::new();
        };
        if !stem.is_empty() || !letter.is_alphabetic() {
            return Vec::new();
        }
        WILDCARDS
            .iter()
            .map(|w| with(values, element, &format!("{letter}{w}")))
            .collect()
    }

    /// The wildcard an answered probe shows, if any: the value of the open
    /// text field of a refined query is one letter and a wildcard, and its
    /// answer showed rows, fewer hits than the query it refines when both
    /// counts are known. `None`: the query is no probe.
    pub fn probe_result(
        &self,
        values: &[(String, String)],
        answer: &Answer,
        parent_hits: Option<u64>,
        hits: Option<u64>,
    ) -> Option<(char, bool)> {
        let element = self.text_element()?;
        let value = values.iter().find(|(n, _)| n == element).map(|(_, v)| v)?;
        let mut chars = value.chars();
        let (first, w, rest) = (chars.next()?, chars.next()?, chars.next());
        if rest.is_some() || !first.is_alphabetic() || !WILDCARDS.contains(&w) {
            return None;
        }
        let narrower = match (hits, parent_hits) {
            (Some(h), Some(p)) => h < p,
            _ => true,
        };
        Some((w, answer.shown > 0 && narrower))
    }
}

/// A source's ways to refine, as the walk of a query needs them: a query
/// whose first page proves it cut short is refined at once, instead of
/// reading the rest of its pages, when a split or a `%` prefix applies to
/// it (its refinements then read every row of those pages). Where a text
/// field would come first (its values depend on what was gathered),
/// nothing is decided here. Kept with the shared plan for the workers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Splits {
    ways: Vec<Way>,
}

impl Splits {
    /// Whether there is no way to refine.
    pub fn is_empty(&self) -> bool {
        self.ways.is_empty()
    }

    /// Whether a query with these element values is refined by a split or
    /// a prefix, whatever its answer: the first way that applies to it (in
    /// the refiner's order) is one of them.
    pub fn applies(&self, values: &[(String, String)]) -> bool {
        let value_of = |name: &str| values.iter().find(|(n, _)| n == name).map(|(_, v)| v);
        for way in &self.ways {
            match way {
                Way::Split {
                    element,
                    any,
                    default,
                    ..
                } => {
                    if left_open(value_of(element), any, default.as_ref()) {
                        return true;
                    }
                }
                Way::Prefix { element, .. } => {
                    if value_of(element).is_some_and(|v| v.ends_with('%')) {
                        return true;
                    }
                }
                Way::Text { element, .. } => {
                    if value_of(element).is_none_or(|v| v.trim().is_empty()) {
                        return false;
                    }
                }
            }
        }
        false
    }
}

/// The attribute whose gathered values may fill an open text field (HiWE's
/// label matching): a text field, not a query element, whose name or a
/// word of whose label is the name of an attribute the rules gather
/// (ignoring case).
pub fn text_field_attribute(element: &crate::form::Element, metadata: &Metadata) -> Option<String> {
    if !matches!(element.kind, ElementKind::Text { .. })
        || metadata.query_elements.contains(&element.name)
    {
        return None;
    }
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let mut names = words(&element.name);
    names.push(element.name.to_lowercase());
    names.extend(element.label.as_deref().map(words).unwrap_or_default());
    metadata
        .rules()
        .into_iter()
        .map(|(attribute, _)| attribute)
        .find(|a| names.contains(&a.to_lowercase()))
}

impl Refiner {
    /// Among the splits a query leaves open, the one expected to make its
    /// answer whole in the fewest queries, when the provider's hit count
    /// shows how far above its rows shown (the cap) the query is; `None`
    /// without a hit count, with fewer than two open splits, or where
    /// `DB.Refine` gave the order. Each split is assumed to divide the hits
    /// evenly among its values ([`split_cost`]): a subject of 270 books
    /// under a cap of 50 is split by its 10 decades (27 each, whole at
    /// once) rather than its 4 formats (67 each, each split again).
    fn cheapest_split<'w>(
        &'w self,
        values: &[(String, String)],
        answer: &Answer,
    ) -> Option<(&'w String, &'w Vec<String>)> {
        let hits = answer.hits?;
        if self.ordered || answer.shown == 0 || hits <= answer.shown {
            return None;
        }
        let open = self.open_splits(values);
        if open.len() < 2 {
            return None;
        }
        let sizes: Vec<usize> = open.iter().map(|(_, all)| all.len()).collect();
        best_split(hits as f64, answer.shown as f64, &sizes).map(|(at, _)| open[at])
    }
}

/// Which of the splits of these sizes is expected to make an answer of
/// `hits` whole under `cap` in the fewest queries, and how many; the first
/// of equal costs (the form's order).
fn best_split(hits: f64, cap: f64, sizes: &[usize]) -> Option<(usize, f64)> {
    (0..sizes.len())
        .map(|at| {
            let rest: Vec<usize> = sizes
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != at)
                .map(|(_, n)| *n)
                .collect();
            let n = sizes[at] as f64;
            (at, n + n * split_cost(hits / n, cap, &rest))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
}

/// The queries expected to make an answer of `hits` whole under `cap`
/// with splits of these sizes left, each dividing the hits evenly (0 when
/// it is whole; with no split left, as many as the cap goes into it).
fn split_cost(hits: f64, cap: f64, sizes: &[usize]) -> f64 {
    if hits <= cap {
        return 0.0;
    }
    match best_split(hits, cap, sizes) {
        Some((_, cost)) => cost,
        None => (hits / cap).ceil(),
    }
}

/// Whether a query leaves a split's element open: its value (or, when
/// the query does not send it, the form's default) means "any".
fn left_open(value: Option<&String>, any: &[String], default: Option<&String>) -> bool {
    match value {
        Some(v) => any.contains(v),
        None => default.is_none_or(|d| any.contains(d)),
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

/// `fold(a) <= fold(b)`, without making either string (every value of
/// every result page is compared with the one before it).
fn folded_le(a: &str, b: &str) -> bool {
    a.chars()
        .flat_map(char::to_uppercase)
        .le(b.chars().flat_map(char::to_uppercase))
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

/// The characters a prefix is extended by where nothing is known of the
/// values: a letter, or for a longer prefix a letter or the space.
const BLIND_ALPHABET: usize = 26;

impl Refiner {
    /// The open splits (selects, radio groups) a query leaves open, in the
    /// refiner's order: `(element, values)`.
    fn open_splits(&self, values: &[(String, String)]) -> Vec<(&String, &Vec<String>)> {
        let value_of = |name: &str| values.iter().find(|(n, _)| n == name).map(|(_, v)| v);
        self.ways
            .iter()
            .filter_map(|way| match way {
                Way::Split {
                    element,
                    values: all,
                    any,
                    default,
                } if left_open(value_of(element), any, default.as_ref()) => Some((element, all)),
                _ => None,
            })
            .collect()
    }

    /// Whether a query leaves a select (or radio group) open.
    pub fn leaves_select_open(&self, values: &[(String, String)]) -> bool {
        !self.open_splits(values).is_empty()
    }

    /// A truncated query that leaves both its open text field and a select
    /// open, where the provider takes `wildcard`: whether a split by a
    /// select is expected to make its answer whole in fewer queries than
    /// prefixes of the text field (one more character, as many queries as
    /// `text_size`); `Some(children)` of that split, `None` when the
    /// prefixes are cheaper or no select is left open.
    ///
    /// The estimate is [`best_split`]'s (each split dividing the hits
    /// evenly), the prefix split costed as one of at least 26 values (a
    /// letter), however few characters the gathered values show: only such
    /// an extension could be sure to reach a value no answer listed. Without
    /// a hit count a select is taken (its values partition the answer);
    /// with `DB.Refine`, whichever of them it names first.
    pub fn split_before_prefixes(
        &self,
        values: &[(String, String)],
        answer: &Answer,
        text_size: usize,
    ) -> Option<Vec<Vec<(String, String)>>> {
        let open = self.open_splits(values);
        let (first_element, first_values) = *open.first()?;
        let split = |element: &str, all: &[String]| -> Vec<Vec<(String, String)>> {
            all.iter().map(|v| with(values, element, v)).collect()
        };
        if self.ordered {
            // DB.Refine's order: the text field named before the select?
            let text_first = self.ways.iter().position(|w| matches!(w, Way::Text { .. }))
                < self.ways.iter().position(
                    |w| matches!(w, Way::Split { element, .. } if element == first_element),
                );
            return (!text_first).then(|| split(first_element, first_values));
        }
        let (Some(hits), shown) = (answer.hits, answer.shown) else {
            return Some(split(first_element, first_values));
        };
        if shown == 0 || hits <= shown {
            return Some(split(first_element, first_values));
        }
        let mut sizes: Vec<usize> = open.iter().map(|(_, all)| all.len()).collect();
        sizes.push(text_size.max(BLIND_ALPHABET));
        match best_split(hits as f64, shown as f64, &sizes) {
            Some((at, _)) if at < open.len() => Some(split(open[at].0, open[at].1)),
            _ => None,
        }
    }

    /// Whether the rows of a capped prefix query (its open text field
    /// `Ro*`, where the provider takes `wildcard`) are all in whole answers
    /// already: the whole answers of exact values of the field that start
    /// with the prefix (`exact`: element values and hit count), within the
    /// query (every element it fixes fixed alike; a select it leaves open
    /// may be fixed), add up to its `hits`. Answers of the same value that
    /// may overlap (one leaves a select open that the other fixes) count
    /// once, the largest. Such a prefix needs no refinement: its values
    /// were gathered whole.
    pub fn prefix_covered(
        &self,
        values: &[(String, String)],
        wildcard: char,
        hits: u64,
        exact: &[(Vec<(String, String)>, u64)],
    ) -> bool {
        let Some((element, _, stem)) = self.text_prefix(values, wildcard) else {
            return false;
        };
        if stem.is_empty() {
            return false;
        }
        let stem = fold(&stem);
        let value_of = |of: &[(String, String)], name: &str| -> Option<String> {
            of.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())
        };
        // A split element: its "any" values and default.
        let split = |name: &str| {
            self.ways.iter().find_map(|w| match w {
                Way::Split {
                    element,
                    any,
                    default,
                    ..
                } if element == name => Some((any, default)),
                _ => None,
            })
        };
        let open_in = |of: &[(String, String)], name: &str| {
            split(name).is_some_and(|(any, default)| {
                left_open(value_of(of, name).as_ref(), any, default.as_ref())
            })
        };
        let names = |of: &[(String, String)]| -> Vec<String> {
            of.iter()
                .map(|(n, _)| n.clone())
                .filter(|n| n != element)
                .collect()
        };
        let inside = |e: &[(String, String)]| {
            let Some(v) = value_of(e, element) else {
                return false;
            };
            if !fold(&v).starts_with(&stem) {
                return false;
            }
            let mut all = names(values);
            all.extend(names(e));
            all.iter()
                .all(|n| open_in(values, n) || value_of(values, n) == value_of(e, n))
        };
        let disjoint = |a: &[(String, String)], b: &[(String, String)]| {
            let mut all = names(a);
            all.extend(names(b));
            all.iter().any(|n| {
                split(n).is_some()
                    && !open_in(a, n)
                    && !open_in(b, n)
                    && value_of(a, n) != value_of(b, n)
            })
        };
        type Group<'e> = Vec<(&'e [(String, String)], u64)>;
        let mut groups: std::collections::BTreeMap<String, Group<'_>> = Default::default();
        for (e, h) in exact.iter().filter(|(e, _)| inside(e)) {
            let v = value_of(e, element).unwrap_or_default();
            groups.entry(fold(&v)).or_default().push((e.as_slice(), *h));
        }
        let covered: u64 = groups
            .values()
            .map(|group| {
                let apart = group
                    .iter()
                    .enumerate()
                    .all(|(i, (a, _))| group.iter().skip(i + 1).all(|(b, _)| disjoint(a, b)));
                if apart {
                    group.iter().map(|(_, h)| h).sum()
                } else {
                    group.iter().map(|(_, h)| *h).max().unwrap_or(0)
                }
            })
            .sum();
        covered >= hits
    }
}

impl Refiner {
    /// A query's refinements by the words of the values gathered for the
    /// attribute of its open text field (left empty), one word a query, in
    /// the keyword learner's order ([`learn::WordRanking`]: the word found
    /// in most values first): for a field that finds the rows of a value by
    /// one of its words (`Zell` finds Zell-Merl, which no capped answer
    /// listed). `nearby`: only the values gathered near the query.
    pub fn text_words(
        &self,
        values: &[(String, String)],
        nearby: Option<&HashSet<String>>,
    ) -> Vec<Vec<(String, String)>> {
        let Some((element, attribute, _)) = self.text_prefix(values, '\0') else {
            return Vec::new();
        };
        let known = self.gathered.get(attribute).map_or(&[][..], Vec::as_slice);
        let known = known
            .iter()
            .filter(|v| nearby.is_none_or(|n| n.contains(v.as_str())))
            .map(String::as_str);
        learn::WordRanking::new(known)
            .candidates(&HashSet::new())
            .into_iter()
            .filter(|c| !c.text.contains(' '))
            .map(|c| with(values, element, &c.text))
            .collect()
    }
}

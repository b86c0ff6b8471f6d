//! Learning the values of an open text field from the answers (Ntoulas,
//! Zerfos & Cho 2005, the adaptive policy): a keyword field whose domain is
//! a few seed words is queried with words taken from the values gathered
//! so far, the word expected to return the most new rows first.
//!
//! The estimate is the paper's, with the rows gathered so far as the
//! sample: a word that occurs in many of them occurs in many rows of the
//! database, and what it returns that is new grows with that frequency.
//! Words already sent, stop words, numbers and words of fewer than three
//! letters are skipped. The ranking depends only on what is stored, so a
//! resumed gathering continues the same sequence.

use std::collections::{BTreeMap, HashSet};

use crate::form::{ElementKind, Form};
use crate::metadata::{Domain, Metadata};

/// Common German and English words that select nothing in particular.
const STOP_WORDS: &[&str] = &[
    "der", "die", "das", "den", "dem", "des", "ein", "eine", "einer", "eines", "und", "oder",
    "mit", "von", "vom", "zum", "zur", "auf", "aus", "bei", "nach", "the", "and", "for", "with",
    "from", "ins", "im", "am", "an", "in", "of", "to", "a",
];

/// Consecutive learned queries without a new value after which learning
/// stops: new words stopped paying.
pub const UNPROFITABLE_RUN: usize = 25;

/// The query element whose values are learned, when the source has one: a
/// text field (or a query element without a form) whose domain is a list
/// of seed words.
pub fn learnable(form: Option<&Form>, metadata: &Metadata) -> Option<String> {
    metadata.query_elements.iter().find_map(|element| {
        let text_field = match form.and_then(|f| f.element(element)) {
            Some(e) => matches!(
                e.kind,
                ElementKind::Text { .. } | ElementKind::TextArea { .. }
            ),
            None => form.is_none(),
        };
        let seeds = matches!(metadata.domains.get(element), Some(Domain::Values(_)));
        (text_field && seeds && metadata.query_elements.len() == 1).then(|| element.clone())
    })
}

/// Ranks the words of the gathered values for the next queries.
#[derive(Debug, Default)]
pub struct WordRanking {
    /// Word (lower case) → in how many gathered values it occurs.
    frequency: BTreeMap<String, u64>,
    /// Each word as first written.
    spelling: BTreeMap<String, String>,
}

impl WordRanking {
    /// Counts the words of the gathered values (each value counted once
    /// per word).
    pub fn new<'a>(values: impl IntoIterator<Item = &'a str>) -> WordRanking {
        let mut ranking = WordRanking::default();
        ranking.add(values);
        ranking
    }

    /// Counts the words of values gathered since (values new to the
    /// store: a value already counted must not be given again).
    pub fn add<'a>(&mut self, values: impl IntoIterator<Item = &'a str>) {
        for value in values {
            let mut seen = HashSet::new();
            for word in words(value) {
                let key = word.to_lowercase();
                if seen.insert(key.clone()) {
                    *self.frequency.entry(key.clone()).or_default() += 1;
                    self.spelling.entry(key).or_insert(word);
                }
            }
        }
    }

    /// The `n` most promising words not in `tried` (compared ignoring
    /// case): the most frequent first, ties in alphabetical order.
    pub fn next(&self, tried: &HashSet<String>, n: usize) -> Vec<String> {
        let mut ranked: Vec<(&String, &u64)> = self
            .frequency
            .iter()
            .filter(|(w, _)| !tried.contains(*w))
            .collect();
        ranked.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        ranked
            .into_iter()
            .take(n)
            .map(|(w, _)| self.spelling[w].clone())
            .collect()
    }
}

/// The `n` most frequent words of a text worth a query (the seed words of
/// a field without any, `--learn`), the most frequent first.
pub fn page_words(text: &str, n: usize) -> Vec<String> {
    let mut count: BTreeMap<String, (u64, String)> = BTreeMap::new();
    for word in words(text) {
        count.entry(word.to_lowercase()).or_insert((0, word)).0 += 1;
    }
    let mut ranked: Vec<(u64, String, String)> = count
        .into_iter()
        .map(|(key, (n, word))| (n, key, word))
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    ranked
        .into_iter()
        .take(n)
        .map(|(_, _, word)| word)
        .collect()
}

/// The words of a value worth a query.
fn words(value: &str) -> impl Iterator<Item = String> + '_ {
    value
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3 && !w.chars().all(|c| c.is_ascii_digit()))
        .filter(|w| !STOP_WORDS.contains(&w.to_lowercase().as_str()))
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_told_later_rank_as_if_counted_at_once() {
        let values = [
            "Stille Nacht",
            "Hafen am Strand",
            "Hafen und Stille",
            "Der stille Hafen",
        ];
        let mut later = WordRanking::new(values[..1].iter().copied());
        assert_eq!(later.next(&HashSet::new(), 1), ["Nacht"]);
        later.add(values[1..].iter().copied());
        let at_once = WordRanking::new(values);
        assert_eq!(
            later.next(&HashSet::new(), 4),
            at_once.next(&HashSet::new(), 4)
        );
        assert_eq!(later.next(&HashSet::new(), 2), ["Hafen", "Stille"]);
    }

    #[test]
    fn the_most_frequent_untried_word_comes_first() {
        let ranking = WordRanking::new([
            "Die Stille Bucht",
            "Stille Nacht 3",
            "Der Hafen am Strand",
            "Hafen und Stille",
        ]);
        let tried: HashSet<String> = ["hafen".to_string()].into();
        assert_eq!(ranking.next(&tried, 3), ["Stille", "Bucht", "Nacht"]);
        assert!(ranking
            .next(&HashSet::new(), 10)
            .iter()
            .all(|w| w != "Die" && w != "am" && w != "3"));
    }
}

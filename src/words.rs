//! The words of a text worth a query: those a keyword field is probed
//! with when a form is surfaced ([`crate::surface`]), seeded with when it is
//! learned ([`crate::refine::learn`]), and counted by the learner.

use std::collections::BTreeMap;

/// Common German and English words that select nothing in particular.
const STOP_WORDS: &[&str] = &[
    "der", "die", "das", "den", "dem", "des", "ein", "eine", "einer", "eines", "und", "oder",
    "mit", "von", "vom", "zum", "zur", "auf", "aus", "bei", "nach", "the", "and", "for", "with",
    "from", "ins", "im", "am", "an", "in", "of", "to", "a",
];

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

/// The words of a text, as they are written: split at every character
/// that is neither a letter nor a digit (apply it to a [`normalized`]
/// text for lower case and `userName` split).
///
/// [`normalized`]: crate::form::words::normalized
pub fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
}

/// Whether a value holds a word worth a query (a value the ranking
/// counts).
pub fn has_words(value: &str) -> bool {
    words(value).next().is_some()
}

/// The words of a value worth a query.
pub(crate) fn words(value: &str) -> impl Iterator<Item = String> + '_ {
    value
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3 && !w.chars().all(|c| c.is_ascii_digit()))
        .filter(|w| !STOP_WORDS.contains(&w.to_lowercase().as_str()))
        .map(str::to_string)
}

//! The total a result page states: "3,376 rows", "Jobs 1-20 of 100",
//! "350 Treffer", "Seite 1 von 12", "only the newest 100 are shown".
//!
//! The page's short blocks (the text of an element of at most
//! [`MAX_BLOCK`] characters whose children are not all blocks of their
//! own), outside the records, are read in document order; the first
//! block that states a total in one of these forms gives it:
//!
//! - a range of a total: `1-20 of 100`, `1 – 20 von 100`, `21 à 40 sur 350`
//!   (the records shown and their total);
//! - a page of pages: `Seite 1 von 12`, `Page 2 of 9` (a total of pages);
//! - a cap: `only the newest 100 are shown`, `nur die ersten 500`;
//! - a number beside a word of counting, as the refiner reads the hit
//!   counts of answers ([`crate::refine::stated_numbers`]), with the words
//!   of tables and lists added (`rows`, `Zeilen`, `Hotels … gefunden`).

use std::sync::LazyLock;

use regex::Regex;

use crate::page::{NodeId, Page, PCDATA, SCRIPT, STYLE};

/// The longest block read for a total.
pub const MAX_BLOCK: usize = 200;

/// What a stated number counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TotalKind {
    /// Records (rows, hits, results).
    Records,
    /// Result pages.
    Pages,
    /// The most records the site shows, whatever the total.
    Cap,
}

/// A total stated on a page.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Total {
    pub count: u64,
    pub kind: TotalKind,
    /// The records shown on this page (`1-20 of 100`: 1 and 20), if stated.
    pub shown: Option<(u64, u64)>,
    /// The text that states it.
    pub text: String,
}

const NUM: &str = r"(\d{1,3}(?:[.,\u{202f}\u{a0}' ]\d{3})+|\d+)";

static RANGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)\b{NUM}\s*(?:-|–|—|bis|to|à|a)\s*{NUM}\s*(?:of|von|aus|de|sur|di|van|/)\s*(?:about\s+|ca\.?\s+|insgesamt\s+|total\s+)?{NUM}\b"
    ))
    .expect("a valid regex")
});

static PAGES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)\b(?:seite|page|pagina|página|pag\.?)\s*{NUM}\s*(?:of|von|aus|de|sur|di|/)\s*{NUM}\b"
    ))
    .expect("a valid regex")
});

static CAP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)\b(?:only|nur)\s+(?:the\s+|die\s+)?(?:first|newest|latest|top|ersten|neuesten|letzten)?\s*{NUM}\b"
    ))
    .expect("a valid regex")
});

/// Words after a number that make it a count of records, beside the
/// nouns of the refiner's hit counts ([`crate::refine::COUNTED`]).
const COUNT_AFTER: &[&str] = &["rows", "row", "zeilen"];

/// Words that make a number before them a count of records, a few words
/// later: `21 Hotels und Pensionen gefunden`, `57 jobs found`.
const FOUND: &[&str] = &["gefunden", "found", "trouvés", "trouvé", "encontrados"];

fn number(s: &str) -> Option<u64> {
    crate::refine::first_number(s)
}

/// The total a block of text states, if any.
pub fn total_in(text: &str) -> Option<Total> {
    let total = |count, kind, shown| Total {
        count,
        kind,
        shown,
        text: text.to_string(),
    };
    if let Some(c) = PAGES.captures(text) {
        return Some(total(number(&c[2])?, TotalKind::Pages, None));
    }
    if let Some(c) = RANGE.captures(text) {
        let (from, to, all) = (number(&c[1])?, number(&c[2])?, number(&c[3])?);
        if from <= to && to <= all {
            return Some(total(all, TotalKind::Records, Some((from, to))));
        }
    }
    if let Some(c) = CAP.captures(text) {
        let lower = text.to_lowercase();
        if [
            "shown",
            "angezeigt",
            "displayed",
            "visible",
            "listed",
            "gezeigt",
        ]
        .iter()
        .any(|w| lower.contains(w))
        {
            return Some(total(number(&c[1])?, TotalKind::Cap, None));
        }
    }
    static COUNT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(&format!(
            r"{NUM}\s*\+?\s*([\p{{L}}]+)((?:\s+[\p{{L}}]+){{0,4}})"
        ))
        .expect("a valid regex")
    });
    for c in COUNT.captures_iter(text) {
        let word = c[2].to_lowercase();
        let later = c[3].to_lowercase();
        let found = later.split_whitespace().any(|w| FOUND.contains(&w));
        if COUNT_AFTER.contains(&word.as_str())
            || crate::refine::COUNTED.contains(&word.as_str())
            || found
        {
            return Some(total(number(&c[1])?, TotalKind::Records, None));
        }
    }
    // What the refiner reads: a number beside a word of counting.
    crate::refine::stated_numbers(text)
        .into_iter()
        .find(|(wording, _)| {
            let mut w = wording.split(' ');
            let before = w.next().unwrap_or("");
            matches!(before, "of" | "von" | "insgesamt" | "total" | "ergab")
        })
        .map(|(_, n)| total(n, TotalKind::Records, None))
}

/// The total the page states outside the nodes `skip` (its records).
pub fn stated_total(page: &Page, skip: &[NodeId]) -> Option<Total> {
    let body = page.body();
    let end = page.subtree_end(body);
    let mut node = body.next();
    while node < end {
        let label = page.label_of(node);
        if matches!(label, SCRIPT | STYLE) || skip.contains(&node) {
            node = page.subtree_end(node);
            continue;
        }
        if label == PCDATA || page.is_inline(node) {
            node = node.next();
            continue;
        }
        let text = page.text_of(node);
        if text.chars().count() <= MAX_BLOCK && text.chars().any(|c| c.is_ascii_digit()) {
            if let Some(t) = total_in(&text) {
                return Some(t);
            }
            node = page.subtree_end(node);
            continue;
        }
        if !text.chars().any(|c| c.is_ascii_digit()) {
            node = page.subtree_end(node);
            continue;
        }
        node = node.next();
    }
    None
}

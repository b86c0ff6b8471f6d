//! Harbour Lane Books (`/shelf/`): an English bookshop catalogue built
//! unlike the CityWorld services, for a cap that no single count shows.
//! A search by subject shows at most [`MAX_SHOWN`] books as a numbered
//! list; every book carries one to three authors, so a capped answer shows
//! 50 titles but 54–72 authors. The hit count stands only in a sentence
//! above the list ("Showing 1–50 of 1,234 titles"): the form names neither
//! `DB.ResultCount` nor `DB.MaxResults`. Two selects that default to "any"
//! (format, decade) narrow a search. Served in UTF-8, lower-case markup.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::sync::LazyLock;

use axum::http::Uri;
use axum::Router;

use super::form_provider::Charset;
use rand::prelude::*;
use rand_chacha::ChaCha8Rng;

use super::pages::esc;

/// Where the form page is.
pub const PATH: &str = "/shelf/";
/// The most books one search shows.
pub const MAX_SHOWN: usize = 50;

/// Subjects (value, label, books).
pub const SUBJECTS: [(&str, &str, usize); 5] = [
    ("fic", "Fiction", 520),
    ("his", "History", 270),
    ("trv", "Travel", 150),
    ("poe", "Poetry", 40),
    ("ckg", "Cooking", 33),
];
/// Formats (value, label, weight).
pub const FORMATS: [(&str, &str, u32); 4] = [
    ("pb", "Paperback", 60),
    ("hc", "Hardcover", 25),
    ("au", "Audio book", 8),
    ("eb", "E-book", 7),
];
/// The decades a book may come from.
pub const DECADES: [u32; 10] = [1930, 1940, 1950, 1960, 1970, 1980, 1990, 2000, 2010, 2020];

/// One book of the shop.
#[derive(Debug, Clone)]
pub struct Book {
    pub title: String,
    pub authors: Vec<String>,
    pub subject: &'static str,
    pub format: &'static str,
    pub year: u32,
}

const FIRST: &[&str] = &[
    "Alice", "Ben", "Clara", "David", "Edith", "Frank", "Grace", "Henry", "Iris", "James", "Kate",
    "Liam", "Maud", "Noah", "Olive", "Peter", "Queenie", "Ruth", "Sam", "Tess",
];
const LAST: &[&str] = &[
    "Abbott", "Barnes", "Carver", "Dunn", "Ellis", "Fisher", "Gould", "Hale", "Irving", "Jarvis",
    "Keane", "Lowe", "Marsh", "Noble", "Orme", "Pryce", "Quill", "Reid", "Shaw", "Tully", "Vance",
    "Webb",
];
const WORDS: &[&str] = &[
    "Harbour", "Lantern", "Winter", "Orchard", "Tide", "Meadow", "Signal", "Compass", "Ember",
    "Willow", "Granite", "Marsh", "Beacon", "Falcon", "Hollow", "River", "Summer", "Glass",
];
const SHAPES: &[&str] = &[
    "The {a} of the {b}",
    "{a} and {b}",
    "A {a} for {b}",
    "After the {a}",
    "{a} Road",
    "Notes on {a}",
];

/// The shop's books: the same every time.
pub fn books() -> &'static [Book] {
    static BOOKS: LazyLock<Vec<Book>> = LazyLock::new(|| {
        let mut rng = ChaCha8Rng::seed_from_u64(0x5e1f);
        let authors: Vec<String> = (0..240)
            .map(|i| {
                format!(
                    "{} {}",
                    FIRST[i % FIRST.len()],
                    LAST[(i * 7 / 3) % LAST.len()]
                )
            })
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for (subject, _, count) in SUBJECTS {
            for _ in 0..count {
                let shape = SHAPES[rng.gen_range(0..SHAPES.len())];
                let base = shape
                    .replace("{a}", WORDS[rng.gen_range(0..WORDS.len())])
                    .replace("{b}", WORDS[rng.gen_range(0..WORDS.len())]);
                let mut title = base.clone();
                let mut volume = 2;
                while !seen.insert(title.clone()) {
                    title = format!("{base} ({volume})");
                    volume += 1;
                }
                let format = super::form_provider::weighted(&mut rng, &FORMATS);
                let n = rng.gen_range(1..=3);
                let mut names: Vec<String> = (0..n)
                    .map(|_| authors[rng.gen_range(0..authors.len())].clone())
                    .collect();
                names.dedup();
                out.push(Book {
                    title,
                    authors: names,
                    subject,
                    format,
                    year: DECADES[rng.gen_range(0..DECADES.len())] + rng.gen_range(0..10),
                });
            }
        }
        out
    });
    &BOOKS
}

/// Every title and author of the shop.
pub fn expected() -> BTreeMap<String, BTreeSet<String>> {
    let titles = books().iter().map(|b| b.title.clone()).collect();
    let authors = books()
        .iter()
        .flat_map(|b| b.authors.iter().cloned())
        .collect();
    BTreeMap::from([
        ("title".to_string(), titles),
        ("author".to_string(), authors),
    ])
}

/// The routes of the provider.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    super::form_provider::provider(PATH, "/shelf/find", Charset::Utf8, form_page, results)
}

/// The search form, with its metadata.
pub fn form_page() -> String {
    let subjects: Vec<(String, String)> = SUBJECTS
        .iter()
        .map(|(v, l, _)| (v.to_string(), l.to_string()))
        .collect();
    let formats: Vec<(String, String)> = FORMATS
        .iter()
        .map(|(v, l, _)| (v.to_string(), l.to_string()))
        .collect();
    let decades: Vec<(String, String)> = DECADES
        .iter()
        .map(|d| (d.to_string(), format!("{d}s")))
        .collect();
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>Harbour Lane Books – catalogue</title>\n\
         <meta name=\"DB.QueryElement\" content=\"subject\">\n\
         <meta name=\"DB.Result.title\" content=\"html.body->ol[0].li[*].cite[0].txt\">\n\
         <meta name=\"DB.Result.author\" content=\"html.body->ol[0].li[*].span[*].txt\">\n\
         </head><body>\n<nav><a href=\"/shelf/\">Catalogue</a> · <a href=\"/shelf/\">Opening hours</a></nav>\n\
         <h2>Find a book</h2>\n<form method=\"get\" action=\"/shelf/find\">\n\
         <label>Subject {}</label> <label>Format {}</label> <label>Published {}</label>\n\
         <button type=\"submit\">Find books</button>\n</form>\n</body></html>\n",
        super::form_provider::select("subject", None, &subjects),
        super::form_provider::select("format", Some("Any format"), &formats),
        super::form_provider::select("decade", Some("Any decade"), &decades),
    )
}

/// The books a search finds, in the shop's order (newest first).
pub fn search(subject: &str, format: &str, decade: &str) -> Vec<&'static Book> {
    let decade: Option<u32> = decade.parse().ok();
    let mut found: Vec<&Book> = books()
        .iter()
        .filter(|b| b.subject == subject)
        .filter(|b| format.is_empty() || b.format == format)
        .filter(|b| decade.is_none_or(|d| b.year / 10 * 10 == d))
        .collect();
    found.sort_by(|a, b| b.year.cmp(&a.year).then(a.title.cmp(&b.title)));
    found
}

/// A count with a thousands comma: `1,234`.
pub(crate) fn grouped(n: usize) -> String {
    if n >= 1000 {
        format!("{},{:03}", n / 1000, n % 1000)
    } else {
        n.to_string()
    }
}

/// The answer to a search.
fn results(uri: &Uri) -> String {
    let get = |name: &str| super::form_provider::param(uri.query(), name);
    let found = search(&get("subject"), &get("format"), &get("decade"));
    let label = SUBJECTS
        .iter()
        .find(|s| s.0 == get("subject"))
        .map_or("this subject", |s| s.1);
    let mut out = String::from(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>Results – Harbour Lane Books</title></head><body>\n\
         <nav><a href=\"/shelf/\">Catalogue</a> › Results</nav>\n",
    );
    if found.is_empty() {
        out.push_str("<p class=\"summary\">No titles found.</p>\n");
    } else {
        let shown = found.len().min(MAX_SHOWN);
        let _ = writeln!(
            out,
            "<p class=\"summary\">Showing 1–{shown} of {} titles in <b>{}</b>.</p>",
            grouped(found.len()),
            esc(label)
        );
    }
    out.push_str("<ol class=\"books\">\n");
    for book in found.iter().take(MAX_SHOWN) {
        let authors: Vec<String> = book
            .authors
            .iter()
            .map(|a| format!("<span class=\"au\">{}</span>", esc(a)))
            .collect();
        let _ = writeln!(
            out,
            "<li><cite>{}</cite> — {} <small>({})</small></li>",
            esc(&book.title),
            authors.join(", "),
            book.year
        );
    }
    out.push_str("</ol>\n<p><a href=\"/shelf/\">New search</a></p>\n</body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_book_is_reachable_within_the_cap() {
        for (subject, _, _) in SUBJECTS {
            for (format, _, _) in FORMATS {
                for decade in DECADES {
                    let n = search(subject, format, &decade.to_string()).len();
                    assert!(n <= MAX_SHOWN, "{subject} {format} {decade}: {n}");
                }
            }
        }
        let capped = SUBJECTS
            .iter()
            .filter(|s| search(s.0, "", "").len() > MAX_SHOWN)
            .count();
        assert_eq!(capped, 3);
        let titles = expected()["title"].len();
        assert_eq!(titles, books().len(), "titles are distinct");
    }
}

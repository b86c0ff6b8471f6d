//! Hofläden an Rhein und Mosel (`/hofladen/`): a German search for farm
//! shops, built unlike the cottages and the holiday flats, for an open
//! text field that takes whole words and no wildcard. A search by district
//! (`kreis`, the query element) lists at most [`MAX_SHOWN`] shops, the most
//! popular first, in a numbered list under "Ihre Suche ergab 42 Treffer;
//! angezeigt werden die 15 beliebtesten." (no `DB.ResultCount`, no
//! `DB.MaxResults`); no select narrows it. The field `gemeinde` (label
//! "Gemeinde") finds the shops of a place whose name, or one of whose
//! words (split at spaces, hyphens and brackets), is the text: `Zell`
//! finds Zell (Mosel) and Zell-Merl; `Z*` and `Z%` find nothing. Its
//! quirk: small places whose shops are never popular enough for a capped
//! answer, so their names are never gathered; all but one share a word
//! with a place that is ([`HIDDEN`]), and Briedern shares none
//! ([`UNREACHABLE`]): no query gather can form reaches it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::sync::LazyLock;

use axum::http::Uri;
use axum::Router;
use rand::prelude::*;
use rand_chacha::ChaCha8Rng;

use super::form_provider::Charset;
use super::pages::esc;

/// Where the form page is.
pub const PATH: &str = "/hofladen/";
/// The script that answers.
pub const SCRIPT: &str = "/hofladen/finden";
/// The most shops one search lists.
pub const MAX_SHOWN: usize = 15;
/// A district: value, label, the places capped answers list, the small
/// places they never list.
pub type Kreis = (
    &'static str,
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
);
/// The districts.
pub const KREISE: [Kreis; 3] = [
    (
        "KH",
        "Landkreis Bad Kreuznach",
        &["Bad Kreuznach", "Kirn", "Stromberg", "Langenlonsheim"],
        &["Bad Sobernheim"],
    ),
    (
        "AW",
        "Landkreis Ahrweiler",
        &["Sinzig", "Remagen", "Altenahr", "Bad Breisig"],
        &["Bad Bodendorf", "Remagen-Oberwinter"],
    ),
    (
        "COC",
        "Landkreis Cochem-Zell",
        &["Cochem", "Zell (Mosel)", "Treis-Karden", "Ediger-Eller"],
        &["Zell-Merl", "Briedern"],
    ),
];
/// The small places that share a word with a place capped answers list.
pub const HIDDEN: [&str; 4] = [
    "Bad Sobernheim",
    "Bad Bodendorf",
    "Remagen-Oberwinter",
    "Zell-Merl",
];
/// The small place that shares no word with any other.
pub const UNREACHABLE: &str = "Briedern";

/// One farm shop.
#[derive(Debug, Clone)]
pub struct Hofladen {
    pub name: String,
    pub kreis: &'static str,
    pub gemeinde: &'static str,
    /// Popularity, 1–100: the order of the list.
    pub beliebt: u32,
}

const HOEFE: &[&str] = &[
    "Obsthof",
    "Weingut",
    "Biohof",
    "Hofladen",
    "Gemüsehof",
    "Ziegenhof",
];
const FAMILIEN: &[&str] = &[
    "Becker", "Schmitt", "Hahn", "Jung", "Klein", "Dhein", "Lenz", "Pauly",
];

/// The shops: the same every time.
pub fn hoflaeden() -> &'static [Hofladen] {
    static ALL: LazyLock<Vec<Hofladen>> = LazyLock::new(|| {
        let mut rng = ChaCha8Rng::seed_from_u64(0x40f1ade);
        let mut out = Vec::new();
        for (kreis, _, places, small) in KREISE {
            let towns = places.iter().map(|p| (p, 7..11, 60..100));
            let villages = small.iter().map(|p| (p, 2..5, 1..40));
            for (gemeinde, count, beliebt) in towns.chain(villages) {
                for _ in 0..rng.gen_range(count) {
                    let n = out.len() + 1;
                    out.push(Hofladen {
                        name: format!(
                            "{} {} ({n})",
                            HOEFE[rng.gen_range(0..HOEFE.len())],
                            FAMILIEN[rng.gen_range(0..FAMILIEN.len())]
                        ),
                        kreis,
                        gemeinde,
                        beliebt: rng.gen_range(beliebt.clone()),
                    });
                }
            }
        }
        out
    });
    &ALL
}

/// Every shop's name and place.
pub fn expected() -> BTreeMap<String, BTreeSet<String>> {
    reachable_where(|_| true)
}

/// The names and places of the shops some query gather can form reaches:
/// every shop but those of [`UNREACHABLE`].
pub fn reachable() -> BTreeMap<String, BTreeSet<String>> {
    reachable_where(|h| h.gemeinde != UNREACHABLE)
}

fn reachable_where(keep: impl Fn(&Hofladen) -> bool) -> BTreeMap<String, BTreeSet<String>> {
    let shops: Vec<&Hofladen> = hoflaeden().iter().filter(|h| keep(h)).collect();
    BTreeMap::from([
        (
            "name".to_string(),
            shops.iter().map(|h| h.name.clone()).collect(),
        ),
        (
            "gemeinde".to_string(),
            shops.iter().map(|h| h.gemeinde.to_string()).collect(),
        ),
    ])
}

/// The routes of the provider.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    super::form_provider::provider(PATH, SCRIPT, Charset::Utf8, form_page, results)
}

/// The search form, with its metadata.
pub fn form_page() -> String {
    let mut out = String::from(
        "<!DOCTYPE html>\n<html lang=\"de\"><head><meta charset=\"utf-8\"><title>Hofläden an Rhein und Mosel</title>\n\
         <meta name=\"DB.QueryElement\" content=\"kreis\">\n\
         <meta name=\"DB.Result.name\" content=\"html.body->ol[0].li[*].b[0].txt\">\n\
         <meta name=\"DB.Result.gemeinde\" content=\"html.body->ol[0].li[*].em[0].txt\">\n\
         </head><body>\n<h1>Hofladen finden</h1>\n<form action=\"/hofladen/finden\" method=\"get\">\n\
         <div>Landkreis: <select name=\"kreis\">",
    );
    for (value, label, ..) in KREISE {
        let _ = write!(out, "<option value=\"{value}\">{}</option>", esc(label));
    }
    out.push_str(
        "</select></div>\n<div><label for=\"g\">Gemeinde</label> <input type=\"text\" name=\"gemeinde\" id=\"g\" title=\"ganze Wörter, ohne Platzhalter\"></div>\n\
         <div><input type=\"submit\" value=\"Finden\"></div>\n</form>\n</body></html>\n",
    );
    out
}

/// Whether a place answers the field: its whole name, or one of its words
/// (case ignored); an empty field answers every place.
fn gemeinde_matches(gemeinde: &str, asked: &str) -> bool {
    asked.is_empty()
        || gemeinde.eq_ignore_ascii_case(asked)
        || gemeinde
            .split([' ', '-', '(', ')'])
            .any(|w| !w.is_empty() && w.to_lowercase() == asked.to_lowercase())
}

/// The shops a search finds, the most popular first.
pub fn search(kreis: &str, gemeinde: &str) -> Vec<&'static Hofladen> {
    let mut found: Vec<&Hofladen> = hoflaeden()
        .iter()
        .filter(|h| h.kreis == kreis && gemeinde_matches(h.gemeinde, gemeinde))
        .collect();
    found.sort_by(|a, b| b.beliebt.cmp(&a.beliebt).then(a.name.cmp(&b.name)));
    found
}

/// The answer to a search.
fn results(uri: &Uri) -> String {
    let get = |name: &str| super::form_provider::param(uri.query(), name);
    let found = search(&get("kreis"), &get("gemeinde"));
    let mut out = String::from(
        "<!DOCTYPE html>\n<html lang=\"de\"><head><meta charset=\"utf-8\"><title>Hofläden – Ergebnis</title></head><body>\n",
    );
    let _ = writeln!(
        out,
        "<p>Ihre Suche ergab {} Treffer; angezeigt werden die {} beliebtesten.</p>\n<ol>",
        found.len(),
        found.len().min(MAX_SHOWN)
    );
    for h in found.iter().take(MAX_SHOWN) {
        let _ = writeln!(
            out,
            "<li><b>{}</b> in <em>{}</em>, {} von 100 Punkten</li>",
            esc(&h.name),
            esc(h.gemeinde),
            h.beliebt
        );
    }
    out.push_str("</ol>\n<p><a href=\"/hofladen/\">Neue Suche</a></p>\n</body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_places_are_never_listed_by_a_capped_answer_but_a_shared_word_finds_them() {
        for (kreis, _, places, small) in KREISE {
            let found = search(kreis, "");
            assert!(found.len() > MAX_SHOWN, "{kreis}");
            let listed: Vec<&str> = found.iter().take(MAX_SHOWN).map(|h| h.gemeinde).collect();
            assert!(listed.iter().all(|g| !small.contains(g)), "{kreis}");
            for place in places.iter().chain(small.iter()) {
                let n = search(kreis, place).len();
                assert!((1..=MAX_SHOWN).contains(&n), "{kreis} {place}: {n}");
                // No wildcard.
                let first: String = place.chars().take(1).collect();
                assert!(search(kreis, &format!("{first}*")).is_empty());
                assert!(search(kreis, &format!("{first}%")).is_empty());
            }
        }
        // A word a listed place shares lists the hidden place whole.
        for (word, hidden) in [
            ("Bad", "Bad Sobernheim"),
            ("Bad", "Bad Bodendorf"),
            ("Remagen", "Remagen-Oberwinter"),
            ("zell", "Zell-Merl"),
        ] {
            let kreis = KREISE.iter().find(|k| k.3.contains(&hidden)).unwrap().0;
            let found = search(kreis, word);
            assert!(found.len() <= MAX_SHOWN, "{word}");
            assert!(found.iter().any(|h| h.gemeinde == hidden), "{word}");
        }
        assert!(HIDDEN
            .iter()
            .all(|h| KREISE.iter().any(|k| k.3.contains(h))));
        // Briedern's one word is no word of another place.
        let words = |p: &str| -> Vec<String> {
            p.split([' ', '-', '(', ')'])
                .filter(|w| !w.is_empty())
                .map(str::to_lowercase)
                .collect()
        };
        for (_, _, places, small) in KREISE {
            for place in places.iter().chain(small.iter()) {
                if *place != UNREACHABLE {
                    assert!(!words(place).contains(&UNREACHABLE.to_lowercase()));
                }
            }
        }
        assert!(reachable()["gemeinde"].len() + 1 == expected()["gemeinde"].len());
    }
}

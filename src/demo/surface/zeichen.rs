//! Antiquariat Zeichen (`/surface/zeichen/`): a catalogue behind a prefix
//! search (`q`, the start of a title followed by `%`, matched ignoring
//! case), ten titles a page. Some titles start with characters a prefix
//! domain of letters does not try: `#`, `É`, `¿`, `Ö`, `Ü` and digits.
//! Each of them also starts a word inside some other title (`Lieder für
//! #Heimat`), so a gatherer can learn of them from what it gathered. The
//! form page states how many titles the catalogue holds.

use std::fmt::Write as _;

use rand::prelude::*;
use rand_chacha::ChaCha8Rng;

use super::{esc, head, slice, Row};

const ADJECTIVES: [&str; 12] = [
    "Alte", "Blaue", "Dunkle", "Ferne", "Helle", "Kalte", "Lange", "Neue", "Rote", "Stille",
    "Tiefe", "Wilde",
];
const NOUNS: [&str; 14] = [
    "Abende", "Briefe", "Gärten", "Häfen", "Inseln", "Jahre", "Küsten", "Lieder", "Nächte",
    "Pfade", "Reisen", "Stürme", "Wälder", "Zeiten",
];

/// Titles that start with a character no letter prefix tries, and titles
/// that hold such a character at the start of a word.
const SPECIAL: [&str; 24] = [
    "#Heimat",
    "#Liebe am Meer",
    "#Nordsee",
    "Éclat der Küste",
    "Éloge du Nord",
    "Étoile des Hafens",
    "¿Dónde está el mar?",
    "¿Quién sabe?",
    "Österreich für Anfänger",
    "Ölmühle am Fluss",
    "Übermorgen am Strand",
    "1984 und danach",
    "7 Brücken",
    "42 Wege zum Meer",
    "Lieder für #Heimat",
    "Abend in Évian",
    "Briefe aus Österreich",
    "Fragen ¿wieso?",
    "Sommer 1999",
    "Die 7 Leuchttürme",
    "Weg 42",
    "Reise übermorgen",
    "Zwischen 4 Meeren",
    "Morgen in Éze",
];

/// The catalogue: every title once, with its year.
pub(super) fn rows(rng: &mut ChaCha8Rng) -> Vec<Row> {
    let mut titles: Vec<String> = SPECIAL.iter().map(|t| t.to_string()).collect();
    while titles.len() < 150 {
        let title = format!(
            "{} {}",
            ADJECTIVES[rng.gen_range(0..ADJECTIVES.len())],
            NOUNS[rng.gen_range(0..NOUNS.len())]
        );
        let title = match rng.gen_range(0..3) {
            0 => title,
            1 => format!("Die {title}"),
            _ => format!("{title} {}", rng.gen_range(1..9)),
        };
        if !titles.contains(&title) {
            titles.push(title);
        }
    }
    titles.sort_by_key(|t| t.to_lowercase());
    titles
        .into_iter()
        .map(|titel| {
            let jahr = rng.gen_range(1950..2024).to_string();
            Row::from([("titel", titel), ("jahr", jahr)])
        })
        .collect()
}

/// The hand-written metadata: the prefixes a user would write, letters.
pub(super) fn hand_written() -> Vec<(&'static str, String)> {
    vec![
        ("DB.QueryElement", "q".into()),
        ("DB.QueryElement.q", "/[A-Z]%/".into()),
        ("DB.Result.titel", "html->table[0].tr[*].td[0].txt".into()),
        ("DB.Result.jahr", "html->table[0].tr[*].td[1].txt".into()),
    ]
}

/// The form page.
pub(super) fn form_page(meta: &[(&str, &str)], titles: usize) -> String {
    format!(
        "{}<body>\n<h1>Antiquariat Zeichen</h1>\n<p>Unser Katalog umfasst {titles} Titel.</p>\n\
         <form action=\"/surface/zeichen/search\" method=\"get\">\n\
         <p>Titel beginnt mit <input type=\"text\" name=\"q\" size=\"20\"> (mit % am Ende, z. B. Ost%)</p>\n\
         <p><input type=\"submit\" value=\"Suchen\"></p>\n</form>\n</body>\n</html>\n",
        head("Antiquariat Zeichen – Katalog", meta)
    )
}

/// The answer to `q`: the titles it starts (a `%` at its end) or the
/// title it names, ten a page.
pub(super) fn results(rows: &[Row], q: &str, page: usize, query: &str) -> String {
    let found: Vec<&Row> = match q.strip_suffix('%') {
        Some(prefix) if !prefix.is_empty() => {
            let prefix = prefix.to_lowercase();
            rows.iter()
                .filter(|r| r["titel"].to_lowercase().starts_with(&prefix))
                .collect()
        }
        _ if !q.is_empty() => rows
            .iter()
            .filter(|r| r["titel"].to_lowercase() == q.to_lowercase())
            .collect(),
        _ => Vec::new(),
    };
    let (shown, more) = slice(&found, page, 10);
    let mut out = head("Antiquariat Zeichen – Suche", &[]);
    let _ = writeln!(
        out,
        "<body>\n<h1>Antiquariat Zeichen</h1>\n<p>Ihre Suche nach „{}“: {} Titel</p>",
        esc(q),
        found.len()
    );
    out.push_str("<table>\n");
    for r in shown {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td></tr>",
            esc(&r["titel"]),
            esc(&r["jahr"])
        );
    }
    out.push_str("</table>\n");
    if more {
        let _ = writeln!(
            out,
            "<p><a href=\"/surface/zeichen/search?{}&amp;page={}\">weiter</a></p>",
            esc(query),
            page + 1
        );
    }
    out.push_str("</body>\n</html>\n");
    out
}

//! The CityWorld library catalogue (`/katalog/`): a provider that cuts its
//! answers short. Its text field `q` takes a title prefix with the `%`
//! wildcard (`A%`, matched ignoring case), and a search shows at most
//! [`MAX_SHOWN`] titles in title order, under a notice "Ihre Suche nach „A%“
//! ergab 312 Treffer. Es werden nur die ersten 50 angezeigt." The form's
//! metadata says so: `DB.QueryElement.q = /[A-Z0-9]%/`, `DB.ResultCount`,
//! `DB.MaxResults 50`. A gatherer that sends the static plan alone sees a
//! third of the titles.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use rand::prelude::*;
use rand_chacha::ChaCha8Rng;
use rusqlite::{params, Connection};

use super::pages::{esc, hit_notice, service_page};

/// The most titles one search shows.
pub const MAX_SHOWN: usize = 50;

/// The rule of the hit count, on the notice above the results.
pub const COUNT_RULE: &str = "html.body.p[0].txt, match/ergab ([0-9.]+) Treffer/";
/// The rule of the titles: the first cell of each row of the result table.
pub const TITLE_RULE: &str = "html.body->table[0].tr[*].td[0].txt";
/// The pattern of the form's text field: a letter or digit, then anything.
pub const PATTERN: &str = "/[A-Z0-9]%/";

const ADJECTIVES: &[&str] = &[
    "Alte", "Blaue", "Dunkle", "Ewige", "Ferne", "Goldene", "Gruene", "Helle", "Kalte", "Kleine",
    "Lange", "Neue", "Offene", "Rote", "Stille", "Tiefe", "Weisse", "Wilde", "Zweite", "Letzte",
];
const NOUNS: &[&str] = &[
    "Abend",
    "Anker",
    "Bucht",
    "Duene",
    "Eiche",
    "Fischer",
    "Garten",
    "Hafen",
    "Insel",
    "Jahr",
    "Kapitaen",
    "Kueste",
    "Leuchtturm",
    "Moewe",
    "Nacht",
    "Ostsee",
    "Pfad",
    "Quelle",
    "Reise",
    "Sturm",
    "Strand",
    "Tag",
    "Ufer",
    "Vogel",
    "Wald",
    "Wind",
    "Xaver",
    "Yacht",
    "Zeit",
    "Zug",
];

/// Adds the table `buch(id, titel, jahr)` with `titles` books to the
/// provider's database; the same `seed` gives the same books. Titles hold
/// letters, digits and spaces only, so that the form's pattern and its
/// extensions reach every one; many start with "Der" and "Die", so that
/// some prefixes need several refinements.
pub(crate) fn generate(conn: &mut Connection, titles: usize, seed: u64) -> rusqlite::Result<()> {
    conn.execute_batch(
        "CREATE TABLE buch (id INTEGER PRIMARY KEY, titel TEXT NOT NULL, jahr INTEGER NOT NULL);
         CREATE INDEX buch_titel ON buch (titel COLLATE NOCASE);",
    )?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x006b_6174_616c_6f67);
    let tx = conn.transaction()?;
    for id in 0..titles {
        let noun = NOUNS[rng.gen_range(0..NOUNS.len())];
        let other = NOUNS[rng.gen_range(0..NOUNS.len())];
        let adjective = ADJECTIVES[rng.gen_range(0..ADJECTIVES.len())];
        let title = match rng.gen_range(0..10) {
            0..=2 => format!("{adjective} {noun}"),
            3 => format!("{noun} am {other}"),
            4 => format!("Der {noun} {}", rng.gen_range(1..40)),
            5 => format!("Die {adjective} {noun}"),
            6 => format!("{} {noun}", rng.gen_range(1..200)),
            7 => format!("{noun} und {other}"),
            8 => format!("Das {noun} {}", rng.gen_range(1..9)),
            _ => format!("{noun} {}", rng.gen_range(1..60)),
        };
        tx.execute(
            "INSERT INTO buch (id, titel, jahr) VALUES (?1, ?2, ?3)",
            params![id as i64 + 1, title, rng.gen_range(1890..2000)],
        )?;
    }
    tx.commit()
}

/// Every title of the catalogue.
pub(crate) fn titles(conn: &Connection) -> rusqlite::Result<BTreeSet<String>> {
    let mut stmt = conn.prepare("SELECT DISTINCT titel FROM buch")?;
    let titles = stmt
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(titles)
}

/// What a search finds: the number of hits and the first [`MAX_SHOWN`]
/// titles with their years, in title order (ignoring case).
pub(crate) fn search(conn: &Connection, q: &str) -> rusqlite::Result<(u64, Vec<(String, i64)>)> {
    let hits: i64 = conn.query_row("SELECT count(*) FROM buch WHERE titel LIKE ?1", [q], |r| {
        r.get(0)
    })?;
    let mut stmt = conn.prepare(
        "SELECT titel, jahr FROM buch WHERE titel LIKE ?1
         ORDER BY titel COLLATE NOCASE, id LIMIT ?2",
    )?;
    let shown = stmt
        .query_map(params![q, MAX_SHOWN as i64], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok((u64::try_from(hits).unwrap_or(0), shown))
}

/// The search form, with its metadata.
pub(crate) fn form_page() -> String {
    let meta = [
        (
            "description",
            "Der Katalog der CityWorld-Bibliothek: Bücher über die Ostseeküste.".to_string(),
        ),
        ("DB.QueryElement", "q".to_string()),
        ("DB.QueryElement.q", PATTERN.to_string()),
        ("DB.Result.titel", TITLE_RULE.to_string()),
        ("DB.ResultCount", COUNT_RULE.to_string()),
        ("DB.MaxResults", MAX_SHOWN.to_string()),
    ];
    service_page(
        "CityWorld Bibliothek - Katalog",
        &meta,
        "<H1>Katalog der CityWorld-Bibliothek</H1>\n\
         <FORM METHOD=\"GET\" ACTION=\"/cgi-bin/katalog.pl\">\n\
         <P>Titel beginnt mit (% für beliebige Zeichen): <INPUT TYPE=\"text\" NAME=\"q\" SIZE=\"30\">\n\
         <INPUT TYPE=\"submit\" VALUE=\"Suchen\"></P>\n</FORM>\n",
    )
}

/// The answer to a search: the notice, then the titles shown.
pub(crate) fn result_page(q: &str, hits: u64, shown: &[(String, i64)]) -> String {
    let mut body = hit_notice(q, hits, MAX_SHOWN);
    body.push_str("<TABLE BORDER=\"1\">\n");
    for (title, year) in shown {
        let _ = writeln!(body, "<TR><TD>{}</TD><TD>{year}</TD></TR>", esc(title));
    }
    body.push_str("</TABLE>\n<P><A HREF=\"/katalog/\">Neue Suche</A></P>\n");
    service_page("CityWorld Bibliothek - Suchergebnis", &[], &body)
}

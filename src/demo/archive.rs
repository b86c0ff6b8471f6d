//! The CityWorld press archive (`/archiv/`): a keyword search over
//! articles. A search matches an article when each of its words is a
//! whole word of its title (ignoring case), as most keyword searches
//! combine words; the archive shows at most [`MAX_SHOWN`]
//! articles, ranked by relevance (an order of its own for every word),
//! under a hit count. The form names three seed words only
//! (`DB.QueryElement.w = "…"`): the rest of the vocabulary has to be
//! learned from the answers.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};

use rand::distributions::WeightedIndex;
use rand::prelude::*;
use rand_chacha::ChaCha8Rng;
use rusqlite::{params, Connection};

use super::pages::{esc, hit_notice, service_page};

/// The most articles one search shows.
pub const MAX_SHOWN: usize = 100;

/// The rule of the hit count.
pub const COUNT_RULE: &str = "html.body.p[0].txt, match/ergab ([0-9.]+) Treffer/";
/// The rules of an article's number and title.
pub const NUMBER_RULE: &str = "html.body->table[0].tr[*].td[0].txt";
pub const TITLE_RULE: &str = "html.body->table[0].tr[*].td[1].txt";

const SYLLABLES: &[&str] = &[
    "ha", "fen", "sturm", "kal", "ber", "tin", "mo", "we", "strand", "wal", "de", "lin", "ost",
    "see", "rin", "gen", "bo", "dden", "kap", "ros", "tock", "wis", "mar", "stral", "sund", "grei",
    "fs", "wald", "use", "dom", "ru", "gen", "dar", "ss", "zin", "gst", "ahl", "bin", "sel", "lin",
];

/// Words of the archive's vocabulary: two or three syllables, distinct.
fn vocabulary(rng: &mut ChaCha8Rng, size: usize) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    while out.len() < size {
        let parts = rng.gen_range(2..=3);
        let mut word = String::new();
        for _ in 0..parts {
            word.push_str(SYLLABLES[rng.gen_range(0..SYLLABLES.len())]);
        }
        let mut chars = word.chars();
        let word = match chars.next() {
            Some(first) => first.to_uppercase().chain(chars).collect::<String>(),
            None => continue,
        };
        if seen.insert(word.clone()) {
            out.push(word);
        }
    }
    out
}

/// Adds the table `artikel(id, titel)` with `articles` articles: titles of
/// four words drawn from a vocabulary of 1,500 with Zipf frequencies, as in
/// a real archive. The same `seed` gives the same articles.
pub(crate) fn generate(conn: &mut Connection, articles: usize, seed: u64) -> anyhow::Result<()> {
    conn.execute_batch("CREATE TABLE artikel (id INTEGER PRIMARY KEY, titel TEXT NOT NULL);")?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x0061_7263_6869_7600);
    let words = vocabulary(&mut rng, 1500);
    let zipf = WeightedIndex::new((1..=words.len()).map(|rank| 1.0 / rank as f64))?;
    let tx = conn.transaction()?;
    for id in 0..articles {
        let title: Vec<&str> = (0..4)
            .map(|_| words[zipf.sample(&mut rng)].as_str())
            .collect();
        tx.execute(
            "INSERT INTO artikel (id, titel) VALUES (?1, ?2)",
            params![id as i64 + 1, title.join(" ")],
        )?;
    }
    tx.commit()?;
    Ok(())
}

/// The three seed words the form names: words of the vocabulary that are
/// neither the most frequent nor rare.
pub(crate) fn seed_words(seed: u64) -> Vec<String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x0061_7263_6869_7600);
    let words = vocabulary(&mut rng, 1500);
    vec![words[5].clone(), words[40].clone(), words[200].clone()]
}

/// Every article number.
pub(crate) fn numbers(conn: &Connection) -> rusqlite::Result<BTreeSet<String>> {
    let mut stmt = conn.prepare("SELECT id FROM artikel")?;
    let numbers = stmt
        .query_map([], |r| r.get::<_, i64>(0).map(|n| n.to_string()))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(numbers)
}

/// What a search finds: the number of hits and the first [`MAX_SHOWN`]
/// articles (number, title) in the archive's relevance order for the word.
pub(crate) fn search(conn: &Connection, word: &str) -> rusqlite::Result<(u64, Vec<(i64, String)>)> {
    let wanted = word.trim().to_lowercase();
    let mut stmt = conn.prepare("SELECT id, titel FROM artikel")?;
    let mut hits: Vec<(i64, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .filter_map(Result::ok)
        .filter(|(_, title): &(i64, String)| {
            let title: Vec<String> = title.split(' ').map(str::to_lowercase).collect();
            !wanted.is_empty()
                && wanted
                    .split_whitespace()
                    .all(|w| title.iter().any(|t| t == w))
        })
        .collect();
    hits.sort_by_cached_key(|(id, _)| relevance(&wanted, *id));
    let count = hits.len() as u64;
    hits.truncate(MAX_SHOWN);
    Ok((count, hits))
}

/// Where an article stands in the archive's order for a search (lower
/// first): an order of its own for every search text (lower case).
pub(crate) fn relevance(wanted: &str, id: i64) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (wanted, &id).hash(&mut h);
    h.finish()
}

/// The search form, with its metadata.
pub(crate) fn form_page(seed_words: &[String]) -> String {
    let meta = [
        ("DB.QueryElement", "w".to_string()),
        ("DB.QueryElement.w", seed_words.join(", ")),
        ("DB.Result.nr", NUMBER_RULE.to_string()),
        ("DB.Result.titel", TITLE_RULE.to_string()),
        ("DB.ResultCount", COUNT_RULE.to_string()),
        ("DB.MaxResults", MAX_SHOWN.to_string()),
    ];
    let body = format!(
        "<H1>Pressearchiv</H1>\n\
         <FORM METHOD=\"GET\" ACTION=\"/cgi-bin/archiv.pl\">\n\
         <P>Stichwort: <INPUT TYPE=\"text\" NAME=\"w\" SIZE=\"30\">\n\
         <INPUT TYPE=\"submit\" VALUE=\"Suchen\"></P>\n</FORM>\n\
         <P>Beliebte Suchbegriffe: {}</P>\n",
        esc(&seed_words.join(", "))
    );
    service_page("CityWorld Pressearchiv", &meta, &body)
}

/// The answer to a search: the notice, then the articles shown.
pub(crate) fn result_page(word: &str, hits: u64, shown: &[(i64, String)]) -> String {
    let mut body = hit_notice(word, hits, MAX_SHOWN);
    body.push_str("<TABLE BORDER=\"1\">\n");
    for (number, title) in shown {
        let _ = writeln!(body, "<TR><TD>{number}</TD><TD>{}</TD></TR>", esc(title));
    }
    body.push_str("</TABLE>\n");
    service_page("CityWorld Pressearchiv - Suchergebnis", &[], &body)
}

//! Ortslexikon Ostwerder (`/surface/lexikon/`): a town's encyclopedia of
//! its people, one article each, behind a keyword search whose form page
//! holds nothing but its menus. The search (GET, `suchbegriff`) finds the
//! articles whose title or text holds the word, all on one answer: a
//! count ("12 Artikel gefunden"), then per article its title as a heading
//! (the word highlighted in it) and the sentence that holds the word as a
//! snippet below, the word highlighted again. The menu links to an index
//! of all articles (`alle`) and to each article (`artikel/N`); the
//! form page names no word the search finds. Ground truth: the titles.

use std::fmt::Write as _;

use rand::prelude::*;
use rand_chacha::ChaCha8Rng;

use super::{esc, head, Row};

const VORNAMEN: [&str; 14] = [
    "Hedwig", "Ottokar", "Frieda", "Wilhelm", "Greta", "Konrad", "Ilse", "Bruno", "Mathilde",
    "Eberhard", "Lotte", "Anselm", "Wiebke", "Hinnerk",
];
const NACHNAMEN: [&str; 12] = [
    "Brodersen",
    "Claußen",
    "Dethlefs",
    "Harmsen",
    "Jacobsen",
    "Kröger",
    "Lorenzen",
    "Martens",
    "Nissen",
    "Paulsen",
    "Thießen",
    "Voß",
];
const BERUFE: [&str; 9] = [
    "Fischer",
    "Lehrerin",
    "Schmied",
    "Hebamme",
    "Kapitän",
    "Apothekerin",
    "Bürgermeister",
    "Malerin",
    "Müller",
];
const ORTE: [&str; 6] = [
    "Ostwerder",
    "Süderhafen",
    "Kleinmoor",
    "Deichhusen",
    "Brakenhof",
    "Wiesengrund",
];
const VEREINE: [&str; 5] = [
    "Gesangverein",
    "Schützenverein",
    "Ruderclub",
    "Heimatbund",
    "Feuerwehr",
];

/// The articles: their titles (the ground truth); each article's text is
/// [`text`] of its number.
pub(super) fn rows(rng: &mut ChaCha8Rng) -> Vec<Row> {
    let mut titles: Vec<String> = Vec::new();
    while titles.len() < 45 {
        let title = format!(
            "{} {}",
            VORNAMEN[rng.gen_range(0..VORNAMEN.len())],
            NACHNAMEN[rng.gen_range(0..NACHNAMEN.len())]
        );
        if !titles.contains(&title) {
            titles.push(title);
        }
    }
    titles
        .into_iter()
        .map(|t| Row::from([("titel", t)]))
        .collect()
}

/// The sentences of article `n` (0-based), its title first.
fn text(title: &str, n: usize) -> Vec<String> {
    vec![
        format!(
            "{title} wurde {} in {} geboren.",
            1840 + (n * 7) % 90,
            ORTE[n % ORTE.len()]
        ),
        format!(
            "Von Beruf {}, Mitglied im {}.",
            BERUFE[(n * 5) % BERUFE.len()],
            VEREINE[(n * 3) % VEREINE.len()]
        ),
        "Eintrag aus der Ortschronik.".to_string(),
    ]
}

/// The hand-written metadata: one word every article holds.
pub(super) fn hand_written() -> Vec<(&'static str, String)> {
    vec![
        ("DB.QueryElement", "suchbegriff".into()),
        ("DB.QueryElement.suchbegriff", "Ortschronik".into()),
        (
            "DB.Result.titel",
            "html->h3[v:*].a.txt WHERE html->h3[v].getAttr(class) = 'treffer'".into(),
        ),
    ]
}

/// The lexicon's menu.
fn menu() -> &'static str {
    "<nav class=\"menue\"><a href=\"/surface/lexikon/\">Suche</a> · \
     <a href=\"/surface/lexikon/alle\">Alle Artikel A–Z</a> · \
     <a href=\"/surface/lexikon/hilfe\">Hilfe</a></nav>\n"
}

/// The search page: the menu and the form, no word of the articles.
pub(super) fn form_page(meta: &[(&str, &str)]) -> String {
    format!(
        "{}<body>\n{}<h1>Ortslexikon</h1>\n\
         <form action=\"/surface/lexikon/search\" method=\"get\" class=\"suche\">\n\
         <input type=\"text\" name=\"suchbegriff\" placeholder=\"Suchbegriff\">\n\
         <label><input type=\"checkbox\" name=\"gross\" value=\"1\"> Groß-/Kleinschreibung beachten</label>\n\
         <button type=\"submit\">Suchen</button>\n</form>\n</body>\n</html>\n",
        head("Ortslexikon – Suche", meta),
        menu()
    )
}

/// `text` with every word equal to `word` (case-insensitive) in `<em>`.
fn highlighted(text: &str, word: &str) -> String {
    text.split(' ')
        .map(|w| {
            let bare = w.trim_end_matches(['.', ',']);
            if bare.eq_ignore_ascii_case(word) {
                format!("<em>{}</em>{}", esc(bare), esc(&w[bare.len()..]))
            } else {
                esc(w)
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(' ').map(|w| w.trim_end_matches(['.', ',']))
}

/// The answer to a search for `word`: every article whose title or text
/// holds it, on one page.
pub(super) fn results(rows: &[Row], word: &str) -> String {
    let mut out = head("Ortslexikon – Suchergebnis", &[]);
    out.push_str("<body>\n");
    out.push_str(menu());
    let word = word.trim();
    let mut hits = String::new();
    let mut found = 0;
    for (n, row) in rows.iter().enumerate() {
        let title = &row["titel"];
        let sentences = text(title, n);
        let matched = sentences
            .iter()
            .find(|s| !word.is_empty() && words(s).any(|w| w.eq_ignore_ascii_case(word)));
        let Some(sentence) = matched else {
            continue;
        };
        found += 1;
        let _ = writeln!(
            hits,
            "<h3 class=\"treffer\"><a href=\"/surface/lexikon/artikel/{n}\">{}</a></h3>\n\
             <div class=\"auszug\">… {} …</div>",
            highlighted(title, word),
            highlighted(sentence, word)
        );
    }
    let _ = writeln!(
        out,
        "<h2>{found} Artikel gefunden</h2>\n{hits}</body>\n</html>"
    );
    out
}

/// An article (`None` past the last).
pub(super) fn article(rows: &[Row], n: usize) -> Option<String> {
    let title = &rows.get(n)?["titel"];
    let body: String = text(title, n)
        .iter()
        .map(|s| format!("<p>{}</p>\n", esc(s)))
        .collect();
    Some(format!(
        "{}<body>\n{}<h1>{}</h1>\n{body}</body>\n</html>\n",
        head(&format!("{title} – Ortslexikon"), &[]),
        menu(),
        esc(title)
    ))
}

/// The index of all articles, by title.
pub(super) fn register(rows: &[Row]) -> String {
    let mut titles: Vec<(usize, &String)> = rows
        .iter()
        .enumerate()
        .map(|(n, r)| (n, &r["titel"]))
        .collect();
    titles.sort_by(|a, b| a.1.cmp(b.1));
    let items: String = titles
        .iter()
        .map(|(n, t)| {
            format!(
                "<li><a href=\"/surface/lexikon/artikel/{n}\">{}</a></li>\n",
                esc(t)
            )
        })
        .collect();
    format!(
        "{}<body>\n{}<h1>Alle Artikel</h1>\n<ul>\n{items}</ul>\n</body>\n</html>\n",
        head("Alle Artikel – Ortslexikon", &[]),
        menu()
    )
}

/// The help page: how to search, in the software's words.
pub(super) fn help() -> String {
    format!(
        "{}<body>\n{}<h1>Hilfe</h1>\n<p>Geben Sie einen Suchbegriff ein. Gesucht wird in Titeln \
         und Texten aller Artikel; ganze Wörter, ohne Platzhalter.</p>\n</body>\n</html>\n",
        head("Hilfe – Ortslexikon", &[]),
        menu()
    )
}

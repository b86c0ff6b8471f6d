//! Harbour Sailing Club (`/surface/verein/`): regatta results behind a
//! search form that stands between a newsletter form and a contact form
//! (both POST, to `/surface/verein/newsletter` and
//! `/surface/verein/contact`, which count what they receive like any
//! request of the demo site). Only the search form may be submitted: its
//! radio group `class` (no "any", the first class checked) lists each boat
//! class's results, ten a page.

use std::fmt::Write as _;

use rand::prelude::*;
use rand_chacha::ChaCha8Rng;

use super::{esc, head, slice, Row};

/// The boat classes: value and label.
pub(super) const CLASSES: [(&str, &str); 5] = [
    ("opti", "Optimist"),
    ("laser", "Laser"),
    ("470", "470"),
    ("pirat", "Pirat"),
    ("folke", "Folkeboat"),
];
const BOATS: [&str; 12] = [
    "Albatross",
    "Blue Heron",
    "Curlew",
    "Dolphin",
    "Eider",
    "Fulmar",
    "Gannet",
    "Kittiwake",
    "Merlin",
    "Osprey",
    "Petrel",
    "Tern",
];
const SKIPPERS: [&str; 10] = [
    "A. Hansen",
    "B. Lund",
    "C. Meyer",
    "D. Olsen",
    "E. Krüger",
    "F. Petersen",
    "G. Sørensen",
    "H. Jensen",
    "I. Schulz",
    "J. Berg",
];

/// The results: class, boat (with its sail number), skipper, points.
pub(super) fn rows(rng: &mut ChaCha8Rng) -> Vec<Row> {
    let mut rows = Vec::new();
    for (c, (_, class)) in CLASSES.iter().enumerate() {
        for place in 0..8 + 4 * c {
            let boat = format!(
                "{} {}",
                BOATS[rng.gen_range(0..BOATS.len())],
                100 + c * 100 + place
            );
            rows.push(Row::from([
                ("class", class.to_string()),
                ("boat", boat),
                (
                    "skipper",
                    SKIPPERS[rng.gen_range(0..SKIPPERS.len())].to_string(),
                ),
                ("points", (place * 3 + rng.gen_range(1..4)).to_string()),
            ]));
        }
    }
    rows
}

/// The hand-written metadata.
pub(super) fn hand_written() -> Vec<(&'static str, String)> {
    vec![
        ("DB.QueryElement", "class".into()),
        (
            "DB.Result.class",
            "html.body.h2.txt, match/^Results: (.+)$/".into(),
        ),
        ("DB.Result.boat", "html->table[0].tr[*].td[0].txt".into()),
        ("DB.Result.skipper", "html->table[0].tr[*].td[1].txt".into()),
        ("DB.Result.points", "html->table[0].tr[*].td[2].txt".into()),
    ]
}

/// The page with its three forms.
pub(super) fn form_page(meta: &[(&str, &str)]) -> String {
    format!(
        "{}<body>\n<h1>Harbour Sailing Club</h1>\n\
         <section><h2>Newsletter</h2>\n<form action=\"/surface/verein/newsletter\" method=\"post\">\n\
         <label>Your e-mail <input type=\"email\" name=\"email\"></label>\n\
         <button type=\"submit\">Subscribe</button>\n</form></section>\n\
         <section><h2>Regatta results</h2>\n<form action=\"/surface/verein/search\" method=\"get\">\n\
         <fieldset><legend>Boat class</legend>\n{}</fieldset>\n<button type=\"submit\">Show results</button>\n</form></section>\n\
         <section><h2>Contact us</h2>\n<form action=\"/surface/verein/contact\" method=\"post\">\n\
         <label>Name <input type=\"text\" name=\"name\"></label>\n\
         <label>E-mail <input type=\"email\" name=\"email\"></label>\n\
         <label>Message <textarea name=\"message\"></textarea></label>\n\
         <button type=\"submit\">Send message</button>\n</form></section>\n</body>\n</html>\n",
        head("Harbour Sailing Club", meta),
        radios()
    )
}

/// The boat classes as a radio group, the first checked (no "any": each
/// answer lists one class; the form as it stands lists the first).
fn radios() -> String {
    CLASSES
        .iter()
        .enumerate()
        .map(|(i, (value, label))| {
            let checked = if i == 0 { " checked" } else { "" };
            format!(
                "<label><input type=\"radio\" name=\"class\" value=\"{value}\"{checked}> {}</label>\n",
                esc(label)
            )
        })
        .collect()
}

/// The results of one class, ten a page.
pub(super) fn results(rows: &[Row], class: &str, page: usize, query: &str) -> String {
    let label = CLASSES.iter().find(|(v, _)| *v == class).map(|c| c.1);
    let mut out = head("Harbour Sailing Club – results", &[]);
    out.push_str("<body>\n<h1>Harbour Sailing Club</h1>\n");
    let Some(label) = label else {
        out.push_str("<p>Please choose a boat class.</p>\n</body>\n</html>\n");
        return out;
    };
    let found: Vec<&Row> = rows.iter().filter(|r| r["class"] == label).collect();
    let (shown, more) = slice(&found, page, 10);
    let _ = writeln!(out, "<h2>Results: {}</h2>\n<table>", esc(label));
    for r in shown {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&r["boat"]),
            esc(&r["skipper"]),
            esc(&r["points"])
        );
    }
    out.push_str("</table>\n");
    if more {
        let _ = writeln!(
            out,
            "<p><a href=\"/surface/verein/search?{}&amp;page={}\">Next page</a></p>",
            esc(query),
            page + 1
        );
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// What the newsletter and contact forms answer (they should never be
/// sent by a gatherer).
pub(super) fn thanks() -> String {
    format!(
        "{}<body><p>Thank you, we have received your message.</p></body></html>\n",
        head("Harbour Sailing Club", &[])
    )
}

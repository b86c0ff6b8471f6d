//! Two more providers for surfacing (`/surface/tables/`, `/surface/notes/`),
//! modelled on behaviours that real search software shows:
//!
//! - **`tables`**, a table browser: the page lists a table of stations
//!   (a header row naming the columns) 40 rows at a time, "437 rows" in its
//!   heading, an offset pager ("Next page", `?offset=`), a footer whose
//!   query time changes on every request, and a filter form (a text field
//!   `q` and a column select `column`) that only narrows the list. The
//!   default answer holds the whole table.
//! - **`notes`**, an issue tracker's search box (`q`) that takes every
//!   character literally: `S%` finds the issues whose text contains "S%",
//!   not those starting with S; an empty search lists nothing. The right
//!   plan is a keyword search.
//!
//! Each is served with hand-written `DB.*` metadata at `…/meta/` too.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};

use rand::prelude::*;
use rand_chacha::ChaCha8Rng;

use super::pages::esc;

/// One row: attribute → value.
pub(super) type Row = BTreeMap<&'static str, String>;

/// Rows of the table browser.
pub const STATIONS: usize = 437;
/// Rows a page of the table browser shows.
pub const TABLE_PAGE: usize = 40;
/// Issues of the tracker.
pub const ISSUES: usize = 480;
/// Issues a page of the tracker shows.
pub const NOTES_PAGE: usize = 10;

const TOWNS: [&str; 12] = [
    "Aberford",
    "Brickley",
    "Coldmoor",
    "Dunhaven",
    "Eastwick",
    "Fairholm",
    "Glenrock",
    "Hartby",
    "Ivydale",
    "Kingsmere",
    "Lowfield",
    "Marston",
];
const SUFFIX: [&str; 8] = [
    "Central", "North", "South", "Parkway", "Junction", "Halt", "Road", "Bridge",
];
const OPERATORS: [&str; 5] = [
    "Northern Lines",
    "Vale Rail",
    "Coastway",
    "Midland Trains",
    "Harbour Link",
];

/// The stations, generated from a fixed seed: name, town, operator, opened.
pub(super) fn stations() -> Vec<Row> {
    let mut rng = ChaCha8Rng::seed_from_u64(0x7461_626c_6573);
    let mut out = Vec::new();
    let mut n = 0;
    while out.len() < STATIONS {
        let town = TOWNS[n % TOWNS.len()];
        let suffix = SUFFIX[(n / TOWNS.len()) % SUFFIX.len()];
        let round = n / (TOWNS.len() * SUFFIX.len());
        n += 1;
        let name = if round == 0 {
            format!("{town} {suffix}")
        } else {
            format!("{town} {suffix} {}", round + 1)
        };
        let mut row = Row::new();
        row.insert("station", name);
        row.insert("town", town.to_string());
        row.insert(
            "operator",
            OPERATORS[rng.gen_range(0..OPERATORS.len())].to_string(),
        );
        row.insert("opened", rng.gen_range(1840..2020).to_string());
        out.push(row);
    }
    out
}

const COMPONENTS: [&str; 8] = [
    "Editor", "Export", "Import", "Printing", "Sync", "Login", "Search", "Fonts",
];
const SYMPTOMS: [&str; 10] = [
    "crashes",
    "hangs",
    "is slow",
    "loses data",
    "shows garbled text",
    "ignores settings",
    "fails silently",
    "freezes the window",
    "reports a wrong count",
    "leaks memory",
];
const CONTEXTS: [&str; 6] = [
    "on large files",
    "after an update",
    "with a proxy",
    "on startup",
    "in dark mode",
    "with many tabs",
];
const STATUSES: [&str; 3] = ["open", "fixed", "wontfix"];

/// The issues, generated from a fixed seed: id, title, component, status.
/// A few titles hold a pattern as typed ("S%", "S*").
pub(super) fn issues() -> Vec<Row> {
    let mut rng = ChaCha8Rng::seed_from_u64(0x006e_6f74_6573);
    let literal = [
        "the pattern S% is matched as typed",
        "a filter like S* finds nothing",
        "S% in a name is not escaped",
        "query S* shows every issue",
        "typing S% twice clears the box",
    ];
    let mut out = Vec::new();
    for n in 0..ISSUES {
        let component = COMPONENTS[n % COMPONENTS.len()];
        let k = n / COMPONENTS.len();
        let title = if n % 47 == 5 {
            format!("{component}: {}", literal[(n / 47) % literal.len()])
        } else {
            format!(
                "{component} {} {}",
                SYMPTOMS[k % SYMPTOMS.len()],
                CONTEXTS[(k / SYMPTOMS.len() + n) % CONTEXTS.len()]
            )
        };
        let mut row = Row::new();
        row.insert("id", format!("LT-{}", 1001 + n));
        row.insert("title", title);
        row.insert("component", component.to_string());
        row.insert(
            "status",
            STATUSES[rng.gen_range(0..STATUSES.len())].to_string(),
        );
        out.push(row);
    }
    out
}

/// The hand-written metadata of the two providers.
pub(super) fn hand_written(provider: &str) -> Vec<(&'static str, String)> {
    match provider {
        "tables" => vec![
            ("DB.QueryElement", "column".into()),
            ("DB.QueryElement.column", "station".into()),
            ("DB.Result", "html->table[0].tbody".into()),
            ("DB.Result.station", "tr[*].td[0].txt".into()),
            ("DB.Result.town", "tr[*].td[1].txt".into()),
            ("DB.Result.operator", "tr[*].td[2].txt".into()),
            ("DB.Result.opened", "tr[*].td[3].txt".into()),
        ],
        _ => vec![
            ("DB.QueryElement", "q".into()),
            ("DB.QueryElement.q", COMPONENTS.join(", ")),
            ("DB.Result", "html->table[0].tbody".into()),
            ("DB.Result.id", "tr[*].td[0].txt".into()),
            ("DB.Result.title", "tr[*].td[1].txt".into()),
            ("DB.Result.component", "tr[*].td[2].txt".into()),
            ("DB.Result.status", "tr[*].td[3].txt".into()),
        ],
    }
}

/// How many requests the table browser answered: its query time changes.
static SERVED: AtomicU64 = AtomicU64::new(0);

fn query_string(params: &BTreeMap<String, String>, skip: &str) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(params.iter().filter(|(k, _)| *k != skip))
        .finish()
}

/// The table browser's page: the form, the heading with the count, the
/// table (filtered by `q` in `column`), the pager and the footer.
pub(super) fn tables_page(
    rows: &[Row],
    head: String,
    params: &BTreeMap<String, String>,
) -> Result<String, String> {
    let get = |k: &str| {
        params
            .get(k)
            .map(|v| v.trim().to_string())
            .unwrap_or_default()
    };
    let offset: usize = match params.get("offset") {
        None => 0,
        Some(o) => o
            .parse()
            .map_err(|_| format!("offset {o:?} is not a number"))?,
    };
    let columns = ["station", "town", "operator", "opened"];
    let column = get("column");
    let column = columns
        .iter()
        .find(|c| **c == column)
        .copied()
        .unwrap_or("station");
    let q = get("q").to_lowercase();
    let found: Vec<&Row> = rows
        .iter()
        .filter(|r| q.is_empty() || r[column].to_lowercase().contains(&q))
        .collect();
    let mut out = head;
    out.push_str("<body>\n<div class=\"crumbs\"><a href=\"/surface/tables/\">railways</a> / stations</div>\n");
    let _ = writeln!(
        out,
        "<h1>stations</h1>\n<h3>{} rows{}</h3>",
        found.len(),
        if q.is_empty() {
            String::new()
        } else {
            format!(" where {column} contains {}", esc(&q))
        }
    );
    let _ = write!(
        out,
        "<form action=\"/surface/tables/\" method=\"get\">\n<select name=\"column\">"
    );
    for c in columns {
        let selected = if c == column { " selected" } else { "" };
        let _ = write!(out, "<option value=\"{c}\"{selected}>{c}</option>");
    }
    let _ = writeln!(
        out,
        "</select> contains <input type=\"text\" name=\"q\" value=\"{}\"> <input type=\"submit\" value=\"Apply\">\n</form>",
        esc(&q)
    );
    out.push_str("<table class=\"rows\">\n<thead><tr>");
    for c in columns {
        let _ = write!(out, "<th>{c}</th>");
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for r in found.iter().skip(offset).take(TABLE_PAGE) {
        out.push_str("<tr>");
        for c in columns {
            let _ = write!(out, "<td>{}</td>", esc(&r[c]));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    if offset + TABLE_PAGE < found.len() {
        let mut next = params.clone();
        next.insert("offset".into(), (offset + TABLE_PAGE).to_string());
        let _ = writeln!(
            out,
            "<p class=\"next\"><a href=\"/surface/tables/?{}\">Next page</a></p>",
            esc(&query_string(&next, ""))
        );
    }
    let n = SERVED.fetch_add(1, Ordering::Relaxed);
    let _ = writeln!(
        out,
        "<div class=\"ft\">Powered by a table browser &middot; Queries took {}.{} ms</div>\n</body>\n</html>",
        3 + (n * 7) % 40,
        n % 10
    );
    Ok(out)
}

/// The tracker's form page.
pub(super) fn notes_form(head: String) -> String {
    format!(
        "{head}<body>\n<div class=\"top\"><b>Lantern</b> issue tracker</div>\n\
         <h1>Known issues</h1>\n<p>Search the known issues of the Lantern editor by a word of their \
         title or component: editor, export, import, printing, sync, login, search or fonts. \
         Every character counts as typed.</p>\n\
         <form action=\"/surface/notes/search\" method=\"get\"><input type=\"text\" name=\"q\" size=\"30\"> \
         <input type=\"submit\" value=\"Search issues\"></form>\n\
         <p>Editor, export and import issues are triaged weekly; printing, sync, login, search \
         and fonts issues monthly.</p>\n</body>\n</html>\n"
    )
}

/// The tracker's answer: the issues whose id, title, component or status
/// contains the search as typed (every character literal).
pub(super) fn notes_page(
    rows: &[Row],
    head: String,
    params: &BTreeMap<String, String>,
) -> Result<String, String> {
    let q = params
        .get("q")
        .map(|v| v.trim().to_string())
        .unwrap_or_default();
    let page: usize = match params.get("page") {
        None => 1,
        Some(p) => match p.parse() {
            Ok(n) if n >= 1 => n,
            _ => return Err(format!("page {p:?} is not a page number")),
        },
    };
    let lower = q.to_lowercase();
    let found: Vec<&Row> = if q.is_empty() {
        Vec::new()
    } else {
        rows.iter()
            .filter(|r| {
                ["id", "title", "component", "status"]
                    .iter()
                    .any(|k| r[k].to_lowercase().contains(&lower))
            })
            .collect()
    };
    let mut out = head;
    out.push_str("<body>\n<div class=\"top\"><b>Lantern</b> issue tracker &middot; <a href=\"/surface/notes/\">new search</a></div>\n");
    if q.is_empty() {
        out.push_str("<p>Type a word to search the issues.</p>\n</body>\n</html>\n");
        return Ok(out);
    }
    let _ = writeln!(
        out,
        "<p class=\"found\">{} issues match “{}”</p>",
        found.len(),
        esc(&q)
    );
    if !found.is_empty() {
        out.push_str("<table>\n<thead><tr><th>Id</th><th>Title</th><th>Component</th><th>Status</th></tr></thead>\n<tbody>\n");
        for r in found.iter().skip((page - 1) * NOTES_PAGE).take(NOTES_PAGE) {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&r["id"]),
                esc(&r["title"]),
                esc(&r["component"]),
                esc(&r["status"])
            );
        }
        out.push_str("</tbody>\n</table>\n");
    }
    if page * NOTES_PAGE < found.len() {
        let _ = writeln!(
            out,
            "<p><a href=\"/surface/notes/search?{}&amp;page={}\">Next ›</a></p>",
            esc(&query_string(params, "page")),
            page + 1
        );
    }
    out.push_str("</body>\n</html>\n");
    Ok(out)
}

//! Pensionen an der Ostsee (`/pensionen/`, `/pensionen-ohne/`): a guest
//! house search whose data has two versions, for `gather refresh`. The
//! site serves version 1 until [`super::DemoSite::set_data_version`] turns
//! it to version 2: some houses closed, some renamed, some moved to
//! another price class, some new, and one region untouched.
//!
//! A search by region (`gebiet`) lists the region's houses by number, ten
//! a page, under "N Pensionen, Stand DATE" (the date the region's data
//! last changed), with a pager. `/pensionen/` answers with an `ETag` (of
//! the region's whole list and the page) and a `Last-Modified` (the
//! region's date), and with 304 Not Modified to a request whose
//! `If-None-Match` (or, without it, `If-Modified-Since`) still holds;
//! `/pensionen-ohne/` sends no validators and always answers in full.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::sync::atomic::Ordering;
use std::sync::{Arc, LazyLock};

use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use rand::prelude::*;
use rand_chacha::ChaCha8Rng;

use super::pages::esc;
use super::server::Site;

/// The form page of the provider that sends validators.
pub const PATH: &str = "/pensionen/";
/// The form page of the provider that sends none.
pub const PATH_WITHOUT_VALIDATORS: &str = "/pensionen-ohne/";
/// Houses per result page.
pub const PAGE_SIZE: usize = 10;
/// Regions (value, label, houses in version 1).
pub const GEBIETE: [(&str, &str, usize); 4] = [
    ("r", "Rügen", 37),
    ("u", "Usedom", 31),
    ("f", "Fischland-Darß", 24),
    ("m", "Müritz", 18),
];
/// Price classes.
const PREISE: [&str; 3] = ["bis 40 Euro", "40 bis 70 Euro", "über 70 Euro"];
const NAMEN: [&str; 8] = [
    "Möwe",
    "Seeblick",
    "Düne",
    "Bernstein",
    "Kranich",
    "Sanddorn",
    "Brise",
    "Leuchtfeuer",
];
const ORTE: [&str; 6] = ["Nord", "Süd", "am Hafen", "am Strand", "im Dorf", "am Wald"];

/// When a region's data last changed: version 1, and version 2 for the
/// regions it changed.
const STAND_1: &str = "Sat, 01 Nov 2026 08:00:00 GMT";
const STAND_2: &str = "Sun, 15 Nov 2026 08:00:00 GMT";

/// One guest house.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pension {
    pub nr: String,
    pub name: String,
    pub gebiet: &'static str,
    pub ort: String,
    pub preis: &'static str,
}

/// The houses of a version (1 or 2), by number.
pub fn pensionen(version: u32) -> &'static [Pension] {
    static V1: LazyLock<Vec<Pension>> = LazyLock::new(version_1);
    static V2: LazyLock<Vec<Pension>> = LazyLock::new(|| version_2(&V1));
    if version >= 2 {
        &V2
    } else {
        &V1
    }
}

fn version_1() -> Vec<Pension> {
    let mut rng = ChaCha8Rng::seed_from_u64(0x0000_5e71);
    let mut out = Vec::new();
    for (gebiet, label, count) in GEBIETE {
        for _ in 0..count {
            let n = out.len() + 1;
            out.push(Pension {
                nr: format!("P{n:04}"),
                name: format!("Pension {}", NAMEN[rng.gen_range(0..NAMEN.len())]),
                gebiet,
                ort: format!("{label} {}", ORTE[rng.gen_range(0..ORTE.len())]),
                preis: PREISE[rng.gen_range(0..PREISE.len())],
            });
        }
    }
    // Values no other house shares, whose going version 2 shows in the
    // index: a house closed, the old name of one renamed, and a price
    // class only one house moved out of had.
    for p in &mut out {
        match p.nr.as_str() {
            "P0029" => p.name = "Pension Abendrot".to_string(),
            "P0033" => p.name = "Pension Seestern".to_string(),
            "P0045" => p.preis = "über 100 Euro",
            _ => {}
        }
    }
    out
}

/// Version 2: in every region but the Müritz, houses closed, renamed,
/// moved to another price class (on first and later pages), and new ones.
fn version_2(before: &[Pension]) -> Vec<Pension> {
    let closed = ["P0003", "P0029", "P0040", "P0066", "P0071"];
    let renamed = ["P0008", "P0033", "P0050", "P0090"];
    let moved = ["P0012", "P0036", "P0045", "P0080"];
    let mut out: Vec<Pension> = before
        .iter()
        .filter(|p| !closed.contains(&p.nr.as_str()))
        .cloned()
        .collect();
    for p in &mut out {
        if renamed.contains(&p.nr.as_str()) {
            p.name = format!("{} (neu eröffnet)", p.name.replace("Pension", "Gästehaus"));
        }
        if moved.contains(&p.nr.as_str()) {
            p.preis = PREISE[(PREISE.iter().position(|x| *x == p.preis).unwrap_or(0) + 1) % 3];
        }
    }
    for (n, gebiet, name) in [
        (201, "r", "Pension Achterdeck"),
        (202, "r", "Pension Kiefernhain"),
        (203, "u", "Pension Strandkorb"),
        (204, "f", "Pension Boddenblick"),
    ] {
        let label = GEBIETE.iter().find(|g| g.0 == gebiet).map_or("", |g| g.1);
        out.push(Pension {
            nr: format!("P{n:04}"),
            name: name.to_string(),
            gebiet,
            ort: format!("{label} Nord"),
            preis: PREISE[n % 3],
        });
    }
    out
}

/// The houses of a region in a version, by number.
pub fn search(version: u32, gebiet: &str) -> Vec<&'static Pension> {
    pensionen(version)
        .iter()
        .filter(|p| p.gebiet == gebiet)
        .collect()
}

/// Every house of a version as the rules read it: number → (field, value).
pub fn expected(version: u32) -> BTreeMap<String, Vec<(String, String)>> {
    pensionen(version)
        .iter()
        .map(|p| {
            (
                p.nr.clone(),
                vec![
                    ("id".to_string(), p.nr.clone()),
                    ("name".to_string(), p.name.clone()),
                    ("ort".to_string(), p.ort.clone()),
                    ("preis".to_string(), p.preis.to_string()),
                ],
            )
        })
        .collect()
}

/// The result pages a region's answer has in a version.
pub fn pages(version: u32, gebiet: &str) -> usize {
    search(version, gebiet).len().div_ceil(PAGE_SIZE).max(1)
}

/// The routes of both providers.
pub(crate) fn routes() -> Router<Arc<Site>> {
    Router::new()
        .route(PATH, get(|| async { form(PATH) }))
        .route(
            "/pensionen/suche",
            get(
                |State(site): State<Arc<Site>>, uri: Uri, headers: HeaderMap| async move {
                    results(&site, &uri, Some(&headers), PATH)
                },
            ),
        )
        .route(
            PATH_WITHOUT_VALIDATORS,
            get(|| async { form(PATH_WITHOUT_VALIDATORS) }),
        )
        .route(
            "/pensionen-ohne/suche",
            get(|State(site): State<Arc<Site>>, uri: Uri| async move {
                results(&site, &uri, None, PATH_WITHOUT_VALIDATORS)
            }),
        )
}

fn html(body: String) -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response()
}

/// The search form of the provider at `path`, with its metadata.
fn form(path: &str) -> Response {
    let mut out = format!(
        "<html><head><title>Pensionen an der Ostsee</title>\n\
         <meta name=\"DB.QueryElement\" content=\"gebiet\">\n\
         <meta name=\"DB.Result.id\" content=\"html.body->table[0].tr[*].td[0].txt\">\n\
         <meta name=\"DB.Result.name\" content=\"html.body->table[0].tr[*].td[1].txt\">\n\
         <meta name=\"DB.Result.ort\" content=\"html.body->table[0].tr[*].td[2].txt\">\n\
         <meta name=\"DB.Result.preis\" content=\"html.body->table[0].tr[*].td[3].txt\">\n\
         <meta name=\"DB.NavigationURL\" content=\"{path}suche?gebiet=*&amp;seite=*\">\n\
         <meta name=\"DB.MaxPages\" content=\"10\">\n\
         </head><body>\n<h2>Pension suchen</h2>\n\
         <form action=\"{path}suche\" method=\"get\">\n<p>Gebiet: <select name=\"gebiet\">"
    );
    for (value, label, _) in GEBIETE {
        let _ = write!(out, "<option value=\"{value}\">{}</option>", esc(label));
    }
    out.push_str(
        "</select>\n<input type=\"submit\" value=\"Suchen\"></p>\n</form>\n</body></html>\n",
    );
    html(out)
}

/// One result page; with `headers` (the provider with validators), its
/// `ETag` and `Last-Modified`, or a 304 where the request's still hold.
fn results(site: &Site, uri: &Uri, headers: Option<&HeaderMap>, path: &str) -> Response {
    let get = |name: &str| super::form_provider::param(uri.query(), name);
    let version = site.data_version.load(Ordering::Relaxed);
    let gebiet = get("gebiet");
    let seite: usize = match get("seite").as_str() {
        "" => 1,
        n => match n.parse() {
            Ok(n) if n >= 1 => n,
            _ => return (StatusCode::BAD_REQUEST, "seite: a number from 1").into_response(),
        },
    };
    let found = search(version, &gebiet);
    let changed = found != search(1, &gebiet);
    let stand = if changed { STAND_2 } else { STAND_1 };
    let label = GEBIETE.iter().find(|g| g.0 == gebiet).map_or("", |g| g.1);
    let mut out = format!(
        "<html><head><title>Pensionen - {}</title></head><body>\n\
         <h2>Pensionen: {}</h2>\n<p>{} Pensionen, Stand {stand}</p>\n\
         <table class=\"liste\">\n<tr><th>Nr.</th><th>Pension</th><th>Ort</th><th>Preis</th></tr>\n",
        esc(label),
        esc(label),
        found.len()
    );
    for p in found.iter().skip((seite - 1) * PAGE_SIZE).take(PAGE_SIZE) {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            p.nr,
            esc(&p.name),
            esc(&p.ort),
            esc(p.preis)
        );
    }
    out.push_str("</table>\n<p class=\"seiten\">");
    let seiten = found.len().div_ceil(PAGE_SIZE).max(1);
    if seite < seiten {
        let _ = write!(
            out,
            "<a href=\"{path}suche?gebiet={gebiet}&amp;seite={}\">weiter</a>",
            seite + 1
        );
    }
    out.push_str("</p>\n</body></html>\n");
    let Some(request) = headers else {
        return html(out);
    };
    // The region's whole list and the page: any change to the answer
    // changes every page's tag.
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    found.hash(&mut hasher);
    seite.hash(&mut hasher);
    let etag = format!("\"{:016x}\"", hasher.finish());
    let asked = |name: header::HeaderName| {
        request
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let not_modified = match asked(header::IF_NONE_MATCH) {
        Some(tags) => tags.split(',').any(|t| t.trim() == etag),
        None => asked(header::IF_MODIFIED_SINCE)
            .and_then(|d| httpdate::parse_http_date(&d).ok())
            .zip(httpdate::parse_http_date(stand).ok())
            .is_some_and(|(since, modified)| modified <= since),
    };
    let validators = [
        (header::ETAG, etag),
        (header::LAST_MODIFIED, stand.to_string()),
    ];
    if not_modified {
        return (StatusCode::NOT_MODIFIED, validators).into_response();
    }
    let mut response = html(out);
    for (name, value) in validators {
        if let Ok(value) = value.parse() {
            response.headers_mut().insert(name, value);
        }
    }
    response
}

impl Hash for Pension {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (&self.nr, &self.name, self.gebiet, &self.ort, self.preis).hash(state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_2_closes_renames_moves_and_adds_and_leaves_the_mueritz_alone() {
        let (v1, v2) = (expected(1), expected(2));
        let gone = v1.keys().filter(|k| !v2.contains_key(*k)).count();
        let new = v2.keys().filter(|k| !v1.contains_key(*k)).count();
        let changed = v1
            .iter()
            .filter(|(k, fields)| v2.get(*k).is_some_and(|f| f != *fields))
            .count();
        assert_eq!((gone, new, changed), (5, 4, 8));
        // Values only the houses closed, renamed and moved had.
        let holds = |v: &BTreeMap<String, Vec<(String, String)>>, value: &str| {
            v.values().flatten().any(|(_, x)| x == value)
        };
        for value in ["Pension Abendrot", "Pension Seestern", "über 100 Euro"] {
            assert!(holds(&v1, value) && !holds(&v2, value), "{value}");
        }
        assert_eq!(search(1, "m"), search(2, "m"));
        assert_ne!(search(1, "r"), search(2, "r"));
    }
}

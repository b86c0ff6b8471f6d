//! The Berlin job board (`/stellenmarkt/`): a provider built unlike the hotel
//! guide — HTML5 in UTF-8, lower-case markup, classes instead of colours —
//! whose metadata reads every column of its result table with a condition
//! of its own, as providers write it:
//! `->td[j:*].txt where ->td[j].getAttr(class) = 'titel'`, the same with
//! `'firma'`, `'ort'` and `'sparte'`, relative to `DB.Result` =
//! `html.body->table[0]`, and the district from the heading above the
//! table.
//!
//! A search by district (`/cgi-bin/stellen.pl?bezirk=Pankow`, every
//! district a choice of the form's select) shows all its offers on one
//! page, by trade: a row holding the trade alone (`td class="sparte"`)
//! heads the offers below it. Its quirks make the columns differ in length,
//! so that pairing the k-th title with the k-th company would mix rows: a
//! box-number offer has no company cell (`td class="chiffre"`), an offer
//! "by arrangement" has no place cell (`td class="ort-offen"`), and
//! advertisement rows read by no rule stand between the offers.

use std::fmt::Write as _;
use std::sync::OnceLock;

use axum::response::Html;
use axum::routing::get;
use axum::Router;
use rand::prelude::*;
use rand_chacha::ChaCha8Rng;

use super::pages::esc;

/// The districts, the form's choices.
pub const DISTRICTS: &[&str] = &[
    "Mitte",
    "Pankow",
    "Neukölln",
    "Spandau",
    "Lichtenberg",
    "Steglitz-Zehlendorf",
];

const TRADES: &[(&str, &[&str])] = &[
    (
        "Gastronomie",
        &["Koch", "Beikoch", "Servicekraft", "Barista", "Spüler"],
    ),
    (
        "Handwerk",
        &[
            "Elektriker",
            "Maler",
            "Tischler",
            "Dachdecker",
            "Installateur",
        ],
    ),
    (
        "IT",
        &[
            "Softwareentwickler",
            "Systemadministrator",
            "Datenbankentwickler",
            "IT-Support",
        ],
    ),
    (
        "Pflege",
        &["Pflegefachkraft", "Altenpfleger", "Pflegehelfer"],
    ),
];

const COMPANIES: &[&str] = &[
    "Spreeblick GmbH",
    "Kiezküche",
    "Berliner Bau & Co. KG",
    "Netzwerk Nord",
    "Havelpflege",
    "Datenhafen AG",
    "Zum Goldenen Hirsch",
    "Weißensee Werkstätten",
    "Pflegedienst Lindenhof",
    "Code & Kaffee",
];

const PLACES: &[&str] = &[
    "Kiezmitte",
    "Am Bahnhof",
    "Altstadt",
    "Gewerbehof Nord",
    "Uferstraße",
    "Schlossviertel",
    "Parkviertel",
];

/// One job offer.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Job {
    pub district: String,
    pub trade: String,
    pub title: String,
    /// `None` for a box-number offer.
    pub company: Option<String>,
    /// `None` for an offer "by arrangement".
    pub place: Option<String>,
}

/// Every offer of the board, by district, then trade (the order a result
/// page shows them in); generated once from a fixed seed, no two offers of
/// a district alike.
pub fn jobs() -> &'static [Job] {
    static JOBS: OnceLock<Vec<Job>> = OnceLock::new();
    JOBS.get_or_init(|| {
        let mut rng = ChaCha8Rng::seed_from_u64(0x0053_7465_6c6c_656e);
        let mut out: Vec<Job> = Vec::new();
        for district in DISTRICTS {
            let count = rng.gen_range(25..45);
            let mut these: Vec<Job> = Vec::new();
            while these.len() < count {
                let (trade, titles) = TRADES[rng.gen_range(0..TRADES.len())];
                let mut title = titles[rng.gen_range(0..titles.len())].to_string();
                if rng.gen_bool(0.3) {
                    title.push_str(" (m/w/d)");
                }
                let company = (!rng.gen_bool(0.15))
                    .then(|| COMPANIES[rng.gen_range(0..COMPANIES.len())].to_string());
                let place = (!rng.gen_bool(0.15))
                    .then(|| PLACES[rng.gen_range(0..PLACES.len())].to_string());
                let job = Job {
                    district: district.to_string(),
                    trade: trade.to_string(),
                    title,
                    company,
                    place,
                };
                if !these.contains(&job) {
                    these.push(job);
                }
            }
            these.sort_by(|a, b| a.trade.cmp(&b.trade));
            out.extend(these);
        }
        out
    })
}

/// The board's `DB.*` tags: a rule per column, each with its own condition.
pub fn meta_tags() -> Vec<(&'static str, &'static str)> {
    vec![
        ("DB.QueryElement", "bezirk"),
        (
            "DB.Result.bezirk",
            "html.body.main.h2.txt, match/Stellen in (.+)$/",
        ),
        ("DB.Result", "html.body->table[0]->"),
        (
            "DB.Result.sparte",
            "td[s:*].txt where td[s].getAttr(class) = 'sparte'",
        ),
        (
            "DB.Result.titel",
            "td[j:*].txt where td[j].getAttr(class) = 'titel'",
        ),
        (
            "DB.Result.firma",
            "td[k:*].txt where td[k].getAttr(class) = 'firma'",
        ),
        (
            "DB.Result.ort",
            "td[m:*].txt where td[m].getAttr(class) = 'ort'",
        ),
    ]
}

/// The board's pages, to merge into the site's router.
pub(crate) fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/stellenmarkt/", get(|| async { Html(form_page()) }))
        .route(
            "/cgi-bin/stellen.pl",
            get(
                |query: axum::extract::Query<Vec<(String, String)>>| async move {
                    let district = query
                        .0
                        .iter()
                        .find(|(k, _)| k == "bezirk")
                        .map_or("", |(_, v)| v.as_str());
                    Html(result_page(district))
                },
            ),
        )
}

fn page(title: &str, meta: &[(&str, &str)], main: &str) -> String {
    let mut out = format!(
        "<!doctype html>\n<html lang=\"de\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n",
        esc(title)
    );
    for (name, content) in meta {
        let _ = writeln!(
            out,
            "<meta name=\"{name}\" content=\"{}\">",
            esc(content).replace('\'', "&#39;")
        );
    }
    let _ = write!(
        out,
        "</head>\n<body>\n<header><a href=\"/stellenmarkt/\">Stellenmarkt Berlin</a></header>\n\
         <main>\n{main}</main>\n<footer><p>Alle Angaben ohne Gewähr.</p></footer>\n</body>\n</html>\n"
    );
    out
}

/// The search form.
pub fn form_page() -> String {
    let mut main = String::from(
        "<h1>Stellenmarkt Berlin</h1>\n<form action=\"/cgi-bin/stellen.pl\" method=\"get\">\n\
         <label>Bezirk <select name=\"bezirk\">\n",
    );
    for d in DISTRICTS {
        let _ = writeln!(main, "<option value=\"{0}\">{0}</option>", esc(d));
    }
    main.push_str("</select></label>\n<button type=\"submit\">Suchen</button>\n</form>\n");
    page("Stellenmarkt Berlin", &meta_tags(), &main)
}

/// The offers of a district, by trade; an unknown district shows none.
pub fn result_page(district: &str) -> String {
    let shown: Vec<&Job> = jobs().iter().filter(|j| j.district == district).collect();
    let mut main = format!(
        "<h2>Stellen in {}</h2>\n<p>{} Angebote</p>\n<table class=\"liste\">\n\
         <thead><tr><th>Stelle</th><th>Arbeitgeber</th><th>Einsatzort</th></tr></thead>\n<tbody>\n",
        esc(district),
        shown.len()
    );
    let mut trade = "";
    for (n, job) in shown.iter().enumerate() {
        if job.trade != trade {
            trade = &job.trade;
            let _ = writeln!(
                main,
                "<tr><td class=\"sparte\" colspan=\"3\">{}</td></tr>",
                esc(trade)
            );
        }
        let company = match &job.company {
            Some(c) => format!("<td class=\"firma\">{}</td>", esc(c)),
            None => format!("<td class=\"chiffre\">Chiffre {}</td>", 4700 + n),
        };
        let place = match &job.place {
            Some(p) => format!("<td class=\"ort\">{}</td>", esc(p)),
            None => "<td class=\"ort-offen\">nach Absprache</td>".to_string(),
        };
        let _ = writeln!(
            main,
            "<tr><td class=\"titel\"><a href=\"/stellenmarkt/{n}\">{}</a></td>{company}{place}</tr>",
            esc(&job.title)
        );
        if n % 7 == 6 {
            main.push_str(
                "<tr><td colspan=\"3\" class=\"anzeige\">Anzeige: Ihr Umzug nach Berlin – jetzt Angebot anfordern</td></tr>\n",
            );
        }
    }
    main.push_str("</tbody>\n</table>\n");
    page(&format!("Stellen in {district}"), &[], &main)
}

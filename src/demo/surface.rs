//! Ten providers for surfacing forms that say nothing about themselves
//! (`/surface/…`), built to differ from the CityWorld guide in markup,
//! wording and encoding (UTF-8, English and German; tables, a list, cards):
//!
//! | path | provider | form | answer |
//! |---|---|---|---|
//! | `/surface/films/` | film archive (English) | four selects: `genre` (no "any"), `decade` and `country` ("Any …"), `per` (rows per page) | a heading "Films filed under Drama", a table with a header row, 20 rows a page |
//! | `/surface/buecherei/` | town library (German) | text field `stichwort` (title prefix with `*`, nothing without it) beside a select `medium` ("Alle Medien") | an ordered list, each value behind its label ("Verfasser: …"), 15 a page |
//! | `/surface/jobs/` | job board (English) | one keyword field `keywords` (a word of the title, company or town) | cards with "Company: …", "Location: …", 10 a page |
//! | `/surface/ferien/` | holiday flats (German) | selects `kreis` (no "any") and `preisklasse` ("egal") | a heading "Ferienwohnungen im Landkreis …", cards with a definition list, 12 a page |
//! | `/surface/tables/` | table browser (English, [`super::browse`]) | a filter form (`column` select, text field `q`) that only narrows | the form page itself: a table with a header row, 40 of "437 rows", an offset pager, a query time in the footer |
//! | `/surface/notes/` | issue tracker (English, [`super::browse`]) | one search box `q` that takes `%` and `*` literally | a table, 10 a page, "N issues match “q”" |
//! | `/surface/nursery/` | plant nursery (English, POST) | a select `sect` (no "any") that answers only together with a text field `latin` (the start of a botanical name with `%`) | the section in bold in a line of its own, cards with a two-column facts table, 8 a page |
//! | `/surface/zeichen/` | second-hand books (German) | a text field `q` (title prefix with `%`); titles that start with `#`, `É`, `¿`, `Ö`, `Ü` or a digit, each such character also starting a word inside another title; the form page states the number of titles | a table, 10 a page |
//! | `/surface/verein/` | sailing club (English) | a radio group `class` (no "any", the first checked), between a newsletter form and a contact form (POST) that must never be sent | a heading "Results: …", a table, 10 a page |
//! | `/surface/lexikon/` | a town's encyclopedia (German) | one keyword field `suchbegriff` (whole words of titles and texts); the form page holds only its menu, which links to an index of all articles | "N Artikel gefunden", then per article a heading (its title, the word highlighted) and a snippet below, all on one page |
//!
//! Each form is also served with hand-written `DB.*` metadata at
//! `/surface/<provider>/meta/`: the run a user with a good description
//! makes, the anchor of `gather bench surface`. The databases are generated
//! in memory from a fixed seed; [`expected`] gives every provider's values
//! per attribute, the ground truth of the benchmark.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::sync::OnceLock;

use axum::extract::{Path, RawQuery};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use rand::prelude::*;
use rand_chacha::ChaCha8Rng;

use super::pages::esc;

mod lexikon;
mod verein;
mod zeichen;

/// The providers, by the path segment they are served under.
pub const PROVIDERS: [&str; 10] = [
    "films",
    "buecherei",
    "jobs",
    "ferien",
    "nursery",
    "tables",
    "notes",
    "zeichen",
    "verein",
    "lexikon",
];

/// One row of a provider's database: attribute → value.
type Row = BTreeMap<&'static str, String>;

struct Provider {
    rows: Vec<Row>,
}

struct Data {
    films: Provider,
    buecherei: Provider,
    jobs: Provider,
    ferien: Provider,
    nursery: Provider,
    tables: Provider,
    notes: Provider,
    zeichen: Provider,
    verein: Provider,
    lexikon: Provider,
}

const GENRES: [(&str, &str); 8] = [
    ("drama", "Drama"),
    ("comedy", "Comedy"),
    ("thriller", "Thriller"),
    ("western", "Western"),
    ("doc", "Documentary"),
    ("anim", "Animation"),
    ("scifi", "Science Fiction"),
    ("romance", "Romance"),
];
const DECADES: [&str; 6] = ["1960s", "1970s", "1980s", "1990s", "2000s", "2010s"];
const COUNTRIES: [&str; 5] = ["France", "Italy", "Japan", "Sweden", "USA"];
const FILM_ADJ: [&str; 16] = [
    "Silent", "Broken", "Golden", "Last", "Hidden", "Crimson", "Endless", "Lonely", "Frozen",
    "Distant", "Electric", "Burning", "Quiet", "Wild", "Paper", "Midnight",
];
const FILM_NOUN: [&str; 18] = [
    "Harbor", "River", "Mirror", "Garden", "Horizon", "Letter", "Station", "Summer", "Kingdom",
    "Road", "Promise", "Island", "Window", "Frontier", "Dream", "Winter", "Signal", "Orchard",
];
const FIRST: [&str; 12] = [
    "Anna", "Marco", "Yuki", "Lars", "Claire", "Pietro", "Hiro", "Ingrid", "Paul", "Sofia", "Jean",
    "Mia",
];
const LAST: [&str; 12] = [
    "Berg", "Rossi", "Tanaka", "Dupont", "Lind", "Carter", "Moreau", "Sato", "Ricci", "Holm",
    "Baker", "Lefevre",
];

const MEDIEN: [&str; 4] = ["Buch", "DVD", "Hörbuch", "Zeitschrift"];
const BUCH_WORT: [&str; 26] = [
    "Abendrot",
    "Bernstein",
    "Chronik",
    "Dünenwege",
    "Ebbe",
    "Fährleute",
    "Gezeiten",
    "Hafenlichter",
    "Irrfahrt",
    "Jahrmarkt",
    "Kranichzug",
    "Leuchtfeuer",
    "Möwenschrei",
    "Nebelhorn",
    "Ostwind",
    "Pfahlbauten",
    "Quallenzeit",
    "Reetdach",
    "Salzwiesen",
    "Tidenhub",
    "Uferlos",
    "Vogelflug",
    "Wanderdüne",
    "Xanthippe",
    "Yachthafen",
    "Zugvögel",
];
const BUCH_ZUSATZ: [&str; 10] = [
    "am Meer",
    "im Winter",
    "und andere Geschichten",
    "der Kindheit",
    "für Anfänger",
    "im Nebel",
    "an der Küste",
    "zwischen den Inseln",
    "bei Nacht",
    "im Spätsommer",
];
const VORNAME: [&str; 10] = [
    "Greta", "Hannes", "Ilse", "Jörn", "Karla", "Lutz", "Meike", "Nils", "Ortrud", "Piet",
];
const NACHNAME: [&str; 10] = [
    "Albrecht", "Brandt", "Claussen", "Dahl", "Ehlers", "Fock", "Gerdes", "Harms", "Iwersen",
    "Jessen",
];

const LEVELS: [&str; 5] = ["Junior", "Senior", "Lead", "Trainee", "Principal"];
const FIELDS: [&str; 16] = [
    "Java",
    "Python",
    "Data",
    "Cloud",
    "Payroll",
    "Marketing",
    "Warehouse",
    "Nursing",
    "Sales",
    "Security",
    "Frontend",
    "Mobile",
    "Logistics",
    "Finance",
    "Support",
    "Research",
];
const ROLES: [&str; 8] = [
    "Developer",
    "Engineer",
    "Analyst",
    "Manager",
    "Coordinator",
    "Specialist",
    "Consultant",
    "Assistant",
];
const COMPANIES: [&str; 14] = [
    "Acme Logistics",
    "Bluefin Health",
    "Copperleaf Bank",
    "Driftwood Studios",
    "Elmstreet Retail",
    "Foxglove Energy",
    "Granite Insurance",
    "Harbourline Ferries",
    "Ironbark Systems",
    "Juniper Foods",
    "Kestrel Aviation",
    "Lanternfish Media",
    "Marigold Care",
    "Northwind Telecom",
];
const CITIES: [&str; 12] = [
    "Leeds",
    "Bristol",
    "Glasgow",
    "Cardiff",
    "Norwich",
    "Belfast",
    "Sheffield",
    "Brighton",
    "Aberdeen",
    "Plymouth",
    "York",
    "Dundee",
];

const KREISE: [&str; 6] = [
    "Vorpommern-Greifswald",
    "Vorpommern-Rügen",
    "Rostock",
    "Nordwestmecklenburg",
    "Ludwigslust-Parchim",
    "Mecklenburgische Seenplatte",
];
const ORTE: [[&str; 3]; 6] = [
    ["Wolgast", "Lubmin", "Ueckermünde"],
    ["Sassnitz", "Barth", "Zingst"],
    ["Kühlungsborn", "Rerik", "Graal-Müritz"],
    ["Boltenhagen", "Grevesmühlen", "Poel"],
    ["Plau am See", "Lübz", "Hagenow"],
    ["Waren", "Röbel", "Neustrelitz"],
];
const HAUS: [&str; 10] = [
    "Haus",
    "Villa",
    "Kate",
    "Ferienhof",
    "Appartement",
    "Reetdachhaus",
    "Landhaus",
    "Pension",
    "Kapitänshaus",
    "Gartenhaus",
];
const HAUS_NAME: [&str; 14] = [
    "Seeblick",
    "Abendsonne",
    "Kranich",
    "Strandhafer",
    "Lotsenstube",
    "Möwennest",
    "Bernstein",
    "Fischerglück",
    "Achtern",
    "Dünenrose",
    "Wellenspiel",
    "Leuchtturm",
    "Kiefernhain",
    "Sanddorn",
];

/// The nursery's sections (value, label) and, per section, its genera
/// with their common names.
const SECTIONS: [(&str, &str); 5] = [
    ("per", "Perennials"),
    ("shr", "Shrubs"),
    ("cli", "Climbers"),
    ("gra", "Grasses"),
    ("fer", "Ferns"),
];
const GENERA: [[(&str, &str); 6]; 5] = [
    [
        ("Achillea", "yarrow"),
        ("Geranium", "cranesbill"),
        ("Salvia", "sage"),
        ("Nepeta", "catmint"),
        ("Echinacea", "coneflower"),
        ("Lupinus", "lupin"),
    ],
    [
        ("Buddleja", "butterfly bush"),
        ("Cornus", "dogwood"),
        ("Viburnum", "viburnum"),
        ("Hydrangea", "hydrangea"),
        ("Spiraea", "meadowsweet"),
        ("Ribes", "flowering currant"),
    ],
    [
        ("Clematis", "old man's beard"),
        ("Lonicera", "honeysuckle"),
        ("Hedera", "ivy"),
        ("Jasminum", "jasmine"),
        ("Parthenocissus", "creeper"),
        ("Wisteria", "wisteria"),
    ],
    [
        ("Miscanthus", "silver grass"),
        ("Stipa", "feather grass"),
        ("Festuca", "fescue"),
        ("Carex", "sedge"),
        ("Panicum", "switch grass"),
        ("Briza", "quaking grass"),
    ],
    [
        ("Dryopteris", "buckler fern"),
        ("Polystichum", "shield fern"),
        ("Asplenium", "spleenwort"),
        ("Athyrium", "lady fern"),
        ("Osmunda", "royal fern"),
        ("Matteuccia", "ostrich fern"),
    ],
];
const EPITHETS: [&str; 14] = [
    "alba",
    "nana",
    "montana",
    "major",
    "elegans",
    "rubra",
    "sylvatica",
    "orientalis",
    "gracilis",
    "vulgaris",
    "aurea",
    "japonica",
    "maritima",
    "robusta",
];
const COMMON_ADJ: [&str; 8] = [
    "Dwarf", "Giant", "Golden", "Red", "Mountain", "Coastal", "Woodland", "Silver",
];
const HARDINESS: [&str; 5] = ["H3", "H4", "H5", "H6", "H7"];

fn data() -> &'static Data {
    static DATA: OnceLock<Data> = OnceLock::new();
    DATA.get_or_init(generate)
}

/// Picks one of `items`.
fn pick<'a>(rng: &mut ChaCha8Rng, items: &[&'a str]) -> &'a str {
    items[rng.gen_range(0..items.len())]
}

fn generate() -> Data {
    let mut rng = ChaCha8Rng::seed_from_u64(0x0053_7572_6661_6365);
    let mut seen = BTreeSet::new();
    let mut films = Vec::new();
    while films.len() < 420 {
        let title = match rng.gen_range(0..3) {
            0 => format!(
                "The {} {}",
                pick(&mut rng, &FILM_ADJ),
                pick(&mut rng, &FILM_NOUN)
            ),
            1 => format!(
                "{} {}",
                pick(&mut rng, &FILM_ADJ),
                pick(&mut rng, &FILM_NOUN)
            ),
            _ => format!(
                "{} of the {}",
                pick(&mut rng, &FILM_NOUN),
                pick(&mut rng, &FILM_NOUN)
            ),
        };
        if !seen.insert(title.clone()) {
            continue;
        }
        let decade = rng.gen_range(0..DECADES.len());
        let row: Row = [
            (
                "genre",
                GENRES[rng.gen_range(0..GENRES.len())].1.to_string(),
            ),
            ("title", title),
            (
                "year",
                (1960 + 10 * decade + rng.gen_range(0..10)).to_string(),
            ),
            (
                "director",
                format!("{} {}", pick(&mut rng, &FIRST), pick(&mut rng, &LAST)),
            ),
            ("country", pick(&mut rng, &COUNTRIES).to_string()),
        ]
        .into_iter()
        .collect();
        films.push(row);
    }
    films.sort_by(|a, b| a["title"].cmp(&b["title"]));

    seen.clear();
    let mut buecherei = Vec::new();
    while buecherei.len() < 200 {
        let titel = format!(
            "{} {}",
            pick(&mut rng, &BUCH_WORT),
            pick(&mut rng, &BUCH_ZUSATZ)
        );
        if !seen.insert(titel.clone()) {
            continue;
        }
        let row: Row = [
            ("titel", titel),
            (
                "verfasser",
                format!("{} {}", pick(&mut rng, &VORNAME), pick(&mut rng, &NACHNAME)),
            ),
            ("erschienen", rng.gen_range(1950..2024).to_string()),
            ("medium", pick(&mut rng, &MEDIEN).to_string()),
        ]
        .into_iter()
        .collect();
        buecherei.push(row);
    }
    buecherei.sort_by(|a, b| a["titel"].cmp(&b["titel"]));

    let mut jobs = Vec::new();
    seen.clear();
    while jobs.len() < 400 {
        let title = format!(
            "{} {} {}",
            pick(&mut rng, &LEVELS),
            pick(&mut rng, &FIELDS),
            pick(&mut rng, &ROLES)
        );
        let company = pick(&mut rng, &COMPANIES).to_string();
        let city = pick(&mut rng, &CITIES).to_string();
        if !seen.insert(format!("{title}|{company}|{city}")) {
            continue;
        }
        let salary = format!("{},000 GBP", rng.gen_range(22..95));
        let row: Row = [
            ("title", title),
            ("company", company),
            ("location", city),
            ("salary", salary),
        ]
        .into_iter()
        .collect();
        jobs.push(row);
    }

    let mut ferien = Vec::new();
    seen.clear();
    while ferien.len() < 300 {
        let k = rng.gen_range(0..KREISE.len());
        let name = format!("{} {}", pick(&mut rng, &HAUS), pick(&mut rng, &HAUS_NAME));
        let ort = ORTE[k][rng.gen_range(0..3)].to_string();
        if !seen.insert(format!("{name}|{ort}")) {
            continue;
        }
        let row: Row = [
            ("kreis", KREISE[k].to_string()),
            ("name", name),
            ("ort", ort),
            ("preis", format!("{} EUR", rng.gen_range(7..25) * 5)),
            ("betten", rng.gen_range(2..9).to_string()),
        ]
        .into_iter()
        .collect();
        ferien.push(row);
    }
    ferien.sort_by(|a, b| (&a["ort"], &a["name"]).cmp(&(&b["ort"], &b["name"])));

    let mut nursery = Vec::new();
    seen.clear();
    while nursery.len() < 240 {
        let s = rng.gen_range(0..SECTIONS.len());
        let (genus, common) = GENERA[s][rng.gen_range(0..GENERA[s].len())];
        let epithet = pick(&mut rng, &EPITHETS);
        let botanical = format!("{genus} {epithet}");
        if !seen.insert(botanical.clone()) {
            continue;
        }
        let adjective = pick(&mut rng, &COMMON_ADJ);
        let row: Row = [
            ("section", SECTIONS[s].1.to_string()),
            ("botanical", botanical),
            ("common", format!("{adjective} {common}")),
            ("height", format!("{} cm", rng.gen_range(2..40) * 10)),
            ("hardiness", pick(&mut rng, &HARDINESS).to_string()),
        ]
        .into_iter()
        .collect();
        nursery.push(row);
    }
    nursery.sort_by(|a, b| a["botanical"].cmp(&b["botanical"]));
    Data {
        films: Provider { rows: films },
        buecherei: Provider { rows: buecherei },
        jobs: Provider { rows: jobs },
        ferien: Provider { rows: ferien },
        nursery: Provider { rows: nursery },
        tables: Provider {
            rows: super::browse::stations(),
        },
        notes: Provider {
            rows: super::browse::issues(),
        },
        zeichen: Provider {
            rows: zeichen::rows(&mut rng),
        },
        verein: Provider {
            rows: verein::rows(&mut rng),
        },
        lexikon: Provider {
            rows: lexikon::rows(&mut rng),
        },
    }
}

/// Every value of every attribute of a provider's database (the ground
/// truth of `gather bench surface`); `None` for an unknown provider.
pub fn expected(provider: &str) -> Option<BTreeMap<String, BTreeSet<String>>> {
    let rows = &provider_data(provider)?.rows;
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for row in rows {
        for (k, v) in row {
            out.entry(k.to_string()).or_default().insert(v.clone());
        }
    }
    Some(out)
}

/// How many rows a provider's database holds.
pub fn row_count(provider: &str) -> usize {
    provider_data(provider).map_or(0, |p| p.rows.len())
}

/// The key of each row (its values joined), for row coverage.
pub fn row_keys(provider: &str) -> Vec<Vec<String>> {
    provider_data(provider).map_or_else(Vec::new, |p| {
        p.rows
            .iter()
            .map(|r| r.values().cloned().collect())
            .collect()
    })
}

fn provider_data(provider: &str) -> Option<&'static Provider> {
    let d = data();
    Some(match provider {
        "films" => &d.films,
        "buecherei" => &d.buecherei,
        "jobs" => &d.jobs,
        "ferien" => &d.ferien,
        "nursery" => &d.nursery,
        "tables" => &d.tables,
        "notes" => &d.notes,
        "zeichen" => &d.zeichen,
        "verein" => &d.verein,
        "lexikon" => &d.lexikon,
        _ => return None,
    })
}

/// The routes of the providers, for the demo's router.
pub(crate) fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/surface/{provider}/", get(form_plain))
        .route("/surface/{provider}/meta/", get(form_meta))
        .route("/surface/{provider}/search", get(search).post(search))
        .route(
            "/surface/lexikon/alle",
            get(|| async { utf8(StatusCode::OK, lexikon::register(&data().lexikon.rows)) }),
        )
        .route(
            "/surface/lexikon/hilfe",
            get(|| async { utf8(StatusCode::OK, lexikon::help()) }),
        )
        .route(
            "/surface/lexikon/artikel/{n}",
            get(|Path(n): Path<usize>| async move {
                match lexikon::article(&data().lexikon.rows, n) {
                    Some(page) => utf8(StatusCode::OK, page),
                    None => utf8(StatusCode::NOT_FOUND, "<p>Kein solcher Artikel.</p>".into()),
                }
            }),
        )
        .route(
            "/surface/verein/newsletter",
            axum::routing::post(|| async { utf8(StatusCode::OK, verein::thanks()) }),
        )
        .route(
            "/surface/verein/contact",
            axum::routing::post(|| async { utf8(StatusCode::OK, verein::thanks()) }),
        )
}

fn utf8(status: StatusCode, body: String) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        body,
    )
        .into_response()
}

async fn form_plain(Path(provider): Path<String>, RawQuery(query): RawQuery) -> Response {
    form_response(&provider, false, query)
}

async fn form_meta(Path(provider): Path<String>, RawQuery(query): RawQuery) -> Response {
    form_response(&provider, true, query)
}

fn form_response(provider: &str, meta: bool, query: Option<String>) -> Response {
    if provider == "tables" {
        // The table browser's page is its form and its listing at once.
        let params: BTreeMap<String, String> =
            url::form_urlencoded::parse(query.unwrap_or_default().as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect();
        let head = meta_head(provider, meta, "stations – a table browser");
        return match super::browse::tables_page(&data().tables.rows, head, &params) {
            Ok(page) => utf8(StatusCode::OK, page),
            Err(e) => utf8(StatusCode::BAD_REQUEST, format!("<p>{}</p>", esc(&e))),
        };
    }
    match form_page(provider, meta) {
        Some(page) => utf8(StatusCode::OK, page),
        None => utf8(StatusCode::NOT_FOUND, "<p>No such provider.</p>".into()),
    }
}

fn head(title: &str, meta: &[(&str, &str)]) -> String {
    let mut out = format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n",
        esc(title)
    );
    for (name, content) in meta {
        let _ = writeln!(
            out,
            "<meta name=\"{name}\" content=\"{}\">",
            esc(content).replace('"', "&quot;")
        );
    }
    out.push_str("</head>\n");
    out
}

fn options(name: &str, choices: &[(&str, &str)]) -> String {
    let mut out = format!("<select name=\"{name}\" id=\"{name}\">");
    for (value, label) in choices {
        let _ = write!(
            out,
            "<option value=\"{}\">{}</option>",
            esc(value),
            esc(label)
        );
    }
    out.push_str("</select>");
    out
}

/// The page's head, with the provider's hand-written metadata when `meta`.
fn meta_head(provider: &str, meta: bool, title: &str) -> String {
    let written = if meta {
        hand_written(provider)
    } else {
        Vec::new()
    };
    let pairs: Vec<(&str, &str)> = written.iter().map(|(n, v)| (*n, v.as_str())).collect();
    head(title, &pairs)
}

/// The hand-written metadata of each provider (the anchor of the benchmark).
fn hand_written(provider: &str) -> Vec<(&'static str, String)> {
    match provider {
        "tables" | "notes" => super::browse::hand_written(provider),
        "films" => vec![
            ("DB.QueryElement", "genre".into()),
            ("DB.Refine", "decade, country".into()),
            (
                "DB.Result.genre",
                "html.body.h2.txt, match/^Films filed under (.+)$/".into(),
            ),
            (
                "DB.Result.title",
                "html->table[0].tbody.tr[*].td[0].txt".into(),
            ),
            (
                "DB.Result.year",
                "html->table[0].tbody.tr[*].td[1].txt".into(),
            ),
            (
                "DB.Result.director",
                "html->table[0].tbody.tr[*].td[2].txt".into(),
            ),
            (
                "DB.Result.country",
                "html->table[0].tbody.tr[*].td[3].txt".into(),
            ),
        ],
        "buecherei" => vec![
            ("DB.QueryElement", "stichwort".into()),
            ("DB.QueryElement.stichwort", "/[A-Z]\\*/".into()),
            ("DB.Result.titel", "html->ol[0].li[*].strong.txt".into()),
            (
                "DB.Result.verfasser",
                "html->ol[0].li[*].span[0].txt, match/^Verfasser: (.+)$/".into(),
            ),
            (
                "DB.Result.erschienen",
                "html->ol[0].li[*].span[1].txt, match/^Erschienen: (.+)$/".into(),
            ),
            (
                "DB.Result.medium",
                "html->ol[0].li[*].span[2].txt, match/^Medium: (.+)$/".into(),
            ),
        ],
        "jobs" => vec![
            ("DB.QueryElement", "keywords".into()),
            ("DB.QueryElement.keywords", CITIES.join(", ")),
            ("DB.Result.title", "html->article[*].h3.txt".into()),
            (
                "DB.Result.company",
                "html->article[*].div.span[0].txt, match/^Company: (.+)$/".into(),
            ),
            (
                "DB.Result.location",
                "html->article[*].div.span[1].txt, match/^Location: (.+)$/".into(),
            ),
            (
                "DB.Result.salary",
                "html->article[*].p.txt, match/^Salary: (.+)$/".into(),
            ),
        ],
        "zeichen" => zeichen::hand_written(),
        "verein" => verein::hand_written(),
        "lexikon" => lexikon::hand_written(),
        "nursery" => vec![
            ("DB.QueryElements", "sect, latin".into()),
            ("DB.QueryElement.latin", "/[A-Z]%/".into()),
            ("DB.Result.section", "html->p[0].b.txt".into()),
            ("DB.Result.botanical", "html->div[*].h3.i.txt".into()),
            ("DB.Result.common", "html->div[*].p.txt".into()),
            (
                "DB.Result.height",
                "html->div[*].table.tbody.tr[0].td[1].txt".into(),
            ),
            (
                "DB.Result.hardiness",
                "html->div[*].table.tbody.tr[1].td[1].txt".into(),
            ),
        ],
        _ => vec![
            ("DB.QueryElement", "kreis".into()),
            ("DB.Refine", "preisklasse".into()),
            (
                "DB.Result.kreis",
                "html.body.h1.txt, match/^Ferienwohnungen im Landkreis (.+)$/".into(),
            ),
            ("DB.Result.name", "html->div[*].h4.txt".into()),
            ("DB.Result.ort", "html->div[*].dl.dd[0].txt".into()),
            ("DB.Result.preis", "html->div[*].dl.dd[1].txt".into()),
            ("DB.Result.betten", "html->div[*].dl.dd[2].txt".into()),
        ],
    }
}

fn form_page(provider: &str, with_meta: bool) -> Option<String> {
    let written = if with_meta {
        hand_written(provider)
    } else {
        Vec::new()
    };
    let meta: Vec<(&str, &str)> = written.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let action = format!("/surface/{provider}/search");
    let page = match provider {
        "notes" => super::browse::notes_form(head("Lantern – known issues", &meta)),
        "films" => {
            let genres: Vec<(&str, &str)> = GENRES.to_vec();
            let mut decades = vec![("", "Any decade")];
            decades.extend(DECADES.iter().map(|d| (*d, *d)));
            let mut countries = vec![("", "Any country")];
            countries.extend(COUNTRIES.iter().map(|c| (*c, *c)));
            format!(
                "{}<body>\n<header><h1>The Reel Vault</h1><p>An archive of feature films and documentaries.</p></header>\n\
                 <form action=\"{action}\" method=\"get\">\n<fieldset><legend>Find films</legend>\n\
                 <label for=\"genre\">Genre</label> {}\n<label for=\"decade\">Released</label> {}\n\
                 <label for=\"country\">Country</label> {}\n<label for=\"per\">Show</label> {}\n\
                 <button type=\"submit\">Search the vault</button>\n</fieldset>\n</form>\n</body>\n</html>\n",
                head("The Reel Vault", &meta),
                options("genre", &genres),
                options("decade", &decades),
                options("country", &countries),
                options("per", &[("20", "20 per page"), ("50", "50 per page"), ("100", "100 per page")]),
            )
        }
        "buecherei" => {
            let mut medien = vec![("", "Alle Medien")];
            medien.extend(MEDIEN.iter().map(|m| (*m, *m)));
            format!(
                "{}<body>\n<div class=\"kopf\">Stadtbücherei Nordstadt · Online-Katalog</div>\n\
                 <form action=\"{action}\" method=\"get\">\n\
                 <p>Titel beginnt mit: <input type=\"text\" name=\"stichwort\" size=\"25\"> \
                 (Platzhalter * am Ende, z. B. Nord*)</p>\n<p>Medienart: {}</p>\n\
                 <p><input type=\"submit\" value=\"Katalog durchsuchen\"></p>\n</form>\n\
                 <p class=\"hinweis\">Öffnungszeiten: Dienstag bis Samstag.</p>\n</body>\n</html>\n",
                head("Stadtbücherei Nordstadt – Katalog", &meta),
                options("medium", &medien),
            )
        }
        "jobs" => format!(
            "{}<body>\n<nav><a href=\"/surface/jobs/\">Jobs</a> | <a href=\"/surface/jobs/\">Employers</a></nav>\n\
             <main><h1>Find your next role</h1>\n<p>Thousands of openings for developer, engineer, analyst \
             and manager positions from employers across the country: logistics, health, banking, energy, \
             retail and media.</p>\n<form action=\"{action}\" method=\"get\" class=\"searchbar\">\n\
             <input type=\"search\" name=\"keywords\" placeholder=\"Job title, company or town\">\n\
             <button>Search jobs</button>\n</form></main>\n</body>\n</html>\n",
            head("Openings – the job board", &meta),
        ),
        "nursery" => {
            let sections: Vec<(&str, &str)> = SECTIONS.to_vec();
            format!(
                "{}<body>\n<div class=\"banner\"><b>Greenacre Plant Nursery</b> &mdash; mail order since 1987</div>\n\
                 <form action=\"{action}\" method=\"post\" name=\"finder\">\n<p>Section {}</p>\n\
                 <p><label>Botanical name begins with <input type=\"text\" name=\"latin\" maxlength=\"30\"></label> \
                 (end it with %, as in Cle%)</p>\n<p><input type=\"submit\" name=\"go\" value=\"Find plants\"></p>\n</form>\n\
                 <p>All plants are grown in peat-free compost.</p>\n</body>\n</html>\n",
                head("Greenacre Plant Nursery – plant finder", &meta),
                options("sect", &sections),
            )
        }
        "zeichen" => zeichen::form_page(&meta, data().zeichen.rows.len()),
        "verein" => verein::form_page(&meta),
        "lexikon" => lexikon::form_page(&meta),
        "ferien" => {
            let kreise: Vec<(&str, &str)> = KREISE.iter().map(|k| (*k, *k)).collect();
            format!(
                "{}<body>\n<h1>Ferienwohnungen an der Küste und im Binnenland</h1>\n\
                 <form action=\"{action}\" method=\"get\">\n<table><tr><td>Landkreis</td><td>{}</td></tr>\n\
                 <tr><td>Preis pro Nacht</td><td>{}</td></tr></table>\n\
                 <input type=\"submit\" value=\"Angebote zeigen\">\n</form>\n</body>\n</html>\n",
                head("Ferienwohnungen in Mecklenburg-Vorpommern", &meta),
                options("kreis", &kreise),
                options(
                    "preisklasse",
                    &[("", "egal"), ("1", "bis 50 EUR"), ("2", "50 bis 80 EUR"), ("3", "über 80 EUR")],
                ),
            )
        }
        _ => return None,
    };
    Some(page)
}

async fn search(
    Path(provider): Path<String>,
    RawQuery(query): RawQuery,
    body: axum::body::Bytes,
) -> Response {
    // A POST's fields come in its body, the pager's links in the URL.
    let query = query.unwrap_or_default();
    let params: BTreeMap<String, String> = url::form_urlencoded::parse(query.as_bytes())
        .chain(url::form_urlencoded::parse(&body))
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    let get = |k: &str| {
        params
            .get(k)
            .map(|v| v.trim().to_string())
            .unwrap_or_default()
    };
    let page: usize = match params.get("page") {
        None => 1,
        Some(p) => match p.parse() {
            Ok(n) if n >= 1 => n,
            _ => return utf8(StatusCode::BAD_REQUEST, "<p>Bad page number.</p>".into()),
        },
    };
    let Some(data) = provider_data(&provider) else {
        return utf8(StatusCode::NOT_FOUND, "<p>No such provider.</p>".into());
    };
    let rows = &data.rows;
    if provider == "notes" {
        return match super::browse::notes_page(rows, head("Lantern – search", &[]), &params) {
            Ok(page) => utf8(StatusCode::OK, page),
            Err(e) => utf8(StatusCode::BAD_REQUEST, format!("<p>{}</p>", esc(&e))),
        };
    }
    let body = match provider.as_str() {
        "films" => {
            let genre = GENRES.iter().find(|(v, _)| *v == get("genre")).map(|g| g.1);
            let (decade, country) = (get("decade"), get("country"));
            let per: usize = match get("per").as_str() {
                "50" => 50,
                "100" => 100,
                _ => 20,
            };
            let found: Vec<&Row> = rows
                .iter()
                .filter(|r| Some(r["genre"].as_str()) == genre)
                .filter(|r| decade.is_empty() || r["year"][..3] == decade[..3.min(decade.len())])
                .filter(|r| country.is_empty() || r["country"] == country)
                .collect();
            films_page(
                genre.unwrap_or("?"),
                &found,
                page,
                per,
                &query_without_page(&params),
            )
        }
        "buecherei" => {
            let wort = get("stichwort");
            let medium = get("medium");
            let found: Vec<&Row> = match wort.strip_suffix('*') {
                Some(prefix) if !prefix.is_empty() => rows
                    .iter()
                    .filter(|r| {
                        r["titel"]
                            .to_lowercase()
                            .starts_with(&prefix.to_lowercase())
                    })
                    .filter(|r| medium.is_empty() || r["medium"] == medium)
                    .collect(),
                _ if !wort.is_empty() => rows
                    .iter()
                    .filter(|r| r["titel"].eq_ignore_ascii_case(&wort))
                    .collect(),
                _ => Vec::new(),
            };
            buecherei_page(&wort, &medium, &found, page, &query_without_page(&params))
        }
        "jobs" => {
            let word = get("keywords").to_lowercase();
            let found: Vec<&Row> = if word.is_empty() {
                Vec::new()
            } else {
                rows.iter()
                    .filter(|r| {
                        ["title", "company", "location"].iter().any(|k| {
                            r[k].to_lowercase()
                                .split(|c: char| !c.is_alphanumeric())
                                .any(|w| w == word)
                        })
                    })
                    .collect()
            };
            jobs_page(&word, &found, page, &query_without_page(&params))
        }
        "zeichen" => zeichen::results(rows, &get("q"), page, &query_without_page(&params)),
        "verein" => verein::results(rows, &get("class"), page, &query_without_page(&params)),
        "lexikon" => lexikon::results(rows, &get("suchbegriff")),
        "nursery" => {
            let section = SECTIONS
                .iter()
                .find(|(v, _)| *v == get("sect"))
                .map(|s| s.1);
            let latin = get("latin");
            let found: Vec<&Row> = match (section, latin.strip_suffix('%')) {
                (Some(section), Some(prefix)) if !prefix.is_empty() => rows
                    .iter()
                    .filter(|r| r["section"] == section)
                    .filter(|r| {
                        r["botanical"]
                            .to_lowercase()
                            .starts_with(&prefix.to_lowercase())
                    })
                    .collect(),
                (Some(section), None) if !latin.is_empty() => rows
                    .iter()
                    .filter(|r| r["section"] == section)
                    .filter(|r| r["botanical"].eq_ignore_ascii_case(&latin))
                    .collect(),
                _ => Vec::new(),
            };
            nursery_page(section, &latin, &found, page, &query_without_page(&params))
        }
        _ => {
            let kreis = get("kreis");
            let klasse = get("preisklasse");
            let found: Vec<&Row> = rows
                .iter()
                .filter(|r| r["kreis"] == kreis)
                .filter(|r| {
                    let preis: u32 = r["preis"].trim_end_matches(" EUR").parse().unwrap_or(0);
                    match klasse.as_str() {
                        "1" => preis <= 50,
                        "2" => preis > 50 && preis <= 80,
                        "3" => preis > 80,
                        _ => true,
                    }
                })
                .collect();
            ferien_page(&kreis, &found, page, &query_without_page(&params))
        }
    };
    utf8(StatusCode::OK, body)
}

fn query_without_page(params: &BTreeMap<String, String>) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(params.iter().filter(|(k, _)| *k != "page"))
        .finish()
}

/// The rows of page `page` (1-based) and whether another page follows.
fn slice<'a>(found: &'a [&'a Row], page: usize, per: usize) -> (&'a [&'a Row], bool) {
    let start = ((page - 1) * per).min(found.len());
    let end = (start + per).min(found.len());
    (&found[start..end], end < found.len())
}

fn films_page(genre: &str, found: &[&Row], page: usize, per: usize, query: &str) -> String {
    let (shown, more) = slice(found, page, per);
    let mut out = head("The Reel Vault – results", &[]);
    let _ = write!(
        out,
        "<body>\n<div id=\"top\"><a href=\"/surface/films/\">New search</a></div>\n\
         <h2>Films filed under {}</h2>\n<p class=\"count\">{} films match.</p>\n",
        esc(genre),
        found.len()
    );
    if !shown.is_empty() {
        out.push_str(
            "<table class=\"films\">\n<thead><tr><th>Title</th><th>Year</th><th>Director</th><th>Country</th></tr></thead>\n<tbody>\n",
        );
        for r in shown {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&r["title"]),
                esc(&r["year"]),
                esc(&r["director"]),
                esc(&r["country"])
            );
        }
        out.push_str("</tbody>\n</table>\n");
    }
    if more {
        let _ = writeln!(
            out,
            "<div class=\"pages\"><a href=\"/surface/films/search?{}&amp;page={}\">Next page</a></div>",
            esc(query),
            page + 1
        );
    }
    out.push_str("<footer>The Reel Vault</footer>\n</body>\n</html>\n");
    out
}

fn buecherei_page(wort: &str, medium: &str, found: &[&Row], page: usize, query: &str) -> String {
    let (shown, more) = slice(found, page, 15);
    let mut out = head("Stadtbücherei Nordstadt – Trefferliste", &[]);
    let medium = if medium.is_empty() {
        "Alle Medien"
    } else {
        medium
    };
    let _ = write!(
        out,
        "<body>\n<div class=\"kopf\">Stadtbücherei Nordstadt · Online-Katalog</div>\n\
         <p>Suche nach „{}“ in {}: {} Treffer</p>\n",
        esc(wort),
        esc(medium),
        found.len()
    );
    if shown.is_empty() {
        out.push_str("<p>Keine Treffer. Bitte geben Sie den Anfang eines Titels mit * ein.</p>\n");
    } else {
        out.push_str("<ol class=\"trefferliste\">\n");
        for r in shown {
            let _ = writeln!(
                out,
                "<li><strong>{}</strong><br>\n<span>Verfasser: {}</span> · <span>Erschienen: {}</span> · <span>Medium: {}</span></li>",
                esc(&r["titel"]),
                esc(&r["verfasser"]),
                esc(&r["erschienen"]),
                esc(&r["medium"])
            );
        }
        out.push_str("</ol>\n");
    }
    if more {
        let _ = writeln!(
            out,
            "<p><a href=\"/surface/buecherei/search?{}&amp;page={}\">weiter</a></p>",
            esc(query),
            page + 1
        );
    }
    out.push_str("<p><a href=\"/surface/buecherei/\">Neue Suche</a></p>\n</body>\n</html>\n");
    out
}

fn jobs_page(word: &str, found: &[&Row], page: usize, query: &str) -> String {
    let (shown, more) = slice(found, page, 10);
    let mut out = head("Openings – search results", &[]);
    let _ = write!(
        out,
        "<body>\n<nav><a href=\"/surface/jobs/\">Jobs</a> | <a href=\"/surface/jobs/\">Employers</a></nav>\n\
         <main><p class=\"summary\">{} openings for “{}”</p>\n",
        found.len(),
        esc(word)
    );
    for r in shown {
        let _ = writeln!(
            out,
            "<article class=\"job\"><h3>{}</h3>\n<div class=\"meta\"><span>Company: {}</span> <span>Location: {}</span></div>\n<p class=\"salary\">Salary: {}</p></article>",
            esc(&r["title"]),
            esc(&r["company"]),
            esc(&r["location"]),
            esc(&r["salary"])
        );
    }
    if more {
        let _ = writeln!(
            out,
            "<p class=\"more\"><a href=\"/surface/jobs/search?{}&amp;page={}\">More results</a></p>",
            esc(query),
            page + 1
        );
    }
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

fn ferien_page(kreis: &str, found: &[&Row], page: usize, query: &str) -> String {
    let (shown, more) = slice(found, page, 12);
    let mut out = head("Ferienwohnungen – Angebote", &[]);
    let _ = write!(
        out,
        "<body>\n<h1>Ferienwohnungen im Landkreis {}</h1>\n",
        esc(kreis)
    );
    if shown.is_empty() {
        out.push_str("<p>Leider keine passenden Angebote.</p>\n");
    }
    for r in shown {
        let _ = writeln!(
            out,
            "<div class=\"angebot\"><h4>{}</h4>\n<dl><dt>Ort</dt><dd>{}</dd><dt>Preis pro Nacht</dt><dd>{}</dd><dt>Betten</dt><dd>{}</dd></dl></div>",
            esc(&r["name"]),
            esc(&r["ort"]),
            esc(&r["preis"]),
            esc(&r["betten"])
        );
    }
    if more {
        let _ = writeln!(
            out,
            "<p><a href=\"/surface/ferien/search?{}&amp;page={}\">nächste Seite</a></p>",
            esc(query),
            page + 1
        );
    }
    out.push_str("</body>\n</html>\n");
    out
}

fn nursery_page(
    section: Option<&str>,
    latin: &str,
    found: &[&Row],
    page: usize,
    query: &str,
) -> String {
    let (shown, more) = slice(found, page, 8);
    let mut out = head("Greenacre Plant Nursery – plants found", &[]);
    out.push_str(
        "<body>\n<div class=\"banner\"><b>Greenacre Plant Nursery</b> &mdash; mail order since 1987</div>\n",
    );
    let Some(section) = section.filter(|_| !latin.is_empty()) else {
        out.push_str("<p class=\"warn\">Please choose a section and give the beginning of a botanical name.</p>\n</body>\n</html>\n");
        return out;
    };
    let _ = writeln!(
        out,
        "<p class=\"where\">Section <b>{}</b></p>",
        esc(section)
    );
    if shown.is_empty() {
        out.push_str("<p class=\"warn\">We have no plant of that name in this section.</p>\n");
    }
    for r in shown {
        let _ = writeln!(
            out,
            "<div class=\"plant\"><h3><i>{}</i></h3>\n<p>{}</p>\n<table class=\"facts\"><tr><td>Height</td><td>{}</td></tr><tr><td>Hardiness</td><td>{}</td></tr></table></div>",
            esc(&r["botanical"]),
            esc(&r["common"]),
            esc(&r["height"]),
            esc(&r["hardiness"])
        );
    }
    if more {
        let _ = writeln!(
            out,
            "<p class=\"pager\"><a href=\"/surface/nursery/search?{}&amp;page={}\">Next &raquo;</a></p>",
            esc(query),
            page + 1
        );
    }
    out.push_str("</body>\n</html>\n");
    out
}

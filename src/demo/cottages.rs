//! Country cottages to let (`/cottages/`): an English search built unlike
//! the CityWorld services and the German holiday flats, for refinement
//! that runs out of exact values. A search by county (the query element)
//! lists at most [`MAX_SHOWN`] cottages, the dearest first, in a table,
//! under "Found 212 matches, the 15 dearest listed" (no `DB.ResultCount`,
//! no `DB.MaxResults`); the select of guests ("Any") narrows it, not
//! enough. The open text field `town` takes a town's exact name, or its
//! first letters followed by `*` (`Ro*`); `%` is an ordinary character.
//! Its quirk: some villages let only cheap cottages, which no capped answer
//! ever lists, so the towns gathered from the answers never name them; a
//! prefix reaches them.

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
pub const PATH: &str = "/cottages/";
/// The script that answers.
pub const SCRIPT: &str = "/cottages/search";
/// The most cottages one search lists.
pub const MAX_SHOWN: usize = 15;
/// A county: value, label, cottages in the towns answers list, those
/// towns, the villages of cheap cottages only.
pub type County = (
    &'static str,
    &'static str,
    usize,
    &'static [&'static str],
    &'static [&'static str],
);
/// The counties.
pub const COUNTIES: [County; 4] = [
    (
        "CON",
        "Cornwall",
        150,
        &[
            "St Ives",
            "Padstow",
            "Fowey",
            "Mousehole",
            "Polperro",
            "Looe",
            "Bude",
            "Newquay",
        ],
        &["Zennor", "Gweek", "Lamorna"],
    ),
    (
        "DEV",
        "Devon",
        130,
        &[
            "Salcombe",
            "Dartmouth",
            "Lynton",
            "Clovelly",
            "Totnes",
            "Sidmouth",
            "Croyde",
        ],
        &["Iddesleigh", "Hatherleigh", "Yealmpton"],
    ),
    (
        "CUM",
        "Cumbria",
        120,
        &[
            "Keswick",
            "Ambleside",
            "Grasmere",
            "Coniston",
            "Windermere",
            "Cartmel",
        ],
        &["Ulpha", "Eskdale Green", "Boot"],
    ),
    (
        "NYK",
        "North Yorkshire",
        110,
        &[
            "Whitby",
            "Robin Hood's Bay",
            "Helmsley",
            "Grassington",
            "Hawes",
        ],
        &["Osmotherley", "Rosedale Abbey"],
    ),
];
/// Guests a cottage sleeps (value, label, weight).
pub const SLEEPS: [(&str, &str, u32); 4] = [
    ("2", "2", 30),
    ("4", "4", 35),
    ("6", "6", 20),
    ("8", "8+", 15),
];

/// One cottage.
#[derive(Debug, Clone)]
pub struct Cottage {
    pub name: String,
    pub county: &'static str,
    pub town: &'static str,
    pub sleeps: &'static str,
    /// Pounds a week.
    pub price: u32,
}

const NAMES: &[&str] = &[
    "Rose",
    "Harbour",
    "Old Forge",
    "Mill",
    "Orchard",
    "Beacon",
    "Fern",
    "Swallow",
    "Chapel",
    "Lantern",
];
const KINDS: &[&str] = &["Cottage", "Barn", "Lodge", "House", "Loft"];

/// The cottages: the same every time.
pub fn cottages() -> &'static [Cottage] {
    static ALL: LazyLock<Vec<Cottage>> = LazyLock::new(|| {
        let mut rng = ChaCha8Rng::seed_from_u64(0xc0_77a6e);
        let mut out: Vec<Cottage> = Vec::new();
        let mut add = |rng: &mut ChaCha8Rng, county, town, price| {
            let n = out.len() + 1;
            out.push(Cottage {
                name: format!(
                    "{} {} ({n})",
                    NAMES[rng.gen_range(0..NAMES.len())],
                    KINDS[rng.gen_range(0..KINDS.len())]
                ),
                county,
                town,
                sleeps: super::form_provider::weighted(rng, &SLEEPS),
                price,
            });
        };
        for (county, _, count, towns, villages) in COUNTIES {
            for _ in 0..count {
                let town = towns[rng.gen_range(0..towns.len())];
                let price = rng.gen_range(450..2400);
                add(&mut rng, county, town, price);
            }
            for village in villages {
                for _ in 0..rng.gen_range(3..7) {
                    let price = rng.gen_range(180..420);
                    add(&mut rng, county, village, price);
                }
            }
        }
        out
    });
    &ALL
}

/// Every cottage's name and town.
pub fn expected() -> BTreeMap<String, BTreeSet<String>> {
    BTreeMap::from([
        (
            "name".to_string(),
            cottages().iter().map(|c| c.name.clone()).collect(),
        ),
        (
            "town".to_string(),
            cottages().iter().map(|c| c.town.to_string()).collect(),
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
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Country cottages to let</title>\n\
         <meta name=\"DB.QueryElement\" content=\"county\">\n\
         <meta name=\"DB.Result.name\" content=\"html.body->table[0].tr[*].td[0].txt\">\n\
         <meta name=\"DB.Result.town\" content=\"html.body->table[0].tr[*].td[1].txt\">\n\
         </head><body>\n<h1>Find a cottage</h1>\n<form action=\"/cottages/search\" method=\"get\">\n\
         <fieldset><legend>Where and who</legend>\n<label>County <select name=\"county\">",
    );
    for (value, label, ..) in COUNTIES {
        let _ = write!(out, "<option value=\"{value}\">{}</option>", esc(label));
    }
    out.push_str(
        "</select></label>\n<label>Sleeps <select name=\"guests\"><option value=\"\">Any</option>",
    );
    for (value, label, _) in SLEEPS {
        let _ = write!(out, "<option value=\"{value}\">{label}</option>");
    }
    out.push_str(
        "</select></label>\n<label>Town <input type=\"text\" name=\"town\" placeholder=\"e.g. St Ives, or Pad* for every town starting Pad\"></label>\n\
         <button type=\"submit\">Search</button></fieldset>\n</form>\n</body></html>\n",
    );
    out
}

/// Whether a cottage's town answers the field: its exact name, or its
/// first letters followed by `*` (case ignored).
fn town_matches(town: &str, asked: &str) -> bool {
    match asked.strip_suffix('*') {
        Some(stem) => town.to_lowercase().starts_with(&stem.to_lowercase()),
        None => asked.is_empty() || town.eq_ignore_ascii_case(asked),
    }
}

/// The cottages a search finds, dearest first.
pub fn search(county: &str, guests: &str, town: &str) -> Vec<&'static Cottage> {
    let mut found: Vec<&Cottage> = cottages()
        .iter()
        .filter(|c| c.county == county)
        .filter(|c| guests.is_empty() || c.sleeps == guests)
        .filter(|c| town_matches(c.town, town))
        .collect();
    found.sort_by(|a, b| b.price.cmp(&a.price).then(a.name.cmp(&b.name)));
    found
}

/// The answer to a search.
fn results(uri: &Uri) -> String {
    let get = |name: &str| super::form_provider::param(uri.query(), name);
    let found = search(&get("county"), &get("guests"), &get("town"));
    let mut out = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Cottages found</title></head><body>\n",
    );
    let _ = writeln!(
        out,
        "<table class=\"lettings\">\n<caption>Found {} matches, the {} dearest listed</caption>\n<tr><th>Cottage</th><th>Town</th><th>Sleeps</th><th>Per week</th></tr>",
        found.len(),
        found.len().min(MAX_SHOWN)
    );
    for c in found.iter().take(MAX_SHOWN) {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>&pound;{}</td></tr>",
            esc(&c.name),
            esc(c.town),
            c.sleeps,
            c.price
        );
    }
    out.push_str("</table>\n<p><a href=\"/cottages/\">Search again</a></p>\n</body></html>\n");
    out
}

/// The smallest static plan reaching every cottage, knowing every town: per
/// county and guests one query when its answer is whole, else one per town.
pub fn smallest_static_plan() -> usize {
    let mut plan = 0;
    for (county, _, _, towns, villages) in COUNTIES {
        for (guests, ..) in SLEEPS {
            plan += if search(county, guests, "").len() <= MAX_SHOWN {
                1
            } else {
                towns.len() + villages.len()
            };
        }
    }
    plan
}

/// The smallest static plan reaching every cottage that does not know the
/// towns: counties (or counties x guests) x every prefix of the town of one
/// length, `A*` … `Z*` and, where one letter is not enough, each extended
/// by every letter and the space (`Ab*` … `A *`), as a plan fixed before
/// any answer must extend them all; the shortest length and the cheaper
/// of the two at which every answer is whole. `(requests, prefix length,
/// whether it splits by guests)`.
pub fn blind_static_plan() -> (usize, usize, bool) {
    let towns: Vec<&str> = COUNTIES
        .iter()
        .flat_map(|c| c.3.iter().chain(c.4.iter()).copied())
        .collect();
    let whole = |length: usize, by_guests: bool| {
        COUNTIES.iter().all(|(county, ..)| {
            let guests: Vec<&str> = if by_guests {
                SLEEPS.iter().map(|s| s.0).collect()
            } else {
                vec![""]
            };
            guests.iter().all(|g| {
                towns.iter().all(|town| {
                    let stem: String = town.chars().take(length).collect();
                    search(county, g, &format!("{stem}*")).len() <= MAX_SHOWN
                })
            })
        })
    };
    for length in 1..=4 {
        let prefixes = 26 * 27usize.pow(length as u32 - 1);
        for by_guests in [false, true] {
            if whole(length, by_guests) {
                let combos = COUNTIES.len() * if by_guests { SLEEPS.len() } else { 1 };
                return (combos * prefixes, length, by_guests);
            }
        }
    }
    (usize::MAX, 0, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_villages_are_never_listed_by_a_capped_answer_but_a_prefix_reaches_them() {
        for (county, _, _, towns, villages) in COUNTIES {
            for (guests, ..) in SLEEPS {
                let found = search(county, guests, "");
                assert!(found.len() > MAX_SHOWN, "{county} {guests}");
                assert!(found
                    .iter()
                    .take(MAX_SHOWN)
                    .all(|c| !villages.contains(&c.town)));
                for town in towns.iter().chain(villages.iter()) {
                    let n = search(county, guests, town).len();
                    assert!(n <= MAX_SHOWN, "{county} {guests} {town}: {n}");
                }
            }
            for village in villages.iter() {
                let stem: String = village.chars().take(2).collect();
                let found = search(county, "", &format!("{stem}*"));
                assert!(found.iter().any(|c| c.town == *village));
                assert!(search(county, "", &format!("{stem}%")).is_empty());
            }
        }
    }

    #[test]
    fn a_plan_that_does_not_know_the_towns_needs_two_letters_under_each_county_and_guests() {
        // A first letter is capped even under a county and guests (P for
        // Padstow and Polperro, 4 guests in Cornwall): a fixed plan must
        // extend every letter by every letter and the space.
        assert!(search("CON", "4", "P*").len() > MAX_SHOWN);
        assert_eq!(
            blind_static_plan(),
            (COUNTIES.len() * SLEEPS.len() * 26 * 27, 2, true)
        );
        assert!(smallest_static_plan() < blind_static_plan().0);
    }
}

//! Ferienwohnungen an der Küste (`/fewo/`): a German holiday-flat search
//! built unlike the CityWorld services, for refinement that runs out of
//! selects. A search by island (the query element) shows at most
//! [`MAX_SHOWN`] flats, under "Es werden 30 von 212 Unterkünften
//! angezeigt" (no `DB.ResultCount`, no `DB.MaxResults`); the select of
//! persons ("beliebig") narrows it, but not enough. The form's open text
//! field `ort` (label "Ort") takes a town's exact name, and the rules
//! gather the attribute `ort`: its values are in the gathered rows.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::sync::LazyLock;

use axum::http::Uri;
use axum::Router;

use super::form_provider::Charset;
use rand::prelude::*;
use rand_chacha::ChaCha8Rng;

use super::pages::esc;

/// Where the form page is.
pub const PATH: &str = "/fewo/";
/// The most flats one search shows.
pub const MAX_SHOWN: usize = 30;
/// Islands and coasts (value, label, flats, towns).
pub const GEBIETE: [(&str, &str, usize, &[&str]); 3] = [
    (
        "r",
        "Rügen",
        300,
        &["Binz", "Sellin", "Göhren", "Baabe", "Sassnitz", "Thiessow"],
    ),
    (
        "u",
        "Usedom",
        200,
        &["Ahlbeck", "Heringsdorf", "Bansin", "Zinnowitz", "Koserow"],
    ),
    (
        "f",
        "Fischland-Darß",
        60,
        &["Ahrenshoop", "Wustrow", "Dierhagen", "Born"],
    ),
];
/// Persons a flat sleeps (value, label, weight).
pub const PERSONEN: [(&str, &str, u32); 3] = [("2", "2", 40), ("4", "4", 40), ("6", "6", 20)];

/// One flat.
#[derive(Debug, Clone)]
pub struct Wohnung {
    pub name: String,
    pub gebiet: &'static str,
    pub ort: &'static str,
    pub personen: &'static str,
}

const NAMEN: &[&str] = &[
    "Haus",
    "Villa",
    "Kate",
    "Appartement",
    "Reetdachhaus",
    "Strandloft",
    "Ferienhaus",
];
const ZUSATZ: &[&str] = &[
    "Seeblick",
    "Möwe",
    "Düne",
    "Bernstein",
    "Leuchtfeuer",
    "Kranich",
    "Sanddorn",
    "Brise",
];

/// The flats: the same every time.
pub fn wohnungen() -> &'static [Wohnung] {
    static ALL: LazyLock<Vec<Wohnung>> = LazyLock::new(|| {
        let mut rng = ChaCha8Rng::seed_from_u64(0x0000_fe20);
        let mut out = Vec::new();
        for (gebiet, _, count, orte) in GEBIETE {
            for _ in 0..count {
                let n = out.len() + 1;
                out.push(Wohnung {
                    name: format!(
                        "{} {} Nr. {n}",
                        NAMEN[rng.gen_range(0..NAMEN.len())],
                        ZUSATZ[rng.gen_range(0..ZUSATZ.len())]
                    ),
                    gebiet,
                    ort: orte[rng.gen_range(0..orte.len())],
                    personen: super::form_provider::weighted(&mut rng, &PERSONEN),
                });
            }
        }
        out
    });
    &ALL
}

/// Every flat's name and town.
pub fn expected() -> BTreeMap<String, BTreeSet<String>> {
    BTreeMap::from([
        (
            "name".to_string(),
            wohnungen().iter().map(|w| w.name.clone()).collect(),
        ),
        (
            "ort".to_string(),
            wohnungen().iter().map(|w| w.ort.to_string()).collect(),
        ),
    ])
}

/// The routes of the provider.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    super::form_provider::provider(PATH, "/fewo/suche", Charset::Latin1, form_page, results)
}

/// The search form, with its metadata.
pub fn form_page() -> String {
    let mut out = String::from(
        "<html><head><title>Ferienwohnungen an der Küste</title>\n\
         <meta name=\"DB.QueryElement\" content=\"gebiet\">\n\
         <meta name=\"DB.Result.name\" content=\"html.body->div[*].h4[0].txt\">\n\
         <meta name=\"DB.Result.ort\" content=\"html.body->div[*].p[0].span[0].txt\">\n\
         </head><body>\n<h2>Unterkunft suchen</h2>\n<form action=\"/fewo/suche\" method=\"get\">\n\
         <p>Gebiet: <select name=\"gebiet\">",
    );
    for (value, label, _, _) in GEBIETE {
        let _ = write!(out, "<option value=\"{value}\">{}</option>", esc(label));
    }
    out.push_str(
        "</select>\nPersonen: <select name=\"personen\"><option value=\"\">beliebig</option>",
    );
    for (value, label, _) in PERSONEN {
        let _ = write!(out, "<option value=\"{value}\">bis {label}</option>");
    }
    out.push_str(
        "</select>\n<label for=\"o\">Ort</label> <input type=\"text\" name=\"ort\" id=\"o\">\n\
         <input type=\"submit\" value=\"Suchen\"></p>\n</form>\n</body></html>\n",
    );
    out
}

/// The flats a search finds, in the provider's order.
pub fn search(gebiet: &str, personen: &str, ort: &str) -> Vec<&'static Wohnung> {
    wohnungen()
        .iter()
        .filter(|w| w.gebiet == gebiet)
        .filter(|w| personen.is_empty() || w.personen == personen)
        .filter(|w| ort.is_empty() || w.ort.eq_ignore_ascii_case(ort))
        .collect()
}

/// The answer to a search.
fn results(uri: &Uri) -> String {
    let get = |name: &str| super::form_provider::param(uri.query(), name);
    let found = search(&get("gebiet"), &get("personen"), &get("ort"));
    let mut out = String::from(
        "<html><head><title>Ferienwohnungen - Ergebnis</title></head><body>\n\
         <h2>Ihre Unterkünfte</h2>\n",
    );
    let _ = writeln!(
        out,
        "<p class=\"info\">Es werden {} von {} Unterkünften angezeigt.</p>",
        found.len().min(MAX_SHOWN),
        found.len()
    );
    for w in found.iter().take(MAX_SHOWN) {
        let _ = writeln!(
            out,
            "<div class=\"angebot\"><h4>{}</h4><p>Ort: <span>{}</span> &middot; bis {} Personen</p></div>",
            esc(&w.name),
            esc(w.ort),
            w.personen
        );
    }
    out.push_str("<p><a href=\"/fewo/\">Neue Suche</a></p>\n</body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_flat_is_reachable_within_the_cap() {
        for (gebiet, _, _, orte) in GEBIETE {
            assert!(search(gebiet, "", "").len() > MAX_SHOWN);
            for (personen, _, _) in PERSONEN {
                for ort in orte {
                    let n = search(gebiet, personen, ort).len();
                    assert!(n <= MAX_SHOWN, "{gebiet} {personen} {ort}: {n}");
                }
            }
        }
    }
}

//! Stellenmarkt Nordost (`/stellen/`): a German job board built unlike the
//! CityWorld services, for refined queries that must be navigated like
//! their parents. Results come ten to a page as a definition list; the
//! pager ("Seite 1 von 7 … weiter ›") links the next pages with every
//! parameter of the search that is set (`liste.cgi?bereich=pfl&umfang=vz&seite=2`),
//! while the form's `DB.NavigationURL` names only the query element and
//! the page number (`liste.cgi?bereich=*&seite=*`), as in the seed. No hit
//! count is stated anywhere; `DB.MaxPages` is 4, so a search over more
//! than 40 jobs is cut short, and two selects that default to "egal" /
//! "alle Kreise" (Umfang, Kreis) narrow it.

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
pub const PATH: &str = "/stellen/";
/// Jobs per result page.
pub const PAGE_SIZE: usize = 10;
/// The form's `DB.MaxPages`.
pub const MAX_PAGES: usize = 4;

/// Fields of work (value, label, jobs).
pub const BEREICHE: [(&str, &str, usize); 5] = [
    ("pfl", "Pflege", 260),
    ("hw", "Handwerk", 180),
    ("gas", "Gastronomie", 120),
    ("it", "IT", 90),
    ("log", "Logistik", 30),
];
/// Hours (value, label, weight).
pub const UMFANG: [(&str, &str, u32); 3] = [
    ("vz", "Vollzeit", 55),
    ("tz", "Teilzeit", 35),
    ("mj", "Minijob", 10),
];
/// Districts.
pub const KREISE: [(&str, &str); 6] = [
    ("hro", "Rostock"),
    ("vr", "Vorpommern-Rügen"),
    ("vg", "Vorpommern-Greifswald"),
    ("lro", "Landkreis Rostock"),
    ("nwm", "Nordwestmecklenburg"),
    ("mse", "Mecklenburgische Seenplatte"),
];

/// One job.
#[derive(Debug, Clone)]
pub struct Stelle {
    pub nummer: String,
    pub titel: String,
    pub bereich: &'static str,
    pub umfang: &'static str,
    pub kreis: &'static str,
}

const TITEL: &[(&str, &[&str])] = &[
    (
        "pfl",
        &[
            "Pflegefachkraft",
            "Pflegehelfer",
            "Altenpfleger",
            "Praxisanleitung",
        ],
    ),
    (
        "hw",
        &[
            "Tischler",
            "Elektroniker",
            "Anlagenmechaniker",
            "Maler und Lackierer",
        ],
    ),
    (
        "gas",
        &["Koch", "Servicekraft", "Hotelfachmann", "Küchenhilfe"],
    ),
    (
        "it",
        &[
            "Softwareentwickler",
            "Systemadministrator",
            "IT-Support",
            "Datenbankentwickler",
        ],
    ),
    (
        "log",
        &[
            "Berufskraftfahrer",
            "Lagerist",
            "Disponent",
            "Staplerfahrer",
        ],
    ),
];

/// The board's jobs: the same every time.
pub fn stellen() -> &'static [Stelle] {
    static STELLEN: LazyLock<Vec<Stelle>> = LazyLock::new(|| {
        let mut rng = ChaCha8Rng::seed_from_u64(0x0057_e11e);
        let mut out = Vec::new();
        for (bereich, _, count) in BEREICHE {
            let titel = TITEL
                .iter()
                .find(|t| t.0 == bereich)
                .map_or(&[][..], |t| t.1);
            for _ in 0..count {
                let umfang = super::form_provider::weighted(&mut rng, &UMFANG);
                out.push(Stelle {
                    nummer: format!("NO-{}", 10_000 + out.len() * 7),
                    titel: format!(
                        "{} (m/w/d)",
                        titel
                            .get(rng.gen_range(0..titel.len().max(1)))
                            .unwrap_or(&"Stelle")
                    ),
                    bereich,
                    umfang,
                    kreis: KREISE[rng.gen_range(0..KREISE.len())].0,
                });
            }
        }
        out
    });
    &STELLEN
}

/// Every job number and title of the board.
pub fn expected() -> BTreeMap<String, BTreeSet<String>> {
    BTreeMap::from([
        (
            "nummer".to_string(),
            stellen().iter().map(|s| s.nummer.clone()).collect(),
        ),
        (
            "titel".to_string(),
            stellen().iter().map(|s| s.titel.clone()).collect(),
        ),
    ])
}

/// The routes of the provider.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    super::form_provider::provider(
        PATH,
        "/stellen/liste.cgi",
        Charset::Latin1,
        form_page,
        results,
    )
}

/// The search form, with its metadata.
pub fn form_page() -> String {
    let mut out = format!(
        "<HTML><HEAD><TITLE>Stellenmarkt Nordost</TITLE>\n\
         <META NAME=\"DB.QueryElement\" CONTENT=\"bereich\">\n\
         <META NAME=\"DB.Result.titel\" CONTENT=\"html.body->dl[0].dt[*].txt\">\n\
         <META NAME=\"DB.Result.nummer\" CONTENT=\"html.body->dl[0].dd[*].tt[0].txt\">\n\
         <META NAME=\"DB.NavigationURL\" CONTENT=\"/stellen/liste.cgi?bereich=*&amp;seite=*\">\n\
         <META NAME=\"DB.MaxPages\" CONTENT=\"{MAX_PAGES}\">\n\
         </HEAD><BODY>\n<H3>Stellenangebote in Mecklenburg-Vorpommern</H3>\n\
         <FORM ACTION=\"/stellen/liste.cgi\">\nBereich: <SELECT NAME=\"bereich\">"
    );
    for (value, label, _) in BEREICHE {
        let _ = write!(out, "<OPTION VALUE=\"{value}\">{label}");
    }
    out.push_str("</SELECT>\nUmfang: <SELECT NAME=\"umfang\"><OPTION VALUE=\"\">egal");
    for (value, label, _) in UMFANG {
        let _ = write!(out, "<OPTION VALUE=\"{value}\">{label}");
    }
    out.push_str("</SELECT>\nKreis: <SELECT NAME=\"kreis\"><OPTION VALUE=\"\">alle Kreise");
    for (value, label) in KREISE {
        let _ = write!(out, "<OPTION VALUE=\"{value}\">{}", esc(label));
    }
    out.push_str(
        "</SELECT>\n<INPUT TYPE=\"submit\" VALUE=\"Stellen anzeigen\">\n</FORM>\n</BODY></HTML>\n",
    );
    out
}

/// The jobs a search finds, newest first.
pub fn search(bereich: &str, umfang: &str, kreis: &str) -> Vec<&'static Stelle> {
    let mut found: Vec<&Stelle> = stellen()
        .iter()
        .filter(|s| s.bereich == bereich)
        .filter(|s| umfang.is_empty() || s.umfang == umfang)
        .filter(|s| kreis.is_empty() || s.kreis == kreis)
        .collect();
    found.reverse();
    found
}

/// One result page; the pager's links carry every parameter that is set.
fn results(uri: &Uri) -> String {
    let get = |name: &str| super::form_provider::param(uri.query(), name);
    let seite: usize = get("seite").parse().unwrap_or(1).max(1);
    let found = search(&get("bereich"), &get("umfang"), &get("kreis"));
    let seiten = found.len().div_ceil(PAGE_SIZE).max(1);
    let mut link = String::from("liste.cgi?");
    for name in ["bereich", "umfang", "kreis"] {
        let value = get(name);
        if !value.is_empty() {
            let _ = write!(link, "{name}={value}&amp;");
        }
    }
    let mut out = String::from(
        "<HTML><HEAD><TITLE>Stellenmarkt Nordost - Angebote</TITLE></HEAD><BODY>\n\
         <H3>Ihre Stellenangebote</H3>\n<DL>\n",
    );
    for stelle in found.iter().skip((seite - 1) * PAGE_SIZE).take(PAGE_SIZE) {
        let kreis = KREISE
            .iter()
            .find(|k| k.0 == stelle.kreis)
            .map_or("", |k| k.1);
        let _ = writeln!(
            out,
            "<DT>{}</DT><DD>Kennziffer <TT>{}</TT> &middot; {}</DD>",
            esc(&stelle.titel),
            stelle.nummer,
            esc(kreis)
        );
    }
    out.push_str("</DL>\n");
    if found.is_empty() {
        out.push_str("<P>Leider keine passenden Angebote.</P>\n");
    }
    let _ = write!(out, "<P CLASS=\"blaettern\">Seite {seite} von {seiten}:");
    for n in 1..=seiten {
        if n == seite {
            let _ = write!(out, " <B>{n}</B>");
        } else {
            let _ = write!(out, " <A HREF=\"{link}seite={n}\">{n}</A>");
        }
    }
    if seite < seiten {
        let _ = write!(
            out,
            " <A HREF=\"{link}seite={}\">weiter &rsaquo;</A>",
            seite + 1
        );
    }
    out.push_str("</P>\n<P><A HREF=\"/stellen/\">Neue Suche</A></P>\n</BODY></HTML>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_job_is_reachable_within_the_page_limit() {
        for (bereich, _, _) in BEREICHE {
            for (umfang, _, _) in UMFANG {
                for (kreis, _) in KREISE {
                    let n = search(bereich, umfang, kreis).len();
                    assert!(
                        n <= PAGE_SIZE * MAX_PAGES,
                        "{bereich} {umfang} {kreis}: {n}"
                    );
                }
            }
        }
        assert_eq!(expected()["nummer"].len(), stellen().len());
    }
}

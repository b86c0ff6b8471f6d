//! Les Petites Annonces du Midi (`/annonces/`): a French classifieds
//! search, built after the policy that learns search words and unlike the
//! two keyword searches it was tuned on (the press archive, the picture
//! library). An ad's title is one thing for sale (one of [`NOUNS`] words,
//! Zipf 1.1, no subjects) and one to three qualifiers (one of
//! [`QUALIFIERS`], Zipf 0.6: a flat tail of middling words), in words with
//! accents. A search finds the ads whose title holds every word it is
//! sent (words combine with AND, accents count) and lists only the
//! [`MAX_SHOWN`] cheapest, in an ordered list, under "1 234 résultats –
//! les 20 moins chers" (a narrow no-break space between the thousands):
//! the form names neither `DB.ResultCount` nor `DB.MaxResults`, and the
//! wording of the count is French. Three seed words are named in
//! `DB.QueryElement.mots`. Served in ISO-8859-1.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::sync::LazyLock;

use axum::http::Uri;
use axum::Router;
use rand::distributions::WeightedIndex;
use rand::prelude::*;
use rand_chacha::ChaCha8Rng;

use super::form_provider::Charset;
use super::pages::esc;

/// Where the form page is.
pub const PATH: &str = "/annonces/";
/// The result script.
pub const SCRIPT: &str = "/annonces/recherche";
/// The most ads one search lists: the cheapest.
pub const MAX_SHOWN: usize = 20;
/// Ads on the site.
pub const ADS: usize = 6000;
/// Words naming a thing for sale.
pub const NOUNS: usize = 220;
/// Words qualifying it.
pub const QUALIFIERS: usize = 400;

/// One ad: its reference, title and price in euros.
#[derive(Debug, Clone)]
pub struct Ad {
    pub reference: u32,
    pub title: String,
    pub price: u32,
}

const ONSETS: &[&str] = &[
    "b", "ch", "d", "f", "g", "j", "l", "m", "n", "p", "qu", "r", "s", "t", "v", "br", "cr", "gr",
    "pl", "tr",
];
const NUCLEI: &[&str] = &[
    "a", "e", "é", "è", "i", "o", "ou", "au", "eau", "on", "an", "in", "ai",
];
const CODAS: &[&str] = &["", "", "r", "l", "s", "t", "x", "ille", "ette", "que", "ne"];

/// French-looking words, distinct: two or three syllables.
fn vocabulary(rng: &mut ChaCha8Rng, size: usize, taken: &mut BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    while out.len() < size {
        let mut word = String::new();
        for _ in 0..rng.gen_range(2..=3) {
            word.push_str(ONSETS[rng.gen_range(0..ONSETS.len())]);
            word.push_str(NUCLEI[rng.gen_range(0..NUCLEI.len())]);
        }
        word.push_str(CODAS[rng.gen_range(0..CODAS.len())]);
        if word.chars().count() >= 4 && taken.insert(word.clone()) {
            out.push(word);
        }
    }
    out
}

struct Site {
    ads: Vec<Ad>,
    seeds: Vec<String>,
    /// Word (lower case) → the ads whose title holds it, cheapest first.
    index: BTreeMap<String, Vec<usize>>,
}

fn site() -> &'static Site {
    static SITE: LazyLock<Site> = LazyLock::new(|| {
        let mut rng = ChaCha8Rng::seed_from_u64(0x616e_6e6f);
        let mut taken = BTreeSet::new();
        let nouns = vocabulary(&mut rng, NOUNS, &mut taken);
        let qualifiers = vocabulary(&mut rng, QUALIFIERS, &mut taken);
        let noun_pick =
            WeightedIndex::new((1..=NOUNS).map(|r| (r as f64).powf(-1.1))).expect("weights");
        let qualifier_pick =
            WeightedIndex::new((1..=QUALIFIERS).map(|r| (r as f64).powf(-0.6))).expect("weights");
        let mut ads = Vec::with_capacity(ADS);
        for n in 0..ADS as u32 {
            let mut title = vec![nouns[noun_pick.sample(&mut rng)].as_str()];
            for _ in 0..rng.gen_range(1..=3) {
                let word = qualifiers[qualifier_pick.sample(&mut rng)].as_str();
                if !title.contains(&word) {
                    title.push(word);
                }
            }
            let mut title = title.join(" ");
            if let Some(first) = title.chars().next() {
                title = first.to_uppercase().collect::<String>() + &title[first.len_utf8()..];
            }
            // Prices spread over three orders of magnitude.
            let price = (3.0 * 10f64.powf(rng.gen_range(0.0..3.0))).round() as u32;
            ads.push(Ad {
                reference: 10_000 + n * 7,
                title,
                price,
            });
        }
        let seeds = vec![nouns[1].clone(), qualifiers[30].clone(), nouns[60].clone()];
        let mut order: Vec<usize> = (0..ads.len()).collect();
        order.sort_by_key(|&at| (ads[at].price, ads[at].reference));
        let mut index: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for at in order {
            for word in ads[at].title.split(' ') {
                index.entry(word.to_lowercase()).or_default().push(at);
            }
        }
        Site { ads, seeds, index }
    });
    &SITE
}

/// The site's ads: the same every time.
pub fn ads() -> &'static [Ad] {
    &site().ads
}

/// The three seed words the form names.
pub fn seed_words() -> &'static [String] {
    &site().seeds
}

/// Every reference (`ref`) and title of the site.
pub fn expected() -> BTreeMap<String, BTreeSet<String>> {
    let refs = ads().iter().map(|a| label(a.reference)).collect();
    let titles = ads().iter().map(|a| a.title.clone()).collect();
    BTreeMap::from([("ref".to_string(), refs), ("titre".to_string(), titles)])
}

fn label(reference: u32) -> String {
    format!("{reference:06}")
}

/// What a search finds: every ad whose title holds each word, cheapest
/// first.
pub fn search(words: &str) -> Vec<&'static Ad> {
    let site = site();
    super::form_provider::all_words(&site.index, words)
        .into_iter()
        .map(|at| &site.ads[at])
        .collect()
}

/// The routes of the provider.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    super::form_provider::provider(PATH, SCRIPT, Charset::Latin1, form_page, results)
}

/// The search form, with its metadata.
pub fn form_page() -> String {
    let seeds = seed_words().join(", ");
    format!(
        "<!DOCTYPE html>\n<html lang=\"fr\"><head>\
         <title>Les Petites Annonces du Midi</title>\n\
         <meta name=\"DB.QueryElement\" content=\"mots\">\n\
         <meta name=\"DB.QueryElement.mots\" content=\"{}\">\n\
         <meta name=\"DB.Result.titre\" content=\"html.body->ol[0].li[*].h3[0].txt\">\n\
         <meta name=\"DB.Result.ref\" content=\"html.body->ol[0].li[*].p[0].code[0].txt\">\n\
         </head><body>\n<nav><a href=\"/annonces/\">Accueil</a> | <a href=\"/annonces/\">Déposer une annonce</a></nav>\n\
         <h1>Petites annonces</h1>\n\
         <form action=\"{SCRIPT}\">\n<label>Mots-clés <input type=\"text\" name=\"mots\" size=\"30\"></label>\n\
         <input type=\"submit\" value=\"Rechercher\">\n</form>\n\
         <p>Recherches fréquentes : {}</p>\n</body></html>\n",
        esc(&seeds),
        esc(&seeds),
    )
}

/// `1 234` with a narrow no-break space, as French typography writes it.
fn french(n: usize) -> String {
    if n >= 1000 {
        format!("{}\u{202f}{:03}", n / 1000, n % 1000)
    } else {
        n.to_string()
    }
}

/// The answer to a search.
fn results(uri: &Uri) -> String {
    let q = super::form_provider::param(uri.query(), "mots");
    let found = search(&q);
    let mut out = String::from(
        "<!DOCTYPE html>\n<html lang=\"fr\"><head>\
         <title>Résultats – Les Petites Annonces du Midi</title></head><body>\n\
         <nav><a href=\"/annonces/\">Accueil</a></nav>\n",
    );
    match found.len() {
        0 => {
            let _ = writeln!(
                out,
                "<p>Aucune annonce ne correspond à « {} ».</p>",
                esc(&q)
            );
        }
        n if n > MAX_SHOWN => {
            let _ = writeln!(
                out,
                "<p>« {} » : {} résultats – les {MAX_SHOWN} moins chers</p>",
                esc(&q),
                french(n)
            );
        }
        n => {
            let _ = writeln!(out, "<p>« {} » : {n} résultats</p>", esc(&q));
        }
    }
    out.push_str("<ol class=\"annonces\">\n");
    for ad in found.iter().take(MAX_SHOWN) {
        let _ = writeln!(
            out,
            "<li><h3>{}</h3><p>{} € – réf. <code>{}</code></p></li>",
            esc(&ad.title),
            ad.price,
            label(ad.reference)
        );
    }
    out.push_str("</ol>\n</body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn most_words_are_capped_and_two_words_narrow_a_search() {
        let words: BTreeSet<String> = ads()
            .iter()
            .flat_map(|a| a.title.split(' ').map(str::to_lowercase))
            .collect();
        let capped = words.iter().filter(|w| search(w).len() > MAX_SHOWN).count();
        assert!(capped > 100, "{capped} capped words of {}", words.len());
        assert!(seed_words().iter().all(|w| !search(w).is_empty()));
        assert!(seed_words().iter().any(|w| search(w).len() > MAX_SHOWN));
        // Words combine with AND; the cheapest come first.
        let (a, b) = (&seed_words()[0], &seed_words()[1]);
        let both = search(&format!("{a} {b}"));
        assert!(both.len() < search(a).len());
        assert!(both.windows(2).all(|w| w[0].price <= w[1].price));
        // Titles carry accents; the count is French.
        assert!(words.iter().any(|w| w.contains('é')));
        assert!(french(12345).contains('\u{202f}'));
    }
}

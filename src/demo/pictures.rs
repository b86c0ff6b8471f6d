//! Tidewater Picture Library (`/pictures/`): an English keyword search
//! over picture captions, built unlike the CityWorld press archive for the
//! policy that learns search words. Captions are three to six words,
//! mostly from the vocabulary of one of [`TOPICS`] subjects (a word of one
//! subject seldom meets a word of another), the rest common words; a
//! search matches a picture when each of its words is a word of the
//! caption. The library lists only the [`MAX_SHOWN`] most recent matches,
//! always the same ones for a word (newest first, not an order of its own
//! per word), in a definition list, under a sentence that states the hit
//! count ("Found 1,234 pictures matching …"): the form names neither
//! `DB.ResultCount` nor `DB.MaxResults`. Three seed words are named in
//! `DB.QueryElement.q`; the rest has to be learned. Served in UTF-8.

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
pub const PATH: &str = "/pictures/";
/// The result script.
pub const SCRIPT: &str = "/pictures/search";
/// The most pictures one search lists.
pub const MAX_SHOWN: usize = 50;
/// Pictures in the library.
pub const PICTURES: usize = 8000;
/// Subjects a caption's words are drawn from.
pub const TOPICS: usize = 24;

/// One picture: its catalogue number (higher is more recent) and caption.
#[derive(Debug, Clone)]
pub struct Picture {
    pub number: u32,
    pub caption: String,
}

const ONSETS: &[&str] = &[
    "b", "br", "c", "ch", "cl", "d", "f", "fl", "g", "gr", "h", "l", "m", "n", "p", "pl", "r", "s",
    "sh", "st", "t", "tr", "w", "wh",
];
const NUCLEI: &[&str] = &["a", "e", "i", "o", "u", "ai", "ea", "oo", "ow"];
const CODAS: &[&str] = &[
    "ck", "d", "ll", "m", "n", "nd", "ng", "p", "r", "rn", "sh", "st", "t", "th", "ve",
];

/// English-looking words, distinct: one or two syllables.
fn vocabulary(rng: &mut ChaCha8Rng, size: usize) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    while out.len() < size {
        let mut word = String::new();
        for _ in 0..rng.gen_range(1..=2) {
            word.push_str(ONSETS[rng.gen_range(0..ONSETS.len())]);
            word.push_str(NUCLEI[rng.gen_range(0..NUCLEI.len())]);
            word.push_str(CODAS[rng.gen_range(0..CODAS.len())]);
        }
        if word.len() >= 3 && seen.insert(word.clone()) {
            out.push(word);
        }
    }
    out
}

struct Library {
    pictures: Vec<Picture>,
    seeds: Vec<String>,
    /// Word (lower case) → the pictures whose caption holds it, most
    /// recent first.
    index: BTreeMap<String, Vec<usize>>,
}

fn library() -> &'static Library {
    static LIBRARY: LazyLock<Library> = LazyLock::new(|| {
        let mut rng = ChaCha8Rng::seed_from_u64(0x7069_6374);
        let words = vocabulary(&mut rng, 300 + TOPICS * 90);
        // 300 common words (Zipf 1.2); each subject 90 words of its own
        // (Zipf 0.8).
        let common = &words[..300];
        let common_pick =
            WeightedIndex::new((1..=common.len()).map(|r| (r as f64).powf(-1.2))).expect("weights");
        let topic_pick =
            WeightedIndex::new((1..=90).map(|r| (r as f64).powf(-0.8))).expect("weights");
        let topic_size =
            WeightedIndex::new((1..=TOPICS).map(|r| 1.0 / (r as f64).sqrt())).expect("weights");
        let mut pictures = Vec::with_capacity(PICTURES);
        for number in 1..=PICTURES as u32 {
            let topic = topic_size.sample(&mut rng);
            let own = &words[300 + topic * 90..300 + (topic + 1) * 90];
            let mut caption: Vec<&str> = Vec::new();
            for _ in 0..rng.gen_range(3..=6) {
                let word = if rng.gen_bool(0.7) {
                    own[topic_pick.sample(&mut rng)].as_str()
                } else {
                    common[common_pick.sample(&mut rng)].as_str()
                };
                if !caption.contains(&word) {
                    caption.push(word);
                }
            }
            let mut caption = caption.join(" ");
            if let Some(first) = caption.get(..1) {
                caption = first.to_uppercase() + &caption[1..];
            }
            pictures.push(Picture { number, caption });
        }
        let seeds = vec![
            words[2].clone(),
            words[300 + 40].clone(),
            words[300 + 5 * 90 + 10].clone(),
        ];
        let mut index: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (at, picture) in pictures.iter().enumerate().rev() {
            for word in picture.caption.split(' ') {
                index.entry(word.to_lowercase()).or_default().push(at);
            }
        }
        Library {
            pictures,
            seeds,
            index,
        }
    });
    &LIBRARY
}

/// The library's pictures: the same every time.
pub fn pictures() -> &'static [Picture] {
    &library().pictures
}

/// The three seed words the form names.
pub fn seed_words() -> &'static [String] {
    &library().seeds
}

/// Every catalogue number (`no`) and caption of the library.
pub fn expected() -> BTreeMap<String, BTreeSet<String>> {
    let numbers = pictures().iter().map(|p| label(p.number)).collect();
    let captions = pictures().iter().map(|p| p.caption.clone()).collect();
    BTreeMap::from([
        ("no".to_string(), numbers),
        ("caption".to_string(), captions),
    ])
}

fn label(number: u32) -> String {
    format!("TPL {number:05}")
}

/// What a search finds: every matching picture, most recent first.
pub fn search(words: &str) -> Vec<&'static Picture> {
    let library = library();
    super::form_provider::all_words(&library.index, words)
        .into_iter()
        .map(|at| &library.pictures[at])
        .collect()
}

/// The routes of the provider.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    super::form_provider::provider(PATH, SCRIPT, Charset::Utf8, form_page, results)
}

/// The search form, with its metadata.
pub fn form_page() -> String {
    let seeds = seed_words().join(", ");
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>Tidewater Picture Library</title>\n\
         <meta name=\"DB.QueryElement\" content=\"q\">\n\
         <meta name=\"DB.QueryElement.q\" content=\"{}\">\n\
         <meta name=\"DB.Result.caption\" content=\"html.body->dl[0].dt[*].txt\">\n\
         <meta name=\"DB.Result.no\" content=\"html.body->dl[0].dd[*].b[0].txt\">\n\
         </head><body>\n<header><a href=\"/pictures/\">Tidewater Picture Library</a></header>\n\
         <form method=\"get\" action=\"{SCRIPT}\" role=\"search\">\n\
         <input type=\"search\" name=\"q\" placeholder=\"Search captions\">\n\
         <button>Search</button>\n</form>\n\
         <aside>Try: {}</aside>\n</body></html>\n",
        esc(&seeds),
        esc(&seeds),
    )
}

/// The answer to a search.
fn results(uri: &Uri) -> String {
    let q = super::form_provider::param(uri.query(), "q");
    let found = search(&q);
    let mut out = String::from(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>Search – Tidewater Picture Library</title></head><body>\n\
         <header><a href=\"/pictures/\">Tidewater Picture Library</a></header>\n",
    );
    match found.len() {
        0 => {
            let _ = writeln!(out, "<p>No pictures match “{}”.</p>", esc(&q));
        }
        n if n > MAX_SHOWN => {
            let _ = writeln!(
                out,
                "<p>Found {} pictures matching “{}”; the {MAX_SHOWN} most recent are listed.</p>",
                super::shelf::grouped(n),
                esc(&q)
            );
        }
        n => {
            let _ = writeln!(out, "<p>Found {n} pictures matching “{}”.</p>", esc(&q));
        }
    }
    out.push_str("<dl class=\"results\">\n");
    for picture in found.iter().take(MAX_SHOWN) {
        let _ = writeln!(
            out,
            "<dt>{}</dt><dd><b>{}</b> · <a href=\"/pictures/\">order a print</a></dd>",
            esc(&picture.caption),
            label(picture.number)
        );
    }
    out.push_str("</dl>\n</body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_words_are_capped_and_most_pictures_need_a_narrow_word() {
        let words: BTreeSet<String> = pictures()
            .iter()
            .flat_map(|p| p.caption.split(' ').map(str::to_lowercase))
            .collect();
        let capped = words.iter().filter(|w| search(w).len() > MAX_SHOWN).count();
        let seeds: Vec<usize> = seed_words().iter().map(|w| search(w).len()).collect();
        assert!(
            capped > 40,
            "{capped} capped words of {}, seeds {seeds:?}",
            words.len()
        );
        // The seed words are found, and one of them is capped.
        assert!(seed_words().iter().all(|w| !search(w).is_empty()));
        assert!(seed_words().iter().any(|w| search(w).len() > MAX_SHOWN));
        // Two words narrow a search.
        let first = &seed_words()[1];
        let both = format!("{first} {}", seed_words()[0]);
        assert!(search(&both).len() < search(first).len());
    }
}

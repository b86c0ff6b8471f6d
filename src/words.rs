//! The words of a text worth a query: those a keyword field is probed
//! with when a form is surfaced ([`crate::surface`]), seeded with when it is
//! learned ([`crate::refine::learn`]), and counted by the learner.

use std::collections::{BTreeMap, BTreeSet};

use crate::page::Page;

/// Common German and English words that select nothing in particular.
const STOP_WORDS: &[&str] = &[
    "der", "die", "das", "den", "dem", "des", "ein", "eine", "einer", "eines", "und", "oder",
    "mit", "von", "vom", "zum", "zur", "auf", "aus", "bei", "nach", "the", "and", "for", "with",
    "from", "ins", "im", "am", "an", "in", "of", "to", "a",
];

/// The `n` most frequent words of a text worth a query (the seed words of
/// a field without any, `--learn`), the most frequent first.
pub fn page_words(text: &str, n: usize) -> Vec<String> {
    let mut count: BTreeMap<String, (u64, String)> = BTreeMap::new();
    for word in words(text) {
        count.entry(word.to_lowercase()).or_insert((0, word)).0 += 1;
    }
    let mut ranked: Vec<(u64, String, String)> = count
        .into_iter()
        .map(|(key, (n, word))| (n, key, word))
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    ranked
        .into_iter()
        .take(n)
        .map(|(_, _, word)| word)
        .collect()
}

/// The words of a text, as they are written: split at every character
/// that is neither a letter nor a digit (apply it to a [`normalized`]
/// text for lower case and `userName` split).
///
/// [`normalized`]: crate::form::words::normalized
pub fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
}

/// Whether a value holds a word worth a query (a value the ranking
/// counts).
pub fn has_words(value: &str) -> bool {
    words(value).next().is_some()
}

/// The words of a value worth a query.
pub(crate) fn words(value: &str) -> impl Iterator<Item = String> + '_ {
    value
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3 && !w.chars().all(|c| c.is_ascii_digit()))
        .filter(|w| !STOP_WORDS.contains(&w.to_lowercase().as_str()))
        .map(str::to_string)
}

/// The seed words of a keyword field read from its form page: the values
/// the page names in an enumeration ([`listed_words`]), all of them and
/// first, then the `n` most frequent other words ([`page_words`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Seeds {
    /// The words, the listed ones first.
    pub words: Vec<String>,
    /// How many of them the page lists.
    pub listed: usize,
}

/// The seeds of a form page ([`Seeds`]): the values its text enumerates
/// ([`listed_words`]) and those a list beside its form holds
/// ([`list_items`]).
pub fn seed_words(page: &Page, n: usize) -> Seeds {
    let text = page.text();
    let mut words = Vec::new();
    let mut known: BTreeSet<String> = BTreeSet::new();
    for w in listed_words(&text).into_iter().chain(list_items(page)) {
        if known.insert(w.to_lowercase()) {
            words.push(w);
        }
    }
    let listed = words.len();
    for w in page_words(&text, n + listed) {
        if words.len() == listed + n {
            break;
        }
        if known.insert(w.to_lowercase()) {
            words.push(w);
        }
    }
    Seeds { words, listed }
}

/// Words of at most this many tokens make an item of an enumeration.
const ITEM_TOKENS: usize = 3;

/// The conjunctions that join the last item of an enumeration (English,
/// German, French, Spanish, Italian, Portuguese, Dutch, Scandinavian).
const CONJUNCTIONS: &[&str] = &[
    "and", "or", "nor", "und", "oder", "sowie", "bzw", "et", "ou", "y", "o", "e", "ed", "og",
    "eller", "och",
];

/// The words that introduce an enumeration of examples ("e.g. Paris,
/// London, Rome"), as tokens in lower case.
const EXAMPLE_MARKERS: &[&[&str]] = &[
    &["e", "g"],
    &["eg"],
    &["such", "as"],
    &["like"],
    &["for", "example"],
    &["for", "instance"],
    &["including"],
    &["z", "b"],
    &["zb"],
    &["zum", "beispiel"],
    &["beispielsweise"],
    &["etwa"],
    &["wie"],
    &["par", "exemple"],
    &["comme"],
    &["p", "ex"],
    &["por", "ejemplo"],
    &["como"],
    &["ad", "esempio"],
    &["bijvoorbeeld"],
];

/// The values a text names in enumerations, as a person reads them off a
/// form page's help ("by component: editor, export, import or fonts", "a
/// city, e.g. Paris, London, Rome"): three or more short items (one to
/// three words) joined by at least two commas, the last one after a
/// conjunction ("or", "and", "oder", "und", "ou", …) or the first one after
/// a marker of examples ("e.g.", "such as", "z. B.", "par exemple", …).
/// The first and the last item are as long as the longest between commas.
/// A sentence with one comma lists nothing, and neither does a menu: its
/// links are not joined by commas. Items without a word worth a query
/// ([`has_words`]) are left out, and a word listed twice is kept once; in
/// the order of the text.
pub fn listed_words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen = BTreeSet::new();
    for segment in segments(text) {
        for item in enumerations(segment) {
            if has_words(&item) && seen.insert(item.to_lowercase()) {
                out.push(item);
            }
        }
    }
    out
}

/// The items of the lists (`<ul>`, `<ol>`) beside a form or inside it,
/// where each of three or more items is one word worth a query and none is
/// a link (a menu's): "Components: <ul><li>editor</li><li>export</li>…".
pub fn list_items(page: &Page) -> Vec<String> {
    let (Some(li), Some(form)) = (page.label_id("li"), page.label_id("form")) else {
        return Vec::new();
    };
    let forms = page.with_label(form);
    let link = page.label_id("a");
    let beside = |list| {
        page.ancestors(list).any(|a| forms.contains(&a))
            || page
                .parent(list)
                .is_some_and(|p| forms.iter().any(|&f| page.ancestors(f).any(|a| a == p)))
    };
    let mut out = Vec::new();
    for label in ["ul", "ol"].into_iter().filter_map(|l| page.label_id(l)) {
        for &list in page.with_label(label) {
            let linked = link.is_some_and(|a| !page.descendants_with_label(list, a).is_empty());
            if linked || !beside(list) {
                continue;
            }
            let items: Vec<String> = page
                .child_matches(list, li)
                .map(|i| page.text_of(i))
                .collect();
            if items.len() >= 3 && items.iter().all(|w| tokens(w).count() == 1 && has_words(w)) {
                out.extend(items);
            }
        }
    }
    out
}

/// A text cut where a sentence or a clause ends: at `;:!?()[]|` and a
/// line end, and at a full stop after a word of three or more characters
/// followed by a space (not "e.g." or "z. B.").
fn segments(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut word = 0usize;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next_space = chars.peek().is_none_or(|&(_, n)| n.is_whitespace());
        let end = match c {
            ';' | ':' | '!' | '?' | '(' | ')' | '[' | ']' | '|' | '\n' | '…' => true,
            '.' => word >= 3 && next_space,
            _ => false,
        };
        word = if c.is_alphanumeric() { word + 1 } else { 0 };
        if end {
            out.push(&text[start..i]);
            start = i + c.len_utf8();
        }
    }
    out.push(&text[start..]);
    out
}

/// The items of the enumerations of one segment ([`listed_words`]).
fn enumerations(segment: &str) -> Vec<String> {
    let pieces: Vec<Vec<&str>> = segment.split(',').map(|p| tokens(p).collect()).collect();
    // An item between commas; one holding a marker of examples begins an
    // enumeration instead.
    let short = |p: &[&str]| (1..=ITEM_TOKENS).contains(&p.len()) && marker_end(p).is_none();
    let mut out = Vec::new();
    let mut i = 1;
    while i + 1 < pieces.len() {
        if !short(&pieces[i]) {
            i += 1;
            continue;
        }
        // A run of short items between commas, pieces[i..=j].
        let mut j = i;
        while j + 2 < pieces.len() && short(&pieces[j + 1]) {
            j += 1;
        }
        let n = pieces[i..=j].iter().map(Vec::len).max().unwrap_or(1);
        let (head, marked) = head_item(&pieces[i - 1], n);
        let tail = tail_items(&pieces[j + 1], n, marked);
        if let Some(tail) = tail {
            let items: Vec<String> = head
                .into_iter()
                .chain(pieces[i..=j].iter().map(|p| p.join(" ")))
                .chain(tail)
                .collect();
            if items.iter().filter(|w| has_words(w)).count() >= 3 {
                out.extend(items);
            }
        }
        i = j + 1;
    }
    out
}

/// The first item of an enumeration, read off the piece before its first
/// comma: the tokens after a marker of examples (then `true`), else the
/// last `n`.
fn head_item(piece: &[&str], n: usize) -> (Option<String>, bool) {
    match marker_end(piece) {
        Some(after) => {
            let rest = &piece[after..];
            let item = (1..=ITEM_TOKENS)
                .contains(&rest.len())
                .then(|| rest.join(" "));
            (item, true)
        }
        None => {
            let from = piece.len().saturating_sub(n);
            let item = (!piece[from..].is_empty()).then(|| piece[from..].join(" "));
            (item, false)
        }
    }
}

/// Where the last marker of examples in a piece ends, if it holds one.
fn marker_end(piece: &[&str]) -> Option<usize> {
    let lower: Vec<String> = piece.iter().map(|t| t.to_lowercase()).collect();
    EXAMPLE_MARKERS
        .iter()
        .filter_map(|m| {
            lower
                .windows(m.len())
                .rposition(|w| w.iter().zip(m.iter()).all(|(a, b)| a == b))
                .map(|k| k + m.len())
        })
        .max()
}

/// The last items of an enumeration, read off the piece after its last
/// comma: an item and the `n` tokens after a conjunction among the first
/// tokens ("search or fonts", "and fonts"); without a conjunction, the first
/// `n` tokens when a marker of examples began the enumeration, else `None`
/// (no enumeration).
fn tail_items(piece: &[&str], n: usize, marked: bool) -> Option<Vec<String>> {
    let conjunction = piece
        .iter()
        .take(ITEM_TOKENS + 1)
        .position(|t| CONJUNCTIONS.contains(&t.to_lowercase().as_str()));
    match conjunction {
        Some(k) => {
            let last = &piece[k + 1..piece.len().min(k + 1 + n)];
            let before = (k > 0).then(|| piece[..k].join(" "));
            Some(
                before
                    .into_iter()
                    .chain((!last.is_empty()).then(|| last.join(" ")))
                    .collect(),
            )
        }
        None if marked && !piece.is_empty() => Some(vec![piece[..piece.len().min(n)].join(" ")]),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_enumeration_of_the_help_text_is_listed() {
        let text = "Lantern issue tracker Known issues Search the known issues of the Lantern \
                    editor by a word of their title or component: editor, export, import, \
                    printing, sync, login, search or fonts. Every character counts as typed. \
                    Search issues Editor, export and import issues are triaged weekly; printing, \
                    sync, login, search and fonts issues monthly.";
        assert_eq!(
            listed_words(text),
            ["editor", "export", "import", "printing", "sync", "login", "search", "fonts"]
        );
    }

    #[test]
    fn examples_after_a_marker_are_listed_in_several_languages() {
        assert_eq!(
            listed_words("Enter a city, e.g. Paris, London, Rome. Then press Search."),
            ["Paris", "London", "Rome"]
        );
        assert_eq!(
            listed_words("Ort eingeben, z. B. Berlin, Hamburg, München"),
            ["Berlin", "Hamburg", "München"]
        );
        assert_eq!(
            listed_words("Cherchez un genre : roman, poésie, théâtre ou essai."),
            ["roman", "poésie", "théâtre", "essai"]
        );
        assert_eq!(
            listed_words("Suche nach Sachgebiet: Geschichte, Kunst, Recht und Medizin."),
            ["Geschichte", "Kunst", "Recht", "Medizin"]
        );
        assert_eq!(
            listed_words("Busque por región: Norte, Sur, Centro o Costa"),
            ["Norte", "Sur", "Centro", "Costa"]
        );
    }

    #[test]
    fn items_of_two_words_and_an_oxford_comma() {
        assert_eq!(
            listed_words("Search by city such as New York, Los Angeles, San Diego, and Boston."),
            ["New York", "Los Angeles", "San Diego", "Boston"]
        );
    }

    #[test]
    fn a_sentence_with_one_comma_or_a_menu_lists_nothing() {
        assert!(listed_words("Enter a word of the title, and press Search.").is_empty());
        assert!(listed_words("Search by title, author or year.").is_empty());
        // A menu of links beside the form: its items are not joined by commas.
        let page = Page::parse(
            "<html><body><ul class=\"menu\"><li><a href=\"/\">Home</a></li>\
             <li><a href=\"/about\">About</a></li><li><a href=\"/news\">News</a></li>\
             <li><a href=\"/help\">Help</a></li></ul>\
             <form action=\"/find\"><input name=\"q\"></form>\
             <p>Search the catalogue by a word of the title.</p></body></html>",
        );
        assert!(listed_words(&page.text()).is_empty());
        let menu = "Home | About | News | Help";
        assert!(listed_words(menu).is_empty());
        // Commas without a conjunction or a marker: a list of nothing in particular.
        assert!(listed_words("Opened 1998, closed 2004, reopened 2011 by the town").is_empty());
        // Long clauses between the commas are not items.
        assert!(listed_words(
            "The search covers every issue, the closed ones included, whatever their component or status"
        )
        .is_empty());
    }

    #[test]
    fn a_list_of_words_beside_the_form_is_listed_and_a_menu_is_not() {
        let page = Page::parse(
            "<html><body><nav><ul><li><a href=\"/\">Home</a></li><li><a href=\"/news\">News</a></li>\
             <li><a href=\"/help\">Help</a></li></ul></nav>\
             <div class=\"search\"><p>Gattungen:</p><ul><li>Roman</li><li>Lyrik</li><li>Drama</li>\
             <li>Sachbuch</li></ul><form action=\"/suche\"><input name=\"q\"></form>\
             <ol><li>Neu eingetroffen im Mai</li><li>Lesung</li><li>Kinder</li></ol></div>\
             <footer><ul><li>Impressum</li><li>Datenschutz</li><li>Kontakt</li></ul></footer>\
             </body></html>",
        );
        // The menu's items are links, the list of news has an item of
        // several words, the footer's list is not beside the form.
        assert_eq!(list_items(&page), ["Roman", "Lyrik", "Drama", "Sachbuch"]);
        assert_eq!(
            seed_words(&page, 0).words,
            ["Roman", "Lyrik", "Drama", "Sachbuch"]
        );
    }

    #[test]
    fn the_listed_words_are_seeded_first_and_all_of_them() {
        let page = Page::parse(
            "<body><p>issues issues issues known known: alpha, beta, gamma, delta, epsilon, \
             zeta, theta, iota, kappa or lambda</p><form><input name=\"q\"></form></body>",
        );
        let seeds = seed_words(&page, 2);
        assert_eq!(seeds.listed, 10);
        assert_eq!(seeds.words.len(), 12);
        assert_eq!(seeds.words[0], "alpha");
        assert_eq!(seeds.words[9], "lambda");
        assert_eq!(&seeds.words[10..], ["issues", "known"]);
    }
}

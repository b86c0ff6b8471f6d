//! The probes: the inputs of a form and the values they are probed with,
//! the rounds of probes sent (the first letter with each wildcard, more
//! letters and a digit with a wildcard that works, the selects again with
//! the text field filled), and the requests that carry them.

use std::collections::BTreeSet;

use url::Url;

use super::choose::{answers_rows, judge, probe_rows};
use super::index::SitePage;
use super::{
    Answers, Input, Pairs, Sent, SurfaceError, PROBE_DIGIT, PROBE_LETTERS, PROBE_WORDS, WILDCARDS,
};
use crate::fetch::Fetcher;
use crate::form::{Choice, ElementKind, Form};
use crate::metadata::Metadata;
use crate::page::Page;
use crate::plan::QueryPlan;
use crate::spec::{Spec, Values};
use crate::words::Seeds;

/// Sends the probes, round after round (see the module docs of
/// [`super`]): first the form as it stands, the selects and the first
/// letter of the text fields with each wildcard; then, for a wildcard
/// that brought rows, a second letter and a digit with it (a wildcard
/// whose first letter brought nothing is judged and not tried again); the
/// words of the form page only when none of those brought a row; the
/// selects again beside the text field; last, when answers hold rows but
/// no two hold different ones, words of those rows. Returns every probe sent and the
/// rows of their answers by the rules induced on them.
pub(super) async fn send_all_probes(
    fetcher: &Fetcher,
    plan: &QueryPlan,
    form: &Form,
    inputs: &[Input],
    url: &Url,
    form_page: &Page,
    already: Vec<Sent>,
) -> Result<(Vec<Sent>, Answers, Vec<SitePage>), SurfaceError> {
    let mut sent: Vec<Sent> = already;
    let mut site: Vec<SitePage> = Vec::new();
    // Where the form page links to an index of the site's pages, its words
    // are tried before the form page's own: an index lists what the
    // search finds.
    let index_first = links_to_index(form_page, url);
    // The form as it stands: the plan's query element keeps its default too.
    let defaults = super::default::default_values(form, inputs);
    let mut wanted: Vec<(Option<usize>, Pairs)> = vec![(None, Vec::new())];
    let mut words: Vec<(Option<usize>, Pairs)> = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        for value in &input.probes {
            let probe = (Some(i), vec![(input.name.clone(), value.clone())]);
            if input.text && !value.ends_with(WILDCARDS) {
                words.push(probe);
            } else {
                wanted.push(probe);
            }
        }
    }
    let mut answers = Answers {
        distinct: Vec::new(),
        rows: Vec::new(),
        reason: "",
    };
    // Those the default answer sent already are not sent again.
    wanted.retain(|(i, values)| !sent.iter().any(|s| s.input == *i && s.values == *values));
    let mut stage = 0;
    let mut round = wanted;
    loop {
        if !round.is_empty() || answers.rows.len() != sent.len() {
            send_probes(fetcher, plan, &defaults, round, &mut sent).await?;
            // 2. Rules, and the rows of every answer.
            answers = answers_rows(&sent).map_err(|e| SurfaceError::Induce(e, url.clone()))?;
        }
        let rows = &answers.rows;
        // Letters with a wildcard that works are queries of the plan too
        // (their answers are taken again), so more of them are sent until
        // two answers show the rows a rule reads.
        let more = if stage == 1 {
            more_letters(inputs, &sent, rows)
        } else {
            Vec::new()
        };
        if !more.is_empty() {
            round = more;
            continue;
        }
        let second = second_values(inputs, &sent, rows);
        if !second.is_empty() {
            round = second;
            continue;
        }
        stage += 1;
        let nothing = rows.iter().all(BTreeSet::is_empty);
        let words_wanted = nothing || !prefix_search(inputs, &sent, rows);
        // The site's index first, where the form page links to one; else
        // the form page's words, then a few pages of the site.
        let (index, pages) = (Reading::Index, Reading::Pages);
        round = match stage {
            1 => prefix_follow_ups(inputs, &sent, rows),
            2 if words_wanted && index_first => {
                site_word_probes(fetcher, inputs, &sent, form_page, url, index, &mut site).await?
            }
            2 if words_wanted => std::mem::take(&mut words),
            3 if nothing && index_first => std::mem::take(&mut words),
            3 if nothing => {
                site_word_probes(fetcher, inputs, &sent, form_page, url, pages, &mut site).await?
            }
            4 if nothing && index_first => {
                site_word_probes(fetcher, inputs, &sent, form_page, url, pages, &mut site).await?
            }
            2..=4 => Vec::new(),
            5 => selects_beside_text(inputs, &sent, rows),
            6 => answer_word_probes(inputs, &sent, rows, form_page),
            _ => break,
        };
    }
    Ok((sent, answers, site))
}

/// Pages of the site read for words, when neither letters nor the form
/// page's own words brought a row.
const SITE_PAGES: usize = 3;

/// Words of an address (its path or query) that leads to an account's
/// pages or may change something (a link that subscribes, orders, votes
/// or deletes): never read for words.
const NOT_FOR_WORDS: [&str; 27] = [
    "login",
    "logout",
    "logoff",
    "signin",
    "sign-in",
    "sign_in",
    "signup",
    "sign-up",
    "sign_up",
    "register",
    "account",
    "profile",
    "password",
    "create",
    "edit",
    "delete",
    "remove",
    "admin",
    "settings",
    "subscribe",
    "cart",
    "basket",
    "checkout",
    "order",
    "buy",
    "vote",
    "action=",
];

/// Words of a link to a site's index of its pages.
const INDEX_WORDS: [&str; 11] = [
    "index",
    "all pages",
    "all articles",
    "sitemap",
    "contents",
    "a-z",
    "a–z",
    "verzeichnis",
    "inhalt",
    "toutes les pages",
    "plan du site",
];

/// Endings of a link's path that are no page of text.
const NOT_PAGES: [&str; 9] = [
    "css",
    "js",
    "png",
    "jpg",
    "gif",
    "svg",
    "ico",
    "webmanifest",
    "pdf",
];

/// Whether a page of the site may be read for words: a page of text
/// (not a style sheet, a script or an image) whose address leads neither
/// to an account's pages nor to an action ([`NOT_FOR_WORDS`]).
fn read_for_words(target: &Url) -> bool {
    let path = target.path().to_ascii_lowercase();
    let query = target.query().unwrap_or("").to_ascii_lowercase();
    let file = path
        .rsplit('.')
        .next()
        .is_some_and(|e| NOT_PAGES.contains(&e));
    !file
        && !NOT_FOR_WORDS
            .iter()
            .any(|w| path.contains(w) || query.contains(w))
}

/// Which pages of the site [`site_word_probes`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// Only the index of its pages the form page links to.
    Index,
    /// A few pages the form page links to, its root and its index first.
    Pages,
}

/// Whether a link leads to a site's index of its pages ([`INDEX_WORDS`]).
fn is_index_link(link: &crate::links::PageLink) -> bool {
    let text = format!("{} {}", link.text, link.href).to_lowercase();
    INDEX_WORDS.iter().any(|w| text.contains(w))
}

/// Last segments of an address that name a site's index of its pages
/// (`/-/index`, `/sitemap.html`); `index.php` and `index.html` are home
/// pages, not indexes.
const INDEX_PATHS: [&str; 8] = [
    "index",
    "sitemap",
    "site-map",
    "contents",
    "a-z",
    "verzeichnis",
    "inhalt",
    "plan-du-site",
];

/// Whether a link says plainly that it leads to the site's index of its
/// pages: its text holds one of [`INDEX_WORDS`] as words of their own
/// ("Page Index", "Alle Artikel A–Z", "A - Z"), or its address ends in
/// one of [`INDEX_PATHS`].
fn names_an_index(link: &crate::links::PageLink) -> bool {
    let text = format!(
        " {} ",
        link.text
            .to_lowercase()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .replace(" - ", "-")
            .replace(" – ", "–")
    );
    let by_text = INDEX_WORDS.iter().any(|w| text.contains(&format!(" {w} ")));
    let by_address = link.target.as_ref().is_some_and(|t| {
        let last = t
            .path_segments()
            .and_then(|mut s| s.rfind(|p| !p.is_empty()))
            .unwrap_or("")
            .to_lowercase();
        match last.rsplit_once('.') {
            None => INDEX_PATHS.contains(&last.as_str()),
            Some((stem, "html" | "htm" | "php" | "asp" | "aspx" | "jsp")) => {
                stem != "index" && INDEX_PATHS.contains(&stem)
            }
            Some(_) => false,
        }
    });
    by_text || by_address
}

/// Whether the form page links to an index of the site's pages on its own
/// host, one that may be read ([`names_an_index`]).
fn links_to_index(form_page: &Page, url: &Url) -> bool {
    let links = crate::links::PageLinks::of(form_page, url);
    let own = crate::links::document_key(url);
    links.classified().iter().any(|(link, _)| {
        link.target.as_ref().is_some_and(|t| {
            t.host_str() == url.host_str()
                && read_for_words(t)
                && crate::links::document_key(t) != own
                && names_an_index(link)
        })
    })
}

/// When no probe brought a row, a keyword search is probed with the most
/// frequent words of the site's own pages: a few pages the form page links
/// to on its host, its root and its index of pages first, read as text
/// (`reading`: only the index, or those pages). A wiki's search page holds
/// only its menus; its pages hold the words its search finds. The first
/// text field gets them, words already sent and the form page's own words
/// left out. The pages read are kept in `site` (each read once): a list of
/// theirs may hold every record the search finds ([`super::index`]).
async fn site_word_probes(
    fetcher: &Fetcher,
    inputs: &[Input],
    sent: &[Sent],
    form_page: &Page,
    url: &Url,
    reading: Reading,
    site: &mut Vec<SitePage>,
) -> Result<Vec<(Option<usize>, Pairs)>, SurfaceError> {
    let Some(t) = inputs.iter().position(|i| i.text) else {
        return Ok(Vec::new());
    };
    let links = crate::links::PageLinks::of(form_page, url);
    let own = crate::links::document_key(url);
    // The root and an index of pages hold the site's content's words, where
    // an "about" or "help" page holds the software's.
    let mut candidates = links.classified();
    candidates.retain(|(link, _)| reading == Reading::Pages || names_an_index(link));
    candidates.sort_by_key(|(link, _)| {
        let root = link.target.as_ref().is_some_and(|t| t.path() == "/");
        (!root, !is_index_link(link))
    });
    let mut targets: Vec<Url> = Vec::new();
    for (link, _) in candidates {
        let Some(target) = link.target.clone() else {
            continue;
        };
        let key = crate::links::document_key(&target);
        if target.host_str() != url.host_str()
            || !read_for_words(&target)
            || key == own
            || targets.iter().any(|t| crate::links::document_key(t) == key)
        {
            continue;
        }
        targets.push(target);
        if targets.len() == SITE_PAGES {
            break;
        }
    }
    for target in targets {
        let key = crate::links::document_key(&target);
        let read = |p: &SitePage| crate::links::document_key(&p.request.url) == key;
        if site.iter().any(read) {
            continue;
        }
        // A page that cannot be read gives no words; the others still do.
        let request = crate::fetch::Request::get(target);
        let response = match fetcher.fetch(&request).await {
            Ok(answer) => answer,
            Err(e) => {
                tracing::info!("{e}: read for words, left out");
                continue;
            }
        };
        if (200..300).contains(&response.status) {
            let page = Page::from_bytes(&response.body, response.content_type.as_deref());
            site.push(SitePage {
                request,
                response,
                page,
            });
        }
    }
    let mut text = String::new();
    for p in site.iter() {
        text.push_str(&p.page.text());
        text.push('\n');
    }
    let form_words = form_words(form_page);
    let name = &inputs[t].name;
    Ok(crate::words::page_words(&text, super::SEED_WORDS * 2)
        .into_iter()
        .filter(|w| !form_words.contains(&w.to_lowercase()) && !sent_value(sent, t, w))
        .take(PROBE_WORDS)
        .map(|w| (Some(t), vec![(name.clone(), w)]))
        .collect())
}

/// The form page's own words (lower case), which other probes leave out:
/// those the probes of the page's words tried already.
fn form_words(form_page: &Page) -> BTreeSet<String> {
    crate::words::seed_words(form_page, super::SEED_WORDS)
        .words
        .into_iter()
        .map(|w| w.to_lowercase())
        .collect()
}

/// Words of the rows found that a keyword search is probed with when its
/// answers hold rows but no two hold different ones.
const ANSWER_WORDS: usize = 3;

/// When answers hold rows but all the same ones (a keyword search that
/// took `S%` for the word "s" and found the two titles holding it; the
/// form page's own words found nothing), the first text field is probed
/// with the most frequent words of those rows: they are in the database,
/// and their answers give the rules other rows to compare. Words already
/// sent and the form page's own words are left out.
fn answer_word_probes(
    inputs: &[Input],
    sent: &[Sent],
    rows: &[BTreeSet<String>],
    form_page: &Page,
) -> Vec<(Option<usize>, Pairs)> {
    let Some(t) = inputs.iter().position(|i| i.text) else {
        return Vec::new();
    };
    let found: BTreeSet<&BTreeSet<String>> = rows.iter().filter(|r| !r.is_empty()).collect();
    if found.len() != 1 {
        return Vec::new();
    }
    // The records as the answer lists them, every field of each: the rule
    // that told the rows apart may read only one.
    let found: Vec<String> = sent
        .iter()
        .zip(rows)
        .find(|(_, r)| !r.is_empty())
        .and_then(|(s, _)| {
            let (_, answer) = s.answer.as_ref()?;
            super::default::record_texts(&s.page, &answer.url)
        })
        .unwrap_or_else(|| found.into_iter().flatten().cloned().collect());
    // How many rows hold each word (the first spelling seen).
    let mut held: std::collections::BTreeMap<String, (usize, String)> = Default::default();
    for row in &found {
        let words: BTreeSet<String> = crate::words::words(row).collect();
        for w in words {
            held.entry(w.to_lowercase()).or_insert((0, w)).0 += 1;
        }
    }
    let form_words = form_words(form_page);
    // A word some of the rows hold and others not brings other rows than
    // these if the search finds it at all; one that every row holds is
    // as often their template (a label, a unit) as their data: last.
    let mut ranked: Vec<(bool, std::cmp::Reverse<usize>, String)> = held
        .into_iter()
        .filter(|(key, (_, w))| !form_words.contains(key) && !sent_value(sent, t, w))
        .map(|(_, (n, w))| (n == found.len(), std::cmp::Reverse(n), w))
        .collect();
    ranked.sort();
    let name = &inputs[t].name;
    ranked
        .into_iter()
        .take(ANSWER_WORDS)
        .map(|(_, _, w)| (Some(t), vec![(name.clone(), w)]))
        .collect()
}

/// Sends a round of probes (each input's values, the others at their
/// defaults) and keeps their answers.
pub(super) async fn send_probes(
    fetcher: &Fetcher,
    plan: &QueryPlan,
    defaults: &Pairs,
    round: Vec<(Option<usize>, Pairs)>,
    sent: &mut Vec<Sent>,
) -> Result<(), SurfaceError> {
    for (input, values) in round {
        let mut sending = values.clone();
        for (k, v) in defaults {
            if !sending.iter().any(|(n, _)| n == k) {
                sending.push((k.clone(), v.clone()));
            }
        }
        let query = plan.query_with(0, sending);
        let answer = fetcher.fetch(&query.request).await?;
        let page = Page::from_bytes(&answer.body, answer.content_type.as_deref());
        sent.push(Sent {
            input,
            values,
            status: answer.status,
            body: answer.body.to_vec(),
            page,
            answer: Some((query.request, answer)),
        });
    }
    Ok(())
}

/// For each choice whose answers (with the form as it stands) hold fewer
/// than two different non-empty sets of rows, its next value not sent
/// yet: a choice is not judged on one value (a region whose one probed
/// value listed rows, the others unknown). A choice sent beside a text
/// field is not counted.
pub(super) fn second_values(
    inputs: &[Input],
    sent: &[Sent],
    rows: &[BTreeSet<String>],
) -> Vec<(Option<usize>, Pairs)> {
    let mut out = Vec::new();
    for (i, input) in inputs.iter().enumerate().filter(|(_, i)| !i.text) {
        let alone: Vec<(&Sent, &BTreeSet<String>)> = sent
            .iter()
            .zip(rows)
            .filter(|(s, _)| s.input == Some(i) && s.values.len() == 1)
            .collect();
        if alone.len() >= 2 {
            continue;
        }
        let mut sets: Vec<&BTreeSet<String>> = alone.iter().map(|(_, r)| *r).collect();
        sets.push(&rows[0]);
        let distinct: BTreeSet<&BTreeSet<String>> =
            sets.into_iter().filter(|r| !r.is_empty()).collect();
        if distinct.len() >= 2 {
            continue;
        }
        let next = input
            .more
            .iter()
            .find(|v| !alone.iter().any(|(s, _)| s.values[0].1 == **v));
        if let Some(v) = next {
            out.push((Some(i), vec![(input.name.clone(), v.clone())]));
        }
    }
    out
}

/// The second round of a text field's prefix probes: for each wildcard
/// whose first letter brought rows, a second letter and a digit with it.
pub(super) fn prefix_follow_ups(
    inputs: &[Input],
    sent: &[Sent],
    rows: &[BTreeSet<String>],
) -> Vec<(Option<usize>, Pairs)> {
    let mut out = Vec::new();
    for (i, input) in inputs.iter().enumerate().filter(|(_, i)| i.text) {
        for w in WILDCARDS {
            if !wildcard_works(sent, rows, i, w) {
                continue;
            }
            for c in PROBE_LETTERS[1..].iter().chain([&PROBE_DIGIT]) {
                out.push((Some(i), vec![(input.name.clone(), format!("{c}{w}"))]));
            }
        }
    }
    out
}

/// Letters in the order they most often begin a word (English and
/// German), for more prefix probes.
const LETTER_ORDER: &str = "SMCPBATDRHFGLWKENOIUVJYZQX";

/// Letters probed with one wildcard at most.
const MOST_LETTERS: usize = 12;

/// While no rule reads rows yet (a single answer with rows is too few),
/// three more letters with each wildcard whose first letter brought a
/// long answer.
pub(super) fn more_letters(
    inputs: &[Input],
    sent: &[Sent],
    rows: &[BTreeSet<String>],
) -> Vec<(Option<usize>, Pairs)> {
    if !rows.iter().all(BTreeSet::is_empty) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (i, input) in inputs.iter().enumerate().filter(|(_, i)| i.text) {
        for w in WILDCARDS {
            if !wildcard_works(sent, rows, i, w) {
                continue;
            }
            let tried: Vec<char> = LETTER_ORDER
                .chars()
                .filter(|c| sent_value(sent, i, &format!("{c}{w}")))
                .collect();
            if tried.len() >= MOST_LETTERS {
                continue;
            }
            let next = LETTER_ORDER.chars().filter(|c| !tried.contains(c)).take(3);
            for c in next {
                out.push((Some(i), vec![(input.name.clone(), format!("{c}{w}"))]));
            }
        }
    }
    out
}

/// Whether the first letter with wildcard `w` brought rows to text field
/// `i`; before a rule reads rows, whether its answer is well longer than
/// the shortest answer (one with rows stands out so).
fn wildcard_works(sent: &[Sent], rows: &[BTreeSet<String>], i: usize, w: char) -> bool {
    let first = format!("{}{w}", PROBE_LETTERS[0]);
    if !rows.iter().all(BTreeSet::is_empty) {
        return probe_rows(sent, rows, i, &first) > 0 && brings_prefix(sent, rows, i, &first);
    }
    let shortest = sent
        .iter()
        .filter(|s| (200..300).contains(&s.status))
        .map(|s| s.body.len())
        .min()
        .unwrap_or(0);
    sent.iter().any(|s| {
        s.input == Some(i)
            && s.values.iter().any(|(_, v)| *v == first)
            && (200..300).contains(&s.status)
            && s.body.len() * 2 > shortest * 3
    })
}

/// Whether the rows the probe `value` (a letter and a wildcard) of input
/// `i` brought start with the letter, or hold a word that does, and do
/// not all hold the probe's text as typed: a search that takes the
/// wildcard literally is a keyword search. Rows the page does not show
/// as a list are judged by the rows the answers' rules read in them.
pub(super) fn brings_prefix(
    sent: &[Sent],
    rows: &[BTreeSet<String>],
    i: usize,
    value: &str,
) -> bool {
    let prefix: String = value.chars().filter(|c| !WILDCARDS.contains(c)).collect();
    let Some(at) = sent
        .iter()
        .position(|s| s.input == Some(i) && s.values.len() == 1 && s.values[0].1 == value)
    else {
        return true;
    };
    let s = &sent[at];
    // The records as the page lists them; where it shows no list (a list
    // of bare links), the rows the answers' rules read.
    s.answer
        .as_ref()
        .and_then(|(_, a)| super::default::prefix_rows(&s.page, &a.url, &prefix, value))
        .or_else(|| {
            let found: Vec<String> = rows.get(at)?.iter().cloned().collect();
            super::default::prefix_texts(&found, &prefix, value)
        })
        .unwrap_or(true)
}

/// Whether a text field of the form is a prefix search (a wildcard
/// works with it): else its words are probed.
fn prefix_search(inputs: &[Input], sent: &[Sent], rows: &[BTreeSet<String>]) -> bool {
    inputs
        .iter()
        .enumerate()
        .any(|(i, input)| input.text && WILDCARDS.iter().any(|&w| wildcard_works(sent, rows, i, w)))
}

/// Whether a probe of input `i` sent `value`.
fn sent_value(sent: &[Sent], i: usize, value: &str) -> bool {
    sent.iter()
        .any(|s| s.input == Some(i) && s.values.iter().any(|(_, v)| v == value))
}

/// The text probe that brought the most rows: its input and value.
fn best_text_probe(
    inputs: &[Input],
    sent: &[Sent],
    rows: &[BTreeSet<String>],
) -> Option<(usize, String)> {
    sent.iter()
        .zip(rows)
        .filter_map(|(s, r)| {
            let t = s.input.filter(|&t| inputs[t].text)?;
            let (_, value) = s.values.iter().find(|(k, _)| *k == inputs[t].name)?;
            (!r.is_empty() && s.values.len() == 1).then(|| (r.len(), t, value.clone()))
        })
        .max_by_key(|(n, t, _)| (*n, std::cmp::Reverse(*t)))
        .map(|(_, t, value)| (t, value))
}

/// A select with no "any" choice whose probes brought nothing while the
/// text fields were empty is probed again with the text field filled
/// (the value whose probe brought the most rows): a form that needs both
/// (a section and the start of a name) answers only then. Only when no
/// select partitions the rows on its own.
pub(super) fn selects_beside_text(
    inputs: &[Input],
    sent: &[Sent],
    rows: &[BTreeSet<String>],
) -> Vec<(Option<usize>, Pairs)> {
    let verdicts = judge(inputs, sent, rows);
    let partitions = |i: usize| !inputs[i].text && !inputs[i].any && verdicts[i].informative;
    if (0..inputs.len()).any(partitions) {
        return Vec::new();
    }
    let Some((t, value)) = best_text_probe(inputs, sent, rows) else {
        return Vec::new();
    };
    // Each value of the select with each of the field's values that
    // brought rows (up to three): with a wildcard, those are queries of
    // the plan, whose answers are taken again.
    let mut filled: Vec<String> = vec![value];
    for (x, r) in sent.iter().zip(rows) {
        if x.input == Some(t) && x.values.len() == 1 && !r.is_empty() {
            let v = &x.values[0].1;
            if !filled.contains(v) && filled.len() < 3 {
                filled.push(v.clone());
            }
        }
    }
    let mut out = Vec::new();
    for (s, input) in inputs.iter().enumerate() {
        if input.text || input.any || verdicts[s].rows > 0 {
            continue;
        }
        for v in &input.probes {
            for f in &filled {
                out.push((
                    Some(s),
                    vec![
                        (input.name.clone(), v.clone()),
                        (inputs[t].name.clone(), f.clone()),
                    ],
                ));
            }
        }
    }
    out
}

/// The inputs of a form the probes vary, with their probe values: never
/// a sorting option, a page size, a honeypot or an account's field
/// ([`crate::form::role`]).
pub(super) fn inputs_of(form: &Form, per_input: usize, seeds: &Seeds) -> Vec<Input> {
    let mut out: Vec<Input> = Vec::new();
    let roles = crate::form::role::roles(form, crate::form::kind::FormKind::Search);
    for (e, role) in form.elements.iter().zip(roles) {
        if e.name.is_empty() || !role.queryable() || out.iter().any(|i| i.name == e.name) {
            continue;
        }
        let (kind, choices, text) = match &e.kind {
            ElementKind::Select { options, .. } => ("select", options.clone(), false),
            ElementKind::Radio { choices } => ("radio", choices.clone(), false),
            ElementKind::Checkbox { choices } => ("checkboxes", choices.clone(), false),
            ElementKind::Text { input_type, .. }
                if matches!(input_type.as_str(), "" | "text" | "search") =>
            {
                ("text", Vec::new(), true)
            }
            ElementKind::TextArea { .. } => ("text area", Vec::new(), true),
            _ => continue,
        };
        let mut more = Vec::new();
        let probes = if text {
            let mut p: Vec<String> = WILDCARDS
                .iter()
                .map(|w| format!("{}{w}", PROBE_LETTERS[0]))
                .collect();
            // Every value the page lists, then its most frequent words up to
            // `PROBE_WORDS` in all.
            p.extend(
                seeds
                    .words
                    .iter()
                    .take(PROBE_WORDS.max(seeds.listed))
                    .cloned(),
            );
            p
        } else {
            let default = e.default_values().into_iter().next();
            let values: Vec<&Choice> = choices
                .iter()
                .filter(|c| Some(&c.value) != default.as_ref() && !means_any(c))
                .collect();
            if values.is_empty() || choices.len() < 2 {
                continue;
            }
            let n = per_input.min(values.len());
            let probes: Vec<String> = (0..n)
                .map(|k| values[k * values.len() / n].value.clone())
                .collect();
            // The others, from the middle on.
            let half = values.len() / 2;
            more = values[half..]
                .iter()
                .chain(&values[..half])
                .map(|c| c.value.clone())
                .filter(|v| !probes.contains(v))
                .collect();
            probes
        };
        let any = choices.iter().any(means_any);
        out.push(Input {
            name: e.name.clone(),
            kind,
            probes,
            choices,
            more,
            any,
            text,
        });
    }
    out
}

/// A choice that stands for every value (see [`crate::refine`]).
pub(super) fn means_any(c: &Choice) -> bool {
    crate::refine::means_any(&c.value, &c.label)
}

/// The plan the probes are built from: the first input is its query
/// element (a text field with a placeholder domain); every probe sets its
/// own values with [`QueryPlan::query_with`].
pub(super) fn probe_plan(
    spec: &Spec,
    form: &Form,
    first: &Input,
    url: &Url,
    encoding: &'static encoding_rs::Encoding,
) -> Result<QueryPlan, String> {
    let mut spec = spec.clone();
    spec.query_element = Some(first.name.clone());
    if first.text {
        spec.domains
            .insert(first.name.clone(), Values::List(vec![String::new()]));
    }
    let entries = spec.entries("induced spec").map_err(|e| joined(&e))?;
    let metadata = Metadata::parse(&entries).map_err(|e| joined(&e))?;
    QueryPlan::build(Some(form), &metadata, url, encoding, None).map_err(|e| joined(&e))
}

/// Problems as one line.
fn joined<T: ToString>(problems: &[T]) -> String {
    problems
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_is_named_by_its_links_words_or_its_address_not_by_a_home_page() {
        let url = Url::parse("http://h/search").unwrap();
        let names = |a: &str| {
            let page = Page::parse(&format!("<html><body>{a}</body></html>"));
            crate::links::PageLinks::of(&page, &url)
                .classified()
                .iter()
                .any(|(l, _)| names_an_index(l))
        };
        assert!(names("<a href=\"/alle\">Alle Artikel A–Z</a>"));
        assert!(names("<a href=\"/-/index\">A - Z</a>"));
        assert!(names("<a href=\"/p\">Page Index</a>"));
        assert!(names("<a href=\"/sitemap.html\">Map</a>"));
        assert!(!names("<a href=\"/index.php\">Home</a>"));
        assert!(!names("<a href=\"/index.html?lang=en\">English</a>"));
        assert!(!names("<a href=\"/sitemap.xml\">XML</a>"));
        assert!(!names("<a href=\"/reindexing\">Reindexing news</a>"));
        assert!(!names("<a href=\"/help\">Help</a>"));
    }

    #[test]
    fn pages_of_accounts_and_actions_are_never_read_for_words() {
        let read = |u: &str| read_for_words(&Url::parse(u).unwrap());
        for ok in [
            "http://h/",
            "http://h/-/index",
            "http://h/wiki/All_pages?from=A",
            "http://h/lexikon/alle",
        ] {
            assert!(read(ok), "{ok}");
        }
        for never in [
            "http://h/-/login",
            "http://h/user/Sign-Up",
            "http://h/list/unsubscribe?id=4",
            "http://h/shop?action=add&item=7",
            "http://h/cart/add/7",
            "http://h/poll?vote=2",
            "http://h/page/edit",
            "http://h/style.css",
            "http://h/logo.svg",
        ] {
            assert!(!read(never), "{never}");
        }
    }
}

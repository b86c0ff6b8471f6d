//! The site's own index of the records a keyword search finds.
//!
//! A keyword search reaches its database a word at a time, and no number
//! of words proves that every record was reached. Many sites list every
//! record on a page of their own besides the search: a wiki's page index,
//! an encyclopedia's "all articles A–Z", a catalogue's "browse all". When
//! the probes' answers found records, and a page of the site read while
//! probing links to every one of them from one list, that list is the
//! database's listing: reading it (and its pager) costs a request a page,
//! where learning words costs a query a word and still says "unknown".
//!
//! The evidence asked for, before the search is left for the list:
//!
//! - the answers that hold rows link to at least [`MIN_FOUND`] records
//!   (documents neither the form page nor an answer without rows links
//!   to), from at least two answers with different rows;
//! - one list of the page (records by repetition, [`crate::listing`];
//!   a menu of links counts here) links to every one of them;
//! - the answers' records hold nothing the list does not: each of their
//!   fields is the list entry's own text, or holds the word the probe
//!   searched for (an excerpt around the query's words, which the query
//!   chose, not the record), or is the same on every record (template).
//!
//! A list holding fewer entries than the records found, or none of the
//! answers' fields (a price, a date), leaves the search as it is.

use std::collections::{BTreeMap, BTreeSet};

use url::Url;

use super::Sent;
use crate::fetch::{Request, Response};
use crate::links::{document_key, PageLinks};
use crate::listing::{Listing, Region};
use crate::page::{NodeId, Page};

/// Records the probes must have found, linked from their answers, before
/// a list of the site is taken for the database's.
pub const MIN_FOUND: usize = 5;

/// A page of the site read while probing (for its words).
pub(super) struct SitePage {
    pub request: Request,
    pub response: Response,
    pub page: Page,
}

/// The list of a site page that links to every record the probes found.
pub(super) struct SiteIndex {
    /// Which of the site pages.
    pub at: usize,
    pub listing: Listing,
    pub region: Region,
    /// Records the probes' answers linked to (all of them in the list).
    pub found: usize,
    /// Answers with rows.
    pub answers: usize,
}

/// The documents each `<a href>` of a page leads to, by the anchor's node.
fn link_targets(page: &Page, url: &Url) -> BTreeMap<NodeId, String> {
    let anchors = crate::links::anchors(page);
    PageLinks::of(page, url)
        .classified()
        .into_iter()
        .filter_map(|(l, _)| Some((*anchors.get(l.index)?, document_key(l.target.as_ref()?))))
        .collect()
}

/// The documents the links inside `nodes` (a record) lead to.
fn record_targets(
    page: &Page,
    targets: &BTreeMap<NodeId, String>,
    nodes: &[NodeId],
) -> Vec<String> {
    nodes
        .iter()
        .flat_map(|&n| {
            targets
                .range(n..page.subtree_end(n))
                .map(|(_, t)| t.clone())
        })
        .collect()
}

/// Every document a page links to.
fn linked(page: &Page, url: &Url) -> BTreeSet<String> {
    link_targets(page, url).into_values().collect()
}

/// The site page, among `site`, one of whose lists links to every record
/// the answers with rows link to (module docs).
pub(super) fn site_index(
    site: &[SitePage],
    sent: &[Sent],
    rows: &[BTreeSet<String>],
    form_page: &Page,
    form_url: &Url,
) -> Option<SiteIndex> {
    let with_rows: Vec<(&Sent, &Url)> = sent
        .iter()
        .zip(rows)
        .filter(|(_, r)| !r.is_empty())
        .filter_map(|(s, _)| Some((s, &s.answer.as_ref()?.1.url)))
        .collect();
    let distinct: BTreeSet<&BTreeSet<String>> = rows.iter().filter(|r| !r.is_empty()).collect();
    if distinct.len() < 2 {
        return None;
    }
    // What every page links to: the form page's links, the links of the
    // answers without rows (menus, the search's own links) and those every
    // answer with rows holds (a sort order, an export).
    let mut template = linked(form_page, form_url);
    for (s, r) in sent.iter().zip(rows) {
        if let (true, Some((_, answer))) = (r.is_empty(), &s.answer) {
            template.extend(linked(&s.page, &answer.url));
        }
    }
    let answers_links: Vec<BTreeSet<String>> = with_rows
        .iter()
        .map(|(s, url)| linked(&s.page, url))
        .collect();
    if let Some((first, others)) = answers_links.split_first() {
        template.extend(
            first
                .iter()
                .filter(|t| others.iter().all(|o| o.contains(*t)))
                .cloned(),
        );
    }
    // Nor are the search's own pages records (its pager, another query).
    let searched_at: BTreeSet<&str> = with_rows
        .iter()
        .map(|(_, url)| url.path())
        .chain([form_url.path()])
        .collect();
    let records: BTreeSet<String> = answers_links
        .into_iter()
        .flatten()
        .filter(|t| !template.contains(t))
        .filter(|t| Url::parse(t).is_ok_and(|u| !searched_at.contains(u.path())))
        .collect();
    if records.len() < MIN_FOUND {
        return None;
    }
    let best = site
        .iter()
        .enumerate()
        .filter_map(|(at, site_page)| {
            let url = &site_page.response.url;
            let listing = Listing::read(&site_page.page, url);
            let targets = link_targets(&site_page.page, url);
            // The list that links to every record found, with the most
            // entries: one record an entry (a page index's list), not a
            // letter's group of them.
            let region = listing
                .regions
                .iter()
                .filter(|region| {
                    let held: BTreeSet<String> = region
                        .records
                        .iter()
                        .flat_map(|r| record_targets(&site_page.page, &targets, r))
                        .collect();
                    records.is_subset(&held)
                })
                .max_by_key(|region| region.records.len())?
                .clone();
            Some((at, listing, region))
        })
        .max_by_key(|(_, _, region)| region.records.len())?;
    let (at, listing, region) = best;
    let index = &site[at];
    let entries = entry_texts(&index.page, &index.response.url, &region);
    if !with_rows
        .iter()
        .all(|(s, url)| nothing_beyond(s, url, &entries))
    {
        return None;
    }
    Some(SiteIndex {
        at,
        listing,
        region,
        found: records.len(),
        answers: with_rows.len(),
    })
}

/// Each entry of the list by the document it links to: its text.
fn entry_texts(page: &Page, url: &Url, region: &Region) -> BTreeMap<String, String> {
    let targets = link_targets(page, url);
    (0..region.records.len())
        .filter_map(|r| {
            let target = record_targets(page, &targets, &region.records[r])
                .into_iter()
                .next()?;
            Some((
                target,
                crate::fragment::normalize(&region.record_text(page, r)),
            ))
        })
        .collect()
}

/// Whether an answer's records hold nothing its list entries do not: every
/// field of its records is the entry's text, holds the probe's word, or is
/// the same on every record.
fn nothing_beyond(sent: &Sent, url: &Url, entries: &BTreeMap<String, String>) -> bool {
    let listing = Listing::read(&sent.page, url);
    let targets = link_targets(&sent.page, url);
    // The answer's list: the region (a list of bare links counts) whose
    // records link to the most of the list's entries.
    let listed = |region: &&Region| {
        region
            .records
            .iter()
            .filter(|r| {
                record_targets(&sent.page, &targets, r)
                    .iter()
                    .any(|t| entries.contains_key(t))
            })
            .count()
    };
    let Some(region) = listing
        .regions
        .iter()
        .filter(|r| listed(r) > 0)
        .max_by_key(listed)
    else {
        return false;
    };
    let searched: Vec<String> = sent
        .values
        .iter()
        .flat_map(|(_, v)| {
            crate::words::tokens(v)
                .map(str::to_lowercase)
                .collect::<Vec<_>>()
        })
        .collect();
    let columns = region.columns.len();
    (0..columns).all(|c| {
        let values: Vec<(Option<&String>, String)> = (0..region.records.len())
            .filter_map(|r| {
                let value = region.values.get(r)?.get(c)?.as_ref()?;
                let entry = record_targets(&sent.page, &targets, &region.records[r])
                    .iter()
                    .find_map(|t| entries.get(t));
                Some((entry, crate::fragment::normalize(value)))
            })
            .collect();
        let same: BTreeSet<&String> = values.iter().map(|(_, v)| v).collect();
        same.len() <= 1
            || values
                .iter()
                .all(|(entry, value)| the_entry(*entry, value) || holds_searched(value, &searched))
    })
}

/// Whether a field's value is the list entry's text, bare or decorated
/// (`# Title`, `Title »`): no word of its own besides the entry's.
fn the_entry(entry: Option<&String>, value: &str) -> bool {
    entry.is_some_and(|e| {
        !e.is_empty()
            && value.split_once(e.as_str()).is_some_and(|(before, after)| {
                crate::words::tokens(before)
                    .chain(crate::words::tokens(after))
                    .next()
                    .is_none()
            })
    })
}

/// Whether a field's value holds every word searched for, as a search
/// matches it: a word of the value that starts with it ("Edward" finds
/// "Edwards").
fn holds_searched(value: &str, searched: &[String]) -> bool {
    let lower = value.to_lowercase();
    let words: Vec<&str> = crate::words::tokens(&lower).collect();
    !searched.is_empty()
        && searched
            .iter()
            .all(|w| words.iter().any(|v| v.starts_with(w.as_str())))
}

/// Whether the chosen query element is a keyword field (its words learned
/// from the answers): a text field queried with a list of words.
pub(super) fn keyword_search(inputs: &[super::Input], chosen: &super::Chosen) -> bool {
    matches!(chosen.query.as_slice(), [t] if inputs[*t].text)
        && chosen
            .domains
            .iter()
            .any(|(_, v)| matches!(v, crate::spec::Values::List(_)))
}

/// The plan that reads the site's index instead of learning words: the
/// index's page and its pager, read by the list's rules; the probes sent
/// are reported, the keyword field is left at its default. None when the
/// list has no field a rule reads, or its pager walk is cut short.
pub(super) async fn plan(
    fetcher: &crate::fetch::Fetcher,
    form_url: &Url,
    page: SitePage,
    index: SiteIndex,
    inputs: &[super::Input],
    probes: Vec<super::ProbeReport>,
) -> Result<Option<super::InducedSpec>, super::SurfaceError> {
    let Some(rules) = crate::listing::rules_of(&page.page, &index.region) else {
        return Ok(None);
    };
    let reader = super::default::RowReader::new(rules).one_field_too();
    let at = page.response.url.clone();
    let (found, answers) = (index.found, index.answers);
    let why = |rows: usize, pages: usize, stated: &str| {
        format!(
            "the site's page {at} links to every record the search's answers held ({found} records in {answers} answers) from one list; it lists {rows} rows in {pages} pages{stated}: that list is read, and no word is learned"
        )
    };
    let first = (page.request, page.response, page.page);
    let Some(mut induced) = super::default::listing_plan(
        fetcher,
        form_url.as_str(),
        first,
        &index.listing,
        &reader,
        why,
    )
    .await?
    else {
        return Ok(None);
    };
    let why = induced.page_listing.clone().unwrap_or_default();
    induced.probes = probes;
    induced.inputs = inputs
        .iter()
        .map(|i| super::InputReport {
            name: i.name.clone(),
            kind: i.kind,
            role: super::Role::Unused,
            why: format!("not queried: {why}"),
        })
        .collect();
    Ok(Some(induced))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_is_the_entry_bare_or_decorated_but_not_with_words_of_its_own() {
        let entry = "Kevin J Edwards".to_string();
        assert!(the_entry(Some(&entry), "Kevin J Edwards"));
        assert!(the_entry(Some(&entry), "# Kevin J Edwards"));
        assert!(the_entry(Some(&entry), "Kevin J Edwards »"));
        assert!(!the_entry(Some(&entry), "Kevin J Edwards, 1962, Compton"));
        assert!(!the_entry(Some(&entry), "Kevin Edwards"));
        assert!(!the_entry(None, "Kevin J Edwards"));
    }

    #[test]
    fn an_excerpt_holds_the_searched_word_as_the_search_matched_it() {
        let searched = vec!["edward".to_string()];
        assert!(holds_searched("… Kevin J Edwards died on …", &searched));
        assert!(holds_searched("Edward Song Lee", &searched));
        assert!(!holds_searched("USA, 1970: 6 cylinders", &searched));
        // A word that holds the searched one inside is not matched.
        assert!(!holds_searched("Fairedward", &searched));
        assert!(!holds_searched("anything", &[]));
    }

    fn page(html: &str) -> Page {
        Page::parse(html)
    }

    #[test]
    fn the_entries_of_a_list_are_read_by_the_document_they_link_to() {
        let url = Url::parse("http://wiki.test/-/index").unwrap();
        let html = "<html><body><nav><a href=\"/\">Home</a> <a href=\"/-/index\">Index</a></nav>\
            <ul><li><a href=\"/Aaron Ratinoff\">Aaron Ratinoff</a></li>\
            <li><a href=\"/Betty Jackson\">Betty Jackson</a></li>\
            <li><a href=\"/Carol Benson\">Carol Benson</a></li>\
            <li><a href=\"/Dwight Taylor\">Dwight Taylor</a></li></ul></body></html>";
        let p = page(html);
        let listing = Listing::read(&p, &url);
        let region = listing
            .regions
            .iter()
            .max_by_key(|r| r.records.len())
            .unwrap();
        let entries = entry_texts(&p, &url, region);
        assert_eq!(
            entries
                .get("http://wiki.test/Betty%20Jackson")
                .map(String::as_str),
            Some("Betty Jackson")
        );
        assert_eq!(entries.len(), 4, "{entries:?}");
    }
}

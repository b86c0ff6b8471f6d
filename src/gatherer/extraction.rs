//! Extraction: a result page parsed and the HEL rules evaluated on it,
//! its values, records, links and the numbers it states.

use url::Url;

use crate::fetch::Response;
use crate::fragment::IndexFragment;
use crate::hel::{RowNodes, Rule};
use crate::links::{LinkKind, PageLinks};
use crate::page::Page;
use crate::record::{Record, RecordRules};

/// What the rules found on one result page, and its links.
pub(super) struct Extracted {
    pub(super) links: crate::page::Links,
    /// The links of the page's pagers (navigation detection).
    pub(super) pagers: crate::page::Links,
    pub(super) fragment: IndexFragment,
    pub(super) records: Vec<Record>,
    pub(super) warnings: Vec<String>,
    /// Each rule's values in document order.
    pub(super) lists: Vec<(String, Vec<String>)>,
    /// The provider's hit count (`DB.ResultCount`), when asked for.
    pub(super) hits: Option<u64>,
    /// The numbers the page states next to a word of counting, when asked
    /// for ([`crate::refine::stated_numbers`]).
    pub(super) stated: Vec<(String, u64)>,
    /// The page's rows, where the rules describe rows (records).
    pub(super) rows: u64,
    /// The post-back links of the page's pager, when asked for
    /// ([`crate::navigate::postback::links`]).
    pub(super) postbacks: Vec<crate::navigate::postback::PostbackLink>,
}

/// The values and records the rules read on kept result pages (no
/// request), all of them together.
pub(super) fn extract_kept<'a>(
    rules: &[(String, Rule)],
    records: &RecordRules,
    pages: impl IntoIterator<Item = &'a crate::store::KeptPage>,
) -> (IndexFragment, Vec<Record>) {
    let mut fragment = IndexFragment::new();
    let mut found = Vec::new();
    for page in pages {
        let (extracted, _) = extract_tree(
            rules,
            records,
            &page.url,
            &page.body,
            page.content_type.as_deref(),
            None,
        );
        fragment.merge(&extracted.fragment);
        found.extend(extracted.records);
    }
    (fragment, found)
}

/// [`extract_tree`] of a fetched result page; when `pagers` says so of the
/// page's links, its pagers' links too, for a navigator that detects the
/// next pages itself; `result_count` (`DB.ResultCount`) is read too when
/// given; with `stated`, the numbers the page states; with `postbacks`,
/// the post-back links of its pager.
pub(super) fn extract(
    rules: &[(String, Rule)],
    records: &RecordRules,
    response: &Response,
    pagers: impl FnOnce(&crate::page::Links) -> bool,
    result_count: Option<&Rule>,
    stated: bool,
    postbacks: bool,
) -> Extracted {
    let (mut extracted, page) = extract_tree(
        rules,
        records,
        response.url.as_str(),
        &response.body,
        response.content_type.as_deref(),
        result_count,
    );
    if stated {
        extracted.stated = crate::refine::stated_numbers(&page.text());
    }
    if pagers(&extracted.links) {
        extracted.pagers = pager_links(&page, &response.url);
    }
    if postbacks {
        extracted.postbacks = crate::navigate::postback::links(&page);
    }
    extracted
}

/// The links of a page's pagination groups ([`crate::links`]).
fn pager_links(page: &Page, url: &Url) -> crate::page::Links {
    PageLinks::of(page, url)
        .classified()
        .into_iter()
        .filter(|(_, kind)| *kind == LinkKind::Pagination)
        .map(|(l, _)| crate::page::Link {
            href: &l.href,
            text: &l.text,
        })
        .collect()
}

/// Parses a result page and evaluates the rules on it (`records` tells
/// which of them make records); the extracted values and links, and the
/// page's tree.
pub(super) fn extract_tree(
    rules: &[(String, Rule)],
    records: &RecordRules,
    url: &str,
    body: &[u8],
    content_type: Option<&str>,
    result_count: Option<&Rule>,
) -> (Extracted, Page) {
    let page = Page::from_bytes(body, content_type);
    let mut fragment = IndexFragment::new();
    let mut warnings = Vec::new();
    let mut values = Vec::with_capacity(rules.len());
    let mut rows = Vec::with_capacity(rules.len());
    let mut lists = Vec::with_capacity(rules.len());
    let hits = result_count.and_then(|rule| {
        rule.evaluate(&page)
            .value
            .flatten()
            .iter()
            .find_map(|text| crate::refine::first_number(text))
    });
    for (attribute, rule) in rules {
        let (evaluation, nodes) = if records.is_empty() {
            (rule.evaluate(&page), RowNodes::default())
        } else {
            rule.evaluate_rows(&page)
        };
        tracing::debug!(attribute, url, value = ?evaluation.value, "rule");
        if let Some(limit) = evaluation.limit {
            warnings.push(format!("{attribute} on {url}: {limit}"));
        }
        let list = evaluation.value.flatten();
        for value in &list {
            fragment.add(attribute, value);
        }
        lists.push((attribute.clone(), list));
        values.push(evaluation.value);
        rows.push(nodes);
    }
    let records = records.records(rules, &values, &rows, &page, url);
    let extracted = Extracted {
        pagers: crate::page::Links::new(),
        links: page.links(),
        fragment,
        rows: record_rows(&records),
        records,
        warnings,
        lists,
        hits,
        stated: Vec::new(),
        postbacks: Vec::new(),
    };
    (extracted, page)
}

/// The rows of a page's records: those of its largest record group (a
/// group's rows are numbered from 0, so a new group starts where the
/// numbers do not go up).
fn record_rows(records: &[Record]) -> u64 {
    let mut most = 0u64;
    let mut group = 0u64;
    let mut last: Option<u64> = None;
    for record in records {
        if last.is_some_and(|l| record.ordinal <= l) {
            most = most.max(group);
            group = 0;
        }
        group += 1;
        last = Some(record.ordinal);
    }
    most.max(group)
}

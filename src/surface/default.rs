//! The default answer first: the form submitted as it stands, read as one
//! page ([`crate::listing::Listing`]: its records, pager and stated total).
//! When it lists records, no select moves them (a select without a choice
//! meaning "any" is sent once with another value: the same records mean
//! it only narrows, or is ignored without a search), and walking its pager
//! reaches the stated total (or nothing says the answer is cut short),
//! that answer is the plan: one query with the form's defaults, its pages
//! walked by the navigator, read by the listing's rules. Otherwise the
//! probes sent here are kept and the inputs are probed
//! ([`super::probe::send_all_probes`]).

use std::collections::BTreeSet;

use url::Url;

use super::probe::send_probes;
use super::{InducedSpec, Input, InputReport, Pairs, ProbeReport, Role, Sent, SurfaceError};
use crate::fetch::{Fetcher, Request};
use crate::form::Form;
use crate::listing::{Listing, ListingRules, TotalKind};
use crate::page::Page;
use crate::plan::QueryPlan;
use crate::record::RecordRules;
use crate::spec::{ResultItem, Spec, Values};

/// Result pages of the default answer walked at most while surfacing.
pub const MAX_WALK: usize = 500;

/// What the default answer showed: the spec it is (when it reaches every
/// row), else the probes sent, for the probing to go on from.
pub(super) enum DefaultAnswer {
    Whole(Box<InducedSpec>),
    /// The probes sent, and the default answer's further pages walked.
    Partial(Vec<Sent>, Vec<(Request, crate::fetch::Response)>),
}

/// The records of a page by a listing's rules, each as its values
/// (the row's identity).
pub(super) fn row_identities(rules: &ListingRules, page: &Page, url: &str) -> BTreeSet<String> {
    let parsed = rules.parsed();
    RecordRules::new(&parsed)
        .page_records(&parsed, page, url)
        .iter()
        .map(|r| {
            r.fields
                .0
                .iter()
                .flat_map(|(_, f)| f.values().iter().cloned())
                .collect::<Vec<_>>()
                .join("\u{1f}")
        })
        .filter(|k| !k.is_empty())
        .collect()
}

/// Sends the form as it stands and judges whether its answer is the
/// whole database (module docs).
pub(super) async fn default_answer(
    fetcher: &Fetcher,
    plan: &QueryPlan,
    form: &Form,
    inputs: &[Input],
    spec: &Spec,
) -> Result<DefaultAnswer, SurfaceError> {
    let defaults = default_values(form, inputs);
    let mut sent: Vec<Sent> = Vec::new();
    send_probes(
        fetcher,
        plan,
        &defaults,
        vec![(None, Vec::new())],
        &mut sent,
    )
    .await?;
    let first = &sent[0];
    let Some(url) = first
        .answer
        .as_ref()
        .filter(|_| (200..300).contains(&first.status))
        .map(|(_, a)| a.url.clone())
    else {
        return Ok(DefaultAnswer::Partial(sent, Vec::new()));
    };
    let listing = Listing::read(&first.page, &url);
    let Some(rules) = listing.rules(&first.page) else {
        return Ok(DefaultAnswer::Partial(sent, Vec::new()));
    };
    let rows = row_identities(&rules, &first.page, url.as_str());
    let next = next_page(&listing, &first.page, &url);
    if rows.len() < 2 {
        return Ok(DefaultAnswer::Partial(sent, Vec::new()));
    }
    // A select without "any" may hold the answer to one of its values:
    // another value tells (the probe the probing sends first anyway).
    let mut moved = false;
    for (i, input) in inputs.iter().enumerate() {
        if input.text || input.any {
            continue;
        }
        let Some(value) = input.probes.first() else {
            continue;
        };
        let round = vec![(Some(i), vec![(input.name.clone(), value.clone())])];
        send_probes(fetcher, plan, &defaults, round, &mut sent).await?;
        let probe = sent.last().expect("just sent");
        let other = row_identities(&rules, &probe.page, url.as_str());
        if other != rows {
            moved = true;
            break;
        }
    }
    if moved {
        return Ok(DefaultAnswer::Partial(sent, Vec::new()));
    }
    // Walk the pager.
    let mut seen_rows = rows.clone();
    let mut pages: Vec<(Request, crate::fetch::Response)> = Vec::new();
    let mut visited: BTreeSet<String> = BTreeSet::from([url.to_string()]);
    let mut next = next;
    let mut cut = false;
    while let Some(at) = next.take() {
        if pages.len() >= MAX_WALK || !visited.insert(at.to_string()) {
            cut = pages.len() >= MAX_WALK;
            break;
        }
        let request = Request::get(at.clone());
        let response = fetcher.fetch(&request).await?;
        if !(200..300).contains(&response.status) {
            cut = true;
            break;
        }
        let page = Page::from_bytes(&response.body, response.content_type.as_deref());
        let found = row_identities(&rules, &page, response.url.as_str());
        let before = seen_rows.len();
        seen_rows.extend(found);
        let read = Listing::read(&page, &response.url);
        let after = next_page(&read, &page, &response.url);
        pages.push((request, response));
        if seen_rows.len() == before {
            break;
        }
        next = after;
    }
    let stated = listing.total.as_ref();
    let short = match stated {
        Some(t) if t.kind == TotalKind::Cap => true,
        Some(t) if t.kind == TotalKind::Records => (seen_rows.len() as u64) < t.count,
        Some(t) if t.kind == TotalKind::Pages => ((pages.len() + 1) as u64) < t.count,
        _ => false,
    };
    if cut || short {
        // The walked pages are answers the gathering may take again.
        sent.extend(pages.into_iter().map(|(request, response)| {
            let page = Page::from_bytes(&response.body, response.content_type.as_deref());
            Sent {
                input: None,
                values: Vec::new(),
                status: response.status,
                body: Vec::new(),
                page,
                answer: Some((request, response)),
            }
        }));
        return Ok(DefaultAnswer::Partial(sent, Vec::new()));
    }
    let why = match stated {
        Some(t) => format!(
            "the form as it stands lists {} rows in {} pages, the {} its answer states (\"{}\")",
            seen_rows.len(),
            pages.len() + 1,
            t.count,
            t.text
        ),
        None => format!(
            "the form as it stands lists {} rows in {} pages, and nothing says the list is cut short",
            seen_rows.len(),
            pages.len() + 1
        ),
    };
    Ok(DefaultAnswer::Whole(Box::new(whole_spec(
        spec, inputs, &defaults, sent, pages, &rules, &why,
    ))))
}

/// The next page of a listing: its pager's next link, else a link of the
/// page that says it leads to the next page ("Next page", `rel="next"`)
/// though no pager group holds it (a lone link under a table).
fn next_page(listing: &Listing, page: &Page, url: &Url) -> Option<Url> {
    if let Some(next) = &listing.pager.next {
        return Some(next.clone());
    }
    let links = crate::links::PageLinks::of(page, url);
    let own = crate::links::document_key(url);
    links
        .classified()
        .into_iter()
        .filter(|(l, _)| {
            l.next
                || matches!(
                    crate::links::pager_label(&l.text),
                    crate::links::Label::Next
                )
        })
        .filter_map(|(l, _)| l.target.clone())
        .find(|t| crate::links::document_key(t) != own)
}

/// The form's default value of the first input (the plan's query
/// element), as the probes send it.
pub(super) fn default_values(form: &Form, inputs: &[Input]) -> Pairs {
    form.element(&inputs[0].name)
        .map(|e| e.default_values())
        .unwrap_or_default()
        .into_iter()
        .take(1)
        .map(|v| (inputs[0].name.clone(), v))
        .collect()
}

/// The spec of a default answer that reaches every row: one query (the
/// first input at its default), the listing's rules.
fn whole_spec(
    spec: &Spec,
    inputs: &[Input],
    defaults: &Pairs,
    sent: Vec<Sent>,
    pages: Vec<(Request, crate::fetch::Response)>,
    rules: &ListingRules,
    why: &str,
) -> InducedSpec {
    let mut spec = spec.clone();
    let first = &inputs[0];
    let value = defaults.first().map(|(_, v)| v.clone()).unwrap_or_default();
    spec.query_element = Some(first.name.clone());
    spec.domains
        .insert(first.name.clone(), Values::List(vec![value.clone()]));
    spec.results.push(ResultItem {
        prefix: Some(rules.prefix.clone()),
        ..ResultItem::default()
    });
    for (attribute, rule) in &rules.rules {
        spec.results.push(ResultItem {
            attribute: Some(attribute.clone()),
            rule: Some(rule.clone()),
            ..ResultItem::default()
        });
    }
    let page = &sent[0].page;
    let samples: Vec<(String, Vec<String>)> = rules
        .parsed()
        .iter()
        .map(|(a, r)| {
            let values: Vec<String> = r.eval(page).flatten().into_iter().take(5).collect();
            (a.clone(), values)
        })
        .collect();
    let inputs_report = inputs
        .iter()
        .enumerate()
        .map(|(i, input)| InputReport {
            name: input.name.clone(),
            kind: input.kind,
            role: if i == 0 { Role::Query } else { Role::Unused },
            why: if i == 0 {
                format!("sent at its default ({value:?}): {why}")
            } else if sent.iter().any(|s| s.input == Some(i)) {
                format!("its other value answered with the same rows: it only narrows; {why}")
            } else {
                format!("not probed: {why}")
            },
        })
        .collect();
    let probes = sent
        .iter()
        .map(|s| ProbeReport {
            values: s.values.clone(),
            rows: s.answer.as_ref().map_or(0, |(_, a)| {
                row_identities(rules, &s.page, a.url.as_str()).len()
            }),
            status: s.status,
        })
        .collect();
    let answers = sent
        .into_iter()
        .filter_map(|s| s.answer)
        .chain(pages)
        .filter(|(_, a)| (200..300).contains(&a.status))
        .collect();
    InducedSpec {
        spec,
        probes,
        inputs: inputs_report,
        unnamed: Vec::new(),
        samples,
        answers,
        left_out: Vec::new(),
        pages: Default::default(),
    }
}

/// Whether an answer's records were brought by a prefix search: most
/// records hold a word that starts with `prefix`, and not every record
/// holds the probe's text `literal` as it was typed (a search that takes
/// `S%` literally brings the rows that contain "S%").
pub(super) fn prefix_rows(page: &Page, url: &Url, prefix: &str, literal: &str) -> Option<bool> {
    let listing = Listing::read(page, url);
    let region = listing.main()?;
    let texts: Vec<String> = (0..region.records.len())
        .map(|r| region.record_text(page, r).to_lowercase())
        .collect();
    if texts.is_empty() {
        return None;
    }
    let (prefix, literal) = (prefix.to_lowercase(), literal.to_lowercase());
    if texts.iter().all(|t| t.contains(&literal)) {
        return Some(false);
    }
    let fits = texts
        .iter()
        .filter(|t| {
            t.split(|c: char| !c.is_alphanumeric())
                .any(|w| w.starts_with(&prefix))
        })
        .count();
    Some(fits * 2 >= texts.len())
}

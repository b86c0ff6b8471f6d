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
use crate::hel::Rule;
use crate::listing::Pager;
use crate::listing::{Listing, ListingRules, TotalKind};
use crate::page::Page;
use crate::plan::QueryPlan;
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

/// Reads the records of a page by a listing's rules, parsed once, each
/// record as its values (the row's identity).
pub(super) struct RowReader {
    rules: ListingRules,
    parsed: Vec<(String, Rule)>,
    /// A list of one field (titles) counts as records: on the answers to
    /// probes, not on a form page, whose lists of one field are as often
    /// its own controls' labels.
    one_field: bool,
}

impl RowReader {
    pub(super) fn new(rules: ListingRules) -> RowReader {
        let parsed = rules.record_parsed();
        RowReader {
            rules,
            parsed,
            one_field: false,
        }
    }

    /// The same, a list of one field (titles) read as records.
    pub(super) fn one_field_too(self) -> RowReader {
        RowReader {
            one_field: true,
            ..self
        }
    }

    /// Whether the template of the answers splits a field these records
    /// hold whole: no rule of `induction` reads most of the field's
    /// values on the answers (a title the query's highlighted words cut
    /// into pieces).
    pub(super) fn splits(&self, induction: &crate::induce::Induction, answers: &[&Sent]) -> bool {
        let slots: Vec<BTreeSet<&String>> = induction
            .slots
            .iter()
            .map(|s| s.values.iter().flatten().collect())
            .collect();
        self.parsed.iter().any(|(_, rule)| {
            let field: BTreeSet<String> = answers
                .iter()
                .flat_map(|s| rule.eval(&s.page).flatten())
                .map(|v| crate::fragment::normalize(&v))
                .filter(|v| !v.is_empty())
                .collect();
            field.len() >= 2
                && !slots.iter().any(|slot| {
                    let held = field.iter().filter(|v| slot.contains(v)).count();
                    held * 5 >= field.len() * 4
                })
        })
    }

    /// Writes the rules into the spec's results (the prefix first); each
    /// attribute's first values on `page`.
    pub(super) fn write_results(&self, spec: &mut Spec, page: &Page) -> Vec<(String, Vec<String>)> {
        spec.results.push(ResultItem {
            prefix: Some(self.rules.prefix.clone()),
            ..ResultItem::default()
        });
        for (attribute, rule) in &self.rules.rules {
            spec.results.push(ResultItem {
                attribute: Some(attribute.clone()),
                rule: Some(rule.clone()),
                ..ResultItem::default()
            });
        }
        self.rules
            .parsed()
            .iter()
            .map(|(a, r)| {
                let values: Vec<String> = r.eval(page).flatten().into_iter().take(5).collect();
                (a.clone(), values)
            })
            .collect()
    }

    /// The rows of a page at `url`.
    pub(super) fn rows(&self, page: &Page, url: &str) -> BTreeSet<String> {
        let records = if self.one_field || self.parsed.len() > 1 {
            crate::listing::read_records(&self.parsed, page, url)
        } else {
            Vec::new()
        };
        records
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
    let reader = RowReader::new(rules);
    let rows = reader.rows(&first.page, url.as_str());
    let next = next_page(&first.page, &url);
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
        let other = reader.rows(&probe.page, url.as_str());
        if other != rows {
            moved = true;
            break;
        }
    }
    if moved {
        return Ok(DefaultAnswer::Partial(sent, Vec::new()));
    }
    // Walk the pager.
    let Walk {
        seen_rows,
        pages,
        short,
        ..
    } = walk(fetcher, &reader, &listing, rows, &url, next).await?;
    if short {
        // The walked pages are answers the gathering may take again.
        sent.extend(
            pages
                .into_iter()
                .map(|(request, response, page)| Sent::walked(request, response, page)),
        );
        return Ok(DefaultAnswer::Partial(sent, Vec::new()));
    }
    let pages = answers_of(pages);
    let stated = listing.total.as_ref();
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
        spec, inputs, &defaults, sent, pages, &reader, &why,
    ))))
}

/// A default answer's pager walked.
struct Walk {
    /// The rows of every page walked (their identities).
    seen_rows: BTreeSet<String>,
    /// The pages after the first, with their requests and their trees.
    pages: Vec<(Request, crate::fetch::Response, Page)>,
    /// The next links followed, in order.
    nexts: Vec<Url>,
    /// The walk was cut (a page failed, the walk's cap) or reached fewer
    /// rows (or pages) than the first page states.
    short: bool,
}

/// Walks a listing's pager from its first page (`rows`, at `url`) while
/// pages bring new rows, and weighs what it reached against the total
/// the first page states.
async fn walk(
    fetcher: &Fetcher,
    reader: &RowReader,
    listing: &Listing,
    rows: BTreeSet<String>,
    url: &Url,
    next: Option<Url>,
) -> Result<Walk, SurfaceError> {
    let mut seen_rows = rows;
    let mut pages: Vec<(Request, crate::fetch::Response, Page)> = Vec::new();
    let mut visited: BTreeSet<String> = BTreeSet::from([url.to_string()]);
    let mut next = next;
    let mut cut = false;
    let mut nexts = Vec::new();
    while let Some(at) = next.take() {
        if pages.len() >= MAX_WALK || !visited.insert(at.to_string()) {
            cut = pages.len() >= MAX_WALK;
            break;
        }
        nexts.push(at.clone());
        let request = Request::get(at.clone());
        // A page of the pager that cannot be read (a 404, a timeout after
        // the retries) cuts the walk short: the answer is not taken whole,
        // and the inputs are probed for the rest.
        let response = match fetcher.fetch(&request).await {
            Ok(r) if (200..300).contains(&r.status) => r,
            Ok(r) => {
                tracing::info!("{at}: HTTP {}: the walk of the pager stops here", r.status);
                cut = true;
                break;
            }
            Err(e) => {
                tracing::info!("{e}: the walk of the pager stops here");
                cut = true;
                break;
            }
        };
        let page = Page::from_bytes(&response.body, response.content_type.as_deref());
        let found = reader.rows(&page, response.url.as_str());
        let before = seen_rows.len();
        seen_rows.extend(found);
        let after = next_page(&page, &response.url);
        pages.push((request, response, page));
        if seen_rows.len() == before {
            break;
        }
        next = after;
    }
    let short = match listing.total.as_ref() {
        Some(t) if t.kind == TotalKind::Cap => true,
        Some(t) if t.kind == TotalKind::Records => (seen_rows.len() as u64) < t.count,
        Some(t) if t.kind == TotalKind::Pages => ((pages.len() + 1) as u64) < t.count,
        _ => false,
    };
    Ok(Walk {
        seen_rows,
        pages,
        nexts,
        short: cut || short,
    })
}

/// The listing the form page itself shows (a table browser's page, an
/// issue tracker's query page: the rows under the form). When the page
/// lists records and has a pager or states its total, the pager is walked;
/// when the walk reaches the stated total, or the pager ends and nothing
/// says the list is cut short, the page is the plan: the page itself asked
/// as a script without parameters (`DB.QueryScript`), its pages walked by
/// the navigator, read by the listing's rules. No form is submitted.
/// A page without a pager and without a total (a teaser of the latest
/// rows beside a search box) is not taken for the whole list.
pub(super) async fn page_listing(
    fetcher: &Fetcher,
    resp: &crate::fetch::Response,
    page: &Page,
    base: &Spec,
) -> Result<Option<InducedSpec>, SurfaceError> {
    let url = resp.url.clone();
    let listing = Listing::read(page, &url);
    let Some(rules) = listing.rules(page) else {
        return Ok(None);
    };
    let reader = RowReader::new(rules);
    let rows = reader.rows(page, url.as_str());
    let next = next_page(page, &url);
    if rows.len() < 2 || (next.is_none() && listing.total.is_none()) {
        return Ok(None);
    }
    let first = (Request::get(url), resp.clone(), page.clone());
    let why = |rows: usize, pages: usize, stated: &str| {
        format!("the form page itself lists {rows} rows in {pages} pages{stated}: no form is sent")
    };
    listing_plan(fetcher, &base.url, first, &listing, &reader, why).await
}

/// A listing read instead of the form (the form page's own, the site's
/// index of what the search finds): its pager walked from its first page
/// while pages bring new rows. When the walk reaches the stated total, or
/// the pager ends and nothing says the list is cut short, the spec is the
/// listing's page asked as a script without parameters
/// (`DB.QueryScript`), its pages walked by the navigator, read by
/// `reader`; `why` says so from the rows and pages reached and the total
/// stated. None when the walk was cut short.
pub(super) async fn listing_plan(
    fetcher: &Fetcher,
    base: &str,
    first: (Request, crate::fetch::Response, Page),
    listing: &Listing,
    reader: &RowReader,
    why: impl FnOnce(usize, usize, &str) -> String,
) -> Result<Option<InducedSpec>, SurfaceError> {
    let (request, resp, page) = first;
    let url = resp.url.clone();
    let rows = reader.rows(&page, url.as_str());
    let next = next_page(&page, &url);
    let Walk {
        seen_rows,
        pages,
        nexts,
        short,
    } = walk(fetcher, reader, listing, rows, &url, next).await?;
    if short {
        return Ok(None);
    }
    let pages = answers_of(pages);
    let stated = match &listing.total {
        Some(t) => format!(", the {} it states (\"{}\")", t.count, t.text),
        None => ", and nothing says the list is cut short".to_string(),
    };
    let why = why(seen_rows.len(), pages.len() + 1, &stated);
    let spec = Spec {
        url: base.to_string(),
        query_script: Some(url.to_string()),
        // The pager walked, and no other link (a column's sort order).
        navigation_url: navigation_pattern(&nexts),
        ..Spec::default()
    };
    let first = Sent::walked(request, resp, page);
    let mut induced = whole_spec(&spec, &[], &Vec::new(), vec![first], pages, reader, &why);
    // The listing's page is no probe: nothing was sent besides its pager.
    induced.probes.clear();
    induced.page_listing = Some(why);
    Ok(Some(induced))
}

/// The pattern of the next links a walk followed (`DB.NavigationURL`):
/// the first of them with each parameter whose value changed from one to
/// the next as `*` (`?_next=*`, `?…&page=*`). None from fewer than two
/// links, or when the links differ in anything but parameter values.
fn navigation_pattern(nexts: &[Url]) -> Option<String> {
    let [first, second, ..] = nexts else {
        return None;
    };
    if first[..url::Position::AfterPath] != second[..url::Position::AfterPath] {
        return None;
    }
    let pairs = |u: &Url| -> Vec<(String, String)> {
        u.query()
            .unwrap_or_default()
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| match p.split_once('=') {
                Some((k, v)) => (k.to_string(), v.to_string()),
                None => (p.to_string(), String::new()),
            })
            .collect()
    };
    let (a, b) = (pairs(first), pairs(second));
    if a.len() != b.len() || a.iter().zip(&b).any(|((k, _), (l, _))| k != l) {
        return None;
    }
    let query: Vec<String> = a
        .iter()
        .zip(&b)
        .map(|((k, v), (_, w))| {
            if v == w {
                format!("{k}={v}")
            } else {
                format!("{k}=*")
            }
        })
        .collect();
    (a != b).then(|| format!("{}?{}", &first[..url::Position::AfterPath], query.join("&")))
}

/// The next page of a listing: its pager's next link, else a link of the
/// page that says it leads to the next page ("Next page", `rel="next"`)
/// though no pager group holds it (a lone link under a table).
fn next_page(page: &Page, url: &Url) -> Option<Url> {
    let links = crate::links::PageLinks::of(page, url);
    if let Some(next) = Pager::of(&links).next {
        return Some(next);
    }
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

/// The walked pages as answers the gathering takes again.
fn answers_of(
    pages: Vec<(Request, crate::fetch::Response, Page)>,
) -> Vec<(Request, crate::fetch::Response)> {
    pages.into_iter().map(|(q, a, _)| (q, a)).collect()
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
    reader: &RowReader,
    why: &str,
) -> InducedSpec {
    let mut spec = spec.clone();
    let value = defaults.first().map(|(_, v)| v.clone()).unwrap_or_default();
    if let Some(first) = inputs.first() {
        spec.query_element = Some(first.name.clone());
        spec.domains
            .insert(first.name.clone(), Values::List(vec![value.clone()]));
    }
    let samples = reader.write_results(&mut spec, &sent[0].page);
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
            rows: s
                .answer
                .as_ref()
                .map_or(0, |(_, a)| reader.rows(&s.page, a.url.as_str()).len()),
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
        page_listing: None,
    }
}

/// The text of every record an answer lists, read as one page; `None`
/// when it shows no list.
pub(super) fn record_texts(page: &Page, url: &Url) -> Option<Vec<String>> {
    let listing = Listing::read(page, url);
    let region = listing.main()?;
    Some(
        (0..region.records.len())
            .map(|r| region.record_text(page, r))
            .collect(),
    )
}

/// Whether an answer's records were brought by a prefix search: most
/// records hold a word that starts with `prefix`, not every record holds
/// the probe's text `literal` as it was typed (a search that takes `S%`
/// literally brings the rows that contain "S%"), and not every record
/// holds `prefix` as a word of its own (a keyword search that drops the
/// wildcard brings, for `S%`, the rows with the word "s": "chevy s-10").
pub(super) fn prefix_rows(page: &Page, url: &Url, prefix: &str, literal: &str) -> Option<bool> {
    prefix_texts(&record_texts(page, url)?, prefix, literal)
}

/// [`prefix_rows`] on the rows' texts; `None` without a row.
pub(super) fn prefix_texts(rows: &[String], prefix: &str, literal: &str) -> Option<bool> {
    let texts: Vec<String> = rows.iter().map(|t| t.to_lowercase()).collect();
    if texts.is_empty() {
        return None;
    }
    let (prefix, literal) = (prefix.to_lowercase(), literal.to_lowercase());
    let words = crate::words::tokens;
    if texts.iter().all(|t| t.contains(&literal))
        || texts.iter().all(|t| words(t).any(|w| w == prefix))
    {
        return Some(false);
    }
    let fits = texts
        .iter()
        .filter(|t| words(t).any(|w| w.starts_with(&prefix)))
        .count();
    Some(fits * 2 >= texts.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pattern_of_the_next_links_stars_what_changes() {
        let u = |s: &str| Url::parse(s).unwrap();
        let trac = [
            u("http://h/query?status=!closed&col=id&col=summary&page=2"),
            u("http://h/query?status=!closed&col=id&col=summary&page=3"),
        ];
        assert_eq!(
            navigation_pattern(&trac).as_deref(),
            Some("http://h/query?status=!closed&col=id&col=summary&page=*")
        );
        let cursor = [u("http://h/t?_next=11J"), u("http://h/t?_next=1V6")];
        assert_eq!(
            navigation_pattern(&cursor).as_deref(),
            Some("http://h/t?_next=*")
        );
        assert_eq!(
            navigation_pattern(&cursor[..1]),
            None,
            "one link shows no change"
        );
        let other = [u("http://h/t?p=2"), u("http://h/u?p=3")];
        assert_eq!(navigation_pattern(&other), None);
    }

    #[test]
    fn rows_that_hold_the_letter_as_a_word_show_no_prefix_search() {
        let answer = |titles: &[&str]| {
            let items: String = titles
                .iter()
                .enumerate()
                .map(|(i, t)| format!("<li><h4><a href=\"/c{i}/\">{t}</a></h4> USA, 197{i}</li>"))
                .collect();
            Page::parse(&format!(
                "<html><body><h1>Search</h1><ul>{items}</ul></body></html>"
            ))
        };
        let url = Url::parse("http://h/search/?query=S%25").unwrap();
        // A keyword search that dropped the wildcard: the word "s".
        let keyword = answer(&["chevy s-10", "chevrolet monte carlo s", "amc s 2"]);
        assert_eq!(prefix_rows(&keyword, &url, "S", "S%"), Some(false));
        // A prefix search: words that start with "s".
        let prefix = answer(&["saab 99e", "subaru dl", "chevy s-10"]);
        assert_eq!(prefix_rows(&prefix, &url, "S", "S%"), Some(true));
    }
}

//! `gather spec --induce`: a spec for a form page that carries no metadata.
//!
//! The form's elements with a determined domain of two or more values
//! (selects, radio groups, checkboxes; seed 003 §4.1, `crate::form`) become
//! the query elements; the plan (`crate::plan`) of that description gives
//! the queries. A few of them are sent — the `k`-th takes the `k`-th value
//! of every domain (wrapping around a shorter one), so that every element
//! varies from one answer to the next: answers that differ only in one
//! element would keep the others' echoes in the template, where they are no
//! slot (seed 001 §6.4: the training pages must vary). The first result page
//! of each answer is a training page; [`crate::induce`] gives the rules.
//!
//! A slot whose value on every answer is the value the query sent for an
//! element (or that value's label) is named after the element; the others
//! are named `slot_N` and listed as unnamed, for the operator to name.

use url::Url;

use super::{induce, Algorithm, Induction};
use crate::fetch::Fetcher;
use crate::form::{forms, Form};
use crate::metadata::{classify, Metadata};
use crate::page::Page;
use crate::plan::{Query, QueryPlan};
use crate::spec::{FormRef, ResultItem, Spec, Values};

/// A spec written from a form page and the answers to a few queries.
#[derive(Debug, Clone)]
pub struct InducedSpec {
    pub spec: Spec,
    /// The queries whose answers were the training pages.
    pub queries: Vec<Query>,
    /// The attributes named `slot_N`, with their values on the first answer.
    pub unnamed: Vec<(String, Vec<String>)>,
}

impl InducedSpec {
    /// The spec as YAML, with a header that says where it comes from and
    /// which slots still need a name.
    pub fn to_yaml(&self) -> String {
        let mut out = format!(
            "# gather spec induced for {} from the answers to {} queries:\n",
            self.spec.url,
            self.queries.len()
        );
        for q in &self.queries {
            let values: Vec<String> = q.values.iter().map(|(k, v)| format!("{k}={v}")).collect();
            out.push_str(&format!("#   {}\n", values.join(", ")));
        }
        if self.unnamed.is_empty() {
            out.push_str("# every slot is named; review the rules before gathering\n");
        } else {
            out.push_str("# slots it could not name (rename them, drop those you do not want):\n");
            for (name, values) in &self.unnamed {
                let shown: Vec<&String> = values.iter().take(3).collect();
                let more = if values.len() > 3 { ", …" } else { "" };
                out.push_str(&format!("#   {name}: {shown:?}{more}\n"));
            }
        }
        out.push_str(&self.spec.to_yaml());
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out
    }
}

/// Why no spec could be induced.
#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    #[error("{0}")]
    Fetch(#[from] crate::fetch::FetchError),
    #[error("{url} carries DB.* metadata: `gather spec {url}` writes its spec")]
    HasMetadata { url: Url },
    #[error("{url}: {message}")]
    Form { url: Url, message: String },
    #[error("{url}: the query {query} answered with status {status}")]
    Status {
        url: Url,
        query: String,
        status: u16,
    },
    #[error("{url}: {0}", url = .1)]
    Induce(super::InduceError, Url),
}

/// Fetches the form page, sends `queries` queries (at least two) and
/// induces the spec (see the module docs).
pub async fn induce_spec(
    url: &Url,
    fetcher: &Fetcher,
    queries: usize,
) -> Result<InducedSpec, SiteError> {
    let resp = fetcher.get(url).await?;
    let decoded = resp.text();
    let page = Page::parse(&decoded.text);
    if page.meta_tags().any(|(name, _)| classify(name).is_some()) {
        return Err(SiteError::HasMetadata { url: resp.url });
    }
    let form_error = |message: String| SiteError::Form {
        url: resp.url.clone(),
        message,
    };
    let all = forms(&page, &resp.url, decoded.encoding).map_err(|e| form_error(e.to_string()))?;
    let form = all
        .iter()
        .find(|f| !query_elements(f).is_empty())
        .ok_or_else(|| {
            form_error(
                "no form has a select, radio group or checkboxes with two or more values; \
                 write the values to query in a spec"
                    .into(),
            )
        })?;
    let names = query_elements(form);
    let mut spec = Spec {
        url: resp.url.to_string(),
        form: (form.index > 0).then_some(FormRef::Index(form.index)),
        ..Spec::default()
    };
    if let [one] = names.as_slice() {
        spec.query_element = Some(one.clone());
    } else {
        spec.query_elements = Some(Values::List(names.clone()));
    }
    let plan = plan(&spec, form, &resp.url, decoded.encoding).map_err(form_error)?;
    let mut sent = Vec::new();
    let mut pages = Vec::new();
    for query in diagonal(&plan, queries.max(2)) {
        let answer = fetcher.fetch(&query.request).await?;
        if !(200..300).contains(&answer.status) {
            return Err(SiteError::Status {
                url: resp.url.clone(),
                query: query.request.url.to_string(),
                status: answer.status,
            });
        }
        pages.push(Page::from_bytes(
            &answer.body,
            answer.content_type.as_deref(),
        ));
        sent.push(query);
    }
    let mut induction = induce(&pages, Algorithm::Approximate)
        .map_err(|e| SiteError::Induce(e, resp.url.clone()))?;
    name_by_queries(&mut induction, form, &sent);
    let mut unnamed = Vec::new();
    for (n, slot) in induction.slots.iter().enumerate() {
        let name = match &slot.name {
            Some(name) => name.clone(),
            None => {
                let name = format!("slot_{}", n + 1);
                unnamed.push((name.clone(), slot.values[0].clone()));
                name
            }
        };
        spec.results.push(ResultItem {
            attribute: Some(name),
            rule: Some(slot.rule.clone()),
            ..ResultItem::default()
        });
    }
    Ok(InducedSpec {
        spec,
        queries: sent,
        unnamed,
    })
}

/// The elements with a determined domain of two or more values.
fn query_elements(form: &Form) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in &form.elements {
        let determined = matches!(
            e.kind,
            crate::form::ElementKind::Select { .. }
                | crate::form::ElementKind::Radio { .. }
                | crate::form::ElementKind::Checkbox { .. }
        );
        if determined
            && !e.name.is_empty()
            && e.domain().is_some_and(|d| d.len() >= 2)
            && !out.contains(&e.name)
        {
            out.push(e.name.clone());
        }
    }
    out
}

fn plan(
    spec: &Spec,
    form: &Form,
    url: &Url,
    encoding: &'static encoding_rs::Encoding,
) -> Result<QueryPlan, String> {
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

/// The `k`-th query takes the `k`-th value of every domain (module docs).
fn diagonal(plan: &QueryPlan, count: usize) -> Vec<Query> {
    let lens: Vec<u64> = plan
        .elements()
        .iter()
        .map(|(_, d)| d.len().max(1))
        .collect();
    let longest = lens.iter().copied().max().unwrap_or(1);
    let mut ordinals: Vec<u64> = Vec::new();
    for k in 0..(count as u64).min(longest) {
        // The plan varies the last element fastest.
        let mut ordinal = 0u64;
        for len in &lens {
            ordinal = ordinal.saturating_mul(*len).saturating_add(k % len);
        }
        if !ordinals.contains(&ordinal) {
            ordinals.push(ordinal);
        }
    }
    ordinals.into_iter().filter_map(|o| plan.query(o)).collect()
}

/// Names the slots that show a query element's value (module docs).
fn name_by_queries(induction: &mut Induction, form: &Form, sent: &[Query]) {
    let Some(first) = sent.first() else {
        return;
    };
    for (element, _) in &first.values {
        let shown: Vec<Vec<String>> = sent
            .iter()
            .map(|q| {
                let value = q
                    .values
                    .iter()
                    .find(|(k, _)| k == element)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default();
                let mut texts = vec![value.clone()];
                if let Some(label) = label_of(form, element, &value) {
                    texts.push(label);
                }
                texts
            })
            .collect();
        induction.name_by_values(element, &shown);
    }
}

/// The visible label of an element's choice.
fn label_of(form: &Form, element: &str, value: &str) -> Option<String> {
    use crate::form::ElementKind;
    let e = form.element(element)?;
    let choices = match &e.kind {
        ElementKind::Select { options, .. } => options,
        ElementKind::Radio { choices } | ElementKind::Checkbox { choices } => choices,
        _ => return None,
    };
    choices
        .iter()
        .find(|c| c.value == value)
        .map(|c| c.label.clone())
}

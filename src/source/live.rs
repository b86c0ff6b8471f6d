//! A stateful form's source: the pages its requests follow
//! ([`crate::plan::live::Chain`]), and the domains of its dependent
//! elements (`DB.QueryElement.<element> = @answer(<parent>)`) read from
//! the answer to each value of their parents, which make the plan a tree.

use crate::fetch::{Fetcher, Response};
use crate::form::Form;
use crate::metadata::{Domain, Metadata};
use crate::plan::live::{form_in, options, Chain};

/// What a stateful form adds to its source.
pub(super) struct Live {
    pub chain: Chain,
    /// The plan's rows when some element is dependent.
    pub rows: Option<Vec<Vec<String>>>,
}

/// The chain of a stateful form and, with dependent elements, the rows of
/// its plan (whose dependent domains are put into `metadata.domains`);
/// `None` for a form that carries no state. The pages `seen` (by the
/// parents' values) are taken instead of asked again. An error names the
/// element.
pub(super) async fn read(
    form: Option<&Form>,
    metadata: &mut Metadata,
    (form_page, seen): (&Response, crate::plan::live::Pages),
    fetcher: &Fetcher,
) -> Result<Option<Live>, (String, String)> {
    let Some(form) = form else {
        return match metadata.answer_domains.keys().next() {
            Some(e) => Err((
                e.clone(),
                "@answer(…) reads the element's options in an answer, but the page has no form"
                    .into(),
            )),
            None => Ok(None),
        };
    };
    let dependents = metadata.answer_domains.clone();
    if dependents.is_empty() && !crate::plan::live::is_stateful(form) {
        return Ok(None);
    }
    let order = &metadata.query_elements;
    for (child, parent) in &dependents {
        let at = |e: &str| order.iter().position(|q| q == e);
        match (at(child), at(parent)) {
            (Some(c), Some(p)) if p < c => {}
            (None, _) => {
                return Err((
                    child.clone(),
                    format!("@answer({parent}) is given for {child:?}, which is not a query element: name it in DB.QueryElements after {parent:?}"),
                ))
            }
            _ => {
                return Err((
                    child.clone(),
                    format!("@answer({parent}): {parent:?} must be a query element named before {child:?} in DB.QueryElements"),
                ))
            }
        }
    }
    // The parents: the elements whose answers dependents read.
    let parents: Vec<String> = order
        .iter()
        .filter(|e| dependents.values().any(|p| p == *e))
        .cloned()
        .collect();
    let chain = Chain::new(form_page.clone(), form.clone(), parents);
    for (chosen, page) in seen {
        chain.keep(chosen, page);
    }
    if dependents.is_empty() {
        return Ok(Some(Live { chain, rows: None }));
    }
    let mut rows: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for element in order {
        let mut next = Vec::new();
        if dependents.contains_key(element) {
            let mut all: Vec<String> = Vec::new();
            for row in &rows {
                let chosen: Vec<(String, String)> = row
                    .iter()
                    .filter(|(n, _)| chain.parents().contains(n))
                    .cloned()
                    .collect();
                let page = chain
                    .page(fetcher, &chosen)
                    .await
                    .map_err(|e| (element.clone(), e.to_string()))?;
                let values = form_in(&page, form)
                    .map(|f| options(&f, element))
                    .unwrap_or_default();
                for v in values {
                    if !all.contains(&v) {
                        all.push(v.clone());
                    }
                    let mut longer = row.clone();
                    longer.push((element.clone(), v));
                    next.push(longer);
                }
            }
            if all.is_empty() {
                return Err((
                    element.clone(),
                    format!(
                        "@answer({}): no answer to a value of {:?} offers a value of {element:?}",
                        dependents[element], dependents[element]
                    ),
                ));
            }
            metadata
                .domains
                .insert(element.clone(), Domain::Values(all));
        } else {
            let domain: Vec<String> = match metadata.domains.get(element) {
                Some(d) => (0..d.len()).filter_map(|i| d.get(i)).collect(),
                None => form
                    .element(element)
                    .and_then(|e| e.domain())
                    .unwrap_or_default(),
            };
            // A parent's placeholder ("choose …") posts back nothing.
            let parent = chain.parents().contains(element);
            for row in &rows {
                for v in domain.iter().filter(|v| !parent || !v.trim().is_empty()) {
                    let mut longer = row.clone();
                    longer.push((element.clone(), v.clone()));
                    next.push(longer);
                }
            }
        }
        rows = next;
    }
    // Fetched once per parent value; the same page serves its queries.
    let rows = rows
        .into_iter()
        .map(|row| row.into_iter().map(|(_, v)| v).collect())
        .collect();
    Ok(Some(Live {
        chain,
        rows: Some(rows),
    }))
}

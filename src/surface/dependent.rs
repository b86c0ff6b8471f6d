//! Dependent selects found from the form page alone: a select whose only
//! choice is a placeholder ("choose an author first") and that gains
//! options in the answer to another select's value is planned as
//! dependent (`DB.QueryElement.<child> = @answer(<parent>)`): its domain
//! is read from the answer to each value of its parent, and the plan is a
//! tree. Choosing the parent submits the form as a browser would (a
//! post-back where the select's `onchange` posts the form); every request
//! is built from the form as the page it follows shows it
//! ([`crate::plan::live`]).
//!
//! The probes: the answer to the parent's first value (which shows the
//! child's options), then a query of the first two children's values for
//! the parent's first two values, whose answers the rules are induced on.
//! The pages fetched are handed to the gathering, which asks none of them
//! again ([`super::InducedSpec::pages`]).

use crate::fetch::{Fetcher, Response};
use crate::form::Form;
use crate::page::Page;
use crate::plan::live::{form_in, options, Chain, LiveError};
use crate::spec::Values;

use super::{Chosen, Input, Sent, SurfaceError};

/// A parent's values probed, and a child's values probed for each.
const PROBED: usize = 2;

/// A dependent select found, with the probes that showed it.
pub(super) struct Dependent {
    parent: String,
    child: String,
    pub(super) sent: Vec<Sent>,
    /// The pages the queries follow, by the parent's value.
    pub(super) pages: crate::plan::live::Pages,
}

fn live_error(e: LiveError) -> SurfaceError {
    match e {
        LiveError::Fetch(e) => SurfaceError::Fetch(e),
        LiveError::NoForm { url, chosen } => SurfaceError::Form {
            url,
            message: format!(
                "the answer to choosing {chosen} holds no form like the one submitted"
            ),
        },
    }
}

/// Finds a select of `form` that offers only a placeholder and gains
/// options in the answer to a value of another select of `inputs`, and
/// sends the probes of its tree; `None` when the form has no such select.
pub(super) async fn probe(
    fetcher: &Fetcher,
    form_page: &Response,
    form: &Form,
    inputs: &[Input],
) -> Result<Option<Dependent>, SurfaceError> {
    let placeholders: Vec<&str> = form
        .elements
        .iter()
        .filter(|e| {
            matches!(
                e.kind,
                crate::form::ElementKind::Select {
                    multiple: false,
                    ..
                }
            )
        })
        .filter(|e| !inputs.iter().any(|i| i.name == e.name) && options(form, &e.name).is_empty())
        .map(|e| e.name.as_str())
        .collect();
    if placeholders.is_empty() {
        return Ok(None);
    }
    for parent in inputs.iter().filter(|i| !i.text && i.kind == "select") {
        let values: Vec<String> = options(form, &parent.name);
        let Some(first) = values.first() else {
            continue;
        };
        let chain = Chain::new(form_page.clone(), form.clone(), vec![parent.name.clone()]);
        let chosen = vec![(parent.name.clone(), first.clone())];
        let answer = chain.page(fetcher, &chosen).await.map_err(live_error)?;
        let Some(filled) = form_in(&answer, form) else {
            continue;
        };
        let Some(child) = placeholders
            .iter()
            .find(|c| !options(&filled, c).is_empty())
        else {
            continue;
        };
        let mut found = Dependent {
            parent: parent.name.clone(),
            child: child.to_string(),
            sent: Vec::new(),
            pages: Vec::new(),
        };
        let at = inputs.iter().position(|i| i.name == parent.name);
        for value in values.iter().take(PROBED) {
            let chosen = vec![(parent.name.clone(), value.clone())];
            let page = chain.page(fetcher, &chosen).await.map_err(live_error)?;
            found.pages.push((chosen.clone(), page.clone()));
            let children = form_in(&page, form)
                .map(|f| options(&f, child))
                .unwrap_or_default();
            for t in children.iter().take(PROBED) {
                let mut values = chosen.clone();
                values.push((child.to_string(), t.clone()));
                let (request, _) = chain.request(fetcher, &values).await.map_err(live_error)?;
                let answer = fetcher.fetch(&request).await?;
                found.sent.push(Sent {
                    input: at,
                    values,
                    status: answer.status,
                    body: answer.body.clone(),
                    page: without_forms(&answer),
                    answer: Some((request, answer)),
                });
            }
        }
        return Ok(Some(found));
    }
    Ok(None)
}

/// An answer's page without its forms: the filled form it echoes (the
/// parent's choice, the child's options) changes with every query but is
/// no data of the provider's, so the rules are not induced on it.
fn without_forms(answer: &Response) -> Page {
    let page = Page::from_bytes(&answer.body, answer.content_type.as_deref());
    let forms: Vec<_> = page
        .label_id("form")
        .map(|form| page.with_label(form).to_vec())
        .unwrap_or_default();
    // Roots in document order, none inside another.
    let mut roots = Vec::new();
    for f in forms {
        if roots.last().is_none_or(|&r| f >= page.subtree_end(r)) {
            roots.push(f);
        }
    }
    page.without_subtrees(&roots)
}

impl Dependent {
    /// The child as an input of the template, after the form's inputs.
    pub(super) fn input(&self) -> Input {
        Input {
            name: self.child.clone(),
            kind: "select",
            probes: Vec::new(),
            choices: Vec::new(),
            more: Vec::new(),
            any: false,
            text: false,
        }
    }

    /// The template: the parent and the child, the child's domain read
    /// from the answer to each of the parent's values.
    pub(super) fn chosen(&self, inputs: &[Input]) -> Option<Chosen> {
        let at = |name: &str| inputs.iter().position(|i| i.name == name);
        Some(Chosen {
            query: vec![at(&self.parent)?, at(&self.child)?],
            refine: Vec::new(),
            domains: vec![(
                self.child.clone(),
                Values::One(format!("@answer({})", self.parent)),
            )],
            why: format!(
                "{} offers only a placeholder on the form page and its options in the answer to a value of {}: its values are read from the answer to each of them",
                self.child, self.parent
            ),
            beside: Vec::new(),
        })
    }
}

//! Which form of a page surfacing probes: the one that looks like a
//! search, not a login, contact or newsletter form.

use url::Url;

use super::probe::inputs_of;
use crate::form::{forms, ElementKind, Form};
use crate::page::Page;
use crate::words::Seeds;

/// The form of a page that surfacing probes, among those with an input to
/// probe: not one that asks for a password (a login or registration), nor
/// one that takes a message or an e-mail address (a contact form, a
/// newsletter), before them; among the rest one that calls itself a
/// search (a search field, a name, action or button saying so) first; then
/// the one with the most inputs, then the first. `None` when no form has
/// an input to probe.
pub fn surfaced_form(all: &[Form]) -> Option<&Form> {
    all.iter()
        .map(|f| (f, inputs_of(f, 1, &Seeds::default()).len()))
        .filter(|(_, n)| *n > 0)
        .max_by_key(|(f, n)| {
            let (account, message, search) = looks(f);
            (!account, !message, search, *n, std::cmp::Reverse(f.index))
        })
        .map(|(f, _)| f)
}

/// Words that name a search in a field, action or button.
const SEARCH_WORDS: [&str; 12] = [
    "q",
    "query",
    "search",
    "keyword",
    "keywords",
    "suche",
    "such",
    "suchbegriff",
    "stichwort",
    "find",
    "recherche",
    "buscar",
];

/// What a form looks like: (asks for a password, takes a message or an
/// e-mail address, calls itself a search).
fn looks(form: &Form) -> (bool, bool, bool) {
    let words = |text: &str| -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let says_search = |text: &str| {
        let lower = text.to_lowercase();
        words(text)
            .iter()
            .any(|w| SEARCH_WORDS.contains(&w.as_str()))
            || lower.contains("search")
            || lower.contains("such")
    };
    let mut account = false;
    let mut message = false;
    let mut search = says_search(form.action.path())
        || form.id.as_deref().is_some_and(says_search)
        || form.name.as_deref().is_some_and(says_search);
    for e in &form.elements {
        let named = |w: &str| words(&e.name).iter().any(|n| n.contains(w));
        match &e.kind {
            ElementKind::Text { input_type, .. } => {
                let t = input_type.to_ascii_lowercase();
                account |= t == "password";
                message |= t == "email" || named("mail");
                search |= t == "search"
                    || says_search(&e.name)
                    || e.label.as_deref().is_some_and(says_search);
            }
            ElementKind::TextArea { .. } => message = true,
            ElementKind::Submit { value, .. } => search |= says_search(value),
            _ => {}
        }
    }
    (account, message, search)
}

/// The inputs of a form that surfacing probes, by name, with their kind
/// (`select`, `radio`, `checkboxes`, `text`, `text area`).
pub fn probed_inputs(form: &Form) -> Vec<(String, &'static str)> {
    inputs_of(form, 1, &Seeds::default())
        .into_iter()
        .map(|i| (i.name, i.kind))
        .collect()
}

/// Whether a page has a form with an input to probe (a select, radio
/// group or checkboxes with two or more values, or a text field).
pub fn has_inputs(page: &Page, url: &Url) -> bool {
    forms(page, url, encoding_rs::UTF_8).is_ok_and(|all| {
        all.iter()
            .any(|f| !inputs_of(f, 1, &Seeds::default()).is_empty())
    })
}

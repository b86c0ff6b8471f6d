//! The parts a one-form provider is built from: its two routes (the form
//! page and the result script), its charset, a select, a query string's
//! parameter, a keyword search over a posting list, a weighted draw. The
//! providers built unlike the CityWorld services ([`super::shelf`],
//! [`super::stellen`], [`super::events`], [`super::pictures`],
//! [`super::annonces`], …) take them from here; the site's router
//! (`server.rs`) routes them.

use std::collections::BTreeMap;

use axum::http::{header, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

/// The value (trimmed) of a parameter of a query string, empty when absent.
pub(crate) fn param(query: Option<&str>, name: &str) -> String {
    super::pages::parse_form(query.unwrap_or("").as_bytes())
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_default()
}

/// What a keyword search finds: the rows (positions) in the posting list
/// of the first word (in the provider's order) that every other word's list
/// holds too; words are compared in lower case.
pub(crate) fn all_words(index: &BTreeMap<String, Vec<usize>>, words: &str) -> Vec<usize> {
    let wanted: Vec<String> = words.split_whitespace().map(str::to_lowercase).collect();
    let Some((first, rest)) = wanted.split_first() else {
        return Vec::new();
    };
    let Some(found) = index.get(first) else {
        return Vec::new();
    };
    found
        .iter()
        .copied()
        .filter(|at| {
            rest.iter()
                .all(|w| index.get(w).is_some_and(|l| l.contains(at)))
        })
        .collect()
}

/// One of `choices` (value, label, weight), drawn by weight.
pub(crate) fn weighted(
    rng: &mut impl rand::Rng,
    choices: &[(&'static str, &'static str, u32)],
) -> &'static str {
    let total: u32 = choices.iter().map(|c| c.2).sum();
    let mut pick = rng.gen_range(0..total.max(1));
    for (value, _, weight) in choices {
        if pick < *weight {
            return value;
        }
        pick -= weight;
    }
    choices.first().map_or("", |c| c.0)
}

/// How a provider encodes its pages.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Charset {
    Utf8,
    Latin1,
}

/// The two routes of a one-form provider: its form page at `path`, and
/// its result script at `script`, which answers from the request's URI.
pub(crate) fn provider<S: Clone + Send + Sync + 'static>(
    path: &'static str,
    script: &'static str,
    charset: Charset,
    form_page: fn() -> String,
    results: fn(&Uri) -> String,
) -> Router<S> {
    Router::new()
        .route(path, get(move || async move { page(charset, form_page()) }))
        .route(
            script,
            get(move |uri: Uri| async move { page(charset, results(&uri)) }),
        )
}

fn page(charset: Charset, body: String) -> Response {
    match charset {
        Charset::Utf8 => {
            ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response()
        }
        Charset::Latin1 => (
            [(header::CONTENT_TYPE, "text/html; charset=ISO-8859-1")],
            super::pages::latin1(&body),
        )
            .into_response(),
    }
}

/// A select in lower-case markup: an option for "any" first when given,
/// then `(value, label)` pairs.
pub(crate) fn select(name: &str, any: Option<&str>, list: &[(String, String)]) -> String {
    use std::fmt::Write as _;
    let mut out = format!("<select name=\"{name}\">");
    if let Some(any) = any {
        let _ = write!(out, "<option value=\"\">{any}</option>");
    }
    for (value, label) in list {
        let _ = write!(
            out,
            "<option value=\"{value}\">{}</option>",
            super::pages::esc(label)
        );
    }
    out + "</select>"
}

//! Providers built unlike the CityWorld services, each in a file of its
//! own, for the ways real providers hide their databases: a cap no single
//! count shows ([`super::shelf`]), pager links that carry a refined
//! query's parameters ([`super::stellen`]), and a form that ignores its
//! parameters ([`super::events`]).

use axum::Router;

/// The routes of every such provider.
pub(crate) fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .merge(super::shelf::routes())
        .merge(super::stellen::routes())
        .merge(super::events::routes())
}

/// The value (trimmed) of a parameter of a query string, empty when absent.
pub(crate) fn param(query: Option<&str>, name: &str) -> String {
    super::pages::parse_form(query.unwrap_or("").as_bytes())
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_default()
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

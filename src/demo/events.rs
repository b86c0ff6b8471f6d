//! Baltic Coast Events (`/events/`): a hostile provider for refinement
//! that never pays. Its form offers a venue (the query element), a month
//! and a kind of event, says it shows at most [`MAX_SHOWN`] events
//! (`DB.MaxResults`), and ignores every parameter: each search answers
//! with the same 50 newest events. Every answer is at the cap, so each
//! looks truncated, and no narrower query ever brings anything new.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use axum::http::Uri;
use axum::Router;

use super::form_provider::Charset;

/// Where the form page is.
pub const PATH: &str = "/events/";
/// The most events one search shows (all it ever shows).
pub const MAX_SHOWN: usize = 50;
/// Venues of the query element.
pub const VENUES: [&str; 8] = [
    "Kiel",
    "Lübeck",
    "Wismar",
    "Rostock",
    "Stralsund",
    "Greifswald",
    "Usedom",
    "Szczecin",
];
const KINDS: [&str; 5] = ["Concert", "Market", "Regatta", "Reading", "Festival"];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// The events every search shows.
fn shown() -> Vec<(String, String)> {
    (0..MAX_SHOWN)
        .map(|i| {
            (
                format!("{} at {} no. {}", KINDS[i % 5], VENUES[i % 8], i + 1),
                format!("2025-{:02}-{:02}", i % 12 + 1, i % 28 + 1),
            )
        })
        .collect()
}

/// What a gatherer can reach: the 50 events shown.
pub fn expected() -> BTreeMap<String, BTreeSet<String>> {
    BTreeMap::from([(
        "event".to_string(),
        shown().into_iter().map(|(name, _)| name).collect(),
    )])
}

/// The routes of the provider.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    super::form_provider::provider(PATH, "/events/search", Charset::Utf8, form_page, results)
}

/// `values` numbered from 1, as the form's options.
fn numbered(values: &[&str]) -> Vec<(String, String)> {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| ((i + 1).to_string(), v.to_string()))
        .collect()
}

/// The search form, with its metadata.
pub fn form_page() -> String {
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Baltic Coast Events</title>\n\
         <meta name=\"DB.QueryElement\" content=\"venue\">\n\
         <meta name=\"DB.Result.event\" content=\"html.body->section[0].article[*].h4[0].txt\">\n\
         <meta name=\"DB.Result.date\" content=\"html.body->section[0].article[*].time[0].txt\">\n\
         <meta name=\"DB.MaxResults\" content=\"{MAX_SHOWN}\">\n</head><body>\n\
         <h1>What's on along the coast</h1>\n<form action=\"/events/search\">\n\
         Venue {} Month {} Kind {}\n<input type=\"submit\" value=\"Search events\">\n</form>\n</body></html>\n",
        super::form_provider::select("venue", None, &numbered(&VENUES)),
        super::form_provider::select("month", Some("Any month"), &numbered(&MONTHS)),
        super::form_provider::select("kind", Some("All kinds"), &numbered(&KINDS)),
    )
}

/// The answer to any search.
fn results(_: &Uri) -> String {
    let mut out = String::from(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Events</title></head><body>\n\
         <h1>Upcoming events</h1>\n<section>\n",
    );
    for (name, date) in shown() {
        let _ = writeln!(out, "<article><h4>{name}</h4><time>{date}</time></article>");
    }
    out + "</section>\n</body></html>\n"
}

//! The navigator with the fetcher against a real paged result server:
//! 95 hotels of a region, 10 per page, with page numbers, "« zurück",
//! "weiter »" and the usual noise (detail links, page sizes, imprint, mail,
//! script and foreign links).

use crate::support;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use axum::extract::{Form, Query, State};
use axum::response::Html;
use axum::routing::get;
use axum::Router;
use gather::fetch::Fetcher;
use gather::fetch::{Method, Request};
use gather::navigate::{Links, NavigationMode, Navigator};
use select::document::Document;
use select::predicate::Name;
use serde::Deserialize;
use support::{fast_config, serve, url};

const RESULTS: u32 = 95;
const PER_PAGE: u32 = 10;
const PAGES: u32 = 10;

/// Requests per path and query, as the server saw them.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<BTreeMap<String, usize>>>);

impl Log {
    fn record(&self, what: String) {
        *self
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(what)
            .or_default() += 1;
    }

    fn all(&self) -> BTreeMap<String, usize> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

#[derive(Deserialize)]
struct Search {
    region: String,
    page: Option<u32>,
}

fn result_page(search: &Search) -> String {
    let n = search.page.unwrap_or(1).clamp(1, PAGES);
    let region = &search.region;
    let page = |p: u32| format!("/search?region={region}&amp;page={p}");
    let mut html = format!(
        "<html><head><title>Hotels in {region}</title></head><body>\
         <a href=\"/\">Startseite</a> <a href=\"#list\">2</a>\
         <p>Treffer pro Seite: <a href=\"/search?region={region}&amp;per_page=20\">20</a> \
         <a href=\"/search?region={region}&amp;per_page=50\">50</a></p><table id=\"list\">"
    );
    let first = (n - 1) * PER_PAGE + 1;
    for i in first..=(n * PER_PAGE).min(RESULTS) {
        html += &format!("<tr><td><a href=\"/hotel/{i}\">Hotel {region} {i}</a></td></tr>");
    }
    html += "</table><p class=\"pages\">";
    if n > 1 {
        html += &format!("<a href=\"{}\">« zurück</a> ", page(n - 1));
    }
    for p in n.saturating_sub(3).max(1)..=(n + 3).min(PAGES) {
        if p == n {
            html += &format!("<b>{p}</b> ");
        } else {
            html += &format!("<a href=\"{}\">[{p}]</a> ", page(p));
        }
    }
    if n < PAGES {
        html += &format!("<a href=\"{}#list\">weiter »</a>", page(n + 1));
    }
    html += "</p><p><a href=\"mailto:info@hotels.example\">Kontakt</a> \
             <a href=\"javascript:print()\">Drucken</a> \
             <a href=\"http://elsewhere.invalid/search?page=2\">2</a> \
             <a href=\"/impressum\">Impressum</a></p></body></html>";
    html
}

/// The hotel search: `GET /search?region=..&page=..` and the form's
/// `POST /search`; records every request in the log.
async fn hotel_site() -> (std::net::SocketAddr, Log) {
    let log = Log::default();
    let router = Router::new()
        .route(
            "/search",
            get(
                |State(log): State<Log>, Query(search): Query<Search>| async move {
                    let page = search.page.map_or(String::new(), |p| format!("&page={p}"));
                    log.record(format!("GET region={}{page}", search.region));
                    Html(result_page(&search))
                },
            )
            .post(
                |State(log): State<Log>, Form(search): Form<Search>| async move {
                    log.record(format!("POST region={}", search.region));
                    Html(result_page(&search))
                },
            ),
        )
        .fallback(|State(log): State<Log>, uri: axum::http::Uri| async move {
            log.record(format!("other {uri}"));
            Html("<p>no results here</p>")
        })
        .with_state(log.clone());
    (serve(router).await, log)
}

/// The links of a page, as the page tree will give them.
fn links(html: &str) -> Links {
    let mut links = Links::new();
    for a in Document::from(html).find(Name("a")) {
        if let Some(href) = a.attr("href") {
            links.push(
                href,
                &a.text().split_whitespace().collect::<Vec<_>>().join(" "),
            );
        }
    }
    links
}

/// Runs one query through navigator and fetcher; returns the navigator and
/// the hotel names found on all pages.
async fn gather_query(navigator: &mut Navigator) -> BTreeSet<String> {
    let fetcher = Fetcher::new(fast_config()).expect("fetcher");
    let mut hotels = BTreeSet::new();
    while let Some(request) = navigator.next_request() {
        let response = fetcher.fetch(&request).await.expect("result page");
        let html = response.text().text;
        let page_links = links(&html);
        hotels.extend(
            page_links
                .iter()
                .filter(|l| l.href.starts_with("/hotel/"))
                .map(|l| l.text.to_string()),
        );
        navigator.result_page(&response.url, &page_links);
    }
    hotels
}

/// Runs the query `GET /search?region=Usedom` on a fresh site.
async fn usedom_query(
    mode: NavigationMode,
    max_pages: Option<u64>,
) -> (Navigator, BTreeSet<String>, Log) {
    let (addr, log) = hotel_site().await;
    let query = Request::get(url(addr, "/search?region=Usedom"));
    let mut navigator = Navigator::new(mode, query, max_pages);
    let hotels = gather_query(&mut navigator).await;
    (navigator, hotels, log)
}

fn expected_log(first: &str, pages: u32) -> BTreeMap<String, usize> {
    let mut log = BTreeMap::from([(first.to_string(), 1)]);
    for p in 2..=pages {
        log.insert(format!("GET region=Usedom&page={p}"), 1);
    }
    log
}

#[tokio::test]
async fn detect_fetches_all_ten_pages_once() {
    let (navigator, hotels, log) = usedom_query(NavigationMode::Detect, None).await;
    assert_eq!(hotels.len(), RESULTS as usize);
    assert!(hotels.contains("Hotel Usedom 95"));
    assert_eq!(navigator.pages_fetched(), 10);
    assert!(!navigator.cut_short());
    assert_eq!(log.all(), expected_log("GET region=Usedom", PAGES));
}

#[tokio::test]
async fn detect_after_a_posted_form_does_not_fetch_page_one_again() {
    let (addr, log) = hotel_site().await;
    let query = Request {
        method: Method::Post,
        url: url(addr, "/search"),
        body: Some(b"region=Usedom".to_vec()),
        content_type: Some("application/x-www-form-urlencoded".into()),
    };
    let mut navigator = Navigator::new(NavigationMode::Detect, query, Some(20));
    let hotels = gather_query(&mut navigator).await;
    assert_eq!(hotels.len(), RESULTS as usize);
    assert_eq!(navigator.pages_fetched(), 10);
    assert_eq!(log.all(), expected_log("POST region=Usedom", PAGES));
}

#[tokio::test]
async fn max_pages_three_stops_after_three_pages_and_says_so() {
    let (navigator, hotels, log) = usedom_query(NavigationMode::Detect, Some(3)).await;
    assert_eq!(hotels.len(), 30);
    assert_eq!(navigator.pages_fetched(), 3);
    assert!(navigator.cut_short());
    assert_eq!(log.all(), expected_log("GET region=Usedom", 3));
}

#[tokio::test]
async fn navigation_url_pattern_fetches_all_ten_pages_once() {
    let mode = NavigationMode::Pattern("search?region=*&page=*".into());
    let (navigator, hotels, log) = usedom_query(mode, None).await;
    assert_eq!(hotels.len(), RESULTS as usize);
    assert_eq!(navigator.pages_fetched(), 10);
    assert_eq!(log.all(), expected_log("GET region=Usedom", PAGES));
}

#[tokio::test]
async fn navigation_off_fetches_the_first_page_only() {
    let (navigator, hotels, log) = usedom_query(NavigationMode::Off, None).await;
    assert_eq!(hotels.len(), 10);
    assert_eq!(navigator.pages_fetched(), 1);
    assert_eq!(log.all(), expected_log("GET region=Usedom", 1));
}

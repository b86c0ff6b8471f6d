//! The guide's web server: the pages, the CGI scripts behind the forms, the
//! configuration files and the request log.

use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use axum::body::{Body, Bytes};
use axum::extract::{Path, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use base64::Engine as _;
use rusqlite::Connection;
use url::Url;

use super::archive;
use super::catalogue;
use super::db::{self, Search};
use super::magazine;
use super::pages::{self, FormPage, Pager};
use super::LoggedRequest;

/// Everything the handlers share.
pub(crate) struct Site {
    pub base: Url,
    pub conn: Mutex<Connection>,
    pub regions: Vec<String>,
    pub page_size: usize,
    /// The `DB.MaxPages` the paged form with a navigation URL announces.
    pub max_pages: usize,
    /// The `DB.MaxPages` of the limited guide (`/limited/`).
    pub limited_max_pages: usize,
    /// The press archive's seed words.
    pub seed_words: Vec<String>,
    pub user: String,
    pub password: String,
    pub log: Mutex<Vec<LoggedRequest>>,
    /// The version of the data `/pensionen/` serves ([`super::refresh`]).
    pub data_version: std::sync::atomic::AtomicU32,
}

type Shared = Arc<Site>;

/// The largest request body the log keeps (a form submission is far smaller).
const MAX_BODY: usize = 1 << 20;

pub(crate) fn router(site: Shared) -> Router {
    Router::new()
        .route("/", get(start))
        .route("/about.html", get(|| async { html(pages::about_page()) }))
        .route(
            "/kontakt.html",
            get(|| async { html(pages::contact_page()) }),
        )
        .route("/robots.txt", get(robots))
        .route("/cityworld/", get(listed_form))
        .route("/cityworld2/", get(extracted_form))
        .route("/paged/", get(paged_form))
        .route("/navurl/", get(navigation_url_form))
        .route("/post/", get(post_form))
        .route("/secure/", get(secure_form))
        .route("/coop/", get(cooperative_form))
        .route("/limited/", get(limited_form))
        .route("/katalog/", get(|| async { html(catalogue::form_page()) }))
        .route("/cgi-bin/katalog.pl", get(catalogue_results))
        .route(
            "/archiv/",
            get(|State(site): State<Shared>| async move {
                html(archive::form_page(&site.seed_words))
            }),
        )
        .route("/cgi-bin/archiv.pl", get(archive_results))
        .route("/plain/", get(plain_form))
        .route("/cgi-bin/auswahl.pl", get(results_get))
        .route("/cgi-bin/suche.pl", post(results_post))
        .route("/cgi-bin/liste.pl", get(paged_results))
        .route("/cgi-bin/reservierung.pl", post(reservation))
        .route("/cgi-bin/Ora-DB.pl", get(summarizer))
        .route("/cgi-bin/cityworld.txt", get(summarizer_config))
        .route("/cityworld.DBContent", get(dbcontent))
        .route("/private/cityworld.txt", get(private_config))
        .merge(super::surface::routes())
        .route("/magazin/", get(magazine_index))
        .route("/magazin/thema/{file}", get(magazine_theme))
        .route("/magazin/{section}/", get(magazine_section))
        .route("/magazin/{section}/{file}", get(magazine_article))
        .merge(super::jobs::routes())
        .merge(one_form_providers())
        .merge(super::refresh::routes())
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(site.clone(), log_request))
        .with_state(site)
}

/// The routes of the providers built unlike the CityWorld services, each
/// in a file of its own, for the ways real providers hide their databases:
/// a cap no single count shows ([`super::shelf`]), pager links that carry a
/// refined query's parameters ([`super::stellen`]), a form that ignores its
/// parameters ([`super::events`]), and keyword searches that list only
/// their most recent ([`super::pictures`]) or cheapest
/// ([`super::annonces`]) matches.
fn one_form_providers<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .merge(super::shelf::routes())
        .merge(super::stellen::routes())
        .merge(super::events::routes())
        .merge(super::fewo::routes())
        .merge(super::pictures::routes())
        .merge(super::cottages::routes())
        .merge(super::hofladen::routes())
        .merge(super::annonces::routes())
        .merge(super::quotes::routes())
}

/// Records every request (method, path and query, body, time) before it is answered.
async fn log_request(State(site): State<Shared>, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let body = match axum::body::to_bytes(body, MAX_BODY).await {
        Ok(bytes) => bytes,
        Err(e) => {
            return (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("request body unreadable or over {MAX_BODY} bytes: {e}"),
            )
                .into_response()
        }
    };
    let entry = LoggedRequest {
        method: parts.method.to_string(),
        target: parts
            .uri
            .path_and_query()
            .map_or_else(|| parts.uri.path().to_string(), |pq| pq.to_string()),
        body: body.to_vec(),
        headers: parts
            .headers
            .iter()
            .map(|(name, value)| {
                (
                    name.as_str().to_string(),
                    pages::from_latin1(value.as_bytes()),
                )
            })
            .collect(),
        at: SystemTime::now(),
    };
    if let Ok(mut log) = site.log.lock() {
        log.push(entry);
    }
    next.run(Request::from_parts(parts, Body::from(body))).await
}

const HTML: &str = "text/html; charset=ISO-8859-1";
const TEXT: &str = "text/plain; charset=ISO-8859-1";

fn latin1_response(status: StatusCode, content_type: &'static str, text: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, HeaderValue::from_static(content_type))],
        pages::latin1(text),
    )
        .into_response()
}

fn html(text: String) -> Response {
    latin1_response(StatusCode::OK, HTML, &text)
}

fn error(status: StatusCode, title: &str, text: &str) -> Response {
    latin1_response(status, HTML, &pages::error_page(title, text))
}

async fn not_found(uri: Uri) -> Response {
    error(
        StatusCode::NOT_FOUND,
        "Seite nicht gefunden",
        &format!("Die Seite {} gibt es auf diesem Server nicht.", uri.path()),
    )
}

async fn start() -> Response {
    html(pages::start_page())
}

async fn robots() -> Response {
    latin1_response(StatusCode::OK, TEXT, "User-agent: *\nDisallow:\n")
}

fn pair(name: &str, content: impl Into<String>) -> (String, String) {
    (name.to_string(), content.into())
}

/// Variant 1 (metadata.md §3): the regions listed, towns and names by rule.
fn listed_meta(site: &Site) -> Vec<(String, String)> {
    vec![
        pair("DB.QueryElement", "region"),
        pair("DB.Result.region", site.regions.join(", ")),
        pair("DB.Result.ort", pages::ORT_RULE),
        pair("DB.Result.name", pages::NAME_RULE),
    ]
}

/// Variant 2 (metadata.md §3): the region read from the result pages, the
/// other rules relative to the common prefix `html.body->table[1].`.
fn extracted_meta() -> Vec<(String, String)> {
    vec![
        pair("DB.QueryElement", "region"),
        pair("DB.Result.region", pages::REGION_RULE),
        pair("DB.Result", pages::RESULT_PREFIX),
        pair("DB.Result.ort", pages::ORT_RULE_RELATIVE),
        pair("DB.Result.name", pages::NAME_RULE_RELATIVE),
    ]
}

fn no_navigation(mut meta: Vec<(String, String)>) -> Vec<(String, String)> {
    meta.push(pair("DB.Navigation", "NO"));
    meta
}

fn form(
    site: &Site,
    path: &str,
    method: &str,
    action: &str,
    db_meta: Vec<(String, String)>,
) -> Response {
    html(pages::form_page(
        &FormPage {
            path,
            method,
            action,
            db_meta,
        },
        &site.regions,
    ))
}

async fn listed_form(State(site): State<Shared>) -> Response {
    let meta = no_navigation(listed_meta(&site));
    form(&site, "/cityworld/", "GET", "/cgi-bin/auswahl.pl", meta)
}

/// The form as a provider that describes nothing would serve it: no `DB.*`
/// tags (for `gather spec --induce`).
async fn plain_form(State(site): State<Shared>) -> Response {
    form(&site, "/plain/", "GET", "/cgi-bin/auswahl.pl", Vec::new())
}

async fn extracted_form(State(site): State<Shared>) -> Response {
    let meta = no_navigation(extracted_meta());
    form(&site, "/cityworld2/", "GET", "/cgi-bin/auswahl.pl", meta)
}

/// Paged results without `DB.Navigation` or `DB.NavigationURL`: the gatherer
/// has to find the next pages itself.
async fn paged_form(State(site): State<Shared>) -> Response {
    let meta = listed_meta(&site);
    form(&site, "/paged/", "GET", "/cgi-bin/liste.pl", meta)
}

/// Paged results found by the gatherer, limited by a `DB.MaxPages` the
/// largest regions exceed.
async fn limited_form(State(site): State<Shared>) -> Response {
    let mut meta = listed_meta(&site);
    meta.push(pair("DB.MaxPages", site.limited_max_pages.to_string()));
    form(&site, "/limited/", "GET", "/cgi-bin/liste.pl", meta)
}

/// `katalog.pl?q=A%25`: the catalogue's answer, at most 50 titles.
async fn catalogue_results(State(site): State<Shared>, uri: Uri) -> Response {
    search_page(site, &uri, "q", "Der Katalog", |conn, q| {
        catalogue::search(conn, q).map(|(hits, shown)| catalogue::result_page(q, hits, &shown))
    })
    .await
}

/// `archiv.pl?w=Hafen`: the archive's answer, at most 100 articles.
async fn archive_results(State(site): State<Shared>, uri: Uri) -> Response {
    search_page(site, &uri, "w", "Das Archiv", |conn, w| {
        archive::search(conn, w).map(|(hits, shown)| archive::result_page(w, hits, &shown))
    })
    .await
}

/// Answers a one-field search (`field` of the query string) with the page
/// `answer` makes from the database; `what` names the service when the
/// database fails.
async fn search_page(
    site: Shared,
    uri: &Uri,
    field: &str,
    what: &'static str,
    answer: fn(&Connection, &str) -> rusqlite::Result<String>,
) -> Response {
    let pairs = pages::parse_form(uri.query().unwrap_or("").as_bytes());
    let value = pairs
        .iter()
        .find(|(n, _)| n == field)
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_default();
    let page = tokio::task::spawn_blocking(move || {
        let conn = site.conn.lock().map_err(|_| ())?;
        answer(&conn, &value).map_err(|_| ())
    })
    .await;
    match page {
        Ok(Ok(page)) => html(page),
        _ => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Fehler",
            &format!("{what} ist gerade nicht erreichbar."),
        ),
    }
}

/// Paged results described by `DB.NavigationURL` and limited by `DB.MaxPages`.
async fn navigation_url_form(State(site): State<Shared>) -> Response {
    let mut meta = extracted_meta();
    meta.push(pair(
        "DB.NavigationURL",
        "/cgi-bin/liste.pl?region=*&seite=*",
    ));
    meta.push(pair("DB.MaxPages", site.max_pages.to_string()));
    form(&site, "/navurl/", "GET", "/cgi-bin/liste.pl", meta)
}

async fn post_form(State(site): State<Shared>) -> Response {
    let meta = no_navigation(listed_meta(&site));
    form(&site, "/post/", "POST", "/cgi-bin/suche.pl", meta)
}

/// The form whose metadata sits in a configuration file behind HTTP Basic auth.
async fn secure_form(State(site): State<Shared>) -> Response {
    let meta = vec![pair("DB.ConfigFile", "/private/cityworld.txt")];
    form(&site, "/secure/", "GET", "/cgi-bin/auswahl.pl", meta)
}

/// The form of a cooperative provider (seed §3): a summarizer and its configuration.
async fn cooperative_form(State(site): State<Shared>) -> Response {
    let meta = vec![
        pair("DB.Summarizer", summarizer_url(&site)),
        pair("DB.ConfigFile", "/cgi-bin/cityworld.txt"),
    ];
    form(&site, "/coop/", "GET", "/cgi-bin/auswahl.pl", meta)
}

fn summarizer_url(site: &Site) -> String {
    format!("{}cgi-bin/Ora-DB.pl", site.base)
}

/// A search from form fields; fields the form does not have are ignored.
fn search_from(pairs: &[(String, String)]) -> Search {
    let field = |name: &str| {
        pairs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    Search {
        region: field("region"),
        preis: field("preis"),
        ort: field("ort"),
    }
}

/// Runs a search on the database in a blocking thread.
async fn run_search(site: &Shared, search: Search) -> Result<(Search, db::Found), Response> {
    let site = site.clone();
    let answer = tokio::task::spawn_blocking(move || {
        let conn = site
            .conn
            .lock()
            .map_err(|_| "the database connection is unusable after a failed query".to_string())?;
        db::search(&conn, &search)
            .map(|found| (search, found))
            .map_err(|e| format!("database query failed: {e}"))
    })
    .await
    .map_err(|e| format!("search task failed: {e}"))
    .and_then(|r| r);
    answer.map_err(|message| {
        tracing::error!("{message}");
        error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Interner Fehler",
            &message,
        )
    })
}

async fn results(site: Shared, raw: &[u8], form_path: &str) -> Response {
    let search = search_from(&pages::parse_form(raw));
    match run_search(&site, search).await {
        Ok((search, found)) => html(pages::result_page(&search, &found, form_path, None)),
        Err(response) => response,
    }
}

/// `auswahl.pl`: all hotels of the search on one page.
async fn results_get(State(site): State<Shared>, uri: Uri) -> Response {
    let query = uri.query().unwrap_or("").as_bytes().to_vec();
    results(site, &query, "/cityworld/").await
}

/// `suche.pl`: the same results for a form sent with POST (body Latin-1, urlencoded).
async fn results_post(State(site): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let urlencoded = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.trim()
                .to_ascii_lowercase()
                .starts_with("application/x-www-form-urlencoded")
        });
    if !urlencoded {
        return error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Falsche Anfrage",
            "suche.pl erwartet ein Formular (application/x-www-form-urlencoded).",
        );
    }
    results(site, &body, "/post/").await
}

/// `liste.pl`: the results in pages of `page_size` hotels, page `seite`
/// (1-based; missing means 1). A page past the last one is an empty result.
async fn paged_results(State(site): State<Shared>, uri: Uri) -> Response {
    let pairs = pages::parse_form(uri.query().unwrap_or("").as_bytes());
    let page = match pairs.iter().find(|(n, _)| n == "seite") {
        None => 1,
        Some((_, v)) => match v.trim().parse::<usize>() {
            Ok(n) if n >= 1 => n,
            _ => {
                return error(
                    StatusCode::BAD_REQUEST,
                    "Falsche Anfrage",
                    &format!("Die Seitennummer {v:?} ist keine Zahl ab 1."),
                )
            }
        },
    };
    let search = search_from(&pairs);
    match run_search(&site, search).await {
        Ok((search, found)) => {
            let pager = Pager {
                script: "/cgi-bin/liste.pl",
                page,
                page_size: site.page_size,
            };
            html(pages::result_page(&search, &found, "/paged/", Some(&pager)))
        }
        Err(response) => response,
    }
}

async fn reservation(body: Bytes) -> Response {
    let count = pages::parse_form(&body)
        .iter()
        .filter(|(n, _)| n == "hotel_id")
        .count();
    html(pages::reservation_page(count))
}

/// The DBContent document of seed §2, registered with search engines by its URL.
fn dbcontent_text(site: &Site) -> String {
    format!(
        "Summarizer:    {}\nURL:           {}cityworld/\nTitle:         {}\nDescription:   {}\nKeywords:      {}\n{}",
        summarizer_url(site),
        site.base,
        pages::TITLE,
        pages::DESCRIPTION,
        pages::KEYWORDS,
        DATABASE_LINES
    )
}

const DATABASE_LINES: &str = "Database:      Cityworld\nTable:         hotel\nAttribute:     name\nAttribute:     ort\nTable:         region\nAttribute:     region\n";

/// The summarizer's configuration named by the cooperative form page (seed §3):
/// which database, tables and attributes to index.
fn summarizer_config_text() -> String {
    format!("# CityWorld: was der Summarizer indexieren darf\n{DATABASE_LINES}")
}

fn magazine_page(page: Option<String>) -> Response {
    match page {
        Some(page) => html(page),
        None => error(
            StatusCode::NOT_FOUND,
            "Nicht gefunden",
            "Diese Seite gibt es im Magazin nicht.",
        ),
    }
}

async fn magazine_index(uri: Uri) -> Response {
    let page = uri
        .query()
        .and_then(|q| q.split('&').find_map(|p| p.strip_prefix("seite=")))
        .map_or(Some(1), |n| n.parse::<usize>().ok());
    magazine_page(page.and_then(magazine::index_page))
}

async fn magazine_section(Path(section): Path<String>) -> Response {
    magazine_page(magazine::section_page(&section))
}

async fn magazine_article(Path((section, file)): Path<(String, String)>) -> Response {
    magazine_page(magazine::article_page(&section, &file))
}

async fn magazine_theme(Path(file): Path<String>) -> Response {
    magazine_page(magazine::theme_page(&file))
}

async fn dbcontent(State(site): State<Shared>) -> Response {
    latin1_response(StatusCode::OK, TEXT, &dbcontent_text(&site))
}

async fn summarizer_config() -> Response {
    latin1_response(StatusCode::OK, TEXT, &summarizer_config_text())
}

/// The metadata of the `/secure/` form as `Name: value` lines (metadata.md §1.2).
fn private_config_text(site: &Site) -> String {
    let mut regions = String::new();
    for (i, region) in site.regions.iter().enumerate() {
        if i > 0 {
            regions.push_str(if i % 3 == 0 { ",\n  " } else { ", " });
        }
        regions.push_str(region);
    }
    format!(
        "# CityWorld: Metadaten des Anfrageformulars /secure/ für angemeldete Suchmaschinen\n\
         DB.QueryElement: region\n\
         DB.Result.region: {regions}\n\
         DB.Result.ort: {}\n\
         Result.name: {}\n\
         DB.Navigation: NO\n",
        pages::ORT_RULE,
        pages::NAME_RULE
    )
}

/// `/private/` is open only to the configured user (HTTP Basic).
fn authorised(site: &Site, headers: &HeaderMap) -> bool {
    let Some(value) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let Some((scheme, credentials)) = value.trim().split_once(' ') else {
        return false;
    };
    if !scheme.eq_ignore_ascii_case("basic") {
        return false;
    }
    let Ok(decoded) = base64::engine::general_purpose::STANDARD.decode(credentials.trim()) else {
        return false;
    };
    decoded == format!("{}:{}", site.user, site.password).as_bytes()
}

async fn private_config(State(site): State<Shared>, headers: HeaderMap) -> Response {
    if !authorised(&site, &headers) {
        let mut response = error(
            StatusCode::UNAUTHORIZED,
            "Zugriff verweigert",
            "Dieses Verzeichnis ist nur für angemeldete Suchmaschinen zugänglich.",
        );
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Basic realm=\"CityWorld Suchmaschinen\""),
        );
        return response;
    }
    latin1_response(StatusCode::OK, TEXT, &private_config_text(&site))
}

/// The configuration documents the summarizer can read, by the path a
/// `config` parameter names: resolved against the summarizer's own URL, so
/// `cityworld.txt`, `/cgi-bin/cityworld.txt`, `../cityworld.DBContent` and a
/// full URL on this server all work.
fn summarizer_config_document(site: &Site, config: &str) -> Option<String> {
    match summarizer_config_path(&site.base, config)? {
        ConfigDocument::DbContent => Some(dbcontent_text(site)),
        ConfigDocument::SummarizerConfig => Some(summarizer_config_text()),
    }
}

#[derive(Debug, PartialEq, Eq)]
enum ConfigDocument {
    /// `/cityworld.DBContent`
    DbContent,
    /// `/cgi-bin/cityworld.txt`
    SummarizerConfig,
}

fn summarizer_config_path(base: &Url, config: &str) -> Option<ConfigDocument> {
    let summarizer = base.join("/cgi-bin/Ora-DB.pl").ok()?;
    let resolved = summarizer.join(config.trim()).ok()?;
    if resolved.origin() != base.origin() {
        return None;
    }
    match resolved.path() {
        "/cityworld.DBContent" => Some(ConfigDocument::DbContent),
        "/cgi-bin/cityworld.txt" => Some(ConfigDocument::SummarizerConfig),
        _ => None,
    }
}

/// `Ora-DB.pl?config=…`: the provider's summarizer (seed §2). It reads the
/// named configuration and answers with the SOIF of the configured attributes.
async fn summarizer(State(site): State<Shared>, uri: Uri) -> Response {
    let pairs = pages::parse_form(uri.query().unwrap_or("").as_bytes());
    let Some((_, config)) = pairs.iter().find(|(n, _)| n == "config") else {
        return error(
            StatusCode::BAD_REQUEST,
            "Falsche Anfrage",
            "Ora-DB.pl braucht den Parameter config (Pfad der Konfigurationsdatei).",
        );
    };
    let Some(text) = summarizer_config_document(&site, config) else {
        return error(
            StatusCode::NOT_FOUND,
            "Konfiguration nicht gefunden",
            &format!("Die Konfigurationsdatei {config} gibt es auf diesem Server nicht."),
        );
    };
    let mut document = match crate::metadata::DbContent::parse(&text) {
        Ok(document) => document,
        Err(e) => {
            return error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Fehlerhafte Konfiguration",
                &format!("{config}: {e}"),
            )
        }
    };
    // A configuration named by the form page's DB.ConfigFile needs no URL:
    // line (seed §3); the summarizer answers for the form that names it.
    if document.url.is_none() {
        document.url = site.base.join("/coop/").ok().map(String::from);
    }
    let site = site.clone();
    let answer = tokio::task::spawn_blocking(move || match site.conn.lock() {
        Ok(conn) => provider_summary(&document, &conn),
        Err(_) => Err("the database connection is unusable after a failed query".to_string()),
    })
    .await
    .unwrap_or_else(|e| Err(format!("summarizer task failed: {e}")));
    match answer {
        Ok(soif) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "text/plain; charset=UTF-8")],
            soif,
        )
            .into_response(),
        Err(message) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Fehler im Summarizer",
            &message,
        ),
    }
}

/// The provider's summarizer: the SOIF of the configured tables and
/// attributes (soif.md), as `gather summarize` prints it.
fn provider_summary(
    document: &crate::metadata::DbContent,
    conn: &Connection,
) -> Result<Vec<u8>, String> {
    crate::summarize::provider_soif(document, conn).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summarizer_configs_resolve_against_the_summarizer() {
        let base = Url::parse("http://127.0.0.1:8080/").expect("url");
        let path = |config: &str| summarizer_config_path(&base, config);
        assert_eq!(
            path("cityworld.txt"),
            Some(ConfigDocument::SummarizerConfig)
        );
        assert_eq!(
            path("/cgi-bin/cityworld.txt"),
            Some(ConfigDocument::SummarizerConfig)
        );
        assert_eq!(
            path("../cityworld.DBContent"),
            Some(ConfigDocument::DbContent)
        );
        assert_eq!(
            path("/cityworld.DBContent"),
            Some(ConfigDocument::DbContent)
        );
        assert_eq!(
            path("http://127.0.0.1:8080/cityworld.DBContent"),
            Some(ConfigDocument::DbContent)
        );
        assert_eq!(path("http://example.org/cityworld.DBContent"), None);
        assert_eq!(path("/private/cityworld.txt"), None);
        assert_eq!(path("/etc/passwd"), None);
    }
}

//! `gather bench forms DIR --served`: what `gather URL` submits, end to
//! end, on the corpus's pages served over HTTP.
//!
//! Every page is served on 127.0.0.1 with every absolute URL in it
//! (links, form actions, `<base href>`, protocol-relative ones) rewritten
//! to the same server under `/ext/HOST/…`, so that nothing gather does on
//! it leaves the machine. gather is then run on each page's URL with
//! nothing else, as an operator would (default options, a small cap on
//! queries and crawled pages to keep the run short). The server logs every
//! request; a request that carries parameters to a form's action is a
//! submission of that form (the form of the page whose field names it
//! shares most). Counted per annotated kind: how many forms were submitted
//! at least once, and how many requests they took. The target is zero
//! submissions of any form that is not a search form.
//!
//! Answers to submissions are a small page without results: what is
//! measured is which forms are submitted at all, not what is gathered.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use gather::fetch::Method as FormMethod;
use gather::form::{forms, ElementKind, Form};
use gather::page::Page;

use super::{corpus, CorpusPage};

/// Queries gather may send per page (the surfacing probes come first).
const MAX_QUERIES: u64 = 30;
/// Ordinary pages gather may crawl per page when it submits nothing.
const CRAWL_LIMIT: usize = 5;

/// One request the server saw.
struct Logged {
    page: usize,
    method: Method,
    path: String,
    /// The path and the query string as sent.
    target: String,
    params: Vec<String>,
}

/// The served pages and the log.
struct Served {
    pages: Vec<String>,
    current: Mutex<usize>,
    log: Mutex<Vec<Logged>>,
}

async fn answer(
    State(served): State<Arc<Served>>,
    method: Method,
    uri: Uri,
    body: Bytes,
) -> Response {
    let path = uri.path().to_string();
    let mut params: Vec<String> = uri
        .query()
        .map(|q| {
            form_urlencoded::parse(q.as_bytes())
                .map(|(k, _)| k.into_owned())
                .collect()
        })
        .unwrap_or_default();
    params.extend(form_urlencoded::parse(&body).map(|(k, _)| k.into_owned()));
    let page = *served.current.lock().expect("the page index");
    served.log.lock().expect("the log").push(Logged {
        page,
        method: method.clone(),
        path: path.clone(),
        target: uri
            .path_and_query()
            .map_or(path.clone(), |p| p.as_str().to_string()),
        params: params.clone(),
    });
    let html = [(header::CONTENT_TYPE, "text/html; charset=utf-8")];
    if let Some(n) = path
        .strip_prefix("/p/")
        .and_then(|n| n.parse::<usize>().ok())
    {
        if params.is_empty() && method == Method::GET {
            if let Some(text) = served.pages.get(n) {
                return (html, text.clone()).into_response();
            }
        }
    }
    if params.is_empty() {
        return (
            StatusCode::NOT_FOUND,
            html,
            "<html><body>Not found</body></html>",
        )
            .into_response();
    }
    (
        html,
        "<html><body><h1>Results</h1><p>No results.</p></body></html>",
    )
        .into_response()
}

/// A page's text with every absolute URL pointing at `base` (`/ext/HOST/…`).
fn rewritten(text: &str, base: &str) -> String {
    let absolute = regex::Regex::new(
        r#"(?i)(["'=\s(])(?:https?:)?//([a-z0-9][a-z0-9.-]*\.[a-z]{2,}(?::\d+)?)"#,
    )
    .expect("a valid pattern");
    absolute
        .replace_all(text, |c: &regex::Captures<'_>| {
            format!("{}{base}ext/{}", &c[1], c[2].to_ascii_lowercase())
        })
        .into_owned()
}

/// The form a request submitted, if any. A browser's submission carries
/// every named text, hidden, select and text-area control of its form, so
/// a request is a form's submission when it carries all of them (all but
/// one of three or more: a script may drop one); of the forms it could be,
/// the one with the request's path and method, then the one with the most
/// controls. Only a request to the form's action path counts; a link
/// that shares that path and the parameters is told apart by the caller.
fn submitted<'f>(forms: &'f [Form], request: &Logged) -> Option<&'f Form> {
    if request.params.is_empty() {
        return None;
    }
    let carried = |f: &Form| -> Option<usize> {
        let always: Vec<&str> = f
            .elements
            .iter()
            .filter(|e| {
                !e.name.is_empty()
                    && matches!(
                        e.kind,
                        ElementKind::Text { .. }
                            | ElementKind::Hidden { .. }
                            | ElementKind::Select { .. }
                            | ElementKind::TextArea { .. }
                    )
            })
            .map(|e| e.name.as_str())
            .collect();
        let have = always
            .iter()
            .filter(|n| request.params.iter().any(|p| p == *n))
            .count();
        let enough = if always.len() >= 3 {
            always.len() - 1
        } else {
            always.len()
        };
        (!always.is_empty() && have >= enough).then_some(have)
    };
    let same_method = |f: &Form| match f.method {
        FormMethod::Get => request.method == Method::GET,
        FormMethod::Post => request.method == Method::POST,
    };
    forms
        .iter()
        .filter_map(|f| {
            let have = carried(f)?;
            if f.action.path() != request.path {
                return None;
            }
            Some((f, (same_method(f), have, std::cmp::Reverse(f.index))))
        })
        .max_by_key(|(_, key)| *key)
        .map(|(f, _)| f)
}

/// Per annotated kind: forms, forms submitted, requests to them.
#[derive(Default)]
struct KindCount {
    forms: usize,
    submitted: usize,
    requests: usize,
}

pub(super) fn bench(dir: &Path) -> Result<(), String> {
    let (corpus, _, _) = corpus(dir)?;
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .map_err(|e| e.to_string())?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    let base = format!("http://127.0.0.1:{port}/");
    let mut pages = Vec::new();
    for p in &corpus {
        let bytes = std::fs::read(dir.join(&p.file)).map_err(|e| format!("{}: {e}", p.file))?;
        let text = gather::charset::decode(&bytes, None).text;
        pages.push(rewritten(&text, &base));
    }
    let served = Arc::new(Served {
        pages,
        current: Mutex::new(0),
        log: Mutex::new(Vec::new()),
    });
    let app = axum::Router::new()
        .fallback(answer)
        .with_state(served.clone());
    let server = runtime.spawn(async move { axum::serve(listener, app).await });
    let work = tempfile::tempdir().map_err(|e| e.to_string())?;
    let mut counts: BTreeMap<String, KindCount> = BTreeMap::new();
    let mut wrong: Vec<String> = Vec::new();
    // Pages with an annotated search form, and those where one was sent.
    let (mut search_pages, mut searched_pages) = (0usize, 0usize);
    for (n, CorpusPage { file, kinds, .. }) in corpus.iter().enumerate() {
        *served.current.lock().expect("the page index") = n;
        let url = url::Url::parse(&format!("{base}p/{n}")).map_err(|e| e.to_string())?;
        let options = gather::gatherer::Options {
            db: work.path().join(format!("{n}.sqlite")),
            max_queries: Some(MAX_QUERIES),
            crawl_limit: CRAWL_LIMIT,
            fetch: gather::fetch::FetchConfig {
                retries: 0,
                timeout: std::time::Duration::from_secs(10),
                ..Default::default()
            },
            ..Default::default()
        };
        // Whatever the run ends with, the log says what it submitted.
        let _ = runtime.block_on(gather::gatherer::gather(
            &[gather::gatherer::Start::Url(url.clone())],
            &options,
        ));
        let _ = std::fs::remove_file(&options.db);
        // The forms as gather reads the served page.
        let page = Page::parse(&served.pages[n]);
        let found = forms(&page, &url, encoding_rs::UTF_8).unwrap_or_default();
        let log = std::mem::take(&mut *served.log.lock().expect("the log"));
        // A GET to a link of the page is the link followed, not a form.
        let links = gather::links::PageLinks::of(&page, &url);
        let linked: std::collections::BTreeSet<String> = links
            .groups
            .iter()
            .flat_map(|g| g.links.iter())
            .chain(links.ungrouped.iter().map(|(l, _)| l))
            .filter_map(|l| l.target.as_ref())
            .map(|t| match t.query() {
                Some(q) => format!("{}?{q}", t.path()),
                None => t.path().to_string(),
            })
            .collect();
        let mut per_form = vec![0usize; found.len()];
        for request in log
            .iter()
            .filter(|r| r.page == n && !(r.method == Method::GET && linked.contains(&r.target)))
        {
            if let Some(f) = submitted(&found, request) {
                per_form[f.index] += 1;
            }
        }
        if kinds.iter().any(|k| k == "s") {
            search_pages += 1;
            searched_pages += usize::from(
                kinds
                    .iter()
                    .zip(&per_form)
                    .any(|(k, &sent)| k == "s" && sent > 0),
            );
        }
        for (i, kind) in kinds.iter().enumerate() {
            let count = counts.entry(kind.clone()).or_default();
            count.forms += 1;
            let sent = per_form.get(i).copied().unwrap_or(0);
            if sent > 0 {
                count.submitted += 1;
                count.requests += sent;
                if !matches!(kind.as_str(), "s" | "X" | "-") && wrong.len() < 30 {
                    wrong.push(format!(
                        "{file}: form {i} ({}), {sent} requests to {}",
                        full_name(kind),
                        found[i].action.path()
                    ));
                }
            }
        }
    }
    server.abort();
    println!(
        "\n`gather URL` on {} corpus pages served on 127.0.0.1 (every absolute URL rewritten to it; at most {MAX_QUERIES} queries and {CRAWL_LIMIT} crawled pages each):\n",
        corpus.len()
    );
    println!("| annotated kind | forms | submitted | requests to them |");
    println!("|---|---|---|---|");
    for (kind, c) in &counts {
        println!(
            "| {} | {} | {} | {} |",
            full_name(kind),
            c.forms,
            c.submitted,
            c.requests
        );
    }
    let others: usize = counts
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "s" | "X" | "-"))
        .map(|(_, c)| c.submitted)
        .sum();
    println!("\nForms annotated as another kind than search submitted: {others} (forms not annotated, X, or skipped, -, are not counted).");
    println!("Pages with a form annotated as search: {search_pages}; one of them submitted on {searched_pages}.");
    for line in &wrong {
        println!("- {line}");
    }
    Ok(())
}

/// Formasaurus's name of a kind code.
fn full_name(code: &str) -> &str {
    match code {
        "s" => "search",
        "l" => "login",
        "r" => "registration",
        "p" => "password recovery",
        "c" => "contact / comment",
        "m" => "mailing list",
        "b" => "order / add to cart",
        "P" => "poll",
        "V" => "display options",
        "N" => "navigation",
        "C" => "captcha",
        "o" => "other",
        "X" => "not annotated (X)",
        "-" => "skipped by the annotators (-)",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_urls_point_at_the_local_server() {
        let base = "http://127.0.0.1:9/";
        let page = r#"<base href="https://Shop.example.com/"><form action="http://shop.example.com:8080/search"><a href=//cdn.example.org/x.js>x</a> see http://news.example.net/a and a // comment"#;
        let out = rewritten(page, base);
        assert!(out.contains(r#"href="http://127.0.0.1:9/ext/shop.example.com/""#));
        assert!(out.contains(r#"action="http://127.0.0.1:9/ext/shop.example.com:8080/search""#));
        assert!(out.contains("href=http://127.0.0.1:9/ext/cdn.example.org/x.js"));
        assert!(out.contains(" http://127.0.0.1:9/ext/news.example.net/a"));
        assert!(out.contains("a // comment"));
    }

    #[test]
    fn a_request_is_matched_to_the_form_whose_fields_it_carries() {
        let page = Page::parse(
            r#"<form action="/s"><input name="q"></form>
               <form action="/s" method="post"><input name="email"><input name="q2"></form>
               <a href="/login?user=x">a link</a>
               <form action="/login" method="post"><input name="user"><input type="password" name="pw"></form>"#,
        );
        let url = url::Url::parse("http://127.0.0.1:9/p/0").unwrap();
        let found = forms(&page, &url, encoding_rs::UTF_8).unwrap();
        let request = |method: Method, path: &str, params: &[&str]| Logged {
            page: 0,
            method,
            path: path.into(),
            target: path.into(),
            params: params.iter().map(|p| p.to_string()).collect(),
        };
        let at = |r: &Logged| submitted(&found, r).map(|f| f.index);
        assert_eq!(at(&request(Method::GET, "/s", &["q"])), Some(0));
        assert_eq!(at(&request(Method::POST, "/s", &["email", "q2"])), Some(1));
        assert_eq!(at(&request(Method::POST, "/s", &["email"])), None);
        assert_eq!(
            at(&request(Method::POST, "/login", &["user", "pw"])),
            Some(2)
        );
        assert_eq!(at(&request(Method::GET, "/p/0", &[])), None);
        assert_eq!(at(&request(Method::GET, "/elsewhere", &["x"])), None);
        assert_eq!(at(&request(Method::GET, "/login", &["user"])), None);
    }
}

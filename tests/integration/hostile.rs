//! Hostile providers: endless pagination, navigation to other hosts, rules
//! whose values explode on nested pages. Each server runs on 127.0.0.1 and
//! answers a bounded number of requests.

use crate::{gathering, support};

use std::collections::BTreeSet;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Query, State};
use axum::response::{Html, IntoResponse};
use axum::routing::get;
use axum::Router;
use gather::navigate::DEFAULT_MAX_PAGES;

/// Every page of every query links to a next one (up to `last`, when set).
#[derive(Clone, Default)]
struct Endless {
    log: Arc<Mutex<Vec<u64>>>,
    last: Option<u64>,
}

const FORM: &str = r#"<html><head><title>Endless</title>
<meta name="DB.QueryElement" content="q">
<meta name="DB.Result.item" content="html.body->li[*].txt">
</head><body><form action="/search"><select name="q"><option>a</option></select></form></body></html>"#;

async fn results(
    State(site): State<Endless>,
    Query(params): Query<std::collections::HashMap<String, String>>,
) -> Html<String> {
    let page: u64 = params.get("page").and_then(|p| p.parse().ok()).unwrap_or(1);
    site.log.lock().unwrap().push(page);
    let next = match site.last {
        Some(last) if page >= last => String::new(),
        _ => format!("<a href='/search?q=a&amp;page={}'>weiter</a>", page + 1),
    };
    Html(format!(
        "<html><body><li>item-{page}</li>{next}</body></html>"
    ))
}

async fn serve_endless(site: Endless) -> url::Url {
    let app = Router::new()
        .route("/form.html", get(|| async { Html(FORM) }))
        .route("/search", get(results))
        .with_state(site);
    support::url(support::serve(app).await, "/form.html")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn endless_pagination_stops_at_the_default_page_limit_and_says_so() {
    let site = Endless::default();
    let url = serve_endless(site.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let report = gathering::gather_url(&url, &gathering::options(&db)).await;
    let source = &report.sources[0];
    assert_eq!(source.pages, DEFAULT_MAX_PAGES, "report:\n{report}");
    assert_eq!(site.log.lock().unwrap().len() as u64, DEFAULT_MAX_PAGES);
    assert_eq!(source.queries_cut_short, 1);
    let incomplete = source.stats.as_ref().unwrap().incomplete.clone().unwrap();
    assert!(
        incomplete.contains(
            "the default limit of 1000 result pages per query (raise it with --max-pages)"
        ),
        "{incomplete}"
    );
    // --max-pages lowers it.
    let mut options = gathering::options(&dir.path().join("h.sqlite"));
    options.max_pages = Some(5);
    let report = gathering::gather_url(&url, &options).await;
    assert_eq!(report.sources[0].pages, 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_query_killed_half_way_continues_where_it_stood() {
    let site = Endless {
        last: Some(150),
        ..Endless::default()
    };
    let url = serve_endless(site.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let command = || {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_gather"));
        cmd.arg(url.as_str())
            .arg("--db")
            .arg(&db)
            .args(["--delay-ms", "20"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        cmd
    };
    let mut child = command().spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while site.log.lock().unwrap().len() < 40 {
        assert!(Instant::now() < deadline, "the gatherer made no progress");
        assert!(child.try_wait().unwrap().is_none(), "ended before the kill");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before: Vec<u64> = site.log.lock().unwrap().clone();
    // What the killed run fetched is in the database, but for the pages
    // since its last save (8 at most, see docs/gathering.md) and the page
    // in flight.
    const UNSAVED: u64 = 8 + 1;
    let stored = gather::store::Store::open(&db).unwrap();
    let pages = stored.stats(1).unwrap().pages;
    assert!(
        pages + UNSAVED + 1 >= before.len() as u64,
        "{pages} of {}",
        before.len()
    );
    drop(stored);

    let status = command().status().unwrap();
    assert!(status.success());
    let after: Vec<u64> = site.log.lock().unwrap()[before.len()..].to_vec();
    // The query's own page is not sent again, and neither is any page
    // but those since the last save.
    assert!(!after.contains(&1), "{after:?}");
    let again: Vec<&u64> = after.iter().filter(|p| before.contains(p)).collect();
    assert!(again.len() as u64 <= UNSAVED, "sent again: {again:?}");
    let items = &gathering::stored_values(&db, url.as_str())["item"];
    let expected: BTreeSet<String> = (1..=150).map(|p| format!("item-{p}")).collect();
    assert_eq!(*items, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn navigation_stays_on_the_providers_host() {
    // Another host (another port on 127.0.0.1) whose pages must not be walked.
    let other_hits = Arc::new(Mutex::new(0usize));
    let counter = Arc::clone(&other_hits);
    let other = Router::new().route(
        "/page",
        get(move || {
            *counter.lock().unwrap() += 1;
            async { Html("<html><body><li>elsewhere</li></body></html>") }
        }),
    );
    let other = support::url(support::serve(other).await, "/page");
    let form = r#"<html><head><meta name="DB.QueryElement" content="q">
<meta name="DB.Result.item" content="html.body->li[*].txt">
<meta name="DB.NavigationURL" content="http://*/*">
</head><body><form action="/search"><select name="q"><option>a</option></select></form></body></html>"#;
    let results = format!(
        "<html><body><li>here</li><a href='{other}'>2</a><a href='/search?q=a&amp;page=2'>3</a></body></html>"
    );
    let app = Router::new()
        .route("/form.html", get(move || async move { Html(form) }))
        .route("/search", get(move || async move { Html(results) }));
    let url = support::url(support::serve(app).await, "/form.html");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    gathering::gather_url(&url, &gathering::options(&db)).await;
    assert_eq!(*other_hits.lock().unwrap(), 0);
    let items = &gathering::stored_values(&db, url.as_str())["item"];
    assert!(!items.contains("elsewhere"), "{items:?}");

    // The user can allow the other host.
    let mut options = gathering::options(&dir.path().join("h.sqlite"));
    options.allow_hosts = vec![format!(
        "{}:{}",
        other.host_str().unwrap(),
        other.port().unwrap()
    )];
    gathering::gather_url(&url, &options).await;
    assert_eq!(*other_hits.lock().unwrap(), 1);
}

/// `depth` divs nested in each other, each with a little text.
fn nested_divs(depth: usize) -> String {
    let mut html = String::from("<html><body>");
    for i in 0..depth {
        html.push_str(&format!("<div>d{i} "));
    }
    html.push_str(&"</div>".repeat(depth));
    html.push_str("</body></html>");
    html
}

#[test]
fn a_rule_over_nested_steps_is_cut_at_its_limit() {
    let page = gather::page::Page::parse(&nested_divs(800));
    let rule = gather::hel::Rule::parse("html->div[*]->div[*]->div[*].txt").unwrap();
    let evaluation = rule.evaluate(&page);
    assert!(evaluation.limit.is_some());
    let page = gather::page::Page::parse(&nested_divs(3000));
    let rule = gather::hel::Rule::parse("html.body->div[*].src").unwrap();
    let evaluation = rule.evaluate(&page);
    assert_eq!(evaluation.limit, Some(gather::hel::ResultLimit::Bytes));
    // A rule that stays within the limits is not cut.
    let rule = gather::hel::Rule::parse("html.body.div.div.txt").unwrap();
    assert_eq!(rule.evaluate(&page).limit, None);
}

#[test]
fn rule_evaluation_on_a_hostile_page_stays_within_memory() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("nested.html");
    std::fs::write(&page, nested_divs(800)).unwrap();
    let (out, kib) = support::output_with_peak_rss(
        Command::new(env!("CARGO_BIN_EXE_gather"))
            .args(["hel", "html->div[*]->div[*]->div[*].txt"])
            .arg(&page),
    );
    // Its peak may not come near the gigabytes the unbounded value needed.
    assert!(kib < 512 * 1024, "peak {kib} KiB");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cut at"), "{stderr}");
    assert_eq!(out.status.code(), Some(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_link_that_redirects_to_a_file_is_skipped_not_fatal() {
    let app = Router::new()
        .route("/form.html", get(|| async { Html(FORM) }))
        .route(
            "/search",
            get(
                |Query(params): Query<std::collections::HashMap<String, String>>| async move {
                    match params.get("page").map(String::as_str) {
                        None => Html(
                            "<html><body><li>one</li><a href='/search?q=a&amp;page=2'>2</a>\
                             <a href='/search?q=a&amp;page=3'>3</a></body></html>",
                        )
                        .into_response(),
                        Some("2") => (
                            axum::http::StatusCode::FOUND,
                            [("location", "file:///etc/passwd")],
                        )
                            .into_response(),
                        Some(_) => Html("<html><body><li>three</li></body></html>").into_response(),
                    }
                },
            ),
        );
    let url = support::url(support::serve(app).await, "/form.html");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let report = gathering::gather_url(&url, &gathering::options(&db)).await;
    let source = &report.sources[0];
    assert_eq!(source.queries_failed, 0, "report:\n{report}");
    assert!(
        source
            .warnings
            .iter()
            .any(|w| w.contains("result page skipped")),
        "{:?}",
        source.warnings
    );
    let items = &gathering::stored_values(&db, url.as_str())["item"];
    assert_eq!(
        items.iter().map(String::as_str).collect::<Vec<_>>(),
        ["one", "three"]
    );
    // Done: the next run sends nothing.
    let again = gathering::gather_url(&url, &gathering::options(&db)).await;
    assert_eq!(again.sources[0].queries_sent, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_saves_what_was_gathered_and_exits_130() {
    let site = Endless {
        last: Some(300),
        ..Endless::default()
    };
    let url = serve_endless(site.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let child = Command::new(env!("CARGO_BIN_EXE_gather"))
        .arg(url.as_str())
        .arg("--db")
        .arg(&db)
        .args(["--delay-ms", "20"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while site.log.lock().unwrap().len() < 30 {
        assert!(Instant::now() < deadline, "the gatherer made no progress");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: sends SIGINT to the child this test started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert!(stderr.contains("run the same command again"), "{stderr}");
    let fetched = site.log.lock().unwrap().len();
    assert!(
        fetched < 300,
        "the walk went on to its end ({fetched} pages)"
    );

    // The next run continues the walk: the query is not sent again.
    let status = Command::new(env!("CARGO_BIN_EXE_gather"))
        .arg(url.as_str())
        .arg("--db")
        .arg(&db)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let log = site.log.lock().unwrap().clone();
    assert_eq!(
        log.iter().filter(|p| **p == 1).count(),
        1,
        "query sent again"
    );
    let items = &gathering::stored_values(&db, url.as_str())["item"];
    assert_eq!(items.len(), 300);
}

/// A provider whose every answer is an endless body: `gzip` sends an
/// endless stream of compressed zeros (a few KB that expand to gigabytes),
/// otherwise plain bytes. Each connection ends when the reader goes away,
/// or after 8 GiB of expanded body at the most.
async fn endless_body(gzip: bool) -> url::Url {
    let addr = support::serve_raw(move |mut stream, _| async move {
        let head = support::read_head(&mut stream).await;
        if head.starts_with("GET /robots.txt") {
            support::write_all(
                &mut stream,
                b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            )
            .await;
            return;
        }
        let encoding = if gzip {
            "content-encoding: gzip\r\n"
        } else {
            ""
        };
        let start = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\n{encoding}connection: close\r\n\r\n"
        );
        if !support::write_all(&mut stream, start.as_bytes()).await {
            return;
        }
        let chunk = vec![b'x'; 1 << 20];
        let body = if gzip {
            // 1 MiB of zeros compresses to about 1 KiB.
            let mut encoder =
                flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            std::io::Write::write_all(&mut encoder, &vec![0u8; 1 << 20]).unwrap();
            // Not finished: the stream goes on, one full flush per MiB.
            std::io::Write::flush(&mut encoder).unwrap();
            let mut first = encoder.get_ref().clone();
            std::io::Write::write_all(&mut encoder, &vec![0u8; 1 << 20]).unwrap();
            std::io::Write::flush(&mut encoder).unwrap();
            let next = encoder.get_ref()[first.len()..].to_vec();
            if !support::write_all(&mut stream, &first).await {
                return;
            }
            first.clear();
            next
        } else {
            chunk
        };
        for _ in 0..8192 {
            if !support::write_all(&mut stream, &body).await {
                return;
            }
        }
    })
    .await;
    support::url(addr, "/form.html")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_never_ends_and_a_compression_bomb_stop_at_the_body_limit() {
    for gzip in [false, true] {
        let url = endless_body(gzip).await;
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("g.sqlite");
        let args = [
            url.to_string(),
            "--db".into(),
            db.display().to_string(),
            "--retries".into(),
            "0".into(),
        ];
        let (out, kib) = tokio::task::spawn_blocking(move || {
            support::output_with_peak_rss(Command::new(env!("CARGO_BIN_EXE_gather")).args(&args))
        })
        .await
        .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "gzip {gzip}: {stderr}");
        assert!(
            stderr.contains("body larger than 16777216 bytes"),
            "gzip {gzip}: {stderr}"
        );
        assert!(kib < 256 * 1024, "gzip {gzip}: peak {kib} KiB");
    }
}

#[test]
fn a_page_with_a_million_links_queues_no_more_than_the_page_limit() {
    use gather::fetch::Request;
    use gather::navigate::{NavigationMode, Navigator};
    let mut html = String::with_capacity(30 << 20);
    html.push_str("<html><body>");
    for n in 2..1_000_002u32 {
        html.push_str(&format!("<a href=/s?p={n}>{n}</a>"));
    }
    html.push_str("</body></html>");
    let page = gather::page::Page::parse(&html);
    let links = page.links();
    assert_eq!(links.len(), 1_000_000);
    let first = Request::get(url::Url::parse("http://h.test/s?p=1").unwrap());
    let mut navigator = Navigator::new(NavigationMode::Detect, first.clone(), Some(1000));
    let own = navigator.next_request().unwrap();
    navigator.result_page(&own.url, &links);
    let checkpoint = navigator.checkpoint().unwrap();
    assert!(checkpoint.queue.len() <= 1000, "{}", checkpoint.queue.len());
    assert!(serde_json::to_string(&checkpoint).unwrap().len() < 200_000);
    let mut fetched = 1;
    while navigator.next_request().is_some() {
        fetched += 1;
    }
    assert_eq!(fetched, 1000);
    assert!(navigator.cut_short());

    // A rule over every link of it is cut at its limit, in bounded memory.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("links.html");
    std::fs::write(&file, &html).unwrap();
    let (out, kib) = support::output_with_peak_rss(
        Command::new(env!("CARGO_BIN_EXE_gather"))
            .args(["hel", "html.body->a[*](.txt # .getAttr(href))"])
            .arg(&file),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cut at"));
    assert!(kib < 1024 * 1024, "peak {kib} KiB");
}

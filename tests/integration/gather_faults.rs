//! Faults on the provider's side: a gathering completes with every query
//! either done or recorded as failed, keeps what it gathered, and a second
//! run sends only the queries that had failed.

use crate::gathering;
use crate::support;

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::net::TcpStream;

const FORM: &str = r#"<html><head><title>Fault test</title>
<meta name="DB.QueryElement" content="q">
<meta name="DB.Result.item" content="html.body->li[*].txt">
</head><body><form action="/search" method="get"><select name="q">
<option value="ok">ok</option><option value="flaky">flaky</option><option value="dead">dead</option>
<option value="reset">reset</option><option value="stall">stall</option><option value="trunc">trunc</option>
<option value="latin">latin</option><option value="partial">partial</option>
</select><input type="submit"></form></body></html>"#;

/// A provider that misbehaves on purpose, counting what it is asked.
#[derive(Clone, Default)]
struct Provider {
    hits: Arc<Mutex<HashMap<String, u32>>>,
}

impl Provider {
    fn hits(&self, target: &str) -> u32 {
        self.hits.lock().unwrap().get(target).copied().unwrap_or(0)
    }

    async fn answer(&self, mut stream: TcpStream) {
        let head = support::read_head(&mut stream).await;
        let target = head.split_whitespace().nth(1).unwrap_or("/").to_string();
        let hit = {
            let mut hits = self.hits.lock().unwrap();
            let n = hits.entry(target.clone()).or_default();
            *n += 1;
            *n
        };
        let page = |items: &[&str]| {
            let lis: String = items.iter().map(|i| format!("<li>{i}</li>")).collect();
            format!("<html><body><ul>{lis}</ul></body></html>")
        };
        let (status, ctype, body): (u16, &str, Vec<u8>) = match target.as_str() {
            "/robots.txt" => (404, "text/plain", b"no robots here".to_vec()),
            "/form.html" => (200, "text/html; charset=utf-8", FORM.into()),
            "/search?q=ok" => (200, "text/html", page(&["ok-a", "ok-b"]).into()),
            "/search?q=flaky" if hit == 1 => (500, "text/plain", b"busy".to_vec()),
            "/search?q=flaky" => (200, "text/html", page(&["flaky-a"]).into()),
            "/search?q=dead" => (500, "text/plain", b"broken".to_vec()),
            "/search?q=reset" => {
                // Close with a reset, before any answer.
                let _ = stream.set_zero_linger();
                return;
            }
            "/search?q=stall" => {
                tokio::time::sleep(Duration::from_secs(3)).await;
                (200, "text/html", page(&["too-late"]).into())
            }
            "/search?q=trunc" if hit == 1 => {
                let body = page(&["trunc-a"]);
                let reply = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
                    body.len() + 500,
                    &body[..20]
                );
                support::write_all(&mut stream, reply.as_bytes()).await;
                return;
            }
            "/search?q=trunc" => (200, "text/html", page(&["trunc-a"]).into()),
            // Declared UTF-8, sent in Latin-1.
            "/search?q=latin" => (
                200,
                "text/html; charset=utf-8",
                b"<html><body><li>Gr\xfc\xdfe</li><li>latin-a</li></body></html>".to_vec(),
            ),
            "/search?q=partial" => (
                200,
                "text/html",
                b"<html><body><li>partial-a</li><a href='/search?q=partial&amp;page=2'>2</a></body></html>".to_vec(),
            ),
            "/search?q=partial&page=2" => (500, "text/plain", b"broken".to_vec()),
            _ => (404, "text/plain", b"not here".to_vec()),
        };
        let mut reply = format!(
            "HTTP/1.1 {status} X\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )
        .into_bytes();
        reply.extend_from_slice(&body);
        support::write_all(&mut stream, &reply).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_query_is_done_or_recorded_as_failed() {
    let provider = Provider::default();
    let server = provider.clone();
    let addr = support::serve_raw(move |stream, _| {
        let server = server.clone();
        async move { server.answer(stream).await }
    })
    .await;

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let mut options = gathering::options(&db);
    options.fetch.timeout = Duration::from_millis(700);
    let url = support::url(addr, "/form.html");

    let report = gathering::gather_url(&url, &options).await;
    let source = &report.sources[0];
    assert_eq!(source.queries_planned, 8, "report:\n{report}");
    assert_eq!(source.queries_sent, 8);
    assert_eq!(source.queries_failed, 4, "report:\n{report}");
    assert!(report.failed() && !report.bad_input());
    let stats = source.stats.as_ref().unwrap();
    assert_eq!(stats.queries_done, 4);
    assert_eq!(stats.queries_failed, 4);

    // Retried after a 500 and after a truncated body; failed after the retries.
    assert_eq!(provider.hits("/search?q=flaky"), 2);
    assert_eq!(provider.hits("/search?q=trunc"), 2);
    assert_eq!(provider.hits("/search?q=dead"), 3);

    let stored = gathering::stored_values(&db, url.as_str());
    let items: BTreeSet<&str> = stored["item"].iter().map(String::as_str).collect();
    // The first page of the query that failed on its second page is kept.
    for expected in ["ok-a", "ok-b", "flaky-a", "trunc-a", "latin-a", "partial-a"] {
        assert!(
            items.contains(expected),
            "{expected} missing from {items:?}"
        );
    }
    assert!(!items.contains("too-late"));
    // The mis-declared body is read, with the bytes that are not UTF-8 replaced.
    assert!(items.contains("Gr\u{fffd}\u{fffd}e"), "{items:?}");

    // A second run sends again only what failed.
    let again = gathering::gather_url(&url, &options).await;
    assert_eq!(again.sources[0].queries_sent, 4, "report:\n{again}");
    assert_eq!(provider.hits("/search?q=ok"), 1);
    assert_eq!(provider.hits("/search?q=latin"), 1);
    assert_eq!(provider.hits("/search?q=dead"), 6);
}

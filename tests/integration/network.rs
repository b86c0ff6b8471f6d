//! The operator's network: a proxy (`--proxy`), headers sent with every
//! request (`-H`), cookies kept across requests and read from a Netscape
//! cookie file (`--cookies`), against servers and a proxy on 127.0.0.1.

use std::sync::{Arc, Mutex};

use axum::http::HeaderMap;
use axum::routing::get;

use gather::fetch::{Fetcher, Network};

use crate::support::{self, fast_config, read_head, serve_raw, stderr, write_all};

/// A proxy that answers every request itself with a page without metadata,
/// and keeps the request heads it received.
async fn proxy() -> (std::net::SocketAddr, Arc<Mutex<Vec<String>>>) {
    let heads = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&heads);
    let addr = serve_raw(move |mut stream, _| {
        let seen = Arc::clone(&seen);
        async move {
            loop {
                let head = read_head(&mut stream).await;
                if head.is_empty() {
                    return;
                }
                seen.lock().unwrap().push(head);
                let body = "<html><head><title>via the proxy</title></head><body><p>Nothing to query.</p></body></html>";
                let answer = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                );
                if !write_all(&mut stream, answer.as_bytes()).await {
                    return;
                }
            }
        }
    })
    .await;
    (addr, heads)
}

#[tokio::test]
async fn requests_go_through_the_proxy_given() {
    let (addr, heads) = proxy().await;
    let mut network = Network::default();
    network.set_proxy(&format!("http://{addr}")).unwrap();
    let fetcher = Fetcher::new(gather::fetch::FetchConfig {
        network,
        ..fast_config()
    })
    .unwrap();
    // A host no resolver knows: only the proxy can answer for it.
    let url = url::Url::parse("http://provider.invalid/form.html").unwrap();
    let page = fetcher.get(&url).await.expect("the proxy answers");
    assert!(page.text().text.contains("via the proxy"));
    let heads = heads.lock().unwrap();
    assert!(
        heads[0].starts_with("GET http://provider.invalid/form.html HTTP/1.1"),
        "{heads:?}"
    );
}

#[tokio::test]
async fn a_dead_proxy_is_named_as_what_failed() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut network = Network::default();
    network.set_proxy(&format!("127.0.0.1:{port}")).unwrap();
    let fetcher = Fetcher::new(gather::fetch::FetchConfig {
        network,
        retries: 0,
        ..fast_config()
    })
    .unwrap();
    let url = url::Url::parse("http://provider.invalid/").unwrap();
    let error = fetcher.get(&url).await.unwrap_err().to_string();
    assert!(
        error.contains(&format!("the proxy refused the connection (is it running on that port?): http://127.0.0.1:{port}/")),
        "{error}"
    );
}

#[tokio::test]
async fn cookies_are_kept_across_requests_and_read_from_a_file() {
    let router = axum::Router::new()
        .route(
            "/login",
            get(|| async { ([("set-cookie", "session=s1; Path=/")], "welcome") }),
        )
        .route(
            "/list",
            get(|headers: HeaderMap| async move {
                let cookie = headers
                    .get("cookie")
                    .map(|v| v.to_str().unwrap_or_default().to_string())
                    .unwrap_or_default();
                let team = headers
                    .get("x-team")
                    .map(|v| v.to_str().unwrap_or_default().to_string())
                    .unwrap_or_default();
                format!("cookie [{cookie}] team [{team}]")
            }),
        );
    let addr = support::serve(router).await;
    let mut network = Network::default();
    network.add_header("X-Team: research").unwrap();
    let file = "# Netscape HTTP Cookie File\n127.0.0.1\tFALSE\t/\tFALSE\t0\tconsent\tyes\n";
    assert_eq!(network.add_cookie_file(file).unwrap(), 1);
    let fetcher = Fetcher::new(gather::fetch::FetchConfig {
        network,
        ..fast_config()
    })
    .unwrap();
    let before = fetcher.get(&support::url(addr, "/list")).await.unwrap();
    assert_eq!(before.text().text, "cookie [consent=yes] team [research]");
    fetcher.get(&support::url(addr, "/login")).await.unwrap();
    let after = fetcher.get(&support::url(addr, "/list")).await.unwrap();
    let text = after.text().text;
    assert!(
        text.contains("consent=yes") && text.contains("session=s1"),
        "{text}"
    );
}

#[tokio::test]
async fn the_command_line_sends_its_proxy_headers_and_cookies() {
    let (addr, heads) = proxy().await;
    let dir = tempfile::tempdir().unwrap();
    let cookies = dir.path().join("cookies.txt");
    std::fs::write(
        &cookies,
        "provider.invalid\tFALSE\t/\tFALSE\t0\tconsent\tyes\n",
    )
    .unwrap();
    let proxy = format!("http://{addr}");
    let cookies = cookies.to_str().unwrap().to_string();
    let out = tokio::task::spawn_blocking(move || {
        support::gather(&[
            "plan",
            "http://provider.invalid/form.html",
            "--proxy",
            &proxy,
            "-H",
            "X-Team: research",
            "--cookies",
            &cookies,
        ])
    })
    .await
    .unwrap();
    // The page has no metadata: plan says what surfaces it instead.
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("`gather spec --induce http://provider.invalid/form.html`"),
        "{}",
        stderr(&out)
    );
    let heads = heads.lock().unwrap();
    let form = heads
        .iter()
        .find(|h| h.starts_with("GET http://provider.invalid/form.html"))
        .unwrap_or_else(|| panic!("{heads:?}"))
        .to_ascii_lowercase();
    assert!(form.contains("x-team: research\r\n"), "{form}");
    assert!(form.contains("cookie: consent=yes\r\n"), "{form}");
}

#[test]
fn a_bad_header_or_cookie_file_is_bad_input() {
    let out = support::gather(&["plan", "http://127.0.0.1:1/", "-H", "no colon"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("expected 'Name: value'"),
        "{}",
        stderr(&out)
    );
    let out = support::gather(&["plan", "http://127.0.0.1:1/", "--cookies", "/no/such/file"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--cookies /no/such/file"),
        "{}",
        stderr(&out)
    );
}

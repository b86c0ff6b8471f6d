//! The fetcher against real servers that fail, stall, lie and compress.

use crate::support;

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, StatusCode};
use axum::routing::get;
use axum::Router;
use gather::fetch::{FetchConfig, FetchError, Fetcher};
use support::{counted_get, fast_config, read_head, serve, serve_raw, url, write_all, Hits};

/// A router whose `/flaky` answers 500 `failures` times, then 200 "ok".
fn flaky(hits: Hits, failures: usize) -> Router {
    Router::new().route(
        "/flaky",
        get(move || {
            let hits = hits.clone();
            async move {
                let _guard = hits.enter();
                if hits.count() <= failures {
                    (StatusCode::INTERNAL_SERVER_ERROR, "down")
                } else {
                    (StatusCode::OK, "ok")
                }
            }
        }),
    )
}

#[tokio::test]
async fn server_error_is_retried_until_it_recovers() {
    let hits = Hits::default();
    let addr = serve(flaky(hits.clone(), 2)).await;
    let fetcher = Fetcher::new(fast_config()).expect("fetcher");
    let response = fetcher.get(&url(addr, "/flaky")).await.expect("recovers");
    assert_eq!(response.status, 200);
    assert_eq!(response.body, b"ok");
    assert_eq!(response.attempts, 3);
    assert_eq!(hits.count(), 3);
    let stats = fetcher.stats();
    assert_eq!(stats.requests, 3);
    assert_eq!(stats.retries, 2);
    assert_eq!(stats.failures, 0);
}

#[tokio::test]
async fn server_error_forever_gives_up_after_retries_plus_one_attempts() {
    let hits = Hits::default();
    let addr = serve(flaky(hits.clone(), usize::MAX)).await;
    let fetcher = Fetcher::new(fast_config()).expect("fetcher");
    let error = fetcher.get(&url(addr, "/flaky")).await.unwrap_err();
    assert!(
        matches!(
            error,
            FetchError::Status {
                status: 500,
                attempts: 3,
                ..
            }
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains("3 attempt"), "{error}");
    assert_eq!(hits.count(), 3);
    assert_eq!(fetcher.stats().failures, 1);
}

#[tokio::test]
async fn client_error_is_not_retried() {
    let hits = Hits::default();
    let router = Router::new().route(
        "/gone",
        counted_get(&hits, || (StatusCode::NOT_FOUND, "no such page")),
    );
    let addr = serve(router).await;
    let fetcher = Fetcher::new(fast_config()).expect("fetcher");
    let error = fetcher.get(&url(addr, "/gone")).await.unwrap_err();
    assert!(
        matches!(
            error,
            FetchError::Status {
                status: 404,
                attempts: 1,
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(hits.count(), 1);
}

const OK_RESPONSE: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";

/// Fetches `/` from a server whose first connection misbehaves and whose
/// later ones answer [`OK_RESPONSE`].
async fn assert_ok_at_second_attempt(addr: std::net::SocketAddr) {
    let fetcher = Fetcher::new(fast_config()).expect("fetcher");
    let response = fetcher.get(&url(addr, "/")).await.expect("second attempt");
    assert_eq!(response.body, b"ok");
    assert_eq!(response.attempts, 2);
    assert_eq!(fetcher.stats().retries, 1);
}

#[tokio::test]
async fn reset_connection_is_retried() {
    // The first connection is reset after the request arrived; the next ones
    // are answered.
    let addr = serve_raw(|mut stream, n| async move {
        read_head(&mut stream).await;
        if n == 0 {
            stream.set_zero_linger().expect("SO_LINGER");
            drop(stream);
        } else {
            write_all(&mut stream, OK_RESPONSE).await;
        }
    })
    .await;
    assert_ok_at_second_attempt(addr).await;
}

#[tokio::test]
async fn reset_forever_is_a_transport_error_that_counts_attempts() {
    let connections = Hits::default();
    let seen = connections.clone();
    let addr = serve_raw(move |mut stream, _| {
        let _guard = seen.enter();
        async move {
            read_head(&mut stream).await;
            stream.set_zero_linger().expect("SO_LINGER");
        }
    })
    .await;
    let fetcher = Fetcher::new(fast_config()).expect("fetcher");
    let error = fetcher.get(&url(addr, "/")).await.unwrap_err();
    assert!(
        matches!(error, FetchError::Transport { attempts: 3, .. }),
        "{error:?}"
    );
    assert_eq!(connections.count(), 3);
}

#[tokio::test]
async fn refused_connection_fails_after_retries() {
    // A port that was free a moment ago: nobody listens on it.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    drop(listener);
    let fetcher = Fetcher::new(fast_config()).expect("fetcher");
    let error = fetcher.get(&url(addr, "/")).await.unwrap_err();
    assert!(
        matches!(error, FetchError::Transport { attempts: 3, .. }),
        "{error:?}"
    );
    assert!(
        error.to_string().contains(&format!(
            "the host refused the connection (is the server running on that port?): {addr}"
        )),
        "{error}"
    );
    assert_eq!(fetcher.stats().requests, 3);
}

#[tokio::test]
async fn a_name_that_does_not_resolve_is_named_so() {
    // `.invalid` never resolves (RFC 6761); no request leaves the machine.
    let fetcher = Fetcher::new(FetchConfig {
        retries: 0,
        ..fast_config()
    })
    .expect("fetcher");
    let target = url::Url::parse("http://gather-test.invalid/form.html").unwrap();
    let error = fetcher.get(&target).await.unwrap_err();
    assert!(
        error
            .to_string()
            .contains("the host name did not resolve (check its spelling and the DNS)"),
        "{error}"
    );
}

#[tokio::test]
async fn stall_longer_than_the_timeout_times_out() {
    let connections = Hits::default();
    let seen = connections.clone();
    let addr = serve_raw(move |mut stream, _| {
        let _guard = seen.enter();
        async move {
            read_head(&mut stream).await;
            tokio::time::sleep(Duration::from_secs(3)).await;
            write_all(&mut stream, OK_RESPONSE).await;
        }
    })
    .await;
    let config = FetchConfig {
        timeout: Duration::from_millis(150),
        retries: 1,
        ..fast_config()
    };
    let fetcher = Fetcher::new(config).expect("fetcher");
    let started = Instant::now();
    let error = fetcher.get(&url(addr, "/slow")).await.unwrap_err();
    assert!(
        matches!(error, FetchError::Timeout { attempts: 2, .. }),
        "{error:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(connections.count(), 2);
}

#[tokio::test]
async fn truncated_body_is_retried() {
    // First connection: Content-Length 100, 10 bytes, close. Then complete.
    let addr = serve_raw(|mut stream, n| async move {
        read_head(&mut stream).await;
        if n == 0 {
            write_all(
                &mut stream,
                b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\n0123456789",
            )
            .await;
        } else {
            write_all(&mut stream, OK_RESPONSE).await;
        }
    })
    .await;
    assert_ok_at_second_attempt(addr).await;
}

#[tokio::test]
async fn chunked_stream_cut_off_forever_is_an_error() {
    let addr = serve_raw(|mut stream, _| async move {
        read_head(&mut stream).await;
        write_all(
            &mut stream,
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
        )
        .await;
        // No last chunk: the stream ends in the middle.
    })
    .await;
    let fetcher = Fetcher::new(fast_config()).expect("fetcher");
    let error = fetcher.get(&url(addr, "/")).await.unwrap_err();
    match &error {
        FetchError::Transport {
            message, attempts, ..
        } => {
            assert_eq!(*attempts, 3);
            assert!(message.contains("cut off"), "{message}");
        }
        other => panic!("expected a transport error, got {other:?}"),
    }
}

#[tokio::test]
async fn declared_body_over_the_limit_is_refused_without_retry() {
    let hits = Hits::default();
    let router = Router::new().route("/big", counted_get(&hits, || "x".repeat(5000)));
    let addr = serve(router).await;
    let config = FetchConfig {
        max_body_bytes: 1000,
        ..fast_config()
    };
    let fetcher = Fetcher::new(config).expect("fetcher");
    let error = fetcher.get(&url(addr, "/big")).await.unwrap_err();
    assert!(
        matches!(error, FetchError::TooLarge { limit: 1000, .. }),
        "{error:?}"
    );
    assert_eq!(hits.count(), 1);
}

#[tokio::test]
async fn streamed_body_over_the_limit_is_stopped_while_streaming() {
    // 2000 chunks of 8 KiB, 1 ms apart: sending all of it takes > 2 s, far
    // longer than the 500 ms timeout; only a check while streaming returns
    // TooLarge in time.
    let addr = serve_raw(|mut stream, _| async move {
        read_head(&mut stream).await;
        write_all(
            &mut stream,
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
        )
        .await;
        let chunk = format!("2000\r\n{}\r\n", "y".repeat(0x2000));
        for _ in 0..2000 {
            if !write_all(&mut stream, chunk.as_bytes()).await {
                return;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    })
    .await;
    let config = FetchConfig {
        max_body_bytes: 64 * 1024,
        ..fast_config()
    };
    let fetcher = Fetcher::new(config).expect("fetcher");
    let error = fetcher.get(&url(addr, "/stream")).await.unwrap_err();
    assert!(
        matches!(error, FetchError::TooLarge { limit: 65536, .. }),
        "{error:?}"
    );
    let bytes = fetcher.stats().bytes;
    assert!(bytes <= 64 * 1024 + 0x2000 * 2, "read {bytes} bytes");
}

#[tokio::test]
async fn misdeclared_charset_is_decoded_with_replacements() {
    let router = Router::new().route(
        "/latin1",
        get(|| async {
            (
                [("content-type", "text/html; charset=utf-8")],
                b"<p>Gr\xfc\xdfe aus R\xfcgen</p>".to_vec(),
            )
        }),
    );
    let addr = serve(router).await;
    let fetcher = Fetcher::new(fast_config()).expect("fetcher");
    let response = fetcher.get(&url(addr, "/latin1")).await.expect("fetched");
    let text = response.text();
    assert!(text.had_errors);
    assert_eq!(text.encoding, encoding_rs::UTF_8);
    assert!(text.text.contains("Gr\u{fffd}\u{fffd}e"), "{}", text.text);
}

#[tokio::test]
async fn utf8_page_without_any_charset_is_detected_as_utf8() {
    // No charset in the header, no <meta>: the bytes decide, as in browsers.
    const PAGE: &str = "<!DOCTYPE html><html><head><title>Suche</title></head><body>\
        <p>Search\u{2192} Grüße aus Köln: «déjà vu» für 12 €</p></body></html>";
    let router = Router::new().route(
        "/plain",
        get(|| async { ([("content-type", "text/html")], PAGE.as_bytes().to_vec()) }),
    );
    let addr = serve(router).await;
    let fetcher = Fetcher::new(fast_config()).expect("fetcher");
    let response = fetcher.get(&url(addr, "/plain")).await.expect("fetched");
    assert_eq!(response.content_type.as_deref(), Some("text/html"));
    let text = response.text();
    assert_eq!(text.encoding, encoding_rs::UTF_8);
    assert!(!text.had_errors);
    assert_eq!(text.text, PAGE);
    let page = gather::page::Page::from_bytes(&response.body, response.content_type.as_deref());
    assert_eq!(
        page.text(),
        "Search\u{2192} Grüße aus Köln: «déjà vu» für 12 €"
    );
}

#[tokio::test]
async fn gzip_body_is_decompressed_and_user_agent_names_gather() {
    let page = "<html><body>".to_string() + &"Usedom Rügen ".repeat(200) + "</body></html>";
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(page.as_bytes()).expect("gzip");
    let compressed = encoder.finish().expect("gzip");
    assert!(compressed.len() < page.len());
    let request_headers = Arc::new(Mutex::new(None::<HeaderMap>));
    let recorded = request_headers.clone();
    let router = Router::new().route(
        "/gz",
        get(move |headers: HeaderMap| {
            let recorded = recorded.clone();
            let compressed = compressed.clone();
            async move {
                *recorded.lock().unwrap_or_else(|p| p.into_inner()) = Some(headers);
                (
                    [
                        ("content-type", "text/html; charset=utf-8"),
                        ("content-encoding", "gzip"),
                    ],
                    compressed,
                )
            }
        }),
    );
    let addr = serve(router).await;
    let fetcher = Fetcher::new(fast_config()).expect("fetcher");
    let response = fetcher.get(&url(addr, "/gz")).await.expect("fetched");
    assert_eq!(response.text().text, page);
    assert_eq!(fetcher.stats().bytes, page.len() as u64);
    let headers = request_headers
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone()
        .expect("request seen");
    let accept = headers
        .get("accept-encoding")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    assert!(accept.contains("gzip"), "{accept}");
    let agent = headers
        .get("user-agent")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    assert!(agent.starts_with("gather/"), "{agent}");
}

/// A site whose robots.txt is answered by `robots` and whose other pages say
/// "page", with counts of both kinds of requests, and a fetcher that
/// respects robots.txt.
struct RobotsSite {
    addr: std::net::SocketAddr,
    robots: Hits,
    pages: Hits,
    fetcher: Fetcher,
}

impl RobotsSite {
    async fn start(robots: (StatusCode, &'static str)) -> RobotsSite {
        let robots_hits = Hits::default();
        let page_hits = Hits::default();
        let router = Router::new()
            .route("/robots.txt", counted_get(&robots_hits, move || robots))
            .fallback(counted_get(&page_hits, || "page"));
        let fetcher = Fetcher::new(FetchConfig {
            respect_robots: true,
            ..fast_config()
        })
        .expect("fetcher");
        RobotsSite {
            addr: serve(router).await,
            robots: robots_hits,
            pages: page_hits,
            fetcher,
        }
    }
}

#[tokio::test]
async fn robots_txt_disallow_is_honoured_and_read_once() {
    let site = RobotsSite::start((
        StatusCode::OK,
        "User-agent: *\nDisallow: /\n\nUser-agent: gather\nDisallow: /private\n",
    ))
    .await;
    let (addr, fetcher) = (site.addr, &site.fetcher);
    let error = fetcher.get(&url(addr, "/private/rooms")).await.unwrap_err();
    assert!(matches!(error, FetchError::Robots { .. }), "{error:?}");
    assert!(error.to_string().contains("robots.txt"));
    let open = fetcher.get(&url(addr, "/search?region=Usedom")).await;
    assert_eq!(open.expect("allowed").body, b"page");
    fetcher
        .get(&url(addr, "/search?region=Fischland"))
        .await
        .expect("allowed");
    assert_eq!(site.robots.count(), 1);
    assert_eq!(site.pages.count(), 2);

    // Turned off, the same page is fetched.
    let careless = Fetcher::new(fast_config()).expect("fetcher");
    careless
        .get(&url(addr, "/private/rooms"))
        .await
        .expect("robots.txt not asked");
    assert_eq!(site.robots.count(), 1);
}

#[tokio::test]
async fn missing_robots_txt_allows_everything() {
    let site = RobotsSite::start((StatusCode::NOT_FOUND, "no robots here")).await;
    site.fetcher
        .get(&url(site.addr, "/anything"))
        .await
        .expect("allowed");
    assert_eq!((site.robots.count(), site.pages.count()), (1, 1));
}

#[tokio::test]
async fn unavailable_robots_txt_disallows_the_host_for_the_run() {
    let site = RobotsSite::start((StatusCode::SERVICE_UNAVAILABLE, "busy")).await;
    for path in ["/a", "/b"] {
        let error = site.fetcher.get(&url(site.addr, path)).await.unwrap_err();
        assert!(matches!(error, FetchError::Robots { .. }), "{error:?}");
    }
    // Retried like any 5xx, then remembered.
    assert_eq!(site.robots.count(), 3);
    assert_eq!(site.pages.count(), 0);
}

/// A server whose first answer is `first` with `Retry-After: retry_after`,
/// and every later one a 200 with body "free"; it counts the requests.
async fn busy_once(first: StatusCode, retry_after: &'static str) -> (std::net::SocketAddr, Hits) {
    let hits = Hits::default();
    let counted = hits.clone();
    let router = Router::new().route(
        "/busy",
        get(move || {
            let hits = counted.clone();
            async move {
                let _guard = hits.enter();
                if hits.count() == 1 {
                    (first, [("retry-after", retry_after)], "busy")
                } else {
                    (StatusCode::OK, [("retry-after", "0")], "free")
                }
            }
        }),
    );
    (serve(router).await, hits)
}

#[tokio::test]
async fn too_many_requests_is_retried_after_a_pause() {
    let (addr, hits) = busy_once(StatusCode::TOO_MANY_REQUESTS, "0").await;
    let fetcher = Fetcher::new(fast_config()).expect("fetcher");
    let response = fetcher
        .get(&url(addr, "/busy"))
        .await
        .expect("second attempt");
    assert_eq!(response.body, b"free");
    assert_eq!(response.attempts, 2);
    assert_eq!(hits.count(), 2);
}

#[tokio::test]
async fn retry_after_of_a_503_is_waited_for() {
    let (addr, hits) = busy_once(StatusCode::SERVICE_UNAVAILABLE, "1").await;
    let fetcher = Fetcher::new(fast_config()).expect("fetcher");
    let response = fetcher
        .get(&url(addr, "/busy"))
        .await
        .expect("second attempt");
    assert_eq!(response.body, b"free");
    let times = hits.times();
    assert_eq!(times.len(), 2);
    let waited = times[1] - times[0];
    assert!(waited >= Duration::from_millis(950), "waited {waited:?}");
}

#[tokio::test]
async fn retry_after_as_a_date_is_waited_for() {
    let at = std::time::SystemTime::now() + Duration::from_secs(3);
    let date: &'static str = Box::leak(httpdate::fmt_http_date(at).into_boxed_str());
    let (addr, hits) = busy_once(StatusCode::SERVICE_UNAVAILABLE, date).await;
    let fetcher = Fetcher::new(fast_config()).expect("fetcher");
    let response = fetcher
        .get(&url(addr, "/busy"))
        .await
        .expect("second attempt");
    assert_eq!(response.body, b"free");
    let times = hits.times();
    // The date has whole seconds: at least about two of the three are left.
    assert!(
        times[1] - times[0] >= Duration::from_millis(1500),
        "{:?}",
        times[1] - times[0]
    );
}

#[tokio::test]
async fn only_http_urls_are_fetched() {
    let fetcher = Fetcher::new(fast_config()).expect("fetcher");
    let target = url::Url::parse("file:///etc/passwd").expect("url");
    let error = fetcher.get(&target).await.unwrap_err();
    assert!(matches!(error, FetchError::Scheme { .. }), "{error:?}");
    assert_eq!(fetcher.stats().requests, 0);
}

#[tokio::test]
async fn robots_crawl_delay_spaces_the_requests() {
    let site = RobotsSite::start((StatusCode::OK, "User-agent: *\nCrawl-delay: 0.3\n")).await;
    for path in ["/a", "/b", "/c"] {
        site.fetcher
            .get(&url(site.addr, path))
            .await
            .expect("allowed");
    }
    let times = site.pages.times();
    assert_eq!(times.len(), 3);
    for pair in times.windows(2) {
        let gap = pair[1] - pair[0];
        assert!(gap >= Duration::from_millis(280), "gap {gap:?}");
    }
}

#[tokio::test]
async fn a_huge_robots_txt_is_read_once_up_to_its_first_500_kib() {
    let mut robots = String::from("User-agent: gather\nDisallow: /private\n");
    while robots.len() < 17 << 20 {
        robots.push_str("# a provider that writes far too much into its robots.txt\n");
    }
    robots.push_str("User-agent: *\nDisallow: /\n");
    let robots: &'static str = Box::leak(robots.into_boxed_str());
    let site = RobotsSite::start((StatusCode::OK, robots)).await;
    let error = site
        .fetcher
        .get(&url(site.addr, "/private/x"))
        .await
        .unwrap_err();
    assert!(matches!(error, FetchError::Robots { .. }), "{error:?}");
    site.fetcher
        .get(&url(site.addr, "/search"))
        .await
        .expect("allowed: the group after 500 KiB is not read");
    assert_eq!(site.robots.count(), 1);
    let read = site.fetcher.stats().bytes;
    assert!(read < 1 << 20, "{read} bytes read");
}

/// A host that takes 300 ms to answer; the start times of its requests when
/// eight are asked at once with two in flight.
async fn starts_against_a_slow_host(auto_throttle: bool) -> Vec<Instant> {
    let hits = Hits::default();
    let counted = hits.clone();
    let router = Router::new().route(
        "/slow",
        get(move || {
            let hits = counted.clone();
            async move {
                let _guard = hits.enter();
                tokio::time::sleep(Duration::from_millis(300)).await;
                "slow"
            }
        }),
    );
    let addr = serve(router).await;
    let fetcher = Fetcher::new(FetchConfig {
        concurrency_per_host: 2,
        auto_throttle,
        timeout: Duration::from_secs(5),
        ..fast_config()
    })
    .expect("fetcher");
    let target = url(addr, "/slow");
    futures::future::join_all((0..8).map(|_| fetcher.get(&target))).await;
    hits.times()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_throttle_spaces_the_requests_to_a_slow_host() {
    // Without it, requests start in pairs.
    let plain = starts_against_a_slow_host(false).await;
    let paired = plain
        .windows(2)
        .filter(|w| w[1] - w[0] < Duration::from_millis(30))
        .count();
    assert!(paired >= 3, "{plain:?}");
    // With it, once the host's latency is known, the starts spread out.
    let throttled = starts_against_a_slow_host(true).await;
    assert_eq!(throttled.len(), 8);
    for pair in throttled[3..].windows(2) {
        let gap = pair[1] - pair[0];
        assert!(
            gap >= Duration::from_millis(60),
            "gap {gap:?} in {throttled:?}"
        );
    }
}

//! Politeness (slots and delay per host) and redirects, seen from the server.

use crate::support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::Path;
use axum::http::{HeaderMap, Method as HttpMethod, StatusCode};
use axum::response::Redirect;
use axum::routing::{any, get};
use axum::Router;
use gather::fetch::{Credentials, FetchConfig, FetchError, Fetcher};
use gather::fetch::{Method, Request};
use support::{fast_config, serve, url, Hits};

/// `/slow` takes `pause` to answer and records every request.
fn slow_site(hits: Hits, pause: Duration) -> Router {
    Router::new().route(
        "/slow/{n}",
        get(move |Path(n): Path<u32>| {
            let hits = hits.clone();
            async move {
                let _guard = hits.enter();
                tokio::time::sleep(pause).await;
                format!("page {n}")
            }
        }),
    )
}

/// Fetches `/slow/0` .. `/slow/{n-1}` at once from clones of one fetcher.
async fn fetch_all_at_once(fetcher: &Fetcher, addr: std::net::SocketAddr, n: u32) {
    let tasks: Vec<_> = (0..n)
        .map(|i| {
            let fetcher = fetcher.clone();
            let target = url(addr, &format!("/slow/{i}"));
            tokio::spawn(async move { fetcher.get(&target).await })
        })
        .collect();
    for (i, task) in tasks.into_iter().enumerate() {
        let response = task.await.expect("task").expect("fetched");
        assert_eq!(response.text().text, format!("page {i}"));
    }
}

#[tokio::test]
async fn at_most_two_requests_in_flight_per_host_by_default() {
    let hits = Hits::default();
    let addr = serve(slow_site(hits.clone(), Duration::from_millis(60))).await;
    let fetcher = Fetcher::new(FetchConfig {
        timeout: Duration::from_secs(5),
        ..fast_config()
    })
    .expect("fetcher");
    assert_eq!(fetcher.config().concurrency_per_host, 2);
    fetch_all_at_once(&fetcher, addr, 8).await;
    assert_eq!(hits.count(), 8);
    assert_eq!(hits.max_in_flight(), 2);
}

#[tokio::test]
async fn concurrency_per_host_is_settable() {
    let hits = Hits::default();
    let addr = serve(slow_site(hits.clone(), Duration::from_millis(30))).await;
    let fetcher = Fetcher::new(FetchConfig {
        concurrency_per_host: 1,
        timeout: Duration::from_secs(5),
        ..fast_config()
    })
    .expect("fetcher");
    fetch_all_at_once(&fetcher, addr, 4).await;
    assert_eq!(hits.max_in_flight(), 1);
    assert!(Fetcher::new(FetchConfig {
        concurrency_per_host: 0,
        ..fast_config()
    })
    .is_err());
}

#[tokio::test]
async fn delay_separates_the_starts_of_requests_to_one_host() {
    let hits = Hits::default();
    let addr = serve(slow_site(hits.clone(), Duration::ZERO)).await;
    let delay = Duration::from_millis(80);
    let fetcher = Fetcher::new(FetchConfig {
        delay,
        timeout: Duration::from_secs(5),
        ..fast_config()
    })
    .expect("fetcher");
    fetch_all_at_once(&fetcher, addr, 4).await;
    let times = hits.times();
    assert_eq!(times.len(), 4);
    for pair in times.windows(2) {
        let gap = pair[1] - pair[0];
        // Server-side arrival; allow a little scheduling jitter below.
        assert!(gap >= delay - Duration::from_millis(10), "gap {gap:?}");
    }
}

/// Method, body and Authorization header of one request.
#[derive(Clone, Debug, PartialEq)]
struct SeenRequest {
    method: String,
    body: String,
    auth: Option<String>,
}

/// Records every request to `/seen`.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<SeenRequest>>>);

impl Seen {
    fn record(&self, method: &HttpMethod, headers: &HeaderMap, body: String) {
        let auth = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(SeenRequest {
                method: method.to_string(),
                body,
                auth,
            });
    }

    fn all(&self) -> Vec<SeenRequest> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

fn redirect_site(seen: Seen, hits: Hits) -> Router {
    Router::new()
        .route(
            "/chain/{n}",
            get(move |Path(n): Path<u32>| {
                let hits = hits.clone();
                async move {
                    let _guard = hits.enter();
                    Redirect::temporary(&format!("/chain/{}", n + 1))
                }
            }),
        )
        .route("/loop/a", get(|| async { Redirect::to("/loop/b") }))
        .route("/loop/b", get(|| async { Redirect::to("a") }))
        .route("/dir/start", get(|| async { Redirect::to("next?x=1") }))
        .route(
            "/post/{code}",
            any(|Path(code): Path<u16>| async move {
                let status = StatusCode::from_u16(code).unwrap_or(StatusCode::BAD_REQUEST);
                (status, [("location", "/seen")], "")
            }),
        )
        .route(
            "/seen",
            any(
                move |method: HttpMethod, headers: HeaderMap, body: String| {
                    let seen = seen.clone();
                    async move {
                        seen.record(&method, &headers, body);
                        "landed"
                    }
                },
            ),
        )
        .route("/dir/next", get(|| async { "next page" }))
}

#[tokio::test]
async fn redirects_beyond_the_limit_are_an_error() {
    let hits = Hits::default();
    let addr = serve(redirect_site(Seen::default(), hits.clone())).await;
    let fetcher = Fetcher::new(FetchConfig {
        max_redirects: 3,
        ..fast_config()
    })
    .expect("fetcher");
    let error = fetcher.get(&url(addr, "/chain/0")).await.unwrap_err();
    assert!(matches!(error, FetchError::Redirect { .. }), "{error:?}");
    assert!(
        error.to_string().contains("more than 3 redirect"),
        "{error}"
    );
    assert_eq!(hits.count(), 4);
}

#[tokio::test]
async fn redirect_loop_is_detected() {
    let addr = serve(redirect_site(Seen::default(), Hits::default())).await;
    let fetcher = Fetcher::new(fast_config()).expect("fetcher");
    let error = fetcher.get(&url(addr, "/loop/a")).await.unwrap_err();
    assert!(error.to_string().contains("redirect loop"), "{error}");
    assert_eq!(fetcher.stats().requests, 2);
}

#[tokio::test]
async fn relative_location_is_resolved() {
    let addr = serve(redirect_site(Seen::default(), Hits::default())).await;
    let fetcher = Fetcher::new(fast_config()).expect("fetcher");
    let response = fetcher
        .get(&url(addr, "/dir/start"))
        .await
        .expect("follows");
    assert_eq!(response.url, url(addr, "/dir/next?x=1"));
    assert_eq!(response.body, b"next page");
}

fn post(target: url::Url) -> Request {
    Request {
        method: Method::Post,
        url: target,
        body: Some(b"region=Usedom".to_vec()),
        content_type: Some("application/x-www-form-urlencoded".into()),
    }
}

#[tokio::test]
async fn see_other_turns_a_post_into_a_get_and_307_keeps_it() {
    let seen = Seen::default();
    let addr = serve(redirect_site(seen.clone(), Hits::default())).await;
    let fetcher = Fetcher::new(fast_config()).expect("fetcher");
    for code in [303, 302, 307, 308] {
        let response = fetcher
            .fetch(&post(url(addr, &format!("/post/{code}"))))
            .await
            .expect("follows");
        assert_eq!(response.url, url(addr, "/seen"));
    }
    let methods: Vec<(String, String)> = seen
        .all()
        .into_iter()
        .map(|seen| (seen.method, seen.body))
        .collect();
    let get = ("GET".to_string(), String::new());
    let kept = ("POST".to_string(), "region=Usedom".to_string());
    assert_eq!(methods, vec![get.clone(), get, kept.clone(), kept]);
}

#[tokio::test]
async fn credentials_are_not_sent_to_the_host_a_redirect_leads_to() {
    let other_seen = Seen::default();
    let other = serve(redirect_site(other_seen.clone(), Hits::default())).await;
    let own_seen = Seen::default();
    let recorded = own_seen.clone();
    let target = url(other, "/seen");
    let own = serve(Router::new().route(
        "/config",
        get(move |method: HttpMethod, headers: HeaderMap| {
            let recorded = recorded.clone();
            let target = target.clone();
            async move {
                recorded.record(&method, &headers, String::new());
                Redirect::to(target.as_str())
            }
        }),
    ))
    .await;
    let mut credentials = Credentials::default();
    credentials.add(&format!("127.0.0.1:{}", own.port()), "provider", "secret");
    let fetcher = Fetcher::new(FetchConfig {
        credentials,
        ..fast_config()
    })
    .expect("fetcher");
    let response = fetcher.get(&url(own, "/config")).await.expect("follows");
    assert_eq!(response.url, url(other, "/seen"));
    let own_auth = own_seen.all()[0].auth.clone();
    // "provider:secret" in base64.
    assert_eq!(own_auth.as_deref(), Some("Basic cHJvdmlkZXI6c2VjcmV0"));
    let other_requests = other_seen.all();
    assert_eq!(other_requests.len(), 1);
    assert_eq!(other_requests[0].auth, None);
}

//! A provider that answers slowly, for the tests and the benchmark of
//! gathering with many workers: one form with a query element `q` of
//! [`SlowConfig::queries`] values, every query answered in
//! [`SlowConfig::pages`] result pages, each after [`SlowConfig::latency`].
//! The site records every result request (which query, which page, when it
//! started and ended) and the most requests it had in flight at once.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Query, State};
use axum::response::Html;
use axum::routing::get;
use axum::Router;
use url::Url;

/// How the slow provider answers.
#[derive(Debug, Clone)]
pub struct SlowConfig {
    /// Values of the query element, so queries in the plan.
    pub queries: usize,
    /// Result pages per query.
    pub pages: u64,
    /// Time before every result page answers.
    pub latency: Duration,
}

/// One result request the site answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlowRequest {
    /// The query's value of `q`.
    pub query: String,
    pub page: u64,
    /// Since the site started.
    pub started: Duration,
    pub ended: Duration,
}

#[derive(Default)]
struct Counters {
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
}

struct SlowState {
    config: SlowConfig,
    start: Instant,
    counters: Counters,
    log: Mutex<Vec<SlowRequest>>,
}

/// A running slow provider; it stops with the runtime it was started on.
pub struct SlowSite {
    form: Url,
    state: Arc<SlowState>,
}

/// The value of `q` of query `n`.
fn query_value(n: usize) -> String {
    format!("q{n:04}")
}

fn form_page(config: &SlowConfig) -> String {
    let options: String = (0..config.queries)
        .map(|n| format!("<option>{}</option>", query_value(n)))
        .collect();
    format!(
        r#"<html><head><title>Slow provider</title>
<meta name="DB.QueryElement" content="q">
<meta name="DB.Result.item" content="html.body->li[*].txt">
</head><body><form action="/search"><select name="q">{options}</select></form></body></html>"#
    )
}

async fn search(
    State(state): State<Arc<SlowState>>,
    Query(params): Query<HashMap<String, String>>,
) -> Html<String> {
    let started = state.start.elapsed();
    let now = state.counters.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    state
        .counters
        .max_in_flight
        .fetch_max(now, Ordering::SeqCst);
    tokio::time::sleep(state.config.latency).await;
    let query = params.get("q").cloned().unwrap_or_default();
    let page: u64 = params.get("page").and_then(|p| p.parse().ok()).unwrap_or(1);
    let next = if page < state.config.pages {
        format!("<a href='/search?q={query}&amp;page={}'>next</a>", page + 1)
    } else {
        String::new()
    };
    let body = format!(
        "<html><body><li>{query}-{page}-a</li><li>{query}-{page}-b</li><li>common-{page}</li>{next}</body></html>"
    );
    state.counters.in_flight.fetch_sub(1, Ordering::SeqCst);
    state
        .log
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(SlowRequest {
            query,
            page,
            started,
            ended: state.start.elapsed(),
        });
    Html(body)
}

impl SlowSite {
    /// Serves the provider on a free port of 127.0.0.1.
    pub async fn start(config: SlowConfig) -> anyhow::Result<SlowSite> {
        let form = form_page(&config);
        let state = Arc::new(SlowState {
            config,
            start: Instant::now(),
            counters: Counters::default(),
            log: Mutex::new(Vec::new()),
        });
        let app = Router::new()
            .route("/form.html", get(move || async move { Html(form) }))
            .route("/search", get(search))
            .with_state(Arc::clone(&state));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(SlowSite {
            form: Url::parse(&format!("http://{addr}/form.html"))?,
            state,
        })
    }

    /// The form page: what to gather.
    pub fn form_url(&self) -> &Url {
        &self.form
    }

    /// When the site started: the origin of [`SlowRequest::started`].
    pub fn started_at(&self) -> Instant {
        self.state.start
    }

    /// Every result request answered so far, in the order they ended.
    pub fn requests(&self) -> Vec<SlowRequest> {
        self.state
            .log
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The most result requests that were in flight at once.
    pub fn max_in_flight(&self) -> usize {
        self.state.counters.max_in_flight.load(Ordering::SeqCst)
    }

    /// Every value of the attribute `item` a complete gathering finds.
    pub fn expected_items(&self) -> BTreeSet<String> {
        let config = &self.state.config;
        let mut items = BTreeSet::new();
        for page in 1..=config.pages {
            items.insert(format!("common-{page}"));
            for n in 0..config.queries {
                for suffix in ["a", "b"] {
                    items.insert(format!("{}-{page}-{suffix}", query_value(n)));
                }
            }
        }
        items
    }
}

//! Stateful forms: requests built from the form as the page they follow
//! shows it (state tokens, a session cookie), and a select whose options
//! come in the answer to its parent's value, on the demo's ASP.NET-style
//! Quotation Register.

use std::collections::BTreeSet;

use gather::demo::{quotes, DemoConfig, DemoSite};
use gather::gatherer::{self, Report, Start};

use crate::gathering;

async fn site() -> DemoSite {
    DemoSite::start(DemoConfig::default())
        .await
        .expect("demo site starts")
}

/// The spec of `specs/quotes.yaml` pointed at `site`, written into `dir`.
fn spec_for(site: &DemoSite, dir: &std::path::Path) -> std::path::PathBuf {
    let text = std::fs::read_to_string(crate::support::repo_path("specs/quotes.yaml")).unwrap();
    let url = site.base_url().join(quotes::PATH).unwrap();
    let text = text.replace("http://127.0.0.1:8642/quotes/Search.aspx", url.as_str());
    let path = dir.join("quotes.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

/// Precision, recall and F1 of the quotations gathered (the values of
/// whichever attribute holds them) against the register.
fn f1(db: &std::path::Path, url: &str) -> (f64, f64, f64) {
    let expected = quotes::expected_texts();
    let stored = gathering::stored_values(db, url);
    let best: BTreeSet<String> = stored
        .values()
        .max_by_key(|values| values.intersection(&expected).count())
        .cloned()
        .unwrap_or_default();
    let hit = best.intersection(&expected).count() as f64;
    let precision = if best.is_empty() {
        0.0
    } else {
        hit / best.len() as f64
    };
    let recall = hit / expected.len() as f64;
    let f1 = if hit == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    };
    (precision, recall, f1)
}

/// Requests the provider answered.
fn asked(site: &DemoSite) -> usize {
    site.requests()
        .iter()
        .filter(|r| r.target.starts_with(quotes::PATH))
        .count()
}

async fn gather_spec(site: &DemoSite, dir: &std::path::Path) -> Report {
    let spec = spec_for(site, dir);
    let db = dir.join("g.sqlite");
    gatherer::gather(&[Start::spec(&spec).unwrap()], &gathering::options(&db))
        .await
        .expect("the gatherer's database works")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spec_gathers_every_quotation_behind_post_backs_and_a_state_token() {
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let report = gather_spec(&site, dir.path()).await;
    let url = site.base_url().join(quotes::PATH).unwrap();
    assert!(!report.failed(), "report:\n{report}");
    let (precision, recall, f1) = f1(&dir.path().join("g.sqlite"), url.as_str());
    assert_eq!(
        (precision, recall, f1),
        (1.0, 1.0, 1.0),
        "report:\n{report}"
    );
    let source = &report.sources[0];
    // One query per author and tag of theirs: the plan is a tree.
    let pairs: BTreeSet<(&str, &str)> =
        quotes::quotes().iter().map(|q| (q.author, q.tag)).collect();
    assert_eq!(
        source.queries_planned,
        pairs.len() as u64,
        "report:\n{report}"
    );
    assert_eq!(source.completeness.state(), "complete", "report:\n{report}");
    // Sessions end after a number of requests: the run outlived one, and
    // the queries the provider refused were sent again, not lost.
    let requests = asked(&site);
    assert!(
        requests as u32 > quotes::SESSION_REQUESTS,
        "{requests} requests"
    );
    assert!(
        source
            .warnings
            .iter()
            .any(|w| w.contains("fresh form page")),
        "report:\n{report}"
    );
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_url_alone_finds_the_dependent_select_and_gathers_every_quotation() {
    // The spec's run, for its requests.
    let spec_site = site().await;
    let spec_dir = tempfile::tempdir().unwrap();
    let spec_report = gather_spec(&spec_site, spec_dir.path()).await;
    assert!(!spec_report.failed(), "report:\n{spec_report}");
    let by_spec = asked(&spec_site);
    spec_site.shutdown().await;

    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let url = site.base_url().join(quotes::PATH).unwrap();
    let report = gathering::gather_url(&url, &gathering::options(&db)).await;
    assert!(!report.failed(), "report:\n{report}");
    let (precision, recall, f1) = f1(&db, url.as_str());
    assert_eq!(
        (precision, recall, f1),
        (1.0, 1.0, 1.0),
        "report:\n{report}"
    );
    // The author and tag columns too, whatever they were named; the
    // filled form each answer echoes is read as no attribute.
    let stored = gathering::stored_values(&db, url.as_str());
    let authors: BTreeSet<String> = quotes::AUTHORS.iter().map(|a| a.1.to_string()).collect();
    let tags: BTreeSet<String> = quotes::quotes()
        .iter()
        .filter_map(|q| quotes::TAGS.iter().find(|t| t.0 == q.tag))
        .map(|t| t.1.to_string())
        .collect();
    assert!(stored.values().any(|v| *v == authors), "{stored:?}");
    assert!(stored.values().any(|v| *v == tags), "{stored:?}");
    let alone = asked(&site);
    assert!(
        alone * 4 <= by_spec * 5,
        "{alone} requests from the URL alone, {by_spec} with the spec; report:\n{report}"
    );
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_refused_again_from_a_fresh_form_page_fails_its_query_and_says_so() {
    use axum::routing::get;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    // Every form page issues a new token; the search refuses them all.
    let pages = Arc::new(AtomicUsize::new(0));
    let issued = Arc::clone(&pages);
    let router = axum::Router::new().route(
        "/find",
        get(move || {
            let n = issued.fetch_add(1, Ordering::SeqCst);
            async move {
                axum::response::Html(format!(
                    r#"<html><body><form method="post" action="/find">
                    <input type="hidden" name="csrf_token" value="t{n}">
                    <select name="kind"><option value="a">A</option><option value="b">B</option></select>
                    <input type="submit" value="Search"></form></body></html>"#
                ))
            }
        })
        .post(|| async {
            (
                axum::http::StatusCode::FORBIDDEN,
                "<html><body><p>The form has expired.</p></body></html>",
            )
        }),
    );
    let addr = crate::support::serve(router).await;
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("find.yaml");
    std::fs::write(
        &spec,
        format!(
            "url: http://{addr}/find\nquery_element: kind\nresults:\n  - attribute: text\n    rule: html.body.p.txt\n"
        ),
    )
    .unwrap();
    let db = dir.path().join("g.sqlite");
    let report = gatherer::gather(&[Start::spec(&spec).unwrap()], &gathering::options(&db))
        .await
        .expect("the gatherer's database works");
    let source = &report.sources[0];
    assert_eq!(source.queries_failed, 2, "report:\n{report}");
    assert!(
        source
            .failures
            .iter()
            .all(|f| f.contains("HTTP 403") && f.contains("refused again")),
        "report:\n{report}"
    );
    // Each query was sent twice, the second time with the token of a
    // fresh form page.
    assert!(pages.load(Ordering::SeqCst) >= 2, "report:\n{report}");
}

/// On a shared plan (PostgreSQL), the stateful source is gathered by the
/// process that reads it, never planned for workers that would send its
/// requests without the pages they follow; the register is gathered whole
/// and the summary says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateful_source_on_a_shared_database_is_gathered_by_its_own_process() {
    let pg = gather::demo::postgres::LocalPostgres::start()
        .unwrap_or_else(|e| panic!("PostgreSQL for the tests: {e}"));
    let db = pg.database("stateful").unwrap();
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_for(&site, dir.path());
    let options = gathering::options(std::path::Path::new(&db));
    let report = gatherer::gather(&[Start::spec(&spec).unwrap()], &options)
        .await
        .expect("the gatherer's database works");
    assert!(!report.failed(), "report:\n{report}");
    let source = &report.sources[0];
    assert!(
        source
            .notes
            .iter()
            .any(|n| n.contains("not put into the shared plan")),
        "report:\n{report}"
    );
    assert_eq!(source.completeness.state(), "complete", "report:\n{report}");
    let url = site.base_url().join(quotes::PATH).unwrap().to_string();
    let stored = tokio::task::spawn_blocking(move || {
        use gather::store::{Location, Store};
        let store = Store::open_at(&Location::of(std::path::Path::new(&db))).unwrap();
        let source = store
            .sources()
            .unwrap()
            .into_iter()
            .find(|s| s.info.url == url)
            .expect("the source is stored");
        store.values(source.id).unwrap()
    })
    .await
    .unwrap();
    let expected = quotes::expected_texts();
    assert!(
        stored
            .values()
            .any(|v| v.iter().cloned().collect::<BTreeSet<_>>() == expected),
        "report:\n{report}"
    );
    site.shutdown().await;
}

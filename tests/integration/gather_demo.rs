//! End to end: every variant of the demo site gathered over HTTP on
//! 127.0.0.1, the values checked against the provider's own database.

use crate::gathering;

use gather::demo::{DemoConfig, DemoSite, Variant};

async fn site() -> DemoSite {
    crate::support::demo_site(400).await
}

async fn gathers_exactly(variant: Variant) {
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let mut options = gathering::options(&db);
    let base = site.base_url();
    let config = DemoConfig::default();
    options.fetch.credentials.add(
        &format!("127.0.0.1:{}", base.port().unwrap()),
        &config.user,
        &config.password,
    );
    let url = site.url(variant);
    let report = gathering::gather_url(&url, &options).await;
    assert!(!report.failed(), "report:\n{report}");
    assert_eq!(report.queries_failed(), 0);
    let expected = site.expected(variant);
    assert!(!expected.is_empty());
    // Cooperative sources are stored under the form's URL, named in the DBContent document.
    let stored_under = report.sources[0].url.to_string();
    let stored = gathering::stored_values(&db, &stored_under);
    assert_eq!(stored, expected, "report:\n{report}");
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listed_regions() {
    gathers_exactly(Variant::Listed).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regions_extracted_from_results() {
    gathers_exactly(Variant::Extracted).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paged_results_without_navigation_url() {
    gathers_exactly(Variant::Paged).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paged_results_with_navigation_url() {
    gathers_exactly(Variant::NavigationUrl).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn post_form() {
    gathers_exactly(Variant::Post).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_file_behind_basic_auth() {
    gathers_exactly(Variant::ConfigAuth).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cooperative_summarizer() {
    gathers_exactly(Variant::Cooperative).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn second_run_sends_no_finished_query() {
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let options = gathering::options(&db);
    let url = site.url(Variant::Listed);
    let first = gathering::gather_url(&url, &options).await;
    assert!(first.sources[0].queries_sent > 0);
    let before = site.requests().len();
    let second = gathering::gather_url(&url, &options).await;
    assert_eq!(second.sources[0].queries_sent, 0);
    assert_eq!(
        second.sources[0].queries_skipped,
        first.sources[0].queries_sent
    );
    let again: Vec<_> = site.requests()[before..]
        .iter()
        .filter(|r| r.target.contains("auswahl.pl"))
        .map(|r| r.target.clone())
        .collect();
    assert!(again.is_empty(), "queries sent again: {again:?}");
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crawl_from_the_start_page_finds_the_forms() {
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let mut options = gathering::options(&db);
    let config = DemoConfig::default();
    options.fetch.credentials.add(
        &format!("127.0.0.1:{}", site.base_url().port().unwrap()),
        &config.user,
        &config.password,
    );
    let report = gathering::gather_url(&site.base_url(), &options).await;
    assert!(!report.failed(), "report:\n{report}");
    assert!(report.ordinary_pages >= 2, "report:\n{report}");
    let listed = site.url(Variant::Listed).to_string();
    assert!(
        report.sources.iter().any(|s| s.url.as_str() == listed),
        "report:\n{report}"
    );
    assert_eq!(
        gathering::stored_values(&db, &listed),
        site.expected(Variant::Listed)
    );
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spec_for_the_hotel_guide_gathers_what_its_metadata_gathers() {
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    // specs/hotels.yaml describes `gather demo --serve` on its default port.
    let spec = std::fs::read_to_string(crate::support::repo_path("specs/hotels.yaml"))
        .unwrap()
        .replace("http://127.0.0.1:8642/", site.base_url().as_str());
    let spec_path = dir.path().join("hotels.yaml");
    std::fs::write(&spec_path, spec).unwrap();
    let db = dir.path().join("g.sqlite");
    let report = gather::gatherer::gather(
        &[gather::gatherer::Start::spec(&spec_path).unwrap()],
        &gathering::options(&db),
    )
    .await
    .unwrap();
    assert!(!report.failed(), "report:\n{report}");
    let url = site.url(Variant::Listed).to_string();
    assert_eq!(
        gathering::stored_values(&db, &url),
        site.expected(Variant::Extracted)
    );
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_cut_the_gathering_short_and_say_so() {
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let mut options = gathering::options(&db);
    options.max_queries = Some(3);
    options.max_pages = Some(2);
    let url = site.url(Variant::Paged);
    let report = gathering::gather_url(&url, &options).await;
    let source = &report.sources[0];
    assert_eq!(source.queries_planned, 3, "report:\n{report}");
    assert_eq!(source.queries_sent, 3);
    assert_eq!(
        source.pages, 6,
        "two result pages for each of three queries"
    );
    let incomplete = source
        .stats
        .as_ref()
        .and_then(|s| s.incomplete.clone())
        .expect("the source is marked incomplete");
    assert!(incomplete.contains("3 of 8 queries"), "{incomplete}");
    assert!(incomplete.contains("page limit"), "{incomplete}");
    assert!(
        report.to_string().contains("incomplete:"),
        "report:\n{report}"
    );
    let export = gathering::export_line(&db, url.as_str()).unwrap();
    assert_eq!(
        export["stats"]["incomplete"].as_str(),
        Some(incomplete.as_str())
    );

    // Without the limits the other five queries are sent; the three done
    // under the page limit stay done, and are refined by the price
    // select they leave open: the source is complete.
    let report = gathering::gather_url(&url, &gathering::options(&db)).await;
    let source = &report.sources[0];
    assert_eq!(source.queries_skipped, 3, "report:\n{report}");
    assert!(source.queries_refined > 0, "report:\n{report}");
    assert_eq!(
        source.queries_sent,
        5 + source.queries_refined,
        "report:\n{report}"
    );
    assert_eq!(
        source.stats.as_ref().unwrap().incomplete,
        None,
        "report:\n{report}"
    );
    assert_eq!(
        gathering::stored_values(&db, url.as_str()),
        site.expected(Variant::Paged)
    );

    // A database gathered without limits is complete.
    let whole = dir.path().join("whole.sqlite");
    let report = gathering::gather_url(&url, &gathering::options(&whole)).await;
    assert_eq!(report.sources[0].stats.as_ref().unwrap().incomplete, None);
    site.shutdown().await;
}

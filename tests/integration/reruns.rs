//! Re-runs an operator can trust: a source whose rules changed is read again
//! from its kept result pages without a request; `gather reextract` does the
//! same from a spec; `--fresh` starts a source over.

use crate::gathering;

use gather::demo::{DemoConfig, DemoSite, Variant};

/// specs/hotels.yaml for `site`, with its `DB.Result` prefix replaced by
/// `prefix`.
fn hotels_spec(site: &DemoSite, prefix: &str) -> String {
    std::fs::read_to_string(crate::support::repo_path("specs/hotels.yaml"))
        .unwrap()
        .replace("http://127.0.0.1:8642/", site.base_url().as_str())
        .replace("prefix: html.body->table[1].", &format!("prefix: {prefix}"))
}

/// Result pages (queries) the demo site answered so far.
fn queries_sent(site: &DemoSite) -> usize {
    site.requests()
        .iter()
        .filter(|r| r.target.contains("auswahl.pl"))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fixed_rule_is_applied_to_the_kept_pages_without_a_request() {
    let site = DemoSite::start(DemoConfig {
        hotels: 400,
        ..DemoConfig::default()
    })
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("hotels.yaml");
    let db = dir.path().join("g.sqlite");
    let gather_spec = || async {
        gather::gatherer::gather(
            &[gather::gatherer::Start::spec(&spec).unwrap()],
            &gathering::options(&db),
        )
        .await
        .unwrap()
    };
    // A wrong prefix: the rules find nothing but the regions.
    std::fs::write(&spec, hotels_spec(&site, "html.body->table[7].")).unwrap();
    gather_spec().await;
    let sent = queries_sent(&site);
    assert!(sent > 0);
    let url = site.url(Variant::Listed).to_string();
    assert!(!gathering::stored_values(&db, &url).contains_key("name"));

    // The rule fixed: the kept pages are read again, no query is sent.
    std::fs::write(&spec, hotels_spec(&site, "html.body->table[1].")).unwrap();
    let report = gather_spec().await;
    assert_eq!(queries_sent(&site), sent, "a query was sent again");
    let notes = &report.sources[0].notes;
    assert!(
        notes
            .iter()
            .any(|n| n.contains("the rules changed") && n.contains("no request sent")),
        "{notes:?}"
    );
    assert_eq!(
        gathering::stored_values(&db, &url),
        site.expected(Variant::Extracted)
    );

    // gather reextract applies a spec's rules with the site gone.
    std::fs::write(&spec, hotels_spec(&site, "html.body->table[7].")).unwrap();
    site.shutdown().await;
    let out = crate::support::gather(&[
        "reextract",
        "--db",
        db.to_str().unwrap(),
        "--spec",
        spec.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        crate::support::stderr(&out)
    );
    assert!(crate::support::stdout(&out).contains("kept result pages read again"));
    assert!(!gathering::stored_values(&db, &url).contains_key("name"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fresh_sends_every_query_again_and_without_kept_pages_changed_rules_do_too() {
    let site = DemoSite::start(DemoConfig {
        hotels: 300,
        ..DemoConfig::default()
    })
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("hotels.yaml");
    let db = dir.path().join("g.sqlite");
    std::fs::write(&spec, hotels_spec(&site, "html.body->table[1].")).unwrap();
    let run = |options: gather::gatherer::Options| {
        let spec = spec.clone();
        async move {
            gather::gatherer::gather(&[gather::gatherer::Start::spec(&spec).unwrap()], &options)
                .await
                .unwrap()
        }
    };
    let mut options = gathering::options(&db);
    options.keep_pages = false;
    run(options.clone()).await;
    let first = queries_sent(&site);
    // Nothing changed: nothing is sent.
    run(options.clone()).await;
    assert_eq!(queries_sent(&site), first);
    // --fresh: everything again.
    options.fresh = true;
    let report = run(options.clone()).await;
    assert_eq!(queries_sent(&site), 2 * first);
    assert!(report.sources[0].notes[0].contains("--fresh"));
    // Changed rules and no kept pages: the done queries are sent again.
    options.fresh = false;
    std::fs::write(&spec, hotels_spec(&site, "html.body->table[7].")).unwrap();
    let report = run(options).await;
    assert_eq!(queries_sent(&site), 3 * first);
    assert!(
        report.sources[0].notes[0].contains("were not kept"),
        "{:?}",
        report.sources[0].notes
    );
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_with_a_sample_evaluates_the_rules_on_one_answer() {
    let site = DemoSite::start(DemoConfig {
        hotels: 200,
        ..DemoConfig::default()
    })
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("hotels.yaml");
    let check = |spec: std::path::PathBuf| {
        tokio::task::spawn_blocking(move || {
            crate::support::gather(&["check", "--sample", "--spec", spec.to_str().unwrap()])
        })
    };
    std::fs::write(&spec, hotels_spec(&site, "html.body->table[1].")).unwrap();
    let out = check(spec.clone()).await.unwrap();
    let text = crate::support::stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("  sample: GET "), "{text}");
    assert!(text.contains("    name: "), "{text}");
    // A wrong prefix: the sample shows it before a gathering finds nothing.
    std::fs::write(&spec, hotels_spec(&site, "html.body->table[7].")).unwrap();
    let out = check(spec).await.unwrap();
    let text = crate::support::stdout(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("    name: no value on the sample page"),
        "{text}"
    );
    site.shutdown().await;
}

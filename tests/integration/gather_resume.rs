//! A gathering killed in the middle and started again: the resumed run sends
//! no finished query again and ends with the same index as a run that was
//! never interrupted.

use crate::gathering;

use std::collections::{BTreeSet, HashMap};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use gather::demo::{DemoConfig, DemoSite, Variant};
use gather::fetch::{FetchConfig, Fetcher};
use gather::source::{self, Discovery, Limits};
use gather::store::Store;

fn gather_command(url: &url::Url, db: &std::path::Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gather"));
    cmd.arg(url.as_str())
        .arg("--db")
        .arg(db)
        .arg("--delay-ms")
        .arg("60")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

/// Query key → the target (path and query) of the query's first page.
async fn first_pages(url: &url::Url) -> HashMap<String, String> {
    let fetcher = Fetcher::new(FetchConfig::default()).unwrap();
    let limits = Limits::default();
    let Ok(Discovery::Database(source)) = source::discover(url, &fetcher, &limits).await else {
        panic!("the paged form is a database source");
    };
    source
        .plan
        .queries()
        .map(|q| {
            let u = &q.request.url;
            let target = match u.query() {
                Some(query) => format!("{}?{query}", u.path()),
                None => u.path().to_string(),
            };
            (q.key(), target)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_gathering_resumes_without_resending_finished_queries() {
    let site = DemoSite::start(DemoConfig {
        hotels: 700,
        page_size: 10,
        ..DemoConfig::default()
    })
    .await
    .unwrap();
    let url = site.url(Variant::Paged);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("killed.sqlite");

    let mut child = gather_command(&url, &db).spawn().unwrap();
    // Kill it once a good part of the result pages has been fetched.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let fetched = site
            .requests()
            .iter()
            .filter(|r| r.target.contains("liste.pl"))
            .count();
        if fetched >= 25 {
            break;
        }
        assert!(Instant::now() < deadline, "the gatherer made no progress");
        assert!(
            child.try_wait().unwrap().is_none(),
            "the gatherer ended before it could be killed; slow it down"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let killed_at = site.requests().len();

    let store = Store::open(&db).unwrap();
    let source_id = store_source_id(&store, &url);
    let finished = store.finished_queries(source_id).unwrap();
    drop(store);
    let first_pages = first_pages(&url).await;
    assert!(!finished.is_empty(), "no query finished before the kill");
    assert!(
        finished.len() < first_pages.len(),
        "every query finished before the kill"
    );

    let status = gather_command(&url, &db).status().unwrap();
    assert!(status.success());
    let resent: Vec<String> = site.requests()[killed_at..]
        .iter()
        .map(|r| r.target.clone())
        .filter(|t| finished.iter().any(|k| first_pages.get(k) == Some(t)))
        .collect();
    assert!(resent.is_empty(), "finished queries sent again: {resent:?}");

    // The same index as a gathering that was never interrupted.
    let whole = dir.path().join("whole.sqlite");
    let status = gather_command(&url, &whole).status().unwrap();
    assert!(status.success());
    let resumed = gathering::stored_values(&db, url.as_str());
    assert_eq!(resumed, gathering::stored_values(&whole, url.as_str()));
    assert_eq!(resumed, site.expected(Variant::Paged));
    let names: BTreeSet<_> = resumed.keys().collect();
    assert!(!names.is_empty());
    site.shutdown().await;
}

fn store_source_id(store: &Store, url: &url::Url) -> gather::store::SourceId {
    store
        .sources()
        .unwrap()
        .into_iter()
        .find(|s| s.info.url == url.as_str())
        .expect("the killed run stored its source")
        .id
}

//! A gathering killed in the middle and started again: the resumed run sends
//! no finished query again and ends with the same index as a run that was
//! never interrupted.

use crate::gathering;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::process::{Child, Command, Stdio};
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

/// The demo's paged guide with `hotels` hotels, 10 to a page, and a
/// directory for the databases.
async fn paged_guide(hotels: usize) -> (DemoSite, url::Url, tempfile::TempDir) {
    let site = DemoSite::start(DemoConfig {
        hotels,
        page_size: 10,
        ..DemoConfig::default()
    })
    .await
    .unwrap();
    let url = site.url(Variant::Paged);
    (site, url, tempfile::tempdir().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_gathering_resumes_without_resending_finished_queries() {
    let (site, url, dir) = paged_guide(700).await;
    let db = dir.path().join("killed.sqlite");

    let child = gather_command(&url, &db).spawn().unwrap();
    // Kill it once a good part of the result pages has been fetched.
    let killed_at = kill_after_pages(&site, child, 0, 25).await;

    let (finished, first_pages) = finished_before_kill(&db, &url).await;

    let status = gather_command(&url, &db).status().unwrap();
    assert!(status.success());
    assert_none_resent(&site, killed_at, &finished, &first_pages);

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

/// Kills `child` once it has fetched `pages` result pages after the
/// site's first `from` requests; the site's request count then.
async fn kill_after_pages(site: &DemoSite, mut child: Child, from: usize, pages: usize) -> usize {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let fetched = site.requests()[from..]
            .iter()
            .filter(|r| r.target.contains("liste.pl"))
            .count();
        if fetched >= pages {
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
    site.requests().len()
}

/// A refresh killed in the middle and run again: it goes on with the
/// refresh it began, sends none of the queries that refresh finished, and
/// leaves the same index.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_refresh_resumes_without_resending_finished_queries() {
    let (site, url, dir) = paged_guide(700).await;
    let db = dir.path().join("refreshed.sqlite");
    assert!(gather_command(&url, &db).status().unwrap().success());
    let gathered = gathering::stored_values(&db, url.as_str());

    let refresh = |db: &std::path::Path| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_gather"));
        cmd.args(["refresh", "--json", "--delay-ms", "60", "--db"])
            .arg(db)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        cmd
    };
    let begun = site.requests().len();
    let child = refresh(&db).spawn().unwrap();
    let killed_at = kill_after_pages(&site, child, begun, 3).await;

    // Every query was opened for the refresh: those done now were
    // finished by it.
    let (finished, first_pages) = finished_before_kill(&db, &url).await;

    let out = refresh(&db).output().unwrap();
    assert!(out.status.success());
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let line = &summary["sources"][0];
    assert!(
        line["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains("resumed")),
        "{line}"
    );
    assert_none_resent(&site, killed_at, &finished, &first_pages);
    assert_eq!(
        line["queries_sent"].as_u64().unwrap() as usize,
        first_pages.len() - finished.len()
    );
    assert_eq!(line["refresh"]["answers_unchanged"], line["queries_sent"]);
    assert_eq!(gathering::stored_values(&db, url.as_str()), gathered);

    // The refresh ended: the next one begins anew, every query asked.
    let out = refresh(&db).output().unwrap();
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        summary["sources"][0]["queries_sent"].as_u64().unwrap() as usize,
        first_pages.len()
    );
    site.shutdown().await;
}

/// The queries a killed run left done, which must be some but not all,
/// and the first page of every query.
async fn finished_before_kill(
    db: &std::path::Path,
    url: &url::Url,
) -> (HashSet<String>, HashMap<String, String>) {
    let store = Store::open(db).unwrap();
    let source_id = store_source_id(&store, url);
    let finished = store.finished_queries(source_id).unwrap();
    drop(store);
    let first_pages = first_pages(url).await;
    assert!(!finished.is_empty(), "no query finished before the kill");
    assert!(
        finished.len() < first_pages.len(),
        "every query finished before the kill"
    );
    (finished, first_pages)
}

/// The site was asked for none of the `finished` queries' first pages
/// after its first `killed_at` requests.
fn assert_none_resent(
    site: &DemoSite,
    killed_at: usize,
    finished: &HashSet<String>,
    first_pages: &HashMap<String, String>,
) {
    let resent: Vec<String> = site.requests()[killed_at..]
        .iter()
        .map(|r| r.target.clone())
        .filter(|t| finished.iter().any(|k| first_pages.get(k) == Some(t)))
        .collect();
    assert!(resent.is_empty(), "finished queries sent again: {resent:?}");
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

/// A store of the previous schema (version 6) whose walk of a long query
/// was saved in its checkpoint alone (the queue and the pages seen): the
/// next run migrates it, continues the walk from its third page, sends
/// nothing else, and ends the query.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_walk_saved_by_the_previous_schema_continues_where_it_stood() {
    let (site, url, dir) = paged_guide(300).await;
    let db = dir.path().join("v6.sqlite");
    assert!(gather_command(&url, &db).status().unwrap().success());

    // The longest query's result pages, in the order fetched.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let (query_id, key): (i64, String) = conn
        .query_row(
            "SELECT q.id, q.key FROM queries q JOIN pages p ON p.query_id = q.id
             GROUP BY q.id ORDER BY count(*) DESC LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let mut stmt = conn
        .prepare("SELECT url FROM pages WHERE query_id = ?1 ORDER BY id")
        .unwrap();
    let urls: Vec<String> = stmt
        .query_map([query_id], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    drop(stmt);
    assert!(urls.len() >= 4, "{urls:?}");
    // As version 7 (before the walk's links were saved apart) left a walk
    // killed after its second page.
    let checkpoint = serde_json::json!({
        "queue": urls[2..],
        "seen": urls[..2],
        "fetched": 2,
        "shape": null,
    });
    conn.execute_batch(
        "DROP TABLE walk_links;
         DROP INDEX records_by_key;
         DROP INDEX records_by_query;
         ALTER TABLE records DROP COLUMN record_key;
         ALTER TABLE records DROP COLUMN first_seen;
         ALTER TABLE records DROP COLUMN last_seen;
         ALTER TABLE records DROP COLUMN changed_at;
         ALTER TABLE records DROP COLUMN changed_fields;
         ALTER TABLE records DROP COLUMN gone_at;
         ALTER TABLE queries DROP COLUMN etag;
         ALTER TABLE queries DROP COLUMN last_modified;
         ALTER TABLE queries DROP COLUMN digest;
         ALTER TABLE queries DROP COLUMN refresh_interval;
         ALTER TABLE sources DROP COLUMN refresh_since;
         ALTER TABLE queries DROP COLUMN due_at;
         ALTER TABLE attribute_values DROP COLUMN first_seen;
         ALTER TABLE attribute_values DROP COLUMN last_seen;
         ALTER TABLE attribute_values DROP COLUMN gone_at;
         PRAGMA user_version = 7;",
    )
    .unwrap();
    conn.execute(
        "UPDATE queries SET state = 'pending', finished_at = NULL, checkpoint = ?1 WHERE id = ?2",
        rusqlite::params![checkpoint.to_string(), query_id],
    )
    .unwrap();
    drop(conn);

    let before = site.requests().len();
    assert!(gather_command(&url, &db).status().unwrap().success());
    let sent: Vec<String> = site.requests()[before..]
        .iter()
        .map(|r| r.target.clone())
        .filter(|t| t.contains(".pl"))
        .collect();
    let rest: Vec<String> = urls[2..]
        .iter()
        .map(|u| {
            let u = url::Url::parse(u).unwrap();
            format!("{}?{}", u.path(), u.query().unwrap_or(""))
        })
        .collect();
    assert_eq!(sent, rest, "only the pages the walk had not fetched");

    let conn = rusqlite::Connection::open(&db).unwrap();
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, 10);
    let store = Store::open(&db).unwrap();
    let source = store_source_id(&store, &url);
    assert!(store.finished_queries(source).unwrap().contains(&key));
    assert!(store.checkpoints(source).unwrap().is_empty());
    let links: i64 = conn
        .query_row("SELECT count(*) FROM walk_links", [], |r| r.get(0))
        .unwrap();
    assert_eq!(links, 0, "a walk that ended keeps no links");
    // The values of the older file are live, without a first and last
    // seen (which the resumed walk, finding no new value, did not add).
    let (all, live, unseen): (i64, i64, i64) = conn
        .query_row(
            "SELECT count(*), count(*) FILTER (WHERE gone_at IS NULL),
                    count(*) FILTER (WHERE first_seen IS NULL AND last_seen IS NULL)
             FROM attribute_values",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert!(all > 0);
    assert_eq!((live, unseen), (all, all));
    site.shutdown().await;
}

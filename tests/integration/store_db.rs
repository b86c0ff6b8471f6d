//! The gatherer database on real SQLite files.

use crate::support;

use std::collections::HashSet;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use gather::fragment::IndexFragment;
use gather::store::{
    PageRecord, QueryOutcome, QueryState, SourceInfo, SourceKind, Store, StoreError,
};
use support::{page_record as page, query_outcome};

fn cityworld() -> SourceInfo {
    SourceInfo {
        url: "http://127.0.0.1:8080/cityworld/".into(),
        kind: SourceKind::Database,
        title: Some("CityWorld - Hotels und Pensionen".into()),
        description: Some("Hotelführer M-V".into()),
        keywords: None,
        text: None,
    }
}

fn outcome(
    key: &str,
    state: QueryState,
    pages: Vec<PageRecord>,
    values: &[(&str, &str)],
) -> QueryOutcome {
    query_outcome(key, &key.replace('&', ", "), state, pages, values)
}

fn raw(path: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(path).unwrap()
}

#[test]
fn a_recorded_query_survives_a_store_that_was_never_closed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gather.sqlite");
    let mut store = Store::open(&path).unwrap();
    let id = store.upsert_source(&cityworld()).unwrap();
    let q = outcome(
        "region=Rügen",
        QueryState::Done,
        vec![
            page("http://x/r?region=R%C3%BCgen", 1000),
            page("http://x/r?page=2", 500),
        ],
        &[("ort", "Binz"), ("ort", "Sellin"), ("name", "Hotel Arkona")],
    );
    assert_eq!(store.record_query(id, &q).unwrap(), 3);
    // No orderly close: the connection is leaked, the WAL is not checkpointed.
    std::mem::forget(store);

    let store = Store::open(&path).unwrap();
    let stats = store.stats(id).unwrap();
    assert_eq!(stats.queries_done, 1);
    assert_eq!(stats.pages, 2);
    assert_eq!(stats.bytes, 1500);
    assert_eq!(stats.values_per_attribute.get("ort"), Some(&2));
    assert_eq!(stats.values_per_attribute.get("name"), Some(&1));
    assert_eq!(
        store.finished_queries(id).unwrap(),
        HashSet::from(["region=Rügen".to_string()])
    );
    let mode: String = raw(&path)
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
}

#[test]
fn a_new_file_has_8_kib_pages_and_a_file_with_other_pages_keeps_them() {
    let dir = tempfile::tempdir().unwrap();
    let page_size = |path: &Path| -> i64 {
        raw(path)
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .unwrap()
    };
    let new = dir.path().join("new.sqlite");
    drop(Store::open(&new).unwrap());
    assert_eq!(page_size(&new), 8192);

    // A file already written with SQLite's default pages (as gather wrote
    // them before): WAL fixes its page size, and the store works on it.
    let older = dir.path().join("older.sqlite");
    let conn = raw(&older);
    conn.pragma_update(None, "page_size", 4096).unwrap();
    let mode: String = conn
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    drop(conn);
    let mut store = Store::open(&older).unwrap();
    let id = store.upsert_source(&cityworld()).unwrap();
    let q = outcome(
        "region=Rügen",
        QueryState::Done,
        vec![page("http://x/r?region=R%C3%BCgen", 1000)],
        &[("ort", "Binz")],
    );
    assert_eq!(store.record_query(id, &q).unwrap(), 1);
    drop(store);
    assert_eq!(page_size(&older), 4096);
    let store = Store::open(&older).unwrap();
    assert_eq!(store.stats(id).unwrap().pages, 1);
}

#[test]
fn values_are_stored_once_with_the_first_query_as_provenance() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gather.sqlite");
    let mut store = Store::open(&path).unwrap();
    let id = store.upsert_source(&cityworld()).unwrap();
    let first = outcome("region=Rügen", QueryState::Done, vec![], &[("ort", "Binz")]);
    let second = outcome(
        "region=Usedom",
        QueryState::Done,
        vec![],
        &[
            ("ort", " Binz"),
            ("ort", "Ahlbeck"),
            ("ort", "Ru\u{308}gen"),
        ],
    );
    assert_eq!(store.record_query(id, &first).unwrap(), 1);
    assert_eq!(store.record_query(id, &second).unwrap(), 2);
    // The same values again under a listed provenance: nothing new.
    let mut listed = IndexFragment::new();
    listed.add("ort", "Rügen");
    listed.add("region", "Fischland");
    assert_eq!(store.record_values(id, Some("listed"), &listed).unwrap(), 1);
    let values = store.values(id).unwrap();
    assert_eq!(values["ort"], ["Ahlbeck", "Binz", "Rügen"]);
    assert_eq!(values["region"], ["Fischland"]);
    let provenance: String = raw(&path)
        .query_row(
            "SELECT query_key FROM attribute_values WHERE value = 'Binz'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(provenance, "region=Rügen");
}

#[test]
fn a_failed_query_is_not_finished_and_its_retry_replaces_its_pages() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.sqlite");
    let mut store = Store::open(&path).unwrap();
    let id = store.upsert_source(&cityworld()).unwrap();
    let failed = outcome(
        "region=Usedom",
        QueryState::Failed,
        vec![page("http://x/1", 100)],
        &[],
    );
    store.record_query(id, &failed).unwrap();
    assert!(store.finished_queries(id).unwrap().is_empty());
    let stats = store.stats(id).unwrap();
    assert_eq!(
        (stats.queries_done, stats.queries_failed, stats.pages),
        (0, 1, 1)
    );

    let done = outcome(
        "region=Usedom",
        QueryState::Done,
        vec![page("http://x/1", 300), page("http://x/2", 50)],
        &[("ort", "Ahlbeck")],
    );
    store.record_query(id, &done).unwrap();
    let stats = store.stats(id).unwrap();
    assert_eq!((stats.queries_done, stats.queries_failed), (1, 0));
    assert_eq!((stats.pages, stats.bytes), (2, 350));
    let (attempts, error): (u32, Option<String>) = raw(&path)
        .query_row("SELECT attempts, error FROM queries", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!((attempts, error), (2, None), "attempts add up across runs");
}

#[test]
fn pages_outside_queries_are_counted_once_per_url() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("g.sqlite")).unwrap();
    let id = store.upsert_source(&cityworld()).unwrap();
    store.record_page(id, &page("http://x/form", 700)).unwrap();
    store.record_page(id, &page("http://x/form", 710)).unwrap();
    store
        .record_page(id, &page("http://x/config.txt", 90))
        .unwrap();
    let stats = store.stats(id).unwrap();
    assert_eq!((stats.pages, stats.bytes), (2, 800));
}

#[test]
fn upsert_refreshes_a_known_source_and_incomplete_is_kept_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("g.sqlite")).unwrap();
    let id = store.upsert_source(&cityworld()).unwrap();
    let mut again = cityworld();
    again.title = Some("CityWorld".into());
    assert_eq!(store.upsert_source(&again).unwrap(), id);
    let sources = store.sources().unwrap();
    assert_eq!(sources.len(), 1);
    assert_eq!(sources[0].info, again);
    assert_eq!(sources[0].incomplete, None);

    store
        .set_incomplete(id, Some("DB.MaxQueries 10 of 24 queries"))
        .unwrap();
    assert_eq!(
        store.stats(id).unwrap().incomplete.as_deref(),
        Some("DB.MaxQueries 10 of 24 queries")
    );
    store.set_incomplete(id, None).unwrap();
    assert_eq!(store.stats(id).unwrap().incomplete, None);
}

#[test]
fn an_unknown_source_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("g.sqlite")).unwrap();
    let err = store
        .record_query(42, &outcome("k", QueryState::Done, vec![], &[("a", "b")]))
        .unwrap_err();
    assert!(
        matches!(err, StoreError::UnknownSource { id: 42, .. }),
        "{err}"
    );
    assert!(matches!(
        store.stats(42),
        Err(StoreError::UnknownSource { .. })
    ));
    assert!(store.set_incomplete(42, Some("x")).is_err());
}

#[test]
fn a_newer_schema_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.sqlite");
    drop(Store::open(&path).unwrap());
    raw(&path).pragma_update(None, "user_version", 99).unwrap();
    let err = Store::open(&path).err().expect("newer schema refused");
    assert!(
        matches!(
            err,
            StoreError::NewerSchema {
                found: 99,
                supported: 10,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("newer gather"), "{err}");
}

#[test]
fn open_existing_creates_nothing_and_foreign_databases_are_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.sqlite");
    let err = Store::open_existing(&missing).err().expect("missing file");
    assert!(matches!(err, StoreError::Missing { .. }), "{err}");
    assert!(!missing.exists());

    let foreign = dir.path().join("foreign.sqlite");
    raw(&foreign).execute_batch("CREATE TABLE t (x)").unwrap();
    let err = Store::open_existing(&foreign)
        .err()
        .expect("not a gather db");
    assert!(matches!(err, StoreError::NotGatherDatabase { .. }), "{err}");

    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "this is not a database, just some text .......").unwrap();
    let err = Store::open_existing(&text).err().expect("not SQLite");
    assert!(err.to_string().contains("notes.txt"), "{err}");
}

const CHILD_ENV: &str = "GATHER_STORE_WRITER_DB";

/// Not a test on its own: the writer process that
/// `a_killed_writer_leaves_every_query_whole` starts and kills. Without its
/// environment variable it does nothing.
#[test]
#[ignore = "the writer process that a_killed_writer_leaves_every_query_whole starts and kills"]
fn helper_writer_process() {
    let Ok(path) = std::env::var(CHILD_ENV) else {
        return;
    };
    let mut store = Store::open(Path::new(&path)).unwrap();
    let id = store.upsert_source(&cityworld()).unwrap();
    for i in 0..1_000_000u64 {
        let key = format!("q{i}");
        let pages = vec![
            page(&format!("http://x/{i}/1"), 10),
            page(&format!("http://x/{i}/2"), 10),
        ];
        let a = format!("a{i}");
        let b = format!("b{i}");
        let q = outcome(
            &key,
            QueryState::Done,
            pages,
            &[("n", &a), ("n", &b), ("shared", "common")],
        );
        store.record_query(id, &q).unwrap();
    }
}

#[test]
fn a_killed_writer_leaves_every_query_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gather.sqlite");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "store_db::helper_writer_process",
            "--exact",
            "--ignored",
            "--quiet",
        ])
        .env(CHILD_ENV, &path)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(50));
        if let Ok(store) = Store::open_existing(&path) {
            if store
                .stats(1)
                .map(|s| s.queries_done >= 40)
                .unwrap_or(false)
            {
                break;
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "writer made no progress"
        );
        assert!(child.try_wait().unwrap().is_none(), "writer ended early");
    }
    child.kill().unwrap();
    child.wait().unwrap();

    let conn = raw(&path);
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    let store = Store::open(&path).unwrap();
    let done = store.finished_queries(1).unwrap();
    let stats = store.stats(1).unwrap();
    let n = done.len() as u64;
    assert!(n >= 40);
    assert_eq!(
        stats.pages,
        2 * n,
        "every done query has its two pages, no other query has any"
    );
    assert_eq!(stats.values_per_attribute.get("n"), Some(&(2 * n)));
    assert_eq!(stats.values_per_attribute.get("shared"), Some(&1));
    let mut stmt = conn
        .prepare("SELECT DISTINCT query_key FROM attribute_values")
        .unwrap();
    let provenances: HashSet<String> = stmt
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(provenances, done, "values only of done queries");
    // A rerun skips what is done and stores nothing twice.
    drop(store);
    let mut store = Store::open(&path).unwrap();
    let again = outcome(
        "q0",
        QueryState::Done,
        vec![],
        &[("n", "a0"), ("shared", "common")],
    );
    assert_eq!(store.record_query(1, &again).unwrap(), 0);
}

//! The behaviour both back-ends share, checked on each: every check runs
//! once on a SQLite file and once on a PostgreSQL database of a server the
//! test starts itself (`initdb` into a temporary directory, on a free port
//! of 127.0.0.1). A missing PostgreSQL fails the test; it is never skipped.
//!
//! A check is given a way to open its database, so that it can open it
//! again and read what an earlier store wrote.

use super::*;
use crate::demo::postgres::LocalPostgres;
use crate::record::{Field, Fields};

/// Opens the database a check works on (again, when called again).
type Open<'a> = &'a dyn Fn() -> Store;

/// Instantiates every check on both back-ends: `on_sqlite::CHECK` and
/// `on_postgresql::CHECK`.
macro_rules! on_both_back_ends {
    ($($check:ident),* $(,)?) => {
        mod on_sqlite {
            $(
                #[test]
                fn $check() {
                    let dir = tempfile::tempdir().unwrap();
                    let path = dir.path().join("gather.db");
                    super::$check(&|| super::Store::open(&path).unwrap());
                }
            )*
        }

        mod on_postgresql {
            $(
                #[test]
                fn $check() {
                    let server = super::LocalPostgres::start()
                        .unwrap_or_else(|e| panic!("PostgreSQL for the tests: {e}"));
                    let db = server.database("parity").unwrap();
                    let location = super::Location::Postgres(db);
                    super::$check(&|| super::Store::open_at(&location).unwrap());
                }
            )*
        }
    };
}

on_both_back_ends!(
    sources_are_kept_by_url_and_listed_in_url_order,
    queries_are_done_failed_or_pending_and_counted,
    answers_are_read_in_plan_order_and_in_the_order_asked,
    values_are_kept_once_with_the_query_that_found_them_first,
    records_are_kept_once_per_source_and_read_in_order,
    pages_are_counted_once_and_their_bodies_kept_within_the_budget,
    rules_and_surfaced_specs_are_kept_per_source,
    reopened_queries_are_sent_again_and_forgotten_ones_are_gone,
    checkpoints_carry_the_links_their_walk_found,
    status_counts_every_source_s_queries_and_pages,
    unknown_sources_are_errors,
    a_refresh_tells_records_new_changed_and_gone_by_their_key,
    a_refresh_leaves_out_the_values_no_live_record_holds,
    a_record_two_queries_show_stays_while_the_unchanged_one_shows_it,
);

fn source(url: &str, kind: SourceKind) -> SourceInfo {
    SourceInfo {
        url: url.into(),
        kind,
        title: Some(format!("Title of {url}")),
        description: None,
        keywords: None,
        text: None,
    }
}

/// A provider's form, as most checks gather it.
pub(super) fn provider(store: &mut Store) -> SourceId {
    store
        .upsert_source(&source("http://provider.test/form", SourceKind::Database))
        .unwrap()
}

pub(super) fn outcome(
    key: &str,
    ordinal: u64,
    state: QueryState,
    values: &[(&str, &str)],
) -> QueryOutcome {
    QueryOutcome {
        key: key.into(),
        ordinal,
        description: format!("q={key}"),
        state,
        error: (state == QueryState::Failed).then(|| "HTTP 500".to_string()),
        attempts: 1,
        pages: Vec::new(),
        fragment: values.iter().copied().collect(),
        records: Vec::new(),
        cut_short: false,
        answer: None,
        values: None,
        parent: None,
        learned: false,
        checkpoint: None,
        walk_links: Vec::new(),
        fresh: true,
        mark: None,
        refresh: None,
    }
}

fn page(url: &str) -> PageRecord {
    PageRecord::new(
        url,
        200,
        url.as_bytes(),
        std::time::Duration::from_millis(3),
    )
}

fn record(page: &str, ordinal: u64, item: &str) -> Record {
    Record {
        page: page.into(),
        ordinal,
        fields: Fields(vec![("item".into(), Field::One(item.into()))]),
    }
}

fn keys(keys: &[&str]) -> Vec<String> {
    keys.iter().map(|k| k.to_string()).collect()
}

fn set(keys: &[&str]) -> HashSet<String> {
    keys.iter().map(|k| k.to_string()).collect()
}

fn sources_are_kept_by_url_and_listed_in_url_order(open: Open<'_>) {
    let mut store = open();
    let b = store
        .upsert_source(&source("http://b.test/", SourceKind::Cooperative))
        .unwrap();
    let a = store
        .upsert_source(&source("http://a.test/", SourceKind::Page))
        .unwrap();
    assert_ne!(a, b);
    let mut refreshed = source("http://a.test/", SourceKind::Page);
    refreshed.title = Some("Strandkorbverleih".into());
    refreshed.text = Some("Körbe am Strand".into());
    assert_eq!(store.upsert_source(&refreshed).unwrap(), a);
    store.set_incomplete(b, Some("the page limit")).unwrap();
    drop(store);

    let mut store = open();
    let sources = store.sources().unwrap();
    let seen: Vec<_> = sources
        .iter()
        .map(|s| (s.id, s.info.kind, s.incomplete.as_deref()))
        .collect();
    assert_eq!(
        seen,
        [
            (a, SourceKind::Page, None),
            (b, SourceKind::Cooperative, Some("the page limit"))
        ]
    );
    assert_eq!(sources[0].info, refreshed);
    assert!(sources.iter().all(|s| s.updated_at > 1_700_000_000));
    assert_eq!(
        store.stats(b).unwrap().incomplete.as_deref(),
        Some("the page limit")
    );
    store.set_incomplete(b, None).unwrap();
    assert_eq!(store.stats(b).unwrap().incomplete, None);
    assert_eq!(store.sources().unwrap()[1].incomplete, None);
}

fn queries_are_done_failed_or_pending_and_counted(open: Open<'_>) {
    let mut store = open();
    let source = provider(&mut store);
    let mut first = outcome("a", 0, QueryState::Done, &[("city", "Binz")]);
    first.values = Some(r#"[["city","Binz"]]"#.into());
    first.cut_short = true;
    store.record_query(source, &first).unwrap();
    store
        .record_query(source, &outcome("b", 1, QueryState::Failed, &[]))
        .unwrap();
    let mut refined = outcome("c", 2, QueryState::Pending, &[]);
    refined.parent = Some("a".into());
    refined.values = Some(r#"[["city","Binz"],["page","2"]]"#.into());
    store.record_query(source, &refined).unwrap();
    drop(store);

    let mut store = open();
    assert_eq!(store.finished_queries(source).unwrap(), set(&["a"]));
    assert_eq!(
        store
            .finished_among(source, &keys(&["a", "b", "x"]))
            .unwrap(),
        set(&["a"])
    );
    assert_eq!(store.finished_count(source).unwrap(), 1);
    assert_eq!(store.query_counts(source).unwrap(), (3, 1));
    let mut values = store.query_values(source).unwrap();
    values.sort();
    assert_eq!(
        values,
        [r#"[["city","Binz"],["page","2"]]"#, r#"[["city","Binz"]]"#]
    );
    let stats = store.stats(source).unwrap();
    assert_eq!(
        (
            stats.queries_done,
            stats.queries_failed,
            stats.queries_cut_short
        ),
        (1, 1, 1)
    );

    // The failed query's retry finishes it.
    store
        .record_query(source, &outcome("b", 1, QueryState::Done, &[]))
        .unwrap();
    assert_eq!(store.finished_queries(source).unwrap(), set(&["a", "b"]));
    assert_eq!(store.stats(source).unwrap().queries_failed, 0);
}

fn answers_are_read_in_plan_order_and_in_the_order_asked(open: Open<'_>) {
    let mut store = open();
    let source = provider(&mut store);
    for (key, ordinal) in [("late", 2), ("first", 0), ("middle", 1)] {
        let mut done = outcome(key, ordinal, QueryState::Done, &[]);
        done.values = Some(format!(r#"[["q","{key}"]]"#));
        done.answer = Some(format!(r#"{{"hits":{ordinal}}}"#));
        done.parent = (key == "late").then(|| "first".to_string());
        store.record_query(source, &done).unwrap();
    }
    // Without an answer, or not done: not an answered query.
    store
        .record_query(source, &outcome("mute", 3, QueryState::Done, &[]))
        .unwrap();
    let mut pending = outcome("open", 4, QueryState::Pending, &[]);
    pending.values = Some("[]".into());
    pending.answer = Some("{}".into());
    store.record_query(source, &pending).unwrap();

    let answered = store.answered_queries(source).unwrap();
    let order: Vec<&str> = answered.iter().map(|q| q.key.as_str()).collect();
    assert_eq!(order, ["first", "middle", "late"]);
    assert_eq!(
        answered[2],
        AnsweredQuery {
            key: "late".into(),
            values: r#"[["q","late"]]"#.into(),
            answer: r#"{"hits":2}"#.into(),
            parent: Some("first".into()),
        }
    );
    let among = store
        .answered_among(source, &keys(&["late", "open", "mute", "first"]))
        .unwrap();
    let order: Vec<&str> = among.iter().map(|q| q.key.as_str()).collect();
    assert_eq!(order, ["late", "first"]);

    // A caller's error ends the walk at once and comes back as it is.
    let mut seen = 0;
    let stopped = store.each_answered(source, |_| {
        seen += 1;
        Err(StoreError::Corrupt {
            path: "caller".into(),
            message: "stop".into(),
        })
    });
    assert!(matches!(stopped, Err(StoreError::Corrupt { message, .. }) if message == "stop"));
    assert_eq!(seen, 1);
}

fn values_are_kept_once_with_the_query_that_found_them_first(open: Open<'_>) {
    let mut store = open();
    let source = provider(&mut store);
    let first = outcome(
        "a",
        0,
        QueryState::Done,
        &[("city", "Binz"), ("city", "Sellin")],
    );
    assert_eq!(store.record_query(source, &first).unwrap(), 2);
    let second = outcome(
        "b",
        1,
        QueryState::Done,
        &[("city", "Binz"), ("city", "Göhren")],
    );
    assert_eq!(store.record_query(source, &second).unwrap(), 1);
    let listed: IndexFragment = [("city", "Prora"), ("stars", "4")].into_iter().collect();
    assert_eq!(
        store
            .record_values(source, Some("listed"), &listed)
            .unwrap(),
        2
    );
    assert_eq!(
        store
            .record_values(source, Some("listed"), &listed)
            .unwrap(),
        0
    );
    store
        .upsert_source(&SourceInfo {
            text: Some("Strandkörbe und Fischbrötchen in Binz".into()),
            ..source_info_page()
        })
        .unwrap();
    drop(store);

    let store = open();
    assert_eq!(
        store.values(source).unwrap(),
        BTreeMap::from([
            (
                "city".to_string(),
                keys(&["Binz", "Göhren", "Prora", "Sellin"])
            ),
            ("stars".to_string(), keys(&["4"])),
        ])
    );
    assert_eq!(
        store.attribute_values(source, "city").unwrap(),
        keys(&["Binz", "Göhren", "Prora", "Sellin"])
    );
    assert_eq!(
        store.values_found_by(source, &keys(&["b"])).unwrap(),
        [("b".to_string(), "Göhren".to_string())]
    );
    assert_eq!(store.stats(source).unwrap().values_per_attribute["city"], 4);

    // Whole words, case and diacritics folded; the provenance with its query.
    let hits = store.search("BINZ").unwrap();
    let found: Vec<_> = hits
        .iter()
        .map(|h| {
            (
                h.source.as_str(),
                h.attribute.as_str(),
                h.provenance.as_deref(),
                h.query.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("http://provider.test/form", "city", Some("a"), Some("q=a")),
            ("http://provider.test/page", TEXT_ATTRIBUTE, None, None),
        ]
    );
    assert_eq!(hits[0].value, "Binz");
    assert!(hits[1].value.contains("Binz"), "{}", hits[1].value);
    let gohren = store.search("gohren").unwrap();
    assert_eq!(gohren.len(), 1);
    assert_eq!(gohren[0].provenance.as_deref(), Some("b"));
    let prora = store.search("Pror*").unwrap();
    assert_eq!(prora.len(), 1);
    assert_eq!(
        (prora[0].provenance.as_deref(), prora[0].query.as_deref()),
        (Some("listed"), None)
    );
    assert!(store.search("Pror").unwrap().is_empty(), "whole words only");
    assert!(store.search("' & |").unwrap().is_empty());
    assert_eq!(store.search("fischbrötchen").unwrap()[0].source, page_url());
}

fn page_url() -> String {
    "http://provider.test/page".into()
}

fn source_info_page() -> SourceInfo {
    source(&page_url(), SourceKind::Page)
}

fn records_are_kept_once_per_source_and_read_in_order(open: Open<'_>) {
    let mut store = open();
    let later = store
        .upsert_source(&source("http://z.test/form", SourceKind::Database))
        .unwrap();
    let source = provider(&mut store);
    let mut first = outcome("a", 0, QueryState::Done, &[]);
    first.records = vec![record("p1", 0, "Arkona"), record("p1", 1, "Kap")];
    let recorded = store.record_query_new(source, &first).unwrap();
    assert_eq!(recorded.new_records, [0, 1]);
    let mut second = outcome("b", 1, QueryState::Done, &[]);
    second.records = vec![record("p2", 0, "Kap"), record("p2", 1, "Seeblick")];
    let recorded = store.record_query_new(source, &second).unwrap();
    assert_eq!(
        recorded.new_records_of(&second).collect::<Vec<_>>(),
        [&record("p2", 1, "Seeblick")]
    );
    let mut elsewhere = outcome("a", 0, QueryState::Done, &[]);
    elsewhere.records = vec![record("z1", 0, "Kap")];
    assert_eq!(
        store
            .record_query_new(later, &elsewhere)
            .unwrap()
            .new_records,
        [0]
    );
    drop(store);

    let store = open();
    assert_eq!(store.record_count(source).unwrap(), 3);
    assert_eq!(store.stats(source).unwrap().records, 3);
    let mut all = Vec::new();
    store
        .each_record::<StoreError>(|r| {
            all.push(r);
            Ok(())
        })
        .unwrap();
    let seen: Vec<_> = all
        .iter()
        .map(|r| {
            (
                r.source.as_str(),
                r.query_key.as_deref(),
                r.query.as_deref(),
                r.record.page.as_str(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("http://provider.test/form", Some("a"), Some("q=a"), "p1"),
            ("http://provider.test/form", Some("a"), Some("q=a"), "p1"),
            ("http://provider.test/form", Some("b"), Some("q=b"), "p2"),
            ("http://z.test/form", Some("a"), Some("q=a"), "z1"),
        ]
    );
    assert_eq!(all[2].record, record("p2", 1, "Seeblick"));

    // A caller's error ends the walk at once and comes back as it is.
    let mut seen = 0;
    let stopped = store.each_record(|_| {
        seen += 1;
        Err(Stop::Enough)
    });
    assert_eq!(stopped, Err(Stop::Enough));
    assert_eq!(seen, 1);
}

/// An error of `each_record`'s caller.
#[derive(Debug, PartialEq)]
enum Stop {
    Enough,
    Store(String),
}

impl From<StoreError> for Stop {
    fn from(e: StoreError) -> Stop {
        Stop::Store(e.to_string())
    }
}

fn pages_are_counted_once_and_their_bodies_kept_within_the_budget(open: Open<'_>) {
    let mut store = open();
    let source = provider(&mut store);
    store
        .record_page(source, &page("http://provider.test/form"))
        .unwrap();
    store
        .record_page(source, &page("http://provider.test/form"))
        .unwrap();
    let kept = |url: &str| page(url).keeping(Some("text/html"), format!("<p>{url}</p>").as_bytes());
    let mut query = outcome("a", 0, QueryState::Done, &[]);
    query.pages = vec![
        kept("http://provider.test/r?p=1"),
        page("http://provider.test/r?p=2"),
    ];
    store.record_query(source, &query).unwrap();
    drop(store);

    let mut store = open();
    let stats = store.stats(source).unwrap();
    assert_eq!(stats.pages, 3);
    assert_eq!(
        stats.bytes,
        ["form", "r?p=1", "r?p=2"]
            .map(|p| format!("http://provider.test/{p}").len() as u64)
            .iter()
            .sum::<u64>()
    );
    assert_eq!(
        store.kept_pages(source).unwrap(),
        [KeptPage {
            query: "a".into(),
            url: "http://provider.test/r?p=1".into(),
            content_type: Some("text/html".into()),
            body: b"<p>http://provider.test/r?p=1</p>".to_vec(),
        }]
    );
    assert_eq!(store.pages_not_kept(source).unwrap(), 1);

    // Past the budget, a page is recorded and its body is not kept.
    store.set_body_budget(1).unwrap();
    let mut over = outcome("b", 1, QueryState::Done, &[]);
    over.pages = vec![kept("http://provider.test/r?p=3")];
    store.record_query(source, &over).unwrap();
    assert_eq!(store.bodies_dropped(), 1);
    assert_eq!(store.pages_not_kept(source).unwrap(), 2);
    assert_eq!(store.kept_pages(source).unwrap().len(), 1);
    assert_eq!(store.stats(source).unwrap().pages, 4);
}

fn rules_and_surfaced_specs_are_kept_per_source(open: Open<'_>) {
    let mut store = open();
    let source = provider(&mut store);
    assert_eq!(store.rules(source).unwrap(), None);
    assert_eq!(
        store.surfaced_spec("http://provider.test/form").unwrap(),
        None
    );
    store.set_rules(source, r#"{"city":"//li"}"#).unwrap();
    store
        .set_surfaced_spec(source, "form: http://provider.test/form\n")
        .unwrap();
    drop(store);

    let store = open();
    assert_eq!(
        store.rules(source).unwrap().as_deref(),
        Some(r#"{"city":"//li"}"#)
    );
    assert_eq!(
        store
            .surfaced_spec("http://provider.test/form")
            .unwrap()
            .as_deref(),
        Some("form: http://provider.test/form\n")
    );
    assert_eq!(store.surfaced_spec("http://other.test/").unwrap(), None);
    // Nothing planned for workers: no work, the rules as set.
    assert_eq!(
        store.work(source).unwrap(),
        (None, Some(r#"{"city":"//li"}"#.to_string()))
    );
}

fn reopened_queries_are_sent_again_and_forgotten_ones_are_gone(open: Open<'_>) {
    let mut store = open();
    let source = provider(&mut store);
    let mut done = outcome("a", 0, QueryState::Done, &[("city", "Binz")]);
    done.records = vec![record("p1", 0, "Arkona")];
    done.pages = vec![page("http://provider.test/r?p=1").keeping(None, b"<li>Binz</li>")];
    store.record_query(source, &done).unwrap();
    store
        .record_query(
            source,
            &outcome("b", 1, QueryState::Failed, &[("city", "Sellin")]),
        )
        .unwrap();
    let listed: IndexFragment = [("city", "Prora")].into_iter().collect();
    store
        .record_values(source, Some("listed"), &listed)
        .unwrap();

    // Changed rules applied to the kept pages: their values replace what
    // the queries found.
    let by_query = vec![(
        "a".to_string(),
        [("city", "Binz"), ("city", "Thiessow")]
            .into_iter()
            .collect(),
        vec![record("p1", 0, "Arkona"), record("p1", 1, "Kap")],
    )];
    assert_eq!(store.replace_query_values(source, &by_query).unwrap(), 2);
    assert_eq!(
        store.attribute_values(source, "city").unwrap(),
        keys(&["Binz", "Prora", "Thiessow"])
    );
    assert_eq!(store.record_count(source).unwrap(), 2);

    store.reopen_queries(source).unwrap();
    drop(store);
    let mut store = open();
    assert!(store.finished_queries(source).unwrap().is_empty());
    assert_eq!(store.query_counts(source).unwrap(), (2, 0));
    assert_eq!(
        store.attribute_values(source, "city").unwrap(),
        keys(&["Prora"])
    );
    assert_eq!(store.record_count(source).unwrap(), 0);

    store.forget_queries(source).unwrap();
    assert_eq!(store.query_counts(source).unwrap(), (0, 0));
    assert_eq!(store.stats(source).unwrap().pages, 0);
    assert_eq!(
        store.attribute_values(source, "city").unwrap(),
        keys(&["Prora"])
    );
    assert_eq!(store.sources().unwrap().len(), 1);
}

fn checkpoints_carry_the_links_their_walk_found(open: Open<'_>) {
    let mut store = open();
    let source = provider(&mut store);
    let mut walking = outcome("a", 0, QueryState::Pending, &[]);
    walking.checkpoint = Some(r#"{"next":2}"#.into());
    walking.walk_links = keys(&["http://provider.test/r?p=2"]);
    store.record_query(source, &walking).unwrap();
    let mut on = outcome("a", 0, QueryState::Pending, &[]);
    on.fresh = false;
    on.checkpoint = Some(r#"{"next":3}"#.into());
    on.walk_links = keys(&[
        "seen http://provider.test/r?p=2&x",
        "http://provider.test/r?p=3",
    ]);
    store.record_query(source, &on).unwrap();
    let mut plain = outcome("b", 1, QueryState::Failed, &[]);
    plain.checkpoint = Some("page 7".into());
    store.record_query(source, &plain).unwrap();
    drop(store);

    let mut store = open();
    let checkpoints = store.checkpoints(source).unwrap();
    assert_eq!(checkpoints.len(), 2);
    let walk: serde_json::Value = serde_json::from_str(&checkpoints["a"]).unwrap();
    assert_eq!(
        walk,
        serde_json::json!({"next": 3, "links": [
            "http://provider.test/r?p=2",
            "seen http://provider.test/r?p=2&x",
            "http://provider.test/r?p=3",
        ]})
    );
    assert_eq!(checkpoints["b"], "page 7", "no JSON: as it was");

    // Started over, the walk's links are those of the new start.
    let mut again = outcome("a", 0, QueryState::Pending, &[]);
    again.checkpoint = Some(r#"{"next":2}"#.into());
    store.record_query(source, &again).unwrap();
    assert_eq!(store.checkpoints(source).unwrap()["a"], r#"{"next":2}"#);
    // Done, a query has no checkpoint.
    store
        .record_query(source, &outcome("a", 0, QueryState::Done, &[]))
        .unwrap();
    assert_eq!(store.checkpoints(source).unwrap().len(), 1);
}

fn status_counts_every_source_s_queries_and_pages(open: Open<'_>) {
    let mut store = open();
    let source = provider(&mut store);
    store.upsert_source(&source_info_page()).unwrap();
    let mut done = outcome("a", 0, QueryState::Done, &[]);
    done.pages = vec![
        page("http://provider.test/r?p=1"),
        page("http://provider.test/r?p=2"),
    ];
    done.cut_short = true;
    store.record_query(source, &done).unwrap();
    store
        .record_query(source, &outcome("b", 1, QueryState::Done, &[]))
        .unwrap();
    store
        .record_query(source, &outcome("c", 2, QueryState::Failed, &[]))
        .unwrap();
    store
        .record_query(source, &outcome("d", 3, QueryState::Pending, &[]))
        .unwrap();
    drop(store);

    let status = open().status().unwrap();
    assert_eq!(
        status.sources,
        [
            StatusSource {
                url: "http://provider.test/form".into(),
                kind: "database".into(),
                pending: 1,
                leased: 0,
                done: 2,
                failed: 1,
                truncated: 1,
                pages: 2,
            },
            StatusSource {
                url: page_url(),
                kind: "page".into(),
                pending: 0,
                leased: 0,
                done: 0,
                failed: 0,
                truncated: 0,
                pages: 0,
            },
        ]
    );
    assert!(status.workers_alive.is_empty() && status.workers_dead.is_empty());
    assert!(status.planners_alive.is_empty() && status.host_waits.is_empty());
    assert_eq!(status.requests_per_second, 2.0 / 60.0);
}

fn unknown_sources_are_errors(open: Open<'_>) {
    let mut store = open();
    let known = provider(&mut store);
    let unknown = known + 1000;
    let is_unknown =
        |e: StoreError| matches!(e, StoreError::UnknownSource { id, .. } if id == unknown);
    assert!(is_unknown(
        store
            .record_query(
                unknown,
                &outcome("a", 0, QueryState::Done, &[("city", "Binz")])
            )
            .unwrap_err()
    ));
    let listed: IndexFragment = [("city", "Prora")].into_iter().collect();
    assert!(is_unknown(
        store.record_values(unknown, None, &listed).unwrap_err()
    ));
    assert!(is_unknown(
        store
            .record_page(unknown, &page("http://provider.test/"))
            .unwrap_err()
    ));
    assert!(is_unknown(store.set_incomplete(unknown, None).unwrap_err()));
    assert!(is_unknown(store.rules(unknown).unwrap_err()));
    // Nothing was written for it.
    assert_eq!(store.sources().unwrap().len(), 1);
    assert!(store.search("binz").unwrap().is_empty());
    assert!(store.search("prora").unwrap().is_empty());
}

/// A hotel with an id, as a refresh keys it.
pub(super) fn hotel(id: &str, name: &str, price: &str) -> Record {
    Record {
        page: "p1".into(),
        ordinal: 0,
        fields: Fields(vec![
            ("id".into(), Field::One(id.into())),
            ("name".into(), Field::One(name.into())),
            ("preis".into(), Field::One(price.into())),
        ]),
    }
}

/// In a refresh begun at `since`, query `a`'s answer is unchanged (a
/// 304); how a changed answer of the refresh is recorded.
fn a_unchanged(store: &mut Store, source: SourceId, since: i64) -> Refreshing {
    let refreshing = Refreshing {
        since,
        unchanged: false,
        whole: false,
        interval: None,
    };
    let mut again = outcome("a", 0, QueryState::Done, &[]);
    again.fresh = false;
    again.refresh = Some(Refreshing {
        unchanged: true,
        ..refreshing
    });
    store.record_query_new(source, &again).unwrap();
    refreshing
}

fn a_refresh_tells_records_new_changed_and_gone_by_their_key(open: Open<'_>) {
    let mut store = open();
    let source = provider(&mut store);
    let mut a = outcome("a", 0, QueryState::Done, &[]);
    a.records = vec![hotel("1", "Arkona", "2"), hotel("2", "Kap", "1")];
    a.mark = Some(AnswerMark {
        validators: crate::fetch::Validators {
            etag: Some("\"v1\"".into()),
            last_modified: None,
        },
        digest: "d-a".into(),
        cut_short: false,
        interval: None,
    });
    store.record_query_new(source, &a).unwrap();
    let mut b = outcome("b", 1, QueryState::Done, &[]);
    b.records = vec![hotel("3", "Seeblick", "3"), hotel("4", "Düne", "1")];
    b.mark = Some(AnswerMark {
        digest: "d-b".into(),
        ..AnswerMark::default()
    });
    store.record_query_new(source, &b).unwrap();
    drop(store);

    let mut store = open();
    let start = store.begin_refresh(source, false).unwrap();
    assert_eq!(start.marks.len(), 2);
    assert_eq!(start.marks["a"].validators.etag.as_deref(), Some("\"v1\""));
    assert_eq!(start.marks["b"].digest, "d-b");
    // The done queries are open again, their records kept.
    assert!(store.finished_queries(source).unwrap().is_empty());
    assert_eq!(store.record_count(source).unwrap(), 4);
    let refreshing = a_unchanged(&mut store, source, start.since);
    drop(store);
    // Interrupted here: begun again, the refresh goes on where it stood.
    let mut store = open();
    let resumed = store.begin_refresh(source, false).unwrap();
    assert!(resumed.resumed && !start.resumed);
    assert_eq!(resumed.since, start.since);
    assert_eq!(store.finished_queries(source).unwrap(), set(&["a"]));
    // b, walked whole: 3 renamed, 4 gone, 5 new.
    let mut changed = outcome("b", 1, QueryState::Done, &[]);
    changed.records = vec![hotel("3", "Haus Seeblick", "3"), hotel("5", "Möwe", "2")];
    changed.refresh = Some(Refreshing {
        whole: true,
        ..refreshing
    });
    let recorded = store.record_query_new(source, &changed).unwrap();
    assert_eq!(recorded.new_records, [1]);
    drop(store);

    let store = open();
    let changes = store.changes(source, start.since).unwrap();
    assert_eq!((changes.new, changes.changed, changes.gone), (1, 1, 1));
    assert_eq!(changes.by_attribute["name"].changed, 1);
    assert_eq!(changes.by_attribute["preis"].changed, 0);
    assert_eq!(changes.by_attribute["id"].gone, 1);
    let mut ops = Vec::new();
    store
        .each_change(start.since, |op, r| {
            ops.push((op, r.record.fields.key()));
            std::ops::ControlFlow::Continue(())
        })
        .unwrap();
    assert_eq!(
        ops,
        [
            (ChangeOp::Update, "id=3".to_string()),
            (ChangeOp::Delete, "id=4".to_string()),
            (ChangeOp::Add, "id=5".to_string()),
        ]
    );
    // The records export leaves the gone one out.
    assert_eq!(store.record_count(source).unwrap(), 4);
    let mut names = Vec::new();
    store
        .each_record(|r| {
            names.push(r.record.fields.get("name").unwrap().values()[0].clone());
            Ok::<(), StoreError>(())
        })
        .unwrap();
    assert_eq!(names, ["Arkona", "Kap", "Haus Seeblick", "Möwe"]);

    // The changed answer is due sooner than the unchanged one; none now.
    let schedule = store.schedule(source).unwrap();
    let changed_wait = next_interval(None, true);
    assert!(changed_wait < next_interval(None, false));
    assert_eq!((schedule.scheduled, schedule.due), (2, 0));
    assert_eq!(schedule.next, Some(start.since + changed_wait));
    drop(store);
    let mut store = open();
    store.end_refresh(source).unwrap();
    let due = store.begin_refresh(source, true).unwrap();
    assert!(!due.resumed && due.since > start.since);
    assert_eq!(due.marks.len(), 2);
    assert_eq!(due.marks["b"].interval, Some(changed_wait));
    assert_eq!(store.finished_queries(source).unwrap(), set(&["a", "b"]));
}

/// A query's outcome with its records and, as the rules give them, their
/// values, and `more` values no record holds.
fn with_records(
    key: &str,
    ordinal: u64,
    records: Vec<Record>,
    more: &[(&str, &str)],
) -> QueryOutcome {
    let mut done = outcome(key, ordinal, QueryState::Done, more);
    for record in &records {
        for (name, field) in &record.fields.0 {
            for value in field.values() {
                done.fragment.add(name, value);
            }
        }
    }
    done.records = records;
    done
}

fn a_refresh_leaves_out_the_values_no_live_record_holds(open: Open<'_>) {
    let mut store = open();
    let source = provider(&mut store);
    // Values the provider lists (before the queries run): never gone.
    let listed: IndexFragment = [("preis", "über 100"), ("preis", "ab 200")]
        .into_iter()
        .collect();
    store.record_values(source, None, &listed).unwrap();
    let a = with_records(
        "a",
        0,
        vec![hotel("1", "Arkona", "bis 40"), hotel("2", "Kap", "bis 70")],
        &[("region", "Rügen")],
    );
    store.record_query_new(source, &a).unwrap();
    let b = with_records(
        "b",
        1,
        vec![
            hotel("3", "Seeblick", "über 150"),
            hotel("4", "Düne", "über 100"),
            hotel("6", "Arkona", "bis 40"),
        ],
        &[("region", "Usedom")],
    );
    store.record_query_new(source, &b).unwrap();
    drop(store);

    let mut store = open();
    let start = store.begin_refresh(source, false).unwrap();
    // a: unchanged, its values seen again as they were.
    let refreshing = a_unchanged(&mut store, source, start.since);
    // b, walked whole: 3 renamed and moved, 4 closed, 6 closed (its name
    // held by 1 of a), 5 new; the region no record holds not shown.
    let mut changed = with_records(
        "b",
        1,
        vec![
            hotel("3", "Haus Seeblick", "bis 40"),
            hotel("5", "Möwe", "bis 70"),
        ],
        &[],
    );
    changed.refresh = Some(Refreshing {
        whole: true,
        ..refreshing
    });
    store.record_query_new(source, &changed).unwrap();
    drop(store);

    let store = open();
    let values = store.values(source).unwrap();
    assert_eq!(values["id"], keys(&["1", "2", "3", "5"]));
    assert_eq!(
        values["name"],
        keys(&["Arkona", "Haus Seeblick", "Kap", "Möwe"])
    );
    // "über 150" gone with the house that moved out of it; "über 100",
    // listed, stays without the house closed.
    assert_eq!(
        values["preis"],
        keys(&["ab 200", "bis 40", "bis 70", "über 100"])
    );
    assert_eq!(values["region"], keys(&["Rügen", "Usedom"]));
    assert_eq!(
        store.attribute_values(source, "name").unwrap(),
        values["name"]
    );
    let stats = store.stats(source).unwrap();
    assert_eq!((stats.values_per_attribute["name"], stats.records), (4, 4));
    assert!(store.search("Düne").unwrap().is_empty());
    let changes = store.changes(source, start.since).unwrap();
    let gone: Vec<(&str, u64)> = changes
        .by_attribute
        .iter()
        .map(|(a, c)| (a.as_str(), c.values_gone))
        .collect();
    // id 4 and 6, Seeblick and Düne, "über 150".
    assert_eq!(gone, [("id", 2), ("name", 2), ("preis", 1)]);
    assert!(store
        .search("Seeblick")
        .unwrap()
        .iter()
        .all(|h| h.value == "Haus Seeblick"));
    assert_eq!(store.search("Arkona").unwrap().len(), 1);
    drop(store);

    // The next refresh sees the closed house again: its values are back.
    let mut store = open();
    store.end_refresh(source).unwrap();
    let start = store.begin_refresh(source, false).unwrap();
    assert!(!start.resumed);
    let mut back = with_records("b", 1, vec![hotel("4", "Düne", "über 150")], &[]);
    back.refresh = Some(Refreshing {
        since: start.since,
        ..refreshing
    });
    store.record_query_new(source, &back).unwrap();
    let values = store.values(source).unwrap();
    assert_eq!(values["id"], keys(&["1", "2", "3", "4", "5"]));
    assert!(values["name"].contains(&"Düne".to_string()));
    assert_eq!(
        values["preis"],
        keys(&["ab 200", "bis 40", "bis 70", "über 100", "über 150"])
    );
    assert_eq!(store.search("Düne").unwrap().len(), 1);
}

/// A record that two queries show is stored once, under the query that
/// found it first. When that query's answer drops it while the other's
/// answer is unchanged (a 304; the gatherer reads that answer's records
/// again from its kept pages), the record is not gone, in either order.
fn a_record_two_queries_show_stays_while_the_unchanged_one_shows_it(open: Open<'_>) {
    let mut store = open();
    for unchanged_first in [false, true] {
        let url = format!("http://provider.test/form?order={unchanged_first}");
        let source = store
            .upsert_source(&source(&url, SourceKind::Database))
            .unwrap();
        let shared = hotel("2", "Kap", "bis 40");
        let a = with_records(
            "a",
            0,
            vec![hotel("1", "Arkona", "ab 200"), shared.clone()],
            &[],
        );
        store.record_query_new(source, &a).unwrap();
        let b = with_records(
            "b",
            1,
            vec![shared.clone(), hotel("3", "Düne", "bis 40")],
            &[],
        );
        store.record_query_new(source, &b).unwrap();
        assert_eq!(store.record_count(source).unwrap(), 3);
        // The refresh begins on a later millisecond than the records.
        std::thread::sleep(std::time::Duration::from_millis(3));

        let start = store.begin_refresh(source, false).unwrap();
        let refreshing = Refreshing {
            since: start.since,
            unchanged: false,
            whole: false,
            interval: None,
        };
        // a, walked whole, no longer shows Kap.
        let mut dropped = with_records("a", 0, vec![hotel("1", "Arkona", "ab 200")], &[]);
        dropped.refresh = Some(Refreshing {
            whole: true,
            ..refreshing
        });
        // b unchanged, its records read again from its kept pages.
        let mut same = with_records(
            "b",
            1,
            vec![shared.clone(), hotel("3", "Düne", "bis 40")],
            &[],
        );
        same.fresh = false;
        same.refresh = Some(Refreshing {
            unchanged: true,
            // Every page of it was kept: read whole.
            whole: true,
            ..refreshing
        });
        let order = if unchanged_first {
            [same, dropped]
        } else {
            [dropped, same]
        };
        for outcome in &order {
            store.record_query_new(source, outcome).unwrap();
        }
        let changes = store.changes(source, start.since).unwrap();
        assert_eq!(
            (changes.new, changes.changed, changes.gone),
            (0, 0, 0),
            "unchanged first: {unchanged_first}"
        );
        assert!(store.values(source).unwrap()["name"].contains(&"Kap".to_string()));
        assert_eq!(store.record_count(source).unwrap(), 3);
        store.end_refresh(source).unwrap();
        // Gone once no answer shows it.
        std::thread::sleep(std::time::Duration::from_millis(3));
        let start = store.begin_refresh(source, false).unwrap();
        let mut both = Vec::new();
        for (key, ordinal, records) in [
            ("a", 0, vec![hotel("1", "Arkona", "ab 200")]),
            ("b", 1, vec![hotel("3", "Düne", "bis 40")]),
        ] {
            let mut walked = with_records(key, ordinal, records, &[]);
            walked.refresh = Some(Refreshing {
                since: start.since,
                whole: true,
                ..refreshing
            });
            both.push(walked);
        }
        for outcome in &both {
            store.record_query_new(source, outcome).unwrap();
        }
        let changes = store.changes(source, start.since).unwrap();
        assert_eq!(changes.gone, 1, "unchanged first: {unchanged_first}");
    }
}

//! `gather refresh` on the guest house search whose data changes
//! (`gather::demo::refresh`): every new, changed and gone house found with
//! exact counts, unchanged answers not walked again, a 304 where the
//! provider sends validators, and a delta export that turns the first
//! records export into the second.

use std::collections::{BTreeMap, BTreeSet};
use std::process::{Command, Stdio};

use gather::demo::postgres::LocalPostgres;
use gather::demo::refresh::{self, PATH, PATH_WITHOUT_VALIDATORS};
use gather::demo::DemoSite;
use gather::record::Fields;

use crate::support::{demo_site, gather, stderr, stdout};

/// Runs `gather` with `args`, which must succeed; its standard output.
fn run(args: &[&str]) -> String {
    let out = gather(args);
    assert!(out.status.success(), "gather {args:?}: {}", stderr(&out));
    stdout(&out)
}

/// Where the gatherer database of a test is, and who works on it.
enum Db {
    /// A SQLite file: one process.
    Sqlite(String),
    /// A PostgreSQL database: every gathering and refresh runs with a
    /// `gather worker` alongside, on the shared plan.
    Shared(String),
}

impl Db {
    fn location(&self) -> &str {
        match self {
            Db::Sqlite(db) | Db::Shared(db) => db,
        }
    }

    /// Runs `gather` with `args` (and `--json`), with a worker alongside on
    /// a shared database: the JSON summaries of the processes, the
    /// planner's first.
    fn summaries(&self, args: &[&str]) -> Vec<serde_json::Value> {
        let mut args = args.to_vec();
        args.extend(["--db", self.location(), "--json"]);
        let spawn = |args: &[&str]| {
            Command::new(env!("CARGO_BIN_EXE_gather"))
                .args(args)
                .env_remove("GATHER_DB")
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("run gather")
        };
        let mut children = vec![(args.clone(), spawn(&args))];
        if let Db::Shared(db) = self {
            let worker = vec!["worker", "--db", db.as_str(), "--json"];
            children.push((worker.clone(), spawn(&worker)));
        }
        children
            .into_iter()
            .map(|(args, child)| {
                let out = child.wait_with_output().expect("wait");
                assert!(out.status.success(), "gather {args:?}: {}", stderr(&out));
                serde_json::from_str(&stdout(&out)).expect("a JSON summary")
            })
            .collect()
    }
}

/// A figure of the source lines of every process's summary, summed.
fn summed(summaries: &[serde_json::Value], figure: impl Fn(&serde_json::Value) -> u64) -> u64 {
    summaries
        .iter()
        .flat_map(|s| s["sources"].as_array().cloned().unwrap_or_default())
        .map(|line| figure(&line))
        .sum()
}

/// The requests the site's guest house search answered so far.
fn searches(site: &DemoSite, path: &str) -> Vec<gather::demo::LoggedRequest> {
    site.requests()
        .into_iter()
        .filter(|r| r.target.starts_with(&format!("{path}suche")))
        .collect()
}

/// What changed between the two versions of the data, by house number:
/// (new, changed, gone), and the houses changed per field.
fn expected_changes() -> ((u64, u64, u64), BTreeMap<String, u64>) {
    let (before, after) = (refresh::expected(1), refresh::expected(2));
    let new = after.keys().filter(|k| !before.contains_key(*k)).count() as u64;
    let gone = before.keys().filter(|k| !after.contains_key(*k)).count() as u64;
    let mut by_field = BTreeMap::new();
    let mut changed = 0;
    for (nr, fields) in &before {
        let Some(now) = after.get(nr) else { continue };
        if now != fields {
            changed += 1;
        }
        for ((name, old), (_, new)) in fields.iter().zip(now) {
            if old != new {
                *by_field.entry(name.clone()).or_insert(0) += 1;
            }
        }
    }
    ((new, changed, gone), by_field)
}

/// A records export as comparable lines: each record's JSON, in a canonical
/// form, by (source, key).
fn records(jsonl: &str) -> BTreeMap<(String, String), String> {
    jsonl
        .lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            (key_of(&value), value.to_string())
        })
        .collect()
}

/// A record's source and key ([`Fields::key`]).
fn key_of(record: &serde_json::Value) -> (String, String) {
    let fields = Fields::from_json(&record["fields"].to_string()).unwrap();
    (record["source"].as_str().unwrap().to_string(), fields.key())
}

/// Applies a delta export to a records export, as an index would.
fn apply(
    mut old: BTreeMap<(String, String), String>,
    delta: &str,
) -> BTreeMap<(String, String), String> {
    for line in delta.lines() {
        let change: serde_json::Value = serde_json::from_str(line).unwrap();
        let record = &change["record"];
        let key = key_of(record);
        assert_eq!(change["key"].as_str(), Some(key.1.as_str()));
        match change["op"].as_str().unwrap() {
            "add" => assert!(old.insert(key, record.to_string()).is_none(), "{line}"),
            "update" => assert!(old.insert(key, record.to_string()).is_some(), "{line}"),
            "delete" => assert!(old.remove(&key).is_some(), "{line}"),
            op => panic!("unknown op {op}"),
        }
    }
    old
}

/// The values of the index fragments of the database's one source by
/// attribute, as the JSON export writes them; and the same from the SOIF
/// export, which must agree.
fn index_values(db: &str) -> BTreeMap<String, BTreeSet<String>> {
    let json = run(&["export", "--db", db, "--format", "json"]);
    let source: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    let values: BTreeMap<String, BTreeSet<String>> =
        serde_json::from_value(source["attributes"].clone()).unwrap();
    let soif = gather(&["export", "--db", db, "--format", "soif"]);
    assert!(soif.status.success(), "{}", stderr(&soif));
    let objects = gather::soif::parse(&soif.stdout).unwrap();
    let from_soif: BTreeMap<String, BTreeSet<String>> = objects[0]
        .attributes
        .iter()
        .filter_map(|(name, bytes)| {
            let attribute = name.strip_prefix("DB.")?;
            let text = String::from_utf8(bytes.clone()).unwrap();
            Some((
                attribute.to_string(),
                text.lines().map(String::from).collect(),
            ))
        })
        .collect();
    assert_eq!(from_soif, values, "the SOIF and the JSON export agree");
    values
}

/// The values of the houses of a version of the data, by field.
fn values_of_version(version: u32) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (field, value) in refresh::expected(version).into_values().flatten() {
        out.entry(field).or_default().insert(value);
    }
    out
}

/// The values `gather search` finds for `term` (none: it fails).
fn search_values(db: &str, term: &str) -> Vec<String> {
    let out = gather(&["search", "--db", db, "--json", term]);
    stdout(&out)
        .lines()
        .map(|line| {
            let hit: serde_json::Value = serde_json::from_str(line).unwrap();
            hit["value"].as_str().unwrap().to_string()
        })
        .collect()
}

/// Checks that the index fragments hold exactly the values of the houses
/// of `version` (and the values no house holds, `others`, unchanged).
fn assert_index_is_version(db: &str, version: u32, others: &BTreeMap<String, BTreeSet<String>>) {
    let mut index = index_values(db);
    let houses = values_of_version(version);
    let rest: BTreeMap<String, BTreeSet<String>> = index
        .iter()
        .filter(|(a, _)| !houses.contains_key(*a))
        .map(|(a, v)| (a.clone(), v.clone()))
        .collect();
    index.retain(|a, _| houses.contains_key(a));
    assert_eq!(index, houses, "the values of version {version}");
    assert_eq!(&rest, others, "the values no house holds");
}

/// Gathers `path` of `site`, turns the data to its second version and
/// refreshes; checks the change report, the delta export and the values
/// of the index fragments. Returns the refresh's source line of `--json`
/// (on a shared plan, the planner's, with the answers and queries of
/// every process summed).
fn gather_change_refresh(site: &DemoSite, path: &str, db: &Db) -> serde_json::Value {
    let url = site.base_url().join(path).unwrap().to_string();
    db.summaries(&[&url]);
    let location = db.location();
    let first: BTreeSet<String> = searches(site, path)
        .iter()
        .map(|r| r.target.clone())
        .collect();
    let old = records(&run(&["export", "--db", location, "--records"]));
    assert_eq!(old.len(), refresh::expected(1).len());
    let houses = values_of_version(1);
    let others: BTreeMap<String, BTreeSet<String>> = index_values(location)
        .into_iter()
        .filter(|(a, _)| !houses.contains_key(a))
        .collect();
    assert_index_is_version(location, 1, &others);
    assert_eq!(search_values(location, "Abendrot"), ["Pension Abendrot"]);
    // The gathering gave every value its first and last seen (read in
    // the SQLite file; the store's parity test holds both back-ends to
    // the same history).
    let history = |sql: &str| -> Option<i64> {
        let Db::Sqlite(path) = db else { return None };
        let conn = rusqlite::Connection::open(path).unwrap();
        Some(conn.query_row(sql, [], |r| r.get(0)).unwrap())
    };
    assert_eq!(
        history("SELECT count(*) FROM attribute_values WHERE first_seen IS NULL OR last_seen < first_seen OR gone_at IS NOT NULL").unwrap_or(0),
        0
    );
    assert_eq!(
        history("SELECT count(*) FROM records WHERE first_seen IS NULL OR last_seen IS NULL")
            .unwrap_or(0),
        0,
        "every record has its first and last seen"
    );

    site.set_data_version(2);
    let sent_before = searches(site, path).len();
    let summaries = db.summaries(&["refresh"]);
    let mut source = summaries[0]["sources"][0].clone();
    for figure in [
        "answers_refreshed",
        "answers_unchanged",
        "answers_not_modified",
        "answers_same_digest",
    ] {
        source["refresh"][figure] = summed(&summaries, |line| {
            line["refresh"][figure].as_u64().unwrap_or(0)
        })
        .into();
    }
    source["queries_sent"] = summed(&summaries, |line| {
        line["queries_sent"].as_u64().unwrap_or(0)
    })
    .into();
    let report = &source["refresh"];
    let ((new, changed, gone), by_field) = expected_changes();
    assert_eq!(report["new"], new, "{report}");
    assert_eq!(report["changed"], changed, "{report}");
    assert_eq!(report["gone"], gone, "{report}");
    for (field, n) in &by_field {
        assert_eq!(
            report["by_attribute"][field]["changed"], *n,
            "{field}: {report}"
        );
    }
    // The values no house of the second version holds left the index.
    let (before, after) = (values_of_version(1), values_of_version(2));
    for (field, values) in &before {
        let gone = values.difference(&after[field]).count() as u64;
        assert_eq!(
            report["by_attribute"][field]["values_gone"], gone,
            "{field}: {report}"
        );
    }
    assert_eq!(report["by_attribute"]["id"]["changed"], 0);
    assert_eq!(report["by_attribute"]["id"]["new"], new);
    assert_eq!(report["by_attribute"]["id"]["gone"], gone);

    // One request per query, and the pages of the changed answers only.
    let regions: Vec<&str> = refresh::GEBIETE.iter().map(|g| g.0).collect();
    let changed_pages: usize = regions
        .iter()
        .filter(|g| refresh::search(1, g) != refresh::search(2, g))
        .map(|g| refresh::pages(2, g))
        .sum();
    let sent = searches(site, path).len() - sent_before;
    assert!(
        sent <= regions.len() + changed_pages,
        "{sent} requests for {} queries and {changed_pages} pages of changed answers",
        regions.len()
    );
    assert!(
        first.len() > regions.len(),
        "the first answers had several pages"
    );
    assert_eq!(source["queries_sent"], regions.len() as u64);
    assert_eq!(report["answers_refreshed"], regions.len() as u64);
    assert_eq!(report["answers_unchanged"], 1, "the Müritz did not change");
    // Every query asked once, whichever process asked it.
    let refreshed = &searches(site, path)[sent_before..];
    for region in &regions {
        let first_pages = refreshed
            .iter()
            .filter(|r| r.target.contains(&format!("gebiet={region}")))
            .filter(|r| !r.target.contains("seite="))
            .count();
        assert_eq!(first_pages, 1, "{region}: {refreshed:?}");
    }

    // The delta turns the first export into the second, exactly.
    let new_export = records(&run(&["export", "--db", location, "--records"]));
    assert_eq!(new_export.len(), refresh::expected(2).len());
    let since = report["since"].as_i64().unwrap().to_string();
    let delta = run(&["export", "--db", location, "--changes-since", &since]);
    assert_eq!(delta.lines().count() as u64, new + changed + gone);
    assert_eq!(apply(old, &delta), new_export);

    // The index fragments hold the values of the second version: no name
    // of a house closed, no old name of a house renamed, no price class
    // no house has any more; the values no house holds stay.
    assert_index_is_version(location, 2, &others);
    // Gone at the refresh's start; those the refresh showed, seen since.
    let since = report["since"].as_i64().unwrap();
    let gone: u64 = before
        .iter()
        .map(|(field, values)| values.difference(&after[field]).count() as u64)
        .sum();
    assert_eq!(
        history(&format!(
            "SELECT count(*) FROM attribute_values WHERE gone_at = {since}"
        ))
        .unwrap_or(gone as i64),
        gone as i64
    );
    assert_eq!(
        history(&format!(
            "SELECT count(*) FROM attribute_values WHERE gone_at IS NULL AND last_seen < {since}
               AND attribute IN ('id', 'name', 'ort', 'preis')"
        ))
        .unwrap_or(0),
        0,
        "every live value of a house was seen again by the refresh"
    );
    assert!(
        search_values(location, "Abendrot").is_empty(),
        "a closed house"
    );
    assert_eq!(
        search_values(location, "Seestern"),
        ["Gästehaus Seestern (neu eröffnet)"]
    );
    assert!(
        search_values(location, "100").is_empty(),
        "a price class gone"
    );
    source
}

/// Gathers and refreshes the provider with validators
/// ([`gather_change_refresh`]), then refreshes it again unchanged: only
/// 304s, no body; then with `--due`, which sends nothing.
fn refresh_with_validators(site: &DemoSite, db: &Db) {
    let source = gather_change_refresh(site, PATH, db);
    assert_eq!(source["refresh"]["answers_not_modified"], 1);

    // Nothing changed since: every query is answered by a 304, no body.
    let before = searches(site, PATH).len();
    let summaries = db.summaries(&["refresh"]);
    let requests = &searches(site, PATH)[before..];
    assert_eq!(requests.len(), refresh::GEBIETE.len());
    assert!(requests
        .iter()
        .all(|r| r.headers.iter().any(|(n, _)| n == "if-none-match")));
    let report = &summaries[0]["sources"][0]["refresh"];
    let not_modified = summed(&summaries, |line| {
        line["refresh"]["answers_not_modified"]
            .as_u64()
            .unwrap_or(0)
    });
    assert_eq!(not_modified, refresh::GEBIETE.len() as u64);
    assert_eq!(
        (&report["new"], &report["changed"], &report["gone"]),
        (&0.into(), &0.into(), &0.into())
    );
    let pages = summed(&summaries, |line| line["pages"].as_u64().unwrap_or(0));
    assert_eq!(pages, 0, "no result page was read");

    // Every query was refreshed just now: none is due, so `--due` sends none.
    let status = run(&["status", "--db", db.location()]);
    assert!(
        status.contains("refresh due: 0 queries now, the next at"),
        "{status}"
    );
    let before = searches(site, PATH).len();
    let summaries = db.summaries(&["refresh", "--due"]);
    assert_eq!(
        searches(site, PATH).len(),
        before,
        "a query not due was sent"
    );
    let sent = summed(&summaries, |line| {
        line["queries_sent"].as_u64().unwrap_or(0)
    });
    assert_eq!(sent, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refresh_of_a_provider_with_validators_asks_conditionally() {
    let site = demo_site(20).await;
    let dir = tempfile::tempdir().unwrap();
    let db = Db::Sqlite(dir.path().join("g.sqlite").to_str().unwrap().to_string());
    tokio::task::block_in_place(|| refresh_with_validators(&site, &db));
}

/// The same on a shared PostgreSQL plan: the planner and a worker refresh
/// side by side, every query asked once, the change report the plan's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_refresh_a_shared_plan_side_by_side() {
    let site = demo_site(20).await;
    let pg = LocalPostgres::start().unwrap_or_else(|e| panic!("PostgreSQL for the tests: {e}"));
    let db = Db::Shared(pg.database("refresh").unwrap());
    tokio::task::block_in_place(|| refresh_with_validators(&site, &db));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refresh_of_a_provider_without_validators_compares_first_pages() {
    let site = demo_site(20).await;
    let dir = tempfile::tempdir().unwrap();
    let db = Db::Sqlite(dir.path().join("g.sqlite").to_str().unwrap().to_string());
    let source =
        tokio::task::block_in_place(|| gather_change_refresh(&site, PATH_WITHOUT_VALIDATORS, &db));
    assert_eq!(source["refresh"]["answers_same_digest"], 1);
    assert_eq!(source["refresh"]["answers_not_modified"], 0);
    let sent = searches(&site, PATH_WITHOUT_VALIDATORS);
    assert!(sent
        .iter()
        .all(|r| !r.headers.iter().any(|(n, _)| n.starts_with("if-"))));
}

/// The answers of a small provider whose data changes (`version`): per
/// region, (id, name) rows; `nord` and `sued` both list house 2.
fn answer_rows(version: u8, region: &str) -> Vec<(u32, &'static str)> {
    match (version, region) {
        (1, "nord") => vec![(1, "Arkona"), (2, "Kap")],
        (_, "nord") => vec![(1, "Arkona")],
        (1 | 2, "sued") => vec![(2, "Kap"), (3, "Düne")],
        (_, "sued") => vec![(3, "Düne")],
        _ => Vec::new(),
    }
}

/// A record two queries show, found first by one whose answer then drops
/// it while the other's answer comes back unchanged (a 304): not gone,
/// since the unchanged answer's kept pages still show it; gone once no
/// answer shows it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_an_unchanged_answer_still_shows_is_not_gone() {
    use axum::extract::{Query, State};
    use axum::http::{header, HeaderMap, StatusCode};
    use axum::response::IntoResponse;
    use std::sync::atomic::{AtomicU8, Ordering};
    use std::sync::Arc;

    let version = Arc::new(AtomicU8::new(1));
    let router = axum::Router::new()
        .route(
            "/",
            axum::routing::get(|| async {
                axum::response::Html(
                    "<form action=/suche><select name=gebiet><option>nord<option>sued</select></form>",
                )
            }),
        )
        .route(
            "/suche",
            axum::routing::get(
                |State(version): State<Arc<AtomicU8>>,
                 Query(q): Query<BTreeMap<String, String>>,
                 headers: HeaderMap| async move {
                    let region = q.get("gebiet").cloned().unwrap_or_default();
                    let rows: String = answer_rows(version.load(Ordering::SeqCst), &region)
                        .iter()
                        .map(|(id, name)| format!("<li><b>{id}</b> <i>{name}</i></li>"))
                        .collect();
                    let body = format!("<html><body><ul>{rows}</ul></body></html>");
                    let etag = format!("\"{:x}\"", body.len() * 7919 + rows.matches("<li>").count());
                    if headers
                        .get(header::IF_NONE_MATCH)
                        .is_some_and(|v| v.as_bytes() == etag.as_bytes())
                    {
                        return (StatusCode::NOT_MODIFIED, [(header::ETAG, etag)], String::new())
                            .into_response();
                    }
                    ([(header::ETAG, etag)], axum::response::Html(body)).into_response()
                },
            ),
        )
        .with_state(Arc::clone(&version));
    let addr = crate::support::serve(router).await;
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("s.yaml");
    std::fs::write(
        &spec,
        format!(
            "url: http://{addr}/\nquery_element: gebiet\nnavigation: no\nresults:\n\
             \x20 - attribute: id\n    rule: html->ul[0].li[*].b.txt\n\
             \x20 - attribute: name\n    rule: html->ul[0].li[*].i.txt\n"
        ),
    )
    .unwrap();
    let db = dir.path().join("g.sqlite");
    let (spec, db) = (spec.to_str().unwrap(), db.to_str().unwrap());
    let names = || -> BTreeSet<String> {
        records(&run(&["export", "--db", db, "--records"]))
            .into_values()
            .map(|r| {
                let r: serde_json::Value = serde_json::from_str(&r).unwrap();
                r["fields"]["name"].as_str().unwrap().to_string()
            })
            .collect()
    };
    let refresh = || -> serde_json::Value {
        let out = run(&["refresh", "--db", db, "--spec", spec, "--json"]);
        serde_json::from_str::<serde_json::Value>(&out).unwrap()["sources"][0]["refresh"].clone()
    };
    tokio::task::block_in_place(|| {
        run(&["--spec", spec, "--db", db, "--quiet"]);
        assert_eq!(names(), ["Arkona", "Düne", "Kap"].map(String::from).into());

        // nord drops Kap; sued, unchanged, answers 304 and still shows it.
        version.store(2, Ordering::SeqCst);
        let report = refresh();
        assert_eq!(report["answers_not_modified"], 1, "{report}");
        assert_eq!(
            (&report["new"], &report["changed"], &report["gone"]),
            (&0.into(), &0.into(), &0.into()),
            "{report}"
        );
        assert_eq!(names(), ["Arkona", "Düne", "Kap"].map(String::from).into());

        // sued drops it too: gone.
        version.store(3, Ordering::SeqCst);
        let report = refresh();
        assert_eq!(report["gone"], 1, "{report}");
        assert_eq!(names(), ["Arkona", "Düne"].map(String::from).into());
    });
}

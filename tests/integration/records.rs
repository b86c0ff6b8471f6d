//! Records: the values of one result row kept together, gathered from the
//! demo site and compared with the provider's own database, stored once per
//! source, exported as JSON Lines and CSV, and written while gathering.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::gathering;
use crate::support::{self, page_record, query_outcome};

use gather::demo::{DemoSite, Variant};
use gather::gatherer::{self, Progress, ProgressListener, Start};
use gather::record::{Field, Fields, Record};
use gather::store::{QueryState, SourceInfo, SourceKind, Store};

/// A hotel as the provider's database has it: id, name, town, price.
type Hotel = (String, String, String, String);

async fn site() -> DemoSite {
    crate::support::demo_site(300).await
}

/// Every hotel of the provider's database.
fn provider_hotels(site: &DemoSite) -> BTreeSet<Hotel> {
    let conn = rusqlite::Connection::open(site.database_path()).unwrap();
    let mut stmt = conn
        .prepare("SELECT id, name, ort, preis FROM hotel")
        .unwrap();
    let rows = stmt
        .query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?.to_string(),
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, i64>(3)?.to_string(),
            ))
        })
        .unwrap();
    rows.map(Result::unwrap).collect()
}

/// The condition that picks the hotel rows of the result table.
const HOTEL_ROW: &str = "td[0].small.input.getAttr(name) = 'hotel_id'";

/// A spec for a form of the demo site whose result rules are `results`
/// (YAML list items, relative to the result table).
fn write_spec(dir: &Path, url: &url::Url, elements: &str, results: &str) -> PathBuf {
    let spec = format!(
        "url: {url}\nquery_elements: [{elements}]\nresults:\n  - prefix: html.body->table[1].\n{results}"
    );
    let path = dir.join("spec.yaml");
    std::fs::write(&path, spec).unwrap();
    path
}

/// Rules that give a record per hotel row: four rules, variables named
/// differently, one condition; and the town rows, another condition, which
/// head the hotel rows below them.
fn hotel_rules() -> String {
    format!(
        "  - attribute: id\n    rule: tr[i:*].td[0].small.input.getAttr(value) where tr[i].{HOTEL_ROW}\n\
         \x20 - attribute: name\n    rule: tr[k:*].td[1].b.txt where tr[k].{HOTEL_ROW}\n\
         \x20 - attribute: ort\n    rule: |\n      tr[k:*].td[1].pcdata[0].txt, match/, [0-9]{{5}} (.+), Tel\\./\n        where tr[k].{HOTEL_ROW}\n\
         \x20 - attribute: preis\n    rule: tr[j:*].td[2].txt, match/[0-9]+/ where tr[j].{HOTEL_ROW}\n\
         \x20 - attribute: town\n    rule: tr[j:*].td[1].txt where tr[j].td[1].font.getAttr(color) = '#FF8000'\n"
    )
}

fn text(field: Option<&serde_json::Value>) -> String {
    field
        .and_then(|v| v.as_str())
        .unwrap_or_else(|| panic!("a field with one value: {field:?}"))
        .to_string()
}

/// The records of a JSON Lines text, as hotels (fields named `id`, `name`,
/// `ort`, `preis`, or the fork's `prefix.0` … ).
fn hotels_of(lines: &str, names: [&str; 4]) -> Vec<Hotel> {
    lines
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("a JSON object per line");
            let f = &v["fields"];
            (
                text(f.get(names[0])),
                text(f.get(names[1])),
                text(f.get(names[2])),
                text(f.get(names[3])),
            )
        })
        .collect()
}

fn run_gather(args: Vec<String>) -> std::process::Output {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    support::gather(&args)
}

async fn run_gather_async(args: Vec<String>) -> std::process::Output {
    tokio::task::spawn_blocking(move || run_gather(args))
        .await
        .unwrap()
}

fn path_arg(p: &Path) -> String {
    p.display().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hotel_records_are_the_providers_rows() {
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let spec = write_spec(
        dir.path(),
        &site.url(Variant::Listed),
        "region",
        &hotel_rules(),
    );
    let plan = run_gather_async(vec!["plan".into(), "--spec".into(), path_arg(&spec)]).await;
    assert!(
        support::stdout(&plan)
            .contains(
                "records (one per result row, from the rules that read rows):\n  id, name, ort, preis, town\n"
            ),
        "{}",
        support::stdout(&plan)
    );
    let db = dir.path().join("g.sqlite");
    let report = gatherer::gather(&[Start::spec(&spec).unwrap()], &gathering::options(&db))
        .await
        .unwrap();
    assert!(!report.failed(), "report:\n{report}");
    let expected = provider_hotels(&site);
    assert_eq!(
        report.sources[0].stats.as_ref().unwrap().records,
        expected.len() as u64
    );
    assert!(
        report
            .to_string()
            .contains(&format!("records: {}", expected.len())),
        "report:\n{report}"
    );

    let out = run_gather_async(vec![
        "export".into(),
        "--db".into(),
        path_arg(&db),
        "--format".into(),
        "jsonl".into(),
        "--records".into(),
    ])
    .await;
    assert!(out.status.success(), "{}", support::stderr(&out));
    let lines = support::stdout(&out);
    let hotels = hotels_of(&lines, ["id", "name", "ort", "preis"]);
    assert_eq!(hotels.len(), expected.len(), "each hotel once");
    assert_eq!(hotels.into_iter().collect::<BTreeSet<_>>(), expected);

    // Every record names its source, query and page; the town rows head
    // the hotel rows below them, so each record has its town from there
    // (the same as in its address), and the fields keep the order of the
    // rules.
    let first: serde_json::Value = serde_json::from_str(lines.lines().next().unwrap()).unwrap();
    assert_eq!(first["source"], site.url(Variant::Listed).as_str());
    assert!(first["query"].as_str().unwrap().starts_with("region="));
    assert!(first["page"].as_str().unwrap().contains("auswahl.pl"));
    assert!(first["ordinal"].as_u64().is_some());
    let names: Vec<&String> = first["fields"].as_object().unwrap().keys().collect();
    assert_eq!(names.len(), 5, "{first}");
    let line = lines.lines().next().unwrap();
    let at = |name: &str| line.find(&format!("\"{name}\":")).unwrap();
    assert!(
        at("id") < at("name") && at("name") < at("ort") && at("preis") < at("town"),
        "{line}"
    );
    for line in lines.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["fields"]["town"], v["fields"]["ort"], "{line}");
    }

    // The attribute sets are still there, each attribute on its own.
    let values = gathering::stored_values(&db, site.url(Variant::Listed).as_str());
    let names: BTreeSet<String> = expected.iter().map(|h| h.1.clone()).collect();
    assert_eq!(values["name"], names);
    assert!(values.contains_key("town"));
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_gives_a_record_per_row_over_paged_results() {
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let rules = format!(
        "  - attribute: hotel\n    rule: |\n      tr[k:*](.td[0].small.input.getAttr(value) # .td[1].b.txt\n        # .td[2].txt, match/[0-9]+/)\n        where tr[k].{HOTEL_ROW}\n"
    );
    let spec = write_spec(dir.path(), &site.url(Variant::Paged), "region", &rules);
    let db = dir.path().join("g.sqlite");
    let report = gatherer::gather(&[Start::spec(&spec).unwrap()], &gathering::options(&db))
        .await
        .unwrap();
    assert!(!report.failed(), "report:\n{report}");
    assert!(report.sources[0].pages > report.sources[0].queries_sent);

    let out = run_gather_async(vec![
        "export".into(),
        "--db".into(),
        path_arg(&db),
        "--format".into(),
        "csv".into(),
        "--records".into(),
    ])
    .await;
    assert!(out.status.success(), "{}", support::stderr(&out));
    let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_string)
        .collect();
    assert_eq!(
        header,
        ["source", "query", "page", "ordinal", "hotel.0", "hotel.1", "hotel.2"]
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let got: BTreeSet<(String, String, String)> = rows
        .iter()
        .map(|r| (r[4].to_string(), r[5].to_string(), r[6].to_string()))
        .collect();
    let expected: BTreeSet<(String, String, String)> = provider_hotels(&site)
        .into_iter()
        .map(|(id, name, _, preis)| (id, name, preis))
        .collect();
    assert_eq!(rows.len(), expected.len());
    assert_eq!(got, expected);
    assert!(
        rows.iter().any(|r| r[2].contains("seite=")),
        "records come from the later result pages too"
    );
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_records_file_grows_query_by_query() {
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let spec = write_spec(
        dir.path(),
        &site.url(Variant::Listed),
        "region",
        &hotel_rules(),
    );
    let db = dir.path().join("g.sqlite");
    let items = dir.path().join("items.jsonl");
    let seen: Arc<Mutex<Vec<usize>>> = Arc::default();
    let mut options = gathering::options(&db);
    options.records_out = Some(items.clone());
    let (file, log) = (items.clone(), Arc::clone(&seen));
    options.progress = Some(ProgressListener(Arc::new(move |event| {
        if let Progress::Query { .. } = event {
            let lines = std::fs::read_to_string(&file).map_or(0, |t| t.lines().count());
            log.lock().unwrap().push(lines);
        }
    })));
    let report = gatherer::gather(&[Start::spec(&spec).unwrap()], &options)
        .await
        .unwrap();
    assert!(!report.failed(), "report:\n{report}");
    let seen = seen.lock().unwrap().clone();
    let expected = provider_hotels(&site);
    assert_eq!(seen.len() as u64, report.sources[0].queries_sent);
    assert!(
        seen[0] > 0,
        "the first query's records are in the file when it ends"
    );
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
    assert_eq!(seen.last().copied(), Some(expected.len()));
    let written = std::fs::read_to_string(&items).unwrap();
    let hotels = hotels_of(&written, ["id", "name", "ort", "preis"]);
    assert_eq!(hotels.into_iter().collect::<BTreeSet<_>>(), expected);
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_run_adds_no_duplicate_records() {
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    // Region × price: every hotel is on the page of "alle Preise" and on
    // the page of its price class, so every record is found twice.
    let spec = write_spec(
        dir.path(),
        &site.url(Variant::Listed),
        "region, preis",
        &hotel_rules(),
    );
    let db = dir.path().join("g.sqlite");
    let items = dir.path().join("items.jsonl");
    let args = |more: &[&str]| -> Vec<String> {
        let mut args: Vec<String> = vec![
            "--spec".into(),
            path_arg(&spec),
            "--db".into(),
            path_arg(&db),
            "-o".into(),
            path_arg(&items),
        ];
        args.extend(more.iter().map(|s| s.to_string()));
        args
    };
    let first = run_gather_async(args(&["--max-queries", "7", "--json"])).await;
    assert!(first.status.success(), "{}", support::stderr(&first));
    let partial = std::fs::read_to_string(&items).unwrap().lines().count();
    assert!(partial > 0);
    let second = run_gather_async(args(&["--json"])).await;
    assert!(second.status.success(), "{}", support::stderr(&second));
    let summary: serde_json::Value = serde_json::from_slice(&second.stdout).unwrap();
    assert_eq!(summary["sources"][0]["queries_skipped"], 7);
    let third = run_gather_async(args(&["--json"])).await;
    assert!(third.status.success(), "{}", support::stderr(&third));

    let expected = provider_hotels(&site);
    let written = std::fs::read_to_string(&items).unwrap();
    let in_file = hotels_of(&written, ["id", "name", "ort", "preis"]);
    assert_eq!(
        in_file.len(),
        expected.len(),
        "each record once in the file"
    );
    assert_eq!(in_file.into_iter().collect::<BTreeSet<_>>(), expected);

    let store = Store::open_existing(&db).unwrap();
    let mut out = Vec::new();
    gather::output::export_records_jsonl(&store, &mut out, None).unwrap();
    let stored = hotels_of(
        &String::from_utf8(out).unwrap(),
        ["id", "name", "ort", "preis"],
    );
    assert_eq!(
        stored.len(),
        expected.len(),
        "each record once in the database"
    );
    assert_eq!(stored.into_iter().collect::<BTreeSet<_>>(), expected);
    site.shutdown().await;
}

fn record(page: &str, ordinal: u64, fields: &[(&str, Field)]) -> Record {
    Record {
        page: page.into(),
        ordinal,
        fields: Fields(
            fields
                .iter()
                .map(|(n, f)| (n.to_string(), f.clone()))
                .collect(),
        ),
    }
}

fn one(s: &str) -> Field {
    Field::One(s.into())
}

/// A database with two queries whose records overlap.
fn store_with_records(path: &Path) {
    let mut store = Store::open(path).unwrap();
    let id = store
        .upsert_source(&SourceInfo {
            url: "http://h.test/form".into(),
            kind: SourceKind::Database,
            title: None,
            description: None,
            keywords: None,
            text: None,
        })
        .unwrap();
    let mut q1 = query_outcome(
        "region=A",
        "region=A",
        QueryState::Done,
        vec![page_record("http://h.test/r?region=A", 10)],
        &[],
    );
    q1.records = vec![
        record(
            "http://h.test/r?region=A",
            0,
            &[
                ("name", one("Haus \"Meer\", Binz")),
                (
                    "tags",
                    Field::Many(vec!["Sauna".into(), "Hund, Katze".into()]),
                ),
            ],
        ),
        record("http://h.test/r?region=A", 1, &[("name", one("Möwe"))]),
    ];
    let recorded = store.record_query_new(id, &q1).unwrap();
    assert_eq!(recorded.new_records.len(), 2);
    let mut q2 = query_outcome(
        "region=B",
        "region=B",
        QueryState::Done,
        vec![page_record("http://h.test/r?region=B", 10)],
        &[],
    );
    q2.records = vec![
        record("http://h.test/r?region=B", 0, &[("name", one("Möwe"))]),
        record(
            "http://h.test/r?region=B",
            3,
            &[("name", one("Eck")), ("note", one("x"))],
        ),
    ];
    let recorded = store.record_query_new(id, &q2).unwrap();
    assert_eq!(
        recorded.new_records_of(&q2).collect::<Vec<_>>(),
        vec![&q2.records[1]],
        "a record the source holds is not new"
    );
}

#[test]
fn csv_quotes_commas_quotes_and_line_breaks() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    store_with_records(&db);
    let db = path_arg(&db);
    let out = support::gather(&["export", "--db", &db, "--format", "csv", "--records"]);
    assert!(out.status.success(), "{}", support::stderr(&out));
    assert_eq!(
        support::stdout(&out),
        "source,query,page,ordinal,name,tags,note\r\n\
         http://h.test/form,region=A,http://h.test/r?region=A,0,\"Haus \"\"Meer\"\", Binz\",\"Sauna\nHund, Katze\",\r\n\
         http://h.test/form,region=A,http://h.test/r?region=A,1,Möwe,,\r\n\
         http://h.test/form,region=B,http://h.test/r?region=B,3,Eck,,x\r\n"
    );

    let out = support::gather(&["export", "--db", &db, "--format", "jsonl", "--records"]);
    assert!(out.status.success(), "{}", support::stderr(&out));
    let lines: Vec<serde_json::Value> = support::stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(
        lines[0],
        serde_json::json!({
            "source": "http://h.test/form",
            "query": "region=A",
            "query_key": "region=A",
            "page": "http://h.test/r?region=A",
            "ordinal": 0,
            "fields": {"name": "Haus \"Meer\", Binz", "tags": ["Sauna", "Hund, Katze"]},
        })
    );
    // The record both queries gave keeps the first one.
    assert_eq!(lines[1]["query"], "region=A");

    for bad in [
        &["export", "--db", &db, "--format", "soif", "--records"][..],
        &["export", "--db", &db, "--format", "csv"][..],
    ] {
        let out = support::gather(bad);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
    }
}

#[test]
fn a_database_from_before_records_gets_the_records_table() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    store_with_records(&db);
    // As a gather before records left it: no records table, no answers
    // kept with the queries, version 4.
    let raw = rusqlite::Connection::open(&db).unwrap();
    raw.execute_batch(
        "DROP TABLE records;
         DROP TABLE walk_links;
         ALTER TABLE queries DROP COLUMN answer;
         ALTER TABLE queries DROP COLUMN query_values;
         ALTER TABLE queries DROP COLUMN parent;
         ALTER TABLE queries DROP COLUMN learned;
         ALTER TABLE sources DROP COLUMN surfaced_spec;
         ALTER TABLE queries DROP COLUMN etag;
         ALTER TABLE queries DROP COLUMN last_modified;
         ALTER TABLE queries DROP COLUMN digest;
         ALTER TABLE queries DROP COLUMN refresh_interval;
         ALTER TABLE sources DROP COLUMN refresh_since;
         ALTER TABLE queries DROP COLUMN due_at;
         ALTER TABLE attribute_values DROP COLUMN first_seen;
         ALTER TABLE attribute_values DROP COLUMN last_seen;
         ALTER TABLE attribute_values DROP COLUMN gone_at;
         PRAGMA user_version = 4;",
    )
    .unwrap();
    drop(raw);
    store_with_records(&db);
    let raw = rusqlite::Connection::open(&db).unwrap();
    let version: i64 = raw
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    let records: i64 = raw
        .query_row("SELECT count(*) FROM records", [], |r| r.get(0))
        .unwrap();
    assert_eq!((version, records), (10, 3));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changed_rules_rebuild_the_records_from_the_kept_pages() {
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let url = site.url(Variant::Listed);
    // A condition no row meets: no records.
    let wrong = hotel_rules().replace("'hotel_id'", "'hotel_nr'");
    let spec = write_spec(dir.path(), &url, "region", &wrong);
    let db = dir.path().join("g.sqlite");
    let gather_spec = || async {
        gatherer::gather(&[Start::spec(&spec).unwrap()], &gathering::options(&db))
            .await
            .unwrap()
    };
    let report = gather_spec().await;
    assert_eq!(report.sources[0].stats.as_ref().unwrap().records, 0);
    let queries_sent = || {
        site.requests()
            .iter()
            .filter(|r| r.target.contains("auswahl.pl"))
            .count()
    };
    let sent = queries_sent();

    // The condition fixed: the kept pages give every hotel's record, and no
    // request is sent.
    write_spec(dir.path(), &url, "region", &hotel_rules());
    let report = gather_spec().await;
    assert_eq!(queries_sent(), sent, "a query was sent again");
    let expected = provider_hotels(&site);
    assert_eq!(
        report.sources[0].stats.as_ref().unwrap().records,
        expected.len() as u64
    );
    let export = || {
        vec![
            "export".into(),
            "--db".into(),
            path_arg(&db),
            "--format".into(),
            "jsonl".into(),
            "--records".into(),
        ]
    };
    let out = run_gather_async(export()).await;
    let hotels = hotels_of(&support::stdout(&out), ["id", "name", "ort", "preis"]);
    assert_eq!(hotels.into_iter().collect::<BTreeSet<_>>(), expected);

    // `gather reextract` with the wrong condition again: the records go.
    site.shutdown().await;
    write_spec(dir.path(), &url, "region", &wrong);
    reextract(&db, &spec).await;
    let out = run_gather_async(export()).await;
    assert_eq!(
        support::stdout(&out),
        "",
        "records of the old rules are gone"
    );
}

/// `gather reextract --db DB --spec SPEC`, which must succeed.
async fn reextract(db: &Path, spec: &Path) {
    let out = run_gather_async(vec![
        "reextract".into(),
        "--db".into(),
        path_arg(db),
        "--spec".into(),
        path_arg(spec),
    ])
    .await;
    assert!(out.status.success(), "{}", support::stderr(&out));
}

/// The records of a database, exported as JSON Lines by `gather export`.
async fn exported_records(db: &str) -> Vec<serde_json::Value> {
    let out = run_gather_async(vec![
        "export".into(),
        "--db".into(),
        db.into(),
        "--records".into(),
        "--format".into(),
        "jsonl".into(),
    ])
    .await;
    assert!(out.status.success(), "{}", support::stderr(&out));
    support::stdout(&out)
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON object per line"))
        .collect()
}

/// A field of one value, or `None`.
fn field(record: &serde_json::Value, name: &str) -> Option<String> {
    record["fields"].get(name).map(|v| {
        v.as_str()
            .unwrap_or_else(|| panic!("{name}: {v}"))
            .to_string()
    })
}

/// A job board record as a job: district, trade, title, company, place.
fn as_job(record: &serde_json::Value) -> gather::demo::jobs::Job {
    gather::demo::jobs::Job {
        district: field(record, "bezirk").expect("the district of the page"),
        trade: field(record, "sparte").expect("the trade of the header row"),
        title: field(record, "titel").expect("a title"),
        company: field(record, "firma"),
        place: field(record, "ort"),
    }
}

/// Gathers the job board into `db` (a SQLite file or a PostgreSQL URL)
/// and checks its records: one per offer shown, each with the title,
/// company and place of its own row, the trade of the header row above it
/// and the district of its page — none pairing cells of different rows.
/// The records written while gathering (`-o`) are the same; the CSV has a
/// column per attribute.
async fn job_board_records_into(site: &DemoSite, db: &str) {
    let url = site.base_url().join("/stellenmarkt/").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("records.jsonl");
    let out = run_gather_async(vec![
        "--db".into(),
        db.into(),
        "-o".into(),
        path_arg(&file),
        url.to_string(),
    ])
    .await;
    assert!(out.status.success(), "{}", support::stderr(&out));
    let jobs = gather::demo::jobs::jobs();
    let summary = format!("{}{}", support::stdout(&out), support::stderr(&out));
    assert!(
        summary.contains(&format!("records: {}\n", jobs.len())),
        "{summary}"
    );
    let records = exported_records(db).await;
    let mut got: Vec<_> = records.iter().map(as_job).collect();
    got.sort();
    let mut expected = jobs.to_vec();
    expected.sort();
    let mixed = got.iter().filter(|j| !expected.contains(j)).count();
    assert_eq!(mixed, 0, "records pairing cells of different rows");
    assert_eq!(got, expected, "one record per offer shown");
    let streamed: Vec<serde_json::Value> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut streamed: Vec<_> = streamed.iter().map(as_job).collect();
    streamed.sort();
    assert_eq!(streamed, expected, "the records file");
    let csv = run_gather_async(vec![
        "export".into(),
        "--db".into(),
        db.into(),
        "--records".into(),
        "--format".into(),
        "csv".into(),
    ])
    .await;
    let csv = support::stdout(&csv);
    assert!(
        csv.starts_with("source,query,page,ordinal,bezirk,sparte,titel,firma,ort\r\n"),
        "{csv}"
    );
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    assert_eq!(reader.records().count(), jobs.len());
    // The board's quirks are there: offers without a company, without a
    // place, so that the columns differ in length.
    assert!(jobs.iter().any(|j| j.company.is_none()));
    assert!(jobs.iter().any(|j| j.place.is_none()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_board_read_column_by_column_gives_a_record_per_row() {
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("jobs.sqlite");
    job_board_records_into(&site, db.to_str().unwrap()).await;

    // The attribute sets are what they were: each column's values alone.
    let url = site.base_url().join("/stellenmarkt/").unwrap();
    let values = gathering::stored_values(&db, url.as_str());
    let jobs = gather::demo::jobs::jobs();
    let titles: BTreeSet<String> = jobs.iter().map(|j| j.title.clone()).collect();
    let companies: BTreeSet<String> = jobs.iter().filter_map(|j| j.company.clone()).collect();
    assert_eq!(values["titel"], titles);
    assert_eq!(values["firma"], companies);
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn job_board_records_on_postgresql() {
    let pg = gather::demo::postgres::LocalPostgres::start()
        .unwrap_or_else(|e| panic!("PostgreSQL for the tests: {e}"));
    let db = pg.database("jobs").unwrap();
    let site = site().await;
    job_board_records_into(&site, &db).await;
    site.shutdown().await;
}

/// (name, town, region) of every hotel of the provider's database.
fn hotels_with_region(site: &DemoSite) -> BTreeSet<(String, String, String)> {
    let conn = rusqlite::Connection::open(site.database_path()).unwrap();
    let mut stmt = conn
        .prepare("SELECT h.name, h.ort, r.region FROM hotel h JOIN region r ON r.id = h.region_id")
        .unwrap();
    let rows = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap();
    rows.map(Result::unwrap).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hotel_guide_gives_each_hotel_with_its_town_and_region() {
    // The guide with the seed's own meta tags (§4.4): the town rule and the
    // hotel rule have different conditions, the region is one per page.
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let url = site.url(Variant::Extracted);
    let out = run_gather_async(vec!["--db".into(), path_arg(&db), url.to_string()]).await;
    assert!(out.status.success(), "{}", support::stderr(&out));
    let records = exported_records(db.to_str().unwrap()).await;
    let expected = hotels_with_region(&site);
    assert!(expected.len() > 100);
    let got: Vec<(String, String, String)> = records
        .iter()
        .map(|r| {
            assert_eq!(r["fields"].as_object().unwrap().len(), 3, "{r}");
            (
                field(r, "name").unwrap(),
                field(r, "ort").unwrap(),
                field(r, "region").unwrap(),
            )
        })
        .collect();
    assert_eq!(got.len(), expected.len(), "one record per hotel");
    assert_eq!(got.into_iter().collect::<BTreeSet<_>>(), expected);
    site.shutdown().await;
}

/// A spec of the job board with its own metadata, and `extra` lines.
fn job_board_spec(dir: &Path, url: &url::Url, extra: &str) -> PathBuf {
    let mut spec = format!("url: {url}\n{extra}results:\n");
    let mut element = String::new();
    for (name, content) in gather::demo::jobs::meta_tags() {
        match name.strip_prefix("DB.Result") {
            Some("") => spec.push_str(&format!("  - prefix: \"{content}\"\n")),
            Some(attribute) => spec.push_str(&format!(
                "  - attribute: {}\n    rule: \"{content}\"\n",
                &attribute[1..]
            )),
            None => element = format!("query_element: {content}\n"),
        }
    }
    spec.push_str(&element);
    let path = dir.join("jobs.yaml");
    std::fs::write(&path, spec).unwrap();
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn header_rows_switched_off_and_on_again_by_reextract() {
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let url = site.base_url().join("/stellenmarkt/").unwrap();
    let spec = job_board_spec(dir.path(), &url, "header_rows: no\n");
    let plan = run_gather_async(vec!["plan".into(), "--spec".into(), path_arg(&spec)]).await;
    assert!(
        support::stdout(&plan).contains("header rows: off (DB.HeaderRows NO)"),
        "{}",
        support::stdout(&plan)
    );
    let db = dir.path().join("jobs.sqlite");
    let out = run_gather_async(vec![
        "--db".into(),
        path_arg(&db),
        "--spec".into(),
        path_arg(&spec),
    ])
    .await;
    assert!(out.status.success(), "{}", support::stderr(&out));
    let jobs = gather::demo::jobs::jobs();
    let records = exported_records(db.to_str().unwrap()).await;
    assert_eq!(records.len(), jobs.len());
    assert!(
        records.iter().all(|r| r["fields"].get("sparte").is_none()),
        "no trade without header rows"
    );
    let sent = site.requests().len();

    // Header rows on again: the kept pages give every offer its trade.
    let spec = job_board_spec(dir.path(), &url, "");
    reextract(&db, &spec).await;
    assert_eq!(site.requests().len(), sent, "reextract sent a request");
    let mut got: Vec<_> = exported_records(db.to_str().unwrap())
        .await
        .iter()
        .map(as_job)
        .collect();
    got.sort();
    let mut expected = jobs.to_vec();
    expected.sort();
    assert_eq!(got, expected);
    site.shutdown().await;
}

/// The product listings of `gather bench hel` (made for measuring HEL, with
/// unclosed cells and `<font>` around rows): the name rule, the price rule
/// with a condition of its own (in stock) and the fork per product give one
/// record per product row, checked against the row's own markup.
#[test]
fn product_listings_give_a_record_per_product_row() {
    use gather::demo::listing;
    use gather::hel::Rule;
    use gather::page::Page;
    use gather::record::RecordRules;

    let rules: Vec<(String, Rule)> = listing::RULES
        .iter()
        .enumerate()
        .map(|(i, r)| (format!("r{i}"), Rule::parse(r).unwrap()))
        .collect();
    let record_rules = RecordRules::new(&rules);
    let row = regex::Regex::new(
        r#"(?s)id="p(\d+)" data-sku.*?title="([^"]*)".*?EUR ([0-9.]+),(\d\d)</b>.*?<td class=stock><span class=(\w+)>"#,
    )
    .unwrap();
    for seed in 0..8 {
        let html = listing::generate_page(seed, 40_000);
        let truth: Vec<_> = row.captures_iter(&html).collect();
        assert!(truth.len() > 10);
        let records = record_rules.page_records(&rules, &Page::parse(&html), "http://shop/");
        let products: Vec<_> = records
            .iter()
            .filter(|r| r.fields.get("r0").is_some())
            .collect();
        assert_eq!(products.len(), truth.len(), "page {seed}");
        for (record, t) in products.iter().zip(&truth) {
            let f = |name: &str| record.fields.get(name).map(|v| v.values().to_vec());
            assert_eq!(f("r0"), Some(vec![t[2].to_string()]), "{record:?}");
            assert_eq!(
                f("r4.0"),
                Some(vec![format!("/artikel/{}.html", &t[1])]),
                "{record:?}"
            );
            let in_stock = &t[5] != "no";
            let price = in_stock.then(|| vec![t[3].to_string(), t[4].to_string()]);
            assert_eq!(f("r1"), price, "{record:?}");
        }
    }
}

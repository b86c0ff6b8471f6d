//! Gathering with many workers on a PostgreSQL gatherer database: a real
//! server started by the tests (`initdb` into a temporary directory), a
//! slow provider on 127.0.0.1, and `gather` processes as a user runs them
//! (planner, workers, status, export, search). A missing PostgreSQL is a
//! failure with a message, never a skipped test.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use gather::demo::postgres::LocalPostgres;
use gather::demo::slow::{SlowConfig, SlowSite};
use gather::demo::{DemoConfig, DemoSite, Variant};
use tokio::process::{Child, Command};

fn postgres() -> LocalPostgres {
    LocalPostgres::start().unwrap_or_else(|e| panic!("PostgreSQL for the tests: {e}"))
}

fn command(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gather"));
    cmd.args(args)
        .env_remove("GATHER_DB")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    cmd
}

/// Fast failures and short leases, so that a dead worker's queries are
/// taken over within seconds.
const QUICK: [&str; 6] = ["--timeout", "3", "--retries", "1", "--lease-seconds", "2"];

fn planner(url: &url::Url, db: &str, extra: &[&str]) -> Child {
    let mut args = vec![url.as_str(), "--db", db, "--json"];
    args.extend(QUICK);
    args.extend(extra);
    command(&args).spawn().expect("start gather")
}

fn worker(db: &str, extra: &[&str]) -> Child {
    let mut args = vec!["worker", "--db", db, "--json"];
    args.extend(QUICK);
    args.extend(extra);
    command(&args).spawn().expect("start gather worker")
}

async fn finished(child: Child) -> Output {
    let out = tokio::time::timeout(Duration::from_secs(120), child.wait_with_output())
        .await
        .expect("gather ends within two minutes")
        .expect("gather runs");
    assert!(
        out.status.success(),
        "gather failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

async fn run(args: &[&str]) -> Output {
    finished(command(args).spawn().expect("start gather")).await
}

/// The queries a gathering's JSON summary says this process sent.
fn queries_sent(out: &Output) -> u64 {
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("the summary is JSON");
    report["sources"]
        .as_array()
        .expect("sources")
        .iter()
        .map(|s| s["queries_sent"].as_u64().unwrap_or(0))
        .sum()
}

async fn status(db: &str) -> serde_json::Value {
    let out = run(&["status", "--db", db, "--json"]).await;
    serde_json::from_slice(&out.stdout).expect("the status is JSON")
}

/// Waits until the planner has put its plan into the database.
async fn plan_ready(db: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        // Until the planner made the schema, there is no status to read.
        let out = command(&["status", "--db", db, "--json"])
            .output()
            .await
            .expect("run gather status");
        let status: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
        let planned = status["sources"].as_array().is_some_and(|sources| {
            sources.iter().any(|s| {
                ["pending", "leased", "done"]
                    .iter()
                    .any(|k| s[*k].as_u64().unwrap_or(0) > 0)
            })
        });
        if planned {
            return;
        }
        assert!(Instant::now() < deadline, "no plan in the database");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Attribute → values of every source in the JSON export, without the
/// source's URL (two sites with the same content give the same index).
async fn exported_values(db: &str) -> Vec<BTreeMap<String, BTreeSet<String>>> {
    let out = run(&["export", "--db", db, "--format", "json"]).await;
    String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("JSON lines");
            v["attributes"]
                .as_object()
                .expect("attributes")
                .iter()
                .map(|(name, values)| {
                    let values = values
                        .as_array()
                        .expect("values")
                        .iter()
                        .map(|v| v.as_str().expect("string").to_string())
                        .collect();
                    (name.clone(), values)
                })
                .collect()
        })
        .collect()
}

/// The records' fields, as a set.
async fn exported_records(db: &str) -> BTreeSet<String> {
    let out = run(&["export", "--db", db, "--records", "--format", "jsonl"]).await;
    String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("JSON lines");
            v["fields"].to_string()
        })
        .collect()
}

/// (attribute, value) of every search hit.
async fn searched(db: &str, term: &str) -> BTreeSet<(String, String)> {
    let out = run(&["search", "--db", db, "--json", term]).await;
    String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("JSON lines");
            (
                v["attribute"].as_str().unwrap_or("").to_string(),
                v["value"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// (query, page) pairs the site answered more than once.
fn sent_twice(site: &SlowSite) -> Vec<(String, u64)> {
    let mut seen: HashMap<(String, u64), usize> = HashMap::new();
    for r in site.requests() {
        *seen.entry((r.query, r.page)).or_default() += 1;
    }
    seen.into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(k, _)| k)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_workers_on_one_plan_give_the_single_process_index() {
    let config = SlowConfig {
        queries: 30,
        pages: 2,
        latency: Duration::from_millis(20),
    };
    let alone = SlowSite::start(config.clone()).await.unwrap();
    let shared = SlowSite::start(config).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("one.sqlite");
    let file = file.to_str().unwrap();
    finished(planner(alone.form_url(), file, &[])).await;

    let pg = postgres();
    let db = pg.database("three").unwrap();
    let first = planner(shared.form_url(), &db, &["--host-concurrency", "6"]);
    plan_ready(&db).await;
    let others = [
        worker(&db, &["--host-concurrency", "6"]),
        worker(&db, &["--host-concurrency", "6"]),
    ];
    let mut sent = vec![queries_sent(&finished(first).await)];
    for other in others {
        sent.push(queries_sent(&finished(other).await));
    }
    assert_eq!(
        sent.iter().sum::<u64>(),
        30,
        "queries per process: {sent:?}"
    );

    // The same index, the same records, the same search answers.
    assert_eq!(exported_values(&db).await, exported_values(file).await);
    assert_eq!(
        exported_values(&db).await[0]["item"],
        shared.expected_items()
    );
    assert_eq!(exported_records(&db).await, exported_records(file).await);
    for term in ["q0007-2-b", "common*", "Q0012"] {
        let hits = searched(&db, term).await;
        assert!(!hits.is_empty(), "{term}");
        assert_eq!(hits, searched(file, term).await, "{term}");
    }
    // Every result page was asked for once.
    assert_eq!(shared.requests().len(), 60);
    assert!(sent_twice(&shared).is_empty(), "{:?}", sent_twice(&shared));

    let status = status(&db).await;
    let source = &status["sources"][0];
    assert_eq!(source["done"], 30, "{status}");
    assert_eq!(source["leased"], 0, "{status}");
    assert_eq!(source["failed"], 0, "{status}");
    assert_eq!(source["pages"], 61, "{status}"); // the form page too
    assert_eq!(
        status["workers_alive"].as_array().unwrap().len(),
        0,
        "{status}"
    );
    assert!(status["requests_per_second"].as_f64().unwrap() > 0.0);
}

/// The keys' descriptions (`q=q0003`) of the queries that are done.
async fn done_queries(db: &str) -> BTreeSet<String> {
    let (client, connection) = tokio_postgres::connect(db, tokio_postgres::NoTls)
        .await
        .expect("connect");
    tokio::spawn(connection);
    client
        .query("SELECT description FROM queries WHERE state = 'done'", &[])
        .await
        .expect("read the queries")
        .iter()
        .map(|r| r.get::<_, String>(0).trim_start_matches("q=").to_string())
        .collect()
}

/// Short timeouts, and leases as long as the default: a dead worker's
/// queries must be freed by its ended session, not by its lease running
/// out, and a lease must outlast an outage of the database.
const LONG_LEASE: [&str; 8] = [
    "--timeout",
    "3",
    "--retries",
    "1",
    "--lease-seconds",
    "30",
    "--host-concurrency",
    "8",
];

fn planner_with(url: &url::Url, db: &str, args: &[&str]) -> Child {
    let mut all = vec![url.as_str(), "--db", db, "--json"];
    all.extend(args);
    command(&all).spawn().expect("start gather")
}

fn worker_with(db: &str, args: &[&str]) -> Child {
    let mut all = vec!["worker", "--db", db, "--json"];
    all.extend(args);
    command(&all).spawn().expect("start gather worker")
}

/// Waits until some query is done and the worker `pid` holds the lease
/// of a query not done.
async fn victim_holds_a_query_after_one_is_done(db: &str, pid: u32) {
    let (client, connection) = tokio_postgres::connect(db, tokio_postgres::NoTls)
        .await
        .expect("connect");
    tokio::spawn(connection);
    let holder = format!("%:{pid}:%");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let row = client
            .query_one(
                "SELECT count(*) FILTER (WHERE state = 'done'), \
                        count(*) FILTER (WHERE state = 'pending' AND leased_by LIKE $1) \
                 FROM queries",
                &[&holder],
            )
            .await
            .expect("read the queries");
        let (done, held): (i64, i64) = (row.get(0), row.get(1));
        if done > 0 && held > 0 {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "no query done with the victim holding one ({done} done, {held} held)"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Waits until the site answered `n` result requests.
async fn requests_reach(site: &SlowSite, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while site.requests().len() < n {
        assert!(Instant::now() < deadline, "no progress");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// A planner and two workers on `site` into `db`; how long until all
/// three ended.
async fn gathered_by_three(site: &SlowSite, db: &str) -> Duration {
    let started = Instant::now();
    let first = planner_with(site.form_url(), db, &LONG_LEASE);
    plan_ready(db).await;
    let others = [worker_with(db, &LONG_LEASE), worker_with(db, &LONG_LEASE)];
    finished(first).await;
    for other in others {
        finished(other).await;
    }
    started.elapsed()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_worker_s_queries_are_free_at_once_and_status_shows_it_dead() {
    let config = SlowConfig {
        queries: 12,
        pages: 6,
        latency: Duration::from_millis(40),
    };
    let pg = postgres();
    // Undisturbed, for the time it takes.
    let calm = SlowSite::start(config.clone()).await.unwrap();
    let calm_db = pg.database("calm").unwrap();
    let undisturbed = gathered_by_three(&calm, &calm_db).await;

    let site = SlowSite::start(config).await.unwrap();
    let db = pg.database("killed").unwrap();
    let started = Instant::now();
    let first = planner_with(site.form_url(), &db, &LONG_LEASE);
    plan_ready(&db).await;
    let mut victim = worker_with(&db, &LONG_LEASE);
    let survivor = worker_with(&db, &LONG_LEASE);
    let victim_pid = victim.id().expect("the worker's pid");
    // Killed once some query is done and the victim holds some: a request
    // count alone does not show either (eight queries may be under way at
    // once, none finished).
    victim_holds_a_query_after_one_is_done(&db, victim_pid).await;
    victim.kill().await.expect("kill -9 the worker");
    let killed_at = Instant::now();
    let done_before = done_queries(&db).await;
    let log_before = site.requests().len();
    assert!(!done_before.is_empty(), "no query done before the kill");
    assert!(
        done_before.len() < 12,
        "every query was done before the kill"
    );

    // Right after the kill, gather status tells the worker is dead (its
    // session is gone), long before it would miss its heartbeats (30 s).
    let named = |list: &serde_json::Value| {
        list.as_array().expect("a list of workers").iter().any(|w| {
            w.as_str()
                .unwrap_or("")
                .contains(&format!(":{victim_pid}:"))
        })
    };
    let mut seen_dead = None;
    while seen_dead.is_none() && killed_at.elapsed() < Duration::from_secs(10) {
        let now = status(&db).await;
        if named(&now["workers_dead"]) {
            assert!(!named(&now["workers_alive"]), "{now}");
            seen_dead = Some(killed_at.elapsed());
        }
    }
    let seen_dead = seen_dead.expect("gather status shows the killed worker dead within 10 s");

    finished(first).await;
    finished(survivor).await;
    let disturbed = started.elapsed();
    eprintln!(
        "undisturbed {undisturbed:?}, with a worker killed {disturbed:?}, \
         status showed it dead {seen_dead:?} after the kill"
    );
    // The leases are 30 s: the run did not wait for the killed worker's.
    assert!(
        disturbed < undisturbed + Duration::from_secs(10),
        "undisturbed {undisturbed:?}, with a worker killed {disturbed:?}"
    );

    // Nothing lost.
    let values = exported_values(&db).await;
    assert_eq!(values[0]["item"], site.expected_items());
    let status = status(&db).await;
    assert_eq!(status["sources"][0]["done"], 12, "{status}");
    assert_eq!(status["sources"][0]["leased"], 0, "{status}");
    // No query done before the kill was sent again after it; the pages
    // sent twice are at most the killed worker's pages since its last
    // saves (8 and the page in flight per query it held: it held two).
    let after = &site.requests()[log_before..];
    for r in after {
        assert!(
            !done_before.contains(&r.query),
            "{} sent again after it was done",
            r.query
        );
    }
    let twice = sent_twice(&site);
    assert!(twice.len() <= 2 * 9, "sent twice: {twice:?}");
    assert_eq!(site.requests().len() - twice.len(), 72);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_process_rides_out_a_five_second_outage_of_the_database() {
    let config = SlowConfig {
        queries: 24,
        pages: 4,
        latency: Duration::from_millis(50),
    };
    // The index of an undisturbed gathering.
    let alone = SlowSite::start(config.clone()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("calm.sqlite");
    let file = file.to_str().unwrap();
    finished(planner(alone.form_url(), file, &[])).await;

    let site = SlowSite::start(config).await.unwrap();
    let mut pg = postgres();
    let db = pg.database("outage").unwrap();
    let mut processes = vec![planner_with(site.form_url(), &db, &LONG_LEASE)];
    plan_ready(&db).await;
    processes.push(worker_with(&db, &LONG_LEASE));
    processes.push(worker_with(&db, &LONG_LEASE));
    requests_reach(&site, 20).await;

    tokio::task::block_in_place(|| pg.stop()).expect("stop the server");
    let stopped = site.requests().len();
    tokio::time::sleep(Duration::from_secs(5)).await;
    for process in &mut processes {
        assert!(
            process.try_wait().expect("the process").is_none(),
            "a process ended while the database was away"
        );
    }
    let during = site.requests().len() - stopped;
    tokio::task::block_in_place(|| pg.restart()).expect("restart the server");
    assert!(stopped < 96, "the gathering was over before the outage");

    for process in processes {
        let out = finished(process).await;
        assert_eq!(summary(&out)["error"], serde_json::Value::Null);
    }
    let twice = sent_twice(&site);
    eprintln!(
        "requests before the outage {stopped}, during it {during}, in all {}; \
         result pages asked twice: {}",
        site.requests().len(),
        twice.len()
    );
    // The pages in hand were kept and written once the database was back:
    // at most the requests in flight (two queries in each process) were
    // sent again.
    assert!(twice.len() <= 6, "sent twice: {twice:?}");
    assert_eq!(site.requests().len() - twice.len(), 96);
    assert_eq!(exported_values(&db).await, exported_values(file).await);
    assert_eq!(exported_records(&db).await, exported_records(file).await);
    let status = status(&db).await;
    assert_eq!(status["sources"][0]["done"], 24, "{status}");
    assert_eq!(status["sources"][0]["failed"], 0, "{status}");
    assert_eq!(status["sources"][0]["leased"], 0, "{status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_that_stays_away_ends_the_process_saying_what_it_was_doing() {
    let site = SlowSite::start(SlowConfig {
        queries: 40,
        pages: 4,
        latency: Duration::from_millis(50),
    })
    .await
    .unwrap();
    let mut pg = postgres();
    let db = pg.database("gone").unwrap();
    let mut args = LONG_LEASE.to_vec();
    args.extend(["--reconnect-seconds", "3"]);
    let first = planner_with(site.form_url(), &db, &args);
    requests_reach(&site, 10).await;
    tokio::task::block_in_place(|| pg.stop()).expect("stop the server");
    let stopped = Instant::now();
    let out = tokio::time::timeout(Duration::from_secs(60), first.wait_with_output())
        .await
        .expect("gather gives up within a minute")
        .expect("gather runs");
    let waited = stopped.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(waited >= Duration::from_secs(2), "gave up after {waited:?}");
    // The message names the database and what the process was doing.
    assert!(stderr.contains(&db), "{stderr}");
    assert!(
        stderr.contains("went away while") && stderr.contains("was not back within"),
        "{stderr}"
    );
    // The summary is printed all the same, with the error.
    let report = summary(&out);
    let error = report["error"].as_str().expect("the error in the summary");
    assert!(error.contains("went away while"), "{report}");
    assert!(report["sources"].is_array(), "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_started_late_joins_the_gathering() {
    let site = SlowSite::start(SlowConfig {
        queries: 24,
        pages: 2,
        latency: Duration::from_millis(40),
    })
    .await
    .unwrap();
    let pg = postgres();
    let db = pg.database("late").unwrap();
    let wide = ["--host-concurrency", "8", "--concurrency", "1"];
    let first = planner(site.form_url(), &db, &wide);
    let deadline = Instant::now() + Duration::from_secs(60);
    while site.requests().len() < 8 {
        assert!(Instant::now() < deadline, "no progress");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let late = worker(&db, &wide);
    let late_sent = queries_sent(&finished(late).await);
    let first_sent = queries_sent(&finished(first).await);
    assert!(late_sent > 0, "the late worker sent no query");
    assert_eq!(late_sent + first_sent, 24);
    assert!(sent_twice(&site).is_empty());
    assert_eq!(exported_values(&db).await[0]["item"], site.expected_items());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_together_keep_the_per_host_limits() {
    let site = SlowSite::start(SlowConfig {
        queries: 24,
        pages: 2,
        // Long enough that the planner alone waits seconds for a slot
        // (its summary may be written before the others told their waits),
        // however the machine schedules the processes.
        latency: Duration::from_millis(100),
    })
    .await
    .unwrap();
    let pg = postgres();
    let db = pg.database("polite").unwrap();
    // Three workers wanting three requests each in flight; the host allows two.
    let limits = ["--concurrency", "3", "--host-concurrency", "2"];
    let first = planner(site.form_url(), &db, &limits);
    plan_ready(&db).await;
    let others = [worker(&db, &limits), worker(&db, &limits)];
    let report = summary(&finished(first).await);
    for other in others {
        finished(other).await;
    }
    assert_eq!(
        site.max_in_flight(),
        2,
        "more than two requests in flight at once"
    );

    // The workers waited on the host's limit, and are told so, with the
    // option that raises it: in the planner's summary and gather status.
    let origin = site.form_url().origin().ascii_serialization();
    let waits = report["host_waits"].as_array().expect("host waits");
    assert_eq!(waits.len(), 1, "{report}");
    assert_eq!(waits[0]["host"], origin.as_str(), "{report}");
    assert_eq!(waits[0]["limit"], 2, "{report}");
    assert!(
        waits[0]["waited_seconds"].as_f64().unwrap() >= 1.0,
        "{report}"
    );
    let status = status(&db).await;
    assert_eq!(status["host_waits"][0]["host"], origin.as_str(), "{status}");
    let out = run(&["status", "--db", &db]).await;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("host {origin}: ")) && text.contains("--host-concurrency"),
        "{text}"
    );
    // A host nobody waited on is not named.
    let roomy = SlowSite::start(SlowConfig {
        queries: 4,
        pages: 1,
        latency: Duration::from_millis(1),
    })
    .await
    .unwrap();
    let roomy_db = pg.database("roomy").unwrap();
    let out = finished(planner(roomy.form_url(), &roomy_db, &[])).await;
    assert_eq!(summary(&out)["host_waits"], serde_json::json!([]));

    // And the pause between two requests, across the workers.
    let site = SlowSite::start(SlowConfig {
        queries: 8,
        pages: 2,
        latency: Duration::from_millis(1),
    })
    .await
    .unwrap();
    let db = pg.database("paused").unwrap();
    let paced = ["--concurrency", "3", "--delay-ms", "60"];
    let first = planner(site.form_url(), &db, &paced);
    plan_ready(&db).await;
    let others = [worker(&db, &paced), worker(&db, &paced)];
    finished(first).await;
    for other in others {
        finished(other).await;
    }
    let mut starts: Vec<Duration> = site.requests().iter().map(|r| r.started).collect();
    starts.sort();
    assert_eq!(starts.len(), 16);
    // Paced 60 ms apart, the 16 requests span at least 15 pauses. (The
    // span, not the shortest gap: a busy machine may deliver one request
    // late and the next on time, which brings two arrivals closer than
    // they were sent, but never makes the whole run shorter.)
    let span = starts[15] - starts[0];
    assert!(
        span >= Duration::from_millis(15 * 55),
        "16 requests within {span:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_needs_a_shared_database_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("g.sqlite");
    let out = command(&["worker", "--db", file.to_str().unwrap()])
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("postgres://"), "{stderr}");
    // A server that is not there is bad input, with the URL in the message.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://gather@127.0.0.1:{port}/none");
    let out = command(&["worker", "--db", &url]).output().await.unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot be reached"), "{stderr}");
}

/// A database source `http://provider.test/form` in `store`.
fn provider_source(store: &mut gather::store::Store) -> gather::store::SourceId {
    provider_source_named(store, "http://provider.test/form")
}

fn provider_source_named(store: &mut gather::store::Store, url: &str) -> gather::store::SourceId {
    use gather::store::{SourceInfo, SourceKind};
    store
        .upsert_source(&SourceInfo {
            url: url.into(),
            kind: SourceKind::Database,
            title: None,
            description: None,
            keywords: None,
            text: None,
        })
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_query_is_written_only_by_the_worker_that_holds_its_lease() {
    use gather::store::{Location, PlannedQuery, QueryState, SharedPlan, Store};
    let pg = postgres();
    let db = pg.database("lease").unwrap();
    let mut planner = Store::open_at(&Location::Postgres(db.clone())).unwrap();
    let source = provider_source(&mut planner);
    let request =
        r#"{"method":"Get","url":"http://provider.test/r?q=a","body":null,"content_type":null}"#;
    let planned = planner
        .plan_queries(
            source,
            "{}",
            [PlannedQuery {
                key: "k1".into(),
                ordinal: 0,
                description: "q=a".into(),
                request: request.into(),
                values: None,
                parent: None,
                learned: false,
            }]
            .into_iter(),
        )
        .unwrap();
    assert_eq!(planned, 1);

    let lease = Duration::from_secs(30);
    let first = SharedPlan::connect(&db, "first", lease).unwrap();
    let second = SharedPlan::connect(&db, "second", lease).unwrap();
    let claim = first.claim().await.unwrap().expect("the planned query");
    assert_eq!(
        (claim.query.key.as_str(), claim.query.description.as_str()),
        ("k1", "q=a")
    );
    // Leased: nobody else gets it, and the others wait for it.
    assert_eq!(second.claim().await.unwrap(), None);
    assert_eq!(second.other_work().await.unwrap().held, 1);

    let outcome =
        crate::support::query_outcome("k1", "q=a", QueryState::Done, Vec::new(), &[("item", "x")]);
    let mut other = Store::open_at(&Location::Postgres(db.clone())).unwrap();
    other.set_worker("second");
    let refused = other.record_query(source, &outcome).unwrap_err();
    assert!(refused.to_string().contains("taken over"), "{refused}");
    assert!(
        other.values(source).unwrap().is_empty(),
        "written without the lease"
    );

    let mut holder = Store::open_at(&Location::Postgres(db.clone())).unwrap();
    holder.set_worker("first");
    assert_eq!(holder.record_query(source, &outcome).unwrap(), 1);
    // Done: written once, never again, claimed by nobody.
    assert!(holder.record_query(source, &outcome).is_err());
    assert_eq!(second.claim().await.unwrap(), None);
    assert_eq!(second.other_work().await.unwrap().held, 0);
    let status = holder.status().unwrap();
    assert_eq!((status.sources[0].done, status.sources[0].leased), (1, 0));
    assert_eq!(
        status.workers_alive,
        vec!["first".to_string(), "second".to_string()]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_of_a_sqlite_file_counts_its_queries() {
    let site = SlowSite::start(SlowConfig {
        queries: 5,
        pages: 2,
        latency: Duration::from_millis(1),
    })
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("g.sqlite");
    let file = file.to_str().unwrap();
    finished(planner(site.form_url(), file, &[])).await;
    let status = status(file).await;
    let source = &status["sources"][0];
    assert_eq!(
        (source["done"].as_u64(), source["pages"].as_u64()),
        (Some(5), Some(11)),
        "{status}"
    );
    assert_eq!(source["leased"], 0);
    assert!(status["workers_alive"].as_array().unwrap().is_empty());
}

/// What SQLite's schema version 6 keeps of a query (its answer, element
/// values, parent, learned), read back the same way from both back-ends.
fn refinement_columns_round_trip(mut store: gather::store::Store) {
    use gather::record::{Field, Fields, Record};
    use gather::store::{AnsweredQuery, QueryState};
    let source = provider_source(&mut store);
    let mut parent =
        crate::support::query_outcome("p", "q=a", QueryState::Done, Vec::new(), &[("item", "x")]);
    parent.answer = Some(r#"{"hits":9}"#.into());
    parent.values = Some(r#"[["q","a"]]"#.into());
    parent.records = vec![Record {
        page: "http://provider.test/r?q=a".into(),
        ordinal: 0,
        fields: Fields(vec![("item".into(), Field::One("x".into()))]),
    }];
    store.record_query(source, &parent).unwrap();
    let mut child =
        crate::support::query_outcome("c", "q=ab", QueryState::Pending, Vec::new(), &[]);
    child.ordinal = 1;
    child.values = Some(r#"[["q","ab"]]"#.into());
    child.parent = Some("p".into());
    child.learned = true;
    store.record_query(source, &child).unwrap();
    // A later record without them keeps what was recorded.
    let mut done = crate::support::query_outcome("c", "q=ab", QueryState::Done, Vec::new(), &[]);
    done.ordinal = 1;
    done.answer = Some(r#"{"hits":2}"#.into());
    done.fresh = false;
    store.record_query(source, &done).unwrap();

    assert_eq!(
        store.answered_queries(source).unwrap(),
        vec![
            AnsweredQuery {
                key: "p".into(),
                values: r#"[["q","a"]]"#.into(),
                answer: r#"{"hits":9}"#.into(),
                parent: None,
            },
            AnsweredQuery {
                key: "c".into(),
                values: r#"[["q","ab"]]"#.into(),
                answer: r#"{"hits":2}"#.into(),
                parent: Some("p".into()),
            },
        ]
    );
    let mut values = store.query_values(source).unwrap();
    values.sort();
    assert_eq!(values, vec![r#"[["q","a"]]"#, r#"[["q","ab"]]"#]);
    assert_eq!(store.query_counts(source).unwrap(), (2, 1));

    // Replacing the values replaces the records too; reopening removes both.
    assert_eq!(store.record_count(source).unwrap(), 1);
    let fragment = [("item", "y")].into_iter().collect();
    store
        .replace_query_values(source, &[("p".to_string(), fragment, Vec::new())])
        .unwrap();
    assert_eq!(store.record_count(source).unwrap(), 0);
    assert_eq!(store.values(source).unwrap()["item"], vec!["y".to_string()]);
    store.reopen_queries(source).unwrap();
    assert!(store.values(source).unwrap().is_empty());
    assert!(store.answered_queries(source).unwrap().is_empty());
}

/// Runs `check` on a new PostgreSQL database `name`, then on a new SQLite
/// file.
fn on_both_back_ends(name: &str, check: fn(gather::store::Store)) {
    use gather::store::{Location, Store};
    let pg = postgres();
    let db = pg.database(name).unwrap();
    check(Store::open_at(&Location::Postgres(db)).unwrap());
    let dir = tempfile::tempdir().unwrap();
    check(Store::open(&dir.path().join("g.db")).unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refinement_columns_round_trip_on_postgresql_and_sqlite() {
    on_both_back_ends("refine_columns", refinement_columns_round_trip);
}

/// A query recorded page by page (two writes with a checkpoint, then its
/// end), started over, and one whose body is over the budget: the pages,
/// kept bodies, values and records each back-end holds, checked alike.
fn query_progress_round_trip(mut store: gather::store::Store) {
    use gather::record::{Field, Fields, Record};
    use gather::store::{PageRecord, QueryState};
    let source = provider_source(&mut store);
    let page = |n: u32| {
        PageRecord::new(
            &format!("http://provider.test/r?q=a&page={n}"),
            200,
            format!("<li>page {n}</li>").as_bytes(),
            Duration::from_millis(5),
        )
        .keeping(Some("text/html"), format!("<li>page {n}</li>").as_bytes())
    };
    let record = |n: u64, item: &str| Record {
        page: format!("http://provider.test/r?q=a&page={n}"),
        ordinal: 0,
        fields: Fields(vec![("item".into(), Field::One(item.into()))]),
    };

    let mut first = crate::support::query_outcome(
        "k",
        "q=a",
        QueryState::Pending,
        vec![page(1), page(2)],
        &[("item", "a"), ("item", "b")],
    );
    first.checkpoint = Some(r#"{"next":3}"#.into());
    first.walk_links = vec!["http://provider.test/r?q=a&page=3".into()];
    first.records = vec![record(1, "a"), record(2, "b")];
    let recorded = store.record_query_new(source, &first).unwrap();
    assert_eq!(recorded.new_values, 2);
    assert_eq!(
        recorded.new_records_of(&first).collect::<Vec<_>>(),
        first.records.iter().collect::<Vec<_>>()
    );
    let checkpoint = |store: &gather::store::Store| -> serde_json::Value {
        serde_json::from_str(&store.checkpoints(source).unwrap()["k"]).unwrap()
    };
    assert_eq!(
        checkpoint(&store),
        serde_json::json!({"next": 3, "links": ["http://provider.test/r?q=a&page=3"]})
    );
    // The walk's links are added to with each page, in the order found.
    let mut step = crate::support::query_outcome("k", "q=a", QueryState::Pending, vec![], &[]);
    step.fresh = false;
    step.checkpoint = Some(r#"{"next":4}"#.into());
    step.walk_links = vec![
        "seen http://provider.test/r?q=a&page=3&x=1".into(),
        "http://provider.test/r?q=a&page=4".into(),
    ];
    store.record_query_new(source, &step).unwrap();
    assert_eq!(
        checkpoint(&store),
        serde_json::json!({"next": 4, "links": [
            "http://provider.test/r?q=a&page=3",
            "seen http://provider.test/r?q=a&page=3&x=1",
            "http://provider.test/r?q=a&page=4",
        ]})
    );

    let mut next = crate::support::query_outcome(
        "k",
        "q=a",
        QueryState::Done,
        vec![page(3)],
        &[("item", "b"), ("item", "c")],
    );
    next.fresh = false;
    next.records = vec![record(2, "b"), record(3, "c")];
    let recorded = store.record_query_new(source, &next).unwrap();
    assert_eq!(recorded.new_values, 1, "b was known");
    assert_eq!(
        recorded.new_records_of(&next).cloned().collect::<Vec<_>>(),
        vec![record(3, "c")]
    );
    assert!(store.checkpoints(source).unwrap().is_empty());

    let kept = store.kept_pages(source).unwrap();
    let urls: Vec<&str> = kept.iter().map(|p| p.url.as_str()).collect();
    assert_eq!(
        urls,
        [1, 2, 3].map(|n| format!("http://provider.test/r?q=a&page={n}"))
    );
    assert!(kept.iter().all(|p| p.query == "k"
        && p.content_type.as_deref() == Some("text/html")
        && p.body == format!("<li>page {}</li>", &p.url[p.url.len() - 1..]).into_bytes()));
    let stats = store.stats(source).unwrap();
    assert_eq!((stats.pages, stats.queries_done, stats.records), (3, 1, 3));
    assert_eq!(stats.values_per_attribute["item"], 3);
    let hits = store.search("c").unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].provenance.as_deref(), Some("k"));

    // Started over: its pages replace the earlier attempt's; its values stay.
    let again = crate::support::query_outcome("k", "q=a", QueryState::Done, vec![page(4)], &[]);
    assert_eq!(
        store.record_query_new(source, &again).unwrap().new_values,
        0
    );
    let kept = store.kept_pages(source).unwrap();
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].url, "http://provider.test/r?q=a&page=4");
    assert_eq!(store.values(source).unwrap()["item"].len(), 3);

    // A body over the budget is not kept; its page is.
    store.set_body_budget(1).unwrap();
    let mut other = crate::support::query_outcome(
        "k2",
        "q=b",
        QueryState::Done,
        vec![page(5)],
        &[("item", "d")],
    );
    other.ordinal = 1;
    assert_eq!(
        store.record_query_new(source, &other).unwrap().new_values,
        1
    );
    assert_eq!(store.bodies_dropped(), 1);
    assert_eq!(store.pages_not_kept(source).unwrap(), 1);
    assert_eq!(store.stats(source).unwrap().pages, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_query_s_progress_is_written_alike_on_postgresql_and_sqlite() {
    on_both_back_ends("progress", query_progress_round_trip);
}

/// The JSON summary of a gathering.
fn summary(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).expect("the summary is JSON")
}

/// The request targets the demo site answered for `script`, each with how
/// often it was asked for.
fn asked(site: &DemoSite, script: &str) -> BTreeMap<String, usize> {
    let mut asked = BTreeMap::new();
    for r in site.requests() {
        if r.target.starts_with(script) {
            *asked.entry(r.target).or_default() += 1;
        }
    }
    asked
}

async fn demo() -> DemoSite {
    DemoSite::start(DemoConfig {
        titles: 1200,
        articles: 1500,
        ..DemoConfig::default()
    })
    .await
    .expect("demo site starts")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn truncated_queries_are_refined_on_the_shared_plan_by_every_worker() {
    let site = demo().await;
    let pg = postgres();
    let db = pg.database("refine").unwrap();
    // Workers started before any plan exists wait for one, and for the
    // refinements the planner adds round after round.
    let workers = [worker(&db, &[]), worker(&db, &[])];
    tokio::time::sleep(Duration::from_millis(500)).await;
    let url = site.url(Variant::Catalogue);
    let mut planning = planner(&url, &db, &["--delay-ms", "5"]);
    // While it runs, the status names it among the planners.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let status = status(&db).await;
        if status["planners_alive"]
            .as_array()
            .is_some_and(|p| p.len() == 1)
        {
            assert_eq!(
                status["workers_alive"].as_array().unwrap().len(),
                3,
                "{status}"
            );
            break;
        }
        assert!(planning.try_wait().unwrap().is_none(), "{status}");
        assert!(Instant::now() < deadline, "{status}");
    }
    let planner_out = finished(planning).await;
    let mut sent = vec![queries_sent(&planner_out)];
    for w in workers {
        sent.push(queries_sent(&finished(w).await));
    }
    let report = summary(&planner_out);
    let source = &report["sources"][0];
    let planned = source["queries_planned"].as_u64().unwrap();
    assert!(source["queries_refined"].as_u64().unwrap() > 0, "{report}");
    assert_eq!(source["truncated_left"], serde_json::json!([]), "{report}");
    assert_eq!(
        source["stats"]["incomplete"],
        serde_json::Value::Null,
        "{report}"
    );
    assert_eq!(source["hits_estimate"], 1200, "{report}");

    // Every title, each query sent once, and the workers took their share.
    assert_eq!(
        exported_values(&db).await,
        vec![site.expected(Variant::Catalogue)]
    );
    let asked = asked(&site, "/cgi-bin/katalog.pl");
    assert!(asked.values().all(|&n| n == 1), "sent twice: {asked:?}");
    assert_eq!(sent.iter().sum::<u64>(), asked.len() as u64, "{sent:?}");
    assert!(asked.len() as u64 > planned, "{} of {planned}", asked.len());
    assert!(sent[1] + sent[2] > 0, "queries per process: {sent:?}");
    let status = status(&db).await;
    assert_eq!(status["sources"][0]["pending"], 0, "{status}");
    assert_eq!(status["workers_alive"], serde_json::json!([]), "{status}");
    assert_eq!(status["planners_alive"], serde_json::json!([]), "{status}");
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn words_are_learned_on_the_shared_plan_and_none_is_sent_twice() {
    let site = demo().await;
    let pg = postgres();
    let db = pg.database("learn").unwrap();
    let url = site.url(Variant::Archive);
    let first = planner(&url, &db, &["--max-queries", "100"]);
    plan_ready(&db).await;
    let other = worker(&db, &[]);
    let planner_out = finished(first).await;
    let worker_out = finished(other).await;
    let report = summary(&planner_out);
    let source = &report["sources"][0];
    assert_eq!(source["queries_planned"], 3, "{report}");
    assert_eq!(source["queries_learned"], 97, "{report}");
    assert!(
        source["learning_stopped"]
            .as_str()
            .is_some_and(|why| why.contains("--max-queries 100")),
        "{report}"
    );
    let asked = asked(&site, "/cgi-bin/archiv.pl");
    assert_eq!(asked.len(), 100, "{asked:?}");
    assert!(
        asked.values().all(|&n| n == 1),
        "a word sent twice: {asked:?}"
    );
    assert_eq!(queries_sent(&planner_out) + queries_sent(&worker_out), 100);

    // The learned words reach most of the archive, as on one process.
    let expected = site.expected(Variant::Archive);
    let found = &exported_values(&db).await[0];
    assert!(found["nr"].is_subset(&expected["nr"]));
    let share = found["nr"].len() as f64 / expected["nr"].len() as f64;
    assert!(
        share > 0.6,
        "{} of {}",
        found["nr"].len(),
        expected["nr"].len()
    );
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_without_a_plan_waits_for_one_then_ends() {
    let pg = postgres();
    let db = pg.database("nothing").unwrap();
    // An empty database: the worker makes the schema and waits.
    let started = Instant::now();
    let out = finished(worker(&db, &["--wait", "1.5"])).await;
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(1500), "{waited:?}");
    assert_eq!(queries_sent(&out), 0);
    let help = run(&["worker", "--help"]).await;
    let help = String::from_utf8_lossy(&help.stdout);
    for ignored in [
        "--max-pages",
        "--crawl-limit",
        "--fresh",
        "--boilerplate",
        "--spec",
        "--learn",
    ] {
        assert!(
            !help.contains(ignored),
            "worker --help lists {ignored}:\n{help}"
        );
    }
    assert!(help.contains("--wait"), "{help}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_planner_s_refinement_rounds_are_resumed_by_running_it_again() {
    let site = demo().await;
    let pg = postgres();
    let db = pg.database("replan").unwrap();
    let url = site.url(Variant::Catalogue);
    let slow = ["--delay-ms", "15"];
    let mut first = planner(&url, &db, &slow);
    plan_ready(&db).await;
    let helper = worker(&db, &slow);
    // Killed once the refinements are under way.
    let deadline = Instant::now() + Duration::from_secs(60);
    while asked(&site, "/cgi-bin/katalog.pl").len() < 60 {
        assert!(Instant::now() < deadline, "no progress");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(
        first.try_wait().unwrap().is_none(),
        "the planner ended before it was killed"
    );
    first.kill().await.expect("kill -9 the planner");
    let before = asked(&site, "/cgi-bin/katalog.pl").len();

    // The same command again goes on with the rounds; the worker, still
    // waiting, takes its share.
    let again = finished(planner(&url, &db, &slow)).await;
    finished(helper).await;
    let report = summary(&again);
    let source = &report["sources"][0];
    assert_eq!(source["truncated_left"], serde_json::json!([]), "{report}");
    assert_eq!(
        source["stats"]["incomplete"],
        serde_json::Value::Null,
        "{report}"
    );
    assert_eq!(
        exported_values(&db).await,
        vec![site.expected(Variant::Catalogue)]
    );
    let asked = asked(&site, "/cgi-bin/katalog.pl");
    assert!(asked.len() > before, "nothing sent after the kill");
    // Only the killed planner's queries in flight were sent twice.
    let twice: Vec<&String> = asked
        .iter()
        .filter(|(_, &n)| n > 1)
        .map(|(t, _)| t)
        .collect();
    assert!(twice.len() <= 2, "sent twice: {twice:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_planners_refine_their_providers_side_by_side_on_one_database() {
    let site = demo().await;
    let pg = postgres();
    let db = pg.database("planners").unwrap();
    let helper = worker(&db, &[]);
    let guide = planner(&site.url(Variant::Limited), &db, &[]);
    let catalogue = planner(&site.url(Variant::Catalogue), &db, &[]);
    let outs = [finished(guide).await, finished(catalogue).await];
    finished(helper).await;
    for out in &outs {
        let report = summary(out);
        let own = &report["sources"][0];
        assert!(own["queries_refined"].as_u64().unwrap() > 0, "{report}");
        assert_eq!(own["truncated_left"], serde_json::json!([]), "{report}");
    }
    let exported = exported_values(&db).await;
    assert!(exported.contains(&site.expected(Variant::Limited)));
    assert!(exported.contains(&site.expected(Variant::Catalogue)));
    for script in ["/cgi-bin/katalog.pl", "/cgi-bin/liste.pl"] {
        let asked = asked(&site, script);
        assert!(asked.values().all(|&n| n == 1), "sent twice: {asked:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_query_is_pending_again_only_when_it_is_planned_again() {
    use gather::store::{Location, PlannedQuery, QueryState, SharedPlan, Store};
    let pg = postgres();
    let db = pg.database("failed").unwrap();
    let mut planner = Store::open_at(&Location::Postgres(db.clone())).unwrap();
    let source = provider_source(&mut planner);
    let planned = |key: &str| PlannedQuery {
        key: key.into(),
        ordinal: 0,
        description: format!("q={key}"),
        request: format!(
            r#"{{"method":"Get","url":"http://provider.test/r?q={key}","body":null,"content_type":null}}"#
        ),
        values: Some(format!(r#"[["q","{key}"]]"#)),
        parent: None,
        learned: false,
    };
    let plan = |store: &mut Store, keys: &[&str]| {
        store
            .plan_queries(source, "{}", keys.iter().map(|k| planned(k)))
            .unwrap()
    };
    assert_eq!(plan(&mut planner, &["a"]), 1);
    let lease = Duration::from_secs(30);
    let worker = SharedPlan::connect(&db, "w", lease).unwrap();
    let claim = worker.claim().await.unwrap().expect("the planned query");
    assert_eq!(claim.query.key, "a");
    let mut store = Store::open_at(&Location::Postgres(db.clone())).unwrap();
    store.set_worker("w");
    let failed = crate::support::query_outcome("a", "q=a", QueryState::Failed, Vec::new(), &[]);
    store.record_query(source, &failed).unwrap();
    assert_eq!(
        worker.claim().await.unwrap(),
        None,
        "a failed query is not claimed"
    );

    // Another round that does not plan it again leaves it failed …
    assert_eq!(plan(&mut planner, &["b"]), 1);
    assert_eq!(
        worker.claim().await.unwrap().map(|c| c.query.key),
        Some("b".into())
    );
    assert_eq!(worker.claim().await.unwrap(), None);
    assert_eq!(planner.stats(source).unwrap().queries_failed, 1);
    // … planning it again sends it again, with its element values kept.
    assert_eq!(plan(&mut planner, &["a", "b"]), 1);
    assert_eq!(
        worker.claim().await.unwrap().map(|c| c.query.key),
        Some("a".into())
    );
    assert_eq!(planner.query_values(source).unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_planner_runs_the_rounds_of_its_sources_side_by_side() {
    let site = demo().await;
    let pg = postgres();
    let db = pg.database("side").unwrap();
    let catalogue = site.url(Variant::Catalogue);
    let archive = site.url(Variant::Archive);
    let mut args = vec![catalogue.as_str(), archive.as_str(), "--db", &db, "--json"];
    args.extend(["--max-queries", "400"]);
    let out = run(&args).await;
    let report = summary(&out);
    let planned = |at: usize| report["sources"][at]["queries_planned"].as_u64().unwrap() as usize;
    let log = site.requests();
    // Where in the request log each source's queries of the rounds are.
    let rounds = |script: &str, planned: usize| -> Vec<usize> {
        log.iter()
            .enumerate()
            .filter(|(_, r)| r.target.starts_with(script))
            .map(|(i, _)| i)
            .skip(planned)
            .collect()
    };
    let refined = rounds("/cgi-bin/katalog.pl", planned(0));
    let learned = rounds("/cgi-bin/archiv.pl", planned(1));
    assert!(!refined.is_empty() && !learned.is_empty(), "{report}");
    // Neither source waits for the other's rounds to end.
    assert!(
        learned[0] < *refined.last().unwrap(),
        "{refined:?}\n{learned:?}"
    );
    assert!(
        refined[0] < *learned.last().unwrap(),
        "{refined:?}\n{learned:?}"
    );
    for source in report["sources"].as_array().unwrap() {
        assert_eq!(source["truncated_left"], serde_json::json!([]), "{report}");
    }
    assert!(report["sources"][1]["queries_learned"].as_u64().unwrap() > 0);
    let exported = exported_values(&db).await;
    assert!(exported.contains(&site.expected(Variant::Catalogue)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sources_queries_are_claimed_in_turn_so_providers_are_asked_side_by_side() {
    let config = SlowConfig {
        queries: 8,
        pages: 1,
        latency: Duration::from_millis(50),
    };
    let first = SlowSite::start(config.clone()).await.unwrap();
    let second = SlowSite::start(config).await.unwrap();
    let pg = postgres();
    let db = pg.database("turns").unwrap();
    let mut args = vec![first.form_url().as_str(), second.form_url().as_str()];
    args.extend(["--db", &db, "--json", "--host-concurrency", "1"]);
    finished(command(&args).spawn().unwrap()).await;
    let starts = |site: &SlowSite| -> Vec<Instant> {
        let mut starts: Vec<Instant> = site
            .requests()
            .iter()
            .map(|r| site.started_at() + r.started)
            .collect();
        starts.sort();
        starts
    };
    let (a, b) = (starts(&first), starts(&second));
    assert_eq!((a.len(), b.len()), (8, 8));
    // One request at a time per host: the second provider is asked while
    // the first still has most of its queries ahead, and the other way.
    assert!(b[0] < a[3], "the second provider waited for the first");
    assert!(a[0] < b[3], "the first provider waited for the second");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn providers_that_hide_their_size_are_surfaced_on_the_shared_plan() {
    use gather::demo::{cottages, events, fewo, shelf, stellen};
    let site = demo().await;
    let pg = postgres();
    let providers = [
        ("shelf", shelf::PATH, "/shelf/find", Some(shelf::expected())),
        (
            "stellen",
            stellen::PATH,
            "/stellen/liste.cgi",
            Some(stellen::expected()),
        ),
        ("fewo", fewo::PATH, "/fewo/suche", Some(fewo::expected())),
        (
            "cottages",
            cottages::PATH,
            cottages::SCRIPT,
            Some(cottages::expected()),
        ),
        ("events", events::PATH, "/events/search", None),
    ];
    for (name, path, script, expected) in providers {
        let (db, report) = planned_and_worked(&site, &pg, name, path).await;
        let source = &report["sources"][0];
        let asked = asked(&site, script);
        match expected {
            // Every value, every answer known whole, no page asked twice.
            Some(expected) => {
                assert_eq!(exported_values(&db).await, vec![expected], "{name}");
                assert_eq!(source["completeness"], "complete", "{name}: {report}");
                assert!(asked.values().all(|&n| n == 1), "{name}: {asked:?}");
                // The workers refine at once a query whose first page links
                // more pages than DB.MaxPages: the care jobs' second page
                // is never asked.
                if name == "stellen" {
                    assert!(
                        !asked.keys().any(|t| t.contains("bereich=pfl&seite=")),
                        "{asked:?}"
                    );
                }
            }
            // The form that ignores its parameters: refining stops, and
            // says so.
            None => {
                let sent: usize = asked.values().sum();
                assert!(sent <= 200, "{name}: {sent} queries");
                assert!(
                    source["refining_stopped"]
                        .as_str()
                        .is_some_and(|why| why.contains("stopped paying")),
                    "{name}: {report}"
                );
                assert_eq!(source["completeness"], "incomplete", "{name}: {report}");
            }
        }
    }
    site.shutdown().await;
}

/// More answered queries than one batch of the store, recorded out of
/// their plan's order: read batch by batch they come whole, once each, in
/// the plan's order, as the whole list does; the lookups by key agree. On
/// PostgreSQL a plan larger than a batch goes in whole.
fn answers_in_batches(mut store: gather::store::Store) {
    use gather::store::{PlannedQuery, QueryState, ANSWER_BATCH};
    let source = provider_source(&mut store);
    let n = ANSWER_BATCH * 2 + 100;
    for i in (0..n).rev() {
        let key = format!("k{i}");
        let mut q = crate::support::query_outcome(&key, &key, QueryState::Done, vec![], &[]);
        q.ordinal = i as u64;
        q.values = Some(format!(r#"[["q","{i}"]]"#));
        q.answer = Some(format!(r#"{{"shown":{}}}"#, i % 7));
        q.parent = (i % 3 == 0).then(|| "k0".to_string());
        store.record_query(source, &q).unwrap();
    }
    let failed = crate::support::query_outcome("kf", "f", QueryState::Failed, vec![], &[]);
    store.record_query(source, &failed).unwrap();

    let mut batched = Vec::new();
    store
        .each_answered::<gather::store::StoreError>(source, |q| {
            batched.push(q);
            Ok(())
        })
        .unwrap();
    let keys: Vec<String> = batched.iter().map(|q| q.key.clone()).collect();
    let planned: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
    assert_eq!(
        keys, planned,
        "each answered query once, in the plan's order"
    );
    assert_eq!(batched[1500].answer, r#"{"shown":2}"#);
    assert_eq!(batched[1500].values, r#"[["q","1500"]]"#);
    assert_eq!(batched[1500].parent.as_deref(), Some("k0"));
    assert_eq!(store.answered_queries(source).unwrap(), batched);

    let asked = vec!["k5".to_string(), "kf".into(), "nope".into(), "k1".into()];
    let among = store.answered_among(source, &asked).unwrap();
    let among: Vec<&str> = among.iter().map(|q| q.key.as_str()).collect();
    assert_eq!(among, ["k5", "k1"]);
    let finished = store.finished_among(source, &asked).unwrap();
    assert_eq!(finished, ["k5".to_string(), "k1".into()].into());
    assert_eq!(store.finished_count(source).unwrap(), n as u64);

    if store.is_shared() {
        let other = provider_source_named(&mut store, "http://provider.test/other");
        let plan = (0..n).map(|i| PlannedQuery {
            key: format!("p{}", i % (n - 50)),
            ordinal: i as u64,
            description: format!("q={i}"),
            request: format!(
                r#"{{"method":"Get","url":"http://provider.test/r?q={i}","body":null,"content_type":null}}"#
            ),
            values: None,
            parent: None,
            learned: false,
        });
        store.plan_queries(other, "{}", plan).unwrap();
        let (stored, _) = store.query_counts(other).unwrap();
        assert_eq!(stored, (n - 50) as u64, "every distinct key planned once");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_are_read_in_batches_alike_on_postgresql_and_sqlite() {
    on_both_back_ends("answer_batches", answers_in_batches);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn places_reached_by_shared_words_are_surfaced_on_the_shared_plan_and_the_rest_named() {
    use gather::demo::hofladen;
    let site = demo().await;
    let pg = postgres();
    let (db, report) = planned_and_worked(&site, &pg, "hofladen", hofladen::PATH).await;
    let source = &report["sources"][0];
    // Every shop a query can reach, the small places through the words
    // they share with gathered ones; no query asked twice.
    assert_eq!(exported_values(&db).await, vec![hofladen::reachable()]);
    let asked = asked(&site, hofladen::SCRIPT);
    assert!(asked.values().all(|&n| n == 1), "{asked:?}");
    assert!(
        asked.keys().any(|t| t.ends_with("kreis=COC&gemeinde=Zell")),
        "{asked:?}"
    );
    // The district of the place no word reaches is named as left.
    assert_eq!(source["completeness"], "incomplete", "{report}");
    let left = source["truncated_left"].as_array().expect("a list");
    assert_eq!(left.len(), 1, "{report}");
    assert!(
        left[0]["query"].as_str().unwrap().contains("kreis=COC"),
        "{report}"
    );
    assert_eq!(left[0]["left_by"], "no way to refine it", "{report}");
    site.shutdown().await;
}

/// A provider of the demo site gathered on a database of its own by a
/// planner and a second worker: the database, and the planner's summary.
async fn planned_and_worked(
    site: &DemoSite,
    pg: &LocalPostgres,
    name: &str,
    path: &str,
) -> (String, serde_json::Value) {
    let db = pg.database(name).unwrap();
    let url = site.base_url().join(path).unwrap();
    let planning = planner(&url, &db, &[]);
    plan_ready(&db).await;
    let other = worker(&db, &[]);
    let report = summary(&finished(planning).await);
    finished(other).await;
    (db, report)
}

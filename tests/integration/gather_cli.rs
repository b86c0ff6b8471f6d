//! The `gather` command as users run it: exit status, summary, demo.

use crate::support;

use support::{gather, stderr};

use axum::response::Html;
use axum::routing::get;

#[test]
fn nothing_to_gather_is_bad_input() {
    let out = gather(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("nothing to gather"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_start_that_is_not_a_url_is_bad_input() {
    let out = gather(&["not a url"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not a URL"), "{}", stderr(&out));
}

#[test]
fn unreachable_form_page_fails_with_status_1() {
    // A port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let url = format!("http://127.0.0.1:{port}/form.html");
    let out = gather(&[&url, "--db", db.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains(&url), "{err}");
    // What the operator must fix, not the step that first met it: the
    // robots.txt asked before the page is not blamed.
    assert!(err.contains("the host refused the connection"), "{err}");
    assert!(err.contains(&format!("127.0.0.1:{port}")), "{err}");
    assert!(!err.contains("robots.txt"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_metadata_is_bad_input_and_names_the_problem() {
    let page = r#"<html><head>
        <meta name="DB.QueryElement" content="region">
        <meta name="DB.Result.ort" content="html.body->table[1].tr[i:*.td[1].txt">
        </head><body><form action="/q"><input type="radio" name="region" value="a" checked></form></body></html>"#;
    let addr = support::serve(
        axum::Router::new().route("/form.html", get(move || async move { Html(page) })),
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let url = support::url(addr, "/form.html").to_string();
    let db_arg = db.to_str().unwrap().to_string();
    let out = tokio::task::spawn_blocking(move || gather(&[&url, "--db", &db_arg]))
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("DB.Result.ort"), "{}", stderr(&out));
}

#[test]
fn demo_gathers_the_site_and_the_export_holds_its_values() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("demo.sqlite");
    let db = db.to_str().unwrap();
    let out = gather(&["demo", "--port", "0", "--hotels", "300", "--db", db]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let summary = stderr(&out);
    assert!(
        summary.contains("(database)") && summary.contains("(cooperative)"),
        "{summary}"
    );
    assert!(
        summary.contains(db),
        "the summary says where the database is: {summary}"
    );

    let export = gather(&["export", "--db", db, "--format", "soif"]);
    assert_eq!(export.status.code(), Some(0));
    let soif = String::from_utf8(export.stdout).unwrap();
    for attribute in [
        "DB.ort{",
        "DB.name{",
        "DB.region{",
        "DB.hotel.ort{",
        "Type{9}:\tDBContent",
    ] {
        assert!(
            soif.contains(attribute),
            "{attribute} missing from the export"
        );
    }
}

#[test]
fn a_second_gather_on_a_database_in_use_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let mut running = gather::store::Store::open(&db).unwrap();
    running.lock_for_gathering().unwrap();
    let out = gather(&["http://127.0.0.1:9/form.html", "--db", db.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("another gather run is gathering into"),
        "{}",
        stderr(&out)
    );
    // Once the first run has ended, the database is free again.
    drop(running);
    let mut next = gather::store::Store::open(&db).unwrap();
    next.lock_for_gathering().unwrap();
}

#[test]
fn a_database_path_that_cannot_be_opened_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("no/such/dir/g.sqlite");
    let out = gather(&["http://127.0.0.1:9/form.html", "--db", db.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cannot be opened"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_gathers_the_demo_that_already_runs_and_never_doubles_its_sources() {
    use gather::demo::{DemoConfig, DemoSite};
    let site = DemoSite::start(DemoConfig {
        port: 0,
        hotels: 300,
        ..DemoConfig::default()
    })
    .await
    .unwrap();
    let port = site.base_url().port().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let run = || {
        let (dir, port) = (dir.path().to_path_buf(), port.clone());
        tokio::task::spawn_blocking(move || {
            std::process::Command::new(env!("CARGO_BIN_EXE_gather"))
                .args(["demo", "--port", &port])
                .current_dir(dir)
                .output()
                .unwrap()
        })
    };
    let out = run().await.unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("already runs on port"),
        "{}",
        stderr(&out)
    );
    let db = dir.path().join(format!("gather-demo-{port}.sqlite"));
    let sources = gather::store::Store::open(&db)
        .unwrap()
        .sources()
        .unwrap()
        .len();
    assert!(sources >= 7, "{sources} sources");
    run().await.unwrap();
    let again = gather::store::Store::open(&db)
        .unwrap()
        .sources()
        .unwrap()
        .len();
    assert_eq!(again, sources);
    site.shutdown().await;
}

#[test]
fn a_url_without_a_scheme_gets_a_suggestion() {
    for start in ["127.0.0.1:8642/cityworld/", "localhost:8642/cityworld/"] {
        let out = gather(&[start]);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            stderr(&out).contains(&format!("did you mean http://{start} ?")),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn fetch_settings_have_flags() {
    let out = gather(&["--help"]);
    let help = support::stdout(&out);
    for flag in [
        "--timeout",
        "--retries",
        "--user-agent",
        "--netrc",
        "--allow-host",
    ] {
        assert!(help.contains(flag), "{flag} missing from\n{help}");
    }
    let out = gather(&["http://127.0.0.1:9/", "--timeout", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--timeout"), "{}", stderr(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_agent_and_retries_flags_reach_the_provider() {
    use std::sync::{Arc, Mutex};
    let agents: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen = Arc::clone(&agents);
    let app = axum::Router::new().fallback(move |headers: axum::http::HeaderMap| {
        let seen = Arc::clone(&seen);
        async move {
            let agent = headers
                .get("user-agent")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string();
            seen.lock().unwrap().push(agent);
            (axum::http::StatusCode::INTERNAL_SERVER_ERROR, "down")
        }
    });
    let url = support::url(support::serve(app).await, "/form.html");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let args = [
        url.as_str().to_string(),
        "--db".into(),
        db.display().to_string(),
        "--retries".into(),
        "1".into(),
        "--user-agent".into(),
        "hotelbot/2.0 (+ops@example.org)".into(),
    ];
    let out = tokio::task::spawn_blocking(move || {
        gather(&args.iter().map(String::as_str).collect::<Vec<_>>())
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let agents = agents.lock().unwrap().clone();
    // robots.txt asked and its 5xx retried once; after that the host is
    // unavailable for the run, and the form page is not asked.
    assert_eq!(agents.len(), 2, "{agents:?}");
    assert!(agents
        .iter()
        .all(|a| a == "hotelbot/2.0 (+ops@example.org)"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_of_a_start_page_lists_the_sources_a_crawl_finds() {
    use gather::demo::{DemoConfig, DemoSite, Variant};
    let site = DemoSite::start(DemoConfig {
        port: 0,
        hotels: 100,
        ..DemoConfig::default()
    })
    .await
    .unwrap();
    let start = site.base_url().to_string();
    let out = tokio::task::spawn_blocking(move || gather(&["plan", &start]))
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listed = support::stdout(&out);
    assert!(
        listed.contains("a crawl from it finds these sources"),
        "{listed}"
    );
    for variant in [Variant::Listed, Variant::Paged, Variant::Post] {
        assert!(
            listed.contains(&format!("  {} (database)", site.url(variant))),
            "{variant:?} missing from\n{listed}"
        );
    }
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quiet_records_on_standard_output_and_nothing_else() {
    let site = support::demo_site(60).await;
    let url = site.url(gather::demo::Variant::Listed).to_string();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite").display().to_string();
    let out =
        tokio::task::spawn_blocking(move || gather(&[&url, "--db", &db, "-o", "-", "--quiet"]))
            .await
            .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    let records = support::stdout(&out);
    assert!(records.lines().count() >= 10, "{records}");
    for line in records.lines() {
        let record: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(record["fields"].is_object(), "{line}");
    }
    assert!(!dir.path().join("-").exists(), "no file named -");
}

#[test]
fn a_spec_whose_url_is_not_http_is_bad_input_as_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("ftp.yaml");
    std::fs::write(&spec, "url: ftp://127.0.0.1/\n").unwrap();
    let db = dir.path().join("g.sqlite");
    let out = gather(&[
        "--spec",
        spec.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = gather(&["ftp://127.0.0.1/", "--db", db.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn a_host_name_that_does_not_resolve_is_asked_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let out = gather(&["http://no-such-host.invalid/", "--db", db.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("did not resolve"), "{err}");
    assert!(err.contains("(after 1 attempt(s))"), "{err}");
}

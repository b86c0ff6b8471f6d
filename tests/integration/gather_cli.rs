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
    assert!(stderr(&out).contains(&url), "{}", stderr(&out));
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

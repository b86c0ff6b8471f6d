//! `gather export`, `gather search` and `gather summarize` as a user runs them.

use crate::support;

use std::path::Path;

use gather::store::{QueryState, SourceInfo, SourceKind, Store};
use support::{gather, query_outcome, stderr, stdout};

fn gathered(path: &Path) {
    add_source(
        path,
        "http://127.0.0.1:8080/cityworld/",
        "CityWorld",
        ("region=R%C3%BCgen", "region=Rügen"),
        &[("ort", "Binz"), ("ort", "Sellin")],
    );
}

/// Stores a database source with one done query (key, description) that
/// found `values`.
fn add_source(
    path: &Path,
    url: &str,
    title: &str,
    (key, description): (&str, &str),
    values: &[(&str, &str)],
) {
    let mut store = Store::open(path).unwrap();
    let id = store
        .upsert_source(&SourceInfo {
            url: url.into(),
            kind: SourceKind::Database,
            title: Some(title.into()),
            description: None,
            keywords: None,
            text: None,
        })
        .unwrap();
    let done = query_outcome(key, description, QueryState::Done, vec![], values);
    store.record_query(id, &done).unwrap();
}

#[test]
fn export_writes_soif_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    gathered(&db);
    let db = db.to_str().unwrap();
    let o = gather(&["export", "--db", db]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.starts_with("@FILE { http://127.0.0.1:8080/cityworld/\nType{9}:\tDBContent\n"),
        "{text}"
    );
    assert!(text.ends_with("DB.ort{11}:\tBinz\nSellin\n}\n"), "{text}");
    let o = gather(&["export", "--db", db, "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let line: serde_json::Value = serde_json::from_str(stdout(&o).trim_end()).unwrap();
    assert_eq!(
        line["attributes"]["ort"],
        serde_json::json!(["Binz", "Sellin"])
    );
}

#[test]
fn a_missing_database_is_an_error_and_is_not_created() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("nothing.sqlite");
    for args in [
        vec!["export", "--db", db.to_str().unwrap()],
        vec!["search", "--db", db.to_str().unwrap(), "Binz"],
    ] {
        let o = gather(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains("does not exist"), "{}", stderr(&o));
        assert!(o.stdout.is_empty());
    }
    assert!(!db.exists());
}

#[test]
fn search_prints_a_table_and_exits_1_when_nothing_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    gathered(&db);
    let db = db.to_str().unwrap();
    let o = gather(&["search", "--db", db, "sellin", "Rostock"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "TERM    SOURCE                            ATTRIBUTE  VALUE   QUERY\n\
         sellin  http://127.0.0.1:8080/cityworld/  ort        Sellin  region=Rügen\n"
    );
    assert!(
        stderr(&o).contains("no value holds \"Rostock\""),
        "{}",
        stderr(&o)
    );
    let o = gather(&["search", "--db", db, "--json", "binz"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let hit: serde_json::Value = serde_json::from_str(stdout(&o).trim_end()).unwrap();
    assert_eq!(
        hit,
        serde_json::json!({
            "term": "binz", "source": "http://127.0.0.1:8080/cityworld/", "attribute": "ort",
            "value": "Binz", "provenance": "region=R%C3%BCgen", "query": "region=Rügen"
        })
    );
    let o = gather(&["search", "--db", db, "Rostock"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
}

#[test]
fn summarize_prints_the_providers_soif() {
    let dir = tempfile::tempdir().unwrap();
    let provider = dir.path().join("cityworld.sqlite");
    rusqlite::Connection::open(&provider)
        .unwrap()
        .execute_batch(
            "CREATE TABLE hotel (name TEXT, ort TEXT);
             INSERT INTO hotel VALUES ('Hotel Arkona', 'Binz'), ('Seeblick', 'Sellin'), ('Meer', 'Binz');",
        )
        .unwrap();
    let doc = dir.path().join("cityworld.DBContent");
    std::fs::write(
        &doc,
        "Summarizer: http://127.0.0.1/cgi-bin/summarize\n\
         URL: http://127.0.0.1:8080/cityworld/\n\
         Title: CityWorld\n\
         Database: cityworld\n\
         Table: hotel\n\
         Attribute: ort\n",
    )
    .unwrap();
    let (doc, provider) = (doc.to_str().unwrap(), provider.to_str().unwrap());
    let o = gather(&["summarize", doc, "--database", provider]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "@FILE { http://127.0.0.1:8080/cityworld/\nhotel.ort{11}:\tBinz\nSellin\n}\n"
    );
    let o = gather(&["summarize", doc, "--database", provider, "--cgi"]);
    assert!(stdout(&o).starts_with("Content-Type: text/plain; charset=utf-8\r\n\r\n@FILE {"));

    let missing = dir.path().join("missing.sqlite");
    let o = gather(&["summarize", doc, "--database", missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("missing.sqlite"), "{}", stderr(&o));
    assert!(!missing.exists());
}

#[test]
fn summarize_reads_a_dbcontent_document_in_iso_8859_1() {
    let dir = tempfile::tempdir().unwrap();
    let provider = dir.path().join("cityworld.sqlite");
    rusqlite::Connection::open(&provider)
        .unwrap()
        .execute_batch(
            "CREATE TABLE region (name TEXT); INSERT INTO region VALUES ('Rügen'), ('Usedom');",
        )
        .unwrap();
    let doc = dir.path().join("cityworld.DBContent");
    // "Hotelführer" and the rest in ISO-8859-1, as the demo serves it.
    let mut text = b"Summarizer: http://127.0.0.1/cgi-bin/summarize\nURL: http://127.0.0.1/cityworld/\nTitle: Hotelf".to_vec();
    text.push(0xFC);
    text.extend_from_slice(b"hrer M-V\nTable: region\nAttribute: name\n");
    std::fs::write(&doc, text).unwrap();
    let o = gather(&[
        "summarize",
        doc.to_str().unwrap(),
        "--database",
        provider.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("region.name{13}:\tRügen\nUsedom\n"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn export_writes_one_source_to_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    gathered(&db);
    add_source(
        &db,
        "http://127.0.0.1:8080/other/",
        "Other",
        ("q=x", "q=x"),
        &[("ort", "Prora")],
    );
    let db = db.to_str().unwrap();
    let file = dir.path().join("one.soif");
    let o = gather(&[
        "export",
        "--db",
        db,
        "--source",
        "http://127.0.0.1:8080/other/",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.starts_with("@FILE { http://127.0.0.1:8080/other/\n"),
        "{text}"
    );
    assert!(!text.contains("cityworld"), "{text}");
    // `-` is standard output; both sources without --source.
    let o = gather(&["export", "--db", db, "--format", "json", "-o", "-"]);
    assert_eq!(stdout(&o).lines().count(), 2, "{}", stdout(&o));
    // A source the database does not hold is named.
    let o = gather(&[
        "export",
        "--db",
        db,
        "--source",
        "http://127.0.0.1:8080/nope/",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no source http://127.0.0.1:8080/nope/"),
        "{}",
        stderr(&o)
    );
    // The records are JSON Lines unless asked otherwise.
    let o = gather(&["export", "--db", db, "--records"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn status_of_a_sqlite_file_has_no_workers_and_fits_its_columns() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    gathered(&db);
    let o = gather(&["status", "--db", db.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        !text.contains("workers") && !text.contains("leased"),
        "{text}"
    );
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("kind") && lines[0].contains("cut short"),
        "{text}"
    );
    // Every column of the source's line ends where its heading ends.
    let url_at = lines[0].find("source").unwrap();
    assert_eq!(lines[1].find("http://"), Some(url_at), "{text}");
}

#[test]
fn every_command_with_a_database_reads_gather_db() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    gathered(&db);
    for command in ["reextract", "status", "export"] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_gather"))
            .arg(command)
            .env("GATHER_DB", &db)
            .current_dir(dir.path().join(".."))
            .output()
            .unwrap();
        let said = format!("{}{}", stdout(&o), stderr(&o));
        assert!(
            said.contains("127.0.0.1:8080/cityworld/"),
            "{command}: {said}"
        );
    }
}

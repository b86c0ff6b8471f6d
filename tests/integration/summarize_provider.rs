//! The provider's summarizer: a DBContent document and a real SQLite database
//! give the exact SOIF bytes.

use gather::metadata::{DbContent, DbTable};
use gather::summarize::{provider_soif, SummarizeError};
use rusqlite::Connection;

fn provider_db(dir: &tempfile::TempDir) -> Connection {
    let db = Connection::open(dir.path().join("cityworld.sqlite")).unwrap();
    db.execute_batch(
        "CREATE TABLE hotel (id INTEGER PRIMARY KEY, name TEXT, ort TEXT, sterne INTEGER);
         INSERT INTO hotel (name, ort, sterne) VALUES
           ('Hotel Arkona', 'Binz', 4),
           ('Pension Seeblick', 'Sellin', 2),
           ('Strandhotel', ' Binz ', 4),
           ('Haus   am  Meer', 'Göhren', NULL),
           ('Zur Post', 'Zingst', 3),
           ('Ostseeperle', '', 3),
           ('Zur Post', NULL, 3);
         CREATE TABLE region (name TEXT);
         INSERT INTO region VALUES ('Rügen'), ('Usedom'), ('Fischland'), (NULL), ('  ');",
    )
    .unwrap();
    // A decomposed "Rügen" (u + combining diaeresis) that must merge with the composed one.
    db.execute("INSERT INTO region VALUES (?1)", ["Ru\u{308}gen"])
        .unwrap();
    db
}

fn cityworld_doc() -> DbContent {
    DbContent {
        summarizer: Some("http://127.0.0.1/cgi-bin/summarize".into()),
        url: Some("http://127.0.0.1:8080/cityworld/".into()),
        title: Some("CityWorld - Hotels und Pensionen".into()),
        database: Some("Cityworld".into()),
        tables: vec![
            DbTable {
                name: "hotel".into(),
                attributes: vec!["name".into(), "ort".into(), "sterne".into()],
            },
            DbTable {
                name: "region".into(),
                attributes: vec!["name".into()],
            },
        ],
        ..DbContent::default()
    }
}

#[test]
fn publishes_distinct_sorted_values_byte_exact() {
    let dir = tempfile::tempdir().unwrap();
    let db = provider_db(&dir);
    let soif = provider_soif(&cityworld_doc(), &db).unwrap();
    let expected = "@FILE { http://127.0.0.1:8080/cityworld/\n\
hotel.name{75}:\tHaus am Meer\nHotel Arkona\nOstseeperle\nPension Seeblick\nStrandhotel\nZur Post\n\
hotel.ort{26}:\tBinz\nGöhren\nSellin\nZingst\n\
hotel.sterne{5}:\t2\n3\n4\n\
region.name{23}:\tFischland\nRügen\nUsedom\n\
}\n";
    assert_eq!(String::from_utf8(soif).unwrap(), expected);
}

#[test]
fn identifiers_are_checked_against_the_schema() {
    let dir = tempfile::tempdir().unwrap();
    let db = provider_db(&dir);
    let mut doc = cityworld_doc();
    doc.tables[0].attributes.push("preis".into());
    match provider_soif(&doc, &db) {
        Err(SummarizeError::MissingColumn {
            table,
            column,
            columns,
        }) => {
            assert_eq!((table.as_str(), column.as_str()), ("hotel", "preis"));
            assert_eq!(columns, "id, name, ort, sterne");
        }
        other => panic!("expected a missing column error, got {other:?}"),
    }
    let mut doc = cityworld_doc();
    doc.tables[1].name = "region; DROP TABLE hotel".into();
    let err = provider_soif(&doc, &db).unwrap_err();
    assert!(
        matches!(&err, SummarizeError::MissingTable { table } if table == "region; DROP TABLE hotel"),
        "{err}"
    );
    let count: i64 = db
        .query_row("SELECT count(*) FROM hotel", [], |r| r.get(0))
        .unwrap();
    assert_eq!(count, 7);
}

#[test]
fn a_document_without_url_or_attributes_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = provider_db(&dir);
    let mut doc = cityworld_doc();
    doc.url = None;
    let err = provider_soif(&doc, &db).unwrap_err();
    assert!(err.to_string().contains("URL"), "{err}");
    let mut doc = cityworld_doc();
    doc.tables.clear();
    let err = provider_soif(&doc, &db).unwrap_err();
    assert!(err.to_string().contains("Table:"), "{err}");
}

//! SOIF and JSON export and search over a real gatherer database.

use crate::support;

use gather::fragment::IndexFragment;
use gather::output;
use gather::soif;
use gather::store::{
    PageRecord, QueryOutcome, QueryState, SourceId, SourceInfo, SourceKind, Store,
};
use support::{page_record as page, query_outcome};

const FORM: &str = "http://127.0.0.1:8080/cityworld/";
const COOP: &str = "http://127.0.0.1:8080/coop/auswahl.pl";
const PAGE: &str = "http://127.0.0.1:8080/about.html";

fn query(
    key: &str,
    description: &str,
    pages: Vec<PageRecord>,
    values: &[(&str, &str)],
) -> QueryOutcome {
    query_outcome(key, description, QueryState::Done, pages, values)
}

struct Fixture {
    _dir: tempfile::TempDir,
    store: Store,
    form: SourceId,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("gather.sqlite")).unwrap();
    let form = store
        .upsert_source(&SourceInfo {
            url: FORM.into(),
            kind: SourceKind::Database,
            title: Some("CityWorld - Hotels und Pensionen".into()),
            description: Some("Hotelführer M-V".into()),
            keywords: Some("Hotel, Pension".into()),
            text: None,
        })
        .unwrap();
    store.record_page(form, &page(FORM, 1200)).unwrap();
    store
        .record_query(
            form,
            &query(
                "region=Usedom",
                "region=Usedom",
                vec![page("http://x/r?region=Usedom", 2000)],
                &[
                    ("ort", "Zinnowitz"),
                    ("ort", "Ahlbeck"),
                    ("name", "Hotel Ostseeblick"),
                ],
            ),
        )
        .unwrap();
    store
        .record_query(
            form,
            &query(
                "region=R%C3%BCgen",
                "region=Rügen",
                vec![
                    page("http://x/r?region=R%C3%BCgen", 3000),
                    page("http://x/r2", 500),
                ],
                &[
                    ("ort", "Binz"),
                    ("ort", "Zinnowitz"),
                    ("ort", "Öhe"),
                    ("name", "Hotel Arkona"),
                ],
            ),
        )
        .unwrap();
    let mut listed = IndexFragment::new();
    for r in ["Usedom", "Rügen", "Fischland"] {
        listed.add("region", r);
    }
    store
        .record_values(form, Some("DB.Result.region"), &listed)
        .unwrap();
    store
        .set_incomplete(form, Some("DB.MaxQueries: 2 of 3 queries sent"))
        .unwrap();

    let coop = store
        .upsert_source(&SourceInfo {
            url: COOP.into(),
            kind: SourceKind::Cooperative,
            title: None,
            description: None,
            keywords: None,
            text: None,
        })
        .unwrap();
    let mut answer = IndexFragment::new();
    answer.add("objects.title", "Binz Seebrücke");
    store
        .record_values(coop, Some("summarizer"), &answer)
        .unwrap();
    store
        .record_page(
            coop,
            &page("http://127.0.0.1:8080/cgi-bin/summarize?config=x", 77),
        )
        .unwrap();

    store
        .upsert_source(&SourceInfo {
            url: PAGE.into(),
            kind: SourceKind::Page,
            title: Some("Über uns".into()),
            description: None,
            keywords: None,
            text: Some("Wir sind\nein Hotelführer.".into()),
        })
        .unwrap();
    Fixture {
        _dir: dir,
        store,
        form,
    }
}

fn update_time(store: &Store, url: &str) -> i64 {
    store
        .sources()
        .unwrap()
        .into_iter()
        .find(|s| s.info.url == url)
        .unwrap()
        .updated_at
}

#[test]
fn soif_export_is_byte_exact() {
    let f = fixture();
    let mut out = Vec::new();
    output::export_soif(&f.store, &mut out, None).unwrap();
    let version = env!("CARGO_PKG_VERSION");
    let t_page = update_time(&f.store, PAGE);
    let t_form = update_time(&f.store, FORM);
    let t_coop = update_time(&f.store, COOP);
    let field = |name: &str, value: &str| format!("{name}{{{}}}:\t{value}\n", value.len());
    let common = |t: i64, size: &str| {
        field("Update-Time", &t.to_string())
            + &field("Gatherer-Name", "gather")
            + &field("Gatherer-Version", version)
            + &field("File-Size", size)
    };
    let expected = String::new()
        // Sources in URL order: about.html, cityworld/, coop/.
        + "@FILE { http://127.0.0.1:8080/about.html\n"
        + &field("Type", "HTML")
        + &field("Title", "Über uns")
        + &common(t_page, "0")
        + &field("Full-Text", "Wir sind\nein Hotelführer.")
        + "}\n"
        + "@FILE { http://127.0.0.1:8080/cityworld/\n"
        + &field("Type", "DBContent")
        + &field("Title", "CityWorld - Hotels und Pensionen")
        + &field("Description", "Hotelführer M-V")
        + &field("Keywords", "Hotel, Pension")
        + &common(t_form, "6700")
        + &field("Incomplete", "DB.MaxQueries: 2 of 3 queries sent")
        + &field("DB.name", "Hotel Arkona\nHotel Ostseeblick")
        + &field("DB.ort", "Ahlbeck\nBinz\nZinnowitz\nÖhe")
        + &field("DB.region", "Fischland\nRügen\nUsedom")
        + "}\n"
        + "@FILE { http://127.0.0.1:8080/coop/auswahl.pl\n"
        + &field("Type", "DBContent")
        + &common(t_coop, "77")
        + &field("DB.objects.title", "Binz Seebrücke")
        + "}\n";
    assert_eq!(String::from_utf8(out.clone()).unwrap(), expected);
    // Sizes are bytes: the export reads back with the strict parser.
    let objects = soif::parse(&out).unwrap();
    assert_eq!(objects.len(), 3);
    assert_eq!(
        objects[1].get("DB.ort").unwrap(),
        "Ahlbeck\nBinz\nZinnowitz\nÖhe".as_bytes()
    );
}

#[test]
fn json_export_has_one_line_per_source() {
    let f = fixture();
    let mut out = Vec::new();
    output::export_json(&f.store, &mut out, None).unwrap();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    let form = &lines[1];
    assert_eq!(form["url"], FORM);
    assert_eq!(form["kind"], "database");
    assert_eq!(form["title"], "CityWorld - Hotels und Pensionen");
    assert_eq!(
        form["attributes"]["ort"],
        serde_json::json!(["Ahlbeck", "Binz", "Zinnowitz", "Öhe"])
    );
    assert_eq!(
        form["stats"],
        serde_json::json!({
            "queries_done": 2, "queries_failed": 0, "pages": 4, "bytes": 6700,
            "incomplete": "DB.MaxQueries: 2 of 3 queries sent"
        })
    );
    assert_eq!(lines[0]["stats"]["incomplete"], serde_json::Value::Null);
    assert_eq!(
        lines[2]["attributes"]["objects.title"],
        serde_json::json!(["Binz Seebrücke"])
    );
}

#[test]
fn search_names_source_attribute_and_query() {
    let f = fixture();
    let hits = output::search(&f.store, &["Zinnowitz".to_string(), "binz".to_string()]).unwrap();
    let rows: Vec<(&str, &str, &str, &str, Option<&str>)> = hits
        .iter()
        .map(|h| {
            (
                h.term.as_str(),
                h.source.as_str(),
                h.attribute.as_str(),
                h.value.as_str(),
                h.query.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            // Zinnowitz came first with the Usedom query; Rügen found it again.
            ("Zinnowitz", FORM, "ort", "Zinnowitz", Some("region=Usedom")),
            ("binz", FORM, "ort", "Binz", Some("region=Rügen")),
            ("binz", COOP, "objects.title", "Binz Seebrücke", None),
        ]
    );
    assert_eq!(hits[2].provenance.as_deref(), Some("summarizer"));
    let _ = f.form;
}

#[test]
fn search_folds_case_and_diacritics_and_takes_prefixes() {
    let f = fixture();
    let values = |term: &str| -> Vec<String> {
        output::search(&f.store, &[term.to_string()])
            .unwrap()
            .into_iter()
            .map(|h| h.value)
            .collect()
    };
    assert_eq!(values("RUGEN"), ["Rügen"]);
    assert_eq!(values("hotel a*"), ["Hotel Arkona"]);
    assert_eq!(values("Hotel"), ["Hotel Arkona", "Hotel Ostseeblick"]);
    assert!(values("Rostock").is_empty());
    // FTS5 syntax in a term is taken literally, never an error.
    assert!(values("\"OR (").is_empty());
    assert!(values("NEAR(a b)").is_empty());
    assert!(values("  ").is_empty());
}

#[test]
fn hits_print_as_an_aligned_table() {
    let f = fixture();
    let hits = output::search(&f.store, &["Öhe".to_string()]).unwrap();
    let mut out = Vec::new();
    output::write_hits(&hits, &mut out).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "TERM  SOURCE                            ATTRIBUTE  VALUE  QUERY\n\
         Öhe   http://127.0.0.1:8080/cityworld/  ort        Öhe    region=Rügen\n"
    );
}

#[test]
fn a_source_with_a_name_soif_forbids_does_not_stop_the_export() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("gather.sqlite")).unwrap();
    let mut ids = Vec::new();
    for url in [
        "http://a.test/form",
        "http://b.test/form",
        "http://c.test/form",
    ] {
        ids.push(
            store
                .upsert_source(&SourceInfo {
                    url: url.into(),
                    kind: SourceKind::Database,
                    title: None,
                    description: None,
                    keywords: None,
                    text: None,
                })
                .unwrap(),
        );
    }
    // As a database written before attribute names were checked holds them.
    let bad: IndexFragment = [("x{3}:\tevil", "v"), ("a b", "w")].into_iter().collect();
    store.record_values(ids[1], None, &bad).unwrap();
    for id in [ids[0], ids[2]] {
        let good: IndexFragment = [("ort", "Binz")].into_iter().collect();
        store.record_values(id, None, &good).unwrap();
    }
    let mut out = Vec::new();
    output::export_soif(&store, &mut out, None).unwrap();
    let objects = soif::parse(&out).unwrap();
    assert_eq!(objects.len(), 3);
    assert_eq!(objects[1].get("DB.x_3_:_evil"), Some(&b"v"[..]));
    assert_eq!(objects[1].get("DB.a_b"), Some(&b"w"[..]));
    assert_eq!(objects[2].get("DB.ort"), Some(&b"Binz"[..]));
}

#[test]
fn ordinary_pages_are_found_by_their_text_and_exported_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("gather.sqlite")).unwrap();
    let info = SourceInfo {
        url: "http://127.0.0.1/cityworld/strand.html".into(),
        kind: SourceKind::Page,
        title: Some("Strände".into()),
        description: None,
        keywords: None,
        text: Some("Strandkorbvermietung am Südstrand von Göhren, täglich ab 9 Uhr".into()),
    };
    store.upsert_source(&info).unwrap();
    let hits = output::search(&store, &["sudstrand".to_string()]).unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0].attribute, gather::store::TEXT_ATTRIBUTE);
    assert!(hits[0].value.contains("Südstrand"), "{}", hits[0].value);
    // A changed text is searched as it is now.
    store
        .upsert_source(&SourceInfo {
            text: Some("Fahrradverleih in Baabe".into()),
            ..info
        })
        .unwrap();
    assert!(output::search(&store, &["Südstrand".to_string()])
        .unwrap()
        .is_empty());
    assert_eq!(
        output::search(&store, &["baabe".to_string()])
            .unwrap()
            .len(),
        1
    );
    let mut out = Vec::new();
    output::export_json(&store, &mut out, None).unwrap();
    let line: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(line["text"], "Fahrradverleih in Baabe");
}

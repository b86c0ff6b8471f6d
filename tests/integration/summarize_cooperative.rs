//! The gatherer's side of the cooperative path, against a real summarizer on
//! 127.0.0.1.

use crate::support;

use std::sync::{Arc, Mutex};

use axum::extract::{RawQuery, State};
use axum::routing::get;
use axum::Router;
use gather::fetch::{FetchConfig, Fetcher};
use gather::summarize::{cooperative, SummarizeError};
use url::Url;

const GOOD: &str = "@FILE { http://127.0.0.1/cityworld/\n\
hotel.ort{26}:\tBinz\nGöhren\nSellin\nZingst\n\
region.region{23}:\tFischland\nRügen\nUsedom\n\
}\n\
@FILE { http://127.0.0.1/cityworld/\n\
hotel.ort{15}:\tBinz\n  Prerow \n\n\
}\n";

/// "Göhren" is 7 bytes; this answer counts characters.
const BAD: &str = "@FILE { http://127.0.0.1/cityworld/\nhotel.ort{6}:\tGöhren\n}\n";

type Seen = Arc<Mutex<Vec<String>>>;

async fn summarizer(State(seen): State<Seen>, RawQuery(query): RawQuery) -> String {
    let query = query.unwrap_or_default();
    seen.lock().unwrap().push(query.clone());
    if query.contains("bad") {
        BAD.to_string()
    } else if query.contains("empty") {
        String::new()
    } else {
        GOOD.to_string()
    }
}

async fn serve() -> (Url, Seen) {
    let seen: Seen = Arc::default();
    let app = Router::new()
        .route("/cgi-bin/summarize", get(summarizer))
        .with_state(seen.clone());
    let addr = support::serve(app).await;
    let url = Url::parse(&format!("http://{addr}/cgi-bin/summarize")).unwrap();
    (url, seen)
}

fn fetcher() -> Fetcher {
    Fetcher::new(FetchConfig {
        respect_robots: false,
        retries: 0,
        ..FetchConfig::default()
    })
    .unwrap()
}

#[tokio::test]
async fn reads_the_values_of_every_object() {
    let (url, seen) = serve().await;
    let answer = cooperative(&fetcher(), &url, "/cityworld/city world.txt")
        .await
        .unwrap();
    assert_eq!(answer.response.body.len(), GOOD.len());
    assert_eq!(
        answer.fragment.attributes().collect::<Vec<_>>(),
        ["hotel.ort", "region.region"]
    );
    assert_eq!(
        answer.fragment.values("hotel.ort"),
        ["Binz", "Göhren", "Sellin", "Zingst", "Prerow"]
    );
    assert_eq!(
        answer.fragment.values("region.region"),
        ["Fischland", "Rügen", "Usedom"]
    );
    assert_eq!(
        seen.lock().unwrap().as_slice(),
        ["config=%2Fcityworld%2Fcity+world.txt"]
    );
}

#[tokio::test]
async fn a_malformed_answer_names_the_offset() {
    let (url, _) = serve().await;
    let err = cooperative(&fetcher(), &url, "bad.txt").await.unwrap_err();
    match &err {
        SummarizeError::Soif { url, source } => {
            assert!(url.ends_with("/cgi-bin/summarize?config=bad.txt"), "{url}");
            // Right after the 6 bytes "Göhre": the 'n' where the newline should be.
            assert_eq!(source.span.offset, 56);
            assert!(matches!(
                source.kind,
                gather::soif::SoifErrorKind::ExpectedNewlineAfterValue {
                    found: Some(b'n'),
                    ..
                }
            ));
        }
        other => panic!("expected a SOIF error, got {other:?}"),
    }
    assert!(err.to_string().contains("byte 56"), "{err}");
}

#[tokio::test]
async fn an_empty_answer_is_an_error() {
    let (url, _) = serve().await;
    let err = cooperative(&fetcher(), &url, "empty").await.unwrap_err();
    assert!(matches!(err, SummarizeError::NoObject { .. }), "{err}");
}

#[tokio::test]
async fn an_http_error_is_reported() {
    let (mut url, _) = serve().await;
    url.set_path("/nowhere");
    let err = cooperative(&fetcher(), &url, "x").await.unwrap_err();
    assert!(matches!(err, SummarizeError::Fetch(_)), "{err}");
    assert!(err.to_string().contains("404"), "{err}");
}

/// A form page naming the summarizer and its configuration file.
async fn form_page(config: &'static str) -> axum::response::Html<String> {
    axum::response::Html(format!(
        r#"<html><head><title>CityWorld - Hotels und Pensionen</title>
<meta name="description" content="Hotelführer M-V">
<meta name="keywords" content="Hotel, Zimmer">
<meta name="DB.Summarizer" content="/cgi-bin/summarize">
<meta name="DB.ConfigFile" content="{config}">
</head><body><form action="/cgi-bin/auswahl.pl"><input name="ort"></form></body></html>"#
    ))
}

async fn serve_with_form() -> (Url, Url, Seen) {
    let seen: Seen = Arc::default();
    let app = Router::new()
        .route("/cgi-bin/summarize", get(summarizer))
        .route("/cityworld/", get(|| form_page("/cityworld.DBContent")))
        .route("/bad/", get(|| form_page("/bad.DBContent")))
        .with_state(seen.clone());
    let addr = support::serve(app).await;
    let base = Url::parse(&format!("http://{addr}/")).unwrap();
    (
        base.join("cityworld/").unwrap(),
        base.join("cgi-bin/summarize").unwrap(),
        seen,
    )
}

async fn gather_into(start: &Url, db: &std::path::Path) -> gather::gatherer::Report {
    let options = gather::gatherer::Options {
        db: db.to_path_buf(),
        fetch: FetchConfig {
            respect_robots: false,
            retries: 0,
            ..FetchConfig::default()
        },
        progress: None,
        ..gather::gatherer::Options::default()
    };
    gather::gatherer::gather(&[gather::gatherer::Start::Url(start.clone())], &options)
        .await
        .unwrap()
}

#[tokio::test]
async fn the_gatherer_stores_the_answer_with_the_form() {
    let (form, url, _) = serve_with_form().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let report = gather_into(&form, &db).await;
    assert_eq!(report.sources.len(), 1);
    assert_eq!(report.sources[0].new_values, 8);
    let store = gather::store::Store::open(&db).unwrap();
    let sources = store.sources().unwrap();
    assert_eq!(sources.len(), 1);
    assert_eq!(sources[0].info.url, form.as_str());
    assert_eq!(sources[0].info.kind, gather::store::SourceKind::Cooperative);
    assert_eq!(
        sources[0].info.title.as_deref(),
        Some("CityWorld - Hotels und Pensionen")
    );
    // The form page and the summarizer's answer are the source's pages.
    let form_bytes = form_page("/cityworld.DBContent").await.0.len();
    let stats = store.stats(sources[0].id).unwrap();
    assert_eq!(
        (stats.pages, stats.bytes),
        (2, (GOOD.len() + form_bytes) as u64)
    );
    let values = store.values(sources[0].id).unwrap();
    assert_eq!(values["region.region"], ["Fischland", "Rügen", "Usedom"]);
    let hits = gather::output::search(&store, &["Prerow".to_string()]).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(
        hits[0].provenance.as_deref(),
        Some(format!("{url}?config=%2Fcityworld.DBContent").as_str())
    );

    let mut out = Vec::new();
    gather::output::export_soif(&store, &mut out, None).unwrap();
    let objects = gather::soif::parse(&out).unwrap();
    assert_eq!(
        objects[0].get("DB.hotel.ort").unwrap(),
        "Binz\nGöhren\nPrerow\nSellin\nZingst".as_bytes()
    );
}

#[tokio::test]
async fn the_gatherer_stores_nothing_from_a_malformed_answer() {
    let (form, _, _) = serve_with_form().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let report = gather_into(&form.join("/bad/").unwrap(), &db).await;
    assert_eq!(report.sources.len(), 1);
    assert_eq!(report.sources[0].queries_failed, 1);
    assert!(
        report.sources[0].failures[0].contains("malformed SOIF"),
        "{:?}",
        report.sources[0].failures
    );
    let store = gather::store::Store::open(&db).unwrap();
    assert!(store.sources().unwrap().is_empty());
}

//! The gatherer's side of the cooperative path, against a real summarizer on
//! 127.0.0.1.

mod support;

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
    assert_eq!(answer.bytes, GOOD.len() as u64);
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
            assert_eq!(source.offset, 56);
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

fn form_info() -> gather::store::SourceInfo {
    gather::store::SourceInfo {
        url: "http://127.0.0.1/cityworld/auswahl.pl".into(),
        kind: gather::store::SourceKind::Database,
        title: Some("CityWorld - Hotels und Pensionen".into()),
        description: Some("Hotelführer M-V".into()),
        keywords: Some("Hotel, Zimmer".into()),
        text: None,
    }
}

#[tokio::test]
async fn gather_cooperative_stores_the_answer_with_the_form() {
    let (url, _) = serve().await;
    let dir = tempfile::tempdir().unwrap();
    let mut store = gather::store::Store::open(&dir.path().join("g.sqlite")).unwrap();
    let summary = gather::summarize::gather_cooperative(
        &fetcher(),
        &mut store,
        &form_info(),
        &url,
        "/cityworld.DBContent",
    )
    .await
    .unwrap();
    assert_eq!((summary.new_values, summary.values), (8, 8));
    let sources = store.sources().unwrap();
    assert_eq!(sources.len(), 1);
    assert_eq!(sources[0].info.kind, gather::store::SourceKind::Cooperative);
    assert_eq!(sources[0].info.title, form_info().title);
    let stats = store.stats(summary.source).unwrap();
    assert_eq!((stats.pages, stats.bytes), (1, GOOD.len() as u64));
    let values = store.values(summary.source).unwrap();
    assert_eq!(values["region.region"], ["Fischland", "Rügen", "Usedom"]);
    let hits = gather::output::search(&store, &["Prerow".to_string()]).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(
        hits[0].provenance.as_deref(),
        Some(format!("{url}?config=%2Fcityworld.DBContent").as_str())
    );

    let mut out = Vec::new();
    gather::output::export_soif(&store, &mut out).unwrap();
    let objects = gather::summarize::soif::parse(&out).unwrap();
    assert_eq!(
        objects[0].get("DB.hotel.ort").unwrap(),
        "Binz\nGöhren\nPrerow\nSellin\nZingst".as_bytes()
    );
}

#[tokio::test]
async fn gather_cooperative_stores_nothing_from_a_malformed_answer() {
    let (url, _) = serve().await;
    let dir = tempfile::tempdir().unwrap();
    let mut store = gather::store::Store::open(&dir.path().join("g.sqlite")).unwrap();
    let err =
        gather::summarize::gather_cooperative(&fetcher(), &mut store, &form_info(), &url, "bad")
            .await
            .unwrap_err();
    assert!(matches!(err, SummarizeError::Soif { .. }), "{err}");
    assert!(store.sources().unwrap().is_empty());
}

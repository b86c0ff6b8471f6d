//! Sources against real HTTP servers on 127.0.0.1: meta tags, a
//! configuration file behind Basic auth, POST and ISO-8859-1 forms, specs,
//! cooperative providers; and the `gather plan/check/spec` binary.

use crate::support;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::process::Output;
use std::sync::{Arc, Mutex};

use axum::body::{to_bytes, Body};
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use gather::fetch::Method;
use gather::fetch::{FetchConfig, Fetcher};
use gather::metadata::ResultKind;
use gather::source::{self, discover, load, Discovery, Limits, Source, SourceError, Start};

/// What a test server answers at one path.
#[derive(Clone)]
enum Reply {
    Page(&'static str, Vec<u8>),
    Protected {
        basic: String,
        content_type: &'static str,
        body: Vec<u8>,
    },
    Redirect(String),
}

/// One request a test server received.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    target: String,
    authorization: Option<String>,
    body: Vec<u8>,
}

#[derive(Default)]
struct Site {
    pages: Mutex<HashMap<String, Reply>>,
    seen: Mutex<Vec<Seen>>,
}

struct Server {
    addr: SocketAddr,
    site: Arc<Site>,
}

impl Server {
    async fn start() -> Server {
        let site = Arc::new(Site::default());
        let app = axum::Router::new()
            .fallback(answer)
            .with_state(site.clone());
        let addr = support::serve(app).await;
        Server { addr, site }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    fn authority(&self) -> String {
        self.addr.to_string()
    }

    fn page(&self, path: &str, html: &str) {
        self.put(
            path,
            Reply::Page("text/html; charset=utf-8", html.as_bytes().to_vec()),
        );
    }

    fn put(&self, path: &str, reply: Reply) {
        self.site
            .pages
            .lock()
            .unwrap()
            .insert(path.to_string(), reply);
    }

    fn seen(&self) -> Vec<Seen> {
        self.site.seen.lock().unwrap().clone()
    }
}

async fn answer(State(site): State<Arc<Site>>, req: Request) -> Response {
    let method = req.method().to_string();
    let target = req.uri().to_string();
    let path = req.uri().path().to_string();
    let authorization = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let body = to_bytes(req.into_body(), 1 << 20)
        .await
        .unwrap_or_default()
        .to_vec();
    site.seen.lock().unwrap().push(Seen {
        method,
        target,
        authorization: authorization.clone(),
        body,
    });
    let reply = site.pages.lock().unwrap().get(&path).cloned();
    match reply {
        None => StatusCode::NOT_FOUND.into_response(),
        Some(Reply::Page(ct, body)) => {
            ([(header::CONTENT_TYPE, ct)], Body::from(body)).into_response()
        }
        Some(Reply::Redirect(to)) => (StatusCode::FOUND, [(header::LOCATION, to)]).into_response(),
        Some(Reply::Protected {
            basic,
            content_type,
            body,
        }) => {
            if authorization.as_deref() == Some(basic_header(&basic).as_str()) {
                ([(header::CONTENT_TYPE, content_type)], Body::from(body)).into_response()
            } else {
                (
                    StatusCode::UNAUTHORIZED,
                    [(header::WWW_AUTHENTICATE, "Basic realm=\"gatherers\"")],
                )
                    .into_response()
            }
        }
    }
}

/// The `Authorization` value a client sends for `user:pass`.
fn basic_header(userpass: &str) -> String {
    let (user, pass) = userpass.split_once(':').unwrap();
    let req = reqwest::Client::new()
        .get("http://127.0.0.1/")
        .basic_auth(user, Some(pass))
        .build()
        .unwrap();
    req.headers()[header::AUTHORIZATION.as_str()]
        .to_str()
        .unwrap()
        .to_string()
}

fn fetcher(auth: &[String]) -> Fetcher {
    let mut config = FetchConfig {
        retries: 0,
        respect_robots: false,
        ..FetchConfig::default()
    };
    for a in auth {
        config.credentials.add_spec(a).unwrap();
    }
    Fetcher::new(config).unwrap()
}

const FORM: &str = r#"<form action="/cgi-bin/auswahl.pl">
<table><tr><td>Region:</td><td>
<input type="radio" name="region" value="Fischland" checked>Fischland
<input type="radio" name="region" value="Rügen">Rügen
<input type="radio" name="region" value="Usedom">Usedom</td></tr>
<tr><td>Ort</td><td><input name="ort"></td></tr>
<tr><td>Zimmerpreis</td><td><select name="preis"><option value="">egal<option value="50">bis 50 DM<option value="100">bis 100 DM</select></td></tr>
</table><input type="submit" value="Suchen"></form>"#;

fn page_with(meta: &str) -> String {
    format!("<html><head><title>CityWorld - Hotels und Pensionen</title>\n<meta name=\"description\" content=\"Hotelführer M-V\">\n{meta}\n</head><body><h1>Hotels</h1>{FORM}</body></html>")
}

const CITYWORLD_1: &str = r##"<META NAME="DB.QueryElement" CONTENT="region">
<META NAME="DB.Result.region" CONTENT="Fischland, Rügen, Usedom">
<META NAME="DB.Result.ort" CONTENT='html.body->table[1].tr[i:*].td[1].txt
  where html.body->table[1].tr[i].td[1].font.getAttr(color) = "#FF8000"'>
<META NAME="DB.Result.name" CONTENT='html.body->table[1].tr[j:*].td[1].b.txt
  where html.body->table[1].tr[j].td[0].small.input.getAttr(name) = "hotel_id"'>
<META NAME="DB.Navigation" CONTENT="NO">"##;

const CITYWORLD_2: &str = r##"<META NAME="DB.QueryElement" CONTENT="region">
<META NAME="DB.Result.region" CONTENT="html.body->A[i]->pcdata[1].txt
  where html.body->A[i].getAttr(name) = 'Seitenanfang'">
<META NAME="DB.Result" CONTENT="html.body->table[1].">
<META NAME="DB.Result.ort" CONTENT="tr[j:*].td[1].txt
  where tr[j].td[1].font.getAttr(color) = '#FF8000'">
<META NAME="DB.Result.name" CONTENT="tr[k:*].td[1].b.txt
  where tr[k].td[0].small.input.getAttr(name) = 'hotel_id'">
<META NAME="DB.Navigation" CONTENT="NO">"##;

/// The source a spec file describes, loaded as `gather` and `plan` load it:
/// the spec read first, its credentials added to the fetcher's.
async fn from_spec(
    path: &std::path::Path,
    f: &Fetcher,
    limits: &Limits,
) -> Result<Box<Source>, SourceError> {
    let start = Start::spec(path)?;
    let credentials = source::credentials(std::slice::from_ref(&start), &f.config().credentials)?;
    let own;
    let f = if credentials == f.config().credentials {
        f
    } else {
        own = Fetcher::new(FetchConfig {
            credentials,
            ..f.config().clone()
        })
        .unwrap();
        &own
    };
    match load(&start, f, limits).await? {
        Discovery::Database(s) => Ok(s),
        other => panic!("a spec gives a database source, not {other:?}"),
    }
}

async fn database(url: &str, f: &Fetcher, limits: Limits) -> Result<Box<Source>, SourceError> {
    match discover(&url.parse().unwrap(), f, &limits).await? {
        Discovery::Database(s) => Ok(s),
        Discovery::Cooperative(c) => panic!("cooperative: {c:?}"),
        Discovery::Ordinary(r, _) => panic!("ordinary: {}", r.url),
    }
}

#[tokio::test]
async fn both_cityworld_meta_tag_sets_give_a_plan_over_the_regions() {
    let s = Server::start().await;
    s.page("/v1.html", &page_with(CITYWORLD_1));
    s.page("/v2.html", &page_with(CITYWORLD_2));
    let f = fetcher(&[]);
    for path in ["/v1.html", "/v2.html"] {
        let src = database(&s.url(path), &f, Limits::default()).await.unwrap();
        assert_eq!(
            src.title.as_deref(),
            Some("CityWorld - Hotels und Pensionen")
        );
        assert_eq!(src.description.as_deref(), Some("Hotelführer M-V"));
        assert_eq!(src.metadata.navigation, Some(false));
        let attrs: Vec<_> = src
            .metadata
            .results
            .iter()
            .map(|r| r.attribute.as_str())
            .collect();
        assert_eq!(attrs, ["region", "ort", "name"]);
        assert_eq!(src.plan.len(), 3);
        let urls: Vec<String> = src
            .plan
            .queries()
            .map(|q| q.request.url.to_string())
            .collect();
        assert_eq!(
            urls[1],
            s.url("/cgi-bin/auswahl.pl?region=R%C3%BCgen&ort=&preis=")
        );
    }
    let v2 = database(&s.url("/v2.html"), &f, Limits::default())
        .await
        .unwrap();
    match &v2.metadata.results[1].kind {
        ResultKind::Rule(_) => {
            assert!(v2.metadata.rule_texts["ort"].starts_with("html.body->table[1].tr[j:*]"))
        }
        other => panic!("{other:?}"),
    }
    // Only the form pages were fetched, never a query.
    assert!(
        s.seen().iter().all(|r| r.target.ends_with(".html")),
        "{:?}",
        s.seen()
    );
}

const CONFIG: &str = "# CityWorld, for registered gatherers only\nQueryElements: region, preis\nDB.QueryElement.region: Fischland, Rügen\nMaxQueries: 5\nResult: html.body->table[1].\nResult.ort: tr[j:*].td[1].txt\n  where tr[j].td[1].font.getAttr(color) = '#FF8000'\n";

#[tokio::test]
async fn config_file_behind_basic_auth_gets_credentials_only_on_its_host() {
    let a = Server::start().await;
    let b = Server::start().await;
    a.page(
        "/form.html",
        &page_with("<meta name=\"DB.ConfigFile\" content=\"private/cityworld.txt\">\n<meta name=\"DB.MaxQueries\" content=\"50\">"),
    );
    a.put(
        "/private/cityworld.txt",
        Reply::Protected {
            basic: "gatherer:geheim".into(),
            content_type: "text/plain",
            body: CONFIG.as_bytes().to_vec(),
        },
    );
    // A second page whose config file moved to the other server.
    a.page(
        "/moved.html",
        &page_with("<meta name=\"DB.ConfigFile\" content=\"/old/cityworld.txt\">"),
    );
    a.put(
        "/old/cityworld.txt",
        Reply::Redirect(b.url("/cityworld.txt")),
    );
    b.put(
        "/cityworld.txt",
        Reply::Page("text/plain", CONFIG.as_bytes().to_vec()),
    );
    b.page("/form.html", &page_with(CITYWORLD_1));

    let f = fetcher(&[format!("{}=gatherer:geheim", a.authority())]);
    let src = database(&a.url("/form.html"), &f, Limits::default())
        .await
        .unwrap();
    // The file overrides the page: its MaxQueries, its query elements.
    assert_eq!(src.metadata.max_queries, Some(5));
    assert_eq!(src.metadata.query_elements, ["region", "preis"]);
    assert_eq!((src.plan.total(), src.plan.len()), (6, 5));
    assert!(src.plan.cut_short());
    match &src.metadata.results[0].kind {
        ResultKind::Rule(_) => {
            assert!(src.metadata.rule_texts["ort"].starts_with("html.body->table[1].tr[j:*]"))
        }
        other => panic!("{other:?}"),
    }
    let config_req = a
        .seen()
        .into_iter()
        .find(|r| r.target == "/private/cityworld.txt")
        .unwrap();
    assert!(config_req
        .authorization
        .is_some_and(|h| h.starts_with("Basic ")));

    // The redirect to the other server and a page there get no credentials.
    let moved = database(&a.url("/moved.html"), &f, Limits::default())
        .await
        .unwrap();
    assert_eq!(moved.metadata.max_queries, Some(5));
    database(&b.url("/form.html"), &f, Limits::default())
        .await
        .unwrap();
    let on_b = b.seen();
    assert_eq!(on_b.len(), 2, "{on_b:?}");
    assert!(on_b.iter().all(|r| r.authorization.is_none()), "{on_b:?}");

    // Without credentials the 401 is reported, with what to do.
    let err = database(&a.url("/form.html"), &fetcher(&[]), Limits::default())
        .await
        .unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("HTTP 401") && msg.contains("--auth"), "{msg}");
    assert!(err.is_bad_input());
}

#[tokio::test]
async fn post_form_and_iso_8859_1_form_encode_as_a_browser() {
    let s = Server::start().await;
    let latin1 = "<html><head><meta name=\"DB.QueryElement\" content=\"region\"></head><body>\
        <form method=\"post\" action=\"/suche\"><select name=\"region\"><option>Fischland<option>R\u{fc}gen</select>\
        <input type=\"hidden\" name=\"gru\u{df}\" value=\"\u{e4}\u{f6}\u{fc}\"><input type=\"submit\" name=\"los\" value=\"Los!\"></form></body></html>";
    let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(latin1);
    s.put(
        "/latin1.html",
        Reply::Page("text/html; charset=iso-8859-1", bytes.into_owned()),
    );
    s.put(
        "/suche",
        Reply::Page("text/html", b"<html>ok</html>".to_vec()),
    );
    let get_form = latin1.replace("method=\"post\" ", "");
    let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(&get_form);
    s.put(
        "/latin1-get.html",
        Reply::Page("text/html; charset=iso-8859-1", bytes.into_owned()),
    );

    let f = fetcher(&[]);
    let src = database(&s.url("/latin1.html"), &f, Limits::default())
        .await
        .unwrap();
    let q = src.plan.query(1).unwrap();
    assert_eq!(q.values, [("region".to_string(), "Rügen".to_string())]);
    assert_eq!(q.request.method, Method::Post);
    assert_eq!(
        q.request.body.as_deref(),
        Some(&b"region=R%FCgen&gru%DF=%E4%F6%FC&los=Los%21"[..])
    );
    // Sent, the server receives exactly those bytes.
    f.fetch(&q.request).await.unwrap();
    let got = s.seen().into_iter().find(|r| r.target == "/suche").unwrap();
    assert_eq!(got.method, "POST");
    assert_eq!(got.body, b"region=R%FCgen&gru%DF=%E4%F6%FC&los=Los%21");

    let src = database(&s.url("/latin1-get.html"), &f, Limits::default())
        .await
        .unwrap();
    let q = src.plan.query(1).unwrap();
    f.fetch(&q.request).await.unwrap();
    let got = s
        .seen()
        .into_iter()
        .rfind(|r| r.target.starts_with("/suche"))
        .unwrap();
    assert_eq!(
        got.target,
        "/suche?region=R%FCgen&gru%DF=%E4%F6%FC&los=Los%21"
    );
}

#[tokio::test]
async fn a_generated_spec_gives_the_same_plan_as_the_metadata() {
    let s = Server::start().await;
    s.page(
        "/form.html",
        &page_with(&format!(
            "{CITYWORLD_2}\n<meta name=\"DB.QueryElements\" content=\"region, ort\">\n<meta name=\"DB.QueryElement.ort\" content=\"/[A-C]{{1,2}}%/\">\n<meta name=\"DB.ConfigFile\" content=\"c.txt\">"
        )),
    );
    s.put(
        "/c.txt",
        Reply::Page(
            "text/plain",
            b"DB.MaxQueries: 30\nDB.Result.stars: *, **, \"***, superior\"\n".to_vec(),
        ),
    );
    let f = fetcher(&[]);
    let src = database(&s.url("/form.html"), &f, Limits::default())
        .await
        .unwrap();
    assert_eq!((src.plan.total(), src.plan.len()), (36, 30));
    let yaml = src.spec_yaml();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cityworld.yaml");
    std::fs::write(&path, &yaml).unwrap();
    let from = from_spec(&path, &f, &Limits::default()).await.unwrap();
    let keys = |s: &Source| {
        s.plan
            .queries()
            .map(|q| (q.values.clone(), q.key()))
            .collect::<Vec<_>>()
    };
    assert_eq!(keys(&from), keys(&src), "{yaml}");
    assert_eq!(
        format!("{:?}", from.metadata.results),
        format!("{:?}", src.metadata.results)
    );
    assert_eq!(from.metadata.navigation, src.metadata.navigation);
    assert_eq!(from.plan.total(), 36);
}

#[tokio::test]
async fn cooperative_providers_by_meta_tags_and_by_dbcontent() {
    let s = Server::start().await;
    s.page(
        "/hotels.html",
        "<html><head><title>CityWorld</title><META NAME=\"DB.Summarizer\" CONTENT=\"/cgi-bin/Ora-DB.pl\">\n<META NAME=\"DB.ConfigFile\" CONTENT=\"/cgi-bin/cityworld.txt\"></head><body></body></html>",
    );
    s.put(
        "/cityworld.DBContent",
        Reply::Page(
            "text/plain",
            format!("Summarizer:    {}\nURL:           /cgi-bin/auswahl.pl\nTitle:        CityWorld - Hotels und Pensionen\nKeywords:     Hotel, Zimmer\nDatabase:     Cityworld\nTable:        hotel\nAttribute:    name\n", s.url("/cgi-bin/Ora-DB.pl")).into_bytes(),
        ),
    );
    s.page(
        "/plain.html",
        "<html><head><title>Nothing</title></head><body>hi</body></html>",
    );
    let f = fetcher(&[]);
    let limits = Limits::default();
    match discover(&s.url("/hotels.html").parse().unwrap(), &f, &limits)
        .await
        .unwrap()
    {
        Discovery::Cooperative(c) => {
            assert_eq!(c.summarizer.as_str(), s.url("/cgi-bin/Ora-DB.pl"));
            assert_eq!(c.config_path, "/cgi-bin/cityworld.txt");
            assert_eq!(c.url.as_str(), s.url("/hotels.html"));
            assert_eq!(c.title.as_deref(), Some("CityWorld"));
        }
        other => panic!("{other:?}"),
    }
    match discover(&s.url("/cityworld.DBContent").parse().unwrap(), &f, &limits)
        .await
        .unwrap()
    {
        Discovery::Cooperative(c) => {
            assert_eq!(c.url.as_str(), s.url("/cgi-bin/auswahl.pl"));
            assert_eq!(c.config_path, "/cityworld.DBContent");
            assert_eq!(c.keywords.as_deref(), Some("Hotel, Zimmer"));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        discover(&s.url("/plain.html").parse().unwrap(), &f, &limits)
            .await
            .unwrap(),
        Discovery::Ordinary(..)
    ));
    s.put(
        "/broken.DBContent",
        Reply::Page(
            "text/plain",
            b"Summarizer: /cgi-bin/x.pl\nAttribute: name\n".to_vec(),
        ),
    );
    let err = discover(&s.url("/broken.DBContent").parse().unwrap(), &f, &limits)
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("broken.DBContent line 2: DBContent document: Attribute: before any Table:"),
        "{err}"
    );
    s.page(
        "/half.html",
        "<html><head><META NAME=\"DB.Summarizer\" CONTENT=\"/cgi-bin/Ora-DB.pl\"></head></html>",
    );
    let err = discover(&s.url("/half.html").parse().unwrap(), &f, &limits)
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("DB.Summarizer needs DB.ConfigFile"),
        "{err}"
    );
}

// ------------------------------------------------------------ the binary

async fn gather(args: Vec<String>) -> Output {
    tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_gather"))
            .args(&args)
            .env("RUST_LOG", "off")
            .output()
            .unwrap()
    })
    .await
    .unwrap()
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_check_and_spec_on_a_good_page() {
    let s = Server::start().await;
    s.page(
        "/form.html",
        &page_with(&format!(
            "{CITYWORLD_1}\n<meta name=\"DB.QueryElements\" content=\"region, preis\">"
        )),
    );
    let url = s.url("/form.html");
    let o = gather(vec![
        "plan".into(),
        url.clone(),
        "--max-queries".into(),
        "7".into(),
    ])
    .await;
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(
        out.contains("queries: 7 (--max-queries 7 cuts the plan short: 7 of 9 queries"),
        "{out}"
    );
    assert!(out.contains("#0 GET") && out.contains("#6 GET"), "{out}");
    assert!(out.contains("region=Fischland&ort=&preis="), "{out}");
    assert!(out.contains("navigation: none (DB.Navigation NO"), "{out}");
    assert!(
        out.contains("radio group \"region\" label \"Region:\""),
        "{out}"
    );
    assert!(
        s.seen()
            .iter()
            .all(|r| r.target == "/form.html" || r.target == "/robots.txt"),
        "plan sends no query"
    );

    let o = gather(vec!["check".into(), url.clone()]).await;
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert!(text(&o).0.contains("ok:"));

    let o = gather(vec!["spec".into(), url.clone()]).await;
    let (yaml, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.yaml");
    std::fs::write(&path, &yaml).unwrap();
    let o = gather(vec![
        "plan".into(),
        "--spec".into(),
        path.display().to_string(),
    ])
    .await;
    let (out2, err2) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{yaml}\n{err2}");
    assert!(out2.contains("queries: 9"), "{out2}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_metadata_is_listed_with_positions_and_exit_2() {
    let s = Server::start().await;
    s.page(
        "/bad.html",
        &page_with(
            "<meta name=\"DB.QueryElements\" content=\"region, stadt, ort\">\n\
             <meta name=\"DB.QueryElemnt\" content=\"x\">\n\
             <meta name=\"DB.QueryElement.ort\" content=\"/[A-Z]+%/\">\n\
             <meta name=\"DB.Result.name\" content=\"html.body->table[1].tr[j:*].td[1].b\">",
        ),
    );
    s.page("/toobig.html", &page_with("<meta name=\"DB.QueryElement\" content=\"ort\">\n<meta name=\"DB.MaxQueries\" content=\"100\">\n<meta name=\"DB.QueryElement.ort\" content=\"/[A-Z]{2}%/\">"));
    s.page(
        "/missing.html",
        &page_with("<meta name=\"DB.ConfigFile\" content=\"nowhere.txt\">"),
    );
    s.page(
        "/locked.html",
        &page_with("<meta name=\"DB.ConfigFile\" content=\"locked.txt\">"),
    );
    s.put(
        "/locked.txt",
        Reply::Protected {
            basic: "u:p".into(),
            content_type: "text/plain",
            body: b"QueryElement: region".to_vec(),
        },
    );

    let o = gather(vec!["check".into(), s.url("/bad.html")]).await;
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("4 problems"), "{err}");
    assert!(
        err.contains("line 4 (meta tag): unknown name \"DB.QueryElemnt\""),
        "{err}"
    );
    assert!(
        err.contains("unbounded repetition '+' at column 6"),
        "{err}"
    );
    assert!(
        err.contains("DB.Result.name: the rule does not parse"),
        "{err}"
    );
    assert!(
        err.contains("query element \"stadt\" is not an element of the form"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");

    for (path, expected) in [
        (
            "/toobig.html",
            "expands to 676 values, more than the limit DB.MaxQueries 100",
        ),
        ("/missing.html", "answered HTTP 404 (not found)"),
        ("/locked.html", "answered HTTP 401 (authentication required"),
    ] {
        for cmd in ["check", "plan"] {
            let o = gather(vec![cmd.into(), s.url(path)]).await;
            let (_, err) = text(&o);
            assert_eq!(o.status.code(), Some(2), "{cmd} {path}: {err}");
            assert!(err.contains(expected), "{cmd} {path}: {err}");
        }
    }
    let o = gather(vec![
        "check".into(),
        s.url("/locked.html"),
        "--auth".into(),
        format!("{}=u:p", s.authority()),
    ])
    .await;
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));

    // The same credentials from a netrc-style file, or from GATHER_AUTH,
    // stay out of the process list.
    let netrc_dir = tempfile::tempdir().unwrap();
    let netrc = netrc_dir.path().join("netrc");
    std::fs::write(
        &netrc,
        format!(
            "# for the locked form\nmachine {}\n  login u\n  password p\n",
            s.authority()
        ),
    )
    .unwrap();
    let check_with_netrc = || {
        gather(vec![
            "check".into(),
            s.url("/locked.html"),
            "--netrc".into(),
            netrc.display().to_string(),
        ])
    };
    let o = check_with_netrc().await;
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let env_auth = format!("{}=u:p", s.authority());
    let locked = s.url("/locked.html");
    let o = tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_gather"))
            .args(["check", &locked])
            .env("GATHER_AUTH", &env_auth)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    std::fs::write(&netrc, "default login u password p\n").unwrap();
    let o = check_with_netrc().await;
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("every host"), "{:?}", text(&o));

    // A spec with a problem names its key; a page without metadata is reported.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.yaml");
    std::fs::write(
        &path,
        format!(
            "url: {}\nquery_element: region\nmax_pages: many\ndomains:\n  region: /x*/\n",
            s.url("/bad.html")
        ),
    )
    .unwrap();
    s.page("/plain.html", "<html><body>no metadata</body></html>");
    let o = gather(vec![
        "check".into(),
        "--spec".into(),
        path.display().to_string(),
        s.url("/plain.html"),
    ])
    .await;
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "bad.yaml key domains.region: DB.QueryElement.region: /x*/ has an unbounded repetition"
        ),
        "{err}"
    );
    // A value of the wrong type joins the same list of problems.
    assert!(err.contains("bad.yaml: 2 problems"), "{err}");
    assert!(
        err.contains(
            "key max_pages: string \"many\", expected a whole number (0, 1, 2, …) (line 3)"
        ),
        "{err}"
    );
    assert!(err.contains("no DB.* metadata"), "{err}");
}

#[tokio::test]
async fn the_form_with_the_query_elements_is_chosen_and_a_spec_can_name_one() {
    let s = Server::start().await;
    let html = page_with(CITYWORLD_1).replace(
        "<h1>Hotels</h1>",
        "<h1>Hotels</h1><form name=\"site\" action=\"/sitesearch\"><input name=\"q\"></form>",
    );
    s.page("/two.html", &html);
    let f = fetcher(&[]);
    let src = database(&s.url("/two.html"), &f, Limits::default())
        .await
        .unwrap();
    assert_eq!(src.form.as_ref().unwrap().index, 1);
    assert_eq!(src.plan.len(), 3);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("two.yaml");
    std::fs::write(
        &path,
        format!(
            "url: {}\nform: site\nquery_element: region\n",
            s.url("/two.html")
        ),
    )
    .unwrap();
    let err = from_spec(&path, &f, &Limits::default())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("query element \"region\" is not an element of the form (its elements: q)"),
        "{err}"
    );
    std::fs::write(
        &path,
        format!(
            "url: {}\nform: 1\nquery_element: region\n",
            s.url("/two.html")
        ),
    )
    .unwrap();
    let src = from_spec(
        &path,
        &f,
        &Limits {
            max_queries: Some(2),
            ..Limits::default()
        },
    )
    .await
    .unwrap();
    assert_eq!((src.plan.len(), src.plan.total()), (2, 3));
    let bad = "form: 7\nresults:\n  - attribute: a\nmax_queries: 5\ndomains:\n  q: /[a-z]/\n";
    std::fs::write(&path, format!("url: {}\n{bad}", s.url("/two.html"))).unwrap();
    let err = from_spec(&path, &f, &Limits::default())
        .await
        .unwrap_err()
        .to_string();
    // Every problem of the spec is listed, not only the first.
    assert!(err.contains("3 problems"), "{err}");
    assert!(
        err.contains("key results[0]: an attribute needs 'rule:' or 'values:'"),
        "{err}"
    );
    assert!(err.contains("there is no form #7"), "{err}");
    assert!(
        err.contains("DB.QueryElement.q gives values for an element that is not a query element"),
        "{err}"
    );
}

/// A form page whose configuration file answers only to `spec:user`, and a
/// spec for it in `dir` with the `auth:` or `auth_env:` line `auth` writes.
async fn site_with_protected_config(
    dir: &std::path::Path,
    auth: impl FnOnce(&Server) -> String,
) -> (Server, std::path::PathBuf) {
    let a = Server::start().await;
    a.page("/form.html", &page_with(""));
    a.put(
        "/cityworld.txt",
        Reply::Protected {
            basic: "spec:user".into(),
            content_type: "text/plain",
            body: b"QueryElement: preis\nResult.ort: html.body->table[1].tr[j:*].td[1].txt where html.body->table[1].tr[j].td[1].font.getAttr(color) = '#FF8000'\n".to_vec(),
        },
    );
    let path = dir.join("auth.yaml");
    std::fs::write(
        &path,
        format!(
            "url: {}\n{}\nconfig_file: /cityworld.txt\n",
            a.url("/form.html"),
            auth(&a)
        ),
    )
    .unwrap();
    (a, path)
}

#[tokio::test]
async fn a_spec_names_an_environment_variable_with_credentials() {
    let dir = tempfile::tempdir().unwrap();
    let var = format!("GATHER_TEST_AUTH_{}", std::process::id());
    let (a, path) = site_with_protected_config(dir.path(), |_| format!("auth_env: {var}")).await;
    std::env::set_var(&var, format!("{}=spec:user", a.authority()));
    let src = from_spec(&path, &fetcher(&[]), &Limits::default())
        .await
        .unwrap();
    assert_eq!(src.metadata.query_elements, ["preis"]);
    assert_eq!(src.plan.len(), 3);
    assert!(a.seen().iter().all(|r| r.authorization.is_some()));
}

#[tokio::test]
async fn a_spec_whose_credentials_the_gatherer_holds_is_fetched_by_the_gatherer() {
    let dir = tempfile::tempdir().unwrap();
    let (a, path) = site_with_protected_config(dir.path(), |a| {
        format!("auth: [\"{}=spec:user\"]", a.authority())
    })
    .await;
    let f = fetcher(&[format!("{}=spec:user", a.authority())]);
    let src = from_spec(&path, &f, &Limits::default()).await.unwrap();
    assert_eq!(src.metadata.query_elements, ["preis"]);
    // The form page and the configuration file count among the gatherer's
    // requests: one fetcher, one politeness state per host.
    assert!(f.stats().requests >= 2, "{:?}", f.stats());
    assert!(a.seen().iter().all(|r| r.authorization.is_some()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_of_a_billion_queries_is_shown_without_building_them() {
    let s = Server::start().await;
    s.page(
        "/big.html",
        "<html><head><meta name=\"DB.QueryElement\" content=\"nr\"><meta name=\"DB.QueryElement.nr\" content=\"/[0-9]{9}/\"></head>\
         <body><form action=\"/q\" method=\"post\"><input name=\"nr\"></form></body></html>",
    );
    let started = std::time::Instant::now();
    let o = gather(vec![
        "plan".into(),
        s.url("/big.html"),
        "--max-queries".into(),
        "1000000000".into(),
    ])
    .await;
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(out.contains("queries: 1000000000\n"), "{out}");
    assert!(
        out.contains("#999999999 POST") && out.contains("body: nr=999999999"),
        "{out}"
    );
    assert!(out.contains("… 999999994 more …"), "{out}");
    assert!(started.elapsed() < std::time::Duration::from_secs(20));

    // Without --max-queries the default limit cuts it, and check warns.
    let o = gather(vec!["check".into(), s.url("/big.html")]).await;
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        out.contains("warning: the default limit of 10000 queries per source (raise it with --max-queries) cuts the plan short: 10000 of 1000000000 queries"),
        "{out}"
    );
}

#[tokio::test]
async fn a_domain_read_from_another_page_gives_the_queries() {
    let s = Server::start().await;
    s.page(
        "/orte.html",
        "<html><body><h2>Orte</h2><ul><li>Binz<li>Sellin<li> Binz <li>Göhren</ul></body></html>",
    );
    let meta = "<META NAME=\"DB.QueryElement\" CONTENT=\"ort\">\n\
                <META NAME=\"DB.QueryElement.ort\" CONTENT=\"@orte.html html.body.ul[0].li[*].txt\">\n\
                <META NAME=\"DB.Result.name\" CONTENT=\"html.body->b[*].txt\">";
    s.page("/form.html", &page_with(meta));
    let f = fetcher(&[]);
    let src = database(&s.url("/form.html"), &f, Limits::default())
        .await
        .unwrap();
    let values: Vec<String> = src.plan.queries().map(|q| q.values[0].1.clone()).collect();
    assert_eq!(values, ["Binz", "Sellin", "Göhren"]);
    assert!(src.fetched.iter().any(|r| r.url.path() == "/orte.html"));

    // A rule that yields nothing there, and a page that is not there, are
    // problems of the source, named by their meta tag.
    for (target, expected) in [
        ("orte.html html.body.ol[0].li[*].txt", "yields no value on"),
        ("fehlt.html html.body.ul[0].li[*].txt", "HTTP 404"),
    ] {
        let meta = format!(
            "<META NAME=\"DB.QueryElement\" CONTENT=\"ort\">\n\
             <META NAME=\"DB.QueryElement.ort\" CONTENT=\"@{target}\">"
        );
        s.page("/bad.html", &page_with(&meta));
        let err = database(&s.url("/bad.html"), &f, Limits::default())
            .await
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("DB.QueryElement.ort") && err.contains(expected),
            "{err}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_domain_page_on_another_host_is_fetched_only_when_the_user_allows_it() {
    // The provider's page names a page of another host (another port of
    // 127.0.0.1 stands in for an internal address).
    let provider = Server::start().await;
    let other = Server::start().await;
    other.page(
        "/orte.html",
        "<html><body><ul><li>Binz<li>Sellin</ul></body></html>",
    );
    let meta = format!(
        "<META NAME=\"DB.QueryElement\" CONTENT=\"ort\">\n\
         <META NAME=\"DB.QueryElement.ort\" CONTENT=\"@{} html.body.ul[0].li[*].txt\">\n\
         <META NAME=\"DB.Result.name\" CONTENT=\"html.body->b[*].txt\">",
        other.url("/orte.html")
    );
    provider.page("/form.html", &page_with(&meta));

    let o = gather(vec!["check".into(), provider.url("/form.html")]).await;
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    let all = format!("{out}{err}");
    assert!(
        all.contains("DB.QueryElement.ort")
            && all.contains("is on another host than the form page")
            && all.contains(&format!("--allow-host {}", other.authority())),
        "{all}"
    );
    assert!(other.seen().is_empty(), "{:?}", other.seen().len());

    // Allowed by the user, it gives the domain.
    let o = gather(vec![
        "check".into(),
        provider.url("/form.html"),
        "--allow-host".into(),
        other.authority(),
    ])
    .await;
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("ok: ") && out.contains("2 queries"), "{out}");
    assert!(other.seen().iter().any(|r| r.target == "/orte.html"));
}

//! Boilerplate removal on crawled ordinary pages (seeds 000 and 002): a
//! small news site served over HTTP, gathered with each method, and the
//! stored text and description read back through the JSON export.

use axum::response::Html;
use axum::routing::get;
use gather::boilerplate::Method;
use gather::gatherer::Start;

use crate::gathering;
use crate::support;

const ARTICLES: &[(&str, &str, &str)] = &[
    (
        "harbour",
        "New ferry timetable",
        "From Monday the ferry to the island leaves the harbour every forty minutes, \
         and the late boat waits for the last train from Stralsund.",
    ),
    (
        "market",
        "Fish market reopens",
        "After the storm damage was repaired, traders sell smoked herring and eel \
         again every Sunday morning on the restored quay.",
    ),
    (
        "regatta",
        "Summer regatta results",
        "Forty dinghies raced around three buoys; a crew from Greifswald won \
         both heats despite a broken tiller in the second.",
    ),
    (
        "lighthouse",
        "Lighthouse open to visitors",
        "The restored tower can be climbed on weekends, one hundred and twelve \
         steps up to a view across the whole bay.",
    ),
];

const MENU_WORDS: &[&str] = &["Weather forecast", "Contact the newsroom"];
const FOOTER: &str = "Copyright 2026 Baltic Coast News Ltd. Registered in Rostock";

fn layout(title: &str, content: &str) -> String {
    format!(
        "<!DOCTYPE html><html><head><title>{title}</title></head><body>\
         <header class=\"top\"><b>Baltic Coast News</b> daily from the coast</header>\
         <nav><ul>\
           <li><a href=\"/news/\">All news</a></li>\
           <li><a href=\"/news/harbour.html\">Harbour</a></li>\
           <li><a href=\"/news/market.html\">Market</a></li>\
           <li><a href=\"/news/regatta.html\">Regatta</a></li>\
           <li><a href=\"/news/lighthouse.html\">Lighthouse</a></li>\
           <li><a href=\"/weather.html\">Weather forecast</a></li>\
           <li><a href=\"/contact.html\">Contact the newsroom</a></li>\
         </ul></nav>\
         <main>{content}</main>\
         <footer><p>{FOOTER}</p></footer></body></html>"
    )
}

fn article(slug: &str) -> String {
    let (_, title, text) = ARTICLES
        .iter()
        .find(|a| a.0 == slug)
        .expect("known article");
    layout(title, &format!("<h1>{title}</h1><p>{text}</p>"))
}

fn index() -> String {
    let items: String = ARTICLES
        .iter()
        .map(|(slug, title, _)| format!("<li><a href=\"/news/{slug}.html\">{title}</a></li>"))
        .collect();
    layout(
        "All news",
        &format!("<h1>All news</h1><p>Today's stories from the harbour towns of the Baltic coast.</p><ul>{items}</ul>"),
    )
}

async fn news_site() -> std::net::SocketAddr {
    let mut router = axum::Router::new().route("/news/", get(|| async { Html(index()) }));
    for (slug, _, _) in ARTICLES {
        let page = article(slug);
        router = router.route(
            &format!("/news/{slug}.html"),
            get(move || {
                let page = page.clone();
                async move { Html(page) }
            }),
        );
    }
    support::serve(router).await
}

/// Gathers the news site with `method`; the stored text and description
/// of every article page.
async fn gathered(method: Option<Method>) -> Vec<(String, String, String)> {
    let addr = news_site().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let mut options = gathering::options(&db);
    options.fetch.respect_robots = false;
    options.boilerplate = method;
    let report = gathering::gather_url(&support::url(addr, "/news/"), &options).await;
    assert_eq!(report.ordinary_pages, 5, "report:\n{report}");
    ARTICLES
        .iter()
        .map(|(slug, _, _)| {
            let url = support::url(addr, &format!("/news/{slug}.html"));
            let line = gathering::export_line(&db, url.as_str()).expect("article stored");
            (
                slug.to_string(),
                line["text"].as_str().unwrap_or_default().to_string(),
                line["description"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

fn assert_main_content(method: Option<Method>, pages: &[(String, String, String)]) {
    for (slug, text, description) in pages {
        let (_, title, body) = ARTICLES.iter().find(|a| a.0 == slug).unwrap();
        assert!(
            text.contains(body),
            "{method:?} {slug}: article lost: {text}"
        );
        // The article method leaves the headline to the page's title.
        let article = matches!(method, None | Some(Method::Article));
        assert!(
            text.contains(title) != article,
            "{method:?} {slug}: title lost or kept: {text}"
        );
        for menu in MENU_WORDS {
            assert!(!text.contains(menu), "{method:?} {slug}: menu kept: {text}");
        }
        assert!(
            !text.contains(FOOTER),
            "{method:?} {slug}: footer kept: {text}"
        );
        assert!(
            !text.contains("daily from the coast"),
            "{method:?} {slug}: banner kept: {text}"
        );
        let first = if article { &body[..20] } else { *title };
        assert!(
            description.starts_with(first) && !description.contains("All news"),
            "{method:?} {slug}: description {description:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn article_is_the_default_and_keeps_the_articles_without_menu_and_footer() {
    assert_main_content(None, &gathered(None).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ntpc_keeps_the_articles_without_menu_and_footer() {
    assert_main_content(Some(Method::Ntpc), &gathered(Some(Method::Ntpc)).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lev_keeps_the_articles_without_menu_and_footer() {
    assert_main_content(Some(Method::Lev), &gathered(Some(Method::Lev)).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sst_keeps_the_articles_without_menu_and_footer() {
    assert_main_content(Some(Method::Sst), &gathered(Some(Method::Sst)).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn none_keeps_the_whole_text() {
    for (slug, text, description) in gathered(Some(Method::None)).await {
        assert!(
            text.contains(FOOTER) && text.contains(MENU_WORDS[0]),
            "{slug}: {text}"
        );
        assert!(description.is_empty(), "{slug}: {description}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_single_page_keeps_its_article_only() {
    let page = article("harbour");
    let addr = support::serve(axum::Router::new().route(
        "/only.html",
        get(move || {
            let page = page.clone();
            async move { Html(page) }
        }),
    ))
    .await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let mut options = gathering::options(&db);
    options.fetch.respect_robots = false;
    // The menu's links lead nowhere on this server: the crawl has one page.
    let url = support::url(addr, "/only.html");
    gather::gatherer::gather(&[Start::Url(url.clone())], &options)
        .await
        .unwrap();
    let line = gathering::export_line(&db, url.as_str()).expect("page stored");
    let text = line["text"].as_str().unwrap();
    assert!(text.contains(ARTICLES[0].2), "{text}");
    assert!(!text.contains(MENU_WORDS[1]), "{text}");
    assert!(!text.contains(FOOTER), "{text}");
    assert!(!text.contains("daily from the coast"), "{text}");
}

#[test]
fn an_unknown_method_is_bad_input() {
    let out = support::gather(&["--boilerplate", "magic", "http://127.0.0.1:9/"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        support::stderr(&out).contains("ntpc, lev, sst or none"),
        "{}",
        support::stderr(&out)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_sites_ordinary_pages_lose_banner_menu_and_footer() {
    let site = crate::support::demo_site(100).await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let mut options = gathering::options(&db);
    options.max_queries = Some(1);
    let report = gathering::gather_url(&site.base_url(), &options).await;
    assert_eq!(report.ordinary_pages, 3, "report:\n{report}");
    for (path, content) in [
        ("/about.html", "CityWorld wurde 1996 in Rostock gegründet"),
        ("/kontakt.html", "Telefon 0381/4 56 78 90"),
        ("/", "CityWorld ist Ihr Führer durch Mecklenburg-Vorpommern"),
    ] {
        let url = site.base_url().join(path).unwrap();
        let line = gathering::export_line(&db, url.as_str()).expect("page stored");
        let text = line["text"].as_str().unwrap();
        assert!(text.contains(content), "{path}: {text}");
        assert!(!text.contains("© 1999"), "{path}: footer kept: {text}");
        assert!(
            !text.contains("Hotels und Pensionen in Mecklenburg-Vorpommern"),
            "{path}: banner kept: {text}"
        );
        assert!(!text.contains("Startseite"), "{path}: menu kept: {text}");
    }
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_specs_boilerplate_applies_to_the_ordinary_pages_of_its_host() {
    let site = crate::support::demo_site(100).await;
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("hotels.yaml");
    let text = std::fs::read_to_string(crate::support::repo_path("specs/hotels.yaml"))
        .unwrap()
        .replace("http://127.0.0.1:8642/", site.base_url().as_str());
    std::fs::write(&spec, format!("{text}\nboilerplate: none\n")).unwrap();
    let about = site.base_url().join("/about.html").unwrap();
    let kontakt = site.base_url().join("/kontakt.html").unwrap();
    let text_of = |db: &std::path::Path, url: &url::Url| {
        let line = gathering::export_line(db, url.as_str()).expect("page stored");
        line["text"].as_str().unwrap().to_string()
    };
    let db = dir.path().join("spec.sqlite");
    let mut options = gathering::options(&db);
    options.max_queries = Some(1);
    options.crawl_limit = 2;
    let starts = [
        Start::spec(&spec).unwrap(),
        Start::Url(about.clone()),
        Start::Url(kontakt.clone()),
    ];
    gather::gatherer::gather(&starts, &options).await.unwrap();
    assert!(
        text_of(&db, &about).contains("© 1999"),
        "the spec says none"
    );
    // --boilerplate overrides the spec.
    let db = dir.path().join("cli.sqlite");
    let mut options = gathering::options(&db);
    options.max_queries = Some(1);
    options.crawl_limit = 2;
    options.boilerplate = Some(Method::Ntpc);
    gather::gatherer::gather(&starts, &options).await.unwrap();
    let text = text_of(&db, &about);
    assert!(
        !text.contains("© 1999") && text.contains("gegründet"),
        "{text}"
    );
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gather_text_prints_the_article_of_a_url_or_a_file() {
    let page = article("market");
    let served = page.clone();
    let addr = support::serve(axum::Router::new().route(
        "/market.html",
        get(move || {
            let page = served.clone();
            async move { Html(page) }
        }),
    ))
    .await;
    let (_, title, body) = ARTICLES[1];
    let url = support::url(addr, "/market.html");
    let out = tokio::task::spawn_blocking(move || support::gather(&["text", url.as_str()]))
        .await
        .unwrap();
    assert!(out.status.success(), "{}", support::stderr(&out));
    assert_eq!(support::stdout(&out).trim(), body);

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("market.html.gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, page.as_bytes()).unwrap();
    std::fs::write(&file, gz.finish().unwrap()).unwrap();
    let out = support::gather(&["text", "--json", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", support::stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["text"], body);
    assert_eq!(json["title"], title);

    let out = support::gather(&["text", dir.path().join("missing.html").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        support::stderr(&out).contains("cannot read"),
        "{}",
        support::stderr(&out)
    );
}

#[test]
fn a_reader_that_stops_early_ends_gather_text_quietly() {
    // `gather text PAGE | head -c 100`: the reader closes the pipe after a
    // few bytes of a text far longer than the pipe holds.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("long.html");
    let paragraphs: String = (0..20_000)
        .map(|i| {
            format!(
                "<p>Paragraph {i} of a long report on the harbour, its boats and its tides.</p>"
            )
        })
        .collect();
    std::fs::write(&file, format!("<html><body>{paragraphs}</body></html>")).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gather"))
        .args(["text", file.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 100];
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.status.success(), "{:?} {err}", out.status);
    assert!(String::from_utf8_lossy(&first).starts_with("Paragraph 0"));
}

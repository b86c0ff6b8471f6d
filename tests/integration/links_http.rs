//! Navigation detection (seed 004) over HTTP: `gather links` on the demo
//! site's magazine, whose pages have a main menu, a section menu, a
//! breadcrumb, a tag cloud, a footer, and two pagers on the index.

use std::collections::BTreeMap;

use crate::support;

/// `gather links URL --json`: text → kinds (a text may occur more than once).
fn kinds(url: &str) -> BTreeMap<String, Vec<String>> {
    let out = support::gather(&["links", url, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let mut map: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in support::stdout(&out).lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("one JSON object per line");
        map.entry(v["text"].as_str().unwrap().to_string())
            .or_default()
            .push(v["kind"].as_str().unwrap().to_string());
    }
    map
}

fn is(map: &BTreeMap<String, Vec<String>>, text: &str, kind: &str) {
    let got = map
        .get(text)
        .unwrap_or_else(|| panic!("no link {text:?} in {map:?}"));
    assert!(
        got.iter().all(|k| k == kind),
        "{text:?}: {got:?}, expected {kind}"
    );
}

async fn site() -> gather::demo::DemoSite {
    crate::support::demo_site(100).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_article_has_menus_a_breadcrumb_and_a_tag_cloud_around_its_content_links() {
    let site = site().await;
    let url = site
        .base_url()
        .join("/magazin/kueste/kap-arkona.html")
        .unwrap();
    let map = tokio::task::spawn_blocking(move || kinds(url.as_str()))
        .await
        .unwrap();
    // Main menu, section menu and breadcrumb share texts; all are menus.
    for text in [
        "Magazin",
        "Küste",
        "Seen",
        "Städte",
        "Hotelsuche",
        "Übersicht",
    ] {
        is(&map, text, "menu");
    }
    for text in [
        "Hiddensee ohne Auto",
        "Seebrücken auf Usedom",
        "Kap Arkona im Frühling",
    ] {
        is(&map, text, "menu");
    }
    // The tag cloud and the footer.
    for text in ["Baden", "Essen und Trinken", "Über CityWorld", "Kontakt"] {
        is(&map, text, "menu");
    }
    // The links in the article's text are content, though one of them
    // leads to a page of the section menu.
    assert_eq!(map["Tourismuszentrale"], ["content"]);
    assert!(
        map["Der Weststrand am Darß"].contains(&"content".to_string()),
        "{map:?}"
    );
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_index_has_two_pagers_and_content_teasers() {
    let site = site().await;
    let url = site.base_url().join("/magazin/?seite=2").unwrap();
    let map = tokio::task::spawn_blocking(move || kinds(url.as_str()))
        .await
        .unwrap();
    for text in ["« zurück", "1", "3", "weiter »"] {
        assert_eq!(
            map[text],
            ["pagination", "pagination"],
            "{text}: two pagers"
        );
    }
    for text in ["Rund um den Plauer See", "Die Altstadt von Stralsund"] {
        is(&map, text, "content");
    }
    for text in ["Magazin", "Baden", "Kontakt"] {
        is(&map, text, "menu");
    }
    // A section page lists its articles newest first, unlike its menu:
    // the list is content, the menu a menu.
    let url = site.base_url().join("/magazin/seen/").unwrap();
    let map = tokio::task::spawn_blocking(move || kinds(url.as_str()))
        .await
        .unwrap();
    assert_eq!(map["Rund um den Plauer See"].len(), 2);
    assert!(map["Rund um den Plauer See"].contains(&"menu".to_string()));
    assert!(map["Rund um den Plauer See"].contains(&"content".to_string()));
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cityworld_start_page_has_its_banner_menu_and_content_lists() {
    let site = site().await;
    let url = site.base_url();
    let map = tokio::task::spawn_blocking(move || kinds(url.as_str()))
        .await
        .unwrap();
    is(&map, "Startseite", "menu");
    is(&map, "Hotelsuche nach Regionen", "content");
    is(&map, "Hotelsuche mit seitenweiser Ausgabe", "content");
    site.shutdown().await;
}

#[test]
fn a_url_that_is_no_http_url_is_bad_input() {
    let out = support::gather(&["links", "file:///etc/passwd"]);
    assert_eq!(out.status.code(), Some(2));
    let out = support::gather(&["links", "http://127.0.0.1:9/nothing.html"]);
    assert_eq!(out.status.code(), Some(1));
}

/// A small site whose home page links three menu pages and two articles;
/// every page has the menu.
async fn menu_site(log: std::sync::Arc<std::sync::Mutex<Vec<String>>>) -> std::net::SocketAddr {
    use axum::response::Html;
    use axum::routing::get;
    let menu = "<nav><ul><li><a href=\"/\">Home</a></li><li><a href=\"/m1\">Rooms</a></li>\
                <li><a href=\"/m2\">Prices</a></li><li><a href=\"/m3\">Directions</a></li></ul></nav>";
    let page = move |body: &str| format!("<html><body>{menu}<div>{body}</div></body></html>");
    let pages = [
        ("/", page("<p>News: <a href=\"/c1\">the new sauna</a> and <a href=\"/c2\">our autumn offer</a>.</p>")),
        ("/m1", page("<p>Twelve rooms with a view of the lake.</p>")),
        ("/m2", page("<p>From 60 euros a night.</p>")),
        ("/m3", page("<p>Ten minutes from the station.</p>")),
        ("/c1", page("<p>The sauna opens in May.</p>")),
        ("/c2", page("<p>Three nights for the price of two.</p>")),
    ];
    let mut router = axum::Router::new();
    for (path, html) in pages {
        let log = log.clone();
        router = router.route(
            path,
            get(move || {
                log.lock().unwrap().push(path.to_string());
                let html = html.clone();
                async move { Html(html) }
            }),
        );
    }
    support::serve(router).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_crawl_takes_content_links_before_the_links_of_a_menu_it_recognised() {
    let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let addr = menu_site(log.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let mut options = crate::gathering::options(&db);
    options.fetch.respect_robots = false;
    let report = crate::gathering::gather_url(&support::url(addr, "/"), &options).await;
    assert_eq!(report.ordinary_pages, 6, "report:\n{report}");
    // Without navigation detection the crawl would take /m2 and /m3 (the
    // menu, first in the page) before the articles /c1 and /c2.
    assert_eq!(
        *log.lock().unwrap(),
        ["/", "/m1", "/c1", "/c2", "/m2", "/m3"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_with_a_sample_shows_the_result_pages_pager() {
    // Enough hotels for the first region's results to span pages.
    let site = crate::support::demo_site(600).await;
    let url = site.url(gather::demo::Variant::Paged);
    let out =
        tokio::task::spawn_blocking(move || support::gather(&["check", "--sample", url.as_str()]))
            .await
            .unwrap();
    let text = support::stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let pager = text
        .lines()
        .find(|l| l.starts_with("    pager: "))
        .unwrap_or_else(|| panic!("no pager line in {text}"));
    assert!(
        pager.contains("\"2\"") && pager.ends_with("\"weiter »\""),
        "{pager}"
    );
    assert!(text.contains("    links: "), "{text}");
    site.shutdown().await;
}

//! The demo site over real HTTP: pages in ISO-8859-1, the forms the metadata
//! describes, result pages that list exactly what the provider's database
//! holds, paging, POST, the protected configuration file, the DBContent
//! document and the request log.

use std::collections::{BTreeMap, BTreeSet};

use gather::demo::{DemoConfig, DemoSite, Variant};
use rusqlite::Connection;
use select::document::Document;
use select::node::Node;
use select::predicate::Name;

const HTML: &str = "text/html; charset=ISO-8859-1";

/// The pages the start page links: the form pages and two ordinary pages.
const LINKED_PAGES: [&str; 9] = [
    "/cityworld/",
    "/cityworld2/",
    "/paged/",
    "/navurl/",
    "/post/",
    "/secure/",
    "/coop/",
    "/about.html",
    "/kontakt.html",
];

async fn site(hotels: usize) -> DemoSite {
    let config = DemoConfig {
        hotels,
        ..DemoConfig::default()
    };
    DemoSite::start(config).await.expect("demo site starts")
}

struct Answer {
    status: u16,
    content_type: String,
    headers: reqwest::header::HeaderMap,
    bytes: Vec<u8>,
}

impl Answer {
    /// The body read as ISO-8859-1.
    fn text(&self) -> String {
        self.bytes.iter().map(|&b| char::from(b)).collect()
    }

    fn document(&self) -> Document {
        Document::from(self.text().as_str())
    }
}

async fn answer(response: reqwest::Response) -> Answer {
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let content_type = headers
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let bytes = response.bytes().await.expect("body").to_vec();
    Answer {
        status,
        content_type,
        headers,
        bytes,
    }
}

async fn get(url: &str) -> Answer {
    answer(reqwest::get(url).await.expect("GET answers")).await
}

/// GET a path of the site.
async fn get_path(site: &DemoSite, path: &str) -> Answer {
    get(site.base_url().join(path).expect("url").as_str()).await
}

/// True when the bytes contain a UTF-8 encoded Latin-1 letter (Ã¼ for ü …),
/// i.e. the page was not really encoded in ISO-8859-1.
fn has_utf8_sequences(bytes: &[u8]) -> bool {
    bytes
        .windows(2)
        .any(|w| w[0] == 0xC3 && (0x80..=0xBF).contains(&w[1]))
}

fn assert_latin1_html(answer: &Answer, what: &str) {
    assert_eq!(answer.status, 200, "{what}: status");
    assert_eq!(answer.content_type, HTML, "{what}: Content-Type");
    assert!(
        !has_utf8_sequences(&answer.bytes),
        "{what}: body holds UTF-8 sequences"
    );
    assert!(
        answer
            .bytes
            .iter()
            .any(|&b| matches!(b, 0xE4 | 0xF6 | 0xFC | 0xDF | 0xDC)),
        "{what}: no Latin-1 umlaut or ß byte on a German page"
    );
}

/// The `DB.*` and other named meta tags of a page, by lower-case name.
fn meta_tags(doc: &Document) -> BTreeMap<String, String> {
    doc.find(Name("meta"))
        .filter_map(|m| {
            Some((
                m.attr("name")?.to_ascii_lowercase(),
                m.attr("content")?.to_string(),
            ))
        })
        .collect()
}

/// Every node of the page in document order (pre-order).
fn document_order(doc: &Document) -> Vec<Node<'_>> {
    doc.nth(0)
        .map(|root| root.descendants().collect())
        .unwrap_or_default()
}

fn element_children<'a>(node: &Node<'a>, name: &str) -> Vec<Node<'a>> {
    node.children().filter(|c| c.name() == Some(name)).collect()
}

/// What a result page lists, read the way the metadata's rules read it:
/// `html.body->table[1]`, its rows (row groups transparent), town rows by the
/// `#FF8000` font in `td[1]`, hotel rows by the `hotel_id` checkbox in
/// `td[0].small`, names in `td[1].b`.
#[derive(Debug, Default)]
struct Listing {
    region: Option<String>,
    /// Towns in the order of their rows.
    towns: Vec<String>,
    /// (hotel id, name, town of the last town row above it)
    hotels: Vec<(i64, String, String)>,
    /// Links labelled "weiter »".
    next: Option<String>,
    /// Hrefs of links labelled with a page number.
    page_links: Vec<String>,
}

fn listing(doc: &Document) -> Listing {
    let order = document_order(doc);
    let body_start = order
        .iter()
        .position(|n| n.name() == Some("body"))
        .expect("page has a body");
    let tables: Vec<&Node<'_>> = order[body_start..]
        .iter()
        .filter(|n| n.name() == Some("table"))
        .collect();
    assert!(
        tables.len() >= 2,
        "a result page has a banner and a result table"
    );
    assert!(
        tables[0].descendants().all(|n| n.name() != Some("table")),
        "the banner table holds no nested table, so table[1] is the result table"
    );
    let table = tables[1];
    // The region: the second text node after the Seitenanfang anchor.
    let anchor = order
        .iter()
        .position(|n| n.name() == Some("a") && n.attr("name") == Some("Seitenanfang"));
    let region = anchor.and_then(|at| {
        order[at + 1..]
            .iter()
            .filter_map(|n| n.as_text())
            .filter(|t| !t.trim().is_empty())
            .nth(1)
            .map(|t| t.trim().to_string())
    });
    let rows: Vec<Node<'_>> = table
        .descendants()
        .filter(|n| n.name() == Some("tr"))
        .collect();
    let mut result = Listing {
        region,
        ..Listing::default()
    };
    let mut town = String::new();
    for row in rows {
        let cells = element_children(&row, "td");
        let Some(second) = cells.get(1) else { continue };
        let town_font = element_children(second, "font")
            .into_iter()
            .find(|f| f.attr("color") == Some("#FF8000"));
        if let Some(font) = town_font {
            town = second.text().trim().to_string();
            assert_eq!(font.text().trim(), town);
            result.towns.push(town.clone());
            continue;
        }
        let checkbox = element_children(&cells[0], "small")
            .into_iter()
            .flat_map(|s| element_children(&s, "input"))
            .find(|i| i.attr("name") == Some("hotel_id"));
        if let Some(input) = checkbox {
            let id: i64 = input
                .attr("value")
                .and_then(|v| v.parse().ok())
                .expect("hotel_id checkbox carries the hotel's id");
            let name = element_children(second, "b")
                .first()
                .map(|b| b.text().trim().to_string())
                .expect("hotel name in bold");
            result.hotels.push((id, name, town.clone()));
        }
    }
    for link in doc.find(Name("a")) {
        let label = link.text().trim().to_string();
        let Some(href) = link.attr("href") else {
            continue;
        };
        if label == "weiter »" {
            result.next = Some(href.to_string());
        } else if label.parse::<usize>().is_ok() {
            result.page_links.push(href.to_string());
        }
    }
    result
}

/// (id, name, town) of every hotel of a region, straight from the database.
fn hotels_of(site: &DemoSite, region: &str) -> BTreeSet<(i64, String, String)> {
    let conn = Connection::open(site.database_path()).expect("open provider db");
    let mut stmt = conn
        .prepare(
            "SELECT h.id, h.name, h.ort FROM hotel h JOIN region r ON r.id = h.region_id
             WHERE r.region = ?1",
        )
        .expect("prepare");
    let rows = stmt
        .query_map([region], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("query");
    rows.map(|r| r.expect("row")).collect()
}

fn regions_of(site: &DemoSite) -> Vec<String> {
    let conn = Connection::open(site.database_path()).expect("open provider db");
    let mut stmt = conn
        .prepare("SELECT region FROM region ORDER BY id")
        .expect("prepare");
    let rows = stmt.query_map([], |r| r.get(0)).expect("query");
    rows.map(|r| r.expect("row")).collect()
}

/// A value as a Latin-1 form would send it.
fn latin1_query(value: &str) -> String {
    let bytes: Vec<u8> = value
        .chars()
        .map(|c| u8::try_from(u32::from(c)).expect("Latin-1 character"))
        .collect();
    url::form_urlencoded::byte_serialize(&bytes).collect()
}

#[tokio::test]
async fn every_page_is_latin1_html() {
    let site = site(200).await;
    let results = [
        "/",
        "/cgi-bin/auswahl.pl?region=R%FCgen&preis=alle&ort=",
        "/cgi-bin/liste.pl?region=R%FCgen&seite=1",
    ];
    for path in LINKED_PAGES.iter().chain(&results) {
        assert_latin1_html(&get_path(&site, path).await, path);
    }
    for path in ["/cityworld.DBContent", "/cgi-bin/cityworld.txt"] {
        let page = get_path(&site, path).await;
        assert_eq!(page.status, 200, "{path}");
        assert_eq!(
            page.content_type, "text/plain; charset=ISO-8859-1",
            "{path}"
        );
        assert!(!has_utf8_sequences(&page.bytes), "{path}");
    }
    let missing = get_path(&site, "/nirgends.html").await;
    assert_eq!(missing.status, 404);
    assert_eq!(missing.content_type, HTML);
    site.shutdown().await;
}

#[tokio::test]
async fn start_page_links_form_pages_and_ordinary_pages() {
    let site = site(50).await;
    let start = get(site.base_url().as_str()).await;
    let doc = start.document();
    let links: BTreeSet<String> = doc
        .find(Name("a"))
        .filter_map(|a| a.attr("href").map(str::to_string))
        .collect();
    for path in LINKED_PAGES {
        assert!(links.contains(path), "start page links {path}");
    }
    let meta = meta_tags(&doc);
    assert!(meta.contains_key("description") && meta.contains_key("keywords"));
    assert!(
        !meta.keys().any(|k| k.starts_with("db.")),
        "start page is ordinary"
    );
    for path in ["/about.html", "/kontakt.html"] {
        let page = get_path(&site, path).await;
        let meta = meta_tags(&page.document());
        assert!(
            !meta.keys().any(|k| k.starts_with("db.")),
            "{path} is ordinary"
        );
    }
    let robots = get_path(&site, "/robots.txt").await;
    assert_eq!(robots.status, 200);
    let robot = texting_robots::Robot::new("gather", &robots.bytes).expect("robots.txt parses");
    assert!(robot.allowed(site.url(Variant::Listed).as_str()));
    assert!(robot.allowed(
        site.base_url()
            .join("/cgi-bin/auswahl.pl?region=R%FCgen")
            .expect("url")
            .as_str()
    ));
    site.shutdown().await;
}

#[tokio::test]
async fn listed_form_has_the_elements_its_metadata_names() {
    let site = site(100).await;
    let regions = regions_of(&site);
    assert!(regions.len() >= 7);
    let page = get(site.url(Variant::Listed).as_str()).await;
    let doc = page.document();
    let meta = meta_tags(&doc);
    assert_eq!(meta["db.queryelement"], "region");
    let listed: Vec<String> = meta["db.result.region"]
        .split(',')
        .map(|v| v.trim().to_string())
        .collect();
    assert_eq!(listed, regions, "DB.Result.region lists every region");
    assert_eq!(
        meta["db.result.ort"],
        "html.body->table[1].tr[i:*].td[1].txt\n  where html.body->table[1].tr[i].td[1].font.getAttr(color) = \"#FF8000\""
    );
    assert_eq!(
        meta["db.result.name"],
        "html.body->table[1].tr[j:*].td[1].b.txt\n  where html.body->table[1].tr[j].td[0].small.input.getAttr(name) = \"hotel_id\""
    );
    assert_eq!(meta["db.navigation"], "NO");
    assert!(meta.contains_key("description") && meta.contains_key("keywords"));
    let title = doc.find(Name("title")).next().expect("title").text();
    assert_eq!(title, "CityWorld - Hotels und Pensionen");

    let form = doc.find(Name("form")).next().expect("a form");
    assert_eq!(form.attr("method"), Some("GET"));
    assert_eq!(form.attr("action"), Some("/cgi-bin/auswahl.pl"));
    let inputs: Vec<Node<'_>> = form.find(Name("input")).collect();
    let radios: Vec<&Node<'_>> = inputs
        .iter()
        .filter(|i| i.attr("type") == Some("radio"))
        .collect();
    assert!(radios.iter().all(|r| r.attr("name") == Some("region")));
    let values: Vec<String> = radios
        .iter()
        .filter_map(|r| r.attr("value").map(str::to_string))
        .collect();
    assert_eq!(values, regions, "one radio button per region");
    let checked: Vec<usize> = radios
        .iter()
        .enumerate()
        .filter(|(_, r)| r.attr("checked").is_some())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(checked, vec![0], "the first region is checked");
    assert!(inputs
        .iter()
        .any(|i| i.attr("type") == Some("text") && i.attr("name") == Some("ort")));
    assert!(inputs.iter().any(|i| i.attr("type") == Some("submit")));
    let select = form.find(Name("select")).next().expect("price select");
    assert_eq!(select.attr("name"), Some("preis"));
    let options: Vec<(String, bool)> = select
        .find(Name("option"))
        .map(|o| {
            (
                o.attr("value").unwrap_or_default().to_string(),
                o.attr("selected").is_some(),
            )
        })
        .collect();
    assert_eq!(options.len(), 4);
    assert_eq!(options[0], ("alle".to_string(), true));
    assert!(options[1..].iter().all(|(_, selected)| !selected));
    site.shutdown().await;
}

#[tokio::test]
async fn variant_pages_carry_their_metadata() {
    let site = site(100).await;
    let meta_of = |variant: Variant| {
        let url = site.url(variant);
        async move { meta_tags(&get(url.as_str()).await.document()) }
    };
    let extracted = meta_of(Variant::Extracted).await;
    assert_eq!(
        extracted["db.result.region"],
        "html.body->A[i]->pcdata[1].txt\n  where html.body->A[i].getAttr(name) = 'Seitenanfang'"
    );
    assert_eq!(extracted["db.result"], "html.body->table[1].");
    assert_eq!(
        extracted["db.result.ort"],
        "tr[j:*].td[1].txt\n  where tr[j].td[1].font.getAttr(color) = '#FF8000'"
    );
    assert_eq!(
        extracted["db.result.name"],
        "tr[k:*].td[1].b.txt\n  where tr[k].td[0].small.input.getAttr(name) = 'hotel_id'"
    );
    assert_eq!(extracted["db.navigation"], "NO");

    let paged = meta_of(Variant::Paged).await;
    assert!(paged.contains_key("db.result.name"));
    assert!(!paged.contains_key("db.navigation") && !paged.contains_key("db.navigationurl"));

    let navurl = meta_of(Variant::NavigationUrl).await;
    assert_eq!(
        navurl["db.navigationurl"],
        "/cgi-bin/liste.pl?region=*&seite=*"
    );
    let max_pages: usize = navurl["db.maxpages"].parse().expect("MaxPages is a number");
    let largest = regions_of(&site)
        .iter()
        .map(|r| hotels_of(&site, r).len())
        .max()
        .unwrap_or(0);
    assert!(
        max_pages > largest.div_ceil(20),
        "MaxPages {max_pages} leaves room for every page of the largest region ({largest} hotels)"
    );

    let secure = meta_of(Variant::ConfigAuth).await;
    let db_tags: Vec<&String> = secure.keys().filter(|k| k.starts_with("db.")).collect();
    assert_eq!(db_tags, vec!["db.configfile"]);
    assert_eq!(secure["db.configfile"], "/private/cityworld.txt");

    let coop = get_path(&site, "/coop/").await;
    let coop = meta_tags(&coop.document());
    assert_eq!(
        coop["db.summarizer"],
        site.base_url()
            .join("/cgi-bin/Ora-DB.pl")
            .expect("url")
            .as_str()
    );
    assert_eq!(coop["db.configfile"], "/cgi-bin/cityworld.txt");
    site.shutdown().await;
}

#[tokio::test]
async fn result_page_lists_exactly_the_hotels_of_the_region() {
    let site = site(300).await;
    let page = get_path(&site, "/cgi-bin/auswahl.pl?region=R%FCgen&preis=alle&ort=").await;
    assert_latin1_html(&page, "Rügen result page");
    let found = listing(&page.document());
    assert_eq!(found.region.as_deref(), Some("Rügen"));
    let listed: BTreeSet<(i64, String, String)> = found.hotels.iter().cloned().collect();
    assert_eq!(listed.len(), found.hotels.len(), "no hotel listed twice");
    let expected = hotels_of(&site, "Rügen");
    assert!(!expected.is_empty(), "300 hotels put some on Rügen");
    assert_eq!(listed, expected);
    let towns: BTreeSet<String> = expected.iter().map(|(_, _, ort)| ort.clone()).collect();
    assert_eq!(found.towns.iter().cloned().collect::<BTreeSet<_>>(), towns);
    assert_eq!(found.towns.len(), towns.len(), "one town row per town");
    assert!(found.next.is_none(), "all hotels on one page");

    // The same region spelt as a UTF-8 browser would is a region the site does not know.
    let page = get_path(&site, "/cgi-bin/auswahl.pl?region=R%C3%BCgen").await;
    assert_eq!(page.status, 200);
    assert!(listing(&page.document()).hotels.is_empty());
    site.shutdown().await;
}

#[tokio::test]
async fn price_and_town_narrow_the_result() {
    let site = site(300).await;
    let conn = Connection::open(site.database_path()).expect("open");
    let cheap: BTreeSet<i64> = {
        let mut stmt = conn
            .prepare(
                "SELECT h.id FROM hotel h JOIN region r ON r.id = h.region_id
                 WHERE r.region = 'Rügen' AND h.preis <= 50",
            )
            .expect("prepare");
        let rows = stmt.query_map([], |r| r.get(0)).expect("query");
        rows.map(|r| r.expect("row")).collect()
    };
    let found = listing(
        &get_path(&site, "/cgi-bin/auswahl.pl?region=R%FCgen&preis=bis50&ort=")
            .await
            .document(),
    );
    let ids: BTreeSet<i64> = found.hotels.iter().map(|(id, _, _)| *id).collect();
    assert_eq!(ids, cheap);

    let found = listing(
        &get_path(
            &site,
            "/cgi-bin/auswahl.pl?region=R%FCgen&preis=alle&ort=bin",
        )
        .await
        .document(),
    );
    let binz: BTreeSet<(i64, String, String)> = hotels_of(&site, "Rügen")
        .into_iter()
        .filter(|(_, _, ort)| ort == "Binz")
        .collect();
    assert_eq!(found.hotels.into_iter().collect::<BTreeSet<_>>(), binz);
    assert_eq!(found.towns, vec!["Binz".to_string()]);
    site.shutdown().await;
}

#[tokio::test]
async fn result_rows_are_built_as_the_rules_expect() {
    let site = site(100).await;
    let text = get_path(&site, "/cgi-bin/auswahl.pl?region=Usedom")
        .await
        .text();
    assert!(
        text.contains("<A NAME=\"Seitenanfang\"></A><FONT SIZE=\"2\">Region:</FONT> <B>Usedom</B>")
    );
    let doc = Document::from(text.as_str());
    let hotel_rows = doc
        .find(Name("tr"))
        .filter(|tr| {
            tr.find(Name("input"))
                .any(|i| i.attr("name") == Some("hotel_id"))
        })
        .count();
    let town_rows = doc
        .find(Name("font"))
        .filter(|f| f.attr("color") == Some("#FF8000"))
        .count();
    let expected = hotels_of(&site, "Usedom");
    assert_eq!(hotel_rows, expected.len());
    let towns: BTreeSet<&String> = expected.iter().map(|(_, _, ort)| ort).collect();
    assert_eq!(town_rows, towns.len());
    for tr in doc.find(Name("tr")) {
        if let Some(input) = tr.find(Name("input")).next() {
            assert_eq!(input.attr("type"), Some("checkbox"));
            assert_eq!(input.parent().and_then(|p| p.name()), Some("small"));
            let cells = element_children(&tr, "td");
            assert_eq!(cells.len(), 3, "checkbox, name and address, price");
            assert!(cells[1].text().contains(", Tel. "));
            assert!(cells[2].text().trim().ends_with(" DM"));
        }
    }
    site.shutdown().await;
}

/// Follows "weiter »" from the first page and returns every page's listing.
async fn walk_pages(site: &DemoSite, region: &str) -> Vec<Listing> {
    let mut url = site
        .base_url()
        .join(&format!(
            "/cgi-bin/liste.pl?region={}&preis=alle&ort=",
            latin1_query(region)
        ))
        .expect("url");
    let mut pages = Vec::new();
    loop {
        let page = get(url.as_str()).await;
        assert_eq!(page.status, 200, "{url}");
        let found = listing(&page.document());
        let next = found.next.clone();
        pages.push(found);
        match next {
            Some(href) => url = url.join(&href).expect("next page url"),
            None => break,
        }
        assert!(pages.len() < 1000, "paging ends");
    }
    pages
}

#[tokio::test]
async fn paging_covers_every_hotel_exactly_once() {
    let site = site(400).await;
    for region in regions_of(&site) {
        let expected = hotels_of(&site, &region);
        let pages = walk_pages(&site, &region).await;
        assert_eq!(pages.len(), expected.len().div_ceil(20).max(1), "{region}");
        let mut seen: Vec<i64> = Vec::new();
        for (i, page) in pages.iter().enumerate() {
            assert_eq!(page.region.as_deref(), Some(region.as_str()));
            let is_last = i + 1 == pages.len();
            if is_last {
                assert!(
                    page.hotels.len() <= 20 && (!page.hotels.is_empty() || expected.is_empty())
                );
            } else {
                assert_eq!(page.hotels.len(), 20, "{region} page {}", i + 1);
                // Links to every other page by number.
                assert_eq!(page.page_links.len(), pages.len() - 1);
            }
            seen.extend(page.hotels.iter().map(|(id, _, _)| *id));
        }
        let distinct: BTreeSet<i64> = seen.iter().copied().collect();
        assert_eq!(distinct.len(), seen.len(), "{region}: a hotel on two pages");
        let listed: BTreeSet<(i64, String, String)> = pages
            .iter()
            .flat_map(|p| p.hotels.iter().cloned())
            .collect();
        assert_eq!(listed, expected, "{region}");
    }
    site.shutdown().await;
}

#[tokio::test]
async fn navigation_url_pages_end_with_an_empty_page() {
    let site = site(300).await;
    let expected = hotels_of(&site, "Rügen");
    let pages = expected.len().div_ceil(20);
    let mut ids = BTreeSet::new();
    for n in 1..=pages + 1 {
        let found = listing(
            &get_path(
                &site,
                &format!("/cgi-bin/liste.pl?region=R%FCgen&seite={n}"),
            )
            .await
            .document(),
        );
        if n > pages {
            assert!(found.hotels.is_empty(), "page past the last one is empty");
            assert_eq!(found.region.as_deref(), Some("Rügen"));
        }
        ids.extend(found.hotels.iter().map(|(id, _, _)| *id));
    }
    let expected_ids: BTreeSet<i64> = expected.iter().map(|(id, _, _)| *id).collect();
    assert_eq!(ids, expected_ids);
    let bad = get_path(&site, "/cgi-bin/liste.pl?region=R%FCgen&seite=null").await;
    assert_eq!(bad.status, 400);
    site.shutdown().await;
}

#[tokio::test]
async fn post_form_is_answered_only_to_post() {
    let site = site(200).await;
    let doc = get(site.url(Variant::Post).as_str()).await.document();
    let form = doc.find(Name("form")).next().expect("form");
    assert_eq!(form.attr("method"), Some("POST"));
    let action = site
        .url(Variant::Post)
        .join(form.attr("action").expect("action"))
        .expect("action url");
    let client = reqwest::Client::new();
    let body: &[u8] = b"region=R%FCgen&preis=alle&ort=";
    let posted = answer(
        client
            .post(action.clone())
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(body.to_vec())
            .send()
            .await
            .expect("POST answers"),
    )
    .await;
    assert_latin1_html(&posted, "POST result");
    let listed: BTreeSet<(i64, String, String)> =
        listing(&posted.document()).hotels.into_iter().collect();
    assert_eq!(listed, hotels_of(&site, "Rügen"));
    let with_get = get(&format!("{action}?region=R%FCgen")).await;
    assert_eq!(with_get.status, 405, "the POST script refuses GET");

    let log = site.requests();
    let entry = log
        .iter()
        .find(|r| r.method == "POST")
        .expect("the POST is logged");
    assert_eq!(entry.target, "/cgi-bin/suche.pl");
    assert_eq!(entry.body, body);
    assert!(entry.headers.contains(&(
        "content-type".to_string(),
        "application/x-www-form-urlencoded".to_string()
    )));
    let gets: Vec<&str> = log
        .iter()
        .filter(|r| r.method == "GET")
        .map(|r| r.target.as_str())
        .collect();
    assert_eq!(gets, vec!["/post/", "/cgi-bin/suche.pl?region=R%FCgen"]);
    assert!(
        log.windows(2).all(|w| w[0].at <= w[1].at),
        "log in order of arrival"
    );
    site.shutdown().await;
}

#[tokio::test]
async fn private_configuration_needs_credentials() {
    let site = site(50).await;
    let url = site
        .url(Variant::ConfigAuth)
        .join("/private/cityworld.txt")
        .expect("url");
    let client = reqwest::Client::new();
    let anonymous = answer(client.get(url.clone()).send().await.expect("answers")).await;
    assert_eq!(anonymous.status, 401);
    let challenge = anonymous
        .headers
        .get(reqwest::header::WWW_AUTHENTICATE)
        .and_then(|v| v.to_str().ok())
        .expect("WWW-Authenticate");
    assert!(challenge.starts_with("Basic realm="));
    let wrong = client
        .get(url.clone())
        .basic_auth("gatherer", Some("falsch"))
        .send()
        .await
        .expect("answers");
    assert_eq!(wrong.status().as_u16(), 401);
    let allowed = answer(
        client
            .get(url)
            .basic_auth("gatherer", Some("swing"))
            .send()
            .await
            .expect("answers"),
    )
    .await;
    assert_eq!(allowed.status, 200);
    let authorised: Vec<bool> = site
        .requests()
        .iter()
        .map(|r| r.headers.iter().any(|(name, _)| name == "authorization"))
        .collect();
    assert_eq!(
        authorised,
        vec![false, true, true],
        "the log keeps the headers"
    );
    assert_eq!(allowed.content_type, "text/plain; charset=ISO-8859-1");
    assert!(!has_utf8_sequences(&allowed.bytes));
    let text = allowed.text();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with('#'), "starts with a comment");
    assert!(
        lines.iter().any(|l| l.starts_with("  ")),
        "has continuation lines"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("Result.name: ")),
        "DB. prefix optional"
    );
    // Joined continuation lines give the variant-1 metadata.
    let mut values: BTreeMap<String, String> = BTreeMap::new();
    let mut last = String::new();
    for line in lines.iter().filter(|l| !l.starts_with('#')) {
        if line.starts_with(' ') {
            let value = values.get_mut(&last).expect("continuation follows a name");
            value.push('\n');
            value.push_str(line);
        } else {
            let (name, value) = line.split_once(':').expect("Name: value");
            last = name.trim_start_matches("DB.").to_string();
            values.insert(last.clone(), value.trim().to_string());
        }
    }
    assert_eq!(values["QueryElement"], "region");
    assert_eq!(values["Navigation"], "NO");
    let regions: Vec<String> = values["Result.region"]
        .split(',')
        .map(|r| r.trim().to_string())
        .collect();
    assert_eq!(regions, regions_of(&site));
    assert!(values["Result.ort"].contains("getAttr(color) = \"#FF8000\""));
    site.shutdown().await;
}

#[tokio::test]
async fn dbcontent_document_describes_the_cooperative_provider() {
    let site = site(50).await;
    let page = get(site.url(Variant::Cooperative).as_str()).await;
    assert_eq!(page.content_type, "text/plain; charset=ISO-8859-1");
    assert!(page.bytes.windows(11).any(|w| w == b"Hotelf\xFChrer"));
    let doc = gather::metadata::DbContent::parse(&page.text()).expect("DBContent parses");
    let base = site.base_url();
    assert_eq!(
        doc.summarizer.as_deref(),
        Some(base.join("/cgi-bin/Ora-DB.pl").expect("url").as_str())
    );
    assert_eq!(doc.url.as_deref(), Some(site.url(Variant::Listed).as_str()));
    assert_eq!(
        doc.title.as_deref(),
        Some("CityWorld - Hotels und Pensionen")
    );
    assert_eq!(doc.description.as_deref(), Some("Hotelführer M-V"));
    assert!(doc
        .keywords
        .as_deref()
        .is_some_and(|k| k.contains("Pension")));
    assert_eq!(doc.database.as_deref(), Some("Cityworld"));
    let tables: Vec<(String, Vec<String>)> = doc
        .tables
        .iter()
        .map(|t| (t.name.clone(), t.attributes.clone()))
        .collect();
    assert_eq!(
        tables,
        vec![
            (
                "hotel".to_string(),
                vec!["name".to_string(), "ort".to_string()]
            ),
            ("region".to_string(), vec!["region".to_string()]),
        ]
    );
    let config = get_path(&site, "/cgi-bin/cityworld.txt").await;
    let config = gather::metadata::DbContent::parse(&config.text()).expect("config parses");
    assert_eq!(config.tables, doc.tables);
    // The summarizer needs a configuration it knows.
    let summarizer = base.join("/cgi-bin/Ora-DB.pl").expect("url");
    assert_eq!(get(summarizer.as_str()).await.status, 400);
    let unknown = get(&format!("{summarizer}?config=/etc/passwd")).await;
    assert_eq!(unknown.status, 404);
    site.shutdown().await;
}

#[tokio::test]
async fn expected_values_match_the_database() {
    let site = site(300).await;
    let conn = Connection::open(site.database_path()).expect("open");
    let set = |sql: &str| -> BTreeSet<String> {
        let mut stmt = conn.prepare(sql).expect("prepare");
        let rows = stmt.query_map([], |r| r.get(0)).expect("query");
        rows.map(|r| r.expect("row")).collect()
    };
    let regions = set("SELECT r.region FROM region r");
    let towns = set("SELECT h.ort FROM hotel h JOIN region r ON r.id = h.region_id");
    let names = set("SELECT h.name FROM hotel h");
    let articles = set("SELECT CAST(id AS TEXT) FROM artikel");
    assert_eq!(
        site.expected(Variant::Archive),
        BTreeMap::from([("nr".to_string(), articles)])
    );
    let titles = set("SELECT titel FROM buch");
    assert!(titles.len() > 100, "{} titles", titles.len());
    assert_eq!(
        site.expected(Variant::Catalogue),
        BTreeMap::from([("titel".to_string(), titles)])
    );
    for variant in Variant::ALL {
        if matches!(variant, Variant::Catalogue | Variant::Archive) {
            continue;
        }
        let expected = site.expected(variant);
        let keys = if variant == Variant::Cooperative {
            ["region.region", "hotel.ort", "hotel.name"]
        } else {
            ["region", "ort", "name"]
        };
        assert_eq!(expected.len(), 3, "{variant:?}");
        assert_eq!(expected[keys[0]], regions, "{variant:?}");
        assert_eq!(expected[keys[1]], towns, "{variant:?}");
        assert_eq!(expected[keys[2]], names, "{variant:?}");
    }
    // What the result pages show, gathered by hand, is what expected() says.
    let mut shown: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for region in &regions {
        let found = listing(
            &get_path(
                &site,
                &format!("/cgi-bin/auswahl.pl?region={}", latin1_query(region)),
            )
            .await
            .document(),
        );
        shown.entry("region").or_default().extend(found.region);
        shown.entry("ort").or_default().extend(found.towns);
        shown
            .entry("name")
            .or_default()
            .extend(found.hotels.into_iter().map(|(_, name, _)| name));
    }
    let expected = site.expected(Variant::Extracted);
    for (attribute, values) in shown {
        assert_eq!(values, expected[attribute], "{attribute}");
    }
    site.shutdown().await;
}

#[tokio::test]
async fn shutdown_removes_the_data_directory_it_created() {
    let site = site(20).await;
    let dir = site
        .database_path()
        .parent()
        .expect("database in a directory")
        .to_path_buf();
    assert!(site.database_path().is_file());
    let base = site.base_url();
    site.shutdown().await;
    assert!(!dir.exists(), "temporary data directory removed");
    assert!(reqwest::get(base.as_str()).await.is_err(), "server stopped");

    let kept = tempfile::tempdir().expect("tempdir");
    let config = DemoConfig {
        hotels: 20,
        data_dir: kept.path().to_path_buf(),
        ..DemoConfig::default()
    };
    let site = DemoSite::start(config).await.expect("starts");
    assert_eq!(site.database_path(), kept.path().join("cityworld.sqlite"));
    site.shutdown().await;
    assert!(
        kept.path().join("cityworld.sqlite").is_file(),
        "a given directory is kept"
    );
}

#[tokio::test]
async fn bad_configurations_are_refused_without_leftovers() {
    let config = DemoConfig {
        page_size: 0,
        hotels: 10,
        ..DemoConfig::default()
    };
    let dir = config.data_dir.clone();
    let Err(error) = DemoSite::start(config).await else {
        panic!("page_size 0 accepted");
    };
    assert!(error.to_string().contains("page_size"), "{error:#}");
    assert!(!dir.exists());

    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = taken.local_addr().expect("addr").port();
    let config = DemoConfig {
        port,
        hotels: 10,
        ..DemoConfig::default()
    };
    let dir = config.data_dir.clone();
    let Err(error) = DemoSite::start(config).await else {
        panic!("a port in use accepted");
    };
    assert!(
        format!("{error:#}").contains(&format!("127.0.0.1:{port}")),
        "{error:#}"
    );
    assert!(
        !dir.exists(),
        "the data directory made for the site is removed"
    );
}

//! Stateful forms: requests built from the form as the page they follow
//! shows it (state tokens, a session cookie), and a select whose options
//! come in the answer to its parent's value, on the demo's ASP.NET-style
//! Quotation Register.

use std::collections::BTreeSet;

use gather::demo::{quotes, DemoConfig, DemoSite};
use gather::gatherer::{self, Report, Start};

use crate::gathering;

async fn site() -> DemoSite {
    DemoSite::start(DemoConfig::default())
        .await
        .expect("demo site starts")
}

/// The spec of `specs/quotes.yaml` pointed at `site`, written into `dir`.
fn spec_for(site: &DemoSite, dir: &std::path::Path) -> std::path::PathBuf {
    let text = std::fs::read_to_string(crate::support::repo_path("specs/quotes.yaml")).unwrap();
    let url = site.base_url().join(quotes::PATH).unwrap();
    let text = text.replace("http://127.0.0.1:8642/quotes/Search.aspx", url.as_str());
    let path = dir.join("quotes.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

/// Precision, recall and F1 of the quotations gathered (the values of
/// whichever attribute holds them) against the register.
fn f1(db: &std::path::Path, url: &str) -> (f64, f64, f64) {
    let expected = quotes::expected_texts();
    let stored = gathering::stored_values(db, url);
    let best: BTreeSet<String> = stored
        .values()
        .max_by_key(|values| values.intersection(&expected).count())
        .cloned()
        .unwrap_or_default();
    let hit = best.intersection(&expected).count() as f64;
    let precision = if best.is_empty() {
        0.0
    } else {
        hit / best.len() as f64
    };
    let recall = hit / expected.len() as f64;
    let f1 = if hit == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    };
    (precision, recall, f1)
}

/// Requests the provider answered.
fn asked(site: &DemoSite) -> usize {
    site.requests()
        .iter()
        .filter(|r| r.target.starts_with(quotes::PATH))
        .count()
}

async fn gather_spec(site: &DemoSite, dir: &std::path::Path) -> Report {
    let spec = spec_for(site, dir);
    let db = dir.join("g.sqlite");
    gatherer::gather(&[Start::spec(&spec).unwrap()], &gathering::options(&db))
        .await
        .expect("the gatherer's database works")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spec_gathers_every_quotation_behind_post_backs_and_a_state_token() {
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let report = gather_spec(&site, dir.path()).await;
    let url = site.base_url().join(quotes::PATH).unwrap();
    assert!(!report.failed(), "report:\n{report}");
    let (precision, recall, f1) = f1(&dir.path().join("g.sqlite"), url.as_str());
    assert_eq!(
        (precision, recall, f1),
        (1.0, 1.0, 1.0),
        "report:\n{report}"
    );
    let source = &report.sources[0];
    // One query per author and tag of theirs: the plan is a tree.
    let pairs: BTreeSet<(&str, &str)> =
        quotes::quotes().iter().map(|q| (q.author, q.tag)).collect();
    assert_eq!(
        source.queries_planned,
        pairs.len() as u64,
        "report:\n{report}"
    );
    assert_eq!(source.completeness.state(), "complete", "report:\n{report}");
    // Sessions end after a number of requests: the run outlived one, and
    // the queries the provider refused were sent again, not lost.
    let requests = asked(&site);
    assert!(
        requests as u32 > quotes::SESSION_REQUESTS,
        "{requests} requests"
    );
    assert!(
        source
            .warnings
            .iter()
            .any(|w| w.contains("fresh form page")),
        "report:\n{report}"
    );
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_url_alone_finds_the_dependent_select_and_gathers_every_quotation() {
    // The spec's run, for its requests.
    let spec_site = site().await;
    let spec_dir = tempfile::tempdir().unwrap();
    let spec_report = gather_spec(&spec_site, spec_dir.path()).await;
    assert!(!spec_report.failed(), "report:\n{spec_report}");
    let by_spec = asked(&spec_site);
    spec_site.shutdown().await;

    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let url = site.base_url().join(quotes::PATH).unwrap();
    let report = gathering::gather_url(&url, &gathering::options(&db)).await;
    assert!(!report.failed(), "report:\n{report}");
    let (precision, recall, f1) = f1(&db, url.as_str());
    assert_eq!(
        (precision, recall, f1),
        (1.0, 1.0, 1.0),
        "report:\n{report}"
    );
    // The author and tag columns too, whatever they were named; the
    // filled form each answer echoes is read as no attribute.
    let stored = gathering::stored_values(&db, url.as_str());
    let authors: BTreeSet<String> = quotes::AUTHORS.iter().map(|a| a.1.to_string()).collect();
    let tags: BTreeSet<String> = quotes::quotes()
        .iter()
        .filter_map(|q| quotes::TAGS.iter().find(|t| t.0 == q.tag))
        .map(|t| t.1.to_string())
        .collect();
    assert!(stored.values().any(|v| *v == authors), "{stored:?}");
    assert!(stored.values().any(|v| *v == tags), "{stored:?}");
    let alone = asked(&site);
    eprintln!("{alone} requests from the URL alone, {by_spec} with the spec");
    assert!(
        alone * 4 <= by_spec * 5,
        "{alone} requests from the URL alone, {by_spec} with the spec; report:\n{report}"
    );
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_refused_again_from_a_fresh_form_page_fails_its_query_and_says_so() {
    use axum::routing::get;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    // Every form page issues a new token; the search refuses them all.
    let pages = Arc::new(AtomicUsize::new(0));
    let issued = Arc::clone(&pages);
    let router = axum::Router::new().route(
        "/find",
        get(move || {
            let n = issued.fetch_add(1, Ordering::SeqCst);
            async move {
                axum::response::Html(format!(
                    r#"<html><body><form method="post" action="/find">
                    <input type="hidden" name="csrf_token" value="t{n}">
                    <select name="kind"><option value="a">A</option><option value="b">B</option></select>
                    <input type="submit" value="Search"></form></body></html>"#
                ))
            }
        })
        .post(|| async {
            (
                axum::http::StatusCode::FORBIDDEN,
                "<html><body><p>The form has expired.</p></body></html>",
            )
        }),
    );
    let addr = crate::support::serve(router).await;
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("find.yaml");
    std::fs::write(
        &spec,
        format!(
            "url: http://{addr}/find\nquery_element: kind\nresults:\n  - attribute: text\n    rule: html.body.p.txt\n"
        ),
    )
    .unwrap();
    let db = dir.path().join("g.sqlite");
    let report = gatherer::gather(&[Start::spec(&spec).unwrap()], &gathering::options(&db))
        .await
        .expect("the gatherer's database works");
    let source = &report.sources[0];
    assert_eq!(source.queries_failed, 2, "report:\n{report}");
    assert!(
        source
            .failures
            .iter()
            .all(|f| f.contains("HTTP 403") && f.contains("refused again")),
        "report:\n{report}"
    );
    // Each query was sent twice, the second time with the token of a
    // fresh form page.
    assert!(pages.load(Ordering::SeqCst) >= 2, "report:\n{report}");
}

/// On a shared plan (PostgreSQL), the stateful source is gathered by the
/// process that reads it, never planned for workers that would send its
/// requests without the pages they follow; the register is gathered whole
/// and the summary says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateful_source_on_a_shared_database_is_gathered_by_its_own_process() {
    let pg = gather::demo::postgres::LocalPostgres::start()
        .unwrap_or_else(|e| panic!("PostgreSQL for the tests: {e}"));
    let db = pg.database("stateful").unwrap();
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_for(&site, dir.path());
    let options = gathering::options(std::path::Path::new(&db));
    let report = gatherer::gather(&[Start::spec(&spec).unwrap()], &options)
        .await
        .expect("the gatherer's database works");
    assert!(!report.failed(), "report:\n{report}");
    let source = &report.sources[0];
    assert!(
        source
            .notes
            .iter()
            .any(|n| n.contains("not put into the shared plan")),
        "report:\n{report}"
    );
    assert_eq!(source.completeness.state(), "complete", "report:\n{report}");
    let url = site.base_url().join(quotes::PATH).unwrap().to_string();
    let stored = tokio::task::spawn_blocking(move || {
        use gather::store::{Location, Store};
        let store = Store::open_at(&Location::of(std::path::Path::new(&db))).unwrap();
        let source = store
            .sources()
            .unwrap()
            .into_iter()
            .find(|s| s.info.url == url)
            .expect("the source is stored");
        store.values(source.id).unwrap()
    })
    .await
    .unwrap();
    let expected = quotes::expected_texts();
    assert!(
        stored
            .values()
            .any(|v| v.iter().cloned().collect::<BTreeSet<_>>() == expected),
        "report:\n{report}"
    );
    site.shutdown().await;
}

/// The answers of more than a page are paged by post-backs: every page is
/// read, and the query's result pages are those of its answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_of_an_answer_paged_by_post_backs_is_gathered() {
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let report = gather_spec(&site, dir.path()).await;
    assert!(!report.failed(), "report:\n{report}");
    let mut sizes: std::collections::BTreeMap<(&str, &str), usize> = Default::default();
    for q in quotes::quotes() {
        *sizes.entry((q.author, q.tag)).or_default() += 1;
    }
    assert!(
        sizes.values().any(|&n| n > 2 * quotes::PAGE_SIZE),
        "an answer of three pages at least: {sizes:?}"
    );
    let pages: usize = sizes.values().map(|n| n.div_ceil(quotes::PAGE_SIZE)).sum();
    assert_eq!(report.sources[0].pages, pages as u64, "report:\n{report}");
    let stored = gathering::stored_values(
        &dir.path().join("g.sqlite"),
        site.base_url().join(quotes::PATH).unwrap().as_str(),
    );
    assert_eq!(
        stored.get("quote"),
        Some(&quotes::expected_texts()),
        "report:\n{report}"
    );
    site.shutdown().await;
}

/// `gather records` on an answer paged by post-backs names its next page's
/// post-back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pager_reading_names_the_post_back_to_the_next_page() {
    let grid = Grid::serve(None).await;
    let fetcher = gather::fetch::Fetcher::new(gather::fetch::FetchConfig::default()).unwrap();
    let form = fetcher.get(&grid.url).await.unwrap();
    let token = token_of(&form.text().text);
    let body =
        format!("__EVENTTARGET=&__EVENTARGUMENT=&__VIEWSTATE={token}&kind=a&btnSearch=Search");
    let request = gather::fetch::Request {
        method: gather::fetch::Method::Post,
        url: grid.url.clone(),
        body: Some(body.into_bytes()),
        content_type: Some("application/x-www-form-urlencoded".into()),
    };
    let answer = fetcher.fetch(&request).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("answer.html");
    std::fs::write(&page, &answer.body).unwrap();
    let out = tokio::task::spawn_blocking(move || {
        let page = page.to_str().unwrap();
        (
            crate::support::gather(&["records", page]),
            crate::support::gather(&["records", page, "--json"]),
        )
    })
    .await
    .unwrap();
    let (out, json) = out;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("next page: post-back javascript:__doPostBack('grid','Page$2')"),
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let postbacks = json["pager"]["postbacks"].as_array().unwrap();
    assert_eq!(postbacks.len(), 2, "{json}");
    assert_eq!(postbacks[1]["role"]["page"], 3, "{json}");
}

/// A post-back page the provider refuses (its state token gone stale) is
/// reported: the query fails naming the page, the pages before it are
/// kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_post_back_page_refused_for_its_token_is_reported() {
    // Without a refusal, every page is read, each from the page before.
    let grid = Grid::serve(None).await;
    let dir = tempfile::tempdir().unwrap();
    let report = grid.gather(dir.path()).await;
    assert!(!report.failed(), "report:\n{report}");
    assert_eq!(report.sources[0].pages, 3, "report:\n{report}");
    let names = grid.names(dir.path());
    assert_eq!(names.len(), GRID_ROWS, "{names:?}");

    let grid = Grid::serve(Some(3)).await;
    let dir = tempfile::tempdir().unwrap();
    let report = grid.gather(dir.path()).await;
    let source = &report.sources[0];
    assert_eq!(source.queries_failed, 1, "report:\n{report}");
    let failure = source.failures.join("\n");
    assert!(
        failure.contains("Page$3") && failure.contains("refused"),
        "report:\n{report}"
    );
    // The two pages before it stay gathered.
    let names = grid.names(dir.path());
    assert_eq!(names.len(), 2 * GRID_PAGE, "{names:?}");
}

const GRID_ROWS: usize = 9;
const GRID_PAGE: usize = 3;

/// A GridView-like list on a server of its own: the form posts back with a
/// `__VIEWSTATE` token that every answer issues anew and that only the
/// next request may send (the latest one issued); the list's pager posts
/// back `Page$k`. With `refuse`, that page's post-back is refused as a
/// stale token is.
struct Grid {
    url: url::Url,
}

#[derive(Default)]
struct GridState {
    issued: u64,
    latest: String,
    refuse: Option<usize>,
}

type GridShared = std::sync::Arc<std::sync::Mutex<GridState>>;

fn token_of(html: &str) -> String {
    let at = html.find("name=\"__VIEWSTATE\" value=\"").unwrap() + 26;
    html[at..].split('"').next().unwrap().to_string()
}

impl Grid {
    async fn serve(refuse: Option<usize>) -> Grid {
        use axum::routing::get;
        let state = GridShared::new(std::sync::Mutex::new(GridState {
            refuse,
            ..GridState::default()
        }));
        let router = axum::Router::new()
            .route("/List.aspx", get(grid_form).post(grid_post))
            .with_state(state);
        let addr = crate::support::serve(router).await;
        Grid {
            url: crate::support::url(addr, "/List.aspx"),
        }
    }

    async fn gather(&self, dir: &std::path::Path) -> Report {
        let spec = dir.join("grid.yaml");
        std::fs::write(
            &spec,
            format!(
                "url: {}\nform: form1\nquery_elements: [kind]\ndomains:\n  kind: [a]\nresults:\n  - prefix: html.body->table[0].\n  - attribute: name\n    rule: tr[*].td[0].txt\n",
                self.url
            ),
        )
        .unwrap();
        let mut options = gathering::options(&dir.join("g.sqlite"));
        options.fetch.respect_robots = false;
        gatherer::gather(&[Start::spec(&spec).unwrap()], &options)
            .await
            .expect("the gatherer's database works")
    }

    fn names(&self, dir: &std::path::Path) -> BTreeSet<String> {
        gathering::stored_values(&dir.join("g.sqlite"), self.url.as_str())
            .remove("name")
            .unwrap_or_default()
    }
}

fn grid_issue(state: &GridShared) -> String {
    let mut state = state.lock().unwrap();
    state.issued += 1;
    state.latest = format!("vs{:04}", state.issued * 7919 % 10000);
    state.latest.clone()
}

fn grid_page(token: &str, kind: &str, page: Option<usize>) -> axum::response::Html<String> {
    let mut rows = String::new();
    let mut pager = String::new();
    if let Some(page) = page {
        rows.push_str("<table id=\"grid\"><tr><th>Name</th></tr>");
        for i in (page - 1) * GRID_PAGE..(page * GRID_PAGE).min(GRID_ROWS) {
            rows.push_str(&format!("<tr><td>row {kind} {i}</td></tr>"));
        }
        rows.push_str("</table>");
        pager.push_str("<div class=\"pager\">");
        for n in 1..=GRID_ROWS.div_ceil(GRID_PAGE) {
            if n == page {
                pager.push_str(&format!("<span>{n}</span> "));
            } else {
                pager.push_str(&format!(
                    "<a href=\"javascript:__doPostBack('grid','Page${n}')\">{n}</a> "
                ));
            }
        }
        pager.push_str("</div>");
    }
    let selected = |v: &str| if v == kind { " selected" } else { "" };
    axum::response::Html(format!(
        r#"<html><body><form method="post" action="List.aspx" id="form1">
<input type="hidden" name="__EVENTTARGET" value="">
<input type="hidden" name="__EVENTARGUMENT" value="">
<input type="hidden" name="__VIEWSTATE" value="{token}">
<select name="kind"><option value="">any</option><option value="a"{}>A</option></select>
<input type="submit" name="btnSearch" value="Search">
{rows}{pager}
</form></body></html>"#,
        selected("a")
    ))
}

async fn grid_form(
    axum::extract::State(state): axum::extract::State<GridShared>,
) -> axum::response::Html<String> {
    let token = grid_issue(&state);
    grid_page(&token, "", None)
}

async fn grid_post(
    axum::extract::State(state): axum::extract::State<GridShared>,
    body: String,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let form: std::collections::HashMap<String, String> =
        url::form_urlencoded::parse(body.as_bytes())
            .into_owned()
            .collect();
    let field = |n: &str| form.get(n).cloned().unwrap_or_default();
    let refused =
        |why: &str| (axum::http::StatusCode::BAD_REQUEST, why.to_string()).into_response();
    let (latest, refuse) = {
        let state = state.lock().unwrap();
        (state.latest.clone(), state.refuse)
    };
    if field("__VIEWSTATE") != latest {
        return refused("The state information is invalid for this page.");
    }
    let page = if field("__EVENTTARGET") == "grid" {
        match field("__EVENTARGUMENT")
            .strip_prefix("Page$")
            .and_then(|n| n.parse().ok())
        {
            Some(n) if Some(n) == refuse => {
                return refused("The state information is invalid for this page.")
            }
            Some(n) if (1..=GRID_ROWS.div_ceil(GRID_PAGE)).contains(&n) => n,
            _ => return refused("Invalid postback or callback argument."),
        }
    } else if form.contains_key("btnSearch") {
        1
    } else {
        return refused("Invalid postback or callback argument.");
    };
    let token = grid_issue(&state);
    grid_page(&token, &field("kind"), Some(page)).into_response()
}

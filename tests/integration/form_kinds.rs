//! Only search forms are submitted on a page without metadata: a contact
//! and an unsubscribe form beside a search form are never sent, a login
//! form alone is left alone with a message, and a POST search form is
//! surfaced. The requests are counted by the servers.

use std::sync::{Arc, Mutex};

use axum::response::Html;
use axum::routing::{get, post};

use crate::support::{self, gather, stderr, stdout, Hits};

/// A results page listing three records that depend on the query.
fn results(query: &str) -> Html<String> {
    let rows: String = (0..3)
        .map(|i| format!("<tr><td>{query} hit {i}</td><td>{}</td></tr>", i * 7))
        .collect();
    Html(format!(
        "<html><body><h1>Results</h1><table>{rows}</table></body></html>"
    ))
}

/// A POST handler that records each request (and its body) in `hits`.
fn counted_post(hits: &Hits, bodies: &Arc<Mutex<Vec<String>>>) -> axum::routing::MethodRouter {
    let (hits, bodies) = (hits.clone(), bodies.clone());
    post(move |body: String| {
        let (hits, bodies) = (hits.clone(), bodies.clone());
        async move {
            let _guard = hits.enter();
            bodies.lock().unwrap().push(body.clone());
            let query = form_urlencoded::parse(body.as_bytes())
                .map(|(_, v)| v.into_owned())
                .collect::<Vec<_>>()
                .join(" ");
            results(&query)
        }
    })
}

async fn run_gather(url: String) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite").to_str().unwrap().to_string();
    tokio::task::spawn_blocking(move || {
        let out = gather(&[&url, "--db", &db, "--crawl-limit", "1"]);
        drop(dir);
        out
    })
    .await
    .unwrap()
}

const THREE_FORMS: &str = r#"<html><body>
<h2>Write to us</h2>
<form action="/contact" method="post"><label>Your name <input name="name"></label>
<label>Subject <select name="topic"><option>Billing</option><option>Support</option><option>Press</option></select></label>
<textarea name="message"></textarea><input type="submit" value="Send"></form>
<h2>Newsletter</h2>
<form action="/unsubscribe" method="post"><input name="address"><input type="submit" value="Unsubscribe"></form>
<h2>Catalogue</h2>
<form action="/search"><input type="search" name="q" placeholder="Search the catalogue"><input type="submit" value="Search"></form>
</body></html>"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn beside_contact_and_unsubscribe_forms_only_the_search_form_is_submitted() {
    let (contact, unsubscribe, search) = (Hits::default(), Hits::default(), Hits::default());
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let search_hits = search.clone();
    let addr = support::serve(
        axum::Router::new()
            .route("/", get(|| async { Html(THREE_FORMS) }))
            .route("/contact", counted_post(&contact, &bodies))
            .route("/unsubscribe", counted_post(&unsubscribe, &bodies))
            .route(
                "/search",
                get(move |q: axum::extract::Query<Vec<(String, String)>>| {
                    let hits = search_hits.clone();
                    async move {
                        let _guard = hits.enter();
                        results(&q.0.iter().map(|(_, v)| v.as_str()).collect::<String>())
                    }
                }),
            ),
    )
    .await;
    let out = run_gather(support::url(addr, "/").to_string()).await;
    assert_eq!(contact.count(), 0, "{}", stderr(&out));
    assert_eq!(unsubscribe.count(), 0, "{}", stderr(&out));
    assert!(search.count() > 0, "{}", stderr(&out));

    // `gather forms` says the same before anything is sent.
    let url = support::url(addr, "/").to_string();
    let listed = tokio::task::spawn_blocking(move || gather(&["forms", &url, "--json"]))
        .await
        .unwrap();
    assert_eq!(listed.status.code(), Some(0), "{}", stderr(&listed));
    let forms: Vec<serde_json::Value> = stdout(&listed)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = forms.iter().map(|f| f["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["contact", "mailing_list", "search"], "{forms:?}");
    let submitted: Vec<bool> = forms
        .iter()
        .map(|f| f["submitted"].as_bool().unwrap())
        .collect();
    assert_eq!(submitted, [false, false, true]);
    assert_eq!(forms[2]["inputs"][0]["role"], "search_query");
    assert_eq!(forms[0]["inputs"][1]["role"], "other");
    assert!(forms[1]["why_not"]
        .as_str()
        .unwrap()
        .contains("Unsubscribe"));
    assert_eq!(contact.count() + unsubscribe.count(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_form_alone_is_left_alone_and_the_message_says_how_to_name_it() {
    let login = Hits::default();
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let page = r#"<html><body><h1>Members</h1>
        <form id="signin" action="/login" method="post"><label>User <input name="user"></label>
        <label>Password <input type="password" name="pw"></label><button>Sign in</button></form></body></html>"#;
    let addr = support::serve(
        axum::Router::new()
            .route("/", get(move || async move { Html(page) }))
            .route("/login", counted_post(&login, &bodies)),
    )
    .await;
    let out = run_gather(support::url(addr, "/").to_string()).await;
    assert_eq!(login.count(), 0, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("form #0 \"signin\""), "{err}");
    assert!(err.contains("asks for a password"), "{err}");
    assert!(err.contains("--forms"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_post_search_form_is_surfaced_with_its_state_token_carried() {
    let search = Hits::default();
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let page = r#"<html><body><h1>Library catalogue</h1>
        <form id="aspnetForm" action="/Catalogue/Search.aspx" method="post">
        <input type="hidden" name="__VIEWSTATE" value="dDwtMTA4NzQ">
        <input type="hidden" name="__EVENTVALIDATION" value="wEWBAL">
        <label for="kw">Search the catalogue</label> <input id="kw" name="ctl00$Keywords" type="text">
        <select name="ctl00$SortBy"><option value="rel">Relevance</option><option value="title">Title</option></select>
        <input type="submit" name="ctl00$Go" value="Search"></form></body></html>"#;
    let addr = support::serve(
        axum::Router::new()
            .route("/", get(move || async move { Html(page) }))
            .route("/Catalogue/Search.aspx", counted_post(&search, &bodies)),
    )
    .await;
    let out = run_gather(support::url(addr, "/").to_string()).await;
    assert!(search.count() > 0, "{}", stderr(&out));
    let bodies = bodies.lock().unwrap();
    // The state tokens go with every query; the sorting option is never
    // varied (it keeps its default).
    for body in bodies.iter() {
        assert!(body.contains("__VIEWSTATE=dDwtMTA4NzQ"), "{body}");
        assert!(body.contains("__EVENTVALIDATION=wEWBAL"), "{body}");
        assert!(body.contains("ctl00%24SortBy=rel"), "{body}");
    }
}

//! Honest completeness on a prefix search: titles that start with
//! characters the prefix domain does not try (`#`, `É`, `¿`, digits) are
//! reached by queries of their own once the gathered titles show those
//! characters, and named when the query limit leaves them; the form page's
//! stated number of titles is weighed against what was gathered. And a
//! search form beside a newsletter and a contact form: only the search
//! form is sent. The demo site counts every request.

use std::collections::BTreeSet;

use crate::gathering;

use gather::demo::{surface, DemoConfig, DemoSite};

async fn site() -> DemoSite {
    DemoSite::start(DemoConfig::default())
        .await
        .expect("demo site starts")
}

/// The prefixes sent to the catalogue's search, decoded.
fn prefixes_sent(site: &DemoSite) -> BTreeSet<String> {
    site.requests()
        .into_iter()
        .filter(|r| r.target.starts_with("/surface/zeichen/search"))
        .filter_map(|r| {
            let (_, query) = r.target.split_once('?')?;
            url::form_urlencoded::parse(query.as_bytes())
                .find(|(n, _)| n == "q")
                .map(|(_, v)| v.into_owned())
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn titles_that_start_beyond_the_prefixes_letters_are_queried_and_gathered() {
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let url = site.base_url().join("/surface/zeichen/meta/").unwrap();
    let report = gathering::gather_url(&url, &gathering::options(&db)).await;
    let source = &report.sources[0];
    let expected = surface::expected("zeichen").unwrap();
    assert_eq!(
        gathering::stored_values(&db, url.as_str())["titel"],
        expected["titel"],
        "report:\n{report}"
    );
    // The characters the special titles start with, and the digits of the
    // numbered ones.
    let queried = &source.initials.queried;
    for c in ['#', 'É', '¿', 'Ö', 'Ü', '1', '4', '7'] {
        assert!(queried.contains(&c), "{c}: report:\n{report}");
    }
    assert!(queried.iter().all(|c| !c.is_ascii_alphabetic()));
    assert!(source.initials.unreached.is_empty());
    // Each was sent once, as a prefix of its own.
    let sent = prefixes_sent(&site);
    for c in ['#', 'É', '¿', 'Ö', '1'] {
        assert!(sent.contains(&format!("{c}%")), "{sent:?}");
    }
    assert_eq!(
        source.stated_total,
        Some(surface::row_count("zeichen") as u64)
    );
    assert_eq!(source.completeness.state(), "complete", "report:\n{report}");
    let summary = report.to_string();
    assert!(
        summary.contains("first characters the prefixes do not try, queried: #, 1, "),
        "{summary}"
    );
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn first_characters_the_query_limit_leaves_are_named_and_the_source_is_incomplete() {
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let url = site.base_url().join("/surface/zeichen/meta/").unwrap();
    // The 26 letters and three more queries.
    let options = gather::gatherer::Options {
        max_queries: Some(29),
        ..gathering::options(&db)
    };
    let report = gathering::gather_url(&url, &options).await;
    let source = &report.sources[0];
    assert!(!source.initials.unreached.is_empty(), "report:\n{report}");
    assert_eq!(
        source.completeness.state(),
        "incomplete",
        "report:\n{report}"
    );
    let why = source.completeness.why().unwrap_or_default();
    assert!(
        why.contains("first characters no prefix reached: "),
        "{why}"
    );
    // The titles gathered fall short of the number the form page states.
    assert!(why.contains("the form page states 150 rows"), "{why}");
    let json = report.to_json();
    let unreached = json["sources"][0]["first_characters_unreached"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(unreached, source.initials.unreached.len());
    assert!(report.to_string().contains("not reached: "));
    site.shutdown().await;
}

/// The search form's one input is a radio group whose first class is
/// checked (no "any"): the form as it stands lists one class, and every
/// class is reached by probing the group like a select.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_search_form_beside_a_newsletter_and_a_contact_form_is_sent() {
    let site = site().await;
    let expected = surface::expected("verein").unwrap();
    for path in ["/surface/verein/", "/surface/verein/meta/"] {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("g.sqlite");
        let url = site.base_url().join(path).unwrap();
        let report = gathering::gather_url(&url, &gathering::options(&db)).await;
        let stored = gathering::stored_values(&db, url.as_str());
        let boats: BTreeSet<String> = stored.values().flatten().cloned().collect();
        assert!(
            expected["boat"].is_subset(&boats),
            "{path}: report:\n{report}\n{stored:?}"
        );
    }
    let elsewhere: Vec<String> = site
        .requests()
        .into_iter()
        .filter(|r| {
            r.target.starts_with("/surface/verein/newsletter")
                || r.target.starts_with("/surface/verein/contact")
        })
        .map(|r| format!("{} {}", r.method, r.target))
        .collect();
    assert_eq!(elsewhere, Vec::<String>::new());
    site.shutdown().await;
}

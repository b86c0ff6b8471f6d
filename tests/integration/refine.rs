//! Surfacing the whole database: truncated answers are noticed and refined
//! (by the price select a region leaves open, by one more character of a
//! `%` prefix), within the provider's limits, resumably. The demo site's
//! limited guide and library catalogue are the providers; what is gathered
//! is compared with their own databases, and the site's request log shows
//! what was sent.

use std::collections::{BTreeMap, BTreeSet};

use crate::gathering;
use crate::support;

use gather::demo::{DemoConfig, DemoSite, LoggedRequest, Variant};

async fn site() -> DemoSite {
    DemoSite::start(DemoConfig {
        hotels: 1500,
        titles: 1200,
        articles: 1500,
        ..DemoConfig::default()
    })
    .await
    .expect("demo site starts")
}

/// The non-empty values of a form field in the requests sent to `script`
/// (as sent, form-encoded).
fn field_values_sent(site: &DemoSite, script: &str, field: &str) -> Vec<String> {
    let key = format!("{field}=");
    sent_to(site, script)
        .into_iter()
        .filter_map(|r| {
            let (_, value) = r.target.split_once(&key)?;
            let value = value.split('&').next()?.to_string();
            (!value.is_empty()).then_some(value)
        })
        .collect()
}

fn sent_to(site: &DemoSite, script: &str) -> Vec<LoggedRequest> {
    site.requests()
        .into_iter()
        .filter(|r| r.target.starts_with(script))
        .collect()
}

/// The provider's `DB.MaxPages` of a form page.
async fn max_pages(site: &DemoSite, variant: Variant) -> usize {
    let page = reqwest::get(site.url(variant))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let at = page
        .find("NAME=\"DB.MaxPages\" CONTENT=\"")
        .expect("DB.MaxPages")
        + 28;
    page[at..].split('"').next().unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_limited_guide_is_refined_by_price_to_every_hotel() {
    let site = site().await;
    let limit = max_pages(&site, Variant::Limited).await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let url = site.url(Variant::Limited);
    let report = gathering::gather_url(&url, &gathering::options(&db)).await;
    let source = &report.sources[0];
    assert!(!report.failed(), "report:\n{report}");
    assert!(source.queries_refined > 0, "report:\n{report}");
    assert!(source.truncated_left.is_empty(), "report:\n{report}");
    assert_eq!(
        source.stats.as_ref().unwrap().incomplete,
        None,
        "report:\n{report}"
    );
    assert_eq!(
        gathering::stored_values(&db, url.as_str()),
        site.expected(Variant::Limited)
    );
    // Never more pages for one query than the provider allows, and no page
    // twice.
    let mut per_query: BTreeMap<String, usize> = BTreeMap::new();
    let mut targets = BTreeSet::new();
    for request in sent_to(&site, "/cgi-bin/liste.pl") {
        assert!(
            targets.insert(request.target.clone()),
            "{} twice",
            request.target
        );
        *per_query.entry(request.hotel_search()).or_default() += 1;
    }
    assert!(per_query.values().all(|&n| n <= limit), "{per_query:?}");
    assert!(
        per_query.values().any(|&n| n == limit),
        "some region hit the limit"
    );
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_capped_catalogue_gives_every_title_and_a_rerun_sends_nothing() {
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let url = site.url(Variant::Catalogue);

    // Within a query limit the refinements stop, and the summary says which
    // truncated queries are left and why.
    let mut options = gathering::options(&db);
    options.max_queries = Some(60);
    let report = gathering::gather_url(&url, &options).await;
    let source = &report.sources[0];
    assert_eq!(source.queries_sent, 60, "report:\n{report}");
    assert!(!source.truncated_left.is_empty(), "report:\n{report}");
    let incomplete = source.stats.as_ref().unwrap().incomplete.clone();
    let incomplete = incomplete.expect("incomplete");
    assert!(
        incomplete.contains("more hits than shown") && incomplete.contains("--max-queries 60"),
        "{incomplete}"
    );
    assert_eq!(source.hits_estimate, Some(1200), "report:\n{report}");
    let first_run = sent_to(&site, "/cgi-bin/katalog.pl").len();
    assert_eq!(first_run, 60);

    // Without the limit the run goes on where the first stopped.
    let report = gathering::gather_url(&url, &gathering::options(&db)).await;
    let source = &report.sources[0];
    assert!(!report.failed(), "report:\n{report}");
    assert!(source.truncated_left.is_empty(), "report:\n{report}");
    assert_eq!(source.stats.as_ref().unwrap().incomplete, None);
    assert_eq!(
        gathering::stored_values(&db, url.as_str()),
        site.expected(Variant::Catalogue),
        "every title of the catalogue"
    );
    let sent = sent_to(&site, "/cgi-bin/katalog.pl");
    let distinct: BTreeSet<&str> = sent.iter().map(|r| r.target.as_str()).collect();
    assert_eq!(distinct.len(), sent.len(), "no query was sent twice");
    // The provider's titles are sorted: extensions that sort before the
    // last title shown are not sent. Far fewer queries than the two-character
    // static plan (36 × 37).
    assert!(sent.len() < 36 * 37 / 2, "{} queries", sent.len());

    // A third run has nothing left to send.
    let report = gathering::gather_url(&url, &gathering::options(&db)).await;
    assert_eq!(report.sources[0].queries_sent, 0, "report:\n{report}");
    assert_eq!(sent_to(&site, "/cgi-bin/katalog.pl").len(), sent.len());
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_that_are_whole_send_no_refinement() {
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    for variant in [Variant::Listed, Variant::Paged, Variant::NavigationUrl] {
        let db = dir.path().join(format!("{variant:?}.sqlite"));
        let report = gathering::gather_url(&site.url(variant), &gathering::options(&db)).await;
        let source = &report.sources[0];
        assert_eq!(source.queries_refined, 0, "{variant:?}: {report}");
        assert_eq!(source.queries_sent, 8, "{variant:?}: {report}");
        // One page per answer, no count, no cap: nothing tells them whole.
        // Walks that read a pager to its end are.
        let state = source.completeness.state();
        let expected = if variant == Variant::Listed {
            "unknown"
        } else {
            "complete"
        };
        assert_eq!(state, expected, "{variant:?}: {report}");
    }
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_shows_the_refinement_and_check_names_a_wrong_refine_element() {
    let site = site().await;
    let url = site.url(Variant::Catalogue).to_string();
    let out = tokio::task::spawn_blocking(move || support::gather(&["plan", &url]))
        .await
        .unwrap();
    let stdout = support::stdout(&out);
    assert!(
        stdout.contains("refinement of truncated queries (hit count from DB.ResultCount")
            && stdout.contains("DB.MaxResults 50")
            && stdout.contains("by q (a % prefix extended by one of 37 characters)"),
        "{stdout}"
    );

    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("guide.yaml");
    std::fs::write(
        &spec,
        format!(
            "url: {}\nquery_element: region\nrefine: [preis, ort]\nmax_results: 40\nresults:\n  - attribute: name\n    rule: html.body->table[1].tr[*].td[1].b.txt\n",
            site.url(Variant::Paged)
        ),
    )
    .unwrap();
    let path = spec.display().to_string();
    let out = tokio::task::spawn_blocking(move || support::gather(&["check", "--spec", &path]))
        .await
        .unwrap();
    let stderr = support::stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("key refine: DB.Refine names \"ort\", which is a text field"),
        "{stderr}"
    );
    assert!(!stderr.contains("\"preis\""), "{stderr}");
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keywords_learned_from_the_answers_reach_most_of_an_archive() {
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let url = site.url(Variant::Archive);
    let expected = site.expected(Variant::Archive);
    let words_sent = |site: &DemoSite| -> Vec<String> {
        sent_to(site, "/cgi-bin/archiv.pl")
            .into_iter()
            .map(|r| r.target)
            .collect()
    };

    // A first run with a budget of 100 queries: the three seed words, then
    // words of the titles gathered so far.
    let mut options = gathering::options(&db);
    options.max_queries = Some(100);
    let report = gathering::gather_url(&url, &options).await;
    let source = &report.sources[0];
    assert_eq!(source.queries_planned, 3);
    assert_eq!(source.queries_learned, 97, "report:\n{report}");
    assert!(
        source
            .learning_stopped
            .as_deref()
            .is_some_and(|why| why.contains("--max-queries 100")),
        "report:\n{report}"
    );
    // Learned words prove nothing of the rows no word reached: the
    // summary does not call the archive complete.
    assert_eq!(source.completeness.state(), "unknown", "report:\n{report}");
    let first = words_sent(&site);
    assert_eq!(first.len(), 100);

    // Resumed with a larger budget, it goes on with new words: no word is
    // sent twice, and most of the archive is reached.
    options.max_queries = Some(500);
    let report = gathering::gather_url(&url, &options).await;
    assert_eq!(report.sources[0].queries_skipped, 3, "report:\n{report}");
    let sent = words_sent(&site);
    let distinct: BTreeSet<&String> = sent.iter().collect();
    assert_eq!(distinct.len(), sent.len(), "a word was sent twice");
    assert!(sent.len() <= 500);
    let found = gathering::stored_values(&db, url.as_str());
    let reached = found["nr"].intersection(&expected["nr"]).count();
    let share = reached as f64 / expected["nr"].len() as f64;
    assert!(
        share >= 0.9,
        "{reached} of {} articles",
        expected["nr"].len()
    );
    assert!(found["nr"].is_subset(&expected["nr"]));
    assert_eq!(
        report.sources[0].completeness.state(),
        "unknown",
        "report:\n{report}"
    );
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_learn_a_field_without_a_domain_starts_from_the_form_pages_words() {
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let spec = keyword_spec(
        dir.path(),
        &site.url(Variant::Archive),
        "w",
        &[
            ("nr", "html.body->table[0].tr[*].td[0].txt"),
            ("titel", "html.body->table[0].tr[*].td[1].txt"),
        ],
    );
    let db = dir.path().join("g.sqlite");
    let mut options = gathering::options(&db);
    options.max_queries = Some(150);
    let start = || gather::gatherer::Start::spec(&spec).unwrap();

    // Without --learn the text field has no domain: a problem of the spec.
    let report = gather::gatherer::gather(&[start()], &options)
        .await
        .unwrap();
    assert!(report.bad_input(), "report:\n{report}");
    assert!(
        report.to_string().contains("text field"),
        "report:\n{report}"
    );

    options.learn = true;
    let report = gather::gatherer::gather(&[start()], &options)
        .await
        .unwrap();
    let source = &report.sources[0];
    assert!(source.queries_learned > 0, "report:\n{report}");
    assert_eq!(source.queries_sent, 150, "report:\n{report}");
    let expected = site.expected(Variant::Archive);
    let found = gathering::stored_values(&db, site.url(Variant::Archive).as_str());
    let share = found["nr"].len() as f64 / expected["nr"].len() as f64;
    assert!(
        share > 0.5,
        "{} of {}",
        found["nr"].len(),
        expected["nr"].len()
    );
    site.shutdown().await;
}

/// With `--learn`, a field without a domain is first sent the values its
/// form page enumerates ("by component: editor, export, … or fonts"), all
/// of them, as a person reads the help text, before the page's most
/// frequent words.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_learn_a_field_without_a_domain_starts_from_the_values_its_page_enumerates() {
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let spec = keyword_spec(
        dir.path(),
        &site.base_url().join("/surface/notes/").unwrap(),
        "q",
        &[("title", "html.body->table[0].tbody.tr[*].td[1].txt")],
    );
    let db = dir.path().join("g.sqlite");
    let mut options = gathering::options(&db);
    options.learn = true;
    options.max_queries = Some(8);
    let report =
        gather::gatherer::gather(&[gather::gatherer::Start::spec(&spec).unwrap()], &options)
            .await
            .unwrap();
    assert_eq!(report.sources[0].queries_sent, 8, "report:\n{report}");
    let sent: BTreeSet<String> = sent_to(&site, "/surface/notes/search")
        .iter()
        .filter_map(|r| {
            let url = url::Url::parse(&format!("http://provider.test{}", r.target)).ok()?;
            let q = url.query_pairs().find(|(k, _)| k == "q")?.1.to_lowercase();
            Some(q)
        })
        .collect();
    let components: BTreeSet<String> = [
        "editor", "export", "import", "printing", "sync", "login", "search", "fonts",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(sent, components);
    site.shutdown().await;
}

/// A spec of the form at `url` whose one query element is `element` (a
/// text field, no domain), with these results (attribute, rule), written
/// into `dir`.
fn keyword_spec(
    dir: &std::path::Path,
    url: &url::Url,
    element: &str,
    results: &[(&str, &str)],
) -> std::path::PathBuf {
    let mut text = format!("url: {url}\nquery_element: {element}\nresults:\n");
    for (attribute, rule) in results {
        text.push_str(&format!("  - attribute: {attribute}\n    rule: {rule}\n"));
    }
    let spec = dir.join("spec.yaml");
    std::fs::write(&spec, text).unwrap();
    spec
}

/// Gathers the demo site's provider at `path` into a new SQLite file.
async fn gather_provider(
    path: &str,
) -> (
    DemoSite,
    tempfile::TempDir,
    std::path::PathBuf,
    url::Url,
    gather::gatherer::Report,
) {
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let url = site.base_url().join(path).unwrap();
    let report = gathering::gather_url(&url, &gathering::options(&db)).await;
    (site, dir, db, url, report)
}

/// Result pages asked per query of a provider's result script: the query
/// is the target without its page number.
fn pages_per_query(site: &DemoSite, script: &str, page: &str) -> BTreeMap<String, usize> {
    let mut per_query: BTreeMap<String, usize> = BTreeMap::new();
    for request in sent_to(site, script) {
        let query: Vec<&str> = request
            .target
            .split(['?', '&'])
            .skip(1)
            .filter(|p| !p.starts_with(page) && !p.ends_with('='))
            .collect();
        let mut query = query;
        query.sort_unstable();
        *per_query.entry(query.join("&")).or_default() += 1;
    }
    per_query
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cap_no_single_count_shows_is_found_from_the_titles_and_the_stated_count() {
    use gather::demo::shelf;
    let (site, _dir, db, url, report) = gather_provider(shelf::PATH).await;
    let source = &report.sources[0];
    assert!(!report.failed(), "report:\n{report}");
    assert!(source.queries_refined > 0, "report:\n{report}");
    assert!(source.truncated_left.is_empty(), "report:\n{report}");
    assert_eq!(source.stats.as_ref().unwrap().incomplete, None);
    // The sentence above the list is the hit count: the planned queries'
    // counts add up to the shop's size.
    assert_eq!(
        source.hits_estimate,
        Some(shelf::books().len() as u64),
        "report:\n{report}"
    );
    assert_eq!(
        gathering::stored_values(&db, url.as_str()),
        shelf::expected()
    );
    assert_eq!(source.completeness.state(), "complete", "report:\n{report}");
    // At most a third of the requests of the static plan that reaches
    // every book (every subject, format and decade): the stated hit count
    // picks the split of each subject expected to be cheapest.
    let asked = sent_to(&site, "/shelf/find").len();
    let full = shelf::SUBJECTS.len() * shelf::FORMATS.len() * shelf::DECADES.len();
    assert!(asked * 3 <= full, "{asked} of {full}");
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refined_queries_read_their_pages_like_their_parents() {
    use gather::demo::stellen;
    let (site, _dir, db, url, report) = gather_provider(stellen::PATH).await;
    let source = &report.sources[0];
    assert!(!report.failed(), "report:\n{report}");
    assert!(source.truncated_left.is_empty(), "report:\n{report}");
    assert_eq!(source.stats.as_ref().unwrap().incomplete, None);
    assert_eq!(
        gathering::stored_values(&db, url.as_str()),
        stellen::expected()
    );
    let per_query = pages_per_query(&site, "/stellen/liste.cgi", "seite=");
    assert!(
        per_query.values().all(|&n| n <= stellen::MAX_PAGES),
        "{per_query:?}"
    );
    // A refined query (with `umfang`) walks its pages, whose links carry
    // `umfang` though the navigation pattern does not name it.
    assert!(
        per_query
            .iter()
            .any(|(query, &n)| query.contains("umfang=") && n > 1),
        "{per_query:?}"
    );
    // A query whose first page links more pages than DB.MaxPages allows
    // is refined at once: the care jobs (26 pages) are asked for one page,
    // their refinements read the rest.
    assert_eq!(per_query.get("bereich=pfl"), Some(&1), "{per_query:?}");
    // Fewer result pages than the smallest static plan reaching every job
    // (every field, hours and district: 121 pages).
    let pages: usize = per_query.values().sum();
    assert!(pages < 100, "{pages} result pages: {per_query:?}");
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_walk_that_cannot_follow_its_pager_is_truncated_not_whole() {
    use gather::demo::stellen;
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    // A spec whose navigation pattern matches no pager link: every walk
    // ends on its first page while the page links a next one.
    let spec = dir.path().join("stellen.yaml");
    let form = site.base_url().join(stellen::PATH).unwrap();
    std::fs::write(
        &spec,
        format!(
            "url: {form}\nquery_elements: [bereich]\nrefine: [umfang]\n\
             navigation_url: /stellen/andere.cgi?seite=*\n\
             results:\n  - attribute: nummer\n    rule: html.body->dl[0].dd[*].tt[0].txt\n"
        ),
    )
    .unwrap();
    let out = tokio::task::spawn_blocking(move || {
        support::gather(&[
            "--spec",
            spec.to_str().unwrap(),
            "--db",
            db.to_str().unwrap(),
            "--json",
        ])
    })
    .await
    .unwrap();
    let report: serde_json::Value =
        serde_json::from_str(&support::stdout(&out)).expect("JSON summary");
    let source = &report["sources"][0];
    let incomplete = source["incomplete"].as_str().unwrap_or_default();
    assert!(
        !source["truncated_left"].as_array().unwrap().is_empty(),
        "{report:#}"
    );
    assert!(
        incomplete.contains("a next page not followed"),
        "{report:#}"
    );
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refinement_that_never_pays_stops_and_says_so() {
    use gather::demo::events;
    let (site, _dir, db, url, report) = gather_provider(events::PATH).await;
    let source = &report.sources[0];
    assert!(source.queries_sent <= 200, "report:\n{report}");
    let stopped = source.refining_stopped.clone().unwrap_or_default();
    assert!(stopped.contains("stopped paying"), "report:\n{report}");
    assert!(report.to_string().contains("refining stopped"));
    assert_eq!(source.completeness.state(), "incomplete");
    let incomplete = source.stats.as_ref().unwrap().incomplete.clone();
    assert!(
        incomplete.is_some_and(|i| i.contains("stopped paying")),
        "report:\n{report}"
    );
    assert_eq!(
        gathering::stored_values(&db, url.as_str())["event"],
        events::expected()["event"]
    );
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_text_field_refines_once_the_selects_are_used_up() {
    use gather::demo::fewo;
    let (site, _dir, db, url, report) = gather_provider(fewo::PATH).await;
    let source = &report.sources[0];
    assert!(!report.failed(), "report:\n{report}");
    assert!(source.truncated_left.is_empty(), "report:\n{report}");
    assert_eq!(source.completeness.state(), "complete", "report:\n{report}");
    assert_eq!(
        gathering::stored_values(&db, url.as_str()),
        fewo::expected()
    );
    // The towns went into the text field, each an exact name gathered.
    let towns: BTreeSet<String> = fewo::expected()["ort"].clone();
    let filled = field_values_sent(&site, "/fewo/suche", "ort");
    assert!(!filled.is_empty());
    // Each truncated query tries the towns its own island's queries found
    // first, and no more once their hit counts add up: no more queries than
    // a static plan that knew every island's towns.
    // Once, whether the provider takes a wildcard after a letter was
    // probed (`B%`, `B*`): it does not, so no prefix was sent after.
    let (probes, filled): (Vec<String>, Vec<String>) = filled
        .into_iter()
        .partition(|o| o.ends_with("%25") || o.ends_with('*'));
    assert!(probes.len() <= 2, "{probes:?}");
    let known_towns: usize = fewo::GEBIETE
        .iter()
        .map(|g| g.3.len() * fewo::PERSONEN.len())
        .sum();
    let sent = sent_to(&site, "/fewo/suche").len() - probes.len();
    assert!(sent <= known_towns, "{sent} queries");
    assert!(
        filled
            .iter()
            .all(|o| towns.iter().any(|t| urlencoding_eq(o, t))),
        "{filled:?}"
    );
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn towns_no_capped_answer_lists_are_reached_by_prefixes_the_provider_takes() {
    use gather::demo::cottages;
    let (site, _dir, db, url, report) = gather_provider(cottages::PATH).await;
    let source = &report.sources[0];
    assert!(!report.failed(), "report:\n{report}");
    assert!(source.truncated_left.is_empty(), "report:\n{report}");
    assert_eq!(source.completeness.state(), "complete", "report:\n{report}");
    // Every cottage and every town, the villages no capped answer lists
    // among them.
    assert_eq!(
        gathering::stored_values(&db, url.as_str()),
        cottages::expected()
    );
    let towns = field_values_sent(&site, cottages::SCRIPT, "town");
    // `%` was probed once and refused; `*` taken, and prefixes sent.
    let percent: Vec<&String> = towns.iter().filter(|t| t.ends_with("%25")).collect();
    assert_eq!(percent.len(), 1, "{towns:?}");
    assert!(towns.iter().filter(|t| t.ends_with('*')).count() > 1);
    // The first letters are sent once a county, every guests open, not
    // once for each county and guests: only the probe, and the split of
    // a capped letter whose rows the towns' whole answers do not hold,
    // name the guests.
    let sent = sent_to(&site, cottages::SCRIPT);
    let letters_by_guests: Vec<&str> = sent
        .iter()
        .map(|r| r.target.as_str())
        .filter(|t| t.contains("*") && !t.contains("guests=&"))
        .collect();
    assert!(
        letters_by_guests.len() <= 2 + 4 * 2,
        "{letters_by_guests:?}"
    );
    for (county, ..) in cottages::COUNTIES {
        for letter in 'A'..='Z' {
            let once = format!("county={county}&guests=&town={letter}*");
            let n = sent.iter().filter(|r| r.target.contains(&once)).count();
            assert_eq!(n, 1, "{once}");
        }
    }
    // Under twice the requests of a plan that knows every town.
    assert!(
        sent.len() < 2 * cottages::smallest_static_plan(),
        "{} requests",
        sent.len()
    );
    site.shutdown().await;
}

/// Whether a form-encoded value (ISO-8859-1 `%XX`) is `text`.
fn urlencoding_eq(encoded: &str, text: &str) -> bool {
    let bytes: Vec<u8> = text
        .chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
        .collect();
    let mut want = String::new();
    for b in bytes {
        if b.is_ascii_alphanumeric() || b"-_.*".contains(&b) {
            want.push(b as char);
        } else if b == b' ' {
            want.push('+');
        } else {
            want.push_str(&format!("%{b:02X}"));
        }
    }
    want.eq_ignore_ascii_case(encoded)
}

/// The keyword queries `sent`, in order: none twice, at least `pairs`
/// of two words, each narrowing a word sent before it whose answer was
/// `capped`.
fn narrowed_after_their_capped_word(sent: &[String], pairs: usize, capped: impl Fn(&str) -> bool) {
    let distinct: BTreeSet<&String> = sent.iter().collect();
    assert_eq!(distinct.len(), sent.len(), "a query was sent twice");
    let narrowed: Vec<&String> = sent.iter().filter(|q| q.contains(' ')).collect();
    assert!(
        narrowed.len() >= pairs,
        "{} pairs of words: {sent:?}",
        narrowed.len()
    );
    for pair in &narrowed {
        let (first, _) = pair.split_once(' ').unwrap();
        assert!(
            capped(first),
            "{pair:?} narrows {first:?}, whose answer was whole"
        );
        let at = sent.iter().position(|q| q == *pair).unwrap();
        // The search ignores case: the word may have been sent as the
        // gathered values write it, the pair as another does.
        assert!(
            sent[..at]
                .iter()
                .any(|q| q.to_lowercase() == first.to_lowercase()),
            "{pair:?} before {first:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_english_keyword_search_listing_its_newest_matches_is_narrowed_by_word_pairs() {
    use gather::demo::pictures;
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let url = site.base_url().join(pictures::PATH).unwrap();
    let mut options = gathering::options(&db);
    options.max_queries = Some(200);
    let report = gathering::gather_url(&url, &options).await;
    let source = &report.sources[0];
    assert_eq!(source.queries_planned, 3, "report:\n{report}");
    assert_eq!(source.queries_learned, 197, "report:\n{report}");
    assert_eq!(source.completeness.state(), "unknown", "report:\n{report}");

    // The library names no hit count rule and no cap: both are read from
    // "Found 1,234 pictures matching …" above a list of 50. Words whose
    // answer was capped are then narrowed by a second word, and only
    // those: a word whose every match was listed needs no second word.
    let sent: Vec<String> = sent_to(&site, pictures::SCRIPT)
        .into_iter()
        .map(|r| {
            let query = r.target.split_once('?').map_or("", |(_, q)| q);
            url::form_urlencoded::parse(query.as_bytes())
                .find(|(name, _)| name == "q")
                .map(|(_, value)| value.into_owned())
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(sent.len(), 200);
    narrowed_after_their_capped_word(&sent, 10, |word| {
        pictures::search(word).len() > pictures::MAX_SHOWN
    });

    // What was gathered is the library's, and within 200 queries most of it.
    let expected = pictures::expected();
    let found = gathering::stored_values(&db, url.as_str());
    assert!(found["no"].is_subset(&expected["no"]));
    let share = found["no"].len() as f64 / expected["no"].len() as f64;
    assert!(
        share >= 0.45,
        "{} of {} pictures",
        found["no"].len(),
        expected["no"].len()
    );
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn places_no_capped_answer_lists_are_reached_by_words_of_the_places_gathered() {
    use gather::demo::hofladen;
    let (site, _dir, db, url, report) = gather_provider(hofladen::PATH).await;
    let source = &report.sources[0];
    assert!(!report.failed(), "report:\n{report}");
    // Every shop a query can reach: the small places through a word they
    // share with a place a capped answer listed (Bad, Remagen, Zell).
    assert_eq!(
        gathering::stored_values(&db, url.as_str()),
        hofladen::reachable()
    );
    let sent = field_values_sent(&site, hofladen::SCRIPT, "gemeinde");
    for word in ["Bad", "Remagen", "Zell"] {
        assert!(sent.iter().any(|v| v == word), "{word}: {sent:?}");
    }
    // Both wildcards probed once, neither taken: no other prefix is sent.
    let wild: Vec<&String> = sent
        .iter()
        .filter(|v| v.ends_with('*') || v.ends_with("%25"))
        .collect();
    assert_eq!(wild.len(), 2, "{wild:?}");
    // Briedern shares no word: its district is left truncated, and the
    // summary says so.
    assert_eq!(
        source.completeness.state(),
        "incomplete",
        "report:\n{report}"
    );
    assert_eq!(source.truncated_left.len(), 1, "report:\n{report}");
    let (query, truncation, why) = &source.truncated_left[0];
    assert!(query.contains("kreis=COC"), "{query}");
    assert!(
        matches!(truncation, gather::refine::Truncation::MoreHits { .. }),
        "{truncation:?}"
    );
    assert_eq!(*why, "no way to refine it");
    let summary = report.to_string();
    assert!(
        summary.contains("1 truncated queries left (by no way to refine it)"),
        "{summary}"
    );
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_french_classifieds_search_whose_count_follows_the_query_is_narrowed_by_word_pairs() {
    use gather::demo::annonces;
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let url = site.base_url().join(annonces::PATH).unwrap();
    let mut options = gathering::options(&db);
    options.max_queries = Some(120);
    let report = gathering::gather_url(&url, &options).await;
    let source = &report.sources[0];
    assert_eq!(source.queries_planned, 3, "report:\n{report}");
    assert_eq!(source.queries_learned, 117, "report:\n{report}");

    // "« vélo » : 1 234 résultats – les 20 moins chers": the hit count is
    // read after the query's own word, and words whose answer was capped
    // are narrowed by a second word (words combine with AND), each after
    // its first word.
    // The site is served in ISO-8859-1: words are sent in it.
    let sent: Vec<String> = field_values_sent(&site, annonces::SCRIPT, "mots")
        .into_iter()
        .map(|value| {
            let spaced = value.replace('+', " ");
            percent_encoding::percent_decode(spaced.as_bytes())
                .map(char::from)
                .collect()
        })
        .collect();
    assert_eq!(sent.len(), 120);
    narrowed_after_their_capped_word(&sent, 5, |word| {
        annonces::search(word).len() > annonces::MAX_SHOWN
    });

    let expected = annonces::expected();
    let found = gathering::stored_values(&db, url.as_str());
    assert!(found["ref"].is_subset(&expected["ref"]));
    assert!(found["titre"].is_subset(&expected["titre"]));
    let share = found["ref"].len() as f64 / expected["ref"].len() as f64;
    assert!(
        share >= 0.22,
        "{} of {} ads",
        found["ref"].len(),
        expected["ref"].len()
    );
    site.shutdown().await;
}

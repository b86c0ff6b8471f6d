//! Template induction on the demo site's result pages, served on 127.0.0.1:
//! `gather induce` on saved answers, and `gather spec --induce` on the form
//! page without metadata, whose spec, gathered, yields the site's values.

use std::collections::{BTreeMap, BTreeSet};

use gather::demo::{DemoSite, Variant};
use gather::hel::Rule;
use gather::page::Page;
use gather::spec::Spec;

use crate::gathering;
use crate::support::{gather, stderr, stdout};

async fn site() -> DemoSite {
    crate::support::demo_site(300).await
}

/// The region names and, per region, its hotel names from the provider's database.
fn hotels_by_region(site: &DemoSite) -> BTreeMap<String, Vec<String>> {
    let conn = rusqlite::Connection::open(site.database_path()).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT region.region, hotel.name FROM hotel JOIN region ON region.id = hotel.region_id",
        )
        .unwrap();
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let rows = stmt
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
        .unwrap();
    for row in rows {
        let (region, name) = row.unwrap();
        out.entry(region).or_default().push(name);
    }
    out
}

async fn answer(site: &DemoSite, region: &str) -> Vec<u8> {
    let mut url = site.base_url().join("/cgi-bin/auswahl.pl").unwrap();
    let encoded: String =
        url::form_urlencoded::byte_serialize(&encoding_rs::WINDOWS_1252.encode(region).0).collect();
    url.set_query(Some(&format!("region={encoded}")));
    let resp = reqwest::get(url).await.unwrap();
    assert_eq!(resp.status(), 200);
    resp.bytes().await.unwrap().to_vec()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn induced_rules_named_by_example_hold_on_an_unseen_answer() {
    let site = site().await;
    let hotels = hotels_by_region(&site);
    let regions: Vec<&String> = hotels.keys().collect();
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for region in &regions[..3] {
        let path = dir.path().join(format!("{}.html", files.len()));
        std::fs::write(&path, answer(&site, region).await).unwrap();
        files.push(path.to_str().unwrap().to_string());
    }
    let unseen = Page::from_bytes(&answer(&site, regions[4]).await, None);
    let first = &hotels[regions[0]][0];
    let second = &hotels[regions[1]][0];
    let mut args: Vec<String> = vec!["induce".into()];
    args.extend(files.iter().cloned());
    for name in [first, second] {
        args.extend(["--name".to_string(), format!("hotel={name}")]);
    }
    let out = tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        gather(&args)
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let printed = stdout(&out);
    // Ready to paste: the output is the `results:` of a spec.
    let spec = Spec::from_yaml(&format!("url: http://x/\n{printed}"), "induced").unwrap();
    assert_eq!(spec.results.len(), 1, "{printed}");
    let item = &spec.results[0];
    assert_eq!(item.attribute.as_deref(), Some("hotel"));
    let rule = item.rule.as_deref().unwrap();
    assert!(rule.contains(" WHERE "), "not anchored: {rule}");
    assert!(printed.contains(first.as_str()), "{printed}");
    // On an answer it never saw, the rule gives exactly that region's hotels.
    let got: BTreeSet<String> = Rule::parse(rule)
        .unwrap()
        .eval(&unseen)
        .flatten()
        .into_iter()
        .collect();
    let want: BTreeSet<String> = hotels[regions[4]].iter().cloned().collect();
    assert_eq!(got, want);

    // Without --name every slot is printed; a text on no page is an error.
    let mut all = vec!["induce"];
    all.extend(files.iter().map(String::as_str));
    let out = gather(&all);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let spec = Spec::from_yaml(&format!("url: http://x/\n{}", stdout(&out)), "all").unwrap();
    assert!(spec.results.len() >= 3, "{}", stdout(&out));
    all.extend(["--name", "x=no such hotel anywhere"]);
    let out = gather(&all);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("occurs on none of the pages"),
        "{}",
        stderr(&out)
    );
    // The restricted top-down distance (--exact) finds the same slot.
    let mut exact: Vec<String> = vec!["induce".into(), "--exact".into()];
    exact.extend(files.iter().cloned());
    exact.extend(["--name".to_string(), format!("hotel={first}")]);
    let exact: Vec<&str> = exact.iter().map(String::as_str).collect();
    let out = gather(&exact);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains(rule), "{}", stdout(&out));
    let out = gather(&["induce", &files[0]]);
    assert_eq!(out.status.code(), Some(2), "one page is refused");
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_induced_spec_gathers_the_sites_values() {
    let site = site().await;
    let form = site.base_url().join("/plain/").unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let spec_path = dir.path().join("induced.yaml");
    let db = dir.path().join("g.sqlite");
    let (spec_file, db_file) = (
        spec_path.to_str().unwrap().to_string(),
        db.to_str().unwrap().to_string(),
    );
    let (out, gathered) = tokio::task::spawn_blocking(move || {
        let out = gather(&["spec", "--induce", &form]);
        std::fs::write(&spec_file, stdout(&out)).unwrap();
        let gathered = gather(&["--spec", &spec_file, "--db", &db_file]);
        (out, gathered)
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    // The operator is told which slots have no name yet.
    assert!(text.contains("# slots it could not name"), "{text}");
    assert!(
        stderr(&out).contains("could not name slot_"),
        "{}",
        stderr(&out)
    );
    let spec = Spec::from_yaml(&text, "induced.yaml").unwrap();
    // The region reaches every hotel; the price only narrows a region's
    // hotels ("alle" means any): it is a refinement, not multiplied in.
    assert_eq!(spec.query_element.as_deref(), Some("region"), "{text}");
    assert_eq!(
        spec.refine,
        Some(gather::spec::Values::List(vec!["preis".into()])),
        "{text}"
    );
    // The choice is explained in the spec's header.
    assert!(
        text.contains("preis (select): refinement element"),
        "{text}"
    );
    assert_eq!(gathered.status.code(), Some(0), "{}", stderr(&gathered));
    let url = site.base_url().join("/plain/").unwrap();
    let stored = gathering::stored_values(&db, url.as_str());
    let expected = site.expected(Variant::Listed);
    // The slot showing the region is named after the query element.
    assert_eq!(stored["region"], expected["region"], "{text}");
    for attribute in ["ort", "name"] {
        assert!(
            stored.values().any(|v| *v == expected[attribute]),
            "no induced attribute holds exactly the site's {attribute} values:\n{text}"
        );
    }
    // A page with metadata is sent to `gather spec` instead.
    let listed = site.url(Variant::Listed).to_string();
    let out = tokio::task::spawn_blocking(move || gather(&["spec", "--induce", &listed]))
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("carries DB.* metadata"),
        "{}",
        stderr(&out)
    );
    site.shutdown().await;
}

#[cfg(feature = "bench")]
#[test]
fn the_benchmark_scores_induced_rules_on_pages_it_did_not_learn_from() {
    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("pages");
    let expected = dir.path().join("expected.json");
    let (p, e) = (pages.to_str().unwrap(), expected.to_str().unwrap());
    let out = gather(&["bench", "induce", p, e, "--write-listings", "6"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = gather(&["bench", "induce", p, e, "--train", "2", "--runs", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = stdout(&out);
    assert!(report.contains("2 to induce on"), "{report}");
    assert!(report.contains("the template aligns with"), "{report}");
    for attribute in ["category", "name", "number", "price"] {
        let line = report
            .lines()
            .find(|l| l.trim_start().starts_with(attribute))
            .unwrap_or_else(|| panic!("no line for {attribute}:\n{report}"));
        let figures: Vec<&str> = line.split_whitespace().skip(1).take(2).collect();
        assert_eq!(figures, ["1.000", "1.000"], "{line}");
    }
    // Too few pages for training and testing.
    let out = gather(&["bench", "induce", p, e, "--train", "6"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let out = gather(&["bench", "induce", p, "/no/such/file.json"]);
    assert_eq!(out.status.code(), Some(2));
}

/// The attributes a reader of each surfacing provider's result pages names,
/// which surfacing must name the same from the page (a header, a label, a
/// definition term, a heading's template words, a select's choices).
const NAMED: [(&str, &[&str]); 5] = [
    ("films", &["genre", "title", "year", "director", "country"]),
    ("buecherei", &["verfasser", "erschienen", "medium"]),
    ("jobs", &["company", "location", "salary"]),
    ("ferien", &["kreis", "ort", "betten"]),
    ("nursery", &["height", "hardiness"]),
];

/// Gathers `url` into a fresh database with at most `max_queries`: the
/// output, the database's directory (kept while it lives) and its file.
async fn gather_fresh(
    url: &url::Url,
    max_queries: u64,
) -> (std::process::Output, tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let (shown, db_file) = (url.to_string(), db.to_str().unwrap().to_string());
    let out = tokio::task::spawn_blocking(move || {
        gather(&[
            &shown,
            "--db",
            &db_file,
            "--max-queries",
            &max_queries.to_string(),
        ])
    })
    .await
    .unwrap();
    (out, dir, db)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_gather_surfaces_forms_that_say_nothing() {
    let site = site().await;
    for (provider, named) in NAMED {
        let url = site
            .base_url()
            .join(&format!("/surface/{provider}/"))
            .unwrap();
        let (out, _dir, db) = gather_fresh(&url, 500).await;
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{provider}: {err}");
        // The plan it chose is shown: inputs with their roles and reasons.
        assert!(err.contains("query element"), "{provider}: {err}");
        let stored = gathering::stored_values(&db, url.as_str());
        let expected = gather::demo::surface::expected(provider).unwrap();
        // Every attribute of the database is gathered whole, without
        // template words, under some name.
        for (attribute, want) in &expected {
            assert!(
                stored.values().any(|got| got == want),
                "{provider}: no gathered attribute holds exactly the {attribute} values\n{err}"
            );
        }
        // Those the page names carry the page's name.
        for attribute in named {
            assert_eq!(
                stored.get(*attribute),
                expected.get(*attribute),
                "{provider}: {attribute}\n{err}"
            );
        }
    }
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inputs_are_chosen_by_what_they_return() {
    let site = site().await;
    let films = site.base_url().join("/surface/films/").unwrap().to_string();
    let library = site
        .base_url()
        .join("/surface/buecherei/")
        .unwrap()
        .to_string();
    let (films_out, library_out) = tokio::task::spawn_blocking(move || {
        (
            gather(&["spec", "--induce", &films]),
            gather(&["spec", "--induce", &library]),
        )
    })
    .await
    .unwrap();
    assert_eq!(films_out.status.code(), Some(0), "{}", stderr(&films_out));
    let text = stdout(&films_out);
    let spec = Spec::from_yaml(&text, "films.yaml").unwrap();
    // Of four selects, the genre partitions the films; decade and country
    // only narrow a genre ("Any …"); rows per page is a page size, never
    // probed.
    assert_eq!(spec.query_element.as_deref(), Some("genre"), "{text}");
    assert_eq!(
        spec.refine,
        Some(gather::spec::Values::List(vec![
            "decade".into(),
            "country".into()
        ])),
        "{text}"
    );
    assert!(!text.contains("per (select)"), "{text}");
    assert!(!text.contains("per=\""), "{text}");
    // The heading's words are template: the genre comes without them.
    assert!(text.contains("match/^Films filed under (.+?)$/"), "{text}");

    // A prefix text field beside a filter select: the select alone brings
    // nothing, the field with `*` does.
    assert_eq!(
        library_out.status.code(),
        Some(0),
        "{}",
        stderr(&library_out)
    );
    let text = stdout(&library_out);
    let spec = Spec::from_yaml(&text, "library.yaml").unwrap();
    assert_eq!(spec.query_element.as_deref(), Some("stichwort"), "{text}");
    assert_eq!(
        spec.domains.get("stichwort"),
        Some(&gather::spec::Values::One("/[A-Z]\\*/".into())),
        "{text}"
    );
    assert_eq!(
        spec.refine,
        Some(gather::spec::Values::List(vec!["medium".into()])),
        "{text}"
    );
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gathering_that_finds_nothing_is_an_error_naming_what_was_tried() {
    let site = site().await;
    let form = site.base_url().join("/surface/buecherei/").unwrap();
    let dir = tempfile::tempdir().unwrap();
    // The library's select alone: every answer is empty.
    let empty = dir.path().join("empty.yaml");
    std::fs::write(
        &empty,
        format!(
            "url: {form}\nquery_element: medium\nresults:\n- attribute: titel\n  rule: html->ol[0].li[*].strong.txt\n"
        ),
    )
    .unwrap();
    // No result rule at all.
    let ruleless = dir.path().join("ruleless.yaml");
    std::fs::write(&ruleless, format!("url: {form}\nquery_element: medium\n")).unwrap();
    let (d1, d2) = (dir.path().join("1.sqlite"), dir.path().join("2.sqlite"));
    let args: Vec<[String; 4]> = vec![
        [
            "--spec".into(),
            empty.to_str().unwrap().into(),
            "--db".into(),
            d1.to_str().unwrap().into(),
        ],
        [
            "--spec".into(),
            ruleless.to_str().unwrap().into(),
            "--db".into(),
            d2.to_str().unwrap().into(),
        ],
    ];
    let outs = tokio::task::spawn_blocking(move || {
        args.iter()
            .map(|a| gather(&a.iter().map(String::as_str).collect::<Vec<_>>()))
            .collect::<Vec<_>>()
    })
    .await
    .unwrap();
    assert_eq!(outs[0].status.code(), Some(2), "{}", stderr(&outs[0]));
    let err = stderr(&outs[0]);
    assert!(err.contains("nothing gathered"), "{err}");
    assert!(err.contains("html->ol[0].li[*].strong.txt"), "{err}");
    assert_eq!(outs[1].status.code(), Some(2), "{}", stderr(&outs[1]));
    assert!(
        stderr(&outs[1]).contains("no result rule"),
        "{}",
        stderr(&outs[1])
    );
    site.shutdown().await;
}

/// The requests the demo site received under `prefix` since `from`.
fn requests_under(site: &DemoSite, prefix: &str, from: usize) -> Vec<String> {
    site.requests()
        .into_iter()
        .skip(from)
        .map(|r| r.target)
        .filter(|t| t.starts_with(prefix))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn probe_answers_are_the_gatherings_first_answers_and_a_resumed_run_does_not_probe() {
    let site = site().await;
    for provider in ["films", "buecherei"] {
        let url = site
            .base_url()
            .join(&format!("/surface/{provider}/"))
            .unwrap();
        let prefix = format!("/surface/{provider}/");
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("g.sqlite");
        let run = |extra: &'static [&'static str]| {
            let (shown, db_file) = (url.to_string(), db.to_str().unwrap().to_string());
            tokio::task::spawn_blocking(move || {
                let mut args = vec![shown.as_str(), "--db", db_file.as_str()];
                args.extend_from_slice(extra);
                gather(&args)
            })
        };
        let before = site.requests().len();
        let out = run(&[]).await.unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{provider}: {err}");
        let first = requests_under(&site, &prefix, before);
        // No request is sent twice: a query whose request a probe sent
        // takes the probe's answer.
        let distinct: BTreeSet<&String> = first.iter().collect();
        assert_eq!(distinct.len(), first.len(), "{provider}: {first:#?}");
        assert!(
            err.contains("answers taken from the probes"),
            "{provider}: {err}"
        );
        assert!(err.contains("probes: "), "{provider}: {err}");
        let values = gathering::stored_values(&db, url.as_str());
        let expected = gather::demo::surface::expected(provider).unwrap();
        for (attribute, want) in &expected {
            assert!(
                values.values().any(|got| got == want),
                "{provider}: {attribute} not gathered whole\n{err}"
            );
        }

        // Again on the same database: the spec the probes induced is
        // stored; only the form page is fetched, no probe, no query.
        let before = site.requests().len();
        let out = run(&[]).await.unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{provider}: {err}");
        assert_eq!(
            requests_under(&site, &prefix, before),
            vec![prefix.clone()],
            "{provider}: {err}"
        );
        assert!(err.contains("surfaced before"), "{provider}: {err}");
        assert!(err.contains("query element"), "{provider}: {err}");

        // --fresh probes again.
        let before = site.requests().len();
        let out = run(&["--fresh"]).await.unwrap();
        assert_eq!(out.status.code(), Some(0), "{provider}: {}", stderr(&out));
        assert!(
            requests_under(&site, &prefix, before).len() > 2,
            "{provider}"
        );
    }
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_probe_leaves_a_form_without_metadata_unqueried_and_metadata_is_never_probed() {
    let site = site().await;
    let dir = tempfile::tempdir().unwrap();
    let bare = site.base_url().join("/surface/ferien/").unwrap();
    let described = site.base_url().join("/surface/ferien/meta/").unwrap();
    let (d1, d2) = (dir.path().join("1.sqlite"), dir.path().join("2.sqlite"));
    let before = site.requests().len();
    let (b, db1) = (bare.to_string(), d1.to_str().unwrap().to_string());
    let out = tokio::task::spawn_blocking(move || {
        gather(&[&b, "--db", &db1, "--no-probe", "--crawl-limit", "1"])
    })
    .await
    .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    // The form page only: no probe, no query.
    assert_eq!(
        requests_under(&site, "/surface/ferien/", before),
        vec!["/surface/ferien/".to_string()],
        "{err}"
    );
    assert!(!err.contains("probes: "), "{err}");

    // With DB.* metadata the form is gathered as described: every request
    // is a query of its plan (kreis), none a probe of another input.
    let before = site.requests().len();
    let (m, db2) = (described.to_string(), d2.to_str().unwrap().to_string());
    let out = tokio::task::spawn_blocking(move || gather(&[&m, "--db", &db2]))
        .await
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.contains("probes: "), "{err}");
    let searches: Vec<String> = requests_under(&site, "/surface/ferien/search", before);
    assert!(!searches.is_empty(), "{err}");
    assert!(
        searches
            .iter()
            .all(|t| t.contains("kreis=") && !t.contains("kreis=&")),
        "{searches:#?}"
    );
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_select_that_answers_only_beside_a_text_field_is_queried_with_it() {
    let site = site().await;
    let nursery = site
        .base_url()
        .join("/surface/nursery/")
        .unwrap()
        .to_string();
    let out = tokio::task::spawn_blocking(move || gather(&["spec", "--induce", &nursery]))
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let spec = Spec::from_yaml(&text, "nursery.yaml").unwrap();
    // The section alone, and the name field alone at the form's default
    // section, show only part of the plants: both are queried, the
    // section by its values, the name by its first letter.
    assert_eq!(
        spec.query_elements,
        Some(gather::spec::Values::List(vec![
            "sect".into(),
            "latin".into()
        ])),
        "{text}"
    );
    assert_eq!(
        spec.domains.get("latin"),
        Some(&gather::spec::Values::One("/[A-Z]%/".into())),
        "{text}"
    );
    assert!(text.contains("queried together with latin"), "{text}");
    // The section, shown in bold above the plants, is read too.
    assert!(
        spec.results
            .iter()
            .any(|r| r.attribute.as_deref() == Some("sect")),
        "{text}"
    );
    site.shutdown().await;
}

/// A page too large to align whole: induction says it sampled the rows, and
/// the rule it learnt from the sample (named by a text from far beyond the
/// sample) reads every row of the whole pages.
#[test]
fn large_pages_are_aligned_on_a_sample_and_the_rule_reads_every_row() {
    let rows = 20_000;
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    let mut names = Vec::new();
    let mut pages = Vec::new();
    for seed in [11, 12] {
        let (html, values) = gather::demo::listing::generate_long_page(seed, rows);
        let path = dir.path().join(format!("all-{seed}.html"));
        std::fs::write(&path, &html).unwrap();
        files.push(path.to_str().unwrap().to_string());
        names.push(values.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>());
        pages.push(Page::parse(&html));
    }
    let page_nodes = pages[0].node_count();
    assert!(
        page_nodes > gather::induce::sample::SAMPLE_ABOVE_NODES,
        "{page_nodes}"
    );
    let mut args = vec!["induce", &files[0], &files[1]];
    let named = [
        format!("name={}", names[0][rows - 7]),
        format!("name={}", names[1][rows / 2]),
    ];
    for n in &named {
        args.extend(["--name", n.as_str()]);
    }
    let out = gather(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let printed = stdout(&out);
    assert!(printed.starts_with("# Sampled"), "{printed}");
    // The named rows are kept besides the first ones.
    let cut = format!("of {rows} children of html.body.ul aligned");
    let line = printed
        .lines()
        .find(|l| l.contains(&files[0]) && l.contains(&cut))
        .unwrap_or_else(|| panic!("no {cut:?} for {} in\n{printed}", files[0]));
    let kept: usize = line
        .split(": ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let first = gather::induce::sample::SAMPLE_ROWS;
    assert!((first + 1..=3 * first).contains(&kept), "{line}");
    assert!(stderr(&out).contains("sample"), "{}", stderr(&out));
    let spec = Spec::from_yaml(&format!("url: http://x/\n{printed}"), "induced").unwrap();
    let rule = Rule::parse(spec.results[0].rule.as_deref().unwrap()).unwrap();
    for (page, want) in pages.iter().zip(&names) {
        assert_eq!(&rule.eval(page).flatten(), want, "{printed}");
    }
    // The values shown are the whole page's.
    assert!(printed.contains(&format!("({rows} values)")), "{printed}");
}

/// Gathers `url` into a fresh database: the exit status, standard error,
/// the values stored per attribute and the requests under `prefix`.
async fn gather_counted(
    site: &DemoSite,
    url: &url::Url,
    prefix: &str,
) -> (
    Option<i32>,
    String,
    BTreeMap<String, BTreeSet<String>>,
    usize,
) {
    let before = site.requests().len();
    let (out, _dir, db) = gather_fresh(url, 500).await;
    let requests = requests_under(site, prefix, before).len();
    let stored = gathering::stored_values(&db, url.as_str());
    (out.status.code(), stderr(&out), stored, requests)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_browser_is_gathered_by_walking_its_default_answer() {
    let site = site().await;
    let bare = site.base_url().join("/surface/tables/").unwrap();
    let described = site.base_url().join("/surface/tables/meta/").unwrap();
    let (code, err, stored, requests) = gather_counted(&site, &bare, "/surface/tables/").await;
    assert_eq!(code, Some(0), "{err}");
    // The page itself lists every row: no form is sent, no probe of the
    // filter form.
    assert!(err.contains("the form page itself lists 437 rows"), "{err}");
    let expected = gather::demo::surface::expected("tables").unwrap();
    for (attribute, want) in &expected {
        let got: BTreeSet<String> = stored.get(attribute).cloned().unwrap_or_default();
        assert_eq!(&got, want, "{attribute}\n{err}");
    }
    // The footer's query time, different on every page, is not data.
    assert!(
        !stored
            .values()
            .flatten()
            .any(|v| v.contains("Queries took")),
        "{stored:?}"
    );
    let (code, err, _, written) = gather_counted(&site, &described, "/surface/tables/").await;
    assert_eq!(code, Some(0), "{err}");
    assert!(
        requests as f64 <= 1.25 * written as f64,
        "{requests} requests without metadata, {written} with it"
    );
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_that_takes_wildcards_literally_is_a_keyword_search() {
    let site = site().await;
    let bare = site.base_url().join("/surface/notes/").unwrap();
    let (code, err, stored, _) = gather_counted(&site, &bare, "/surface/notes/").await;
    assert_eq!(code, Some(0), "{err}");
    // `S%` brought rows that hold "S%" as typed, not rows starting with S.
    assert!(err.contains("a keyword field"), "{err}");
    assert!(!err.contains("a prefix search"), "{err}");
    let expected = gather::demo::surface::expected("notes").unwrap();
    for (attribute, want) in &expected {
        assert!(
            stored.values().any(|got| got == want),
            "no gathered attribute holds exactly the {attribute} values\n{err}"
        );
    }
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_keyword_search_whose_site_lists_every_record_is_read_from_that_list() {
    let site = site().await;
    let bare = site.base_url().join("/surface/lexikon/").unwrap();
    let (code, err, stored, _) = gather_counted(&site, &bare, "/surface/lexikon/").await;
    assert_eq!(code, Some(0), "{err}");
    // No word of the form page finds an article; the index of the
    // articles, linked from the menu, gives the words, and it links to
    // every article their answers found: the index is read, no word is
    // learned.
    assert!(
        err.contains("that list is read, and no word is learned"),
        "{err}"
    );
    let requests = site.requests();
    assert!(
        requests.iter().any(|r| r.target == "/surface/lexikon/alle"),
        "the index of the articles was not read"
    );
    let searches = requests
        .iter()
        .filter(|r| r.target.starts_with("/surface/lexikon/search"))
        .count();
    assert!(
        searches <= 11,
        "{searches} searches: only the probes are sent\n{err}"
    );
    // Each title whole, as the index lists it.
    let expected = gather::demo::surface::expected("lexikon").unwrap();
    let titles = &expected["titel"];
    assert!(
        stored.values().any(|got| got == titles),
        "no gathered attribute holds exactly the titles\n{err}\n{stored:?}"
    );
    site.shutdown().await;
}

/// A site's search page as a CMS's project template makes it: a box that
/// searches the pages' titles for every word given (the wildcard of `S%`
/// dropped, so it finds the titles with the word "s"), 10 answers a page
/// with a "Next" link, nothing for an empty search, and no link to the
/// site's pages.
const TITLES: [&str; 36] = [
    "chevy s-10",
    "chevrolet monte carlo s",
    "chevrolet monte carlo",
    "chevrolet malibu",
    "chevrolet chevelle malibu",
    "chevrolet impala",
    "chevrolet vega",
    "chevrolet vega wagon",
    "chevy c20",
    "ford pinto",
    "ford pinto wagon",
    "ford torino",
    "ford gran torino",
    "ford maverick",
    "plymouth fury",
    "plymouth fury gran sedan",
    "plymouth valiant",
    "plymouth duster",
    "dodge dart custom",
    "dodge colt",
    "dodge colt wagon",
    "toyota corolla",
    "toyota corona wagon",
    "toyota corona",
    "datsun 510 wagon",
    "datsun pl510",
    "honda civic",
    "honda civic cvcc",
    "honda accord wagon",
    "buick skylark",
    "buick century custom",
    "amc hornet",
    "amc hornet sportabout wagon",
    "amc gremlin",
    "mazda rx2 coupe",
    "mazda glc wagon",
];

/// The description the search lists under a car's title: its origin
/// ("USA" for every car the first probes find), year and cylinders.
fn car_description(i: usize) -> String {
    let origin = if (21..29).contains(&i) || i >= 34 {
        "Japan"
    } else {
        "USA"
    };
    format!("{origin}, {}: {} cylinders", 1970 + i % 12, 4 + 2 * (i % 3))
}

/// The titles that hold every word of `query` (none for no word), with
/// their places.
fn titles_holding(query: &str) -> Vec<(usize, &'static str)> {
    let words: Vec<String> = query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    TITLES
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, t)| {
            let held: Vec<&str> = t.split(|c: char| !c.is_alphanumeric()).collect();
            !words.is_empty() && words.iter().all(|w| held.contains(&w.as_str()))
        })
        .collect()
}

fn car_search(query: &str, page: usize) -> String {
    let hits = titles_holding(query);
    let shown = |s: &str| {
        s.replace('&', "&amp;")
            .replace('"', "&quot;")
            .replace('<', "&lt;")
    };
    let mut html = format!(
        "<html><head><title>Search</title></head><body><h1>Search</h1>\
         <form action=\"/search/\" method=\"get\"><input type=\"text\" name=\"query\" value=\"{}\">\
         <input type=\"submit\" value=\"Search\"></form>",
        shown(query)
    );
    let pages = hits.len().div_ceil(10).max(1);
    let page = page.clamp(1, pages);
    if !hits.is_empty() {
        html.push_str("<ul>");
        for &(i, title) in hits.iter().skip((page - 1) * 10).take(10) {
            html.push_str(&format!(
                "<li><h4><a href=\"/car-{i}/\">{title}</a></h4> {}</li>",
                car_description(i)
            ));
        }
        html.push_str("</ul>");
        if page < pages {
            let q: String = url::form_urlencoded::byte_serialize(query.as_bytes()).collect();
            html.push_str(&format!(
                "<a href=\"/search/?query={q}&amp;page={}\">Next</a>",
                page + 1
            ));
        }
    } else if !query.is_empty() {
        html.push_str("No results found");
    }
    html.push_str("</body></html>");
    html
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_keyword_search_that_drops_the_wildcard_is_probed_with_the_words_of_its_rows() {
    let router = axum::Router::new().route("/search/", axum::routing::get(car_search_page));
    let addr = crate::support::serve(router).await;
    let url = crate::support::url(addr, "/search/");
    let (out, _dir, db) = gather_fresh(&url, 200).await;
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    // `S%` and `S*` found the two titles with the word "s": no prefix.
    assert!(err.contains("a keyword field"), "{err}");
    assert!(!err.contains("a prefix search"), "{err}");
    // The words of those two rows started the learning; every title was
    // reached from them.
    assert!(err.contains("or of the rows found"), "{err}");
    let stored = gathering::stored_values(&db, url.as_str());
    let titles: BTreeSet<String> = TITLES.iter().map(|t| t.to_string()).collect();
    assert!(
        stored.values().any(|got| *got == titles),
        "no gathered attribute holds exactly the titles\n{err}\n{stored:?}"
    );
    // Every row the probes brought is an American car: "USA, " in front
    // of every description they showed is data, not template. Every
    // description is kept whole, the Japanese cars' too, and no attribute
    // is named after it.
    let descriptions: BTreeSet<String> = (0..TITLES.len()).map(car_description).collect();
    assert!(
        stored.values().any(|got| *got == descriptions),
        "no gathered attribute holds exactly the descriptions\n{err}\n{stored:?}"
    );
    assert!(!stored.contains_key("usa"), "{stored:?}");
}

/// A car's line as the search lists it.
/// The search's answer to `?query=…&page=…` ([`car_search`]).
async fn car_search_page(
    q: axum::extract::Query<BTreeMap<String, String>>,
) -> axum::response::Html<String> {
    let query = q.get("query").cloned().unwrap_or_default();
    let page = q.get("page").and_then(|p| p.parse().ok()).unwrap_or(1);
    axum::response::Html(car_search(&query, page))
}

fn car_line(i: usize) -> String {
    format!(
        "<li><h4><a href=\"/car-{i}/\">{}</a></h4> USA, {}: 6 cylinders</li>",
        TITLES[i],
        1970 + i % 12
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pages_own_listing_beside_a_search_that_answers_elsewhere_is_not_the_whole_database() {
    // A make's page lists its nine cars in two pages; the site's search
    // box in its header answers at /search/ and reaches every car.
    let make = |q: axum::extract::Query<BTreeMap<String, String>>| async move {
        let page: usize = q.get("page").and_then(|p| p.parse().ok()).unwrap_or(1);
        let shown: Vec<usize> = if page == 1 {
            (0..5).collect()
        } else {
            (5..9).collect()
        };
        let mut html = String::from(
            "<html><head><title>Chevrolet</title></head><body>\
             <form action=\"/search/\" method=\"get\"><input type=\"text\" name=\"query\">\
             <input type=\"submit\" value=\"Search\"></form><h1>Chevrolet</h1><ul>",
        );
        for i in shown {
            html.push_str(&car_line(i));
        }
        html.push_str("</ul>");
        if page == 1 {
            html.push_str("<a href=\"/cars/chevrolet/?page=2\">Next</a>");
        }
        html.push_str("</body></html>");
        axum::response::Html(html)
    };
    let router = axum::Router::new()
        .route("/cars/chevrolet/", axum::routing::get(make))
        .route("/search/", axum::routing::get(car_search_page));
    let addr = crate::support::serve(router).await;
    let url = crate::support::url(addr, "/cars/chevrolet/");
    let (out, _dir, db) = gather_fresh(&url, 200).await;
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.contains("the form page itself lists"), "{err}");
    let stored = gathering::stored_values(&db, url.as_str());
    let titles: BTreeSet<String> = TITLES.iter().map(|t| t.to_string()).collect();
    assert!(
        stored.values().any(|got| *got == titles),
        "the search reaches every car, not only the make's nine\n{err}\n{stored:?}"
    );
}

/// A search page that links to an index of every car, and answers with
/// the titles alone, three a page with a "Next" link; a word with a
/// wildcard finds nothing, unless `dropped`: then the wildcard is dropped
/// (`S%` finds the titles with the word "s").
fn titles_search(query: &str, page: usize, dropped: bool) -> String {
    let query = if query.contains(['%', '*']) && !dropped {
        ""
    } else {
        query
    };
    let hits = titles_holding(query);
    let mut html = String::from(
        "<html><head><title>Cars</title></head><body><h1>Cars</h1>\
         <nav><a href=\"/cars/\">All cars A-Z</a> <a href=\"/help/\">Help</a></nav>\
         <form action=\"/\" method=\"get\"><input type=\"text\" name=\"query\">\
         <input type=\"submit\" value=\"Search\"></form><ul>",
    );
    for &(i, title) in hits.iter().skip((page - 1) * 3).take(3) {
        html.push_str(&format!("<li><a href=\"/car-{i}/\">{title}</a></li>"));
    }
    html.push_str("</ul>");
    if hits.len() > page * 3 {
        html.push_str(&format!(
            "<a href=\"/?query={query}&amp;page={}\">Next</a>",
            page + 1
        ));
    }
    html.push_str("</body></html>");
    html
}

/// The index of every car, as a list of links to their pages.
async fn all_cars() -> axum::response::Html<String> {
    let mut html =
        String::from("<html><head><title>All cars</title></head><body><h1>All cars</h1><ul>");
    for (i, title) in TITLES.iter().enumerate() {
        html.push_str(&format!("<li><a href=\"/car-{i}/\">{title}</a></li>"));
    }
    html.push_str("</ul></body></html>");
    axum::response::Html(html)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paged_keyword_search_whose_site_lists_every_car_is_read_from_the_list() {
    for dropped in [false, true] {
        let search = move |q: axum::extract::Query<BTreeMap<String, String>>| async move {
            let query = q.get("query").cloned().unwrap_or_default();
            let page = q.get("page").and_then(|p| p.parse().ok()).unwrap_or(1);
            axum::response::Html(titles_search(&query, page, dropped))
        };
        let router = axum::Router::new()
            .route("/", axum::routing::get(search))
            .route("/cars/", axum::routing::get(all_cars));
        let addr = crate::support::serve(router).await;
        let url = crate::support::url(addr, "/");
        paged_titles_are_read_from_the_list(&url).await;
    }
}

async fn paged_titles_are_read_from_the_list(url: &url::Url) {
    let (out, _dir, db) = gather_fresh(url, 200).await;
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    // `S%` brought the titles with the word "s", bare links: no prefix
    // search. The answers' pager links are the search's own pages, not
    // records.
    assert!(!err.contains("a prefix search"), "{err}");
    assert!(err.contains("that list is read"), "{err}");
    let stored = gathering::stored_values(&db, url.as_str());
    let titles: BTreeSet<String> = TITLES.iter().map(|t| t.to_string()).collect();
    assert!(
        stored.values().any(|got| *got == titles),
        "every car, from the list\n{err}\n{stored:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_site_index_without_the_answers_fields_does_not_replace_the_search() {
    // The search page links to an index of every car ("All cars A-Z"),
    // but the index lists only the titles, and the search's answers hold
    // each car's origin, year and cylinders as well: the search is kept.
    let home = || async {
        axum::response::Html(
            "<html><head><title>Cars</title></head><body><h1>Cars</h1>\
             <nav><a href=\"/cars/\">All cars A-Z</a> <a href=\"/help/\">Help</a></nav>\
             <form action=\"/search/\" method=\"get\"><input type=\"text\" name=\"query\">\
             <input type=\"submit\" value=\"Search\"></form></body></html>",
        )
    };
    let router = axum::Router::new()
        .route("/", axum::routing::get(home))
        .route("/cars/", axum::routing::get(all_cars))
        .route("/search/", axum::routing::get(car_search_page));
    let addr = crate::support::serve(router).await;
    let url = crate::support::url(addr, "/");
    let (out, _dir, db) = gather_fresh(&url, 200).await;
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.contains("that list is read"), "{err}");
    assert!(err.contains("a keyword field"), "{err}");
    let stored = gathering::stored_values(&db, url.as_str());
    let descriptions: BTreeSet<String> = (0..8).map(car_description).collect();
    assert!(
        stored
            .values()
            .any(|got| descriptions.iter().filter(|d| got.contains(*d)).count() >= 4),
        "the answers' descriptions were gathered\n{err}\n{stored:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_default_listing_whose_next_page_cannot_be_read_is_searched_for_the_rest() {
    // The search page lists its first ten cars when nothing is asked;
    // the "Next" page of that list answers 404.
    let search = |q: axum::extract::Query<BTreeMap<String, String>>| async move {
        let query = q.get("query").cloned().unwrap_or_default();
        let page: usize = q.get("page").and_then(|p| p.parse().ok()).unwrap_or(1);
        if !query.is_empty() {
            return axum::response::Html(car_search(&query, page)).into_response();
        }
        if page > 1 {
            return axum::http::StatusCode::NOT_FOUND.into_response();
        }
        let mut html = String::from(
            "<html><head><title>Search</title></head><body><h1>Search</h1>\
             <form action=\"/search/\" method=\"get\"><input type=\"text\" name=\"query\">\
             <input type=\"submit\" value=\"Search\"></form><ul>",
        );
        for i in 0..10 {
            html.push_str(&car_line(i));
        }
        html.push_str("</ul><a href=\"/search/?page=2\">Next</a></body></html>");
        axum::response::Html(html).into_response()
    };
    use axum::response::IntoResponse;
    let router = axum::Router::new().route("/search/", axum::routing::get(search));
    let addr = crate::support::serve(router).await;
    let url = crate::support::url(addr, "/search/");
    let (out, _dir, db) = gather_fresh(&url, 200).await;
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let stored = gathering::stored_values(&db, url.as_str());
    let titles: BTreeSet<String> = TITLES.iter().map(|t| t.to_string()).collect();
    assert!(
        stored.values().any(|got| *got == titles),
        "a walk cut short by a 404 leaves the search to reach every car\n{err}\n{stored:?}"
    );
}

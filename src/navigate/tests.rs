use super::*;
use crate::fetch::Method;

fn url(s: &str) -> Url {
    Url::parse(s).expect("test URL")
}

fn link(href: &str, text: &str) -> (String, String) {
    (href.to_string(), text.to_string())
}

/// A page's links as the page tree gives them.
fn anchors(list: &[(String, String)]) -> Links {
    list.iter()
        .map(|(href, text)| Link { href, text })
        .collect()
}

fn query() -> Request {
    Request::get(url("http://hotels.example/search?region=Usedom"))
}

/// Hands out requests until the navigator stops, answering each page with
/// the links `site` gives for its URL; returns the URLs fetched.
fn walk(nav: &mut Navigator, site: impl Fn(&Url) -> Vec<(String, String)>) -> Vec<String> {
    let mut fetched = Vec::new();
    while let Some(request) = nav.next_request() {
        assert!(fetched.len() < 100, "runaway navigation");
        let links = site(&request.url);
        nav.result_page(&request.url, &anchors(&links));
        fetched.push(request.url.to_string());
    }
    fetched
}

/// The URLs the navigator still hands out, without fetching anything.
fn remaining(nav: &mut Navigator) -> Vec<Url> {
    std::iter::from_fn(|| nav.next_request().map(|r| r.url)).collect()
}

#[test]
fn labels_are_read_as_a_reader_would() {
    assert_eq!(label("2"), Label::Page(2));
    assert_eq!(label(" [3] "), Label::Page(3));
    assert_eq!(label("(4)"), Label::Page(4));
    assert_eq!(label("Seite 5"), Label::Page(5));
    assert_eq!(label("11-20"), Label::Page(11));
    assert_eq!(label("21 – 30"), Label::Page(21));
    assert_eq!(label("weiter »"), Label::Next);
    assert_eq!(label("Nächste Seite"), Label::Next);
    assert_eq!(label("»»"), Label::Next);
    assert_eq!(label("weiter»"), Label::Next);
    assert_eq!(label("Seite→"), Label::Next);
    assert_eq!(label("«Anfang"), Label::Previous);
    assert_eq!(label(">"), Label::Next);
    assert_eq!(label("more results"), Label::Next);
    assert_eq!(label("« zurück"), Label::Previous);
    assert_eq!(label("< prev"), Label::Previous);
    assert_eq!(label("Vorherige"), Label::Previous);
    assert_eq!(label("erste Seite"), Label::Previous);
    assert_eq!(label("Hotel Seeblick"), Label::Other);
    assert_eq!(label("10 pro Seite"), Label::Other);
    assert_eq!(label(""), Label::Other);
    assert_eq!(label("2a"), Label::Other);
}

#[test]
fn off_fetches_the_first_page_only() {
    let mut nav = Navigator::new(NavigationMode::Off, query(), None);
    let fetched = walk(&mut nav, |_| vec![link("?region=Usedom&page=2", "2")]);
    assert_eq!(fetched, vec!["http://hotels.example/search?region=Usedom"]);
    assert_eq!(nav.pages_fetched(), 1);
    assert!(!nav.cut_short());
}

#[test]
fn first_request_is_handed_out_unchanged() {
    let post = Request {
        method: Method::Post,
        url: url("http://hotels.example/search"),
        body: Some(b"region=Usedom".to_vec()),
        content_type: Some("application/x-www-form-urlencoded".into()),
    };
    let mut nav = Navigator::new(NavigationMode::Detect, post.clone(), Some(5));
    assert_eq!(nav.next_request(), Some(post));
    // A link back to the form's action is not a result page.
    nav.result_page(
        &url("http://hotels.example/search"),
        &anchors(&[link("/search", "2"), link("/search?page=2", "2")]),
    );
    let next = nav.next_request().expect("page 2");
    assert_eq!(next.method, Method::Get);
    assert_eq!(next.url.as_str(), "http://hotels.example/search?page=2");
    assert_eq!(next.body, None);
    assert_eq!(nav.next_request(), None);
}

/// A result of `pages` pages at `/search?region=Usedom&page=N`, each with a
/// window of page numbers, "zurück"/"weiter" links and some noise.
fn paged_site(pages: u32) -> impl Fn(&Url) -> Vec<(String, String)> {
    move |at: &Url| {
        let n: u32 = at
            .query_pairs()
            .find(|(k, _)| k == "page")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(1);
        let page = |p: u32| format!("search?region=Usedom&page={p}");
        let mut links = vec![
            link("/", "Startseite"),
            link("#top", "2"),
            link("javascript:more()", "weiter"),
            link("mailto:info@hotels.example", "2"),
            link("http://elsewhere.example/search?page=2", "2"),
            link("/hotel/2", "Hotel Seeblick"),
            link("search?region=Usedom&per_page=20", "20"),
            link("search?region=Usedom&per_page=50", "50"),
        ];
        if n > 1 {
            links.push(link(&page(n - 1), "« zurück"));
            links.push(link(&page(1), "1"));
        }
        for p in n.saturating_sub(2).max(1)..=(n + 2).min(pages) {
            links.push(link(&page(p), &p.to_string()));
        }
        if n < pages {
            links.push(link(&format!("{}#results", page(n + 1)), "weiter »"));
        }
        links
    }
}

#[test]
fn detect_walks_every_page_once_in_order() {
    let mut nav = Navigator::new(NavigationMode::Detect, query(), None);
    let fetched = walk(&mut nav, paged_site(10));
    let mut expected = vec!["http://hotels.example/search?region=Usedom".to_string()];
    expected
        .extend((2..=10).map(|p| format!("http://hotels.example/search?region=Usedom&page={p}")));
    assert_eq!(fetched, expected);
    assert_eq!(nav.pages_fetched(), 10);
    assert!(!nav.cut_short());
}

#[test]
fn max_pages_counts_the_first_page_and_reports_the_cut() {
    let mut nav = Navigator::new(NavigationMode::Detect, query(), Some(3));
    let fetched = walk(&mut nav, paged_site(10));
    assert_eq!(fetched.len(), 3);
    assert_eq!(nav.pages_fetched(), 3);
    assert!(nav.cut_short());
}

#[test]
fn limit_that_is_exactly_enough_is_not_a_cut() {
    let mut nav = Navigator::new(NavigationMode::Detect, query(), Some(3));
    walk(&mut nav, paged_site(3));
    assert_eq!(nav.pages_fetched(), 3);
    assert!(!nav.cut_short());
}

#[test]
fn zero_limit_still_fetches_the_query() {
    let mut nav = Navigator::new(NavigationMode::Detect, query(), Some(0));
    assert_eq!(walk(&mut nav, paged_site(4)).len(), 1);
    assert!(nav.cut_short());
}

#[test]
fn detect_follows_a_lone_next_link_and_ignores_other_numbers() {
    // Result pages found only through "nächste"; the number links are of
    // another shape (per-page sizes) and must not be followed.
    let mut nav = Navigator::new(NavigationMode::Detect, query(), None);
    let fetched = walk(&mut nav, |at| {
        let n: u32 = at
            .path_segments()
            .and_then(|mut s| s.nth(1))
            .and_then(|s| s.parse().ok())
            .unwrap_or(1);
        let mut links = vec![
            link("/size?n=10", "10"),
            link("/size?n=20", "20"),
            link("/size?n=50", "50"),
        ];
        if n < 4 {
            links.push(link(&format!("/results/{}", n + 1), "nächste"));
        }
        links
    });
    assert_eq!(
        fetched,
        vec![
            "http://hotels.example/search?region=Usedom",
            "http://hotels.example/results/2",
            "http://hotels.example/results/3",
            "http://hotels.example/results/4",
        ]
    );
}

#[test]
fn detect_takes_the_larger_group_of_numbered_links() {
    let mut nav = Navigator::new(NavigationMode::Detect, query(), None);
    nav.next_request();
    nav.result_page(
        &query().url,
        &anchors(&[
            link("/size?n=20", "20"),
            link("/p/2", "2"),
            link("/p/3", "3"),
            link("/size?n=50", "50"),
            link("/p/4", "4"),
        ]),
    );
    let next: Vec<String> = remaining(&mut nav)
        .iter()
        .map(|u| u.path().to_string())
        .collect();
    assert_eq!(next, vec!["/p/2", "/p/3", "/p/4"]);
}

#[test]
fn a_page_reached_through_a_redirect_is_not_fetched_again() {
    let mut nav = Navigator::new(NavigationMode::Detect, query(), None);
    nav.next_request();
    // The query was redirected to page=1 style URL; page 2 links back to it.
    let landed = url("http://hotels.example/search?region=Usedom&page=1");
    nav.result_page(&landed, &anchors(&[link("?region=Usedom&page=2", "2")]));
    let page2 = nav.next_request().expect("page 2");
    nav.result_page(
        &page2.url,
        &anchors(&[
            link("?region=Usedom&page=1", "« zurück"),
            link("?region=Usedom&page=1#top", "Anfang"),
            link("?region=Usedom&page=2", "2"),
        ]),
    );
    assert_eq!(nav.next_request(), None);
}

#[test]
fn pattern_follows_matching_links_in_document_order() {
    let mode = NavigationMode::Pattern("search?region=*&page=*".into());
    let mut nav = Navigator::new(mode, query(), None);
    nav.next_request();
    nav.result_page(
        &query().url,
        &anchors(&[
            link("search?region=Usedom&page=3", "drei"),
            link("search?region=Usedom&page=1", "1"),
            link("search?region=Usedom&page=0", "« zurück"),
            link("/search?region=Usedom&page=2#x", ""),
            link("search?region=Usedom&page=2", "2"),
            link("search?region=Usedom&page=4&sort=name", "4"),
            link("search?region=Usedom&per_page=20", "20"),
            link("/other/search?region=Usedom&page=5", "5"),
            link("http://elsewhere.example/search?region=Usedom&page=6", "6"),
        ]),
    );
    let next: Vec<String> = remaining(&mut nav).iter().map(Url::to_string).collect();
    assert_eq!(
        next,
        vec![
            "http://hotels.example/search?region=Usedom&page=3",
            "http://hotels.example/search?region=Usedom&page=2",
        ]
    );
}

#[test]
fn pattern_star_stays_within_one_component() {
    let base = url("http://hotels.example/search");
    let pattern = NavigationPattern::parse("/results/*/page-*.html", &base).expect("pattern");
    assert!(pattern.matches(&url("http://hotels.example/results/usedom/page-2.html")));
    assert!(pattern.matches(&url("http://hotels.example/results/usedom/page-.html")));
    assert!(!pattern.matches(&url("http://hotels.example/results/a/b/page-2.html")));
    assert!(!pattern.matches(&url("http://hotels.example/results/usedom/page-2.htm")));
    let absolute =
        NavigationPattern::parse("http://other.example/q?from=*", &base).expect("pattern");
    assert!(absolute.matches(&url("http://other.example/q?from=10")));
    assert!(!absolute.matches(&url("http://other.example/q?from=10&x=1")));
}

#[test]
fn unusable_pattern_is_reported_and_follows_nothing() {
    let base = url("http://hotels.example/search");
    let error = NavigationPattern::parse("http://[broken/*", &base).unwrap_err();
    assert!(error.to_string().contains("DB.NavigationURL"), "{error}");
    let mut nav = Navigator::new(
        NavigationMode::Pattern("http://[broken/*".into()),
        query(),
        None,
    );
    let fetched = walk(&mut nav, paged_site(3));
    assert_eq!(fetched.len(), 1);
}

#[test]
fn a_walk_saved_between_pages_continues_where_it_stood() {
    let site = paged_site(5);
    let mut nav = Navigator::new(NavigationMode::Detect, query(), None);
    assert!(
        nav.checkpoint().is_none(),
        "nothing to save before the query answered"
    );
    for _ in 0..2 {
        let request = nav.next_request().unwrap();
        nav.result_page(&request.url, &anchors(&site(&request.url)));
    }
    let checkpoint = nav.checkpoint().unwrap();
    // The links queued are listed once, in the order found; the checkpoint
    // counts those the walk took.
    assert!(checkpoint.queue.is_empty() && checkpoint.seen.is_empty());
    assert_eq!(checkpoint.links, [2, 3, 4].map(usedom_page));
    assert_eq!(checkpoint.taken, 1);
    // Saved as JSON with the query, the links apart; read back in a later
    // run.
    let json = serde_json::to_string(&checkpoint).unwrap();
    assert!(!json.contains("page=3"), "links written twice: {json}");
    let mut saved: Checkpoint = serde_json::from_str(&json).unwrap();
    saved.links = checkpoint.links.clone();
    let mut resumed = Navigator::resume(NavigationMode::Detect, query(), None, saved);
    let rest = walk(&mut resumed, site);
    assert_eq!(
        rest,
        [3, 4, 5].map(|p| format!("http://hotels.example/search?region=Usedom&page={p}"))
    );
    assert_eq!(resumed.pages_fetched(), 5);
}

fn usedom_page(p: u32) -> String {
    format!("http://hotels.example/search?region=Usedom&page={p}")
}

#[test]
fn a_page_that_failed_is_fetched_again_from_the_checkpoint() {
    let mut nav = Navigator::new(NavigationMode::Detect, query(), None);
    let first = nav.next_request().unwrap();
    nav.result_page(&first.url, &anchors(&paged_site(5)(&first.url)));
    let second = nav.next_request().unwrap();
    nav.give_back();
    let checkpoint = nav.checkpoint().unwrap();
    assert_eq!(checkpoint.links[0], second.url.to_string());
    assert_eq!(checkpoint.taken, 0);
    assert_eq!(checkpoint.fetched, 1);
    let mut resumed = Navigator::resume(NavigationMode::Detect, query(), None, checkpoint);
    assert_eq!(resumed.next_request().unwrap().url, second.url);
}

/// A walk in `Detect` mode that has read the query's own page of `site`.
fn past_the_first_page(site: &impl Fn(&Url) -> Vec<(String, String)>) -> Navigator {
    let mut nav = Navigator::new(NavigationMode::Detect, query(), None);
    let first = nav.next_request().unwrap();
    nav.result_page(&first.url, &anchors(&site(&first.url)));
    nav
}

#[test]
fn a_saved_walk_lists_only_the_links_found_since() {
    let site = paged_site(6);
    let mut nav = past_the_first_page(&site);
    assert_eq!(nav.checkpoint().unwrap().links, [2, 3].map(usedom_page));
    nav.saved();
    let second = nav.next_request().unwrap();
    nav.result_page(&second.url, &anchors(&site(&second.url)));
    let checkpoint = nav.checkpoint().unwrap();
    assert_eq!(checkpoint.links, [usedom_page(4)]);
    assert_eq!(checkpoint.taken, 1);
    // A page reached through a redirect is listed as seen.
    nav.saved();
    let third = nav.next_request().unwrap();
    let moved = url("http://hotels.example/search?region=Usedom&page=3&moved=1");
    nav.result_page(&moved, &anchors(&site(&third.url)));
    assert_eq!(
        nav.checkpoint().unwrap().links,
        [format!("seen {moved}"), usedom_page(5)]
    );
}

#[test]
fn a_link_saved_twice_is_walked_once() {
    let site = paged_site(5);
    let nav = past_the_first_page(&site);
    let mut checkpoint = nav.checkpoint().unwrap();
    let links = checkpoint.links.clone();
    checkpoint.links.extend(links);
    let mut resumed = Navigator::resume(NavigationMode::Detect, query(), None, checkpoint);
    assert_eq!(walk(&mut resumed, site), [2, 3, 4, 5].map(usedom_page));
}

#[test]
fn a_checkpoint_of_the_previous_version_continues_and_is_saved_as_links() {
    let json = format!(
        r#"{{"queue":["{}"],"seen":["http://hotels.example/search?region=Usedom","{}"],"fetched":2,"shape":null}}"#,
        usedom_page(3),
        usedom_page(2)
    );
    let old: Checkpoint = serde_json::from_str(&json).unwrap();
    let mut nav = Navigator::resume(NavigationMode::Detect, query(), None, old);
    // Saved again, it lists its pages as links.
    let checkpoint = nav.checkpoint().unwrap();
    assert!(checkpoint.queue.is_empty() && checkpoint.seen.is_empty());
    assert_eq!(checkpoint.taken, 0);
    assert!(checkpoint.links.contains(&usedom_page(3)));
    assert!(checkpoint
        .links
        .contains(&format!("seen {}", usedom_page(2))));
    let mut again = Navigator::resume(NavigationMode::Detect, query(), None, checkpoint);
    assert_eq!(walk(&mut again, paged_site(5)), [3, 4, 5].map(usedom_page));
    assert_eq!(walk(&mut nav, paged_site(5)), [3, 4, 5].map(usedom_page));
}

#[test]
fn a_query_whose_own_page_failed_has_no_checkpoint() {
    let mut nav = Navigator::new(NavigationMode::Detect, query(), None);
    nav.next_request().unwrap();
    nav.give_back();
    assert!(nav.checkpoint().is_none());
}

/// An Italian result page `n` of 10 whose pager shows 1, 2, 3, 10 and
/// "Successiva": pages 4 to 9 are reached only through "Successiva".
fn italian_page(n: usize) -> String {
    let mut pager = String::from("<p class=pager>");
    for k in [1, 2, 3, 10] {
        if k == n {
            pager.push_str(&format!("<b>{k}</b> "));
        } else {
            pager.push_str(&format!("<a href=\"/risultati?pagina={k}\">{k}</a> "));
        }
    }
    if n < 10 {
        pager.push_str(&format!(
            "<a href=\"/risultati?pagina={}\">Successiva</a>",
            n + 1
        ));
    }
    format!(
        "<html><body><h1>Alberghi</h1><p>Risultati della pagina {n}.</p>{pager}</p></body></html>"
    )
}

fn italian_walk(with_pagers: bool) -> Vec<String> {
    let mut nav = Navigator::new(
        NavigationMode::Detect,
        Request::get(url("http://hotels.example/risultati?pagina=1")),
        None,
    );
    let mut fetched = Vec::new();
    while let Some(request) = nav.next_request() {
        assert!(fetched.len() < 100, "runaway navigation");
        let n: usize = request
            .url
            .query_pairs()
            .find(|(k, _)| k == "pagina")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(1);
        let page = crate::page::Page::parse(&italian_page(n));
        let pagers: Links = if with_pagers {
            crate::links::PageLinks::of(&page, &request.url)
                .classified()
                .into_iter()
                .filter(|(_, kind)| *kind == crate::links::LinkKind::Pagination)
                .map(|(l, _)| Link {
                    href: &l.href,
                    text: &l.text,
                })
                .collect()
        } else {
            Links::new()
        };
        nav.result_page_with_pagers(&request.url, &page.links(), &pagers);
        fetched.push(n.to_string());
    }
    fetched
}

#[test]
fn a_pagers_next_link_in_a_language_the_labels_do_not_know_is_followed() {
    assert_eq!(italian_walk(false), ["1", "2", "3", "10"]);
    let mut all = italian_walk(true);
    all.sort_by_key(|n| n.parse::<u32>().unwrap());
    assert_eq!(all, (1..=10).map(|n| n.to_string()).collect::<Vec<_>>());
}

#[test]
fn a_refined_query_follows_pages_that_carry_its_own_parameters() {
    let pattern = NavigationMode::Pattern("auswahl.pl?region=*&seite=*".into());
    let refined = Request::get(url("http://h.test/cgi-bin/auswahl.pl?region=1&preis=2"));
    let mut nav = Navigator::new(pattern.clone(), refined, Some(10));
    let fetched = walk(&mut nav, |page| match page.query() {
        Some("region=1&preis=2") => vec![link("auswahl.pl?region=1&preis=2&seite=2", "weiter")],
        // Another price is another query: not one of this query's pages.
        Some("region=1&preis=2&seite=2") => vec![
            link("auswahl.pl?region=1&preis=3&seite=3", "3"),
            link("auswahl.pl?region=1&seite=3&preis=2", "3"),
        ],
        _ => vec![],
    });
    assert_eq!(
        fetched,
        [
            "http://h.test/cgi-bin/auswahl.pl?region=1&preis=2",
            "http://h.test/cgi-bin/auswahl.pl?region=1&preis=2&seite=2",
            "http://h.test/cgi-bin/auswahl.pl?region=1&seite=3&preis=2",
        ]
    );
    assert!(!nav.more_linked());
}

#[test]
fn a_walk_that_ends_before_a_linked_next_page_says_so() {
    let pattern = NavigationMode::Pattern("list.cgi?page=*".into());
    let query = Request::get(url("http://h.test/list.cgi?q=x"));
    let mut nav = Navigator::new(pattern, query, Some(10));
    // The pager's link carries a session id the pattern does not know.
    walk(&mut nav, |_| {
        vec![
            link("list.cgi?q=x&page=2&sid=77", "Next page"),
            link("/detail.cgi?id=4", "more"),
        ]
    });
    assert_eq!(nav.pages_fetched(), 1);
    assert!(nav.more_linked());
    // A detail link labelled "more" alone says nothing of further pages.
    let mut nav = Navigator::new(
        NavigationMode::Pattern("list.cgi?page=*".into()),
        Request::get(url("http://h.test/list.cgi?q=x")),
        Some(10),
    );
    walk(&mut nav, |_| vec![link("/detail.cgi?id=4", "more")]);
    assert!(!nav.more_linked());
}

#[test]
fn the_signs_among_the_pager_words_are_those_without_letters_or_digits() {
    for word in NEXT_WORDS.iter().chain(PREVIOUS_WORDS) {
        assert_eq!(
            is_mark(word),
            !word.chars().any(char::is_alphanumeric),
            "{word}"
        );
    }
    assert!(matches!(label("weiter»"), Label::Next));
    assert!(matches!(label("««"), Label::Previous));
    assert!(matches!(label("Seite 3"), Label::Page(3)));
    // A bare number, also one too large for a page.
    assert_eq!(label(" 17\n"), Label::Page(17));
    assert_eq!(label("123456789012345678901234"), Label::Other);
}

/// The post-back links of a GridView pager on page `shown` of `pages`,
/// and a "Next" button.
fn grid_pager(shown: u64, pages: u64, next: bool) -> Vec<postback::PostbackLink> {
    let mut html = String::from(r#"<form method="post" action="/l" id="f">"#);
    for n in 1..=pages {
        if n != shown {
            html.push_str(&format!(
                "<a href=\"javascript:__doPostBack('g','Page${n}')\">{n}</a>"
            ));
        }
    }
    if next {
        html.push_str(r#"<input type="submit" name="g$next" value="Next">"#);
    }
    html.push_str("</form>");
    postback::links(&crate::page::Page::parse(&html))
}

fn post(argument: &str) -> Request {
    Request {
        method: Method::Post,
        url: url("http://grid.example/l"),
        body: Some(argument.as_bytes().to_vec()),
        content_type: None,
    }
}

#[test]
fn a_post_back_pager_is_walked_page_after_page_from_each_page() {
    let first = post("search");
    let mut nav = Navigator::new(NavigationMode::Detect, first.clone(), Some(10));
    assert_eq!(nav.next_request(), Some(first));
    nav.result_page(&url("http://grid.example/l"), &Links::new());
    assert!(nav.wants_postbacks());
    // Page 1 links 2 and 3: page 2 first.
    let chosen = nav
        .next_postback(&grid_pager(1, 3, false), true, false)
        .unwrap();
    assert_eq!(chosen.key(), "__EVENTTARGET=g&__EVENTARGUMENT=Page$2");
    nav.postback(chosen, post("p2"));
    assert!(nav.checkpoint().is_none(), "a post-back walk is not saved");
    assert!(!nav.wants_postbacks(), "one post-back waits at a time");
    assert_eq!(nav.next_request(), Some(post("p2")));
    assert_eq!(nav.last_postback().map(|l| l.text.as_str()), Some("2"));
    // Page 2 links 1 and 3: 1 was read, 3 is next.
    let chosen = nav
        .next_postback(&grid_pager(2, 3, false), true, false)
        .unwrap();
    assert_eq!(chosen.text, "3");
    nav.postback(chosen, post("p3"));
    assert_eq!(nav.next_request(), Some(post("p3")));
    // Page 3 links 1 and 2 only: the walk ends.
    assert!(nav
        .next_postback(&grid_pager(3, 3, false), true, false)
        .is_none());
    assert!(!nav.has_next());
    assert_eq!(nav.pages_fetched(), 3);
    assert!(!nav.cut_short());
}

#[test]
fn a_post_back_next_button_is_followed_while_pages_bring_new_values() {
    let first = post("search");
    let mut nav = Navigator::new(NavigationMode::Detect, first.clone(), Some(3));
    nav.next_request();
    nav.result_page(&url("http://grid.example/l"), &Links::new());
    let links = grid_pager(1, 1, true);
    // Nothing new on the page, or the stated total reached: no next page.
    assert!(nav.next_postback(&links, false, false).is_none());
    assert!(nav.next_postback(&links, true, true).is_none());
    for page in 2..=3 {
        let chosen = nav.next_postback(&links, true, false).unwrap();
        assert_eq!(chosen.text, "Next");
        nav.postback(chosen, post(&format!("p{page}")));
        assert_eq!(nav.next_request(), Some(post(&format!("p{page}"))));
    }
    // The limit of three pages is reached: a waiting post-back cuts the
    // answer short.
    assert!(nav.next_postback(&links, true, false).is_none());
    let mut nav = Navigator::new(NavigationMode::Detect, first.clone(), Some(1));
    nav.next_request();
    let chosen = grid_pager(1, 1, true).remove(0);
    nav.postback(chosen, post("p2"));
    assert!(nav.cut_short());
    // A failed post-back is given back.
    let mut nav = Navigator::new(NavigationMode::Detect, first, Some(5));
    nav.next_request();
    nav.postback(grid_pager(1, 2, false).remove(0), post("p2"));
    assert_eq!(nav.next_request(), Some(post("p2")));
    nav.give_back();
    assert!(nav.has_next());
    assert_eq!(nav.next_request(), Some(post("p2")));
}

#[test]
fn only_a_detecting_navigator_follows_post_backs() {
    for mode in [
        NavigationMode::Off,
        NavigationMode::Pattern("http://grid.example/l?page=*".into()),
    ] {
        let mut nav = Navigator::new(mode, post("search"), None);
        nav.next_request();
        assert!(!nav.wants_postbacks());
        assert!(nav
            .next_postback(&grid_pager(1, 3, true), true, false)
            .is_none());
    }
}

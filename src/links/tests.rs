use super::*;

fn url(s: &str) -> Url {
    Url::parse(s).unwrap()
}

fn groups_of(html: &str) -> Vec<Vec<String>> {
    PageLinks::of(&Page::parse(html), &url("http://h/p.html"))
        .groups
        .iter()
        .map(|g| g.links.iter().map(|l| l.text.clone()).collect())
        .collect()
}

#[test]
fn links_group_by_their_nearest_common_ancestor_per_depth() {
    // Two lists at the same depth make two groups; a lone link is none;
    // two links to the same page are no group (destinationCnt < 2).
    let html = "<body><ul><li><a href=/a>A</a></li><li><a href=/b>B</a></li></ul>\
                <ul><li><a href=/c>C</a></li><li><a href=/d>D</a></li><li><a href=/e>E</a></li></ul>\
                <p><b><a href=/x>X</a></b></p><div><a href=/s>img</a><a href=/s>same</a></div></body>";
    assert_eq!(groups_of(html), [vec!["A", "B"], vec!["C", "D", "E"]]);
}

#[test]
fn deeper_common_ancestors_are_found_after_nearer_ones() {
    // Depth-equal links whose parents differ meet at the table.
    let html = "<body><table><tr><td><a href=/1>1x</a></td><td><a href=/2>2x</a></td></tr>\
                <tr><td><a href=/3>3x</a></td></tr></table></body>";
    assert_eq!(groups_of(html), [vec!["1x", "2x"]]);
}

#[test]
fn a_pager_is_pagination_in_german_or_english_and_more_is_too() {
    let page = Page::parse(
        "<body><p>Seite: <a href='?s=1'>« zurück</a> <a href='?s=1'>1</a> <b>2</b> \
         <a href='?s=3'>3</a> <a href='?s=3'>weiter »</a></p>\
         <div><a href='/a'>Alpha</a> <a href='/b'>Beta</a></div><p><a href='?s=3'>load more</a></p></body>",
    );
    let links = PageLinks::of(&page, &url("http://h/list?s=2"));
    assert_eq!(links.groups[0].kind, LinkKind::Pagination);
    assert_eq!(links.groups[1].kind, LinkKind::Content);
    assert_eq!(links.ungrouped[0].1, LinkKind::Pagination);
}

#[test]
fn groups_harmonise_when_shared_links_keep_their_order() {
    assert_eq!(harmony(&[1, 2, 3], &[1, 9, 2, 3]), 3);
    assert_eq!(harmony(&[1, 2, 3], &[3, 2, 1]), 0);
    assert_eq!(harmony(&[1, 2], &[7, 8]), 0);
    assert_eq!(harmony(&[1, 1, 2], &[1, 2, 2]), 2);
}

fn graph(n: usize, e: &[(usize, usize)]) -> Vec<Vec<bool>> {
    let mut g = vec![vec![false; n]; n];
    for &(a, b) in e {
        g[a][b] = true;
    }
    g
}

#[test]
fn navigation_graphs_follow_definition_14() {
    let all: Vec<usize> = (0..3).collect();
    // Three pages that all link to each other: a main navigation.
    let full = graph(3, &[(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]);
    assert!(is_navigation_graph(&all, &full));
    // A main page 0 with two sub-pages that link back and to each other:
    // 0 is main; 1 and 2 form a sub-navigation.
    let sub = graph(3, &[(0, 1), (1, 0), (2, 0), (1, 2), (2, 1)]);
    assert!(is_navigation_graph(&all, &sub));
    // A chain (a breadcrumb's structure) has no node everyone links to.
    let chain = graph(3, &[(1, 0), (2, 1)]);
    assert!(!is_navigation_graph(&all, &chain));
    // A hub linking out to two pages that only link back: the leaves make
    // one component with the hub but have no main node among them.
    let star = graph(3, &[(0, 1), (0, 2), (1, 0), (2, 0)]);
    assert!(!is_navigation_graph(&all, &star));
}

#[test]
fn the_path_hash_is_the_hash_of_the_path_description() {
    let page = Page::from_bytes(
        br##"<html><body><div id="menu" class="nav"><ul><li><a href="/a?x=1&amp;y=2">A</a></li>
        <li><a href='/b' title="B &quot;b&quot;">B</a></li></ul></div><p><a href="#top">top</a></body></html>"##,
        None,
    );
    let descriptions = path_descriptions(&page);
    let anchors = anchors(&page);
    assert_eq!(descriptions.len(), 3);
    for (description, a) in descriptions.iter().zip(anchors) {
        assert!(description.starts_with("<html><body>"), "{description}");
        assert_eq!(path_hash(&page, a), hash(description), "{description}");
    }
}

#[test]
fn base_href_resolves_links_and_numbered_groups_that_count_no_pages_are_no_pagers() {
    let days: String = (1..=31)
        .map(|d| format!("<td><a href='/cal?d={d}'>{d}</a></td>"))
        .collect();
    let teasers: String = (1..=4)
        .map(|i| {
            format!("<li><a href='/a/{i}'>Story {i}</a> <a href='/a/{i}'>Read more »</a></li>")
        })
        .collect();
    let html = format!(
        "<head><base href='http://h/shop/'></head><body><table><tr>{days}</tr></table>\
         <ul>{teasers}</ul><p><a href='/y/2019'>2019</a> <a href='/y/2018'>2018</a></p>\
         <p><a href='?p=1'>1</a> <a href='?p=2'>2</a> <a href='?p=3'>3</a> <a rel=next href='?p=2'>›</a></p></body>"
    );
    let links = PageLinks::of(&Page::parse(&html), &url("http://h/list"));
    let pagers: Vec<&LinkGroup> = links
        .groups
        .iter()
        .filter(|g| g.kind == LinkKind::Pagination)
        .collect();
    assert_eq!(pagers.len(), 1);
    let pager = pagers[0];
    assert_eq!(pager.links.len(), 4);
    assert_eq!(
        pager.links[1].target.as_ref().unwrap().as_str(),
        "http://h/shop/?p=2"
    );
    assert!(pager.links[3].next);
    assert_eq!(pager_label("Read more »"), Label::Other);
    assert_eq!(pager_label("Older posts"), Label::Next);
    assert_eq!(pager_label("Weiter"), Label::Next);
    assert_eq!(pager_label("Następne"), Label::Next);
    assert_eq!(pager_label("Newer posts"), Label::Previous);
    assert_eq!(pager_label("1,390"), Label::Page(1390));
}

/// The kinds of a page's links by their texts (a link without text by its
/// href), in document order.
fn kinds(html: &str, at: &str) -> Vec<(String, LinkKind)> {
    PageLinks::of(&Page::parse(html), &url(at))
        .classified()
        .into_iter()
        .map(|(l, k)| {
            let name = if l.text.trim().is_empty() {
                l.href.clone()
            } else {
                l.text.trim().to_string()
            };
            (name, k)
        })
        .collect()
}

fn pagination(html: &str, at: &str) -> Vec<String> {
    kinds(html, at)
        .into_iter()
        .filter(|(_, k)| *k == LinkKind::Pagination)
        .map(|(t, _)| t)
        .collect()
}

#[test]
fn a_calendar_of_the_days_with_posts_is_no_pager_nor_its_months() {
    // WordPress's calendar: the days that have posts link to their dates,
    // the months before and after in the table's foot.
    let html = "<body><table id=wp-calendar><caption>March 2016</caption>\
        <tr><td><a href='http://blog.example/?m=20160301'>1</a></td>\
        <td><a href='http://blog.example/?m=20160302'>2</a></td><td>3</td>\
        <td><a href='http://blog.example/?m=20160304'>4</a></td></tr>\
        <tr><td><a href='http://blog.example/?m=20160307'>7</a></td>\
        <td><a href='http://blog.example/?m=20160308'>8</a></td></tr></table>\
        <table class=nav><tr><td><a href='http://blog.example/?m=201602'>« Feb</a></td>\
        <td><a href='http://blog.example/?m=201604'>Apr »</a></td></tr></table>\
        <div class=pages><a href='/page/2/'>2</a> <a href='/page/3/'>3</a> \
        <a href='/page/2/'>Next »</a></div></body>";
    assert_eq!(
        pagination(html, "http://blog.example/"),
        ["2", "3", "Next »"]
    );
    // Days linked by path, and a forum's calendar by its query.
    for day in [
        "/blog/2016/01/04/",
        "/calendar/day/2016-01-04",
        "/cal?year=2016&month=1&day=4",
    ] {
        assert!(is_calendar_day(&url(&format!("http://h{day}")), 4), "{day}");
    }
    assert!(!is_calendar_day(&url("http://h/2014/11/page/4/"), 4));
    assert!(!is_calendar_day(&url("http://h/list?page=4"), 4));
}

#[test]
fn a_pager_of_arrow_images_reads_their_titles_and_classes() {
    // Arrows without text: the title says "Next", the class "next", and
    // rel="next" stands alone beside the list.
    let html = "<body><div class=pages><a href='?p=1'>1</a> <b>2</b> <a href='?p=3'>3</a> \
        <a href='?p=4'>4</a> <a class='next i-next' href='?p=3' title='Next'><img src=r.gif></a></div>\
        <ol><li><a href='?p=3' class='go-next-link'><div class=go-next></div></a></li></ol>\
        <p><a href='/shop/x.html?page=3' rel='follow next' class='btn'><i></i></a></p></body>";
    let page = Page::parse(html);
    let links = PageLinks::of(&page, &url("http://h/shop/x.html?p=2"));
    let kinds: Vec<LinkKind> = links.classified().iter().map(|(_, k)| *k).collect();
    assert_eq!(kinds, [LinkKind::Pagination; 6]);
    let all = links.classified();
    assert_eq!(all[3].0.reading(), "Next");
    assert_eq!(all[4].0.reading(), "go next link");
    assert!(all[5].0.next);
}

#[test]
fn a_next_link_laid_out_apart_from_the_numbers_is_the_pagers() {
    // "»" in the header beside the site's name, leading where "2" leads;
    // "Older Articles" beside a "Home" link. A "বিস্তারিত »" ("details")
    // under every teaser, though its address continues the page's, is no
    // pager's.
    let html = "<body><div><a href='/'>DarkVeins</a> <span><a href='page/2/'>»</a></span></div>\
        <ul><li><a href='/?p=101'>Story</a> <a href='/?p=101'>বিস্তারিত »</a></li>\
        <li><a href='/?p=102'>Story</a> <a href='/?p=102'>বিস্তারিত »</a></li>\
        <li><a href='/?p=103'>Story</a> <a href='/?p=103'>বিস্তারিত »</a></li></ul>\
        <div class=pages><a href='page/2/'>2</a> <a href='page/3/'>3</a></div></body>";
    assert_eq!(pagination(html, "http://h/"), ["»", "2", "3"]);
    let blog = "<body><div><a href='/blog/page/2'>Older Articles</a> \
        <a href='/'><img alt=''></a></div></body>";
    assert_eq!(pagination(blog, "http://h/blog"), ["Older Articles"]);
    assert_eq!(pagination(blog, "http://h/shop"), Vec::<String>::new());
}

#[test]
fn numbers_that_are_no_pages_are_no_pager() {
    // Comment counts of three articles; footnotes; two "mehr" under
    // products; vBulletin's "go to page" link leads nowhere and does not
    // count against its pager.
    let html = "<body><ul><li><a href='/2016/a-story/#comments'>2</a></li>\
        <li><a href='/2016/b-story/#comments'>3</a></li>\
        <li><a href='/2016/c-story/#comments'>24</a></li></ul>\
        <p>Text<a href='#_ftn1'>[1]</a> and <a href='#_ftn2'>[2]</a></p>\
        <div><a href='/p/1.html'>mehr</a> <a href='/kategorie/detail.html'>mehr</a></div>\
        <div class=pagenav><a href='javascript://'>Page 3 of 3</a> <a href='t.php?t=5'>First</a> \
        <a href='t.php?t=5&page=2'><img alt=''></a> <a href='t.php?t=5'>1</a> \
        <a href='t.php?t=5&page=2'>2</a> <a href='javascript://'>3</a></div></body>";
    assert_eq!(
        pagination(html, "http://h/t.php?t=5&page=3"),
        ["Page 3 of 3", "First", "t.php?t=5&page=2", "1", "2", "3"]
    );
}

#[test]
fn a_pager_stays_on_its_site_over_http_or_https_with_or_without_www() {
    let html = "<body><div class=nav><a href='http://playrust.com/page/2/'>2</a> \
        <a href='http://playrust.com/page/3/'>3</a> \
        <a href='http://playrust.com/page/2/'>Next »</a></div></body>";
    assert_eq!(
        pagination(html, "https://www.playrust.com/"),
        ["2", "3", "Next »"]
    );
}

#[test]
fn the_next_page_continues_the_pages_address() {
    let page = |s: &str| url(&format!("http://h{s}"));
    assert!(continues(&page("/news/"), &page("/news/page/2/")));
    assert!(continues(&page("/"), &page("/page/2/")));
    assert!(continues(&page("/news/page/3/"), &page("/news/page/4/")));
    assert!(continues(
        &page("/list?q=a&start=10"),
        &page("/list?q=a&start=20")
    ));
    assert!(!continues(&page("/"), &page("/2016/a-story/")));
    assert!(!continues(&page("/list?q=a"), &page("/list?q=b")));
    assert!(!continues(
        &page("/"),
        &page("/onion/binary/ox14939_23default")
    ));
    assert!(addresses_alike(
        &page("/t/68425-memes.html"),
        &page("/t/68425-memes-2.html")
    ));
    assert!(addresses_alike(
        &page("/magazin/"),
        &page("/magazin/?seite=3")
    ));
    assert!(!addresses_alike(
        &page("/2016/a-story/"),
        &page("/2016/b-story/")
    ));
}

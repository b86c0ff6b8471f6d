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

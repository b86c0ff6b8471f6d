use super::*;

fn naive(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let c = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (prev[j] + 1).min(row[j - 1] + 1).min(prev[j - 1] + c);
        }
        prev = row;
    }
    prev[b.len()]
}

#[test]
fn levenshtein_is_the_matrix_distance_also_past_64_characters() {
    // A small deterministic generator over a four-letter alphabet.
    let mut x: u64 = 42;
    let mut word = |len: usize| -> String {
        (0..len)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ['a', 'b', 'ü', ' '][(x >> 60) as usize % 4]
            })
            .collect()
    };
    for (la, lb) in [
        (0, 5),
        (5, 0),
        (1, 1),
        (7, 9),
        (63, 64),
        (64, 65),
        (130, 70),
        (200, 257),
    ] {
        for _ in 0..5 {
            let (a, b) = (word(la), word(lb));
            assert_eq!(levenshtein(&a, &b), naive(&a, &b), "{a:?} / {b:?}");
        }
    }
    assert_eq!(levenshtein("kitten", "sitting"), 3);
}

fn site_page(menu_extra: &str, article: &str) -> Page {
    let body = match article {
        "Lighthouses" => "Lighthouses is described here at length: towers guiding ships past rocks",
        "Harbour ferries" => "Ferries cross twice hourly between both piers, weather permitting",
        "Fish markets" => "Every Sunday morning traders sell herring, plaice and eel by the quay",
        _ => "Dinghies and yachts race around three buoys during summer regattas",
    };
    Page::parse(&format!(
        "<html><body><table><tr><td><a href='/'>Home</a> | <a href='/news/'>News</a> | \
         <a href='/shop/'>Shop</a>{menu_extra}</td></tr></table>\
         <div class='content'><h1>{article}</h1><p>{body}.</p></div>\
         <div class='footer'>Copyright 2026 Example Company, all rights reserved</div></body></html>"
    ))
}

fn contents(method: Method) -> MainContent {
    let pages = [
        site_page("", "Lighthouses"),
        site_page(" | <a href='/x'>Extra</a>", "Harbour ferries"),
        site_page("", "Fish markets"),
        site_page("", "Sailing boats"),
    ];
    let blocks: Vec<Blocks> = pages.iter().map(Blocks::of).collect();
    let others: Vec<&Blocks> = blocks[1..].iter().collect();
    main_content(method, &blocks[0], &others)
}

#[test]
fn every_method_drops_the_shared_menu_and_footer_and_keeps_the_article() {
    for method in [Method::Article, Method::Ntpc, Method::Lev, Method::Sst] {
        let main = contents(method);
        assert!(
            main.text.contains("Lighthouses is described here"),
            "{method}: {}",
            main.text
        );
        assert!(!main.text.contains("Copyright"), "{method}: {}", main.text);
        assert!(!main.text.contains("Shop"), "{method}: {}", main.text);
        assert!(main.removed() > 0.3, "{method}: {}", main.removed());
    }
    let all = contents(Method::None);
    assert!(all.text.contains("Copyright") && all.text.contains("Shop"));
    assert_eq!(all.removed(), 0.0);
}

#[test]
fn a_single_page_gives_its_article_whatever_the_method() {
    let page = Blocks::of(&site_page("", "Lighthouses"));
    for method in [Method::Article, Method::Ntpc, Method::Lev, Method::Sst] {
        let main = main_content(method, &page, &[]);
        assert_eq!(
            main.text,
            "Lighthouses is described here at length: towers guiding ships past rocks."
        );
    }
}

#[test]
fn the_article_loses_the_paragraphs_its_site_repeats() {
    let notice = "Our reporters check every story with two sources before we publish it.";
    let page = |text: &str| {
        Blocks::of(&Page::parse(&format!(
            "<html><body><div class=story><p>{text}</p><p>{notice}</p></div></body></html>"
        )))
    };
    let own =
        "The harbour master said on Monday that the new ferry, delayed twice, will run from May.";
    let pages = [
        page(own),
        page("Traders at the fish market sold out of smoked eel before nine, the organisers said."),
        page(
            "Forty dinghies raced around three buoys; a crew from Greifswald won both heats today.",
        ),
    ];
    let alone = main_content(Method::Article, &pages[0], &[]);
    assert_eq!(alone.text, format!("{own}\n{notice}"));
    let with_site = main_content(Method::Article, &pages[0], &[&pages[1], &pages[2]]);
    assert_eq!(with_site.text, own);
}

#[test]
fn units_and_text_nodes_follow_the_thesis() {
    let page = Page::parse(
        "<body>Intro <b>bold</b>text<div>in <a href='/a'>div</a><p>para</p>tail</div><script>x()</script></body>",
    );
    let blocks = Blocks::of(&page);
    let tags: Vec<&str> = blocks.blocks.iter().map(|b| &*b.tag).collect();
    assert_eq!(tags, ["body", TEXT, "div", TEXT, "p", TEXT, TEXT]);
    assert_eq!(blocks.blocks[1].text, "Intro boldtext");
    assert_eq!(blocks.blocks[3].text, "in div");
    assert_eq!(&*blocks.blocks[3].refs[0], "a:/a");
    assert_eq!(blocks.text(), "Intro boldtext in div para tail");
}

#[test]
fn net_paths_end_at_the_last_slash() {
    let url = |s| Url::parse(s).unwrap();
    assert_eq!(net_path(&url("http://h/a/b.html?x=1#f")), "http://h/a/");
    assert_eq!(net_path(&url("http://h/")), "http://h/");
    assert_eq!("LEV".parse::<Method>(), Ok(Method::Lev));
    assert!("x".parse::<Method>().is_err());
}

#[test]
fn a_description_is_cut_at_a_word() {
    let main = MainContent {
        text: "word ".repeat(60),
        total_chars: 300,
    };
    let d = main.description().unwrap();
    assert!(d.ends_with("word…") && d.chars().count() <= 201, "{d}");
}

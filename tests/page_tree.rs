//! The page tree through its public interface: what the gatherer and the
//! summarizer read from ordinary pages, and what a tree costs.

mod support;

use gather::hel::{bench, Rule};
use gather::page::{Link, Page};
use support::hel_fixture as fixture;

#[test]
fn memory_is_at_most_three_times_the_page() {
    for seed in 0..10 {
        let html = bench::generate_page(seed, 40_000);
        let page = Page::parse(&html);
        let ratio = page.heap_bytes() as f64 / html.len() as f64;
        assert!(ratio <= 3.0, "page {seed}: {ratio:.2}×");
        // The tree is complete: heap_bytes counts real content.
        assert!(
            page.heap_bytes() > html.len() / 2,
            "page {seed}: {ratio:.2}×"
        );
    }
    for f in [
        "cityworld.html",
        "cityworld_malformed.html",
        "currency.html",
    ] {
        let bytes = fixture(f);
        let page = Page::from_bytes(&bytes, None);
        // Tiny pages: the fixed part (the label table, html/head/body) on top.
        let fixed = Page::parse("").heap_bytes();
        assert!(fixed < 1024, "{fixed}");
        assert!(
            page.heap_bytes() <= 3 * bytes.len() + fixed,
            "{f}: {} bytes for {}",
            page.heap_bytes(),
            bytes.len()
        );
    }
}

#[test]
fn cityworld_page_title_meta_links_text() {
    let page = Page::from_bytes(&fixture("cityworld.html"), Some("text/html"));
    assert_eq!(
        page.title().as_deref(),
        Some("CityWorld Hotelführer Mecklenburg-Vorpommern")
    );
    assert_eq!(
        page.meta_content("db.queryelement").as_deref(),
        Some("region")
    );
    assert_eq!(
        page.meta_content("DB.Result.ort").as_deref(),
        Some("tr[j:*].td[1].txt\n  where tr[j].td[1].font.getAttr(color) = '#FF8000'")
    );
    let links = page.links();
    assert_eq!(links.len(), 6);
    assert_eq!(
        links[0],
        Link {
            href: "/index.html".into(),
            text: "".into()
        }
    );
    assert_eq!(
        links[3],
        Link {
            href: "/regionen/ruegen.html".into(),
            text: "Rügen".into()
        }
    );
    assert_eq!(
        links[5],
        Link {
            href: "#Seitenanfang".into(),
            text: "nach oben".into()
        }
    );
    let text = page.text();
    assert!(text.starts_with("Neue Suche | Hilfe Hotels und Pensionen in der Region Fischland Rügen Usedom Ort / Hotel Ahrenshoop Hotel Namenlos Schifferberg 2"), "{text}");
    assert!(text.ends_with("Preise auf Anfrage nach oben"), "{text}");
}

#[test]
fn same_answers_from_well_formed_and_malformed_markup() {
    let good = Page::from_bytes(&fixture("cityworld.html"), None);
    let bad = Page::from_bytes(&fixture("cityworld_malformed.html"), None);
    let rule =
        Rule::parse("html.body->table[1].tr[*](.td[0].small.input.getAttr(value) # .td[1].txt)")
            .unwrap();
    assert_eq!(rule.eval(&good), rule.eval(&bad));
    assert_eq!(
        good.links().iter().map(|l| &l.href).collect::<Vec<_>>(),
        bad.links().iter().map(|l| &l.href).collect::<Vec<_>>()
    );
}

#[test]
fn charsets_are_decoded_before_parsing() {
    // windows-1252 by default, the header's charset, a <meta> charset.
    let latin1 = b"<title>K\xfcche</title><p>Gr\xfc\xdfe";
    assert_eq!(
        Page::from_bytes(latin1, None).title().as_deref(),
        Some("Küche")
    );
    let utf8 = "<title>Küche</title>".as_bytes();
    assert_eq!(
        Page::from_bytes(utf8, Some("text/html; charset=UTF-8"))
            .title()
            .as_deref(),
        Some("Küche")
    );
    let meta = b"<meta charset=\"koi8-r\"><title>\xf0\xd2\xc9\xd7\xc5\xd4</title>";
    assert_eq!(
        Page::from_bytes(meta, None).title().as_deref(),
        Some("Привет")
    );
}

#[test]
fn pages_without_text_or_markup() {
    let page = Page::parse("");
    assert_eq!(page.title(), None);
    assert_eq!(page.text(), "");
    assert!(page.links().is_empty());
    assert_eq!(page.meta_content("description"), None);
    let page = Page::default();
    assert_eq!(
        Rule::parse("html.body.txt").unwrap().eval(&page),
        gather::hel::Nsl::Str(String::new())
    );
}

/// Found by fuzzing (`page_tree`): an element written `<pcdata>` took the
/// label of text nodes, and reading its "text" sliced the page's text
/// buffer with its attribute indexes (a panic inside a UTF-8 character).
#[test]
fn an_element_named_pcdata_is_no_text_node() {
    let page = Page::parse("<b id=\"é\">x<pcdata title=y>z</pcdata></b><p>w");
    assert_eq!(page.text(), "x z w");
    let text = |rule: &str| Rule::parse(rule).unwrap().eval(&page).flatten();
    // `pcdata` in a rule names text nodes only.
    assert_eq!(text("html->pcdata[*].txt"), ["x", "z", "w"]);
    assert_eq!(text("html.body.b.pcdata[*].txt"), ["x"]);
    assert_eq!(text("html.body.b.numberOf(pcdata)"), ["1"]);
    assert_eq!(
        text("html.body.b.src"),
        ["<b id=\"é\">x<pcdata title=\"y\">z</pcdata></b>"]
    );
    // An attribute may still be called pcdata.
    let page = Page::parse("<p pcdata=v>t");
    let attr = Rule::parse("html.body.p.getAttr(pcdata)").unwrap();
    assert_eq!(attr.eval(&page).flatten(), ["v"]);
}

//! The page tree through its public interface: what the gatherer and the
//! summarizer read from ordinary pages, and what a tree costs.

use crate::support;

use gather::demo::listing as bench;
use gather::hel::Rule;
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
    let links: Vec<Link<'_>> = links.iter().collect();
    assert_eq!(links.len(), 6);
    assert_eq!(
        links[0],
        Link {
            href: "/index.html",
            text: ""
        }
    );
    assert_eq!(
        links[3],
        Link {
            href: "/regionen/ruegen.html",
            text: "Rügen"
        }
    );
    assert_eq!(
        links[5],
        Link {
            href: "#Seitenanfang",
            text: "nach oben"
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
        good.links().iter().map(|l| l.href).collect::<Vec<_>>(),
        bad.links().iter().map(|l| l.href).collect::<Vec<_>>()
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

/// Set in the child process that parses the deep page.
const DEEP_CHILD: &str = "GATHER_TEST_DEEP_PAGE_CHILD";

/// The child's part of `a_page_nested_100_000_deep_parses_in_bounded_memory`:
/// parses the page, evaluates rules on it, and prints its peak memory.
#[test]
#[ignore = "run in a process of its own by a_page_nested_100_000_deep_parses_in_bounded_memory"]
fn helper_deep_page_process() {
    if std::env::var_os(DEEP_CHILD).is_none() {
        return;
    }
    let depth = 100_000;
    let html =
        "<div>".repeat(depth) + "<a href=/deep>deep</a>" + &"</div>".repeat(depth) + "<p>after</p>";
    let page = Page::parse(&html);
    assert_eq!(page.text(), "deep after");
    assert_eq!(page.links().get(0).map(|l| l.href), Some("/deep"));
    let eval = |rule: &str| Rule::parse(rule).unwrap().eval(&page);
    assert_eq!(
        eval("html.body->a[0].getAttr(href)"),
        gather::hel::Nsl::Str("/deep".into())
    );
    assert_eq!(
        eval("html.body.p.txt"),
        gather::hel::Nsl::Str("after".into()),
        "the page's structure resumes after the nesting"
    );
    // Every div, its children counted: a list of 100,000 values.
    match eval("html.body->div[*].numberOf(div)") {
        gather::hel::Nsl::List(counts) => assert_eq!(counts.len(), depth),
        other => panic!("{other:?}"),
    }
    let src = eval("html.body.src").flatten().concat();
    assert_eq!(src.matches("<div>").count(), depth);
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let peak_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("VmHWM in /proc/self/status");
    println!("peak_rss_kib={peak_kib}");
}

#[test]
#[cfg(target_os = "linux")]
fn a_page_nested_100_000_deep_parses_in_bounded_memory() {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "page_tree::helper_deep_page_process",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(DEEP_CHILD, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the child crashed or failed: {:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let peak_kib: u64 = stdout
        .split("peak_rss_kib=")
        .nth(1)
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no peak in {stdout}"));
    // The page is 1.1 MB; its tree, the rules' values and the test harness
    // took 15 MiB when this was written.
    assert!(peak_kib < 64 * 1024, "peak RSS {peak_kib} KiB");
    eprintln!("peak RSS of a 100,000-deep page: {peak_kib} KiB");
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

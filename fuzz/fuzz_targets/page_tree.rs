//! Arbitrary bytes as a page (with one of a few HTTP content types): the
//! charset decoding and the tree never panic, and everything read from the
//! tree (`.txt`, `.src`, links, title, meta tags) can be read.
#![no_main]

use std::sync::OnceLock;

use gather::hel::Rule;
use gather::page::Page;
use libfuzzer_sys::fuzz_target;

const CONTENT_TYPES: &[Option<&str>] = &[
    None,
    Some("text/html"),
    Some("text/html; charset=utf-8"),
    Some("text/html; charset=ISO-8859-1"),
    Some("text/html;charset=\"windows-1252\""),
    Some("text/html; charset=shift_jis"),
    Some("text/html; charset=utf-16le"),
    Some("text/html; charset=bogus"),
];

fn rules() -> &'static [Rule] {
    static R: OnceLock<Vec<Rule>> = OnceLock::new();
    R.get_or_init(|| {
        [
            "html.txt",
            "html.src",
            "html.body.txt",
            "html->table[*].tr[*].td[*].txt",
            "html->a[*].getAttr(href)",
            "html->pcdata[0-5].src",
            "html->title.txt",
            "html.body.numberOf(table)",
        ]
        .iter()
        .map(|r| Rule::parse(r).unwrap())
        .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, bytes)) = data.split_first() else {
        return;
    };
    let content_type = CONTENT_TYPES[first as usize % CONTENT_TYPES.len()];
    let page = Page::from_bytes(bytes, content_type);
    let _ = page.title();
    let _ = page.text();
    for link in &page.links() {
        assert_eq!(link.href.trim(), link.href);
    }
    let _ = page.meta_content("DB.QueryElements");
    let _ = page.heap_bytes();
    for rule in rules() {
        let _ = rule.eval(&page).flatten();
    }
    // The text as parsed by `Page::parse` too.
    if let Ok(text) = std::str::from_utf8(bytes) {
        let p = Page::parse(text);
        let _ = p.text();
        let _ = rules()[1].eval(&p);
    }
});

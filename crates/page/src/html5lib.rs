//! The page tree against html5lib's tree-construction tests (the files in
//! `fixtures/html5lib/`, MIT, from github.com/html5lib/html5lib-tests):
//! the cases that matter for extraction (misnested tables, implied `tbody`,
//! foster parenting, unclosed `p` and `li`, misnested formatting elements).
//!
//! The expected trees are compared the way the page tree differs from a DOM
//! by design (see the module docs of `page`): comments, the doctype and
//! white-space-only text are no nodes; names carry no namespace; a
//! template's contents are its children; every page has a `body`; labels
//! are lower case.

use super::{NodeId, Page, PCDATA};

/// One test: its input and its expected tree as `(level, line)` items.
struct Case {
    data: String,
    expected: Vec<(usize, String)>,
}

fn cases(file: &str) -> Vec<Case> {
    let path = format!("{}/fixtures/html5lib/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut out = Vec::new();
    for block in text.split("\n\n#data\n") {
        let block = block.strip_prefix("#data\n").unwrap_or(block);
        let Some((data, rest)) = block.split_once("\n#errors\n") else {
            continue;
        };
        // Fragments and scripting-on cases are not how a page is parsed.
        if rest.contains("\n#document-fragment\n") || rest.contains("\n#script-on") {
            continue;
        }
        let Some((_, document)) = rest.split_once("#document\n") else {
            continue;
        };
        out.push(Case {
            data: data.to_string(),
            expected: normalise(document.trim_end_matches('\n')),
        });
    }
    out
}

/// The expected tree of a test, written the way [`tree`] writes ours.
fn normalise(document: &str) -> Vec<(usize, String)> {
    // Items: lines starting with "| "; a text item runs on to the next one.
    let mut items: Vec<(usize, String)> = Vec::new();
    for line in document.split('\n') {
        match line.strip_prefix("| ") {
            Some(item) => {
                let body = item.trim_start_matches(' ');
                items.push(((item.len() - body.len()) / 2, body.to_string()));
            }
            None => {
                if let Some(last) = items.last_mut() {
                    last.1.push('\n');
                    last.1.push_str(line);
                }
            }
        }
    }
    let mut out: Vec<(usize, String)> = Vec::new();
    // Levels of `content` items whose subtrees move one level up.
    let mut contents: Vec<usize> = Vec::new();
    // Level of a dropped subtree (comments have none, but be safe).
    for (level, item) in items {
        while contents.last().is_some_and(|&c| level <= c) {
            contents.pop();
        }
        if item.starts_with("<!--") || item.starts_with("<!DOCTYPE") {
            continue;
        }
        if item == "content" {
            contents.push(level);
            continue;
        }
        let level = level - contents.len();
        let item = if let Some(text) = item.strip_prefix('"') {
            let text = text.strip_suffix('"').unwrap_or(text);
            if text.chars().all(char::is_whitespace) {
                continue;
            }
            format!("\"{text}\"")
        } else if let Some(name) = item.strip_prefix('<') {
            // `<svg foreignObject>` → `<foreignobject>` (labels are lower case).
            let name = name.rsplit(' ').next().unwrap_or(name);
            format!("<{}", name.to_ascii_lowercase())
        } else {
            // An attribute, `xlink href="…"` → `href="…"`.
            let (name, value) = item.split_once('=').unwrap_or((&item, ""));
            let name = name.rsplit(' ').next().unwrap_or(name);
            format!("{}={value}", name.to_ascii_lowercase())
        };
        // Text split by a dropped comment stays two nodes, but an empty
        // text merged into nothing does not appear: nothing to do here.
        out.push((level, item));
    }
    sort_attributes(&mut out);
    if !out.iter().any(|(l, i)| *l == 1 && i == "<body>") {
        out.push((1, "<body>".to_string()));
    }
    out
}

/// Sorts each element's attribute items by name (html5lib lists them sorted
/// by the full name, which differs where a namespace prefix was dropped).
fn sort_attributes(items: &mut [(usize, String)]) {
    let is_attr = |i: &str| !i.starts_with('<') && !i.starts_with('"');
    let mut i = 0;
    while i < items.len() {
        let start = i;
        while i < items.len() && is_attr(&items[i].1) {
            i += 1;
        }
        items[start..i].sort();
        if i == start {
            i += 1;
        }
    }
}

/// The page tree in the items of html5lib's format.
fn tree(page: &Page) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let level = |n: NodeId| page.ancestors(n).count();
    for n in page.node_ids() {
        let l = level(n);
        if page.label_of(n) == PCDATA {
            out.push((l, format!("\"{}\"", page.raw_text(n))));
            continue;
        }
        out.push((l, format!("<{}>", page.label_name(n))));
        let mut attrs: Vec<(usize, String)> = page
            .attrs(n)
            .map(|(k, v)| (l + 1, format!("{k}=\"{v}\"")))
            .collect();
        attrs.sort();
        out.extend(attrs);
    }
    out
}

fn show(items: &[(usize, String)]) -> String {
    items
        .iter()
        .map(|(l, i)| format!("| {}{i}\n", "  ".repeat(*l)))
        .collect()
}

/// Runs the cases of `file`; returns the inputs of those whose tree differs.
fn failures(file: &str) -> (usize, Vec<String>) {
    let cases = cases(file);
    let mut failed = Vec::new();
    for case in &cases {
        let ours = tree(&Page::parse(&case.data));
        if ours != case.expected {
            failed.push(format!(
                "{file}: {:?}\nexpected:\n{}ours:\n{}",
                case.data,
                show(&case.expected),
                show(&ours)
            ));
        }
    }
    (cases.len(), failed)
}

fn check(file: &str, min_cases: usize) {
    let (n, failed) = failures(file);
    assert!(n >= min_cases, "{file}: only {n} cases read");
    assert!(
        failed.is_empty(),
        "{} of {n} cases differ:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

#[test]
fn tables_implied_tbody_and_foster_parenting() {
    check("tables01.dat", 15);
}

#[test]
fn misnested_tables_and_formatting_elements() {
    check("tests7.dat", 25);
    check("tricky01.dat", 8);
}

#[test]
fn adoption_agency_for_misnested_formatting() {
    check("adoption01.dat", 15);
    check("adoption02.dat", 2);
}

#[test]
fn unclosed_blocks_paragraphs_and_list_items() {
    check("blocks.dat", 40);
    check("tests1.dat", 100);
    check("tests2.dat", 50);
    check("tests3.dat", 20);
}

#[test]
fn the_harness_sees_a_wrong_tree() {
    // A tree that html5lib expects differently must be reported.
    let expected = normalise("| <html>\n|   <head>\n|   <body>\n|     <p>\n|       \"x\"");
    let ours = tree(&Page::parse("<p>x"));
    assert_eq!(ours, expected);
    let wrong = normalise("| <html>\n|   <head>\n|   <body>\n|     <div>\n|       \"x\"");
    assert_ne!(ours, wrong);
}

//! The metadata grammar: the value of every DB name (alone and through
//! `Metadata::from_entries`), configuration files, DBContent documents and
//! the meta tags of a page. Nothing panics; errors point into the input.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use gather::metadata::{
    parse_domain, parse_lines, parse_list, parse_navigation_url, parse_number, parse_query_script,
    parse_url, parse_yes_no, quote_item, read_config_file, read_meta_tags, DbContent, Entry,
    Metadata, Origin, Pattern, ValueError, ValueKind,
};
use libfuzzer_sys::fuzz_target;

const NAMES: &[&str] = &[
    "DB.ConfigFile",
    "DB.QueryScript",
    "DB.QueryElement",
    "DB.QueryElements",
    "DB.QueryElement.region",
    "DB.QueryElement.ort",
    "DB.MaxQueries",
    "DB.MaxPages",
    "DB.Result",
    "DB.Result.name",
    "DB.Result.ort",
    "DB.NavigationURL",
    "DB.Navigation",
    "DB.Summarizer",
    "QueryElements",
    "result.preis",
    "db.queryelement.region",
    "DB.Bogus",
];

fn check<T>(value: &str, r: Result<T, ValueError>) {
    if let Err(e) = r {
        assert!(e.span.offset <= value.len(), "{e:?}");
        assert!(e.span.line >= 1 && e.span.column >= 1, "{e:?}");
        assert!(e.span.line <= value.split('\n').count(), "{e:?}");
        let _ = e.to_string();
    }
}

/// Entries from text: one a line, `NAME TAB VALUE [TAB r|v]` (`r`: a
/// rule, `v`: values, as a spec says); a NAME that is a number picks one of
/// `NAMES`; `\x1f` in a value is a line break.
fn entries(text: &str) -> Vec<Entry> {
    text.lines()
        .take(32)
        .enumerate()
        .map(|(i, line)| {
            let mut parts = line.split('\t');
            let name = parts.next().unwrap_or_default();
            let value = parts.next().unwrap_or_default().replace('\x1f', "\n");
            let hint = match parts.next() {
                Some("r") => Some(ValueKind::Rule),
                Some("v") => Some(ValueKind::Values),
                _ => None,
            };
            let name = match name.parse::<usize>() {
                Ok(n) => NAMES[n % NAMES.len()].to_string(),
                Err(_) => name.to_string(),
            };
            Entry {
                name,
                value,
                origin: Origin::ConfigLine {
                    file: "fuzz.txt".into(),
                    line: i + 1,
                },
                hint,
            }
        })
        .collect()
}

/// What the input is, by its first byte.
enum Input {
    /// One value through every value parser.
    Value(String),
    /// Entries built from the input (see [`entries`]), read in order.
    Entries(String),
    /// A configuration file (lines or HTML) and then its entries.
    ConfigFile(String),
    /// A DBContent document.
    DbContent(String),
    /// A page's meta tags.
    Page(String),
    /// Values written with `quote_item` read back.
    Quoted(Vec<String>),
}

fn input(data: &[u8]) -> Option<Input> {
    let (&mode, rest) = data.split_first()?;
    if mode % 6 == 5 {
        return Vec::<String>::arbitrary_take_rest(Unstructured::new(rest))
            .ok()
            .map(Input::Quoted);
    }
    let text = std::str::from_utf8(rest).ok()?.to_string();
    Some(match mode % 6 {
        0 => Input::Value(text),
        1 => Input::Entries(text),
        2 => Input::ConfigFile(text),
        3 => Input::DbContent(text),
        _ => Input::Page(text),
    })
}

fuzz_target!(|data: &[u8]| {
    let Some(input) = input(data) else {
        return;
    };
    match input {
        Input::Value(v) => {
            check(&v, parse_url(&v));
            check(&v, parse_query_script(&v));
            check(&v, parse_number(&v));
            check(&v, parse_yes_no(&v));
            check(&v, parse_list(&v));
            check(&v, parse_domain(&v));
            check(&v, parse_navigation_url(&v));
            if let Ok(p) = Pattern::parse(&v) {
                let n = p.len();
                let _ = p.get(0);
                let _ = p.get(n.saturating_sub(1));
                let _ = p.get(n);
                let _ = p.values().take(50).count();
            }
            let entries: Vec<Entry> = NAMES
                .iter()
                .enumerate()
                .map(|(i, name)| Entry {
                    name: name.to_string(),
                    value: v.clone(),
                    origin: Origin::MetaTag {
                        page: "fuzz.html".into(),
                        line: Some(i + 1),
                    },
                    hint: None,
                })
                .collect();
            for e in &entries {
                let _ = Metadata::from_entries(std::slice::from_ref(e));
            }
        }
        Input::Entries(text) => {
            let _ = Metadata::from_entries(&entries(&text));
        }
        Input::ConfigFile(text) => {
            match parse_lines(&text) {
                Ok(lines) => {
                    for l in &lines {
                        assert!(l.line >= 1 && l.line <= text.split('\n').count(), "{l:?}");
                    }
                }
                Err(e) => assert!(
                    e.span.line >= 1 && e.span.line <= text.split('\n').count(),
                    "{e:?}"
                ),
            }
            if let Ok(entries) = read_config_file(&text, "fuzz.txt") {
                let _ = Metadata::from_entries(&entries);
            }
        }
        Input::DbContent(text) => {
            if let Err(e) = DbContent::parse(&text) {
                assert!(
                    e.span.line >= 1 && e.span.line <= text.split('\n').count(),
                    "{e:?}"
                );
            }
        }
        Input::Page(html) => {
            let meta = read_meta_tags(&html, "fuzz.html");
            let _ = Metadata::from_entries(&meta.entries);
        }
        Input::Quoted(values) => {
            let values: Vec<String> = values.into_iter().take(8).collect();
            if values.is_empty() {
                return;
            }
            let written = values
                .iter()
                .map(|v| quote_item(v))
                .collect::<Vec<_>>()
                .join(", ");
            let read = parse_list(&written).unwrap_or_else(|e| panic!("{written:?}: {e}"));
            assert_eq!(read, values, "{written:?}");
        }
    }
});

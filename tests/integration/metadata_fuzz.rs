//! Fuzz tests for the metadata-value and configuration-file parsers: any
//! input gives a value or an error with a position inside the input, never
//! a panic; what is written by the quoting helper is read back unchanged.

use gather::metadata::{
    parse_domain, parse_lines, parse_list, parse_navigation_url, parse_number, parse_query_script,
    parse_url, parse_yes_no, quote_item, read_config_file, Entry, Metadata, Origin, Pattern,
};
use proptest::prelude::*;

fn check_position<T>(input: &str, r: Result<T, gather::metadata::ValueError>) {
    if let Err(e) = r {
        assert!(
            e.span.end() <= input.len(),
            "span {:?} past {}",
            e.span,
            input.len()
        );
        assert_eq!(e.text, input);
        assert!(e.span.line >= 1 && e.span.column >= 1);
        assert!(e.span.line <= input.split('\n').count().max(1));
        let _ = e.to_string();
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn value_parsers_never_panic(s in "\\PC{0,40}|[ ,'\"/\\\\*a-zA-Z0-9:.\\[\\]{}()|?+%\n]{0,40}") {
        check_position(&s, parse_url(&s));
        check_position(&s, parse_query_script(&s));
        check_position(&s, parse_number(&s));
        check_position(&s, parse_yes_no(&s));
        check_position(&s, parse_list(&s));
        check_position(&s, parse_domain(&s));
        check_position(&s, parse_navigation_url(&s));
        if let Err(e) = Pattern::parse(&s) {
            prop_assert!(e.span.end() <= s.len());
            let _ = e.to_string();
        }
    }

    #[test]
    fn quoted_lists_read_back(values in prop::collection::vec("\\PC{0,12}", 1..6)) {
        let written = values.iter().map(|v| quote_item(v)).collect::<Vec<_>>().join(", ");
        prop_assert_eq!(parse_list(&written).unwrap(), values);
    }

    #[test]
    fn config_files_never_panic(s in "([ #\t]?[A-Za-z.]{0,8}[: ]?[ a-z,'\"*/]{0,10}\r?\n){0,8}|\\PC{0,60}") {
        match parse_lines(&s) {
            Ok(lines) => {
                for l in &lines {
                    prop_assert!(l.line >= 1 && l.line <= s.lines().count().max(1));
                    prop_assert!(!l.name.is_empty());
                }
            }
            Err(e) => {
                prop_assert!(e.span.line >= 1 && e.span.line <= s.split('\n').count().max(1));
                prop_assert!(e.span.end() <= s.len());
                let _ = e.to_string();
            }
        }
        if let Ok(entries) = read_config_file(&s, "fuzz.txt") {
            let _ = Metadata::from_entries(&entries);
        }
    }

    #[test]
    fn config_entries_keep_their_values(
        entries in prop::collection::vec(("[A-Za-z][A-Za-z.]{0,10}", "[^\n\r]{0,20}"), 1..6)
    ) {
        let text: String = entries.iter().map(|(n, v)| format!("{n}: {v}\n")).collect();
        let lines = parse_lines(&text).unwrap();
        prop_assert_eq!(lines.len(), entries.len());
        for (i, (l, (n, v))) in lines.iter().zip(&entries).enumerate() {
            prop_assert_eq!(&l.name, n);
            prop_assert_eq!(l.value.as_str(), v.trim_start_matches([' ', '\t']).trim_end());
            prop_assert_eq!(l.line, i + 1);
        }
    }

    #[test]
    fn metadata_from_arbitrary_entries_never_panics(
        pairs in prop::collection::vec(("(DB\\.)?(QueryElement|QueryElements|QueryScript|MaxQueries|MaxPages|Result|Navigation|NavigationURL|Summarizer|ConfigFile|QueryElement\\.x|Result\\.y|Bogus)", "\\PC{0,30}"), 0..8)
    ) {
        let entries: Vec<Entry> = pairs.into_iter().enumerate().map(|(i, (name, value))| Entry {
            name, value,
            origin: Origin::ConfigLine { file: "f".into(), line: i + 1 },
            hint: None,
        }).collect();
        let (_, problems) = Metadata::from_entries(&entries);
        for p in problems {
            prop_assert!(!p.to_string().is_empty());
        }
    }
}

/// Small simple regexes: literals (with `%`), classes, groups with
/// alternatives, `?` and bounded repetitions.
fn simple_regex() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        "[a-c%]{1,2}",
        Just("[A-C]".to_string()),
        Just("[x-z0-1]".to_string()),
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 1..3).prop_map(|v| v.concat()),
            prop::collection::vec(inner.clone(), 2..3).prop_map(|v| format!("({})", v.join("|"))),
            inner.clone().prop_map(|p| format!("({p})?")),
            (inner, 0u32..3, 0u32..2)
                .prop_map(|(p, n, extra)| format!("({p}){{{n},{}}}", n + extra)),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn patterns_generate_exactly_what_they_count_and_match(p in simple_regex()) {
        let pattern = Pattern::parse(&p).unwrap();
        prop_assume!(pattern.len() <= 5_000);
        let values: Vec<String> = pattern.values().collect();
        prop_assert_eq!(values.len() as u64, pattern.len());
        let re = regex::Regex::new(&format!("^(?:{p})$")).unwrap();
        for v in &values {
            prop_assert!(re.is_match(v), "{} does not match /{}/", v, p);
        }
        prop_assert_eq!(pattern.get(pattern.len()), None);
    }
}

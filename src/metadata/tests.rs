use super::*;

fn tags(pairs: &[(&str, &str)]) -> Vec<Entry> {
    pairs
        .iter()
        .enumerate()
        .map(|(i, (n, v))| Entry {
            name: n.to_string(),
            value: v.to_string(),
            origin: Origin::MetaTag {
                page: "http://cityworld.test/".into(),
                line: Some(i + 1),
            },
            hint: None,
        })
        .collect()
}

#[test]
fn cityworld_with_listed_regions() {
    let md = Metadata::parse(&tags(&[
        ("DB.QueryElement", "region"),
        ("DB.Result.region", "Fischland, Rügen, Usedom"),
        (
            "DB.Result.ort",
            "html.body->table[1].tr[i:*].td[1].txt\n  where html.body->table[1].tr[i].td[1].font.getAttr(color) = \"#FF8000\"",
        ),
        (
            "DB.Result.name",
            "html.body->table[1].tr[j:*].td[1].b.txt\n  where html.body->table[1].tr[j].td[0].small.input.getAttr(name) = \"hotel_id\"",
        ),
        ("DB.Navigation", "NO"),
    ]))
    .unwrap();
    assert_eq!(md.query_elements, ["region"]);
    assert_eq!(md.navigation, Some(false));
    let attrs: Vec<_> = md.results.iter().map(|r| r.attribute.as_str()).collect();
    assert_eq!(attrs, ["region", "ort", "name"]);
    assert!(
        matches!(&md.results[0].kind, ResultKind::Values(v) if v == &["Fischland", "Rügen", "Usedom"])
    );
    assert!(matches!(&md.results[1].kind, ResultKind::Rule(_)));
}

#[test]
fn cityworld_with_prefix_applied_in_document_order() {
    let md = Metadata::parse(&tags(&[
        ("DB.QueryElement", "region"),
        (
            "DB.Result.region",
            "html.body->A[i]->pcdata[1].txt\n  where html.body->A[i].getAttr(name) = 'Seitenanfang'",
        ),
        ("DB.Result", "html.body->table[1]."),
        (
            "DB.Result.ort",
            "tr[j:*].td[1].txt\n  where tr[j].td[1].font.getAttr(color) = '#FF8000'",
        ),
        (
            "DB.Result.name",
            "tr[k:*].td[1].b.txt\n  where tr[k].td[0].small.input.getAttr(name) = 'hotel_id'",
        ),
        ("DB.Navigation", "NO"),
    ]))
    .unwrap();
    let rules: Vec<_> = md
        .results
        .iter()
        .map(|r| match &r.kind {
            ResultKind::Rule(_) => md.rule_texts[&r.attribute].clone(),
            ResultKind::Values(_) => panic!("{} should be a rule", r.attribute),
        })
        .collect();
    assert!(rules[0].starts_with("html.body->A[i]"), "{}", rules[0]);
    assert!(
        rules[1].starts_with("html.body->table[1].tr[j:*]"),
        "{}",
        rules[1]
    );
    assert!(
        rules[2].starts_with("html.body->table[1].tr[k:*]"),
        "{}",
        rules[2]
    );
}

#[test]
fn later_values_override_earlier_ones() {
    let md = Metadata::parse(&tags(&[
        ("DB.Result", "html.body->table[0]."),
        ("DB.Result.a", "td[0].txt"),
        ("DB.Result.b", "td[1].txt"),
        ("DB.Result", "html.body->table[2]."),
        ("DB.Result.a", "td[5].txt"),
        ("DB.MaxQueries", "10"),
        ("MaxQueries", "7"),
    ]))
    .unwrap();
    assert_eq!(md.max_queries, Some(7));
    let a = md.results.iter().find(|r| r.attribute == "a").unwrap();
    match &a.kind {
        ResultKind::Rule(_) => assert_eq!(md.rule_texts["a"], "html.body->table[2].td[5].txt"),
        other => panic!("{other:?}"),
    }
    assert_eq!(md.results[0].attribute, "a", "first position is kept");
}

#[test]
fn every_problem_is_reported_with_its_origin() {
    let (_, problems) = Metadata::from_entries(&tags(&[
        ("DB.QueryElemnt", "region"),
        ("DB.MaxQueries", "many"),
        ("DB.QueryElement.ort", "/[A-Z]+/"),
        ("DB.Result.ort", "html.body->table[1].tr[j:*].td[1]"),
        ("DB.NavigationURL", "http://x/?page=2"),
        ("DB.Navigation", "maybe"),
    ]));
    assert_eq!(problems.len(), 6, "{problems:#?}");
    assert!(matches!(
        problems[0].error,
        MetadataError::UnknownName { .. }
    ));
    assert!(matches!(
        problems[0].origin,
        Origin::MetaTag { line: Some(1), .. }
    ));
    match &problems[1].error {
        MetadataError::Value { name, error } => {
            assert_eq!(name, "DB.MaxQueries");
            assert!(matches!(
                error.kind,
                ValueErrorKind::Syntax {
                    found: Some('m'),
                    ..
                }
            ));
            assert_eq!((error.span.line, error.span.column), (1, 1));
        }
        other => panic!("{other:?}"),
    }
    match &problems[2].error {
        MetadataError::Pattern { error, .. } => {
            assert!(
                matches!(&error.kind, PatternErrorKind::Unbounded { operator } if operator == "+")
            );
            assert_eq!(error.span.column, 6);
        }
        other => panic!("{other:?}"),
    }
    match &problems[3].error {
        MetadataError::Rule { error, .. } => {
            assert!(
                matches!(&error.kind, crate::hel::RuleErrorKind::Syntax { expected, found: None }
                if expected.contains(&crate::hel::Expected::Property))
            );
            assert_eq!(error.span.column, 34);
        }
        other => panic!("{other:?}"),
    }
    match &problems[4].error {
        MetadataError::Value { error, .. } => assert_eq!(error.kind, ValueErrorKind::NoStar),
        other => panic!("{other:?}"),
    }
    match &problems[5].error {
        MetadataError::Value { error, .. } => assert!(
            matches!(&error.kind, ValueErrorKind::Syntax { expected, found: Some('m') }
                if expected == &[Expected::YesNo]),
            "{error:?}"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn problems_show_their_origin_and_a_caret() {
    let (_, problems) = Metadata::from_entries(&tags(&[
        ("DB.MaxQueries", "12 pages"),
        ("DB.Result.ort", "html.body->table[1].tr[j:*].td[1]"),
    ]));
    assert_eq!(
        problems[0].to_string(),
        "http://cityworld.test/ line 1 (meta tag): DB.MaxQueries: expected end of the value, \
         found 'p' (line 1, column 4 of the value)\n  12 pages\n     ^"
    );
    assert_eq!(
        problems[1].to_string(),
        format!(
            "http://cityworld.test/ line 2 (meta tag): DB.Result.ort: the rule does not parse at \
             line 1, column 34 of the rule: expected {}, found the end of the rule\n  \
             html.body->table[1].tr[j:*].td[1]\n  {}^",
            [
                "a step (`.label` or `->label`)",
                "a fork `( … # … )`",
                "a property (`.txt`, `.src`, `.getAttr(name)`, `.numberOf(label)`)"
            ]
            .join(", ")
            .replacen(", a property", " or a property", 1),
            " ".repeat(33)
        )
    );
}

#[test]
fn domains_are_lists_or_patterns() {
    let md = Metadata::parse(&tags(&[
        ("DB.QueryElements", "ort, preis"),
        ("DB.QueryElement.ort", "/[A-Z]%/"),
        ("DB.QueryElement.preis", "\"bis 50,- DM\", \"über 50,- DM\""),
    ]))
    .unwrap();
    assert_eq!(md.query_elements, ["ort", "preis"]);
    assert_eq!(md.domains["ort"].len(), 26);
    assert_eq!(md.domains["ort"].get(25).as_deref(), Some("Z%"));
    assert_eq!(md.domains["preis"].get(0).as_deref(), Some("bis 50,- DM"));
    assert_eq!(
        md.domains["preis"].to_value(),
        "\"bis 50,- DM\", \"über 50,- DM\""
    );
}

#[test]
fn config_file_lines_become_entries() {
    let text = "# CityWorld\nQueryElement: region\nDB.Result.ort: tr[j:*].td[1].txt\n  where x\n";
    let entries = read_config_file(text, "http://h/c.txt").unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(
        entries[1].origin,
        Origin::ConfigLine {
            file: "http://h/c.txt".into(),
            line: 3
        }
    );
    assert_eq!(entries[1].value, "tr[j:*].td[1].txt\n  where x");
    let e = read_config_file("QueryElement region\n", "f").unwrap_err();
    assert!(e.to_string().starts_with("f line 1: "), "{e}");
    match &e.error {
        MetadataError::ConfigLine { error } => {
            assert!(matches!(error.kind, LineErrorKind::Syntax { .. }), "{e}");
            assert_eq!(error.span.line, 1);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_config_file_may_be_an_html_document_with_meta_tags() {
    let html = "<html><head>\n<meta name=\"DB.QueryElement\" content=\"region\">\n<meta name=\"DB.MaxPages\" content=\"4\"></head></html>";
    let entries = read_config_file(html, "http://h/c.html").unwrap();
    let md = Metadata::parse(&entries).unwrap();
    assert_eq!(md.query_elements, ["region"]);
    assert_eq!(md.max_pages, Some(4));
    assert!(matches!(
        &entries[1].origin,
        Origin::MetaTag { line: Some(3), .. }
    ));
}

#[test]
fn attribute_names_soif_cannot_carry_are_rejected() {
    let (md, problems) = Metadata::from_entries(&tags(&[
        ("DB.Result.a b", "x, y"),
        ("DB.Result.x{3}:\tevil", "html.body.txt"),
        ("DB.Result.ok", "html.body.txt"),
    ]));
    assert_eq!(problems.len(), 2, "{problems:#?}");
    for p in &problems {
        assert!(
            matches!(p.error, MetadataError::AttributeName { .. }),
            "{p}"
        );
    }
    assert!(problems[0].to_string().contains("cannot be indexed"));
    assert_eq!(md.results.len(), 1);
    assert_eq!(md.results[0].attribute, "ok");
}

#[test]
fn a_domain_from_another_page_is_a_url_and_a_rule() {
    let md = Metadata::parse(&tags(&[
        ("DB.QueryElement", "ort"),
        (
            "DB.QueryElement.ort",
            "@/orte.html html.body.ul[0].li[*].txt, match/[A-Z].*/",
        ),
    ]))
    .unwrap();
    let (url, rule) = &md.domain_pages["ort"];
    assert_eq!(url, "/orte.html");
    assert_eq!(rule.source(), "html.body.ul[0].li[*].txt, match/[A-Z].*/");
    assert!(!md.domains.contains_key("ort"));
    let (_, problems) = Metadata::from_entries(&tags(&[(
        "DB.QueryElement.ort",
        "@/orte.html html.body.ul[0.txt",
    )]));
    assert!(
        matches!(&problems[..], [p] if matches!(p.error, MetadataError::Rule { .. })),
        "{problems:?}"
    );
}

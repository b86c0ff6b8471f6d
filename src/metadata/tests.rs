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
    assert!(problems[0].to_string().contains("line 1"));
    assert!(matches!(problems[2].error, MetadataError::Pattern { .. }));
    assert!(problems[2].to_string().contains("unbounded"));
    assert!(matches!(problems[3].error, MetadataError::Rule { .. }));
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
    assert!(e.to_string().contains("f line 1"), "{e}");
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
        assert!(matches!(p.error, MetadataError::Invalid { .. }), "{p}");
    }
    assert!(problems[0].to_string().contains("cannot be indexed"));
    assert_eq!(md.results.len(), 1);
    assert_eq!(md.results[0].attribute, "ok");
}

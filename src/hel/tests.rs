use super::*;

fn eval(rule: &str, html: &str) -> Nsl {
    let r = Rule::parse(rule).unwrap_or_else(|e| panic!("{e}"));
    r.eval(&Page::parse(html))
}

#[test]
fn simple_paths() {
    let html = "<h1>Hi</h1><p>a <a href=x>one</a></p><a href=y>two</a>";
    assert_eq!(eval("html.body.h1.txt", html), Nsl::Str("Hi".into()));
    assert_eq!(eval("html->a[1].getAttr(href)", html), Nsl::Str("y".into()));
    assert_eq!(
        eval("html.body->A[*].txt", html),
        Nsl::List(vec![Nsl::Str("one".into()), Nsl::Str("two".into())])
    );
}

#[test]
fn seed_typo_is_rejected_with_suggestion() {
    let e = Rule::parse("html.body->table[1].tr[i:*.td[1].txt").unwrap_err();
    assert_eq!(e.suggestion.as_deref(), Some("tr[i:*]"), "{e}");
    assert!(matches!(
        e.kind,
        RuleErrorKind::UnclosedIndex {
            found: Some('.'),
            ..
        }
    ));
    assert_eq!((e.span.line, e.span.column, e.span.offset), (1, 27, 26));
}

fn rule(text: &str) -> Rule {
    Rule::parse(text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn rules_over_the_same_rows_share_a_row_key() {
    let a = rule("html.body.table.tr[j:*].td[1].txt WHERE html.body.table.tr[j].td[0].txt = 'x'");
    let b = rule("html.body.table.tr[k:*].td[2].b.txt where html.body.table.tr[k].td[0].txt = 'x'");
    let c = rule("html.body.table.tr[k:*].td[2].txt WHERE html.body.table.tr[k].td[0].txt = 'y'");
    let d = rule("html.body.table.tr[*].td[1].txt");
    let e = rule("html.body.table.tr[*](.td[1].txt # .td[2].txt)");
    let f = rule("html.body.table.tr[1-].td[1].txt");
    assert!(a.row_key().is_some());
    assert_eq!(a.row_key(), b.row_key());
    assert_ne!(a.row_key(), c.row_key());
    assert_eq!(d.row_key(), e.row_key());
    assert_ne!(d.row_key(), f.row_key());
    assert_eq!(rule("html.body.h1.txt").row_key(), None);
    assert_eq!(rule("html.body(.h1.txt # .h2.txt)").row_key(), None);
    assert_eq!(e.fork_width(), Some(2));
    assert_eq!(d.fork_width(), None);
    // A prefix is part of the path.
    let p = Rule::parse_with_prefix("tr[*].td[1].txt", Some("html.body.table.")).unwrap();
    assert_eq!(p.row_key(), d.row_key());
}

#[test]
fn row_fields_split_a_value_into_rows() {
    let html = "<table><tr><td>a</td><td>1</td></tr><tr><td>b</td><td></td></tr>\
                <tr><td>c</td><td>3</td></tr></table>";
    let page = Page::parse(html);
    let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let r = rule("html.body.table.tr[*].td[1].txt");
    assert_eq!(
        r.row_fields(&r.eval(&page)),
        vec![
            vec![strings(&["1"])],
            vec![strings(&[])],
            vec![strings(&["3"])]
        ]
    );
    let fork = rule("html.body.table.tr[*](.td[0].txt # .td[1].txt)");
    assert_eq!(
        fork.row_fields(&fork.eval(&page)),
        vec![
            vec![strings(&["a"]), strings(&["1"])],
            vec![strings(&["b"]), strings(&[])],
            vec![strings(&["c"]), strings(&["3"])],
        ]
    );
    // Multi-valued steps between the row and the fork: each branch collects
    // its values over them.
    let nested = rule("html.body.table[*].tr[*](.td[0].txt # .td[1].txt)");
    assert_eq!(
        nested.row_fields(&nested.eval(&page)),
        vec![vec![strings(&["a", "b", "c"]), strings(&["1", "3"])]]
    );
    let single = rule("html.body.table.tr[0].td[1].txt");
    assert!(single.row_fields(&single.eval(&page)).is_empty());
}

#[test]
fn rows_are_the_nodes_of_the_first_multi_valued_step() {
    let html = "<ul><li>a<b>x</b></li><li>b</li><li>c<b>y</b><b>z</b></li></ul>";
    let page = Page::parse(html);
    let rows = |rule: &str| {
        let (evaluation, rows) = Rule::parse(rule).unwrap().evaluate_rows(&page);
        let texts: Vec<Option<String>> =
            rows.0.iter().map(|n| n.map(|n| page.text_of(n))).collect();
        (evaluation.value, texts)
    };
    let some = |s: &str| Some(s.to_string());
    // One node per element of the top-level list, also where a later
    // multi-valued step gives several values or none.
    let (value, nodes) = rows("html.body.ul.li[*].b[*].txt");
    assert_eq!(nodes, vec![some("ax"), some("b"), some("cyz")]);
    assert_eq!(value, eval("html.body.ul.li[*].b[*].txt", html));
    // A condition picks the nodes; a missing position has none.
    let (_, nodes) = rows("html.body.ul.li[i:*].txt WHERE html.body.ul.li[i].b.txt != ''");
    assert_eq!(nodes, vec![some("ax"), some("cyz")]);
    let (_, nodes) = rows("html.body.ul.li[0,7].txt");
    assert_eq!(nodes, vec![some("ax"), None]);
    // Without a multi-valued step, no rows.
    assert!(rows("html.body.ul.li[1].txt").1.is_empty());
}

//! Every way a rule is rejected before any page is read (hel.md §5, §7).

use gather::hel::{Expected, Rule, RuleError, RuleErrorKind};

fn err(rule: &str) -> RuleError {
    match Rule::parse(rule) {
        Ok(_) => panic!("accepted: {rule}"),
        Err(e) => e,
    }
}

/// Asserts the error's line and column (1-based, in characters) and that
/// its kind is the one expected.
fn check(
    rule: &str,
    line: usize,
    column: usize,
    kind: impl Fn(&RuleErrorKind) -> bool,
) -> RuleError {
    let e = err(rule);
    assert_eq!((e.span.line, e.span.column), (line, column), "{rule}: {e}");
    assert!(kind(&e.kind), "{rule}: unexpected kind {:?}", e.kind);
    assert_eq!(e.text, rule);
    assert!(!e.in_prefix);
    e
}

/// A syntax error that names `x` among what was expected.
fn expects(x: Expected) -> impl Fn(&RuleErrorKind) -> bool {
    move |k| match k {
        RuleErrorKind::Syntax { expected, .. } | RuleErrorKind::UnclosedIndex { expected, .. } => {
            expected.contains(&x)
        }
        _ => false,
    }
}

/// A syntax error (whatever was expected) at `found`.
fn syntax_at(found: Option<char>) -> impl Fn(&RuleErrorKind) -> bool {
    move |k| matches!(k, RuleErrorKind::Syntax { found: f, .. } if *f == found)
}

#[test]
fn syntax_errors_say_what_was_expected_where() {
    let e = check("html.", 1, 6, expects(Expected::Label));
    assert!(expects(Expected::Property)(&e.kind));
    check("html.body.p", 1, 12, expects(Expected::Property));
    check("html.body.p[", 1, 13, syntax_at(None));
    check(
        "html.body.p[x-1].txt",
        1,
        14,
        expects(Expected::CloseBracket),
    );
    check(
        "html.body.p.getAttr(id",
        1,
        23,
        expects(Expected::CloseParen),
    );
    check(
        "html.body.p.numberOf().txt",
        1,
        22,
        expects(Expected::Label),
    );
    check(
        "html.body.p(.txt # .src",
        1,
        24,
        expects(Expected::CloseParen),
    );
    check("html.body.p(.txt # b.txt)", 1, 20, syntax_at(Some('b')));
    check(
        "html.body.p.txt, grep/x/",
        1,
        18,
        expects(Expected::MatchOrSplit),
    );
    check("html.body.p.txt, match/x", 1, 23, syntax_at(Some('/')));
    check("html.body.p.txt WHERE", 1, 22, expects(Expected::Path));
    check(
        "html.body.p[i].txt WHERE html.body.p[i].txt == 'a'",
        1,
        46,
        expects(Expected::Literal),
    );
    check(
        "html.body.p[i].txt WHERE html.body.p[i].txt = 'a",
        1,
        47,
        syntax_at(Some('\'')),
    );
    check(
        "html.body.p[i].txt WHERE html.body.p[i].txt = 'a' OR",
        1,
        51,
        syntax_at(Some('O')),
    );
    check("html.body.p.txt trailing", 1, 17, expects(Expected::End));
    check("", 1, 1, syntax_at(None));
}

#[test]
fn a_step_meant_as_a_property_gets_a_suggestion() {
    let e = check(
        "html.body.p.text",
        1,
        13,
        |k| matches!(k, RuleErrorKind::UnknownProperty { name } if name == "text"),
    );
    assert_eq!((e.span.len, e.suggestion.as_deref()), (4, Some(".txt")));
    let e = check("html.body->a[0].attribute WHERE", 1, 17, |k| {
        matches!(k, RuleErrorKind::UnknownProperty { .. })
    });
    assert_eq!(e.suggestion.as_deref(), Some(".getAttr(name)"));
    // A misspelt property with its argument reads as a step and a fork.
    let e = check(
        "html.body.a.getAtr(href)",
        1,
        13,
        |k| matches!(k, RuleErrorKind::UnknownProperty { name } if name == "getAtr"),
    );
    assert_eq!(e.suggestion.as_deref(), Some(".getAttr(href)"));
    let e = check("html.body->tr[0].numbrof(td)", 1, 18, |k| {
        matches!(k, RuleErrorKind::UnknownProperty { .. })
    });
    assert_eq!(e.suggestion.as_deref(), Some(".numberOf(td)"));
    // A label that is not near a property stays a syntax error.
    check("html.body.p.em", 1, 15, expects(Expected::Property));
}

#[test]
fn seed_typo_gets_a_suggestion() {
    let unclosed = |k: &RuleErrorKind| {
        matches!(k, RuleErrorKind::UnclosedIndex { expected, found: Some('.') }
            if expected.contains(&Expected::CloseBracket))
    };
    let e = check("html.body->table[1].tr[i:*.td[1].txt", 1, 27, unclosed);
    assert_eq!(e.suggestion.as_deref(), Some("tr[i:*]"));
    let e = check("html.body.p[2.txt", 1, 14, unclosed);
    assert_eq!(e.suggestion.as_deref(), Some("p[2]"));
}

#[test]
fn display_shows_message_line_and_caret() {
    let e = err("html.body->table[1].tr[i:*.td[1].txt");
    assert_eq!(
        e.to_string(),
        "expected `]`, found `.`; did you mean `tr[i:*]`?\n  html.body->table[1].tr[i:*.td[1].txt\n                            ^"
    );
    // Multi-line rules show the offending line.
    // Multi-line rules show the offending line with its number.
    let e = err("html.body.p[i].txt\nWHERE html.body.p[i].txt = 'a'\nAND html.body.p[].txt = 'b'");
    assert_eq!((e.span.line, e.span.column), (3, 17));
    let shown = e.to_string();
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(lines[1], "  3 | AND html.body.p[].txt = 'b'");
    assert_eq!(lines[2], format!("    | {}^", " ".repeat(16)));
    // Tabs stay tabs so the caret lines up.
    let e = err("html.body\n\t.p.txt\tWHERE");
    assert!(e.to_string().ends_with("\n    | \t      \t     ^"), "{e}");
    // A fault spanning several characters gets a caret under each.
    let e = err("html.body.p[i].txt WHERE html.body.h1.txt = 'b'");
    assert!(
        e.to_string()
            .ends_with(&format!("\n  {}{}", " ".repeat(25), "^".repeat(22))),
        "{e}"
    );
}

#[test]
fn unbound_variable() {
    let unbound = |v: &'static str| move |k: &RuleErrorKind| matches!(k, RuleErrorKind::Unbound { var } if var == v);
    check("html.body.p[i].txt", 1, 13, unbound("i"));
    check(
        "html.body.table.tr[i].td[j].txt WHERE html.body.table.tr[i].th.txt = 'x'",
        1,
        26,
        unbound("j"),
    );
}

#[test]
fn variable_bound_twice() {
    check(
        "html.body.p[i].txt WHERE html.body.p[i].txt = 'a' AND html.body.p[i].getAttr(id) = 'b'",
        1,
        55,
        |k| matches!(k, RuleErrorKind::BoundTwice { var } if var == "i"),
    );
}

#[test]
fn condition_with_no_or_two_variables() {
    check(
        "html.body.p[i].txt WHERE html.body.p[i].txt = 'a' AND html.body.h1.txt = 'b'",
        1,
        55,
        |k| matches!(k, RuleErrorKind::ConditionWithoutVariable),
    );
    check(
        "html.body.table.tr[i].td[j].txt WHERE html.body.table.tr[i].td[j].txt = 'a'",
        1,
        64,
        |k| {
            matches!(k, RuleErrorKind::ConditionWithSeveralVariables { vars }
                if vars == &["i", "j"])
        },
    );
}

#[test]
fn condition_binding_an_unused_variable() {
    check(
        "html.body.p.txt WHERE html.body.p[k].txt = 'a'",
        1,
        35,
        |k| matches!(k, RuleErrorKind::UnusedVariable { var } if var == "k"),
    );
}

#[test]
fn regexes_must_compile() {
    // The span covers the regex.
    let bad_regex = |rule: &str, column: usize, re: &str| {
        let e = check(rule, 1, column, |k| {
            matches!(k, RuleErrorKind::BadRegex { .. })
        });
        assert_eq!(&rule[e.span.offset..e.span.end()], re);
        e
    };
    bad_regex("html.body.p.txt, match/(a/", 24, "(a");
    bad_regex("html.body.p.txt, split/[/", 24, "[");
    let e = bad_regex(
        "html.body.p[i].txt WHERE html.body.p[i].txt =~ 'a)'",
        49,
        "a)",
    );
    assert!(
        e.to_string()
            .starts_with("the regex `a)` does not compile: "),
        "{e}"
    );
    bad_regex(
        "html.body.p[i].txt WHERE html.body.p[i].txt !~ '*'",
        49,
        "*",
    );
    // With `=` the literal is not a regex.
    assert!(Rule::parse("html.body.p[i].txt WHERE html.body.p[i].txt = '('").is_ok());
}

#[test]
fn bad_indexes() {
    check("html.body.p[3-1].txt", 1, 13, |k| {
        matches!(k, RuleErrorKind::EmptyRange { start: 3, end: 1 })
    });
    let e = check("html.body.p[99999999999999999999999].txt", 1, 13, |k| {
        matches!(k, RuleErrorKind::IndexTooLarge { .. })
    });
    assert_eq!(e.span.len, 23);
}

#[test]
fn forks_nested_too_deep() {
    let deep = format!("html.body{}.txt{}", "(.p".repeat(40), ")".repeat(40));
    let e = err(&deep);
    assert!(
        matches!(e.kind, RuleErrorKind::ForkTooDeep { max: 32 }),
        "{e}"
    );
}

#[test]
fn errors_in_the_prefix_point_into_the_prefix() {
    let e = Rule::parse_with_prefix("tr[0].txt", Some("html.body->table[1")).unwrap_err();
    assert_eq!(e.text, "html.body->table[1");
    assert_eq!(e.span.column, 19);
    assert!(e.in_prefix);
    assert!(
        e.to_string().starts_with("in the DB.Result prefix: "),
        "{e}"
    );
    let e = Rule::parse_with_prefix("tr[0].txt", Some("html.body->table[i].")).unwrap_err();
    assert_eq!(
        (e.text.as_str(), e.span.column),
        ("html.body->table[i].", 18)
    );
    assert!(e.in_prefix);
    assert!(
        matches!(&e.kind, RuleErrorKind::VariableInPrefix { var } if var == "i"),
        "{e}"
    );
    // Errors in the rule point into the rule, not the prefix + rule.
    let e = Rule::parse_with_prefix(
        "tr[j:*].td[1].txt where tr[j].td[1].font.getAttr(color) = #FF8000",
        Some("html.body->table[1]."),
    )
    .unwrap_err();
    assert_eq!(
        e.text,
        "tr[j:*].td[1].txt where tr[j].td[1].font.getAttr(color) = #FF8000"
    );
    assert!(!e.in_prefix);
    assert_eq!(e.span.column, 59);
    assert!(matches!(
        e.kind,
        RuleErrorKind::Syntax {
            found: Some('#'),
            ..
        }
    ));
}

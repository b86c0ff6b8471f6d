//! Every way a rule is rejected before any page is read (hel.md §5, §7).

use gather::hel::{Rule, RuleError};

fn err(rule: &str) -> RuleError {
    match Rule::parse(rule) {
        Ok(_) => panic!("accepted: {rule}"),
        Err(e) => e,
    }
}

/// Asserts the error's column (1-based, on its line) and a piece of its message.
fn check(rule: &str, line: usize, column: usize, says: &str) -> RuleError {
    let e = err(rule);
    assert_eq!((e.line, e.column), (line, column), "{rule}: {e}");
    assert!(
        e.message.contains(says),
        "{rule}: {:?} lacks {says:?}",
        e.message
    );
    assert_eq!(e.rule, rule);
    e
}

#[test]
fn syntax_errors_say_what_was_expected_where() {
    check("html.", 1, 6, "expected a label or a property");
    check("html.body.p", 1, 12, "a property");
    check("html.body.p[", 1, 13, "expected");
    check("html.body.p[x-1].txt", 1, 14, "expected `]`");
    check("html.body.p.getAttr(id", 1, 23, "expected `)`");
    check("html.body.p.numberOf().txt", 1, 22, "a label");
    check("html.body.p(.txt # .src", 1, 24, "expected `)`");
    check("html.body.p(.txt # b.txt)", 1, 20, "expected");
    check("html.body.p.txt, grep/x/", 1, 18, "`match` or `split`");
    check("html.body.p.txt, match/x", 1, 23, "expected");
    check("html.body.p.txt WHERE", 1, 22, "expected a path");
    check(
        "html.body.p[i].txt WHERE html.body.p[i].txt == 'a'",
        1,
        46,
        "expected a quoted string",
    );
    check(
        "html.body.p[i].txt WHERE html.body.p[i].txt = 'a",
        1,
        47,
        "expected",
    );
    check(
        "html.body.p[i].txt WHERE html.body.p[i].txt = 'a' OR",
        1,
        51,
        "expected",
    );
    check(
        "html.body.p.txt trailing",
        1,
        17,
        "expected the end of the rule",
    );
    check("", 1, 1, "expected");
}

#[test]
fn seed_typo_gets_a_suggestion() {
    let e = check(
        "html.body->table[1].tr[i:*.td[1].txt",
        1,
        27,
        "expected `]`",
    );
    assert_eq!(e.suggestion.as_deref(), Some("tr[i:*]"));
    assert!(e.message.contains("did you mean `tr[i:*]`?"));
    let e = check("html.body.p[2.txt", 1, 14, "expected");
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
    let e = err("html.body.p[i].txt\nWHERE html.body.p[i].txt = 'a'\nAND html.body.p[].txt = 'b'");
    assert_eq!(e.line, 3);
    let shown = e.to_string();
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(lines[1], "  AND html.body.p[].txt = 'b'");
    assert_eq!(lines[2].find('^'), Some(2 + e.column - 1));
    // Tabs stay tabs so the caret lines up.
    let e = err("html.body\n\t.p.txt\tWHERE");
    assert!(e.to_string().ends_with("\n  \t      \t     ^"), "{e}");
}

#[test]
fn unbound_variable() {
    check("html.body.p[i].txt", 1, 13, "variable `i` is not bound");
    check(
        "html.body.table.tr[i].td[j].txt WHERE html.body.table.tr[i].th.txt = 'x'",
        1,
        26,
        "variable `j` is not bound",
    );
}

#[test]
fn variable_bound_twice() {
    check(
        "html.body.p[i].txt WHERE html.body.p[i].txt = 'a' AND html.body.p[i].getAttr(id) = 'b'",
        1,
        55,
        "variable `i` is bound by two conditions",
    );
}

#[test]
fn condition_with_no_or_two_variables() {
    check(
        "html.body.p[i].txt WHERE html.body.p[i].txt = 'a' AND html.body.h1.txt = 'b'",
        1,
        55,
        "mentions no variable",
    );
    check(
        "html.body.table.tr[i].td[j].txt WHERE html.body.table.tr[i].td[j].txt = 'a'",
        1,
        64,
        "mentions `i` and `j`",
    );
}

#[test]
fn condition_binding_an_unused_variable() {
    check(
        "html.body.p.txt WHERE html.body.p[k].txt = 'a'",
        1,
        35,
        "binds `k`, which the rule's path does not use",
    );
}

#[test]
fn regexes_must_compile() {
    check("html.body.p.txt, match/(a/", 1, 24, "does not compile");
    check("html.body.p.txt, split/[/", 1, 24, "does not compile");
    check(
        "html.body.p[i].txt WHERE html.body.p[i].txt =~ 'a)'",
        1,
        49,
        "the regex `a)` does not compile",
    );
    check(
        "html.body.p[i].txt WHERE html.body.p[i].txt !~ '*'",
        1,
        49,
        "does not compile",
    );
    // With `=` the literal is not a regex.
    assert!(Rule::parse("html.body.p[i].txt WHERE html.body.p[i].txt = '('").is_ok());
}

#[test]
fn bad_indexes() {
    check("html.body.p[3-1].txt", 1, 13, "range 3-1 is empty");
    check(
        "html.body.p[99999999999999999999999].txt",
        1,
        13,
        "too large",
    );
}

#[test]
fn forks_nested_too_deep() {
    let deep = format!("html.body{}.txt{}", "(.p".repeat(40), ")".repeat(40));
    let e = err(&deep);
    assert!(e.message.contains("nested more than"), "{e}");
}

#[test]
fn errors_in_the_prefix_point_into_the_prefix() {
    let e = Rule::parse_with_prefix("tr[0].txt", Some("html.body->table[1")).unwrap_err();
    assert_eq!(e.rule, "html.body->table[1");
    assert_eq!(e.column, 19);
    assert!(e.message.starts_with("in the DB.Result prefix: "), "{e}");
    let e = Rule::parse_with_prefix("tr[0].txt", Some("html.body->table[i].")).unwrap_err();
    assert_eq!((e.rule.as_str(), e.column), ("html.body->table[i].", 18));
    assert!(e.message.contains("cannot use variables"), "{e}");
    // Errors in the rule point into the rule, not the prefix + rule.
    let e = Rule::parse_with_prefix(
        "tr[j:*].td[1].txt where tr[j].td[1].font.getAttr(color) = #FF8000",
        Some("html.body->table[1]."),
    )
    .unwrap_err();
    assert_eq!(
        e.rule,
        "tr[j:*].td[1].txt where tr[j].td[1].font.getAttr(color) = #FF8000"
    );
    assert_eq!(e.column, 59);
}

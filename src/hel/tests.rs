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

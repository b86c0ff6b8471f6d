//! No input makes the rule parser, the evaluator or the page tree panic.

use gather::hel::{Nsl, Rule};
use gather::page::Page;
use proptest::prelude::*;

const PAGES: &[&str] = &[
    "",
    "<table><tr><th>a<th>b<tr><td>1<td><b>2</b></table><a name=x></a>text<a href=/y>y</a>",
    "<html><head><title>t</title><meta name=a content=b></head><body><ul><li>1<li>2</ul>\
     <font><tr><td>stray</font></span><p>a<p>b<table><table><td>x</table>",
    "<div id=a class=b><p>x &amp; y</p><!-- c --><script>var a='<p>';</script><img src=z>w</div>",
];

fn pages() -> Vec<Page> {
    PAGES.iter().map(|p| Page::parse(p)).collect()
}

/// Checks a rule source: parse, show the error, or evaluate everywhere.
fn exercise(src: &str, pages: &[Page]) {
    match Rule::parse_with_prefix(src, Some("html.body->table[0].")) {
        Ok(rule) => {
            for p in pages {
                let v = rule.eval(p);
                let _ = v.flatten();
                let _ = serde_json::to_string(&v).unwrap();
            }
        }
        Err(e) => {
            assert!(e.span.end() <= e.text.len());
            assert!(e.span.line >= 1 && e.span.column >= 1);
            let shown = e.to_string();
            assert!(shown.contains('^'), "{shown}");
        }
    }
    if let Err(e) = Rule::parse(src) {
        let _ = e.to_string();
    }
}

fn label() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("table"),
        Just("tr"),
        Just("td"),
        Just("th"),
        Just("a"),
        Just("b"),
        Just("pcdata"),
        Just("p"),
        Just("li"),
        Just("ul"),
        Just("TD"),
        Just("Body"),
        Just("x-y"),
        Just("div"),
    ]
    .prop_map(String::from)
}

fn index() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        (0usize..4).prop_map(|n| format!("[{n}]")),
        (0usize..3, 0usize..5).prop_map(|(a, b)| format!("[{a},{b}]")),
        (0usize..3, 0usize..5).prop_map(|(a, b)| format!("[{a}-{b}]")),
        (0usize..3).prop_map(|a| format!("[{a}-]")),
        Just("[*]".to_string()),
    ]
}

/// Index forms with variables, and the open index of the seed's typo.
fn var_index() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("[i]".to_string()),
        Just("[i:0]".to_string()),
        Just("[i:*]".to_string()),
        Just("[j:*".to_string()),
    ]
}

fn step() -> impl Strategy<Value = String> {
    (prop_oneof![Just("."), Just("->")], label(), index())
        .prop_map(|(sep, l, i)| format!("{sep}{l}{i}"))
}

fn tail() -> impl Strategy<Value = String> {
    let prop = prop_oneof![
        Just(".txt".to_string()),
        Just(".src".to_string()),
        Just(".getAttr(href)".to_string()),
        Just(".GETATTR(id)".to_string()),
        Just(".numberOf(td)".to_string()),
        Just(".numberOf(pcdata)".to_string()),
    ];
    let ops = proptest::collection::vec(
        prop_oneof![
            Just(", match/[0-9]+/"),
            Just(", match/(.)(.)?/"),
            Just(", split/\\s+/"),
            Just(", split//"),
            Just(", match/(/"),
        ],
        0..3,
    );
    (prop, ops).prop_map(|(p, ops)| format!("{p}{}", ops.concat()))
}

/// A path, with forks nested up to `depth`.
fn path(depth: u32) -> BoxedStrategy<String> {
    let leaf = (proptest::collection::vec(step(), 0..4), tail())
        .prop_map(|(s, t)| format!("{}{t}", s.concat()))
        .boxed();
    if depth == 0 {
        return leaf;
    }
    let fork = (
        proptest::collection::vec(step(), 0..3),
        proptest::collection::vec(path(depth - 1), 1..4),
    )
        .prop_map(|(s, branches)| format!("{}({})", s.concat(), branches.join(" # ")))
        .boxed();
    prop_oneof![leaf, fork].boxed()
}

fn op_literal() -> impl Strategy<Value = String> {
    (
        prop_oneof![
            Just(" = "),
            Just(" != "),
            Just(" =~ "),
            Just(" !~ "),
            Just(" == ")
        ],
        prop_oneof![
            Just("'x'"),
            Just("\"1\""),
            Just("'('"),
            Just("'it\\'s'"),
            Just("'"),
            Just("'[0-9]'")
        ],
    )
        .prop_map(|(op, lit)| format!("{op}{lit}"))
}

fn rule_shaped() -> impl Strategy<Value = String> {
    let head = prop_oneof![Just("html"), Just("HTML"), Just(""), Just("tr")];
    // Valid in shape: no variables, or one variable with its condition.
    let plain = (head, path(2)).prop_map(|(h, p)| format!("{h}{p}"));
    let with_var = (
        prop_oneof![Just("html.body->table[0].tr"), Just("tr"), Just("html->td")],
        prop_oneof![Just("[i]"), Just("[i:0]"), Just("[i:*]")],
        path(2),
        prop_oneof![Just(" WHERE "), Just("\n where ")],
        tail(),
        op_literal(),
    )
        .prop_map(|(base, idx, p, kw, t, ol)| format!("{base}{idx}{p}{kw}{base}[i]{t}{ol}"));
    // Anything goes: variables anywhere, conditions that may not fit.
    let cond = (
        prop_oneof![
            Just("html.body->table[0].tr[i]"),
            Just("tr[i]"),
            Just("html->a[j]"),
            Just("html.body")
        ],
        tail(),
        op_literal(),
    )
        .prop_map(|(p, t, ol)| format!("{p}{t}{ol}"));
    let loose = (
        proptest::collection::vec(
            prop_oneof![
                step(),
                (label(), var_index()).prop_map(|(l, i)| format!(".{l}{i}"))
            ],
            0..4,
        ),
        path(1),
        proptest::collection::vec(cond, 0..3),
        prop_oneof![Just(" WHERE "), Just(" and ")],
    )
        .prop_map(|(steps, p, conds, kw)| {
            let base = format!("html{}{p}", steps.concat());
            if conds.is_empty() {
                base
            } else {
                format!("{base}{kw}{}", conds.join(" AND\n  "))
            }
        });
    prop_oneof![3 => plain, 3 => with_var, 2 => loose]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings_never_panic(src in ".{0,80}") {
        exercise(&src, &pages());
    }

    #[test]
    fn hel_alphabet_strings_never_panic(src in "[html.bodytrdgeAt\\[\\]*:,0-9 ()#>/'\"=~!-]{0,60}") {
        exercise(&src, &pages());
    }

    #[test]
    fn grammar_shaped_rules_never_panic(src in rule_shaped()) {
        exercise(&src, &pages());
    }

    #[test]
    fn arbitrary_html_gives_a_tree(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let page = Page::from_bytes(&bytes, None);
        let _ = (page.title(), page.text(), page.links(), page.meta_content("x"));
        assert!(page.heap_bytes() > 0);
        for r in ["html->pcdata[*].txt", "html->*", "html.body->a[*](.src # .getAttr(href))", "html->td[*].numberOf(tr)"] {
            if let Ok(rule) = Rule::parse(r) {
                let _ = rule.eval(&page);
            }
        }
    }

    #[test]
    fn tag_soup_gives_a_tree(parts in proptest::collection::vec(prop_oneof![
        Just("<table>"), Just("</table>"), Just("<tr>"), Just("<td>"), Just("</td>"), Just("<font>"),
        Just("</font>"), Just("<p>"), Just("</div>"), Just("<a name=x>"), Just("</a>"), Just("text"),
        Just(" "), Just("&amp;"), Just("<!--"), Just("-->"), Just("<b>"), Just("<script>"), Just("<template>"),
        Just("<select>"), Just("<option>"), Just("<svg>"), Just("<math>"), Just("<frameset>"),
    ], 0..60)) {
        let html = parts.concat();
        let page = Page::parse(&html);
        let rule = Rule::parse("html.body->table[*].tr[*](.td[*].txt # .numberOf(td) # .src)").unwrap();
        let v = rule.eval(&page);
        prop_assert!(matches!(v, Nsl::List(_)));
        let _ = page.text();
    }
}

#[test]
fn deep_forks_and_long_rules_are_errors_not_crashes() {
    let pages = pages();
    exercise(
        &format!("html{}.txt{}", "(.p".repeat(5000), ")".repeat(5000)),
        &pages,
    );
    exercise(&format!("html{}.txt", ".p".repeat(20_000)), &pages);
    exercise(&"[".repeat(10_000), &pages);
    exercise(&format!("html.p.txt{}", ", match/a/".repeat(2000)), &pages);
    exercise("html.p.txt, match/a{100000}{100000}/", &pages);
}

#[test]
fn grammar_shaped_rules_mostly_reach_the_evaluator() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = rule_shaped();
    let (mut ok, total) = (0, 400);
    for _ in 0..total {
        let src = strategy.new_tree(&mut runner).unwrap().current();
        ok += usize::from(Rule::parse_with_prefix(&src, Some("html.body->table[0].")).is_ok());
    }
    // The generator makes invalid rules on purpose (open indexes, `==`,
    // unbound variables), but a good share must be valid to test the evaluator.
    assert!(
        ok * 10 >= total * 3,
        "only {ok} of {total} generated rules parse"
    );
}

//! HEL rules evaluated on pages. The first byte picks the input's shape:
//!
//! - even: the rest is `RULE \0 PAGE` — rule text (relative rules read with
//!   the prefix before a second `\0` in it, if any) and the page's bytes;
//! - odd: a rule built from the grammar's pieces (labels, axes, indexes,
//!   properties, forks, regex operators, WHERE conditions) and a page
//!   generated from a small element tree or arbitrary bytes.
//!
//! Nothing panics; a rule either parses or gives a positioned error.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use gather::hel::Rule;
use gather::page::Page;
use libfuzzer_sys::fuzz_target;

const LABELS: &[&str] = &[
    "html", "head", "title", "body", "table", "tbody", "tr", "td", "th", "a", "b", "font",
    "pcdata", "p", "ul", "li", "div", "span", "form", "input", "select", "option", "TD", "Body",
    "x-y", "meta", "script",
];
const ATTRS: &[&str] = &[
    "href", "id", "class", "color", "name", "content", "value", "'data-x'",
];
const REGEXES: &[&str] = &[
    "[0-9]+",
    "(.)(.)?",
    "\\s+",
    "",
    "(",
    "\\/",
    "([A-Z][a-z]+) ([0-9]+)",
    ",",
    "a|",
    "(?i)eur",
];
const LITERALS: &[&str] = &[
    "'x'",
    "\"1\"",
    "'('",
    "'it\\'s'",
    "''",
    "'[0-9]'",
    "'Binz'",
    "'#FF8000'",
];
const VARS: &[&str] = &["i", "j", "k"];

fn pick<'a>(table: &[&'a str], i: u8) -> &'a str {
    table[i as usize % table.len()]
}

#[derive(Arbitrary, Debug)]
enum GIndex {
    None,
    At(u8),
    List(Vec<u8>),
    Range(u8, Option<u8>),
    All,
    Var(u8),
    VarFirst(u8),
    VarAll(u8),
}

#[derive(Arbitrary, Debug)]
struct GStep {
    flow: bool,
    label: u8,
    index: GIndex,
}

#[derive(Arbitrary, Debug)]
enum GProp {
    Txt,
    Src,
    GetAttr(u8),
    NumberOf(u8),
}

#[derive(Arbitrary, Debug)]
enum GTail {
    Prop(GProp),
    Fork(Vec<GPath>),
}

#[derive(Arbitrary, Debug)]
struct GPath {
    steps: Vec<GStep>,
    tail: GTail,
    ops: Vec<(bool, u8)>,
}

#[derive(Arbitrary, Debug)]
struct GCond {
    path: GPath,
    op: u8,
    literal: u8,
}

#[derive(Arbitrary, Debug)]
struct GRule {
    root: bool,
    path: GPath,
    conds: Vec<GCond>,
    semicolon: bool,
}

/// Counts the multi-valued indexes written, to keep the rules' results
/// within memory (see `MAX_MULTI`).
struct Writer {
    out: String,
    multi: usize,
}

/// At most this many multi-valued indexes in a rule: each one multiplies the
/// result by up to the page's node count, and results are not capped yet
/// (with two, the page is kept small too, see `small_enough`).
const MAX_MULTI: usize = 2;

/// How many multi-valued indexes (`[*]`, `[a-b]`, `[a,b]`, `[v:*]`) a rule
/// text has, roughly: bracket groups holding `*`, `-` or `,`.
fn multi_count(rule: &str) -> usize {
    rule.split('[')
        .skip(1)
        .filter(|g| {
            let inner = g.split(']').next().unwrap_or(g);
            inner.contains(['*', '-', ','])
        })
        .count()
}

/// Whether a rule with `multi` multi-valued indexes is evaluated on a page
/// of these bytes: n² results of n nodes stay small for a few hundred nodes.
fn small_enough(multi: usize, page: &[u8]) -> bool {
    let tags = page.iter().filter(|&&b| b == b'<').count();
    multi <= 1 || (multi == MAX_MULTI && tags <= 200)
}

impl Writer {
    fn index(&mut self, i: &GIndex) {
        let multi = matches!(
            i,
            GIndex::List(_) | GIndex::Range(..) | GIndex::All | GIndex::VarAll(_)
        );
        let i = if multi && self.multi >= MAX_MULTI {
            &GIndex::None
        } else {
            self.multi += multi as usize;
            i
        };
        let s = match i {
            GIndex::None => String::new(),
            GIndex::At(n) => format!("[{n}]"),
            GIndex::List(ns) => format!(
                "[{}]",
                ns.iter()
                    .take(8)
                    .map(|n| n.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            GIndex::Range(a, Some(b)) => format!("[{a}-{b}]"),
            GIndex::Range(a, None) => format!("[{a}-]"),
            GIndex::All => "[*]".into(),
            GIndex::Var(v) => format!("[{}]", pick(VARS, *v)),
            GIndex::VarFirst(v) => format!("[{}:0]", pick(VARS, *v)),
            GIndex::VarAll(v) => format!("[{}:*]", pick(VARS, *v)),
        };
        self.out.push_str(&s);
    }

    fn step(&mut self, s: &GStep, first: bool) {
        if !first {
            self.out.push_str(if s.flow { "->" } else { "." });
        }
        self.out.push_str(pick(LABELS, s.label));
        self.index(&s.index);
    }

    fn path(&mut self, p: &GPath, mut first: bool, depth: usize) {
        for s in p.steps.iter().take(6) {
            self.step(s, first);
            first = false;
        }
        match &p.tail {
            GTail::Fork(branches) if depth < 4 && !branches.is_empty() => {
                self.out.push('(');
                for (k, b) in branches.iter().take(4).enumerate() {
                    if k > 0 {
                        self.out.push_str(" # ");
                    }
                    self.path(b, false, depth + 1);
                }
                self.out.push(')');
            }
            GTail::Fork(_) | GTail::Prop(GProp::Txt) => self.out.push_str(".txt"),
            GTail::Prop(GProp::Src) => self.out.push_str(".src"),
            GTail::Prop(GProp::GetAttr(a)) => {
                self.out.push_str(&format!(".getAttr({})", pick(ATTRS, *a)))
            }
            GTail::Prop(GProp::NumberOf(l)) => self
                .out
                .push_str(&format!(".numberOf({})", pick(LABELS, *l))),
        }
        for (split, re) in p.ops.iter().take(3) {
            let op = if *split { "split" } else { "match" };
            self.out
                .push_str(&format!(", {op}/{}/", pick(REGEXES, *re)));
        }
    }

    fn rule(&mut self, r: &GRule) {
        if r.root {
            self.out.push_str("html");
        }
        self.path(&r.path, !r.root, 0);
        for (k, c) in r.conds.iter().take(3).enumerate() {
            self.out.push_str(if k == 0 { " WHERE " } else { " AND " });
            self.out.push_str("html");
            self.path(&c.path, false, 2);
            let op = ["=", "!=", "=~", "!~"][c.op as usize % 4];
            self.out
                .push_str(&format!(" {op} {}", pick(LITERALS, c.literal)));
        }
        if r.semicolon {
            self.out.push(';');
        }
    }
}

#[derive(Arbitrary, Debug)]
struct GNode {
    label: u8,
    attrs: Vec<(u8, String)>,
    text: Option<String>,
    children: Vec<GNode>,
    close: bool,
}

fn write_node(n: &GNode, out: &mut String, depth: usize) {
    let label = pick(LABELS, n.label);
    let label = if label == "pcdata" { "span" } else { label };
    out.push('<');
    out.push_str(label);
    for (a, v) in n.attrs.iter().take(3) {
        out.push_str(&format!(
            " {}=\"{}\"",
            pick(ATTRS, *a).trim_matches('\''),
            v.replace('"', "&quot;")
        ));
    }
    out.push('>');
    if let Some(t) = &n.text {
        out.push_str(t);
    }
    if depth < 12 {
        for c in n.children.iter().take(8) {
            write_node(c, out, depth + 1);
        }
    }
    if n.close {
        out.push_str(&format!("</{label}>"));
    }
}

#[derive(Arbitrary, Debug)]
enum GPage {
    Tree(Vec<GNode>),
    Bytes(Vec<u8>),
}

#[derive(Arbitrary, Debug)]
struct Input {
    rule: GRule,
    prefix: Option<Vec<GStep>>,
    page: GPage,
}

fn eval(rule: Result<Rule, gather::hel::RuleError>, page: &Page) {
    match rule {
        Ok(rule) => {
            let v = rule.eval(page);
            let _ = v.flatten();
        }
        Err(e) => {
            assert!(e.span.offset <= e.text.len(), "{e:?}");
            let _ = e.to_string();
        }
    }
}

/// `RULE \0 PAGE`, or `PREFIX \0 RULE \0 PAGE`.
fn split_input(data: &[u8]) {
    let mut parts = data.splitn(3, |&b| b == 0);
    let (Some(a), Some(b)) = (parts.next(), parts.next()) else {
        return;
    };
    let (prefix, rule, page) = match parts.next() {
        Some(c) => (Some(a), b, c),
        None => (None, a, b),
    };
    let (Ok(rule), Ok(prefix)) = (
        std::str::from_utf8(rule),
        prefix.map(std::str::from_utf8).transpose(),
    ) else {
        return;
    };
    if !small_enough(multi_count(rule) + prefix.map_or(0, multi_count), page) {
        return;
    }
    let page = Page::from_bytes(page, None);
    eval(Rule::parse_with_prefix(rule, prefix), &page);
}

fn structured(data: &[u8]) {
    let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    let mut w = Writer {
        out: String::new(),
        multi: 0,
    };
    w.rule(&input.rule);
    let html = match &input.page {
        GPage::Tree(nodes) => {
            let mut html = String::new();
            for n in nodes.iter().take(8) {
                write_node(n, &mut html, 0);
            }
            html.into_bytes()
        }
        GPage::Bytes(b) => b.clone(),
    };
    if !small_enough(w.multi, &html) {
        return;
    }
    let page = Page::from_bytes(&html, None);
    let prefix = input.prefix.as_ref().map(|steps| {
        let mut p = Writer {
            out: "html".into(),
            multi: MAX_MULTI,
        };
        for s in steps.iter().take(4) {
            p.step(s, false);
        }
        p.out.push('.');
        p.out
    });
    let rule = match &prefix {
        Some(prefix) if !input.rule.root => Rule::parse_with_prefix(&w.out, Some(prefix)),
        _ => Rule::parse(&w.out),
    };
    eval(rule, &page);
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode % 2 == 0 {
        split_input(rest);
    } else {
        structured(rest);
    }
});

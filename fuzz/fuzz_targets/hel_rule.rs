//! Arbitrary text as a HEL rule, with and without a `DB.Result` prefix: it
//! parses into a rule or a positioned error, never a panic; a rule that
//! parses is evaluated on a small fixed page.
#![no_main]

use std::sync::OnceLock;

use gather::hel::{Rule, RuleError};
use gather::page::Page;
use libfuzzer_sys::fuzz_target;

const PAGE: &str =
    "<html><head><title>Hotels</title><meta name=DB.Result content='html.body->table[0]'></head>\
<body><h1>Rügen</h1><table border=1><tr><th>Name<th>Ort<th>Preis</tr>\
<tr><td><a href='/h/1'>Seeblick</a><td>Binz<td><font color='#FF8000'>80 EUR</font></tr>\
<tr><td><a href='/h/2'>Am Hafen</a><td>Sassnitz<td>95&nbsp;EUR</tr>\
<tr><td colspan=3><table><tr><td>inner</table></tr></table>\
<ul><li>one<li>two<li><b>three</b> four</ul><p>x &amp; y<!-- c --><script>var a='<p>';</script>\
<a href='?page=2'>2</a> <a href='?page=3'>weiter</a></body></html>";

fn page() -> &'static Page {
    static P: OnceLock<Page> = OnceLock::new();
    P.get_or_init(|| Page::parse(PAGE))
}

fn check_error(e: &RuleError) {
    assert!(e.span.offset <= e.text.len(), "{e:?}");
    assert!(e.span.line >= 1 && e.span.column >= 1, "{e:?}");
    let _ = e.to_string();
}

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

/// Rules with more multi-valued indexes than this are parsed but not
/// evaluated: each one multiplies the work by up to the page's node count
/// (about 60 here); results are capped (`hel::MAX_RESULT_ITEMS`), but the
/// cap is far above what keeps the fuzzer fast.
const MAX_MULTI: usize = 3;

fn exercise(rule: Result<Rule, RuleError>) {
    match rule {
        Ok(rule) if multi_count(rule.source()) > MAX_MULTI => {}
        Ok(rule) => {
            let v = rule.eval(page());
            let _ = v.flatten();
            let _ = serde_json::to_string(&v).unwrap();
        }
        Err(e) => check_error(&e),
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    exercise(Rule::parse(text));
    // The rule part after a NUL byte is read with the part before as prefix.
    match text.split_once('\0') {
        Some((prefix, rule)) if multi_count(prefix) == 0 => {
            exercise(Rule::parse_with_prefix(rule, Some(prefix)))
        }
        Some(_) => {}
        None => exercise(Rule::parse_with_prefix(text, Some("html.body->table[0]."))),
    }
});

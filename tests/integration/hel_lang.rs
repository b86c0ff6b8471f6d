//! The language of hel.md §2–§6, one feature at a time.

use crate::support;

use gather::hel::{Nsl, Rule};
use gather::page::Page;
use support::{s, strs};

fn eval(rule: &str, page: &Page) -> Nsl {
    Rule::parse(rule)
        .unwrap_or_else(|e| panic!("{e}"))
        .eval(page)
}

fn json(v: &Nsl) -> String {
    serde_json::to_string(v).unwrap()
}

const LIST: &str = "<html><body>
<ul id=menu><li>Start</li><li>Hotels</li><li>Kontakt</li></ul>
<ol>
  <li class=a>zero</li><li class=b>one</li><li class=a>two</li>
  <li class=b>three</li><li class=c>four</li>
</ol>
<p>Price: EUR 89,00 per night; Tel. 0381-12345</p>
<p>Rostock, Wismar,, Stralsund</p>
</body></html>";

fn list() -> Page {
    Page::parse(LIST)
}

#[test]
fn index_single_and_omitted() {
    let p = list();
    assert_eq!(eval("html.body.ol.li[2].txt", &p), s("two"));
    // An omitted index is [0].
    assert_eq!(eval("html.body.ol.li.txt", &p), s("zero"));
    assert_eq!(eval("html.body.ol.li[0].txt", &p), s("zero"));
}

#[test]
fn index_list_keeps_order_and_positions() {
    let p = list();
    assert_eq!(
        eval("html.body.ol.li[4,0,2].txt", &p),
        strs(&["four", "zero", "two"])
    );
    assert_eq!(
        eval("html.body.ol.li[1,9].txt", &p),
        Nsl::List(vec![s("one"), Nsl::Null])
    );
}

#[test]
fn index_ranges() {
    let p = list();
    assert_eq!(
        eval("html.body.ol.li[1-3].txt", &p),
        strs(&["one", "two", "three"])
    );
    assert_eq!(
        eval("html.body.ol.li[3-].txt", &p),
        strs(&["three", "four"])
    );
    // Cut at the last match; past the end nothing.
    assert_eq!(
        eval("html.body.ol.li[3-99].txt", &p),
        strs(&["three", "four"])
    );
    assert_eq!(eval("html.body.ol.li[7-].txt", &p), strs(&[]));
}

#[test]
fn index_all() {
    let p = list();
    assert_eq!(
        eval("html.body.ul.li[*].txt", &p),
        strs(&["Start", "Hotels", "Kontakt"])
    );
    assert_eq!(eval("html.body.ul.dd[*].txt", &p), strs(&[]));
}

#[test]
fn index_variables() {
    let p = list();
    let cond = "WHERE html.body.ol.li[v].getAttr(class) = 'b'";
    assert_eq!(
        eval(&format!("html.body.ol.li[v].txt {cond}"), &p),
        s("one")
    );
    assert_eq!(
        eval(&format!("html.body.ol.li[v:0].txt {cond}"), &p),
        s("one")
    );
    assert_eq!(
        eval(&format!("html.body.ol.li[v:*].txt {cond}"), &p),
        strs(&["one", "three"])
    );
    let none = "WHERE html.body.ol.li[v].getAttr(class) = 'zzz'";
    assert_eq!(
        eval(&format!("html.body.ol.li[v].txt {none}"), &p),
        Nsl::Null
    );
    assert_eq!(
        eval(&format!("html.body.ol.li[v:*].txt {none}"), &p),
        strs(&[])
    );
}

#[test]
fn condition_operators() {
    let p = list();
    let run = |op_lit: &str| {
        eval(
            &format!("html.body.ol.li[v:*].txt where html.body.ol.li[v].txt {op_lit}"),
            &p,
        )
    };
    assert_eq!(run("= 'two'"), strs(&["two"]));
    assert_eq!(run("!= 'two'"), strs(&["zero", "one", "three", "four"]));
    assert_eq!(run("=~ '^t'"), strs(&["two", "three"]));
    assert_eq!(run("!~ 'o'"), strs(&["three"]));
    // `=` compares the whole value, `=~` searches anywhere.
    assert_eq!(run("= 'tw'"), strs(&[]));
    assert_eq!(run("=~ 'tw'"), strs(&["two"]));
    // Double quotes, escaped quotes.
    assert_eq!(run("= \"four\""), strs(&["four"]));
    let q = Page::parse("<p>it's</p><p>x</p>");
    assert_eq!(
        eval("html.body.p[v].txt where html.body.p[v].txt = 'it\\'s'", &q),
        s("it's")
    );
}

#[test]
fn condition_with_several_values_needs_one_true() {
    let p = Page::parse(
        "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>target</td></tr></table>",
    );
    assert_eq!(
        eval(
            "html->table.tr[r].td[0].txt where html->table.tr[r].td[*].txt = 'target'",
            &p
        ),
        s("c")
    );
    // A condition whose path gives null holds for no operator.
    assert_eq!(
        eval(
            "html->table.tr[r:*].td[0].txt where html->table.tr[r].td[5].txt != 'x'",
            &p
        ),
        strs(&[])
    );
}

#[test]
fn properties() {
    let p = Page::parse(
        "<div id=box title='A &amp; B'><b>Bold</b>  and\n <i>italic</i><br><img src=x.png></div>",
    );
    assert_eq!(eval("html.body.div.txt", &p), s("Bold and italic"));
    assert_eq!(eval("html.body.div.pcdata.txt", &p), s("and"));
    assert_eq!(eval("html.body.div.getAttr(title)", &p), s("A & B"));
    assert_eq!(eval("html.body.div.getAttr(ID)", &p), s("box"));
    assert_eq!(eval("html.body.div.getAttr('title')", &p), s("A & B"));
    assert_eq!(eval("html.body.div.getAttr(lang)", &p), Nsl::Null);
    assert_eq!(eval("html.body.div.numberOf(b)", &p), s("1"));
    assert_eq!(eval("html.body.div.numberOf(pcdata)", &p), s("1"));
    assert_eq!(eval("html.body.div.numberOf(table)", &p), s("0"));
    assert_eq!(eval("html.body.div.img.txt", &p), s(""));
    assert_eq!(
        eval("html.body.div.src", &p),
        s("<div id=\"box\" title=\"A &amp; B\"><b>Bold</b>  and\n <i>italic</i><br><img src=\"x.png\"></div>")
    );
    assert_eq!(eval("html.body.div.b.src", &p), s("<b>Bold</b>"));
}

#[test]
fn number_of_rows_sees_through_row_groups() {
    let p = Page::parse(
        "<table><thead><tr><th>h</th></tr></thead><tr><td>1</td></tr><tr><td>2</td></tr></table>",
    );
    assert_eq!(eval("html.body.table.numberOf(tr)", &p), s("3"));
    assert_eq!(eval("html.body.table.tr[2].txt", &p), s("2"));
    // Explicit row-group steps work too; the parser put the bare rows into
    // an implied tbody.
    assert_eq!(eval("html.body.table.thead.tr[0].txt", &p), s("h"));
    assert_eq!(eval("html.body.table.tbody[0].tr[1].txt", &p), s("2"));
}

#[test]
fn match_with_zero_one_two_groups() {
    let p = list();
    let price = "html.body.p[0].txt";
    assert_eq!(
        eval(&format!("{price}, match/[0-9]+,[0-9]+/"), &p),
        s("89,00")
    );
    assert_eq!(
        eval(&format!("{price}, match/EUR ([0-9]+)/"), &p),
        strs(&["89"])
    );
    assert_eq!(
        eval(&format!("{price}, match/([0-9]+)-([0-9]+)/"), &p),
        strs(&["0381", "12345"])
    );
    assert_eq!(eval(&format!("{price}, match/USD/"), &p), Nsl::Null);
    // An optional group that took no part is null.
    assert_eq!(
        eval(&format!("{price}, match/(EUR) (x)?/"), &p),
        Nsl::List(vec![s("EUR"), Nsl::Null])
    );
    // Inline flags, an escaped slash.
    assert_eq!(eval(&format!("{price}, match/(?i)eur/"), &p), s("EUR"));
    let q = Page::parse("<p>10/20</p>");
    assert_eq!(eval("html.body.p.txt, split/\\//", &q), strs(&["10", "20"]));
}

#[test]
fn split_and_chains_map_over_lists() {
    let p = list();
    assert_eq!(
        eval("html.body.p[1].txt, split/,\\s*/", &p),
        strs(&["Rostock", "Wismar", "Stralsund"])
    );
    assert_eq!(
        eval("html.body.p[1].txt, split/,\\s*/, match/^[RS]/", &p),
        Nsl::List(vec![s("R"), Nsl::Null, s("S")])
    );
    assert_eq!(
        eval("html.body.ol.li[*].txt, match/^t(.)/", &p),
        Nsl::List(vec![
            Nsl::Null,
            Nsl::Null,
            strs(&["w"]),
            strs(&["h"]),
            Nsl::Null
        ])
    );
}

#[test]
fn forks_nested_and_under_all() {
    let p = Page::parse(
        "<table>
           <tr><td><a href=/h1>Neptun</a></td><td>Warnem\u{fc}nde <b>****</b></td></tr>
           <tr><td><a href=/h2>Ostsee</a></td><td>Rostock <b>***</b></td></tr>
         </table>",
    );
    let r = "html.body.table.tr[*](.td[0](.txt # .a.getAttr(href)) # .td[1](.pcdata.txt # .b.txt, match/\\*+/))";
    assert_eq!(
        json(&eval(r, &p)),
        r#"[[["Neptun","/h1"],["Warnemünde","****"]],[["Ostsee","/h2"],["Rostock","***"]]]"#
    );
    assert_eq!(
        eval(r, &p).flatten(),
        [
            "Neptun",
            "/h1",
            "Warnemünde",
            "****",
            "Ostsee",
            "/h2",
            "Rostock",
            "***"
        ]
    );
    // A branch may start with ->.
    assert_eq!(
        eval("html.body.table.tr[0].td[0](.txt # ->b.txt)", &p),
        strs(&["Neptun", "****"])
    );
}

#[test]
fn null_propagation() {
    let p = list();
    assert_eq!(eval("html.body.table.tr.td.txt", &p), Nsl::Null);
    assert_eq!(eval("html.body.ol.li[9].txt", &p), Nsl::Null);
    assert_eq!(eval("html.body.ol.li[9].txt, match/x/", &p), Nsl::Null);
    assert_eq!(eval("html.body.nosuchtag[*].txt", &p), strs(&[]));
    assert_eq!(
        eval("html.body.ol.li[0,1](.txt # .b.txt)", &p),
        Nsl::List(vec![
            Nsl::List(vec![s("zero"), Nsl::Null]),
            Nsl::List(vec![s("one"), Nsl::Null]),
        ])
    );
    assert_eq!(
        json(&eval("html.body.ol.li[0](.txt # .b.txt)", &p)),
        r#"["zero",null]"#
    );
    assert_eq!(Nsl::Null.flatten(), Vec::<String>::new());
    assert_eq!(
        Nsl::List(vec![s(""), Nsl::Null, s("a"), strs(&["b", ""])]).flatten(),
        ["a", "b"]
    );
}

#[test]
fn arrow_steps_follow_document_order() {
    let p = Page::parse("<p>one<a name=x></a></p><div>two<span>three</span></div>four");
    // From a leaf: the text nodes after it, across the hierarchy.
    assert_eq!(eval("html.body->a->pcdata[0].txt", &p), s("two"));
    assert_eq!(eval("html.body->a->pcdata[1].txt", &p), s("three"));
    assert_eq!(
        eval("html.body->a->pcdata[*].txt", &p),
        strs(&["two", "three", "four"])
    );
    // The context node itself is excluded; its descendants come first.
    assert_eq!(eval("html.body.div->pcdata[0].txt", &p), s("two"));
    assert_eq!(eval("html->p[0]->p[0].txt", &p), Nsl::Null);
}

#[test]
fn case_insensitive_keywords_labels_multi_line() {
    let p = list();
    assert_eq!(
        eval(
            "HTML.Body.OL.LI[v].TXT\n\tWhere\n html.body.ol.li[v].GetAttr(CLASS) = 'c'",
            &p
        ),
        s("four")
    );
    assert_eq!(eval("html.body->Li[1].NumberOf(PCDATA)", &p), s("1"));
}

#[test]
fn prefixes_apply_to_relative_rules_and_conditions() {
    let p = list();
    let prefix = Some("html.body.ol.");
    let r =
        Rule::parse_with_prefix("li[v:*].txt where li[v].getAttr(class) = 'a'", prefix).unwrap();
    assert_eq!(r.eval(&p), strs(&["zero", "two"]));
    // Absolute rules and conditions ignore the prefix.
    let r = Rule::parse_with_prefix(
        "html.body.ul.li[v].txt where html.body.ul.li[v].txt = 'Hotels'",
        prefix,
    )
    .unwrap();
    assert_eq!(r.eval(&p), s("Hotels"));
    // A prefix ending in -> makes the first step a document-flow step.
    let r = Rule::parse_with_prefix("li[4].txt", Some("html.body->")).unwrap();
    assert_eq!(r.eval(&p), s("one"));
    // A prefix without a trailing separator, and a rule starting with one.
    let r = Rule::parse_with_prefix(".li[1].txt", Some("html.body.ol")).unwrap();
    assert_eq!(r.eval(&p), s("one"));
    let r = Rule::parse_with_prefix("li[1].txt", Some("html.body.ol")).unwrap();
    assert_eq!(r.eval(&p), s("one"));
    // Without a prefix a relative rule starts at the root.
    assert_eq!(eval("body.ol.li[1].txt", &p), s("one"));
}

#[test]
fn json_serialisation() {
    let p = list();
    assert_eq!(
        json(&eval("html.body.ul.li[0,5].txt", &p)),
        r#"["Start",null]"#
    );
    assert_eq!(json(&eval("html.body.ul.li[1].txt", &p)), r#""Hotels""#);
}

#[test]
fn rule_is_send_sync_clone() {
    fn check<T: Send + Sync + Clone + 'static>() {}
    check::<Rule>();
    let r = Rule::parse("html.body.ol.li[v:*].txt where html.body.ol.li[v].txt =~ 'o'").unwrap();
    let r2 = r.clone();
    let p = list();
    let handle = std::thread::spawn(move || r2.eval(&Page::parse(LIST)));
    assert_eq!(handle.join().unwrap(), r.eval(&p));
}

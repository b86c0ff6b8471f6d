//! The examples of the seed (§4.3, §4.4) on pages built as the seed describes.

use crate::support;

use gather::hel::{Expected, Nsl, Rule, RuleErrorKind};
use gather::page::Page;
use support::{s, strs};

fn fixture(name: &str) -> Page {
    Page::from_bytes(&support::hel_fixture(name), None)
}

fn rule(src: &str) -> Rule {
    Rule::parse(src).unwrap_or_else(|e| panic!("{e}"))
}

/// Abbildung 5, with text in the cells the seed leaves as "…".
const FIGURE_5: &str = "<HTML>
  <HEAD><TITLE>Text</TITLE> </HEAD>
  <BODY>
    <H1>Heading</H1>
    <IMG SRC=logo.gif>
    <TABLE>
      <TR>
        <TH>Name<BR>first</TH>
        <TH>Street</TH>
        <TH>Town</TH>
      </TR>
      <TR>
        <TD><IMG SRC=a.gif><A HREF=\"http://example.org/1\"><B>Anna</B></A><BR><IMG SRC=b.gif></TD>
        <TD>Dorfweg 1</TD>
        <TD>Rostock</TD>
      </TR>
      <TR>
        <TD><A HREF=\"http://example.org/2\">Bernd</A></TD>
        <TD>Am Strand 5</TD>
        <TD>Wismar</TD>
      </TR>
    </TABLE>
  </BODY>
</HTML>";

#[test]
fn figure_5_dot_paths() {
    let page = Page::parse(FIGURE_5);
    assert_eq!(rule("html.head.title.txt").eval(&page), s("Text"));
    // The heading of the first column: the text of both text nodes around <BR>.
    assert_eq!(
        rule("html.body.table[0].tr[0].th[0].txt").eval(&page),
        s("Namefirst")
    );
    assert_eq!(
        rule("html.body.table[0].tr[0].th[0].pcdata[1].txt").eval(&page),
        s("first")
    );
    // The cell's children: img, a, br, img — void elements are leaves.
    assert_eq!(
        rule("html.body.table[0].tr[1].td[0].numberOf(img)").eval(&page),
        s("2")
    );
    assert_eq!(
        rule("html.body.table[0].tr[1].td[0].a.b.txt").eval(&page),
        s("Anna")
    );
    assert_eq!(
        rule("html.body.table[0].tr[1].td[0].img[1].getAttr(src)").eval(&page),
        s("b.gif")
    );
    assert_eq!(rule("html.body.img.txt").eval(&page), s(""));
}

#[test]
fn figure_5_arrow_paths_and_fork() {
    let page = Page::parse(FIGURE_5);
    assert_eq!(
        rule("html->table[0].tr[2].td[2].txt").eval(&page),
        s("Wismar")
    );
    assert_eq!(
        rule("html.body->a[0].getAttr(href)").eval(&page),
        s("http://example.org/1")
    );
    assert_eq!(
        rule("html.body->a[*].txt").eval(&page),
        strs(&["Anna", "Bernd"])
    );
    assert_eq!(
        rule("html.body->a[*](.txt#.getAttr(href))").eval(&page),
        Nsl::List(vec![
            strs(&["Anna", "http://example.org/1"]),
            strs(&["Bernd", "http://example.org/2"]),
        ])
    );
    // From a leaf, -> reads on in document order across the hierarchy.
    assert_eq!(
        rule("html.body.table[0].tr[1].td[0].img[1]->pcdata[0].txt").eval(&page),
        s("Dorfweg 1")
    );
}

#[test]
fn currency_table_of_figure_6() {
    let page = fixture("currency.html");
    let r = rule(
        "html.body->table[1].tr[i].td[j].txt
         WHERE html.body->table[1].tr[0].th[j].txt =~ 'DM'
         AND   html.body->table[1].tr[i].th[0].txt =~ 'U\\.S\\.'",
    );
    assert_eq!(r.eval(&page), s("0.6024"));
    // The seed's own form: a name, `=` … but with the page's real headers
    // `=` compares whole values and finds nothing.
    let seed_form = rule(
        "value = html.body->table[1].tr[i].td[j].txt
         WHERE   html.body->table[1].tr[0].th[j].txt = 'DM'
         AND     html.body->table[1].tr[i].th[0].txt = 'U.S.';",
    );
    assert_eq!(seed_form.eval(&page), Nsl::Null);
    let exact = rule(
        "html.body->table[1].tr[i].td[j].txt
         WHERE html.body->table[1].tr[0].th[j].txt = 'DMark'
         AND   html.body->table[1].tr[i].th[0].txt = 'U.K. Pound'",
    );
    assert_eq!(exact.eval(&page), s("0.3635"));
}

fn cityworld_rules(page: &Page) -> (Rule, Rule, Rule) {
    let prefix = page.meta_content("DB.Result").expect("DB.Result");
    let get = |name: &str| page.meta_content(name).unwrap_or_else(|| panic!("{name}"));
    let region = Rule::parse_with_prefix(&get("DB.Result.region"), Some(&prefix));
    let ort = Rule::parse_with_prefix(&get("DB.Result.ort"), Some(&prefix));
    let name = Rule::parse_with_prefix(&get("DB.Result.name"), Some(&prefix));
    (
        region.unwrap_or_else(|e| panic!("{e}")),
        ort.unwrap_or_else(|e| panic!("{e}")),
        name.unwrap_or_else(|e| panic!("{e}")),
    )
}

const TOWNS: &[&str] = &["Ahrenshoop", "Wustrow"];
const HOTELS: &[&str] = &["Hotel Namenlos", "Pension Fischerhus", "Hotel Sonnenhof"];

#[test]
fn cityworld_first_rule_set() {
    // metadata.md §3: the seed's rules with the typo `tr[i:*` corrected.
    let ort = rule(
        "html.body->table[1].tr[i:*].td[1].txt
  where html.body->table[1].tr[i].td[1].font.getAttr(color) = \"#FF8000\"",
    );
    let name = rule(
        "html.body->table[1].tr[j:*].td[1].b.txt
  where html.body->table[1].tr[j].td[0].small.input.getAttr(name) = \"hotel_id\"",
    );
    for f in ["cityworld.html", "cityworld_malformed.html"] {
        let page = fixture(f);
        assert_eq!(ort.eval(&page), strs(TOWNS), "{f}");
        assert_eq!(name.eval(&page), strs(HOTELS), "{f}");
        assert_eq!(name.eval(&page).flatten(), HOTELS, "{f}");
    }
}

#[test]
fn cityworld_second_rule_set_with_prefix_from_meta_tags() {
    let page = fixture("cityworld.html");
    let (region, ort, name) = cityworld_rules(&page);
    for f in ["cityworld.html", "cityworld_malformed.html"] {
        let page = fixture(f);
        assert_eq!(region.eval(&page), s("Fischland"), "{f}");
        assert_eq!(ort.eval(&page), strs(TOWNS), "{f}");
        assert_eq!(name.eval(&page), strs(HOTELS), "{f}");
    }
    assert_eq!(
        ort.source(),
        "tr[j:*].td[1].txt\n  where tr[j].td[1].font.getAttr(color) = '#FF8000'"
    );
}

#[test]
fn cityworld_typo_as_printed_in_the_seed_is_rejected() {
    let printed = "html.body->table[1].tr[i:*.td[1].txt
  where html.body->table[1].tr[i].td[1].font.getAttr(color) = \"#FF8000\"";
    let e = Rule::parse(printed).unwrap_err();
    assert_eq!((e.span.line, e.span.column), (1, 27));
    assert_eq!(e.suggestion.as_deref(), Some("tr[i:*]"));
    assert!(
        matches!(&e.kind, RuleErrorKind::UnclosedIndex { expected, .. } if expected.contains(&Expected::CloseBracket)),
        "{e}"
    );
    let shown = e.to_string();
    assert!(
        shown.contains("\n  1 | html.body->table[1].tr[i:*.td[1].txt\n"),
        "{shown}"
    );
    assert!(
        shown.ends_with(&format!("\n    | {}^", " ".repeat(26))),
        "{shown}"
    );

    let prefixed =
        Rule::parse_with_prefix("tr[j:*.td[1].txt", Some("html.body->table[1].")).unwrap_err();
    assert_eq!(prefixed.text, "tr[j:*.td[1].txt");
    assert_eq!(prefixed.span.column, 7);
    assert_eq!(prefixed.suggestion.as_deref(), Some("tr[j:*]"));
}

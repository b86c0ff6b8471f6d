use super::*;

/// The tree as `label(children…)`, for compact assertions.
fn shape(page: &Page, node: NodeId) -> String {
    let mut s = page.label_name(node).to_string();
    let kids: Vec<String> = page.children(node).map(|c| shape(page, c)).collect();
    if !kids.is_empty() {
        s.push('(');
        s.push_str(&kids.join(" "));
        s.push(')');
    }
    s
}

const ABBILDUNG_5: &str = "<HTML>
  <HEAD><TITLE>Text</TITLE> </HEAD>
  <BODY>
    <H1>Text</H1>
    <IMG>
    <TABLE>
      <TR>
        <TH>Text<BR>Text</TH>
        <TH> ... </TH>
        <TH> ... </TH>
      </TR>
      <TR>
        <TD><IMG><A><B>Text</B></A><BR><IMG></TD>
        <TD> ... </TD>
        <TD> ... </TD>
      </TR>
    </TABLE>
  </BODY>
</HTML>";

#[test]
fn seed_figure_5_tree() {
    let page = Page::parse(ABBILDUNG_5);
    assert_eq!(
        shape(&page, Page::ROOT),
        "html(head(title(pcdata)) body(h1(pcdata) img table(tbody(\
         tr(th(pcdata br pcdata) th(pcdata) th(pcdata)) \
         tr(td(img a(b(pcdata)) br img) td(pcdata) td(pcdata))))))"
    );
}

#[test]
fn pre_order_numbering_is_document_order() {
    let page = Page::parse("<p>a<b>b</b></p><p>c</p>");
    let texts: Vec<String> = page
        .with_label(PCDATA)
        .iter()
        .map(|&t| page.text_of(t))
        .collect();
    assert_eq!(texts, ["a", "b", "c"]);
    let b = page.with_label(page.label_id("b").unwrap())[0];
    // After <b>: its own text, then "c".
    let after: Vec<String> = page
        .following(b, PCDATA)
        .iter()
        .map(|&t| page.text_of(t))
        .collect();
    assert_eq!(after, ["b", "c"]);
}

#[test]
fn html_head_body_always_exist() {
    for src in [
        "",
        "just text",
        "<frameset><frame src=a></frameset>",
        "<!-- c -->",
    ] {
        let page = Page::parse(src);
        let kids: Vec<&str> = page
            .children(Page::ROOT)
            .map(|c| page.label_name(c))
            .collect();
        assert_eq!(kids[0], "head", "{src:?}");
        assert!(kids.contains(&"body"), "{src:?}: {kids:?}");
    }
}

#[test]
fn comments_doctype_and_blank_text_are_dropped() {
    let page = Page::parse("<!DOCTYPE html><body> <p>a<!-- x -->b</p>\n\t<p>\u{a0}</p></body>");
    assert_eq!(
        shape(&page, Page::ROOT),
        "html(head body(p(pcdata pcdata) p))"
    );
    // The blank text between the paragraphs still separates words.
    let page = Page::parse("<p><b>one</b> <i>two</i></p>");
    assert_eq!(page.text_of(page.body()), "one two");
}

#[test]
fn entities_are_decoded_and_labels_lower_case() {
    let page = Page::parse("<DIV CLASS=x>Fish &amp; Chips&nbsp;&eacute;</DIV>");
    let div = page.children(page.body()).next().unwrap();
    assert_eq!(page.label_name(div), "div");
    assert_eq!(page.text_of(div), "Fish & Chips é");
    assert_eq!(page.attr(div, page.label_id("class").unwrap()), Some("x"));
}

#[test]
fn row_groups_are_transparent_for_tr() {
    let page = Page::parse(
        "<table><thead><tr><th>h</th></tr></thead><tbody><tr><td>1</td></tr></tbody>\
         <tfoot><tr><td>f</td></tr></tfoot></table>",
    );
    let table = page.with_label(TABLE)[0];
    let rows: Vec<NodeId> = page.child_matches(table, TR).collect();
    let texts: Vec<String> = rows.iter().map(|&r| page.text_of(r)).collect();
    assert_eq!(texts, ["h", "1", "f"]);
}

#[test]
fn void_elements_are_leaves() {
    let page = Page::parse("<p><img src=a>x<br>y<input name=q>z</p>");
    assert_eq!(
        shape(&page, Page::ROOT),
        "html(head body(p(img pcdata br pcdata input pcdata)))"
    );
}

#[test]
fn malformed_markup_still_gives_a_tree() {
    // Unclosed cells, a stray end tag, <font> around <tr>, a table in a table
    // cell left open.
    let page = Page::parse(
        "<table><font color=red><tr><td>a<td>b</font></tr></span>\
         <tr><td><table><tr><td>inner</table>c</table><p>after",
    );
    let tables = page.with_label(TABLE);
    assert_eq!(tables.len(), 2);
    let rows: Vec<NodeId> = page.child_matches(tables[0], TR).collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(page.text_of(rows[0]), "ab");
    assert_eq!(page.text_of(rows[1]), "innerc");
    assert_eq!(page.text(), "a b inner c after");
}

#[test]
fn links_keep_each_href_and_text_in_order() {
    let list = [
        ("/a?x=1", "at A"),
        ("", ""),
        ("#top", "nach oben"),
        ("/b", ""),
    ];
    let links: Links = list
        .iter()
        .map(|&(href, text)| Link { href, text })
        .collect();
    assert_eq!(links.len(), 4);
    assert!(!links.is_empty() && Links::new().is_empty());
    let read: Vec<(&str, &str)> = links.iter().map(|l| (l.href, l.text)).collect();
    assert_eq!(read, list);
    assert_eq!(links.iter().len(), 4);
    assert_eq!(
        links.get(2),
        Some(Link {
            href: "#top",
            text: "nach oben"
        })
    );
    assert_eq!(links.get(3).map(|l| l.text), Some(""));
    assert_eq!(links.get(4), None);
    assert_eq!((&links).into_iter().count(), 4);
}

#[test]
fn title_meta_text_links() {
    let page = Page::parse(
        "<html><head><title> Hotels\n in  MV </title>\
         <META NAME=\"DB.QueryElement\" CONTENT=\"region\">\
         <meta name=db.queryelement content=second>\
         <style>p{}</style><script>var x;</script></head>\
         <body><h1>Hotels</h1><p>Stay <a href=' /a?x=1&amp;y=2 '>at <b>A</b></a>.</p>\
         <a name=top></a><a href=/b>B</a></body></html>",
    );
    assert_eq!(page.title().as_deref(), Some("Hotels in MV"));
    assert_eq!(
        page.meta_content("db.queryelement").as_deref(),
        Some("region")
    );
    assert_eq!(page.meta_content("DB.Missing"), None);
    assert_eq!(page.text(), "Hotels Stay at A. B");
    assert_eq!(
        page.links().iter().collect::<Vec<_>>(),
        vec![
            Link {
                href: "/a?x=1&y=2",
                text: "at A"
            },
            Link {
                href: "/b",
                text: "B"
            }
        ]
    );
}

#[test]
fn outer_html_round_trips_structure() {
    let page = Page::parse("<p class='a\"b'>x &lt; y<br><script>if(a<b){}</script></p>");
    let p = page.children(page.body()).next().unwrap();
    assert_eq!(
        page.outer_html(p),
        "<p class=\"a&quot;b\">x &lt; y<br><script>if(a<b){}</script></p>"
    );
}

#[test]
fn from_bytes_decodes_charset() {
    let page = Page::from_bytes(b"<meta charset=iso-8859-1><p>Gr\xfc\xdfe</p>", None);
    assert_eq!(page.text(), "Grüße");
    let page = Page::from_bytes(b"<p>\xc3\xbc</p>", Some("text/html; charset=utf-8"));
    assert_eq!(page.text(), "ü");
}

#[test]
fn deep_nesting_does_not_overflow() {
    let html = "<div>".repeat(20_000) + "x";
    let page = Page::parse(&html);
    assert_eq!(page.text(), "x");
    assert!(page.outer_html(page.body()).len() > 20_000);
}

#[test]
fn many_distinct_attribute_names_keep_their_values() {
    // Long names are dynamic atoms, freed and reallocated while parsing.
    let html: String = (0..3000)
        .map(|i| format!("<p data-attribute-number-{i}=\"v{i}\">x</p>"))
        .collect();
    let page = Page::parse(&html);
    let ps = page.with_label(page.label_id("p").unwrap());
    assert_eq!(ps.len(), 3000);
    for (i, &p) in ps.iter().enumerate() {
        let name = page
            .label_id(&format!("data-attribute-number-{i}"))
            .unwrap();
        assert_eq!(page.attr(p, name), Some(format!("v{i}").as_str()));
        assert_eq!(page.attrs(p).count(), 1);
    }
}

/// The level of a node (`html` is 1).
fn level(page: &Page, node: NodeId) -> usize {
    page.ancestors(node).count() + 1
}

#[test]
fn the_tree_is_at_most_max_depth_deep() {
    let html = "<div>".repeat(3 * MAX_DEPTH) + "x" + &"</div>".repeat(3 * MAX_DEPTH);
    let page = Page::parse(&html);
    let deepest = page.node_ids().map(|n| level(&page, n)).max().unwrap();
    assert_eq!(deepest, MAX_DEPTH, "the text follows the deepest div");
    let div = page.label_id("div").unwrap();
    assert_eq!(page.with_label(div).len(), 3 * MAX_DEPTH, "no element lost");
    assert!(page
        .with_label(div)
        .iter()
        .all(|&d| level(&page, d) <= MAX_DEPTH));
    assert_eq!(page.text(), "x");
}

#[test]
fn the_structure_resumes_after_a_nesting_past_the_cap() {
    let deep = 2 * MAX_DEPTH;
    let html = format!(
        "<div id=outer>{}<b>deep</b>{}<p id=after>after</p></div><p id=last>last</p>",
        "<div>".repeat(deep),
        "</div>".repeat(deep)
    );
    let page = Page::parse(&html);
    let p = page.label_id("p").unwrap();
    let id = page.label_id("id").unwrap();
    let ps = page.with_label(p);
    assert_eq!(ps.len(), 2);
    let outer = page.with_label(page.label_id("div").unwrap())[0];
    assert_eq!(page.attr(outer, id), Some("outer"));
    assert_eq!(
        page.parent(ps[0]),
        Some(outer),
        "after the nesting: inside it"
    );
    assert_eq!(page.parent(ps[1]), Some(page.body()));
    // <b> opened at the cap: closed at once, its text follows it.
    let b = page.with_label(page.label_id("b").unwrap())[0];
    assert_eq!(level(&page, b), MAX_DEPTH);
    assert_eq!(page.text_of(page.parent(b).unwrap()), "deep");
    assert_eq!(page.text(), "deep after last");
}

#[test]
fn elements_at_the_cap_keep_their_text() {
    let html = "<div>".repeat(MAX_DEPTH)
        + "<script>var hidden;</script><textarea>t</textarea><span>a</span><span>b</span>";
    let page = Page::parse(&html);
    assert_eq!(page.text(), "t ab", "script text stays out of .txt");
    let script = page.with_label(SCRIPT)[0];
    assert_eq!(level(&page, script), MAX_DEPTH);
    assert_eq!(page.text_of(script), "var hidden;");
    let textarea = page.with_label(page.label_id("textarea").unwrap())[0];
    assert_eq!(page.text_of(textarea), "t");
    // Other elements at the cap are closed at once: their text follows them.
    let spans = page.with_label(page.label_id("span").unwrap());
    assert_eq!(spans.len(), 2);
    assert_eq!(page.text_of(spans[0]), "");
    assert_eq!(level(&page, spans[1]), MAX_DEPTH);
}

#[test]
fn tables_and_foreign_content_past_the_cap() {
    // Implied row groups and rows, formatting elements, svg: no element
    // deeper than the cap, no text lost.
    for inner in [
        "<table><tr><td>a<td>b</table>c",
        "<b><i><u>a</b>b</i>c",
        "<svg><g><path/></g><foreignObject><p>a</p></foreignObject></svg>b",
        "<ul><li>a<li>b</ul><select><option>c</select>",
    ] {
        let html = "<div>".repeat(MAX_DEPTH + 3) + &inner.repeat(3);
        let page = Page::parse(&html);
        // A select keeps its options below it.
        assert!(
            page.node_ids()
                .filter(|&n| !matches!(page.label_name(n), "pcdata" | "option" | "optgroup"))
                .all(|n| level(&page, n) <= MAX_DEPTH),
            "{inner}"
        );
        let text = page.text();
        assert!(text.contains('a') && text.contains('b'), "{inner}: {text}");
    }
}

#[test]
fn a_select_at_the_cap_keeps_its_options() {
    let html = "<form>".to_string()
        + &"<div>".repeat(MAX_DEPTH + 10)
        + "<select name=s><optgroup label=g><option value=1>eins<option>zwei</optgroup></select>";
    let page = Page::parse(&html);
    let select = page.with_label(page.label_id("select").unwrap())[0];
    let option = page.label_id("option").unwrap();
    let options = page.descendants_with_label(select, option);
    assert_eq!(options.len(), 2);
    assert_eq!(page.text_of(options[1]), "zwei");
    assert!(level(&page, options[1]) <= MAX_DEPTH + 2);
}

#[test]
fn many_distinct_element_names_keep_their_labels() {
    // Past the first chunks of the builder's name table; svg's `a` and
    // html's `a` are two names with one label.
    let html: String = (0..3000)
        .map(|i| format!("<x-element-{i}>v{i}</x-element-{i}>"))
        .collect::<String>()
        + "<a href=h>1</a><svg><a href=s>2</a></svg>";
    let page = Page::parse(&html);
    for i in [0, 31, 32, 95, 96, 2999] {
        let l = page.label_id(&format!("x-element-{i}")).unwrap();
        let nodes = page.with_label(l);
        assert_eq!(nodes.len(), 1, "{i}");
        assert_eq!(page.text_of(nodes[0]), format!("v{i}"));
    }
    assert_eq!(page.with_label(A).len(), 2);
}

#[test]
fn a_page_without_subtrees_keeps_the_rest_as_it_was() {
    let page = Page::parse(
        "<body><h1 class=t>Liste</h1><ul><li><a href=/1>eins</a> <b>1</b></li>\
         <li><a href=/2>zwei</a></li><li><a href=/3>drei</a><ul><li>x</li></ul></li>\
         <li>vier</li></ul><p id=f>Ende &amp; aus</p></body>",
    );
    let items: Vec<NodeId> = page.with_label(page.label_id("li").unwrap()).to_vec();
    // The second and the third item (and the list inside the third) go.
    let sample = page.without_subtrees(&[items[1], items[2]]);
    assert_eq!(
        shape(&sample, Page::ROOT),
        "html(head body(h1(pcdata) ul(li(a(pcdata) b(pcdata)) li(pcdata)) p(pcdata)))"
    );
    assert_eq!(sample.node_count(), page.node_count() - 9);
    assert_eq!(sample.text(), "Liste eins 1 vier Ende & aus");
    let li = sample.label_id("li").unwrap();
    let kept: Vec<String> = sample
        .with_label(li)
        .iter()
        .map(|&n| sample.text_of(n))
        .collect();
    assert_eq!(kept, ["eins 1", "vier"]);
    let a = sample.with_label(A)[0];
    assert_eq!(sample.attribute(a, "href"), Some("/1"));
    let p = sample.with_label(sample.label_id("p").unwrap())[0];
    assert_eq!(sample.attribute(p, "id"), Some("f"));
    assert_eq!(sample.parent(p), Some(sample.body()));
    assert_eq!(
        sample.subtree_end(sample.body()).index(),
        sample.node_count()
    );
    // Nothing dropped: the same tree.
    let same = page.without_subtrees(&[]);
    assert_eq!(shape(&same, Page::ROOT), shape(&page, Page::ROOT));
    assert_eq!(same.text(), page.text());
}

/// The tokenizer keeps the names it met in a small table where names of the
/// same length, first and last letter share an entry: each element and
/// attribute still gets its own name, and a repeated attribute its first
/// value.
#[test]
fn names_that_share_an_entry_of_the_name_table_stay_apart() {
    let page = Page::parse(
        "<x-ab data-ab=1 data-xb=2><x-cb data-ab=3 DATA-AB=4></x-cb></x-ab><x-ab></x-ab>",
    );
    assert_eq!(shape(&page, Page::ROOT), "html(head body(x-ab(x-cb) x-ab))");
    let ab = page.label_id("data-ab").unwrap();
    let xb = page.label_id("data-xb").unwrap();
    let cb = page.with_label(page.label_id("x-cb").unwrap())[0];
    let first_ab = page.with_label(page.label_id("x-ab").unwrap())[0];
    assert_eq!(page.attr(first_ab, ab), Some("1"));
    assert_eq!(page.attr(first_ab, xb), Some("2"));
    assert_eq!(page.attr(cb, ab), Some("3"));
    assert_eq!(page.attr(cb, xb), None);
}

#[test]
fn attributes_stored_at_once_survive_what_the_tree_builder_does() {
    // An `a` closed by the next paragraph is reopened in it: the copy has
    // the attributes of the first (a repeated `href` is dropped, the first
    // counts), and so does a cell's implied row and table body.
    let page = Page::parse(
        "<p><a href=x href=y class=c>one<p>two</a>\
         <table><td id=cell colspan=2>3</table>",
    );
    assert_eq!(
        page.links().iter().collect::<Vec<_>>(),
        vec![
            Link {
                href: "x",
                text: "one"
            },
            Link {
                href: "x",
                text: "two"
            }
        ]
    );
    let a = page.with_label(A);
    assert_eq!(a.len(), 2);
    for &a in a {
        let attrs: Vec<(&str, &str)> = page.attrs(a).collect();
        assert_eq!(attrs, [("href", "x"), ("class", "c")]);
    }
    let td = page.label_id("td").expect("a cell");
    let td = page.with_label(td)[0];
    let attrs: Vec<(&str, &str)> = page.attrs(td).collect();
    assert_eq!(attrs, [("id", "cell"), ("colspan", "2")]);
    // Where the tree builder reads attributes, they still reach it: a
    // hidden input in a table stays in it, a visible one is put before it,
    // and the attributes of the `html` tag written twice are merged.
    let page = Page::parse(
        "<html lang=de><table><tr><input type=hidden name=h><input name=v>\
         </table><html lang=en id=root>",
    );
    let inputs = page.with_label(page.label_id("input").expect("inputs"));
    let table = page.with_label(TABLE)[0];
    assert_eq!(page.attribute(inputs[0], "name"), Some("v"));
    assert!(inputs[0] < table);
    assert_eq!(page.attribute(inputs[1], "name"), Some("h"));
    assert!(inputs[1] > table);
    let html: Vec<(&str, &str)> = page.attrs(Page::ROOT).collect();
    assert_eq!(html, [("lang", "de"), ("id", "root")]);
}

//! The extraction wizard of W4F (seed §4.3): from a text the user sees on a
//! page to HEL rules that extract it.
//!
//! For every place the text occurs (the deepest nodes whose `.txt` contains
//! it), [`locate`] gives the canonical dot path from the root
//! (`html.body.table[1].tr[3].td[1].txt`, `[0]` left out, table rows
//! counted through their row groups) and more robust alternatives, each
//! through `WHERE` conditions: an arrow path to the node's table cell
//! anchored on its column header and its row's header (the first cell; the
//! seed's currency rule), on each of them alone; one anchored on the nearest
//! enclosing
//! element with an `id`, `name` or `class` attribute; one that counts the
//! node's label from the nearest such element before it (the seed's region
//! after the `Seitenanfang` anchor); and one that reads the
//! same cell in every row holding the same attribute value as the node's row
//! (how the seed's CityWorld rules find towns and hotels). Every rule given is
//! parsed and evaluated on the page first; only rules that give the found
//! text (as their value or one of their values) are returned.

use crate::hel::{Nsl, Rule};
use crate::page::{NodeId, Page, PCDATA, SCRIPT, STYLE, TABLE, TBODY, TFOOT, THEAD, TR};

/// A place the text occurs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The canonical dot path, ending in `.txt`.
    pub path: String,
    /// What the path gives on the page (contains the text looked for).
    pub value: String,
    /// Rules anchored on a header text or an attribute value, verified.
    pub alternatives: Vec<String>,
}

/// Finds every place `text` occurs on the page (white space collapsed;
/// case-sensitive, or case-insensitive when it occurs nowhere as written).
pub fn locate(page: &Page, text: &str) -> Vec<Location> {
    let needle = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if needle.is_empty() {
        return Vec::new();
    }
    let found = find(page, |t| t.contains(&needle));
    let found = if found.is_empty() {
        let lower = needle.to_lowercase();
        find(page, |t| t.to_lowercase().contains(&lower))
    } else {
        found
    };
    found
        .into_iter()
        .filter_map(|node| location_of(page, node))
        .collect()
}

/// The rules that lead to a node's text (the node widened to its element
/// while the text stays the same), each verified on the page; `None` when
/// not even the canonical path gives the text back. Template induction
/// (`crate::induce`) anchors its rules with this too.
pub(crate) fn location_of(page: &Page, node: NodeId) -> Option<Location> {
    let value = page.text_of(node);
    let node = widest_with_same_text(page, node, &value);
    let path = format!("html{}.txt", steps(page, Page::ROOT, node));
    if !gives(page, &path, &value) {
        return None;
    }
    let mut alternatives = Vec::new();
    let mut candidates = by_headers(page, node);
    candidates.extend(by_attribute(page, node));
    candidates.extend(by_row_attribute(page, node));
    candidates.extend(by_preceding_anchor(page, node));
    for alt in candidates {
        if gives(page, &alt, &value) && !alternatives.contains(&alt) {
            alternatives.push(alt);
        }
    }
    Some(Location {
        path,
        value,
        alternatives,
    })
}

/// The deepest nodes whose text satisfies `hit`, outside scripts and styles.
fn find(page: &Page, hit: impl Fn(&str) -> bool) -> Vec<NodeId> {
    let mut out = Vec::new();
    let mut skip_until = Page::ROOT;
    for node in page.node_ids() {
        if node < skip_until {
            continue;
        }
        if matches!(page.label_of(node), SCRIPT | STYLE) {
            skip_until = page.subtree_end(node);
            continue;
        }
        if !hit(&page.text_of(node)) {
            continue;
        }
        let deeper = page
            .children(node)
            .any(|c| !matches!(page.label_of(c), SCRIPT | STYLE) && hit(&page.text_of(c)));
        if !deeper {
            out.push(node);
        }
    }
    out
}

/// The text's element rather than its `pcdata` node: climbs while the
/// parent has the same text, up to a cell or list item.
pub(crate) fn widest_with_same_text(page: &Page, mut node: NodeId, value: &str) -> NodeId {
    while let Some(parent) = page.parent(node) {
        let stop = matches!(
            page.label_name(parent),
            "tr" | "table" | "thead" | "tbody" | "tfoot" | "body" | "html" | "ul" | "ol" | "dl"
        );
        if stop || page.text_of(parent) != value {
            break;
        }
        node = parent;
    }
    node
}

/// The child steps from `from` down to `node` (`.label[k]…`), rows of a
/// table's row groups counted as the table's rows.
pub(crate) fn steps(page: &Page, from: NodeId, node: NodeId) -> String {
    let mut parts = Vec::new();
    let mut cur = node;
    while cur != from {
        let Some(parent) = page.parent(cur) else {
            break;
        };
        let label = page.label_of(cur);
        let grand = page.parent(parent);
        let (owner, skip_to) = match grand {
            Some(g)
                if label == TR
                    && matches!(page.label_of(parent), THEAD | TBODY | TFOOT)
                    && page.label_of(g) == TABLE
                    && parent != from =>
            {
                (g, g)
            }
            _ => (parent, parent),
        };
        let k = page
            .child_matches(owner, label)
            .position(|c| c == cur)
            .unwrap_or(0);
        parts.push(if k == 0 {
            format!(".{}", page.label_name(cur))
        } else {
            format!(".{}[{k}]", page.label_name(cur))
        });
        cur = skip_to;
    }
    parts.reverse();
    parts.concat()
}

/// Where a node sits in a table, with the header texts that name its cell.
struct Cell {
    /// Document-order index of the table (`html->table[t]`).
    t: usize,
    /// Row index (rows of row groups counted as the table's).
    r: usize,
    /// `td` or `th`, and its index among the row's cells of that label.
    label: String,
    c: usize,
    /// The child steps from the cell down to the node.
    rest: String,
    /// The literal of the column's header (`tr[0].th[c]`), if any.
    column: Option<String>,
    /// The label and literal of the row's header (its first `th`, or first
    /// `td` when the node is in a later one), if any.
    row: Option<(&'static str, String)>,
}

fn cell_of(page: &Page, node: NodeId) -> Option<Cell> {
    let (table, row, r) = enclosing_row(page, node)?;
    let mut cell = node;
    while page.parent(cell)? != row {
        cell = page.parent(cell)?;
    }
    let label = page.label_name(cell).to_string();
    if label != "td" && label != "th" {
        return None;
    }
    let c = page
        .child_matches(row, page.label_of(cell))
        .position(|x| x == cell)?;
    let th = page.label_id("th");
    let first_row = page.child_matches(table, TR).next()?;
    let column = match th {
        Some(th) if r > 0 => page
            .child_matches(first_row, th)
            .nth(c)
            .and_then(|h| quote(&page.text_of(h))),
        _ => None,
    };
    let row_head = match th.and_then(|th| page.child_matches(row, th).next()) {
        Some(h) => Some(("th", h)),
        None => page
            .label_id("td")
            .and_then(|td| page.child_matches(row, td).next())
            .map(|h| ("td", h)),
    };
    let row_anchor = row_head
        .filter(|&(_, h)| h != cell)
        .and_then(|(l, h)| Some((l, quote(&page.text_of(h))?)));
    Some(Cell {
        t: page.with_label(TABLE).iter().position(|&x| x == table)?,
        r,
        label,
        c,
        rest: steps(page, cell, node),
        column: column.filter(|l| l.len() > 2),
        row: row_anchor.filter(|(_, l)| l.len() > 2),
    })
}

/// Rules that read the node's cell by its column header, by its row header,
/// and by both (the seed's currency rule).
fn by_headers(page: &Page, node: NodeId) -> Vec<String> {
    let Some(x) = cell_of(page, node) else {
        return Vec::new();
    };
    let (t, r, label, c, rest) = (x.t, x.r, &x.label, x.c, &x.rest);
    let column = x
        .column
        .as_ref()
        .map(|lit| format!("html->table[{t}].tr[0].th[c].txt = {lit}"));
    let row = x
        .row
        .as_ref()
        .map(|(l, lit)| format!("html->table[{t}].tr[r].{l}.txt = {lit}"));
    let mut out = Vec::new();
    if let (Some(col), Some(row)) = (&column, &row) {
        out.push(format!(
            "html->table[{t}].tr[r].{label}[c]{rest}.txt WHERE {col} AND {row}"
        ));
    }
    if let Some(col) = &column {
        out.push(format!(
            "html->table[{t}].tr[{r}].{label}[c]{rest}.txt WHERE {col}"
        ));
    }
    if let Some(row) = &row {
        out.push(format!(
            "html->table[{t}].tr[r].{label}[{c}]{rest}.txt WHERE {row}"
        ));
    }
    out
}

/// The table, row and row index of a node inside a table cell.
fn enclosing_row(page: &Page, node: NodeId) -> Option<(NodeId, NodeId, usize)> {
    let mut row = node;
    while page.label_of(row) != TR {
        row = page.parent(row)?;
    }
    let mut table = page.parent(row)?;
    if matches!(page.label_of(table), THEAD | TBODY | TFOOT) {
        table = page.parent(table)?;
    }
    if page.label_of(table) != TABLE {
        return None;
    }
    let r = page.child_matches(table, TR).position(|x| x == row)?;
    Some((table, row, r))
}

/// The rule reads the node in every row of its table that holds the same
/// attribute value as its own row (the seed's CityWorld rules: the rows with
/// a `hotel_id` checkbox, the towns in `#FF8000`); a list, in which the
/// found text is one value.
fn by_row_attribute(page: &Page, node: NodeId) -> Option<String> {
    let (table, row, _) = enclosing_row(page, node)?;
    let t = page.with_label(TABLE).iter().position(|&x| x == table)?;
    // The first element of the row (in document order) with a telling attribute.
    let (anchor, name, value) = page
        .after(row)
        .take_while(|&e| e < page.subtree_end(row))
        .find_map(|e| {
            if page.label_of(e) == PCDATA {
                return None;
            }
            ["name", "id", "class", "color"]
                .into_iter()
                .find_map(|want| {
                    page.attrs(e)
                        .find(|(n, v)| *n == want && !v.trim().is_empty())
                        .map(|(n, v)| (e, n.to_string(), v.to_string()))
                })
        })?;
    let lit = quote(&value)?;
    Some(format!(
        "html->table[{t}].tr[v:*]{}.txt WHERE html->table[{t}].tr[v]{}.getAttr({name}) = {lit}",
        steps(page, row, node),
        steps(page, row, anchor)
    ))
}

/// The rule reads the node below the nearest element with an `id`, `name`
/// or `class`, found by that attribute's value.
fn by_attribute(page: &Page, node: NodeId) -> Option<String> {
    let body = page.body();
    let mut anchor = node;
    loop {
        if anchor == body || anchor == Page::ROOT {
            return None;
        }
        if page.label_of(anchor) != PCDATA {
            let attr = ["id", "name", "class"].into_iter().find_map(|name| {
                page.attrs(anchor)
                    .find(|(n, v)| *n == name && !v.trim().is_empty())
                    .map(|(n, v)| (n.to_string(), v.to_string()))
            });
            if let Some((name, value)) = attr {
                let lit = quote(&value)?;
                let label = page.label_name(anchor);
                return Some(format!(
                    "html->{label}[v]{}.txt WHERE html->{label}[v].getAttr({name}) = {lit}",
                    steps(page, anchor, node)
                ));
            }
        }
        anchor = page.parent(anchor)?;
    }
}

/// The rule reads the node as the k-th of its label after the nearest
/// element before it (not around it) with an `id`, `name` or `class` — the
/// seed's rule for the region after the `Seitenanfang` anchor.
fn by_preceding_anchor(page: &Page, node: NodeId) -> Option<String> {
    let body = page.body();
    let ancestors: Vec<NodeId> = page.ancestors(node).collect();
    let (anchor, name, value) = page
        .before(node)
        .rev()
        .take_while(|&e| e > body)
        .filter(|e| !ancestors.contains(e) && page.label_of(*e) != PCDATA)
        .find_map(|e| {
            ["id", "name", "class"].into_iter().find_map(|want| {
                page.attrs(e)
                    .find(|(n, v)| *n == want && !v.trim().is_empty())
                    .map(|(n, v)| (e, n.to_string(), v.to_string()))
            })
        })?;
    let k = page
        .following(anchor, page.label_of(node))
        .iter()
        .position(|&x| x == node)?;
    let lit = quote(&value)?;
    let label = page.label_name(anchor);
    let target = page.label_name(node);
    let index = if k == 0 {
        String::new()
    } else {
        format!("[{k}]")
    };
    Some(format!(
        "html->{label}[v]->{target}{index}.txt WHERE html->{label}[v].getAttr({name}) = {lit}"
    ))
}

/// The deepest nodes holding `text` (white space collapsed; ignoring case
/// where it occurs nowhere as written), widened to their element.
pub(crate) fn nodes_holding(page: &Page, text: &str) -> Vec<NodeId> {
    let needle = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if needle.is_empty() {
        return Vec::new();
    }
    let mut found = find(page, |t| t.contains(&needle));
    if found.is_empty() {
        let lower = needle.to_lowercase();
        found = find(page, |t| t.to_lowercase().contains(&lower));
    }
    found
        .into_iter()
        .map(|n| widest_with_same_text(page, n, &page.text_of(n)))
        .collect()
}

/// The longest a field's label may be ("ISBN-13:", "Publisher", "Preis
/// pro Nacht").
const MAX_LABEL: usize = 40;

/// Rules that find `node`, which holds `text`, by the label the page puts
/// before it: the text just before it (`<b>Publisher:</b> <a>Zebra</a>`,
/// `<td>ISBN</td><td>978…</td>`), or the start of its own text or of the
/// element around both (`<li>ISBN-13: 978…</li>`), with the label cut
/// off by `match`. A label stays with its field when blocks above or
/// around it come and go, which an element merely near the text does not.
/// Each rule is verified on the page.
pub(crate) fn by_label(page: &Page, node: NodeId, text: &str) -> Vec<String> {
    let wanted = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    let label_like = |l: &str| {
        !l.is_empty() && l.chars().count() <= MAX_LABEL && l.chars().any(char::is_alphabetic)
    };
    // The text node just before the node's own text.
    let end_of_label = page
        .before(node)
        .rev()
        .filter(|&n| !page.ancestors(node).any(|a| a == n))
        .find(|&n| {
            page.label_of(n) == PCDATA
                && !page
                    .ancestors(n)
                    .any(|a| matches!(page.label_of(a), SCRIPT | STYLE))
                && !page.text_of(n).is_empty()
        });
    if let Some(label) = end_of_label {
        let l = page.text_of(label);
        if label_like(&l) && l != wanted {
            if let (Some(lit), Some(k)) = (
                quote(&l),
                page.following(label, page.label_of(node))
                    .iter()
                    .position(|&x| x == node),
            ) {
                out.push(format!(
                    "html->pcdata[v]->{}[{k}].txt WHERE html->pcdata[v].txt = {lit}",
                    page.label_name(node)
                ));
            }
            // The element that holds both the label and the value.
            if let Some(both) = page
                .ancestors(node)
                .find(|&a| page.subtree_end(a) > label && a < label)
            {
                out.extend(label_cut(page, both, &wanted));
            }
        }
    }
    // The label at the start of the node's own text.
    out.extend(label_cut(page, node, &wanted));
    out.retain(|r| gives_within(page, r, &wanted));
    out.dedup();
    out
}

/// The rules that read the node as the k-th element of its label on the
/// page (`html->h1[0].txt`), for it and for the elements inside it that
/// hold the same text: a heading or another element the page has few of
/// stays where blocks around it come and go. Verified on the page.
pub(crate) fn by_own_label(page: &Page, node: NodeId) -> Vec<String> {
    let text = page.text_of(node);
    let mut out = Vec::new();
    let mut cur = Some(node);
    while let Some(n) = cur {
        if page.label_of(n) != PCDATA {
            if let Some(k) = page
                .with_label(page.label_of(n))
                .iter()
                .position(|&x| x == n)
            {
                let rule = format!("html->{}[{k}].txt", page.label_name(n));
                if gives(page, &rule, &text) {
                    out.push(rule);
                }
            }
        }
        // Down into the only child that holds anything, while it is an
        // element with the same text.
        let mut holding = page
            .children(n)
            .filter(|&c| page.label_of(c) != PCDATA || !page.text_of(c).is_empty());
        cur = match (holding.next(), holding.next()) {
            (Some(c), None) if page.label_of(c) != PCDATA && page.text_of(c) == text => Some(c),
            _ => None,
        };
    }
    out
}

/// `html->LABEL[v].txt, match/^PREFIX\s*(.+)$/ WHERE …` for an element
/// whose text is a short label and then the value.
fn label_cut(page: &Page, element: NodeId, wanted: &str) -> Option<String> {
    let whole = page.text_of(element);
    let at = whole.find(wanted)?;
    let prefix = whole[..at].trim_end();
    if prefix.is_empty()
        || prefix.chars().count() > MAX_LABEL
        || !prefix.chars().any(char::is_alphabetic)
        || prefix.contains('/')
    {
        return None;
    }
    let re = regex::escape(prefix);
    if re.contains('\'') || re.contains('"') {
        return None;
    }
    let label = page.label_name(element);
    Some(format!(
        "html->{label}[v].txt, match/^{re}\\s*(.+)$/ WHERE html->{label}[v].txt =~ '^{re}'"
    ))
}

/// Whether `rule` gives, on the page, a value that holds `value`.
fn gives_within(page: &Page, rule: &str, value: &str) -> bool {
    Rule::parse(rule).is_ok_and(|r| r.eval(page).flatten().iter().any(|s| s.contains(value)))
}

/// A HEL literal for `s`.
pub(crate) fn quote(s: &str) -> Option<String> {
    if s.contains('\\') && (s.contains('\'') || s.contains('"')) {
        return None;
    }
    Some(if !s.contains('\'') {
        format!("'{s}'")
    } else if !s.contains('"') {
        format!("\"{s}\"")
    } else {
        format!("'{}'", s.replace('\'', "\\'"))
    })
}

/// Whether `rule` parses and gives `value` on the page (as its value, or as
/// one of the values of its list).
fn gives(page: &Page, rule: &str, value: &str) -> bool {
    Rule::parse(rule).is_ok_and(|r| match r.eval(page) {
        Nsl::Str(s) => s == value,
        list @ Nsl::List(_) => list.flatten().iter().any(|s| s == value),
        Nsl::Null => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "<html><body><div id=nav><a href=/>Start</a></div>
      <table><tr><td>layout</td></tr></table>
      <table id=results>
        <tr><th>Ort</th><th>Hotel</th></tr>
        <tr><td>Rostock</td><td><b>Hotel Neptun</b> Seestra\u{df}e 19</td></tr>
        <tr><td>Wismar</td><td><b>Alter Hafen</b></td></tr>
      </table></body></html>";

    #[test]
    fn canonical_path_and_verified_alternatives() {
        let page = Page::parse(PAGE);
        let found = locate(&page, "Hotel  Neptun");
        assert_eq!(found.len(), 1);
        let loc = &found[0];
        assert_eq!(loc.path, "html.body.table[1].tr[1].td[1].b.txt");
        assert_eq!(loc.value, "Hotel Neptun");
        assert_eq!(
            loc.alternatives,
            [
                "html->table[1].tr[r].td[c].b.txt WHERE html->table[1].tr[0].th[c].txt = 'Hotel' \
                 AND html->table[1].tr[r].td.txt = 'Rostock'",
                "html->table[1].tr[1].td[c].b.txt WHERE html->table[1].tr[0].th[c].txt = 'Hotel'",
                "html->table[1].tr[r].td[1].b.txt WHERE html->table[1].tr[r].td.txt = 'Rostock'",
                "html->table[v].tr[1].td[1].b.txt WHERE html->table[v].getAttr(id) = 'results'",
                "html->div[v]->b.txt WHERE html->div[v].getAttr(id) = 'nav'",
            ]
        );
    }

    #[test]
    fn anchored_on_the_nearest_named_element_before_the_text() {
        let page = Page::parse(
            "<body><a name=Seitenanfang></a><font>Region:</font> <b>R\u{fc}gen</b></body>",
        );
        let found = locate(&page, "Rügen");
        assert_eq!(found[0].path, "html.body.b.txt");
        assert_eq!(
            found[0].alternatives,
            ["html->a[v]->b.txt WHERE html->a[v].getAttr(name) = 'Seitenanfang'"]
        );
    }

    #[test]
    fn every_occurrence_and_case_insensitive_fallback() {
        let page = Page::parse(PAGE);
        let found = locate(&page, "hafen");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].value, "Alter Hafen");
        let found = locate(&page, "o");
        assert!(found.len() >= 3, "{found:?}");
        assert!(locate(&page, "nowhere").is_empty());
        assert!(locate(&page, "  ").is_empty());
    }

    #[test]
    fn quoting_literals() {
        assert_eq!(quote("a b").as_deref(), Some("'a b'"));
        assert_eq!(quote("it's").as_deref(), Some("\"it's\""));
        assert_eq!(quote("it's \"x\"").as_deref(), Some("'it\\'s \"x\"'"));
    }
}

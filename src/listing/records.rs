//! The data regions of one page and their records, found by repetition
//! (MDR, DEPTA): the children of one element that look alike.
//!
//! - **Shape.** A child's shape is the multiset of its tag paths (the
//!   labels from the child down, text nodes included) to
//!   [`SHAPE_DEPTH`] levels; two children look alike when the weighted
//!   Jaccard similarity of their shapes (the counts' minima over their
//!   maxima) is at least [`SIMILAR`], or when they share their label and a
//!   non-empty `class` (its first class that does not stripe rows: `odd`,
//!   `even`, `alt`).
//! - **Records.** The children of one element fall into clusters of alike
//!   children of one label; clusters of table rows with the same cells
//!   (`th` and `td` in one order) are one, unless they alternate. A
//!   cluster of at least two children with text is a candidate region. Two clusters of the same size whose members
//!   alternate (a title row, then its detail row; `dt` and `dd`) make one
//!   record of two siblings each. A smaller cluster whose every member is
//!   followed by a record (a town row above its hotels) holds *header
//!   rows*: each record takes the header above it as a field.
//! - **Choice.** A region is worth its text (the characters of its
//!   records), times its regularity (the mean similarity of each record's
//!   shape to the next one's) to the power [`REGULARITY_POWER`]: an
//!   article's paragraphs of one class are worth less than a list. A region whose records hold lists that together carry
//!   [`INNER_SHARE`] of its text is a frame around them: the lists are the
//!   regions (a section per category, each with its list) — unless they
//!   are lists of short records, each shorter than the frame's own list (a
//!   few tags in each of many cards): those are fields, and so are lists
//!   of fewer than [`MIN_LIST`] records (a price and its old price in
//!   each card). Then regions are taken by their worth, largest first,
//!   none inside another. Beside the main one, a data region is kept when
//!   it is a list of its own: at least [`MIN_SHARE`] of the main one's
//!   text, [`MIN_LIST`] records or more, of [`MIN_WORDS`] words each on
//!   average (not a row of tags), their shapes alike. A table laid out in
//!   a cell of another is searched like any other element. A table's rows
//!   carry its header when a frame around them is judged (sort buttons
//!   above the columns are the list's text); small tables of the same
//!   cells at one tag path, each in its own section of one class or in
//!   one of sibling sections of no class (a table's `tbody` groups), are
//!   judged together against the main one's text.
//! - **Navigation.** A region of short link-only records (every record one
//!   link of at most [`MENU_WORDS`] words, a menu), or inside `nav`,
//!   `header` or `footer`, is navigation, not data. A record's words are
//!   counted text by text: a card that is one link holding a title and,
//!   in a block of its own, a count ("Top ventures" above "25
//!   Strategies") is no menu item, though no space parts its texts.
//! - **Columns** (a partial alignment of the records' trees): each text of
//!   a record is keyed by its path from the record (`.td[1].b`,
//!   `.div.pcdata[1]`); the paths of all records are merged into one order,
//!   each path inserted after the one before it in its record. A column
//!   whose text is the same in every record is the template's (a label,
//!   "Price:"): it names the column after it and is left out, unless a
//!   table header names it (a country column that says "USA" on every row
//!   of a page is data). A column is
//!   named after its table header, else such a label, else the nearest
//!   `itemprop`, else the nearest `class`, else `field_N`.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use crate::page::{
    LabelId, NodeId, Page, A, PCDATA, SCRIPT, STYLE, TABLE, TBODY, TFOOT, THEAD, TR,
};

/// The levels of a child's shape.
pub const SHAPE_DEPTH: usize = 5;
/// The least similarity of two alike children.
pub const SIMILAR: f64 = 0.5;
/// The share of a region's text its inner lists must carry to replace it.
pub const INNER_SHARE: f64 = 0.5;
/// The least share of the largest data region's text a data region holds.
pub const MIN_SHARE: f64 = 0.2;
/// The most characters of a short field on average.
pub const SHORT_FIELD: usize = 40;
/// The most characters of a record on average (more: a page's sections).
pub const MAX_RECORD: usize = 2000;
/// A region of `n` records is worth its text times `n / (n + FEW)`.
pub const FEW: usize = 3;
/// The fewest records of a list beside the main one, and of a list that
/// makes a region around it a frame.
pub const MIN_LIST: usize = 3;
/// The fewest distinct words of a record beside the main list on average
/// (fewer: a row of tags or of buttons).
pub const MIN_WORDS: f64 = 3.0;
/// The most words of a menu's link.
pub const MENU_WORDS: usize = 5;
/// A region's worth is multiplied by its regularity (how alike its
/// records are, 0 to 1) to this power.
pub const REGULARITY_POWER: i32 = 3;
/// The records of a region whose shapes are compared for its regularity.
pub const REGULARITY_RECORDS: usize = 12;
/// Nodes of a child read for its shape at most.
const SHAPE_NODES: usize = 400;

/// How many wrappers deep a record's name is read for a facet's.
const WRAPPERS: usize = 2;

/// What a region is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegionKind {
    /// The records a page is about.
    Data,
    /// A menu, a footer's links.
    Navigation,
}

/// One column of a region: where its text lies in a record, and its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub name: String,
    /// The record's sibling the text lies in (0 for one-element records).
    pub part: usize,
    /// The child steps from that sibling down to the text's node
    /// (`.td[1].b`, `.div.pcdata[1]`).
    pub path: String,
}

/// A data region: records that are children of one element.
#[derive(Debug, Clone)]
pub struct Region {
    /// The element whose children the records are.
    pub parent: NodeId,
    /// Each record: one or more consecutive siblings.
    pub records: Vec<Vec<NodeId>>,
    /// The header row above each record, if the region has header rows.
    pub headers: Vec<Option<NodeId>>,
    pub kind: RegionKind,
    /// The region's worth: the characters of its records' text.
    pub chars: usize,
    pub columns: Vec<Column>,
    /// Per record, per column: its text.
    pub values: Vec<Vec<Option<String>>>,
}

impl Region {
    /// A record's text: its texts joined by a space.
    pub fn record_text(&self, page: &Page, record: usize) -> String {
        text_of(page, &self.records[record])
    }
}

/// Characters of text per node (script and style left out), and those of
/// them inside links.
struct TextSizes {
    chars: Vec<u32>,
    link_chars: Vec<u32>,
}

impl TextSizes {
    fn of(page: &Page) -> TextSizes {
        let n = page.node_count();
        let mut chars = vec![0u32; n];
        let mut link_chars = vec![0u32; n];
        for node in page.node_ids().rev() {
            let i = node.index_u32() as usize;
            let label = page.label_of(node);
            if matches!(label, SCRIPT | STYLE) {
                chars[i] = 0;
                link_chars[i] = 0;
            } else if let Some(t) = page.pcdata(node) {
                chars[i] = t.chars().filter(|c| !c.is_whitespace()).count() as u32;
            }
            if label == A {
                link_chars[i] = chars[i];
            }
            if let Some(p) = page.parent(node) {
                let p = p.index_u32() as usize;
                chars[p] += chars[i];
                link_chars[p] += link_chars[i];
            }
        }
        TextSizes { chars, link_chars }
    }

    fn chars(&self, node: NodeId) -> usize {
        self.chars[node.index_u32() as usize] as usize
    }

    fn link_chars(&self, node: NodeId) -> usize {
        self.link_chars[node.index_u32() as usize] as usize
    }
}

/// A child's shape: (tag path hash, count), sorted by hash.
type Shape = Vec<(u64, u32)>;

fn shape(page: &Page, node: NodeId) -> Shape {
    let mut counts: HashMap<u64, u32> = HashMap::new();
    let mut stack: Vec<(NodeId, usize, u64)> = vec![(node, 0, 0)];
    let mut seen = 0;
    while let Some((n, depth, parent_hash)) = stack.pop() {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        parent_hash.hash(&mut h);
        page.label_name(n).hash(&mut h);
        let hash = h.finish();
        *counts.entry(hash).or_default() += 1;
        seen += 1;
        if depth + 1 >= SHAPE_DEPTH || seen >= SHAPE_NODES {
            continue;
        }
        for c in page.children(n) {
            if !matches!(page.label_of(c), SCRIPT | STYLE) {
                stack.push((c, depth + 1, hash));
            }
        }
    }
    let mut out: Shape = counts.into_iter().collect();
    out.sort_unstable();
    out
}

/// The shapes of a page's children, each read once: by the clustering,
/// then again by a region's regularity and by the side lists' test.
struct Shapes(Vec<Option<Shape>>);

impl Shapes {
    fn new(page: &Page) -> Shapes {
        Shapes(vec![None; page.node_count()])
    }

    /// Reads a node's shape if it has not been read.
    fn read(&mut self, page: &Page, node: NodeId) {
        let slot = &mut self.0[node.index_u32() as usize];
        if slot.is_none() {
            *slot = Some(shape(page, node));
        }
    }

    /// A node's shape, read before.
    fn get(&self, node: NodeId) -> &Shape {
        self.0[node.index_u32() as usize]
            .as_ref()
            .expect("a shape is read before it is asked for")
    }
}

/// The weighted Jaccard similarity of two shapes.
fn similarity(a: &Shape, b: &Shape) -> f64 {
    let (mut i, mut j) = (0, 0);
    let (mut min, mut max) = (0u64, 0u64);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x.0 == y.0 => {
                min += u64::from(x.1.min(y.1));
                max += u64::from(x.1.max(y.1));
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x.0 < y.0 => {
                max += u64::from(x.1);
                i += 1;
            }
            (Some(x), None) => {
                max += u64::from(x.1);
                i += 1;
            }
            (_, Some(y)) => {
                max += u64::from(y.1);
                j += 1;
            }
            (None, None) => break,
        }
    }
    if max == 0 {
        0.0
    } else {
        min as f64 / max as f64
    }
}

/// Elements whose children are never records.
fn holds_no_records(name: &str) -> bool {
    matches!(
        name,
        "head"
            | "select"
            | "datalist"
            | "optgroup"
            | "script"
            | "style"
            | "svg"
            | "math"
            | "picture"
            | "video"
            | "audio"
            | "noscript"
            | "template"
    )
}

/// Children that are never records.
fn is_no_record(name: &str) -> bool {
    matches!(
        name,
        "br" | "hr"
            | "script"
            | "style"
            | "input"
            | "img"
            | "meta"
            | "link"
            | "option"
            | "wbr"
            | "source"
            | "noscript"
            | "template"
            | "svg"
    )
}

/// A candidate region before the choice.
struct Candidate {
    parent: NodeId,
    records: Vec<Vec<NodeId>>,
    headers: Vec<Option<NodeId>>,
    chars: usize,
}

/// The clusters of alike element children of `parent`, in document order
/// of their first members.
fn clusters(
    page: &Page,
    parent: NodeId,
    sizes: &TextSizes,
    shapes: &mut Shapes,
) -> Vec<Vec<NodeId>> {
    let class = page.label_id("class");
    let mut out: Vec<(LabelId, Option<String>, Vec<NodeId>)> = Vec::new();
    for c in page.children(parent) {
        let label = page.label_of(c);
        if label == PCDATA || is_no_record(page.label_name(c)) {
            continue;
        }
        let own_class = class
            .and_then(|k| page.attr(c, k))
            .and_then(|s| s.split_whitespace().find(|t| !striped(t)))
            .map(str::to_string);
        shapes.read(page, c);
        let s = shapes.get(c);
        let found = out.iter_mut().take(40).find(|(l, k, members)| {
            // Striped rows (`odd`, `even`) differ in class, not in shape.
            *l == label
                && *k == own_class
                && (own_class.is_some() || similarity(shapes.get(members[0]), s) >= SIMILAR)
        });
        match found {
            Some((_, _, members)) => members.push(c),
            None => out.push((label, own_class, vec![c])),
        }
    }
    out.into_iter()
        .map(|(_, _, mut m)| {
            m.retain(|&n| sizes.chars(n) > 0);
            m
        })
        .filter(|m| m.len() >= 2)
        .collect()
}

/// Whether two table rows have the same cells: two or more, `th` and `td`
/// in the same order.
fn same_cells(page: &Page, a: NodeId, b: NodeId) -> bool {
    let cells = |row: NodeId| -> Vec<LabelId> {
        page.children(row)
            .filter(|&c| page.label_of(c) != PCDATA)
            .map(|c| page.label_of(c))
            .collect()
    };
    let x = cells(a);
    x.len() >= 2 && x == cells(b)
}

/// A class that stripes rows (`odd`, `even`, `alt-row`): not what makes
/// a record of a kind (`<tr class="odd prio3">` and `<tr class="even
/// prio3">` are rows of one list).
fn striped(class: &str) -> bool {
    class.split(['-', '_']).any(|part| {
        ["odd", "even", "alt", "alternate", "altrow"].contains(&part.to_ascii_lowercase().as_str())
    })
}

/// Whether `a` and `b` alternate as siblings: a₁ b₁ a₂ b₂ …
fn alternate(page: &Page, a: &[NodeId], b: &[NodeId]) -> bool {
    if a.len() != b.len() || a.is_empty() {
        return false;
    }
    let next_element = |n: NodeId| {
        let end = page.subtree_end(n);
        page.parent(n).and_then(|p| {
            page.children(p)
                .find(|&c| c >= end && page.label_of(c) != PCDATA)
        })
    };
    a.iter().zip(b).all(|(&x, &y)| next_element(x) == Some(y))
}

fn candidates_of(
    page: &Page,
    parent: NodeId,
    sizes: &TextSizes,
    shapes: &mut Shapes,
) -> Vec<Candidate> {
    let mut groups = clusters(page, parent, sizes, shapes);
    if groups.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    // Records of two alternating siblings.
    let mut paired = vec![false; groups.len()];
    for i in 0..groups.len() {
        for j in 0..groups.len() {
            if i != j && !paired[i] && !paired[j] && alternate(page, &groups[i], &groups[j]) {
                paired[i] = true;
                paired[j] = true;
                let records: Vec<Vec<NodeId>> = groups[i]
                    .iter()
                    .zip(&groups[j])
                    .map(|(&x, &y)| vec![x, y])
                    .collect();
                let chars = records.iter().flatten().map(|&n| sizes.chars(n)).sum();
                out.push(Candidate {
                    parent,
                    headers: vec![None; records.len()],
                    records,
                    chars,
                });
            }
        }
    }
    // Rows of one table with the same cells that do not alternate are one
    // list, whatever their class (`full_table` and `partial_table` rows)
    // or the markup inside their cells.
    if !paired.iter().any(|p| *p) {
        let mut merged: Vec<Vec<NodeId>> = Vec::new();
        for g in groups {
            let like = merged.iter_mut().find(|m| {
                page.label_of(m[0]) == TR
                    && page.label_of(g[0]) == TR
                    && same_cells(page, m[0], g[0])
            });
            match like {
                Some(m) => {
                    m.extend(g);
                    m.sort_unstable();
                }
                None => merged.push(g),
            }
        }
        groups = merged;
    }
    let chars_of = |g: &Vec<NodeId>| g.iter().map(|&n| sizes.chars(n)).sum::<usize>();
    groups.sort_by_key(|g| std::cmp::Reverse(chars_of(g)));
    let main = if paired.iter().all(|p| !p) {
        Some(0)
    } else {
        None
    };
    for (g, members) in groups.iter().enumerate() {
        if paired.iter().any(|p| *p) {
            break;
        }
        let mut headers = vec![None; members.len()];
        if main == Some(g) {
            // Header rows: a smaller cluster whose every member is followed
            // by a record of this one.
            for other in groups.iter().skip(1) {
                if other.len() >= members.len() {
                    continue;
                }
                let followed = other.iter().all(|&h| followed_by(page, parent, h, members));
                if followed {
                    for (r, &m) in members.iter().enumerate() {
                        headers[r] = other.iter().copied().rfind(|&h| h < m);
                    }
                    break;
                }
            }
            // A group's row may stand alone on a page (one priority's
            // issues fill it): a row of one `th` cell followed by a record.
            if headers.iter().all(Option::is_none) {
                let lone: Vec<NodeId> = page
                    .children(parent)
                    .filter(|&c| group_row(page, c) && followed_by(page, parent, c, members))
                    .collect();
                for (r, &m) in members.iter().enumerate() {
                    headers[r] = lone.iter().copied().rfind(|&h| h < m);
                }
            }
        }
        out.push(Candidate {
            parent,
            records: members.iter().map(|&m| vec![m]).collect(),
            headers,
            chars: chars_of(members),
        });
    }
    out
}

/// How much a candidate's records follow each other: the share of the
/// siblings with text from its first record to its last that are its
/// records (or their header rows), squared. A list's records follow each
/// other; an article's paragraphs stand between its headings, lists and
/// figures.
fn together(page: &Page, c: &Candidate, sizes: &TextSizes) -> f64 {
    let (Some(first), Some(last)) = (c.records.first(), c.records.last()) else {
        return 1.0;
    };
    if page.parent(first[0]) != Some(c.parent) {
        return 1.0;
    }
    let end = page.subtree_end(last[last.len() - 1]);
    let members: std::collections::HashSet<NodeId> = c
        .records
        .iter()
        .flatten()
        .chain(c.headers.iter().flatten())
        .copied()
        .collect();
    let (mut own, mut all) = (0usize, 0usize);
    for s in page.children(c.parent) {
        if s < first[0] || s >= end || page.label_of(s) == PCDATA || sizes.chars(s) == 0 {
            continue;
        }
        all += 1;
        own += usize::from(members.contains(&s));
    }
    (own as f64 / all.max(1) as f64).powi(2)
}

/// A table row of one heading cell with text (`<tr><th colspan=4>bug</th></tr>`).
fn group_row(page: &Page, node: NodeId) -> bool {
    if page.label_of(node) != TR {
        return false;
    }
    let mut cells = page.children(node).filter(|&c| page.label_of(c) != PCDATA);
    let (Some(cell), None) = (cells.next(), cells.next()) else {
        return false;
    };
    page.label_name(cell) == "th"
        && page
            .after(cell)
            .take_while(|&n| n < page.subtree_end(cell))
            .any(|n| page.pcdata(n).is_some_and(|t| !t.trim().is_empty()))
}

/// Whether the next element sibling of `node` is one of `members`.
fn followed_by(page: &Page, parent: NodeId, node: NodeId, members: &[NodeId]) -> bool {
    let end = page.subtree_end(node);
    page.children(parent)
        .find(|&c| c >= end && page.label_of(c) != PCDATA)
        .is_some_and(|c| members.contains(&c))
}

/// The regions of a page, the largest first.
pub fn regions(page: &Page) -> Vec<Region> {
    let sizes = TextSizes::of(page);
    let mut shapes = Shapes::new(page);
    let mut candidates = gathered(page, &sizes, &mut shapes);
    // Few records count less than many of the same text, and records
    // unlike each other (an article's paragraphs, a page's sections) less
    // than records of one shape.
    let mut score = |c: &Candidate| {
        let n = c.records.len();
        let worth = (c.chars * n / (n + FEW)) as f64;
        let worth = worth * together(page, c, &sizes);
        (worth * regularity(page, &mut shapes, &c.records).powi(REGULARITY_POWER)) as usize
    };
    candidates.sort_by_cached_key(|c| std::cmp::Reverse(score(c)));
    // A frame around lists: dropped for them.
    let inside = |c: &Candidate, n: NodeId| {
        c.records
            .iter()
            .flatten()
            .any(|&r| n > r && n < page.subtree_end(r))
    };
    let mut dropped = vec![false; candidates.len()];
    for (i, c) in candidates.iter().enumerate() {
        let mut taken: Vec<NodeId> = Vec::new();
        let (mut inner, mut inner_records) = (0, 0);
        for d in &candidates[i + 1..] {
            // Two alike blocks in each record (a price and its old price)
            // are fields of the record, not a list it frames.
            if d.records.len() < MIN_LIST
                || !inside(c, d.parent)
                || c.records.iter().any(|r| r.contains(&d.parent))
            {
                continue;
            }
            let nested = taken
                .iter()
                .any(|&t| d.parent >= t && d.parent < page.subtree_end(t))
                || taken
                    .iter()
                    .any(|&t| t > d.parent && t < page.subtree_end(d.parent));
            if !nested {
                taken.push(d.parent);
                inner += list_chars(page, d, &sizes);
                inner_records += d.records.len();
            }
        }
        // Lists of short records, each shorter than the frame's own list
        // (a card's few tags in each of many cards), are fields of its
        // records, not lists of their own.
        let fields =
            inner_records < taken.len() * c.records.len() && inner < SHORT_FIELD * inner_records;
        if !fields && inner as f64 >= INNER_SHARE * c.chars as f64 {
            dropped[i] = true;
        }
    }
    // The records of frames dropped for their inner lists (cards each
    // holding a list of their own).
    let mut framed: std::collections::HashSet<NodeId> = std::collections::HashSet::new();
    let mut chosen: Vec<Candidate> = Vec::new();
    for (c, dropped) in candidates.into_iter().zip(dropped) {
        if dropped {
            framed.extend(c.records.iter().map(|r| r[0]));
            continue;
        }
        let overlaps = chosen.iter().any(|o| {
            let (a, b) = (o.parent, c.parent);
            (b >= a && b < page.subtree_end(a)) || (a >= b && a < page.subtree_end(b))
        });
        if !overlaps {
            chosen.push(c);
        }
    }
    let mut regions: Vec<Region> = chosen
        .into_iter()
        .map(|c| {
            let kind = kind_of(page, &c, &sizes);
            let (columns, values) = columns(page, &c.records);
            Region {
                parent: c.parent,
                records: c.records,
                headers: c.headers,
                kind,
                chars: c.chars,
                columns,
                values,
            }
        })
        // A form's controls, a search's facets and a questionnaire's
        // steps are no data.
        .filter(|r| {
            r.kind != RegionKind::Data
                || !(form_controls(page, &r.records, &sizes)
                    || facets(page, &r.records)
                    || form_steps(page, r.parent, &r.records))
        })
        .collect();
    links_beside_menus(page, &mut regions, &sizes, &mut shapes);
    let fields = fields_of_records(page, &regions, &mut shapes);
    let mut field = fields.into_iter();
    regions.retain(|_| !field.next().unwrap_or(false));
    // A data region much smaller than the largest is a side list; beside
    // the main list, a data region is a list of at least three records
    // of a few words each, alike in shape.
    let top = regions
        .iter()
        .find(|r| r.kind == RegionKind::Data)
        .map_or(0, |r| r.chars);
    // Small lists of one kind, one or two in each of a page's sections,
    // are judged together.
    let group_chars: Vec<usize> = like_lists(page, &regions, &framed, &mut shapes)
        .iter()
        .map(|g| g.iter().map(|&o| regions[o].chars).sum())
        .collect();
    let mut first = true;
    regions
        .into_iter()
        .zip(group_chars)
        .filter(|(r, group)| {
            if r.kind != RegionKind::Data {
                return true;
            }
            let main = std::mem::replace(&mut first, false);
            main || (*group as f64 >= MIN_SHARE * top as f64 && a_list(page, r, &mut shapes))
        })
        .map(|(r, _)| r)
        .collect()
}

/// The candidate regions of a page: the clusters of alike children of
/// every element of its body, records of a page's sections left out.
fn gathered(page: &Page, sizes: &TextSizes, shapes: &mut Shapes) -> Vec<Candidate> {
    let body = page.body();
    let mut candidates: Vec<Candidate> = Vec::new();
    let end = page.subtree_end(body);
    let mut node = body;
    while node < end {
        let name = page.label_name(node);
        if page.label_of(node) == PCDATA {
            node = node.next();
            continue;
        }
        if holds_no_records(name) {
            node = page.subtree_end(node);
            continue;
        }
        // A row's cells are no records, but a table laid out in a cell may
        // hold them (a page laid out in nested tables).
        if page.label_of(node) != TR {
            candidates.extend(candidates_of(page, node, sizes, shapes));
        }
        node = node.next();
    }
    // Records of a page's sections, not of a list.
    candidates.retain(|c| c.chars <= MAX_RECORD * c.records.len());
    candidates
}

/// The candidate regions of a page before the choice, each its parent
/// and its records: what [`regions`] chooses among (the bench's bound on
/// any choice among them).
pub fn candidates(page: &Page) -> Vec<(NodeId, Vec<Vec<NodeId>>)> {
    let sizes = TextSizes::of(page);
    let mut shapes = Shapes::new(page);
    gathered(page, &sizes, &mut shapes)
        .into_iter()
        .map(|c| (c.parent, c.records))
        .collect()
}

/// Per region, the data regions it is judged with (itself included): for
/// a table's rows, the rows of the other tables with the same cells at
/// the same tag path, each in its own copy of a section of one class (a
/// small table in each of a page's sections), or each in one of sibling
/// sections of one label and no class (a table's `tbody` groups, one per
/// topic). Another list is judged
/// with the lists of records of its shape at its tag path, each alone in
/// one of the sibling sections of one class it lies in (at most
/// [`SHAPE_DEPTH`] levels below), none in a card of a frame given up for
/// its lists. A table in a cell of another (a record's own table), in a
/// form (a search's options), a menu or a `nav` is judged alone.
fn like_lists(
    page: &Page,
    regions: &[Region],
    framed: &std::collections::HashSet<NodeId>,
    shapes: &mut Shapes,
) -> Vec<Vec<usize>> {
    let class = page.label_id("class");
    let chains = chains_of(page, regions);
    let grouped: Vec<bool> = regions
        .iter()
        .zip(&chains)
        .map(|(r, chain)| {
            r.kind == RegionKind::Data
                && !chain
                    .iter()
                    .any(|&a| matches!(page.label_name(a), "form" | "menu" | "td" | "nav"))
        })
        .collect();
    for r in regions {
        shapes.read(page, r.records[0][0]);
    }
    // Two sections of one kind: one label, one class that is not empty.
    let like = |a: NodeId, b: NodeId| {
        let class_of = |n: NodeId| {
            class
                .and_then(|k| page.attr(n, k))
                .filter(|c| !c.trim().is_empty())
        };
        page.label_of(a) == page.label_of(b) && class_of(a).is_some_and(|c| class_of(b) == Some(c))
    };
    // Two sibling sections of one label and no class.
    let bare_siblings = |a: NodeId, b: NodeId| {
        let bare = |n: NodeId| {
            class
                .and_then(|k| page.attr(n, k))
                .is_none_or(|c| c.trim().is_empty())
        };
        page.label_of(a) == page.label_of(b)
            && page.parent(a) == page.parent(b)
            && bare(a)
            && bare(b)
    };
    // A list alone in its section at depth `k` among the data regions of
    // its tag path (not one of a card's several lists).
    let alone = |i: usize, k: usize| {
        !(0..regions.len()).any(|l| {
            l != i
                && regions[l].kind == RegionKind::Data
                && chains[l].len() == chains[i].len()
                && chains[l][k] == chains[i][k]
        })
    };
    (0..regions.len())
        .map(|i| {
            (0..regions.len())
                .filter(|&j| {
                    if i == j {
                        return true;
                    }
                    let (a, b) = (&chains[i], &chains[j]);
                    let (x, y) = (regions[i].records[0][0], regions[j].records[0][0]);
                    let rows = page.label_of(x) == TR;
                    // Rows of the same cells; other lists of records of one
                    // shape, each in one of a parent's sections of one class.
                    let alike = if rows {
                        same_cells(page, x, y)
                    } else {
                        page.label_of(x) == page.label_of(y)
                            && similarity(shapes.get(x), shapes.get(y)) >= SIMILAR
                    };
                    if !grouped[i]
                        || regions[j].kind != RegionKind::Data
                        || !alike
                        || a.len() != b.len()
                        || a.iter()
                            .zip(b)
                            .any(|(&x, &y)| page.label_of(x) != page.label_of(y))
                    {
                        return false;
                    }
                    a.iter().zip(b).position(|(x, y)| x != y).is_some_and(|k| {
                        (like(a[k], b[k]) || (rows && bare_siblings(a[k], b[k])))
                            && (rows
                                || (page.parent(a[k]) == page.parent(b[k])
                                    && !a[..=k].iter().chain(&b[..=k]).any(|n| framed.contains(n))
                                    && a.len() - 1 - k <= SHAPE_DEPTH
                                    && alone(i, k)
                                    && alone(j, k)))
                    })
                })
                .collect()
        })
        .collect()
}

/// The text of a list inside a frame: a table's rows carry their table's
/// header (the sort buttons above its columns are the list's, not the
/// frame's).
fn list_chars(page: &Page, c: &Candidate, sizes: &TextSizes) -> usize {
    if page.label_of(c.records[0][0]) != TR {
        return c.chars;
    }
    table_of_rows(page, c.parent).map_or(c.chars, |t| sizes.chars(t).max(c.chars))
}

/// The table whose rows are the children of `parent` (the table or its
/// `tbody`).
fn table_of_rows(page: &Page, parent: NodeId) -> Option<NodeId> {
    let table = if matches!(page.label_of(parent), TBODY | THEAD | TFOOT) {
        page.parent(parent)?
    } else {
        parent
    };
    (page.label_of(table) == TABLE).then_some(table)
}

/// How alike a region's records are: the mean similarity of each record's
/// shape to the next one's, over its first [`REGULARITY_RECORDS`] records.
fn regularity(page: &Page, shapes: &mut Shapes, records: &[Vec<NodeId>]) -> f64 {
    let records = &records[..records.len().min(REGULARITY_RECORDS)];
    for r in records {
        shapes.read(page, r[0]);
    }
    let shapes: Vec<&Shape> = records.iter().map(|r| shapes.get(r[0])).collect();
    if shapes.len() < 2 {
        return 1.0;
    }
    let sum: f64 = shapes.windows(2).map(|w| similarity(w[0], w[1])).sum();
    sum / (shapes.len() - 1) as f64
}

/// Whether a region's records make a list of their own: at least
/// [`MIN_LIST`] of them, of [`MIN_WORDS`] words on average, their shapes
/// on average [`SIMILAR`] to the first one's.
fn a_list(page: &Page, region: &Region, shapes: &mut Shapes) -> bool {
    let n = region.records.len();
    if n < MIN_LIST {
        return false;
    }
    let words: usize = (0..n)
        .map(|r| {
            let text = region.record_text(page, r).to_lowercase();
            let words: std::collections::HashSet<&str> = crate::words::tokens(&text).collect();
            words.len()
        })
        .sum();
    if (words as f64) < MIN_WORDS * n as f64 {
        return false;
    }
    for r in &region.records {
        shapes.read(page, r[0]);
    }
    let first = shapes.get(region.records[0][0]);
    let alike: f64 = region
        .records
        .iter()
        .map(|r| similarity(first, shapes.get(r[0])))
        .sum();
    alike >= SIMILAR * n as f64
}

/// A list of links, each record one link and nothing else, that lies
/// beside menus of its shape (one of a link directory's columns or tabs:
/// "Morning workout gym London", "Indoor cycling gym London" in one
/// column, shorter names in the others) is a menu too: a region at the
/// same tag path, of [`MIN_LIST`] records or more alike in shape, in a
/// sibling section (the paths part below one element), is navigation.
fn links_beside_menus(page: &Page, regions: &mut [Region], sizes: &TextSizes, shapes: &mut Shapes) {
    let links_only = |r: &Region| {
        r.records.iter().all(|rec| {
            let anchors: usize = rec
                .iter()
                .map(|&n| {
                    page.descendants_with_label(n, A).len() + usize::from(page.label_of(n) == A)
                })
                .sum();
            let chars: usize = rec.iter().map(|&n| sizes.chars(n)).sum();
            let links: usize = rec.iter().map(|&n| sizes.link_chars(n)).sum();
            anchors == 1 && links == chars
        })
    };
    let chains = chains_of(page, regions);
    for r in regions.iter() {
        shapes.read(page, r.records[0][0]);
    }
    let menus: Vec<usize> = (0..regions.len())
        .filter(|&j| {
            regions[j].kind == RegionKind::Navigation && regions[j].records.len() >= MIN_LIST
        })
        .collect();
    let turned: Vec<usize> = (0..regions.len())
        .filter(|&i| regions[i].kind == RegionKind::Data && links_only(&regions[i]))
        .filter(|&i| {
            menus
                .iter()
                .any(|&j| parting(page, shapes, regions, &chains, i, j).is_some())
        })
        .collect();
    for i in turned {
        regions[i].kind = RegionKind::Navigation;
    }
}

/// Per region, its parent's path from the root: the nodes down to it.
fn chains_of(page: &Page, regions: &[Region]) -> Vec<Vec<NodeId>> {
    regions
        .iter()
        .map(|r| {
            let mut c: Vec<NodeId> = std::iter::once(r.parent)
                .chain(page.ancestors(r.parent))
                .collect();
            c.reverse();
            c
        })
        .collect()
}

/// Where the paths of regions `i` and `j` part below one element, when
/// the two lie at the same tag path, their records of one label and alike
/// in shape, each in another of that element's children (sibling
/// sections, or sibling records of a larger list).
fn parting(
    page: &Page,
    shapes: &mut Shapes,
    regions: &[Region],
    chains: &[Vec<NodeId>],
    i: usize,
    j: usize,
) -> Option<usize> {
    let (a, b) = (&chains[i], &chains[j]);
    let (x, y) = (regions[i].records[0][0], regions[j].records[0][0]);
    let alike = a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(&m, &n)| page.label_of(m) == page.label_of(n))
        && page.label_of(x) == page.label_of(y)
        && similarity(shapes.get(x), shapes.get(y)) >= SIMILAR;
    if !alike {
        return None;
    }
    a.iter()
        .zip(b)
        .position(|(m, n)| m != n)
        .filter(|&k| page.parent(a[k]) == page.parent(b[k]))
}

/// Per region, whether it is a field of the records of a larger list: a
/// data region alike in shape to others at its tag path, each in another
/// of [`MIN_LIST`] sibling records or more, deeper than [`SHAPE_DEPTH`]
/// levels below them, in a record that holds another list of its own (a
/// card's list of perks beside its table of specifications, in each of
/// many cards). A reader takes it as part of the card, not as the page's
/// records; the lists of a page's sections lie close below them, or
/// alone in them, and are judged together by [`like_lists`].
fn fields_of_records(page: &Page, regions: &[Region], shapes: &mut Shapes) -> Vec<bool> {
    let chains = chains_of(page, regions);
    for r in regions {
        shapes.read(page, r.records[0][0]);
    }
    (0..regions.len())
        .map(|i| {
            if regions[i].kind != RegionKind::Data {
                return false;
            }
            let a = &chains[i];
            // The records each alike list lies in, by the depth where its
            // path parts from this one's.
            let mut apart: HashMap<usize, Vec<NodeId>> = HashMap::new();
            for (j, b) in chains.iter().enumerate() {
                if j == i || regions[j].kind != RegionKind::Data {
                    continue;
                }
                match parting(page, shapes, regions, &chains, i, j) {
                    Some(k) if a.len() - 1 - k > SHAPE_DEPTH => {
                        let records = apart.entry(k).or_default();
                        if !records.contains(&b[k]) {
                            records.push(b[k]);
                        }
                    }
                    _ => {}
                }
            }
            // The record holds another list of its own (a card's
            // specifications beside its perks).
            let another = |k: usize| {
                (0..regions.len()).any(|l| {
                    l != i
                        && regions[l].kind == RegionKind::Data
                        && regions[l].records.len() >= MIN_LIST
                        && regions[l].parent > a[k]
                        && regions[l].parent < page.subtree_end(a[k])
                })
            };
            apart
                .iter()
                .any(|(&k, r)| r.len() + 1 >= MIN_LIST && another(k))
        })
        .collect()
}

/// Whether a region's records are a form's controls, not data: a filter's
/// options, whose text lies mostly (half of it or more) in `label`
/// elements ("Accounting (35)" beside its checkbox), or a settings
/// panel, half of whose records or more hold a checkbox shown as a switch
/// (`<input type=checkbox role=switch>`: a consent dialog's purposes).
/// A product card's "Compare" checkbox labels a small part of its text.
fn form_controls(page: &Page, records: &[Vec<NodeId>], sizes: &TextSizes) -> bool {
    let (Some(label), Some(input)) = (page.label_id("label"), page.label_id("input")) else {
        return false;
    };
    let within = |root: NodeId, l: LabelId| {
        std::iter::once(root)
            .filter(move |&n| page.label_of(n) == l)
            .chain(page.descendants_with_label(root, l).iter().copied())
    };
    let (mut labelled, mut all, mut switches) = (0, 0, 0);
    for record in records {
        let mut switch = false;
        for &root in record {
            all += sizes.chars(root);
            let mut end = root;
            for l in within(root, label) {
                // A label inside a label is counted with it.
                if l >= end {
                    labelled += sizes.chars(l);
                    end = page.subtree_end(l);
                }
            }
            switch |= within(root, input).any(|i| {
                page.attribute(i, "type")
                    .is_some_and(|t| t.eq_ignore_ascii_case("checkbox"))
                    && page
                        .attribute(i, "role")
                        .is_some_and(|r| r.eq_ignore_ascii_case("switch"))
            });
        }
        switches += usize::from(switch);
    }
    (all > 0 && 2 * labelled >= all) || 2 * switches >= records.len()
}

/// Whether a region is a search's facets, not its results: half of its
/// records or more named (by class or id) a facet or a filter
/// ("facetOption", "filter-pill-wrapper-item"), on the record's element
/// or on the one element it wraps (an item holding a "dui-filter"
/// group): groups of options, or options shown as buttons and links with
/// their counts. The name is read on the records only: a page's whole
/// search column is often named a filter's, and a facet library names
/// the results' own container ("facetwp-template").
fn facets(page: &Page, records: &[Vec<NodeId>]) -> bool {
    let named = |n: NodeId| {
        ["class", "id"].iter().any(|a| {
            page.attribute(n, a).is_some_and(|v| {
                let v = v.to_ascii_lowercase();
                v.contains("facet") || v.contains("filter")
            })
        })
    };
    let wrapped = |mut n: NodeId| {
        for _ in 0..WRAPPERS {
            if named(n) {
                return true;
            }
            let mut elements = page.children(n).filter(|&c| page.label_of(c) != PCDATA);
            match (elements.next(), elements.next()) {
                (Some(only), None) => n = only,
                _ => return false,
            }
        }
        named(n)
    };
    let named_records = records.iter().filter(|r| wrapped(r[0])).count();
    2 * named_records >= records.len()
}

/// Whether a region is a questionnaire's steps, not data: inside a
/// `form`, two thirds of its records or more each holding a control the
/// reader fills in (a text field, a choice, a list to pick from; not a
/// hidden field, a button, nor a checkbox: a result's row is often
/// selected by one, to ask about the records chosen; nor a number: a
/// shop's offers each hold the quantity to order).
fn form_steps(page: &Page, parent: NodeId, records: &[Vec<NodeId>]) -> bool {
    if !std::iter::once(parent)
        .chain(page.ancestors(parent))
        .any(|a| page.label_name(a) == "form")
    {
        return false;
    }
    let control = |n: NodeId| match page.label_name(n) {
        "select" | "textarea" => true,
        "input" => !page.attribute(n, "type").is_some_and(|t| {
            [
                "hidden", "submit", "button", "image", "reset", "checkbox", "number",
            ]
            .iter()
            .any(|k| t.eq_ignore_ascii_case(k))
        }),
        _ => false,
    };
    let filled = records
        .iter()
        .filter(|r| {
            r.iter().any(|&root| {
                std::iter::once(root)
                    .chain(page.after(root))
                    .take_while(|&n| n < page.subtree_end(root))
                    .any(control)
            })
        })
        .count();
    3 * filled >= 2 * records.len()
}

fn kind_of(page: &Page, c: &Candidate, sizes: &TextSizes) -> RegionKind {
    let in_frame = std::iter::once(c.parent)
        .chain(page.ancestors(c.parent))
        .any(|a| {
            matches!(page.label_name(a), "nav" | "header" | "footer")
                || page
                    .attribute(a, "role")
                    .is_some_and(|r| r.eq_ignore_ascii_case("navigation"))
        });
    let menu_like = c.records.iter().all(|r| {
        let chars: usize = r.iter().map(|&n| sizes.chars(n)).sum();
        let links: usize = r.iter().map(|&n| sizes.link_chars(n)).sum();
        let anchors: usize = r
            .iter()
            .map(|&n| page.descendants_with_label(n, A).len() + usize::from(page.label_of(n) == A))
            .sum();
        // Text by text: a card's title and its count are two texts even
        // where no space parts them in the source.
        let words = text_of(page, r).split_whitespace().count();
        anchors == 1 && links == chars && words <= MENU_WORDS
    });
    if in_frame || menu_like {
        RegionKind::Navigation
    } else {
        RegionKind::Data
    }
}

/// The texts below some nodes, white space collapsed, joined by a space
/// (script and style left out).
pub fn text_of(page: &Page, nodes: &[NodeId]) -> String {
    texts(page, nodes)
        .into_iter()
        .map(|(_, _, _, t)| t)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The texts of one record: (part, path, text node or its element, text).
fn texts(page: &Page, record: &[NodeId]) -> Vec<(usize, String, NodeId, String)> {
    let mut out = Vec::new();
    for (part, &root) in record.iter().enumerate() {
        let mut node = root;
        let end = page.subtree_end(root);
        while node < end {
            if matches!(page.label_of(node), SCRIPT | STYLE) {
                node = page.subtree_end(node);
                continue;
            }
            // A text broken by formatting (a search's highlighted words:
            // `Anthony <span class=match>Garcia</span>`) is one text, also
            // when it is the whole record (a snippet below a title).
            if formatted_run(page, node) {
                let text = page.text_of(node);
                if !text.is_empty() {
                    out.push((part, crate::locate::steps(page, root, node), node, text));
                }
                node = page.subtree_end(node);
                continue;
            }
            if let Some(t) = page.pcdata(node) {
                let text = t.split_whitespace().collect::<Vec<_>>().join(" ");
                if !text.is_empty() {
                    let parent = page.parent(node).unwrap_or(root);
                    let only_child = page.children(parent).count() == 1 && parent != root;
                    let target =
                        if only_child || (parent == root && page.children(root).count() == 1) {
                            parent
                        } else {
                            node
                        };
                    out.push((part, crate::locate::steps(page, root, target), target, text));
                }
            }
            node = node.next();
        }
    }
    out
}

/// Elements that format a run of text without breaking it.
const FORMATTING: [&str; 12] = [
    "span", "b", "strong", "em", "i", "mark", "u", "font", "small", "sup", "sub", "code",
];

/// An element whose children are text with formatting elements among it
/// (and nothing else, down to its leaves): one run of text — unless a
/// text ends in a colon (a label before its value).
fn formatted_run(page: &Page, node: NodeId) -> bool {
    if page.pcdata(node).is_some() {
        return false;
    }
    let mut text = false;
    let mut formatted = false;
    for c in page.children(node) {
        match page.pcdata(c) {
            // "Price: <span>19.99</span>": a label and its value, two texts.
            Some(t) if t.trim_end().ends_with(':') => return false,
            Some(t) => text |= !t.trim().is_empty(),
            None if FORMATTING.contains(&page.label_name(c)) && only_text_below(page, c) => {
                formatted = true;
            }
            None => return false,
        }
    }
    text && formatted
}

/// Whether everything below `node` is text or formatting.
fn only_text_below(page: &Page, node: NodeId) -> bool {
    page.after(node)
        .take_while(|&n| n < page.subtree_end(node))
        .all(|n| page.pcdata(n).is_some() || FORMATTING.contains(&page.label_name(n)))
}

/// The columns of a region's records, and each record's values.
fn columns(page: &Page, records: &[Vec<NodeId>]) -> (Vec<Column>, Vec<Vec<Option<String>>>) {
    let per_record: Vec<Vec<(usize, String, NodeId, String)>> =
        records.iter().map(|r| texts(page, r)).collect();
    // The merged order of the paths.
    let mut order: Vec<(usize, String)> = Vec::new();
    for texts in &per_record {
        let mut at = 0;
        for (part, path, _, _) in texts {
            let key = (*part, path.clone());
            match order.iter().position(|k| *k == key) {
                Some(p) => at = p + 1,
                None => {
                    order.insert(at.min(order.len()), key);
                    at += 1;
                }
            }
        }
    }
    let index: HashMap<(usize, String), usize> = order
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, k)| (k, i))
        .collect();
    let mut values: Vec<Vec<Option<String>>> = vec![vec![None; order.len()]; records.len()];
    let mut nodes: Vec<Option<NodeId>> = vec![None; order.len()];
    for (r, texts) in per_record.iter().enumerate() {
        for (part, path, node, text) in texts {
            let k = index[&(*part, path.clone())];
            values[r][k] = Some(text.clone());
            nodes[k].get_or_insert(*node);
        }
    }
    // Template texts: the same in every record.
    let constant: Vec<Option<String>> = (0..order.len())
        .map(|k| {
            let first = values[0][k].clone()?;
            (records.len() >= 3 && values.iter().all(|v| v[k].as_deref() == Some(&first)))
                .then_some(first)
        })
        .collect();
    let headers = table_headers(page, records);
    let mut out_columns = Vec::new();
    let mut keep = Vec::new();
    let mut label: Option<String> = None;
    for (k, (part, path)) in order.iter().enumerate() {
        let header = nodes[k].and_then(|n| header_of(page, n, &headers));
        // A column under a header of its own is data even where every
        // record holds the same value ("USA" under "country").
        if let Some(text) = constant[k].as_ref().filter(|_| header.is_none()) {
            let l = text.trim_end_matches([':', ' ']).trim();
            if text.chars().count() <= 40 && !l.is_empty() {
                label = Some(l.to_string());
            }
            continue;
        }
        let name = header
            .or(label.take())
            .or_else(|| nodes[k].and_then(|n| attribute_name(page, n, records)))
            .unwrap_or_else(|| format!("field_{}", out_columns.len() + 1));
        out_columns.push(Column {
            name,
            part: *part,
            path: path.clone(),
        });
        keep.push(k);
    }
    // Names made unique: `price`, `price_2`.
    let mut seen: HashMap<String, usize> = HashMap::new();
    for c in &mut out_columns {
        let name = field_name(&c.name);
        let n = seen.entry(name.clone()).or_default();
        *n += 1;
        c.name = if *n == 1 { name } else { format!("{name}_{n}") };
    }
    let values = values
        .into_iter()
        .map(|v| keep.iter().map(|&k| v[k].clone()).collect())
        .collect();
    (out_columns, values)
}

/// A field's name as an attribute: lower case, words joined by `_`.
pub fn field_name(s: &str) -> String {
    let words: Vec<String> = s
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(4)
        .map(str::to_lowercase)
        .collect();
    if words.is_empty() {
        "field".to_string()
    } else {
        words.join("_")
    }
}

/// The header cells of the records' table, by position, when the records
/// are table rows.
fn table_headers(page: &Page, records: &[Vec<NodeId>]) -> Vec<String> {
    let Some(&first) = records.first().and_then(|r| r.first()) else {
        return Vec::new();
    };
    if page.label_of(first) != TR {
        return Vec::new();
    }
    let Some(table) = page.parent(first).and_then(|p| table_of_rows(page, p)) else {
        return Vec::new();
    };
    let th = page.label_id("th");
    let head = page.child_matches(table, TR).find(|&row| {
        !records.iter().any(|r| r.contains(&row))
            && th.is_some_and(|th| page.child_matches(row, th).next().is_some())
    });
    head.map(|row| {
        page.children(row)
            .filter(|&c| page.label_of(c) != PCDATA)
            .map(|c| page.text_of(c))
            .collect()
    })
    .unwrap_or_default()
}

/// The header text above a node's table cell.
fn header_of(page: &Page, node: NodeId, headers: &[String]) -> Option<String> {
    if headers.is_empty() {
        return None;
    }
    let mut cell = node;
    loop {
        let parent = page.parent(cell)?;
        if page.label_of(parent) == TR {
            break;
        }
        cell = parent;
    }
    let row = page.parent(cell)?;
    let at = page
        .children(row)
        .filter(|&c| page.label_of(c) != PCDATA)
        .position(|c| c == cell)?;
    headers
        .get(at)
        .filter(|h| !h.is_empty() && h.chars().any(char::is_alphanumeric))
        .cloned()
}

/// The nearest `itemprop`, else the nearest `class` between a node and its
/// record.
fn attribute_name(page: &Page, node: NodeId, records: &[Vec<NodeId>]) -> Option<String> {
    let roots: Vec<NodeId> = records.iter().flatten().copied().collect();
    let path: Vec<NodeId> = std::iter::once(node)
        .chain(page.ancestors(node))
        .take_while(|n| !roots.contains(n))
        .filter(|&n| page.label_of(n) != PCDATA)
        .collect();
    let of = |name: &str| {
        path.iter().find_map(|&n| {
            page.attribute(n, name)
                .and_then(|v| v.split_whitespace().next())
                .filter(|v| v.chars().any(char::is_alphabetic))
                .map(str::to_string)
        })
    };
    of("itemprop").or_else(|| of("class"))
}

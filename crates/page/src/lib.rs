//! The page tree of hel.md §1.
//!
//! A page is parsed by html5ever's HTML5 tree builder, fed by html5gum's
//! tokenizer (so real-world HTML with unclosed tags, misnested tables and
//! stray end tags gives the tree a browser would build; checked against
//! html5lib's tree-construction tests), straight into an arena laid out in
//! pre-order: a node's index is its place in document order, its subtree is
//! the index range `index..end`, and the nodes of every label are listed in
//! document order.
//! That makes `->` steps a binary search and `.txt` a linear scan.
//!
//! Decisions where hel.md is silent:
//! - White space is Unicode white space (`&nbsp;` included): a text node of
//!   only white space is not part of the tree, but `.txt` still reads it as a
//!   space between the texts around it (`<b>a</b> <i>b</i>` gives `a b`).
//! - Text on both sides of a comment stays two `pcdata` nodes.
//! - `.txt` of an element leaves out the text of `script` and `style`
//!   elements below it (their own `pcdata` nodes can still be addressed).
//! - `<noscript>` content is parsed as markup: a gatherer runs no scripts.
//! - A `<template>`'s contents are its children.
//! - `.src` is the node re-serialised from the tree (attribute values and text
//!   escaped, white-space-only text between elements written as one space,
//!   comments left out), not a slice of the original bytes.
//!
//! Hostile pages (a deep nesting of thousands of `<div>`s, whether an
//! attack or a broken generator):
//! - The tree is at most [`MAX_DEPTH`] (512) elements deep, counting the root
//!   `html` as level 1, as in Chromium, which caps its DOM at 512: an element
//!   that opens at the deepest level is closed at once, so what would have
//!   been inside it follows it at the same level; the end tags the page
//!   writes for elements closed that way are skipped, so the page's structure
//!   resumes where the nesting ends. An element at the deepest level keeps
//!   its text (a `script`'s, a `textarea`'s), and a `select` its options
//!   (unlike Chromium's: a gatherer needs them). html5ever's tree builder scans
//!   its stack of open elements for most start tags, which made parsing a
//!   100,000-deep page quadratic (seconds); with its stack held at the cap, a
//!   page parses in time linear in its length.
//! - Nothing walks the tree by recursion (building, laying out, `.txt`,
//!   `.src`, forms, the wizard): a deep page cannot overflow the stack.

use std::borrow::Cow;

mod build;
pub mod charset;
mod tokens;

pub use build::{A, BODY, META, PCDATA, SCRIPT, STYLE, TABLE, TBODY, TFOOT, THEAD, TITLE, TR};

/// The deepest level of the page tree: the root `html` is level 1, and no
/// element is below level 512 (see the module docs).
pub const MAX_DEPTH: usize = 512;

/// Set on a node's label when white space (a dropped text node) came just
/// before it in document order.
const SPACE_BEFORE: u32 = 1 << 31;

/// A node of one page: its place in document order (the pre-order index), so
/// ids compare in document order and a subtree is a range of ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct NodeId(u32);

impl NodeId {
    fn index(self) -> usize {
        self.0 as usize
    }

    /// The id right after this one in document order (its first child if it
    /// has children); may be one past the page's last node.
    pub fn next(self) -> NodeId {
        NodeId(self.0 + 1)
    }

    /// The node's place in document order.
    pub fn index_u32(self) -> u32 {
        self.0
    }

    /// The node at a place in document order (a page's ids are `0..len`).
    pub fn from_u32(index: u32) -> NodeId {
        NodeId(index)
    }
}

/// A label of one page (an element name, an attribute name or `pcdata`):
/// ids are given per page, see [`Page::label_id`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct LabelId(u32);

/// One node of the tree, 20 bytes.
#[derive(Debug, Clone, Copy)]
struct Node {
    /// Label id (index into `Page::labels`), plus the `SPACE_BEFORE` bit.
    label: u32,
    /// Parent index (`u32::MAX` for the root).
    parent: u32,
    /// One past the last node of the subtree.
    end: u32,
    /// Text: byte range in `Page::buf`. Element: range in `Page::attrs`.
    a: u32,
    b: u32,
}

impl Node {
    fn label(&self) -> LabelId {
        LabelId(self.label & !SPACE_BEFORE)
    }
    fn space_before(&self) -> bool {
        self.label & SPACE_BEFORE != 0
    }
}

/// An attribute: name label id and the value's byte range in `Page::buf`.
#[derive(Debug, Clone, Copy)]
struct Attr {
    name: u32,
    start: u32,
    end: u32,
}

/// A parsed page: the labelled, ordered tree of hel.md §1.
#[derive(Debug, Clone)]
pub struct Page {
    nodes: Vec<Node>,
    attrs: Vec<Attr>,
    /// All text and attribute values.
    buf: String,
    /// Lower-case labels (element and attribute names); id 0 is `pcdata`.
    labels: Vec<Box<str>>,
    /// Node ids grouped by label, each group in document order.
    by_label: Vec<NodeId>,
    /// Start of each label's group in `by_label` (one more entry than labels).
    label_start: Vec<u32>,
}

/// A link of a page: an `<a href>`, read from the page's [`Links`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Link<'a> {
    /// The `href` attribute as written (surrounding white space removed).
    pub href: &'a str,
    /// The anchor's text (`.txt`).
    pub text: &'a str,
}

/// The links of a page, in document order, their hrefs and texts held in
/// one string: a pager that lists every page of a long query gives
/// hundreds of links a page, which would otherwise be two strings each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Links {
    buf: String,
    /// Per link, where its href ends and where its text ends in `buf`
    /// (each begins where the one before it ends).
    ends: Vec<(u32, u32)>,
}

impl Links {
    pub fn new() -> Links {
        Links::default()
    }

    /// Adds a link after the others.
    pub fn push(&mut self, href: &str, text: &str) {
        self.buf.push_str(href);
        let href_end = self.buf.len() as u32;
        self.buf.push_str(text);
        self.ends.push((href_end, self.buf.len() as u32));
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The `i`-th link.
    pub fn get(&self, i: usize) -> Option<Link<'_>> {
        let start = match i {
            0 => 0,
            _ => self.ends.get(i - 1)?.1,
        };
        Some(Link::within(&self.buf, start, *self.ends.get(i)?))
    }

    /// The links in order.
    pub fn iter(&self) -> LinkIter<'_> {
        LinkIter {
            buf: &self.buf,
            ends: self.ends.iter(),
            start: 0,
        }
    }
}

impl<'a> Link<'a> {
    /// The link that begins at `start` of a [`Links`]'s string and ends
    /// its href and its text where `ends` says.
    fn within(buf: &'a str, start: u32, (href_end, text_end): (u32, u32)) -> Link<'a> {
        Link {
            href: &buf[start as usize..href_end as usize],
            text: &buf[href_end as usize..text_end as usize],
        }
    }
}

impl<'a> IntoIterator for &'a Links {
    type Item = Link<'a>;
    type IntoIter = LinkIter<'a>;

    fn into_iter(self) -> LinkIter<'a> {
        self.iter()
    }
}

/// The links of a [`Links`] in order.
#[derive(Debug, Clone)]
pub struct LinkIter<'a> {
    buf: &'a str,
    ends: std::slice::Iter<'a, (u32, u32)>,
    start: u32,
}

impl<'a> Iterator for LinkIter<'a> {
    type Item = Link<'a>;

    fn next(&mut self) -> Option<Link<'a>> {
        let &ends = self.ends.next()?;
        let link = Link::within(self.buf, self.start, ends);
        self.start = ends.1;
        Some(link)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.ends.size_hint()
    }
}

impl ExactSizeIterator for LinkIter<'_> {}

impl<'a> FromIterator<Link<'a>> for Links {
    fn from_iter<I: IntoIterator<Item = Link<'a>>>(links: I) -> Links {
        let mut out = Links::new();
        for link in links {
            out.push(link.href, link.text);
        }
        out
    }
}

impl Default for Page {
    fn default() -> Page {
        Page::parse("")
    }
}

/// Elements whose boundaries separate words in `Page::text`.
const INLINE: &[&str] = &[
    "a", "abbr", "b", "bdi", "bdo", "big", "cite", "code", "data", "dfn", "em", "font", "i", "kbd",
    "mark", "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u",
    "var", "wbr", "label", "nobr",
];

impl Page {
    /// Parses HTML text (any real-world HTML; never fails).
    pub fn parse(html: &str) -> Page {
        build::parse(html)
    }

    /// Decodes the bytes the way a browser does (BOM, then the `charset` of the
    /// HTTP `Content-Type`, then `<meta>`, see `crate::charset`) and parses.
    pub fn from_bytes(bytes: &[u8], content_type: Option<&str>) -> Page {
        Page::parse(&crate::charset::decode(bytes, content_type).text)
    }

    /// The text of the first `<title>` (in the head if there is one there),
    /// white space collapsed; `None` without a title.
    pub fn title(&self) -> Option<String> {
        let titles = self.with_label(TITLE);
        let head_end = NodeId(self.nodes.get(1).map_or(0, |n| n.end));
        let t = titles
            .iter()
            .find(|&&t| t < head_end)
            .or_else(|| titles.first())?;
        Some(self.text_of(*t))
    }

    /// The `content` of the first `<meta name=…>` whose name matches `name`
    /// case-insensitively, as written.
    pub fn meta_content(&self, name: &str) -> Option<String> {
        self.meta_tags()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, content)| content.to_string())
    }

    /// Every `<meta name=…>` wherever the parser put it, in document order,
    /// as (name trimmed, `content` as written or empty).
    pub fn meta_tags(&self) -> impl Iterator<Item = (&str, &str)> {
        let name_id = self.label_id("name");
        let content_id = self.label_id("content");
        let metas = if name_id.is_some() {
            self.with_label(META)
        } else {
            &[]
        };
        metas.iter().filter_map(move |&m| {
            let name = self.attr(m, name_id?)?.trim();
            let content = content_id.and_then(|c| self.attr(m, c)).unwrap_or("");
            Some((name, content))
        })
    }

    /// The text of the body, white space collapsed, with a space where a
    /// block element (anything but inline markup such as `a`, `b`, `span`,
    /// `font`) begins or ends; scripts and styles left out.
    pub fn text(&self) -> String {
        let inline: Vec<LabelId> = INLINE.iter().filter_map(|l| self.label_id(l)).collect();
        self.collect_text(self.body(), Some(&inline))
    }

    /// Every `<a href>` in document order.
    pub fn links(&self) -> Links {
        let Some(href) = self.label_id("href") else {
            return Links::new();
        };
        let anchors = self.with_label(A);
        // Sized once: a pager lists every page of a long query.
        let mut links = Links {
            buf: String::with_capacity(anchors.len() * 48),
            ends: Vec::with_capacity(anchors.len()),
        };
        for &a in anchors {
            if let Some(value) = self.attr(a, href) {
                links.push(value.trim(), &self.text_cow(a));
            }
        }
        links
    }

    /// How many nodes the tree has (elements and texts).
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// The bytes this page's tree holds on the heap: 20 bytes a node, 12 an
    /// attribute, the text and attribute values once, 4 bytes a node for the
    /// label index, and a fixed part of under 1 KB (the label table). On the
    /// generated 40 KB shop pages of `gather bench hel` that is 1.7× the
    /// page's bytes.
    pub fn heap_bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>()
            + self.attrs.capacity() * std::mem::size_of::<Attr>()
            + self.buf.capacity()
            + self.labels.capacity() * std::mem::size_of::<Box<str>>()
            + self.labels.iter().map(|l| l.len()).sum::<usize>()
            + (self.by_label.capacity() + self.label_start.capacity()) * 4
    }

    // ---- crate-internal access for HEL, forms and the wizard ----

    /// The root (`html`).
    pub const ROOT: NodeId = NodeId(0);

    fn node(&self, node: NodeId) -> &Node {
        &self.nodes[node.index()]
    }

    /// The id of a lower-case label or attribute name on this page.
    pub fn label_id(&self, label: &str) -> Option<LabelId> {
        self.labels
            .iter()
            .position(|l| **l == *label)
            .map(|p| LabelId(p as u32))
    }

    /// Whether white space (a dropped text node) came just before the node.
    pub fn space_before(&self, node: NodeId) -> bool {
        self.node(node).space_before()
    }

    /// Whether the node is inline markup (`a`, `b`, `span`, `font`, …), whose
    /// boundaries do not separate words in [`Page::text`].
    pub fn is_inline(&self, node: NodeId) -> bool {
        INLINE.contains(&self.label_name(node))
    }

    /// A node's label id.
    pub fn label_of(&self, node: NodeId) -> LabelId {
        self.node(node).label()
    }

    /// A node's label.
    pub fn label_name(&self, node: NodeId) -> &str {
        &self.labels[self.label_of(node).0 as usize]
    }

    /// The parent of a node (`None` for the root).
    pub fn parent(&self, node: NodeId) -> Option<NodeId> {
        let p = self.node(node).parent;
        (p != u32::MAX).then_some(NodeId(p))
    }

    /// The ancestors of a node, its parent first.
    pub fn ancestors(&self, node: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        std::iter::successors(self.parent(node), |&n| self.parent(n))
    }

    /// The body element.
    pub fn body(&self) -> NodeId {
        self.children(Self::ROOT)
            .find(|&c| self.label_of(c) == BODY)
            .unwrap_or(Self::ROOT)
    }

    /// The nodes labelled `label`, in document order.
    pub fn with_label(&self, label: LabelId) -> &[NodeId] {
        let l = label.0 as usize;
        if l + 1 >= self.label_start.len() {
            return &[];
        }
        &self.by_label[self.label_start[l] as usize..self.label_start[l + 1] as usize]
    }

    /// The nodes labelled `label` after `node` in document order (first its
    /// descendants, then everything after it).
    pub fn following(&self, node: NodeId, label: LabelId) -> &[NodeId] {
        let all = self.with_label(label);
        &all[all.partition_point(|&n| n <= node)..]
    }

    /// The descendants of `node` labelled `label`, in document order.
    pub fn descendants_with_label(&self, node: NodeId, label: LabelId) -> &[NodeId] {
        let after = self.following(node, label);
        let end = self.subtree_end(node);
        &after[..after.partition_point(|&n| n < end)]
    }

    /// Every node, in document order.
    pub fn node_ids(&self) -> impl DoubleEndedIterator<Item = NodeId> {
        (0..self.nodes.len() as u32).map(NodeId)
    }

    /// The nodes before `node` in document order (its ancestors among them).
    pub fn before(&self, node: NodeId) -> impl DoubleEndedIterator<Item = NodeId> {
        (0..node.0).map(NodeId)
    }

    /// The nodes after `node` in document order (first its descendants).
    pub fn after(&self, node: NodeId) -> impl DoubleEndedIterator<Item = NodeId> {
        (node.0 + 1..self.nodes.len() as u32).map(NodeId)
    }

    /// The children of a node.
    pub fn children(&self, node: NodeId) -> Children<'_> {
        Children {
            page: self,
            next: node.0 + 1,
            end: self.node(node).end,
        }
    }

    /// The children labelled `label`; inside a `table`, the rows of its row
    /// groups count as its own rows (hel.md §1).
    pub fn child_matches(&self, node: NodeId, label: LabelId) -> ChildMatches<'_> {
        ChildMatches {
            page: self,
            label,
            row_groups: label == TR && self.label_of(node) == TABLE,
            outer: self.children(node),
            inner: None,
        }
    }

    /// The value of an attribute (by name id).
    pub fn attr(&self, node: NodeId, name: LabelId) -> Option<&str> {
        let n = self.node(node);
        if n.label() == PCDATA {
            return None;
        }
        self.attrs[n.a as usize..n.b as usize]
            .iter()
            .find(|a| a.name == name.0)
            .map(|a| &self.buf[a.start as usize..a.end as usize])
    }

    /// The value of an attribute by its lower-case name (`None` for a text
    /// node or an absent attribute).
    pub fn attribute(&self, node: NodeId, name: &str) -> Option<&str> {
        let n = self.node(node);
        if n.label() == PCDATA {
            return None;
        }
        self.attrs[n.a as usize..n.b as usize]
            .iter()
            .find(|a| *self.labels[a.name as usize] == *name)
            .map(|a| &self.buf[a.start as usize..a.end as usize])
    }

    /// The attributes of an element, as (name, value) pairs in source order.
    pub fn attrs(&self, node: NodeId) -> impl Iterator<Item = (&str, &str)> {
        let n = self.node(node);
        let range = if n.label() == PCDATA {
            0..0
        } else {
            n.a as usize..n.b as usize
        };
        self.attrs[range].iter().map(|a| {
            (
                &*self.labels[a.name as usize],
                &self.buf[a.start as usize..a.end as usize],
            )
        })
    }

    /// One past the last node of a node's subtree (the first node after it
    /// that is not its descendant, or one past the page's last node).
    pub fn subtree_end(&self, node: NodeId) -> NodeId {
        NodeId(self.node(node).end)
    }

    /// The text of a `pcdata` node as written (entities decoded, white space
    /// kept); `None` for an element.
    pub fn pcdata(&self, node: NodeId) -> Option<&str> {
        (self.label_of(node) == PCDATA).then(|| self.raw_text(node))
    }

    /// The text of a `pcdata` node as written.
    fn raw_text(&self, node: NodeId) -> &str {
        let n = self.node(node);
        &self.buf[n.a as usize..n.b as usize]
    }

    /// `.txt`: the node's text, white space collapsed and trimmed.
    pub fn text_of(&self, node: NodeId) -> String {
        self.text_cow(node).into_owned()
    }

    /// [`Page::text_of`], borrowed from the page where the text is one
    /// text node with nothing to collapse (most values).
    fn text_cow(&self, node: NodeId) -> Cow<'_, str> {
        let n = self.node(node);
        // A text node, or an element holding just one (most values).
        let only_text = if n.label() == PCDATA {
            Some(node)
        } else if n.end == node.0 + 2 && self.label_of(node.next()) == PCDATA {
            Some(node.next())
        } else {
            None
        };
        if let Some(t) = only_text {
            let raw = self.raw_text(t);
            if is_plain(raw) {
                return Cow::Borrowed(raw);
            }
            let mut out = TextCollector::default();
            out.push(raw);
            return Cow::Owned(out.finish());
        }
        Cow::Owned(self.collect_text(node, None))
    }

    /// The text below an element, white space collapsed, scripts and styles
    /// left out; with `inline`, a space where any other element begins or ends.
    fn collect_text(&self, node: NodeId, inline: Option<&[LabelId]>) -> String {
        let mut out = TextCollector::default();
        let mut open_blocks: Vec<u32> = Vec::new();
        let end = self.node(node).end;
        let mut i = node.0 + 1;
        while i < end {
            while open_blocks.last().is_some_and(|&e| i >= e) {
                open_blocks.pop();
                out.space();
            }
            let n = self.nodes[i as usize];
            if n.space_before() {
                out.space();
            }
            match n.label() {
                PCDATA => out.push(self.raw_text(NodeId(i))),
                SCRIPT | STYLE => {
                    i = n.end;
                    continue;
                }
                l => {
                    if inline.is_some_and(|inline| !inline.contains(&l)) {
                        out.space();
                        open_blocks.push(n.end);
                    }
                }
            }
            i += 1;
        }
        out.finish()
    }

    /// The page with the subtrees of `dropped` left out (roots in document
    /// order, none inside another): the kept nodes keep their labels, texts,
    /// attributes and order, so a rule that steps by label and position
    /// reads the same nodes in the kept part. Induction aligns such a
    /// sample of a large page's rows.
    pub fn without_subtrees(&self, dropped: &[NodeId]) -> Page {
        let mut new_id = vec![u32::MAX; self.nodes.len()];
        let mut nodes: Vec<Node> = Vec::new();
        let mut attrs: Vec<Attr> = Vec::new();
        let mut buf = String::new();
        let mut cut = dropped.iter().peekable();
        let mut i = 0u32;
        while (i as usize) < self.nodes.len() {
            while cut.next_if(|d| d.0 < i).is_some() {}
            if cut.next_if(|d| d.0 == i).is_some() {
                i = self.nodes[i as usize].end;
                continue;
            }
            let n = self.nodes[i as usize];
            new_id[i as usize] = nodes.len() as u32;
            let parent = if n.parent == u32::MAX {
                u32::MAX
            } else {
                new_id[n.parent as usize]
            };
            let (a, b) = if n.label() == PCDATA {
                let start = buf.len() as u32;
                buf.push_str(self.raw_text(NodeId(i)));
                (start, buf.len() as u32)
            } else {
                let start = attrs.len() as u32;
                for at in &self.attrs[n.a as usize..n.b as usize] {
                    let from = buf.len() as u32;
                    buf.push_str(&self.buf[at.start as usize..at.end as usize]);
                    attrs.push(Attr {
                        name: at.name,
                        start: from,
                        end: buf.len() as u32,
                    });
                }
                (start, attrs.len() as u32)
            };
            nodes.push(Node {
                label: n.label,
                parent,
                end: 0,
                a,
                b,
            });
            i += 1;
        }
        drop(new_id);
        // Subtree ends from the subtree sizes (children come after parents).
        let mut size = vec![1u32; nodes.len()];
        for k in (1..nodes.len()).rev() {
            let p = nodes[k].parent as usize;
            size[p] += size[k];
        }
        for (k, n) in nodes.iter_mut().enumerate() {
            n.end = k as u32 + size[k];
        }
        let mut page = Page {
            nodes,
            attrs,
            buf,
            labels: self.labels.clone(),
            by_label: Vec::new(),
            label_start: Vec::new(),
        };
        build::index_labels(&mut page);
        page
    }

    /// `.src`: the node's outer HTML, serialised from the tree.
    pub fn outer_html(&self, node: NodeId) -> String {
        let end = self.node(node).end;
        let mut out = String::new();
        let mut open: Vec<NodeId> = Vec::new();
        let close = |out: &mut String, page: &Page, e: NodeId| {
            if !is_void(page.label_name(e)) {
                out.push_str("</");
                out.push_str(page.label_name(e));
                out.push('>');
            }
        };
        let mut i = node;
        while i.0 < end {
            while let Some(&top) = open.last() {
                if i.0 < self.node(top).end {
                    break;
                }
                open.pop();
                close(&mut out, self, top);
            }
            let n = *self.node(i);
            if n.space_before() && i != node {
                out.push(' ');
            }
            if n.label() == PCDATA {
                let raw = self
                    .parent(i)
                    .is_some_and(|p| matches!(self.label_of(p), SCRIPT | STYLE));
                if raw {
                    out.push_str(self.raw_text(i));
                } else {
                    escape(&mut out, self.raw_text(i), false);
                }
            } else {
                out.push('<');
                out.push_str(self.label_name(i));
                for a in &self.attrs[n.a as usize..n.b as usize] {
                    out.push(' ');
                    out.push_str(&self.labels[a.name as usize]);
                    out.push_str("=\"");
                    escape(&mut out, &self.buf[a.start as usize..a.end as usize], true);
                    out.push('"');
                }
                out.push('>');
                open.push(i);
            }
            i = i.next();
        }
        while let Some(top) = open.pop() {
            close(&mut out, self, top);
        }
        out
    }
}

fn is_void(label: &str) -> bool {
    matches!(
        label,
        "area"
            | "base"
            | "br"
            | "col"
            | "embed"
            | "hr"
            | "img"
            | "input"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
            | "basefont"
            | "bgsound"
            | "frame"
            | "keygen"
    )
}

fn escape(out: &mut String, s: &str, attr: bool) {
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' if !attr => out.push_str("&lt;"),
            '>' if !attr => out.push_str("&gt;"),
            '"' if attr => out.push_str("&quot;"),
            '\u{a0}' => out.push_str("&nbsp;"),
            c => out.push(c),
        }
    }
}

/// The children of a node, in order.
pub struct Children<'a> {
    page: &'a Page,
    next: u32,
    end: u32,
}

impl Iterator for Children<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        if self.next >= self.end {
            return None;
        }
        let c = NodeId(self.next);
        self.next = self.page.node(c).end;
        Some(c)
    }
}

/// The children of a node with one label (see `Page::child_matches`).
pub struct ChildMatches<'a> {
    page: &'a Page,
    label: LabelId,
    row_groups: bool,
    outer: Children<'a>,
    inner: Option<Children<'a>>,
}

impl Iterator for ChildMatches<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        loop {
            if let Some(inner) = &mut self.inner {
                match inner.find(|&r| self.page.label_of(r) == TR) {
                    Some(r) => return Some(r),
                    None => self.inner = None,
                }
            }
            let c = self.outer.next()?;
            let l = self.page.label_of(c);
            if l == self.label {
                return Some(c);
            }
            if self.row_groups && matches!(l, THEAD | TBODY | TFOOT) {
                self.inner = Some(self.page.children(c));
            }
        }
    }
}

/// Collects text with white space collapsed to single spaces and trimmed.
#[derive(Default)]
struct TextCollector {
    out: String,
    pending_space: bool,
}

impl TextCollector {
    fn space(&mut self) {
        self.pending_space = true;
    }

    fn push(&mut self, text: &str) {
        if is_plain(text) {
            self.word(text);
            return;
        }
        let mut start = None;
        for (i, c) in text.char_indices() {
            if c.is_whitespace() {
                if let Some(s) = start.take() {
                    self.word(&text[s..i]);
                }
                self.pending_space = true;
            } else if start.is_none() {
                start = Some(i);
            }
        }
        if let Some(s) = start {
            self.word(&text[s..]);
        }
    }

    /// Appends a word (or words already collapsed), a space before it when
    /// white space came since the last one.
    fn word(&mut self, word: &str) {
        if self.pending_space && !self.out.is_empty() {
            self.out.push(' ');
        }
        self.out.push_str(word);
        self.pending_space = false;
    }

    fn finish(self) -> String {
        self.out
    }
}

/// Whether a text is already collapsed: ASCII, no white space but single
/// spaces between words (most text on pages; skips the general loop).
fn is_plain(text: &str) -> bool {
    let b = text.as_bytes();
    if b.is_empty() || b[0] == b' ' || b[b.len() - 1] == b' ' {
        return false;
    }
    let mut prev_space = false;
    for &c in b {
        match c {
            b' ' if prev_space => return false,
            b' ' => prev_space = true,
            b'\t' | b'\n' | b'\r' | 0x0c | 0x80.. => return false,
            _ => prev_space = false,
        }
    }
    true
}

#[cfg(test)]
mod html5lib;
#[cfg(test)]
mod tests;

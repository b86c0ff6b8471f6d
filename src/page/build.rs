//! Building the page tree: html5ever's tree builder writes into a mutable
//! arena (`Builder`), which is then laid out once in pre-order (`finish`).

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeBuilderOpts, TreeSink};
use html5ever::{local_name, Attribute, ExpandedName, LocalName, ParseOpts, QualName};

use super::{Attr, Node, Page, SPACE_BEFORE};

const NONE: u32 = u32::MAX;

/// Label ids fixed for every page.
pub(crate) const PCDATA: u32 = 0;
pub(crate) const SCRIPT: u32 = 1;
pub(crate) const STYLE: u32 = 2;
pub(crate) const HTML: u32 = 3;
pub(crate) const HEAD: u32 = 4;
pub(crate) const BODY: u32 = 5;
pub(crate) const TABLE: u32 = 6;
pub(crate) const TR: u32 = 7;
pub(crate) const THEAD: u32 = 8;
pub(crate) const TBODY: u32 = 9;
pub(crate) const TFOOT: u32 = 10;
pub(crate) const A: u32 = 11;
pub(crate) const TITLE: u32 = 12;
pub(crate) const META: u32 = 13;

fn fixed_labels() -> Vec<(Option<LocalName>, &'static str)> {
    vec![
        (None, "pcdata"),
        (Some(local_name!("script")), "script"),
        (Some(local_name!("style")), "style"),
        (Some(local_name!("html")), "html"),
        (Some(local_name!("head")), "head"),
        (Some(local_name!("body")), "body"),
        (Some(local_name!("table")), "table"),
        (Some(local_name!("tr")), "tr"),
        (Some(local_name!("thead")), "thead"),
        (Some(local_name!("tbody")), "tbody"),
        (Some(local_name!("tfoot")), "tfoot"),
        (Some(local_name!("a")), "a"),
        (Some(local_name!("title")), "title"),
        (Some(local_name!("meta")), "meta"),
    ]
}

#[derive(Clone, Copy)]
enum Kind {
    Document,
    /// Index into `Builder::names`, attribute range in `Builder::attrs`.
    Element {
        name: u32,
        attrs: (u32, u32),
    },
    /// Byte range in `Builder::buf`.
    Text(u32, u32),
    /// Comments, processing instructions: not part of the tree.
    Other,
}

#[derive(Clone, Copy)]
struct BNode {
    parent: u32,
    first: u32,
    last: u32,
    prev: u32,
    next: u32,
    kind: Kind,
}

/// Where a node is inserted.
#[derive(Clone, Copy)]
enum Place {
    LastChildOf(u32),
    Before(u32),
}

/// The mutable arena html5ever's tree builder writes into.
struct Builder {
    nodes: Vec<BNode>,
    names: Vec<QualName>,
    /// Label id of each entry of `names`.
    name_label: Vec<u32>,
    attrs: Vec<Attr>,
    buf: String,
    labels: Vec<Box<str>>,
    /// Label id by the atom's identity (`Atom::unsafe_data`, which is what
    /// atom equality compares).
    intern: HashMap<u64, u32, BuildHasherDefault<AtomHasher>>,
    /// The interned atoms, held so that no key is freed and reused by another
    /// atom while the page is built.
    interned: Vec<LocalName>,
}

/// A hasher for atom identities: they are already unique numbers, so mixing
/// their halves is enough (SipHash showed in profiles of page parsing).
#[derive(Default)]
struct AtomHasher(u64);

impl Hasher for AtomHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, x: u64) {
        let h = (x ^ (x >> 32)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = h ^ (h >> 29);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

impl Builder {
    fn new(capacity_hint: usize) -> Builder {
        let mut b = Builder {
            // Sized for typical pages (one node per ~20 bytes, including
            // white space and comments; an attribute per ~35 bytes; text and
            // attribute values ~60% of the page), so that they rarely grow.
            nodes: Vec::with_capacity(capacity_hint / 16 + 16),
            names: Vec::with_capacity(capacity_hint / 32 + 16),
            name_label: Vec::with_capacity(capacity_hint / 32 + 16),
            attrs: Vec::with_capacity(capacity_hint / 32 + 16),
            buf: String::with_capacity(capacity_hint / 5 * 3 + 16),
            labels: Vec::new(),
            intern: HashMap::default(),
            interned: Vec::new(),
        };
        for (i, (local, label)) in fixed_labels().into_iter().enumerate() {
            b.labels.push(label.into());
            if let Some(local) = local {
                b.intern.insert(local.unsafe_data(), i as u32);
            }
        }
        b.push(Kind::Document);
        b
    }

    fn push(&mut self, kind: Kind) -> u32 {
        let id = self.nodes.len() as u32;
        self.nodes.push(BNode {
            parent: NONE,
            first: NONE,
            last: NONE,
            prev: NONE,
            next: NONE,
            kind,
        });
        id
    }

    fn label(&mut self, local: &LocalName) -> u32 {
        if let Some(&id) = self.intern.get(&local.unsafe_data()) {
            return id;
        }
        let lower: String = local.as_ref().to_ascii_lowercase();
        let id = match self.labels.iter().position(|l| **l == *lower) {
            Some(p) => p as u32,
            None => {
                self.labels.push(lower.into_boxed_str());
                (self.labels.len() - 1) as u32
            }
        };
        self.intern.insert(local.unsafe_data(), id);
        self.interned.push(local.clone());
        id
    }

    fn push_attrs(&mut self, attrs: &[Attribute]) {
        for a in attrs {
            let name = self.label(&a.name.local);
            let start = self.buf.len() as u32;
            self.buf.push_str(&a.value);
            self.attrs.push(Attr {
                name,
                start,
                end: self.buf.len() as u32,
            });
        }
    }

    fn detach(&mut self, id: u32) {
        let n = self.nodes[id as usize];
        if n.parent == NONE {
            return;
        }
        if n.prev != NONE {
            self.nodes[n.prev as usize].next = n.next;
        } else {
            self.nodes[n.parent as usize].first = n.next;
        }
        if n.next != NONE {
            self.nodes[n.next as usize].prev = n.prev;
        } else {
            self.nodes[n.parent as usize].last = n.prev;
        }
        let node = &mut self.nodes[id as usize];
        node.parent = NONE;
        node.prev = NONE;
        node.next = NONE;
    }

    /// Links `child` as the last child of `parent`.
    fn link_last(&mut self, parent: u32, child: u32) {
        let last = self.nodes[parent as usize].last;
        {
            let c = &mut self.nodes[child as usize];
            c.parent = parent;
            c.prev = last;
            c.next = NONE;
        }
        if last == NONE {
            self.nodes[parent as usize].first = child;
        } else {
            self.nodes[last as usize].next = child;
        }
        self.nodes[parent as usize].last = child;
    }

    /// Links `child` just before `sibling`.
    fn link_before(&mut self, sibling: u32, child: u32) {
        let s = self.nodes[sibling as usize];
        let parent = s.parent;
        {
            let c = &mut self.nodes[child as usize];
            c.parent = parent;
            c.prev = s.prev;
            c.next = sibling;
        }
        if s.prev == NONE {
            self.nodes[parent as usize].first = child;
        } else {
            self.nodes[s.prev as usize].next = child;
        }
        self.nodes[sibling as usize].prev = child;
    }

    /// Appends `text` to the text node `id`, keeping its text contiguous in
    /// the buffer (copied to the end when something else was written since).
    fn extend_text(&mut self, id: u32, text: &str) {
        if let Kind::Text(start, end) = self.nodes[id as usize].kind {
            let (start, end) = (start as usize, end as usize);
            let start = if end == self.buf.len() {
                start
            } else {
                let new_start = self.buf.len();
                self.buf.extend_from_within(start..end);
                new_start
            };
            self.buf.push_str(text);
            self.nodes[id as usize].kind = Kind::Text(start as u32, self.buf.len() as u32);
        }
    }

    fn new_text(&mut self, text: &str) -> u32 {
        let start = self.buf.len() as u32;
        self.buf.push_str(text);
        self.push(Kind::Text(start, self.buf.len() as u32))
    }

    /// Inserts a node, or text (merged into a text node right before it).
    fn insert(&mut self, place: Place, child: NodeOrText<u32>) {
        let c = match child {
            NodeOrText::AppendNode(c) => {
                self.detach(c);
                c
            }
            NodeOrText::AppendText(t) => {
                let before = match place {
                    Place::LastChildOf(p) => self.nodes[p as usize].last,
                    Place::Before(s) => self.nodes[s as usize].prev,
                };
                if self.is_text(before) {
                    self.extend_text(before, &t);
                    return;
                }
                self.new_text(&t)
            }
        };
        match place {
            Place::LastChildOf(p) => self.link_last(p, c),
            Place::Before(s) => self.link_before(s, c),
        }
    }

    fn is_text(&self, id: u32) -> bool {
        id != NONE && matches!(self.nodes[id as usize].kind, Kind::Text(..))
    }
}

impl TreeSink for Builder {
    type Handle = u32;
    type Output = Builder;

    fn finish(self) -> Builder {
        self
    }

    fn parse_error(&mut self, _msg: Cow<'static, str>) {}

    fn get_document(&mut self) -> u32 {
        0
    }

    fn elem_name<'a>(&'a self, target: &'a u32) -> ExpandedName<'a> {
        match self.nodes[*target as usize].kind {
            Kind::Element { name, .. } => self.names[name as usize].expanded(),
            // The tree builder asks only for elements' names; answer with a
            // name that matches nothing special.
            _ => self.names[0].expanded(),
        }
    }

    fn create_element(&mut self, name: QualName, attrs: Vec<Attribute>, _: ElementFlags) -> u32 {
        let mut label = self.label(&name.local);
        if label == PCDATA {
            // An element written `<pcdata>` is no text node: it gets a label
            // of its own, which a rule's `pcdata` (text) never names.
            label = match self.labels.iter().skip(1).position(|l| &**l == "pcdata") {
                Some(p) => p as u32 + 1,
                None => {
                    self.labels.push("pcdata".into());
                    (self.labels.len() - 1) as u32
                }
            };
        }
        let start = self.attrs.len() as u32;
        self.push_attrs(&attrs);
        let end = self.attrs.len() as u32;
        self.names.push(name);
        self.name_label.push(label);
        let idx = (self.names.len() - 1) as u32;
        self.push(Kind::Element {
            name: idx,
            attrs: (start, end),
        })
    }

    fn create_comment(&mut self, _text: StrTendril) -> u32 {
        self.push(Kind::Other)
    }

    fn create_pi(&mut self, _target: StrTendril, _data: StrTendril) -> u32 {
        self.push(Kind::Other)
    }

    fn append(&mut self, parent: &u32, child: NodeOrText<u32>) {
        self.insert(Place::LastChildOf(*parent), child);
    }

    fn append_based_on_parent_node(&mut self, element: &u32, prev: &u32, child: NodeOrText<u32>) {
        if self.nodes[*element as usize].parent != NONE {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev, child);
        }
    }

    fn append_doctype_to_document(&mut self, _: StrTendril, _: StrTendril, _: StrTendril) {}

    fn get_template_contents(&mut self, target: &u32) -> u32 {
        // A template's contents are its children.
        *target
    }

    fn same_node(&self, x: &u32, y: &u32) -> bool {
        x == y
    }

    fn set_quirks_mode(&mut self, _mode: QuirksMode) {}

    fn append_before_sibling(&mut self, sibling: &u32, new_node: NodeOrText<u32>) {
        if self.nodes[*sibling as usize].parent != NONE {
            self.insert(Place::Before(*sibling), new_node);
        }
    }

    fn add_attrs_if_missing(&mut self, target: &u32, attrs: Vec<Attribute>) {
        let Kind::Element {
            name,
            attrs: (start, end),
        } = self.nodes[*target as usize].kind
        else {
            return;
        };
        let missing: Vec<Attribute> = attrs
            .into_iter()
            .filter(|a| {
                let label = self.intern.get(&a.name.local.unsafe_data()).copied();
                !self.attrs[start as usize..end as usize]
                    .iter()
                    .any(|x| Some(x.name) == label)
            })
            .collect();
        if missing.is_empty() {
            return;
        }
        // Keep the element's attributes contiguous: copy them to the end.
        let new_start = self.attrs.len() as u32;
        self.attrs.extend_from_within(start as usize..end as usize);
        self.push_attrs(&missing);
        let new_end = self.attrs.len() as u32;
        self.nodes[*target as usize].kind = Kind::Element {
            name,
            attrs: (new_start, new_end),
        };
    }

    fn remove_from_parent(&mut self, target: &u32) {
        self.detach(*target);
    }

    fn reparent_children(&mut self, node: &u32, new_parent: &u32) {
        let mut c = self.nodes[*node as usize].first;
        while c != NONE {
            let next = self.nodes[c as usize].next;
            self.detach(c);
            self.link_last(*new_parent, c);
            c = next;
        }
    }
}

/// Parses `html` into a page.
pub(super) fn parse(html: &str) -> Page {
    let opts = ParseOpts {
        tree_builder: TreeBuilderOpts {
            // A gatherer runs no scripts: `<noscript>` content is markup.
            scripting_enabled: false,
            ..Default::default()
        },
        ..Default::default()
    };
    let mut builder = Builder::new(html.len());
    // `elem_name` on a non-element answers with names[0]; make it exist.
    builder.names.push(QualName::new(
        None,
        html5ever::Namespace::from(""),
        local_name!(""),
    ));
    builder.name_label.push(PCDATA);
    let builder = html5ever::parse_document(builder, opts).one(StrTendril::from_slice(html));
    layout(builder)
}

fn is_blank(s: &str) -> bool {
    s.chars().all(char::is_whitespace)
}

/// Lays the built tree out in pre-order: node index = document order.
fn layout(b: Builder) -> Page {
    let mut nodes: Vec<Node> = Vec::with_capacity(b.nodes.len());
    let mut space_pending = false;

    let label_of = |id: u32| -> Option<u32> {
        match b.nodes[id as usize].kind {
            Kind::Element { name, .. } => Some(b.name_label[name as usize]),
            _ => None,
        }
    };
    let html = {
        let mut c = b.nodes[0].first;
        while c != NONE && label_of(c).is_none() {
            c = b.nodes[c as usize].next;
        }
        c
    };

    // Emits an element with no children of its own (synthetic head/body).
    fn empty(nodes: &mut Vec<Node>, label: u32, parent: u32) {
        let i = nodes.len() as u32;
        nodes.push(Node {
            label,
            parent,
            end: i + 1,
            a: 0,
            b: 0,
        });
    }

    nodes.push(Node {
        label: HTML,
        parent: NONE,
        end: 0,
        a: 0,
        b: 0,
    });
    if let Some(Kind::Element { attrs, .. }) = (html != NONE).then(|| b.nodes[html as usize].kind) {
        nodes[0].a = attrs.0;
        nodes[0].b = attrs.1;
    }
    let has_child = |label: u32| {
        let mut c = if html == NONE {
            NONE
        } else {
            b.nodes[html as usize].first
        };
        while c != NONE {
            if label_of(c) == Some(label) {
                return true;
            }
            c = b.nodes[c as usize].next;
        }
        false
    };
    let has_head = has_child(HEAD);
    let has_body = has_child(BODY);
    if !has_head {
        empty(&mut nodes, HEAD, 0);
    }

    // (next build child to visit, final index of the parent)
    let mut stack: Vec<(u32, u32)> = Vec::with_capacity(64);
    stack.push((
        if html == NONE {
            NONE
        } else {
            b.nodes[html as usize].first
        },
        0,
    ));
    while let Some(top) = stack.last_mut() {
        let (cursor, parent) = *top;
        if cursor == NONE {
            stack.pop();
            if parent == 0 && !has_body {
                empty(&mut nodes, BODY, 0);
            }
            nodes[parent as usize].end = nodes.len() as u32;
            continue;
        }
        top.0 = b.nodes[cursor as usize].next;
        let idx = nodes.len() as u32;
        match b.nodes[cursor as usize].kind {
            Kind::Element { name, attrs } => {
                let mut label = b.name_label[name as usize];
                if space_pending {
                    label |= SPACE_BEFORE;
                    space_pending = false;
                }
                nodes.push(Node {
                    label,
                    parent,
                    end: 0,
                    a: attrs.0,
                    b: attrs.1,
                });
                stack.push((b.nodes[cursor as usize].first, idx));
            }
            Kind::Text(start, end) => {
                if is_blank(&b.buf[start as usize..end as usize]) {
                    space_pending = true;
                    continue;
                }
                let mut label = PCDATA;
                if space_pending {
                    label |= SPACE_BEFORE;
                    space_pending = false;
                }
                nodes.push(Node {
                    label,
                    parent,
                    end: idx + 1,
                    a: start,
                    b: end,
                });
            }
            Kind::Document | Kind::Other => {}
        }
    }

    let mut page = Page {
        nodes,
        attrs: b.attrs,
        buf: b.buf,
        labels: b.labels,
        by_label: Vec::new(),
        label_start: Vec::new(),
    };
    index_labels(&mut page);
    page.nodes.shrink_to_fit();
    page.attrs.shrink_to_fit();
    page.buf.shrink_to_fit();
    page.labels.shrink_to_fit();
    page
}

/// Groups the node ids by label (each group in document order), for `->` steps.
fn index_labels(page: &mut Page) {
    let n_labels = page.labels.len();
    let mut start = vec![0u32; n_labels + 1];
    for n in &page.nodes {
        start[n.label() as usize + 1] += 1;
    }
    for i in 0..n_labels {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut by_label = vec![0u32; page.nodes.len()];
    for (i, n) in page.nodes.iter().enumerate() {
        let l = n.label() as usize;
        by_label[fill[l] as usize] = i as u32;
        fill[l] += 1;
    }
    page.by_label = by_label;
    page.label_start = start;
}

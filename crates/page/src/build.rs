//! Building the page tree: html5gum's tokenizer (see `tokens`) feeds
//! html5ever's tree builder, which writes into a mutable arena (`Builder`),
//! then laid out once in pre-order (`layout`). Between the tokenizer and the
//! tree builder, `Capped` closes the elements that open at the depth cap (see
//! the module docs of `page`).

use std::borrow::Cow;
use std::cell::{Cell, OnceCell, RefCell};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{Tag, TagKind, Token, TokenSink, TokenSinkResult};
use html5ever::tree_builder::{
    ElementFlags, NodeOrText, QuirksMode, TreeBuilder, TreeBuilderOpts, TreeSink,
};
use html5ever::{local_name, ns, Attribute, LocalName, Namespace, QualName};

use super::{Attr, LabelId, Node, NodeId, Page, MAX_DEPTH, SPACE_BEFORE};

const NONE: u32 = u32::MAX;

/// Label ids fixed for every page.
pub const PCDATA: LabelId = LabelId(0);
pub const SCRIPT: LabelId = LabelId(1);
pub const STYLE: LabelId = LabelId(2);
pub const HTML: LabelId = LabelId(3);
pub const HEAD: LabelId = LabelId(4);
pub const BODY: LabelId = LabelId(5);
pub const TABLE: LabelId = LabelId(6);
pub const TR: LabelId = LabelId(7);
pub const THEAD: LabelId = LabelId(8);
pub const TBODY: LabelId = LabelId(9);
pub const TFOOT: LabelId = LabelId(10);
pub const A: LabelId = LabelId(11);
pub const TITLE: LabelId = LabelId(12);
pub const META: LabelId = LabelId(13);

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
    /// Index into `Arena::names`, attribute range in `Arena::attrs`.
    Element {
        name: u32,
        attrs: (u32, u32),
    },
    /// Byte range in `Arena::buf`.
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
    /// The level the node was inserted at (the document is 0, `html` 1); not
    /// updated when a subtree moves further down, so a guide for `Capped`.
    depth: u32,
    kind: Kind,
}

/// Where a node is inserted.
#[derive(Clone, Copy)]
enum Place {
    LastChildOf(u32),
    Before(u32),
}

/// The mutable arena html5ever's tree builder writes into (through
/// `Builder`).
struct Arena {
    nodes: Vec<BNode>,
    /// The distinct element names of the page; entry 0 is no name. Filled
    /// from `Builder::names` when the page is built.
    names: Vec<QualName>,
    /// Label id of each entry of `names`.
    name_label: Vec<u32>,
    /// The first entry of `names` by the identity of its local name.
    name_index: HashMap<u64, u32, BuildHasherDefault<AtomHasher>>,
    attrs: Vec<Attr>,
    buf: String,
    labels: Vec<Box<str>>,
    /// Label id by the atom's identity (`Atom::unsafe_data`, which is what
    /// atom equality compares).
    intern: HashMap<u64, u32, BuildHasherDefault<AtomHasher>>,
    /// The interned atoms, held so that no key is freed and reused by another
    /// atom while the page is built.
    interned: Vec<LocalName>,
    /// The last element created while `Capped` passes on a start tag, unless
    /// the tree builder popped it off its stack again (`NONE`).
    created: u32,
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

impl Arena {
    fn new(capacity_hint: usize) -> Arena {
        let mut b = Arena {
            // Sized for typical pages (one node per ~20 bytes, including
            // white space and comments; an attribute per ~35 bytes; text and
            // attribute values ~60% of the page), so that they rarely grow.
            nodes: Vec::with_capacity(capacity_hint / 16 + 16),
            names: Vec::new(),
            name_label: vec![PCDATA.0],
            name_index: HashMap::default(),
            attrs: Vec::with_capacity(capacity_hint / 32 + 16),
            buf: String::with_capacity(capacity_hint / 5 * 3 + 16),
            labels: Vec::new(),
            intern: HashMap::default(),
            interned: Vec::new(),
            created: NONE,
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
            depth: 0,
            kind,
        });
        id
    }

    /// The label id (`LabelId`'s number) of an element or attribute name.
    fn label(&mut self, local: &LocalName) -> u32 {
        if let Some(&id) = self.intern.get(&local.unsafe_data()) {
            return id;
        }
        let lower: String = (**local).to_ascii_lowercase();
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
        let depth = self.nodes[parent as usize].depth + 1;
        {
            let c = &mut self.nodes[child as usize];
            c.parent = parent;
            c.prev = last;
            c.next = NONE;
            c.depth = depth;
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
            c.depth = s.depth;
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

/// The distinct element names of a page, in a table that only grows and
/// hands out shared references meanwhile: html5ever asks for names through
/// `&self` and may hold an answer while it calls the sink again. Chunk `k`
/// holds `32 << k` names; entry 0 is no name.
struct NameTable {
    /// Entries 0 to 31, where the names of most pages fit.
    first: [OnceCell<QualName>; 32],
    /// Chunk `k` holds `32 << k` entries (chunk 0 is `first`).
    chunks: [OnceCell<Box<[OnceCell<QualName>]>>; 28],
    len: Cell<u32>,
    /// No name (entry 0, and the answer for an entry that does not exist).
    none: QualName,
}

impl NameTable {
    fn new() -> NameTable {
        let none = QualName::new(None, Namespace::from(""), local_name!(""));
        let table = NameTable {
            first: Default::default(),
            chunks: Default::default(),
            len: Cell::new(0),
            none: none.clone(),
        };
        table.push(none);
        table
    }

    /// The chunk and the place in it of entry `i`.
    fn slot(i: u32) -> (usize, usize) {
        let n = u64::from(i) / 32 + 1;
        let k = 63 - n.leading_zeros() as usize;
        (k, (u64::from(i) - 32 * ((1 << k) - 1)) as usize)
    }

    fn len(&self) -> u32 {
        self.len.get()
    }

    fn get(&self, i: u32) -> Option<&QualName> {
        if let Some(entry) = self.first.get(i as usize) {
            return entry.get();
        }
        let (k, j) = Self::slot(i);
        self.chunks.get(k)?.get()?.get(j)?.get()
    }

    fn push(&self, name: QualName) -> u32 {
        let i = self.len.get();
        if let Some(entry) = self.first.get(i as usize) {
            let _ = entry.set(name);
        } else {
            let (k, j) = Self::slot(i);
            let chunk =
                self.chunks[k].get_or_init(|| (0..32usize << k).map(|_| OnceCell::new()).collect());
            let _ = chunk[j].set(name);
        }
        self.len.set(i + 1);
        i
    }

    fn into_vec(self) -> Vec<QualName> {
        let rest = self
            .chunks
            .into_iter()
            .skip(1)
            .filter_map(OnceCell::into_inner)
            .flat_map(|chunk| chunk.into_vec());
        self.first
            .into_iter()
            .chain(rest)
            .map_while(OnceCell::into_inner)
            .collect()
    }
}

/// What the tree builder holds of a node: its index in the arena and its
/// entry in the name table (0 but for elements), so that the names the tree
/// builder asks for while it scans its stack need no look into the arena.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Handle {
    id: u32,
    name: u32,
}

impl Handle {
    fn node(id: u32) -> Handle {
        Handle { id, name: 0 }
    }
}

/// A node or text to insert, with the node as an arena index.
fn arena_child(child: NodeOrText<Handle>) -> NodeOrText<u32> {
    match child {
        NodeOrText::AppendNode(h) => NodeOrText::AppendNode(h.id),
        NodeOrText::AppendText(t) => NodeOrText::AppendText(t),
    }
}

/// The tree sink: html5ever's tree builder calls it through shared
/// references, each call borrows the arena for its own duration.
struct Builder {
    arena: RefCell<Arena>,
    names: NameTable,
    /// Emptied attribute lists, for the tokenizer's next start tags
    /// ([`super::tokens::AttributeLists`]).
    attribute_lists: RefCell<Vec<Vec<Attribute>>>,
}

impl Builder {
    fn arena(&self) -> std::cell::RefMut<'_, Arena> {
        self.arena.borrow_mut()
    }

    /// An emptied attribute list given back earlier, or a new one.
    fn attribute_list(&self) -> Vec<Attribute> {
        self.attribute_lists.borrow_mut().pop().unwrap_or_default()
    }

    /// Keeps an element's attribute list, emptied, for a later start tag.
    /// A few lists are in use at a time (the tag being read, one the tree
    /// builder holds); more are not kept.
    fn give_back(&self, mut attrs: Vec<Attribute>) {
        attrs.clear();
        let mut lists = self.attribute_lists.borrow_mut();
        if attrs.capacity() > 0 && lists.len() < 4 {
            lists.push(attrs);
        }
    }

    /// The entry of `names` for an element name, added if new.
    fn name(&self, arena: &mut Arena, name: QualName) -> u32 {
        let key = name.local.unsafe_data();
        if let Some(&i) = arena.name_index.get(&key) {
            if self.names.get(i) == Some(&name) {
                return i;
            }
            // The same local name in another namespace (svg's `a`, `title`).
            if let Some(i) = (0..self.names.len()).find(|&i| self.names.get(i) == Some(&name)) {
                return i;
            }
        }
        let mut label = arena.label(&name.local);
        if label == PCDATA.0 {
            // An element written `<pcdata>` is no text node: it gets a
            // label of its own, which a rule's `pcdata` (text) never names.
            label = match arena.labels.iter().skip(1).position(|l| &**l == "pcdata") {
                Some(p) => p as u32 + 1,
                None => {
                    arena.labels.push("pcdata".into());
                    (arena.labels.len() - 1) as u32
                }
            };
        }
        let i = self.names.push(name);
        arena.name_index.entry(key).or_insert(i);
        arena.name_label.push(label);
        i
    }

    /// The name of entry `i` of `names`.
    fn name_of(&self, i: u32) -> &QualName {
        self.names.get(i).unwrap_or(&self.names.none)
    }
}

impl TreeSink for Builder {
    type Handle = Handle;
    type Output = Arena;
    type ElemName<'a> = &'a QualName;

    fn finish(self) -> Arena {
        let mut arena = self.arena.into_inner();
        arena.names = self.names.into_vec();
        arena
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> Handle {
        Handle::node(0)
    }

    fn elem_name<'a>(&'a self, target: &'a Handle) -> &'a QualName {
        // The tree builder asks only for elements' names; for anything else
        // entry 0 is a name that matches nothing special.
        self.name_of(target.name)
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, _: ElementFlags) -> Handle {
        let mut a = self.arena();
        let name = self.name(&mut a, name);
        let start = a.attrs.len() as u32;
        a.push_attrs(&attrs);
        let end = a.attrs.len() as u32;
        self.give_back(attrs);
        let id = a.push(Kind::Element {
            name,
            attrs: (start, end),
        });
        a.created = id;
        Handle { id, name }
    }

    fn pop(&self, node: &Handle) {
        let mut a = self.arena();
        if node.id == a.created {
            a.created = NONE;
        }
    }

    fn create_comment(&self, _text: StrTendril) -> Handle {
        Handle::node(self.arena().push(Kind::Other))
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> Handle {
        Handle::node(self.arena().push(Kind::Other))
    }

    fn append(&self, parent: &Handle, child: NodeOrText<Handle>) {
        self.arena()
            .insert(Place::LastChildOf(parent.id), arena_child(child));
    }

    fn append_based_on_parent_node(
        &self,
        element: &Handle,
        prev: &Handle,
        child: NodeOrText<Handle>,
    ) {
        let mut a = self.arena();
        if a.nodes[element.id as usize].parent != NONE {
            a.insert(Place::Before(element.id), arena_child(child));
        } else {
            a.insert(Place::LastChildOf(prev.id), arena_child(child));
        }
    }

    fn append_doctype_to_document(&self, _: StrTendril, _: StrTendril, _: StrTendril) {}

    fn get_template_contents(&self, target: &Handle) -> Handle {
        // A template's contents are its children.
        *target
    }

    fn same_node(&self, x: &Handle, y: &Handle) -> bool {
        x.id == y.id
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, sibling: &Handle, new_node: NodeOrText<Handle>) {
        let mut a = self.arena();
        if a.nodes[sibling.id as usize].parent != NONE {
            a.insert(Place::Before(sibling.id), arena_child(new_node));
        }
    }

    fn add_attrs_if_missing(&self, target: &Handle, attrs: Vec<Attribute>) {
        let mut a = self.arena();
        let target = target.id;
        let Kind::Element {
            name,
            attrs: (start, end),
        } = a.nodes[target as usize].kind
        else {
            return;
        };
        let missing: Vec<Attribute> = attrs
            .into_iter()
            .filter(|x| {
                let label = a.intern.get(&x.name.local.unsafe_data()).copied();
                !a.attrs[start as usize..end as usize]
                    .iter()
                    .any(|y| Some(y.name) == label)
            })
            .collect();
        if missing.is_empty() {
            return;
        }
        // Keep the element's attributes contiguous: copy them to the end.
        let new_start = a.attrs.len() as u32;
        a.attrs.extend_from_within(start as usize..end as usize);
        a.push_attrs(&missing);
        let new_end = a.attrs.len() as u32;
        a.nodes[target as usize].kind = Kind::Element {
            name,
            attrs: (new_start, new_end),
        };
    }

    fn remove_from_parent(&self, target: &Handle) {
        self.arena().detach(target.id);
    }

    fn reparent_children(&self, node: &Handle, new_parent: &Handle) {
        let mut a = self.arena();
        let mut c = a.nodes[node.id as usize].first;
        while c != NONE {
            let next = a.nodes[c as usize].next;
            a.detach(c);
            a.link_last(new_parent.id, c);
            c = next;
        }
    }
}

/// Parses `html` into a page.
pub(super) fn parse(html: &str) -> Page {
    let opts = TreeBuilderOpts {
        // A gatherer runs no scripts: `<noscript>` content is markup.
        scripting_enabled: false,
        ..Default::default()
    };
    let builder = Builder {
        arena: RefCell::new(Arena::new(html.len())),
        names: NameTable::new(),
        attribute_lists: RefCell::new(Vec::new()),
    };
    let capped = Capped {
        tree: TreeBuilder::new(builder, opts),
        skip_end: RefCell::new(Vec::new()),
    };
    let tokenizer = html5gum::Tokenizer::new_with_emitter(
        super::tokens::Input::new(html),
        super::tokens::Tokens::new(&capped),
    );
    let Ok(()) = tokenizer.finish();
    capped.end();
    layout(capped.tree.sink.finish())
}

/// Elements that have no content and are never on the stack of open elements.
fn is_void(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("area")
            | local_name!("base")
            | local_name!("basefont")
            | local_name!("bgsound")
            | local_name!("br")
            | local_name!("col")
            | local_name!("embed")
            | local_name!("frame")
            | local_name!("hr")
            | local_name!("img")
            | local_name!("input")
            | local_name!("keygen")
            | local_name!("link")
            | local_name!("meta")
            | local_name!("param")
            | local_name!("source")
            | local_name!("track")
            | local_name!("wbr")
    )
}

/// Elements that keep their content at the depth cap: a select's options
/// (a gatherer needs them; select, optgroup and option add three levels at
/// most).
fn keeps_content(name: &QualName) -> bool {
    name.ns == ns!(html)
        && matches!(
            name.local,
            local_name!("select") | local_name!("optgroup") | local_name!("option")
        )
}

/// Passes the tokens to the tree builder, closing every element that opens
/// at level `MAX_DEPTH` or deeper right after its start tag (so the tree
/// builder's stack of open elements, which it scans for most start tags,
/// stays about `MAX_DEPTH` long), and skipping as many of the page's own end
/// tags for them.
struct Capped {
    tree: TreeBuilder<Handle, Builder>,
    /// End tags still to skip, by name (a handful of names at most).
    skip_end: RefCell<Vec<(LocalName, u32)>>,
}

impl Capped {
    /// After a start tag: whether the element it opened sits at the cap and
    /// is still open, and may be closed by an end tag of the same name.
    fn opened_at_cap(&self, tag_name: &LocalName, self_closing: bool) -> bool {
        let b = self.tree.sink.arena.borrow();
        if b.created == NONE {
            return false;
        }
        let node = &b.nodes[b.created as usize];
        let Kind::Element { name, .. } = node.kind else {
            return false;
        };
        let name = self.tree.sink.name_of(name);
        node.depth as usize >= MAX_DEPTH
            && !keeps_content(name)
            && name.local.eq_ignore_ascii_case(tag_name)
            && if name.ns == ns!(html) {
                !is_void(&name.local)
            } else {
                !self_closing
            }
    }
}

impl super::tokens::AttributeLists for Capped {
    fn attribute_list(&self) -> Vec<Attribute> {
        self.tree.sink.attribute_list()
    }
}

impl TokenSink for Capped {
    type Handle = Handle;

    fn process_token(&self, token: Token, line: u64) -> TokenSinkResult<Handle> {
        match token {
            Token::TagToken(tag) if tag.kind == TagKind::StartTag => {
                let name = tag.name.clone();
                let self_closing = tag.self_closing;
                self.tree.sink.arena().created = NONE;
                let result = self.tree.process_token(Token::TagToken(tag), line);
                // Raw text elements (script, style, textarea…) answer
                // otherwise: they hold text only and stay open.
                if matches!(result, TokenSinkResult::Continue)
                    && self.opened_at_cap(&name, self_closing)
                {
                    let mut skip = self.skip_end.borrow_mut();
                    match skip.iter_mut().find(|(n, _)| *n == name) {
                        Some((_, count)) => *count += 1,
                        None => skip.push((name.clone(), 1)),
                    }
                    drop(skip);
                    let end = Tag {
                        kind: TagKind::EndTag,
                        name,
                        self_closing: false,
                        attrs: Vec::new(),
                        had_duplicate_attributes: false,
                    };
                    let _ = self.tree.process_token(Token::TagToken(end), line);
                }
                result
            }
            Token::TagToken(tag) if tag.kind == TagKind::EndTag => {
                if let Some((_, count)) = self
                    .skip_end
                    .borrow_mut()
                    .iter_mut()
                    .find(|(n, c)| *c > 0 && *n == tag.name)
                {
                    *count -= 1;
                    return TokenSinkResult::Continue;
                }
                self.tree.process_token(Token::TagToken(tag), line)
            }
            token => self.tree.process_token(token, line),
        }
    }

    fn end(&self) {
        self.tree.end();
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.tree
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}

fn is_blank(s: &str) -> bool {
    s.chars().all(char::is_whitespace)
}

/// Lays the built tree out in pre-order: node index = document order.
fn layout(b: Arena) -> Page {
    let mut nodes: Vec<Node> = Vec::with_capacity(b.nodes.len());
    let mut space_pending = false;

    let label_of = |id: u32| -> Option<LabelId> {
        match b.nodes[id as usize].kind {
            Kind::Element { name, .. } => Some(LabelId(b.name_label[name as usize])),
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
    fn empty(nodes: &mut Vec<Node>, label: LabelId, parent: u32) {
        let i = nodes.len() as u32;
        nodes.push(Node {
            label: label.0,
            parent,
            end: i + 1,
            a: 0,
            b: 0,
        });
    }

    nodes.push(Node {
        label: HTML.0,
        parent: NONE,
        end: 0,
        a: 0,
        b: 0,
    });
    if let Some(Kind::Element { attrs, .. }) = (html != NONE).then(|| b.nodes[html as usize].kind) {
        nodes[0].a = attrs.0;
        nodes[0].b = attrs.1;
    }
    let has_child = |label: LabelId| {
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

    // One frame per element whose children are being laid out.
    struct Frame {
        /// The next build child to visit.
        cursor: u32,
        /// The final index of the parent the children get.
        parent: u32,
        /// The level of the children (`html` is level 1).
        level: usize,
        /// False where the children are those of an element at the cap, laid
        /// out after it as its siblings: the frame does not end `parent`.
        owns: bool,
    }
    let mut stack: Vec<Frame> = Vec::with_capacity(64);
    stack.push(Frame {
        cursor: if html == NONE {
            NONE
        } else {
            b.nodes[html as usize].first
        },
        parent: 0,
        level: 2,
        owns: true,
    });
    while let Some(top) = stack.last_mut() {
        let (cursor, parent, level) = (top.cursor, top.parent, top.level);
        if cursor == NONE {
            let owns = top.owns;
            stack.pop();
            if owns {
                if parent == 0 && !has_body {
                    empty(&mut nodes, BODY, 0);
                }
                nodes[parent as usize].end = nodes.len() as u32;
            }
            continue;
        }
        top.cursor = b.nodes[cursor as usize].next;
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
                let first = b.nodes[cursor as usize].first;
                if level < MAX_DEPTH
                    || keeps_content(&b.names[name as usize])
                    || only_text(&b, first)
                {
                    stack.push(Frame {
                        cursor: first,
                        parent: idx,
                        level: level + 1,
                        owns: true,
                    });
                } else {
                    // At the cap: a leaf, its children follow it.
                    nodes[idx as usize].end = idx + 1;
                    stack.push(Frame {
                        cursor: first,
                        parent,
                        level,
                        owns: false,
                    });
                }
            }
            Kind::Text(start, end) => {
                if is_blank(&b.buf[start as usize..end as usize]) {
                    space_pending = true;
                    continue;
                }
                let mut label = PCDATA.0;
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

/// Whether the build children from `first` on are no elements.
fn only_text(b: &Arena, first: u32) -> bool {
    let mut c = first;
    while c != NONE {
        if matches!(b.nodes[c as usize].kind, Kind::Element { .. }) {
            return false;
        }
        c = b.nodes[c as usize].next;
    }
    true
}

/// Groups the node ids by label (each group in document order), for `->` steps.
pub(super) fn index_labels(page: &mut Page) {
    let n_labels = page.labels.len();
    let mut start = vec![0u32; n_labels + 1];
    for n in &page.nodes {
        start[n.label().0 as usize + 1] += 1;
    }
    for i in 0..n_labels {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut by_label = vec![NodeId(0); page.nodes.len()];
    for (i, n) in page.nodes.iter().enumerate() {
        let l = n.label().0 as usize;
        by_label[fill[l] as usize] = NodeId(i as u32);
        fill[l] += 1;
    }
    page.by_label = by_label;
    page.label_start = start;
}

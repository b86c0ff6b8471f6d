//! Navigation detection (seed 004: Mielke, "Modelle und Algorithmen zur
//! Navigationserkennung innerhalb von Domains", 2011): a page's links in
//! groups of uniformly presented links, each group classified as site
//! navigation (a menu), pagination, or content links.
//!
//! - **Groups** (§3.1, Definition 6, Algorithm 2 *erweiterter
//!   gruppiereKnoten*): the `<a href>` elements of one depth of the page
//!   tree are grouped by their nearest common ancestor: for `i = 1, 2, …`
//!   the links still free whose `i`-th ancestor is the same form a group
//!   when they lead to at least two different documents
//!   (`destinationCnt ≥ 2`, §3.1.4). Links in no group are content links.
//! - **Similarity** (§3.2): two links are *v-equivalent* when they lead to
//!   the same document, *b-equivalent* when they also have the same text,
//!   *d-equivalent* when they also have the same path description (the
//!   start tags from the root to the link, Definition 9). Two groups
//!   *x-harmonise* (Definition 12) when their x-equivalent links appear in
//!   the same order: the longest common subsequence of their x-IDs is as
//!   long as a maximal matching, and not empty (§3.2.3).
//! - **Link structure** (§3.3, Definitions 13–14, Algorithms 3–4): the
//!   groups of a candidate navigation system, one per page, form a graph
//!   (an edge when a link of one group leads to the page of another); it
//!   is a navigation graph when it has a main navigation (the groups every
//!   other group links to), and, without the edges among those, splits into
//!   exactly one strongly connected component per main group, each of
//!   which, without its main group, is empty or again a navigation graph.
//! - **Detection** (§4): for a reference group, its *neighbour documents*
//!   are the pages of its host it links to (Definition 15); a *harmonic
//!   combination* takes the reference group and one group of each
//!   neighbour document such that all pairs v-harmonise (Definitions
//!   16–18); groups are tried in the order of their v-, b- and
//!   d-harmony weights with the reference group (§4.2). When no group of
//!   the combination links back to the reference page, the reference group
//!   is an *outsider* and the structure is checked without it (§4.3).
//!   A navigation or an outsider is a menu.
//!
//! Pagination is what [`crate::navigate`] reads from link texts (or, for
//! a link without text, its title or class): a group whose links are
//! mostly page numbers or next/previous words (in the languages the
//! navigator knows and a few more), or a single link saying "next" or
//! "more" (a "load more" link), is a pager, unless its numbers count no
//! pages (see `is_pager`); a next link outside the pager's group joins
//! it when it leads where the pager leads or on from the page's address;
//! the thesis leaves pagers out.
//!
//! Decisions where the seed leaves a choice open: the *domain* is the
//! page's origin (scheme, host, port), as for the crawl. A neighbour
//! document takes part in a combination through a group that
//! v-harmonises with the reference group over at least two links: the
//! navigations of one system share their main items (§2.2.2,
//! *Hauptnavigation*), while one shared link says nothing (two pages that
//! merely link each other pass the structure check). Neighbour documents
//! without such a group, or that could not be read, are left out, as the
//! documents of transverse links are (§4.1) — the thesis would reject the
//! group (its *Intranet* example), which loses every menu with one item
//! into another part of the site; at least one neighbour must remain, and
//! when some are left out, the groups of the combination must
//! d-harmonise, i.e. also look alike ("Die Wahl der Äquivalenz kann … den
//! Gegebenheiten … angepasst werden", §3.2.1): a list of articles that
//! shares a few links with a section menu is no menu. The
//! search for harmonic
//! combinations, exponential in the neighbours (§4.4), stops after
//! [`MAX_COMBINATIONS`] combinations; groups of more than
//! [`MAX_GROUP_LINKS`] links (a listing, not a menu) are not compared.
//! Breadcrumbs, which the thesis leaves out (§2.1), go through the same
//! checks: a trail into the main navigation's pages is an outsider of it,
//! hence a menu. Beyond the thesis, a crawl recognises a menu once per
//! site ([`KnownMenus`]).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;

use url::Url;

pub use crate::navigate::Label;
use crate::page::{NodeId, Page, A};

/// Complete harmonic combinations tried per reference group at most.
pub const MAX_COMBINATIONS: usize = 2000;
/// Groups with more links are not compared (their harmony costs |Γ₁|·|Γ₂|).
pub const MAX_GROUP_LINKS: usize = 400;

/// What a link is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LinkKind {
    /// Site navigation: a menu (a navigation or an outsider of the thesis).
    Menu,
    /// A pager: page numbers, next and previous, "load more".
    Pagination,
    /// Everything else.
    Content,
}

impl LinkKind {
    pub fn name(self) -> &'static str {
        match self {
            LinkKind::Menu => "menu",
            LinkKind::Pagination => "pagination",
            LinkKind::Content => "content",
        }
    }
}

impl fmt::Display for LinkKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One `<a href>` of a page.
#[derive(Debug, Clone)]
pub struct PageLink {
    /// The `href` as written.
    pub href: String,
    /// The link's text.
    pub text: String,
    /// The absolute `http(s)` URL it leads to, without fragment.
    pub target: Option<Url>,
    /// Its place among the page's links, from 0.
    pub index: usize,
    /// Whether it leads to the next page of a pager (its words, or
    /// `rel="next"`).
    pub next: bool,
    /// What a link without text says through its `title`, its
    /// `aria-label`, its image's `alt` or its `class` (an arrow image whose
    /// class is `next`); empty for links with text.
    pub hint: String,
    /// Whether it says `rel="prev"`.
    pub previous: bool,
    /// What its reading says as a pager's ([`pager_label`]).
    label: Label,
    /// A hash of the path description (Definition 9): only its equality
    /// with other links' matters.
    path: u64,
}

impl PageLink {
    /// What a reader takes the link to say: its text, or where it has none,
    /// its [`PageLink::hint`].
    pub fn reading(&self) -> &str {
        if self.text.trim().is_empty() {
            &self.hint
        } else {
            &self.text
        }
    }

    /// What it says as a pager's link ([`pager_label`] of its reading).
    pub fn label(&self) -> Label {
        self.label
    }

    /// The document it leads to (its v-ID).
    fn document(&self) -> String {
        self.target
            .as_ref()
            .map_or_else(|| self.href.clone(), document_key)
    }
}

/// A group of uniformly presented links and what it is for.
#[derive(Debug, Clone)]
pub struct LinkGroup {
    pub links: Vec<PageLink>,
    pub kind: LinkKind,
}

/// A page's links: its groups, and the links in no group.
#[derive(Debug, Clone)]
pub struct PageLinks {
    pub url: Url,
    pub groups: Vec<LinkGroup>,
    pub ungrouped: Vec<(PageLink, LinkKind)>,
}

/// A URL as a document: without fragment, and without an empty `?`.
pub fn document_key(url: &Url) -> String {
    let mut url = url.clone();
    url.set_fragment(None);
    if url.query() == Some("") {
        url.set_query(None);
    }
    url.into()
}

/// What [`path_hash`] gives for the path description `s`.
#[cfg(test)]
fn hash(s: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

fn start_tag(page: &Page, node: NodeId) -> String {
    let mut out = String::new();
    each_start_tag_piece(page, node, |piece| out.push_str(piece));
    out
}

/// The pieces of a node's start tag (`<a href="x">`), in order.
fn each_start_tag_piece(page: &Page, node: NodeId, mut piece: impl FnMut(&str)) {
    piece("<");
    piece(page.label_name(node));
    for (name, value) in page.attrs(node) {
        piece(" ");
        piece(name);
        piece("=\"");
        piece(value);
        piece("\"");
    }
    piece(">");
}

/// `hash(&path_description(page, a))`, without building the description:
/// the start tags are fed to the hasher piece by piece.
fn path_hash(page: &Page, a: NodeId) -> u64 {
    use std::hash::Hasher;
    let mut path: Vec<NodeId> = page.ancestors(a).collect();
    path.reverse();
    path.push(a);
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for node in path {
        each_start_tag_piece(page, node, |piece| h.write(piece.as_bytes()));
    }
    // What `str`'s `Hash` writes after the bytes.
    h.write_u8(0xff);
    h.finish()
}

/// What a link without text says through its attributes: its `title`,
/// its `aria-label`, its image's `alt`, else its `class` (`go-next-link`
/// reads "go next link").
fn hint(page: &Page, a: NodeId) -> String {
    let said = |node: NodeId, name: &str| {
        page.attribute(node, name)
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    };
    let alt = || {
        let img = page.label_id("img")?;
        page.descendants_with_label(a, img)
            .iter()
            .find_map(|&i| said(i, "alt"))
    };
    said(a, "title")
        .or_else(|| said(a, "aria-label"))
        .or_else(alt)
        .or_else(|| said(a, "class").map(|c| c.replace(['-', '_'], " ")))
        .unwrap_or_default()
}

/// The `<a href>` elements of a page, in document order (the order of
/// [`PageLink::index`]).
pub fn anchors(page: &Page) -> Vec<NodeId> {
    page.with_label(A)
        .iter()
        .copied()
        .filter(|&a| page.attribute(a, "href").is_some())
        .collect()
}

/// The path description (Definition 9) of every `<a href>` of a page, in
/// document order (the order of [`PageLink::index`]): the start tags from
/// the root down to the link's own.
pub fn path_descriptions(page: &Page) -> Vec<String> {
    anchors(page)
        .into_iter()
        .map(|a| path_description(page, a))
        .collect()
}

fn path_description(page: &Page, a: NodeId) -> String {
    let mut path: Vec<String> = page.ancestors(a).map(|n| start_tag(page, n)).collect();
    path.reverse();
    path.push(start_tag(page, a));
    path.concat()
}

impl PageLinks {
    /// The page's links in groups (Algorithm 2), pagers marked; menus are
    /// found by [`PageLinks::classify`].
    pub fn of(page: &Page, url: &Url) -> PageLinks {
        let nodes = anchors(page);
        // Links resolve against the page's `<base href>`, if it has one.
        let base = page
            .label_id("base")
            .and_then(|b| page.with_label(b).first().copied())
            .and_then(|b| page.attribute(b, "href"))
            .and_then(|href| url.join(href.trim()).ok())
            .unwrap_or_else(|| url.clone());
        let links: Vec<PageLink> = nodes
            .iter()
            .map(|&a| {
                let href = page.attribute(a, "href").unwrap_or("").trim().to_string();
                let target = base
                    .join(&href)
                    .ok()
                    .filter(|t| matches!(t.scheme(), "http" | "https"))
                    .map(|mut t| {
                        t.set_fragment(None);
                        t
                    });
                let rel = |want: &str| {
                    page.attribute(a, "rel")
                        .is_some_and(|r| r.split_whitespace().any(|w| w.eq_ignore_ascii_case(want)))
                };
                let text = page.text_of(a);
                let hint = if text.trim().is_empty() {
                    hint(page, a)
                } else {
                    String::new()
                };
                let mut link = PageLink {
                    href,
                    text,
                    target,
                    index: 0,
                    next: rel("next"),
                    hint,
                    previous: rel("prev") || rel("previous"),
                    label: Label::Other,
                    path: path_hash(page, a),
                };
                link.label = pager_label(link.reading());
                link
            })
            .collect();
        let mut links = links;
        for (i, l) in links.iter_mut().enumerate() {
            l.index = i;
        }
        let groups = group(page, &nodes, &links);
        let mut grouped = vec![false; links.len()];
        let mut out_groups: Vec<(usize, LinkGroup)> = Vec::new();
        for members in groups {
            let first = members[0];
            let group_links: Vec<PageLink> = members
                .iter()
                .map(|&k| {
                    grouped[k] = true;
                    links[k].clone()
                })
                .collect();
            let kind = if is_pager(url, &group_links) {
                LinkKind::Pagination
            } else {
                LinkKind::Content
            };
            out_groups.push((
                first,
                LinkGroup {
                    links: group_links,
                    kind,
                },
            ));
        }
        out_groups.sort_by_key(|(first, _)| *first);
        let mut ungrouped: Vec<(PageLink, LinkKind)> = links
            .into_iter()
            .zip(grouped)
            .filter(|(_, g)| !g)
            .map(|(link, _)| {
                let kind = if same_site(url, &link) && is_more_link(url, &link) {
                    LinkKind::Pagination
                } else {
                    LinkKind::Content
                };
                (link, kind)
            })
            .collect();
        let mut groups: Vec<LinkGroup> = out_groups.into_iter().map(|(_, g)| g).collect();
        take_stray_pager_links(url, &mut groups, &mut ungrouped);
        PageLinks {
            url: url.clone(),
            groups,
            ungrouped,
        }
    }

    /// Every link with its kind, in document order.
    pub fn classified(&self) -> Vec<(&PageLink, LinkKind)> {
        let mut all: Vec<(&PageLink, LinkKind)> = self
            .groups
            .iter()
            .flat_map(|g| g.links.iter().map(move |l| (l, g.kind)))
            .chain(self.ungrouped.iter().map(|(l, k)| (l, *k)))
            .collect();
        all.sort_by_key(|(l, _)| l.index);
        all
    }

    /// Marks the groups that are menus (§4), given the links of the pages
    /// the crawl read: `neighbours` answers for a document key.
    pub fn classify<'a>(&mut self, neighbours: &dyn Fn(&str) -> Option<&'a PageLinks>) {
        for g in 0..self.groups.len() {
            self.classify_group(g, neighbours);
        }
    }

    /// Checks group `g` again, as [`PageLinks::classify`] does (a crawl
    /// does so when a page it links to has been read); true when it is
    /// found a menu now.
    pub fn classify_group<'a>(
        &mut self,
        g: usize,
        neighbours: &dyn Fn(&str) -> Option<&'a PageLinks>,
    ) -> bool {
        let found = self.groups[g].kind == LinkKind::Content && is_navigation(self, g, neighbours);
        if found {
            self.groups[g].kind = LinkKind::Menu;
        }
        found
    }

    /// The documents of the page's host its group `g` links to (its
    /// neighbour documents, Definition 15), in order, each once.
    pub fn neighbour_documents(&self, g: usize) -> Vec<Url> {
        let own = document_key(&self.url);
        let mut seen = HashSet::new();
        self.groups[g]
            .links
            .iter()
            .filter(|l| same_origin(&self.url, l))
            .filter_map(|l| l.target.clone())
            .filter(|t| {
                let key = document_key(t);
                key != own && seen.insert(key)
            })
            .collect()
    }
}

/// The menus a crawl has recognised, per origin, so that a menu is checked
/// once per site: a group of a later page that harmonises (v) with a
/// known menu over at least half of its links is that menu.
#[derive(Debug, Default)]
pub struct KnownMenus {
    by_origin: HashMap<String, Vec<Vec<String>>>,
}

impl KnownMenus {
    /// Marks the groups of `page` that are menus seen before.
    pub fn recognise(&self, page: &mut PageLinks) {
        let Some(menus) = self.by_origin.get(&page.url.origin().ascii_serialization()) else {
            return;
        };
        for g in &mut page.groups {
            if g.kind != LinkKind::Content {
                continue;
            }
            let docs: Vec<String> = g.links.iter().map(PageLink::document).collect();
            let docs: Vec<&str> = docs.iter().map(String::as_str).collect();
            let known = menus.iter().any(|m| {
                let m: Vec<&str> = m.iter().map(String::as_str).collect();
                let w = harmony(&docs, &m);
                w >= 2 && w * 2 >= docs.len()
            });
            if known {
                g.kind = LinkKind::Menu;
            }
        }
    }

    /// Remembers the menus of `page`.
    pub fn remember(&mut self, page: &PageLinks) {
        let menus = self
            .by_origin
            .entry(page.url.origin().ascii_serialization())
            .or_default();
        for g in page.groups.iter().filter(|g| g.kind == LinkKind::Menu) {
            let docs: Vec<String> = g.links.iter().map(PageLink::document).collect();
            if !menus.contains(&docs) {
                menus.push(docs);
            }
        }
    }
}

/// What a crawl knows of the links of the pages it read: each page's
/// groups, checked against the pages read before it; when a page is read,
/// the groups of the earlier pages that link to it are checked again; and
/// the menus recognised, once per site ([`KnownMenus`]).
#[derive(Debug, Default)]
pub struct CrawlLinks {
    pages: HashMap<String, PageLinks>,
    /// Document → the (page, group) of the pages read that link to it.
    linked_from: HashMap<String, Vec<(String, usize)>>,
    menus: KnownMenus,
}

/// What reading one page tells a crawl.
#[derive(Debug)]
pub struct ReadLinks {
    /// The page's links, in document order, with their kinds.
    pub links: Vec<(Url, LinkKind)>,
    /// Links of earlier pages whose group turned out a menu now.
    pub menu_links: Vec<Url>,
}

impl CrawlLinks {
    /// Reads one page's links.
    pub fn read(&mut self, url: &Url, page: &Page) -> ReadLinks {
        self.read_links(PageLinks::of(page, url))
    }

    /// [`CrawlLinks::read`] of links already grouped.
    pub fn read_links(&mut self, mut links: PageLinks) -> ReadLinks {
        let key = document_key(&links.url);
        self.menus.recognise(&mut links);
        {
            let known = &self.pages;
            links.classify(&|k| known.get(k));
        }
        let classified = links
            .classified()
            .into_iter()
            .filter_map(|(l, kind)| Some((l.target.clone()?, kind)))
            .collect();
        for g in 0..links.groups.len() {
            for doc in links.neighbour_documents(g) {
                self.linked_from
                    .entry(document_key(&doc))
                    .or_default()
                    .push((key.clone(), g));
            }
        }
        self.menus.remember(&links);
        self.pages.insert(key.clone(), links);
        let mut menu_links = Vec::new();
        for (before, g) in self.linked_from.get(&key).cloned().unwrap_or_default() {
            let Some(mut earlier) = self.pages.remove(&before) else {
                continue;
            };
            let known = &self.pages;
            if earlier.classify_group(g, &|k| known.get(k)) {
                menu_links.extend(
                    earlier.groups[g]
                        .links
                        .iter()
                        .filter_map(|l| l.target.clone()),
                );
                self.menus.remember(&earlier);
            }
            self.pages.insert(before, earlier);
        }
        ReadLinks {
            links: classified,
            menu_links,
        }
    }

    /// The links of a page read, as they are classified now.
    pub fn page(&self, url: &Url) -> Option<&PageLinks> {
        self.pages.get(&document_key(url))
    }
}

fn same_origin(url: &Url, link: &PageLink) -> bool {
    link.target
        .as_ref()
        .is_some_and(|t| t.origin() == url.origin())
}

/// A host without its `www.`.
fn site(url: &Url) -> Option<&str> {
    url.host_str().map(|h| h.strip_prefix("www.").unwrap_or(h))
}

/// Whether a link stays on the page's site: the same host, with or
/// without `www.`, over `http` or `https` (a page saved from `https` whose
/// pager says `http://`).
fn same_site(url: &Url, link: &PageLink) -> bool {
    link.target
        .as_ref()
        .is_some_and(|t| site(t).is_some() && site(t) == site(url))
}

/// A pager: at least two links labelled as a pager's, half of the group's
/// links that lead anywhere (a `javascript:` "go to page" link leads
/// nowhere); at most two next and two previous links, besides those to
/// the last and the first page (a "Read more" under
/// every teaser is no pager, nor two "more" links to two places, nor a
/// calendar's links to the months before and after); and
/// page numbers that count pages: not the days of a month (a calendar:
/// links to the dates of those days, or many numbers none above 31 and no
/// next or previous link), not all years (a date archive), mostly
/// ascending (reply counts are not), leading to addresses alike but for
/// their numbers (the comment counts of articles lead to each its own
/// article), and two of them at most two apart where there is no next or
/// previous link (links to 20, 40 or 100 results per page are no pages).
fn is_pager(url: &Url, links: &[PageLink]) -> bool {
    let read = pager_readings(url, links);
    let pager = read.len();
    let leading = links.iter().filter(|l| l.target.is_some()).count();
    if pager < 2 || pager * 2 < leading {
        return false;
    }
    // "Last »" and "« First" lead to the ends, not to the next page.
    let count = |want: Label| {
        read.iter()
            .filter(|(link, l)| *l == want && pager_end(link.reading()).is_none())
            .count()
    };
    let (next, previous) = (count(Label::Next), count(Label::Previous));
    if next > 2 || previous > 2 {
        return false;
    }
    let numbered = numbered(&read);
    let numbers: Vec<u64> = numbered.iter().map(|(_, n)| *n).collect();
    if numbers.is_empty() && next >= 2 {
        // Two "more" links to different places: each of its item.
        let places: HashSet<String> = read
            .iter()
            .filter(|(_, l)| *l == Label::Next)
            .map(|(l, _)| l.document())
            .collect();
        if places.len() >= 2 {
            return false;
        }
    }
    if numbers.is_empty()
        && read
            .iter()
            .all(|(l, _)| l.target.as_ref().is_some_and(names_month))
    {
        // "« February 2016 · April 2016 »": a calendar's months.
        return false;
    }
    if numbers.len() >= MAX_PAGE_NUMBERS && numbers.iter().all(|&n| n <= 31) && next + previous == 0
    {
        return false;
    }
    if is_calendar(&numbered) {
        return false;
    }
    if numbers.len() >= 2 && numbers.iter().all(|n| (1900..=2100).contains(n)) {
        return false;
    }
    let pairs = numbers.windows(2).count();
    let ascending = numbers.windows(2).filter(|w| w[1] > w[0]).count();
    if pairs >= 2 && ascending * 10 < pairs * 7 {
        return false;
    }
    let targets: Vec<&Url> = numbered
        .iter()
        .filter_map(|(l, _)| l.target.as_ref())
        .collect();
    let alike = targets
        .iter()
        .enumerate()
        .filter(|(i, t)| {
            targets
                .iter()
                .enumerate()
                .any(|(j, u)| *i != j && addresses_alike(t, u))
        })
        .count();
    if targets.len() >= 2 && alike * 2 < targets.len() {
        return false;
    }
    let close = numbers.windows(2).any(|w| w[1] > w[0] && w[1] - w[0] <= 2);
    if numbers.len() >= 2 && !close && next + previous == 0 {
        return false;
    }
    true
}

/// An address's path and query.
fn path_and_query(url: &Url) -> String {
    let mut s = String::from(url.path());
    if let Some(q) = url.query() {
        s.push('?');
        s.push_str(q);
    }
    s
}

/// An address with its numbers taken out, each with the sign before it
/// (`/question-2.html` and `/question.html` are one template).
fn template(url: &Url) -> String {
    let s = path_and_query(url);
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        let digit_follows = chars.peek().is_some_and(char::is_ascii_digit);
        if c.is_ascii_digit() || (digit_follows && !c.is_alphanumeric()) {
            continue;
        }
        out.push(c);
    }
    out
}

/// The numbers of an address in order, each with whether it follows the
/// one before it by a single sign (`2016-03-01`, `2016/03/01`); a
/// run of eight or six digits that can be is read as a date (`20160301`)
/// or a month (`201603`).
fn numbers_of(url: &Url) -> Vec<(u64, bool)> {
    let mut out: Vec<(u64, bool)> = Vec::new();
    let push = |out: &mut Vec<(u64, bool)>, run: &str, gap: usize| {
        let joined = !out.is_empty() && gap == 1;
        let parse = |r: &str| r.parse::<u64>().unwrap_or(0);
        let year_month = |r: &str| {
            (1900..=2100).contains(&parse(&r[..4])) && (1..=12).contains(&parse(&r[4..6]))
        };
        if run.len() == 8 && year_month(run) {
            out.push((parse(&run[..4]), joined));
            out.push((parse(&run[4..6]), true));
            out.push((parse(&run[6..]), true));
        } else if run.len() == 6 && year_month(run) {
            out.push((parse(&run[..4]), joined));
            out.push((parse(&run[4..]), true));
        } else {
            out.push((run.parse().unwrap_or(u64::MAX), joined));
        }
    };
    // The runs of digits of a text, each with the signs before it.
    let runs = |out: &mut Vec<(u64, bool)>, text: &str, mut gap: usize| {
        for piece in text.split_inclusive(|c: char| !c.is_ascii_digit()) {
            let run = piece.trim_end_matches(|c: char| !c.is_ascii_digit());
            if !run.is_empty() {
                push(out, run, gap);
                gap = 0;
            }
            gap += piece.len() - run.len();
        }
    };
    runs(&mut out, url.path(), 0);
    // In a query, the values one after the other (`year=2016&month=3`).
    for (_, value) in url.query_pairs() {
        runs(&mut out, &value, 1);
    }
    out
}

/// The path without its last `/`.
fn trimmed_path(url: &Url) -> &str {
    let p = url.path();
    p.strip_suffix('/').unwrap_or(p)
}

/// Two addresses of one list's pages: alike but for their digits, of one
/// path (`/news/` and `/news/?page=3`), or one the other's path with more
/// after it (page 1 is often the list's bare
/// address: `/news/` beside `/news/page/2/`).
fn addresses_alike(a: &Url, b: &Url) -> bool {
    if site(a) != site(b) {
        return false;
    }
    if template(a) == template(b) {
        return true;
    }
    let (pa, pb) = (trimmed_path(a), trimmed_path(b));
    if pa == pb {
        return true;
    }
    let under = |short: &str, long: &str| {
        long.len() > short.len() && long.starts_with(short) && long[short.len()..].starts_with('/')
    };
    under(pa, pb) || under(pb, pa)
}

/// Whether an address names a date whose day is `day`: a year, a month
/// and that day one after the other (`/2016/03/01/`, `?m=20160301`,
/// `?year=2016&month=3&day=1`, `/day/2016-03-01`).
fn is_calendar_day(url: &Url, day: u64) -> bool {
    (1..=31).contains(&day)
        && numbers_of(url).windows(3).any(|w| {
            (1900..=2100).contains(&w[0].0)
                && (1..=12).contains(&w[1].0)
                && w[2].0 == day
                && w[1].1
                && w[2].1
        })
}

/// Whether an address ends in a year and a month (`/2016/02/`,
/// `?year=2016&month=4`, `?mini=2016-04`): a calendar's month.
fn names_month(url: &Url) -> bool {
    let numbers = numbers_of(url);
    numbers.len() >= 2 && {
        let (year, month) = (numbers[numbers.len() - 2], numbers[numbers.len() - 1]);
        (1900..=2100).contains(&year.0) && (1..=12).contains(&month.0) && month.1
    }
}

/// A calendar: most of its numbered links lead to the dates of their days.
fn is_calendar(numbered: &[(&PageLink, u64)]) -> bool {
    let days = numbered
        .iter()
        .filter(|(l, n)| l.target.as_ref().is_some_and(|t| is_calendar_day(t, *n)))
        .count();
    days >= 1 && days * 2 > numbered.len()
}

/// The links of a group read as a pager's, with what they say: those that
/// stay on the site and lead to another place than a spot of this page
/// (`#top`, footnotes `[1]`).
fn pager_readings<'l>(url: &Url, links: &'l [PageLink]) -> Vec<(&'l PageLink, Label)> {
    links
        .iter()
        .filter(|l| same_site(url, l) && !l.href.starts_with('#'))
        .map(|l| (l, l.label))
        .filter(|(_, l)| *l != Label::Other)
        .collect()
}

/// The numbered links among readings.
fn numbered<'l>(read: &[(&'l PageLink, Label)]) -> Vec<(&'l PageLink, u64)> {
    read.iter()
        .filter_map(|(link, l)| match l {
            Label::Page(n) => Some((*link, *n)),
            _ => None,
        })
        .collect()
}

/// Whether a link's address continues the page's: the same list with
/// another number (`/news/page/4/` on `/news/page/3/`, `?start=20` on
/// `?start=10`), or the page's path with a page number after it
/// (`/page/2/` on `/`, `/news/2` on `/news`; not `/2016/a-story/`).
fn continues(page: &Url, target: &Url) -> bool {
    if site(page) != site(target) || document_key(page) == document_key(target) {
        return false;
    }
    if template(page) == template(target) {
        return true;
    }
    if page.path() == target.path() {
        // The same path: the parameters that differ hold numbers.
        let pairs = |u: &Url| -> HashSet<(String, String)> {
            u.query_pairs()
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect()
        };
        let (mine, theirs) = (pairs(page), pairs(target));
        let changed: Vec<&(String, String)> = theirs.difference(&mine).collect();
        return !changed.is_empty()
            && changed
                .iter()
                .all(|(_, v)| v.chars().any(|c| c.is_ascii_digit()));
    }
    let (pp, tp) = (trimmed_path(page), trimmed_path(target));
    let Some(rest) = tp.strip_prefix(pp).and_then(|r| r.strip_prefix('/')) else {
        return false;
    };
    let segments: Vec<&str> = rest.split('/').collect();
    // The last segment a page number: "2", "page2", "seite-2", "p_2".
    let last = segments.last().copied().unwrap_or("");
    let letters = last.trim_end_matches(|c: char| c.is_ascii_digit());
    segments.len() <= 2
        && letters.len() < last.len()
        && letters.len() <= 6
        && letters
            .chars()
            .all(|c| c.is_ascii_alphabetic() || c == '-' || c == '_')
}

/// The links outside a pager group that a reader still takes for the
/// pager's: a next or previous link, or a page number, that leads where a
/// link of a pager leads (the "»" beside the numbers, laid out in another
/// box), a link marked `rel="next"` or `rel="prev"`, and a next or previous
/// link of a group of other links whose address continues the page's
/// ("Older posts" beside a "Home" link) and whose words the page does not
/// repeat under every teaser. Never a spot of the page itself (`#top`),
/// nor a calendar's "April »" (a link to a month). They leave their group (a group
/// left with links to fewer than two documents is none) and are
/// pagination.
fn take_stray_pager_links(
    url: &Url,
    groups: &mut Vec<LinkGroup>,
    ungrouped: &mut Vec<(PageLink, LinkKind)>,
) {
    let pager_targets: HashSet<String> = groups
        .iter()
        .filter(|g| g.kind == LinkKind::Pagination)
        .flat_map(|g| g.links.iter())
        .chain(
            ungrouped
                .iter()
                .filter(|(_, k)| *k == LinkKind::Pagination)
                .map(|(l, _)| l),
        )
        .filter(|l| same_site(url, l))
        .filter_map(|l| l.target.as_ref().map(document_key))
        .collect();
    // How often each reading occurs: a "Details »" under every teaser is
    // no pager's, whatever its address.
    let mut said: HashMap<String, usize> = HashMap::new();
    for l in groups
        .iter()
        .flat_map(|g| g.links.iter())
        .chain(ungrouped.iter().map(|(l, _)| l))
        .filter(|l| matches!(l.label, Label::Next | Label::Previous))
    {
        *said.entry(l.reading().trim().to_lowercase()).or_default() += 1;
    }
    let own = document_key(url);
    let stray = |l: &PageLink| -> bool {
        let Some(target) = l.target.as_ref() else {
            return false;
        };
        if !same_site(url, l) || l.href.starts_with('#') || document_key(target) == own {
            return false;
        }
        if l.next || l.previous {
            return true;
        }
        let label = l.label;
        if label == Label::Other {
            return false;
        }
        let once_or_twice = said
            .get(&l.reading().trim().to_lowercase())
            .is_some_and(|&n| n <= 2);
        pager_targets.contains(&document_key(target))
            || (matches!(label, Label::Next | Label::Previous)
                && once_or_twice
                && continues(url, target)
                && !names_month(target))
    };
    for (l, kind) in ungrouped.iter_mut() {
        if *kind == LinkKind::Content && stray(l) {
            *kind = LinkKind::Pagination;
        }
    }
    let mut kept = Vec::new();
    for mut g in std::mem::take(groups) {
        // A calendar's "April »" is no pager's.
        if g.kind == LinkKind::Pagination || is_calendar(&numbered(&pager_readings(url, &g.links)))
        {
            kept.push(g);
            continue;
        }
        let (out, stay): (Vec<PageLink>, Vec<PageLink>) =
            g.links.into_iter().partition(|l| stray(l));
        ungrouped.extend(out.into_iter().map(|l| (l, LinkKind::Pagination)));
        let documents: HashSet<String> = stay.iter().map(PageLink::document).collect();
        if documents.len() >= 2 {
            g.links = stay;
            kept.push(g);
        } else {
            ungrouped.extend(stay.into_iter().map(|l| (l, g.kind)));
        }
    }
    ungrouped.sort_by_key(|(l, _)| l.index);
    *groups = kept;
}

/// A group with this many page numbers or more, none above 31, and no next
/// or previous link is no pager (a calendar).
pub const MAX_PAGE_NUMBERS: usize = 20;

/// Words of links that lead to one item, not to the next page, though
/// they say "next" or "more": "Read more", "More info", "Next thread".
const ITEM_WORDS: &[&str] = &[
    "read",
    "reading",
    "continue",
    "continua",
    "leggere",
    "lire",
    "leer",
    "leyendo",
    "подробнее",
    "learn",
    "info",
    "details",
    "detail",
    "lesen",
    "weiterlesen",
    "about",
    "categories",
    "map",
    "tickets",
    "thread",
    "article",
    "post",
    "story",
    "topic",
    "artikel",
    "beitrag",
    "thema",
    "home",
    "top",
];

/// Words that make a link to older entries the next page of a list.
const OLDER: &[&str] = &["older", "ältere", "anciens", "anteriores"];

/// Next-page words and signs of languages beyond the navigator's.
const MORE_NEXT: &[&str] = &[
    "▶",
    "►",
    "następne",
    "następna",
    "далее",
    "вперёд",
    "вперед",
    "след",
    "следующая",
    "volgende",
    "successiva",
    "successivo",
    "próximo",
    "próxima",
    "seguinte",
    "次のページ",
    "次へ",
    "下一页",
    "下一頁",
    "다음",
    "sonraki",
    "nästa",
    "næste",
    "neste",
    "další",
];

/// Previous-page words and signs of languages beyond the navigator's,
/// and newer entries (the previous page of a list of older ones).
const MORE_PREVIOUS: &[&str] = &[
    "◀",
    "◄",
    "poprzednie",
    "poprzednia",
    "назад",
    "пред",
    "предыдущая",
    "vorige",
    "precedente",
    "前へ",
    "前のページ",
    "上一页",
    "上一頁",
    "이전",
    "önceki",
    "newer",
    "neuere",
];

/// Words of a link to the last page.
const LAST: &[&str] = &[
    "last",
    "letzte",
    "ende",
    "última",
    "ultima",
    "último",
    "ultimo",
    "dernière",
    "dernier",
    "ostatnia",
    "последняя",
    "laatste",
    "sista",
    "sidste",
    "siste",
    "poslední",
    "最後",
    "最后",
    "末页",
    "尾页",
    "마지막",
];

/// Words of a link to the first page.
const FIRST: &[&str] = &[
    "first",
    "erste",
    "anfang",
    "primera",
    "primero",
    "première",
    "premier",
    "prima",
    "primo",
    "pierwsza",
    "первая",
    "eerste",
    "första",
    "første",
    "první",
    "最初",
    "首页",
    "처음",
];

/// The end of a pager a link leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    First,
    Last,
}

/// Whether a pager link's words lead to its first or its last page: "Last
/// »", "Última", "« First", or an arrow against a bar, ">|", "|<". Such a
/// link reads as next or previous ([`pager_label`]) but is neither.
pub fn pager_end(text: &str) -> Option<End> {
    let lower = text.to_lowercase();
    let words: Vec<&str> = crate::words::tokens(&lower).collect();
    let signs: String = lower.chars().filter(|c| !c.is_whitespace()).collect();
    if words.iter().any(|w| LAST.contains(w)) || signs.ends_with('|') {
        Some(End::Last)
    } else if words.iter().any(|w| FIRST.contains(w)) || signs.starts_with('|') {
        Some(End::First)
    } else {
        None
    }
}

/// What a link's text says as a pager's: the navigator's reading
/// ([`crate::navigate`]), except for texts of more than four words (a
/// title that ends in "»"), links to one item ("Read more »", "Next
/// thread"), and with "Older posts" read as the next page.
pub fn pager_label(text: &str) -> Label {
    let lower = text.to_lowercase();
    let words: Vec<&str> = crate::words::tokens(&lower).collect();
    let said = |list: &[&str]| {
        words.iter().any(|w| list.contains(w))
            || list
                .iter()
                .any(|m| !m.chars().any(char::is_alphanumeric) && lower.contains(m))
    };
    if words.len() <= 3 && !words.iter().any(|w| ITEM_WORDS.contains(w)) {
        if said(MORE_PREVIOUS) {
            return Label::Previous;
        }
        if words.iter().any(|w| OLDER.contains(w)) || said(MORE_NEXT) {
            return Label::Next;
        }
    }
    // "1,390": a page number with a thousands separator.
    let bare = text.trim();
    if bare.len() <= 9
        && bare.contains(',')
        && bare.split(',').skip(1).all(|g| g.len() == 3)
        && bare.chars().all(|c| c.is_ascii_digit() || c == ',')
    {
        if let Ok(n) = bare.replace(',', "").parse() {
            return Label::Page(n);
        }
    }
    let label = crate::navigate::label(text);
    if label == Label::Other || matches!(label, Label::Page(_)) {
        return label;
    }
    let letters = words
        .iter()
        .filter(|w| w.chars().any(char::is_alphabetic))
        .count();
    if letters > 4 || words.iter().any(|w| ITEM_WORDS.contains(w)) {
        return Label::Other;
    }
    label
}

/// Words of a link to more results that may as well lead to more of
/// something else ("mehr" under a product: its page).
const MORE_WORDS: &[&str] = &["more", "mehr", "weitere", "plus", "más", "altri"];

/// A single link to the next page or to more results: its words, without
/// a number, leading off the page (not `#`); one that says only "more" must lead on from the page's own
/// address ("load more": `?offset=20`).
fn is_more_link(url: &Url, link: &PageLink) -> bool {
    let text = link.reading();
    if link.href.starts_with('#')
        || link.label == Label::Other
        || text.chars().any(|c| c.is_ascii_digit())
    {
        return false;
    }
    let lower = text.to_lowercase();
    let words: Vec<&str> = crate::words::tokens(&lower).collect();
    let only_more = !words.is_empty()
        && words.iter().any(|w| MORE_WORDS.contains(w))
        && !words
            .iter()
            .any(|w| !MORE_WORDS.contains(w) && pager_label(w) != Label::Other);
    !only_more || link.target.as_ref().is_some_and(|t| continues(url, t))
}

/// Algorithm 2: the groups, as lists of link indexes in document order.
fn group(page: &Page, nodes: &[NodeId], links: &[PageLink]) -> Vec<Vec<usize>> {
    let mut by_depth: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (k, &a) in nodes.iter().enumerate() {
        by_depth
            .entry(page.ancestors(a).count())
            .or_default()
            .push(k);
    }
    let mut groups = Vec::new();
    for (depth, mut free) in by_depth {
        let mut ancestor: HashMap<usize, NodeId> = free.iter().map(|&k| (k, nodes[k])).collect();
        let mut i = 1;
        while free.len() >= 2 && i <= depth {
            let mut sets: BTreeMap<NodeId, Vec<usize>> = BTreeMap::new();
            for &k in &free {
                let up = page.parent(ancestor[&k]).unwrap_or(ancestor[&k]);
                ancestor.insert(k, up);
                sets.entry(up).or_default().push(k);
            }
            for set in sets.into_values() {
                let destinations: HashSet<String> =
                    set.iter().map(|&k| links[k].document()).collect();
                if destinations.len() >= 2 {
                    free.retain(|k| !set.contains(k));
                    groups.push(set);
                }
            }
            i += 1;
        }
    }
    groups
}

/// x-IDs of a group's links, interned.
struct Ids {
    v: Vec<u32>,
    b: Vec<u32>,
    d: Vec<u32>,
}

#[derive(Default)]
struct Interner(HashMap<String, u32>);

impl Interner {
    fn id(&mut self, s: String) -> u32 {
        let next = self.0.len() as u32;
        *self.0.entry(s).or_insert(next)
    }

    fn ids(&mut self, g: &LinkGroup) -> Ids {
        let mut ids = Ids {
            v: Vec::new(),
            b: Vec::new(),
            d: Vec::new(),
        };
        for l in &g.links {
            let v = l.document();
            let b = format!("{v}\u{0}{}", l.text);
            let d = format!("{b}\u{0}{:x}", l.path);
            ids.v.push(self.id(v));
            ids.b.push(self.id(b));
            ids.d.push(self.id(d));
        }
        ids
    }
}

/// The x-harmony weight of two groups (Definition 12): the size of a
/// maximal matching of equal IDs when the longest common subsequence is
/// that long, else 0.
fn harmony<T: Eq + std::hash::Hash + Copy>(a: &[T], b: &[T]) -> usize {
    if a.is_empty() || b.is_empty() || a.len() > MAX_GROUP_LINKS || b.len() > MAX_GROUP_LINKS {
        return 0;
    }
    let mut counts: HashMap<T, (usize, usize)> = HashMap::new();
    for &x in a {
        counts.entry(x).or_default().0 += 1;
    }
    for &x in b {
        counts.entry(x).or_default().1 += 1;
    }
    let matching: usize = counts.values().map(|&(x, y)| x.min(y)).sum();
    if matching == 0 {
        return 0;
    }
    let mut prev = vec![0usize; b.len() + 1];
    let mut row = vec![0usize; b.len() + 1];
    for &x in a {
        for (j, &y) in b.iter().enumerate() {
            row[j + 1] = if x == y {
                prev[j] + 1
            } else {
                prev[j + 1].max(row[j])
            };
        }
        std::mem::swap(&mut prev, &mut row);
    }
    if prev[b.len()] == matching {
        matching
    } else {
        0
    }
}

/// A group of a neighbour document: its weight with the reference (v + b +
/// d), its d-weight, its IDs.
type Candidate<'g> = (usize, usize, Ids, &'g LinkGroup);

/// Whether group `g` of `page` is a navigation or an outsider (§4).
fn is_navigation<'a>(
    page: &PageLinks,
    g: usize,
    neighbours_of: &dyn Fn(&str) -> Option<&'a PageLinks>,
) -> bool {
    let reference = &page.groups[g];
    if reference.links.len() > MAX_GROUP_LINKS {
        return false;
    }
    let neighbours = page.neighbour_documents(g);
    let docs: Vec<&PageLinks> = neighbours
        .iter()
        .filter_map(|t| neighbours_of(&document_key(t)))
        .collect();
    if docs.is_empty() {
        return false;
    }
    let mut interner = Interner::default();
    let ref_ids = interner.ids(reference);
    // Per neighbour document: its groups that v-harmonise with the
    // reference over at least two links, with their v-, b- and d-weights.
    let mut per_doc: Vec<(String, Vec<Candidate<'_>>)> = Vec::new();
    for doc in &docs {
        let list: Vec<Candidate<'_>> = doc
            .groups
            .iter()
            .filter(|other| other.kind != LinkKind::Pagination)
            .filter_map(|other| {
                let ids = interner.ids(other);
                let v = harmony(&ref_ids.v, &ids.v);
                (v >= 2).then(|| {
                    let d = harmony(&ref_ids.d, &ids.d);
                    (v + harmony(&ref_ids.b, &ids.b) + d, d, ids, other)
                })
            })
            .collect();
        if !list.is_empty() {
            per_doc.push((document_key(&doc.url), list));
        }
    }
    // Where neighbour documents are left out, the rest must present the
    // links as the reference does (d-harmony).
    let strict = per_doc.len() < neighbours.len();
    let mut candidates: Vec<Vec<(Ids, &LinkGroup)>> = Vec::new();
    let mut keys: Vec<String> = vec![document_key(&page.url)];
    for (key, mut list) in per_doc {
        if strict {
            list.retain(|(_, d, _, _)| *d >= 2);
        }
        if list.is_empty() {
            continue;
        }
        list.sort_by_key(|(w, _, _, _)| std::cmp::Reverse(*w));
        candidates.push(list.into_iter().map(|(_, _, ids, g)| (ids, g)).collect());
        keys.push(key);
    }
    if candidates.is_empty() {
        return false;
    }
    let mut search = Search {
        candidates: &candidates,
        keys: &keys,
        reference,
        chosen: Vec::new(),
        tried: 0,
        strict,
    };
    search.run()
}

/// The backtracking search for a harmonic combination whose link
/// structure is a navigation graph.
struct Search<'s, 'g> {
    candidates: &'s [Vec<(Ids, &'g LinkGroup)>],
    /// Document keys: the reference page, then the neighbour documents.
    keys: &'s [String],
    reference: &'s LinkGroup,
    chosen: Vec<usize>,
    tried: usize,
    /// Whether the groups must d-harmonise (not only v-harmonise).
    strict: bool,
}

impl Search<'_, '_> {
    fn run(&mut self) -> bool {
        // Explicit stack of the next candidate to try per document.
        let mut next = vec![0usize];
        while let Some(&at) = next.last() {
            let doc = next.len() - 1;
            if self.tried >= MAX_COMBINATIONS {
                return false;
            }
            if at >= self.candidates[doc].len() {
                next.pop();
                self.chosen.pop();
                continue;
            }
            if let Some(n) = next.last_mut() {
                *n += 1;
            }
            let ids = &self.candidates[doc][at].0;
            let strict = self.strict;
            let fits = self.chosen.iter().enumerate().all(|(d, &c)| {
                let other = &self.candidates[d][c].0;
                if strict {
                    harmony(&other.d, &ids.d) > 0
                } else {
                    harmony(&other.v, &ids.v) > 0
                }
            });
            if !fits {
                continue;
            }
            self.chosen.truncate(doc);
            self.chosen.push(at);
            if self.chosen.len() == self.candidates.len() {
                self.tried += 1;
                if self.structure_holds() {
                    return true;
                }
                self.chosen.pop();
            } else {
                next.push(0);
            }
        }
        false
    }

    /// §4.3 and Algorithm 4 for the chosen combination.
    fn structure_holds(&self) -> bool {
        let groups: Vec<&LinkGroup> = std::iter::once(self.reference)
            .chain(
                self.chosen
                    .iter()
                    .enumerate()
                    .map(|(d, &c)| self.candidates[d][c].1),
            )
            .collect();
        let links_to = |g: &LinkGroup, key: &str| g.links.iter().any(|l| l.document() == key);
        let back = groups[1..].iter().any(|g| links_to(g, &self.keys[0]));
        let nodes: Vec<usize> = if back {
            (0..groups.len()).collect()
        } else {
            (1..groups.len()).collect()
        };
        let edges: Vec<Vec<bool>> = (0..groups.len())
            .map(|i| {
                (0..groups.len())
                    .map(|j| i != j && links_to(groups[i], &self.keys[j]))
                    .collect()
            })
            .collect();
        is_navigation_graph(&nodes, &edges)
    }
}

/// Algorithm 4 (*istNavigationsgraph*) without recursion: the main
/// navigation nodes (Algorithm 3), the strongly connected components
/// without the edges among them, one main node in each, and the same for
/// each component without its main node.
fn is_navigation_graph(nodes: &[usize], edges: &[Vec<bool>]) -> bool {
    let mut work: Vec<Vec<usize>> = vec![nodes.to_vec()];
    while let Some(vs) = work.pop() {
        if vs.is_empty() {
            continue;
        }
        let main: Vec<usize> = vs
            .iter()
            .copied()
            .filter(|&v| vs.iter().all(|&u| u == v || edges[u][v]))
            .collect();
        if main.is_empty() {
            return false;
        }
        let edge = |u: usize, v: usize| edges[u][v] && !(main.contains(&u) && main.contains(&v));
        let components = strong_components(&vs, &edge);
        if components.len() != main.len() {
            return false;
        }
        for component in components {
            let mains: Vec<usize> = component
                .iter()
                .copied()
                .filter(|v| main.contains(v))
                .collect();
            if mains.len() != 1 {
                return false;
            }
            if component.len() > 1 {
                work.push(component.into_iter().filter(|v| *v != mains[0]).collect());
            }
        }
    }
    true
}

/// The strongly connected components of the graph on `vs` (Kosaraju, with
/// explicit stacks).
fn strong_components(vs: &[usize], edge: &dyn Fn(usize, usize) -> bool) -> Vec<Vec<usize>> {
    let mut order = Vec::new();
    let mut seen: HashSet<usize> = HashSet::new();
    for &s in vs {
        if !seen.insert(s) {
            continue;
        }
        let mut stack = vec![(s, 0usize)];
        while let Some((v, i)) = stack.pop() {
            if let Some(&u) = vs[i..].iter().find(|&&u| edge(v, u) && !seen.contains(&u)) {
                let at = vs.iter().position(|&x| x == u).unwrap_or(vs.len());
                stack.push((v, at + 1));
                seen.insert(u);
                stack.push((u, 0));
            } else {
                order.push(v);
            }
        }
    }
    let mut assigned: HashSet<usize> = HashSet::new();
    let mut components = Vec::new();
    for &s in order.iter().rev() {
        if !assigned.insert(s) {
            continue;
        }
        let mut component = vec![s];
        let mut stack = vec![s];
        while let Some(v) = stack.pop() {
            for &u in vs {
                if edge(u, v) && assigned.insert(u) {
                    component.push(u);
                    stack.push(u);
                }
            }
        }
        components.push(component);
    }
    components
}

#[cfg(test)]
mod tests;

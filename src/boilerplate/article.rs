//! The main text of a single page: the article, without the menus, teasers,
//! share buttons, comments and footers around it, found from the page alone.
//!
//! The case of most ordinary pages a crawl keeps: the site gives no second
//! page of the same layout to compare with. The method scores the page's
//! text blocks by what they look like, in one pass over the page tree and
//! one back:
//!
//! - **What is never content**: scripts, styles, forms' controls, `nav`,
//!   `aside`, `footer`, `header`, `h1` (the headline is the page's title,
//!   not its body), figures and their captions, hidden elements (`hidden`, `aria-hidden`, `display:
//!   none`; not the content a React server streams in
//!   `<div hidden id="S:0">` for its script to move into place, nor the
//!   folded panels of accordions and tabs, `role=region|tabpanel`), navigation roles (`role=navigation|menu|complementary|dialog`),
//!   and elements whose `class` or `id` names a part that is not the
//!   article (`comment`, `sidebar`, `related`, `share`, `footer`, `menu`,
//!   `promo`, …) unless it also names the article (`article`, `content`,
//!   `body`, `main`, …).
//! - **Paragraphs**: the text directly in a block element (its inline text,
//!   through `a`, `b`, `span`, …) is a paragraph when it has at least 25
//!   characters. It scores `1 + commas + min(chars / 100, 3)`, less the
//!   share of its characters inside links, and gives that score to the
//!   element that holds it, half to the one above, and a third, a sixth, …
//!   further up: paragraphs that belong together raise the same container.
//! - **The container**: each scored element adds a bonus for its tag (`div`
//!   +5, `article` +10, lists and headings negative), for what its `class`
//!   and `id` say (±25), and for the article's own markup
//!   (`itemprop=articleBody` +50), and is weighed by `1 - link density`.
//!   The best is the article's container; its siblings join it when they
//!   score at least a fifth of it or are long paragraphs with few links.
//! - **An article in sibling blocks** (a guide's sections, a post's
//!   blocks) is read whole: the container gives way to its highest
//!   ancestor whose text beyond it is prose (at least 60 % in paragraphs
//!   and headings, at most 20 % in links), at least a quarter of the
//!   container's text, in two paragraphs or more unless it outweighs the
//!   container (a dateline and a standfirst above a story are not more of
//!   it); the container is then not cleaned out of it. The climb ends at
//!   the page's own `<article>`. Where the container is a paragraph or two
//!   (a section of a product's page), the link lists in the ancestor
//!   (menus, a footer's columns), which the cleaning drops, are not
//!   counted as what it adds.
//! - **Cleaning inside it**: lists, tables, `div`s and `section`s with
//!   fewer than 10 commas are dropped when their link density says they are
//!   link lists (over 0.2, or over 0.5 where their name says content), or
//!   when they hold more list items than paragraphs and little text, in
//!   links or in items of under 20 characters (a spec sheet's lines, none
//!   a link, are the article's); and
//!   those whose score is negative (a name such as `widget`, `scroll` or
//!   `meta`, a list's tag) unless they are the article all the same: a
//!   wrapper holding most of its part's text, a list that holds at least
//!   as many paragraphs as items (one or more) or whose items are
//!   sentences (40 characters or more on average, few links), or prose (3 paragraphs, 500 characters, few links) where
//!   most of the part's text has such names (a page builder calls every
//!   block `elementor-widget`). A name that says "not the article"
//!   outright (`comment`, `share`, …) is dropped whatever it holds.
//! - **A forum's thread** is read whole: its replies, three or more
//!   siblings of one tag named `comment`, each with prose, few links, are
//!   added to the first post found as the article when that is no longer
//!   than they are on average and no `<article>` holds it without them (an
//!   article outweighs the comments below it, and its own element bounds
//!   it).
//! - **No paragraph at all** (a page of a word, a price list): the text of
//!   the page, less what is never content and the link lists, is its text.
//! - **A few words only** (under 250 bytes, trafilatura's bound): where the
//!   page is a listing, a shop's cards or a forum's index of boards, what
//!   is found is a tile or a line of statistics, the rest cut away as link
//!   lists; the page's text, less only what is never content (its `nav`,
//!   `header`, `footer`, hidden parts, …), is taken instead when it holds
//!   more than twice as much text outside links; under 600 bytes (a
//!   board's statistics, one topic's teaser), more than five times as
//!   much, unless what is found is in the page's own `<article>` (a short
//!   post above a long discussion).
//!
//! The scores are those of Arc90's Readability (as in Mozilla's
//! Readability.js), with two changes measured on the article-extraction
//! benchmark (`gather bench text`): a paragraph's score is weighed by its own
//! link density, and the structural elements of HTML5 (`header`, `footer`,
//! `nav`, `aside`) and `h1` are left out before scoring.

use crate::page::{NodeId, Page, PCDATA};

/// A paragraph has at least this many characters.
const MIN_PARAGRAPH_CHARS: usize = 25;
/// How many of the best-scoring elements are weighed against each other.
const TOP_CANDIDATES: usize = 5;
/// Candidates close to the top one that make their ancestor the article.
const MIN_CLOSE_CANDIDATES: usize = 3;
/// A main text shorter than this is looked for again without leaving out
/// elements by their names.
const RETRY_BELOW_BYTES: usize = 500;
/// A main text shorter than this, found even so, gives way to the page's
/// text, less what is never content, when that holds more than twice as
/// much text outside links (trafilatura's `min_extracted_size`).
const SHORT_TEXT_BYTES: usize = 250;
/// A main text shorter than this gives way to the page's text, less what
/// is never content, when that holds more than five times as much text
/// outside links.
const FEW_LINES_BYTES: usize = 600;
/// A wrapper inside the article that holds most of its part's text is kept
/// when its name does not count against it, or when it holds at least this
/// many characters (a builder's `…-bg-attachment-scroll` row).
const WRAPPER_MIN_CHARS: u32 = 500;
/// An article is widened to an ancestor that adds at least this many
/// characters of prose.
const WIDEN_MIN_CHARS: u32 = 80;
/// A list whose items hold this many characters on average is a list of
/// sentences.
const SENTENCE_ITEM_CHARS: u32 = 40;
/// A forum's thread has at least this many replies.
const THREAD_MIN_POSTS: usize = 3;
/// How far up a paragraph's score is handed.
const SCORE_LEVELS: usize = 5;

/// Elements that never hold the article's text.
const NEVER: &[&str] = &[
    "script",
    "style",
    "noscript",
    "template",
    "svg",
    "iframe",
    "button",
    "select",
    "textarea",
    "input",
    "nav",
    "aside",
    "footer",
    "header",
    "h1",
    "head",
    "title",
    "meta",
    "link",
    "object",
    "embed",
    "canvas",
    "map",
    "dialog",
    "menu",
    "figure",
    "figcaption",
];

/// Element names whose boundaries do not end a paragraph.
const INLINE: &[&str] = &[
    "a", "abbr", "b", "bdi", "bdo", "big", "cite", "code", "data", "dfn", "em", "font", "i", "kbd",
    "mark", "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u",
    "var", "wbr", "label", "nobr", "ins", "del", "img", "br",
];

/// Words in `class` or `id` of elements that are not the article.
const UNLIKELY: &[&str] = &[
    "-ad-",
    "ai2html",
    "banner",
    "breadcrumb",
    "combx",
    "comment",
    "community",
    "cover-wrap",
    "disqus",
    "extra",
    "footer",
    "gdpr",
    "header",
    "legends",
    "menu",
    "related",
    "remark",
    "replies",
    "rss",
    "shoutbox",
    "sidebar",
    "skyscraper",
    "social",
    "sponsor",
    "supplemental",
    "ad-break",
    "agegate",
    "pagination",
    "pager",
    "popup",
    "yom-remote",
    "share",
    "newsletter",
    "subscribe",
    "cookie",
    "byline",
    "dateline",
    "timestamp",
    "caption",
    "advert",
    "promo",
];

/// Words in `class` or `id` that keep an element with an unlikely word.
const MAYBE: &[&str] = &[
    "and", "article", "body", "column", "content", "main", "mathjax", "shadow",
];

/// Words in `class` or `id` that count against an element (-25).
const NEGATIVE: &[&str] = &[
    "-ad-",
    "hidden",
    "banner",
    "combx",
    "comment",
    "com-",
    "contact",
    "footer",
    "gdpr",
    "masthead",
    "media",
    "meta",
    "outbrain",
    "promo",
    "related",
    "scroll",
    "share",
    "shoutbox",
    "sidebar",
    "skyscraper",
    "sponsor",
    "shopping",
    "tags",
    "widget",
    "caption",
    "byline",
    "author",
    "newsletter",
];

/// Words in `class` or `id` that count for an element (+25).
const POSITIVE: &[&str] = &[
    "article", "body", "content", "entry", "hentry", "h-entry", "main", "page", "post", "text",
    "blog", "story",
];

/// Per element, what its subtree holds (text outside left-out elements).
#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    /// Characters of text (white space collapsed).
    chars: u32,
    /// Of which inside links.
    link_chars: u32,
    commas: u32,
}

impl Counts {
    fn add(&mut self, o: Counts) {
        self.chars += o.chars;
        self.link_chars += o.link_chars;
        self.commas += o.commas;
    }

    fn link_density(&self) -> f64 {
        if self.chars == 0 {
            0.0
        } else {
            self.link_chars as f64 / self.chars as f64
        }
    }

    /// Characters of text outside links.
    fn outside_links(&self) -> u32 {
        self.chars.saturating_sub(self.link_chars)
    }
}

/// The main text of a page, its paragraphs separated by a line break; empty
/// when the page has no text.
pub fn main_text(page: &Page) -> String {
    let strict = Scorer::new(page, true);
    let text = strict.text();
    let lenient = Scorer::new(page, false);
    let best = if text.len() >= RETRY_BELOW_BYTES {
        text
    } else {
        // Too little: perhaps a name said "not the article" wrongly (a
        // wrapper called `page-ad-margins`); again, trusting only the
        // markup.
        let lenient_text = lenient.text();
        if lenient_text.len() > text.len() {
            lenient_text
        } else {
            text
        }
    };
    if let Some(thread) = strict.thread(&lenient, &best) {
        return thread;
    }
    // Still a few words (a listing's tiles, a shop's cards, a forum's
    // index of boards, all of them cut away as link lists or teasers): the
    // page's text, less only what is never content, is more of it when it
    // holds more than twice as much text outside links (a short story
    // between link lists is the story alone); a few lines more, when it
    // holds more than five times as much (a board's statistics, one
    // topic's teaser, on a forum's index), unless they are the page's own
    // `<article>` (a short post above a long discussion).
    let c = lenient.all[0];
    let outside_links = c.outside_links() as usize;
    let found = best.chars().count();
    let few_lines = || {
        best.len() < FEW_LINES_BYTES
            && outside_links > found * 5
            && strict
                .top()
                .is_none_or(|(top, _)| strict.article_of(top).is_none())
    };
    if (best.len() < SHORT_TEXT_BYTES && outside_links > found * 2) || few_lines() {
        return lenient.all_text();
    }
    best
}

struct Scorer<'p> {
    page: &'p Page,
    /// Whether elements are left out by what their names say.
    strict: bool,
    body: NodeId,
    end: NodeId,
    /// Left out with its subtree.
    removed: Vec<bool>,
    /// Counts of the whole subtree.
    all: Vec<Counts>,
    /// Counts of the text directly in the element (through inline markup).
    own: Vec<Counts>,
    /// Paragraph-like elements below (p, pre, …) and list items.
    paragraphs: Vec<u32>,
    items: Vec<u32>,
    /// Characters below in paragraphs and headings (`p`, `pre`, `h2`–`h6`).
    prose: Vec<u32>,
    /// `all` and `prose` less the link lists below (menus, a footer's
    /// columns of links), which the cleaning drops.
    lean: Vec<Counts>,
    lean_prose: Vec<u32>,
    score: Vec<f64>,
    scored: Vec<bool>,
}

fn index(n: NodeId, body: NodeId) -> usize {
    (n.index_u32() - body.index_u32()) as usize
}

fn words_of(attr: Option<&str>) -> String {
    attr.unwrap_or("").to_ascii_lowercase()
}

fn has_any(hay: &str, needles: &[&str]) -> bool {
    !hay.is_empty() && needles.iter().any(|n| hay.contains(n))
}

/// Whether a `hidden` element is the content a React server streams after
/// the page's shell (`<div hidden id="S:0">`), which its script moves into
/// place at once: what the reader sees, not hidden text.
fn streamed(page: &Page, n: NodeId) -> bool {
    page.attribute(n, "id")
        .and_then(|id| id.strip_prefix("S:"))
        .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
}

fn is_comma(c: char) -> bool {
    matches!(
        c,
        ',' | '\u{060C}'
            | '\u{FE50}'
            | '\u{FE10}'
            | '\u{FE11}'
            | '\u{2E41}'
            | '\u{2E34}'
            | '\u{2E32}'
            | '\u{FF0C}'
            | '\u{3001}'
    )
}

impl<'p> Scorer<'p> {
    fn new(page: &'p Page, strict: bool) -> Scorer<'p> {
        let body = page.body();
        let end = page.subtree_end(body);
        let n = (end.index_u32() - body.index_u32()) as usize;
        let mut s = Scorer {
            page,
            strict,
            body,
            end,
            removed: vec![false; n],
            all: vec![Counts::default(); n],
            own: vec![Counts::default(); n],
            paragraphs: vec![0; n],
            items: vec![0; n],
            prose: vec![0; n],
            lean: vec![Counts::default(); n],
            lean_prose: vec![0; n],
            score: vec![0.0; n],
            scored: vec![false; n],
        };
        s.count();
        s.score_paragraphs();
        s
    }

    fn at(&self, n: NodeId) -> usize {
        index(n, self.body)
    }

    fn class_and_id(&self, n: NodeId) -> (String, String) {
        (
            words_of(self.page.attribute(n, "class")),
            words_of(self.page.attribute(n, "id")),
        )
    }

    /// Whether an element is left out with its subtree (see the module docs).
    fn never(&self, n: NodeId) -> bool {
        let name = self.page.label_name(n);
        if NEVER.contains(&name) {
            return true;
        }
        if ((self.page.attribute(n, "hidden").is_some() && !streamed(self.page, n))
            || self
                .page
                .attribute(n, "aria-hidden")
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("true")))
            && !self.folded(n)
        {
            return true;
        }
        if let Some(style) = self.page.attribute(n, "style") {
            let style: String = style
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect::<String>()
                .to_ascii_lowercase();
            if style.contains("display:none") || style.contains("visibility:hidden") {
                return true;
            }
        }
        if let Some(role) = self.page.attribute(n, "role") {
            let role = role.trim().to_ascii_lowercase();
            if matches!(
                role.as_str(),
                "navigation" | "menu" | "menubar" | "complementary" | "dialog" | "alertdialog"
            ) {
                return true;
            }
        }
        if !self.strict || matches!(name, "body" | "a" | "article" | "main") {
            return false;
        }
        self.unlikely(n)
    }

    /// Whether a hidden element is a folded panel (an accordion's, a tab's:
    /// `role=region|tabpanel`), whose text the reader opens with a click.
    fn folded(&self, n: NodeId) -> bool {
        self.page.attribute(n, "role").is_some_and(|r| {
            let r = r.trim();
            r.eq_ignore_ascii_case("region") || r.eq_ignore_ascii_case("tabpanel")
        })
    }

    /// Whether the element's `class` or `id` names a part that is not the
    /// article (and not the article as well).
    fn unlikely(&self, n: NodeId) -> bool {
        let (class, id) = self.class_and_id(n);
        let names = format!("{class} {id}");
        has_any(&names, UNLIKELY) && !has_any(&names, MAYBE)
    }

    /// One pass down: what is left out, and the text counts.
    fn count(&mut self) {
        let page = self.page;
        // Open links and open blocks (block element, end).
        let mut links: Vec<NodeId> = Vec::new();
        let mut blocks: Vec<(NodeId, NodeId)> = vec![(self.body, self.end)];
        let mut i = self.body.next();
        while i < self.end {
            while links.last().is_some_and(|&e| e <= i) {
                links.pop();
            }
            while blocks.len() > 1 && blocks.last().is_some_and(|&(_, e)| e <= i) {
                blocks.pop();
            }
            if page.label_of(i) == PCDATA {
                let raw = page.pcdata(i).unwrap_or("");
                let mut c = Counts::default();
                let mut words = 0u32;
                for w in raw.split_whitespace() {
                    c.chars += w.chars().count() as u32;
                    c.commas += w.chars().filter(|&ch| is_comma(ch)).count() as u32;
                    words += 1;
                }
                c.chars += words.saturating_sub(1);
                if !links.is_empty() {
                    c.link_chars = c.chars;
                }
                let at = self.at(i);
                self.all[at] = c;
                self.lean[at] = c;
                let block = self.at(blocks.last().map_or(self.body, |b| b.0));
                self.own[block].add(c);
                i = i.next();
                continue;
            }
            if self.never(i) {
                let at = self.at(i);
                self.removed[at] = true;
                i = page.subtree_end(i);
                continue;
            }
            let name = page.label_name(i);
            if name == "a" {
                links.push(page.subtree_end(i));
            }
            if !INLINE.contains(&name) {
                blocks.push((i, page.subtree_end(i)));
            }
            i = i.next();
        }
        // One pass back: subtree counts.
        let mut j = self.end;
        while j > self.body.next() {
            j = NodeId::from_u32(j.index_u32() - 1);
            let at = self.at(j);
            if self.removed[at] {
                continue;
            }
            if let Some(p) = page.parent(j) {
                if p >= self.body {
                    let pa = self.at(p);
                    let c = self.all[at];
                    self.all[pa].add(c);
                    let name = page.label_name(j);
                    let (par, items) = (self.paragraphs[at], self.items[at]);
                    self.paragraphs[pa] += par + u32::from(matches!(name, "p" | "pre"));
                    self.items[pa] += items + u32::from(name == "li");
                    let prose_tag = matches!(name, "p" | "pre" | "h2" | "h3" | "h4" | "h5" | "h6");
                    self.prose[pa] += if prose_tag { c.chars } else { self.prose[at] };
                    if !self.link_list(j, c) {
                        let lean = self.lean[at];
                        self.lean[pa].add(lean);
                        self.lean_prose[pa] += if prose_tag {
                            lean.chars
                        } else {
                            self.lean_prose[at]
                        };
                    }
                }
            }
        }
    }

    /// Whether a block holding `c` is a list of links that the cleaning
    /// drops (see [`Scorer::cleaned`]).
    fn link_list(&self, n: NodeId, c: Counts) -> bool {
        let ld = c.link_density();
        matches!(
            self.page.label_name(n),
            "div" | "section" | "ul" | "ol" | "table" | "dl"
        ) && c.commas < 10
            && (ld > 0.5 || (ld > 0.2 && self.weight(n) < 25.0))
    }

    /// The bonus of an element's tag, name and markup.
    fn bonus(&self, n: NodeId) -> f64 {
        let name = self.page.label_name(n);
        let tag = match name {
            "article" => 10.0,
            "div" | "main" => 5.0,
            "pre" | "td" | "blockquote" => 3.0,
            "address" | "ol" | "ul" | "dl" | "dd" | "dt" | "li" | "form" => -3.0,
            "h2" | "h3" | "h4" | "h5" | "h6" | "th" => -5.0,
            _ => 0.0,
        };
        let itemprop = self
            .page
            .attribute(n, "itemprop")
            .is_some_and(|v| v.to_ascii_lowercase().contains("articlebody"));
        tag + self.weight(n) + if itemprop { 50.0 } else { 0.0 }
    }

    /// What `class` and `id` say: ±25 each.
    fn weight(&self, n: NodeId) -> f64 {
        let (class, id) = self.class_and_id(n);
        let mut w = 0.0;
        for v in [class, id] {
            if has_any(&v, NEGATIVE) {
                w -= 25.0;
            }
            if has_any(&v, POSITIVE) {
                w += 25.0;
            }
        }
        w
    }

    fn score_paragraphs(&mut self) {
        let page = self.page;
        let mut i = self.body.next();
        while i < self.end {
            let at = self.at(i);
            if page.label_of(i) == PCDATA {
                i = i.next();
                continue;
            }
            if self.removed[at] {
                i = page.subtree_end(i);
                continue;
            }
            let own = self.own[at];
            if own.chars as usize >= MIN_PARAGRAPH_CHARS {
                let name = page.label_name(i);
                let score = (1.0 + own.commas as f64 + (own.chars as f64 / 100.0).floor().min(3.0))
                    * (1.0 - own.link_density());
                // A paragraph element gives its score to its container; a
                // container with loose text is that text's container.
                let mixed = self.all[at].chars > own.chars
                    && !matches!(name, "p" | "pre" | "li" | "td" | "blockquote" | "dd");
                let start = if mixed { Some(i) } else { page.parent(i) };
                let chain = start
                    .into_iter()
                    .chain(start.into_iter().flat_map(|s| page.ancestors(s)));
                for (level, a) in chain.take(SCORE_LEVELS).enumerate() {
                    if a < self.body {
                        break;
                    }
                    let aa = self.at(a);
                    if !self.scored[aa] {
                        self.scored[aa] = true;
                        self.score[aa] = self.bonus(a);
                    }
                    let divider = match level {
                        0 => 1.0,
                        1 => 2.0,
                        l => l as f64 * 3.0,
                    };
                    self.score[aa] += score / divider;
                }
            }
            i = i.next();
        }
    }

    fn final_score(&self, n: NodeId) -> f64 {
        let at = self.at(n);
        self.score[at] * (1.0 - self.all[at].link_density())
    }

    /// The element that holds the article, and the best-scoring element
    /// within it (itself, unless the article was widened).
    fn top(&self) -> Option<(NodeId, NodeId)> {
        let mut best: Vec<(f64, NodeId)> = Vec::with_capacity(TOP_CANDIDATES + 1);
        for (k, &scored) in self.scored.iter().enumerate() {
            if !scored {
                continue;
            }
            let n = NodeId::from_u32(self.body.index_u32() + k as u32);
            let s = self.final_score(n);
            let at = best.partition_point(|&(b, _)| b >= s);
            if at < TOP_CANDIDATES {
                best.insert(at, (s, n));
                best.truncate(TOP_CANDIDATES);
            }
        }
        let &(top_score, mut top) = best.first()?;
        // An article cut into chunks (cards, grid cells): when three or more
        // of the best candidates score nearly as high as the top one, their
        // common ancestor holds the article.
        let close: Vec<NodeId> = best[1..]
            .iter()
            .filter(|(s, _)| *s >= top_score * 0.75)
            .map(|&(_, n)| n)
            .collect();
        if close.len() >= MIN_CLOSE_CANDIDATES {
            let mut up = self.page.parent(top);
            while let Some(a) = up.filter(|&a| a > self.body) {
                let holds = close
                    .iter()
                    .filter(|&&c| c > a && c < self.page.subtree_end(a))
                    .count();
                if holds >= MIN_CLOSE_CANDIDATES {
                    top = a;
                    break;
                }
                up = self.page.parent(a);
            }
        }
        // A parent that scores higher than the top holds more of the article.
        let mut last = self.final_score(top);
        let threshold = last / 3.0;
        let mut up = self.page.parent(top);
        while let Some(a) = up.filter(|&a| a > self.body) {
            if self.scored[self.at(a)] {
                let s = self.final_score(a);
                if s < threshold {
                    break;
                }
                if s > last {
                    top = a;
                    break;
                }
                last = s;
            }
            up = self.page.parent(a);
        }
        let core = top;
        let mut top = self.widen(top);
        // An only child stands for its parent.
        while let Some(p) = self.page.parent(top) {
            if p <= self.body || self.page.children(p).count() != 1 {
                break;
            }
            top = p;
        }
        Some((top, core))
    }

    /// An article cut into sibling blocks (a guide's sections, a post's
    /// blocks) is read whole: the top element gives way to the highest
    /// ancestor whose text beyond it is prose (paragraphs and headings, few
    /// links).
    fn widen(&self, top: NodeId) -> NodeId {
        let t = self.at(top);
        // A block of a paragraph or two is a section of a page (a product's
        // page of short sections between menus): the link lists around it
        // are cleaned out of the page, not a bound of the article.
        let (all, prose) = if self.paragraphs[t] <= 2 {
            (&self.lean, &self.lean_prose)
        } else {
            (&self.all, &self.prose)
        };
        let (chars, links, prose_chars) = (all[t].chars, all[t].link_chars, prose[t]);
        let mut wide = top;
        let mut up = self.page.parent(top);
        while let Some(a) = up.filter(|&a| a > self.body) {
            let at = self.at(a);
            let added = all[at].chars.saturating_sub(chars);
            let added_links = all[at].link_chars.saturating_sub(links);
            let added_prose = prose[at].saturating_sub(prose_chars);
            // Enough to be more of the article, not a standfirst or a
            // dateline above it: a quarter of its text, in two paragraphs
            // or more, or more than it holds.
            let added_paragraphs = self.paragraphs[at] - self.paragraphs[t];
            if added_links * 5 <= added
                && added_prose * 5 >= added * 3
                && added_prose * 4 >= chars.max(WIDEN_MIN_CHARS * 4)
                && (added_paragraphs >= 2 || added_prose >= chars)
            {
                wide = a;
            }
            // The page's own `<article>` holds the whole of it.
            if self.page.label_name(a) == "article" {
                break;
            }
            up = self.page.parent(a);
        }
        wide
    }

    /// The top element and the siblings that join it.
    fn parts(&self, top: NodeId) -> Vec<NodeId> {
        let Some(parent) = self.page.parent(top).filter(|&p| p >= self.body) else {
            return vec![top];
        };
        let top_score = self.final_score(top);
        let threshold = (top_score * 0.2).max(10.0);
        let top_class = self.page.attribute(top, "class").unwrap_or("");
        self.page
            .children(parent)
            .filter(|&s| {
                if s == top {
                    return true;
                }
                let at = self.at(s);
                if self.page.label_of(s) == PCDATA || self.removed[at] {
                    return false;
                }
                let class = self.page.attribute(s, "class").unwrap_or("");
                let bonus = if !class.is_empty() && class == top_class {
                    top_score * 0.2
                } else {
                    0.0
                };
                if self.scored[at] && self.final_score(s) + bonus >= threshold {
                    return true;
                }
                let name = self.page.label_name(s);
                if name == "p" {
                    let c = self.all[at];
                    let ld = c.link_density();
                    return (c.chars > 80 && ld < 0.25)
                        || (c.chars > 0 && ld == 0.0 && c.chars <= 80 && self.ends_sentence(s));
                }
                false
            })
            .collect()
    }

    fn ends_sentence(&self, n: NodeId) -> bool {
        let t = self.page.text_of(n);
        t.ends_with('.') || t.contains(". ")
    }

    /// Whether an element inside the article is dropped (see the module docs).
    /// `part_chars` is the text of the part of the article `n` is in: a
    /// wrapper that holds most of it is the article, whatever its name.
    /// `names_say_little`: most of the part's text is in elements whose
    /// names count against them.
    fn cleaned(&self, n: NodeId, part_chars: u32, names_say_little: bool) -> bool {
        let name = self.page.label_name(n);
        if !matches!(
            name,
            "div" | "section" | "ul" | "ol" | "table" | "form" | "fieldset" | "figure" | "dl"
        ) {
            return false;
        }
        let at = self.at(n);
        let c = self.all[at];
        let weight = self.weight(n);
        let ld = c.link_density();
        // A wrapper that holds most of its part is the article, whatever
        // its name says, unless it says "not the article" outright; and so
        // are paragraphs of prose where the names count against most of the
        // part's text (a page builder calls every block a `widget`).
        let holds_part =
            c.chars * 2 > part_chars && (weight >= 0.0 || c.chars >= WRAPPER_MIN_CHARS);
        let prose = names_say_little
            && self.paragraphs[at] >= 3
            && c.chars >= WRAPPER_MIN_CHARS
            && ld < 0.2;
        // A list whose items are paragraphs is the article's list, and so
        // is one that holds a paragraph and no items (a site's blocks of
        // benefits written as `<ul><span><p>`).
        // And so is a list of sentences (a week's notes, each item a line
        // of prose): items of 40 characters or more on average, few links.
        let paragraph_list = matches!(name, "ul" | "ol")
            && (self.paragraphs[at] >= self.items[at].max(1)
                || (self.items[at] >= 1 && c.chars >= self.items[at] * SENTENCE_ITEM_CHARS))
            && ld < 0.2;
        let kept = (holds_part || prose || paragraph_list) && !self.unlikely(n);
        // Its paragraphs can outweigh what its name says.
        let score = if self.scored[at] {
            self.score[at]
        } else {
            weight
        };
        if score < 0.0 && !kept {
            return true;
        }
        if c.commas >= 10 {
            return false;
        }
        if (weight < 25.0 && ld > 0.2) || (weight >= 25.0 && ld > 0.5) {
            return true;
        }
        // Items rather than paragraphs, and little text: a list of links or
        // of labels, unless its items are lines of a spec sheet, no link
        // among them.
        let (p, li) = (self.paragraphs[at], self.items[at]);
        !matches!(name, "ul" | "ol")
            && li > p + 1
            && c.chars < 500
            && (c.link_chars > 0 || c.chars < li * 20)
    }

    /// The characters below `node` in elements whose `class` or `id` count
    /// against them.
    fn negative_chars(&self, node: NodeId) -> u32 {
        let page = self.page;
        let end = page.subtree_end(node);
        let mut chars = 0;
        let mut i = node.next();
        while i < end {
            let at = self.at(i);
            if page.label_of(i) == PCDATA || self.removed[at] {
                i = page.subtree_end(i);
                continue;
            }
            if self.weight(i) < 0.0 {
                chars += self.all[at].chars;
                i = page.subtree_end(i);
                continue;
            }
            i = i.next();
        }
        chars
    }

    /// A forum's thread, read whole: the first post, `first`, found as an
    /// article, then its replies, which the names (`comment`) left out.
    /// They are replies, not comments on an article, when they follow the
    /// article rather than sit inside it and the first post is not much
    /// longer than they are (an article outweighs the comments below it).
    /// `lenient` reads the same page without leaving out by names.
    fn thread(&self, lenient: &Scorer<'_>, first: &str) -> Option<String> {
        let posts = lenient.thread_posts();
        let (top, _) = self.top()?;
        let page = self.page;
        let holds_posts = |a: NodeId| posts.iter().all(|&p| p > a && p < page.subtree_end(a));
        let article = self.article_of(top);
        if posts.is_empty() || article.is_some_and(|a| !holds_posts(a)) {
            return None;
        }
        let chars: u32 = posts
            .iter()
            .map(|&p| lenient.all[lenient.at(p)].chars)
            .sum();
        if first.chars().count() as u64 * posts.len() as u64 > u64::from(chars) {
            return None;
        }
        let mut out = Writer::default();
        for line in first.lines() {
            out.push(line);
            out.line();
        }
        for p in posts {
            lenient.write(p, p, false, &mut out);
            out.line();
        }
        Some(out.finish())
    }

    /// The page's `<article>` that is or holds `n`, if any.
    fn article_of(&self, n: NodeId) -> Option<NodeId> {
        std::iter::once(n)
            .chain(self.page.ancestors(n))
            .find(|&a| self.page.label_name(a) == "article")
    }

    /// The posts of a forum's thread below its first: three or more
    /// siblings of one tag whose names say `comment`, each with prose of
    /// its own, few of their words in links; the largest such set. Empty
    /// when the page has none.
    fn thread_posts(&self) -> Vec<NodeId> {
        let page = self.page;
        let mut groups: Vec<(NodeId, &str, Vec<NodeId>)> = Vec::new();
        let mut i = self.body.next();
        while i < self.end {
            let at = self.at(i);
            if page.label_of(i) == PCDATA || self.removed[at] {
                i = page.subtree_end(i);
                continue;
            }
            let (class, id) = self.class_and_id(i);
            let c = self.all[at];
            if (class.contains("comment") || id.contains("comment"))
                && c.outside_links() as usize >= MIN_PARAGRAPH_CHARS
            {
                if let Some(parent) = page.parent(i) {
                    let name = page.label_name(i);
                    match groups.iter_mut().find(|g| g.0 == parent && g.1 == name) {
                        Some(g) => g.2.push(i),
                        None => groups.push((parent, name, vec![i])),
                    }
                }
            }
            i = i.next();
        }
        groups
            .into_iter()
            .map(|g| g.2)
            .filter(|posts| {
                let mut c = Counts::default();
                for &p in posts {
                    c.add(self.all[self.at(p)]);
                }
                posts.len() >= THREAD_MIN_POSTS && c.link_density() < 0.3
            })
            .max_by_key(|posts| {
                posts
                    .iter()
                    .map(|&p| self.all[self.at(p)].chars)
                    .sum::<u32>()
            })
            .unwrap_or_default()
    }

    /// The page's text, less only what is never content (see
    /// [`main_text`]).
    fn all_text(&self) -> String {
        let mut out = Writer::default();
        self.write(self.body, self.body, false, &mut out);
        out.finish()
    }

    fn text(&self) -> String {
        let mut out = Writer::default();
        let Some((top, core)) = self.top() else {
            // Not one paragraph: what text there is is the page's.
            self.write(self.body, self.body, true, &mut out);
            return out.finish();
        };
        for part in self.parts(top) {
            self.write(part, core, true, &mut out);
            out.line();
        }
        out.finish()
    }

    /// Writes `node`'s text, less what is cleaned out when `clean`; `core`,
    /// the best-scoring element, and the elements around it are not cleaned.
    fn write(&self, node: NodeId, core: NodeId, clean: bool, out: &mut Writer) {
        let page = self.page;
        let end = page.subtree_end(node);
        let part_chars = self.all[self.at(node)].chars;
        let names_say_little = self.negative_chars(node) * 2 > part_chars;
        let mut blocks: Vec<NodeId> = Vec::new();
        let mut i = node;
        while i < end {
            while blocks.last().is_some_and(|&e| e <= i) {
                blocks.pop();
                out.line();
            }
            if page.space_before(i) {
                out.space();
            }
            if page.label_of(i) == PCDATA {
                out.push(page.pcdata(i).unwrap_or(""));
                i = i.next();
                continue;
            }
            let at = self.at(i);
            let holds_core = i <= core && core < page.subtree_end(i);
            if self.removed[at]
                || (clean
                    && i != node
                    && !holds_core
                    && self.cleaned(i, part_chars, names_say_little))
            {
                i = page.subtree_end(i);
                out.space();
                continue;
            }
            let name = page.label_name(i);
            if name == "br" {
                out.line();
            } else if !INLINE.contains(&name) {
                out.line();
                blocks.push(page.subtree_end(i));
            }
            i = i.next();
        }
    }
}

/// Text with white space collapsed and paragraphs on lines of their own.
#[derive(Default)]
struct Writer {
    out: String,
    space: bool,
    line: bool,
}

impl Writer {
    fn space(&mut self) {
        self.space = true;
    }

    fn line(&mut self) {
        self.line = true;
    }

    fn push(&mut self, raw: &str) {
        if raw.starts_with(char::is_whitespace) {
            self.space = true;
        }
        for (k, w) in raw.split_whitespace().enumerate() {
            if !self.out.is_empty() {
                if self.line {
                    self.out.push('\n');
                } else if self.space || k > 0 {
                    self.out.push(' ');
                }
            }
            self.line = false;
            self.space = false;
            self.out.push_str(w);
        }
        if raw.ends_with(char::is_whitespace) {
            self.space = true;
        }
    }

    fn finish(self) -> String {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(html: &str) -> String {
        main_text(&Page::parse(html))
    }

    const STORY: &str = "The council voted on Tuesday to rebuild the old harbour wall, which \
        was damaged in the winter storms, and to reopen the fish market by spring.";

    /// `n` paragraphs of a story, numbered.
    fn story(n: usize) -> String {
        (0..n)
            .map(|j| format!("<p>Paragraph {j} of the story: {STORY}</p>"))
            .collect()
    }

    fn assert_holds(t: &str, parts: &[&str]) {
        for part in parts {
            assert!(t.contains(part), "{part} not in {t}");
        }
    }

    fn assert_lacks(t: &str, junk: &[&str]) {
        for j in junk {
            assert!(!t.contains(j), "{j} in {t}");
        }
    }

    #[test]
    fn article_paragraphs_without_menu_teasers_and_footer() {
        let html = format!(
            "<html><body><header><a href=/>Home</a> <a href=/news>News</a></header>\
             <div class=menu><ul><li><a href=/a>Sport</a></li><li><a href=/b>Weather today</a></li></ul></div>\
             <div id=main><h1>Harbour wall</h1><p>{STORY}</p><p>{STORY} Second.</p>\
             <p>Work begins in March, the mayor said, and will take two years.</p>\
             <div class=related><a href=/x>Other story about boats and ferries</a></div></div>\
             <div class=teasers><p><a href=/t1>A teaser that links to a different story entirely</a></p></div>\
             <footer>Copyright 2026 Coast News, all rights reserved</footer></body></html>"
        );
        let t = text(&html);
        assert!(t.starts_with("The council voted"), "{t}");
        assert!(t.contains("Work begins in March"), "{t}");
        for junk in [
            "Home",
            "Sport",
            "Harbour wall",
            "Other story",
            "teaser",
            "Copyright",
        ] {
            assert!(!t.contains(junk), "{junk} in {t}");
        }
        assert_eq!(t.lines().count(), 3, "{t}");
    }

    #[test]
    fn article_markup_wins_over_a_longer_link_list() {
        let links: String = (0..40)
            .map(|k| {
                format!("<li><a href=/s{k}>Story number {k}, with a long title, here</a></li>")
            })
            .collect();
        let html = format!(
            "<html><body><div class=list><ul>{links}</ul></div>\
             <div itemprop=articleBody><p>{STORY}</p></div></body></html>"
        );
        assert_eq!(text(&html), STORY);
    }

    #[test]
    fn hidden_and_scripted_text_is_left_out() {
        let html = format!(
            "<html><body><div><p>{STORY}</p><p style='display: none'>Secret text of a hidden paragraph</p>\
             <script>var x = 'script text, with commas, many, many';</script>\
             <p hidden>Another hidden paragraph that must not show</p></div></body></html>"
        );
        assert_eq!(text(&html), STORY);
    }

    #[test]
    fn empty_and_textless_pages_give_no_text() {
        assert_eq!(text(""), "");
        assert_eq!(text("<html><body><img src=a.png></body></html>"), "");
    }

    /// A page builder's row named for its background (`…-attachment-scroll`,
    /// a negative word) that holds the whole article is the article.
    #[test]
    fn a_wrapper_holding_the_article_is_kept_whatever_its_name() {
        let html = format!(
            "<html><body><header><nav><a href=/>Home</a></nav></header>\
             <div id=main class=vamtam-main><div class=page-wrapper>\
             <div class=\"fl-row fl-row-bg-attachment-scroll\"><div class=fl-row-content-wrap>\
             <div class=fl-col><div class=fl-col-content><div class=fl-module><div class=fl-module-content>\
             <div class=fl-rich-text><p>{STORY}</p><p>{STORY} Again.</p><p>{STORY} Once more.</p>\
             <p>{STORY} And a fourth time, with feeling.</p></div></div></div></div></div></div></div>\
             </div></div><footer>Copyright 2026</footer></body></html>"
        );
        let t = text(&html);
        assert!(t.contains("fourth time"), "{t}");
        assert!(!t.contains("Copyright"), "{t}");
    }

    /// Elementor calls every block `elementor-widget`: where such names
    /// cover most of the article, its paragraphs are kept; a side box
    /// named `widget` beside an article named otherwise is still dropped.
    #[test]
    fn builder_widgets_of_prose_are_kept_a_lone_widget_box_is_not() {
        let widget = |s: &str| {
            format!(
                "<div class=\"elementor-element elementor-widget elementor-widget-text-editor\">\
                 <div class=elementor-widget-container><p>{s} One.</p><p>{s} Two.</p>\
                 <p>{s} Three.</p><p>{s} Four.</p></div></div>"
            )
        };
        let html = format!(
            "<html><body><div class=\"elementor elementor-70938\"><div class=e-con-inner>\
             <h2>Mobile apps</h2>{}{}{}{}</div></div></body></html>",
            widget(STORY),
            widget("We build apps for phones and tablets, in Swift, Kotlin and React Native, and test them on real devices."),
            widget("Our designers draw every screen first, and the users we ask tell us what to change before a line is written."),
            widget("Once the app is out, we watch its crashes, answer its reviews, and ship a fix within the week, every week.")
        );
        let t = text(&html);
        assert!(
            t.contains("harbour wall")
                && t.contains("React Native")
                && t.contains("within the week"),
            "{t}"
        );
        let boxed = format!(
            "<html><body><div class=content><p>{STORY}</p><p>{STORY} Two.</p><p>{STORY} Three.</p>\
             <p>{STORY} Four.</p><p>{STORY} Five.</p><p>{STORY} Six.</p>\
             <div class=\"zone-widget cta-letter\"><p>Support us and make a difference, today.</p>\
             <p>We do this work every day at no cost to you, but it is far from free.</p>\
             <p>Support us so we continue to pursue the facts, for you and everyone.</p>\
             <p>Every gift, however small, keeps the newsroom open, and thank you.</p>\
             </div></div></body></html>"
        );
        let t = text(&boxed);
        assert!(t.contains("Six."), "{t}");
        assert!(!t.contains("Support us"), "{t}");
    }

    /// A numbered list whose items are paragraphs (a Squarespace post's
    /// "ten things") is the article's, though lists score against.
    #[test]
    fn a_list_of_paragraphs_is_kept() {
        let items: String = (1..=4)
            .map(|k| {
                format!("<li><p>Step {k}: open the valve slowly and let the water run.</p></li>")
            })
            .collect();
        let html = format!(
            "<html><body><article class=entry><div class=entry-content><div class=sqs-layout>\
             <p>{STORY}</p><ol>{items}</ol><p>{STORY} The end.</p></div></div></article>\
             <ul class=links><li><a href=/a>Archive</a></li><li><a href=/b>About us</a></li></ul>\
             </body></html>"
        );
        let t = text(&html);
        assert!(t.contains("Step 4: open the valve"), "{t}");
        assert!(!t.contains("Archive"), "{t}");
    }

    /// A guide cut into sections, each a heading and a panel of
    /// paragraphs, is read whole; a dateline and a standfirst above a
    /// story's body are not taken for more of it.
    #[test]
    fn an_article_in_sibling_sections_is_read_whole_a_standfirst_is_not() {
        let panel = |k: usize, n: usize| -> String {
            let ps: String = (0..n)
                .map(|j| format!("<p>Section {k}, paragraph {j}: {STORY}</p>"))
                .collect();
            format!(
                "<section id=s{k}><h2>Part {k}</h2><div class=panel><div class=text>{ps}</div></div>\
                 <div class=cta><a href=/buy{k}>Buy it now at the shop</a></div></section>"
            )
        };
        let html = format!(
            "<html><body><nav><a href=/>Home</a></nav><article class=paywall><div class=wrap>\
             <div class=intro><p>Lots of laptops cost less than five hundred dollars, but few of \
             them are good, and we tested many of them.</p></div><div class=sections>{}{}{}</div>\
             </div></article>\
             <ul class=more><li><a href=/x>Best monitors</a></li><li><a href=/y>Best mice</a></li></ul>\
             </body></html>",
            panel(1, 6),
            panel(2, 3),
            panel(3, 3)
        );
        let t = text(&html);
        assert_holds(
            &t,
            &[
                "Lots of laptops",
                "Section 1, paragraph 5",
                "Part 2",
                "Section 3, paragraph 2",
            ],
        );
        assert_lacks(&t, &["Best monitors", "Home"]);
        let body = story(8);
        let story = format!(
            "<html><body><div class=page><div class=intro><p class=date>October 12, 2017</p>\
             <p class=lead>The port and the town agree on a new harbour wall, to be built by spring.</p>\
             </div><div class=story-body>{body}</div></div></body></html>"
        );
        let t = text(&story);
        assert!(t.contains("Paragraph 7 of the story"), "{t}");
        assert!(!t.contains("October 12") && !t.contains("agree on"), "{t}");
    }

    /// A product's page of short sections, each a heading and a paragraph,
    /// between a menu and a footer of links inside `<main>`: the sections
    /// are read whole, the link lists are not; an article of several
    /// paragraphs is not widened over the link lists to the story beside it.
    #[test]
    fn a_page_of_short_sections_is_read_whole_over_its_menus() {
        let links = |n: usize| -> String {
            (0..n)
                .map(|k| format!("<li><a href=/p{k}>Product feature number {k}</a></li>"))
                .collect()
        };
        let html = format!(
            "<html><body><main class=site><div class=menu><ul>{}</ul></div>\
             <div class=hero><div class=box><h2>Go from idea to design in minutes</h2><div class=t>\
             <p>Our tool was built with speed and ease of use in mind as the perfect choice for teams.</p>\
             </div></div></div>\
             <div class=why><div class=box><h2>Why our tool?</h2><div class=t><p>{STORY}</p></div></div></div>\
             <div class=teams><div class=box><h3>For product teams</h3><div class=t>\
             <p>Invite anyone to your project and design together in real time from any browser.</p>\
             </div></div></div>\
             <div class=foot><ul>{}</ul></div></main></body></html>",
            links(20),
            links(30)
        );
        let t = text(&html);
        assert_holds(
            &t,
            &[
                "Why our tool?",
                "perfect choice for teams",
                "Invite anyone",
                "harbour wall",
            ],
        );
        assert!(!t.contains("Product feature"), "{t}");
        let body = story(4);
        let story = format!(
            "<html><body><main><div class=menu><ul>{}</ul></div><div class=story>{body}</div>\
             <div class=next><h2>Happening now</h2><p>The town's new library opens its doors on Monday morning.</p>\
             <p>The mayor cuts the ribbon at nine and the first hundred readers get a free bag.</p>\
             <p>The library holds forty thousand books and a hall for readings and talks.</p></div>\
             <div class=foot><ul>{}</ul></div></main></body></html>",
            links(20),
            links(30)
        );
        let t = text(&story);
        assert!(t.contains("Paragraph 3 of the story"), "{t}");
        assert!(!t.contains("library opens"), "{t}");
    }

    /// The page's own `<article>` bounds the article: the prose beside it
    /// (the next story's lead) is not more of it.
    #[test]
    fn the_article_element_bounds_the_article() {
        let body = story(3);
        let html = format!(
            "<html><body><div class=wrap><article><div class=story>{body}</div></article>\
             <div class=next><h2>Happening now</h2>\
             <p>The town's new library opens its doors on Monday morning for everyone to see</p>\
             <p>The mayor cuts the ribbon at nine and the first hundred readers get a free bag</p>\
             <p>The library holds forty thousand books and a hall for readings and talks</p>\
             </div></div></body></html>"
        );
        let t = text(&html);
        assert!(t.contains("Paragraph 2 of the story"), "{t}");
        assert!(!t.contains("library"), "{t}");
    }

    /// A week's notes written as lists of sentences are the article, a list
    /// of one or two labels is not.
    #[test]
    fn a_list_of_sentences_is_kept_a_list_of_labels_is_not() {
        let html = format!(
            "<html><body><div class=post>{}<h3>Performance</h3><ul><li>Users who run several \
             profiles at once will see this message less often than before!</li></ul>\
             <h3>New people</h3><ul><li>Amy joins the search team today, coming from the web team.</li>\
             <li>Tim moves to the tools team and starts on the new inspector.</li></ul>\
             <ul><li>Filed under Nightly and Fission</li></ul></div></body></html>",
            story(4)
        );
        let t = text(&html);
        assert_holds(
            &t,
            &["Paragraph 3", "several profiles", "Amy joins", "Tim moves"],
        );
        assert!(!t.contains("Filed under"), "{t}");
    }

    /// A React server streams the page's content after its shell in
    /// `<div hidden id="S:0">`, which its script moves into place: that is
    /// the article; other hidden elements are still left out.
    #[test]
    fn content_streamed_by_react_is_read_other_hidden_text_is_not() {
        let html = format!(
            "<html><body><header><a href=/>Mattress shop</a></header>\
             <main><template id=\"B:0\"></template><div>Loading the post</div></main>\
             <div hidden id=modal><p>Sign up for our newsletter and save ten percent, today only, on every mattress.</p></div>\
             <div hidden id=\"S:0\"><div class=pg-post><p>{STORY}</p><p>{STORY} Again.</p>\
             <p>{STORY} And once more.</p></div></div>\
             <script>$RC(\"B:0\", \"S:0\")</script></body></html>"
        );
        let t = text(&html);
        assert!(t.contains("And once more."), "{t}");
        assert!(!t.contains("newsletter"), "{t}");
    }

    /// A page without one paragraph (a word, a price list) is its text,
    /// less its menus.
    #[test]
    fn a_page_without_paragraphs_is_its_text() {
        assert_eq!(text("<html><body>\n  Test\n</body></html>"), "Test");
        let t = text(
            "<html><body><nav><a href=/>Home</a> <a href=/shop>Shop</a></nav><div>Price list</div>\
             <ul><li>Tea, 2 euros</li><li>Coffee, 3 euros</li></ul></body></html>",
        );
        assert_eq!(t, "Price list\nTea, 2 euros\nCoffee, 3 euros");
    }

    /// A product page's folded panels (an accordion's, behind a click) are
    /// its text; a hidden menu or an icon is not.
    #[test]
    fn folded_panels_are_read_hidden_menus_are_not() {
        let html = format!(
            "<html><body><div id=root><main role=main><div class=p1>\
             <p>Wireless keyboard with magnetic switches, for work and for games, in black.</p>\
             <button aria-controls=c1>Quality guarantee</button>\
             <div id=c1 role=region aria-hidden=true><p>{STORY}</p><p>{STORY} Again.</p></div>\
             <button aria-controls=c2>Shipping</button>\
             <div id=c2 role=tabpanel hidden><p>Most orders ship within two days, and returns are free for two weeks.</p></div>\
             <div aria-hidden=true><p>Menu: keyboards, mice, cables, switches, keycaps and more, all on sale now</p></div>\
             </div></main></div></body></html>"
        );
        let t = text(&html);
        assert!(
            t.contains("Again.") && t.contains("returns are free"),
            "{t}"
        );
        assert!(!t.contains("Menu:"), "{t}");
    }

    /// A list that holds a paragraph and no items (blocks of benefits
    /// written as `<ul><span><p>…`) is the article's.
    #[test]
    fn a_list_holding_a_paragraph_without_items_is_kept() {
        let block = |s: &str| {
            format!("<div class=card><h3>{s}</h3><ul class=x><span><p>{STORY} {s}.</p></span></ul></div>")
        };
        let html = format!(
            "<html><body><main><div class=grid><h2>Benefits of cloud storage</h2>{}{}{}{}</div></main>\
             <ul class=links><li><a href=/a>Archive</a></li><li><a href=/b>About us</a></li></ul>\
             </body></html>",
            block("Agility"),
            block("Cost"),
            block("Security"),
            block("Durability")
        );
        let t = text(&html);
        for word in ["Agility.", "Cost.", "Security.", "Durability."] {
            assert!(t.contains(word), "{word} not in {t}");
        }
        assert!(!t.contains("Archive"), "{t}");
    }

    /// A product's spec sheet (a block of list items, no link among them)
    /// is its text; a block of short links beside it is not.
    #[test]
    fn a_forum_index_is_read_whole_a_short_story_is_not() {
        // Boards in a table, each a link, a line of description and counts:
        // the cleaning drops the table as a link list, and the one
        // paragraph left is the line of who is online.
        let boards: String = [
            (
                "General discussion",
                "Talk about any woodworking project you have",
            ),
            (
                "Tools and machinery",
                "Saws, routers and the jigs you built for them",
            ),
            (
                "Showcase",
                "Share the furniture and boxes you made this year",
            ),
            (
                "Lutherie",
                "Guitars, violins and the tools to build them by hand",
            ),
        ]
        .iter()
        .enumerate()
        .map(|(k, (name, about))| {
            format!(
                "<tr><td><a href=/f{k}>{name}</a><br>{about}</td><td>{} topics</td>\
                 <td><a href=/t{k}>Re: a question</a> by <a href=/u{k}>member{k}</a></td></tr>",
                10 + k
            )
        })
        .collect();
        let html = format!(
            "<html><body><nav><a href=/>Board index</a> <a href=/faq>FAQ</a></nav>\
             <table class=forums>{boards}</table>\
             <div class=stats><p>In total there are 12 users online, 1 registered.</p></div>\
             <footer>Powered by a forum program</footer></body></html>"
        );
        let t = text(&html);
        assert_holds(
            &t,
            &[
                "General discussion",
                "Saws, routers and the jigs",
                "Lutherie",
                "12 users online",
            ],
        );
        assert_lacks(&t, &["Board index", "Powered by"]);
        // A story of a few lines between menus is still the story alone.
        let html = "<html><body><div class=menu><a href=/a>Sport</a> <a href=/b>Weather</a></div>\
             <div id=main><p>The ferry to the island runs again from Monday, the harbour office said.</p></div>\
             <div class=more><a href=/x>Another story about the harbour and its boats</a></div></body></html>";
        let t = text(html);
        assert_eq!(
            t,
            "The ferry to the island runs again from Monday, the harbour office said."
        );
    }

    #[test]
    fn a_thread_is_read_whole_an_article_s_comments_are_not() {
        // A forum's thread: the first post, then replies of one shape named
        // `comment`, each an author line and prose, as long as the first.
        let replies: String = [
            "Mount the front pair at ear height if you can, and angle them down towards the seats; \
             a centre channel of the same line keeps the voices matched when they pan across.",
            "I ran ceiling speakers as fronts for a year. It was fine for films, but music sounded \
             thin, and I moved them to the walls in the end, which cost me a weekend of plaster.",
            "Spend what you save on the speakers on a better subwoofer: in a room of that size the \
             bass is what you notice first, and a used one from a good maker holds its value.",
        ]
        .iter()
        .enumerate()
        .map(|(k, r)| {
            format!(
                "<li class=\"Item ItemComment\" id=Comment_{k}><div class=Author><a href=/u{k}>member{k}</a> \
                 <a href=/c{k}>March 2018</a></div><div class=\"Comment\"><div class=Message>{r}</div></div></li>"
            )
        })
        .collect();
        let html = format!(
            "<html><body><nav><a href=/>Forum</a> <a href=/cat>Speakers</a></nav>\
             <div class=\"Item ItemDiscussion\"><h1>Advice on a home theater speaker setup</h1>\
             <div class=Message>We are building a small home theater in a room of 14 by 11 feet, \
             and I would like advice on the speakers before I buy them. Thank you in advance.</div></div>\
             <ul class=\"MessageList Comments\">{replies}</ul>\
             <footer>Powered by a forum program</footer></body></html>"
        );
        let thread = text(&html);
        assert_lacks(&thread, &["Powered by"]);
        assert_holds(
            &thread,
            &[
                "advice on the speakers",
                "angle them down towards the seats",
                "moved them to the walls",
                "a better subwoofer",
                "member2",
            ],
        );
        // The comments below a story, in its `<article>` or shorter than
        // it, are not more of it.
        let remark = "I walked along that wall every day as a child, and it is good news \
            that it will be rebuilt at last. "
            .repeat(6);
        let comments: String = (0..3)
            .map(|k| {
                format!(
                    "<li class=comment><div class=comment-author>reader{k}</div>\
                     <div class=comment-body>{remark}</div></li>"
                )
            })
            .collect();
        let tail = format!("<ol class=comment-list>{comments}</ol></body></html>");
        let html = format!(
            "<html><body><article><div class=entry>{}</div></article>{tail}",
            story(3)
        );
        assert_lacks(&text(&html), &["reader1", "walked along that wall"]);
        let html = format!("<html><body><div class=entry>{}</div>{tail}", story(6));
        assert_lacks(&text(&html), &["reader1", "walked along that wall"]);
    }

    #[test]
    fn a_board_of_topics_is_read_whole_a_short_article_is_not() {
        // A board's topics, each a link and a few words in cells, cut away
        // as a link list: what is found is the board's statistics, a few
        // lines the topics' text outweighs more than five times.
        let stats = "<div class=stats><p>In total there are 2195 users online, 1 registered, \
             0 hidden and 2194 guests, based on users active over the past five minutes.</p>\
             <p>Most users ever online was 7282 on Wed Jul 30, 2025, at a quarter to one in the \
             morning.</p><p>Total posts 3368, total topics 784, total members 31082; our newest \
             member is a maker of furniture.</p></div>";
        let topics: String = (0..80)
            .map(|k| {
                format!(
                    "<tr><td><a href=/t{k}>Topic number {k}</a></td><td>by member{k}</td>\
                     <td>{k} replies</td><td>March {k}</td></tr>"
                )
            })
            .collect();
        let html = format!(
            "<html><body><nav><a href=/>Board index</a></nav>\
             <table class=topics>{topics}</table>{stats}</body></html>"
        );
        let board = text(&html);
        assert_holds(&board, &["by member7", "79 replies", "2195 users online"]);
        assert_lacks(&board, &["Board index"]);
        // A short post in the page's `<article>`, above a long discussion,
        // is the post alone.
        let replies: String = (0..20)
            .map(|k| {
                format!(
                    "<li class=comment><p>Reply {k}: the harbour wall was the place we met \
                     every evening, and I am glad it will stand again by the spring.</p></li>"
                )
            })
            .collect();
        let html = format!(
            "<html><body><article><div class=entry>{}</div></article>\
             <ol class=comments>{replies}</ol></body></html>",
            story(2)
        );
        assert_lacks(&text(&html), &["Reply 3", "place we met"]);
    }

    #[test]
    fn a_spec_sheet_is_kept_a_block_of_links_is_not() {
        let specs: String = [
            "Capacity: 40 litres for your gear",
            "Weight: 700 grams, easy to carry",
            "Straps: padded for the shoulders",
        ]
        .iter()
        .map(|s| format!("<li>{s}</li>"))
        .collect();
        let links: String = ["Tents", "Boots", "Stoves"]
            .iter()
            .map(|s| format!("<li><a href=/{s}>{s}</a></li>"))
            .collect();
        let html = format!(
            "<html><body><div id=main-content class=body><p>{STORY}</p><p>{STORY} Again.</p>\
             <div class=details><h3>Technical information</h3><ul>{specs}</ul></div>\
             <div class=shop-more><h3>Shop more</h3><ul>{links}</ul></div></div></body></html>"
        );
        let t = text(&html);
        assert!(t.contains("Straps: padded"), "{t}");
        assert!(!t.contains("Stoves"), "{t}");
    }
}

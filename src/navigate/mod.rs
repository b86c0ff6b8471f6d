//! The navigator: walks the result pages of one query (seed 003 §4.2).
//!
//! A result may be spread over several pages. The navigator hands out the
//! query's own request first, is told the links of every page fetched, and
//! queues the links that lead to further result pages of the same query:
//!
//! - [`NavigationMode::Off`] (`DB.Navigation: NO`): the first page only.
//! - [`NavigationMode::Pattern`] (`DB.NavigationURL`): every link whose
//!   absolute URL matches the pattern, in document order. The pattern is
//!   resolved against the query's URL when it is relative; each `*` matches
//!   any run of characters (also none) within one URL component: a path
//!   segment, a query name or value, never across `/`, `?`, `&` or `#`.
//!   Everything else must match literally, so a link with extra query
//!   parameters does not match. A pattern that is no URL follows no links
//!   ([`NavigationPattern::parse`] reports why).
//! - [`NavigationMode::Detect`] (neither): the links that look like
//!   pagination (see [`Navigator::result_page`]).
//!
//! In both modes a link labelled `1` (or a range starting at 1, `1-10`) or
//! labelled "previous" or "first" (see [`Navigator::result_page`]) is taken
//! for a way back to a page fetched before — the query's own page perhaps
//! under another URL, as when the query was a POST — and is not followed.
//! Whatever the mode, no URL is fetched twice for a query (URLs are compared
//! without their fragment and with the query parameters in their order), and
//! at most `max_pages` pages are fetched, the query's own page included.
//! A limit of 0 is read as 1: the query's own page is always fetched.
//! Without a limit from the provider or the user, [`DEFAULT_MAX_PAGES`]
//! applies, so that a provider whose every page links to a next one is not
//! walked forever.
//!
//! Result pages stay on the query's host (and port) in every mode: a
//! `DB.NavigationURL` that names another host, or `http://*/*`, follows no
//! link elsewhere unless the user allowed that host
//! ([`Navigator::allow_hosts`]).
//!
//! A walk can be saved between two pages ([`Navigator::checkpoint`]) and
//! continued from there in a later run ([`Navigator::resume`]), so that a
//! long query killed half-way does not start over. What is saved with each
//! page does not grow with the walk: the links found are saved once, as
//! they are found ([`Checkpoint::links`]), and the checkpoint itself only
//! counts how many of them the walk has taken.
//! Links are resolved against the URL the page was fetched from (after
//! redirects); a `<base href>` is not looked at.
//!
//! In [`NavigationMode::Detect`], a page whose pager posts its form back
//! ([`postback`]: `__doPostBack('Grid','Page$2')`, a "Next" submit
//! button, JSF's `jsfcljs`) and that links no result page by URL leads to
//! the answer to one post-back, built by the caller from that page's form
//! as the page shows it ([`Navigator::next_postback`],
//! [`Navigator::postback`]): one waits at a time, the lowest page number
//! above the page read that was not sent, else the page's "next"; none
//! when the page brought nothing new or the answer is whole. Such a walk
//! is never saved ([`Navigator::checkpoint`]).

pub mod postback;

use std::collections::{HashSet, VecDeque};

use regex::Regex;
use serde::{Deserialize, Serialize};
use url::Url;

use crate::fetch::Request;

/// An anchor of a result page, and a page's anchors, as the page tree
/// gives them.
pub use crate::page::{Link, Links};

/// The result pages per query when neither the provider (`DB.MaxPages`) nor
/// the user (`--max-pages`) sets a limit.
pub const DEFAULT_MAX_PAGES: u64 = 1000;

/// How the next result pages of a query are found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NavigationMode {
    /// `DB.Navigation: NO`: results are never paged.
    Off,
    /// `DB.NavigationURL`: a URL with `*` for each changing parameter.
    Pattern(String),
    /// Neither given: the navigator finds the next pages itself.
    Detect,
}

/// Why a `DB.NavigationURL` cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NavigationError {
    #[error("DB.NavigationURL {pattern:?} is not a URL, even relative to {base}: {reason}")]
    NotAUrl {
        pattern: String,
        base: String,
        reason: String,
    },
}

/// A `DB.NavigationURL`, resolved and ready to match links.
#[derive(Debug, Clone)]
pub struct NavigationPattern {
    regex: Regex,
    /// The parameters of the pattern's query part, by name.
    names: Vec<String>,
    /// The query's own parameters the pattern does not name (name, value):
    /// a result page's link may carry them too.
    own: Vec<(String, String)>,
}

impl NavigationPattern {
    /// Resolves `pattern` against `base` (the query's URL) and compiles it.
    pub fn parse(pattern: &str, base: &Url) -> Result<NavigationPattern, NavigationError> {
        let resolved = base
            .join(pattern.trim())
            .map_err(|e| not_a_url(pattern, base, e))?;
        let text = page_key(&resolved);
        let mut regex = String::from("^");
        for (i, literal) in text.split('*').enumerate() {
            if i > 0 {
                regex.push_str("[^/?&#]*");
            }
            regex.push_str(&regex::escape(literal));
        }
        regex.push('$');
        let regex = Regex::new(&regex).map_err(|e| not_a_url(pattern, base, e))?;
        let names = resolved
            .query_pairs()
            .map(|(name, _)| name.into_owned())
            .collect();
        Ok(NavigationPattern {
            regex,
            names,
            own: Vec::new(),
        })
    }

    /// Lets the pattern's pages also carry the parameters `query` (a
    /// query's URL) sends beyond those the pattern names, with the query's
    /// values: a query refined by `preis=2` links its next page as
    /// `?region=1&preis=2&seite=2` where the pattern names `region` and
    /// `seite` only.
    pub fn with_own_parameters(mut self, query: &Url) -> NavigationPattern {
        self.own = query
            .query_pairs()
            .filter(|(name, _)| !self.names.iter().any(|n| n == name))
            .map(|(n, v)| (n.into_owned(), v.into_owned()))
            .collect();
        self
    }

    /// True when the (absolute) URL is one of the pattern's pages: it
    /// matches, or does once the query's own parameters are left out.
    pub fn matches(&self, url: &Url) -> bool {
        if self.regex.is_match(&page_key(url)) {
            return true;
        }
        if self.own.is_empty() || url.query().is_none() {
            return false;
        }
        let mut own = self.own.clone();
        let mut kept = Vec::new();
        let mut dropped = false;
        for (name, value) in url.query_pairs() {
            match own.iter().position(|(n, v)| *n == name && *v == value) {
                Some(at) => {
                    own.remove(at);
                    dropped = true;
                }
                None => kept.push((name.into_owned(), value.into_owned())),
            }
        }
        if !dropped {
            return false;
        }
        let mut bare = url.clone();
        if kept.is_empty() {
            bare.set_query(None);
        } else {
            bare.query_pairs_mut().clear().extend_pairs(kept);
        }
        self.regex.is_match(&page_key(&bare))
    }
}

fn not_a_url(pattern: &str, base: &Url, reason: impl std::fmt::Display) -> NavigationError {
    NavigationError::NotAUrl {
        pattern: pattern.to_string(),
        base: base.to_string(),
        reason: reason.to_string(),
    }
}

/// The mode with its working state.
#[derive(Debug)]
enum Walk {
    Off,
    Pattern(Option<NavigationPattern>),
    /// The shape of the pagination links, once known.
    Detect(Option<Shape>),
}

/// Walks the result pages of one query.
#[derive(Debug)]
pub struct Navigator {
    walk: Walk,
    first: Option<Request>,
    query_url: Url,
    queue: VecDeque<Url>,
    /// Keys of every page fetched or queued.
    seen: HashSet<String>,
    fetched: u64,
    max_pages: Option<u64>,
    /// The page handed out last, given back when its fetch failed.
    last: Option<Url>,
    /// The query's own page has answered: the walk can be saved.
    answered: bool,
    /// Hosts (`host` or `host:port`) besides the query's own whose pages
    /// may be result pages.
    other_hosts: Vec<String>,
    /// The last page read links a next page ("next", "weiter", "»") of the
    /// query's own script that the walk does not follow.
    unread_next: bool,
    /// Links queued (or keys seen) since the walk was last saved
    /// ([`Navigator::saved`]), as [`Checkpoint::links`] lists them.
    unsaved: Vec<String>,
    /// Links taken from the front of the queue so far (fetched or passed
    /// over): the queue is the rest of the links queued, in order.
    taken: u64,
    /// The `href`s, as written, that lead from a page at `known_base` (a
    /// URL without its query) to a page fetched or queued: the pager of a
    /// long query lists every page on every page, and these are passed
    /// over without being resolved again. A pager's `href`s share a long
    /// prefix; foldhash reads them eight bytes at a time, with a seed of
    /// its own for every set.
    known: HashSet<String, foldhash::fast::RandomState>,
    known_base: String,
    /// The post-back pager's walk ([`postback`]).
    postbacks: Postbacks,
}

/// Where a walk through a post-back pager stands: the next page is the
/// answer to submitting the page just read, so one post-back waits at a
/// time, built from that page.
#[derive(Debug, Default)]
struct Postbacks {
    /// The post-back to send next, with its request.
    pending: Option<(postback::PostbackLink, Request)>,
    /// The one handed out last, with its request.
    last: Option<(postback::PostbackLink, Request)>,
    /// The fields of the post-backs sent (a page number's
    /// `__EVENTARGUMENT=Page$3`).
    sent: HashSet<String>,
    /// The number of the page read last (the query's own page is 1).
    page: u64,
    /// The walk follows a post-back pager.
    walking: bool,
}

/// Where a walk stands between two pages: what [`Navigator::resume`]
/// continues from. Stored as JSON with the query, except its
/// [`Checkpoint::links`], which the store keeps as a list appended to with
/// each page, so that saving a page does not write the whole walk again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// A checkpoint written before the walk's links were saved apart
    /// (gather 0.x, SQLite schema version 7 and before): the result pages found
    /// and not fetched yet, in order. Empty in the checkpoints written now.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub queue: Vec<String>,
    /// As `queue`, from a checkpoint written before: keys of the pages
    /// fetched.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seen: Vec<String>,
    /// Pages fetched so far, the query's own included.
    pub fetched: u64,
    /// The pagination shape detected so far.
    shape: Option<(String, Vec<String>)>,
    /// How many of the queued links of [`Checkpoint::links`] the walk has
    /// taken (fetched or passed over): the others are its queue.
    #[serde(default)]
    pub taken: u64,
    /// The walk's links: each result page queued (its URL), in the order
    /// found, and each other page fetched (`seen ` and its key: a page
    /// reached through a redirect). From [`Navigator::checkpoint`], the
    /// links found since the walk was last saved ([`Navigator::saved`]);
    /// for [`Navigator::resume`], all of them.
    #[serde(default, skip_serializing)]
    pub links: Vec<String>,
}

/// The prefix of a [`Checkpoint::links`] entry that is a page seen, not
/// queued (a URL holds no space).
const SEEN: &str = "seen ";

impl Navigator {
    /// A navigator for the query `first`, fetching at most `max_pages` pages
    /// (`None`: no limit).
    pub fn new(mode: NavigationMode, first: Request, max_pages: Option<u64>) -> Navigator {
        let walk = match mode {
            NavigationMode::Off => Walk::Off,
            NavigationMode::Detect => Walk::Detect(None),
            NavigationMode::Pattern(pattern) => {
                match NavigationPattern::parse(&pattern, &first.url) {
                    Ok(pattern) => Walk::Pattern(Some(pattern.with_own_parameters(&first.url))),
                    Err(error) => {
                        tracing::warn!(%error, "no result pages beyond the first are followed");
                        Walk::Pattern(None)
                    }
                }
            }
        };
        let seen = HashSet::from([page_key(&first.url)]);
        Navigator {
            walk,
            query_url: first.url.clone(),
            first: Some(first),
            queue: VecDeque::new(),
            seen,
            fetched: 0,
            max_pages: max_pages.map(|m| m.max(1)),
            last: None,
            answered: false,
            other_hosts: Vec::new(),
            unread_next: false,
            unsaved: Vec::new(),
            taken: 0,
            known: HashSet::default(),
            known_base: String::new(),
            postbacks: Postbacks {
                page: 1,
                ..Postbacks::default()
            },
        }
    }

    /// A navigator that continues a walk saved by [`Navigator::checkpoint`]:
    /// the query's own page is not fetched again.
    pub fn resume(
        mode: NavigationMode,
        first: Request,
        max_pages: Option<u64>,
        checkpoint: Checkpoint,
    ) -> Navigator {
        let mut navigator = Navigator::new(mode, first, max_pages);
        navigator.first = None;
        navigator.answered = true;
        navigator.fetched = checkpoint.fetched;
        navigator.taken = checkpoint.taken;
        let mut queued = 0u64;
        for link in &checkpoint.links {
            if let Some(key) = link.strip_prefix(SEEN) {
                navigator.seen.insert(key.to_string());
                continue;
            }
            let Ok(url) = Url::parse(link) else {
                continue;
            };
            // The walk never queues a page twice: a link listed twice was
            // saved twice.
            if !navigator.seen.insert(page_key(&url)) {
                continue;
            }
            queued += 1;
            if queued > checkpoint.taken {
                navigator.queue.push_back(url);
            }
        }
        // A checkpoint of an earlier version: its queue follows the links
        // (there are none), and is saved as links with the next page.
        for key in checkpoint.seen {
            if navigator.seen.insert(key.clone()) {
                navigator.unsaved.push(format!("{SEEN}{key}"));
            }
        }
        for link in &checkpoint.queue {
            let Ok(url) = Url::parse(link) else {
                continue;
            };
            navigator.seen.insert(page_key(&url));
            navigator.unsaved.push(url.to_string());
            navigator.queue.push_back(url);
        }
        if let (Walk::Detect(shape), Some((path, params))) = (&mut navigator.walk, checkpoint.shape)
        {
            *shape = Some(Shape { path, params });
        }
        navigator
    }

    /// Lets result pages also come from these hosts (`host` or
    /// `host:port`), besides the query's own.
    pub fn allow_hosts(mut self, hosts: &[String]) -> Navigator {
        self.other_hosts = hosts.iter().map(|h| h.to_ascii_lowercase()).collect();
        self
    }

    /// Where the walk stands now; `None` while the query's own page has not
    /// been fetched (a resumed walk would have to send the query again).
    ///
    /// A walk through a post-back pager is never saved: its next page is
    /// the answer to the page just read, whose state token a later run
    /// could not send.
    pub fn checkpoint(&self) -> Option<Checkpoint> {
        if !self.answered || self.postbacks.walking {
            return None;
        }
        let shape = match &self.walk {
            Walk::Detect(Some(shape)) => Some((shape.path.clone(), shape.params.clone())),
            _ => None,
        };
        Some(Checkpoint {
            queue: Vec::new(),
            seen: Vec::new(),
            fetched: self.fetched,
            shape,
            taken: self.taken,
            links: self.unsaved.clone(),
        })
    }

    /// The last [`Navigator::checkpoint`] was saved: the next one lists
    /// only the links found after it.
    pub fn saved(&mut self) {
        self.unsaved.clear();
    }

    /// The page handed out last could not be fetched: it goes back to the
    /// front of the queue, so that a checkpoint taken now fetches it again.
    /// (When the query's own request failed there is no checkpoint: the
    /// query is sent again from the start.)
    pub fn give_back(&mut self) {
        if let Some(last) = self.postbacks.last.take() {
            self.postbacks.sent.remove(&last.0.key());
            self.postbacks.pending = Some(last);
            self.fetched = self.fetched.saturating_sub(1);
            return;
        }
        if let Some(url) = self.last.take() {
            self.queue.push_front(url);
            self.fetched = self.fetched.saturating_sub(1);
            self.taken = self.taken.saturating_sub(1);
        }
    }

    /// True when [`Navigator::next_request`] has another page to hand out.
    pub fn has_next(&self) -> bool {
        self.first.is_some() || (!self.limit_reached() && self.waiting())
    }

    /// Nothing waits to be fetched: no result page queued, no post-back.
    fn waiting(&self) -> bool {
        !self.queue.is_empty() || self.postbacks.pending.is_some()
    }

    /// The next page to fetch: the query itself first, then the result pages
    /// found so far, in the order they were found; `None` when there are no
    /// more or the page limit is reached.
    pub fn next_request(&mut self) -> Option<Request> {
        if let Some(first) = self.first.take() {
            self.fetched = 1;
            return Some(first);
        }
        if self.limit_reached() {
            return None;
        }
        self.postbacks.last = None;
        if self.queue.is_empty() {
            let (link, request) = self.postbacks.pending.take()?;
            self.fetched += 1;
            self.last = None;
            self.postbacks.sent.insert(link.key());
            self.postbacks.page = match link.label() {
                Label::Page(n) => n,
                _ => self.postbacks.page + 1,
            };
            self.postbacks.last = Some((link, request.clone()));
            return Some(request);
        }
        let url = self.queue.pop_front()?;
        self.fetched += 1;
        self.taken += 1;
        self.last = Some(url.clone());
        Some(Request::get(url))
    }

    /// Takes in what the page just fetched (from `url`, after redirects)
    /// links to, and queues the result pages among them.
    ///
    /// In [`NavigationMode::Detect`] a link leads to a result page when
    ///
    /// - it is an `http(s)` link to the query's own host (and port), not
    ///   `javascript:`, `mailto:` or a fragment of the same page;
    /// - its text is a page number (`2`, `[2]`, `(2)`, `Seite 2`, `page 2`),
    ///   a range of results (`11-20`, `11 – 20`), or says "next" (`next`,
    ///   `weiter`, `nächste`, `vor`, `more`, `mehr`, `»`, `›`, `>`, `→`,
    ///   ...), and says nothing of "previous" (`zurück`, `vorherige`, `prev`,
    ///   `back`, `«`, `‹`, `<`, `first`, `erste`, ...);
    /// - it is not labelled `1` (see the module documentation);
    /// - it has the shape of the query's pagination links. Following seed
    ///   004, the links of one navigation share a structure; here the shape of
    ///   a URL is its path with digits blanked plus the names of its query
    ///   parameters. The shape is fixed on the first page that has candidates:
    ///   the shape of its first "next" link, else the shape most of its
    ///   candidate links (counting distinct targets) have. This keeps out
    ///   number-labelled links of other kinds, such as "show 10 / 20 / 50 per
    ///   page".
    pub fn result_page(&mut self, url: &Url, links: &Links) {
        self.result_page_with_pagers(url, links, &Links::new());
    }

    /// [`Navigator::result_page`], told also the links of the page's pagers:
    /// the groups of links [`crate::links`] found to be pagination (mostly
    /// page numbers). In [`NavigationMode::Detect`] a pager's link whose
    /// text the navigator cannot read (a "next" in a language it does not
    /// know) is a candidate too, under the same conditions of host and
    /// shape; a pager's links labelled `1` or "previous" stay out.
    pub fn result_page_with_pagers(&mut self, url: &Url, links: &Links, pagers: &Links) {
        self.last = None;
        self.answered = true;
        let key = page_key(url);
        if !self.seen.contains(&key) {
            self.unsaved.push(format!("{SEEN}{key}"));
            self.seen.insert(key);
        }
        // Links to pages fetched or queued lead nowhere new (while the
        // pagination shape is being found, all links count).
        let base = &url[..url::Position::AfterPath];
        if self.known_base != base {
            self.known.clear();
            self.known_base = base.to_string();
        }
        let shape_known = !matches!(self.walk, Walk::Detect(None));
        let unknown: Vec<Link<'_>> = links
            .iter()
            .filter(|link| !(shape_known && self.known.contains(link.href.trim())))
            .collect();
        let found: Vec<Url> = match &mut self.walk {
            Walk::Off | Walk::Pattern(None) => return,
            Walk::Pattern(Some(pattern)) => unknown
                .iter()
                .filter(|link| !matches!(label(link.text), Label::Page(1) | Label::Previous))
                .filter_map(|link| absolute(url, link.href))
                .filter(|target| pattern.matches(target))
                .collect(),
            Walk::Detect(shape) => detect(&self.query_url, url, &unknown, pagers, shape),
        };
        self.unread_next = unknown.iter().any(|link| {
            label(link.text) == Label::Next
                && absolute(url, link.href).is_some_and(|target| {
                    target.path() == self.query_url.path()
                        && crate::fetch::on_allowed_host(
                            &self.query_url,
                            &target,
                            &self.other_hosts,
                        )
                        && !self.seen.contains(&page_key(&target))
                        && !found.contains(&target)
                })
        });
        for target in found {
            // More than the pages still allowed (and one to tell that the
            // limit cut the walk short) would never be fetched: a page with
            // a million page links queues no more than that.
            if self
                .max_pages
                .is_some_and(|max| self.fetched + self.queue.len() as u64 > max)
            {
                break;
            }
            if !crate::fetch::on_allowed_host(&self.query_url, &target, &self.other_hosts) {
                continue;
            }
            let key = page_key(&target);
            if self.seen.insert(key) {
                let mut target = target;
                target.set_fragment(None);
                self.unsaved.push(target.to_string());
                self.queue.push_back(target);
            }
        }
        for link in unknown {
            let href = link.href.trim();
            if absolute(url, href).is_some_and(|target| self.seen.contains(&page_key(&target))) {
                self.known.insert(href.to_string());
            }
        }
    }

    /// Whether [`Navigator::result_page_with_pagers`] needs the page's
    /// pagers (finding them costs more than reading the page's links):
    /// only in [`NavigationMode::Detect`], and once the pagination shape is
    /// known, only when a link that is neither a number nor "next" or
    /// "previous" leads to a page of that shape (the pagers could make it a
    /// result page).
    pub fn needs_pagers(&self, url: &Url, links: &Links) -> bool {
        let shape = match &self.walk {
            Walk::Detect(None) => return true,
            Walk::Detect(Some(shape)) => shape,
            Walk::Off | Walk::Pattern(_) => return false,
        };
        links.iter().any(|link| {
            label(link.text) == Label::Other
                && absolute(url, link.href).is_some_and(|target| shape.matches(&target))
        })
    }

    /// Pages handed out by [`Navigator::next_request`] so far, the first
    /// included.
    pub fn pages_fetched(&self) -> u64 {
        self.fetched
    }

    /// True when the page limit stopped the walk while result pages were
    /// still waiting: the query's result is incomplete.
    pub fn cut_short(&self) -> bool {
        self.limit_reached() && self.waiting()
    }

    /// True when the walk ended, within the page limit, while the last page
    /// read linked a next page it did not follow: the query's result is
    /// incomplete, though no limit cut it.
    pub fn more_linked(&self) -> bool {
        self.answered && !self.waiting() && !self.limit_reached() && self.unread_next
    }

    /// True when the pages fetched and queued already exceed the page
    /// limit: the walk will be cut short, whatever the pages still to come
    /// show (a pager that lists more pages than the limit allows).
    pub fn beyond_limit(&self) -> bool {
        let waiting = self.queue.len() as u64 + u64::from(self.postbacks.pending.is_some());
        self.max_pages
            .is_some_and(|max| self.fetched + waiting > max)
    }

    /// Whether the navigator finds the next pages itself
    /// ([`NavigationMode::Detect`]), post-back pagers included.
    pub fn detects(&self) -> bool {
        matches!(self.walk, Walk::Detect(_))
    }

    /// Whether the page just read ([`Navigator::result_page_with_pagers`])
    /// is to be read for a post-back pager: in [`NavigationMode::Detect`],
    /// when no result page of a link waits and the limit allows another
    /// page.
    pub fn wants_postbacks(&self) -> bool {
        self.detects() && !self.waiting() && self.first.is_none() && !self.limit_reached()
    }

    /// The post-back among `links` (the pager post-backs of the page just
    /// read) that leads to the next result page: the lowest page number
    /// above the page read and not sent yet, else the first "next". None
    /// when the page brought nothing `fresh` (no value the walk's pages
    /// had not shown), or the answer is `whole` (its stated total
    /// reached).
    pub fn next_postback(
        &self,
        links: &[postback::PostbackLink],
        fresh: bool,
        whole: bool,
    ) -> Option<postback::PostbackLink> {
        if !fresh || whole || !self.wants_postbacks() {
            return None;
        }
        let current = self.postbacks.page;
        let numbered = links
            .iter()
            .filter_map(|l| match l.label() {
                Label::Page(n) if n > current && !self.postbacks.sent.contains(&l.key()) => {
                    Some((n, l))
                }
                _ => None,
            })
            .min_by_key(|(n, _)| *n)
            .map(|(_, l)| l);
        numbered
            .or_else(|| links.iter().find(|l| l.label() == Label::Next))
            .cloned()
    }

    /// Queues `link` ([`Navigator::next_postback`]) with its request, built
    /// from the page just read: the next page to fetch.
    pub fn postback(&mut self, link: postback::PostbackLink, request: Request) {
        self.postbacks.walking = true;
        self.postbacks.pending = Some((link, request));
    }

    /// The post-back handed out last by [`Navigator::next_request`], if the
    /// last page handed out was one.
    pub fn last_postback(&self) -> Option<&postback::PostbackLink> {
        self.postbacks.last.as_ref().map(|(link, _)| link)
    }

    fn limit_reached(&self) -> bool {
        self.max_pages.is_some_and(|max| self.fetched >= max)
    }
}

/// A URL as compared for "already fetched": without fragment, and without
/// an empty `?`.
fn page_key(url: &Url) -> String {
    let mut url = url.clone();
    url.set_fragment(None);
    if url.query() == Some("") {
        url.set_query(None);
    }
    url.into()
}

/// The absolute `http(s)` URL of an `href`, or `None` for scripts, mail,
/// fragments of the same page and unparsable references.
fn absolute(page: &Url, href: &str) -> Option<Url> {
    let href = href.trim();
    if href.is_empty() || href.starts_with('#') {
        return None;
    }
    let target = page.join(href).ok()?;
    matches!(target.scheme(), "http" | "https").then_some(target)
}

/// Structure shared by the pagination links of one query (see
/// [`Navigator::result_page`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Shape {
    path: String,
    params: Vec<String>,
}

impl Shape {
    fn of(url: &Url) -> Shape {
        let path = url
            .path()
            .chars()
            .map(|c| if c.is_ascii_digit() { '#' } else { c })
            .collect();
        let mut params: Vec<String> = url.query_pairs().map(|(k, _)| k.into_owned()).collect();
        params.sort();
        params.dedup();
        Shape { path, params }
    }

    /// `Shape::of(url) == *self`, without building the shape.
    fn matches(&self, url: &Url) -> bool {
        let path = url.path();
        let same_path = path.len() == self.path.len()
            && path.chars().zip(self.path.chars()).all(|(c, s)| {
                if c.is_ascii_digit() {
                    s == '#'
                } else {
                    c == s
                }
            });
        if !same_path {
            return false;
        }
        let mut params: Vec<std::borrow::Cow<'_, str>> =
            url.query_pairs().map(|(k, _)| k).collect();
        params.sort();
        params.dedup();
        params.len() == self.params.len() && params.iter().zip(&self.params).all(|(a, b)| a == b)
    }
}

/// What a link's text says about where it leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Label {
    Page(u64),
    Next,
    Previous,
    Other,
}

const NEXT_WORDS: &[&str] = &[
    "next",
    "weiter",
    "weitere",
    "nächste",
    "nächster",
    "naechste",
    "vor",
    "vorwärts",
    "more",
    "mehr",
    "»",
    "›",
    ">",
    ">>",
    "→",
    "suivant",
    "siguiente",
];

const PREVIOUS_WORDS: &[&str] = &[
    "previous",
    "prev",
    "back",
    "zurück",
    "zurueck",
    "vorherige",
    "vorheriger",
    "vorige",
    "first",
    "erste",
    "anfang",
    "«",
    "‹",
    "<",
    "<<",
    "←",
    "précédent",
    "anterior",
];

/// True for the words of [`NEXT_WORDS`] and [`PREVIOUS_WORDS`] that are
/// signs (`»`, `<<`), not letters or digits. All of those are one to two
/// code points out of ASCII's punctuation or the arrows.
fn is_mark(word: &str) -> bool {
    word.chars()
        .all(|c| c.is_ascii_punctuation() || matches!(c, '«' | '»' | '‹' | '›' | '←' | '→'))
}

/// Reads a link's visible text.
pub(crate) fn label(text: &str) -> Label {
    // Most links of a pager are a bare number.
    let bare = text.trim();
    if !bare.is_empty() && bare.bytes().all(|b| b.is_ascii_digit()) {
        return bare.parse().map_or(Label::Other, Label::Page);
    }
    let text = text.to_lowercase();
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || matches!(c, '[' | ']' | '(' | ')' | '|' | ':' | '.'))
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() {
        return Label::Other;
    }
    let has = |list: &[&str]| {
        words.iter().any(|w| {
            list.contains(w)
                // "»»", "weiter»": arrows glued to a word or repeated. A
                // word of letters and digits holds no sign (most words).
                || (!w.chars().all(char::is_alphanumeric)
                    && list.iter().any(|m| is_mark(m) && w.contains(m)))
        })
    };
    if has(PREVIOUS_WORDS) {
        return Label::Previous;
    }
    if has(NEXT_WORDS) {
        return Label::Next;
    }
    let words: Vec<&str> = words
        .into_iter()
        .filter(|w| !matches!(*w, "seite" | "page" | "s" | "p" | "nr"))
        .collect();
    let number = match words.as_slice() {
        [one] => one.split(['-', '–']).map(str::trim).collect::<Vec<_>>(),
        [from, dash, _to] if matches!(*dash, "-" | "–" | "bis" | "to") => vec![*from],
        _ => return Label::Other,
    };
    match number.as_slice() {
        [n] | [n, _] if !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) => {
            n.parse().map_or(Label::Other, Label::Page)
        }
        _ => Label::Other,
    }
}

/// The result pages a page links to, by the heuristics documented at
/// [`Navigator::result_page`] and [`Navigator::result_page_with_pagers`];
/// fixes the pagination shape on first use.
fn detect(
    query: &Url,
    page: &Url,
    links: &[Link<'_>],
    pagers: &Links,
    shape: &mut Option<Shape>,
) -> Vec<Url> {
    let own = page_key(page);
    // Looked up for every link that is neither a number nor "next".
    let pagers: HashSet<Link<'_>> = pagers.iter().collect();
    let mut candidates: Vec<(Url, Label)> = Vec::new();
    for &link in links {
        let Some(target) = absolute(page, link.href) else {
            continue;
        };
        if target.host_str() != query.host_str() || target.port() != query.port() {
            continue;
        }
        if page_key(&target) == own {
            continue;
        }
        match label(link.text) {
            Label::Next => candidates.push((target, Label::Next)),
            Label::Page(n) if n >= 2 => candidates.push((target, Label::Page(n))),
            Label::Other if pagers.contains(&link) => candidates.push((target, Label::Other)),
            _ => {}
        }
    }
    if shape.is_none() {
        *shape = pagination_shape(&candidates);
    }
    let Some(shape) = shape.as_ref() else {
        return Vec::new();
    };
    candidates
        .into_iter()
        .filter(|(target, _)| shape.matches(target))
        .map(|(target, _)| target)
        .collect()
}

/// The shape of the first "next" link, else the shape with the most distinct
/// targets (the earliest one on a tie); `None` without candidates.
fn pagination_shape(candidates: &[(Url, Label)]) -> Option<Shape> {
    if let Some((next, _)) = candidates.iter().find(|(_, l)| *l == Label::Next) {
        return Some(Shape::of(next));
    }
    let mut groups: Vec<(Shape, HashSet<String>)> = Vec::new();
    for (target, _) in candidates {
        let shape = Shape::of(target);
        let key = page_key(target);
        match groups.iter_mut().find(|(s, _)| *s == shape) {
            Some((_, targets)) => {
                targets.insert(key);
            }
            None => groups.push((shape, HashSet::from([key]))),
        }
    }
    groups
        .into_iter()
        .enumerate()
        .max_by_key(|(i, (_, targets))| (targets.len(), std::cmp::Reverse(*i)))
        .map(|(_, (shape, _))| shape)
}

#[cfg(test)]
mod tests;

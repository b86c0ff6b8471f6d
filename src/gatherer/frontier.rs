//! The crawl frontier: the ordinary pages' URLs waiting to be fetched,
//! breadth first, within the start URLs' origins, menus last.

use std::collections::{HashSet, VecDeque};

use url::Url;

/// The traditional gatherer's URL list: breadth first, within the origins
/// (scheme, host, port) of the start URLs, each URL once; the links of
/// recognised menus wait until the content and pagination links are
/// taken.
#[derive(Default)]
pub(super) struct Crawl {
    queue: VecDeque<Url>,
    /// Menu links: taken once the queue is empty.
    later: VecDeque<Url>,
    seen: HashSet<String>,
    origins: HashSet<url::Origin>,
    taken: usize,
    /// Pages the crawl takes at most.
    limit: usize,
    pub(super) cut_short: bool,
}

impl Crawl {
    /// An empty frontier for a crawl of at most `limit` pages.
    pub(super) fn new(limit: usize) -> Crawl {
        Crawl {
            limit,
            ..Crawl::default()
        }
    }

    pub(super) fn push_start(&mut self, url: Url) {
        self.origins.insert(url.origin());
        self.push(url);
    }

    pub(super) fn push_link(&mut self, url: Url) {
        self.push_within(url, false);
    }

    /// A menu link: crawled after the content and pagination links.
    pub(super) fn push_later(&mut self, url: Url) {
        self.push_within(url, true);
    }

    fn push_within(&mut self, url: Url, later: bool) {
        if matches!(url.scheme(), "http" | "https") && self.origins.contains(&url.origin()) {
            self.push_to(url, later);
        }
    }

    fn push(&mut self, url: Url) {
        self.push_to(url, false);
    }

    /// Moves a queued URL behind the others (a link of a menu found late).
    pub(super) fn defer(&mut self, url: &Url) {
        let mut url = url.clone();
        url.set_fragment(None);
        if let Some(at) = self.queue.iter().position(|u| *u == url) {
            if let Some(u) = self.queue.remove(at) {
                self.later.push_back(u);
            }
        }
    }

    fn push_to(&mut self, mut url: Url, later: bool) {
        // Beyond what the crawl may still take (and one to tell that it was
        // cut short), a URL would never be fetched: a page with a million
        // links queues no more than that.
        if self.taken + self.queue.len() + self.later.len() > self.limit {
            self.cut_short = true;
            return;
        }
        url.set_fragment(None);
        if self.seen.insert(url.to_string()) {
            if later {
                self.later.push_back(url);
            } else {
                self.queue.push_back(url);
            }
        }
    }

    pub(super) fn next(&mut self) -> Option<Url> {
        if self.taken >= self.limit {
            self.cut_short |= !self.queue.is_empty() || !self.later.is_empty();
            return None;
        }
        let url = self.queue.pop_front().or_else(|| self.later.pop_front())?;
        self.taken += 1;
        Some(url)
    }
}

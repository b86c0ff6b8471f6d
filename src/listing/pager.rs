//! The pager of one page: its next link, its numbered page links, its
//! "load more" link — read from the link groups [`crate::links`] marks as
//! pagination, the next link told by its words ("Next", "›", "Weiter",
//! "Suivant") or by `rel="next"`; and a pager that posts the page's form
//! back ([`crate::navigate::postback`]: `__doPostBack('Grid','Page$2')`,
//! a "Next" submit button, JSF's `jsfcljs`).

use url::Url;

use crate::links::{pager_end, End, Label};
use crate::links::{LinkKind, PageLink, PageLinks};

/// What a pager link leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PagerRole {
    Next,
    Previous,
    /// A numbered page.
    Page(u64),
    /// The first page ("« First", "|<").
    First,
    /// The last page ("Last »", "Última", ">|").
    Last,
    /// Any other link of the pager ("load more" …).
    Other,
}

/// One link of the pager.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PagerLink {
    pub url: Url,
    pub text: String,
    pub role: PagerRole,
}

/// The pager of a page.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Pager {
    /// The next page, if the page links to one.
    pub next: Option<Url>,
    /// Every pager link, in document order.
    pub links: Vec<PagerLink>,
    /// The post-back that leads to the next page, when the pager posts
    /// the form back: its script (`javascript:__doPostBack(…)`, a button's
    /// `name=value`).
    pub next_postback: Option<String>,
    /// Every post-back of the pager, in document order.
    pub postbacks: Vec<PostbackPagerLink>,
}

/// One post-back of a pager: what it reads, its script, where it leads.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PostbackPagerLink {
    pub text: String,
    pub script: String,
    pub role: PagerRole,
}

impl Pager {
    /// The pager among a page's links.
    pub fn of(links: &PageLinks) -> Pager {
        let mut out = Pager::default();
        let own = crate::links::document_key(&links.url);
        for (link, kind) in links.classified() {
            if kind != LinkKind::Pagination {
                continue;
            }
            let Some(url) = link.target.clone() else {
                continue;
            };
            let role = role(link);
            if role == PagerRole::Next
                && out.next.is_none()
                && crate::links::document_key(&url) != own
            {
                out.next = Some(url.clone());
            }
            out.links.push(PagerLink {
                url,
                text: link.text.clone(),
                role,
            });
        }
        out
    }

    /// Adds the page's post-back pager: its links, and the one that leads
    /// to the next page (a "next" one, else the page number after the
    /// page shown: the lowest number the pager does not link).
    pub fn with_postbacks(mut self, links: &[crate::navigate::postback::PostbackLink]) -> Pager {
        for link in links {
            let role = match link.label() {
                Label::Next => PagerRole::Next,
                Label::Previous => PagerRole::Previous,
                Label::Page(n) => PagerRole::Page(n),
                Label::Other => PagerRole::Other,
            };
            self.postbacks.push(PostbackPagerLink {
                text: link.text.clone(),
                script: link.script.clone(),
                role,
            });
        }
        let number = |p: &PostbackPagerLink| match p.role {
            PagerRole::Page(n) => Some(n),
            _ => None,
        };
        let numbers: Vec<u64> = self.postbacks.iter().filter_map(number).collect();
        let shown = (1..).find(|n| !numbers.contains(n)).unwrap_or(1);
        self.next_postback = self
            .postbacks
            .iter()
            .find(|p| p.role == PagerRole::Next)
            .or_else(|| self.postbacks.iter().find(|p| number(p) == Some(shown + 1)))
            .map(|p| p.script.clone());
        self
    }
}

/// What a link of a pager leads to, by its words (its title or class
/// where it has no text: an arrow image), or its `rel`. "Last »" leads to
/// the last page, not the next, and "« First" to the first, not the
/// previous; so do the arrows against a bar, ">|" and "|<".
pub fn role(link: &PageLink) -> PagerRole {
    if link.next {
        return PagerRole::Next;
    }
    if link.previous {
        return PagerRole::Previous;
    }
    let label = link.label();
    if label != Label::Other && !matches!(label, Label::Page(_)) {
        match pager_end(link.reading()) {
            Some(End::Last) => return PagerRole::Last,
            Some(End::First) => return PagerRole::First,
            None => {}
        }
    }
    match label {
        Label::Next => PagerRole::Next,
        Label::Previous => PagerRole::Previous,
        Label::Page(n) => PagerRole::Page(n),
        Label::Other => PagerRole::Other,
    }
}

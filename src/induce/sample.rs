//! Induction on large pages in bounded memory: a page of more than
//! [`SAMPLE_ABOVE_NODES`] nodes is aligned on a sample of its rows, and the
//! rules found on the sample are then read on the whole page.
//!
//! The template, its data and every candidate rule cost memory per node of
//! the pages they are built from (a template node is a few hundred bytes;
//! the page tree 20), so a listing of 400,000 rows took 55 times its bytes.
//! A sample keeps, of every sibling list longer than [`SAMPLE_ROWS`], the
//! first [`SAMPLE_ROWS`] children and those holding a text the user named
//! (`--name`; up to [`SAMPLE_ROWS`] of them), so the rows the rules are learnt from are rows of the page,
//! in the page's own markup, and every named text is still on its page.
//! Rules step by label and position from the root: on the first rows of a
//! list, a rule reads the same nodes in the sample as in the whole page;
//! a row rule (`tr[v:*]`) reads every row of the whole page.
//!
//! Decisions where the seed leaves a choice open:
//! - Sampling is by page size, not by list length: a page of a few hundred
//!   rows is aligned whole, as before, and its rules do not change.
//! - A page as large whose size is not in long sibling lists (a deep or a
//!   wide tree without repeated rows) is not sampled: it is aligned whole.
//! - The rules are checked on the whole pages: each slot's values are read
//!   there, and a rule that reads fewer values on a whole page than on its
//!   sample, or not the sample's values, is named in the note.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::Slot;
use crate::hel::Rule;
use crate::page::{NodeId, Page};

/// Pages with more nodes than this are aligned on a sample of their rows.
pub const SAMPLE_ABOVE_NODES: usize = 20_000;

/// How many children of a long sibling list a sample keeps first; up to as
/// many more are kept for holding a named text.
pub const SAMPLE_ROWS: usize = 200;

/// A sibling list a sample cut short.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    /// The labels from the root to the list's parent (`html.body.ul`).
    pub list: String,
    /// Children the sample kept.
    pub kept: usize,
    /// Children the page has.
    pub rows: usize,
}

/// Training pages as induction aligns them: a sample of each large page,
/// the others whole (see the module docs).
#[derive(Debug)]
pub struct Sampling {
    /// The pages to induce on, in the order given.
    pub pages: Vec<Page>,
    /// The whole page behind each sampled one.
    whole: Vec<Option<Page>>,
    /// The lists cut short, per page.
    pub cuts: Vec<Vec<Cut>>,
}

impl Sampling {
    /// Samples the large ones of `pages`, keeping the rows that hold one of
    /// `texts` (white space collapsed).
    pub fn new(pages: Vec<Page>, texts: &[String]) -> Sampling {
        let texts: Vec<String> = texts
            .iter()
            .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|t| !t.is_empty())
            .collect();
        let mut out = Sampling {
            pages: Vec::with_capacity(pages.len()),
            whole: Vec::with_capacity(pages.len()),
            cuts: Vec::with_capacity(pages.len()),
        };
        for page in pages {
            match sample(&page, &texts) {
                Some((sampled, cuts)) => {
                    out.pages.push(sampled);
                    out.whole.push(Some(page));
                    out.cuts.push(cuts);
                }
                None => {
                    out.pages.push(page);
                    out.whole.push(None);
                    out.cuts.push(Vec::new());
                }
            }
        }
        out
    }

    /// The pages to induce on, the whole ones behind the samples dropped
    /// (unlabelled pages, which only the sample is read on).
    pub fn into_pages(self) -> Vec<Page> {
        self.pages
    }

    /// Whether any page was sampled.
    pub fn sampled(&self) -> bool {
        self.whole.iter().any(Option::is_some)
    }

    /// Reads each slot's rule on the whole pages (its values there replace
    /// the sample's) and returns, per slot, the pages on which the rule
    /// read fewer values than on the sample or not the sample's values.
    pub fn check(&self, slots: &mut [Slot]) -> Vec<Vec<usize>> {
        slots
            .iter_mut()
            .map(|slot| {
                let Ok(rule) = Rule::parse(&slot.rule) else {
                    return Vec::new();
                };
                let mut differ = Vec::new();
                for (p, whole) in self.whole.iter().enumerate() {
                    let Some(whole) = whole else { continue };
                    let values = rule.eval(whole).flatten();
                    if let Some(sampled) = slot.values.get_mut(p) {
                        let (both, _, want) = super::overlap(&values, sampled);
                        if both < want {
                            differ.push(p);
                        }
                        *sampled = values;
                    }
                }
                differ
            })
            .collect()
    }
}

/// The sample of a page of more than [`SAMPLE_ABOVE_NODES`] nodes, and the
/// lists it cut; `None` for a smaller page or one without a list to cut.
pub fn sample(page: &Page, texts: &[String]) -> Option<(Page, Vec<Cut>)> {
    let nodes = page.node_count();
    if nodes <= SAMPLE_ABOVE_NODES {
        return None;
    }
    // Rows are left out as their lists are met in document order; a list
    // inside a row left out goes with that row.
    let mut pending: BinaryHeap<Reverse<NodeId>> = BinaryHeap::new();
    let mut roots: Vec<NodeId> = Vec::new();
    let mut cuts = Vec::new();
    let mut i = 0;
    while i < nodes {
        let node = NodeId::from_u32(i as u32);
        if pending.peek().is_some_and(|Reverse(d)| *d == node) {
            pending.pop();
            roots.push(node);
            i = page.subtree_end(node).index_u32() as usize;
            continue;
        }
        i += 1;
        // Counting stops early for a short list (and a text node).
        if page.children(node).nth(SAMPLE_ROWS).is_none() {
            continue;
        }
        let mut kept = 0;
        let mut rows = 0;
        for (n, child) in page.children(node).enumerate() {
            rows += 1;
            let keep = n < SAMPLE_ROWS
                || (kept < 2 * SAMPLE_ROWS && !texts.is_empty() && {
                    let text = page.text_of(child);
                    texts.iter().any(|t| text.contains(t.as_str()))
                });
            if keep {
                kept += 1;
            } else {
                pending.push(Reverse(child));
            }
        }
        let mut labels: Vec<&str> = page.ancestors(node).map(|a| page.label_name(a)).collect();
        labels.reverse();
        labels.push(page.label_name(node));
        if kept == rows {
            continue;
        }
        cuts.push(Cut {
            list: labels.join("."),
            kept,
            rows,
        });
    }
    if roots.is_empty() {
        return None;
    }
    Some((page.without_subtrees(&roots), cuts))
}

//! The Site Style Tree (seed 002: Yi, Liu and Li, "Eliminating Noisy
//! Information in Web Pages for Data Mining", 2003).
//!
//! A *style node* `S = (Es, n)` is a sequence of element nodes and the
//! number of pages that have that sequence at that place; an *element node*
//! `E = (TAG, Attr, Ss)` is a tag with its presentation attributes and the
//! style nodes below it. The style trees of a site's pages are merged top
//! down: where a page's children under an element have the same sequence
//! of (tag, attributes) as a style node, that node's count grows, else a
//! new style node is added. Then, for an element node `E` held by `m`
//! pages:
//!
//! - `NodeImp(E) = -Σ_i p_i log_m p_i` over its `l` child style nodes,
//!   `p_i` the share of the `m` pages that use style `i` (1 when `m = 1`):
//!   the more presentation styles, the more important;
//! - a leaf's `CompImp(E) = 1 - Σ_i H(a_i) / l` over its `l` features
//!   (words, link targets, image sources), `H(a_i) = -Σ_j p_ij log_m p_ij`
//!   (1 when `m = 1`): the more diverse its content, the more important;
//! - an inner node's `CompImp(E) = (1-γ^l) NodeImp(E) + γ^l Σ_i p_i
//!   CompImp(S_i)` with `CompImp(S) = Σ_j CompImp(E_j) / k` over the `k`
//!   elements of `S`, and the attenuating factor `γ = 0.9`.
//!
//! An element node is *noisy* when its composite importance and those of
//! all its descendants are below the threshold [`NOISE_THRESHOLD`]; the
//! text under a maximal noisy element node is dropped when a page is
//! mapped onto the tree.
//!
//! Decisions: the DOM the paper starts from at `BODY` is here the page
//! reduced to its content units ([`super::Blocks`], seed 000 §3.1), with
//! the text between units as leaves; a leaf's features are its distinct
//! words, link targets and image sources, each counted once per page. The
//! paper leaves the threshold open; it is 0.5, the middle of the range and
//! the same bar as seed 000's relevance: a leaf whose features recur on
//! most of the pages that share its place is noise.

use std::collections::{HashMap, HashSet};

use super::{is_text, Blocks};

/// The attenuating factor γ.
pub const GAMMA: f64 = 0.9;
/// Element nodes (with all their descendants) below this composite
/// importance are noise.
pub const NOISE_THRESHOLD: f64 = 0.5;

#[derive(Debug, Default)]
struct ElementNode {
    styles: Vec<usize>,
    /// Feature → pages whose node holds it (leaves).
    features: HashMap<Box<str>, u32>,
    importance: f64,
    /// Whether this node and all its descendants are below the threshold.
    noisy: bool,
}

#[derive(Debug)]
struct StyleNode {
    keys: Vec<u32>,
    elements: Vec<usize>,
    pages: u32,
}

/// The merged style tree of a site's pages, weighted.
#[derive(Debug)]
pub struct SiteStyleTree {
    elements: Vec<ElementNode>,
    styles: Vec<StyleNode>,
    keys: HashMap<(Box<str>, Box<str>), u32>,
}

/// The virtual root above `body`.
const ROOT: usize = 0;

impl SiteStyleTree {
    /// Merges the pages' style trees and weights every element node.
    pub fn build(pages: &[&Blocks]) -> SiteStyleTree {
        let mut tree = SiteStyleTree {
            elements: vec![ElementNode::default()],
            styles: Vec::new(),
            keys: HashMap::new(),
        };
        for page in pages {
            tree.merge(page);
        }
        tree.weigh();
        tree
    }

    fn key(&mut self, page: &Blocks, node: usize) -> u32 {
        let b = &page.blocks[node];
        let next = self.keys.len() as u32;
        *self
            .keys
            .entry((b.tag.clone(), b.style.clone()))
            .or_insert(next)
    }

    fn children(page: &Blocks, node: usize) -> Vec<usize> {
        let end = page.blocks[node].end as usize;
        let mut out = Vec::new();
        let mut c = node + 1;
        while c < end {
            out.push(c);
            c = (page.blocks[c].end as usize).max(c + 1);
        }
        out
    }

    /// Adds one page, top down, without recursion.
    fn merge(&mut self, page: &Blocks) {
        if page.is_empty() {
            return;
        }
        // (element node, the page node's children under it)
        let mut work: Vec<(usize, Vec<usize>)> = vec![(ROOT, vec![0])];
        while let Some((element, children)) = work.pop() {
            let keys: Vec<u32> = children.iter().map(|&c| self.key(page, c)).collect();
            let found = self.elements[element]
                .styles
                .iter()
                .copied()
                .find(|&s| self.styles[s].keys == keys);
            let style = match found {
                Some(s) => {
                    self.styles[s].pages += 1;
                    s
                }
                None => {
                    let elements: Vec<usize> = keys
                        .iter()
                        .map(|_| {
                            self.elements.push(ElementNode::default());
                            self.elements.len() - 1
                        })
                        .collect();
                    self.styles.push(StyleNode {
                        keys,
                        elements,
                        pages: 1,
                    });
                    self.elements[element].styles.push(self.styles.len() - 1);
                    self.styles.len() - 1
                }
            };
            for (i, &child) in children.iter().enumerate() {
                let e = self.styles[style].elements[i];
                let b = &page.blocks[child];
                if is_text(b) {
                    let features: HashSet<&str> = b
                        .text
                        .split(' ')
                        .filter(|w| !w.is_empty())
                        .chain(b.refs.iter().map(|r| &**r))
                        .collect();
                    for f in features {
                        *self.elements[e].features.entry(f.into()).or_insert(0) += 1;
                    }
                } else {
                    work.push((e, Self::children(page, child)));
                }
            }
        }
    }

    /// Computes every element node's composite importance and whether it
    /// is noisy, children before parents.
    fn weigh(&mut self) {
        // Pages holding each element node: the count of its style node.
        let mut held = vec![0u32; self.elements.len()];
        held[ROOT] = self.styles.iter().map(|s| s.pages).max().unwrap_or(1);
        let mut order: Vec<usize> = Vec::with_capacity(self.elements.len());
        let mut stack = vec![ROOT];
        while let Some(e) = stack.pop() {
            order.push(e);
            for &s in &self.elements[e].styles {
                for &c in &self.styles[s].elements {
                    held[c] = self.styles[s].pages;
                    stack.push(c);
                }
            }
        }
        for &e in order.iter().rev() {
            let m = held[e].max(1);
            let (importance, all_noisy_below) = if self.elements[e].styles.is_empty() {
                (self.leaf_importance(e, m), true)
            } else {
                self.inner_importance(e, m)
            };
            let node = &mut self.elements[e];
            node.importance = importance;
            node.noisy = all_noisy_below && importance < NOISE_THRESHOLD;
        }
    }

    fn leaf_importance(&self, e: usize, m: u32) -> f64 {
        let features = &self.elements[e].features;
        if m <= 1 || features.is_empty() {
            return 1.0;
        }
        let ln_m = f64::from(m).ln();
        // A feature on k of the m pages: p_ij = 1/k on those, H = log_m k.
        let entropy: f64 = features
            .values()
            .map(|&k| f64::from(k.max(1)).ln() / ln_m)
            .sum();
        1.0 - entropy / features.len() as f64
    }

    /// The composite importance of an inner node, and whether all its
    /// descendants are noisy.
    fn inner_importance(&self, e: usize, m: u32) -> (f64, bool) {
        let styles = &self.elements[e].styles;
        let l = styles.len() as i32;
        let p = |s: usize| f64::from(self.styles[s].pages) / f64::from(m);
        let node_importance = if m <= 1 {
            1.0
        } else {
            let ln_m = f64::from(m).ln();
            -styles.iter().map(|&s| p(s) * p(s).ln() / ln_m).sum::<f64>()
        };
        let mut all_noisy = true;
        let styles_importance: f64 = styles
            .iter()
            .map(|&s| {
                let elements = &self.styles[s].elements;
                all_noisy &= elements.iter().all(|&c| self.elements[c].noisy);
                let style = if elements.is_empty() {
                    1.0
                } else {
                    elements
                        .iter()
                        .map(|&c| self.elements[c].importance)
                        .sum::<f64>()
                        / elements.len() as f64
                };
                p(s) * style
            })
            .sum();
        let g = GAMMA.powi(l);
        (
            (1.0 - g) * node_importance + g * styles_importance,
            all_noisy,
        )
    }

    /// Maps a page onto the tree: which of its text nodes to keep (those
    /// under no noisy element node). A page the tree was not built from
    /// keeps whatever does not map.
    pub fn keep(&self, page: &Blocks) -> Vec<bool> {
        let mut keep = vec![false; page.len()];
        if page.is_empty() {
            return keep;
        }
        let mut work: Vec<(usize, Vec<usize>)> = vec![(ROOT, vec![0])];
        while let Some((element, children)) = work.pop() {
            let keys: Option<Vec<u32>> = children
                .iter()
                .map(|&c| {
                    let b = &page.blocks[c];
                    self.keys.get(&(b.tag.clone(), b.style.clone())).copied()
                })
                .collect();
            let style = keys.and_then(|keys| {
                self.elements[element]
                    .styles
                    .iter()
                    .copied()
                    .find(|&s| self.styles[s].keys == keys)
            });
            for (i, &child) in children.iter().enumerate() {
                let e = style.map(|s| self.styles[s].elements[i]);
                if e.is_some_and(|e| self.elements[e].noisy) {
                    continue;
                }
                if is_text(&page.blocks[child]) {
                    keep[child] = true;
                } else if let Some(e) = e {
                    work.push((e, Self::children(page, child)));
                } else {
                    let end = page.blocks[child].end as usize;
                    for (k, b) in keep[child..end].iter_mut().zip(&page.blocks[child..end]) {
                        *k = is_text(b);
                    }
                }
            }
        }
        keep
    }

    /// The number of element nodes (the virtual root included).
    pub fn element_nodes(&self) -> usize {
        self.elements.len()
    }
}

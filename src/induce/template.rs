//! Templates (seed 001 §4.1): ordered, labelled trees whose leaves may be
//! wildcards (*jokers*), and how two of them are merged (§4.1.2).

use crate::page::{NodeId, Page, PCDATA};

/// The four wildcards of Definition 9 (§4.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Joker {
    /// `.`: aligns with exactly one subtree (a replacement in the edit script).
    Single,
    /// `?`: aligns with one subtree or none (a node only some pages have).
    Optional,
    /// `+`: one or more neighbouring subtrees.
    Plus,
    /// `*`: any number of neighbouring subtrees.
    Kleene,
}

impl Joker {
    /// The sign the thesis writes the wildcard with.
    pub fn sign(self) -> char {
        match self {
            Joker::Single => '.',
            Joker::Optional => '?',
            Joker::Plus => '+',
            Joker::Kleene => '*',
        }
    }
}

/// The label the tree gives a text node (`#text` in the DOM, `pcdata` in HEL).
pub const TEXT: &str = "#text";

/// The largest matrix (cells) the distances' approximation fills for two
/// sibling lists; longer lists are paired position by position, and a
/// template does not align with a tree whose children would need more.
pub const MAX_ALIGN_CELLS: usize = 1_000_000;

/// A node of a template; a page's tree is a template without wildcards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateNode {
    /// The element name in lower case, or [`TEXT`].
    pub label: String,
    /// A text node's content (white space collapsed); `None` for elements
    /// and wildcards.
    pub text: Option<String>,
    pub joker: Option<Joker>,
    /// Empty for a wildcard: its descendants are pruned (§4.1.1).
    pub children: Vec<TemplateNode>,
    /// Nodes in the subtree; for a wildcard, the largest subtree it consumed.
    pub size: usize,
    /// The nodes of the training pages this node stands for: (page, node).
    /// For a wildcard, the roots of the subtrees it consumed.
    pub(crate) cover: Vec<(usize, NodeId)>,
}

impl TemplateNode {
    /// A node of a test tree or of hand-written examples: `label` with
    /// children; a label starting with `"` is a text node with that content.
    pub fn new(label: &str, children: Vec<TemplateNode>) -> TemplateNode {
        match label.strip_prefix('"') {
            Some(t) => TemplateNode::plain(TEXT.to_string(), Some(t.to_string()), children, None),
            None => TemplateNode::plain(label.to_string(), None, children, None),
        }
    }

    /// A node without a wildcard, covering `cover` if given.
    fn plain(
        label: String,
        text: Option<String>,
        children: Vec<TemplateNode>,
        cover: Option<(usize, NodeId)>,
    ) -> TemplateNode {
        let size = 1 + children.iter().map(|c| c.size).sum::<usize>();
        TemplateNode {
            label,
            text,
            joker: None,
            children,
            size,
            cover: cover.into_iter().collect(),
        }
    }

    /// The page's tree from `node` down, every node covering itself on page
    /// number `page`. Recursion is bounded by the page tree's depth cap
    /// (`crate::page::MAX_DEPTH`).
    pub(crate) fn from_page(page: &Page, index: usize, node: NodeId) -> TemplateNode {
        let children: Vec<TemplateNode> = page
            .children(node)
            .map(|c| TemplateNode::from_page(page, index, c))
            .collect();
        let (label, text) = if page.label_of(node) == PCDATA {
            (TEXT.to_string(), Some(page.text_of(node)))
        } else {
            (page.label_name(node).to_string(), None)
        };
        TemplateNode::plain(label, text, children, Some((index, node)))
    }

    /// Whether the two are the same node for the edit script (§4.1.2): both
    /// wildcards of one kind with one label, or both plain nodes with one
    /// label — and, for text nodes, the same text (§5.3: text is a marker).
    pub fn same(&self, other: &TemplateNode) -> bool {
        self.label == other.label && self.joker == other.joker && self.text == other.text
    }

    /// The label as the sibling strings of §5.2 spell it (`VERTAAL`).
    pub(crate) fn spelled(&self) -> String {
        match self.joker {
            Some(j) => format!("{}{}", self.label, j.sign()),
            None => self.label.clone(),
        }
    }

    /// This node turned into a wildcard: children pruned, the cover kept.
    pub(crate) fn into_joker(mut self, joker: Joker) -> TemplateNode {
        self.joker = Some(joker);
        self.text = None;
        self.children = Vec::new();
        self
    }

    /// This node with its subtree made a wildcard as a node that is not in
    /// the mapping: `f(v, ?)` of §4.1.2.
    pub(crate) fn unmapped(self) -> TemplateNode {
        let joker = combine(self.joker, Some(Joker::Optional), true);
        self.into_joker(joker.unwrap_or(Joker::Optional))
    }

    /// The wildcards of the template in document order.
    pub fn jokers(&self) -> Vec<&TemplateNode> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(n) = stack.pop() {
            if n.joker.is_some() {
                out.push(n);
            }
            stack.extend(n.children.iter().rev());
        }
        out
    }

    /// The template in the thesis's notation: `label(children)`, a wildcard
    /// followed by its sign, text quoted.
    pub fn notation(&self) -> String {
        let head = match (&self.text, self.joker) {
            (Some(t), None) => format!("{t:?}"),
            _ => self.spelled(),
        };
        if self.children.is_empty() {
            head
        } else {
            let inner: Vec<String> = self.children.iter().map(|c| c.notation()).collect();
            format!("{head}({})", inner.join(" "))
        }
    }
}

impl TemplateNode {
    /// The post-processing of §4.3, applied once the template is learnt:
    /// first pruning (a plain node whose children are all wildcards becomes
    /// one wildcard: single if one of them was single or plus, else
    /// optional), then Reis's step (neighbouring wildcards with one label
    /// become one: plus if one of them was single or plus, else kleene), so
    /// the template aligns with lists longer than its training pages had.
    /// The wildcards consume the same page nodes as before.
    pub fn post_processed(self) -> TemplateNode {
        self.post_process().0
    }

    /// [`post_processed`](Self::post_processed), and whether this node was
    /// pruned: pruning moves a wildcard up one level, not on up to the root.
    fn post_process(mut self) -> (TemplateNode, bool) {
        let children = std::mem::take(&mut self.children);
        let done: Vec<(TemplateNode, bool)> = children
            .into_iter()
            .map(TemplateNode::post_process)
            .collect();
        let required = |j: Option<Joker>| matches!(j, Some(Joker::Single | Joker::Plus));
        if self.joker.is_none()
            && self.text.is_none()
            && !done.is_empty()
            && done.iter().all(|(c, pruned)| c.joker.is_some() && !pruned)
        {
            let joker = if done.iter().any(|(c, _)| required(c.joker)) {
                Joker::Single
            } else {
                Joker::Optional
            };
            return (self.into_joker(joker), true);
        }
        let children = done.into_iter().map(|(c, _)| c);
        let mut merged: Vec<TemplateNode> = Vec::with_capacity(children.len());
        for child in children {
            match merged.last_mut() {
                Some(last)
                    if last.joker.is_some()
                        && child.joker.is_some()
                        && last.label == child.label =>
                {
                    let either = required(last.joker) || required(child.joker);
                    last.joker = Some(if either { Joker::Plus } else { Joker::Kleene });
                    last.size = last.size.max(child.size);
                    last.cover.extend(child.cover);
                }
                _ => merged.push(child),
            }
        }
        self.children = merged;
        self.size = 1 + self.children.iter().map(|c| c.size).sum::<usize>();
        (self, false)
    }

    /// Whether the template aligns with a tree (Definition 10, §4.4): every
    /// plain node of the template maps onto an identical node (texts equal),
    /// every node of the tree maps onto one or is consumed by a wildcard of
    /// its label, single once, optional at most once, plus at least once,
    /// kleene any number of times. Sibling lists longer than the
    /// approximation's matrix do not align.
    pub fn aligns(&self, tree: &TemplateNode) -> bool {
        if self.joker.is_some() {
            return self.label == tree.label;
        }
        if !self.same(tree) {
            return false;
        }
        let (t, p) = (&self.children, &tree.children);
        if t.len().saturating_add(1) * p.len().saturating_add(1) > MAX_ALIGN_CELLS {
            return false;
        }
        // reach[i][j]: the first i template children align with the first
        // j children of the tree.
        let w = p.len() + 1;
        let mut reach = vec![false; (t.len() + 1) * w];
        reach[0] = true;
        for (i, item) in t.iter().enumerate() {
            for j in 0..=p.len() {
                if !reach[i * w + j] {
                    continue;
                }
                let label_at = |k: usize| p.get(k).is_some_and(|n| n.label == item.label);
                match item.joker {
                    None => {
                        if j < p.len() && item.aligns(&p[j]) {
                            reach[(i + 1) * w + j + 1] = true;
                        }
                    }
                    Some(Joker::Single) => {
                        if label_at(j) {
                            reach[(i + 1) * w + j + 1] = true;
                        }
                    }
                    Some(Joker::Optional) => {
                        reach[(i + 1) * w + j] = true;
                        if label_at(j) {
                            reach[(i + 1) * w + j + 1] = true;
                        }
                    }
                    Some(kind @ (Joker::Plus | Joker::Kleene)) => {
                        if kind == Joker::Kleene {
                            reach[(i + 1) * w + j] = true;
                        }
                        let mut k = j;
                        while label_at(k) {
                            k += 1;
                            reach[(i + 1) * w + k] = true;
                        }
                    }
                }
            }
        }
        reach[t.len() * w + p.len()]
    }
}

/// `f(v, w)` of §4.1.2: the wildcard (or none) of the node that merges `v`
/// and `w`; `same_label` tells whether two plain nodes have one label.
/// A node not in the mapping merges as `f(v, ?)`.
pub(crate) fn combine(v: Option<Joker>, w: Option<Joker>, same_label: bool) -> Option<Joker> {
    use Joker::*;
    let rank = |j: Option<Joker>| match j {
        Some(Kleene) => 4,
        Some(Plus) => 3,
        Some(Single) => 2,
        Some(Optional) => 1,
        None => 0,
    };
    let (a, b) = if rank(v) >= rank(w) { (v, w) } else { (w, v) };
    match (a, b) {
        (Some(Kleene), _) => Some(Kleene),
        (Some(Plus), Some(Optional)) => Some(Kleene),
        (Some(Plus), _) => Some(Plus),
        (Some(Single), Some(Optional)) => Some(Optional),
        (Some(Single), _) => Some(Single),
        (Some(Optional), _) => Some(Optional),
        (None, _) if same_label => None,
        (None, _) => Some(Single),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_merge_table_of_section_4_1_2() {
        use Joker::*;
        let n = None;
        let cases = [
            (Some(Kleene), Some(Plus), Some(Kleene)),
            (Some(Kleene), n, Some(Kleene)),
            (Some(Plus), Some(Single), Some(Plus)),
            (Some(Plus), Some(Optional), Some(Kleene)),
            (Some(Plus), n, Some(Plus)),
            (Some(Single), Some(Optional), Some(Optional)),
            (Some(Single), n, Some(Single)),
            (Some(Optional), n, Some(Optional)),
            (Some(Optional), Some(Optional), Some(Optional)),
        ];
        for (v, w, want) in cases {
            assert_eq!(combine(v, w, true), want, "f({v:?}, {w:?})");
            assert_eq!(combine(w, v, true), want, "f({w:?}, {v:?})");
        }
        assert_eq!(combine(n, n, true), None);
        assert_eq!(combine(n, n, false), Some(Single));
    }

    #[test]
    fn post_processing_prunes_and_combines_so_longer_lists_align() {
        let li = |t: &str| TemplateNode::new("li", vec![TemplateNode::new(t, vec![])]);
        // A template learnt from lists of two and three items.
        let template = TemplateNode::new(
            "ul",
            vec![
                TemplateNode::new(
                    "li",
                    vec![TemplateNode::new("\"a", vec![]).into_joker(Joker::Single)],
                ),
                TemplateNode::new(
                    "li",
                    vec![TemplateNode::new("\"b", vec![]).into_joker(Joker::Single)],
                ),
                TemplateNode::new("li", vec![]).into_joker(Joker::Optional),
            ],
        );
        let five = TemplateNode::new("ul", (0..5).map(|i| li(&format!("\"{i}"))).collect());
        let one = TemplateNode::new("ul", vec![li("\"x")]);
        assert!(!template.aligns(&five), "three items at most before §4.3");
        let post = template.clone().post_processed();
        assert_eq!(post.notation(), "ul(li+)");
        assert!(post.aligns(&five));
        assert!(post.aligns(&one));
        assert!(
            !post.aligns(&TemplateNode::new("ul", vec![])),
            "plus needs one"
        );
        assert!(!post.aligns(&TemplateNode::new("ol", vec![li("\"x")])));
        // Plain text must be the same text.
        let fixed = TemplateNode::new("p", vec![TemplateNode::new("\"Preis", vec![])]);
        assert!(fixed.aligns(&fixed.clone()));
        assert!(!fixed.aligns(&TemplateNode::new(
            "p",
            vec![TemplateNode::new("\"Ort", vec![])]
        )));
    }

    #[test]
    fn notation_and_jokers_in_document_order() {
        let t = TemplateNode::new(
            "div",
            vec![
                TemplateNode::new("a", vec![]).into_joker(Joker::Single),
                TemplateNode::new("\"x", vec![]),
                TemplateNode::new("p", vec![]).unmapped(),
            ],
        );
        assert_eq!(t.notation(), "div(a. \"x\" p?)");
        let labels: Vec<&str> = t.jokers().iter().map(|j| j.label.as_str()).collect();
        assert_eq!(labels, ["a", "p"]);
    }
}

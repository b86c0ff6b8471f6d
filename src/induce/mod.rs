//! Template induction (seed 001, Borra 2006): from two or more result pages
//! of one site, the template they share and the data slots where they
//! differ, written as HEL rules.
//!
//! 1. Each page's tree (the one `crate::page` built; no page is parsed
//!    again) becomes a template without wildcards, and the pages are merged
//!    one after the other (§4.1.2): the template of the first two, then that
//!    template with the third, and so on. The mapping comes from the
//!    approximation of the restricted top-down tree edit distance (§5.2,
//!    cost function of §5.3), or, with [`Algorithm::Restricted`], from the
//!    restricted top-down distance itself (§3.3) with the inertia prices of
//!    §4.2 (see [`distance`]).
//! 2. The template's wildcards are the data slots (§2.1: "de open ruimtes
//!    … worden telkens gevuld met gelijkaardige semantische gegevens"); the
//!    texts below the page nodes each wildcard consumed are the data.
//! 3. Extraction (§4.4) is left to HEL: for the data, the extraction wizard
//!    (`crate::locate`) gives the rules a user of W4F would write — anchored
//!    on a column or row header, on an `id`, `name` or `class`, or on an
//!    attribute every row of the same kind carries — and the canonical path
//!    as the last resort. Every candidate rule is evaluated on every page;
//!    the rules kept are chosen greedily: the rule that gives the most data
//!    not yet given, among rules of which at least [`MIN_PRECISION`] of the
//!    values are data, the rule with more values (more rows) first, a
//!    rule that reads every row before one that reads one row (values
//!    equal on every row of a page make both give the same data), an anchored rule before a bare path, a shorter rule
//!    before a longer one — until no rule gives new data on two pages.
//!
//! Decisions where the seed leaves a choice open:
//! - The learnt template is post-processed as §6.5 found best: pruning
//!   first, then Reis's plus and kleene (§4.3), so that it aligns
//!   (Definition 10, [`aligned`]) with lists longer than the training
//!   pages had; pruning lifts a wildcard one level, not on to the root.
//!   Hogue's list collapse is left out, as in the thesis (too costly for
//!   large trees). Extraction itself is not done by aligning the template
//!   (§4.4) but by HEL rules: one `tr[v:*]` rule reads the slot of every
//!   row, however many rows a page has, which is what makes the rules hold
//!   on pages the tool never saw.
//! - A value counts as data when its text is data on any training page: a
//!   row whose value happens to equal the value in the same place on every
//!   other page is template there, but the rule reading it is no worse.
//! - A slot whose data is on only one page (an optional element) gives no
//!   rule: one page is no evidence of a template's slot (§6.4's remark on
//!   representative examples).
//! - The data of a wildcard are the texts of the nodes it consumed, widened
//!   to their element as the wizard does; texts in scripts and styles are
//!   not data.

pub mod distance;
pub mod sample;
pub mod template;

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::hel::Rule;
use crate::locate::{location_of, widest_with_same_text};
use crate::page::{NodeId, Page, PCDATA, SCRIPT, STYLE};

pub use distance::{approximate, restricted_distance, restricted_template, Costs};
pub use sample::{Cut, Sampling};
pub use template::{Joker, TemplateNode};

/// The smallest share of a kept rule's values that must be data.
pub const MIN_PRECISION: f64 = 0.8;

/// How the pages' mapping is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Algorithm {
    /// The approximation of §5.2 (the default, as in the thesis's experiments).
    #[default]
    Approximate,
    /// The restricted top-down tree edit distance of §3.3 with inertia (§4.2).
    Restricted,
}

/// What goes wrong when inducing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InduceError {
    #[error("template induction needs at least two pages of one site, got {0}")]
    TooFewPages(usize),
    #[error(
        "pages of {} and {} nodes are too large for the restricted top-down distance; the approximation takes them",
        nodes.0, nodes.1
    )]
    TooLarge { nodes: (usize, usize) },
    #[error("{0:?} occurs on none of the pages")]
    NotFound(String),
    #[error("no rule gives {missing:?} together with the other texts of {name}")]
    NoCommonRule { name: String, missing: String },
}

/// The merged template of pages (§4.1.2), built with `algorithm`.
pub fn template(pages: &[Page], algorithm: Algorithm) -> Result<TemplateNode, InduceError> {
    if pages.len() < 2 {
        return Err(InduceError::TooFewPages(pages.len()));
    }
    let mut merged = TemplateNode::from_page(&pages[0], 0, Page::ROOT);
    for (i, page) in pages.iter().enumerate().skip(1) {
        let tree = TemplateNode::from_page(page, i, Page::ROOT);
        let mut nodes = match algorithm {
            Algorithm::Approximate => approximate(&merged, &tree).1,
            Algorithm::Restricted => {
                let pairs = merged.size.saturating_mul(tree.size);
                if pairs > distance::MAX_RESTRICTED_PAIRS {
                    return Err(InduceError::TooLarge {
                        nodes: (merged.size, tree.size),
                    });
                }
                restricted_template(&merged, &tree, Costs::INERTIA).1
            }
        };
        // Both roots are `html` (hel.md §1), so they always pair.
        merged = nodes.swap_remove(0);
    }
    Ok(merged.post_processed())
}

/// How many of `pages` the template aligns with (Definition 10, §4.4; the
/// measure of §6.3).
pub fn aligned(template: &TemplateNode, pages: &[Page]) -> usize {
    pages
        .iter()
        .filter(|p| template.aligns(&TemplateNode::from_page(p, 0, Page::ROOT)))
        .count()
}

/// A text on a training page that a wildcard of the template consumed.
#[derive(Debug, Clone)]
struct Datum {
    page: usize,
    node: NodeId,
    text: String,
}

/// A rule and what it gives on the training pages.
#[derive(Debug, Clone)]
struct Candidate {
    rule: String,
    /// Flattened values per page.
    values: Vec<Vec<String>>,
    /// Indexes of the data the values give.
    covers: Vec<usize>,
    /// Values that are no data.
    stray: usize,
}

impl Candidate {
    fn total(&self) -> usize {
        self.values.iter().map(Vec::len).sum()
    }
    fn precision(&self) -> f64 {
        let total = self.total();
        if total == 0 {
            0.0
        } else {
            (total - self.stray) as f64 / total as f64
        }
    }
    fn anchored(&self) -> bool {
        self.rule.contains(" WHERE ")
    }
    /// Reads every row (`[v:*]`, `[*]`): a result page is a list, and a
    /// rule for one row holds only while the row stays first.
    fn reads_rows(&self) -> bool {
        self.rule.contains(":*]") || self.rule.contains("[*]")
    }
}

/// A data slot as a rule, with its values on the training pages.
#[derive(Debug, Clone, PartialEq)]
pub struct Slot {
    /// The attribute name: given with `--name`, found by
    /// [`Induction::name_by_values`], or `None`.
    pub name: Option<String>,
    /// The HEL rule (absolute; parses with `crate::hel`).
    pub rule: String,
    /// The rule's values on each training page, flattened.
    pub values: Vec<Vec<String>>,
    /// Share of the values that are data of the template's wildcards.
    pub precision: f64,
}

/// The outcome of inducing over training pages.
#[derive(Debug, Clone)]
pub struct Induction {
    /// The merged template.
    pub template: TemplateNode,
    /// The rules kept, in document order of their first value.
    pub slots: Vec<Slot>,
    data: Vec<Datum>,
    candidates: HashMap<String, Candidate>,
}

/// Induces the template of `pages` and its data slots as rules (see the
/// module docs).
pub fn induce(pages: &[Page], algorithm: Algorithm) -> Result<Induction, InduceError> {
    let template = template(pages, algorithm)?;
    let data = data_of(pages, &template);
    let mut by_text: Vec<HashMap<&str, Vec<usize>>> = vec![HashMap::new(); pages.len()];
    for (i, d) in data.iter().enumerate() {
        by_text[d.page].entry(d.text.as_str()).or_default().push(i);
    }
    // Candidate rules from a few data of each shape (the labels on the
    // way from the root): the rows of one list give the same rules.
    let mut per_shape: HashMap<(usize, String), usize> = HashMap::new();
    let mut rules: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for d in &data {
        let shape = shape(&pages[d.page], d.node);
        let n = per_shape.entry((d.page, shape)).or_default();
        if *n >= 4 {
            continue;
        }
        *n += 1;
        if let Some(loc) = location_of(&pages[d.page], d.node) {
            for r in loc.alternatives.into_iter().chain([loc.path]) {
                for r in std::iter::once(r.clone()).chain(every_row(&r)) {
                    if seen.insert(r.clone()) {
                        rules.push(r);
                    }
                }
            }
        }
    }
    let mut candidates = HashMap::new();
    for rule in rules {
        if let Some(c) = evaluate(&rule, pages, &by_text) {
            candidates.insert(rule, c);
        }
    }
    let mut induction = Induction {
        template,
        slots: Vec::new(),
        data,
        candidates,
    };
    induction.choose();
    Ok(induction)
}

/// The data of the template's wildcards (module docs, point 2).
fn data_of(pages: &[Page], template: &TemplateNode) -> Vec<Datum> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for joker in template.jokers() {
        for &(p, root) in &joker.cover {
            let page = &pages[p];
            let end = page.subtree_end(root);
            let mut node = root;
            while node < end {
                if matches!(page.label_of(node), SCRIPT | STYLE) {
                    node = page.subtree_end(node);
                    continue;
                }
                if page.label_of(node) == PCDATA {
                    let text = page.text_of(node);
                    if !text.is_empty() {
                        let wide = widest_with_same_text(page, node, &text);
                        if seen.insert((p, wide)) {
                            out.push(Datum {
                                page: p,
                                node: wide,
                                text,
                            });
                        }
                    }
                }
                node = node.next();
            }
        }
    }
    out.sort_by_key(|d| (d.page, d.node));
    out
}

/// Labels of the elements that repeat once per row of a result list.
const ROW_LABELS: [&str; 6] = ["tr", "li", "article", "div", "section", "dl"];

/// The rule with one row step read for every row instead (`tr[3]` or
/// `tr` → `tr[*]`), one variant per such step: the wizard's rule for one
/// datum of a list reads the rows the list has on any page.
fn every_row(rule: &str) -> Vec<String> {
    static STEP: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let step = STEP.get_or_init(|| {
        regex::Regex::new(r"(\.|->)([a-z][a-z0-9]*)(\[[0-9]+\])?").expect("a valid regex")
    });
    let path_end = rule.find(" WHERE ").unwrap_or(rule.len());
    let path = &rule[..path_end];
    step.captures_iter(path)
        .filter(|c| ROW_LABELS.contains(&&c[2]))
        .filter_map(|c| {
            let m = c.get(0)?;
            // A step indexed by a variable (`tr[v]`) is left alone.
            if c.get(3).is_none() && path[m.end()..].starts_with('[') {
                return None;
            }
            Some(format!(
                "{}{}{}[*]{}",
                &rule[..m.start()],
                &c[1],
                &c[2],
                &rule[m.end()..]
            ))
        })
        .collect()
}

/// The labels from the root down to a node.
fn shape(page: &Page, node: NodeId) -> String {
    let mut labels: Vec<&str> = page.ancestors(node).map(|a| page.label_name(a)).collect();
    labels.reverse();
    labels.push(page.label_name(node));
    labels.join("/")
}

fn evaluate(
    rule: &str,
    pages: &[Page],
    by_text: &[HashMap<&str, Vec<usize>>],
) -> Option<Candidate> {
    let parsed = Rule::parse(rule).ok()?;
    let mut values = Vec::with_capacity(pages.len());
    let mut covers = BTreeSet::new();
    let mut stray = 0;
    for (p, page) in pages.iter().enumerate() {
        let vs = parsed.eval(page).flatten();
        for v in &vs {
            match by_text[p].get(v.as_str()) {
                Some(ids) => covers.extend(ids.iter().copied()),
                // A text that is data on another page is a value of the
                // slot that stayed where the pages agree.
                None if by_text.iter().any(|t| t.contains_key(v.as_str())) => {}
                None => stray += 1,
            }
        }
        values.push(vs);
    }
    Some(Candidate {
        rule: rule.to_string(),
        values,
        covers: covers.into_iter().collect(),
        stray,
    })
}

impl Induction {
    /// The greedy choice of the module docs, point 3.
    fn choose(&mut self) {
        let mut left: HashSet<usize> = (0..self.data.len()).collect();
        let mut chosen: Vec<(usize, Slot)> = Vec::new();
        loop {
            let best = self
                .candidates
                .values()
                .filter(|c| c.precision() >= MIN_PRECISION)
                .map(|c| {
                    let new: Vec<usize> = c
                        .covers
                        .iter()
                        .copied()
                        .filter(|i| left.contains(i))
                        .collect();
                    let pages: HashSet<usize> = new.iter().map(|&i| self.data[i].page).collect();
                    (c, new, pages.len())
                })
                .filter(|(_, new, pages)| new.len() >= 2 && *pages >= 2)
                .max_by(|(a, an, _), (b, bn, _)| {
                    an.len()
                        .cmp(&bn.len())
                        .then(a.total().cmp(&b.total()))
                        .then(a.reads_rows().cmp(&b.reads_rows()))
                        .then(a.anchored().cmp(&b.anchored()))
                        .then(b.rule.len().cmp(&a.rule.len()))
                        .then(b.rule.cmp(&a.rule))
                });
            let Some((c, new, _)) = best else {
                break;
            };
            let first = new.iter().copied().min().unwrap_or(0);
            for i in &new {
                left.remove(i);
            }
            chosen.push((first, slot_of(c, None)));
        }
        chosen.sort_by_key(|(first, _)| *first);
        self.slots = chosen.into_iter().map(|(_, s)| s).collect();
    }

    /// The rule that gives every text of `texts` on the pages it occurs on,
    /// named `name`: among the induced candidates and the wizard's rules for
    /// those texts, the one that gives the most of them (as a value or
    /// within one), then the most of them as whole values, then the most
    /// data, an anchored rule before a bare path.
    pub fn name(
        &mut self,
        pages: &[Page],
        name: &str,
        texts: &[String],
    ) -> Result<Slot, InduceError> {
        self.name_generalising(pages, &[], name, texts)
    }

    /// [`Induction::name`], with the rules also found by the field's label
    /// (the text the page puts before the value: "ISBN-13:"), and chosen by
    /// how they behave on the pages the texts are not on — `unlabelled`
    /// pages of the same site, and those of `pages` where none of the texts
    /// occurs. Among the rules that give the texts, with values not much
    /// longer than them, the one that reads a value of the same kind on
    /// most of those pages is kept: one value where the named pages had
    /// one, the same shape (digits stay digits, a short text stays short),
    /// not the same value on most pages (a menu entry, not data).
    pub fn name_generalising(
        &mut self,
        pages: &[Page],
        unlabelled: &[Page],
        name: &str,
        texts: &[String],
    ) -> Result<Slot, InduceError> {
        let wanted: Vec<String> = texts
            .iter()
            .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|t| !t.is_empty())
            .collect();
        let mut by_text: Vec<HashMap<&str, Vec<usize>>> = vec![HashMap::new(); pages.len()];
        for (i, d) in self.data.iter().enumerate() {
            by_text[d.page].entry(d.text.as_str()).or_default().push(i);
        }
        // Where each text occurs; the wizard's rules for it join the
        // candidates, and so do the rules by its label.
        let mut occurs: Vec<Vec<usize>> = Vec::new();
        let mut extra = Vec::new();
        for text in &wanted {
            let mut on = Vec::new();
            for (p, page) in pages.iter().enumerate() {
                let found = crate::locate::locate(page, text);
                if !found.is_empty() {
                    on.push(p);
                }
                for loc in found.into_iter().take(4) {
                    extra.extend(loc.alternatives);
                    extra.push(loc.path);
                }
                for node in crate::locate::nodes_holding(page, text).into_iter().take(8) {
                    extra.extend(crate::locate::by_label(page, node, text));
                    extra.extend(crate::locate::by_own_label(page, node));
                }
            }
            if on.is_empty() {
                return Err(InduceError::NotFound(text.clone()));
            }
            occurs.push(on);
        }
        for rule in extra {
            if let std::collections::hash_map::Entry::Vacant(slot) = self.candidates.entry(rule) {
                if let Some(c) = evaluate(slot.key(), pages, &by_text) {
                    slot.insert(c);
                }
            }
        }
        // A rule gives a text when one of its values on a page is the text,
        // or, less well, contains it (a text the user cut from a longer
        // value). One page suffices: a text may also stand elsewhere on
        // the other pages (a category in every page's menu).
        let gives_exactly = |c: &Candidate, k: usize| {
            occurs[k]
                .iter()
                .any(|&p| c.values[p].iter().any(|v| *v == wanted[k]))
        };
        let gives = |c: &Candidate, k: usize| {
            occurs[k]
                .iter()
                .any(|&p| c.values[p].iter().any(|v| v.contains(wanted[k].as_str())))
        };
        // … within a value not much longer than the text (not a whole block).
        let gives_tightly = |c: &Candidate, k: usize| {
            occurs[k].iter().any(|&p| {
                c.values[p]
                    .iter()
                    .any(|v| v.contains(wanted[k].as_str()) && tight(v, &wanted[k]))
            })
        };
        let scored: Vec<Scored<'_>> = self
            .candidates
            .values()
            .map(|c| {
                let exact = (0..wanted.len()).filter(|&k| gives_exactly(c, k)).count();
                let loose = (0..wanted.len()).filter(|&k| gives(c, k)).count();
                ((loose, exact), c)
            })
            .collect();
        let training_order =
            |((la, ea), a): &((usize, usize), &Candidate),
             ((lb, eb), b): &((usize, usize), &Candidate)| {
                la.cmp(lb)
                    .then(ea.cmp(eb))
                    .then(a.covers.len().cmp(&b.covers.len()))
                    .then(a.anchored().cmp(&b.anchored()))
                    .then(a.reads_rows().cmp(&b.reads_rows()))
                    .then(a.precision().total_cmp(&b.precision()))
                    .then(b.rule.len().cmp(&a.rule.len()))
                    .then(b.rule.cmp(&a.rule))
            };
        // The pages to judge the rules on: those no text was named on.
        let named: HashSet<usize> = occurs.iter().flatten().copied().collect();
        let others: Vec<&Page> = pages
            .iter()
            .enumerate()
            .filter(|(p, _)| !named.contains(p))
            .map(|(_, p)| p)
            .chain(unlabelled)
            .collect();
        let best = if others.is_empty() {
            scored.iter().max_by(|a, b| training_order(a, b))
        } else {
            let most = scored.iter().map(|((l, _), _)| *l).max().unwrap_or(0);
            let tightness =
                |c: &Candidate| (0..wanted.len()).filter(|&k| gives_tightly(c, k)).count();
            let most_tight = scored
                .iter()
                .filter(|((l, _), _)| *l == most)
                .map(|(_, c)| tightness(c))
                .max()
                .unwrap_or(0);
            let mut finalists: Vec<&Scored<'_>> = scored
                .iter()
                .filter(|((l, _), c)| *l == most && tightness(c) == most_tight)
                .collect();
            finalists.sort_by(|a, b| {
                found_by_label(&b.1.rule)
                    .cmp(&found_by_label(&a.1.rule))
                    .then(training_order(b, a))
            });
            finalists.truncate(MAX_FINALISTS);
            let judged: Vec<(u32, &Scored<'_>)> = finalists
                .into_iter()
                .map(|f| {
                    let named_values: Vec<&String> = named
                        .iter()
                        .flat_map(|&p| f.1.values[p].iter())
                        .filter(|v| wanted.iter().any(|w| v.contains(w.as_str())))
                        .collect();
                    let one_each = named.iter().all(|&p| f.1.values[p].len() <= 1);
                    let score = generalises(&f.1.rule, &named_values, one_each, &others);
                    ((score * 50.0).round() as u32, f)
                })
                .collect();

            judged
                .into_iter()
                .max_by(|(sa, a), (sb, b)| {
                    judged_rank(a.0 .1, *sa, &a.1.rule)
                        .cmp(&judged_rank(b.0 .1, *sb, &b.1.rule))
                        .then(training_order(a, b))
                })
                .map(|(_, f)| f)
        };
        match best {
            Some(((n, _), c)) if *n == wanted.len() => Ok(slot_of(c, Some(name))),
            Some((_, c)) => {
                let missing = (0..wanted.len())
                    .find(|&k| !gives(c, k))
                    .map(|k| wanted[k].clone())
                    .unwrap_or_default();
                Err(InduceError::NoCommonRule {
                    name: name.to_string(),
                    missing,
                })
            }
            None => Err(InduceError::NotFound(wanted.join(", "))),
        }
    }

    /// Names the slots whose only value on every page is that page's entry
    /// of `values` (a query's value shown on its answer): returns whether
    /// one was named.
    pub fn name_by_values(&mut self, name: &str, values: &[Vec<String>]) -> bool {
        let fits = |s: &Slot| {
            s.name.is_none()
                && s.values.len() == values.len()
                && s.values
                    .iter()
                    .zip(values)
                    .all(|(got, want)| !got.is_empty() && got.iter().all(|g| want.contains(g)))
        };
        match self.slots.iter_mut().find(|s| fits(s)) {
            Some(slot) => {
                slot.name = Some(name.to_string());
                true
            }
            None => false,
        }
    }

    /// How many data (texts consumed by wildcards) the pages hold.
    pub fn data_count(&self) -> usize {
        self.data.len()
    }
}

/// A candidate with how many of the named texts it gives (within a value,
/// as a whole value).
type Scored<'a> = ((usize, usize), &'a Candidate);

/// How many of the best rules on the named pages are tried on the others.
const MAX_FINALISTS: usize = 40;

/// How a finalist ranks once judged on the other pages (higher is
/// better): first how many named texts it gives as whole values — one
/// that only holds them in a longer text ("Read all questions for
/// \"Title\"") reads that text on the other pages —, then how well it
/// generalises (`score`), then whether a label anchors it.
fn judged_rank(exact: usize, score: u32, rule: &str) -> (usize, u32, bool) {
    (exact, score, label_anchored(rule))
}

/// A value not much longer than the text it holds.
fn tight(value: &str, text: &str) -> bool {
    value.len() <= 2 * text.len() + 16
}

/// A rule found by a field's label (see [`crate::locate::by_label`]).
fn label_anchored(rule: &str) -> bool {
    rule.contains("html->pcdata[v]") || rule.contains(", match/^")
}

/// A rule found by the field's label or by the data's own element (see
/// [`crate::locate::by_own_label`]): always among the rules tried on the
/// unnamed pages.
fn found_by_label(rule: &str) -> bool {
    static OWN: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let own = OWN.get_or_init(|| {
        regex::Regex::new(r"^html->[a-z][a-z0-9]*\[[0-9]+\]\.txt$").expect("a valid regex")
    });
    label_anchored(rule) || own.is_match(rule)
}

/// What a value looks like, for comparing values of one field across
/// pages: without letters (an ISBN, a year, a price in figures) or with
/// them; and its length.
fn kind(value: &str) -> (u8, usize) {
    let letters = value.chars().any(char::is_alphabetic);
    (u8::from(letters), value.chars().count())
}

/// The share of `others` on which the rule reads what it read on the
/// named pages: a value (one, where the named pages had one), of the
/// same kind and of a like length, and not one value that most pages
/// share while the named pages' values differed.
fn generalises(rule: &str, named: &[&String], one_each: bool, others: &[&Page]) -> f64 {
    let Ok(rule) = Rule::parse(rule) else {
        return 0.0;
    };
    if others.is_empty() || named.is_empty() {
        return 0.0;
    }
    let kinds: Vec<(u8, usize)> = named.iter().map(|v| kind(v)).collect();
    let shortest = kinds.iter().map(|k| k.1).min().unwrap_or(0);
    let longest = kinds.iter().map(|k| k.1).max().unwrap_or(0);
    let fits = |v: &String| {
        let (k, len) = kind(v);
        kinds.iter().any(|n| n.0 == k) && len * 3 + 6 >= shortest && len <= longest * 3 + 12
    };
    let mut good = 0;
    let mut seen: HashMap<String, usize> = HashMap::new();
    for page in others {
        let values = rule.eval(page).flatten();
        if values.is_empty() || (one_each && values.len() > 1) {
            continue;
        }
        if values.iter().all(fits) {
            good += 1;
            *seen.entry(values[0].clone()).or_default() += 1;
        }
    }
    let mut share = good as f64 / others.len() as f64;
    let distinct: HashSet<&String> = named.iter().copied().collect();
    let commonest = seen.values().copied().max().unwrap_or(0);
    if distinct.len() > 1 && others.len() >= 4 && commonest * 2 > others.len() {
        share *= 1.0 - commonest as f64 / others.len() as f64;
    }
    share
}

fn slot_of(c: &Candidate, name: Option<&str>) -> Slot {
    Slot {
        name: name.map(str::to_string),
        rule: c.rule.clone(),
        values: c.values.clone(),
        precision: c.precision(),
    }
}

/// How a rule's values on a page compare with the values expected there,
/// counted as multisets: (values both have, values the rule gave, values
/// expected). Summed over pages, they give precision and recall.
pub fn overlap(got: &[String], want: &[String]) -> (usize, usize, usize) {
    let mut left: HashMap<&str, usize> = HashMap::new();
    for w in want {
        *left.entry(w.as_str()).or_default() += 1;
    }
    let mut both = 0;
    for g in got {
        if let Some(n) = left.get_mut(g.as_str()).filter(|n| **n > 0) {
            *n -= 1;
            both += 1;
        }
    }
    (both, got.len(), want.len())
}

#[cfg(test)]
mod tests;

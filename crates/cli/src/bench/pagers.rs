//! `gather bench pagers DIR`: the pagers of single pages on the autopager
//! corpus (github.com/TeamHG-Memex/autopager, `autopager/data/`: `data.csv`
//! and `html/N.html`, real pages of many sites whose PREV, PAGE and NEXT
//! links are labelled as CSS selectors). Scored as the anchor is:
//! precision, recall and F1 of the next and page links (the links labelled
//! PREV count neither way), and whether the next link is named where the
//! page has one. The pages marked `failed` are left out. Two scores: as
//! labelled (the FIRST and LAST links are no pager links), and with
//! autopager's own label map (FIRST and LAST are PAGE, as its classifier
//! was trained and measured); each over all pages and over the pages of
//! even and of odd number (a fixed split for a held-out check).
//!
//! The selectors are matched over gather's own page tree by a small
//! matcher of what the labels use: tags, classes, ids, `:nth-child(n)`,
//! and the descendant, child (`>`), adjacent (`+`) and sibling (`~`)
//! combinators. A selected element that is no link stands for the links
//! around it or inside it.

use std::collections::HashSet;
use std::path::PathBuf;
use std::process::ExitCode;

use url::Url;

use gather::links::{document_key, LinkKind, PageLinks};
use gather::listing::{Pager, PagerRole};
use gather::page::{NodeId, Page, A, PCDATA};

#[derive(Debug, clap::Args)]
pub struct PagersBenchArgs {
    /// The corpus' directory, holding `data.csv` and `html/`
    /// (autopager's `autopager/data`).
    #[arg(value_name = "DIR")]
    pub corpus: PathBuf,
    /// Print each page's figures, its wrong and its missed links.
    #[arg(long)]
    pub pages: bool,
    /// Print the link groups of the page of this number (its file name)
    /// with their kinds and the labels of their links.
    #[arg(long, value_name = "N")]
    pub groups: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Combinator {
    Descendant,
    Child,
    Adjacent,
    Sibling,
}

#[derive(Debug, Default, Clone)]
struct Compound {
    tag: Option<String>,
    classes: Vec<String>,
    ids: Vec<String>,
    nth: Vec<usize>,
}

/// One selector: compounds left to right, each with its combinator to the
/// one before it.
type Selector = Vec<(Combinator, Compound)>;

fn parse_compound(s: &str) -> Option<Compound> {
    let mut c = Compound::default();
    let mut rest = s;
    let name_end = |r: &str| r.find(['.', '#', ':', '[']).unwrap_or(r.len());
    let end = name_end(rest);
    if end > 0 {
        let tag = &rest[..end];
        if tag != "*" {
            c.tag = Some(tag.to_ascii_lowercase());
        }
    }
    rest = &rest[end..];
    while !rest.is_empty() {
        let (kind, body) = rest.split_at(1);
        match kind {
            "." | "#" => {
                let end = name_end(body);
                let name = body[..end].to_string();
                if kind == "." {
                    c.classes.push(name);
                } else {
                    c.ids.push(name);
                }
                rest = &body[end..];
            }
            ":" => {
                let inner = body.strip_prefix("nth-child(")?;
                let close = inner.find(')')?;
                c.nth.push(inner[..close].trim().parse().ok()?);
                rest = &inner[close + 1..];
            }
            _ => return None,
        }
    }
    Some(c)
}

fn parse_selector(s: &str) -> Option<Selector> {
    let mut out: Selector = Vec::new();
    let mut comb = Combinator::Descendant;
    let spaced = s
        .replace('+', " + ")
        .replace('~', " ~ ")
        .replace('>', " > ");
    for token in spaced.split_whitespace() {
        match token {
            "+" => comb = Combinator::Adjacent,
            "~" => comb = Combinator::Sibling,
            ">" => comb = Combinator::Child,
            _ => {
                out.push((comb, parse_compound(token)?));
                comb = Combinator::Descendant;
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

fn elements_before(page: &Page, node: NodeId) -> Vec<NodeId> {
    let Some(parent) = page.parent(node) else {
        return Vec::new();
    };
    page.children(parent)
        .take_while(|&c| c != node)
        .filter(|&c| page.label_of(c) != PCDATA)
        .collect()
}

fn compound_matches(page: &Page, node: NodeId, c: &Compound) -> bool {
    if page.label_of(node) == PCDATA {
        return false;
    }
    if c.tag.as_deref().is_some_and(|t| t != page.label_name(node)) {
        return false;
    }
    let classes: Vec<&str> = page
        .attribute(node, "class")
        .map(|v| v.split_whitespace().collect())
        .unwrap_or_default();
    if !c.classes.iter().all(|k| classes.contains(&k.as_str())) {
        return false;
    }
    if !c
        .ids
        .iter()
        .all(|i| page.attribute(node, "id") == Some(i.as_str()))
    {
        return false;
    }
    c.nth
        .iter()
        .all(|&n| elements_before(page, node).len() + 1 == n)
}

fn matches(page: &Page, node: NodeId, sel: &Selector, i: usize) -> bool {
    if !compound_matches(page, node, &sel[i].1) {
        return false;
    }
    if i == 0 {
        return true;
    }
    match sel[i].0 {
        Combinator::Descendant => page.ancestors(node).any(|a| matches(page, a, sel, i - 1)),
        Combinator::Child => page
            .parent(node)
            .is_some_and(|p| matches(page, p, sel, i - 1)),
        Combinator::Adjacent => elements_before(page, node)
            .last()
            .is_some_and(|&p| matches(page, p, sel, i - 1)),
        Combinator::Sibling => elements_before(page, node)
            .iter()
            .any(|&p| matches(page, p, sel, i - 1)),
    }
}

/// The indexes (among the page's `<a href>`s) of the links a label's
/// selectors select.
fn selected(page: &Page, anchors: &[NodeId], selectors: &str) -> HashSet<usize> {
    let sels: Vec<Selector> = selectors
        .split(',')
        .filter_map(|s| parse_selector(s.trim()))
        .collect();
    let mut out = HashSet::new();
    if sels.is_empty() {
        return out;
    }
    for node in page.node_ids() {
        if !sels.iter().any(|s| matches(page, node, s, s.len() - 1)) {
            continue;
        }
        for (k, &a) in anchors.iter().enumerate() {
            let inside = a >= node && a < page.subtree_end(node);
            let around = node > a && node < page.subtree_end(a);
            if inside || around {
                out.insert(k);
            }
        }
    }
    out
}

#[derive(Default, Clone, Copy)]
struct Score {
    tp: usize,
    predicted: usize,
    truth: usize,
}

impl Score {
    fn add(&mut self, predicted: &HashSet<usize>, truth: &HashSet<usize>) -> usize {
        let tp = predicted.intersection(truth).count();
        self.tp += tp;
        self.predicted += predicted.len();
        self.truth += truth.len();
        tp
    }

    fn line(&self, name: &str) -> String {
        super::prf_line(name, self.tp, self.predicted, self.truth)
    }
}

/// The two ways the corpus is scored: as labelled (the PREV links count
/// neither way, the FIRST and LAST links are no pager links), and with
/// autopager's own label map (its `storage.py`: FIRST and LAST are PAGE),
/// the one its classifier was trained and measured with.
#[derive(Default, Clone, Copy)]
struct Scores {
    labelled: Score,
    label_map: Score,
}

pub fn run(args: &PagersBenchArgs) -> ExitCode {
    let csv_path = args.corpus.join("data.csv");
    let mut reader = match csv::Reader::from_path(&csv_path) {
        Ok(r) => r,
        Err(e) => {
            eprintln!(
                "gather bench pagers: cannot read {}: {e}",
                csv_path.display()
            );
            return crate::cli::exit(crate::cli::BAD_INPUT);
        }
    };
    // All pages, then by the parity of the page's number (its file name):
    // [even, odd].
    let mut all_scores = Scores::default();
    let mut halves = [Scores::default(); 2];
    let mut half_pages = [0usize; 2];
    let (mut pages, mut with_next, mut next_named, mut next_wrong) = (0, 0, 0, 0);
    for row in reader.records() {
        let Ok(row) = row else { continue };
        let field = |i: usize| row.get(i).unwrap_or("").trim().to_string();
        let (file, page_url, encoding) = (field(0), field(1), field(2));
        if !field(8).is_empty() {
            continue;
        }
        let Ok(url) = Url::parse(&page_url) else {
            continue;
        };
        let path = args.corpus.join("html").join(format!("{file}.html"));
        let Ok(bytes) = std::fs::read(&path) else {
            eprintln!("gather bench pagers: cannot read {}", path.display());
            continue;
        };
        pages += 1;
        let half = file.parse::<usize>().map_or(0, |n| n % 2);
        half_pages[half] += 1;
        let page = Page::from_bytes(&bytes, Some(&format!("text/html; charset={encoding}")));
        let anchors: Vec<NodeId> = page
            .with_label(A)
            .iter()
            .copied()
            .filter(|&a| page.attribute(a, "href").is_some())
            .collect();
        let prev = selected(&page, &anchors, &field(3));
        let next = selected(&page, &anchors, &field(5));
        let truth: HashSet<usize> = selected(&page, &anchors, &field(4))
            .union(&next)
            .copied()
            .filter(|k| !prev.contains(k))
            .collect();
        let first_last: HashSet<usize> = selected(&page, &anchors, &field(6))
            .union(&selected(&page, &anchors, &field(7)))
            .copied()
            .filter(|k| !prev.contains(k))
            .collect();
        let mapped_truth: HashSet<usize> = truth.union(&first_last).copied().collect();
        let links = PageLinks::of(&page, &url);
        if args.groups.as_deref() == Some(file.as_str()) {
            print_groups(&links, &mapped_truth);
        }
        let pager = Pager::of(&links);
        let all: Vec<_> = links.classified();
        let in_pager = |want: fn(PagerRole) -> bool| -> HashSet<usize> {
            all.iter()
                .filter(|(l, kind)| {
                    *kind == LinkKind::Pagination
                        && l.target.is_some()
                        && !prev.contains(&l.index)
                        && want(gather::listing::pager::role(l))
                })
                .map(|(l, _)| l.index)
                .collect()
        };
        let predicted = in_pager(|r| matches!(r, PagerRole::Next | PagerRole::Page(_)));
        let mapped_predicted = in_pager(|r| r != PagerRole::Previous);
        let tp = all_scores.labelled.add(&predicted, &truth);
        halves[half].labelled.add(&predicted, &truth);
        all_scores.label_map.add(&mapped_predicted, &mapped_truth);
        halves[half].label_map.add(&mapped_predicted, &mapped_truth);
        let next_targets: HashSet<String> = all
            .iter()
            .filter(|(l, _)| next.contains(&l.index))
            .filter_map(|(l, _)| l.target.as_ref().map(document_key))
            .collect();
        let mut next_state = "";
        if !next_targets.is_empty() {
            with_next += 1;
            match &pager.next {
                Some(n) if next_targets.contains(&document_key(n)) => next_named += 1,
                Some(_) => {
                    next_wrong += 1;
                    next_state = " (named wrong)";
                }
                None => next_state = " (not named)",
            }
        }
        if args.pages {
            let shown = |want: &dyn Fn(usize) -> bool| -> Vec<String> {
                all.iter()
                    .filter(|(l, _)| want(l.index))
                    .map(|(l, _)| format!("{:?} <{}>", l.text, l.href))
                    .take(12)
                    .collect()
            };
            let wrong = shown(&|k| predicted.contains(&k) && !truth.contains(&k));
            let missed = shown(&|k| !predicted.contains(&k) && truth.contains(&k));
            println!(
                "{file}: {tp} of {} predicted, {} true; next {:?}{next_state}",
                predicted.len(),
                truth.len(),
                pager.next.as_ref().map(Url::as_str)
            );
            for w in wrong {
                println!("  wrong  {w}");
            }
            for m in missed {
                println!("  missed {m}");
            }
        }
    }
    println!("autopager pagers, {pages} pages (those marked failed left out)");
    let lines = |name: &str, s: &Scores| {
        println!("{}", s.labelled.line(&format!("{name}, as labelled")));
        println!(
            "{}",
            s.label_map.line(&format!("{name}, FIRST/LAST as PAGE"))
        );
    };
    lines("all pages", &all_scores);
    lines(&format!("{} even pages", half_pages[0]), &halves[0]);
    lines(&format!("{} odd pages", half_pages[1]), &halves[1]);
    println!(
        "next link named on {next_named} of {with_next} pages that have one ({next_wrong} named wrong)"
    );
    println!(
        "anchor (issue 32): autopager's classifier, 6-fold cross-validated: F1 0.900 \
         (P 0.868, R 0.933), next found on 96 of 112 pages"
    );
    crate::cli::exit(crate::cli::OK)
}

fn print_groups(links: &PageLinks, truth: &HashSet<usize>) {
    // The pagers, and the groups that hold a labelled link; `*` marks the
    // labelled links.
    let mark = |k: usize| if truth.contains(&k) { "*" } else { " " };
    for (g, group) in links.groups.iter().enumerate() {
        if group.kind != LinkKind::Pagination
            && !group.links.iter().any(|l| truth.contains(&l.index))
        {
            continue;
        }
        println!("group {g}: {}", group.kind);
        for l in &group.links {
            println!(
                " {}#{} {:?} <{}> {:?}",
                mark(l.index),
                l.index,
                l.text,
                l.href,
                gather::listing::pager::role(l)
            );
        }
    }
    for (l, kind) in &links.ungrouped {
        if *kind == LinkKind::Pagination || truth.contains(&l.index) {
            println!(
                "{}ungrouped #{} {:?} <{}> {kind}",
                mark(l.index),
                l.index,
                l.text,
                l.href
            );
        }
    }
}

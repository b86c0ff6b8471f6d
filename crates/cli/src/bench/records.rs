//! `gather bench records DIR`: the records of single list pages on the
//! NEXT-EVAL corpus (github.com/wordbricks/next-eval, commit `bb06a1a`,
//! `WebDemo/public/synthetic`: `html/N.html` and `groundTruth/N.json`, each
//! record a list of absolute XPaths), scored as the corpus' anchors were: a
//! predicted record matches a true one when the word sets of their texts
//! overlap with Jaccard ≥ 0.5, one to one; precision, recall and F1 over
//! the records of all pages whose ground truth resolves. Beside gather's
//! data regions: all its regions (navigation too), and the plain baseline,
//! the largest list of same-tag siblings.
//!
//! Each method is also scored against the truth with its nested duplicates
//! merged: some pages give one record at two levels (`div[i]` and again
//! `div[i]/div[1]`), and one to one, only one of the pair can ever match.
//! A true record whose nodes all lie inside another's is merged into it.
//! Every figure is given for the even and the odd pages apart as well (the
//! even pages are the ones looked at while the finder is tuned).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use gather::listing::{records::regions, RegionKind};
use gather::page::{NodeId, Page, PCDATA};

#[derive(Debug, clap::Args)]
pub struct RecordsBenchArgs {
    /// The corpus' directory, holding `html/` and `groundTruth/` (NEXT-EVAL's
    /// `WebDemo/public/synthetic` at commit bb06a1a).
    #[arg(value_name = "DIR")]
    pub corpus: PathBuf,
    /// Print each page's figures.
    #[arg(long)]
    pub pages: bool,
    /// Print where the records of page N lie, and where gather's regions.
    #[arg(long, value_name = "N")]
    pub explain: Option<u64>,
    /// Print why the true records gather misses are missed (on the even
    /// pages, or the odd with `--odd`): counts per cause, the pages most
    /// affected.
    #[arg(long)]
    pub lost: bool,
    /// With `--lost`: the odd pages.
    #[arg(long, requires = "lost")]
    pub odd: bool,
    /// Also score the best choice among the candidate regions gather
    /// builds, made knowing the truth: the bound of any choice among them.
    #[arg(long)]
    pub oracle: bool,
}

/// The words of a text, lower case.
fn words(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn jaccard(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

/// Matches one to one (the best pairs first), Jaccard ≥ 0.5.
fn matched(predicted: &[HashSet<String>], truth: &[HashSet<String>]) -> usize {
    pairs(predicted, truth).len()
}

/// The matched (predicted, true) pairs, one to one, the best first.
fn pairs(predicted: &[HashSet<String>], truth: &[HashSet<String>]) -> Vec<(usize, usize)> {
    let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
    for (i, p) in predicted.iter().enumerate() {
        for (j, t) in truth.iter().enumerate() {
            let s = jaccard(p, t);
            if s >= 0.5 {
                pairs.push((s, i, j));
            }
        }
    }
    pairs.sort_by(|a, b| b.0.total_cmp(&a.0));
    let (mut used_p, mut used_t) = (HashSet::new(), HashSet::new());
    let mut out = Vec::new();
    for (_, i, j) in pairs {
        if !used_p.contains(&i) && !used_t.contains(&j) {
            used_p.insert(i);
            used_t.insert(j);
            out.push((i, j));
        }
    }
    out
}

/// Whether every node of `inner` lies in (or is) a node of `outer`.
fn nodes_inside(page: &Page, inner: &[NodeId], outer: &[NodeId]) -> bool {
    inner
        .iter()
        .all(|&n| outer.iter().any(|&o| n >= o && n < page.subtree_end(o)))
}

/// The true records that are not nested duplicates: a record whose nodes
/// all lie inside another's is merged into it (of two records of the same
/// nodes, the first is kept).
fn outer_records(page: &Page, records: &[Vec<NodeId>]) -> Vec<usize> {
    (0..records.len())
        .filter(|&i| {
            !records.iter().enumerate().any(|(j, other)| {
                j != i
                    && nodes_inside(page, &records[i], other)
                    && (j < i || !nodes_inside(page, other, &records[i]))
            })
        })
        .collect()
}

/// The node an absolute XPath (`/body[1]/div[3]/…`) names.
fn resolve(page: &Page, xpath: &str) -> Option<NodeId> {
    let mut node = Page::ROOT;
    for step in xpath.split('/').filter(|s| !s.is_empty()) {
        let (tag, k) = match step.split_once('[') {
            Some((tag, rest)) => (tag, rest.trim_end_matches(']').parse::<usize>().ok()?),
            None => (step, 1),
        };
        if tag == "html" && node == Page::ROOT {
            continue;
        }
        let tag = tag.to_ascii_lowercase();
        node = page
            .children(node)
            .filter(|&c| page.label_of(c) != PCDATA && page.label_name(c) == tag)
            .nth(k.checked_sub(1)?)?;
    }
    Some(node)
}

/// A node's absolute XPath.
fn xpath(page: &Page, node: NodeId) -> String {
    let mut steps = Vec::new();
    let mut n = node;
    while let Some(p) = page.parent(n) {
        let k = page
            .children(p)
            .filter(|&c| page.label_of(c) == page.label_of(n))
            .position(|c| c == n)
            .unwrap_or(0);
        steps.push(format!("/{}[{}]", page.label_name(n), k + 1));
        n = p;
    }
    steps.reverse();
    steps.concat()
}

fn text(page: &Page, nodes: &[NodeId]) -> String {
    gather::listing::records::text_of(page, nodes)
}

/// The baseline: the children of one element that share its most common
/// child label, the largest such list of the page.
fn largest_sibling_list(page: &Page) -> Vec<Vec<NodeId>> {
    let mut best: Vec<NodeId> = Vec::new();
    let body = page.body();
    for parent in page.node_ids() {
        if page.label_of(parent) == PCDATA || parent < body || parent >= page.subtree_end(body) {
            continue;
        }
        let mut by_label: std::collections::HashMap<&str, Vec<NodeId>> = Default::default();
        for c in page.children(parent) {
            let name = page.label_name(c);
            if page.label_of(c) != PCDATA
                && !matches!(name, "script" | "style" | "link" | "meta" | "br")
                && !text(page, &[c]).trim().is_empty()
            {
                by_label.entry(page.label_name(c)).or_default().push(c);
            }
        }
        for (_, list) in by_label {
            if list.len() > best.len() {
                best = list;
            }
        }
    }
    best.into_iter().map(|n| vec![n]).collect()
}

/// The records of the candidate regions a choice knowing the truth keeps:
/// those of which at least half the records match a true record, the
/// most matches first, none inside another.
fn oracle(page: &Page, truth: &[HashSet<String>]) -> Vec<HashSet<String>> {
    let mut scored: Vec<(usize, NodeId, Vec<HashSet<String>>)> =
        gather::listing::records::candidates(page)
            .into_iter()
            .filter_map(|(parent, records)| {
                let texts: Vec<HashSet<String>> =
                    records.iter().map(|r| words(&text(page, r))).collect();
                let m = matched(&texts, truth);
                (m > 0 && 2 * m >= texts.len()).then_some((m, parent, texts))
            })
            .collect();
    scored.sort_by_key(|s| std::cmp::Reverse(s.0));
    let within = |a: NodeId, b: NodeId| a >= b && a < page.subtree_end(b);
    let mut kept: Vec<NodeId> = Vec::new();
    let mut out = Vec::new();
    for (_, parent, texts) in scored {
        if !kept.iter().any(|&k| within(k, parent) || within(parent, k)) {
            kept.push(parent);
            out.extend(texts);
        }
    }
    out
}

/// Matched, predicted and true records, on the even pages and on the odd.
#[derive(Default)]
struct Score {
    halves: [[usize; 3]; 2],
}

impl Score {
    fn add(&mut self, key: u64, predicted: &[HashSet<String>], truth: &[HashSet<String>]) -> usize {
        let m = matched(predicted, truth);
        let half = &mut self.halves[(key % 2) as usize];
        half[0] += m;
        half[1] += predicted.len();
        half[2] += truth.len();
        m
    }

    fn line(&self, name: &str) -> String {
        let [even, odd] = self.halves;
        let f1 = |h: [usize; 3]| super::prf(h[0], h[1], h[2]).2;
        format!(
            "{}  even F1 {:.3}, odd {:.3}",
            super::prf_line(name, even[0] + odd[0], even[1] + odd[1], even[2] + odd[2]),
            f1(even),
            f1(odd)
        )
    }
}

/// Why a true record gather misses is missed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Lost {
    /// Another true record holds it, or it holds another, and that one is matched.
    NestedDuplicate,
    /// It matches a record of a region gather calls navigation.
    MenuInTruth,
    /// A predicted record holds it and more (records too large).
    UnderSegmented,
    /// It holds predicted records (records too small).
    OverSegmented,
    /// Its siblings are a data region of gather's, it is left out.
    ListInPart,
    /// Its list is not gather's, but one of gather's data regions has
    /// records of its tag path (a second list of the same kind).
    SecondList,
    /// Its list is not gather's, and no data region of gather's is like it.
    WrongRegion,
    /// A predicted record overlaps it, matched to another true record.
    Other,
}

/// A node's tag path from the root (`html/body/div/ul/li`).
fn tag_path(page: &Page, node: NodeId) -> Vec<&str> {
    let mut out: Vec<&str> = std::iter::once(node)
        .chain(page.ancestors(node))
        .map(|n| page.label_name(n))
        .collect();
    out.reverse();
    out
}

/// Why each unmatched true record is missed.
fn lost_records(
    page: &Page,
    truth: &[Vec<NodeId>],
    truth_words: &[HashSet<String>],
    found: &[gather::listing::Region],
) -> Vec<Lost> {
    let data: Vec<&gather::listing::Region> = found
        .iter()
        .filter(|r| r.kind == RegionKind::Data)
        .collect();
    let predicted: Vec<&Vec<NodeId>> = data.iter().flat_map(|r| r.records.iter()).collect();
    let predicted_words: Vec<HashSet<String>> =
        predicted.iter().map(|r| words(&text(page, r))).collect();
    let is_matched: HashSet<usize> = pairs(&predicted_words, truth_words)
        .into_iter()
        .map(|(_, j)| j)
        .collect();
    let navigation: Vec<HashSet<String>> = found
        .iter()
        .filter(|r| r.kind == RegionKind::Navigation)
        .flat_map(|r| r.records.iter().map(|rec| words(&text(page, rec))))
        .collect();
    let within = |n: NodeId, o: NodeId| n >= o && n < page.subtree_end(o);
    let overlaps = |a: &[NodeId], b: &[NodeId]| {
        a.iter()
            .any(|&x| b.iter().any(|&y| within(x, y) || within(y, x)))
    };
    let mut out = Vec::new();
    for (j, record) in truth.iter().enumerate() {
        if is_matched.contains(&j) {
            continue;
        }
        let nested = truth.iter().enumerate().any(|(k, other)| {
            k != j
                && is_matched.contains(&k)
                && (nodes_inside(page, record, other) || nodes_inside(page, other, record))
        });
        let cause = if nested {
            Lost::NestedDuplicate
        } else if navigation
            .iter()
            .any(|n| jaccard(n, &truth_words[j]) >= 0.5)
        {
            Lost::MenuInTruth
        } else if predicted
            .iter()
            .any(|p| nodes_inside(page, record, p) && !nodes_inside(page, p, record))
        {
            Lost::UnderSegmented
        } else if predicted
            .iter()
            .any(|p| nodes_inside(page, p, record) && !nodes_inside(page, record, p))
        {
            Lost::OverSegmented
        } else if predicted.iter().any(|p| overlaps(p, record)) {
            Lost::Other
        } else {
            let parent = record.first().and_then(|&n| page.parent(n));
            let path = record.first().map(|&n| tag_path(page, n));
            if data.iter().any(|r| Some(r.parent) == parent) {
                Lost::ListInPart
            } else if predicted
                .iter()
                .any(|p| p.first().map(|&n| tag_path(page, n)) == path)
            {
                Lost::SecondList
            } else {
                Lost::WrongRegion
            }
        };
        out.push(cause);
    }
    out
}

/// The pages that miss the most, at most eight: `page: records, …`.
fn worst_pages(mut pages: Vec<(usize, u64)>) -> String {
    pages.sort_unstable_by(|a, b| b.cmp(a));
    let worst: Vec<String> = pages
        .iter()
        .take(8)
        .map(|(n, k)| format!("{k}: {n}"))
        .collect();
    worst.join(", ")
}

fn load_truth(path: &Path) -> Result<Vec<Vec<String>>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn run(args: &RecordsBenchArgs) -> ExitCode {
    let truth_dir = args.corpus.join("groundTruth");
    let entries = match std::fs::read_dir(&truth_dir) {
        Ok(e) => e,
        Err(e) => {
            eprintln!(
                "gather bench records: cannot read {}: {e}",
                truth_dir.display()
            );
            return crate::cli::exit(crate::cli::BAD_INPUT);
        }
    };
    let mut keys: Vec<u64> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".json")?.parse().ok())
        .collect();
    keys.sort_unstable();
    // Per method: the issue's truth, and the truth with nested duplicates merged.
    let mut scores: [[Score; 2]; 3] = Default::default();
    // The best choice among the candidates, against both truths.
    let mut bound: [Score; 2] = Default::default();
    let mut lost: std::collections::BTreeMap<Lost, (usize, Vec<(usize, u64)>)> = Default::default();
    let (mut nested, mut lost_pages) = (0, 0);
    // True records of several siblings: how many, how many matched, the
    // pages that miss some.
    let (mut spans, mut spans_matched, mut spans_lost) = (0, 0, Vec::new());
    let (mut resolved, mut unresolved) = (0, 0);
    let mut seconds = 0.0;
    for key in keys {
        let truth = match load_truth(&truth_dir.join(format!("{key}.json"))) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("gather bench records: {e}");
                unresolved += 1;
                continue;
            }
        };
        let html_path = args.corpus.join("html").join(format!("{key}.html"));
        let Ok(html) = gather::fetch::read_saved_page(&html_path) else {
            eprintln!("gather bench records: cannot read {}", html_path.display());
            unresolved += 1;
            continue;
        };
        let page = Page::from_bytes(&html, None);
        let true_nodes: Option<Vec<Vec<NodeId>>> = truth
            .iter()
            .map(|record| record.iter().map(|x| resolve(&page, x)).collect())
            .collect();
        let Some(true_nodes) = true_nodes else {
            unresolved += 1;
            continue;
        };
        let true_records: Vec<HashSet<String>> =
            true_nodes.iter().map(|n| words(&text(&page, n))).collect();
        let outer = outer_records(&page, &true_nodes);
        let merged: Vec<HashSet<String>> = outer.iter().map(|&i| true_records[i].clone()).collect();
        resolved += 1;
        let start = Instant::now();
        let found = regions(&page);
        seconds += start.elapsed().as_secs_f64();
        let texts = |data_only: bool| -> Vec<HashSet<String>> {
            found
                .iter()
                .filter(|r| !data_only || r.kind == RegionKind::Data)
                .flat_map(|r| r.records.iter().map(|rec| words(&text(&page, rec))))
                .collect()
        };
        let predicted = texts(true);
        let base: Vec<HashSet<String>> = largest_sibling_list(&page)
            .iter()
            .map(|r| words(&text(&page, r)))
            .collect();
        if args.oracle {
            let chosen = oracle(&page, &true_records);
            bound[0].add(key, &chosen, &true_records);
            bound[1].add(key, &chosen, &merged);
        }
        let mut m = 0;
        for (method, records) in [predicted.clone(), texts(false), base].iter().enumerate() {
            let got = scores[method][0].add(key, records, &true_records);
            scores[method][1].add(key, records, &merged);
            if method == 0 {
                m = got;
            }
        }
        if args.lost && key % 2 == u64::from(args.odd) {
            nested += true_nodes.len() - outer.len();
            let causes = lost_records(&page, &true_nodes, &true_records, &found);
            let got: HashSet<usize> = pairs(&predicted, &true_records)
                .into_iter()
                .map(|(_, j)| j)
                .collect();
            let several: Vec<usize> = (0..true_nodes.len())
                .filter(|&j| true_nodes[j].len() > 1)
                .collect();
            let hit = several.iter().filter(|j| got.contains(j)).count();
            spans += several.len();
            spans_matched += hit;
            if hit < several.len() {
                spans_lost.push((several.len() - hit, key));
            }
            lost_pages += usize::from(!causes.is_empty());
            let mut per_page: std::collections::BTreeMap<Lost, usize> = Default::default();
            for c in causes {
                *per_page.entry(c).or_default() += 1;
            }
            for (c, n) in per_page {
                let entry = lost.entry(c).or_default();
                entry.0 += n;
                entry.1.push((n, key));
            }
        }
        if args.explain == Some(key) {
            for (i, record) in truth.iter().enumerate().take(4) {
                println!("true {i}: {record:?}");
            }
            for r in &found {
                let first = r.records[0][0];
                let children: Vec<String> = page
                    .children(r.parent)
                    .filter(|&c| page.label_of(c) != PCDATA)
                    .take(12)
                    .map(|c| {
                        format!(
                            "{}.{}",
                            page.label_name(c),
                            page.attribute(c, "class").unwrap_or("")
                        )
                    })
                    .collect();
                println!(
                    "{:?} {} records of {}, first {}: {:?}",
                    r.kind,
                    r.records.len(),
                    r.chars,
                    xpath(&page, first),
                    children
                );
            }
        }
        if args.pages {
            println!(
                "{key}: {m} of {} predicted, {} true",
                predicted.len(),
                true_records.len()
            );
            for r in &found {
                let texts: Vec<HashSet<String>> = r
                    .records
                    .iter()
                    .map(|rec| words(&text(&page, rec)))
                    .collect();
                println!(
                    "  {:?} {} records, {} chars, {} match, {}",
                    r.kind,
                    r.records.len(),
                    r.chars,
                    matched(&texts, &true_records),
                    xpath(&page, r.parent)
                );
            }
        }
    }
    println!(
        "NEXT-EVAL records, {resolved} pages whose ground truth resolves ({unresolved} left out); \
         a match: word-set Jaccard >= 0.5, one to one"
    );
    let names = [
        "gather records (data regions)",
        "gather, navigation regions too",
        "largest list of same-tag siblings",
    ];
    const BOUND: &str = "the best choice among gather's candidates";
    for (name, [issue, _]) in names.iter().zip(&scores) {
        println!("{}", issue.line(name));
    }
    if args.oracle {
        println!("{}", bound[0].line(BOUND));
    }
    println!("the truth with its nested duplicates merged (a record inside another is one):");
    for (name, [_, merged]) in names.iter().zip(&scores) {
        println!("{}", merged.line(name));
    }
    if args.oracle {
        println!("{}", bound[1].line(BOUND));
    }
    if args.lost {
        let half = if args.odd { "odd" } else { "even" };
        println!(
            "true records gather misses on the {half} pages ({lost_pages} pages miss some; \
             {nested} true records there are nested duplicates)"
        );
        println!(
            "  true records of several siblings: {spans}, {spans_matched} matched  ({})",
            worst_pages(spans_lost)
        );
        for (cause, (n, pages)) in lost {
            println!("  {cause:?} {n}  ({})", worst_pages(pages));
        }
    }
    println!(
        "anchors (issue 32): MDR F1 0.092, autoscraper 0.355, largest same-tag list 0.506; \
         gather reads a page in {:.1} ms on average",
        1000.0 * seconds / resolved.max(1) as f64
    );
    crate::cli::exit(crate::cli::OK)
}

//! `gather bench records DIR`: the records of single list pages on the
//! NEXT-EVAL corpus (github.com/wordbricks/next-eval, commit `bb06a1a`,
//! `WebDemo/public/synthetic`: `html/N.html` and `groundTruth/N.json`, each
//! record a list of absolute XPaths), scored as the corpus' anchors were: a
//! predicted record matches a true one when the word sets of their texts
//! overlap with Jaccard ≥ 0.5, one to one; precision, recall and F1 over
//! the records of all pages whose ground truth resolves. Beside gather's
//! data regions: all its regions (navigation too), and the plain baseline,
//! the largest list of same-tag siblings.

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
    let mut n = 0;
    for (_, i, j) in pairs {
        if !used_p.contains(&i) && !used_t.contains(&j) {
            used_p.insert(i);
            used_t.insert(j);
            n += 1;
        }
    }
    n
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

#[derive(Default)]
struct Score {
    matched: usize,
    predicted: usize,
    truth: usize,
}

impl Score {
    fn add(&mut self, predicted: &[HashSet<String>], truth: &[HashSet<String>]) -> usize {
        let m = matched(predicted, truth);
        self.matched += m;
        self.predicted += predicted.len();
        self.truth += truth.len();
        m
    }

    fn line(&self, name: &str) -> String {
        super::prf_line(name, self.matched, self.predicted, self.truth)
    }
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
    let (mut ours, mut all, mut baseline) = (Score::default(), Score::default(), Score::default());
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
        let true_records: Option<Vec<HashSet<String>>> = truth
            .iter()
            .map(|record| {
                let nodes: Option<Vec<NodeId>> = record.iter().map(|x| resolve(&page, x)).collect();
                nodes.map(|n| words(&text(&page, &n)))
            })
            .collect();
        let Some(true_records) = true_records else {
            unresolved += 1;
            continue;
        };
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
        let m = ours.add(&predicted, &true_records);
        all.add(&texts(false), &true_records);
        let base: Vec<HashSet<String>> = largest_sibling_list(&page)
            .iter()
            .map(|r| words(&text(&page, r)))
            .collect();
        baseline.add(&base, &true_records);
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
                    "  {:?} {} records, {} chars, {} match, <{}>",
                    r.kind,
                    r.records.len(),
                    r.chars,
                    matched(&texts, &true_records),
                    page.label_name(r.parent)
                );
            }
        }
    }
    println!(
        "NEXT-EVAL records, {resolved} pages whose ground truth resolves ({unresolved} left out); \
         a match: word-set Jaccard >= 0.5, one to one"
    );
    println!("{}", ours.line("gather records (data regions)"));
    println!("{}", all.line("gather, navigation regions too"));
    println!("{}", baseline.line("largest list of same-tag siblings"));
    println!(
        "anchors (issue 32): MDR F1 0.092, autoscraper 0.355, largest same-tag list 0.506; \
         gather reads a page in {:.1} ms on average",
        1000.0 * seconds / resolved.max(1) as f64
    );
    crate::cli::exit(crate::cli::OK)
}

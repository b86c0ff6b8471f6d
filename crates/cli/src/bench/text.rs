//! `gather bench text`: the main text of single pages on public collections
//! of real pages whose main text others wrote down, recognised by their
//! layout:
//!
//! - the article-extraction benchmark (Scrapinghub/Zyte,
//!   github.com/scrapinghub/article-extraction-benchmark: 181 news and blog
//!   articles of 181 sites, `html/*.html.gz` and `ground-truth.json`);
//! - Mozilla Readability's test pages (github.com/mozilla/readability,
//!   `test/test-pages/NAME/source.html` and `expected.html`, the text of
//!   `expected.html` being the truth);
//! - the web content extraction benchmark of 2025 pages
//!   (github.com/Murrough-Foley/web-content-extraction-benchmark, a split
//!   such as `test/`: `html/ID.html.gz` and `ground-truth/ID.json`, whose
//!   `ground_truth.main_content` is the truth).
//!
//! Every collection is scored with the article-extraction benchmark's own
//! metric (its `evaluate.py`: F1 of the 4-word shingles of `\w+` tokens,
//! precision and recall averaged over pages), side by side with trafilatura
//! and readability-lxml run on the same pages in the same run when Python
//! has them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use gather::boilerplate::{article, main_content, Blocks, Method};
use gather::page::Page;

use super::pages::timed;

#[derive(Debug, clap::Args)]
pub struct TextBenchArgs {
    /// The collection's directory: the article-extraction benchmark's
    /// (`ground-truth.json` and `html/`), Readability's `test/test-pages`
    /// (`NAME/source.html` and `NAME/expected.html`), or a split of the web
    /// content extraction benchmark (`ground-truth/ID.json` and
    /// `html/ID.html.gz`).
    #[arg(value_name = "DIR")]
    pub corpus: PathBuf,
    /// Runs per method; the median time is reported.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Also run trafilatura and readability-lxml (`pip install trafilatura
    /// readability-lxml html-text`) with this Python on the same pages.
    #[arg(long, value_name = "PYTHON", num_args = 0..=1, default_missing_value = "python3")]
    pub anchors: Option<String>,
    /// Print the N pages where gather's method scores lowest.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub show_worst: usize,
}

/// One page of the corpus: its key, its file, its HTML and its true text.
struct Article {
    key: String,
    path: PathBuf,
    html: Vec<u8>,
    truth: String,
}

/// The layouts `gather bench text` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Collection {
    /// `ground-truth.json` and `html/KEY.html.gz`.
    ArticleBenchmark,
    /// `NAME/source.html` and `NAME/expected.html`.
    Readability,
    /// `ground-truth/ID.json` and `html/ID.html.gz`.
    Wceb,
}

impl Collection {
    fn detect(dir: &Path) -> Result<Collection, String> {
        if dir.join("ground-truth.json").is_file() {
            return Ok(Collection::ArticleBenchmark);
        }
        if dir.join("ground-truth").is_dir() && dir.join("html").is_dir() {
            return Ok(Collection::Wceb);
        }
        let entries =
            std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        if entries
            .flatten()
            .any(|e| e.path().join("expected.html").is_file())
        {
            return Ok(Collection::Readability);
        }
        Err(format!(
            "{}: no collection found (ground-truth.json, ground-truth/ and html/, or NAME/expected.html)",
            dir.display()
        ))
    }

    fn name(self) -> &'static str {
        match self {
            Collection::ArticleBenchmark => "article-extraction benchmark",
            Collection::Readability => "Readability test pages",
            Collection::Wceb => "web content extraction benchmark",
        }
    }
}

fn read_json(path: &Path) -> Result<serde_json::Value, String> {
    serde_json::from_slice(
        &std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?,
    )
    .map_err(|e| format!("{}: {e}", path.display()))
}

fn saved_article(key: String, path: PathBuf, truth: String) -> Result<Article, String> {
    let html = gather::fetch::read_saved_page(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(Article {
        key,
        path,
        html,
        truth,
    })
}

/// The names of the entries of `dir` (sorted) that `keep` keeps.
fn sorted_entries(dir: &Path, keep: impl Fn(&Path) -> bool) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .flatten()
        .filter(|e| keep(&e.path()))
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    Ok(names)
}

fn load(dir: &Path, collection: Collection) -> Result<Vec<Article>, String> {
    match collection {
        Collection::ArticleBenchmark => {
            let gt_path = dir.join("ground-truth.json");
            let gt = read_json(&gt_path)?;
            let gt = gt
                .as_object()
                .ok_or_else(|| format!("{}: not a JSON object", gt_path.display()))?;
            let mut keys: Vec<&String> = gt.keys().collect();
            keys.sort();
            keys.into_iter()
                .map(|key| {
                    let path = dir.join("html").join(format!("{key}.html.gz"));
                    let truth = gt[key]["articleBody"].as_str().unwrap_or("").to_string();
                    saved_article(key.clone(), path, truth)
                })
                .collect()
        }
        Collection::Readability => sorted_entries(dir, |p| p.join("expected.html").is_file())?
            .into_iter()
            .map(|name| {
                let expected = dir.join(&name).join("expected.html");
                let bytes = std::fs::read(&expected)
                    .map_err(|e| format!("cannot read {}: {e}", expected.display()))?;
                let truth = Page::from_bytes(&bytes, Some("text/html; charset=utf-8")).text();
                saved_article(name.clone(), dir.join(&name).join("source.html"), truth)
            })
            .collect(),
        Collection::Wceb => {
            let mut pages = Vec::new();
            for name in sorted_entries(&dir.join("ground-truth"), |p| {
                p.extension().is_some_and(|e| e == "json")
            })? {
                let gt_path = dir.join("ground-truth").join(&name);
                let gt = read_json(&gt_path)?;
                // A page the annotators marked unextractable (rendered by
                // scripts) has no main content and is left out.
                let truth = match &gt["ground_truth"]["main_content"] {
                    serde_json::Value::String(s) => s.clone(),
                    serde_json::Value::Null => continue,
                    _ => {
                        return Err(format!(
                            "{}: no ground_truth.main_content",
                            gt_path.display()
                        ))
                    }
                };
                let key = name.trim_end_matches(".json").to_string();
                let path = dir.join("html").join(format!("{key}.html.gz"));
                pages.push(saved_article(key, path, truth)?);
            }
            Ok(pages)
        }
    }
}

/// True positives, false positives and false negatives of one page,
/// normalised to sum to 1 (evaluate.py's `string_shingle_matching`).
type Matching = (f64, f64, f64);

fn shingles(text: &str) -> HashMap<Vec<&str>, usize> {
    static TOKEN: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"\w+").expect("valid"));
    let tokens: Vec<&str> = TOKEN.find_iter(text).map(|m| m.as_str()).collect();
    let mut out = HashMap::new();
    for i in 0..tokens.len().saturating_sub(3).max(1) {
        let shingle = tokens[i..(i + 4).min(tokens.len())].to_vec();
        if !shingle.is_empty() {
            *out.entry(shingle).or_insert(0) += 1;
        }
    }
    out
}

fn matching(truth: &str, pred: &str) -> Matching {
    let t = shingles(truth);
    let p = shingles(pred);
    let (mut tp, mut fp, mut fn_) = (0.0, 0.0, 0.0);
    for (k, &pc) in &p {
        let tc = t.get(k).copied().unwrap_or(0);
        tp += pc.min(tc) as f64;
        fp += pc.saturating_sub(tc) as f64;
    }
    for (k, &tc) in &t {
        fn_ += tc.saturating_sub(p.get(k).copied().unwrap_or(0)) as f64;
    }
    let s = tp + fp + fn_;
    if s > 0.0 {
        (tp / s, fp / s, fn_ / s)
    } else {
        (0.0, 0.0, 0.0)
    }
}

/// F1, precision and recall over pages (evaluate.py's `metrics_from_tp_fp_fns`).
fn metrics(pages: &[Matching]) -> (f64, f64, f64) {
    let score = |num: f64, other: f64, third: f64| {
        if other == 0.0 && third == 0.0 {
            1.0
        } else if num == 0.0 && other == 0.0 {
            0.0
        } else {
            num / (num + other)
        }
    };
    let mean = |xs: Vec<f64>| xs.iter().sum::<f64>() / xs.len().max(1) as f64;
    let precision = mean(
        pages
            .iter()
            .filter(|(tp, fp, _)| tp + fp > 0.0)
            .map(|&(tp, fp, fn_)| score(tp, fp, fn_))
            .collect(),
    );
    let recall = mean(
        pages
            .iter()
            .filter(|(tp, _, fn_)| tp + fn_ > 0.0)
            .map(|&(tp, fp, fn_)| score(tp, fn_, fp))
            .collect(),
    );
    (
        2.0 * precision * recall / (precision + recall),
        precision,
        recall,
    )
}

/// One method's texts, in corpus order, and its cost.
struct Run {
    name: String,
    texts: Vec<String>,
    ms_per_page: f64,
}

fn report(articles: &[Article], run: &Run) -> Vec<Matching> {
    let m: Vec<Matching> = articles
        .iter()
        .zip(&run.texts)
        .map(|(a, t)| matching(&a.truth, t))
        .collect();
    let half = |parity: usize| -> Vec<Matching> {
        m.iter()
            .enumerate()
            .filter(|(i, _)| i % 2 == parity)
            .map(|(_, x)| *x)
            .collect()
    };
    if run.texts.iter().all(|t| t.is_empty()) {
        println!(
            "{:<22} {:>6} {:>9} {:>7} {:>8} {:>8} {:>12.2}",
            run.name, "-", "-", "-", "-", "-", run.ms_per_page
        );
        return m;
    }
    let (f1, p, r) = metrics(&m);
    let (f1a, ..) = metrics(&half(0));
    let (f1b, ..) = metrics(&half(1));
    println!(
        "{:<22} {:>6.3} {:>9.3} {:>7.3} {:>8.3} {:>8.3} {:>12.2}",
        run.name, f1, p, r, f1a, f1b, run.ms_per_page
    );
    m
}

/// The anchors, run by Python on the same pages.
const ANCHORS_PY: &str = r#"
import gzip, json, sys, time
from importlib.metadata import version
keys = json.load(sys.stdin)
pages = {}
for k in keys:
    with (gzip.open if k.endswith(".gz") else open)(k, "rt", encoding="utf8", errors="replace") as f:
        pages[k] = f.read()
out = {}
try:
    import trafilatura
    texts, t = {}, time.perf_counter()
    for k in keys:
        texts[k] = trafilatura.extract(pages[k], include_comments=False) or ""
    out["trafilatura " + version("trafilatura")] = {"seconds": time.perf_counter() - t, "texts": texts}
except ImportError as e:
    print(f"anchors: no trafilatura ({e})", file=sys.stderr)
try:
    from readability import Document
    import html_text
    texts, t = {}, time.perf_counter()
    for k in keys:
        texts[k] = html_text.extract_text(Document(pages[k]).summary(html_partial=True)) or ""
    out["readability " + version("readability-lxml")] = {"seconds": time.perf_counter() - t, "texts": texts}
except ImportError as e:
    print(f"anchors: no readability-lxml or html-text ({e})", file=sys.stderr)
json.dump(out, sys.stdout)
"#;

fn anchors(python: &str, articles: &[Article]) -> Result<Vec<Run>, String> {
    let keys: Vec<String> = articles
        .iter()
        .map(|a| a.path.display().to_string())
        .collect();
    let v = super::run_python(python, ANCHORS_PY, "", &keys)?;
    let mut runs = Vec::new();
    for (name, r) in v.as_object().ok_or("anchors' output is no object")? {
        let texts = keys
            .iter()
            .map(|k| r["texts"][k.as_str()].as_str().unwrap_or("").to_string())
            .collect();
        runs.push(Run {
            name: name.clone(),
            texts,
            ms_per_page: r["seconds"].as_f64().unwrap_or(f64::NAN) * 1000.0
                / articles.len().max(1) as f64,
        });
    }
    Ok(runs)
}

/// Runs a method over every page (parsing included) `runs` times.
fn ours(name: &str, articles: &[Article], runs: usize, f: impl Fn(&Page) -> String) -> Run {
    let mut texts = Vec::new();
    let secs = timed(runs, || {
        texts = articles
            .iter()
            .map(|a| f(&Page::from_bytes(&a.html, Some("text/html; charset=utf-8"))))
            .collect();
    });
    Run {
        name: name.to_string(),
        texts,
        ms_per_page: secs * 1000.0 / articles.len().max(1) as f64,
    }
}

pub fn run(args: &TextBenchArgs) -> ExitCode {
    let loaded = Collection::detect(&args.corpus).and_then(|c| Ok((c, load(&args.corpus, c)?)));
    let (collection, articles) = match loaded {
        Ok((c, a)) if !a.is_empty() => (c, a),
        Ok(_) => {
            eprintln!(
                "gather bench text: {}: no pages in the collection",
                args.corpus.display()
            );
            return crate::cli::exit(crate::cli::BAD_INPUT);
        }
        Err(e) => {
            eprintln!("gather bench text: {e}");
            return crate::cli::exit(crate::cli::BAD_INPUT);
        }
    };
    println!(
        "{}: {} pages of {} ({} MB of HTML); F1 of 4-word shingles as the article-extraction benchmark's evaluate.py; halves: pages in key order, even and odd",
        collection.name(),
        articles.len(),
        args.corpus.display(),
        articles.iter().map(|a| a.html.len()).sum::<usize>() / 1_000_000
    );
    let mut runs = vec![
        ours("gather article", &articles, args.runs, article::main_text),
        ours("gather JSON text", &articles, args.runs, |p| {
            main_content(Method::default(), &Blocks::of(p), &[]).text
        }),
        ours("whole text", &articles, args.runs, Page::text),
        ours("parse only", &articles, args.runs, |p| {
            std::hint::black_box(p);
            String::new()
        }),
    ];
    if let Some(python) = &args.anchors {
        match anchors(python, &articles) {
            Ok(a) => runs.extend(a),
            Err(e) => {
                eprintln!("gather bench text: the anchors did not run: {e}");
                return crate::cli::exit(crate::cli::FAILED);
            }
        }
    }
    println!(
        "{:<22} {:>6} {:>9} {:>7} {:>8} {:>8} {:>12}",
        "method", "F1", "precision", "recall", "F1 even", "F1 odd", "ms per page"
    );
    let all: Vec<Vec<Matching>> = runs.iter().map(|run| report(&articles, run)).collect();
    if args.show_worst > 0 {
        // gather's lowest pages, each with every method's F1 on it (the
        // anchors last) and its half.
        let m = &all[0];
        let mut order: Vec<usize> = (0..articles.len()).collect();
        let f1 = |(tp, fp, fn_): Matching| 2.0 * tp / (2.0 * tp + fp + fn_).max(f64::MIN_POSITIVE);
        order.sort_by(|&a, &b| f1(m[a]).total_cmp(&f1(m[b])));
        for &i in order.iter().take(args.show_worst) {
            let (tp, fp, fn_) = m[i];
            let others: Vec<String> = all[1..]
                .iter()
                .map(|o| format!("{:.3}", f1(o[i])))
                .collect();
            println!(
                "{:.3} tp {tp:.2} fp {fp:.2} fn {fn_:.2} {} ({}; others {})",
                f1(m[i]),
                articles[i].key,
                if i % 2 == 0 { "even" } else { "odd" },
                others.join(" ")
            );
        }
    }
    crate::cli::exit(crate::cli::OK)
}

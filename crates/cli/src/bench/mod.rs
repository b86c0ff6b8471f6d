//! `gather bench`: benchmarks that report medians, not pass/fail. They are
//! built only with the `bench` feature (`cargo run --release --features
//! bench -- bench …`), so the gatherer a user builds leaves them out.

use std::process::{Command, ExitCode, Stdio};

use std::path::{Path, PathBuf};
use std::time::Instant;

use gather::demo::listing;
use gather::demo::{DemoConfig, DemoSite, Variant};
use gather::hel::Rule;
use gather::page::Page;

mod ceiling;
mod forms;
mod induce;
mod page_cost;
mod pagers;
mod pages;
mod plan;
mod real;
mod records;
mod surface;
mod swde;
mod text;
mod workers;

#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub what: BenchWhat,
}

#[derive(Debug, clap::Subcommand)]
pub enum BenchWhat {
    /// Parse pages and evaluate rules over a directory of pages.
    Hel(HelBenchArgs),
    /// Gather the demo site (paged results) at two sizes, side by side.
    Gather(GatherBenchArgs),
    /// What one result page costs end to end (CPU user and system, peak
    /// memory, system calls, instructions) at 300, 1,000 and 3,000 result
    /// pages, with and without kept pages.
    Pages(page_cost::PagesBenchArgs),
    /// 1, 2 and 4 workers on a PostgreSQL database against a slow provider,
    /// side by side with one process on a SQLite file.
    Workers(workers::WorkersBenchArgs),
    /// Refining truncated queries: coverage and requests on the demo's
    /// page-limited guide and capped catalogue, against static plans.
    Refine(RefineBenchArgs),
    /// The boilerplate methods side by side on the demo's result pages:
    /// text removed, rule values that survive, cost per page.
    Boilerplate(pages::BoilerplateBenchArgs),
    /// Main text of single pages on a public article corpus (the
    /// article-extraction benchmark): shingle F1 and cost per page, side by
    /// side with trafilatura and readability when they are installed.
    Text(text::TextBenchArgs),
    /// Navigation detection on the demo site's pages: precision and recall
    /// of menus, pagination and content links, cost per page.
    Links(pages::LinksBenchArgs),
    /// Induce rules on some result pages of a site; precision and recall on the others.
    Induce(induce::InduceBenchArgs),
    /// Surfacing the demo's five providers without metadata, against the
    /// runs their hand-written metadata drives: F1, rows, requests.
    Surface(surface::SurfaceBenchArgs),
    /// How surfacing reads real search forms (the Formasaurus corpus): the
    /// form it picks on a page, the inputs it would probe.
    Forms(forms::FormsBenchArgs),
    /// The records of single list pages (the NEXT-EVAL corpus): record
    /// precision, recall and F1 beside the largest list of same-tag siblings.
    Records(records::RecordsBenchArgs),
    /// The pagers of single pages (the autopager corpus): precision, recall
    /// and F1 of the next and page links, the next link named.
    Pagers(pagers::PagersBenchArgs),
    /// Peak memory as the queries planned for one source grow (1,000,
    /// 10,000, 100,000), first run and resumed, beside a baseline.
    Plan(plan::PlanBenchArgs),
    /// Web applications someone else wrote (benches/real/setup): each
    /// gathered from its form's URL alone and with a hand-written spec; per
    /// attribute F1 against its dataset, requests, the summary's claim.
    Real(real::RealBenchArgs),
}

#[derive(Debug, clap::Args)]
pub struct RefineBenchArgs {
    /// Hotels in the demo database (the page-limited guide).
    #[arg(long, default_value_t = 8000)]
    pub hotels: usize,
    /// Books in the demo catalogue.
    #[arg(long, default_value_t = 5000)]
    pub titles: usize,
    /// Articles in the demo press archive.
    #[arg(long, default_value_t = 3000)]
    pub articles: usize,
    /// Only the keyword searches whose words are learned (their coverage
    /// curves beside their ceilings).
    #[arg(long)]
    pub keywords: bool,
    /// Also gather each keyword search with this gather executable (an
    /// earlier build), against the same demo site, and print its curve
    /// beside this build's.
    #[arg(long, value_name = "EXE")]
    pub baseline: Option<PathBuf>,
    /// Only this keyword search (`archive`, `pictures`, `classifieds`).
    #[arg(long, value_name = "SEARCH", value_parser = ["archive", "pictures", "classifieds"])]
    pub only: Option<String>,
    /// Print each keyword search's first 200 queries beside the greedy
    /// ceiling's: the words, their rows in the database, the new rows each
    /// brought.
    #[arg(long)]
    pub trace: bool,
}

#[derive(Debug, clap::Args)]
pub struct HelBenchArgs {
    /// A directory of pages (`*.html`, `*.htm`).
    pub dir: PathBuf,
    /// Instead of measuring, write this many generated product-listing pages
    /// (about 40 KB each) into DIR.
    #[arg(long, value_name = "N")]
    pub generate: Option<usize>,
    /// How many times to run over the directory; the median run is reported.
    #[arg(long, default_value_t = 7)]
    pub runs: usize,
    /// Also run lxml with the same rules written in XPath (`pip install
    /// lxml`) with this Python on the same pages, and print the ratio.
    #[arg(long, value_name = "PYTHON", num_args = 0..=1, default_missing_value = "python3")]
    pub anchors: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct GatherBenchArgs {
    /// Hotels in the smaller demo database.
    #[arg(long, default_value_t = 2000)]
    pub hotels: usize,
    /// How many times larger the second database is.
    #[arg(long, default_value_t = 10)]
    pub scale: usize,
    /// Runs per size; medians are reported.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
}

/// Precision, recall and F1 of `matched` of `predicted` items against
/// `truth` true ones (0 where nothing was predicted or nothing is true).
pub(crate) fn prf(matched: usize, predicted: usize, truth: usize) -> (f64, f64, f64) {
    let p = matched as f64 / predicted.max(1) as f64;
    let r = matched as f64 / truth.max(1) as f64;
    let f1 = if p + r > 0.0 {
        2.0 * p * r / (p + r)
    } else {
        0.0
    };
    (p, r, f1)
}

/// [`prf`] on one line after `name`.
fn prf_line(name: &str, matched: usize, predicted: usize, truth: usize) -> String {
    let (p, r, f) = prf(matched, predicted, truth);
    format!("{name:<40} P {p:.3}  R {r:.3}  F1 {f:.3}  ({matched} of {predicted} predicted, {truth} true)")
}

pub fn run(args: &BenchArgs) -> ExitCode {
    match &args.what {
        BenchWhat::Hel(a) => run_hel_bench(a),
        BenchWhat::Gather(a) => run_gather_bench(a),
        BenchWhat::Pages(a) => page_cost::run(a),
        BenchWhat::Plan(a) => plan::run(a),
        BenchWhat::Workers(a) => workers::run(a),
        BenchWhat::Refine(a) => match run_refine_bench(a) {
            Ok(()) => crate::cli::exit(crate::cli::OK),
            Err(e) => {
                eprintln!("gather bench refine: {e}");
                crate::cli::exit(crate::cli::FAILED)
            }
        },
        BenchWhat::Boilerplate(a) => pages::run(a),
        BenchWhat::Text(a) => text::run(a),
        BenchWhat::Links(a) => pages::run_links(a),
        BenchWhat::Induce(a) => induce::run(a),
        BenchWhat::Surface(a) => surface::run(a),
        BenchWhat::Forms(a) => forms::run(a),
        BenchWhat::Records(a) => records::run(a),
        BenchWhat::Pagers(a) => pagers::run(a),
        BenchWhat::Real(a) => real::run(a),
    }
}

/// One gathering, measured in its own process.
#[derive(Debug, Clone, Copy)]
struct Sample {
    requests_per_second: f64,
    cpu_per_1000_pages: f64,
    peak_rss_mib: f64,
    pages: f64,
}

fn run_gather_bench(args: &GatherBenchArgs) -> ExitCode {
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("gather bench: {e}");
            return crate::cli::exit(crate::cli::FAILED);
        }
    };
    let sizes = [args.hotels, args.hotels * args.scale.max(1)];
    let mut medians = Vec::new();
    for hotels in sizes {
        // The site runs in this process; the gatherer in a child of its own,
        // so that its CPU time and memory are its own.
        let site = match runtime.block_on(DemoSite::start(DemoConfig {
            hotels,
            ..DemoConfig::default()
        })) {
            Ok(site) => site,
            Err(e) => {
                eprintln!("gather bench: cannot start the demo site: {e:#}");
                return crate::cli::exit(crate::cli::FAILED);
            }
        };
        let url = site.url(Variant::Paged);
        let mut samples = Vec::new();
        for run in 0..args.runs.max(1) {
            match gather_once(&url, run) {
                Ok(sample) => samples.push(sample),
                Err(e) => {
                    eprintln!("gather bench: {e}");
                    return crate::cli::exit(crate::cli::FAILED);
                }
            }
        }
        runtime.block_on(site.shutdown());
        let m = |f: fn(&Sample) -> f64| median(samples.iter().map(f).collect());
        let row = Sample {
            requests_per_second: m(|s| s.requests_per_second),
            cpu_per_1000_pages: m(|s| s.cpu_per_1000_pages),
            peak_rss_mib: m(|s| s.peak_rss_mib),
            pages: m(|s| s.pages),
        };
        println!(
            "hotels {hotels:>6}: result pages {:>6.0}, {:>7.1} requests/s, {:>6.3} CPU s per 1,000 result pages, peak RSS {:>6.1} MiB (median of {})",
            row.pages, row.requests_per_second, row.cpu_per_1000_pages, row.peak_rss_mib, samples.len()
        );
        medians.push(row);
    }
    if let [small, large] = medians[..] {
        println!(
            "ratio ({}x the result pages): peak RSS {:.3}, requests/s {:.3}",
            large.pages / small.pages.max(1.0),
            large.peak_rss_mib / small.peak_rss_mib,
            large.requests_per_second / small.requests_per_second
        );
    }
    crate::cli::exit(crate::cli::OK)
}

fn gather_once(url: &url::Url, run: usize) -> Result<Sample, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let output = Command::new(exe)
        .arg(url.as_str())
        .arg("--db")
        .arg(dir.path().join(format!("bench-{run}.sqlite")))
        .arg("--json")
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run the gatherer: {e}"))?;
    if !output.status.success() {
        return Err(format!("the gatherer exited with {}", output.status));
    }
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("cannot read the gatherer's summary: {e}"))?;
    let number = |key: &str| report.get(key).and_then(|v| v.as_f64());
    let pages: f64 = report["sources"]
        .as_array()
        .map(|s| s.iter().filter_map(|s| s["pages"].as_f64()).sum())
        .unwrap_or_default();
    let seconds = number("seconds").unwrap_or(f64::NAN);
    Ok(Sample {
        requests_per_second: number("requests").unwrap_or_default() / seconds,
        cpu_per_1000_pages: number("cpu_seconds").unwrap_or(f64::NAN) / pages.max(1.0) * 1000.0,
        peak_rss_mib: number("peak_rss_bytes").unwrap_or(f64::NAN) / (1024.0 * 1024.0),
        pages,
    })
}

/// This executable, and the `--baseline` one when given: (label, path).
fn executables(baseline: Option<&PathBuf>) -> Result<Vec<(String, PathBuf)>, String> {
    let mut exes = vec![(
        "this".to_string(),
        std::env::current_exe().map_err(|e| e.to_string())?,
    )];
    if let Some(path) = baseline {
        if !path.is_file() {
            return Err(format!("--baseline {}: no such executable", path.display()));
        }
        exes.push(("baseline".to_string(), path.clone()));
    }
    Ok(exes)
}

pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    match xs.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => xs[n / 2],
        n => (xs[n / 2 - 1] + xs[n / 2]) / 2.0,
    }
}

/// Measures parsing plus the five rules of `hel::listing::RULES` over a
/// directory of pages, or generates such a directory.
fn run_hel_bench(args: &HelBenchArgs) -> ExitCode {
    if let Some(n) = args.generate {
        return match generate(&args.dir, n) {
            Ok(bytes) => {
                println!(
                    "wrote {n} generated product-listing pages ({:.1} MB) to {}",
                    bytes as f64 / 1e6,
                    args.dir.display()
                );
                crate::cli::exit(crate::cli::OK)
            }
            Err(e) => {
                eprintln!("gather bench hel: cannot write {}: {e}", args.dir.display());
                crate::cli::exit(crate::cli::FAILED)
            }
        };
    }
    let (paths, pages) = match read_dir(&args.dir) {
        Ok(p) if !p.1.is_empty() => p,
        Ok(_) => {
            eprintln!(
                "gather bench hel: no *.html pages in {} (make some with --generate N)",
                args.dir.display()
            );
            return crate::cli::exit(crate::cli::BAD_INPUT);
        }
        Err(e) => {
            eprintln!("gather bench hel: cannot read {}: {e}", args.dir.display());
            return crate::cli::exit(crate::cli::FAILED);
        }
    };
    let rules: Vec<Rule> = match listing::RULES.iter().map(|r| Rule::parse(r)).collect() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("gather bench hel: {e}");
            return crate::cli::exit(crate::cli::FAILED);
        }
    };
    let bytes: usize = pages.iter().map(Vec::len).sum();
    let runs = args.runs.max(1);

    let mut values = 0usize;
    let full = median_secs(runs, || {
        values = 0;
        for p in &pages {
            let page = Page::from_bytes(p, None);
            for r in &rules {
                values += r.eval(&page).flatten().len();
            }
        }
    });
    let parse_only = median_secs(runs, || {
        for p in &pages {
            std::hint::black_box(Page::from_bytes(p, None));
        }
    });
    let parsed: Vec<Page> = pages.iter().map(|p| Page::from_bytes(p, None)).collect();
    let rules_only = median_secs(runs, || {
        for page in &parsed {
            for r in &rules {
                std::hint::black_box(r.eval(page).flatten());
            }
        }
    });
    drop(parsed);
    let (mut worst, mut heap) = (0f64, 0usize);
    for p in &pages {
        let h = Page::from_bytes(p, None).heap_bytes();
        heap += h;
        worst = worst.max(h as f64 / p.len().max(1) as f64);
    }
    let n = pages.len() as f64;
    println!(
        "{} pages, {:.1} MB, avg {:.1} KB; {} rules, {values} values per run; median of {runs} runs",
        pages.len(),
        bytes as f64 / 1e6,
        bytes as f64 / n / 1e3,
        rules.len()
    );
    println!(
        "parse + 5 rules: {:.0} pages/s, {:.1} MB/s ({:.3} ms/page)",
        n / full,
        bytes as f64 / 1e6 / full,
        full * 1e3 / n
    );
    println!(
        "parse only:      {:.0} pages/s, {:.1} MB/s ({:.3} ms/page)",
        n / parse_only,
        bytes as f64 / 1e6 / parse_only,
        parse_only * 1e3 / n
    );
    println!(
        "5 rules only:    {:.0} pages/s ({:.3} ms/page)",
        n / rules_only,
        rules_only * 1e3 / n
    );
    println!(
        "tree memory: {:.2}× the page bytes on average, {:.2}× at worst",
        heap as f64 / bytes as f64,
        worst
    );
    if let Some(python) = &args.anchors {
        match lxml_anchor(python, &paths, runs) {
            Ok(lxml) => {
                println!(
                    "{} + XPath, the same rules: parse + rules {:.3} ms/page, parse only {:.3} ms/page, {} values per run",
                    lxml.name,
                    lxml.full * 1e3 / n,
                    lxml.parse * 1e3 / n,
                    lxml.values
                );
                println!(
                    "HEL against lxml: {:.2}× as fast parsing + rules, {:.2}× parsing only",
                    lxml.full / full,
                    lxml.parse / parse_only
                );
            }
            Err(e) => {
                eprintln!("gather bench hel: lxml did not run: {e}");
                return crate::cli::exit(crate::cli::FAILED);
            }
        }
    }
    crate::cli::exit(crate::cli::OK)
}

/// lxml's times over the same pages (medians of `runs`, seconds per run).
struct LxmlRun {
    name: String,
    full: f64,
    parse: f64,
    values: u64,
}

/// The five rules of `listing::RULES` in XPath over lxml's tree, as a
/// Python user of lxml would write them (`./tr|./tbody/tr` for HEL's rows of
/// a table, `.txt` as `text_content()` with white space collapsed); on the
/// generated pages they give the same values as the rules.
const LXML_PY: &str = r#"
import gzip, json, re, sys, time
import lxml.html
from importlib.metadata import version
paths, runs = json.load(sys.stdin), int(sys.argv[1])
def read(p):
    with open(p, "rb") as f:
        b = f.read()
    return gzip.decompress(b) if p.endswith(".gz") else b
pages = [read(p) for p in paths]
def txt(e):
    return " ".join(e.text_content().split())
PRICE = re.compile(r"EUR ([0-9.]+),([0-9]{2})")
SPLIT = re.compile(r"\s*;\s*")
ROWS = "(./tr|./thead/tr|./tbody/tr|./tfoot/tr)"
def rules(doc):
    out = [[], [], [], [], []]
    body = doc.find("body")
    if body is None:
        return out
    for t in body.xpath(".//table[@id='products']"):
        out[0] += [txt(a) for a in t.xpath(ROWS + "[position()>1]/td[2]/a[1]")]
    t3 = body.xpath("(.//table)[4]")
    for t in t3:
        for td in t.xpath(ROWS + "[td[5][contains(translate(., 'INSTOCK', 'instock'), 'in stock')]]/td[4]"):
            m = PRICE.search(txt(td))
            if m:
                out[1] += m.groups()
    for a in body.iter("a"):
        out[2].append(txt(a))
        h = a.get("href")
        if h is not None:
            out[2].append(h)
    out[3] = [txt(a) for a in body.xpath(".//div[@class='menu']/ul[1]/li/a[1]")]
    for t in t3:
        for tr in t.xpath(ROWS + "[position()>1]"):
            out[4] += tr.xpath("./td[2]/a[1]/@href")
            out[4] += [s for td in tr.xpath("./td[3]") for s in SPLIT.split(txt(td))]
            out[4] += tr.xpath("./td[1]/img[1]/@src")
    return out
def median(xs):
    return sorted(xs)[len(xs) // 2]
full, parse, values = [], [], 0
for _ in range(runs):
    t, values = time.perf_counter(), 0
    for p in pages:
        values += sum(map(len, rules(lxml.html.document_fromstring(p))))
    full.append(time.perf_counter() - t)
    t = time.perf_counter()
    for p in pages:
        lxml.html.document_fromstring(p)
    parse.append(time.perf_counter() - t)
json.dump({"name": "lxml " + version("lxml"), "full": median(full), "parse": median(parse), "values": values}, sys.stdout)
"#;

fn lxml_anchor(python: &str, paths: &[PathBuf], runs: usize) -> Result<LxmlRun, String> {
    let paths: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let v = run_python(python, LXML_PY, &runs.to_string(), &paths)?;
    Ok(LxmlRun {
        name: v["name"].as_str().unwrap_or("lxml").to_string(),
        full: v["full"].as_f64().ok_or("no time in its output")?,
        parse: v["parse"].as_f64().ok_or("no time in its output")?,
        values: v["values"].as_u64().unwrap_or(0),
    })
}

/// Runs a Python script (`python -c SCRIPT ARG`) with `input` as JSON on its
/// standard input; its standard output parsed as JSON.
pub(super) fn run_python(
    python: &str,
    script: &str,
    arg: &str,
    input: &impl serde::Serialize,
) -> Result<serde_json::Value, String> {
    use std::io::Write;
    let mut child = Command::new(python)
        .arg("-c")
        .arg(script)
        .arg(arg)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot run {python}: {e}"))?;
    let input = serde_json::to_string(input).map_err(|e| e.to_string())?;
    child
        .stdin
        .take()
        .ok_or("no stdin")?
        .write_all(input.as_bytes())
        .map_err(|e| e.to_string())?;
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(format!("{python} exited with {}", output.status));
    }
    serde_json::from_slice(&output.stdout).map_err(|e| format!("{python}'s output: {e}"))
}

pub(super) fn median_secs(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2].max(1e-9)
}

fn generate(dir: &Path, n: usize) -> std::io::Result<usize> {
    std::fs::create_dir_all(dir)?;
    let mut total = 0;
    for i in 0..n {
        let html = listing::generate_page(i as u64, 40_000);
        total += html.len();
        std::fs::write(dir.join(format!("page{i:04}.html")), html)?;
    }
    Ok(total)
}

/// The pages of a directory (`*.html`, `*.htm`, and gzipped as `*.html.gz`),
/// by name.
fn read_dir(dir: &Path) -> std::io::Result<(Vec<PathBuf>, Vec<Vec<u8>>)> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().to_ascii_lowercase())
                .unwrap_or_default();
            [".html", ".htm", ".html.gz"]
                .iter()
                .any(|ext| name.ends_with(ext))
        })
        .collect();
    names.sort();
    let pages = names
        .iter()
        .map(|p| gather::fetch::read_saved_page(p))
        .collect::<std::io::Result<_>>()?;
    Ok((names, pages))
}

/// Attribute → its distinct values.
type AttributeValues = std::collections::BTreeMap<String, std::collections::BTreeSet<String>>;

/// A gathering of one demo variant: its summary, the requests its result
/// script received, and the stored values.
type VariantRun = (
    gather::gatherer::Report,
    Vec<gather::demo::LoggedRequest>,
    AttributeValues,
);

/// Gathers a variant of the demo site into a fresh database; returns the
/// summary, the requests the variant's result script received and the
/// stored values.
fn gather_variant(
    runtime: &tokio::runtime::Runtime,
    site: &DemoSite,
    variant: Variant,
    script: &str,
) -> Result<VariantRun, String> {
    gather_provider(runtime, site, &site.url(variant), script)
}

/// [`gather_variant`] for the form page at `url`.
fn gather_provider(
    runtime: &tokio::runtime::Runtime,
    site: &DemoSite,
    url: &url::Url,
    script: &str,
) -> Result<VariantRun, String> {
    let gathered = gather_fresh(runtime, site, url, None)?;
    let sent = gathered
        .sent
        .into_iter()
        .filter(|r| r.target.starts_with(script))
        .collect();
    let values = gathered
        .store
        .values(gathered.source)
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|(a, v)| (a, v.into_iter().collect()))
        .collect();
    Ok((gathered.report, sent, values))
}

/// One gathering of the form page at `url` into a database of its own
/// (kept while this lives).
struct Gathered {
    report: gather::gatherer::Report,
    /// The requests the site received during the gathering.
    sent: Vec<gather::demo::LoggedRequest>,
    store: gather::store::Store,
    /// The source of `url` in `store`.
    source: gather::store::SourceId,
    _dir: tempfile::TempDir,
}

/// Gathers the form page at `url` into a fresh SQLite file, with at most
/// `max_queries` queries when given.
fn gather_fresh(
    runtime: &tokio::runtime::Runtime,
    site: &DemoSite,
    url: &url::Url,
    max_queries: Option<u64>,
) -> Result<Gathered, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let db = dir.path().join("bench.sqlite");
    let before = site.requests().len();
    let options = gather::gatherer::Options {
        db: db.clone(),
        max_queries,
        ..gather::gatherer::Options::default()
    };
    let report = runtime
        .block_on(gather::gatherer::gather(
            &[gather::gatherer::Start::Url(url.clone())],
            &options,
        ))
        .map_err(|e| e.to_string())?;
    let sent = site.requests().split_off(before);
    let store = gather::store::Store::open(&db).map_err(|e| e.to_string())?;
    let Some(source) = store
        .sources()
        .map_err(|e| e.to_string())?
        .into_iter()
        .find(|s| s.info.url == url.as_str())
    else {
        return Err(format!(
            "{url} was not gathered as a database source: {:?}",
            report.problems.first().map(|p| &p.message)
        ));
    };
    Ok(Gathered {
        report,
        sent,
        store,
        source: source.id,
        _dir: dir,
    })
}

/// The providers built unlike the demo's own (a cap no single count shows,
/// pager links that carry a refined query's parameters, a form that
/// ignores its parameters): coverage, most pages per query, requests
/// against the smallest static plan that reaches every value.
fn foreign_providers(runtime: &tokio::runtime::Runtime, site: &DemoSite) -> Result<(), String> {
    use gather::demo::{cottages, events, fewo, hofladen, shelf, stellen};
    let base = site.base_url();
    let at = |path: &str| base.join(path).map_err(|e| e.to_string());
    let pages_per_query = |sent: &[gather::demo::LoggedRequest], page: &str| {
        let mut per_query: std::collections::BTreeMap<String, usize> = Default::default();
        for request in sent {
            let mut query: Vec<&str> = request
                .target
                .split(['?', '&'])
                .skip(1)
                .filter(|p| !p.starts_with(page) && !p.ends_with('='))
                .collect();
            query.sort_unstable();
            *per_query.entry(query.join("&")).or_default() += 1;
        }
        per_query.values().max().copied().unwrap_or(0)
    };

    let (report, sent, values) = gather_provider(runtime, site, &at(shelf::PATH)?, "/shelf/find")?;
    let s = &report.sources[0];
    // Every subject, format and decade: each answer under the cap.
    let full = shelf::SUBJECTS.len() * shelf::FORMATS.len() * shelf::DECADES.len();
    println!(
        "Bookshop ({} books, 1-3 authors each, 50 shown, the hit count only in a sentence): {} queries ({} refined), {} requests; coverage {:?}; completeness: {}; smallest static plan reaching every book: {full} requests; ratio {:.3}",
        shelf::books().len(),
        s.queries_sent,
        s.queries_refined,
        sent.len(),
        coverage(&values, &shelf::expected()),
        s.completeness.state(),
        sent.len() as f64 / full as f64
    );

    let (report, sent, values) =
        gather_provider(runtime, site, &at(stellen::PATH)?, "/stellen/liste.cgi")?;
    let s = &report.sources[0];
    // Every field, hours and district: its pages, one for an empty answer.
    let mut full = 0;
    for (bereich, _, _) in stellen::BEREICHE {
        for (umfang, _, _) in stellen::UMFANG {
            for (kreis, _) in stellen::KREISE {
                full += stellen::search(bereich, umfang, kreis)
                    .len()
                    .div_ceil(stellen::PAGE_SIZE)
                    .max(1);
            }
        }
    }
    println!(
        "Job board ({} jobs, 10 a page, DB.MaxPages {}, pager links with every parameter): {} queries ({} refined), {} result pages, most pages for one query {}; coverage {:?}; completeness: {}; smallest static plan reaching every job: {full} result pages; ratio {:.3}",
        stellen::stellen().len(),
        stellen::MAX_PAGES,
        s.queries_sent,
        s.queries_refined,
        sent.len(),
        pages_per_query(&sent, "seite="),
        coverage(&values, &stellen::expected()),
        s.completeness.state(),
        sent.len() as f64 / full as f64
    );

    let (report, sent, values) = gather_provider(runtime, site, &at(fewo::PATH)?, "/fewo/suche")?;
    let s = &report.sources[0];
    // Every island, persons and town (the towns known beforehand).
    let full: usize = fewo::GEBIETE
        .iter()
        .map(|g| g.3.len() * fewo::PERSONEN.len())
        .sum();
    println!(
        "Holiday flats ({} flats, 30 shown, the selects not enough, an open text field Ort): {} queries ({} refined), {} requests; coverage {:?}; completeness: {}; smallest static plan reaching every flat, with each island's towns known: {full} requests; ratio {:.3}",
        fewo::wohnungen().len(),
        s.queries_sent,
        s.queries_refined,
        sent.len(),
        coverage(&values, &fewo::expected()),
        s.completeness.state(),
        sent.len() as f64 / full as f64
    );

    let (report, sent, values) =
        gather_provider(runtime, site, &at(cottages::PATH)?, cottages::SCRIPT)?;
    let s = &report.sources[0];
    let full = cottages::smallest_static_plan();
    let (blind, length, by_guests) = cottages::blind_static_plan();
    let prefixes = sent
        .iter()
        .filter(|r| r.target.contains("town=") && r.target.contains('*'))
        .count();
    println!(
        "Country cottages ({} cottages, 15 dearest shown, villages of cheap cottages no capped answer lists, `*` prefixes taken): {} queries ({} refined, {prefixes} with a `*` prefix), {} requests; coverage {:?}; completeness: {}; smallest static plan reaching every cottage, with every town known: {full} requests; ratio {:.3}; without the towns known (counties{} x every town prefix of {length} character{}): {blind} requests; ratio {:.3}",
        cottages::cottages().len(),
        s.queries_sent,
        s.queries_refined,
        sent.len(),
        coverage(&values, &cottages::expected()),
        s.completeness.state(),
        sent.len() as f64 / full as f64,
        if by_guests { " x guests" } else { "" },
        if length == 1 { "" } else { "s" },
        sent.len() as f64 / blind as f64
    );

    let (report, sent, values) =
        gather_provider(runtime, site, &at(hofladen::PATH)?, hofladen::SCRIPT)?;
    let s = &report.sources[0];
    let words = sent
        .iter()
        .filter(|r| {
            let query = r.target.split_once('?').map_or("", |(_, q)| q);
            url::form_urlencoded::parse(query.as_bytes()).any(|(n, v)| {
                n == "gemeinde" && !v.is_empty() && !hofladen::expected()["gemeinde"].contains(&*v)
            })
        })
        .count();
    println!(
        "Farm shops ({} shops, 15 shown, a field that takes a word of a place and no wildcard, small places no capped answer lists, one sharing no word): {} queries ({} refined, {words} not a whole place name: words and wildcard probes), {} requests; coverage {:?}; of what a query can reach {:?}; completeness: {}",
        hofladen::hoflaeden().len(),
        s.queries_sent,
        s.queries_refined,
        sent.len(),
        coverage(&values, &hofladen::expected()),
        coverage(&values, &hofladen::reachable()),
        s.completeness
    );

    let (report, sent, values) =
        gather_provider(runtime, site, &at(events::PATH)?, "/events/search")?;
    let s = &report.sources[0];
    println!(
        "Events page that ignores its form (the same 50 events for every query): {} queries ({} refined), {} requests; coverage {:?}; refining stopped: {}",
        s.queries_sent,
        s.queries_refined,
        sent.len(),
        coverage(&values, &events::expected()),
        s.refining_stopped.as_deref().unwrap_or("no")
    );
    Ok(())
}

/// The coverage curve of a keyword search whose words are learned: the
/// rows (distinct values of `rows`) reached after each query, in the order
/// the queries were sent, at 200 and 500 queries and every 50, beside the
/// `ceiling`: the rows the greedy choice reaches knowing the whole database.
fn keyword_curve(
    what: &str,
    gathered: Gathered,
    rows: &str,
    total: usize,
    ceiling: &[usize],
) -> Result<(), String> {
    let s = &gathered.report.sources[0];
    let requests = gathered
        .sent
        .iter()
        .filter(|r| r.target.contains('?'))
        .count();
    println!(
        "{what}: {} queries ({} learned), {requests} requests, stopped: {}",
        s.queries_sent,
        s.queries_learned,
        s.learning_stopped.as_deref().unwrap_or("-")
    );
    print_curve(
        &gathered._dir.path().join("bench.sqlite"),
        rows,
        total,
        ceiling,
    )
}

/// The coverage curve of the queries stored in the gatherer database `db`
/// (see [`keyword_curve`]).
fn print_curve(db: &Path, rows: &str, total: usize, ceiling: &[usize]) -> Result<(), String> {
    let new_rows: Vec<usize> = ceiling::queries_sent(db, rows)?
        .into_iter()
        .map(|(_, new)| new)
        .collect();
    let share = |rows: usize| rows as f64 / total as f64;
    let at = |n: usize| ceiling.get(n - 1).or(ceiling.last()).copied().unwrap_or(0);
    let mut reached = 0;
    for (n, gained) in new_rows.iter().enumerate() {
        reached += gained;
        let n = n + 1;
        if n == 3 || n % 50 == 0 || n == new_rows.len() {
            println!(
                "  after {n:>3} queries: {reached:>5} rows ({:.1}%); knowing the database: {:>5} ({:.1}%)",
                100.0 * share(reached),
                at(n),
                100.0 * share(at(n))
            );
        }
        if n == 200 || n == 500 {
            let ratio = reached as f64 / at(n).max(1) as f64;
            println!(
                "  coverage at {n} queries: {:.3} (knowing the database: {:.3}; {ratio:.3} of it, target 0.95: {})",
                share(reached),
                share(at(n)),
                if ratio >= 0.95 { "met" } else { "not met" }
            );
        }
    }
    Ok(())
}

/// Share of `expected` in `got`, per attribute, as a percentage.
fn coverage(got: &AttributeValues, expected: &AttributeValues) -> Vec<(String, f64)> {
    expected
        .iter()
        .map(|(attribute, want)| {
            let found = got
                .get(attribute)
                .map_or(0, |g| want.intersection(g).count());
            (
                attribute.clone(),
                100.0 * found as f64 / want.len().max(1) as f64,
            )
        })
        .collect()
}

fn run_refine_bench(args: &RefineBenchArgs) -> Result<(), String> {
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let site = runtime
        .block_on(DemoSite::start(DemoConfig {
            hotels: args.hotels,
            titles: args.titles,
            articles: args.articles,
            ..DemoConfig::default()
        }))
        .map_err(|e| format!("cannot start the demo site: {e:#}"))?;

    if !args.keywords {
        refined_providers(&runtime, &site, args)?;
    }
    keyword_searches(&runtime, &site, args)?;
    runtime.block_on(site.shutdown());
    Ok(())
}

/// The providers whose truncated answers are refined: requests and
/// coverage against static plans.
fn refined_providers(
    runtime: &tokio::runtime::Runtime,
    site: &DemoSite,
    args: &RefineBenchArgs,
) -> Result<(), String> {
    // Sites whose answers are whole: exactly the static plan.
    for variant in [Variant::Listed, Variant::Paged] {
        let (report, sent, _) = gather_variant(runtime, site, variant, "/cgi-bin/")?;
        let s = &report.sources[0];
        println!(
            "{variant:?}: {} queries planned, {} sent, {} refined, {} requests to the result scripts",
            s.queries_planned,
            s.queries_sent,
            s.queries_refined,
            sent.len()
        );
    }

    // The page-limited guide.
    let (report, sent, values) =
        gather_variant(runtime, site, Variant::Limited, "/cgi-bin/liste.pl")?;
    let s = &report.sources[0];
    let mut pages_per_query: std::collections::BTreeMap<String, usize> = Default::default();
    for request in &sent {
        *pages_per_query.entry(request.hotel_search()).or_default() += 1;
    }
    let most = pages_per_query.values().max().copied().unwrap_or(0);
    let static_values = {
        // The static plan alone: the region queries, cut at DB.MaxPages.
        let mut only_static = gather::gatherer::Options::default();
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        only_static.db = dir.path().join("static.sqlite");
        only_static.max_queries = Some(s.queries_planned);
        let report = runtime
            .block_on(gather::gatherer::gather(
                &[gather::gatherer::Start::Url(site.url(Variant::Limited))],
                &only_static,
            ))
            .map_err(|e| e.to_string())?;
        let store = gather::store::Store::open(&only_static.db).map_err(|e| e.to_string())?;
        let id = store.sources().map_err(|e| e.to_string())?[0].id;
        let values: AttributeValues = store
            .values(id)
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(|(a, v)| (a, v.into_iter().collect()))
            .collect();
        (report.sources[0].queries_sent, values)
    };
    let expected = site.expected(Variant::Limited);
    println!(
        "Limited guide ({} hotels): refined {} queries ({} planned + {} refined), {} result pages, most pages for one query {most}; coverage {:?}; the static plan alone ({} queries): coverage {:?}",
        args.hotels,
        s.queries_sent,
        s.queries_planned,
        s.queries_refined,
        sent.len(),
        coverage(&values, &expected),
        static_values.0,
        coverage(&static_values.1, &expected),
    );

    // The capped catalogue, against static prefix plans of every length.
    let (report, sent, values) =
        gather_variant(runtime, site, Variant::Catalogue, "/cgi-bin/katalog.pl")?;
    let expected = site.expected(Variant::Catalogue);
    let covered = coverage(&values, &expected)[0].1;
    println!(
        "Catalogue ({} books, {} distinct titles, 50 shown per query): refined {} queries, coverage {covered:.2}%; completeness: {}",
        args.titles,
        expected["titel"].len(),
        sent.len(),
        report.sources[0].completeness,
    );
    let conn = rusqlite::Connection::open(site.database_path()).map_err(|e| e.to_string())?;
    let mut stmt = conn
        .prepare("SELECT titel FROM buch ORDER BY titel COLLATE NOCASE, id")
        .map_err(|e| e.to_string())?;
    let rows: Vec<String> = stmt
        .query_map([], |r| r.get(0))
        .map_err(|e| e.to_string())?
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let mut cheapest = None;
    // /[A-Z0-9][A-Z0-9 ]{0,k-1}%/: every prefix of up to k characters; the
    // provider shows the first 50 titles of each, in title order.
    let mut reached = std::collections::BTreeSet::new();
    let mut queries = 0u128;
    for k in 1..=10u32 {
        queries += 36u128 * 37u128.pow(k - 1);
        let mut shown: std::collections::BTreeMap<String, usize> = Default::default();
        for title in &rows {
            let head: String = title.to_uppercase().chars().take(k as usize).collect();
            if head.chars().count() < k as usize {
                continue;
            }
            let n = shown.entry(head).or_default();
            if *n < gather::demo::catalogue::MAX_SHOWN {
                reached.insert(title.clone());
            }
            *n += 1;
        }
        let static_coverage = 100.0 * reached.len() as f64 / expected["titel"].len() as f64;
        println!(
            "  static plan of the prefixes of 1 to {k} characters: {queries} queries, coverage {static_coverage:.2}%"
        );
        if cheapest.is_none() && static_coverage >= covered {
            cheapest = Some(queries);
        }
    }
    match cheapest {
        Some(q) => println!(
            "  refined / smallest static plan with the same coverage: {} / {q} = {:.3}",
            sent.len(),
            sent.len() as f64 / q as f64
        ),
        None => {
            println!(
                "  no static plan of prefixes of up to 10 characters reaches the same coverage"
            )
        }
    }

    foreign_providers(runtime, site)
}

/// The keyword searches: words learned from the answers, each curve
/// beside the greedy ceiling.
fn keyword_searches(
    runtime: &tokio::runtime::Runtime,
    site: &DemoSite,
    args: &RefineBenchArgs,
) -> Result<(), String> {
    let baseline = args.baseline.as_deref();
    let wanted = |name: &str| args.only.as_deref().is_none_or(|only| only == name);
    if let Some(exe) = baseline {
        if !exe.is_file() {
            return Err(format!("--baseline {}: no such executable", exe.display()));
        }
    }
    // Each search gathered by this build, then by the baseline's.
    let curves =
        |what: &str, url: &url::Url, rows: &str, words: &[Vec<String>], steps: &[ceiling::Step]| {
            let total = words.len();
            let ceiling: Vec<usize> = steps.iter().map(|s| s.total).collect();
            let ceiling = ceiling.as_slice();
            let gathered = gather_fresh(runtime, site, url, Some(500))?;
            if args.trace {
                ceiling::trace(
                    &gathered._dir.path().join("bench.sqlite"),
                    rows,
                    words,
                    steps,
                    200,
                )?;
            }
            keyword_curve(
                &format!("{what}, this build"),
                gathered,
                rows,
                total,
                ceiling,
            )?;
            let Some(exe) = baseline else {
                return Ok::<(), String>(());
            };
            let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
            let db = dir.path().join("bench.sqlite");
            let status = std::process::Command::new(exe)
                .arg("--db")
                .arg(&db)
                .args(["--max-queries", "500", url.as_str()])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .map_err(|e| format!("{}: {e}", exe.display()))?;
            if !status.success() {
                return Err(format!("{} {url}: {status}", exe.display()));
            }
            println!("{what}, baseline {}:", exe.display());
            print_curve(&db, rows, total, ceiling)
        };
    // The keyword searches: words learned from the answers, within 500
    // queries; the coverage curve from the order the queries were sent.
    let words = |text: &str| -> Vec<String> { text.split(' ').map(str::to_lowercase).collect() };
    if wanted("archive") {
        let total = site.expected(Variant::Archive)["nr"].len();
        let articles = site.archive_articles().map_err(|e| e.to_string())?;
        let rows: Vec<Vec<String>> = articles.iter().map(|(_, t)| words(t)).collect();
        let archive_ceiling = ceiling::greedy_ceiling(
            &rows,
            gather::demo::ARCHIVE_MAX_SHOWN,
            500,
            200,
            30,
            |query, matches| {
                let wanted = query.join(" ");
                matches.sort_by_cached_key(|&at| {
                    gather::demo::archive_relevance(&wanted, articles[at].0)
                });
            },
        );
        curves(
        &format!("Archive ({total} articles, the 100 best matches shown per query, 3 seed words, German)"),
        &site.url(Variant::Archive),
        "nr",
        &rows,
        &archive_ceiling,
    )?;
    }
    if wanted("pictures") {
        let pictures = gather::demo::pictures::PICTURES;
        let rows: Vec<Vec<String>> = gather::demo::pictures::pictures()
            .iter()
            .map(|p| words(&p.caption))
            .collect();
        // Most recent (highest number, last) first.
        let pictures_ceiling = ceiling::greedy_ceiling(
            &rows,
            gather::demo::pictures::MAX_SHOWN,
            500,
            200,
            30,
            |_, matches| matches.reverse(),
        );
        curves(
        &format!("Picture library ({pictures} captions, the 50 most recent matches listed, 3 seed words, English, topics)"),
        &site.base_url().join(gather::demo::pictures::PATH).map_err(|e| e.to_string())?,
        "no",
        &rows,
        &pictures_ceiling,
    )?;
    }
    // Built after the policy, unlike both: French, the 20 cheapest listed,
    // the count after the query's own word (`« vélo » : 1 234 résultats`).
    if wanted("classifieds") {
        use gather::demo::annonces;
        let ads = annonces::ads();
        let rows: Vec<Vec<String>> = ads.iter().map(|a| words(&a.title)).collect();
        let annonces_ceiling =
            ceiling::greedy_ceiling(&rows, annonces::MAX_SHOWN, 500, 200, 30, |_, matches| {
                matches.sort_by_key(|&at| (ads[at].price, ads[at].reference))
            });
        curves(
        &format!("Classifieds ({} ads, the 20 cheapest matches listed, 3 seed words, French, the count after the query's word)", ads.len()),
        &site.base_url().join(annonces::PATH).map_err(|e| e.to_string())?,
        "ref",
        &rows,
        &annonces_ceiling,
    )?;
    }
    Ok(())
}

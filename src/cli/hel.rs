//! `gather hel`, `gather locate`, `gather bench hel`.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use crate::hel::{bench, Rule};
use crate::page::Page;

#[derive(Debug, clap::Args)]
pub struct HelArgs {
    /// The rule.
    pub rule: String,
    /// Pages (local files; `-` for standard input).
    #[arg(required = true)]
    pub pages: Vec<String>,
    /// A DB.Result prefix applied to a relative rule and its conditions.
    #[arg(long)]
    pub prefix: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct LocateArgs {
    /// The page (a local file; `-` for standard input).
    pub page: String,
    /// The text to find on it.
    pub text: String,
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
}

/// Reads a page given on the command line (`-` is standard input).
fn read_page(name: &str) -> std::io::Result<Vec<u8>> {
    if name == "-" {
        let mut buf = Vec::new();
        std::io::stdin().read_to_end(&mut buf)?;
        Ok(buf)
    } else {
        std::fs::read(name)
    }
}

/// Evaluates a rule on pages and prints each value as one line of JSON.
/// Exit 2 when the rule is rejected, 1 when a page cannot be read.
pub fn run_hel(args: &HelArgs) -> ExitCode {
    let rule = match Rule::parse_with_prefix(&args.rule, args.prefix.as_deref()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("gather hel: bad rule: {e}");
            return super::exit(super::BAD_INPUT);
        }
    };
    let mut status = super::OK;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for name in &args.pages {
        let bytes = match read_page(name) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("gather hel: cannot read {name}: {e}");
                status = super::FAILED;
                continue;
            }
        };
        let value = rule.eval(&Page::from_bytes(&bytes, None));
        let line = serde_json::to_string(&value).unwrap_or_else(|_| "null".into());
        if writeln!(out, "{line}").is_err() {
            return super::exit(super::FAILED);
        }
    }
    super::exit(status)
}

/// The extraction wizard: for each place the text occurs, its canonical dot
/// path and more robust alternatives, each checked on the page.
pub fn run_locate(args: &LocateArgs) -> ExitCode {
    let bytes = match read_page(&args.page) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("gather locate: cannot read {}: {e}", args.page);
            return super::exit(super::FAILED);
        }
    };
    if args.text.trim().is_empty() {
        eprintln!("gather locate: the text to find is empty");
        return super::exit(super::BAD_INPUT);
    }
    let page = Page::from_bytes(&bytes, None);
    let found = crate::locate::locate(&page, &args.text);
    if found.is_empty() {
        eprintln!(
            "gather locate: {:?} does not occur on {}",
            args.text, args.page
        );
        return super::exit(super::FAILED);
    }
    for loc in found {
        println!("{}", loc.path);
        println!(
            "    = {}",
            serde_json::to_string(&loc.value).unwrap_or_default()
        );
        for alt in &loc.alternatives {
            println!("  robust: {alt}");
        }
        println!();
    }
    super::exit(super::OK)
}

/// Measures parsing plus the five rules of `hel::bench::RULES` over a
/// directory of pages, or generates such a directory.
pub(super) fn run_bench(args: &HelBenchArgs) -> ExitCode {
    if let Some(n) = args.generate {
        return match generate(&args.dir, n) {
            Ok(bytes) => {
                println!(
                    "wrote {n} generated product-listing pages ({:.1} MB) to {}",
                    bytes as f64 / 1e6,
                    args.dir.display()
                );
                super::exit(super::OK)
            }
            Err(e) => {
                eprintln!("gather bench hel: cannot write {}: {e}", args.dir.display());
                super::exit(super::FAILED)
            }
        };
    }
    let pages = match read_dir(&args.dir) {
        Ok(p) if !p.is_empty() => p,
        Ok(_) => {
            eprintln!(
                "gather bench hel: no *.html pages in {} (make some with --generate N)",
                args.dir.display()
            );
            return super::exit(super::BAD_INPUT);
        }
        Err(e) => {
            eprintln!("gather bench hel: cannot read {}: {e}", args.dir.display());
            return super::exit(super::FAILED);
        }
    };
    let rules: Vec<Rule> = match bench::RULES.iter().map(|r| Rule::parse(r)).collect() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("gather bench hel: {e}");
            return super::exit(super::FAILED);
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
    super::exit(super::OK)
}

fn median_secs(runs: usize, mut f: impl FnMut()) -> f64 {
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
        let html = bench::generate_page(i as u64, 40_000);
        total += html.len();
        std::fs::write(dir.join(format!("page{i:04}.html")), html)?;
    }
    Ok(total)
}

fn read_dir(dir: &Path) -> std::io::Result<Vec<Vec<u8>>> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm"))
        })
        .collect();
    names.sort();
    names.iter().map(std::fs::read).collect()
}

//! `gather bench`: benchmarks that report medians, not pass/fail.

use std::process::{Command, ExitCode, Stdio};

use crate::demo::{DemoConfig, DemoSite, Variant};

#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub what: BenchWhat,
}

#[derive(Debug, clap::Subcommand)]
pub enum BenchWhat {
    /// Parse pages and evaluate rules over a directory of pages.
    Hel(super::hel::HelBenchArgs),
    /// Gather the demo site (paged results) at two sizes, side by side.
    Gather(GatherBenchArgs),
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

pub fn run(args: &BenchArgs) -> ExitCode {
    match &args.what {
        BenchWhat::Hel(a) => super::hel::run_bench(a),
        BenchWhat::Gather(a) => run_gather_bench(a),
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
            return super::exit(super::FAILED);
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
                return super::exit(super::FAILED);
            }
        };
        let url = site.url(Variant::Paged);
        let mut samples = Vec::new();
        for run in 0..args.runs.max(1) {
            match gather_once(&url, run) {
                Ok(sample) => samples.push(sample),
                Err(e) => {
                    eprintln!("gather bench: {e}");
                    return super::exit(super::FAILED);
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
    super::exit(super::OK)
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

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    match xs.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => xs[n / 2],
        n => (xs[n / 2 - 1] + xs[n / 2]) / 2.0,
    }
}

//! `gather bench pages`: what one result page costs the gatherer end to end
//! (fetch, parse, extract, store, start-up included), on the demo's paged
//! guide at several sizes, with and without kept pages.
//!
//! The site runs in this process; every gathering is a child process of its
//! own, whose CPU time (user and system) comes from `wait4` and whose peak
//! memory from its summary. Runs with and without kept pages alternate, so that the noise of
//! a shared machine falls on both alike. On request one more gathering per
//! size and mode runs under `strace -f -c` (system calls per page) and under
//! callgrind (instructions per page, the figure that shows changes below
//! the noise of CPU time).
//!
//! With `--scrapy PYTHON`, a Scrapy spider (`benches/scrapy/paged.py`,
//! written into the benchmark's temporary directory) gathers the same guide
//! in a child process of its own, alternated with the gatherer's runs: the
//! same queries (one per region of the form), the same result pages and
//! the same values, parsed with lxml and XPath, stored nowhere.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use gather::demo::{DemoConfig, DemoSite, Variant};

use super::median;

/// Hotels of the paged guide per result page of a gathering (7,273 hotels
/// give 366 result pages).
const HOTELS_PER_PAGE: f64 = 7273.0 / 366.0;

#[derive(Debug, clap::Args)]
pub struct PagesBenchArgs {
    /// Result pages of the gatherings (about: the guide is sized to give them).
    #[arg(long, value_delimiter = ',', default_value = "300,1000,3000")]
    pub pages: Vec<usize>,
    /// Gatherings per size and mode; medians are reported.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Which modes to run: `both`, `kept` (result pages kept) or `not-kept`.
    #[arg(long, value_enum, default_value = "both")]
    pub keep: KeepMode,
    /// One more gathering per size and mode under `strace -f -c`: system
    /// calls per result page.
    #[arg(long)]
    pub strace: bool,
    /// One more gathering per size and mode under `valgrind
    /// --tool=callgrind`: instructions per result page.
    #[arg(long)]
    pub callgrind: bool,
    /// Another gatherer executable (the last release's) measured the same
    /// way, its runs alternated with this one's, its rows beside this one's.
    #[arg(long, value_name = "EXECUTABLE")]
    pub baseline: Option<PathBuf>,
    /// A Python with Scrapy installed (`pip install scrapy`): a Scrapy
    /// spider gathers the same guide, its runs alternated with the
    /// gatherer's, its rows beside the gatherer's.
    #[arg(long, value_name = "PYTHON")]
    pub scrapy: Option<PathBuf>,
}

/// The Scrapy spider `--scrapy` runs.
const SCRAPY_SPIDER: &str = include_str!("../../../../benches/scrapy/paged.py");

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum KeepMode {
    Both,
    Kept,
    NotKept,
}

/// One gathering in a child process.
#[derive(Debug, Clone, Copy, Default)]
struct Sample {
    pages: f64,
    /// Bytes received in all (the gatherer's summary; NaN where the
    /// summary does not say, as the Scrapy spider's).
    bytes: f64,
    user: f64,
    system: f64,
    peak_rss_mib: f64,
    wall: f64,
}

/// System calls of the kinds that tell the cost of storing and waking,
/// named per page even when a gathering makes none of them.
const COUNTED: [&str; 4] = ["pwrite64", "fsync", "fdatasync", "futex"];

/// Other system calls are named when a gathering makes at least this many
/// per result page.
const NAMED_FROM: f64 = 0.1;

pub fn run(args: &PagesBenchArgs) -> ExitCode {
    match bench(args) {
        Ok(()) => crate::cli::exit(crate::cli::OK),
        Err(e) => {
            eprintln!("gather bench pages: {e}");
            crate::cli::exit(crate::cli::FAILED)
        }
    }
}

/// One kind of gathering the benchmark measures: which executable, and
/// whether it keeps the result pages (a Scrapy spider keeps nothing).
struct Arm {
    label: String,
    exe: PathBuf,
    keep: bool,
    /// The spider file, for the Scrapy arm.
    spider: Option<PathBuf>,
}

fn bench(args: &PagesBenchArgs) -> Result<(), String> {
    if args.pages.is_empty() || args.pages.contains(&0) {
        return Err("--pages needs sizes of at least one page".into());
    }
    let keeps: Vec<bool> = match args.keep {
        KeepMode::Both => vec![true, false],
        KeepMode::Kept => vec![true],
        KeepMode::NotKept => vec![false],
    };
    let exes = super::executables(args.baseline.as_ref())?;
    let arms: Vec<Arm> = keeps
        .iter()
        .flat_map(|&keep| {
            exes.iter().map(move |(label, exe)| Arm {
                label: label.clone(),
                exe: exe.clone(),
                keep,
                spider: None,
            })
        })
        .collect();
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let mut arms = arms;
    if let Some(python) = &args.scrapy {
        let spider = dir.path().join("paged_spider.py");
        std::fs::write(&spider, SCRAPY_SPIDER)
            .map_err(|e| format!("cannot write the Scrapy spider: {e}"))?;
        arms.push(Arm {
            label: "scrapy".into(),
            exe: python.clone(),
            keep: false,
            spider: Some(spider),
        });
    }
    println!(
        "size   gatherer  kept  result pages  KB/page  CPU ms/page (user + system)  CPU µs/KB  peak RSS MiB  wall s  (medians of {} runs, alternated)",
        args.runs.max(1)
    );
    // (arm, size, CPU per page, bytes per page) of each row.
    let mut per_page: Vec<(usize, usize, f64, f64)> = Vec::new();
    let mut extra: Vec<String> = Vec::new();
    let mut n = 0;
    for &size in &args.pages {
        let hotels = (size as f64 * HOTELS_PER_PAGE).round() as usize;
        let site = runtime
            .block_on(DemoSite::start(DemoConfig {
                hotels,
                ..DemoConfig::default()
            }))
            .map_err(|e| format!("cannot start the demo site: {e:#}"))?;
        let url = site.url(Variant::Paged);
        let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); arms.len()];
        for _ in 0..args.runs.max(1) {
            for (at, arm) in arms.iter().enumerate() {
                n += 1;
                let db = dir.path().join(format!("run-{n}.sqlite"));
                samples[at].push(match &arm.spider {
                    Some(spider) => scrape_once(&arm.exe, spider, url.as_str())?,
                    None => gather_once(&[], &arm.exe, url.as_str(), &db, arm.keep)?,
                });
            }
        }
        for (at, arm) in arms.iter().enumerate() {
            let m = |f: fn(&Sample) -> f64| median(samples[at].iter().map(f).collect());
            let pages = m(|s| s.pages);
            let ms = |secs: f64| secs * 1000.0 / pages.max(1.0);
            let cpu = m(|s| (s.user + s.system) / s.pages.max(1.0));
            // The pages of longer queries are larger (a pager that lists
            // every page): the cost per byte received tells a page that
            // costs more from a page that holds more.
            let page_bytes = m(|s| s.bytes / s.pages.max(1.0));
            println!(
                "{size:>5}  {:<8}  {:<4}  {pages:>12.0}  {:>7}  {:>6.3} ({:.3} + {:.3})         {:>9}  {:>12.1}  {:>6.2}",
                arm.label,
                match (&arm.spider, arm.keep) {
                    (Some(_), _) => "-",
                    (None, true) => "yes",
                    (None, false) => "no",
                },
                quotient(page_bytes, 1024.0, 1),
                cpu * 1000.0,
                ms(m(|s| s.user)),
                ms(m(|s| s.system)),
                quotient(cpu * 1e6, page_bytes / 1024.0, 2),
                m(|s| s.peak_rss_mib),
                m(|s| s.wall),
            );
            per_page.push((at, size, cpu, page_bytes));
        }
        for arm in arms.iter().filter(|a| a.spider.is_none()) {
            let what = format!(
                "{size:>5} pages, {}, {}",
                arm.label,
                if arm.keep { "kept" } else { "not kept" }
            );
            if args.strace {
                n += 1;
                let trace = dir.path().join(format!("strace-{n}.txt"));
                let prefix = [
                    "strace".to_string(),
                    "-f".into(),
                    "-c".into(),
                    "-o".into(),
                    trace.display().to_string(),
                ];
                let db = dir.path().join(format!("run-{n}.sqlite"));
                let sample = gather_once(&prefix, &arm.exe, url.as_str(), &db, arm.keep)?;
                let text = std::fs::read_to_string(&trace)
                    .map_err(|e| format!("cannot read strace's counts: {e}"))?;
                let counts = syscall_counts(&text);
                extra.push(format!(
                    "{what}: system calls per result page: {}",
                    per_page_calls(&counts, sample.pages)
                ));
            }
            if args.callgrind {
                n += 1;
                let out = dir.path().join(format!("callgrind-{n}.out"));
                let prefix = [
                    "valgrind".to_string(),
                    "--tool=callgrind".into(),
                    "--quiet".into(),
                    format!("--callgrind-out-file={}", out.display()),
                ];
                let db = dir.path().join(format!("run-{n}.sqlite"));
                let sample = gather_once(&prefix, &arm.exe, url.as_str(), &db, arm.keep)?;
                let text = std::fs::read_to_string(&out)
                    .map_err(|e| format!("cannot read callgrind's output: {e}"))?;
                let instructions =
                    callgrind_total(&text).ok_or("callgrind's output has no summary line")?;
                extra.push(format!(
                    "{what}: {:.2} million instructions per result page, {} per KB received ({instructions} in all)",
                    instructions as f64 / sample.pages.max(1.0) / 1e6,
                    quotient(instructions as f64, sample.bytes / 1024.0, 0),
                ));
            }
        }
        runtime.block_on(site.shutdown());
    }
    for line in &extra {
        println!("{line}");
    }
    for (at, arm) in arms.iter().enumerate() {
        let rows: Vec<_> = per_page.iter().filter(|r| r.0 == at).collect();
        if let (Some(first), Some(last)) = (rows.first(), rows.last()) {
            if rows.len() > 1 {
                let per_byte = if (last.3 / first.3).is_finite() {
                    format!(
                        "; pages {:.2}x the bytes, CPU per KB received {:.3}",
                        last.3 / first.3,
                        (last.2 / last.3) / (first.2 / first.3)
                    )
                } else {
                    String::new()
                };
                println!(
                    "{}, kept {}: CPU per result page at {} / at {} pages: {:.3}{per_byte}",
                    arm.label,
                    if arm.keep { "yes" } else { "no" },
                    last.1,
                    first.1,
                    last.2 / first.2
                );
            }
        }
    }
    // This build against the baseline (< 1: cheaper) and Scrapy against
    // this build (> 1: this build is cheaper), per size.
    let scrapy = arms.iter().position(|a| a.spider.is_some());
    let rows = |at: usize| per_page.iter().filter(move |r| r.0 == at);
    for (at, arm) in arms.iter().enumerate().filter(|(_, a)| a.label == "this") {
        let baseline = arms
            .iter()
            .position(|b| b.label == "baseline" && b.keep == arm.keep);
        for (other, name) in [(baseline, "this / baseline"), (scrapy, "Scrapy / this")] {
            let Some(other) = other else {
                continue;
            };
            for (&(_, size, this, _), &(_, _, theirs, _)) in rows(at).zip(rows(other)) {
                let ratio = if Some(other) == scrapy {
                    theirs / this
                } else {
                    this / theirs
                };
                println!(
                    "{size:>5} pages, kept {}: CPU per result page {name}: {ratio:.3}",
                    if arm.keep { "yes" } else { "no" },
                );
            }
        }
    }
    Ok(())
}

/// `amount / per` with `decimals`, or `-` where either is not known.
fn quotient(amount: f64, per: f64, decimals: usize) -> String {
    let value = amount / per;
    if value.is_finite() {
        format!("{value:.decimals$}")
    } else {
        "-".to_string()
    }
}

/// Gathers `url` into `db` in a child process, started through `prefix`
/// (a tracer) when it is not empty; the child's resources and result pages.
fn gather_once(
    prefix: &[String],
    exe: &Path,
    url: &str,
    db: &Path,
    keep: bool,
) -> Result<Sample, String> {
    let mut command = match prefix.split_first() {
        Some((tool, args)) => {
            let mut c = Command::new(tool);
            c.args(args).arg(exe);
            c
        }
        None => Command::new(exe),
    };
    command.arg(url).arg("--db").arg(db).arg("--json");
    if !keep {
        command.arg("--no-keep-pages");
    }
    let (report, usage, wall) = run_child(&mut command, "the gatherer")?;
    let pages: f64 = report["sources"]
        .as_array()
        .map(|s| s.iter().filter_map(|s| s["pages"].as_f64()).sum())
        .unwrap_or_default();
    Ok(sample(&usage, pages, &report, wall))
}

/// Gathers `url` with the Scrapy spider in a child process: its resources
/// and result pages (from the line of JSON it prints at its end).
fn scrape_once(python: &Path, spider: &Path, start: &str) -> Result<Sample, String> {
    let mut command = Command::new(python);
    command
        .args(["-m", "scrapy", "runspider"])
        .arg(spider)
        .arg("-a")
        .arg(format!("start={start}"));
    let (report, usage, wall) = run_child(&mut command, "the Scrapy spider")?;
    Ok(sample(
        &usage,
        report["pages"].as_f64().unwrap_or_default(),
        &report,
        wall,
    ))
}

/// Runs `command` (`who`, for messages) to its end: the summary (JSON) it
/// printed, what it used and its wall time.
pub(super) fn run_child(
    command: &mut Command,
    who: &str,
) -> Result<(serde_json::Value, libc::rusage, f64), String> {
    let started = Instant::now();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot run {:?}: {e}", command.get_program()))?;
    let mut out = Vec::new();
    if let Some(mut stdout) = child.stdout.take() {
        stdout
            .read_to_end(&mut out)
            .map_err(|e| format!("cannot read the summary of {who}: {e}"))?;
    }
    let (status, usage) = wait_with_usage(child.id())?;
    let wall = started.elapsed().as_secs_f64();
    if !status {
        return Err(format!("{who} failed: {:?}", String::from_utf8_lossy(&out)));
    }
    let report = serde_json::from_slice(&out)
        .map_err(|e| format!("cannot read the summary of {who}: {e}"))?;
    Ok((report, usage, wall))
}

/// A gathering's figures from its resources and its summary
/// (`peak_rss_bytes`).
fn sample(usage: &libc::rusage, pages: f64, report: &serde_json::Value, wall: f64) -> Sample {
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Sample {
        pages,
        user: secs(usage.ru_utime),
        system: secs(usage.ru_stime),
        // The child's own figure: `ru_maxrss` of a child counts the
        // memory of this process, which holds the demo site, as its own.
        peak_rss_mib: report["peak_rss_bytes"].as_f64().unwrap_or(f64::NAN) / (1024.0 * 1024.0),
        bytes: report["bytes"].as_f64().unwrap_or(f64::NAN),
        wall,
    }
}

/// Waits for the child `pid`: whether it exited with success, and what it
/// used (its own waited-for children included).
fn wait_with_usage(pid: u32) -> Result<(bool, libc::rusage), String> {
    let pid = libc::pid_t::try_from(pid).map_err(|e| e.to_string())?;
    let mut status = 0;
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    loop {
        // SAFETY: `status` and `usage` are valid for writes; the child is
        // ours and not waited for elsewhere.
        let got = unsafe { libc::wait4(pid, &mut status, 0, usage.as_mut_ptr()) };
        if got == pid {
            break;
        }
        let error = std::io::Error::last_os_error();
        if error.kind() != std::io::ErrorKind::Interrupted {
            return Err(format!("cannot wait for the gatherer: {error}"));
        }
    }
    // SAFETY: wait4 filled `usage` in (and it was zeroed before).
    let usage = unsafe { usage.assume_init() };
    Ok((
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        usage,
    ))
}

/// System call → calls, from the table `strace -c` writes.
fn syscall_counts(text: &str) -> std::collections::HashMap<String, u64> {
    text.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.len() < 5 {
                return None;
            }
            let calls = fields[3].parse::<u64>().ok()?;
            Some((fields.last()?.to_string(), calls))
        })
        .collect()
}

/// `total 24.5, pwrite64 15.5, pread64 3.3, …`: the calls per result
/// page, the total first, then every call made at least [`NAMED_FROM`]
/// times per page and each of [`COUNTED`], most frequent first.
fn per_page_calls(counts: &std::collections::HashMap<String, u64>, pages: f64) -> String {
    let per_page = |calls: u64| calls as f64 / pages.max(1.0);
    let mut named: Vec<(&str, f64)> = counts
        .iter()
        .map(|(name, &calls)| (name.as_str(), per_page(calls)))
        .filter(|&(name, n)| name != "total" && n >= NAMED_FROM)
        .collect();
    for name in COUNTED {
        if !named.iter().any(|&(n, _)| n == name) {
            named.push((name, per_page(counts.get(name).copied().unwrap_or(0))));
        }
    }
    named.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    let total = per_page(counts.get("total").copied().unwrap_or(0));
    std::iter::once(format!("total {total:.1}"))
        .chain(named.iter().map(|(name, n)| format!("{name} {n:.1}")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The instructions a callgrind output file counts in all.
fn callgrind_total(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| {
            l.strip_prefix("summary:")
                .or_else(|| l.strip_prefix("totals:"))
        })
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quotient_of_an_unknown_amount_is_a_dash() {
        assert_eq!(quotient(36_850.0, 1024.0, 1), "36.0");
        assert_eq!(quotient(f64::NAN, 1024.0, 1), "-");
        assert_eq!(quotient(0.5, 0.0, 2), "-");
    }

    #[test]
    fn reads_the_calls_of_an_strace_summary() {
        let text = "% time     seconds  usecs/call     calls    errors syscall\n\
            ------ ----------- ----------- --------- --------- ----------------\n\
             41.20    0.010000          10      1000           pwrite64\n\
             20.00    0.005000           5      1000       120 futex\n\
            ------ ----------- ----------- --------- --------- ----------------\n\
            100.00    0.015000           7      2000       120 total\n";
        let counts = syscall_counts(text);
        assert_eq!(counts["pwrite64"], 1000);
        assert_eq!(counts["futex"], 1000);
        assert_eq!(counts["total"], 2000);
        assert!(!counts.contains_key("syscall"));
    }

    #[test]
    fn names_the_calls_per_page_most_frequent_first() {
        let counts: std::collections::HashMap<String, u64> = [
            ("pwrite64", 1550),
            ("pread64", 330),
            ("epoll_wait", 190),
            ("brk", 5),
            ("futex", 0),
            ("total", 2100),
        ]
        .into_iter()
        .map(|(name, calls)| (name.to_string(), calls))
        .collect();
        assert_eq!(
            per_page_calls(&counts, 100.0),
            "total 21.0, pwrite64 15.5, pread64 3.3, epoll_wait 1.9, \
             fdatasync 0.0, fsync 0.0, futex 0.0"
        );
    }

    #[test]
    fn reads_the_total_of_a_callgrind_file() {
        let text = "events: Ir\nfl=(1) a.c\nfn=(1) main\n1 5\nsummary: 123456\ntotals: 123456\n";
        assert_eq!(callgrind_total(text), Some(123456));
        assert_eq!(callgrind_total("events: Ir\n"), None);
    }
}

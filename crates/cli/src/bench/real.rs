//! `gather bench real`: web applications someone else wrote, installed from
//! PyPI and loaded with public datasets by `benches/real/setup`, gathered
//! from their form page's URL alone and then with a hand-written spec
//! (`benches/real/specs/APP.yaml`).
//!
//! Per application and run: each attribute of the dataset scored against
//! the gathered attribute whose values match it best (values compared as
//! the application shows them: whitespace collapsed, numbers by value),
//! the requests gather sent (its own count: form page, probes, result
//! pages, robots.txt), and whether the summary's claim holds: "complete"
//! is true only when every value of the dataset was gathered, "incomplete"
//! only when some was not.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use gather::gatherer::{Completeness, Report};

#[derive(Debug, clap::Args)]
pub struct RealBenchArgs {
    /// The set-up script (install it once with `SETUP install`).
    #[arg(long, default_value = "benches/real/setup")]
    pub setup: PathBuf,
    /// The hand-written specs, one `APP.yaml` per application; `{base}` in
    /// them stands for the application's address.
    #[arg(long, default_value = "benches/real/specs")]
    pub specs: PathBuf,
    /// Only these applications (default: every one the script lists).
    #[arg(long, value_delimiter = ',')]
    pub apps: Vec<String>,
    /// Queries per run at most.
    #[arg(long, default_value_t = 500)]
    pub max_queries: u64,
    /// Print the results as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// An attribute of the dataset: the gathered attribute that matches it
/// best and its F1.
#[derive(Debug, serde::Serialize)]
struct Score {
    attribute: String,
    gathered_as: String,
    f1: f64,
    /// The share of its values gathered under any attribute.
    found: f64,
}

/// One gathering of one application.
#[derive(Debug, serde::Serialize)]
struct Run {
    requests: u64,
    seconds: f64,
    queries: u64,
    scores: Vec<Score>,
    /// complete, incomplete or unknown (`-` when gather gave no summary).
    claim: String,
    claim_true: Option<bool>,
    /// What gather said about the source, or why it gathered nothing.
    said: String,
}

impl Run {
    fn mean_f1(&self) -> f64 {
        self.scores.iter().map(|s| s.f1).sum::<f64>() / self.scores.len().max(1) as f64
    }

    fn mean_found(&self) -> f64 {
        self.scores.iter().map(|s| s.found).sum::<f64>() / self.scores.len().max(1) as f64
    }
}

#[derive(Debug, serde::Serialize)]
struct AppResult {
    app: String,
    url: String,
    bare: Run,
    spec: Option<Run>,
}

pub fn run(args: &RealBenchArgs) -> ExitCode {
    match bench(args) {
        Ok(()) => crate::cli::exit(crate::cli::OK),
        Err(e) => {
            eprintln!("gather bench real: {e}");
            crate::cli::exit(crate::cli::FAILED)
        }
    }
}

fn bench(args: &RealBenchArgs) -> Result<(), String> {
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let apps = if args.apps.is_empty() {
        setup(&args.setup, &["apps"])?
            .lines()
            .map(str::to_owned)
            .collect()
    } else {
        args.apps.clone()
    };
    let mut results = Vec::new();
    for app in &apps {
        let truth: BTreeMap<String, Vec<String>> =
            serde_json::from_str(&setup(&args.setup, &["truth", app])?)
                .map_err(|e| format!("{app}: the dataset: {e}"))?;
        let started: serde_json::Value =
            serde_json::from_str(&setup(&args.setup, &["start", app])?)
                .map_err(|e| format!("{app}: start: {e}"))?;
        let field = |k: &str| {
            started[k]
                .as_str()
                .map(str::to_owned)
                .ok_or(format!("{app}: start printed no {k}"))
        };
        let result = (|| {
            let url = field("url")?;
            let base = field("base")?;
            eprintln!("{app}: gathering {url} alone");
            let start = gather::gatherer::Start::Url(url.parse().map_err(|e| format!("{e}"))?);
            let bare = gather_run(&runtime, start, args.max_queries, &truth)?;
            let spec_path = args.specs.join(format!("{app}.yaml"));
            let spec = if spec_path.exists() {
                eprintln!("{app}: gathering with {}", spec_path.display());
                let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
                let start = spec_start(&spec_path, &base, dir.path())?;
                Some(gather_run(&runtime, start, args.max_queries, &truth)?)
            } else {
                None
            };
            Ok::<_, String>(AppResult {
                app: app.clone(),
                url,
                bare,
                spec,
            })
        })();
        let stopped = setup(&args.setup, &["stop", app]);
        results.push(result?);
        stopped?;
    }
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&results).map_err(|e| e.to_string())?
        );
    } else {
        print_table(&results);
    }
    Ok(())
}

fn print_table(results: &[AppResult]) {
    println!("| application | run | mean F1 | values found | requests | seconds | claim | claim true | attributes (gathered as: F1) |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for r in results {
        for (name, run) in [("URL alone", Some(&r.bare)), ("spec", r.spec.as_ref())] {
            let Some(run) = run else { continue };
            let attributes: Vec<String> = run
                .scores
                .iter()
                .map(|s| format!("{} ({}: {:.2})", s.attribute, s.gathered_as, s.f1))
                .collect();
            println!(
                "| {} | {name} | {:.3} | {:.3} | {} | {:.1} | {} | {} | {} |",
                r.app,
                run.mean_f1(),
                run.mean_found(),
                run.requests,
                run.seconds,
                run.claim,
                run.claim_true.map_or("-", |t| if t { "yes" } else { "no" }),
                attributes.join(", ")
            );
        }
    }
    println!();
    for r in results {
        let ratio = r.spec.as_ref().map_or("no spec".to_owned(), |s| {
            format!("{:.2}", r.bare.requests as f64 / s.requests.max(1) as f64)
        });
        println!(
            "{}: {} — requests from the URL alone / with the spec = {ratio}; gather said: {}",
            r.app, r.url, r.bare.said
        );
    }
}

/// Runs the set-up script; its standard output.
fn setup(script: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new(script)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} {}: {}",
            script.display(),
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    String::from_utf8(out.stdout).map_err(|e| e.to_string())
}

/// The spec with `{base}` replaced by the running application's address,
/// written beside the run.
fn spec_start(path: &Path, base: &str, dir: &Path) -> Result<gather::gatherer::Start, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let written = dir.join(path.file_name().unwrap_or_default());
    std::fs::write(&written, text.replace("{base}", base)).map_err(|e| e.to_string())?;
    gather::gatherer::Start::spec(&written).map_err(|e| format!("{}: {e}", path.display()))
}

fn gather_run(
    runtime: &tokio::runtime::Runtime,
    start: gather::gatherer::Start,
    max_queries: u64,
    truth: &BTreeMap<String, Vec<String>>,
) -> Result<Run, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let options = gather::gatherer::Options {
        db: dir.path().join("real.sqlite"),
        max_queries: Some(max_queries),
        ..gather::gatherer::Options::default()
    };
    let report = runtime
        .block_on(gather::gatherer::gather(&[start], &options))
        .map_err(|e| e.to_string())?;
    // Every value gathered, whichever source holds it.
    let store = gather::store::Store::open(&options.db).map_err(|e| e.to_string())?;
    let mut got: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for source in store.sources().map_err(|e| e.to_string())? {
        for (attribute, values) in store.values(source.id).map_err(|e| e.to_string())? {
            got.entry(attribute)
                .or_default()
                .extend(values.iter().map(|v| normalise(v)));
        }
    }
    let scores = score(&got, truth);
    let (claim, claim_true) = claim(&report, &scores);
    Ok(Run {
        requests: report.fetch.requests,
        seconds: report.elapsed.as_secs_f64(),
        queries: report.sources.iter().map(|s| s.queries_sent).sum(),
        said: said(&report),
        scores,
        claim,
        claim_true,
    })
}

/// Each attribute of the dataset against the gathered attribute that
/// matches it best.
fn score(
    got: &BTreeMap<String, BTreeSet<String>>,
    truth: &BTreeMap<String, Vec<String>>,
) -> Vec<Score> {
    truth
        .iter()
        .map(|(attribute, values)| {
            let want: BTreeSet<String> = values.iter().map(|v| normalise(v)).collect();
            let best = got
                .iter()
                .map(|(name, values)| {
                    let matched = values.intersection(&want).count();
                    (
                        name.as_str(),
                        super::prf(matched, values.len(), want.len()).2,
                    )
                })
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap_or(("-", 0.0));
            let found = want
                .iter()
                .filter(|v| got.values().any(|g| g.contains(*v)))
                .count();
            Score {
                attribute: attribute.clone(),
                gathered_as: best.0.to_owned(),
                f1: best.1,
                found: found as f64 / want.len().max(1) as f64,
            }
        })
        .collect()
}

/// A value as compared: whitespace collapsed; a number by its value
/// (`18.0` is `18`, `1,500` is `1500`).
fn normalise(value: &str) -> String {
    let collapsed = value.split_whitespace().collect::<Vec<_>>().join(" ");
    let digits = collapsed.replace(',', "");
    match digits.parse::<f64>() {
        Ok(n) if n.is_finite() && !digits.is_empty() && looks_numeric(&digits) => format!("{n}"),
        _ => collapsed,
    }
}

/// Plain decimal notation only: `1e5`, `inf` and `NaN` stay words.
fn looks_numeric(s: &str) -> bool {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    !body.is_empty()
        && body.chars().all(|c| c.is_ascii_digit() || c == '.')
        && body.chars().filter(|&c| c == '.').count() <= 1
        && body.chars().any(|c| c.is_ascii_digit())
}

/// The summary's claim about the sources and whether the values bear it
/// out: "complete" holds when every value was gathered (under whichever
/// attribute), "incomplete" when some was not; "unknown" claims nothing.
fn claim(report: &Report, scores: &[Score]) -> (String, Option<bool>) {
    let whole = !scores.is_empty() && scores.iter().all(|s| s.found >= 1.0);
    let states: BTreeSet<&str> = report
        .sources
        .iter()
        .map(|s| s.completeness.state())
        .collect();
    if report.sources.is_empty() {
        return ("-".into(), None);
    }
    if report
        .sources
        .iter()
        .any(|s| matches!(s.completeness, Completeness::Incomplete(_)))
    {
        return ("incomplete".into(), Some(!whole));
    }
    if states.contains("unknown") {
        return ("unknown".into(), None);
    }
    ("complete".into(), Some(whole))
}

/// One line on what gather did: per source its kind, queries, pages and
/// completeness; or its problems.
fn said(report: &Report) -> String {
    let mut parts: Vec<String> = report
        .sources
        .iter()
        .map(|s| {
            format!(
                "{:?} source, {} queries planned, {} sent, {} pages, {} values; {}",
                s.kind, s.queries_planned, s.queries_sent, s.pages, s.new_values, s.completeness
            )
        })
        .collect();
    // The first problems: the form's, then what the crawl met.
    parts.extend(
        report
            .problems
            .iter()
            .take(2)
            .map(|p| format!("{}: {}", p.what, p.message)),
    );
    if report.problems.len() > 2 {
        parts.push(format!("{} more problems", report.problems.len() - 2));
    }
    if report.ordinary_pages > 0 {
        parts.push(format!("{} ordinary pages crawled", report.ordinary_pages));
    }
    if parts.is_empty() {
        return "nothing".into();
    }
    let line = parts.join("; ");
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_compare_as_shown() {
        assert_eq!(
            normalise("  chevrolet \n chevelle  malibu "),
            "chevrolet chevelle malibu"
        );
        assert_eq!(normalise("18.0"), "18");
        assert_eq!(normalise("1,500"), "1500");
        assert_eq!(normalise("-89.23450472"), "-89.23450472");
        assert_eq!(normalise("2012/01/01"), "2012/01/01");
        assert_eq!(normalise("inf"), "inf");
        assert_eq!(normalise("1e5"), "1e5");
        assert_eq!(normalise("Los Angeles, CA"), "Los Angeles, CA");
    }

    #[test]
    fn each_attribute_takes_its_best_match() {
        let truth: BTreeMap<String, Vec<String>> = [
            (
                "name".to_owned(),
                vec!["Thigpen".into(), "Livingston Municipal".into()],
            ),
            ("mpg".to_owned(), vec!["18".into(), "15".into()]),
        ]
        .into();
        let got: BTreeMap<String, BTreeSet<String>> = [
            ("td2".to_owned(), ["Thigpen".to_owned()].into()),
            (
                "td3".to_owned(),
                ["18".to_owned(), "15".to_owned(), "Thigpen".to_owned()].into(),
            ),
        ]
        .into();
        let scores = score(&got, &truth);
        assert_eq!(scores[0].attribute, "mpg");
        assert_eq!(scores[0].gathered_as, "td3");
        assert!((scores[0].f1 - 0.8).abs() < 1e-9, "{:?}", scores[0]);
        assert_eq!(scores[1].gathered_as, "td2");
        assert!((scores[1].f1 - 2.0 / 3.0).abs() < 1e-9);
        // Livingston Municipal was gathered nowhere.
        assert!((scores[1].found - 0.5).abs() < 1e-9);
        assert!((scores[0].found - 1.0).abs() < 1e-9);
        let none = score(&BTreeMap::new(), &truth);
        assert_eq!((none[0].gathered_as.as_str(), none[0].f1), ("-", 0.0));
    }
}

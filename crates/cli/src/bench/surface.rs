//! `gather bench surface`: surfacing the demo's five providers without
//! metadata (`gather URL` on the bare form) against the run their
//! hand-written metadata drives, side by side in one process.
//!
//! Per provider and run: the mean F1 over the attributes of the
//! provider's database (each attribute scored against the gathered
//! attribute whose values match it best, so that a slot the page leaves
//! unnamed still counts — its name is shown), the share of the database's
//! rows found whole in the gathered records, and the requests the
//! provider received (form page and probes included). Both runs stop at
//! `--max-queries` (default 500).

use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;

use gather::demo::surface;
use gather::demo::{DemoConfig, DemoSite};

#[derive(Debug, clap::Args)]
pub struct SurfaceBenchArgs {
    /// Queries per provider at most, in both runs.
    #[arg(long, default_value_t = 500)]
    pub max_queries: u64,
}

type Values = BTreeMap<String, BTreeSet<String>>;

/// What one gathering of a provider gave.
struct Run {
    requests: usize,
    queries: u64,
    /// Expected attribute → (gathered attribute, F1).
    scores: Vec<(String, String, f64)>,
    rows: f64,
    exit_ok: bool,
}

impl Run {
    fn mean_f1(&self) -> f64 {
        self.scores.iter().map(|s| s.2).sum::<f64>() / self.scores.len().max(1) as f64
    }
}

pub fn run(args: &SurfaceBenchArgs) -> ExitCode {
    match bench(args) {
        Ok(()) => crate::cli::exit(crate::cli::OK),
        Err(e) => {
            eprintln!("gather bench surface: {e}");
            crate::cli::exit(crate::cli::FAILED)
        }
    }
}

fn bench(args: &SurfaceBenchArgs) -> Result<(), String> {
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let site = runtime
        .block_on(DemoSite::start(DemoConfig {
            hotels: 200,
            titles: 100,
            articles: 100,
            ..DemoConfig::default()
        }))
        .map_err(|e| format!("cannot start the demo site: {e:#}"))?;
    println!(
        "| provider | run | mean F1 | rows found | requests | queries | attributes (gathered as: F1) |"
    );
    println!("|---|---|---|---|---|---|---|");
    let mut ratios = Vec::new();
    for provider in surface::PROVIDERS {
        let base = site.base_url();
        let bare = base
            .join(&format!("/surface/{provider}/"))
            .map_err(|e| e.to_string())?;
        let described = base
            .join(&format!("/surface/{provider}/meta/"))
            .map_err(|e| e.to_string())?;
        let surfaced = gather_once(&runtime, &site, provider, &bare, args.max_queries)?;
        let written = gather_once(&runtime, &site, provider, &described, args.max_queries)?;
        for (name, run) in [("no metadata", &surfaced), ("metadata", &written)] {
            let attributes: Vec<String> = run
                .scores
                .iter()
                .map(|(want, got, f1)| format!("{want} ({got}: {f1:.2})"))
                .collect();
            println!(
                "| {provider} | {name}{} | {:.3} | {:.3} | {} | {} | {} |",
                if run.exit_ok { "" } else { " (exit ≠ 0)" },
                run.mean_f1(),
                run.rows,
                run.requests,
                run.queries,
                attributes.join(", ")
            );
        }
        let ratio = surfaced.requests as f64 / written.requests.max(1) as f64;
        ratios.push((provider, ratio));
    }
    println!();
    for (provider, ratio) in ratios {
        println!("{provider}: requests without metadata / with it = {ratio:.2}");
    }
    runtime.block_on(site.shutdown());
    Ok(())
}

fn gather_once(
    runtime: &tokio::runtime::Runtime,
    site: &DemoSite,
    provider: &str,
    url: &url::Url,
    max_queries: u64,
) -> Result<Run, String> {
    let super::Gathered {
        report,
        sent,
        store,
        source,
        _dir,
    } = super::gather_fresh(runtime, site, url, Some(max_queries))?;
    let prefix = format!("/surface/{provider}/");
    let requests = sent
        .iter()
        .filter(|r| r.target.starts_with(&prefix))
        .count();
    let got: Values = store
        .values(source)
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|(a, v)| (a, v.into_iter().collect()))
        .collect();
    let expected = surface::expected(provider).ok_or("unknown provider")?;
    let scores = expected
        .iter()
        .map(|(attribute, want)| {
            let (best, f1) = got
                .iter()
                .map(|(name, values)| (name.clone(), f1(values, want)))
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap_or(("-".into(), 0.0));
            (attribute.clone(), best, f1)
        })
        .collect();
    let mut records: Vec<BTreeSet<String>> = Vec::new();
    store
        .each_record(
            |r: gather::store::StoredRecord| -> Result<(), gather::store::StoreError> {
                if r.source == url.as_str() {
                    records.push(
                        r.record
                            .fields
                            .0
                            .iter()
                            .flat_map(|(_, f)| f.values().iter().cloned())
                            .collect(),
                    );
                }
                Ok(())
            },
        )
        .map_err(|e| e.to_string())?;
    let rows = rows_found(provider, &records);
    let line = report
        .sources
        .iter()
        .find(|s| s.url.as_str() == url.as_str());
    Ok(Run {
        requests,
        queries: line.map_or(0, |l| l.queries_sent),
        scores,
        rows,
        exit_ok: report.problems.is_empty() && report.queries_failed() == 0,
    })
}

/// F1 of a gathered value set against the expected one.
fn f1(got: &BTreeSet<String>, want: &BTreeSet<String>) -> f64 {
    super::prf(got.intersection(want).count(), got.len(), want.len()).2
}

/// Share of the provider's rows one gathered record holds whole: every
/// value of the row's attributes that records hold at all (a heading's
/// value, outside the rows, is left out).
fn rows_found(provider: &str, records: &[BTreeSet<String>]) -> f64 {
    let rows = surface::row_keys(provider);
    let in_records: BTreeSet<&String> = records.iter().flatten().collect();
    let width = rows.first().map_or(0, Vec::len);
    let row_level: Vec<usize> = (0..width)
        .filter(|&k| rows.iter().any(|row| in_records.contains(&row[k])))
        .collect();
    if row_level.is_empty() {
        return 0.0;
    }
    let found = rows
        .iter()
        .filter(|row| {
            records
                .iter()
                .any(|r| row_level.iter().all(|&k| r.contains(&row[k])))
        })
        .count();
    found as f64 / rows.len().max(1) as f64
}

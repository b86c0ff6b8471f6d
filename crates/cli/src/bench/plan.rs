//! `gather bench plan`: the gatherer's peak memory as the queries planned
//! for one source grow (1,000, 10,000, 100,000), a first run and a resumed
//! one, beside another executable's (the last release's).
//!
//! The demo site runs in this process; every gathering is a child process
//! of its own. The source is the CityWorld guide described by a spec whose
//! region is a simple regex of digits (`/[0-9]{5}/`: 100,000 queries, each
//! answered by a result page without hotels), so the plan is as large as
//! asked and the refiner (regions, prices, towns) reads every answer. The
//! resumed run gathers the same source into the same database again: it
//! must send no query, and its memory must not grow with the queries done.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use gather::demo::{DemoConfig, DemoSite, Variant};

use super::page_cost::run_child;

#[derive(Debug, clap::Args)]
pub struct PlanBenchArgs {
    /// Queries planned for the source, each a power of ten.
    #[arg(long, value_delimiter = ',', default_value = "1000,10000,100000")]
    pub queries: Vec<u64>,
    /// Another gatherer executable (the last release's) measured the same
    /// way, its runs alternated with this one's, its rows beside this one's.
    #[arg(long, value_name = "EXECUTABLE")]
    pub baseline: Option<PathBuf>,
}

pub fn run(args: &PlanBenchArgs) -> ExitCode {
    match bench(args) {
        Ok(()) => crate::cli::exit(crate::cli::OK),
        Err(e) => {
            eprintln!("gather bench plan: {e}");
            crate::cli::exit(crate::cli::FAILED)
        }
    }
}

/// The digits of a power of ten (`1000` → 3), else `None`.
fn digits(n: u64) -> Option<u32> {
    (1..=9).find(|&d| 10u64.pow(d) == n)
}

/// The CityWorld guide with `digits`-digit regions: 10^digits queries.
fn spec(form: &url::Url, digits: u32) -> String {
    format!(
        "url: {form}\n\
         query_element: region\n\
         domains:\n  region: /[0-9]{{{digits}}}/\n\
         results:\n\
         \x20 - attribute: region\n\
         \x20   rule: html.body->A[i]->pcdata[1].txt where html.body->A[i].getAttr(name) = 'Seitenanfang'\n\
         \x20 - attribute: ort\n\
         \x20   rule: html.body->table[1].tr[j:*].td[1].txt where tr[j].td[1].font.getAttr(color) = '#FF8000'\n\
         \x20 - attribute: name\n\
         \x20   rule: html.body->table[1].tr[k:*].td[1].b.txt where tr[k].td[0].small.input.getAttr(name) = 'hotel_id'\n\
         navigation: no\n"
    )
}

/// One gathering: its peak memory (MiB) and the queries it sent.
fn gather_once(exe: &Path, spec: &Path, db: &Path, queries: u64) -> Result<(f64, u64), String> {
    let mut command = Command::new(exe);
    command
        .arg("--spec")
        .arg(spec)
        .arg("--db")
        .arg(db)
        .arg("--json")
        .arg("--no-keep-pages")
        .arg("--max-queries")
        .arg(queries.to_string());
    let (report, _, _) = run_child(&mut command, "the gatherer")?;
    let sent = report["sources"]
        .as_array()
        .map(|s| s.iter().filter_map(|s| s["queries_sent"].as_u64()).sum())
        .unwrap_or_default();
    let peak = report["peak_rss_bytes"].as_f64().unwrap_or(f64::NAN) / (1024.0 * 1024.0);
    Ok((peak, sent))
}

fn bench(args: &PlanBenchArgs) -> Result<(), String> {
    let sizes: Vec<(u64, u32)> = args
        .queries
        .iter()
        .map(|&n| {
            digits(n).map(|d| (n, d)).ok_or(format!(
                "--queries {n}: give a power of ten (1000, 10000, …)"
            ))
        })
        .collect::<Result<_, _>>()?;
    let exes = super::executables(args.baseline.as_ref())?;
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let site = runtime
        .block_on(DemoSite::start(DemoConfig::default()))
        .map_err(|e| format!("cannot start the demo site: {e:#}"))?;
    let form = site.url(Variant::Listed);
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    println!("queries planned  gatherer  peak RSS MiB (first run)  queries sent  peak RSS MiB (resumed)  queries sent again");
    let mut rows: Vec<(u64, String, f64, f64)> = Vec::new();
    for (n, d) in sizes {
        let spec_file = dir.path().join(format!("grid-{n}.yaml"));
        std::fs::write(&spec_file, spec(&form, d)).map_err(|e| e.to_string())?;
        for (label, exe) in &exes {
            let db = dir.path().join(format!("{label}-{n}.sqlite"));
            let (first, sent) = gather_once(exe, &spec_file, &db, n)?;
            let (resumed, again) = gather_once(exe, &spec_file, &db, n)?;
            println!(
                "{n:>15}  {label:<8}  {first:>24.1}  {sent:>12}  {resumed:>22.1}  {again:>18}"
            );
            if again > 0 {
                return Err(format!(
                    "{label}: the resumed run sent {again} queries that were done"
                ));
            }
            rows.push((n, label.clone(), first, resumed));
        }
    }
    for (label, _) in &exes {
        let mine: Vec<&(u64, String, f64, f64)> = rows.iter().filter(|r| r.1 == *label).collect();
        if let (Some(small), Some(large)) = (mine.first(), mine.last()) {
            if mine.len() > 1 {
                println!(
                    "{label}: peak RSS at {} / at {} queries: first run {:.2}, resumed {:.2}",
                    large.0,
                    small.0,
                    large.2 / small.2,
                    large.3 / small.3
                );
            }
        }
    }
    runtime.block_on(site.shutdown());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_powers_of_ten() {
        assert_eq!(digits(1000), Some(3));
        assert_eq!(digits(100_000), Some(5));
        assert_eq!(digits(5000), None);
        assert_eq!(digits(1), None);
    }
}

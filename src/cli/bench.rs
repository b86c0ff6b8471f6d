//! `gather bench`: benchmarks that report medians, not pass/fail.

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub what: BenchWhat,
}

#[derive(Debug, clap::Subcommand)]
pub enum BenchWhat {
    /// Parse pages and evaluate rules over a directory of pages.
    Hel(super::hel::HelBenchArgs),
}

pub fn run(args: &BenchArgs) -> ExitCode {
    match &args.what {
        BenchWhat::Hel(a) => super::hel::run_bench(a),
    }
}

//! `gather hel`, `gather locate`, `gather bench hel`.

use std::path::PathBuf;
use std::process::ExitCode;

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
    pub page: String,
    pub text: String,
}

#[derive(Debug, clap::Args)]
pub struct HelBenchArgs {
    /// A directory of pages.
    pub dir: PathBuf,
}

pub fn run_hel(_args: &HelArgs) -> ExitCode {
    eprintln!("gather hel: not built yet");
    super::exit(super::FAILED)
}

pub fn run_locate(_args: &LocateArgs) -> ExitCode {
    eprintln!("gather locate: not built yet");
    super::exit(super::FAILED)
}

pub fn run_bench(_args: &HelBenchArgs) -> ExitCode {
    eprintln!("gather bench hel: not built yet");
    super::exit(super::FAILED)
}

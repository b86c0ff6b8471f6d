//! `gather demo`: the built-in demo site, gathered end to end.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// The gatherer's database.
    #[arg(long, default_value = "gather.sqlite")]
    pub db: PathBuf,
    /// Only serve the site (until interrupted), do not gather it.
    #[arg(long)]
    pub serve: bool,
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
}

pub fn run(_args: &DemoArgs) -> ExitCode {
    eprintln!("gather demo: not built yet");
    super::exit(super::FAILED)
}

//! `gather [URL...] [--spec FILE]...`: the main job.

use std::path::PathBuf;
use std::process::ExitCode;

use super::SourceArgs;

#[derive(Debug, Clone, clap::Args)]
pub struct GatherArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    /// The gatherer's database.
    #[arg(long, default_value = "gather.sqlite")]
    pub db: PathBuf,
    /// At most this many result pages per query (the provider's DB.MaxPages may be lower).
    #[arg(long, value_name = "N")]
    pub max_pages: Option<u64>,
    /// Requests in flight at once per host.
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub concurrency: usize,
    /// Pause between two requests to one host, in milliseconds.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub delay_ms: u64,
}

pub fn run(_args: &GatherArgs) -> ExitCode {
    eprintln!("gather: not built yet");
    super::exit(super::FAILED)
}

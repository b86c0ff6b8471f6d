//! `gather export`, `gather search`.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Format {
    Soif,
    Json,
}

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    #[arg(long, default_value = "gather.sqlite")]
    pub db: PathBuf,
    #[arg(long, value_enum, default_value = "soif")]
    pub format: Format,
}

#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    #[arg(long, default_value = "gather.sqlite")]
    pub db: PathBuf,
    #[arg(required = true)]
    pub terms: Vec<String>,
}

pub fn run_export(_args: &ExportArgs) -> ExitCode {
    eprintln!("gather export: not built yet");
    super::exit(super::FAILED)
}

pub fn run_search(_args: &SearchArgs) -> ExitCode {
    eprintln!("gather search: not built yet");
    super::exit(super::FAILED)
}

#[derive(Debug, clap::Args)]
pub struct SummarizeArgs {
    /// The DBContent document naming the tables and attributes to publish.
    pub dbcontent: PathBuf,
    /// The provider's SQLite database.
    #[arg(long)]
    pub database: PathBuf,
}

pub fn run_summarize(_args: &SummarizeArgs) -> ExitCode {
    eprintln!("gather summarize: not built yet");
    super::exit(super::FAILED)
}

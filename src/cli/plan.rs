//! `gather plan`, `gather check`, `gather spec`.

use std::process::ExitCode;

use super::SourceArgs;

#[derive(Debug, clap::Args)]
pub struct PlanArgs {
    #[command(flatten)]
    pub source: SourceArgs,
}

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub source: SourceArgs,
}

#[derive(Debug, clap::Args)]
pub struct SpecArgs {
    /// The form page whose metadata becomes a spec.
    pub url: String,
    #[arg(long = "auth", value_name = "HOST[:PORT]=USER:PASS")]
    pub auth: Vec<String>,
}

pub fn run_plan(_args: &PlanArgs) -> ExitCode {
    eprintln!("gather plan: not built yet");
    super::exit(super::FAILED)
}

pub fn run_check(_args: &CheckArgs) -> ExitCode {
    eprintln!("gather check: not built yet");
    super::exit(super::FAILED)
}

pub fn run_spec(_args: &SpecArgs) -> ExitCode {
    eprintln!("gather spec: not built yet");
    super::exit(super::FAILED)
}

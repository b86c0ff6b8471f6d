//! The command line: one file per group of subcommands.

use std::process::ExitCode;

pub mod bench;
pub mod demo;
pub mod gather;
pub mod hel;
pub mod output;
pub mod plan;

/// The exit statuses of every command, the ones a gathering's report gives.
pub use crate::gatherer::{BAD_INPUT, FAILED, OK};

pub fn exit(code: u8) -> ExitCode {
    ExitCode::from(code)
}

/// Where database sources come from, shared by `gather`, `plan`, `check` and `spec`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SourceArgs {
    /// Form pages (or start pages) to gather.
    #[arg(value_name = "URL")]
    pub urls: Vec<String>,
    /// YAML specs describing sources that carry no metadata.
    #[arg(long = "spec", value_name = "FILE")]
    pub specs: Vec<std::path::PathBuf>,
    /// HTTP Basic credentials for one host: HOST[:PORT]=USER:PASS (repeatable).
    #[arg(long = "auth", value_name = "HOST[:PORT]=USER:PASS")]
    pub auth: Vec<String>,
    /// At most this many queries per source (the provider's DB.MaxQueries may be lower).
    #[arg(long, value_name = "N")]
    pub max_queries: Option<u64>,
}

impl SourceArgs {
    /// The `--auth` credentials, or a message for the user.
    pub fn credentials(&self) -> Result<crate::fetch::Credentials, String> {
        let mut credentials = crate::fetch::Credentials::default();
        for spec in &self.auth {
            credentials.add_spec(spec)?;
        }
        Ok(credentials)
    }
}

//! `gather refresh`: the database sources of a gatherer database asked
//! again, conditionally where their providers gave validators; the
//! summary tells what is new, changed and gone.

use std::path::PathBuf;
use std::process::ExitCode;

use super::gather::RunArgs;
use super::CredentialArgs;
use gather::gatherer::{self, Options, Start};
use gather::store::{Location, SourceKind};

#[derive(Debug, Clone, clap::Args)]
pub struct RefreshArgs {
    #[command(flatten)]
    pub login: CredentialArgs,
    #[command(flatten)]
    pub run: RunArgs,
    /// Only the source with this URL (as `gather status` lists it;
    /// repeatable). By default every database source of the database.
    #[arg(long = "source", value_name = "URL")]
    pub sources: Vec<String>,
    /// The spec a source was gathered with (repeatable): the source whose
    /// URL is the spec's is refreshed with it.
    #[arg(long = "spec", value_name = "FILE")]
    pub specs: Vec<PathBuf>,
    /// At most this many result pages per query (the provider's DB.MaxPages may be lower).
    #[arg(long, value_name = "N")]
    pub max_pages: Option<u64>,
    /// Only the queries due: each query waits between two refreshes a
    /// time that shrinks when its answer changed and grows when it did not
    /// (`gather status` shows what is due when).
    #[arg(long)]
    pub due: bool,
    /// Let pages also come from this host (HOST or HOST:PORT; repeatable).
    #[arg(long = "allow-host", value_name = "HOST[:PORT]")]
    pub allow_hosts: Vec<String>,
}

/// The starts of a refresh: the specs given, and the database sources
/// the database holds (those `--source` names), each once.
fn starts(args: &RefreshArgs) -> Result<Vec<Start>, String> {
    let store = gather::store::Store::open_existing_at(&Location::of(&args.run.db))
        .map_err(|e| e.to_string())?;
    let known: Vec<String> = store
        .sources()
        .map_err(|e| e.to_string())?
        .into_iter()
        .filter(|s| s.info.kind == SourceKind::Database)
        .map(|s| s.info.url)
        .collect();
    drop(store);
    for url in &args.sources {
        if !known.contains(url) {
            return Err(format!(
                "no database source {url} in {} (`gather status` lists them)",
                args.run.db.display()
            ));
        }
    }
    let mut starts = Vec::new();
    let mut covered = Vec::new();
    for path in &args.specs {
        let start = Start::spec(path).map_err(|e| e.to_string())?;
        if let Start::Spec { spec, .. } = &start {
            covered.push(spec.url.clone());
        }
        starts.push(start);
    }
    for url in known {
        let chosen = args.sources.is_empty() || args.sources.contains(&url);
        if chosen && !covered.contains(&url) {
            starts.push(Start::Url(super::gather::start_url(&url)?));
        }
    }
    if starts.is_empty() {
        return Err(format!(
            "no database source to refresh in {}",
            args.run.db.display()
        ));
    }
    Ok(starts)
}

/// Refreshes the sources; the summary (or `--json`) tells per source the
/// answers found unchanged and the records new, changed and gone.
pub fn run(args: &RefreshArgs) -> ExitCode {
    let prepared = starts(args).and_then(|starts| {
        let options = Options {
            refresh: true,
            refresh_due: args.due,
            max_pages: args.max_pages,
            allow_hosts: args.allow_hosts.clone(),
            ..args.run.options(&args.login)?
        };
        Ok((starts, options))
    });
    let (starts, options) = match prepared {
        Ok(prepared) => prepared,
        Err(message) => {
            eprintln!("gather refresh: {message}");
            return super::exit(super::BAD_INPUT);
        }
    };
    let (runtime, options) = match super::gather::start(options) {
        Ok(started) => started,
        Err(code) => return code,
    };
    let result = runtime.block_on(gatherer::gather_reporting(&starts, &options));
    super::gather::finish(&args.run, result)
}

//! `gather demo`: the built-in demo site, gathered end to end.

use std::path::PathBuf;
use std::process::ExitCode;

use gather::demo::{DemoConfig, DemoSite};
use gather::gatherer::{self, Options, Start};

/// The port the demo site prefers, so that a second `gather demo` finds the
/// same source URLs in the database and resumes instead of starting over.
pub const PREFERRED_PORT: u16 = 8642;

#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// The gatherer's database.
    #[arg(long, default_value = "gather-demo.sqlite")]
    pub db: PathBuf,
    /// Only serve the site (until interrupted), do not gather it.
    #[arg(long)]
    pub serve: bool,
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = PREFERRED_PORT)]
    pub port: u16,
    /// Hotels in the provider's generated database.
    #[arg(long, default_value_t = 3000)]
    pub hotels: usize,
    /// Print the summary as JSON on standard output.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &DemoArgs) -> ExitCode {
    if args.serve {
        let config = DemoConfig {
            port: args.port,
            hotels: args.hotels,
            ..DemoConfig::default()
        };
        return match gather::demo::serve_blocking(config) {
            Ok(()) => super::exit(super::OK),
            Err(e) => {
                eprintln!("gather demo: {e:#}");
                super::exit(super::FAILED)
            }
        };
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("gather demo: cannot start the async runtime: {e}");
            return super::exit(super::FAILED);
        }
    };
    runtime.block_on(demo(args))
}

async fn start_site(args: &DemoArgs) -> anyhow::Result<DemoSite> {
    let config = |port| DemoConfig {
        port,
        hotels: args.hotels,
        ..DemoConfig::default()
    };
    match DemoSite::start(config(args.port)).await {
        Ok(site) => Ok(site),
        Err(e) if args.port != 0 => {
            eprintln!(
                "gather demo: port {} is taken ({e}); using a free one",
                args.port
            );
            DemoSite::start(config(0)).await
        }
        Err(e) => Err(e),
    }
}

async fn demo(args: &DemoArgs) -> ExitCode {
    let site = match start_site(args).await {
        Ok(site) => site,
        Err(e) => {
            eprintln!("gather demo: cannot start the demo site: {e:#}");
            return super::exit(super::FAILED);
        }
    };
    let base = site.base_url();
    eprintln!(
        "CityWorld demo site at {base}; gathering it into {}",
        args.db.display()
    );
    let defaults = DemoConfig::default();
    let mut options = Options {
        db: args.db.clone(),
        progress: super::progress::bar(!args.json),
        ..Options::default()
    };
    let authority = format!(
        "{}:{}",
        base.host_str().unwrap_or("127.0.0.1"),
        base.port().unwrap_or(80)
    );
    options
        .fetch
        .credentials
        .add(&authority, &defaults.user, &defaults.password);
    let result = gatherer::gather(&[Start::Url(base.clone())], &options).await;
    site.shutdown().await;
    match result {
        Ok(report) => {
            if args.json {
                println!("{}", report.to_json());
            } else {
                eprint!("{report}");
                eprintln!(
                    "\nnext: gather export --db {0} --format soif | less\n      gather search --db {0} Binz",
                    args.db.display()
                );
            }
            super::exit(super::report_status(&report))
        }
        Err(e) => {
            eprintln!("gather demo: {e}");
            super::exit(super::FAILED)
        }
    }
}

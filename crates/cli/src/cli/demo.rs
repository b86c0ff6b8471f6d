//! `gather demo`: the built-in demo site, gathered end to end.

use std::path::PathBuf;
use std::process::ExitCode;

use gather::demo::{DemoConfig, DemoSite};
use gather::fetch::{FetchConfig, Fetcher};
use gather::gatherer::{self, Options, Start};
use url::Url;

/// The port the demo site prefers, so that a second `gather demo` finds the
/// same source URLs in the database and resumes instead of starting over.
pub const PREFERRED_PORT: u16 = 8642;

#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// The gatherer's database (default: gather-demo.sqlite; for a site on
    /// another port than 8642, gather-demo-PORT.sqlite).
    #[arg(long, env = "GATHER_DB")]
    pub db: Option<PathBuf>,
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
    let interrupt = super::stop_on_ctrl_c(&runtime);
    runtime.block_on(demo(args, interrupt))
}

/// The site to gather: one started here, or the demo that `gather demo
/// --serve` already serves on the port.
enum Site {
    Started(DemoSite),
    Running(Url),
}

async fn start_site(args: &DemoArgs) -> anyhow::Result<Site> {
    let config = |port| DemoConfig {
        port,
        hotels: args.hotels,
        ..DemoConfig::default()
    };
    match DemoSite::start(config(args.port)).await {
        Ok(site) => Ok(Site::Started(site)),
        Err(e) if args.port != 0 => {
            if let Some(base) = running_demo(args.port).await {
                eprintln!(
                    "gather demo: the demo site already runs on port {}; gathering it",
                    args.port
                );
                return Ok(Site::Running(base));
            }
            eprintln!(
                "gather demo: port {} is taken ({e}); using a free one",
                args.port
            );
            DemoSite::start(config(0)).await.map(Site::Started)
        }
        Err(e) => Err(e),
    }
}

/// The demo site's start page on 127.0.0.1:`port`, when the demo answers there.
async fn running_demo(port: u16) -> Option<Url> {
    let base = Url::parse(&format!("http://127.0.0.1:{port}/")).ok()?;
    let fetcher = Fetcher::new(FetchConfig {
        retries: 0,
        timeout: std::time::Duration::from_secs(2),
        respect_robots: false,
        ..FetchConfig::default()
    })
    .ok()?;
    let page = fetcher.get(&base).await.ok()?;
    page.text()
        .text
        .contains(gather::demo::START_PAGE_TITLE)
        .then_some(base)
}

async fn demo(args: &DemoArgs, interrupt: gather::gatherer::Interrupt) -> ExitCode {
    let site = match start_site(args).await {
        Ok(site) => site,
        Err(e) => {
            eprintln!("gather demo: cannot start the demo site: {e:#}");
            return super::exit(super::FAILED);
        }
    };
    let base = match &site {
        Site::Started(site) => site.base_url(),
        Site::Running(base) => base.clone(),
    };
    // The sources are named by their URLs, port included: a site on
    // another port gets a database of its own instead of doubling them.
    let db = args.db.clone().unwrap_or_else(|| match base.port() {
        Some(PREFERRED_PORT) | None => PathBuf::from("gather-demo.sqlite"),
        Some(port) => PathBuf::from(format!("gather-demo-{port}.sqlite")),
    });
    eprintln!(
        "CityWorld demo site at {base}; gathering it into {}",
        db.display()
    );
    let defaults = DemoConfig::default();
    let mut options = Options {
        db: db.clone(),
        progress: super::progress::bar(!args.json),
        interrupt,
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
    if let Site::Started(site) = site {
        site.shutdown().await;
    }
    match result {
        Ok(report) => {
            if args.json {
                outln!("{}", report.to_json());
            } else {
                eprint!("{report}");
                eprintln!(
                    "\nnext: gather export --db {0} --format soif | less\n      gather search --db {0} Binz",
                    db.display()
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

//! `gather [URL...] [--spec FILE]...`: the main job.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use url::Url;

use super::{CredentialArgs, SourceArgs};
use gather::fetch::FetchConfig;
use gather::gatherer::{self, Options, Start};

#[derive(Debug, Clone, clap::Args)]
pub struct GatherArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    #[command(flatten)]
    pub run: RunArgs,
    /// At most this many result pages per query (the provider's DB.MaxPages may be lower).
    #[arg(long, value_name = "N")]
    pub max_pages: Option<u64>,
    /// Ordinary pages the crawl from start URLs collects at most.
    #[arg(long, value_name = "N", default_value_t = 100, hide_short_help = true)]
    pub crawl_limit: usize,
    /// Start every database source over: its queries are sent again.
    #[arg(long)]
    pub fresh: bool,
    /// Do not probe a start page's form that carries no metadata (a
    /// homepage search box): the page is crawled as an ordinary page, and
    /// no query is sent to it. Forms with DB.* metadata and specs are never
    /// probed.
    #[arg(long, hide_short_help = true)]
    pub no_probe: bool,
    /// How ordinary pages' text (SOIF Full-Text, description) is reduced to
    /// their main content: article (the article found by text and link
    /// density in the page, less what the site's other pages share; the
    /// default), ntpc (word counts over the pages of the same net path), lev
    /// (Levenshtein distances), sst (Site Style Tree) or none (the whole
    /// text). Overrides the specs' `boilerplate`.
    #[arg(long, value_name = "article|ntpc|lev|sst|none", hide_short_help = true)]
    pub boilerplate: Option<gather::boilerplate::Method>,
}

/// How a process sends queries and stores what they give: shared by
/// `gather` and `gather worker`.
#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// The gatherer's database: a SQLite file, or postgres://USER@HOST:PORT/DB
    /// for a plan that workers on many machines share.
    #[arg(long, env = "GATHER_DB", default_value = "gather.sqlite")]
    pub db: PathBuf,
    /// With PostgreSQL: seconds a worker's lease on a query lasts unless
    /// renewed; a dead worker's queries are taken over after it.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 30.0,
        hide_short_help = true
    )]
    pub lease_seconds: f64,
    /// With PostgreSQL: seconds a lost database is waited for (connecting
    /// again with growing pauses, pages in hand kept) before giving up.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 120.0,
        hide_short_help = true
    )]
    pub reconnect_seconds: f64,
    /// Queries in flight at once (and requests in flight per host).
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub concurrency: usize,
    /// Requests in flight at once per host when that differs from the
    /// queries in flight (--concurrency); with PostgreSQL, across all the
    /// workers together.
    #[arg(long, value_name = "N", hide_short_help = true)]
    pub host_concurrency: Option<usize>,
    /// Pause between two requests to one host, in milliseconds.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub delay_ms: u64,
    /// Time allowed for one attempt of a request, connect to last byte, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub timeout: f64,
    /// Retries of a request after a 5xx, 429, timeout or broken connection.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub retries: u32,
    /// The User-Agent sent (its first word is the name robots.txt rules are
    /// matched against).
    #[arg(long, value_name = "TEXT")]
    pub user_agent: Option<String>,
    /// Keep no result page bodies (by default they are kept, compressed, so
    /// that changed rules apply without a request: `gather reextract`).
    #[arg(long, hide_short_help = true)]
    pub no_keep_pages: bool,
    /// Megabytes of compressed result pages the database keeps at most.
    #[arg(
        long,
        value_name = "MB",
        default_value_t = 1024,
        hide_short_help = true
    )]
    pub page_budget_mb: u64,
    /// Append the records new to the database to FILE as JSON Lines while
    /// gathering (flushed after every query); `-`: standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub records_out: Option<PathBuf>,
    /// Adapt the pause between requests to a host to how fast it answers
    /// (its latency divided by --concurrency, never below --delay-ms).
    #[arg(long)]
    pub auto_throttle: bool,
    /// Print the summary as JSON on standard output (instead of the
    /// summary for people on standard error).
    #[arg(long)]
    pub json: bool,
    /// No progress bar and no summary: only errors (and the exit status)
    /// on standard error. With --json the JSON summary is still printed.
    #[arg(short, long)]
    pub quiet: bool,
}

impl RunArgs {
    /// The options these arguments describe, sending with the credentials
    /// and network of `login`;
    /// what only a planner decides keeps its default.
    pub fn options(&self, login: &CredentialArgs) -> Result<Options, String> {
        let credentials = login.credentials()?;
        let network = login.network.network()?;
        if self.concurrency == 0 || self.host_concurrency == Some(0) {
            return Err("--concurrency and --host-concurrency must be at least 1".into());
        }
        if !(self.timeout.is_finite() && self.timeout > 0.0) {
            return Err("--timeout must be a positive number of seconds".into());
        }
        if !(self.lease_seconds.is_finite() && self.lease_seconds >= 0.3) {
            return Err("--lease-seconds must be a number of seconds, at least 0.3".into());
        }
        if !(self.reconnect_seconds.is_finite() && self.reconnect_seconds >= 0.0) {
            return Err("--reconnect-seconds must be a number of seconds, at least 0".into());
        }
        let defaults = FetchConfig::default();
        let fetch = FetchConfig {
            concurrency_per_host: self.host_concurrency.unwrap_or(self.concurrency),
            delay: Duration::from_millis(self.delay_ms),
            credentials,
            timeout: Duration::from_secs_f64(self.timeout),
            retries: self.retries,
            auto_throttle: self.auto_throttle,
            network,
            user_agent: self
                .user_agent
                .clone()
                .unwrap_or(defaults.user_agent.clone()),
            ..defaults
        };
        Ok(Options {
            db: self.db.clone(),
            lease: Duration::from_secs_f64(self.lease_seconds),
            reconnect: Duration::from_secs_f64(self.reconnect_seconds),
            fetch,
            concurrency: self.concurrency,
            keep_pages: !self.no_keep_pages,
            page_budget: self.page_budget_mb.saturating_mul(1 << 20),
            progress: super::progress::bar(!self.json && !self.quiet),
            records_out: self.records_out.clone(),
            ..Options::default()
        })
    }
}

impl GatherArgs {
    /// The gathering options these arguments describe.
    pub fn options(&self) -> Result<Options, String> {
        Ok(Options {
            max_queries: self.source.max_queries,
            learn: self.source.learn,
            max_pages: self.max_pages,
            crawl_limit: self.crawl_limit,
            fresh: self.fresh,
            no_probe: self.no_probe,
            boilerplate: self.boilerplate,
            allow_hosts: self.source.allow_hosts.clone(),
            forms: self.source.forms.clone(),
            ..self.run.options(&self.source.login)?
        })
    }

    /// The start URLs and specs.
    pub fn starts(&self) -> Result<Vec<Start>, String> {
        let mut starts = Vec::new();
        for url in &self.source.urls {
            starts.push(Start::Url(start_url(url)?));
        }
        for path in &self.source.specs {
            starts.push(Start::spec(path).map_err(|e| e.to_string())?);
        }
        if starts.is_empty() {
            return Err(
                "nothing to gather: give a form URL or --spec FILE (or try `gather demo`)".into(),
            );
        }
        Ok(starts)
    }
}

/// A URL given on the command line, when it is one gather can fetch; else
/// a message for the user, with the likely URL meant.
pub fn start_url(url: &str) -> Result<Url, String> {
    let parsed = Url::parse(url).map_err(|e| match e {
        url::ParseError::RelativeUrlWithoutBase => {
            format!("{url}: not a URL (no scheme); did you mean http://{url} ?")
        }
        e => format!("{url}: not a URL ({e})"),
    })?;
    if !matches!(parsed.scheme(), "http" | "https") {
        // `localhost:8642/x` parses with the scheme `localhost`.
        let hint = if url.contains("://") {
            String::new()
        } else {
            format!("; did you mean http://{url} ?")
        };
        return Err(format!(
            "{url}: only http and https URLs can be gathered{hint}"
        ));
    }
    Ok(parsed)
}

pub fn run(args: &GatherArgs) -> ExitCode {
    let (starts, options) = match args.starts().and_then(|s| Ok((s, args.options()?))) {
        Ok(v) => v,
        Err(message) => {
            eprintln!("gather: {message}");
            return super::exit(super::BAD_INPUT);
        }
    };
    let (runtime, options) = match start(options) {
        Ok(started) => started,
        Err(code) => return code,
    };
    let result = runtime.block_on(gatherer::gather_reporting(&starts, &options));
    finish(&args.run, result)
}

/// The runtime of a gathering (or a worker), and its options with the
/// interrupt Ctrl-C sets.
///
/// One thread runs a gathering into a SQLite file: its queries are one
/// task, whose pages are read where they arrive, so a multi-threaded runtime
/// only had its threads wake each other for every page. (Large pages are
/// read on a thread of the blocking pool.) On a shared PostgreSQL plan the
/// leases are renewed by a task of their own, which must run while the
/// gathering waits for the database: there the runtime has worker threads.
pub(super) fn start(options: Options) -> Result<(tokio::runtime::Runtime, Options), ExitCode> {
    let runtime = if gather::store::Location::of(&options.db).is_shared() {
        tokio::runtime::Runtime::new()
    } else {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    };
    let runtime = runtime.map_err(|e| {
        eprintln!("gather: cannot start the async runtime: {e}");
        super::exit(super::FAILED)
    })?;
    let options = Options {
        interrupt: super::stop_on_ctrl_c(&runtime),
        ..options
    };
    Ok((runtime, options))
}

/// Prints a gathering's summary (with `--json` also when an error ended
/// it: what was done until then); its exit status.
pub(super) fn finish(
    args: &RunArgs,
    (report, error): (gatherer::Report, Option<gatherer::GatherError>),
) -> ExitCode {
    if args.json {
        outln!("{}", report.to_json());
    }
    match error {
        None => {
            if !args.json && !args.quiet {
                eprint!("{report}");
            }
            super::exit(super::report_status(&report))
        }
        Some(e) => {
            eprintln!("gather: {e}");
            super::exit(if e.is_bad_input() {
                super::BAD_INPUT
            } else {
                super::FAILED
            })
        }
    }
}

#[derive(Debug, Clone, clap::Args)]
pub struct WorkerArgs {
    #[command(flatten)]
    pub login: CredentialArgs,
    #[command(flatten)]
    pub run: RunArgs,
    /// Seconds to wait for a plan when the database holds none yet and no
    /// planner (`gather URL --db postgres://…`) is at work.
    #[arg(long = "wait", value_name = "SECONDS", default_value_t = 60.0)]
    pub wait_seconds: f64,
    /// Let a query's result pages also come from this host (HOST or
    /// HOST:PORT; repeatable). By default navigation stays on the query's host.
    #[arg(long = "allow-host", value_name = "HOST[:PORT]")]
    pub allow_hosts: Vec<String>,
}

/// `gather worker --db postgres://…`: works on the shared plan until it is
/// done.
pub fn run_worker(args: &WorkerArgs) -> ExitCode {
    let options = args.run.options(&args.login).and_then(|options| {
        if !(args.wait_seconds.is_finite() && args.wait_seconds >= 0.0) {
            return Err("--wait must be a number of seconds, at least 0".into());
        }
        Ok(Options {
            plan_wait: Duration::from_secs_f64(args.wait_seconds),
            allow_hosts: args.allow_hosts.clone(),
            ..options
        })
    });
    let options = match options {
        Ok(options) => options,
        Err(message) => {
            eprintln!("gather worker: {message}");
            return super::exit(super::BAD_INPUT);
        }
    };
    let (runtime, options) = match start(options) {
        Ok(started) => started,
        Err(code) => return code,
    };
    let result = runtime.block_on(gatherer::work_reporting(&options));
    finish(&args.run, result)
}

//! The gathering (the manager of seed §4.2, Abbildung 4): it picks the next URL,
//! lets [`source`] tell a database source from an ordinary
//! page, sends the planned queries, lets the navigator walk every result page,
//! extracts the values with the HEL rules and hands each query's index
//! fragment to the store.
//!
//! Resuming: a query is recorded as done in the same transaction as its pages
//! and values, so a gathering killed at any moment and started again skips
//! exactly the queries that were done. Failed queries are tried again on the
//! next run.
//!
//! Records ([`crate::record`]) are found on every result page with the
//! values and stored in the same transaction; with [`Options::records_out`]
//! the records new to the database are also appended to a JSON Lines file,
//! which is flushed after every query.
//!
//! Its parts: the crawl frontier (`frontier`) and its ordinary pages
//! (`ordinary`), a database source (`database`), a query's walk
//! (`query`), the rules on a result page (`extraction`), the rules as
//! stored (`rules`), the records file (`record_sink`), the rounds after
//! the plan (`rounds`) and the shared plan (`shared`).

mod database;
mod extraction;
mod frontier;
mod ordinary;
mod query;
mod record_sink;
mod report;
mod rounds;
mod rules;
mod shared;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use url::Url;

use crate::boilerplate::SitePages;
use crate::fetch::{FetchConfig, Fetcher, HostGate};
use crate::links::CrawlLinks;
use crate::source::{self, CooperativeSource, Discovery, Limits, SourceError};
use rounds::Rounds;

use crate::fetch::Response;
pub use crate::source::Start;
use crate::store::{
    Location, PageRecord, SharedPlan, SourceId, SourceInfo, SourceKind, Store, StoreError,
};
use crate::summarize;

pub use report::{Completeness, Problem, Report, SourceReport};
pub use rounds::Initials;
pub use shared::{work, work_reporting};
use shared::{worker_name, Planned, Renewer, Role};

use frontier::Crawl;
use ordinary::boilerplate_by_origin;
use query::{describe, Origin, QueryJob};
use record_sink::RecordSink;
pub use rules::{header_rows_from_json, reextract, rules_from_json, rules_json};

/// How a gathering runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// The gatherer's database: a SQLite file, or a `postgres://` URL
    /// ([`Location::of`]) that workers share.
    pub db: PathBuf,
    /// How long a worker's lease on a query lasts unless renewed (it is
    /// renewed every third of it while the worker runs); a dead worker's
    /// queries are taken over after it (PostgreSQL only).
    pub lease: Duration,
    /// How long a worker (`gather worker`) waits for a plan when the
    /// database holds none and no planner is at work.
    pub plan_wait: Duration,
    /// How long a lost PostgreSQL database is waited for (connecting again
    /// with growing pauses) before the process gives up; pages in hand are
    /// kept and written once it is back.
    pub reconnect: Duration,
    pub fetch: FetchConfig,
    /// The user's cap on queries per source (the provider's DB.MaxQueries may be lower).
    pub max_queries: Option<u64>,
    /// `--learn`: a text field without a domain is seeded with the form
    /// page's words and learns the rest from the answers.
    pub learn: bool,
    /// The user's cap on result pages per query (the provider's DB.MaxPages may be lower).
    pub max_pages: Option<u64>,
    /// Queries in flight at once for one source.
    pub concurrency: usize,
    /// Ordinary pages the crawl loop collects at most, per run.
    pub crawl_limit: usize,
    /// Hosts (`host` or `host:port`) whose pages may be result pages of a
    /// query of another host; by default navigation stays on the query's host.
    pub allow_hosts: Vec<String>,
    /// Told what happens while the gathering runs (the command line draws a
    /// progress bar from it).
    pub progress: Option<ProgressListener>,
    /// Once set, no new query or crawled page is started; queries in flight
    /// end, or stop between two pages where their walk can be continued.
    pub interrupt: Interrupt,
    /// Start every database source over: its queries are sent again.
    pub fresh: bool,
    /// `--forms`: the forms surfacing may submit whatever their kind
    /// ([`crate::form::safe`]).
    pub forms: Vec<String>,
    /// `gather refresh`: every answered query of a database source is
    /// sent again, conditionally where its provider gave validators; an
    /// unchanged answer ends there, a changed one is walked again, and
    /// the records' history tells what is new, changed and gone.
    pub refresh: bool,
    /// `gather refresh --due`: only the queries whose time has come
    /// ([`crate::store::Store::schedule`]).
    pub refresh_due: bool,
    /// `--no-probe`: a start page with a form but without metadata is not
    /// probed (no query is sent to surface it); it is crawled as an
    /// ordinary page.
    pub no_probe: bool,
    /// Keep result page bodies (compressed) so that changed rules can be
    /// applied without a request ([`reextract`]).
    pub keep_pages: bool,
    /// Compressed bytes of kept pages the database holds at most.
    pub page_budget: u64,
    /// How ordinary pages' text is reduced to their main content
    /// (`--boilerplate`); `None` leaves it to the specs' `boilerplate` for
    /// their hosts, else [`crate::boilerplate::Method::default`].
    pub boilerplate: Option<crate::boilerplate::Method>,
    /// A file the records new to the database are appended to as JSON Lines
    /// while gathering (`gather -o FILE`), in the form of
    /// [`crate::output::write_record_line`].
    pub records_out: Option<PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            db: PathBuf::from("gather.sqlite"),
            lease: Duration::from_secs(30),
            plan_wait: Duration::from_secs(60),
            reconnect: crate::store::DEFAULT_RECONNECT,
            fetch: FetchConfig::default(),
            max_queries: None,
            learn: false,
            max_pages: None,
            concurrency: 2,
            crawl_limit: 100,
            allow_hosts: Vec::new(),
            progress: None,
            interrupt: Interrupt::default(),
            fresh: false,
            forms: Vec::new(),
            refresh: false,
            refresh_due: false,
            no_probe: false,
            keep_pages: true,
            page_budget: crate::store::DEFAULT_BODY_BUDGET,
            records_out: None,
            boilerplate: None,
        }
    }
}

/// What a gathering tells while it runs, in the order it happens.
#[derive(Debug, Clone)]
pub enum Progress {
    /// A database source starts: the queries of its plan, and how many of
    /// them were done in an earlier run (they are not sent again).
    Source {
        url: Url,
        queries: u64,
        done_before: u64,
    },
    /// A result page was fetched.
    Page { url: Url },
    /// A query ended: its new values, and whether it failed.
    Query { new_values: u64, failed: bool },
    /// Refinement or learning added this many queries to the source's plan.
    More { queries: u64 },
    /// The source's queries are all done.
    SourceDone,
}

/// Receives [`Progress`] events; called from the gathering's tasks, so it
/// must be quick.
#[derive(Clone)]
pub struct ProgressListener(pub Arc<dyn Fn(Progress) + Send + Sync>);

impl ProgressListener {
    fn tell(&self, event: Progress) {
        (self.0)(event)
    }
}

impl std::fmt::Debug for ProgressListener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProgressListener")
    }
}

/// Asks a running gathering to stop at the next point where what it did is
/// saved (the command line sets it on Ctrl-C). Clones share the flag.
#[derive(Debug, Clone, Default)]
pub struct Interrupt(Arc<std::sync::atomic::AtomicBool>);

impl Interrupt {
    /// Asks the gathering to stop.
    pub fn set(&self) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Whether the gathering was asked to stop.
    pub fn is_set(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// What stops a gathering before it starts or while it runs.
#[derive(Debug, thiserror::Error)]
pub enum GatherError {
    #[error("the gatherer's database: {0}")]
    Store(#[from] StoreError),
    #[error("{0}")]
    Setup(String),
    /// A start is unusable before anything is sent (a spec's credentials).
    #[error("{0}")]
    Source(SourceError),
    /// The records file (`-o`) cannot be opened or written.
    #[error("{0}")]
    Output(String),
}

impl GatherError {
    /// True when the user's input is at fault (exit status 2).
    pub fn is_bad_input(&self) -> bool {
        match self {
            GatherError::Source(e) => e.is_bad_input(),
            GatherError::Store(e) => e.is_bad_input(),
            GatherError::Setup(_) | GatherError::Output(_) => false,
        }
    }
}

/// Gathers every start into the database named by `options`.
///
/// Problems with one source (bad metadata, an unreachable form page) are
/// recorded in the report and the other sources are gathered all the same;
/// only a failing database stops the whole run.
pub async fn gather(starts: &[Start], options: &Options) -> Result<Report, GatherError> {
    match gather_reporting(starts, options).await {
        (report, None) => Ok(report),
        (_, Some(error)) => Err(error),
    }
}

/// [`gather`], with the report of what was done also when the gathering
/// ends in an error (a database that stayed away).
pub async fn gather_reporting(
    starts: &[Start],
    options: &Options,
) -> (Report, Option<GatherError>) {
    let started = Instant::now();
    // A spec may name credentials for its hosts; the queries need them too.
    let mut fetch = options.fetch.clone();
    fetch.credentials = match source::credentials(starts, &fetch.credentials) {
        Ok(credentials) => credentials,
        Err(e) => {
            let error = GatherError::Source(e);
            return (Report::ended_by(options, started, &error), Some(error));
        }
    };
    let mut gathering = match Gathering::new(options, fetch, Role::Planner).await {
        Ok(gathering) => gathering,
        Err(error) => return (Report::ended_by(options, started, &error), Some(error)),
    };
    // What this process holds of a shared plan is given back however the
    // gathering ends.
    let gathered = gathering.gather(starts).await;
    gathering.end(gathered, started).await
}

impl Gathering<'_> {
    /// [`gather`]: discovers the starts and the pages crawled from them,
    /// gathers each source, and with a shared plan works on it with the
    /// workers and finishes its sources.
    async fn gather(&mut self, starts: &[Start]) -> Result<(), GatherError> {
        let options = self.options;
        let limits = Limits {
            max_queries: options.max_queries,
            learn: options.learn,
            allow_hosts: options.allow_hosts.clone(),
            forms: options.forms.clone(),
        };
        let mut crawl = Crawl::new(options.crawl_limit);
        for start in starts {
            if options.interrupt.is_set() {
                break;
            }
            match start {
                Start::Url(url) => crawl.push_start(url.clone()),
                Start::Spec { .. } => {
                    let loaded = source::load(start, &self.fetcher, &limits).await;
                    self.take(&start.name(), loaded, &mut crawl).await?;
                }
            }
        }
        let start_urls: HashSet<&Url> = starts
            .iter()
            .filter_map(|s| match s {
                Start::Url(url) => Some(url),
                Start::Spec { .. } => None,
            })
            .collect();
        while let Some(url) = crawl.next().filter(|_| !options.interrupt.is_set()) {
            let mut loaded = source::discover(&url, &self.fetcher, &limits).await;
            if start_urls.contains(&url) {
                loaded = self.surface(&url, loaded, &limits).await;
            }
            self.take(url.as_str(), loaded, &mut crawl).await?;
        }
        self.keep_main_contents(&boilerplate_by_origin(starts))?;
        self.report.crawl_cut_short = crawl.cut_short;
        if self.shared.is_some() {
            self.finish_shared().await?;
        }
        Ok(())
    }
}

impl Gathering<'_> {
    /// The report of a gathering that ends now.
    fn finish(mut self, started: Instant) -> Report {
        let options = self.options;
        self.report.interrupted = options.interrupt.is_set();
        self.report.fetch = self.fetcher.stats();
        self.report.elapsed = started.elapsed();
        self.report.cpu_seconds = report::cpu_seconds();
        self.report.peak_rss_bytes = report::peak_rss_bytes();
        self.report.db = options.db.clone();
        self.report
    }
}

/// A form surfaced in this run: the plan chosen and the spec induced.
struct Surfaced {
    plan: String,
    yaml: String,
}

/// One gathering in this process (the manager of seed §4.2): its
/// database, its HTTP client, what it has done so far.
struct Gathering<'a> {
    store: Arc<Mutex<Store>>,
    fetcher: Fetcher,
    options: &'a Options,
    report: Report,
    sink: Option<RecordSink>,
    /// The shared plan of a PostgreSQL database this process works on.
    shared: Option<SharedPlan>,
    /// Renews this process's leases and heartbeat while it runs.
    renewer: Option<Renewer>,
    /// What this process is to the shared plan.
    role: Role,
    /// Database sources this process put into the shared plan.
    planned: Vec<Planned>,
    /// What the work on the shared plan did, per source.
    lines: BTreeMap<SourceId, SourceReport>,
    /// The crawl's ordinary pages, reduced to their content units, and what
    /// was stored of them: their main content is stored once all are in.
    site: SitePages,
    ordinary: Vec<SourceInfo>,
    /// The links of the crawled ordinary pages (navigation detection).
    links: CrawlLinks,
    /// The forms surfaced in this run, by source URL: the plan chosen (for
    /// their summary line) and the spec induced (YAML, stored with the
    /// source so that a resumed run does not probe again).
    surfaced: HashMap<String, Surfaced>,
}

impl<'a> Gathering<'a> {
    async fn new(
        options: &'a Options,
        mut fetch: FetchConfig,
        role: Role,
    ) -> Result<Gathering<'a>, GatherError> {
        let location = Location::of(&options.db);
        let mut store = Store::open_at(&location)?;
        store.lock_for_gathering()?;
        store.set_body_budget(options.page_budget)?;
        store.set_patience(options.reconnect);
        let shared = match &location {
            Location::Postgres(url) => {
                let plan = SharedPlan::connect_patient(
                    url,
                    &worker_name(),
                    options.lease,
                    options.reconnect,
                )?;
                store.set_worker(plan.worker());
                fetch.shared_hosts = Some(HostGate(Arc::new(plan.clone())));
                if role == Role::Planner {
                    plan.set_planning(true).await?;
                }
                Some(plan)
            }
            Location::File(_) => None,
        };
        let renewer = shared
            .clone()
            .map(|plan| Renewer::start(plan, options.lease));
        let fetcher = Fetcher::new(fetch)
            .map_err(|e| GatherError::Setup(format!("cannot set up HTTP: {e}")))?;
        let sink = match &options.records_out {
            Some(path) => Some(RecordSink::open(path)?),
            None => None,
        };
        Ok(Gathering {
            store: Arc::new(Mutex::new(store)),
            fetcher,
            options,
            report: Report::default(),
            sink,
            shared,
            renewer,
            role,
            planned: Vec::new(),
            lines: BTreeMap::new(),
            site: SitePages::default(),
            ordinary: Vec::new(),
            links: CrawlLinks::default(),
            surfaced: HashMap::new(),
        })
    }
}

impl Gathering<'_> {
    fn store(&self) -> MutexGuard<'_, Store> {
        lock(&self.store)
    }

    /// Gathers what a start or a crawled URL turned out to be; an ordinary
    /// page's links go to the crawl.
    async fn take(
        &mut self,
        name: &str,
        loaded: Result<Discovery, SourceError>,
        crawl: &mut Crawl,
    ) -> Result<(), GatherError> {
        match loaded {
            Ok(Discovery::Database(source)) => self.gather_database(&source).await,
            Ok(Discovery::Cooperative(source)) => self.gather_cooperative(&source).await,
            Ok(Discovery::Ordinary(response, page)) => {
                self.keep_ordinary_page(&response, &page)?;
                self.follow_links(&response.url, &page, crawl);
                Ok(())
            }
            Err(e) => {
                self.source_problem(name, &e);
                Ok(())
            }
        }
    }

    /// A start URL that is an ordinary page with a form to query is
    /// surfaced ([`crate::surface`]): it becomes a database source
    /// with the spec the probes induced, whose plan the summary shows. When
    /// surfacing fails, the problem (with what was tried) is reported and
    /// the page is crawled as an ordinary page. A spec a gathering before
    /// induced for the same page is taken instead of probing again (not
    /// with `--fresh`); with `--no-probe` the page is only crawled.
    async fn surface(
        &mut self,
        url: &Url,
        loaded: Result<Discovery, SourceError>,
        limits: &Limits,
    ) -> Result<Discovery, SourceError> {
        let Ok(Discovery::Ordinary(response, page)) = &loaded else {
            return loaded;
        };
        if !crate::surface::has_inputs(page, &response.url) {
            return loaded;
        }
        if self.options.no_probe {
            tracing::info!(
                "{}: a form without metadata, not probed (--no-probe): crawled as an ordinary page",
                response.url
            );
            return loaded;
        }
        let stored = if self.options.fresh {
            None
        } else {
            self.store()
                .surfaced_spec(response.url.as_str())
                .map_err(|e| SourceError::Surface(e.to_string()))?
        };
        let surfaced = match stored {
            Some(yaml) => source::surfaced_before(response, &yaml, &self.fetcher, limits)
                .await
                .map(|source| {
                    let plan = format!(
                        "surfaced before: the spec the probes induced then is taken from the database, no probe sent (--fresh probes again)\n{}",
                        crate::surface::plan_of_yaml(&yaml)
                    );
                    (source, plan, yaml)
                }),
            None => source::surface(response, &self.fetcher, limits)
                .await
                .map(|(source, induced)| (source, induced.plan_text(), induced.to_yaml())),
        };
        match surfaced {
            Ok((source, plan, yaml)) => {
                tracing::info!("{plan}");
                self.surfaced
                    .insert(source.url.to_string(), Surfaced { plan, yaml });
                Ok(Discovery::Database(Box::new(source)))
            }
            Err(e) => {
                self.source_problem(url.as_str(), &e);
                loaded
            }
        }
    }

    fn source_problem(&mut self, what: &str, error: &SourceError) {
        // Said once, in the summary; the log has it as it happens.
        tracing::info!("{what}: {error}");
        self.report.problems.push(report::Problem {
            what: what.to_string(),
            message: error.to_string(),
            bad_input: error.is_bad_input(),
        });
    }

    async fn gather_cooperative(&mut self, source: &CooperativeSource) -> Result<(), GatherError> {
        let info = SourceInfo {
            url: source.url.to_string(),
            kind: SourceKind::Cooperative,
            title: source.title.clone(),
            description: source.description.clone(),
            keywords: source.keywords.clone(),
            text: None,
        };
        let mut line = SourceReport::new(source.url.clone(), SourceKind::Cooperative);
        line.queries_planned = 1;
        line.queries_sent = 1;
        match summarize::cooperative(&self.fetcher, &source.summarizer, &source.config_path).await {
            Ok(answer) => {
                // Stored only once the summarizer answered well-formed SOIF;
                // the values' provenance is the summarizer request's URL.
                let id = self.store().upsert_source(&info)?;
                for response in &source.fetched {
                    self.store().record_page(id, &page_record(response))?;
                }
                let page = page_record(&answer.response);
                self.store().record_page(id, &page)?;
                line.pages = 1;
                line.new_values =
                    self.store()
                        .record_values(id, Some(&page.url), &answer.fragment)?;
                self.store().set_incomplete(id, None)?;
                line.stats = Some(self.store().stats(id)?);
            }
            Err(e) => {
                line.queries_failed = 1;
                line.failures.push(e.to_string());
            }
        }
        self.report.sources.push(line);
        Ok(())
    }
}

impl Gathering<'_> {
    fn tell(&self, event: Progress) {
        if let Some(listener) = &self.options.progress {
            listener.tell(event);
        }
    }
}

/// The store, also when a task panicked while holding it (every write is
/// one transaction, so what it holds is whole).
fn lock<T>(store: &Mutex<T>) -> MutexGuard<'_, T> {
    store
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The store's record of a fetched page.
fn page_record(response: &Response) -> PageRecord {
    PageRecord::new(
        response.url.as_str(),
        response.status,
        &response.body,
        response.elapsed,
    )
}

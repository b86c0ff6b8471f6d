//! The gathering manager (seed §4.2, Abbildung 4): it picks the next URL,
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

mod report;
mod rounds;
mod shared;

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use futures::StreamExt;
use url::Url;

use crate::boilerplate::{Method, SitePages};
use crate::fetch::{FetchConfig, Fetcher, HostGate};
use crate::hel::{RowNodes, Rule};
use crate::links::{CrawlLinks, LinkKind, PageLinks};
use crate::metadata::ResultKind;
use crate::navigate::{Checkpoint, NavigationMode, Navigator};
use crate::page::Page;
use crate::plan::{Cap, Capped, Query};
use crate::record::{Record, RecordRules};
use crate::refine::{AnswerTally, Refiner};
use crate::source::{self, CooperativeSource, Discovery, Limits, Source, SourceError};
use rounds::{Refined, Rounds};

use crate::fetch::Response;
use crate::fragment::IndexFragment;
pub use crate::source::Start;
use crate::store::{
    Location, PageRecord, QueryOutcome, QueryState, SharedPlan, SourceId, SourceInfo, SourceKind,
    Store, StoreError, StoredRecord,
};
use crate::summarize;

pub use report::{Completeness, Problem, Report, SourceReport};
use shared::{planned_query, worker_name, Planned, Renewer, Role};
pub use shared::{work, work_reporting};

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
    let mut manager = match Manager::new(options, fetch, Role::Planner).await {
        Ok(manager) => manager,
        Err(error) => return (Report::ended_by(options, started, &error), Some(error)),
    };
    // What this process holds of a shared plan is given back however the
    // gathering ends.
    let gathered = manager.gather(starts).await;
    manager.end(gathered, started).await
}

impl Manager<'_> {
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
        let mut crawl = Crawl {
            limit: options.crawl_limit,
            ..Crawl::default()
        };
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

impl Manager<'_> {
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

/// The traditional gatherer's URL list: breadth first, within the origins
/// (scheme, host, port) of the start URLs, each URL once; the links of
/// recognised menus wait until the content and pagination links are
/// taken.
#[derive(Default)]
struct Crawl {
    queue: VecDeque<Url>,
    /// Menu links: taken once the queue is empty.
    later: VecDeque<Url>,
    seen: HashSet<String>,
    origins: HashSet<url::Origin>,
    taken: usize,
    /// Pages the crawl takes at most.
    limit: usize,
    cut_short: bool,
}

impl Crawl {
    fn push_start(&mut self, url: Url) {
        self.origins.insert(url.origin());
        self.push(url);
    }

    fn push_link(&mut self, url: Url) {
        self.push_within(url, false);
    }

    /// A menu link: crawled after the content and pagination links.
    fn push_later(&mut self, url: Url) {
        self.push_within(url, true);
    }

    fn push_within(&mut self, url: Url, later: bool) {
        if matches!(url.scheme(), "http" | "https") && self.origins.contains(&url.origin()) {
            self.push_to(url, later);
        }
    }

    fn push(&mut self, url: Url) {
        self.push_to(url, false);
    }

    /// Moves a queued URL behind the others (a link of a menu found late).
    fn defer(&mut self, url: &Url) {
        let mut url = url.clone();
        url.set_fragment(None);
        if let Some(at) = self.queue.iter().position(|u| *u == url) {
            if let Some(u) = self.queue.remove(at) {
                self.later.push_back(u);
            }
        }
    }

    fn push_to(&mut self, mut url: Url, later: bool) {
        // Beyond what the crawl may still take (and one to tell that it was
        // cut short), a URL would never be fetched: a page with a million
        // links queues no more than that.
        if self.taken + self.queue.len() + self.later.len() > self.limit {
            self.cut_short = true;
            return;
        }
        url.set_fragment(None);
        if self.seen.insert(url.to_string()) {
            if later {
                self.later.push_back(url);
            } else {
                self.queue.push_back(url);
            }
        }
    }

    fn next(&mut self) -> Option<Url> {
        if self.taken >= self.limit {
            self.cut_short |= !self.queue.is_empty() || !self.later.is_empty();
            return None;
        }
        let url = self.queue.pop_front().or_else(|| self.later.pop_front())?;
        self.taken += 1;
        Some(url)
    }
}

/// A form surfaced in this run: the plan chosen and the spec induced.
struct Surfaced {
    plan: String,
    yaml: String,
}

struct Manager<'a> {
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

/// The `boilerplate` the specs name, by the origin of their form page.
fn boilerplate_by_origin(starts: &[Start]) -> HashMap<url::Origin, Method> {
    starts
        .iter()
        .filter_map(|start| match start {
            Start::Spec { spec, .. } => {
                let method = spec.boilerplate?;
                Some((Url::parse(&spec.url).ok()?.origin(), method))
            }
            Start::Url(_) => None,
        })
        .collect()
}

/// The records file of `gather -o`: JSON Lines, appended.
#[derive(Clone)]
struct RecordSink {
    path: PathBuf,
    file: Arc<Mutex<std::io::BufWriter<std::fs::File>>>,
}

impl RecordSink {
    fn open(path: &std::path::Path) -> Result<RecordSink, GatherError> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| GatherError::Output(format!("records file {}: {e}", path.display())))?;
        Ok(RecordSink {
            path: path.to_path_buf(),
            file: Arc::new(Mutex::new(std::io::BufWriter::new(file))),
        })
    }

    /// Appends a query's new records and flushes.
    fn write(
        &self,
        source: &str,
        outcome: &QueryOutcome,
        recorded: &crate::store::Recorded,
    ) -> Result<(), String> {
        let mut file = self
            .file
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let written = recorded
            .new_records_of(outcome)
            .try_for_each(|record| {
                crate::output::write_record_line(
                    &mut *file,
                    &StoredRecord {
                        source: source.to_string(),
                        query_key: Some(outcome.key.clone()),
                        query: Some(outcome.description.clone()),
                        record: record.clone(),
                    },
                )
            })
            .and_then(|()| std::io::Write::flush(&mut *file));
        written.map_err(|e| format!("records file {}: {e}", self.path.display()))
    }
}

impl<'a> Manager<'a> {
    async fn new(
        options: &'a Options,
        mut fetch: FetchConfig,
        role: Role,
    ) -> Result<Manager<'a>, GatherError> {
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
        Ok(Manager {
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

impl Manager<'_> {
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
    /// surfaced ([`crate::induce::site`]): it becomes a database source
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
        if !crate::induce::site::has_inputs(page, &response.url) {
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
                        crate::induce::site::plan_of_yaml(&yaml)
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

    /// Queues an ordinary page's links: content and pagination links
    /// first, menu links after them ([`crate::links`]). The page's groups
    /// are checked against the pages crawled before; the groups of those
    /// that link to this page are checked again now that it is known, and
    /// the links of a group found a menu wait. A menu recognised once is
    /// recognised on the site's other pages without a check.
    fn follow_links(&mut self, url: &Url, page: &Page, crawl: &mut Crawl) {
        let read = self.links.read(url, page);
        for (target, kind) in read.links {
            if kind == LinkKind::Menu {
                crawl.push_later(target);
            } else {
                crawl.push_link(target);
            }
        }
        for target in &read.menu_links {
            crawl.defer(target);
        }
    }

    /// Compares the source's rules with those of its last gathering. With
    /// `--fresh` the source starts over; when the rules changed, the kept
    /// result pages are read again with the new rules (no request), or,
    /// where pages were not kept, the done queries are sent again.
    fn take_rules(
        &mut self,
        id: SourceId,
        rules: &[(String, Rule)],
        header_rows: bool,
        line: &mut SourceReport,
    ) -> Result<(), GatherError> {
        let now = rules_json(rules, header_rows);
        let before = self.store().rules(id)?;
        if self.options.fresh {
            self.store().forget_queries(id)?;
            line.notes
                .push("started over (--fresh): every query is sent again".into());
        } else if before.as_ref().is_some_and(|b| rules_differ(b, &now)) {
            let not_kept = self.store().pages_not_kept(id)?;
            if not_kept == 0 {
                let (pages, values) = reextract(&mut self.store(), id, rules, header_rows)?;
                line.notes.push(format!(
                    "the rules changed since the last gathering: {pages} kept result pages read again with them, {values} values, no request sent"
                ));
            } else {
                self.store().reopen_queries(id)?;
                line.notes.push(format!(
                    "the rules changed since the last gathering and {not_kept} result pages were not kept: the done queries are sent again"
                ));
            }
        }
        self.store().set_rules(id, &now)?;
        Ok(())
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

    /// Stores an ordinary page with its whole text; its main content
    /// replaces that once the crawl is over ([`Manager::keep_main_contents`]).
    fn keep_ordinary_page(&mut self, response: &Response, page: &Page) -> Result<(), GatherError> {
        let info = SourceInfo {
            url: response.url.to_string(),
            kind: SourceKind::Page,
            title: page.title().filter(|t| !t.is_empty()),
            description: page.meta_content("description"),
            keywords: page.meta_content("keywords"),
            text: Some(page.text()),
        };
        let id = self.store().upsert_source(&info)?;
        self.store().record_page(id, &page_record(response))?;
        self.report.ordinary_pages += 1;
        self.site.add(response.url.clone(), page);
        self.ordinary.push(info);
        Ok(())
    }

    /// Stores every crawled ordinary page's main content as its text, and
    /// as its description where it has none (see [`crate::boilerplate`]):
    /// the method of `--boilerplate`, else the spec's for the page's
    /// origin, else the default.
    fn keep_main_contents(
        &mut self,
        by_origin: &HashMap<url::Origin, Method>,
    ) -> Result<(), GatherError> {
        let method_of = |url: &Url| {
            self.options
                .boilerplate
                .or_else(|| by_origin.get(&url.origin()).copied())
                .unwrap_or_default()
        };
        let mut methods: Vec<Method> = Vec::new();
        for info in &self.ordinary {
            if let Ok(url) = Url::parse(&info.url) {
                let m = method_of(&url);
                if !methods.contains(&m) {
                    methods.push(m);
                }
            }
        }
        for method in methods {
            if method == Method::None {
                continue;
            }
            let contents = self.site.main_contents(method);
            for (info, (url, main)) in self.ordinary.iter().zip(contents) {
                if method_of(&url) != method {
                    continue;
                }
                let mut info = info.clone();
                info.description = info.description.or_else(|| main.description());
                info.text = Some(main.text);
                self.store().upsert_source(&info)?;
            }
        }
        Ok(())
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

    async fn gather_database(&mut self, source: &Source) -> Result<(), GatherError> {
        let id = self.store().upsert_source(&SourceInfo {
            url: source.url.to_string(),
            kind: SourceKind::Database,
            title: source.title.clone(),
            description: source.description.clone(),
            keywords: source.keywords.clone(),
            text: None,
        })?;
        for response in &source.fetched {
            self.store().record_page(id, &page_record(response))?;
        }
        let mut line = SourceReport::new(source.url.clone(), SourceKind::Database);
        line.queries_planned = source.plan.len();
        if let Some(surfaced) = self.surfaced.remove(source.url.as_str()) {
            line.notes.push(surfaced.plan.trim_end().to_string());
            self.store().set_surfaced_spec(id, &surfaced.yaml)?;
        }
        let rules = source.metadata.rules();
        let header_rows = source.metadata.header_rows != Some(false);
        self.take_rules(id, &rules, header_rows, &mut line)?;

        // Listed values (a Result.<attr> given as values) are indexed once per source.
        let mut listed = IndexFragment::new();
        for result in &source.metadata.results {
            if let ResultKind::Values(values) = &result.kind {
                for value in values {
                    listed.add(&result.attribute, value);
                }
            }
        }
        line.new_values += self.store().record_values(id, None, &listed)?;

        let page_cap = Cap::in_force(
            Capped::Pages,
            source.metadata.max_pages,
            self.options.max_pages,
        );
        let plan_limit = source.plan.cut_short().then(|| {
            format!(
                "query limit: {} of {} queries ({})",
                source.plan.len(),
                source.plan.total(),
                source.plan.cap()
            )
        });

        let work = Arc::new(
            self.query_work(
                id,
                source.url.to_string(),
                rules,
                source.navigation.clone(),
                page_cap.limit,
                source.metadata.result_count.clone().map(Arc::new),
            )
            .with_header_rows(header_rows)
            .with_answers(&source.answered)
            // Not when the query limit leaves no room for a refinement.
            .with_splits(
                Some(Refiner::new(source.form.as_ref(), &source.metadata).splits())
                    .filter(|s| !s.is_empty() && source.plan.cap().limit > source.plan.len()),
            ),
        );

        if self.shared.is_some() {
            // Workers run the queries: the plan goes into the database. The
            // source's refinements and learned words are planned once the
            // plan is worked off ([`gather`]).
            let planned = self.store().plan_queries(
                id,
                &work.shared_json(),
                source
                    .plan
                    .queries()
                    .map(|query| planned_query(query.key(), &query, &Origin::Planned)),
            )?;
            line.notes.push(format!(
                "{planned} queries added to the shared plan, which workers (gather worker) can join"
            ));
            self.lines.insert(id, line);
            self.planned.push(Planned {
                source: source.clone(),
                work,
                plan_limit,
                page_cap,
            });
            return Ok(());
        }

        // The plan is generated lazily, query by query: it may be far larger
        // than memory. Queries done in an earlier run are passed over (the
        // store is asked batch by batch, so that memory stays flat however
        // many queries are done); a query a killed run left half-walked
        // continues where it stood.
        let done_before = self.store().finished_count(id)?;
        let mut checkpoints = self.store().checkpoints(id)?;
        self.tell(Progress::Source {
            url: source.url.clone(),
            queries: source.plan.len(),
            done_before,
        });
        let mut skipped = 0u64;
        let mut lookup: Option<StoreError> = None;
        let interrupt = self.options.interrupt.clone();
        let store = Arc::clone(&self.store);
        let mut planned = source
            .plan
            .queries()
            .take_while(move |_| !interrupt.is_set());
        let pending = std::iter::from_fn(|| {
            if lookup.is_some() {
                return None;
            }
            let batch: Vec<(String, Query)> = planned
                .by_ref()
                .take(crate::store::ANSWER_BATCH)
                .map(|query| (query.key(), query))
                .collect();
            if batch.is_empty() {
                return None;
            }
            let keys: Vec<String> = batch.iter().map(|(key, _)| key.clone()).collect();
            let finished = match lock(&store).finished_among(id, &keys) {
                Ok(finished) => finished,
                Err(e) => {
                    lookup = Some(e);
                    return None;
                }
            };
            let mut open = Vec::with_capacity(batch.len());
            for (key, query) in batch {
                if finished.contains(&key) {
                    skipped += 1;
                    continue;
                }
                let checkpoint = take_checkpoint(&mut checkpoints, &key);
                open.push((key, query, checkpoint, Origin::Planned));
            }
            Some(open)
        })
        .flatten();
        self.run_queries(&work, source, pending, &mut line).await?;
        if let Some(e) = lookup {
            return Err(e.into());
        }
        let mut rounds = Rounds::new(Arc::clone(&work), source, checkpoints);
        self.run_rounds(&mut rounds, &mut line).await?;
        let refined = rounds.refined;
        line.learning_stopped = rounds.learning_stopped;
        let reused = work.reused.load(std::sync::atomic::Ordering::Relaxed);
        if reused > 0 {
            line.notes.push(format!(
                "{reused} answers taken from the probes that surfaced the form, not asked again"
            ));
        }
        self.tell(Progress::SourceDone);
        line.queries_skipped = skipped;
        self.finish_source(id, source, plan_limit, &page_cap, refined, line)
    }

    /// What every query of a source shares.
    fn query_work(
        &self,
        id: SourceId,
        source_url: String,
        rules: Vec<(String, Rule)>,
        navigation: NavigationMode,
        max_pages: u64,
        result_count: Option<Arc<Rule>>,
    ) -> QueryWork {
        QueryWork {
            fetcher: self.fetcher.clone(),
            store: Arc::clone(&self.store),
            source: id,
            source_url,
            records: Arc::new(RecordRules::new(&rules)),
            rules: Arc::new(rules),
            sink: self.sink.clone(),
            max_pages,
            navigation,
            other_hosts: self.options.allow_hosts.clone(),
            progress: self.options.progress.clone(),
            interrupt: self.options.interrupt.clone(),
            keep_pages: self.options.keep_pages,
            result_count,
            splits: None,
            patience: self.options.reconnect,
            answered: Mutex::new(HashMap::new()),
            reused: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Counts what a query gave (recorded as it ended) in the source's
    /// report line, and appends its new records to the records file.
    /// Returns the query's new values.
    fn take_run(
        &self,
        source_url: &str,
        line: &mut SourceReport,
        run: Ran,
    ) -> Result<u64, GatherError> {
        let (recorded, run) = (run.recorded, run.run);
        let done = &run.outcome;
        let recorded = match recorded {
            Ok(recorded) => recorded,
            // Another worker took the query over: what it gives is theirs.
            Err(e @ StoreError::LeaseLost { .. }) => {
                line.warnings.push(e.to_string());
                return Ok(0);
            }
            Err(e) => return Err(e.into()),
        };
        line.queries_sent += 1;
        line.pages += run.pages;
        let failed = matches!(done.state, QueryState::Failed);
        if failed {
            line.queries_failed += 1;
            if let Some(e) = &done.error {
                line.failures.push(format!("{}: {e}", done.description));
            }
        }
        line.queries_cut_short += u64::from(done.cut_short);
        line.queries_interrupted += u64::from(run.interrupted);
        line.queries_without_values += u64::from(run.found_nothing);
        line.warnings.extend(run.warnings);
        if let Some(sink) = &self.sink {
            sink.write(source_url, done, &recorded)
                .map_err(GatherError::Output)?;
        }
        let new_values = run.new_values + recorded.new_values;
        line.new_values += new_values;
        if let Some(listener) = &self.options.progress {
            listener.tell(Progress::Query { new_values, failed });
        }
        Ok(new_values)
    }

    /// Tells from this run's plan, the refinement (`refined`, `None` when
    /// the source has no way to refine or its queries ran on the shared
    /// plan) and what the database holds whether the source's content is
    /// complete (so a resumed run tells it right too), and adds its report
    /// line.
    fn finish_source(
        &mut self,
        id: SourceId,
        source: &Source,
        plan_limit: Option<String>,
        page_cap: &Cap,
        refined: Option<Refined>,
        mut line: SourceReport,
    ) -> Result<(), GatherError> {
        let mut reasons: Vec<String> = plan_limit.into_iter().collect();
        let cut_short = self.store().stats(id)?.queries_cut_short;
        match &refined {
            // Refinement decides: a cut query whose refinements are all
            // done is complete.
            Some(refined) if !refined.left.is_empty() => reasons.push(refined.reasons()),
            Some(_) => {}
            None if cut_short > 0 => reasons.push(format!(
                "page limit: {cut_short} queries had more result pages than {page_cap} allows"
            )),
            None => {}
        }
        if let Some(refined) = refined {
            line.refining_stopped = refined.stopped;
            line.truncated_left = refined.left;
            line.hits_estimate = refined.estimate;
        }
        let reason = (!reasons.is_empty()).then(|| reasons.join("; "));
        self.store().set_incomplete(id, reason.as_deref())?;
        line.completeness = match (&reason, &line.learning_stopped) {
            (Some(reason), _) => Completeness::Incomplete(reason.clone()),
            // A keyword search shows only the rows its words reach: however
            // whole each answer was, words learned from the answers prove
            // nothing of the rows no word reached.
            (None, Some(why)) => Completeness::Unknown(format!(
                "words were learned from the answers until {why}; a keyword search shows only the rows its words reach, so whether every row was reached cannot be told"
            )),
            (None, None) => match rounds::unjudged(self, id, source)? {
                (0, _) => Completeness::Complete,
                (unjudged, answers) => Completeness::Unknown(format!(
                    "{unjudged} of {answers} answers showed one result page with neither a hit count nor a known cap: whether the provider cut them short cannot be told"
                )),
            },
        };
        let stats = self.store().stats(id)?;
        if let Some(message) = self.nothing_gathered(id, &stats)? {
            self.report.problems.push(report::Problem {
                what: line.url.to_string(),
                message,
                bad_input: true,
            });
        }
        line.stats = Some(stats);
        self.report.sources.push(line);
        Ok(())
    }

    /// A source whose answered queries all came back without a value is a
    /// problem, not a success: what was tried (queries, result pages,
    /// rules).
    fn nothing_gathered(
        &self,
        id: SourceId,
        stats: &crate::store::SourceStats,
    ) -> Result<Option<String>, GatherError> {
        let values: u64 = stats.values_per_attribute.values().sum();
        if stats.queries_done == 0 || values > 0 || self.options.interrupt.is_set() {
            return Ok(None);
        }
        let rules: Vec<String> = self
            .store()
            .rules(id)?
            .and_then(|json| serde_json::from_str::<Vec<serde_json::Value>>(&json).ok())
            .unwrap_or_default()
            .iter()
            .map(|r| {
                format!(
                    "{}: {}",
                    r["attribute"].as_str().unwrap_or("?"),
                    r["rule"].as_str().unwrap_or("?")
                )
            })
            .collect();
        let tried = format!(
            "{} queries answered with {} result pages",
            stats.queries_done, stats.pages
        );
        Ok(Some(if rules.is_empty() {
            format!("nothing gathered: {tried}, but the source has no result rule (DB.Result.<attribute>, or results: in a spec) to read them with")
        } else {
            format!(
                "nothing gathered: {tried}, and no result rule found a value on them (rules: {}); check the rules on a result page with `gather hel RULE PAGE`",
                rules.join("; ")
            )
        }))
    }
}

impl Manager<'_> {
    fn tell(&self, event: Progress) {
        if let Some(listener) = &self.options.progress {
            listener.tell(event);
        }
    }

    /// Sends `queries` (key, query, where a killed run left its walk, where
    /// the query comes from), `--concurrency` at a time, and records each.
    /// Returns each query's new values, in the order they ended.
    async fn run_queries(
        &mut self,
        work: &Arc<QueryWork>,
        source: &Source,
        queries: impl Iterator<Item = (String, Query, Option<Checkpoint>, Origin)>,
        line: &mut SourceReport,
    ) -> Result<rounds::Seen, GatherError> {
        let mut seen = rounds::Seen::new();
        let mut runs = futures::stream::iter(queries.map(|(key, query, checkpoint, origin)| {
            let work = Arc::clone(work);
            async move {
                work.run(key, describe(&query), query, checkpoint, origin)
                    .await
            }
        }))
        .buffer_unordered(self.options.concurrency.max(1));
        while let Some(mut run) = runs.next().await {
            let shown = std::mem::take(&mut run.run.seen);
            seen.insert(run.run.outcome.key.clone(), shown);
            self.take_run(source.url.as_str(), line, run)?;
        }
        drop(runs);
        Ok(seen)
    }

    /// Runs a source's rounds of refinements and learned words, one after
    /// another, in this process.
    async fn run_rounds(
        &mut self,
        rounds: &mut Rounds<'_>,
        line: &mut SourceReport,
    ) -> Result<(), GatherError> {
        loop {
            let learning_batch = self.learning_batch().await?;
            let Some(batch) = rounds.next(self, learning_batch, line)? else {
                return Ok(());
            };
            let interrupt = self.options.interrupt.clone();
            let batch = batch.into_iter().take_while(move |_| !interrupt.is_set());
            let seen = self
                .run_queries(&rounds.work, rounds.source, batch, line)
                .await?;
            rounds.answered(self, Some(seen))?;
        }
    }
}

/// A query's element values: (element, value) in order.
type ElementValues = Vec<(String, String)>;

/// Where a query comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Origin {
    /// The static plan.
    Planned,
    /// A refinement of the truncated query with this key.
    Refined(String),
    /// A word learned from the answers.
    Learned,
    /// A query of the shared plan a worker claimed; its element values,
    /// the query it refines and whether it was learned are in the plan.
    /// `planned`: it is a query of the static plan.
    Claimed { planned: bool },
}

fn take_checkpoint(
    checkpoints: &mut std::collections::HashMap<String, String>,
    key: &str,
) -> Option<Checkpoint> {
    checkpoints
        .remove(key)
        .and_then(|json| serde_json::from_str::<Checkpoint>(&json).ok())
}

/// `region=Rügen&preis=2`: element values, for people.
fn describe_values(values: &[(String, String)]) -> String {
    values
        .iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect::<Vec<_>>()
        .join("&")
}

/// What every query of one source shares.
struct QueryWork {
    fetcher: Fetcher,
    store: Arc<Mutex<Store>>,
    source: SourceId,
    /// The source's URL, as the records file names it.
    source_url: String,
    rules: Arc<Vec<(String, Rule)>>,
    /// Which of the rules make records.
    records: Arc<RecordRules>,
    sink: Option<RecordSink>,
    max_pages: u64,
    navigation: NavigationMode,
    other_hosts: Vec<String>,
    progress: Option<ProgressListener>,
    interrupt: Interrupt,
    keep_pages: bool,
    /// `DB.ResultCount`, read on a query's first result page.
    result_count: Option<Arc<Rule>>,
    /// The source's ways to refine: a query they split whose first page
    /// proves it cut short reads no more pages ([`crate::refine::Splits`]).
    splits: Option<crate::refine::Splits>,
    /// How long a lost database is waited for with a page in hand.
    patience: Duration,
    /// Answers received before the gathering (a surfaced form's probes),
    /// by request key: a request found here is not sent; taken once.
    answered: Mutex<HashMap<String, Response>>,
    /// How many requests were answered from `answered`.
    reused: std::sync::atomic::AtomicU64,
}

/// A query run and how its end was recorded.
struct Ran {
    run: QueryRun,
    recorded: Result<crate::store::Recorded, StoreError>,
}

/// What one query gave, beyond what the store keeps.
struct QueryRun {
    outcome: QueryOutcome,
    /// Values new to the store, from every record of the query.
    new_values: u64,
    /// Result pages fetched in this run.
    pages: u64,
    /// Pages answered, and whether any rule gave a value on them.
    found_nothing: bool,
    /// Rules whose value a result limit cut, with the page.
    warnings: Vec<String>,
    /// The walk stopped between two pages because the gathering was
    /// interrupted; the query continues in the next run.
    interrupted: bool,
    /// Every value its pages showed (as [`rounds::value_hash`]), new or
    /// not: which query of a round found a value first depends on which
    /// ended first, so a round's decisions read these instead.
    seen: HashSet<u64>,
}

/// What the rules found on one result page, and its links.
struct Extracted {
    links: crate::page::Links,
    /// The links of the page's pagers (navigation detection).
    pagers: crate::page::Links,
    fragment: IndexFragment,
    records: Vec<Record>,
    warnings: Vec<String>,
    /// Each rule's values in document order.
    lists: Vec<(String, Vec<String>)>,
    /// The provider's hit count (`DB.ResultCount`), when asked for.
    hits: Option<u64>,
    /// The numbers the page states next to a word of counting, when asked
    /// for ([`crate::refine::stated_numbers`]).
    stated: Vec<(String, u64)>,
    /// The page's rows, where the rules describe rows (records).
    rows: u64,
}

/// [`extract_tree`] of a fetched result page; when `pagers` says so of the
/// page's links, its pagers' links too, for a navigator that detects the
/// next pages itself; `result_count` (`DB.ResultCount`) is read too when
/// given; with `stated`, the numbers the page states.
fn extract(
    rules: &[(String, Rule)],
    records: &RecordRules,
    response: &Response,
    pagers: impl FnOnce(&crate::page::Links) -> bool,
    result_count: Option<&Rule>,
    stated: bool,
) -> Extracted {
    let (mut extracted, page) = extract_tree(
        rules,
        records,
        response.url.as_str(),
        &response.body,
        response.content_type.as_deref(),
        result_count,
    );
    if stated {
        extracted.stated = crate::refine::stated_numbers(&page.text());
    }
    if pagers(&extracted.links) {
        extracted.pagers = pager_links(&page, &response.url);
    }
    extracted
}

/// The links of a page's pagination groups ([`crate::links`]).
fn pager_links(page: &Page, url: &Url) -> crate::page::Links {
    PageLinks::of(page, url)
        .classified()
        .into_iter()
        .filter(|(_, kind)| *kind == LinkKind::Pagination)
        .map(|(l, _)| crate::page::Link {
            href: &l.href,
            text: &l.text,
        })
        .collect()
}

/// Parses a result page and evaluates the rules on it (`records` tells
/// which of them make records); the extracted values and links, and the
/// page's tree.
fn extract_tree(
    rules: &[(String, Rule)],
    records: &RecordRules,
    url: &str,
    body: &[u8],
    content_type: Option<&str>,
    result_count: Option<&Rule>,
) -> (Extracted, Page) {
    let page = Page::from_bytes(body, content_type);
    let mut fragment = IndexFragment::new();
    let mut warnings = Vec::new();
    let mut values = Vec::with_capacity(rules.len());
    let mut rows = Vec::with_capacity(rules.len());
    let mut lists = Vec::with_capacity(rules.len());
    let hits = result_count.and_then(|rule| {
        rule.evaluate(&page)
            .value
            .flatten()
            .iter()
            .find_map(|text| crate::refine::first_number(text))
    });
    for (attribute, rule) in rules {
        let (evaluation, nodes) = if records.is_empty() {
            (rule.evaluate(&page), RowNodes::default())
        } else {
            rule.evaluate_rows(&page)
        };
        tracing::debug!(attribute, url, value = ?evaluation.value, "rule");
        if let Some(limit) = evaluation.limit {
            warnings.push(format!("{attribute} on {url}: {limit}"));
        }
        let list = evaluation.value.flatten();
        for value in &list {
            fragment.add(attribute, value);
        }
        lists.push((attribute.clone(), list));
        values.push(evaluation.value);
        rows.push(nodes);
    }
    let records = records.records(rules, &values, &rows, &page, url);
    let extracted = Extracted {
        pagers: crate::page::Links::new(),
        links: page.links(),
        fragment,
        rows: record_rows(&records),
        records,
        warnings,
        lists,
        hits,
        stated: Vec::new(),
    };
    (extracted, page)
}

/// The rows of a page's records: those of its largest record group (a
/// group's rows are numbered from 0, so a new group starts where the
/// numbers do not go up).
fn record_rows(records: &[Record]) -> u64 {
    let mut most = 0u64;
    let mut group = 0u64;
    let mut last: Option<u64> = None;
    for record in records {
        if last.is_some_and(|l| record.ordinal <= l) {
            most = most.max(group);
            group = 0;
        }
        group += 1;
        last = Some(record.ordinal);
    }
    most.max(group)
}

impl QueryWork {
    /// The same work, with header rows heading records or not
    /// (`DB.HeaderRows`).
    fn with_header_rows(mut self, on: bool) -> QueryWork {
        self.records = Arc::new(RecordRules::new(&self.rules).with_header_rows(on));
        self
    }

    /// The same work, refining at once a query these ways split whose
    /// first page proves it cut short (`None`: every page is read).
    fn with_splits(mut self, splits: Option<crate::refine::Splits>) -> QueryWork {
        self.splits = splits;
        self
    }

    /// The same work, taking these answers (by request key) instead of
    /// sending their requests ([`Source::answered`]).
    fn with_answers(self, answers: &[(String, Response)]) -> QueryWork {
        lock(&self.answered).extend(answers.iter().cloned());
        self
    }

    /// Sends a request, unless its answer came before the gathering.
    async fn fetch(
        &self,
        request: &crate::fetch::Request,
    ) -> Result<Response, crate::fetch::FetchError> {
        let early = {
            let mut answered = lock(&self.answered);
            if answered.is_empty() {
                None
            } else {
                answered.remove(&crate::plan::request_key(request))
            }
        };
        match early {
            Some(answer) => {
                self.reused
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Ok(answer)
            }
            None => self.fetcher.fetch(request).await,
        }
    }

    /// Sends one query (`key` is its [`Query::key`]) and walks its result
    /// pages, or continues the walk from `checkpoint`. The query's own page
    /// is recorded at once, the next ones as they come,
    /// [`SAVE_EVERY_PAGES`] at a time or after [`SAVE_EVERY`], each time
    /// with the navigator's checkpoint in the
    /// same transaction: a killed run loses at most the pages since the
    /// last save, which the next run fetches again from that checkpoint.
    /// An interrupted run (Ctrl-C) and a failure keep every page fetched.
    async fn run(
        &self,
        key: String,
        description: String,
        query: Query,
        checkpoint: Option<Checkpoint>,
        origin: Origin,
    ) -> Ran {
        let resumed = checkpoint.is_some();
        let mut navigator = match checkpoint {
            Some(cp) => Navigator::resume(
                self.navigation.clone(),
                query.request.clone(),
                Some(self.max_pages),
                cp,
            ),
            None => Navigator::new(
                self.navigation.clone(),
                query.request.clone(),
                Some(self.max_pages),
            ),
        }
        .allow_hosts(&self.other_hosts);
        let mut outcome = QueryOutcome {
            key,
            ordinal: query.ordinal,
            description,
            state: QueryState::Pending,
            error: None,
            attempts: 0,
            pages: Vec::new(),
            fragment: IndexFragment::new(),
            records: Vec::new(),
            cut_short: false,
            checkpoint: None,
            walk_links: Vec::new(),
            fresh: !resumed,
            answer: None,
            values: (!matches!(origin, Origin::Claimed { .. }))
                .then(|| serde_json::to_string(&query.values).ok())
                .flatten(),
            parent: match &origin {
                Origin::Refined(parent) => Some(parent.clone()),
                _ => None,
            },
            learned: origin == Origin::Learned,
        };
        let mut tally = AnswerTally::default();
        let mut run = QueryRun {
            outcome: outcome.clone(),
            new_values: 0,
            pages: 0,
            found_nothing: !self.rules.is_empty(),
            warnings: Vec::new(),
            interrupted: false,
            seen: HashSet::new(),
        };
        // The query's own page has answered (in this run or before).
        let mut answered = resumed;
        let mut lost = None;
        // Pages fetched since the walk was last saved, and when it was.
        let (mut unsaved, mut saved_at) = (0usize, Instant::now());
        while navigator.has_next() {
            // Interrupted: a walk that can be continued stops between two
            // pages; the query's own page is always fetched to its end.
            if self.interrupt.is_set() && navigator.checkpoint().is_some() {
                run.interrupted = true;
                break;
            }
            let Some(request) = navigator.next_request() else {
                break;
            };
            let response = match self.fetch(&request).await {
                Ok(response) => response,
                // A result link that can never be fetched (a redirect to
                // file://, a 404) is passed over, so that it does not fail
                // its query on every run.
                Err(e) if answered && e.is_permanent() => {
                    run.warnings
                        .push(format!("{}: result page skipped: {e}", outcome.description));
                    continue;
                }
                Err(e) => {
                    outcome.error = Some(e.to_string());
                    navigator.give_back();
                    break;
                }
            };
            let answered_before = answered;
            answered = true;
            outcome.attempts += response.attempts;
            let record = page_record(&response);
            outcome.pages.push(if self.keep_pages {
                record.keeping(response.content_type.as_deref(), &response.body)
            } else {
                record
            });
            run.pages += 1;
            if let Some(listener) = &self.progress {
                listener.tell(Progress::Page {
                    url: response.url.clone(),
                });
            }
            let url = response.url.clone();
            // The hit count is read on the query's own page.
            let count = self.result_count.clone().filter(|_| !answered_before);
            let stated = !answered_before && self.result_count.is_none();
            let extracted = self.extract(response, &navigator, count, stated).await;
            let extracted = match extracted {
                Ok(extracted) => extracted,
                Err(e) => {
                    outcome.error = Some(format!("{url}: the page could not be read: {e}"));
                    break;
                }
            };
            run.found_nothing &= extracted.fragment.is_empty();
            run.warnings.extend(extracted.warnings);
            tally.hits(extracted.hits);
            tally.stated(extracted.stated);
            tally.rows(extracted.rows);
            tally.page(&extracted.lists);
            run.seen.extend(
                extracted
                    .fragment
                    .iter()
                    .flat_map(|(_, values)| values.iter().map(|v| rounds::value_hash(v))),
            );
            outcome.fragment.merge(&extracted.fragment);
            outcome.records.extend(extracted.records);
            navigator.result_page_with_pagers(&url, &extracted.links, &extracted.pagers);
            // A first page that proves the walk will be cut short ends it
            // when the query is refined anyway: its refinements read the
            // rows of the pages left.
            if !answered_before && self.cut_short_at_once(&navigator, &tally, &query.values) {
                tally.early(self.max_pages);
                outcome.answer = serde_json::to_string(&tally.answer()).ok();
                break;
            }
            outcome.answer = serde_json::to_string(&tally.answer()).ok();
            unsaved += 1;
            // The query's own answer is saved at once: the query is never
            // sent again.
            let due =
                !answered_before || unsaved >= SAVE_EVERY_PAGES || saved_at.elapsed() >= SAVE_EVERY;
            if navigator.has_next() && due {
                unsaved = 0;
                saved_at = Instant::now();
                (outcome.checkpoint, outcome.walk_links) = saved_walk(&navigator);
                if outcome.checkpoint.is_some() {
                    let saved = self
                        .record(&outcome)
                        .await
                        .map_err(Some)
                        .and_then(|recorded| {
                            self.write_records(&outcome, recorded).map_err(|message| {
                                outcome.error =
                                    Some(format!("cannot save the query's progress: {message}"));
                                None
                            })
                        });
                    match saved {
                        Ok(new) => {
                            run.new_values += new;
                            // A walk saved twice (the records file
                            // failed after the database took the page)
                            // lists links twice, which resuming reads once.
                            navigator.saved();
                            outcome.walk_links.clear();
                            outcome.pages.clear();
                            outcome.fragment = IndexFragment::new();
                            outcome.records.clear();
                            outcome.attempts = 0;
                            outcome.fresh = false;
                        }
                        // The database stayed away: the process ends, and
                        // the query continues from its last checkpoint.
                        Err(Some(e @ StoreError::Lost { .. })) => {
                            lost = Some(e);
                            break;
                        }
                        Err(Some(e)) => {
                            outcome.error = Some(format!("cannot save the query's progress: {e}"));
                            break;
                        }
                        Err(None) => break,
                    }
                }
            }
        }
        outcome.state = if outcome.error.is_some() {
            QueryState::Failed
        } else if run.interrupted {
            QueryState::Pending
        } else {
            QueryState::Done
        };
        tally.cut_short(navigator.cut_short());
        outcome.cut_short = tally.answer().cut_short;
        tally.more_linked(outcome.error.is_none() && !run.interrupted && navigator.more_linked());
        if answered {
            outcome.answer = serde_json::to_string(&tally.answer()).ok();
        }
        // A failed or interrupted walk continues from where it stood; a done
        // one is done.
        (outcome.checkpoint, outcome.walk_links) = match outcome.state {
            QueryState::Failed | QueryState::Pending => saved_walk(&navigator),
            QueryState::Done => (None, Vec::new()),
        };
        // An empty answer is no sign of a wrong rule where the provider
        // says it found nothing, or for a refined query (most prefixes
        // match nothing).
        run.found_nothing &= run.pages > 0
            && outcome.error.is_none()
            && matches!(origin, Origin::Planned | Origin::Claimed { planned: true })
            && tally.answer().hits != Some(0);
        let recorded = match lost {
            Some(lost) => Err(lost),
            None => self.record(&outcome).await,
        };
        run.outcome = outcome;
        Ran { run, recorded }
    }

    /// Whether the walk, after the query's first page, will surely be cut
    /// short by the page limit and the query is split whatever its answer
    /// ([`crate::refine::Splits::applies`]): the pager links more pages
    /// than the limit allows, or the provider's `DB.ResultCount` exceeds
    /// the limit times the rows of the first page.
    fn cut_short_at_once(
        &self,
        navigator: &Navigator,
        tally: &AnswerTally,
        values: &[(String, String)],
    ) -> bool {
        if !navigator.has_next() || !self.splits.as_ref().is_some_and(|s| s.applies(values)) {
            return false;
        }
        let answer = tally.answer();
        navigator.beyond_limit()
            || answer
                .hits
                .is_some_and(|hits| answer.shown > 0 && hits > self.max_pages * answer.shown)
    }

    /// Parses a result page and applies the rules ([`extract`]). That is
    /// CPU work: a large page goes to a thread of its own, off the task that
    /// does I/O; an ordinary one (most result pages, a fraction of a
    /// millisecond) is read right here, which spares every page two thread
    /// hand-offs. A page that makes the reading panic is an error either way.
    /// The page's pagers are found only where the navigator needs them.
    async fn extract(
        &self,
        response: Response,
        navigator: &Navigator,
        count: Option<Arc<Rule>>,
        stated: bool,
    ) -> Result<Extracted, String> {
        /// Bodies up to this size are read on the gathering's own task.
        const READ_IN_PLACE: usize = 256 << 10;
        if response.body.len() <= READ_IN_PLACE {
            let read = || {
                let pagers =
                    |links: &crate::page::Links| navigator.needs_pagers(&response.url, links);
                extract(
                    &self.rules,
                    &self.records,
                    &response,
                    pagers,
                    count.as_deref(),
                    stated,
                )
            };
            return std::panic::catch_unwind(std::panic::AssertUnwindSafe(read))
                .map_err(|_| "reading it panicked".to_string());
        }
        let (rules, records) = (Arc::clone(&self.rules), Arc::clone(&self.records));
        let detect = self.navigation == NavigationMode::Detect;
        tokio::task::spawn_blocking(move || {
            extract(
                &rules,
                &records,
                &response,
                |_| detect,
                count.as_deref(),
                stated,
            )
        })
        .await
        .map_err(|e| e.to_string())
    }

    /// Appends a query's new records to the records file; its new values.
    fn write_records(
        &self,
        outcome: &QueryOutcome,
        recorded: crate::store::Recorded,
    ) -> Result<u64, String> {
        if let Some(sink) = &self.sink {
            sink.write(&self.source_url, outcome, &recorded)?;
        }
        Ok(recorded.new_values)
    }

    /// Records a query's progress or end. A lost database is waited for
    /// (up to [`Options::reconnect`]) with the outcome in hand, without
    /// holding the store: other queries go on meanwhile.
    async fn record(&self, outcome: &QueryOutcome) -> Result<crate::store::Recorded, StoreError> {
        let started = Instant::now();
        let mut pause = Duration::ZERO;
        loop {
            let result = lock(&self.store).record_query_at_once(self.source, outcome);
            match result {
                Err(StoreError::Lost {
                    db,
                    context,
                    message,
                    ..
                }) => {
                    let left = self.patience.saturating_sub(started.elapsed());
                    if left.is_zero() {
                        return Err(StoreError::Lost {
                            db,
                            context,
                            waited: started.elapsed().as_secs(),
                            message,
                        });
                    }
                    pause = crate::store::next_pause(pause).min(left);
                    tokio::time::sleep(pause).await;
                }
                done => return done,
            }
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

/// A source's rules as the store keeps them: attribute, rule as written,
/// `DB.Result` prefix, in document order (the order of the records'
/// fields, whichever process reads them back); then `{"header_rows":
/// false}` when `DB.HeaderRows` is NO.
pub fn rules_json(rules: &[(String, Rule)], header_rows: bool) -> String {
    let mut list: Vec<serde_json::Value> = rules
        .iter()
        .map(|(attribute, rule)| {
            serde_json::json!({
                "attribute": attribute,
                "rule": rule.source(),
                "prefix": rule.prefix(),
            })
        })
        .collect();
    if !header_rows {
        list.push(serde_json::json!({ "header_rows": false }));
    }
    serde_json::Value::Array(list).to_string()
}

/// Whether two texts of [`rules_json`] hold different rules, in whatever
/// order (a database from before kept them by attribute).
fn rules_differ(a: &str, b: &str) -> bool {
    let sorted = |json: &str| {
        let mut list: Vec<String> = serde_json::from_str::<Vec<serde_json::Value>>(json)
            .map(|l| l.iter().map(ToString::to_string).collect())
            .unwrap_or_else(|_| vec![json.to_string()]);
        list.sort();
        list
    };
    sorted(a) != sorted(b)
}

/// Whether the rules [`rules_json`] wrote let header rows head records
/// (`DB.HeaderRows`); yes when the text says nothing.
pub fn header_rows_from_json(json: &str) -> bool {
    let list: Vec<serde_json::Value> = serde_json::from_str(json).unwrap_or_default();
    !list.iter().any(|v| v["header_rows"] == false)
}

/// The rules [`rules_json`] wrote.
pub fn rules_from_json(json: &str) -> Result<Vec<(String, Rule)>, String> {
    let list: Vec<serde_json::Value> =
        serde_json::from_str(json).map_err(|e| format!("stored rules: {e}"))?;
    list.iter()
        .filter(|v| v.get("header_rows").is_none())
        .map(|v| {
            let attribute = v["attribute"]
                .as_str()
                .ok_or("stored rules: no attribute")?;
            let text = v["rule"].as_str().ok_or("stored rules: no rule")?;
            let rule = Rule::parse_with_prefix(text, v["prefix"].as_str())
                .map_err(|e| format!("stored rule for {attribute}: {e}"))?;
            Ok((attribute.to_string(), rule))
        })
        .collect()
}

/// Applies `rules` to the kept result pages of the source's done queries,
/// in place of the values and records its queries had found: no request is
/// sent.
/// `header_rows`: whether rows one rule reads alone head records
/// (`DB.HeaderRows`). Returns the pages read and the values the source's
/// queries now have.
pub fn reextract(
    store: &mut Store,
    source: SourceId,
    rules: &[(String, Rule)],
    header_rows: bool,
) -> Result<(u64, u64), StoreError> {
    let pages = store.kept_pages(source)?;
    let record_rules = RecordRules::new(rules).with_header_rows(header_rows);
    let mut by_query: Vec<(String, IndexFragment, Vec<Record>)> = Vec::new();
    for page in &pages {
        let (extracted, _) = extract_tree(
            rules,
            &record_rules,
            &page.url,
            &page.body,
            page.content_type.as_deref(),
            None,
        );
        match by_query.last_mut() {
            Some((key, fragment, records)) if *key == page.query => {
                fragment.merge(&extracted.fragment);
                records.extend(extracted.records);
            }
            _ => by_query.push((page.query.clone(), extracted.fragment, extracted.records)),
        }
    }
    let values = store.replace_query_values(source, &by_query)?;
    store.set_rules(source, &rules_json(rules, header_rows))?;
    Ok((pages.len() as u64, values))
}

/// A walk is saved after this many result pages (with their values,
/// records and checkpoint, in one transaction), or after [`SAVE_EVERY`]:
/// each commit flushes the full-text index and writes the changed pages of
/// every table to the WAL. On the demo's guide at 1,000 result pages, 8
/// pages a commit cost 10.5 `pwrite` calls a page, 16 cost 8.2 and 32 cost
/// 6.7; CPU per page 16 against 8: −4 %, 32 against 16: −5.5 %, for 0.5 MiB
/// more of the gatherer's own memory (the pages waiting for the save, their
/// bodies already compressed). A killed process loses what a query fetched
/// since its last save: 2 seconds at most on a slow provider, as before.
const SAVE_EVERY_PAGES: usize = 32;

/// A walk is saved at least this often (a slow provider's pages).
const SAVE_EVERY: Duration = Duration::from_secs(2);

/// What the store keeps of where a walk stands: the checkpoint (JSON)
/// and the links found since the walk was last saved.
fn saved_walk(navigator: &Navigator) -> (Option<String>, Vec<String>) {
    match navigator.checkpoint() {
        Some(mut checkpoint) => {
            let links = std::mem::take(&mut checkpoint.links);
            (serde_json::to_string(&checkpoint).ok(), links)
        }
        None => (None, Vec::new()),
    }
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

/// `region=Rügen&preis=`: the query elements' values, for people.
fn describe(query: &Query) -> String {
    if query.values.is_empty() {
        return query.request.url.to_string();
    }
    describe_values(&query.values)
}

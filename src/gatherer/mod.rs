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
//! Its parts: the crawl frontier (`frontier`), a query's walk
//! (`query`), the rules on a result page (`extraction`), the rules as
//! stored (`rules`), the records file (`record_sink`), the rounds after
//! the plan (`rounds`) and the shared plan (`shared`).

mod extraction;
mod frontier;
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

use futures::StreamExt;
use url::Url;

use crate::boilerplate::{Method, SitePages};
use crate::fetch::{FetchConfig, Fetcher, HostGate};
use crate::hel::Rule;
use crate::links::{CrawlLinks, LinkKind};
use crate::metadata::ResultKind;
use crate::navigate::{Checkpoint, NavigationMode};
use crate::page::Page;
use crate::plan::{Cap, Capped, Query};
use crate::record::RecordRules;
use crate::refine::Refiner;
use crate::source::{self, CooperativeSource, Discovery, Limits, Source, SourceError};
use rounds::{Refined, Rounds};

use crate::fetch::Response;
use crate::fragment::IndexFragment;
pub use crate::source::Start;
use crate::store::{
    Location, PageRecord, QueryState, SharedPlan, SourceId, SourceInfo, SourceKind, Store,
    StoreError,
};
use crate::summarize;

pub use report::{Completeness, Problem, Report, SourceReport};
use shared::{planned_query, worker_name, Planned, Renewer, Role};
pub use shared::{work, work_reporting};

use frontier::Crawl;
use query::{describe, take_checkpoint, Origin, QueryEnd, QueryJob};
use record_sink::RecordSink;
use rules::rules_differ;
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
    /// replaces that once the crawl is over ([`Gathering::keep_main_contents`]).
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

    /// Gathers a database source: its plan's queries (or, with a shared
    /// plan, puts them into the database for the workers), then its rounds
    /// of refinements and learned words, and tells whether its content is
    /// complete.
    async fn gather_database(&mut self, source: &Source) -> Result<(), GatherError> {
        let rules = source.metadata.rules();
        let header_rows = source.metadata.header_rows != Some(false);
        let (id, mut line) = self.start_database(source, &rules, header_rows)?;
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
        let work = Arc::new(self.source_job(id, source, rules, header_rows, &page_cap));

        if self.shared.is_some() {
            self.plan_shared(id, source, work, line, plan_limit, page_cap)?;
            return Ok(());
        }

        let (skipped, checkpoints) = self.run_plan(id, source, &work, &mut line).await?;
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

    /// Stores a database source with the pages fetched to find it, the
    /// spec its probes induced, its rules (compared with those of its last
    /// gathering) and its listed values; its id and its report line.
    fn start_database(
        &mut self,
        source: &Source,
        rules: &[(String, Rule)],
        header_rows: bool,
    ) -> Result<(SourceId, SourceReport), GatherError> {
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
        self.take_rules(id, rules, header_rows, &mut line)?;

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
        Ok((id, line))
    }

    /// The job every query of a database source shares: its rules, its
    /// navigation, its page cap, the answers its probes brought, and its
    /// ways to refine.
    fn source_job(
        &self,
        id: SourceId,
        source: &Source,
        rules: Vec<(String, Rule)>,
        header_rows: bool,
        page_cap: &Cap,
    ) -> QueryJob {
        self.query_job(
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
        )
    }

    /// Workers run the queries: the plan goes into the database. The
    /// source's refinements and learned words are planned once the plan
    /// is worked off ([`gather`]).
    fn plan_shared(
        &mut self,
        id: SourceId,
        source: &Source,
        work: Arc<QueryJob>,
        mut line: SourceReport,
        plan_limit: Option<String>,
        page_cap: Cap,
    ) -> Result<(), GatherError> {
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
        Ok(())
    }

    /// Runs the source's static plan in this process. The plan is
    /// generated lazily, query by query: it may be far larger than memory.
    /// Queries done in an earlier run are passed over (the store is asked
    /// batch by batch, so that memory stays flat however many queries are
    /// done); a query a killed run left half-walked continues where it
    /// stood. Returns the queries passed over, and the checkpoints of the
    /// walks not of the plan (the rounds').
    async fn run_plan(
        &mut self,
        id: SourceId,
        source: &Source,
        work: &Arc<QueryJob>,
        line: &mut SourceReport,
    ) -> Result<(u64, HashMap<String, String>), GatherError> {
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
        self.run_queries(work, source, pending, line).await?;
        if let Some(e) = lookup {
            return Err(e.into());
        }
        Ok((skipped, checkpoints))
    }

    /// What every query of a source shares.
    fn query_job(
        &self,
        id: SourceId,
        source_url: String,
        rules: Vec<(String, Rule)>,
        navigation: NavigationMode,
        max_pages: u64,
        result_count: Option<Arc<Rule>>,
    ) -> QueryJob {
        QueryJob {
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
        run: QueryEnd,
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

impl Gathering<'_> {
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
        work: &Arc<QueryJob>,
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

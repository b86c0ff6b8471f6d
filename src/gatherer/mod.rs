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

mod report;

use std::collections::{HashSet, VecDeque};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use indicatif::{ProgressBar, ProgressStyle};
use url::Url;

use crate::fetch::{FetchConfig, Fetcher};
use crate::hel::Rule;
use crate::metadata::{Metadata, ResultKind};
use crate::navigate::{NavigationMode, Navigator};
use crate::page::Page;
use crate::plan::Query;
use crate::source::{self, CooperativeSource, Discovery, Limits, Source, SourceError};
use crate::store::{
    PageRecord, QueryOutcome, QueryState, SourceInfo, SourceKind, Store, StoreError,
};
use crate::summarize::{self, IndexFragment};

pub use report::{Report, SourceReport, BAD_INPUT, FAILED, OK};

/// Where a gathering starts.
#[derive(Debug, Clone)]
pub enum Start {
    /// A form page, a DBContent document, or an ordinary page to crawl from.
    Url(Url),
    /// A YAML spec (specs/README.md).
    Spec(PathBuf),
}

/// How a gathering runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// The gatherer's database.
    pub db: PathBuf,
    pub fetch: FetchConfig,
    /// The user's cap on queries per source (the provider's DB.MaxQueries may be lower).
    pub max_queries: Option<u64>,
    /// The user's cap on result pages per query (the provider's DB.MaxPages may be lower).
    pub max_pages: Option<u64>,
    /// Queries in flight at once for one source.
    pub concurrency: usize,
    /// Ordinary pages the crawl loop collects at most, per run.
    pub crawl_limit: usize,
    /// Show a progress bar (only when standard error is a terminal).
    pub progress: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            db: PathBuf::from("gather.sqlite"),
            fetch: FetchConfig::default(),
            max_queries: None,
            max_pages: None,
            concurrency: 2,
            crawl_limit: 100,
            progress: true,
        }
    }
}

/// What stops a gathering before it starts or while it runs.
#[derive(Debug, thiserror::Error)]
pub enum GatherError {
    #[error("the gatherer's database: {0}")]
    Store(#[from] StoreError),
    #[error("{0}")]
    Setup(String),
}

/// Gathers every start into the database named by `options`.
///
/// Problems with one source (bad metadata, an unreachable form page) are
/// recorded in the report and the other sources are gathered all the same;
/// only a failing database stops the whole run.
pub async fn gather(starts: &[Start], options: &Options) -> Result<Report, GatherError> {
    let started = Instant::now();
    // A spec may name credentials for its hosts; the queries need them too.
    let mut fetch = options.fetch.clone();
    for start in starts {
        if let Start::Spec(path) = start {
            for credential in source::spec_credentials(path).unwrap_or_default() {
                if let Err(e) = fetch.credentials.add_spec(&credential) {
                    tracing::warn!("{}: {e}", path.display());
                }
            }
        }
    }
    let fetcher =
        Fetcher::new(fetch).map_err(|e| GatherError::Setup(format!("cannot set up HTTP: {e}")))?;
    let mut manager = Manager {
        store: Store::open(&options.db)?,
        fetcher,
        options,
        report: Report::default(),
    };
    let limits = Limits {
        max_queries: options.max_queries,
    };

    let mut crawl = Crawl::default();
    for start in starts {
        match start {
            Start::Spec(path) => match source::from_spec(path, &manager.fetcher, &limits).await {
                Ok(source) => manager.gather_database(&source).await?,
                Err(e) => manager.source_problem(&path.display().to_string(), &e),
            },
            Start::Url(url) => crawl.push_start(url.clone()),
        }
    }
    while let Some(url) = crawl.next(options.crawl_limit) {
        match source::discover(&url, &manager.fetcher, &limits).await {
            Ok(Discovery::Database(source)) => manager.gather_database(&source).await?,
            Ok(Discovery::Cooperative(source)) => manager.gather_cooperative(&source).await?,
            Ok(Discovery::Ordinary(response, page)) => {
                manager.keep_ordinary_page(&response, &page)?;
                for link in page.links() {
                    if let Ok(target) = response.url.join(&link.href) {
                        crawl.push_link(target);
                    }
                }
            }
            Err(e) => manager.source_problem(url.as_str(), &e),
        }
    }
    manager.report.crawl_cut_short = crawl.cut_short;
    manager.report.fetch = manager.fetcher.stats();
    manager.report.elapsed = started.elapsed();
    manager.report.cpu_seconds = report::cpu_seconds();
    manager.report.peak_rss_bytes = report::peak_rss_bytes();
    manager.report.db = options.db.clone();
    Ok(manager.report)
}

/// The traditional gatherer's URL list: breadth first, within the hosts of
/// the start URLs, each URL once.
#[derive(Default)]
struct Crawl {
    queue: VecDeque<Url>,
    seen: HashSet<String>,
    hosts: HashSet<String>,
    taken: usize,
    cut_short: bool,
}

impl Crawl {
    fn push_start(&mut self, url: Url) {
        self.hosts.insert(authority(&url));
        self.push(url);
    }

    fn push_link(&mut self, url: Url) {
        if matches!(url.scheme(), "http" | "https") && self.hosts.contains(&authority(&url)) {
            self.push(url);
        }
    }

    fn push(&mut self, mut url: Url) {
        url.set_fragment(None);
        if self.seen.insert(url.to_string()) {
            self.queue.push_back(url);
        }
    }

    fn next(&mut self, limit: usize) -> Option<Url> {
        if self.taken >= limit {
            self.cut_short |= !self.queue.is_empty();
            return None;
        }
        let url = self.queue.pop_front()?;
        self.taken += 1;
        Some(url)
    }
}

fn authority(url: &Url) -> String {
    format!(
        "{}:{}",
        url.host_str().unwrap_or_default(),
        url.port_or_known_default().unwrap_or(0)
    )
}

struct Manager<'a> {
    store: Store,
    fetcher: Fetcher,
    options: &'a Options,
    report: Report,
}

impl Manager<'_> {
    fn source_problem(&mut self, what: &str, error: &SourceError) {
        tracing::error!("{what}: {error}");
        self.report.problems.push(report::Problem {
            what: what.to_string(),
            message: error.to_string(),
            bad_input: error.is_bad_input(),
        });
    }

    fn keep_ordinary_page(
        &mut self,
        response: &crate::fetch::Response,
        page: &Page,
    ) -> Result<(), GatherError> {
        let id = self.store.upsert_source(&SourceInfo {
            url: response.url.to_string(),
            kind: SourceKind::Page,
            title: page.title().filter(|t| !t.is_empty()),
            description: page.meta_content("description"),
            keywords: page.meta_content("keywords"),
            text: Some(page.text()),
        })?;
        self.store
            .record_page(id, &PageRecord::from_response(response, Duration::ZERO))?;
        self.report.ordinary_pages += 1;
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
        let mut line = SourceReport::new(source.url.clone(), "cooperative");
        line.queries_planned = 1;
        line.queries_sent = 1;
        let answer = summarize::gather_cooperative(
            &self.fetcher,
            &mut self.store,
            &info,
            &source.summarizer,
            &source.config_path,
        )
        .await;
        match answer {
            Ok(summary) => {
                line.pages = 1;
                line.new_values = summary.new_values;
                line.stats = Some(self.store.stats(summary.source)?);
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
        let id = self.store.upsert_source(&SourceInfo {
            url: source.url.to_string(),
            kind: SourceKind::Database,
            title: source.title.clone(),
            description: source.description.clone(),
            keywords: source.keywords.clone(),
            text: None,
        })?;
        let mut line = SourceReport::new(source.url.clone(), "database");
        line.queries_planned = source.plan.len();

        // Listed values (a Result.<attr> given as values) are indexed once per source.
        let mut listed = IndexFragment::new();
        for result in &source.metadata.results {
            if let ResultKind::Values(values) = &result.kind {
                for value in values {
                    listed.add(&result.attribute, value);
                }
            }
        }
        line.new_values += self.store.record_values(id, None, &listed)?;

        let work = Arc::new(QueryWork {
            fetcher: self.fetcher.clone(),
            rules: source
                .metadata
                .results
                .iter()
                .filter_map(|r| match &r.kind {
                    ResultKind::Rule(rule) => Some((r.attribute.clone(), rule.clone())),
                    ResultKind::Values(_) => None,
                })
                .collect(),
            max_pages: min_some(source.metadata.max_pages, self.options.max_pages),
            metadata_mode: navigation_mode(&source.metadata),
        });

        // The plan is generated lazily, query by query: it may be far larger
        // than memory. Queries done in an earlier run are passed over.
        let finished = self.store.finished_queries(id)?;
        let progress = self.progress_bar(&source.url, source.plan.len());
        let skip_bar = progress.clone();
        let finished_ref = &finished;
        let pending = source.plan.queries().filter_map(move |query| {
            let key = query.key();
            if finished_ref.contains(&key) {
                skip_bar.inc(1);
                return None;
            }
            Some((key, query))
        });
        let mut outcomes = futures::stream::iter(pending.map(|(key, query)| {
            let work = Arc::clone(&work);
            async move { work.run(key, query).await }
        }))
        .buffer_unordered(self.options.concurrency.max(1));
        while let Some(done) = outcomes.next().await {
            line.queries_sent += 1;
            line.pages += done.pages.len() as u64;
            if matches!(done.state, QueryState::Failed) {
                line.queries_failed += 1;
                if let Some(e) = &done.error {
                    line.failures.push(format!("{}: {e}", done.description));
                }
            }
            line.queries_cut_short += u64::from(done.cut_short);
            line.new_values += self.store.record_query(id, &done)?;
            progress.inc(1);
        }
        progress.finish_and_clear();
        drop(outcomes);
        line.queries_skipped = source.plan.len().saturating_sub(line.queries_sent);

        // Whether the content is complete follows from this run's plan and
        // from what the database holds, so a resumed run tells it right too.
        let mut reasons = Vec::new();
        if source.plan.cut_short() {
            reasons.push(format!(
                "query limit: {} of {} queries",
                source.plan.len(),
                source.plan.total()
            ));
        }
        let cut_short = self.store.stats(id)?.queries_cut_short;
        if cut_short > 0 {
            reasons.push(format!(
                "page limit: {cut_short} queries had more result pages than they were allowed"
            ));
        }
        let reason = (!reasons.is_empty()).then(|| reasons.join("; "));
        self.store.set_incomplete(id, reason.as_deref())?;
        line.stats = Some(self.store.stats(id)?);
        self.report.sources.push(line);
        Ok(())
    }

    fn progress_bar(&self, url: &Url, len: u64) -> ProgressBar {
        if !self.options.progress || !std::io::stderr().is_terminal() {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::new(len);
        let style = ProgressStyle::with_template(
            "{spinner} {msg} [{bar:30}] {pos}/{len} queries ({per_sec}, eta {eta})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
        bar.set_style(style);
        bar.set_message(url.to_string());
        bar
    }
}

/// What every query of one source shares.
struct QueryWork {
    fetcher: Fetcher,
    rules: Vec<(String, Rule)>,
    max_pages: Option<u64>,
    metadata_mode: NavigationMode,
}

impl QueryWork {
    /// Sends one query (`key` is its [`Query::key`]) and walks its result
    /// pages; a failure keeps what the pages before it gave.
    async fn run(&self, key: String, query: Query) -> QueryOutcome {
        let mut navigator = Navigator::new(
            self.metadata_mode.clone(),
            query.request.clone(),
            self.max_pages,
        );
        let mut fragment = IndexFragment::new();
        let mut pages = Vec::new();
        let mut error = None;
        let mut attempts = 0;
        while let Some(request) = navigator.next_request() {
            let sent = Instant::now();
            match self.fetcher.fetch(&request).await {
                Ok(response) => {
                    attempts += response.attempts;
                    let page = Page::from_bytes(&response.body, response.content_type.as_deref());
                    for (attribute, rule) in &self.rules {
                        for value in rule.eval(&page).flatten() {
                            fragment.add(attribute, &value);
                        }
                    }
                    navigator.result_page(&response.url, &page.links());
                    pages.push(PageRecord::from_response(&response, sent.elapsed()));
                }
                Err(e) => {
                    error = Some(e.to_string());
                    break;
                }
            }
        }
        QueryOutcome {
            key,
            ordinal: query.ordinal,
            description: describe(&query),
            state: if error.is_some() {
                QueryState::Failed
            } else {
                QueryState::Done
            },
            error,
            attempts,
            pages,
            fragment,
            cut_short: navigator.cut_short(),
        }
    }
}

/// `region=Rügen&preis=`: the query elements' values, for people.
fn describe(query: &Query) -> String {
    if query.values.is_empty() {
        return query.request.url.to_string();
    }
    query
        .values
        .iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect::<Vec<_>>()
        .join("&")
}

fn navigation_mode(metadata: &Metadata) -> NavigationMode {
    match (&metadata.navigation_url, metadata.navigation) {
        (Some(pattern), _) => NavigationMode::Pattern(pattern.clone()),
        (None, Some(false)) => NavigationMode::Off,
        (None, _) => NavigationMode::Detect,
    }
}

fn min_some(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

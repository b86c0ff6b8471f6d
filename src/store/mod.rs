//! The gatherer database: a SQLite file (WAL, `synchronous=NORMAL`), one
//! gathering at a time, or a PostgreSQL database shared by workers on many
//! machines ([`Location`]). Both are back-ends of one interface
//! ([`backend::Backend`], whose methods each implements), and [`Store`] is
//! what the other stages call; the workers' side of a shared database (the
//! leases on the queries, the hosts' request slots) is [`SharedPlan`].
//!
//! It holds the sources (form pages, cooperative providers, ordinary pages),
//! every query sent for a source with its state, every page fetched, and the
//! distinct values found per source and attribute, each with the key of the
//! query that surfaced it first (its provenance). A full-text index over the
//! values (FTS5 in SQLite, `tsvector` columns in PostgreSQL) answers
//! searches. The records ([`crate::record`]) are kept per source, each
//! distinct record once, with the query and the page that gave it first.
//!
//! Crash safety: [`Store::record_query`] writes a query's pages, its values,
//! its records and its state in one transaction, so a killed process leaves every query
//! either done with all its values and pages, or not done at all; a rerun
//! skips the done ones ([`Store::finished_queries`]). Values are normalized
//! (see [`crate::fragment::normalize`]) and unique per source and attribute,
//! so they are never stored twice.
//!
//! Schema versions live in `PRAGMA user_version` (SQLite) or the table
//! `gather_schema` (PostgreSQL); opening a database written by a newer
//! gather is refused.
//!
//! The same behavioural tests run on both back-ends (`parity`).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::fragment::IndexFragment;
use crate::record::Record;

mod backend;
mod history;
// The parity tests start a PostgreSQL server of their own (`demo::postgres`).
#[cfg(all(test, feature = "demo"))]
mod parity;
mod postgres;
mod schema;
mod sqlite;

use backend::Backend;

pub use history::{
    next_interval, AnswerMark, AttributeChanges, ChangeOp, Changes, RefreshStart, Refreshing,
    Schedule,
};
pub(crate) use postgres::next_pause;
pub use postgres::{Claim, OtherWork, SharedPlan};

/// The row id of a source.
pub type SourceId = i64;

/// What a source is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SourceKind {
    /// A query form gathered through its metadata (or a spec).
    Database,
    /// A provider whose summarizer answered with SOIF.
    Cooperative,
    /// An ordinary page (no `DB.` metadata): its text is indexed.
    Page,
}

impl SourceKind {
    /// `database`, `cooperative` or `page` (as stored and exported to JSON).
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Database => "database",
            SourceKind::Cooperative => "cooperative",
            SourceKind::Page => "page",
        }
    }

    fn parse(s: &str) -> Option<SourceKind> {
        match s {
            "database" => Some(SourceKind::Database),
            "cooperative" => Some(SourceKind::Cooperative),
            "page" => Some(SourceKind::Page),
            _ => None,
        }
    }
}

/// What is known about a source; `url` identifies it (the form's URL for a
/// database source).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceInfo {
    pub url: String,
    pub kind: SourceKind,
    pub title: Option<String>,
    pub description: Option<String>,
    pub keywords: Option<String>,
    /// The page's text (main content where boilerplate removal applies), for
    /// ordinary pages.
    pub text: Option<String>,
}

/// A source as stored, for export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRecord {
    pub id: SourceId,
    pub info: SourceInfo,
    /// Unix seconds of the last [`Store::upsert_source`].
    pub updated_at: i64,
    /// Why the gathered content is incomplete, when it is.
    pub incomplete: Option<String>,
}

/// The state of one query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QueryState {
    Pending,
    Done,
    Failed,
}

impl QueryState {
    fn as_str(self) -> &'static str {
        match self {
            QueryState::Pending => "pending",
            QueryState::Done => "done",
            QueryState::Failed => "failed",
        }
    }
}

/// One fetched page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRecord {
    pub url: String,
    pub status: u16,
    pub bytes: u64,
    /// SHA-256 of the body, lower-case hex.
    pub sha256: String,
    /// Unix seconds.
    pub fetched_at: i64,
    pub elapsed_ms: u64,
    /// The body and its `Content-Type`, to keep (compressed) for applying
    /// changed rules later; `None` keeps nothing.
    pub kept: Option<KeptBody>,
}

/// A result page's body as it was received, compressed as the store keeps
/// it ([`pack`]) when the page is read: the pages of a query wait in memory
/// for the query's next save in a fifth to a third of their size (LZ4 on the
/// demo's result pages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptBody {
    pub content_type: Option<String>,
    packed: Vec<u8>,
}

impl KeptBody {
    /// The body as the store writes it.
    fn packed(&self) -> &[u8] {
        &self.packed
    }
}

/// A kept result page of a done query, for applying rules again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptPage {
    /// The key of the query it answered.
    pub query: String,
    pub url: String,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
}

impl PageRecord {
    /// The record of a page fetched now: its final URL, status, body size
    /// and SHA-256, fetched in `elapsed`.
    pub fn new(url: &str, status: u16, body: &[u8], elapsed: std::time::Duration) -> PageRecord {
        use sha2::{Digest, Sha256};
        PageRecord {
            url: url.to_string(),
            status,
            bytes: body.len() as u64,
            sha256: crate::digest::hex(&Sha256::digest(body)),
            fetched_at: now(),
            elapsed_ms: u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX),
            kept: None,
        }
    }

    /// The same record, keeping the body to apply rules to it again later.
    pub fn keeping(mut self, content_type: Option<&str>, body: &[u8]) -> PageRecord {
        self.kept = Some(KeptBody {
            content_type: content_type.map(str::to_string),
            packed: pack(body),
        });
        self
    }
}

/// The outcome of one query: what [`Store::record_query`] writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryOutcome {
    /// Identifies the query within its source across runs.
    pub key: String,
    /// Its position in the plan.
    pub ordinal: u64,
    /// For people, e.g. `region=Rügen`.
    pub description: String,
    pub state: QueryState,
    pub error: Option<String>,
    pub attempts: u32,
    /// The result pages fetched for it.
    pub pages: Vec<PageRecord>,
    /// The values its result pages gave, merged.
    pub fragment: IndexFragment,
    /// The records its result pages gave, in the order of the pages.
    pub records: Vec<Record>,
    /// The page limit stopped its result pages while more were linked.
    pub cut_short: bool,
    /// What its answer revealed so far (JSON, see [`crate::refine::Answer`]).
    pub answer: Option<String>,
    /// Its element values (JSON pairs), so that it can be refined later.
    pub values: Option<String>,
    /// The key of the query a refined query narrows.
    pub parent: Option<String>,
    /// Its value was learned from the answers ([`crate::refine::learn`]).
    pub learned: bool,
    /// Where the query's navigator stands, for a query that is not done:
    /// a later run continues from there ([`Store::checkpoints`]).
    pub checkpoint: Option<String>,
    /// The links its walk found since it was last recorded (see
    /// [`crate::navigate::Checkpoint::links`]): added to those recorded
    /// before, or to none when the outcome is `fresh`; all are dropped
    /// when the outcome has no checkpoint.
    pub walk_links: Vec<String>,
    /// The query was started from its first page in this run: pages an
    /// earlier attempt recorded are replaced. A record that continues a
    /// walk (after a checkpoint) adds its pages to those recorded before.
    pub fresh: bool,
    /// What the query's first result page said, when it was fetched in
    /// this run: kept with the query, for a refresh to ask again.
    pub mark: Option<AnswerMark>,
    /// The query is sent again by a refresh: its records are recorded
    /// with their history ([`Store::refresh_records`]).
    pub refresh: Option<Refreshing>,
}

/// A query put into the shared plan ([`Store::plan_queries`]), for a
/// worker to claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedQuery {
    pub key: String,
    pub ordinal: u64,
    pub description: String,
    /// The request to send, as JSON.
    pub request: String,
    /// Its element values (JSON pairs), which refinement and learning read.
    pub values: Option<String>,
    /// The query it refines, for a refined query.
    pub parent: Option<String>,
    /// Its value was learned from the answers.
    pub learned: bool,
}

/// How many queries the store reads or writes at once where it walks all
/// of a source's queries ([`Store::each_answered`], the shared plan).
pub const ANSWER_BATCH: usize = 1000;

/// An answered query with its position in the order the store reads them
/// (ordinal, row id), from which the next batch is read.
type AnsweredAt = ((i64, i64), AnsweredQuery);

/// A done query with what its answer revealed ([`Store::answered_queries`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnsweredQuery {
    pub key: String,
    /// Its element values (JSON pairs).
    pub values: String,
    /// What its answer revealed (JSON, see [`crate::refine::Answer`]).
    pub answer: String,
    /// The query it refines, for a refined query.
    pub parent: Option<String>,
}

/// Counts for one source.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SourceStats {
    pub queries_done: u64,
    pub queries_failed: u64,
    /// Done queries whose result pages the page limit cut short.
    pub queries_cut_short: u64,
    pub pages: u64,
    pub bytes: u64,
    pub values_per_attribute: BTreeMap<String, u64>,
    /// Records ([`crate::record`]) the source holds.
    pub records: u64,
    pub incomplete: Option<String>,
}

/// The attribute of a search hit in a source's title or text.
pub const TEXT_ATTRIBUTE: &str = "Text";

/// One search hit: a value holding a term, or a source's title or text.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Hit {
    /// The term as the user gave it.
    pub term: String,
    /// The source's URL.
    pub source: String,
    pub attribute: String,
    pub value: String,
    /// The key of the query that surfaced the value first, or the provenance
    /// given to [`Store::record_values`].
    pub provenance: Option<String>,
    /// That query's description (`region=Rügen`), when it is a query.
    pub query: Option<String>,
}

/// A record as stored: the source's URL, the query that gave it first and
/// that query's description, and the record with its page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRecord {
    pub source: String,
    /// The key of the query that gave the record first.
    pub query_key: Option<String>,
    /// That query's description (`region=Rügen`).
    pub query: Option<String>,
    pub record: Record,
}

/// What recording a query added to the database ([`Store::record_query_new`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recorded {
    /// How many of its values were new to the source.
    pub new_values: u64,
    /// Which of its records the source did not hold yet: their positions
    /// in the outcome's records, in order (see [`Recorded::new_records_of`]).
    pub new_records: Vec<usize>,
}

impl Recorded {
    /// The records of `outcome` the source did not hold yet, in order.
    pub fn new_records_of<'a>(
        &'a self,
        outcome: &'a QueryOutcome,
    ) -> impl Iterator<Item = &'a Record> + 'a {
        self.new_records
            .iter()
            .filter_map(|&i| outcome.records.get(i))
    }
}

/// Why the gatherer database cannot be opened, read or written.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("gatherer database {path}: {context}: {source}")]
    Sqlite {
        path: PathBuf,
        context: String,
        #[source]
        source: rusqlite::Error,
    },
    #[error("gatherer database {path} does not exist")]
    Missing { path: PathBuf },
    #[error("gatherer database {path} cannot be opened: {source}")]
    Open {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("gatherer database {path}: {context}: {source}")]
    Io {
        path: PathBuf,
        context: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "another gather run is gathering into {path}; wait for it to end, or give another --db"
    )]
    Busy { path: PathBuf },
    #[error("{path} is not a gatherer database (no gather schema in it)")]
    NotGatherDatabase { path: PathBuf },
    #[error("gatherer database {path} has schema version {found}; this gather knows versions up to {supported} (written by a newer gather?)")]
    NewerSchema {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    #[error("gatherer database {path}: no source with id {id}")]
    UnknownSource { path: PathBuf, id: SourceId },
    #[error("gatherer database {path}: {message}")]
    Corrupt { path: PathBuf, message: String },
    #[error("gatherer database {db}: {context}: {message}")]
    Postgres {
        db: String,
        context: String,
        message: String,
    },
    #[error("gatherer database {db} cannot be reached: {message}")]
    Connect { db: String, message: String },
    #[error("gatherer database {db} went away while {context} and was not back within {waited} s: {message}")]
    Lost {
        db: String,
        context: String,
        /// Seconds waited for it.
        waited: u64,
        message: String,
    },
    #[error("gatherer database {db}: query {key:?} was taken over by another worker (its lease ran out)")]
    LeaseLost { db: String, key: String },
    #[error("gatherer database {path}: {what} {value} does not fit into SQLite's 64-bit integers")]
    TooLarge {
        path: PathBuf,
        what: &'static str,
        value: u64,
    },
}

impl StoreError {
    /// True when the user named something that is no usable gatherer
    /// database (exit status 2), rather than the database failing.
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            StoreError::Missing { .. }
                | StoreError::Open { .. }
                | StoreError::NotGatherDatabase { .. }
                | StoreError::NewerSchema { .. }
                | StoreError::Connect { .. }
        )
    }
}

/// What a gatherer database holds and who works on it (`gather status`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Status {
    pub sources: Vec<StatusSource>,
    /// Workers seen in the last 30 seconds (`WORKER_ALIVE_SECONDS`) whose database
    /// session is there (PostgreSQL).
    pub workers_alive: Vec<String>,
    /// Workers of the last hour that ended without saying they stopped:
    /// their session is gone (killed, crashed), or they were not seen for
    /// 30 seconds. Their queries are free for the others.
    pub workers_dead: Vec<String>,
    /// Those of them that plan (`gather URL --db postgres://…`): workers
    /// with nothing to claim wait for them.
    pub planners_alive: Vec<String>,
    /// Result pages fetched in the last minute, per second.
    pub requests_per_second: f64,
    /// Hosts whose request slots the workers of the last ten minutes
    /// waited for (PostgreSQL).
    pub host_waits: Vec<HostWait>,
}

/// A host whose per-host limit the workers share and waited on: more
/// workers do not make its requests faster; `--host-concurrency` does.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct HostWait {
    /// The host's origin (`http://host:port`).
    pub host: String,
    /// Requests in flight at once to it, across the workers.
    pub limit: u64,
    /// Workers that waited for a free slot.
    pub workers: u64,
    /// Seconds they waited, together.
    pub waited_seconds: f64,
}

/// What [`HostWait`] means for the operator, in one line: the host, its
/// limit, the time waited, and the option that raises the limit.
pub fn host_wait_note(wait: &HostWait) -> String {
    format!(
        "host {}: {} worker{} waited {:.1} s in all for one of its {} request slots \
         (a limit all workers share, so more workers are no faster on it; \
         --host-concurrency raises it, if the provider allows)",
        wait.host,
        wait.workers,
        if wait.workers == 1 { "" } else { "s" },
        wait.waited_seconds,
        wait.limit
    )
}

/// How long a lost PostgreSQL database is waited for by default before a
/// worker gives up.
pub(crate) const DEFAULT_RECONNECT: std::time::Duration = std::time::Duration::from_secs(120);

/// A worker that has not said it is alive for this long is taken for dead.
pub(crate) const WORKER_ALIVE_SECONDS: i64 = 30;

/// The queries of one source by state.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct StatusSource {
    pub url: String,
    pub kind: String,
    /// Planned and not leased by a live worker.
    pub pending: u64,
    /// Leased by a worker now.
    pub leased: u64,
    pub done: u64,
    pub failed: u64,
    /// Done, but the page limit stopped their result pages.
    pub truncated: u64,
    pub pages: u64,
}

/// Where the gatherer database is: a SQLite file, or a PostgreSQL server
/// shared by workers on many machines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A SQLite file (one gathering at a time).
    File(PathBuf),
    /// `postgres://USER@HOST:PORT/DB` (or `postgresql://`).
    Postgres(String),
}

impl Location {
    /// A `--db` value: a `postgres://` or `postgresql://` URL names a
    /// PostgreSQL database, anything else a SQLite file.
    pub fn of(db: &Path) -> Location {
        let text = db.to_string_lossy();
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            Location::Postgres(text.into_owned())
        } else {
            Location::File(db.to_path_buf())
        }
    }

    /// Whether the database is shared by workers (PostgreSQL).
    pub fn is_shared(&self) -> bool {
        matches!(self, Location::Postgres(_))
    }
}

/// The gatherer database: SQLite or PostgreSQL behind one interface
/// ([`Backend`], which both implement).
pub struct Store {
    backend: Box<dyn Backend>,
}

impl Store {
    /// Opens the SQLite database at `path`, creating it (and its schema) when
    /// it does not exist, and migrating an older schema.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        Store::open_at(&Location::File(path.to_path_buf()))
    }

    /// Opens the database a `--db` value names ([`Location::of`]), creating
    /// its schema when there is none, and migrating an older one.
    pub fn open_at(location: &Location) -> Result<Store, StoreError> {
        let backend: Box<dyn Backend> = match location {
            Location::File(path) => Box::new(sqlite::Sqlite::open(path)?),
            Location::Postgres(url) => Box::new(postgres::Postgres::connect(url, true)?),
        };
        Ok(Store { backend })
    }

    /// Opens an existing SQLite gatherer database (for export and search): a
    /// missing file or a file without gather's schema is an error, nothing
    /// is created.
    pub fn open_existing(path: &Path) -> Result<Store, StoreError> {
        Store::open_existing_at(&Location::File(path.to_path_buf()))
    }

    /// Opens an existing gatherer database: a PostgreSQL database without
    /// gather's schema is an error too.
    pub fn open_existing_at(location: &Location) -> Result<Store, StoreError> {
        let backend: Box<dyn Backend> = match location {
            Location::File(path) => Box::new(sqlite::Sqlite::open_existing(path)?),
            Location::Postgres(url) => Box::new(postgres::Postgres::connect(url, false)?),
        };
        Ok(Store { backend })
    }

    /// Takes the database for one gathering. A SQLite file: a second
    /// `gather` on it would send every query the first one is sending, so it
    /// is refused while this store lives (the operating system's `flock`,
    /// released when the process ends, however it ends). PostgreSQL is
    /// shared by workers: the leases of the queries keep them apart.
    pub fn lock_for_gathering(&mut self) -> Result<(), StoreError> {
        self.backend.lock_for_gathering()
    }

    /// The database is PostgreSQL, shared by workers.
    pub fn is_shared(&self) -> bool {
        self.backend.is_shared()
    }

    /// Makes the store write a query only while `worker` holds its lease
    /// ([`SharedPlan::claim`]): a worker whose lease ran out and whose query
    /// another worker took over gets [`StoreError::LeaseLost`]. PostgreSQL
    /// only; a SQLite store ignores it.
    pub fn set_worker(&mut self, worker: &str) {
        self.backend.set_worker(worker)
    }

    /// Puts a source's plan into the shared database: every query not
    /// there yet becomes pending, a failed one among them is pending again
    /// (one that is not planned again stays failed), and `work`
    /// (how workers run the source's queries, JSON) is kept with the
    /// source. PostgreSQL only.
    pub fn plan_queries(
        &mut self,
        source: SourceId,
        work: &str,
        mut queries: impl Iterator<Item = PlannedQuery>,
    ) -> Result<u64, StoreError> {
        self.backend.plan_queries(source, work, &mut queries)
    }

    /// How workers run the source's queries ([`Store::plan_queries`]) and
    /// the rules it was planned with.
    pub(crate) fn work(
        &self,
        source: SourceId,
    ) -> Result<(Option<String>, Option<String>), StoreError> {
        Ok((self.backend.work(source)?, self.rules(source)?))
    }

    /// What the database holds and who works on it (`gather status`).
    pub fn status(&self) -> Result<Status, StoreError> {
        self.backend.status()
    }

    /// At most `bytes` of compressed page bodies in the database (default
    /// 1 GiB); bodies past it are not kept.
    pub fn set_body_budget(&mut self, bytes: u64) -> Result<(), StoreError> {
        self.backend.set_body_budget(bytes)
    }

    /// Page bodies not kept because the budget was spent.
    pub fn bodies_dropped(&self) -> u64 {
        self.backend.bodies_dropped()
    }

    /// The rules a source was last gathered with (as the gatherer wrote
    /// them with [`Store::set_rules`]).
    pub fn rules(&self, source: SourceId) -> Result<Option<String>, StoreError> {
        self.backend.rules(source)
    }

    /// Records the rules a source is gathered with.
    pub(crate) fn set_rules(&mut self, source: SourceId, rules: &str) -> Result<(), StoreError> {
        self.backend.set_rules(source, rules)
    }

    /// The spec gather induced by probing the form at `url` (YAML), when
    /// a gathering stored it ([`Store::set_surfaced_spec`]).
    pub fn surfaced_spec(&self, url: &str) -> Result<Option<String>, StoreError> {
        self.backend.surfaced_spec(url)
    }

    /// Records the spec induced by probing a source's form, so that a
    /// resumed gathering does not probe again.
    pub(crate) fn set_surfaced_spec(
        &mut self,
        source: SourceId,
        spec: &str,
    ) -> Result<(), StoreError> {
        self.backend.set_surfaced_spec(source, spec)
    }

    /// Starts a source over: its queries, their pages and every value found
    /// by a query are removed (listed values and the source stay).
    pub(crate) fn forget_queries(&mut self, source: SourceId) -> Result<(), StoreError> {
        self.backend.forget_queries(source)
    }

    /// Done queries with result pages whose bodies were not kept: what
    /// applying the rules again could not reach.
    pub fn pages_not_kept(&self, source: SourceId) -> Result<u64, StoreError> {
        self.backend.pages_not_kept(source)
    }

    /// The kept result pages of the source's done queries, in the order
    /// they were fetched, decompressed.
    pub fn kept_pages(&self, source: SourceId) -> Result<Vec<KeptPage>, StoreError> {
        Ok(self.backend.kept_pages(source, None)?.0)
    }

    /// The pages of one query's answer, done or not, in the order they
    /// were fetched, when every one of them was kept (`None`: some was
    /// not, or none is recorded).
    pub fn kept_answer(
        &self,
        source: SourceId,
        query: &str,
    ) -> Result<Option<Vec<KeptPage>>, StoreError> {
        let (pages, missing) = self.backend.kept_pages(source, Some(query))?;
        Ok((missing == 0 && !pages.is_empty()).then_some(pages))
    }

    /// Replaces the values and records the source's queries found with
    /// `by_query` (query key → its values and records), in one transaction:
    /// what applying changed rules to the kept pages gives. Returns how many
    /// values there are now.
    pub fn replace_query_values(
        &mut self,
        source: SourceId,
        by_query: &[(String, IndexFragment, Vec<Record>)],
    ) -> Result<u64, StoreError> {
        self.backend.replace_query_values(source, by_query)
    }

    /// Marks the source's done queries as not done, and removes the values
    /// and records they found: the next gathering sends them again.
    pub fn reopen_queries(&mut self, source: SourceId) -> Result<(), StoreError> {
        self.backend.reopen_queries(source)
    }

    /// The file this store lives in, or the PostgreSQL URL (without a
    /// password).
    pub fn path(&self) -> &Path {
        self.backend.path()
    }

    /// Adds a source or, when its URL is known, refreshes its kind, title,
    /// description, keywords, text and update time. Returns its id.
    pub fn upsert_source(&mut self, info: &SourceInfo) -> Result<SourceId, StoreError> {
        self.backend.upsert_source(info)
    }

    /// The keys of the source's queries that are done.
    pub fn finished_queries(&self, source: SourceId) -> Result<HashSet<String>, StoreError> {
        self.backend.finished_queries(source)
    }

    /// Records a query in one transaction: its state, its pages (replacing
    /// the pages of an earlier attempt of the same query when the outcome is
    /// `fresh`, else adding to them), its values (new ones get this query as
    /// provenance; known ones keep theirs) and its checkpoint. Returns how
    /// many values were new.
    ///
    /// A long query is recorded several times: after each result page as
    /// [`QueryState::Pending`] with its checkpoint, and once at its end.
    ///
    /// Recording a query again (a retry in a later run) updates its state,
    /// error and description, adds its attempts to those of earlier runs and
    /// keeps the time it was first started. The values of a failed query are
    /// kept too (they were seen); the query stays failed and is sent again on
    /// the next run.
    pub fn record_query(
        &mut self,
        source: SourceId,
        outcome: &QueryOutcome,
    ) -> Result<u64, StoreError> {
        Ok(self.record_query_new(source, outcome)?.new_values)
    }

    /// Records a query as [`Store::record_query`] does, and tells which
    /// values and records were new. Its records are kept once per source:
    /// a record whose fields the source holds already keeps the query and
    /// page that gave it first.
    pub fn record_query_new(
        &mut self,
        source: SourceId,
        outcome: &QueryOutcome,
    ) -> Result<Recorded, StoreError> {
        self.record_with_history(source, outcome, true)
    }

    /// [`Store::record_query_new`] without waiting for a lost PostgreSQL
    /// database: [`StoreError::Lost`] at once, for a caller that waits
    /// without holding the store.
    pub(crate) fn record_query_at_once(
        &mut self,
        source: SourceId,
        outcome: &QueryOutcome,
    ) -> Result<Recorded, StoreError> {
        self.record_with_history(source, outcome, false)
    }

    /// Records a query, what its first page said, and, in a refresh, its
    /// records with their history ([`Store::refresh_records`]) and its
    /// next refresh. In a refresh the history is written before the
    /// query: on a shared plan a query done is given back, and the planner
    /// reads the refresh's changes once no query is held, so a query must
    /// not be done before its records are stored (nor, should the process
    /// stop between the two, be done without them: it is sent again).
    fn record_with_history(
        &mut self,
        source: SourceId,
        outcome: &QueryOutcome,
        patient: bool,
    ) -> Result<Recorded, StoreError> {
        let Some(refreshing) = outcome.refresh else {
            return self.backend.record_query_new(source, outcome, patient);
        };
        self.backend
            .see_values(source, &outcome.fragment, refreshing.since)?;
        let new_records =
            self.refresh_records(source, &outcome.key, &outcome.records, refreshing)?;
        let without_records = QueryOutcome {
            records: Vec::new(),
            ..outcome.clone()
        };
        let recorded = self
            .backend
            .record_query_new(source, &without_records, patient)?;
        if outcome.state == QueryState::Done {
            self.reschedule(source, &outcome.key, refreshing)?;
        }
        Ok(Recorded {
            new_records,
            ..recorded
        })
    }

    /// How long a lost PostgreSQL database is waited for (by default
    /// [`DEFAULT_RECONNECT`]).
    pub(crate) fn set_patience(&mut self, patience: std::time::Duration) {
        self.backend.set_patience(patience)
    }

    /// The source's done queries with what their answers revealed, in the
    /// order they were planned and refined.
    pub fn answered_queries(&self, source: SourceId) -> Result<Vec<AnsweredQuery>, StoreError> {
        let mut all = Vec::new();
        self.each_answered::<StoreError>(source, |q| {
            all.push(q);
            Ok(())
        })?;
        Ok(all)
    }

    /// Calls `each` with the source's done queries and what their answers
    /// revealed, in the order of [`Store::answered_queries`], read from the
    /// database in batches of [`ANSWER_BATCH`]: the memory it takes does
    /// not grow with the queries.
    pub fn each_answered<E: From<StoreError>>(
        &self,
        source: SourceId,
        mut each: impl FnMut(AnsweredQuery) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut after = (i64::MIN, i64::MIN);
        loop {
            let batch = self.backend.answered_after(source, after, ANSWER_BATCH)?;
            let full = batch.len() == ANSWER_BATCH;
            for (at, answered) in batch {
                after = at;
                each(answered)?;
            }
            if !full {
                return Ok(());
            }
        }
    }

    /// The done queries among `keys` with what their answers revealed, in
    /// the order of `keys` (a key not done is left out).
    pub fn answered_among(
        &self,
        source: SourceId,
        keys: &[String],
    ) -> Result<Vec<AnsweredQuery>, StoreError> {
        self.backend.answered_among(source, keys)
    }

    /// The keys among `keys` of the source's done queries.
    pub fn finished_among(
        &self,
        source: SourceId,
        keys: &[String],
    ) -> Result<HashSet<String>, StoreError> {
        self.backend.finished_among(source, keys)
    }

    /// How many of the source's queries are done.
    pub fn finished_count(&self, source: SourceId) -> Result<u64, StoreError> {
        self.backend.finished_count(source)
    }

    /// The element values (JSON pairs) of every stored query of the
    /// source, in any state.
    pub fn query_values(&self, source: SourceId) -> Result<Vec<String>, StoreError> {
        self.backend.query_values(source)
    }

    /// How many queries of the source are stored (any state), and how many
    /// of them are refined queries.
    pub fn query_counts(&self, source: SourceId) -> Result<(u64, u64), StoreError> {
        self.backend.query_counts(source)
    }

    /// The source's values that the queries `keys` found first (those new
    /// to the store when the query was recorded): (query key, value), a
    /// value once for each attribute that holds it.
    pub(crate) fn values_found_by(
        &self,
        source: SourceId,
        keys: &[String],
    ) -> Result<Vec<(String, String)>, StoreError> {
        self.backend.values_found_by(source, keys)
    }

    /// The checkpoints of the source's queries that are not done: query key
    /// → where its navigator stood ([`QueryOutcome::checkpoint`]), with
    /// the links its walk found as the checkpoint's `links` (a JSON list).
    pub fn checkpoints(&self, source: SourceId) -> Result<HashMap<String, String>, StoreError> {
        self.backend.checkpoints(source)
    }

    /// Records values outside a query (values the provider lists, a
    /// cooperative summarizer's answer) with the given provenance, in one
    /// transaction. Returns how many were new.
    pub fn record_values(
        &mut self,
        source: SourceId,
        provenance: Option<&str>,
        fragment: &IndexFragment,
    ) -> Result<u64, StoreError> {
        self.backend.record_values(source, provenance, fragment)
    }

    /// Records a page fetched for a source outside its queries (the form
    /// page, a configuration file, a summarizer's answer). A page with the
    /// same URL recorded earlier outside the queries is replaced, so reruns do
    /// not count it twice.
    pub fn record_page(&mut self, source: SourceId, page: &PageRecord) -> Result<(), StoreError> {
        self.backend.record_page(source, page)
    }

    /// Marks the source's content as incomplete (a limit cut the gathering
    /// short, queries failed) with the reason, or as complete with `None`.
    pub fn set_incomplete(
        &mut self,
        source: SourceId,
        reason: Option<&str>,
    ) -> Result<(), StoreError> {
        self.backend.set_incomplete(source, reason)
    }

    /// Counts for one source.
    pub fn stats(&self, source: SourceId) -> Result<SourceStats, StoreError> {
        self.backend.stats(source)
    }

    /// Every source, ordered by URL.
    pub fn sources(&self) -> Result<Vec<SourceRecord>, StoreError> {
        self.backend.sources()
    }

    /// The source's values per attribute, each list sorted by UTF-8 bytes.
    pub fn values(&self, source: SourceId) -> Result<BTreeMap<String, Vec<String>>, StoreError> {
        self.backend.values(source)
    }

    /// The source's values of one attribute, sorted by UTF-8 bytes.
    pub fn attribute_values(
        &self,
        source: SourceId,
        attribute: &str,
    ) -> Result<Vec<String>, StoreError> {
        self.backend.attribute_values(source, attribute)
    }

    /// The number of records the source holds.
    pub fn record_count(&self, source: SourceId) -> Result<u64, StoreError> {
        self.backend.record_count(source)
    }

    /// Calls `each` with every record, sources in the order of their URLs,
    /// a source's records in the order they were first stored.
    pub fn each_record<E: From<StoreError>>(
        &self,
        mut each: impl FnMut(StoredRecord) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut stopped = None;
        self.backend.each_record(&mut |record| match each(record) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                stopped = Some(e);
                ControlFlow::Break(())
            }
        })?;
        stopped.map_or(Ok(()), Err)
    }

    /// The values that hold `term`, ordered by source URL, attribute and
    /// value; then the sources whose title or text holds it, by URL
    /// (attribute [`TEXT_ATTRIBUTE`], the words around the term as the
    /// value). Full-text search: case-insensitive, diacritics folded for
    /// Latin letters, whole words; a trailing `*` makes the last word a
    /// prefix. A term with no word in it finds nothing.
    pub fn search(&self, term: &str) -> Result<Vec<Hit>, StoreError> {
        self.backend.search(term)
    }
}

/// A stored checkpoint (a JSON object) with the links its walk found,
/// in the order found, as its `links` list: what [`Store::checkpoints`]
/// gives back. A text that is no JSON object is given back as it is.
fn with_links(checkpoint: String, links: Vec<String>) -> String {
    if links.is_empty() {
        return checkpoint;
    }
    match serde_json::from_str::<serde_json::Value>(&checkpoint) {
        Ok(serde_json::Value::Object(mut object)) => {
            object.insert("links".into(), links.into());
            serde_json::Value::Object(object).to_string()
        }
        _ => checkpoint,
    }
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Compressed bytes of kept page bodies a database holds at most, unless
/// the gathering says otherwise (`--page-budget-mb`).
pub(crate) const DEFAULT_BODY_BUDGET: u64 = 1 << 30;

/// The first bytes of a kept body as [`pack`] writes it, an LZ4 block
/// behind them. No raw DEFLATE stream can begin with them: the first byte
/// (0x47) names block type 3, which DEFLATE reserves and no encoder writes;
/// nor can a zstd frame.
const LZ4_MAGIC: [u8; 4] = *b"GLZ4";

/// The first bytes of a zstd frame, as gather kept bodies before LZ4. No raw
/// DEFLATE stream can begin with them: 0x28 opens a stored block, whose
/// length (0x2FB5) the next two bytes would have to repeat complemented
/// (0x4A 0xD0), not 0xFD.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// A kept page body as the store writes it: [`LZ4_MAGIC`], the body's
/// length (four bytes, little-endian) and an LZ4 block of it. LZ4 makes it
/// faster than zstd at level 1 (about 40 % larger on HTML), in Rust, so a
/// fresh build compiles no codec in C.
fn pack(body: &[u8]) -> Vec<u8> {
    let mut packed = LZ4_MAGIC.to_vec();
    packed.extend_from_slice(&lz4_flex::block::compress_prepend_size(body));
    packed
}

/// A kept page body [`pack`] wrote, or a zstd frame or raw DEFLATE as
/// earlier versions of gather kept them. Damage is an error.
fn unpack(packed: &[u8]) -> std::io::Result<Vec<u8>> {
    use std::io::{Error, ErrorKind, Read};
    if let Some(block) = packed.strip_prefix(&LZ4_MAGIC) {
        let damaged = |what: &str| Error::new(ErrorKind::InvalidData, format!("LZ4 body: {what}"));
        let (length, block) = block
            .split_first_chunk::<4>()
            .ok_or_else(|| damaged("no length"))?;
        let length = u32::from_le_bytes(*length) as usize;
        // An LZ4 block expands at most 255-fold: a longer length is damage,
        // not a reason to allocate it.
        if length > block.len().saturating_mul(255) {
            return Err(damaged("a length its block cannot hold"));
        }
        let body = lz4_flex::block::decompress(block, length)
            .map_err(|e| Error::new(ErrorKind::InvalidData, e))?;
        if body.len() != length {
            return Err(damaged("shorter than its length"));
        }
        Ok(body)
    } else if packed.starts_with(&ZSTD_MAGIC) {
        let mut body = Vec::new();
        ruzstd::decoding::StreamingDecoder::new(packed)
            .map_err(|e| Error::new(ErrorKind::InvalidData, e.to_string()))?
            .read_to_end(&mut body)?;
        Ok(body)
    } else {
        inflate(packed)
    }
}

fn inflate(packed: &[u8]) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut body = Vec::new();
    flate2::read::DeflateDecoder::new(packed).read_to_end(&mut body)?;
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_record_hashes_the_body_as_lower_case_hex() {
        let record = PageRecord::new(
            "http://h.test/r?p=2",
            200,
            b"abc",
            std::time::Duration::from_millis(7),
        );
        assert_eq!(
            record.sha256,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!((record.bytes, record.elapsed_ms), (3, 7));
    }

    fn hotel_list() -> String {
        "<html><body><ul>".to_string()
            + &"<li>Hotel Arkona, Binz</li>".repeat(200)
            + "</ul></body></html>"
    }

    #[test]
    fn kept_bodies_are_lz4_and_damage_is_an_error() {
        let body = hotel_list();
        let packed = pack(body.as_bytes());
        assert!(packed.starts_with(&LZ4_MAGIC));
        assert!(packed.len() * 10 < body.len(), "{} bytes", packed.len());
        assert_eq!(unpack(&packed).unwrap(), body.as_bytes());
        assert_eq!(unpack(&pack(b"")).unwrap(), b"");
        // Cut anywhere, the body is an error, never a shorter body.
        for cut in 1..packed.len() {
            assert!(unpack(&packed[..cut]).is_err(), "cut at {cut}");
        }
        // A length the block cannot hold is refused before allocating it.
        let mut lying = packed.clone();
        lying[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(unpack(&lying).is_err());
        // The magic number is no DEFLATE stream.
        assert!(inflate(&LZ4_MAGIC).is_err());
    }

    /// Raw DEFLATE of a page body, as gather kept them before zstd.
    fn deflate(body: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut encoder =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        // Writing into a Vec cannot fail.
        let _ = encoder.write_all(body);
        encoder.finish().unwrap_or_default()
    }

    #[test]
    fn bodies_older_gathers_kept_in_zstd_and_deflate_still_read() {
        let body = hotel_list();
        // The body as gather kept it in zstd (the zstd library at level 1).
        let zstd: [u8; 77] = [
            0x28, 0xB5, 0x2F, 0xFD, 0x60, 0x3B, 0x14, 0x1D, 0x02, 0x00, 0x64, 0x03, 0x3C, 0x68,
            0x74, 0x6D, 0x6C, 0x3E, 0x3C, 0x62, 0x6F, 0x64, 0x79, 0x3E, 0x3C, 0x75, 0x6C, 0x3E,
            0x3C, 0x6C, 0x69, 0x3E, 0x48, 0x6F, 0x74, 0x65, 0x6C, 0x20, 0x41, 0x72, 0x6B, 0x6F,
            0x6E, 0x61, 0x2C, 0x20, 0x42, 0x69, 0x6E, 0x7A, 0x3C, 0x2F, 0x6C, 0x69, 0x2F, 0x75,
            0x6C, 0x3E, 0x3C, 0x2F, 0x2F, 0x68, 0x74, 0x6D, 0x6C, 0x3E, 0x02, 0x00, 0x2B, 0x75,
            0x86, 0x22, 0x7E, 0xF2, 0x7E, 0x96, 0x01,
        ];
        assert_eq!(unpack(&zstd).unwrap(), body.as_bytes());
        assert!(unpack(&zstd[..zstd.len() / 2]).is_err());
        // Before zstd: raw DEFLATE.
        let old = deflate(body.as_bytes());
        assert_eq!(unpack(&old).unwrap(), body.as_bytes());
        assert!(inflate(&ZSTD_MAGIC).is_err());
    }
}

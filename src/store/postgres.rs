//! The PostgreSQL back-end of the gatherer database, shared by workers on
//! many machines.
//!
//! The tables hold what the SQLite file holds (sources, queries with their
//! state and checkpoint, pages, kept bodies, distinct values with their
//! provenance, records); full-text search runs on `tsvector` columns
//! ('simple' configuration over the words [`search_words`] folds). Beside
//! them: the planned request of every query and its lease (`leased_by`,
//! `lease_until`), the workers and when they were last seen, and the
//! politeness of every provider host (a request holds one of its host's
//! slots, a session-level advisory lock on (hash of the host, slot number),
//! which the server frees when the worker's connection ends, however it
//! ends; `host_turns`: when the next request to a host may start).
//!
//! [`Postgres`] is the store's back-end (blocking calls, as the store's
//! users make them); [`SharedPlan`] is the workers' side (async): claiming,
//! renewing and releasing leases, and the per-host slots the fetcher asks
//! for. Each has its own connection, so that a lease is renewed while a
//! query's transaction runs.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::time::Duration;

use futures::executor::block_on;
use tokio_postgres::{Client, GenericClient, NoTls, Row, Statement, Transaction};
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

use super::{
    now, unpack, with_links, AnsweredQuery, Hit, HostWait, KeptBody, KeptPage, PageRecord,
    PlannedQuery, QueryOutcome, QueryState, Recorded, SourceId, SourceInfo, SourceKind,
    SourceRecord, SourceStats, Status, StatusSource, StoreError, StoredRecord, DEFAULT_BODY_BUDGET,
    TEXT_ATTRIBUTE, WORKER_ALIVE_SECONDS,
};
use crate::fragment::{normalize, IndexFragment};
use crate::record::{Fields, Record};

/// The schema version this gather writes (table `gather_schema`).
const VERSION: i64 = 6;

/// `(version, SQL that brings version - 1 to version)`, in order.
const MIGRATIONS: &[(i64, &str)] = &[(1, V1), (2, V2), (3, V3), (4, V4), (5, V5), (6, V6)];

/// Taken while the schema is created or migrated, so that workers starting
/// at once do not race.
const MIGRATION_LOCK: i64 = 0x6761_7468;

/// A worker's leases live as long as its database session: every worker
/// holds a session-level advisory lock (`session_lock`, a 64-bit key) that
/// the server frees when the session ends, however it ends. A worker whose
/// lock is free on the server it registered with (`server_start`) is gone:
/// its leases are void at once (`workers_gone`). After a restart of the
/// server every session ended, so the time-based lease decides until the
/// worker is back. How long the workers waited for a free slot of a host
/// (`host_waits`, per worker, in total).
const V4: &str = "
ALTER TABLE workers ADD COLUMN session_lock BIGINT;
ALTER TABLE workers ADD COLUMN server_start TIMESTAMPTZ;
CREATE VIEW workers_gone AS
  SELECT w.name FROM workers w
  WHERE w.session_lock IS NOT NULL AND w.server_start = pg_postmaster_start_time()
    AND NOT EXISTS (
      SELECT 1 FROM pg_locks l
      WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND l.classid::bigint = ((w.session_lock >> 32) & 4294967295)
        AND l.objid::bigint = (w.session_lock & 4294967295));
CREATE TABLE host_waits (
    origin     TEXT NOT NULL,
    worker     TEXT NOT NULL,
    slots      INT NOT NULL,
    waited_ms  BIGINT NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (origin, worker)
);
";

/// The spec induced by probing a form without metadata (see the SQLite
/// schema's V7).
const V5: &str = "
ALTER TABLE sources ADD COLUMN surfaced_spec TEXT;
";

/// The links a query's walk found (`crate::navigate::Checkpoint::links`),
/// one a line in the order found, added to with each page instead of
/// written again in the checkpoint. A checkpoint written before this
/// version holds its links itself and is read as it is.
const V6: &str = "
ALTER TABLE queries ADD COLUMN walk TEXT;
";

/// The planners among the workers: workers wait for the queries a live
/// planner may still add (refinements, learned words). Claims take the
/// sources' queries in turn (by ordinal first), so that workers ask many
/// providers at once rather than one after another.
const V3: &str = "
ALTER TABLE workers ADD COLUMN plans BOOLEAN NOT NULL DEFAULT false;
DROP INDEX queries_claimable;
CREATE INDEX queries_claimable ON queries (ordinal, source_id) WHERE state = 'pending';
";

/// What a query's answer revealed, its element values, the query a refined
/// query narrows and whether its value was learned: the SQLite schema's
/// version 6.
const V2: &str = "
ALTER TABLE queries ADD COLUMN answer TEXT;
ALTER TABLE queries ADD COLUMN query_values TEXT;
ALTER TABLE queries ADD COLUMN parent TEXT;
ALTER TABLE queries ADD COLUMN learned BOOLEAN NOT NULL DEFAULT false;
";

/// The SQLite schema's ideas (version 5) and the workers' tables.
const V1: &str = "
CREATE TABLE sources (
    id                BIGSERIAL PRIMARY KEY,
    url               TEXT NOT NULL UNIQUE,
    kind              TEXT NOT NULL CHECK (kind IN ('database', 'cooperative', 'page')),
    title             TEXT,
    description       TEXT,
    keywords          TEXT,
    text              TEXT,
    updated_at        BIGINT NOT NULL,
    incomplete        BOOLEAN NOT NULL DEFAULT false,
    incomplete_reason TEXT,
    rules             TEXT,
    -- How workers run the source's queries (JSON: navigation, page limit).
    work              TEXT,
    -- The folded words of the title and the text.
    words             TSVECTOR NOT NULL
);
CREATE INDEX sources_words ON sources USING GIN (words);

CREATE TABLE queries (
    id          BIGSERIAL PRIMARY KEY,
    source_id   BIGINT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    key         TEXT NOT NULL,
    ordinal     BIGINT NOT NULL,
    description TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('pending', 'done', 'failed')),
    error       TEXT,
    attempts    BIGINT NOT NULL DEFAULT 0,
    cut_short   BOOLEAN NOT NULL DEFAULT false,
    started_at  BIGINT NOT NULL,
    finished_at BIGINT,
    checkpoint  TEXT,
    -- The planned request (JSON), for the worker that claims the query.
    request     TEXT,
    leased_by   TEXT,
    lease_until TIMESTAMPTZ,
    UNIQUE (source_id, key)
);
CREATE INDEX queries_claimable ON queries (source_id, ordinal) WHERE state = 'pending';
CREATE INDEX queries_by_lease ON queries (leased_by) WHERE leased_by IS NOT NULL;

CREATE TABLE pages (
    id         BIGSERIAL PRIMARY KEY,
    source_id  BIGINT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    query_id   BIGINT REFERENCES queries (id) ON DELETE CASCADE,
    url        TEXT NOT NULL,
    status     BIGINT NOT NULL,
    bytes      BIGINT NOT NULL,
    sha256     TEXT NOT NULL,
    fetched_at BIGINT NOT NULL,
    elapsed_ms BIGINT NOT NULL
);
CREATE INDEX pages_by_source ON pages (source_id);
CREATE INDEX pages_by_query ON pages (query_id);
CREATE INDEX pages_by_time ON pages (fetched_at);

CREATE TABLE page_bodies (
    page_id      BIGINT PRIMARY KEY REFERENCES pages (id) ON DELETE CASCADE,
    content_type TEXT,
    body         BYTEA NOT NULL
);

CREATE TABLE attribute_values (
    id        BIGSERIAL PRIMARY KEY,
    source_id BIGINT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    attribute TEXT NOT NULL,
    value     TEXT NOT NULL,
    query_key TEXT,
    words     TSVECTOR NOT NULL
);
-- A value may be longer than an index entry can be: its digest is unique.
CREATE UNIQUE INDEX attribute_values_distinct ON attribute_values (source_id, attribute, md5(value));
CREATE INDEX attribute_values_words ON attribute_values USING GIN (words);

CREATE TABLE records (
    id        BIGSERIAL PRIMARY KEY,
    source_id BIGINT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    query_key TEXT,
    page_url  TEXT NOT NULL,
    ordinal   BIGINT NOT NULL,
    fields    TEXT NOT NULL
);
CREATE UNIQUE INDEX records_distinct ON records (source_id, md5(fields));

CREATE TABLE workers (
    name       TEXT PRIMARY KEY,
    started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    seen_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- When the next request to a host may start (the pause between two).
CREATE TABLE host_turns (
    origin     TEXT PRIMARY KEY,
    next_start TIMESTAMPTZ NOT NULL
);
";

/// Longest text whose words are indexed for search (a `tsvector` holds at
/// most 1 MiB).
const MAX_INDEXED_CHARS: usize = 100_000;

/// The words of `text` as search sees them: lower case, diacritics of
/// Latin letters removed, anything but letters and digits a separator;
/// joined by single spaces.
pub fn search_words(text: &str) -> String {
    let folded: String = text
        .nfd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .take(MAX_INDEXED_CHARS)
        .collect();
    folded
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A `tsquery` matching `term`'s words as a phrase, the last one as a
/// prefix when the term ends in `*`. `None` when the term has no word.
fn ts_query(term: &str) -> Option<String> {
    let normalized = normalize(term);
    let (body, prefix) = match normalized.strip_suffix('*') {
        Some(rest) => (rest.trim_end(), true),
        None => (normalized.as_str(), false),
    };
    let words = search_words(body);
    if words.is_empty() {
        return None;
    }
    // Only letters and digits are left: nothing to quote.
    let mut query = words.split(' ').collect::<Vec<_>>().join(" <-> ");
    if prefix {
        query.push_str(":*");
    }
    Some(query)
}

/// The URL without its password, as messages show it.
fn shown(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) => {
            let _ = parsed.set_password(None);
            parsed.to_string()
        }
        Err(_) => "the PostgreSQL database".to_string(),
    }
}

fn message(error: &tokio_postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => {
            let mut text = error.to_string();
            let mut source = std::error::Error::source(error);
            while let Some(cause) = source {
                text.push_str(&format!(": {cause}"));
                source = cause.source();
            }
            text
        }
    }
}

fn pg_err(
    db: &str,
    context: impl Into<String>,
) -> impl FnOnce(tokio_postgres::Error) -> StoreError {
    let db = db.to_string();
    let context = context.into();
    move |e| StoreError::Postgres {
        db,
        context,
        message: message(&e),
    }
}

/// Prepared statements by their SQL, for one connection: a statement is
/// parsed and planned once, then sent in one round trip.
#[derive(Default)]
struct Statements(std::sync::Mutex<HashMap<&'static str, Statement>>);

impl Statements {
    async fn get<C: GenericClient + Sync>(
        &self,
        client: &C,
        sql: &'static str,
    ) -> Result<Statement, tokio_postgres::Error> {
        let known = self
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(sql)
            .cloned();
        if let Some(statement) = known {
            return Ok(statement);
        }
        let statement = client.prepare(sql).await?;
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(sql, statement.clone());
        Ok(statement)
    }
}

/// Connects to `url`; the connection is driven on a thread of its own, so
/// that the client can be used from any thread, inside an async runtime or
/// not.
fn connect(url: &str) -> Result<Client, StoreError> {
    let (sender, receiver) = std::sync::mpsc::channel();
    let target = url.to_string();
    let spawned = std::thread::Builder::new()
        .name("gather-postgres".into())
        .spawn(move || {
            let runtime = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(runtime) => runtime,
                Err(e) => {
                    let _ = sender.send(Err(format!("cannot start its runtime: {e}")));
                    return;
                }
            };
            runtime.block_on(async move {
                match tokio_postgres::connect(&target, NoTls).await {
                    Ok((client, connection)) => {
                        let _ = sender.send(Ok(client));
                        // Ends when the client is dropped.
                        let _ = connection.await;
                    }
                    Err(e) => {
                        let _ = sender.send(Err(message(&e)));
                    }
                }
            });
        });
    let failed = |message: String| StoreError::Connect {
        db: shown(url),
        message,
    };
    spawned.map_err(|e| failed(format!("cannot start a thread: {e}")))?;
    receiver
        .recv()
        .map_err(|_| failed("the connection thread ended".into()))?
        .map_err(failed)
}

/// True when `error` says the connection to the server is gone (closed,
/// broken, the server shutting down or starting up), rather than that a
/// statement failed: the work is tried again on a new connection.
fn is_lost(error: &tokio_postgres::Error) -> bool {
    if error.is_closed() {
        return true;
    }
    if let Some(code) = error.code() {
        let code = code.code();
        return code.starts_with("08") || matches!(code, "57P01" | "57P02" | "57P03");
    }
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if cause.is::<std::io::Error>() {
            return true;
        }
        source = cause.source();
    }
    false
}

/// The pauses between two attempts to reach a lost database: 100 ms,
/// doubling up to 2 s (an attempt is one refused connection: cheap, and
/// the work goes on soon after the database is back).
pub(crate) fn next_pause(pause: Duration) -> Duration {
    (pause * 2).clamp(Duration::from_millis(100), Duration::from_secs(2))
}

/// Why a connection could not be made, without the database's name.
fn unreached(error: StoreError) -> String {
    match error {
        StoreError::Connect { message, .. } => message,
        other => other.to_string(),
    }
}

/// Tells the operator that the database went away and is waited for.
fn waiting(db: &str, lost: &str, context: &str, patience: Duration) {
    tracing::warn!(
        "gatherer database {db}: {lost} while {context}; waiting up to {} s for it to come back",
        patience.as_secs()
    );
}

/// A connection with the statements prepared on it.
struct Conn {
    client: Client,
    statements: Statements,
}

impl Conn {
    fn new(client: Client) -> Conn {
        Conn {
            client,
            statements: Statements::default(),
        }
    }
}

/// The store's PostgreSQL back-end. A lost connection is made again, and
/// the work it was doing tried again, for up to [`Postgres::patience`].
pub(super) struct Postgres {
    conn: std::sync::Mutex<Conn>,
    /// The URL as given, to connect again.
    url: String,
    /// The URL without its password.
    db: String,
    path: PathBuf,
    body_budget: u64,
    bodies_dropped: u64,
    /// Writes of queries need this worker's lease.
    worker: Option<String>,
    /// How long a lost database is waited for.
    patience: Duration,
}

impl Postgres {
    /// Connects and creates or migrates the schema; with `create` false, a
    /// database without gather's schema is refused.
    pub fn connect(url: &str, create: bool) -> Result<Postgres, StoreError> {
        let db = shown(url);
        let mut store = Postgres {
            conn: std::sync::Mutex::new(Conn::new(connect(url)?)),
            url: url.to_string(),
            path: PathBuf::from(&db),
            db,
            body_budget: DEFAULT_BODY_BUDGET,
            bodies_dropped: 0,
            worker: None,
            patience: super::DEFAULT_RECONNECT,
        };
        store.migrate(create)?;
        Ok(store)
    }

    pub fn set_patience(&mut self, patience: Duration) {
        self.patience = patience;
    }

    /// Runs `op` on the connection; when the connection is lost, connects
    /// again and runs it again, pausing longer every time, until the
    /// database is back or, `patient` or not, [`Postgres::patience`] has
    /// passed ([`StoreError::Lost`]). Other errors are the database's, for
    /// `context`.
    fn call<T>(
        &self,
        context: &str,
        patient: bool,
        mut op: impl FnMut(&mut Conn) -> Result<T, tokio_postgres::Error>,
    ) -> Result<T, StoreError> {
        let started = std::time::Instant::now();
        let mut pause = Duration::ZERO;
        loop {
            let mut conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
            let lost = if conn.client.is_closed() {
                match connect(&self.url) {
                    Ok(client) => {
                        *conn = Conn::new(client);
                        tracing::warn!("gatherer database {}: connected again", self.db);
                        None
                    }
                    Err(e) => Some(unreached(e)),
                }
            } else {
                None
            };
            let lost = match lost {
                Some(lost) => lost,
                None => match op(&mut conn) {
                    Ok(value) => return Ok(value),
                    Err(e) if is_lost(&e) => message(&e),
                    Err(e) => return Err(pg_err(&self.db, context)(e)),
                },
            };
            drop(conn);
            if !patient || started.elapsed() >= self.patience {
                return Err(StoreError::Lost {
                    db: self.db.clone(),
                    context: context.to_string(),
                    waited: started.elapsed().as_secs(),
                    message: lost,
                });
            }
            if pause.is_zero() {
                waiting(&self.db, &lost, context, self.patience);
            }
            pause = next_pause(pause).min(self.patience.saturating_sub(started.elapsed()));
            std::thread::sleep(pause);
        }
    }

    fn migrate(&mut self, create: bool) -> Result<(), StoreError> {
        let db = self.db.clone();
        let e = |context: &str| pg_err(&db, context.to_string());
        let mut conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        block_on(async {
            let tx = conn
                .client
                .transaction()
                .await
                .map_err(e("starting the schema migration"))?;
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
                .await
                .map_err(e("locking the schema"))?;
            let known: bool = tx
                .query_one("SELECT to_regclass('gather_schema') IS NOT NULL", &[])
                .await
                .map_err(e("reading the schema"))?
                .get(0);
            let version: i64 = if known {
                tx.query_one("SELECT coalesce(max(version), 0) FROM gather_schema", &[])
                    .await
                    .map_err(e("reading the schema version"))?
                    .get(0)
            } else {
                let tables: i64 = tx
                    .query_one(
                        "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()",
                        &[],
                    )
                    .await
                    .map_err(e("reading the schema"))?
                    .get(0);
                if tables > 0 || !create {
                    return Err(StoreError::NotGatherDatabase {
                        path: self.path.clone(),
                    });
                }
                tx.batch_execute("CREATE TABLE gather_schema (version BIGINT NOT NULL)")
                    .await
                    .map_err(e("creating the schema"))?;
                0
            };
            if version > VERSION {
                return Err(StoreError::NewerSchema {
                    path: self.path.clone(),
                    found: version,
                    supported: VERSION,
                });
            }
            for (step, sql) in MIGRATIONS {
                if *step > version {
                    tx.batch_execute(sql)
                        .await
                        .map_err(e(&format!("migrating the schema to version {step}")))?;
                }
            }
            if version < VERSION {
                tx.execute("DELETE FROM gather_schema", &[])
                    .await
                    .map_err(e("writing the schema version"))?;
                tx.execute(
                    "INSERT INTO gather_schema (version) VALUES ($1)",
                    &[&VERSION],
                )
                .await
                .map_err(e("writing the schema version"))?;
            }
            tx.commit()
                .await
                .map_err(e("committing the schema migration"))
        })
    }

    fn rows(
        &self,
        context: &str,
        sql: &'static str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<Vec<Row>, StoreError> {
        self.call(context, true, |c| {
            block_on(async {
                let statement = c.statements.get(&c.client, sql).await?;
                c.client.query(&statement, params).await
            })
        })
    }

    fn execute(
        &self,
        context: &str,
        sql: &'static str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<u64, StoreError> {
        self.call(context, true, |c| {
            block_on(async {
                let statement = c.statements.get(&c.client, sql).await?;
                c.client.execute(&statement, params).await
            })
        })
    }

    fn count(&self, context: &str, sql: &'static str, source: SourceId) -> Result<u64, StoreError> {
        let rows = self.rows(context, sql, &[&source])?;
        Ok(rows.first().map_or(0, |r| r.get::<_, i64>(0)).max(0) as u64)
    }

    fn unknown(&self, id: SourceId) -> StoreError {
        StoreError::UnknownSource {
            path: self.path.clone(),
            id,
        }
    }

    fn check_source(&self, source: SourceId) -> Result<(), StoreError> {
        let found = self.rows(
            &format!("looking up source {source}"),
            "SELECT 1 FROM sources WHERE id = $1",
            &[&source],
        )?;
        if found.is_empty() {
            return Err(self.unknown(source));
        }
        Ok(())
    }

    pub fn set_worker(&mut self, worker: &str) {
        self.worker = Some(worker.to_string());
    }

    pub fn set_body_budget(&mut self, bytes: u64) -> Result<(), StoreError> {
        let rows = self.rows(
            "measuring the kept pages",
            "SELECT coalesce(sum(length(body)), 0)::bigint FROM page_bodies",
            &[],
        )?;
        let used = rows.first().map_or(0, |r| r.get::<_, i64>(0));
        self.body_budget = bytes.saturating_sub(used.max(0) as u64);
        Ok(())
    }

    pub fn bodies_dropped(&self) -> u64 {
        self.bodies_dropped
    }

    pub fn rules(&self, source: SourceId) -> Result<Option<String>, StoreError> {
        let rows = self.rows(
            &format!("reading the rules of source {source}"),
            "SELECT rules FROM sources WHERE id = $1",
            &[&source],
        )?;
        match rows.first() {
            Some(row) => Ok(row.get(0)),
            None => Err(self.unknown(source)),
        }
    }

    pub fn work(&self, source: SourceId) -> Result<Option<String>, StoreError> {
        let rows = self.rows(
            &format!("reading how source {source} is worked on"),
            "SELECT work FROM sources WHERE id = $1",
            &[&source],
        )?;
        match rows.first() {
            Some(row) => Ok(row.get(0)),
            None => Err(self.unknown(source)),
        }
    }

    pub fn surfaced_spec(&self, url: &str) -> Result<Option<String>, StoreError> {
        let rows = self.rows(
            &format!("reading the spec induced for {url}"),
            "SELECT surfaced_spec FROM sources WHERE url = $1",
            &[&url],
        )?;
        Ok(rows.first().and_then(|row| row.get(0)))
    }

    pub fn set_surfaced_spec(&mut self, source: SourceId, spec: &str) -> Result<(), StoreError> {
        self.execute(
            &format!("recording the spec induced for source {source}"),
            "UPDATE sources SET surfaced_spec = $2 WHERE id = $1",
            &[&source, &spec],
        )?;
        Ok(())
    }

    pub fn set_rules(&mut self, source: SourceId, rules: &str) -> Result<(), StoreError> {
        self.execute(
            &format!("recording the rules of source {source}"),
            "UPDATE sources SET rules = $2 WHERE id = $1",
            &[&source, &rules],
        )?;
        Ok(())
    }

    /// Runs `statements` (each with the source as `$1`) in one transaction.
    fn in_transaction(
        &mut self,
        context: &str,
        source: SourceId,
        statements: &[&'static str],
    ) -> Result<(), StoreError> {
        self.call(context, true, |c| {
            block_on(async {
                let tx = c.client.transaction().await?;
                for sql in statements {
                    tx.execute(*sql, &[&source]).await?;
                }
                tx.commit().await
            })
        })
    }

    pub fn forget_queries(&mut self, source: SourceId) -> Result<(), StoreError> {
        self.in_transaction(
            &format!("starting source {source} over"),
            source,
            &[
                "DELETE FROM attribute_values WHERE source_id = $1
                   AND query_key IN (SELECT key FROM queries WHERE source_id = $1)",
                "DELETE FROM queries WHERE source_id = $1",
            ],
        )
    }

    pub fn reopen_queries(&mut self, source: SourceId) -> Result<(), StoreError> {
        self.in_transaction(
            &format!("reopening the queries of source {source}"),
            source,
            &[
                FORGET_VALUES,
                FORGET_RECORDS,
                "UPDATE queries SET state = 'pending', checkpoint = NULL
                   WHERE source_id = $1 AND state = 'done'",
            ],
        )
    }

    pub fn pages_not_kept(&self, source: SourceId) -> Result<u64, StoreError> {
        self.count(
            &format!("counting the kept pages of source {source}"),
            "SELECT count(*) FROM pages p JOIN queries q ON q.id = p.query_id
             LEFT JOIN page_bodies b ON b.page_id = p.id
             WHERE p.source_id = $1 AND q.state = 'done' AND b.page_id IS NULL",
            source,
        )
    }

    pub fn kept_pages(&self, source: SourceId) -> Result<Vec<KeptPage>, StoreError> {
        let rows = self.rows(
            &format!("reading the kept pages of source {source}"),
            "SELECT q.key, p.url, b.content_type, b.body
             FROM pages p JOIN queries q ON q.id = p.query_id
             JOIN page_bodies b ON b.page_id = p.id
             WHERE p.source_id = $1 AND q.state = 'done'
             ORDER BY p.id",
            &[&source],
        )?;
        rows.iter()
            .map(|row| {
                let url: String = row.get(1);
                let packed: Vec<u8> = row.get(3);
                let body = unpack(&packed).map_err(|e| StoreError::Corrupt {
                    path: self.path.clone(),
                    message: format!("the kept body of {url} does not decompress: {e}"),
                })?;
                Ok(KeptPage {
                    query: row.get(0),
                    url,
                    content_type: row.get(2),
                    body,
                })
            })
            .collect()
    }

    pub fn replace_query_values(
        &mut self,
        source: SourceId,
        by_query: &[(String, IndexFragment, Vec<Record>)],
    ) -> Result<u64, StoreError> {
        let context = format!("replacing the values of source {source}");
        self.call(&context, true, |c| {
            let Conn { client, statements } = c;
            block_on(async {
                let tx = client.transaction().await?;
                tx.execute(FORGET_VALUES, &[&source]).await?;
                tx.execute(FORGET_RECORDS, &[&source]).await?;
                let mut added = 0;
                for (key, fragment, records) in by_query {
                    added += insert_values(statements, &tx, source, Some(key), fragment).await?;
                    insert_records(statements, &tx, source, key, records).await?;
                }
                tx.commit().await?;
                Ok(added)
            })
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn upsert_source(&mut self, info: &SourceInfo) -> Result<SourceId, StoreError> {
        let words = search_words(&format!(
            "{} {}",
            info.title.as_deref().unwrap_or(""),
            info.text.as_deref().unwrap_or("")
        ));
        let rows = self.rows(
            &format!("storing source {}", info.url),
            "INSERT INTO sources (url, kind, title, description, keywords, text, updated_at, words)
             VALUES ($1, $2, $3, $4, $5, $6, $7, to_tsvector('simple', $8))
             ON CONFLICT (url) DO UPDATE SET
               kind = excluded.kind, title = excluded.title,
               description = excluded.description, keywords = excluded.keywords,
               text = excluded.text, updated_at = excluded.updated_at, words = excluded.words
             RETURNING id",
            &[
                &info.url,
                &info.kind.as_str(),
                &info.title,
                &info.description,
                &info.keywords,
                &info.text,
                &now(),
                &words,
            ],
        )?;
        Ok(rows.first().map_or(0, |r| r.get(0)))
    }

    pub fn finished_queries(&self, source: SourceId) -> Result<HashSet<String>, StoreError> {
        let rows = self.rows(
            &format!("reading the done queries of source {source}"),
            "SELECT key FROM queries WHERE source_id = $1 AND state = 'done'",
            &[&source],
        )?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    pub fn answered_after(
        &self,
        source: SourceId,
        after: (i64, i64),
        limit: usize,
    ) -> Result<Vec<super::AnsweredAt>, StoreError> {
        let limit = limit as i64;
        let rows = self.rows(
            &format!("reading the answers of source {source}"),
            "SELECT ordinal, id, key, query_values, answer, parent FROM queries
             WHERE source_id = $1 AND state = 'done'
               AND answer IS NOT NULL AND query_values IS NOT NULL
               AND (ordinal, id) > ($2, $3)
             ORDER BY ordinal, id LIMIT $4",
            &[&source, &after.0, &after.1, &limit],
        )?;
        Ok(rows
            .iter()
            .map(|r| ((r.get(0), r.get(1)), answered(r, 2)))
            .collect())
    }

    pub fn answered_among(
        &self,
        source: SourceId,
        keys: &[String],
    ) -> Result<Vec<AnsweredQuery>, StoreError> {
        let rows = self.rows(
            &format!("reading the answers of source {source}"),
            "SELECT key, query_values, answer, parent FROM queries
             WHERE source_id = $1 AND key = ANY($2) AND state = 'done'
               AND answer IS NOT NULL AND query_values IS NOT NULL",
            &[&source, &keys],
        )?;
        let mut by_key: HashMap<String, AnsweredQuery> =
            rows.iter().map(|r| (r.get(0), answered(r, 0))).collect();
        Ok(keys.iter().filter_map(|k| by_key.remove(k)).collect())
    }

    pub fn finished_among(
        &self,
        source: SourceId,
        keys: &[String],
    ) -> Result<HashSet<String>, StoreError> {
        let rows = self.rows(
            &format!("reading the done queries of source {source}"),
            "SELECT key FROM queries WHERE source_id = $1 AND key = ANY($2) AND state = 'done'",
            &[&source, &keys],
        )?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    pub fn finished_count(&self, source: SourceId) -> Result<u64, StoreError> {
        let rows = self.rows(
            &format!("counting the done queries of source {source}"),
            "SELECT count(*) FROM queries WHERE source_id = $1 AND state = 'done'",
            &[&source],
        )?;
        Ok(rows.first().map_or(0, |r| r.get::<_, i64>(0).max(0) as u64))
    }

    pub fn query_values(&self, source: SourceId) -> Result<Vec<String>, StoreError> {
        let rows = self.rows(
            &format!("reading the query values of source {source}"),
            "SELECT query_values FROM queries WHERE source_id = $1 AND query_values IS NOT NULL",
            &[&source],
        )?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    pub fn query_counts(&self, source: SourceId) -> Result<(u64, u64), StoreError> {
        let rows = self.rows(
            &format!("counting the queries of source {source}"),
            "SELECT count(*), count(parent) FROM queries WHERE source_id = $1",
            &[&source],
        )?;
        let n = |i| rows.first().map_or(0, |r| r.get::<_, i64>(i)).max(0) as u64;
        Ok((n(0), n(1)))
    }

    pub fn values_found_by(
        &self,
        source: SourceId,
        keys: &[String],
    ) -> Result<Vec<(String, String)>, StoreError> {
        let rows = self.rows(
            &format!("reading the values of the queries of source {source}"),
            "SELECT query_key, value FROM attribute_values
             WHERE source_id = $1 AND query_key = ANY($2) ORDER BY id",
            &[&source, &keys],
        )?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    pub fn checkpoints(&self, source: SourceId) -> Result<HashMap<String, String>, StoreError> {
        let rows = self.rows(
            &format!("reading the checkpoints of source {source}"),
            "SELECT key, checkpoint, walk FROM queries
             WHERE source_id = $1 AND state != 'done' AND checkpoint IS NOT NULL",
            &[&source],
        )?;
        Ok(rows
            .iter()
            .map(|r| (r.get(0), with_links(r.get(1), walk_from_lines(r.get(2)))))
            .collect())
    }

    /// Records a query's progress or result; with `patient` false, a lost
    /// database is not waited for ([`StoreError::Lost`] at once: the caller
    /// waits without holding the store).
    pub fn record_query_new(
        &mut self,
        source: SourceId,
        outcome: &QueryOutcome,
        patient: bool,
    ) -> Result<Recorded, StoreError> {
        let context = match outcome.state {
            QueryState::Pending => format!(
                "storing the progress of query {} (source {source})",
                outcome.description
            ),
            _ => format!(
                "storing the result of query {} (source {source})",
                outcome.description
            ),
        };
        let budget = self.body_budget;
        let worker = self.worker.clone();
        let db = self.db.clone();
        let recorded = self.call(&context, patient, |c| {
            // Two workers that store overlapping values at once may
            // deadlock; PostgreSQL ends one of the two transactions, which
            // is tried again.
            let mut tries = 0;
            loop {
                tries += 1;
                match block_on(try_record_query(c, &worker, &db, budget, source, outcome)) {
                    Err(e) if tries < 5 && is_retryable(&e) => continue,
                    Err(e)
                        if e.code()
                            == Some(&tokio_postgres::error::SqlState::FOREIGN_KEY_VIOLATION) =>
                    {
                        return Ok(Err(StoreError::UnknownSource {
                            path: self.path.clone(),
                            id: source,
                        }))
                    }
                    done => return done,
                }
            }
        });
        let (recorded, budget, dropped) = recorded??;
        self.body_budget = budget;
        self.bodies_dropped += dropped;
        Ok(recorded)
    }
}

/// One attempt of [`Postgres::record_query_new`] by `worker`, in one
/// statement (so one round trip and one transaction), with `budget` bytes
/// left for kept bodies: the outer error is the database's, the inner one
/// a lease another worker holds.
async fn try_record_query(
    conn: &mut Conn,
    worker: &Option<String>,
    db: &str,
    budget: u64,
    source: SourceId,
    outcome: &QueryOutcome,
) -> Result<Result<(Recorded, u64, u64), StoreError>, tokio_postgres::Error> {
    let (mut budget, mut dropped) = (budget, 0);
    let time = now();
    let ordinal = i64::try_from(outcome.ordinal).unwrap_or(i64::MAX);
    let finished = (outcome.state != QueryState::Pending).then_some(time);
    let pages = PageRows::of(&outcome.pages, |kept| {
        let packed = kept.packed();
        if (packed.len() as u64) <= budget {
            budget -= packed.len() as u64;
            Some(packed)
        } else {
            dropped += 1;
            None
        }
    });
    let values = ValueRows::of(&outcome.fragment);
    let records = RecordRows::of(&outcome.records);
    let record = conn.statements.get(&conn.client, RECORD_QUERY).await?;
    let row = conn
        .client
        .query_one(
            &record,
            &[
                &source,
                &outcome.key,
                &ordinal,
                &outcome.description,
                &outcome.state.as_str(),
                &outcome.error,
                &i64::from(outcome.attempts),
                &time,
                &finished,
                &outcome.cut_short,
                &outcome.checkpoint,
                worker,
                &outcome.fresh,
                &outcome.answer,
                &outcome.values,
                &outcome.parent,
                &outcome.learned,
                &pages.urls,
                &pages.statuses,
                &pages.bytes,
                &pages.sha256,
                &pages.fetched_at,
                &pages.elapsed_ms,
                &pages.content_types,
                &pages.bodies,
                &values.attributes,
                &values.values,
                &values.words,
                &records.pages,
                &records.ordinals,
                &records.fields,
                &walk_lines(&outcome.walk_links),
            ],
        )
        .await?;
    if row.get::<_, Option<i64>>(0).is_none() {
        return Ok(Err(StoreError::LeaseLost {
            db: db.to_string(),
            key: outcome.key.clone(),
        }));
    }
    let new_values = row.get::<_, i64>(1).max(0) as u64;
    let new_records = records.new_ones(row.get(2));
    Ok(Ok((
        Recorded {
            new_values,
            new_records,
        },
        budget,
        dropped,
    )))
}

impl Postgres {
    pub fn record_values(
        &mut self,
        source: SourceId,
        provenance: Option<&str>,
        fragment: &IndexFragment,
    ) -> Result<u64, StoreError> {
        self.check_source(source)?;
        let context = format!("recording the values of source {source}");
        self.call(&context, true, |c| {
            let Conn { client, statements } = c;
            block_on(async {
                let tx = client.transaction().await?;
                let added = insert_values(statements, &tx, source, provenance, fragment).await?;
                tx.commit().await?;
                Ok(added)
            })
        })
    }

    pub fn record_page(&mut self, source: SourceId, page: &PageRecord) -> Result<(), StoreError> {
        self.check_source(source)?;
        let context = format!("recording page {} of source {source}", page.url);
        self.call(&context, true, |c| {
            let Conn { client, statements } = c;
            block_on(async {
                let tx = client.transaction().await?;
                tx.execute(
                    "DELETE FROM pages WHERE source_id = $1 AND query_id IS NULL AND url = $2",
                    &[&source, &page.url],
                )
                .await?;
                insert_page(statements, &tx, source, None, page, None).await?;
                tx.commit().await
            })
        })
    }

    pub fn set_incomplete(
        &mut self,
        source: SourceId,
        reason: Option<&str>,
    ) -> Result<(), StoreError> {
        let changed = self.execute(
            &format!("marking source {source}"),
            "UPDATE sources SET incomplete = $2, incomplete_reason = $3 WHERE id = $1",
            &[&source, &reason.is_some(), &reason],
        )?;
        if changed == 0 {
            return Err(self.unknown(source));
        }
        Ok(())
    }

    /// Puts the source's plan into the database (see [`super::Store::plan_queries`]).
    pub fn plan_queries(
        &mut self,
        source: SourceId,
        work: &str,
        queries: impl Iterator<Item = PlannedQuery>,
    ) -> Result<u64, StoreError> {
        let context = format!("planning the queries of source {source}");
        let time = now();
        self.execute(
            &context,
            "UPDATE sources SET work = $2 WHERE id = $1",
            &[&source, &work],
        )?;
        // In batches, each sent on its own (and again when a lost
        // connection cut it): the plan is never held whole, so a plan of a
        // million queries takes the memory of one batch. Planning a query
        // twice leaves it as it is, so a plan cut off half-way is completed
        // by planning it again.
        let mut queries = queries.peekable();
        let mut planned = 0;
        while queries.peek().is_some() {
            let mut seen = HashSet::new();
            let mut batch = PlanBatch::default();
            for query in queries.by_ref() {
                if seen.insert(query.key.clone()) {
                    batch.push(query);
                }
                if batch.keys.len() >= crate::store::ANSWER_BATCH {
                    break;
                }
            }
            let b = &batch;
            planned += self.call(&context, true, |c| {
                block_on(async {
                    let statement = c.statements.get(&c.client, PLAN_QUERIES).await?;
                    c.client
                        .execute(
                            &statement,
                            &[
                                &source,
                                &time,
                                &b.keys,
                                &b.ordinals,
                                &b.descriptions,
                                &b.requests,
                                &b.values,
                                &b.parents,
                                &b.learned,
                            ],
                        )
                        .await
                })
            })?;
        }
        Ok(planned)
    }

    pub fn stats(&self, source: SourceId) -> Result<SourceStats, StoreError> {
        let context = format!("counting for source {source}");
        let rows = self.rows(
            &context,
            "SELECT CASE WHEN incomplete THEN coalesce(incomplete_reason, '') END,
                    (SELECT count(*) FROM queries WHERE source_id = $1 AND state = 'done'),
                    (SELECT count(*) FROM queries WHERE source_id = $1 AND state = 'failed'),
                    (SELECT count(*) FROM queries WHERE source_id = $1 AND state = 'done' AND cut_short),
                    (SELECT count(*) FROM pages WHERE source_id = $1),
                    (SELECT coalesce(sum(bytes), 0)::bigint FROM pages WHERE source_id = $1),
                    (SELECT count(*) FROM records WHERE source_id = $1)
             FROM sources WHERE id = $1",
            &[&source],
        )?;
        let Some(row) = rows.first() else {
            return Err(self.unknown(source));
        };
        let n = |i: usize| row.get::<_, i64>(i).max(0) as u64;
        let values_per_attribute = self
            .rows(
                &context,
                "SELECT attribute, count(*) FROM attribute_values WHERE source_id = $1 GROUP BY attribute",
                &[&source],
            )?
            .iter()
            .map(|r| (r.get::<_, String>(0), r.get::<_, i64>(1) as u64))
            .collect();
        Ok(SourceStats {
            queries_done: n(1),
            queries_failed: n(2),
            queries_cut_short: n(3),
            pages: n(4),
            bytes: n(5),
            values_per_attribute,
            records: n(6),
            incomplete: row.get(0),
        })
    }

    pub fn sources(&self) -> Result<Vec<SourceRecord>, StoreError> {
        let rows = self.rows(
            "reading the sources",
            "SELECT id, url, kind, title, description, keywords, text, updated_at,
                    CASE WHEN incomplete THEN coalesce(incomplete_reason, '') END
             FROM sources ORDER BY url COLLATE \"C\"",
            &[],
        )?;
        rows.iter()
            .map(|r| {
                let url: String = r.get(1);
                let kind: String = r.get(2);
                let kind = SourceKind::parse(&kind).ok_or_else(|| StoreError::Corrupt {
                    path: self.path.clone(),
                    message: format!("source {url} has unknown kind {kind:?}"),
                })?;
                Ok(SourceRecord {
                    id: r.get(0),
                    info: SourceInfo {
                        url,
                        kind,
                        title: r.get(3),
                        description: r.get(4),
                        keywords: r.get(5),
                        text: r.get(6),
                    },
                    updated_at: r.get(7),
                    incomplete: r.get(8),
                })
            })
            .collect()
    }

    pub fn values(&self, source: SourceId) -> Result<BTreeMap<String, Vec<String>>, StoreError> {
        let rows = self.rows(
            &format!("reading the values of source {source}"),
            "SELECT attribute, value FROM attribute_values WHERE source_id = $1
             ORDER BY attribute COLLATE \"C\", value COLLATE \"C\"",
            &[&source],
        )?;
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for row in &rows {
            out.entry(row.get(0)).or_default().push(row.get(1));
        }
        Ok(out)
    }

    pub fn attribute_values(
        &self,
        source: SourceId,
        attribute: &str,
    ) -> Result<Vec<String>, StoreError> {
        let rows = self.rows(
            &format!("reading the {attribute} values of source {source}"),
            "SELECT value FROM attribute_values WHERE source_id = $1 AND attribute = $2
             ORDER BY value COLLATE \"C\"",
            &[&source, &attribute],
        )?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    pub fn record_count(&self, source: SourceId) -> Result<u64, StoreError> {
        self.count(
            &format!("counting the records of source {source}"),
            "SELECT count(*) FROM records WHERE source_id = $1",
            source,
        )
    }

    pub fn each_record<E: From<StoreError>>(
        &self,
        mut each: impl FnMut(StoredRecord) -> Result<(), E>,
    ) -> Result<(), E> {
        let rows = self.rows(
            "reading the records",
            "SELECT s.url, r.query_key, q.description, r.page_url, r.ordinal, r.fields
             FROM records r
             JOIN sources s ON s.id = r.source_id
             LEFT JOIN queries q ON q.source_id = r.source_id AND q.key = r.query_key
             ORDER BY s.url COLLATE \"C\", r.id",
            &[],
        )?;
        for row in rows {
            let source: String = row.get(0);
            let fields: String = row.get(5);
            let fields = Fields::from_json(&fields).map_err(|err| StoreError::Corrupt {
                path: self.path.clone(),
                message: format!("a record of {source} has unreadable fields: {err}"),
            })?;
            each(StoredRecord {
                source,
                query_key: row.get(1),
                query: row.get(2),
                record: Record {
                    page: row.get(3),
                    ordinal: row.get::<_, i64>(4).max(0) as u64,
                    fields,
                },
            })?;
        }
        Ok(())
    }

    pub fn search(&self, term: &str) -> Result<Vec<Hit>, StoreError> {
        let Some(query) = ts_query(term) else {
            return Ok(Vec::new());
        };
        let values = self.rows(
            &format!("searching for {term:?}"),
            "SELECT s.url, v.attribute, v.value, v.query_key, q.description
             FROM attribute_values v
             JOIN sources s ON s.id = v.source_id
             LEFT JOIN queries q ON q.source_id = v.source_id AND q.key = v.query_key
             WHERE v.words @@ to_tsquery('simple', $1)
             ORDER BY s.url COLLATE \"C\", v.attribute COLLATE \"C\", v.value COLLATE \"C\"",
            &[&query],
        )?;
        let texts = self.rows(
            &format!("searching the texts for {term:?}"),
            "SELECT url, ts_headline('simple', concat_ws(' ', title, text), to_tsquery('simple', $1),
                                     'StartSel=\"\", StopSel=\"\", MaxWords=12, MinWords=4')
             FROM sources WHERE words @@ to_tsquery('simple', $1)
             ORDER BY url COLLATE \"C\"",
            &[&query],
        )?;
        let hit = |source: String, attribute: String, value: String| Hit {
            term: term.to_string(),
            source,
            attribute,
            value,
            provenance: None,
            query: None,
        };
        let mut hits: Vec<Hit> = values
            .iter()
            .map(|r| Hit {
                provenance: r.get(3),
                query: r.get(4),
                ..hit(r.get(0), r.get(1), r.get(2))
            })
            .collect();
        hits.extend(
            texts
                .iter()
                .map(|r| hit(r.get(0), TEXT_ATTRIBUTE.to_string(), r.get(1))),
        );
        Ok(hits)
    }

    pub fn status(&self) -> Result<Status, StoreError> {
        let sources = self
            .rows(
                "reading the status",
                "SELECT s.url, s.kind,
                        count(q.id) FILTER (WHERE q.state = 'pending' AND (q.lease_until >= now() AND q.leased_by NOT IN (SELECT name FROM workers_gone)) IS NOT TRUE),
                        count(q.id) FILTER (WHERE q.state = 'pending' AND q.lease_until >= now() AND q.leased_by NOT IN (SELECT name FROM workers_gone)),
                        count(q.id) FILTER (WHERE q.state = 'done'),
                        count(q.id) FILTER (WHERE q.state = 'failed'),
                        count(q.id) FILTER (WHERE q.state = 'done' AND q.cut_short),
                        (SELECT count(*) FROM pages p WHERE p.source_id = s.id)
                 FROM sources s LEFT JOIN queries q ON q.source_id = s.id
                 GROUP BY s.id ORDER BY s.url COLLATE \"C\"",
                &[],
            )?
            .iter()
            .map(|r| {
                let n = |i: usize| r.get::<_, i64>(i).max(0) as u64;
                StatusSource {
                    url: r.get(0),
                    kind: r.get(1),
                    pending: n(2),
                    leased: n(3),
                    done: n(4),
                    failed: n(5),
                    truncated: n(6),
                    pages: n(7),
                }
            })
            .collect();
        let workers = self.rows(
            "reading the workers",
            "SELECT name, plans, seen_at > now() - make_interval(secs => $1)
                                 AND name NOT IN (SELECT name FROM workers_gone)
             FROM workers WHERE seen_at > now() - interval '1 hour'
             ORDER BY name",
            &[&(WORKER_ALIVE_SECONDS as f64)],
        )?;
        let (alive, dead): (Vec<&Row>, Vec<&Row>) =
            workers.iter().partition(|r| r.get::<_, bool>(2));
        let workers_alive = alive.iter().map(|r| r.get(0)).collect();
        let workers_dead = dead.iter().map(|r| r.get(0)).collect();
        let planners_alive = alive
            .iter()
            .filter(|r| r.get::<_, bool>(1))
            .map(|r| r.get(0))
            .collect();
        let host_waits = self.host_waits_since(None)?;
        let recent = self.count(
            "counting the recent pages",
            "SELECT count(*) FROM pages WHERE fetched_at > $1",
            now() - 60,
        )?;
        Ok(Status {
            sources,
            workers_alive,
            workers_dead,
            planners_alive,
            requests_per_second: recent as f64 / 60.0,
            host_waits,
        })
    }

    /// The hosts whose request slots the workers waited for, at least a
    /// second in all, as the workers told since `since` (a time in seconds
    /// since 1970), or in the last ten minutes.
    pub fn host_waits_since(&self, since: Option<f64>) -> Result<Vec<HostWait>, StoreError> {
        let rows = self.rows(
            "reading how long the workers waited for the hosts",
            HOST_WAITS,
            &[&since],
        )?;
        Ok(rows.iter().map(host_wait).collect())
    }
}

/// A deadlock or a serialization failure: the transaction can be tried again.
fn is_retryable(error: &tokio_postgres::Error) -> bool {
    use tokio_postgres::error::SqlState;
    error.code().is_some_and(|c| {
        *c == SqlState::T_R_DEADLOCK_DETECTED || *c == SqlState::T_R_SERIALIZATION_FAILURE
    })
}

/// Inserts a page and, when given, its kept body (content type, packed),
/// in one statement.
async fn insert_page(
    st: &Statements,
    tx: &Transaction<'_>,
    source: SourceId,
    query: Option<i64>,
    page: &PageRecord,
    body: Option<(Option<&str>, Vec<u8>)>,
) -> Result<(), tokio_postgres::Error> {
    let bytes = i64::try_from(page.bytes).unwrap_or(i64::MAX);
    let elapsed = i64::try_from(page.elapsed_ms).unwrap_or(i64::MAX);
    let insert = st
        .get(
            tx,
            "WITH p AS (
               INSERT INTO pages (source_id, query_id, url, status, bytes, sha256, fetched_at, elapsed_ms)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id)
             INSERT INTO page_bodies (page_id, content_type, body)
             SELECT id, $9, $10 FROM p WHERE $10::bytea IS NOT NULL",
        )
        .await?;
    let (content_type, packed) = match body {
        Some((content_type, packed)) => (content_type, Some(packed)),
        None => (None, None),
    };
    tx.execute(
        &insert,
        &[
            &source,
            &query,
            &page.url,
            &i64::from(page.status),
            &bytes,
            &page.sha256,
            &page.fetched_at,
            &elapsed,
            &content_type,
            &packed,
        ],
    )
    .await?;
    Ok(())
}

/// Removes the values the source's queries found (`$1`: the source).
const FORGET_VALUES: &str = "DELETE FROM attribute_values WHERE source_id = $1
   AND query_key IN (SELECT key FROM queries WHERE source_id = $1)";

/// Removes the records the source's queries found (`$1`: the source).
const FORGET_RECORDS: &str = "DELETE FROM records WHERE source_id = $1
   AND query_key IN (SELECT key FROM queries WHERE source_id = $1)";

/// Records a query's progress in one statement: the query's row (`$1` to
/// `$17`: its source, key, ordinal, description, state, error, attempts,
/// the time, when it finished, whether it was cut short, its checkpoint,
/// the worker whose lease it needs, whether it started over, its answer,
/// element values, parent and whether it was learned), its pages (`$18` to
/// `$25`, [`PageRows`]) with their kept bodies, its values (`$26` to
/// `$28`, [`ValueRows`]) and records (`$29` to `$31`, [`RecordRows`]),
/// and the links its walk found since it was last recorded (`$32`, one a
/// line).
/// Returns the query's id (`NULL`: another worker holds its lease, and
/// nothing was written), how many values were new, and the fields of the
/// new records.
const RECORD_QUERY: &str = "WITH q AS (
     INSERT INTO queries (source_id, key, ordinal, description, state, error, attempts,
                          started_at, finished_at, cut_short, checkpoint,
                          answer, query_values, parent, learned, walk)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $14, $15, $16, $17,
             CASE WHEN $11::text IS NOT NULL THEN $32::text END)
     ON CONFLICT (source_id, key) DO UPDATE SET
       ordinal = excluded.ordinal, description = excluded.description,
       state = excluded.state, error = excluded.error, cut_short = excluded.cut_short,
       attempts = queries.attempts + excluded.attempts,
       finished_at = excluded.finished_at, checkpoint = excluded.checkpoint,
       answer = coalesce(excluded.answer, queries.answer),
       query_values = coalesce(excluded.query_values, queries.query_values),
       parent = coalesce(excluded.parent, queries.parent),
       -- The walk's links: added to, or gone with a walk started over or ended.
       walk = CASE WHEN excluded.checkpoint IS NULL THEN NULL
                   WHEN $13 THEN excluded.walk
                   ELSE coalesce(queries.walk, '') || excluded.walk END,
       leased_by = CASE WHEN excluded.state = 'pending' THEN queries.leased_by END,
       lease_until = CASE WHEN excluded.state = 'pending' THEN queries.lease_until END
     -- A worker writes a query only while it holds its lease.
     WHERE $12::text IS NULL OR (queries.leased_by = $12 AND queries.state <> 'done')
     RETURNING id),
   -- A query started over replaces the pages of its earlier attempt (the
   -- statement's snapshot does not see the pages it inserts).
   earlier AS (DELETE FROM pages WHERE $13 AND query_id IN (SELECT id FROM q)),
   -- The pages' ids are drawn in their order, so that the bodies can name them.
   page_rows AS MATERIALIZED (
     SELECT nextval('pages_id_seq') AS id, given.*
     FROM (SELECT q.id AS query_id, u, s, b, h, f, e, ct, body
           FROM q, unnest($18::text[], $19::bigint[], $20::bigint[], $21::text[], $22::bigint[],
                          $23::bigint[], $24::text[], $25::bytea[])
                   WITH ORDINALITY AS t(u, s, b, h, f, e, ct, body, n)
           ORDER BY n) AS given),
   new_pages AS (
     INSERT INTO pages (id, source_id, query_id, url, status, bytes, sha256, fetched_at, elapsed_ms)
     SELECT id, $1, query_id, u, s, b, h, f, e FROM page_rows ORDER BY id),
   new_bodies AS (
     INSERT INTO page_bodies (page_id, content_type, body)
     SELECT id, ct, body FROM page_rows WHERE body IS NOT NULL),
   new_values AS (
     INSERT INTO attribute_values (source_id, attribute, value, query_key, words)
     SELECT $1, a, v, $2, to_tsvector('simple', w)
     FROM q, unnest($26::text[], $27::text[], $28::text[]) AS t(a, v, w)
     ON CONFLICT (source_id, attribute, md5(value)) DO NOTHING
     RETURNING 1),
   new_records AS (
     INSERT INTO records (source_id, query_key, page_url, ordinal, fields)
     SELECT $1, $2, p, o, f
     FROM q, unnest($29::text[], $30::bigint[], $31::text[]) WITH ORDINALITY AS t(p, o, f, n)
     ORDER BY n
     ON CONFLICT (source_id, md5(fields)) DO NOTHING
     RETURNING fields)
 SELECT (SELECT id FROM q), (SELECT count(*) FROM new_values),
        coalesce((SELECT array_agg(fields) FROM new_records), '{}')";

/// A walk's links as the `walk` column holds them: one a line (a link is
/// a URL or `seen ` and a URL, which hold no line break).
fn walk_lines(links: &[String]) -> String {
    links.iter().map(|link| format!("{link}\n")).collect()
}

/// The links of a `walk` column, in order.
fn walk_from_lines(walk: Option<String>) -> Vec<String> {
    walk.map(|w| w.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

/// A query's pages as statement parameters, with the kept bodies (packed)
/// the budget allows.
struct PageRows<'a> {
    urls: Vec<&'a str>,
    statuses: Vec<i64>,
    bytes: Vec<i64>,
    sha256: Vec<&'a str>,
    fetched_at: Vec<i64>,
    elapsed_ms: Vec<i64>,
    content_types: Vec<Option<&'a str>>,
    bodies: Vec<Option<&'a [u8]>>,
}

impl<'a> PageRows<'a> {
    /// `keep` gives a kept body as written, or `None` when it is not kept.
    fn of(
        pages: &'a [PageRecord],
        mut keep: impl FnMut(&'a KeptBody) -> Option<&'a [u8]>,
    ) -> PageRows<'a> {
        let n = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        let mut rows = PageRows {
            urls: Vec::with_capacity(pages.len()),
            statuses: Vec::with_capacity(pages.len()),
            bytes: Vec::with_capacity(pages.len()),
            sha256: Vec::with_capacity(pages.len()),
            fetched_at: Vec::with_capacity(pages.len()),
            elapsed_ms: Vec::with_capacity(pages.len()),
            content_types: Vec::with_capacity(pages.len()),
            bodies: Vec::with_capacity(pages.len()),
        };
        for page in pages {
            let body = page.kept.as_ref().and_then(&mut keep);
            rows.content_types.push(
                body.as_ref()
                    .and(page.kept.as_ref())
                    .and_then(|k| k.content_type.as_deref()),
            );
            rows.bodies.push(body);
            rows.urls.push(&page.url);
            rows.statuses.push(i64::from(page.status));
            rows.bytes.push(n(page.bytes));
            rows.sha256.push(&page.sha256);
            rows.fetched_at.push(page.fetched_at);
            rows.elapsed_ms.push(n(page.elapsed_ms));
        }
        rows
    }
}

/// A fragment's values as statement parameters: attributes, values and
/// their search words, sorted, so that two workers storing the same values
/// take their locks in the same order.
#[derive(Default)]
struct ValueRows {
    attributes: Vec<String>,
    values: Vec<String>,
    words: Vec<String>,
}

impl ValueRows {
    fn of(fragment: &IndexFragment) -> ValueRows {
        let mut pairs: Vec<(String, String)> = Vec::new();
        // A fragment's values are normalized and not empty already.
        for (attribute, list) in fragment.iter() {
            for value in list {
                pairs.push((attribute.to_string(), value.clone()));
            }
        }
        pairs.sort();
        pairs.dedup();
        let words = pairs.iter().map(|(_, v)| search_words(v)).collect();
        let (attributes, values) = pairs.into_iter().unzip();
        ValueRows {
            attributes,
            values,
            words,
        }
    }
}

/// Inserts the values of `$3, $4, $5` ([`ValueRows`]) that are new for
/// the source `$1`, with the provenance `$2`.
const INSERT_VALUES: &str =
    "INSERT INTO attribute_values (source_id, attribute, value, query_key, words)
     SELECT $1, a, v, $2, to_tsvector('simple', w)
     FROM unnest($3::text[], $4::text[], $5::text[]) AS t(a, v, w)
     ON CONFLICT (source_id, attribute, md5(value)) DO NOTHING";

/// Records as statement parameters: pages, ordinals, fields (JSON).
struct RecordRows<'a> {
    pages: Vec<&'a str>,
    ordinals: Vec<i64>,
    fields: Vec<String>,
}

impl RecordRows<'_> {
    fn of(records: &[Record]) -> RecordRows<'_> {
        RecordRows {
            pages: records.iter().map(|r| r.page.as_str()).collect(),
            ordinals: records
                .iter()
                .map(|r| i64::try_from(r.ordinal).unwrap_or(i64::MAX))
                .collect(),
            fields: records.iter().map(|r| r.fields.to_json()).collect(),
        }
    }

    /// The records whose fields are among `inserted`, in their order.
    fn new_ones(&self, inserted: Vec<String>) -> Vec<usize> {
        let mut inserted: HashSet<String> = inserted.into_iter().collect();
        (0..self.fields.len())
            .filter(|&i| inserted.remove(&self.fields[i]))
            .collect()
    }
}

/// Inserts the records of `$3, $4, $5` ([`RecordRows`]) the source `$1`
/// does not hold yet, in their order, found by the query `$2`; returns
/// their fields.
const INSERT_RECORDS: &str = "INSERT INTO records (source_id, query_key, page_url, ordinal, fields)
     SELECT $1, $2, p, o, f
     FROM unnest($3::text[], $4::bigint[], $5::text[]) WITH ORDINALITY AS t(p, o, f, n)
     ORDER BY n
     ON CONFLICT (source_id, md5(fields)) DO NOTHING
     RETURNING fields";

/// Inserts the fragment's values that are new for the source, in one
/// statement; returns how many were new.
async fn insert_values(
    st: &Statements,
    tx: &Transaction<'_>,
    source: SourceId,
    provenance: Option<&str>,
    fragment: &IndexFragment,
) -> Result<u64, tokio_postgres::Error> {
    let rows = ValueRows::of(fragment);
    if rows.values.is_empty() {
        return Ok(0);
    }
    let insert = st.get(tx, INSERT_VALUES).await?;
    tx.execute(
        &insert,
        &[
            &source,
            &provenance,
            &rows.attributes,
            &rows.values,
            &rows.words,
        ],
    )
    .await
}

/// Inserts the records the source does not hold yet, in their order;
/// returns their positions in `records`.
async fn insert_records(
    st: &Statements,
    tx: &Transaction<'_>,
    source: SourceId,
    query_key: &str,
    records: &[Record],
) -> Result<Vec<usize>, tokio_postgres::Error> {
    if records.is_empty() {
        return Ok(Vec::new());
    }
    let rows = RecordRows::of(records);
    let insert = st.get(tx, INSERT_RECORDS).await?;
    let inserted = tx
        .query(
            &insert,
            &[
                &source,
                &query_key,
                &rows.pages,
                &rows.ordinals,
                &rows.fields,
            ],
        )
        .await?;
    Ok(rows.new_ones(inserted.iter().map(|r| r.get(0)).collect()))
}

/// A query a worker claimed from the shared plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    pub source: SourceId,
    /// The query as it was planned.
    pub query: PlannedQuery,
    /// Where the walk of a worker that died stood.
    pub checkpoint: Option<String>,
}

/// Puts planned queries (`$3` to `$9`, [`PlanBatch`]) of the source `$1`
/// into the plan, started at `$2`.
const PLAN_QUERIES: &str =
    "INSERT INTO queries (source_id, key, ordinal, description, state, started_at,
                                          request, query_values, parent, learned)
                     SELECT $1, k, o, d, 'pending', $2, r, v, p, l
                     FROM unnest($3::text[], $4::bigint[], $5::text[], $6::text[],
                                 $7::text[], $8::text[], $9::bool[]) AS t(k, o, d, r, v, p, l)
                     ON CONFLICT (source_id, key) DO UPDATE SET
                       request = coalesce(queries.request, excluded.request),
                       query_values = coalesce(queries.query_values, excluded.query_values),
                       parent = coalesce(queries.parent, excluded.parent),
                       learned = queries.learned OR excluded.learned,
                       -- A failed query planned again is sent again.
                       state = CASE WHEN queries.state = 'failed' THEN 'pending'
                                    ELSE queries.state END,
                       leased_by = CASE WHEN queries.state = 'failed' THEN NULL
                                        ELSE queries.leased_by END,
                       lease_until = CASE WHEN queries.state = 'failed' THEN NULL
                                          ELSE queries.lease_until END
                     WHERE queries.request IS NULL OR queries.state = 'failed'";

/// An answered query from the columns key, query_values, answer, parent
/// starting at `at`.
fn answered(r: &Row, at: usize) -> AnsweredQuery {
    AnsweredQuery {
        key: r.get(at),
        values: r.get(at + 1),
        answer: r.get(at + 2),
        parent: r.get(at + 3),
    }
}

/// Planned queries on their way into the database, a column each.
#[derive(Default)]
struct PlanBatch {
    keys: Vec<String>,
    ordinals: Vec<i64>,
    descriptions: Vec<String>,
    requests: Vec<String>,
    values: Vec<Option<String>>,
    parents: Vec<Option<String>>,
    learned: Vec<bool>,
}

impl PlanBatch {
    fn push(&mut self, query: PlannedQuery) {
        self.keys.push(query.key);
        self.ordinals
            .push(i64::try_from(query.ordinal).unwrap_or(i64::MAX));
        self.descriptions.push(query.description);
        self.requests.push(query.request);
        self.values.push(query.values);
        self.parents.push(query.parent);
        self.learned.push(query.learned);
    }
}

/// What a worker with nothing to claim waits for ([`SharedPlan::others`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Others {
    /// Pending queries other live workers hold: taken over should their
    /// worker die.
    pub held: u64,
    /// Live planners (`gather URL --db postgres://…`) other than this
    /// process: they may still add queries (a new source, refinements,
    /// learned words).
    pub planners: u64,
    /// The database holds a plan at all.
    pub planned: bool,
    /// Live workers other than this process, planners included.
    pub workers: u64,
}

/// The workers' side of a PostgreSQL gatherer database: leases on the
/// queries of the shared plan, the workers' heartbeats, and the
/// politeness of every provider host. Cheap to clone; clones share the
/// connection, which is made again when it is lost (for up to the
/// patience given to [`SharedPlan::connect_patient`]).
#[derive(Clone)]
pub struct SharedPlan {
    inner: std::sync::Arc<Shared>,
}

struct Shared {
    conn: std::sync::Mutex<std::sync::Arc<SharedConn>>,
    /// Held while a lost connection is made again, so that it is made once.
    reconnecting: tokio::sync::Mutex<()>,
    /// The URL as given, to connect again.
    url: String,
    db: String,
    worker: String,
    lease: Duration,
    /// How long a lost database is waited for.
    patience: Duration,
    /// Where this worker's last claim stood in the plan's order (ordinal,
    /// source): the next claim looks on from there, past the index entries
    /// of the queries done before it, and from the start once nothing is
    /// left after it (a dead worker's query, a query planned late).
    cursor: std::sync::Mutex<(i64, i64)>,
    /// How long this process waited for a free slot of each host: the
    /// host's slots, and the time in all.
    waits: std::sync::Mutex<HashMap<String, (usize, Duration)>>,
    /// When this process connected, in seconds since 1970 on the server's
    /// clock.
    started: f64,
}

/// One connection of a [`SharedPlan`]: its prepared statements, and the
/// host slots it holds (advisory locks of its session). An advisory lock
/// is reentrant within its session, so the process itself must not take
/// a slot twice.
struct SharedConn {
    client: Client,
    statements: Statements,
    held: tokio::sync::Mutex<HashMap<String, Vec<i32>>>,
}

impl SharedConn {
    fn new(client: Client) -> SharedConn {
        SharedConn {
            client,
            statements: Statements::default(),
            held: Default::default(),
        }
    }
}

/// Leases to the worker `$1` for `$2` seconds the first pending query at
/// or after (`$3`, `$4`) in the plan's order (ordinal, source) that the
/// condition given finds claimable.
macro_rules! claim_sql {
    ($claimable:literal) => {
        concat!(
            "WITH next AS (
               SELECT id FROM queries
               WHERE state = 'pending' AND request IS NOT NULL AND ",
            $claimable,
            " AND (ordinal, source_id) >= ($3, $4)
               ORDER BY ordinal, source_id
               LIMIT 1 FOR UPDATE SKIP LOCKED)
             UPDATE queries q SET leased_by = $1, lease_until = now() + make_interval(secs => $2)
             FROM next WHERE q.id = next.id
             RETURNING q.source_id, q.key, q.ordinal, q.description, q.request, q.checkpoint,
                       q.parent, q.learned, q.query_values, q.walk"
        )
    };
}

/// A claim of a query nobody holds, or whose lease ran out.
const CLAIM_FREE: &str = claim_sql!("(leased_by IS NULL OR lease_until < now())");

/// A claim of a query whose worker's session is gone.
const CLAIM_OF_THE_GONE: &str = claim_sql!("leased_by IN (SELECT name FROM workers_gone)");

/// The start of the plan's order, for [`Shared::cursor`].
const PLAN_START: (i64, i64) = (i64::MIN, i64::MIN);

type Params<'a> = &'a [&'a (dyn tokio_postgres::types::ToSql + Sync)];

impl Shared {
    fn current(&self) -> std::sync::Arc<SharedConn> {
        std::sync::Arc::clone(&self.conn.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Runs `op` on the connection; a lost connection is made again and
    /// `op` run again, until the database is back or the patience has
    /// passed since the start ([`StoreError::Lost`], naming `context`).
    async fn call<T, F, Fut>(&self, context: &str, op: F) -> Result<T, StoreError>
    where
        F: Fn(std::sync::Arc<SharedConn>) -> Fut,
        Fut: Future<Output = Result<T, tokio_postgres::Error>>,
    {
        let started = std::time::Instant::now();
        loop {
            let conn = self.current();
            match op(std::sync::Arc::clone(&conn)).await {
                Ok(value) => return Ok(value),
                Err(e) if is_lost(&e) => self.recover(&conn, context, started, message(&e)).await?,
                Err(e) => return Err(pg_err(&self.db, context)(e)),
            }
        }
    }

    /// Waits for the database after `failed` was lost (`lost` says how),
    /// trying to connect again with growing pauses, for up to the patience
    /// since `since`.
    async fn recover(
        &self,
        failed: &std::sync::Arc<SharedConn>,
        context: &str,
        since: std::time::Instant,
        mut lost: String,
    ) -> Result<(), StoreError> {
        let mut pause = Duration::ZERO;
        loop {
            let left = self.patience.saturating_sub(since.elapsed());
            if left.is_zero() {
                return Err(StoreError::Lost {
                    db: self.db.clone(),
                    context: context.to_string(),
                    waited: since.elapsed().as_secs(),
                    message: lost,
                });
            }
            if pause.is_zero() {
                waiting(&self.db, &lost, context, self.patience);
            }
            pause = next_pause(pause).min(left);
            tokio::time::sleep(pause).await;
            match self.reconnect(failed).await {
                Ok(()) => return Ok(()),
                Err(e) => lost = e,
            }
        }
    }

    /// Replaces the lost connection `failed` (unless another task did),
    /// and registers the worker again on the new one.
    async fn reconnect(&self, failed: &std::sync::Arc<SharedConn>) -> Result<(), String> {
        let _one = self.reconnecting.lock().await;
        if !std::sync::Arc::ptr_eq(&self.current(), failed) {
            return Ok(());
        }
        let url = self.url.clone();
        let client = tokio::task::spawn_blocking(move || connect(&url))
            .await
            .map_err(|e| e.to_string())?
            .map_err(unreached)?;
        let conn = SharedConn::new(client);
        register(&conn.client, &self.worker, self.lease)
            .await
            .map_err(|e| message(&e))?;
        *self.conn.lock().unwrap_or_else(|p| p.into_inner()) = std::sync::Arc::new(conn);
        tracing::warn!("gatherer database {}: connected again", self.db);
        Ok(())
    }

    async fn query_opt(
        &self,
        context: &str,
        sql: &'static str,
        params: Params<'_>,
    ) -> Result<Option<Row>, StoreError> {
        self.call(context, |c| async move {
            let statement = c.statements.get(&c.client, sql).await?;
            c.client.query_opt(&statement, params).await
        })
        .await
    }

    async fn query(
        &self,
        context: &str,
        sql: &'static str,
        params: Params<'_>,
    ) -> Result<Vec<Row>, StoreError> {
        self.call(context, |c| async move {
            let statement = c.statements.get(&c.client, sql).await?;
            c.client.query(&statement, params).await
        })
        .await
    }

    async fn execute(
        &self,
        context: &str,
        sql: &'static str,
        params: Params<'_>,
    ) -> Result<u64, StoreError> {
        self.call(context, |c| async move {
            let statement = c.statements.get(&c.client, sql).await?;
            c.client.execute(&statement, params).await
        })
        .await
    }
}

/// Says on `client`'s session that `worker` is alive: takes the worker's
/// session lock (its leases are void once the session is gone), records
/// the server's start, and renews the worker's leases for `lease`.
async fn register(
    client: &Client,
    worker: &str,
    lease: Duration,
) -> Result<(), tokio_postgres::Error> {
    let locked: bool = client
        .query_one(
            "SELECT pg_try_advisory_lock(hashtextextended($1, 0))",
            &[&worker],
        )
        .await?
        .get(0);
    if !locked {
        tracing::warn!("worker {worker}: an earlier session of it still holds its lock");
    }
    client
        .execute(
            "INSERT INTO workers (name, session_lock, server_start)
             VALUES ($1, hashtextextended($1, 0), pg_postmaster_start_time())
             ON CONFLICT (name) DO UPDATE SET seen_at = now(),
               session_lock = excluded.session_lock, server_start = excluded.server_start",
            &[&worker],
        )
        .await?;
    client
        .execute(
            "UPDATE queries SET lease_until = now() + make_interval(secs => $2)
             WHERE leased_by = $1 AND state = 'pending'",
            &[&worker, &lease.as_secs_f64()],
        )
        .await?;
    Ok(())
}

/// The hosts whose slots the workers waited for at least a second in all,
/// as the workers told since `$1` (seconds since 1970), or in the last ten
/// minutes: host, slots, workers that waited, seconds.
const HOST_WAITS: &str = "SELECT origin, max(slots), count(*) FILTER (WHERE waited_ms > 0),
        (sum(waited_ms) / 1000.0)::float8
 FROM host_waits
 WHERE updated_at >= coalesce(to_timestamp($1), now() - interval '10 minutes')
 GROUP BY origin HAVING sum(waited_ms) >= 1000
 ORDER BY origin COLLATE \"C\"";

fn host_wait(row: &Row) -> HostWait {
    HostWait {
        host: row.get(0),
        limit: row.get::<_, i32>(1).max(0) as u64,
        workers: row.get::<_, i64>(2).max(0) as u64,
        waited_seconds: row.get(3),
    }
}

impl SharedPlan {
    /// Connects as `worker`, whose leases last `lease` unless renewed, and
    /// says it is alive; a lost database is waited for up to
    /// [`super::DEFAULT_RECONNECT`]. The schema must exist
    /// ([`super::Store::open_at`] creates it).
    pub fn connect(url: &str, worker: &str, lease: Duration) -> Result<SharedPlan, StoreError> {
        SharedPlan::connect_patient(url, worker, lease, super::DEFAULT_RECONNECT)
    }

    /// [`SharedPlan::connect`], waiting up to `patience` for a lost
    /// database to come back.
    pub fn connect_patient(
        url: &str,
        worker: &str,
        lease: Duration,
        patience: Duration,
    ) -> Result<SharedPlan, StoreError> {
        let db = shown(url);
        let client = connect(url)?;
        let started: f64 = block_on(async {
            register(&client, worker, lease).await?;
            Ok(client
                .query_one("SELECT extract(epoch FROM now())::float8", &[])
                .await?
                .get(0))
        })
        .map_err(pg_err(&db, "registering the worker"))?;
        Ok(SharedPlan {
            inner: std::sync::Arc::new(Shared {
                conn: std::sync::Mutex::new(std::sync::Arc::new(SharedConn::new(client))),
                reconnecting: tokio::sync::Mutex::new(()),
                url: url.to_string(),
                db,
                worker: worker.to_string(),
                lease,
                patience,
                cursor: std::sync::Mutex::new(PLAN_START),
                waits: Default::default(),
                started,
            }),
        })
    }

    /// This worker's name.
    pub fn worker(&self) -> &str {
        &self.inner.worker
    }

    fn lease_seconds(&self) -> f64 {
        self.inner.lease.as_secs_f64()
    }

    /// Leases the next query of the plan that no live worker holds: pending
    /// and never leased, leased by a worker whose session is gone (it died),
    /// or whose lease ran out (it hangs, or stopped without releasing it).
    /// `None` when there is none now.
    pub async fn claim(&self) -> Result<Option<Claim>, StoreError> {
        let s = &self.inner;
        let from = *s.cursor.lock().unwrap_or_else(|p| p.into_inner());
        let mut claimed = self.claim_from(from, CLAIM_FREE).await?;
        if claimed.is_none() && from != PLAN_START {
            claimed = self.claim_from(PLAN_START, CLAIM_FREE).await?;
        }
        // Reading the sessions (`pg_locks`) costs the server about as much
        // as planning a claim: it is done once no free query is left.
        if claimed.is_none() {
            claimed = self.claim_from(PLAN_START, CLAIM_OF_THE_GONE).await?;
        }
        let Some((claim, at)) = claimed else {
            return Ok(None);
        };
        *s.cursor.lock().unwrap_or_else(|p| p.into_inner()) = at;
        Ok(Some(claim))
    }

    /// [`SharedPlan::claim`] of the first query `sql` finds claimable at
    /// or after `from` in the plan's order; the claim and where it stands.
    async fn claim_from(
        &self,
        from: (i64, i64),
        sql: &'static str,
    ) -> Result<Option<(Claim, (i64, i64))>, StoreError> {
        let s = &self.inner;
        let row = s
            .query_opt(
                "claiming a query",
                sql,
                &[&s.worker, &self.lease_seconds(), &from.0, &from.1],
            )
            .await?;
        Ok(row.map(|r| {
            let ordinal: i64 = r.get(2);
            let claim = Claim {
                source: r.get(0),
                query: PlannedQuery {
                    key: r.get(1),
                    ordinal: ordinal.max(0) as u64,
                    description: r.get(3),
                    request: r.get(4),
                    values: r.get(8),
                    parent: r.get(6),
                    learned: r.get(7),
                },
                checkpoint: r
                    .get::<_, Option<String>>(5)
                    .map(|checkpoint| with_links(checkpoint, walk_from_lines(r.get(9)))),
            };
            let at = (ordinal, claim.source);
            (claim, at)
        }))
    }

    /// What others do that a worker with nothing to claim waits for: the
    /// queries other live workers hold, the live planners that may add
    /// more, and whether there is a plan at all.
    pub async fn others(&self) -> Result<Others, StoreError> {
        let s = &self.inner;
        let row = s
            .call("reading what the other workers do", |c| async move {
                let statement = c
                    .statements
                    .get(
                        &c.client,
                        "SELECT
                           (SELECT count(*) FROM queries
                            WHERE state = 'pending' AND request IS NOT NULL
                              AND leased_by <> $1 AND lease_until >= now()
                              AND leased_by NOT IN (SELECT name FROM workers_gone)),
                           (SELECT count(*) FROM workers
                            WHERE plans AND name <> $1
                              AND seen_at > now() - make_interval(secs => $2)
                              AND name NOT IN (SELECT name FROM workers_gone)),
                           EXISTS (SELECT 1 FROM sources WHERE work IS NOT NULL),
                           (SELECT count(*) FROM workers
                            WHERE name <> $1 AND seen_at > now() - make_interval(secs => $2)
                              AND name NOT IN (SELECT name FROM workers_gone))",
                    )
                    .await?;
                c.client
                    .query_one(&statement, &[&s.worker, &(WORKER_ALIVE_SECONDS as f64)])
                    .await
            })
            .await?;
        Ok(Others {
            held: row.get::<_, i64>(0).max(0) as u64,
            planners: row.get::<_, i64>(1).max(0) as u64,
            planned: row.get(2),
            workers: row.get::<_, i64>(3).max(0) as u64,
        })
    }

    /// Says that this process plans (`gather URL --db postgres://…`):
    /// while it is alive, workers with nothing to claim wait for the
    /// queries it may still add.
    pub async fn set_planning(&self, planning: bool) -> Result<(), StoreError> {
        let s = &self.inner;
        s.execute(
            "registering the planner",
            "UPDATE workers SET plans = $2, seen_at = now() WHERE name = $1",
            &[&s.worker, &planning],
        )
        .await?;
        Ok(())
    }

    /// Renews this worker's leases, says it is alive, and tells how long
    /// it waited for the hosts.
    pub async fn renew(&self) -> Result<(), StoreError> {
        let s = &self.inner;
        s.execute(
            "renewing the leases",
            "UPDATE queries SET lease_until = now() + make_interval(secs => $2)
                 WHERE leased_by = $1 AND state = 'pending'",
            &[&s.worker, &self.lease_seconds()],
        )
        .await?;
        s.execute(
            "renewing the leases",
            "UPDATE workers SET seen_at = now() WHERE name = $1",
            &[&s.worker],
        )
        .await?;
        self.tell_waits().await
    }

    /// Writes how long this process waited for a free slot of each host.
    async fn tell_waits(&self) -> Result<(), StoreError> {
        let s = &self.inner;
        let waits = s.waits.lock().unwrap_or_else(|p| p.into_inner()).clone();
        if waits.is_empty() {
            return Ok(());
        }
        let mut origins = Vec::new();
        let mut slots = Vec::new();
        let mut waited = Vec::new();
        for (origin, (n, time)) in waits {
            origins.push(origin);
            slots.push(i32::try_from(n).unwrap_or(i32::MAX));
            waited.push(i64::try_from(time.as_millis()).unwrap_or(i64::MAX));
        }
        s.execute(
            "telling how long the worker waited for the hosts",
            "INSERT INTO host_waits (origin, worker, slots, waited_ms)
             SELECT o, $1, n, w FROM unnest($2::text[], $3::int4[], $4::int8[]) AS t(o, n, w)
             ON CONFLICT (origin, worker) DO UPDATE SET slots = excluded.slots,
               waited_ms = excluded.waited_ms, updated_at = now()",
            &[&s.worker, &origins, &slots, &waited],
        )
        .await?;
        Ok(())
    }

    /// The hosts whose slots the workers waited for (a second or more in
    /// all) since this process started, this process's waits included.
    pub async fn host_waits(&self) -> Result<Vec<HostWait>, StoreError> {
        self.tell_waits().await?;
        let s = &self.inner;
        let rows = s
            .query(
                "reading how long the workers waited for the hosts",
                HOST_WAITS,
                &[&Some(s.started)],
            )
            .await?;
        Ok(rows.iter().map(host_wait).collect())
    }

    /// Gives back the queries this worker holds (an interrupted walk is
    /// continued by another from its checkpoint), its host slots, and says
    /// it has stopped. With `patient` false, a lost database is not waited
    /// for (the leases are void once the session is gone, or run out).
    pub async fn release(&self, patient: bool) -> Result<(), StoreError> {
        let s = &self.inner;
        let release = async {
            let _ = self.tell_waits().await;
            s.execute(
                "releasing the leases",
                "UPDATE queries SET leased_by = NULL, lease_until = NULL
                     WHERE leased_by = $1 AND state = 'pending'",
                &[&s.worker],
            )
            .await?;
            s.execute(
                "releasing the leases",
                "DELETE FROM workers WHERE name = $1",
                &[&s.worker],
            )
            .await?;
            Ok(())
        };
        if patient {
            return release.await;
        }
        // One try, without waiting for a database that is away.
        match tokio::time::timeout(Duration::from_secs(2), release).await {
            Ok(done) => done,
            Err(_) => Ok(()),
        }
    }

    /// Takes a free slot of `origin` (of `slots`), waiting for one; the
    /// time waited is counted for the host.
    async fn take_slot(&self, origin: &str, slots: usize) -> Result<i64, String> {
        let s = &self.inner;
        let count = i32::try_from(slots.max(1)).unwrap_or(i32::MAX);
        let mut pause = Duration::from_millis(2);
        let mut waiting: Option<std::time::Instant> = None;
        let context = format!("taking a request slot of {origin}");
        loop {
            let conn = s.current();
            let taken = {
                let mut held = conn.held.lock().await;
                let mine = held.entry(origin.to_string()).or_default();
                // CASE keeps the lock from being tried on a slot this
                // process holds already (the server may reorder an AND).
                let row = async {
                    let statement = conn
                        .statements
                        .get(
                            &conn.client,
                            "SELECT n FROM generate_series(0, $2::int4 - 1) AS n
                             WHERE CASE WHEN n = ANY($3::int4[]) THEN false
                                        ELSE pg_try_advisory_lock(hashtext($1), n) END
                             LIMIT 1",
                        )
                        .await?;
                    conn.client
                        .query_opt(&statement, &[&origin, &count, &*mine])
                        .await
                }
                .await;
                row.map(|row| {
                    row.map(|row| {
                        let slot: i32 = row.get(0);
                        mine.push(slot);
                        slot
                    })
                })
            };
            match taken {
                Ok(Some(slot)) => {
                    if let Some(since) = waiting {
                        let mut waits = s.waits.lock().unwrap_or_else(|p| p.into_inner());
                        let wait = waits.entry(origin.to_string()).or_default();
                        *wait = (slots, wait.1 + since.elapsed());
                    }
                    return Ok(i64::from(slot));
                }
                Ok(None) => {
                    waiting.get_or_insert_with(std::time::Instant::now);
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(Duration::from_millis(25));
                }
                Err(e) if is_lost(&e) => {
                    s.recover(&conn, &context, std::time::Instant::now(), message(&e))
                        .await
                        .map_err(|e| e.to_string())?;
                }
                Err(e) => return Err(message(&e)),
            }
        }
    }

    /// Books the next start of a request to `origin`, `delay` after the
    /// one before (of any worker); returns how long to wait for it.
    async fn book_turn(&self, origin: &str, delay: Duration) -> Result<Duration, String> {
        let row = self
            .inner
            .query_opt(
                &format!("booking a request to {origin}"),
                "INSERT INTO host_turns (origin, next_start)
                 VALUES ($1, now() + make_interval(secs => $2))
                 ON CONFLICT (origin) DO UPDATE
                   SET next_start = greatest(host_turns.next_start, now()) + make_interval(secs => $2)
                 RETURNING (extract(epoch FROM next_start - now()))::float8 - $2",
                &[&origin, &delay.as_secs_f64()],
            )
            .await
            .map_err(|e| e.to_string())?;
        let wait = row.map_or(0.0, |r| r.get::<_, f64>(0));
        Ok(Duration::from_secs_f64(wait.max(0.0)))
    }
}

impl crate::fetch::SharedHosts for SharedPlan {
    fn acquire<'a>(
        &'a self,
        origin: &'a str,
        slots: usize,
        delay: Duration,
    ) -> Pin<Box<dyn Future<Output = Result<i64, String>> + Send + 'a>> {
        Box::pin(async move {
            let slot = self.take_slot(origin, slots).await?;
            if !delay.is_zero() {
                match self.book_turn(origin, delay).await {
                    Ok(wait) => tokio::time::sleep(wait).await,
                    Err(e) => {
                        crate::fetch::SharedHosts::release(self, origin, slot).await;
                        return Err(e);
                    }
                }
            }
            Ok(slot)
        })
    }

    fn release<'a>(
        &'a self,
        origin: &'a str,
        slot: i64,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + 'a>> {
        Box::pin(async move {
            let Ok(slot) = i32::try_from(slot) else {
                return;
            };
            // Freed in the server before this process may take it again; a
            // slot not given back is freed with the connection (a slot of
            // a lost connection is free already).
            let conn = self.inner.current();
            let mut held = conn.held.lock().await;
            let _ = conn
                .client
                .query_opt(
                    "SELECT pg_advisory_unlock(hashtext($1), $2::int4)",
                    &[&origin, &slot],
                )
                .await;
            if let Some(mine) = held.get_mut(origin) {
                mine.retain(|n| *n != slot);
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_words_fold_case_and_diacritics_and_split_on_punctuation() {
        assert_eq!(
            search_words("Rügen, Ostseebad-Binz 3.5"),
            "rugen ostseebad binz 3 5"
        );
        assert_eq!(search_words("  ÉTÉ "), "ete");
    }

    #[test]
    fn ts_query_is_a_phrase_with_an_optional_prefix() {
        assert_eq!(
            ts_query("Ostseebad Binz").as_deref(),
            Some("ostseebad <-> binz")
        );
        assert_eq!(ts_query("Rüg*").as_deref(), Some("rug:*"));
        assert_eq!(ts_query("'&|!").as_deref(), None);
    }
}

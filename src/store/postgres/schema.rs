//! The schema of a PostgreSQL gatherer database and its migrations.

use std::path::Path;

use futures::executor::block_on;
use tokio_postgres::Client;

use super::pg_err;
use crate::store::StoreError;

/// The schema version this gather writes (table `gather_schema`).
const VERSION: i64 = 8;

/// `(version, SQL that brings version - 1 to version)`, in order.
const MIGRATIONS: &[(i64, &str)] = &[
    (1, V1),
    (2, V2),
    (3, V3),
    (4, V4),
    (5, V5),
    (6, V6),
    (7, V7),
    (8, V8),
];

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

/// A refresh's history (the SQLite schema's version 9): the first page's
/// validators and digest per query, the key and history per record in
/// milliseconds since the epoch (first and last seen default to the
/// insert's time).
const V7: &str = "
ALTER TABLE queries ADD COLUMN etag TEXT;
ALTER TABLE queries ADD COLUMN last_modified TEXT;
ALTER TABLE queries ADD COLUMN digest TEXT;
ALTER TABLE queries ADD COLUMN refresh_interval BIGINT;
ALTER TABLE queries ADD COLUMN due_at BIGINT;
ALTER TABLE records ADD COLUMN record_key TEXT;
ALTER TABLE records ADD COLUMN first_seen BIGINT
    DEFAULT (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
ALTER TABLE records ADD COLUMN last_seen BIGINT
    DEFAULT (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
ALTER TABLE records ADD COLUMN changed_at BIGINT;
ALTER TABLE records ADD COLUMN changed_fields TEXT;
ALTER TABLE records ADD COLUMN gone_at BIGINT;
CREATE INDEX records_by_key ON records (source_id, record_key);
CREATE INDEX records_by_query ON records (source_id, query_key);
";

/// Each value's history (the SQLite schema's version 10): first and last
/// seen default to the insert's time (the values of an older database
/// keep NULL), gone when a refresh found no live record holding it. And a
/// refresh in progress: when it began, until it ends; a refresh run again
/// after an interrupt resumes it.
const V8: &str = "
ALTER TABLE attribute_values ADD COLUMN first_seen BIGINT;
ALTER TABLE attribute_values ALTER COLUMN first_seen
    SET DEFAULT (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
ALTER TABLE attribute_values ADD COLUMN last_seen BIGINT;
ALTER TABLE attribute_values ALTER COLUMN last_seen
    SET DEFAULT (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
ALTER TABLE attribute_values ADD COLUMN gone_at BIGINT;
ALTER TABLE sources ADD COLUMN refresh_since BIGINT;
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

/// Creates the schema, or migrates an older one to [`VERSION`], in one
/// transaction under [`MIGRATION_LOCK`]; with `create` false, a database
/// without gather's schema is refused. `db` and `path` name the database
/// in errors.
pub(super) fn migrate(
    client: &mut Client,
    db: &str,
    path: &Path,
    create: bool,
) -> Result<(), StoreError> {
    let e = |context: &str| pg_err(db, context.to_string());
    block_on(async {
        let tx = client
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
                    path: path.to_path_buf(),
                });
            }
            tx.batch_execute("CREATE TABLE gather_schema (version BIGINT NOT NULL)")
                .await
                .map_err(e("creating the schema"))?;
            0
        };
        if version > VERSION {
            return Err(StoreError::NewerSchema {
                path: path.to_path_buf(),
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

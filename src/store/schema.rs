//! The schema of the gatherer database and its migrations.

/// The schema version this gather writes (`PRAGMA user_version`).
pub(super) const VERSION: i64 = 10;

/// `(version, SQL that brings version - 1 to version)`, in order.
pub(super) const MIGRATIONS: &[(i64, &str)] = &[
    (1, V1),
    (2, V2),
    (3, V3),
    (4, V4),
    (5, V5),
    (6, V6),
    (7, V7),
    (8, V8),
    (9, V9),
    (10, V10),
];

const V1: &str = "
CREATE TABLE sources (
    id                INTEGER PRIMARY KEY,
    url               TEXT NOT NULL UNIQUE,
    kind              TEXT NOT NULL CHECK (kind IN ('database', 'cooperative', 'page')),
    title             TEXT,
    description       TEXT,
    keywords          TEXT,
    text              TEXT,
    updated_at        INTEGER NOT NULL,
    incomplete        INTEGER NOT NULL DEFAULT 0,
    incomplete_reason TEXT
);

CREATE TABLE queries (
    id          INTEGER PRIMARY KEY,
    source_id   INTEGER NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    key         TEXT NOT NULL,
    ordinal     INTEGER NOT NULL,
    description TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('pending', 'done', 'failed')),
    error       TEXT,
    attempts    INTEGER NOT NULL DEFAULT 0,
    -- 1 when the page limit stopped its result pages.
    cut_short   INTEGER NOT NULL DEFAULT 0,
    started_at  INTEGER NOT NULL,
    finished_at INTEGER,
    UNIQUE (source_id, key)
);

CREATE TABLE pages (
    id         INTEGER PRIMARY KEY,
    source_id  INTEGER NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    query_id   INTEGER REFERENCES queries (id) ON DELETE CASCADE,
    url        TEXT NOT NULL,
    status     INTEGER NOT NULL,
    bytes      INTEGER NOT NULL,
    sha256     TEXT NOT NULL,
    fetched_at INTEGER NOT NULL,
    elapsed_ms INTEGER NOT NULL
);
CREATE INDEX pages_by_source ON pages (source_id);
CREATE INDEX pages_by_query ON pages (query_id);

-- The distinct values per source and attribute; query_key is the key of the
-- query that surfaced the value first (or another provenance).
CREATE TABLE attribute_values (
    id        INTEGER PRIMARY KEY,
    source_id INTEGER NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    attribute TEXT NOT NULL,
    value     TEXT NOT NULL,
    query_key TEXT,
    UNIQUE (source_id, attribute, value)
);

CREATE VIRTUAL TABLE values_fts USING fts5 (
    value, attribute, source_id UNINDEXED,
    content = 'attribute_values', content_rowid = 'id'
);
CREATE TRIGGER attribute_values_ai AFTER INSERT ON attribute_values BEGIN
    INSERT INTO values_fts (rowid, value, attribute, source_id)
    VALUES (new.id, new.value, new.attribute, new.source_id);
END;
CREATE TRIGGER attribute_values_ad AFTER DELETE ON attribute_values BEGIN
    INSERT INTO values_fts (values_fts, rowid, value, attribute, source_id)
    VALUES ('delete', old.id, old.value, old.attribute, old.source_id);
END;
";

/// A query whose result pages are walked over many pages saves where its
/// navigator stands (JSON) with every page, so that a killed run continues
/// it instead of starting over.
const V2: &str = "
ALTER TABLE queries ADD COLUMN checkpoint TEXT;
";

/// The titles and texts of the sources (an ordinary page's text above all)
/// are searchable like the values.
const V3: &str = "
CREATE VIRTUAL TABLE texts_fts USING fts5 (
    title, text,
    content = 'sources', content_rowid = 'id'
);
CREATE TRIGGER sources_ai AFTER INSERT ON sources BEGIN
    INSERT INTO texts_fts (rowid, title, text) VALUES (new.id, new.title, new.text);
END;
CREATE TRIGGER sources_ad AFTER DELETE ON sources BEGIN
    INSERT INTO texts_fts (texts_fts, rowid, title, text)
    VALUES ('delete', old.id, old.title, old.text);
END;
CREATE TRIGGER sources_au AFTER UPDATE OF title, text ON sources BEGIN
    INSERT INTO texts_fts (texts_fts, rowid, title, text)
    VALUES ('delete', old.id, old.title, old.text);
    INSERT INTO texts_fts (rowid, title, text) VALUES (new.id, new.title, new.text);
END;
INSERT INTO texts_fts (texts_fts) VALUES ('rebuild');
";

/// The rules a database source was gathered with (JSON), so that a run with
/// other rules notices; the bodies of result pages, compressed, so that
/// changed rules are applied again without a request.
const V4: &str = "
ALTER TABLE sources ADD COLUMN rules TEXT;
CREATE TABLE page_bodies (
    page_id      INTEGER PRIMARY KEY REFERENCES pages (id) ON DELETE CASCADE,
    content_type TEXT,
    -- the body as it was received, compressed (store::pack: LZ4 now,
    -- zstd or raw DEFLATE in files older gathers wrote)
    body         BLOB NOT NULL
);
";

/// Records (`crate::record`): the values of one result row that belong
/// together, each with the query and the page that gave it first. `fields`
/// is a JSON object (field → string or list of strings) in the order of the
/// source's rules; a source keeps each distinct record once.
const V5: &str = "
CREATE TABLE records (
    id        INTEGER PRIMARY KEY,
    source_id INTEGER NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    query_key TEXT,
    page_url  TEXT NOT NULL,
    ordinal   INTEGER NOT NULL,
    fields    TEXT NOT NULL,
    UNIQUE (source_id, fields)
);
";

/// What a query's answer revealed (`crate::refine::Answer` as JSON: hit
/// count, rows shown, sorted fields), its element values (JSON pairs), for
/// a refined query the key of the query it narrows, and whether its value
/// was learned from the answers.
const V6: &str = "
ALTER TABLE queries ADD COLUMN answer TEXT;
ALTER TABLE queries ADD COLUMN query_values TEXT;
ALTER TABLE queries ADD COLUMN parent TEXT;
ALTER TABLE queries ADD COLUMN learned INTEGER NOT NULL DEFAULT 0;
";

/// The spec gather induced by probing a form without metadata (YAML, with
/// the plan it chose in its comments), so that a resumed gathering takes
/// it instead of probing the form again.
const V7: &str = "
ALTER TABLE sources ADD COLUMN surfaced_spec TEXT;
";

/// The links a query's walk found (`crate::navigate::Checkpoint::links`),
/// in the order found (`id`), kept apart from the query's checkpoint so
/// that saving a result page adds the links it found instead of writing
/// the whole walk again. A checkpoint written before this version holds its
/// links itself and is read as it is; the next page of its walk moves them
/// here.
const V8: &str = "
CREATE TABLE walk_links (
    id       INTEGER PRIMARY KEY,
    query_id INTEGER NOT NULL REFERENCES queries (id) ON DELETE CASCADE,
    link     TEXT NOT NULL
);
CREATE INDEX walk_links_by_query ON walk_links (query_id);
";

/// What a refresh (`gather refresh`, `store::history`) needs: each query's
/// first page as the provider described it (`ETag`, `Last-Modified`) and
/// its digest (SHA-256 of the body), to ask again conditionally; each
/// record's key ([`crate::record::Fields::key`]) and history, in
/// milliseconds since the epoch: first seen (set on insert by the
/// trigger), last seen, when it last changed and which fields, and when
/// it was gone; each query's wait between refreshes and when it is due.
const V9: &str = "
ALTER TABLE queries ADD COLUMN etag TEXT;
ALTER TABLE queries ADD COLUMN last_modified TEXT;
ALTER TABLE queries ADD COLUMN digest TEXT;
ALTER TABLE queries ADD COLUMN refresh_interval INTEGER;
ALTER TABLE queries ADD COLUMN due_at INTEGER;
ALTER TABLE records ADD COLUMN record_key TEXT;
ALTER TABLE records ADD COLUMN first_seen INTEGER;
ALTER TABLE records ADD COLUMN last_seen INTEGER;
ALTER TABLE records ADD COLUMN changed_at INTEGER;
ALTER TABLE records ADD COLUMN changed_fields TEXT;
ALTER TABLE records ADD COLUMN gone_at INTEGER;
CREATE INDEX records_by_key ON records (source_id, record_key);
CREATE INDEX records_by_query ON records (source_id, query_key);
CREATE TRIGGER records_first_seen AFTER INSERT ON records WHEN new.first_seen IS NULL BEGIN
    UPDATE records SET first_seen = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER),
                       last_seen = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
    WHERE id = new.id;
END;
";

/// Each value's history (`store::history`), in milliseconds since the
/// epoch: first seen and last seen (written by the insert itself, so that
/// a gathering spends no statement on them; NULL for the values of an
/// older file), and when a refresh found it gone (no live record holds it
/// any more). Gone values stay in the table, and leave every output. And
/// a refresh in progress: when it began, until it ends; a refresh run
/// again after an interrupt resumes it, sending none of the queries it
/// finished. The records' first and last seen are written by their
/// inserts: the trigger of version 9 goes (a table with a trigger makes
/// every insert keep a statement journal, a temporary file's writes).
const V10: &str = "
ALTER TABLE attribute_values ADD COLUMN first_seen INTEGER;
ALTER TABLE attribute_values ADD COLUMN last_seen INTEGER;
ALTER TABLE attribute_values ADD COLUMN gone_at INTEGER;
ALTER TABLE sources ADD COLUMN refresh_since INTEGER;
DROP TRIGGER records_first_seen;
";

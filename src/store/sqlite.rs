//! The SQLite back-end of the gatherer database: one file, WAL,
//! `synchronous=NORMAL`, FTS5 for searches; schema versions in
//! `PRAGMA user_version`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, OpenFlags, OptionalExtension, Transaction};

use super::backend::Backend;
use super::history::{
    self, AnswerMark, HistoryRow, KeyedRecord, RefreshStart, Refreshing, Schedule, ValuePairs,
};
use super::{
    now, schema, unpack, with_links, AnsweredQuery, Hit, KeptPage, PageRecord, PlannedQuery,
    QueryOutcome, QueryState, Recorded, SourceId, SourceInfo, SourceKind, SourceRecord,
    SourceStats, Status, StatusSource, StoreError, StoredRecord, DEFAULT_BODY_BUDGET,
    TEXT_ATTRIBUTE,
};
use crate::fragment::{normalize, IndexFragment};
use crate::record::{Fields, Record};

/// How long a gathering waits for another's lock on the database to go
/// before it is refused as busy.
const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(2);

/// Bytes per page of a database file gather creates (SQLite's default is
/// 4,096). A commit writes each changed page to the WAL as a frame (two
/// `pwrite64`s: its header and the page), and the checkpoint reads each
/// one back and writes it into the file: a result page's records and its
/// kept body, a few KiB each, take half as many frames at 8 KiB. On the
/// demo's guide (1,000 result pages) system calls per page went from 24.5
/// to 18.0 and the file from 10.1 to 8.8 MB, at the same instructions. A
/// file made with another page size keeps it.
const PAGE_SIZE: i64 = 8192;

/// SQLite's page cache, in KiB (its default is 2,000): the pages a
/// gathering writes to are the last of each table and the upper levels of
/// its indexes, which fit; a page read again comes from the kernel's file
/// cache. A smaller cache is the larger part of gather's own memory.
const CACHE_KIB: i64 = 1024;

/// The gatherer database.
pub(super) struct Sqlite {
    conn: Connection,
    path: PathBuf,
    /// Compressed bytes of kept page bodies this store may still add.
    body_budget: u64,
    /// Page bodies not kept because the budget was spent.
    bodies_dropped: u64,
    /// Held while this store gathers ([`Store::lock_for_gathering`]).
    gathering: Option<std::fs::File>,
}

impl Sqlite {
    /// Opens the database at `path`, creating it (and its schema) when it
    /// does not exist, and migrating an older schema.
    pub(super) fn open(path: &Path) -> Result<Sqlite, StoreError> {
        Sqlite::open_with(path, OpenFlags::default())
    }

    /// Opens an existing gatherer database (for export and search): a missing
    /// file or a file without gather's schema is an error, nothing is created.
    pub(super) fn open_existing(path: &Path) -> Result<Sqlite, StoreError> {
        if !path.exists() {
            return Err(StoreError::Missing {
                path: path.to_path_buf(),
            });
        }
        let flags = OpenFlags::default() - OpenFlags::SQLITE_OPEN_CREATE;
        let store = Sqlite::open_with(path, flags)?;
        Ok(store)
    }

    fn open_with(path: &Path, flags: OpenFlags) -> Result<Sqlite, StoreError> {
        let create = flags.contains(OpenFlags::SQLITE_OPEN_CREATE);
        let err = |context: &str| sql_err(path, context.to_string());
        let conn = Connection::open_with_flags(path, flags).map_err(|source| StoreError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(err("setting the busy timeout"))?;
        // Reading the schema version first tells a non-database file apart.
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(err("reading the schema version"))?;
        if version > schema::VERSION {
            return Err(StoreError::NewerSchema {
                path: path.to_path_buf(),
                found: version,
                supported: schema::VERSION,
            });
        }
        if version == 0 {
            // Version 0 is a new, empty file; a file that already holds
            // tables belongs to something else and is left alone.
            let tables: i64 = conn
                .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
                .map_err(err("reading the schema"))?;
            if tables > 0 || !create {
                return Err(StoreError::NotGatherDatabase {
                    path: path.to_path_buf(),
                });
            }
        }
        if version == 0 {
            // Only an empty file takes a page size: WAL fixes it from
            // the first write on.
            conn.pragma_update(None, "page_size", PAGE_SIZE)
                .map_err(err("setting the page size"))?;
        }
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(err("switching to WAL"))?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(err("setting synchronous=NORMAL"))?;
        conn.pragma_update(None, "cache_size", -CACHE_KIB)
            .map_err(err("setting the page cache's size"))?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(err("enabling foreign keys"))?;
        let mut store = Sqlite {
            conn,
            path: path.to_path_buf(),
            body_budget: DEFAULT_BODY_BUDGET,
            bodies_dropped: 0,
            gathering: None,
        };
        store.migrate(version)?;
        Ok(store)
    }

    fn migrate(&mut self, from: i64) -> Result<(), StoreError> {
        if from == schema::VERSION {
            return Ok(());
        }
        let path = self.path.clone();
        let tx = self.transaction("starting the schema migration")?;
        for (version, sql) in schema::MIGRATIONS {
            if *version > from {
                tx.execute_batch(sql).map_err(sql_err(
                    &path,
                    format!("migrating the schema to version {version}"),
                ))?;
            }
        }
        tx.pragma_update(None, "user_version", schema::VERSION)
            .map_err(sql_err(&path, "writing the schema version"))?;
        tx.commit()
            .map_err(sql_err(&path, "committing the schema migration"))
    }

    fn transaction(&mut self, context: &str) -> Result<Transaction<'_>, StoreError> {
        let path = self.path.clone();
        self.conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(sql_err(&path, context))
    }

    /// Runs a query and collects its rows.
    fn rows<T>(
        &self,
        context: &str,
        sql: &str,
        params: impl rusqlite::Params,
        row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>, StoreError> {
        self.conn
            .prepare_cached(sql)
            .and_then(|mut stmt| stmt.query_map(params, row)?.collect())
            .map_err(sql_err(&self.path, context))
    }

    fn check_source(&self, source: SourceId) -> Result<(), StoreError> {
        let known = self
            .conn
            .query_row("SELECT 1 FROM sources WHERE id = ?1", [source], |_| Ok(()))
            .optional()
            .map_err(sql_err(&self.path, format!("looking up source {source}")))?;
        match known {
            Some(()) => Ok(()),
            None => Err(self.unknown(source)),
        }
    }

    fn unknown(&self, id: SourceId) -> StoreError {
        StoreError::UnknownSource {
            path: self.path.clone(),
            id,
        }
    }
}

impl Backend for Sqlite {
    fn is_shared(&self) -> bool {
        false
    }

    /// No worker shares a file: there is no lease to hold.
    fn set_worker(&mut self, _worker: &str) {}

    /// A file is not lost as a server is: nothing to wait for.
    fn set_patience(&mut self, _patience: std::time::Duration) {}

    fn plan_queries(
        &mut self,
        _source: SourceId,
        _work: &str,
        _queries: &mut dyn Iterator<Item = PlannedQuery>,
    ) -> Result<u64, StoreError> {
        Err(StoreError::Corrupt {
            path: self.path.clone(),
            message: "a plan for workers needs a PostgreSQL database (--db postgres://…)".into(),
        })
    }

    /// No worker runs a file's queries.
    fn work(&self, _source: SourceId) -> Result<Option<String>, StoreError> {
        Ok(None)
    }

    /// Takes the database for one gathering: a second `gather` on the same
    /// database would send every query the first one is sending, so it is
    /// refused while this store lives. The lock is the operating system's
    /// (`flock`), released when the process ends, however it ends.
    ///
    /// A lock just released can stay held for a moment by a child process
    /// that a program embedding gather is starting (the child holds a copy
    /// of the descriptor until it runs its own program), so a held lock is
    /// tried again for up to [`LOCK_PATIENCE`] before the run is refused.
    fn lock_for_gathering(&mut self) -> Result<(), StoreError> {
        let file = std::fs::File::open(&self.path).map_err(|e| StoreError::Io {
            path: self.path.clone(),
            context: "opening it to lock it".into(),
            source: e,
        })?;
        let started = std::time::Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => {
                    self.gathering = Some(file);
                    return Ok(());
                }
                Err(std::fs::TryLockError::WouldBlock) if started.elapsed() < LOCK_PATIENCE => {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(StoreError::Busy {
                        path: self.path.clone(),
                    });
                }
                Err(std::fs::TryLockError::Error(e)) => {
                    return Err(StoreError::Io {
                        path: self.path.clone(),
                        context: "locking it".into(),
                        source: e,
                    });
                }
            }
        }
    }

    /// At most `bytes` of compressed page bodies in the database (default
    /// [`DEFAULT_BODY_BUDGET`]); bodies past it are not kept.
    fn set_body_budget(&mut self, bytes: u64) -> Result<(), StoreError> {
        let used: i64 = self
            .conn
            .query_row(
                "SELECT coalesce(sum(length(body)), 0) FROM page_bodies",
                [],
                |r| r.get(0),
            )
            .map_err(sql_err(&self.path, "measuring the kept pages"))?;
        self.body_budget = bytes.saturating_sub(used as u64);
        Ok(())
    }

    /// Page bodies not kept because the budget was spent.
    fn bodies_dropped(&self) -> u64 {
        self.bodies_dropped
    }

    /// The rules a source was last gathered with (as the gatherer wrote
    /// them with [`Store::set_rules`]).
    fn rules(&self, source: SourceId) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row("SELECT rules FROM sources WHERE id = ?1", [source], |r| {
                r.get(0)
            })
            .optional()
            .map_err(sql_err(
                &self.path,
                format!("reading the rules of source {source}"),
            ))?
            .ok_or_else(|| self.unknown(source))
    }

    /// The spec induced by probing the form at `url`, when stored.
    fn surfaced_spec(&self, url: &str) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row(
                "SELECT surfaced_spec FROM sources WHERE url = ?1",
                [url],
                |r| r.get::<_, Option<String>>(0),
            )
            .optional()
            .map(Option::flatten)
            .map_err(sql_err(
                &self.path,
                format!("reading the spec induced for {url}"),
            ))
    }

    /// Records the spec induced by probing a source's form.
    fn set_surfaced_spec(&mut self, source: SourceId, spec: &str) -> Result<(), StoreError> {
        self.conn
            .execute(
                "UPDATE sources SET surfaced_spec = ?2 WHERE id = ?1",
                params![source, spec],
            )
            .map_err(sql_err(
                &self.path,
                format!("recording the spec induced for source {source}"),
            ))?;
        Ok(())
    }

    /// Records the rules a source is gathered with.
    fn set_rules(&mut self, source: SourceId, rules: &str) -> Result<(), StoreError> {
        self.conn
            .execute(
                "UPDATE sources SET rules = ?2 WHERE id = ?1",
                params![source, rules],
            )
            .map_err(sql_err(
                &self.path,
                format!("recording the rules of source {source}"),
            ))?;
        Ok(())
    }

    /// Starts a source over: its queries, their pages and every value found
    /// by a query are removed (listed values and the source stay).
    fn forget_queries(&mut self, source: SourceId) -> Result<(), StoreError> {
        let path = self.path.clone();
        let context = format!("starting source {source} over");
        let tx = self.transaction(&context)?;
        tx.execute_batch(&format!(
            "DELETE FROM attribute_values WHERE source_id = {source}
               AND query_key IN (SELECT key FROM queries WHERE source_id = {source});
             DELETE FROM queries WHERE source_id = {source};"
        ))
        .map_err(sql_err(&path, &context))?;
        tx.commit().map_err(sql_err(&path, &context))
    }

    /// Done queries with result pages whose bodies were not kept: what
    /// applying the rules again could not reach.
    fn pages_not_kept(&self, source: SourceId) -> Result<u64, StoreError> {
        self.conn
            .query_row(
                "SELECT count(*) FROM pages p JOIN queries q ON q.id = p.query_id
                 LEFT JOIN page_bodies b ON b.page_id = p.id
                 WHERE p.source_id = ?1 AND q.state = 'done' AND b.page_id IS NULL",
                [source],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n as u64)
            .map_err(sql_err(
                &self.path,
                format!("counting the kept pages of source {source}"),
            ))
    }

    fn kept_pages(
        &self,
        source: SourceId,
        query: Option<&str>,
    ) -> Result<(Vec<KeptPage>, u64), StoreError> {
        let context = format!("reading the kept pages of source {source}");
        let missing: i64 = self
            .conn
            .query_row(
                "SELECT count(*) FROM pages p JOIN queries q ON q.id = p.query_id
                 WHERE p.source_id = ?1
                   AND CASE WHEN ?2 IS NULL THEN q.state = 'done' ELSE q.key = ?2 END
                   AND NOT EXISTS (SELECT 1 FROM page_bodies b WHERE b.page_id = p.id)",
                params![source, query],
                |r| r.get(0),
            )
            .map_err(sql_err(&self.path, &context))?;
        let rows = self.rows(
            &context,
            "SELECT q.key, p.url, b.content_type, b.body
             FROM pages p JOIN queries q ON q.id = p.query_id
             JOIN page_bodies b ON b.page_id = p.id
             WHERE p.source_id = ?1
               AND CASE WHEN ?2 IS NULL THEN q.state = 'done' ELSE q.key = ?2 END
             ORDER BY p.id",
            params![source, query],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<String>>(2)?,
                    r.get::<_, Vec<u8>>(3)?,
                ))
            },
        )?;
        let pages = rows
            .into_iter()
            .map(|(query, url, content_type, packed)| {
                let body = unpack(&packed).map_err(|e| StoreError::Corrupt {
                    path: self.path.clone(),
                    message: format!("the kept body of {url} does not decompress: {e}"),
                })?;
                Ok(KeptPage {
                    query,
                    url,
                    content_type,
                    body,
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        Ok((pages, missing.max(0) as u64))
    }

    /// Replaces the values and records the source's queries found with
    /// `by_query` (query key → its values and records), in one transaction:
    /// what applying changed rules to the kept pages gives. Returns how many
    /// values there are now.
    fn replace_query_values(
        &mut self,
        source: SourceId,
        by_query: &[(String, IndexFragment, Vec<Record>)],
    ) -> Result<u64, StoreError> {
        let path = self.path.clone();
        let context = format!("replacing the values of source {source}");
        let tx = self.transaction(&context)?;
        tx.execute_batch(&forget_query_results(source))
            .map_err(sql_err(&path, &context))?;
        let mut added = 0;
        for (key, fragment, records) in by_query {
            added += insert_values(&tx, source, Some(key), fragment)
                .map_err(sql_err(&path, &context))?;
            insert_records(&tx, source, key, records).map_err(sql_err(&path, &context))?;
        }
        tx.commit().map_err(sql_err(&path, &context))?;
        Ok(added)
    }

    /// Marks the source's done queries as not done, and removes the values
    /// and records they found: the next gathering sends them again.
    fn reopen_queries(&mut self, source: SourceId) -> Result<(), StoreError> {
        let path = self.path.clone();
        let context = format!("reopening the queries of source {source}");
        let tx = self.transaction(&context)?;
        tx.execute_batch(&format!(
            "{}
             UPDATE queries SET state = 'pending', checkpoint = NULL
               WHERE source_id = {source} AND state = 'done';",
            forget_query_results(source)
        ))
        .map_err(sql_err(&path, &context))?;
        tx.commit().map_err(sql_err(&path, &context))
    }

    /// The file this store lives in.
    fn path(&self) -> &Path {
        &self.path
    }

    /// Adds a source or, when its URL is known, refreshes its kind, title,
    /// description, keywords, text and update time. Returns its id.
    fn upsert_source(&mut self, info: &SourceInfo) -> Result<SourceId, StoreError> {
        self.conn
            .query_row(
                "INSERT INTO sources (url, kind, title, description, keywords, text, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT (url) DO UPDATE SET
                   kind = excluded.kind, title = excluded.title,
                   description = excluded.description, keywords = excluded.keywords,
                   text = excluded.text, updated_at = excluded.updated_at
                 RETURNING id",
                params![
                    info.url,
                    info.kind.as_str(),
                    info.title,
                    info.description,
                    info.keywords,
                    info.text,
                    now()
                ],
                |r| r.get(0),
            )
            .map_err(sql_err(&self.path, format!("storing source {}", info.url)))
    }

    /// The keys of the source's queries that are done.
    fn finished_queries(&self, source: SourceId) -> Result<HashSet<String>, StoreError> {
        let keys = self.rows(
            &format!("reading the done queries of source {source}"),
            "SELECT key FROM queries WHERE source_id = ?1 AND state = 'done'",
            [source],
            |r| r.get::<_, String>(0),
        )?;
        Ok(keys.into_iter().collect())
    }

    /// Records a query as [`Store::record_query`] does, and tells which
    /// values and records were new. Its records are kept once per source:
    /// a record whose fields the source holds already keeps the query and
    /// page that gave it first.
    fn record_query_new(
        &mut self,
        source: SourceId,
        outcome: &QueryOutcome,
        // A file is not lost as a server is: nothing to wait for.
        _patient: bool,
    ) -> Result<Recorded, StoreError> {
        self.check_source(source)?;
        let path = self.path.clone();
        let context = format!("recording query {:?} of source {source}", outcome.key);
        let err = |e| sql_err(&path, &context)(e);
        let ordinal = to_i64(&path, "query ordinal", outcome.ordinal)?;
        let (mut budget, mut dropped) = (self.body_budget, 0);
        let tx = self.transaction(&context)?;
        let time = now();
        // What the first page said, kept with the query in this save.
        let mark = outcome.mark.as_ref();
        let query_id: i64 = tx
            .prepare_cached(
                "INSERT INTO queries (source_id, key, ordinal, description, state, error, attempts, started_at, finished_at, cut_short, checkpoint, answer, query_values, parent, learned, etag, last_modified, digest)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)
                 ON CONFLICT (source_id, key) DO UPDATE SET
                   ordinal = excluded.ordinal, description = excluded.description,
                   state = excluded.state, error = excluded.error, cut_short = excluded.cut_short,
                   attempts = queries.attempts + excluded.attempts,
                   finished_at = excluded.finished_at, checkpoint = excluded.checkpoint,
                   etag = CASE WHEN ?18 IS NULL THEN queries.etag ELSE excluded.etag END,
                   last_modified = CASE WHEN ?18 IS NULL THEN queries.last_modified
                                        ELSE excluded.last_modified END,
                   digest = coalesce(excluded.digest, queries.digest),
                   answer = coalesce(excluded.answer, queries.answer),
                   query_values = coalesce(excluded.query_values, queries.query_values),
                   parent = coalesce(excluded.parent, queries.parent)
                 RETURNING id",
            )
            .and_then(|mut stmt| {
                stmt.query_row(
                    params![
                    source,
                    outcome.key,
                    ordinal,
                    outcome.description,
                    outcome.state.as_str(),
                    outcome.error,
                    outcome.attempts,
                    time,
                    (outcome.state != QueryState::Pending).then_some(time),
                    outcome.cut_short,
                    outcome.checkpoint,
                    outcome.answer,
                    outcome.values,
                    outcome.parent,
                    outcome.learned,
                    mark.and_then(|m| m.validators.etag.as_deref()),
                    mark.and_then(|m| m.validators.last_modified.as_deref()),
                    mark.map(|m| m.digest.as_str()),
                    ],
                    |r| r.get(0),
                )
            })
            .map_err(err)?;
        if outcome.fresh {
            tx.prepare_cached("DELETE FROM pages WHERE query_id = ?1")
                .and_then(|mut stmt| stmt.execute([query_id]))
                .map_err(err)?;
        }
        // The walk's links: those of a walk started over or ended go.
        if outcome.fresh || outcome.checkpoint.is_none() {
            tx.prepare_cached("DELETE FROM walk_links WHERE query_id = ?1")
                .and_then(|mut stmt| stmt.execute([query_id]))
                .map_err(err)?;
        }
        if outcome.checkpoint.is_some() && !outcome.walk_links.is_empty() {
            let mut insert = tx
                .prepare_cached("INSERT INTO walk_links (query_id, link) VALUES (?1, ?2)")
                .map_err(err)?;
            for link in &outcome.walk_links {
                insert.execute(params![query_id, link]).map_err(err)?;
            }
        }
        for page in &outcome.pages {
            let page_id = insert_page(&tx, &path, source, Some(query_id), page)?;
            if let Some(kept) = &page.kept {
                let packed = kept.packed();
                if (packed.len() as u64) <= budget {
                    budget -= packed.len() as u64;
                    tx.prepare_cached(
                        "INSERT INTO page_bodies (page_id, content_type, body) VALUES (?1, ?2, ?3)",
                    )
                    .and_then(|mut stmt| stmt.execute(params![page_id, kept.content_type, packed]))
                    .map_err(err)?;
                } else {
                    dropped += 1;
                }
            }
        }
        let new_values =
            insert_values(&tx, source, Some(&outcome.key), &outcome.fragment).map_err(err)?;
        let new_records =
            insert_records(&tx, source, &outcome.key, &outcome.records).map_err(err)?;
        tx.commit().map_err(err)?;
        self.body_budget = budget;
        self.bodies_dropped += dropped;
        Ok(Recorded {
            new_values,
            new_records,
        })
    }

    /// At most `limit` of the source's answered queries after the position
    /// `after` (ordinal, row id) in the order they were planned and refined,
    /// each with its position.
    fn answered_after(
        &self,
        source: SourceId,
        after: (i64, i64),
        limit: usize,
    ) -> Result<Vec<super::AnsweredAt>, StoreError> {
        self.rows(
            &format!("reading the answers of source {source}"),
            "SELECT ordinal, id, key, query_values, answer, parent FROM queries
             WHERE source_id = ?1 AND state = 'done'
               AND answer IS NOT NULL AND query_values IS NOT NULL
               AND (ordinal > ?2 OR (ordinal = ?2 AND id > ?3))
             ORDER BY ordinal, id LIMIT ?4",
            rusqlite::params![source, after.0, after.1, limit as i64],
            |r| Ok(((r.get(0)?, r.get(1)?), answered(r, 2)?)),
        )
    }

    /// The answered queries among `keys`, in the order of `keys`.
    fn answered_among(
        &self,
        source: SourceId,
        keys: &[String],
    ) -> Result<Vec<AnsweredQuery>, StoreError> {
        let mut out = Vec::new();
        for key in keys {
            out.extend(self.rows(
                &format!("reading the answers of source {source}"),
                "SELECT key, query_values, answer, parent FROM queries
                 WHERE source_id = ?1 AND key = ?2 AND state = 'done'
                   AND answer IS NOT NULL AND query_values IS NOT NULL",
                rusqlite::params![source, key],
                |r| answered(r, 0),
            )?);
        }
        Ok(out)
    }

    /// The keys among `keys` of the source's done queries.
    fn finished_among(
        &self,
        source: SourceId,
        keys: &[String],
    ) -> Result<HashSet<String>, StoreError> {
        let mut done = HashSet::new();
        for key in keys {
            let found = self.rows(
                &format!("reading the done queries of source {source}"),
                "SELECT key FROM queries WHERE source_id = ?1 AND key = ?2 AND state = 'done'",
                rusqlite::params![source, key],
                |r| r.get::<_, String>(0),
            )?;
            done.extend(found);
        }
        Ok(done)
    }

    /// How many of the source's queries are done.
    fn finished_count(&self, source: SourceId) -> Result<u64, StoreError> {
        self.conn
            .query_row(
                "SELECT count(*) FROM queries WHERE source_id = ?1 AND state = 'done'",
                [source],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n.max(0) as u64)
            .map_err(sql_err(
                &self.path,
                &format!("counting the done queries of source {source}"),
            ))
    }

    /// The element values (JSON pairs) of every stored query of the
    /// source, in any state.
    fn query_values(&self, source: SourceId) -> Result<Vec<String>, StoreError> {
        self.rows(
            &format!("reading the query values of source {source}"),
            "SELECT query_values FROM queries WHERE source_id = ?1 AND query_values IS NOT NULL",
            [source],
            |r| r.get(0),
        )
    }

    fn values_found_by(
        &self,
        source: SourceId,
        keys: &[String],
    ) -> Result<Vec<(String, String)>, StoreError> {
        let e = || {
            sql_err(
                &self.path,
                format!("reading the values of the queries of source {source}"),
            )
        };
        let mut found = self
            .conn
            .prepare_cached(
                "SELECT value FROM attribute_values WHERE source_id = ?1 AND query_key = ?2 ORDER BY id",
            )
            .map_err(e())?;
        let mut values = Vec::new();
        for key in keys {
            let rows = found
                .query_map(rusqlite::params![source, key], |r| r.get::<_, String>(0))
                .map_err(e())?;
            for value in rows {
                values.push((key.clone(), value.map_err(e())?));
            }
        }
        Ok(values)
    }

    /// How many queries of the source are stored (any state), and how many
    /// of them are refined queries.
    fn query_counts(&self, source: SourceId) -> Result<(u64, u64), StoreError> {
        self.conn
            .query_row(
                "SELECT count(*), count(parent) FROM queries WHERE source_id = ?1",
                [source],
                |r| Ok((r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)? as u64)),
            )
            .map_err(sql_err(
                &self.path,
                &format!("counting the queries of source {source}"),
            ))
    }

    /// The checkpoints of the source's queries that are not done: query key
    /// → where its navigator stood ([`QueryOutcome::checkpoint`]).
    fn checkpoints(&self, source: SourceId) -> Result<HashMap<String, String>, StoreError> {
        let context = format!("reading the checkpoints of source {source}");
        let rows = self.rows(
            &context,
            "SELECT key, checkpoint FROM queries
             WHERE source_id = ?1 AND state != 'done' AND checkpoint IS NOT NULL",
            [source],
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)),
        )?;
        let mut links: HashMap<String, Vec<String>> = HashMap::new();
        for (key, link) in self.rows(
            &context,
            "SELECT q.key, w.link FROM walk_links w JOIN queries q ON q.id = w.query_id
             WHERE q.source_id = ?1 AND q.state != 'done' AND q.checkpoint IS NOT NULL
             ORDER BY w.id",
            [source],
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)),
        )? {
            links.entry(key).or_default().push(link);
        }
        Ok(rows
            .into_iter()
            .map(|(key, checkpoint)| {
                let found = links.remove(&key).unwrap_or_default();
                (key, with_links(checkpoint, found))
            })
            .collect())
    }

    /// Records values outside a query (values the provider lists, a
    /// cooperative summarizer's answer) with the given provenance, in one
    /// transaction. Returns how many were new.
    fn record_values(
        &mut self,
        source: SourceId,
        provenance: Option<&str>,
        fragment: &IndexFragment,
    ) -> Result<u64, StoreError> {
        self.check_source(source)?;
        let path = self.path.clone();
        let context = format!("recording the values of source {source}");
        let tx = self.transaction(&context)?;
        let added =
            insert_values(&tx, source, provenance, fragment).map_err(sql_err(&path, &context))?;
        tx.commit().map_err(sql_err(&path, &context))?;
        Ok(added)
    }

    /// Records a page fetched for a source outside its queries (the form
    /// page, a configuration file, a summarizer's answer). A page with the
    /// same URL recorded earlier outside the queries is replaced, so reruns do
    /// not count it twice.
    fn record_page(&mut self, source: SourceId, page: &PageRecord) -> Result<(), StoreError> {
        self.check_source(source)?;
        let path = self.path.clone();
        let context = format!("recording page {} of source {source}", page.url);
        let tx = self.transaction(&context)?;
        tx.execute(
            "DELETE FROM pages WHERE source_id = ?1 AND query_id IS NULL AND url = ?2",
            params![source, page.url],
        )
        .map_err(sql_err(&path, &context))?;
        insert_page(&tx, &path, source, None, page)?;
        tx.commit().map_err(sql_err(&path, &context))
    }

    /// Marks the source's content as incomplete (a limit cut the gathering
    /// short, queries failed) with the reason, or as complete with `None`.
    fn set_incomplete(&mut self, source: SourceId, reason: Option<&str>) -> Result<(), StoreError> {
        let changed = self
            .conn
            .execute(
                "UPDATE sources SET incomplete = ?2, incomplete_reason = ?3 WHERE id = ?1",
                params![source, reason.is_some(), reason],
            )
            .map_err(sql_err(&self.path, format!("marking source {source}")))?;
        if changed == 0 {
            return Err(self.unknown(source));
        }
        Ok(())
    }

    /// Counts for one source.
    fn stats(&self, source: SourceId) -> Result<SourceStats, StoreError> {
        let context = format!("counting for source {source}");
        let e = || sql_err(&self.path, &context);
        let incomplete: Option<Option<String>> = self
            .conn
            .query_row(
                "SELECT CASE WHEN incomplete THEN coalesce(incomplete_reason, '') END FROM sources WHERE id = ?1",
                [source],
                |r| r.get(0),
            )
            .optional()
            .map_err(e())?;
        let Some(incomplete) = incomplete else {
            return Err(self.unknown(source));
        };
        let (queries_done, queries_failed, queries_cut_short): (i64, i64, i64) = self
            .conn
            .query_row(
                "SELECT count(*) FILTER (WHERE state = 'done'), count(*) FILTER (WHERE state = 'failed'),
                        count(*) FILTER (WHERE state = 'done' AND cut_short)
                 FROM queries WHERE source_id = ?1",
                [source],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .map_err(e())?;
        let (pages, bytes): (i64, i64) = self
            .conn
            .query_row(
                "SELECT count(*), coalesce(sum(bytes), 0) FROM pages WHERE source_id = ?1",
                [source],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(e())?;
        let values_per_attribute = self
            .rows(
                &context,
                "SELECT attribute, count(*) FROM attribute_values
                 WHERE source_id = ?1 AND gone_at IS NULL GROUP BY attribute",
                [source],
                |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64)),
            )?
            .into_iter()
            .collect();
        Ok(SourceStats {
            queries_done: queries_done as u64,
            queries_failed: queries_failed as u64,
            queries_cut_short: queries_cut_short as u64,
            pages: pages as u64,
            bytes: bytes as u64,
            values_per_attribute,
            records: self.record_count(source)?,
            incomplete,
        })
    }

    /// Every source, ordered by URL.
    fn sources(&self) -> Result<Vec<SourceRecord>, StoreError> {
        let rows = self.rows(
            "reading the sources",
            "SELECT id, url, kind, title, description, keywords, text, updated_at,
                    CASE WHEN incomplete THEN coalesce(incomplete_reason, '') END
             FROM sources ORDER BY url",
            [],
            |r| {
                Ok((
                    r.get::<_, String>(2)?,
                    SourceRecord {
                        id: r.get(0)?,
                        info: SourceInfo {
                            url: r.get(1)?,
                            kind: SourceKind::Page,
                            title: r.get(3)?,
                            description: r.get(4)?,
                            keywords: r.get(5)?,
                            text: r.get(6)?,
                        },
                        updated_at: r.get(7)?,
                        incomplete: r.get(8)?,
                    },
                ))
            },
        )?;
        rows.into_iter()
            .map(|(kind, mut record)| {
                record.info.kind = SourceKind::parse(&kind).ok_or_else(|| StoreError::Corrupt {
                    path: self.path.clone(),
                    message: format!("source {} has unknown kind {kind:?}", record.info.url),
                })?;
                Ok(record)
            })
            .collect()
    }

    /// The source's values per attribute, each list sorted by UTF-8 bytes.
    fn values(&self, source: SourceId) -> Result<BTreeMap<String, Vec<String>>, StoreError> {
        let rows = self.rows(
            &format!("reading the values of source {source}"),
            "SELECT attribute, value FROM attribute_values WHERE source_id = ?1 AND gone_at IS NULL
             ORDER BY CAST(attribute AS BLOB), CAST(value AS BLOB)",
            [source],
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)),
        )?;
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (attribute, value) in rows {
            out.entry(attribute).or_default().push(value);
        }
        Ok(out)
    }

    fn attribute_values(
        &self,
        source: SourceId,
        attribute: &str,
    ) -> Result<Vec<String>, StoreError> {
        self.rows(
            &format!("reading the {attribute} values of source {source}"),
            "SELECT value FROM attribute_values
             WHERE source_id = ?1 AND attribute = ?2 AND gone_at IS NULL
             ORDER BY CAST(value AS BLOB)",
            rusqlite::params![source, attribute],
            |r| r.get::<_, String>(0),
        )
    }

    /// The number of records the source holds.
    fn record_count(&self, source: SourceId) -> Result<u64, StoreError> {
        self.conn
            .query_row(
                "SELECT count(*) FROM records WHERE source_id = ?1 AND gone_at IS NULL",
                [source],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n as u64)
            .map_err(sql_err(
                &self.path,
                format!("counting the records of source {source}"),
            ))
    }

    /// Calls `each` with every record, sources in the order of their URLs,
    /// a source's records in the order they were first stored.
    fn each_record(
        &self,
        each: &mut dyn FnMut(StoredRecord) -> ControlFlow<()>,
    ) -> Result<(), StoreError> {
        let context = "reading the records";
        let e = || sql_err(&self.path, context);
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT s.url, r.query_key, q.description, r.page_url, r.ordinal, r.fields
                 FROM records r
                 JOIN sources s ON s.id = r.source_id
                 LEFT JOIN queries q ON q.source_id = r.source_id AND q.key = r.query_key
                 WHERE r.gone_at IS NULL
                 ORDER BY s.url, r.id",
            )
            .map_err(e())?;
        let mut rows = stmt.query([]).map_err(e())?;
        while let Some(row) = rows.next().map_err(e())? {
            let record = stored_record(&self.path, row)?;
            if each(record).is_break() {
                break;
            }
        }
        Ok(())
    }

    /// The values that hold `term`, ordered by source URL, attribute and
    /// value; then the sources whose title or text holds it, by URL
    /// (attribute [`TEXT_ATTRIBUTE`], the words around the term as the
    /// value). Full-text search: case-insensitive, diacritics folded for
    /// Latin letters, whole words; a trailing `*` makes the last word a
    /// prefix. A term with no word in it finds nothing.
    fn search(&self, term: &str) -> Result<Vec<Hit>, StoreError> {
        let (Some(values_query), Some(texts_query)) =
            (fts_query(term, "value"), fts_query(term, "{title text}"))
        else {
            return Ok(Vec::new());
        };
        let mut hits = self.rows(
            &format!("searching for {term:?}"),
            "SELECT s.url, v.attribute, v.value, v.query_key, q.description
             FROM values_fts f
             JOIN attribute_values v ON v.id = f.rowid
             JOIN sources s ON s.id = v.source_id
             LEFT JOIN queries q ON q.source_id = v.source_id AND q.key = v.query_key
             WHERE values_fts MATCH ?1 AND v.gone_at IS NULL
             ORDER BY s.url, CAST(v.attribute AS BLOB), CAST(v.value AS BLOB)",
            [values_query],
            |r| {
                Ok(Hit {
                    term: term.to_string(),
                    source: r.get(0)?,
                    attribute: r.get(1)?,
                    value: r.get(2)?,
                    provenance: r.get(3)?,
                    query: r.get(4)?,
                })
            },
        )?;
        // Titles and texts (of ordinary pages above all): the words around
        // the term.
        hits.extend(self.rows(
            &format!("searching the texts for {term:?}"),
            "SELECT s.url, snippet(texts_fts, -1, '', '', '…', 12)
             FROM texts_fts f JOIN sources s ON s.id = f.rowid
             WHERE texts_fts MATCH ?1
             ORDER BY s.url",
            [texts_query],
            |r| {
                Ok(Hit {
                    term: term.to_string(),
                    source: r.get(0)?,
                    attribute: TEXT_ATTRIBUTE.to_string(),
                    value: r.get(1)?,
                    provenance: None,
                    query: None,
                })
            },
        )?);
        Ok(hits)
    }

    /// The sources and their queries by state; a SQLite file has no
    /// workers and no leases.
    fn status(&self) -> Result<Status, StoreError> {
        let sources = self.rows(
            "reading the status",
            "SELECT s.url, s.kind,
                    (SELECT count(*) FROM queries q WHERE q.source_id = s.id AND q.state = 'pending'),
                    (SELECT count(*) FROM queries q WHERE q.source_id = s.id AND q.state = 'done'),
                    (SELECT count(*) FROM queries q WHERE q.source_id = s.id AND q.state = 'failed'),
                    (SELECT count(*) FROM queries q WHERE q.source_id = s.id AND q.state = 'done' AND q.cut_short),
                    (SELECT count(*) FROM pages p WHERE p.source_id = s.id)
             FROM sources s ORDER BY s.url",
            [],
            |r| {
                Ok(StatusSource {
                    url: r.get(0)?,
                    kind: r.get(1)?,
                    pending: r.get::<_, i64>(2)? as u64,
                    leased: 0,
                    done: r.get::<_, i64>(3)? as u64,
                    failed: r.get::<_, i64>(4)? as u64,
                    truncated: r.get::<_, i64>(5)? as u64,
                    pages: r.get::<_, i64>(6)? as u64,
                })
            },
        )?;
        let recent: i64 = self
            .conn
            .query_row(
                "SELECT count(*) FROM pages WHERE fetched_at > ?1",
                [now() - 60],
                |r| r.get(0),
            )
            .map_err(sql_err(&self.path, "counting the recent pages"))?;
        Ok(Status {
            sources,
            workers_alive: Vec::new(),
            workers_dead: Vec::new(),
            planners_alive: Vec::new(),
            requests_per_second: recent as f64 / 60.0,
            host_waits: Vec::new(),
        })
    }

    fn records_without_key(&self, source: SourceId) -> Result<Vec<(i64, String)>, StoreError> {
        self.rows(
            &format!("reading the records of source {source}"),
            "SELECT id, fields FROM records WHERE source_id = ?1 AND record_key IS NULL",
            [source],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
    }

    fn set_record_keys(&mut self, keys: &[(i64, String)]) -> Result<(), StoreError> {
        let path = self.path.clone();
        let context = "keying the records";
        let tx = self.transaction(context)?;
        {
            let mut stmt = tx
                .prepare_cached("UPDATE records SET record_key = ?2 WHERE id = ?1")
                .map_err(sql_err(&path, context))?;
            for (id, key) in keys {
                stmt.execute(params![id, key])
                    .map_err(sql_err(&path, context))?;
            }
        }
        tx.commit().map_err(sql_err(&path, context))
    }

    fn open_for_refresh(
        &mut self,
        source: SourceId,
        due_only: bool,
    ) -> Result<RefreshStart, StoreError> {
        self.check_source(source)?;
        let path = self.path.clone();
        let context = format!("opening the queries of source {source} for a refresh");
        let tx = self.transaction(&context)?;
        let begun: Option<i64> = tx
            .query_row(
                "SELECT refresh_since FROM sources WHERE id = ?1",
                [source],
                |r| r.get(0),
            )
            .map_err(sql_err(&path, &context))?;
        let since: i64 = match begun {
            Some(since) => since,
            None => tx
                .query_row(&format!("SELECT {NOW_MS}"), [], |r| r.get(0))
                .map_err(sql_err(&path, &context))?,
        };
        let marks = {
            let mut stmt = tx
                .prepare_cached(
                    "SELECT key, etag, last_modified, digest, cut_short, refresh_interval FROM queries
                     WHERE source_id = ?1 AND digest IS NOT NULL AND state != 'failed'",
                )
                .map_err(sql_err(&path, &context))?;
            let rows = stmt
                .query_map([source], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        AnswerMark {
                            validators: crate::fetch::Validators {
                                etag: r.get(1)?,
                                last_modified: r.get(2)?,
                            },
                            digest: r.get(3)?,
                            cut_short: r.get(4)?,
                            interval: r.get(5)?,
                        },
                    ))
                })
                .and_then(|rows| rows.collect::<Result<HashMap<_, _>, _>>())
                .map_err(sql_err(&path, &context))?;
            rows
        };
        // A refresh begun before goes on: what it finished stays done.
        if begun.is_none() {
            tx.execute(
                "UPDATE queries SET state = 'pending', checkpoint = NULL
                 WHERE source_id = ?1 AND state = 'done'
                   AND (NOT ?2 OR due_at IS NULL OR due_at <= ?3)",
                params![source, due_only, since],
            )
            .map_err(sql_err(&path, &context))?;
            tx.execute(
                "UPDATE sources SET refresh_since = ?2 WHERE id = ?1",
                params![source, since],
            )
            .map_err(sql_err(&path, &context))?;
        }
        tx.commit().map_err(sql_err(&path, &context))?;
        Ok(RefreshStart {
            since,
            marks,
            resumed: begun.is_some(),
        })
    }

    fn end_refresh(&mut self, source: SourceId) -> Result<(), StoreError> {
        let path = self.path.clone();
        let context = format!("ending the refresh of source {source}");
        self.conn
            .execute(
                "UPDATE sources SET refresh_since = NULL WHERE id = ?1",
                [source],
            )
            .map_err(sql_err(&path, &context))
            .map(|_| ())
    }

    fn schedule(&self, source: SourceId) -> Result<Schedule, StoreError> {
        self.conn
            .query_row(
                &format!(
                    "SELECT count(due_at),
                            coalesce(sum(due_at IS NULL OR due_at <= {NOW_MS}), 0),
                            min(CASE WHEN due_at > {NOW_MS} THEN due_at END)
                     FROM queries WHERE source_id = ?1 AND state = 'done'"
                ),
                [source],
                |r| {
                    Ok(Schedule {
                        scheduled: r.get::<_, i64>(0)?.max(0) as u64,
                        due: r.get::<_, i64>(1)?.max(0) as u64,
                        next: r.get(2)?,
                    })
                },
            )
            .map_err(sql_err(
                &self.path,
                format!("reading the refresh schedule of source {source}"),
            ))
    }

    fn set_schedule(
        &mut self,
        source: SourceId,
        key: &str,
        interval: i64,
        due_at: i64,
    ) -> Result<(), StoreError> {
        self.conn
            .prepare_cached(
                "UPDATE queries SET refresh_interval = ?3, due_at = ?4
                 WHERE source_id = ?1 AND key = ?2",
            )
            .and_then(|mut stmt| stmt.execute(params![source, key, interval, due_at]))
            .map(|_| ())
            .map_err(sql_err(
                &self.path,
                format!("scheduling query {key:?} (source {source})"),
            ))
    }

    fn touch_records(
        &mut self,
        source: SourceId,
        query_key: &str,
        since: i64,
    ) -> Result<(), StoreError> {
        let path = self.path.clone();
        let context = format!("seeing the records of query {query_key:?} again (source {source})");
        let err = |e| sql_err(&path, &context)(e);
        let tx = self.transaction(&context)?;
        let fields = tx
            .prepare_cached(&format!(
                "UPDATE records SET last_seen = {NOW_MS}
                 WHERE source_id = ?1 AND query_key = ?2 AND gone_at IS NULL
                 RETURNING fields"
            ))
            .and_then(|mut stmt| {
                stmt.query_map(params![source, query_key], |r| r.get::<_, String>(0))?
                    .collect::<rusqlite::Result<Vec<String>>>()
            })
            .map_err(err)?;
        let held: ValuePairs = fields
            .iter()
            .flat_map(|f| history::held_values_json(f))
            .collect();
        see_values(
            &tx,
            source,
            held.iter().map(|(a, v)| (a.as_str(), v.as_str())),
            since,
        )
        .map_err(err)?;
        tx.commit().map_err(err)
    }

    fn see_values(
        &mut self,
        source: SourceId,
        fragment: &IndexFragment,
        since: i64,
    ) -> Result<(), StoreError> {
        if fragment.is_empty() {
            return Ok(());
        }
        let path = self.path.clone();
        let context = format!("seeing the values of source {source} again");
        let tx = self.transaction(&context)?;
        see_values(&tx, source, fragment_pairs(fragment), since)
            .and_then(|()| tx.commit())
            .map_err(sql_err(&path, &context))
    }

    fn refresh_records(
        &mut self,
        source: SourceId,
        query_key: &str,
        records: &[KeyedRecord<'_>],
        refreshing: Refreshing,
    ) -> Result<Vec<usize>, StoreError> {
        let path = self.path.clone();
        let context = format!("refreshing the records of query {query_key:?} (source {source})");
        let err = |e| sql_err(&path, &context)(e);
        let tx = self.transaction(&context)?;
        let since = refreshing.since;
        let mut added = Vec::new();
        // The values the records changed or gone here held ([`history`]).
        let mut candidates = ValuePairs::new();
        for (i, (record, key)) in records.iter().enumerate() {
            let fields = record.fields.to_json();
            let ordinal = i64::try_from(record.ordinal).unwrap_or(i64::MAX);
            let same: Option<(i64, Option<i64>)> = tx
                .prepare_cached(
                    "SELECT id, gone_at FROM records WHERE source_id = ?1 AND fields = ?2",
                )
                .and_then(|mut stmt| {
                    stmt.query_row(params![source, fields], |r| Ok((r.get(0)?, r.get(1)?)))
                        .optional()
                })
                .map_err(err)?;
            if let Some((id, gone)) = same {
                // Seen again; one gone before this refresh is back: new.
                tx.prepare_cached(&format!(
                    "UPDATE records SET last_seen = {NOW_MS}, record_key = ?2,
                       first_seen = CASE WHEN gone_at < ?3 THEN {NOW_MS} ELSE first_seen END,
                       gone_at = NULL
                     WHERE id = ?1"
                ))
                .and_then(|mut stmt| stmt.execute(params![id, key, since]))
                .map_err(err)?;
                if gone.is_some_and(|t| t < since) {
                    added.push(i);
                }
                continue;
            }
            let keyed: Option<(i64, String, Option<i64>)> = tx
                .prepare_cached(
                    "SELECT id, fields, gone_at FROM records
                     WHERE source_id = ?1 AND record_key = ?2 AND coalesce(last_seen, 0) < ?3
                     ORDER BY id LIMIT 1",
                )
                .and_then(|mut stmt| {
                    stmt.query_row(params![source, key, since], |r| {
                        Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                    })
                    .optional()
                })
                .map_err(err)?;
            if let Some((id, before, gone)) = keyed {
                let before = Fields::from_json(&before).unwrap_or_default();
                let names = super::history::changed_fields(&before, &record.fields);
                candidates.extend(history::dropped_values(&before, &record.fields));
                let revived = gone.is_some_and(|t| t < since);
                tx.prepare_cached(&format!(
                    "UPDATE records SET fields = ?2, page_url = ?3, ordinal = ?4,
                       last_seen = {NOW_MS}, gone_at = NULL,
                       first_seen = CASE WHEN ?6 THEN {NOW_MS} ELSE first_seen END,
                       changed_at = {NOW_MS}, changed_fields = ?5
                     WHERE id = ?1"
                ))
                .and_then(|mut stmt| {
                    stmt.execute(params![
                        id,
                        fields,
                        record.page,
                        ordinal,
                        serde_json::to_string(&names).unwrap_or_default(),
                        revived
                    ])
                })
                .map_err(err)?;
                if revived {
                    added.push(i);
                }
                continue;
            }
            tx.prepare_cached(&format!(
                "INSERT INTO records (source_id, query_key, page_url, ordinal, fields, record_key,
                                          first_seen, last_seen)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, {NOW_MS}, {NOW_MS})"
            ))
            .and_then(|mut stmt| {
                stmt.execute(params![
                    source,
                    query_key,
                    record.page,
                    ordinal,
                    fields,
                    key
                ])
            })
            .map_err(err)?;
            added.push(i);
        }
        if refreshing.whole {
            let gone = tx
                .prepare_cached(&format!(
                    "UPDATE records SET gone_at = {NOW_MS}
                     WHERE source_id = ?1 AND query_key = ?2 AND gone_at IS NULL
                       AND coalesce(last_seen, 0) < ?3
                     RETURNING fields"
                ))
                .and_then(|mut stmt| {
                    stmt.query_map(params![source, query_key, since], |r| r.get::<_, String>(0))?
                        .collect::<rusqlite::Result<Vec<String>>>()
                })
                .map_err(err)?;
            for fields in &gone {
                candidates.extend(history::held_values_json(fields));
            }
        }
        mark_values_gone(&tx, source, &candidates, since).map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(added)
    }

    fn values_gone(&self, source: SourceId, since: i64) -> Result<Vec<(String, u64)>, StoreError> {
        self.rows(
            &format!("counting the values of source {source} gone"),
            "SELECT attribute, count(*) FROM attribute_values
             WHERE source_id = ?1 AND gone_at >= ?2 GROUP BY attribute",
            params![source, since],
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?.max(0) as u64)),
        )
    }

    fn history(&self, source: Option<SourceId>, since: i64) -> Result<Vec<HistoryRow>, StoreError> {
        let context = "reading the records' history";
        let e = || sql_err(&self.path, context);
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT s.url, r.query_key, q.description, r.page_url, r.ordinal, r.fields,
                        r.first_seen, r.changed_at, r.changed_fields, r.gone_at
                 FROM records r
                 JOIN sources s ON s.id = r.source_id
                 LEFT JOIN queries q ON q.source_id = r.source_id AND q.key = r.query_key
                 WHERE (?1 IS NULL OR r.source_id = ?1)
                   AND (r.first_seen >= ?2 OR r.changed_at >= ?2 OR r.gone_at >= ?2)
                 ORDER BY s.url, r.id",
            )
            .map_err(e())?;
        let mut rows = stmt.query(params![source, since]).map_err(e())?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(e())? {
            let record = stored_record(&self.path, row)?;
            let read = |row: &rusqlite::Row<'_>| -> rusqlite::Result<_> {
                Ok(HistoryRow {
                    record,
                    first_seen: row.get(6)?,
                    changed_at: row.get(7)?,
                    changed_fields: row.get(8)?,
                    gone_at: row.get(9)?,
                })
            };
            out.push(read(row).map_err(e())?);
        }
        Ok(out)
    }
}

/// An FTS5 query matching `term` in the value column: the term's words as
/// one phrase (quoted, so no FTS5 syntax in a term can break the query), a
/// trailing `*` kept as a prefix marker. `None` when the term has no word.
fn fts_query(term: &str, columns: &str) -> Option<String> {
    let normalized = normalize(term);
    let (body, prefix) = match normalized.strip_suffix('*') {
        Some(rest) => (rest.trim_end(), true),
        None => (normalized.as_str(), false),
    };
    if !body.chars().any(char::is_alphanumeric) {
        return None;
    }
    let quoted = format!("\"{}\"", body.replace('"', "\"\""));
    Some(format!(
        "{columns} : {quoted}{}",
        if prefix { " *" } else { "" }
    ))
}

fn sql_err(path: &Path, context: impl Into<String>) -> impl FnOnce(rusqlite::Error) -> StoreError {
    let path = path.to_path_buf();
    let context = context.into();
    move |source| StoreError::Sqlite {
        path,
        context,
        source,
    }
}

/// An answered query from the columns key, query_values, answer, parent
/// starting at `at`.
fn answered(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<AnsweredQuery> {
    Ok(AnsweredQuery {
        key: r.get(at)?,
        values: r.get(at + 1)?,
        answer: r.get(at + 2)?,
        parent: r.get(at + 3)?,
    })
}

fn to_i64(path: &Path, what: &'static str, value: u64) -> Result<i64, StoreError> {
    i64::try_from(value).map_err(|_| StoreError::TooLarge {
        path: path.to_path_buf(),
        what,
        value,
    })
}

fn insert_page(
    tx: &Transaction<'_>,
    path: &Path,
    source: SourceId,
    query: Option<i64>,
    page: &PageRecord,
) -> Result<i64, StoreError> {
    let bytes = to_i64(path, "page size", page.bytes)?;
    let elapsed = to_i64(path, "elapsed milliseconds", page.elapsed_ms)?;
    tx.prepare_cached(
        "INSERT INTO pages (source_id, query_id, url, status, bytes, sha256, fetched_at, elapsed_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )
    .and_then(|mut stmt| {
        stmt.execute(params![
            source,
            query,
            page.url,
            page.status,
            bytes,
            page.sha256,
            page.fetched_at,
            elapsed
        ])
    })
    .map_err(sql_err(path, format!("recording page {}", page.url)))?;
    Ok(tx.last_insert_rowid())
}

/// Inserts the fragment's values that are new for the source; returns how
/// many were. Values are normalized again, so a fragment built elsewhere
/// cannot bring in a second spelling of a known value.
///
/// All of them go in with one statement: the full-text index (`values_fts`,
/// filled by a trigger) writes what it holds to disk at the start of every
/// statement that changes it, so one statement per value wrote a segment
/// per value.
fn insert_values(
    tx: &Transaction<'_>,
    source: SourceId,
    provenance: Option<&str>,
    fragment: &IndexFragment,
) -> Result<u64, rusqlite::Error> {
    if fragment.is_empty() {
        return Ok(0);
    }
    // A fragment's values are normalized and not empty already.
    let rows = pairs_json(fragment_pairs(fragment))?;
    let mut stmt = tx.prepare_cached(
        "INSERT OR IGNORE INTO attribute_values (source_id, attribute, value, query_key,
                                                 first_seen, last_seen)
         SELECT ?1, json_extract(r.value, '$[0]'), json_extract(r.value, '$[1]'), ?3, t.now, t.now
         FROM json_each(?2) AS r,
              (SELECT CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) AS now) AS t
         ORDER BY r.key",
    )?;
    Ok(stmt.execute(params![source, rows, provenance])? as u64)
}

/// A fragment's (attribute, value) pairs.
fn fragment_pairs(fragment: &IndexFragment) -> impl Iterator<Item = (&str, &str)> {
    fragment
        .iter()
        .flat_map(|(attribute, values)| values.iter().map(move |v| (attribute, v.as_str())))
}

/// (attribute, value) pairs as a JSON list of pairs, for `json_each`.
fn pairs_json<'a>(pairs: impl Iterator<Item = (&'a str, &'a str)>) -> rusqlite::Result<String> {
    serde_json::to_string(&pairs.collect::<Vec<_>>())
        .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))
}

/// The source `?1`'s values among the pairs `?2` ([`pairs_json`]), as
/// `v`: each pair looked up in the values' index (`CROSS JOIN` keeps the
/// pairs outside, where the planner would read all the source's values
/// for each pair).
const VALUES_AMONG: &str = "json_each(?2) AS p
     CROSS JOIN attribute_values v ON v.source_id = ?1
       AND v.attribute = json_extract(p.value, '$[0]') AND v.value = json_extract(p.value, '$[1]')";

/// The source's values among `pairs` are seen now: a gone one is live
/// again (new, when it was gone before `since`). A value seen since
/// `since` already is not written again.
fn see_values<'a>(
    tx: &Transaction<'_>,
    source: SourceId,
    pairs: impl Iterator<Item = (&'a str, &'a str)>,
    since: i64,
) -> rusqlite::Result<()> {
    let pairs = pairs_json(pairs)?;
    tx.prepare_cached(&format!(
        "UPDATE attribute_values SET last_seen = {NOW_MS},
           first_seen = CASE WHEN gone_at < ?3 THEN {NOW_MS} ELSE first_seen END,
           gone_at = NULL
         WHERE id IN (SELECT v.id FROM {VALUES_AMONG})
           AND (gone_at IS NOT NULL OR coalesce(last_seen, 0) < ?3)"
    ))?
    .execute(params![source, pairs, since])?;
    Ok(())
}

/// The `candidates` that no live record of the source holds, that were
/// not seen since `since`, and that a query found (not listed) are gone,
/// at `since` ([`history`]).
fn mark_values_gone(
    tx: &Transaction<'_>,
    source: SourceId,
    candidates: &ValuePairs,
    since: i64,
) -> rusqlite::Result<()> {
    if candidates.is_empty() {
        return Ok(());
    }
    let pairs = pairs_json(candidates.iter().map(|(a, v)| (a.as_str(), v.as_str())))?;
    // Most candidates were seen in the refresh already: the records are
    // read for the others only.
    let open = tx
        .prepare_cached(&format!(
            "SELECT v.attribute, v.value FROM {VALUES_AMONG}
             WHERE v.gone_at IS NULL AND coalesce(v.last_seen, 0) < ?3
               AND v.query_key IN (SELECT key FROM queries WHERE source_id = ?1)"
        ))?
        .query_map(params![source, pairs, since], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?
        .collect::<rusqlite::Result<ValuePairs>>()?;
    if open.is_empty() {
        return Ok(());
    }
    let needles = serde_json::to_string(&history::needles(&open))
        .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
    let holding = tx
        .prepare_cached(
            "SELECT fields FROM records r WHERE r.source_id = ?1 AND r.gone_at IS NULL
               AND EXISTS (SELECT 1 FROM json_each(?2) AS n WHERE instr(r.fields, n.value) > 0)",
        )?
        .query_map(params![source, needles], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    let gone = history::not_held(open, holding);
    if gone.is_empty() {
        return Ok(());
    }
    let pairs = pairs_json(gone.iter().map(|(a, v)| (a.as_str(), v.as_str())))?;
    tx.prepare_cached(&format!(
        "UPDATE attribute_values SET gone_at = ?3 WHERE id IN (SELECT v.id FROM {VALUES_AMONG})"
    ))?
    .execute(params![source, pairs, since])?;
    Ok(())
}

/// SQL removing the values and records the source's queries found.
fn forget_query_results(source: SourceId) -> String {
    format!(
        "DELETE FROM attribute_values WHERE source_id = {source}
           AND query_key IN (SELECT key FROM queries WHERE source_id = {source});
         DELETE FROM records WHERE source_id = {source}
           AND query_key IN (SELECT key FROM queries WHERE source_id = {source});"
    )
}

/// Inserts the records the source does not hold yet; returns their
/// positions in `records`.
fn insert_records(
    tx: &Transaction<'_>,
    source: SourceId,
    query_key: &str,
    records: &[Record],
) -> Result<Vec<usize>, rusqlite::Error> {
    // First and last seen written by the insert itself ('now' is one time
    // within a statement).
    let mut stmt = tx.prepare_cached(&format!(
        "INSERT OR IGNORE INTO records (source_id, query_key, page_url, ordinal, fields,
                                        first_seen, last_seen)
         VALUES (?1, ?2, ?3, ?4, ?5, {NOW_MS}, {NOW_MS})"
    ))?;
    let mut added = Vec::new();
    for (i, record) in records.iter().enumerate() {
        let ordinal = i64::try_from(record.ordinal).unwrap_or(i64::MAX);
        let fields = record.fields.to_json();
        if stmt.execute(params![source, query_key, record.page, ordinal, fields])? > 0 {
            added.push(i);
        }
    }
    Ok(added)
}

/// The time now in milliseconds since the epoch, in SQL.
const NOW_MS: &str = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)";

/// A record read from the columns source URL, query key, query
/// description, page, ordinal and fields (the first six).
fn stored_record(path: &Path, row: &rusqlite::Row<'_>) -> Result<StoredRecord, StoreError> {
    let read = |row: &rusqlite::Row<'_>| -> rusqlite::Result<_> {
        Ok((
            row.get::<_, String>(0)?,
            row.get::<_, Option<String>>(1)?,
            row.get::<_, Option<String>>(2)?,
            row.get::<_, String>(3)?,
            row.get::<_, i64>(4)?,
            row.get::<_, String>(5)?,
        ))
    };
    let (source, query_key, query, page, ordinal, fields) =
        read(row).map_err(sql_err(path, "reading the records"))?;
    let fields = Fields::from_json(&fields).map_err(|err| StoreError::Corrupt {
        path: path.to_path_buf(),
        message: format!("a record of {source} has unreadable fields: {err}"),
    })?;
    Ok(StoredRecord {
        source,
        query_key,
        query,
        record: Record {
            page,
            ordinal: ordinal.max(0) as u64,
            fields,
        },
    })
}

//! The store's PostgreSQL back-end.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures::executor::block_on;
use tokio_postgres::{Client, Row, Transaction};

use super::shared_plan::{host_wait, HOST_WAITS};
use super::{connect, is_lost, message, next_pause, pg_err, schema, search_words, shown, ts_query};
use super::{unreached, waiting, Statements};
use crate::fragment::IndexFragment;
use crate::record::{Fields, Record};
use crate::store::backend::Backend;
use crate::store::history::{
    self, AnswerMark, HistoryRow, KeyedRecord, RefreshStart, Refreshing, Schedule, ValuePairs,
};
use crate::store::{
    now, unpack, with_links, AnsweredAt, AnsweredQuery, Hit, HostWait, KeptBody, KeptPage,
    PageRecord, PlannedQuery, QueryOutcome, QueryState, Recorded, SourceId, SourceInfo, SourceKind,
    SourceRecord, SourceStats, Status, StatusSource, StoreError, StoredRecord, DEFAULT_BODY_BUDGET,
    TEXT_ATTRIBUTE, WORKER_ALIVE_SECONDS,
};

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
pub(in crate::store) struct Postgres {
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
    pub(in crate::store) fn connect(url: &str, create: bool) -> Result<Postgres, StoreError> {
        let db = shown(url);
        let store = Postgres {
            conn: std::sync::Mutex::new(Conn::new(connect(url)?)),
            url: url.to_string(),
            path: PathBuf::from(&db),
            db,
            body_budget: DEFAULT_BODY_BUDGET,
            bodies_dropped: 0,
            worker: None,
            patience: crate::store::DEFAULT_RECONNECT,
        };
        {
            let mut conn = store.conn.lock().unwrap_or_else(|p| p.into_inner());
            schema::migrate(&mut conn.client, &store.db, &store.path, create)?;
        }
        Ok(store)
    }

    /// Runs `op` on the connection; when the connection is lost, connects
    /// again and runs it again, pausing longer every time, until the
    /// database is back or, `patient` or not, [`Postgres::patience`] has
    /// passed ([`StoreError::Lost`]). A transaction PostgreSQL ended for a
    /// deadlock or a serialization failure (two workers writing the same
    /// values at once) is run again, up to [`ENDED_TRIES`] times in all.
    /// Other errors are the database's, for `context`.
    fn call<T>(
        &self,
        context: &str,
        patient: bool,
        mut op: impl FnMut(&mut Conn) -> Result<T, tokio_postgres::Error>,
    ) -> Result<T, StoreError> {
        let started = std::time::Instant::now();
        let mut pause = Duration::ZERO;
        let mut ended = 0;
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
                    Err(e) if is_retryable(&e) && ended + 1 < ENDED_TRIES => {
                        ended += 1;
                        tracing::debug!("gatherer database {}: {context}: {e}; once more", self.db);
                        continue;
                    }
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

    /// The hosts whose request slots the workers waited for, at least a
    /// second in all, as the workers told since `since` (a time in seconds
    /// since 1970), or in the last ten minutes.
    fn host_waits_since(&self, since: Option<f64>) -> Result<Vec<HostWait>, StoreError> {
        let rows = self.rows(
            "reading how long the workers waited for the hosts",
            HOST_WAITS,
            &[&since],
        )?;
        Ok(rows.iter().map(host_wait).collect())
    }
}

impl Backend for Postgres {
    fn is_shared(&self) -> bool {
        true
    }

    /// PostgreSQL is shared by workers: the leases of the queries keep
    /// them apart.
    fn lock_for_gathering(&mut self) -> Result<(), StoreError> {
        Ok(())
    }

    fn set_patience(&mut self, patience: Duration) {
        self.patience = patience;
    }

    fn set_worker(&mut self, worker: &str) {
        self.worker = Some(worker.to_string());
    }

    fn set_body_budget(&mut self, bytes: u64) -> Result<(), StoreError> {
        let rows = self.rows(
            "measuring the kept pages",
            "SELECT coalesce(sum(length(body)), 0)::bigint FROM page_bodies",
            &[],
        )?;
        let used = rows.first().map_or(0, |r| r.get::<_, i64>(0));
        self.body_budget = bytes.saturating_sub(used.max(0) as u64);
        Ok(())
    }

    fn bodies_dropped(&self) -> u64 {
        self.bodies_dropped
    }

    fn rules(&self, source: SourceId) -> Result<Option<String>, StoreError> {
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

    fn work(&self, source: SourceId) -> Result<Option<String>, StoreError> {
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

    fn surfaced_spec(&self, url: &str) -> Result<Option<String>, StoreError> {
        let rows = self.rows(
            &format!("reading the spec induced for {url}"),
            "SELECT surfaced_spec FROM sources WHERE url = $1",
            &[&url],
        )?;
        Ok(rows.first().and_then(|row| row.get(0)))
    }

    fn set_surfaced_spec(&mut self, source: SourceId, spec: &str) -> Result<(), StoreError> {
        self.execute(
            &format!("recording the spec induced for source {source}"),
            "UPDATE sources SET surfaced_spec = $2 WHERE id = $1",
            &[&source, &spec],
        )?;
        Ok(())
    }

    fn set_rules(&mut self, source: SourceId, rules: &str) -> Result<(), StoreError> {
        self.execute(
            &format!("recording the rules of source {source}"),
            "UPDATE sources SET rules = $2 WHERE id = $1",
            &[&source, &rules],
        )?;
        Ok(())
    }

    fn forget_queries(&mut self, source: SourceId) -> Result<(), StoreError> {
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

    fn reopen_queries(&mut self, source: SourceId) -> Result<(), StoreError> {
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

    fn pages_not_kept(&self, source: SourceId) -> Result<u64, StoreError> {
        self.count(
            &format!("counting the kept pages of source {source}"),
            "SELECT count(*) FROM pages p JOIN queries q ON q.id = p.query_id
             LEFT JOIN page_bodies b ON b.page_id = p.id
             WHERE p.source_id = $1 AND q.state = 'done' AND b.page_id IS NULL",
            source,
        )
    }

    fn kept_pages(
        &self,
        source: SourceId,
        query: Option<&str>,
    ) -> Result<(Vec<KeptPage>, u64), StoreError> {
        let context = format!("reading the kept pages of source {source}");
        let missing = self.rows(
            &context,
            "SELECT count(*) FROM pages p JOIN queries q ON q.id = p.query_id
             WHERE p.source_id = $1
               AND CASE WHEN $2::text IS NULL THEN q.state = 'done' ELSE q.key = $2 END
               AND NOT EXISTS (SELECT 1 FROM page_bodies b WHERE b.page_id = p.id)",
            &[&source, &query],
        )?;
        let missing = missing
            .first()
            .map_or(0, |r| r.get::<_, i64>(0).max(0) as u64);
        let rows = self.rows(
            &context,
            "SELECT q.key, p.url, b.content_type, b.body
             FROM pages p JOIN queries q ON q.id = p.query_id
             JOIN page_bodies b ON b.page_id = p.id
             WHERE p.source_id = $1
               AND CASE WHEN $2::text IS NULL THEN q.state = 'done' ELSE q.key = $2 END
             ORDER BY p.id",
            &[&source, &query],
        )?;
        let pages = rows
            .iter()
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
            .collect::<Result<Vec<_>, StoreError>>()?;
        Ok((pages, missing))
    }

    fn replace_query_values(
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

    fn path(&self) -> &Path {
        &self.path
    }

    fn upsert_source(&mut self, info: &SourceInfo) -> Result<SourceId, StoreError> {
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

    fn finished_queries(&self, source: SourceId) -> Result<HashSet<String>, StoreError> {
        let rows = self.rows(
            &format!("reading the done queries of source {source}"),
            "SELECT key FROM queries WHERE source_id = $1 AND state = 'done'",
            &[&source],
        )?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    fn answered_after(
        &self,
        source: SourceId,
        after: (i64, i64),
        limit: usize,
    ) -> Result<Vec<AnsweredAt>, StoreError> {
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

    fn answered_among(
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

    fn finished_among(
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

    fn finished_count(&self, source: SourceId) -> Result<u64, StoreError> {
        let rows = self.rows(
            &format!("counting the done queries of source {source}"),
            "SELECT count(*) FROM queries WHERE source_id = $1 AND state = 'done'",
            &[&source],
        )?;
        Ok(rows.first().map_or(0, |r| r.get::<_, i64>(0).max(0) as u64))
    }

    fn query_values(&self, source: SourceId) -> Result<Vec<String>, StoreError> {
        let rows = self.rows(
            &format!("reading the query values of source {source}"),
            "SELECT query_values FROM queries WHERE source_id = $1 AND query_values IS NOT NULL",
            &[&source],
        )?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    fn query_counts(&self, source: SourceId) -> Result<(u64, u64), StoreError> {
        let rows = self.rows(
            &format!("counting the queries of source {source}"),
            "SELECT count(*), count(parent) FROM queries WHERE source_id = $1",
            &[&source],
        )?;
        let n = |i| rows.first().map_or(0, |r| r.get::<_, i64>(i)).max(0) as u64;
        Ok((n(0), n(1)))
    }

    fn values_found_by(
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

    fn checkpoints(&self, source: SourceId) -> Result<HashMap<String, String>, StoreError> {
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
    fn record_query_new(
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
            match block_on(try_record_query(c, &worker, &db, budget, source, outcome)) {
                Err(e)
                    if e.code()
                        == Some(&tokio_postgres::error::SqlState::FOREIGN_KEY_VIOLATION) =>
                {
                    Ok(Err(StoreError::UnknownSource {
                        path: self.path.clone(),
                        id: source,
                    }))
                }
                done => done,
            }
        });
        let (recorded, budget, dropped) = recorded??;
        self.body_budget = budget;
        self.bodies_dropped += dropped;
        Ok(recorded)
    }

    fn record_values(
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

    fn record_page(&mut self, source: SourceId, page: &PageRecord) -> Result<(), StoreError> {
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

    fn set_incomplete(&mut self, source: SourceId, reason: Option<&str>) -> Result<(), StoreError> {
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

    /// Puts the source's plan into the database (see [`crate::store::Store::plan_queries`]).
    fn plan_queries(
        &mut self,
        source: SourceId,
        work: &str,
        queries: &mut dyn Iterator<Item = PlannedQuery>,
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

    fn stats(&self, source: SourceId) -> Result<SourceStats, StoreError> {
        let context = format!("counting for source {source}");
        let rows = self.rows(
            &context,
            "SELECT CASE WHEN incomplete THEN coalesce(incomplete_reason, '') END,
                    (SELECT count(*) FROM queries WHERE source_id = $1 AND state = 'done'),
                    (SELECT count(*) FROM queries WHERE source_id = $1 AND state = 'failed'),
                    (SELECT count(*) FROM queries WHERE source_id = $1 AND state = 'done' AND cut_short),
                    (SELECT count(*) FROM pages WHERE source_id = $1),
                    (SELECT coalesce(sum(bytes), 0)::bigint FROM pages WHERE source_id = $1),
                    (SELECT count(*) FROM records WHERE source_id = $1 AND gone_at IS NULL)
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
                "SELECT attribute, count(*) FROM attribute_values
                 WHERE source_id = $1 AND gone_at IS NULL GROUP BY attribute",
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

    fn sources(&self) -> Result<Vec<SourceRecord>, StoreError> {
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

    fn values(&self, source: SourceId) -> Result<BTreeMap<String, Vec<String>>, StoreError> {
        let rows = self.rows(
            &format!("reading the values of source {source}"),
            "SELECT attribute, value FROM attribute_values WHERE source_id = $1 AND gone_at IS NULL
             ORDER BY attribute COLLATE \"C\", value COLLATE \"C\"",
            &[&source],
        )?;
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for row in &rows {
            out.entry(row.get(0)).or_default().push(row.get(1));
        }
        Ok(out)
    }

    fn attribute_values(
        &self,
        source: SourceId,
        attribute: &str,
    ) -> Result<Vec<String>, StoreError> {
        let rows = self.rows(
            &format!("reading the {attribute} values of source {source}"),
            "SELECT value FROM attribute_values
             WHERE source_id = $1 AND attribute = $2 AND gone_at IS NULL
             ORDER BY value COLLATE \"C\"",
            &[&source, &attribute],
        )?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    fn record_count(&self, source: SourceId) -> Result<u64, StoreError> {
        self.count(
            &format!("counting the records of source {source}"),
            "SELECT count(*) FROM records WHERE source_id = $1 AND gone_at IS NULL",
            source,
        )
    }

    fn each_record(
        &self,
        each: &mut dyn FnMut(StoredRecord) -> ControlFlow<()>,
    ) -> Result<(), StoreError> {
        let rows = self.rows(
            "reading the records",
            "SELECT s.url, r.query_key, q.description, r.page_url, r.ordinal, r.fields
             FROM records r
             JOIN sources s ON s.id = r.source_id
             LEFT JOIN queries q ON q.source_id = r.source_id AND q.key = r.query_key
             WHERE r.gone_at IS NULL
             ORDER BY s.url COLLATE \"C\", r.id",
            &[],
        )?;
        for row in rows {
            let record = stored_record(&self.path, &row)?;
            if each(record).is_break() {
                break;
            }
        }
        Ok(())
    }

    fn search(&self, term: &str) -> Result<Vec<Hit>, StoreError> {
        let Some(query) = ts_query(term) else {
            return Ok(Vec::new());
        };
        let values = self.rows(
            &format!("searching for {term:?}"),
            "SELECT s.url, v.attribute, v.value, v.query_key, q.description
             FROM attribute_values v
             JOIN sources s ON s.id = v.source_id
             LEFT JOIN queries q ON q.source_id = v.source_id AND q.key = v.query_key
             WHERE v.words @@ to_tsquery('simple', $1) AND v.gone_at IS NULL
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

    fn status(&self) -> Result<Status, StoreError> {
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

    fn records_without_key(&self, source: SourceId) -> Result<Vec<(i64, String)>, StoreError> {
        let rows = self.rows(
            &format!("reading the records of source {source}"),
            "SELECT id, fields FROM records WHERE source_id = $1 AND record_key IS NULL",
            &[&source],
        )?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    fn set_record_keys(&mut self, keys: &[(i64, String)]) -> Result<(), StoreError> {
        let ids: Vec<i64> = keys.iter().map(|(id, _)| *id).collect();
        let values: Vec<&str> = keys.iter().map(|(_, key)| key.as_str()).collect();
        self.execute(
            "keying the records",
            "UPDATE records r SET record_key = k.key
             FROM unnest($1::bigint[], $2::text[]) AS k(id, key) WHERE r.id = k.id",
            &[&ids, &values],
        )
        .map(|_| ())
    }

    fn open_for_refresh(
        &mut self,
        source: SourceId,
        due_only: bool,
    ) -> Result<RefreshStart, StoreError> {
        self.check_source(source)?;
        let context = format!("opening the queries of source {source} for a refresh");
        self.call(&context, true, |c| {
            block_on(async {
                let tx = c.client.transaction().await?;
                let begun: Option<i64> = tx
                    .query_one(
                        "SELECT refresh_since FROM sources WHERE id = $1 FOR UPDATE",
                        &[&source],
                    )
                    .await?
                    .get(0);
                let since: i64 = match begun {
                    Some(since) => since,
                    None => tx.query_one(&format!("SELECT {NOW_MS}"), &[]).await?.get(0),
                };
                let marks = tx
                    .query(
                        "SELECT key, etag, last_modified, digest, cut_short, refresh_interval FROM queries
                         WHERE source_id = $1 AND digest IS NOT NULL AND state <> 'failed'",
                        &[&source],
                    )
                    .await?
                    .iter()
                    .map(|r| {
                        (
                            r.get::<_, String>(0),
                            AnswerMark {
                                validators: crate::fetch::Validators {
                                    etag: r.get(1),
                                    last_modified: r.get(2),
                                },
                                digest: r.get(3),
                                cut_short: r.get(4),
                                interval: r.get(5),
                            },
                        )
                    })
                    .collect();
                // A refresh begun before goes on: what it finished stays done.
                if begun.is_none() {
                    tx.execute(
                        "UPDATE queries SET state = 'pending', checkpoint = NULL, walk = NULL
                         WHERE source_id = $1 AND state = 'done'
                           AND (NOT $2 OR due_at IS NULL OR due_at <= $3)",
                        &[&source, &due_only, &since],
                    )
                    .await?;
                    tx.execute(
                        "UPDATE sources SET refresh_since = $2 WHERE id = $1",
                        &[&source, &since],
                    )
                    .await?;
                }
                tx.commit().await?;
                Ok(RefreshStart {
                    since,
                    marks,
                    resumed: begun.is_some(),
                })
            })
        })
    }

    fn end_refresh(&mut self, source: SourceId) -> Result<(), StoreError> {
        self.execute(
            &format!("ending the refresh of source {source}"),
            "UPDATE sources SET refresh_since = NULL WHERE id = $1",
            &[&source],
        )
        .map(|_| ())
    }

    fn schedule(&self, source: SourceId) -> Result<Schedule, StoreError> {
        let rows = self.rows(
            &format!("reading the refresh schedule of source {source}"),
            "SELECT count(due_at),
                    count(*) FILTER (WHERE due_at IS NULL
                        OR due_at <= (extract(epoch FROM clock_timestamp()) * 1000)::bigint),
                    min(due_at) FILTER (WHERE
                        due_at > (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
             FROM queries WHERE source_id = $1 AND state = 'done'",
            &[&source],
        )?;
        Ok(rows.first().map_or_else(Schedule::default, |r| Schedule {
            scheduled: r.get::<_, i64>(0).max(0) as u64,
            due: r.get::<_, i64>(1).max(0) as u64,
            next: r.get(2),
        }))
    }

    fn set_schedule(
        &mut self,
        source: SourceId,
        key: &str,
        interval: i64,
        due_at: i64,
    ) -> Result<(), StoreError> {
        self.execute(
            &format!("scheduling query {key:?} (source {source})"),
            "UPDATE queries SET refresh_interval = $3, due_at = $4
             WHERE source_id = $1 AND key = $2",
            &[&source, &key, &interval, &due_at],
        )
        .map(|_| ())
    }

    fn touch_records(
        &mut self,
        source: SourceId,
        query_key: &str,
        since: i64,
    ) -> Result<(), StoreError> {
        let context = format!("seeing the records of query {query_key:?} again (source {source})");
        let worker = self.worker.clone();
        let touched = self.call(&context, true, |c| {
            block_on(async {
                let tx = c.client.transaction().await?;
                if !holds_lease(&tx, &worker, source, query_key).await? {
                    return Ok(None);
                }
                let held: ValuePairs = tx
                    .query(TOUCH_RECORDS, &[&source, &query_key])
                    .await?
                    .iter()
                    .flat_map(|r| history::held_values_json(r.get(0)))
                    .collect();
                see_values(&tx, source, &held, since).await?;
                tx.commit().await.map(Some)
            })
        })?;
        touched.ok_or_else(|| lease_lost(&self.db, query_key))
    }

    fn see_values(
        &mut self,
        source: SourceId,
        fragment: &IndexFragment,
        since: i64,
    ) -> Result<(), StoreError> {
        let pairs: ValuePairs = fragment
            .iter()
            .flat_map(|(a, values)| values.iter().map(move |v| (a.to_string(), v.clone())))
            .collect();
        if pairs.is_empty() {
            return Ok(());
        }
        let context = format!("seeing the values of source {source} again");
        self.call(&context, true, |c| {
            block_on(async {
                let tx = c.client.transaction().await?;
                see_values(&tx, source, &pairs, since).await?;
                tx.commit().await
            })
        })
    }

    fn refresh_records(
        &mut self,
        source: SourceId,
        query_key: &str,
        records: &[KeyedRecord<'_>],
        refreshing: Refreshing,
    ) -> Result<Vec<usize>, StoreError> {
        let context = format!("refreshing the records of query {query_key:?} (source {source})");
        let since = refreshing.since;
        let worker = self.worker.clone();
        let refreshed = self.call(&context, true, |c| {
            block_on(async {
                let tx = c.client.transaction().await?;
                if !holds_lease(&tx, &worker, source, query_key).await? {
                    return Ok(None);
                }
                let mut added = Vec::new();
                // The values the records changed or gone here held.
                let mut candidates = ValuePairs::new();
                for (i, (record, key)) in records.iter().enumerate() {
                    let fields = record.fields.to_json();
                    let ordinal = i64::try_from(record.ordinal).unwrap_or(i64::MAX);
                    let same = tx
                        .query_opt(
                            "SELECT id, gone_at FROM records
                             WHERE source_id = $1 AND md5(fields) = md5($2) AND fields = $2",
                            &[&source, &fields],
                        )
                        .await?;
                    if let Some(row) = same {
                        let (id, gone): (i64, Option<i64>) = (row.get(0), row.get(1));
                        tx.execute(SEEN_AGAIN, &[&id, &key.as_str(), &since]).await?;
                        if gone.is_some_and(|t| t < since) {
                            added.push(i);
                        }
                        continue;
                    }
                    let keyed = tx
                        .query_opt(
                            "SELECT id, fields, gone_at FROM records
                             WHERE source_id = $1 AND record_key = $2
                               AND coalesce(last_seen, 0) < $3
                             ORDER BY id LIMIT 1",
                            &[&source, &key.as_str(), &since],
                        )
                        .await?;
                    if let Some(row) = keyed {
                        let (id, before, gone): (i64, String, Option<i64>) =
                            (row.get(0), row.get(1), row.get(2));
                        let before = Fields::from_json(&before).unwrap_or_default();
                        let names = history::changed_fields(&before, &record.fields);
                        candidates.extend(history::dropped_values(&before, &record.fields));
                        let revived = gone.is_some_and(|t| t < since);
                        tx.execute(
                            CHANGED,
                            &[
                                &id,
                                &fields,
                                &record.page,
                                &ordinal,
                                &serde_json::to_string(&names).unwrap_or_default(),
                                &revived,
                            ],
                        )
                        .await?;
                        if revived {
                            added.push(i);
                        }
                        continue;
                    }
                    tx.execute(
                        "INSERT INTO records (source_id, query_key, page_url, ordinal, fields, record_key)
                         VALUES ($1, $2, $3, $4, $5, $6)",
                        &[&source, &query_key, &record.page, &ordinal, &fields, &key.as_str()],
                    )
                    .await?;
                    added.push(i);
                }
                if refreshing.whole {
                    for row in tx.query(GONE, &[&source, &query_key, &since]).await? {
                        candidates.extend(history::held_values_json(row.get(0)));
                    }
                }
                mark_values_gone(&tx, source, &candidates, since).await?;
                tx.commit().await?;
                Ok(Some(added))
            })
        })?;
        refreshed.ok_or_else(|| lease_lost(&self.db, query_key))
    }

    fn values_gone(&self, source: SourceId, since: i64) -> Result<Vec<(String, u64)>, StoreError> {
        let rows = self.rows(
            &format!("counting the values of source {source} gone"),
            "SELECT attribute, count(*) FROM attribute_values
             WHERE source_id = $1 AND gone_at >= $2 GROUP BY attribute",
            &[&source, &since],
        )?;
        Ok(rows
            .iter()
            .map(|r| (r.get(0), r.get::<_, i64>(1).max(0) as u64))
            .collect())
    }

    fn history(&self, source: Option<SourceId>, since: i64) -> Result<Vec<HistoryRow>, StoreError> {
        let rows = self.rows(
            "reading the records' history",
            "SELECT s.url, r.query_key, q.description, r.page_url, r.ordinal, r.fields,
                    r.first_seen, r.changed_at, r.changed_fields, r.gone_at
             FROM records r
             JOIN sources s ON s.id = r.source_id
             LEFT JOIN queries q ON q.source_id = r.source_id AND q.key = r.query_key
             WHERE ($1::bigint IS NULL OR r.source_id = $1)
               AND (r.first_seen >= $2 OR r.changed_at >= $2 OR r.gone_at >= $2)
             ORDER BY s.url COLLATE \"C\", r.id",
            &[&source, &since],
        )?;
        rows.iter()
            .map(|row| {
                Ok(HistoryRow {
                    record: stored_record(&self.path, row)?,
                    first_seen: row.get(6),
                    changed_at: row.get(7),
                    changed_fields: row.get(8),
                    gone_at: row.get(9),
                })
            })
            .collect()
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
    let mark = outcome.mark.as_ref();
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
                &mark.and_then(|m| m.validators.etag.as_deref()),
                &mark.and_then(|m| m.validators.last_modified.as_deref()),
                &mark.map(|m| m.digest.as_str()),
            ],
        )
        .await?;
    if row.get::<_, Option<i64>>(0).is_none() {
        return Ok(Err(lease_lost(db, &outcome.key)));
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

/// The error of a worker whose lease of query `key` ran out and which
/// another worker took over.
fn lease_lost(db: &str, key: &str) -> StoreError {
    StoreError::LeaseLost {
        db: db.to_string(),
        key: key.to_string(),
    }
}

/// How many times in all a transaction that PostgreSQL ended is run.
const ENDED_TRIES: usize = 5;

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
/// the links its walk found since it was last recorded (`$32`, one a
/// line), and what its first page said when this save has it (`$33` to
/// `$35`: `ETag`, `Last-Modified`, digest; [`crate::store::AnswerMark`]).
/// Returns the query's id (`NULL`: another worker holds its lease, and
/// nothing was written), how many values were new, and the fields of the
/// new records.
const RECORD_QUERY: &str = "WITH q AS (
     INSERT INTO queries (source_id, key, ordinal, description, state, error, attempts,
                          started_at, finished_at, cut_short, checkpoint,
                          answer, query_values, parent, learned, walk,
                          etag, last_modified, digest)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $14, $15, $16, $17,
             CASE WHEN $11::text IS NOT NULL THEN $32::text END, $33, $34, $35)
     ON CONFLICT (source_id, key) DO UPDATE SET
       ordinal = excluded.ordinal, description = excluded.description,
       state = excluded.state, error = excluded.error, cut_short = excluded.cut_short,
       attempts = queries.attempts + excluded.attempts,
       finished_at = excluded.finished_at, checkpoint = excluded.checkpoint,
       -- What the first page said, when this save has it.
       etag = CASE WHEN $35::text IS NULL THEN queries.etag ELSE excluded.etag END,
       last_modified = CASE WHEN $35::text IS NULL THEN queries.last_modified
                            ELSE excluded.last_modified END,
       digest = coalesce(excluded.digest, queries.digest),
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
pub(super) fn walk_from_lines(walk: Option<String>) -> Vec<String> {
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

/// The time now in milliseconds since the epoch, in SQL.
const NOW_MS: &str = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint";

/// The records query `$2` of source `$1` found first are seen again;
/// returns their fields.
const TOUCH_RECORDS: &str = "UPDATE records
   SET last_seen = (extract(epoch FROM clock_timestamp()) * 1000)::bigint
   WHERE source_id = $1 AND query_key = $2 AND gone_at IS NULL
   RETURNING fields";

/// The source `$1`'s values among the pairs `$2` (attributes), `$3`
/// (values) are seen now: a gone one is live again (new, when it was gone
/// before `$4`). A value seen since `$4` already is not written again.
const SEE_VALUES: &str = "UPDATE attribute_values SET
   last_seen = (extract(epoch FROM clock_timestamp()) * 1000)::bigint,
   first_seen = CASE WHEN gone_at < $4
                     THEN (extract(epoch FROM clock_timestamp()) * 1000)::bigint
                     ELSE first_seen END,
   gone_at = NULL
   WHERE id IN (SELECT v.id FROM unnest($2::text[], $3::text[]) AS p(a, x)
                JOIN attribute_values v ON v.source_id = $1 AND v.attribute = p.a
                  AND md5(v.value) = md5(p.x) AND v.value = p.x)
     AND (gone_at IS NOT NULL OR coalesce(last_seen, 0) < $4)";

/// The source `$1`'s values among the pairs `$2`, `$3` that are live,
/// not seen since `$4` and found by a query (not listed).
const MAY_GO: &str = "SELECT v.attribute, v.value FROM unnest($2::text[], $3::text[]) AS p(a, x)
   JOIN attribute_values v ON v.source_id = $1 AND v.attribute = p.a
     AND md5(v.value) = md5(p.x) AND v.value = p.x
   WHERE v.gone_at IS NULL AND coalesce(v.last_seen, 0) < $4
     AND v.query_key IN (SELECT key FROM queries WHERE source_id = $1)";

/// The source `$1`'s values among the pairs `$2`, `$3` are gone, at `$4`.
const VALUES_GONE: &str = "UPDATE attribute_values SET gone_at = $4
   WHERE id IN (SELECT v.id FROM unnest($2::text[], $3::text[]) AS p(a, x)
                JOIN attribute_values v ON v.source_id = $1 AND v.attribute = p.a
                  AND md5(v.value) = md5(p.x) AND v.value = p.x)";

/// The fields of the live records of source `$1` that hold one of the
/// strings `$2` ([`history::needles`]).
const HOLDING: &str = "SELECT fields FROM records r WHERE r.source_id = $1 AND r.gone_at IS NULL
   AND EXISTS (SELECT 1 FROM unnest($2::text[]) AS n WHERE strpos(r.fields, n) > 0)";

/// `pairs` as two columns: attributes and values.
fn pair_columns(pairs: &ValuePairs) -> (Vec<&str>, Vec<&str>) {
    pairs.iter().map(|(a, v)| (a.as_str(), v.as_str())).unzip()
}

/// The source's values among `pairs` are seen now ([`SEE_VALUES`]).
async fn see_values(
    tx: &Transaction<'_>,
    source: SourceId,
    pairs: &ValuePairs,
    since: i64,
) -> Result<(), tokio_postgres::Error> {
    if pairs.is_empty() {
        return Ok(());
    }
    let (attributes, values) = pair_columns(pairs);
    tx.execute(SEE_VALUES, &[&source, &attributes, &values, &since])
        .await?;
    Ok(())
}

/// The `candidates` that no live record of the source holds, that were
/// not seen since `since`, and that a query found (not listed) are gone,
/// at `since` ([`history`]).
async fn mark_values_gone(
    tx: &Transaction<'_>,
    source: SourceId,
    candidates: &ValuePairs,
    since: i64,
) -> Result<(), tokio_postgres::Error> {
    if candidates.is_empty() {
        return Ok(());
    }
    // Most candidates were seen in the refresh already: the records are
    // read for the others only.
    let (attributes, values) = pair_columns(candidates);
    let open: ValuePairs = tx
        .query(MAY_GO, &[&source, &attributes, &values, &since])
        .await?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    if open.is_empty() {
        return Ok(());
    }
    let needles = history::needles(&open);
    let holding = tx.query(HOLDING, &[&source, &needles]).await?;
    let gone = history::not_held(open, holding.iter().map(|r| r.get(0)));
    if gone.is_empty() {
        return Ok(());
    }
    let (attributes, values) = pair_columns(&gone);
    tx.execute(VALUES_GONE, &[&source, &attributes, &values, &since])
        .await?;
    Ok(())
}

/// Whether `worker`, when the store writes for one, holds the lease of
/// query `key` of `source` (as [`RECORD_QUERY`] asks); the query's row
/// stays locked until the transaction ends, so that no other worker takes
/// it over meanwhile.
async fn holds_lease(
    tx: &Transaction<'_>,
    worker: &Option<String>,
    source: SourceId,
    key: &str,
) -> Result<bool, tokio_postgres::Error> {
    let Some(worker) = worker else {
        return Ok(true);
    };
    let held = tx
        .query_opt(
            "SELECT 1 FROM queries
             WHERE source_id = $1 AND key = $2 AND leased_by = $3 AND state <> 'done'
             FOR UPDATE",
            &[&source, &key, worker],
        )
        .await?;
    Ok(held.is_some())
}

/// Record `$1` is seen again with key `$2`; gone before `$3`, it is new.
const SEEN_AGAIN: &str = "UPDATE records SET
   last_seen = (extract(epoch FROM clock_timestamp()) * 1000)::bigint, record_key = $2,
   first_seen = CASE WHEN gone_at < $3
                     THEN (extract(epoch FROM clock_timestamp()) * 1000)::bigint
                     ELSE first_seen END,
   gone_at = NULL
   WHERE id = $1";

/// Record `$1` changed: its fields `$2`, page `$3`, ordinal `$4`, the
/// names of the fields that changed `$5`; `$6`: it was gone, and is new.
const CHANGED: &str = "UPDATE records SET fields = $2, page_url = $3, ordinal = $4,
   last_seen = (extract(epoch FROM clock_timestamp()) * 1000)::bigint, gone_at = NULL,
   first_seen = CASE WHEN $6 THEN (extract(epoch FROM clock_timestamp()) * 1000)::bigint
                     ELSE first_seen END,
   changed_at = (extract(epoch FROM clock_timestamp()) * 1000)::bigint, changed_fields = $5
   WHERE id = $1";

/// The records query `$2` of source `$1` found first and did not show
/// again since `$3` are gone; returns their fields.
const GONE: &str = "UPDATE records
   SET gone_at = (extract(epoch FROM clock_timestamp()) * 1000)::bigint
   WHERE source_id = $1 AND query_key = $2 AND gone_at IS NULL
     AND coalesce(last_seen, 0) < $3
   RETURNING fields";

/// A record read from the columns source URL, query key, query
/// description, page, ordinal and fields (the first six).
fn stored_record(path: &Path, row: &Row) -> Result<StoredRecord, StoreError> {
    let source: String = row.get(0);
    let fields: String = row.get(5);
    let fields = Fields::from_json(&fields).map_err(|err| StoreError::Corrupt {
        path: path.to_path_buf(),
        message: format!("a record of {source} has unreadable fields: {err}"),
    })?;
    Ok(StoredRecord {
        source,
        query_key: row.get(1),
        query: row.get(2),
        record: Record {
            page: row.get(3),
            ordinal: row.get::<_, i64>(4).max(0) as u64,
            fields,
        },
    })
}

#[cfg(all(test, feature = "demo"))]
mod tests {
    use super::*;

    /// The statement that ends a transaction as PostgreSQL does with
    /// the error of `code`.
    fn ended(code: &str) -> String {
        format!("DO $$ BEGIN RAISE EXCEPTION 'ended' USING ERRCODE = '{code}'; END $$")
    }

    /// A transaction PostgreSQL ended for a deadlock or a serialization
    /// failure is run again, and what it wrote is there once; an error of
    /// another kind is the database's at once; a transaction ended every
    /// time is given up.
    #[test]
    fn a_transaction_ended_for_a_deadlock_is_run_again() {
        let server = crate::demo::postgres::LocalPostgres::start()
            .unwrap_or_else(|e| panic!("PostgreSQL for the tests: {e}"));
        let url = server.database("ended").unwrap();
        let store = Postgres::connect(&url, true).unwrap();
        store
            .call("creating a table", true, |c| {
                block_on(c.client.batch_execute("CREATE TABLE written (run int)"))
            })
            .unwrap();
        for code in ["40P01", "40001"] {
            let mut runs = 0;
            let done = store.call("writing", true, |c| {
                runs += 1;
                let run = runs;
                block_on(async {
                    let tx = c.client.transaction().await?;
                    tx.execute("INSERT INTO written VALUES ($1)", &[&run])
                        .await?;
                    if run == 1 {
                        tx.batch_execute(&ended(code)).await?;
                    }
                    tx.commit().await.map(|()| run)
                })
            });
            assert_eq!(done.unwrap(), 2, "{code}");
        }
        let written: Vec<i32> = store
            .call("reading", true, |c| {
                block_on(c.client.query("SELECT run FROM written", &[]))
            })
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert_eq!(written, vec![2, 2]);

        // How often a transaction ended with `code` every time runs, and
        // the error it ends with.
        let given_up = |context: &str, code: &str| {
            let mut runs = 0;
            let error = store
                .call(context, true, |c| {
                    runs += 1;
                    block_on(c.client.batch_execute(&ended(code)))
                })
                .unwrap_err();
            assert!(error.to_string().contains(context), "{error}");
            runs
        };
        assert_eq!(given_up("a unique value twice", "23505"), 1);
        assert_eq!(given_up("always ended", "40P01"), ENDED_TRIES);
    }
}

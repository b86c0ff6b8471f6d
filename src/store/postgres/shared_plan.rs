//! The workers' side of a PostgreSQL gatherer database.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use futures::executor::block_on;
use tokio_postgres::{Client, Row};

use super::store::walk_from_lines;
use super::{connect, is_lost, message, next_pause, pg_err, shown, unreached, waiting, Statements};
use crate::store::{
    with_links, AnswerMark, HostWait, PlannedQuery, SourceId, StoreError, DEFAULT_RECONNECT,
    WORKER_ALIVE_SECONDS,
};

/// A query a worker claimed from the shared plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    pub source: SourceId,
    /// The query as it was planned.
    pub query: PlannedQuery,
    /// Where the walk of a worker that died stood.
    pub checkpoint: Option<String>,
    /// What the query's first result page said when it was last answered
    /// (a refresh asks again conditionally, and compares).
    pub mark: Option<AnswerMark>,
}

/// The work of the other workers and planners, which a worker with nothing
/// to claim waits for ([`SharedPlan::other_work`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OtherWork {
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
                       q.parent, q.learned, q.query_values, q.walk,
                       q.etag, q.last_modified, q.digest, q.cut_short, q.refresh_interval"
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
pub(super) const HOST_WAITS: &str =
    "SELECT origin, max(slots), count(*) FILTER (WHERE waited_ms > 0),
        (sum(waited_ms) / 1000.0)::float8
 FROM host_waits
 WHERE updated_at >= coalesce(to_timestamp($1), now() - interval '10 minutes')
 GROUP BY origin HAVING sum(waited_ms) >= 1000
 ORDER BY origin COLLATE \"C\"";

pub(super) fn host_wait(row: &Row) -> HostWait {
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
    /// [`DEFAULT_RECONNECT`]. The schema must exist
    /// ([`crate::store::Store::open_at`] creates it).
    pub fn connect(url: &str, worker: &str, lease: Duration) -> Result<SharedPlan, StoreError> {
        SharedPlan::connect_patient(url, worker, lease, DEFAULT_RECONNECT)
    }

    /// [`SharedPlan::connect`], waiting up to `patience` for a lost
    /// database to come back.
    pub(crate) fn connect_patient(
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
    pub(crate) fn worker(&self) -> &str {
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
                mark: r.get::<_, Option<String>>(12).map(|digest| AnswerMark {
                    validators: crate::fetch::Validators {
                        etag: r.get(10),
                        last_modified: r.get(11),
                    },
                    digest,
                    cut_short: r.get(13),
                    interval: r.get(14),
                }),
            };
            let at = (ordinal, claim.source);
            (claim, at)
        }))
    }

    /// What others do that a worker with nothing to claim waits for: the
    /// queries other live workers hold, the live planners that may add
    /// more, and whether there is a plan at all.
    pub async fn other_work(&self) -> Result<OtherWork, StoreError> {
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
        Ok(OtherWork {
            held: row.get::<_, i64>(0).max(0) as u64,
            planners: row.get::<_, i64>(1).max(0) as u64,
            planned: row.get(2),
            workers: row.get::<_, i64>(3).max(0) as u64,
        })
    }

    /// Says that this process plans (`gather URL --db postgres://…`):
    /// while it is alive, workers with nothing to claim wait for the
    /// queries it may still add.
    pub(crate) async fn set_planning(&self, planning: bool) -> Result<(), StoreError> {
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
    pub(crate) async fn renew(&self) -> Result<(), StoreError> {
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
    pub(crate) async fn host_waits(&self) -> Result<Vec<HostWait>, StoreError> {
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
    pub(crate) async fn release(&self, patient: bool) -> Result<(), StoreError> {
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

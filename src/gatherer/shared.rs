//! Gathering on the shared plan of a PostgreSQL gatherer database: the
//! planner (`gather URL --db postgres://…`) puts its sources' queries into
//! the plan, works on it with the workers (`gather worker`), then runs its
//! sources' rounds of refinements and learned words through the plan; a
//! worker claims queries until none is left and no live planner may add
//! more. Leases, heartbeats and per-host slots are the store's
//! ([`crate::store::SharedPlan`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use url::Url;

use super::{
    describe, header_rows_from_json, lock, rules_from_json, GatherError, Gathering, Options,
    Origin, QueryJob, Report, Rounds, SourceReport,
};
use crate::fetch::Request;
use crate::hel::Rule;
use crate::navigate::{Checkpoint, NavigationMode};
use crate::plan::{Cap, Query};
use crate::source::Source;
use crate::store::{
    Claim, Location, PlannedQuery, RefreshStart, SharedPlan, SourceId, SourceKind, StoreError,
};

/// Works on the shared plan of a PostgreSQL gatherer database (`gather
/// worker`): claims its queries one by one, runs them as a gathering does,
/// and ends when none is left that no live worker holds. A query another
/// worker holds is waited for, and taken over as soon as that worker's
/// database session is gone (or its lease ran out). More workers, on any
/// machine, can join at any time.
pub async fn work(options: &Options) -> Result<Report, GatherError> {
    match work_reporting(options).await {
        (report, None) => Ok(report),
        (_, Some(error)) => Err(error),
    }
}

/// [`work`], with the report of what was done also when the work ends in
/// an error (the database stayed away).
pub async fn work_reporting(options: &Options) -> (Report, Option<GatherError>) {
    let started = Instant::now();
    if !Location::of(&options.db).is_shared() {
        let error = GatherError::Setup(format!(
            "gather worker needs a shared database (--db postgres://USER@HOST:PORT/DB), not {}",
            options.db.display()
        ));
        return (Report::ended_by(options, started, &error), Some(error));
    }
    let role = Role::Worker {
        wait: options.plan_wait,
    };
    let mut gathering = match Gathering::new(options, options.fetch.clone(), role).await {
        Ok(gathering) => gathering,
        Err(error) => return (Report::ended_by(options, started, &error), Some(error)),
    };
    let worked = gathering.work_shared().await;
    let worked = match worked {
        Ok(()) => gathering.report_lines(),
        Err(e) => Err(e),
    };
    gathering.end(worked, started).await
}

/// What a process is to a shared plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    /// `gather URL --db postgres://…`: plans its sources, works on the
    /// plan, refines and learns; ends when its sources are done.
    Planner,
    /// `gather worker`: works on the plan while there is work, or while a
    /// live planner may add some; waits up to `wait` for a first plan.
    Worker { wait: Duration },
}

/// The task that renews a process's leases and heartbeat; stopped when
/// dropped.
pub(super) struct Renewer(tokio::task::JoinHandle<()>);

impl Renewer {
    /// Renews every third of the lease, and at least as often as a worker
    /// must be seen to count as alive.
    pub(super) fn start(plan: SharedPlan, lease: Duration) -> Renewer {
        let alive = Duration::from_secs(crate::store::WORKER_ALIVE_SECONDS as u64 / 3);
        let every = (lease / 3).min(alive).max(Duration::from_millis(100));
        Renewer(tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                if let Err(e) = plan.renew().await {
                    tracing::warn!("{e}");
                }
            }
        }))
    }
}

impl Drop for Renewer {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A source put into the shared plan: refined, taught and finished once
/// the plan is worked off.
pub(super) struct Planned {
    pub(super) source: Source,
    pub(super) work: Arc<QueryJob>,
    /// The query limit that cut the plan, told as a reason.
    pub(super) plan_limit: Option<String>,
    pub(super) page_cap: Cap,
}

/// A name for this worker, unique among the workers of a database.
pub(super) fn worker_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".into());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!("{host}:{}:{nanos:08x}", std::process::id())
}

/// How workers run a source's queries, as the shared plan keeps it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct SharedWork {
    url: String,
    /// `off`, `detect`, or the `DB.NavigationURL` pattern.
    navigation: String,
    #[serde(default)]
    pattern: Option<String>,
    max_pages: u64,
    /// `DB.ResultCount` as written, and its `DB.Result` prefix.
    #[serde(default)]
    result_count: Option<(String, Option<String>)>,
    /// The source's ways to refine: a query they split whose first page
    /// proves it cut short reads no more pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    splits: Option<crate::refine::Splits>,
    /// A refresh's start (`gather refresh`, milliseconds by the database's
    /// clock): its queries are asked again conditionally, each compared
    /// with what its first page said when it was last answered (the
    /// claim's mark).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    refresh_since: Option<i64>,
}

impl SharedWork {
    fn navigation(&self) -> NavigationMode {
        match (self.navigation.as_str(), &self.pattern) {
            ("off", _) => NavigationMode::Off,
            ("pattern", Some(p)) => NavigationMode::Pattern(p.clone()),
            _ => NavigationMode::Detect,
        }
    }
}

impl Gathering<'_> {
    /// Works on the shared plan until no query is left that no live worker
    /// holds (for a worker, also none a live planner may still add).
    pub(super) async fn work_shared(&mut self) -> Result<(), GatherError> {
        let Some(plan) = self.shared.clone() else {
            return Ok(());
        };
        self.run_claims(&plan).await
    }

    /// The planner's part once its sources are planned: works on the plan
    /// with the workers, then runs the rounds of refinements and learned
    /// words of all its sources side by side, each round through the
    /// shared plan, and finishes the sources.
    pub(super) async fn finish_shared(&mut self) -> Result<(), GatherError> {
        self.work_shared().await?;
        let planned = std::mem::take(&mut self.planned);
        let mut rounds: Vec<Rounds<'_>> = planned
            .iter()
            .map(|p| Rounds::new(Arc::clone(&p.work), &p.source, HashMap::new()))
            .collect();
        loop {
            let learning_batch = self.learning_batch().await?;
            let mut sent: Vec<usize> = Vec::new();
            for (at, round) in rounds.iter_mut().enumerate() {
                let id = round.work.source;
                let mut line = self.lines.remove(&id).unwrap_or_else(|| {
                    SourceReport::new(round.source.url.clone(), SourceKind::Database)
                });
                let next = round.next(self, learning_batch, &mut line);
                self.lines.insert(id, line);
                if let Some(batch) = next? {
                    self.plan_round(&round.work, batch)?;
                    sent.push(at);
                }
            }
            if sent.is_empty() {
                break;
            }
            self.work_shared().await?;
            for at in sent {
                rounds[at].answered(self, None)?;
            }
        }
        for (round, planned) in rounds.into_iter().zip(&planned) {
            let id = planned.work.source;
            let Some(mut line) = self.lines.remove(&id) else {
                continue;
            };
            line.learning_stopped = round.learning_stopped;
            if let Some(refresh) = &planned.work.refresh {
                // From the store: what every process of the plan found.
                line.changes = Some(self.store().changes(id, refresh.since)?);
                self.end_refresh(id)?;
                line.notes.push(
                    "refresh on the shared plan: the answers counted here are this process's (each worker's summary counts its own); the records' changes are the whole plan's"
                        .into(),
                );
            }
            self.finish_source(
                id,
                &planned.source,
                planned.plan_limit.clone(),
                &planned.page_cap,
                round.refined,
                line,
            )?;
        }
        // What this process ran of other planners' sources.
        self.report_lines()
    }

    /// Ends the work of this process: says how long the workers waited
    /// for the hosts, gives back what it holds of the shared plan (without
    /// waiting for a database that stayed away) and reports, with the
    /// error that ended the work, if any.
    pub(super) async fn end(
        mut self,
        result: Result<(), GatherError>,
        started: Instant,
    ) -> (Report, Option<GatherError>) {
        if let (Ok(()), Some(plan)) = (&result, &self.shared) {
            match plan.host_waits().await {
                Ok(waits) => self.report.host_waits = waits,
                Err(e) => tracing::warn!("{e}"),
            }
        }
        let released = self.release(result.is_ok()).await;
        let error = result.err().or(released.err());
        if let Some(error) = &error {
            // What was done, as far as this process knows it.
            let lines = std::mem::take(&mut self.lines);
            self.report.sources.extend(lines.into_values());
            self.report.error = Some(error.to_string());
        }
        (self.finish(started), error)
    }

    /// Adds the report lines of the sources this process ran queries of
    /// on the shared plan, with what the database holds of each.
    fn report_lines(&mut self) -> Result<(), GatherError> {
        for (id, mut line) in std::mem::take(&mut self.lines) {
            line.stats = Some(self.store().stats(id)?);
            self.report.sources.push(line);
        }
        Ok(())
    }

    /// Gives back what this process holds of the shared plan (its leases,
    /// its host slots) and says it has stopped; with `patient` false, a
    /// lost database is not waited for.
    pub(super) async fn release(&mut self, patient: bool) -> Result<(), GatherError> {
        self.renewer.take();
        if let Some(plan) = &self.shared {
            plan.release(patient).await?;
        }
        Ok(())
    }

    /// Runs the queries this process claims on the shared plan,
    /// `--concurrency` at a time, and counts each in its source's line,
    /// until the plan is worked off ([`claims`]) or the gathering is
    /// interrupted.
    async fn run_claims(&mut self, plan: &SharedPlan) -> Result<(), GatherError> {
        let mut lines = std::mem::take(&mut self.lines);
        let claims = claims(plan, self.options.interrupt.clone(), self.role);
        let works = Mutex::new(HashMap::new());
        let this = &*self;
        let works = &works;
        let mut runs = claims
            .map(|claim| {
                let prepared = claim
                    .map_err(GatherError::from)
                    .and_then(|claim| Ok((this.shared_work(works, claim.source)?, claim)));
                async move {
                    let (work, claim) = prepared?;
                    let mark = claim.mark.clone();
                    let (key, description, query, checkpoint, origin) = claimed_query(claim)?;
                    let run = work
                        .run(key, description, query, checkpoint, origin, mark)
                        .await;
                    Ok::<_, GatherError>((work, run))
                }
            })
            .buffer_unordered(self.options.concurrency.max(1));
        let mut result = Ok(());
        while let Some(done) = runs.next().await {
            let (work, run) = match done {
                Ok(done) => done,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            };
            let line = lines.entry(work.source).or_insert_with(|| {
                let url = Url::parse(&work.source_url).expect("a source's URL is a URL");
                SourceReport::new(url, SourceKind::Database)
            });
            if let Err(e) = this.take_run(&work.source_url, line, run) {
                result = Err(e);
                break;
            }
        }
        drop(runs);
        self.lines = lines;
        result
    }

    /// What every query of a source in the shared plan shares, as the
    /// planner left it in the database.
    fn shared_work(
        &self,
        cache: &Mutex<HashMap<SourceId, Arc<QueryJob>>>,
        id: SourceId,
    ) -> Result<Arc<QueryJob>, GatherError> {
        if let Some(work) = lock(cache).get(&id) {
            return Ok(Arc::clone(work));
        }
        let (work, rules) = self.store().work(id)?;
        let unplanned =
            || GatherError::Setup(format!("source {id} of the shared plan has no plan"));
        let work: SharedWork = serde_json::from_str(&work.ok_or_else(unplanned)?)
            .map_err(|e| GatherError::Setup(format!("source {id} of the shared plan: {e}")))?;
        let rules = rules.ok_or_else(unplanned)?;
        let header_rows = header_rows_from_json(&rules);
        let rules = rules_from_json(&rules)
            .map_err(|e| GatherError::Setup(format!("source {id} of the shared plan: {e}")))?;
        let result_count = match &work.result_count {
            Some((rule, prefix)) => Some(Arc::new(
                Rule::parse_with_prefix(rule, prefix.as_deref()).map_err(|e| {
                    GatherError::Setup(format!(
                        "source {id} of the shared plan: DB.ResultCount: {e}"
                    ))
                })?,
            )),
            None => None,
        };
        let mut query_job = self
            .query_job(
                id,
                work.url.clone(),
                rules,
                work.navigation(),
                work.max_pages,
                result_count,
            )
            .with_header_rows(header_rows)
            .with_splits(work.splits);
        // Each claim carries its own query's mark: none is read ahead.
        query_job.refresh = work.refresh_since.map(|since| {
            Arc::new(RefreshStart {
                since,
                marks: HashMap::new(),
                resumed: false,
            })
        });
        let query_job = Arc::new(query_job);
        lock(cache).insert(id, Arc::clone(&query_job));
        Ok(query_job)
    }

    /// Puts a round's queries into the shared plan (a query's checkpoint is
    /// in the plan already).
    fn plan_round(&self, work: &QueryJob, batch: super::rounds::Batch) -> Result<(), GatherError> {
        let planned = batch
            .into_iter()
            .map(|(key, query, _, origin)| planned_query(key, &query, &origin));
        self.store()
            .plan_queries(work.source, &work.shared_json(), planned)?;
        Ok(())
    }

    /// Queries sent at once while learning: `--concurrency`, for every
    /// live worker on a shared plan.
    pub(super) async fn learning_batch(&self) -> Result<usize, GatherError> {
        let workers = match &self.shared {
            Some(plan) => 1 + plan.other_work().await?.workers,
            None => 1,
        };
        Ok(self.options.concurrency.max(1) * workers as usize)
    }
}

/// The queries this process claims on the shared plan, one after another,
/// until none is left to claim or the gathering is interrupted. While
/// others hold the rest, it waits, to take a query over should its worker
/// die; a worker also waits for what a live planner may still add, and for
/// a first plan ([`super::Options::plan_wait`]).
fn claims(
    plan: &SharedPlan,
    interrupt: super::Interrupt,
    role: Role,
) -> impl futures::Stream<Item = Result<Claim, StoreError>> + Unpin {
    let since = Instant::now();
    Box::pin(futures::stream::unfold(plan.clone(), move |plan| {
        let interrupt = interrupt.clone();
        async move {
            loop {
                if interrupt.is_set() {
                    return None;
                }
                match plan.claim().await {
                    Ok(Some(claim)) => return Some((Ok(claim), plan)),
                    Ok(None) => {}
                    Err(e) => return Some((Err(e), plan)),
                }
                let others = match plan.other_work().await {
                    Ok(others) => others,
                    Err(e) => return Some((Err(e), plan)),
                };
                // Others hold the rest: wait, to take a query over
                // should its worker die. A worker also waits for what
                // a live planner may still add, and for a first plan.
                let waits = others.held > 0
                    || match role {
                        Role::Planner => false,
                        Role::Worker { wait } => {
                            others.planners > 0 || (!others.planned && since.elapsed() < wait)
                        }
                    };
                if !waits {
                    return None;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }))
}

/// A claimed query as its job runs it: key, description, the query, where
/// its walk stands, where it comes from.
fn claimed_query(
    claim: Claim,
) -> Result<(String, String, Query, Option<Checkpoint>, Origin), GatherError> {
    let Claim {
        query:
            PlannedQuery {
                key,
                ordinal,
                description,
                request,
                parent,
                learned,
                values,
                ..
            },
        checkpoint,
        ..
    } = claim;
    let origin = Origin::Claimed {
        planned: parent.is_none() && !learned,
    };
    let request: Request = serde_json::from_str(&request)
        .map_err(|e| GatherError::Setup(format!("the shared plan's query {key:?}: {e}")))?;
    // Its element values decide whether a first page that
    // proves it cut short ends its walk.
    let values = values
        .as_deref()
        .and_then(|json| serde_json::from_str(json).ok())
        .unwrap_or_default();
    let query = Query {
        ordinal,
        values,
        request,
    };
    let checkpoint = checkpoint
        .as_deref()
        .and_then(|json| serde_json::from_str::<Checkpoint>(json).ok());
    Ok((key, description, query, checkpoint, origin))
}

/// A query as the shared plan keeps it.
pub(super) fn planned_query(key: String, query: &Query, origin: &Origin) -> PlannedQuery {
    PlannedQuery {
        key,
        ordinal: query.ordinal,
        description: describe(query),
        request: serde_json::to_string(&query.request).unwrap_or_default(),
        values: serde_json::to_string(&query.values).ok(),
        parent: match origin {
            Origin::Refined(parent) => Some(parent.clone()),
            _ => None,
        },
        learned: *origin == Origin::Learned,
    }
}

impl QueryJob {
    /// How workers run the source's queries, as the shared plan keeps it
    /// (JSON of [`SharedWork`]).
    pub(super) fn shared_json(&self) -> String {
        let (navigation, pattern) = match &self.navigation {
            NavigationMode::Off => ("off", None),
            NavigationMode::Pattern(p) => ("pattern", Some(p.clone())),
            NavigationMode::Detect => ("detect", None),
        };
        let work = SharedWork {
            url: self.source_url.clone(),
            navigation: navigation.into(),
            pattern,
            max_pages: self.max_pages,
            result_count: self
                .result_count
                .as_ref()
                .map(|rule| (rule.source().to_string(), rule.prefix().map(str::to_string))),
            splits: self.splits.clone(),
            refresh_since: self.refresh.as_ref().map(|r| r.since),
        };
        serde_json::to_string(&work).unwrap_or_default()
    }
}

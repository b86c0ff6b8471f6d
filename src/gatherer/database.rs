//! A database source gathered: stored with its rules, its plan run here
//! or put into the shared plan, its rounds of refinements and learned
//! words, and whether its content is complete.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures::StreamExt;

use super::query::{describe, take_checkpoint, Origin, QueryEnd, QueryJob, Unchanged};
use super::report::{self, Completeness, SourceReport};
use super::rounds::{self, Refined, Rounds};
use super::rules::{reextract, rules_differ, rules_json};
use super::shared::{planned_query, Planned};
use super::{lock, page_record, GatherError, Gathering, Progress};
use crate::fragment::IndexFragment;
use crate::hel::Rule;
use crate::metadata::ResultKind;
use crate::navigate::{Checkpoint, NavigationMode};
use crate::plan::{Cap, Capped, Query};
use crate::record::RecordRules;
use crate::refine::Refiner;
use crate::source::Source;
use crate::store::{QueryState, RefreshStart, SourceId, SourceInfo, SourceKind, StoreError};

impl Gathering<'_> {
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
    ) -> Result<Option<RefreshStart>, GatherError> {
        let now = rules_json(rules, header_rows);
        let before = self.store().rules(id)?;
        let mut refresh = None;
        if self.options.refresh && before.as_ref().is_some_and(|b| !rules_differ(b, &now)) {
            let due = self.options.refresh_due;
            let start = self.store().begin_refresh(id, due)?;
            line.notes.push(if start.resumed {
                "refresh: resumed where an interrupted refresh stopped; the queries it finished are not sent again"
                    .to_string()
            } else if due {
                "refresh: the answered queries due asked again, conditionally where the provider gave validators; the others wait for their time".to_string()
            } else {
                format!(
                    "refresh: {} answered queries asked again, conditionally where the provider gave validators",
                    start.marks.len()
                )
            });
            refresh = Some(start);
        } else if self.options.refresh {
            line.notes.push(
                "refresh: the source was not gathered with these rules before: gathered as new"
                    .into(),
            );
        }
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
        Ok(refresh)
    }

    /// Gathers a database source: its plan's queries (or, with a shared
    /// plan, puts them into the database for the workers), then its rounds
    /// of refinements and learned words, and tells whether its content is
    /// complete.
    pub(super) async fn gather_database(&mut self, source: &Source) -> Result<(), GatherError> {
        let rules = source.metadata.rules();
        let header_rows = source.metadata.header_rows != Some(false);
        let (id, mut line, refresh) = self.start_database(source, &rules, header_rows)?;
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
        let refresh = refresh.map(Arc::new);
        let work = Arc::new(QueryJob {
            refresh: refresh.clone(),
            ..self.source_job(id, source, rules, header_rows, &page_cap)
        });

        // A stateful form's requests are built from the pages that answer
        // it (its tokens, its dependent choices): they cannot be planned
        // ahead for other workers, so this process gathers it.
        if self.shared.is_some() {
            if source.live.is_none() {
                self.plan_shared(id, source, work, line, plan_limit, page_cap)?;
                return Ok(());
            }
            line.notes.push(
                "a stateful form (its requests are built from the pages that answer it): gathered by this process, not put into the shared plan"
                    .to_string(),
            );
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
        if let Some(refresh) = &refresh {
            line.changes = Some(self.store().changes(id, refresh.since)?);
            self.end_refresh(id)?;
        }
        self.finish_source(id, source, plan_limit, &page_cap, refined, line)
    }

    /// Ends the source's refresh, unless the gathering was interrupted:
    /// then the next `gather refresh` resumes it.
    pub(super) fn end_refresh(&mut self, id: SourceId) -> Result<(), GatherError> {
        if !self.options.interrupt.is_set() {
            self.store().end_refresh(id)?;
        }
        Ok(())
    }

    /// Stores a database source with the pages fetched to find it, the
    /// spec its probes induced, its rules (compared with those of its last
    /// gathering) and its listed values; its id and its report line.
    fn start_database(
        &mut self,
        source: &Source,
        rules: &[(String, Rule)],
        header_rows: bool,
    ) -> Result<(SourceId, SourceReport, Option<RefreshStart>), GatherError> {
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
        let refresh = self.take_rules(id, rules, header_rows, &mut line)?;

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
        Ok((id, line, refresh))
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
        .with_live(source.live.clone())
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
    pub(super) fn query_job(
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
            refresh: None,
            live: None,
        }
    }

    /// Counts what a query gave (recorded as it ended) in the source's
    /// report line, and appends its new records to the records file.
    /// Returns the query's new values.
    pub(super) fn take_run(
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
        line.answers_refreshed += u64::from(done.refresh.is_some());
        match run.unchanged {
            Some(Unchanged::NotModified) => line.answers_not_modified += 1,
            Some(Unchanged::SameDigest) => line.answers_same_digest += 1,
            None => {}
        }
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
    pub(super) fn finish_source(
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
        if let Some(why) = refined.as_ref().and_then(Refined::unreached) {
            reasons.push(why);
        }
        if let Some(refined) = refined {
            line.initials = refined.initials;
            line.refining_stopped = refined.stopped;
            line.truncated_left = refined.left;
            line.hits_estimate = refined.estimate;
        }
        // The rows the form page states, weighed against the most rows
        // gathered (records, or the values of one attribute).
        line.stated_total = stated_total(source);
        let mut total_reached = false;
        if let Some(total) = line.stated_total {
            let stats = self.store().stats(id)?;
            let most = stats.values_per_attribute.values().max().copied();
            let gathered = stats.records.max(most.unwrap_or(0));
            total_reached = gathered >= total;
            if !total_reached {
                reasons.push(format!(
                    "the form page states {total} rows, {gathered} were gathered"
                ));
            }
        }
        let reason = (!reasons.is_empty()).then(|| reasons.join("; "));
        self.store().set_incomplete(id, reason.as_deref())?;
        line.completeness = match (&reason, &line.learning_stopped) {
            (Some(reason), _) => Completeness::Incomplete(reason.clone()),
            // Every answer known whole or not, the rows the form page
            // states were all gathered.
            (None, _) if total_reached => Completeness::Complete,
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

    /// Sends `queries` (key, query, where a killed run left its walk, where
    /// the query comes from), `--concurrency` at a time, and records each.
    /// Returns each query's new values, in the order they ended.
    pub(super) async fn run_queries(
        &mut self,
        work: &Arc<QueryJob>,
        source: &Source,
        queries: impl Iterator<Item = (String, Query, Option<Checkpoint>, Origin)>,
        line: &mut SourceReport,
    ) -> Result<rounds::Seen, GatherError> {
        let mut seen = rounds::Seen::new();
        // A stateful form's queries are one session's, sent one after
        // another as a browser would: a query whose pages post back never
        // finds its session replaced by another query's fresh one.
        let at_once = match work.live {
            Some(_) => 1,
            None => self.options.concurrency.max(1),
        };
        let mut runs = futures::stream::iter(queries.map(|(key, query, checkpoint, origin)| {
            let work = Arc::clone(work);
            async move {
                work.run(key, describe(&query), query, checkpoint, origin, None)
                    .await
            }
        }))
        .buffer_unordered(at_once);
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
    pub(super) async fn run_rounds(
        &mut self,
        rounds: &mut Rounds<'_>,
        line: &mut SourceReport,
    ) -> Result<(), GatherError> {
        loop {
            let learning_batch = self.learning_batch().await?;
            let Some(batch) = rounds.next(self, learning_batch, line)? else {
                return Ok(());
            };
            self.tell(Progress::More {
                queries: batch.len() as u64,
            });
            let interrupt = self.options.interrupt.clone();
            let batch = batch.into_iter().take_while(move |_| !interrupt.is_set());
            let seen = self
                .run_queries(&rounds.work, rounds.source, batch, line)
                .await?;
            rounds.answered(self, Some(seen))?;
        }
    }
}

/// The rows the source's form page states its database holds ("Der
/// Katalog umfasst 1.234 Titel"), read as a result page's total is
/// ([`crate::listing::total`]): a count of records, not of pages.
fn stated_total(source: &Source) -> Option<u64> {
    let form = source.fetched.first()?;
    let page = crate::page::Page::from_bytes(&form.body, form.content_type.as_deref());
    let total = crate::listing::Listing::read(&page, &form.url).total?;
    (total.kind == crate::listing::TotalKind::Records).then_some(total.count)
}

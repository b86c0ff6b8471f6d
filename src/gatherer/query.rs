//! A query's work: the request sent, its result pages walked, extracted
//! and saved with the navigator's checkpoint as they come, its end
//! recorded.

use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::extraction::{extract, Extracted};
use super::record_sink::RecordSink;
use super::{lock, page_record, Interrupt, Progress, ProgressListener};
use crate::fetch::{Conditional, Fetcher, Response, Validators};
use crate::fragment::IndexFragment;
use crate::hel::Rule;
use crate::navigate::{Checkpoint, NavigationMode, Navigator};
use crate::plan::Query;
use crate::record::RecordRules;
use crate::refine::AnswerTally;
use crate::store::{
    AnswerMark, QueryOutcome, QueryState, RefreshStart, Refreshing, SourceId, Store, StoreError,
};

/// What every query of one source shares.
pub(super) struct QueryJob {
    pub(super) fetcher: Fetcher,
    pub(super) store: Arc<Mutex<Store>>,
    pub(super) source: SourceId,
    /// The source's URL, as the records file names it.
    pub(super) source_url: String,
    pub(super) rules: Arc<Vec<(String, Rule)>>,
    /// Which of the rules make records.
    pub(super) records: Arc<RecordRules>,
    pub(super) sink: Option<RecordSink>,
    pub(super) max_pages: u64,
    pub(super) navigation: NavigationMode,
    pub(super) other_hosts: Vec<String>,
    pub(super) progress: Option<ProgressListener>,
    pub(super) interrupt: Interrupt,
    pub(super) keep_pages: bool,
    /// `DB.ResultCount`, read on a query's first result page.
    pub(super) result_count: Option<Arc<Rule>>,
    /// The source's ways to refine: a query they split whose first page
    /// proves it cut short reads no more pages ([`crate::refine::Splits`]).
    pub(super) splits: Option<crate::refine::Splits>,
    /// How long a lost database is waited for with a page in hand.
    pub(super) patience: Duration,
    /// Answers received before the gathering (a surfaced form's probes),
    /// by request key: a request found here is not sent; taken once.
    pub(super) answered: Mutex<HashMap<String, Response>>,
    /// How many requests were answered from `answered`.
    pub(super) reused: std::sync::atomic::AtomicU64,
    /// A refresh (`gather refresh`): when it began, and what the first
    /// pages of the answered queries said.
    pub(super) refresh: Option<Arc<RefreshStart>>,
    /// A stateful form's pages: each query's request is built from the
    /// form as the page it follows shows it, when it is sent.
    pub(super) live: Option<Arc<crate::plan::live::Chain>>,
}

/// A query's walk while it runs: what is recorded of it, its answer so
/// far, and when it was last saved.
struct Walk {
    outcome: QueryOutcome,
    run: QueryRun,
    tally: AnswerTally,
    /// The query's own page has answered (in this run or before).
    answered: bool,
    /// The database stayed away while the walk was saved.
    lost: Option<StoreError>,
    /// Pages fetched since the walk was last saved, and when it was.
    unsaved: usize,
    saved_at: Instant,
    /// What the query's first page said when it was last answered (in a
    /// refresh).
    prior: Option<AnswerMark>,
    /// The validators of the first page fetched in this run.
    validators: Validators,
    /// The walk began at the query's first page in this run.
    from_start: bool,
}

/// What is recorded of a query before its first page is fetched.
fn new_outcome(
    key: String,
    description: String,
    query: &Query,
    origin: &Origin,
    resumed: bool,
    refresh: Option<Refreshing>,
) -> QueryOutcome {
    QueryOutcome {
        key,
        ordinal: query.ordinal,
        description,
        state: QueryState::Pending,
        error: None,
        attempts: 0,
        pages: Vec::new(),
        fragment: IndexFragment::new(),
        records: Vec::new(),
        cut_short: false,
        checkpoint: None,
        walk_links: Vec::new(),
        fresh: !resumed,
        answer: None,
        values: (!matches!(origin, Origin::Claimed { .. }))
            .then(|| serde_json::to_string(&query.values).ok())
            .flatten(),
        parent: match origin {
            Origin::Refined(parent) => Some(parent.clone()),
            _ => None,
        },
        learned: *origin == Origin::Learned,
        mark: None,
        refresh,
    }
}

/// Queues the post-back among `links` (the pager's, read with the page)
/// that leads to the next result page ([`Navigator::next_postback`]),
/// built from `page`, the page they are on; an error when the page's form
/// cannot be read for it.
fn queue_postback(
    page: &Response,
    links: &[crate::navigate::postback::PostbackLink],
    navigator: &mut Navigator,
    fresh: bool,
    whole: bool,
) -> Result<(), String> {
    let Some(link) = navigator.next_postback(links, fresh, whole) else {
        return Ok(());
    };
    let request = crate::navigate::postback::request(page, &link)?;
    navigator.postback(link, request);
    Ok(())
}

/// A query run and how its end was recorded.
pub(super) struct QueryEnd {
    pub(super) run: QueryRun,
    pub(super) recorded: Result<crate::store::Recorded, StoreError>,
}

/// What one query gave, beyond what the store keeps.
pub(super) struct QueryRun {
    pub(super) outcome: QueryOutcome,
    /// Values new to the store, from every record of the query.
    pub(super) new_values: u64,
    /// Result pages fetched in this run.
    pub(super) pages: u64,
    /// Pages answered, and whether any rule gave a value on them.
    pub(super) found_nothing: bool,
    /// Rules whose value a result limit cut, with the page.
    pub(super) warnings: Vec<String>,
    /// The walk stopped between two pages because the gathering was
    /// interrupted; the query continues in the next run.
    pub(super) interrupted: bool,
    /// Every value its pages showed (as [`value_hash`]), new or
    /// not: which query of a round found a value first depends on which
    /// ended first, so a round's decisions read these instead.
    pub(super) seen: HashSet<u64>,
    /// In a refresh, how the answer was found unchanged: a 304, or a
    /// first page the same as before.
    pub(super) unchanged: Option<Unchanged>,
}

/// How a refreshed query's answer was found unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unchanged {
    /// The provider said 304 Not Modified: no body.
    NotModified,
    /// The first page's digest is the one seen before.
    SameDigest,
}

impl QueryJob {
    /// The same work, with header rows heading records or not
    /// (`DB.HeaderRows`).
    pub(super) fn with_header_rows(mut self, on: bool) -> QueryJob {
        self.records = Arc::new(RecordRules::new(&self.rules).with_header_rows(on));
        self
    }

    /// The same work, refining at once a query these ways split whose
    /// first page proves it cut short (`None`: every page is read).
    pub(super) fn with_splits(mut self, splits: Option<crate::refine::Splits>) -> QueryJob {
        self.splits = splits;
        self
    }

    /// The same work, building each request from the form as the latest
    /// page shows it ([`crate::plan::live`]).
    pub(super) fn with_live(mut self, live: Option<Arc<crate::plan::live::Chain>>) -> QueryJob {
        self.live = live;
        self
    }

    /// The request of `query` as the page it follows shows the form now:
    /// its state tokens and hidden inputs taken from that page.
    async fn live_request(&self, query: &mut Query) -> Result<u64, crate::plan::live::LiveError> {
        match &self.live {
            Some(chain) => {
                let (request, generation) = chain.request(&self.fetcher, &query.values).await?;
                query.request = request;
                Ok(generation)
            }
            None => Ok(0),
        }
    }

    /// The same work, taking these answers (by request key) instead of
    /// sending their requests ([`Source::answered`]).
    pub(super) fn with_answers(self, answers: &[(String, Response)]) -> QueryJob {
        lock(&self.answered).extend(answers.iter().cloned());
        self
    }

    /// Sends a request, unless its answer came before the gathering.
    pub(super) async fn fetch(
        &self,
        request: &crate::fetch::Request,
    ) -> Result<Response, crate::fetch::FetchError> {
        let early = {
            let mut answered = lock(&self.answered);
            if answered.is_empty() {
                None
            } else {
                answered.remove(&crate::plan::answer_key(request))
            }
        };
        match early {
            Some(answer) => {
                self.reused
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Ok(answer)
            }
            None => self.fetcher.fetch(request).await,
        }
    }

    /// Sends one query (`key` is its [`Query::key`]) and walks its result
    /// pages, or continues the walk from `checkpoint`. The query's own page
    /// is recorded at once, the next ones as they come,
    /// [`SAVE_EVERY_PAGES`] at a time or after [`SAVE_EVERY`], each time
    /// with the navigator's checkpoint in the
    /// same transaction: a killed run loses at most the pages since the
    /// last save, which the next run fetches again from that checkpoint.
    /// An interrupted run (Ctrl-C) and a failure keep every page fetched.
    /// In a refresh, the answer is compared with `claimed_mark` (a claim
    /// of the shared plan carries it) or else with the refresh's mark of
    /// the query.
    pub(super) async fn run(
        &self,
        key: String,
        description: String,
        mut query: Query,
        checkpoint: Option<Checkpoint>,
        origin: Origin,
        claimed_mark: Option<AnswerMark>,
    ) -> QueryEnd {
        let resumed = checkpoint.is_some();
        let prior = self
            .refresh
            .as_ref()
            .and_then(|r| claimed_mark.or_else(|| r.marks.get(&key).cloned()));
        let refreshing = self.refresh.as_ref().map(|r| Refreshing {
            since: r.since,
            unchanged: false,
            whole: false,
            interval: prior.as_ref().and_then(|p| p.interval),
        });
        let outcome = new_outcome(key, description, &query, &origin, resumed, refreshing);
        let mut walk = Walk {
            run: QueryRun {
                outcome: outcome.clone(),
                new_values: 0,
                pages: 0,
                found_nothing: !self.rules.is_empty(),
                warnings: Vec::new(),
                interrupted: false,
                seen: HashSet::new(),
                unchanged: None,
            },
            outcome,
            tally: AnswerTally::default(),
            answered: resumed,
            lost: None,
            unsaved: 0,
            saved_at: Instant::now(),
            prior,
            validators: Validators::default(),
            from_start: !resumed,
        };
        // A stateful form's query is sent as the page it follows shows the
        // form; a query whose own page the provider refuses (a state token
        // gone stale, a session that ended) is built again once from a
        // fresh form page.
        let mut renewed = false;
        let navigator = loop {
            let before = self.live.as_ref().map(|chain| chain.renewed());
            let generation = match self.live_request(&mut query).await {
                Ok(generation) => generation,
                // A page the query follows refused (a session that ended
                // while its pages were read): read again once from a
                // fresh form page.
                Err(crate::plan::live::LiveError::Fetch(e))
                    if !renewed && e.is_permanent() && self.live.is_some() =>
                {
                    renewed = true;
                    if let (Some(chain), Some(before)) = (&self.live, before) {
                        chain.renew(before);
                    }
                    walk.run.warnings.push(format!(
                        "{}: the provider refused a page the query follows ({e}); its form was read again from a fresh form page",
                        walk.outcome.description
                    ));
                    continue;
                }
                Err(e) => {
                    walk.outcome.error = Some(format!(
                        "the form could not be read from the page the query follows: {e}"
                    ));
                    let navigator = self.navigator(&query, checkpoint);
                    return self.finish(walk, &navigator, &origin).await;
                }
            };
            let mut navigator = self.navigator(&query, checkpoint.clone());
            self.walk(&query, &mut walk, &mut navigator).await;
            let refused = !walk.answered && walk.outcome.error.is_some();
            match &self.live {
                Some(chain) if refused && !renewed => {
                    renewed = true;
                    chain.renew(generation);
                    walk.run.warnings.push(format!(
                        "{}: the provider refused the query ({}); its form was read again from a fresh form page and the query sent again",
                        walk.outcome.description,
                        walk.outcome.error.take().unwrap_or_default()
                    ));
                }
                Some(_) if refused => {
                    walk.outcome.error = walk.outcome.error.take().map(|e| {
                        format!("{e} (sent again from a fresh form page, refused again: the provider may have refused the form's state token or session)")
                    });
                    break navigator;
                }
                _ => break navigator,
            }
        };
        self.finish(walk, &navigator, &origin).await
    }

    /// Walks a query's result pages until the navigator has no more, the
    /// gathering is interrupted or a page fails.
    async fn walk(&self, query: &Query, walk: &mut Walk, navigator: &mut Navigator) {
        while navigator.has_next() {
            // Interrupted: a walk that can be continued stops between two
            // pages; the query's own page is always fetched to its end.
            if self.interrupt.is_set() && navigator.checkpoint().is_some() {
                walk.run.interrupted = true;
                break;
            }
            let Some(request) = navigator.next_request() else {
                break;
            };
            let response = match self.fetch_page(&request, query, walk, navigator).await {
                ControlFlow::Continue(Some(response)) => response,
                ControlFlow::Continue(None) => continue,
                ControlFlow::Break(()) => break,
            };
            let first_page = !walk.answered;
            if self
                .take_page(response, query, walk, navigator)
                .await
                .is_break()
            {
                break;
            }
            walk.unsaved += 1;
            // The query's own answer is saved at once: the query is never
            // sent again.
            let due = first_page
                || walk.unsaved >= SAVE_EVERY_PAGES
                || walk.saved_at.elapsed() >= SAVE_EVERY;
            if navigator.has_next() && due && self.save(walk, navigator).await.is_break() {
                break;
            }
        }
    }

    /// The navigator of a query's walk: from its first page, or from
    /// where a killed run left it.
    fn navigator(&self, query: &Query, checkpoint: Option<Checkpoint>) -> Navigator {
        match checkpoint {
            Some(cp) => Navigator::resume(
                self.navigation.clone(),
                query.request.clone(),
                Some(self.max_pages),
                cp,
            ),
            None => Navigator::new(
                self.navigation.clone(),
                query.request.clone(),
                Some(self.max_pages),
            ),
        }
        .allow_hosts(&self.other_hosts)
    }

    /// Fetches the walk's next page. A result link that can never be
    /// fetched (a redirect to file://, a 404) is passed over
    /// (`Continue(None)`), so that it does not fail its query on every
    /// run; another failure ends the walk, the request given back.
    async fn fetch_page(
        &self,
        request: &crate::fetch::Request,
        query: &Query,
        walk: &mut Walk,
        navigator: &mut Navigator,
    ) -> ControlFlow<(), Option<Response>> {
        let fetched = if walk.answered {
            self.fetch(request).await.map(Some)
        } else {
            self.fetch_first(request, walk).await
        };
        match fetched {
            Ok(Some(response)) => ControlFlow::Continue(Some(response)),
            // Not modified since the refresh's last answer.
            Ok(None) => ControlFlow::Break(()),
            Err(e) if walk.answered && navigator.last_postback().is_some() => {
                let link = navigator.last_postback().cloned();
                let again = match link {
                    Some(link) => self.postback_again(query, &link, &request.url, e).await,
                    None => Err(String::new()),
                };
                match again {
                    Ok((response, warning)) => {
                        walk.run
                            .warnings
                            .push(format!("{}: {warning}", walk.outcome.description));
                        ControlFlow::Continue(Some(response))
                    }
                    Err(message) => {
                        walk.outcome.error = Some(message);
                        ControlFlow::Break(())
                    }
                }
            }
            Err(e) if walk.answered && e.is_permanent() => {
                walk.run.warnings.push(format!(
                    "{}: result page skipped: {e}",
                    walk.outcome.description
                ));
                ControlFlow::Continue(None)
            }
            Err(e) => {
                walk.outcome.error = Some(e.to_string());
                navigator.give_back();
                ControlFlow::Break(())
            }
        }
    }

    /// A post-back page the provider refused (a state token gone stale, a
    /// session that ended): a numbered page is asked again as a person
    /// would, from a fresh answer to the query (its form read again from
    /// a fresh form page), and the page is given with what to report; any
    /// other refusal fails the query, naming the page, so that no page is
    /// dropped unsaid.
    async fn postback_again(
        &self,
        query: &Query,
        link: &crate::navigate::postback::PostbackLink,
        url: &url::Url,
        error: crate::fetch::FetchError,
    ) -> Result<(Response, String), String> {
        let refused = format!(
            "result page {} refused: {error}",
            crate::navigate::postback::describe(url, link)
        );
        let chain = match (&self.live, link.label()) {
            (Some(chain), crate::navigate::Label::Page(_)) => chain,
            _ => {
                return Err(format!(
                    "{refused} (the provider may have refused the page's state token; the pages after it were not read)"
                ))
            }
        };
        chain.renew(chain.renewed());
        let again = async {
            let (request, _) = chain
                .request(&self.fetcher, &query.values)
                .await
                .map_err(|e| e.to_string())?;
            let answer = self.fetch(&request).await.map_err(|e| e.to_string())?;
            let request = crate::navigate::postback::request(&answer, link)?;
            self.fetch(&request).await.map_err(|e| e.to_string())
        }
        .await;
        match again {
            Ok(page) => Ok((
                page,
                format!("{refused}; asked again from a fresh answer to the query"),
            )),
            Err(e) => Err(format!(
                "{refused}; asked again from a fresh answer to the query, refused again: {e}"
            )),
        }
    }

    /// Sends a query's own request: conditionally in a refresh, where the
    /// last answer carried validators; `None` for a 304 (the answer is the
    /// one seen before). The validators of a new answer are kept in the walk.
    async fn fetch_first(
        &self,
        request: &crate::fetch::Request,
        walk: &mut Walk,
    ) -> Result<Option<Response>, crate::fetch::FetchError> {
        let early = !lock(&self.answered).is_empty();
        if early {
            return self.fetch(request).await.map(Some);
        }
        let known = walk
            .prior
            .as_ref()
            .map(|p| p.validators.clone())
            .unwrap_or_default();
        match self.fetcher.fetch_conditional(request, &known).await? {
            Conditional::NotModified => {
                walk.run.unchanged = Some(Unchanged::NotModified);
                Ok(None)
            }
            Conditional::Changed(response, validators) => {
                walk.validators = validators;
                Ok(Some(*response))
            }
        }
    }

    /// Takes a fetched result page into the walk: the page, its values,
    /// records and links, the answer so far. Breaks when the page cannot
    /// be read, or when the query's first page proves the walk will be cut
    /// short and the query is refined anyway.
    async fn take_page(
        &self,
        response: Response,
        query: &Query,
        walk: &mut Walk,
        navigator: &mut Navigator,
    ) -> ControlFlow<()> {
        let answered_before = walk.answered;
        let record = page_record(&response);
        if !answered_before {
            let mark = AnswerMark {
                validators: std::mem::take(&mut walk.validators),
                digest: record.sha256.clone(),
                cut_short: false,
                interval: None,
            };
            // The same first page as the refresh's last answer: the rest
            // of the answer is taken as it was.
            if walk.prior.as_ref().is_some_and(|p| p.digest == mark.digest) {
                walk.run.unchanged = Some(Unchanged::SameDigest);
                walk.outcome.mark = Some(mark);
                return ControlFlow::Break(());
            }
            walk.outcome.mark = Some(mark);
        }
        walk.answered = true;
        let outcome = &mut walk.outcome;
        outcome.attempts += response.attempts;
        outcome.pages.push(if self.keep_pages {
            record.keeping(response.content_type.as_deref(), &response.body)
        } else {
            record
        });
        walk.run.pages += 1;
        if let Some(listener) = &self.progress {
            listener.tell(Progress::Page {
                url: response.url.clone(),
            });
        }
        let url = response.url.clone();
        // A page that may hold a post-back pager is kept to build its
        // post-back from.
        let kept = (navigator.detects() && crate::navigate::postback::marked(&response.body))
            .then(|| response.clone());
        // The hit count is read on the query's own page.
        let count = self.result_count.clone().filter(|_| !answered_before);
        let stated = !answered_before && self.result_count.is_none();
        let postbacks = kept.is_some();
        let extracted = self
            .extract(response, navigator, count, stated, postbacks)
            .await;
        let extracted = match extracted {
            Ok(extracted) => extracted,
            Err(e) => {
                walk.outcome.error = Some(format!("{url}: the page could not be read: {e}"));
                return ControlFlow::Break(());
            }
        };
        let (run, tally, outcome) = (&mut walk.run, &mut walk.tally, &mut walk.outcome);
        run.found_nothing &= extracted.fragment.is_empty();
        let fresh = extracted
            .fragment
            .iter()
            .flat_map(|(_, values)| values.iter())
            .any(|v| !run.seen.contains(&value_hash(v)));
        run.warnings.extend(extracted.warnings);
        tally.hits(extracted.hits);
        tally.stated(extracted.stated);
        tally.rows(extracted.rows);
        tally.page(&extracted.lists);
        run.seen.extend(
            extracted
                .fragment
                .iter()
                .flat_map(|(_, values)| values.iter().map(|v| value_hash(v))),
        );
        outcome.fragment.merge(&extracted.fragment);
        outcome.records.extend(extracted.records);
        navigator.result_page_with_pagers(&url, &extracted.links, &extracted.pagers);
        if let Some(page) = kept.filter(|_| navigator.wants_postbacks()) {
            let answer = tally.answer();
            let whole = answer.hits.is_some_and(|hits| answer.shown >= hits);
            let links = &extracted.postbacks;
            if let Err(e) = queue_postback(&page, links, navigator, fresh, whole) {
                run.warnings.push(format!("{}: {e}", outcome.description));
            }
        }
        // A first page that proves the walk will be cut short ends it
        // when the query is refined anyway: its refinements read the
        // rows of the pages left.
        if !answered_before && self.cut_short_at_once(navigator, tally, &query.values) {
            tally.early(self.max_pages);
            outcome.answer = serde_json::to_string(&tally.answer()).ok();
            return ControlFlow::Break(());
        }
        outcome.answer = serde_json::to_string(&tally.answer()).ok();
        ControlFlow::Continue(())
    }

    /// Saves the walk so far with the navigator's checkpoint, in one
    /// transaction, and appends its new records to the records file.
    /// Breaks when it cannot be saved.
    async fn save(&self, walk: &mut Walk, navigator: &mut Navigator) -> ControlFlow<()> {
        walk.unsaved = 0;
        walk.saved_at = Instant::now();
        let outcome = &mut walk.outcome;
        (outcome.checkpoint, outcome.walk_links) = saved_walk(navigator);
        if outcome.checkpoint.is_none() {
            return ControlFlow::Continue(());
        }
        let saved = self
            .record(outcome)
            .await
            .map_err(Some)
            .and_then(|recorded| {
                self.write_records(outcome, recorded).map_err(|message| {
                    outcome.error = Some(format!("cannot save the query's progress: {message}"));
                    None
                })
            });
        match saved {
            Ok(new) => {
                walk.run.new_values += new;
                // A walk saved twice (the records file
                // failed after the database took the page)
                // lists links twice, which resuming reads once.
                navigator.saved();
                outcome.walk_links.clear();
                outcome.pages.clear();
                outcome.fragment = IndexFragment::new();
                outcome.records.clear();
                outcome.attempts = 0;
                outcome.fresh = false;
                outcome.mark = None;
                ControlFlow::Continue(())
            }
            // The database stayed away: the process ends, and
            // the query continues from its last checkpoint.
            Err(Some(e @ StoreError::Lost { .. })) => {
                walk.lost = Some(e);
                ControlFlow::Break(())
            }
            Err(Some(e)) => {
                outcome.error = Some(format!("cannot save the query's progress: {e}"));
                ControlFlow::Break(())
            }
            Err(None) => ControlFlow::Break(()),
        }
    }

    /// Ends the walk: the query's state and answer, where a failed or
    /// interrupted walk stands, and its end recorded.
    async fn finish(&self, walk: Walk, navigator: &Navigator, origin: &Origin) -> QueryEnd {
        let Walk {
            mut outcome,
            mut run,
            mut tally,
            answered,
            lost,
            prior,
            from_start,
            ..
        } = walk;
        let unchanged = run.unchanged.is_some();
        let mut kept_whole = false;
        if unchanged {
            // Its pages, values and answer stay as they were recorded.
            outcome.fresh = false;
            outcome.refresh = outcome.refresh.map(|r| Refreshing {
                unchanged: true,
                ..r
            });
            // What it shows, read again from its kept pages (when every
            // page was kept): a record another query found first is seen
            // again through it too, and one it found first and no longer
            // shows is gone.
            if let Some((fragment, records)) = self.kept_answer(&outcome.key) {
                (outcome.fragment, outcome.records) = (fragment, records);
                kept_whole = true;
            }
        }
        outcome.state = if outcome.error.is_some() {
            QueryState::Failed
        } else if run.interrupted {
            QueryState::Pending
        } else {
            QueryState::Done
        };
        tally.cut_short(navigator.cut_short());
        outcome.cut_short = match &prior {
            Some(prior) if unchanged => prior.cut_short,
            _ => tally.answer().cut_short,
        };
        tally.more_linked(outcome.error.is_none() && !run.interrupted && navigator.more_linked());
        if answered {
            outcome.answer = serde_json::to_string(&tally.answer()).ok();
        }
        // A failed or interrupted walk continues from where it stood; a done
        // one is done.
        (outcome.checkpoint, outcome.walk_links) = match outcome.state {
            QueryState::Failed | QueryState::Pending => saved_walk(navigator),
            QueryState::Done => (None, Vec::new()),
        };
        // A refreshed answer walked whole from its first page in this run
        // tells which of the query's records are gone.
        if let Some(r) = &mut outcome.refresh {
            let walked = if r.unchanged { kept_whole } else { from_start };
            r.whole = walked && outcome.state == QueryState::Done && !outcome.cut_short;
        }
        // An empty answer is no sign of a wrong rule where the provider
        // says it found nothing, or for a refined query (most prefixes
        // match nothing).
        run.found_nothing &= run.pages > 0
            && outcome.error.is_none()
            && matches!(origin, Origin::Planned | Origin::Claimed { planned: true })
            && tally.answer().hits != Some(0);
        let recorded = match lost {
            Some(lost) => Err(lost),
            None => self.record(&outcome).await,
        };
        run.outcome = outcome;
        QueryEnd { run, recorded }
    }

    /// Whether the walk, after the query's first page, will surely be cut
    /// short by the page limit and the query is split whatever its answer
    /// ([`crate::refine::Splits::applies`]): the pager links more pages
    /// than the limit allows, or the provider's `DB.ResultCount` exceeds
    /// the limit times the rows of the first page.
    pub(super) fn cut_short_at_once(
        &self,
        navigator: &Navigator,
        tally: &AnswerTally,
        values: &[(String, String)],
    ) -> bool {
        if !navigator.has_next() || !self.splits.as_ref().is_some_and(|s| s.applies(values)) {
            return false;
        }
        let answer = tally.answer();
        navigator.beyond_limit()
            || answer
                .hits
                .is_some_and(|hits| answer.shown > 0 && hits > self.max_pages * answer.shown)
    }

    /// The values and records of a query's answer as its kept pages give
    /// them (no request); `None` where a page of it was not kept or the
    /// pages cannot be read (then the records it found first stand for
    /// it).
    fn kept_answer(&self, key: &str) -> Option<(IndexFragment, Vec<crate::record::Record>)> {
        let pages = match lock(&self.store).kept_answer(self.source, key) {
            Ok(pages) => pages?,
            Err(e) => {
                tracing::warn!("{e}");
                return None;
            }
        };
        Some(super::extraction::extract_kept(
            &self.rules,
            &self.records,
            &pages,
        ))
    }

    /// Parses a result page and applies the rules ([`extract`]). That is
    /// CPU work: a large page goes to a thread of its own, off the task that
    /// does I/O; an ordinary one (most result pages, a fraction of a
    /// millisecond) is read right here, which spares every page two thread
    /// hand-offs. A page that makes the reading panic is an error either way.
    /// The page's pagers are found only where the navigator needs them,
    /// its post-back links only with `postbacks`.
    pub(super) async fn extract(
        &self,
        response: Response,
        navigator: &Navigator,
        count: Option<Arc<Rule>>,
        stated: bool,
        postbacks: bool,
    ) -> Result<Extracted, String> {
        /// Bodies up to this size are read on the gathering's own task.
        const READ_IN_PLACE: usize = 256 << 10;
        if response.body.len() <= READ_IN_PLACE {
            let read = || {
                let pagers =
                    |links: &crate::page::Links| navigator.needs_pagers(&response.url, links);
                extract(
                    &self.rules,
                    &self.records,
                    &response,
                    pagers,
                    count.as_deref(),
                    stated,
                    postbacks,
                )
            };
            return std::panic::catch_unwind(std::panic::AssertUnwindSafe(read))
                .map_err(|_| "reading it panicked".to_string());
        }
        let (rules, records) = (Arc::clone(&self.rules), Arc::clone(&self.records));
        let detect = self.navigation == NavigationMode::Detect;
        tokio::task::spawn_blocking(move || {
            extract(
                &rules,
                &records,
                &response,
                |_| detect,
                count.as_deref(),
                stated,
                postbacks,
            )
        })
        .await
        .map_err(|e| e.to_string())
    }

    /// Appends a query's new records to the records file; its new values.
    pub(super) fn write_records(
        &self,
        outcome: &QueryOutcome,
        recorded: crate::store::Recorded,
    ) -> Result<u64, String> {
        if let Some(sink) = &self.sink {
            sink.write(&self.source_url, outcome, &recorded)?;
        }
        Ok(recorded.new_values)
    }

    /// Records a query's progress or end. A lost database is waited for
    /// (up to [`Options::reconnect`]) with the outcome in hand, without
    /// holding the store: other queries go on meanwhile.
    pub(super) async fn record(
        &self,
        outcome: &QueryOutcome,
    ) -> Result<crate::store::Recorded, StoreError> {
        let started = Instant::now();
        let mut pause = Duration::ZERO;
        loop {
            let result = lock(&self.store).record_query_at_once(self.source, outcome);
            match result {
                Err(StoreError::Lost {
                    db,
                    context,
                    message,
                    ..
                }) => {
                    let left = self.patience.saturating_sub(started.elapsed());
                    if left.is_zero() {
                        return Err(StoreError::Lost {
                            db,
                            context,
                            waited: started.elapsed().as_secs(),
                            message,
                        });
                    }
                    pause = crate::store::next_pause(pause).min(left);
                    tokio::time::sleep(pause).await;
                }
                done => return done,
            }
        }
    }
}

/// A query's element values: (element, value) in order.
pub(super) type ElementValues = Vec<(String, String)>;

/// Where a query comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Origin {
    /// The static plan.
    Planned,
    /// A refinement of the truncated query with this key.
    Refined(String),
    /// A word learned from the answers.
    Learned,
    /// A query of the shared plan a worker claimed; its element values,
    /// the query it refines and whether it was learned are in the plan.
    /// `planned`: it is a query of the static plan.
    Claimed { planned: bool },
}

pub(super) fn take_checkpoint(
    checkpoints: &mut std::collections::HashMap<String, String>,
    key: &str,
) -> Option<Checkpoint> {
    checkpoints
        .remove(key)
        .and_then(|json| serde_json::from_str::<Checkpoint>(&json).ok())
}

/// `region=Rügen&preis=2`: element values, for people.
pub(super) fn describe_values(values: &[(String, String)]) -> String {
    values
        .iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect::<Vec<_>>()
        .join("&")
}

/// `region=Rügen&preis=`: the query elements' values, for people.
pub(super) fn describe(query: &Query) -> String {
    if query.values.is_empty() {
        return query.request.url.to_string();
    }
    describe_values(&query.values)
}

/// A walk is saved after this many result pages (with their values,
/// records and checkpoint, in one transaction), or after [`SAVE_EVERY`]:
/// each commit flushes the full-text index and writes the changed pages of
/// every table to the WAL. On the demo's guide at 1,000 result pages, 8
/// pages a commit cost 10.5 `pwrite` calls a page, 16 cost 8.2 and 32 cost
/// 6.7; CPU per page 16 against 8: −4 %, 32 against 16: −5.5 %, for 0.5 MiB
/// more of the gatherer's own memory (the pages waiting for the save, their
/// bodies already compressed). A killed process loses what a query fetched
/// since its last save: 2 seconds at most on a slow provider, as before.
const SAVE_EVERY_PAGES: usize = 32;

/// A walk is saved at least this often (a slow provider's pages).
const SAVE_EVERY: Duration = Duration::from_secs(2);

/// What the store keeps of where a walk stands: the checkpoint (JSON)
/// and the links found since the walk was last saved.
fn saved_walk(navigator: &Navigator) -> (Option<String>, Vec<String>) {
    match navigator.checkpoint() {
        Some(mut checkpoint) => {
            let links = std::mem::take(&mut checkpoint.links);
            (serde_json::to_string(&checkpoint).ok(), links)
        }
        None => (None, Vec::new()),
    }
}

/// A value as a query's [`QueryRun::seen`] (and a round's
/// [`super::rounds::Seen`]) keeps it.
pub(super) fn value_hash(value: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

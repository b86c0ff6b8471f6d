//! The rounds that follow a source's static plan: refinements of its
//! truncated queries ([`crate::refine`]), then words learned for an open
//! text field ([`crate::refine::learn`]). Each round is computed from what
//! the store holds once the round before is answered, so a resumed
//! gathering goes on where it stood. A single gathering runs one source's
//! rounds after the static plan; a planner on a shared plan runs the rounds
//! of all its sources side by side, so that the workers have every
//! provider's next queries at once.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::query::{describe_values, take_checkpoint, value_hash, ElementValues, Origin, QueryJob};
use super::GatherError;
use super::Gathering;
use crate::navigate::Checkpoint;
use crate::plan::{Cap, Query};
use crate::refine::{learn, Answer, Census, CensusTally, Refiner, Truncation, Wildcard, WILDCARDS};
use crate::source::Source;

/// Refined queries in a row that show rows but no new value, after which
/// a source stops refining.
pub(super) const UNPAID_RUN: usize = 25;

/// Why a truncated query is left when refining stopped paying.
const STOPPED_PAYING: &str = "refinement stopped paying";

/// A round's queries: key, query, where a killed run left its walk, where
/// the query comes from.
pub(super) type Batch = Vec<(String, Query, Option<Checkpoint>, Origin)>;

/// The rounds of one source, refinement first, then learning.
pub(super) struct Rounds<'s> {
    pub work: Arc<QueryJob>,
    pub source: &'s Source,
    stage: Stage,
    refiner: Refiner,
    /// The next refined query's ordinal.
    ordinal: u64,
    /// Refined queries sent in this run: one that failed is not sent
    /// again in the next round (the next run retries it).
    refinements_sent: HashSet<String>,
    /// Where a killed run left the walks of refined queries (a shared plan
    /// keeps them with its queries instead).
    checkpoints: HashMap<String, String>,
    /// The refined queries of the round in flight, with the query each
    /// refines.
    refining: Vec<(String, String)>,
    /// Queries whose refinements brought no new value: their truncated
    /// refinements are not refined further.
    barren: HashSet<String>,
    /// Refined queries in a row that showed rows but brought no new value.
    unpaid: usize,
    /// Why refining stopped before every answer was whole.
    refining_stopped: Option<String>,
    /// Whether the provider takes a wildcard in the open text field, as
    /// the probes stored show.
    wildcard: Wildcard,
    /// A query of this round probes the wildcards: the others wait for it.
    probing: bool,
    /// Every value each query of the round just answered showed, when
    /// this process ran them (not on a shared plan).
    seen: Option<Seen>,
    /// What refining left; `None` when the source has no way to refine.
    pub refined: Option<Refined>,
    /// Why learning stopped; `None` when the source has no field to learn.
    pub learning_stopped: Option<String>,
}

enum Stage {
    Refining,
    Learning(Box<Learning>),
    Done,
}

/// What learning an open text field keeps between rounds.
struct Learning {
    element: String,
    /// Words (lower case) stored or sent in this run.
    tried: HashSet<String>,
    /// The words of the values gathered so far.
    ranking: learn::WordRanking,
    /// Learned queries in a row that found no new value.
    unprofitable: usize,
    /// The keys of the round in flight.
    sent: Vec<String>,
    /// The words of the round in flight, by key.
    words: HashMap<String, String>,
}

impl<'s> Rounds<'s> {
    pub fn new(
        work: Arc<QueryJob>,
        source: &'s Source,
        checkpoints: HashMap<String, String>,
    ) -> Rounds<'s> {
        let refiner = Refiner::new(source.form.as_ref(), &source.metadata);
        Rounds {
            work,
            source,
            stage: Stage::Refining,
            refiner,
            ordinal: source.plan.len(),
            refinements_sent: HashSet::new(),
            refining: Vec::new(),
            barren: HashSet::new(),
            unpaid: 0,
            refining_stopped: None,
            wildcard: Wildcard::Unknown,
            probing: false,
            seen: None,
            checkpoints,
            refined: None,
            learning_stopped: None,
        }
    }

    /// The next round's queries, `None` once the rounds are over.
    /// `learning_batch` is how many words a learning round sends.
    pub fn next(
        &mut self,
        gathering: &Gathering<'_>,
        learning_batch: usize,
        line: &mut super::SourceReport,
    ) -> Result<Option<Batch>, GatherError> {
        loop {
            match &mut self.stage {
                Stage::Refining => {
                    if let Some(batch) = self.refine(gathering)? {
                        line.queries_refined += batch.len() as u64;
                        return Ok(Some(batch));
                    }
                    self.stage = match self.start_learning(gathering)? {
                        Some(learning) => Stage::Learning(Box::new(learning)),
                        None => Stage::Done,
                    };
                }
                Stage::Learning(learning) => {
                    let source = self.source;
                    let id = self.work.source;
                    match learning.next(gathering, source, id, learning_batch)? {
                        Ok(batch) => {
                            line.queries_learned += batch.len() as u64;
                            return Ok(Some(batch));
                        }
                        Err(stopped) => {
                            self.learning_stopped = Some(stopped);
                            self.stage = Stage::Done;
                        }
                    }
                }
                Stage::Done => return Ok(None),
            }
        }
    }

    /// Tells that the round is answered. `seen`: every value each of its
    /// queries showed, when this process ran them: the round's new values
    /// (read from the store) then count for the first query of the round
    /// that showed them, in the round's order, whichever ended first
    /// ([`attribute`]); on a shared plan, for the query whose worker
    /// recorded them first.
    pub fn answered(
        &mut self,
        gathering: &Gathering<'_>,
        seen: Option<Seen>,
    ) -> Result<(), GatherError> {
        self.seen = seen;
        let Stage::Learning(learning) = &mut self.stage else {
            return Ok(());
        };
        let sent: HashSet<&str> = learning.sent.iter().map(String::as_str).collect();
        tell_answers(
            gathering,
            self.work.source,
            &self.refiner,
            &learning.element,
            &mut learning.ranking,
            |key| sent.contains(key),
        )?;
        let found = gathering
            .store()
            .values_found_by(self.work.source, &learning.sent)?;
        let found = attribute(&learning.sent, found, self.seen.as_ref());
        let mut by_key: HashMap<&str, u64> = HashMap::new();
        for (key, _) in &found {
            *by_key.entry(key.as_str()).or_default() += 1;
        }
        let gains: Vec<u64> = learning
            .sent
            .iter()
            .map(|key| by_key.get(key.as_str()).copied().unwrap_or(0))
            .collect();
        for gain in gains {
            learning.unprofitable = if gain == 0 {
                learning.unprofitable + 1
            } else {
                0
            };
        }
        // What each word brought, in rows (values that hold a word): its
        // kind of query is judged by it.
        let mut rows: HashMap<&str, u64> = HashMap::new();
        for (key, value) in &found {
            if crate::words::has_words(value) {
                *rows.entry(key.as_str()).or_default() += 1;
            }
        }
        for key in &learning.sent {
            if let Some(word) = learning.words.get(key) {
                let brought = rows.get(key.as_str()).copied().unwrap_or(0);
                learning.ranking.gained(word, brought);
            }
        }
        learning
            .ranking
            .add(found.iter().map(|(_, value)| value.as_str()));
        if learning.unprofitable >= learn::UNPROFITABLE_RUN {
            self.learning_stopped = Some(format!(
                "new words stopped paying ({} queries in a row without a new value)",
                learn::UNPROFITABLE_RUN
            ));
            self.stage = Stage::Done;
        }
        Ok(())
    }

    /// The next refinements of the source's truncated queries; `None` once
    /// every answer is whole, no way is left, or the query limit is reached
    /// (then [`Rounds::refined`] tells what is left, and why).
    fn refine(&mut self, gathering: &Gathering<'_>) -> Result<Option<Batch>, GatherError> {
        if self.refiner.is_empty() {
            return Ok(None);
        }
        let id = self.work.source;
        let cap = self.source.plan.cap();
        let interrupted = gathering.options.interrupt.is_set();
        // The answers are read from the store in batches, twice: once for
        // what they reveal together, once for the truncated ones. Only
        // those, and the tree of refined queries, are held.
        let census = census(gathering, id, &self.refiner)?;
        let survey = self.survey(gathering, &census)?;
        self.pay(gathering, &census)?;
        self.wildcard = wildcard(gathering, id, &self.refiner, &census, survey.probes)?;
        self.probing = false;
        let attributes: Vec<String> = self
            .refiner
            .text_attributes()
            .into_iter()
            .map(str::to_string)
            .collect();
        for attribute in attributes {
            let known = gathering.store().attribute_values(id, &attribute)?;
            self.refiner.gathered(&attribute, known);
        }
        let finished_count = gathering.store().finished_count(id)?;
        let context = Context {
            parents: &survey.parents,
            census: &census,
            exact: &survey.exact,
        };
        let mut refined = Refined::default();
        let mut next = self.children(gathering, &survey.truncated, &context, &mut refined)?;
        // The provider's hit counts of the planned queries add up to its
        // size where the plan covers the database once.
        refined.estimate = survey.planned_hits.filter(|_| survey.planned_any);
        let room = cap.limit.saturating_sub(finished_count);
        if next.len() as u64 > room {
            next.truncate(room as usize);
            refined.budget = Some(cap);
        }
        if next.is_empty() || interrupted {
            self.stop_refining(refined, interrupted);
            return Ok(None);
        }
        self.refinements_sent
            .extend(next.iter().map(|n| n.0.clone()));
        self.refining = next
            .iter()
            .filter_map(|(key, .., origin)| match origin {
                Origin::Refined(parent) => Some((key.clone(), parent.clone())),
                _ => None,
            })
            .collect();
        self.refined = Some(refined);
        Ok(Some(next))
    }

    /// Reads the source's answers once: the truncated ones, the tree of
    /// refined queries, the planned queries' hit counts, the wildcard
    /// probes' results and the whole answers of exact values.
    fn survey(&self, gathering: &Gathering<'_>, census: &Census) -> Result<Survey, GatherError> {
        let mut survey = Survey {
            truncated: Vec::new(),
            parents: HashMap::new(),
            planned_hits: Some(0),
            planned_any: false,
            probes: Vec::new(),
            exact: Vec::new(),
        };
        let text = self.refiner.text_element().map(str::to_string);
        gathering
            .store()
            .each_answered::<GatherError>(self.work.source, |q| {
                let Some(answered) = parse_answered(q) else {
                    return Ok(());
                };
                let (key, values, answer, parent) = &answered;
                if let Some(parent) = parent {
                    if let Some((w, _)) = self.refiner.probe_result(values, answer, None, None) {
                        survey
                            .probes
                            .push((w, parent.clone(), answer.clone(), values.clone()));
                    }
                }
                match parent {
                    Some(parent) => {
                        survey.parents.insert(key.clone(), parent.clone());
                    }
                    None => {
                        survey.planned_any = true;
                        survey.planned_hits = survey
                            .planned_hits
                            .and_then(|sum| Some(sum + census.hits(answer)?));
                    }
                }
                match self.refiner.truncation(answer, census) {
                    Some(truncation) => survey.truncated.push((answered, truncation)),
                    None => {
                        // A whole answer of an exact value of the open text
                        // field: it may cover a capped prefix.
                        let exact_value = text.as_deref().and_then(|t| {
                            values.iter().find(|(n, v)| {
                                n == t
                                    && !v.trim().is_empty()
                                    && !v.ends_with(|c| WILDCARDS.contains(&c))
                            })
                        });
                        if let (Some(_), Some(hits)) = (exact_value, census.hits(answer)) {
                            survey.exact.push((values.clone(), hits));
                        }
                    }
                }
                Ok(())
            })?;
        Ok(survey)
    }

    /// The refinements of the truncated queries not yet done nor sent,
    /// numbered on from the plan; a truncated query that cannot be refined
    /// (refinement stopped paying on its branch, no way is left) goes to
    /// what is left, one with refinements still open to `refined.open`.
    fn children(
        &mut self,
        gathering: &Gathering<'_>,
        truncated: &[(Answered, Truncation)],
        context: &Context<'_>,
        refined: &mut Refined,
    ) -> Result<Batch, GatherError> {
        let (id, source) = (self.work.source, self.source);
        let mut next = Vec::new();
        let mut seen = HashSet::new();
        for ((key, values, answer, parent), truncation) in truncated {
            let truncation = *truncation;
            // The hit count the pages state, for choosing among splits.
            let answer = &Answer {
                hits: context.census.hits(answer),
                ..answer.clone()
            };
            if self.refining_stopped.is_some()
                || parent.as_ref().is_some_and(|p| self.barren.contains(p))
            {
                refined
                    .left
                    .push((describe_values(values), truncation, STOPPED_PAYING));
                continue;
            }
            let (children, refines) =
                match self.text_children(gathering, key, values, answer, context)? {
                    TextRefinement::Children(children) => (children, key.clone()),
                    TextRefinement::Coarser(root, children) => (children, root),
                    TextRefinement::Covered => continue,
                };
            if children.is_empty() {
                refined
                    .left
                    .push((describe_values(values), truncation, "no way to refine it"));
                continue;
            }
            let children: Vec<Query> = children
                .into_iter()
                .map(|child| source.plan.query_with(self.ordinal, child))
                .collect();
            let keys: Vec<String> = children.iter().map(Query::key).collect();
            let finished = gathering.store().finished_among(id, &keys)?;
            let mut open = false;
            for (mut query, child_key) in children.into_iter().zip(keys) {
                if finished.contains(&child_key) {
                    continue;
                }
                open = true;
                if self.refinements_sent.contains(&child_key) || !seen.insert(child_key.clone()) {
                    continue;
                }
                query.ordinal = self.ordinal;
                self.ordinal += 1;
                let checkpoint = take_checkpoint(&mut self.checkpoints, &child_key);
                next.push((
                    child_key,
                    query,
                    checkpoint,
                    Origin::Refined(refines.clone()),
                ));
            }
            if open {
                refined.open.push((describe_values(values), truncation));
            }
        }
        Ok(next)
    }

    /// Refinement ends: the truncated queries still open are left, with
    /// why (the query limit, refinement stopped paying, an interrupted
    /// gathering, or refinements that failed).
    fn stop_refining(&mut self, mut refined: Refined, interrupted: bool) {
        let why = if refined.budget.is_some() {
            "the query limit"
        } else if self.refining_stopped.is_some() {
            STOPPED_PAYING
        } else if interrupted {
            "the gathering was interrupted"
        } else {
            "refinements failed"
        };
        let open = std::mem::take(&mut refined.open);
        refined
            .left
            .extend(open.into_iter().map(|(q, t)| (q, t, why)));
        refined.stopped = self.refining_stopped.clone();
        self.refined = Some(refined);
    }

    /// The refinements of a truncated query. A text field is first filled
    /// with the values the queries of the query's own tree (its planned
    /// ancestor and everything refined from it) found; once those are done,
    /// with every value gathered, unless their hit counts add up to the
    /// query's: then they cover it.
    ///
    /// Where the provider takes a wildcard, prefixes replace the values
    /// gathered: sent once for the query's planned ancestor, every select
    /// open ([`TextRefinement::Coarser`]), rather than for each of its
    /// refinements by selects. A capped prefix whose rows the whole answers
    /// of exact values already hold needs nothing more
    /// ([`Refiner::prefix_covered`]); another is split by a select left
    /// open, or extended, whichever is expected to cost fewer queries
    /// ([`Refiner::split_before_prefixes`]).
    fn text_children(
        &mut self,
        gathering: &Gathering<'_>,
        key: &str,
        values: &[(String, String)],
        answer: &Answer,
        context: &Context<'_>,
    ) -> Result<TextRefinement, GatherError> {
        use TextRefinement::Children;
        if self.refiner.text_attributes().is_empty() {
            return Ok(Children(self.refiner.children(values, answer)));
        }
        if let Wildcard::Accepted(w) = self.wildcard {
            if let Some(refinement) =
                self.by_prefixes(w, gathering, key, values, answer, context)?
            {
                return Ok(refinement);
            }
        }
        let all = self.refiner.children(values, answer);
        let text = self.refiner.text_element();
        let by_text = match all.first() {
            Some(child) => child.iter().any(|(n, v)| {
                Some(n.as_str()) == text && !values.iter().any(|(m, u)| m == n && u == v)
            }),
            None => self.refiner.text_prefix(values, '\0').is_some(),
        };
        if !by_text {
            return Ok(Children(all));
        }
        let tree = context.tree(gathering, self.work.source, key)?;
        let nearby: HashSet<String> = gathering
            .store()
            .values_found_by(self.work.source, &tree)?
            .into_iter()
            .map(|(_, value)| value)
            .collect();
        self.refiner.nearby(Some(nearby.clone()));
        let first = self.refiner.children(values, answer);
        self.refiner.nearby(None);
        let Some((keys, hits, sum)) = self.answered_children(gathering, context, &first)? else {
            return Ok(Children(first));
        };
        let own = context.census.hits(answer);
        let covered = matches!((own, sum), (Some(hits), Some(sum)) if sum >= hits);
        if covered {
            return Ok(Children(first));
        }
        // The values gathered near it did not cover it: prefixes of the
        // field where the provider takes a wildcard (probed once, with the
        // first letter of a value that one of its refinements found), else
        // every value gathered.
        match self.wildcard {
            Wildcard::Accepted(w) => {
                let prefixes = self.refiner.text_prefixes(values, w);
                return self.coarser_prefixes(gathering, key, w, prefixes, context);
            }
            Wildcard::Unknown => {
                // One query probes; the others wait for its answers (their
                // done refinements leave nothing open this round).
                if self.probing {
                    return Ok(Children(first));
                }
                let text = self.refiner.text_element().unwrap_or_default();
                let letter = first
                    .iter()
                    .zip(&keys)
                    .filter(|(_, k)| hits.get(*k).copied().flatten().is_some_and(|h| h > 0))
                    .find_map(|(child, _)| {
                        let (_, v) = child.iter().find(|(n, _)| n == text)?;
                        v.chars().next()
                    });
                let probes = letter
                    .map(|l| self.refiner.wildcard_probes(values, l))
                    .unwrap_or_default();
                if !probes.is_empty() {
                    self.probing = true;
                    return Ok(Children(probes));
                }
            }
            Wildcard::Refused => {}
        }
        self.every_value_then_words(gathering, values, all, own, &nearby, context)
    }

    /// The refinements of a truncated query where the provider takes
    /// wildcard `w` and the text field is one a prefix fills: a prefix query
    /// (`Ro*`) cut short is covered by the whole answers of exact values, or
    /// split by a select left open or extended; the field left empty gets
    /// the prefixes ([`Rounds::coarser_prefixes`]), unless a select left
    /// open is expected to be cheaper (`None`, as when no prefix fills it).
    fn by_prefixes(
        &mut self,
        w: char,
        gathering: &Gathering<'_>,
        key: &str,
        values: &[(String, String)],
        answer: &Answer,
        context: &Context<'_>,
    ) -> Result<Option<TextRefinement>, GatherError> {
        use TextRefinement::{Children, Covered};
        let Some((_, _, stem)) = self.refiner.text_prefix(values, w) else {
            return Ok(None);
        };
        let prefixes = self.refiner.text_prefixes(values, w);
        // A prefix query (`Ro*`) cut short.
        if !stem.is_empty() {
            let covered = answer
                .hits
                .is_some_and(|hits| self.refiner.prefix_covered(values, w, hits, context.exact));
            if covered {
                return Ok(Some(Covered));
            }
            return Ok(Some(Children(
                self.refiner
                    .split_before_prefixes(values, answer, prefixes.len())
                    .unwrap_or(prefixes),
            )));
        }
        // The field left empty: prefixes, unless a select left open
        // is expected to be cheaper.
        let select_first = self.refiner.leaves_select_open(values)
            && self
                .refiner
                .split_before_prefixes(values, answer, prefixes.len())
                .is_some();
        if select_first {
            return Ok(None);
        }
        self.coarser_prefixes(gathering, key, w, prefixes, context)
            .map(Some)
    }

    /// The last refinements of a truncated query whose nearby values did
    /// not cover it (`own`: its hit count): every value gathered (`all`);
    /// once all are done without covering it, the words of the values
    /// gathered, `nearby` first; then nothing is left to try: it is left
    /// truncated.
    fn every_value_then_words(
        &mut self,
        gathering: &Gathering<'_>,
        values: &[(String, String)],
        all: Vec<ElementValues>,
        own: Option<u64>,
        nearby: &HashSet<String>,
        context: &Context<'_>,
    ) -> Result<TextRefinement, GatherError> {
        use TextRefinement::Children;
        // Every value gathered; once all are done without covering it,
        // nothing is left to try: it is left truncated.
        let Some((_, _, sum)) = self.answered_children(gathering, context, &all)? else {
            return Ok(Children(all));
        };
        let covered = match (own, sum) {
            (Some(hits), Some(sum)) => sum >= hits,
            _ => true,
        };
        if covered {
            return Ok(Children(all));
        }
        // Then the words of the values gathered, near it first: a field
        // that finds a value by one of its words reaches values no answer
        // listed through the words they share with gathered ones. What
        // they find is gathered, and its exact values are sent in turn.
        for pool in [Some(nearby), None] {
            let words = self.refiner.text_words(values, pool);
            if self
                .answered_children(gathering, context, &words)?
                .is_none()
            {
                return Ok(Children(words));
            }
        }
        Ok(Children(Vec::new()))
    }

    /// The prefixes of an open text field left empty, sent for the
    /// query's planned ancestor with its selects open when the query was
    /// refined from it: one set of prefixes serves every refinement of the
    /// ancestor by selects. `prefixes`: the query's own, where it is
    /// planned (or its ancestor cannot be read).
    fn coarser_prefixes(
        &self,
        gathering: &Gathering<'_>,
        key: &str,
        wildcard: char,
        prefixes: Vec<ElementValues>,
        context: &Context<'_>,
    ) -> Result<TextRefinement, GatherError> {
        let root = context.root(key);
        if root != key {
            let root_answered = context.root_answered(gathering, self.work.source, key)?;
            if let Some((_, root_values, ..)) = root_answered {
                let coarser = self.refiner.text_prefixes(&root_values, wildcard);
                if !coarser.is_empty() {
                    return Ok(TextRefinement::Coarser(root.to_string(), coarser));
                }
            }
        }
        Ok(TextRefinement::Children(prefixes))
    }

    /// When every one of `children` is done: their keys, their hit counts
    /// and the sum of those (`None` when one is unknown), a child whose
    /// text value holds every word of another's left out (a field that
    /// finds a value by one of its words counts its rows in the other's).
    #[allow(clippy::type_complexity)]
    fn answered_children(
        &self,
        gathering: &Gathering<'_>,
        context: &Context<'_>,
        children: &[ElementValues],
    ) -> Result<Option<(Vec<String>, HashMap<String, Option<u64>>, Option<u64>)>, GatherError> {
        let keys: Vec<String> = children
            .iter()
            .map(|child| self.source.plan.query_with(0, child.clone()).key())
            .collect();
        let finished = gathering.store().finished_among(self.work.source, &keys)?;
        if !keys.iter().all(|k| finished.contains(k)) {
            return Ok(None);
        }
        let hits = context.hits(gathering, self.work.source, &keys)?;
        // A field that finds a value by one of its words finds Remagen's
        // rows and Remagen-Oberwinter's for `Remagen`: a value whose words
        // hold another child's is counted in that child's hits already.
        let text = self.refiner.text_element().unwrap_or_default();
        let words = |child: &ElementValues| -> Vec<String> {
            child
                .iter()
                .find(|(n, _)| n == text)
                .map(|(_, v)| {
                    v.split(|c: char| !c.is_alphanumeric())
                        .filter(|w| !w.is_empty())
                        .map(str::to_lowercase)
                        .collect()
                })
                .unwrap_or_default()
        };
        let all_words: Vec<Vec<String>> = children.iter().map(words).collect();
        let within = |at: usize| {
            let own = &all_words[at];
            all_words.iter().enumerate().any(|(other, w)| {
                other != at
                    && !w.is_empty()
                    && w != own
                    && w.iter().all(|word| own.contains(word))
                    && hits
                        .get(&keys[other])
                        .copied()
                        .flatten()
                        .is_some_and(|h| h > 0)
            })
        };
        let sum: Option<u64> = keys
            .iter()
            .enumerate()
            .filter(|(at, _)| !within(*at))
            .map(|(_, k)| hits.get(k).copied().flatten())
            .sum();
        Ok(Some((keys, hits, sum)))
    }

    /// Takes in what the round of refinements just answered brought: a
    /// query whose refinements found no new value at all ends its branch
    /// (its refinements are not refined further), and a run of
    /// [`UNPAID_RUN`] refined queries that showed rows without a new value
    /// ends refining for the source. A refinement whose hit count is
    /// smaller than its parent's, or one of a level whose hit counts add
    /// up to no more than the parent's, narrowed it: that pays even without
    /// a new value (its first rows were its parent's: results sorted by the
    /// refined field).
    fn pay(&mut self, gathering: &Gathering<'_>, census: &Census) -> Result<(), GatherError> {
        if self.refining.is_empty() {
            return Ok(());
        }
        let round = std::mem::take(&mut self.refining);
        let keys: Vec<String> = round.iter().map(|(key, _)| key.clone()).collect();
        let found = gathering.store().values_found_by(self.work.source, &keys)?;
        let found = attribute(&keys, found, self.seen.as_ref());
        let mut gains: HashMap<&str, u64> = HashMap::new();
        for (key, _) in &found {
            *gains.entry(key.as_str()).or_default() += 1;
        }
        // The answers of the round and of the queries it refines.
        let mut wanted = keys.clone();
        wanted.extend(round.iter().map(|(_, parent)| parent.clone()));
        wanted.sort_unstable();
        wanted.dedup();
        let answers: Vec<Answered> = gathering
            .store()
            .answered_among(self.work.source, &wanted)?
            .into_iter()
            .filter_map(parse_answered)
            .collect();
        let by_key: HashMap<&str, &Answer> = answers
            .iter()
            .map(|(key, _, answer, _)| (key.as_str(), answer))
            .collect();
        let hits = |key: &str| by_key.get(key).and_then(|a| census.hits(a));
        let shown: HashMap<&str, u64> = by_key.iter().map(|(k, a)| (*k, a.shown)).collect();
        // A level whose hit counts add up to no more than its parent's is a
        // true partition: it narrows the parent even where its first rows
        // were the parent's (one child holding all the hits).
        let mut partition: HashMap<&str, Option<u64>> = HashMap::new();
        for (key, parent) in &round {
            let sum = partition.entry(parent.as_str()).or_insert(Some(0));
            *sum = sum.and_then(|s| Some(s + hits(key)?));
        }
        let mut by_parent: HashMap<&str, u64> = HashMap::new();
        for (key, parent) in &round {
            let narrowed = match (hits(key), hits(parent)) {
                (Some(c), Some(p)) => {
                    c < p || partition[parent.as_str()].is_some_and(|sum| sum <= p)
                }
                _ => false,
            };
            let gain = gains.get(key.as_str()).copied().unwrap_or(0) + u64::from(narrowed);
            *by_parent.entry(parent.as_str()).or_default() += gain;
            if gain > 0 {
                self.unpaid = 0;
            } else if shown.get(key.as_str()).is_some_and(|s| *s > 0) {
                self.unpaid += 1;
            }
        }
        self.barren.extend(
            by_parent
                .into_iter()
                .filter(|(_, gain)| *gain == 0)
                .map(|(parent, _)| parent.to_string()),
        );
        if self.unpaid >= UNPAID_RUN && self.refining_stopped.is_none() {
            self.refining_stopped = Some(format!(
                "refinement stopped paying ({UNPAID_RUN} refined queries in a row showed rows but no new value)"
            ));
        }
        Ok(())
    }

    /// Learning, when the source has an open text field to learn
    /// ([`learn::learnable`]): ranked once from what is stored, then told
    /// each round's new values.
    fn start_learning(&self, gathering: &Gathering<'_>) -> Result<Option<Learning>, GatherError> {
        let Some(element) = learn::learnable(self.source.form.as_ref(), &self.source.metadata)
        else {
            return Ok(None);
        };
        let values = gathering.store().values(self.work.source)?;
        let mut ranking = learn::WordRanking::new(values.values().flatten().map(String::as_str));
        tell_answers(
            gathering,
            self.work.source,
            &self.refiner,
            &element,
            &mut ranking,
            |_| true,
        )?;
        Ok(Some(Learning {
            element,
            tried: HashSet::new(),
            ranking,
            unprofitable: 0,
            sent: Vec::new(),
            words: HashMap::new(),
        }))
    }
}

impl Learning {
    /// The next words to send, the most promising first, or why learning
    /// stops: the query limit, no word left, or an interrupt.
    fn next(
        &mut self,
        gathering: &Gathering<'_>,
        source: &Source,
        id: crate::store::SourceId,
        batch: usize,
    ) -> Result<Result<Batch, String>, GatherError> {
        if gathering.options.interrupt.is_set() {
            return Ok(Err("the gathering was interrupted".into()));
        }
        let cap = source.plan.cap();
        let (stored, _) = gathering.store().query_counts(id)?;
        let room = cap.limit.saturating_sub(stored);
        if room == 0 {
            return Ok(Err(format!("the query limit ({cap})")));
        }
        // The words of the stored queries, and those sent in this run (so
        // that a word is never chosen twice, whatever was stored).
        let element = &self.element;
        self.tried.extend(
            gathering
                .store()
                .query_values(id)?
                .iter()
                .filter_map(|json| serde_json::from_str::<ElementValues>(json).ok())
                .flat_map(|values| values.into_iter())
                .filter(|(name, _)| name == element)
                .map(|(_, value)| value.to_lowercase()),
        );
        let words = self
            .ranking
            .next(&self.tried, batch.max(1).min(room as usize));
        if words.is_empty() {
            return Ok(Err("no untried word is left in the answers".into()));
        }
        self.words.clear();
        let queries: Batch = words
            .into_iter()
            .map(|word| {
                self.tried.insert(word.to_lowercase());
                self.ranking.sent(&word);
                let query = source.plan.query_with(
                    source.plan.len() + stored,
                    vec![(element.clone(), word.clone())],
                );
                self.words.insert(query.key(), word);
                (query.key(), query, None, Origin::Learned)
            })
            .collect();
        self.sent = queries.iter().map(|q| q.0.clone()).collect();
        Ok(Ok(queries))
    }
}

/// Every value each query of a round showed ([`value_hash`]), by key.
pub(super) type Seen = HashMap<String, HashSet<u64>>;

/// A round's new values (key of the query the store has them from,
/// value), each given instead to the first query of the round, in `order`,
/// that showed it: the store keeps the query that was recorded first,
/// which depends on which walk ended first, and the round's decisions
/// (which branch stopped paying, which word brought rows) must depend on
/// the answers alone. Without `seen`, the store's attribution stands.
fn attribute(
    order: &[String],
    found: Vec<(String, String)>,
    seen: Option<&Seen>,
) -> Vec<(String, String)> {
    let Some(seen) = seen else {
        return found;
    };
    found
        .into_iter()
        .map(|(key, value)| {
            let hash = value_hash(&value);
            let first = order
                .iter()
                .find(|k| seen.get(k.as_str()).is_some_and(|s| s.contains(&hash)));
            (first.cloned().unwrap_or(key), value)
        })
        .collect()
}

/// How a truncated query is refined where an open text field may serve.
enum TextRefinement {
    /// By these queries.
    Children(Vec<ElementValues>),
    /// By these queries, refinements of its planned ancestor (key) that
    /// cover it and the ancestor's other refinements alike.
    Coarser(String, Vec<ElementValues>),
    /// Not at all: whole answers already hold its rows.
    Covered,
}

/// An answered query: key, element values, answer and the query it refines.
type Answered = (String, ElementValues, Answer, Option<String>);

/// Whether the provider takes a wildcard in the open text field, from the
/// stored probes ([`Refiner::probe_result`]): the first of [`WILDCARDS`]
/// a probe showed narrowed rows with; refused once every wildcard was
/// probed without.
fn wildcard(
    gathering: &Gathering<'_>,
    id: crate::store::SourceId,
    refiner: &Refiner,
    census: &Census,
    probes: Vec<(char, String, Answer, ElementValues)>,
) -> Result<Wildcard, GatherError> {
    if probes.is_empty() {
        return Ok(Wildcard::Unknown);
    }
    let parents: Vec<String> = probes.iter().map(|p| p.1.clone()).collect();
    let parent_hits: HashMap<String, Option<u64>> = gathering
        .store()
        .answered_among(id, &parents)?
        .into_iter()
        .filter_map(parse_answered)
        .map(|(key, _, answer, _)| (key, census.hits(&answer)))
        .collect();
    let mut probed: Vec<(char, bool)> = Vec::new();
    for (_, parent, answer, values) in &probes {
        let parent = parent_hits.get(parent).copied().flatten();
        if let Some(result) = refiner.probe_result(values, answer, parent, census.hits(answer)) {
            probed.push(result);
        }
    }
    for w in WILDCARDS {
        if probed.iter().any(|(p, ok)| *p == w && *ok) {
            return Ok(Wildcard::Accepted(w));
        }
    }
    Ok(
        if WILDCARDS.iter().all(|w| probed.iter().any(|(p, _)| p == w)) {
            Wildcard::Refused
        } else {
            Wildcard::Unknown
        },
    )
}

/// A stored answered query, read: `None` when its JSON does not parse.
fn parse_answered(q: crate::store::AnsweredQuery) -> Option<Answered> {
    Some((
        q.key,
        serde_json::from_str(&q.values).ok()?,
        serde_json::from_str(&q.answer).ok()?,
        q.parent,
    ))
}

/// What the source's answers reveal together, read from the store in
/// batches.
fn census(
    gathering: &Gathering<'_>,
    id: crate::store::SourceId,
    refiner: &Refiner,
) -> Result<Census, GatherError> {
    let mut tally = CensusTally::default();
    gathering.store().each_answered::<GatherError>(id, |q| {
        if let Ok(answer) = serde_json::from_str::<Answer>(&q.answer) {
            if serde_json::from_str::<ElementValues>(&q.values).is_ok() {
                tally.add(&answer);
            }
        }
        Ok(())
    })?;
    Ok(refiner.census_of(tally))
}

/// Tells the ranking of learned words the answers of the stored queries
/// that `wanted` picks (by key): the hit count each stated and the rows it
/// showed, for the queries of the learned element alone.
fn tell_answers(
    gathering: &Gathering<'_>,
    id: crate::store::SourceId,
    refiner: &Refiner,
    element: &str,
    ranking: &mut learn::WordRanking,
    wanted: impl Fn(&str) -> bool,
) -> Result<(), GatherError> {
    let census = census(gathering, id, refiner)?;
    gathering.store().each_answered::<GatherError>(id, |q| {
        if !wanted(&q.key) {
            return Ok(());
        }
        let Some((_, values, answer, _)) = parse_answered(q) else {
            return Ok(());
        };
        if let [(name, word)] = values.as_slice() {
            if name == element {
                ranking.answered(word, census.hits(&answer), answer.shown);
            }
        }
        Ok(())
    })
}

/// What refining a source left: the truncated queries that are not
/// covered by done refinements, and why.
#[derive(Debug, Default)]
pub(super) struct Refined {
    /// Truncated queries with refinements still to send.
    open: Vec<(String, Truncation)>,
    /// Truncated queries left: the query, why it is truncated, why it is left.
    pub left: Vec<(String, Truncation, &'static str)>,
    /// The query limit stopped the refinements.
    budget: Option<Cap>,
    /// The sum of the provider's hit counts over the planned queries.
    pub estimate: Option<u64>,
    /// Why refining stopped paying, when it did.
    pub stopped: Option<String>,
}

impl Refined {
    /// `page limit: 3 truncated queries left (by --max-queries 3)`.
    pub fn reasons(&self) -> String {
        let mut by_kind: Vec<(&str, Vec<&str>, usize)> = Vec::new();
        for (_, truncation, why) in &self.left {
            let kind = match truncation {
                Truncation::PageLimit => "page limit",
                Truncation::MoreHits { .. } => "more hits than shown",
                Truncation::AtCap { .. } => "result limit DB.MaxResults",
                Truncation::CommonCap { .. } => "a common result count",
                Truncation::UnreadPages => "a next page not followed",
            };
            let at = match by_kind.iter().position(|(k, ..)| *k == kind) {
                Some(at) => at,
                None => {
                    by_kind.push((kind, Vec::new(), 0));
                    by_kind.len() - 1
                }
            };
            by_kind[at].2 += 1;
            if !by_kind[at].1.contains(why) {
                by_kind[at].1.push(why);
            }
        }
        by_kind
            .iter()
            .map(|(kind, whys, n)| {
                let whys: Vec<String> = whys
                    .iter()
                    .map(|why| match (*why, self.budget, &self.stopped) {
                        ("the query limit", Some(cap), _) => cap.to_string(),
                        (STOPPED_PAYING, _, Some(stopped)) => stopped.clone(),
                        (why, ..) => why.to_string(),
                    })
                    .collect();
                format!(
                    "{kind}: {n} truncated queries left (by {})",
                    whys.join(", ")
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// How many of a source's answers that showed rows gather could not judge
/// whole or cut short ([`Refiner::judged`]), of how many.
pub(super) fn unjudged(
    gathering: &Gathering<'_>,
    id: crate::store::SourceId,
    source: &Source,
) -> Result<(u64, u64), GatherError> {
    let refiner = Refiner::new(source.form.as_ref(), &source.metadata);
    let census = census(gathering, id, &refiner)?;
    let (mut unjudged, mut answers) = (0u64, 0u64);
    gathering.store().each_answered::<GatherError>(id, |q| {
        let Ok(answer) = serde_json::from_str::<Answer>(&q.answer) else {
            return Ok(());
        };
        answers += 1;
        if refiner.truncation(&answer, &census).is_none() && !refiner.judged(&answer, &census) {
            unjudged += 1;
        }
        Ok(())
    })?;
    Ok((unjudged, answers))
}

/// What one reading of a source's answers tells a round of refinements
/// ([`Rounds::survey`]).
struct Survey {
    /// The truncated answers, with how they were cut short.
    truncated: Vec<(Answered, Truncation)>,
    /// Refined query → the query it refines.
    parents: HashMap<String, String>,
    /// The planned queries' hit counts added up (`None` when one has none).
    planned_hits: Option<u64>,
    planned_any: bool,
    /// The wildcard probes' results: wildcard, parent, answer, values.
    probes: Vec<(char, String, Answer, ElementValues)>,
    /// Whole answers of exact values of the open text field, with their hits.
    exact: Vec<(ElementValues, u64)>,
}

/// What one refinement round knows of the source's answers: the query
/// each refined query refines (refined queries only, not the plan) and
/// the census; the answers themselves are asked of the store.
struct Context<'a> {
    /// Refined query's key → the key of the query it refines.
    parents: &'a HashMap<String, String>,
    census: &'a Census,
    /// The whole answers of exact values of the open text field: element
    /// values and hit count.
    exact: &'a [(ElementValues, u64)],
}

impl Context<'_> {
    /// The hit counts of the answered queries among `keys`.
    fn hits(
        &self,
        gathering: &Gathering<'_>,
        id: crate::store::SourceId,
        keys: &[String],
    ) -> Result<HashMap<String, Option<u64>>, GatherError> {
        Ok(gathering
            .store()
            .answered_among(id, keys)?
            .into_iter()
            .filter_map(parse_answered)
            .map(|(key, _, answer, _)| {
                let hits = self.census.hits(&answer);
                (key, hits)
            })
            .collect())
    }

    /// The planned query a query was refined from (itself when planned).
    fn root<'k>(&'k self, mut key: &'k str) -> &'k str {
        for _ in 0..64 {
            match self.parents.get(key) {
                Some(parent) => key = parent,
                None => break,
            }
        }
        key
    }

    /// The answered query `key` was refined from (its planned
    /// ancestor, or itself), read from the store: `None` until answered.
    fn root_answered(
        &self,
        gathering: &Gathering<'_>,
        id: crate::store::SourceId,
        key: &str,
    ) -> Result<Option<Answered>, GatherError> {
        Ok(gathering
            .store()
            .answered_among(id, &[self.root(key).to_string()])?
            .into_iter()
            .find_map(parse_answered))
    }

    /// The answered queries of a query's tree.
    fn tree(
        &self,
        gathering: &Gathering<'_>,
        id: crate::store::SourceId,
        key: &str,
    ) -> Result<Vec<String>, GatherError> {
        let root = self.root(key);
        let mut tree: Vec<String> = self
            .root_answered(gathering, id, key)?
            .map(|(k, ..)| k)
            .into_iter()
            .filter(|k| !self.parents.contains_key(k))
            .collect();
        tree.extend(
            self.parents
                .keys()
                .filter(|k| self.root(k) == root)
                .cloned(),
        );
        Ok(tree)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What each query of a round is credited with, in the round's order.
    fn credited(order: &[String], found: Vec<(String, String)>, seen: Option<&Seen>) -> Vec<u64> {
        let found = attribute(order, found, seen);
        order
            .iter()
            .map(|key| found.iter().filter(|(k, _)| k == key).count() as u64)
            .collect()
    }

    #[test]
    fn a_rounds_new_values_count_for_its_first_query_that_showed_them_whichever_ended_first() {
        let order = vec!["a".to_string(), "b".to_string()];
        // Both queries showed "x" and "y"; b alone showed "z".
        let seen: Seen = HashMap::from([
            (
                "a".to_string(),
                HashSet::from([value_hash("x"), value_hash("y")]),
            ),
            (
                "b".to_string(),
                HashSet::from([value_hash("x"), value_hash("y"), value_hash("z")]),
            ),
        ]);
        let pair = |k: &str, v: &str| (k.to_string(), v.to_string());
        // The store credits the query recorded first: a when a ended
        // first, b when b did.
        let a_first = vec![pair("a", "x"), pair("a", "y"), pair("b", "z")];
        let b_first = vec![pair("b", "x"), pair("b", "y"), pair("b", "z")];
        assert_ne!(
            credited(&order, a_first.clone(), None),
            credited(&order, b_first.clone(), None)
        );
        // Read with what each showed, both interleavings credit the same.
        assert_eq!(credited(&order, a_first, Some(&seen)), vec![2, 1]);
        assert_eq!(credited(&order, b_first, Some(&seen)), vec![2, 1]);
    }
}

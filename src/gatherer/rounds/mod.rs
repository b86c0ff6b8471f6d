//! The rounds that follow a source's static plan: refinements of its
//! truncated queries ([`crate::refine`]), then words learned for an open
//! text field ([`crate::refine::learn`]). Each round is computed from what
//! the store holds once the round before is answered, so a resumed
//! gathering goes on where it stood. A single gathering runs one source's
//! rounds after the static plan; a planner on a shared plan runs the rounds
//! of all its sources side by side, so that the workers have every
//! provider's next queries at once.

mod initials;
mod learning;
mod refinement;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::query::{value_hash, ElementValues, Origin, QueryJob};
use super::GatherError;
use super::Gathering;
use crate::navigate::Checkpoint;
use crate::plan::{Cap, Query};
use crate::refine::{learn, Answer, Census, CensusTally, Refiner, Truncation, Wildcard};
use crate::source::Source;
pub use initials::Initials;
use learning::{tell_answers, Learning};

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
        for key in &learning.sent {
            let gain = by_key.get(key.as_str()).copied().unwrap_or(0);
            // The values a query without a new one showed again (known
            // only where this process ran the round).
            let again = self
                .seen
                .as_ref()
                .map(|seen| seen.get(key).map_or(0, |s| s.len() as u64));
            (learning.unprofitable, learning.shown_again) = if gain == 0 {
                let sum = learning.shown_again.zip(again).map(|(a, b)| a + b);
                (learning.unprofitable + 1, sum)
            } else {
                (0, again.map(|_| 0))
            };
        }
        // What each word brought, in values that hold a word, and of those
        // the values that hold its words (one per row its answer listed):
        // its kind of query is judged by them.
        let mut rows: HashMap<&str, (u64, u64)> = HashMap::new();
        for (key, value) in &found {
            if crate::words::has_words(value) {
                let row = rows.entry(key.as_str()).or_default();
                row.0 += 1;
                let word = learning.words.get(key).map(String::as_str);
                row.1 += u64::from(word.is_some_and(|w| crate::refine::learn::holds(value, w)));
            }
        }
        for key in &learning.sent {
            if let Some(word) = learning.words.get(key) {
                let (brought, listed) = rows.get(key.as_str()).copied().unwrap_or_default();
                learning.ranking.gained(word, brought, listed);
            }
        }
        learning
            .ranking
            .add(found.iter().map(|(_, value)| value.as_str()));
        let progress = learn::Progress {
            unprofitable: learning.unprofitable,
            shown_again: learning.shown_again,
            gathered: learning.ranking.gathered(),
            best: learning.ranking.best_expected(),
        };
        tracing::debug!(?progress, "learning");
        if let Some(why) = learn::stop_reason(progress) {
            self.learning_stopped = Some(why);
            self.stage = Stage::Done;
        }
        Ok(())
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

/// An answered query: key, element values, answer and the query it refines.
type Answered = (String, ElementValues, Answer, Option<String>);

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
    /// The first characters a prefix domain does not try, queried or not.
    pub initials: Initials,
}

impl Refined {
    /// `first characters no prefix reached: #, É (by --max-queries 40)`,
    /// when some were not queried.
    pub fn unreached(&self) -> Option<String> {
        let unreached = &self.initials.unreached;
        if unreached.is_empty() {
            return None;
        }
        let by = match (&self.budget, &self.stopped) {
            (Some(cap), _) => cap.to_string(),
            (None, Some(stopped)) => stopped.clone(),
            (None, None) => "queries that failed".to_string(),
        };
        Some(format!(
            "first characters no prefix reached: {} (by {by})",
            crate::refine::initials::describe(unreached)
        ))
    }

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

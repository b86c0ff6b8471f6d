//! The learning rounds: an open text field queried with words taken from
//! the values gathered so far ([`crate::refine::learn`]).

use std::collections::{HashMap, HashSet};

use super::{census, parse_answered, Batch, Rounds};
use crate::gatherer::query::{ElementValues, Origin};
use crate::gatherer::{GatherError, Gathering};
use crate::refine::{learn, Refiner};
use crate::source::Source;

impl Rounds<'_> {
    /// Learning, when the source has an open text field to learn
    /// ([`learn::learnable`]): ranked once from what is stored, then told
    /// each round's new values.
    pub(super) fn start_learning(
        &self,
        gathering: &Gathering<'_>,
    ) -> Result<Option<Learning>, GatherError> {
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
            shown_again: Some(0),
            sent: Vec::new(),
            words: HashMap::new(),
        }))
    }
}

/// What learning an open text field keeps between rounds.
pub(super) struct Learning {
    pub(super) element: String,
    /// Words (lower case) stored or sent in this run.
    pub(super) tried: HashSet<String>,
    /// The words of the values gathered so far.
    pub(super) ranking: learn::WordRanking,
    /// Learned queries in a row that found no new value.
    pub(super) unprofitable: usize,
    /// The values those queries showed, all known before (`None` once a
    /// round's values were not told).
    pub(super) shown_again: Option<u64>,
    /// The keys of the round in flight.
    pub(super) sent: Vec<String>,
    /// The words of the round in flight, by key.
    pub(super) words: HashMap<String, String>,
}

impl Learning {
    /// The next words to send, the most promising first, or why learning
    /// stops: the query limit, no word left, or an interrupt.
    pub(super) fn next(
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

/// Tells the ranking of learned words the answers of the stored queries
/// that `wanted` picks (by key): the hit count each stated and the rows it
/// showed, for the queries of the learned element alone.
pub(super) fn tell_answers(
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

//! The first characters a `%` prefix domain does not try, once every
//! truncated answer is refined: each character that starts a word of the
//! values gathered and that no prefix of the pattern tries (`#`, `É`, `¿`,
//! a digit for `/[A-Z]%/`) is queried as a prefix of its own (`#%`), for
//! every combination of the other elements the plan's first-character
//! queries sent. These queries extend the plan: they are stored as planned
//! queries, refined like any when cut short, and a character that could
//! not be queried (the query limit, refinement that stopped paying) is
//! named as unreached ([`crate::refine::initials`]).

use std::collections::BTreeSet;

use super::{parse_answered, Batch, Rounds};
use crate::gatherer::query::{take_checkpoint, ElementValues, Origin};
use crate::gatherer::{GatherError, Gathering};
use crate::refine::initials::{follows, tried, untried};

/// The first characters beyond a prefix domain: queried, and those that
/// could not be.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Initials {
    /// Every query of the character is done.
    pub queried: BTreeSet<char>,
    /// Some query of the character is not done, and will not be.
    pub unreached: BTreeSet<char>,
}

impl Rounds<'_> {
    /// The queries of the first characters not yet queried, at most
    /// `room` of them, and the characters as they stand: those whose
    /// queries are all done, and those left when this batch is sent
    /// (every one whose queries do not all fit, or a failed one).
    pub(super) fn initials(
        &mut self,
        gathering: &Gathering<'_>,
        room: u64,
    ) -> Result<(Batch, Initials, bool), GatherError> {
        let id = self.work.source;
        let mut attributes: Vec<&str> = self.work.rules.iter().map(|(a, _)| a.as_str()).collect();
        attributes.sort_unstable();
        attributes.dedup();
        let mut batch = Batch::new();
        let mut initials = Initials::default();
        let mut cut = false;
        let firsts = self.refiner.prefix_firsts().to_vec();
        for (element, firsts) in &firsts {
            let mut chars = BTreeSet::new();
            for attribute in &attributes {
                let values = gathering.store().attribute_values(id, attribute)?;
                if follows(values.iter().map(String::as_str), firsts) {
                    chars.extend(untried(values.iter().map(String::as_str), firsts));
                }
            }
            if chars.is_empty() {
                continue;
            }
            // The other elements' values of the plan's first-character
            // queries: each character is sent with each of them.
            let mut others: BTreeSet<ElementValues> = BTreeSet::new();
            gathering.store().each_answered::<GatherError>(id, |q| {
                let Some((_, values, _, None)) = parse_answered(q) else {
                    return Ok(());
                };
                let first = values
                    .iter()
                    .find(|(n, _)| n == element)
                    .and_then(|(_, v)| v.strip_suffix('%')?.chars().next());
                if first.is_some_and(|c| tried(c, firsts)) {
                    others.insert(values.into_iter().filter(|(n, _)| n != element).collect());
                }
                Ok(())
            })?;
            for c in chars {
                let queries: Vec<_> = others
                    .iter()
                    .map(|other| {
                        let mut values = other.clone();
                        values.push((element.clone(), format!("{c}%")));
                        self.source.plan.query_with(self.ordinal, values)
                    })
                    .collect();
                let keys: Vec<String> = queries.iter().map(|q| q.key()).collect();
                let finished = gathering.store().finished_among(id, &keys)?;
                let open: Vec<_> = queries
                    .into_iter()
                    .zip(keys)
                    .filter(|(_, key)| !finished.contains(key))
                    .collect();
                if open.is_empty() {
                    initials.queried.insert(c);
                    continue;
                }
                let failed = open
                    .iter()
                    .any(|(_, key)| self.refinements_sent.contains(key));
                if failed || (batch.len() + open.len()) as u64 > room {
                    cut |= !failed;
                    initials.unreached.insert(c);
                    continue;
                }
                for (mut query, key) in open {
                    query.ordinal = self.ordinal;
                    self.ordinal += 1;
                    self.refinements_sent.insert(key.clone());
                    let checkpoint = take_checkpoint(&mut self.checkpoints, &key);
                    batch.push((key, query, checkpoint, Origin::Planned));
                }
            }
        }
        Ok((batch, initials, cut))
    }
}

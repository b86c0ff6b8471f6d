//! The refinement rounds: the source's answers surveyed, its truncated
//! queries split into narrower ones ([`crate::refine`]), a text field
//! refined by prefixes where the provider takes a wildcard, by the values
//! and words gathered where not, and refinement stopped where it stops
//! paying.

use std::collections::{HashMap, HashSet};

use super::{
    attribute, census, parse_answered, Answered, Batch, Refined, Rounds, STOPPED_PAYING, UNPAID_RUN,
};
use crate::gatherer::query::{describe_values, take_checkpoint, ElementValues, Origin};
use crate::gatherer::{GatherError, Gathering};
use crate::plan::Query;
use crate::refine::{Answer, Census, Refiner, Truncation, Wildcard, WILDCARDS};

impl Rounds<'_> {
    /// The next refinements of the source's truncated queries; `None` once
    /// every answer is whole, no way is left, or the query limit is reached
    /// (then [`Rounds::refined`] tells what is left, and why).
    pub(super) fn refine(
        &mut self,
        gathering: &Gathering<'_>,
    ) -> Result<Option<Batch>, GatherError> {
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
        if next.is_empty() && !interrupted {
            // Every answer refined: the first characters the prefixes do
            // not try, where refining goes on.
            let room = if self.refining_stopped.is_some() || refined.budget.is_some() {
                0
            } else {
                room
            };
            let (initials, state, cut) = self.initials(gathering, room)?;
            if cut && self.refining_stopped.is_none() {
                refined.budget = Some(cap);
            }
            refined.initials = state;
            next = initials;
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
}

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

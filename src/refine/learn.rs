//! Learning the values of an open text field from the answers (Ntoulas,
//! Zerfos & Cho 2005, the adaptive policy): a keyword field whose domain is
//! a few seed words is queried with words taken from the values gathered
//! so far, the word expected to return the most new rows first.
//!
//! The estimate is the paper's, with the rows gathered so far as the
//! sample: a word that occurs in many of them occurs in many rows of the
//! database, scaled to the database by the hit counts the pages state, or
//! by the scale of the words sent that it is found beside, where that is
//! larger (the sample is thinner where the gathering only touched).
//! Without a count the page states, an answer is capped where several end
//! at the same largest row count.
//! Where answers are capped, a word counts for at most the cap, and a
//! capped word is narrowed by a second word once a probe shows that the
//! form combines words ([`WordRanking::candidates`]).
//! Words already sent, stop words, numbers and words of fewer than three
//! letters are skipped. Each kind of query (one word or two, under the cap
//! or above it; a word also by its frequency band) has its estimates
//! corrected by the new rows the queries of that kind brought in this run
//! ([`WordRanking::gained`]): where the
//! sample misleads (a provider that lists its newest matches, whatever the
//! word), the kind that does not pay falls behind. Otherwise the ranking
//! depends only on what is stored, and no word is sent twice.

use std::collections::{BTreeMap, HashSet};

use crate::form::{ElementKind, Form};
use crate::metadata::{Domain, Metadata};
use crate::words::{tokens, words};

mod leads;

/// Consecutive learned queries without a new value after which learning
/// stops whatever the estimates say: new words stopped paying.
pub const UNPROFITABLE_RUN: usize = 25;

/// Consecutive learned queries without a new value after which learning
/// stops when, besides, no word left is expected to bring [`MIN_EXPECTED`]
/// new rows and their answers showed again at least as many values as are
/// gathered (the stopping rule of Ntoulas, Zerfos & Cho 2005, the
/// expected gain of the next query below a threshold, with a check of the
/// estimate). The estimates alone do not stop: a sample of whole answers
/// holds every row its words reach, so the words not sent yet are
/// expected to bring nothing until one does. Answers that went over the
/// whole of what is gathered again and found nothing new are the evidence
/// that what the words reach is gathered.
pub const UNPROMISING_RUN: usize = 10;

/// New rows the best word left must be expected to bring for learning to
/// go on past [`UNPROMISING_RUN`] queries without a new value.
pub const MIN_EXPECTED: f64 = 1.0;

/// The learning so far, as the stopping rule weighs it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Progress {
    /// Learned queries in a row that found no new value.
    pub unprofitable: usize,
    /// The values their answers showed, all known before (`None`: not
    /// told, as on a shared plan).
    pub shown_again: Option<u64>,
    /// The values gathered.
    pub gathered: u64,
    /// The new rows the best word left was expected to bring (`None`: no
    /// estimate).
    pub best: Option<f64>,
}

/// Why learning stops after a query that brought no new value, if it does
/// ([`UNPROFITABLE_RUN`], [`UNPROMISING_RUN`]).
pub fn stop_reason(progress: Progress) -> Option<String> {
    let n = progress.unprofitable;
    if n >= UNPROFITABLE_RUN {
        return Some(format!(
            "new words stopped paying ({UNPROFITABLE_RUN} queries in a row without a new value)"
        ));
    }
    let (best, again) = (progress.best?, progress.shown_again?);
    (n >= UNPROMISING_RUN && best < MIN_EXPECTED && again >= progress.gathered.max(1)).then(|| {
        format!(
            "new words stopped paying ({n} queries in a row without a new value showed \
             {again} values again, as many as were gathered, and no word left is \
             expected to bring a new row)"
        )
    })
}

/// The query element whose values are learned, when the source has one: a
/// text field (or a query element without a form) whose domain is a list
/// of seed words.
pub fn learnable(form: Option<&Form>, metadata: &Metadata) -> Option<String> {
    metadata.query_elements.iter().find_map(|element| {
        let text_field = match form.and_then(|f| f.element(element)) {
            Some(e) => matches!(
                e.kind,
                ElementKind::Text { .. } | ElementKind::TextArea { .. }
            ),
            None => form.is_none(),
        };
        // One empty value is the form as it stands (its default answer
        // lists every row): nothing to learn from.
        let seeds = matches!(
            metadata.domains.get(element),
            Some(Domain::Values(v)) if !(v.len() == 1 && v[0].is_empty())
        );
        (text_field && seeds && metadata.query_elements.len() == 1).then(|| element.clone())
    })
}

/// Ranks the words of the gathered values for the next queries.
#[derive(Debug, Default)]
pub struct WordRanking {
    /// Word (lower case) → in how many gathered values it occurs.
    frequency: BTreeMap<String, u64>,
    /// Each word as first written.
    spelling: BTreeMap<String, String>,
    /// Two words (lower case, in order) → in how many gathered values both
    /// occur (the first [`PAIR_WORDS`] words of each value).
    pairs: BTreeMap<(String, String), u64>,
    /// The gathered values that hold a word.
    values: u64,
    /// The values' leading words ([`leads`]).
    leads: leads::Leads,
    /// What the ranking stood at when a query (lower case) was sent: the
    /// values then, and how many of them held the query's word.
    chosen: BTreeMap<String, (u64, u64)>,
    /// Answered queries (lower case) → the hit count their page stated
    /// (if any) and the rows shown.
    answers: BTreeMap<String, (Option<u64>, u64)>,
    /// The most rows one answer showed: the cap, once an answer stated more
    /// hits than it showed, or several answers ended at it.
    shown: u64,
    /// The cap as the answers told so far show it ([`Self::cap`]).
    cap: Option<u64>,
    /// Whether the form combines words (`"A B"` finds fewer rows than
    /// `"A"`): unknown until the probe is answered.
    combines: Option<bool>,
    /// The probe is sent.
    probed: bool,
    /// The new rows the best candidate was expected to bring when
    /// [`Self::next`] last ranked them (`None`: no candidate then).
    best: Option<f64>,
    /// Queries sent (lower case) whose new rows are still to be told: the
    /// kind of query and the new rows it was expected to bring.
    promised: BTreeMap<String, (Kind, u32, f64)>,
    /// Per kind of query and frequency band ([`band`]): the new rows
    /// expected and brought, of the queries told ([`Self::gained`]).
    record: BTreeMap<(usize, u32), (f64, f64)>,
    /// Capped words sent whose answers are still to be told: the shares
    /// of their first rows gathered were they spread evenly and were they
    /// at the head of the answer order ([`Shares`]).
    heads: BTreeMap<String, Shares>,
    /// What the capped answers told showed of the answer order: the sums
    /// by which [`Self::head_weight`] is fitted.
    head_fit: (f64, f64),
}

/// The share of a capped word's first rows (those its answer lists) that
/// is gathered, as two estimates that bound it: `even`, its gathered rows
/// against its hits (the rows gathered spread evenly over the order the
/// answers list them in), and `head`, its gathered rows against the cap
/// (all of them at the head of that order, as where the answers list
/// their newest or cheapest matches and the sample is thick there).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Shares {
    even: f64,
    head: f64,
}

impl Shares {
    fn new(found: f64, hits: f64, cap: f64) -> Shares {
        Shares {
            even: (found / hits.max(1.0)).min(1.0),
            head: (found / cap.max(1.0)).min(1.0),
        }
    }

    /// The share gathered with a weight of the head estimate (0 to 1).
    fn at(self, weight: f64) -> f64 {
        self.even + weight * (self.head - self.even)
    }
}

/// How much the fit of [`WordRanking::head_weight`] leans on its start
/// (no lean to the head of the order): as a capped answer whose bounds lie
/// this far apart (squared).
const HEAD_PRIOR: f64 = 0.25;

/// Kinds of query whose estimates are corrected by what they brought:
/// one word or two, expected under the cap or above it. A provider that
/// lists the same newest rows for every capped word, or whose words keep
/// to topics, brings far less from some kinds than the sample promises.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    Word = 0,
    CappedWord = 1,
    Pair = 2,
    CappedPair = 3,
    /// A word that leads its values, where the values fall into parts by
    /// their leading word ([`leads`]).
    Lead = 4,
}

/// How many rows of expectation the correction of a kind starts from: the
/// first queries of a kind are taken at their estimate.
const PRIOR_ROWS: f64 = 50.0;

/// How many words of a value count toward the pairs of words.
const PAIR_WORDS: usize = 8;

/// Answers that end at the same, largest row count, without a stated hit
/// count, after which that count is taken for the cap (as refinement
/// judges a common cap).
const COMMON_CAP: usize = 3;

/// A candidate query and the new rows it is expected to bring.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The query text: one word, or two separated by a space.
    pub text: String,
    /// Expected new rows: `min(estimated hits, cap) × (1 − fraction
    /// gathered)`, times what queries of its kind brought against what
    /// they were expected to bring.
    pub expected: f64,
    /// The new rows the sample alone promises, without the leading words'
    /// parts ([`leads`]): the stopping rule weighs the larger. A word
    /// confined to a part known whole is expected to bring nothing, but
    /// which words reach parts not seen yet the parts seen cannot tell.
    pub sample: f64,
    /// The kind of query.
    pub kind: Kind,
    /// For a capped word, the bounds of the share of its first rows
    /// gathered.
    shares: Option<Shares>,
}

impl WordRanking {
    /// Counts the words of the gathered values (each value counted once
    /// per word).
    pub fn new<'a>(values: impl IntoIterator<Item = &'a str>) -> WordRanking {
        let mut ranking = WordRanking::default();
        ranking.add(values);
        ranking
    }

    /// Counts the words of values gathered since (values new to the
    /// store: a value already counted must not be given again).
    pub fn add<'a>(&mut self, values: impl IntoIterator<Item = &'a str>) {
        for value in values {
            let (spelt, lead) = value_words(value);
            if spelt.is_empty() {
                continue;
            }
            let mut seen: Vec<String> = Vec::with_capacity(spelt.len());
            for (key, word) in spelt {
                *self.frequency.entry(key.clone()).or_default() += 1;
                self.spelling.entry(key.clone()).or_insert(word);
                seen.push(key);
            }
            self.values += 1;
            self.leads.add(lead.as_deref(), &seen);
            seen.truncate(PAIR_WORDS);
            for (i, a) in seen.iter().enumerate() {
                for b in &seen[i + 1..] {
                    let key = if a < b {
                        (a.clone(), b.clone())
                    } else {
                        (b.clone(), a.clone())
                    };
                    *self.pairs.entry(key).or_default() += 1;
                }
            }
        }
    }

    /// Tells that a query is sent: how often the gathered values hold its
    /// word is kept, to scale the sample to the database once its hit
    /// count is known.
    pub fn sent(&mut self, query: &str) {
        let key = query.to_lowercase();
        let found = self.frequency.get(&key).copied().unwrap_or(0);
        self.chosen.insert(key, (self.values, found));
    }

    /// Tells a query's answer: the hit count the page stated (if any) and
    /// the rows it showed.
    pub fn answered(&mut self, query: &str, hits: Option<u64>, shown: u64) {
        let key = query.to_lowercase();
        let hits = hits.map(|h| h.max(shown));
        self.shown = self.shown.max(shown);
        self.answers.insert(key.clone(), (hits, shown));
        self.cap = self.find_cap();
        if shown == 0 && hits.unwrap_or(0) == 0 && !key.contains(' ') {
            self.leads.barren(&key);
        }
        // The first answer to two words whose first word was answered
        // tells whether the form combines words (the probe's, or a stored
        // one when a gathering is resumed). Without hit counts, two
        // answers that both end at the cap tell nothing: another pair is
        // probed.
        if self.combines.is_none() {
            let whole = key
                .split_once(' ')
                .and_then(|(first, _)| self.answers.get(first).copied());
            if let Some(whole) = whole {
                let (both, first) = (self.hits_of(&key), self.hits_of_answer(whole));
                match (both, first) {
                    (Some(both), Some(first)) => self.combines = Some(shown > 0 && both < first),
                    _ if shown == 0 || shown < whole.1 => {
                        self.combines = Some(shown > 0 && shown < whole.1)
                    }
                    _ => self.probed = false,
                }
            }
        }
    }

    /// Whether an answer (stated hits, rows shown) was cut: it stated more
    /// hits than it showed, or it states none and ends at the cap.
    fn capped(&self, (hits, shown): (Option<u64>, u64)) -> bool {
        match hits {
            Some(hits) => hits > shown,
            None => shown > 0 && self.cap() == Some(shown),
        }
    }

    /// A query's hits: those its page stated, all it showed when it was
    /// whole, `None` when it was cut without a count.
    fn hits_of(&self, key: &str) -> Option<u64> {
        self.answers
            .get(key)
            .and_then(|&answer| self.hits_of_answer(answer))
    }

    fn hits_of_answer(&self, answer: (Option<u64>, u64)) -> Option<u64> {
        match answer {
            (Some(hits), _) => Some(hits),
            (None, shown) => (!self.capped(answer)).then_some(shown),
        }
    }

    /// The hits of a capped answer: stated, or estimated from how often
    /// the gathered values held its word when it was sent (never below
    /// one more than it showed).
    fn capped_hits(&self, key: &str, scale: Option<f64>) -> Option<u64> {
        let &(hits, shown) = self.answers.get(key)?;
        if !self.capped((hits, shown)) {
            return None;
        }
        hits.or_else(|| {
            let &(values, found) = self.chosen.get(key)?;
            let estimate = scale? * found as f64 * self.values as f64 / values.max(1) as f64;
            Some((estimate.round() as u64).max(shown + 1))
        })
        .or(Some(shown + 1))
    }

    /// Whether the form is known to combine words (`None`: not probed yet).
    pub fn combines(&self) -> Option<bool> {
        self.combines
    }

    /// The cap: the most rows an answer showed, once some answer at it
    /// stated more hits than it showed, or, without stated counts,
    /// [`COMMON_CAP`] answers ended at it and some below (otherwise no cap
    /// is seen).
    fn cap(&self) -> Option<u64> {
        self.cap
    }

    /// [`Self::cap`] computed from the answers, each time one is told.
    fn find_cap(&self) -> Option<u64> {
        let stated = self
            .answers
            .values()
            .any(|&(hits, shown)| hits.is_some_and(|h| h > shown) && shown == self.shown);
        // Without stated hit counts: several answers end at the largest
        // row count, and some end below it.
        let at = self
            .answers
            .values()
            .filter(|&&(hits, shown)| hits.is_none() && shown == self.shown)
            .count();
        let below = self
            .answers
            .values()
            .any(|&(_, shown)| shown > 0 && shown < self.shown);
        (self.shown > 1 && (stated || (at >= COMMON_CAP && below))).then_some(self.shown)
    }

    /// Database rows per gathered value: the hit counts the pages stated
    /// for the words sent against how often the gathered values held them
    /// when they were sent (the median over the words that found anything),
    /// at least 1; `None` before a hit count is known. While the whole
    /// answers (every row of their word shown) are fewer than half of
    /// those, the median is theirs alone, and there is none before one: the
    /// words sent first are those the sample holds most, and the hits a
    /// capped answer states for such a word reach over the whole database
    /// while the sample is still of the few parts gathered first, so their
    /// ratio overstates what is left of the words the sample holds. Once
    /// the whole answers are as many, the ratio of every answer counts (the
    /// whole answers alone come from the rarer words, and understate it).
    /// Before that, where both are known, the scale leans from the whole
    /// answers' toward every answer's as far as the capped answers lean
    /// toward the head of their order ([`Self::head_weight`], the
    /// geometric mean so weighted): where answers list the head of an
    /// order (the cheapest, the newest), the share of a capped word's
    /// first rows gathered is told by the head, not by the scale, which
    /// says only whether a word reaches over the cap; every answer's
    /// counts tell that better than the whole answers' alone, words whose
    /// few hits were overstated by the sample.
    fn scale(&self) -> Option<f64> {
        match self.scales() {
            (Some(kept), Some(all)) if kept != all && self.head_weight() > 0.0 => {
                let w = self.head_weight();
                Some(((1.0 - w) * kept.ln() + w * all.ln()).exp())
            }
            (kept, _) => kept,
        }
    }

    /// The two scales of the sample ([`Self::scale`]): by the whole
    /// answers alone while they are fewer than half (by every answer once
    /// they are as many), and by every answer.
    fn scales(&self) -> (Option<f64>, Option<f64>) {
        let mut all = Vec::new();
        let mut whole = Vec::new();
        for (key, &answer) in &self.answers {
            // A capped answer without a stated count tells only a bound.
            let Some(hits) = self.hits_of(key) else {
                continue;
            };
            let Some(&(values, found)) = self.chosen.get(key) else {
                continue;
            };
            // A word that finds nothing stands where the search does not
            // look (a field it does not cover): it tells nothing of the
            // database's size.
            if found == 0 || hits == 0 {
                continue;
            }
            let ratio = hits as f64 * values as f64 / found as f64 / self.values.max(1) as f64;
            if !self.capped(answer) {
                whole.push(ratio);
            }
            all.push(ratio);
        }
        let kept = if whole.len() * 2 < all.len() {
            median(whole)
        } else {
            median(all.clone())
        };
        (kept, median(all))
    }

    /// The candidate queries not in `tried` (lower case), ranked by the new
    /// rows each is expected to bring, the most first (ties: the more
    /// frequent, then alphabetical). A word's hits are its frequency
    /// among the gathered values scaled to the database ([`Self::scale`]);
    /// a word expected above the cap counts for the cap only. Where the
    /// form combines words, a capped word is narrowed by a second word:
    /// its hits are the first word's stated hits times how often the
    /// second occurs with it, and what of them is gathered is what is
    /// gathered of the first word's hits.
    pub fn candidates(&self, tried: &HashSet<String>) -> Vec<Candidate> {
        let cap = self.cap().map_or(f64::INFINITY, |c| c as f64);
        let scale = self.scale();
        let local = self.local_scales();
        let unseen = self.leads.unseen_all();
        // Where the values fall into parts by their leading word, the
        // scale of the leading words sent.
        let parts = self
            .in_parts()
            .then(|| (self.lead_scale().or(scale), self.part_size()));
        let weight = self.head_weight();
        let mut ranked: Vec<(Candidate, u64)> = self
            .frequency
            .iter()
            .filter(|(w, _)| !tried.contains(*w))
            .map(|(w, &f)| {
                // The scale of the words found beside it, where some were
                // sent: the sample is not as thick everywhere. It counts
                // at least as the sample's, but where answers are capped
                // and the words beside it came back whole (every row of
                // theirs is gathered), as much as they weigh it counts
                // alone (geometric mean): a word of a subject gathered
                // whole has little left, whatever the sample's average.
                let scale = match (local.get(w.as_str()), scale) {
                    (Some(&(l, whole)), Some(s)) if cap.is_finite() => {
                        Some((whole * l.ln() + (1.0 - whole) * l.max(s).ln()).exp())
                    }
                    (Some(&(l, _)), Some(s)) => Some(l.max(s)),
                    (l, s) => l.map(|&(l, _)| l).or(s),
                };
                let hits = f as f64 * scale.unwrap_or(1.0);
                // A capped word's answer lists its first rows only: as
                // many of them are gathered as the capped answers so far
                // showed between the bounds.
                let shares = (hits >= cap).then(|| Shares::new(f as f64, hits, cap));
                let sample = match (&shares, scale) {
                    (Some(shares), Some(_)) => cap * (1.0 - shares.at(weight)),
                    _ => estimate(hits, cap, scale),
                };
                let (hits, expected, lead) = match parts {
                    // A leading word brings its part: its values gathered
                    // so far came through other words, a sample as thin
                    // as the parts of the leading words sent were, of a
                    // part at least as large as theirs on average.
                    Some((lead, size)) if self.leads.leading(w, f) => {
                        let f = f as f64;
                        let hits = (f * lead.unwrap_or(1.0)).max(size.unwrap_or(0.0));
                        let gathered = if hits > 0.0 { f / hits } else { 1.0 };
                        (hits, hits.min(cap) * (1.0 - gathered.min(1.0)), true)
                    }
                    // Another word: its rows in parts known whole are
                    // gathered; it reaches parts not seen yet as often as
                    // it spread over several.
                    Some(_) => {
                        let open = self.leads.open_share(w, |lead| self.whole(lead));
                        (hits, (sample * open + unseen(w)).min(cap), false)
                    }
                    None => (hits, sample, false),
                };
                let kind = if lead {
                    Kind::Lead
                } else if hits >= cap {
                    Kind::CappedWord
                } else {
                    Kind::Word
                };
                let text = self.spelling[w].clone();
                let correction = self.correction(kind, band(f));
                (
                    Candidate {
                        text,
                        expected: expected * correction,
                        sample: sample * correction,
                        kind,
                        shares,
                    },
                    f,
                )
            })
            .collect();
        if self.combines == Some(true) {
            ranked.extend(self.narrowed(tried, cap));
        }
        ranked.sort_by(|a, b| {
            b.0.expected
                .total_cmp(&a.0.expected)
                .then_with(|| b.1.cmp(&a.1))
                .then_with(|| a.0.text.cmp(&b.0.text))
        });
        ranked.into_iter().map(|(c, _)| c).collect()
    }

    /// Whether a word sent showed every row it found, and some.
    fn whole(&self, word: &str) -> bool {
        self.answers
            .get(word)
            .is_some_and(|&answer| answer.1 > 0 && !self.capped(answer))
    }

    /// Database rows per gathered value among the leading words sent: the
    /// hits they found against how many gathered values held them when
    /// they were sent (summed over those that found anything: a small
    /// part whose every value was gathered before its word was sent
    /// weighs as little as it is), at least 1; `None` before one is
    /// answered.
    fn lead_scale(&self) -> Option<f64> {
        let (hits, found) = self
            .leads_sent()
            .filter_map(|(key, hits)| {
                let &(_, found) = self.chosen.get(key)?;
                (found > 0).then_some((hits, found))
            })
            .fold((0, 0), |(h, f), (hits, found)| (h + hits, f + found));
        (found > 0).then(|| (hits as f64 / found as f64).max(1.0))
    }

    /// The hits of a part: the mean of those the leading words sent found
    /// (`None` before one found anything).
    fn part_size(&self) -> Option<f64> {
        let (sum, n) = self
            .leads_sent()
            .fold((0, 0), |(sum, n), (_, hits)| (sum + hits, n + 1));
        (n > 0).then(|| sum as f64 / n as f64)
    }

    /// The leading words sent that found something, with their hits.
    fn leads_sent(&self) -> impl Iterator<Item = (&String, u64)> {
        self.answers
            .keys()
            .filter(|key| !key.contains(' '))
            .filter_map(|key| {
                let f = *self.frequency.get(key)?;
                let hits = self.hits_of(key)?;
                (self.leads.leading(key, f) && hits > 0).then_some((key, hits))
            })
    }

    /// Per word found beside words sent: database rows per gathered row
    /// among the rows of those words (their hits against how many
    /// gathered values hold them now), weighted by how often each is
    /// found beside it, at least 1. Where the gathering went deep (a
    /// subject whose words were sent and whose rows are gathered), a word
    /// has less left to bring than the sample's average says; where it
    /// only touched, more. Beside the scale, the share of that weight
    /// from words whose answer was whole. Where the capped answers lean
    /// toward the head of their order ([`Self::head_weight`]), a sent
    /// word's ratio leans as far toward that of its values when it was
    /// sent, grown with the sample: the rows its own answer brought hold
    /// it, and counted now they make its rows look gathered deeper than
    /// the rows beside it are (its first rows, the head, are gathered, not
    /// its others).
    fn local_scales(&self) -> std::collections::HashMap<&str, (f64, f64)> {
        let head = self.head_weight();
        let sent: std::collections::HashMap<&str, (f64, bool)> = self
            .answers
            .iter()
            .filter(|(key, _)| !key.contains(' '))
            .filter_map(|(key, &answer)| {
                let hits = self.hits_of(key)?;
                let f = *self.frequency.get(key)?;
                let now = (hits as f64 / f as f64).max(1.0);
                let then = match self.chosen.get(key) {
                    Some(&(values, found)) if found > 0 => {
                        (hits as f64 * values as f64 / found as f64 / self.values.max(1) as f64)
                            .max(1.0)
                    }
                    _ => now,
                };
                let ratio = ((1.0 - head) * now.ln() + head * then.ln()).exp();
                (hits > 0 && f > 0).then(|| (key.as_str(), (ratio, !self.capped(answer))))
            })
            .collect();
        let mut sums: std::collections::HashMap<&str, (f64, f64, f64)> = Default::default();
        if sent.is_empty() {
            return Default::default();
        }
        for ((a, b), &n) in &self.pairs {
            for (word, other) in [(a, b), (b, a)] {
                if let Some(&(ratio, whole)) = sent.get(other.as_str()) {
                    let sum = sums.entry(word.as_str()).or_default();
                    sum.0 += n as f64 * ratio;
                    sum.1 += n as f64;
                    sum.2 += if whole { n as f64 } else { 0.0 };
                }
            }
        }
        sums.into_iter()
            .map(|(w, (sum, weight, whole))| (w, ((sum / weight).max(1.0), whole / weight)))
            .collect()
    }

    /// The frequency band a candidate query is judged in: a single word's
    /// ([`band`]); pairs are judged together.
    fn band_of(&self, text: &str) -> u32 {
        if text.contains(' ') {
            return 0;
        }
        band(
            self.frequency
                .get(&text.to_lowercase())
                .copied()
                .unwrap_or(0),
        )
    }

    /// Capped words narrowed by a second word, with their expected new rows
    /// and the pair's frequency.
    fn narrowed(&self, tried: &HashSet<String>, cap: f64) -> Vec<(Candidate, u64)> {
        let mut out = Vec::new();
        let scale = self.scale();
        for ((a, b), &both) in &self.pairs {
            for (first, second) in [(a, b), (b, a)] {
                let Some(hits) = self.capped_hits(first, scale) else {
                    continue;
                };
                let text = format!("{} {}", self.spelling[first], self.spelling[second]);
                if pair_tried(tried, first, second) {
                    continue;
                }
                // A second word whose every hit was shown is gathered whole.
                let other = self.answers.get(second);
                if other.is_some_and(|&answer| !self.capped(answer)) {
                    continue;
                }
                let share = |word: &String, hits: u64| {
                    let f = self.frequency.get(word).copied().unwrap_or(0) as f64;
                    (f / hits as f64).min(1.0)
                };
                let f = self.frequency.get(first).copied().unwrap_or(1).max(1) as f64;
                let estimate = hits as f64 * both as f64 / f;
                let gathered = share(first, hits);
                let kind = if estimate >= cap {
                    Kind::CappedPair
                } else {
                    Kind::Pair
                };
                let expected = estimate.min(cap) * (1.0 - gathered) * self.correction(kind, 0);
                out.push((
                    Candidate {
                        text,
                        expected,
                        sample: expected,
                        kind,
                        shares: None,
                    },
                    both,
                ));
            }
        }
        out
    }

    /// The `n` most promising queries not in `tried` (compared ignoring
    /// case), see [`Self::candidates`]. While it is unknown whether the
    /// form combines words and some answer was capped, the first is the
    /// probe: the most capped word narrowed by the word found most often
    /// with it.
    pub fn next(&mut self, tried: &HashSet<String>, n: usize) -> Vec<String> {
        let mut out = Vec::new();
        if self.combines.is_none() && !self.probed && n > 0 {
            if let Some(probe) = self.probe_query(tried) {
                out.push(probe);
            }
        }
        let candidates = self.candidates(tried);
        self.best = candidates
            .iter()
            .map(|c| c.expected.max(c.sample))
            .max_by(f64::total_cmp);
        for c in candidates.into_iter().take(n - out.len()) {
            if let Some(shares) = c.shares {
                self.heads.insert(c.text.to_lowercase(), shares);
            }
            self.promised.insert(c.text.to_lowercase(), {
                let band = self.band_of(&c.text);
                (c.kind, band, c.expected / self.correction(c.kind, band))
            });
            out.push(c.text);
        }
        out
    }

    /// Whether the values fall into parts by their leading word
    /// ([`leads::Leads::partitioned`]), a leading word's answer has shown
    /// what a part holds, and the answers are whole: no cap is seen, nor a
    /// hint of one (two answers without a count ending at the largest row
    /// count). Where answers are capped, a leading word's answer is not
    /// its part, and the rows of a part are not known gathered.
    fn in_parts(&self) -> bool {
        let at_most = self
            .answers
            .values()
            .filter(|&&(hits, shown)| shown == self.shown && hits.is_none_or(|h| h > shown))
            .count();
        self.cap().is_none()
            && at_most < 2
            && self.leads_sent().next().is_some()
            && self.leads.partitioned(&self.frequency, self.values)
    }

    /// The gathered values that hold a word.
    pub fn gathered(&self) -> u64 {
        self.values
    }

    /// The new rows the best word was expected to bring when the last
    /// queries were chosen ([`Self::next`]).
    pub fn best_expected(&self) -> Option<f64> {
        self.best
    }

    /// Tells what a query sent by [`Self::next`] brought: `rows`, its new
    /// values that hold a word, and `listed`, those of them that hold the
    /// query's words ([`holds`]), one per new row its answer listed where
    /// a row gives several values (a picture's caption and its reference,
    /// `TPL 00412`). The estimates of its kind are corrected by it from
    /// then on: by `listed` where answers are capped (the estimates are
    /// then rows, as the cap is), by `rows` otherwise.
    pub fn gained(&mut self, query: &str, rows: u64, listed: u64) {
        let key = query.to_lowercase();
        // A capped word's answer: how much of what it listed was gathered
        // before, between the bounds, fits the weight of the head.
        let answer = self.answers.get(&key).copied();
        let capped = answer.filter(|&a| a.1 > 0 && self.capped(a));
        if let (Some(shares), Some((hits, shown))) = (self.heads.remove(&key), capped) {
            // The bounds again with the hits it stated, where it did: the
            // fit weighs the order, not the estimate of the hits.
            let shares = match (hits, self.chosen.get(&key)) {
                (Some(hits), Some(&(_, found))) => {
                    Shares::new(found as f64, hits as f64, shown as f64)
                }
                _ => shares,
            };
            // Its new values against the rows shown: where a row gives
            // several values, the rows listed (`listed`) lean the fit
            // toward the head, which on the picture library sends capped
            // words whose answers bring less (0.857 of the ceiling at 200
            // queries against 0.878).
            let seen = 1.0 - (rows as f64 / shown as f64).min(1.0);
            let span = shares.head - shares.even;
            self.head_fit.0 += (seen - shares.even) * span;
            self.head_fit.1 += span * span;
        }
        // Where answers are capped, the estimates count rows, as the cap
        // does (the rows an answer shows); otherwise the values that hold
        // a word.
        let brought = if self.cap().is_some() { listed } else { rows };
        if let Some((kind, band, expected)) = self.promised.remove(&key) {
            let record = self.record.entry((kind as usize, band)).or_default();
            record.0 += expected;
            record.1 += brought as f64;
        }
    }

    /// Where between its bounds ([`Shares`]) the gathered share of a
    /// capped word's first rows lies: 0 spread evenly, 1 all at the head
    /// of the answers' order, fitted (least squares) to what the capped
    /// answers told showed gathered already, from 0 ([`HEAD_PRIOR`]).
    fn head_weight(&self) -> f64 {
        let (sum, span) = self.head_fit;
        (sum / (span + HEAD_PRIOR)).clamp(0.0, 1.0)
    }

    /// What queries of a kind brought against what they were expected to
    /// bring, starting from their estimate ([`PRIOR_ROWS`]).
    fn correction(&self, kind: Kind, band: u32) -> f64 {
        let (expected, brought) = self
            .record
            .get(&(kind as usize, band))
            .copied()
            .unwrap_or_default();
        (brought + PRIOR_ROWS) / (expected + PRIOR_ROWS)
    }

    /// The probe of whether the form combines words, once an answer is
    /// capped.
    fn probe_query(&mut self, tried: &HashSet<String>) -> Option<String> {
        self.cap()?;
        let scale = self.scale();
        let (_, first) = self
            .answers
            .keys()
            .filter(|key| !key.contains(' '))
            .filter_map(|key| Some((self.capped_hits(key, scale)?, key)))
            .max()?;
        let (_, second) = self
            .pairs
            .iter()
            .filter_map(|((a, b), &n)| {
                let other = if a == first {
                    b
                } else if b == first {
                    a
                } else {
                    return None;
                };
                (!pair_tried(tried, first, other)).then_some((n, other))
            })
            .max_by(|x, y| x.0.cmp(&y.0).then_with(|| y.1.cmp(x.1)))?;
        let text = format!("{} {}", self.spelling[first], self.spelling[second]);
        self.probed = true;
        Some(text)
    }
}

/// The median of ratios, at least 1 (`None` of none).
fn median(mut ratios: Vec<f64>) -> Option<f64> {
    if ratios.is_empty() {
        return None;
    }
    ratios.sort_by(f64::total_cmp);
    Some(ratios[ratios.len() / 2].max(1.0))
}

/// Whether two words (lower case) were sent together, in either order:
/// an answer to both words lists the rows that hold both, whichever comes
/// first.
fn pair_tried(tried: &HashSet<String>, a: &str, b: &str) -> bool {
    tried.contains(&format!("{a} {b}")) || tried.contains(&format!("{b} {a}"))
}

/// The new rows a word of `hits` estimated hits is expected to bring:
/// at most the cap, less the share of its hits gathered (`1 / scale`;
/// without a scale, none is known gathered).
fn estimate(hits: f64, cap: f64, scale: Option<f64>) -> f64 {
    match scale {
        Some(s) => hits.min(cap) * (1.0 - 1.0 / s),
        None => hits.min(cap),
    }
}

/// A value's words worth a query, each once, in order (lower case, with
/// the spelling met first), and its leading word: its first word, when the
/// value begins with a word worth a query ([`leads`]).
fn value_words(value: &str) -> (Vec<(String, String)>, Option<String>) {
    let mut spelt: Vec<(String, String)> = Vec::new();
    for word in words(value) {
        let key = word.to_lowercase();
        if !spelt.iter().any(|(k, _)| *k == key) {
            spelt.push((key, word));
        }
    }
    let first = tokens(value).next().map(str::to_lowercase);
    let lead = first.filter(|first| spelt.first().is_some_and(|(k, _)| k == first));
    (spelt, lead)
}

/// Whether a value holds every word of a query worth one (compared
/// ignoring case): a value the query's answer lists for its words.
pub fn holds(value: &str, query: &str) -> bool {
    let (held, _) = value_words(value);
    let (wanted, _) = value_words(query);
    !wanted.is_empty() && wanted.iter().all(|(w, _)| held.iter().any(|(h, _)| h == w))
}

/// The band of a word's frequency among the gathered values (powers of
/// two), by which its kind of query is judged.
fn band(frequency: u64) -> u32 {
    frequency.max(1).ilog2()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_told_later_rank_as_if_counted_at_once() {
        let values = [
            "Stille Nacht",
            "Hafen am Strand",
            "Hafen und Stille",
            "Der stille Hafen",
        ];
        let mut later = WordRanking::new(values[..1].iter().copied());
        assert_eq!(later.next(&HashSet::new(), 1), ["Nacht"]);
        later.add(values[1..].iter().copied());
        let mut at_once = WordRanking::new(values);
        assert_eq!(
            later.next(&HashSet::new(), 4),
            at_once.next(&HashSet::new(), 4)
        );
        assert_eq!(later.next(&HashSet::new(), 2), ["Hafen", "Stille"]);
    }

    #[test]
    fn the_most_frequent_untried_word_comes_first() {
        let mut ranking = WordRanking::new([
            "Die Stille Bucht",
            "Stille Nacht 3",
            "Der Hafen am Strand",
            "Hafen und Stille",
        ]);
        let tried: HashSet<String> = ["hafen".to_string()].into();
        assert_eq!(ranking.next(&tried, 3), ["Stille", "Bucht", "Nacht"]);
        assert!(ranking
            .next(&HashSet::new(), 10)
            .iter()
            .all(|w| w != "Die" && w != "am" && w != "3"));
    }

    fn ranked(ranking: &WordRanking, tried: &HashSet<String>) -> Vec<(String, f64)> {
        ranking
            .candidates(tried)
            .into_iter()
            .map(|c| (c.text, c.expected))
            .collect()
    }

    fn owned(ranked: &[(&str, f64)]) -> Vec<(String, f64)> {
        ranked.iter().map(|(t, e)| (t.to_string(), *e)).collect()
    }

    #[test]
    fn words_are_ranked_by_the_new_rows_expected_under_the_cap() {
        let values = [
            "Alpha Beta Gamma",
            "Alpha Beta",
            "Alpha Delta",
            "Alpha Beta Delta",
            "Epsilon Zeta",
        ];
        let mut ranking = WordRanking::new(values);
        ranking.sent("Alpha");
        // 8 hits for a word 4 of the 5 values hold: the database is twice
        // the sample, half of every word's hits are gathered, and the
        // answer showed 4 of its 8 hits: the cap is 4.
        ranking.answered("Alpha", Some(8), 4);
        let mut tried: HashSet<String> = ["alpha".to_string()].into();
        // Beta (3 values, 6 hits expected) counts for the cap only, as
        // much as Delta (2 values, 4 hits).
        assert_eq!(
            ranked(&ranking, &tried),
            owned(&[
                ("Beta", 2.0),
                ("Delta", 2.0),
                ("Epsilon", 1.0),
                ("Gamma", 1.0),
                ("Zeta", 1.0)
            ])
        );
        // The capped answer is narrowed once, to learn whether the form
        // combines words: with the word found most often beside it.
        let next = ranking.next(&tried, 2);
        assert_eq!(next, ["Alpha Beta", "Beta"]);
        tried.extend(next.iter().map(|w| w.to_lowercase()));
        assert_eq!(ranking.combines(), None);
        ranking.answered("Alpha Beta", Some(6), 4);
        assert_eq!(ranking.combines(), Some(true));
        // Alpha narrowed by Delta: 8 × 2/4 = 4 hits, half gathered.
        assert_eq!(
            ranked(&ranking, &tried),
            owned(&[
                ("Alpha Delta", 2.0),
                ("Delta", 2.0),
                ("Alpha Gamma", 1.0),
                ("Epsilon", 1.0),
                ("Gamma", 1.0),
                ("Zeta", 1.0)
            ])
        );
    }

    #[test]
    fn a_form_that_does_not_combine_words_is_not_sent_pairs() {
        let mut ranking = WordRanking::new(["Alpha Beta", "Alpha Gamma", "Beta"]);
        ranking.sent("Alpha");
        ranking.answered("Alpha", Some(50), 10);
        let tried: HashSet<String> = ["alpha".to_string()].into();
        assert_eq!(ranking.next(&tried, 1), ["Alpha Beta"]);
        // The whole text as one word: nothing found.
        ranking.answered("Alpha Beta", Some(0), 0);
        assert_eq!(ranking.combines(), Some(false));
        assert!(ranking
            .candidates(&tried)
            .iter()
            .all(|c| !c.text.contains(' ')));
        assert!(!ranking.next(&tried, 5).iter().any(|w| w.contains(' ')));
    }

    #[test]
    fn a_word_that_finds_nothing_does_not_make_every_word_look_gathered() {
        let mut ranking = WordRanking::new(["Alpha Beta", "Gamma Delta", "REF 1", "REF 2"]);
        ranking.sent("REF");
        // REF stands in a field the search does not look at.
        ranking.answered("REF", Some(0), 0);
        ranking.sent("Alpha");
        ranking.answered("Alpha", Some(30), 30);
        // 30 hits for a word one of the 4 values holds: the database is
        // 30 times the sample (the median of 30, not of 0 and 30).
        let tried: HashSet<String> = ["ref".to_string(), "alpha".to_string()].into();
        assert!(ranking.candidates(&tried).iter().all(|c| c.expected > 20.0));
    }

    #[test]
    fn a_kind_of_query_that_brings_less_than_expected_falls_behind() {
        let values = [
            "Alpha Beta",
            "Alpha Gamma",
            "Delta Beta",
            "Delta Gamma",
            "Epsilon Zeta",
        ];
        let mut ranking = WordRanking::new(values);
        ranking.sent("Alpha");
        ranking.answered("Alpha", Some(40), 30);
        // A whole answer as many times the sample: the scale is 20.
        ranking.sent("Zeta");
        ranking.answered("Zeta", Some(20), 20);
        let mut tried: HashSet<String> = ["alpha", "zeta"].map(String::from).into();
        // Beta, Gamma, Delta (2 values, 40 hits expected) are capped;
        // Epsilon (20) is not.
        let first = ranking.candidates(&tried);
        assert_eq!(first[0].text, "Beta");
        assert_eq!(first[0].kind, Kind::CappedWord);
        // Capped words bring nothing new (the provider lists its newest
        // rows for every word): they fall behind the words under the cap.
        // (The first query is the probe of whether the form combines words.)
        for word in ranking.next(&tried, 2) {
            ranking.gained(&word, 0, 0);
            tried.insert(word.to_lowercase());
        }
        let next = ranking.candidates(&tried);
        let epsilon = next.iter().position(|c| c.text == "Epsilon").unwrap();
        let delta = next.iter().position(|c| c.text == "Delta").unwrap();
        assert_eq!(next[delta].kind, Kind::CappedWord);
        assert!(epsilon < delta, "{next:?}");
    }

    #[test]
    fn where_answers_are_capped_a_kind_is_judged_by_the_rows_it_brought() {
        let values = ["Alpha Beta", "Gamma Delta"];
        // No cap: a kind brought every new value that holds a word.
        let mut whole = WordRanking::new(values);
        assert_eq!(whole.next(&HashSet::new(), 1), ["Alpha"]);
        whole.gained("Alpha", 2, 1);
        assert_eq!(whole.correction(Kind::Word, 0), 52.0 / 51.0);
        // Capped answers (40 hits, 10 shown): Beta, found beside Alpha, is
        // expected at the cap less its share gathered, 9.75 rows. Its new
        // rows gave two values each (a caption and its reference number),
        // one of them holding the word: it brought 10 rows, not 20 values.
        let mut capped = WordRanking::new(values);
        let mut tried: HashSet<String> = HashSet::new();
        for (query, hits, shown) in [("Alpha", 40, 10), ("Alpha Beta", 1, 1)] {
            capped.sent(query);
            capped.answered(query, Some(hits), shown);
            tried.insert(query.to_lowercase());
        }
        assert_eq!(capped.next(&tried, 1), ["Beta"]);
        capped.gained("Beta", 20, 10);
        assert_eq!(capped.correction(Kind::CappedWord, 0), 60.0 / 59.75);
    }

    #[test]
    fn a_value_holds_a_query_that_all_its_words_are_in() {
        assert!(holds("Der stille Hafen", "hafen"));
        assert!(holds("Der stille Hafen", "Stille HAFEN"));
        assert!(!holds("Der stille Hafen", "Hafen Sturm"));
        assert!(!holds("Der stille Hafen", "Häfen"));
        assert!(!holds("Der stille Hafen", ""));
    }

    #[test]
    fn without_a_hit_count_the_cap_is_the_row_count_several_answers_end_at() {
        let values = [
            "Alpha Beta",
            "Alpha Gamma",
            "Alpha Delta",
            "Beta Gamma",
            "Epsilon Zeta",
            "Epsilon Beta",
        ];
        let mut ranking = WordRanking::new(values);
        let mut tried: HashSet<String> = HashSet::new();
        for (word, shown) in [("Alpha", 20), ("Beta", 20)] {
            ranking.sent(word);
            ranking.answered(word, None, shown);
            tried.insert(word.to_lowercase());
        }
        // Two answers at 20 and none below: no cap is seen yet.
        assert_eq!(ranking.cap(), None);
        ranking.sent("Zeta");
        ranking.answered("Zeta", None, 7);
        tried.insert("zeta".into());
        assert_eq!(ranking.cap(), None);
        ranking.sent("Gamma");
        ranking.answered("Gamma", None, 20);
        tried.insert("gamma".into());
        // Three answers end at 20, one below: 20 is the cap, and the
        // answers at it are cut (their hits unknown), the one below whole.
        assert_eq!(ranking.cap(), Some(20));
        assert!(ranking.capped((None, 20)));
        assert!(!ranking.capped((None, 7)));
        assert_eq!(ranking.hits_of("zeta"), Some(7));
        assert_eq!(ranking.hits_of("alpha"), None);
        // Only the whole answer scales the sample: Zeta, in one of the 6
        // values, found 7.
        let scale = ranking.scale().unwrap();
        assert!((scale - 7.0).abs() < 1e-9, "{scale}");
        // The probe narrows a capped word. Both ending at the cap tells
        // nothing: another pair is probed.
        let probe = ranking.next(&tried, 1);
        assert_eq!(probe.len(), 1);
        assert!(probe[0].contains(' '), "{probe:?}");
        tried.insert(probe[0].to_lowercase());
        ranking.answered(&probe[0], None, 20);
        assert_eq!(ranking.combines(), None);
        let second = ranking.next(&tried, 1);
        assert!(second[0].contains(' ') && second != probe, "{second:?}");
        tried.insert(second[0].to_lowercase());
        // Fewer rows than the first word's: the form combines words.
        ranking.answered(&second[0], None, 4);
        assert_eq!(ranking.combines(), Some(true));
        assert!(ranking
            .candidates(&tried)
            .iter()
            .any(|c| c.text.contains(' ')));
    }

    /// Ten values; "common" in 8 of them, "rare" and "other" in 1 each.
    fn trees() -> WordRanking {
        let mut values: Vec<String> = ["ash", "birch", "cedar", "elm", "fir", "lime", "oak", "yew"]
            .iter()
            .map(|tree| format!("common {tree}"))
            .collect();
        values.push("rare".into());
        values.push("other".into());
        WordRanking::new(values.iter().map(String::as_str))
    }

    #[test]
    fn the_scale_is_that_of_the_whole_answers_until_they_are_half_of_those_told() {
        let mut ranking = trees();
        // A capped answer states its word's hits over the whole database:
        // 400 for 8 of 10 values, a ratio of 50. It alone gives no scale.
        ranking.sent("common");
        ranking.answered("common", Some(400), 50);
        assert_eq!(ranking.scale(), None);
        ranking.sent("oak");
        ranking.answered("oak", Some(300), 50);
        assert_eq!(ranking.scale(), None);
        // A whole answer: "rare", in 1 of 10 values, found 20 (ratio 20),
        // one of three: its ratio alone.
        ranking.sent("rare");
        ranking.answered("rare", Some(20), 20);
        assert_eq!(ranking.scale(), Some(20.0));
        // Two whole answers of four: every ratio counts (300, 50, 30, 20),
        // the median the upper middle one.
        ranking.sent("other");
        ranking.answered("other", Some(30), 30);
        assert_eq!(ranking.scale(), Some(50.0));
    }

    #[test]
    fn where_capped_answers_list_a_gathered_head_the_scale_leans_toward_every_answers() {
        let mut ranking = trees();
        // Ratios 50 and 300 (capped), 20 (whole): one whole answer of
        // three, so its ratio alone while the answers show no head.
        for (word, hits, shown) in [("common", 400, 50), ("oak", 300, 50), ("rare", 20, 20)] {
            ranking.sent(word);
            ranking.answered(word, Some(hits), shown);
        }
        assert_eq!(ranking.scale(), Some(20.0));
        // Capped answers that showed their first rows gathered as far as
        // the head bound says: the fit leans 0.8 toward the head, and the
        // scale as far toward every answer's median (50).
        ranking.head_fit = (1.0, 1.0);
        assert!((ranking.head_weight() - 0.8).abs() < 1e-9);
        let leaned = (0.2 * 20f64.ln() + 0.8 * 50f64.ln()).exp();
        assert!((ranking.scale().unwrap() - leaned).abs() < 1e-9);
        // Once the whole answers are half of those told, every answer's.
        ranking.sent("other");
        ranking.answered("other", Some(30), 30);
        assert_eq!(ranking.scale(), Some(50.0));
    }

    #[test]
    fn where_answers_are_capped_a_word_beside_words_gathered_whole_is_expected_to_bring_little() {
        let values = [
            "deep pine",
            "deep fir",
            "wide one",
            "wide two",
            "wide three",
            "rare",
        ];
        let mut ranking = WordRanking::new(values);
        // "wide" is capped (500 hits, 50 shown); "rare" and "deep" came
        // back whole: the sample's scale is 20 database rows a value.
        for (word, hits, shown) in [("wide", 500, 50), ("rare", 20, 20), ("deep", 2, 2)] {
            ranking.sent(word);
            ranking.answered(word, Some(hits), shown);
        }
        assert_eq!(ranking.scale(), Some(20.0));
        let tried: HashSet<String> = ["wide", "rare", "deep"].map(String::from).into();
        let expected = |text: &str| {
            ranked(&ranking, &tried)
                .into_iter()
                .find(|(t, _)| t == text)
                .map(|(_, e)| e)
                .unwrap()
        };
        // Every row of "deep" is gathered (2 hits, 2 values): a word found
        // only beside it has its rows gathered too, whatever the sample's
        // scale says elsewhere; a word beside the capped "wide" has not.
        assert!(expected("pine") < 0.5, "{}", expected("pine"));
        assert!(expected("one") > 10.0, "{}", expected("one"));
    }

    #[test]
    fn where_capped_answers_list_a_gathered_head_a_words_own_rows_count_less_beside_it() {
        let mut ranking = WordRanking::new(["wide one", "other", "more", "less"]);
        // "wide" held by 1 value of 4 when sent; its capped answer (400
        // hits) brings 4 values that hold it: 5 of 8 now.
        ranking.sent("wide");
        ranking.answered("wide", Some(400), 50);
        ranking.add(["wide two", "wide three", "wide four", "wide five"]);
        let beside = |ranking: &WordRanking| ranking.local_scales()["one"].0;
        // No head shown: its hits against its values now (400 / 5).
        assert!((beside(&ranking) - 80.0).abs() < 1e-9);
        // Answers that lean 0.8 toward the head: as far toward its values
        // when sent, grown with the sample (400 / (1 * 8 / 4) = 200).
        ranking.head_fit = (1.0, 1.0);
        let leaned = (0.2 * 80f64.ln() + 0.8 * 200f64.ln()).exp();
        assert!((beside(&ranking) - leaned).abs() < 1e-9);
    }

    #[test]
    fn learning_stops_early_only_when_the_answers_went_over_what_is_gathered() {
        let dry = |unprofitable, shown_again, best| Progress {
            unprofitable,
            shown_again,
            gathered: 60,
            best,
        };
        // Ten queries without a new value that showed the 60 values
        // gathered again, and no word expected to bring a row: stop.
        let why = stop_reason(dry(10, Some(60), Some(0.2))).unwrap();
        assert!(why.contains("10 queries in a row"), "{why}");
        // Fewer queries, fewer values shown again, a word still promising,
        // no estimate, or values not told: go on.
        assert_eq!(stop_reason(dry(9, Some(90), Some(0.0))), None);
        assert_eq!(stop_reason(dry(12, Some(59), Some(0.0))), None);
        assert_eq!(stop_reason(dry(12, Some(90), Some(1.0))), None);
        assert_eq!(stop_reason(dry(12, Some(90), None)), None);
        assert_eq!(stop_reason(dry(12, None, Some(0.0))), None);
        // Twenty-five in a row stop whatever the estimates say.
        let why = stop_reason(dry(UNPROFITABLE_RUN, None, Some(50.0))).unwrap();
        assert!(why.contains("25 queries in a row"), "{why}");
    }

    #[test]
    fn two_words_sent_together_are_not_sent_again_the_other_way_round() {
        let values = [
            "Alpha Beta Gamma",
            "Alpha Beta",
            "Alpha Delta",
            "Beta Delta",
        ];
        let mut ranking = WordRanking::new(values);
        for (query, hits) in [("Alpha", 8), ("Beta", 8)] {
            ranking.sent(query);
            ranking.answered(query, Some(hits), 3);
        }
        ranking.sent("Alpha Beta");
        ranking.answered("Alpha Beta", Some(4), 3);
        assert_eq!(ranking.combines(), Some(true));
        let tried: HashSet<String> = ["alpha", "beta", "alpha beta"].map(String::from).into();
        let texts: Vec<String> = ranking
            .candidates(&tried)
            .into_iter()
            .map(|c| c.text)
            .collect();
        // Both capped words are narrowed, but not by each other again.
        assert!(texts.contains(&"Beta Delta".to_string()), "{texts:?}");
        assert!(!texts.contains(&"Beta Alpha".to_string()), "{texts:?}");
    }

    /// Twenty values: Alpha in 4, Beta in 5, Delta in 3, Gamma in 2, the
    /// rest single words. Alpha stated 40 hits and showed 10, Kappa 10:
    /// the cap is 10, the database ten times the sample, and every word
    /// capped.
    fn capped_words(beta_new_rows: u64) -> Vec<(String, f64)> {
        let mut values = Vec::new();
        for (word, n) in [("Alpha", 4), ("Beta", 5), ("Delta", 3), ("Gamma", 2)] {
            values.extend(std::iter::repeat_n(word.to_string(), n));
        }
        values.extend(["Kappa", "Lambda", "Sigma", "Omicron", "Rho", "Theta"].map(String::from));
        let mut ranking = WordRanking::new(values.iter().map(String::as_str));
        ranking.sent("Alpha");
        ranking.answered("Alpha", Some(40), 10);
        // A whole answer as many times the sample: the scale is 10.
        ranking.sent("Kappa");
        ranking.answered("Kappa", Some(10), 10);
        let mut tried: HashSet<String> = ["alpha", "kappa"].map(String::from).into();
        // Delta (30 hits) and Gamma (20) are both expected at the cap
        // times the share not gathered, 9 rows.
        let before = ranked(&ranking, &tried);
        let at = |list: &[(String, f64)], w: &str| list.iter().find(|c| c.0 == w).unwrap().1;
        assert_eq!((at(&before, "Delta"), at(&before, "Gamma")), (9.0, 9.0));
        assert_eq!(ranking.next(&tried, 1), ["Beta"]);
        tried.insert("beta".into());
        ranking.answered("Beta", Some(50), 10);
        ranking.gained("Beta", beta_new_rows, beta_new_rows);
        ranked(&ranking, &tried)
            .into_iter()
            .filter(|c| c.0 == "Delta" || c.0 == "Gamma")
            .collect()
    }

    #[test]
    fn capped_words_just_above_the_cap_come_first_where_answers_list_a_gathered_head() {
        // Beta's answer showed 5 of its 10 rows gathered, as many as the
        // sample holds of Beta: the answers list the rows the sample is
        // thick in (the newest first). A word with fewer hits reaches
        // deeper into that order: Gamma has more new rows to show.
        let head = capped_words(5);
        assert_eq!(head[0].0, "Gamma", "{head:?}");
        assert!(head[0].1 > head[1].1 + 0.3, "{head:?}");
        // Beta's answer showed 1 of 10 gathered, its share of the sample's
        // rows: the order is its own per search, and the two words are
        // expected alike (the tie goes to the more frequent).
        let even = capped_words(9);
        assert_eq!(even[0].0, "Delta", "{even:?}");
        assert!((even[0].1 - even[1].1).abs() < 1e-9, "{even:?}");
    }

    #[test]
    fn where_values_fall_into_parts_the_leading_words_not_sent_come_first() {
        let chevrolet = [
            "chevrolet malibu",
            "chevrolet malibu wagon",
            "chevrolet nova",
            "chevrolet nova custom",
            "chevrolet impala",
            "chevrolet impala custom",
            "chevrolet vega",
            "chevrolet vega wagon",
        ];
        let mut ranking = WordRanking::new(chevrolet);
        ranking.sent("chevrolet");
        ranking.answered("chevrolet", None, 8);
        ranking.sent("custom");
        ranking.answered("custom", None, 4);
        // Custom reached two makes no answer showed before.
        ranking.add(["ford custom", "plymouth fury custom", "ford wagon"]);
        let tried: HashSet<String> = ["chevrolet", "custom"].map(String::from).into();
        let ranked = ranking.candidates(&tried);
        // Each make is expected to bring a part as large as chevrolet's
        // (8 hits), less what is gathered of it.
        assert_eq!(ranked[0].text, "plymouth");
        assert_eq!(ranked[0].kind, Kind::Lead);
        assert!((ranked[0].expected - 7.0).abs() < 1e-9, "{ranked:?}");
        assert_eq!(ranked[1].text, "ford");
        assert!((ranked[1].expected - 6.0).abs() < 1e-9, "{ranked:?}");
        // Wagon, found under two makes, may reach makes not seen; malibu,
        // twice under chevrolet, whose answer showed every row, brings
        // nothing (the sample alone promises it some rows).
        let of = |text: &str| ranked.iter().find(|c| c.text == text).unwrap();
        assert_eq!(ranked[2].text, "wagon");
        assert!(of("wagon").expected >= 1.0, "{ranked:?}");
        assert_eq!(of("malibu").expected, 0.0);
        assert!(of("malibu").sample > 0.0);
    }

    #[test]
    fn the_best_expectation_is_that_of_the_last_ranking() {
        let mut ranking = WordRanking::new(["Alpha Beta", "Alpha Gamma", "Beta"]);
        assert_eq!(ranking.best_expected(), None);
        ranking.sent("Alpha");
        ranking.answered("Alpha", Some(2), 2);
        let tried: HashSet<String> = ["alpha".to_string()].into();
        // Whole answers the sample holds: nothing new is expected.
        assert_eq!(ranking.next(&tried, 1), ["Beta"]);
        assert_eq!(ranking.best_expected(), Some(0.0));
        assert_eq!(ranking.gathered(), 3);
        let all: HashSet<String> = ["alpha", "beta", "gamma"].map(String::from).into();
        assert!(ranking.next(&all, 1).is_empty());
        assert_eq!(ranking.best_expected(), None);
    }
}

//! A source's history across refreshes (`gather refresh`): what each
//! query's first result page said (its validators and digest, to ask
//! again conditionally), and per record when it was first seen, last seen,
//! changed and gone; per value of the index fragments when it was first
//! seen, last seen and gone. Both back-ends keep it in the same columns
//! (schema versions 9 and 10 in SQLite, 7 and 8 in PostgreSQL); times are
//! milliseconds since the Unix epoch, by the database's clock.
//!
//! A record's identity across answers is its key ([`crate::record::Fields::key`]):
//! a record whose key stays while another field changes is *changed*, one
//! whose key is new is *new*, and one the query that found it first no
//! longer shows in a whole answer is *gone*.
//!
//! The values of the index fragments keep a history too: first seen, last
//! seen, and gone. A value is seen when an answer records it, or when an
//! unchanged answer shows again a record that holds it. The values of
//! records gone in a refresh and the old values of changed fields are the
//! *candidates*: one that no live record of the source holds, and that
//! the refresh did not see, is gone (at the refresh's start). Values no
//! record holds (a source without records, a rule that makes none) are
//! never candidates, and values a query did not find first (those the
//! provider lists) never go: neither is ever gone. A gone value seen
//! again is live again.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::ControlFlow;

use super::{SourceId, Store, StoreError, StoredRecord};
use crate::fetch::Validators;
use crate::record::{Fields, Record};

/// What a query's first result page said: asked again, the same
/// validators give a 304, the same digest an unchanged answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AnswerMark {
    pub validators: Validators,
    /// SHA-256 of the first page's body, in hex.
    pub digest: String,
    /// The page limit cut the answer short (read, not written, with the
    /// mark: the query's own column).
    pub cut_short: bool,
    /// How long the query waits between two refreshes (milliseconds),
    /// once a refresh has scheduled it ([`next_interval`]).
    pub interval: Option<i64>,
}

/// The first wait between two refreshes of a query: a day.
pub const FIRST_INTERVAL: i64 = 24 * 3600 * 1000;
/// The shortest wait: an hour.
pub const MIN_INTERVAL: i64 = 3600 * 1000;
/// The longest wait: 30 days.
pub const MAX_INTERVAL: i64 = 30 * 24 * 3600 * 1000;

/// The next wait between two refreshes of a query, from its last one and
/// whether its answer changed: Nutch's adaptive schedule (an answer that
/// changed is asked 20 % sooner, one that did not 40 % later), within
/// [`MIN_INTERVAL`] and [`MAX_INTERVAL`], from [`FIRST_INTERVAL`].
pub fn next_interval(last: Option<i64>, changed: bool) -> i64 {
    let last = last.unwrap_or(FIRST_INTERVAL) as f64;
    let next = if changed { last * 0.8 } else { last * 1.4 };
    (next as i64).clamp(MIN_INTERVAL, MAX_INTERVAL)
}

/// When a source's queries are due for a refresh ([`Store::schedule`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Schedule {
    /// Done queries a refresh has scheduled.
    pub scheduled: u64,
    /// Done queries due now: scheduled for now or earlier, or never
    /// refreshed.
    pub due: u64,
    /// When the next scheduled query not due yet is (milliseconds since
    /// 1970).
    pub next: Option<i64>,
}

/// A refresh of a source begun ([`Store::begin_refresh`]).
#[derive(Debug, Clone, Default)]
pub struct RefreshStart {
    /// When it began (milliseconds, the database's clock): a record not
    /// seen since is not in this refresh's answers.
    pub since: i64,
    /// The source's answered queries and what their first pages said.
    pub marks: HashMap<String, AnswerMark>,
    /// A refresh begun before and interrupted goes on (the queries it
    /// finished are not sent again).
    pub resumed: bool,
}

/// How a query of a refresh is recorded ([`super::QueryOutcome::refresh`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refreshing {
    /// [`RefreshStart::since`].
    pub since: i64,
    /// The answer is the one seen before (a 304, or the same first page):
    /// its records are seen again as they were.
    pub unchanged: bool,
    /// The answer was walked whole in this refresh, or, unchanged, read
    /// whole from its kept pages: the records the query found first and
    /// did not show again are gone.
    pub whole: bool,
    /// The query's last wait between refreshes ([`AnswerMark::interval`]).
    pub interval: Option<i64>,
}

/// What a refresh changed in a source's records.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Changes {
    /// When the refresh began (milliseconds since the epoch): what
    /// `gather export --changes-since` takes to write these changes.
    pub since: i64,
    pub new: u64,
    pub changed: u64,
    pub gone: u64,
    /// Per attribute (field): records new with it, changed in it, gone
    /// with it.
    pub by_attribute: BTreeMap<String, AttributeChanges>,
}

/// [`Changes`] of one attribute.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct AttributeChanges {
    pub new: u64,
    pub changed: u64,
    pub gone: u64,
    /// Values of the attribute that left the index fragments: no live
    /// record holds them any more (see the module's doc).
    pub values_gone: u64,
}

/// What happened to a record since a time, as a search index applies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeOp {
    Add,
    Update,
    Delete,
}

/// A record's row with its history, as the back-ends read it.
#[derive(Debug, Clone)]
pub(super) struct HistoryRow {
    pub record: StoredRecord,
    pub first_seen: Option<i64>,
    pub changed_at: Option<i64>,
    /// JSON list of the field names that changed last.
    pub changed_fields: Option<String>,
    pub gone_at: Option<i64>,
}

impl HistoryRow {
    /// What happened to the record since `since`, if anything an index
    /// that holds the state before `since` must apply.
    fn op(&self, since: i64) -> Option<ChangeOp> {
        let before = self.first_seen.is_none_or(|t| t < since);
        match (self.gone_at, before) {
            (Some(gone), true) if gone >= since => Some(ChangeOp::Delete),
            (Some(_), _) => None,
            (None, false) => Some(ChangeOp::Add),
            (None, true) if self.changed_at.is_some_and(|t| t >= since) => Some(ChangeOp::Update),
            (None, true) => None,
        }
    }
}

/// The field names whose values differ between two records' fields.
pub(super) fn changed_fields(before: &Fields, after: &Fields) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (name, _) in before.0.iter().chain(after.0.iter()) {
        if before.get(name) != after.get(name) && !names.contains(name) {
            names.push(name.clone());
        }
    }
    names
}

/// (attribute, value) pairs of the index fragments.
pub(super) type ValuePairs = BTreeSet<(String, String)>;

/// The values a record's fields hold, as the index fragments keep them: a
/// field `attribute.0` of a rule ending in a fork under `attribute` (and,
/// as it cannot be told apart from an attribute of that name, under its
/// own name too).
pub(super) fn held_values(fields: &Fields) -> ValuePairs {
    let mut pairs = ValuePairs::new();
    for (name, field) in &fields.0 {
        let fork = name
            .rsplit_once('.')
            .filter(|(_, branch)| !branch.is_empty() && branch.bytes().all(|b| b.is_ascii_digit()))
            .map(|(attribute, _)| attribute);
        for value in field.values() {
            pairs.insert((name.clone(), value.clone()));
            if let Some(attribute) = fork {
                pairs.insert((attribute.to_string(), value.clone()));
            }
        }
    }
    pairs
}

/// [`held_values`] of fields as the store keeps them (JSON); none for
/// fields that do not read.
pub(super) fn held_values_json(fields: &str) -> ValuePairs {
    Fields::from_json(fields)
        .map(|f| held_values(&f))
        .unwrap_or_default()
}

/// The values a changed record held before and holds no more.
pub(super) fn dropped_values(before: &Fields, after: &Fields) -> ValuePairs {
    let after = held_values(after);
    held_values(before)
        .into_iter()
        .filter(|pair| !after.contains(pair))
        .collect()
}

/// What to look for in the fields (JSON) of the records that may hold one
/// of the `candidates`: each value as a JSON string, as the fields write
/// it. A record without any of them holds none of the candidates; one
/// with some is read ([`held_values_json`]) to be sure.
pub(super) fn needles(candidates: &ValuePairs) -> Vec<String> {
    let values: BTreeSet<&str> = candidates.iter().map(|(_, v)| v.as_str()).collect();
    values
        .into_iter()
        .map(|v| serde_json::Value::from(v).to_string())
        .collect()
}

/// The `candidates` none of the records' fields (JSON) `holding` holds.
pub(super) fn not_held(
    mut candidates: ValuePairs,
    holding: impl IntoIterator<Item = String>,
) -> ValuePairs {
    for fields in holding {
        if candidates.is_empty() {
            break;
        }
        let held = held_values_json(&fields);
        candidates.retain(|pair| !held.contains(pair));
    }
    candidates
}

/// A record to refresh, with its key.
pub(super) type KeyedRecord<'a> = (&'a Record, String);

impl Store {
    /// Begins a refresh of the source: gives every stored record its key,
    /// reads what the first pages of its answered queries said, and opens
    /// its done queries again (state pending, their values and records
    /// kept) so that the refresh sends them. A refresh begun and not ended
    /// ([`Store::end_refresh`]) is resumed instead: the same start, and
    /// the queries it finished stay done.
    /// With `due_only`, only the queries due ([`Store::schedule`]) are
    /// opened; the others stay done and are not sent.
    pub fn begin_refresh(
        &mut self,
        source: SourceId,
        due_only: bool,
    ) -> Result<RefreshStart, StoreError> {
        let unkeyed = self.backend.records_without_key(source)?;
        let mut keys = Vec::with_capacity(unkeyed.len());
        for (id, fields) in unkeyed {
            let fields = Fields::from_json(&fields).map_err(|e| StoreError::Corrupt {
                path: self.path().to_path_buf(),
                message: format!("a record of source {source} has unreadable fields: {e}"),
            })?;
            keys.push((id, fields.key()));
        }
        self.backend.set_record_keys(&keys)?;
        self.backend.open_for_refresh(source, due_only)
    }

    /// Ends the source's refresh: the next one begins anew. A refresh not
    /// ended (interrupted, or ended by an error) is resumed by the next
    /// [`Store::begin_refresh`].
    pub fn end_refresh(&mut self, source: SourceId) -> Result<(), StoreError> {
        self.backend.end_refresh(source)
    }

    /// When the source's done queries are due for a refresh.
    pub fn schedule(&self, source: SourceId) -> Result<Schedule, StoreError> {
        self.backend.schedule(source)
    }

    /// A refreshed query's next refresh: its wait ([`next_interval`]) from
    /// the refresh's start.
    pub(super) fn reschedule(
        &mut self,
        source: SourceId,
        key: &str,
        refreshing: Refreshing,
    ) -> Result<(), StoreError> {
        let interval = next_interval(refreshing.interval, !refreshing.unchanged);
        self.backend.set_schedule(
            source,
            key,
            interval,
            refreshing.since.saturating_add(interval),
        )
    }

    /// What changed in the source's records since `since`
    /// ([`RefreshStart::since`]): records new, changed and gone, in all and
    /// per attribute, with the values gone per attribute.
    pub fn changes(&self, source: SourceId, since: i64) -> Result<Changes, StoreError> {
        let mut changes = Changes {
            since,
            ..Changes::default()
        };
        for row in self.backend.history(Some(source), since)? {
            let Some(op) = row.op(since) else { continue };
            let names: Vec<String> = match op {
                ChangeOp::Update => row
                    .changed_fields
                    .as_deref()
                    .and_then(|json| serde_json::from_str(json).ok())
                    .unwrap_or_default(),
                _ => row
                    .record
                    .record
                    .fields
                    .0
                    .iter()
                    .map(|(n, _)| n.clone())
                    .collect(),
            };
            for name in names {
                let a = changes.by_attribute.entry(name).or_default();
                match op {
                    ChangeOp::Add => a.new += 1,
                    ChangeOp::Update => a.changed += 1,
                    ChangeOp::Delete => a.gone += 1,
                }
            }
            match op {
                ChangeOp::Add => changes.new += 1,
                ChangeOp::Update => changes.changed += 1,
                ChangeOp::Delete => changes.gone += 1,
            }
        }
        for (attribute, n) in self.backend.values_gone(source, since)? {
            changes
                .by_attribute
                .entry(attribute)
                .or_default()
                .values_gone = n;
        }
        Ok(changes)
    }

    /// Calls `each` with every record added, updated or gone since `since`
    /// (milliseconds since the epoch), sources in the order of their URLs,
    /// a source's records in the order they were first stored: a deleted
    /// record as it was last seen, another as it is now.
    pub fn each_change(
        &self,
        since: i64,
        mut each: impl FnMut(ChangeOp, StoredRecord) -> ControlFlow<()>,
    ) -> Result<(), StoreError> {
        for row in self.backend.history(None, since)? {
            if let Some(op) = row.op(since) {
                if each(op, row.record).is_break() {
                    break;
                }
            }
        }
        Ok(())
    }

    /// Records a refreshed query's records: seen again, changed (the same
    /// key, other fields), new; when the answer was walked whole, those
    /// the query found first and no longer shows are gone. Returns the
    /// positions of the records new to the source.
    pub(super) fn refresh_records(
        &mut self,
        source: SourceId,
        query_key: &str,
        records: &[Record],
        refreshing: Refreshing,
    ) -> Result<Vec<usize>, StoreError> {
        if refreshing.unchanged && !refreshing.whole {
            // Its pages were not all kept: the records it found first are
            // seen again as they were.
            self.backend
                .touch_records(source, query_key, refreshing.since)?;
            return Ok(Vec::new());
        }
        // A walked answer, or an unchanged one read again from its kept
        // pages: every record it shows is seen again, also one another
        // query found first (and not gone should that query's answer have
        // dropped it); when it is whole, the records it found first and no
        // longer shows are gone.
        let keyed: Vec<KeyedRecord<'_>> = records.iter().map(|r| (r, r.fields.key())).collect();
        self.backend
            .refresh_records(source, query_key, &keyed, refreshing)
    }
}

//! What a back-end of the gatherer database does: the one interface the
//! SQLite file ([`super::sqlite::Sqlite`]) and the PostgreSQL database
//! ([`super::postgres::Postgres`]) both implement, so that the compiler
//! holds them to the same methods. [`Store`] calls it; what each method
//! means is said on the [`Store`] method of the same name.
//!
//! The methods a shared plan needs (workers, leases, patience) are here
//! too: SQLite answers them as a database no worker shares does.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::ControlFlow;
use std::path::Path;
use std::time::Duration;

use super::history::{HistoryRow, KeyedRecord, RefreshStart, Refreshing, Schedule};
#[cfg(doc)]
use super::Store;
use super::{
    AnsweredAt, AnsweredQuery, Hit, KeptPage, PageRecord, PlannedQuery, QueryOutcome, Recorded,
    SourceId, SourceInfo, SourceRecord, SourceStats, Status, StoreError, StoredRecord,
};
use crate::fragment::IndexFragment;
use crate::record::Record;

/// A back-end of the gatherer database.
pub(super) trait Backend: Send {
    /// The file, or the PostgreSQL URL without its password.
    fn path(&self) -> &Path;
    /// The database is shared by workers (PostgreSQL).
    fn is_shared(&self) -> bool;
    /// [`Store::lock_for_gathering`].
    fn lock_for_gathering(&mut self) -> Result<(), StoreError>;
    /// [`Store::set_worker`].
    fn set_worker(&mut self, worker: &str);
    /// [`Store::set_patience`].
    fn set_patience(&mut self, patience: Duration);
    /// [`Store::plan_queries`].
    fn plan_queries(
        &mut self,
        source: SourceId,
        work: &str,
        queries: &mut dyn Iterator<Item = PlannedQuery>,
    ) -> Result<u64, StoreError>;
    /// How workers run the source's queries, when it was planned for them.
    fn work(&self, source: SourceId) -> Result<Option<String>, StoreError>;
    /// [`Store::status`].
    fn status(&self) -> Result<Status, StoreError>;
    /// [`Store::set_body_budget`].
    fn set_body_budget(&mut self, bytes: u64) -> Result<(), StoreError>;
    /// [`Store::bodies_dropped`].
    fn bodies_dropped(&self) -> u64;
    /// [`Store::rules`].
    fn rules(&self, source: SourceId) -> Result<Option<String>, StoreError>;
    /// [`Store::set_rules`].
    fn set_rules(&mut self, source: SourceId, rules: &str) -> Result<(), StoreError>;
    /// [`Store::surfaced_spec`].
    fn surfaced_spec(&self, url: &str) -> Result<Option<String>, StoreError>;
    /// [`Store::set_surfaced_spec`].
    fn set_surfaced_spec(&mut self, source: SourceId, spec: &str) -> Result<(), StoreError>;
    /// [`Store::forget_queries`].
    fn forget_queries(&mut self, source: SourceId) -> Result<(), StoreError>;
    /// [`Store::pages_not_kept`].
    fn pages_not_kept(&self, source: SourceId) -> Result<u64, StoreError>;
    /// [`Store::kept_pages`].
    /// (With `query`, that query's pages, done or not.) How many of their
    /// pages were not kept, too.
    fn kept_pages(
        &self,
        source: SourceId,
        query: Option<&str>,
    ) -> Result<(Vec<KeptPage>, u64), StoreError>;
    /// [`Store::replace_query_values`].
    fn replace_query_values(
        &mut self,
        source: SourceId,
        by_query: &[(String, IndexFragment, Vec<Record>)],
    ) -> Result<u64, StoreError>;
    /// [`Store::reopen_queries`].
    fn reopen_queries(&mut self, source: SourceId) -> Result<(), StoreError>;
    /// [`Store::upsert_source`].
    fn upsert_source(&mut self, info: &SourceInfo) -> Result<SourceId, StoreError>;
    /// [`Store::finished_queries`].
    fn finished_queries(&self, source: SourceId) -> Result<HashSet<String>, StoreError>;
    /// [`Store::record_query_new`]; with `patient` false, a lost database
    /// is not waited for ([`Store::record_query_at_once`]).
    fn record_query_new(
        &mut self,
        source: SourceId,
        outcome: &QueryOutcome,
        patient: bool,
    ) -> Result<Recorded, StoreError>;
    /// At most `limit` of the source's answered queries after the position
    /// `after`, in order: one batch of [`Store::each_answered`].
    fn answered_after(
        &self,
        source: SourceId,
        after: (i64, i64),
        limit: usize,
    ) -> Result<Vec<AnsweredAt>, StoreError>;
    /// [`Store::answered_among`].
    fn answered_among(
        &self,
        source: SourceId,
        keys: &[String],
    ) -> Result<Vec<AnsweredQuery>, StoreError>;
    /// [`Store::finished_among`].
    fn finished_among(
        &self,
        source: SourceId,
        keys: &[String],
    ) -> Result<HashSet<String>, StoreError>;
    /// [`Store::finished_count`].
    fn finished_count(&self, source: SourceId) -> Result<u64, StoreError>;
    /// [`Store::query_values`].
    fn query_values(&self, source: SourceId) -> Result<Vec<String>, StoreError>;
    /// [`Store::query_counts`].
    fn query_counts(&self, source: SourceId) -> Result<(u64, u64), StoreError>;
    /// [`Store::values_found_by`].
    fn values_found_by(
        &self,
        source: SourceId,
        keys: &[String],
    ) -> Result<Vec<(String, String)>, StoreError>;
    /// [`Store::checkpoints`].
    fn checkpoints(&self, source: SourceId) -> Result<HashMap<String, String>, StoreError>;
    /// [`Store::record_values`].
    fn record_values(
        &mut self,
        source: SourceId,
        provenance: Option<&str>,
        fragment: &IndexFragment,
    ) -> Result<u64, StoreError>;
    /// [`Store::record_page`].
    fn record_page(&mut self, source: SourceId, page: &PageRecord) -> Result<(), StoreError>;
    /// [`Store::set_incomplete`].
    fn set_incomplete(&mut self, source: SourceId, reason: Option<&str>) -> Result<(), StoreError>;
    /// [`Store::stats`].
    fn stats(&self, source: SourceId) -> Result<SourceStats, StoreError>;
    /// [`Store::sources`].
    fn sources(&self) -> Result<Vec<SourceRecord>, StoreError>;
    /// [`Store::values`].
    fn values(&self, source: SourceId) -> Result<BTreeMap<String, Vec<String>>, StoreError>;
    /// [`Store::attribute_values`].
    fn attribute_values(
        &self,
        source: SourceId,
        attribute: &str,
    ) -> Result<Vec<String>, StoreError>;
    /// [`Store::record_count`].
    fn record_count(&self, source: SourceId) -> Result<u64, StoreError>;
    /// [`Store::each_record`]: `each` breaks to stop early (its caller
    /// keeps why).
    fn each_record(
        &self,
        each: &mut dyn FnMut(StoredRecord) -> ControlFlow<()>,
    ) -> Result<(), StoreError>;
    /// [`Store::search`].
    fn search(&self, term: &str) -> Result<Vec<Hit>, StoreError>;
    /// The source's records without a key yet: (row id, fields as JSON).
    fn records_without_key(&self, source: SourceId) -> Result<Vec<(i64, String)>, StoreError>;
    /// Gives records (by row id) their keys.
    fn set_record_keys(&mut self, keys: &[(i64, String)]) -> Result<(), StoreError>;
    /// The rest of [`Store::begin_refresh`]: the time, the marks of the
    /// answered queries, the done queries opened again (unless a refresh
    /// of the source was begun and not ended: it goes on).
    fn open_for_refresh(
        &mut self,
        source: SourceId,
        due_only: bool,
    ) -> Result<RefreshStart, StoreError>;
    /// [`Store::end_refresh`].
    fn end_refresh(&mut self, source: SourceId) -> Result<(), StoreError>;
    /// [`Store::schedule`].
    fn schedule(&self, source: SourceId) -> Result<Schedule, StoreError>;
    /// A query's wait between refreshes and when it is due next.
    fn set_schedule(
        &mut self,
        source: SourceId,
        key: &str,
        interval: i64,
        due_at: i64,
    ) -> Result<(), StoreError>;
    /// The records a query found first are seen again, unchanged, and the
    /// values they hold (those not seen since `since`), in one transaction.
    fn touch_records(
        &mut self,
        source: SourceId,
        query_key: &str,
        since: i64,
    ) -> Result<(), StoreError>;
    /// The values of a refreshed answer are seen (those not seen since
    /// `since`): a gone one is live again.
    fn see_values(
        &mut self,
        source: SourceId,
        fragment: &IndexFragment,
        since: i64,
    ) -> Result<(), StoreError>;
    /// [`Store::refresh_records`] for an answer that changed, in one
    /// transaction, with the values the records changed or gone held and
    /// no live record holds now marked gone.
    fn refresh_records(
        &mut self,
        source: SourceId,
        query_key: &str,
        records: &[KeyedRecord<'_>],
        refreshing: Refreshing,
    ) -> Result<Vec<usize>, StoreError>;
    /// How many of the source's values are gone at or after `since`, per
    /// attribute.
    fn values_gone(&self, source: SourceId, since: i64) -> Result<Vec<(String, u64)>, StoreError>;
    /// The records (of one source, or all) first seen, changed or gone at
    /// or after `since`, sources in the order of their URLs, a source's
    /// records in the order they were first stored.
    fn history(&self, source: Option<SourceId>, since: i64) -> Result<Vec<HistoryRow>, StoreError>;
}

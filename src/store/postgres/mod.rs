//! The PostgreSQL back-end of the gatherer database, shared by workers on
//! many machines.
//!
//! The tables hold what the SQLite file holds (sources, queries with their
//! state and checkpoint, pages, kept bodies, distinct values with their
//! provenance, records); full-text search runs on `tsvector` columns
//! ('simple' configuration over the words [`search_words`] folds). Beside
//! them: the planned request of every query and its lease (`leased_by`,
//! `lease_until`), the workers and when they were last seen, and the
//! politeness of every provider host (a request holds one of its host's
//! slots, a session-level advisory lock on (hash of the host, slot number),
//! which the server frees when the worker's connection ends, however it
//! ends; `host_turns`: when the next request to a host may start).
//!
//! [`schema`] holds the tables and their migrations; [`Postgres`]
//! ([`store`]) is the store's back-end (blocking calls, as the store's
//! users make them); [`SharedPlan`] ([`shared_plan`]) is the workers' side
//! (async): claiming, renewing and releasing leases, and the per-host slots
//! the fetcher asks for. Each has its own connection, so that a lease is
//! renewed while a query's transaction runs. This module keeps what they
//! share: connecting, telling a lost connection from a failed statement,
//! prepared statements, and the words search sees.

use std::collections::HashMap;
use std::time::Duration;

use tokio_postgres::{Client, GenericClient, NoTls, Statement};
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

use super::StoreError;
use crate::fragment::normalize;

mod schema;
mod shared_plan;
mod store;

pub use shared_plan::{Claim, OtherWork, SharedPlan};
pub(super) use store::Postgres;

/// Longest text whose words are indexed for search (a `tsvector` holds at
/// most 1 MiB).
const MAX_INDEXED_CHARS: usize = 100_000;

/// The words of `text` as search sees them: lower case, diacritics of
/// Latin letters removed, anything but letters and digits a separator;
/// joined by single spaces.
fn search_words(text: &str) -> String {
    let folded: String = text
        .nfd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .take(MAX_INDEXED_CHARS)
        .collect();
    folded
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A `tsquery` matching `term`'s words as a phrase, the last one as a
/// prefix when the term ends in `*`. `None` when the term has no word.
fn ts_query(term: &str) -> Option<String> {
    let normalized = normalize(term);
    let (body, prefix) = match normalized.strip_suffix('*') {
        Some(rest) => (rest.trim_end(), true),
        None => (normalized.as_str(), false),
    };
    let words = search_words(body);
    if words.is_empty() {
        return None;
    }
    // Only letters and digits are left: nothing to quote.
    let mut query = words.split(' ').collect::<Vec<_>>().join(" <-> ");
    if prefix {
        query.push_str(":*");
    }
    Some(query)
}

/// The URL without its password, as messages show it.
fn shown(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) => {
            let _ = parsed.set_password(None);
            parsed.to_string()
        }
        Err(_) => "the PostgreSQL database".to_string(),
    }
}

fn message(error: &tokio_postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => {
            let mut text = error.to_string();
            let mut source = std::error::Error::source(error);
            while let Some(cause) = source {
                text.push_str(&format!(": {cause}"));
                source = cause.source();
            }
            text
        }
    }
}

fn pg_err(
    db: &str,
    context: impl Into<String>,
) -> impl FnOnce(tokio_postgres::Error) -> StoreError {
    let db = db.to_string();
    let context = context.into();
    move |e| StoreError::Postgres {
        db,
        context,
        message: message(&e),
    }
}

/// Prepared statements by their SQL, for one connection: a statement is
/// parsed and planned once, then sent in one round trip.
#[derive(Default)]
struct Statements(std::sync::Mutex<HashMap<&'static str, Statement>>);

impl Statements {
    async fn get<C: GenericClient + Sync>(
        &self,
        client: &C,
        sql: &'static str,
    ) -> Result<Statement, tokio_postgres::Error> {
        let known = self
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(sql)
            .cloned();
        if let Some(statement) = known {
            return Ok(statement);
        }
        let statement = client.prepare(sql).await?;
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(sql, statement.clone());
        Ok(statement)
    }
}

/// Connects to `url`; the connection is driven on a thread of its own, so
/// that the client can be used from any thread, inside an async runtime or
/// not.
fn connect(url: &str) -> Result<Client, StoreError> {
    let (sender, receiver) = std::sync::mpsc::channel();
    let target = url.to_string();
    let spawned = std::thread::Builder::new()
        .name("gather-postgres".into())
        .spawn(move || {
            let runtime = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(runtime) => runtime,
                Err(e) => {
                    let _ = sender.send(Err(format!("cannot start its runtime: {e}")));
                    return;
                }
            };
            runtime.block_on(async move {
                match tokio_postgres::connect(&target, NoTls).await {
                    Ok((client, connection)) => {
                        let _ = sender.send(Ok(client));
                        // Ends when the client is dropped.
                        let _ = connection.await;
                    }
                    Err(e) => {
                        let _ = sender.send(Err(message(&e)));
                    }
                }
            });
        });
    let failed = |message: String| StoreError::Connect {
        db: shown(url),
        message,
    };
    spawned.map_err(|e| failed(format!("cannot start a thread: {e}")))?;
    receiver
        .recv()
        .map_err(|_| failed("the connection thread ended".into()))?
        .map_err(failed)
}

/// True when `error` says the connection to the server is gone (closed,
/// broken, the server shutting down or starting up), rather than that a
/// statement failed: the work is tried again on a new connection.
fn is_lost(error: &tokio_postgres::Error) -> bool {
    if error.is_closed() {
        return true;
    }
    if let Some(code) = error.code() {
        let code = code.code();
        return code.starts_with("08") || matches!(code, "57P01" | "57P02" | "57P03");
    }
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if cause.is::<std::io::Error>() {
            return true;
        }
        source = cause.source();
    }
    false
}

/// The pauses between two attempts to reach a lost database: 100 ms,
/// doubling up to 2 s (an attempt is one refused connection: cheap, and
/// the work goes on soon after the database is back).
pub(crate) fn next_pause(pause: Duration) -> Duration {
    (pause * 2).clamp(Duration::from_millis(100), Duration::from_secs(2))
}

/// Why a connection could not be made, without the database's name.
fn unreached(error: StoreError) -> String {
    match error {
        StoreError::Connect { message, .. } => message,
        other => other.to_string(),
    }
}

/// Tells the operator that the database went away and is waited for.
fn waiting(db: &str, lost: &str, context: &str, patience: Duration) {
    tracing::warn!(
        "gatherer database {db}: {lost} while {context}; waiting up to {} s for it to come back",
        patience.as_secs()
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_words_fold_case_and_diacritics_and_split_on_punctuation() {
        assert_eq!(
            search_words("Rügen, Ostseebad-Binz 3.5"),
            "rugen ostseebad binz 3 5"
        );
        assert_eq!(search_words("  ÉTÉ "), "ete");
    }

    #[test]
    fn ts_query_is_a_phrase_with_an_optional_prefix() {
        assert_eq!(
            ts_query("Ostseebad Binz").as_deref(),
            Some("ostseebad <-> binz")
        );
        assert_eq!(ts_query("Rüg*").as_deref(), Some("rug:*"));
        assert_eq!(ts_query("'&|!").as_deref(), None);
    }

    /// A worker's refreshed query stays held until its records are stored:
    /// the planner, which reads the refresh's changes once no query is
    /// held, never counts before them. Another session holds the row of
    /// the record the answer shows again, so that the worker's refresh
    /// waits on it; while it waits, the query must still be held.
    #[cfg(feature = "demo")]
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_refreshed_query_is_held_until_its_records_are_stored() {
        use crate::store::parity::{hotel, outcome, provider};
        use crate::store::{Location, PlannedQuery, QueryState, Refreshing, Store};

        let server = crate::demo::postgres::LocalPostgres::start()
            .unwrap_or_else(|e| panic!("PostgreSQL for the tests: {e}"));
        let db = server.database("held").unwrap();
        let location = Location::Postgres(db.clone());
        let mut planner = Store::open_at(&location).unwrap();
        let source = provider(&mut planner);
        let planned = PlannedQuery {
            key: "k".into(),
            ordinal: 0,
            description: "q=k".into(),
            request: r#"{"method":"Get","url":"http://provider.test/r?q=k","body":null,"content_type":null}"#.into(),
            values: None,
            parent: None,
            learned: false,
        };
        planner
            .plan_queries(source, "{}", [planned].into_iter())
            .unwrap();
        let lease = Duration::from_secs(30);
        let first = SharedPlan::connect(&db, "first", lease).unwrap();
        let second = SharedPlan::connect(&db, "second", lease).unwrap();
        let mut worker = Store::open_at(&location).unwrap();
        worker.set_worker("first");
        first.claim().await.unwrap().expect("the planned query");
        let mut answer = outcome("k", 0, QueryState::Done, &[]);
        answer.records = vec![hotel("1", "Arkona", "40")];
        worker.record_query(source, &answer).unwrap();

        // The refresh opens the query again; the worker claims it.
        let since = planner.begin_refresh(source, false).unwrap().since;
        first.claim().await.unwrap().expect("the query, open again");
        assert_eq!(second.other_work().await.unwrap().held, 1);

        let (blocker, connection) = tokio_postgres::connect(&db, NoTls).await.unwrap();
        tokio::spawn(connection);
        blocker
            .batch_execute("BEGIN; SELECT id FROM records FOR UPDATE")
            .await
            .unwrap();
        answer.records.push(hotel("2", "Kap", "60"));
        answer.refresh = Some(Refreshing {
            since,
            unchanged: false,
            whole: true,
            interval: None,
        });
        let recording = std::thread::spawn(move || worker.record_query(source, &answer));
        // Until the worker waits on the row the other session holds (or
        // ends, having written nothing it could not).
        let waited = std::time::Instant::now();
        loop {
            let waiting: i64 = blocker
                .query_one(
                    "SELECT count(*) FROM pg_stat_activity
                     WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
                    &[],
                )
                .await
                .unwrap()
                .get(0);
            if waiting > 0 || recording.is_finished() {
                break;
            }
            assert!(
                waited.elapsed() < Duration::from_secs(30),
                "the worker never waited for the record's row"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(
            second.other_work().await.unwrap().held,
            1,
            "the query was given back before its records were stored"
        );
        blocker.batch_execute("COMMIT").await.unwrap();
        recording.join().unwrap().unwrap();
        assert_eq!(second.other_work().await.unwrap().held, 0);
        let changes = planner.changes(source, since).unwrap();
        assert_eq!((changes.new, changes.changed, changes.gone), (1, 0, 0));
    }
}

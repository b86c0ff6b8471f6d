//! The records file of `gather -o`: the records new to the database,
//! appended as JSON Lines and flushed after every query.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::GatherError;
use crate::store::{QueryOutcome, StoredRecord};

/// The records file of `gather -o`: JSON Lines, appended (`-`: standard
/// output).
#[derive(Clone)]
pub(super) struct RecordSink {
    path: PathBuf,
    file: Arc<Mutex<std::io::BufWriter<Box<dyn std::io::Write + Send>>>>,
}

impl RecordSink {
    pub(super) fn open(path: &std::path::Path) -> Result<RecordSink, GatherError> {
        let file: Box<dyn std::io::Write + Send> = if path.as_os_str() == "-" {
            Box::new(std::io::stdout())
        } else {
            Box::new(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(|e| {
                        GatherError::Output(format!("records file {}: {e}", path.display()))
                    })?,
            )
        };
        Ok(RecordSink {
            path: path.to_path_buf(),
            file: Arc::new(Mutex::new(std::io::BufWriter::new(file))),
        })
    }

    /// Appends a query's new records and flushes.
    pub(super) fn write(
        &self,
        source: &str,
        outcome: &QueryOutcome,
        recorded: &crate::store::Recorded,
    ) -> Result<(), String> {
        let mut file = self
            .file
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let written = recorded
            .new_records_of(outcome)
            .try_for_each(|record| {
                crate::output::write_record_line(
                    &mut *file,
                    &StoredRecord {
                        source: source.to_string(),
                        query_key: Some(outcome.key.clone()),
                        query: Some(outcome.description.clone()),
                        record: record.clone(),
                    },
                )
            })
            .and_then(|()| std::io::Write::flush(&mut *file));
        written.map_err(|e| format!("records file {}: {e}", self.path.display()))
    }
}

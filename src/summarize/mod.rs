//! The summarizer: both sides of the cooperative path (seed §2, metadata.md
//! §4). A cooperative provider runs a summarizer next to its database; the
//! gatherer asks it once ([`cooperative`]) and receives the distinct values of
//! the configured attributes as SOIF ([`crate::soif`]). [`provider_soif`] is
//! the provider's side: it reads a DBContent document and writes that SOIF.

mod cooperative;
mod provider;

pub use cooperative::{cooperative, CooperativeAnswer};
pub use provider::provider_soif;

/// What can go wrong on either side of the cooperative path.
#[derive(Debug, thiserror::Error)]
pub enum SummarizeError {
    #[error("summarizer request failed: {0}")]
    Fetch(#[from] crate::fetch::FetchError),
    #[error("summarizer {url}: malformed SOIF answer: {source}")]
    Soif {
        url: String,
        #[source]
        source: crate::soif::SoifError,
    },
    #[error("summarizer {url}: the SOIF answer holds no object")]
    NoObject { url: String },
    #[error("summarizer {url}: attribute {attribute:?} is not UTF-8 (byte {offset} of its value)")]
    NotUtf8 {
        url: String,
        attribute: String,
        offset: usize,
    },
    #[error("DBContent document: {0}")]
    Document(String),
    #[error("provider database: table {table:?} does not exist")]
    MissingTable { table: String },
    #[error("provider database: table {table:?} has no column {column:?} (columns: {columns})")]
    MissingColumn {
        table: String,
        column: String,
        columns: String,
    },
    #[error("provider database: {table}.{column}: a value is a BLOB that is not UTF-8 text")]
    BinaryValue { table: String, column: String },
    #[error("provider database: {context}: {source}")]
    Sql {
        context: String,
        #[source]
        source: rusqlite::Error,
    },
    #[error("cannot write SOIF: {0}")]
    Write(#[from] crate::soif::SoifWriteError),
}

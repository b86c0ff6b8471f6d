//! Output: the gatherer database as SOIF or JSON, its records as JSON Lines
//! or CSV, and search over it.

use std::io::Write;

use crate::record::Fields;
use crate::soif;
use crate::store::{ChangeOp, SourceKind, SourceRecord, Store, StoreError, StoredRecord};

pub use crate::store::Hit;

/// What can go wrong while writing output.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("source {url}: {source}")]
    Soif {
        url: String,
        #[source]
        source: soif::SoifWriteError,
    },
    #[error("writing output: {0}")]
    Io(#[from] std::io::Error),
    #[error("writing JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("writing CSV: {0}")]
    Csv(#[from] csv::Error),
}

impl OutputError {
    /// Whether the reader went away (`gather export | head`): not worth an
    /// error message.
    pub fn is_broken_pipe(&self) -> bool {
        use std::io::ErrorKind::BrokenPipe;
        match self {
            OutputError::Io(e)
            | OutputError::Soif {
                source: soif::SoifWriteError::Io(e),
                ..
            } => e.kind() == BrokenPipe,
            OutputError::Json(e) => e.io_error_kind() == Some(BrokenPipe),
            OutputError::Csv(e) => {
                matches!(e.kind(), csv::ErrorKind::Io(e) if e.kind() == BrokenPipe)
            }
            OutputError::Store(_) | OutputError::Soif { .. } => false,
        }
    }
}

/// The name gather gives itself in `Gatherer-Name`.
const GATHERER_NAME: &str = "gather";

/// The SOIF object of one source (see [`export_soif`]).
fn source_object(store: &Store, source: &SourceRecord) -> Result<soif::SoifObject, OutputError> {
    let stats = store.stats(source.id)?;
    let info = &source.info;
    let mut attributes: Vec<(String, Vec<u8>)> = Vec::new();
    let mut put = |name: &str, value: Option<&str>| {
        if let Some(v) = value.filter(|v| !v.is_empty()) {
            attributes.push((name.to_string(), v.as_bytes().to_vec()));
        }
    };
    let kind = match info.kind {
        SourceKind::Database | SourceKind::Cooperative => "DBContent",
        SourceKind::Page => "HTML",
    };
    put("Type", Some(kind));
    put("Title", info.title.as_deref());
    put("Description", info.description.as_deref());
    put("Keywords", info.keywords.as_deref());
    put("Update-Time", Some(&source.updated_at.to_string()));
    put("Gatherer-Name", Some(GATHERER_NAME));
    put("Gatherer-Version", Some(env!("CARGO_PKG_VERSION")));
    put("File-Size", Some(&stats.bytes.to_string()));
    put("Incomplete", source.incomplete.as_deref());
    put("Full-Text", info.text.as_deref());
    for (attribute, values) in store.values(source.id)? {
        // Names a gather before 0.2 accepted may hold what SOIF forbids: one
        // such source must not stop the export of the others.
        attributes.push((
            soif::escape_name(&format!("DB.{attribute}")),
            values.join("\n").into_bytes(),
        ));
    }
    Ok(soif::SoifObject {
        template: "FILE".to_string(),
        url: info.url.clone(),
        attributes,
    })
}

/// Writes one SOIF object per source, sources in the order of their URLs.
///
/// The object's attributes, in this order (each only where it has a value):
/// `Type` (`DBContent` for database and cooperative sources, `HTML` for
/// ordinary pages), `Title`, `Description`, `Keywords`, `Update-Time` (Unix
/// seconds of the source's last gathering), `Gatherer-Name` (`gather`),
/// `Gatherer-Version` (this crate's version), `File-Size` (bytes of all pages
/// fetched for the source), `Incomplete` (why the content is incomplete, when a
/// limit or failed queries cut the gathering short), `Full-Text` (an ordinary
/// page's text), then `DB.<attribute>` for every attribute in the order of
/// the names' UTF-8 bytes, its distinct values one per line, sorted by their
/// UTF-8 bytes. The template type is `FILE`.
pub fn export_soif(
    store: &Store,
    out: &mut impl Write,
    only: Option<&str>,
) -> Result<(), OutputError> {
    for source in sources(store, only)? {
        let object = source_object(store, &source)?;
        soif::write(&object, out).map_err(|e| OutputError::Soif {
            url: source.info.url.clone(),
            source: e,
        })?;
    }
    Ok(())
}

#[derive(serde::Serialize)]
struct JsonSource<'a> {
    url: &'a str,
    kind: &'static str,
    title: Option<&'a str>,
    description: Option<&'a str>,
    keywords: Option<&'a str>,
    /// An ordinary page's text (the SOIF `Full-Text`).
    text: Option<&'a str>,
    update_time: i64,
    attributes: std::collections::BTreeMap<String, Vec<String>>,
    stats: JsonStats<'a>,
}

#[derive(serde::Serialize)]
struct JsonStats<'a> {
    queries_done: u64,
    queries_failed: u64,
    pages: u64,
    bytes: u64,
    incomplete: Option<&'a str>,
}

/// Writes one JSON object per source per line (JSON Lines), sources in the
/// order of their URLs: `url`, `kind` (`database`, `cooperative`, `page`),
/// `title`, `description`, `keywords`, `text` (an ordinary page's text; null
/// when absent), `update_time` (Unix
/// seconds), `attributes` (attribute → its distinct values sorted by UTF-8
/// bytes; names without the `DB.` prefix), `stats` (`queries_done`,
/// `queries_failed`, `pages`, `bytes`, `incomplete`: the reason or null).
pub fn export_json(
    store: &Store,
    out: &mut impl Write,
    only: Option<&str>,
) -> Result<(), OutputError> {
    for source in sources(store, only)? {
        let stats = store.stats(source.id)?;
        let info = &source.info;
        let line = JsonSource {
            url: &info.url,
            kind: info.kind.as_str(),
            title: info.title.as_deref(),
            description: info.description.as_deref(),
            keywords: info.keywords.as_deref(),
            text: info.text.as_deref(),
            update_time: source.updated_at,
            attributes: store.values(source.id)?,
            stats: JsonStats {
                queries_done: stats.queries_done,
                queries_failed: stats.queries_failed,
                pages: stats.pages,
                bytes: stats.bytes,
                incomplete: source.incomplete.as_deref(),
            },
        };
        serde_json::to_writer(&mut *out, &line)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

#[derive(serde::Serialize)]
struct JsonRecord<'a> {
    source: &'a str,
    query: Option<&'a str>,
    query_key: Option<&'a str>,
    page: &'a str,
    ordinal: u64,
    fields: &'a Fields,
}

/// Writes one record as a line of JSON: `source` (the source's URL),
/// `query` (the description of the query that gave it first,
/// `region=Rügen`), `query_key`, `page` (the result page's URL), `ordinal`
/// (the row's position on the page, from 0) and `fields` (field → a string,
/// or a list of strings for a field with several values; in the order of
/// the source's rules).
pub fn write_record_line(out: &mut impl Write, record: &StoredRecord) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, &JsonRecord::of(record))?;
    out.write_all(b"\n")
}

impl<'a> JsonRecord<'a> {
    fn of(record: &'a StoredRecord) -> JsonRecord<'a> {
        JsonRecord {
            source: &record.source,
            query: record.query.as_deref(),
            query_key: record.query_key.as_deref(),
            page: &record.record.page,
            ordinal: record.record.ordinal,
            fields: &record.record.fields,
        }
    }
}

/// One line of a delta export: what to do, the record's key
/// ([`Fields::key`], unique within its source) and the record as
/// [`write_record_line`] writes it.
#[derive(serde::Serialize)]
struct JsonChange<'a> {
    op: ChangeOp,
    key: String,
    record: JsonRecord<'a>,
}

/// Writes the records added, updated and gone since `since`
/// (milliseconds since the epoch) as JSON Lines,
/// `{"op":"add|update|delete","key":…,"record":…}`, as a search index's
/// bulk API takes them: applied to a records export made at `since`
/// (`add` adds the record, `update` replaces the record of the same source
/// and key, `delete` removes it), they give the records export of now.
/// A deleted record is written as it was last seen.
pub fn export_changes_jsonl(
    store: &Store,
    out: &mut impl Write,
    only: Option<&str>,
    since: i64,
) -> Result<(), OutputError> {
    let mut failed = None;
    store.each_change(since, |op, record| {
        if only.is_some_and(|url| record.source != url) {
            return std::ops::ControlFlow::Continue(());
        }
        let line = JsonChange {
            op,
            key: record.record.fields.key(),
            record: JsonRecord::of(&record),
        };
        let written = serde_json::to_writer(&mut *out, &line)
            .map_err(std::io::Error::from)
            .and_then(|()| out.write_all(b"\n"));
        match written {
            Ok(()) => std::ops::ControlFlow::Continue(()),
            Err(e) => {
                failed = Some(e);
                std::ops::ControlFlow::Break(())
            }
        }
    })?;
    match failed {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

/// Writes every record as JSON Lines ([`write_record_line`]), sources in
/// the order of their URLs, a source's records in the order they were found.
pub fn export_records_jsonl(
    store: &Store,
    out: &mut impl Write,
    only: Option<&str>,
) -> Result<(), OutputError> {
    each_record(store, only, |record| {
        write_record_line(out, &record).map_err(OutputError::from)
    })
}

/// The sources, or only the one whose URL is `only`.
fn sources(store: &Store, only: Option<&str>) -> Result<Vec<SourceRecord>, OutputError> {
    let mut sources = store.sources()?;
    sources.retain(|s| only.is_none_or(|url| s.info.url == url));
    Ok(sources)
}

/// Every record, or only those of the source whose URL is `only`.
fn each_record(
    store: &Store,
    only: Option<&str>,
    mut each: impl FnMut(StoredRecord) -> Result<(), OutputError>,
) -> Result<(), OutputError> {
    store.each_record(|record| {
        if only.is_none_or(|url| record.source == url) {
            each(record)
        } else {
            Ok(())
        }
    })
}

/// The fixed columns of the records' CSV, before the fields.
const CSV_COLUMNS: [&str; 4] = ["source", "query", "page", "ordinal"];

/// Writes every record as CSV (RFC 4180: CRLF line ends; a cell holding a
/// comma, a quote or a line break is quoted, its quotes doubled). The header
/// is `source`, `query`, `page`, `ordinal`, then every field name the
/// records have, in the order they first appear (sources in the order of
/// their URLs); a record leaves the fields it lacks empty. A field with
/// several values holds them one per line (values never hold a line break:
/// their white space is collapsed).
pub fn export_records_csv(
    store: &Store,
    out: &mut impl Write,
    only: Option<&str>,
) -> Result<(), OutputError> {
    let mut names: Vec<String> = Vec::new();
    let mut known = std::collections::HashSet::new();
    each_record(store, only, |record| {
        for (name, _) in &record.record.fields.0 {
            if known.insert(name.clone()) {
                names.push(name.clone());
            }
        }
        Ok::<(), OutputError>(())
    })?;
    let mut csv = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(&mut *out);
    let header: Vec<&str> = CSV_COLUMNS
        .iter()
        .copied()
        .chain(names.iter().map(String::as_str))
        .collect();
    // A clash of a field name with a fixed column is left to the reader:
    // the columns keep their positions.
    csv.write_record(&header)?;
    each_record(store, only, |record| {
        let mut row: Vec<String> = vec![
            record.source,
            record.query.or(record.query_key).unwrap_or_default(),
            record.record.page,
            record.record.ordinal.to_string(),
        ];
        for name in &names {
            row.push(
                record
                    .record
                    .fields
                    .get(name)
                    .map(|f| f.values().join("\n"))
                    .unwrap_or_default(),
            );
        }
        csv.write_record(&row).map_err(OutputError::from)
    })?;
    csv.flush()?;
    Ok(())
}

/// For each term, the values that hold it: which source and attribute, the
/// value, and the query that surfaced it first. Terms are searched as whole
/// words (a phrase for several words), case-insensitively and with Latin
/// diacritics folded (`rugen` finds `Rügen`); a trailing `*` searches a
/// prefix (`Rüg*`). Hits come term by term, in the terms' order.
pub fn search(store: &Store, terms: &[String]) -> Result<Vec<Hit>, OutputError> {
    let mut hits = Vec::new();
    for term in terms {
        hits.extend(store.search(term)?);
    }
    Ok(hits)
}

/// Writes hits as a table with a header line, columns separated by two
/// spaces and padded to their widest cell: TERM, SOURCE, ATTRIBUTE, VALUE,
/// QUERY (the query's description, else the recorded provenance, else `-`).
pub fn write_hits(hits: &[Hit], out: &mut impl Write) -> std::io::Result<()> {
    let header = ["TERM", "SOURCE", "ATTRIBUTE", "VALUE", "QUERY"];
    let rows: Vec<[&str; 5]> = hits
        .iter()
        .map(|h| {
            let query = h
                .query
                .as_deref()
                .or(h.provenance.as_deref())
                .unwrap_or("-");
            [
                h.term.as_str(),
                h.source.as_str(),
                h.attribute.as_str(),
                h.value.as_str(),
                query,
            ]
        })
        .collect();
    let mut widths = header.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            line.push_str(cell);
            if i + 1 < row.len() {
                let pad = widths[i] - cell.chars().count() + 2;
                line.extend(std::iter::repeat_n(' ', pad));
            }
        }
        writeln!(out, "{line}")?;
    }
    Ok(())
}

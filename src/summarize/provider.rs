//! The provider's side of the cooperative path: the summarizer that reads a
//! DBContent document and publishes the distinct values of the named tables
//! and attributes as SOIF (metadata.md §4).

use std::collections::BTreeSet;

use rusqlite::types::ValueRef;
use rusqlite::Connection;

use super::SummarizeError;
use crate::fragment::normalize;
use crate::metadata::DbContent;
use crate::soif::{self, SoifObject};

/// The SOIF object a provider's summarizer answers with: `@FILE { <URL> `
/// (the DBContent document's `URL:`), then for every `Table:`/`Attribute:`
/// pair an attribute `table.attribute` whose value is the column's distinct
/// non-empty values, normalized, one per line, sorted by their UTF-8 bytes.
///
/// Table and column names are looked up in the database's schema (SQLite
/// compares them case-insensitively) and quoted, so a document cannot inject
/// SQL; a table or column that does not exist is an error naming it. Numbers
/// are written as SQLite prints them; NULLs are skipped; a BLOB must be UTF-8
/// text. An attribute without any value is still written (size 0), so the
/// gatherer learns that it exists. A `Table:`/`Attribute:` pair named twice
/// is written once.
pub fn provider_soif(doc: &DbContent, db: &Connection) -> Result<Vec<u8>, SummarizeError> {
    let url = doc
        .url
        .as_deref()
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .ok_or_else(|| SummarizeError::Document("no URL: line (the form's address)".into()))?;
    if doc.tables.iter().all(|t| t.attributes.is_empty()) {
        return Err(SummarizeError::Document(
            "no Table:/Attribute: pair names anything to publish".into(),
        ));
    }
    let mut object = SoifObject {
        template: "FILE".to_string(),
        url: url.to_string(),
        attributes: Vec::new(),
    };
    for table in &doc.tables {
        let columns = table_columns(db, &table.name)?;
        for attribute in &table.attributes {
            let name = format!("{}.{}", table.name, attribute);
            if object.attributes.iter().any(|(n, _)| *n == name) {
                continue;
            }
            let column = columns
                .iter()
                .find(|c| c.eq_ignore_ascii_case(attribute))
                .ok_or_else(|| SummarizeError::MissingColumn {
                    table: table.name.clone(),
                    column: attribute.clone(),
                    columns: columns.join(", "),
                })?;
            let values = distinct_values(db, &table.name, column)?;
            let joined: Vec<&str> = values.iter().map(String::as_str).collect();
            object
                .attributes
                .push((name, joined.join("\n").into_bytes()));
        }
    }
    let mut out = Vec::new();
    soif::write(&object, &mut out)?;
    Ok(out)
}

fn sql_error(context: String) -> impl FnOnce(rusqlite::Error) -> SummarizeError {
    move |source| SummarizeError::Sql { context, source }
}

/// `"name"` with inner quotes doubled: an SQL identifier.
fn quote(identifier: &str) -> String {
    format!("\"{}\"", identifier.replace('"', "\"\""))
}

/// The columns of a table or view, as the schema spells them.
fn table_columns(db: &Connection, table: &str) -> Result<Vec<String>, SummarizeError> {
    let context = format!("reading the columns of table {table:?}");
    let mut stmt = db
        .prepare("SELECT name FROM pragma_table_info(?1)")
        .map_err(sql_error(context.clone()))?;
    let columns = stmt
        .query_map([table], |row| row.get::<_, String>(0))
        .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
        .map_err(sql_error(context))?;
    if columns.is_empty() {
        return Err(SummarizeError::MissingTable {
            table: table.to_string(),
        });
    }
    Ok(columns)
}

fn distinct_values(
    db: &Connection,
    table: &str,
    column: &str,
) -> Result<BTreeSet<String>, SummarizeError> {
    let context = format!("SELECT DISTINCT {column} FROM {table}");
    let sql = format!("SELECT DISTINCT {} FROM {}", quote(column), quote(table));
    let mut stmt = db.prepare(&sql).map_err(sql_error(context.clone()))?;
    let mut rows = stmt.query([]).map_err(sql_error(context.clone()))?;
    let mut values = BTreeSet::new();
    while let Some(row) = rows.next().map_err(sql_error(context.clone()))? {
        let raw = row.get_ref(0).map_err(sql_error(context.clone()))?;
        let text = match raw {
            ValueRef::Null => continue,
            ValueRef::Integer(i) => i.to_string(),
            ValueRef::Real(r) => r.to_string(),
            ValueRef::Text(t) | ValueRef::Blob(t) => match std::str::from_utf8(t) {
                Ok(s) => s.to_string(),
                Err(_) => {
                    return Err(SummarizeError::BinaryValue {
                        table: table.to_string(),
                        column: column.to_string(),
                    })
                }
            },
        };
        let value = normalize(&text);
        if !value.is_empty() {
            values.insert(value);
        }
    }
    Ok(values)
}

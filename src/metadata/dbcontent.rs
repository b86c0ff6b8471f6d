//! The DBContent document of cooperative providers (seed §2, metadata.md §4).

use super::LineErrorKind;
use crate::span::{Excerpt, Span};

/// One `Table:` with the `Attribute:` lines that follow it.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct DbTable {
    pub name: String,
    pub attributes: Vec<String>,
}

/// A DBContent document.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct DbContent {
    pub summarizer: Option<String>,
    pub url: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub keywords: Option<String>,
    pub database: Option<String>,
    pub tables: Vec<DbTable>,
}

/// What is wrong with a DBContent document, and where.
///
/// `Display` writes the line and column, what is wrong, then the line with
/// a caret under the fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("DBContent line {}, column {}: {kind}{excerpt}", span.line, span.column)]
pub struct DbContentError {
    pub kind: DbContentErrorKind,
    /// Where in the document the fault is.
    pub span: Span,
    /// The offending line, for display.
    pub excerpt: Box<Excerpt>,
}

/// What can be wrong with a DBContent document.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DbContentErrorKind {
    /// A line that is not `Name: value` (as in a configuration file).
    #[error("{0}")]
    Line(LineErrorKind),
    /// A name with nothing after it.
    #[error("{name}: empty value")]
    EmptyValue { name: String },
    /// `Attribute:` with no `Table:` before it.
    #[error("Attribute: before any Table:")]
    AttributeBeforeTable,
    /// A name a DBContent document does not have.
    #[error("unknown name {name:?} (expected Summarizer, URL, Title, Description, Keywords, Database, Table, Attribute)")]
    UnknownName { name: String },
}

impl DbContent {
    /// Parses a DBContent document: `Name: value` lines as in a
    /// configuration file (continuation lines, `#` comments), names matched
    /// case-insensitively; `Attribute:` (or the seed's German `Attribut:`)
    /// belongs to the `Table:` before it.
    pub fn parse(text: &str) -> Result<DbContent, DbContentError> {
        let lines = super::parse_lines(text).map_err(|e| DbContentError {
            kind: DbContentErrorKind::Line(e.kind),
            span: e.span,
            excerpt: e.excerpt,
        })?;
        let mut doc = DbContent::default();
        for l in lines {
            let err = |span: Span, kind: DbContentErrorKind| DbContentError {
                excerpt: Box::new(Excerpt::new(text, &span)),
                span,
                kind,
            };
            let value = l.value.trim().to_string();
            if value.is_empty() {
                return Err(err(
                    l.value_span,
                    DbContentErrorKind::EmptyValue { name: l.name },
                ));
            }
            match l.name.to_ascii_lowercase().as_str() {
                "summarizer" => doc.summarizer = Some(value),
                "url" => doc.url = Some(value),
                "title" => doc.title = Some(value),
                "description" => doc.description = Some(value),
                "keywords" => doc.keywords = Some(value),
                "database" => doc.database = Some(value),
                "table" => doc.tables.push(DbTable {
                    name: value,
                    attributes: Vec::new(),
                }),
                "attribute" | "attribut" => doc
                    .tables
                    .last_mut()
                    .ok_or_else(|| err(l.name_span, DbContentErrorKind::AttributeBeforeTable))?
                    .attributes
                    .push(value),
                _ => {
                    return Err(err(
                        l.name_span,
                        DbContentErrorKind::UnknownName { name: l.name },
                    ))
                }
            }
        }
        Ok(doc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seeds_cityworld_document() {
        let text = "\nSummarizer:    http://www.cityworld.de/cgi-bin/Ora-DB.pl\nURL:           http://www.cityworld.de/cgi-bin/auswahl.pl\nTitle:        CityWorld - Hotels und Pensionen\nDescription:   Hotelf\u{fc}hrer M-V\nKeywords:     Hotel, Zimmer, Unterkunft, Pension, Motel, Preis\nDatabase:     Cityworld\nTable:        hotel\nAttribute:    name\nAttribute:    ort\nTable:        region\nAttribute:    region\n\n";
        let doc = DbContent::parse(text).unwrap();
        assert_eq!(
            doc.summarizer.as_deref(),
            Some("http://www.cityworld.de/cgi-bin/Ora-DB.pl")
        );
        assert_eq!(doc.description.as_deref(), Some("Hotelf\u{fc}hrer M-V"));
        assert_eq!(doc.tables.len(), 2);
        assert_eq!(doc.tables[0].attributes, ["name", "ort"]);
        assert_eq!(doc.tables[1].name, "region");
    }

    #[test]
    fn errors_name_the_line() {
        let e = DbContent::parse("Title: x\nAttribute: a\n").unwrap_err();
        assert_eq!(e.kind, DbContentErrorKind::AttributeBeforeTable);
        assert_eq!((e.span.line, e.span.column), (2, 1));
        let e = DbContent::parse("Title: x\nColour: red\n").unwrap_err();
        assert!(
            matches!(&e.kind, DbContentErrorKind::UnknownName { name } if name == "Colour"),
            "{e}"
        );
        assert_eq!((e.span.line, e.span.column, e.span.len), (2, 1, 6));
        assert_eq!(
            e.to_string(),
            "DBContent line 2, column 1: unknown name \"Colour\" (expected Summarizer, URL, \
             Title, Description, Keywords, Database, Table, Attribute)\n  2 | Colour: red\n    | ^^^^^^"
        );
        let e = DbContent::parse("Title: x\nTable:   \n").unwrap_err();
        assert!(
            matches!(e.kind, DbContentErrorKind::EmptyValue { .. }),
            "{e}"
        );
        assert_eq!(e.span.line, 2);
        let e = DbContent::parse("<html><body>no</body></html>").unwrap_err();
        assert!(
            matches!(
                e.kind,
                DbContentErrorKind::Line(LineErrorKind::Syntax { .. })
            ),
            "{e}"
        );
    }
}

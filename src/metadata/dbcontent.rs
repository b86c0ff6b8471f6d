//! The DBContent document of cooperative providers (seed §2, metadata.md §4).

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

/// What is wrong with a DBContent document, and on which line.
#[derive(Debug, Clone, thiserror::Error)]
#[error("DBContent line {line}: {message}")]
pub struct DbContentError {
    /// The 1-based line of the document.
    pub line: usize,
    pub message: String,
}

impl DbContent {
    /// Parses a DBContent document: `Name: value` lines as in a
    /// configuration file (continuation lines, `#` comments), names matched
    /// case-insensitively; `Attribute:` (or the seed's German `Attribut:`)
    /// belongs to the `Table:` before it.
    pub fn parse(text: &str) -> Result<DbContent, DbContentError> {
        let lines = super::parse_lines(text).map_err(|e| DbContentError {
            line: e.line,
            message: format!("column {}: {}", e.column, e.message),
        })?;
        let mut doc = DbContent::default();
        for l in lines {
            let err = |message: String| DbContentError {
                line: l.line,
                message,
            };
            let value = l.value.trim().to_string();
            if value.is_empty() {
                return Err(err(format!("{}: empty value", l.name)));
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
                    .ok_or_else(|| err("Attribute: before any Table:".into()))?
                    .attributes
                    .push(value),
                other => return Err(err(format!("unknown name {other:?} (expected Summarizer, URL, Title, Description, Keywords, Database, Table, Attribute)"))),
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
        assert_eq!(e.line, 2);
        let e = DbContent::parse("Title: x\nColour: red\n").unwrap_err();
        assert!(
            e.to_string().contains("line 2") && e.to_string().contains("colour"),
            "{e}"
        );
        assert!(DbContent::parse("<html><body>no</body></html>").is_err());
    }
}

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

#[derive(Debug, Clone, thiserror::Error)]
#[error("DBContent line {line}: {message}")]
pub struct DbContentError {
    pub line: usize,
    pub message: String,
}

impl DbContent {
    /// Parses the `Name: value` lines of a DBContent document.
    pub fn parse(text: &str) -> Result<DbContent, DbContentError> {
        let mut doc = DbContent::default();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let err = |message: String| DbContentError {
                line: i + 1,
                message,
            };
            let (name, value) = line
                .split_once(':')
                .ok_or_else(|| err(format!("expected 'Name: value', found {line:?}")))?;
            let value = value.trim().to_string();
            match name.trim().to_ascii_lowercase().as_str() {
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
                other => return Err(err(format!("unknown name {other:?}"))),
            }
        }
        Ok(doc)
    }
}

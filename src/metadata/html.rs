//! Reading `DB.*` meta tags (and title, description, keywords) from a page.

use std::collections::HashMap;

use crate::page::Page;

use super::{Entry, Origin};

/// What a page says about itself in its head.
#[derive(Debug, Clone, Default)]
pub struct PageMeta {
    /// The `DB.*` meta tags in document order.
    pub entries: Vec<Entry>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub keywords: Option<String>,
}

/// Reads the meta tags of an HTML page. Names are matched case-insensitively;
/// html5ever decodes entities and keeps line breaks inside CONTENT.
///
/// Meta tags are taken wherever the parser puts them: html5ever moves those
/// written before `<body>` into the head; a `DB.*` tag that a sloppy page
/// writes into its body counts too, as it would for a lenient gatherer.
pub fn read_meta_tags(html: &str, page: &str) -> PageMeta {
    page_meta(&Page::parse(html), html, page)
}

/// [`read_meta_tags`] of a page already parsed from `html`.
pub(crate) fn page_meta(doc: &Page, html: &str, page: &str) -> PageMeta {
    let lower = html.to_ascii_lowercase();
    let lines = db_name_lines(&lower);
    let mut meta = PageMeta::default();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (name, content) in doc.meta_tags() {
        let lname = name.to_ascii_lowercase();
        match lname.as_str() {
            // The first one counts, as for ordinary pages (`Page::meta_content`).
            "description" if meta.description.is_none() => {
                meta.description = Some(content.trim().to_string())
            }
            "keywords" if meta.keywords.is_none() => {
                meta.keywords = Some(content.trim().to_string())
            }
            _ if lname.starts_with("db.") => {
                let nth = seen.entry(lname.clone()).or_default();
                let line = lines.get(lname.as_str()).and_then(|l| l.get(*nth)).copied();
                *nth += 1;
                meta.entries.push(Entry {
                    name: name.to_string(),
                    value: content.to_string(),
                    origin: Origin::MetaTag {
                        page: page.to_string(),
                        line,
                    },
                    hint: None,
                });
            }
            _ => {}
        }
    }
    meta.title = doc.title().filter(|t| !t.is_empty());
    meta
}

/// For every `db.` name written as an attribute value in the page source
/// (`"db.…"`, `'db.…'` or `=db.…`), the 1-based lines it occurs on, in
/// order: where the meta tags stand (a best effort: the parser does not keep
/// positions). One pass over the source, however many tags it has.
fn db_name_lines(lower_html: &str) -> HashMap<&str, Vec<usize>> {
    let mut lines: HashMap<&str, Vec<usize>> = HashMap::new();
    let (mut line, mut counted) = (1, 0);
    for (at, _) in lower_html.match_indices("db.") {
        let rest = &lower_html[at..];
        let end = match lower_html[..at].chars().next_back() {
            Some(quote @ ('"' | '\'')) => rest.find(quote),
            Some('=') => rest.find(|c: char| c.is_ascii_whitespace() || c == '>'),
            _ => continue,
        };
        let Some(end) = end else { continue };
        line += lower_html[counted..at].matches('\n').count();
        counted = at;
        lines.entry(&rest[..end]).or_default().push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_tags_any_case_quotes_and_entities() {
        let html = "<html><head><title> CityWorld\n Hotels </title>\n\
            <META NAME=\"DB.QueryElement\" CONTENT=\"region\">\n\
            <meta name='db.result.ort' content='tr[j:*].td[1].txt\n  where tr[j].td[1].font.getAttr(color) = \"#FF8000\"'>\n\
            <meta name=\"DB.Result.region\" content=\"Fischland, R&uuml;gen\">\n\
            <meta name=\"description\" content=\"Hotelf&uuml;hrer M-V\">\n\
            <meta name=\"generator\" content=\"vi\">\n\
            </head><body></body></html>";
        let m = read_meta_tags(html, "http://h/");
        let names: Vec<_> = m.entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(
            names,
            ["DB.QueryElement", "db.result.ort", "DB.Result.region"]
        );
        assert_eq!(
            m.entries[1].value,
            "tr[j:*].td[1].txt\n  where tr[j].td[1].font.getAttr(color) = \"#FF8000\""
        );
        assert_eq!(m.entries[2].value, "Fischland, Rügen");
        assert_eq!(m.title.as_deref(), Some("CityWorld Hotels"));
        assert_eq!(m.description.as_deref(), Some("Hotelführer M-V"));
        assert!(matches!(
            m.entries[2].origin,
            Origin::MetaTag { line: Some(6), .. }
        ));
    }

    #[test]
    fn many_meta_tags_get_their_lines_in_one_pass() {
        let mut html = String::from("<html><head>\n");
        for i in 0..20_000 {
            html.push_str(&format!(
                "<meta name=\"DB.Result.a{i}\" content=\"x\">\n<meta name=\"DB.Result\" content=\"html.\">\n"
            ));
        }
        html.push_str("</head><body></body></html>");
        let m = read_meta_tags(&html, "http://h/");
        assert_eq!(m.entries.len(), 40_000);
        let line = |e: &Entry| match e.origin {
            Origin::MetaTag { line, .. } => line,
            _ => None,
        };
        assert_eq!(line(&m.entries[0]), Some(2));
        assert_eq!(line(&m.entries[1]), Some(3));
        assert_eq!(line(&m.entries[39_999]), Some(40_001));
    }
}

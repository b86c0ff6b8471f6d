//! Reading `DB.*` meta tags (and title, description, keywords) from a page.

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
    let mut meta = PageMeta::default();
    let mut seen: Vec<String> = Vec::new();
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
                let nth = seen.iter().filter(|n| **n == lname).count();
                seen.push(lname.clone());
                meta.entries.push(Entry {
                    name: name.to_string(),
                    value: content.to_string(),
                    origin: Origin::MetaTag {
                        page: page.to_string(),
                        line: line_of_nth(&lower, &lname, nth),
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

/// The 1-based line of the `nth` quoted occurrence of a meta name in the
/// page source (a best effort: the parser does not keep positions).
fn line_of_nth(lower_html: &str, lower_name: &str, nth: usize) -> Option<usize> {
    let mut found = 0;
    let mut from = 0;
    while let Some(pos) = lower_html[from..].find(lower_name) {
        let at = from + pos;
        from = at + lower_name.len();
        let before = lower_html[..at].chars().next_back();
        let after = lower_html[from..].chars().next();
        let quoted_or_bare = matches!(before, Some('"' | '\'' | '='))
            && matches!(after, Some('"' | '\'' | ' ' | '>' | '\t' | '\n' | '\r'));
        if !quoted_or_bare {
            continue;
        }
        if found == nth {
            return Some(lower_html[..at].matches('\n').count() + 1);
        }
        found += 1;
    }
    None
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
}

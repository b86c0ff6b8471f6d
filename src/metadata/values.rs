//! The values of the DB.* names and the `Name: value` lines of configuration
//! files and DBContent documents, parsed with the pest grammar in
//! `grammar/metadata.pest`.

use pest::Parser;

use crate::fetch::Method;

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/metadata.pest"]
struct MetadataParser;

/// A value that does not fit its name's grammar.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} (line {line}, column {column} of the value)")]
pub struct ValueError {
    /// Byte offset of the fault in the value.
    pub offset: usize,
    /// 1-based line and column (in characters) inside the value.
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl ValueError {
    pub(crate) fn at(value: &str, offset: usize, message: impl Into<String>) -> ValueError {
        let offset = offset.min(value.len());
        let before = value.get(..offset).unwrap_or(value);
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before[line_start..].chars().count() + 1;
        ValueError {
            offset,
            line,
            column,
            message: message.into(),
        }
    }
}

fn describe(rule: &Rule) -> String {
    match rule {
        Rule::EOI => "end of the value",
        Rule::url | Rule::script_url => "a URL",
        Rule::method => "GET or POST",
        Rule::number => "a number",
        Rule::yes | Rule::no => "YES or NO",
        Rule::item | Rule::quoted | Rule::bare => "a value",
        Rule::pattern => "/simple regex/",
        Rule::star | Rule::nav_text | Rule::nav_pattern => "a URL with *",
        Rule::name => "a name",
        Rule::entry => "'Name: value'",
        _ => "something else",
    }
    .to_string()
}

fn parse(rule: Rule, value: &str) -> Result<pest::iterators::Pairs<'_, Rule>, ValueError> {
    MetadataParser::parse(rule, value).map_err(|e| {
        let offset = match e.location {
            pest::error::InputLocation::Pos(p) => p,
            pest::error::InputLocation::Span((s, _)) => s,
        };
        let found = value
            .get(offset..)
            .and_then(|rest| rest.chars().next())
            .map_or("the end".to_string(), |c| format!("{c:?}"));
        let message = match &e.variant {
            pest::error::ErrorVariant::ParsingError { positives, .. } if !positives.is_empty() => {
                let mut wanted: Vec<String> = positives.iter().map(describe).collect();
                wanted.dedup();
                format!("expected {}, found {found}", wanted.join(" or "))
            }
            _ => format!("unexpected {found}"),
        };
        ValueError::at(value, offset, message)
    })
}

/// `<URL>` (DB.ConfigFile, DB.Summarizer).
pub fn parse_url(value: &str) -> Result<String, ValueError> {
    let pairs = parse(Rule::url_value, value)?;
    Ok(find(pairs, Rule::url).unwrap_or_default())
}

/// `<URL> [, GET | POST]` (DB.QueryScript).
pub fn parse_query_script(value: &str) -> Result<(String, Option<Method>), ValueError> {
    let pairs = parse(Rule::query_script, value)?;
    let mut url = String::new();
    let mut method = None;
    for pair in pairs.flatten() {
        match pair.as_rule() {
            Rule::script_url => url = pair.as_str().to_string(),
            Rule::method => {
                method = Some(if pair.as_str().eq_ignore_ascii_case("post") {
                    Method::Post
                } else {
                    Method::Get
                })
            }
            _ => {}
        }
    }
    Ok((url, method))
}

/// `<number>` (DB.MaxQueries, DB.MaxPages).
pub fn parse_number(value: &str) -> Result<u64, ValueError> {
    let pairs = parse(Rule::number_value, value)?;
    let digits = find(pairs, Rule::number).unwrap_or_default();
    digits.parse::<u64>().map_err(|_| {
        let offset = value.find(&digits).unwrap_or(0);
        ValueError::at(value, offset, format!("{digits} is too large"))
    })
}

/// `YES | NO` (DB.Navigation), case-insensitive.
pub fn parse_yes_no(value: &str) -> Result<bool, ValueError> {
    let pairs = parse(Rule::yes_no, value)?;
    Ok(pairs.flatten().any(|p| p.as_rule() == Rule::yes))
}

/// `<item> {, <item>}`: element names or values; quoted items may contain
/// commas, a backslash inside quotes escapes the next character.
pub fn parse_list(value: &str) -> Result<Vec<String>, ValueError> {
    let pairs = parse(Rule::list, value)?;
    Ok(items(pairs))
}

/// The value of `DB.QueryElement.<element>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DomainValue {
    /// The text between the slashes, and its byte offset in the value.
    Pattern(String, usize),
    Values(Vec<String>),
}

/// `/<simple regex>/` or `<value> {, <value>}`.
pub fn parse_domain(value: &str) -> Result<DomainValue, ValueError> {
    let pairs = parse(Rule::domain, value)?;
    let flat: Vec<_> = pairs.clone().flatten().collect();
    if let Some(p) = flat.iter().find(|p| p.as_rule() == Rule::pattern_text) {
        return Ok(DomainValue::Pattern(
            p.as_str().to_string(),
            p.as_span().start(),
        ));
    }
    Ok(DomainValue::Values(items(pairs)))
}

/// `<URL with * for each changing parameter>` (DB.NavigationURL).
pub fn parse_navigation_url(value: &str) -> Result<String, ValueError> {
    let pairs = parse(Rule::navigation_url, value)?;
    let url = find(pairs.clone(), Rule::nav_pattern).unwrap_or_default();
    if !pairs.flatten().any(|p| p.as_rule() == Rule::star) {
        let offset = value.len() - value.trim_start().len();
        return Err(ValueError::at(
            value,
            offset,
            "has no '*' for the parameter that changes from page to page",
        ));
    }
    Ok(url)
}

/// One `Name: value` of a configuration file or DBContent document, with
/// its continuation lines joined by newlines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub name: String,
    pub value: String,
    /// 1-based line of the name.
    pub line: usize,
    /// 1-based column where the value starts on that line.
    pub column: usize,
}

/// A line of a configuration file that is not `Name: value`, a comment, a
/// blank or a continuation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct LineError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// The `Name: value` lines of a configuration file or DBContent document.
/// A line that starts with white space continues the previous value (an
/// indented line before any name is an error); `#` in the first column
/// starts a comment line.
pub fn parse_lines(text: &str) -> Result<Vec<Line>, LineError> {
    let pairs = parse(Rule::config_file, text).map_err(|e| LineError {
        line: e.line,
        column: e.column,
        message: e.message,
    })?;
    let mut out: Vec<Line> = Vec::new();
    for pair in pairs.flatten() {
        let (line, column) = pair.line_col();
        match pair.as_rule() {
            Rule::entry => {
                let mut name = String::new();
                let mut value = String::new();
                let mut value_column = column;
                for inner in pair.into_inner() {
                    match inner.as_rule() {
                        Rule::name => name = inner.as_str().to_string(),
                        Rule::entry_value => {
                            value = inner.as_str().trim_end().to_string();
                            value_column = inner.line_col().1;
                        }
                        _ => {}
                    }
                }
                out.push(Line {
                    name,
                    value,
                    line,
                    column: value_column,
                });
            }
            Rule::continuation => {
                let Some(last) = out.last_mut() else {
                    return Err(LineError {
                        line,
                        column,
                        message: "an indented line continues a value, but no 'Name: value' line comes before it".into(),
                    });
                };
                last.value.push('\n');
                last.value.push_str(pair.as_str().trim_end());
            }
            _ => {}
        }
    }
    Ok(out)
}

fn find(pairs: pest::iterators::Pairs<'_, Rule>, rule: Rule) -> Option<String> {
    pairs
        .flatten()
        .find(|p| p.as_rule() == rule)
        .map(|p| p.as_str().to_string())
}

fn items(pairs: pest::iterators::Pairs<'_, Rule>) -> Vec<String> {
    pairs
        .flatten()
        .filter(|p| p.as_rule() == Rule::item)
        .filter_map(|item| item.into_inner().next())
        .map(|p| match p.as_rule() {
            Rule::quoted => unescape(p.into_inner().next().map_or("", |t| t.as_str())),
            _ => p.as_str().to_string(),
        })
        .collect()
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Writes a value so that [`parse_list`] reads it back as one item: quoted
/// when it contains a comma, a quote, a backslash, a slash at the start, or
/// white space at either end.
pub fn quote_item(value: &str) -> String {
    let needs = value.is_empty()
        || value.contains([',', '"', '\'', '\\', '\n', '\r', '\t'])
        || value.starts_with('/')
        || value.trim() != value;
    if !needs {
        return value.to_string();
    }
    let mut out = String::from("\"");
    for c in value.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_script_with_and_without_method() {
        assert_eq!(
            parse_query_script(" http://x/cgi-bin/q.pl , post ").unwrap(),
            ("http://x/cgi-bin/q.pl".to_string(), Some(Method::Post))
        );
        assert_eq!(
            parse_query_script("q.pl").unwrap(),
            ("q.pl".to_string(), None)
        );
        assert_eq!(
            parse_query_script("http://x/a,b.pl, GET").unwrap(),
            ("http://x/a,b.pl".to_string(), Some(Method::Get))
        );
        let e = parse_query_script("q.pl, PUT").unwrap_err();
        assert_eq!(e.column, 7, "{e}");
    }

    #[test]
    fn lists_with_quotes_and_inner_spaces() {
        assert_eq!(
            parse_list("Fischland, Rügen,Usedom").unwrap(),
            ["Fischland", "Rügen", "Usedom"]
        );
        assert_eq!(
            parse_list(r#"Bad Doberan, "Ribnitz, Damgarten", 'it''s'"#)
                .unwrap_err()
                .column,
            40
        );
        assert_eq!(
            parse_list(r#"Bad Doberan, "Ribnitz, Damgarten", 'it\'s'"#).unwrap(),
            ["Bad Doberan", "Ribnitz, Damgarten", "it's"]
        );
        let e = parse_list("a,,b").unwrap_err();
        assert_eq!((e.line, e.column), (1, 3));
        assert!(parse_list("").is_err());
    }

    #[test]
    fn quote_item_round_trips() {
        for v in ["a", "a, b", "\"x\"", "/x/", " pad ", "back\\slash", ""] {
            let q = quote_item(v);
            assert_eq!(parse_list(&q).unwrap(), [v], "{q}");
        }
    }

    #[test]
    fn domains_are_patterns_or_lists() {
        assert_eq!(
            parse_domain(" /[A-Z]%/ ").unwrap(),
            DomainValue::Pattern("[A-Z]%".into(), 2)
        );
        assert_eq!(
            parse_domain("/a/b/").unwrap(),
            DomainValue::Pattern("a/b".into(), 1)
        );
        assert_eq!(
            parse_domain("\"/x/\", y").unwrap(),
            DomainValue::Values(vec!["/x/".into(), "y".into()])
        );
    }

    #[test]
    fn numbers_yes_no_navigation() {
        assert_eq!(parse_number(" 250 ").unwrap(), 250);
        assert!(parse_number("99999999999999999999999").is_err());
        assert!(parse_number("12a").is_err());
        assert!(parse_yes_no("no").is_ok_and(|y| !y));
        assert!(parse_yes_no("Yes").is_ok_and(|y| y));
        assert!(parse_yes_no("nope").is_err());
        assert_eq!(
            parse_navigation_url("http://x/q?r=*&page=*").unwrap(),
            "http://x/q?r=*&page=*"
        );
        assert!(parse_navigation_url("http://x/q?page=2").is_err());
    }

    #[test]
    fn config_lines_with_continuations_and_comments() {
        let text = "# CityWorld\nDB.QueryElement: region\nResult.ort: tr[j:*].td[1].txt\n  where tr[j].td[1].font.getAttr(color) = '#FF8000'\n\n  \nMaxQueries:5";
        let lines = parse_lines(text).unwrap();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].name, "DB.QueryElement");
        assert_eq!(lines[0].value, "region");
        assert_eq!((lines[0].line, lines[0].column), (2, 18));
        assert_eq!(
            lines[1].value,
            "tr[j:*].td[1].txt\n  where tr[j].td[1].font.getAttr(color) = '#FF8000'"
        );
        assert_eq!(lines[2].line, 7);
        assert_eq!(lines[2].value, "5");
        let e = parse_lines("  orphan\nA: b").unwrap_err();
        assert_eq!(e.line, 1);
        let e = parse_lines("A: b\nno colon here").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
    }
}

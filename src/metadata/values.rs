//! The values of the DB.* names and the `Name: value` lines of configuration
//! files and DBContent documents, parsed with the pest grammar in
//! `grammar/metadata.pest`.

use std::fmt;

use pest::iterators::Pairs;
use pest::Parser;

use crate::fetch::Method;
use crate::span::{Excerpt, Span};

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/metadata.pest"]
struct MetadataParser;

/// A value that does not fit its name's grammar.
///
/// `Display` writes what is wrong and where, then the value's offending
/// line with a caret under the fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ValueError {
    pub kind: ValueErrorKind,
    /// Where in `text` the fault is.
    pub span: Span,
    /// The value as written.
    pub text: String,
}

/// What can be wrong with a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueErrorKind {
    /// The value does not follow its grammar: what could come at that
    /// point, and the character found there (`None`: the end of the value).
    Syntax {
        expected: Vec<Expected>,
        found: Option<char>,
    },
    /// A number that does not fit in 64 bits.
    NumberTooLarge { digits: String },
    /// A `DB.NavigationURL` without a `*`.
    NoStar,
}

/// What a value's grammar could have read at the point of a syntax error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    End,
    Url,
    /// `GET` or `POST`.
    Method,
    Number,
    /// `YES` or `NO`.
    YesNo,
    /// An item of a value list.
    Value,
    /// `/simple regex/`.
    Pattern,
    /// A URL with `*`.
    UrlWithStar,
    Name,
    /// A `Name: value` line.
    Entry,
    Other,
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Expected::End => "end of the value",
            Expected::Url => "a URL",
            Expected::Method => "GET or POST",
            Expected::Number => "a number",
            Expected::YesNo => "YES or NO",
            Expected::Value => "a value",
            Expected::Pattern => "/simple regex/",
            Expected::UrlWithStar => "a URL with *",
            Expected::Name => "a name",
            Expected::Entry => "'Name: value'",
            Expected::Other => "something else",
        })
    }
}

fn expected_found(
    f: &mut fmt::Formatter<'_>,
    expected: &[Expected],
    found: Option<char>,
) -> fmt::Result {
    let found = found.map_or("the end".to_string(), |c| format!("{c:?}"));
    if expected.is_empty() {
        return write!(f, "unexpected {found}");
    }
    let wanted: Vec<String> = expected.iter().map(ToString::to_string).collect();
    write!(f, "expected {}, found {found}", wanted.join(" or "))
}

impl fmt::Display for ValueErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueErrorKind::Syntax { expected, found } => expected_found(f, expected, *found),
            ValueErrorKind::NumberTooLarge { digits } => write!(f, "{digits} is too large"),
            ValueErrorKind::NoStar => {
                f.write_str("has no '*' for the parameter that changes from page to page")
            }
        }
    }
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (line {}, column {} of the value){}",
            self.kind,
            self.span.line,
            self.span.column,
            Excerpt::new(&self.text, &self.span)
        )
    }
}

impl ValueError {
    fn new(value: &str, span: Span, kind: ValueErrorKind) -> ValueError {
        ValueError {
            kind,
            span,
            text: value.to_string(),
        }
    }
}

fn expected_of(rule: &Rule) -> Expected {
    match rule {
        Rule::EOI => Expected::End,
        Rule::url | Rule::script_url | Rule::url_value | Rule::query_script => Expected::Url,
        Rule::method => Expected::Method,
        Rule::number | Rule::number_value => Expected::Number,
        Rule::yes | Rule::no | Rule::yes_no => Expected::YesNo,
        Rule::item | Rule::quoted | Rule::bare | Rule::list | Rule::domain => Expected::Value,
        Rule::pattern => Expected::Pattern,
        Rule::star | Rule::nav_text | Rule::nav_pattern | Rule::navigation_url => {
            Expected::UrlWithStar
        }
        Rule::name => Expected::Name,
        Rule::entry => Expected::Entry,
        _ => Expected::Other,
    }
}

/// Parses `text` as `rule`; a syntax error as its span and kind.
fn syntax(rule: Rule, text: &str) -> Result<Pairs<'_, Rule>, (Span, ValueErrorKind)> {
    MetadataParser::parse(rule, text).map_err(|e| {
        let offset = match e.location {
            pest::error::InputLocation::Pos(p) => p,
            pest::error::InputLocation::Span((s, _)) => s,
        };
        let span = Span::char_at(text, offset);
        let found = text[span.offset..].chars().next();
        let mut expected: Vec<Expected> = Vec::new();
        if let pest::error::ErrorVariant::ParsingError { positives, .. } = &e.variant {
            for x in positives.iter().map(expected_of) {
                if !expected.contains(&x) {
                    expected.push(x);
                }
            }
        }
        if expected.len() > 1 {
            expected.retain(|x| *x != Expected::Other);
        }
        (span, ValueErrorKind::Syntax { expected, found })
    })
}

fn parse(rule: Rule, value: &str) -> Result<Pairs<'_, Rule>, ValueError> {
    syntax(rule, value).map_err(|(span, kind)| ValueError::new(value, span, kind))
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
        ValueError::new(
            value,
            Span::new(value, offset, digits.len()),
            ValueErrorKind::NumberTooLarge { digits },
        )
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
    /// `@URL RULE`: the values the rule yields on the page at URL.
    Page {
        url: String,
        rule: String,
    },
    /// `@answer(PARENT)` (an extension of gather's): the element's options
    /// in the answer to each value of the parent.
    Answer(String),
}

/// `/<simple regex>/`, `@<URL> <HEL rule>`, `@answer(<parent>)` or
/// `<value> {, <value>}`.
pub fn parse_domain(value: &str) -> Result<DomainValue, ValueError> {
    let pairs = parse(Rule::domain, value)?;
    let flat: Vec<_> = pairs.clone().flatten().collect();
    let text = |rule| {
        flat.iter()
            .find(|p| p.as_rule() == rule)
            .map(|p| p.as_str().to_string())
    };
    if let Some(parent) = text(Rule::answer_parent) {
        return Ok(DomainValue::Answer(parent));
    }
    if let (Some(url), Some(rule)) = (text(Rule::page_url), text(Rule::page_rule)) {
        return Ok(DomainValue::Page { url, rule });
    }
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
        return Err(ValueError::new(
            value,
            Span::new(value, offset, value.trim().len()),
            ValueErrorKind::NoStar,
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
    /// Where the name is in the text.
    pub name_span: Span,
    /// Where the value starts in the text, up to the end of its first line.
    pub value_span: Span,
}

/// A line of a configuration file (or DBContent document) that is not
/// `Name: value`, a comment, a blank or a continuation.
///
/// `Display` writes the line and column, what is wrong, then the line
/// with a caret under the fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {}, column {}: {kind}{excerpt}", span.line, span.column)]
pub struct LineError {
    pub kind: LineErrorKind,
    /// Where in the file the fault is.
    pub span: Span,
    /// The offending line, for display.
    pub excerpt: Box<Excerpt>,
}

/// What can be wrong with a line of a configuration file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineErrorKind {
    /// Not `Name: value` (nor a comment, a blank, a continuation).
    Syntax {
        expected: Vec<Expected>,
        found: Option<char>,
    },
    /// An indented line with no `Name: value` line before it to continue.
    OrphanContinuation,
}

impl fmt::Display for LineErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineErrorKind::Syntax { expected, found } => expected_found(f, expected, *found),
            LineErrorKind::OrphanContinuation => f.write_str(
                "an indented line continues a value, but no 'Name: value' line comes before it",
            ),
        }
    }
}

impl LineError {
    fn new(text: &str, span: Span, kind: LineErrorKind) -> LineError {
        LineError {
            kind,
            excerpt: Box::new(Excerpt::new(text, &span)),
            span,
        }
    }
}

/// The `Name: value` lines of a configuration file or DBContent document.
/// A line that starts with white space continues the previous value (an
/// indented line before any name is an error); `#` in the first column
/// starts a comment line.
pub fn parse_lines(text: &str) -> Result<Vec<Line>, LineError> {
    let pairs = syntax(Rule::config_file, text).map_err(|(span, kind)| {
        let kind = match kind {
            // At the start of a line anything but 'Name: value' is one of
            // the line kinds that need no saying.
            ValueErrorKind::Syntax { expected, found } if expected.contains(&Expected::Entry) => {
                LineErrorKind::Syntax {
                    expected: vec![Expected::Entry],
                    found,
                }
            }
            ValueErrorKind::Syntax { expected, found } => LineErrorKind::Syntax { expected, found },
            // The grammar of lines has no other fault.
            _ => LineErrorKind::Syntax {
                expected: Vec::new(),
                found: None,
            },
        };
        LineError::new(text, span, kind)
    })?;
    let mut out: Vec<Line> = Vec::new();
    for pair in pairs.flatten() {
        let (line, column) = pair.line_col();
        let pair_span = pair.as_span();
        match pair.as_rule() {
            Rule::entry => {
                let mut name = String::new();
                let mut value = String::new();
                let mut value_column = column;
                let mut name_span = Span::point(text, pair_span.start());
                let mut value_span = Span::point(text, pair_span.end());
                for inner in pair.into_inner() {
                    let at = inner.as_span();
                    match inner.as_rule() {
                        Rule::name => {
                            name = inner.as_str().to_string();
                            name_span = Span::new(text, at.start(), at.end() - at.start());
                        }
                        Rule::entry_value => {
                            value = inner.as_str().trim_end().to_string();
                            value_column = inner.line_col().1;
                            value_span = Span::new(text, at.start(), value.len());
                        }
                        _ => {}
                    }
                }
                out.push(Line {
                    name,
                    value,
                    line,
                    column: value_column,
                    name_span,
                    value_span,
                });
            }
            Rule::continuation => {
                let Some(last) = out.last_mut() else {
                    let len = pair.as_str().trim_end().len();
                    return Err(LineError::new(
                        text,
                        Span::new(text, pair_span.start(), len),
                        LineErrorKind::OrphanContinuation,
                    ));
                };
                last.value.push('\n');
                last.value.push_str(pair.as_str().trim_end());
            }
            _ => {}
        }
    }
    Ok(out)
}

fn find(pairs: Pairs<'_, Rule>, rule: Rule) -> Option<String> {
    pairs
        .flatten()
        .find(|p| p.as_rule() == rule)
        .map(|p| p.as_str().to_string())
}

fn items(pairs: Pairs<'_, Rule>) -> Vec<String> {
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
        assert_eq!((e.span.line, e.span.column), (1, 7), "{e}");
        assert!(
            matches!(&e.kind, ValueErrorKind::Syntax { expected, found: Some('P') }
                if expected == &[Expected::End]),
            "{e:?}"
        );
    }

    #[test]
    fn lists_with_quotes_and_inner_spaces() {
        assert_eq!(
            parse_list("Fischland, Rügen,Usedom").unwrap(),
            ["Fischland", "Rügen", "Usedom"]
        );
        let e = parse_list(r#"Bad Doberan, "Ribnitz, Damgarten", 'it''s'"#).unwrap_err();
        assert_eq!(e.span.column, 40);
        assert!(matches!(e.kind, ValueErrorKind::Syntax { .. }));
        assert_eq!(
            parse_list(r#"Bad Doberan, "Ribnitz, Damgarten", 'it\'s'"#).unwrap(),
            ["Bad Doberan", "Ribnitz, Damgarten", "it's"]
        );
        let e = parse_list("a,,b").unwrap_err();
        assert_eq!((e.span.line, e.span.column), (1, 3));
        assert!(
            matches!(&e.kind, ValueErrorKind::Syntax { expected, found: Some(',') }
            if expected == &[Expected::Value])
        );
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
            parse_domain(" @answer(author) ").unwrap(),
            DomainValue::Answer("author".into())
        );
        assert!(matches!(
            parse_domain("@answer.html html.body.txt").unwrap(),
            DomainValue::Page { .. }
        ));
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
        let e = parse_number(" 99999999999999999999999").unwrap_err();
        assert!(matches!(e.kind, ValueErrorKind::NumberTooLarge { .. }));
        assert_eq!((e.span.column, e.span.len), (2, 23));
        let e = parse_number("12a").unwrap_err();
        assert!(matches!(
            e.kind,
            ValueErrorKind::Syntax {
                found: Some('a'),
                ..
            }
        ));
        assert_eq!(e.span.column, 3);
        assert!(parse_yes_no("no").is_ok_and(|y| !y));
        assert!(parse_yes_no("Yes").is_ok_and(|y| y));
        assert!(parse_yes_no("nope").is_err());
        assert_eq!(
            parse_navigation_url("http://x/q?r=*&page=*").unwrap(),
            "http://x/q?r=*&page=*"
        );
        let e = parse_navigation_url(" http://x/q?page=2").unwrap_err();
        assert_eq!((e.kind, e.span.column), (ValueErrorKind::NoStar, 2));
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
        assert_eq!(lines[1].name_span.offset, 36);
        assert_eq!(&text[lines[1].value_span.offset..][..3], "tr[");
        let e = parse_lines("  orphan\nA: b").unwrap_err();
        assert_eq!(e.kind, LineErrorKind::OrphanContinuation);
        assert_eq!((e.span.line, e.span.column), (1, 1));
        let e = parse_lines("A: b\nno colon here").unwrap_err();
        assert!(matches!(e.kind, LineErrorKind::Syntax { .. }), "{e}");
        assert_eq!(e.span.line, 2, "{e}");
    }
}

#[cfg(test)]
mod display {
    use super::*;

    #[test]
    fn value_errors_show_the_value_with_a_caret() {
        let e = parse_query_script("q.pl, PUT").unwrap_err();
        assert_eq!(
            e.to_string(),
            "expected end of the value, found 'P' (line 1, column 7 of the value)\n  q.pl, PUT\n        ^"
        );
        let e = parse_lines("A: b\n  c\nno colon here\n").unwrap_err();
        let shown = e.to_string();
        assert!(shown.starts_with("line 3, column "), "{shown}");
        assert_eq!(
            shown,
            "line 3, column 1: expected 'Name: value', found 'n'\n  3 | no colon here\n    | ^"
        );
    }
}

//! DB metadata: what a provider says about its form (spec/metadata.md).
//!
//! Metadata comes as a list of [`Entry`]s — `DB.*` meta tags of a page, the
//! lines of a configuration file, the keys of a YAML spec — each with the
//! place it came from. [`Metadata::from_entries`] reads them in order and
//! reports every problem with that place.
//!
//! Decisions where metadata.md is silent:
//! - The entries of a configuration file follow the page's meta tags, as if
//!   appended to the page: a later value overrides an earlier one, so the
//!   file wins, and a `DB.Result` prefix set in the page applies to the
//!   file's relative rules until the file sets its own.
//! - `DB.QueryElement` and `DB.QueryElements` set the same list; the last
//!   one given wins.
//! - A `DB.Result.<attribute>` named twice keeps its first position in the
//!   result order and the last value.
//! - A `DB.Result.<attribute>` value that does not parse as a HEL rule is a
//!   value list — unless it looks like a rule (starts with `html.` or
//!   `html->`, contains `->`, `.txt`, `.src`, `.getAttr(` or `.numberOf(`):
//!   then it is reported as a rule that does not parse.

mod dbcontent;
mod html;
mod pattern;
mod values;

use std::collections::{BTreeMap, HashMap};
use std::fmt;

pub use dbcontent::{DbContent, DbContentError, DbContentErrorKind, DbTable};
pub(crate) use html::page_meta;
pub use html::{read_meta_tags, PageMeta};
pub use pattern::{Pattern, PatternError, PatternErrorKind};
pub use values::{
    parse_domain, parse_lines, parse_list, parse_navigation_url, parse_number, parse_query_script,
    parse_url, parse_yes_no, quote_item, DomainValue, Expected, Line, LineError, LineErrorKind,
    ValueError, ValueErrorKind,
};

use crate::fetch::Method;
use crate::hel::{Rule, RuleError};

/// Where a piece of metadata was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A `<META>` tag of a page; the line is a best effort.
    MetaTag { page: String, line: Option<usize> },
    /// A `Name: value` line of a configuration file.
    ConfigLine { file: String, line: usize },
    /// A key of a YAML spec (`results[2].rule`, `domains.region`).
    SpecKey { file: String, key: String },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::MetaTag {
                page,
                line: Some(line),
            } => write!(f, "{page} line {line} (meta tag)"),
            Origin::MetaTag { page, line: None } => write!(f, "{page} (meta tag)"),
            Origin::ConfigLine { file, line } => write!(f, "{file} line {line}"),
            Origin::SpecKey { file, key } => write!(f, "{file} key {key}"),
        }
    }
}

/// How a value is to be read when its writer said so (YAML specs do).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    Rule,
    Values,
}

/// One `Name: value` of metadata, with where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The name as written (`DB.Result.ort`, or `Result.ort` in a file).
    pub name: String,
    pub value: String,
    pub origin: Origin,
    /// Set by specs, whose `rule:`/`values:` keys say what a value is.
    pub hint: Option<ValueKind>,
}

/// The values a query element takes: listed by the provider, or generated
/// from a simple regex.
#[derive(Debug, Clone)]
pub enum Domain {
    Values(Vec<String>),
    Pattern(Pattern),
}

impl Domain {
    /// Number of values.
    pub fn len(&self) -> u64 {
        match self {
            Domain::Values(v) => v.len() as u64,
            Domain::Pattern(p) => p.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value with this index, generated on demand for a pattern.
    pub fn get(&self, index: u64) -> Option<String> {
        match self {
            Domain::Values(v) => usize::try_from(index).ok().and_then(|i| v.get(i)).cloned(),
            Domain::Pattern(p) => p.get(index),
        }
    }

    /// The value as it is written in metadata.
    pub fn to_value(&self) -> String {
        match self {
            Domain::Values(v) => v
                .iter()
                .map(|s| quote_item(s))
                .collect::<Vec<_>>()
                .join(", "),
            Domain::Pattern(p) => format!("/{}/", p.source()),
        }
    }
}

/// One `DB.Result.<attribute>`.
#[derive(Debug, Clone)]
pub struct ResultSpec {
    pub attribute: String,
    pub kind: ResultKind,
}

/// A result attribute is extracted by a rule, or indexed as listed.
#[derive(Debug, Clone)]
pub enum ResultKind {
    Rule(Rule),
    Values(Vec<String>),
}

/// Everything a provider said, parsed and checked.
#[derive(Debug, Clone, Default)]
pub struct Metadata {
    pub config_file: Option<String>,
    pub query_script: Option<(String, Option<Method>)>,
    pub query_elements: Vec<String>,
    /// `DB.QueryElement.<element>`, by element.
    pub domains: BTreeMap<String, Domain>,
    /// `DB.QueryElement.<element> = @<URL> <HEL rule>`, by element: the
    /// domain is the values the rule yields on that page (URL relative to
    /// the form page), read when the source is loaded
    /// ([`crate::source`]), which puts them into `domains`.
    pub domain_pages: BTreeMap<String, (String, Rule)>,
    /// `DB.QueryElement.<element> = @answer(<parent>)` (gather's
    /// extension), by element: a dependent element, whose domain is its
    /// options in the answer to each value of its parent, read when the
    /// source is loaded ([`crate::plan::live`]).
    pub answer_domains: BTreeMap<String, String>,
    pub max_queries: Option<u64>,
    pub max_pages: Option<u64>,
    /// `DB.ResultCount`: a rule on a query's first result page whose first
    /// number is the provider's hit count for the query (read as written:
    /// the `DB.Result` prefix does not apply).
    pub result_count: Option<Rule>,
    /// `DB.MaxResults`: the most hits the provider shows for one query.
    pub max_results: Option<u64>,
    /// `DB.Refine`: the elements the provider allows a truncated query to be
    /// refined by; empty when not given (then any element with a determined
    /// domain may be used).
    pub refine: Vec<String>,
    /// Document order, `DB.Result` prefixes applied.
    pub results: Vec<ResultSpec>,
    /// `DB.NavigationURL` as written (`*` for each changing parameter); a
    /// relative pattern is relative to the result page.
    pub navigation_url: Option<String>,
    /// `DB.Navigation`: `Some(false)` for NO, `Some(true)` for YES.
    pub navigation: Option<bool>,
    /// `DB.HeaderRows`: `Some(false)` for NO: a row only one rule reads
    /// heads no records ([`crate::record`]).
    pub header_rows: Option<bool>,
    pub summarizer: Option<String>,
    /// Where each name that was used was written (key: the canonical name,
    /// e.g. `DB.QueryElements`, `DB.QueryElement.region`), for messages
    /// about problems found later (a query element the form lacks).
    pub origins: BTreeMap<String, Origin>,
    /// Each rule attribute's rule as the user reads it: the `DB.Result`
    /// prefix in force written in front of a relative rule. For display and
    /// specs; the HEL parser applies the prefix itself (to the conditions too).
    pub rule_texts: BTreeMap<String, String>,
}

/// What is wrong with one piece of metadata.
#[derive(Debug, Clone, thiserror::Error)]
pub enum MetadataError {
    #[error("unknown name {name:?}; the DB names are DB.ConfigFile, DB.QueryScript, DB.QueryElement, DB.QueryElements, DB.QueryElement.<element>, DB.MaxQueries, DB.MaxPages, DB.ResultCount, DB.MaxResults, DB.Refine, DB.Result, DB.Result.<attribute>, DB.NavigationURL, DB.Navigation, DB.HeaderRows, DB.Summarizer")]
    UnknownName { name: String },
    #[error("{name}: {error}")]
    Value { name: String, error: ValueError },
    #[error("{name}: the rule does not parse at line {}, column {} of the {}: {error}", error.span.line, error.span.column, if error.in_prefix { "DB.Result prefix" } else { "rule" })]
    Rule { name: String, error: Box<RuleError> },
    #[error("{name}: {error}")]
    Pattern { name: String, error: PatternError },
    /// `DB.QueryElement` naming more than one element.
    #[error("{name}: names {count} elements; use DB.QueryElements for more than one")]
    SeveralElements { name: String, count: usize },
    /// A query element named twice.
    #[error("{name}: names the element {element:?} twice")]
    ElementTwice { name: String, element: String },
    /// A line of a configuration file that is not `Name: value`.
    #[error("configuration file: {error}")]
    ConfigLine { error: LineError },
    /// A `DB.Result.<attribute>` name an index cannot carry (SOIF attribute
    /// names have no white space, control characters or braces).
    #[error("{name}: the attribute name {attribute:?} cannot be indexed: an attribute name has no white space, control characters, '{{' or '}}'")]
    AttributeName { name: String, attribute: String },
}

impl MetadataError {
    /// The DB name concerned (as metadata.md writes it, or as the entry wrote it).
    pub fn name(&self) -> &str {
        match self {
            MetadataError::UnknownName { name }
            | MetadataError::Value { name, .. }
            | MetadataError::Rule { name, .. }
            | MetadataError::Pattern { name, .. }
            | MetadataError::SeveralElements { name, .. }
            | MetadataError::AttributeName { name, .. }
            | MetadataError::ElementTwice { name, .. } => name,
            MetadataError::ConfigLine { .. } => "configuration file",
        }
    }
}

/// A problem with where it was found.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{origin}: {error}")]
pub struct Problem {
    pub origin: Origin,
    pub error: MetadataError,
}

/// The names of metadata.md §2, as read from a meta tag, a configuration
/// line (where `DB.` is optional) or a spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Name<'a> {
    ConfigFile,
    QueryScript,
    QueryElement,
    QueryElements,
    Domain(&'a str),
    MaxQueries,
    MaxPages,
    ResultCount,
    MaxResults,
    Refine,
    Result,
    ResultAttribute(&'a str),
    NavigationUrl,
    Navigation,
    HeaderRows,
    Summarizer,
}

/// The DB name an entry's name stands for (case-insensitive, `DB.`
/// optional); `None` for an unknown name.
pub fn classify(name: &str) -> Option<Name<'_>> {
    let name = name.trim();
    let base = match name.get(..3) {
        Some(p) if p.eq_ignore_ascii_case("db.") => &name[3..],
        _ => name,
    };
    let lower = base.to_ascii_lowercase();
    let suffix = |prefix: &str| {
        lower
            .starts_with(prefix)
            .then(|| &base[prefix.len()..])
            .filter(|s| !s.is_empty())
    };
    Some(match lower.as_str() {
        "configfile" => Name::ConfigFile,
        "queryscript" => Name::QueryScript,
        "queryelement" => Name::QueryElement,
        "queryelements" => Name::QueryElements,
        "maxqueries" => Name::MaxQueries,
        "maxpages" => Name::MaxPages,
        "resultcount" => Name::ResultCount,
        "maxresults" => Name::MaxResults,
        "refine" => Name::Refine,
        "result" => Name::Result,
        "navigationurl" => Name::NavigationUrl,
        "navigation" => Name::Navigation,
        "headerrows" => Name::HeaderRows,
        "summarizer" => Name::Summarizer,
        _ => {
            if let Some(e) = suffix("queryelement.") {
                Name::Domain(e)
            } else if let Some(a) = suffix("result.") {
                Name::ResultAttribute(a)
            } else {
                return None;
            }
        }
    })
}

/// True when a value is meant as a HEL rule (see the module docs).
fn looks_like_rule(value: &str) -> bool {
    let v = value.trim_start().to_ascii_lowercase();
    v.starts_with("html.")
        || v.starts_with("html->")
        || v.contains("->")
        || [".txt", ".src", ".getattr(", ".numberof("]
            .iter()
            .any(|p| v.contains(p))
}

impl Metadata {
    /// Reads entries in document order. Returns what could be read and every
    /// problem found; the metadata is usable only when there are none.
    /// The attributes given by HEL rules, with their rules, in order (the
    /// attributes given as value lists are left out).
    pub fn rules(&self) -> Vec<(String, Rule)> {
        self.results
            .iter()
            .filter_map(|r| match &r.kind {
                ResultKind::Rule(rule) => Some((r.attribute.clone(), rule.clone())),
                ResultKind::Values(_) => None,
            })
            .collect()
    }

    pub fn from_entries(entries: &[Entry]) -> (Metadata, Vec<Problem>) {
        let mut md = Metadata::default();
        let mut problems = Vec::new();
        let mut prefix: Option<String> = None;
        // Attribute → its place in `md.results`: a page with 50,000 result
        // names is read in linear time.
        let mut result_at: HashMap<String, usize> = HashMap::new();
        for entry in entries {
            let mut problem = |error: MetadataError| {
                problems.push(Problem {
                    origin: entry.origin.clone(),
                    error,
                })
            };
            let Some(kind) = classify(&entry.name) else {
                problem(MetadataError::UnknownName {
                    name: entry.name.clone(),
                });
                continue;
            };
            let canonical = canonical_name(&kind);
            let value_err = |error: ValueError| MetadataError::Value {
                name: canonical.clone(),
                error,
            };
            let value = entry.value.as_str();
            let outcome: Result<(), MetadataError> = match kind {
                Name::ConfigFile => parse_url(value)
                    .map(|u| md.config_file = Some(u))
                    .map_err(value_err),
                Name::Summarizer => parse_url(value)
                    .map(|u| md.summarizer = Some(u))
                    .map_err(value_err),
                Name::QueryScript => parse_query_script(value)
                    .map(|s| md.query_script = Some(s))
                    .map_err(value_err),
                Name::QueryElement | Name::QueryElements => {
                    parse_list(value).map_err(value_err).and_then(|list| {
                        if matches!(kind, Name::QueryElement) && list.len() > 1 {
                            return Err(MetadataError::SeveralElements {
                                name: canonical.clone(),
                                count: list.len(),
                            });
                        }
                        let mut unique: Vec<String> = Vec::new();
                        for e in list {
                            if unique.contains(&e) {
                                return Err(MetadataError::ElementTwice {
                                    name: canonical.clone(),
                                    element: e,
                                });
                            }
                            unique.push(e);
                        }
                        md.query_elements = unique;
                        Ok(())
                    })
                }
                Name::Domain(element) => {
                    let parsed = match entry.hint {
                        Some(ValueKind::Values) => parse_list(value).map(DomainValue::Values),
                        _ => parse_domain(value),
                    };
                    parsed.map_err(value_err).and_then(|d| {
                        let domain = match d {
                            DomainValue::Page { url, rule } => {
                                let rule =
                                    Rule::parse(&rule).map_err(|error| MetadataError::Rule {
                                        name: canonical.clone(),
                                        error: Box::new(error),
                                    })?;
                                md.domain_pages.insert(element.to_string(), (url, rule));
                                return Ok(());
                            }
                            DomainValue::Answer(parent) => {
                                md.answer_domains.insert(element.to_string(), parent);
                                return Ok(());
                            }
                            DomainValue::Values(v) => Domain::Values(v),
                            DomainValue::Pattern(p, _) => {
                                Domain::Pattern(Pattern::parse(&p).map_err(|error| {
                                    MetadataError::Pattern {
                                        name: canonical.clone(),
                                        error,
                                    }
                                })?)
                            }
                        };
                        md.domains.insert(element.to_string(), domain);
                        Ok(())
                    })
                }
                Name::MaxQueries => parse_number(value)
                    .map(|n| md.max_queries = Some(n))
                    .map_err(value_err),
                Name::MaxPages => parse_number(value)
                    .map(|n| md.max_pages = Some(n))
                    .map_err(value_err),
                Name::MaxResults => parse_number(value)
                    .map(|n| md.max_results = Some(n))
                    .map_err(value_err),
                Name::ResultCount => Rule::parse(value.trim())
                    .map(|rule| md.result_count = Some(rule))
                    .map_err(|error| MetadataError::Rule {
                        name: canonical.clone(),
                        error: Box::new(error),
                    }),
                Name::Refine => parse_list(value)
                    .map(|list| md.refine = list)
                    .map_err(value_err),
                Name::Result => {
                    let p = value.trim();
                    prefix = (!p.is_empty()).then(|| p.to_string());
                    Ok(())
                }
                Name::ResultAttribute(attribute) if !crate::soif::is_valid_name(attribute) => {
                    Err(MetadataError::AttributeName {
                        name: canonical.clone(),
                        attribute: attribute.to_string(),
                    })
                }
                Name::ResultAttribute(attribute) => {
                    read_result(value, entry.hint, prefix.as_deref(), &canonical).map(|kind| {
                        match &kind {
                            ResultKind::Rule(_) => {
                                md.rule_texts.insert(
                                    attribute.to_string(),
                                    rule_text(value, prefix.as_deref()),
                                );
                            }
                            ResultKind::Values(_) => {
                                md.rule_texts.remove(attribute);
                            }
                        }
                        let spec = ResultSpec {
                            attribute: attribute.to_string(),
                            kind,
                        };
                        match result_at.get(attribute) {
                            Some(&at) => md.results[at] = spec,
                            None => {
                                result_at.insert(attribute.to_string(), md.results.len());
                                md.results.push(spec);
                            }
                        }
                    })
                }
                Name::NavigationUrl => parse_navigation_url(value)
                    .map(|u| md.navigation_url = Some(u))
                    .map_err(value_err),
                Name::Navigation => parse_yes_no(value)
                    .map(|b| md.navigation = Some(b))
                    .map_err(value_err),
                Name::HeaderRows => parse_yes_no(value)
                    .map(|b| md.header_rows = Some(b))
                    .map_err(value_err),
            };
            match outcome {
                Ok(()) => {
                    let key = match kind_key(&canonical) {
                        Some(k) => k,
                        None => canonical.clone(),
                    };
                    md.origins.insert(key, entry.origin.clone());
                }
                Err(e) => problem(e),
            }
        }
        (md, problems)
    }

    /// Like [`Metadata::from_entries`], but only metadata without problems.
    pub fn parse(entries: &[Entry]) -> Result<Metadata, Vec<Problem>> {
        let (md, problems) = Metadata::from_entries(entries);
        if problems.is_empty() {
            Ok(md)
        } else {
            Err(problems)
        }
    }

    /// Where `DB.QueryElement`/`DB.QueryElements` was written.
    pub fn query_elements_origin(&self) -> Option<&Origin> {
        self.origins.get("DB.QueryElements")
    }
}

/// `DB.QueryElement` and `DB.QueryElements` share one origin key.
fn kind_key(canonical: &str) -> Option<String> {
    (canonical == "DB.QueryElement").then(|| "DB.QueryElements".to_string())
}

/// The name as metadata.md writes it (`DB.QueryElement.region`).
pub fn canonical_name(kind: &Name<'_>) -> String {
    match kind {
        Name::ConfigFile => "DB.ConfigFile".into(),
        Name::QueryScript => "DB.QueryScript".into(),
        Name::QueryElement => "DB.QueryElement".into(),
        Name::QueryElements => "DB.QueryElements".into(),
        Name::Domain(e) => format!("DB.QueryElement.{e}"),
        Name::MaxQueries => "DB.MaxQueries".into(),
        Name::MaxPages => "DB.MaxPages".into(),
        Name::ResultCount => "DB.ResultCount".into(),
        Name::MaxResults => "DB.MaxResults".into(),
        Name::Refine => "DB.Refine".into(),
        Name::Result => "DB.Result".into(),
        Name::ResultAttribute(a) => format!("DB.Result.{a}"),
        Name::NavigationUrl => "DB.NavigationURL".into(),
        Name::Navigation => "DB.Navigation".into(),
        Name::HeaderRows => "DB.HeaderRows".into(),
        Name::Summarizer => "DB.Summarizer".into(),
    }
}

/// A rule with the prefix in force written in front when it is relative.
fn rule_text(rule: &str, prefix: Option<&str>) -> String {
    let rule = rule.trim();
    match prefix {
        Some(p) if !rule.to_ascii_lowercase().starts_with("html") => format!("{p}{rule}"),
        _ => rule.to_string(),
    }
}

/// Reads a `DB.Result.<attribute>` value as a rule or a value list (see
/// the module docs), with the `DB.Result` prefix in force.
pub(crate) fn read_result(
    value: &str,
    hint: Option<ValueKind>,
    prefix: Option<&str>,
    name: &str,
) -> Result<ResultKind, MetadataError> {
    let as_rule = || {
        Rule::parse_with_prefix(value.trim(), prefix).map_err(|error| MetadataError::Rule {
            name: name.to_string(),
            error: Box::new(error),
        })
    };
    let as_values = || {
        parse_list(value).map_err(|error| MetadataError::Value {
            name: name.to_string(),
            error,
        })
    };
    match hint {
        Some(ValueKind::Rule) => as_rule().map(ResultKind::Rule),
        Some(ValueKind::Values) => as_values().map(ResultKind::Values),
        None => match as_rule() {
            Ok(rule) => Ok(ResultKind::Rule(rule)),
            Err(e) if looks_like_rule(value) => Err(e),
            Err(_) => as_values().map(ResultKind::Values),
        },
    }
}

/// Reads a configuration file: an HTML document with the same meta tags,
/// or `Name: value` lines (see [`parse_lines`]).
pub fn read_config_file(text: &str, file: &str) -> Result<Vec<Entry>, Box<Problem>> {
    if text.trim_start().starts_with('<') {
        return Ok(read_meta_tags(text, file).entries);
    }
    let lines = parse_lines(text).map_err(|error| {
        Box::new(Problem {
            origin: Origin::ConfigLine {
                file: file.to_string(),
                line: error.span.line,
            },
            error: MetadataError::ConfigLine { error },
        })
    })?;
    Ok(lines
        .into_iter()
        .map(|l| Entry {
            name: l.name,
            value: l.value,
            origin: Origin::ConfigLine {
                file: file.to_string(),
                line: l.line,
            },
            hint: None,
        })
        .collect())
}

#[cfg(test)]
mod tests;

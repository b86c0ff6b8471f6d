//! YAML specs: the operator writes the metadata a provider did not
//! (metadata.md §1.3). Every DB name has exactly one key; `specs/README.md`
//! documents the format. A spec becomes the same list of
//! [`Entry`]s that meta tags give, so it is checked and planned by the very
//! same code, and each problem names its key (`results[2].rule`).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::metadata::{
    canonical_name, classify, parse_domain, parse_list, quote_item, read_result, DomainValue,
    Entry, Name, Origin, ResultKind, ValueKind,
};

/// A source description in YAML.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// The page with the query form.
    pub url: String,
    /// Which form of the page: its position (from 0), or its name or id.
    /// Default: the first form that has all query elements.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<FormRef>,
    /// HTTP Basic credentials, `HOST[:PORT]=USER:PASS`, each sent to its host only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub auth: Vec<String>,
    /// An environment variable that holds `HOST[:PORT]=USER:PASS`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth_env: Option<String>,
    /// DB.ConfigFile
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_file: Option<String>,
    /// DB.QueryScript: `URL` or `URL, POST`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query_script: Option<String>,
    /// DB.QueryElement
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query_element: Option<String>,
    /// DB.QueryElements: a list, or one comma-separated string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query_elements: Option<Values>,
    /// `DB.QueryElement.<element>`: `/simple regex/`, a comma-separated
    /// string, or a list of values (taken as they are).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub domains: BTreeMap<String, Values>,
    /// DB.MaxQueries
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_queries: Option<u64>,
    /// DB.MaxPages
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_pages: Option<u64>,
    /// DB.ResultCount: a HEL rule whose first number is the hit count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_count: Option<String>,
    /// DB.MaxResults
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_results: Option<u64>,
    /// DB.Refine: a list, or one comma-separated string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refine: Option<Values>,
    /// `DB.Result` (`prefix:`) and `DB.Result.<attribute>` (`attribute:` with
    /// `rule:` or `values:`), in document order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub results: Vec<ResultItem>,
    /// DB.NavigationURL
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub navigation_url: Option<String>,
    /// DB.Navigation: `yes`/`no` (or `true`/`false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub navigation: Option<YesNo>,
    /// DB.HeaderRows: `no` (or `false`) keeps rows that only one rule reads
    /// from heading the records below them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header_rows: Option<YesNo>,
    /// DB.Summarizer
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summarizer: Option<String>,
    /// How the text of the ordinary pages crawled on this spec's host is
    /// reduced to their main content: `article`, `ntpc`, `lev`, `sst` or `none`
    /// ([`crate::boilerplate`]); `--boilerplate` overrides it.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "boilerplate_method"
    )]
    pub boilerplate: Option<crate::boilerplate::Method>,
    /// Keys left out because their values had the wrong type (key, what is
    /// wrong), when the spec was read with [`Spec::from_yaml_listing`]; they
    /// are the first problems [`Spec::entries_with_errors`] lists.
    #[serde(skip)]
    pub wrong_keys: Vec<(String, String)>,
}

/// `boilerplate:` as its method's name.
mod boilerplate_method {
    use crate::boilerplate::Method;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(m: &Option<Method>, s: S) -> Result<S::Ok, S::Error> {
        match m {
            Some(m) => s.serialize_str(m.name()),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Method>, D::Error> {
        let name = String::deserialize(d)?;
        name.parse().map(Some).map_err(serde::de::Error::custom)
    }
}

fn read(path: &Path) -> Result<String, SpecError> {
    std::fs::read_to_string(path).map_err(|error| SpecError::Io {
        path: path.display().to_string(),
        error,
    })
}

/// The spec's top-level mapping without the keys whose values do not fit
/// their key, and those keys with what is wrong (and the line of the key);
/// `None` when the text is no YAML mapping.
fn wrong_keys(text: &str) -> Option<(serde_norway::Value, Vec<(String, String)>)> {
    let Ok(serde_norway::Value::Mapping(map)) = serde_norway::from_str(text) else {
        return None;
    };
    // Each key alone (with a url, which every spec needs), so that one
    // wrong key does not hide the next.
    let mut rest = serde_norway::Mapping::new();
    let mut wrong = Vec::new();
    for (key, value) in map {
        let mut one = serde_norway::Mapping::new();
        one.insert("url".into(), "http://spec.invalid/".into());
        one.insert(key.clone(), value.clone());
        match serde_norway::from_value::<Spec>(serde_norway::Value::Mapping(one)) {
            Ok(_) => {
                rest.insert(key, value);
            }
            Err(e) => {
                let name = key.as_str().unwrap_or("?").to_string();
                let line = text.lines().position(|l| {
                    l.strip_prefix(name.as_str())
                        .is_some_and(|r| r.trim_start().starts_with(':'))
                });
                let e = in_users_words(&e.to_string());
                let message = match line {
                    Some(n) => format!("{e} (line {})", n + 1),
                    None => e,
                };
                wrong.push((name, message));
            }
        }
    }
    Some((serde_norway::Value::Mapping(rest), wrong))
}

/// A value-type error of serde in the words of a spec's reader: `expected
/// u64` becomes `expected a whole number (0, 1, 2, …)`.
fn in_users_words(message: &str) -> String {
    const WORDS: [(&str, &str); 10] = [
        ("expected u64", "expected a whole number (0, 1, 2, …)"),
        ("expected u32", "expected a whole number (0, 1, 2, …)"),
        ("expected usize", "expected a whole number (0, 1, 2, …)"),
        ("expected u16", "expected a whole number (0, 1, 2, …)"),
        ("expected i64", "expected a whole number"),
        ("expected f64", "expected a number"),
        ("expected a boolean", "expected true or false"),
        (
            "expected a sequence",
            "expected a list (`- item` lines, or [a, b])",
        ),
        ("expected a map", "expected `key: value` lines"),
        ("expected a string", "expected a text"),
    ];
    let mut out = message
        .replace("invalid type: ", "")
        .replace("invalid value: ", "");
    for (serde, words) in WORDS {
        out = out.replace(serde, words);
    }
    out
}

/// A form by position or by name/id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    untagged,
    expecting = "expected a form's position (0, 1, …) or its name or id"
)]
pub enum FormRef {
    Index(usize),
    Name(String),
}

/// One value string, or a list of values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged, expecting = "expected a string or a list of strings")]
pub enum Values {
    One(String),
    List(Vec<String>),
}

/// YES/NO as a boolean or a word.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged, expecting = "expected yes or no (or true or false)")]
pub enum YesNo {
    Bool(bool),
    Word(String),
}

/// One item of `results`: a prefix, or an attribute with its rule or values.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultItem {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribute: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Values>,
}

/// A spec that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("spec {path}: {error}")]
    Io { path: String, error: std::io::Error },
    /// The YAML error says the line and column.
    #[error("spec {path}: {}", in_users_words(&error.to_string()))]
    Yaml {
        path: String,
        error: serde_norway::Error,
    },
    #[error("spec {path} key {key}: {message}")]
    Key {
        path: String,
        key: String,
        message: String,
    },
    /// Several keys are wrong (unknown, or a value of the wrong type);
    /// every one is listed.
    #[error("spec {path}: {} keys are wrong{}", errors.len(), errors.iter().map(|e| format!("\n  - {e}")).collect::<String>())]
    Keys {
        path: String,
        errors: Vec<SpecError>,
    },
}

impl Spec {
    /// Reads a spec file.
    pub fn load(path: &Path) -> Result<Spec, SpecError> {
        let shown = path.display().to_string();
        Spec::from_yaml(&read(path)?, &shown)
    }

    /// Reads a spec file as [`Spec::from_yaml_listing`] does.
    pub fn load_listing(path: &Path) -> Result<Spec, SpecError> {
        let shown = path.display().to_string();
        Spec::from_yaml_listing(&read(path)?, &shown)
    }

    /// Parses the YAML text of a spec; `path` names it in messages.
    ///
    /// When values have the wrong type (`max_queries: many`), every key at
    /// fault is named with what it should hold, not only the first.
    pub fn from_yaml(text: &str, path: &str) -> Result<Spec, SpecError> {
        let first = match serde_norway::from_str(text) {
            Ok(spec) => return Ok(spec),
            Err(error) => error,
        };
        let errors = match wrong_keys(text) {
            Some((_, wrong)) if wrong.len() > 1 => wrong,
            // One wrong key: YAML's own error, which has its line and column.
            _ => {
                return Err(SpecError::Yaml {
                    path: path.to_string(),
                    error: first,
                })
            }
        };
        Err(SpecError::Keys {
            path: path.to_string(),
            errors: errors
                .into_iter()
                .map(|(key, message)| SpecError::Key {
                    path: path.to_string(),
                    key,
                    message,
                })
                .collect(),
        })
    }

    /// Like [`Spec::from_yaml`], but keys whose values have the wrong type
    /// are left out and kept in [`Spec::wrong_keys`], so that `gather check`
    /// lists them with every other problem of the spec. Fails as
    /// `from_yaml` does when what is left is no spec.
    pub fn from_yaml_listing(text: &str, path: &str) -> Result<Spec, SpecError> {
        let strict = Spec::from_yaml(text, path);
        if strict.is_ok() {
            return strict;
        }
        let Some((rest, wrong)) = wrong_keys(text) else {
            return strict;
        };
        match serde_norway::from_value::<Spec>(rest) {
            Ok(mut spec) if !wrong.is_empty() => {
                spec.wrong_keys = wrong;
                Ok(spec)
            }
            _ => strict,
        }
    }

    /// The spec as YAML.
    pub fn to_yaml(&self) -> String {
        serde_norway::to_string(self).unwrap_or_default()
    }

    /// The credentials the spec gives (`auth`, and the variable `auth_env`
    /// names), as `HOST[:PORT]=USER:PASS`.
    pub fn credentials(&self, path: &str) -> Result<Vec<String>, SpecError> {
        let mut out = self.auth.clone();
        if let Some(var) = &self.auth_env {
            let value = std::env::var(var).map_err(|_| SpecError::Key {
                path: path.to_string(),
                key: "auth_env".into(),
                message: format!("the environment variable {var} is not set (it should hold HOST[:PORT]=USER:PASS)"),
            })?;
            out.push(value);
        }
        Ok(out)
    }

    /// The metadata entries the spec stands for, in the order meta tags
    /// would give them; `path` is the spec's name in origins.
    pub fn entries(&self, path: &str) -> Result<Vec<Entry>, Vec<SpecError>> {
        let (entries, errors) = self.entries_with_errors(path);
        if errors.is_empty() {
            Ok(entries)
        } else {
            Err(errors)
        }
    }

    /// The entries that could be made, and the problems with the others.
    pub fn entries_with_errors(&self, path: &str) -> (Vec<Entry>, Vec<SpecError>) {
        let mut entries = Vec::new();
        let mut errors: Vec<SpecError> = self
            .wrong_keys
            .iter()
            .map(|(key, message)| SpecError::Key {
                path: path.to_string(),
                key: key.clone(),
                message: message.clone(),
            })
            .collect();
        let mut add = |key: String, name: String, value: String, hint: Option<ValueKind>| {
            entries.push(Entry {
                name,
                value,
                origin: Origin::SpecKey {
                    file: path.to_string(),
                    key,
                },
                hint,
            })
        };
        let joined = |v: &Values| match v {
            Values::One(s) => (s.clone(), None),
            Values::List(l) => (
                l.iter()
                    .map(|s| quote_item(s))
                    .collect::<Vec<_>>()
                    .join(", "),
                Some(ValueKind::Values),
            ),
        };
        let single = [
            ("config_file", "DB.ConfigFile", &self.config_file),
            ("query_script", "DB.QueryScript", &self.query_script),
            ("query_element", "DB.QueryElement", &self.query_element),
            ("result_count", "DB.ResultCount", &self.result_count),
        ];
        for (key, name, value) in single {
            if let Some(v) = value {
                add(key.into(), name.into(), v.clone(), None);
            }
        }
        if let Some(v) = &self.query_elements {
            add(
                "query_elements".into(),
                "DB.QueryElements".into(),
                joined(v).0,
                None,
            );
        }
        for (element, v) in &self.domains {
            let (value, hint) = joined(v);
            add(
                format!("domains.{element}"),
                format!("DB.QueryElement.{element}"),
                value,
                hint,
            );
        }
        if let Some(v) = &self.refine {
            add("refine".into(), "DB.Refine".into(), joined(v).0, None);
        }
        for (key, name, value) in [
            ("max_queries", "DB.MaxQueries", self.max_queries),
            ("max_pages", "DB.MaxPages", self.max_pages),
            ("max_results", "DB.MaxResults", self.max_results),
        ] {
            if let Some(n) = value {
                add(key.into(), name.into(), n.to_string(), None);
            }
        }
        for (i, item) in self.results.iter().enumerate() {
            let key = format!("results[{i}]");
            let mut err = |message: &str| {
                errors.push(SpecError::Key {
                    path: path.to_string(),
                    key: key.clone(),
                    message: message.to_string(),
                })
            };
            match (&item.prefix, &item.attribute, &item.rule, &item.values) {
                (Some(p), None, None, None) => {
                    add(format!("{key}.prefix"), "DB.Result".into(), p.clone(), None)
                }
                (None, Some(a), Some(r), None) => add(
                    format!("{key}.rule"),
                    format!("DB.Result.{a}"),
                    r.clone(),
                    Some(ValueKind::Rule),
                ),
                (None, Some(a), None, Some(v)) => add(
                    format!("{key}.values"),
                    format!("DB.Result.{a}"),
                    joined(v).0,
                    Some(ValueKind::Values),
                ),
                (None, Some(_), None, None) => err("an attribute needs 'rule:' or 'values:'"),
                (None, Some(_), Some(_), Some(_)) => {
                    err("give either 'rule:' or 'values:', not both")
                }
                (Some(_), _, _, _) => err(
                    "'prefix:' stands alone (it is DB.Result); put the attribute in the next item",
                ),
                (None, None, _, _) => err("needs 'prefix:' or 'attribute:'"),
            }
        }
        if let Some(v) = &self.navigation_url {
            add(
                "navigation_url".into(),
                "DB.NavigationURL".into(),
                v.clone(),
                None,
            );
        }
        for (key, name, v) in [
            ("navigation", "DB.Navigation", &self.navigation),
            ("header_rows", "DB.HeaderRows", &self.header_rows),
        ] {
            if let Some(v) = v {
                let word = match v {
                    YesNo::Bool(true) => "YES".to_string(),
                    YesNo::Bool(false) => "NO".to_string(),
                    YesNo::Word(w) => w.clone(),
                };
                add(key.into(), name.into(), word, None);
            }
        }
        if let Some(v) = &self.summarizer {
            add("summarizer".into(), "DB.Summarizer".into(), v.clone(), None);
        }
        (entries, errors)
    }

    /// The spec equivalent to metadata entries (meta tags, then the lines of
    /// their configuration file): each value as written, each DB name under
    /// its key. Entries with an unknown name or a value that does not parse
    /// are left out; `gather check` reports them.
    pub fn from_entries(url: &str, entries: &[Entry]) -> Spec {
        let mut spec = Spec {
            url: url.to_string(),
            ..Spec::default()
        };
        let mut prefix: Option<String> = None;
        for e in entries {
            let Some(name) = classify(&e.name) else {
                continue;
            };
            let v = e.value.clone();
            match name {
                Name::ConfigFile => spec.config_file = Some(v),
                Name::QueryScript => spec.query_script = Some(v),
                Name::QueryElement | Name::QueryElements => {
                    spec.query_element = None;
                    spec.query_elements = parse_list(&v).ok().map(|l| match l.as_slice() {
                        [one] if matches!(name, Name::QueryElement) => Values::One(one.clone()),
                        _ => Values::List(l),
                    });
                    if let Some(Values::One(one)) = &spec.query_elements {
                        spec.query_element = Some(one.clone());
                        spec.query_elements = None;
                    }
                }
                Name::Domain(element) => {
                    let value = match parse_domain(&v) {
                        Ok(
                            DomainValue::Pattern(..)
                            | DomainValue::Page { .. }
                            | DomainValue::Answer(_),
                        ) => Values::One(v.trim().to_string()),
                        Ok(DomainValue::Values(list)) => Values::List(list),
                        Err(_) => continue,
                    };
                    spec.domains.insert(element.to_string(), value);
                }
                Name::MaxQueries => spec.max_queries = v.trim().parse().ok(),
                Name::MaxPages => spec.max_pages = v.trim().parse().ok(),
                Name::MaxResults => spec.max_results = v.trim().parse().ok(),
                Name::ResultCount => spec.result_count = Some(v.trim().to_string()),
                Name::Refine => spec.refine = parse_list(&v).ok().map(Values::List),
                Name::Result => {
                    let p = v.trim().to_string();
                    prefix = (!p.is_empty()).then(|| p.clone());
                    spec.results.push(ResultItem {
                        prefix: Some(p),
                        ..ResultItem::default()
                    });
                }
                Name::ResultAttribute(attribute) => {
                    let item =
                        match read_result(&v, e.hint, prefix.as_deref(), &canonical_name(&name)) {
                            Ok(ResultKind::Rule(_)) => ResultItem {
                                attribute: Some(attribute.to_string()),
                                rule: Some(v.trim().to_string()),
                                ..ResultItem::default()
                            },
                            Ok(ResultKind::Values(list)) => ResultItem {
                                attribute: Some(attribute.to_string()),
                                values: Some(Values::List(list)),
                                ..ResultItem::default()
                            },
                            Err(_) => continue,
                        };
                    spec.results.push(item);
                }
                Name::NavigationUrl => spec.navigation_url = Some(v.trim().to_string()),
                Name::Navigation => {
                    spec.navigation = Some(YesNo::Word(v.trim().to_ascii_uppercase()))
                }
                Name::HeaderRows => {
                    spec.header_rows = Some(YesNo::Word(v.trim().to_ascii_uppercase()))
                }
                Name::Summarizer => spec.summarizer = Some(v.trim().to_string()),
            }
        }
        spec
    }
}

#[cfg(test)]
mod tests;

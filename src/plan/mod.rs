//! The request generator (seed §4.2, §4.4): from a form and its metadata to
//! the queries to send.
//!
//! The queries are the Cartesian product of the query elements' domains, in
//! a stable order: the first query element varies slowest, like nested
//! loops written in the order of `DB.QueryElements`; each domain in its own
//! order (the form's, the listed one, or the simple regex's). Every other
//! element keeps the value a browser would submit when the user changes
//! nothing. The plan counts its queries first and builds each one only when
//! asked for it, so a plan of 10^9 queries holds none of them.

mod encode;
pub mod live;

use std::fmt;

use encoding_rs::Encoding;
use sha2::{Digest, Sha256};
use url::Url;

pub use encode::urlencoded;

use crate::fetch::{Method, Request};
use crate::form::{ElementKind, Enctype, Form};
use crate::metadata::{Domain, Metadata, Origin};

/// The queries for one source, generated on demand.
#[derive(Debug, Clone)]
pub struct QueryPlan {
    action: Url,
    method: Method,
    enctype: Enctype,
    encoding: &'static Encoding,
    slots: Vec<Slot>,
    elements: Vec<(String, Domain)>,
    total: u64,
    len: u64,
    cap: Cap,
    /// The submit button's pairs are sent (a post-back leaves them out).
    pressed: bool,
    /// Hidden inputs sent empty: state tokens that the page a request
    /// follows supplies ([`live`]), so that a query's key stays the same
    /// from run to run.
    blank: Vec<String>,
    /// A tree of values instead of the Cartesian product: each row the
    /// values of the query elements in order (a dependent element's values
    /// read from the answer to its parent's, [`live`]).
    rows: Option<std::sync::Arc<Vec<Vec<String>>>>,
}

/// A limit on the queries of a source or on the result pages of a query,
/// and who set it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cap {
    pub limit: u64,
    /// `DB.MaxQueries`/`DB.MaxPages` or `--max-queries`/`--max-pages`.
    pub by: CapSource,
    /// What it limits.
    pub of: Capped,
}

/// Who set a limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CapSource {
    /// The provider, with `DB.MaxQueries` or `DB.MaxPages`.
    Provider,
    /// The user, with `--max-queries` or `--max-pages`.
    User,
    /// Neither: gather's default ([`DEFAULT_MAX_QUERIES`],
    /// [`crate::navigate::DEFAULT_MAX_PAGES`]), which the user may raise.
    Default,
}

/// What a limit limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capped {
    /// The queries of a source.
    Queries,
    /// The result pages of one query.
    Pages,
}

impl fmt::Display for Cap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (provider, user, what) = match self.of {
            Capped::Queries => ("DB.MaxQueries", "--max-queries", "queries per source"),
            Capped::Pages => ("DB.MaxPages", "--max-pages", "result pages per query"),
        };
        match self.by {
            CapSource::Provider => write!(f, "{provider} {}", self.limit),
            CapSource::User => write!(f, "{user} {}", self.limit),
            CapSource::Default => write!(
                f,
                "the default limit of {} {what} (raise it with {user})",
                self.limit
            ),
        }
    }
}

impl Cap {
    /// The smaller of the provider's and the user's limit on `of`: the user
    /// can lower the provider's limit, never raise it.
    pub fn smaller(of: Capped, provider: Option<u64>, user: Option<u64>) -> Option<Cap> {
        let cap = |by| move |limit| Cap { limit, by, of };
        let p = provider.map(cap(CapSource::Provider));
        let u = user.map(cap(CapSource::User));
        match (p, u) {
            (Some(p), Some(u)) => Some(if u.limit < p.limit { u } else { p }),
            (p, u) => p.or(u),
        }
    }

    /// The limit in force on `of`: the smaller of the provider's and the
    /// user's, else gather's default.
    pub fn in_force(of: Capped, provider: Option<u64>, user: Option<u64>) -> Cap {
        Cap::smaller(of, provider, user).unwrap_or(Cap {
            limit: match of {
                Capped::Queries => DEFAULT_MAX_QUERIES,
                Capped::Pages => crate::navigate::DEFAULT_MAX_PAGES,
            },
            by: CapSource::Default,
            of,
        })
    }
}

/// The queries per source when neither the provider (`DB.MaxQueries`) nor
/// the user (`--max-queries`) sets a limit: a plan larger than this is cut
/// (and `gather check` says so), so that six selects of a hundred options
/// do not start 10^12 requests unnoticed, and an unattended run asks a
/// provider no more than a polite operator would.
pub const DEFAULT_MAX_QUERIES: u64 = 10_000;

#[derive(Debug, Clone)]
enum Slot {
    Fixed(String, String),
    /// The submit button's name and value.
    Button(String, String),
    Query(usize),
}

/// One query: the values of the query elements and the request that sends them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// Position in the plan's order, from 0.
    pub ordinal: u64,
    /// Query element → value, in the order of `DB.QueryElements`.
    pub values: Vec<(String, String)>,
    pub request: Request,
}

impl Query {
    /// A key that identifies the query across runs: the SHA-256 (hex) of
    /// method, URL and body.
    pub fn key(&self) -> String {
        request_key(&self.request)
    }
}

/// The key of a query that sends `request` ([`Query::key`]).
pub fn request_key(request: &Request) -> String {
    let mut h = Sha256::new();
    h.update(request.method.to_string().as_bytes());
    h.update(b"\n");
    h.update(request.url.as_str().as_bytes());
    h.update(b"\n");
    if let Some(body) = &request.body {
        h.update(body);
    }
    crate::digest::hex(&h.finalize())
}

/// The key by which an answer received before the gathering (a probe's,
/// a listing's first page) is taken again as a query's: [`request_key`],
/// with a URL that ends in an empty query (`/all?`, as a script without
/// parameters is asked) the same as without it (`/all`, as a link leads
/// there): a server reads them as one address.
pub fn answer_key(request: &Request) -> String {
    if request.url.query() != Some("") {
        return request_key(request);
    }
    let mut same = request.clone();
    same.url.set_query(None);
    request_key(&same)
}

/// Why no plan can be made.
#[derive(Debug, Clone, thiserror::Error)]
pub enum PlanError {
    #[error("query element {element:?} is not an element of the form (its elements: {available})")]
    UnknownElement { element: String, available: String },
    #[error("query element {element:?} is a {kind}, whose domain is undetermined: give its values or a simple regex in DB.QueryElement.{element}")]
    Undetermined { element: String, kind: &'static str },
    #[error("the page has no form: query element {element:?} needs DB.QueryScript and its values in DB.QueryElement.{element}")]
    NoForm { element: String },
    #[error("DB.QueryElement.{element}: /{pattern}/ expands to {count} values, more than the limit {cap}; lower the pattern or raise the limit")]
    PatternTooLarge {
        element: String,
        pattern: String,
        count: u64,
        cap: Cap,
    },
    #[error("DB.QueryElement.{element} gives values for an element that is not a query element (query elements: {query_elements}); name it in DB.QueryElements")]
    NotAQueryElement {
        element: String,
        query_elements: String,
    },
    #[error(
        "the Cartesian product of the query elements' domains has more than {} queries",
        u64::MAX
    )]
    Overflow,
    #[error("the form submits to {action}, which is not an HTTP URL; give DB.QueryScript")]
    NotHttp { action: String },
    #[error("DB.Refine names {element:?}, which {reason}: a query is refined by a select or radio group of the form, by a query element whose domain is a simple regex of `%` prefixes, or by a text field named like an attribute the rules gather")]
    Refine { element: String, reason: String },
    #[error("DB.QueryScript {script:?} is not a valid URL: {message}")]
    Script { script: String, message: String },
}

/// A plan problem with the metadata it concerns, when known.
#[derive(Debug, Clone, thiserror::Error)]
pub struct PlanProblem {
    pub origin: Option<Origin>,
    pub error: PlanError,
}

impl fmt::Display for PlanProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.origin {
            Some(o) => write!(f, "{o}: {}", self.error),
            None => write!(f, "{}", self.error),
        }
    }
}

impl QueryPlan {
    /// Builds the plan for a form (or, without one, for `DB.QueryScript`
    /// alone) and reports every problem.
    ///
    /// `page_url` resolves a relative `DB.QueryScript`; `page_encoding`
    /// encodes the requests when there is no form. `user_max_queries` is
    /// the user's `--max-queries`; the smaller of it and `DB.MaxQueries`
    /// caps the plan.
    pub fn build(
        form: Option<&Form>,
        metadata: &Metadata,
        page_url: &Url,
        page_encoding: &'static Encoding,
        user_max_queries: Option<u64>,
    ) -> Result<QueryPlan, Vec<PlanProblem>> {
        let mut problems = Vec::new();
        let origin_of = |key: &str| metadata.origins.get(key).cloned();
        let elements_origin = metadata.query_elements_origin().cloned();
        let cap = Cap::smaller(Capped::Queries, metadata.max_queries, user_max_queries);

        let (mut action, mut method, enctype, encoding) = match form {
            Some(f) => (f.action.clone(), f.method, f.enctype, f.encoding),
            None => (
                page_url.clone(),
                Method::Get,
                Enctype::UrlEncoded,
                page_encoding.output_encoding(),
            ),
        };
        if let Some((script, script_method)) = &metadata.query_script {
            match page_url.join(script) {
                Ok(url) => action = url,
                Err(e) => problems.push(PlanProblem {
                    origin: origin_of("DB.QueryScript"),
                    error: PlanError::Script {
                        script: script.clone(),
                        message: e.to_string(),
                    },
                }),
            }
            if let Some(m) = script_method {
                method = *m;
            }
        }

        if !matches!(action.scheme(), "http" | "https") {
            problems.push(PlanProblem {
                origin: origin_of("DB.QueryScript"),
                error: PlanError::NotHttp {
                    action: action.to_string(),
                },
            });
        }

        // Domains of the query elements.
        let mut elements = Vec::new();
        for name in &metadata.query_elements {
            let given = metadata.domains.get(name).cloned();
            let domain = match form {
                Some(f) => match f.element(name) {
                    None => Err(PlanError::UnknownElement {
                        element: name.clone(),
                        available: f.element_names().join(", "),
                    }),
                    Some(e) => match (given, e.domain()) {
                        (Some(d), _) => Ok(d),
                        (None, Some(values)) => Ok(Domain::Values(values)),
                        (None, None) => Err(PlanError::Undetermined {
                            element: name.clone(),
                            kind: e.kind_name(),
                        }),
                    },
                },
                None if metadata.query_script.is_some() => given.ok_or(PlanError::NoForm {
                    element: name.clone(),
                }),
                None => Err(PlanError::NoForm {
                    element: name.clone(),
                }),
            };
            match domain {
                Ok(Domain::Pattern(p)) if cap.is_some_and(|c| p.len() > c.limit) => {
                    problems.push(PlanProblem {
                        origin: origin_of(&format!("DB.QueryElement.{name}")),
                        error: PlanError::PatternTooLarge {
                            element: name.clone(),
                            pattern: p.source().to_string(),
                            count: p.len(),
                            cap: cap.unwrap_or(Cap {
                                limit: 0,
                                by: CapSource::User,
                                of: Capped::Queries,
                            }),
                        },
                    })
                }
                Ok(d) => elements.push((name.clone(), d)),
                Err(error) => problems.push(PlanProblem {
                    origin: elements_origin.clone(),
                    error,
                }),
            }
        }
        for element in metadata.domains.keys() {
            if !metadata.query_elements.contains(element) {
                problems.push(PlanProblem {
                    origin: origin_of(&format!("DB.QueryElement.{element}")),
                    error: PlanError::NotAQueryElement {
                        element: element.clone(),
                        query_elements: if metadata.query_elements.is_empty() {
                            "none".into()
                        } else {
                            metadata.query_elements.join(", ")
                        },
                    },
                });
            }
        }
        for element in &metadata.refine {
            let pattern = matches!(metadata.domains.get(element), Some(Domain::Pattern(_)))
                && metadata.query_elements.contains(element);
            let reason = match form.and_then(|f| f.element(element)) {
                _ if pattern => None,
                None => Some("is not an element of the form".to_string()),
                Some(e) => match &e.kind {
                    ElementKind::Radio { .. }
                    | ElementKind::Select {
                        multiple: false, ..
                    } => None,
                    ElementKind::Text { .. } if metadata.query_elements.contains(element) => {
                        Some("is a text field the plan already fills".to_string())
                    }
                    ElementKind::Text { .. } => crate::refine::text_field_attribute(e, metadata)
                        .is_none()
                        .then(|| {
                            "is a text field that no attribute of the rules matches by name or label"
                                .to_string()
                        }),
                    _ => Some(format!("is a {}", e.kind_name())),
                },
            };
            if let Some(reason) = reason {
                problems.push(PlanProblem {
                    origin: origin_of("DB.Refine"),
                    error: PlanError::Refine {
                        element: element.clone(),
                        reason,
                    },
                });
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }

        // The form data set with a slot for each query element.
        let mut slots = Vec::new();
        let query_index = |name: &str| elements.iter().position(|(n, _)| n == name);
        if let Some(f) = form {
            let mut submit_seen = false;
            for e in &f.elements {
                if let ElementKind::Submit { value, image } = &e.kind {
                    if submit_seen {
                        continue;
                    }
                    submit_seen = true;
                    match (image, e.name.is_empty()) {
                        (true, true) => {
                            slots.push(Slot::Button("x".into(), "0".into()));
                            slots.push(Slot::Button("y".into(), "0".into()));
                        }
                        (true, false) => {
                            slots.push(Slot::Button(format!("{}.x", e.name), "0".into()));
                            slots.push(Slot::Button(format!("{}.y", e.name), "0".into()));
                        }
                        (false, false) => slots.push(Slot::Button(e.name.clone(), value.clone())),
                        (false, true) => {}
                    }
                    continue;
                }
                match query_index(&e.name) {
                    Some(i) => {
                        if !slots.iter().any(|s| matches!(s, Slot::Query(j) if *j == i)) {
                            slots.push(Slot::Query(i));
                        }
                    }
                    None => slots.extend(
                        e.default_values()
                            .into_iter()
                            .map(|v| Slot::Fixed(e.name.clone(), v)),
                    ),
                }
            }
        } else {
            slots.extend((0..elements.len()).map(Slot::Query));
        }

        let total = elements
            .iter()
            .try_fold(1u64, |acc, (_, d)| acc.checked_mul(d.len()))
            .ok_or_else(|| {
                vec![PlanProblem {
                    origin: elements_origin.clone(),
                    error: PlanError::Overflow,
                }]
            })?;
        // A pattern past an explicit limit is an error above; past the
        // default, the plan is cut like any other.
        let cap = Cap::in_force(Capped::Queries, metadata.max_queries, user_max_queries);
        let len = total.min(cap.limit);
        Ok(QueryPlan {
            action,
            method,
            enctype,
            encoding,
            slots,
            elements,
            total,
            len,
            cap,
            pressed: true,
            blank: Vec::new(),
            rows: None,
        })
    }

    /// The same plan with its submit button left out: what a choice that
    /// submits the form (`onchange`, a post-back) sends.
    pub fn unpressed(mut self) -> QueryPlan {
        self.pressed = false;
        self
    }

    /// The same plan sending these hidden inputs empty: state tokens that
    /// the page each request follows supplies when it is sent ([`live`]).
    pub fn blanking(mut self, names: Vec<String>) -> QueryPlan {
        self.blank = names;
        self
    }

    /// The same plan as a tree: `rows` are the queries' values of the
    /// query elements, in order (a dependent element's values read from the
    /// answer to each value of its parent). The cap applies as before.
    pub fn with_rows(mut self, rows: Vec<Vec<String>>) -> QueryPlan {
        self.total = rows.len() as u64;
        self.len = self.total.min(self.cap.limit);
        self.rows = Some(std::sync::Arc::new(rows));
        self
    }

    /// True when the plan is a tree of values read from answers.
    pub fn is_tree(&self) -> bool {
        self.rows.is_some()
    }

    /// Number of queries that will be sent (after the caps).
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of queries the domains give (before the caps).
    pub fn total(&self) -> u64 {
        self.total
    }

    /// True when a cap leaves queries out: the content will be incomplete.
    pub fn cut_short(&self) -> bool {
        self.len < self.total
    }

    /// The limit on the queries in force.
    pub fn cap(&self) -> Cap {
        self.cap
    }

    pub fn action(&self) -> &Url {
        &self.action
    }

    pub fn method(&self) -> Method {
        self.method
    }

    pub fn enctype(&self) -> Enctype {
        self.enctype
    }

    pub fn encoding(&self) -> &'static Encoding {
        self.encoding
    }

    /// The query elements with their domains, in plan order.
    pub fn elements(&self) -> &[(String, Domain)] {
        &self.elements
    }

    /// The query with this ordinal, built now.
    pub fn query(&self, ordinal: u64) -> Option<Query> {
        if ordinal >= self.len {
            return None;
        }
        if let Some(rows) = &self.rows {
            let row = rows.get(usize::try_from(ordinal).ok()?)?;
            let values = self
                .elements
                .iter()
                .zip(row)
                .map(|((name, _), v)| (name.clone(), v.clone()))
                .collect();
            return Some(self.query_with(ordinal, values));
        }
        let mut digits = vec![0u64; self.elements.len()];
        let mut rest = ordinal;
        for (i, (_, d)) in self.elements.iter().enumerate().rev() {
            let n = d.len();
            digits[i] = rest % n;
            rest /= n;
        }
        let values: Vec<(String, String)> = self
            .elements
            .iter()
            .zip(&digits)
            .map(|((name, d), &i)| (name.clone(), d.get(i).unwrap_or_default()))
            .collect();
        Some(self.query_with(ordinal, values))
    }

    /// The query that sends `values` (element → value): a query element
    /// takes its value from there, and so does any other element of the
    /// form named there (a refinement: `preis=2` for a region); the others
    /// keep their defaults. A named element the form does not send by
    /// default is added at the end.
    pub fn query_with(&self, ordinal: u64, values: Vec<(String, String)>) -> Query {
        let value_of = |name: &str| values.iter().find(|(n, _)| n == name).map(|(_, v)| v);
        let mut pairs: Vec<(String, String)> = Vec::with_capacity(self.slots.len());
        let mut replaced: Vec<&str> = Vec::new();
        for slot in &self.slots {
            let name = match slot {
                Slot::Button(..) if !self.pressed => continue,
                Slot::Fixed(n, _) | Slot::Button(n, _) => n.as_str(),
                Slot::Query(i) => self.elements[*i].0.as_str(),
            };
            match (slot, value_of(name)) {
                // A multi-valued default (checkboxes) is replaced as a whole.
                (Slot::Fixed(..) | Slot::Button(..), Some(_)) if replaced.contains(&name) => {}
                (_, Some(v)) => {
                    replaced.push(name);
                    pairs.push((name.to_string(), v.clone()));
                }
                (Slot::Fixed(n, _), None) if self.blank.contains(n) => {
                    pairs.push((n.clone(), String::new()))
                }
                (Slot::Fixed(n, v) | Slot::Button(n, v), None) => {
                    pairs.push((n.clone(), v.clone()))
                }
                (Slot::Query(_), None) => pairs.push((name.to_string(), String::new())),
            }
        }
        for (name, value) in &values {
            if !pairs.iter().any(|(n, _)| n == name) {
                pairs.push((name.clone(), value.clone()));
            }
        }
        let request = encode::request(
            &self.action,
            self.method,
            self.enctype,
            self.encoding,
            &pairs,
        );
        Query {
            ordinal,
            values,
            request,
        }
    }

    /// All queries in order, each built when the iterator reaches it.
    pub fn queries(&self) -> impl Iterator<Item = Query> + '_ {
        (0..self.len).filter_map(move |n| self.query(n))
    }
}

#[cfg(test)]
mod tests;

//! One database source: the page, its metadata, its form and its plan.
//!
//! [`discover`] fetches a page and tells what it is: a database source with
//! `DB.*` meta tags, a cooperative provider (a summarizer), or an ordinary
//! page; a spec's source is built from the YAML spec. [`load`] does either
//! for a [`Start`]; both fetch only the form page and its configuration file,
//! never a query.
//!
//! Decisions where metadata.md is silent:
//! - When a page has several forms, the source uses the first form that has
//!   every query element (or the one a spec names with `form:`), else the
//!   first form — and the plan reports the elements it lacks.
//! - A page with `DB.Summarizer` is cooperative even if it has other DB
//!   names; its `DB.ConfigFile` is what the summarizer is called with
//!   (`?config=<path of the file>`), the gatherer does not read it.
//! - A configuration file's own `DB.ConfigFile` is not followed (one level,
//!   no loops); its relative URLs are resolved against the form page.
//! - A DBContent document is recognised by not being HTML (by its
//!   Content-Type, else by not starting with `<`) and by parsing as one
//!   with a `Summarizer:` line. Its own path is the configuration path.

mod live;

use std::fmt;
use std::path::{Path, PathBuf};

use url::Url;

use crate::fetch::{on_allowed_host, Credentials, FetchError, Fetcher, Response};
use crate::form::{forms, ElementKind, Form, FormError};
use crate::metadata::{
    classify, page_meta, read_config_file, DbContent, Entry, Metadata, Name, Origin, PageMeta,
    Problem,
};
use crate::navigate::NavigationMode;
use crate::plan::{PlanError, PlanProblem, QueryPlan};
use crate::spec::{FormRef, Spec, SpecError};

/// The user's limits.
#[derive(Debug, Clone, Default)]
pub struct Limits {
    /// `--max-queries`; the provider's DB.MaxQueries may be lower.
    pub max_queries: Option<u64>,
    /// `--learn`: a text field without a domain gets the form page's most
    /// frequent words as seed words, and learns the rest from the answers.
    pub learn: bool,
    /// `--allow-host`: hosts besides the form page's own that the pages the
    /// metadata names (configuration file, domain pages) may come from.
    pub allow_hosts: Vec<String>,
    /// `--forms`: the forms (position, name or id) surfacing may submit on
    /// a page without metadata, whatever their kind.
    pub forms: Vec<String>,
}

/// The problem of a page the metadata names on another host than the form
/// page's, which the user did not allow: gather does not fetch it.
fn other_host(form_page: &Url, url: &Url, what: &str) -> String {
    let host = url.host_str().unwrap_or_default();
    let port = url.port_or_known_default().unwrap_or(0);
    format!(
        "{what} {url} is on another host than the form page ({}), so it is not fetched; \
         allow the host with --allow-host {host}:{port} if it belongs to the provider",
        form_page.host_str().unwrap_or_default()
    )
}

/// What a fetched page turned out to be.
#[derive(Debug)]
pub enum Discovery {
    Database(Box<Source>),
    Cooperative(Box<CooperativeSource>),
    /// An ordinary page, with its tree (parsed once, for its meta tags).
    Ordinary(Response, Box<crate::page::Page>),
}

/// A database source described by metadata (meta tags, config file, spec).
#[derive(Debug, Clone)]
pub struct Source {
    /// The form page (after redirects).
    pub url: Url,
    pub title: Option<String>,
    pub description: Option<String>,
    pub keywords: Option<String>,
    pub metadata: Metadata,
    /// The form the queries fill in; `None` when DB.QueryScript stands alone.
    pub form: Option<Form>,
    pub plan: QueryPlan,
    /// How the navigator finds a query's next result pages.
    pub navigation: NavigationMode,
    /// The form page and the configuration file as they were fetched; the
    /// gatherer records them as pages of the source.
    pub fetched: Vec<Response>,
    /// The metadata entries in the order they were read (page, then file),
    /// for `gather spec`.
    pub entries: Vec<Entry>,
    /// Answers already received for some of the plan's requests (the
    /// probes of a surfaced form, by [`crate::plan::answer_key`]): the
    /// gatherer takes a query's first page from here instead of asking
    /// again.
    pub answered: Vec<(String, Response)>,
    /// A stateful form's pages: each request is built from the form as the
    /// page it follows shows it ([`crate::plan::live`]).
    pub live: Option<std::sync::Arc<crate::plan::live::Chain>>,
}

/// A provider that runs a summarizer (seed §2–§3, metadata.md §4).
#[derive(Debug, Clone)]
pub struct CooperativeSource {
    /// The form's URL (DBContent `URL:`, else the page).
    pub url: Url,
    pub summarizer: Url,
    /// Path of the configuration file on the summarizer's server.
    pub config_path: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub keywords: Option<String>,
    /// The DBContent document or form page as it was fetched; the gatherer
    /// records it as a page of the source.
    pub fetched: Vec<Response>,
}

/// One thing wrong with a source; `gather check` lists them all.
#[derive(Debug, thiserror::Error)]
pub enum SourceProblem {
    #[error(transparent)]
    Metadata(#[from] Problem),
    #[error(transparent)]
    Plan(#[from] PlanProblem),
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error(transparent)]
    Form(#[from] FormError),
    #[error("{origin}: configuration file {url} answered HTTP {status}{}", status_hint(*status, url))]
    ConfigFile {
        origin: Origin,
        url: Url,
        status: u16,
    },
    #[error("{origin}: configuration file: {error}")]
    ConfigFetch { origin: Origin, error: FetchError },
    #[error("{origin}: {message}")]
    Other { origin: Origin, message: String },
}

fn status_hint(status: u16, url: &Url) -> String {
    let host = match (url.host_str(), url.port()) {
        (Some(h), Some(p)) => format!("{h}:{p}"),
        (Some(h), None) => h.to_string(),
        _ => "HOST".into(),
    };
    match status {
        404 | 410 => " (not found)".into(),
        401 => format!(" (authentication required: give credentials with --auth {host}=USER:PASS, or auth: in a spec)"),
        403 => format!(" (forbidden: the credentials for {host} are not accepted)"),
        _ => String::new(),
    }
}

/// Why a source cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The page itself could not be fetched.
    #[error("{0}")]
    Fetch(#[from] FetchError),
    /// The spec file could not be read.
    #[error("{0}")]
    Spec(SpecError),
    /// A form page without metadata could not be surfaced: what was tried.
    #[error("surfacing the form without metadata: {0}")]
    Surface(String),
    /// The metadata, spec or form has problems; all of them are listed.
    #[error("{}", list_problems(source_name, problems))]
    Invalid {
        source_name: String,
        problems: Vec<SourceProblem>,
    },
}

fn list_problems(source: &str, problems: &[SourceProblem]) -> String {
    let mut out = format!(
        "{source}: {} problem{}",
        problems.len(),
        if problems.len() == 1 { "" } else { "s" }
    );
    for p in problems {
        out.push_str("\n  - ");
        out.push_str(&p.to_string().replace('\n', "\n    "));
    }
    out
}

impl SourceError {
    /// True when the input is at fault (metadata, spec, config file, a
    /// URL that is not http or https), as opposed to the network.
    pub fn is_bad_input(&self) -> bool {
        matches!(self, SourceError::Fetch(FetchError::Scheme { .. }))
            || !matches!(self, SourceError::Fetch(_))
    }
}

impl Source {
    /// The YAML spec equivalent to the source's metadata, the configuration
    /// file's values included (so the spec stands alone), credentials never.
    pub fn spec_yaml(&self) -> String {
        let mut spec = Spec::from_entries(self.url.as_str(), &self.entries);
        let mut header = format!("# gather spec for {}\n", self.url);
        if let Some(file) = spec.config_file.take() {
            header.push_str(&format!(
                "# the values of the configuration file {file} are included below\n"
            ));
        }
        header.push_str("# credentials are not written here: use --auth or auth_env\n");
        header + &spec.to_yaml()
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.url)?;
        if let Some(t) = &self.title {
            write!(f, " ({t})")?;
        }
        Ok(())
    }
}

fn is_html(resp: &Response, text: &str) -> bool {
    match resp.content_type.as_deref().map(str::to_ascii_lowercase) {
        Some(ct) if ct.contains("html") || ct.contains("xml") => true,
        Some(ct) if ct.starts_with("text/plain") => false,
        _ => text.trim_start().starts_with('<'),
    }
}

/// Fetches a page and finds out what it is: DB.Summarizer (+ DB.ConfigFile)
/// → cooperative; any other DB name → database (its configuration file is
/// fetched and merged, its form read, its plan made); a DBContent document
/// → cooperative; anything else → ordinary.
pub async fn discover(
    url: &Url,
    fetcher: &Fetcher,
    limits: &Limits,
) -> Result<Discovery, SourceError> {
    let resp = fetcher.get(url).await?;
    let decoded = resp.text();
    if !is_html(&resp, &decoded.text) {
        let names_summarizer = decoded.text.lines().any(|l| {
            l.get(..11)
                .is_some_and(|p| p.eq_ignore_ascii_case("summarizer:"))
        });
        return match DbContent::parse(&decoded.text) {
            Ok(doc) if doc.summarizer.is_some() => Ok(Discovery::Cooperative(Box::new(
                from_dbcontent(&resp, doc)?,
            ))),
            // A document with a Summarizer: line is meant as DBContent.
            Err(e) if names_summarizer => Err(SourceError::Invalid {
                source_name: resp.url.to_string(),
                problems: vec![SourceProblem::Other {
                    origin: Origin::ConfigLine {
                        file: resp.url.to_string(),
                        line: e.span.line,
                    },
                    message: format!("DBContent document: {}{}", e.kind, e.excerpt),
                }],
            }),
            _ => {
                let tree = Box::new(crate::page::Page::parse(&decoded.text));
                Ok(Discovery::Ordinary(resp, tree))
            }
        };
    }
    let tree = Box::new(crate::page::Page::parse(&decoded.text));
    let meta = page_meta(&tree, &decoded.text, resp.url.as_str());
    if meta.entries.is_empty() {
        return Ok(Discovery::Ordinary(resp, tree));
    }
    let has_summarizer = meta
        .entries
        .iter()
        .any(|e| matches!(classify(&e.name), Some(Name::Summarizer)));
    if has_summarizer {
        return Ok(Discovery::Cooperative(Box::new(cooperative_from_meta(
            &resp, &meta,
        )?)));
    }
    let page = Page {
        url: resp.url.clone(),
        tree,
        encoding: decoded.encoding,
        response: resp,
    };
    let source = build(page, meta, Given::default(), fetcher, limits).await?;
    Ok(Discovery::Database(Box::new(source)))
}

fn from_dbcontent(resp: &Response, doc: DbContent) -> Result<CooperativeSource, SourceError> {
    let origin = |line: usize| Origin::ConfigLine {
        file: resp.url.to_string(),
        line,
    };
    let invalid = |message: String| SourceError::Invalid {
        source_name: resp.url.to_string(),
        problems: vec![SourceProblem::Other {
            origin: origin(1),
            message,
        }],
    };
    let summarizer_text = doc.summarizer.clone().unwrap_or_default();
    let summarizer = resp
        .url
        .join(&summarizer_text)
        .map_err(|e| invalid(format!("Summarizer {summarizer_text:?} is not a URL: {e}")))?;
    let url = match &doc.url {
        Some(u) => resp
            .url
            .join(u)
            .map_err(|e| invalid(format!("URL {u:?} is not a URL: {e}")))?,
        None => resp.url.clone(),
    };
    Ok(CooperativeSource {
        url,
        summarizer,
        config_path: resp.url.path().to_string(),
        title: doc.title,
        description: doc.description,
        keywords: doc.keywords,
        fetched: vec![resp.clone()],
    })
}

fn cooperative_from_meta(
    resp: &Response,
    meta: &PageMeta,
) -> Result<CooperativeSource, SourceError> {
    let (md, problems) = Metadata::from_entries(&meta.entries);
    let mut problems: Vec<SourceProblem> = problems.into_iter().map(Into::into).collect();
    let summarizer_origin = md.origins.get("DB.Summarizer").cloned();
    let resolve = |value: &Option<String>, name: &str, problems: &mut Vec<SourceProblem>| {
        let origin = md
            .origins
            .get(name)
            .cloned()
            .or(summarizer_origin.clone())?;
        match value {
            None => {
                problems.push(SourceProblem::Other {
                    origin,
                    message: format!("DB.Summarizer needs {name}: the summarizer is called with the path of the configuration file"),
                });
                None
            }
            Some(v) => match resp.url.join(v) {
                Ok(u) => Some(u),
                Err(e) => {
                    problems.push(SourceProblem::Other {
                        origin,
                        message: format!("{name} {v:?} is not a URL: {e}"),
                    });
                    None
                }
            },
        }
    };
    let summarizer = resolve(&md.summarizer, "DB.Summarizer", &mut problems);
    let config = resolve(&md.config_file, "DB.ConfigFile", &mut problems);
    match (summarizer, config) {
        (Some(summarizer), Some(config)) if problems.is_empty() => Ok(CooperativeSource {
            url: resp.url.clone(),
            summarizer,
            config_path: config.path().to_string(),
            title: meta.title.clone(),
            description: meta.description.clone(),
            keywords: meta.keywords.clone(),
            fetched: vec![resp.clone()],
        }),
        _ => Err(SourceError::Invalid {
            source_name: resp.url.to_string(),
            problems,
        }),
    }
}

/// The fetched form page.
struct Page {
    url: Url,
    tree: Box<crate::page::Page>,
    encoding: &'static encoding_rs::Encoding,
    response: Response,
}

/// What a spec adds to a page.
#[derive(Default)]
struct Given<'a> {
    /// The spec's entries, used instead of the page's meta tags.
    entries: Option<Vec<Entry>>,
    /// Problems already found in the spec.
    problems: Vec<SourceProblem>,
    form: Option<&'a FormRef>,
    /// The spec's name in messages (default: the page's URL).
    name: Option<String>,
    /// Pages a stateful form's requests follow, fetched by surfacing it
    /// ([`crate::plan::live::Chain`]), by the parents' values.
    pages: crate::plan::live::Pages,
}

/// Builds a database source from the page and its entries (the page's
/// meta tags, or a spec's entries when given), fetching the configuration file.
async fn build(
    page: Page,
    meta: PageMeta,
    given: Given<'_>,
    fetcher: &Fetcher,
    limits: &Limits,
) -> Result<Source, SourceError> {
    let source_name = given.name.unwrap_or_else(|| page.url.to_string());
    let form_ref = given.form;
    let PageMeta {
        entries: page_entries,
        title,
        description,
        keywords,
    } = meta;
    let mut entries = given.entries.unwrap_or(page_entries);
    let mut problems: Vec<SourceProblem> = given.problems;
    let mut fetched = vec![page.response];

    // The configuration file, named by the page (or spec).
    let (first, _) = Metadata::from_entries(&entries);
    if let Some(file) = &first.config_file {
        let origin = first
            .origins
            .get("DB.ConfigFile")
            .cloned()
            .unwrap_or(Origin::MetaTag {
                page: page.url.to_string(),
                line: None,
            });
        match page.url.join(file) {
            Err(e) => problems.push(SourceProblem::Other {
                origin,
                message: format!("DB.ConfigFile {file:?} is not a URL: {e}"),
            }),
            Ok(url) if !on_allowed_host(&page.url, &url, &limits.allow_hosts) => {
                problems.push(SourceProblem::Other {
                    origin,
                    message: other_host(&page.url, &url, "DB.ConfigFile:"),
                })
            }
            Ok(url) => match fetcher.get(&url).await {
                Ok(resp) => {
                    match read_config_file(&resp.text().text, resp.url.as_str()) {
                        Ok(file_entries) => entries.extend(file_entries),
                        Err(p) => problems.push(SourceProblem::Metadata(*p)),
                    }
                    fetched.push(resp);
                }
                Err(FetchError::Status { url, status, .. }) => {
                    problems.push(SourceProblem::ConfigFile {
                        origin,
                        url,
                        status,
                    })
                }
                Err(error) => problems.push(SourceProblem::ConfigFetch { origin, error }),
            },
        }
    }

    let (mut metadata, md_problems) = Metadata::from_entries(&entries);
    // Domains read from another page (`@URL RULE`), fetched once each.
    for (element, (target, rule)) in metadata.domain_pages.clone() {
        let name = format!("DB.QueryElement.{element}");
        let origin = origin_of(&metadata, &name, &page.url);
        let url = match page.url.join(&target) {
            Ok(url) => url,
            Err(e) => {
                problems.push(SourceProblem::Other {
                    origin,
                    message: format!("{name}: @{target} is not a URL: {e}"),
                });
                continue;
            }
        };
        if !on_allowed_host(&page.url, &url, &limits.allow_hosts) {
            problems.push(SourceProblem::Other {
                origin,
                message: other_host(
                    &page.url,
                    &url,
                    &format!("{name}: the page with the domain"),
                ),
            });
            continue;
        }
        match fetcher.get(&url).await {
            Ok(resp) => {
                let values = domain_from_page(&resp, &rule);
                if values.is_empty() {
                    problems.push(SourceProblem::Other {
                        origin,
                        message: format!(
                            "{name}: the rule {} yields no value on {url}",
                            rule.source()
                        ),
                    });
                } else {
                    metadata
                        .domains
                        .insert(element, crate::metadata::Domain::Values(values));
                }
                fetched.push(resp);
            }
            Err(error) => problems.push(SourceProblem::Other {
                origin,
                message: format!("{name}: the page with the domain: {error}"),
            }),
        }
    }
    let failed: Vec<String> = md_problems
        .iter()
        .map(|p| p.error.name().to_string())
        .collect();
    problems.extend(md_problems.into_iter().map(SourceProblem::Metadata));

    let page_forms = match forms(&page.tree, &page.url, page.encoding) {
        Ok(f) => f,
        Err(e) => {
            problems.push(e.into());
            Vec::new()
        }
    };
    let form = match choose_form(page_forms, &metadata, form_ref) {
        Ok(f) => f,
        Err(message) => {
            problems.push(SourceProblem::Other {
                origin: Origin::SpecKey {
                    file: source_name.clone(),
                    key: "form".into(),
                },
                message,
            });
            None
        }
    };

    if limits.learn {
        for element in &metadata.query_elements {
            let open_field = form
                .as_ref()
                .and_then(|f| f.element(element))
                .is_some_and(|e| {
                    matches!(
                        e.kind,
                        ElementKind::Text { .. } | ElementKind::TextArea { .. }
                    )
                });
            if open_field
                && !metadata.domains.contains_key(element)
                && !metadata.domain_pages.contains_key(element)
            {
                let seeds = crate::words::seed_words(&page.tree, SEED_WORDS).words;
                if !seeds.is_empty() {
                    metadata
                        .domains
                        .insert(element.clone(), crate::metadata::Domain::Values(seeds));
                }
            }
        }
    }

    // A stateful form: the pages its requests follow, and the domains of
    // its dependent elements read from the answers to their parents.
    let seen = (&fetched[0], given.pages);
    let live = match live::read(form.as_ref(), &mut metadata, seen, fetcher).await {
        Ok(live) => live,
        Err((element, message)) => {
            let name = format!("DB.QueryElement.{element}");
            problems.push(SourceProblem::Other {
                origin: origin_of(&metadata, &name, &page.url),
                message: format!("{name}: {message}"),
            });
            None
        }
    };
    let plan = QueryPlan::build(
        form.as_ref(),
        &metadata,
        &page.url,
        page.encoding,
        limits.max_queries,
    )
    .map(|plan| match (&live, form.as_ref()) {
        (Some(live), Some(form)) => {
            let plan = plan.blanking(crate::plan::live::state_tokens(form));
            match &live.rows {
                Some(rows) => plan.with_rows(rows.clone()),
                None => plan,
            }
        }
        _ => plan,
    });
    let plan = match plan {
        Ok(plan) => Some(plan),
        Err(plan_problems) => {
            // An element whose DB.QueryElement.<element> was already reported
            // is not reported again as undetermined.
            problems.extend(
                plan_problems
                    .into_iter()
                    .filter(|p| match &p.error {
                        PlanError::Undetermined { element, .. } => {
                            !failed.contains(&format!("DB.QueryElement.{element}"))
                        }
                        _ => true,
                    })
                    .map(SourceProblem::Plan),
            );
            None
        }
    };
    match plan {
        Some(plan) if problems.is_empty() => Ok(Source {
            navigation: navigation_mode(&metadata),
            url: page.url,
            title,
            description,
            keywords,
            metadata,
            form,
            plan,
            fetched,
            answered: Vec::new(),
            entries,
            live: live.map(|l| std::sync::Arc::new(l.chain)),
        }),
        _ => Err(SourceError::Invalid {
            source_name,
            problems,
        }),
    }
}

/// Where the metadata `name` was given: its origin, else the form page's
/// meta tags.
fn origin_of(metadata: &Metadata, name: &str, page: &Url) -> Origin {
    metadata
        .origins
        .get(name)
        .cloned()
        .unwrap_or(Origin::MetaTag {
            page: page.to_string(),
            line: None,
        })
}

/// How many of the form page's words seed a field learned with `--learn`.
const SEED_WORDS: usize = 20;

/// The distinct values `rule` yields on a page, in document order, each in
/// its normal form (empty ones left out).
fn domain_from_page(resp: &Response, rule: &crate::hel::Rule) -> Vec<String> {
    let page = crate::page::Page::from_bytes(&resp.body, resp.content_type.as_deref());
    let mut seen = std::collections::HashSet::new();
    rule.evaluate(&page)
        .value
        .flatten()
        .iter()
        .map(|v| crate::fragment::normalize(v))
        .filter(|v| !v.is_empty() && seen.insert(v.clone()))
        .collect()
}

/// `DB.NavigationURL` builds the next pages, `DB.Navigation NO` turns
/// paging off, and without either the navigator finds the next pages.
fn navigation_mode(metadata: &Metadata) -> NavigationMode {
    match (&metadata.navigation_url, metadata.navigation) {
        (Some(pattern), _) => NavigationMode::Pattern(pattern.clone()),
        (None, Some(false)) => NavigationMode::Off,
        (None, _) => NavigationMode::Detect,
    }
}

/// Picks the form the queries fill in (see the module docs).
fn choose_form(
    mut page_forms: Vec<Form>,
    metadata: &Metadata,
    form_ref: Option<&FormRef>,
) -> Result<Option<Form>, String> {
    let index = match form_ref {
        Some(FormRef::Index(i)) if *i < page_forms.len() => Some(*i),
        Some(FormRef::Index(i)) => {
            return Err(format!(
                "the page has {} form(s), there is no form #{i}",
                page_forms.len()
            ))
        }
        Some(FormRef::Name(n)) => Some(
            page_forms
                .iter()
                .position(|f| f.name.as_deref() == Some(n) || f.id.as_deref() == Some(n))
                .ok_or_else(|| format!("the page has no form named {n:?}"))?,
        ),
        // A script without query elements is asked as it stands: no
        // form's fields go with it (a listing page's own address).
        None if metadata.query_script.is_some() && metadata.query_elements.is_empty() => None,
        None => page_forms
            .iter()
            .position(|f| {
                metadata
                    .query_elements
                    .iter()
                    .all(|e| f.element(e).is_some())
            })
            .or((!page_forms.is_empty()).then_some(0)),
    };
    Ok(index.map(|i| page_forms.swap_remove(i)))
}

/// Where a gathering (or `plan`, `check`) starts.
#[derive(Debug, Clone)]
pub enum Start {
    /// A form page, a DBContent document, or an ordinary page to crawl from.
    Url(Url),
    /// A YAML spec (specs/README.md), read when the start is made.
    Spec { path: PathBuf, spec: Box<Spec> },
}

impl Start {
    /// Reads and checks a spec file now, so that a missing or malformed
    /// spec fails before any request is sent.
    pub fn spec(path: &Path) -> Result<Start, SourceError> {
        Start::spec_from(path, Spec::load(path))
    }

    /// Reads a spec file for `gather check` and `gather plan`: keys whose
    /// values have the wrong type are left out and listed among the
    /// source's problems, with those of its rules and form, in one list.
    pub fn spec_listing(path: &Path) -> Result<Start, SourceError> {
        Start::spec_from(path, Spec::load_listing(path))
    }

    fn spec_from(path: &Path, spec: Result<Spec, SpecError>) -> Result<Start, SourceError> {
        Ok(Start::Spec {
            path: path.to_path_buf(),
            spec: Box::new(spec.map_err(SourceError::Spec)?),
        })
    }

    /// The start as the user named it: the URL or the spec's path.
    pub fn name(&self) -> String {
        match self {
            Start::Url(url) => url.to_string(),
            Start::Spec { path, .. } => path.display().to_string(),
        }
    }
}

/// The user's credentials with those of every spec among the starts
/// (`auth`, `auth_env`) added; each is sent to its own host only.
pub fn credentials(starts: &[Start], user: &Credentials) -> Result<Credentials, SourceError> {
    let mut credentials = user.clone();
    for start in starts {
        let Start::Spec { path, spec } = start else {
            continue;
        };
        let shown = path.display().to_string();
        let invalid = |e: SpecError| SourceError::Invalid {
            source_name: shown.clone(),
            problems: vec![SourceProblem::Spec(e)],
        };
        for credential in spec.credentials(&shown).map_err(invalid)? {
            credentials.add_spec(&credential).map_err(|message| {
                invalid(SpecError::Key {
                    path: shown.clone(),
                    key: "auth".into(),
                    message,
                })
            })?;
        }
    }
    Ok(credentials)
}

/// Loads one start: a URL is discovered ([`discover`]), a spec's form page
/// is fetched and its source built. The fetcher must hold the spec's
/// credentials ([`credentials`]).
pub async fn load(
    start: &Start,
    fetcher: &Fetcher,
    limits: &Limits,
) -> Result<Discovery, SourceError> {
    match start {
        Start::Url(url) => discover(url, fetcher, limits).await,
        Start::Spec { path, spec } => from_spec(path, spec, fetcher, limits)
            .await
            .map(|source| Discovery::Database(Box::new(source))),
    }
}

/// Surfaces a fetched form page without metadata
/// ([`crate::surface`]): probes its inputs, induces the spec and
/// builds the source from it, without fetching the page again. Returns the
/// source and what the probing chose (the plan to show).
pub async fn surface(
    response: &Response,
    fetcher: &Fetcher,
    limits: &Limits,
) -> Result<(Source, crate::surface::InducedSpec), SourceError> {
    let per_input = crate::surface::DEFAULT_PER_INPUT;
    let induced =
        crate::surface::induce_spec_from(response.clone(), fetcher, per_input, &limits.forms)
            .await
            .map_err(|e| match e {
                crate::surface::SurfaceError::Fetch(e) => SourceError::Fetch(e),
                e => SourceError::Surface(e.to_string()),
            })?;
    let name = format!("the spec induced for {}", response.url);
    let mut source = spec_source(
        Path::new(&name),
        &induced.spec,
        response.clone(),
        fetcher,
        limits,
        induced.pages.clone(),
    )
    .await?;
    source.answered = induced
        .answers
        .iter()
        .map(|(request, answer)| (crate::plan::answer_key(request), answer.clone()))
        .collect();
    Ok((source, induced))
}

/// Builds the source of a form surfaced by an earlier gathering from the
/// spec it stored (YAML), without probing again.
pub async fn surfaced_before(
    response: &Response,
    yaml: &str,
    fetcher: &Fetcher,
    limits: &Limits,
) -> Result<Source, SourceError> {
    let name = format!("the spec induced for {} (stored)", response.url);
    let spec = Spec::from_yaml(yaml, &name).map_err(SourceError::Spec)?;
    spec_source(
        Path::new(&name),
        &spec,
        response.clone(),
        fetcher,
        limits,
        Vec::new(),
    )
    .await
}

/// Builds a source from a YAML spec: fetches the form page (and the
/// configuration file the spec names).
async fn from_spec(
    path: &Path,
    spec: &Spec,
    fetcher: &Fetcher,
    limits: &Limits,
) -> Result<Source, SourceError> {
    let shown = path.display().to_string();
    let url = Url::parse(spec.url.trim()).map_err(|e| SourceError::Invalid {
        source_name: shown.clone(),
        problems: vec![SourceProblem::Spec(SpecError::Key {
            path: shown.clone(),
            key: "url".into(),
            message: format!("{:?} is not a URL: {e}", spec.url),
        })],
    })?;
    let resp = fetcher.get(&url).await?;
    spec_source(path, spec, resp, fetcher, limits, Vec::new()).await
}

/// Builds a spec's source from its fetched form page.
async fn spec_source(
    path: &Path,
    spec: &Spec,
    resp: Response,
    fetcher: &Fetcher,
    limits: &Limits,
    pages: crate::plan::live::Pages,
) -> Result<Source, SourceError> {
    let shown = path.display().to_string();
    let (entries, spec_errors) = spec.entries_with_errors(&shown);
    let decoded = resp.text();
    let tree = Box::new(crate::page::Page::parse(&decoded.text));
    let meta = page_meta(&tree, &decoded.text, resp.url.as_str());
    let page = Page {
        url: resp.url.clone(),
        tree,
        encoding: decoded.encoding,
        response: resp,
    };
    let from = Given {
        entries: Some(entries),
        problems: spec_errors.into_iter().map(SourceProblem::Spec).collect(),
        form: spec.form.as_ref(),
        name: Some(shown.clone()),
        pages,
    };
    build(page, meta, from, fetcher, limits).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_and_plans_can_move_between_tasks() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<Source>();
        send_sync::<CooperativeSource>();
        send_sync::<Metadata>();
        send_sync::<QueryPlan>();
        send_sync::<SourceError>();
    }
}

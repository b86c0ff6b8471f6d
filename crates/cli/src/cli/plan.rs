//! `gather plan`, `gather check`, `gather spec`.
//!
//! All three fetch only the form page and its configuration file, never a
//! query. Exit status: 0 when everything is fine, 2 when metadata, a spec,
//! the form or an argument is wrong (every problem is listed), 1 when a page
//! could not be fetched.

use std::process::ExitCode;

use url::Url;

use super::SourceArgs;
use gather::fetch::{FetchConfig, Fetcher};
use gather::metadata::ResultKind;
use gather::navigate::NavigationMode;
use gather::plan::{Query, QueryPlan};
use gather::source::{self, CooperativeSource, Discovery, Limits, Source, SourceError, Start};

#[derive(Debug, clap::Args)]
pub struct PlanArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    /// How many requests to show from the start and from the end of the plan.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub show: u64,
}

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    /// Also send the plan's first query and evaluate the rules on its first
    /// result page: a rule that finds nothing there is a problem (exit 2).
    #[arg(long)]
    pub sample: bool,
}

#[derive(Debug, clap::Args)]
pub struct SpecArgs {
    /// The form page whose metadata becomes a spec.
    pub url: String,
    #[command(flatten)]
    pub login: super::CredentialArgs,
    /// For a form page without metadata: probe its inputs, choose the
    /// query and refinement elements by their answers and induce the
    /// result rules from them (template induction).
    #[arg(long)]
    pub induce: bool,
    /// Let the configuration file and domain pages the metadata names come
    /// from this host too (HOST or HOST:PORT; repeatable).
    #[arg(long = "allow-host", value_name = "HOST[:PORT]")]
    pub allow_hosts: Vec<String>,
    /// With --induce, how many values of each select to probe besides its
    /// default (at least 1).
    #[arg(long, value_name = "N", default_value_t = gather::surface::DEFAULT_PER_INPUT, requires = "induce")]
    pub queries: usize,
    /// With --induce, probe this form (its position from 0, its name or
    /// its id) whatever its kind.
    #[arg(long = "forms", value_name = "FORM", requires = "induce")]
    pub forms: Vec<String>,
}

/// One source as `plan` and `check` see it.
enum Outcome {
    Database(Box<Source>),
    Cooperative(Box<CooperativeSource>),
    /// A page without DB metadata, with the sources a crawl from it finds.
    Ordinary(Url, Vec<(Url, &'static str)>),
    Failed(String, SourceError),
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))
}

/// Loads every source named on the command line, with the user's `--auth`
/// and the specs' own credentials, each sent to its host only.
/// What `plan`, `check` and `spec` loaded, with the fetcher and runtime
/// that loaded it (a sample query goes out through the same politeness).
struct Loaded {
    outcomes: Vec<Outcome>,
    fetcher: Fetcher,
    rt: tokio::runtime::Runtime,
}

fn load(args: &SourceArgs) -> Result<Loaded, String> {
    if args.urls.is_empty() && args.specs.is_empty() {
        return Err("give a form page URL or --spec FILE".into());
    }
    let mut starts = Vec::new();
    for u in &args.urls {
        starts.push(Start::Url(super::gather::start_url(u)?));
    }
    let mut out = Vec::new();
    for path in &args.specs {
        match Start::spec_listing(path) {
            Ok(start) => starts.push(start),
            Err(e) => out.push(Outcome::Failed(path.display().to_string(), e)),
        }
    }
    let credentials =
        source::credentials(&starts, &args.credentials()?).map_err(|e| e.to_string())?;
    let fetcher = Fetcher::new(FetchConfig {
        credentials,
        network: args.login.network.network()?,
        ..FetchConfig::default()
    })
    .map_err(|e| e.to_string())?;
    let limits = Limits {
        max_queries: args.max_queries,
        learn: args.learn,
        allow_hosts: args.allow_hosts.clone(),
        forms: args.forms.clone(),
    };
    let rt = runtime()?;
    for start in &starts {
        out.push(match rt.block_on(source::load(start, &fetcher, &limits)) {
            Ok(Discovery::Database(s)) => Outcome::Database(s),
            Ok(Discovery::Cooperative(c)) => Outcome::Cooperative(c),
            Ok(Discovery::Ordinary(r, page)) => {
                let found = rt.block_on(sources_from(&r.url, &page, &fetcher, &limits));
                Outcome::Ordinary(r.url, found)
            }
            Err(e) => Outcome::Failed(start.name(), e),
        });
    }
    Ok(Loaded {
        outcomes: out,
        fetcher,
        rt,
    })
}

/// `check --sample`: the rules on the first result page of the first query,
/// each with how many values it finds and the first of them. A rule that
/// finds nothing is reported (exit 2): a wrong prefix or path shows here
/// before a whole gathering finds nothing.
async fn sample(source: &Source, fetcher: &Fetcher) -> u8 {
    let Some(query) = source.plan.query(0) else {
        return super::OK;
    };
    let response = match fetcher.fetch(&query.request).await {
        Ok(r) => r,
        Err(e) => {
            eprintln!("  sample query: {e}");
            return super::FAILED;
        }
    };
    outln!("  sample: {} {}", query.request.method, response.url);
    let page = gather::page::Page::from_bytes(&response.body, response.content_type.as_deref());
    let mut status = super::OK;
    for result in &source.metadata.results {
        let ResultKind::Rule(rule) = &result.kind else {
            continue;
        };
        let values = rule.evaluate(&page).value.flatten();
        match values.first() {
            Some(first) => outln!(
                "    {}: {} value(s), first {first:?}",
                result.attribute,
                values.len()
            ),
            None => {
                outln!(
                    "    {}: no value on the sample page: check the rule (and the DB.Result prefix)",
                    result.attribute
                );
                status = super::BAD_INPUT;
            }
        }
    }
    print_result_links(&page, &response.url, fetcher).await;
    status
}

/// The sample page's links: its menus (checked against at most 20 pages of
/// its host the groups link to), its pagers, its content links.
async fn print_result_links(page: &gather::page::Page, url: &Url, fetcher: &Fetcher) {
    use gather::links::{LinkKind, PageLinks};
    let mut links = PageLinks::of(page, url);
    let mut neighbours: Vec<Url> = Vec::new();
    for g in 0..links.groups.len() {
        if links.groups[g].kind == LinkKind::Content {
            for doc in links.neighbour_documents(g) {
                if !neighbours.contains(&doc) && neighbours.len() < 20 {
                    neighbours.push(doc);
                }
            }
        }
    }
    let known = super::links::read_links(fetcher, neighbours).await;
    links.classify(&|key| known.get(key));
    let classified = links.classified();
    let texts = |kind: LinkKind| -> Vec<String> {
        classified
            .iter()
            .filter(|(_, k)| *k == kind)
            .map(|(l, _)| format!("{:?}", l.text))
            .collect()
    };
    let (menu, pager) = (texts(LinkKind::Menu), texts(LinkKind::Pagination));
    outln!(
        "    links: {} in {} groups: {} menu, {} pagination, {} content",
        classified.len(),
        links.groups.len(),
        menu.len(),
        pager.len(),
        classified.len() - menu.len() - pager.len()
    );
    if !pager.is_empty() {
        outln!("    pager: {}", pager.join(" "));
    }
    if !menu.is_empty() {
        outln!("    menus: {}", menu.join(" "));
    }
}

/// Pages a `plan` or `check` of an ordinary page looks at for sources.
const CRAWL_PAGES: usize = 20;

/// The database and cooperative sources a crawl from an ordinary page finds:
/// breadth first, within the page's origin, at most [`CRAWL_PAGES`] pages.
async fn sources_from(
    start: &Url,
    page: &gather::page::Page,
    fetcher: &Fetcher,
    limits: &Limits,
) -> Vec<(Url, &'static str)> {
    let mut seen = std::collections::HashSet::from([start.to_string()]);
    let mut queue = std::collections::VecDeque::new();
    let mut enqueue =
        |base: &Url, page: &gather::page::Page, queue: &mut std::collections::VecDeque<Url>| {
            for link in page.links().iter() {
                if let Ok(mut url) = base.join(link.href) {
                    url.set_fragment(None);
                    if url.origin() == start.origin() && seen.insert(url.to_string()) {
                        queue.push_back(url);
                    }
                }
            }
        };
    enqueue(start, page, &mut queue);
    let mut found = Vec::new();
    let mut taken = 0;
    while let Some(url) = queue.pop_front() {
        if taken >= CRAWL_PAGES {
            break;
        }
        taken += 1;
        match source::discover(&url, fetcher, limits).await {
            Ok(Discovery::Database(s)) => found.push((s.url.clone(), "database")),
            Ok(Discovery::Cooperative(c)) => found.push((c.url.clone(), "cooperative")),
            Ok(Discovery::Ordinary(r, page)) => enqueue(&r.url, &page, &mut queue),
            // A form page with bad metadata is a source too: check says why.
            Err(e) if e.is_bad_input() => found.push((url, "database, with problems")),
            Err(_) => {}
        }
    }
    found
}

/// The worst exit status of the outcomes.
fn status(outcomes: &[Outcome]) -> u8 {
    outcomes
        .iter()
        .map(|o| match o {
            Outcome::Database(_) | Outcome::Cooperative(_) => super::OK,
            Outcome::Ordinary(_, found) if found.is_empty() => super::BAD_INPUT,
            Outcome::Ordinary(..) => super::OK,
            Outcome::Failed(_, e) if e.is_bad_input() => super::BAD_INPUT,
            Outcome::Failed(..) => super::FAILED,
        })
        .max()
        .unwrap_or(super::OK)
}

fn report_failure(o: &Outcome) {
    match o {
        Outcome::Ordinary(url, found) if found.is_empty() => eprintln!(
            "{url}: no DB.* metadata, nor on the pages it links to within {CRAWL_PAGES} pages: \
             nothing to plan from metadata.\n\
             `gather {url}` surfaces it all the same (it probes a form without metadata, or crawls the page);\n\
             `gather spec --induce {url}` writes the spec those probes find, to review and gather with --spec"
        ),
        Outcome::Ordinary(url, found) => {
            outln!("{url}: an ordinary page; a crawl from it finds these sources (gather the page to gather them all):");
            for (source, kind) in found {
                outln!("  {source} ({kind})");
            }
        }
        // The fetch error names the URL; a spec's path is added.
        Outcome::Failed(name, e @ SourceError::Fetch(_)) if e.to_string().starts_with(name) => {
            eprintln!("{e}")
        }
        Outcome::Failed(name, e @ SourceError::Fetch(_)) => eprintln!("{name}: {e}"),
        Outcome::Failed(_, e) => eprintln!("{e}"),
        _ => {}
    }
}

/// Loads the sources, hands each usable one to `each` (which returns its
/// exit status), reports the others, and exits with the worst status.
fn run_each(
    command: &str,
    args: &SourceArgs,
    mut each: impl FnMut(&Outcome, &Loaded) -> u8,
) -> ExitCode {
    let loaded = match load(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("gather {command}: {e}");
            return super::exit(super::BAD_INPUT);
        }
    };
    let mut worst = status(&loaded.outcomes);
    for o in &loaded.outcomes {
        match o {
            Outcome::Database(_) | Outcome::Cooperative(_) => worst = worst.max(each(o, &loaded)),
            _ => report_failure(o),
        }
    }
    super::exit(worst)
}

pub fn run_plan(args: &PlanArgs) -> ExitCode {
    run_each("plan", &args.source, |o, _| {
        match o {
            Outcome::Database(s) => print!("{}", describe_source(s, args.show)),
            Outcome::Cooperative(c) => print!("{}", describe_cooperative(c)),
            _ => {}
        }
        super::OK
    })
}

pub fn run_check(args: &CheckArgs) -> ExitCode {
    run_each("check", &args.source, |o, loaded| {
        match o {
            Outcome::Database(s) => {
                outln!(
                    "ok: {s}: {} quer{}, {} result attribute(s)",
                    s.plan.len(),
                    if s.plan.len() == 1 { "y" } else { "ies" },
                    s.metadata.results.len()
                );
                if s.plan.cut_short() {
                    outln!("  warning: {}", cut_short_note(&s.plan));
                }
                if args.sample {
                    return loaded.rt.block_on(sample(s, &loaded.fetcher));
                }
            }
            Outcome::Cooperative(c) => outln!(
                "ok: {}: cooperative provider, summarizer {}?config={}",
                c.url,
                c.summarizer,
                c.config_path
            ),
            _ => {}
        }
        super::OK
    })
}

pub fn run_spec(args: &SpecArgs) -> ExitCode {
    if args.induce {
        return super::induce::run_spec_induce(&args.url, &args.login, args.queries, &args.forms);
    }
    let source_args = SourceArgs {
        urls: vec![args.url.clone()],
        login: args.login.clone(),
        allow_hosts: args.allow_hosts.clone(),
        ..SourceArgs::default()
    };
    run_each("spec", &source_args, |o, _| match o {
        Outcome::Database(s) => {
            print!("{}", s.spec_yaml());
            super::OK
        }
        Outcome::Cooperative(c) => {
            eprintln!(
                "{}: a cooperative provider (summarizer {}); it needs no spec",
                c.url, c.summarizer
            );
            super::BAD_INPUT
        }
        _ => super::OK,
    })
}

fn cut_short_note(plan: &QueryPlan) -> String {
    let by = plan.cap();
    format!(
        "{by} cuts the plan short: {} of {} queries are sent, the content will be incomplete",
        plan.len(),
        plan.total()
    )
}

fn describe_query(q: &Query) -> String {
    let mut s = format!("  #{} {} {}", q.ordinal, q.request.method, q.request.url);
    if let Some(body) = &q.request.body {
        let text = String::from_utf8_lossy(body);
        s.push_str(&format!("\n      body: {}", text.escape_debug()));
    }
    s.push('\n');
    s
}

/// What `gather plan` prints for a database source.
fn describe_source(source: &Source, show: u64) -> String {
    let md = &source.metadata;
    let plan = &source.plan;
    let mut out = format!("source: {source}\n");
    out.push_str("metadata:\n");
    let mut line = |name: &str, value: String| out.push_str(&format!("  {name}: {value}\n"));
    if let Some(c) = &md.config_file {
        line("DB.ConfigFile", c.clone());
    }
    if let Some((script, method)) = &md.query_script {
        let m = method.map(|m| format!(", {m}")).unwrap_or_default();
        line("DB.QueryScript", format!("{script}{m}"));
    }
    line("DB.QueryElements", md.query_elements.join(", "));
    for (element, domain) in &md.domains {
        let value = match md.answer_domains.get(element) {
            Some(parent) => format!(
                "@answer({parent}): the options of the answer to each {parent} ({}; {} values in all)",
                domain.to_value(),
                domain.len()
            ),
            None => format!("{} ({} values)", domain.to_value(), domain.len()),
        };
        line(&format!("DB.QueryElement.{element}"), value);
    }
    if let Some(n) = md.max_queries {
        line("DB.MaxQueries", n.to_string());
    }
    if let Some(n) = md.max_pages {
        line("DB.MaxPages", n.to_string());
    }
    if let Some(s) = &md.summarizer {
        line("DB.Summarizer", s.clone());
    }
    match &source.form {
        Some(f) => out.push_str(&f.to_string()),
        None => out.push_str("form: none (DB.QueryScript is used alone)\n"),
    }
    out.push_str(&format!(
        "requests: {} {} ({}, {})\n",
        plan.method(),
        plan.action(),
        plan.enctype(),
        plan.encoding().name()
    ));
    for (name, domain) in plan.elements() {
        out.push_str(&format!(
            "  query element {name}: {} values\n",
            domain.len()
        ));
    }
    if plan.is_tree() {
        out.push_str("  a tree: a dependent element's values are those of the answer to its parent's value, not every combination\n");
    }
    if source.live.is_some() {
        out.push_str("  stateful: each request is built when it is sent, from the form as the page it follows shows it (its state tokens, shown empty here)\n");
    }
    out.push_str(&format!("queries: {}", plan.len()));
    if plan.cut_short() {
        out.push_str(&format!(" ({})", cut_short_note(plan)));
    }
    out.push('\n');
    let len = plan.len();
    let head = show.min(len);
    let tail_start = len.saturating_sub(show).max(head);
    for q in (0..head).filter_map(|i| plan.query(i)) {
        out.push_str(&describe_query(&q));
    }
    if tail_start > head {
        out.push_str(&format!("  … {} more …\n", tail_start - head));
    }
    for q in (tail_start..len).filter_map(|i| plan.query(i)) {
        out.push_str(&describe_query(&q));
    }
    let navigation = match &source.navigation {
        NavigationMode::Pattern(pattern) => format!("pages built from DB.NavigationURL {pattern}"),
        NavigationMode::Off => "none (DB.Navigation NO: results are never paged)".into(),
        NavigationMode::Detect => "detected (links labelled with numbers, next, weiter, »)".into(),
    };
    out.push_str(&format!("navigation: {navigation}"));
    if let Some(n) = md.max_pages {
        out.push_str(&format!(", at most {n} pages per query"));
    }
    out.push('\n');
    let refiner = gather::refine::Refiner::new(source.form.as_ref(), md);
    let told: Vec<String> = [
        md.result_count
            .as_ref()
            .map(|r| format!("hit count from DB.ResultCount {}", r.source())),
        md.max_results.map(|n| format!("DB.MaxResults {n}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    if refiner.is_empty() {
        out.push_str("refinement: none (no select, radio group, % pattern or text field named like an attribute to refine a truncated query by)\n");
    } else {
        out.push_str(&format!(
            "refinement of truncated queries ({}; within {}): by {}\n",
            if told.is_empty() {
                "truncated when the page limit is reached, a next page is linked but not followed, the hit count a page states exceeds the rows shown, or several queries end at the same count of one rule".to_string()
            } else {
                told.join(", ")
            },
            source.plan.cap(),
            refiner.elements().join(", then ")
        ));
    }
    out.push_str("results:\n");
    for r in &md.results {
        match &r.kind {
            ResultKind::Rule(_) => out.push_str(&format!(
                "  {}: rule {}\n",
                r.attribute,
                md.rule_texts
                    .get(&r.attribute)
                    .map_or("", String::as_str)
                    .replace('\n', "\n      ")
            )),
            ResultKind::Values(v) => {
                out.push_str(&format!("  {}: values {}\n", r.attribute, v.join(", ")))
            }
        }
    }
    let rules = md.rules();
    let (row_fields, page_fields) = gather::record::RecordRules::new(&rules).fields();
    if !row_fields.is_empty() {
        out.push_str("records (one per result row, from the rules that read rows):\n");
        out.push_str(&format!("  {}\n", row_fields.join(", ")));
        if !page_fields.is_empty() {
            out.push_str(&format!(
                "  and on every record of a page: {}\n",
                page_fields.join(", ")
            ));
        }
        if md.header_rows == Some(false) {
            out.push_str("  header rows: off (DB.HeaderRows NO)\n");
        }
    }
    out
}

fn describe_cooperative(c: &CooperativeSource) -> String {
    format!(
        "source: {} (cooperative provider)\n  summarizer: {}?config={}\n  title: {}\n  description: {}\n  keywords: {}\n",
        c.url,
        c.summarizer,
        c.config_path,
        c.title.as_deref().unwrap_or("-"),
        c.description.as_deref().unwrap_or("-"),
        c.keywords.as_deref().unwrap_or("-"),
    )
}

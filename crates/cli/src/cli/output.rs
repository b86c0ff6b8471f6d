//! `gather export`, `gather search`, `gather summarize`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use gather::metadata::DbContent;
use gather::output::{self, OutputError};
use gather::store::{Location, SourceKind, Store};
use gather::summarize::provider_soif;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Harvest SOIF, one object per source.
    Soif,
    /// JSON Lines, one object per source (with --records: per record).
    #[value(alias = "jsonl")]
    Json,
    /// CSV, one row per record (with --records only).
    Csv,
}

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// The gatherer's database (must exist): a SQLite file or
    /// postgres://USER@HOST:PORT/DB.
    #[arg(long, env = "GATHER_DB", default_value = "gather.sqlite")]
    pub db: PathBuf,
    /// soif (the default) or json (jsonl) for the sources; jsonl (the
    /// default) or csv for the records.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Write the records (the values of one result row that belong
    /// together) instead of the sources: JSON Lines, or CSV with --format csv.
    #[arg(long)]
    pub records: bool,
    /// Only the source with this URL (as `gather status` lists it).
    #[arg(long = "source", value_name = "URL")]
    pub source: Option<String>,
    /// Write to FILE instead of standard output (`-`: standard output).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Only the records added, updated and gone since TIME (RFC 3339, as
    /// 2026-11-28T09:00:00Z, or milliseconds since 1970 as a refresh's
    /// `--json` gives `since`), as JSON Lines `{"op":"add|update|delete",
    /// "key":…,"record":…}`. SOIF carries no deletions: see docs/refresh.md.
    #[arg(long, value_name = "TIME", value_parser = since_millis)]
    pub changes_since: Option<i64>,
}

/// A time given to `--changes-since`: RFC 3339, or milliseconds since 1970.
fn since_millis(text: &str) -> Result<i64, String> {
    if let Ok(millis) = text.parse::<i64>() {
        return Ok(millis);
    }
    let time = time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .map_err(|e| {
            format!("{text:?} is no time: RFC 3339 (2026-11-28T09:00:00Z) or milliseconds since 1970 ({e})")
        })?;
    i64::try_from(time.unix_timestamp_nanos() / 1_000_000)
        .map_err(|_| format!("{text:?} is out of range"))
}

#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// The gatherer's database (must exist): a SQLite file or
    /// postgres://USER@HOST:PORT/DB.
    #[arg(long, env = "GATHER_DB", default_value = "gather.sqlite")]
    pub db: PathBuf,
    /// Words or phrases to look for (a trailing `*` searches a prefix).
    #[arg(required = true)]
    pub terms: Vec<String>,
    /// Print the hits as JSON Lines instead of a table.
    #[arg(long)]
    pub json: bool,
}

fn open(db: &std::path::Path, command: &str) -> Result<Store, ExitCode> {
    Store::open_existing_at(&Location::of(db)).map_err(|e| {
        eprintln!("gather {command}: {e}");
        super::exit(super::BAD_INPUT)
    })
}

fn finish(command: &str, result: Result<(), OutputError>) -> ExitCode {
    match result {
        Ok(()) => super::exit(super::OK),
        Err(e) if e.is_broken_pipe() => super::exit(super::OK),
        Err(e) => {
            eprintln!("gather {command}: {e}");
            super::exit(super::FAILED)
        }
    }
}

/// Writes the database (or one source of it) to standard output or to
/// `-o FILE`. Exit status 2 when the database does not exist or is not a
/// gatherer database (nothing is created), or holds no such `--source`; 1
/// when reading or writing fails.
pub fn run_export(args: &ExportArgs) -> ExitCode {
    let format = args.format.unwrap_or(if args.records {
        Format::Json
    } else {
        Format::Soif
    });
    match (
        args.changes_since,
        args.records || args.changes_since.is_some(),
        format,
    ) {
        (Some(_), _, Format::Soif | Format::Csv) if args.format.is_some() => {
            eprintln!("gather export: --changes-since is written as JSON Lines (SOIF carries no deletions)");
            return super::exit(super::BAD_INPUT);
        }
        (_, true, Format::Soif) if args.changes_since.is_none() => {
            eprintln!("gather export: --records is written as --format jsonl or csv");
            return super::exit(super::BAD_INPUT);
        }
        (_, false, Format::Csv) => {
            eprintln!("gather export: --format csv writes records: add --records");
            return super::exit(super::BAD_INPUT);
        }
        _ => {}
    }
    let store = match open(&args.db, "export") {
        Ok(s) => s,
        Err(code) => return code,
    };
    let only = args.source.as_deref();
    if let Some(url) = only {
        match store.sources() {
            Ok(sources) if sources.iter().any(|s| s.info.url == url) => {}
            Ok(_) => {
                eprintln!(
                    "gather export: no source {url} in {} (`gather status` lists them)",
                    args.db.display()
                );
                return super::exit(super::BAD_INPUT);
            }
            Err(e) => return finish("export", Err(e.into())),
        }
    }
    let mut out = match writer(args.output.as_deref()) {
        Ok(out) => out,
        Err(e) => {
            eprintln!("gather export: {e}");
            return super::exit(super::FAILED);
        }
    };
    let result = match (args.records, format) {
        _ if args.changes_since.is_some() => output::export_changes_jsonl(
            &store,
            &mut out,
            only,
            args.changes_since.unwrap_or_default(),
        ),
        (true, Format::Csv) => output::export_records_csv(&store, &mut out, only),
        (true, _) => output::export_records_jsonl(&store, &mut out, only),
        (false, Format::Json) => output::export_json(&store, &mut out, only),
        (false, _) => output::export_soif(&store, &mut out, only),
    }
    .and_then(|()| out.flush().map_err(OutputError::from));
    finish("export", result)
}

/// Standard output, or the file `path` names (created or truncated); `-`
/// is standard output.
fn writer(path: Option<&std::path::Path>) -> Result<Box<dyn Write>, String> {
    match path {
        None => Ok(Box::new(std::io::BufWriter::new(std::io::stdout().lock()))),
        Some(p) if p.as_os_str() == "-" => {
            Ok(Box::new(std::io::BufWriter::new(std::io::stdout().lock())))
        }
        Some(p) => std::fs::File::create(p)
            .map(|f| Box::new(std::io::BufWriter::new(f)) as Box<dyn Write>)
            .map_err(|e| format!("{}: {e}", p.display())),
    }
}

/// Prints the hits for the terms. Exit status, as `grep` has it: 0 when
/// something was found, 1 when no term was found anywhere (or reading
/// failed), 2 when the database does not exist. A term that finds nothing
/// while others do is named on standard error.
pub fn run_search(args: &SearchArgs) -> ExitCode {
    let store = match open(&args.db, "search") {
        Ok(s) => s,
        Err(code) => return code,
    };
    let hits = match output::search(&store, &args.terms) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("gather search: {e}");
            return super::exit(super::FAILED);
        }
    };
    for term in &args.terms {
        if !hits.iter().any(|h| &h.term == term) {
            eprintln!("gather search: no value holds {term:?}");
        }
    }
    if hits.is_empty() {
        return super::exit(super::FAILED);
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result = if args.json {
        hits.iter().try_for_each(|h| {
            serde_json::to_writer(&mut out, h)?;
            out.write_all(b"\n").map_err(OutputError::from)
        })
    } else {
        output::write_hits(&hits, &mut out).map_err(OutputError::from)
    }
    .and_then(|()| out.flush().map_err(OutputError::from));
    finish("search", result)
}

#[derive(Debug, clap::Args)]
pub struct SummarizeArgs {
    /// The DBContent document naming the tables and attributes to publish.
    pub dbcontent: PathBuf,
    /// The provider's SQLite database (opened read-only).
    #[arg(long)]
    pub database: PathBuf,
    /// Answer as a CGI program: a `Content-Type` header before the SOIF.
    #[arg(long)]
    pub cgi: bool,
}

/// Prints the SOIF object of a DBContent document (the provider's
/// summarizer). Exit status 2 for a bad document, a missing database or a
/// table/attribute the database does not have; 1 when writing fails.
pub fn run_summarize(args: &SummarizeArgs) -> ExitCode {
    let bad = |message: String| {
        eprintln!("gather summarize: {message}");
        super::exit(super::BAD_INPUT)
    };
    let bytes = match std::fs::read(&args.dbcontent) {
        Ok(b) => b,
        Err(e) => return bad(format!("{}: {e}", args.dbcontent.display())),
    };
    // UTF-8, or else ISO-8859-1 (read as windows-1252, its superset), as a
    // provider of 1999 wrote its files.
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => encoding_rs::WINDOWS_1252
            .decode(e.as_bytes())
            .0
            .into_owned(),
    };
    let doc = match DbContent::parse(&text) {
        Ok(d) => d,
        Err(e) => return bad(format!("{}: {e}", args.dbcontent.display())),
    };
    let flags =
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let db = match rusqlite::Connection::open_with_flags(&args.database, flags) {
        Ok(db) => db,
        Err(e) => return bad(format!("{}: {e}", args.database.display())),
    };
    let soif = match provider_soif(&doc, &db) {
        Ok(s) => s,
        Err(e) => return bad(format!("{}: {e}", args.dbcontent.display())),
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let header: &[u8] = if args.cgi {
        b"Content-Type: text/plain; charset=utf-8\r\n\r\n"
    } else {
        b""
    };
    let result = out
        .write_all(header)
        .and_then(|()| out.write_all(&soif))
        .and_then(|()| out.flush())
        .map_err(OutputError::from);
    finish("summarize", result)
}

#[derive(Debug, clap::Args)]
pub struct ReextractArgs {
    /// The gatherer's database (must exist): a SQLite file or
    /// postgres://USER@HOST:PORT/DB.
    #[arg(long, env = "GATHER_DB", default_value = "gather.sqlite")]
    pub db: std::path::PathBuf,
    /// Specs whose rules replace the stored rules of their sources (by the
    /// spec's url); other sources are read again with their stored rules.
    #[arg(long = "spec", value_name = "FILE")]
    pub specs: Vec<std::path::PathBuf>,
}

/// Applies rules to the kept result pages without a single request.
pub fn run_reextract(args: &ReextractArgs) -> ExitCode {
    let mut store = match open(&args.db, "reextract") {
        Ok(s) => s,
        Err(code) => return code,
    };
    let mut by_url = std::collections::HashMap::new();
    for path in &args.specs {
        match gather::spec::Spec::load(path).map(|spec| spec_rules(&spec, path)) {
            Ok(Ok((url, rules))) => {
                by_url.insert(url, rules);
            }
            Ok(Err(problems)) => {
                eprintln!("gather reextract: {}: {problems}", path.display());
                return super::exit(super::BAD_INPUT);
            }
            Err(e) => {
                eprintln!("gather reextract: {e}");
                return super::exit(super::BAD_INPUT);
            }
        }
    }
    let sources = match store.sources() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("gather reextract: {e}");
            return super::exit(super::FAILED);
        }
    };
    let mut status = super::OK;
    for source in sources
        .iter()
        .filter(|s| s.info.kind == SourceKind::Database)
    {
        let url = &source.info.url;
        let (rules, header_rows) = match by_url.remove(url.as_str()) {
            Some(rules) => rules,
            None => match store.rules(source.id) {
                Ok(Some(json)) => match gather::gatherer::rules_from_json(&json) {
                    Ok(rules) => (rules, gather::gatherer::header_rows_from_json(&json)),
                    Err(e) => {
                        eprintln!("{url}: {e}");
                        status = super::FAILED;
                        continue;
                    }
                },
                Ok(None) => {
                    eprintln!(
                        "{url}: no rules stored (gathered by an older gather); give its --spec"
                    );
                    continue;
                }
                Err(e) => {
                    eprintln!("{url}: {e}");
                    status = super::FAILED;
                    continue;
                }
            },
        };
        let missing = store.pages_not_kept(source.id).unwrap_or(0);
        match gather::gatherer::reextract(&mut store, source.id, &rules, header_rows) {
            Ok((pages, values)) => {
                outln!("{url}: {pages} kept result pages read again, {values} values");
                if missing > 0 {
                    outln!("  {missing} result pages were not kept: their values are gone until they are gathered again (gather --fresh)");
                }
            }
            Err(e) => {
                eprintln!("{url}: {e}");
                status = super::FAILED;
            }
        }
    }
    for url in by_url.keys() {
        eprintln!("gather reextract: no source {url} in {}", args.db.display());
        status = super::BAD_INPUT;
    }
    super::exit(status)
}

/// A source's rules, and whether header rows head records (`DB.HeaderRows`).
type SourceRules = (Vec<(String, gather::hel::Rule)>, bool);

/// The url and the rules a spec gives, or its problems.
fn spec_rules(
    spec: &gather::spec::Spec,
    path: &std::path::Path,
) -> Result<(String, SourceRules), String> {
    let shown = path.display().to_string();
    let entries = spec.entries(&shown).map_err(|errors| {
        errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ")
    })?;
    let (metadata, problems) = gather::metadata::Metadata::from_entries(&entries);
    if !problems.is_empty() {
        return Err(problems
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n"));
    }
    Ok((
        spec.url.trim().to_string(),
        (metadata.rules(), metadata.header_rows != Some(false)),
    ))
}

#[derive(Debug, clap::Args)]
pub struct StatusArgs {
    /// The gatherer's database (must exist): a SQLite file or
    /// postgres://USER@HOST:PORT/DB.
    #[arg(long, env = "GATHER_DB", default_value = "gather.sqlite")]
    pub db: PathBuf,
    /// Print the status as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `gather status`: the sources and their queries by state, and whether
/// their content is incomplete; on a shared PostgreSQL database also the
/// workers alive and the hosts they waited for; the result pages fetched
/// per second over the last minute.
pub fn run_status(args: &StatusArgs) -> ExitCode {
    let store = match open(&args.db, "status") {
        Ok(store) => store,
        Err(code) => return code,
    };
    let status = store.status().and_then(|status| {
        let sources = store.sources()?;
        let mut schedules = Vec::new();
        for source in &sources {
            let schedule = store.schedule(source.id)?;
            if schedule.scheduled > 0 {
                schedules.push((source.info.url.clone(), schedule));
            }
        }
        let incomplete = sources
            .into_iter()
            .filter_map(|s| s.incomplete.map(|_| s.info.url))
            .collect::<std::collections::HashSet<_>>();
        Ok((status, incomplete, schedules))
    });
    let (status, incomplete, schedules) = match status {
        Ok(status) => status,
        Err(e) => {
            eprintln!("gather status: {e}");
            return super::exit(super::FAILED);
        }
    };
    let mut out = std::io::stdout().lock();
    let written = if args.json {
        writeln!(
            out,
            "{}",
            serde_json::to_string(&status).unwrap_or_default()
        )
    } else {
        let shared = Location::of(&args.db).is_shared();
        write_status(&mut out, &status, &incomplete, shared)
            .and_then(|()| write_schedules(&mut out, &schedules))
    };
    finish("status", written.map_err(OutputError::from))
}

/// When the refreshed sources' queries are due (`gather refresh --due`).
fn write_schedules(
    out: &mut impl Write,
    schedules: &[(String, gather::store::Schedule)],
) -> std::io::Result<()> {
    for (url, schedule) in schedules {
        let next = schedule
            .next
            .and_then(|ms| time::OffsetDateTime::from_unix_timestamp(ms / 1000).ok())
            .and_then(|t| {
                t.format(&time::format_description::well_known::Rfc3339)
                    .ok()
            })
            .map_or(String::new(), |t| format!(", the next at {t}"));
        writeln!(
            out,
            "refresh due: {} queries now{next}  {url}",
            schedule.due
        )?;
    }
    Ok(())
}

fn write_status(
    out: &mut impl Write,
    status: &gather::store::Status,
    incomplete: &std::collections::HashSet<String>,
    shared: bool,
) -> std::io::Result<()> {
    let kind_width = status
        .sources
        .iter()
        .map(|s| s.kind.len())
        .chain([4])
        .max()
        .unwrap_or(4);
    let leased = |text: String| if shared { text } else { String::new() };
    writeln!(
        out,
        "{:<kind_width$} {:>8}{} {:>8} {:>8} {:>9} {:>8} {:>10}  source",
        "kind",
        "pending",
        leased(format!(" {:>8}", "leased")),
        "done",
        "failed",
        "cut short",
        "pages",
        "incomplete"
    )?;
    for s in &status.sources {
        let whether = if incomplete.contains(&s.url) {
            "yes"
        } else {
            "no"
        };
        writeln!(
            out,
            "{:<kind_width$} {:>8}{} {:>8} {:>8} {:>9} {:>8} {:>10}  {}",
            s.kind,
            s.pending,
            leased(format!(" {:>8}", s.leased)),
            s.done,
            s.failed,
            s.truncated,
            s.pages,
            whether,
            s.url
        )?;
    }
    if status
        .sources
        .iter()
        .any(|s| s.truncated > 0 && !incomplete.contains(&s.url))
    {
        writeln!(
            out,
            "cut short: queries a page limit stopped; where `incomplete` says no, narrower queries surfaced what they left"
        )?;
    }
    if shared {
        write_workers(out, status)?;
    }
    writeln!(
        out,
        "requests per second (last minute): {:.2}",
        status.requests_per_second
    )
}

/// The workers of a shared database, and the hosts they waited for.
fn write_workers(out: &mut impl Write, status: &gather::store::Status) -> std::io::Result<()> {
    let named = |names: &[String]| {
        if names.is_empty() {
            String::new()
        } else {
            format!(" ({})", names.join(", "))
        }
    };
    writeln!(
        out,
        "workers alive: {}{}",
        status.workers_alive.len(),
        named(&status.workers_alive)
    )?;
    writeln!(
        out,
        "of them planning: {}{}",
        status.planners_alive.len(),
        named(&status.planners_alive)
    )?;
    if !status.workers_dead.is_empty() {
        writeln!(
            out,
            "workers dead (ended without stopping; their queries are free): {}{}",
            status.workers_dead.len(),
            named(&status.workers_dead)
        )?;
    }
    for wait in &status.host_waits {
        writeln!(out, "{}", gather::store::host_wait_note(wait))?;
    }
    Ok(())
}

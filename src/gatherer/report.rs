//! The summary printed at the end of a gathering.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use url::Url;

use crate::fetch::FetchStats;
use crate::store::{SourceKind, SourceStats};

/// What one gathering did.
#[derive(Debug, Default)]
pub struct Report {
    pub db: PathBuf,
    pub sources: Vec<SourceReport>,
    /// Ordinary pages collected by the crawl loop.
    pub ordinary_pages: u64,
    /// The crawl stopped at its page limit with URLs left.
    pub crawl_cut_short: bool,
    /// The gathering was interrupted: what it did is saved, and running it
    /// again resumes.
    pub interrupted: bool,
    /// Sources that could not be gathered at all.
    pub problems: Vec<Problem>,
    pub fetch: FetchStats,
    pub elapsed: Duration,
    /// CPU seconds (user + system) of this process, where the system tells.
    pub cpu_seconds: Option<f64>,
    /// Peak resident memory of this process in bytes, where the system tells.
    pub peak_rss_bytes: Option<u64>,
    /// Hosts whose per-host limit the workers of a shared plan waited on.
    pub host_waits: Vec<crate::store::HostWait>,
    /// What ended the gathering before its end (the database stayed
    /// away): what the report holds is what was done until then.
    pub error: Option<String>,
}

/// A source that could not be gathered.
#[derive(Debug)]
pub struct Problem {
    pub what: String,
    pub message: String,
    /// Bad metadata or a bad spec, rather than the network.
    pub bad_input: bool,
}

/// What one database source gave.
#[derive(Debug)]
pub struct SourceReport {
    pub url: Url,
    pub kind: SourceKind,
    pub queries_planned: u64,
    pub queries_sent: u64,
    /// Done in an earlier run, not sent again.
    pub queries_skipped: u64,
    pub queries_failed: u64,
    /// Queries whose result pages were cut by the page limit.
    pub queries_cut_short: u64,
    pub pages: u64,
    pub new_values: u64,
    /// The first failures, for the summary.
    pub failures: Vec<String>,
    /// Queries whose walk stopped between two pages because the gathering
    /// was interrupted (they continue in the next run).
    pub queries_interrupted: u64,
    /// Queries whose result pages answered but where no rule found a value:
    /// a wrong rule, or an empty answer.
    pub queries_without_values: u64,
    /// Rule values a result limit cut, per page.
    pub warnings: Vec<String>,
    /// What the gathering did about the source before its queries: started
    /// over, rules changed.
    pub notes: Vec<String>,
    /// Refined queries sent in this run ([`crate::refine`]).
    pub queries_refined: u64,
    /// Queries with words learned from the answers, sent in this run
    /// ([`crate::refine::learn`]).
    pub queries_learned: u64,
    /// Why learning stopped, for a source with a field to learn.
    pub learning_stopped: Option<String>,
    /// Why refining stopped before every answer was whole, when it stopped
    /// paying.
    pub refining_stopped: Option<String>,
    /// Truncated queries that no done refinement covers: the query, why it
    /// is truncated, why it is left (no way to refine it, the query limit).
    pub truncated_left: Vec<(String, crate::refine::Truncation, &'static str)>,
    /// The provider's size, as its hit counts for the planned queries add up.
    pub hits_estimate: Option<u64>,
    /// The first characters of values that a `%` prefix domain does not
    /// try: queried as prefixes of their own, or left unreached.
    pub initials: super::rounds::Initials,
    /// The rows the form page states the database holds, where it states
    /// a number ("The catalogue holds 1,234 titles").
    pub stated_total: Option<u64>,
    /// Whether the source's content is whole, as far as gather can tell.
    pub completeness: Completeness,
    /// The source as the database holds it after this run.
    pub stats: Option<SourceStats>,
    /// In a refresh: answers the provider said were not modified (304).
    pub answers_not_modified: u64,
    /// In a refresh: answers whose first page was the same as before.
    pub answers_same_digest: u64,
    /// In a refresh: the answers this process asked again.
    pub answers_refreshed: u64,
    /// In a refresh: the records new, changed and gone (the process that
    /// began the refresh counts them).
    pub changes: Option<crate::store::Changes>,
}

/// Whether a source's content is whole.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Completeness {
    /// Every answer is proven whole.
    #[default]
    Complete,
    /// Some answers are cut short (or the plan was): why.
    Incomplete(String),
    /// No answer is known to be cut short, but some could not be judged:
    /// why.
    Unknown(String),
}

impl Completeness {
    pub fn state(&self) -> &'static str {
        match self {
            Completeness::Complete => "complete",
            Completeness::Incomplete(_) => "incomplete",
            Completeness::Unknown(_) => "unknown",
        }
    }

    pub fn why(&self) -> Option<&str> {
        match self {
            Completeness::Complete => None,
            Completeness::Incomplete(why) | Completeness::Unknown(why) => Some(why),
        }
    }
}

impl fmt::Display for Completeness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Completeness::Complete => write!(f, "complete: every answer is known to be whole"),
            Completeness::Incomplete(why) => write!(f, "incomplete: {why}"),
            Completeness::Unknown(why) => write!(f, "unknown: {why}"),
        }
    }
}

impl SourceReport {
    pub fn new(url: Url, kind: SourceKind) -> SourceReport {
        SourceReport {
            url,
            kind,
            queries_planned: 0,
            queries_sent: 0,
            queries_skipped: 0,
            queries_failed: 0,
            queries_cut_short: 0,
            pages: 0,
            new_values: 0,
            failures: Vec::new(),
            queries_interrupted: 0,
            queries_without_values: 0,
            warnings: Vec::new(),
            notes: Vec::new(),
            queries_refined: 0,
            queries_learned: 0,
            learning_stopped: None,
            refining_stopped: None,
            truncated_left: Vec::new(),
            hits_estimate: None,
            initials: Default::default(),
            stated_total: None,
            completeness: Completeness::Complete,
            stats: None,
            answers_not_modified: 0,
            answers_same_digest: 0,
            answers_refreshed: 0,
            changes: None,
        }
    }
}

impl Report {
    /// The report of a gathering that `error` ended before it started.
    pub(super) fn ended_by(
        options: &super::Options,
        started: std::time::Instant,
        error: &super::GatherError,
    ) -> Report {
        Report {
            db: options.db.clone(),
            elapsed: started.elapsed(),
            error: Some(error.to_string()),
            ..Report::default()
        }
    }

    pub fn queries_failed(&self) -> u64 {
        self.sources.iter().map(|s| s.queries_failed).sum()
    }

    /// A source could not be used because of its input: bad metadata, a
    /// bad rule or spec.
    pub fn bad_input(&self) -> bool {
        self.problems.iter().any(|p| p.bad_input)
    }

    /// Sources or queries failed after their retries (what was gathered is
    /// stored).
    pub fn failed(&self) -> bool {
        !self.problems.is_empty() || self.queries_failed() > 0
    }

    /// The summary as JSON (for scripts and the benchmark).
    pub fn to_json(&self) -> serde_json::Value {
        let sources: Vec<_> = self
            .sources
            .iter()
            .map(|s| {
                let stats = s.stats.as_ref();
                serde_json::json!({
                    "url": s.url.as_str(),
                    "kind": s.kind.as_str(),
                    "queries_planned": s.queries_planned,
                    "queries_sent": s.queries_sent,
                    "queries_skipped": s.queries_skipped,
                    "queries_failed": s.queries_failed,
                    "pages": s.pages,
                    "new_values": s.new_values,
                    "queries_without_values": s.queries_without_values,
                    "queries_interrupted": s.queries_interrupted,
                    "queries_refined": s.queries_refined,
                    "queries_learned": s.queries_learned,
                    "learning_stopped": s.learning_stopped,
                    "refining_stopped": s.refining_stopped,
                    "truncated_left": s.truncated_left.iter().map(|(q, t, why)| serde_json::json!({
                        "query": q, "truncated": t.to_string(), "left_by": why,
                    })).collect::<Vec<_>>(),
                    "hits_estimate": s.hits_estimate,
                    "first_characters_queried": s.initials.queried.iter().map(char::to_string).collect::<Vec<_>>(),
                    "first_characters_unreached": s.initials.unreached.iter().map(char::to_string).collect::<Vec<_>>(),
                    "stated_total": s.stated_total,
                    "warnings": s.warnings,
                    "notes": s.notes,
                    "values_per_attribute": stats.map(|st| st.values_per_attribute.clone()),
                    "records": stats.map(|st| st.records),
                    "incomplete": stats.and_then(|st| st.incomplete.clone()),
                    "completeness": s.completeness.state(),
                    "completeness_why": s.completeness.why(),
                    "refresh": s.refresh_json(),
                })
            })
            .collect();
        serde_json::json!({
            "db": self.db.display().to_string(),
            "sources": sources,
            "ordinary_pages": self.ordinary_pages,
            "interrupted": self.interrupted,
            "problems": self.problems.iter().map(|p| format!("{}: {}", p.what, p.message)).collect::<Vec<_>>(),
            "requests": self.fetch.requests,
            "retries": self.fetch.retries,
            "bytes": self.fetch.bytes,
            "seconds": self.elapsed.as_secs_f64(),
            "cpu_seconds": self.cpu_seconds,
            "peak_rss_bytes": self.peak_rss_bytes,
            "host_waits": self.host_waits,
            "error": self.error,
        })
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for s in &self.sources {
            s.write_summary(f)?;
        }
        if self.ordinary_pages > 0 {
            writeln!(f, "ordinary pages: {}", self.ordinary_pages)?;
        }
        if self.crawl_cut_short {
            writeln!(f, "the crawl stopped at its page limit")?;
        }
        if self.interrupted {
            let paused: u64 = self.sources.iter().map(|s| s.queries_interrupted).sum();
            writeln!(
                f,
                "interrupted: every query that ended is saved{}; run the same command again to go on",
                if paused > 0 {
                    format!(", and {paused} long queries will continue from the page they stopped at")
                } else {
                    String::new()
                }
            )?;
        }
        for p in &self.problems {
            // Most messages start with what they are about already.
            if p.message.starts_with(&p.what) {
                writeln!(f, "not gathered: {}", p.message)?;
            } else {
                writeln!(f, "not gathered: {}: {}", p.what, p.message)?;
            }
        }
        for wait in &self.host_waits {
            writeln!(f, "{}", crate::store::host_wait_note(wait))?;
        }
        writeln!(
            f,
            "{} requests ({} retries, {} failed), {:.1} MB, {:.1} s; database: {}",
            self.fetch.requests,
            self.fetch.retries,
            self.fetch.failures,
            self.fetch.bytes as f64 / 1e6,
            self.elapsed.as_secs_f64(),
            self.db.display()
        )
    }
}

impl SourceReport {
    /// The source's lines of the summary: its queries, rounds, values,
    /// completeness, failures and warnings.
    fn write_summary(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} ({})", self.url, self.kind.as_str())?;
        writeln!(
            f,
            "  queries: {} sent, {} failed, {} done before (of {} planned)",
            self.queries_sent, self.queries_failed, self.queries_skipped, self.queries_planned
        )?;
        for note in &self.notes {
            writeln!(f, "  note: {note}")?;
        }
        self.write_rounds(f)?;
        writeln!(f, "  result pages: {}", self.pages)?;
        self.write_changes(f)?;
        if let Some(stats) = &self.stats {
            self.write_values(f, stats)?;
        }
        // An incomplete source's reason is the line above.
        let told = self
            .stats
            .as_ref()
            .is_some_and(|st| st.incomplete.is_some());
        if self.kind == SourceKind::Database && !told {
            writeln!(f, "  completeness: {}", self.completeness)?;
        }
        self.write_troubles(f)
    }

    /// `--json`'s `refresh` of the line: the answers found unchanged, and
    /// (from the process that began the refresh) the records' changes.
    fn refresh_json(&self) -> Option<serde_json::Value> {
        if self.changes.is_none() && self.answers_refreshed == 0 {
            return None;
        }
        let mut json = serde_json::json!({
            "answers_refreshed": self.answers_refreshed,
            "answers_unchanged": self.answers_not_modified + self.answers_same_digest,
            "answers_not_modified": self.answers_not_modified,
            "answers_same_digest": self.answers_same_digest,
        });
        if let Some(changes) = &self.changes {
            json["since"] = changes.since.into();
            json["new"] = changes.new.into();
            json["changed"] = changes.changed.into();
            json["gone"] = changes.gone.into();
            json["by_attribute"] = serde_json::json!(changes.by_attribute);
        }
        Some(json)
    }

    /// In a refresh: the answers found unchanged, and the records new,
    /// changed and gone, in all and per attribute. A worker of a shared
    /// plan tells its answers; the process that began the refresh, the
    /// records.
    fn write_changes(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.changes.is_none() && self.answers_refreshed == 0 {
            return Ok(());
        }
        writeln!(
            f,
            "  refresh: {} answers unchanged ({} not modified, {} with the same first page)",
            self.answers_not_modified + self.answers_same_digest,
            self.answers_not_modified,
            self.answers_same_digest
        )?;
        let Some(changes) = &self.changes else {
            return writeln!(
                f,
                "  records: new, changed and gone in the summary of the refresh's planner"
            );
        };
        writeln!(
            f,
            "  records: {} new, {} changed, {} gone",
            changes.new, changes.changed, changes.gone
        )?;
        for (attribute, c) in &changes.by_attribute {
            write!(
                f,
                "    {attribute}: {} new, {} changed, {} gone",
                c.new, c.changed, c.gone
            )?;
            match c.values_gone {
                0 => writeln!(f)?,
                n => writeln!(f, "; {n} values gone from the index")?,
            }
        }
        Ok(())
    }

    /// The rounds after the plan: refinements, learned words, what was
    /// left truncated, the provider's hit counts.
    fn write_rounds(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.queries_refined > 0 {
            writeln!(
                f,
                "  refined: {} queries sent to complete truncated answers",
                self.queries_refined
            )?;
        }
        if let Some(why) = &self.refining_stopped {
            writeln!(f, "  refining stopped: {why}")?;
        }
        if let Some(why) = &self.learning_stopped {
            writeln!(
                f,
                "  learned: {} queries with words from the answers; stopped: {why}",
                self.queries_learned
            )?;
        }
        for (query, truncation, why) in self.truncated_left.iter().take(5) {
            writeln!(f, "  truncated: {query}: {truncation}; left by {why}")?;
        }
        if self.truncated_left.len() > 5 {
            writeln!(
                f,
                "  … and {} more truncated queries",
                self.truncated_left.len() - 5
            )?;
        }
        if let Some(estimate) = self.hits_estimate {
            writeln!(f, "  the provider's hit counts add up to {estimate} rows")?;
        }
        let describe = crate::refine::initials::describe;
        if !self.initials.queried.is_empty() {
            writeln!(
                f,
                "  first characters the prefixes do not try, queried: {}",
                describe(&self.initials.queried)
            )?;
        }
        if !self.initials.unreached.is_empty() {
            writeln!(
                f,
                "  first characters the prefixes do not try, not reached: {}",
                describe(&self.initials.unreached)
            )?;
        }
        if let Some(total) = self.stated_total {
            writeln!(f, "  the form page states {total} rows")?;
        }
        Ok(())
    }

    /// What the database holds of the source: values per attribute,
    /// records, why it is incomplete.
    fn write_values(&self, f: &mut fmt::Formatter<'_>, stats: &SourceStats) -> fmt::Result {
        let values: Vec<String> = stats
            .values_per_attribute
            .iter()
            .map(|(a, n)| format!("{a} {n}"))
            .collect();
        writeln!(
            f,
            "  values: {} ({} new)",
            if values.is_empty() {
                "none".to_string()
            } else {
                values.join(", ")
            },
            self.new_values
        )?;
        if self.queries_refined + self.queries_learned > 0 && self.new_values > 0 {
            writeln!(
                f,
                "  result pages per new value: {:.2}",
                self.pages as f64 / self.new_values as f64
            )?;
        }
        if stats.records > 0 {
            writeln!(f, "  records: {}", stats.records)?;
        }
        if let Some(reason) = &stats.incomplete {
            writeln!(f, "  incomplete: {reason}")?;
        }
        Ok(())
    }

    /// The source's failures and warnings, five of each at most.
    fn write_troubles(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for failure in self.failures.iter().take(5) {
            writeln!(f, "  failed: {failure}")?;
        }
        if self.failures.len() > 5 {
            writeln!(f, "  … and {} more failures", self.failures.len() - 5)?;
        }
        if self.queries_without_values > 0 {
            writeln!(
                f,
                "  warning: {} of {} queries answered but no rule found a value on their pages (a rule that does not fit the result pages?)",
                self.queries_without_values, self.queries_sent
            )?;
        }
        for warning in self.warnings.iter().take(5) {
            writeln!(f, "  warning: {warning}")?;
        }
        if self.warnings.len() > 5 {
            writeln!(f, "  … and {} more warnings", self.warnings.len() - 5)?;
        }
        Ok(())
    }
}

/// This process's resource usage, as `getrusage` reports it.
fn own_usage() -> Option<libc::rusage> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a whole rusage into the pointer it is given,
    // and RUSAGE_SELF is a valid `who`; the value is read only on success.
    let status = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) };
    // SAFETY: on success (0) the struct is initialised.
    (status == 0).then(|| unsafe { usage.assume_init() })
}

/// Peak resident set size of this process: on Linux `VmHWM`, the peak of
/// this program's own memory; elsewhere `ru_maxrss` (which Linux carries
/// over from the parent when a large process starts gather).
pub fn peak_rss_bytes() -> Option<u64> {
    let kib = vm_hwm_kib().or_else(|| u64::try_from(own_usage()?.ru_maxrss).ok())?;
    kib.checked_mul(1024)
}

/// `VmHWM` of `/proc/self/status`, in KiB.
fn vm_hwm_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().strip_suffix("kB"))
        .and_then(|kib| kib.trim().parse().ok())
}

/// CPU seconds (user + system) this process has used.
pub fn cpu_seconds() -> Option<f64> {
    let usage = own_usage()?;
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Some(secs(usage.ru_utime) + secs(usage.ru_stime))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn the_process_measures_its_cpu_time_and_memory() {
        let started = std::time::Instant::now();
        let mut x = 0u64;
        while started.elapsed() < Duration::from_millis(100) {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
        }
        let cpu = cpu_seconds().expect("/proc/self/stat gives the CPU time");
        assert!(cpu > 0.0, "{cpu} s after 100 ms of work");
        assert!(peak_rss_bytes().expect("/proc/self/status gives VmHWM") > 1024);
    }
}

//! The progress display of a gathering, drawn from the gatherer's events on
//! standard error when it is a terminal: per database source the queries
//! done of the plan, the result pages fetched, the new values, the failed
//! queries and the host being asked, with a steady tick so that a long walk
//! over result pages shows that it moves.

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gather::gatherer::{Progress, ProgressListener};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// What the bar counts for the current source.
#[derive(Default)]
struct Counts {
    host: String,
    pages: u64,
    values: u64,
    failed: u64,
}

impl Counts {
    fn message(&self, elapsed: Duration) -> String {
        let rate = self.pages as f64 / elapsed.as_secs_f64().max(1e-3);
        format!(
            "{} · {} pages ({rate:.0}/s) · {} new values · {} failed",
            self.host, self.pages, self.values, self.failed
        )
    }
}

/// A listener that draws a bar per database source, or `None` when standard
/// error is not a terminal (or the user asked for JSON).
pub fn bar(wanted: bool) -> Option<ProgressListener> {
    if !wanted || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    let style =
        ProgressStyle::with_template("{spinner} [{bar:24}] {pos}/{len} queries (eta {eta}) {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
    bar.set_style(style);
    let counts = Arc::new(Mutex::new(Counts::default()));
    Some(ProgressListener(Arc::new(move |event| {
        let mut counts = counts.lock().unwrap_or_else(|p| p.into_inner());
        match event {
            Progress::Source {
                url,
                queries,
                done_before,
            } => {
                *counts = Counts {
                    host: url.host_str().unwrap_or_default().to_string(),
                    ..Counts::default()
                };
                bar.set_draw_target(ProgressDrawTarget::stderr());
                bar.reset();
                bar.set_length(queries);
                bar.set_position(done_before);
                bar.enable_steady_tick(Duration::from_millis(250));
            }
            Progress::Page { url } => {
                counts.pages += 1;
                counts.host = url.host_str().unwrap_or_default().to_string();
            }
            Progress::Query { new_values, failed } => {
                counts.values += new_values;
                counts.failed += u64::from(failed);
                bar.inc(1);
            }
            Progress::SourceDone => {
                bar.disable_steady_tick();
                bar.finish_and_clear();
                return;
            }
        }
        bar.set_message(counts.message(bar.elapsed()));
    })))
}

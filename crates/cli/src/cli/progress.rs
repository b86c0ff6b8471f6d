//! The progress display of a gathering, drawn from the gatherer's events on
//! standard error when it is a terminal: per database source (named by its
//! URL) the queries done of the plan, which grows when refinement or
//! learning adds queries, the time left at this run's pace, the result
//! pages fetched, the new values and the failed queries, with a steady tick
//! so that a long walk over result pages shows that it moves.

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gather::gatherer::{Progress, ProgressListener};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// What the bar counts for the current source.
struct Counts {
    started: Instant,
    /// Queries done in an earlier run when the source started.
    done_before: u64,
    pages: u64,
    values: u64,
    failed: u64,
}

impl Default for Counts {
    fn default() -> Self {
        Counts {
            started: Instant::now(),
            done_before: 0,
            pages: 0,
            values: 0,
            failed: 0,
        }
    }
}

impl Counts {
    fn message(&self, done: u64, total: u64) -> String {
        let elapsed = self.started.elapsed().as_secs_f64().max(1e-3);
        let rate = self.pages as f64 / elapsed;
        format!(
            "(eta {}) · {} pages ({rate:.0}/s) · {} new values · {} failed",
            eta(
                done.saturating_sub(self.done_before),
                total.saturating_sub(done),
                elapsed
            ),
            self.pages,
            self.values,
            self.failed
        )
    }
}

/// The time the `left` queries take at the pace of the `done` ones this run
/// sent in `elapsed` seconds: `?` before the first query ends.
fn eta(done: u64, left: u64, elapsed: f64) -> String {
    if done == 0 {
        return "?".into();
    }
    let seconds = (left as f64 * elapsed / done as f64).round() as u64;
    match seconds {
        0..=59 => format!("{seconds}s"),
        60..=3599 => format!("{}m{:02}s", seconds / 60, seconds % 60),
        _ => format!("{}h{:02}m", seconds / 3600, seconds % 3600 / 60),
    }
}

/// The source as the bar names it: its host and path, without the scheme.
fn label(url: &url::Url) -> String {
    let mut label = url.host_str().unwrap_or_default().to_string();
    if let Some(port) = url.port() {
        label.push_str(&format!(":{port}"));
    }
    label.push_str(url.path());
    label
}

/// A listener that draws a bar per database source, or `None` when standard
/// error is not a terminal (or the user asked for JSON or quiet).
pub fn bar(wanted: bool) -> Option<ProgressListener> {
    if !wanted || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    let style =
        ProgressStyle::with_template("{spinner} {prefix} [{bar:20}] {pos}/{len} queries {msg}")
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
                    done_before,
                    ..Counts::default()
                };
                bar.set_draw_target(ProgressDrawTarget::stderr());
                bar.reset();
                bar.set_prefix(label(&url));
                bar.set_length(queries);
                bar.set_position(done_before);
                bar.enable_steady_tick(Duration::from_millis(250));
            }
            Progress::Page { .. } => counts.pages += 1,
            Progress::Query { new_values, failed } => {
                counts.values += new_values;
                counts.failed += u64::from(failed);
                bar.inc(1);
            }
            Progress::More { queries } => bar.inc_length(queries),
            Progress::SourceDone => {
                bar.disable_steady_tick();
                bar.finish_and_clear();
                return;
            }
        }
        bar.set_message(counts.message(bar.position(), bar.length().unwrap_or(0)));
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_left_is_the_pace_of_this_run() {
        assert_eq!(eta(0, 10, 5.0), "?");
        assert_eq!(eta(10, 10, 5.0), "5s");
        assert_eq!(eta(1, 90, 1.0), "1m30s");
        assert_eq!(eta(1, 7200, 1.0), "2h00m");
        assert_eq!(eta(5, 0, 9.0), "0s");
    }

    #[test]
    fn the_bar_names_the_source() {
        let url = url::Url::parse("http://127.0.0.1:8642/hotels/search").unwrap();
        assert_eq!(label(&url), "127.0.0.1:8642/hotels/search");
    }
}

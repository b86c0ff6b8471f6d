//! The progress bar of a gathering, drawn from the gatherer's events on
//! standard error when it is a terminal.

use std::io::IsTerminal;
use std::sync::Arc;

use gather::gatherer::{Progress, ProgressListener};
use indicatif::{ProgressBar, ProgressStyle};

/// A listener that draws a bar per database source, or `None` when standard
/// error is not a terminal (or the user asked for JSON).
pub fn bar(wanted: bool) -> Option<ProgressListener> {
    if !wanted || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::hidden();
    let style = ProgressStyle::with_template(
        "{spinner} {msg} [{bar:30}] {pos}/{len} queries ({per_sec}, eta {eta})",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ");
    bar.set_style(style);
    Some(ProgressListener(Arc::new(move |event| match event {
        Progress::Source {
            url,
            queries,
            done_before,
        } => {
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            bar.reset();
            bar.set_length(queries);
            bar.set_position(done_before);
            bar.set_message(url.to_string());
        }
        Progress::Page { .. } => bar.tick(),
        Progress::Query { .. } => bar.inc(1),
        Progress::SourceDone => bar.finish_and_clear(),
    })))
}

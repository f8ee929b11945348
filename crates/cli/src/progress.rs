//! Progress bars on stderr for long runs (indicatif); drawn only when stderr is a
//! terminal, so logs and CI output stay clean.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use zonelab_experiments::reproduce::ProgressSink;

pub fn bar(len: u64, template: &str) -> ProgressBar {
    let pb = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(template) {
        pb.set_style(style);
    }
    pb
}

/// A byte-count progress bar for bench and replay.
pub fn bytes_bar() -> ProgressBar {
    bar(
        0,
        "{spinner} [{bar:40}] {bytes}/{total_bytes} simulated ({elapsed})",
    )
}

/// Adapts a bar to the reproduce harness's step reports.
pub struct StepBar(pub ProgressBar);

impl ProgressSink for StepBar {
    fn step(&mut self, done: u64, total: u64, label: &str) {
        self.0.set_length(total);
        self.0.set_position(done);
        self.0.set_message(label.to_string());
    }
}

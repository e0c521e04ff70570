//! Progress bars and number formatting shared by `strata ingest`, `strata
//! verify` and the loading of input files queried in place.

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use strata::LoadEvent;

/// A byte-based progress bar on standard error.
pub fn progress_bar() -> ProgressBar {
    let bar = ProgressBar::new(0);
    let style = ProgressStyle::with_template(
        "{elapsed_precise} [{wide_bar}] {bytes}/{total_bytes} ({bytes_per_sec}, ETA {eta}) {msg}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ");
    bar.set_style(style);
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// Moves `bar` to the progress `p` reports: input bytes read, or while a
/// sorted ingest merges its runs, rows merged.
pub fn show(bar: &ProgressBar, p: &strata_ingest::Progress) {
    if let Some(total) = p.merging {
        if bar.message() != "merging sorted runs" {
            let style = ProgressStyle::with_template(
                "{elapsed_precise} [{wide_bar}] {human_pos}/{human_len} rows (ETA {eta}) {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
            bar.set_style(style);
            bar.reset_eta();
            bar.set_length(total);
            bar.set_message("merging sorted runs");
        }
        bar.set_position(p.rows_written);
        return;
    }
    if let Some(total) = p.bytes_total {
        bar.set_length(total);
    }
    bar.set_position(p.bytes_read);
    let secs = bar.elapsed().as_secs_f64().max(1e-3);
    bar.set_message(format!(
        "{} rows, {} rows/s",
        thousands(p.rows_read),
        thousands((p.rows_read as f64 / secs) as u64)
    ));
}

/// A [`strata::Database::on_load`] callback showing a progress bar while
/// input files are loaded, when standard error is a terminal (`None`
/// otherwise: loading is quiet).
pub fn load_reporter() -> Option<impl Fn(&LoadEvent<'_>) + Send + Sync + 'static> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar: Arc<Mutex<Option<ProgressBar>>> = Arc::new(Mutex::new(None));
    Some(move |event: &LoadEvent<'_>| {
        let Ok(mut bar) = bar.lock() else {
            return;
        };
        match event {
            LoadEvent::Started { files } => {
                let b = progress_bar();
                b.println(format!("loading {} into the cache", files.join(", ")));
                *bar = Some(b);
            }
            LoadEvent::Progress(p) => {
                if let Some(b) = bar.as_ref() {
                    show(b, p);
                }
            }
            LoadEvent::Finished { .. } => {
                if let Some(b) = bar.take() {
                    b.finish_and_clear();
                }
            }
            _ => {}
        }
    })
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let groups: Vec<_> = digits
        .as_bytes()
        .rchunks(3)
        .rev()
        .map(String::from_utf8_lossy)
        .collect();
    groups.join(",")
}

/// A byte count in B, KiB, MiB, ...
pub fn size(bytes: u64) -> String {
    strata::engine::budget::human_bytes(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_numbers() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(size(10), "10 B");
        assert_eq!(size(1536), "1.5 KiB");
    }
}

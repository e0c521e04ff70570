//! `strata verify`: checks every checksum and structural invariant of a table.

use std::io::IsTerminal;
use std::path::Path;

use anyhow::{Context, Result};

/// Verifies the table; returns `Ok(true)` when it is intact. Shows a progress
/// bar on a terminal.
pub fn run(path: &Path) -> Result<bool> {
    let bar = std::io::stderr()
        .is_terminal()
        .then(crate::progress::progress_bar);
    let report = strata_format::verify_table_with_progress(path, |bytes, total| {
        if let Some(bar) = &bar {
            bar.set_length(total);
            bar.inc(bytes);
        }
    })
    .with_context(|| format!("verifying table {}", path.display()));
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let report = report?;
    for p in &report.problems {
        eprintln!("damaged: {p}");
    }
    for f in &report.stray_files {
        eprintln!("note: {} is not part of the table", path.join(f).display());
    }
    for d in &report.abandoned {
        eprintln!(
            "note: {} ({}) was left by a killed ingest; the next ingest into its directory removes it",
            d.display(),
            crate::progress::size(strata_format::files::dir_bytes(d)),
        );
    }
    if report.problems.is_empty() {
        crate::output::print_stdout(&format!(
            "ok: {} block files, {} bytes verified\n",
            report.files, report.bytes
        ))?;
        Ok(true)
    } else {
        eprintln!("{} problem(s) found", report.problems.len());
        Ok(false)
    }
}

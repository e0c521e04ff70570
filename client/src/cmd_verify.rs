//! `strata verify`: checks every checksum and structural invariant of a table.

use std::path::Path;

use anyhow::{Context, Result};

/// Verifies the table; returns `Ok(true)` when it is intact.
pub fn run(path: &Path) -> Result<bool> {
    let report = strata_format::verify_table(path)
        .with_context(|| format!("verifying table {}", path.display()))?;
    for p in &report.problems {
        eprintln!("damaged: {p}");
    }
    for f in &report.stray_files {
        eprintln!("note: {} is not part of the table", path.join(f).display());
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

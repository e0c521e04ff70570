//! `--split N,M,...`: every query also answered split into N tasks, each
//! reading a contiguous range of the largest table's blocks
//! (`Database::split` / `SplitQuery::partial`), its partial result carried
//! as Arrow IPC (`Partial::to_ipc` / `from_ipc`), then merged in one
//! process (`SplitQuery::merge`). The merged answer is checked against the
//! single-process answer with the suite's checks ([`super::check`]: a
//! multiset without ORDER BY, tie-aware under LIMIT against the full
//! single-process answer). Reports the time of the tasks one after the
//! other plus the merge, and the bytes of the partial results.

use std::fmt::Write as _;
use std::time::Instant;

use anyhow::Result;
use strata::{Database, Partial};

use super::check::{self, QueryShape, Rows, Verdict};
use super::QueryRun;

/// One query split into some number of tasks.
#[derive(Debug, Clone)]
pub struct SplitOutcome {
    /// Tasks.
    pub parts: usize,
    /// The merged answer checked against the single-process one.
    pub verdict: Verdict,
    /// Seconds of the partial plans (one after the other) and of the merge.
    pub secs: (f64, f64),
    /// Bytes of all partial results as Arrow IPC.
    pub bytes: u64,
    /// Rows of all partial results.
    pub rows: u64,
}

/// Blocks `0..n` in `parts` contiguous ranges of sizes differing by at most one.
pub fn ranges(n: usize, parts: usize) -> Vec<Vec<usize>> {
    let parts = parts.max(1);
    (0..parts)
        .map(|p| (n * p / parts..n * (p + 1) / parts).collect())
        .collect()
}

/// `sql` split into `parts` tasks and merged; `whole` is the single-process answer.
pub fn run_one(db: &Database, sql: &str, parts: usize, whole: &QueryRun) -> SplitOutcome {
    let mut out = SplitOutcome {
        parts,
        verdict: Verdict::Ok,
        secs: (0.0, 0.0),
        bytes: 0,
        rows: 0,
    };
    let answer = (|| -> strata::Result<(Vec<String>, Rows)> {
        let split = db.split(sql)?;
        let t0 = Instant::now();
        let mut partials = Vec::with_capacity(parts);
        for blocks in ranges(split.num_blocks(), parts) {
            let bytes = split.partial(&blocks)?.to_ipc()?;
            out.bytes += bytes.len() as u64;
            let p = Partial::from_ipc(&bytes)?;
            out.rows += p.num_rows() as u64;
            partials.push(p);
        }
        let t1 = Instant::now();
        let r = split.merge(&partials)?;
        out.secs = ((t1 - t0).as_secs_f64(), t1.elapsed().as_secs_f64());
        let names = r.columns().map(|c| c.name().to_string()).collect();
        Ok((names, r.rows().map(|row| row.strings()).collect()))
    })();
    out.verdict = match answer {
        Err(e) => Verdict::Refused(e.to_string()),
        Ok((names, rows)) => judge(db, sql, &names, &rows, whole),
    };
    out
}

/// The merged answer against the single-process one.
fn judge(db: &Database, sql: &str, names: &[String], rows: &Rows, whole: &QueryRun) -> Verdict {
    let shape = QueryShape::of(sql);
    if names != whole.columns.as_slice() {
        return Verdict::Mismatch(format!(
            "columns {names:?}, single-process {:?}",
            whole.columns
        ));
    }
    if check::exact(&shape, rows, &whole.rows) {
        return Verdict::Ok;
    }
    if !shape.has_limit {
        return Verdict::Mismatch(check::describe(rows, &whole.rows));
    }
    match db.query(&shape.without_limit) {
        Ok(full) => {
            let full: Rows = full.rows().map(|row| row.strings()).collect();
            check::tie_aware(&shape, names, rows, &whole.rows, &full)
        }
        Err(e) => Verdict::Mismatch(format!("the answer without LIMIT failed: {e}")),
    }
}

/// The report: per query and number of tasks, the check, times and bytes.
pub fn render(selected: &[usize], outcomes: &[Vec<SplitOutcome>]) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "\nSplit queries: tasks over contiguous block ranges, partials as Arrow IPC, merged; \
         checked against the single-process answer"
    );
    let _ = writeln!(
        o,
        "{:<4} {:>5} {:>12} {:>10} {:>12} {:>12}  check",
        "Q", "tasks", "partial ms", "merge ms", "IPC bytes", "rows"
    );
    let (mut ok, mut mismatches, mut refused) = (0, 0, 0);
    for &i in selected {
        for s in outcomes.get(i).into_iter().flatten() {
            let check = match &s.verdict {
                Verdict::Ok => {
                    ok += 1;
                    "OK".to_string()
                }
                Verdict::OkTies => {
                    ok += 1;
                    "OK (ties)".to_string()
                }
                Verdict::Mismatch(why) => {
                    mismatches += 1;
                    format!("MISMATCH: {why}")
                }
                Verdict::Refused(why) => {
                    refused += 1;
                    format!("REFUSED: {why}")
                }
            };
            let _ = writeln!(
                o,
                "Q{:<3} {:>5} {:>12.1} {:>10.1} {:>12} {:>12}  {check}",
                i + 1,
                s.parts,
                s.secs.0 * 1e3,
                s.secs.1 * 1e3,
                s.bytes,
                s.rows
            );
        }
    }
    let _ = writeln!(
        o,
        "split answers: {ok} match, split mismatches: {mismatches}, refused: {refused}"
    );
    o
}

/// Splits every selected query that `runs` answered into each number of `parts`.
pub fn run_all(
    db: &Database,
    queries: &[String],
    selected: &[usize],
    runs: &[QueryRun],
    parts: &[usize],
) -> Result<Vec<Vec<SplitOutcome>>> {
    let mut out = vec![Vec::new(); queries.len()];
    for &i in selected {
        let Some(whole) = runs.get(i).filter(|r| r.error.is_none()) else {
            continue;
        };
        for &p in parts {
            let s = run_one(db, &queries[i], p, whole);
            let mark = match &s.verdict {
                Verdict::Ok | Verdict::OkTies => "ok",
                Verdict::Mismatch(_) => "MISMATCH",
                Verdict::Refused(_) => "refused",
            };
            eprintln!(
                "[strata] Q{:<2} split {p}: {mark}, {:.1} ms + merge {:.1} ms, {} bytes",
                i + 1,
                s.secs.0 * 1e3,
                s.secs.1 * 1e3,
                s.bytes
            );
            out[i].push(s);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cover_every_block_once() {
        for n in [0, 1, 5, 10, 17] {
            for parts in [1, 2, 5, 20] {
                let r = ranges(n, parts);
                assert_eq!(r.len(), parts);
                let all: Vec<usize> = r.concat();
                assert_eq!(all, (0..n).collect::<Vec<_>>());
                let sizes: Vec<usize> = r.iter().map(Vec::len).collect();
                let (lo, hi) = (sizes.iter().min(), sizes.iter().max());
                assert!(hi.zip(lo).is_none_or(|(h, l)| h - l <= 1));
            }
        }
    }
}

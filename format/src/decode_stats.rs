//! Process-wide counters of the work readers do before they can use a
//! chunk's bytes: sections decompressed or derived, row codes decoded,
//! string blocks decompressed. `EXPLAIN ANALYZE` reports the difference
//! between two [`snapshot`]s, which shows where a fresh process spends its
//! time that a process with warm caches does not.
//!
//! The counters are shared by every query of the process: with queries
//! running at once, a difference includes the others' work.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use crate::layout::{Section, SECTION_COUNT};

/// What was decoded: a section (by slot), every row's code, or string
/// blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    /// A section decompressed or derived.
    Section(Section),
    /// Row-ordered value indexes decoded or unpacked.
    RowCodes,
    /// One string block decompressed.
    StringBlock,
}

const SLOTS: usize = SECTION_COUNT + 2;

impl Work {
    fn slot(self) -> usize {
        match self {
            Work::Section(s) => s as usize,
            Work::RowCodes => SECTION_COUNT,
            Work::StringBlock => SECTION_COUNT + 1,
        }
    }

    /// Lower-case name for reports.
    pub fn name(self) -> &'static str {
        match self {
            Work::Section(s) => s.name(),
            Work::RowCodes => "row codes",
            Work::StringBlock => "string blocks",
        }
    }

    fn all() -> impl Iterator<Item = Work> {
        Section::ALL
            .into_iter()
            .map(Work::Section)
            .chain([Work::RowCodes, Work::StringBlock])
    }
}

struct Counter {
    calls: AtomicU64,
    bytes: AtomicU64,
    nanos: AtomicU64,
}

#[allow(clippy::declare_interior_mutable_const)]
const ZERO: Counter = Counter {
    calls: AtomicU64::new(0),
    bytes: AtomicU64::new(0),
    nanos: AtomicU64::new(0),
};

static COUNTERS: [Counter; SLOTS] = [ZERO; SLOTS];

/// Times `f`, which produces `bytes` bytes of `work` (as its result says).
pub(crate) fn timed<T, E>(work: Work, f: impl FnOnce() -> Result<(T, usize), E>) -> Result<T, E> {
    let start = Instant::now();
    let (out, bytes) = f()?;
    let c = &COUNTERS[work.slot()];
    c.calls.fetch_add(1, Ordering::Relaxed);
    c.bytes.fetch_add(bytes as u64, Ordering::Relaxed);
    c.nanos
        .fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
    Ok(out)
}

/// One kind of work's totals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkTotals {
    /// What was decoded.
    pub work: Work,
    /// Times it was done.
    pub calls: u64,
    /// Bytes produced.
    pub bytes: u64,
    /// Time spent, summed over threads.
    pub nanos: u64,
}

/// The counters now, one entry per kind of work.
pub fn snapshot() -> Vec<WorkTotals> {
    Work::all()
        .map(|work| {
            let c = &COUNTERS[work.slot()];
            WorkTotals {
                work,
                calls: c.calls.load(Ordering::Relaxed),
                bytes: c.bytes.load(Ordering::Relaxed),
                nanos: c.nanos.load(Ordering::Relaxed),
            }
        })
        .collect()
}

/// What happened between snapshots `before` and `after`: the kinds of work
/// done at least once.
pub fn since(before: &[WorkTotals], after: &[WorkTotals]) -> Vec<WorkTotals> {
    after
        .iter()
        .zip(before)
        .map(|(a, b)| WorkTotals {
            work: a.work,
            calls: a.calls.saturating_sub(b.calls),
            bytes: a.bytes.saturating_sub(b.bytes),
            nanos: a.nanos.saturating_sub(b.nanos),
        })
        .filter(|w| w.calls > 0)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_count_the_work_between_snapshots() {
        let before = snapshot();
        let got: Result<u32, ()> = timed(Work::RowCodes, || Ok((7, 4096)));
        assert_eq!(got, Ok(7));
        let done = since(&before, &snapshot());
        let codes = done.iter().find(|w| w.work == Work::RowCodes).unwrap();
        assert!(codes.calls >= 1 && codes.bytes >= 4096);
        assert_eq!(Work::Section(Section::Values).name(), "values");
    }
}

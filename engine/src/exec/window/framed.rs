//! Aggregates over frames, through the [`Accumulator`] interface, by the
//! cheapest strategy the frame and the aggregate allow:
//!
//! - whole partition: one state per partition (no ORDER BY, or a frame
//!   unbounded at both ends);
//! - running: frames from the partition's first row whose end only moves
//!   forward; each row is added once;
//! - sliding: frames whose both ends only move forward (constant
//!   offsets), for aggregates that can take rows out exactly (counts,
//!   exact sums): each row is added once and removed once;
//! - segment tree: any frame (per-row offsets, EXCLUDE), for aggregates
//!   whose states merge: a tree of states over groups of 16 rows, each
//!   frame the merge of at most 2 * 15 states per level;
//! - per frame: everything else, and aggregates without an accumulator:
//!   each distinct frame's rows are aggregated on their own (through the
//!   grouping aggregation for the latter).

use rayon::prelude::*;
use std::borrow::Cow;

use super::frame::{FrameData, Part, Parts, Pieces};
use crate::agg::accumulate::{aggregate, CallInputs, Grouping};
use crate::agg::func::AggCall;
use crate::agg::state::{with_accumulator, Accumulator, WithAccumulator};
use crate::budget::{gathered_bytes, vector_bytes_from, Budget, Held};
use crate::error::{EngineError, Result};
use crate::interrupt::Watch;
use crate::plan::window::{Exclude, FrameBound, FrameUnits, WindowCall};
use crate::value::Vector;

/// How a framed aggregate is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// One state per partition.
    Whole,
    /// Rows added as the frame's end moves forward.
    Running,
    /// Rows added and removed as both ends move forward.
    Sliding,
    /// Frames as merges of a segment tree's states.
    SegmentTree,
    /// Each distinct frame aggregated on its own.
    PerFrame,
}

impl Strategy {
    /// Its name in EXPLAIN.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Whole => "whole partition",
            Strategy::Running => "running",
            Strategy::Sliding => "sliding",
            Strategy::SegmentTree => "segment tree",
            Strategy::PerFrame => "per frame",
        }
    }

    /// The strategy for an aggregate call over its frame.
    pub fn choose(
        call: &WindowCall,
        agg: &AggCall,
        arg_ty: Option<crate::value::LType>,
    ) -> Strategy {
        let f = &call.frame;
        let caps = match arg_ty {
            None => with_accumulator(agg, None, Caps),
            Some(t) => with_accumulator(agg, Some(&Vector::empty(t, 0)), Caps),
        };
        let Some((invertible, mergeable)) = caps else {
            return Strategy::PerFrame;
        };
        // The accumulators take one argument and every row; DISTINCT,
        // FILTER, ORDER BY, more arguments and parameters go through the
        // grouping aggregation.
        if agg.args.len() > 1
            || agg.distinct
            || !agg.is_plain()
            || !matches!(agg.param, crate::agg::func::AggParam::None)
        {
            return Strategy::PerFrame;
        }
        let unordered_peers = call.order.is_empty() && f.units != FrameUnits::Rows;
        let plain = f.exclude == Exclude::NoOthers;
        let whole_start = matches!(f.start, FrameBound::UnboundedPreceding)
            || (unordered_peers && !matches!(f.start, FrameBound::Following(_)));
        let whole_end = matches!(f.end, FrameBound::UnboundedFollowing)
            || (unordered_peers && !matches!(f.end, FrameBound::Preceding(_)));
        let constant = f.start.is_constant() && f.end.is_constant();
        if plain && whole_start && whole_end {
            Strategy::Whole
        } else if plain && constant && matches!(f.start, FrameBound::UnboundedPreceding) {
            Strategy::Running
        } else if plain && constant && invertible {
            Strategy::Sliding
        } else if mergeable {
            Strategy::SegmentTree
        } else {
            Strategy::PerFrame
        }
    }
}

/// An accumulator's capabilities: (invertible, mergeable).
struct Caps;

impl WithAccumulator for Caps {
    type Out = (bool, bool);
    fn run<A: Accumulator>(self, _: &A) -> (bool, bool) {
        (A::INVERTIBLE, A::MERGEABLE)
    }
}

/// A task's output charged to the query's budget as it grows (a string
/// aggregate over many frames can outgrow memory long before the task
/// ends), and the point where an interrupted query stops.
pub struct Meter<'a> {
    budget: &'a Budget,
    watch: &'a Watch,
    held: Held,
    /// Values of the output charged so far.
    counted: usize,
}

impl<'a> Meter<'a> {
    /// A meter of one task's output, nothing charged yet.
    pub fn new(budget: &'a Budget, watch: &'a Watch) -> Result<Meter<'a>> {
        Ok(Meter {
            budget,
            watch,
            held: budget.hold(0, WHAT)?,
            counted: 0,
        })
    }

    /// Charges what `out` gained since the last call, and stops an
    /// interrupted query.
    pub fn update(&mut self, out: &Vector) -> Result<()> {
        self.watch.check()?;
        let bytes = vector_bytes_from(out, self.counted);
        self.counted = out.len();
        self.held.grow(bytes, WHAT)
    }

    /// [`Meter::update`] after the `i`-th value of a loop: after every
    /// string (one can be large: a string aggregate over a long frame), and
    /// every [`TICK_ROWS`] fixed-width values.
    fn tick(&mut self, out: &Vector, i: usize) -> Result<()> {
        if matches!(out.data, crate::value::Data::Str(_)) || i.is_multiple_of(TICK_ROWS) {
            self.update(out)?;
        }
        Ok(())
    }

    /// Appends `values` at `idx` to `out`, charged before they are made.
    /// `values` are moved, not gathered, where `idx` takes each once in order.
    fn append_gathered(&mut self, out: &mut Vector, values: Vector, idx: &[u32]) -> Result<()> {
        self.update(out)?;
        let bytes = gathered_bytes(&values, idx);
        self.counted += idx.len();
        self.held.grow(bytes, WHAT)?;
        let in_order = idx.len() == values.len() && super::is_identity(idx);
        out.append_owned(if in_order { values } else { values.gather(idx) });
        Ok(())
    }

    /// Charges `copies` more copies of `out`'s last value before they are
    /// made, counting them as charged.
    fn charge_copies(&mut self, out: &Vector, copies: usize) -> Result<()> {
        self.update(out)?;
        let last = vector_bytes_from(out, out.len().saturating_sub(1));
        self.counted += copies;
        self.held.grow(last.saturating_mul(copies as u64), WHAT)
    }
}

/// Fixed-width values appended between two charges of a [`Meter`].
const TICK_ROWS: usize = 4096;

/// What the budget error names.
const WHAT: &str = "window results";

/// Appends the aggregate's value over each row's frame, for the
/// partitions `parts`, to `out`. `inputs` are the call's arguments, FILTER
/// and ORDER BY keys by sorted position; `meter` charges `out` as it grows.
pub fn aggregate_partitions(
    call: &AggCall,
    inputs: &CallInputs,
    strategy: Strategy,
    frame: &FrameData,
    parts: &Parts,
    out: &mut Vector,
    meter: &mut Meter<'_>,
) -> Result<()> {
    if strategy != Strategy::PerFrame {
        let run = Run {
            strategy,
            frame,
            parts,
            out: &mut *out,
            meter: &mut *meter,
        };
        if let Some(r) = with_accumulator(call, inputs.args.first().map(|a| &**a), run) {
            return r;
        }
    }
    per_frame(call, inputs, frame, parts, out, meter)
}

/// Evaluation of one strategy with a concrete accumulator.
struct Run<'a, 'b> {
    strategy: Strategy,
    frame: &'a FrameData,
    parts: &'a Parts,
    out: &'a mut Vector,
    meter: &'a mut Meter<'b>,
}

impl WithAccumulator for Run<'_, '_> {
    type Out = Result<()>;
    fn run<A: Accumulator>(self, acc: &A) -> Result<()> {
        for p in self.parts.iter() {
            match self.strategy {
                Strategy::Whole => whole(acc, &p, self.out, self.meter)?,
                Strategy::Running | Strategy::Sliding => moving(
                    acc,
                    self.frame,
                    &p,
                    self.out,
                    self.strategy == Strategy::Sliding,
                    self.meter,
                )?,
                _ => tree(acc, self.frame, &p, self.out, self.meter)?,
            }
            self.meter.update(self.out)?;
        }
        Ok(())
    }
}

fn whole<A: Accumulator>(
    acc: &A,
    p: &Part<'_>,
    out: &mut Vector,
    meter: &mut Meter<'_>,
) -> Result<()> {
    if p.n == 0 {
        return Ok(());
    }
    let mut s = acc.init();
    for r in p.base..p.base + p.n {
        acc.add(&mut s, r)?;
    }
    acc.finish(&s, out)?;
    meter.charge_copies(out, p.n - 1)?;
    repeat_last(out, p.n - 1);
    Ok(())
}

/// Appends `k` copies of `out`'s last value.
fn repeat_last(out: &mut Vector, k: usize) {
    use crate::value::Data;
    fn rep<T: Clone>(d: &mut Vec<T>, k: usize) {
        if let Some(x) = d.last().cloned() {
            d.extend(std::iter::repeat_n(x, k));
        }
    }
    match &mut out.data {
        Data::Bool(d) => rep(d, k),
        Data::I64(d) => rep(d, k),
        Data::U64(d) => rep(d, k),
        Data::I128(d) => rep(d, k),
        Data::F64(d) => rep(d, k),
        Data::Str(d) => {
            if let Some(x) = d.iter().next_back().map(<[u8]>::to_vec) {
                for _ in 0..k {
                    d.push(&x);
                }
            }
        }
    }
    if let Some(n) = &mut out.nulls {
        rep(n, k);
    }
}

/// Running and sliding frames: the state holds rows `lo..hi` (local).
fn moving<A: Accumulator>(
    acc: &A,
    frame: &FrameData,
    p: &Part<'_>,
    out: &mut Vector,
    sliding: bool,
    meter: &mut Meter<'_>,
) -> Result<()> {
    let nn = frame.non_null(p);
    let mut s = acc.init();
    let (mut lo, mut hi) = (0usize, 0usize);
    for i in 0..p.n {
        let (fs, fe) = frame.frame(p, i, nn)?;
        let fs = if sliding { fs.min(fe) } else { 0 };
        if fe < hi || fs < lo {
            // Ends never move back with constant offsets; start over if
            // they do.
            s = acc.init();
            lo = fs;
            hi = fs;
        }
        while hi < fe {
            acc.add(&mut s, p.base + hi)?;
            hi += 1;
        }
        while lo < fs {
            acc.remove(&mut s, p.base + lo)?;
            lo += 1;
        }
        acc.finish(&s, out)?;
        meter.tick(out, i)?;
    }
    Ok(())
}

/// Children per node of the segment tree.
const FANOUT: usize = 16;

/// Rows per parallel task when one partition is large.
const TASK_ROWS: usize = 1 << 15;

fn tree<A: Accumulator>(
    acc: &A,
    frame: &FrameData,
    p: &Part<'_>,
    out: &mut Vector,
    meter: &mut Meter<'_>,
) -> Result<()> {
    // Level k's state j covers the rows j * 16^(k+1) .. (j + 1) * 16^(k+1).
    let mut levels: Vec<Vec<A::State>> = Vec::new();
    let mut first = Vec::with_capacity(p.n.div_ceil(FANOUT));
    for c in (0..p.n).step_by(FANOUT) {
        let mut s = acc.init();
        for r in c..(c + FANOUT).min(p.n) {
            acc.add(&mut s, p.base + r)?;
        }
        first.push(s);
    }
    levels.push(first);
    while levels.last().is_some_and(|l| l.len() > 1) {
        let below = levels.last().map(Vec::as_slice).unwrap_or_default();
        let mut next = Vec::with_capacity(below.len().div_ceil(FANOUT));
        for chunk in below.chunks(FANOUT) {
            let mut s = acc.init();
            for c in chunk {
                acc.merge(&mut s, c)?;
            }
            next.push(s);
        }
        levels.push(next);
    }
    let nn = frame.non_null(p);
    let query = |i: usize, out: &mut Vector| -> Result<()> {
        let f = frame.frame(p, i, nn)?;
        let pieces: Pieces = frame.pieces(p, i, f);
        let mut s = acc.init();
        for &(a, b) in pieces.ranges() {
            tree_range(acc, &levels, p.base, a, b, &mut s)?;
        }
        acc.finish(&s, out)
    };
    if p.n < 2 * TASK_ROWS {
        for i in 0..p.n {
            query(i, out)?;
            meter.tick(out, i)?;
        }
        return Ok(());
    }
    let (budget, watch) = (meter.budget, meter.watch);
    let parts: Vec<(Vector, Meter)> = (0..p.n.div_ceil(TASK_ROWS))
        .into_par_iter()
        .map(|t| {
            let mut task_meter = Meter::new(budget, watch)?;
            let mut v = Vector::empty(out.ty, TASK_ROWS);
            for (k, i) in (t * TASK_ROWS..((t + 1) * TASK_ROWS).min(p.n)).enumerate() {
                query(i, &mut v)?;
                task_meter.tick(&v, k)?;
            }
            task_meter.update(&v)?;
            Ok((v, task_meter))
        })
        .collect::<Result<_>>()?;
    for (v, task_meter) in parts {
        // Charged by the task until moved into `out`, then by `meter`.
        out.append_owned(v);
        drop(task_meter);
        meter.update(out)?;
    }
    Ok(())
}

/// Adds the rows `a..b` (local) to `s` from the tree's states.
fn tree_range<A: Accumulator>(
    acc: &A,
    levels: &[Vec<A::State>],
    base: usize,
    a: usize,
    b: usize,
    s: &mut A::State,
) -> Result<()> {
    // Items of the current level: rows (level None), then states.
    let (mut l, mut r) = (a, b);
    let mut level: Option<usize> = None;
    let add = |level: Option<usize>, range: std::ops::Range<usize>, s: &mut A::State| {
        for j in range {
            match level {
                None => acc.add(s, base + j)?,
                Some(k) => acc.merge(s, &levels[k][j])?,
            }
        }
        Ok::<(), EngineError>(())
    };
    while l < r {
        let up = level.map_or(0, |k| k + 1);
        let (pl, pr) = (l.div_ceil(FANOUT), r / FANOUT);
        if up >= levels.len() || pl >= pr {
            add(level, l..r, s)?;
            break;
        }
        add(level, l..pl * FANOUT, s)?;
        add(level, pr * FANOUT..r, s)?;
        l = pl;
        r = pr;
        level = Some(up);
    }
    Ok(())
}

/// Rows gathered at most per batch of frames aggregated together.
const PER_FRAME_ROWS: usize = 1 << 20;

/// Bytes gathered at most per batch of frames (strings counted by length):
/// what the batch holds beyond the output is bounded by this, whatever the
/// size of its strings.
const PER_FRAME_BYTES: u64 = 64 << 20;

/// Bytes that gathering row `r` of `v` copies.
fn row_bytes(v: &Vector, r: usize) -> u64 {
    use crate::value::Data;
    match &v.data {
        Data::Str(d) => 24 + d.get(r).map_or(0, |x| x.len() as u64),
        Data::I128(_) => 16,
        _ => 8,
    }
}

/// Each distinct frame's rows aggregated on their own, through the
/// grouping aggregation: consecutive rows with the same frame share it.
fn per_frame(
    call: &AggCall,
    all: &CallInputs,
    frame: &FrameData,
    parts: &Parts,
    out: &mut Vector,
    meter: &mut Meter<'_>,
) -> Result<()> {
    let mut idx: Vec<u32> = Vec::new();
    let mut ids: Vec<u32> = Vec::new();
    let mut first: Vec<u32> = Vec::new();
    // Per output row, its group in the current batch.
    let mut rows_group: Vec<u32> = Vec::new();
    let flush = |idx: &mut Vec<u32>,
                 ids: &mut Vec<u32>,
                 first: &mut Vec<u32>,
                 rows_group: &mut Vec<u32>,
                 out: &mut Vector,
                 meter: &mut Meter<'_>|
     -> Result<()> {
        if rows_group.is_empty() {
            return Ok(());
        }
        let g = Grouping {
            ids: std::mem::take(ids),
            first: std::mem::take(first),
        };
        // Charged before the copies are made.
        let gathered: u64 = (all.args.iter())
            .chain(&all.filter)
            .chain(&all.order)
            .map(|v| gathered_bytes(v, idx))
            .sum();
        let _held = meter.budget.hold(gathered, "window function arguments")?;
        let inputs = CallInputs {
            args: all.args.iter().map(|a| Cow::Owned(a.gather(idx))).collect(),
            filter: all.filter.as_ref().map(|f| Cow::Owned(f.gather(idx))),
            order: all
                .order
                .iter()
                .map(|o| Cow::Owned(o.gather(idx)))
                .collect(),
        };
        let values = aggregate(call, &inputs, &g)?;
        drop(inputs);
        meter.append_gathered(out, values, rows_group)?;
        idx.clear();
        rows_group.clear();
        Ok(())
    };
    // The vectors a batch gathers; sized row by row where one holds strings.
    let gathered: Vec<&Vector> = (all.args.iter())
        .chain(&all.filter)
        .chain(&all.order)
        .map(|v| &**v)
        .collect();
    let wide = gathered
        .iter()
        .any(|v| matches!(v.data, crate::value::Data::Str(_)));
    let mut idx_bytes = 0u64;
    for p in parts.iter() {
        let nn = frame.non_null(&p);
        let mut prev: Option<Pieces> = None;
        for i in 0..p.n {
            let f = frame.frame(&p, i, nn)?;
            let pieces = frame.pieces(&p, i, f);
            if prev != Some(pieces) {
                if idx.len() >= PER_FRAME_ROWS || idx_bytes >= PER_FRAME_BYTES {
                    flush(&mut idx, &mut ids, &mut first, &mut rows_group, out, meter)?;
                    idx_bytes = 0;
                }
                let gid = first.len() as u32;
                first.push(idx.len() as u32);
                for &(a, b) in pieces.ranges() {
                    for j in a..b {
                        idx.push((p.base + j) as u32);
                        ids.push(gid);
                        if wide {
                            idx_bytes += gathered
                                .iter()
                                .map(|v| row_bytes(v, p.base + j))
                                .sum::<u64>();
                        }
                    }
                }
                prev = Some(pieces);
            }
            rows_group.push(first.len() as u32 - 1);
        }
    }
    flush(&mut idx, &mut ids, &mut first, &mut rows_group, out, meter)
}

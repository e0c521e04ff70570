//! Window: the input's rows with one column per window function call.
//!
//! Calls with the same PARTITION BY and ORDER BY share one arrangement of
//! the rows ([`sort`]): partition by partition, each in order, with its
//! peer groups. Each call is then computed partition by partition in
//! that order, groups of partitions in parallel: ranking and value
//! functions in [`funcs`], aggregates over frames ([`frame`]) in
//! [`framed`], and its column put back in the input's row order.
//!
//! Memory: the arrangement (sorted positions, sort keys) and each call's
//! sorted arguments and results are charged to the query's budget while
//! they are held.

pub mod frame;
pub mod framed;
pub mod funcs;
pub mod sort;

use rayon::prelude::*;
use std::borrow::Cow;

use super::{Batch, ExecCtx, Operator};
use crate::agg::accumulate::CallInputs;
use crate::budget::vector_bytes;
use crate::error::{EngineError, Result};
use crate::expr::{eval, ExprKind, TExpr};
use crate::plan::display::show;
use crate::plan::window::{FrameBound, WindowCall, WindowFunc};
use crate::value::{Data, Value, Vector};
use frame::{Count, End, FrameData, Parts};
use framed::Strategy;
use sort::{arrange, Arrangement, KeyColumn, Sorted};

/// Computes window function calls.
#[derive(Debug)]
pub struct WindowOp {
    /// Its number in the tree.
    pub id: usize,
    /// The input.
    pub input: Box<dyn Operator>,
    /// The calls, over the input's columns.
    pub calls: Vec<WindowCall>,
    /// The input's column names (EXPLAIN).
    pub names: Vec<String>,
    /// Calls sharing partitions and order, by position in `calls`.
    groups: Vec<Vec<usize>>,
}

impl WindowOp {
    /// The operator for `calls` over `input` (whose columns are `names`).
    pub fn new(
        id: usize,
        input: Box<dyn Operator>,
        calls: Vec<WindowCall>,
        names: Vec<String>,
    ) -> WindowOp {
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (i, c) in calls.iter().enumerate() {
            match groups.iter_mut().find(|g| calls[g[0]].same_order(c)) {
                Some(g) => g.push(i),
                None => groups.push(vec![i]),
            }
        }
        WindowOp {
            id,
            input,
            calls,
            names,
            groups,
        }
    }

    fn show(&self, e: &TExpr) -> String {
        let name = |i: usize| {
            self.names
                .get(i)
                .cloned()
                .unwrap_or_else(|| format!("#{i}"))
        };
        show(e, &name, &|n| format!("@{n}"))
    }

    /// How a call is computed (EXPLAIN).
    fn strategy(&self, c: &WindowCall) -> String {
        match &c.func {
            WindowFunc::Aggregate(a) => Strategy::choose(c, a, a.arg().map(|x| x.ty))
                .name()
                .to_string(),
            f if f.uses_frame() => "frame positions".into(),
            WindowFunc::Lag | WindowFunc::Lead => "partition positions".into(),
            _ => "peer groups".into(),
        }
    }
}

impl Operator for WindowOp {
    fn describe(&self) -> String {
        let arrangements: Vec<&str> = self
            .groups
            .iter()
            .map(|g| {
                let c = &self.calls[g[0]];
                Arrangement::of(!c.partition.is_empty(), !c.order.is_empty()).name()
            })
            .collect();
        format!("Window ({})", arrangements.join("; "))
    }

    fn children(&self) -> Vec<&dyn Operator> {
        vec![self.input.as_ref()]
    }

    fn id(&self) -> usize {
        self.id
    }

    fn notes(&self) -> Vec<String> {
        let mut out = Vec::new();
        for g in &self.groups {
            for &i in g {
                let c = &self.calls[i];
                out.push(format!(
                    "{}: {}",
                    c.show(&|e| self.show(e)),
                    self.strategy(c)
                ));
            }
        }
        out
    }

    fn execute(&self, ctx: &ExecCtx) -> Result<Batch> {
        let input = ctx.run(self.input.as_ref())?;
        let n = input.rows;
        if n > u32::MAX as usize {
            return Err(EngineError::TooLarge(format!(
                "{n} rows are too many for window functions"
            )));
        }
        let mut results: Vec<Option<Vector>> = vec![None; self.calls.len()];
        let mut held = Vec::new();
        for g in &self.groups {
            let first = &self.calls[g[0]];
            let mut part_vecs = Vec::new();
            for e in &first.partition {
                part_vecs.push(eval(e, n, &input)?);
            }
            let mut order_vecs = Vec::new();
            for k in &first.order {
                order_vecs.push(eval(&k.expr, n, &input)?);
            }
            let keys: Vec<KeyColumn> = first
                .order
                .iter()
                .zip(&order_vecs)
                .map(|(k, v)| KeyColumn {
                    values: v,
                    desc: k.desc,
                    nulls_first: k.nulls_first,
                })
                .collect();
            // Sorted positions, partition bounds, peer flags and the keys'
            // words while sorting.
            let words = (part_vecs.len() + order_vecs.len()) as u64 * 16;
            let _held = ctx
                .budget
                .hold(n as u64 * (24 + words), "window partitions")?;
            let parts: Vec<&Vector> = part_vecs.iter().map(|v| &**v).collect();
            let sorted = arrange(&parts, &keys, n);
            ctx.watch.check()?;
            drop((part_vecs, order_vecs));
            // Input already in window order (often: rows read in the order
            // the window sorts them): results need not be put back.
            let in_order = is_identity(&sorted.perm);
            for &i in g {
                let v = self.compute(&self.calls[i], &input, &sorted, ctx)?;
                // Charged until the batch is handed on.
                held.push(ctx.budget.hold(vector_bytes(&v), "window results")?);
                if in_order {
                    results[i] = Some(v);
                    continue;
                }
                // Strings put in row order are copied: both copies are held
                // while it is made.
                let _copy = match v.data {
                    Data::Str(_) => Some(ctx.budget.hold(vector_bytes(&v), "window results")?),
                    _ => None,
                };
                results[i] = Some(scatter(v, &sorted.perm));
                ctx.watch.check()?;
            }
        }
        let mut columns = input.columns;
        for r in results {
            columns
                .push(r.ok_or_else(|| EngineError::Internal("window call not computed".into()))?);
        }
        Ok(Batch::new(columns, n))
    }
}

/// Whether `perm` leaves every row where it is.
pub(crate) fn is_identity(perm: &[u32]) -> bool {
    perm.iter().enumerate().all(|(pos, &r)| r as usize == pos)
}

/// `v` (by sorted position) in input row order: position `pos` goes to
/// row `perm[pos]` (a permutation).
fn scatter(v: Vector, perm: &[u32]) -> Vector {
    fn put<T: Default + Clone>(mut d: Vec<T>, perm: &[u32]) -> Vec<T> {
        let mut out = vec![T::default(); d.len()];
        for (x, &r) in d.iter_mut().zip(perm) {
            out[r as usize] = std::mem::take(x);
        }
        out
    }
    let data = match v.data {
        Data::Bool(d) => Data::Bool(put(d, perm)),
        Data::I64(d) => Data::I64(put(d, perm)),
        Data::U64(d) => Data::U64(put(d, perm)),
        Data::I128(d) => Data::I128(put(d, perm)),
        Data::F64(d) => Data::F64(put(d, perm)),
        Data::Str(d) => {
            // Row r takes sorted position inverse[r].
            let mut inverse = vec![0u32; perm.len()];
            for (pos, &r) in perm.iter().enumerate() {
                inverse[r as usize] = pos as u32;
            }
            Data::Str(d.gather(&inverse))
        }
    };
    Vector {
        ty: v.ty,
        data,
        nulls: v.nulls.map(|n| put(n, perm)),
    }
}

/// Partitions per group computed by one task: groups of about this many
/// rows (a larger partition is a group of its own).
const TASK_ROWS: usize = 1 << 14;

impl WindowOp {
    /// A call's values in sorted order.
    fn compute(
        &self,
        call: &WindowCall,
        input: &Batch,
        sorted: &Sorted,
        ctx: &ExecCtx,
    ) -> Result<Vector> {
        let n = input.rows;
        let sorted_eval =
            |e: &TExpr| -> Result<Vector> { Ok(eval(e, n, input)?.gather(&sorted.perm)) };
        let count = |e: &TExpr| -> Result<Count> {
            if let ExprKind::Lit(v) = &e.kind {
                return match v {
                    Value::Int(x) => Ok(Count::Const(*x)),
                    Value::Null => Ok(Count::PerRow(Vector::nulls(e.ty, n))),
                    _ => Err(EngineError::Internal(format!("window count {e}"))),
                };
            }
            Ok(Count::PerRow(sorted_eval(e)?))
        };
        let frame = if call.func.uses_frame() {
            let end = |b: &FrameBound| -> Result<End> {
                Ok(match b {
                    FrameBound::UnboundedPreceding => End::UnboundedPreceding,
                    FrameBound::UnboundedFollowing => End::UnboundedFollowing,
                    FrameBound::CurrentRow => End::CurrentRow,
                    FrameBound::Preceding(o) | FrameBound::Following(o) => {
                        let c = if o.bound.is_some() {
                            // RANGE: only checked not to be negative.
                            Count::Const(0)
                        } else {
                            count(&o.n)?
                        };
                        let bound = o.bound.as_ref().map(&sorted_eval).transpose()?;
                        if matches!(b, FrameBound::Preceding(_)) {
                            End::Preceding(c, bound)
                        } else {
                            End::Following(c, bound)
                        }
                    }
                })
            };
            let range = match (&call.frame.range_key, call.order.first()) {
                (Some(k), Some(o)) => Some((sorted_eval(k)?, o.desc, o.nulls_first)),
                _ => None,
            };
            Some(FrameData {
                units: call.frame.units,
                start: end(&call.frame.start)?,
                end: end(&call.frame.end)?,
                exclude: call.frame.exclude,
                range,
            })
        } else {
            None
        };
        let mut args = funcs::Args {
            x: None,
            n: None,
            default: None,
            ignore_nulls: call.ignore_nulls,
        };
        let mut agg_inputs = CallInputs {
            args: Vec::new(),
            filter: None,
            order: Vec::new(),
        };
        match &call.func {
            WindowFunc::Aggregate(a) => {
                agg_inputs = CallInputs {
                    args: a
                        .args
                        .iter()
                        .map(|e| sorted_eval(e).map(Cow::Owned))
                        .collect::<Result<_>>()?,
                    filter: a
                        .filter
                        .as_ref()
                        .map(|e| sorted_eval(e).map(Cow::Owned))
                        .transpose()?,
                    order: a
                        .order
                        .iter()
                        .map(|o| sorted_eval(&o.expr).map(Cow::Owned))
                        .collect::<Result<_>>()?,
                };
            }
            WindowFunc::Ntile => args.n = call.args.first().map(&count).transpose()?,
            _ => {
                args.x = call.args.first().map(&sorted_eval).transpose()?;
                args.n = call.args.get(1).map(&count).transpose()?;
                args.default = call.args.get(2).map(&sorted_eval).transpose()?;
            }
        }
        let held: u64 = [args.x.as_ref(), args.default.as_ref()]
            .into_iter()
            .flatten()
            .chain(
                (agg_inputs.args.iter())
                    .chain(&agg_inputs.filter)
                    .chain(&agg_inputs.order)
                    .map(|v| &**v),
            )
            .map(vector_bytes)
            .sum();
        let _held = ctx.budget.hold(held, "window function arguments")?;
        let strategy = match &call.func {
            WindowFunc::Aggregate(a) => Strategy::choose(call, a, a.arg().map(|x| x.ty)),
            _ => Strategy::PerFrame,
        };
        // Tasks: consecutive partitions of about TASK_ROWS rows.
        let bounds = &sorted.bounds;
        let mut tasks: Vec<std::ops::Range<usize>> = Vec::new();
        let mut start = 0;
        for p in 0..bounds.len().saturating_sub(1) {
            if bounds[p + 1] - bounds[start] >= TASK_ROWS {
                tasks.push(start..p + 1);
                start = p + 1;
            }
        }
        if start + 1 < bounds.len() {
            tasks.push(start..bounds.len() - 1);
        }
        let pieces: Vec<(Vector, framed::Meter)> = tasks
            .into_par_iter()
            .map(|t| -> Result<(Vector, framed::Meter)> {
                ctx.watch.check()?;
                let rows = bounds[t.end] - bounds[t.start];
                let mut out = Vector::empty(call.ty, rows);
                let mut meter = framed::Meter::new(&ctx.budget, &ctx.watch)?;
                let parts = Parts::new(bounds, t, &sorted.peer_start);
                match &call.func {
                    WindowFunc::Aggregate(a) => {
                        let frame = frame.as_ref().ok_or_else(|| {
                            EngineError::Internal("aggregate without a frame".into())
                        })?;
                        framed::aggregate_partitions(
                            a,
                            &agg_inputs,
                            strategy,
                            frame,
                            &parts,
                            &mut out,
                            &mut meter,
                        )?;
                    }
                    f => {
                        for p in parts.iter() {
                            funcs::partition_values(f, &args, frame.as_ref(), &p, &mut out)?;
                            meter.update(&out)?;
                        }
                    }
                }
                Ok((out, meter))
            })
            .collect::<Result<_>>()?;
        // Each piece stays charged until it is moved into the result.
        let mut out = Vector::empty(call.ty, n);
        for (piece, meter) in pieces {
            out.append_owned(piece);
            drop(meter);
        }
        Ok(out)
    }
}

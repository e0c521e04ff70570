//! Planning an aggregation for the sorted-vector engine: which keys are
//! grouped on and in what order, and one pass per distinct argument.

use strata_format::Table;

use crate::agg::func::{AggCall, AggFunc};
use crate::agg::group::GroupSpec;
use crate::error::Result;
use crate::expr::TExpr;
use crate::value::Phys;

/// Where a bound group key's values come from.
#[derive(Debug, Clone, PartialEq)]
pub enum KeySource {
    /// Key part `i` of the layout.
    Part(usize),
    /// An expression of key columns (or a constant), computed per result
    /// group instead of being grouped on.
    Dependent(TExpr),
}

/// The aggregation part of a plan.
#[derive(Debug, Clone, PartialEq)]
pub struct AggPlan {
    /// One pass per argument of the calls computed from distinct values
    /// (`COUNT(DISTINCT x)`, `median(x)`, ...; at least one pass): the base
    /// key parts, plus that argument as the last part.
    pub passes: Vec<GroupSpec>,
    /// The distinct argument of each pass, if any.
    pub distinct_args: Vec<Option<TExpr>>,
    /// Number of base key parts.
    pub base_parts: usize,
    /// Per bound key, its source.
    pub keys: Vec<KeySource>,
}

fn estimate(table: &Table, e: &TExpr) -> u64 {
    let cols = e.columns();
    match cols.as_slice() {
        [c] => (0..table.num_blocks())
            .map(|b| u64::from(table.stats(b, *c).distinct))
            .sum(),
        _ => table.num_rows(),
    }
}

/// Lays out an aggregation: key parts ordered most distinct first (its
/// sorted values order the rest), keys computable from other keys as
/// dependent, and one pass per argument of the calls computed from each
/// group's distinct values.
pub fn plan_agg(keys: &[TExpr], aggs: &[AggCall], table: &Table) -> Result<AggPlan> {
    let raw_cols: Vec<usize> = keys.iter().filter_map(|k| k.as_col()).collect();
    let mut part_exprs: Vec<TExpr> = Vec::new();
    let mut sources = Vec::new();
    for k in keys {
        let cols = k.columns();
        let dependent = k.as_col().is_none() && cols.iter().all(|c| raw_cols.contains(c));
        if dependent {
            sources.push(KeySource::Dependent(k.clone()));
        } else {
            sources.push(KeySource::Part(part_exprs.len()));
            part_exprs.push(k.clone());
        }
    }
    // Most distinct first: its sorted values order the rest.
    let mut order: Vec<usize> = (0..part_exprs.len()).collect();
    let est: Vec<u64> = part_exprs.iter().map(|e| estimate(table, e)).collect();
    order.sort_by(|&a, &b| est[b].cmp(&est[a]).then(a.cmp(&b)));
    let mut pos = vec![0; part_exprs.len()];
    for (new, &old) in order.iter().enumerate() {
        pos[old] = new;
    }
    let ordered: Vec<TExpr> = order.iter().map(|&i| part_exprs[i].clone()).collect();
    for s in &mut sources {
        if let KeySource::Part(i) = s {
            *i = pos[*i];
        }
    }
    let mut distinct_args: Vec<Option<TExpr>> = Vec::new();
    for a in aggs {
        if a.from_values() {
            if let Some(arg) = a.arg() {
                if !distinct_args.iter().any(|d| d.as_ref() == Some(arg)) {
                    distinct_args.push(Some(arg.clone()));
                }
            }
        }
    }
    // The other aggregates in a pass of their own when they read columns
    // (so that no pass groups rows for them by an argument they ignore).
    let plain_reads = aggs.iter().any(|a| !a.from_values() && a.arg().is_some());
    if distinct_args.is_empty() || plain_reads {
        distinct_args.insert(0, None);
    }
    let mut passes = Vec::new();
    for (k, d) in distinct_args.iter().enumerate() {
        let mut exprs = ordered.clone();
        if let Some(d) = d {
            exprs.push(d.clone());
        }
        let mut spec = GroupSpec::new(&exprs, aggs, table)?;
        // Quantiles and mode of a float expression answer `-0.0` where every
        // row at the zero holds it: its key keeps the sign until the pass
        // collapses.
        if let (Some(d), Some(last)) = (d, spec.parts.last_mut()) {
            let ordered_stat = aggs.iter().any(|a| {
                a.arg() == Some(d)
                    && matches!(
                        a.func,
                        AggFunc::Median
                            | AggFunc::QuantileCont
                            | AggFunc::QuantileDisc
                            | AggFunc::Mode
                    )
            });
            last.signed_zero = ordered_stat && d.ty.phys() == Phys::F64 && d.as_col().is_none();
        }
        // Passes after the first serve only the calls over their argument.
        if k > 0 {
            for s in &mut spec.layout.slots {
                s.inert = !(s.call.from_values() && s.call.arg() == d.as_ref());
            }
        }
        passes.push(spec);
    }
    Ok(AggPlan {
        passes,
        distinct_args,
        base_parts: ordered.len(),
        keys: sources,
    })
}

//! `prune_columns`: each node computes only the columns something above it
//! reads. A pass from the root down: every node is told which of its
//! output columns are needed, keeps only those (and whatever it reads
//! itself), and tells its inputs in turn; references to columns are
//! renumbered on the way back up. The table engine then reads only the
//! columns a query uses, also below joins and set operations.
//!
//! Sound: a column no expression above reads cannot change any result;
//! nodes whose rows depend on all their columns (DISTINCT, set operations)
//! keep them all, and a node always keeps one column so its row count is
//! still carried.

use crate::expr::TExpr;
use crate::plan::{JoinKind, LogicalPlan, OrderKey};

/// The rule's name.
pub const NAME: &str = "prune_columns";

/// `plan` computing only the columns its result needs (all of the root's).
pub fn run(plan: LogicalPlan) -> LogicalPlan {
    let n = plan.columns().len();
    prune(plan, &vec![true; n]).0
}

/// For each old column, its new position (`None`: dropped).
type Mapping = Vec<Option<usize>>;

fn mark(e: &TExpr, needed: &mut [bool], offset: usize) {
    for c in e.columns() {
        if let Some(n) = c.checked_sub(offset).and_then(|i| needed.get_mut(i)) {
            *n = true;
        }
    }
}

fn remap(e: TExpr, m: &Mapping) -> TExpr {
    e.map_columns(&|i| m.get(i).copied().flatten().unwrap_or(i))
}

fn identity(n: usize) -> Mapping {
    (0..n).map(Some).collect()
}

/// Keeps at least one column of `needed` (the first) so rows are carried.
fn at_least_one(needed: &mut [bool]) {
    if !needed.is_empty() && !needed.iter().any(|&x| x) {
        needed[0] = true;
    }
}

#[recursive::recursive]
fn prune(plan: LogicalPlan, needed: &[bool]) -> (LogicalPlan, Mapping) {
    match plan {
        LogicalPlan::TableQuery(mut t) => {
            let mut keep = needed.to_vec();
            at_least_one(&mut keep);
            let mut m = vec![None; t.select.len()];
            let mut out = Vec::new();
            for (i, s) in t.select.drain(..).enumerate() {
                if keep.get(i).copied().unwrap_or(true) {
                    m[i] = Some(out.len());
                    out.push(s);
                }
            }
            t.select = out;
            (LogicalPlan::TableQuery(t), m)
        }
        LogicalPlan::Filter { input, predicate } => {
            let mut need = needed.to_vec();
            mark(&predicate, &mut need, 0);
            let (input, m) = prune(*input, &need);
            (
                LogicalPlan::Filter {
                    input: input.boxed(),
                    predicate: remap(predicate, &m),
                },
                m,
            )
        }
        LogicalPlan::Project {
            input,
            exprs,
            columns,
        } => {
            let mut keep = needed.to_vec();
            at_least_one(&mut keep);
            let n_in = input.columns().len();
            let mut need = vec![false; n_in];
            let mut m = vec![None; exprs.len()];
            let mut kept = Vec::new();
            for (i, (e, c)) in exprs.into_iter().zip(columns).enumerate() {
                if keep[i] {
                    mark(&e, &mut need, 0);
                    m[i] = Some(kept.len());
                    kept.push((e, c));
                }
            }
            let (input, im) = prune(*input, &need);
            let (exprs, columns) = kept.into_iter().map(|(e, c)| (remap(e, &im), c)).unzip();
            (
                LogicalPlan::Project {
                    input: input.boxed(),
                    exprs,
                    columns,
                },
                m,
            )
        }
        LogicalPlan::Aggregate {
            input,
            keys,
            aggs,
            columns,
        } => {
            let nk = keys.len();
            let n_in = input.columns().len();
            let mut need = vec![false; n_in];
            for k in &keys {
                mark(k, &mut need, 0);
            }
            let mut m: Mapping = (0..nk).map(Some).collect();
            let mut kept_aggs = Vec::new();
            let mut kept_cols: Vec<_> = columns[..nk].to_vec();
            for (i, a) in aggs.into_iter().enumerate() {
                // A global aggregate keeps one aggregate to carry its row.
                let keep = needed.get(nk + i).copied().unwrap_or(true)
                    || (nk == 0 && i == 0 && !needed.iter().any(|&x| x));
                if keep {
                    for x in a.exprs() {
                        mark(x, &mut need, 0);
                    }
                    m.push(Some(nk + kept_aggs.len()));
                    kept_cols.push(columns[nk + i].clone());
                    kept_aggs.push(a);
                } else {
                    m.push(None);
                }
            }
            at_least_one(&mut need);
            let (input, im) = prune(*input, &need);
            let keys = keys.into_iter().map(|k| remap(k, &im)).collect();
            let aggs = kept_aggs
                .into_iter()
                .map(|a| a.map_exprs(&mut |x| remap(x, &im)))
                .collect();
            (
                LogicalPlan::Aggregate {
                    input: input.boxed(),
                    keys,
                    aggs,
                    columns: kept_cols,
                },
                m,
            )
        }
        LogicalPlan::Sort { input, keys } => {
            let mut need = needed.to_vec();
            for k in &keys {
                mark(&k.expr, &mut need, 0);
            }
            let (input, m) = prune(*input, &need);
            let keys = remap_keys(keys, &m);
            (
                LogicalPlan::Sort {
                    input: input.boxed(),
                    keys,
                },
                m,
            )
        }
        LogicalPlan::Limit {
            input,
            limit,
            offset,
        } => {
            let (input, m) = prune(*input, needed);
            (
                LogicalPlan::Limit {
                    input: input.boxed(),
                    limit,
                    offset,
                },
                m,
            )
        }
        LogicalPlan::DistinctOn { input, on, order } => {
            let mut need = needed.to_vec();
            for e in &on {
                mark(e, &mut need, 0);
            }
            for k in &order {
                mark(&k.expr, &mut need, 0);
            }
            let (input, m) = prune(*input, &need);
            (
                LogicalPlan::DistinctOn {
                    input: input.boxed(),
                    on: on.into_iter().map(|e| remap(e, &m)).collect(),
                    order: remap_keys(order, &m),
                },
                m,
            )
        }
        LogicalPlan::Window { input, calls } => {
            // Rows pass through unchanged: a call nothing reads goes (the
            // whole node with its last call).
            let n_in = input.columns().len();
            let mut need: Vec<bool> = (0..n_in)
                .map(|i| needed.get(i).copied().unwrap_or(true))
                .collect();
            let ncalls = calls.len();
            let mut kept = Vec::new();
            for (k, c) in calls.into_iter().enumerate() {
                if needed.get(n_in + k).copied().unwrap_or(true) {
                    for e in c.exprs() {
                        mark(e, &mut need, 0);
                    }
                    kept.push((k, c));
                }
            }
            let (input, im) = prune(*input, &need);
            let mut m: Mapping = im.clone();
            m.resize(n_in + ncalls, None);
            if kept.is_empty() {
                return (input, m);
            }
            let new_in = input.columns().len();
            for (j, (k, _)) in kept.iter().enumerate() {
                if let Some(slot) = m.get_mut(n_in + k) {
                    *slot = Some(new_in + j);
                }
            }
            let calls = kept
                .into_iter()
                .map(|(_, c)| c.map_exprs(&mut |e| remap(e, &im)))
                .collect();
            (
                LogicalPlan::Window {
                    input: input.boxed(),
                    calls,
                },
                m,
            )
        }
        LogicalPlan::Join {
            kind,
            left,
            right,
            keys,
            filter,
        } => {
            let nl = left.columns().len();
            let nr = right.columns().len();
            let mut need_l = vec![false; nl];
            let mut need_r = vec![false; nr];
            for (i, &n) in needed.iter().enumerate() {
                if n && i < nl {
                    need_l[i] = true;
                } else if n && kind.has_right_columns() && i < nl + nr {
                    need_r[i - nl] = true;
                }
            }
            for (a, b) in &keys {
                mark(a, &mut need_l, 0);
                mark(b, &mut need_r, 0);
            }
            if let Some(f) = &filter {
                mark(f, &mut need_l, 0);
                mark(f, &mut need_r, nl);
            }
            at_least_one(&mut need_l);
            at_least_one(&mut need_r);
            let (left, lm) = prune(*left, &need_l);
            let (right, rm) = prune(*right, &need_r);
            let new_nl = lm.iter().flatten().count();
            let both: Mapping = lm
                .iter()
                .copied()
                .chain(rm.iter().map(|x| x.map(|j| j + new_nl)))
                .collect();
            let keys = keys
                .into_iter()
                .map(|(a, b)| (remap(a, &lm), remap(b, &rm)))
                .collect();
            let filter = filter.map(|f| remap(f, &both));
            let mut out: Mapping = lm.clone();
            if kind.has_right_columns() {
                out.extend(rm.iter().map(|x| x.map(|j| j + new_nl)));
            } else if let JoinKind::Mark { .. } = kind {
                out.push(Some(new_nl));
            }
            (
                LogicalPlan::Join {
                    kind,
                    left: left.boxed(),
                    right: right.boxed(),
                    keys,
                    filter,
                },
                out,
            )
        }
        // Rows depend on every column (DISTINCT, set operations), or the
        // node is a leaf kept whole.
        other @ (LogicalPlan::Distinct { .. }
        | LogicalPlan::SetOp { .. }
        | LogicalPlan::Values { .. }
        | LogicalPlan::Partials { .. }
        | LogicalPlan::CteRef { .. }) => {
            let n = other.columns().len();
            let mut other = other;
            for input in other.inputs_mut() {
                let taken = std::mem::replace(
                    input,
                    LogicalPlan::Values {
                        rows: Vec::new(),
                        columns: Vec::new(),
                    },
                );
                let n_in = taken.columns().len();
                let (p, _) = prune(taken, &vec![true; n_in]);
                *input = p;
            }
            (other, identity(n))
        }
    }
}

fn remap_keys(keys: Vec<OrderKey>, m: &Mapping) -> Vec<OrderKey> {
    keys.into_iter()
        .map(|k| OrderKey {
            expr: remap(k.expr, m),
            ..k
        })
        .collect()
}

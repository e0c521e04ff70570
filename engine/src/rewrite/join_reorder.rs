//! `join_reorder`: a tree of inner joins is rebuilt in the order the
//! tables' statistics suggest, not the order the query lists them. A pass
//! from the root down: each maximal tree of inner joins is flattened into
//! its inputs and conditions, and rebuilt left-deep, starting from the
//! input with the fewest estimated rows and adding at each step the input,
//! connected to those joined by an equality if any is, that gives the
//! fewest estimated rows (see [`crate::plan::stats::estimate_rows`]). Each
//! condition goes to the first join where all the inputs it reads are
//! present; a projection restores the original column order.
//!
//! Sound: inner joins are associative and commutative: the result is the
//! set of combinations of the inputs' rows for which every condition holds,
//! whatever the order the conditions are tested in.

use crate::expr::{conjunction, conjuncts, ExprKind, TExpr};
use crate::plan::stats::{estimate_rows, key_distinct};
use crate::plan::{split_equi_keys, Column, JoinKind, LogicalPlan, Query};

/// The pass's name.
pub const NAME: &str = "join_reorder";

/// `plan` with its inner-join trees reordered.
pub fn run(plan: LogicalPlan, q: &Query) -> LogicalPlan {
    reorder(plan, q)
}

/// An input of a flattened join tree.
struct Leaf {
    plan: LogicalPlan,
    /// Its first column in the tree's original output.
    offset: usize,
    width: usize,
    rows: f64,
}

#[recursive::recursive]
fn reorder(plan: LogicalPlan, q: &Query) -> LogicalPlan {
    if !matches!(
        plan,
        LogicalPlan::Join {
            kind: JoinKind::Inner,
            ..
        }
    ) {
        let mut plan = plan;
        for input in plan.inputs_mut() {
            let taken = std::mem::replace(input, super::empty());
            *input = reorder(taken, q);
        }
        return plan;
    }
    let columns = plan.columns();
    let mut leaves: Vec<LogicalPlan> = Vec::new();
    let mut conds: Vec<TExpr> = Vec::new();
    flatten(plan, 0, &mut leaves, &mut conds);
    let mut offset = 0;
    let leaves: Vec<Leaf> = leaves
        .into_iter()
        .map(|p| {
            let p = reorder(p, q);
            let width = p.columns().len();
            let rows = estimate_rows(&p, &q.ctes);
            let l = Leaf {
                plan: p,
                offset,
                width,
                rows,
            };
            offset += width;
            l
        })
        .collect();
    build(leaves, conds, &columns, q)
}

/// The inputs and conditions (over the tree's output columns) of a tree
/// of inner joins whose output starts at column `base`.
fn flatten(plan: LogicalPlan, base: usize, leaves: &mut Vec<LogicalPlan>, conds: &mut Vec<TExpr>) {
    match plan {
        LogicalPlan::Join {
            kind: JoinKind::Inner,
            left,
            right,
            keys,
            filter,
        } => {
            let nl = left.columns().len();
            for (a, b) in keys {
                let a = a.map_columns(&|i| i + base);
                let b = b.map_columns(&|i| i + base + nl);
                conds.push(TExpr {
                    kind: ExprKind::Cmp(crate::expr::CmpOp::Eq, Box::new(a), Box::new(b)),
                    ty: crate::value::LType::Bool,
                });
            }
            if let Some(f) = filter {
                conds.extend(conjuncts(f.map_columns(&|i| i + base)));
            }
            flatten(*left, base, leaves, conds);
            flatten(*right, base + nl, leaves, conds);
        }
        other => leaves.push(other),
    }
}

/// The leaves a condition reads.
fn leaves_of(c: &TExpr, leaves: &[Leaf]) -> Vec<usize> {
    let mut out: Vec<usize> = c
        .columns()
        .iter()
        .filter_map(|&col| {
            leaves
                .iter()
                .position(|l| col >= l.offset && col < l.offset + l.width)
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Inputs up to which every left-deep order is considered.
const MAX_EXHAUSTIVE: usize = 10;

/// Estimated rows of joining inputs `set` (a bit mask, `rows_set` rows)
/// with input `x`, and whether an equality connects them. Several
/// equalities divide by the largest of their key counts only: key columns
/// are seldom independent (a composite key has no more distinct
/// combinations than rows), and too low an estimate is the costlier error.
fn join_estimate(
    set: u32,
    rows_set: f64,
    x: usize,
    rows: &[f64],
    edges: &[(usize, usize, f64)],
) -> (f64, bool) {
    let divisor = key_divisor(x, edges, |other| set & (1 << other) != 0);
    let est = rows_set * rows[x] / divisor.unwrap_or(1.0);
    (est.max(1.0), divisor.is_some())
}

/// The largest key count of the equalities between input `x` and the
/// inputs `joined` says are in; `None` if no equality connects them.
fn key_divisor(
    x: usize,
    edges: &[(usize, usize, f64)],
    joined: impl Fn(usize) -> bool,
) -> Option<f64> {
    edges
        .iter()
        .filter_map(|&(a, b, d)| {
            let other = if a == x {
                b
            } else if b == x {
                a
            } else {
                return None;
            };
            joined(other).then_some(d)
        })
        .reduce(f64::max)
}

/// The left-deep order with the smallest sum of estimated intermediate
/// rows, over every order that adds a connected input whenever one is
/// (dynamic programming over subsets of inputs).
fn exhaustive_order(rows: &[f64], edges: &[(usize, usize, f64)]) -> Vec<usize> {
    let n = rows.len();
    let full = (1u32 << n) - 1;
    // Per subset: (cost, rows, last input, previous subset).
    let mut best: Vec<Option<(f64, f64, usize, u32)>> = vec![None; 1 << n];
    for (x, &r) in rows.iter().enumerate() {
        best[1 << x] = Some((0.0, r, x, 0));
    }
    for set in 1..=full {
        let Some((cost, r, _, _)) = best[set as usize] else {
            continue;
        };
        let outside: Vec<usize> = (0..n).filter(|&x| set & (1 << x) == 0).collect();
        let ests: Vec<(usize, f64, bool)> = outside
            .iter()
            .map(|&x| {
                let (e, c) = join_estimate(set, r, x, rows, edges);
                (x, e, c)
            })
            .collect();
        let any_connected = ests.iter().any(|e| e.2);
        for (x, e, c) in ests {
            if any_connected && !c {
                continue;
            }
            let next = set | (1 << x);
            let cand = (cost + e, e, x, set);
            if best[next as usize].is_none_or(|b| cand.0 < b.0) {
                best[next as usize] = Some(cand);
            }
        }
    }
    let mut order = Vec::with_capacity(n);
    let mut set = full;
    while set != 0 {
        let Some((_, _, x, prev)) = best[set as usize] else {
            break;
        };
        order.push(x);
        set = prev;
    }
    order.reverse();
    if order.len() == n {
        order
    } else {
        greedy_order(rows, edges)
    }
}

/// From the input with the fewest rows, adding each time the connected
/// input (any, if none is) that gives the fewest estimated rows.
fn greedy_order(rows: &[f64], edges: &[(usize, usize, f64)]) -> Vec<usize> {
    let n = rows.len();
    let first = (0..n)
        .min_by(|&a, &b| rows[a].total_cmp(&rows[b]))
        .unwrap_or(0);
    let mut order = vec![first];
    let mut joined = vec![false; n];
    joined[first] = true;
    let mut r = rows[first];
    while order.len() < n {
        let mut best: Option<(bool, f64, usize)> = None;
        for x in (0..n).filter(|&x| !joined[x]) {
            let divisor = key_divisor(x, edges, |other| joined[other]);
            let connected = divisor.is_some();
            let est = r * rows[x] / divisor.unwrap_or(1.0);
            let better =
                best.is_none_or(|b| (connected && !b.0) || (connected == b.0 && est < b.1));
            if better {
                best = Some((connected, est, x));
            }
        }
        let Some((_, est, x)) = best else { break };
        order.push(x);
        joined[x] = true;
        r = est.max(1.0);
    }
    order
}

fn build(leaves: Vec<Leaf>, conds: Vec<TExpr>, columns: &[Column], q: &Query) -> LogicalPlan {
    let n = leaves.len();
    let reads: Vec<Vec<usize>> = conds.iter().map(|c| leaves_of(c, &leaves)).collect();
    // Per equality between two inputs: the inputs and the larger number
    // of distinct key values (the estimate divides by it).
    let mut edges: Vec<(usize, usize, f64)> = Vec::new();
    for c in &conds {
        if let ExprKind::Cmp(crate::expr::CmpOp::Eq, a, b) = &c.kind {
            let (ra, rb) = (leaves_of(a, &leaves), leaves_of(b, &leaves));
            if ra.len() == 1 && rb.len() == 1 && ra != rb {
                let d = |e: &TExpr, side: usize| {
                    let l = &leaves[side];
                    key_distinct(&e.clone().map_columns(&|i| i - l.offset), &l.plan, &q.ctes)
                        .min(l.rows.max(1.0))
                };
                edges.push((ra[0], rb[0], d(a, ra[0]).max(d(b, rb[0])).max(1.0)));
            }
        }
    }
    let rows: Vec<f64> = leaves.iter().map(|l| l.rows).collect();
    let order = if n <= MAX_EXHAUSTIVE {
        exhaustive_order(&rows, &edges)
    } else {
        greedy_order(&rows, &edges)
    };
    // Rebuild left-deep; positions of each leaf's columns in the new tree.
    let mut new_offset = vec![0usize; n];
    let mut leaves: Vec<Option<Leaf>> = leaves.into_iter().map(Some).collect();
    let mut placed = vec![false; conds.len()];
    let take = |i: usize, leaves: &mut Vec<Option<Leaf>>| leaves[i].take();
    let Some(first_leaf) = take(order[0], &mut leaves) else {
        return super::empty();
    };
    let mut width = first_leaf.width;
    let mut offsets: Vec<(usize, usize, usize)> =
        vec![(order[0], first_leaf.offset, first_leaf.width)];
    new_offset[order[0]] = 0;
    let mut tree = first_leaf.plan;
    for &i in &order[1..] {
        let Some(leaf) = take(i, &mut leaves) else {
            continue;
        };
        new_offset[i] = width;
        offsets.push((i, leaf.offset, leaf.width));
        let in_tree: Vec<usize> = offsets.iter().map(|o| o.0).collect();
        // Conditions all of whose inputs are now present, rebased.
        let to_new = |col: usize| {
            offsets
                .iter()
                .find(|&&(_, off, w)| col >= off && col < off + w)
                .map_or(col, |&(leaf, off, _)| new_offset[leaf] + col - off)
        };
        let mut here = Vec::new();
        for (k, r) in reads.iter().enumerate() {
            if !placed[k] && r.iter().all(|x| in_tree.contains(x)) {
                placed[k] = true;
                here.push(conds[k].clone().map_columns(&to_new));
            }
        }
        let (keys, rest) = split_equi_keys(here, width);
        tree = LogicalPlan::Join {
            kind: JoinKind::Inner,
            left: tree.boxed(),
            right: leaf.plan.boxed(),
            keys,
            filter: conjunction(rest),
        };
        width += leaf.width;
    }
    // Conditions on no input (constants) go on top.
    let leftover: Vec<TExpr> = conds
        .iter()
        .zip(&placed)
        .filter(|(_, p)| !**p)
        .map(|(c, _)| c.clone())
        .collect();
    if let Some(p) = conjunction(leftover) {
        tree = LogicalPlan::Filter {
            input: tree.boxed(),
            predicate: p,
        };
    }
    // The original column order.
    let exprs: Vec<TExpr> = (0..columns.len())
        .map(|col| {
            let (leaf, off, _) = offsets
                .iter()
                .find(|&&(_, off, w)| col >= off && col < off + w)
                .copied()
                .unwrap_or((0, 0, 0));
            TExpr {
                kind: ExprKind::Col(new_offset[leaf] + col - off),
                ty: columns[col].ty,
            }
        })
        .collect();
    LogicalPlan::Project {
        input: tree.boxed(),
        exprs,
        columns: columns.to_vec(),
    }
}

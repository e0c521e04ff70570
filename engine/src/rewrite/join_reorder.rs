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
            let rows = estimate_rows(&p, q);
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

fn build(leaves: Vec<Leaf>, conds: Vec<TExpr>, columns: &[Column], q: &Query) -> LogicalPlan {
    let n = leaves.len();
    let reads: Vec<Vec<usize>> = conds.iter().map(|c| leaves_of(c, &leaves)).collect();
    // Greedy order.
    let mut order: Vec<usize> = Vec::with_capacity(n);
    let mut joined = vec![false; n];
    let first = (0..n)
        .min_by(|&a, &b| leaves[a].rows.total_cmp(&leaves[b].rows))
        .unwrap_or(0);
    order.push(first);
    joined[first] = true;
    let mut rows = leaves[first].rows;
    while order.len() < n {
        let mut best: Option<(bool, f64, usize)> = None;
        for cand in (0..n).filter(|&c| !joined[c]) {
            // Equalities between the joined inputs and the candidate.
            let mut connected = false;
            let mut est = rows * leaves[cand].rows;
            for (c, r) in conds.iter().zip(&reads) {
                if !r.contains(&cand) || !r.iter().all(|&x| x == cand || joined[x]) {
                    continue;
                }
                if let ExprKind::Cmp(crate::expr::CmpOp::Eq, a, b) = &c.kind {
                    let (ra, rb) = (leaves_of(a, &leaves), leaves_of(b, &leaves));
                    if ra.len() == 1 && rb.len() == 1 && ra != rb {
                        connected = true;
                        let d = |e: &TExpr, side: usize| {
                            let l = &leaves[side];
                            key_distinct(&e.clone().map_columns(&|i| i - l.offset), &l.plan, q)
                                .min(l.rows.max(1.0))
                        };
                        let da = d(a, ra[0]);
                        let db = d(b, rb[0]);
                        est /= da.max(db).max(1.0);
                    }
                }
            }
            let key = (connected, est, cand);
            best = match best {
                None => Some(key),
                Some(b) => {
                    let better = (key.0 && !b.0) || (key.0 == b.0 && key.1 < b.1);
                    Some(if better { key } else { b })
                }
            };
        }
        let Some((_, est, cand)) = best else { break };
        order.push(cand);
        joined[cand] = true;
        rows = est.max(1.0);
    }
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

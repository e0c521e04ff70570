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
//! Equalities are closed transitively first: `c.n = s.n AND s.n = n.n`
//! connects `c` with `n` too, so the order may join them before `s` (TPC-H
//! Q5: customers of a region before the suppliers), joining on the implied
//! `c.n = n.n` where no condition of the query connects the input added to
//! those joined in the same class.
//!
//! Sound: inner joins are associative and commutative: the result is the
//! set of combinations of the inputs' rows for which every condition holds,
//! whatever the order the conditions are tested in. An implied equality
//! holds on every combination the conditions keep (equality is transitive,
//! and a NULL fails both), and every condition is still tested.

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

/// Each input's columns in the tree's original output: (offset, width).
type Spans = [(usize, usize)];

/// The leaves a condition reads.
fn leaves_of(c: &TExpr, spans: &Spans) -> Vec<usize> {
    let mut out: Vec<usize> = c
        .columns()
        .iter()
        .filter_map(|&col| {
            spans
                .iter()
                .position(|&(offset, width)| col >= offset && col < offset + width)
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
    keys: &KeyClasses,
) -> (f64, bool) {
    let divisor = key_divisor(x, keys, |other| set & (1 << other) != 0);
    let est = rows_set * rows[x] / divisor.unwrap_or(1.0);
    (est.max(1.0), divisor.is_some())
}

/// Per class of equal expressions ([`equality_classes`]), each member's
/// input and estimated distinct values.
type KeyClasses = [Vec<(usize, f64)>];

/// The divisor of the estimate of joining input `x` with the inputs
/// `joined` says are in: per class with members on both sides, the larger
/// of the two sides' distinct keys (a side's: its member's fewest, as the
/// joined members are equal), and of those the largest; `None` if no
/// equality connects them.
fn key_divisor(x: usize, keys: &KeyClasses, joined: impl Fn(usize) -> bool) -> Option<f64> {
    keys.iter()
        .filter_map(|class| {
            let fewest = |on: &dyn Fn(usize) -> bool| {
                class
                    .iter()
                    .filter(|m| on(m.0))
                    .map(|m| m.1)
                    .reduce(f64::min)
            };
            let dx = fewest(&|l| l == x)?;
            let dj = fewest(&|l| l != x && joined(l))?;
            Some(dx.max(dj))
        })
        .reduce(f64::max)
}

/// The left-deep order with the smallest sum of estimated intermediate
/// rows, over every order that adds a connected input whenever one is
/// (dynamic programming over subsets of inputs).
fn exhaustive_order(rows: &[f64], keys: &KeyClasses) -> Vec<usize> {
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
                let (e, c) = join_estimate(set, r, x, rows, keys);
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
        greedy_order(rows, keys)
    }
}

/// From the input with the fewest rows, adding each time the connected
/// input (any, if none is) that gives the fewest estimated rows.
fn greedy_order(rows: &[f64], keys: &KeyClasses) -> Vec<usize> {
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
            let divisor = key_divisor(x, keys, |other| joined[other]);
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

/// One side of an equality and the input it reads.
type Side<'a> = (&'a TExpr, usize);

/// The sides of an equality condition, where each reads one input.
fn equality_sides<'a>(c: &'a TExpr, spans: &Spans) -> Option<(Side<'a>, Side<'a>)> {
    let ExprKind::Cmp(crate::expr::CmpOp::Eq, a, b) = &c.kind else {
        return None;
    };
    match (
        leaves_of(a, spans).as_slice(),
        leaves_of(b, spans).as_slice(),
    ) {
        ([la], [lb]) => Some(((&**a, *la), (&**b, *lb))),
        _ => None,
    }
}

/// The classes of expressions the equality conditions make equal, each
/// member with the input it reads (expressions are merged when equal, so a
/// class holds one type).
fn equality_classes(conds: &[TExpr], spans: &Spans) -> Vec<Vec<(TExpr, usize)>> {
    let mut classes: Vec<Vec<(TExpr, usize)>> = Vec::new();
    for c in conds {
        let Some((a, b)) = equality_sides(c, spans) else {
            continue;
        };
        let find = |classes: &[Vec<(TExpr, usize)>], e: &TExpr| {
            classes.iter().position(|m| m.iter().any(|(x, _)| x == e))
        };
        match (find(&classes, a.0), find(&classes, b.0)) {
            (Some(i), Some(j)) if i != j => {
                let merged = classes.swap_remove(i.max(j));
                classes[i.min(j)].extend(merged);
            }
            (Some(_), Some(_)) => {}
            (Some(i), None) => classes[i].push((b.0.clone(), b.1)),
            (None, Some(j)) => classes[j].push((a.0.clone(), a.1)),
            (None, None) => classes.push(vec![(a.0.clone(), a.1), (b.0.clone(), b.1)]),
        }
    }
    classes
}

/// Which class members ([`equality_classes`]) the equalities kept so far
/// make equal: a union-find over `(class, member)`.
struct Linked {
    classes: Vec<Vec<(TExpr, usize)>>,
    parent: Vec<Vec<usize>>,
}

impl Linked {
    fn new(classes: Vec<Vec<(TExpr, usize)>>) -> Linked {
        let parent = classes.iter().map(|c| (0..c.len()).collect()).collect();
        Linked { classes, parent }
    }

    fn find(&mut self, class: usize, mut m: usize) -> usize {
        while self.parent[class][m] != m {
            let up = self.parent[class][self.parent[class][m]];
            self.parent[class][m] = up;
            m = up;
        }
        m
    }

    /// The class and member of expression `e`.
    fn member(&self, e: &TExpr) -> Option<(usize, usize)> {
        self.classes
            .iter()
            .enumerate()
            .find_map(|(c, ms)| ms.iter().position(|m| m.0 == *e).map(|m| (c, m)))
    }

    /// Whether `cond` is an equality between class members.
    fn member_sides(&self, cond: &TExpr, spans: &Spans) -> bool {
        equality_sides(cond, spans)
            .is_some_and(|((a, _), (b, _))| self.member(a).is_some() && self.member(b).is_some())
    }

    /// Links the sides of class equality `cond`; false if they were
    /// linked already (the kept equalities imply it).
    fn link(&mut self, cond: &TExpr, spans: &Spans) -> bool {
        let Some(((a, _), (b, _))) = equality_sides(cond, spans) else {
            return false;
        };
        let (Some((ca, ma)), Some((_, mb))) = (self.member(a), self.member(b)) else {
            return false;
        };
        let (ra, rb) = (self.find(ca, ma), self.find(ca, mb));
        if ra == rb {
            return false;
        }
        self.parent[ca][ra] = rb;
        true
    }

    /// The equalities that link each member of input `x` to its class's
    /// members in the inputs `in_tree` (which include `x`), where no kept
    /// equality does; they are linked from then on.
    fn implied(&mut self, x: usize, in_tree: &[usize]) -> Vec<TExpr> {
        let mut out = Vec::new();
        for c in 0..self.classes.len() {
            let Some(t) = self.classes[c]
                .iter()
                .position(|m| m.1 != x && in_tree.contains(&m.1))
            else {
                continue;
            };
            for m in 0..self.classes[c].len() {
                if self.classes[c][m].1 != x || self.find(c, m) == self.find(c, t) {
                    continue;
                }
                let (rm, rt) = (self.find(c, m), self.find(c, t));
                self.parent[c][rm] = rt;
                out.push(TExpr {
                    kind: ExprKind::Cmp(
                        crate::expr::CmpOp::Eq,
                        Box::new(self.classes[c][t].0.clone()),
                        Box::new(self.classes[c][m].0.clone()),
                    ),
                    ty: crate::value::LType::Bool,
                });
            }
        }
        out
    }
}

fn build(leaves: Vec<Leaf>, conds: Vec<TExpr>, columns: &[Column], q: &Query) -> LogicalPlan {
    let n = leaves.len();
    let spans: Vec<(usize, usize)> = leaves.iter().map(|l| (l.offset, l.width)).collect();
    let reads: Vec<Vec<usize>> = conds.iter().map(|c| leaves_of(c, &spans)).collect();
    let classes = equality_classes(&conds, &spans);
    let mut linked = Linked::new(classes.clone());
    // Each class member's distinct values (the estimates divide by them).
    let keys: Vec<Vec<(usize, f64)>> = classes
        .iter()
        .map(|class| {
            class
                .iter()
                .map(|(e, side)| {
                    let l = &leaves[*side];
                    let d =
                        key_distinct(&e.clone().map_columns(&|i| i - l.offset), &l.plan, &q.ctes);
                    (*side, d.min(l.rows.max(1.0)).max(1.0))
                })
                .collect()
        })
        .collect();
    let rows: Vec<f64> = leaves.iter().map(|l| l.rows).collect();
    let order = if n <= MAX_EXHAUSTIVE {
        exhaustive_order(&rows, &keys)
    } else {
        greedy_order(&rows, &keys)
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
        // The stated conditions, but equalities the kept ones imply; then
        // the implied ones that link the new input's keys to the tree.
        let mut here = Vec::new();
        for (k, r) in reads.iter().enumerate() {
            if !placed[k] && r.iter().all(|x| in_tree.contains(x)) {
                placed[k] = true;
                let class_equality = linked.member_sides(&conds[k], &spans);
                if !class_equality || linked.link(&conds[k], &spans) {
                    here.push(conds[k].clone().map_columns(&to_new));
                }
            }
        }
        here.extend(
            linked
                .implied(i, &in_tree)
                .into_iter()
                .map(|c| c.map_columns(&to_new)),
        );
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

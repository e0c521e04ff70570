//! `GROUP BY a, b, ... ORDER BY COUNT(*) DESC LIMIT k`: only the groups that
//! can make the cut are aggregated.
//!
//! A group's row count is at most the row count of its value of any one key
//! column `K` (the stored key column with the most distinct values bounds
//! best). So:
//! 1. Each `K` value's selected rows across all blocks: a merge of every
//!    block's sorted (value, count) list, by key range in parallel.
//! 2. The groups of the `k` most frequent `K` values are aggregated
//!    exactly; the `k`-th largest of their counts, `L`, is a lower bound of
//!    the `k`-th largest count of all groups.
//! 3. A group that beats `L` has a `K` value with more than `L` rows (at
//!    least `L` when later ORDER BY keys break ties, since a tie at `L` may
//!    then win). The query runs restricted to those `K` values and the `k`
//!    of step 2. The restriction depends on `K` only, so every group it
//!    keeps is whole: counts, other aggregates and order are exact, and the
//!    groups that make the cut are among those kept.
//!
//! When `K`'s counts are spread evenly (every `K` value could still beat
//! `L`), there are too many candidates and the query runs as usual.

use rayon::prelude::*;
use strata_format::Table;

use crate::bind::{AggCall, AggFunc, Query};
use crate::count_distinct::{key_ranges, merge_in_pairs};
use crate::error::Result;
use crate::exec::{map_selected_blocks, plan_agg, run_agg, Plan};
use crate::expr::{ExprKind, TExpr};
use crate::filter::Pred;
use crate::value::{LType, Value};

/// At most this many candidate `K` values; past it the restriction would
/// cost about as much as the aggregation it saves.
const MAX_CANDIDATES: usize = 1 << 17;

/// Step 2 runs only when the `k` most frequent `K` values hold at most
/// 1/this of the selected rows.
const MAX_PROBE_SHARE: u64 = 8;

/// The restriction is tried only with more than this many `K` values per
/// group the LIMIT takes.
const MIN_VALUES_PER_GROUP: usize = 8;

/// One block's (or one merged range's) values of `K` with their counts,
/// sorted by value.
#[derive(Debug, Default, Clone, PartialEq)]
struct Counted {
    keys: Vec<u128>,
    counts: Vec<u64>,
}

/// What the query must look like, and the `K` column and `k`.
struct Shape {
    col: usize,
    is_str: bool,
    k: usize,
    /// Whether ORDER BY has keys after the count (ties at `L` may win).
    tie_breaks: bool,
}

fn shape(q: &Query, table: &Table) -> Option<Shape> {
    let agg = q.aggregation.as_ref()?;
    if q.having.is_some() || agg.keys.len() < 2 || agg.aggs.iter().any(|a| a.distinct) {
        return None;
    }
    let first = q.order.first()?;
    let ExprKind::Ref(slot) = first.expr.kind else {
        return None;
    };
    let counts_rows = slot
        .checked_sub(agg.keys.len())
        .and_then(|a| agg.aggs.get(a))
        .is_some_and(|a| a.func == AggFunc::CountStar);
    if !counts_rows || !first.desc {
        return None;
    }
    let k = usize::try_from(q.limit?.saturating_add(q.offset)).ok()?;
    if !(1..=crate::any_groups::MAX_GROUPS).contains(&k) {
        return None;
    }
    // The stored key column with the most distinct values per block.
    let col = agg.keys.iter().filter_map(TExpr::as_col).max_by_key(|&c| {
        (0..table.num_blocks())
            .map(|b| u64::from(table.stats(b, c).distinct))
            .sum::<u64>()
    })?;
    let is_str = table.schema().fields.get(col)?.data_type.is_string();
    Some(Shape {
        col,
        is_str,
        k,
        tie_breaks: q.order.len() > 1,
    })
}

/// The extra filter restricting the query to the groups that can make the
/// cut, or `None` when the query is not of this kind or the restriction
/// would not narrow it enough.
pub fn restriction(plan: &Plan, table: &Table) -> Result<Option<Pred>> {
    let q = &plan.query;
    let Some(s) = shape(q, table) else {
        return Ok(None);
    };
    // 1. Per block, K's values with selected rows and how many.
    let per_block: Vec<(Counted, u64)> = map_selected_blocks(plan, table, |ctx, sel| {
        let keys = ctx.wide_keys(s.col)?;
        let (counts, nulls) = ctx.filtered_counts(s.col, sel)?;
        let mut c = Counted::default();
        for (k, n) in keys.into_iter().zip(counts) {
            if n > 0 {
                c.keys.push(k);
                c.counts.push(u64::from(n));
            }
        }
        // The lists, and the merge's copies of them.
        plan.budget
            .charge(2 * 24 * c.keys.len() as u64, "the group-count bounds")?;
        Ok((c, u64::from(nulls)))
    })?;
    plan.watch.check()?;
    let null_rows: u64 = per_block.iter().map(|(_, n)| n).sum();
    let lists: Vec<Counted> = per_block.into_iter().map(|(c, _)| c).collect();
    let merged = merge_counts(&lists);
    drop(lists);
    // Few K values: the restriction could not narrow the query much.
    let values: usize = merged.iter().map(|m| m.keys.len()).sum();
    if values <= MIN_VALUES_PER_GROUP * s.k {
        return Ok(None);
    }
    // 2. The k most frequent K values, and the k-th best count of their
    // groups.
    let top = most_frequent(&merged, s.k);
    // Step 2 aggregates the rows of the top K values: worth it only if they
    // are a small share of the rows.
    let rows: u64 = null_rows
        + merged
            .par_iter()
            .map(|m| m.counts.iter().sum::<u64>())
            .sum::<u64>();
    if top.iter().map(|t| t.0).sum::<u64>() > rows / MAX_PROBE_SHARE {
        return Ok(None);
    }
    let top_keys: Vec<u128> = top.iter().map(|&(_, key)| key).collect();
    let Some(bound) = kth_count(plan, table, &s, &top_keys)? else {
        return Ok(None);
    };
    // 3. The K values whose groups can still make the cut.
    let beats = |n: u64| if s.tie_breaks { n >= bound } else { n > bound };
    if beats(null_rows) {
        // Groups with a NULL K could make it; a value set cannot name them.
        return Ok(None);
    }
    // Per range: the K values that can beat L, and their rows.
    let beating: Vec<(Vec<u128>, u64)> = merged
        .par_iter()
        .map(|m| {
            let mut keys = Vec::new();
            let mut rows = 0;
            for (&key, &n) in m.keys.iter().zip(&m.counts) {
                if beats(n) && keys.len() <= MAX_CANDIDATES {
                    keys.push(key);
                    rows += n;
                }
            }
            (keys, rows)
        })
        .collect();
    if beating.iter().map(|b| b.0.len()).sum::<usize>() > MAX_CANDIDATES {
        return Ok(None);
    }
    if beating.iter().map(|b| b.1).sum::<u64>() > rows / 2 {
        // Most rows stay: the restriction would save little.
        return Ok(None);
    }
    let mut keep = top_keys;
    keep.extend(beating.into_iter().flat_map(|b| b.0));
    keep.sort_unstable();
    keep.dedup();
    Ok(Some(Pred::value_set(s.col, s.is_str, keep)))
}

/// The `k`-th largest count of the groups whose K value is among `keys`, or
/// `None` when they form fewer than `k` groups.
fn kth_count(plan: &Plan, table: &Table, s: &Shape, keys: &[u128]) -> Result<Option<u64>> {
    let mut sorted = keys.to_vec();
    sorted.sort_unstable();
    let mut first = plan.clone();
    first.pred = Pred::And(vec![
        plan.pred.clone(),
        Pred::value_set(s.col, s.is_str, sorted),
    ]);
    let fq = &mut first.query;
    let Some(fa) = fq.aggregation.as_mut() else {
        return Ok(None);
    };
    fa.aggs = vec![AggCall {
        func: AggFunc::CountStar,
        arg: None,
        distinct: false,
        ty: LType::Int64,
    }];
    let count = TExpr {
        kind: ExprKind::Ref(fa.keys.len()),
        ty: LType::Int64,
    };
    fq.select = vec![("c".into(), count.clone())];
    fq.order = vec![crate::bind::OrderKey {
        expr: count,
        desc: true,
        nulls_first: false,
    }];
    fq.limit = Some(s.k as u64);
    fq.offset = 0;
    let ap = plan_agg(&fa.keys, &fa.aggs, table)?;
    first.agg = Some(ap.clone());
    let top = run_agg(&first, &ap, table)?;
    if top.num_rows() < s.k {
        return Ok(None);
    }
    Ok(top
        .columns
        .first()
        .and_then(|c| match c.values.get(s.k - 1) {
            Value::Int(n) => u64::try_from(n).ok(),
            _ => None,
        }))
}

/// Merges sorted per-block lists into sorted lists with each key once and
/// its counts summed; one list per key range (ranges cut at keys sampled
/// from the longest list, merged in parallel).
fn merge_counts(lists: &[Counted]) -> Vec<Counted> {
    let keys: Vec<&[u128]> = lists.iter().map(|l| l.keys.as_slice()).collect();
    key_ranges(&keys)
        .into_par_iter()
        .map(|range| {
            let level: Vec<Counted> = range
                .into_iter()
                .map(|(l, r)| Counted {
                    keys: lists[l].keys[r.clone()].to_vec(),
                    counts: lists[l].counts[r].to_vec(),
                })
                .collect();
            merge_in_pairs(level, merge_two).unwrap_or_default()
        })
        .collect()
}

/// The sorted union of two sorted lists, counts of equal keys summed.
fn merge_two(a: &Counted, b: &Counted) -> Counted {
    let n = a.keys.len() + b.keys.len();
    let mut keys = Vec::with_capacity(n);
    let mut counts = Vec::with_capacity(n);
    let (mut i, mut j) = (0, 0);
    // Branch-free choice: random keys make the comparisons unpredictable.
    while i < a.keys.len() && j < b.keys.len() {
        let (x, y) = (a.keys[i], b.keys[j]);
        let (take_a, take_b) = (x <= y, y <= x);
        keys.push(x.min(y));
        counts.push(
            (a.counts[i] & 0u64.wrapping_sub(u64::from(take_a)))
                + (b.counts[j] & 0u64.wrapping_sub(u64::from(take_b))),
        );
        i += usize::from(take_a);
        j += usize::from(take_b);
    }
    for (src, at) in [(a, i), (b, j)] {
        keys.extend_from_slice(&src.keys[at..]);
        counts.extend_from_slice(&src.counts[at..]);
    }
    Counted { keys, counts }
}

/// The (count, key) pairs of the `k` largest counts (ties broken
/// arbitrarily), each merged range searched in parallel.
fn most_frequent(merged: &[Counted], k: usize) -> Vec<(u64, u128)> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let best_of = |m: &Counted| {
        let mut heap: BinaryHeap<Reverse<(u64, u128)>> = BinaryHeap::with_capacity(k + 1);
        for (&key, &n) in m.keys.iter().zip(&m.counts) {
            if heap.len() < k {
                heap.push(Reverse((n, key)));
            } else if heap.peek().is_some_and(|Reverse(min)| n > min.0) {
                heap.pop();
                heap.push(Reverse((n, key)));
            }
        }
        heap.into_iter().map(|Reverse(x)| x).collect::<Vec<_>>()
    };
    let mut all: Vec<(u64, u128)> = merged.par_iter().flat_map_iter(best_of).collect();
    all.sort_unstable_by_key(|&(n, _)| std::cmp::Reverse(n));
    all.truncate(k);
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn merged_counts_sum_each_key_once() {
        let mut x = 7u64;
        let mut lists = Vec::new();
        let mut want: BTreeMap<u128, u64> = BTreeMap::new();
        for len in [0usize, 3, 40_000, 60_000, 1, 25_000] {
            let mut m: BTreeMap<u128, u64> = BTreeMap::new();
            for _ in 0..len {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *m.entry(u128::from(x % 150_000)).or_default() += x % 5 + 1;
            }
            for (k, c) in &m {
                *want.entry(*k).or_default() += c;
            }
            lists.push(Counted {
                keys: m.keys().copied().collect(),
                counts: m.values().copied().collect(),
            });
        }
        let merged = merge_counts(&lists);
        let got: Vec<(u128, u64)> = merged
            .iter()
            .flat_map(|m| m.keys.iter().copied().zip(m.counts.iter().copied()))
            .collect();
        let want: Vec<(u128, u64)> = want.into_iter().collect();
        assert_eq!(got, want);
        assert!(merge_counts(&[]).iter().all(|m| m.keys.is_empty()));
    }
}

//! `SELECT COUNT(DISTINCT c) FROM t [WHERE ...]` as a merge of sorted lists
//! (rule `count_distinct_union`).
//!
//! Each block stores column `c`'s distinct values sorted (fixed-width
//! storage keys, or string hashes), so the answer is the size of the union
//! of one sorted list per block, restricted under WHERE to the values with
//! a selected row. The union is counted by key range in parallel: the key
//! space is cut at splitters sampled from the lists, and each range merges
//! its slices of every list.

use rayon::prelude::*;
use strata_format::Table;

use crate::agg::output::SlotInputs;
use crate::error::Result;
use crate::exec::table::{map_filtered_blocks, Plan};
use crate::expr::eval;
use crate::result::{QueryResult, ResultColumn};
use crate::value::{LType, Value, Vector};

/// Key ranges per thread (more ranges even out skewed ones).
const RANGES_PER_THREAD: usize = 8;

/// Runs the query if it only counts a column's distinct values.
pub fn run(plan: &Plan, table: &Table) -> Result<Option<QueryResult>> {
    let q = &plan.query;
    let Ok(col) = crate::rewrite::count_distinct_union::counted_column(q) else {
        return Ok(None);
    };
    let lists: Vec<Vec<u128>> = map_filtered_blocks(plan, table, |ctx, filter| {
        let kept: Vec<u128> = if filter.is_true() {
            ctx.wide_keys(col)?
        } else {
            let (counts, _) = filter.counts(&ctx, col)?;
            if counts.iter().all(|&n| n == 0) {
                return Ok(Vec::new());
            }
            ctx.wide_keys(col)?
                .into_iter()
                .zip(counts)
                .filter(|&(_, n)| n > 0)
                .map(|(k, _)| k)
                .collect()
        };
        // The lists, and the merge's copies of them.
        plan.budget
            .charge(2 * 16 * kept.len() as u64, "the distinct values")?;
        Ok(kept)
    })?;
    plan.watch.check()?;
    let n = union_size(&lists);
    let mut count = Vector::empty(LType::Int64, 1);
    count.push(&Value::Int(i64::try_from(n).unwrap_or(i64::MAX)));
    let slots = [count];
    let mut columns = Vec::with_capacity(q.select.len());
    for (name, e) in &q.select {
        columns.push(ResultColumn {
            name: name.clone(),
            ty: e.ty,
            values: eval(e, 1, &SlotInputs(&slots))?.into_owned(),
        });
    }
    Ok(Some(QueryResult { columns }))
}

/// The number of distinct keys in sorted, duplicate-free `lists`.
pub fn union_size(lists: &[Vec<u128>]) -> u64 {
    let keys: Vec<&[u128]> = lists.iter().map(Vec::as_slice).collect();
    key_ranges(&keys)
        .into_par_iter()
        .map(|range| {
            let slices: Vec<&[u128]> = range.into_iter().map(|(l, r)| &keys[l][r]).collect();
            count_merged(&slices)
        })
        .sum()
}

/// Cuts the key space of sorted `lists` into ranges to merge in parallel,
/// at splitters sampled evenly from the longest list (one range for small
/// inputs): per range, each list's index and the part of it in the range
/// (empty parts left out).
pub(crate) fn key_ranges(lists: &[&[u128]]) -> Vec<Vec<(usize, std::ops::Range<usize>)>> {
    let total: usize = lists.iter().map(|l| l.len()).sum();
    let ranges = rayon::current_num_threads().max(1) * RANGES_PER_THREAD;
    let longest = lists.iter().max_by_key(|l| l.len()).copied().unwrap_or(&[]);
    let mut cuts: Vec<u128> = if total < 1 << 16 {
        Vec::new()
    } else {
        (1..ranges)
            .filter_map(|i| longest.get(i * longest.len() / ranges).copied())
            .collect()
    };
    cuts.dedup();
    // Range r holds keys in [cuts[r-1], cuts[r]).
    (0..=cuts.len())
        .map(|r| {
            let lo = r.checked_sub(1).map(|i| cuts[i]);
            let hi = cuts.get(r).copied();
            lists
                .iter()
                .enumerate()
                .filter_map(|(i, l)| {
                    let a = lo.map_or(0, |lo| l.partition_point(|&k| k < lo));
                    let b = hi.map_or(l.len(), |hi| l.partition_point(|&k| k < hi));
                    (a < b).then_some((i, a..b))
                })
                .collect()
        })
        .collect()
}

/// Distinct keys across sorted, duplicate-free slices: merged in pairs,
/// level by level (linear passes, unlike a heap's scattered pops).
fn count_merged(slices: &[&[u128]]) -> u64 {
    let level: Vec<Vec<u128>> = match slices {
        [] => return 0,
        [one] => return one.len() as u64,
        _ => slices
            .chunks(2)
            .map(|p| merge_dedup(p[0], p.get(1).copied().unwrap_or(&[])))
            .collect(),
    };
    merge_in_pairs(level, |a, b| merge_dedup(a, b)).map_or(0, |l| l.len() as u64)
}

/// Merges `level` down to one item with `merge`, in pairs, level by level.
pub(crate) fn merge_in_pairs<T: Clone>(
    mut level: Vec<T>,
    merge: impl Fn(&T, &T) -> T,
) -> Option<T> {
    while level.len() > 1 {
        level = level
            .chunks(2)
            .map(|p| match p {
                [a, b] => merge(a, b),
                _ => p[0].clone(),
            })
            .collect();
    }
    level.pop()
}

/// The sorted union of two sorted, duplicate-free slices.
fn merge_dedup(a: &[u128], b: &[u128]) -> Vec<u128> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        out.push(x.min(y));
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_size_counts_each_key_once() {
        // Lists with overlaps, empty lists, and enough keys for ranges.
        let mut x = 1u64;
        let mut lists: Vec<Vec<u128>> = Vec::new();
        for len in [0usize, 5, 30_000, 70_000, 1, 0, 20_000] {
            let mut l: Vec<u128> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    u128::from(x % 200_000)
                })
                .collect();
            l.sort_unstable();
            l.dedup();
            lists.push(l);
        }
        let mut all: Vec<u128> = lists.iter().flatten().copied().collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(union_size(&lists), all.len() as u64);
        assert_eq!(union_size(&[]), 0);
        assert_eq!(union_size(&lists[..2]), 5);
    }
}

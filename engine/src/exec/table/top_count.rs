//! The `top_count` restriction (see [`crate::rewrite::top_count`] for why
//! it is sound): finding the bound `L` and the `K` values that can reach it.
//!
//! 1. Each block's selected rows per `K` value (from the stored counts;
//!    see [`crate::scan::selection`]), and the block's `k` most frequent values.
//! 2. Those values' exact totals over all blocks (binary searches); the `k`
//!    with the largest totals are probed: the `k`-th largest count of their
//!    groups, `L`, is a lower bound of the `k`-th largest count of all
//!    groups. (With one key, `L` is the `k`-th largest of the totals.)
//! 3. A group that beats `L` (or ties with it, when later ORDER BY keys
//!    break ties) has a `K` value with at least that many rows. The query
//!    runs restricted to the probed `K` values and to those that can reach
//!    it, found one of two ways:
//!    - with one key, without a merge: over the `B` blocks, such a value
//!      has at least `ceil(L / B)` rows in some block (pigeonhole). Only
//!      usable when that threshold prunes, i.e. `L` is large against `B`.
//!      The set is loose, but the restricted run only counts stored
//!      values;
//!    - otherwise exactly: every block's sorted (value, count) list merged,
//!      by key range in parallel, and the values whose totals reach `L`
//!      (several keys: the restricted run aggregates the candidates' rows,
//!      so a tight set pays).
//!
//! When `K`'s counts are spread evenly (every `K` value could still reach
//! `L`), there are too many candidates and the query runs as usual.

use rayon::prelude::*;
use strata_format::Table;

use crate::agg::func::AggCall;
use crate::agg::plan::plan_agg;
use crate::error::Result;
use crate::exec::table::count_distinct::{key_ranges, merge_in_pairs};
use crate::exec::table::{map_filtered_blocks, run_agg, Plan};
use crate::expr::{ExprKind, TExpr};
use crate::rewrite::top_count::{shape, Shape};
use crate::scan::block::BlockCtx;
use crate::scan::filter::{single_column, Pred};
use crate::value::{LType, Value};

/// At most this many candidate `K` values; past it the restriction would
/// cost about as much as the aggregation it saves.
const MAX_CANDIDATES: usize = 1 << 17;

/// With several keys, step 2 runs only when the `k` most frequent `K`
/// values probed hold at most 1/this of the selected rows.
const MAX_PROBE_SHARE: u64 = 8;

/// The restriction is tried only with more than this many `K` values per
/// group the LIMIT takes.
const MIN_VALUES_PER_GROUP: usize = 8;

/// The restriction is tried only when the filter selects at least
/// 1/this of the table's rows.
const MIN_ROWS_SHARE: u64 = 64;

/// One block's (or one merged range's) values of `K` with their counts,
/// sorted by value.
#[derive(Debug, Default, Clone, PartialEq)]
struct Counted {
    keys: Vec<u128>,
    counts: Vec<u64>,
}

/// One block's selected rows per `K` value.
struct Probe<'t> {
    ctx: BlockCtx<'t>,
    /// Per value index, its selected rows.
    counts: Vec<u32>,
    /// Selected rows with a NULL `K`.
    nulls: u64,
}

/// A block's sorted distinct `K` values as 128-bit keys.
enum SortedKeys<'a> {
    Wide(&'a [u128]),
    Narrow(&'a [u64]),
}

impl SortedKeys<'_> {
    fn get(&self, i: usize) -> u128 {
        match self {
            SortedKeys::Wide(k) => k[i],
            SortedKeys::Narrow(k) => u128::from(k[i]),
        }
    }

    fn find(&self, key: u128) -> Option<usize> {
        match self {
            SortedKeys::Wide(k) => k.binary_search(&key).ok(),
            SortedKeys::Narrow(k) => u64::try_from(key)
                .ok()
                .and_then(|key| k.binary_search(&key).ok()),
        }
    }
}

impl Probe<'_> {
    /// `f` over the block's sorted `K` values.
    fn with_keys<R>(&self, s: &Shape, f: impl FnOnce(SortedKeys) -> R) -> Result<R> {
        if s.is_str {
            let chunk = self.ctx.chunk(s.col)?;
            let hashes = chunk.hashes()?;
            Ok(f(SortedKeys::Wide(hashes.as_slice())))
        } else {
            Ok(f(SortedKeys::Narrow(self.ctx.keys(s.col)?)))
        }
    }
}

/// The extra filter restricting the query to the groups that can make the
/// cut, or `None` when the query is not of this kind or the restriction
/// would not narrow it enough.
pub fn restriction(plan: &Plan, table: &Table) -> Result<Option<Pred>> {
    let q = &plan.query;
    let Ok(s) = shape(q) else {
        return Ok(None);
    };
    // With one key, the restriction pays when neither pass selects rows:
    // no filter, or one testing `K` value by value. Otherwise both passes
    // would select the filter's rows, for groups that are few anyway.
    if s.only_key && plan.pred != Pred::True && single_column(&plan.pred) != Some(s.col) {
        return Ok(None);
    }
    // 1. Per block, K's values with selected rows and how many, and (one
    // key) the block's k most frequent values.
    let probed: Vec<(Probe, Vec<u128>)> = map_filtered_blocks(plan, table, |ctx, filter| {
        let (counts, nulls) = filter.counts(&ctx, s.col)?;
        plan.budget
            .charge(4 * counts.len() as u64, "the group-count bounds")?;
        let probe = Probe {
            ctx,
            counts,
            nulls: u64::from(nulls),
        };
        let keys = if s.only_key {
            let best = most_frequent(&probe.counts, s.k);
            probe.with_keys(&s, |keys| best.iter().map(|&i| keys.get(i)).collect())?
        } else {
            Vec::new()
        };
        Ok((probe, keys))
    })?;
    plan.watch.check()?;
    let probed_keys: Vec<u128> = probed.iter().flat_map(|(_, k)| k.iter().copied()).collect();
    let mut probes: Vec<Probe> = probed.into_iter().map(|(p, _)| p).collect();
    let null_rows: u64 = probes.iter().map(|p| p.nulls).sum();
    let rows: u64 = null_rows
        + probes
            .iter()
            .flat_map(|p| &p.counts)
            .map(|&n| u64::from(n))
            .sum::<u64>();
    // Few rows selected: aggregating them all costs less than the passes
    // the restriction would add (each selects the filter's rows again).
    if rows.saturating_mul(MIN_ROWS_SHARE) < table.num_rows() {
        return Ok(None);
    }
    // Few K values: the restriction could not narrow the query much.
    let values: usize = probes
        .iter()
        .map(|p| p.counts.iter().filter(|&&n| n > 0).count())
        .sum();
    if values <= MIN_VALUES_PER_GROUP * s.k {
        return Ok(None);
    }
    // 2. The k most frequent K values: among the probed ones (one key), or
    // exactly from every value's total (several keys: the restricted run
    // aggregates rows, so it pays to find the tightest bound and set).
    let merged = if s.only_key {
        None
    } else {
        Some(merge_probes(plan, &mut probes, &s)?)
    };
    let top = match &merged {
        Some(m) => most_frequent_merged(m, s.k),
        None => probed_top(&mut probes, &s, probed_keys)?,
    };
    if top.len() < s.k {
        return Ok(None);
    }
    let bound = if s.only_key {
        top[s.k - 1].0
    } else {
        // Step 2 aggregates the rows of the top K values: worth it only if
        // they are a small share of the rows.
        if top.iter().map(|t| t.0).sum::<u64>() > rows / MAX_PROBE_SHARE {
            return Ok(None);
        }
        let top_keys: Vec<u128> = top.iter().map(|&(_, key)| key).collect();
        match kth_count(plan, table, &s, &top_keys)? {
            Some(b) => b,
            None => return Ok(None),
        }
    };
    // 3. The K values whose groups can still make the cut: those with at
    // least `need` rows.
    let need = if s.tie_breaks { bound } else { bound + 1 };
    if null_rows >= need {
        // Groups with a NULL K could make it; a value set cannot name them.
        return Ok(None);
    }
    let mut keep: Vec<u128> = top.into_iter().map(|(_, key)| key).collect();
    // With one key the restricted run counts stored values (cheap even for
    // a loose candidate set); with several it aggregates the candidates'
    // rows, so it wants the exact, tight set.
    let reaching = match merged {
        Some(m) => merged_reaching(&m, need, rows),
        None => match pigeonhole(&mut probes, &s, need, rows)? {
            Some(r) => Some(r),
            None => merged_reaching(&merge_probes(plan, &mut probes, &s)?, need, rows),
        },
    };
    let Some(reaching) = reaching else {
        return Ok(None);
    };
    keep.extend(reaching);
    keep.sort_unstable();
    keep.dedup();
    Ok(Some(Pred::value_set(s.col, s.is_str, keep)))
}

/// The `K` values with at least `ceil(need / B)` rows in some one of the
/// `B` blocks holding selected rows (a superset of those with `need` rows
/// in all), or `None` when that threshold would not narrow the query
/// enough.
fn pigeonhole(probes: &mut [Probe], s: &Shape, need: u64, rows: u64) -> Result<Option<Vec<u128>>> {
    let blocks = probes
        .iter()
        .filter(|p| p.counts.iter().any(|&n| n > 0))
        .count();
    let threshold = need.div_ceil(blocks.max(1) as u64);
    if threshold <= 1 {
        return Ok(None);
    }
    let reaching: Vec<(Vec<u128>, u64)> = probes
        .par_iter_mut()
        .map(|p| {
            p.with_keys(s, |keys| {
                let mut out = Vec::new();
                let mut rows = 0;
                for (i, &n) in p.counts.iter().enumerate() {
                    if u64::from(n) >= threshold && out.len() <= MAX_CANDIDATES {
                        out.push(keys.get(i));
                        rows += u64::from(n);
                    }
                }
                (out, rows)
            })
        })
        .collect::<Result<_>>()?;
    Ok(narrow_enough(reaching, rows))
}

/// Every `K` value's selected rows over all blocks: the blocks' sorted
/// (value, count) lists merged, one list per key range.
fn merge_probes(plan: &Plan, probes: &mut [Probe], s: &Shape) -> Result<Vec<Counted>> {
    let lists: Vec<Counted> = probes
        .par_iter_mut()
        .map(|p| {
            let c = p.with_keys(s, |keys| {
                let mut c = Counted::default();
                for (i, &n) in p.counts.iter().enumerate() {
                    if n > 0 {
                        c.keys.push(keys.get(i));
                        c.counts.push(u64::from(n));
                    }
                }
                c
            })?;
            // The lists, and the merge's copies of them.
            plan.budget
                .charge(2 * 24 * c.keys.len() as u64, "the group-count bounds")?;
            Ok(c)
        })
        .collect::<Result<_>>()?;
    Ok(merge_counts(&lists))
}

/// The `K` values with at least `need` rows over all blocks, from the
/// merged counts; `None` when they would not narrow the query enough.
fn merged_reaching(merged: &[Counted], need: u64, rows: u64) -> Option<Vec<u128>> {
    let reaching: Vec<(Vec<u128>, u64)> = merged
        .par_iter()
        .map(|m| {
            let mut keys = Vec::new();
            let mut rows = 0;
            for (&key, &n) in m.keys.iter().zip(&m.counts) {
                if n >= need && keys.len() <= MAX_CANDIDATES {
                    keys.push(key);
                    rows += n;
                }
            }
            (keys, rows)
        })
        .collect();
    narrow_enough(reaching, rows)
}

/// The candidate values of per-part `(values, their rows)` lists, unless
/// they are too many or hold most of the `rows` (the restriction would
/// cost more than it saves).
fn narrow_enough(parts: Vec<(Vec<u128>, u64)>, rows: u64) -> Option<Vec<u128>> {
    if parts.iter().map(|r| r.0.len()).sum::<usize>() > MAX_CANDIDATES
        || parts.iter().map(|r| r.1).sum::<u64>() > rows / 2
    {
        return None;
    }
    Some(parts.into_iter().flat_map(|r| r.0).collect())
}

/// The `k` values with the largest totals among `keys` (each block's most
/// frequent values), totals found by binary search in every block.
fn probed_top(probes: &mut [Probe], s: &Shape, mut keys: Vec<u128>) -> Result<Vec<(u64, u128)>> {
    keys.sort_unstable();
    keys.dedup();
    let totals = probes
        .par_iter_mut()
        .map(|p| {
            p.with_keys(s, |sorted| {
                keys.iter()
                    .map(|&key| sorted.find(key).map_or(0, |i| u64::from(p.counts[i])))
                    .collect::<Vec<u64>>()
            })
        })
        .try_reduce(
            || vec![0; keys.len()],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    *x += y;
                }
                Ok(a)
            },
        )?;
    let mut top: Vec<(u64, u128)> = totals.into_iter().zip(keys).collect();
    top.sort_unstable_by_key(|&(n, _)| std::cmp::Reverse(n));
    top.truncate(s.k);
    Ok(top)
}

/// The indexes of the `k` largest counts (ties broken arbitrarily; zero
/// counts never).
fn most_frequent(counts: &[u32], k: usize) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..counts.len()).filter(|&i| counts[i] > 0).collect();
    if idx.len() > k {
        idx.select_nth_unstable_by_key(k - 1, |&i| std::cmp::Reverse(counts[i]));
        idx.truncate(k);
    }
    idx
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
    fa.aggs = vec![AggCall::count_star()];
    let count = TExpr {
        kind: ExprKind::Ref(fa.keys.len()),
        ty: LType::Int64,
    };
    fq.select = vec![("c".into(), count.clone())];
    fq.order = vec![crate::plan::OrderKey {
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
fn most_frequent_merged(merged: &[Counted], k: usize) -> Vec<(u64, u128)> {
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
    fn most_frequent_keeps_the_largest_nonzero_counts() {
        let counts = [3, 0, 9, 1, 9, 4, 0];
        let mut got = most_frequent(&counts, 3);
        got.sort_unstable();
        assert_eq!(got, [2, 4, 5]);
        assert_eq!(most_frequent(&[0, 0, 2], 5), vec![2]);
        assert!(most_frequent(&[], 1).is_empty());
    }

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

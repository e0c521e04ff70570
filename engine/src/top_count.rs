//! `GROUP BY a, b, ... ORDER BY COUNT(*) DESC LIMIT k`: only the groups that
//! can make the cut are aggregated.
//!
//! A group's row count is at most the row count of its value of any one key
//! column `K` (the stored key column with the most distinct values bounds
//! best; with one key, `K` is the key and the two counts are equal). So:
//! 1. Each block's selected rows per `K` value (from the stored counts;
//!    see [`crate::selection`]), and the block's `k` most frequent values.
//! 2. Those values' exact totals over all blocks (binary searches); the `k`
//!    with the largest totals are probed: the `k`-th largest count of their
//!    groups, `L`, is a lower bound of the `k`-th largest count of all
//!    groups. (With one key, `L` is the `k`-th largest of the totals.)
//! 3. A group that beats `L` (or ties with it, when later ORDER BY keys
//!    break ties) has a `K` value with at least `L` rows over the `B`
//!    blocks, so in some block at least `ceil(L / B)` rows. The query runs
//!    restricted to the `K` values that reach that count in some block, and
//!    the probed ones. The restriction depends on `K` only, so every group
//!    it keeps is whole: counts, other aggregates and order are exact, and
//!    the groups that make the cut are among those kept.
//!
//! When `K`'s counts are spread evenly (too many values reach the
//! threshold), the query runs as usual.

use rayon::prelude::*;
use strata_format::Table;

use crate::bind::{AggCall, AggFunc, Query};
use crate::block::BlockCtx;
use crate::error::Result;
use crate::exec::{live_blocks, plan_agg, run_agg, Plan};
use crate::expr::{ExprKind, TExpr};
use crate::filter::Pred;
use crate::selection::BlockFilter;
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

/// What the query must look like, and the `K` column and `k`.
struct Shape {
    col: usize,
    is_str: bool,
    k: usize,
    /// Whether `K` is the only key (a group is a `K` value).
    only_key: bool,
}

fn shape(q: &Query, table: &Table) -> Option<Shape> {
    let agg = q.aggregation.as_ref()?;
    if q.having.is_some() || agg.keys.is_empty() || agg.aggs.iter().any(|a| a.distinct) {
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
        only_key: agg.keys.len() == 1,
    })
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
    let Some(s) = shape(q, table) else {
        return Ok(None);
    };
    // 1. Per block, K's values with selected rows and how many, and the
    // block's k most frequent values.
    let probed: Vec<(Probe, Vec<u128>)> = live_blocks(plan, table)
        .into_par_iter()
        .map(|b| {
            plan.watch.check()?;
            let ctx = BlockCtx::new(table, b);
            let (counts, nulls) = BlockFilter::new(&plan.pred).counts(&ctx, s.col)?;
            plan.budget
                .charge(4 * counts.len() as u64, "the group-count bounds")?;
            let probe = Probe {
                ctx,
                counts,
                nulls: u64::from(nulls),
            };
            let best = most_frequent(&probe.counts, s.k);
            let keys = probe.with_keys(&s, |keys| best.iter().map(|&i| keys.get(i)).collect())?;
            Ok((probe, keys))
        })
        .collect::<Result<_>>()?;
    plan.watch.check()?;
    let mut probed_keys: Vec<u128> = probed.iter().flat_map(|(_, k)| k.iter().copied()).collect();
    let mut probes: Vec<Probe> = probed.into_iter().map(|(p, _)| p).collect();
    let null_rows: u64 = probes.iter().map(|p| p.nulls).sum();
    let rows: u64 = null_rows
        + probes
            .iter()
            .flat_map(|p| &p.counts)
            .map(|&n| u64::from(n))
            .sum::<u64>();
    // Few K values: the restriction could not narrow the query much.
    let values: usize = probes
        .iter()
        .map(|p| p.counts.iter().filter(|&&n| n > 0).count())
        .sum();
    if values <= MIN_VALUES_PER_GROUP * s.k {
        return Ok(None);
    }
    // 2. The probed values' totals, the k largest of them, and the k-th
    // best count of their groups.
    probed_keys.sort_unstable();
    probed_keys.dedup();
    let totals = probes
        .par_iter_mut()
        .map(|p| {
            p.with_keys(&s, |keys| {
                probed_keys
                    .iter()
                    .map(|&key| keys.find(key).map_or(0, |i| u64::from(p.counts[i])))
                    .collect::<Vec<u64>>()
            })
        })
        .try_reduce(
            || vec![0; probed_keys.len()],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    *x += y;
                }
                Ok(a)
            },
        )?;
    let mut top: Vec<(u64, u128)> = totals.into_iter().zip(probed_keys).collect();
    top.sort_unstable_by_key(|&(n, _)| std::cmp::Reverse(n));
    top.truncate(s.k);
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
    // 3. The K values that reach ceil(L / B) rows in some block.
    if null_rows >= bound {
        // Groups with a NULL K could make it; a value set cannot name them.
        return Ok(None);
    }
    let blocks = probes
        .iter()
        .filter(|p| p.counts.iter().any(|&n| n > 0))
        .count();
    let threshold = bound.div_ceil(blocks.max(1) as u64);
    if threshold <= 1 {
        return Ok(None);
    }
    let reaching: Vec<(Vec<u128>, u64)> = probes
        .par_iter_mut()
        .map(|p| {
            p.with_keys(&s, |keys| {
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
    if reaching.iter().map(|r| r.0.len()).sum::<usize>() > MAX_CANDIDATES {
        return Ok(None);
    }
    if reaching.iter().map(|r| r.1).sum::<u64>() > rows / 2 {
        // Most rows stay: the restriction would save little.
        return Ok(None);
    }
    let mut keep: Vec<u128> = top.into_iter().map(|(_, key)| key).collect();
    keep.extend(reaching.into_iter().flat_map(|r| r.0));
    keep.sort_unstable();
    keep.dedup();
    Ok(Some(Pred::value_set(s.col, s.is_str, keep)))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn most_frequent_keeps_the_largest_nonzero_counts() {
        let counts = [3, 0, 9, 1, 9, 4, 0];
        let mut got = most_frequent(&counts, 3);
        got.sort_unstable();
        assert_eq!(got, [2, 4, 5]);
        assert_eq!(most_frequent(&[0, 0, 2], 5), vec![2]);
        assert!(most_frequent(&[], 1).is_empty());
    }
}

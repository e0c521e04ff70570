//! Rows of plan nodes from the tables' statistics (rows per block,
//! distinct values per block and column): exact upper bounds, for EXPLAIN,
//! and estimates, for choosing join orders.

use std::cell::RefCell;

use crate::expr::{ExprKind, TExpr};
use crate::plan::{Cte, JoinKind, LogicalPlan, Query, SetOpKind, TableQuery};
use crate::scan::block::BlockCtx;
use crate::scan::filter::{compile, may_match, select};
use strata_format::Table;

/// An upper bound of the rows `p` produces.
#[recursive::recursive]
pub fn max_rows(p: &LogicalPlan, q: &Query) -> u64 {
    match p {
        LogicalPlan::TableQuery(t) => table_rows(t),
        LogicalPlan::Filter { input, .. }
        | LogicalPlan::Project { input, .. }
        | LogicalPlan::Sort { input, .. }
        | LogicalPlan::Window { input, .. }
        | LogicalPlan::Distinct { input }
        | LogicalPlan::DistinctOn { input, .. } => max_rows(input, q),
        LogicalPlan::Aggregate { input, keys, .. } => {
            if keys.is_empty() {
                1
            } else {
                max_rows(input, q)
            }
        }
        LogicalPlan::Limit {
            input,
            limit,
            offset,
        } => {
            let n = max_rows(input, q).saturating_sub(*offset);
            limit.map_or(n, |l| n.min(l))
        }
        LogicalPlan::SetOp {
            kind, left, right, ..
        } => match kind {
            SetOpKind::Union => max_rows(left, q).saturating_add(max_rows(right, q)),
            SetOpKind::Intersect => max_rows(left, q).min(max_rows(right, q)),
            SetOpKind::Except => max_rows(left, q),
        },
        LogicalPlan::Values { rows, .. } => rows.len() as u64,
        LogicalPlan::Partials { rows, .. } => rows.rows as u64,
        LogicalPlan::Join {
            kind, left, right, ..
        } => {
            let (l, r) = (max_rows(left, q), max_rows(right, q));
            match kind {
                JoinKind::Semi
                | JoinKind::Anti
                | JoinKind::AntiNullAware
                | JoinKind::Mark { .. }
                | JoinKind::Single { .. } => l,
                _ => l.saturating_mul(r.max(1)).saturating_add(r),
            }
        }
        LogicalPlan::CteRef { id, .. } => {
            q.ctes.get(*id).map_or(u64::MAX, |c| max_rows(&c.plan, q))
        }
    }
}

/// A table query's rows at most: the rows of the blocks its statistics do
/// not rule out; with GROUP BY, at most the product of the key columns'
/// distinct values (summed over blocks) where every key is a column.
pub fn table_rows(t: &TableQuery) -> u64 {
    let table = &t.table;
    let mut rows = table.num_rows();
    if t.strategies.block_pruning && pruned_blocks(t) > 0 {
        let p = t.filter.as_ref().map(compile);
        rows = (0..table.num_blocks())
            .filter(|&b| p.as_ref().is_none_or(|p| may_match(p, table, b)))
            .map(|b| u64::from(table.block_rows(b)))
            .sum();
    }
    if let Some(a) = &t.aggregation {
        if a.keys.is_empty() {
            rows = 1;
        } else {
            let mut groups: u64 = 1;
            for k in &a.keys {
                let d = match k.as_col() {
                    Some(c) => (0..table.num_blocks())
                        .map(|b| u64::from(table.stats(b, c).distinct) + 1)
                        .sum::<u64>(),
                    None => u64::MAX,
                };
                groups = groups.saturating_mul(d);
            }
            rows = rows.min(groups);
        }
    }
    let rows = rows.saturating_sub(t.offset);
    t.limit.map_or(rows, |l| rows.min(l))
}

/// How many of the table query's blocks its statistics rule out.
pub fn pruned_blocks(t: &TableQuery) -> usize {
    let Some(f) = &t.filter else {
        return 0;
    };
    let p = compile(f);
    (0..t.table.num_blocks())
        .filter(|&b| !may_match(&p, &t.table, b))
        .count()
}

/// Selectivity assumed for a predicate nothing is known about.
const UNKNOWN_SELECTIVITY: f64 = 0.3;

/// An estimate of the rows `p` produces, for choosing join orders: a
/// table query's rows are its table's, scaled by the share of the first
/// unpruned block's rows its filter keeps; an equi-join's are the
/// product of its inputs' over the larger number of distinct keys.
#[recursive::recursive]
pub fn estimate_rows(p: &LogicalPlan, ctes: &[Cte]) -> f64 {
    match p {
        LogicalPlan::TableQuery(t) => table_estimate(t),
        LogicalPlan::Filter { input, .. } => estimate_rows(input, ctes) * UNKNOWN_SELECTIVITY,
        LogicalPlan::Project { input, .. }
        | LogicalPlan::Sort { input, .. }
        | LogicalPlan::Window { input, .. }
        | LogicalPlan::Distinct { input }
        | LogicalPlan::DistinctOn { input, .. } => estimate_rows(input, ctes),
        LogicalPlan::Aggregate { input, keys, .. } => {
            if keys.is_empty() {
                1.0
            } else {
                let n = estimate_rows(input, ctes);
                let groups: f64 = keys.iter().map(|k| key_distinct(k, input, ctes)).product();
                groups.min(n)
            }
        }
        LogicalPlan::Limit {
            input,
            limit,
            offset,
        } => {
            let n = (estimate_rows(input, ctes) - *offset as f64).max(0.0);
            limit.map_or(n, |l| n.min(l as f64))
        }
        LogicalPlan::SetOp {
            kind, left, right, ..
        } => {
            let (l, r) = (estimate_rows(left, ctes), estimate_rows(right, ctes));
            match kind {
                SetOpKind::Union => l + r,
                SetOpKind::Intersect => l.min(r),
                SetOpKind::Except => l,
            }
        }
        LogicalPlan::Values { rows, .. } => rows.len() as f64,
        LogicalPlan::Partials { rows, .. } => rows.rows as f64,
        LogicalPlan::Join {
            kind,
            left,
            right,
            keys,
            filter,
        } => {
            let (l, r) = (estimate_rows(left, ctes), estimate_rows(right, ctes));
            // The most selective key only (see join_reorder's estimate).
            let divisor = keys
                .iter()
                .map(|(a, b)| key_distinct(a, left, ctes).max(key_distinct(b, right, ctes)))
                .fold(1.0f64, f64::max);
            let mut inner = l * r / divisor;
            if filter.is_some() {
                inner *= UNKNOWN_SELECTIVITY;
            }
            match kind {
                JoinKind::Inner => inner,
                JoinKind::Left => inner.max(l),
                JoinKind::Right => inner.max(r),
                JoinKind::Full => inner.max(l).max(r),
                JoinKind::Semi | JoinKind::Anti | JoinKind::AntiNullAware => l * 0.5,
                JoinKind::Mark { .. } | JoinKind::Single { .. } => l,
            }
        }
        LogicalPlan::CteRef { id, .. } => ctes
            .get(*id)
            .map_or(f64::MAX, |c| estimate_rows(&c.plan, ctes)),
    }
}

/// A table query's estimated rows (a HAVING is assumed to keep
/// [`UNKNOWN_SELECTIVITY`] of the groups).
pub fn table_estimate(t: &TableQuery) -> f64 {
    let table = &t.table;
    let mut rows = table.num_rows() as f64;
    if let Some(f) = &t.filter {
        rows *= filter_share(f, table);
    }
    if let Some(a) = &t.aggregation {
        if a.keys.is_empty() {
            rows = 1.0;
        } else {
            let groups: f64 = a
                .keys
                .iter()
                .map(|k| k.as_col().map_or(rows, |c| column_distinct(table, c)))
                .product();
            rows = rows.min(groups);
        }
        if t.having.is_some() {
            rows *= UNKNOWN_SELECTIVITY;
        }
    }
    let rows = (rows - t.offset as f64).max(0.0);
    t.limit.map_or(rows, |l| rows.min(l as f64))
}

thread_local! {
    /// Filter shares measured on this thread while an [`EstimateMemo`]
    /// lives: (table handle, filter, share).
    static SHARES: RefCell<Option<Vec<(usize, TExpr, f64)>>> = const { RefCell::new(None) };
}

/// While it lives, [`filter_share`] measures each filter on each table once
/// on this thread. Rewriting and planning one query ask for the same
/// estimates many times (join orders, semi-join reductions, nested
/// subqueries' inputs), and each measure evaluates the filter on a block.
/// The memo ends with the outermost one, before the tables it names can be
/// dropped (so a handle's address cannot stand for another table).
pub struct EstimateMemo {
    outermost: bool,
}

impl EstimateMemo {
    /// Starts memoizing on this thread (nested memos share the outermost's).
    pub fn start() -> EstimateMemo {
        let outermost = SHARES.with(|s| {
            let mut s = s.borrow_mut();
            let fresh = s.is_none();
            if fresh {
                *s = Some(Vec::new());
            }
            fresh
        });
        EstimateMemo { outermost }
    }
}

impl Drop for EstimateMemo {
    fn drop(&mut self) {
        if self.outermost {
            SHARES.with(|s| *s.borrow_mut() = None);
        }
    }
}

/// The share of a table's rows `filter` keeps, measured on the first block
/// its statistics do not rule out (0 when they rule out every block);
/// remembered while an [`EstimateMemo`] lives.
fn filter_share(filter: &TExpr, table: &Table) -> f64 {
    let id = table.handle_id();
    let known = SHARES.with(|s| {
        s.borrow().as_ref().and_then(|v| {
            v.iter()
                .find(|(t, f, _)| *t == id && f == filter)
                .map(|x| x.2)
        })
    });
    if let Some(share) = known {
        return share;
    }
    let share = measure_share(filter, table);
    SHARES.with(|s| {
        if let Some(v) = s.borrow_mut().as_mut() {
            v.push((id, filter.clone(), share));
        }
    });
    share
}

/// [`filter_share`] measured.
fn measure_share(filter: &TExpr, table: &Table) -> f64 {
    let p = compile(filter);
    let Some(b) = (0..table.num_blocks()).find(|&b| may_match(&p, table, b)) else {
        return 0.0;
    };
    let ctx = BlockCtx::new(table, b);
    let kept = match select(&p, &ctx) {
        Ok(sel) => sel.count(ctx.rows) as f64,
        Err(_) => return UNKNOWN_SELECTIVITY,
    };
    let candidates = (0..table.num_blocks())
        .filter(|&b| may_match(&p, table, b))
        .count() as f64;
    let share_of_blocks = candidates / table.num_blocks().max(1) as f64;
    (kept / f64::from(ctx.rows.max(1))) * share_of_blocks
}

/// Estimated distinct non-NULL values of a stored column, from each
/// block's exact count and key range. Where the blocks' key ranges do not
/// overlap (a column the table is sorted or clustered on), no value is in
/// two blocks: the sum of the counts. Otherwise the values are taken as
/// drawn at random from a domain whose size the largest block's count
/// implies (`d = D (1 - e^(-r/D))` for `d` distinct of `r` rows), and the
/// estimate is what the table's rows draw from it. Either way at most the
/// number of keys between the smallest and the largest (fixed-width types).
pub fn column_distinct(table: &Table, col: usize) -> f64 {
    let fixed = !table.schema().fields[col].data_type.is_string();
    let mut blocks: Vec<(u64, u64, f64, f64)> = (0..table.num_blocks())
        .map(|b| table.stats(b, col))
        .filter(|s| s.distinct > 0)
        .map(|s| {
            let non_null = f64::from(s.rows.saturating_sub(s.null_count).max(s.distinct));
            (s.min, s.max, f64::from(s.distinct), non_null)
        })
        .collect();
    let sum: f64 = blocks.iter().map(|b| b.2).sum();
    if blocks.len() <= 1 {
        return sum;
    }
    let mut range = f64::INFINITY;
    if fixed {
        blocks.sort_unstable_by_key(|b| (b.0, b.1));
        let hi = blocks.iter().map(|b| b.1).max().unwrap_or(0);
        range = hi.saturating_sub(blocks[0].0) as f64 + 1.0;
        if blocks.windows(2).all(|w| w[1].0 > w[0].1) {
            return sum.min(range);
        }
    }
    let (_, _, d, r) = blocks
        .iter()
        .copied()
        .max_by(|a, b| a.3.total_cmp(&b.3))
        .unwrap_or_default();
    let rows: f64 = blocks.iter().map(|b| b.3).sum();
    let largest = blocks.iter().map(|b| b.2).fold(0.0, f64::max);
    let estimate = match sampled_domain(d, r) {
        Some(domain) => domain * -(-rows / domain).exp_m1(),
        None => sum,
    };
    estimate.clamp(largest, sum).min(range)
}

/// The domain size `D` from which `r` rows drawn at random show `d`
/// distinct values (`d = D (1 - e^(-r/D))`), or `None` when nearly every
/// row is distinct (the domain is then too large to tell).
fn sampled_domain(d: f64, r: f64) -> Option<f64> {
    if d <= 0.0 || r <= 0.0 || d >= 0.95 * r {
        return None;
    }
    // The expected distinct count grows with D: bisect on a log scale.
    let distinct_of = |domain: f64| domain * -(-r / domain).exp_m1();
    let (mut lo, mut hi) = (d, d * 2.0);
    while distinct_of(hi) < d {
        hi *= 2.0;
        if hi > 1e18 {
            return None;
        }
    }
    for _ in 0..60 {
        let mid = (lo * hi).sqrt();
        if distinct_of(mid) < d {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(hi)
}

/// Estimated distinct values of `key`, an expression over `plan`'s
/// columns: a stored column's statistics where the key traces back to
/// one, else the plan's estimated rows.
#[recursive::recursive]
pub fn key_distinct(key: &TExpr, plan: &LogicalPlan, ctes: &[Cte]) -> f64 {
    let rows = estimate_rows(plan, ctes);
    let Some(col) = key.as_col() else {
        return rows;
    };
    let traced = match plan {
        LogicalPlan::TableQuery(t) if t.aggregation.is_none() => t
            .select
            .get(col)
            .and_then(|(_, e)| e.as_col())
            .map(|c| column_distinct(&t.table, c)),
        LogicalPlan::Project { input, exprs, .. } => {
            exprs.get(col).map(|e| key_distinct(e, input, ctes))
        }
        LogicalPlan::Filter { input, .. }
        | LogicalPlan::Sort { input, .. }
        | LogicalPlan::Limit { input, .. }
        | LogicalPlan::Distinct { input } => Some(key_distinct(key, input, ctes)),
        LogicalPlan::Aggregate { input, keys, .. } => {
            keys.get(col).map(|k| key_distinct(k, input, ctes))
        }
        LogicalPlan::Join {
            kind, left, right, ..
        } => {
            let nl = left.columns().len();
            if col < nl {
                Some(key_distinct(key, left, ctes))
            } else if kind.has_right_columns() {
                let k = TExpr {
                    kind: ExprKind::Col(col - nl),
                    ty: key.ty,
                };
                Some(key_distinct(&k, right, ctes))
            } else {
                None
            }
        }
        _ => None,
    };
    traced.map_or(rows, |d| d.min(rows.max(1.0)))
}

/// The values a join key can take, as far as the tables' statistics say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyRange {
    /// Every non-NULL value lies in `lo..=hi`.
    Within(i128, i128),
    /// No row has a non-NULL value.
    NoValues,
}

impl KeyRange {
    /// Whether no value of `self` can equal one of `other`.
    pub fn disjoint(self, other: KeyRange) -> bool {
        match (self, other) {
            (KeyRange::Within(a, b), KeyRange::Within(c, d)) => b < c || d < a,
            _ => true,
        }
    }
}

/// The range of the integer key `key` over `plan`'s rows, where it is a
/// stored integer column (or an integer cast of one, which keeps each
/// value or fails) traced through projections, filters and joins; a
/// subset of a table's rows takes no value outside the table's range.
/// `None` where the statistics do not say.
#[recursive::recursive]
pub fn key_range(key: &TExpr, plan: &LogicalPlan) -> Option<KeyRange> {
    if !key.ty.is_integer() {
        return None;
    }
    let col = match &key.kind {
        ExprKind::Col(c) => *c,
        ExprKind::Cast(inner) if inner.ty.is_integer() => return key_range(inner, plan),
        _ => return None,
    };
    match plan {
        LogicalPlan::TableQuery(t) if t.aggregation.is_none() => {
            stored_range(&t.select.get(col)?.1, &t.table)
        }
        LogicalPlan::Project { input, exprs, .. } => key_range(exprs.get(col)?, input),
        LogicalPlan::Filter { input, .. }
        | LogicalPlan::Sort { input, .. }
        | LogicalPlan::Limit { input, .. } => key_range(key, input),
        LogicalPlan::Join {
            kind, left, right, ..
        } => {
            let nl = left.columns().len();
            if col < nl {
                key_range(key, left)
            } else if kind.has_right_columns() {
                let k = TExpr {
                    kind: ExprKind::Col(col - nl),
                    ty: key.ty,
                };
                key_range(&k, right)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// The range of a table query's select expression over the table's rows,
/// where it is a stored integer column or integer casts of one.
fn stored_range(e: &TExpr, table: &Table) -> Option<KeyRange> {
    match &e.kind {
        ExprKind::Col(c) => column_range(table, *c),
        ExprKind::Cast(inner) if e.ty.is_integer() && inner.ty.is_integer() => {
            stored_range(inner, table)
        }
        _ => None,
    }
}

/// The range of a stored integer column's non-NULL values over every block.
fn column_range(table: &Table, col: usize) -> Option<KeyRange> {
    let ty = table.schema().fields.get(col)?.data_type;
    if !ty.is_integer() {
        return None;
    }
    let value = |k: u64| -> i128 {
        if ty.is_signed_like() {
            i128::from(strata_format::types::signed_from_key(k))
        } else {
            i128::from(k)
        }
    };
    let mut range: Option<(i128, i128)> = None;
    for b in 0..table.num_blocks() {
        let s = table.stats(b, col);
        if s.distinct == 0 {
            continue;
        }
        let (lo, hi) = (value(s.min), value(s.max));
        range = Some(range.map_or((lo, hi), |(a, z)| (a.min(lo), z.max(hi))));
    }
    Some(range.map_or(KeyRange::NoValues, |(lo, hi)| KeyRange::Within(lo, hi)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_format::{ColumnData, DataType, Field, Schema, TableWriter, WriteOptions};

    /// A table of three blocks of 4,000 rows: `sorted` counts up through
    /// the blocks, `drawn` repeats values of a domain of 1,000 in every
    /// block, `wide` is distinct within blocks and overlaps across them.
    fn table(dir: &std::path::Path) -> Table {
        let fields = ["sorted", "drawn", "wide"]
            .map(|n| Field::new(n, DataType::Int64, false))
            .to_vec();
        let options = WriteOptions {
            sync: false,
            ..Default::default()
        };
        let mut w = TableWriter::create(dir, Schema::new(fields).expect("schema"), options)
            .expect("create");
        let rows = 4_000u64;
        for b in 0..3u64 {
            let sorted = (b * rows..(b + 1) * rows).collect();
            // A multiplicative walk over 0..1000: every block repeats the domain.
            let drawn = (0..rows).map(|i| (i * 7919 + b * 13) % 1000).collect();
            let wide = (0..rows).map(|i| i * 3 + b).collect();
            let data = [sorted, drawn, wide]
                .map(|keys| ColumnData::Fixed { keys, nulls: None })
                .to_vec();
            w.write_block(data).expect("write");
        }
        w.finish().expect("finish");
        Table::open(dir).expect("open")
    }

    #[test]
    fn distinct_values_follow_the_blocks_ranges_and_counts() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let t = table(&tmp.path().join("t"));
        // Disjoint ranges: each block's values are its own.
        assert_eq!(column_distinct(&t, 0), 12_000.0);
        // Repeats: the domain the blocks draw from, not their sum.
        let drawn = column_distinct(&t, 1);
        assert!((990.0..=1_000.0).contains(&drawn), "{drawn}");
        // Distinct within blocks, overlapping ranges: at most their sum.
        let wide = column_distinct(&t, 2);
        assert!((4_000.0..=12_000.0).contains(&wide), "{wide}");
    }

    #[test]
    fn the_sampled_domain_inverts_the_expected_distinct_count() {
        let domain = sampled_domain(100_000.0, 524_288.0).expect("a domain");
        assert!((99_000.0..101_000.0).contains(&domain), "{domain}");
        let expected = 1e6 * -(-524_288.0f64 / 1e6).exp_m1();
        let domain = sampled_domain(expected, 524_288.0).expect("a domain");
        assert!((0.99e6..1.01e6).contains(&domain), "{domain}");
        assert_eq!(sampled_domain(999.0, 1_000.0), None, "nearly all distinct");
    }
}

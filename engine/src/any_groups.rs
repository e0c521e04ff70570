//! `GROUP BY <columns> LIMIT k` without ORDER BY: any `k` groups are a
//! correct answer, so there is no need to aggregate them all.
//!
//! The first selected rows of the first blocks name `k` key tuples; each key
//! column is then restricted to the values those tuples use, and the query
//! runs as usual under that extra filter. The filter depends on the key
//! values only, so every group it keeps has all of its rows: its aggregates
//! are exact. It keeps at least the `k` chosen groups, and usually not many
//! more.

use std::collections::HashSet;

use crate::bind::Query;
use crate::block::BlockCtx;
use crate::error::Result;
use crate::exec::{live_blocks, Plan};
use crate::filter::{select, Pred};
use strata_format::Table;

/// At most this many groups are chosen this way (`LIMIT` + `OFFSET`); more
/// would make the value sets as costly as the aggregation they avoid.
pub(crate) const MAX_GROUPS: usize = 1024;

/// For an aggregate query with a LIMIT whose group keys are all stored
/// columns: those columns, and how many groups the LIMIT and OFFSET take
/// (when between 1 and [`MAX_GROUPS`]).
pub(crate) fn limited_column_keys(q: &Query) -> Option<(Vec<usize>, usize)> {
    let (agg, limit) = (q.aggregation.as_ref()?, q.limit?);
    let cols: Vec<usize> = agg.keys.iter().map(|k| k.as_col()).collect::<Option<_>>()?;
    let k = usize::try_from(limit.saturating_add(q.offset)).ok()?;
    (!cols.is_empty() && (1..=MAX_GROUPS).contains(&k)).then_some((cols, k))
}

/// At most this many blocks are read to find the groups.
const MAX_BLOCKS: usize = 4;

/// The extra filter for a query whose answer may be any `LIMIT` groups, or
/// `None` when the query is not of that kind or the first blocks do not
/// hold enough groups (the caller then aggregates everything).
pub fn restriction(plan: &Plan, table: &Table) -> Result<Option<Pred>> {
    let q: &Query = &plan.query;
    if !q.order.is_empty() || q.having.is_some() {
        return Ok(None);
    }
    let Some((cols, k)) = limited_column_keys(q) else {
        return Ok(None);
    };
    let strings: Vec<bool> = cols
        .iter()
        .map(|&c| {
            table
                .schema()
                .fields
                .get(c)
                .is_some_and(|f| f.data_type.is_string())
        })
        .collect();
    // Key tuples: per column, a fixed-width storage key or a string hash.
    let mut chosen: HashSet<Vec<u128>> = HashSet::new();
    for b in live_blocks(plan, table).into_iter().take(MAX_BLOCKS) {
        let ctx = BlockCtx::new(table, b);
        let rows = select(&plan.pred, &ctx)?.rows(ctx.rows);
        // Enough rows for k groups if few repeat; the rest of the block
        // only if needed.
        for span in [
            &rows[..rows.len().min(8 * k)],
            &rows[rows.len().min(8 * k)..],
        ] {
            if span.is_empty() || chosen.len() >= k {
                continue;
            }
            let mut parts: Vec<Vec<Option<u128>>> = Vec::with_capacity(cols.len());
            for &c in &cols {
                let values = ctx.wide_keys(c)?;
                let codes = ctx.codes_at(c, span)?;
                parts.push(
                    codes
                        .iter()
                        .map(|&x| values.get(x as usize).copied())
                        .collect(),
                );
            }
            for i in 0..span.len() {
                if chosen.len() >= k {
                    break;
                }
                // Groups with a NULL key are never chosen: the value sets
                // below do not match NULL.
                if let Some(t) = parts.iter().map(|p| p[i]).collect::<Option<Vec<_>>>() {
                    chosen.insert(t);
                }
            }
        }
        if chosen.len() >= k {
            break;
        }
    }
    if chosen.len() < k {
        return Ok(None);
    }
    let mut filters = Vec::with_capacity(cols.len());
    for (i, &col) in cols.iter().enumerate() {
        let mut values: Vec<u128> = chosen.iter().map(|t| t[i]).collect();
        values.sort_unstable();
        values.dedup();
        filters.push(Pred::value_set(col, strings[i], values));
    }
    Ok(Some(Pred::And(filters)))
}

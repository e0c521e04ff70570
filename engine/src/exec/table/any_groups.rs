//! The `any_groups` restriction (see [`crate::rewrite::any_groups`] for
//! why it is sound): the key values of `k` groups found in the first rows
//! of the first blocks.

use std::collections::HashSet;

use crate::error::Result;
use crate::exec::table::{live_blocks, Plan};
use crate::scan::block::BlockCtx;
use crate::scan::filter::{select, Pred};
use strata_format::Table;

/// At most this many blocks are read to find the groups.
const MAX_BLOCKS: usize = 4;

/// The extra filter for a query whose answer may be any `LIMIT` groups, or
/// `None` when the query is not of that kind or the first blocks do not
/// hold enough groups (the caller then aggregates everything).
pub fn restriction(plan: &Plan, table: &Table) -> Result<Option<Pred>> {
    let q = &plan.query;
    if !q.order.is_empty() || q.having.is_some() {
        return Ok(None);
    }
    let Ok((cols, k)) = crate::rewrite::any_groups::limited_column_keys(q) else {
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

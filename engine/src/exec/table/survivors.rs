//! The `distinct_survivors` restriction (see
//! [`crate::rewrite::distinct_survivors`] for why it is sound): the keys of
//! the groups a first run without the distinct aggregates returns.

use strata_format::{string_hash, Table};

use crate::agg::func::AggCall;
use crate::agg::plan::plan_agg;
use crate::error::Result;
use crate::exec::table::{run_agg, Plan};
use crate::expr::{ExprKind, TExpr};
use crate::scan::filter::Pred;
use crate::value::{storage_key, LType, Value};

/// The extra filter restricting a query with distinct aggregates to the
/// groups its LIMIT returns, or `None` when that does not apply.
pub fn restriction(plan: &Plan, table: &Table) -> Result<Option<Pred>> {
    // The rule `distinct_survivors` checked the shape.
    let q = &plan.query;
    let Some(agg) = &q.aggregation else {
        return Ok(None);
    };
    let Ok((cols, k)) = crate::rewrite::any_groups::limited_column_keys(q) else {
        return Ok(None);
    };
    // The query without its distinct aggregates (COUNT(*) holds their
    // slots), returning the keys of the first `k` groups.
    let mut first = plan.clone();
    let fq = &mut first.query;
    let Some(fa) = fq.aggregation.as_mut() else {
        return Ok(None);
    };
    for a in &mut fa.aggs {
        if a.from_values() {
            *a = AggCall::count_star();
        }
    }
    fq.select = agg
        .keys
        .iter()
        .enumerate()
        .map(|(i, key)| {
            let e = TExpr {
                kind: ExprKind::Ref(i),
                ty: key.ty,
            };
            (format!("k{i}"), e)
        })
        .collect();
    fq.limit = Some(k as u64);
    fq.offset = 0;
    let ap = plan_agg(&fa.keys, &fa.aggs, table)?;
    first.agg = Some(ap.clone());
    let top = run_agg(&first, &ap, table)?;
    if top.num_rows() < k {
        // Every group makes the cut: a restriction would keep them all.
        return Ok(None);
    }
    let mut filters = Vec::with_capacity(cols.len());
    for (col, key) in cols.into_iter().zip(&top.columns) {
        let values: Vec<Value> = (0..key.values.len()).map(|i| key.values.get(i)).collect();
        filters.push(if key.ty == LType::Varchar {
            let mut hashes = Vec::with_capacity(values.len());
            for v in &values {
                match v {
                    Value::Str(s) => hashes.push(string_hash(s)),
                    // A NULL key: the value sets below cannot name it.
                    _ => return Ok(None),
                }
            }
            hashes.sort_unstable();
            hashes.dedup();
            Pred::StrSet {
                col,
                hashes,
                negated: false,
            }
        } else {
            let Some(mut keys) = values
                .iter()
                .map(|v| storage_key(key.ty, v))
                .collect::<Option<Vec<u64>>>()
            else {
                return Ok(None);
            };
            keys.sort_unstable();
            keys.dedup();
            Pred::KeySet {
                col,
                keys,
                negated: false,
            }
        });
    }
    Ok(Some(Pred::And(filters)))
}

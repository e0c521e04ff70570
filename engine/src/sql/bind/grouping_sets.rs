//! `GROUP BY ROLLUP / CUBE / GROUPING SETS` and `grouping()`.
//!
//! The GROUP BY items expand into grouping sets over distinct key
//! expressions ([`expand`]): `ROLLUP (a, b)` is `(a, b), (a), ()`, `CUBE`
//! every subset, several items their cross product (`a, ROLLUP (b)` is
//! `(a, b), (a)`), as in DuckDB (duplicate sets stay). The plan
//! ([`grouping_plan`]) is the UNION ALL of one aggregation per set: each
//! groups the same input by its set's keys and outputs every key slot, the
//! keys it leaves out as NULL, and each `grouping(...)` call as a constant
//! (a bit per argument, set when the set leaves that key out, the first
//! argument most significant). So the output has the columns an Aggregate
//! over all keys would have, and HAVING, ORDER BY and the select list bind
//! to it unchanged; every branch can run in the table engine. An input that
//! is more than a table scan is computed once, as a shared CTE.

use sqlparser::ast::Expr as SqlExpr;

use crate::agg::func::{AggCall, AggFunc};
use crate::error::{invalid, unsupported, Result};
use crate::expr::{ExprKind, TExpr};
use crate::plan::{Column, LogicalPlan, SetOpKind};
use crate::value::{LType, Value};

/// The most grouping sets a query may ask for.
pub const MAX_SETS: usize = 4096;

/// GROUP BY items expanded: the distinct plain key expressions in order of
/// first appearance, and the grouping sets as indices into them (`None`
/// for a plain GROUP BY).
pub(crate) type Expanded<'e> = (Vec<&'e SqlExpr>, Option<Vec<Vec<usize>>>);

/// Expands GROUP BY items (see the module docs).
pub(crate) fn expand(items: &[SqlExpr]) -> Result<Expanded<'_>> {
    let special = |e: &SqlExpr| {
        matches!(
            e,
            SqlExpr::Rollup(_) | SqlExpr::Cube(_) | SqlExpr::GroupingSets(_)
        )
    };
    if !items.iter().any(special) {
        return Ok((items.iter().collect(), None));
    }
    let mut sets: Vec<Vec<&SqlExpr>> = vec![Vec::new()];
    for item in items {
        let mine = item_sets(item)?;
        let mut next = Vec::with_capacity(sets.len() * mine.len());
        for s in &sets {
            for m in &mine {
                let mut x = s.clone();
                x.extend(m.iter().copied());
                next.push(x);
            }
        }
        if next.len() > MAX_SETS {
            return unsupported(format!("more than {MAX_SETS} grouping sets"));
        }
        sets = next;
    }
    let mut flat: Vec<&SqlExpr> = Vec::new();
    let mut out = Vec::with_capacity(sets.len());
    for s in sets {
        let mut idx: Vec<usize> = Vec::new();
        for e in s {
            let i = match flat.iter().position(|f| *f == e) {
                Some(i) => i,
                None => {
                    flat.push(e);
                    flat.len() - 1
                }
            };
            if !idx.contains(&i) {
                idx.push(i);
            }
        }
        out.push(idx);
    }
    Ok((flat, Some(out)))
}

/// The grouping sets one GROUP BY item stands for.
fn item_sets(e: &SqlExpr) -> Result<Vec<Vec<&SqlExpr>>> {
    Ok(match e {
        SqlExpr::Rollup(lists) => {
            let mut out = Vec::with_capacity(lists.len() + 1);
            for n in (0..=lists.len()).rev() {
                out.push(lists[..n].iter().flatten().collect());
            }
            out
        }
        SqlExpr::Cube(lists) => {
            if lists.len() > 12 {
                return unsupported("CUBE of more than 12 items");
            }
            (0..1u32 << lists.len())
                .rev()
                .map(|mask| {
                    lists
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| mask >> (lists.len() - 1 - i) & 1 == 1)
                        .flat_map(|(_, l)| l.iter())
                        .collect()
                })
                .collect()
        }
        SqlExpr::GroupingSets(lists) => {
            let mut out = Vec::new();
            for l in lists {
                // A set's items may themselves be ROLLUP or CUBE.
                let mut sets: Vec<Vec<&SqlExpr>> = vec![Vec::new()];
                for x in l {
                    let mine = item_sets(x)?;
                    sets = sets
                        .iter()
                        .flat_map(|s| {
                            mine.iter().map(move |m| {
                                let mut y = s.clone();
                                y.extend(m.iter().copied());
                                y
                            })
                        })
                        .collect();
                }
                out.extend(sets);
                if out.len() > MAX_SETS {
                    return unsupported(format!("more than {MAX_SETS} grouping sets"));
                }
            }
            out
        }
        SqlExpr::Nested(inner) if matches!(**inner, SqlExpr::Tuple(_)) => item_sets(inner)?,
        SqlExpr::Tuple(items) => vec![items.iter().collect()],
        other => vec![vec![other]],
    })
}

/// The grouping of `input` by `keys` over `sets` (indices into `keys`;
/// `None`: one set of all keys), with `aggs` (which may call `grouping`),
/// as one Aggregate or the UNION ALL of one per set (see the module docs).
/// `columns` are the output columns: keys, then aggregates. `share`
/// registers a plan as a CTE and returns its reference.
pub(crate) fn grouping_plan(
    input: LogicalPlan,
    keys: Vec<TExpr>,
    aggs: Vec<AggCall>,
    columns: Vec<Column>,
    sets: Option<Vec<Vec<usize>>>,
    share: &dyn Fn(LogicalPlan) -> LogicalPlan,
) -> Result<LogicalPlan> {
    let has_grouping = aggs.iter().any(|a| a.func == AggFunc::Grouping);
    let Some(sets) = sets.or_else(|| has_grouping.then(|| vec![(0..keys.len()).collect()])) else {
        return Ok(LogicalPlan::Aggregate {
            input: input.boxed(),
            keys,
            aggs,
            columns,
        });
    };
    // Each grouping() argument's key.
    let mut tested: Vec<Vec<usize>> = Vec::with_capacity(aggs.len());
    for a in &aggs {
        let mut t = Vec::new();
        if a.func == AggFunc::Grouping {
            for x in &a.args {
                match keys.iter().position(|k| k == x) {
                    Some(k) => t.push(k),
                    None => {
                        return invalid(format!("GROUPING child \"{x}\" must be a grouping column"))
                    }
                }
            }
            if t.len() > 63 {
                return unsupported("grouping() of more than 63 keys");
            }
        }
        tested.push(t);
    }
    let real: Vec<AggCall> = aggs
        .iter()
        .filter(|a| a.func != AggFunc::Grouping)
        .cloned()
        .collect();
    let nk = keys.len();
    let input = if sets.len() > 1 && !is_scan(&input) {
        share(input)
    } else {
        input
    };
    let mut branches = Vec::with_capacity(sets.len());
    for set in &sets {
        let mut in_set: Vec<usize> = set.clone();
        in_set.sort_unstable();
        in_set.dedup();
        let set_keys: Vec<TExpr> = in_set.iter().map(|&k| keys[k].clone()).collect();
        let mut cols: Vec<Column> = in_set.iter().map(|&k| columns[k].clone()).collect();
        cols.extend(
            aggs.iter()
                .zip(&columns[nk..])
                .filter(|(a, _)| a.func != AggFunc::Grouping)
                .map(|(_, c)| c.clone()),
        );
        let agg = LogicalPlan::Aggregate {
            input: input.clone().boxed(),
            keys: set_keys,
            aggs: real.clone(),
            columns: cols,
        };
        let mut exprs: Vec<TExpr> = Vec::with_capacity(columns.len());
        for (k, key) in keys.iter().enumerate() {
            exprs.push(match in_set.iter().position(|&x| x == k) {
                Some(p) => col(p, key.ty),
                None => TExpr::lit(Value::Null, key.ty),
            });
        }
        let mut next_real = in_set.len();
        for (a, t) in aggs.iter().zip(&tested) {
            if a.func == AggFunc::Grouping {
                let bits = t
                    .iter()
                    .fold(0i64, |acc, k| (acc << 1) | i64::from(!in_set.contains(k)));
                exprs.push(TExpr::lit(Value::Int(bits), LType::Int64));
            } else {
                exprs.push(col(next_real, a.ty));
                next_real += 1;
            }
        }
        branches.push(LogicalPlan::Project {
            input: agg.boxed(),
            exprs,
            columns: columns.clone(),
        });
    }
    let mut it = branches.into_iter();
    let Some(mut plan) = it.next() else {
        return invalid("GROUP BY without grouping sets");
    };
    for b in it {
        plan = LogicalPlan::SetOp {
            kind: SetOpKind::Union,
            all: true,
            left: plan.boxed(),
            right: b.boxed(),
            columns: columns.clone(),
        };
    }
    Ok(plan)
}

fn col(i: usize, ty: LType) -> TExpr {
    TExpr {
        kind: ExprKind::Col(i),
        ty,
    }
}

/// Whether a plan only scans a table (cheap to run once per set, and each
/// set's aggregation then runs in the table engine).
fn is_scan(p: &LogicalPlan) -> bool {
    match p {
        LogicalPlan::TableQuery(_) => true,
        LogicalPlan::Filter { input, .. } | LogicalPlan::Project { input, .. } => is_scan(input),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::ast as sql;

    /// The sets of `GROUP BY <group_by>` as lists of key texts.
    fn sets_of(group_by: &str) -> Option<Vec<Vec<String>>> {
        let q =
            crate::sql::parse::parse_query(&format!("SELECT 1 FROM t GROUP BY {group_by}")).ok()?;
        let sql::SetExpr::Select(sel) = *q.body else {
            return None;
        };
        let sql::GroupByExpr::Expressions(items, _) = &sel.group_by else {
            return None;
        };
        let (flat, sets) = expand(items).ok()?;
        let sets = sets.unwrap_or_else(|| vec![(0..flat.len()).collect()]);
        Some(
            sets.into_iter()
                .map(|s| s.into_iter().map(|i| flat[i].to_string()).collect())
                .collect(),
        )
    }

    fn v(sets: &[&[&str]]) -> Option<Vec<Vec<String>>> {
        Some(
            sets.iter()
                .map(|s| s.iter().map(|x| x.to_string()).collect())
                .collect(),
        )
    }

    #[test]
    fn expands_as_duckdb() {
        assert_eq!(sets_of("ROLLUP (a, b)"), v(&[&["a", "b"], &["a"], &[]]));
        assert_eq!(
            sets_of("CUBE (a, b)"),
            v(&[&["a", "b"], &["a"], &["b"], &[]])
        );
        assert_eq!(sets_of("a, ROLLUP (b)"), v(&[&["a", "b"], &["a"]]));
        assert_eq!(
            sets_of("GROUPING SETS ((a), (b, c), ())"),
            v(&[&["a"], &["b", "c"], &[]])
        );
        assert_eq!(sets_of("ROLLUP ((a, b))"), v(&[&["a", "b"], &[]]));
        assert_eq!(sets_of("GROUPING SETS (a, a)"), v(&[&["a"], &["a"]]));
        assert_eq!(sets_of("a, b"), v(&[&["a", "b"]]));
    }
}

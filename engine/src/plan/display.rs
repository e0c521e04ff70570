//! How plans print: a one-line label per node (the rule log, EXPLAIN's
//! tree) and a table query's parts with column names.

use crate::expr::TExpr;
use crate::plan::{LogicalPlan, OrderKey, TableQuery};

/// An expression with `#i` (column `i`) and `@i` (slot `i`) spelled by
/// name.
pub fn show(e: &TExpr, col: &dyn Fn(usize) -> String, slot: &dyn Fn(usize) -> String) -> String {
    let text = e.to_string();
    let mut out = String::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    let bytes = text.as_bytes();
    while let Some((i, c)) = chars.next() {
        if (c == '#' || c == '@') && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
            let mut j = i + 1;
            while bytes.get(j).is_some_and(u8::is_ascii_digit) {
                j += 1;
            }
            let n: usize = text[i + 1..j].parse().unwrap_or(usize::MAX);
            out.push_str(&if c == '#' { col(n) } else { slot(n) });
            while chars.peek().is_some_and(|&(k, _)| k < j) {
                chars.next();
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// ORDER BY keys as SQL, expressions shown by `f`.
pub fn keys(keys: &[OrderKey], f: &dyn Fn(&TExpr) -> String) -> String {
    keys.iter()
        .map(|k| {
            format!(
                "{}{}{}",
                f(&k.expr),
                if k.desc { " DESC" } else { "" },
                if k.nulls_first { " NULLS FIRST" } else { "" }
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A node's parts with its input's columns named (EXPLAIN).
pub fn details(p: &LogicalPlan) -> String {
    let inputs = p.inputs();
    let cols = inputs.first().map(|i| i.columns()).unwrap_or_default();
    let col = |i: usize| {
        cols.get(i)
            .map_or_else(|| format!("#{i}"), |c| c.name.clone())
    };
    let s = |e: &TExpr| show(e, &col, &|n| format!("@{n}"));
    let list = |v: &[TExpr]| v.iter().map(s).collect::<Vec<_>>().join(", ");
    match p {
        LogicalPlan::TableQuery(_) => String::new(),
        LogicalPlan::Filter { predicate, .. } => s(predicate),
        LogicalPlan::Project { exprs, columns, .. } => exprs
            .iter()
            .zip(columns)
            .map(|(e, c)| {
                let v = s(e);
                if v == c.name {
                    v
                } else {
                    format!("{v} AS {}", c.name)
                }
            })
            .collect::<Vec<_>>()
            .join(", "),
        LogicalPlan::Aggregate { keys, aggs, .. } => {
            let aggs: Vec<String> = aggs.iter().map(|a| a.show(&s)).collect();
            format!("group by [{}] aggregates [{}]", list(keys), aggs.join(", "))
        }
        LogicalPlan::Distinct { .. } => "all columns".into(),
        LogicalPlan::DistinctOn { on, order, .. } => {
            format!("on ({}) first by {}", list(on), self::keys(order, &s))
        }
        LogicalPlan::Sort { keys: k, .. } => self::keys(k, &s),
        LogicalPlan::Limit { limit, offset, .. } => match limit {
            Some(l) => format!("{l} offset {offset}"),
            None => format!("offset {offset}"),
        },
        LogicalPlan::SetOp { kind, all, .. } => {
            format!("{}{}", kind.keyword(), if *all { " ALL" } else { "" })
        }
        LogicalPlan::Values { rows, .. } => format!("{} rows", rows.len()),
        LogicalPlan::Partials { rows, .. } => {
            format!("{} rows of {} partial results", rows.rows, rows.parts)
        }
        LogicalPlan::Join {
            left,
            right,
            keys,
            filter,
            ..
        } => {
            let (lc, rc) = (left.columns(), right.columns());
            let ln = |i: usize| {
                lc.get(i)
                    .map_or_else(|| format!("#{i}"), |c| c.name.clone())
            };
            let rn = |i: usize| {
                rc.get(i)
                    .map_or_else(|| format!("#{i}"), |c| c.name.clone())
            };
            let both = |i: usize| {
                if i < lc.len() {
                    ln(i)
                } else {
                    rn(i - lc.len())
                }
            };
            let slot = |n: usize| format!("@{n}");
            let mut parts: Vec<String> = keys
                .iter()
                .map(|(a, b)| format!("{} = {}", show(a, &ln, &slot), show(b, &rn, &slot)))
                .collect();
            if let Some(f) = filter {
                parts.push(show(f, &both, &slot));
            }
            if parts.is_empty() {
                "every pair".into()
            } else {
                parts.join(" AND ")
            }
        }
        LogicalPlan::Window { calls, .. } => calls
            .iter()
            .map(|c| c.show(&s))
            .collect::<Vec<_>>()
            .join(", "),
        LogicalPlan::CteRef { name, .. } => name.clone(),
    }
}

/// A node's one-line label (the rule log).
pub fn label(p: &LogicalPlan) -> String {
    match p {
        LogicalPlan::TableQuery(t) => format!("TableQuery {}", t.name),
        _ => {
            let d = details(p);
            if d.is_empty() {
                p.kind().to_string()
            } else {
                format!("{} {d}", p.kind())
            }
        }
    }
}

/// A table query's parts, one per line, with its columns and slots named.
pub fn table_query_lines(t: &TableQuery) -> Vec<String> {
    let fields = &t.table.schema().fields;
    let col = |i: usize| {
        fields
            .get(i)
            .map_or_else(|| format!("#{i}"), |f| f.name.clone())
    };
    let agg = t.aggregation.as_ref();
    let slot = |i: usize| match agg {
        Some(a) if i < a.keys.len() => show(&a.keys[i], &col, &|n| format!("@{n}")),
        Some(a) => a
            .aggs
            .get(i - a.keys.len())
            .map_or_else(|| format!("@{i}"), |c| show_call(c, &col)),
        None => format!("@{i}"),
    };
    let s = |e: &TExpr| show(e, &col, &slot);
    let mut out = Vec::new();
    if let Some(f) = &t.filter {
        out.push(format!("where: {}", s(f)));
    }
    if let Some(a) = agg {
        if !a.keys.is_empty() {
            out.push(format!(
                "group by: {}",
                a.keys.iter().map(s).collect::<Vec<_>>().join(", ")
            ));
        }
        if !a.aggs.is_empty() {
            out.push(format!(
                "aggregates: {}",
                a.aggs
                    .iter()
                    .map(|c| show_call(c, &col))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    if let Some(h) = &t.having {
        out.push(format!("having: {}", s(h)));
    }
    if !t.order.is_empty() {
        out.push(format!("order by: {}", keys(&t.order, &s)));
    }
    if t.limit.is_some() || t.offset > 0 {
        out.push(match t.limit {
            Some(l) => format!("limit: {l} offset {}", t.offset),
            None => format!("offset: {}", t.offset),
        });
    }
    out.push(format!(
        "select: {}",
        t.select
            .iter()
            .map(|(n, e)| {
                let v = s(e);
                if v == *n {
                    v
                } else {
                    format!("{v} AS {n}")
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let names = t.strategies.names();
    out.push(format!(
        "strategies: {}",
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    ));
    out
}

fn show_call(c: &crate::agg::func::AggCall, col: &dyn Fn(usize) -> String) -> String {
    c.show(&|a| show(a, col, &|n| format!("@{n}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{CmpOp, ExprKind};
    use crate::value::{LType, Value};

    #[test]
    fn names_columns_and_slots() {
        let e = TExpr {
            kind: ExprKind::Cmp(
                CmpOp::Eq,
                Box::new(TExpr {
                    kind: ExprKind::Col(12),
                    ty: LType::Int32,
                }),
                Box::new(TExpr::lit(Value::Int(3), LType::Int32)),
            ),
            ty: LType::Bool,
        };
        assert_eq!(
            show(&e, &|i| format!("c{i}"), &|i| format!("s{i}")),
            "(c12 = 3)"
        );
    }
}

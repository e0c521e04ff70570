//! EXPLAIN: the plan and, per block, what the statistics allow and which
//! strategy the block will use.

use std::fmt::Write;

use strata_format::Table;

use crate::exec::{KeySource, Plan};
use crate::filter::may_match;

/// Describes a plan over a table.
pub fn explain(plan: &Plan, table: &Table) -> String {
    let mut s = String::new();
    let q = &plan.query;
    let name = |c: usize| table.schema().fields[c].name.clone();
    let _ = writeln!(
        s,
        "table {} ({} rows in {} blocks)",
        q.table,
        table.num_rows(),
        table.num_blocks()
    );
    let _ = writeln!(s, "filter: {}", plan.pred);
    if let Some(a) = &plan.agg {
        let spec = &a.passes[0];
        let _ = writeln!(
            s,
            "aggregate: {} pass(es), sorted-vector merge",
            a.passes.len()
        );
        for (i, k) in a.keys.iter().enumerate() {
            match k {
                KeySource::Part(p) => {
                    let _ = writeln!(
                        s,
                        "  key {i}: part {p} ({:?}) {}",
                        spec.parts[*p].kind, spec.parts[*p].expr
                    );
                }
                KeySource::Dependent(e) => {
                    let _ = writeln!(s, "  key {i}: computed per group from other keys: {e}");
                }
            }
        }
        for sl in &spec.layout.slots {
            let arg = sl
                .call
                .arg
                .as_ref()
                .map_or("*".to_string(), |e| e.to_string());
            let _ = writeln!(
                s,
                "  aggregate {:?}{}({arg}) -> {}",
                sl.call.func,
                if sl.call.distinct { " DISTINCT" } else { "" },
                sl.call.ty
            );
        }
        if let Some(h) = &q.having {
            let _ = writeln!(s, "having: {h}");
        }
    } else {
        let _ = writeln!(s, "rows: {} output columns", q.select.len());
    }
    for o in &q.order {
        let _ = writeln!(
            s,
            "order by {} {}{}",
            o.expr,
            if o.desc { "DESC" } else { "ASC" },
            if o.nulls_first { " NULLS FIRST" } else { "" }
        );
    }
    if q.limit.is_some() || q.offset > 0 {
        let _ = writeln!(s, "limit {:?} offset {}", q.limit, q.offset);
    }
    for b in 0..table.num_blocks() {
        if !may_match(&plan.pred, table, b) {
            let _ = writeln!(s, "block {b}: pruned by statistics");
            continue;
        }
        let strategy = match &plan.agg {
            Some(a) => a.passes[0].strategy(table, b),
            None => "rows".into(),
        };
        let _ = writeln!(s, "block {b}: {} rows, {strategy}", table.block_rows(b));
    }
    let _ = name;
    s
}

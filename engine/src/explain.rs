//! EXPLAIN: the plan as a tree of operators, each with its physical
//! strategy and estimated rows (upper bounds from the tables' exact
//! statistics); each table query's parts, strategies and blocks; and every
//! rule that fired or declined. `EXPLAIN ANALYZE` adds each operator's
//! actual rows and time.

use std::fmt::Write;
use std::time::Duration;

use crate::exec::planner::PhysicalQuery;
use crate::exec::{OpMetrics, Operator};
use crate::plan::display::{details, table_query_lines};
use crate::plan::stats::{max_rows, pruned_blocks};
use crate::plan::{LogicalPlan, Query, TableQuery};
use crate::result::{QueryResult, ResultColumn};
use crate::rewrite::RuleLog;
use crate::value::{LType, Value, Vector};

/// The EXPLAIN text of a compiled query; `metrics` (EXPLAIN ANALYZE) are
/// each operator's rows and time, and the whole query's time.
pub fn explain(
    query: &Query,
    physical: &PhysicalQuery,
    log: &RuleLog,
    metrics: Option<&(Vec<OpMetrics>, Duration)>,
) -> String {
    let mut out = String::new();
    let m = metrics.map(|(m, _)| m.as_slice());
    tree(&mut out, &query.root, physical.root.as_ref(), query, m, 0);
    for (c, op) in query.ctes.iter().zip(&physical.ctes) {
        if !referenced(query, c.id) {
            continue;
        }
        let _ = writeln!(out, "CTE {}:", c.name);
        tree(&mut out, &c.plan, op.as_ref(), query, m, 1);
    }
    let _ = writeln!(out, "Rules:");
    for e in &log.entries {
        match &e.rejected {
            None => {
                let _ = writeln!(out, "  fired    {} at {}", e.rule, e.node);
            }
            Some(why) => {
                let _ = writeln!(out, "  declined {} at {}: {why}", e.rule, e.node);
            }
        }
    }
    if !log.disabled.is_empty() {
        let _ = writeln!(out, "  switched off: {}", log.disabled.join(", "));
    }
    if let Some((_, total)) = metrics {
        let _ = writeln!(out, "Total: {}", ms(*total));
    }
    out
}

/// Appends to `out` the decoding the query caused (EXPLAIN ANALYZE): per
/// kind of section, how often, how many bytes it produced and the time
/// summed over threads. A fresh process decodes what a warm one finds in
/// its cache; nothing is listed when nothing was decoded.
pub fn decoded_lines(out: &mut String, work: &[strata_format::decode_stats::WorkTotals]) {
    if work.is_empty() {
        return;
    }
    let _ = writeln!(out, "Decoded (process-wide, time summed over threads):");
    for w in work {
        let _ = writeln!(
            out,
            "  {:<20} {:>6} x {:>10.1} KiB  {}",
            w.work.name(),
            w.calls,
            w.bytes as f64 / 1024.0,
            ms(Duration::from_nanos(w.nanos))
        );
    }
}

/// A text as a one-column result, a row per line.
pub fn as_result(text: &str) -> QueryResult {
    let mut v = Vector::empty(LType::Varchar, 0);
    for line in text.lines() {
        v.push(&Value::Str(line.as_bytes().to_vec()));
    }
    QueryResult {
        columns: vec![ResultColumn {
            name: "explain".into(),
            ty: LType::Varchar,
            values: v,
        }],
    }
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

fn referenced(q: &Query, id: usize) -> bool {
    let mut found = false;
    let mut look = |p: &LogicalPlan| {
        crate::rewrite::visit(p, &mut |n| {
            found |= matches!(n, LogicalPlan::CteRef { id: i, .. } if *i == id);
        })
    };
    look(&q.root);
    for c in &q.ctes {
        look(&c.plan);
    }
    found
}

#[recursive::recursive]
fn tree(
    out: &mut String,
    p: &LogicalPlan,
    op: &dyn Operator,
    q: &Query,
    metrics: Option<&[OpMetrics]>,
    depth: usize,
) {
    let pad = "  ".repeat(depth);
    let est = max_rows(p, q);
    let est = if est == u64::MAX {
        String::new()
    } else {
        format!("  [rows <= {est}]")
    };
    let actual = match metrics.and_then(|m| m.get(op.id())) {
        Some(m) => format!("  (actual rows {}, {})", m.rows, ms(m.time)),
        None => String::new(),
    };
    let details = details(p);
    let sep = if details.is_empty() { "" } else { ": " };
    let _ = writeln!(out, "{pad}{}{sep}{details}{est}{actual}", op.describe());
    if let LogicalPlan::TableQuery(t) = p {
        for line in table_query_lines(t) {
            let _ = writeln!(out, "{pad}    {line}");
        }
        let _ = writeln!(out, "{pad}    {}", blocks_line(t));
    }
    for n in op.notes() {
        let _ = writeln!(out, "{pad}    {n}");
    }
    for (child, cop) in p.inputs().into_iter().zip(op.children()) {
        tree(out, child, cop, q, metrics, depth + 1);
    }
}

/// Blocks read and pruned, and the grouping each block would use.
fn blocks_line(t: &TableQuery) -> String {
    let table = &t.table;
    let n = table.num_blocks();
    let pruned = if t.strategies.block_pruning {
        pruned_blocks(t)
    } else {
        0
    };
    let part = match table.subset() {
        Some((ids, whole)) => format!("; blocks {} of the table's {whole}", ranges(ids)),
        None => String::new(),
    };
    format!(
        "blocks: {} of {n} to read ({pruned} pruned by statistics), {} rows{part}",
        n - pruned,
        table.num_rows()
    )
}

/// Block numbers as ranges: `0-3, 7, 9-10`.
fn ranges(ids: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < ids.len() {
        let mut j = i;
        while j + 1 < ids.len() && ids[j + 1] == ids[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            ids[i].to_string()
        } else {
            format!("{}-{}", ids[i], ids[j])
        });
        i = j + 1;
    }
    out.join(", ")
}

//! The leaf operator: a [`TableQuery`] answered by the table engine
//! ([`crate::exec::table`]) straight from the table's blocks.

use super::{Batch, ExecCtx, Operator};
use crate::error::Result;
use crate::exec::table;
use crate::expr::{conjunction, conjuncts, TExpr};
use crate::plan::TableQuery;
use crate::value::LType;

use super::runtime_filter::RuntimeFilter;
use std::sync::Arc;

/// Runs a table query.
#[derive(Debug)]
pub struct TableScan {
    /// Its number in the tree.
    pub id: usize,
    /// The prepared query.
    pub plan: table::Plan,
    /// Key values a join hands over before this scan runs, and the table
    /// column they filter (see [`runtime_filter`](super::runtime_filter)).
    pub runtime: Vec<(usize, Arc<RuntimeFilter>)>,
}

impl TableScan {
    /// The operator for `query`.
    pub fn new(id: usize, query: TableQuery) -> Result<TableScan> {
        let t = query.table.clone();
        Ok(TableScan {
            id,
            plan: table::plan(query, &t)?,
            runtime: Vec::new(),
        })
    }

    /// The plan with the runtime filters' conditions added, those set.
    fn filtered_plan(&self) -> Result<Option<table::Plan>> {
        let q = &self.plan.query;
        let preds: Vec<TExpr> = self
            .runtime
            .iter()
            .filter_map(|(col, f)| {
                let ty = LType::from_storage(q.table.schema().fields[*col].data_type);
                f.predicate(*col, ty)
            })
            .collect();
        if preds.is_empty() {
            return Ok(None);
        }
        let mut q = q.clone();
        let mut all = q.filter.take().map(conjuncts).unwrap_or_default();
        all.extend(preds);
        q.filter = conjunction(all);
        let t = q.table.clone();
        table::plan(q, &t).map(Some)
    }
}

impl Operator for TableScan {
    fn describe(&self) -> String {
        let q = &self.plan.query;
        let mut s = format!("TableScan (sorted-vector engine on {}", q.name);
        if let Some(a) = &self.plan.agg {
            s.push_str(&format!(
                ", {} aggregation pass{}",
                a.passes.len(),
                if a.passes.len() == 1 { "" } else { "es" }
            ));
        }
        s.push(')');
        s
    }

    fn notes(&self) -> Vec<String> {
        let runtime = self.runtime.iter().map(|(col, _)| {
            let name = &self.plan.query.table.schema().fields[*col].name;
            format!("semi-join reduction: {name} IN the join's other input's keys")
        });
        let Some(a) = &self.plan.agg else {
            return runtime.into_iter().collect();
        };
        let table = &self.plan.query.table;
        // Each block's grouping, with how many blocks use it.
        let mut seen: Vec<(String, usize)> = Vec::new();
        for b in 0..table.num_blocks() {
            let s = a.passes[0].strategy(table, b);
            match seen.iter_mut().find(|(x, _)| *x == s) {
                Some((_, n)) => *n += 1,
                None => seen.push((s, 1)),
            }
        }
        let mut notes: Vec<String> = seen
            .into_iter()
            .map(|(s, n)| format!("grouping: {s} ({n} block{})", if n == 1 { "" } else { "s" }))
            .collect();
        // The calls computed from each group's distinct argument values.
        let name = |i: usize| {
            table
                .schema()
                .fields
                .get(i)
                .map_or_else(|| format!("#{i}"), |f| f.name.clone())
        };
        let show =
            |e: &crate::expr::TExpr| crate::plan::display::show(e, &name, &|n| format!("@{n}"));
        for (spec, arg) in a.passes.iter().zip(&a.distinct_args) {
            let Some(arg) = arg else { continue };
            let calls: Vec<String> = spec
                .layout
                .slots
                .iter()
                .filter(|s| s.call.from_values() && s.call.arg() == Some(arg))
                .map(|s| s.call.show(&show))
                .collect();
            notes.push(format!(
                "from each group's distinct values of {} in order, with counts: {}",
                show(arg),
                calls.join(", ")
            ));
        }
        notes.extend(runtime);
        notes
    }

    fn children(&self) -> Vec<&dyn Operator> {
        Vec::new()
    }

    fn id(&self) -> usize {
        self.id
    }

    fn execute(&self, ctx: &ExecCtx) -> Result<Batch> {
        // `LIMIT 0` reads nothing (so nothing below can fail).
        if self.plan.query.limit == Some(0) {
            let types: Vec<LType> = self.plan.query.columns().iter().map(|c| c.ty).collect();
            return Ok(Batch::empty(&types));
        }
        let mut plan = match self.filtered_plan()? {
            Some(p) => p,
            None => self.plan.clone(),
        };
        plan.watch = ctx.watch.clone();
        plan.budget = ctx.budget.clone();
        let table = plan.query.table.clone();
        let r = table::run(&plan, &table)?;
        let rows = r.num_rows();
        Ok(Batch::new(
            r.columns.into_iter().map(|c| c.values).collect(),
            rows,
        ))
    }
}

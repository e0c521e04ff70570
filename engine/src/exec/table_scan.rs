//! The leaf operator: a [`TableQuery`] answered by the table engine
//! ([`crate::exec::table`]) straight from the table's blocks.

use super::{Batch, ExecCtx, Operator};
use crate::error::Result;
use crate::exec::table;
use crate::plan::TableQuery;
use crate::value::LType;

/// Runs a table query.
#[derive(Debug)]
pub struct TableScan {
    /// Its number in the tree.
    pub id: usize,
    /// The prepared query.
    pub plan: table::Plan,
}

impl TableScan {
    /// The operator for `query`.
    pub fn new(id: usize, query: TableQuery) -> Result<TableScan> {
        let t = query.table.clone();
        Ok(TableScan {
            id,
            plan: table::plan(query, &t)?,
        })
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
        let Some(a) = &self.plan.agg else {
            return Vec::new();
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
        seen.into_iter()
            .map(|(s, n)| format!("grouping: {s} ({n} block{})", if n == 1 { "" } else { "s" }))
            .collect()
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
        let mut plan = self.plan.clone();
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

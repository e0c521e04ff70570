//! Execution: a tree of physical operators, built from the optimized plan
//! in one place ([`planner`]), each producing a columnar [`Batch`].
//!
//! The leaf is the table engine ([`table`], run by [`table_scan`]): the sorted-vector engine
//! answering a [`crate::plan::TableQuery`] straight from the mapped blocks.
//! The other operators work on the batches their inputs produce: [`filter`],
//! [`project`], [`aggregate`] (hash aggregation), [`distinct`], [`sort`],
//! [`limit`], [`set_op`], [`values`], [`window`] (window functions), [`cte`] (a
//! CTE's rows, computed once per query) and [`partials`] (the partial results of a split
//! query).
//!
//! Batches hold the engine's own [`Vector`]s: they carry DuckDB's types
//! (DECIMAL's width and scale, HUGEINT) that every expression evaluates
//! over; results become Arrow arrays only at the library's edge (the
//! `strata` crate's `arrow` feature).

pub mod aggregate;
pub mod batch;
pub mod cte;
pub mod distinct;
pub mod filter;
pub mod join;
pub mod limit;
pub mod partials;
pub mod planner;
pub mod project;
pub mod runtime_filter;
pub mod set_op;
pub mod sort;
pub mod table;
pub mod table_scan;
pub mod values;
pub mod window;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::budget::Budget;
use crate::error::Result;
use crate::interrupt::Watch;

pub use batch::Batch;

/// A physical operator.
pub trait Operator: Send + Sync + std::fmt::Debug {
    /// Its name and strategy, as EXPLAIN shows it.
    fn describe(&self) -> String;
    /// Its inputs.
    fn children(&self) -> Vec<&dyn Operator>;
    /// Its number in the tree (for EXPLAIN ANALYZE).
    fn id(&self) -> usize;
    /// Computes its rows.
    fn execute(&self, ctx: &ExecCtx) -> Result<Batch>;
    /// More about how it runs, a line each (EXPLAIN).
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
}

/// A CTE's rows, once computed.
pub type CteRows = Mutex<Option<Arc<Batch>>>;

/// What one operator did (EXPLAIN ANALYZE).
#[derive(Debug, Clone, Copy, Default)]
pub struct OpMetrics {
    /// Rows produced.
    pub rows: u64,
    /// Time spent, its inputs included.
    pub time: Duration,
}

/// The state of one running query, shared by its operators.
#[derive(Debug)]
pub struct ExecCtx {
    /// Checked at every block: whether the query was interrupted.
    pub watch: Watch,
    /// The memory the query may hold.
    pub budget: Budget,
    /// The CTEs' operators by id, and their rows once computed.
    pub ctes: Vec<(Arc<dyn Operator>, CteRows)>,
    /// Per operator id, what it did.
    pub metrics: Mutex<Vec<OpMetrics>>,
}

impl ExecCtx {
    /// A context for a query of `operators` operators and the given CTEs.
    pub fn new(
        watch: Watch,
        budget: Budget,
        operators: usize,
        ctes: Vec<Arc<dyn Operator>>,
    ) -> ExecCtx {
        ExecCtx {
            watch,
            budget,
            ctes: ctes.into_iter().map(|c| (c, Mutex::new(None))).collect(),
            metrics: Mutex::new(vec![OpMetrics::default(); operators]),
        }
    }

    /// Runs `op`, recording its rows and time, and charging its output to
    /// the memory budget.
    pub fn run(&self, op: &dyn Operator) -> Result<Batch> {
        self.watch.check()?;
        let start = Instant::now();
        let mut out = op.execute(self)?;
        let held = self.budget.hold(out.bytes(), "intermediate rows")?;
        out.held = Some(held);
        if let Ok(mut m) = self.metrics.lock() {
            if let Some(slot) = m.get_mut(op.id()) {
                slot.rows += out.rows as u64;
                slot.time += start.elapsed();
            }
        }
        Ok(out)
    }

    /// The metrics recorded so far.
    pub fn metrics(&self) -> Vec<OpMetrics> {
        self.metrics.lock().map(|m| m.clone()).unwrap_or_default()
    }
}

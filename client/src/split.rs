//! Queries split across processes: each task answers the query over some
//! blocks of the query's largest table ([`Database::partial`]), the
//! partial results travel as Arrow IPC ([`Partial::to_ipc`], feature
//! `arrow`), and one process merges them into the answer
//! ([`Database::merge`]). The engine's plan transformation behind it is
//! described in `strata_engine::plan::split`.
//!
//! ```no_run
//! # fn main() -> Result<(), strata::Error> {
//! let db = strata::Database::open("data")?;
//! let sql = "SELECT RegionID, count(*) AS c FROM hits GROUP BY RegionID ORDER BY c DESC LIMIT 5";
//! let split = db.split(sql)?;
//! let blocks: Vec<usize> = (0..split.num_blocks()).collect();
//! // Each half could run in another process, or on another machine.
//! let parts = blocks
//!     .chunks(blocks.len().div_ceil(2).max(1))
//!     .map(|b| split.partial(b))
//!     .collect::<Result<Vec<_>, _>>()?;
//! let answer = split.merge(&parts)?;
//! # let _ = answer;
//! # Ok(())
//! # }
//! ```

use std::sync::Arc;

use strata_engine::{Engine, Value, Vector};

use crate::error::Result;
use crate::result::QueryResult;

/// One task's partial result of a split query: columns the final merge
/// (or a combine) reads. Cheap to move between threads; between processes
/// through [`Partial::to_ipc`] and [`Partial::from_ipc`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Partial {
    inner: strata_engine::QueryResult,
}

impl Partial {
    /// Number of rows (groups for an aggregation).
    pub fn num_rows(&self) -> usize {
        self.inner.num_rows()
    }

    /// The partial result as a query result (its columns are the states,
    /// not the query's answer).
    pub fn as_result(&self) -> QueryResult {
        QueryResult::new(self.inner.clone())
    }

    pub(crate) fn from_engine(inner: strata_engine::QueryResult) -> Partial {
        Partial { inner }
    }

    #[cfg(feature = "arrow")]
    pub(crate) fn engine(&self) -> &strata_engine::QueryResult {
        &self.inner
    }

    fn columns(&self) -> Vec<Vector> {
        self.inner
            .columns
            .iter()
            .map(|c| c.values.clone())
            .collect()
    }
}

/// A query split for tasks that each read some blocks of its largest
/// table: which table, how many blocks, and the plans (see the module
/// docs). Made by [`Database::split`](crate::Database::split); cheap to
/// clone, `Send + Sync`.
#[derive(Debug, Clone)]
pub struct SplitQuery {
    split: Arc<strata_engine::Split>,
    engine: Arc<Engine>,
}

impl SplitQuery {
    pub(crate) fn new(split: strata_engine::Split, engine: Arc<Engine>) -> SplitQuery {
        SplitQuery {
            split: Arc::new(split),
            engine,
        }
    }

    /// The name of the table whose blocks are divided, as the query writes it.
    pub fn table(&self) -> &str {
        &self.split.name
    }

    /// The directory of that table.
    pub fn table_path(&self) -> &std::path::Path {
        self.split.table.path()
    }

    /// Its number of blocks: tasks read blocks `0..num_blocks()`, each block
    /// in exactly one task.
    pub fn num_blocks(&self) -> usize {
        self.split.table.num_blocks()
    }

    /// Rows in each block.
    pub fn block_rows(&self) -> Vec<u64> {
        let t = &self.split.table;
        (0..t.num_blocks())
            .map(|b| u64::from(t.block_rows(b)))
            .collect()
    }

    /// How partial results combine ("aggregate states per group, merged",
    /// "each task's first 10 rows in order", ...).
    pub fn combine_kind(&self) -> String {
        self.split.combine.describe()
    }

    /// A task's partial result over blocks `blocks` of the table.
    pub fn partial(&self, blocks: &[usize]) -> Result<Partial> {
        Ok(Partial::from_engine(
            self.engine.partial(&self.split, blocks)?,
        ))
    }

    /// Partial results merged into one partial result (a level of a merge
    /// tree: its output merges like theirs).
    pub fn combine(&self, partials: &[Partial]) -> Result<Partial> {
        let parts = partials.iter().map(Partial::columns).collect();
        Ok(Partial::from_engine(
            self.engine.combine(&self.split, parts)?,
        ))
    }

    /// The answer from the partial results of every block, each block
    /// counted once.
    pub fn merge(&self, partials: &[Partial]) -> Result<QueryResult> {
        let parts = partials.iter().map(Partial::columns).collect();
        Ok(QueryResult::new(self.engine.merge(&self.split, parts)?))
    }

    /// The plans as text: the partial plan each task runs and the final plan.
    pub fn explain(&self) -> Result<String> {
        Ok(self.engine.explain_split(&self.split)?)
    }
}

impl crate::Database {
    /// Splits `sql` for tasks that each read some blocks of its largest
    /// table. Fails with a "cannot be split" error (an
    /// [`EngineError::NotSplittable`](strata_engine::EngineError::NotSplittable))
    /// for a query that reads that table twice, joins it with another large
    /// table, or needs something without a mergeable state.
    pub fn split(&self, sql: &str) -> Result<SplitQuery> {
        self.split_params(sql, &[])
    }

    /// [`Database::split`](crate::Database::split) with values for the
    /// query's `?` or `$1` placeholders.
    pub fn split_params(&self, sql: &str, params: &[Value]) -> Result<SplitQuery> {
        let engine = self.engine();
        let split = engine.split(self.catalog(), sql, params)?;
        Ok(SplitQuery::new(split, Arc::clone(engine)))
    }

    /// Runs `sql` over blocks `blocks` of its largest table (numbers as in
    /// the table's manifest, `0..blocks`): a mergeable partial result. See
    /// [`SplitQuery::partial`].
    pub fn partial(&self, sql: &str, blocks: &[usize]) -> Result<Partial> {
        self.split(sql)?.partial(blocks)
    }

    /// The answer of `sql` from the partial results of every block of its
    /// largest table. See [`SplitQuery::merge`].
    pub fn merge(&self, sql: &str, partials: &[Partial]) -> Result<QueryResult> {
        self.split(sql)?.merge(partials)
    }
}

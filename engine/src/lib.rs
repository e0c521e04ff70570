//! strata's query engine: SQL in, results out, answered from the
//! memory-mapped blocks of strata tables. The path of a query:
//!
//! ```text
//! SQL text ──sql::parse──▶ AST ──sql::bind──▶ logical plan ──rewrite──▶ optimized plan
//!          ──exec::planner──▶ operators ──exec (rayon, per block)──▶ QueryResult
//! ```
//!
//! - [`sql`]: parsing (once per query) and binding (names, types, DuckDB's
//!   coercions) to a [`plan::Query`];
//! - [`plan`]: the logical plan; its leaf [`plan::TableQuery`] is what the
//!   sorted-vector table engine answers in one pass;
//! - [`rewrite`]: named, switchable rules that push work into that leaf and
//!   pick its strategies;
//! - [`exec`]: the physical operators, chosen in one place
//!   ([`exec::planner`]); the table engine ([`exec::table`]) works on each
//!   block's sorted distinct values, counts and row lists ([`scan`]) and
//!   merges per-block sorted vectors of groups ([`agg`]);
//! - [`expr`]: expressions and their vectorised evaluation.
//!
//! The engine keeps no query state: every query reads what it needs from
//! the mapped files. Only the open table handles outlive a query (see
//! [`open_tables`]), so a process running many queries maps and verifies
//! each block once.

pub mod agg;
pub mod budget;
pub mod catalog;
pub mod error;
pub mod exec;
pub mod explain;
pub mod expr;
pub mod inspect;
pub mod interrupt;
pub mod interval;
pub mod list;
pub mod open_tables;
pub mod plan;
pub mod result;
pub mod rewrite;
pub mod scan;
pub mod sql;
pub mod strs;
pub mod value;

use std::path::Path;

use strata_format::Table;

pub use catalog::{Catalog, Database};
pub use error::{EngineError, Result};
pub use interrupt::{Interrupter, Watch};
pub use result::{QueryResult, ResultColumn};
pub use rewrite::RuleOptions;
pub use sql::table_ref::{
    column_words, first_rows, head_rows, ArgValue, ColumnWords, FirstRows, TableArg, TableRef,
};
pub use value::{LType, Value, Vector};

pub use plan::split::Split;

use exec::planner::PhysicalQuery;
use exec::ExecCtx;
use plan::split::PartialRows;
use rewrite::first_rows::FirstRowsPlan;
use rewrite::{Check, LogEntry, RuleLog};
use sql::parse::Statement;

/// Stack of each worker thread: expressions may nest up to
/// [`sql::bind::MAX_EXPR_DEPTH`] levels, and every walk over them recurses.
const WORKER_STACK: usize = 16 << 20;

/// The query engine: a thread pool, a memory limit and the rules it may use
/// (no state between queries).
#[derive(Debug)]
pub struct Engine {
    pool: rayon::ThreadPool,
    interrupter: Interrupter,
    memory_limit: Option<u64>,
    rules: RuleOptions,
}

/// A query bound, optimized and planned, ready to run.
struct Compiled {
    query: plan::Query,
    physical: PhysicalQuery,
    log: RuleLog,
    /// The tables opened with just their first rows, and how many.
    heads: Vec<(Table, u64)>,
}

impl Engine {
    /// An engine using `threads` threads (0: one per core).
    pub fn new(threads: usize) -> Result<Engine> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .stack_size(WORKER_STACK)
            .thread_name(|i| format!("strata-{i}"))
            .build()
            .map_err(|e| EngineError::Internal(format!("thread pool: {e}")))?;
        Ok(Engine {
            pool,
            interrupter: Interrupter::default(),
            memory_limit: budget::default_limit(),
            rules: RuleOptions::all(),
        })
    }

    /// Number of threads.
    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// Limits the memory each query may hold (`None`: no limit); the
    /// default is 80% of physical memory. A query going over it fails with
    /// [`EngineError::TooLarge`].
    pub fn with_memory_limit(mut self, bytes: Option<u64>) -> Engine {
        self.memory_limit = bytes;
        self
    }

    /// The per-query memory limit in bytes, if any.
    pub fn memory_limit(&self) -> Option<u64> {
        self.memory_limit
    }

    /// Which rewrite rules may fire (all by default; see [`rewrite`]).
    pub fn with_rules(mut self, rules: RuleOptions) -> Engine {
        self.rules = rules;
        self
    }

    /// The rules the engine uses.
    pub fn rules(&self) -> &RuleOptions {
        &self.rules
    }

    /// A handle that interrupts the queries running on this engine (from
    /// another thread, e.g. on Ctrl-C): they fail with
    /// [`EngineError::Interrupted`] at their next block boundary.
    pub fn interrupter(&self) -> Interrupter {
        self.interrupter.clone()
    }

    /// Runs `sql` with every table it names being `table`. `EXPLAIN
    /// [ANALYZE] <query>` returns the plan as a one-column result.
    pub fn query(&self, table: &Table, sql: &str) -> Result<QueryResult> {
        self.query_in(&OneTable(table), sql)
    }

    /// The EXPLAIN text of `sql` over `table`.
    pub fn explain(&self, table: &Table, sql: &str) -> Result<String> {
        self.explain_in(&OneTable(table), sql)
    }

    /// Runs `sql`, opening the tables it names through `catalog`.
    /// `EXPLAIN [ANALYZE] <query>` returns the plan as a one-column result.
    pub fn query_in(&self, catalog: &dyn Catalog, sql: &str) -> Result<QueryResult> {
        self.query_with_params(catalog, sql, &[])
    }

    /// [`Engine::query_in`] with values for the query's `?` (in order) or
    /// `$1`, `$2` placeholders.
    pub fn query_with_params(
        &self,
        catalog: &dyn Catalog,
        sql: &str,
        params: &[Value],
    ) -> Result<QueryResult> {
        let watch = self.interrupter.watch();
        let mut stmt = sql::parse::parse(sql)?;
        if !params.is_empty() || sql.contains(['?', '$']) {
            match &mut stmt {
                Statement::Query(q) | Statement::Explain { query: q, .. } => {
                    sql::params::substitute(q, params)?
                }
                Statement::Inspect(_) => {}
            }
        }
        match stmt {
            Statement::Inspect(i) => inspect::run(self, catalog, &i),
            Statement::Query(q) => self.run(catalog, &q, sql, &watch),
            Statement::Explain { analyze, query } => {
                let text = self.explain_query(catalog, &query, sql, analyze, &watch)?;
                Ok(explain::as_result(&text))
            }
        }
    }

    /// The EXPLAIN text of `sql` (a query, or `EXPLAIN [ANALYZE] <query>`).
    pub fn explain_in(&self, catalog: &dyn Catalog, sql: &str) -> Result<String> {
        let watch = self.interrupter.watch();
        let (q, analyze) = match sql::parse::parse(sql)? {
            Statement::Query(q) => (q, false),
            Statement::Explain { analyze, query } => (query, analyze),
            Statement::Inspect(_) => {
                return error::unsupported("EXPLAIN of DESCRIBE, SHOW or SUMMARIZE")
            }
        };
        self.explain_query(catalog, &q, sql, analyze, &watch)
    }

    /// The `first_rows` rule's decision for a query, logged.
    fn first_rows(&self, q: &sqlparser::ast::Query, log: &mut RuleLog) -> Option<FirstRowsPlan> {
        if !self.rules.enabled(rewrite::first_rows::NAME) {
            return None;
        }
        let (check, plan) = rewrite::first_rows::check(q);
        let rejected = match check {
            Check::NotApplicable => return None,
            Check::Applies => None,
            Check::Rejected(why) => Some(why),
        };
        log.record(LogEntry {
            rule: rewrite::first_rows::NAME,
            node: "FROM".into(),
            rejected,
        });
        plan
    }

    /// Binds, optimizes and plans a query, opening its tables (the first
    /// `head` rows of the top-level table where the catalog can).
    pub(crate) fn compile_columns(
        &self,
        catalog: &dyn Catalog,
        q: &sqlparser::ast::Query,
        text: &str,
    ) -> Result<Vec<plan::Column>> {
        let c = self.compile(catalog, q, text, None, RuleLog::default())?;
        Ok(c.query.root.columns())
    }

    fn compile(
        &self,
        catalog: &dyn Catalog,
        q: &sqlparser::ast::Query,
        text: &str,
        head: Option<u64>,
        log: RuleLog,
    ) -> Result<Compiled> {
        let (bound, heads) = sql::bind::Binder::new(catalog, ColumnWords::of(q, text))
            .with_head(head)
            .bind(q)?;
        self.compile_bound(bound, log, heads)
    }

    /// Optimizes and plans a bound query.
    fn compile_bound(
        &self,
        bound: plan::Query,
        mut log: RuleLog,
        heads: Vec<(Table, u64)>,
    ) -> Result<Compiled> {
        let _memo = plan::stats::EstimateMemo::start();
        let query = rewrite::optimize(bound, &self.rules, &mut log)?;
        let physical = exec::planner::plan(&query)?;
        Ok(Compiled {
            query,
            physical,
            log,
            heads,
        })
    }

    /// Splits `sql` (with values for its placeholders) for tasks that each
    /// read some blocks of its largest table: see [`plan::split`]. Fails
    /// with [`EngineError::NotSplittable`] when it cannot be split.
    pub fn split(&self, catalog: &dyn Catalog, sql: &str, params: &[Value]) -> Result<Split> {
        let mut q = match sql::parse::parse(sql)? {
            Statement::Query(q) => q,
            Statement::Explain { .. } => {
                return Err(EngineError::NotSplittable(
                    "EXPLAIN (the plan of a split query is explain_split's)".into(),
                ))
            }
            Statement::Inspect(_) => {
                return Err(EngineError::NotSplittable(
                    "DESCRIBE, SHOW and SUMMARIZE (they read schemas, not blocks)".into(),
                ))
            }
        };
        if !params.is_empty() || sql.contains(['?', '$']) {
            sql::params::substitute(&mut q, params)?;
        }
        let (bound, _) = sql::bind::Binder::new(catalog, ColumnWords::of(&q, sql)).bind(&q)?;
        plan::split::split(bound)
    }

    /// One task of a split query: its partial result over blocks `blocks`
    /// of the split table (numbers in the table, as in its manifest).
    pub fn partial(&self, split: &Split, blocks: &[usize]) -> Result<QueryResult> {
        let watch = self.interrupter.watch();
        let c = self.compile_bound(split.partial_over(blocks)?, RuleLog::default(), Vec::new())?;
        Ok(self.execute(&c, &watch)?.0)
    }

    /// Partial results of a split query merged into one partial result (a
    /// level of a merge tree); each part is a list of columns as
    /// [`Engine::partial`] returns them.
    pub fn combine(&self, split: &Split, parts: Vec<Vec<Vector>>) -> Result<QueryResult> {
        let rows = PartialRows::concat(&split.columns, parts)?;
        self.run_bound(split.combine_over(rows))
    }

    /// The answer of a split query from its partial results (those of
    /// every block of the split table, each block once).
    pub fn merge(&self, split: &Split, parts: Vec<Vec<Vector>>) -> Result<QueryResult> {
        let rows = PartialRows::concat(&split.columns, parts)?;
        self.run_bound(split.final_over(rows))
    }

    /// The plans of a split query: how partial results combine, the plan
    /// each task runs over its blocks, and the final plan over their
    /// results.
    pub fn explain_split(&self, split: &Split) -> Result<String> {
        let mut out = format!(
            "Split: {} blocks of {} among tasks; partial results: {}\n",
            split.table.num_blocks(),
            split.name,
            split.combine.describe()
        );
        let mut part = |title: &str, q: &plan::Query| -> Result<()> {
            let c = self.compile_bound(q.clone(), RuleLog::recording(), Vec::new())?;
            out.push_str(title);
            for line in explain::explain(&c.query, &c.physical, &c.log, None).lines() {
                out.push_str("  ");
                out.push_str(line);
                out.push('\n');
            }
            Ok(())
        };
        part(
            "Partial plan (each task, over its blocks):\n",
            split.partial(),
        )?;
        part(
            "Final plan (over the partial results):\n",
            split.final_plan(),
        )?;
        Ok(out)
    }

    /// Optimizes, plans and runs a bound query.
    fn run_bound(&self, q: plan::Query) -> Result<QueryResult> {
        let watch = self.interrupter.watch();
        let c = self.compile_bound(q, RuleLog::default(), Vec::new())?;
        Ok(self.execute(&c, &watch)?.0)
    }

    /// Runs a compiled query on the engine's threads.
    fn execute(&self, c: &Compiled, watch: &Watch) -> Result<(QueryResult, ExecCtx)> {
        strata_format::cache::start_query();
        let ctx = ExecCtx::new(
            watch.clone(),
            budget::Budget::new(self.memory_limit),
            c.physical.operators,
            c.physical.ctes.clone(),
        );
        let batch = self.pool.install(|| ctx.run(c.physical.root.as_ref()))?;
        let names = c.query.root.columns().into_iter().map(|c| c.name).collect();
        Ok((batch.into_result(names), ctx))
    }

    /// Compiles and runs a query; a query of a file's first rows tries its
    /// first rows, then (when a filter found too few there) the whole file.
    fn run(
        &self,
        catalog: &dyn Catalog,
        q: &sqlparser::ast::Query,
        text: &str,
        watch: &Watch,
    ) -> Result<QueryResult> {
        let mut log = RuleLog::default();
        let first = self.first_rows(q, &mut log);
        if let Some(f) = first {
            let c = self.compile(catalog, q, text, Some(f.rows), log.clone())?;
            watch.check()?;
            let (r, _) = self.execute(&c, watch)?;
            let short = f.filtered
                && (r.num_rows() as u64) < f.limit
                && c.heads.iter().any(|(t, rows)| t.num_rows() >= *rows);
            if !short {
                return Ok(r);
            }
        }
        let c = self.compile(catalog, q, text, None, log)?;
        watch.check()?;
        Ok(self.execute(&c, watch)?.0)
    }

    fn explain_query(
        &self,
        catalog: &dyn Catalog,
        q: &sqlparser::ast::Query,
        text: &str,
        analyze: bool,
        watch: &Watch,
    ) -> Result<String> {
        let mut log = RuleLog::recording();
        let head = self.first_rows(q, &mut log).map(|f| f.rows);
        let c = self.compile(catalog, q, text, head, log)?;
        let mut decoded = Vec::new();
        let metrics = if analyze {
            let before = strata_format::decode_stats::snapshot();
            let start = std::time::Instant::now();
            let (_, ctx) = self.execute(&c, watch)?;
            let elapsed = start.elapsed();
            decoded = strata_format::decode_stats::since(
                &before,
                &strata_format::decode_stats::snapshot(),
            );
            Some((ctx.metrics(), elapsed))
        } else {
            None
        };
        let mut text = explain::explain(&c.query, &c.physical, &c.log, metrics.as_ref());
        explain::decoded_lines(&mut text, &decoded);
        Ok(text)
    }
}

/// A catalog in which every name means one table.
struct OneTable<'t>(&'t Table);

impl Catalog for OneTable<'_> {
    fn open(&self, _: &TableRef) -> Result<Table> {
        Ok(self.0.clone())
    }
}

/// Opens a table directory (convenience for callers without a catalog).
pub fn open_table(path: &Path) -> Result<Table> {
    Ok(Table::open(path)?)
}

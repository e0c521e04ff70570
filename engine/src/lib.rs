//! strata's query engine: parses SQL, plans it and runs it in parallel over the
//! memory-mapped blocks of a strata table.
//!
//! ```text
//! SQL --parse/bind--> Query --plan--> Plan --run (rayon, per block)--> QueryResult
//! ```
//!
//! The engine keeps no query state: every query reads what it needs from the
//! mapped files. Only the open table handles outlive a query (see
//! [`open_tables`]), so a process running many queries maps and verifies
//! each block once. It works on each block's sorted distinct values, their counts and
//! row lists rather than on rows wherever it can, and merges per-block
//! sorted vectors of groups (see [`merge`]).

pub mod agg;
pub mod any_groups;
pub mod bind;
pub mod block;
pub mod budget;
pub mod count_distinct;
pub mod error;
pub mod exec;
pub mod explain;
pub mod expr;
pub mod filter;
pub mod group;
pub mod group_output;
pub mod interrupt;
pub mod like;
pub mod memo;
pub mod merge;
pub mod open_tables;
pub mod order;
pub mod result;
pub mod rounding;
pub mod scalar;
pub mod selection;
pub mod strfn;
pub mod survivors;
pub mod table_ref;
pub mod top_count;
pub mod topk;
pub mod value;

use std::path::{Path, PathBuf};

use strata_format::Table;

pub use error::{EngineError, Result};
pub use interrupt::{Interrupter, Watch};
pub use result::{QueryResult, ResultColumn};
pub use table_ref::{column_words, first_rows, head_rows, ArgValue, FirstRows, TableArg, TableRef};
pub use value::{LType, Value, Vector};

/// Resolves the relation named in FROM.
pub trait Catalog {
    /// Opens the table `table` refers to (as written in the query).
    fn open(&self, table: &TableRef) -> Result<Table>;

    /// Opens the table for a query whose column references are among
    /// `words` (`None`: it may read every column; see
    /// [`table_ref::column_words`]). A catalog that loads tables on demand
    /// may load just those columns; by default this is [`Catalog::open`].
    fn open_for(&self, table: &TableRef, words: Option<&[String]>) -> Result<Table> {
        let _ = words;
        self.open(table)
    }

    /// For a query of the table's first rows (see [`table_ref::first_rows`]):
    /// a table holding at least the first `rows` rows, in order (all of
    /// them if the table has fewer), if the catalog can give one more
    /// cheaply than the whole table (a file's first rows, say); `None` (the
    /// default) to use [`Catalog::open_for`].
    fn open_head(
        &self,
        table: &TableRef,
        words: Option<&[String]>,
        rows: u64,
    ) -> Result<Option<Table>> {
        let _ = (table, words, rows);
        Ok(None)
    }
}

/// A directory of tables: `FROM hits` opens `<dir>/hits`; a name containing
/// a path separator (written quoted) is opened as a path. Table functions are
/// not known here (see the `strata` crate for `read_csv` and friends).
///
/// Tables stay open between queries (and clones share them) until their
/// manifest changes; see [`open_tables`].
#[derive(Debug, Clone)]
pub struct Database {
    dir: PathBuf,
    open: open_tables::OpenTables,
}

impl Database {
    /// A database in directory `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Database {
        Database {
            dir: dir.into(),
            open: open_tables::OpenTables::default(),
        }
    }
}

impl Database {
    /// Opens the table `name`: `<dir>/name`, or `name` itself when it
    /// contains a path separator.
    pub fn open_named(&self, name: &str) -> Result<Table> {
        let path = if name.contains('/') || name.contains('\\') {
            PathBuf::from(name)
        } else {
            self.dir.join(name)
        };
        match self.open.open(&path) {
            Ok(t) => Ok(t),
            Err(EngineError::Format(strata_format::FormatError::NotATable(_))) => {
                let names = std::fs::read_dir(&self.dir)
                    .map(|rd| {
                        rd.filter_map(|e| e.ok())
                            .filter(|e| e.path().join("MANIFEST").exists())
                            .filter_map(|e| e.file_name().into_string().ok())
                            .collect::<Vec<_>>()
                    })
                    .unwrap_or_default();
                Err(EngineError::NotFound {
                    kind: "table",
                    name: name.to_string(),
                    suggestion: error::closest(name, names.iter().map(|s| s.as_str())),
                })
            }
            Err(e) => Err(e),
        }
    }
}

impl Catalog for Database {
    fn open(&self, table: &TableRef) -> Result<Table> {
        match table {
            TableRef::Named(name) => self.open_named(name),
            TableRef::Function { name, .. } => Err(EngineError::NotFound {
                kind: "table function",
                name: name.clone(),
                suggestion: None,
            }),
        }
    }
}

/// The query engine: a thread pool and nothing else (no state between
/// queries).
#[derive(Debug)]
pub struct Engine {
    pool: rayon::ThreadPool,
    interrupter: Interrupter,
    memory_limit: Option<u64>,
}

impl Engine {
    /// An engine using `threads` threads (0: one per core).
    pub fn new(threads: usize) -> Result<Engine> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("strata-{i}"))
            .build()
            .map_err(|e| EngineError::Internal(format!("thread pool: {e}")))?;
        Ok(Engine {
            pool,
            interrupter: Interrupter::default(),
            memory_limit: budget::default_limit(),
        })
    }

    /// Number of threads.
    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// Limits the memory each query's results may hold (`None`: no
    /// limit); the default is 80% of physical memory. A query going over
    /// it fails with [`EngineError::TooLarge`].
    pub fn with_memory_limit(mut self, bytes: Option<u64>) -> Engine {
        self.memory_limit = bytes;
        self
    }

    /// The per-query memory limit in bytes, if any.
    pub fn memory_limit(&self) -> Option<u64> {
        self.memory_limit
    }

    /// A handle that interrupts the queries running on this engine (from
    /// another thread, e.g. on Ctrl-C): they fail with
    /// [`EngineError::Interrupted`] at their next block boundary.
    pub fn interrupter(&self) -> Interrupter {
        self.interrupter.clone()
    }

    /// Runs `sql` against `table` (whatever name its FROM clause uses).
    /// `EXPLAIN <query>` returns the plan as a one-column result.
    pub fn query(&self, table: &Table, sql: &str) -> Result<QueryResult> {
        self.query_watched(table, sql, self.interrupter.watch())
    }

    /// [`Engine::query`] for a query that started (and may be interrupted)
    /// at `watch`.
    fn query_watched(&self, table: &Table, sql: &str, watch: Watch) -> Result<QueryResult> {
        if let Some(inner) = bind::strip_explain(sql) {
            let text = self.explain(table, inner)?;
            let mut v = Vector::empty(LType::Varchar, 0);
            for line in text.lines() {
                v.push(&Value::Str(line.as_bytes().to_vec()));
            }
            return Ok(QueryResult {
                columns: vec![ResultColumn {
                    name: "explain".into(),
                    ty: LType::Varchar,
                    values: v,
                }],
            });
        }
        let q = bind::parse(sql)?;
        let bound = bind::bind(&q, table.schema())?;
        self.pool.install(|| {
            let mut plan = exec::plan(bound, table)?;
            plan.watch = watch;
            plan.budget = budget::Budget::new(self.memory_limit);
            exec::run(&plan, table)
        })
    }

    /// Runs `sql`, opening its FROM table through `catalog`.
    pub fn query_in(&self, catalog: &dyn Catalog, sql: &str) -> Result<QueryResult> {
        // An interrupt while the catalog loads a file stops the query too.
        let watch = self.interrupter.watch();
        let inner = bind::strip_explain(sql).unwrap_or(sql);
        let q = bind::parse(inner)?;
        // The first rows that match a WHERE: try the table's first rows
        // (one block's worth). As blocks are read in order, enough matches
        // there are the answer the whole table gives.
        let first = table_ref::first_rows(&q).filter(|f| f.filtered && inner == sql);
        if let Some(f) = first {
            let wanted = f.limit.saturating_add(f.offset).max(FIRST_ROWS_TRIED);
            let words = table_ref::column_words(&q, inner);
            let from = bind::table_ref(&q)?;
            if let Some(t) = catalog.open_head(&from, words.as_deref(), wanted)? {
                watch.check()?;
                let r = self.query_watched(&t, sql, watch.clone())?;
                // Enough rows, or the table held fewer than asked: all of it.
                if r.num_rows() as u64 >= f.limit || t.num_rows() < wanted {
                    return Ok(r);
                }
            }
        }
        let table = open_from(catalog, &q, inner)?;
        watch.check()?;
        self.query_watched(&table, sql, watch)
    }

    /// The plan of `sql` over `table` and each block's strategy.
    pub fn explain(&self, table: &Table, sql: &str) -> Result<String> {
        let q = bind::parse(sql)?;
        let bound = bind::bind(&q, table.schema())?;
        let plan = exec::plan(bound, table)?;
        Ok(explain::explain(&plan, table))
    }
}

/// Rows of a table's start a filtered query of its first rows tries before
/// the whole table (see [`table_ref::first_rows`]): one default block.
pub const FIRST_ROWS_TRIED: u64 = strata_format::DEFAULT_BLOCK_ROWS as u64;

/// Opens the FROM table of `q` (parsed from `text`) through `catalog`: just
/// its first rows when they answer the query ([`Catalog::open_head`]), else
/// the columns the query may read ([`Catalog::open_for`]).
pub fn open_from(catalog: &dyn Catalog, q: &sqlparser::ast::Query, text: &str) -> Result<Table> {
    let words = table_ref::column_words(q, text);
    let from = bind::table_ref(q)?;
    let head = match table_ref::head_rows(q) {
        Some(rows) => catalog.open_head(&from, words.as_deref(), rows)?,
        None => None,
    };
    match head {
        Some(t) => Ok(t),
        None => catalog.open_for(&from, words.as_deref()),
    }
}

/// Opens a table directory (convenience for callers without a catalog).
pub fn open_table(path: &Path) -> Result<Table> {
    Ok(Table::open(path)?)
}

//! [`Database`] (a directory of tables) and [`Table`] (one table), each with
//! the thread pool its queries run on.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use strata_engine::{Catalog, Engine, Interrupter, TableRef, Value};

use crate::catalog::{FileCatalog, LoadEvent};
use crate::error::{Error, Result};
use crate::file_cache::FileCache;
use crate::result::QueryResult;
use crate::DataType;

/// Where a [`Database`] keeps input files it has loaded for queries such as
/// `SELECT ... FROM 'hits.parquet'`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum CacheDir {
    /// The user's cache folder: `$XDG_CACHE_HOME/strata` or
    /// `~/.cache/strata`.
    #[default]
    Default,
    /// This directory.
    Dir(PathBuf),
    /// A private temporary directory, removed when the database (and its
    /// clones) are dropped: every file is loaded again by each new handle.
    Temporary,
}

/// Settings shared by [`Database::open_with`] and [`Table::open_with`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// Worker threads each query (and each load of an input file) runs on
    /// (0, the default: one per core).
    pub threads: usize,
    /// Bytes each query's results may hold; `None`, the default: 80% of
    /// physical memory. A query going over fails with a "result too large"
    /// error instead of exhausting the machine.
    pub memory_limit: Option<u64>,
    /// Where loaded input files are cached.
    pub cache_dir: CacheDir,
    /// Size limit of the cache in bytes; past it the least recently used
    /// entries are removed (default 10 GiB).
    pub cache_limit: u64,
    /// Bytes of decoded table data (decompressed sections, row codes) kept
    /// in memory for later queries; `None` keeps the current setting (1 GiB
    /// unless changed). The limit is process-wide: see
    /// [`strata_format::cache`].
    pub memory_cache: Option<u64>,
    /// The rewrite rules queries may use (all by default); switching some
    /// off is for testing and diagnosing plans.
    pub rules: strata_engine::RuleOptions,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            threads: 0,
            memory_limit: None,
            cache_dir: CacheDir::Default,
            cache_limit: crate::file_cache::DEFAULT_LIMIT,
            memory_cache: None,
            rules: strata_engine::RuleOptions::all(),
        }
    }
}

impl Options {
    /// Default options: one thread per core, the default cache.
    pub fn new() -> Options {
        Options::default()
    }

    /// Sets the rewrite rules queries may use.
    pub fn rules(mut self, rules: strata_engine::RuleOptions) -> Options {
        self.rules = rules;
        self
    }

    /// Sets the number of worker threads (0: one per core).
    pub fn threads(mut self, threads: usize) -> Options {
        self.threads = threads;
        self
    }

    /// Sets the memory each query's results may hold, in bytes.
    pub fn memory_limit(mut self, bytes: u64) -> Options {
        self.memory_limit = Some(bytes);
        self
    }

    /// Caches loaded input files in `dir`.
    pub fn cache_dir(mut self, dir: impl Into<PathBuf>) -> Options {
        self.cache_dir = CacheDir::Dir(dir.into());
        self
    }

    /// Caches loaded input files in a private temporary directory only.
    pub fn temporary_cache(mut self) -> Options {
        self.cache_dir = CacheDir::Temporary;
        self
    }

    /// Sets the cache's size limit in bytes.
    pub fn cache_limit(mut self, bytes: u64) -> Options {
        self.cache_limit = bytes;
        self
    }

    /// Sets the process-wide limit of decoded table data kept in memory for
    /// later queries, in bytes (0 keeps none); applied when the database
    /// opens.
    pub fn memory_cache(mut self, bytes: u64) -> Options {
        self.memory_cache = Some(bytes);
        self
    }

    /// The file cache these options describe.
    pub fn file_cache(&self) -> FileCache {
        match &self.cache_dir {
            CacheDir::Default => FileCache::new(crate::file_cache::default_dir(), self.cache_limit),
            CacheDir::Dir(d) => FileCache::new(d, self.cache_limit),
            CacheDir::Temporary => FileCache::temporary(self.cache_limit),
        }
    }
}

fn engine(options: &Options) -> Result<Arc<Engine>> {
    let engine = Engine::new(options.threads)?.with_rules(options.rules.clone());
    Ok(Arc::new(match options.memory_limit {
        Some(limit) => engine.with_memory_limit(Some(limit)),
        None => engine,
    }))
}

/// A directory of tables: `FROM hits` reads `<dir>/hits`; a quoted path
/// (`FROM 'data/hits'`) is opened as written. Input files can be queried in
/// place: `FROM 'x.parquet'`, `FROM 'logs/*.csv'`, `FROM read_csv('x.txt',
/// delim=';')`, `FROM read_parquet(['a.parquet', 'b.parquet'])`; the first
/// query loads them into a strata table in the cache (see
/// [`Options::cache_dir`]), later ones reuse it while the files are
/// unchanged.
///
/// Cheap to clone, `Send + Sync`: clones share one thread pool, and several
/// threads may query at once.
#[derive(Debug, Clone)]
pub struct Database {
    dir: PathBuf,
    catalog: FileCatalog,
    engine: Arc<Engine>,
}

impl Database {
    /// Opens the database in directory `dir` with default [`Options`].
    pub fn open(dir: impl AsRef<Path>) -> Result<Database> {
        Database::open_with(dir, Options::default())
    }

    /// Opens the database in directory `dir` with `options`.
    pub fn open_with(dir: impl AsRef<Path>, options: Options) -> Result<Database> {
        if let Some(bytes) = options.memory_cache {
            strata_format::cache::set_limit(usize::try_from(bytes).unwrap_or(usize::MAX));
        }
        let dir = dir.as_ref().to_path_buf();
        let meta = std::fs::metadata(&dir).map_err(|source| Error::Io {
            context: format!("opening database {}", dir.display()),
            source,
        })?;
        if !meta.is_dir() {
            return Err(Error::Io {
                context: format!("opening database {}", dir.display()),
                source: std::io::Error::other("not a directory"),
            });
        }
        let engine = engine(&options)?;
        let catalog = FileCatalog::new(&dir, Arc::new(options.file_cache()), options.threads)
            .with_memory_limit(engine.memory_limit());
        Ok(Database {
            catalog,
            dir,
            engine,
        })
    }

    /// The database directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Number of worker threads queries run on.
    pub fn threads(&self) -> usize {
        self.engine.threads()
    }

    /// A handle that interrupts the queries running on this database (its
    /// clones included) from another thread; they fail with
    /// [`Error::Interrupted`](crate::Error::Interrupted). Later queries are
    /// not affected.
    pub fn interrupter(&self) -> Interrupter {
        self.engine.interrupter()
    }

    /// Names of the tables in the directory (subdirectories holding a
    /// `MANIFEST`), sorted.
    pub fn tables(&self) -> Result<Vec<String>> {
        let rd = std::fs::read_dir(&self.dir).map_err(|source| Error::Io {
            context: format!("listing {}", self.dir.display()),
            source,
        })?;
        let mut names: Vec<String> = rd
            .filter_map(|e| e.ok())
            .filter(|e| {
                e.path()
                    .join(strata_format::layout::MANIFEST_FILE)
                    .is_file()
            })
            .filter_map(|e| e.file_name().into_string().ok())
            .collect();
        names.sort();
        Ok(names)
    }

    /// Opens table `name` (resolved as in a query's FROM clause: a file name
    /// such as `x.parquet` loads that file); it shares
    /// this database's thread pool.
    pub fn table(&self, name: &str) -> Result<Table> {
        Ok(Table {
            inner: self.catalog.open(&TableRef::Named(name.to_string()))?,
            engine: Arc::clone(&self.engine),
        })
    }

    /// Runs one SQL statement; its FROM clause names a table of this
    /// database. `EXPLAIN <query>` returns the plan as one text column.
    pub fn query(&self, sql: &str) -> Result<QueryResult> {
        Ok(QueryResult::new(self.engine.query_in(&self.catalog, sql)?))
    }

    /// Runs one SQL statement with values for its `?` (in order) or `$1`,
    /// `$2` placeholders.
    pub fn query_params(&self, sql: &str, params: &[Value]) -> Result<QueryResult> {
        Ok(QueryResult::new(self.engine.query_with_params(
            &self.catalog,
            sql,
            params,
        )?))
    }

    /// Runs one SQL statement, opening its table through `catalog` instead of
    /// this database's directory (to observe which tables a query touches).
    pub fn query_in(&self, catalog: &dyn Catalog, sql: &str) -> Result<QueryResult> {
        Ok(QueryResult::new(self.engine.query_in(catalog, sql)?))
    }

    /// The plan of `sql` and the strategy chosen for each block, as text.
    pub fn explain(&self, sql: &str) -> Result<String> {
        Ok(self.engine.explain_in(&self.catalog, sql)?)
    }

    /// The engine queries run on.
    pub(crate) fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// The catalog resolving this database's FROM clauses.
    pub fn catalog(&self) -> &FileCatalog {
        &self.catalog
    }

    /// The cache of loaded input files.
    pub fn cache(&self) -> &FileCache {
        self.catalog.cache()
    }

    /// Calls `progress` while input files are loaded into the cache (the
    /// first query over a file).
    pub fn on_load(
        mut self,
        progress: impl Fn(&LoadEvent<'_>) + Send + Sync + 'static,
    ) -> Database {
        self.catalog.set_progress(Arc::new(progress));
        self
    }
}

/// One table, memory-mapped. Queries may name it anything in FROM.
///
/// Cheap to clone, `Send + Sync`: several threads may query it at once.
#[derive(Debug, Clone)]
pub struct Table {
    inner: strata_format::Table,
    engine: Arc<Engine>,
}

impl Table {
    /// Opens the table directory `path` with default [`Options`].
    pub fn open(path: impl AsRef<Path>) -> Result<Table> {
        Table::open_with(path, Options::default())
    }

    /// Opens the table directory `path` with `options`.
    pub fn open_with(path: impl AsRef<Path>, options: Options) -> Result<Table> {
        Ok(Table {
            inner: strata_format::Table::open(path)?,
            engine: engine(&options)?,
        })
    }

    /// The table directory.
    pub fn path(&self) -> &Path {
        self.inner.path()
    }

    /// Number of rows.
    pub fn num_rows(&self) -> u64 {
        self.inner.num_rows()
    }

    /// Column names and the types queries see them as, in table order.
    pub fn schema(&self) -> Vec<(String, DataType)> {
        self.inner
            .schema()
            .fields
            .iter()
            .map(|f| (f.name.clone(), DataType::from_storage(f.data_type)))
            .collect()
    }

    /// Runs one SQL statement over this table (whatever name its FROM clause
    /// uses). `EXPLAIN <query>` returns the plan as one text column.
    pub fn query(&self, sql: &str) -> Result<QueryResult> {
        Ok(QueryResult::new(self.engine.query(&self.inner, sql)?))
    }

    /// The plan of `sql` and the strategy chosen for each block, as text.
    pub fn explain(&self, sql: &str) -> Result<String> {
        Ok(self.engine.explain(&self.inner, sql)?)
    }

    /// A handle that interrupts the queries running on this table; see
    /// [`Database::interrupter`].
    pub fn interrupter(&self) -> Interrupter {
        self.engine.interrupter()
    }

    /// The storage-level table (schema, blocks, statistics).
    pub fn storage(&self) -> &strata_format::Table {
        &self.inner
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn send_sync<T: Send + Sync>() {}

    #[test]
    fn handles_are_send_sync() {
        send_sync::<Database>();
        send_sync::<Table>();
        send_sync::<QueryResult>();
        send_sync::<Error>();
    }
}

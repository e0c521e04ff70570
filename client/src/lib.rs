//! strata: a serverless columnar analytics engine.
//!
//! The library opens tables written by `strata ingest` and answers SQL over
//! them straight from memory-mapped files. There is no server and no state
//! between queries: a [`Database`] is a directory of tables, a [`Table`] one
//! table directory.
//!
//! ```no_run
//! # fn main() -> Result<(), strata::Error> {
//! let db = strata::Database::open("data")?;
//! let result = db.query("SELECT RegionID, count(*) AS c FROM hits GROUP BY RegionID")?;
//! for (name, ty) in result.schema() {
//!     println!("{name}: {ty}");
//! }
//! let counts = result.column(1).as_i64().unwrap_or(&[]);
//! for row in result.rows() {
//!     println!("{}", row.strings().join(", "));
//! }
//! # let _ = counts;
//! # Ok(())
//! # }
//! ```
//!
//! Input files are queried in place the way DuckDB does it:
//! `FROM 'hits.parquet'`, `FROM 'logs/*.csv'`, `FROM read_csv('x.txt',
//! delim=';', header=false, columns={'a': 'INTEGER'})`,
//! `FROM read_parquet(path)`. The first query loads the files into a strata
//! table in a cache directory ([`Options::cache_dir`]); later queries reuse
//! it for as long as the files keep their size and modification time.
//!
//! ```no_run
//! # fn main() -> Result<(), strata::Error> {
//! let options = strata::Options::new().cache_dir("/var/cache/strata");
//! let db = strata::Database::open_with(".", options)?;
//! let result = db.query("SELECT COUNT(*) FROM read_csv('events.txt', delim=';')")?;
//! # let _ = result;
//! # Ok(())
//! # }
//! ```
//!
//! [`Database`] and [`Table`] are `Send + Sync` and cheap to clone: share one
//! between threads and run queries concurrently; each query runs on the
//! handle's thread pool (see [`Options::threads`]).

#[cfg(feature = "arrow")]
mod arrow;
#[cfg(feature = "arrow")]
mod arrow_ipc;
mod catalog;
mod database;
mod error;
mod file_cache;
pub mod output;
mod result;
mod split;
mod table_source;

pub use catalog::{FileCatalog, LoadEvent, LoadProgress};
pub use database::{CacheDir, Database, Options, Table};
pub use error::{Error, Result};
pub use file_cache::{CacheEntry, FileCache, SourceError, SourceFile};
pub use result::{Column, ColumnValues, QueryResult, Row, Rows};
pub use split::{Partial, SplitQuery};
pub use strata_engine::strs::Strs;
pub use strata_engine::{Interrupter, LType as DataType, Value};
pub use strata_format as format;

/// The query engine crate, for callers that need its lower-level API.
pub use strata_engine as engine;

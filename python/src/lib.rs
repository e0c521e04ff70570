//! `strata._strata`: the native half of the `strata` Python package.
//!
//! It wraps the `strata` library: [`Database`] opens a directory of tables
//! and runs queries with the GIL released, [`Result`] holds one query's
//! columns and hands them to Python as rows or, through the Arrow C stream
//! interface (`__arrow_c_stream__`), to pyarrow, pandas and polars without
//! copying. The DuckDB-shaped API (`connect`, relations, DB-API cursors)
//! lives in the Python half, `strata/__init__.py`.

mod convert;
mod errors;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, OnceLock};
use std::time::{Duration, Instant};

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchIterator, RecordBatchReader};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule, PyDict, PyTuple};

use crate::errors::{ingest_error, query_error, raise};

/// How often a waiting call looks for Ctrl-C.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// How long an interrupted query may take to stop before the call returns
/// anyway (the query then stops in the background at its next check).
const STOP_GRACE: Duration = Duration::from_secs(1);

/// How a call waiting for its work can stop it.
struct Stop<'a> {
    /// Asks the work to stop.
    stop: &'a (dyn Fn() + Sync),
    /// Whether someone else (`Connection.interrupt`) asked it to stop.
    stopped: &'a (dyn Fn() -> bool + Sync),
    /// How long to wait for the work once stopped; `None`: until it ends
    /// (an ingest must remove what it wrote before the call returns).
    grace: Option<Duration>,
}

/// Why a call stopped waiting for its work.
enum Waited<T> {
    /// The work's outcome.
    Done(T),
    /// A Python signal handler raised (Ctrl-C: `KeyboardInterrupt`).
    Signal(PyErr),
    /// Interrupted from elsewhere, and the work did not stop within the grace period.
    Abandoned,
}

/// Runs `work` on its own thread with the GIL released, looking for Python
/// signals meanwhile. On Ctrl-C (a signal handler raising, normally
/// `KeyboardInterrupt`) or an interrupt from elsewhere it asks the work to
/// stop, and waits for it at most `stop.grace`.
fn wait_for<T: Send + 'static>(
    py: Python<'_>,
    stop: Stop<'_>,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<Waited<T>> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("strata-query".into())
        .spawn(move || {
            // The caller may have stopped waiting; the outcome is then dropped.
            let _ = tx.send(work());
        })
        .map_err(|e| PyRuntimeError::new_err(format!("starting the query thread: {e}")))?;
    Ok(py.detach(move || {
        let mut signal: Option<PyErr> = None;
        let mut deadline: Option<Instant> = None;
        loop {
            match rx.recv_timeout(SIGNAL_POLL) {
                Ok(value) => {
                    return match signal {
                        Some(e) => Waited::Signal(e),
                        None => Waited::Done(value),
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Waited::Signal(PyRuntimeError::new_err(
                        "internal error: the query thread stopped unexpectedly",
                    ))
                }
            }
            if signal.is_none() {
                if let Err(e) = Python::attach(|py| py.check_signals()) {
                    (stop.stop)();
                    signal = Some(e);
                }
            }
            if deadline.is_none() && (signal.is_some() || (stop.stopped)()) {
                deadline = stop.grace.map(|g| Instant::now() + g);
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return match signal.take() {
                    Some(e) => Waited::Signal(e),
                    None => Waited::Abandoned,
                };
            }
        }
    }))
}

/// Runs a query's `work` on `db`'s interrupter: Ctrl-C raises
/// `KeyboardInterrupt`, `Connection.interrupt()` `InterruptError`, each at
/// most [`STOP_GRACE`] after the query was asked to stop.
fn run_query<T: Send + 'static>(
    py: Python<'_>,
    db: &strata::Database,
    sql: &str,
    work: impl FnOnce() -> strata::Result<T> + Send + 'static,
) -> PyResult<T> {
    let interrupter = db.interrupter();
    let watch = interrupter.watch();
    let stop = move || interrupter.interrupt();
    let stopped = move || watch.check().is_err();
    let stop = Stop {
        stop: &stop,
        stopped: &stopped,
        grace: Some(STOP_GRACE),
    };
    match wait_for(py, stop, work)? {
        Waited::Done(result) => result.map_err(|e| query_error(py, &e, sql)),
        Waited::Signal(e) => Err(e),
        Waited::Abandoned => Err(query_error(py, &strata::Error::Interrupted, sql)),
    }
}

/// Partial results from their Arrow IPC bytes.
fn read_partials(parts: &[Vec<u8>]) -> strata::Result<Vec<strata::Partial>> {
    parts.iter().map(|b| strata::Partial::from_ipc(b)).collect()
}

/// A directory of strata tables, with the thread pool its queries run on.
#[pyclass(module = "strata._strata", frozen)]
struct Database {
    db: strata::Database,
    threads: usize,
}

#[pymethods]
impl Database {
    /// Opens directory `path`; see `strata.connect`.
    #[new]
    #[pyo3(signature = (path, memory_limit=None, threads=None, cache_dir=None))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        memory_limit: Option<u64>,
        threads: Option<usize>,
        cache_dir: Option<PathBuf>,
    ) -> PyResult<Database> {
        let mut options = strata::Options::new().threads(threads.unwrap_or(0));
        if let Some(bytes) = memory_limit {
            options = options.memory_limit(bytes);
        }
        if let Some(dir) = cache_dir {
            options = options.cache_dir(dir);
        }
        let db =
            strata::Database::open_with(&path, options).map_err(|e| query_error(py, &e, ""))?;
        Ok(Database {
            threads: db.threads(),
            db,
        })
    }

    /// The database directory.
    #[getter]
    fn path(&self) -> PathBuf {
        self.db.dir().to_path_buf()
    }

    /// Worker threads each query runs on.
    #[getter]
    fn threads(&self) -> usize {
        self.threads
    }

    /// Runs `sql` with `params` for its `?` / `$1` placeholders.
    #[pyo3(signature = (sql, params=None))]
    fn query(
        &self,
        py: Python<'_>,
        sql: &str,
        params: Option<Vec<Bound<'_, PyAny>>>,
    ) -> PyResult<Result> {
        let params = params
            .unwrap_or_default()
            .iter()
            .map(convert::to_value)
            .collect::<PyResult<Vec<_>>>()?;
        let db = self.db.clone();
        let text = sql.to_string();
        let inner = run_query(py, &self.db, sql, move || db.query_params(&text, &params))?;
        Ok(Result {
            inner,
            batch: OnceLock::new(),
        })
    }

    /// The plan of `sql` as text.
    fn explain(&self, py: Python<'_>, sql: &str) -> PyResult<String> {
        let db = self.db.clone();
        let text = sql.to_string();
        run_query(py, &self.db, sql, move || db.explain(&text))
    }

    /// How `sql` splits for tasks that each read some blocks of its largest
    /// table: `{"table", "path", "blocks", "block_rows", "combine"}`.
    #[pyo3(signature = (sql, params=None))]
    fn split_info<'py>(
        &self,
        py: Python<'py>,
        sql: &str,
        params: Option<Vec<Bound<'py, PyAny>>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let split = self.split(py, sql, params)?;
        let out = PyDict::new(py);
        out.set_item("table", split.table())?;
        out.set_item("path", split.table_path().to_string_lossy())?;
        out.set_item("blocks", split.num_blocks())?;
        out.set_item("block_rows", split.block_rows())?;
        out.set_item("combine", split.combine_kind())?;
        Ok(out)
    }

    /// A task of split `sql`: its partial result over `blocks` of the
    /// largest table, as Arrow IPC bytes.
    #[pyo3(signature = (sql, blocks, params=None))]
    fn partial<'py>(
        &self,
        py: Python<'py>,
        sql: &str,
        blocks: Vec<usize>,
        params: Option<Vec<Bound<'py, PyAny>>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let split = self.split(py, sql, params)?;
        let bytes = run_query(py, &self.db, sql, move || split.partial(&blocks)?.to_ipc())?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// Partial results (Arrow IPC bytes) of split `sql` merged into one.
    #[pyo3(signature = (sql, parts, params=None))]
    fn combine<'py>(
        &self,
        py: Python<'py>,
        sql: &str,
        parts: Vec<Vec<u8>>,
        params: Option<Vec<Bound<'py, PyAny>>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let split = self.split(py, sql, params)?;
        let bytes = run_query(py, &self.db, sql, move || {
            split.combine(&read_partials(&parts)?)?.to_ipc()
        })?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The answer of split `sql` from the partial results of all its blocks.
    #[pyo3(signature = (sql, parts, params=None))]
    fn merge<'py>(
        &self,
        py: Python<'py>,
        sql: &str,
        parts: Vec<Vec<u8>>,
        params: Option<Vec<Bound<'py, PyAny>>>,
    ) -> PyResult<Result> {
        let split = self.split(py, sql, params)?;
        let inner = run_query(py, &self.db, sql, move || {
            split.merge(&read_partials(&parts)?)
        })?;
        Ok(Result {
            inner,
            batch: OnceLock::new(),
        })
    }

    /// The partial and final plans of split `sql`.
    #[pyo3(signature = (sql, params=None))]
    fn explain_split<'py>(
        &self,
        py: Python<'py>,
        sql: &str,
        params: Option<Vec<Bound<'py, PyAny>>>,
    ) -> PyResult<String> {
        let split = self.split(py, sql, params)?;
        run_query(py, &self.db, sql, move || split.explain())
    }

    /// Names of the tables in the directory, sorted.
    fn tables(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        self.db.tables().map_err(|e| query_error(py, &e, ""))
    }

    /// Interrupts the queries running on this database now.
    fn interrupt(&self) {
        self.db.interrupter().interrupt();
    }

    /// Loads `files` into the table directory `table`; returns a summary.
    #[pyo3(signature = (
        files, table, schema=None, format=None, sort_by=None, block_rows=None,
        delimiter=None, header=None, null=None, append=false, max_errors=0, threads=None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn ingest<'py>(
        &self,
        py: Python<'py>,
        files: Vec<String>,
        table: PathBuf,
        schema: Option<String>,
        format: Option<String>,
        sort_by: Option<Vec<String>>,
        block_rows: Option<usize>,
        delimiter: Option<String>,
        header: Option<bool>,
        null: Option<String>,
        append: bool,
        max_errors: u64,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (schema, declared_key) = match schema {
            Some(sql) => {
                let def =
                    strata_ingest::parse_create_table(&sql).map_err(|e| ingest_error(py, &e))?;
                (Some(def.schema), def.sort_key)
            }
            None => (None, Vec::new()),
        };
        let format = match format.as_deref().map(str::to_ascii_lowercase).as_deref() {
            None => None,
            Some("csv") => Some(strata_ingest::InputFormat::Csv),
            Some("tsv") => Some(strata_ingest::InputFormat::Tsv),
            Some("parquet") => Some(strata_ingest::InputFormat::Parquet),
            Some(other) => {
                return Err(raise(
                    py,
                    "InvalidInputError",
                    format!("format must be 'csv', 'tsv' or 'parquet', not {other:?}"),
                ))
            }
        };
        let delimiter = match delimiter.as_deref() {
            None => None,
            Some("tab" | "\t") => Some(b'\t'),
            Some(d) if d.len() == 1 && d.is_ascii() => Some(d.as_bytes()[0]),
            Some(d) => {
                return Err(PyValueError::new_err(format!(
                    "delimiter must be one ASCII character, not {d:?}"
                )))
            }
        };
        let cancel = Arc::new(AtomicBool::new(false));
        let defaults = strata_ingest::IngestOptions::default();
        let options = strata_ingest::IngestOptions {
            format,
            delimiter,
            header,
            null_string: null,
            block_rows: block_rows.unwrap_or(defaults.block_rows),
            threads: threads.unwrap_or(self.threads),
            max_errors,
            schema,
            append,
            sort_by: sort_by.or(Some(declared_key).filter(|k| !k.is_empty())),
            cancel: Some(cancel.clone()),
            ..defaults
        };
        let table = self.resolve(&table);
        let flag = cancel.clone();
        let stop = Stop {
            stop: &move || flag.store(true, Ordering::SeqCst),
            stopped: &|| false,
            grace: None,
        };
        let target = table.clone();
        let summary = match wait_for(py, stop, move || {
            strata_ingest::run(&files, &target, &options, &mut |_| {})
        })? {
            Waited::Done(summary) => summary.map_err(|e| ingest_error(py, &e))?,
            Waited::Signal(e) => return Err(e),
            Waited::Abandoned => {
                return Err(ingest_error(py, &strata_ingest::IngestError::Interrupted))
            }
        };
        let out = PyDict::new(py);
        out.set_item("table", table.to_string_lossy())?;
        out.set_item("rows", summary.rows)?;
        out.set_item("blocks", summary.blocks)?;
        out.set_item("table_rows", summary.table_rows)?;
        out.set_item("bytes_in", summary.bytes_in)?;
        out.set_item("bytes_out", summary.bytes_out)?;
        out.set_item("bad_rows", summary.bad_rows)?;
        out.set_item("sorted_by", summary.sorted_by.clone())?;
        out.set_item("seconds", summary.elapsed.as_secs_f64())?;
        Ok(out)
    }
}

impl Database {
    /// `sql` split for tasks (errors as for queries).
    fn split(
        &self,
        py: Python<'_>,
        sql: &str,
        params: Option<Vec<Bound<'_, PyAny>>>,
    ) -> PyResult<strata::SplitQuery> {
        let params = params
            .unwrap_or_default()
            .iter()
            .map(convert::to_value)
            .collect::<PyResult<Vec<_>>>()?;
        let db = self.db.clone();
        let text = sql.to_string();
        run_query(py, &self.db, sql, move || db.split_params(&text, &params))
    }

    /// A table name or path: relative paths are inside the database directory.
    fn resolve(&self, table: &Path) -> PathBuf {
        if table.is_absolute() {
            table.to_path_buf()
        } else {
            self.db.dir().join(table)
        }
    }
}

/// One query's result: named, typed columns of equal length.
#[pyclass(module = "strata._strata", frozen)]
struct Result {
    inner: strata::QueryResult,
    /// The Arrow form, built on first use.
    batch: OnceLock<RecordBatch>,
}

impl Result {
    fn record_batch(&self, py: Python<'_>) -> PyResult<&RecordBatch> {
        if let Some(b) = self.batch.get() {
            return Ok(b);
        }
        let batch = py
            .detach(|| self.inner.to_record_batch())
            .map_err(|e| raise(py, "DataError", format!("converting to Arrow: {e}")))?;
        Ok(self.batch.get_or_init(|| batch))
    }
}

#[pymethods]
impl Result {
    /// Number of rows.
    #[getter]
    fn num_rows(&self) -> usize {
        self.inner.num_rows()
    }

    /// Column names, in select-list order.
    #[getter]
    fn columns(&self) -> Vec<String> {
        self.inner
            .schema()
            .iter()
            .map(|(n, _)| n.to_string())
            .collect()
    }

    /// Column types as SQL type names (`BIGINT`, `DECIMAL(10,2)`, ...).
    #[getter]
    fn types(&self) -> Vec<String> {
        self.inner.schema().iter().map(|(_, t)| t.name()).collect()
    }

    /// Rows `start..end` as a list of tuples.
    fn rows<'py>(
        &self,
        py: Python<'py>,
        start: usize,
        end: usize,
    ) -> PyResult<Vec<Bound<'py, PyTuple>>> {
        convert::rows(py, &self.inner, start, end)
    }

    /// The first `limit` rows drawn as an aligned text table.
    fn render(&self, py: Python<'_>, limit: usize) -> PyResult<String> {
        let n = self.inner.num_rows();
        let mut text = Vec::new();
        let shown = if n > limit {
            let idx: Vec<u32> = (0..limit).filter_map(|i| u32::try_from(i).ok()).collect();
            let columns = self
                .inner
                .as_engine()
                .columns
                .iter()
                .map(|c| strata::engine::ResultColumn {
                    name: c.name.clone(),
                    ty: c.ty,
                    values: c.values.gather(&idx),
                })
                .collect();
            strata::QueryResult::new(strata::engine::QueryResult { columns })
        } else {
            self.inner.clone()
        };
        shown
            .write(strata::output::Format::Table, &mut text)
            .map_err(|e| raise(py, "InternalError", e.to_string()))?;
        let mut text = String::from_utf8_lossy(&text).into_owned();
        if n > limit {
            text.push_str(&format!("({n} rows, {limit} shown)\n"));
        }
        Ok(text)
    }

    /// The rows as an Arrow C stream (a `PyCapsule` named
    /// `arrow_array_stream`) of batches of at most `batch_rows` rows; the
    /// batches share the result's buffers.
    #[pyo3(signature = (batch_rows=None))]
    fn arrow_stream<'py>(
        &self,
        py: Python<'py>,
        batch_rows: Option<usize>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let batch = self.record_batch(py)?.clone();
        let n = batch.num_rows();
        let step = batch_rows.unwrap_or(n).max(1);
        let schema = batch.schema();
        let batches: Vec<RecordBatch> = if n == 0 {
            Vec::new()
        } else {
            (0..n)
                .step_by(step)
                .map(|at| batch.slice(at, step.min(n - at)))
                .collect()
        };
        let reader: Box<dyn RecordBatchReader + Send> = Box::new(RecordBatchIterator::new(
            batches.into_iter().map(Ok),
            schema,
        ));
        let stream = FFI_ArrowArrayStream::new(reader);
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }

    /// The Arrow PyCapsule stream interface: the whole result as one batch.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        // The schema is the result's own; consumers cast if they asked for another.
        let _ = requested_schema;
        self.arrow_stream(py, None)
    }
}

/// The native module.
#[pymodule]
fn _strata(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Database>()?;
    m.add_class::<Result>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

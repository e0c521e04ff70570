//! Reading CSV, TSV and Parquet input into strata tables.
//!
//! [`run`] streams the inputs into a new table (or appends to one) with
//! bounded memory: the calling thread reads and cuts blocks, a rayon pool
//! parses and encodes them, and they are written in input order (see
//! [`pipeline`] for the memory bound). A failed ingest leaves no table, or
//! with `append` the table exactly as it was.
//!
//! Modules: [`schema_sql`] (`CREATE TABLE` to schema), [`input`] (files,
//! globs, stdin, gzip/zstd), [`text`], [`csv`], [`tsv`] (records and fields),
//! [`parse`] (text to values), [`infer`] (schemas from samples),
//! [`parquet`] (Parquet column readers), [`text_input`] (text blocks),
//! [`pipeline`] (parallel ordered writing), [`sort`] (sorting rows by a
//! key on the way), [`error`].

pub mod count;
pub mod csv;
pub mod error;
pub mod infer;
pub mod input;
pub mod parquet;
pub mod parse;
pub mod pipeline;
pub mod schema_sql;
pub mod sort;
pub mod text;
pub mod text_input;
pub mod tsv;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use strata_format::{
    encode_block_rows, encode_block_with, ColumnData, Compression, EncodeOptions, RowAccess,
    Schema, TableWriter, WriteOptions, DEFAULT_BLOCK_ROWS,
};

pub use error::{IngestError, Position, Result, RowError};
pub use schema_sql::{create_table_sql, parse_create_table, TableDef};

use crate::pipeline::{Done, Pipeline};
use crate::text::TextDialect;
use crate::text_input::{RawBlock, TextContext, TextSource};

/// The input file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormat {
    /// Comma-separated values (RFC 4180).
    Csv,
    /// Tab-separated values (ClickHouse/PostgreSQL escaping).
    Tsv,
    /// Apache Parquet.
    Parquet,
}

/// How to ingest.
#[derive(Debug, Clone)]
pub struct IngestOptions {
    /// The input format; `None` takes it from the file extension.
    pub format: Option<InputFormat>,
    /// Field delimiter for CSV/TSV; `None` for `,` (CSV) or tab (TSV).
    pub delimiter: Option<u8>,
    /// Whether text inputs start with a header line; `None` for yes with CSV
    /// and no with TSV (ClickHouse's `TabSeparated`).
    pub header: Option<bool>,
    /// The text that means NULL; `None` for an empty unquoted field (CSV) or
    /// `\N` (TSV). With the CSV default, an empty unquoted field in a NOT
    /// NULL string column is read as the empty string (`""` always is).
    pub null_string: Option<String>,
    /// A quoted CSV field equal to the NULL marker is NULL too (DuckDB's
    /// `allow_quoted_nulls`): with the default marker, `""` is NULL.
    pub quoted_nulls: bool,
    /// With `header: None`, decide whether a CSV input's first line is a
    /// header with DuckDB's rule (see [`infer::sniff_header`]) instead of
    /// assuming one.
    pub sniff_header: bool,
    /// Rows per block.
    pub block_rows: usize,
    /// Worker threads; 0 for one per core.
    pub threads: usize,
    /// Bad rows to skip before failing.
    pub max_errors: u64,
    /// The table schema; `None` to take it from Parquet metadata, infer it
    /// from text, or (with `append`) use the table's.
    pub schema: Option<Schema>,
    /// Load only the input columns named here (case-insensitively; other
    /// names are ignored); when none is named, the table has no column, only
    /// the row counts (from Parquet metadata, or counted in text inputs
    /// without splitting their fields: see [`count`]). `None` loads every column. The schema (given, inferred or from
    /// Parquet) still describes the whole input; the table gets the chosen
    /// columns in input order. Values of the other columns are not checked.
    pub columns: Option<Vec<String>>,
    /// Add to an existing table instead of creating one.
    pub append: bool,
    /// fsync files before publishing the table.
    pub sync: bool,
    /// How string blocks are compressed (see
    /// [`strata_format::EncodeOptions::compression`]).
    pub compression: Compression,
    /// Whether rows are stored for reading in place or as compactly as
    /// possible (see [`strata_format::RowAccess`]).
    pub row_access: RowAccess,
    /// Stop reading once at least this many rows are read (whole blocks, so
    /// the table may hold more): the first rows of the input, in order.
    /// `None` reads everything.
    pub max_rows: Option<u64>,
    /// Sort the ingested rows by these columns (most significant first;
    /// NULLs last, ties in input order) before writing them: see [`sort`].
    /// With `append`, the new rows are sorted among themselves. `None` or
    /// empty keeps the input order.
    pub sort_by: Option<Vec<String>>,
    /// Working memory the ingest aims to stay under: blocks get fewer rows
    /// (never fewer than [`MIN_LIMITED_BLOCK_ROWS`]) where the blocks in
    /// flight, estimated from the input's bytes per row, would need more.
    /// `None` keeps `block_rows`.
    pub memory_limit: Option<u64>,
    /// Once set (from another thread: a Ctrl-C handler), the ingest stops
    /// at its next block with [`IngestError::Interrupted`], leaving no table
    /// (or the table as it was).
    pub cancel: Option<Arc<std::sync::atomic::AtomicBool>>,
}

/// The fewest rows per block a memory limit lowers blocks to.
pub const MIN_LIMITED_BLOCK_ROWS: usize = 4096;

/// Working memory of a block in flight per byte of its input, as measured
/// on wide string rows (a 520-byte string column: 2.9).
const BYTES_PER_INPUT_BYTE: u64 = 4;

impl Default for IngestOptions {
    fn default() -> Self {
        IngestOptions {
            format: None,
            delimiter: None,
            header: None,
            null_string: None,
            quoted_nulls: false,
            sniff_header: false,
            block_rows: DEFAULT_BLOCK_ROWS,
            threads: 0,
            max_errors: 0,
            schema: None,
            columns: None,
            append: false,
            sync: true,
            compression: Compression::default(),
            row_access: RowAccess::default(),
            max_rows: None,
            sort_by: None,
            cancel: None,
            memory_limit: None,
        }
    }
}

impl IngestOptions {
    /// [`IngestError::Interrupted`] once [`IngestOptions::cancel`] is set.
    fn check_cancel(&self) -> Result<()> {
        match &self.cancel {
            Some(c) if c.load(Ordering::Relaxed) => Err(IngestError::Interrupted),
            _ => Ok(()),
        }
    }

    /// Rows per block for an input of about `bytes_per_row` on `threads`
    /// workers: `block_rows`, or fewer where [`IngestOptions::memory_limit`]
    /// needs it. The pipeline holds `threads + 2` blocks in flight, each
    /// about [`BYTES_PER_INPUT_BYTE`] times its input (text, parsed columns,
    /// encoded form).
    fn limited_block_rows(&self, block_rows: usize, threads: usize, bytes_per_row: u64) -> usize {
        let Some(limit) = self.memory_limit else {
            return block_rows;
        };
        let per_block = (threads as u64 + 2) * BYTES_PER_INPUT_BYTE * bytes_per_row.max(1);
        let rows = usize::try_from(limit / per_block).unwrap_or(usize::MAX);
        rows.clamp(MIN_LIMITED_BLOCK_ROWS.min(block_rows), block_rows)
    }

    /// The encoder's choices these options make.
    fn encoding(&self) -> EncodeOptions {
        EncodeOptions {
            compression: self.compression,
            row_access: self.row_access,
        }
    }
}

/// Where a parsed block goes: to the encoder, or sorted into a run.
#[derive(Clone)]
struct BlockSink {
    schema: Arc<Schema>,
    encoding: EncodeOptions,
    sorter: Option<Arc<sort::Sorter>>,
}

impl BlockSink {
    /// The pipeline's result for the `seq`-th block of the input: its
    /// `rows` good rows and the bad rows skipped.
    fn take(
        &self,
        seq: u64,
        rows: usize,
        columns: Vec<ColumnData>,
        bad: pipeline::BadRows,
    ) -> Result<Done> {
        let (rows, encoded) = match (&self.sorter, rows) {
            (_, 0) => (0, None),
            (Some(sorter), _) => {
                // Counted as written when merged.
                sorter.spill(seq, rows, columns)?;
                (0, None)
            }
            (None, _) => (
                rows,
                Some(encode_block_with(
                    &self.schema,
                    rows,
                    columns,
                    self.encoding,
                )?),
            ),
        };
        Ok(Done {
            rows,
            encoded,
            bad_count: bad.count,
            bad: bad.first,
        })
    }

    /// With a sort, waits for every run and merges them into the table's
    /// blocks, reporting progress from `progress`.
    fn finish(
        &self,
        pipeline: &mut Pipeline,
        mut progress: Progress,
        options: &IngestOptions,
        on_event: &mut dyn FnMut(Event<'_>),
    ) -> Result<()> {
        let Some(sorter) = &self.sorter else {
            return Ok(());
        };
        pipeline.wait_all()?;
        progress.merging = Some(sorter.rows());
        on_event(Event::Progress(progress));
        let pool = pipeline.pool().clone();
        let block_rows = pipeline.block_rows();
        // Merged blocks go to the encoder.
        let encoder = BlockSink {
            sorter: None,
            ..self.clone()
        };
        sorter.merge(block_rows, &pool, &mut |rows, columns| {
            options.check_cancel()?;
            let encoder = encoder.clone();
            let no_bad_rows = pipeline::BadRows::new(0);
            pipeline.submit(move || encoder.take(0, rows, columns, no_bad_rows))?;
            pipeline.poll()?;
            progress.rows_written = pipeline.written.rows;
            on_event(Event::Progress(progress));
            Ok(())
        })
    }
}

/// Where the schema came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaSource {
    /// Given in the options.
    Given,
    /// Inferred from a sample of text records.
    Inferred,
    /// Read from Parquet metadata.
    Parquet,
    /// The existing table's (append).
    Table,
}

/// Progress so far.
#[derive(Debug, Clone, Copy, Default)]
pub struct Progress {
    /// Rows read.
    pub rows_read: u64,
    /// Rows written.
    pub rows_written: u64,
    /// Input bytes read (as stored, before decompression).
    pub bytes_read: u64,
    /// Total input bytes, when known (not for standard input).
    pub bytes_total: Option<u64>,
    /// While sorted runs are merged into the table (the input is all read):
    /// the rows to merge; `rows_written` of them are written.
    pub merging: Option<u64>,
}

/// What [`run`] reports while it works.
#[derive(Debug)]
pub enum Event<'a> {
    /// The schema is known (before any row is written).
    Schema {
        /// The schema.
        schema: &'a Schema,
        /// Where it came from.
        source: SchemaSource,
    },
    /// Some more input was read or written.
    Progress(Progress),
}

/// What an ingest did.
#[derive(Debug, Clone)]
pub struct IngestSummary {
    /// The schema written.
    pub schema: Schema,
    /// The names of every input column (the schema's unless
    /// [`IngestOptions::columns`] chose some).
    pub input_columns: Vec<String>,
    /// Where it came from.
    pub schema_source: SchemaSource,
    /// Rows written by this ingest.
    pub rows: u64,
    /// Blocks written by this ingest.
    pub blocks: u64,
    /// Rows in the table afterwards.
    pub table_rows: u64,
    /// Input bytes read (as stored).
    pub bytes_in: u64,
    /// Bytes written to the table directory.
    pub bytes_out: u64,
    /// Bad rows skipped (at most `max_errors`).
    pub bad_rows: u64,
    /// The first few of them.
    pub first_bad_rows: Vec<RowError>,
    /// Wall time.
    pub elapsed: Duration,
    /// The columns the rows were sorted by (empty: input order).
    pub sorted_by: Vec<String>,
}

fn resolve_format(paths: &[PathBuf], given: Option<InputFormat>) -> Result<InputFormat> {
    if let Some(f) = given {
        return Ok(f);
    }
    let mut found = None;
    for p in paths {
        let f = input::format_from_path(p).ok_or_else(|| {
            IngestError::Usage(format!(
                "cannot tell the format of {} from its name; give --format",
                input::display_name(p)
            ))
        })?;
        if found.is_some_and(|g| g != f) {
            return Err(IngestError::Usage(
                "inputs have different formats; ingest them separately or give --format".into(),
            ));
        }
        found = Some(f);
    }
    found.ok_or_else(|| IngestError::Usage("no input files given".into()))
}

/// Ingests `inputs` (files, globs, `-` for standard input) into the table at
/// `table`, calling `on_event` with the schema and with progress.
pub fn run(
    inputs: &[String],
    table: &Path,
    options: &IngestOptions,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<IngestSummary> {
    let started = Instant::now();
    if options.block_rows == 0 {
        return Err(IngestError::Usage("--block-rows must be at least 1".into()));
    }
    let paths = input::expand_inputs(inputs)?;
    if options.append && options.columns.is_some() {
        return Err(IngestError::Usage(
            "choosing columns is not supported when appending".into(),
        ));
    }
    let format = resolve_format(&paths, options.format)?;
    let write_options = WriteOptions {
        block_rows: options.block_rows,
        sync: options.sync,
    };
    if !options.append {
        if table.exists() {
            return Err(IngestError::Format(
                strata_format::FormatError::AlreadyExists(table.to_path_buf()),
            ));
        }
        if let Some(parent) = table.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| IngestError::io(parent, e))?;
        }
    }
    let appender = if options.append {
        let w = TableWriter::append(table, write_options.clone())?;
        if let Some(s) = &options.schema {
            if s != w.schema() {
                return Err(IngestError::Schema(format!(
                    "the given schema differs from the schema of the table at {}",
                    table.display()
                )));
            }
        }
        Some(w)
    } else {
        None
    };
    let ctx = Run {
        paths,
        table,
        options,
        write_options,
        bytes_total: None,
        started,
        input_columns: Vec::new(),
        sorted_by: Vec::new(),
        spill: None,
    };
    match format {
        InputFormat::Parquet => ctx.parquet(appender, on_event),
        InputFormat::Csv | InputFormat::Tsv => ctx.text(format, appender, on_event),
    }
}

struct Run<'a> {
    paths: Vec<PathBuf>,
    table: &'a Path,
    options: &'a IngestOptions,
    write_options: WriteOptions,
    bytes_total: Option<u64>,
    started: Instant,
    input_columns: Vec<String>,
    sorted_by: Vec<String>,
    /// Removes the sort's temporary runs when the ingest returns, however.
    spill: Option<sort::SpillDir>,
}

/// The columns of `schema` that `columns` chooses (see
/// [`IngestOptions::columns`]): the table schema and each one's input index.
fn choose_columns(schema: &Schema, columns: Option<&[String]>) -> Result<(Schema, Vec<usize>)> {
    let Some(names) = columns else {
        return Ok((schema.clone(), (0..schema.fields.len()).collect()));
    };
    let chosen: Vec<usize> = (0..schema.fields.len())
        .filter(|&i| {
            names
                .iter()
                .any(|n| n.eq_ignore_ascii_case(&schema.fields[i].name))
        })
        .collect();
    let fields = chosen.iter().map(|&i| schema.fields[i].clone()).collect();
    Ok((Schema::new(fields)?, chosen))
}

/// Writes `rows` rows of a table with no columns, in blocks of at most
/// `block_rows`.
fn submit_row_counts(
    pipeline: &mut Pipeline,
    schema: &Schema,
    mut rows: u64,
    block_rows: usize,
) -> Result<()> {
    let most = block_rows.min(strata_format::layout::MAX_BLOCK_ROWS) as u64;
    while rows > 0 {
        let n = rows.min(most) as usize;
        rows -= n as u64;
        let s = schema.clone();
        pipeline.submit(move || {
            Ok(Done {
                rows: n,
                encoded: Some(encode_block_rows(&s, n, Vec::new())?),
                bad_count: 0,
                bad: Vec::new(),
            })
        })?;
    }
    Ok(())
}

impl Run<'_> {
    /// Where blocks of `schema` go: sorted first when the options name a key.
    fn sink(&mut self, schema: &Schema) -> Result<BlockSink> {
        let names = self.options.sort_by.as_deref().unwrap_or_default();
        let sorter = if names.is_empty() || schema.fields.is_empty() {
            None
        } else {
            let key = sort::SortKey::resolve(schema, names)?;
            self.sorted_by = key
                .columns()
                .iter()
                .map(|&c| schema.fields[c].name.clone())
                .collect();
            let (sorter, spill) = sort::Sorter::new(schema, key, self.table)?;
            self.spill = Some(spill);
            Some(Arc::new(sorter))
        };
        Ok(BlockSink {
            schema: Arc::new(schema.clone()),
            encoding: self.options.encoding(),
            sorter,
        })
    }

    /// The writer (already open when appending) and where the schema is from.
    fn writer(
        &self,
        appender: Option<TableWriter>,
        schema: Option<(Schema, SchemaSource)>,
    ) -> Result<(TableWriter, Schema, SchemaSource)> {
        match (appender, schema) {
            (Some(w), _) => {
                let s = w.schema().clone();
                let source = if self.options.schema.is_some() {
                    SchemaSource::Given
                } else {
                    SchemaSource::Table
                };
                Ok((w, s, source))
            }
            (None, Some((s, source))) => {
                let mut options = self.write_options.clone();
                if s.is_empty() {
                    // A block without columns is only a row count: one file
                    // per 2^24 rows rather than per 2^19.
                    options.block_rows = strata_format::layout::MAX_BLOCK_ROWS;
                }
                let w = TableWriter::create(self.table, s.clone(), options)?;
                Ok((w, s, source))
            }
            (None, None) => Err(IngestError::Internal("no schema".into())),
        }
    }

    fn summary(
        &self,
        schema: Schema,
        source: SchemaSource,
        pipeline: Pipeline,
        bytes_in: u64,
    ) -> Result<IngestSummary> {
        let (ws, written) = pipeline.finish(self.options.cancel.as_deref())?;
        let input_columns = if self.input_columns.is_empty() {
            schema.fields.iter().map(|f| f.name.clone()).collect()
        } else {
            self.input_columns.clone()
        };
        Ok(IngestSummary {
            schema,
            input_columns,
            schema_source: source,
            rows: written.rows,
            blocks: written.blocks,
            table_rows: ws.rows,
            bytes_in,
            bytes_out: ws.bytes_written,
            bad_rows: written.bad_count,
            first_bad_rows: written.bad,
            elapsed: self.started.elapsed(),
            sorted_by: self.sorted_by.clone(),
        })
    }

    fn parquet(
        mut self,
        appender: Option<TableWriter>,
        on_event: &mut dyn FnMut(Event<'_>),
    ) -> Result<IngestSummary> {
        self.bytes_total = input::total_size(&self.paths);
        let mut opened = None;
        let given = match (&self.options.schema, appender.is_some()) {
            (_, true) => None,
            (Some(s), false) => Some((s.clone(), SchemaSource::Given)),
            (None, false) => {
                let first = self
                    .paths
                    .first()
                    .ok_or_else(|| IngestError::Usage("no input files given".into()))?;
                let (schema, file) = parquet::open_with_schema(first)?;
                opened = Some(file);
                Some((schema, SchemaSource::Parquet))
            }
        };
        let given = match given {
            Some((s, source)) => {
                self.input_columns = s.fields.iter().map(|f| f.name.clone()).collect();
                Some((
                    choose_columns(&s, self.options.columns.as_deref())?.0,
                    source,
                ))
            }
            None => None,
        };
        let bytes_per_row = opened.as_ref().and_then(parquet::OpenedFile::bytes_per_row);
        let (writer, schema, source) = self.writer(appender, given)?;
        let write_rows = writer.block_rows();
        on_event(Event::Schema {
            schema: &schema,
            source,
        });
        let sink = self.sink(&schema)?;
        let mut pipeline = Pipeline::new(writer, self.options.threads, self.options.max_errors)?;
        let threads = pipeline.pool().current_num_threads();
        let block_rows = match bytes_per_row {
            Some(b) => self.options.limited_block_rows(write_rows, threads, b),
            None => write_rows,
        };
        let mut src = parquet::ParquetSource::new(
            self.paths.clone(),
            schema.clone(),
            self.options.max_errors,
        )
        .reusing(opened);
        let mut rows_read = 0u64;
        let mut progress = Progress::default();
        let mut seq = 0;
        while let Some(block) = src.next_block(pipeline.pool(), block_rows)? {
            self.options.check_cancel()?;
            rows_read += (block.rows as u64) + block.bad.count;
            let sink = sink.clone();
            pipeline.submit(move || sink.take(seq, block.rows, block.columns, block.bad))?;
            seq += 1;
            pipeline.poll()?;
            progress = Progress {
                rows_read,
                rows_written: pipeline.written.rows,
                bytes_read: src.bytes_read(),
                bytes_total: self.bytes_total,
                merging: None,
            };
            on_event(Event::Progress(progress));
            if self.options.max_rows.is_some_and(|m| rows_read >= m) {
                break;
            }
        }
        sink.finish(&mut pipeline, progress, self.options, on_event)?;
        let bytes_in = self.bytes_total.unwrap_or(src.bytes_done);
        self.summary(schema, source, pipeline, bytes_in)
    }

    fn text(
        mut self,
        format: InputFormat,
        appender: Option<TableWriter>,
        on_event: &mut dyn FnMut(Event<'_>),
    ) -> Result<IngestSummary> {
        self.bytes_total = input::total_size(&self.paths);
        let opts = self.options;
        let dialect = match format {
            InputFormat::Csv => TextDialect::Csv {
                delimiter: opts.delimiter.unwrap_or(b','),
            },
            _ => TextDialect::Tsv {
                delimiter: opts.delimiter.unwrap_or(b'\t'),
            },
        };
        if matches!(opts.delimiter, Some(b'"' | b'\n' | b'\r' | b'\\')) {
            return Err(IngestError::Usage(
                "the delimiter cannot be a quote, backslash or newline".into(),
            ));
        }
        let null: Vec<u8> = opts.null_string.as_ref().map_or_else(
            || dialect.default_null().to_vec(),
            |s| s.as_bytes().to_vec(),
        );
        let header = match opts.header {
            Some(h) => h,
            None if format == InputFormat::Csv && opts.sniff_header => {
                infer::sniff_header(&self.paths, dialect, &null)?
            }
            None => format == InputFormat::Csv,
        };
        let counter = Arc::new(AtomicU64::new(0));
        let mut src = TextSource::new(self.paths.clone(), dialect, header, counter.clone());

        // Read ahead: the sample for inference, or just the first block.
        let mut queue: std::collections::VecDeque<RawBlock> = Default::default();
        let mut more = true;
        let infer = appender.is_none() && opts.schema.is_none();
        let mut sampled = 0;
        // A query's load may name no column (only rows are counted then):
        // read no more than the inference sample before knowing.
        // So may one under a memory limit, which may lower the block size
        // once the sample shows the bytes per row.
        let first_rows = if opts.columns.is_some() || opts.memory_limit.is_some() {
            opts.block_rows.min(infer::SAMPLE_ROWS)
        } else {
            opts.block_rows
        };
        loop {
            let mut b = RawBlock::default();
            more = more && src.fill(&mut b, first_rows)?;
            sampled += b.len();
            queue.push_back(b);
            if !more || !infer || sampled >= infer::SAMPLE_ROWS {
                break;
            }
        }
        let given = if appender.is_some() {
            None
        } else if let Some(s) = &opts.schema {
            Some((s.clone(), SchemaSource::Given))
        } else if sampled == 0 && src.header_names.is_none() && opts.columns.is_some() {
            // An empty input read for a query: no columns and no rows (as
            // DuckDB answers), rather than a schema error.
            Some((Schema::new(Vec::new())?, SchemaSource::Inferred))
        } else {
            let mut inf = infer::Inferrer::new(src.header_names.clone());
            if format == InputFormat::Csv && opts.quoted_nulls {
                inf = inf.with_quoted_null(null.clone());
            }
            let mut fields = text::Fields::default();
            // The first SAMPLE_ROWS records, however the blocks read ahead
            // were cut: the same types whatever the block size.
            let records = queue
                .iter()
                .flat_map(|b| (0..b.len()).map(move |i| b.record(i)))
                .take(infer::SAMPLE_ROWS);
            for record in records {
                if dialect.split(record, &null, &mut fields).is_ok() {
                    inf.observe(&fields);
                }
            }
            Some((inf.finish()?, SchemaSource::Inferred))
        };
        let (given, record_fields, source_index) = match given {
            Some((s, source)) => {
                self.input_columns = s.fields.iter().map(|f| f.name.clone()).collect();
                let (chosen, index) = choose_columns(&s, opts.columns.as_deref())?;
                (Some((chosen, source)), s.fields.len(), Some(index))
            }
            None => (None, 0, None),
        };
        let (writer, schema, source) = self.writer(appender, given)?;
        let sample_bytes: usize = queue.iter().map(RawBlock::bytes).sum();
        let bytes_per_row = (sample_bytes / sampled.max(1)) as u64;
        let source_index = source_index.unwrap_or_else(|| (0..schema.fields.len()).collect());
        let record_fields = record_fields.max(schema.fields.len());
        on_event(Event::Schema {
            schema: &schema,
            source,
        });
        let ctx = Arc::new(TextContext {
            schema: schema.clone(),
            dialect,
            null,
            empty_is_empty_string: format == InputFormat::Csv && opts.null_string.is_none(),
            quoted_nulls: format == InputFormat::Csv && opts.quoted_nulls,
            record_fields,
            source_index,
            max_errors: opts.max_errors,
        });
        let sink = self.sink(&schema)?;
        let write_rows = writer.block_rows();
        let mut pipeline = Pipeline::new(writer, opts.threads, opts.max_errors)?;
        let threads = pipeline.pool().current_num_threads();
        let block_rows = if schema.fields.is_empty() {
            write_rows
        } else {
            opts.limited_block_rows(write_rows, threads, bytes_per_row)
        };
        if schema.fields.is_empty() {
            // No column chosen: count the records, split no field.
            drop(queue);
            let count = count::CountOptions {
                dialect,
                header,
                skip_blank: record_fields > 1,
                max_errors: opts.max_errors,
                chunk_bytes: count::CHUNK_BYTES,
            };
            let bytes = Arc::new(AtomicU64::new(0));
            let rows = count::count_rows(&self.paths, &count, pipeline.pool(), &bytes)?;
            submit_row_counts(&mut pipeline, &schema, rows, block_rows)?;
            on_event(Event::Progress(Progress {
                rows_read: rows,
                rows_written: rows,
                bytes_read: bytes.load(Ordering::Relaxed),
                bytes_total: self.bytes_total,
                merging: None,
            }));
            let bytes_in = bytes.load(Ordering::Relaxed);
            return self.summary(schema, source, pipeline, bytes_in);
        }
        let mut rows_read = 0u64;
        let mut progress = Progress::default();
        let mut seq = 0;
        // Workers hand finished blocks back: reusing their buffers saves
        // faulting in fresh memory for every block.
        let (recycle, recycled) = std::sync::mpsc::channel::<RawBlock>();
        loop {
            let block = match queue.pop_front() {
                Some(b) => b,
                None if more => {
                    let mut b = recycled.try_recv().unwrap_or_default();
                    b.clear();
                    more = src.fill(&mut b, block_rows)?;
                    b
                }
                None => break,
            };
            if block.is_empty() {
                continue;
            }
            opts.check_cancel()?;
            rows_read += block.len() as u64;
            let ctx = ctx.clone();
            let recycle = recycle.clone();
            let sink = sink.clone();
            pipeline.submit(move || {
                let built = text_input::build_columns(&ctx, &block);
                let _ = recycle.send(block);
                sink.take(seq, built.rows, built.columns, built.bad)
            })?;
            seq += 1;
            pipeline.poll()?;
            progress = Progress {
                rows_read,
                rows_written: pipeline.written.rows,
                bytes_read: counter.load(Ordering::Relaxed),
                bytes_total: self.bytes_total,
                merging: None,
            };
            on_event(Event::Progress(progress));
            if opts.max_rows.is_some_and(|m| rows_read >= m) {
                break;
            }
        }
        sink.finish(&mut pipeline, progress, opts, on_event)?;
        let bytes_in = counter.load(Ordering::Relaxed);
        self.summary(schema, source, pipeline, bytes_in)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_memory_limit_lowers_the_block_size() {
        let mut o = IngestOptions::default();
        assert_eq!(o.limited_block_rows(1 << 19, 2, 500), 1 << 19);
        // 4 blocks in flight, 4 bytes per input byte: 500 rows per MB.
        o.memory_limit = Some(50_000_000);
        assert_eq!(o.limited_block_rows(1 << 19, 2, 500), 6250);
        // Never below the floor, nor above the table's block size.
        o.memory_limit = Some(1_000);
        assert_eq!(
            o.limited_block_rows(1 << 19, 2, 500),
            MIN_LIMITED_BLOCK_ROWS
        );
        assert_eq!(o.limited_block_rows(100, 2, 500), 100);
        o.memory_limit = Some(u64::MAX);
        assert_eq!(o.limited_block_rows(1 << 19, 2, 0), 1 << 19);
    }

    fn ingest(
        input: &Path,
        out: &Path,
        columns: Option<&[&str]>,
    ) -> (IngestSummary, strata_format::Table) {
        let table = out.join(format!("t{}", columns.map_or(0, |c| c.len() + 1)));
        let options = IngestOptions {
            columns: columns.map(|c| c.iter().map(|s| s.to_string()).collect()),
            sync: false,
            ..IngestOptions::default()
        };
        let inputs = [input.display().to_string()];
        let summary = run(&inputs, &table, &options, &mut |_| {}).unwrap();
        (summary, strata_format::Table::open(&table).unwrap())
    }

    fn names(t: &strata_format::Table) -> Vec<&str> {
        t.schema().fields.iter().map(|f| f.name.as_str()).collect()
    }

    #[test]
    fn chooses_columns() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("x.csv");
        std::fs::write(&csv, "name,id,flag\nann,1,true\nbob,2,false\n").unwrap();
        let (s, t) = ingest(&csv, dir.path(), Some(&["ID", "nope", "NAME"]));
        assert_eq!(names(&t), ["name", "id"]);
        assert_eq!(s.input_columns, ["name", "id", "flag"]);
        assert_eq!(t.num_rows(), 2);
        // None named: no column, the records counted.
        let (s, t) = ingest(&csv, dir.path(), Some(&[]));
        assert!(names(&t).is_empty());
        assert_eq!(t.num_rows(), 2);
        assert_eq!(s.input_columns, ["name", "id", "flag"]);
        let (s, t) = ingest(&csv, dir.path(), None);
        assert_eq!(names(&t), ["name", "id", "flag"]);
        assert_eq!(s.input_columns, ["name", "id", "flag"]);

        let pq = PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/duckdb.parquet"
        ));
        let all = parquet::parquet_schema(&pq).unwrap();
        let second = all.fields[1].name.clone();
        let (s, t) = ingest(&pq, dir.path(), Some(&[second.as_str()]));
        assert_eq!(names(&t), [second.as_str()]);
        assert_eq!(s.input_columns.len(), all.fields.len());
        // None named in Parquet: no column, only the row counts.
        let (s, t) = ingest(&pq, &dir.path().join("none"), Some(&["nope"]));
        assert!(names(&t).is_empty());
        assert_eq!(t.num_rows(), 2100);
        assert_eq!(s.input_columns.len(), all.fields.len());
    }

    /// Types are inferred from the first `SAMPLE_ROWS` records whatever the
    /// block size: a column of integers that turns to text after them is
    /// BIGINT, and the text row is a bad row, with small and large blocks.
    #[test]
    fn inference_sees_the_same_sample_at_any_block_size() {
        let dir = tempfile::tempdir().unwrap();
        let mut csv = String::from("n,s\n");
        for i in 0..infer::SAMPLE_ROWS {
            csv.push_str(&format!("{i},a\n"));
        }
        csv.push_str("x,b\n");
        let path = dir.path().join("late.csv");
        std::fs::write(&path, csv).unwrap();
        for block_rows in [7usize, 1 << 19] {
            let table = dir.path().join(format!("t{block_rows}"));
            let options = IngestOptions {
                block_rows,
                max_errors: 1,
                sync: false,
                ..IngestOptions::default()
            };
            let summary =
                run(&[path.display().to_string()], &table, &options, &mut |_| {}).unwrap();
            assert_eq!(
                summary.schema.fields[0].data_type,
                strata_format::DataType::Int64
            );
            assert_eq!(summary.bad_rows, 1, "{block_rows}");
            assert_eq!(summary.rows, infer::SAMPLE_ROWS as u64);
        }
    }

    /// A table of no columns from text: records counted (quoted and escaped
    /// newlines are not breaks, blank lines are no rows) in plain, gzip and
    /// zstd files, cut into blocks. Counts by construction: the CSV has a
    /// header and 4 records, the TSV (no header) 3.
    #[test]
    fn text_without_columns_counts_records() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let csv = "id,text\n1,\"a,b\"\n\n2,\"x\ny\"\r\n3,\"\"\"q\"\"\n\"\n4,z";
        let tsv = "1\ta\\\nb\n\n2\t\\\\\n3\t\"c\n";
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(csv.as_bytes()).unwrap();
        let files = [
            ("x.csv", csv.as_bytes().to_vec(), InputFormat::Csv, 4),
            ("x.csv.gz", gz.finish().unwrap(), InputFormat::Csv, 4),
            (
                "x.csv.zst",
                zstd::encode_all(csv.as_bytes(), 1).unwrap(),
                InputFormat::Csv,
                4,
            ),
            ("x.tsv", tsv.as_bytes().to_vec(), InputFormat::Tsv, 3),
        ];
        for (name, bytes, format, rows) in files {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            for block_rows in [1usize, 2, 1 << 19] {
                let table = dir.path().join(format!("{name}-{block_rows}"));
                let options = IngestOptions {
                    format: Some(format),
                    columns: Some(vec!["nope".into()]),
                    block_rows,
                    sync: false,
                    ..IngestOptions::default()
                };
                let inputs = [path.display().to_string()];
                let summary = run(&inputs, &table, &options, &mut |_| {}).unwrap();
                assert_eq!(summary.rows, rows, "{name}");
                let t = strata_format::Table::open(&table).unwrap();
                assert!(t.schema().is_empty());
                assert_eq!(t.num_rows(), rows, "{name}");
                // Only row counts: one block, whatever the block size.
                assert_eq!(t.num_blocks(), 1);
                strata_format::verify_table(&table).unwrap();
            }
        }
        // An unterminated quote is an error, not a count.
        let bad = dir.path().join("bad.csv");
        std::fs::write(&bad, "a,b\n1,\"x\n2,3\n").unwrap();
        let options = IngestOptions {
            columns: Some(Vec::new()),
            sync: false,
            ..IngestOptions::default()
        };
        let e = run(
            &[bad.display().to_string()],
            &dir.path().join("bad"),
            &options,
            &mut |_| {},
        )
        .unwrap_err();
        assert!(e.to_string().contains("unterminated"), "{e}");
    }

    /// A table of no columns from Parquet files with several row groups:
    /// the row counts of the files (2100 rows in row groups of 2048 and 52,
    /// as `tests/data/make_fixtures.py` wrote them; 10 in groups of 4, 4
    /// and 2) in one block across the row groups and the files.
    #[test]
    fn parquet_without_columns_counts_rows_across_row_groups() {
        let dir = tempfile::tempdir().unwrap();
        let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/");
        let inputs = [
            format!("{data}duckdb.parquet"),
            format!("{data}types_snappy.parquet"),
            format!("{data}duckdb.parquet"),
        ];
        for (i, block_rows) in [1000usize, 2048, 3, 1 << 19].into_iter().enumerate() {
            let table = dir.path().join(format!("t{i}"));
            let options = IngestOptions {
                columns: Some(Vec::new()),
                block_rows,
                sync: false,
                ..IngestOptions::default()
            };
            let summary = run(&inputs, &table, &options, &mut |_| {}).unwrap();
            assert_eq!(summary.rows, 4210);
            let t = strata_format::Table::open(&table).unwrap();
            assert!(t.schema().is_empty());
            assert_eq!(t.num_rows(), 4210);
            // Blocks without columns are only row counts: as large as the
            // format allows, whatever the block size asked for.
            assert_eq!(t.num_blocks(), 1);
            strata_format::verify_table(&table).unwrap();
        }
    }
}

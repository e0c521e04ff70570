//! Parquet inputs, read with the `parquet` crate's low-level column readers
//! (no Arrow): flat schemas only, any encoding and compression the crate
//! decodes (plain, dictionary, RLE, delta; Snappy, ZSTD, LZ4, gzip, Brotli,
//! none), any number of row groups, nullable columns.
//!
//! Columns are matched to the table schema by name (exactly, else ignoring
//! case); Parquet columns the schema does not name are skipped. Values are
//! converted to the column's type:
//! - integers to any integer type (range-checked), to floats, to `DATE`
//!   (days), to `TIMESTAMP` (seconds; ClickBench stores `EventTime` as plain
//!   int64 seconds), to `DECIMAL` (scaled) and to strings (decimal text);
//! - `DATE` logical values to `DATE` or `TIMESTAMP`; `TIMESTAMP(MILLIS |
//!   MICROS | NANOS)` and legacy INT96 to `TIMESTAMP` (floored to seconds);
//! - decimals (INT32, INT64, BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY) to `DECIMAL`
//!   (rescaled exactly; a lost digit is an error) or to strings;
//! - byte arrays to strings as they are (with or without the UTF-8
//!   annotation, valid UTF-8 or not), or parsed as text for other types;
//! - floats and booleans to their own types and to strings.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parquet::basic::{ConvertedType, LogicalType, TimeUnit, Type as Physical};
use parquet::column::reader::{ColumnReader, ColumnReaderImpl};
use parquet::data_type::DataType as ParquetType;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::schema::types::ColumnDescriptor;
use strata_format::types::{bool_key, float_key, signed_key};
use strata_format::{ColumnData, DataType, Field, Schema};

use crate::error::{IngestError, Position, Result, RowError};
use pages::{DictChunk, DictPiece, ValueKind};

mod hybrid;
mod pages;
use crate::input::display_name;
use crate::parse::{parse_key, pow10};
use crate::pipeline::BadRows;

/// What a Parquet column holds, from its physical and logical type.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Source {
    Bool,
    /// An integer; `unsigned` reinterprets the physical bits.
    Int {
        unsigned: bool,
    },
    Date,
    /// Timestamp in units of `1 / per_second` seconds.
    Timestamp {
        per_second: i64,
    },
    Int96,
    Decimal {
        scale: u32,
        precision: u32,
    },
    Float,
    Double,
    Bytes,
    /// A time of day or other integer-backed type strata has no type for.
    Other(&'static str),
}

fn parquet_error(path: &Path, e: impl std::fmt::Display) -> IngestError {
    IngestError::Parquet {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

fn source_of(d: &ColumnDescriptor) -> Source {
    let logical = d.logical_type_ref();
    match (d.physical_type(), logical) {
        (_, Some(LogicalType::Decimal(dec))) => Source::Decimal {
            scale: dec.scale.max(0) as u32,
            precision: dec.precision.max(0) as u32,
        },
        (_, Some(LogicalType::Date)) => Source::Date,
        (_, Some(LogicalType::Timestamp(t))) => Source::Timestamp {
            per_second: match t.unit {
                TimeUnit::MILLIS => 1_000,
                TimeUnit::MICROS => 1_000_000,
                TimeUnit::NANOS => 1_000_000_000,
            },
        },
        (_, Some(LogicalType::Time(_))) => Source::Other("TIME"),
        (_, Some(LogicalType::Integer(i))) => Source::Int {
            unsigned: !i.is_signed,
        },
        (_, Some(LogicalType::Float16)) => Source::Other("FLOAT16"),
        _ => match (d.physical_type(), d.converted_type()) {
            (_, ConvertedType::DECIMAL) => Source::Decimal {
                scale: d.type_scale().max(0) as u32,
                precision: d.type_precision().max(0) as u32,
            },
            (_, ConvertedType::DATE) => Source::Date,
            (_, ConvertedType::TIMESTAMP_MILLIS) => Source::Timestamp { per_second: 1_000 },
            (_, ConvertedType::TIMESTAMP_MICROS) => Source::Timestamp {
                per_second: 1_000_000,
            },
            (_, ConvertedType::TIME_MILLIS | ConvertedType::TIME_MICROS) => Source::Other("TIME"),
            (
                _,
                ConvertedType::UINT_8
                | ConvertedType::UINT_16
                | ConvertedType::UINT_32
                | ConvertedType::UINT_64,
            ) => Source::Int { unsigned: true },
            (Physical::BOOLEAN, _) => Source::Bool,
            (Physical::INT32 | Physical::INT64, _) => Source::Int { unsigned: false },
            (Physical::INT96, _) => Source::Int96,
            (Physical::FLOAT, _) => Source::Float,
            (Physical::DOUBLE, _) => Source::Double,
            (Physical::BYTE_ARRAY | Physical::FIXED_LEN_BYTE_ARRAY, _) => Source::Bytes,
        },
    }
}

/// The strata type a Parquet column becomes without a `--schema`.
fn natural_type(d: &ColumnDescriptor) -> Result<DataType, String> {
    let bits = match d.logical_type_ref() {
        Some(LogicalType::Integer(i)) => i.bit_width,
        _ => match d.converted_type() {
            ConvertedType::UINT_8 | ConvertedType::INT_8 => 8,
            ConvertedType::UINT_16 | ConvertedType::INT_16 => 16,
            ConvertedType::UINT_32 | ConvertedType::INT_32 => 32,
            _ => 64,
        },
    };
    Ok(match source_of(d) {
        Source::Bool => DataType::Bool,
        Source::Int { unsigned } => match (d.physical_type(), unsigned, bits) {
            (_, false, 8) => DataType::Int8,
            (_, false, 16) => DataType::Int16,
            (Physical::INT32, false, _) => DataType::Int32,
            (_, false, _) => DataType::Int64,
            (_, true, 8) => DataType::UInt8,
            (_, true, 16) => DataType::UInt16,
            (Physical::INT32, true, _) => DataType::UInt32,
            (_, true, _) => DataType::UInt64,
        },
        Source::Date => DataType::Date,
        Source::Timestamp { .. } | Source::Int96 => DataType::Timestamp,
        Source::Decimal { scale, precision } => {
            if precision > 18 {
                return Err(format!(
                    "DECIMAL({precision},{scale}) has more than the 18 digits strata stores"
                ));
            }
            DataType::Decimal {
                precision: precision as u8,
                scale: scale as u8,
            }
        }
        Source::Float => DataType::Float32,
        Source::Double => DataType::Float64,
        Source::Bytes => DataType::String,
        Source::Other(what) => return Err(format!("Parquet type {what} is not supported")),
    })
}

/// A Parquet file read with positional reads (`pread`).
///
/// The `parquet` crate's own `ChunkReader for File` clones the handle and
/// seeks, and cloned handles share one file offset, so column readers on
/// several threads would read each other's bytes. Positional reads have no
/// shared cursor.
#[derive(Debug, Clone)]
struct PositionalFile {
    file: Arc<File>,
    len: u64,
}

/// A sequential reader over a [`PositionalFile`] from some offset.
struct PositionalRead {
    file: Arc<File>,
    pos: u64,
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], pos: u64) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, pos)
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], pos: u64) -> std::io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, pos)
}

/// Reading at the end of the file is an error, not an empty read: page
/// headers are parsed from this reader, and a damaged page size that points
/// past the end had the parser take empty reads as empty headers, over and
/// over (found by fuzzing).
impl std::io::Read for PositionalRead {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = read_at(&self.file, buf, self.pos)?;
        if n == 0 && !buf.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!(
                    "a page header at byte {} is past the end of the file",
                    self.pos
                ),
            ));
        }
        self.pos += n as u64;
        Ok(n)
    }
}

impl parquet::file::reader::Length for PositionalFile {
    fn len(&self) -> u64 {
        self.len
    }
}

impl parquet::file::reader::ChunkReader for PositionalFile {
    type T = std::io::BufReader<PositionalRead>;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        Ok(std::io::BufReader::with_capacity(
            1 << 16,
            PositionalRead {
                file: self.file.clone(),
                pos: start,
            },
        ))
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<bytes::Bytes> {
        let mut buf = vec![0u8; length];
        let mut done = 0;
        while done < length {
            let n = read_at(&self.file, &mut buf[done..], start + done as u64)?;
            if n == 0 {
                return Err(parquet::errors::ParquetError::EOF(format!(
                    "expected {length} bytes at offset {start}, the file ends after {done}"
                )));
            }
            done += n;
        }
        Ok(buf.into())
    }
}

type Reader = SerializedFileReader<PositionalFile>;

fn open(path: &Path) -> Result<Reader> {
    let file = File::open(path).map_err(|e| IngestError::io(path, e))?;
    let len = file.metadata().map_err(|e| IngestError::io(path, e))?.len();
    let file = PositionalFile {
        file: Arc::new(file),
        len,
    };
    SerializedFileReader::new(file).map_err(|e| parquet_error(path, e))
}

fn check_flat(path: &Path, reader: &Reader) -> Result<()> {
    let descr = reader.metadata().file_metadata().schema_descr();
    for c in descr.columns() {
        if c.max_rep_level() > 0 || c.path().parts().len() > 1 {
            return Err(IngestError::Unsupported(format!(
                "{}: column {} is nested (a list, map or struct); only flat Parquet schemas are supported",
                path.display(),
                c.path()
            )));
        }
    }
    Ok(())
}

/// The schema of a Parquet file, from its metadata.
pub fn parquet_schema(path: &Path) -> Result<Schema> {
    Ok(open_with_schema(path)?.0)
}

/// A Parquet file opened (its footer read), ready for [`ParquetSource::reusing`].
pub struct OpenedFile {
    path: PathBuf,
    reader: Reader,
}

impl OpenedFile {
    /// The file's uncompressed bytes per row, from its row groups' metadata
    /// (`None` without rows).
    pub fn bytes_per_row(&self) -> Option<u64> {
        let meta = self.reader.metadata();
        let (mut bytes, mut rows) = (0u64, 0u64);
        for g in meta.row_groups() {
            bytes += u64::try_from(g.total_byte_size()).unwrap_or(0);
            rows += u64::try_from(g.num_rows()).unwrap_or(0);
        }
        (rows > 0).then(|| bytes.div_ceil(rows))
    }
}

/// Opens a Parquet file and reads its schema from its metadata.
pub fn open_with_schema(path: &Path) -> Result<(Schema, OpenedFile)> {
    let reader = open(path)?;
    check_flat(path, &reader)?;
    let descr = reader.metadata().file_metadata().schema_descr();
    let mut fields = Vec::new();
    for c in descr.columns() {
        let t = natural_type(c).map_err(|msg| {
            IngestError::Unsupported(format!("{}: column {}: {msg}", path.display(), c.name()))
        })?;
        fields.push(Field::new(c.name(), t, c.max_def_level() > 0));
    }
    let schema = Schema::new(fields).map_err(|e| IngestError::Schema(e.to_string()))?;
    Ok((
        schema,
        OpenedFile {
            path: path.to_path_buf(),
            reader,
        },
    ))
}

/// Whether values of `s` can be stored in a column of type `t`.
fn convertible(s: Source, t: DataType) -> bool {
    use DataType as D;
    match s {
        _ if t == D::String => !matches!(s, Source::Other(_)),
        Source::Bool => t == D::Bool || t.is_integer(),
        Source::Int { .. } => !matches!(t, D::Bool),
        Source::Date => matches!(t, D::Date | D::Timestamp),
        Source::Timestamp { .. } | Source::Int96 => t == D::Timestamp,
        Source::Decimal { .. } => matches!(t, D::Decimal { .. } | D::Float32 | D::Float64),
        Source::Float | Source::Double => matches!(t, D::Float32 | D::Float64),
        Source::Bytes => true,
        Source::Other(_) => false,
    }
}

/// How one Parquet column of a file feeds one table column.
struct ColumnPlan {
    leaf: usize,
    source: Source,
    target: Field,
    max_def: i16,
    /// Byte arrays to strings and integers to keys: chunks whose encodings
    /// allow it are read page by page, keeping their dictionaries (see
    /// [`pages`]).
    by_pages: Option<ValueKind>,
}

/// How one column chunk of a row group is read.
enum ChunkReader {
    /// The `parquet` crate's value reader.
    Values(Box<ColumnReader>),
    /// Pages, keeping the dictionary.
    Pages(Box<DictChunk>),
}

/// The Parquet file whose row groups are being opened.
struct OpenFile {
    path: Arc<Path>,
    name: Arc<str>,
    reader: Reader,
    next_row_group: usize,
    /// Rows of the row groups opened so far.
    rows_before: u64,
    total_rows: u64,
    file_len: u64,
    plans: Arc<[ColumnPlan]>,
}

/// A row group being read: one column reader per table column.
struct OpenGroup {
    path: Arc<Path>,
    name: Arc<str>,
    plans: Arc<[ColumnPlan]>,
    /// `None` while a decoding task has it.
    readers: Vec<Option<ChunkReader>>,
    /// Rows not yet given to a block.
    rows_left: usize,
    /// The file row (from 0) of the next row given to a block.
    next_row: u64,
}

/// A run of rows of one row group that goes into one block.
struct Piece {
    /// Index of the row group in [`ParquetSource::groups`].
    group: usize,
    rows: usize,
    /// The block (in the round) and its row where the piece starts.
    block: usize,
    block_row: usize,
    /// The file row (from 0) of the piece's first row.
    file_row: u64,
}

/// One column of one piece, decoded, with its bad values.
type DecodedPiece = (ColumnData, Vec<BadValue>);

/// What a decoding task hands back: the pieces of one column of one row
/// group, decoded, and the column's reader.
struct Decoded {
    group: usize,
    column: usize,
    reader: ChunkReader,
    pieces: Result<Vec<DecodedPiece>>,
}

/// A round of blocks whose columns are being decoded.
struct Round {
    pieces: Vec<Piece>,
    /// The rows of each block.
    blocks: Vec<usize>,
    /// Decoding tasks started; each sends one [`Decoded`].
    tasks: usize,
    results: std::sync::mpsc::Receiver<Decoded>,
}

/// A bad value found while converting a column.
struct BadValue {
    row: usize,
    column: String,
    value: Option<String>,
    message: String,
}

/// A block read from Parquet.
pub struct ParquetBlock {
    /// One column per schema field.
    pub columns: Vec<ColumnData>,
    /// Rows in the columns.
    pub rows: usize,
    /// Rows dropped for bad values.
    pub bad: BadRows,
}

/// Reads Parquet files one after the other into blocks of the table schema.
///
/// Blocks are decoded a few at a time: the row groups a round of blocks
/// spans are decoded in parallel, each column of each row group a task (the
/// pieces of one row group in order). With few columns a round holds
/// several blocks, so that even one column keeps every thread busy; with
/// many it holds one block, decoded column by column in parallel. The next
/// round is decoded while the blocks of the current one are taken and
/// encoded.
pub struct ParquetSource {
    paths: Vec<PathBuf>,
    next_path: usize,
    schema: Schema,
    current: Option<OpenFile>,
    /// Row groups opened and not yet fully read, in order.
    groups: std::collections::VecDeque<OpenGroup>,
    /// Blocks decoded and not yet returned.
    ready: std::collections::VecDeque<ParquetBlock>,
    /// The next round, being decoded.
    pending: Option<Round>,
    /// A file whose footer was read already.
    opened: Option<OpenedFile>,
    max_errors: u64,
    /// Whether string columns may be read keeping their dictionaries.
    by_pages: bool,
    /// Bytes of the files finished so far.
    pub bytes_done: u64,
}

impl ParquetSource {
    /// A source reading `paths` into `schema`, allowing `max_errors` bad rows.
    pub fn new(paths: Vec<PathBuf>, schema: Schema, max_errors: u64) -> ParquetSource {
        ParquetSource {
            paths,
            next_path: 0,
            schema,
            current: None,
            groups: Default::default(),
            ready: Default::default(),
            pending: None,
            opened: None,
            max_errors,
            by_pages: true,
            bytes_done: 0,
        }
    }

    /// Uses `opened` for its file instead of reading the footer again.
    pub fn reusing(mut self, opened: Option<OpenedFile>) -> ParquetSource {
        self.opened = opened;
        self
    }

    /// Reads every column with the `parquet` crate's value readers (the
    /// reference the dictionary-keeping reader is tested against).
    #[cfg(test)]
    fn values_only(mut self) -> ParquetSource {
        self.by_pages = false;
        self
    }

    fn open_next(&mut self) -> Result<bool> {
        let Some(path) = self.paths.get(self.next_path).cloned() else {
            return Ok(false);
        };
        self.next_path += 1;
        if path.as_os_str() == crate::input::STDIN {
            return Err(IngestError::Usage(
                "Parquet cannot be read from standard input; give a file".into(),
            ));
        }
        let reader = match self.opened.take() {
            Some(o) if o.path == path => o.reader,
            _ => {
                let reader = open(&path)?;
                check_flat(&path, &reader)?;
                reader
            }
        };
        let descr = reader.metadata().file_metadata().schema_descr_ptr();
        let mut plans = Vec::with_capacity(self.schema.len());
        for f in &self.schema.fields {
            let leaf = descr
                .columns()
                .iter()
                .position(|c| c.name() == f.name)
                .or_else(|| {
                    let mut it = descr
                        .columns()
                        .iter()
                        .enumerate()
                        .filter(|(_, c)| c.name().eq_ignore_ascii_case(&f.name));
                    match (it.next(), it.next()) {
                        (Some((i, _)), None) => Some(i),
                        _ => None,
                    }
                })
                .ok_or_else(|| {
                    IngestError::Schema(format!(
                        "{}: has no column {} (the schema's column {})",
                        path.display(),
                        f.name,
                        plans.len() + 1
                    ))
                })?;
            let c = descr.column(leaf);
            let source = source_of(&c);
            if !convertible(source, f.data_type) {
                return Err(IngestError::Schema(format!(
                    "{}: column {} holds Parquet {:?}{} values, which cannot be stored as {}",
                    path.display(),
                    f.name,
                    c.physical_type(),
                    c.logical_type_ref()
                        .map(|l| format!(" ({l:?})"))
                        .unwrap_or_default(),
                    f.data_type
                )));
            }
            plans.push(ColumnPlan {
                leaf,
                source,
                target: f.clone(),
                max_def: c.max_def_level(),
                by_pages: if self.by_pages {
                    page_kind(source, f.data_type, c.physical_type())
                } else {
                    None
                },
            });
        }
        let total_rows = u64::try_from(reader.metadata().file_metadata().num_rows()).unwrap_or(0);
        let file_len = std::fs::metadata(&path).map_or(0, |m| m.len());
        self.current = Some(OpenFile {
            total_rows,
            file_len,
            name: display_name(&path).into(),
            path: path.into(),
            reader,
            next_row_group: 0,
            rows_before: 0,
            plans: plans.into(),
        });
        Ok(true)
    }

    /// Opens the next row group (of this file or the next ones) at the back
    /// of `groups`; false at the end of the last file.
    fn open_group(&mut self) -> Result<bool> {
        loop {
            if self.current.is_none() && !self.open_next()? {
                return Ok(false);
            }
            let Some(file) = self.current.as_mut() else {
                continue;
            };
            if file.next_row_group == file.reader.num_row_groups() {
                self.bytes_done += file.file_len;
                self.current = None;
                continue;
            }
            let g = file.next_row_group;
            file.next_row_group += 1;
            let path = &file.path;
            let group = file
                .reader
                .get_row_group(g)
                .map_err(|e| parquet_error(path, format!("row group {g}: {e}")))?;
            let rows = usize::try_from(group.metadata().num_rows())
                .map_err(|_| parquet_error(path, "negative row count"))?;
            let readers = file
                .plans
                .iter()
                .map(|c| {
                    let chunk = group.metadata().column(c.leaf);
                    // A chunk outside the file (a damaged footer) would have
                    // the page readers retry reads that return nothing, page
                    // header by page header, or the crate panic on negative
                    // offsets (`byte_range`, not called for that reason).
                    let start = chunk
                        .dictionary_page_offset()
                        .unwrap_or(chunk.data_page_offset());
                    let len = chunk.compressed_size();
                    let in_file = u64::try_from(start)
                        .ok()
                        .zip(u64::try_from(len).ok())
                        .and_then(|(s, l)| s.checked_add(l))
                        .is_some_and(|end| end <= file.file_len);
                    if file.file_len > 0 && !in_file {
                        return Err(parquet_error(
                            path,
                            format!(
                                "row group {g}, column {}: the column chunk (bytes {start} to {}) \
                                 is not within the file ({} bytes)",
                                c.target.name,
                                start.saturating_add(len),
                                file.file_len
                            ),
                        ));
                    }
                    let by_pages = c
                        .by_pages
                        .as_ref()
                        .filter(|_| pages::supported(chunk.encodings()));
                    let reader = if let Some(kind) = by_pages {
                        group.get_column_page_reader(c.leaf).map(|p| {
                            ChunkReader::Pages(Box::new(DictChunk::new(p, kind.clone(), c.max_def)))
                        })
                    } else {
                        group
                            .get_column_reader(c.leaf)
                            .map(|r| ChunkReader::Values(Box::new(r)))
                    };
                    reader.map(Some).map_err(|e| {
                        parquet_error(
                            path,
                            format!("row group {g}, column {}: {e}", c.target.name),
                        )
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            self.groups.push_back(OpenGroup {
                path: file.path.clone(),
                name: file.name.clone(),
                plans: file.plans.clone(),
                readers,
                rows_left: rows,
                next_row: file.rows_before,
            });
            file.rows_before += rows as u64;
            return Ok(true);
        }
    }

    /// Input bytes read so far, estimated within the current file from the
    /// share of its rows read.
    pub fn bytes_read(&self) -> u64 {
        let current = self.current.as_ref().map_or(0, |f| {
            if f.total_rows == 0 {
                0
            } else {
                (f.file_len as f64 * f.rows_before as f64 / f.total_rows as f64) as u64
            }
        });
        self.bytes_done + current
    }

    /// Reads the next block of up to `block_rows` rows, decoding on `pool`;
    /// `None` at the end of the last file. Must not be called from a thread
    /// of `pool`.
    pub fn next_block(
        &mut self,
        pool: &rayon::ThreadPool,
        block_rows: usize,
    ) -> Result<Option<ParquetBlock>> {
        if self.ready.is_empty() {
            let round = match self.pending.take() {
                Some(round) => round,
                None => self.start_round(pool, block_rows)?,
            };
            self.finish_round(round)?;
            // With few columns, decode the next round while this one's
            // blocks are encoded: a round decoded only once they are all
            // taken would leave threads idle until its slowest column is
            // read. (With many, a round is one block of many columns'
            // tasks, which keep the threads busy; decoding ahead would only
            // hold one more block in memory.)
            if !self.ready.is_empty() && self.blocks_per_round(pool) > 1 {
                self.pending = Some(self.start_round(pool, block_rows)?);
            }
        }
        Ok(self.ready.pop_front())
    }

    /// Blocks in a round: enough for two tasks per thread, each a column of
    /// a row group.
    fn blocks_per_round(&self, pool: &rayon::ThreadPool) -> usize {
        let threads = pool.current_num_threads().max(1);
        (2 * threads)
            .div_ceil(self.schema.len().max(1))
            .clamp(1, 2 * threads)
    }

    /// Cuts the next round of blocks from the row groups and starts decoding
    /// its columns on `pool` (none at the end).
    fn start_round(&mut self, pool: &rayon::ThreadPool, block_rows: usize) -> Result<Round> {
        let max_blocks = self.blocks_per_round(pool);
        // Plan: cut the next blocks from the row groups.
        let mut pieces: Vec<Piece> = Vec::new();
        let mut blocks: Vec<usize> = Vec::new();
        let mut gi = 0;
        let mut more = true;
        while more && blocks.len() < max_blocks {
            let mut rows = 0;
            while rows < block_rows {
                if gi == self.groups.len() && !self.open_group()? {
                    more = false;
                    break;
                }
                let Some(g) = self.groups.get_mut(gi) else {
                    continue;
                };
                if g.rows_left == 0 {
                    gi += 1;
                    continue;
                }
                let take = g.rows_left.min(block_rows - rows);
                pieces.push(Piece {
                    group: gi,
                    rows: take,
                    block: blocks.len(),
                    block_row: rows,
                    file_row: g.next_row,
                });
                g.rows_left -= take;
                g.next_row += take as u64;
                rows += take;
            }
            if rows > 0 {
                blocks.push(rows);
            }
        }
        // Decode: one task per row group and column, its pieces in order,
        // each owning its column's reader until it hands it back.
        let (tx, results) = std::sync::mpsc::channel();
        let used = pieces.last().map_or(0, |p| p.group + 1);
        let mut tasks = 0;
        for (gi, g) in self.groups.iter_mut().take(used).enumerate() {
            let mine: Vec<(usize, usize)> = pieces
                .iter()
                .filter(|p| p.group == gi)
                .map(|p| (p.rows, p.block_row))
                .collect();
            for (column, slot) in g.readers.iter_mut().enumerate() {
                let Some(mut reader) = slot.take() else {
                    return Err(IngestError::Internal("a column reader is missing".into()));
                };
                let (plans, path, mine, tx) =
                    (g.plans.clone(), g.path.clone(), mine.clone(), tx.clone());
                tasks += 1;
                pool.spawn(move || {
                    let decoded = match plans.get(column) {
                        Some(plan) => mine
                            .iter()
                            .map(|&(rows, block_row)| {
                                let mut out = if plan.target.data_type.is_string() {
                                    ColumnData::new_strings()
                                } else {
                                    ColumnData::new_fixed()
                                };
                                let bad = read_column(plan, &mut reader, rows, block_row, &mut out)
                                    .map_err(|e| parquet_error(&path, e))?;
                                Ok((out, bad))
                            })
                            .collect(),
                        None => Err(IngestError::Internal("a column plan is missing".into())),
                    };
                    // The receiver is gone only if the ingest already failed.
                    let _ = tx.send(Decoded {
                        group: gi,
                        column,
                        reader,
                        pieces: decoded,
                    });
                });
            }
        }
        Ok(Round {
            pieces,
            blocks,
            tasks,
            results,
        })
    }

    /// Waits for `round`'s columns, gives their readers back to their row
    /// groups and assembles its blocks into `ready`.
    fn finish_round(&mut self, round: Round) -> Result<()> {
        let ncols = self.schema.len();
        let Round {
            pieces,
            blocks,
            tasks,
            results,
        } = round;
        let mut decoded: Vec<Vec<Option<DecodedPiece>>> = Vec::new();
        decoded.resize_with(pieces.last().map_or(0, |p| p.group + 1) * ncols, Vec::new);
        let mut first_error: Option<(usize, IngestError)> = None;
        for _ in 0..tasks {
            let done = results
                .recv()
                .map_err(|_| IngestError::Internal("a decoding task was lost".into()))?;
            if let Some(slot) = self
                .groups
                .get_mut(done.group)
                .and_then(|g| g.readers.get_mut(done.column))
            {
                *slot = Some(done.reader);
            }
            let task = done.group * ncols + done.column;
            match done.pieces {
                Ok(pieces) => {
                    if let Some(slot) = decoded.get_mut(task) {
                        *slot = pieces.into_iter().map(Some).collect();
                    }
                }
                // The first column's error in file order, whichever
                // finished first.
                Err(e) => {
                    if first_error.as_ref().is_none_or(|(t, _)| task < *t) {
                        first_error = Some((task, e));
                    }
                }
            }
        }
        if let Some((_, e)) = first_error {
            return Err(e);
        }
        // Assemble the blocks from their pieces.
        // Pieces are in row group order: the n-th of its group is at
        // `index - index of the group's first piece`.
        let mut nth_in_group = vec![0usize; pieces.len()];
        for i in 1..pieces.len() {
            if pieces[i].group == pieces[i - 1].group {
                nth_in_group[i] = nth_in_group[i - 1] + 1;
            }
        }
        let mut first_piece = 0;
        for (b, &rows) in blocks.iter().enumerate() {
            let mut columns: Vec<ColumnData> = self
                .schema
                .fields
                .iter()
                .map(|f| ColumnData::new_for(f.data_type))
                .collect();
            let mut bad_values: Vec<(BadValue, usize)> = Vec::new();
            let mut i = first_piece;
            while i < pieces.len() && pieces[i].block == b {
                let p = &pieces[i];
                for (c, column) in columns.iter_mut().enumerate() {
                    let slot = decoded
                        .get_mut(p.group * ncols + c)
                        .and_then(|v| v.get_mut(nth_in_group[i]))
                        .and_then(Option::take);
                    let Some((data, bad)) = slot else {
                        return Err(IngestError::Internal("a decoded piece is missing".into()));
                    };
                    column.append(data)?;
                    bad_values.extend(bad.into_iter().map(|v| (v, i)));
                }
                i += 1;
            }
            first_piece = i;
            let mut bad = BadRows::new(self.max_errors);
            let mut dropped: Vec<usize> = Vec::new();
            if !bad_values.is_empty() {
                bad_values.sort_by_key(|(v, _)| v.row);
                for (v, i) in bad_values {
                    if dropped.last() == Some(&v.row) {
                        continue; // several bad values in one row
                    }
                    dropped.push(v.row);
                    let p = &pieces[i];
                    let file_row = p.file_row + (v.row - p.block_row) as u64;
                    bad.add(RowError {
                        file: self
                            .groups
                            .get(p.group)
                            .map_or_else(String::new, |g| g.name.to_string()),
                        position: Position::Row(file_row + 1),
                        column: Some(v.column),
                        value: v.value,
                        message: v.message,
                    });
                }
                for c in &mut columns {
                    drop_rows(c, &dropped);
                }
            }
            self.ready.push_back(ParquetBlock {
                columns,
                rows: rows - dropped.len(),
                bad,
            });
        }
        // Row groups fully read are done.
        while self.groups.front().is_some_and(|g| g.rows_left == 0) {
            self.groups.pop_front();
        }
        Ok(())
    }
}

/// Reads `take` records of one column and appends them, converted, to `out`.
/// `block_row` is the block index of the first of them (for errors).
fn read_column(
    c: &ColumnPlan,
    reader: &mut ChunkReader,
    take: usize,
    block_row: usize,
    out: &mut ColumnData,
) -> std::result::Result<Vec<BadValue>, String> {
    // The `parquet` crate panics on some damaged data (found by fuzzing: a
    // dictionary-coded page in a chunk without a dictionary, in its value
    // readers); a panic is turned into this column's error. The reader is
    // not used again: the error ends the ingest.
    let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match reader {
        ChunkReader::Values(r) => read_column_values(c, r, take, block_row, out),
        ChunkReader::Pages(r) => read_column_pages(c, r, take, block_row, out),
    }));
    read.unwrap_or_else(|panic| {
        let why = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(format!(
            "damaged data the Parquet decoder failed on ({why})"
        ))
    })
    .map_err(|e| format!("column {}: {e}", c.target.name))
}

/// How a Parquet column may be read page by page, keeping its dictionary:
/// byte arrays into a string column as they are, and integers (converted
/// entry by entry) into any other column they convert to.
fn page_kind(source: Source, target: DataType, physical: Physical) -> Option<ValueKind> {
    let width = match physical {
        Physical::BYTE_ARRAY if source == Source::Bytes && target == DataType::String => {
            return Some(ValueKind::Bytes)
        }
        Physical::INT32 => 4,
        Physical::INT64 => 8,
        _ => return None,
    };
    let unsigned = matches!(source, Source::Int { unsigned: true });
    let ints = matches!(
        source,
        Source::Int { .. } | Source::Date | Source::Timestamp { .. } | Source::Decimal { .. }
    );
    if !ints || target == DataType::String || !convertible(source, target) {
        return None;
    }
    let key = move |raw: i64| -> std::result::Result<u64, String> {
        let wide = match (unsigned, width) {
            (true, 4) => i128::from(raw as i32 as u32),
            (true, _) => i128::from(raw as u64),
            (false, _) => i128::from(raw),
        };
        match convert_int(target, source, wide, false)? {
            Out::Key(k) => Ok(k),
            Out::Str(_) => Err(format!("an integer cannot be stored as {target}")),
        }
    };
    Some(ValueKind::Ints {
        width,
        key: Arc::new(key),
    })
}

/// [`read_column`] for a chunk read page by page: the bad values are NULLs
/// in a NOT NULL column and integers that did not convert.
fn read_column_pages(
    c: &ColumnPlan,
    reader: &mut DictChunk,
    take: usize,
    block_row: usize,
    out: &mut ColumnData,
) -> std::result::Result<Vec<BadValue>, String> {
    let mut piece = DictPiece::new(take);
    reader.take(take, &mut piece)?;
    let bad_value = |r: usize, message: &str| BadValue {
        row: block_row + r,
        column: c.target.name.clone(),
        value: None,
        message: message.to_string(),
    };
    let mut bad: Vec<BadValue> = piece
        .bad_rows()
        .into_iter()
        .map(|(r, m)| bad_value(r, m))
        .collect();
    if !c.target.nullable {
        bad.extend(
            piece
                .null_rows()
                .map(|r| bad_value(r, "NULL in a NOT NULL column")),
        );
    }
    out.append(piece.into_column(reader.kind()))
        .map_err(|e| e.to_string())?;
    Ok(bad)
}

fn read_column_values(
    c: &ColumnPlan,
    reader: &mut ColumnReader,
    take: usize,
    block_row: usize,
    out: &mut ColumnData,
) -> std::result::Result<Vec<BadValue>, String> {
    let mut defs = Vec::with_capacity(if c.max_def > 0 { take } else { 0 });
    let mut bad = Vec::new();
    let mut conv = Converter {
        target: c.target.data_type,
        source: c.source,
        nullable: c.target.nullable,
        name: &c.target.name,
        bad: &mut bad,
        row: block_row,
    };
    match reader {
        ColumnReader::BoolColumnReader(r) => {
            let vals = read_all(r, take, c.max_def, &mut defs)?;
            conv.emit(out, &defs, c.max_def, take, vals, |cv, v| {
                cv.convert_int(if *v { 1 } else { 0 }, true)
            });
        }
        ColumnReader::Int32ColumnReader(r) => {
            let vals = read_all(r, take, c.max_def, &mut defs)?;
            let unsigned = matches!(c.source, Source::Int { unsigned: true });
            let wide = |v: i32| {
                if unsigned {
                    v as u32 as i128
                } else {
                    v as i128
                }
            };
            if let Some(col) = conv.fast_ints(&vals, wide, &defs, c.max_def, take) {
                return out.append(col).map(|()| bad).map_err(|e| e.to_string());
            }
            conv.emit(out, &defs, c.max_def, take, vals, |cv, v| {
                cv.convert_int(wide(*v), false)
            });
        }
        ColumnReader::Int64ColumnReader(r) => {
            let vals = read_all(r, take, c.max_def, &mut defs)?;
            let unsigned = matches!(c.source, Source::Int { unsigned: true });
            let wide = |v: i64| {
                if unsigned {
                    v as u64 as i128
                } else {
                    v as i128
                }
            };
            if let Some(col) = conv.fast_ints(&vals, wide, &defs, c.max_def, take) {
                return out.append(col).map(|()| bad).map_err(|e| e.to_string());
            }
            conv.emit(out, &defs, c.max_def, take, vals, |cv, v| {
                cv.convert_int(wide(*v), false)
            });
        }
        ColumnReader::Int96ColumnReader(r) => {
            let vals = read_all(r, take, c.max_def, &mut defs)?;
            conv.emit(out, &defs, c.max_def, take, vals, |cv, v| {
                cv.convert_int(v.to_micros() as i128, false)
            });
        }
        ColumnReader::FloatColumnReader(r) => {
            let vals = read_all(r, take, c.max_def, &mut defs)?;
            conv.emit(out, &defs, c.max_def, take, vals, |cv, v| {
                cv.convert_float(*v as f64)
            });
        }
        ColumnReader::DoubleColumnReader(r) => {
            let vals = read_all(r, take, c.max_def, &mut defs)?;
            conv.emit(out, &defs, c.max_def, take, vals, |cv, v| {
                cv.convert_float(*v)
            });
        }
        ColumnReader::ByteArrayColumnReader(r) => {
            let vals = read_all(r, take, c.max_def, &mut defs)?;
            if let Some(col) = conv.fast_strings(&vals, &defs, c.max_def, take) {
                return out.append(col).map(|()| bad).map_err(|e| e.to_string());
            }
            conv.emit(out, &defs, c.max_def, take, vals, |cv, v| {
                cv.convert_bytes(v.data())
            });
        }
        ColumnReader::FixedLenByteArrayColumnReader(r) => {
            let vals = read_all(r, take, c.max_def, &mut defs)?;
            conv.emit(out, &defs, c.max_def, take, vals, |cv, v| {
                cv.convert_bytes(v.data())
            });
        }
    }
    Ok(bad)
}

/// Reads exactly `take` records' levels and values.
fn read_all<T: ParquetType>(
    r: &mut ColumnReaderImpl<T>,
    take: usize,
    max_def: i16,
    defs: &mut Vec<i16>,
) -> std::result::Result<Vec<T::T>, String> {
    let mut vals = Vec::with_capacity(take);
    let mut got = 0;
    while got < take {
        let levels = if max_def > 0 { Some(&mut *defs) } else { None };
        let (records, _, _) = r
            .read_records(take - got, levels, None, &mut vals)
            .map_err(|e| e.to_string())?;
        if records == 0 {
            return Err(format!(
                "column chunk ended after {got} of {take} expected rows"
            ));
        }
        got += records;
    }
    Ok(vals)
}

/// A converted value.
enum Out<'a> {
    Key(u64),
    Str(std::borrow::Cow<'a, [u8]>),
}

struct Converter<'a> {
    target: DataType,
    source: Source,
    nullable: bool,
    name: &'a str,
    bad: &'a mut Vec<BadValue>,
    row: usize,
}

/// Which rows of a piece are NULL, when converting a whole piece at once.
enum Presence {
    /// Every row has a value.
    All,
    /// `nulls[row]` for each row.
    Some(Vec<bool>),
}

/// How integers map to keys on the fast path (see [`Converter::fast_ints`]).
#[derive(Clone, Copy)]
enum IntKey {
    Signed,
    Unsigned,
    /// Microseconds from units of `1 / per_second` s (floored from
    /// nanoseconds).
    Micros(i64),
    /// Microseconds from days.
    DayMicros,
    /// Microseconds from seconds.
    SecondMicros,
}

impl Converter<'_> {
    /// The NULL rows of a piece, if its values can be converted in one go:
    /// as many values as present levels, and no NULL unless the column is
    /// nullable.
    fn presence(&self, values: usize, defs: &[i16], max_def: i16, take: usize) -> Option<Presence> {
        if max_def == 0 {
            return (values == take).then_some(Presence::All);
        }
        let present = defs.iter().filter(|&&d| d == max_def).count();
        if defs.len() != take || present != values || (present < take && !self.nullable) {
            return None;
        }
        Some(if present == take {
            Presence::All
        } else {
            Presence::Some(defs.iter().map(|&d| d != max_def).collect())
        })
    }

    /// Integers to an integer, date or timestamp column in one pass, when
    /// the smallest and the largest value convert (every value between them
    /// then does: these conversions are monotonic); `None` leaves the piece
    /// to [`Converter::emit`], which finds and reports the bad values.
    fn fast_ints<V: Copy>(
        &self,
        vals: &[V],
        wide: impl Fn(V) -> i128,
        defs: &[i16],
        max_def: i16,
        take: usize,
    ) -> Option<ColumnData> {
        use DataType as D;
        let how = match (self.target, self.source) {
            (D::UInt8 | D::UInt16 | D::UInt32 | D::UInt64, Source::Int { .. }) => IntKey::Unsigned,
            (D::Int8 | D::Int16 | D::Int32 | D::Int64, Source::Int { .. })
            | (D::Date, Source::Int { .. } | Source::Date) => IntKey::Signed,
            (D::Timestamp, Source::Int { .. }) => IntKey::SecondMicros,
            (D::Timestamp, Source::Timestamp { per_second }) => IntKey::Micros(per_second),
            (D::Timestamp, Source::Date) => IntKey::DayMicros,
            _ => return None,
        };
        let presence = self.presence(vals.len(), defs, max_def, take)?;
        let (mut lo, mut hi) = (i128::MAX, i128::MIN);
        for &v in vals {
            let w = wide(v);
            lo = lo.min(w);
            hi = hi.max(w);
        }
        if !vals.is_empty()
            && (self.convert_int(lo, false).is_err() || self.convert_int(hi, false).is_err())
        {
            return None;
        }
        // In range: the values fit the target, so these casts are exact.
        let key = |v: V| -> u64 {
            let w = wide(v);
            match how {
                IntKey::Unsigned => w as u64,
                IntKey::Signed => signed_key(w as i64),
                IntKey::Micros(per_second) => signed_key(timestamp_micros(w, per_second) as i64),
                IntKey::DayMicros => signed_key((w as i64) * MICROS_PER_DAY as i64),
                IntKey::SecondMicros => signed_key((w as i64) * MICROS_PER_SEC as i64),
            }
        };
        Some(match presence {
            Presence::All => ColumnData::Fixed {
                keys: vals.iter().map(|&v| key(v)).collect(),
                nulls: None,
            },
            Presence::Some(nulls) => {
                let mut it = vals.iter();
                let keys = nulls
                    .iter()
                    .map(|&null| {
                        if null {
                            0
                        } else {
                            it.next().map_or(0, |&v| key(v))
                        }
                    })
                    .collect();
                ColumnData::Fixed {
                    keys,
                    nulls: Some(nulls),
                }
            }
        })
    }

    /// Byte arrays to a string column in one pass.
    fn fast_strings(
        &self,
        vals: &[parquet::data_type::ByteArray],
        defs: &[i16],
        max_def: i16,
        take: usize,
    ) -> Option<ColumnData> {
        if self.target != DataType::String || self.source != Source::Bytes {
            return None;
        }
        let presence = self.presence(vals.len(), defs, max_def, take)?;
        let total: usize = vals.iter().map(|v| v.data().len()).sum();
        let mut bytes = Vec::with_capacity(total);
        let mut offsets = Vec::with_capacity(take + 1);
        offsets.push(0u64);
        let nulls = match presence {
            Presence::All => {
                for v in vals {
                    bytes.extend_from_slice(v.data());
                    offsets.push(bytes.len() as u64);
                }
                None
            }
            Presence::Some(nulls) => {
                let mut it = vals.iter();
                for &null in &nulls {
                    if !null {
                        bytes.extend_from_slice(it.next().map_or(&[][..], |v| v.data()));
                    }
                    offsets.push(bytes.len() as u64);
                }
                Some(nulls)
            }
        };
        Some(ColumnData::Strings {
            bytes,
            offsets,
            nulls,
        })
    }

    /// Walks the levels: NULL where the definition level is below the
    /// maximum, else the next value through `f`. A failed conversion pushes a
    /// NULL placeholder (the row is dropped later) and records the error.
    fn emit<V>(
        &mut self,
        out: &mut ColumnData,
        defs: &[i16],
        max_def: i16,
        take: usize,
        vals: Vec<V>,
        f: impl for<'v> Fn(&Self, &'v V) -> std::result::Result<Out<'v>, String>,
    ) {
        let mut vals = vals.iter();
        for i in 0..take {
            let present = max_def == 0 || defs.get(i) == Some(&max_def);
            let result = if present {
                match vals.next() {
                    Some(v) => f(self, v),
                    None => Err("fewer values than levels".to_string()),
                }
            } else if self.nullable {
                out.push_null();
                self.row += 1;
                continue;
            } else {
                Err("NULL in a NOT NULL column".to_string())
            };
            let pushed = match result {
                Ok(Out::Key(k)) => out.push_key(k).map_err(|e| e.to_string()),
                Ok(Out::Str(s)) => out.push_str(&s).map_err(|e| e.to_string()),
                Err(e) => Err(e),
            };
            if let Err(message) = pushed {
                out.push_null();
                self.bad.push(BadValue {
                    row: self.row,
                    column: self.name.to_string(),
                    value: None,
                    message,
                });
            }
            self.row += 1;
        }
    }

    fn convert_int(&self, v: i128, from_bool: bool) -> std::result::Result<Out<'static>, String> {
        convert_int(self.target, self.source, v, from_bool)
    }

    fn convert_float(&self, v: f64) -> std::result::Result<Out<'static>, String> {
        match self.target {
            DataType::Float32 => Ok(Out::Key(float_key(v as f32 as f64))),
            DataType::Float64 => Ok(Out::Key(float_key(v))),
            DataType::String => Ok(Out::Str(v.to_string().into_bytes().into())),
            t => Err(format!("a float cannot be stored as {t}")),
        }
    }

    fn convert_bytes<'v>(&self, b: &'v [u8]) -> std::result::Result<Out<'v>, String> {
        if let Source::Decimal { .. } = self.source {
            if b.len() > 16 {
                return Err("decimal wider than 128 bits".into());
            }
            // Big-endian two's complement, sign-extended.
            let mut v: i128 = if b.first().is_some_and(|&x| x & 0x80 != 0) {
                -1
            } else {
                0
            };
            for &x in b {
                v = (v << 8) | x as i128;
            }
            return self.convert_int(v, false);
        }
        match self.target {
            DataType::String => Ok(Out::Str(b.into())),
            t => parse_key(t, b).map(Out::Key),
        }
    }
}

/// Converts an integer (from a column of `source` values) to `t`: a key,
/// or text for a string column; `from_bool` when it was a boolean.
/// Microseconds per second and per day (TIMESTAMP values are microseconds).
const MICROS_PER_SEC: i128 = 1_000_000;
const MICROS_PER_DAY: i128 = 86_400 * MICROS_PER_SEC;

/// Microseconds of `v` units of `1 / per_second` seconds: milliseconds
/// scaled up, nanoseconds rounded half away from zero (as DuckDB casts
/// TIMESTAMP_NS to TIMESTAMP).
fn timestamp_micros(v: i128, per_second: i64) -> i128 {
    let per_second = i128::from(per_second);
    if per_second <= MICROS_PER_SEC {
        v * (MICROS_PER_SEC / per_second)
    } else {
        let d = per_second / MICROS_PER_SEC;
        let (q, r) = (v / d, v % d);
        q + i128::from(2 * r >= d) - i128::from(2 * r <= -d)
    }
}

fn convert_int(
    t: DataType,
    source: Source,
    v: i128,
    from_bool: bool,
) -> std::result::Result<Out<'static>, String> {
    use DataType as D;
    let range = |min: i128, max: i128| {
        if v < min || v > max {
            Err(format!("{v} is out of range for {t}"))
        } else {
            Ok(v)
        }
    };
    let key = match t {
        D::Bool => {
            if from_bool || v == 0 || v == 1 {
                bool_key(v != 0)
            } else {
                return Err(format!("{v} is not a BOOLEAN"));
            }
        }
        D::Int8 => signed_key(range(i8::MIN as i128, i8::MAX as i128)? as i64),
        D::Int16 => signed_key(range(i16::MIN as i128, i16::MAX as i128)? as i64),
        D::Int32 => signed_key(range(i32::MIN as i128, i32::MAX as i128)? as i64),
        D::Int64 => signed_key(range(i64::MIN as i128, i64::MAX as i128)? as i64),
        D::UInt8 => range(0, u8::MAX as i128)? as u64,
        D::UInt16 => range(0, u16::MAX as i128)? as u64,
        D::UInt32 => range(0, u32::MAX as i128)? as u64,
        D::UInt64 => range(0, u64::MAX as i128)? as u64,
        D::Float32 => float_key(scaled_float(source, v) as f32 as f64),
        D::Float64 => float_key(scaled_float(source, v)),
        D::Date => signed_key(range(i32::MIN as i128, i32::MAX as i128)? as i64),
        D::Timestamp => {
            let micros = match source {
                Source::Timestamp { per_second } => timestamp_micros(v, per_second),
                Source::Date => v * MICROS_PER_DAY,
                // INT96 values arrive as microseconds.
                Source::Int96 => v,
                // Plain integers count seconds.
                _ => v * MICROS_PER_SEC,
            };
            if micros < i64::MIN as i128 || micros > i64::MAX as i128 {
                return Err(format!("{v} is out of range for TIMESTAMP"));
            }
            signed_key(micros as i64)
        }
        D::Decimal { precision, scale } => {
            let from_scale = match source {
                Source::Decimal { scale, .. } => scale,
                _ => 0,
            };
            let to = scale as u32;
            let scaled = if to >= from_scale {
                v.checked_mul(pow10(to - from_scale))
            } else {
                let d = pow10(from_scale - to);
                if v % d != 0 {
                    return Err(format!(
                        "{} has more than {to} decimal places",
                        decimal_text(v, from_scale)
                    ));
                }
                Some(v / d)
            };
            match scaled {
                Some(s) if s.abs() < pow10(precision as u32) => signed_key(s as i64),
                _ => {
                    return Err(format!(
                        "{} is out of range for {t}",
                        decimal_text(v, from_scale)
                    ))
                }
            }
        }
        D::String => {
            let text = match source {
                Source::Decimal { scale, .. } => decimal_text(v, scale),
                _ if from_bool => (v != 0).to_string(),
                _ => v.to_string(),
            };
            return Ok(Out::Str(text.into_bytes().into()));
        }
    };
    Ok(Out::Key(key))
}

/// An integer as a float, scaled for a decimal source.
fn scaled_float(source: Source, v: i128) -> f64 {
    match source {
        Source::Decimal { scale, .. } => v as f64 / pow10(scale) as f64,
        _ => v as f64,
    }
}

/// Removes the rows at the (sorted) block indexes `drop`.
fn drop_rows(col: &mut ColumnData, drop: &[usize]) {
    let keep = |i: usize| drop.binary_search(&i).is_err();
    let retain_nulls = |nulls: &mut Option<Vec<bool>>| {
        if let Some(n) = nulls {
            let mut i = 0;
            n.retain(|_| {
                i += 1;
                keep(i - 1)
            });
        }
    };
    match col {
        ColumnData::Fixed { keys, nulls } => {
            let mut i = 0;
            keys.retain(|_| {
                i += 1;
                keep(i - 1)
            });
            retain_nulls(nulls);
        }
        ColumnData::Strings {
            bytes,
            offsets,
            nulls,
        } => {
            let mut new_bytes = Vec::with_capacity(bytes.len());
            let mut new_offsets = vec![0];
            for (i, w) in offsets.windows(2).enumerate() {
                if keep(i) {
                    new_bytes.extend_from_slice(&bytes[w[0] as usize..w[1] as usize]);
                    new_offsets.push(new_bytes.len() as u64);
                }
            }
            *bytes = new_bytes;
            *offsets = new_offsets;
            retain_nulls(nulls);
        }
        ColumnData::FixedDict { indices, nulls, .. }
        | ColumnData::StringDict { indices, nulls, .. } => {
            let mut i = 0;
            indices.retain(|_| {
                i += 1;
                keep(i - 1)
            });
            retain_nulls(nulls);
        }
    }
}

fn decimal_text(v: i128, scale: u32) -> String {
    if scale == 0 {
        return v.to_string();
    }
    let d = pow10(scale);
    let sign = if v < 0 { "-" } else { "" };
    let a = v.unsigned_abs();
    format!(
        "{sign}{}.{:0width$}",
        a / d as u128,
        a % d as u128,
        width = scale as usize
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_format::types::signed_from_key;

    fn data(name: &str) -> PathBuf {
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data")).join(name)
    }

    #[derive(Debug, Clone, PartialEq)]
    enum V {
        Null,
        K(u64),
        S(Vec<u8>),
    }

    /// Reads whole files into one value list per column, in blocks of `block_rows`.
    fn read(
        paths: &[&str],
        schema: &Schema,
        block_rows: usize,
        max_errors: u64,
    ) -> Result<(Vec<Vec<V>>, u64, Vec<RowError>)> {
        let paths = paths.iter().map(|p| data(p)).collect();
        let src = ParquetSource::new(paths, schema.clone(), max_errors);
        read_all_blocks(src, schema, block_rows).map(|(cols, bad, first, _)| (cols, bad, first))
    }

    /// Reads `src` to the end: the values per column, the bad row count,
    /// the first bad rows, and whether each column came dictionary-coded
    /// in every block.
    #[allow(clippy::type_complexity)]
    fn read_all_blocks(
        mut src: ParquetSource,
        schema: &Schema,
        block_rows: usize,
    ) -> Result<(Vec<Vec<V>>, u64, Vec<RowError>, Vec<bool>)> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let mut cols = vec![Vec::new(); schema.len()];
        let mut dict = vec![true; schema.len()];
        let (mut bad, mut first) = (0, Vec::new());
        while let Some(b) = src.next_block(&pool, block_rows)? {
            for (d, c) in dict.iter_mut().zip(&b.columns) {
                *d &= matches!(
                    c,
                    ColumnData::StringDict { .. } | ColumnData::FixedDict { .. }
                );
            }
            assert!(b.rows <= block_rows);
            bad += b.bad.count;
            first.extend(b.bad.first);
            for (out, c) in cols.iter_mut().zip(&b.columns) {
                assert_eq!(c.len(), b.rows);
                for i in 0..c.len() {
                    out.push(if c.is_null(i) {
                        V::Null
                    } else {
                        match c {
                            ColumnData::Fixed { keys, .. } => V::K(keys[i]),
                            ColumnData::FixedDict {
                                entries, indices, ..
                            } => V::K(entries[indices[i] as usize]),
                            ColumnData::Strings { bytes, offsets, .. } => {
                                V::S(bytes[offsets[i] as usize..offsets[i + 1] as usize].to_vec())
                            }
                            ColumnData::StringDict {
                                bytes,
                                offsets,
                                indices,
                                ..
                            } => {
                                let e = indices[i] as usize;
                                V::S(bytes[offsets[e] as usize..offsets[e + 1] as usize].to_vec())
                            }
                        }
                    });
                }
            }
        }
        Ok((cols, bad, first, dict))
    }

    fn col<'a>(cols: &'a [Vec<V>], schema: &Schema, name: &str) -> &'a [V] {
        &cols[schema.index_of(name).unwrap()]
    }

    fn signed(v: &V) -> Option<i64> {
        match v {
            V::K(k) => Some(signed_from_key(*k)),
            _ => None,
        }
    }

    const CODECS: [&str; 7] = [
        "types_snappy.parquet",
        "types_zstd.parquet",
        "types_lz4.parquet",
        "types_gzip.parquet",
        "types_brotli.parquet",
        "types_none.parquet",
        "types_plain_v2.parquet",
    ];

    #[test]
    fn natural_schema_from_metadata() {
        let s = parquet_schema(&data("types_snappy.parquet")).unwrap();
        use DataType as D;
        let types: Vec<DataType> = s.fields.iter().map(|f| f.data_type).collect();
        assert_eq!(
            types,
            vec![
                D::Int8,
                D::Int16,
                D::Int32,
                D::Int64,
                D::UInt8,
                D::UInt16,
                D::UInt32,
                D::UInt64,
                D::Float32,
                D::Float64,
                D::Bool,
                D::Date,
                D::Timestamp,
                D::Timestamp,
                D::Timestamp,
                D::Decimal {
                    precision: 9,
                    scale: 2
                },
                D::Decimal {
                    precision: 18,
                    scale: 4
                },
                D::String,
                D::String,
                D::String,
            ]
        );
        assert!(s.fields.iter().all(|f| f.nullable));
    }

    #[test]
    fn every_codec_and_block_size_reads_the_same_values() {
        let schema = parquet_schema(&data("types_snappy.parquet")).unwrap();
        let (reference, bad, _) = read(&[CODECS[0]], &schema, 1000, 0).unwrap();
        assert_eq!(bad, 0);
        let c = |n| col(&reference, &schema, n);
        assert_eq!(c("i64")[0], V::K(signed_key(i64::MIN)));
        assert_eq!(c("i64")[1], V::K(signed_key(i64::MAX)));
        assert_eq!(c("i8")[0], V::K(signed_key(-128)));
        assert_eq!(c("u64")[1], V::K(u64::MAX));
        assert_eq!(c("u32")[1], V::K(u32::MAX as u64));
        assert_eq!(c("u16")[2], V::K(15901));
        assert_eq!(c("f32")[2], V::K(float_key(0.1f32 as f64)));
        assert_eq!(c("f32")[3], V::Null);
        assert_eq!(c("f64")[3], V::K(float_key(1e300)));
        assert_eq!(c("b")[..3], [V::K(1), V::K(0), V::Null]);
        assert_eq!(signed(&c("d")[0]), Some(15901));
        assert_eq!(signed(&c("d")[2]), Some(-1));
        assert_eq!(c("d")[3], V::Null);
        // Timestamps are microseconds: nanoseconds round to the nearest.
        let ts = |name, r: usize| signed(&c(name)[r]);
        assert_eq!(
            (ts("ts_ms", 0), ts("ts_us", 0), ts("ts_ns", 0)),
            (
                Some(1_373_834_327_123_000),
                Some(1_373_834_327_123_456),
                Some(1_373_834_327_123_457)
            )
        );
        assert_eq!(
            (ts("ts_ms", 1), ts("ts_us", 1), ts("ts_ns", 1)),
            (Some(-1000), Some(-1), Some(0))
        );
        for name in ["ts_ms", "ts_us", "ts_ns"] {
            assert_eq!(signed(&c(name)[2]), Some(0), "{name}");
        }
        assert_eq!(signed(&c("dec9")[0]), Some(12345));
        assert_eq!(signed(&c("dec9")[1]), Some(-1));
        assert_eq!(c("dec9")[2], V::Null);
        assert_eq!(signed(&c("dec18")[0]), Some(123456789012345678));
        assert_eq!(signed(&c("dec18")[1]), Some(-10001));
        assert_eq!(
            c("s")[..3],
            [V::S(b"hello".to_vec()), V::S(vec![]), V::Null]
        );
        assert_eq!(c("s")[4], V::S(b"a\nb".to_vec()));
        assert_eq!(c("bin")[0], V::S(b"\xff\xfe".to_vec()));
        assert_eq!(c("low_card")[4], V::S(b"blue".to_vec()));
        for file in CODECS {
            for block_rows in [1, 3, 4, 5, 1000] {
                let (got, _, _) = read(&[file], &schema, block_rows, 0).unwrap();
                assert_eq!(got, reference, "{file} in blocks of {block_rows}");
            }
        }
    }

    /// With one column, a round decodes several blocks (row groups in
    /// parallel): the values and the rows of bad values are the same as
    /// with one block at a time.
    #[test]
    fn rounds_of_several_blocks_read_the_same_values() {
        let all = parquet_schema(&data("types_snappy.parquet")).unwrap();
        let (reference, _, _) = read(&[CODECS[0]], &all, 1000, 0).unwrap();
        for name in ["i64", "s", "low_card", "f32"] {
            let i = all.index_of(name).unwrap();
            let one = Schema::new(vec![all.fields[i].clone()]).unwrap();
            for file in ["types_plain_v2.parquet", "types_zstd.parquet"] {
                for block_rows in [1, 2, 3, 4, 7] {
                    let (got, _, _) = read(&[file, file], &one, block_rows, 0).unwrap();
                    let twice: Vec<V> = reference[i].iter().chain(&reference[i]).cloned().collect();
                    assert_eq!(got[0], twice, "{name} {file} {block_rows}");
                }
            }
        }
        let s = schema("CREATE TABLE t (i32 SMALLINT)");
        for block_rows in [1, 2, 3, 1000] {
            let (got, bad, first) = read(&["types_plain_v2.parquet"], &s, block_rows, 5).unwrap();
            assert_eq!((got[0].len(), bad), (8, 2));
            // The first two values overflow SMALLINT (rows are counted from 1).
            assert_eq!(first[0].position, Position::Row(1));
            assert_eq!(first[1].position, Position::Row(2));
        }
    }

    #[test]
    fn several_files_are_read_in_order() {
        let schema = parquet_schema(&data("types_snappy.parquet")).unwrap();
        let (got, _, _) = read(&[CODECS[0], CODECS[1]], &schema, 7, 0).unwrap();
        assert_eq!(got[0].len(), 20);
        assert_eq!(got[0][..10], got[0][10..]);
    }

    #[test]
    fn int96_timestamps() {
        let schema = parquet_schema(&data("int96.parquet")).unwrap();
        assert_eq!(schema.fields[0].data_type, DataType::Timestamp);
        let (got, _, _) = read(&["int96.parquet"], &schema, 100, 0).unwrap();
        assert_eq!(
            got[0],
            vec![
                V::K(signed_key(1_373_834_327_000_000)),
                V::K(signed_key(0)),
                V::Null
            ]
        );
    }

    #[test]
    fn nested_columns_are_refused_by_name() {
        let e = parquet_schema(&data("nested.parquet")).unwrap_err();
        assert!(matches!(e, IngestError::Unsupported(_)), "{e}");
        assert!(e.to_string().contains("tags"), "{e}");
    }

    fn schema(sql: &str) -> Schema {
        crate::schema_sql::parse_create_table(sql).unwrap().schema
    }

    #[test]
    fn clickbench_layout_converts_to_the_ddl_types() {
        let s = schema(
            "CREATE TABLE hits (WatchID BIGINT NOT NULL, EventTime TIMESTAMP NOT NULL,
             EventDate Date NOT NULL, CounterID INTEGER NOT NULL, IsRefresh SMALLINT NOT NULL,
             URL TEXT NOT NULL, Title TEXT NOT NULL)",
        );
        let (got, bad, _) = read(&["hits_layout.parquet"], &s, 2, 0).unwrap();
        assert_eq!(bad, 0);
        let c = |n| col(&got, &s, n);
        // Unix seconds stored as microseconds.
        assert_eq!(signed(&c("EventTime")[0]), Some(1373834327 * 1_000_000));
        assert_eq!(signed(&c("EventDate")[0]), Some(15901));
        assert_eq!(signed(&c("WatchID")[1]), Some(-8421854722398150000));
        assert_eq!(c("URL")[1], V::S(b"http://b/\nnewline".to_vec()));
        assert_eq!(c("URL")[2], V::S(b"\xff bad utf8".to_vec()));
        assert_eq!(c("Title")[2], V::S(b"\xe2\x82".to_vec()));
    }

    #[test]
    fn the_real_clickbench_sample_reads_with_both_ddls() {
        let sample = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../shared/clickbench/sample/clickbench_hits_10.parquet"
        );
        for ddl in ["create-clickhouse.sql", "create-duckdb.sql"] {
            let sql = std::fs::read_to_string(format!(
                "{}/../../shared/clickbench/{ddl}",
                env!("CARGO_MANIFEST_DIR")
            ))
            .unwrap();
            let s = schema(&sql);
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(2)
                .build()
                .unwrap();
            let mut src = ParquetSource::new(vec![PathBuf::from(sample)], s.clone(), 0);
            let b = src.next_block(&pool, 1000).unwrap().unwrap();
            assert_eq!(b.rows, 10);
            assert_eq!(b.bad.count, 0);
            let keys = |c: &ColumnData| -> Vec<u64> {
                match c {
                    ColumnData::Fixed { keys, .. } => keys.clone(),
                    ColumnData::FixedDict {
                        entries, indices, ..
                    } => indices.iter().map(|&i| entries[i as usize]).collect(),
                    _ => panic!("not a fixed-width column"),
                }
            };
            let date = keys(&b.columns[s.index_of("EventDate").unwrap()]);
            assert!(date.iter().all(|&k| signed_from_key(k) == 15901));
            let time = &b.columns[s.index_of("EventTime").unwrap()];
            match time {
                ColumnData::Fixed { .. } | ColumnData::FixedDict { .. } => {
                    assert!(keys(time).iter().all(|&k| {
                        let t = signed_from_key(k);
                        // 2013-07-14 20:00 .. 2013-07-15 20:00 UTC (EventDate is Moscow time).
                        (1_373_832_000_000_000..1_373_918_400_000_000).contains(&t)
                    }))
                }
                _ => panic!("EventTime is not a string"),
            }
            assert!(src.next_block(&pool, 1000).unwrap().is_none());
        }
    }

    #[test]
    fn duckdb_file_with_row_groups_nulls_and_decimals() {
        let s = parquet_schema(&data("duckdb.parquet")).unwrap();
        let (got, _, _) = read(&["duckdb.parquet"], &s, 1000, 0).unwrap();
        let c = |n| col(&got, &s, n);
        assert_eq!(c("id").len(), 2100);
        assert_eq!(c("name")[0], V::Null);
        assert_eq!(c("name")[2099], V::S(b"name2099".to_vec()));
        assert_eq!(signed(&c("price")[3]), Some(375));
        assert_eq!(signed(&c("small")[15]), Some(15));
        assert_eq!(
            signed(&c("ts")[2049]),
            Some((1373882400 + 2049) * 1_000_000)
        );
        assert_eq!(signed(&c("day")[31]), Some(15902));
        assert_eq!(c("big")[2099], V::K(2099 * 1_000_000_000_000));
    }

    #[test]
    fn conversions_to_other_types() {
        let s = schema(
            "CREATE TABLE t (dec9 DECIMAL(12, 4), dec18 DOUBLE, u16 DATE, i32 VARCHAR, d TIMESTAMP)",
        );
        let (got, bad, _) = read(&["types_zstd.parquet"], &s, 1000, 0).unwrap();
        assert_eq!(bad, 0);
        assert_eq!(signed(&got[0][0]), Some(1234500));
        assert_eq!(got[1][1], V::K(float_key(-1.0001)));
        assert_eq!(signed(&got[2][2]), Some(15901));
        assert_eq!(got[3][0], V::S(b"-2147483648".to_vec()));
        assert_eq!(signed(&got[4][0]), Some(15901 * 86400 * 1_000_000));
    }

    #[test]
    fn bad_values_drop_rows_and_name_them() {
        let s = schema("CREATE TABLE t (i32 SMALLINT, i8 TINYINT NOT NULL, s TEXT NOT NULL)");
        // Rows 1 and 2 overflow SMALLINT; row 3 has a NULL string in a NOT NULL column.
        let e = read(&["types_snappy.parquet"], &s, 1000, 0).unwrap();
        assert_eq!(e.1, 3);
        assert_eq!(e.0[1].len(), 7);
        assert_eq!(e.0[1][0], V::K(signed_key(1)));
        let first = &e.2[0];
        assert_eq!(first.position, Position::Row(1));
        assert_eq!(first.column.as_deref(), Some("i32"));
        assert!(
            first.message.contains("out of range for SMALLINT"),
            "{first}"
        );
        assert!(e.2[2].message.contains("NULL in a NOT NULL column"));
        assert_eq!(e.2[2].position, Position::Row(3));
    }

    #[test]
    fn missing_and_unconvertible_columns_are_schema_errors() {
        let e = read(
            &["types_snappy.parquet"],
            &schema("CREATE TABLE t (nope INT)"),
            10,
            0,
        );
        assert!(matches!(e, Err(IngestError::Schema(m)) if m.contains("nope")));
        let e = read(
            &["types_snappy.parquet"],
            &schema("CREATE TABLE t (ts_ms DATE)"),
            10,
            0,
        );
        assert!(matches!(e, Err(IngestError::Schema(m)) if m.contains("ts_ms")));
        // Names match without regard to case when unambiguous.
        let (got, _, _) = read(
            &["types_snappy.parquet"],
            &schema("CREATE TABLE t (I8 INT)"),
            10,
            0,
        )
        .unwrap();
        assert_eq!(got[0].len(), 10);
    }

    const STRING_FILES: [&str; 5] = [
        "strings_dict.parquet",
        "strings_dict_v2.parquet",
        "strings_duckdb.parquet",
        "duckdb.parquet",
        "types_plain_v2.parquet",
    ];

    /// String and integer columns read page by page (dictionaries kept)
    /// give the values and bad rows of the `parquet` crate's value readers:
    /// dictionary pages with NULLs, v1 and v2 pages, a fallback from
    /// dictionary to PLAIN pages within a chunk, all-PLAIN chunks, blocks
    /// cut inside pages and blocks spanning several row groups (each with
    /// its own dictionary); integers converted to narrower integers (some
    /// out of range), timestamps, floats and decimals.
    #[test]
    fn columns_read_by_pages_equal_the_value_readers() {
        use DataType as D;
        let retype = |fields: &[Field], to: &dyn Fn(DataType) -> DataType| {
            let fields = fields
                .iter()
                .map(|f| Field::new(&f.name, to(f.data_type), f.nullable))
                .collect();
            Schema::new(fields).unwrap()
        };
        for file in STRING_FILES {
            let all = parquet_schema(&data(file)).unwrap();
            let fields: Vec<Field> = all
                .fields
                .iter()
                .filter(|f| {
                    f.data_type == D::String
                        || f.data_type.is_integer()
                        || matches!(f.data_type, D::Date | D::Timestamp | D::Decimal { .. })
                })
                .cloned()
                .collect();
            let not_null: Vec<Field> = fields
                .iter()
                .map(|f| Field::new(&f.name, f.data_type, false))
                .collect();
            let int = |t: DataType, to: DataType| if t.is_integer() { to } else { t };
            let date = |t: DataType| if t == D::Date { D::Timestamp } else { t };
            let schemas = [
                Schema::new(fields.clone()).unwrap(),
                Schema::new(not_null).unwrap(),
                retype(&fields, &|t| int(t, D::Int8)),
                retype(&fields, &|t| int(t, D::UInt16)),
                retype(&fields, &|t| date(int(t, D::Timestamp))),
                retype(&fields, &|t| int(t, D::Float64)),
                retype(&fields, &|t| {
                    int(
                        t,
                        D::Decimal {
                            precision: 6,
                            scale: 1,
                        },
                    )
                }),
            ];
            for schema in schemas {
                for block_rows in [1, 7, 500, 1000, 2048, 5000] {
                    let read =
                        |src: ParquetSource| read_all_blocks(src, &schema, block_rows).unwrap();
                    let src = || {
                        ParquetSource::new(vec![data(file), data(file)], schema.clone(), u64::MAX)
                    };
                    let (want, want_bad, want_first, _) = read(src().values_only());
                    let (got, bad, first, dict) = read(src());
                    let what = format!("{file} in blocks of {block_rows}, {schema:?}");
                    assert_eq!(got, want, "{what}");
                    assert_eq!((bad, first), (want_bad, want_first), "{what}");
                    // Decimals may be fixed-length byte arrays, read by value.
                    let want_dict: Vec<bool> = fields
                        .iter()
                        .map(|f| !matches!(f.data_type, D::Decimal { .. }))
                        .collect();
                    let got_dict: Vec<bool> = dict
                        .iter()
                        .zip(&want_dict)
                        .map(|(&d, &w)| d || !w)
                        .collect();
                    assert!(got_dict.iter().all(|&d| d), "{what}: {dict:?}");
                }
            }
        }
        // Spot checks against the generator (make_fixtures.py).
        let s = parquet_schema(&data("strings_dict.parquet")).unwrap();
        let (got, _, _) = read(&["strings_dict.parquet"], &s, 1000, 0).unwrap();
        let c = |n| col(&got, &s, n);
        for i in [0usize, 1, 7, 699, 700, 1234, 2999] {
            let opt = |null: bool, v: String| if null { V::Null } else { V::S(v.into_bytes()) };
            assert_eq!(
                c("city")[i],
                opt(i % 7 == 0, format!("c{}", i * 13 % 40)),
                "{i}"
            );
            assert_eq!(
                c("word")[i],
                opt(i % 11 == 0, format!("w{}", i * 7919 % 2000)),
                "{i}"
            );
            assert_eq!(c("tag")[i], V::S(["x", "", "yy"][i % 3].into()), "{i}");
            let sparse = (1000..1100).contains(&i) || i % 500 == 0;
            assert_eq!(c("sparse")[i], opt(!sparse, format!("s{}", i % 5)), "{i}");
            let runs = if i % 4 == 0 {
                String::new()
            } else {
                format!("r{}", i / 10)
            };
            assert_eq!(c("runs")[i], opt(i % 13 == 0, runs), "{i}");
            let num = signed_key((i * 7919 % 2000) as i64 - 1000);
            let num = if i % 11 == 0 { V::Null } else { V::K(num) };
            assert_eq!(c("num")[i], num, "{i}");
            assert_eq!(c("small")[i], V::K(signed_key((i % 37) as i64)), "{i}");
            assert_eq!(
                c("wide")[i],
                V::K(i as u64 * 2_654_435_761 % (1 << 32)),
                "{i}"
            );
        }
    }

    /// The fixtures hold what the test above claims: `word` and `num` fall
    /// back from dictionary to PLAIN pages within a chunk, and there are v2
    /// pages.
    #[test]
    fn dictionary_fixtures_mix_dictionary_and_plain_pages() {
        use parquet::basic::Encoding;
        use parquet::column::page::Page;
        for (file, v2, column) in [
            ("strings_dict.parquet", false, "word"),
            ("strings_dict_v2.parquet", true, "word"),
            ("strings_dict.parquet", false, "num"),
            ("strings_dict_v2.parquet", true, "num"),
        ] {
            let reader = open(&data(file)).unwrap();
            let group = reader.get_row_group(0).unwrap();
            let descr = reader.metadata().file_metadata().schema_descr_ptr();
            let leaf = descr
                .columns()
                .iter()
                .position(|c| c.name() == column)
                .unwrap();
            let mut kinds = Vec::new();
            let mut pages = group.get_column_page_reader(leaf).unwrap();
            while let Some(page) = pages.get_next_page().unwrap() {
                kinds.push(match page {
                    Page::DictionaryPage { .. } => "dictionary",
                    Page::DataPage { encoding, .. } | Page::DataPageV2 { encoding, .. } => {
                        assert_eq!(matches!(page, Page::DataPageV2 { .. }), v2);
                        if encoding == Encoding::PLAIN {
                            "plain"
                        } else {
                            "indices"
                        }
                    }
                });
            }
            kinds.dedup();
            assert_eq!(kinds, ["dictionary", "indices", "plain"], "{file} {column}");
        }
    }

    /// Damaged files found by fuzzing: a footer whose second row group's
    /// chunks start past the end of the file, and a page whose size points
    /// past it, took a minute of reads that return nothing before failing;
    /// a negative chunk offset and a dictionary-coded page without a
    /// dictionary made the `parquet` crate panic. All are clean errors at
    /// once.
    #[test]
    fn data_past_the_end_of_the_file_is_an_error() {
        for (file, says) in [
            ("chunk_past_end.parquet", "is not within the file"),
            // Its first pages are damaged too: any error, but no panic.
            ("negative_offset.parquet", "negative_offset.parquet"),
            // A dictionary-coded page without a dictionary, where the
            // parquet crate's value reader panics.
            ("dictionary_missing.parquet", "dictionary_missing.parquet"),
            ("page_past_end.parquet", "column id"),
        ] {
            let path = data(file);
            let schema = parquet_schema(&path).unwrap();
            for (block_rows, max_errors) in [(7, u64::MAX), (4096, 0), (1, 0)] {
                let started = std::time::Instant::now();
                let src = ParquetSource::new(vec![path.clone()], schema.clone(), max_errors);
                let Err(e) = read_all_blocks(src, &schema, block_rows) else {
                    panic!("{file}: a damaged file was read");
                };
                assert!(e.to_string().contains(says), "{file}: {e}");
                // Not a timing test: the loop took a minute, a read takes ms.
                assert!(started.elapsed().as_secs() < 10, "{file}");
            }
        }
    }

    #[test]
    fn decimal_text_formats() {
        assert_eq!(decimal_text(12345, 2), "123.45");
        assert_eq!(decimal_text(-5, 3), "-0.005");
        assert_eq!(decimal_text(7, 0), "7");
    }
}

//! CSV/TSV inputs as blocks: the reading thread cuts raw records
//! ([`TextSource::fill`]) and a worker turns a [`RawBlock`] into columns
//! ([`build_columns`]).

use std::io::BufRead;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use strata_format::{ColumnData, DataType, Schema};

use crate::error::{IngestError, Position, Result, RowError};
use crate::input;
use crate::parse::parse_key;
use crate::pipeline::BadRows;
use crate::text::{Fields, RecordReader, TextDialect};

/// Raw records of one block, still in their text form.
#[derive(Debug, Default)]
pub struct RawBlock {
    data: Vec<u8>,
    ends: Vec<usize>,
    lines: Vec<u64>,
    /// `(index of the first record, file name)` for each file the block spans.
    files: Vec<(usize, Arc<str>)>,
}

impl RawBlock {
    /// Bytes of its records' text.
    pub fn bytes(&self) -> usize {
        self.data.len()
    }

    /// Empties the block, keeping its buffers.
    pub fn clear(&mut self) {
        self.data.clear();
        self.ends.clear();
        self.lines.clear();
        self.files.clear();
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when the block holds no record.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Bytes of record `i`.
    pub fn record(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.data[start..self.ends[i]]
    }

    fn file_of(&self, i: usize) -> &str {
        let k = self.files.partition_point(|(first, _)| *first <= i);
        self.files
            .get(k.wrapping_sub(1))
            .map_or("<input>", |(_, name)| name)
    }

    fn bad(&self, i: usize, column: Option<&str>, value: Option<&[u8]>, msg: String) -> RowError {
        RowError {
            file: self.file_of(i).to_string(),
            position: Position::Line(self.lines[i]),
            column: column.map(str::to_string),
            value: value.map(RowError::show_value),
            message: msg,
        }
    }
}

type Reader = RecordReader<Box<dyn BufRead + Send>>;

/// Reads records from a list of text inputs, one after the other.
pub struct TextSource {
    paths: Vec<PathBuf>,
    next_path: usize,
    current: Option<(Reader, Arc<str>)>,
    dialect: TextDialect,
    header: bool,
    counter: Arc<AtomicU64>,
    /// The first input's header fields, once read.
    pub header_names: Option<Vec<String>>,
    /// Bytes and records of the last full block, to size the next one
    /// (growing a block's buffers copies them and faults in fresh pages).
    last_size: (usize, usize),
}

impl TextSource {
    /// A source over `paths`; `counter` receives the raw bytes read.
    pub fn new(
        paths: Vec<PathBuf>,
        dialect: TextDialect,
        header: bool,
        counter: Arc<AtomicU64>,
    ) -> TextSource {
        TextSource {
            paths,
            next_path: 0,
            current: None,
            dialect,
            header,
            counter,
            header_names: None,
            last_size: (0, 0),
        }
    }

    fn open_next(&mut self) -> Result<bool> {
        let Some(path) = self.paths.get(self.next_path) else {
            return Ok(false);
        };
        self.next_path += 1;
        let name: Arc<str> = input::display_name(path).into();
        let mut inner = input::open_text(path, self.counter.clone())?;
        // A UTF-8 byte order mark (as Excel writes) is not part of the data.
        if inner
            .fill_buf()
            .map_err(|e| IngestError::io(path, e))?
            .starts_with(b"\xef\xbb\xbf")
        {
            inner.consume(3);
        }
        let mut reader = RecordReader::new(inner, self.dialect);
        if self.header {
            let mut buf = Vec::new();
            let line = reader
                .next_record(&mut buf)
                .map_err(|e| IngestError::io(path, e))?;
            if line.is_some() && self.header_names.is_none() {
                let mut f = Fields::default();
                self.dialect.split(&buf, b"", &mut f).map_err(|msg| {
                    IngestError::BadRow(Box::new(RowError {
                        file: name.to_string(),
                        position: Position::Line(1),
                        column: None,
                        value: Some(RowError::show_value(&buf)),
                        message: format!("bad header: {msg}"),
                    }))
                })?;
                self.header_names = Some(
                    (0..f.len())
                        .map(|i| String::from_utf8_lossy(f.bytes(i)).into_owned())
                        .collect(),
                );
            }
        }
        self.current = Some((reader, name));
        Ok(true)
    }

    /// Appends records to `block` until it holds `max_rows`; returns false
    /// once every input is exhausted.
    pub fn fill(&mut self, block: &mut RawBlock, max_rows: usize) -> Result<bool> {
        let (bytes, rows) = self.last_size;
        if block.is_empty() && rows > 0 {
            // A little more than the last block, scaled to this one's rows.
            let want = bytes / rows * max_rows.min(rows) + bytes / 16;
            block.data.reserve(want);
            block.ends.reserve(max_rows.min(rows));
            block.lines.reserve(max_rows.min(rows));
        }
        let more = self.fill_records(block, max_rows)?;
        if block.len() == max_rows {
            self.last_size = (block.data.len(), block.len());
        }
        Ok(more)
    }

    fn fill_records(&mut self, block: &mut RawBlock, max_rows: usize) -> Result<bool> {
        while block.len() < max_rows {
            if self.current.is_none() && !self.open_next()? {
                return Ok(false);
            }
            let Some((reader, name)) = self.current.as_mut() else {
                continue;
            };
            if block
                .files
                .last()
                .is_none_or(|(_, n)| !Arc::ptr_eq(n, name))
            {
                block.files.push((block.len(), name.clone()));
            }
            match reader.next_record(&mut block.data) {
                Ok(Some(line)) => {
                    block.ends.push(block.data.len());
                    block.lines.push(line);
                }
                Ok(None) => self.current = None,
                Err(e) => {
                    let path = self.paths[self.next_path - 1].clone();
                    return Err(IngestError::io(path, e));
                }
            }
        }
        Ok(true)
    }
}

/// What a worker needs to turn raw records into columns.
#[derive(Debug)]
pub struct TextContext {
    /// The table schema.
    pub schema: Schema,
    /// CSV or TSV.
    pub dialect: TextDialect,
    /// The NULL marker.
    pub null: Vec<u8>,
    /// An empty unquoted CSV field in a NOT NULL string column is the empty
    /// string (only with the default NULL marker).
    pub empty_is_empty_string: bool,
    /// A quoted CSV field equal to the NULL marker is NULL too (DuckDB's
    /// `allow_quoted_nulls`; `""` is NULL by default).
    pub quoted_nulls: bool,
    /// Bad rows allowed.
    pub max_errors: u64,
    /// Fields in every record (at least the schema's columns).
    pub record_fields: usize,
    /// For each schema column, the index of its field in a record.
    pub source_index: Vec<usize>,
}

#[derive(Clone, Copy)]
enum Cell {
    Null,
    Key(u64),
    Str(usize, usize),
}

/// Columns built from a raw block, with its bad rows.
pub struct Built {
    /// One column per schema field.
    pub columns: Vec<ColumnData>,
    /// Rows in the columns.
    pub rows: usize,
    /// Rows skipped.
    pub bad: BadRows,
}

/// Splits and parses every record of `raw` into columns, skipping bad rows.
pub fn build_columns(ctx: &TextContext, raw: &RawBlock) -> Built {
    let fields_def = &ctx.schema.fields;
    let n = fields_def.len();
    let mut columns: Vec<ColumnData> = fields_def
        .iter()
        .map(|f| ColumnData::new_for(f.data_type))
        .collect();
    let mut bad = BadRows::new(ctx.max_errors);
    let mut fields = Fields::default();
    let mut cells: Vec<Cell> = Vec::with_capacity(n);
    let mut rows = 0;
    'records: for r in 0..raw.len() {
        let rec = raw.record(r);
        if let Err(msg) = ctx.dialect.split(rec, &ctx.null, &mut fields) {
            if bad.add(raw.bad(r, None, Some(rec), msg)) {
                break;
            }
            continue;
        }
        if fields.len() != ctx.record_fields {
            if rec.is_empty() {
                continue; // a blank line
            }
            let msg = format!(
                "expected {} fields, found {}",
                ctx.record_fields,
                fields.len()
            );
            if bad.add(raw.bad(r, None, Some(rec), msg)) {
                break;
            }
            continue;
        }
        cells.clear();
        for (i, f) in fields_def.iter().enumerate() {
            let span = fields.spans[ctx.source_index[i]];
            let value = &fields.buf[span.start..span.end];
            let null =
                span.null || (span.quoted && ctx.quoted_nulls && value == ctx.null.as_slice());
            let cell = if null {
                if f.nullable {
                    Ok(Cell::Null)
                } else if f.data_type == DataType::String && ctx.empty_is_empty_string {
                    Ok(Cell::Str(span.start, span.end))
                } else {
                    Err("NULL in a NOT NULL column".to_string())
                }
            } else if f.data_type.is_string() {
                Ok(Cell::Str(span.start, span.end))
            } else {
                parse_key(f.data_type, value).map(Cell::Key)
            };
            match cell {
                Ok(c) => cells.push(c),
                Err(msg) => {
                    if bad.add(raw.bad(r, Some(&f.name), Some(value), msg)) {
                        break 'records;
                    }
                    continue 'records;
                }
            }
        }
        for (col, cell) in columns.iter_mut().zip(&cells) {
            // Pushing the kind of value the column was created for cannot fail.
            let _ = match *cell {
                Cell::Null => {
                    col.push_null();
                    Ok(())
                }
                Cell::Key(k) => col.push_key(k),
                Cell::Str(s, e) => col.push_str(&fields.buf[s..e]),
            };
        }
        rows += 1;
    }
    Built { columns, rows, bad }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_format::types::signed_from_key;
    use strata_format::Field;

    fn ctx(dialect: TextDialect, max_errors: u64) -> TextContext {
        let schema = Schema::new(vec![
            Field::new("id", DataType::Int32, false),
            Field::new("name", DataType::String, false),
            Field::new("day", DataType::Date, true),
        ])
        .unwrap();
        TextContext {
            schema,
            dialect,
            null: dialect.default_null().to_vec(),
            empty_is_empty_string: matches!(dialect, TextDialect::Csv { .. }),
            quoted_nulls: false,
            max_errors,
            record_fields: 3,
            source_index: vec![0, 1, 2],
        }
    }

    fn raw(text: &str, dialect: TextDialect) -> RawBlock {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("in.txt");
        std::fs::write(&p, text).unwrap();
        let mut src = TextSource::new(vec![p], dialect, false, Arc::default());
        let mut b = RawBlock::default();
        assert!(!src.fill(&mut b, 1000).unwrap());
        b.files[0].1 = "in.txt".into();
        b
    }

    const CSV: TextDialect = TextDialect::Csv { delimiter: b',' };
    const TSV: TextDialect = TextDialect::Tsv { delimiter: b'\t' };

    fn keys(c: &ColumnData) -> Vec<Option<i64>> {
        match c {
            ColumnData::Fixed { keys, .. } => keys
                .iter()
                .enumerate()
                .map(|(i, k)| (!c.is_null(i)).then(|| signed_from_key(*k)))
                .collect(),
            _ => panic!("not fixed"),
        }
    }

    #[test]
    fn good_rows_become_columns() {
        let b = raw("1,a,2013-07-15\n2,,\n\n3,\"x,y\",1970-01-02\n", CSV);
        let built = build_columns(&ctx(CSV, 0), &b);
        assert_eq!(built.bad.count, 0);
        assert_eq!(built.rows, 3);
        assert_eq!(keys(&built.columns[0]), vec![Some(1), Some(2), Some(3)]);
        assert_eq!(keys(&built.columns[2]), vec![Some(15901), None, Some(1)]);
        match &built.columns[1] {
            ColumnData::Strings { bytes, offsets, .. } => {
                assert_eq!(bytes, b"ax,y");
                assert_eq!(offsets, &[0, 1, 1, 4]);
            }
            _ => panic!(),
        }
    }

    fn first_error(text: &str, dialect: TextDialect) -> RowError {
        let built = build_columns(&ctx(dialect, 0), &raw(text, dialect));
        assert_eq!(built.bad.count, 1, "{text:?}");
        built.bad.first[0].clone()
    }

    #[test]
    fn malformed_rows_name_line_column_and_value() {
        let e = first_error("1,a,2013-07-15\n2,b\n", CSV);
        assert_eq!(e.position, Position::Line(2));
        assert!(e.message.contains("expected 3 fields, found 2"));
        assert_eq!(e.file, "in.txt");

        let e = first_error("1,a,\nx1,b,\n", CSV);
        assert_eq!(e.position, Position::Line(2));
        assert_eq!(e.column.as_deref(), Some("id"));
        assert_eq!(e.value.as_deref(), Some("x1"));
        assert!(e.message.contains("not a valid INTEGER"), "{e}");

        let e = first_error("1,\"a\nb\",\n2,b,2013-02-30\n", CSV);
        assert_eq!(e.position, Position::Line(3));
        assert_eq!(e.column.as_deref(), Some("day"));

        let e = first_error("1,\"a\"b,\n", CSV);
        assert!(e.message.contains("closing quote"), "{e}");

        let e = first_error(",a,\n", CSV);
        assert_eq!(e.column.as_deref(), Some("id"));
        assert!(e.message.contains("NULL in a NOT NULL column"));

        let e = first_error("1\t\\N\t\\N\n", TSV);
        assert_eq!(e.column.as_deref(), Some("name"));
        assert!(e.message.contains("NULL in a NOT NULL column"));

        let e = first_error("99999999999\tx\t\\N\n", TSV);
        assert!(e.message.contains("out of range"), "{e}");
    }

    #[test]
    fn bad_rows_are_skipped_up_to_the_budget() {
        let text = "1,a,\nx,b,\n3,c,\ny,d,\n5,e,\n";
        let built = build_columns(&ctx(CSV, 5), &raw(text, CSV));
        assert_eq!(built.rows, 3);
        assert_eq!(built.bad.count, 2);
        assert_eq!(keys(&built.columns[0]), vec![Some(1), Some(3), Some(5)]);
        let built = build_columns(&ctx(CSV, 1), &raw(text, CSV));
        assert_eq!(built.bad.count, 2);
    }

    #[test]
    fn tsv_values_are_unescaped() {
        let b = raw("1\ta\\tb\\nc\t\\N\n", TSV);
        let built = build_columns(&ctx(TSV, 0), &b);
        assert_eq!(built.rows, 1);
        match &built.columns[1] {
            ColumnData::Strings { bytes, .. } => assert_eq!(bytes, b"a\tb\nc"),
            _ => panic!(),
        }
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        std::fs::write(&a, b"\xef\xbb\xbfid,y\n1,2\n").unwrap();
        let mut src = TextSource::new(vec![a], CSV, true, Arc::default());
        let mut blk = RawBlock::default();
        src.fill(&mut blk, 10).unwrap();
        assert_eq!(src.header_names, Some(vec!["id".into(), "y".into()]));
    }

    #[test]
    fn headers_are_read_once_per_file() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        let b = dir.path().join("b.csv");
        std::fs::write(&a, "x,y\n1,2\n").unwrap();
        std::fs::write(&b, "x,y\n3,4\n5,6").unwrap();
        let mut src = TextSource::new(vec![a, b], CSV, true, Arc::default());
        let mut blk = RawBlock::default();
        assert!(src.fill(&mut blk, 2).unwrap());
        assert_eq!(blk.len(), 2);
        assert_eq!(blk.record(1), b"3,4");
        assert_eq!(src.header_names, Some(vec!["x".into(), "y".into()]));
        assert_eq!(blk.lines, vec![2, 2]);
        assert!(blk.file_of(1).ends_with("b.csv"));
        let mut blk = RawBlock::default();
        assert!(!src.fill(&mut blk, 10).unwrap());
        assert_eq!(blk.record(0), b"5,6");
        assert_eq!(blk.lines, vec![3]);
    }
}

//! Counting the records of CSV/TSV inputs without splitting them into
//! fields: what a query naming no column (`SELECT COUNT(*) FROM 'x.csv'`)
//! needs.
//!
//! The rules are [`RecordReader`](crate::text::RecordReader)'s: a record ends
//! at a newline outside quotes (CSV: quote parity, which doubled quotes keep)
//! or not escaped by a backslash (TSV); `\r\n` ends one too. With more than
//! one column, a blank record is skipped, as the column builder does.
//!
//! A plain file is cut into chunks counted in parallel. Where a chunk starts
//! inside a quoted field is not known until the chunks before it are, so a
//! chunk is counted for both possible start states at once (CSV: one pass,
//! the states differ only in which newlines are breaks) and the results are
//! combined in order. Compressed inputs are read as one stream.
//!
//! Only the record structure is checked: an unterminated quote is an error,
//! but the fields of each record are not split, so a record with the wrong
//! number of fields is counted (as chDB does).

use std::fs::File;
use std::io::{BufRead, Read};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rayon::prelude::*;

use crate::error::{IngestError, Position, Result, RowError};
use crate::input;
use crate::text::TextDialect;

/// Bytes per chunk counted by one task.
pub const CHUNK_BYTES: usize = 8 << 20;

const BOM: &[u8] = b"\xef\xbb\xbf";

/// How to count.
#[derive(Debug, Clone, Copy)]
pub struct CountOptions {
    /// CSV or TSV.
    pub dialect: TextDialect,
    /// Each input's first record is a header, not a row.
    pub header: bool,
    /// Blank records are not rows (the table has more than one column).
    pub skip_blank: bool,
    /// Bad records (an unterminated quote at the end) to skip before failing.
    pub max_errors: u64,
    /// Bytes per parallel chunk (tests use tiny ones).
    pub chunk_bytes: usize,
}

/// What a record holds so far, as far as blankness goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Content {
    /// Nothing.
    #[default]
    Empty,
    /// A lone carriage return (stripped with the newline after it).
    Cr,
    /// Anything else.
    Other,
}

impl Content {
    fn of(bytes: &[u8]) -> Content {
        match bytes {
            [] => Content::Empty,
            [b'\r'] => Content::Cr,
            _ => Content::Other,
        }
    }

    fn then(self, next: Content) -> Content {
        match (self, next) {
            (Content::Empty, x) | (x, Content::Empty) => x,
            _ => Content::Other,
        }
    }

    fn blank(self) -> bool {
        self != Content::Other
    }
}

/// One chunk counted from one start state.
#[derive(Debug, Clone, Copy, Default)]
struct Chunk {
    /// Record ends in the chunk.
    breaks: u64,
    /// Blank records between two of those ends.
    blanks: u64,
    /// What comes before the first end (the whole chunk if none).
    head: Content,
    /// What comes after the last end.
    tail: Content,
    /// State at the end: inside quotes (CSV) or after an escaping backslash (TSV).
    end: bool,
}

impl Chunk {
    /// Records a record end at `pos`, the previous one being at `last`.
    fn brk(&mut self, buf: &[u8], last: Option<usize>, pos: usize) {
        match last {
            None => self.head = Content::of(&buf[..pos]),
            Some(p) => {
                if Content::of(&buf[p + 1..pos]).blank() {
                    self.blanks += 1;
                }
            }
        }
        self.breaks += 1;
    }

    fn close(&mut self, buf: &[u8], last: Option<usize>, end: bool) {
        match last {
            None => self.head = Content::of(buf),
            Some(p) => self.tail = Content::of(&buf[p + 1..]),
        }
        self.end = end;
    }
}

/// A CSV chunk counted for both start states (outside, inside quotes) in
/// one pass: a newline after an even number of the chunk's quotes ends a
/// record for the first, after an odd number for the second.
fn scan_csv(buf: &[u8]) -> [Chunk; 2] {
    let mut out = [Chunk::default(); 2];
    let mut last: [Option<usize>; 2] = [None, None];
    let mut odd = 0usize;
    for pos in memchr::memchr2_iter(b'"', b'\n', buf) {
        if buf[pos] == b'"' {
            odd ^= 1;
        } else {
            out[odd].brk(buf, last[odd], pos);
            last[odd] = Some(pos);
        }
    }
    for (s, c) in out.iter_mut().enumerate() {
        c.close(buf, last[s], (s ^ odd) == 1);
    }
    out
}

/// A TSV chunk counted from one start state (`escaped`: the byte before it
/// was an escaping backslash).
fn scan_tsv(buf: &[u8], escaped: bool) -> Chunk {
    let mut c = Chunk::default();
    let mut last = None;
    // The position just after an escaping backslash.
    let mut escaped_at = if escaped { Some(0) } else { None };
    for pos in memchr::memchr2_iter(b'\\', b'\n', buf) {
        if escaped_at == Some(pos) {
            escaped_at = None;
        } else if buf[pos] == b'\\' {
            escaped_at = Some(pos + 1);
        } else {
            c.brk(buf, last, pos);
            last = Some(pos);
        }
    }
    c.close(buf, last, escaped_at == Some(buf.len()));
    c
}

fn scan(dialect: TextDialect, buf: &[u8]) -> [Chunk; 2] {
    match dialect {
        TextDialect::Csv { .. } => scan_csv(buf),
        TextDialect::Tsv { .. } => [scan_tsv(buf, false), scan_tsv(buf, true)],
    }
}

/// Chunks combined in input order.
#[derive(Debug, Default)]
struct Tally {
    state: bool,
    pending: Content,
    records: u64,
    blanks: u64,
    first_blank: Option<bool>,
}

impl Tally {
    fn add(&mut self, both: &[Chunk; 2]) {
        let c = &both[usize::from(self.state)];
        if c.breaks > 0 {
            let first = self.pending.then(c.head).blank();
            if self.records == 0 {
                self.first_blank = Some(first);
            }
            self.blanks += u64::from(first) + c.blanks;
            self.records += c.breaks;
            self.pending = c.tail;
        } else {
            self.pending = self.pending.then(c.head);
        }
        self.state = c.end;
    }

    /// Rows of one input.
    fn finish(mut self, name: &str, opts: &CountOptions) -> Result<u64> {
        let unterminated = self.state && matches!(opts.dialect, TextDialect::Csv { .. });
        if self.pending != Content::Empty {
            if unterminated {
                if opts.max_errors == 0 {
                    return Err(IngestError::BadRow(Box::new(RowError {
                        file: name.to_string(),
                        position: Position::Row(self.records + 1),
                        column: None,
                        value: None,
                        message: "unterminated quoted field at the end of the input".into(),
                    })));
                }
            } else {
                if self.records == 0 {
                    self.first_blank = Some(false);
                }
                self.records += 1;
            }
        }
        if opts.header && self.records > 0 {
            self.records -= 1;
            if self.first_blank == Some(true) {
                self.blanks -= 1;
            }
        }
        Ok(if opts.skip_blank {
            self.records - self.blanks
        } else {
            self.records
        })
    }
}

/// Counts the rows of `paths` (files, `-` for standard input); `counter`
/// receives the bytes read.
pub fn count_rows(
    paths: &[PathBuf],
    opts: &CountOptions,
    pool: &rayon::ThreadPool,
    counter: &Arc<AtomicU64>,
) -> Result<u64> {
    let mut rows = 0;
    for path in paths {
        let name = input::display_name(path);
        rows += match plain_file(path)? {
            Some((file, start, len)) => {
                let t = count_file(&file, path, start, len, opts, pool)?;
                counter.fetch_add(len, Ordering::Relaxed);
                t.finish(&name, opts)?
            }
            None => count_stream(path, opts, counter)?.finish(&name, opts)?,
        };
    }
    Ok(rows)
}

/// The file, where its data starts (after a byte order mark) and its size,
/// when it is an uncompressed regular file.
fn plain_file(path: &Path) -> Result<Option<(File, u64, u64)>> {
    if path.as_os_str() == input::STDIN {
        return Ok(None);
    }
    let file = File::open(path).map_err(|e| IngestError::io(path, e))?;
    let meta = file.metadata().map_err(|e| IngestError::io(path, e))?;
    if !meta.is_file() {
        return Ok(None);
    }
    let mut head = [0u8; 4];
    let n = read_full(&file, &mut head, 0).map_err(|e| IngestError::io(path, e))?;
    let head = &head[..n];
    if head.starts_with(&input::GZIP_MAGIC) || head.starts_with(&input::ZSTD_MAGIC) {
        return Ok(None);
    }
    let start = if head.starts_with(BOM) { 3 } else { 0 };
    Ok(Some((file, start, meta.len())))
}

fn read_full(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], offset + done as u64)? {
            0 => break,
            n => done += n,
        }
    }
    Ok(done)
}

fn count_file(
    file: &File,
    path: &Path,
    start: u64,
    len: u64,
    opts: &CountOptions,
    pool: &rayon::ThreadPool,
) -> Result<Tally> {
    let step = opts.chunk_bytes.max(1) as u64;
    let chunks = len.saturating_sub(start).div_ceil(step);
    let counted: Vec<[Chunk; 2]> = pool.install(|| {
        (0..chunks)
            .into_par_iter()
            .map_init(Vec::new, |buf: &mut Vec<u8>, i| {
                let from = start + i * step;
                let size = step.min(len - from) as usize;
                buf.resize(size, 0);
                let n = read_full(file, buf, from).map_err(|e| IngestError::io(path, e))?;
                if n != size {
                    return Err(IngestError::io(
                        path,
                        std::io::Error::new(
                            std::io::ErrorKind::UnexpectedEof,
                            "the file shrank while it was being read",
                        ),
                    ));
                }
                Ok(scan(opts.dialect, buf))
            })
            .collect::<Result<_>>()
    })?;
    let mut t = Tally::default();
    for c in &counted {
        t.add(c);
    }
    Ok(t)
}

fn count_stream(path: &Path, opts: &CountOptions, counter: &Arc<AtomicU64>) -> Result<Tally> {
    let mut inner = input::open_text(path, counter.clone())?;
    if inner
        .fill_buf()
        .map_err(|e| IngestError::io(path, e))?
        .starts_with(BOM)
    {
        inner.consume(3);
    }
    let mut t = Tally::default();
    let mut buf = vec![0u8; opts.chunk_bytes.clamp(1, CHUNK_BYTES)];
    loop {
        let n = inner.read(&mut buf).map_err(|e| IngestError::io(path, e))?;
        if n == 0 {
            return Ok(t);
        }
        t.add(&scan(opts.dialect, &buf[..n]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CSV: TextDialect = TextDialect::Csv { delimiter: b',' };
    const TSV: TextDialect = TextDialect::Tsv { delimiter: b'\t' };

    fn opts(dialect: TextDialect, header: bool, chunk_bytes: usize) -> CountOptions {
        CountOptions {
            dialect,
            header,
            skip_blank: true,
            max_errors: 0,
            chunk_bytes,
        }
    }

    /// Counts `data` chunk by chunk as the parallel path does.
    fn count(data: &[u8], o: &CountOptions) -> Result<u64> {
        let step = o.chunk_bytes;
        let mut t = Tally::default();
        for c in data.chunks(step) {
            t.add(&scan(o.dialect, c));
        }
        if data.is_empty() {
            t.add(&scan(o.dialect, &[]));
        }
        t.finish("test", o)
    }

    /// The same count for every chunk size from 1 byte to the whole input.
    fn count_all_sizes(data: &str, dialect: TextDialect, header: bool) -> u64 {
        let whole = count(data.as_bytes(), &opts(dialect, header, data.len().max(1))).unwrap();
        for step in 1..=data.len().max(1) {
            let got = count(data.as_bytes(), &opts(dialect, header, step)).unwrap();
            assert_eq!(got, whole, "chunk size {step} on {data:?}");
        }
        whole
    }

    #[test]
    fn csv_quotes_hold_newlines_and_delimiters() {
        // Records by construction: header, then 3 rows.
        let data = "a,b\n\"x\ny\",\"1,2\"\n\"say \"\"hi\"\"\n\",3\r\n4,\"\"\"\"\n";
        assert_eq!(count_all_sizes(data, CSV, true), 3);
        assert_eq!(count_all_sizes(data, CSV, false), 4);
        // No final newline; a quoted field that is all newlines.
        assert_eq!(count_all_sizes("1,\"\n\n\n\"\n2,3", CSV, false), 2);
    }

    #[test]
    fn blank_records_are_skipped() {
        let data = "a,b\n\n1,2\r\n\r\n\n3,4\n\n";
        assert_eq!(count_all_sizes(data, CSV, true), 2);
        let o = CountOptions {
            skip_blank: false,
            ..opts(CSV, true, 3)
        };
        assert_eq!(count(data.as_bytes(), &o).unwrap(), 6);
        // A blank header still is the header.
        assert_eq!(count_all_sizes("\n1,2\n", CSV, true), 1);
        // "\r\r" is not blank: one carriage return only goes with the newline.
        assert_eq!(count_all_sizes("\r\r\n", CSV, false), 1);
    }

    #[test]
    fn empty_inputs() {
        assert_eq!(count(b"", &opts(CSV, true, 4)).unwrap(), 0);
        assert_eq!(count(b"", &opts(CSV, false, 4)).unwrap(), 0);
        assert_eq!(count_all_sizes("a,b\n", CSV, true), 0);
        assert_eq!(count_all_sizes("a,b", CSV, true), 0);
    }

    #[test]
    fn unterminated_quote_is_an_error() {
        let data = b"a\n\"x\n1\n";
        for step in 1..=data.len() {
            let e = count(data, &opts(CSV, true, step)).unwrap_err();
            assert!(e.to_string().contains("unterminated"), "{e}");
        }
        let o = CountOptions {
            max_errors: 1,
            ..opts(CSV, true, 2)
        };
        assert_eq!(count(data, &o).unwrap(), 0);
    }

    #[test]
    fn tsv_escaped_newlines_continue_records() {
        // "a\<newline>b" is one record, "d\\" ends with an escaped backslash.
        let data = "h\na\\\nb\tc\nd\\\\\ne\n\\\\\\\nf\n";
        assert_eq!(count_all_sizes(data, TSV, true), 4);
        // Quotes mean nothing in TSV.
        assert_eq!(count_all_sizes("\"a\n\"b\n", TSV, false), 2);
    }

    /// Against the record reader on generated inputs, every chunk size.
    #[test]
    fn agrees_with_the_record_reader() {
        let pieces = ["a", ",", "\"", "\"\"", "\n", "\r\n", "\\", "\\\\", "x\ty"];
        let mut seed = 7u64;
        for _ in 0..300 {
            let mut s = String::new();
            for _ in 0..(seed % 23) {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                s.push_str(pieces[(seed >> 33) as usize % pieces.len()]);
            }
            for dialect in [CSV, TSV] {
                let mut r = crate::text::RecordReader::new(s.as_bytes(), dialect);
                let (mut records, mut blanks) = (0u64, 0u64);
                let mut buf = Vec::new();
                let mut last_open = false;
                while r.next_record(&mut buf).unwrap().is_some() {
                    records += 1;
                    blanks += u64::from(buf.is_empty());
                    last_open = matches!(dialect, TextDialect::Csv { .. })
                        && memchr::memchr_iter(b'"', &buf).count() % 2 == 1;
                    buf.clear();
                }
                let o = CountOptions {
                    max_errors: 1,
                    ..opts(dialect, false, 1)
                };
                let want = records - blanks - u64::from(last_open);
                for step in 1..=s.len().max(1) {
                    let got = count(
                        s.as_bytes(),
                        &CountOptions {
                            chunk_bytes: step,
                            ..o
                        },
                    )
                    .unwrap();
                    assert_eq!(got, want, "{dialect:?} chunk {step} on {s:?}");
                }
            }
        }
    }
}

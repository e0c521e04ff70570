//! What CSV and TSV share: records cut from a byte stream, and the fields
//! split out of one record.
//!
//! Reading is two-stage so that the expensive part runs in parallel: the
//! reading thread only finds where records end ([`RecordReader`], a
//! `memchr` scan), and the workers split records into fields, unquote or
//! unescape them ([`TextDialect::split`]) and parse the values.

use std::io::{self, BufRead};

use crate::{csv, tsv};

/// A text format and its delimiter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextDialect {
    /// RFC 4180 CSV with this delimiter.
    Csv {
        /// The field delimiter (usually `,`).
        delimiter: u8,
    },
    /// ClickHouse/PostgreSQL tab-separated text with this delimiter.
    Tsv {
        /// The field delimiter (usually a tab).
        delimiter: u8,
    },
}

/// One field of a split record: `buf[start..end]` of its [`Fields`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldSpan {
    /// Start of the (unquoted, unescaped) value in [`Fields::buf`].
    pub start: usize,
    /// End of the value.
    pub end: usize,
    /// The field is the NULL marker (`\N` in TSV, by default an unquoted empty
    /// field in CSV, or the `--null` string).
    pub null: bool,
    /// The field was quoted (CSV).
    pub quoted: bool,
}

/// The fields of one record, unquoted/unescaped into one buffer.
#[derive(Debug, Default, Clone)]
pub struct Fields {
    /// The values' bytes, concatenated.
    pub buf: Vec<u8>,
    /// One span per field.
    pub spans: Vec<FieldSpan>,
}

impl Fields {
    /// Empties the record, keeping the allocations.
    pub fn clear(&mut self) {
        self.buf.clear();
        self.spans.clear();
    }

    /// Number of fields.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// True for a record with no fields.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Value of field `i`, `None` if NULL or absent.
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        let s = self.spans.get(i)?;
        if s.null {
            None
        } else {
            Some(&self.buf[s.start..s.end])
        }
    }

    /// Bytes of field `i` whether or not it is NULL (empty if absent).
    pub fn bytes(&self, i: usize) -> &[u8] {
        self.spans
            .get(i)
            .map_or(&[][..], |s| &self.buf[s.start..s.end])
    }

    pub(crate) fn push(&mut self, start: usize, null: bool) {
        self.spans.push(FieldSpan {
            start,
            end: self.buf.len(),
            null,
            quoted: false,
        });
    }

    /// Marks the last field as quoted.
    pub(crate) fn mark_quoted(&mut self) {
        if let Some(s) = self.spans.last_mut() {
            s.quoted = true;
        }
    }
}

impl TextDialect {
    /// Splits one record (without its line terminator) into fields. `null`
    /// is the NULL marker: for CSV an unquoted field equal to it is NULL, for
    /// TSV a raw (still escaped) field equal to it.
    pub fn split(&self, record: &[u8], null: &[u8], out: &mut Fields) -> Result<(), String> {
        out.clear();
        match *self {
            TextDialect::Csv { delimiter } => csv::split(record, delimiter, null, out),
            TextDialect::Tsv { delimiter } => tsv::split(record, delimiter, null, out),
        }
    }

    /// The default NULL marker: an empty unquoted field for CSV, `\N` for TSV.
    pub fn default_null(&self) -> &'static [u8] {
        match self {
            TextDialect::Csv { .. } => b"",
            TextDialect::Tsv { .. } => b"\\N",
        }
    }
}

/// Cuts records out of a byte stream.
pub struct RecordReader<R> {
    inner: R,
    dialect: TextDialect,
    next_line: u64,
}

impl<R: BufRead> RecordReader<R> {
    /// A reader starting at line 1.
    pub fn new(inner: R, dialect: TextDialect) -> Self {
        RecordReader {
            inner,
            dialect,
            next_line: 1,
        }
    }

    /// Appends the next record, without its line terminator (`\n` or
    /// `\r\n`), to `out` and returns the line it starts on; `None` at the end
    /// of the input. A CSV record continues over newlines inside quotes and a
    /// TSV record over backslash-escaped newlines. An unterminated quote runs
    /// to the end of the input; [`TextDialect::split`] then reports it.
    pub fn next_record(&mut self, out: &mut Vec<u8>) -> io::Result<Option<u64>> {
        let start = out.len();
        let first_line = self.next_line;
        let mut quotes_open = false;
        loop {
            let seg = out.len();
            let n = self.inner.read_until(b'\n', out)?;
            if n == 0 {
                if out.len() == start {
                    return Ok(None);
                }
                break;
            }
            self.next_line += 1;
            let ended = out.last() == Some(&b'\n');
            let more = match self.dialect {
                TextDialect::Csv { .. } => {
                    if memchr::memchr_iter(b'"', &out[seg..]).count() % 2 == 1 {
                        quotes_open = !quotes_open;
                    }
                    quotes_open
                }
                TextDialect::Tsv { .. } => {
                    let body = &out[start..out.len() - usize::from(ended)];
                    body.iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 1
                }
            };
            if !ended || !more {
                break;
            }
        }
        if out.last() == Some(&b'\n') {
            out.pop();
            if out.len() > start && out.last() == Some(&b'\r') {
                out.pop();
            }
        }
        Ok(Some(first_line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(dialect: TextDialect, input: &str) -> Vec<(u64, String)> {
        let mut r = RecordReader::new(input.as_bytes(), dialect);
        let mut out = Vec::new();
        let mut buf = Vec::new();
        while let Some(line) = r.next_record(&mut buf).unwrap() {
            out.push((line, String::from_utf8(buf.clone()).unwrap()));
            buf.clear();
        }
        out
    }

    const CSV: TextDialect = TextDialect::Csv { delimiter: b',' };
    const TSV: TextDialect = TextDialect::Tsv { delimiter: b'\t' };

    #[test]
    fn csv_records_span_quoted_newlines() {
        let got = records(CSV, "a,b\r\n\"x\ny\",\"\"\"\"\n3,4");
        assert_eq!(
            got,
            vec![
                (1, "a,b".to_string()),
                (2, "\"x\ny\",\"\"\"\"".to_string()),
                (4, "3,4".to_string())
            ]
        );
    }

    #[test]
    fn csv_unterminated_quote_runs_to_the_end() {
        let got = records(CSV, "1,2\n\"oops,3\n4,5\n");
        assert_eq!(got.len(), 2);
        assert_eq!(got[1], (2, "\"oops,3\n4,5".to_string()));
    }

    #[test]
    fn tsv_records_span_escaped_newlines() {
        let got = records(TSV, "a\\\nb\tc\nd\\\\\ne\n\n");
        assert_eq!(
            got,
            vec![
                (1, "a\\\nb\tc".to_string()),
                (3, "d\\\\".to_string()),
                (4, "e".to_string()),
                (5, String::new()),
            ]
        );
    }
}

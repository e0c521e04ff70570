//! Schema inference for CSV/TSV without `--schema`: every column gets the
//! narrowest of BOOLEAN, BIGINT (UBIGINT above `i64::MAX`), DOUBLE, DATE,
//! TIMESTAMP that all sampled values parse as, else VARCHAR; a column is
//! nullable if a NULL (an empty CSV field, `\N` in TSV, or the `--null`
//! string) was seen in the sample, and VARCHAR if it held only NULLs.
//!
//! Only a sample is looked at (the first [`SAMPLE_ROWS`] records), so a later
//! value may not fit: the ingest then fails naming the row, and the user can
//! save the printed `CREATE TABLE`, widen the type and pass it as `--schema`.

use std::path::PathBuf;

use strata_format::{DataType, Field, Schema};

use crate::error::{IngestError, Result};
use crate::parse;
use crate::text::{Fields, RecordReader, TextDialect};

/// Records [`sniff_header`] looks at.
const SNIFF_ROWS: usize = 2048;

/// Whether the first input's first record is a header, by DuckDB's rule:
/// the types of the columns are inferred from the records after it; the
/// first record is a header when one of its values does not fit its
/// column's type, or when every column is VARCHAR.
pub fn sniff_header(paths: &[PathBuf], dialect: TextDialect, null: &[u8]) -> Result<bool> {
    let Some(path) = paths.first() else {
        return Ok(true);
    };
    let counter = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let mut inner = crate::input::open_text(path, counter)?;
    {
        use std::io::BufRead;
        if inner
            .fill_buf()
            .map_err(|e| IngestError::io(path, e))?
            .starts_with(b"\xef\xbb\xbf")
        {
            inner.consume(3);
        }
    }
    let mut reader = RecordReader::new(inner, dialect);
    let mut buf = Vec::new();
    let mut first = Fields::default();
    if reader
        .next_record(&mut buf)
        .map_err(|e| IngestError::io(path, e))?
        .is_none()
    {
        return Ok(true);
    }
    if dialect.split(&buf, null, &mut first).is_err() {
        return Ok(true);
    }
    let mut columns = vec![Candidates::default(); first.len()];
    let mut fields = Fields::default();
    let mut rows = 0;
    while rows < SNIFF_ROWS {
        buf.clear();
        if reader
            .next_record(&mut buf)
            .map_err(|e| IngestError::io(path, e))?
            .is_none()
        {
            break;
        }
        fields.clear();
        if dialect.split(&buf, null, &mut fields).is_err() || fields.len() != columns.len() {
            continue;
        }
        rows += 1;
        for (i, c) in columns.iter_mut().enumerate() {
            if let Some(v) = fields.get(i) {
                c.observe(v);
            }
        }
    }
    if rows == 0 {
        // One record: its own types decide (all VARCHAR: a header).
        for (i, c) in columns.iter_mut().enumerate() {
            if let Some(v) = first.get(i) {
                c.observe(v);
            }
        }
    }
    let types: Vec<DataType> = columns.iter().map(Candidates::data_type).collect();
    if types.iter().all(|t| *t == DataType::String) {
        return Ok(true);
    }
    if rows == 0 {
        return Ok(false);
    }
    Ok(types.iter().enumerate().any(|(i, t)| match first.get(i) {
        None => false,
        Some(v) => {
            let mut c = Candidates::default();
            c.observe(v);
            !fits(&c, *t)
        }
    }))
}

/// Whether a value whose candidates are `c` can be read as type `t`.
fn fits(c: &Candidates, t: DataType) -> bool {
    match t {
        DataType::Bool => c.bool_,
        DataType::Int64 => c.int,
        DataType::UInt64 => c.int || c.uint,
        DataType::Float64 => c.float,
        DataType::Date => c.date,
        DataType::Timestamp => c.timestamp || c.date,
        _ => true,
    }
}

/// Whether text that parses as a number should be inferred as one, by
/// DuckDB's sniffer rules: a leading zero followed by a digit (`01234`, a
/// zip code or an account number, `00.5`) or a leading `+` keeps the column
/// text, so that reading it as a number cannot drop characters.
fn reads_as_number(v: &[u8]) -> bool {
    match v {
        [b'+', ..] => false,
        [b'0', d, ..] => !d.is_ascii_digit(),
        _ => true,
    }
}

/// How many records inference looks at.
pub const SAMPLE_ROWS: usize = 20_000;

#[derive(Debug, Clone)]
struct Candidates {
    bool_: bool,
    int: bool,
    uint: bool,
    float: bool,
    date: bool,
    timestamp: bool,
    values: u64,
    nulls: u64,
    /// Bytes of the values seen.
    bytes: u64,
}

impl Default for Candidates {
    fn default() -> Self {
        Candidates {
            bool_: true,
            int: true,
            uint: true,
            float: true,
            date: true,
            timestamp: true,
            values: 0,
            nulls: 0,
            bytes: 0,
        }
    }
}

impl Candidates {
    fn observe(&mut self, v: &[u8]) {
        self.values += 1;
        self.bytes += v.len() as u64;
        if self.bool_ {
            let l = v.to_ascii_lowercase();
            self.bool_ = l == b"true" || l == b"false";
        }
        if !reads_as_number(v) {
            (self.int, self.uint, self.float) = (false, false, false);
        }
        if self.int {
            self.int = parse::parse_signed(v, i64::MIN, i64::MAX, DataType::Int64).is_ok();
        }
        if self.uint && !self.int {
            self.uint = parse::parse_unsigned(v, u64::MAX, DataType::UInt64).is_ok();
        }
        if self.float {
            self.float = parse::parse_f64(v).is_ok();
        }
        if self.date {
            self.date = parse::parse_date(v).is_ok();
        }
        if self.timestamp {
            self.timestamp = parse::parse_timestamp(v).is_ok();
        }
    }

    fn data_type(&self) -> DataType {
        if self.values == 0 {
            DataType::String
        } else if self.bool_ {
            DataType::Bool
        } else if self.int {
            DataType::Int64
        } else if self.uint {
            DataType::UInt64
        } else if self.float {
            DataType::Float64
        } else if self.date {
            DataType::Date
        } else if self.timestamp {
            DataType::Timestamp
        } else {
            DataType::String
        }
    }
}

/// Infers column types from sample records. `names` comes from the header;
/// without one the columns are named `column0`, `column1`, ... Records whose
/// field count differs from the header's (or the first record's) are
/// skipped here; the ingest reports them.
pub struct Inferrer {
    names: Option<Vec<String>>,
    columns: Vec<Candidates>,
    /// The NULL marker that counts as NULL quoted too (CSV's
    /// `allow_quoted_nulls`: `""` is NULL).
    quoted_null: Option<Vec<u8>>,
}

impl Inferrer {
    /// Starts inference with the header's names, if there is a header.
    pub fn new(names: Option<Vec<String>>) -> Inferrer {
        let columns = names
            .as_ref()
            .map_or_else(Vec::new, |n| vec![Candidates::default(); n.len()]);
        Inferrer {
            names,
            columns,
            quoted_null: None,
        }
    }

    /// Counts a quoted `marker` as NULL, as the load will (so that a column
    /// whose only empties are quoted is nullable).
    pub fn with_quoted_null(mut self, marker: Vec<u8>) -> Inferrer {
        self.quoted_null = Some(marker);
        self
    }

    /// Looks at one record.
    pub fn observe(&mut self, fields: &Fields) {
        if self.columns.is_empty() && self.names.is_none() {
            self.columns = vec![Candidates::default(); fields.len()];
        }
        if fields.len() != self.columns.len() {
            return;
        }
        for (i, c) in self.columns.iter_mut().enumerate() {
            let quoted = fields.spans.get(i).is_some_and(|s| s.quoted);
            match fields.get(i) {
                Some(v) if quoted && self.quoted_null.as_deref() == Some(v) => c.nulls += 1,
                Some(v) => c.observe(v),
                None => c.nulls += 1,
            }
        }
    }

    /// Bytes of text seen per column: a rough cost of loading each.
    pub fn sample_bytes(&self) -> Vec<u64> {
        self.columns.iter().map(|c| c.bytes).collect()
    }

    /// The inferred schema.
    pub fn finish(self) -> Result<Schema> {
        if self.columns.is_empty() {
            return Err(IngestError::Usage(
                "cannot infer a schema from an empty input; give --schema".into(),
            ));
        }
        let names = unique_names(self.names, self.columns.len());
        let fields = names
            .into_iter()
            .zip(&self.columns)
            .map(|(name, c)| Field::new(name, c.data_type(), c.nulls > 0 || c.values == 0))
            .collect();
        Schema::new(fields).map_err(|e| IngestError::Schema(e.to_string()))
    }
}

/// Header names made usable as DuckDB makes them: a missing or empty name
/// is `column` and the column's position from 0, zero-padded to the width
/// of the last position (`column0` .. `column9`, `column00` ..
/// `column10`); repeated names get a `_1`, `_2`, ... suffix.
fn unique_names(names: Option<Vec<String>>, n: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(n);
    let mut seen = std::collections::HashSet::new();
    let width = n.saturating_sub(1).to_string().len();
    for i in 0..n {
        let base = names
            .as_ref()
            .and_then(|v| v.get(i))
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| format!("column{i:0width$}"));
        let mut name = base.clone();
        let mut k = 1;
        while !seen.insert(name.clone()) {
            name = format!("{base}_{k}");
            k += 1;
        }
        out.push(name);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::TextDialect;

    fn infer(header: Option<&str>, rows: &[&str]) -> Schema {
        let d = TextDialect::Csv { delimiter: b',' };
        let names = header.map(|h| h.split(',').map(String::from).collect());
        let mut inf = Inferrer::new(names);
        let mut f = Fields::default();
        for r in rows {
            d.split(r.as_bytes(), b"", &mut f).unwrap();
            inf.observe(&f);
        }
        inf.finish().unwrap()
    }

    #[test]
    fn infers_types_and_nullability() {
        let s = infer(
            Some("i,f,d,t,s,b,n,u,mixed,allnull"),
            &[
                "1,1.5,2013-07-15,2013-07-15 10:00:00,x,true,,18446744073709551615,1,",
                "-2,3,2013-07-16,2013-07-15T11:00:00,\"\",FALSE,7,1,2013-07-15,",
                "3,1e5,2000-01-01,2013-07-15,y,true,8,2,z,",
            ],
        );
        let got: Vec<(String, DataType, bool)> = s
            .fields
            .iter()
            .map(|f| (f.name.clone(), f.data_type, f.nullable))
            .collect();
        use DataType as D;
        assert_eq!(
            got,
            vec![
                ("i".into(), D::Int64, false),
                ("f".into(), D::Float64, false),
                ("d".into(), D::Date, false),
                ("t".into(), D::Timestamp, false),
                ("s".into(), D::String, false),
                ("b".into(), D::Bool, false),
                ("n".into(), D::Int64, true),
                ("u".into(), D::UInt64, false),
                ("mixed".into(), D::String, false),
                ("allnull".into(), D::String, true),
            ]
        );
    }

    #[test]
    fn leading_zeros_and_plus_signs_keep_text() {
        // As DuckDB's sniffer: `007` and `+1` stay text; `0`, `0.5`,
        // `-007` and `0e1` are numbers.
        let s = infer(
            Some("zip,plus,frac,zero,neg,exp"),
            &["01234,+1,00.5,0,-007,0e1", "1,2,0.5,1,2,1"],
        );
        let types: Vec<DataType> = s.fields.iter().map(|f| f.data_type).collect();
        use DataType as D;
        assert_eq!(
            types,
            [
                D::String,
                D::String,
                D::String,
                D::Int64,
                D::Int64,
                D::Float64
            ]
        );
    }

    #[test]
    fn names_without_header_and_duplicates() {
        let s = infer(None, &["1,a"]);
        // DuckDB's names for the same files.
        assert_eq!(s.fields[0].name, "column0");
        assert_eq!(s.fields[1].name, "column1");
        let s = infer(Some("a,a,,a,column2"), &["1,2,3,4,5"]);
        let names: Vec<&str> = s.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["a", "a_1", "column2", "a_2", "column2_1"]);
        let wide = ["1"; 11].join(",");
        let s = infer(None, &[wide.as_str()]);
        assert_eq!(s.fields[0].name, "column00");
        assert_eq!(s.fields[10].name, "column10");
    }

    #[test]
    fn ragged_records_are_ignored() {
        let s = infer(Some("a,b"), &["1,2", "x", "3,4,5"]);
        assert_eq!(s.fields[0].data_type, DataType::Int64);
    }

    #[test]
    fn empty_input_is_an_error() {
        assert!(Inferrer::new(None).finish().is_err());
    }
}

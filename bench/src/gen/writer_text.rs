//! TSV and CSV encoding of generated batches, in the text form of ClickBench's
//! `hits.tsv` / `hits.csv`: no header line, timestamps as `YYYY-MM-DD HH:MM:SS` and
//! dates as `YYYY-MM-DD`.
//!
//! Timestamps are written in UTC, the zone in which DuckDB and DataFusion show the
//! Parquet file's Unix seconds, so a table loaded from either format answers every
//! query identically. `EventDate` is the UTC+4 date, as in the real data.

use super::model::civil_from_days;
use super::schema::{ColRef, HitsBatch};
use super::text::push_i64;

/// A text output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextFormat {
    /// Tab-separated, with `\t`, `\n`, `\r` and `\\` escaped by a backslash.
    Tsv,
    /// RFC 4180 CSV: fields holding `,`, `"`, CR or LF are quoted, quotes doubled;
    /// empty strings are written as `""`.
    Csv,
}

/// Appends the rows of `batch` to `out`.
pub fn encode(batch: &HitsBatch, format: TextFormat, out: &mut Vec<u8>) {
    let cols = batch.columns();
    let sep = match format {
        TextFormat::Tsv => b'\t',
        TextFormat::Csv => b',',
    };
    for row in 0..batch.len() {
        for (j, col) in cols.iter().enumerate() {
            if j > 0 {
                out.push(sep);
            }
            match *col {
                ColRef::I16(v) => push_i64(out, i64::from(v[row])),
                ColRef::I32(v) => push_i64(out, i64::from(v[row])),
                ColRef::I64(v) => push_i64(out, v[row]),
                ColRef::Time(v) => push_datetime(out, v[row]),
                ColRef::Date(v) => push_date(out, i64::from(v[row])),
                ColRef::Str(s) => match format {
                    TextFormat::Tsv => push_tsv(out, s.get(row)),
                    TextFormat::Csv => push_csv(out, s.get(row)),
                },
            }
        }
        out.push(b'\n');
    }
}

fn push_2(out: &mut Vec<u8>, v: u32) {
    out.push(b'0' + (v / 10 % 10) as u8);
    out.push(b'0' + (v % 10) as u8);
}

/// Appends `YYYY-MM-DD` for a day number since the epoch.
pub fn push_date(out: &mut Vec<u8>, days: i64) {
    let (y, m, d) = civil_from_days(days);
    if (0..10_000).contains(&y) {
        let y = y as u32;
        push_2(out, y / 100);
        push_2(out, y % 100);
    } else {
        push_i64(out, y);
    }
    out.push(b'-');
    push_2(out, m);
    out.push(b'-');
    push_2(out, d);
}

/// Appends `YYYY-MM-DD HH:MM:SS` (UTC) for Unix seconds.
pub fn push_datetime(out: &mut Vec<u8>, secs: i64) {
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400) as u32;
    push_date(out, days);
    out.push(b' ');
    push_2(out, sod / 3600);
    out.push(b':');
    push_2(out, sod / 60 % 60);
    out.push(b':');
    push_2(out, sod % 60);
}

fn push_tsv(out: &mut Vec<u8>, s: &[u8]) {
    if !s
        .iter()
        .any(|&c| matches!(c, b'\t' | b'\n' | b'\r' | b'\\'))
    {
        out.extend_from_slice(s);
        return;
    }
    for &c in s {
        match c {
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\\' => out.extend_from_slice(b"\\\\"),
            _ => out.push(c),
        }
    }
}

fn push_csv(out: &mut Vec<u8>, s: &[u8]) {
    // Empty strings are written as `""` so that loaders which read an empty unquoted
    // field as NULL (DuckDB, PostgreSQL) keep them as empty strings.
    if !s.is_empty() && !s.iter().any(|&c| matches!(c, b',' | b'"' | b'\n' | b'\r')) {
        out.extend_from_slice(s);
        return;
    }
    out.push(b'"');
    for &c in s {
        if c == b'"' {
            out.push(b'"');
        }
        out.push(c);
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_times_and_escapes() {
        let mut v = Vec::new();
        push_datetime(&mut v, 1_372_708_869);
        assert_eq!(v, b"2013-07-01 20:01:09");
        v.clear();
        push_date(&mut v, 15888);
        assert_eq!(v, b"2013-07-02");
        v.clear();
        push_tsv(&mut v, b"a\tb\nc\\d");
        assert_eq!(v, b"a\\tb\\nc\\\\d");
        v.clear();
        push_csv(&mut v, b"x,\"y\"");
        assert_eq!(v, b"\"x,\"\"y\"\"\"");
        v.clear();
        push_csv(&mut v, b"plain");
        assert_eq!(v, b"plain");
        v.clear();
        push_csv(&mut v, b"");
        assert_eq!(v, b"\"\"");
    }
}

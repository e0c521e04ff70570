//! Printing query results as an aligned table, CSV, TSV, JSON or JSON lines.

use std::io::{self, Write};

use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, Table as TextTable};
use strata_engine::value::format_value;
use strata_engine::{LType, QueryResult, Value};

/// Output formats of `strata query`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Format {
    /// An aligned table for people; long values are truncated.
    Table,
    /// RFC 4180 CSV with a header line; strings as raw bytes.
    Csv,
    /// Tab-separated with a header line; strings as raw bytes.
    Tsv,
    /// One JSON array of objects.
    Json,
    /// One JSON object per line.
    Jsonl,
}

/// Longest value shown in the table format before truncation (characters).
const TABLE_MAX_CHARS: usize = 60;

/// Writes `result` to `out` in `format`.
pub fn write(result: &QueryResult, format: Format, out: &mut dyn Write) -> io::Result<()> {
    match format {
        Format::Table => write_table(result, out),
        Format::Csv => write_delimited(result, b',', out),
        Format::Tsv => write_delimited(result, b'\t', out),
        Format::Json => write_json(result, false, out),
        Format::Jsonl => write_json(result, true, out),
    }
}

fn is_numeric(ty: LType) -> bool {
    ty.is_numeric()
}

fn write_table(result: &QueryResult, out: &mut dyn Write) -> io::Result<()> {
    let mut t = TextTable::new();
    t.load_preset(UTF8_FULL_CONDENSED);
    t.set_header(
        result
            .columns
            .iter()
            .map(|c| Cell::new(format!("{}\n{}", c.name, c.ty.name()))),
    );
    for r in 0..result.num_rows() {
        t.add_row(result.columns.iter().map(|c| {
            let text = format_value(c.ty, &c.values.get(r));
            let text = truncate(&text.replace('\n', "\\n"));
            let cell = Cell::new(text);
            if is_numeric(c.ty) {
                cell.set_alignment(CellAlignment::Right)
            } else {
                cell
            }
        }));
    }
    writeln!(out, "{t}")?;
    let n = result.num_rows();
    writeln!(out, "{n} row{}", if n == 1 { "" } else { "s" })
}

fn truncate(s: &str) -> String {
    if s.chars().count() <= TABLE_MAX_CHARS {
        return s.to_string();
    }
    let mut t: String = s.chars().take(TABLE_MAX_CHARS - 1).collect();
    t.push('…');
    t
}

/// The bytes a value is written as in CSV/TSV: strings raw, NULL empty.
fn raw_bytes(ty: LType, v: &Value) -> Vec<u8> {
    match v {
        Value::Null => Vec::new(),
        Value::Str(s) if !matches!(ty, LType::List(_)) => s.clone(),
        other => format_value(ty, other).into_bytes(),
    }
}

fn write_delimited(result: &QueryResult, delim: u8, out: &mut dyn Write) -> io::Result<()> {
    let quote = |field: &[u8], out: &mut dyn Write| -> io::Result<()> {
        if delim == b','
            && field
                .iter()
                .any(|&b| b == b',' || b == b'"' || b == b'\n' || b == b'\r')
        {
            out.write_all(b"\"")?;
            for &b in field {
                if b == b'"' {
                    out.write_all(b"\"\"")?;
                } else {
                    out.write_all(&[b])?;
                }
            }
            out.write_all(b"\"")
        } else if delim == b'\t' {
            // The ClickHouse/PostgreSQL text convention.
            for &b in field {
                match b {
                    b'\t' => out.write_all(b"\\t")?,
                    b'\n' => out.write_all(b"\\n")?,
                    b'\\' => out.write_all(b"\\\\")?,
                    _ => out.write_all(&[b])?,
                }
            }
            Ok(())
        } else {
            out.write_all(field)
        }
    };
    for (i, c) in result.columns.iter().enumerate() {
        if i > 0 {
            out.write_all(&[delim])?;
        }
        quote(c.name.as_bytes(), out)?;
    }
    out.write_all(b"\n")?;
    for r in 0..result.num_rows() {
        for (i, c) in result.columns.iter().enumerate() {
            if i > 0 {
                out.write_all(&[delim])?;
            }
            let v = c.values.get(r);
            if delim == b'\t' && v == Value::Null {
                out.write_all(b"\\N")?;
            } else {
                quote(&raw_bytes(c.ty, &v), out)?;
            }
        }
        out.write_all(b"\n")?;
    }
    Ok(())
}

fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn json_value(ty: LType, v: &Value, out: &mut String) {
    if let (LType::List(elem), Value::Str(bytes)) = (ty, v) {
        if let Some(items) = strata_engine::list::decode(*elem, bytes) {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json_value(*elem, item, out);
            }
            out.push(']');
            return;
        }
    }
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Float(f) if !f.is_finite() => json_string(&format_value(ty, v), out),
        Value::Int(_) | Value::UInt(_) | Value::Huge(_) | Value::Float(_)
            if is_numeric(ty) && !matches!(ty, LType::Decimal(..)) =>
        {
            out.push_str(&format_value(ty, v))
        }
        other => json_string(&format_value(ty, other), out),
    }
}

fn write_json(result: &QueryResult, lines: bool, out: &mut dyn Write) -> io::Result<()> {
    if !lines {
        out.write_all(b"[")?;
    }
    for r in 0..result.num_rows() {
        let mut obj = String::from("{");
        for (i, c) in result.columns.iter().enumerate() {
            if i > 0 {
                obj.push(',');
            }
            json_string(&c.name, &mut obj);
            obj.push(':');
            json_value(c.ty, &c.values.get(r), &mut obj);
        }
        obj.push('}');
        if lines {
            writeln!(out, "{obj}")?;
        } else {
            if r > 0 {
                out.write_all(b",")?;
            }
            write!(out, "\n{obj}")?;
        }
    }
    if !lines {
        out.write_all(b"\n]\n")?;
    }
    Ok(())
}

/// Prints `text` to standard output; a closed pipe (as with `| head`) is not
/// an error.
pub fn print_stdout(text: &str) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

//! `strata info`: a table's schema and a storage breakdown per column and per
//! section.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use comfy_table::{presets::UTF8_BORDERS_ONLY, Cell, CellAlignment, Table as TextTable};
use strata_format::layout::{Section, SECTION_COUNT};
use strata_format::{DataType, Table};

/// Prints the schema, size, and per-column and per-section byte counts;
/// with `by_section`, also a matrix of bytes per column and section.
pub fn run(path: &Path, by_section: bool) -> Result<()> {
    let table = Table::open(path).with_context(|| format!("opening table {}", path.display()))?;
    let schema = table.schema();
    let rows = table.num_rows();
    let manifest_bytes = std::fs::metadata(path.join(strata_format::layout::MANIFEST_FILE))
        .map(|m| m.len())
        .unwrap_or(0);
    let mut text = String::new();
    let mut per_section = [0u64; SECTION_COUNT];
    let mut out = TextTable::new();
    out.load_preset(UTF8_BORDERS_ONLY);
    out.set_header(vec![
        "column",
        "type",
        "distinct/block",
        "nulls",
        "bytes",
        "bytes/row",
        "raw bytes",
        "ratio",
    ]);
    let mut total = 0u64;
    let mut total_raw = 0u64;
    let mut matrix = Vec::with_capacity(schema.len());
    for (c, field) in schema.fields.iter().enumerate() {
        let (mut bytes, mut distinct, mut nulls) = (0u64, 0u64, 0u64);
        let mut column_sections = [0u64; SECTION_COUNT];
        for b in 0..table.num_blocks() {
            let meta = table.manifest().chunk(b, c);
            for (i, s) in meta.sections.iter().enumerate() {
                per_section[i] += u64::from(s.stored_len.get());
                column_sections[i] += u64::from(s.stored_len.get());
                bytes += u64::from(s.stored_len.get());
            }
            distinct += u64::from(meta.distinct.get());
            nulls += u64::from(meta.null_count.get());
        }
        matrix.push((field.name.as_str(), column_sections));
        let raw = raw_bytes(&table, c, field.data_type)?;
        total += bytes;
        total_raw += raw;
        let blocks = table.num_blocks().max(1) as u64;
        out.add_row(vec![
            Cell::new(&field.name),
            Cell::new(format!(
                "{}{}",
                field.data_type,
                if field.nullable { "" } else { " NOT NULL" }
            )),
            num_cell(distinct / blocks),
            num_cell(nulls),
            num_cell(bytes),
            Cell::new(format!("{:.2}", per_row(bytes, rows))).set_alignment(CellAlignment::Right),
            num_cell(raw),
            Cell::new(ratio(raw, bytes)).set_alignment(CellAlignment::Right),
        ]);
    }
    writeln!(text, "table     {}", path.display())?;
    writeln!(text, "rows      {rows}")?;
    writeln!(
        text,
        "blocks    {} (block size {} rows)",
        table.num_blocks(),
        table.manifest().block_rows
    )?;
    writeln!(text, "columns   {}", schema.len())?;
    writeln!(
        text,
        "bytes     {} in blocks + {} manifest = {:.2} bytes/row; {} raw, ratio {}",
        total,
        manifest_bytes,
        per_row(total + manifest_bytes, rows),
        total_raw,
        ratio(total_raw, total + manifest_bytes)
    )?;
    writeln!(text, "\n{out}")?;
    let mut sections = TextTable::new();
    sections.load_preset(UTF8_BORDERS_ONLY);
    sections.set_header(vec!["section", "bytes", "bytes/row", "share"]);
    for s in Section::ALL {
        let b = per_section[s as usize];
        if b == 0 {
            continue;
        }
        sections.add_row(vec![
            Cell::new(s.name()),
            num_cell(b),
            Cell::new(format!("{:.2}", per_row(b, rows))).set_alignment(CellAlignment::Right),
            Cell::new(format!("{:.1}%", 100.0 * b as f64 / total.max(1) as f64))
                .set_alignment(CellAlignment::Right),
        ]);
    }
    writeln!(text, "\n{sections}")?;
    if by_section {
        writeln!(text, "\n{}", section_matrix(&matrix, &per_section))?;
    }
    crate::output::print_stdout(&text)
}

/// A table of bytes per column (rows, largest first) and non-empty section
/// (columns).
fn section_matrix(matrix: &[(&str, [u64; SECTION_COUNT])], per_section: &[u64]) -> TextTable {
    let used: Vec<Section> = Section::ALL
        .into_iter()
        .filter(|s| per_section[*s as usize] > 0)
        .collect();
    let mut out = TextTable::new();
    out.load_preset(UTF8_BORDERS_ONLY);
    let mut header = vec!["column".to_string(), "bytes".to_string()];
    header.extend(used.iter().map(|s| s.name().to_string()));
    out.set_header(header);
    let mut rows: Vec<_> = matrix
        .iter()
        .map(|(name, sections)| (sections.iter().sum::<u64>(), *name, sections))
        .collect();
    rows.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    for (bytes, name, sections) in rows {
        let mut row = vec![Cell::new(name), num_cell(bytes)];
        row.extend(used.iter().map(|s| num_cell(sections[*s as usize])));
        out.add_row(row);
    }
    out
}

/// Bytes the column would take uncompressed: the natural width per non-NULL
/// row for fixed-width types, the string bytes for strings.
fn raw_bytes(table: &Table, col: usize, data_type: DataType) -> Result<u64> {
    let mut raw = 0u64;
    for b in 0..table.num_blocks() {
        let stats = table.stats(b, col);
        let present = u64::from(stats.rows - stats.null_count);
        raw += match data_type {
            DataType::Bool | DataType::Int8 | DataType::UInt8 => present,
            DataType::Int16 | DataType::UInt16 => 2 * present,
            DataType::Int32 | DataType::UInt32 | DataType::Float32 | DataType::Date => 4 * present,
            DataType::String => {
                let chunk = table.chunk(b, col)?;
                if chunk.distinct() == 0 {
                    0
                } else {
                    let counts = chunk.counts()?;
                    let dict = chunk.dictionary()?;
                    let mut sum = 0u64;
                    for v in 0..chunk.distinct() {
                        let len = dict.len_of(dict.str_of_value(v)?) as u64;
                        sum += len * counts.view().get(v);
                    }
                    sum
                }
            }
            _ => 8 * present,
        };
    }
    Ok(raw)
}

fn per_row(bytes: u64, rows: u64) -> f64 {
    bytes as f64 / rows.max(1) as f64
}

fn ratio(raw: u64, stored: u64) -> String {
    if stored == 0 {
        "-".into()
    } else {
        format!("{:.2}x", raw as f64 / stored as f64)
    }
}

fn num_cell(n: u64) -> Cell {
    Cell::new(n).set_alignment(CellAlignment::Right)
}

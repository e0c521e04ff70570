//! Parquet output with the physical layout of ClickBench's `hits.parquet`.
//!
//! Types mirror the real file (and the 10-row sample in `shared/clickbench/sample/`):
//! every column is `OPTIONAL` (with no nulls); SMALLINT/INTEGER columns are `INT32`
//! annotated `INTEGER(16|32, signed)`; BIGINT and the three timestamps are `INT64`
//! (`INTEGER(64, signed)`, timestamps as Unix seconds); `EventDate` is `INT32`
//! annotated `INTEGER(16, unsigned)` holding days since 1970-01-01; strings are
//! `BYTE_ARRAY` with no UTF8 annotation (the data holds invalid UTF-8).
//!
//! It uses the `parquet` crate's low-level column writers (no Arrow). The columns of
//! a row group are encoded and compressed in parallel into memory and then spliced
//! into the file in schema order, so the bytes do not depend on the thread count.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use bytes::Bytes;
use parquet::basic::{Compression, ZstdLevel};
use parquet::column::writer::{get_column_writer, ColumnCloseResult, ColumnWriter};
use parquet::data_type::ByteArray;
use parquet::file::properties::{WriterProperties, WriterPropertiesPtr};
use parquet::file::writer::{SerializedFileWriter, SerializedPageWriter, TrackedWrite};
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::{ColumnDescPtr, ColumnPath};
use rayon::prelude::*;

use super::schema::{ColRef, HitsBatch, Kind, COLUMNS};

/// Compression codec for the Parquet output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Codec {
    /// Snappy, as in the published `hits.parquet`.
    Snappy,
    /// ZSTD level 3 (about 1.6 times smaller).
    Zstd,
}

/// Columns too distinct for dictionary encoding to pay off (the reference writer
/// abandons the dictionary for them anyway).
const NO_DICTIONARY: &[&str] = &[
    "WatchID",
    "EventTime",
    "ClientEventTime",
    "LocalEventTime",
    "UserID",
    "URL",
    "Referer",
    "Title",
    "OriginalURL",
    "FUniqID",
    "HID",
    "URLHash",
    "RefererHash",
];

/// The Parquet message type of the `hits` table.
pub fn message_type() -> String {
    let mut s = String::from("message hits {\n");
    for (name, kind) in COLUMNS {
        let t = match kind {
            Kind::I16 => "INT32 {} (INTEGER(16,true))",
            Kind::I32 => "INT32 {} (INTEGER(32,true))",
            Kind::I64 | Kind::Time => "INT64 {} (INTEGER(64,true))",
            Kind::Date => "INT32 {} (INTEGER(16,false))",
            Kind::Str => "BYTE_ARRAY {}",
        };
        s.push_str("  OPTIONAL ");
        s.push_str(&t.replace("{}", name));
        s.push_str(";\n");
    }
    s.push('}');
    s
}

/// A Parquet file being written one row group at a time.
pub struct ParquetSink {
    writer: SerializedFileWriter<File>,
    columns: Vec<ColumnDescPtr>,
    props: WriterPropertiesPtr,
}

impl ParquetSink {
    /// Creates `path` for writing.
    pub fn create(path: &Path, codec: Codec) -> Result<Self> {
        let schema =
            Arc::new(parse_message_type(&message_type()).context("building the Parquet schema")?);
        let compression = match codec {
            Codec::Snappy => Compression::SNAPPY,
            Codec::Zstd => Compression::ZSTD(ZstdLevel::try_new(3).context("zstd level")?),
        };
        let mut builder = WriterProperties::builder()
            .set_compression(compression)
            .set_created_by("strata-bench gen hits".to_string())
            .set_dictionary_page_size_limit(1 << 20);
        for name in NO_DICTIONARY {
            builder = builder.set_column_dictionary_enabled(ColumnPath::from(*name), false);
        }
        let props = Arc::new(builder.build());
        let file = File::create(path).with_context(|| format!("creating {}", path.display()))?;
        let writer = SerializedFileWriter::new(file, schema, props.clone())
            .context("starting the Parquet file")?;
        let columns = writer.schema_descr().columns().to_vec();
        Ok(Self {
            writer,
            columns,
            props,
        })
    }

    /// Writes `batches` as one row group (columns encoded in parallel).
    pub fn write_row_group(&mut self, batches: &[HitsBatch]) -> Result<()> {
        let encoded: Vec<(Bytes, ColumnCloseResult)> = self
            .columns
            .par_iter()
            .enumerate()
            .map(|(j, descr)| encode_column(descr.clone(), self.props.clone(), batches, j))
            .collect::<Result<_>>()?;
        let mut rg = self
            .writer
            .next_row_group()
            .context("starting a row group")?;
        for (bytes, close) in encoded {
            rg.append_column(&bytes, close)
                .context("appending a column chunk")?;
        }
        rg.close().context("closing a row group")?;
        Ok(())
    }

    /// Writes the footer and flushes the file.
    pub fn finish(self) -> Result<()> {
        // `into_inner` writes the footer and flushes the internal buffer.
        let file = self
            .writer
            .into_inner()
            .context("writing the Parquet footer")?;
        file.sync_data().context("syncing the Parquet file")?;
        Ok(())
    }
}

/// Encodes column `j` of `batches` into an in-memory column chunk.
fn encode_column(
    descr: ColumnDescPtr,
    props: WriterPropertiesPtr,
    batches: &[HitsBatch],
    j: usize,
) -> Result<(Bytes, ColumnCloseResult)> {
    let name = descr.name().to_string();
    let mut sink = TrackedWrite::new(Vec::new());
    let close = {
        let page_writer = Box::new(SerializedPageWriter::new(&mut sink));
        let mut writer = get_column_writer(descr, props, page_writer);
        let max_rows = batches.iter().map(HitsBatch::len).max().unwrap_or(0);
        let ones = vec![1i16; max_rows];
        for batch in batches {
            let cols = batch.columns();
            let col = cols
                .get(j)
                .with_context(|| format!("column {j} missing from batch"))?;
            let defs = &ones[..batch.len()];
            write_values(&mut writer, *col, defs)
                .with_context(|| format!("encoding column {name}"))?;
        }
        writer
            .close()
            .with_context(|| format!("closing column {name}"))?
    };
    let bytes = sink
        .into_inner()
        .with_context(|| format!("buffering column {name}"))?;
    Ok((Bytes::from(bytes), close))
}

fn write_values(writer: &mut ColumnWriter<'_>, col: ColRef<'_>, defs: &[i16]) -> Result<()> {
    match (writer, col) {
        (ColumnWriter::Int32ColumnWriter(w), ColRef::I16(v)) => {
            let v: Vec<i32> = v.iter().map(|&x| i32::from(x)).collect();
            w.write_batch(&v, Some(defs), None)?;
        }
        (ColumnWriter::Int32ColumnWriter(w), ColRef::Date(v)) => {
            let v: Vec<i32> = v.iter().map(|&x| i32::from(x)).collect();
            w.write_batch(&v, Some(defs), None)?;
        }
        (ColumnWriter::Int32ColumnWriter(w), ColRef::I32(v)) => {
            w.write_batch(v, Some(defs), None)?;
        }
        (ColumnWriter::Int64ColumnWriter(w), ColRef::I64(v) | ColRef::Time(v)) => {
            w.write_batch(v, Some(defs), None)?;
        }
        (ColumnWriter::ByteArrayColumnWriter(w), ColRef::Str(s)) => {
            let data = Bytes::copy_from_slice(&s.data);
            let mut start = 0usize;
            let values: Vec<ByteArray> = s
                .ends
                .iter()
                .map(|&end| {
                    let v = ByteArray::from(data.slice(start..end as usize));
                    start = end as usize;
                    v
                })
                .collect();
            w.write_batch(&values, Some(defs), None)?;
        }
        _ => anyhow::bail!("column kind does not match its Parquet type"),
    }
    Ok(())
}

//! `strata ingest`: load CSV, TSV or Parquet files into a table.
//!
//! Flag parsing, the progress bar and the summary live here; the work is
//! done by [`strata_ingest::run`].

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use strata_ingest::{
    create_table_sql, parse_create_table, Event, IngestOptions, IngestSummary, InputFormat,
    SchemaSource,
};

use crate::progress::{progress_bar, show, size, thousands};

/// Input formats on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FormatArg {
    /// Comma-separated values (RFC 4180).
    Csv,
    /// Tab-separated values (ClickHouse/PostgreSQL escaping, `\N` for NULL).
    Tsv,
    /// Apache Parquet.
    Parquet,
}

/// Table compression on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum CompressionArg {
    /// zstd for strings (a dictionary per chunk), most sections, sorted
    /// values and the row lists of scattered few-valued columns: the
    /// smallest tables.
    Zstd,
    /// LZ4 everywhere, as format version 1 compressed, values raw: faster to
    /// build and to read strings from, about 45% larger.
    Lz4,
    /// Uncompressed strings, LZ4 elsewhere: the fastest to build, the largest.
    Raw,
}

impl From<CompressionArg> for strata_format::Compression {
    fn from(arg: CompressionArg) -> Self {
        match arg {
            CompressionArg::Zstd => strata_format::Compression::Zstd,
            CompressionArg::Lz4 => strata_format::Compression::Lz4,
            CompressionArg::Raw => strata_format::Compression::Raw,
        }
    }
}

/// How rows are stored, on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum RowAccessArg {
    /// Every row's value index bit-packed, read in place, where that takes
    /// at most twice the bytes of the smallest form: fast queries from a
    /// fresh process.
    Fast,
    /// The smallest form of each column's rows always.
    Compact,
}

impl From<RowAccessArg> for strata_format::RowAccess {
    fn from(arg: RowAccessArg) -> Self {
        match arg {
            RowAccessArg::Fast => strata_format::RowAccess::Fast,
            RowAccessArg::Compact => strata_format::RowAccess::Compact,
        }
    }
}

/// Arguments of `strata ingest`.
#[derive(Debug, Args)]
pub struct IngestArgs {
    /// The table directory to create (or, with --append, to add to).
    #[arg(long, value_name = "DIR")]
    table: PathBuf,

    /// Input files or globs; `-` reads standard input. `.gz` and `.zst`
    /// inputs are decompressed.
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<String>,

    /// A file with a CREATE TABLE statement (ClickHouse or SQL types).
    /// Without it the schema comes from Parquet metadata or is inferred from
    /// a sample of the text and printed.
    #[arg(long, value_name = "FILE")]
    schema: Option<PathBuf>,

    /// The input format [default: from the file extension].
    #[arg(long, value_enum)]
    format: Option<FormatArg>,

    /// Field delimiter: one character, or `tab` [default: `,` for CSV, tab for TSV].
    #[arg(long, value_name = "CHAR")]
    delimiter: Option<String>,

    /// Text inputs start with a header line (the default for CSV).
    #[arg(long, conflicts_with = "no_header")]
    header: bool,

    /// Text inputs have no header line (the default for TSV).
    #[arg(long)]
    no_header: bool,

    /// The text that stands for NULL [default: an empty unquoted CSV field; `\N` in TSV].
    #[arg(long, value_name = "STRING")]
    null: Option<String>,

    /// Rows per block.
    #[arg(long, value_name = "N", default_value_t = strata_format::DEFAULT_BLOCK_ROWS)]
    block_rows: usize,

    /// Worker threads [default: one per core].
    #[arg(long, value_name = "N", default_value_t = 0, hide_default_value = true)]
    threads: usize,

    /// Working memory to stay under (e.g. 2GB): blocks get fewer rows than
    /// --block-rows where wide rows would need more [default: no limit,
    /// about (threads + 2) blocks of input in flight].
    #[arg(long, value_name = "SIZE", value_parser = crate::cmd_query::parse_memory_limit)]
    memory_limit: Option<u64>,

    /// Add the rows to an existing table (atomically: readers see the old or
    /// the new table, never a mix).
    #[arg(long)]
    append: bool,

    /// Skip up to N malformed rows (reported at the end) instead of failing
    /// at the first.
    #[arg(long, value_name = "N", default_value_t = 0)]
    max_errors: u64,

    /// Do not fsync the table before publishing it (faster; a crash may then
    /// lose the table).
    #[arg(long)]
    no_sync: bool,

    /// How the table is compressed.
    #[arg(long, value_enum, default_value_t = CompressionArg::Zstd)]
    compression: CompressionArg,

    /// How each column's rows are stored: packed for reading in place, or
    /// as compactly as possible.
    #[arg(long, value_enum, default_value_t = RowAccessArg::Fast)]
    row_access: RowAccessArg,

    /// Sort the rows by these columns (comma-separated, most significant
    /// first) before writing them [default: the schema's ORDER BY or primary
    /// key]. Sorted tables are smaller and filters on the leading columns
    /// skip more; the sort spills to a temporary directory beside the table.
    #[arg(
        long,
        value_name = "COLUMNS",
        value_delimiter = ',',
        conflicts_with = "no_sort"
    )]
    sort_by: Option<Vec<String>>,

    /// Keep the input order even when the schema declares a sort key.
    #[arg(long)]
    no_sort: bool,
}

fn parse_delimiter(s: &str) -> anyhow::Result<u8> {
    match s {
        "tab" | "\\t" | "\t" => Ok(b'\t'),
        _ if s.len() == 1 && s.is_ascii() => Ok(s.as_bytes()[0]),
        _ => bail!("--delimiter must be one ASCII character or `tab`, not {s:?}"),
    }
}

/// Runs `strata ingest`.
pub fn run(args: IngestArgs) -> anyhow::Result<()> {
    let (schema, declared_key) = match &args.schema {
        Some(path) => {
            let sql = std::fs::read_to_string(path)
                .with_context(|| format!("reading schema file {}", path.display()))?;
            let def = parse_create_table(&sql)
                .with_context(|| format!("in schema file {}", path.display()))?;
            (Some(def.schema), def.sort_key)
        }
        None => (None, Vec::new()),
    };
    // Ctrl-C stops the ingest at its next block, which removes what it
    // wrote, or at the latest just before the commit (the rename that
    // publishes the rows); after that it completes and says so. A second
    // Ctrl-C quits at once (temporary files are then removed by the next
    // ingest into the same directory).
    let cancel = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicBool::new(false));
    let _running = {
        let (cancel, done) = (cancel.clone(), done.clone());
        crate::sigint::Running::on_interrupt(move || {
            if done.load(Ordering::SeqCst) {
                // Finished: only the summary is left to print.
                cancel.store(true, Ordering::SeqCst);
                return;
            }
            if cancel.swap(true, Ordering::SeqCst) {
                std::process::exit(i32::from(crate::sigint::EXIT_INTERRUPTED));
            }
            eprintln!("\ninterrupting: removing what was written (Ctrl-C again to quit at once)");
        })
    };
    let sort_by = match (&args.sort_by, args.no_sort) {
        (_, true) => None,
        (Some(cols), false) => Some(cols.iter().map(|c| c.trim().to_string()).collect()),
        (None, false) => Some(declared_key).filter(|k| !k.is_empty()),
    };
    let options = IngestOptions {
        format: args.format.map(|f| match f {
            FormatArg::Csv => InputFormat::Csv,
            FormatArg::Tsv => InputFormat::Tsv,
            FormatArg::Parquet => InputFormat::Parquet,
        }),
        delimiter: args.delimiter.as_deref().map(parse_delimiter).transpose()?,
        header: match (args.header, args.no_header) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        },
        null_string: args.null.clone(),
        // `strata ingest` keeps its documented CSV defaults: a header line,
        // `""` the empty string.
        quoted_nulls: false,
        sniff_header: false,
        block_rows: args.block_rows,
        threads: args.threads,
        max_errors: args.max_errors,
        schema,
        columns: None,
        append: args.append,
        sync: !args.no_sync,
        compression: args.compression.into(),
        row_access: args.row_access.into(),
        max_rows: None,
        sort_by,
        cancel: Some(cancel.clone()),
        memory_limit: args.memory_limit,
    };
    let table_name = args
        .table
        .file_stem()
        .map_or_else(|| "t".to_string(), |s| s.to_string_lossy().into_owned());

    let bar = if std::io::stderr().is_terminal() {
        Some(progress_bar())
    } else {
        None
    };
    let mut on_event = |event: Event<'_>| match event {
        Event::Schema { schema, source } => {
            if matches!(source, SchemaSource::Inferred | SchemaSource::Parquet) {
                let how = if source == SchemaSource::Inferred {
                    "inferred from a sample"
                } else {
                    "from the Parquet metadata"
                };
                let note = format!(
                    "-- schema {how}; save it, edit it and pass it with --schema to change types"
                );
                let sql = create_table_sql(&table_name, schema);
                match &bar {
                    Some(b) => b.suspend(|| {
                        eprintln!("{note}");
                        print!("{sql}");
                    }),
                    None => {
                        eprintln!("{note}");
                        print!("{sql}");
                    }
                }
            }
        }
        Event::Progress(p) => {
            if let Some(b) = &bar {
                show(b, &p);
            }
        }
    };
    let result = strata_ingest::run(&args.inputs, &args.table, &options, &mut on_event);
    done.store(true, Ordering::SeqCst);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    if let Err(strata_ingest::IngestError::Interrupted) = &result {
        let what = if args.append {
            "ingest interrupted; the table is unchanged"
        } else {
            "ingest interrupted; no table was created"
        };
        eprintln!("{what}");
        return Err(anyhow::Error::new(crate::sigint::Interrupted("ingest")));
    }
    let summary = result.with_context(|| {
        if args.append {
            format!(
                "ingest into {} failed; the table is unchanged",
                args.table.display()
            )
        } else {
            format!(
                "ingest into {} failed; no table was created",
                args.table.display()
            )
        }
    })?;
    print_summary(&args, &summary);
    if cancel.load(Ordering::SeqCst) {
        // Ctrl-C came after the commit point: the write is done.
        eprintln!(
            "interrupted too late: the {} had already completed",
            if args.append { "append" } else { "ingest" }
        );
    }
    Ok(())
}

fn print_summary(args: &IngestArgs, s: &IngestSummary) {
    let secs = s.elapsed.as_secs_f64();
    let rate = if secs > 0.0 {
        s.rows as f64 / secs
    } else {
        0.0
    };
    eprintln!(
        "{} {} rows in {} blocks {} {} ({:.2} s, {} rows/s)",
        if args.append { "appended" } else { "ingested" },
        thousands(s.rows),
        s.blocks,
        if args.append { "to" } else { "into" },
        args.table.display(),
        secs,
        thousands(rate as u64),
    );
    let ratio = if s.bytes_out > 0 {
        format!("{:.2}x", s.bytes_in as f64 / s.bytes_out as f64)
    } else {
        "-".into()
    };
    eprintln!(
        "input {}, written {}, ratio {ratio}; the table now has {} rows",
        size(s.bytes_in),
        size(s.bytes_out),
        thousands(s.table_rows)
    );
    if !s.sorted_by.is_empty() {
        eprintln!("rows sorted by {}", s.sorted_by.join(", "));
    }
    if s.bad_rows > 0 {
        eprintln!(
            "skipped {} bad rows (--max-errors {}); the first:",
            s.bad_rows, args.max_errors
        );
        for e in &s.first_bad_rows {
            eprintln!("  {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delimiters() {
        assert_eq!(parse_delimiter("|").unwrap(), b'|');
        assert_eq!(parse_delimiter("tab").unwrap(), b'\t');
        assert!(parse_delimiter("ab").is_err());
    }
}

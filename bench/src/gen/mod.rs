//! Data generators (`strata-bench gen ...`).
//!
//! `gen hits` writes a synthetic ClickBench `hits` table: all 105 columns, with the
//! distributions documented in `shared/research/hits-dataset.md` scaled to the
//! requested row count. Rows are produced in fixed-size chunks ([`hits::CHUNK_ROWS`]),
//! each from its own RNG stream keyed by `(seed, chunk index)`, generated in parallel
//! and written in order: the same seed gives byte-identical files for any
//! `--threads`.
//!
//! `gen 1brc` writes a One Billion Row Challenge file ([`brc`]); `gen taxi` the NYC taxi
//! `trips` CSV of LocustDB's benchmark ([`taxi`]).

pub mod brc;
pub mod hits;
pub mod model;
pub mod rng;
pub mod schema;
pub mod taxi;
pub mod taxi_lookup;
pub mod text;
pub mod writer_parquet;
pub mod writer_text;

#[cfg(test)]
mod tests;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use rayon::prelude::*;

use self::hits::{generate_chunk, CHUNK_ROWS};
use self::model::Model;
use self::schema::HitsBatch;
use self::writer_parquet::{Codec, ParquetSink};
use self::writer_text::TextFormat;

/// Chunks per Parquet row group: 16 × 65,536 = 1,048,576 rows.
pub const CHUNKS_PER_ROW_GROUP: u64 = 16;

/// Arguments of `strata-bench gen hits`.
#[derive(Clone, Debug, clap::Args)]
pub struct HitsArgs {
    /// Number of rows to generate.
    #[arg(long)]
    pub rows: u64,
    /// Output file; the format follows the extension: .parquet, .tsv or .csv.
    #[arg(long)]
    pub out: PathBuf,
    /// Seed; the same seed always gives the same bytes.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: all cores). Does not change the output.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Parquet compression codec.
    #[arg(long, value_enum, default_value_t = Codec::Snappy)]
    pub compression: Codec,
    /// Write raw invalid UTF-8 bytes where the real data has broken characters. By
    /// default they are U+FFFD, as in the published files, which DuckDB and
    /// DataFusion read with `binary_as_string` (DuckDB rejects invalid UTF-8).
    #[arg(long)]
    pub invalid_utf8: bool,
}

/// What to generate (everything but the output).
#[derive(Clone, Copy, Debug)]
pub struct HitsConfig {
    /// Number of rows.
    pub rows: u64,
    /// Seed.
    pub seed: u64,
    /// Parquet codec.
    pub codec: Codec,
    /// See [`HitsArgs::invalid_utf8`].
    pub invalid_utf8: bool,
}

/// The output format, from the file extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Apache Parquet.
    Parquet,
    /// Delimited text.
    Text(TextFormat),
}

impl Format {
    /// The format for `path`'s extension.
    pub fn from_path(path: &Path) -> Result<Self> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        Ok(match ext.as_deref() {
            Some("parquet") => Format::Parquet,
            Some("tsv") => Format::Text(TextFormat::Tsv),
            Some("csv") => Format::Text(TextFormat::Csv),
            _ => bail!(
                "cannot tell the output format of {}: use a .parquet, .tsv or .csv extension",
                path.display()
            ),
        })
    }
}

/// The worker pool for a generator's `--threads` (default: all cores).
pub fn worker_pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        if n == 0 {
            bail!("--threads must be at least 1");
        }
        builder = builder.num_threads(n);
    }
    builder.build().context("starting the worker threads")
}

/// Writes the text of chunks `0..chunks` to `out`: produced by `chunk` in parallel (in the
/// current rayon pool), written in order, with progress every 10% for long runs.
pub fn write_text_chunks(
    out: &Path,
    chunks: u64,
    chunk: impl Fn(u64) -> Vec<u8> + Sync,
) -> Result<()> {
    let file = File::create(out).with_context(|| format!("creating {}", out.display()))?;
    let mut w = BufWriter::with_capacity(1 << 22, file);
    let step = (rayon::current_num_threads() as u64 * 2).max(2);
    let (mut c, mut reported) = (0, 0);
    while c < chunks {
        let n = step.min(chunks - c);
        let texts: Vec<Vec<u8>> = (c..c + n).into_par_iter().map(&chunk).collect();
        for t in &texts {
            w.write_all(t)
                .with_context(|| format!("writing {}", out.display()))?;
        }
        c += n;
        let pct = c * 100 / chunks;
        if pct >= reported + 10 && chunks > 16 {
            reported = pct;
            eprintln!("  {pct}% of {}", out.display());
        }
    }
    w.flush()
        .with_context(|| format!("writing {}", out.display()))
}

/// Generates a text file of `chunks` chunks (see [`write_text_chunks`]) on `threads`
/// workers and reports its size and time; `what` describes the rows.
pub fn generate_text(
    out: &Path,
    threads: Option<usize>,
    what: &str,
    chunks: u64,
    chunk: impl Fn(u64) -> Vec<u8> + Sync + Send,
) -> Result<()> {
    let pool = worker_pool(threads)?;
    let start = Instant::now();
    pool.install(|| write_text_chunks(out, chunks, chunk))?;
    let size = std::fs::metadata(out).map(|m| m.len()).unwrap_or(0);
    eprintln!(
        "wrote {what} to {} ({:.1} MiB) in {:.1} s",
        out.display(),
        size as f64 / 1048576.0,
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Runs `gen hits`.
pub fn run_hits(args: &HitsArgs) -> Result<()> {
    let format = Format::from_path(&args.out)?;
    let pool = worker_pool(args.threads)?;
    let start = Instant::now();
    let config = HitsConfig {
        rows: args.rows,
        seed: args.seed,
        codec: args.compression,
        invalid_utf8: args.invalid_utf8,
    };
    pool.install(|| write_hits(&config, format, &args.out))?;
    let secs = start.elapsed().as_secs_f64();
    let size = std::fs::metadata(&args.out).map(|m| m.len()).unwrap_or(0);
    eprintln!(
        "wrote {} rows to {} ({:.1} MiB) in {:.1} s ({:.0} rows/s)",
        args.rows,
        args.out.display(),
        size as f64 / (1024.0 * 1024.0),
        secs,
        args.rows as f64 / secs.max(1e-9)
    );
    Ok(())
}

/// Generates chunks `first..first+count` of a `rows`-row table in parallel.
pub fn generate_chunks(model: &Model, first: u64, count: u64) -> Vec<HitsBatch> {
    let rows = model.rows;
    (first..first + count)
        .into_par_iter()
        .map(|c| {
            let begin = c * CHUNK_ROWS as u64;
            let n = (rows - begin).min(CHUNK_ROWS as u64) as usize;
            generate_chunk(model, c, n)
        })
        .collect()
}

/// Writes the table described by `config` to `out` (in the current rayon pool).
pub fn write_hits(config: &HitsConfig, format: Format, out: &Path) -> Result<()> {
    let rows = config.rows;
    let mut model = Model::new(rows, config.seed);
    model.invalid_utf8 = config.invalid_utf8;
    let chunks = rows.div_ceil(CHUNK_ROWS as u64);
    match format {
        Format::Parquet => {
            let mut sink = ParquetSink::create(out, config.codec)?;
            let mut c = 0;
            while c < chunks {
                let n = CHUNKS_PER_ROW_GROUP.min(chunks - c);
                let batches = generate_chunks(&model, c, n);
                sink.write_row_group(&batches)?;
                c += n;
            }
            sink.finish()
        }
        Format::Text(tf) => {
            let file = File::create(out).with_context(|| format!("creating {}", out.display()))?;
            let mut w = BufWriter::with_capacity(1 << 22, file);
            let step = (rayon::current_num_threads() as u64 * 2).max(2);
            let mut c = 0;
            while c < chunks {
                let n = step.min(chunks - c);
                let texts: Vec<Vec<u8>> = generate_chunks(&model, c, n)
                    .par_iter()
                    .map(|b| {
                        let mut buf = Vec::with_capacity(b.len() * 900);
                        writer_text::encode(b, tf, &mut buf);
                        buf
                    })
                    .collect();
                for t in &texts {
                    w.write_all(t)
                        .with_context(|| format!("writing {}", out.display()))?;
                }
                c += n;
            }
            w.flush()
                .with_context(|| format!("writing {}", out.display()))?;
            Ok(())
        }
    }
}

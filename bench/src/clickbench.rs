//! `strata-bench clickbench`: the ClickBench suite (see [`crate::suite`] for the runner).
//!
//! The data: `--rows` rows generated with `gen hits` (cached in the workdir), or the user's
//! `--parquet`/`--tsv`; `--json` writes strata's runs in ClickBench's result format.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;
use strata_engine::value::civil_from_days;

use anyhow::{bail, Context, Result};

use crate::suite::json;
use crate::suite::{
    file_stem, DataFormat, Dataset, EngineRun, QueryText, Suite, SuiteArgs, SCORE_SHIFT,
};

/// ClickBench: 43 queries over `hits`.
pub const CLICKBENCH: Suite = Suite {
    title: "ClickBench",
    table: "hits",
    queries_duckdb: QueryText::Lines(include_str!("../queries/queries-duckdb.sql")),
    queries_clickhouse: Some(include_str!("../queries/queries-clickhouse.sql")),
    create_duckdb: include_str!("../queries/create-duckdb.sql"),
    create_clickhouse: Some(include_str!("../queries/create-clickhouse.sql")),
    score_shift: SCORE_SHIFT,
};

/// Arguments of `strata-bench clickbench`.
#[derive(Clone, Debug, clap::Args)]
pub struct ClickbenchArgs {
    /// Generate this many rows with `gen hits` (cached in the workdir). Default 1,000,000
    /// when no data file is given.
    #[arg(long, conflicts_with_all = ["parquet", "tsv"])]
    pub rows: Option<u64>,
    /// Run on this Parquet file (e.g. ClickBench's hits.parquet).
    #[arg(long, conflicts_with = "tsv")]
    pub parquet: Option<PathBuf>,
    /// Run on this TSV file (ClickBench's hits.tsv).
    #[arg(long)]
    pub tsv: Option<PathBuf>,
    /// Write strata's results in ClickBench's result format to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Working directory: generated data, tables, peer databases.
    #[arg(long, default_value = "clickbench-work")]
    pub workdir: PathBuf,
    /// Options of every suite.
    #[command(flatten)]
    pub common: SuiteArgs,
}

/// Runs `strata-bench clickbench`.
pub fn run(args: &ClickbenchArgs) -> Result<()> {
    run_on_hits(&CLICKBENCH, args)
}

/// Runs `suite`'s queries over the `hits` table its arguments say.
pub fn run_on_hits(suite: &Suite, args: &ClickbenchArgs) -> Result<()> {
    std::fs::create_dir_all(&args.workdir)
        .with_context(|| format!("creating the workdir {}", args.workdir.display()))?;
    let data = dataset(suite, args)?;
    let runs = crate::suite::run_suite(suite, &args.common, &data, &args.workdir, false)?;
    let strata = runs
        .iter()
        .find(|r| r.name == crate::suite::EngineName::Strata);
    if let (Some(path), Some(s)) = (&args.json, strata) {
        write_clickbench_json(path, s, args.common.threads.unwrap_or(0))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// Finds or generates the input of `suite` (a suite over `hits`).
pub(crate) fn dataset(suite: &Suite, args: &ClickbenchArgs) -> Result<Dataset> {
    let common = &args.common;
    if let Some(p) = &args.parquet {
        if !p.is_file() {
            bail!("--parquet {}: no such file", p.display());
        }
        return Ok(Dataset::one(
            suite,
            vec![std::fs::canonicalize(p)?],
            DataFormat::Parquet,
            file_stem(p),
        ));
    }
    if let Some(p) = &args.tsv {
        if !p.is_file() {
            bail!("--tsv {}: no such file", p.display());
        }
        return Ok(Dataset::one(
            suite,
            vec![std::fs::canonicalize(p)?],
            DataFormat::Tsv,
            file_stem(p),
        ));
    }
    let rows = args.rows.unwrap_or(1_000_000);
    let stem = format!("hits-{rows}");
    let path = args.workdir.join(format!("{stem}.parquet"));
    if path.is_file() {
        eprintln!("using the cached {}", path.display());
    } else {
        let tmp = args.workdir.join(format!("{stem}.parquet.tmp.parquet"));
        eprintln!("generating {rows} rows into {}", path.display());
        crate::gen::run_hits(&crate::gen::HitsArgs {
            rows,
            out: tmp.clone(),
            seed: 1,
            threads: common.threads,
            compression: crate::gen::writer_parquet::Codec::Snappy,
            invalid_utf8: false,
        })?;
        std::fs::rename(&tmp, &path)?;
    }
    Ok(Dataset::one(
        suite,
        vec![std::fs::canonicalize(&path)?],
        DataFormat::Parquet,
        stem,
    ))
}

fn machine_description(threads: usize) -> String {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mem_kb = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok())
        })
        .unwrap_or(0);
    let t = if threads == 0 { cores } else { threads };
    format!(
        "{cores} cores, {} GiB RAM ({t} threads)",
        mem_kb.div_ceil(1024 * 1024)
    )
}

/// Writes strata's run in ClickBench's result format.
fn write_clickbench_json(path: &Path, run: &EngineRun, threads: usize) -> Result<()> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_secs();
    let (y, m, d) = civil_from_days((now / 86_400) as i64);
    let mut o = String::new();
    let _ = writeln!(o, "{{");
    let _ = writeln!(o, "    \"system\": \"strata\",");
    let _ = writeln!(o, "    \"date\": \"{y:04}-{m:02}-{d:02}\",");
    let _ = writeln!(
        o,
        "    \"machine\": {},",
        json::quote(&machine_description(threads))
    );
    let _ = writeln!(o, "    \"cluster_size\": 1,");
    let _ = writeln!(o, "    \"proprietary\": \"no\",");
    let _ = writeln!(o, "    \"tuned\": \"no\",");
    let _ = writeln!(
        o,
        "    \"tags\": [\"Rust\", \"column-oriented\", \"embedded\", \"stateless\"],"
    );
    let _ = writeln!(o, "    \"load_time\": {:.3},", run.load_time);
    let _ = writeln!(o, "    \"data_size\": {},", run.data_size);
    let _ = writeln!(o, "    \"result\": [");
    let n = run.queries.len();
    for (i, q) in run.queries.iter().enumerate() {
        let cells: Vec<String> = if q.times.is_empty() {
            vec!["null".into(); 3]
        } else {
            q.times
                .iter()
                .map(|t| t.map_or_else(|| "null".into(), |t| format!("{t:.3}")))
                .collect()
        };
        let comma = if i + 1 < n { "," } else { "" };
        let _ = writeln!(o, "        [{}]{comma}", cells.join(", "));
    }
    let _ = writeln!(o, "    ]");
    let _ = writeln!(o, "}}");
    std::fs::write(path, o).with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::lines;

    #[test]
    fn the_shipped_suite_has_43_queries() {
        assert_eq!(CLICKBENCH.queries_duckdb.queries().len(), 43);
        assert_eq!(
            CLICKBENCH.queries_clickhouse.map_or(0, |q| lines(q).len()),
            43
        );
    }

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(15_887), (2013, 7, 1));
    }
}

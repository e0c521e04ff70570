//! `strata-bench taxi`: LocustDB's nine taxi queries (seed 001) plus its pathological
//! `ORDER BY trip_id DESC LIMIT 100`, on the `trips` table, side by side with DuckDB and
//! chDB and checked against DuckDB (see [`crate::suite`]).
//!
//! The data: `--rows` rows generated with `gen taxi` (cached in the workdir), or the
//! user's `--csv` files in Mark Litwintschik's layout.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};

use crate::suite::{file_stem, DataFormat, Dataset, QueryText, Suite, SuiteArgs, SCORE_SHIFT};

/// The taxi suite over `trips`.
pub const TAXI: Suite = Suite {
    title: "taxi",
    table: "trips",
    queries_duckdb: QueryText::Lines(include_str!("../queries/taxi/queries.sql")),
    queries_clickhouse: Some(include_str!("../queries/taxi/queries-clickhouse.sql")),
    create_duckdb: include_str!("../queries/taxi/create.sql"),
    create_clickhouse: Some(include_str!("../queries/taxi/create-clickhouse.sql")),
    score_shift: SCORE_SHIFT,
};

/// Arguments of `strata-bench taxi`.
#[derive(Clone, Debug, clap::Args)]
pub struct TaxiRunArgs {
    /// Generate this many rows with `gen taxi` (cached in the workdir). Default 1,000,000
    /// when no CSV is given.
    #[arg(long, conflicts_with = "csv")]
    pub rows: Option<u64>,
    /// Run on these CSV files (51 columns, no header), comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub csv: Vec<PathBuf>,
    /// Working directory: generated data, tables, peer databases.
    #[arg(long, default_value = "taxi-work")]
    pub workdir: PathBuf,
    /// Options of every suite.
    #[command(flatten)]
    pub common: SuiteArgs,
}

/// Runs `strata-bench taxi`.
pub fn run(args: &TaxiRunArgs) -> Result<()> {
    std::fs::create_dir_all(&args.workdir)
        .with_context(|| format!("creating the workdir {}", args.workdir.display()))?;
    let data = if args.csv.is_empty() {
        let rows = args.rows.unwrap_or(1_000_000);
        let stem = format!("trips-{rows}");
        let path = args.workdir.join(format!("{stem}.csv"));
        if path.is_file() {
            eprintln!("using the cached {}", path.display());
        } else {
            let tmp = args.workdir.join(format!("{stem}.csv.tmp"));
            eprintln!("generating {rows} rows into {}", path.display());
            crate::gen::taxi::run(&crate::gen::taxi::TaxiArgs {
                rows,
                out: tmp.clone(),
                seed: 1,
                threads: args.common.threads,
            })?;
            std::fs::rename(&tmp, &path)?;
        }
        Dataset::one(
            &TAXI,
            vec![std::fs::canonicalize(&path)?],
            DataFormat::Csv,
            stem,
        )
    } else {
        let mut paths = Vec::new();
        for p in &args.csv {
            if !p.is_file() {
                bail!("--csv {}: no such file", p.display());
            }
            paths.push(std::fs::canonicalize(p)?);
        }
        Dataset::one(&TAXI, paths, DataFormat::Csv, file_stem(&args.csv[0]))
    };
    crate::suite::run_suite(&TAXI, &args.common, &data, &args.workdir, false)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::lines;

    #[test]
    fn the_suite_has_ten_queries_and_a_schema_strata_accepts() {
        assert_eq!(TAXI.queries_duckdb.queries().len(), 10);
        assert_eq!(TAXI.queries_clickhouse.map_or(0, |q| lines(q).len()), 10);
        let def = strata_ingest::parse_create_table(TAXI.create_duckdb).unwrap();
        assert_eq!(def.schema.len(), 51);
    }
}

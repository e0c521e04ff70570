//! `strata-bench tpch`: the 22 TPC-H queries on strata and DuckDB (see [`crate::suite`]).
//!
//! The data: `tpchgen-cli parquet -s SF` (the tpchgen crate's command line, `pip install
//! tpchgen-cli`), generated once per scale factor into `<workdir>/sf<SF>/parquet/`. strata
//! ingests each table's Parquet file with `bench/queries/tpch/create.sql`'s schema (the
//! files' own types); DuckDB loads the same files into tables of a database file with the
//! same statements. Answers are checked against DuckDB's (decimals exactly, doubles with a
//! relative tolerance, ties at a LIMIT allowed).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::suite::{DataFormat, Dataset, QueryText, Suite, SuiteArgs, TableFiles};

/// The queries, in order.
const QUERIES: [&str; 22] = [
    include_str!("../queries/tpch/q01.sql"),
    include_str!("../queries/tpch/q02.sql"),
    include_str!("../queries/tpch/q03.sql"),
    include_str!("../queries/tpch/q04.sql"),
    include_str!("../queries/tpch/q05.sql"),
    include_str!("../queries/tpch/q06.sql"),
    include_str!("../queries/tpch/q07.sql"),
    include_str!("../queries/tpch/q08.sql"),
    include_str!("../queries/tpch/q09.sql"),
    include_str!("../queries/tpch/q10.sql"),
    include_str!("../queries/tpch/q11.sql"),
    include_str!("../queries/tpch/q12.sql"),
    include_str!("../queries/tpch/q13.sql"),
    include_str!("../queries/tpch/q14.sql"),
    include_str!("../queries/tpch/q15.sql"),
    include_str!("../queries/tpch/q16.sql"),
    include_str!("../queries/tpch/q17.sql"),
    include_str!("../queries/tpch/q18.sql"),
    include_str!("../queries/tpch/q19.sql"),
    include_str!("../queries/tpch/q20.sql"),
    include_str!("../queries/tpch/q21.sql"),
    include_str!("../queries/tpch/q22.sql"),
];

/// The eight tables.
pub const TABLES: [&str; 8] = [
    "nation", "region", "part", "supplier", "partsupp", "customer", "orders", "lineitem",
];

/// TPC-H: 22 queries over eight tables; plain time ratios.
pub const TPCH: Suite = Suite {
    title: "TPC-H",
    table: "tpch",
    queries_duckdb: QueryText::Files(&QUERIES),
    queries_clickhouse: None,
    create_duckdb: include_str!("../queries/tpch/create.sql"),
    create_clickhouse: None,
    score_shift: 0.0,
};

/// Arguments of `strata-bench tpch`.
#[derive(Clone, Debug, clap::Args)]
pub struct TpchArgs {
    /// Scale factor (1: 6M lineitem rows).
    #[arg(long, default_value_t = 1.0)]
    pub sf: f64,
    /// Print the report as JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Working directory: generated data (kept per scale factor), tables, DuckDB's database.
    #[arg(long, default_value = "tpch-work")]
    pub workdir: PathBuf,
    /// The tpchgen-cli program.
    #[arg(long, default_value = "tpchgen-cli")]
    pub tpchgen: String,
    /// Options of every suite.
    #[command(flatten)]
    pub common: SuiteArgs,
}

/// The scale factor as a directory name: `sf1`, `sf0.1`.
fn sf_dir(sf: f64) -> String {
    format!("sf{sf}")
}

/// Generates the Parquet files for `sf` into `dir` unless all eight are there.
fn generate(tpchgen: &str, sf: f64, dir: &Path) -> Result<()> {
    if TABLES
        .iter()
        .all(|t| dir.join(format!("{t}.parquet")).is_file())
    {
        eprintln!("using the cached {}", dir.display());
        return Ok(());
    }
    let tmp = dir.with_extension("tmp");
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp)?;
    eprintln!(
        "generating TPC-H SF{sf} with {tpchgen} into {}",
        dir.display()
    );
    let status = Command::new(tpchgen)
        .arg("parquet")
        .args(["-s", &sf.to_string()])
        .arg("--output-dir")
        .arg(&tmp)
        .status()
        .with_context(|| {
            format!("running {tpchgen} (install it with: python3 -m pip install tpchgen-cli)")
        })?;
    if !status.success() {
        bail!("{tpchgen} exited with {status}");
    }
    for t in TABLES {
        if !tmp.join(format!("{t}.parquet")).is_file() {
            bail!("{tpchgen} wrote no {t}.parquet");
        }
    }
    let _ = std::fs::remove_dir_all(dir);
    std::fs::rename(&tmp, dir)?;
    Ok(())
}

/// Runs `strata-bench tpch`.
pub fn run(args: &TpchArgs) -> Result<()> {
    if !(args.sf > 0.0 && args.sf.is_finite()) {
        bail!("--sf must be a positive number");
    }
    let base = args.workdir.join(sf_dir(args.sf));
    std::fs::create_dir_all(&base)
        .with_context(|| format!("creating the workdir {}", base.display()))?;
    let parquet = base.join("parquet");
    generate(&args.tpchgen, args.sf, &parquet)?;
    let parquet = std::fs::canonicalize(&parquet)?;
    let data = Dataset {
        tables: TABLES
            .iter()
            .map(|t| TableFiles {
                name: (*t).to_string(),
                paths: vec![parquet.join(format!("{t}.parquet"))],
            })
            .collect(),
        format: DataFormat::ParquetTables,
        stem: "tpch".into(),
    };
    crate::suite::run_suite(&TPCH, &args.common, &data, &base, args.json)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::table_defs;

    #[test]
    fn the_suite_has_22_queries_and_eight_tables_strata_accepts() {
        let queries = TPCH.queries_duckdb.queries();
        assert_eq!(queries.len(), 22);
        assert!(queries.iter().all(|q| !q.ends_with(';') && !q.is_empty()));
        let defs = table_defs(TPCH.create_duckdb).unwrap();
        let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, TABLES);
        let lineitem = &defs[7];
        assert_eq!(lineitem.schema.len(), 16);
        assert_eq!(sf_dir(1.0), "sf1");
        assert_eq!(sf_dir(0.1), "sf0.1");
    }
}

//! `strata-bench aggregates`: the aggregate functions and grouping sets on ClickBench's
//! `hits` (quantiles, mode, entropy, the statistics, bit and bool aggregates, FILTER,
//! DISTINCT, string_agg, arg_max, approx_count_distinct, ROLLUP and CUBE), with the
//! data and options of `strata-bench clickbench` and the runner of [`crate::suite`]. Its
//! approx_count_distinct answers are estimates that differ from DuckDB's by design.

use anyhow::Result;

use crate::clickbench::ClickbenchArgs;
use crate::suite::{QueryText, Suite, SCORE_SHIFT};

/// The aggregate queries over `hits`.
pub const AGGREGATES: Suite = Suite {
    title: "Aggregates on ClickBench's hits",
    table: "hits",
    queries_duckdb: QueryText::Lines(include_str!("../queries/aggregates/queries.sql")),
    queries_clickhouse: None,
    create_duckdb: include_str!("../queries/create-duckdb.sql"),
    create_clickhouse: Some(include_str!("../queries/create-clickhouse.sql")),
    score_shift: SCORE_SHIFT,
};

/// Runs `strata-bench aggregates`.
pub fn run(args: &ClickbenchArgs) -> Result<()> {
    crate::clickbench::run_on_hits(&AGGREGATES, args)
}

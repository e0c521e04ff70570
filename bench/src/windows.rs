//! `strata-bench windows`: window functions over ClickBench's `hits` (row numbers per
//! partition, running and moving aggregates, `lag`, top rows per group with QUALIFY,
//! windows over a grouped query), side by side with DuckDB and checked against it (see
//! [`crate::suite`]). The data as for `strata-bench clickbench`.

use anyhow::Result;

use crate::clickbench::{dataset, ClickbenchArgs};
use crate::suite::{QueryText, Suite, SCORE_SHIFT};

/// Window queries over `hits`.
pub const WINDOWS: Suite = Suite {
    title: "windows",
    table: "hits",
    queries_duckdb: QueryText::Lines(include_str!("../queries/windows/queries.sql")),
    queries_clickhouse: None,
    create_duckdb: include_str!("../queries/create-duckdb.sql"),
    create_clickhouse: None,
    score_shift: SCORE_SHIFT,
};

/// Runs `strata-bench windows`.
pub fn run(args: &ClickbenchArgs) -> Result<()> {
    let data = dataset(&WINDOWS, args)?;
    crate::suite::run_suite(&WINDOWS, &args.common, &data, &args.workdir, false)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suite_has_ten_queries() {
        assert_eq!(WINDOWS.queries_duckdb.queries().len(), 10);
    }
}

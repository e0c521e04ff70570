//! A batch job: opens a table, runs several queries on it in parallel and
//! writes each result as a CSV file.
//!
//! ```text
//! cargo run -p strata --example batch_job -- <TABLE_DIR> [OUT_DIR]
//! ```
//!
//! The queries read the table's first column, so they work on any table.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let Some(table_dir) = args.next().map(PathBuf::from) else {
        eprintln!("usage: batch_job <TABLE_DIR> [OUT_DIR]");
        return ExitCode::from(2);
    };
    let out_dir = args
        .next()
        .map_or_else(|| PathBuf::from("."), PathBuf::from);
    match run(&table_dir, &out_dir) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

fn run(
    table_dir: &std::path::Path,
    out_dir: &std::path::Path,
) -> Result<(), Box<dyn std::error::Error>> {
    // Two worker threads per query; the handle is shared by all threads.
    let table = strata::Table::open_with(table_dir, strata::Options::new().threads(2))?;
    let schema = table.schema();
    let Some((first, _)) = schema.first() else {
        return Err("the table has no columns".into());
    };
    let queries = [
        ("count", "SELECT count(*) AS rows FROM t".to_string()),
        (
            "top_values",
            format!("SELECT \"{first}\" AS value, count(*) AS c FROM t GROUP BY \"{first}\" ORDER BY c DESC, \"{first}\" LIMIT 10"),
        ),
        ("sample", format!("SELECT \"{first}\" AS value FROM t LIMIT 5")),
    ];
    std::fs::create_dir_all(out_dir)?;
    // Run every query on its own thread; collect the first error.
    let results: Vec<Result<String, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = queries
            .iter()
            .map(|(name, sql)| {
                let table = &table;
                s.spawn(move || -> Result<String, String> {
                    let result = table.query(sql).map_err(|e| format!("{name}: {e}"))?;
                    let path = out_dir.join(format!("{name}.csv"));
                    let mut file = std::io::BufWriter::new(
                        std::fs::File::create(&path)
                            .map_err(|e| format!("{}: {e}", path.display()))?,
                    );
                    result
                        .write_csv(&mut file)
                        .and_then(|()| std::io::Write::flush(&mut file))
                        .map_err(|e| format!("{}: {e}", path.display()))?;
                    Ok(format!("{}: {} rows", path.display(), result.num_rows()))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a query thread panicked".into()))
            })
            .collect()
    });
    for r in results {
        println!("{}", r?);
    }
    Ok(())
}

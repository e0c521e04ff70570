//! `strata query` and `strata explain`: run SQL over tables in a database
//! directory and print the results.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use strata_engine::{Database, Engine};

use crate::output::{self, Format};

/// Arguments of `strata query`.
#[derive(Debug, clap::Args)]
pub struct QueryArgs {
    /// Directory in which table names are resolved.
    #[arg(long, default_value = ".")]
    pub db: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Worker threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Report the wall time of each statement on standard error.
    #[arg(long)]
    pub timing: bool,
    /// Write results to this file instead of standard output.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Read `;`-separated statements from this file.
    #[arg(long, short = 'f', conflicts_with = "sql")]
    pub file: Option<PathBuf>,
    /// The SQL to run; read from standard input when absent.
    pub sql: Option<String>,
}

/// Runs every statement; stops at the first error.
pub fn run(args: &QueryArgs) -> Result<()> {
    let text = match (&args.sql, &args.file) {
        (Some(sql), _) => sql.clone(),
        (None, Some(f)) => {
            std::fs::read_to_string(f).with_context(|| format!("reading {}", f.display()))?
        }
        (None, None) => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .context("reading SQL from standard input")?;
            s
        }
    };
    let engine = Engine::new(args.threads)?;
    let db = Database::new(&args.db);
    let mut out: Box<dyn Write> = match &args.output {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    for stmt in split_statements(&text) {
        let start = Instant::now();
        let result = engine.query_in(&db, &stmt)?;
        let elapsed = start.elapsed();
        match output::write(&result, args.format, &mut out).and_then(|()| out.flush()) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
            other => other.context("writing the result")?,
        }
        if args.timing {
            eprintln!(
                "time: {:.3} s, {} rows",
                elapsed.as_secs_f64(),
                result.num_rows()
            );
        }
    }
    Ok(())
}

/// Arguments of `strata explain`.
#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    /// Directory in which table names are resolved.
    #[arg(long, default_value = ".")]
    pub db: PathBuf,
    /// The query to explain.
    pub sql: String,
}

/// Prints the plan and each block's strategy.
pub fn explain(args: &ExplainArgs) -> Result<()> {
    let engine = Engine::new(1)?;
    let db = Database::new(&args.db);
    let result = engine.query_in(&db, &format!("EXPLAIN {}", args.sql))?;
    let mut text = String::new();
    for r in 0..result.num_rows() {
        text.push_str(&result.row_strings(r).join(""));
        text.push('\n');
    }
    output::print_stdout(&text)
}

/// Splits `text` at `;` outside quotes and comments; drops empty statements.
pub fn split_statements(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = text.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match quote {
            Some(q) => {
                cur.push(c);
                if c == q {
                    quote = None;
                }
            }
            None => match c {
                '\'' | '"' => {
                    quote = Some(c);
                    cur.push(c);
                }
                '-' if chars.peek() == Some(&'-') => {
                    for c in chars.by_ref() {
                        if c == '\n' {
                            cur.push('\n');
                            break;
                        }
                    }
                }
                ';' => {
                    if !cur.trim().is_empty() {
                        out.push(cur.trim().to_string());
                    }
                    cur.clear();
                }
                _ => cur.push(c),
            },
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::split_statements;

    #[test]
    fn splits_outside_quotes_and_comments() {
        assert_eq!(
            split_statements("SELECT ';' FROM t; -- a; b\nSELECT 2;;"),
            vec!["SELECT ';' FROM t", "SELECT 2"]
        );
        assert!(split_statements(" ; ").is_empty());
    }
}

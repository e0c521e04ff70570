//! The `strata` command-line tool.
//!
//! Exit codes: 0 success, 1 query or data error, 2 usage error.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod alloc;
mod cmd_cache;
mod cmd_info;
mod cmd_query;
mod cmd_verify;
mod ingest_cmd;
mod progress;
mod repl;
mod sigint;

use strata::output;

/// Exit code of a failed query or damaged data.
const EXIT_ERROR: u8 = 1;
/// Exit code of a usage error (as clap uses).
const EXIT_USAGE: u8 = 2;

/// strata: query columnar tables straight from disk.
///
/// With no arguments: an interactive shell on a terminal, otherwise runs the
/// SQL read from standard input.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Rewrite rules to switch off, comma-separated (`all`: every rule),
    /// for testing and diagnosing plans.
    #[arg(long, global = true, hide = true, value_name = "RULES")]
    disable_rules: Option<String>,
}

#[derive(Subcommand)]
enum Command {
    /// Run SQL over tables and print the results.
    Query(cmd_query::QueryArgs),
    /// Show a query's plan and the strategy chosen for each block.
    Explain(cmd_query::ExplainArgs),
    /// Load CSV, TSV or Parquet files into a table.
    Ingest(ingest_cmd::IngestArgs),
    /// Show a table's schema and a storage breakdown per column and section.
    Info {
        /// The table directory.
        table: PathBuf,
        /// Also show each column's bytes per section.
        #[arg(long)]
        sections: bool,
    },
    /// Check every checksum and structural invariant of a table.
    Verify {
        /// The table directory.
        table: PathBuf,
    },
    /// List or clear the cache of files queried in place.
    Cache(cmd_cache::CacheCmd),
    /// An interactive SQL shell (also `strata` with no arguments on a
    /// terminal).
    Repl(repl::ReplArgs),
}

fn main() -> ExitCode {
    alloc::configure();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version print to stdout and succeed.
            let code = if e.use_stderr() { EXIT_USAGE } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    if let Some(list) = &cli.disable_rules {
        match strata::engine::RuleOptions::disabling(list) {
            Ok(rules) => cmd_query::set_rules(rules),
            Err(e) => {
                eprintln!("error: --disable-rules: {e}");
                return ExitCode::from(EXIT_USAGE);
            }
        }
    }
    let shell = match &cli.command {
        Some(Command::Repl(_)) => true,
        None => std::io::stdin().is_terminal(),
        _ => false,
    };
    if matches!(
        cli.command,
        Some(Command::Query(_)) | Some(Command::Repl(_)) | Some(Command::Ingest(_)) | None
    ) {
        sigint::install(shell);
    }
    let result = match cli.command {
        Some(Command::Query(args)) => cmd_query::run(&args).map(|()| true),
        Some(Command::Explain(args)) => cmd_query::explain(&args).map(|()| true),
        Some(Command::Ingest(args)) => ingest_cmd::run(args).map(|()| true),
        Some(Command::Info { table, sections }) => cmd_info::run(&table, sections).map(|()| true),
        Some(Command::Verify { table }) => cmd_verify::run(&table),
        Some(Command::Cache(args)) => cmd_cache::run(&args).map(|()| true),
        Some(Command::Repl(args)) => repl::run(&args).map(|()| true),
        None if std::io::stdin().is_terminal() => {
            repl::run(&repl::ReplArgs::default()).map(|()| true)
        }
        None => cmd_query::run(&cmd_query::QueryArgs::from_stdin()).map(|()| true),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(EXIT_ERROR),
        Err(e) if e.downcast_ref::<sigint::Interrupted>().is_some() => {
            eprintln!("error: {e:#}");
            ExitCode::from(sigint::EXIT_INTERRUPTED)
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}

//! The `strata` command-line tool.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd_info;
mod cmd_query;
mod cmd_verify;
mod ingest_cmd;
mod output;

#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// strata: query columnar tables straight from disk.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
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
    },
    /// Check every checksum and structural invariant of a table.
    Verify {
        /// The table directory.
        table: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Query(args) => cmd_query::run(&args).map(|()| true),
        Command::Explain(args) => cmd_query::explain(&args).map(|()| true),
        Command::Ingest(args) => ingest_cmd::run(args).map(|()| true),
        Command::Info { table } => cmd_info::run(&table).map(|()| true),
        Command::Verify { table } => cmd_verify::run(&table),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}

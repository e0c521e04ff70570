//! The `strata` command-line tool.

use clap::{Parser, Subcommand};

mod ingest_cmd;

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
    /// Load CSV, TSV or Parquet files into a table.
    Ingest(ingest_cmd::IngestArgs),
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Ingest(args) => ingest_cmd::run(args),
    }
}

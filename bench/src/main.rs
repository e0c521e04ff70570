//! `strata-bench`: data generators and benchmark runners.

use clap::{Parser, Subcommand};

mod brc;
mod clickbench;
mod gen;
mod suite;
mod taxi;

#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// strata benchmarks and data generators.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate benchmark data sets.
    Gen {
        #[command(subcommand)]
        dataset: Dataset,
    },
    /// The ClickBench suite on strata, side by side with DuckDB and ClickHouse (chDB).
    Clickbench(clickbench::ClickbenchArgs),
    /// The One Billion Row Challenge: prints `{station=min/mean/max, ...}` for a file.
    #[command(name = "1brc")]
    Brc(brc::BrcRunArgs),
    /// LocustDB's taxi queries on strata, side by side with DuckDB and ClickHouse (chDB).
    Taxi(taxi::TaxiRunArgs),
}

#[derive(Subcommand)]
enum Dataset {
    /// A synthetic ClickBench `hits` table (105 columns), deterministic per seed.
    Hits(gen::HitsArgs),
    /// A One Billion Row Challenge `measurements.txt` (official model).
    #[command(name = "1brc")]
    Brc(gen::brc::BrcArgs),
    /// The NYC taxi `trips` CSV (51 columns, Litwintschik's layout), deterministic per seed.
    Taxi(gen::taxi::TaxiArgs),
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Gen {
            dataset: Dataset::Hits(args),
        } => gen::run_hits(&args),
        Command::Gen {
            dataset: Dataset::Brc(args),
        } => gen::brc::run(&args),
        Command::Gen {
            dataset: Dataset::Taxi(args),
        } => gen::taxi::run(&args),
        Command::Clickbench(args) => clickbench::run(&args),
        Command::Brc(args) => brc::run(&args),
        Command::Taxi(args) => taxi::run(&args),
    }
}

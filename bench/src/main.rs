//! `strata-bench`: data generators and benchmark runners.

use clap::{Parser, Subcommand};

mod aggregates;
mod brc;
mod clickbench;
mod fuzz;
mod gen;
mod peer_suite;
mod suite;
mod taxi;
mod tpch;
mod windows;

#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's options, read at its start-up. Queries allocate and free
/// block-sized vectors over and over, and returning freed pages to the kernel
/// inline (jemalloc's default) made a fifth of a query run's time page
/// faults and purging. A background thread purges instead: 7 ClickBench
/// queries at 10M rows took 1.3-1.4 s of system time instead of 1.8-2.0 s.
// SAFETY: jemalloc reads this symbol as a NUL-terminated C string; the bytes
// are static, end in NUL and are never written.
#[used]
#[export_name = "_rjem_malloc_conf"]
pub static MALLOC_CONF: &[u8; 23] = b"background_thread:true\0";

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
    /// Aggregate functions and grouping sets on ClickBench's hits, beside DuckDB.
    Aggregates(clickbench::ClickbenchArgs),
    /// The One Billion Row Challenge: prints `{station=min/mean/max, ...}` for a file.
    #[command(name = "1brc")]
    Brc(brc::BrcRunArgs),
    /// LocustDB's taxi queries on strata, side by side with DuckDB and ClickHouse (chDB).
    Taxi(taxi::TaxiRunArgs),
    /// Queries from Apache DataFusion's test files, strata's answers checked against DuckDB's.
    PeerSuite(peer_suite::PeerSuiteArgs),
    /// The 22 TPC-H queries on strata, side by side with DuckDB (tpchgen-cli's data).
    Tpch(tpch::TpchArgs),
    /// Window functions over ClickBench's `hits` on strata, side by side with DuckDB.
    Windows(clickbench::ClickbenchArgs),
    /// Differential SQL fuzzing against DuckDB, with TLP and NoREC oracles; `--replay`
    /// runs saved regression cases.
    FuzzSql(fuzz::FuzzArgs),
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
    // Keeps the options symbol in the link (thin LTO may drop it otherwise).
    std::hint::black_box(&MALLOC_CONF);
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
        Command::Aggregates(args) => aggregates::run(&args),
        Command::Brc(args) => brc::run(&args),
        Command::Taxi(args) => taxi::run(&args),
        Command::PeerSuite(args) => peer_suite::run(&args),
        Command::Tpch(args) => tpch::run(&args),
        Command::Windows(args) => windows::run(&args),
        Command::FuzzSql(args) => fuzz::run_cli(&args),
    }
}

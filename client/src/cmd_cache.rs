//! The cache flags of `strata query`, `explain` and `repl`, and
//! `strata cache list|clear`.

use std::io::Write;
use std::path::PathBuf;
use std::time::SystemTime;

use anyhow::Result;
use strata::{Database, FileCache, Options};

use crate::progress::size;

/// Where input files queried in place are cached.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct CacheArgs {
    /// Directory caching the tables loaded from files queried in place
    /// [default: $XDG_CACHE_HOME/strata or ~/.cache/strata].
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Load files queried in place into a temporary cache, removed on exit.
    #[arg(long, conflicts_with = "cache_dir")]
    pub no_cache: bool,
    /// Size limit of the cache (e.g. 500MiB, 10GiB); the least recently used
    /// entries are removed past it [default: 10GiB].
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub cache_size: Option<u64>,
    /// Memory for data decoded from tables (decompressed sections, row
    /// value indexes), kept for the next queries of this process; the least
    /// recently used goes first past it (e.g. 4GiB; 0 keeps none)
    /// [default: 1GiB].
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub memory_cache: Option<u64>,
}

impl CacheArgs {
    /// `options` with these cache settings.
    pub fn apply(&self, mut options: Options) -> Options {
        if let Some(d) = &self.cache_dir {
            options = options.cache_dir(d);
        }
        if self.no_cache {
            options = options.temporary_cache();
        }
        if let Some(s) = self.cache_size {
            options = options.cache_limit(s);
        }
        if let Some(m) = self.memory_cache {
            options = options.memory_cache(m);
        }
        options
    }
}

/// Opens the database in `dir` for queries: `threads` workers, the cache
/// `cache` asks for, and a progress bar while files load (on a terminal).
pub fn open_db(
    dir: &std::path::Path,
    threads: usize,
    memory_limit: Option<u64>,
    cache: &CacheArgs,
) -> Result<Database> {
    let options = crate::cmd_query::options(threads, memory_limit);
    let db = Database::open_with(dir, cache.apply(options))?;
    Ok(match crate::progress::load_reporter() {
        Some(report) => db.on_load(report),
        None => db,
    })
}

/// A size such as `123`, `500K`, `500MiB`, `10GB` (the same syntax as
/// `--memory-limit`: decimal KB/MB/GB, binary K/KiB/M/MiB/G/GiB).
fn parse_size(s: &str) -> Result<u64> {
    strata::engine::budget::parse_bytes(s).map_err(|e| anyhow::anyhow!(e))
}

/// Arguments of `strata cache`.
#[derive(Debug, clap::Args)]
pub struct CacheCmd {
    #[command(subcommand)]
    action: CacheAction,
    /// The cache directory [default: $XDG_CACHE_HOME/strata or
    /// ~/.cache/strata].
    #[arg(long, value_name = "DIR", global = true)]
    cache_dir: Option<PathBuf>,
}

#[derive(Debug, clap::Subcommand)]
enum CacheAction {
    /// List the cached files: size, last use, read options and source files.
    List,
    /// Remove every entry, or those of one source file.
    Clear {
        /// Remove only the entries reading this file.
        path: Option<PathBuf>,
    },
}

/// Runs `strata cache`.
pub fn run(cmd: &CacheCmd) -> Result<()> {
    let mut options = Options::new();
    if let Some(d) = &cmd.cache_dir {
        options = options.cache_dir(d);
    }
    let cache: FileCache = options.file_cache();
    match &cmd.action {
        CacheAction::List => {
            let entries = cache.entries()?;
            if entries.is_empty() {
                eprintln!("the cache in {} is empty", cache.dir().display());
                return Ok(());
            }
            let mut text = format!(
                "{:>10}  {:>9}  {:<40}  SOURCE\n",
                "SIZE", "LAST USED", "OPTIONS"
            );
            for e in &entries {
                let files: Vec<String> = e
                    .sources
                    .iter()
                    .map(|s| s.path.display().to_string())
                    .collect();
                let used = if e.complete {
                    ago(e.last_used)
                } else {
                    "partial".into()
                };
                let options = match &e.columns {
                    Some(c) => format!("{} ({} columns)", e.options, c.len()),
                    None => e.options.clone(),
                };
                text.push_str(&format!(
                    "{:>10}  {:>9}  {:<40}  {}\n",
                    size(e.bytes),
                    used,
                    options,
                    files.join(", ")
                ));
            }
            let total: u64 = entries.iter().map(|e| e.bytes).sum();
            let _ = std::io::stdout().write_all(text.as_bytes());
            eprintln!(
                "{} entr{}, {} of {} in {}",
                entries.len(),
                if entries.len() == 1 { "y" } else { "ies" },
                size(total),
                size(cache.limit()),
                cache.dir().display()
            );
        }
        CacheAction::Clear { path } => {
            let n = cache.clear(path.as_deref())?;
            eprintln!(
                "removed {n} entr{} from {}",
                if n == 1 { "y" } else { "ies" },
                cache.dir().display()
            );
        }
    }
    Ok(())
}

/// How long ago `t` was: `12s ago`, `5m ago`, `3h ago`, `2d ago`.
fn ago(t: SystemTime) -> String {
    let s = t.elapsed().map_or(0, |d| d.as_secs());
    match s {
        0..60 => format!("{s}s ago"),
        60..3600 => format!("{}m ago", s / 60),
        3600..86400 => format!("{}h ago", s / 3600),
        _ => format!("{}d ago", s / 86400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("123").unwrap(), 123);
        assert_eq!(parse_size("10GiB").unwrap(), 10 << 30);
        assert_eq!(parse_size("1.5k").unwrap(), 1536);
        assert_eq!(parse_size("500 MB").unwrap(), 500_000_000);
        assert!(parse_size("ten").is_err());
        assert!(parse_size("5 parsecs").is_err());
    }
}

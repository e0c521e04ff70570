//! `strata-bench 1brc FILE`: the One Billion Row Challenge through strata.
//!
//! The answer is one SQL query ([`QUERY`]) over the measurements, giving each
//! station's exact min, max, sum (DECIMAL) and count; [`answer`] turns those
//! integers into the challenge's line. The query reads the file in place
//! (`read_csv(..., columns={'station': 'VARCHAR', 'temperature':
//! 'DECIMAL(3,1)'})`); the first query loads it into the file cache.
//!
//! With `--repeat N` the query runs N more times (from the cache); with
//! `--peers` the same file goes through DuckDB (`read_csv` and a native table)
//! and chDB (`file()`), their answers are checked against strata's and the times
//! are printed side by side (on stderr; stdout holds only the answer line).

pub mod answer;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use strata_engine::{QueryResult, Value};

use self::answer::StationStats;
use crate::suite::json;

/// The query; `{source}` is the relation holding `station` and `temperature`.
pub const QUERY: &str = "SELECT station, min(temperature), max(temperature), \
     sum(temperature), count(*) FROM {source} GROUP BY station ORDER BY station";

/// The peer driver (compiled in).
const PEERS_PY: &str = include_str!("../scripts/peers.py");

/// Arguments of `strata-bench 1brc`.
#[derive(Clone, Debug, clap::Args)]
pub struct BrcRunArgs {
    /// The measurements file (`<station>;<temperature>` lines).
    pub file: PathBuf,
    /// Threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Run the query this many more times and report the best (hot) time.
    #[arg(long, default_value_t = 0)]
    pub repeat: u32,
    /// Also run DuckDB and chDB on the file, check their answers, compare times.
    #[arg(long)]
    pub peers: bool,
    /// Python interpreter for the peers.
    #[arg(long, default_value = "python3")]
    pub python: String,
    /// Directory for the temporary table (default: the system's temporary directory).
    #[arg(long)]
    pub workdir: Option<PathBuf>,
}

/// Where the query reads the measurements from: the file in place, through
/// `read_csv` and a strata database whose file cache lives in a private
/// directory (the first query loads the file, later ones reuse the load).
pub struct Source {
    /// Keeps the cache directory alive.
    _dir: tempfile::TempDir,
    db: strata::Database,
    file: PathBuf,
}

impl Source {
    /// A source reading `file` in place on `threads` threads, caching its
    /// load under `workdir` (default: the system's temporary directory).
    pub fn open(file: &Path, workdir: Option<&Path>, threads: usize) -> Result<Source> {
        let dir = match workdir {
            Some(w) => tempfile::tempdir_in(w),
            None => tempfile::tempdir(),
        }
        .context("creating a temporary directory")?;
        let options = strata::Options::new()
            .threads(threads)
            .cache_dir(dir.path());
        let db = strata::Database::open_with(dir.path(), options)?;
        let file =
            std::fs::canonicalize(file).with_context(|| format!("resolving {}", file.display()))?;
        Ok(Source {
            _dir: dir,
            db,
            file,
        })
    }

    /// The relation in the query's FROM: the file through `read_csv`.
    pub fn relation(&self) -> String {
        let path = self.file.to_string_lossy().replace('\'', "''");
        format!(
            "read_csv('{path}', delim=';', header=false, \
             columns={{'station': 'VARCHAR', 'temperature': 'DECIMAL(3,1)'}})"
        )
    }

    /// Runs [`QUERY`] and returns the answer line.
    pub fn answer(&self) -> Result<Vec<u8>> {
        let sql = QUERY.replace("{source}", &self.relation());
        let result = self
            .db
            .query(&sql)
            .map_err(|e| anyhow::anyhow!(e.render(&sql)))?;
        Ok(answer::render(&mut stats_of(result.as_engine())?))
    }
}

fn int(v: &Value) -> Option<i128> {
    match v {
        Value::Int(x) => Some(i128::from(*x)),
        Value::Huge(x) => Some(*x),
        Value::UInt(x) => Some(i128::from(*x)),
        _ => None,
    }
}

/// The per-station aggregates of the query's result (DECIMAL values come as
/// scaled integers, i.e. tenths).
pub fn stats_of(r: &QueryResult) -> Result<Vec<StationStats>> {
    if r.columns.len() != 5 {
        bail!("the 1BRC query returned {} columns", r.columns.len());
    }
    let mut out = Vec::with_capacity(r.num_rows());
    for row in 0..r.num_rows() {
        let Value::Str(name) = r.value(row, 0) else {
            bail!("row {row}: station is not a string");
        };
        let n = |c: usize| -> Result<i128> {
            int(&r.value(row, c)).with_context(|| format!("row {row}: column {c} is not exact"))
        };
        out.push(StationStats {
            name,
            min: i64::try_from(n(1)?)?,
            max: i64::try_from(n(2)?)?,
            sum: n(3)?,
            count: i64::try_from(n(4)?)?,
        });
    }
    Ok(out)
}

/// Runs `strata-bench 1brc`.
pub fn run(args: &BrcRunArgs) -> Result<()> {
    if !args.file.is_file() {
        bail!("{}: no such file", args.file.display());
    }
    let threads = args.threads.unwrap_or(0);
    let t0 = Instant::now();
    let source = Source::open(&args.file, args.workdir.as_deref(), threads)?;
    // The first query loads the file into the cache, then answers.
    let line = source.answer()?;
    let end_to_end = t0.elapsed().as_secs_f64();
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(&line)?;
    stdout.write_all(b"\n")?;
    stdout.flush()?;
    eprintln!("[strata] end to end (first query over the file, loading it) {end_to_end:.3} s");
    let mut hot: Option<f64> = None;
    for _ in 0..args.repeat {
        let t = Instant::now();
        let again = source.answer()?;
        let secs = t.elapsed().as_secs_f64();
        if again != line {
            bail!("a repeated query gave a different answer");
        }
        hot = Some(hot.map_or(secs, |h: f64| h.min(secs)));
    }
    if let Some(h) = hot {
        eprintln!("[strata] repeated query: best of {} {h:.3} s", args.repeat);
    }
    if args.peers {
        run_peers(args, threads, &line)?;
    }
    Ok(())
}

/// Runs peers.py's `brc` command and prints its times, checking each answer.
fn run_peers(args: &BrcRunArgs, threads: usize, ours: &[u8]) -> Result<()> {
    let dir = tempfile::tempdir().context("creating a temporary directory")?;
    let script = dir.path().join("peers.py");
    std::fs::write(&script, PEERS_PY)?;
    let out = dir.path().join("brc.json");
    let status = Command::new(&args.python)
        .arg(&script)
        .arg("brc")
        .arg("--file")
        .arg(std::fs::canonicalize(&args.file)?)
        .args(["--threads", &threads.to_string()])
        .args(["--repeat", &args.repeat.max(1).to_string()])
        .arg("--workdir")
        .arg(dir.path())
        .arg("--out")
        .arg(&out)
        .status()
        .with_context(|| format!("running {}", args.python))?;
    if !status.success() {
        bail!("peers.py brc exited with {status}");
    }
    let doc = json::parse(&std::fs::read_to_string(&out)?)?;
    let ours = String::from_utf8_lossy(ours);
    eprintln!(
        "{:<28} {:>12} {:>12} {:>12}  answer",
        "peer", "first (s)", "hot (s)", "load (s)"
    );
    for p in doc.get("runs").items() {
        let answer = p.get("answer").str().unwrap_or("");
        let verdict = match p.get("error").str() {
            Some(e) => format!("error: {e}"),
            None if answer == ours => "same as strata".into(),
            None => "DIFFERENT from strata <<<<<<".into(),
        };
        let f = |k: &str| p.get(k).num().map_or("-".into(), |v| format!("{v:.3}"));
        eprintln!(
            "{:<28} {:>12} {:>12} {:>12}  {verdict}",
            p.get("name").str().unwrap_or("?"),
            f("first"),
            f("hot"),
            f("load")
        );
    }
    Ok(())
}

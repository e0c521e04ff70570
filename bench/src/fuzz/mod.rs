//! `strata-bench fuzz-sql`: a differential SQL fuzzer. Random tables ([`table`]) are
//! written as strata tables and loaded into DuckDB; random queries ([`gen`]) run on both
//! (strata in-process, DuckDB through one Python process per worker, [`duck`]) and the
//! answers are compared ([`compare`]); oracles that need no second engine ([`oracle`]:
//! TLP, NoREC) run on strata alone. Failures are minimised ([`shrink`]) and written as
//! regression cases ([`case`]) that `--replay` (and `bench/tests/fuzz_regressions.rs`)
//! runs again.

pub mod ast;
pub mod case;
pub mod cell;
pub mod compare;
pub mod duck;
mod failure;
pub mod gen;
pub mod oracle;
pub mod rng;
pub mod shrink;
pub mod strata_side;
pub mod table;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;

use self::ast::{Expr, Query};
use self::cell::{kind_of, Kind};
use self::compare::{compare, keys_agree, Shape, Verdict};
use self::duck::{Duck, DuckAnswer};
use self::gen::{Features, Gen};
use self::oracle::{Oracle, OracleOutcome};
use self::rng::Rng;
use self::shrink::Subject;
use self::strata_side::{StrataAnswer, StrataDb};
use self::table::{Column, TableData, TableLimits};
use strata::format::DataType as Storage;

/// Arguments of `strata-bench fuzz-sql`.
#[derive(Args, Debug, Clone)]
pub struct FuzzArgs {
    /// Seed: the same seed generates the same tables and queries (case by case, whatever
    /// the number of threads).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Stop after this many queries compared with DuckDB (0: no limit).
    #[arg(long, default_value_t = 1000)]
    pub queries: u64,
    /// Stop after this many minutes (0: no limit).
    #[arg(long, default_value_t = 0.0)]
    pub minutes: f64,
    /// Worker threads, each with its own tables and DuckDB process.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Directory for the summary, the failures and their regression cases.
    #[arg(long, default_value = "fuzz-out")]
    pub out: PathBuf,
    /// Constructs to generate besides single-SELECT queries, comma-separated:
    /// subqueries, ctes, set-ops, distinct, joins, windows, or all.
    #[arg(long, default_value = "")]
    pub features: String,
    /// Most rows of a table.
    #[arg(long, default_value_t = 300_000)]
    pub max_rows: usize,
    /// Most columns of a table.
    #[arg(long, default_value_t = 8)]
    pub max_columns: usize,
    /// Run the oracles only (no DuckDB).
    #[arg(long)]
    pub no_duckdb: bool,
    /// Do not minimise failures.
    #[arg(long)]
    pub no_minimise: bool,
    /// Seconds of minimisation per failure at most (0: no limit; then the outcome does
    /// not depend on the machine's speed).
    #[arg(long, default_value_t = 60)]
    pub minimise_seconds: u64,
    /// Candidates the minimiser tries per failure at most.
    #[arg(long, default_value_t = 3000)]
    pub minimise_attempts: usize,
    /// Seconds a query may run on either engine.
    #[arg(long, default_value_t = 30)]
    pub query_timeout: u64,
    /// Run only case number K of the seed (to reproduce a failure).
    #[arg(long)]
    pub case: Option<u64>,
    /// Regression cases (a case directory or a directory of them) whose `expect-fail`
    /// bugs count as known: failures minimising to the same query shape are reported
    /// as known instead of new.
    #[arg(long)]
    pub known: Option<PathBuf>,
    /// Exit with an error when there are panics or failures that are not known.
    #[arg(long)]
    pub strict: bool,
    /// Write every compared query (as it starts) and its outcome to this file.
    #[arg(long)]
    pub log_queries: Option<PathBuf>,
    /// Replay the regression cases at PATH (a case directory or a directory of them)
    /// instead of fuzzing; exits with an error when a case fails unexpectedly, or
    /// passes although it expects to fail.
    #[arg(long)]
    pub replay: Option<PathBuf>,
}

/// What kind of failure.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FailKind {
    /// strata's rows differ from DuckDB's; the result columns' type families that differ
    /// (`DOUBLE/DECIMAL`: strata's DOUBLE where DuckDB has a DECIMAL) if any, else what
    /// the difference is when it is only one of float precision or number notation.
    WrongAnswer(String),
    /// strata failed where DuckDB answered: the error's kind and its message without
    /// the values it quotes (see [`error_shape`]).
    StrataError(String, String),
    /// strata panicked (message).
    Panic(String),
    /// A TLP check failed.
    Tlp,
    /// A NoREC check failed.
    NoRec,
}

impl FailKind {
    fn label(&self) -> String {
        match self {
            FailKind::WrongAnswer(t) if t.is_empty() => "wrong answer".into(),
            FailKind::WrongAnswer(t) if t.contains('/') => format!("wrong answer, types {t}"),
            FailKind::WrongAnswer(t) => format!("wrong answer, {t}"),
            FailKind::StrataError(k, _) => format!("strata {k} error, DuckDB answers"),
            FailKind::Panic(_) => "panic".into(),
            FailKind::Tlp => "TLP check failed".into(),
            FailKind::NoRec => "NoREC check failed".into(),
        }
    }
}

/// An error message without what varies between occurrences of one error: quoted and
/// parenthesised parts and numbers (`Overflow in addition of INT32 (1 + 2)!` becomes
/// `Overflow in addition of INTN !`, `-1.5 is out of range` becomes `N is out of range`).
pub fn error_shape(msg: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    for c in msg.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '(') => depth += 1,
            (None, ')') => depth = depth.saturating_sub(1),
            (None, '\'' | '"') => {
                quote = Some(c);
                if depth == 0 {
                    out.push_str("..");
                }
            }
            (None, _) if depth > 0 => {}
            (None, c) if c.is_ascii_digit() || (matches!(c, '.' | '-') && out.ends_with('N')) => {
                // A number (with its sign and fraction) is one `N`.
                if out.ends_with('-') {
                    out.pop();
                }
                if !out.ends_with('N') {
                    out.push('N');
                }
            }
            (None, c) => out.push(c),
        }
    }
    let words: Vec<&str> = out.split_whitespace().collect();
    let mut s = words.join(" ");
    if s.len() > 100 {
        let cut = (0..=100)
            .rev()
            .find(|&i| s.is_char_boundary(i))
            .unwrap_or(0);
        s.truncate(cut);
    }
    s
}

/// Counts of one run.
#[derive(Debug, Default, Clone)]
pub struct Stats {
    /// Tables generated.
    pub tables: u64,
    /// Rows over all tables.
    pub rows: u64,
    /// Queries run on both engines (DuckDB answered or not).
    pub queries: u64,
    /// Same answer.
    pub matches: u64,
    /// Equally valid answer (ties, LIMIT without ORDER BY).
    pub matches_ties: u64,
    /// DuckDB's answer over the table's rows in another order (its answer
    /// depends on the row order: float sums that overflow, first()).
    pub matches_row_order: u64,
    /// Wrong answers.
    pub mismatches: u64,
    /// strata errors where DuckDB answered.
    pub error_mismatches: u64,
    /// Refusals by reason.
    pub refusals: BTreeMap<String, u64>,
    /// Queries DuckDB rejected (discarded), by error class.
    pub discarded: BTreeMap<String, u64>,
    /// strata's evaluation errors (overflow, bad cast) in queries that DuckDB
    /// answers only because its optimizer proves the failing expression
    /// unneeded (DuckDB fails too with its optimizer off), by error shape.
    pub optimizer_skips: BTreeMap<String, u64>,
    /// Answers that differ from DuckDB's only where DuckDB is known to be
    /// inexact, by what it does.
    pub duckdb_inexact: BTreeMap<String, u64>,
    /// Answers that differ only by float noise (cancellation near 0, last digits, overflow order), by kind.
    pub float_noise: BTreeMap<String, u64>,
    /// Of those, queries strata answered.
    pub discarded_strata_answered: u64,
    /// Panics (differential queries and oracle checks).
    pub panics: u64,
    /// Queries interrupted after the time limit (either engine).
    pub timeouts: u64,
    /// Cases that could not run (reported in the log).
    pub case_errors: u64,
    /// TLP checks run, failed, skipped (a query of the check refused or failed).
    pub tlp: [u64; 3],
    /// NoREC checks run, failed, skipped.
    pub norec: [u64; 3],
}

impl Stats {
    fn merge(&mut self, o: &Stats) {
        self.tables += o.tables;
        self.rows += o.rows;
        self.queries += o.queries;
        self.matches += o.matches;
        self.matches_ties += o.matches_ties;
        self.matches_row_order += o.matches_row_order;
        self.mismatches += o.mismatches;
        self.error_mismatches += o.error_mismatches;
        for (k, v) in &o.refusals {
            *self.refusals.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &o.discarded {
            *self.discarded.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &o.optimizer_skips {
            *self.optimizer_skips.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &o.float_noise {
            *self.float_noise.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &o.duckdb_inexact {
            *self.duckdb_inexact.entry(k.clone()).or_default() += v;
        }
        self.discarded_strata_answered += o.discarded_strata_answered;
        self.panics += o.panics;
        self.timeouts += o.timeouts;
        self.case_errors += o.case_errors;
        for i in 0..3 {
            self.tlp[i] += o.tlp[i];
            self.norec[i] += o.norec[i];
        }
    }
}

/// One distinct bug (failures whose minimised query has the same shape).
#[derive(Debug, Clone)]
pub struct Bug {
    /// Its kind.
    pub kind: FailKind,
    /// Failures of this shape.
    pub count: u64,
    /// Whether a known case has this shape.
    pub known: bool,
    /// The regression case written for it.
    pub case_dir: Option<PathBuf>,
    /// The minimal reproduction, as text.
    pub repro: String,
    /// Shapes of the unminimised failures counted here.
    pub raw_signatures: Vec<String>,
}

/// A failure found while fuzzing, before minimisation.
struct Found {
    kind: FailKind,
    subject: Subject,
    detail: String,
}

/// State shared by the workers.
struct Shared {
    args: FuzzArgs,
    features: Features,
    limits: TableLimits,
    start: Instant,
    deadline: Option<Instant>,
    queries_done: AtomicU64,
    next_case: AtomicU64,
    stop: AtomicBool,
    stats: Mutex<Stats>,
    bugs: Mutex<BTreeMap<String, Bug>>,
    known: Vec<String>,
    minimise_time: Mutex<Duration>,
    work: PathBuf,
    log: Mutex<Vec<String>>,
    /// `--log-queries`: every differential query and its outcome.
    query_log: Option<Mutex<std::io::BufWriter<std::fs::File>>>,
}

impl Shared {
    fn done(&self) -> bool {
        if self.stop.load(Ordering::SeqCst) {
            return true;
        }
        let q = self.args.queries;
        let over = (q > 0 && self.queries_done.load(Ordering::SeqCst) >= q)
            || self.deadline.is_some_and(|d| Instant::now() >= d);
        if over {
            self.stop.store(true, Ordering::SeqCst);
        }
        over
    }

    fn note(&self, line: String) {
        eprintln!("{line}");
        if let Ok(mut l) = self.log.lock() {
            l.push(line);
        }
    }
}

/// The CLI entry point.
pub fn run_cli(args: &FuzzArgs) -> Result<()> {
    if let Some(path) = &args.replay {
        return replay(path, args);
    }
    let (stats, bugs, text) = run(args)?;
    println!("{text}");
    if args.strict {
        let new: Vec<&Bug> = bugs.values().filter(|b| !b.known).collect();
        if !new.is_empty() || stats.panics > 0 {
            bail!(
                "{} failure shapes that no known case has, {} panics (see {})",
                new.len(),
                stats.panics,
                args.out.join("summary.txt").display()
            );
        }
    }
    Ok(())
}

fn replay(path: &Path, args: &FuzzArgs) -> Result<()> {
    let dirs = case::case_dirs(path)?;
    if dirs.is_empty() {
        bail!("no regression cases under {}", path.display());
    }
    let work = tempfile::tempdir()?;
    let timeout = Duration::from_secs(args.query_timeout);
    let (mut pass, mut xfail) = (0, 0);
    let mut bad = Vec::new();
    for d in &dirs {
        let name = d
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().to_string());
        match case::replay_case(d, work.path(), timeout) {
            Ok(case::Replay::Pass) => {
                pass += 1;
                println!("PASS   {name}");
            }
            Ok(case::Replay::ExpectedFail(why)) => {
                xfail += 1;
                println!("XFAIL  {name}: {why}");
            }
            Ok(case::Replay::UnexpectedPass) => {
                println!("XPASS  {name}: passes now; remove its expect-fail line");
                bad.push(name);
            }
            Ok(case::Replay::Fail(why)) => {
                println!("FAIL   {name}: {why}");
                bad.push(name);
            }
            Err(e) => {
                println!("ERROR  {name}: {e:#}");
                bad.push(name);
            }
        }
    }
    println!(
        "{} cases: {pass} pass, {xfail} fail as expected (known bugs), {} unexpected",
        dirs.len(),
        bad.len()
    );
    if !bad.is_empty() {
        bail!("unexpected results: {}", bad.join(", "));
    }
    Ok(())
}

/// Fuzzes as `args` say; returns the counts, the distinct bugs and the summary text
/// (also written to `<out>/summary.txt`).
pub fn run(args: &FuzzArgs) -> Result<(Stats, BTreeMap<String, Bug>, String)> {
    let features = Features::parse(&args.features)?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let use_duck = !args.no_duckdb;
    if use_duck {
        if let Some(why) = duck::unavailable() {
            bail!("Python's duckdb is not available ({why}); pass --no-duckdb to run the oracles alone");
        }
    }
    let work = args.out.join("work");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work)?;
    let known = match &args.known {
        Some(p) => failure::known_signatures(p)?,
        None => Vec::new(),
    };
    let start = Instant::now();
    let shared = Shared {
        args: args.clone(),
        features,
        limits: TableLimits {
            max_rows: args.max_rows,
            max_columns: args.max_columns.max(1),
            raw_bytes: true,
        },
        start,
        deadline: (args.minutes > 0.0)
            .then(|| start + Duration::from_secs_f64(args.minutes * 60.0)),
        queries_done: AtomicU64::new(0),
        next_case: AtomicU64::new(args.case.unwrap_or(0)),
        stop: AtomicBool::new(false),
        stats: Mutex::new(Stats::default()),
        bugs: Mutex::new(BTreeMap::new()),
        known,
        minimise_time: Mutex::new(Duration::ZERO),
        work: work.clone(),
        log: Mutex::new(Vec::new()),
        query_log: match &args.log_queries {
            Some(p) => Some(Mutex::new(std::io::BufWriter::new(
                std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?,
            ))),
            None => None,
        },
    };
    if args.queries == 0 && shared.deadline.is_none() && args.case.is_none() {
        bail!("give --queries or --minutes (or both)");
    }
    let mut version = String::from("none");
    let errors: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let live = AtomicU64::new(args.threads.max(1) as u64);
    std::thread::scope(|s| {
        for w in 0..args.threads.max(1) {
            let shared = &shared;
            let errors = &errors;
            let live = &live;
            s.spawn(move || {
                if let Err(e) = worker(shared, w, use_duck) {
                    shared.stop.store(true, Ordering::SeqCst);
                    if let Ok(mut v) = errors.lock() {
                        v.push(format!("worker {w}: {e:#}"));
                    }
                }
                // The last worker to finish stops the progress reports.
                if live.fetch_sub(1, Ordering::SeqCst) == 1 {
                    shared.stop.store(true, Ordering::SeqCst);
                }
            });
        }
        // Progress every 30 seconds.
        let shared = &shared;
        s.spawn(move || {
            let mut last = Instant::now();
            while !shared.stop.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(200));
                if last.elapsed() >= Duration::from_secs(30) {
                    last = Instant::now();
                    if let Ok(st) = shared.stats.lock() {
                        eprintln!(
                            "[fuzz-sql] {:.0} s: {} tables, {} queries, {} matches, {} mismatches, {} refusals, {} panics, TLP {}, NoREC {}",
                            shared.start.elapsed().as_secs_f64(),
                            st.tables,
                            st.queries,
                            st.matches + st.matches_ties,
                            st.mismatches + st.error_mismatches,
                            st.refusals.values().sum::<u64>(),
                            st.panics,
                            st.tlp[0],
                            st.norec[0]
                        );
                    }
                }
            }
        });
    });
    if let Some(e) = errors.lock().ok().and_then(|v| v.first().cloned()) {
        bail!("{e}");
    }
    if use_duck {
        if let Ok(mut d) = Duck::start(1, Duration::from_secs(30)) {
            version = d.version().unwrap_or_default();
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    let stats = shared.stats.lock().map(|s| s.clone()).unwrap_or_default();
    let bugs = shared.bugs.lock().map(|b| b.clone()).unwrap_or_default();
    let log = shared.log.lock().map(|l| l.clone()).unwrap_or_default();
    let text = summary(args, &stats, &bugs, &version, start.elapsed(), &log);
    std::fs::write(args.out.join("summary.txt"), &text)?;
    Ok((stats, bugs, text))
}

fn summary(
    args: &FuzzArgs,
    st: &Stats,
    bugs: &BTreeMap<String, Bug>,
    version: &str,
    elapsed: Duration,
    log: &[String],
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "strata-bench fuzz-sql --seed {} --queries {} --minutes {} --threads {} --max-rows {}{}",
        args.seed,
        args.queries,
        args.minutes,
        args.threads,
        args.max_rows,
        if args.features.is_empty() {
            String::new()
        } else {
            format!(" --features {}", args.features)
        }
    );
    let _ = writeln!(s, "DuckDB {version}; {:.1} s", elapsed.as_secs_f64());
    let _ = writeln!(s, "tables: {} ({} rows)", st.tables, st.rows);
    let _ = writeln!(s, "queries: {}", st.queries);
    let _ = writeln!(
        s,
        "  matches: {} ({} exact, {} equally valid: ties or LIMIT without ORDER BY, {} DuckDB's \
         answer over the rows in another order)",
        st.matches + st.matches_ties + st.matches_row_order,
        st.matches,
        st.matches_ties,
        st.matches_row_order
    );
    let _ = writeln!(
        s,
        "  mismatches: {} ({} wrong answers, {} strata errors where DuckDB answers)",
        st.mismatches + st.error_mismatches,
        st.mismatches,
        st.error_mismatches
    );
    let _ = writeln!(s, "  refusals: {}", st.refusals.values().sum::<u64>());
    let mut refusals: Vec<(&String, &u64)> = st.refusals.iter().collect();
    refusals.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (r, n) in refusals.iter().take(30) {
        let _ = writeln!(s, "    {n:>7}  {r}");
    }
    if refusals.len() > 30 {
        let rest: u64 = refusals[30..].iter().map(|(_, n)| **n).sum();
        let _ = writeln!(s, "    {rest:>7}  ({} other reasons)", refusals.len() - 30);
    }
    let _ = writeln!(
        s,
        "  discarded (DuckDB rejects): {} ({} of them answered by strata)",
        st.discarded.values().sum::<u64>(),
        st.discarded_strata_answered
    );
    for (r, n) in &st.discarded {
        let _ = writeln!(s, "    {n:>7}  {r}");
    }
    let _ = writeln!(
        s,
        "  strata evaluation errors DuckDB's optimizer skips (DuckDB fails too without it): {}",
        st.optimizer_skips.values().sum::<u64>()
    );
    for (r, n) in &st.optimizer_skips {
        let _ = writeln!(s, "    {n:>7}  {r}");
    }
    let _ = writeln!(
        s,
        "  answers differing only where DuckDB is inexact: {}",
        st.duckdb_inexact.values().sum::<u64>()
    );
    for (r, n) in &st.duckdb_inexact {
        let _ = writeln!(s, "    {n:>7}  {r}");
    }
    let _ = writeln!(
        s,
        "  answers differing only by float noise: {}",
        st.float_noise.values().sum::<u64>()
    );
    for (r, n) in &st.float_noise {
        let _ = writeln!(s, "    {n:>7}  {r}");
    }
    let _ = writeln!(s, "  panics: {}", st.panics);
    let _ = writeln!(s, "  timeouts: {}", st.timeouts);
    let _ = writeln!(s, "cases that could not run: {}", st.case_errors);
    let _ = writeln!(
        s,
        "TLP checks: {} ({} failed, {} skipped)",
        st.tlp[0], st.tlp[1], st.tlp[2]
    );
    let _ = writeln!(
        s,
        "NoREC checks: {} ({} failed, {} skipped)",
        st.norec[0], st.norec[1], st.norec[2]
    );
    let _ = writeln!(
        s,
        "distinct bugs: {} ({} known)",
        bugs.len(),
        bugs.values().filter(|b| b.known).count()
    );
    for (i, b) in bugs.values().enumerate() {
        let _ = writeln!(
            s,
            "\n#{} {}{}: {} failure(s){}",
            i + 1,
            b.kind.label(),
            if b.known { " (known)" } else { "" },
            b.count,
            b.case_dir
                .as_ref()
                .map_or(String::new(), |d| format!(", case {}", d.display()))
        );
        for line in b.repro.lines() {
            let _ = writeln!(s, "    {line}");
        }
    }
    if !log.is_empty() {
        let _ = writeln!(s, "\nlog:");
        for l in log {
            let _ = writeln!(s, "  {l}");
        }
    }
    s
}

/// The per-table number of queries: more on small tables, which are cheap.
fn queries_per_table(rows: usize) -> usize {
    match rows {
        0..=999 => 60,
        1000..=19_999 => 40,
        _ => 25,
    }
}

fn worker(shared: &Shared, w: usize, use_duck: bool) -> Result<()> {
    let timeout = Duration::from_secs(shared.args.query_timeout);
    let start_duck = || -> Result<Option<Duck>> {
        Ok(if use_duck {
            Some(Duck::start(1, timeout).context("starting the DuckDB bridge")?)
        } else {
            None
        })
    };
    let mut duck = start_duck()?;
    while !shared.done() {
        let k = shared.next_case.fetch_add(1, Ordering::SeqCst);
        if shared.args.case.is_some_and(|c| c != k) {
            break;
        }
        let dir = shared.work.join(format!("w{w}-case{k}"));
        // A case that cannot run (a table DuckDB will not load, say) is reported and
        // skipped; the run goes on with a fresh DuckDB process.
        let result = run_case(shared, k, &dir, duck.as_mut()).and_then(|(threads, found)| {
            for (table, f) in found {
                failure::handle(shared, k, threads, table, f, duck.as_mut(), &dir)?;
            }
            Ok(())
        });
        if let Err(e) = result {
            shared.note(format!("[fuzz-sql] case {k} could not run: {e:#}"));
            if let Ok(mut st) = shared.stats.lock() {
                st.case_errors += 1;
            }
            duck = start_duck()?;
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(())
}

/// Writes `table` as strata table `<dir>/t`, and into DuckDB.
fn materialise(table: &TableData, dir: &Path, duck: Option<&mut Duck>) -> Result<()> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir)?;
    table.write_strata(&dir.join("t"))?;
    if let (Some(d), false) = (duck, table.duckdb_columns().is_empty()) {
        let csv = dir.join("t.csv");
        table.write_duckdb_csv(&csv)?;
        d.load(&csv, &table.duckdb_columns(), table.rows())?;
    }
    Ok(())
}

/// The outcome of one differential query.
#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    Match,
    MatchTies,
    /// DuckDB gives strata's answer over the table's rows in reverse order.
    MatchRowOrder,
    Fail(FailKind, String),
    Refused(String),
    Discarded(String, bool),
    /// An evaluation error of strata where DuckDB answers, but fails too
    /// with its optimizer off: which expressions run is up to the engine.
    OptimizerSkip(String),
    /// An answer that differs from DuckDB's only where DuckDB is known to be
    /// inexact (named).
    DuckDbInexact(&'static str),
    /// An answer whose floats differ from DuckDB's only where both are
    /// cancellation noise around an exact 0 (named).
    FloatNoise(&'static str),
    Timeout,
}

impl Outcome {
    /// A short word for the query log.
    fn label(&self) -> String {
        match self {
            Outcome::Match => "match".into(),
            Outcome::MatchTies => "match-ties".into(),
            Outcome::MatchRowOrder => "match-row-order".into(),
            Outcome::Fail(k, _) => format!("FAIL {}", k.label()),
            Outcome::Refused(r) => format!("refused: {r}"),
            Outcome::Discarded(c, _) => format!("discarded: {c}"),
            Outcome::OptimizerSkip(m) => format!("optimizer skip: {m}"),
            Outcome::DuckDbInexact(m) => format!("DuckDB inexact: {m}"),
            Outcome::FloatNoise(m) => format!("float noise: {m}"),
            Outcome::Timeout => "timeout".into(),
        }
    }
}

/// `sql` over table `t` with one more row, all NULL (`columns` wide): a CTE
/// named `t` shadows the table.
fn with_null_row(sql: &str, columns: usize) -> String {
    let nulls = vec!["NULL"; columns.max(1)].join(", ");
    with_table_as(
        sql,
        &format!("SELECT * FROM main.t UNION ALL SELECT {nulls}"),
    )
}

/// `sql` over table `t` with its rows in the order `order_by` gives.
fn with_rows_ordered(sql: &str, order_by: &str) -> String {
    with_table_as(sql, &format!("SELECT * FROM main.t ORDER BY {order_by}"))
}

/// `sql` with table `t` replaced by `select` (over `main.t`): a CTE named
/// `t` shadows the table.
fn with_table_as(sql: &str, select: &str) -> String {
    let cte = format!("t AS ({select})");
    match sql.strip_prefix("WITH ") {
        Some(rest) => format!("WITH {cte}, {rest}"),
        None => format!("WITH {cte} {sql}"),
    }
}

/// `sql` over table `t`'s values in wider types, where DuckDB computes
/// quantiles exactly: DECIMAL columns as DECIMAL(38, s), 64-bit integers as
/// HUGEINT (`None`: no column widens). DuckDB's table lacks the columns
/// that are not UTF-8.
fn with_columns_widened(sql: &str, table: &[Column]) -> Option<String> {
    let mut widened = false;
    let select: Vec<String> = table
        .iter()
        .filter(|c| !c.raw_bytes)
        .map(|c| match c.ty {
            Storage::Decimal { scale, .. } => {
                widened = true;
                format!("CAST({0} AS DECIMAL(38, {scale})) AS {0}", c.name)
            }
            Storage::Int64 | Storage::UInt64 => {
                widened = true;
                format!("CAST({0} AS HUGEINT) AS {0}", c.name)
            }
            _ => c.name.clone(),
        })
        .collect();
    widened.then(|| with_table_as(sql, &format!("SELECT {} FROM main.t", select.join(", "))))
}

/// The row orders under which DuckDB's answer is rechecked when it differs
/// from strata's: the rows reversed, and for each float column, its infinite
/// values first (so a float sum meets the infinity before its finite part
/// can overflow, the order-free answer strata gives).
fn recheck_orders(table: &[Column]) -> Vec<String> {
    let mut orders = vec!["rowid DESC".to_string()];
    for c in table {
        if kind_of(c.ty) == Kind::Float {
            orders.push(format!("isinf({}) DESC NULLS LAST, rowid", c.name));
        }
    }
    orders
}

/// Runs `q` on both engines and judges strata's answer.
fn differential(db: &StrataDb, duck: &mut Duck, q: &Query, table: &[Column]) -> Result<Outcome> {
    let star: Vec<String> = table.iter().map(|c| c.name.clone()).collect();
    let star = &star[..];
    let sql = q.sql();
    let s = db.query(&sql);
    let panic = |m: &str| Outcome::Fail(FailKind::Panic(m.to_string()), format!("panic: {m}"));
    if let StrataAnswer::Panic(m) = &s {
        return Ok(panic(m));
    }
    let (types, rows) = match duck.query(&sql)? {
        DuckAnswer::Timeout => return Ok(Outcome::Timeout),
        DuckAnswer::Error { class, message } => {
            let answered = matches!(s, StrataAnswer::Rows { .. });
            let kind = message
                .split(':')
                .next()
                .unwrap_or(&class)
                .trim()
                .to_string();
            return Ok(Outcome::Discarded(kind, answered));
        }
        DuckAnswer::Rows { types, rows, .. } => (types, rows),
    };
    let (strata_types, strata_rows) = match s {
        StrataAnswer::Rows { types, rows, .. } => (types, rows),
        StrataAnswer::Refused(r) => return Ok(Outcome::Refused(r)),
        StrataAnswer::Timeout => return Ok(Outcome::Timeout),
        StrataAnswer::Error(kind, msg) => {
            let shape = error_shape(&msg);
            // DuckDB numbers ORDER BY positions past the select list, over
            // the ORDER BY expressions it appends (`SELECT a ... ORDER BY 2,
            // b` sorts by b); strata refuses a position past the list.
            if kind == "invalid"
                && msg.contains("ORDER BY position")
                && msg.contains("is not in the select list")
            {
                return Ok(Outcome::Discarded(
                    "ORDER BY position past the select list (DuckDB counts the ORDER BY's own columns)"
                        .into(),
                    false,
                ));
            }
            // A clean refusal past the memory limit (say a window frame of
            // every row, computed for each row before a LIMIT keeps a few, as
            // DuckDB stops early): a limit, counted as a refusal.
            if kind == "too large" {
                return Ok(Outcome::Refused("past the memory limit".into()));
            }
            if kind == "runtime" && duck.fails_unoptimized(&sql)? == Some(true) {
                return Ok(Outcome::OptimizerSkip(shape));
            }
            // DuckDB stops evaluating once a LIMIT has its rows; strata
            // evaluated a row past it. Which rows a LIMIT without a full
            // ORDER BY evaluates is the engine's choice: DuckDB must fail
            // too when it has to produce every row.
            if kind == "runtime"
                && (q.limit.is_some() || q.offset.is_some())
                && matches!(
                    duck.query(&q.sql_without_limit())?,
                    DuckAnswer::Error { .. }
                )
            {
                return Ok(Outcome::OptimizerSkip(format!(
                    "error in a row a LIMIT leaves out: {shape}"
                )));
            }
            // DuckDB raises some type errors (a cast it has no function for)
            // only when a row is evaluated, so over an empty table or a
            // filter no row passes it answers. strata rejects them when
            // binding; the same query over one more row must fail in DuckDB.
            if kind == "invalid"
                && duck.fails_unoptimized(&with_null_row(&sql, star.len()))? == Some(true)
            {
                return Ok(Outcome::OptimizerSkip(format!(
                    "type error DuckDB raises only on evaluation: {shape}"
                )));
            }
            // The same where a filter leaves no row to evaluate, even the
            // NULL one (`WHERE c3`): DuckDB's empty answer never met the
            // cast it has no function for.
            if kind == "invalid" && rows.is_empty() && is_type_error(&msg) {
                return Ok(Outcome::OptimizerSkip(format!(
                    "type error DuckDB raises only on evaluation, no row evaluated: {shape}"
                )));
            }
            return Ok(Outcome::Fail(
                FailKind::StrataError(kind.to_string(), shape),
                msg,
            ));
        }
        StrataAnswer::Panic(m) => return Ok(panic(&m)),
    };
    let shape = Shape::of(q, star);
    let full = if shape.limited() {
        match duck.query(&q.sql_without_limit())? {
            DuckAnswer::Rows { rows, .. } => Some(rows),
            _ => None,
        }
    } else {
        None
    };
    // Whether strata's answer passes under a more lenient comparison.
    let passes = |l: cell::Leniency| {
        cell::with_leniency(l, || {
            !matches!(
                compare(&shape, &strata_rows, &rows, full.as_deref()),
                Verdict::Mismatch(_)
            )
        })
    };
    Ok(
        match compare(&shape, &strata_rows, &rows, full.as_deref()) {
            Verdict::Match => Outcome::Match,
            Verdict::MatchTies => Outcome::MatchTies,
            // DuckDB's parallel window operator can answer the same query
            // differently from run to run (seen with EXCLUDE TIES frames);
            // strata's answer is then checked against DuckDB's other runs.
            Verdict::Mismatch(_) if rerun_matches(duck, q, &shape, &strata_rows)? => {
                Outcome::DuckDbInexact("DuckDB's answer changes between runs of the query")
            }
            // The same on one DuckDB thread, where its parallel operators
            // cannot interleave.
            Verdict::Mismatch(_)
                if answers_match(duck, &shape, &strata_rows, DuckRun::OneThread, q, |s| s)? =>
            {
                Outcome::DuckDbInexact("DuckDB's answer changes on one thread")
            }
            // A frame bound `0 PRECEDING` / `0 FOLLOWING` is CURRENT ROW in
            // every frame mode; DuckDB's RANGE frames with a 0 offset can leave
            // out some of a large peer group (seen: 555 of 866 peers summed
            // without the other 311, the same on every run and thread count).
            Verdict::Mismatch(_)
                if has_zero_offset(&sql)
                    && answers_match(duck, &shape, &strata_rows, DuckRun::Plain, q, |s| {
                        zero_offsets_as_current_row(&s)
                    })? =>
            {
                Outcome::DuckDbInexact("DuckDB's frame with a 0 offset is not its CURRENT ROW")
            }
            // DuckDB rounds a RANGE frame's bound over a DECIMAL key held as
            // a 128-bit integer (a sum's DECIMAL(38, s)), one way for ASC and
            // another for DESC (seen: `ORDER BY sum(x) DESC RANGE BETWEEN
            // UNBOUNDED PRECEDING AND 1.5 PRECEDING` over -1 and -2 put -1 in
            // the frame of -2, where the bound is -0.5); strata's bound is
            // exact, as is DuckDB's over the key as DOUBLE.
            Verdict::Mismatch(_)
                if (sql.contains(".5 PRECEDING") || sql.contains(".5 FOLLOWING"))
                    && answers_match(duck, &shape, &strata_rows, DuckRun::Plain, q, |s| {
                        range_keys_as_double(&s)
                    })? =>
            {
                Outcome::DuckDbInexact("DuckDB's RANGE bound over a 128-bit DECIMAL key")
            }
            // DuckDB's optimizer can change an answer (seen with
            // `DATE >= datetrunc('hour', date_column)`, false for equal
            // values unless the optimizer is off): strata's is then checked
            // against DuckDB's unoptimized one.
            Verdict::Mismatch(_) if unoptimized_matches(duck, q, &shape, &strata_rows)? => {
                Outcome::DuckDbInexact("DuckDB's answer changes with its optimizer off")
            }
            // An answer that depends on the order of the rows (a float sum
            // overflowing to one infinity before it meets the other) is as
            // valid over the rows in another order.
            Verdict::Mismatch(_) if reordered_matches(duck, q, table, &shape, &strata_rows)? => {
                Outcome::MatchRowOrder
            }
            // DuckDB interpolates a DECIMAL quantile through DOUBLE (its answer
            // can even lie outside the DECIMAL's range); strata's is exact.
            Verdict::Mismatch(_)
                if interpolates_quantile(&sql) && passes(cell::Leniency::DECIMAL_AS_DOUBLE) =>
            {
                Outcome::DuckDbInexact("DECIMAL quantile interpolated through DOUBLE")
            }
            // The same where an outer expression turns DuckDB's rounding into
            // another value (ceil of a quantile DuckDB rounds to -1 that is
            // exactly -0.999999999999999999): both engines must agree on the
            // query with each quantile's argument cast to DOUBLE.
            Verdict::Mismatch(_)
                if interpolates_quantile(&sql)
                    && agrees_through_double(db, duck, q, &shape, &sql)? =>
            {
                Outcome::DuckDbInexact("DECIMAL quantile interpolated through DOUBLE, then rounded")
            }
            // The same where the inexact quantile decides which rows are kept
            // (in HAVING, QUALIFY or ORDER BY ... LIMIT), and for a 64-bit
            // integer's `median(DISTINCT ...)`, which DuckDB overflows: its
            // answer over the same values in wider columns, where its values
            // are exact (its interpolation between two of them still rounds
            // in the last digits).
            Verdict::Mismatch(_)
                if interpolates_quantile(&sql)
                    && with_columns_widened("", table).is_some()
                    && cell::with_leniency(cell::Leniency::DECIMAL_AS_DOUBLE, || {
                        answers_match(duck, &shape, &strata_rows, DuckRun::Plain, q, |s| {
                            with_columns_widened(&s, table).unwrap_or(s)
                        })
                    })? =>
            {
                Outcome::DuckDbInexact("quantile of a narrow type: exact over wider columns")
            }
            // A sum of finite doubles that overflows to one infinity before it
            // meets the other in an input is NaN in DuckDB, whatever the rows'
            // order where it adds partial sums (grouping sets); the sum's value
            // is the input's infinity, strata's answer.
            Verdict::Mismatch(_)
                if sums_can_overflow(table) && passes(cell::Leniency::OVERFLOW_NAN) =>
            {
                Outcome::FloatNoise("float sum overflowing before it meets an infinity")
            }
            // A zero written in text with the other sign: equal in SQL, and
            // strata's grouping keeps one canonical zero.
            Verdict::Mismatch(_) if passes(cell::Leniency::ZERO_SIGN) => {
                Outcome::FloatNoise("a zero's sign in text")
            }
            // A FLOAT written in text in another form that reads back as the
            // same FLOAT (strata writes the shortest, `-2525853.8`; DuckDB
            // sometimes more digits, `-2525853.75`).
            Verdict::Mismatch(_)
                if uses_float32(&sql, table) && passes(cell::Leniency::FLOAT32_TEXT) =>
            {
                Outcome::FloatNoise("FLOAT written in text in another round-trip form")
            }
            // Moment-based aggregates (variances, regressions, skewness) of
            // data whose exact answer is 0 give cancellation noise whose
            // digits depend on the order of the arithmetic.
            Verdict::Mismatch(_)
                if uses_moment_aggregate(&sql)
                    && passes(cell::Leniency::near_zero(largest_number(table))) =>
            {
                Outcome::FloatNoise("moment-based aggregate near 0")
            }
            // A remainder of one: its rounding left without the magnitude it
            // was relative to.
            Verdict::Mismatch(_)
                if uses_moment_aggregate(&sql)
                    && sql.contains(" % ")
                    && passes(cell::Leniency::absolute(largest_number(table))) =>
            {
                Outcome::FloatNoise("remainder of a moment-based aggregate")
            }
            // Their last digits, written in text (the order values are added
            // in decides them, and either engine's may come out shorter).
            Verdict::Mismatch(_)
                if uses_moment_aggregate(&sql) && passes(cell::Leniency::FLOAT_DIGITS_EITHER) =>
            {
                Outcome::FloatNoise("moment-based aggregate's last digits in text")
            }
            // DuckDB fails without LIMIT (an overflow in a row the LIMIT
            // drops), so which tied rows may be kept cannot be checked.
            Verdict::Mismatch(_)
                if shape.limited() && full.is_none() && keys_agree(&shape, &strata_rows, &rows) =>
            {
                Outcome::Discarded("ties unverifiable: DuckDB fails without LIMIT".into(), true)
            }
            // The same without ORDER BY: any rows of the full answer are
            // right, and DuckDB cannot give the full answer.
            Verdict::Mismatch(_)
                if shape.limited()
                    && !shape.ordered
                    && full.is_none()
                    && strata_rows.len() == rows.len() =>
            {
                Outcome::Discarded("rows unverifiable: DuckDB fails without LIMIT".into(), true)
            }
            // The generator counts few distinct values, which strata's
            // sketch counts exactly and DuckDB's may not.
            Verdict::Mismatch(_) if exact_count_matches(duck, q, &shape, &strata_rows)? => {
                Outcome::DuckDbInexact("approx_count_distinct estimate")
            }
            Verdict::Mismatch(why) => {
                let strata_names: Vec<String> =
                    strata_types.iter().map(|t| t.to_string()).collect();
                let mut pattern = type_families(&strata_names, &types);
                if pattern.is_empty() {
                    // What the difference is, when it is only one of precision or notation.
                    if passes(cell::Leniency::SINGLE) {
                        pattern = "floats agree to single precision only".into();
                    } else if passes(cell::Leniency::NUMBER_TEXT) {
                        pattern = "numbers written differently in strings".into();
                    }
                }
                Outcome::Fail(
                    FailKind::WrongAnswer(pattern),
                    format!(
                        "{why} (strata types: {}; DuckDB types: {})",
                        strata_names.join(", "),
                        types.join(", ")
                    ),
                )
            }
        },
    )
}

/// How often a mismatching query is run again on DuckDB before its answer
/// is taken as DuckDB's only one.
const DUCK_RERUNS: usize = 3;

/// Whether one of [`DUCK_RERUNS`] more runs of `q` on DuckDB gives strata's
/// answer, which then differs from DuckDB's first one.
fn rerun_matches(
    duck: &mut Duck,
    q: &Query,
    shape: &Shape,
    strata: &[Vec<cell::Cell>],
) -> Result<bool> {
    for _ in 0..DUCK_RERUNS {
        if answers_match(duck, shape, strata, DuckRun::Plain, q, |sql| sql)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The largest magnitude of a finite number in `table`.
fn largest_number(table: &[Column]) -> f64 {
    table
        .iter()
        .flat_map(|c| &c.values)
        .filter_map(cell::Cell::number)
        .filter(|x| x.is_finite())
        .fold(0.0, |m, x| m.max(x.abs()))
}

/// Whether `sql` calls an aggregate computed from sums of powers or
/// products (variances, covariances, regressions, skewness, kurtosis).
fn uses_moment_aggregate(sql: &str) -> bool {
    let sql = sql.to_ascii_lowercase();
    [
        "var_",
        "variance(",
        "stddev",
        "covar_",
        "corr(",
        "regr_",
        "skewness(",
        "kurtosis",
    ]
    .iter()
    .any(|f| sql.contains(f))
}

/// Whether a float column of `table` holds an infinity and finite values
/// whose sum overflows.
fn sums_can_overflow(table: &[Column]) -> bool {
    table
        .iter()
        .filter(|c| kind_of(c.ty) == Kind::Float)
        .any(|c| {
            let xs = || c.values.iter().filter_map(cell::Cell::number);
            let finite: f64 = xs().filter(|x| x.is_finite()).map(f64::abs).sum();
            finite.is_infinite() && xs().any(f64::is_infinite)
        })
}

/// Whether `sql` has a window frame bound with offset 0.
fn has_zero_offset(sql: &str) -> bool {
    sql.contains(" 0 PRECEDING") || sql.contains(" 0 FOLLOWING")
}

/// `sql` with its frame bounds of offset 0 written as CURRENT ROW (the same
/// bound in ROWS, RANGE and GROUPS frames).
fn zero_offsets_as_current_row(sql: &str) -> String {
    sql.replace(" 0 PRECEDING", " CURRENT ROW")
        .replace(" 0 FOLLOWING", " CURRENT ROW")
}

/// `sql` with the ORDER BY key of each RANGE frame (one key, as RANGE
/// offsets need) cast to DOUBLE: `OVER (ORDER BY k DESC RANGE BETWEEN ...)`
/// becomes `OVER (ORDER BY CAST(k AS DOUBLE) DESC RANGE BETWEEN ...)`.
fn range_keys_as_double(sql: &str) -> String {
    const RANGE: &str = " RANGE BETWEEN ";
    const ORDER: &str = "ORDER BY ";
    let mut out = String::with_capacity(sql.len() + 32);
    let mut done = 0;
    let mut from = 0;
    while let Some(r) = sql[from..].find(RANGE).map(|i| from + i) {
        from = r + RANGE.len();
        let Some(o) = sql[done..r].rfind(ORDER).map(|i| done + i + ORDER.len()) else {
            continue;
        };
        let mut key = &sql[o..r];
        let mut tail = "";
        for suffix in [" NULLS FIRST", " NULLS LAST"] {
            if let Some(k) = key.strip_suffix(suffix) {
                (key, tail) = (k, &sql[o + k.len()..r]);
            }
        }
        for dir in [" ASC", " DESC"] {
            if let Some(k) = key.strip_suffix(dir) {
                (key, tail) = (k, &sql[o + k.len()..r]);
            }
        }
        out.push_str(&sql[done..o]);
        out.push_str(&format!("CAST({key} AS DOUBLE){tail}"));
        done = r;
    }
    out.push_str(&sql[done..]);
    out
}

/// Whether `sql` casts to FLOAT or `table` has a FLOAT column.
fn uses_float32(sql: &str, table: &[Column]) -> bool {
    let sql = sql.to_ascii_uppercase();
    sql.contains("AS FLOAT)")
        || sql.contains("::FLOAT")
        || table.iter().any(|c| c.ty == Storage::Float32)
}

/// Whether `sql` interpolates a quantile (`median`, `quantile_cont`).
fn interpolates_quantile(sql: &str) -> bool {
    let sql = sql.to_ascii_lowercase();
    sql.contains("median(") || sql.contains("quantile_cont(") || sql.contains("quantile(")
}

/// Whether strata and DuckDB give the same answer to `sql` with each
/// interpolated quantile's argument cast to DOUBLE (see
/// [`quantiles_through_double`]).
fn agrees_through_double(
    db: &StrataDb,
    duck: &mut Duck,
    q: &Query,
    shape: &Shape,
    sql: &str,
) -> Result<bool> {
    let Some(through_double) = quantiles_through_double(sql) else {
        return Ok(false);
    };
    let StrataAnswer::Rows { rows, .. } = db.query(&through_double) else {
        return Ok(false);
    };
    let full = quantiles_through_double(&q.sql_without_limit());
    answers_match(duck, shape, &rows, DuckRun::Plain, q, |s| {
        if s == sql {
            through_double.clone()
        } else {
            full.clone().unwrap_or(s)
        }
    })
}

/// `sql` with the first argument of each `median(`, `quantile_cont(` and
/// `quantile(` call cast to DOUBLE (after a leading DISTINCT), or `None`
/// when it has no such call.
fn quantiles_through_double(sql: &str) -> Option<String> {
    let mut out = sql.to_string();
    let mut from = 0;
    let mut changed = false;
    loop {
        let lower = out.to_ascii_lowercase();
        let Some(open) = ["median(", "quantile_cont(", "quantile("]
            .iter()
            .filter_map(|f| {
                let mut at = from;
                loop {
                    at = outside_strings(&lower, f, at)?;
                    // Not the tail of a longer name (`approx_quantile(`).
                    let before = lower.as_bytes()[..at].last();
                    if !before.is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') {
                        return Some(at + f.len() - 1);
                    }
                    at += 1;
                }
            })
            .min()
        else {
            return changed.then_some(out);
        };
        let mut start = open + 1;
        let rest = &lower[start..];
        let trimmed = rest.trim_start();
        if trimmed.starts_with("distinct ") {
            start += rest.len() - trimmed.len() + "distinct ".len();
        }
        let end = argument_end(&out, start)?;
        out = format!(
            "{}CAST({} AS DOUBLE){}",
            &out[..start],
            &out[start..end],
            &out[end..]
        );
        from = start + "CAST(".len();
        changed = true;
    }
}

/// The first position at or after `from` where `pat` starts outside a
/// single-quoted string.
fn outside_strings(s: &str, pat: &str, from: usize) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut quoted = false;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\'' {
            quoted = !quoted;
        } else if !quoted && i >= from && bytes[i..].starts_with(pat.as_bytes()) {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Where the function argument starting at `start` ends: the first `,` or
/// `)` outside parentheses and strings.
fn argument_end(s: &str, start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut quoted = false;
    for (i, b) in s.bytes().enumerate().skip(start) {
        match b {
            b'\'' => quoted = !quoted,
            _ if quoted => {}
            b'(' => depth += 1,
            b')' if depth == 0 => return Some(i),
            b')' => depth -= 1,
            b',' if depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

/// Whether strata's error says two types have no cast or comparison.
fn is_type_error(msg: &str) -> bool {
    [
        "cannot cast ",
        "cannot compare or combine ",
        "cannot combine ",
    ]
    .iter()
    .any(|p| msg.contains(p))
}

/// Whether DuckDB, run over table `t`'s rows in one of [`recheck_orders`],
/// gives strata's answer.
fn reordered_matches(
    duck: &mut Duck,
    q: &Query,
    table: &[Column],
    shape: &Shape,
    strata: &[Vec<cell::Cell>],
) -> Result<bool> {
    for order in recheck_orders(table) {
        if answers_match(duck, shape, strata, DuckRun::Plain, q, |sql| {
            with_rows_ordered(&sql, &order)
        })? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Whether DuckDB, with every `approx_count_distinct` of `q` an exact
/// `count(DISTINCT ...)`, gives strata's answer.
fn exact_count_matches(
    duck: &mut Duck,
    q: &Query,
    shape: &Shape,
    strata: &[Vec<cell::Cell>],
) -> Result<bool> {
    const APPROX: &str = "approx_count_distinct(";
    Ok(q.sql().contains(APPROX)
        && answers_match(duck, shape, strata, DuckRun::Plain, q, |sql| {
            sql.replace(APPROX, "count(DISTINCT ")
        })?)
}

/// Whether DuckDB with its optimizer off gives strata's answer to `q`.
fn unoptimized_matches(
    duck: &mut Duck,
    q: &Query,
    shape: &Shape,
    strata: &[Vec<cell::Cell>],
) -> Result<bool> {
    answers_match(duck, shape, strata, DuckRun::Unoptimized, q, |sql| sql)
}

/// How a recheck runs a query on DuckDB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DuckRun {
    /// As the first run.
    Plain,
    /// With its optimizer off.
    Unoptimized,
    /// On one thread.
    OneThread,
}

/// Whether DuckDB's answer to `q` rewritten by `rewrite`, run as `how` says,
/// is strata's, where a LIMIT's ties are judged by the answer without the
/// LIMIT (rewritten too).
fn answers_match(
    duck: &mut Duck,
    shape: &Shape,
    strata: &[Vec<cell::Cell>],
    how: DuckRun,
    q: &Query,
    rewrite: impl Fn(String) -> String,
) -> Result<bool> {
    let mut run = |sql: &str| match how {
        DuckRun::Plain => duck.query(sql),
        DuckRun::Unoptimized => duck.query_unoptimized(sql),
        DuckRun::OneThread => duck.query_one_thread(sql),
    };
    let DuckAnswer::Rows { rows, .. } = run(&rewrite(q.sql()))? else {
        return Ok(false);
    };
    let full = if shape.limited() {
        match run(&rewrite(q.sql_without_limit()))? {
            DuckAnswer::Rows { rows, .. } => Some(rows),
            _ => None,
        }
    } else {
        None
    };
    Ok(!matches!(
        compare(shape, strata, &rows, full.as_deref()),
        Verdict::Mismatch(_)
    ))
}

/// The family of a type name: integers of any width, decimals of any precision.
fn type_family(name: &str) -> &str {
    let n = name.trim();
    if n.starts_with("DECIMAL") {
        return "DECIMAL";
    }
    match n {
        "TINYINT" | "SMALLINT" | "INTEGER" | "BIGINT" | "HUGEINT" | "UTINYINT" | "USMALLINT"
        | "UINTEGER" | "UBIGINT" | "UHUGEINT" => "INTEGER",
        other => other,
    }
}

/// The columns whose type families differ, as `strata/DuckDB` pairs (`DOUBLE/DECIMAL`),
/// each pair once.
fn type_families(strata: &[String], duck: &[String]) -> String {
    let mut pairs: Vec<String> = Vec::new();
    for (s, d) in strata.iter().zip(duck) {
        let (a, b) = (type_family(s), type_family(d));
        let pair = format!("{a}/{b}");
        if a != b && !pairs.contains(&pair) {
            pairs.push(pair);
        }
    }
    pairs.join(" ")
}

/// Runs case `k`: a table and its queries; returns strata's thread count and the
/// failures found.
fn run_case(
    shared: &Shared,
    k: u64,
    dir: &Path,
    mut duck: Option<&mut Duck>,
) -> Result<(usize, Vec<(TableData, Found)>)> {
    let mut rng = Rng::new(shared.args.seed, k);
    let table = table::generate(&mut rng, &shared.limits);
    materialise(&table, dir, duck.as_deref_mut())?;
    let threads = *rng.pick(&[1usize, 2, 3, 4]);
    let db = StrataDb::open(dir, threads, Duration::from_secs(shared.args.query_timeout))?;
    let mut st = Stats {
        tables: 1,
        rows: table.rows() as u64,
        ..Stats::default()
    };
    let mut found = Vec::new();
    let has_raw = table.columns.iter().any(|c| c.raw_bytes);
    for j in 0..queries_per_table(table.rows()) {
        if shared.done() {
            break;
        }
        if let Some(d) = duck.as_deref_mut() {
            let mut g = Gen::new(&mut rng, shared.features, "t", &table, false);
            if !g.has_columns() {
                break;
            }
            let mut q = g.query();
            if has_raw && q.has_star() {
                q = g.query();
            }
            if has_raw && q.has_star() {
                continue;
            }
            shared.queries_done.fetch_add(1, Ordering::SeqCst);
            st.queries += 1;
            if let Some(log) = &shared.query_log {
                // Written before the query runs, so a query that brings the
                // process down (out of memory) is in the log.
                if let Ok(mut f) = log.lock() {
                    let _ = writeln!(f, "case {k}\tstart\t{}", q.sql());
                    let _ = f.flush();
                }
            }
            let outcome = differential(&db, d, &q, &table.columns)?;
            if let Some(log) = &shared.query_log {
                if let Ok(mut f) = log.lock() {
                    let _ = writeln!(f, "case {k}\t{}\t{}", outcome.label(), q.sql());
                }
            }
            match outcome {
                Outcome::Match => st.matches += 1,
                Outcome::MatchTies => st.matches_ties += 1,
                Outcome::MatchRowOrder => st.matches_row_order += 1,
                Outcome::Refused(r) => *st.refusals.entry(r).or_default() += 1,
                Outcome::Discarded(class, answered) => {
                    *st.discarded.entry(class).or_default() += 1;
                    st.discarded_strata_answered += u64::from(answered);
                }
                Outcome::OptimizerSkip(m) => *st.optimizer_skips.entry(m).or_default() += 1,
                Outcome::DuckDbInexact(m) => {
                    *st.duckdb_inexact.entry(m.to_string()).or_default() += 1
                }
                Outcome::FloatNoise(m) => *st.float_noise.entry(m.to_string()).or_default() += 1,
                Outcome::Timeout => st.timeouts += 1,
                Outcome::Fail(kind, detail) => {
                    match &kind {
                        FailKind::Panic(_) => st.panics += 1,
                        FailKind::WrongAnswer(_) => st.mismatches += 1,
                        _ => st.error_mismatches += 1,
                    }
                    found.push((
                        table.clone(),
                        Found {
                            kind,
                            subject: Subject::Query(q),
                            detail,
                        },
                    ));
                }
            }
        } else {
            shared.queries_done.fetch_add(1, Ordering::SeqCst);
        }
        if j % 2 == 0 {
            let oracle = random_oracle(&mut rng, shared.features, &table, j);
            let family = oracle.family();
            let counts = if family == "tlp" {
                &mut st.tlp
            } else {
                &mut st.norec
            };
            counts[0] += 1;
            match oracle.check(&db) {
                OracleOutcome::Pass => {}
                OracleOutcome::Skip(_) => counts[2] += 1,
                OracleOutcome::Fail(detail) => {
                    counts[1] += 1;
                    let kind = if family == "tlp" {
                        FailKind::Tlp
                    } else {
                        FailKind::NoRec
                    };
                    found.push((
                        table.clone(),
                        Found {
                            kind,
                            subject: Subject::Oracle(oracle),
                            detail,
                        },
                    ));
                }
                OracleOutcome::Panic(m) => {
                    st.panics += 1;
                    found.push((
                        table.clone(),
                        Found {
                            kind: FailKind::Panic(m.clone()),
                            subject: Subject::Oracle(oracle),
                            detail: format!("panic: {m}"),
                        },
                    ));
                }
            }
        }
    }
    if let Ok(mut s) = shared.stats.lock() {
        s.merge(&st);
    }
    Ok((threads, found))
}

/// A TLP or NoREC check over `table` (whose non-UTF-8 columns it may read).
fn random_oracle(rng: &mut Rng, features: Features, table: &TableData, j: usize) -> Oracle {
    let mut g = Gen::new(rng, features, "t", table, true);
    let p = g.predicate();
    match j % 6 {
        0 | 4 => Oracle::NoRec { p },
        2 => {
            let n = 1 + (j / 6) % 3;
            let items: Vec<Expr> = (0..n).map(|_| g.column()).collect();
            let filter = (j % 12 == 2).then(|| g.predicate());
            Oracle::TlpRows { items, filter, p }
        }
        _ => {
            let key = (!j.is_multiple_of(12)).then(|| g.column());
            let x = g.column();
            let num = g.row_expr(Kind::Int, 1);
            let aggs = vec![
                Expr::Agg("count", false, None),
                Expr::Agg("count", false, Some(x.clone().boxed())),
                Expr::Agg("sum", false, Some(num.boxed())),
                Expr::Agg("min", false, Some(x.clone().boxed())),
                Expr::Agg("max", false, Some(x.boxed())),
            ];
            Oracle::TlpAgg {
                key,
                aggs,
                filter: None,
                p,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn range_keys_are_cast_to_double() {
        let sql = "SELECT avg(x) OVER (ORDER BY sum(floor(c4)) DESC NULLS LAST RANGE BETWEEN \
                   UNBOUNDED PRECEDING AND 1.5 PRECEDING) AS w0, sum(y) OVER (PARTITION BY c \
                   ORDER BY (a + b) RANGE BETWEEN 0.5 PRECEDING AND CURRENT ROW) FROM t";
        assert_eq!(
            super::range_keys_as_double(sql),
            "SELECT avg(x) OVER (ORDER BY CAST(sum(floor(c4)) AS DOUBLE) DESC NULLS LAST RANGE \
             BETWEEN UNBOUNDED PRECEDING AND 1.5 PRECEDING) AS w0, sum(y) OVER (PARTITION BY c \
             ORDER BY CAST((a + b) AS DOUBLE) RANGE BETWEEN 0.5 PRECEDING AND CURRENT ROW) FROM t"
        );
    }

    #[test]
    fn quantile_arguments_cast_to_double() {
        use super::quantiles_through_double as q;
        assert_eq!(
            q("SELECT ceil(quantile_cont(CAST('-0.9' AS DECIMAL(18,18)), -0.3)) FROM t").as_deref(),
            Some("SELECT ceil(quantile_cont(CAST(CAST('-0.9' AS DECIMAL(18,18)) AS DOUBLE), -0.3)) FROM t")
        );
        assert_eq!(
            q("SELECT MEDIAN(DISTINCT c0 + median(c1)), 'median(' FROM t").as_deref(),
            Some("SELECT MEDIAN(DISTINCT CAST(c0 + median(CAST(c1 AS DOUBLE)) AS DOUBLE)), 'median(' FROM t")
        );
        assert_eq!(
            q("SELECT approx_quantile(c0, 0.5), 'quantile(c0)' FROM t"),
            None
        );
        assert_eq!(
            q("SELECT approx_quantile(c0, 0.5), quantile(c1, 0.5) FROM t").as_deref(),
            Some("SELECT approx_quantile(c0, 0.5), quantile(CAST(c1 AS DOUBLE), 0.5) FROM t")
        );
    }

    use super::*;

    #[test]
    fn null_row_shadows_the_table() {
        assert_eq!(
            with_null_row("SELECT c0 FROM t", 2),
            "WITH t AS (SELECT * FROM main.t UNION ALL SELECT NULL, NULL) SELECT c0 FROM t"
        );
        assert_eq!(
            with_null_row("WITH q AS (SELECT c0 FROM t) SELECT * FROM q", 1),
            "WITH t AS (SELECT * FROM main.t UNION ALL SELECT NULL), q AS (SELECT c0 FROM t) \
             SELECT * FROM q"
        );
    }

    #[test]
    fn error_shapes_drop_values() {
        assert_eq!(
            error_shape("Overflow in addition of INT32 (2147483646 + 4)!"),
            "Overflow in addition of INTN !"
        );
        assert_eq!(
            error_shape("Conversion Error: -8.5 is out of range for UTINYINT"),
            "Conversion Error: N is out of range for UTINYINT"
        );
        assert_eq!(
            error_shape("cannot apply arithmetic to VARCHAR (operand '')"),
            "cannot apply arithmetic to VARCHAR"
        );
    }

    #[test]
    fn wrong_answers_group_by_type_family() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            type_families(&s(&["DOUBLE", "BIGINT"]), &s(&["DECIMAL(4,2)", "HUGEINT"])),
            "DOUBLE/DECIMAL"
        );
        assert_eq!(
            type_families(&s(&["DECIMAL(38,2)"]), &s(&["DECIMAL(18,2)"])),
            ""
        );
    }
}

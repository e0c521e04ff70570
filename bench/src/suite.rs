//! A benchmark suite on strata, side by side with DuckDB and ClickHouse (chDB), with every
//! answer checked against DuckDB's: the machinery behind `strata-bench clickbench` and
//! `strata-bench taxi`.
//!
//! Steps: ingest the data set into a strata table with the suite's schema, run the queries
//! `--runs` times, run the peers through `scripts/peers.py` (one Python process per engine, so
//! each peak RSS is its own), check strata's answers against DuckDB's (see [`check`]), and
//! print a table of hot times and ratios.
//!
//! The suite's query and schema files and `peers.py` are compiled in and written to the
//! workdir, so the binary works outside the repository.

pub mod check;
pub(crate) mod json;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use self::check::{QueryShape, Rows, Verdict};
use self::json::Json;

/// The peer driver.
const PEERS_PY: &str = include_str!("../scripts/peers.py");

/// ClickBench adds this to every time before taking ratios.
const SCORE_SHIFT: f64 = 0.01;

/// A benchmark suite: one table, its schemas and its queries.
#[derive(Clone, Copy, Debug)]
pub struct Suite {
    /// Name in the report ("ClickBench", "taxi").
    pub title: &'static str,
    /// The table the queries read.
    pub table: &'static str,
    /// The queries in DuckDB's (and strata's) dialect, one per line.
    pub queries_duckdb: &'static str,
    /// The same queries in ClickHouse's dialect.
    pub queries_clickhouse: &'static str,
    /// DuckDB's CREATE TABLE (also strata's schema).
    pub create_duckdb: &'static str,
    /// ClickHouse's CREATE TABLE.
    pub create_clickhouse: &'static str,
}

/// An engine to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineName {
    /// strata itself.
    Strata,
    /// DuckDB through its Python package.
    Duckdb,
    /// ClickHouse through chDB.
    Clickhouse,
}

impl EngineName {
    fn label(self) -> &'static str {
        match self {
            EngineName::Strata => "strata",
            EngineName::Duckdb => "duckdb",
            EngineName::Clickhouse => "clickhouse",
        }
    }
}

/// The options every suite takes.
#[derive(Clone, Debug, clap::Args)]
pub struct SuiteArgs {
    /// Runs per query (ClickBench: 3; the hot time is the best of runs 2..R).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// Engines to run, comma-separated.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "strata,duckdb,clickhouse"
    )]
    pub engines: Vec<EngineName>,
    /// Threads per engine (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Python interpreter for the peers.
    #[arg(long, default_value = "python3")]
    pub python: String,
    /// Run only these queries (1-based, comma-separated); default all.
    #[arg(long, value_delimiter = ',')]
    pub queries: Vec<usize>,
    /// Sort strata's table by the sort key of the suite's ClickHouse table
    /// (its ORDER BY or PRIMARY KEY), as the ClickHouse peer's MergeTree
    /// stores it; by default strata keeps the input order, as DuckDB does.
    #[arg(long)]
    pub strata_sort: bool,
}

/// The format of a data set's files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataFormat {
    /// Apache Parquet (ClickBench's hits.parquet conventions).
    Parquet,
    /// Tab-separated, no header, `\N` for NULL.
    Tsv,
    /// Comma-separated, no header, empty field for NULL.
    Csv,
}

impl DataFormat {
    fn flag(self) -> &'static str {
        match self {
            DataFormat::Parquet => "--parquet",
            DataFormat::Tsv => "--tsv",
            DataFormat::Csv => "--csv",
        }
    }
}

/// The input data set.
pub struct Dataset {
    /// The files (one table).
    pub paths: Vec<PathBuf>,
    /// Their format.
    pub format: DataFormat,
    /// A name for the workdir's subdirectories.
    pub stem: String,
}

/// One engine's runs of one query.
#[derive(Debug, Clone, Default)]
pub struct QueryRun {
    /// Seconds per run; `None` for a failed run.
    pub times: Vec<Option<f64>>,
    /// Column names.
    pub columns: Vec<String>,
    /// The answer, printed.
    pub rows: Rows,
    /// The error, if a run failed.
    pub error: Option<String>,
}

impl QueryRun {
    /// Best of runs 2..R (of all runs when there is only one).
    pub fn hot(&self) -> Option<f64> {
        if self.error.is_some() {
            return None;
        }
        let tail = if self.times.len() > 1 {
            &self.times[1..]
        } else {
            &self.times[..]
        };
        tail.iter().flatten().copied().reduce(f64::min)
    }
}

/// One engine's whole run.
#[derive(Debug, Clone)]
pub struct EngineRun {
    /// The engine.
    pub name: EngineName,
    /// Its version.
    pub version: String,
    /// Seconds to load the data.
    pub load_time: f64,
    /// Bytes on disk.
    pub data_size: u64,
    /// Peak resident memory.
    pub peak_rss: u64,
    /// Per query.
    pub queries: Vec<QueryRun>,
}

/// Runs `suite` on `data` in `workdir`; returns every engine's runs (strata's first, when
/// it ran).
pub fn run_suite(
    suite: &Suite,
    args: &SuiteArgs,
    data: &Dataset,
    workdir: &Path,
) -> Result<Vec<EngineRun>> {
    std::fs::create_dir_all(workdir)
        .with_context(|| format!("creating the workdir {}", workdir.display()))?;
    let files = workdir.join("files");
    std::fs::create_dir_all(&files)?;
    for (name, text) in [
        ("queries-duckdb.sql", suite.queries_duckdb),
        ("queries-clickhouse.sql", suite.queries_clickhouse),
        ("create-duckdb.sql", suite.create_duckdb),
        ("create-clickhouse.sql", suite.create_clickhouse),
        ("peers.py", PEERS_PY),
    ] {
        std::fs::write(files.join(name), text)
            .with_context(|| format!("writing {}", files.join(name).display()))?;
    }
    let all_queries = lines(suite.queries_duckdb);
    let selected: Vec<usize> = if args.queries.is_empty() {
        (0..all_queries.len()).collect()
    } else {
        let mut v = Vec::new();
        for &q in &args.queries {
            if q == 0 || q > all_queries.len() {
                bail!("--queries: no query {q} (1..{})", all_queries.len());
            }
            v.push(q - 1);
        }
        v
    };
    let threads = args.threads.unwrap_or(0);
    let ctx = Ctx {
        suite,
        args,
        workdir,
        threads,
    };

    let mut engines: Vec<EngineName> = Vec::new();
    for &e in &args.engines {
        if !engines.contains(&e) {
            engines.push(e);
        }
    }
    let peers_wanted: Vec<EngineName> = engines
        .iter()
        .copied()
        .filter(|&e| e != EngineName::Strata)
        .collect();
    let peers = available_peers(&args.python, &peers_wanted);
    if data.format != DataFormat::Parquet && !peers.is_empty() {
        eprintln!("note: peers load the text files with their own readers");
    }

    let mut runs: Vec<EngineRun> = Vec::new();
    if engines.contains(&EngineName::Strata) {
        runs.push(run_strata(&ctx, data, &all_queries, &selected)?);
    }
    for &peer in &peers {
        match run_peer(&ctx, data, &files, peer) {
            Ok(r) => runs.push(r),
            Err(e) => eprintln!("!! {} failed: {e:#}", peer.label()),
        }
    }
    let strata = runs.iter().find(|r| r.name == EngineName::Strata);
    let duck = runs.iter().find(|r| r.name == EngineName::Duckdb);
    let verdicts = match (strata, duck) {
        (Some(s), Some(d)) => check_all(&ctx, &files, &all_queries, &selected, s, d)?,
        _ => vec![None; all_queries.len()],
    };
    let report = render(suite.title, &all_queries, &selected, &runs, &verdicts);
    println!("{report}");
    Ok(runs)
}

/// What the steps of one suite run share.
struct Ctx<'a> {
    suite: &'a Suite,
    args: &'a SuiteArgs,
    workdir: &'a Path,
    threads: usize,
}

pub(crate) fn lines(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

/// The peers among `wanted` whose Python packages import; says what is missing.
fn available_peers(python: &str, wanted: &[EngineName]) -> Vec<EngineName> {
    let mut ok = Vec::new();
    for &e in wanted {
        let module = match e {
            EngineName::Duckdb => "duckdb",
            EngineName::Clickhouse => "chdb",
            EngineName::Strata => continue,
        };
        let imported = Command::new(python)
            .args(["-c", &format!("import {module}")])
            .output()
            .is_ok_and(|o| o.status.success());
        if imported {
            ok.push(e);
        } else {
            eprintln!(
                "!! {} skipped: the Python package `{module}` does not import with `{python}`. \
                 Install the peers with: {python} -m pip install duckdb chdb",
                e.label()
            );
        }
    }
    ok
}

/// Peak resident set size of this process so far (VmHWM).
fn peak_rss() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

/// Resets VmHWM to the current RSS (Linux; best effort).
fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn dir_size(path: &Path) -> u64 {
    let Ok(rd) = std::fs::read_dir(path) else {
        return 0;
    };
    rd.flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_size(&e.path()),
            Ok(_) => e.metadata().map_or(0, |m| m.len()),
            Err(_) => 0,
        })
        .sum()
}

fn run_strata(
    ctx: &Ctx<'_>,
    data: &Dataset,
    queries: &[String],
    selected: &[usize],
) -> Result<EngineRun> {
    let (args, threads) = (ctx.args, ctx.threads);
    let db_dir = ctx.workdir.join("strata").join(&data.stem);
    let table = db_dir.join(ctx.suite.table);
    if table.exists() {
        std::fs::remove_dir_all(&table)
            .with_context(|| format!("removing the old table {}", table.display()))?;
    }
    std::fs::create_dir_all(&db_dir)?;
    let def = strata_ingest::parse_create_table(ctx.suite.create_duckdb)
        .context("parsing the suite's CREATE TABLE")?;
    let sort_by = if args.strata_sort {
        let key = strata_ingest::parse_create_table(ctx.suite.create_clickhouse)
            .context("parsing the suite's ClickHouse CREATE TABLE")?
            .sort_key;
        eprintln!(
            "[strata] sorting by the ClickHouse table's key ({})",
            key.join(", ")
        );
        Some(key)
    } else {
        None
    };
    let options = strata_ingest::IngestOptions {
        format: Some(match data.format {
            DataFormat::Tsv => strata_ingest::InputFormat::Tsv,
            DataFormat::Csv => strata_ingest::InputFormat::Csv,
            DataFormat::Parquet => strata_ingest::InputFormat::Parquet,
        }),
        header: Some(false),
        threads,
        schema: Some(def.schema),
        sort_by,
        ..Default::default()
    };
    let inputs: Vec<String> = data
        .paths
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    eprintln!(
        "[strata] ingesting {} into {}",
        inputs.join(", "),
        table.display()
    );
    reset_peak_rss();
    let started = Instant::now();
    let summary =
        strata_ingest::run(&inputs, &table, &options, &mut |_| {}).context("strata ingest")?;
    let load_time = started.elapsed().as_secs_f64();
    let data_size = dir_size(&table);
    eprintln!(
        "[strata] ingested {} rows in {load_time:.2} s, {:.1} MiB",
        summary.rows,
        data_size as f64 / 1048576.0
    );
    reset_peak_rss();
    let engine = strata_engine::Engine::new(threads).context("starting the engine")?;
    let db = strata_engine::Database::new(&db_dir);
    let mut out = vec![QueryRun::default(); queries.len()];
    for &i in selected {
        let sql = &queries[i];
        let q = &mut out[i];
        for run in 0..args.runs {
            let t0 = Instant::now();
            let res = engine.query_in(&db, sql);
            let secs = t0.elapsed().as_secs_f64();
            match res {
                Ok(r) => {
                    q.times.push(Some(secs));
                    if run == 0 {
                        q.columns = r.columns.iter().map(|c| c.name.clone()).collect();
                        q.rows = (0..r.num_rows()).map(|j| r.row_strings(j)).collect();
                    }
                }
                Err(e) => {
                    q.times.push(None);
                    q.error = Some(e.to_string());
                }
            }
        }
        match (&q.error, q.hot()) {
            (Some(e), _) => eprintln!("[strata] Q{:<2}     error  {e}", i + 1),
            (None, Some(t)) => eprintln!("[strata] Q{:<2} {:9.1} ms", i + 1, t * 1000.0),
            (None, None) => {}
        }
    }
    Ok(EngineRun {
        name: EngineName::Strata,
        version: env!("CARGO_PKG_VERSION").into(),
        load_time,
        data_size,
        peak_rss: peak_rss(),
        queries: out,
    })
}

fn run_peer(ctx: &Ctx<'_>, data: &Dataset, files: &Path, peer: EngineName) -> Result<EngineRun> {
    let (args, threads) = (ctx.args, ctx.threads);
    let label = peer.label();
    let out = std::fs::canonicalize(ctx.workdir)?.join(format!("{label}-result.json"));
    let _ = std::fs::remove_file(&out);
    let mut cmd = Command::new(&args.python);
    cmd.arg(files.join("peers.py"))
        .arg("run")
        .args(["--engine", label])
        .args(["--table", ctx.suite.table])
        .arg(data.format.flag())
        .args(&data.paths)
        .arg("--create")
        .arg(files.join(format!("create-{label}.sql")))
        .arg("--queries")
        .arg(files.join(format!("queries-{label}.sql")))
        .arg("--workdir")
        .arg(std::fs::canonicalize(ctx.workdir)?)
        .args(["--runs", &args.runs.to_string()])
        .args(["--threads", &threads.to_string()])
        .arg("--out")
        .arg(&out);
    if !args.queries.is_empty() {
        let list: Vec<String> = args.queries.iter().map(|q| q.to_string()).collect();
        cmd.args(["--only", &list.join(",")]);
    }
    let status = cmd
        .status()
        .with_context(|| format!("running {}", args.python))?;
    if !status.success() {
        bail!("peers.py exited with {status}");
    }
    let doc = json::parse(&std::fs::read_to_string(&out)?)?;
    let queries = doc
        .get("queries")
        .items()
        .iter()
        .map(|q| QueryRun {
            times: q.get("times").items().iter().map(Json::num).collect(),
            columns: strings(q.get("columns")),
            rows: q.get("rows").items().iter().map(strings).collect(),
            error: q.get("error").str().map(String::from),
        })
        .collect();
    Ok(EngineRun {
        name: peer,
        version: doc.get("version").str().unwrap_or("?").to_string(),
        load_time: doc.get("load_time").num().unwrap_or(f64::NAN),
        data_size: doc.get("data_size").num().unwrap_or(0.0) as u64,
        peak_rss: doc.get("peak_rss").num().unwrap_or(0.0) as u64,
        queries,
    })
}

fn strings(v: &Json) -> Vec<String> {
    v.items()
        .iter()
        .map(|s| s.str().unwrap_or("").to_string())
        .collect()
}

/// Checks every selected query's strata answer against DuckDB's.
fn check_all(
    ctx: &Ctx<'_>,
    files: &Path,
    queries: &[String],
    selected: &[usize],
    strata: &EngineRun,
    duck: &EngineRun,
) -> Result<Vec<Option<Verdict>>> {
    let mut verdicts: Vec<Option<Verdict>> = vec![None; queries.len()];
    let mut need_full: Vec<usize> = Vec::new();
    for &i in selected {
        let (Some(s), Some(d)) = (strata.queries.get(i), duck.queries.get(i)) else {
            continue;
        };
        let shape = QueryShape::of(&queries[i]);
        verdicts[i] = Some(if let Some(e) = &s.error {
            Verdict::Mismatch(format!("strata error: {e}"))
        } else if let Some(e) = &d.error {
            eprintln!(
                "!! Q{}: DuckDB failed, so strata's answer is not checked: {e}",
                i + 1
            );
            continue;
        } else if d.times.is_empty() {
            continue;
        } else if s.columns.len() != d.columns.len() {
            Verdict::Mismatch(format!(
                "{} columns, DuckDB has {}",
                s.columns.len(),
                d.columns.len()
            ))
        } else if check::exact(&shape, &s.rows, &d.rows) {
            Verdict::Ok
        } else if shape.has_limit {
            need_full.push(i);
            Verdict::Mismatch(check::describe(&s.rows, &d.rows))
        } else {
            Verdict::Mismatch(check::describe(&s.rows, &d.rows))
        });
    }
    if need_full.is_empty() {
        return Ok(verdicts);
    }
    eprintln!(
        "[duckdb] full answers (no LIMIT) for the tie-aware check of {}",
        need_full
            .iter()
            .map(|i| format!("Q{}", i + 1))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let spec_file = files.join("full-queries.json");
    let mut spec = String::from("[");
    for (n, &i) in need_full.iter().enumerate() {
        let rows: Vec<String> = strata.queries[i]
            .rows
            .iter()
            .map(|r| {
                let cells: Vec<String> = r.iter().map(|c| json::quote(c)).collect();
                format!("[{}]", cells.join(","))
            })
            .collect();
        let _ = write!(
            spec,
            "{}{{\"sql\": {}, \"rows\": [{}]}}",
            if n > 0 { ",\n" } else { "" },
            json::quote(&QueryShape::of(&queries[i]).without_limit),
            rows.join(",")
        );
    }
    spec.push(']');
    std::fs::write(&spec_file, spec)?;
    let args = ctx.args;
    let workdir = std::fs::canonicalize(ctx.workdir)?;
    let out = workdir.join("duckdb-full.json");
    let status = Command::new(&args.python)
        .arg(files.join("peers.py"))
        .arg("full")
        .arg("--db")
        .arg(
            workdir
                .join("duckdb")
                .join(format!("{}.duckdb", ctx.suite.table)),
        )
        .arg("--spec")
        .arg(&spec_file)
        .args(["--threads", &args.threads.unwrap_or(0).to_string()])
        .arg("--out")
        .arg(&out)
        .status()?;
    if !status.success() {
        eprintln!("!! the full answers failed ({status}); the exact verdicts stand");
        return Ok(verdicts);
    }
    let doc = json::parse(&std::fs::read_to_string(&out)?)?;
    for (&i, full) in need_full.iter().zip(doc.get("results").items()) {
        if let Some(e) = full.get("error").str() {
            eprintln!("!! Q{}: DuckDB's full answer failed: {e}", i + 1);
            continue;
        }
        let full_rows: Rows = full.get("rows").items().iter().map(strings).collect();
        let shape = QueryShape::of(&queries[i]);
        let s = &strata.queries[i];
        let d = &duck.queries[i];
        let v = check::tie_aware(&shape, &s.columns, &s.rows, &d.rows, &full_rows);
        verdicts[i] = Some(match v {
            Verdict::Mismatch(why) => Verdict::Mismatch(format!(
                "{} (exact: {})",
                why,
                check::describe(&s.rows, &d.rows)
            )),
            v => v,
        });
    }
    Ok(verdicts)
}

pub(crate) fn fmt_ms(t: Option<f64>) -> String {
    match t {
        Some(t) => format!("{:.1}", t * 1000.0),
        None => "-".into(),
    }
}

fn fmt_bytes(b: u64) -> String {
    if b == 0 {
        return "-".into();
    }
    let mib = b as f64 / 1048576.0;
    if mib >= 1024.0 {
        format!("{:.2} GiB", mib / 1024.0)
    } else {
        format!("{mib:.1} MiB")
    }
}

/// ClickBench's score of `t` against `baseline`.
pub(crate) fn score_ratio(t: f64, baseline: f64) -> f64 {
    (t + SCORE_SHIFT) / (baseline + SCORE_SHIFT)
}

pub(crate) fn geomean(v: &[f64]) -> Option<f64> {
    if v.is_empty() {
        None
    } else {
        Some((v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp())
    }
}

/// The report: per-query table, geometric means, load/size/memory.
fn render(
    title: &str,
    queries: &[String],
    selected: &[usize],
    runs: &[EngineRun],
    verdicts: &[Option<Verdict>],
) -> String {
    let mut o = String::new();
    let strata = runs.iter().position(|r| r.name == EngineName::Strata);
    let peers: Vec<usize> = (0..runs.len())
        .filter(|&i| runs[i].name != EngineName::Strata)
        .collect();
    let _ = writeln!(
        o,
        "\n{title} hot times in ms (best of runs 2..R); ratio = strata / best peer, \
         each time + 10 ms (ClickBench's scoring)"
    );
    let mut header = format!("{:<4}", "Q");
    for r in runs {
        let _ = write!(header, " {:>11}", r.name.label());
    }
    let _ = write!(header, " {:>8}  check", "ratio");
    let _ = writeln!(o, "{header}");
    let mut ratios = Vec::new();
    let mut per_peer: Vec<Vec<f64>> = vec![Vec::new(); runs.len()];
    let (mut ok, mut ties, mut bad, mut unchecked, mut errors) = (0, 0, 0, 0, 0);
    let mut problems = Vec::new();
    for &i in selected {
        let mut line = format!("{:<4}", format!("Q{}", i + 1));
        let hots: Vec<Option<f64>> = runs
            .iter()
            .map(|r| r.queries.get(i).and_then(QueryRun::hot))
            .collect();
        for h in &hots {
            let _ = write!(line, " {:>11}", fmt_ms(*h));
        }
        let s_hot = strata.and_then(|s| hots[s]);
        let best_peer = peers.iter().filter_map(|&p| hots[p]).reduce(f64::min);
        let ratio = match (s_hot, best_peer) {
            (Some(s), Some(b)) => {
                let r = score_ratio(s, b);
                ratios.push(r);
                for &p in &peers {
                    if let Some(h) = hots[p] {
                        per_peer[p].push(score_ratio(s, h));
                    }
                }
                format!("{r:.2}x")
            }
            _ => "-".into(),
        };
        let _ = write!(line, " {ratio:>8}");
        if strata
            .and_then(|s| runs[s].queries.get(i))
            .is_some_and(|q| q.error.is_some())
        {
            errors += 1;
        }
        let verdict = match &verdicts.get(i).cloned().flatten() {
            Some(Verdict::Ok) => {
                ok += 1;
                "OK".to_string()
            }
            Some(Verdict::OkTies) => {
                ties += 1;
                "OK (ties)".to_string()
            }
            Some(Verdict::Mismatch(why)) => {
                bad += 1;
                problems.push(format!("Q{}: {why}\n     {}", i + 1, queries[i]));
                "MISMATCH  <<<<<<".to_string()
            }
            None => {
                unchecked += 1;
                if let Some(e) = strata
                    .and_then(|s| runs[s].queries.get(i))
                    .and_then(|q| q.error.as_ref())
                {
                    problems.push(format!(
                        "Q{}: strata error: {e}\n     {}",
                        i + 1,
                        queries[i]
                    ));
                    "ERROR  <<<<<<".to_string()
                } else {
                    "-".to_string()
                }
            }
        };
        let _ = writeln!(o, "{line}  {verdict}");
    }
    let _ = writeln!(o);
    if let Some(g) = geomean(&ratios) {
        let _ = writeln!(
            o,
            "geometric mean of ratios, strata / best peer: {g:.3} over {} queries",
            ratios.len()
        );
    }
    for &p in &peers {
        if let Some(g) = geomean(&per_peer[p]) {
            let _ = writeln!(
                o,
                "geometric mean of ratios, strata / {}: {g:.3} over {} queries",
                runs[p].name.label(),
                per_peer[p].len()
            );
        }
    }
    let _ = writeln!(
        o,
        "checks against DuckDB: {ok} OK, {ties} OK with ties, {bad} MISMATCH, {unchecked} unchecked; \
         strata errors: {errors} of {} queries",
        selected.len()
    );
    if !problems.is_empty() {
        let _ = writeln!(
            o,
            "\n!!!!!! {bad} MISMATCHES, {errors} strata errors !!!!!!"
        );
        for p in &problems {
            let _ = writeln!(o, "  {p}");
        }
    }
    let _ = writeln!(
        o,
        "\n{:<11} {:>9} {:>11} {:>11}  version",
        "engine", "load (s)", "data size", "peak RSS"
    );
    for r in runs {
        let _ = writeln!(
            o,
            "{:<11} {:>9.2} {:>11} {:>11}  {}",
            r.name.label(),
            r.load_time,
            fmt_bytes(r.data_size),
            fmt_bytes(r.peak_rss),
            r.version
        );
    }
    o
}

/// A file's name without its extension (for workdir subdirectories).
pub fn file_stem(p: &Path) -> String {
    p.file_stem()
        .map_or_else(|| "data".into(), |s| s.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores() {
        assert!((score_ratio(0.0, 0.0) - 1.0).abs() < 1e-12);
        assert!((score_ratio(0.09, 0.0) - 10.0).abs() < 1e-9);
        assert_eq!(geomean(&[]), None);
        assert!(geomean(&[2.0, 8.0]).is_some_and(|g| (g - 4.0).abs() < 1e-12));
    }

    #[test]
    fn hot_time_is_best_of_later_runs() {
        let q = QueryRun {
            times: vec![Some(0.1), Some(0.5), Some(0.3)],
            ..Default::default()
        };
        assert_eq!(q.hot(), Some(0.3));
        let one = QueryRun {
            times: vec![Some(0.2)],
            ..Default::default()
        };
        assert_eq!(one.hot(), Some(0.2));
    }
}

//! A benchmark suite on strata, side by side with DuckDB and ClickHouse (chDB), with every
//! answer checked against DuckDB's: the machinery behind `strata-bench clickbench`,
//! `strata-bench taxi` and `strata-bench tpch`.
//!
//! Steps: ingest the data set into strata tables with the suite's schemas, run the queries
//! `--runs` times, run the peers through `scripts/peers.py` (one Python process per engine, so
//! each peak RSS is its own), check strata's answers against DuckDB's (see [`check`]), and
//! print a table of hot times and ratios. With `--fresh`, each query also runs in a new
//! process per run: the `strata query` CLI against a Python process that opens DuckDB's
//! database file (see [`fresh`]).
//!
//! The suite's query and schema files and `peers.py` are compiled in and written to the
//! workdir, so the binary works outside the repository.

pub mod check;
pub mod fresh;
pub(crate) mod json;
mod json_report;
pub mod split;

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
pub const SCORE_SHIFT: f64 = 0.01;

/// A benchmark suite: its tables' schemas and its queries.
#[derive(Clone, Copy, Debug)]
pub struct Suite {
    /// Name in the report ("ClickBench", "taxi", "TPC-H").
    pub title: &'static str,
    /// The name of the peers' databases, and the table of a one-table suite.
    pub table: &'static str,
    /// The queries in DuckDB's (and strata's) dialect.
    pub queries_duckdb: QueryText,
    /// The same queries in ClickHouse's dialect, one per line; `None` when the suite does
    /// not run on ClickHouse.
    pub queries_clickhouse: Option<&'static str>,
    /// DuckDB's CREATE TABLE statements, one per table (also strata's schemas).
    pub create_duckdb: &'static str,
    /// ClickHouse's CREATE TABLE, with the suite.
    pub create_clickhouse: Option<&'static str>,
    /// Added to every time before taking ratios: ClickBench's 10 ms, or 0 for plain ratios.
    pub score_shift: f64,
}

/// How a suite's queries are written.
#[derive(Clone, Copy, Debug)]
pub enum QueryText {
    /// One query per line.
    Lines(&'static str),
    /// One query per text (several lines each).
    Files(&'static [&'static str]),
}

impl QueryText {
    /// The queries, trimmed, without a trailing `;`.
    pub fn queries(&self) -> Vec<String> {
        match self {
            QueryText::Lines(text) => lines(text),
            QueryText::Files(texts) => texts
                .iter()
                .map(|t| t.trim().trim_end_matches(';').trim_end().to_string())
                .collect(),
        }
    }
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
    /// Also time each query in a new process per run: the `strata query` CLI against
    /// a Python process that opens DuckDB's database file and runs it.
    #[arg(long)]
    pub fresh: bool,
    /// The `strata` binary for `--fresh` (default: `strata` beside this program).
    #[arg(long)]
    pub strata_bin: Option<PathBuf>,
    /// Also answer each query split into this many tasks (comma-separated
    /// counts), each reading some blocks of the largest table, merged and
    /// checked against the single-process answer (see [`split`]).
    #[arg(long, value_delimiter = ',')]
    pub split: Vec<usize>,
    /// Rows per block of strata's tables (default: the ingest default),
    /// e.g. to give a small data set many blocks to split.
    #[arg(long)]
    pub block_rows: Option<usize>,
}

/// The format of a data set's files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataFormat {
    /// Apache Parquet (ClickBench's hits.parquet conventions).
    Parquet,
    /// Apache Parquet loaded as it is (types from the files), any number of tables.
    ParquetTables,
    /// Tab-separated, no header, `\N` for NULL.
    Tsv,
    /// Comma-separated, no header, empty field for NULL.
    Csv,
}

impl DataFormat {
    fn flag(self) -> &'static str {
        match self {
            DataFormat::Parquet | DataFormat::ParquetTables => "--parquet",
            DataFormat::Tsv => "--tsv",
            DataFormat::Csv => "--csv",
        }
    }
}

/// The input data set.
pub struct Dataset {
    /// The tables and their files.
    pub tables: Vec<TableFiles>,
    /// Their format.
    pub format: DataFormat,
    /// A name for the workdir's subdirectories.
    pub stem: String,
}

/// One table's input files.
pub struct TableFiles {
    /// The table's name.
    pub name: String,
    /// Its files.
    pub paths: Vec<PathBuf>,
}

impl Dataset {
    /// A one-table data set (the suite's table).
    pub fn one(suite: &Suite, paths: Vec<PathBuf>, format: DataFormat, stem: String) -> Dataset {
        Dataset {
            tables: vec![TableFiles {
                name: suite.table.to_string(),
                paths,
            }],
            format,
            stem,
        }
    }
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
    /// Per query, its answers split into tasks (`--split`; strata only).
    pub split: Vec<Vec<split::SplitOutcome>>,
}

/// Runs `suite` on `data` in `workdir` and prints the report (as JSON when `json`);
/// returns every engine's runs (strata's first, when it ran).
pub fn run_suite(
    suite: &Suite,
    args: &SuiteArgs,
    data: &Dataset,
    workdir: &Path,
    json: bool,
) -> Result<Vec<EngineRun>> {
    std::fs::create_dir_all(workdir)
        .with_context(|| format!("creating the workdir {}", workdir.display()))?;
    let files = workdir.join("files");
    std::fs::create_dir_all(&files)?;
    let all_queries = suite.queries_duckdb.queries();
    let mut texts: Vec<(&str, String)> = vec![
        ("queries-duckdb.json", json_list(&all_queries)),
        ("create-duckdb.sql", suite.create_duckdb.to_string()),
        ("peers.py", PEERS_PY.to_string()),
    ];
    if let (Some(q), Some(c)) = (suite.queries_clickhouse, suite.create_clickhouse) {
        texts.push(("queries-clickhouse.json", json_list(&lines(q))));
        texts.push(("create-clickhouse.sql", c.to_string()));
    }
    for (name, text) in &texts {
        std::fs::write(files.join(name), text)
            .with_context(|| format!("writing {}", files.join(name).display()))?;
    }
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
        if e == EngineName::Clickhouse && suite.queries_clickhouse.is_none() {
            eprintln!(
                "!! clickhouse skipped: the {} suite has no queries in its dialect",
                suite.title
            );
            continue;
        }
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
    if matches!(data.format, DataFormat::Tsv | DataFormat::Csv) && !peers.is_empty() {
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
    let fresh_runs = if args.fresh {
        Some(fresh::run(&fresh::FreshCtx {
            args,
            files: &files,
            strata_db: strata.map(|_| strata_db_dir(&ctx, data)),
            duckdb_file: duck.map(|_| duckdb_file(&ctx)).transpose()?,
            queries: &all_queries,
            selected: &selected,
            threads,
        })?)
    } else {
        None
    };
    let report = if json {
        json_report::report(
            suite,
            &all_queries,
            &selected,
            &runs,
            &verdicts,
            fresh_runs.as_ref(),
        )
    } else {
        let mut text = render(suite, &all_queries, &selected, &runs, &verdicts);
        if let Some(f) = &fresh_runs {
            text.push_str(&fresh::render(f, &selected));
        }
        if let Some(s) = strata.filter(|_| !args.split.is_empty()) {
            text.push_str(&split::render(&selected, &s.split));
        }
        text
    };
    println!("{report}");
    Ok(runs)
}

/// `items` as a JSON array of strings.
fn json_list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|q| json::quote(q)).collect();
    format!("[{}]", quoted.join(",\n"))
}

/// strata's database directory for `data`.
fn strata_db_dir(ctx: &Ctx<'_>, data: &Dataset) -> PathBuf {
    ctx.workdir.join("strata").join(&data.stem)
}

/// The DuckDB peer's database file.
fn duckdb_file(ctx: &Ctx<'_>) -> Result<PathBuf> {
    Ok(std::fs::canonicalize(ctx.workdir)?
        .join("duckdb")
        .join(format!("{}.duckdb", ctx.suite.table)))
}

/// The CREATE TABLE statements of `sql`, parsed.
pub fn table_defs(sql: &str) -> Result<Vec<strata_ingest::TableDef>> {
    let mut defs = Vec::new();
    for stmt in sql.split(';') {
        let has_create = stmt
            .lines()
            .map(|l| l.split("--").next().unwrap_or(""))
            .any(|l| l.to_ascii_uppercase().contains("CREATE TABLE"));
        if has_create {
            defs.push(strata_ingest::parse_create_table(stmt).context("parsing a CREATE TABLE")?);
        }
    }
    Ok(defs)
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
    let db_dir = strata_db_dir(ctx, data);
    std::fs::create_dir_all(&db_dir)?;
    let defs = table_defs(ctx.suite.create_duckdb)?;
    let sort_by = match (args.strata_sort, ctx.suite.create_clickhouse) {
        (false, _) => None,
        (true, None) => bail!(
            "--strata-sort: the {} suite has no ClickHouse table",
            ctx.suite.title
        ),
        (true, Some(create)) => {
            let key = strata_ingest::parse_create_table(create)
                .context("parsing the suite's ClickHouse CREATE TABLE")?
                .sort_key;
            eprintln!(
                "[strata] sorting by the ClickHouse table's key ({})",
                key.join(", ")
            );
            Some(key)
        }
    };
    reset_peak_rss();
    let (mut load_time, mut data_size) = (0.0, 0);
    for t in &data.tables {
        let Some(def) = defs.iter().find(|d| d.name.eq_ignore_ascii_case(&t.name)) else {
            bail!(
                "the {} suite has no CREATE TABLE {}",
                ctx.suite.title,
                t.name
            );
        };
        let table = db_dir.join(&t.name);
        if table.exists() {
            std::fs::remove_dir_all(&table)
                .with_context(|| format!("removing the old table {}", table.display()))?;
        }
        let options = strata_ingest::IngestOptions {
            format: Some(match data.format {
                DataFormat::Tsv => strata_ingest::InputFormat::Tsv,
                DataFormat::Csv => strata_ingest::InputFormat::Csv,
                DataFormat::Parquet | DataFormat::ParquetTables => {
                    strata_ingest::InputFormat::Parquet
                }
            }),
            header: Some(false),
            threads,
            schema: Some(def.schema.clone()),
            sort_by: sort_by.clone(),
            block_rows: args
                .block_rows
                .unwrap_or(strata_ingest::IngestOptions::default().block_rows),
            ..Default::default()
        };
        let inputs: Vec<String> = t
            .paths
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        eprintln!(
            "[strata] ingesting {} into {}",
            inputs.join(", "),
            table.display()
        );
        let started = Instant::now();
        let summary = strata_ingest::run(&inputs, &table, &options, &mut |_| {})
            .with_context(|| format!("strata ingest of {}", t.name))?;
        let secs = started.elapsed().as_secs_f64();
        let size = dir_size(&table);
        eprintln!(
            "[strata] ingested {} rows in {secs:.2} s, {:.1} MiB",
            summary.rows,
            size as f64 / 1048576.0
        );
        load_time += secs;
        data_size += size;
    }
    reset_peak_rss();
    let mut options = strata::Options::new();
    if threads > 0 {
        options = options.threads(threads);
    }
    let db = strata::Database::open_with(&db_dir, options).context("opening strata's tables")?;
    let mut out = vec![QueryRun::default(); queries.len()];
    for &i in selected {
        let sql = &queries[i];
        let q = &mut out[i];
        for run in 0..args.runs {
            let t0 = Instant::now();
            let res = db.query(sql);
            let secs = t0.elapsed().as_secs_f64();
            match res {
                Ok(r) => {
                    q.times.push(Some(secs));
                    if run == 0 {
                        q.columns = r.columns().map(|c| c.name().to_string()).collect();
                        q.rows = r.rows().map(|row| row.strings()).collect();
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
    let peak_rss = peak_rss();
    let split = split::run_all(&db, queries, selected, &out, &args.split)?;
    Ok(EngineRun {
        name: EngineName::Strata,
        version: env!("CARGO_PKG_VERSION").into(),
        load_time,
        data_size,
        peak_rss,
        queries: out,
        split,
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
        .args(["--table", ctx.suite.table]);
    if data.format == DataFormat::ParquetTables {
        let spec = files.join("tables.json");
        let tables: Vec<String> = data
            .tables
            .iter()
            .map(|t| {
                let paths: Vec<String> = t
                    .paths
                    .iter()
                    .map(|p| json::quote(&p.to_string_lossy()))
                    .collect();
                format!(
                    "{{\"name\": {}, \"parquet\": [{}]}}",
                    json::quote(&t.name),
                    paths.join(", ")
                )
            })
            .collect();
        std::fs::write(&spec, format!("[{}]", tables.join(",\n")))?;
        cmd.arg("--tables-json").arg(spec);
    } else {
        cmd.arg(data.format.flag());
        for t in &data.tables {
            cmd.args(&t.paths);
        }
    }
    cmd.arg("--create")
        .arg(files.join(format!("create-{label}.sql")))
        .arg("--queries")
        .arg(files.join(format!("queries-{label}.json")))
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
        split: Vec::new(),
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
            Verdict::Refused(e.clone())
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
        .arg(duckdb_file(ctx)?)
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

/// Milliseconds with one decimal, or `-`.
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

/// The ratio of `t` to `baseline`, each plus `shift` seconds (ClickBench's score with
/// [`SCORE_SHIFT`]; a plain ratio with 0).
pub(crate) fn score_ratio(t: f64, baseline: f64, shift: f64) -> f64 {
    (t + shift) / (baseline + shift)
}

/// A query on one line (its whitespace collapsed), for reports.
pub(crate) fn one_line(sql: &str) -> String {
    sql.split_whitespace().collect::<Vec<_>>().join(" ")
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
    suite: &Suite,
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
    let shift = suite.score_shift;
    let scoring = if shift > 0.0 {
        format!(", each time + {} ms (ClickBench's scoring)", shift * 1000.0)
    } else {
        String::new()
    };
    let _ = writeln!(
        o,
        "\n{} hot times in ms (best of runs 2..R); ratio = strata / best peer{scoring}",
        suite.title
    );
    let mut header = format!("{:<4}", "Q");
    for r in runs {
        let _ = write!(header, " {:>11}", r.name.label());
    }
    let _ = write!(header, " {:>8}  check", "ratio");
    let _ = writeln!(o, "{header}");
    let mut ratios = Vec::new();
    let mut per_peer: Vec<Vec<f64>> = vec![Vec::new(); runs.len()];
    let (mut ok, mut ties, mut bad, mut refused, mut unchecked, mut errors) = (0, 0, 0, 0, 0, 0);
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
                let r = score_ratio(s, b, shift);
                ratios.push(r);
                for &p in &peers {
                    if let Some(h) = hots[p] {
                        per_peer[p].push(score_ratio(s, h, shift));
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
                problems.push(format!("Q{}: {why}\n     {}", i + 1, one_line(&queries[i])));
                "MISMATCH  <<<<<<".to_string()
            }
            Some(Verdict::Refused(why)) => {
                refused += 1;
                problems.push(format!(
                    "Q{}: strata refused: {why}\n     {}",
                    i + 1,
                    one_line(&queries[i])
                ));
                let first = why.lines().next().unwrap_or("");
                let short: String = first.chars().take(60).collect();
                format!("REFUSED  {short}")
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
                        one_line(&queries[i])
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
        "checks against DuckDB: {ok} OK, {ties} OK with ties, {bad} MISMATCH, {refused} refused, \
         {unchecked} unchecked; strata errors: {errors} of {} queries",
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
        assert!((score_ratio(0.0, 0.0, SCORE_SHIFT) - 1.0).abs() < 1e-12);
        assert!((score_ratio(0.09, 0.0, SCORE_SHIFT) - 10.0).abs() < 1e-9);
        assert!((score_ratio(0.3, 0.1, 0.0) - 3.0).abs() < 1e-9);
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

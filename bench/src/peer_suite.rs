//! `strata-bench peer-suite`: queries from Apache DataFusion's sqllogictest files, run on
//! strata and on DuckDB, strata's answers checked against DuckDB's.
//!
//! The suite (`bench/peer_suite/`, compiled in): arrow-testing's `aggregate_test_100` (four
//! CSV parts), the small tables the `.slt` files create inline (`tables.sql`, DuckDB
//! statements) and the single-table queries over them (`queries.sql`); `extract.py` wrote
//! both lists and `SOURCE.txt` names the files and commits. DataFusion's expected answers
//! are not used.
//!
//! One persistent DuckDB session (`peers.py serve`) loads every table, in a schema of its
//! own, and answers each query; the small tables go to strata through DuckDB's CSV export
//! with DuckDB's column types as the schema, `aggregate_test_100` from the same CSV parts
//! DuckDB reads, with an explicit schema. Each query ends as MATCH, MISMATCH, refused by
//! strata (its error, grouped by reason) or refused by DuckDB (excluded: no reference).

mod compare;
mod duck;
mod list;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use self::compare::{strata_cell, tolerance, Rows, Verdict};
use self::duck::Duck;
use self::list::{SuiteQuery, TableSetup};
use crate::suite::check::QueryShape;
use crate::suite::json;

/// The query list.
pub(crate) const QUERIES: &str = include_str!("../peer_suite/queries.sql");
/// The small tables.
pub(crate) const TABLES: &str = include_str!("../peer_suite/tables.sql");
/// The main table's id in the lists.
pub(crate) const AGG100: &str = "aggregate_test_100";
/// arrow-testing's `aggregate_test_100` in four parts.
const AGG100_PARTS: [&str; 4] = [
    include_str!("../peer_suite/data/aggregate_test_100_partitioned/part1.csv"),
    include_str!("../peer_suite/data/aggregate_test_100_partitioned/part2.csv"),
    include_str!("../peer_suite/data/aggregate_test_100_partitioned/part3.csv"),
    include_str!("../peer_suite/data/aggregate_test_100_partitioned/part4.csv"),
];
/// Its columns, with the types of DataFusion's CREATE EXTERNAL TABLE in DuckDB's names.
const AGG100_COLUMNS: [(&str, &str); 13] = [
    ("c1", "VARCHAR"),
    ("c2", "TINYINT"),
    ("c3", "SMALLINT"),
    ("c4", "SMALLINT"),
    ("c5", "INTEGER"),
    ("c6", "BIGINT"),
    ("c7", "SMALLINT"),
    ("c8", "INTEGER"),
    ("c9", "UINTEGER"),
    ("c10", "UBIGINT"),
    ("c11", "FLOAT"),
    ("c12", "DOUBLE"),
    ("c13", "VARCHAR"),
];
const PEERS_PY: &str = include_str!("../scripts/peers.py");

/// Arguments of `strata-bench peer-suite`.
#[derive(Clone, Debug, clap::Args)]
pub struct PeerSuiteArgs {
    /// Print the report as JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// List every query's outcome, not only the mismatches.
    #[arg(long)]
    pub verbose: bool,
    /// Run only these queries (numbers in queries.sql, comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub queries: Vec<usize>,
    /// Working directory for tables and CSV files (default: a temporary directory).
    #[arg(long)]
    pub workdir: Option<PathBuf>,
    /// Threads per engine (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Python interpreter with the duckdb package.
    #[arg(long, default_value = "python3")]
    pub python: String,
}

/// How one query ended.
#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    /// strata's answer is DuckDB's (`true`: up to ties).
    Match(bool),
    /// strata answered something else.
    Mismatch(String),
    /// strata returned an error (or could not load the table).
    Refused(String),
    /// DuckDB returned an error: no reference answer, excluded.
    DuckdbRefused(String),
}

/// A table on both sides.
struct Loaded {
    /// DuckDB's schema holding it.
    schema: String,
    /// strata's database directory holding it, or why it could not be loaded.
    db: std::result::Result<strata::Database, String>,
}

/// Runs `strata-bench peer-suite`.
pub fn run(args: &PeerSuiteArgs) -> Result<()> {
    let queries = list::parse_queries(QUERIES)?;
    let tables = list::parse_tables(TABLES)?;
    let selected: Vec<&SuiteQuery> = if args.queries.is_empty() {
        queries.iter().collect()
    } else {
        let mut v = Vec::new();
        for &n in &args.queries {
            match queries.iter().find(|q| q.n == n) {
                Some(q) => v.push(q),
                None => bail!("--queries: no query {n} (1..{})", queries.len()),
            }
        }
        v
    };
    let tmp;
    let workdir: &Path = match &args.workdir {
        Some(w) => w,
        None => {
            tmp = tempfile::tempdir().context("creating a temporary directory")?;
            tmp.path()
        }
    };
    std::fs::create_dir_all(workdir)
        .with_context(|| format!("creating the workdir {}", workdir.display()))?;
    let workdir = std::fs::canonicalize(workdir)?;
    let script = workdir.join("peers.py");
    std::fs::write(&script, PEERS_PY)?;
    let imported = Command::new(&args.python)
        .args(["-c", "import duckdb"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !imported {
        bail!(
            "the peer suite needs Python's duckdb package for its reference answers \
             (`{} -m pip install duckdb`)",
            args.python
        );
    }
    let threads = args.threads.unwrap_or(0);
    let mut duck = Duck::start(&args.python, &script, threads)?;
    let version = match duck.query("SELECT version()", "main")? {
        Ok(a) => match a.rows.first().and_then(|r| r.first()) {
            Some(compare::Cell::Text(_, v)) => v.clone(),
            _ => "?".into(),
        },
        Err(e) => bail!("DuckDB: {e}"),
    };

    // aggregate_test_100 first: some small tables take their rows from it.
    let needed: Vec<&str> = {
        let mut v: Vec<&str> = selected.iter().map(|q| q.table.as_str()).collect();
        v.push(AGG100);
        v.sort_unstable_by_key(|t| (*t != AGG100, *t));
        v.dedup();
        v
    };
    let mut loaded: HashMap<String, Loaded> = HashMap::new();
    for (k, id) in needed.iter().enumerate() {
        let l = if *id == AGG100 {
            load_agg100(&mut duck, &workdir, threads)?
        } else {
            let Some(setup) = tables.iter().find(|t| t.id == *id) else {
                bail!("tables.sql has no table {id}");
            };
            load_small(&mut duck, &workdir, k, setup, threads)?
        };
        loaded.insert((*id).to_string(), l);
    }

    let mut outcomes: Vec<(&SuiteQuery, Outcome)> = Vec::new();
    for q in &selected {
        let Some(table) = loaded.get(&q.table) else {
            bail!("query {} reads {}, which was not loaded", q.n, q.table);
        };
        outcomes.push((q, run_one(&mut duck, q, table)?));
    }
    let report = if args.json {
        render_json(&version, &outcomes)
    } else {
        render_text(&version, &outcomes, args.verbose)
    };
    println!("{report}");
    Ok(())
}

fn short(o: &Outcome) -> String {
    match o {
        Outcome::Match(false) => "MATCH".into(),
        Outcome::Match(true) => "MATCH (ties)".into(),
        Outcome::Mismatch(why) => format!("MISMATCH  {why}"),
        Outcome::Refused(why) => format!("refused   {why}"),
        Outcome::DuckdbRefused(why) => format!("DuckDB refused  {why}"),
    }
}

fn ingest_csv(
    inputs: &[String],
    table: &Path,
    create_sql: &str,
    threads: usize,
) -> std::result::Result<(), String> {
    let def = strata_ingest::parse_create_table(create_sql).map_err(|e| e.to_string())?;
    let options = strata_ingest::IngestOptions {
        format: Some(strata_ingest::InputFormat::Csv),
        header: Some(true),
        threads,
        schema: Some(def.schema),
        ..Default::default()
    };
    strata_ingest::run(inputs, table, &options, &mut |_| {})
        .map(|_| ())
        .map_err(|e| e.to_string())
}

fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

fn create_table_sql(name: &str, columns: &[(String, String)]) -> String {
    let cols: Vec<String> = columns
        .iter()
        .map(|(c, t)| format!("{} {t}", quote_ident(c)))
        .collect();
    format!("CREATE TABLE {} ({})", quote_ident(name), cols.join(", "))
}

fn open_db(dir: &Path, threads: usize) -> std::result::Result<strata::Database, String> {
    let mut options = strata::Options::new().temporary_cache();
    if threads > 0 {
        options = options.threads(threads);
    }
    strata::Database::open_with(dir, options).map_err(|e| e.to_string())
}

/// Loads `aggregate_test_100` into DuckDB (schema main) and strata from the same CSV parts.
fn load_agg100(duck: &mut Duck, workdir: &Path, threads: usize) -> Result<Loaded> {
    let data = workdir.join("data");
    std::fs::create_dir_all(&data)?;
    let mut inputs = Vec::new();
    for (i, part) in AGG100_PARTS.iter().enumerate() {
        let p = data.join(format!("part{}.csv", i + 1));
        std::fs::write(&p, part)?;
        inputs.push(p.to_string_lossy().into_owned());
    }
    let columns: Vec<(String, String)> = AGG100_COLUMNS
        .iter()
        .map(|(c, t)| (c.to_string(), t.to_string()))
        .collect();
    let create = create_table_sql(AGG100, &columns);
    if let Err(e) = duck.exec(&create, "main")? {
        bail!("DuckDB: {e}");
    }
    let spec: Vec<String> = AGG100_COLUMNS
        .iter()
        .map(|(c, t)| format!("'{c}': '{t}'"))
        .collect();
    let files: Vec<String> = inputs
        .iter()
        .map(|p| format!("'{}'", p.replace('\'', "''")))
        .collect();
    let insert = format!(
        "INSERT INTO {AGG100} SELECT * FROM read_csv([{}], header = true, auto_detect = false, \
         columns = {{{}}})",
        files.join(", "),
        spec.join(", ")
    );
    if let Err(e) = duck.exec(&insert, "main")? {
        bail!("DuckDB loading {AGG100}: {e}");
    }
    let dir = workdir.join("db").join(AGG100);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let db = ingest_csv(&inputs, &dir.join(AGG100), &create, threads)
        .map_err(|e| format!("loading {AGG100}: {e}"))
        .and_then(|()| open_db(&dir, threads));
    if let Err(e) = &db {
        eprintln!("!! strata could not load {AGG100}: {e}");
    }
    Ok(Loaded {
        schema: "main".into(),
        db,
    })
}

/// Creates a small table in DuckDB (schema `t<k>`), exports it and loads it into strata
/// with DuckDB's column types.
fn load_small(
    duck: &mut Duck,
    workdir: &Path,
    k: usize,
    setup: &TableSetup,
    threads: usize,
) -> Result<Loaded> {
    let schema = format!("t{k}");
    if let Err(e) = duck.exec(&format!("CREATE SCHEMA {schema}"), "main")? {
        bail!("DuckDB: {e}");
    }
    for s in &setup.statements {
        if let Err(e) = duck.exec(s, &schema)? {
            bail!("DuckDB runs {}'s setup: {e}\n  {s}", setup.id);
        }
    }
    let csv = workdir.join("data").join(format!("{schema}.csv"));
    std::fs::create_dir_all(workdir.join("data"))?;
    let columns = match duck.export(&setup.name, &schema, &csv)? {
        Ok(c) => c,
        Err(e) => bail!("DuckDB exports {}: {e}", setup.id),
    };
    let dir = workdir.join("db").join(&schema);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let create = create_table_sql(&setup.name, &columns);
    let db = ingest_csv(
        &[csv.to_string_lossy().into_owned()],
        &dir.join(&setup.name),
        &create,
        threads,
    )
    .map_err(|e| format!("loading the table: {e}"))
    .and_then(|()| open_db(&dir, threads));
    Ok(Loaded { schema, db })
}

/// strata's answer as cells, or its error.
fn strata_answer(
    db: &strata::Database,
    sql: &str,
) -> std::result::Result<(Vec<String>, Rows), String> {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| db.query(sql)));
    let r = match result {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => return Err(e.to_string()),
        Err(_) => return Err("panic (see stderr)".into()),
    };
    let columns: Vec<String> = r.columns().map(|c| c.name().to_string()).collect();
    let types: Vec<strata::DataType> = r.columns().map(|c| c.data_type()).collect();
    let rows = (0..r.num_rows())
        .map(|i| {
            types
                .iter()
                .enumerate()
                .map(|(j, ty)| strata_cell(*ty, &r.value(i, j)))
                .collect()
        })
        .collect();
    Ok((columns, rows))
}

fn run_one(duck: &mut Duck, q: &SuiteQuery, table: &Loaded) -> Result<Outcome> {
    let reference = match duck.query(&q.sql, &table.schema)? {
        Ok(a) => a,
        Err(e) => return Ok(Outcome::DuckdbRefused(e)),
    };
    let db = match &table.db {
        Ok(db) => db,
        Err(e) => return Ok(Outcome::Refused(e.clone())),
    };
    let (columns, rows) = match strata_answer(db, &q.sql) {
        Ok(a) => a,
        Err(e) => return Ok(Outcome::Refused(e)),
    };
    if columns.len() != reference.columns.len() {
        return Ok(Outcome::Mismatch(format!(
            "{} columns, DuckDB has {}",
            columns.len(),
            reference.columns.len()
        )));
    }
    let tols: Vec<f64> = reference.types.iter().map(|t| tolerance(t)).collect();
    let shape = QueryShape::of(&q.sql);
    let verdict = match compare::compare(&shape, &columns, &rows, &reference.rows, &tols) {
        Verdict::NeedFull => match duck.query(&shape.without_limit, &table.schema)? {
            Ok(full) => {
                compare::tie_aware(&shape, &columns, &rows, &reference.rows, &full.rows, &tols)
            }
            Err(_) => Verdict::Mismatch(compare::describe(&rows, &reference.rows, &tols)),
        },
        v => v,
    };
    Ok(match verdict {
        Verdict::Match => Outcome::Match(false),
        Verdict::MatchTies | Verdict::NeedFull => Outcome::Match(true),
        Verdict::Mismatch(why) => Outcome::Mismatch(why),
    })
}

/// The reason a refusal is counted under: the unsupported construct without its arguments
/// (`function median(...)` for `function median(FLOAT)`, `expression ROLLUP (...)`), or the
/// error's first line.
fn reason(error: &str) -> String {
    let one_line = error.lines().next().unwrap_or("").trim();
    if let Some(what) = one_line.strip_prefix("not supported: ") {
        let open = what.find('(');
        let generic = ["function ", "expression "]
            .iter()
            .any(|p| what.starts_with(p));
        if let (true, Some(open)) = (generic, open) {
            return format!("not supported: {}(...)", &what[..open]);
        }
    }
    let mut r: String = one_line.chars().take(110).collect();
    if r.len() < one_line.len() {
        r.push_str("...");
    }
    r
}

struct Counts {
    total: usize,
    matched: usize,
    ties: usize,
    mismatched: usize,
    refused: usize,
    duck_refused: usize,
    reasons: Vec<(String, usize)>,
}

fn count(outcomes: &[(&SuiteQuery, Outcome)]) -> Counts {
    let mut c = Counts {
        total: outcomes.len(),
        matched: 0,
        ties: 0,
        mismatched: 0,
        refused: 0,
        duck_refused: 0,
        reasons: Vec::new(),
    };
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for (_, o) in outcomes {
        match o {
            Outcome::Match(ties) => {
                c.matched += 1;
                c.ties += usize::from(*ties);
            }
            Outcome::Mismatch(_) => c.mismatched += 1,
            Outcome::Refused(e) => {
                c.refused += 1;
                *reasons.entry(reason(e)).or_default() += 1;
            }
            Outcome::DuckdbRefused(_) => c.duck_refused += 1,
        }
    }
    let mut v: Vec<(String, usize)> = reasons.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    c.reasons = v;
    c
}

fn first_line(sql: &str) -> String {
    let s = crate::suite::one_line(sql);
    if s.chars().count() > 160 {
        format!("{}...", s.chars().take(160).collect::<String>())
    } else {
        s
    }
}

fn render_text(version: &str, outcomes: &[(&SuiteQuery, Outcome)], verbose: bool) -> String {
    let c = count(outcomes);
    let checked = c.total - c.duck_refused;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "DataFusion peer suite: {} queries (bench/peer_suite), reference answers from DuckDB {version}",
        c.total
    );
    let _ = writeln!(
        o,
        "DuckDB refused {} (excluded); of the other {checked}, strata answered {} \
         ({} MATCH, {} of them up to ties; {} MISMATCH) and refused {}",
        c.duck_refused,
        c.matched + c.mismatched,
        c.matched,
        c.ties,
        c.mismatched,
        c.refused
    );
    if !c.reasons.is_empty() {
        let _ = writeln!(o, "\nstrata refused, by reason:");
        for (r, n) in &c.reasons {
            let _ = writeln!(o, "  {n:4}  {r}");
        }
    }
    let bad: Vec<&(&SuiteQuery, Outcome)> = outcomes
        .iter()
        .filter(|(_, o)| matches!(o, Outcome::Mismatch(_)))
        .collect();
    if !bad.is_empty() {
        let _ = writeln!(o, "\nMISMATCH:");
        for (q, out) in bad {
            if let Outcome::Mismatch(why) = out {
                let _ = writeln!(
                    o,
                    "  q{} {}: {why}\n      {}",
                    q.n,
                    q.source,
                    first_line(&q.sql)
                );
            }
        }
    }
    if verbose {
        let _ = writeln!(o, "\nEvery query:");
        for (q, out) in outcomes {
            let _ = writeln!(o, "  q{:<4} {:<28} {}", q.n, q.source, short(out));
        }
    }
    o
}

fn render_json(version: &str, outcomes: &[(&SuiteQuery, Outcome)]) -> String {
    let c = count(outcomes);
    let mut o = String::from("{");
    let _ = write!(
        o,
        "\"duckdb_version\": {}, \"total\": {}, \"duckdb_refused\": {}, \"answered\": {}, \
         \"match\": {}, \"match_ties\": {}, \"mismatch\": {}, \"refused\": {}, \"refused_reasons\": [",
        json::quote(version),
        c.total,
        c.duck_refused,
        c.matched + c.mismatched,
        c.matched,
        c.ties,
        c.mismatched,
        c.refused
    );
    let reasons: Vec<String> = c
        .reasons
        .iter()
        .map(|(r, n)| format!("{{\"reason\": {}, \"count\": {n}}}", json::quote(r)))
        .collect();
    o.push_str(&reasons.join(", "));
    o.push_str("], \"queries\": [");
    let qs: Vec<String> = outcomes
        .iter()
        .map(|(q, out)| {
            let (verdict, detail) = match out {
                Outcome::Match(false) => ("match", String::new()),
                Outcome::Match(true) => ("match_ties", String::new()),
                Outcome::Mismatch(w) => ("mismatch", w.clone()),
                Outcome::Refused(w) => ("refused", w.clone()),
                Outcome::DuckdbRefused(w) => ("duckdb_refused", w.clone()),
            };
            format!(
                "{{\"n\": {}, \"source\": {}, \"table\": {}, \"verdict\": \"{verdict}\", \"detail\": {}}}",
                q.n,
                json::quote(&q.source),
                json::quote(&q.table),
                json::quote(&detail)
            )
        })
        .collect();
    o.push_str(&qs.join(",\n"));
    o.push_str("]}");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_group_by_construct() {
        assert_eq!(
            reason("not supported: function median(FLOAT)"),
            "not supported: function median(...)"
        );
        assert_eq!(
            reason("not supported: expression ROLLUP (c2, c3)"),
            "not supported: expression ROLLUP (...)"
        );
        assert_eq!(reason("not supported: joins"), "not supported: joins");
        assert_eq!(
            reason("column \"x\" not found\n  detail"),
            "column \"x\" not found"
        );
    }

    #[test]
    fn counts_and_reports() {
        let q = |n: usize| SuiteQuery {
            n,
            source: format!("a.slt:{n}"),
            table: AGG100.into(),
            df_error: false,
            sql: "SELECT 1".into(),
        };
        let qs: Vec<SuiteQuery> = (1..=5).map(q).collect();
        let outcomes = vec![
            (&qs[0], Outcome::Match(false)),
            (&qs[1], Outcome::Match(true)),
            (&qs[2], Outcome::Mismatch("row 1".into())),
            (
                &qs[3],
                Outcome::Refused("not supported: function f(INTEGER)".into()),
            ),
            (&qs[4], Outcome::DuckdbRefused("no such function".into())),
        ];
        let c = count(&outcomes);
        assert_eq!(
            (
                c.total,
                c.matched,
                c.ties,
                c.mismatched,
                c.refused,
                c.duck_refused
            ),
            (5, 2, 1, 1, 1, 1)
        );
        assert_eq!(
            c.reasons,
            vec![("not supported: function f(...)".to_string(), 1)]
        );
        let text = render_text("v1", &outcomes, false);
        assert!(text.contains(
            "strata answered 3 (2 MATCH, 1 of them up to ties; 1 MISMATCH) and refused 1"
        ));
        assert!(text.contains("q3 a.slt:3: row 1"));
        let doc = json::parse(&render_json("v1", &outcomes)).unwrap();
        assert_eq!(doc.get("answered").num(), Some(3.0));
        assert_eq!(doc.get("queries").items().len(), 5);
        assert_eq!(
            doc.get("queries").items()[4].get("verdict").str(),
            Some("duckdb_refused")
        );
    }
}

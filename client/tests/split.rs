//! Split queries: the blocks of a table divided among tasks
//! (`Database::partial`), their partial results merged
//! (`SplitQuery::merge`), give the answer of the whole query; what cannot
//! be split says so.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use strata::{Database, Partial, QueryResult};

const ROWS: usize = 1000;

/// Table `t` (16 blocks of 64 rows; NULLs, duplicates, strings, dates) and
/// a small table `dim`.
fn database(dir: &Path) -> Database {
    let mut csv = String::from("k,g,x,f,s,d\n");
    for i in 0..ROWS {
        let k = if i % 11 == 3 {
            String::new()
        } else {
            (i % 37).to_string()
        };
        let g = match i % 7 {
            0 => String::new(),
            r => format!("g{r}"),
        };
        let x = if i % 13 == 5 {
            String::new()
        } else {
            ((i * 7919) % 1000).to_string()
        };
        let f = format!("{}.25", i % 50);
        let s = format!("s{:04}", (i * 31) % 997);
        let d = format!("2024-{:02}-{:02}", 1 + i % 12, 1 + i % 28);
        csv.push_str(&format!("{k},{g},{x},{f},{s},{d}\n"));
    }
    let file = dir.join("t.csv");
    std::fs::write(&file, csv).unwrap();
    let schema = strata_ingest::parse_create_table(
        "CREATE TABLE t (k INTEGER, g VARCHAR, x BIGINT, f DOUBLE, s VARCHAR, d DATE)",
    )
    .unwrap()
    .schema;
    let options = strata_ingest::IngestOptions {
        block_rows: 64,
        schema: Some(schema),
        null_string: Some(String::new()),
        ..Default::default()
    };
    let files = [file.to_string_lossy().into_owned()];
    strata_ingest::run(&files, &dir.join("db/t"), &options, &mut |_| {}).unwrap();
    let dim = dir.join("dim.csv");
    let mut text = String::from("id,name\n");
    for i in 0..10 {
        text.push_str(&format!("{i},name{}\n", i % 4));
    }
    std::fs::write(&dim, text).unwrap();
    let files = [dim.to_string_lossy().into_owned()];
    let options = strata_ingest::IngestOptions::default();
    strata_ingest::run(&files, &dir.join("db/dim"), &options, &mut |_| {}).unwrap();
    Database::open_with(dir.join("db"), strata::Options::new().temporary_cache()).unwrap()
}

fn rows(r: &QueryResult) -> Vec<Vec<String>> {
    r.rows().map(|row| row.strings()).collect()
}

/// Cells equal, or numbers within 1e-9 (sums of floats added in another order).
fn cell_eq(a: &str, b: &str) -> bool {
    a == b
        || matches!((a.parse::<f64>(), b.parse::<f64>()), (Ok(x), Ok(y))
            if (x - y).abs() <= 1e-9 * x.abs().max(y.abs()))
}

fn same(a: &[Vec<String>], b: &[Vec<String>]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.len() == y.len() && x.iter().zip(y).all(|(p, q)| cell_eq(p, q)))
}

/// `sql` split into `parts` tasks (blocks dealt round-robin, so tasks hold
/// blocks from all over the table), each partial through Arrow IPC when
/// the feature is on.
fn split_answer(db: &Database, sql: &str, parts: usize) -> QueryResult {
    let split = db.split(sql).unwrap();
    let n = split.num_blocks();
    assert_eq!(n, ROWS.div_ceil(64), "{sql}");
    let partials: Vec<Partial> = (0..parts)
        .map(|p| {
            let blocks: Vec<usize> = (p..n).step_by(parts).collect();
            let partial = split.partial(&blocks).unwrap();
            carried(partial)
        })
        .collect();
    split.merge(&partials).unwrap()
}

#[cfg(feature = "arrow")]
fn carried(p: Partial) -> Partial {
    Partial::from_ipc(&p.to_ipc().unwrap()).unwrap()
}

#[cfg(not(feature = "arrow"))]
fn carried(p: Partial) -> Partial {
    p
}

/// The split answer equals the whole query's, in order when `ordered`.
fn check(db: &Database, sql: &str, ordered: bool) {
    let want = db.query(sql).unwrap();
    let mut w = rows(&want);
    for parts in [1, 2, 5, 16, 20] {
        let got = split_answer(db, sql, parts);
        assert_eq!(got.schema(), want.schema(), "{sql} in {parts} parts");
        let mut g = rows(&got);
        if !ordered {
            g.sort();
            w.sort();
        }
        assert!(same(&g, &w), "{sql} in {parts} parts:\n{g:?}\nwhole: {w:?}");
    }
}

#[test]
fn aggregates_merge_to_the_whole_answer() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    for sql in [
        "SELECT count(*), count(k), sum(x), avg(x), min(s), max(s), min(d), max(f) FROM t",
        "SELECT count(DISTINCT k), count(DISTINCT g), count(*), sum(k) FROM t",
        "SELECT count(DISTINCT k) FROM t WHERE x > 2000",
        "SELECT count(*), sum(x), avg(f) FROM t WHERE x > 2000",
        "SELECT g, count(*), sum(x), avg(x), min(s), max(d), count(DISTINCT k) FROM t GROUP BY g",
        "SELECT k % 5 AS m, g, count(*) AS c, avg(f) FROM t GROUP BY m, g",
        "SELECT g, count(DISTINCT k) AS u, count(DISTINCT s) FROM t GROUP BY g HAVING count(*) > 100",
        "SELECT DISTINCT g, k % 3 FROM t",
    ] {
        check(&db, sql, false);
    }
    for sql in [
        "SELECT g, count(*) AS c FROM t GROUP BY g ORDER BY c DESC, g LIMIT 3",
        "SELECT k, sum(x) AS s FROM t GROUP BY k ORDER BY s DESC NULLS LAST, k LIMIT 5 OFFSET 2",
        "SELECT sum(x) + count(*) AS y, avg(k) * 2 FROM t",
        "SELECT d, count(*) FROM t GROUP BY d ORDER BY d LIMIT 10",
    ] {
        check(&db, sql, true);
    }
}

#[test]
fn rows_top_rows_and_distinct_merge_to_the_whole_answer() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    for sql in [
        "SELECT k, s FROM t WHERE x < 100",
        "SELECT g, upper(s) AS u FROM t WHERE g IS NULL",
        "SELECT DISTINCT ON (g) g, s FROM t ORDER BY g, s",
    ] {
        check(&db, sql, false);
    }
    for sql in [
        "SELECT s, x FROM t ORDER BY s, x LIMIT 7",
        "SELECT s, x FROM t ORDER BY x DESC NULLS FIRST, s LIMIT 4 OFFSET 3",
        "SELECT * FROM t ORDER BY s DESC, x, k LIMIT 12",
        "SELECT s FROM t WHERE k = 36 ORDER BY s",
    ] {
        check(&db, sql, true);
    }
    // LIMIT without ORDER BY: any rows of the whole answer.
    let all = rows(&db.query("SELECT s, x FROM t WHERE x > 500").unwrap());
    let got = rows(&split_answer(
        &db,
        "SELECT s, x FROM t WHERE x > 500 LIMIT 9",
        5,
    ));
    assert_eq!(got.len(), 9);
    assert!(got.iter().all(|r| all.contains(r)), "{got:?}");
}

#[test]
fn joins_with_a_small_table_are_split() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let split = db
        .split("SELECT name, count(*) FROM t JOIN dim ON t.k = dim.id GROUP BY name")
        .unwrap();
    assert_eq!(split.table(), "t");
    for sql in [
        "SELECT name, count(*), sum(x) FROM t JOIN dim ON t.k = dim.id GROUP BY name",
        "SELECT t.s, dim.name FROM t LEFT JOIN dim ON t.k = dim.id WHERE t.x < 50",
        "SELECT t.s, dim.name FROM dim RIGHT JOIN t ON t.k = dim.id WHERE t.x < 50",
        "SELECT count(*) FROM t WHERE k IN (SELECT id FROM dim WHERE name = 'name1')",
        "SELECT g, count(*) FROM t WHERE NOT EXISTS (SELECT 1 FROM dim WHERE dim.id = t.k) GROUP BY g",
    ] {
        check(&db, sql, false);
    }
}

#[test]
fn what_cannot_be_split_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    for (sql, why) in [
        (
            "SELECT count(*) FROM t a JOIN t b ON a.k = b.k",
            "t is read 2 times",
        ),
        (
            "SELECT count(*) FROM t WHERE x > (SELECT avg(x) FROM t)",
            "is read 2 times",
        ),
        (
            "SELECT * FROM t RIGHT JOIN dim ON t.k = dim.id",
            "RIGHT join with t on the left side",
        ),
        (
            "SELECT * FROM dim FULL JOIN t ON t.k = dim.id",
            "FULL join with t on the right side",
        ),
        ("SELECT k FROM t UNION SELECT id FROM dim", "UNION over t"),
        ("SELECT 1", "reads no stored table"),
        ("EXPLAIN SELECT count(*) FROM t", "EXPLAIN"),
    ] {
        let e = db.split(sql).unwrap_err();
        let text = e.to_string();
        assert!(text.starts_with("cannot be split: "), "{sql}: {text}");
        assert!(text.contains(why), "{sql}: {text}");
        assert!(
            matches!(
                e.engine_error(),
                Some(strata::engine::EngineError::NotSplittable(_))
            ),
            "{sql}: {e:?}"
        );
    }
    // The usual errors come first.
    let e = db.split("SELECT nope FROM t").unwrap_err().to_string();
    assert!(e.contains("\"nope\" not found"), "{e}");
    let e = db.split("SELECT * FROM missing").unwrap_err().to_string();
    assert!(e.contains("missing"), "{e}");
}

#[test]
fn blocks_and_partials_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let sql = "SELECT g, count(*) FROM t GROUP BY g";
    let e = db.partial(sql, &[16]).unwrap_err().to_string();
    assert!(e.contains("no block 16"), "{e}");
    // A partial of another query does not merge.
    let other = db.partial("SELECT s FROM t", &[0]).unwrap();
    let e = db.merge(sql, &[other]).unwrap_err().to_string();
    assert!(e.contains("partial result 0"), "{e}");
    // No partials: the answer over no rows.
    let none = db.merge(sql, &[]).unwrap();
    assert_eq!(none.num_rows(), 0);
    let none = db.merge("SELECT count(*), sum(x) FROM t", &[]).unwrap();
    assert_eq!(rows(&none), vec![vec!["0".to_string(), "NULL".to_string()]]);
}

#[test]
fn partial_results_combine_in_a_tree() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    for sql in [
        "SELECT g, count(*) AS c, avg(x), count(DISTINCT k) FROM t GROUP BY g ORDER BY c DESC, g",
        "SELECT s, x FROM t ORDER BY s, x LIMIT 7",
        "SELECT DISTINCT k FROM t ORDER BY k",
    ] {
        let split = db.split(sql).unwrap();
        let leaves: Vec<Partial> = (0..16).map(|b| split.partial(&[b]).unwrap()).collect();
        let level: Vec<Partial> = leaves
            .chunks(4)
            .map(|c| split.combine(c).unwrap())
            .collect();
        let got = split.merge(&level).unwrap();
        assert!(same(&rows(&got), &rows(&db.query(sql).unwrap())), "{sql}");
    }
}

#[test]
fn explain_shows_both_plans() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let text = db
        .split("SELECT g, avg(x) AS a FROM t GROUP BY g ORDER BY a LIMIT 2")
        .unwrap()
        .explain()
        .unwrap();
    assert!(
        text.contains("Split: 16 blocks of t among tasks; partial results: aggregate states"),
        "{text}"
    );
    assert!(
        text.contains("Partial plan (each task, over its blocks):"),
        "{text}"
    );
    assert!(
        text.contains("Final plan (over the partial results):"),
        "{text}"
    );
    assert!(text.contains("Partials"), "{text}");
    let split = db.split("SELECT s FROM t ORDER BY s LIMIT 3").unwrap();
    assert!(split.combine_kind().contains("first 3 rows in order"));
}

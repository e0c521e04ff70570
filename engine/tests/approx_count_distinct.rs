//! `approx_count_distinct` against the exact count: exact up to 128
//! distinct values, and within 4 standard errors of HyperLogLog with 2^10
//! registers (4 x 1.04 / 32 = 13%) beyond, in both engines (the table
//! engine's sorted vectors and the hash aggregate), on integers and strings,
//! grouped and not. DuckDB's own estimate differs (its sketch is smaller), so
//! the .slt files compare with DuckDB only on inputs where both are exact.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use strata_engine::{Database, Engine, RuleOptions, Value};
use strata_format::types::signed_key;
use strata_format::{ColumnData, DataType, Field, Schema, TableWriter, WriteOptions};

/// Writes table `t(g BIGINT, x BIGINT, s VARCHAR)`: `rows` rows whose `x`
/// cycles through `distinct` values (scattered), `s` its text, `g = x % 3`.
fn write(dir: &std::path::Path, rows: u64, distinct: u64) {
    let schema = Schema::new(vec![
        Field::new("g", DataType::Int64, false),
        Field::new("x", DataType::Int64, false),
        Field::new("s", DataType::String, false),
    ])
    .unwrap();
    let mut w = TableWriter::create(
        &dir.join("t"),
        schema,
        WriteOptions {
            block_rows: 50_000,
            sync: false,
        },
    )
    .unwrap();
    let mut i = 0u64;
    while i < rows {
        let n = (rows - i).min(50_000);
        let mut cols = vec![
            ColumnData::new_for(DataType::Int64),
            ColumnData::new_for(DataType::Int64),
            ColumnData::new_for(DataType::String),
        ];
        for r in i..i + n {
            let x = (r % distinct).wrapping_mul(2_654_435_761) % 1_000_000_007;
            cols[0].push_key(signed_key((x % 3) as i64)).unwrap();
            cols[1].push_key(signed_key(x as i64)).unwrap();
            cols[2].push_str(format!("v{x}").as_bytes()).unwrap();
        }
        w.write_block(cols).unwrap();
        i += n;
    }
    w.finish().unwrap();
}

fn int(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        other => panic!("{other:?}"),
    }
}

#[test]
fn estimates_within_the_stated_bound() {
    let engines = [
        Engine::new(2).unwrap(),
        Engine::new(2).unwrap().with_rules(RuleOptions::none()),
    ];
    for (rows, distinct) in [
        (500, 100),
        (3_000, 128),
        (40_000, 5_000),
        (300_000, 150_000),
    ] {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), rows, distinct);
        let db = Database::new(dir.path());
        for engine in &engines {
            let sql = "SELECT approx_count_distinct(x), count(DISTINCT x), \
                       approx_count_distinct(s), count(DISTINCT s) FROM t";
            let r = engine.query_in(&db, sql).unwrap();
            let get = |c: usize| int(&r.columns[c].values.get(0));
            for (approx, exact) in [(get(0), get(1)), (get(2), get(3))] {
                assert_eq!(exact, distinct as f64);
                if distinct <= 128 {
                    assert_eq!(approx, exact, "{rows} rows");
                } else {
                    let err = (approx - exact).abs() / exact;
                    assert!(err < 0.13, "{approx} for {exact}");
                }
            }
            let sql = "SELECT g, approx_count_distinct(x), count(DISTINCT x) FROM t GROUP BY g";
            let r = engine.query_in(&db, sql).unwrap();
            for i in 0..r.num_rows() {
                let approx = int(&r.columns[1].values.get(i));
                let exact = int(&r.columns[2].values.get(i));
                let err = (approx - exact).abs() / exact;
                assert!(
                    if exact <= 128.0 {
                        err == 0.0
                    } else {
                        err < 0.13
                    },
                    "group {i}: {approx} for {exact}"
                );
            }
        }
    }
}

//! The `strata` library API: opening, querying from several threads, typed
//! columnar access, row iteration and typed errors; and the batch-job
//! example.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use strata::{ColumnValues, DataType, Database, Error, Options, Table, Value};

fn make_db() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("p.csv");
    std::fs::write(
        &csv,
        "id,name,score,big\n1,Ann,1.5,10\n2,,2,20\n3,Cy,0.25,30\n",
    )
    .unwrap();
    common::ingest(&dir.path().join("people"), &csv, &[]);
    dir
}

#[test]
fn database_query_with_typed_columns_and_rows() {
    let dir = make_db();
    let db = Database::open_with(dir.path(), Options::new().threads(2)).unwrap();
    assert_eq!(db.threads(), 2);
    assert_eq!(db.tables().unwrap(), vec!["people".to_string()]);
    let r = db
        .query("SELECT id, name, score FROM people ORDER BY id")
        .unwrap();
    assert_eq!(r.num_rows(), 3);
    assert_eq!(r.num_columns(), 3);
    assert_eq!(r.schema()[0].0, "id");
    assert_eq!(r.schema()[2].1, DataType::Double);
    assert_eq!(r.column(0).as_i64(), Some(&[1, 2, 3][..]));
    assert_eq!(r.column(2).as_f64(), Some(&[1.5, 2.0, 0.25][..]));
    assert!(r.column(0).as_f64().is_none());
    let name = r.column_by_name("name").unwrap();
    assert_eq!(name.data_type(), DataType::Varchar);
    assert_eq!(name.str(0), Some("Ann"));
    assert!(name.is_null(1));
    assert_eq!(name.str(1), None);
    assert_eq!(name.null_count(), 1);
    assert!(matches!(name.values(), ColumnValues::Bytes(v) if v.len() == 3));
    let rows: Vec<Vec<String>> = r.rows().map(|row| row.strings()).collect();
    assert_eq!(rows[1], vec!["2", "NULL", "2"]);
    let second = r.rows().nth(2).unwrap();
    assert_eq!(second.get(1), Some(Value::Str(b"Cy".to_vec())));
    assert_eq!(second.get(9), None);
    let mut csv = Vec::new();
    r.write_csv(&mut csv).unwrap();
    assert_eq!(
        String::from_utf8(csv).unwrap(),
        "id,name,score\n1,Ann,1.5\n2,,2\n3,Cy,0.25\n"
    );
    let table = db.table("people").unwrap();
    assert_eq!(table.num_rows(), 3);
    assert!(db
        .explain("SELECT id FROM people")
        .unwrap()
        .contains("block"));
}

#[test]
fn one_handle_serves_several_threads() {
    let dir = make_db();
    let table = Table::open(dir.path().join("people")).unwrap();
    assert_eq!(table.schema()[0], ("id".to_string(), DataType::Int64));
    let sums: Vec<i128> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..4)
            .map(|i| {
                let table = &table;
                s.spawn(move || {
                    let r = table
                        .query(&format!("SELECT sum(big) + {i} AS s FROM anything"))
                        .unwrap();
                    match r.value(0, 0) {
                        Value::Huge(v) => v,
                        Value::Int(v) => i128::from(v),
                        other => panic!("{other:?}"),
                    }
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(sums, vec![60, 61, 62, 63]);
}

#[test]
fn errors_are_typed() {
    let dir = make_db();
    let db = Database::open(dir.path()).unwrap();
    let e = db
        .query("SELECT id\nFROM people WHERE id = = 1")
        .unwrap_err();
    assert!(matches!(e, Error::Syntax { .. }), "{e:?}");
    assert_eq!(e.position(), Some((2, 24)));
    let e = db.query("SELECT nope FROM people").unwrap_err();
    assert!(
        matches!(
            e.engine_error(),
            Some(strata::engine::EngineError::NotFound { .. })
        ),
        "{e:?}"
    );
    let e = db.query("SELECT * FROM missing").unwrap_err();
    assert!(matches!(e, Error::Query(_)), "{e:?}");
    assert!(matches!(
        Table::open(dir.path().join("missing")).unwrap_err(),
        Error::Data(_)
    ));
    assert!(matches!(
        Database::open(dir.path().join("missing")).unwrap_err(),
        Error::Io { .. }
    ));
}

fn example(name: &str) -> PathBuf {
    let bin = Path::new(env!("CARGO_BIN_EXE_strata"));
    bin.parent().unwrap().join("examples").join(name)
}

#[test]
fn batch_job_example_writes_csv_files() {
    let bin = example("batch_job");
    if !bin.exists() {
        // Examples are built by `cargo test` but not by every test runner.
        eprintln!("skipped: {} not built", bin.display());
        return;
    }
    let dir = make_db();
    let out_dir = dir.path().join("out");
    let out = Command::new(&bin)
        .arg(dir.path().join("people"))
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let read = |f: &str| std::fs::read_to_string(out_dir.join(f)).unwrap();
    assert_eq!(read("count.csv"), "rows\n3\n");
    assert_eq!(read("sample.csv"), "value\n1\n2\n3\n");
    assert_eq!(read("top_values.csv"), "value,c\n1,1\n2,1\n3,1\n");
}

#[test]
fn parameters_fill_placeholders() {
    let dir = tempfile::tempdir().unwrap();
    let db = strata::Database::open(dir.path()).unwrap();
    let r = db
        .query_params(
            "SELECT ? + 1 AS a, $2 AS b",
            &[strata::Value::Int(41), strata::Value::Str(b"x".to_vec())],
        )
        .unwrap_err();
    // Mixing ? and $n is refused; each form alone works.
    assert!(r.to_string().contains("mix"), "{r}");
    let r = db
        .query_params(
            "SELECT ? + 1 AS a, ? AS b",
            &[strata::Value::Int(41), strata::Value::Null],
        )
        .unwrap();
    assert_eq!(r.value(0, 0), strata::Value::Int(42));
    assert_eq!(r.value(0, 1), strata::Value::Null);
    let e = db.query_params("SELECT ?", &[]).unwrap_err();
    assert!(e.to_string().contains("parameter 1"), "{e}");
}

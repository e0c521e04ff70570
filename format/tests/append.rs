//! Appends: one at a time, and never blocked by what a killed one left.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use strata_format::{
    verify_table, ColumnData, DataType, Field, Schema, Table, TableWriter, WriteOptions,
};

const OPTIONS: WriteOptions = WriteOptions {
    block_rows: 10,
    sync: false,
};

fn block(from: u64) -> Vec<ColumnData> {
    let mut c = ColumnData::new_fixed();
    for k in from..from + 10 {
        c.push_key(k).unwrap();
    }
    vec![c]
}

fn table(dir: &Path) -> PathBuf {
    let path = dir.join("t");
    let schema = Schema::new(vec![Field::new("k", DataType::UInt64, false)]).unwrap();
    let mut w = TableWriter::create(&path, schema, OPTIONS).unwrap();
    w.write_block(block(0)).unwrap();
    w.finish().unwrap();
    path
}

fn append_one(path: &Path, from: u64) {
    let mut w = TableWriter::append(path, OPTIONS).unwrap();
    w.write_block(block(from)).unwrap();
    w.finish().unwrap();
}

fn names(path: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(path)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn one_append_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let path = table(dir.path());
    let first = TableWriter::append(&path, OPTIONS).unwrap();
    let err = TableWriter::append(&path, OPTIONS).unwrap_err().to_string();
    assert!(err.contains("another append"), "{err}");
    drop(first);
    append_one(&path, 10);
    assert_eq!(Table::open(&path).unwrap().num_rows(), 20);
    assert_eq!(names(&path), ["MANIFEST", "b00000000.blk", "b00000001.blk"]);
}

#[test]
fn a_killed_appends_leftovers_are_removed_by_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let path = table(dir.path());
    // What a killed append leaves: the lock file (nobody holds its lock),
    // its next block file, a block file after it, and its manifest.
    std::fs::write(path.join("APPEND.lock"), "").unwrap();
    std::fs::write(path.join("b00000001.blk"), "half a block").unwrap();
    std::fs::write(path.join("b00000002.blk"), "").unwrap();
    std::fs::write(path.join("MANIFEST.tmp-4242"), "half a manifest").unwrap();
    // Not the table's: kept.
    std::fs::write(path.join("notes.txt"), "mine").unwrap();
    append_one(&path, 10);
    let t = Table::open(&path).unwrap();
    assert_eq!(t.num_rows(), 20);
    assert_eq!(
        names(&path),
        ["MANIFEST", "b00000000.blk", "b00000001.blk", "notes.txt"]
    );
    let report = verify_table(&path).unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(report.stray_files, ["notes.txt"]);
}

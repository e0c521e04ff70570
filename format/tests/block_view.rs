//! A view of some of a table's blocks (`Table::with_blocks`): its blocks,
//! rows and statistics are those of the blocks chosen, read from the same
//! files.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use strata_format::{ColumnData, DataType, Field, Schema, Table, TableWriter, WriteOptions};

/// A table of 5 blocks of 10 rows: block `b` holds keys `100 b .. 100 b + 9`.
fn five_blocks(dir: &std::path::Path) -> Table {
    let path = dir.join("t");
    let schema = Schema::new(vec![Field::new("k", DataType::UInt64, false)]).unwrap();
    let options = WriteOptions {
        block_rows: 10,
        sync: false,
    };
    let mut w = TableWriter::create(&path, schema, options).unwrap();
    for b in 0..5u64 {
        let mut c = ColumnData::new_fixed();
        for k in 100 * b..100 * b + 10 {
            c.push_key(k).unwrap();
        }
        w.write_block(vec![c]).unwrap();
    }
    w.finish().unwrap();
    Table::open(&path).unwrap()
}

fn keys(t: &Table, block: usize) -> Vec<u64> {
    t.chunk(block, 0).unwrap().keys().unwrap().to_vec()
}

#[test]
fn a_view_has_the_blocks_chosen_in_that_order() {
    let dir = tempfile::tempdir().unwrap();
    let t = five_blocks(dir.path());
    assert_eq!(t.subset(), None);
    let v = t.with_blocks(&[3, 1]).unwrap();
    assert_eq!(v.num_blocks(), 2);
    assert_eq!(v.num_rows(), 20);
    assert_eq!(keys(&v, 0), keys(&t, 3));
    assert_eq!(keys(&v, 1), keys(&t, 1));
    assert_eq!(v.stats(0, 0).min, 300);
    assert_eq!(v.block_path(1), t.block_path(1));
    assert_eq!(v.subset(), Some((&[3usize, 1][..], 5)));
    // A view of a view numbers blocks in the view, and remembers the table's.
    let w = v.with_blocks(&[1]).unwrap();
    assert_eq!(keys(&w, 0), keys(&t, 1));
    assert_eq!(w.subset(), Some((&[1usize][..], 5)));
    let none = t.with_blocks(&[]).unwrap();
    assert_eq!((none.num_blocks(), none.num_rows()), (0, 0));
}

#[test]
fn blocks_out_of_range_or_repeated_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let t = five_blocks(dir.path());
    let e = t.with_blocks(&[5]).unwrap_err().to_string();
    assert!(e.contains("no block 5") && e.contains("5 blocks"), "{e}");
    let e = t.with_blocks(&[2, 2]).unwrap_err().to_string();
    assert!(e.contains("block 2 is listed twice"), "{e}");
}

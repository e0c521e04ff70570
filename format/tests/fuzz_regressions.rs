//! Replays inputs kept from fuzzing (`fuzz/regressions/`): each replaces one
//! file of the golden table, exactly as the `read_table` fuzz target does,
//! and reading it must return errors or values, never panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

const FILES: [&str; 4] = [
    "MANIFEST",
    "b00000000.blk",
    "b00000001.blk",
    "b00000002.blk",
];

/// This crate's directory: cargo's runtime variable, so a test binary built
/// in another checkout sharing the build directory reads this checkout's files.
fn manifest_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| env!("CARGO_MANIFEST_DIR").into(), Into::into)
}

fn replay(data: &[u8]) {
    let Some((&which, content)) = data.split_first() else {
        return;
    };
    let golden = manifest_dir().join("tests/golden/v1");
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t");
    std::fs::create_dir(&table).unwrap();
    for f in FILES {
        std::fs::copy(golden.join(f), table.join(f)).unwrap();
    }
    std::fs::write(table.join(FILES[usize::from(which) % FILES.len()]), content).unwrap();
    if let Ok(t) = strata_format::Table::open(&table) {
        for b in 0..t.num_blocks() {
            for c in 0..t.schema().len() {
                if let Ok(chunk) = t.chunk(b, c) {
                    let _ = chunk.row_values();
                    if let Ok(d) = chunk.dictionary() {
                        let _ = d.blocks_with_trigram(0x1fffff);
                    }
                }
            }
        }
    }
    let _ = strata_format::verify_table(&table);
}

#[test]
fn kept_fuzz_inputs_do_not_panic() {
    let dir = manifest_dir().join("../fuzz/regressions");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        replay(&std::fs::read(&path).unwrap());
        n += 1;
    }
    assert!(n > 0, "no inputs in {}", dir.display());
}

//! Replays inputs kept from fuzzing (`fuzz/regressions/`): each replaces one
//! file of the golden table, exactly as the `read_table` fuzz target does,
//! and reading it must return errors or values, never panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

const FILES: [&str; 4] = [
    "MANIFEST",
    "b00000000.blk",
    "b00000001.blk",
    "b00000002.blk",
];

fn replay(data: &[u8]) {
    let Some((&which, content)) = data.split_first() else {
        return;
    };
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/v1");
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
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        replay(&std::fs::read(&path).unwrap());
        n += 1;
    }
    assert!(n > 0, "no inputs in {}", dir.display());
}

//! Feeds arbitrary bytes to the reader as one file of a table.
//!
//! The table is a committed golden table; the first input byte picks which
//! ([`TABLES`] by the byte shifted right by 2) and which of its files
//! (manifest or a block file: bits 0-1) is replaced by the rest of the input. Opening, reading every chunk
//! and verifying must never panic.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

const FILES: [&str; 4] = [
    "MANIFEST",
    "b00000000.blk",
    "b00000001.blk",
    "b00000002.blk",
];

/// The golden tables; those ending in `-row-codes` have one block.
const TABLES: [&str; 6] = ["v1", "v2", "v3", "v3-row-codes", "v4", "v4-row-codes"];

fuzz_target!(|data: &[u8]| {
    let Some((&which, content)) = data.split_first() else {
        return;
    };
    let version = TABLES[usize::from(which >> 2) % TABLES.len()];
    let files = if version.ends_with("-row-codes") {
        &FILES[..2]
    } else {
        &FILES[..]
    };
    let golden = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../format/tests/golden")
        .join(version);
    let Ok(dir) = tempfile::tempdir() else { return };
    let table = dir.path().join("t");
    if std::fs::create_dir(&table).is_err() {
        return;
    }
    for f in files {
        if std::fs::copy(golden.join(f), table.join(f)).is_err() {
            return;
        }
    }
    let target = files[usize::from(which) % files.len()];
    if std::fs::write(table.join(target), content).is_err() {
        return;
    }
    if let Ok(t) = strata_format::Table::open(&table) {
        for b in 0..t.num_blocks() {
            for c in 0..t.schema().len() {
                if let Ok(chunk) = t.chunk(b, c) {
                    let _ = chunk.row_values();
                    if let Ok(d) = chunk.dictionary() {
                        for k in [0u32, 1 << 20, 0x1fffff] {
                            let _ = d.blocks_with_trigram(k);
                        }
                    }
                }
            }
        }
    }
    let _ = strata_format::verify_table(&table);
});

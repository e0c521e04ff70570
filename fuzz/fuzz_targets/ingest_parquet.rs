//! Feeds arbitrary bytes to the Parquet ingest as one input file.
//!
//! The input is the file; its length picks the block size and the bad-row
//! allowance (so the fixtures in `ingest/tests/data` are seeds as they
//! are). Reading it into a table must give a table or an error, never a
//! panic that reaches the caller.
//!
//! The ingest turns panics of the `parquet` crate on damaged data into
//! errors (`catch_unwind`); libfuzzer-sys's panic hook would abort at the
//! panic, before that, so `init` puts back a hook that only prints. A panic
//! nothing catches still ends in libfuzzer-sys's abort, and is a crash.
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_ingest::IngestOptions;

fuzz_target!(
    init: {
        std::panic::set_hook(Box::new(|info| eprintln!("{info}")));
    },
    |data: &[u8]| {
        let knobs = data.len();
        let Ok(dir) = tempfile::tempdir() else { return };
        let input = dir.path().join("in.parquet");
        if std::fs::write(&input, data).is_err() {
            return;
        }
        let options = IngestOptions {
            block_rows: [1, 7, 500, 4096][knobs & 3],
            max_errors: if knobs & 4 == 0 { 0 } else { u64::MAX },
            threads: 1,
            sync: false,
            ..IngestOptions::default()
        };
        let inputs = [input.to_string_lossy().into_owned()];
        let _ = strata_ingest::run(&inputs, &dir.path().join("t"), &options, &mut |_| {});
    }
);

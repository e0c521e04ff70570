//! Feeds arbitrary bytes to the decoder of compressed values sections
//! (format version 3), past the checksums that keep damaged files away from
//! it in a table.
//!
//! Input: a width byte, a raw length (u16), then the stored section.
//! Decoding must return an error or fill exactly the raw length, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_format::delta_planes::decompress_into;

fuzz_target!(|data: &[u8]| {
    let Some((head, stored)) = data.split_at_checked(3) else {
        return;
    };
    let width = [1, 2, 3, 4, 8, 16, 5][usize::from(head[0]) % 7];
    let raw_len = usize::from(u16::from_le_bytes([head[1], head[2]]));
    let mut out = vec![0u8; raw_len];
    let _ = decompress_into(stored, width, &mut out);
});

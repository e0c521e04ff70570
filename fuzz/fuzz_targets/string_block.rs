//! Feeds arbitrary bytes to the string block decoders, past the checksums
//! that keep damaged files away from them in a table.
//!
//! Input: a codec byte, a raw length (u16), a dictionary length (u16), then
//! the dictionary and the stored block. Decompressing and decoding must
//! return errors or strings, never panic, and never more bytes than the raw
//! length.
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_format::strings::{decode_block, decompress_block};

fuzz_target!(|data: &[u8]| {
    let Some((head, rest)) = data.split_at_checked(5) else {
        return;
    };
    let codec = head[0] % 3;
    let raw_len = usize::from(u16::from_le_bytes([head[1], head[2]]));
    let dict_len = usize::from(u16::from_le_bytes([head[3], head[4]])).min(rest.len());
    let (dict, stored) = rest.split_at(dict_len);
    let mut raw = Vec::new();
    if decompress_block(codec, dict, stored, raw_len, &mut raw).is_ok() {
        assert_eq!(raw.len(), raw_len);
        let (mut bytes, mut ends) = (Vec::new(), Vec::new());
        for count in [1, 128] {
            let _ = decode_block(&raw, count, &mut bytes, &mut ends);
        }
    }
});

//! Feeds arbitrary bytes to the decoders of the format's own section forms
//! (versions 3 and 4), compressed values and row codes, past the checksums
//! that keep damaged files away from them in a table.
//!
//! Input: a mode and width byte (bit 7: row codes, bit 6: as differences),
//! a length (u16), then the stored section.
//! Decoding must return an error or fill exactly the asked length, never
//! panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_format::row_codes::CodeForm;
use strata_format::{delta_planes, row_codes};

fuzz_target!(|data: &[u8]| {
    let Some((head, stored)) = data.split_at_checked(3) else {
        return;
    };
    let len = usize::from(u16::from_le_bytes([head[1], head[2]]));
    if head[0] & 0x80 == 0 {
        let width = [1, 2, 3, 4, 8, 16, 5][usize::from(head[0]) % 7];
        let mut out = vec![0u8; len];
        let _ = delta_planes::decompress_into(stored, width, &mut out);
    } else {
        let width = usize::from(head[0] & 7);
        let form = if head[0] & 0x40 != 0 {
            CodeForm::Deltas
        } else {
            CodeForm::Plain
        };
        let mut codes = Vec::new();
        if row_codes::decompress(stored, width, len, form, &mut codes).is_ok() {
            assert_eq!(codes.len(), len);
        }
    }
});

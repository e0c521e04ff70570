//! Bit-packed row codes (format version 6, SPEC.md 5.6): every row's value
//! index in row order, `bits` bits each, least significant bit first, read
//! in place from the mapped block file.
//!
//! Unlike the other forms of a chunk's rows, these need no decoding before
//! use: the code of row `r` is one unaligned 8-byte load, a shift and a
//! mask, so a process that reads a few rows of many columns (`SELECT * ...
//! LIMIT`) touches a few bytes per column instead of decompressing every
//! chunk, and a full pass unpacks at memory speed. The section ends with a
//! zero 8-byte word, so a load for any row stays inside it.

/// The bit width of the packed codes of a chunk: value indexes
/// `0..distinct`, and `distinct` itself for NULL rows when there are any;
/// at least 1.
pub fn bits(distinct: usize, has_nulls: bool) -> u32 {
    let max = (distinct + usize::from(has_nulls)).saturating_sub(1) as u64;
    (64 - max.leading_zeros()).max(1)
}

/// Bytes of `rows` codes of `bits` bits: whole 8-byte words, plus the zero
/// word that ends every packed section.
pub fn packed_len(rows: usize, bits: u32) -> usize {
    (rows * bits as usize).div_ceil(64) * 8 + 8
}

/// `codes` (each below `2^bits`) packed as [`packed_len`] bytes.
pub fn pack(codes: &[u32], bits: u32) -> Vec<u8> {
    let words = packed_len(codes.len(), bits) / 8;
    let mut out = vec![0u64; words];
    let mut at = 0usize;
    for &c in codes {
        let (w, s) = (at / 64, (at % 64) as u32);
        let c = u64::from(c);
        out[w] |= c << s;
        if s + bits > 64 {
            out[w + 1] |= c >> (64 - s);
        }
        at += bits as usize;
    }
    out.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Packed codes checked to have the length their row count and width need.
#[derive(Debug, Clone, Copy)]
pub struct Packed<'a> {
    bytes: &'a [u8],
    bits: u32,
    rows: usize,
}

impl<'a> Packed<'a> {
    /// `bytes` as `rows` codes of `bits` bits (1 to 32), or an error if the
    /// length is not [`packed_len`].
    pub fn new(bytes: &'a [u8], bits: u32, rows: usize) -> Result<Packed<'a>, String> {
        if !(1..=32).contains(&bits) {
            return Err(format!("packed codes of {bits} bits"));
        }
        if bytes.len() != packed_len(rows, bits) {
            return Err(format!(
                "{} bytes of packed codes where {rows} rows of {bits} bits take {}",
                bytes.len(),
                packed_len(rows, bits)
            ));
        }
        Ok(Packed { bytes, bits, rows })
    }

    /// Number of codes.
    pub fn len(&self) -> usize {
        self.rows
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// The width in bits.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// The code of row `r` (`r < len`; later rows read the zero padding).
    #[inline]
    pub fn get(&self, r: usize) -> u32 {
        let at = r * self.bits as usize;
        let byte = at / 8;
        // The final zero word keeps `byte + 8` within the section for every
        // row below `len` (see `packed_len`).
        let word = match self.bytes.get(byte..byte + 8) {
            Some(b) => u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
            None => 0,
        };
        ((word >> (at % 8)) & ((1u64 << self.bits) - 1)) as u32
    }

    /// Every code, in row order, into `out`.
    ///
    /// Codes are unpacked 64 at a time: 64 codes of `bits` bits fill
    /// exactly `bits` words, so each group is a fixed pattern of shifts
    /// that [`unpack_group`] compiles once per width.
    pub fn unpack_into(&self, out: &mut Vec<u32>) {
        out.clear();
        out.reserve(self.rows);
        let bits = self.bits as usize;
        let groups = self.rows / 64;
        let unpack = GROUP_UNPACKERS[bits - 1];
        let mut words = [0u64; 32];
        let mut codes = [0u32; 64];
        for group in self.bytes.chunks_exact(bits * 8).take(groups) {
            for (w, b) in words.iter_mut().zip(group.chunks_exact(8)) {
                *w = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
            }
            unpack(&words, &mut codes);
            out.extend_from_slice(&codes);
        }
        out.extend((groups * 64..self.rows).map(|r| self.get(r)));
    }

    /// Whether every bit after the last code is zero.
    pub fn padding_is_zero(&self) -> bool {
        let used = self.rows * self.bits as usize;
        let (byte, bit) = (used / 8, used % 8);
        let partial = match self.bytes.get(byte) {
            Some(&b) if bit > 0 => b >> bit == 0,
            _ => true,
        };
        let tail = if bit > 0 { byte + 1 } else { byte };
        partial
            && self.bytes[tail.min(self.bytes.len())..]
                .iter()
                .all(|&b| b == 0)
    }
}

/// Unpacks one group of 64 codes of `B` bits from its `B` words.
type GroupUnpacker = fn(&[u64; 32], &mut [u32; 64]);

/// The 64 codes of `B` bits held by `words[..B]`, least significant bit
/// first. With `B` a constant every shift and word index is one too.
#[inline(always)]
fn unpack_group<const B: usize>(words: &[u64; 32], out: &mut [u32; 64]) {
    let mask = if B == 32 {
        u64::from(u32::MAX)
    } else {
        (1u64 << B) - 1
    };
    for (i, o) in out.iter_mut().enumerate() {
        let bit = i * B;
        let (w, s) = (bit / 64, bit % 64);
        let mut v = words[w] >> s;
        if s + B > 64 {
            v |= words[w + 1] << (64 - s);
        }
        *o = (v & mask) as u32;
    }
}

macro_rules! unpackers {
    ($($b:literal)*) => { [$(unpack_group::<$b> as GroupUnpacker),*] };
}

/// [`unpack_group`] for widths 1 to 32, at index `width - 1`.
const GROUP_UNPACKERS: [GroupUnpacker; 32] = unpackers!(
    1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn widths_cover_the_null_code() {
        assert_eq!(bits(1, false), 1);
        assert_eq!(bits(2, false), 1);
        assert_eq!(bits(2, true), 2);
        assert_eq!(bits(256, false), 8);
        assert_eq!(bits(256, true), 9);
        assert_eq!(bits(1 << 19, false), 19);
        assert_eq!(bits(0, true), 1);
    }

    #[test]
    fn lengths_are_whole_words_and_a_zero_word() {
        assert_eq!(packed_len(0, 5), 8);
        assert_eq!(packed_len(1, 5), 16);
        assert_eq!(packed_len(64, 1), 16);
        assert_eq!(packed_len(65, 1), 24);
        let p = pack(&[3, 1, 2], 2);
        assert_eq!(p.len(), 16);
        assert_eq!(p[0], 0b10_01_11);
        assert!(Packed::new(&p, 2, 3).unwrap().padding_is_zero());
        assert!(Packed::new(&p, 2, 4).is_ok());
        assert!(Packed::new(&p, 2, 200).is_err());
        assert!(Packed::new(&p, 0, 3).is_err());
        assert!(Packed::new(&p, 33, 3).is_err());
        let mut q = p.clone();
        q[1] = 1;
        assert!(!Packed::new(&q, 2, 3).unwrap().padding_is_zero());
        q[1] = 0;
        q[0] |= 0x80;
        assert!(!Packed::new(&q, 2, 3).unwrap().padding_is_zero());
    }

    proptest! {
        #[test]
        fn codes_round_trip(bits in 1u32..=32, codes in prop::collection::vec(any::<u32>(), 0..700)) {
            let mask = if bits == 32 { u32::MAX } else { (1 << bits) - 1 };
            let codes: Vec<u32> = codes.into_iter().map(|c| c & mask).collect();
            let bytes = pack(&codes, bits);
            let p = Packed::new(&bytes, bits, codes.len()).unwrap();
            prop_assert!(p.padding_is_zero());
            let mut out = Vec::new();
            p.unpack_into(&mut out);
            prop_assert_eq!(&out, &codes);
            for (r, &c) in codes.iter().enumerate() {
                prop_assert_eq!(p.get(r), c);
            }
        }
    }
}

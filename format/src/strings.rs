//! The string dictionary of a string column chunk: the distinct strings in
//! byte order, in blocks of 128 that are prefix-coded and then LZ4-compressed
//! where that pays, their lengths, and an ASCII trigram index from trigram to
//! string blocks.

use crate::layout::STRINGS_PER_BLOCK;
use crate::{packed, varint};

/// The encoded sections of a dictionary.
pub(crate) struct Dictionary {
    pub dir: Vec<u8>,
    pub data: Vec<u8>,
    pub lens: Vec<u8>,
    pub len_width: u8,
    pub blocks: u32,
    pub trigrams: u32,
    pub trigram_keys: Vec<u8>,
    pub trigram_postings: Vec<u8>,
}

/// Encodes `sorted` (distinct strings in ascending byte order), with string
/// blocks LZ4-compressed where that pays if `compress`.
pub(crate) fn encode_dictionary(sorted: &[&[u8]], compress: bool) -> Dictionary {
    let max_len = sorted.iter().map(|s| s.len()).max().unwrap_or(0);
    let len_width = packed::width_for(max_len as u64).min(4);
    let mut lens = Vec::with_capacity(sorted.len() * len_width as usize);
    for s in sorted {
        packed::put(&mut lens, s.len() as u64, len_width);
    }
    let mut dir = Vec::new();
    let mut data = Vec::new();
    let mut raw = Vec::new();
    let mut pairs: Vec<u64> = Vec::new();
    let mut block_trigrams: Vec<u32> = Vec::new();
    for (b, chunk) in sorted.chunks(STRINGS_PER_BLOCK).enumerate() {
        raw.clear();
        block_trigrams.clear();
        let mut prev: &[u8] = &[];
        for s in chunk {
            let shared = common_prefix(prev, s);
            varint::put(&mut raw, shared as u64);
            varint::put(&mut raw, (s.len() - shared) as u64);
            raw.extend_from_slice(&s[shared..]);
            prev = s;
            for_each_trigram(s, |t| block_trigrams.push(t));
        }
        block_trigrams.sort_unstable();
        block_trigrams.dedup();
        pairs.extend(
            block_trigrams
                .iter()
                .map(|&t| (u64::from(t) << 32) | b as u64),
        );
        let offset = data.len() as u64;
        let compressed = compress
            .then(|| lz4_flex::block::compress(&raw))
            .filter(|c| c.len() < raw.len());
        let stored: &[u8] = compressed.as_deref().unwrap_or(&raw);
        data.extend_from_slice(stored);
        dir.extend_from_slice(&offset.to_le_bytes());
        dir.extend_from_slice(&(stored.len() as u32).to_le_bytes());
        dir.extend_from_slice(&(raw.len() as u32).to_le_bytes());
    }
    pairs.sort_unstable();
    let mut trigram_keys = Vec::new();
    let mut trigram_postings = Vec::new();
    let mut trigrams = 0u32;
    let mut i = 0;
    while i < pairs.len() {
        let t = (pairs[i] >> 32) as u32;
        trigram_keys.extend_from_slice(&t.to_le_bytes());
        trigram_keys.extend_from_slice(&(trigram_postings.len() as u32).to_le_bytes());
        trigrams += 1;
        let mut prev = 0u64;
        while i < pairs.len() && (pairs[i] >> 32) as u32 == t {
            let block = pairs[i] & 0xffff_ffff;
            varint::put(&mut trigram_postings, block - prev);
            prev = block;
            i += 1;
        }
    }
    if trigrams > 0 {
        // Sentinel: the end of the last postings list.
        trigram_keys.extend_from_slice(&u32::MAX.to_le_bytes());
        trigram_keys.extend_from_slice(&(trigram_postings.len() as u32).to_le_bytes());
    }
    Dictionary {
        dir,
        data,
        lens,
        len_width,
        blocks: sorted.len().div_ceil(STRINGS_PER_BLOCK) as u32,
        trigrams,
        trigram_keys,
        trigram_postings,
    }
}

/// The trigram key of three ASCII bytes, after folding `A-Z` to `a-z`:
/// `b0 << 14 | b1 << 7 | b2`; `None` if any byte is not ASCII.
#[inline]
pub fn trigram_key(t: [u8; 3]) -> Option<u32> {
    if t.iter().any(|&b| b >= 0x80) {
        return None;
    }
    let [a, b, c] = t.map(|x| u32::from(x.to_ascii_lowercase()));
    Some((a << 14) | (b << 7) | c)
}

/// Calls `f` with the key of every ASCII trigram of `s` (with repeats).
#[inline]
pub fn for_each_trigram(s: &[u8], mut f: impl FnMut(u32)) {
    // A rolling key of the last three bytes; `ascii` counts the ASCII bytes
    // that end the window (a trigram needs three).
    let mut key = 0u32;
    let mut ascii = 0u32;
    for &b in s {
        if b >= 0x80 {
            ascii = 0;
            continue;
        }
        key = ((key << 7) | u32::from(b.to_ascii_lowercase())) & ((1 << 21) - 1);
        ascii += 1;
        if ascii >= 3 {
            f(key);
        }
    }
}

/// The length of the common prefix of `a` and `b`, compared 8 bytes at a time.
#[inline]
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while let (Some(x), Some(y)) = (a.get(i..i + 8), b.get(i..i + 8)) {
        let diff = u64::from_le_bytes(word(x)) ^ u64::from_le_bytes(word(y));
        if diff != 0 {
            return i + (diff.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// The first 8 bytes of `s` (which has at least 8).
#[inline]
fn word(s: &[u8]) -> [u8; 8] {
    let mut w = [0u8; 8];
    w.copy_from_slice(&s[..8]);
    w
}

/// Why a string block could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StringBlockError(pub String);

/// Decodes the prefix coding of one raw (decompressed) string block holding
/// `count` strings into `bytes` (concatenated) and `ends` (end offset of each
/// string in `bytes`). Both are cleared first.
pub fn decode_block(
    raw: &[u8],
    count: usize,
    bytes: &mut Vec<u8>,
    ends: &mut Vec<usize>,
) -> Result<(), StringBlockError> {
    bytes.clear();
    ends.clear();
    let mut pos = 0;
    let mut prev_start = 0usize;
    for i in 0..count {
        let err = |what: &str| StringBlockError(format!("string {i}: {what}"));
        let shared = varint::get(raw, &mut pos).ok_or_else(|| err("truncated prefix length"))?;
        let suffix = varint::get(raw, &mut pos).ok_or_else(|| err("truncated suffix length"))?;
        let prev_len = bytes.len() - prev_start;
        if shared > prev_len as u64 {
            return Err(err("shares more bytes than the previous string has"));
        }
        let suffix_end = (pos as u64)
            .checked_add(suffix)
            .filter(|&e| e <= raw.len() as u64)
            .ok_or_else(|| err("suffix runs past the block"))? as usize;
        let start = bytes.len();
        bytes.extend_from_within(prev_start..prev_start + shared as usize);
        bytes.extend_from_slice(&raw[pos..suffix_end]);
        pos = suffix_end;
        prev_start = start;
        ends.push(bytes.len());
    }
    if pos != raw.len() {
        return Err(StringBlockError(format!(
            "{} bytes left over after {count} strings",
            raw.len() - pos
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_round_trip() {
        let mut strings: Vec<Vec<u8>> = (0..300)
            .map(|i| format!("https://example.com/page/{i}").into_bytes())
            .collect();
        strings.push(Vec::new());
        strings.push(vec![0xff, 0xfe, b'\n']);
        strings.sort();
        let refs: Vec<&[u8]> = strings.iter().map(|s| s.as_slice()).collect();
        for compress in [true, false] {
            let d = encode_dictionary(&refs, compress);
            assert_eq!(d.blocks, 3);
            let all = decode_all(&d, strings.len());
            assert_eq!(all, strings);
            // The URLs share long prefixes; LZ4 finds the rest repetitive.
            let raw =
                (0..3).all(|b| d.dir[b * 16 + 8..b * 16 + 12] == d.dir[b * 16 + 12..b * 16 + 16]);
            assert_eq!(raw, !compress);
        }
    }

    /// Every string of a dictionary's blocks, in order.
    fn decode_all(d: &Dictionary, strings: usize) -> Vec<Vec<u8>> {
        let mut all = Vec::new();
        for b in 0..d.blocks as usize {
            let e = &d.dir[b * 16..b * 16 + 16];
            let off = u64::from_le_bytes(e[..8].try_into().unwrap()) as usize;
            let stored = u32::from_le_bytes(e[8..12].try_into().unwrap()) as usize;
            let raw_len = u32::from_le_bytes(e[12..16].try_into().unwrap()) as usize;
            let stored_bytes = &d.data[off..off + stored];
            let raw = if stored == raw_len {
                stored_bytes.to_vec()
            } else {
                lz4_flex::block::decompress(stored_bytes, raw_len).unwrap()
            };
            let count = (strings - b * 128).min(128);
            let (mut bytes, mut ends) = (Vec::new(), Vec::new());
            decode_block(&raw, count, &mut bytes, &mut ends).unwrap();
            let mut start = 0;
            for e in ends {
                all.push(bytes[start..e].to_vec());
                start = e;
            }
        }
        all
    }

    #[test]
    fn rolling_trigrams_and_prefixes_match_the_definitions() {
        let samples: [&[u8]; 7] = [
            b"",
            b"ab",
            b"abc",
            b"Hello, World",
            "поиск abc дом Xyz".as_bytes(),
            b"a\x80bcd\xffEFG",
            b"0123456789abcdef0123",
        ];
        for s in samples {
            let mut got = Vec::new();
            for_each_trigram(s, |t| got.push(t));
            let want: Vec<u32> = s
                .windows(3)
                .filter_map(|w| trigram_key([w[0], w[1], w[2]]))
                .collect();
            assert_eq!(got, want, "{s:?}");
            for t in samples {
                let want = s.iter().zip(t).take_while(|(a, b)| a == b).count();
                assert_eq!(common_prefix(s, t), want, "{s:?} {t:?}");
            }
        }
        for cut in 0..20 {
            let a = b"0123456789abcdefghij";
            let mut b = *a;
            b[cut] = b'*';
            assert_eq!(common_prefix(a, &b), cut);
            assert_eq!(common_prefix(&a[..cut], a), cut);
        }
    }

    #[test]
    fn trigrams_fold_ascii_case_only() {
        assert_eq!(trigram_key(*b"GOO"), trigram_key(*b"goo"));
        assert_eq!(trigram_key([b'a', 0xd0, b'b']), None);
        let mut n = 0;
        for_each_trigram(b"ab", |_| n += 1);
        assert_eq!(n, 0);
        for_each_trigram(b"abcd", |_| n += 1);
        assert_eq!(n, 2);
    }

    #[test]
    fn corrupt_blocks_are_errors() {
        let (mut b, mut e) = (Vec::new(), Vec::new());
        assert!(decode_block(&[5, 1, b'a'], 1, &mut b, &mut e).is_err());
        assert!(decode_block(&[0, 9, b'a'], 1, &mut b, &mut e).is_err());
        assert!(decode_block(&[0, 1, b'a', 0], 1, &mut b, &mut e).is_err());
        assert!(decode_block(&[0, 1, b'a'], 2, &mut b, &mut e).is_err());
    }
}

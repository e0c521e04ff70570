//! The string dictionary of a string column chunk: the distinct strings in
//! byte order, in blocks of 128 that are prefix-coded and then compressed
//! (zstd or LZ4) where that pays, their lengths, and an ASCII trigram index
//! from trigram to string blocks.

use crate::layout::STRINGS_PER_BLOCK;
use crate::{packed, varint, zstd_frames};

/// How the writer compresses string blocks (SPEC 5.2) and sections (SPEC 5).
/// Readers take any.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compression {
    /// String blocks stored raw, sections LZ4 where that pays: the fastest
    /// to build and to read strings from, the largest.
    Raw,
    /// LZ4 where it pays, for string blocks and sections (format version
    /// 1's only codec).
    Lz4,
    /// zstd where it pays: string blocks, with a dictionary sampled from the
    /// chunk's own blocks when the chunk has enough strings to pay for one
    /// (about 45% fewer bytes than LZ4 on URLs and titles), every
    /// compressible section but the row lists, which stay LZ4 or become row
    /// codes (version 3), and sorted values (version 3).
    #[default]
    Zstd,
}

/// The `str_codec` byte of a chunk entry whose compressed string blocks are
/// LZ4 (also every chunk of format version 1).
pub const STR_CODEC_LZ4: u8 = 0;
/// The `str_codec` byte of a chunk entry whose compressed string blocks are
/// zstd frames.
pub const STR_CODEC_ZSTD: u8 = 1;

/// A chunk gets a zstd dictionary when its raw string blocks total at least
/// this many bytes...
const DICT_MIN_RAW: usize = 128 << 10;
/// ...of a sixteenth of those bytes, at most this many.
const DICT_MAX_LEN: usize = 32 << 10;

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
    /// [`STR_CODEC_LZ4`] or [`STR_CODEC_ZSTD`].
    pub codec: u8,
    /// Bytes of zstd dictionary at the start of `data` (0 for none).
    pub dict_len: u16,
}

/// Encodes `sorted` (distinct strings in ascending byte order), with string
/// blocks compressed as `compression` says.
pub(crate) fn encode_dictionary(sorted: &[&[u8]], compression: Compression) -> Dictionary {
    let max_len = sorted.iter().map(|s| s.len()).max().unwrap_or(0);
    let len_width = packed::width_for(max_len as u64).min(4);
    let mut lens = Vec::with_capacity(sorted.len() * len_width as usize);
    let mut total_len = 0;
    for s in sorted {
        packed::put(&mut lens, s.len() as u64, len_width);
        total_len += s.len();
    }
    // The raw (prefix-coded) blocks, back to back: `raw[ends[b - 1]..ends[b]]`.
    // Prefix coding keeps them about as long as the strings (a guess to
    // save regrowing, not a bound).
    let mut raw = Vec::with_capacity(total_len + 2 * sorted.len());
    let mut ends = Vec::with_capacity(sorted.len().div_ceil(STRINGS_PER_BLOCK));
    // `(trigram << 32) | block` for each trigram of each block, once.
    let mut pairs: Vec<u64> = Vec::new();
    TRIGRAM_SEEN.with_borrow_mut(|seen| {
        for (b, chunk) in sorted.chunks(STRINGS_PER_BLOCK).enumerate() {
            let block_start = pairs.len();
            let mut prev: &[u8] = &[];
            for s in chunk {
                let shared = common_prefix(prev, s);
                varint::put(&mut raw, shared as u64);
                varint::put(&mut raw, (s.len() - shared) as u64);
                raw.extend_from_slice(&s[shared..]);
                prev = s;
                // The trigrams within the prefix shared with the previous
                // string (of this block) were that string's: the block has
                // them already.
                for_each_trigram(&s[shared.saturating_sub(2)..], |t| {
                    if seen.first_time(t) {
                        pairs.push((u64::from(t) << 32) | b as u64);
                    }
                });
            }
            ends.push(raw.len());
            seen.forget(pairs[block_start..].iter().map(|&p| (p >> 32) as u32));
        }
    });
    let blocks = Blocks {
        raw: &raw,
        ends: &ends,
    };
    let (data, dir, codec, dict_len) = match compression {
        Compression::Raw => {
            let (data, dir) = blocks.store(|_| None);
            (data, dir, STR_CODEC_LZ4, 0)
        }
        Compression::Lz4 => {
            let (data, dir) = blocks.store(|b| Some(lz4_flex::block::compress(b)));
            (data, dir, STR_CODEC_LZ4, 0)
        }
        Compression::Zstd => zstd_blocks(&blocks),
    };
    sort_by_trigram(&mut pairs);
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
        blocks: ends.len() as u32,
        trigrams,
        trigram_keys,
        trigram_postings,
        codec,
        dict_len,
    }
}

/// Bits of a trigram key (SPEC 5.3: three 7-bit bytes).
const TRIGRAM_BITS: u32 = 21;

/// The trigrams a string block has had so far: a bit per trigram key
/// (256 KiB, so it stays in cache), cleared after each block by forgetting
/// the keys the block found. Made once per thread, so that encoding a chunk
/// does not allocate it.
struct TrigramSeen {
    bits: Vec<u64>,
}

impl TrigramSeen {
    fn new() -> TrigramSeen {
        TrigramSeen {
            bits: vec![0; 1 << (TRIGRAM_BITS - 6)],
        }
    }

    /// Whether trigram `t` is new to the block (and notes it).
    #[inline]
    fn first_time(&mut self, t: u32) -> bool {
        let bit = 1u64 << (t & 63);
        match self.bits.get_mut((t >> 6) as usize) {
            Some(word) if *word & bit == 0 => {
                *word |= bit;
                true
            }
            _ => false,
        }
    }

    /// Clears `keys` (those the block found), ready for the next block.
    fn forget(&mut self, keys: impl Iterator<Item = u32>) {
        for t in keys {
            if let Some(word) = self.bits.get_mut((t >> 6) as usize) {
                *word &= !(1u64 << (t & 63));
            }
        }
    }
}

thread_local! {
    static TRIGRAM_SEEN: std::cell::RefCell<TrigramSeen> =
        std::cell::RefCell::new(TrigramSeen::new());
}

/// Sorts `(trigram << 32) | block` pairs by trigram, keeping each trigram's
/// blocks in their order (a stable radix sort on the 21-bit key: pairs come
/// in block order, so each trigram's blocks end up ascending).
fn sort_by_trigram(pairs: &mut Vec<u64>) {
    const LOW: u32 = 11;
    let mut other = vec![0u64; pairs.len()];
    for (shift, bits) in [(32, LOW), (32 + LOW, TRIGRAM_BITS - LOW)] {
        let digit = |p: u64| ((p >> shift) & ((1 << bits) - 1)) as usize;
        let mut next = vec![0usize; 1 << bits];
        for &p in pairs.iter() {
            next[digit(p)] += 1;
        }
        let mut total = 0;
        for n in next.iter_mut() {
            let count = *n;
            *n = total;
            total += count;
        }
        for &p in pairs.iter() {
            let slot = &mut next[digit(p)];
            other[*slot] = p;
            *slot += 1;
        }
        std::mem::swap(pairs, &mut other);
    }
}

/// The raw string blocks of a chunk, back to back.
struct Blocks<'a> {
    raw: &'a [u8],
    ends: &'a [usize],
}

impl Blocks<'_> {
    /// Block `b`'s raw bytes.
    fn get(&self, b: usize) -> &[u8] {
        let start = if b == 0 { 0 } else { self.ends[b - 1] };
        &self.raw[start..self.ends[b]]
    }

    fn iter(&self) -> impl Iterator<Item = &[u8]> {
        (0..self.ends.len()).map(|b| self.get(b))
    }

    /// The string data section (each block as `compress` gives it when that
    /// is smaller, else raw) and the string directory.
    fn store(&self, compress: impl FnMut(&[u8]) -> Option<Vec<u8>>) -> (Vec<u8>, Vec<u8>) {
        let mut data = Vec::new();
        let dir = self.store_after(&mut data, compress);
        (data, dir)
    }

    /// Like [`Blocks::store`], appending the blocks to `data`.
    fn store_after(
        &self,
        data: &mut Vec<u8>,
        mut compress: impl FnMut(&[u8]) -> Option<Vec<u8>>,
    ) -> Vec<u8> {
        let mut dir = Vec::with_capacity(self.ends.len() * 16);
        for raw in self.iter() {
            let offset = data.len() as u64;
            let compressed = compress(raw).filter(|c| c.len() < raw.len());
            let stored: &[u8] = compressed.as_deref().unwrap_or(raw);
            data.extend_from_slice(stored);
            dir.extend_from_slice(&offset.to_le_bytes());
            dir.extend_from_slice(&(stored.len() as u32).to_le_bytes());
            dir.extend_from_slice(&(raw.len() as u32).to_le_bytes());
        }
        dir
    }
}

/// zstd-compressed string blocks: `(data, directory, codec, dictionary
/// length)`. A chunk with enough string bytes gets a raw-content dictionary,
/// the first bytes of the data section: whole blocks taken at an even stride
/// from the first (the last cut to size), so that it starts with a block's
/// first byte, 0, never zstd's dictionary magic.
fn zstd_blocks(blocks: &Blocks) -> (Vec<u8>, Vec<u8>, u8, u16) {
    use zstd::zstd_safe::{CCtx, CDict};
    let total = blocks.raw.len();
    let mut data = Vec::new();
    if total >= DICT_MIN_RAW {
        let want = (total / 16).min(DICT_MAX_LEN);
        let n = blocks.ends.len();
        let needed = want.div_ceil((total / n).max(1));
        for raw in blocks.iter().step_by((n / needed.max(1)).max(1)) {
            let take = raw.len().min(want - data.len());
            data.extend_from_slice(&raw[..take]);
            if data.len() == want {
                break;
            }
        }
    }
    let dict_len = data.len();
    let mut cctx = CCtx::create();
    let cdict = (dict_len > 0).then(|| CDict::create(&data[..dict_len], zstd_frames::LEVEL));
    let mut out = Vec::new();
    let dir = blocks.store_after(&mut data, |raw| {
        out.clear();
        out.reserve(zstd::zstd_safe::compress_bound(raw.len()));
        let done = match &cdict {
            Some(d) => cctx.compress_using_cdict(&mut out, raw, d),
            None => cctx.compress(&mut out, raw, zstd_frames::LEVEL),
        };
        done.ok().map(|_| out.clone())
    });
    (data, dir, STR_CODEC_ZSTD, dict_len as u16)
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

/// Decompresses one stored string block of `raw_len` raw bytes into `out`
/// (cleared first). A block whose stored length equals `raw_len` is raw and
/// is not passed here. `codec` is the chunk's `str_codec` byte and `dict` its
/// zstd dictionary (empty for none).
pub fn decompress_block(
    codec: u8,
    dict: &[u8],
    stored: &[u8],
    raw_len: usize,
    out: &mut Vec<u8>,
) -> Result<(), StringBlockError> {
    out.clear();
    out.resize(raw_len, 0);
    decompress_block_into(codec, dict, stored, out)
}

/// [`decompress_block`] into `out`, which the block must fill exactly.
pub fn decompress_block_into(
    codec: u8,
    dict: &[u8],
    stored: &[u8],
    out: &mut [u8],
) -> Result<(), StringBlockError> {
    let n = match codec {
        STR_CODEC_LZ4 => lz4_flex::block::decompress_into(stored, out)
            .map_err(|e| StringBlockError(format!("LZ4: {e}")))?,
        // A frame decoding to more bytes than `out` holds is an error.
        STR_CODEC_ZSTD => zstd_frames::decompress_with_dict_into(stored, dict, out)
            .map_err(|e| StringBlockError(format!("zstd: {e}")))?,
        c => return Err(StringBlockError(format!("unknown string codec {c}"))),
    };
    if n != out.len() {
        return Err(StringBlockError(format!(
            "block gave {n} bytes, expected {}",
            out.len()
        )));
    }
    Ok(())
}

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
        for codec in [Compression::Raw, Compression::Lz4, Compression::Zstd] {
            let d = encode_dictionary(&refs, codec);
            assert_eq!(d.blocks, 3);
            assert_eq!(d.dict_len, 0, "too few bytes for a dictionary");
            let all = decode_all(&d, strings.len());
            assert_eq!(all, strings);
            // The URLs share long prefixes; LZ4 and zstd find the rest
            // repetitive.
            let raw =
                (0..3).all(|b| d.dir[b * 16 + 8..b * 16 + 12] == d.dir[b * 16 + 12..b * 16 + 16]);
            assert_eq!(raw, codec == Compression::Raw);
        }
    }

    /// Decodes a dictionary's trigram index: each trigram's blocks.
    fn trigram_index(d: &Dictionary) -> Vec<(u32, Vec<u64>)> {
        let word =
            |i: usize| u32::from_le_bytes(d.trigram_keys[i * 4..i * 4 + 4].try_into().unwrap());
        let mut out = Vec::new();
        for t in 0..d.trigrams as usize {
            let (key, from, to) = (word(2 * t), word(2 * t + 1), word(2 * t + 3));
            let postings = &d.trigram_postings[..to as usize];
            let mut pos = from as usize;
            let mut blocks = Vec::new();
            let mut block = 0;
            while pos < postings.len() {
                block += varint::get(postings, &mut pos).unwrap();
                blocks.push(block);
            }
            out.push((key, blocks));
        }
        out
    }

    #[test]
    fn the_trigram_index_lists_each_trigram_s_blocks() {
        // Strings of random ASCII and non-ASCII bytes over many blocks, so
        // that trigrams repeat within and across blocks; most begin with one
        // of a few prefixes, so that neighbours share long prefixes (whose
        // trigrams the encoder takes from the previous string).
        let mut next = crate::test_rng::xorshift64(0x2545_f491_4f6c_dd1d);
        let prefixes: [&[u8]; 4] = [b"", b"http://Example.com/a", b"ab\xc3cd/", b"ab"];
        let mut strings: Vec<Vec<u8>> = (0..3000)
            .map(|_| {
                let len = (next() % 40) as usize;
                let mut s = prefixes[(next() % 4) as usize].to_vec();
                s.extend((0..len).map(|_| match next() % 9 {
                    0 => 0xc3,
                    1 => b'A' + (next() % 26) as u8,
                    _ => b'a' + (next() % 26) as u8,
                }));
                s
            })
            .collect();
        strings.sort();
        let refs: Vec<&[u8]> = strings.iter().map(|s| s.as_slice()).collect();
        let mut want: std::collections::BTreeMap<u32, std::collections::BTreeSet<u64>> =
            Default::default();
        for (b, chunk) in refs.chunks(STRINGS_PER_BLOCK).enumerate() {
            for s in chunk {
                for w in s.windows(3) {
                    if let Some(k) = trigram_key([w[0], w[1], w[2]]) {
                        want.entry(k).or_default().insert(b as u64);
                    }
                }
            }
        }
        let want: Vec<(u32, Vec<u64>)> = want
            .into_iter()
            .map(|(k, b)| (k, b.into_iter().collect()))
            .collect();
        assert!(want.len() > 1000, "{} trigrams", want.len());
        // Twice: the second chunk on this thread reuses the table.
        for _ in 0..2 {
            let d = encode_dictionary(&refs, Compression::Raw);
            assert_eq!(trigram_index(&d), want);
        }
    }

    #[test]
    fn forgotten_trigrams_are_new_again() {
        let mut seen = TrigramSeen::new();
        let top = (1 << TRIGRAM_BITS) - 1;
        assert!(seen.first_time(7) && seen.first_time(top) && seen.first_time(8));
        assert!(!seen.first_time(7) && !seen.first_time(top));
        seen.forget([7, top].into_iter());
        assert!(seen.first_time(7) && seen.first_time(top) && !seen.first_time(8));
    }

    #[test]
    fn large_chunks_get_a_zstd_dictionary() {
        let mut strings: Vec<Vec<u8>> = (0..20_000u64)
            .map(|i| {
                let h = i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
                format!("https://site{}.example.com/path/{h:x}?q={}", h % 97, i % 13).into_bytes()
            })
            .collect();
        strings.sort();
        let refs: Vec<&[u8]> = strings.iter().map(|s| s.as_slice()).collect();
        let with = encode_dictionary(&refs, Compression::Zstd);
        assert_eq!(with.codec, STR_CODEC_ZSTD);
        let raw_total: usize = (0..with.blocks as usize)
            .map(|b| {
                u32::from_le_bytes(with.dir[b * 16 + 12..b * 16 + 16].try_into().unwrap()) as usize
            })
            .sum();
        assert!(raw_total >= DICT_MIN_RAW);
        assert_eq!(
            usize::from(with.dict_len),
            (raw_total / 16).min(DICT_MAX_LEN)
        );
        assert_eq!(
            with.data[0], 0,
            "a dictionary starts with a block's first byte"
        );
        assert_eq!(decode_all(&with, strings.len()), strings);
        let lz4 = encode_dictionary(&refs, Compression::Lz4);
        assert!(
            with.data.len() < lz4.data.len(),
            "{} vs {}",
            with.data.len(),
            lz4.data.len()
        );
        assert_eq!(decode_all(&lz4, strings.len()), strings);
    }

    /// Every string of a dictionary's blocks, in order.
    fn decode_all(d: &Dictionary, strings: usize) -> Vec<Vec<u8>> {
        let mut all = Vec::new();
        let dict = &d.data[..usize::from(d.dict_len)];
        let mut buf = Vec::new();
        for b in 0..d.blocks as usize {
            let e = &d.dir[b * 16..b * 16 + 16];
            let off = u64::from_le_bytes(e[..8].try_into().unwrap()) as usize;
            let stored = u32::from_le_bytes(e[8..12].try_into().unwrap()) as usize;
            let raw_len = u32::from_le_bytes(e[12..16].try_into().unwrap()) as usize;
            let stored_bytes = &d.data[off..off + stored];
            let raw = if stored == raw_len {
                stored_bytes
            } else {
                decompress_block(d.codec, dict, stored_bytes, raw_len, &mut buf).unwrap();
                &buf
            };
            let count = (strings - b * 128).min(128);
            let (mut bytes, mut ends) = (Vec::new(), Vec::new());
            decode_block(raw, count, &mut bytes, &mut ends).unwrap();
            let mut start = 0;
            for e in ends {
                all.push(bytes[start..e].to_vec());
                start = e;
            }
        }
        all
    }

    #[test]
    fn corrupt_compressed_blocks_are_errors() {
        let mut out = Vec::new();
        let frame = zstd::bulk::compress(b"\0\x03abc", 3).unwrap();
        decompress_block(STR_CODEC_ZSTD, &[], &frame, 5, &mut out).unwrap();
        assert_eq!(out, b"\0\x03abc");
        for (codec, stored, len) in [
            (STR_CODEC_ZSTD, &frame[..frame.len() - 1], 5),
            (STR_CODEC_ZSTD, &frame[..], 4),
            (STR_CODEC_ZSTD, &frame[..], 6),
            (STR_CODEC_ZSTD, &[1u8, 2, 3][..], 5),
            (STR_CODEC_LZ4, &[0xf0u8, 1][..], 5),
            (7, &frame[..], 5),
        ] {
            assert!(decompress_block(codec, &[], stored, len, &mut out).is_err());
        }
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

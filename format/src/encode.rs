//! Encoding one block: every column becomes value-sorted, deduplicated
//! sections (see SPEC.md, "Column chunk").

use std::borrow::Cow;
use std::collections::hash_map::Entry;
use std::collections::HashMap;

use zerocopy::little_endian::{U16, U32, U64};

use crate::column::ColumnData;
use crate::error::{FormatError, Result};
use crate::layout::{
    checksum, time_unit_micros, ChunkMeta, Section, SectionMeta, BLOCK_HEADER_LEN, BLOCK_MAGIC,
    FORMAT_VERSION, MAX_BLOCK_ROWS, ROW_CODES, ROW_CODE_DELTAS, ROW_INDEX_STRIDE, SECTION_ALIGN,
    SECTION_COUNT, TIME_UNIT_MICROS, TIME_UNIT_MILLIS, TIME_UNIT_SECONDS,
};
use crate::row_codes::CodeForm;
use crate::strings::Compression;
use crate::types::{signed_from_key, signed_key, DataType, Schema};
use crate::{bitpack, delta_planes, packed, radix, row_codes, rowlist, strings, zstd_frames};

/// One block, encoded and ready to be written. Produced by [`encode_block`],
/// which is pure and can run on many threads at once.
#[derive(Debug)]
pub struct EncodedBlock {
    pub(crate) rows: u32,
    pub(crate) bytes: Vec<u8>,
    pub(crate) chunks: Vec<ChunkMeta>,
}

impl EncodedBlock {
    /// Rows in the block.
    pub fn rows(&self) -> usize {
        self.rows as usize
    }

    /// Encoded size in bytes.
    pub fn byte_len(&self) -> usize {
        self.bytes.len()
    }
}

/// The 128-bit BLAKE3 hash that represents a string value: the first 16 bytes
/// of its BLAKE3 digest, read as a little-endian integer.
pub fn string_hash(bytes: &[u8]) -> u128 {
    let digest = blake3::hash(bytes);
    let mut first = [0u8; 16];
    first.copy_from_slice(&digest.as_bytes()[..16]);
    u128::from_le_bytes(first)
}

/// Encodes one block: `columns[i]` holds the values of schema column `i`, all
/// of the same length (1 to 2^24 rows).
pub fn encode_block(schema: &Schema, columns: Vec<ColumnData>) -> Result<EncodedBlock> {
    let rows = columns.first().map_or(0, ColumnData::len);
    encode_block_rows(schema, rows, columns)
}

/// Choices the encoder makes where the format allows several encodings of
/// the same data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EncodeOptions {
    /// How string blocks and sections are compressed: zstd by default. Raw
    /// string blocks make a chunk of many distinct strings faster to build,
    /// for about twice the bytes of strings (worth it for a table that is a
    /// disposable cache).
    pub compression: Compression,
    /// How rows are stored where several forms would do.
    pub row_access: RowAccess,
}

/// How the encoder trades bytes for row access: whether a chunk's rows are
/// stored as bit-packed row codes (SPEC.md 5.6), which every process reads
/// in place, or in the smallest form, which must be decoded before a query
/// reads any row of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RowAccess {
    /// Packed codes wherever they take at most twice the bytes of the
    /// smallest form.
    #[default]
    Fast,
    /// The smallest form always.
    Compact,
}

impl RowAccess {
    /// How many times the smallest form's bytes packed codes may take.
    fn packed_ratio(self) -> Option<f64> {
        match self {
            RowAccess::Fast => Some(2.0),
            RowAccess::Compact => None,
        }
    }
}

/// Encodes one block of `rows` rows (1 to 2^24): `columns[i]` holds the
/// values of schema column `i`, each of length `rows`. Unlike
/// [`encode_block`] this also encodes a block of a table without columns,
/// which has rows but no chunks.
pub fn encode_block_rows(
    schema: &Schema,
    rows: usize,
    columns: Vec<ColumnData>,
) -> Result<EncodedBlock> {
    encode_block_with(schema, rows, columns, EncodeOptions::default())
}

/// [`encode_block_rows`] with the encoder's choices given.
pub fn encode_block_with(
    schema: &Schema,
    rows: usize,
    columns: Vec<ColumnData>,
    options: EncodeOptions,
) -> Result<EncodedBlock> {
    if columns.len() != schema.len() {
        return Err(FormatError::InvalidInput(format!(
            "{} columns given for a schema of {}",
            columns.len(),
            schema.len()
        )));
    }
    if rows == 0 || rows > MAX_BLOCK_ROWS {
        return Err(FormatError::InvalidInput(format!(
            "a block must have 1 to {MAX_BLOCK_ROWS} rows, not {rows}"
        )));
    }
    let mut out = BlockBuf::new(options);
    let mut chunks = Vec::with_capacity(columns.len());
    for (field, col) in schema.fields.iter().zip(&columns) {
        if col.len() != rows {
            return Err(FormatError::InvalidInput(format!(
                "column {} has {} rows, expected {rows}",
                field.name,
                col.len()
            )));
        }
        let has_null = col.has_null(rows);
        if has_null && !field.nullable {
            return Err(FormatError::InvalidInput(format!(
                "NULL in NOT NULL column {}",
                field.name
            )));
        }
        let chunk = match (col, field.data_type.is_string()) {
            (ColumnData::Fixed { keys, nulls }, false) => encode_fixed(
                &mut out,
                field.data_type,
                keys,
                nulls.as_deref(),
                rows as u32,
            ),
            (
                ColumnData::FixedDict {
                    entries,
                    indices,
                    nulls,
                },
                false,
            ) => encode_fixed_dict(
                &mut out,
                field.data_type,
                entries,
                indices,
                nulls.as_deref(),
            )?,
            (
                ColumnData::Strings {
                    bytes,
                    offsets,
                    nulls,
                },
                true,
            ) => encode_strings(
                &mut out,
                plain_rows(bytes, offsets, nulls.as_deref(), rows as u32)?,
                options,
            )?,
            (
                ColumnData::StringDict {
                    bytes,
                    offsets,
                    indices,
                    nulls,
                },
                true,
            ) => encode_strings(
                &mut out,
                dict_rows(bytes, offsets, indices, nulls.as_deref())?,
                options,
            )?,
            _ => {
                return Err(FormatError::InvalidInput(format!(
                    "column {} of type {} given the wrong kind of data",
                    field.name, field.data_type
                )))
            }
        };
        chunks.push(chunk);
    }
    Ok(EncodedBlock {
        rows: rows as u32,
        bytes: out.finish(),
        chunks,
    })
}

/// A block file under construction.
struct BlockBuf {
    bytes: Vec<u8>,
    /// With [`Compression::Zstd`], the context that compresses sections
    /// other than row lists; else they are LZ4.
    zstd: Option<zstd::zstd_safe::CCtx<'static>>,
    /// How rows are stored where several forms would do.
    row_access: RowAccess,
}

impl BlockBuf {
    fn new(options: EncodeOptions) -> BlockBuf {
        let mut bytes = Vec::with_capacity(1 << 20);
        bytes.extend_from_slice(&BLOCK_MAGIC);
        bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        bytes.extend_from_slice(&0u32.to_le_bytes());
        debug_assert_eq!(bytes.len(), BLOCK_HEADER_LEN);
        let zstd = (options.compression == Compression::Zstd).then(zstd::zstd_safe::CCtx::create);
        BlockBuf {
            bytes,
            zstd,
            row_access: options.row_access,
        }
    }

    /// Appends section `kind` of `chunk` (compressed if allowed and that
    /// saves enough) and records where it went.
    fn section(&mut self, chunk: &mut ChunkMeta, kind: Section, raw: &[u8]) {
        if raw.is_empty() {
            chunk.sections[kind as usize] = SectionMeta {
                checksum: U64::new(checksum(&[])),
                ..SectionMeta::default()
            };
            return;
        }
        // Row lists stay LZ4: filters and multi-column queries decompress
        // them on every query, and zstd would take about 4x as long for 14%
        // fewer bytes.
        let zstd_bit = kind.zstd_bit().filter(|_| kind != Section::Rows);
        let compressed = if raw.len() < 64 {
            None
        } else if kind == Section::Values {
            // Sorted keys or hashes: differences in byte planes, with zstd
            // only (the file cache and `--compression lz4` keep them raw).
            self.zstd
                .as_mut()
                .and_then(|cctx| delta_planes::compress(cctx, raw, usize::from(chunk.value_width)))
        } else if kind.may_compress() {
            match (zstd_bit, &mut self.zstd) {
                (Some(_), Some(cctx)) => zstd_frames::compress(cctx, raw),
                _ => Some(lz4_flex::block::compress(raw)),
            }
        } else {
            None
        };
        // A compressed section must save an eighth, values a sixteenth: raw
        // values are binary-searched in place and compressed ones decoded
        // whole on first use, about the cost of one pass over them, and
        // string hashes, which are most of the values' bytes, save between
        // a sixteenth and an eighth.
        let at_most = if kind == Section::Values {
            raw.len() / 16 * 15
        } else {
            raw.len() / 8 * 7
        };
        let compressed = compressed.filter(|c| c.len() <= at_most);
        if let (Some(bit), Some(_), Some(_)) = (zstd_bit, &self.zstd, &compressed) {
            chunk.zstd_sections |= bit;
        }
        self.put_smaller(chunk, kind, raw, compressed);
    }

    /// Appends section `kind` as `compressed` if given, else `raw`.
    fn put_smaller(
        &mut self,
        chunk: &mut ChunkMeta,
        kind: Section,
        raw: &[u8],
        compressed: Option<Vec<u8>>,
    ) {
        let stored: &[u8] = compressed.as_deref().unwrap_or(raw);
        self.put(chunk, kind, stored, raw.len());
    }

    /// Appends the `stored` bytes of section `kind` (which decode to
    /// `raw_len` bytes) and records where they went.
    fn put(&mut self, chunk: &mut ChunkMeta, kind: Section, stored: &[u8], raw_len: usize) {
        let pad = self.bytes.len().next_multiple_of(SECTION_ALIGN) - self.bytes.len();
        self.bytes.extend(std::iter::repeat_n(0u8, pad));
        let offset = self.bytes.len() as u64;
        self.bytes.extend_from_slice(stored);
        chunk.sections[kind as usize] = SectionMeta {
            offset: U64::new(offset),
            stored_len: U32::new(stored.len() as u32),
            raw_len: U32::new(raw_len as u32),
            checksum: U64::new(checksum(stored)),
        };
    }

    /// Appends the row lists `lists` of `grouped` and `null_rows` in the
    /// form the options favour (SPEC.md 5.5, 5.6):
    /// - the lists themselves (LZ4 when that saves an eighth);
    /// - with zstd, row codes in byte planes, plain or as differences
    ///   (whichever [`row_codes::estimate`] expects smaller), when they take
    ///   at most 15/16 of the lists as stored; chunks whose lists take under
    ///   a sixteenth of a byte a row have little to gain and are not tried;
    /// - bit-packed row codes, read in place without decoding, when they
    ///   take at most [`RowAccess::packed_ratio`] times the smaller of the
    ///   other two.
    ///
    /// Readers wanting row-ordered value indexes (multi-column work, a few
    /// rows of `SELECT * ... LIMIT`) read packed codes in place and decode
    /// compressed codes faster than lists; those wanting lists (ORDER BY
    /// the column with LIMIT) expand codes of either form once.
    fn row_lists(
        &mut self,
        chunk: &mut ChunkMeta,
        grouped: &Grouped,
        null_rows: &[u32],
        lists: &[u8],
    ) {
        let rows = grouped.rows.len() + null_rows.len();
        let distinct = grouped.starts.len() - 1;
        let has_nulls = !null_rows.is_empty();
        let ratio = self.row_access.packed_ratio();
        let packed_len = bitpack::packed_len(rows, bitpack::bits(distinct, has_nulls));
        // Packed codes can win only against lists of at least a few bytes
        // a hundred rows.
        let may_pack = ratio.is_some_and(|r| packed_len as f64 <= lists.len() as f64 * r);
        let worth_trying = lists.len() >= (rows / 16).max(64);
        if !may_pack && (self.zstd.is_none() || !worth_trying) {
            self.section(chunk, Section::Rows, lists);
            return;
        }
        let mut codes = vec![distinct as u32; rows];
        for (v, w) in grouped.starts.windows(2).enumerate() {
            for &r in &grouped.rows[w[0] as usize..w[1] as usize] {
                codes[r as usize] = v as u32;
            }
        }
        // The lists as `section` would store them: LZ4 if that saves an
        // eighth.
        let lz4 = (lists.len() >= 64)
            .then(|| lz4_flex::block::compress(lists))
            .filter(|c| c.len() <= lists.len() / 8 * 7);
        let as_lists = lz4.as_ref().map_or(lists.len(), Vec::len);
        let mut compact: Option<(Vec<u8>, CodeForm)> = None;
        if let Some(cctx) = self.zstd.as_mut().filter(|_| worth_trying) {
            let width = row_codes::width(distinct, has_nulls);
            let plain = row_codes::estimate(&codes, width, CodeForm::Plain);
            let deltas = row_codes::estimate(&codes, width, CodeForm::Deltas);
            let (form, estimate) = if deltas < plain {
                (CodeForm::Deltas, deltas)
            } else {
                (CodeForm::Plain, plain)
            };
            // The estimate ignores zstd's matches, so it overstates only
            // what runs of rows cost, which lists store cheaply anyway.
            if estimate <= as_lists {
                compact = row_codes::compress(cctx, &codes, width, form)
                    .filter(|stored| stored.len() <= as_lists / 16 * 15)
                    .map(|stored| (stored, form));
            }
        }
        let smallest = compact.as_ref().map_or(as_lists, |(c, _)| c.len());
        if ratio.is_some_and(|r| packed_len as f64 <= smallest as f64 * r) {
            let bits = bitpack::bits(distinct, has_nulls);
            let bytes = bitpack::pack(&codes, bits);
            chunk.zstd_sections |= ROW_CODES;
            self.put(chunk, Section::Rows, &bytes, bytes.len());
            return;
        }
        match compact {
            Some((stored, form)) => {
                chunk.zstd_sections |= ROW_CODES;
                if form == CodeForm::Deltas {
                    chunk.zstd_sections |= ROW_CODE_DELTAS;
                }
                self.put(chunk, Section::Rows, &stored, lists.len());
            }
            None => self.put_smaller(chunk, Section::Rows, lists, lz4),
        }
    }

    fn finish(mut self) -> Vec<u8> {
        let pad = self.bytes.len().next_multiple_of(SECTION_ALIGN) - self.bytes.len();
        self.bytes.extend(std::iter::repeat_n(0u8, pad));
        self.bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        self.bytes.extend_from_slice(&0u32.to_le_bytes());
        self.bytes.extend_from_slice(&BLOCK_MAGIC);
        self.bytes
    }
}

fn empty_chunk() -> ChunkMeta {
    ChunkMeta {
        distinct: U32::new(0),
        null_count: U32::new(0),
        min: U64::new(0),
        max: U64::new(0),
        value_width: 0,
        count_width: 0,
        len_width: 0,
        map_width: 0,
        str_blocks: U32::new(0),
        trigrams: U32::new(0),
        str_codec: 0,
        zstd_sections: 0,
        str_dict_len: U16::new(0),
        sections: [SectionMeta {
            checksum: U64::new(checksum(&[])),
            ..SectionMeta::default()
        }; SECTION_COUNT],
    }
}

/// Rows grouped by value: `rows[starts[i]..starts[i + 1]]` are the rows of
/// value `i`, ascending.
struct Grouped {
    rows: Vec<u32>,
    starts: Vec<u32>,
}

/// Writes the counts, row index, row lists and null rows shared by every type.
fn encode_row_sections(
    out: &mut BlockBuf,
    chunk: &mut ChunkMeta,
    grouped: &Grouped,
    null_rows: &[u32],
) {
    let distinct = grouped.starts.len() - 1;
    let max_count = grouped
        .starts
        .windows(2)
        .map(|w| w[1] - w[0])
        .max()
        .unwrap_or(0);
    let count_width = if distinct == 0 {
        0
    } else {
        packed::width_for(u64::from(max_count))
    };
    let mut counts = Vec::with_capacity(distinct * count_width as usize);
    for w in grouped.starts.windows(2) {
        packed::put(&mut counts, u64::from(w[1] - w[0]), count_width);
    }
    let mut index = Vec::with_capacity(distinct.div_ceil(ROW_INDEX_STRIDE) * 4);
    let mut lists = Vec::with_capacity(grouped.rows.len() + 16);
    rowlist::encode_lists(&grouped.rows, &grouped.starts, &mut lists, &mut index);
    let mut nulls = Vec::new();
    rowlist::encode(null_rows, 0, &mut nulls);
    chunk.distinct = U32::new(distinct as u32);
    chunk.null_count = U32::new(null_rows.len() as u32);
    chunk.count_width = count_width;
    out.section(chunk, Section::Counts, &counts);
    out.section(chunk, Section::RowIndex, &index);
    out.row_lists(chunk, grouped, null_rows, &lists);
    out.section(chunk, Section::NullRows, &nulls);
}

/// Groups `rows` by `codes[row]` (0..distinct) with a counting sort; rows
/// whose code is `u32::MAX` are skipped.
fn group_by_code(codes: &[u32], distinct: usize) -> Grouped {
    let mut starts = vec![0u32; distinct + 1];
    for &c in codes {
        if c != u32::MAX {
            starts[c as usize + 1] += 1;
        }
    }
    for i in 0..distinct {
        starts[i + 1] += starts[i];
    }
    let mut fill = starts.clone();
    let mut rows = vec![0u32; starts[distinct] as usize];
    for (r, &c) in codes.iter().enumerate() {
        if c != u32::MAX {
            let slot = &mut fill[c as usize];
            rows[*slot as usize] = r as u32;
            *slot += 1;
        }
    }
    Grouped { rows, starts }
}

fn encode_fixed(
    out: &mut BlockBuf,
    ty: DataType,
    keys: &[u64],
    nulls: Option<&[bool]>,
    rows: u32,
) -> ChunkMeta {
    let mut chunk = empty_chunk();
    let mut null_rows = Vec::new();
    let (mut min, mut max) = (u64::MAX, 0u64);
    match nulls {
        None => {
            for &k in keys {
                min = min.min(k);
                max = max.max(k);
            }
        }
        Some(n) => {
            for (r, &k) in keys.iter().enumerate() {
                if n.get(r).copied().unwrap_or(false) {
                    null_rows.push(r as u32);
                } else {
                    min = min.min(k);
                    max = max.max(k);
                }
            }
        }
    }
    let present = rows as usize - null_rows.len();
    let (offsets, grouped) = if present == 0 {
        (
            Vec::new(),
            Grouped {
                rows: Vec::new(),
                starts: vec![0],
            },
        )
    } else if let Some(n) = nulls {
        sort_fixed(keys, |r| n.get(r).copied().unwrap_or(false), min, max - min)
    } else {
        // Without NULLs the per-row test compiles away.
        sort_fixed(keys, |_| false, min, max - min)
    };
    write_fixed(out, &mut chunk, ty, min, offsets, &grouped, &null_rows);
    chunk
}

/// Writes a fixed-width chunk's sections: `offsets` are its distinct keys
/// minus `min`, ascending, and `grouped` their rows. TIMESTAMP keys
/// (microseconds) are stored in the coarsest unit that holds them all.
fn write_fixed(
    out: &mut BlockBuf,
    chunk: &mut ChunkMeta,
    ty: DataType,
    mut min: u64,
    mut offsets: Vec<u64>,
    grouped: &Grouped,
    null_rows: &[u32],
) {
    if ty == DataType::Timestamp {
        let unit = coarsest_time_unit(min, &offsets);
        chunk.str_codec = unit;
        let scale = time_unit_micros(unit).unwrap_or(1);
        if scale > 1 {
            let stored = |k: u64| signed_key(signed_from_key(k) / scale);
            let new_min = stored(min);
            for o in &mut offsets {
                *o = stored(min.wrapping_add(*o)) - new_min;
            }
            min = new_min;
        }
    }
    if let Some(&range) = offsets.last() {
        chunk.min = U64::new(min);
        chunk.max = U64::new(min + range);
        let width = packed::width_for(range);
        chunk.value_width = width;
        let mut values = Vec::with_capacity(offsets.len() * width as usize);
        for &o in &offsets {
            packed::put(&mut values, o, width);
        }
        out.section(chunk, Section::Values, &values);
    }
    encode_row_sections(out, chunk, grouped, null_rows);
}

/// Encodes dictionary-coded keys: the entries the rows use are sorted
/// (equal keys merged), then each row's code is its entry's rank; no pass
/// over the rows compares keys.
fn encode_fixed_dict(
    out: &mut BlockBuf,
    ty: DataType,
    entries: &[u64],
    indices: &[u32],
    nulls: Option<&[bool]>,
) -> Result<ChunkMeta> {
    let mut chunk = empty_chunk();
    let is_null = |r: usize| nulls.is_some_and(|n| n.get(r).copied().unwrap_or(false));
    // Which entries are used, in first-seen order.
    let mut rank = vec![u32::MAX; entries.len()];
    let mut used: Vec<u32> = Vec::new();
    let mut null_rows = Vec::new();
    for (r, &e) in indices.iter().enumerate() {
        if is_null(r) {
            null_rows.push(r as u32);
            continue;
        }
        let Some(slot) = rank.get_mut(e as usize) else {
            return Err(FormatError::InvalidInput(format!(
                "row {r} refers to dictionary entry {e} of {}",
                entries.len()
            )));
        };
        if *slot == u32::MAX {
            *slot = 0;
            used.push(e);
        }
    }
    used.sort_unstable_by_key(|&e| entries[e as usize]);
    let min = used.first().map_or(0, |&e| entries[e as usize]);
    let mut offsets: Vec<u64> = Vec::with_capacity(used.len());
    for &e in &used {
        let o = entries[e as usize] - min;
        if offsets.last() != Some(&o) {
            offsets.push(o);
        }
        rank[e as usize] = offsets.len() as u32 - 1;
    }
    let codes: Vec<u32> = indices
        .iter()
        .enumerate()
        .map(|(r, &e)| {
            if is_null(r) {
                u32::MAX
            } else {
                rank[e as usize]
            }
        })
        .collect();
    let grouped = group_by_code(&codes, offsets.len());
    write_fixed(out, &mut chunk, ty, min, offsets, &grouped, &null_rows);
    Ok(chunk)
}

/// The coarsest time unit (SPEC.md 2) in which every TIMESTAMP key `min +
/// offsets[i]` (microseconds) is a whole number.
fn coarsest_time_unit(min: u64, offsets: &[u64]) -> u8 {
    let multiple_of = |m: i64| {
        offsets
            .iter()
            .all(|&o| signed_from_key(min.wrapping_add(o)) % m == 0)
    };
    if multiple_of(1_000_000) {
        TIME_UNIT_SECONDS
    } else if multiple_of(1_000) {
        TIME_UNIT_MILLIS
    } else {
        TIME_UNIT_MICROS
    }
}

/// Sorts the non-NULL rows by key; returns the distinct `key - min` offsets and
/// the rows grouped by them.
fn sort_fixed(
    keys: &[u64],
    is_null: impl Fn(usize) -> bool,
    min: u64,
    range: u64,
) -> (Vec<u64>, Grouped) {
    let n = keys.len();
    if range <= (4 * n as u64).max(1 << 16) {
        // Counting sort over the value range.
        let mut seen = vec![u32::MAX; range as usize + 1];
        for (r, &k) in keys.iter().enumerate() {
            if !is_null(r) {
                seen[(k - min) as usize] = 0;
            }
        }
        let mut offsets = Vec::new();
        for (o, slot) in seen.iter_mut().enumerate() {
            if *slot == 0 {
                *slot = offsets.len() as u32;
                offsets.push(o as u64);
            }
        }
        let codes: Vec<u32> = keys
            .iter()
            .enumerate()
            .map(|(r, &k)| {
                if is_null(r) {
                    u32::MAX
                } else {
                    seen[(k - min) as usize]
                }
            })
            .collect();
        let grouped = group_by_code(&codes, offsets.len());
        return (offsets, grouped);
    }
    // Sort (offset, row) pairs; packed into one u64 when the range allows.
    let mut groups = GroupBuilder::with_capacity(n);
    if range < (1 << 40) {
        let mut packed_pairs: Vec<u64> = keys
            .iter()
            .enumerate()
            .filter(|(r, _)| !is_null(*r))
            .map(|(r, &k)| ((k - min) << 24) | r as u64)
            .collect();
        // Built in row order: sorting by the key bits alone leaves each
        // key's rows ascending.
        radix::sort_by_bits(&mut packed_pairs, 24, 64 - range.leading_zeros());
        for p in packed_pairs {
            groups.push(p >> 24, (p & 0xff_ffff) as u32);
        }
    } else {
        let mut pairs: Vec<(u64, u32)> = keys
            .iter()
            .enumerate()
            .filter(|(r, _)| !is_null(*r))
            .map(|(r, &k)| (k - min, r as u32))
            .collect();
        // Distributing by the top bits first and sorting the buckets in
        // cache measured slower (22 ms against 15 ms for 2^19 random keys).
        pairs.sort_unstable();
        for (o, r) in pairs {
            groups.push(o, r);
        }
    }
    groups.finish()
}

/// Distinct offsets and their rows, from `(offset, row)` pairs in order.
struct GroupBuilder {
    offsets: Vec<u64>,
    starts: Vec<u32>,
    rows: Vec<u32>,
}

impl GroupBuilder {
    fn with_capacity(rows: usize) -> GroupBuilder {
        GroupBuilder {
            offsets: Vec::new(),
            starts: Vec::new(),
            rows: Vec::with_capacity(rows),
        }
    }

    #[inline]
    fn push(&mut self, offset: u64, row: u32) {
        if self.offsets.last() != Some(&offset) {
            self.offsets.push(offset);
            self.starts.push(self.rows.len() as u32);
        }
        self.rows.push(row);
    }

    fn finish(mut self) -> (Vec<u64>, Grouped) {
        self.starts.push(self.rows.len() as u32);
        (
            self.offsets,
            Grouped {
                rows: self.rows,
                starts: self.starts,
            },
        )
    }
}

/// A string column's rows as entries: `strings[e]` is entry `e`'s bytes
/// (entries may repeat; an unused one may be left empty), `index[row]` the
/// row's entry (`u32::MAX` for NULL) and `counts[e]` the rows using entry `e`.
struct StringRows<'a> {
    strings: Vec<&'a [u8]>,
    index: Cow<'a, [u32]>,
    counts: Vec<u32>,
    null_rows: Vec<u32>,
}

fn too_long(len: usize) -> FormatError {
    FormatError::InvalidInput(format!(
        "a string of {len} bytes is longer than the 4 GiB limit"
    ))
}

/// Plain strings as entries: each distinct string becomes one entry (found
/// by hashing each row's string, or by comparing with the previous row's).
fn plain_rows<'a>(
    bytes: &'a [u8],
    offsets: &[u64],
    nulls: Option<&[bool]>,
    rows: u32,
) -> Result<StringRows<'a>> {
    let mut ids: HashMap<&'a [u8], u32, foldhash::fast::RandomState> = HashMap::default();
    let mut strings: Vec<&'a [u8]> = Vec::new();
    let mut counts: Vec<u32> = Vec::new();
    let mut index = Vec::with_capacity(rows as usize);
    let mut null_rows = Vec::new();
    let mut prev: Option<(&[u8], u32)> = None;
    for r in 0..rows as usize {
        if nulls.is_some_and(|n| n.get(r).copied().unwrap_or(false)) {
            null_rows.push(r as u32);
            index.push(u32::MAX);
            continue;
        }
        let s = string_at(bytes, offsets, r)?;
        // Runs of one value are common (sorted or clustered data, empty
        // strings): compare with the previous row before hashing.
        let id = match prev {
            Some((p, id)) if p == s => id,
            _ => {
                let id = match ids.entry(s) {
                    Entry::Occupied(o) => *o.get(),
                    Entry::Vacant(v) => {
                        if s.len() > u32::MAX as usize {
                            return Err(too_long(s.len()));
                        }
                        strings.push(s);
                        counts.push(0);
                        *v.insert((strings.len() - 1) as u32)
                    }
                };
                prev = Some((s, id));
                id
            }
        };
        if let Some(c) = counts.get_mut(id as usize) {
            *c += 1;
        }
        index.push(id);
    }
    Ok(StringRows {
        strings,
        index: Cow::Owned(index),
        counts,
        null_rows,
    })
}

/// Dictionary-coded strings as entries: the dictionary's, as they are (the
/// row indices are used in place when no row is NULL).
fn dict_rows<'a>(
    bytes: &'a [u8],
    offsets: &[u64],
    indices: &'a [u32],
    nulls: Option<&[bool]>,
) -> Result<StringRows<'a>> {
    let entries = offsets.len().saturating_sub(1);
    let mut counts = vec![0u32; entries];
    let mut null_rows = Vec::new();
    let past_the_end = |r: usize, e: u32| {
        FormatError::InvalidInput(format!(
            "row {r} refers to dictionary entry {e} of {entries}"
        ))
    };
    let index = match nulls.filter(|n| n.contains(&true)) {
        None => {
            for (r, &e) in indices.iter().enumerate() {
                match counts.get_mut(e as usize) {
                    Some(c) => *c += 1,
                    None => return Err(past_the_end(r, e)),
                }
            }
            Cow::Borrowed(indices)
        }
        Some(nulls) => {
            let mut index = Vec::with_capacity(indices.len());
            for (r, &e) in indices.iter().enumerate() {
                if nulls.get(r).copied().unwrap_or(false) {
                    null_rows.push(r as u32);
                    index.push(u32::MAX);
                    continue;
                }
                match counts.get_mut(e as usize) {
                    Some(c) => *c += 1,
                    None => return Err(past_the_end(r, e)),
                }
                index.push(e);
            }
            Cow::Owned(index)
        }
    };
    let mut strings: Vec<&'a [u8]> = vec![&[]; entries];
    for (e, s) in strings.iter_mut().enumerate() {
        if counts[e] > 0 {
            *s = string_at(bytes, offsets, e)?;
            if s.len() > u32::MAX as usize {
                return Err(too_long(s.len()));
            }
        }
    }
    Ok(StringRows {
        strings,
        index,
        counts,
        null_rows,
    })
}

/// String `i` of a bytes + offsets buffer.
fn string_at<'a>(bytes: &'a [u8], offsets: &[u64], i: usize) -> Result<&'a [u8]> {
    let (a, b) = match (offsets.get(i), offsets.get(i + 1)) {
        (Some(&a), Some(&b)) => (a as usize, b as usize),
        _ => {
            return Err(FormatError::InvalidInput(format!(
                "string {i} has no offsets"
            )))
        }
    };
    bytes.get(a..b).ok_or_else(|| {
        FormatError::InvalidInput(format!("string offsets {a}..{b} outside the buffer"))
    })
}

/// The scatter of a counting sort: row `r` goes to the next slot of
/// `slot_of(index[r])` in `fill`; NULL rows (`u32::MAX`) go nowhere.
#[inline]
fn scatter_rows(index: &[u32], fill: &mut [u32], rows: &mut [u32], slot_of: impl Fn(u32) -> usize) {
    for (r, &e) in index.iter().enumerate() {
        if e != u32::MAX {
            let slot = &mut fill[slot_of(e)];
            rows[*slot as usize] = r as u32;
            *slot += 1;
        }
    }
}

/// `(key(string), index)` for each of `strings`, sorted.
fn sorted_by_key(strings: &[&[u8]], key: impl Fn(&[u8]) -> u128) -> Vec<(u128, u32)> {
    let mut keyed: Vec<(u128, u32)> = strings
        .iter()
        .enumerate()
        .map(|(i, s)| (key(s), i as u32))
        .collect();
    keyed.sort_unstable();
    keyed
}

/// The indexes of `strings` in byte order. Sorting `(first 16 bytes as a
/// big-endian integer, index)` pairs, then only the runs of equal prefixes
/// by their whole bytes, touches each string's bytes a few times instead of
/// at every comparison (a string shorter than 16 bytes is padded with zeros,
/// so "a" and "a\0" tie and the second pass orders them).
fn byte_order(strings: &[&[u8]]) -> Vec<u32> {
    let prefix = |s: &[u8]| {
        let mut a = [0u8; 16];
        let n = s.len().min(16);
        a[..n].copy_from_slice(&s[..n]);
        u128::from_be_bytes(a)
    };
    let mut keyed = sorted_by_key(strings, prefix);
    let mut i = 0;
    while i < keyed.len() {
        let p = keyed[i].0;
        let run = keyed[i..].iter().take_while(|k| k.0 == p).count();
        if run > 1 {
            keyed[i..i + run]
                .sort_unstable_by(|a, b| strings[a.1 as usize].cmp(strings[b.1 as usize]));
        }
        i += run;
    }
    keyed.into_iter().map(|(_, i)| i).collect()
}

fn encode_strings(
    out: &mut BlockBuf,
    rows: StringRows<'_>,
    options: EncodeOptions,
) -> Result<ChunkMeta> {
    let mut chunk = empty_chunk();
    let StringRows {
        strings,
        index,
        counts,
        null_rows,
    } = rows;
    // Hash order: the values of the chunk. Entries repeating a string are
    // adjacent in it and become one value.
    let mut keyed: Vec<(u128, u32)> = counts
        .iter()
        .enumerate()
        .filter(|&(_, &c)| c > 0)
        .map(|(e, _)| (string_hash(strings[e]), e as u32))
        .collect();
    keyed.sort_unstable();
    let used = keyed.len();
    let mut value_of_entry = vec![u32::MAX; counts.len()];
    let mut uniq: Vec<&[u8]> = Vec::with_capacity(used);
    let mut value_counts: Vec<u32> = Vec::with_capacity(used);
    let mut values = Vec::with_capacity(used * 16);
    for (i, &(h, e)) in keyed.iter().enumerate() {
        let s = strings[e as usize];
        let count = counts[e as usize];
        match value_counts.last_mut() {
            Some(c) if keyed[i - 1].0 == h => {
                if uniq.last() != Some(&s) {
                    return Err(FormatError::InvalidInput(
                        "two different strings share a 128-bit BLAKE3 hash".into(),
                    ));
                }
                *c += count;
            }
            _ => {
                uniq.push(s);
                value_counts.push(count);
                values.extend_from_slice(&h.to_le_bytes());
            }
        }
        value_of_entry[e as usize] = (uniq.len() - 1) as u32;
    }
    let d = uniq.len();
    let mut starts: Vec<u32> = Vec::with_capacity(d + 1);
    let mut total = 0u32;
    for c in value_counts {
        starts.push(total);
        total += c;
    }
    starts.push(total);
    if d > 0 {
        chunk.value_width = 16;
        out.section(&mut chunk, Section::Values, &values);
        // String order and the maps between the two orders.
        let by_str = byte_order(&uniq);
        let map_width = packed::width_for(d as u64 - 1).min(4);
        let mut hash_to_str = vec![0u32; d];
        for (s, &v) in by_str.iter().enumerate() {
            hash_to_str[v as usize] = s as u32;
        }
        let mut h2s = Vec::with_capacity(d * map_width as usize);
        for &s in &hash_to_str {
            packed::put(&mut h2s, u64::from(s), map_width);
        }
        chunk.map_width = map_width;
        // The string-to-hash map is hash-to-string inverted; readers derive
        // it (version 3), so it is not stored.
        out.section(&mut chunk, Section::HashToStr, &h2s);
        let sorted: Vec<&[u8]> = by_str.iter().map(|&v| uniq[v as usize]).collect();
        let dict = strings::encode_dictionary(&sorted, options.compression);
        chunk.len_width = dict.len_width;
        chunk.str_codec = dict.codec;
        chunk.str_dict_len = U16::new(dict.dict_len);
        chunk.str_blocks = U32::new(dict.blocks);
        chunk.trigrams = U32::new(dict.trigrams);
        out.section(&mut chunk, Section::StrDir, &dict.dir);
        out.section(&mut chunk, Section::StrData, &dict.data);
        out.section(&mut chunk, Section::StrLens, &dict.lens);
        out.section(&mut chunk, Section::TrigramKeys, &dict.trigram_keys);
        out.section(&mut chunk, Section::TrigramPostings, &dict.trigram_postings);
    }
    // Rows grouped by value, ascending within each: a counting sort whose
    // counts are the entries'. Each entry has its own next slot unless
    // entries repeat a string, which then share their value's.
    let mut grouped_rows = vec![0u32; total as usize];
    if used == d {
        let mut fill: Vec<u32> = value_of_entry
            .iter()
            .map(|&v| starts.get(v as usize).copied().unwrap_or(0))
            .collect();
        scatter_rows(&index, &mut fill, &mut grouped_rows, |e| e as usize);
    } else {
        let mut fill = starts[..d].to_vec();
        scatter_rows(&index, &mut fill, &mut grouped_rows, |e| {
            value_of_entry[e as usize] as usize
        });
    }
    let grouped = Grouped {
        rows: grouped_rows,
        starts,
    };
    encode_row_sections(out, &mut chunk, &grouped, &null_rows);
    Ok(chunk)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{DataType, Field};
    use proptest::prelude::*;
    use zerocopy::IntoBytes;

    fn schema() -> Schema {
        Schema::new(vec![Field::new("s", DataType::String, true)]).unwrap()
    }

    /// Keys grouped by value, each value's rows ascending, by the plain
    /// definition: every range path (counting, packed radix, pairs).
    #[test]
    fn fixed_keys_group_by_value_at_every_range() {
        let mut next = crate::test_rng::xorshift64(0x9e37_79b9_7f4a_7c15);
        let n = 5000usize;
        let cases: Vec<Vec<u64>> = vec![
            (0..n).map(|_| next() % 50).collect(),
            (0..n).map(|_| next() % (1 << 30)).collect(),
            (0..n).map(|_| next() % 3000 * (1 << 35)).collect(),
            (0..n).map(|_| next()).collect(),
            // Skewed: one bucket holds nearly all, with ties.
            (0..n)
                .map(|i| {
                    if i % 97 == 0 {
                        u64::MAX - i as u64
                    } else {
                        next() % 7
                    }
                })
                .collect(),
        ];
        for keys in cases {
            let is_null = |r: usize| r % 11 == 4;
            let present = (0..n).filter(|&r| !is_null(r));
            let min = present.clone().map(|r| keys[r]).min().unwrap();
            let max = present.clone().map(|r| keys[r]).max().unwrap();
            let (offsets, grouped) = sort_fixed(&keys, is_null, min, max - min);
            let mut want: std::collections::BTreeMap<u64, Vec<u32>> = Default::default();
            for r in present {
                want.entry(keys[r] - min).or_default().push(r as u32);
            }
            assert_eq!(offsets, want.keys().copied().collect::<Vec<_>>());
            let rows: Vec<u32> = want.values().flatten().copied().collect();
            assert_eq!(grouped.rows, rows);
            let mut starts = vec![0u32];
            for v in want.values() {
                starts.push(starts.last().unwrap() + v.len() as u32);
            }
            assert_eq!(grouped.starts, starts);
        }
    }

    /// Dictionary-coded strings (repeated and unused entries, NULLs, an
    /// out-of-range index under a NULL) encode to the same bytes as the
    /// same rows given plainly.
    #[test]
    fn dictionary_coded_strings_encode_like_plain_ones() {
        let entries: [&[u8]; 5] = [b"b", b"", b"a", b"unused", b"b"];
        let mut bytes = Vec::new();
        let mut offsets = vec![0u64];
        for e in entries {
            bytes.extend_from_slice(e);
            offsets.push(bytes.len() as u64);
        }
        let rows = 3000;
        let indices: Vec<u32> = (0..rows as u32)
            .map(|r| {
                if r % 7 == 3 {
                    99
                } else {
                    [0, 1, 2, 4][((r * 7 + r / 3) % 4) as usize]
                }
            })
            .collect();
        let nulls: Vec<bool> = (0..rows).map(|r| r % 7 == 3).collect();
        let mut plain = ColumnData::new_strings();
        for (r, &e) in indices.iter().enumerate() {
            if nulls[r] {
                plain.push_null();
            } else {
                plain.push_str(entries[e as usize]).unwrap();
            }
        }
        let dict = ColumnData::StringDict {
            bytes,
            offsets,
            indices,
            nulls: Some(nulls),
        };
        let a = encode_block(&schema(), vec![plain]).unwrap();
        let b = encode_block(&schema(), vec![dict]).unwrap();
        assert_eq!(a.bytes, b.bytes);
        assert_eq!(a.chunks[0].distinct.get(), 3);
        assert_eq!(a.chunks[0].as_bytes(), b.chunks[0].as_bytes());
    }

    proptest! {
        /// Dictionary-coded strings encode to the same bytes as the same
        /// rows given plainly, with every string codec: short
        /// strings of a small alphabet make entries repeat each other,
        /// some entries go unused and NULL rows carry any index.
        #[test]
        fn dictionary_and_plain_strings_encode_alike(
            entries in prop::collection::vec(prop::collection::vec(0u8..3, 0..5), 1..40),
            rows in prop::collection::vec((any::<u32>(), prop::bool::weighted(0.1)), 1..400),
            codec in prop::sample::select(vec![Compression::Raw, Compression::Lz4, Compression::Zstd]),
        ) {
            let mut bytes = Vec::new();
            let mut offsets = vec![0u64];
            for e in &entries {
                bytes.extend_from_slice(e);
                offsets.push(bytes.len() as u64);
            }
            let n = entries.len() as u32;
            let mut plain = ColumnData::new_strings();
            let mut indices = Vec::new();
            let mut nulls = Vec::new();
            for &(pick, null) in &rows {
                if null {
                    plain.push_null();
                    indices.push(pick);
                } else {
                    plain.push_str(&entries[(pick % n) as usize]).unwrap();
                    indices.push(pick % n);
                }
                nulls.push(null);
            }
            let dict = ColumnData::StringDict { bytes, offsets, indices, nulls: Some(nulls) };
            let options = EncodeOptions { compression: codec, ..EncodeOptions::default() };
            let a = encode_block_with(&schema(), rows.len(), vec![plain], options).unwrap();
            let b = encode_block_with(&schema(), rows.len(), vec![dict], options).unwrap();
            prop_assert_eq!(&a.bytes, &b.bytes);
            prop_assert_eq!(a.chunks[0].as_bytes(), b.chunks[0].as_bytes());
        }
    }

    /// Dictionary-coded keys (repeated, unused and equal entries, NULLs, an
    /// out-of-range index under a NULL) encode to the same bytes as the same
    /// rows given plainly, for small and wide value ranges.
    #[test]
    fn dictionary_coded_keys_encode_like_plain_ones() {
        let schema = Schema::new(vec![Field::new("k", DataType::Int64, true)]).unwrap();
        for entries in [
            vec![40u64, 3, 40, 1 << 50, 17, 3],
            (0..5000u64)
                .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
                .collect(),
        ] {
            let rows = 7000u32;
            let n = entries.len() as u32;
            let indices: Vec<u32> = (0..rows)
                .map(|r| {
                    if r % 11 == 5 {
                        n + 3
                    } else {
                        (r * 7 + r / 5) % (n - 1)
                    }
                })
                .collect();
            let nulls: Vec<bool> = (0..rows).map(|r| r % 11 == 5).collect();
            let mut plain = ColumnData::new_fixed();
            for (r, &e) in indices.iter().enumerate() {
                if nulls[r] {
                    plain.push_null();
                } else {
                    plain.push_key(entries[e as usize]).unwrap();
                }
            }
            let dict = ColumnData::FixedDict {
                entries,
                indices,
                nulls: Some(nulls),
            };
            let a = encode_block(&schema, vec![plain]).unwrap();
            let b = encode_block(&schema, vec![dict]).unwrap();
            assert_eq!(a.bytes, b.bytes);
            assert_eq!(a.chunks[0].as_bytes(), b.chunks[0].as_bytes());
        }
        let bad = ColumnData::FixedDict {
            entries: vec![1],
            indices: vec![0, 1],
            nulls: None,
        };
        let e = encode_block(&schema, vec![bad]).unwrap_err();
        assert!(e.to_string().contains("entry 1"), "{e}");
    }

    #[test]
    fn byte_order_sorts_like_slices() {
        let words: Vec<Vec<u8>> = [
            &b""[..],
            b"a",
            b"a\0",
            b"a\0\0",
            b"\0",
            b"abcdefghijklmnop",
            b"abcdefghijklmnopq",
            b"abcdefghijklmnop\0",
            b"abcdefghijklmnoq",
            b"\xff\xfe",
            b"\xff",
            b"b",
        ]
        .iter()
        .map(|w| w.to_vec())
        .chain((0..500u32).map(|i| format!("same prefix here {}", i * 7919 % 500).into_bytes()))
        .collect();
        let refs: Vec<&[u8]> = words.iter().map(|w| w.as_slice()).collect();
        let got: Vec<&[u8]> = byte_order(&refs)
            .iter()
            .map(|&i| refs[i as usize])
            .collect();
        let mut want = refs.clone();
        want.sort_unstable();
        assert_eq!(got, want);
    }

    #[test]
    fn a_dictionary_index_past_the_entries_is_refused() {
        let dict = ColumnData::StringDict {
            bytes: b"a".to_vec(),
            offsets: vec![0, 1],
            indices: vec![0, 1],
            nulls: None,
        };
        let e = encode_block(&schema(), vec![dict]).unwrap_err();
        assert!(e.to_string().contains("entry 1"), "{e}");
    }
}

//! String and integer columns read page by page, keeping Parquet's
//! dictionary encoding.
//!
//! Writers (DuckDB, Arrow, Spark) store most columns dictionary-coded: a
//! dictionary page per column chunk, then data pages of entry indices. The
//! `parquet` crate's value readers expand that into one value per row; here
//! the dictionary is kept and the rows become indices into it
//! ([`ColumnData::StringDict`], [`ColumnData::FixedDict`]), so the block
//! encoder hashes or sorts each entry once instead of each row, and integer
//! entries are converted to keys once. Data pages stored `PLAIN` (a writer
//! falls back to them when the dictionary grows too large, midway through a
//! chunk) add their values as entries of their own.
//!
//! Handled: v1 and v2 data pages, every compression the crate decodes (its
//! page reader decompresses), `RLE` and `BIT_PACKED` definition levels, and
//! `PLAIN`, `PLAIN_DICTIONARY` and `RLE_DICTIONARY` values. Column chunks
//! with other encodings (delta, byte-stream split) use the value readers;
//! [`supported`] tells them apart from the chunk's metadata.

use std::sync::Arc;

use bytes::Bytes;
use parquet::basic::Encoding;
use parquet::column::page::{Page, PageReader};
use strata_format::ColumnData;

use super::hybrid;

/// A NULL row among a page's codes.
const NULL: u32 = u32::MAX;

/// Whether a column chunk using `encodings` (from its metadata) can be read
/// by [`DictChunk`]. (`BIT_PACKED` is deprecated, but files from old
/// writers list it for their levels.)
#[allow(deprecated)]
pub(crate) fn supported(mut encodings: impl Iterator<Item = Encoding>) -> bool {
    encodings.all(|e| {
        matches!(
            e,
            Encoding::PLAIN
                | Encoding::PLAIN_DICTIONARY
                | Encoding::RLE_DICTIONARY
                | Encoding::RLE
                | Encoding::BIT_PACKED
        )
    })
}

/// Converts an integer as stored (an INT32 sign-extended) to a column key.
pub(crate) type KeyFn = Arc<dyn Fn(i64) -> Result<u64, String> + Send + Sync>;

/// What a column chunk's values are and become.
#[derive(Clone)]
pub(crate) enum ValueKind {
    /// Byte arrays, kept as they are (a string column).
    Bytes,
    /// INT32 (`width` 4) or INT64 (`width` 8) values, converted to keys.
    Ints { width: usize, key: KeyFn },
}

/// Entries of a dictionary: a chunk's, or those a piece gathers.
#[derive(Default)]
struct Entries {
    /// Byte arrays: their bytes and `entries + 1` offsets.
    bytes: Vec<u8>,
    offsets: Vec<u64>,
    /// Integers: their keys, and the entries that failed to convert (key 0
    /// stands in), ascending.
    keys: Vec<u64>,
    bad: Vec<(u32, String)>,
}

impl Entries {
    fn new() -> Entries {
        Entries {
            offsets: vec![0],
            ..Entries::default()
        }
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.offsets.truncate(1);
        self.keys.clear();
        self.bad.clear();
    }

    fn len(&self) -> usize {
        (self.offsets.len() - 1).max(self.keys.len())
    }

    /// The index the next entry gets, after `more` entries are added.
    fn next_index(&self, more: usize) -> Result<u32, String> {
        let n = self.len();
        u32::try_from(n.saturating_add(more))
            .map(|_| n as u32)
            .map_err(|_| "more than 2^32 dictionary entries in one block".to_string())
    }

    /// Appends a converted integer (or the error converting it).
    fn push_key(&mut self, key: Result<u64, String>) {
        match key {
            Ok(k) => self.keys.push(k),
            Err(e) => {
                self.bad.push((self.keys.len() as u32, e));
                self.keys.push(0);
            }
        }
    }

    /// Appends integer entry `i` of `other`; returns its index.
    fn push_from(&mut self, other: &Entries, i: u32) -> Result<u32, String> {
        let e = self.next_index(1)?;
        self.keys.push(other.keys[i as usize]);
        if let Ok(b) = other.bad.binary_search_by_key(&i, |b| b.0) {
            self.bad.push((e, other.bad[b].1.clone()));
        }
        Ok(e)
    }

    /// Appends the entries of `other`; returns the index of the first.
    fn append(&mut self, other: &Entries) -> Result<u32, String> {
        let first = self.next_index(other.len())?;
        let base = self.bytes.len() as u64;
        self.bytes.extend_from_slice(&other.bytes);
        self.offsets
            .extend(other.offsets.iter().skip(1).map(|&o| o + base));
        self.keys.extend_from_slice(&other.keys);
        self.bad
            .extend(other.bad.iter().map(|(e, m)| (e + first, m.clone())));
        Ok(first)
    }
}

/// A column chunk of a flat schema, read page by page.
pub(crate) struct DictChunk {
    pages: Box<dyn PageReader>,
    kind: ValueKind,
    max_def: u32,
    /// Bits of a definition level.
    def_width: u32,
    /// The chunk's dictionary.
    dict: Entries,
    /// Which dictionary page of the chunk `dict` holds (0: none yet).
    dict_id: u64,
    /// The current data page, one code per row: [`NULL`], or an index into
    /// the dictionary or (`plain_page`) into `plain` / `plain_keys`.
    codes: Vec<u32>,
    plain_page: bool,
    /// The byte arrays of a `PLAIN` page: `(start, end)` in `plain_buf`.
    plain: Vec<(usize, usize)>,
    plain_buf: Bytes,
    /// The integers of a `PLAIN` page, converted.
    plain_keys: Entries,
    /// Rows of `codes` already taken.
    pos: usize,
    /// Scratch: a page's definition levels and its values' indices.
    levels: Vec<u32>,
    indices: Vec<u32>,
}

/// One piece of a column (rows of one chunk going to one block) being built.
pub(crate) struct DictPiece {
    entries: Entries,
    indices: Vec<u32>,
    nulls: Option<Vec<bool>>,
    /// The chunk dictionary copied into the entries, and where it starts.
    dict_id: u64,
    dict_base: u32,
    /// The entry of the last value taken from a PLAIN page, and of the
    /// empty string: rows repeating them share the entry.
    last_plain: Option<u32>,
    empty: Option<u32>,
}

impl DictPiece {
    /// An empty piece for `rows` rows.
    pub(crate) fn new(rows: usize) -> DictPiece {
        DictPiece {
            entries: Entries::new(),
            indices: Vec::with_capacity(rows),
            nulls: None,
            dict_id: 0,
            dict_base: 0,
            last_plain: None,
            empty: None,
        }
    }

    /// The piece's rows that are NULL, ascending.
    pub(crate) fn null_rows(&self) -> impl Iterator<Item = usize> + '_ {
        self.nulls.iter().flat_map(|n| {
            n.iter()
                .enumerate()
                .filter(|(_, &null)| null)
                .map(|(r, _)| r)
        })
    }

    /// The piece's rows whose integer failed to convert, with the reason,
    /// ascending.
    pub(crate) fn bad_rows(&self) -> Vec<(usize, &str)> {
        if self.entries.bad.is_empty() {
            return Vec::new();
        }
        let why = |e: u32| {
            self.entries
                .bad
                .binary_search_by_key(&e, |b| b.0)
                .ok()
                .map(|i| self.entries.bad[i].1.as_str())
        };
        self.indices
            .iter()
            .enumerate()
            .filter(|&(r, _)| !self.nulls.as_ref().is_some_and(|n| n[r]))
            .filter_map(|(r, &e)| why(e).map(|m| (r, m)))
            .collect()
    }

    /// The piece as a column of `kind`'s values.
    pub(crate) fn into_column(self, kind: &ValueKind) -> ColumnData {
        match kind {
            ValueKind::Bytes => ColumnData::StringDict {
                bytes: self.entries.bytes,
                offsets: self.entries.offsets,
                indices: self.indices,
                nulls: self.nulls,
            },
            ValueKind::Ints { .. } => ColumnData::FixedDict {
                entries: self.entries.keys,
                indices: self.indices,
                nulls: self.nulls,
            },
        }
    }

    /// Appends the byte-array entry `value`; returns its index.
    fn add_bytes(&mut self, value: &[u8]) -> Result<u32, String> {
        let e = self.entries.next_index(1)?;
        self.entries.bytes.extend_from_slice(value);
        self.entries.offsets.push(self.entries.bytes.len() as u64);
        Ok(e)
    }

    /// The entry of a value from a PLAIN page: a new one unless it repeats
    /// the previous such value or is empty. (The encoder deduplicates the
    /// entries anyway; this spares it most rows where a chunk went PLAIN.)
    fn plain_entry(&mut self, value: &[u8]) -> Result<u32, String> {
        if value.is_empty() {
            if let Some(e) = self.empty {
                return Ok(e);
            }
        } else if let Some(e) = self.last_plain {
            let o = &self.entries.offsets;
            let (a, b) = (o[e as usize], o[e as usize + 1]);
            if &self.entries.bytes[a as usize..b as usize] == value {
                return Ok(e);
            }
        }
        let e = self.add_bytes(value)?;
        if value.is_empty() {
            self.empty = Some(e);
        } else {
            self.last_plain = Some(e);
        }
        Ok(e)
    }

    fn push_null(&mut self) {
        let len = self.indices.len();
        self.indices.push(0);
        self.nulls
            .get_or_insert_with(|| vec![false; len])
            .push(true);
    }

    fn push(&mut self, index: u32) {
        self.indices.push(index);
        if let Some(n) = &mut self.nulls {
            n.push(false);
        }
    }
}

impl DictChunk {
    /// Reads the chunk behind `pages`, of `kind`'s values, whose definition
    /// levels go up to `max_def` (0 or 1 in a flat schema).
    pub(crate) fn new(pages: Box<dyn PageReader>, kind: ValueKind, max_def: i16) -> DictChunk {
        let max_def = u32::try_from(max_def).unwrap_or(0);
        DictChunk {
            pages,
            kind,
            max_def,
            def_width: u32::BITS - max_def.leading_zeros(),
            dict: Entries::new(),
            dict_id: 0,
            codes: Vec::new(),
            plain_page: false,
            plain: Vec::new(),
            plain_buf: Bytes::new(),
            plain_keys: Entries::new(),
            pos: 0,
            levels: Vec::new(),
            indices: Vec::new(),
        }
    }

    /// What the chunk's values are and become.
    pub(crate) fn kind(&self) -> &ValueKind {
        &self.kind
    }

    /// Appends the next `rows` rows of the chunk to `piece`.
    pub(crate) fn take(&mut self, rows: usize, piece: &mut DictPiece) -> Result<(), String> {
        let mut left = rows;
        while left > 0 {
            if self.pos == self.codes.len() {
                if !self.next_page()? {
                    return Err(format!(
                        "column chunk ended after {} of {rows} expected rows",
                        rows - left
                    ));
                }
                continue;
            }
            let n = left.min(self.codes.len() - self.pos);
            let codes = &self.codes[self.pos..self.pos + n];
            if !self.plain_page {
                if piece.dict_id != self.dict_id {
                    piece.dict_base = piece.entries.append(&self.dict)?;
                    piece.dict_id = self.dict_id;
                }
                let base = piece.dict_base;
                if piece.nulls.is_none() && !codes.contains(&NULL) {
                    piece.indices.extend(codes.iter().map(|&c| base + c));
                } else {
                    for &c in codes {
                        if c == NULL {
                            piece.push_null();
                        } else {
                            piece.push(base + c);
                        }
                    }
                }
            } else if let ValueKind::Ints { .. } = self.kind {
                // Each value its own entry: the encoder sorts them anyway.
                for &c in codes {
                    if c == NULL {
                        piece.push_null();
                    } else {
                        let e = piece.entries.push_from(&self.plain_keys, c)?;
                        piece.push(e);
                    }
                }
            } else {
                for &c in codes {
                    if c == NULL {
                        piece.push_null();
                    } else {
                        let (a, b) = self.plain[c as usize];
                        let e = piece.plain_entry(&self.plain_buf[a..b])?;
                        piece.push(e);
                    }
                }
            }
            self.pos += n;
            left -= n;
        }
        Ok(())
    }

    /// Reads the next page: a dictionary into `dict_*`, a data page into
    /// `codes`. False at the end of the chunk.
    #[allow(deprecated)] // BIT_PACKED levels, from old writers
    fn next_page(&mut self) -> Result<bool, String> {
        let Some(page) = self.pages.get_next_page().map_err(|e| e.to_string())? else {
            return Ok(false);
        };
        match page {
            Page::DictionaryPage {
                buf,
                num_values,
                encoding,
                ..
            } => {
                if !matches!(encoding, Encoding::PLAIN | Encoding::PLAIN_DICTIONARY) {
                    return Err(format!("a dictionary page encoded {encoding}"));
                }
                self.dict.clear();
                match &self.kind {
                    ValueKind::Bytes => {
                        self.plain.clear();
                        plain_spans(&buf, num_values as usize, &mut self.plain)?;
                        for &(a, b) in &self.plain {
                            self.dict.bytes.extend_from_slice(&buf[a..b]);
                            self.dict.offsets.push(self.dict.bytes.len() as u64);
                        }
                        self.plain.clear();
                    }
                    ValueKind::Ints { width, key } => {
                        plain_ints(&buf, *width, num_values as usize, key, &mut self.dict)?;
                    }
                }
                self.dict_id += 1;
                self.codes.clear();
                self.pos = 0;
            }
            Page::DataPage {
                buf,
                num_values,
                encoding,
                def_level_encoding,
                ..
            } => {
                let rows = num_values as usize;
                let mut start = 0;
                self.levels.clear();
                if self.max_def > 0 {
                    start = match def_level_encoding {
                        Encoding::RLE => {
                            let len = buf
                                .get(..4)
                                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
                                .ok_or("definition levels are cut off")?;
                            let levels =
                                buf.get(4..4 + len).ok_or("definition levels are cut off")?;
                            hybrid::decode(levels, self.def_width, rows, &mut self.levels)?;
                            4 + len
                        }
                        Encoding::BIT_PACKED => hybrid::decode_bit_packed_msb(
                            &buf,
                            self.def_width,
                            rows,
                            &mut self.levels,
                        )?,
                        e => return Err(format!("definition levels encoded {e}")),
                    };
                }
                self.data_page(buf.slice(start..), rows, encoding)?;
            }
            Page::DataPageV2 {
                buf,
                num_values,
                encoding,
                def_levels_byte_len,
                rep_levels_byte_len,
                ..
            } => {
                let rows = num_values as usize;
                let rep = rep_levels_byte_len as usize;
                let end = rep + def_levels_byte_len as usize;
                let levels = buf.get(rep..end).ok_or("definition levels are cut off")?;
                self.levels.clear();
                if self.max_def > 0 {
                    hybrid::decode(levels, self.def_width, rows, &mut self.levels)?;
                }
                self.data_page(buf.slice(end..), rows, encoding)?;
            }
        }
        Ok(true)
    }

    /// Decodes the values of a data page of `rows` rows (levels in
    /// `self.levels`) into `codes`.
    fn data_page(&mut self, values: Bytes, rows: usize, encoding: Encoding) -> Result<(), String> {
        let present = if self.max_def > 0 {
            self.levels.iter().filter(|&&l| l == self.max_def).count()
        } else {
            rows
        };
        self.indices.clear();
        self.plain.clear();
        match encoding {
            Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY => {
                if present > 0 {
                    if self.dict_id == 0 {
                        return Err("a dictionary-coded page before any dictionary".into());
                    }
                    let (&width, packed) = values
                        .split_first()
                        .ok_or("dictionary indices are cut off")?;
                    hybrid::decode(packed, u32::from(width), present, &mut self.indices)?;
                    let entries = self.dict.len();
                    if let Some(&bad) = self.indices.iter().find(|&&i| i as usize >= entries) {
                        return Err(format!(
                            "dictionary index {bad} in a dictionary of {entries} entries"
                        ));
                    }
                }
            }
            Encoding::PLAIN => {
                match &self.kind {
                    ValueKind::Bytes => {
                        plain_spans(&values, present, &mut self.plain)?;
                        self.plain_buf = values;
                    }
                    ValueKind::Ints { width, key } => {
                        self.plain_keys.clear();
                        plain_ints(&values, *width, present, key, &mut self.plain_keys)?;
                    }
                }
                self.indices.extend(0..present as u32);
            }
            e => return Err(format!("values encoded {e}")),
        }
        self.plain_page = encoding == Encoding::PLAIN;
        self.codes.clear();
        self.pos = 0;
        if present == rows {
            std::mem::swap(&mut self.codes, &mut self.indices);
        } else {
            let mut it = self.indices.iter();
            for &l in &self.levels {
                self.codes.push(if l == self.max_def {
                    it.next().copied().unwrap_or(NULL)
                } else {
                    NULL
                });
            }
        }
        Ok(())
    }
}

/// Converts `count` PLAIN integers of `width` bytes (4 or 8, little-endian)
/// at the start of `buf` with `key`, appending them to `out`.
fn plain_ints(
    buf: &[u8],
    width: usize,
    count: usize,
    key: &KeyFn,
    out: &mut Entries,
) -> Result<(), String> {
    let bytes = buf
        .get(..count.saturating_mul(width))
        .ok_or("PLAIN values are cut off")?;
    out.keys.reserve(count);
    for v in bytes.chunks_exact(width) {
        let raw = if width == 4 {
            i64::from(i32::from_le_bytes([v[0], v[1], v[2], v[3]]))
        } else {
            i64::from_le_bytes([v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]])
        };
        out.push_key(key(raw));
    }
    Ok(())
}

/// The `(start, end)` of `count` PLAIN byte arrays (a 4-byte little-endian
/// length, then the bytes) at the start of `buf`.
fn plain_spans(buf: &[u8], count: usize, out: &mut Vec<(usize, usize)>) -> Result<(), String> {
    out.reserve(count);
    let mut pos = 0;
    for _ in 0..count {
        let len = buf
            .get(pos..pos + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or("a PLAIN value is cut off")?;
        let start = pos + 4;
        let end = start
            .checked_add(len)
            .filter(|&e| e <= buf.len())
            .ok_or("a PLAIN value is cut off")?;
        out.push((start, end));
        pos = end;
    }
    Ok(())
}

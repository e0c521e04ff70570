//! String columns read page by page, keeping Parquet's dictionary encoding.
//!
//! Writers (DuckDB, Arrow, Spark) store strings dictionary-coded: a
//! dictionary page per column chunk, then data pages of entry indices. The
//! `parquet` crate's value readers expand that into one `ByteArray` per row;
//! here the dictionary is kept as one buffer and the rows as indices into it
//! ([`ColumnData::StringDict`]), so the block encoder hashes each entry once
//! instead of each row. Data pages stored `PLAIN` (a writer falls back to
//! them when the dictionary grows too large, midway through a chunk) add
//! their values as entries of their own.
//!
//! Handled: v1 and v2 data pages, every compression the crate decodes (its
//! page reader decompresses), `RLE` and `BIT_PACKED` definition levels, and
//! `PLAIN`, `PLAIN_DICTIONARY` and `RLE_DICTIONARY` values. Column chunks
//! with other encodings (delta, byte-stream split) use the value readers;
//! [`supported`] tells them apart from the chunk's metadata.

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

/// A byte-array column chunk of a flat schema, read page by page.
pub(crate) struct DictChunk {
    pages: Box<dyn PageReader>,
    max_def: u32,
    /// Bits of a definition level.
    def_width: u32,
    /// The chunk's dictionary: entries' bytes and `entries + 1` offsets.
    dict_bytes: Vec<u8>,
    dict_offsets: Vec<u64>,
    /// Which dictionary page of the chunk `dict_*` holds (0: none yet).
    dict_id: u64,
    /// The current data page, one code per row: [`NULL`], or an index into
    /// the dictionary or (`plain_page`) into `plain`.
    codes: Vec<u32>,
    plain_page: bool,
    /// The values of a `PLAIN` page: `(start, end)` in `plain_buf`.
    plain: Vec<(usize, usize)>,
    plain_buf: Bytes,
    /// Rows of `codes` already taken.
    pos: usize,
    /// Scratch: a page's definition levels and its values' indices.
    levels: Vec<u32>,
    indices: Vec<u32>,
}

/// One piece of a column (rows of one chunk going to one block) being built.
pub(crate) struct DictPiece {
    bytes: Vec<u8>,
    offsets: Vec<u64>,
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
            bytes: Vec::new(),
            offsets: vec![0],
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

    /// The piece as a column.
    pub(crate) fn into_column(self) -> ColumnData {
        ColumnData::StringDict {
            bytes: self.bytes,
            offsets: self.offsets,
            indices: self.indices,
            nulls: self.nulls,
        }
    }

    fn entries(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Appends entries `bytes[spans]` and returns the index of the first.
    fn add_entries(
        &mut self,
        bytes: &[u8],
        spans: impl ExactSizeIterator<Item = (u64, u64)>,
    ) -> Result<u32, String> {
        let first = self.entries();
        u32::try_from(first + spans.len())
            .map_err(|_| "more than 2^32 dictionary entries in one block".to_string())?;
        for (a, b) in spans {
            self.bytes.extend_from_slice(&bytes[a as usize..b as usize]);
            self.offsets.push(self.bytes.len() as u64);
        }
        Ok(first as u32)
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
            let (a, b) = (self.offsets[e as usize], self.offsets[e as usize + 1]);
            if &self.bytes[a as usize..b as usize] == value {
                return Ok(e);
            }
        }
        let e = self.add_entries(value, std::iter::once((0, value.len() as u64)))?;
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
    /// Reads the chunk behind `pages`, whose definition levels go up to
    /// `max_def` (0 or 1 in a flat schema).
    pub(crate) fn new(pages: Box<dyn PageReader>, max_def: i16) -> DictChunk {
        let max_def = u32::try_from(max_def).unwrap_or(0);
        DictChunk {
            pages,
            max_def,
            def_width: u32::BITS - max_def.leading_zeros(),
            dict_bytes: Vec::new(),
            dict_offsets: vec![0],
            dict_id: 0,
            codes: Vec::new(),
            plain_page: false,
            plain: Vec::new(),
            plain_buf: Bytes::new(),
            pos: 0,
            levels: Vec::new(),
            indices: Vec::new(),
        }
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
                    let spans = self.dict_offsets.windows(2).map(|w| (w[0], w[1]));
                    piece.dict_base = piece.add_entries(&self.dict_bytes, spans)?;
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
                self.plain.clear();
                plain_spans(&buf, num_values as usize, &mut self.plain)?;
                self.dict_bytes.clear();
                self.dict_offsets.clear();
                self.dict_offsets.push(0);
                for &(a, b) in &self.plain {
                    self.dict_bytes.extend_from_slice(&buf[a..b]);
                    self.dict_offsets.push(self.dict_bytes.len() as u64);
                }
                self.plain.clear();
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
                    let entries = self.dict_offsets.len() - 1;
                    if let Some(&bad) = self.indices.iter().find(|&&i| i as usize >= entries) {
                        return Err(format!(
                            "dictionary index {bad} in a dictionary of {entries} entries"
                        ));
                    }
                }
            }
            Encoding::PLAIN => {
                plain_spans(&values, present, &mut self.plain)?;
                self.indices.extend(0..present as u32);
                self.plain_buf = values;
            }
            e => return Err(format!("string values encoded {e}")),
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

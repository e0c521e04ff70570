//! Spilled pages: how a run file stores a few thousand rows of every column.
//!
//! A page is the row count (u32) and then each column in schema order:
//! its kind (0 fixed, 1 strings), whether it has NULL flags (0 or 1) and if
//! so a bitmap of them, then [`pack`]ed keys (for strings, the lengths),
//! and for strings the bytes' length, a codec byte and either the bytes
//! (codec 0) or their LZ4 block's length and the block (codec 1). All
//! integers are little-endian. The format is private to one ingest: runs
//! live only until their merge.
//!
//! Writing reads the rows straight from the block's columns in sorted order
//! (no reordered copy of the block is made); reading refills the buffers of
//! a page the merge is done with (so the merge does not allocate, and
//! fault in, fresh memory for every page).

use strata_format::ColumnData;

use crate::error::{IngestError, Result};

const KIND_FIXED: u8 = 0;
const KIND_STRINGS: u8 = 1;

const CODEC_RAW: u8 = 0;
const CODEC_LZ4: u8 = 1;

/// A page read back: its rows of every column.
#[derive(Debug)]
pub(super) struct Page {
    pub(super) rows: usize,
    pub(super) columns: Vec<PageColumn>,
    /// The rows' normalized sort keys, when the merge has a layout for
    /// them (module `norm`); else empty.
    pub(super) norm: Vec<u128>,
}

/// A column of a page read back.
///
/// Keys stay packed as written, a byte or two per key instead of eight:
/// the merge holds some 150 pages at a time, and this took a third of a
/// GiB off the 10M-row sorted ingest's peak memory.
#[derive(Debug)]
pub(super) enum PageColumn {
    /// Fixed-width keys of `rows` rows: the page's smallest key, and each
    /// row's difference from it in `width` (0, 1, 2, 4 or 8) bytes,
    /// little-endian.
    Keys {
        rows: usize,
        min: u64,
        width: usize,
        deltas: Vec<u8>,
        nulls: Option<Vec<bool>>,
    },
    /// Strings: row `i` is `bytes[offsets[i]..offsets[i + 1]]`.
    Strings {
        bytes: Vec<u8>,
        offsets: Vec<u64>,
        nulls: Option<Vec<bool>>,
    },
}

impl PageColumn {
    /// One flag per row, if the column has NULLs.
    pub(super) fn null_flags(&self) -> Option<&[bool]> {
        match self {
            PageColumn::Keys { nulls, .. } | PageColumn::Strings { nulls, .. } => nulls.as_deref(),
        }
    }

    /// A key column's rows, smallest key, width and packed differences.
    fn packed(&self) -> Option<(usize, u64, usize, &[u8])> {
        match self {
            PageColumn::Keys {
                rows,
                min,
                width,
                deltas,
                ..
            } => Some((*rows, *min, *width, deltas)),
            PageColumn::Strings { .. } => None,
        }
    }

    /// Appends the keys of rows `start..end` to `out`; `None` for strings
    /// or rows past the end.
    pub(super) fn extend_keys(&self, start: usize, end: usize, out: &mut Vec<u64>) -> Option<()> {
        let (rows, min, width, deltas) = self.packed()?;
        if start > end || end > rows {
            return None;
        }
        let d = deltas.get(start.checked_mul(width)?..end.checked_mul(width)?)?;
        extend_unpacked(min, width, d, end - start, out);
        Some(())
    }

    /// Appends every row's key to `out`; `None` for strings.
    pub(super) fn unpack_keys(&self, out: &mut Vec<u64>) -> Option<()> {
        let (rows, min, width, deltas) = self.packed()?;
        extend_unpacked(min, width, deltas, rows, out);
        Some(())
    }
}

impl super::Cells for PageColumn {
    fn is_null(&self, i: usize) -> bool {
        self.null_flags()
            .is_some_and(|n| n.get(i).copied().unwrap_or(false))
    }

    fn key_at(&self, i: usize) -> Option<u64> {
        let (rows, min, w, deltas) = self.packed()?;
        if i >= rows {
            return None;
        }
        let d = deltas.get(i.checked_mul(w)?..i.checked_mul(w)?.checked_add(w)?)?;
        let mut b = [0u8; 8];
        b[..w].copy_from_slice(d);
        Some(min.wrapping_add(u64::from_le_bytes(b)))
    }

    fn str_at(&self, i: usize) -> Option<&[u8]> {
        let PageColumn::Strings { bytes, offsets, .. } = self else {
            return None;
        };
        let start = usize::try_from(*offsets.get(i)?).ok()?;
        let end = usize::try_from(*offsets.get(i + 1)?).ok()?;
        bytes.get(start..end)
    }
}

/// Writes pages, reusing its buffers from column to column and page to page.
#[derive(Debug, Default)]
pub(super) struct PageWriter {
    keys: Vec<u64>,
    bytes: Vec<u8>,
    /// Whether strings are compressed (LZ4), else stored as they are.
    pub(super) compress: bool,
}

impl PageWriter {
    /// Appends the page of `columns`' rows `rows`, in that order, to `out`.
    /// A NULL row's key is written as 0 when the column has no key for it
    /// (a dictionary index past the entries), its string as empty.
    pub(super) fn write(
        &mut self,
        columns: &[ColumnData],
        rows: &[u32],
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let missing = || IngestError::Internal("a sorted page row outside its block".into());
        let count = u32::try_from(rows.len())
            .map_err(|_| IngestError::Internal("too many rows in one page".into()))?;
        out.extend_from_slice(&count.to_le_bytes());
        for col in columns {
            let is_string = matches!(
                col,
                ColumnData::Strings { .. } | ColumnData::StringDict { .. }
            );
            out.push(if is_string { KIND_STRINGS } else { KIND_FIXED });
            let nulls = col.null_flags();
            out.push(nulls.is_some() as u8);
            if let Some(n) = nulls {
                let start = out.len();
                out.resize(start + rows.len().div_ceil(8), 0);
                for (i, &r) in rows.iter().enumerate() {
                    if *n.get(r as usize).ok_or_else(missing)? {
                        out[start + i / 8] |= 1 << (i % 8);
                    }
                }
            }
            let null_at = |r: u32| nulls.is_some_and(|n| n.get(r as usize) == Some(&true));
            self.keys.clear();
            self.bytes.clear();
            match col {
                ColumnData::Fixed { keys, .. } => {
                    for &r in rows {
                        self.keys.push(*keys.get(r as usize).ok_or_else(missing)?);
                    }
                }
                ColumnData::FixedDict { .. } => {
                    for &r in rows {
                        let key = match col.key_at(r as usize) {
                            None if null_at(r) => 0,
                            key => key.ok_or_else(missing)?,
                        };
                        self.keys.push(key);
                    }
                }
                ColumnData::Strings { .. } | ColumnData::StringDict { .. } => {
                    for &r in rows {
                        let s = match col.str_at(r as usize) {
                            None if null_at(r) => &[][..],
                            s => s.ok_or_else(missing)?,
                        };
                        self.bytes.extend_from_slice(s);
                        self.keys.push(s.len() as u64);
                    }
                }
            }
            pack(&self.keys, out);
            if is_string {
                out.extend_from_slice(&(self.bytes.len() as u64).to_le_bytes());
                if self.compress {
                    out.push(CODEC_LZ4);
                    compress_into(&self.bytes, out)?;
                } else {
                    out.push(CODEC_RAW);
                    out.extend_from_slice(&self.bytes);
                }
            }
        }
        Ok(())
    }
}

/// Appends the length of `bytes`' LZ4 block and the block to `out`.
fn compress_into(bytes: &[u8], out: &mut Vec<u8>) -> Result<()> {
    let at = out.len();
    out.extend_from_slice(&[0; 8]);
    let start = out.len();
    out.resize(
        start + lz4_flex::block::get_maximum_output_size(bytes.len()),
        0,
    );
    let n = lz4_flex::block::compress_into(bytes, &mut out[start..])
        .map_err(|e| IngestError::Internal(format!("compressing a sorted page: {e}")))?;
    out.truncate(start + n);
    out[at..start].copy_from_slice(&(n as u64).to_le_bytes());
    Ok(())
}

/// Appends `keys` as their smallest value and each one's difference from it
/// in 0, 1, 2, 4 or 8 bytes (whichever the largest difference needs).
fn pack(keys: &[u64], out: &mut Vec<u8>) {
    let (mut min, mut max) = (u64::MAX, 0);
    for &k in keys {
        min = min.min(k);
        max = max.max(k);
    }
    if keys.is_empty() {
        min = 0;
    }
    let width = match max - min {
        0 => 0,
        1..=0xff => 1,
        0x100..=0xffff => 2,
        0x1_0000..=0xffff_ffff => 4,
        _ => 8,
    };
    out.extend_from_slice(&min.to_le_bytes());
    out.push(width);
    out.reserve(keys.len() * width as usize);
    match width {
        0 => {}
        1 => out.extend(keys.iter().map(|&k| (k - min) as u8)),
        2 => keys
            .iter()
            .for_each(|&k| out.extend_from_slice(&((k - min) as u16).to_le_bytes())),
        4 => keys
            .iter()
            .for_each(|&k| out.extend_from_slice(&((k - min) as u32).to_le_bytes())),
        _ => keys
            .iter()
            .for_each(|&k| out.extend_from_slice(&(k - min).to_le_bytes())),
    }
}

/// Reads what [`pack`] wrote for `rows` keys: the smallest key, the width
/// and the packed differences.
fn read_packed<'a>(r: &mut Reader<'a>, rows: usize) -> Option<(u64, usize, &'a [u8])> {
    let min = r.u64()?;
    let width = usize::from(r.u8()?);
    if !matches!(width, 0 | 1 | 2 | 4 | 8) {
        return None;
    }
    Some((min, width, r.take(rows.checked_mul(width)?)?))
}

/// Appends the `rows` keys [`pack`] wrote to `out`.
fn unpack(r: &mut Reader<'_>, rows: usize, out: &mut Vec<u64>) -> Option<()> {
    let (min, width, packed) = read_packed(r, rows)?;
    extend_unpacked(min, width, packed, rows, out);
    Some(())
}

/// Appends `count` keys to `out`: `min` plus each `width`-byte difference
/// in `packed` (which holds `count` of them).
fn extend_unpacked(min: u64, width: usize, packed: &[u8], count: usize, out: &mut Vec<u64>) {
    match width {
        0 => out.resize(out.len() + count, min),
        1 => out.extend(packed.iter().map(|&d| min.wrapping_add(u64::from(d)))),
        2 => out.extend(
            packed
                .chunks_exact(2)
                .map(|d| min.wrapping_add(u64::from(u16::from_le_bytes([d[0], d[1]])))),
        ),
        4 => out.extend(
            packed
                .chunks_exact(4)
                .map(|d| min.wrapping_add(u64::from(u32::from_le_bytes([d[0], d[1], d[2], d[3]])))),
        ),
        _ => out.extend(packed.chunks_exact(8).map(|d| {
            let mut b = [0u8; 8];
            b.copy_from_slice(d);
            min.wrapping_add(u64::from_le_bytes(b))
        })),
    }
}

/// Reads bytes off the front of a page.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.bytes.len() {
            return None;
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Some(head)
    }

    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
}

/// The buffers of a column of a page the merge is done with, emptied.
#[derive(Default)]
struct Buffers {
    /// A string column's offsets.
    words: Vec<u64>,
    /// Strings, or packed keys.
    bytes: Vec<u8>,
    nulls: Vec<bool>,
}

impl Buffers {
    fn of(column: PageColumn) -> Buffers {
        let (words, bytes, nulls) = match column {
            PageColumn::Keys { deltas, nulls, .. } => (Vec::new(), deltas, nulls),
            PageColumn::Strings {
                bytes,
                offsets,
                nulls,
            } => (offsets, bytes, nulls),
        };
        let mut nulls = nulls.unwrap_or_default();
        nulls.clear();
        Buffers {
            words,
            bytes,
            nulls,
        }
    }
}

/// Reads a page [`PageWriter::write`] wrote, checking it against the
/// columns' kinds (`true` for strings); `None` if it does not read back.
/// `spare`, a page the caller is done with, lends its buffers.
pub(super) fn decode(bytes: &[u8], string_columns: &[bool], spare: Option<Page>) -> Option<Page> {
    let mut r = Reader { bytes };
    let rows = r.u32()? as usize;
    let (spares, mut norm) = spare.map(|p| (p.columns, p.norm)).unwrap_or_default();
    norm.clear();
    let mut spares = spares.into_iter();
    let mut columns = Vec::with_capacity(string_columns.len());
    for &is_string in string_columns {
        let Buffers {
            mut words,
            bytes: mut data,
            mut nulls,
        } = spares.next().map(Buffers::of).unwrap_or_default();
        let kind = r.u8()?;
        if kind != if is_string { KIND_STRINGS } else { KIND_FIXED } {
            return None;
        }
        let nulls = match r.u8()? {
            0 => None,
            1 => {
                let bits = r.take(rows.div_ceil(8))?;
                nulls.extend((0..rows).map(|i| bits[i / 8] >> (i % 8) & 1 == 1));
                Some(nulls)
            }
            _ => return None,
        };
        if is_string {
            // 0 and the lengths, then their running sums in place: the offsets.
            let mut offsets = std::mem::take(&mut words);
            offsets.clear();
            offsets.push(0);
            unpack(&mut r, rows, &mut offsets)?;
            let mut end = 0u64;
            for o in offsets.iter_mut() {
                end = end.checked_add(*o)?;
                *o = end;
            }
            let len = usize::try_from(r.u64()?).ok()?;
            if end != len as u64 {
                return None;
            }
            data.clear();
            match r.u8()? {
                CODEC_RAW => data.extend_from_slice(r.take(len)?),
                CODEC_LZ4 => {
                    let packed_len = usize::try_from(r.u64()?).ok()?;
                    data.resize(len, 0);
                    let n =
                        lz4_flex::block::decompress_into(r.take(packed_len)?, &mut data).ok()?;
                    if n != len {
                        return None;
                    }
                }
                _ => return None,
            }
            columns.push(PageColumn::Strings {
                bytes: data,
                offsets,
                nulls,
            });
        } else {
            let (min, width, packed) = read_packed(&mut r, rows)?;
            data.clear();
            data.extend_from_slice(packed);
            columns.push(PageColumn::Keys {
                rows,
                min,
                width,
                deltas: data,
                nulls,
            });
        }
    }
    if !r.bytes.is_empty() || rows == 0 {
        return None;
    }
    Some(Page {
        rows,
        columns,
        norm,
    })
}

#[cfg(test)]
mod tests {
    use super::super::Cells;
    use super::*;

    /// A fixed, a string and a dictionary-coded string column with NULLs.
    fn columns() -> Vec<ColumnData> {
        let mut k = ColumnData::new_fixed();
        let mut s = ColumnData::new_strings();
        for (key, string) in [
            (Some(u64::MAX), None),
            (None, Some("xyz")),
            (Some(0), Some("")),
        ] {
            match key {
                Some(key) => k.push_key(key).unwrap(),
                None => k.push_null(),
            }
            match string {
                Some(v) => s.push_str(v.as_bytes()).unwrap(),
                None => s.push_null(),
            }
        }
        // Row 1 is NULL and points past the dictionary, as readers may leave it.
        let d = ColumnData::StringDict {
            bytes: b"ab".to_vec(),
            offsets: vec![0, 1, 2],
            indices: vec![1, 9, 0],
            nulls: Some(vec![false, true, false]),
        };
        let f = ColumnData::FixedDict {
            entries: vec![10, 20],
            indices: vec![0, 9, 1],
            nulls: Some(vec![false, true, false]),
        };
        vec![k, s, d, f]
    }

    const KINDS: [bool; 4] = [false, true, true, false];

    /// Row `i` of `columns` as (NULL or key or string) per column.
    fn row<C: Cells>(columns: &[C], i: usize) -> Vec<Option<Vec<u8>>> {
        columns
            .iter()
            .map(|c| {
                (!c.is_null(i)).then(|| match c.key_at(i) {
                    Some(k) => k.to_le_bytes().to_vec(),
                    None => c.str_at(i).unwrap().to_vec(),
                })
            })
            .collect()
    }

    #[test]
    fn pages_hold_the_rows_in_the_order_given_and_reject_damage() {
        let cols = columns();
        let order = [2u32, 0, 1];
        for compress in [false, true] {
            let mut bytes = Vec::new();
            PageWriter {
                compress,
                ..PageWriter::default()
            }
            .write(&cols, &order, &mut bytes)
            .unwrap();
            let page = decode(&bytes, &KINDS, None).unwrap();
            assert_eq!(page.rows, 3);
            for (i, &r) in order.iter().enumerate() {
                assert_eq!(row(&page.columns, i), row(&cols, r as usize));
            }
            // A NULL row past the dictionary reads back as a NULL.
            assert!(page.columns[2].is_null(2) && page.columns[3].is_null(2));
            for cut in 0..bytes.len() {
                assert!(decode(&bytes[..cut], &KINDS, None).is_none());
            }
            assert!(decode(&bytes, &[true, true, true, false], None).is_none());
        }
    }

    #[test]
    fn an_unknown_string_codec_is_damage() {
        let col = ColumnData::Strings {
            bytes: b"abc".to_vec(),
            offsets: vec![0, 3],
            nulls: None,
        };
        let mut bytes = Vec::new();
        PageWriter::default()
            .write(&[col], &[0], &mut bytes)
            .unwrap();
        assert!(decode(&bytes, &[true], None).is_some());
        // The codec byte sits before the 3 raw bytes at the end.
        let at = bytes.len() - 4;
        assert_eq!(bytes[at], CODEC_RAW);
        bytes[at] = 9;
        assert!(decode(&bytes, &[true], None).is_none());
    }

    #[test]
    fn a_spare_page_lends_its_buffers_whatever_it_held() {
        let cols = columns();
        let mut writer = PageWriter {
            compress: true,
            ..PageWriter::default()
        };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        writer.write(&cols, &[0, 1, 2, 2, 1], &mut a).unwrap();
        writer.write(&cols, &[1], &mut b).unwrap();
        let first = decode(&a, &KINDS, None).unwrap();
        let again = decode(&b, &KINDS, Some(first)).unwrap();
        assert_eq!(again.rows, 1);
        assert_eq!(row(&again.columns, 0), row(&cols, 1));
        // A spare of other kinds (a page of another schema) is only buffers.
        let odd = Page {
            rows: 1,
            columns: vec![
                PageColumn::Strings {
                    bytes: b"xy".to_vec(),
                    offsets: vec![0, 2],
                    nulls: None,
                },
                PageColumn::Keys {
                    rows: 1,
                    min: 5,
                    width: 8,
                    deltas: vec![0; 8],
                    nulls: Some(vec![true]),
                },
            ],
            norm: vec![7],
        };
        let page = decode(&a, &KINDS, Some(odd)).unwrap();
        assert!(
            page.norm.is_empty(),
            "a spare's sort keys are not the page's"
        );
        for (i, &r) in [0usize, 1, 2, 2, 1].iter().enumerate() {
            assert_eq!(row(&page.columns, i), row(&cols, r));
        }
    }

    #[test]
    fn a_row_outside_the_block_is_an_error() {
        let cols = columns();
        for c in &cols {
            let e = PageWriter::default()
                .write(std::slice::from_ref(c), &[0, 3], &mut Vec::new())
                .unwrap_err();
            assert!(e.to_string().contains("outside its block"), "{e}");
        }
        // A dictionary index past the entries on a row that is not NULL.
        let bad = ColumnData::FixedDict {
            entries: vec![10],
            indices: vec![0, 9],
            nulls: None,
        };
        assert!(PageWriter::default()
            .write(&[bad], &[1, 0], &mut Vec::new())
            .is_err());
    }

    #[test]
    fn packed_keys_read_back_in_ranges_at_every_width() {
        let mut writer = PageWriter::default();
        for keys in [
            vec![7; 5],
            vec![3, 200, 4, 9, 100],
            vec![0, 65_536, 1, 2, 3],
            vec![1 << 40, (1 << 40) + 70_000, 1 << 40, 5 << 40, 1 << 40],
            vec![u64::MAX, 0, 65_536, 1, 2],
        ] {
            let mut col = ColumnData::new_fixed();
            keys.iter().for_each(|&k| col.push_key(k).unwrap());
            let mut bytes = Vec::new();
            writer.write(&[col], &[0, 1, 2, 3, 4], &mut bytes).unwrap();
            let page = decode(&bytes, &[false], None).unwrap();
            let c = &page.columns[0];
            for (i, &k) in keys.iter().enumerate() {
                assert_eq!(c.key_at(i), Some(k));
            }
            assert_eq!(c.key_at(5), None);
            let mut out = vec![1];
            c.extend_keys(1, 4, &mut out).unwrap();
            c.extend_keys(2, 2, &mut out).unwrap();
            assert_eq!(out[1..], keys[1..4]);
            assert!(c.extend_keys(3, 6, &mut out).is_none());
            assert_eq!(out.len(), 4, "a failed range appends nothing");
            let mut all = vec![1];
            c.unpack_keys(&mut all).unwrap();
            assert_eq!(all[1..], keys);
        }
    }

    #[test]
    fn keys_pack_in_the_width_their_spread_needs() {
        for keys in [
            vec![],
            vec![7; 5],
            vec![3, 200, 4],
            vec![u64::MAX, 0, 65_536],
            vec![1 << 40, (1 << 40) + 70_000],
        ] {
            let mut out = Vec::new();
            pack(&keys, &mut out);
            let mut back = vec![99];
            unpack(&mut Reader { bytes: &out }, keys.len(), &mut back).unwrap();
            assert_eq!(back[1..], keys[..]);
        }
    }
}

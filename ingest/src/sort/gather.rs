//! Building a merged chunk's columns from the pages its rows come from.
//!
//! Merged runs interleave finely: with ClickBench's key a 512K-row block
//! is about 157K segments of 3 rows on average, taken from some 150 pages.
//! So each column first looks up its part of every page once. Strings are
//! copied a segment at a time. Keys are unpacked page by page into one
//! array and then picked row by row through an index of the chunk's rows
//! in that array, built once for all columns: a loop per segment, a few
//! rows long, mispredicted its end about once per segment and column.

use std::cell::RefCell;
use std::sync::Arc;

use rayon::prelude::*;
use strata_format::ColumnData;

use super::page::{Page, PageColumn};

/// Consecutive rows `start..end` of one page (by its slot in the chunk's
/// page list) in the merged order.
#[derive(Debug, Clone, Copy)]
pub(super) struct Segment {
    pub(super) slot: u32,
    pub(super) start: u32,
    pub(super) end: u32,
}

impl Segment {
    /// The page's slot.
    fn slot(&self) -> usize {
        self.slot as usize
    }

    /// The page's rows.
    fn rows(&self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// Builds the columns (strings where `string_columns` says so, else plain
/// keys) of the `rows` rows `order` picks from the pages in `slots`, a
/// column per task on `pool`.
pub(super) fn gather(
    slots: &[Arc<Page>],
    order: &[Segment],
    rows: usize,
    string_columns: &[bool],
    pool: &rayon::ThreadPool,
) -> Vec<ColumnData> {
    let index = RowIndex::new(slots, order, rows);
    pool.install(|| {
        (0..string_columns.len())
            .into_par_iter()
            .map(|c| {
                let parts: Vec<Option<&PageColumn>> =
                    slots.iter().map(|p| p.columns.get(c)).collect();
                let nulls = gather_nulls(&parts, order, rows);
                if string_columns[c] {
                    gather_strings(&parts, order, rows, nulls)
                } else if let Some(index) = &index {
                    pick_keys(&parts, slots, index, nulls)
                } else {
                    gather_keys(&parts, order, rows, nulls)
                }
            })
            .collect()
    })
}

/// Where the picked rows are among all rows of the chunk's pages, slot
/// after slot.
struct RowIndex {
    rows: Vec<u32>,
    /// The pages' rows together.
    total: usize,
}

impl RowIndex {
    /// The index of `order`'s rows, or `None` if the pages' rows are too
    /// many to count in a u32 (pages hold a few thousand rows, and a block
    /// at most 2^24, so only a damaged page could do that).
    fn new(slots: &[Arc<Page>], order: &[Segment], rows: usize) -> Option<RowIndex> {
        let mut bases = Vec::with_capacity(slots.len());
        let mut total = 0u32;
        for page in slots {
            bases.push(total);
            total = total.checked_add(u32::try_from(page.rows).ok()?)?;
        }
        let mut picked = Vec::with_capacity(rows);
        for seg in order {
            let base = *bases.get(seg.slot())?;
            picked.extend(base + seg.start..base + seg.end);
        }
        Some(RowIndex {
            rows: picked,
            total: total as usize,
        })
    }
}

thread_local! {
    /// A column's keys of every page of a chunk, kept from chunk to chunk.
    static UNPACKED: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// The rows `index` picks of a fixed-width column.
fn pick_keys(
    parts: &[Option<&PageColumn>],
    slots: &[Arc<Page>],
    index: &RowIndex,
    nulls: Option<Vec<bool>>,
) -> ColumnData {
    let keys = UNPACKED.with_borrow_mut(|all| {
        all.clear();
        all.reserve(index.total);
        for (part, page) in parts.iter().zip(slots) {
            let start = all.len();
            if part.and_then(|p| p.unpack_keys(all)).is_none() || all.len() != start + page.rows {
                // Not a page of keys: cannot happen, as pages are read
                // against the schema; padded so the rows stay aligned.
                all.resize(start + page.rows, 0);
            }
        }
        index
            .rows
            .iter()
            .map(|&i| all.get(i as usize).copied().unwrap_or(0))
            .collect()
    });
    ColumnData::Fixed { keys, nulls }
}

/// The picked rows' NULL flags, or `None` if no page has any.
fn gather_nulls(
    parts: &[Option<&PageColumn>],
    order: &[Segment],
    rows: usize,
) -> Option<Vec<bool>> {
    let flags: Vec<Option<&[bool]>> = parts
        .iter()
        .map(|p| p.and_then(|c| c.null_flags()))
        .collect();
    if flags.iter().all(Option::is_none) {
        return None;
    }
    let mut nulls = Vec::with_capacity(rows);
    for seg in order {
        match flags.get(seg.slot()).copied().flatten() {
            Some(n) => nulls.extend_from_slice(n.get(seg.rows()).unwrap_or_default()),
            None => nulls.resize(nulls.len() + seg.rows().len(), false),
        }
    }
    Some(nulls)
}

/// The picked rows of a fixed-width column, a segment at a time: for a
/// chunk [`RowIndex`] cannot index.
fn gather_keys(
    parts: &[Option<&PageColumn>],
    order: &[Segment],
    rows: usize,
    nulls: Option<Vec<bool>>,
) -> ColumnData {
    let mut keys = Vec::with_capacity(rows);
    for seg in order {
        let part = parts.get(seg.slot()).copied().flatten();
        let range = seg.rows();
        if part
            .and_then(|p| p.extend_keys(range.start, range.end, &mut keys))
            .is_none()
        {
            // Not a page of keys: cannot happen, as pages are read
            // against the schema; padded so the rows stay aligned.
            keys.resize(keys.len() + range.len(), 0);
        }
    }
    ColumnData::Fixed { keys, nulls }
}

/// The picked rows of a string column.
fn gather_strings(
    parts: &[Option<&PageColumn>],
    order: &[Segment],
    rows: usize,
    nulls: Option<Vec<bool>>,
) -> ColumnData {
    let sources: Vec<(&[u8], &[u64])> = parts
        .iter()
        .map(|p| match p {
            Some(PageColumn::Strings { bytes, offsets, .. }) => {
                (bytes.as_slice(), offsets.as_slice())
            }
            _ => (&[][..], &[][..]),
        })
        .collect();
    // A segment's offsets, `start..=end`, if its page has them.
    let offsets_of = |seg: &Segment| {
        let (bytes, offsets) = sources.get(seg.slot()).copied()?;
        Some((bytes, offsets.get(seg.rows().start..=seg.rows().end)?))
    };
    // At most the pages' bytes: the chunk takes some of each page's rows.
    // (Summing the segments' bytes instead costs a pass over them.)
    let size: usize = sources.iter().map(|(b, _)| b.len()).sum();
    let mut bytes = Vec::with_capacity(size);
    let mut offsets = Vec::with_capacity(rows + 1);
    offsets.push(0);
    for seg in order {
        let Some((b, o)) = offsets_of(seg) else {
            continue;
        };
        let (first, last) = (o[0], o[o.len() - 1]);
        let base = bytes.len() as u64;
        bytes.extend_from_slice(b.get(first as usize..last as usize).unwrap_or_default());
        offsets.extend(o[1..].iter().map(|&x| x - first + base));
    }
    ColumnData::Strings {
        bytes,
        offsets,
        nulls,
    }
}

#[cfg(test)]
mod tests {
    use super::super::page::{decode, PageWriter};
    use super::*;

    /// A page of `keys` (NULL where `None`) and the same as strings.
    fn page(keys: &[Option<u64>]) -> Arc<Page> {
        let mut k = ColumnData::new_fixed();
        let mut s = ColumnData::new_strings();
        for key in keys {
            match key {
                Some(key) => {
                    k.push_key(*key).unwrap();
                    s.push_str(key.to_string().as_bytes()).unwrap();
                }
                None => {
                    k.push_null();
                    s.push_null();
                }
            }
        }
        let rows: Vec<u32> = (0..keys.len() as u32).collect();
        let mut bytes = Vec::new();
        PageWriter::default()
            .write(&[k, s], &rows, &mut bytes)
            .unwrap();
        Arc::new(decode(&bytes, &[false, true], None).unwrap())
    }

    #[test]
    fn segments_pick_rows_from_pages_of_every_width() {
        let pages = [
            vec![Some(7); 5],
            vec![Some(3), Some(200), None, Some(9), Some(100)],
            vec![Some(0), Some(65_536), Some(1), Some(2), Some(3)],
            vec![Some(1 << 40), Some(5 << 40), Some(1), Some(2), Some(3)],
            vec![Some(u64::MAX), Some(0), Some(65_536), Some(1), Some(2)],
        ];
        let slots: Vec<Arc<Page>> = pages.iter().map(|k| page(k)).collect();
        let order = [
            Segment {
                slot: 1,
                start: 0,
                end: 3,
            },
            Segment {
                slot: 0,
                start: 4,
                end: 5,
            },
            Segment {
                slot: 4,
                start: 0,
                end: 5,
            },
            Segment {
                slot: 2,
                start: 1,
                end: 1,
            },
            Segment {
                slot: 3,
                start: 1,
                end: 4,
            },
            Segment {
                slot: 2,
                start: 3,
                end: 5,
            },
        ];
        let want: Vec<Option<u64>> = order
            .iter()
            .flat_map(|s| pages[s.slot()][s.rows()].to_vec())
            .collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let got = gather(&slots, &order, want.len(), &[false, true], &pool);
        for (i, w) in want.iter().enumerate() {
            assert_eq!(got[0].is_null(i), w.is_none(), "row {i}");
            assert_eq!(got[1].is_null(i), w.is_none(), "row {i}");
            if let Some(w) = w {
                assert_eq!(got[0].key_at(i), Some(*w), "row {i}");
                assert_eq!(got[1].str_at(i), Some(w.to_string().as_bytes()), "row {i}");
            }
        }
        assert_eq!(got[0].len(), want.len());
        assert_eq!(got[1].len(), want.len());
        // The per-segment fallback picks the same keys.
        let parts: Vec<Option<&PageColumn>> = slots.iter().map(|p| p.columns.first()).collect();
        let ColumnData::Fixed { keys, .. } = gather_keys(&parts, &order, want.len(), None) else {
            panic!("keys gather as keys");
        };
        let ColumnData::Fixed { keys: picked, .. } = &got[0] else {
            panic!("keys gather as keys");
        };
        for (i, w) in want.iter().enumerate() {
            if w.is_some() {
                assert_eq!(keys[i], picked[i], "row {i}");
            }
        }
    }
}

//! Normalized keys: a row's sort key (or its leading part) as one `u128`.
//!
//! Comparing rows column by column goes through each column's NULL flags
//! and packed keys; with ClickBench's three-column key that was about a
//! twentieth of the sorted ingest's CPU (sorting the runs and merging them). When every
//! key column is fixed-width and the spread of its keys is known, a row's
//! key can instead be laid out as one number: for each column, most
//! significant first, a NULL bit (only if the column has NULLs; set for
//! NULL, which sorts last) and then the key minus the column's smallest
//! key, in as many bits as the spread needs. Comparing those numbers
//! orders rows exactly as comparing the columns does.
//!
//! Where the whole key does not fit (a string column, or too wide a
//! spread), its longest leading part that does is laid out, and only rows
//! equal in that part are compared by the other columns.
//!
//! A run is sorted by a layout of its own block's spread; the merge uses
//! one of the spread over all runs, which the sorter gathers as it spills.

use super::Cells;

/// The keys one column took: their range and whether it had NULLs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Spread {
    min: u64,
    max: u64,
    nulls: bool,
    /// False if a row that is not NULL had no key (a string column, or a
    /// damaged one): the column cannot be laid out.
    fixed: bool,
}

impl Default for Spread {
    fn default() -> Spread {
        Spread {
            min: u64::MAX,
            max: 0,
            nulls: false,
            fixed: true,
        }
    }
}

impl Spread {
    /// The spread of the first `rows` rows of `column`.
    pub(super) fn of<C: Cells>(column: &C, rows: usize) -> Spread {
        let mut s = Spread::default();
        for i in 0..rows {
            if column.is_null(i) {
                s.nulls = true;
                continue;
            }
            match column.key_at(i) {
                Some(k) => {
                    s.min = s.min.min(k);
                    s.max = s.max.max(k);
                }
                None => {
                    s.fixed = false;
                    break;
                }
            }
        }
        s
    }

    /// The spread of both.
    pub(super) fn union(self, other: Spread) -> Spread {
        Spread {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
            nulls: self.nulls || other.nulls,
            fixed: self.fixed && other.fixed,
        }
    }

    /// Bits a key takes: the spread's, and one for NULL if there are any.
    fn bits(&self) -> (u32, u32) {
        let value = if self.min < self.max {
            u64::BITS - (self.max - self.min).leading_zeros()
        } else {
            0
        };
        (u32::from(self.nulls), value)
    }
}

/// One key column's place in a normalized key.
#[derive(Debug, Clone, Copy)]
struct Part {
    column: usize,
    min: u64,
    /// Where the NULL bit is, if the column has one.
    null_shift: Option<u32>,
    /// Where the key's lowest bit is.
    shift: u32,
    /// Bits the key takes.
    width: u32,
}

/// How rows' keys are laid out as `u128`s.
#[derive(Debug, Clone)]
pub(super) struct Layout {
    parts: Vec<Part>,
    /// Bits the keys take, from the lowest.
    bits: u32,
    complete: bool,
}

impl Layout {
    /// The layout of the longest leading part of a key of `columns` (most
    /// significant first) whose columns are fixed and fit in 128 bits
    /// together, given their `spreads` (one per key column); `None` if not
    /// even the first column does.
    pub(super) fn new(columns: &[usize], spreads: &[Spread]) -> Option<Layout> {
        if spreads.len() != columns.len() {
            return None;
        }
        let mut taken = 0;
        let mut bits = 0u32;
        for s in spreads {
            let (null, value) = s.bits();
            if !s.fixed || bits + null + value > u128::BITS {
                break;
            }
            bits += null + value;
            taken += 1;
        }
        if taken == 0 {
            return None;
        }
        let mut parts = Vec::with_capacity(taken);
        let mut shift = 0u32;
        // From the least significant column taken up.
        for (&c, s) in columns[..taken].iter().zip(spreads).rev() {
            let (null, value) = s.bits();
            parts.push(Part {
                column: c,
                min: s.min,
                null_shift: (null == 1).then_some(shift + value),
                shift,
                width: value,
            });
            shift += value + null;
        }
        parts.reverse();
        Some(Layout {
            parts,
            bits,
            complete: taken == columns.len(),
        })
    }

    /// How many of the key's leading columns the layout covers.
    pub(super) fn columns(&self) -> usize {
        self.parts.len()
    }

    /// Whether the layout covers the whole key; if not, rows whose keys are
    /// equal are compared by the key's other columns.
    pub(super) fn complete(&self) -> bool {
        self.complete
    }

    /// Bits the keys take, from the lowest.
    pub(super) fn bits(&self) -> u32 {
        self.bits
    }

    /// Row `i`'s key, if its columns are within the spreads laid out.
    pub(super) fn key<C: Cells>(&self, columns: &[C], i: usize) -> Option<u128> {
        let mut k = 0u128;
        for p in &self.parts {
            let column = columns.get(p.column)?;
            if column.is_null(i) {
                k |= 1 << p.null_shift?;
            } else {
                let d = column.key_at(i)?.checked_sub(p.min)?;
                if p.width < u64::BITS && d >> p.width != 0 {
                    return None;
                }
                k |= u128::from(d) << p.shift;
            }
        }
        Some(k)
    }

    /// Appends the keys of the first `rows` rows to `out`; `None` (with
    /// `out` partly filled) if a row is outside the spreads laid out.
    pub(super) fn extend<C: Cells>(
        &self,
        columns: &[C],
        rows: usize,
        out: &mut Vec<u128>,
    ) -> Option<()> {
        out.reserve(rows);
        for i in 0..rows {
            out.push(self.key(columns, i)?);
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_format::ColumnData;

    fn fixed(keys: &[Option<u64>]) -> ColumnData {
        let mut c = ColumnData::new_fixed();
        for k in keys {
            match k {
                Some(k) => c.push_key(*k).unwrap(),
                None => c.push_null(),
            }
        }
        c
    }

    #[test]
    fn keys_order_rows_as_their_columns_do() {
        let a = fixed(&[Some(7), None, Some(7), Some(3), Some(u64::MAX), None]);
        let b = fixed(&[Some(1 << 40), Some(5), Some(2), None, Some(0), Some(1)]);
        let columns = vec![a, b];
        let rows = 6;
        let spreads: Vec<Spread> = columns.iter().map(|c| Spread::of(c, rows)).collect();
        let layout = Layout::new(&[0, 1], &spreads).unwrap();
        let mut keys = Vec::new();
        layout.extend(&columns, rows, &mut keys).unwrap();
        for i in 0..rows {
            for j in 0..rows {
                let want = super::super::SortKey {
                    columns: vec![0, 1],
                }
                .compare(&columns, i, &columns, j);
                assert_eq!(keys[i].cmp(&keys[j]), want, "rows {i} and {j}");
            }
        }
    }

    #[test]
    fn too_wide_or_string_keys_are_laid_out_in_part() {
        let wide = Spread {
            min: 0,
            max: u64::MAX,
            nulls: true,
            fixed: true,
        };
        assert!(Layout::new(&[0], &[wide]).unwrap().complete());
        let part = Layout::new(&[0, 1], &[wide, wide]).unwrap();
        assert!(!part.complete());
        assert_eq!(part.bits(), 65);
        assert!(Layout::new(&[0, 1], &[wide]).is_none());
        let mut s = ColumnData::new_strings();
        s.push_str(b"x").unwrap();
        let string = Spread::of(&s, 1);
        assert!(!string.fixed);
        assert!(Layout::new(&[0], &[string]).is_none());
        assert!(!Layout::new(&[1, 0], &[wide, string]).unwrap().complete());
    }

    #[test]
    fn a_key_outside_the_spread_has_no_key() {
        let spread = Spread::of(&fixed(&[Some(10), Some(12)]), 2);
        let layout = Layout::new(&[0], &[spread]).unwrap();
        let mut keys = Vec::new();
        assert!(layout.extend(&[fixed(&[Some(9)])], 1, &mut keys).is_none());
        assert!(layout.extend(&[fixed(&[Some(20)])], 1, &mut keys).is_none());
        assert!(layout.extend(&[fixed(&[None])], 1, &mut keys).is_none());
        keys.clear();
        layout
            .extend(&[fixed(&[Some(11), Some(10)])], 2, &mut keys)
            .unwrap();
        assert_eq!(keys, [1, 0]);
    }
}

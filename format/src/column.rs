//! The writer's input: one block's worth of values for one column.

use crate::error::{FormatError, Result};

/// The values of one column for the rows of one block, as handed to the writer.
///
/// Fixed-width types are given as order-preserving keys (see
/// [`crate::types`]); strings as one byte buffer with offsets. A row that is
/// NULL has `nulls[row] == true`; its key or string is ignored. Keys and
/// strings may also come dictionary-coded ([`ColumnData::FixedDict`],
/// [`ColumnData::StringDict`]), as Parquet stores them: the encoder then
/// sorts or hashes each entry once instead of each row.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnData {
    /// Keys of a fixed-width column.
    Fixed {
        /// One key per row.
        keys: Vec<u64>,
        /// `Some` with one flag per row if any row may be NULL.
        nulls: Option<Vec<bool>>,
    },
    /// Keys of a fixed-width column as entries and one entry index per
    /// row. Entries may repeat and need not all be used.
    FixedDict {
        /// The entries' keys.
        entries: Vec<u64>,
        /// One entry index per row (any value for a NULL row).
        indices: Vec<u32>,
        /// `Some` with one flag per row if any row may be NULL.
        nulls: Option<Vec<bool>>,
    },
    /// Values of a string column.
    Strings {
        /// All values' bytes, concatenated.
        bytes: Vec<u8>,
        /// `rows + 1` offsets into `bytes`; row `i` is `bytes[offsets[i]..offsets[i + 1]]`.
        offsets: Vec<u64>,
        /// `Some` with one flag per row if any row may be NULL.
        nulls: Option<Vec<bool>>,
    },
    /// Values of a string column as entries and one entry index per row.
    /// Entries may repeat and need not all be used.
    StringDict {
        /// All entries' bytes, concatenated.
        bytes: Vec<u8>,
        /// `entries + 1` offsets into `bytes`; entry `e` is
        /// `bytes[offsets[e]..offsets[e + 1]]`.
        offsets: Vec<u64>,
        /// One entry index per row (any value for a NULL row).
        indices: Vec<u32>,
        /// `Some` with one flag per row if any row may be NULL.
        nulls: Option<Vec<bool>>,
    },
}

impl ColumnData {
    /// An empty string column, ready for [`ColumnData::push_str`].
    pub fn new_strings() -> ColumnData {
        ColumnData::Strings {
            bytes: Vec::new(),
            offsets: vec![0],
            nulls: None,
        }
    }

    /// An empty fixed-width column, ready for [`ColumnData::push_key`].
    pub fn new_fixed() -> ColumnData {
        ColumnData::Fixed {
            keys: Vec::new(),
            nulls: None,
        }
    }

    /// An empty column for values of `data_type`: strings or fixed-width keys.
    pub fn new_for(data_type: crate::DataType) -> ColumnData {
        if data_type.is_string() {
            ColumnData::new_strings()
        } else {
            ColumnData::new_fixed()
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        match self {
            ColumnData::Fixed { keys, .. } => keys.len(),
            ColumnData::Strings { offsets, .. } => offsets.len().saturating_sub(1),
            ColumnData::FixedDict { indices, .. } | ColumnData::StringDict { indices, .. } => {
                indices.len()
            }
        }
    }

    /// True when there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends a key to a fixed-width column (ignored, with an error, for strings).
    pub fn push_key(&mut self, key: u64) -> Result<()> {
        match self {
            ColumnData::Fixed { keys, nulls } => {
                keys.push(key);
                if let Some(n) = nulls {
                    n.push(false);
                }
                Ok(())
            }
            ColumnData::FixedDict {
                entries,
                indices,
                nulls,
            } => {
                indices.push(entry_index(entries.len())?);
                entries.push(key);
                if let Some(n) = nulls {
                    n.push(false);
                }
                Ok(())
            }
            ColumnData::Strings { .. } | ColumnData::StringDict { .. } => Err(
                FormatError::InvalidInput("a key pushed to a string column".into()),
            ),
        }
    }

    /// Appends a string value to a string column.
    pub fn push_str(&mut self, value: &[u8]) -> Result<()> {
        match self {
            ColumnData::Strings {
                bytes,
                offsets,
                nulls,
            } => {
                bytes.extend_from_slice(value);
                offsets.push(bytes.len() as u64);
                if let Some(n) = nulls {
                    n.push(false);
                }
                Ok(())
            }
            ColumnData::StringDict {
                bytes,
                offsets,
                indices,
                nulls,
            } => {
                indices.push(entry_index(offsets.len().saturating_sub(1))?);
                bytes.extend_from_slice(value);
                offsets.push(bytes.len() as u64);
                if let Some(n) = nulls {
                    n.push(false);
                }
                Ok(())
            }
            ColumnData::Fixed { .. } | ColumnData::FixedDict { .. } => Err(
                FormatError::InvalidInput("a string pushed to a fixed-width column".into()),
            ),
        }
    }

    /// Appends a NULL.
    pub fn push_null(&mut self) {
        let len = self.len();
        match self {
            ColumnData::Fixed { keys, nulls } => {
                keys.push(0);
                nulls.get_or_insert_with(|| vec![false; len]).push(true);
            }
            ColumnData::Strings {
                bytes,
                offsets,
                nulls,
            } => {
                offsets.push(bytes.len() as u64);
                nulls.get_or_insert_with(|| vec![false; len]).push(true);
            }
            ColumnData::FixedDict { indices, nulls, .. }
            | ColumnData::StringDict { indices, nulls, .. } => {
                indices.push(0);
                nulls.get_or_insert_with(|| vec![false; len]).push(true);
            }
        }
    }

    /// The NULL flags, one per row, if any row may be NULL.
    pub fn null_flags(&self) -> Option<&[bool]> {
        match self {
            ColumnData::Fixed { nulls, .. }
            | ColumnData::FixedDict { nulls, .. }
            | ColumnData::Strings { nulls, .. }
            | ColumnData::StringDict { nulls, .. } => nulls.as_deref(),
        }
    }

    /// Whether row `i` is NULL.
    pub fn is_null(&self, i: usize) -> bool {
        self.null_flags()
            .is_some_and(|n| n.get(i).copied().unwrap_or(false))
    }

    /// Whether any of the first `rows` rows is NULL.
    pub fn has_null(&self, rows: usize) -> bool {
        self.null_flags()
            .is_some_and(|n| n.iter().take(rows).any(|&null| null))
    }

    /// The key of row `i` of a fixed-width column (`None` for strings, or a
    /// row or entry past the end). A NULL row's key is meaningless.
    pub fn key_at(&self, i: usize) -> Option<u64> {
        match self {
            ColumnData::Fixed { keys, .. } => keys.get(i).copied(),
            ColumnData::FixedDict {
                entries, indices, ..
            } => entries.get(*indices.get(i)? as usize).copied(),
            ColumnData::Strings { .. } | ColumnData::StringDict { .. } => None,
        }
    }

    /// The bytes of row `i` of a string column (`None` for fixed-width
    /// columns, or a row or entry past the end). A NULL row's bytes are
    /// meaningless.
    pub fn str_at(&self, i: usize) -> Option<&[u8]> {
        let (bytes, offsets, e) = match self {
            ColumnData::Strings { bytes, offsets, .. } => (bytes, offsets, i),
            ColumnData::StringDict {
                bytes,
                offsets,
                indices,
                ..
            } => (bytes, offsets, *indices.get(i)? as usize),
            ColumnData::Fixed { .. } | ColumnData::FixedDict { .. } => return None,
        };
        let start = usize::try_from(*offsets.get(e)?).ok()?;
        let end = usize::try_from(*offsets.get(e + 1)?).ok()?;
        bytes.get(start..end)
    }

    /// Appends the rows of `other`, a column of the same kind, after this
    /// one's (moving `other` in when this one is empty). Plain and
    /// dictionary-coded strings mix: the result is dictionary-coded. Plain
    /// and dictionary-coded keys mix too: the result is plain.
    pub fn append(&mut self, other: ColumnData) -> Result<()> {
        if self.is_empty() {
            *self = other;
            return Ok(());
        }
        let other = match (&*self, other) {
            (ColumnData::StringDict { .. }, o @ ColumnData::Strings { .. }) => o.into_dict()?,
            (ColumnData::Strings { .. }, o @ ColumnData::StringDict { .. }) => {
                *self = std::mem::replace(self, ColumnData::new_fixed()).into_dict()?;
                o
            }
            (ColumnData::Fixed { .. }, o @ ColumnData::FixedDict { .. }) => o.into_plain_keys(),
            (ColumnData::FixedDict { .. }, o @ ColumnData::Fixed { .. }) => {
                *self = std::mem::replace(self, ColumnData::new_fixed()).into_plain_keys();
                o
            }
            (_, o) => o,
        };
        let len = self.len();
        let other_len = other.len();
        let (mine, theirs) = match (self, other) {
            (ColumnData::Fixed { keys, nulls }, ColumnData::Fixed { keys: k, nulls: n }) => {
                keys.extend_from_slice(&k);
                (nulls, n)
            }
            (
                ColumnData::FixedDict {
                    entries,
                    indices,
                    nulls,
                },
                ColumnData::FixedDict {
                    entries: e,
                    indices: i,
                    nulls: n,
                },
            ) => {
                let first = entry_index(entries.len())?;
                entry_index(entries.len() + e.len())?;
                entries.extend_from_slice(&e);
                indices.extend(i.iter().map(|&x| x.wrapping_add(first)));
                (nulls, n)
            }
            (
                ColumnData::Strings {
                    bytes,
                    offsets,
                    nulls,
                },
                ColumnData::Strings {
                    bytes: b,
                    offsets: o,
                    nulls: n,
                },
            ) => {
                let base = bytes.len() as u64;
                bytes.extend_from_slice(&b);
                offsets.extend(o.iter().skip(1).map(|&x| x + base));
                (nulls, n)
            }
            (
                ColumnData::StringDict {
                    bytes,
                    offsets,
                    indices,
                    nulls,
                },
                ColumnData::StringDict {
                    bytes: b,
                    offsets: o,
                    indices: i,
                    nulls: n,
                },
            ) => {
                let first = entry_index(offsets.len().saturating_sub(1))?;
                entry_index(offsets.len().saturating_sub(1) + o.len().saturating_sub(1))?;
                let base = bytes.len() as u64;
                bytes.extend_from_slice(&b);
                offsets.extend(o.iter().skip(1).map(|&x| x + base));
                indices.extend(i.iter().map(|&x| x.wrapping_add(first)));
                (nulls, n)
            }
            _ => {
                return Err(FormatError::InvalidInput(
                    "a string column appended to a fixed-width one, or the reverse".into(),
                ))
            }
        };
        match (mine.as_mut(), theirs) {
            (Some(m), None) => m.resize(len + other_len, false),
            (None, None) => {}
            (Some(m), Some(t)) => m.extend_from_slice(&t),
            (None, Some(t)) => {
                let mut all = vec![false; len];
                all.extend_from_slice(&t);
                *mine = Some(all);
            }
        }
        Ok(())
    }

    /// Plain strings as dictionary-coded ones, each row its own entry;
    /// other columns unchanged.
    fn into_dict(self) -> Result<ColumnData> {
        Ok(match self {
            ColumnData::Strings {
                bytes,
                offsets,
                nulls,
            } => {
                let rows = entry_index(offsets.len().saturating_sub(1))?;
                ColumnData::StringDict {
                    bytes,
                    offsets,
                    indices: (0..rows).collect(),
                    nulls,
                }
            }
            other => other,
        })
    }

    /// Dictionary-coded keys as plain ones; other columns unchanged. (An
    /// index past the entries, only possible in a NULL row, gives key 0.)
    fn into_plain_keys(self) -> ColumnData {
        match self {
            ColumnData::FixedDict {
                entries,
                indices,
                nulls,
            } => ColumnData::Fixed {
                keys: indices
                    .iter()
                    .map(|&i| entries.get(i as usize).copied().unwrap_or(0))
                    .collect(),
                nulls,
            },
            other => other,
        }
    }
}

/// An entry count or index as the `u32` a dictionary-coded column holds.
fn entry_index(n: usize) -> Result<u32> {
    u32::try_from(n).map_err(|_| {
        FormatError::InvalidInput(format!(
            "{n} dictionary entries in one column of one block; at most {} fit",
            u32::MAX
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(values: &[Option<&str>]) -> ColumnData {
        let mut c = ColumnData::new_strings();
        for v in values {
            match v {
                Some(s) => c.push_str(s.as_bytes()).unwrap(),
                None => c.push_null(),
            }
        }
        c
    }

    #[test]
    fn append_equals_pushing_in_order() {
        let parts: [&[Option<&str>]; 4] = [
            &[Some("a"), Some("")],
            &[],
            &[None, Some("bc")],
            &[Some("d")],
        ];
        let mut all = ColumnData::new_strings();
        let mut flat = Vec::new();
        for p in parts {
            all.append(strings(p)).unwrap();
            flat.extend_from_slice(p);
        }
        assert_eq!(all, strings(&flat));

        let mut keys = ColumnData::new_fixed();
        keys.push_key(1).unwrap();
        let mut more = ColumnData::new_fixed();
        more.push_null();
        more.push_key(3).unwrap();
        keys.append(more).unwrap();
        let mut no_nulls = ColumnData::new_fixed();
        no_nulls.push_key(4).unwrap();
        keys.append(no_nulls).unwrap();
        assert_eq!(
            keys,
            ColumnData::Fixed {
                keys: vec![1, 0, 3, 4],
                nulls: Some(vec![false, true, false, false]),
            }
        );
        assert!(keys.append(strings(&[Some("x")])).is_err());
    }

    /// The rows a column holds, whatever its kind of strings.
    fn rows(c: &ColumnData) -> Vec<Option<Vec<u8>>> {
        (0..c.len())
            .map(|r| {
                if c.is_null(r) {
                    return None;
                }
                Some(match c {
                    ColumnData::Strings { bytes, offsets, .. } => {
                        bytes[offsets[r] as usize..offsets[r + 1] as usize].to_vec()
                    }
                    ColumnData::StringDict {
                        bytes,
                        offsets,
                        indices,
                        ..
                    } => {
                        let e = indices[r] as usize;
                        bytes[offsets[e] as usize..offsets[e + 1] as usize].to_vec()
                    }
                    ColumnData::Fixed { .. } | ColumnData::FixedDict { .. } => {
                        panic!("not strings")
                    }
                })
            })
            .collect()
    }

    #[test]
    fn dictionary_coded_strings_append_to_plain_ones_and_back() {
        // Entries "x", "yy", "" (unused); rows yy, NULL, x, yy.
        let dict = || ColumnData::StringDict {
            bytes: b"xyy".to_vec(),
            offsets: vec![0, 1, 3, 3],
            indices: vec![1, 0, 0, 1],
            nulls: Some(vec![false, true, false, false]),
        };
        let plain: [Option<&str>; 2] = [Some("p"), None];
        let dict_rows = rows(&dict());
        let plain_rows = rows(&strings(&plain));

        let mut a = strings(&plain);
        a.append(dict()).unwrap();
        a.append(dict()).unwrap();
        a.push_str(b"q").unwrap();
        a.push_null();
        let mut want = plain_rows.clone();
        want.extend(dict_rows.iter().cloned());
        want.extend(dict_rows.iter().cloned());
        want.extend([Some(b"q".to_vec()), None]);
        assert!(matches!(a, ColumnData::StringDict { .. }));
        assert_eq!(rows(&a), want);

        let mut b = dict();
        b.append(strings(&plain)).unwrap();
        let mut want = dict_rows.clone();
        want.extend(plain_rows);
        assert_eq!(rows(&b), want);
        assert!(b.push_key(1).is_err());
        let mut keys = ColumnData::new_fixed();
        keys.push_key(1).unwrap();
        assert!(b.append(keys).is_err());
    }

    /// The keys of a fixed-width column's rows, whatever its kind.
    fn keys(c: &ColumnData) -> Vec<Option<u64>> {
        (0..c.len())
            .map(|r| {
                (!c.is_null(r)).then(|| match c {
                    ColumnData::Fixed { keys, .. } => keys[r],
                    ColumnData::FixedDict {
                        entries, indices, ..
                    } => entries[indices[r] as usize],
                    _ => panic!("not keys"),
                })
            })
            .collect()
    }

    #[test]
    fn dictionary_coded_keys_append_to_each_other_and_to_plain_ones() {
        // Entries 7, 9, 7 (a repeat), 5 (unused); rows 9, NULL, 7, 7.
        let dict = || ColumnData::FixedDict {
            entries: vec![7, 9, 7, 5],
            indices: vec![1, 0, 2, 0],
            nulls: Some(vec![false, true, false, false]),
        };
        let dict_rows = keys(&dict());
        assert_eq!(dict_rows, [Some(9), None, Some(7), Some(7)]);

        let mut a = dict();
        a.append(dict()).unwrap();
        a.push_key(3).unwrap();
        a.push_null();
        assert!(matches!(a, ColumnData::FixedDict { .. }));
        let mut want = dict_rows.clone();
        want.extend(dict_rows.iter().copied());
        want.extend([Some(3), None]);
        assert_eq!(keys(&a), want);

        let mut plain = ColumnData::new_fixed();
        plain.push_key(1).unwrap();
        let mut b = plain.clone();
        b.append(dict()).unwrap();
        assert!(matches!(b, ColumnData::Fixed { .. }));
        let mut want = vec![Some(1)];
        want.extend(dict_rows.iter().copied());
        assert_eq!(keys(&b), want);

        let mut c = dict();
        c.append(plain).unwrap();
        let mut want = dict_rows.clone();
        want.push(Some(1));
        assert_eq!(keys(&c), want);
        assert!(c.push_str(b"x").is_err());
        assert!(c.append(strings(&[Some("x")])).is_err());
    }
}

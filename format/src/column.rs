//! The writer's input: one block's worth of values for one column.

use crate::error::{FormatError, Result};

/// The values of one column for the rows of one block, as handed to the writer.
///
/// Fixed-width types are given as order-preserving keys (see
/// [`crate::types`]); strings as one byte buffer with offsets. A row that is
/// NULL has `nulls[row] == true`; its key or string is ignored.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnData {
    /// Keys of a fixed-width column.
    Fixed {
        /// One key per row.
        keys: Vec<u64>,
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
            ColumnData::Strings { .. } => Err(FormatError::InvalidInput(
                "a key pushed to a string column".into(),
            )),
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
            ColumnData::Fixed { .. } => Err(FormatError::InvalidInput(
                "a string pushed to a fixed-width column".into(),
            )),
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
        }
    }

    /// Whether row `i` is NULL.
    pub fn is_null(&self, i: usize) -> bool {
        let nulls = match self {
            ColumnData::Fixed { nulls, .. } | ColumnData::Strings { nulls, .. } => nulls,
        };
        nulls
            .as_ref()
            .is_some_and(|n| n.get(i).copied().unwrap_or(false))
    }

    /// Appends the rows of `other`, a column of the same kind, after this
    /// one's (moving `other` in when this one is empty).
    pub fn append(&mut self, other: ColumnData) -> Result<()> {
        if self.is_empty() {
            *self = other;
            return Ok(());
        }
        let len = self.len();
        let other_len = other.len();
        let (mine, theirs) = match (self, other) {
            (ColumnData::Fixed { keys, nulls }, ColumnData::Fixed { keys: k, nulls: n }) => {
                keys.extend_from_slice(&k);
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
}

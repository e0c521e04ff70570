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
}

//! A batch of rows: one vector per column, all of one length.

use crate::budget::{vector_bytes, Held};
use crate::result::{QueryResult, ResultColumn};
use crate::value::{LType, Vector};

/// Rows as columns.
#[derive(Debug, Default)]
pub struct Batch {
    /// The columns.
    pub columns: Vec<Vector>,
    /// The number of rows (also when there are no columns).
    pub rows: usize,
    /// The memory charged for it, given back when it is dropped.
    pub held: Option<Held>,
}

impl Batch {
    /// A batch of `columns` (of `rows` rows).
    pub fn new(columns: Vec<Vector>, rows: usize) -> Batch {
        Batch {
            columns,
            rows,
            held: None,
        }
    }

    /// No rows of the given types.
    pub fn empty(types: &[LType]) -> Batch {
        Batch::new(types.iter().map(|&t| Vector::empty(t, 0)).collect(), 0)
    }

    /// Approximate heap bytes of its values.
    pub fn bytes(&self) -> u64 {
        self.columns.iter().map(vector_bytes).sum()
    }

    /// The rows at `idx`, in that order.
    pub fn gather(&self, idx: &[u32]) -> Batch {
        Batch::new(gather_columns(&self.columns, idx), idx.len())
    }

    /// The columns at rows `idx` (`u32::MAX` gives NULL): the batch's own
    /// columns, moved, where `idx` is every row in order (the side of a join
    /// whose rows each match exactly one row of the other: a fact table
    /// joined to a dimension by its key), else gathered.
    pub fn into_columns_at(self, idx: &[u32]) -> Vec<Vector> {
        let every_row =
            idx.len() == self.rows && idx.iter().enumerate().all(|(i, &j)| j as usize == i);
        if every_row {
            self.columns
        } else {
            gather_columns(&self.columns, idx)
        }
    }

    /// The batch as a result with column `names`.
    pub fn into_result(self, names: Vec<String>) -> QueryResult {
        QueryResult {
            columns: names
                .into_iter()
                .zip(self.columns)
                .map(|(name, values)| ResultColumn {
                    name,
                    ty: values.ty,
                    values,
                })
                .collect(),
        }
    }
}

impl crate::expr::Inputs for Batch {
    fn column(&self, col: usize) -> crate::error::Result<&Vector> {
        self.columns.get(col).ok_or_else(|| {
            crate::error::EngineError::Internal(format!(
                "column {col} of a batch of {}",
                self.columns.len()
            ))
        })
    }
}

/// Rows gathered at once past which a batch's columns are gathered in
/// parallel, a column per task.
const PARALLEL_GATHER_ROWS: usize = 1 << 16;

/// `columns` at rows `idx` (`u32::MAX` gives NULL).
fn gather_columns(columns: &[Vector], idx: &[u32]) -> Vec<Vector> {
    if idx.len() >= PARALLEL_GATHER_ROWS && columns.len() > 1 {
        use rayon::prelude::*;
        columns.par_iter().map(|c| c.gather(idx)).collect()
    } else {
        columns.iter().map(|c| c.gather(idx)).collect()
    }
}

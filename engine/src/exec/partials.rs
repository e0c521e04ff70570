//! Partials: the partial results of the tasks a query was split into (see
//! [`crate::plan::split`]), the leaf of its final and combine plans.

use std::sync::Arc;

use super::{Batch, ExecCtx, Operator};
use crate::error::{EngineError, Result};
use crate::plan::split::PartialRows;
use crate::value::LType;

/// The partial results, concatenated.
#[derive(Debug)]
pub struct Partials {
    /// Its number in the tree.
    pub id: usize,
    /// The rows (taken by the one run of the plan).
    pub rows: Arc<PartialRows>,
    /// The column types.
    pub types: Vec<LType>,
}

impl Operator for Partials {
    fn describe(&self) -> String {
        "Partials".into()
    }

    fn children(&self) -> Vec<&dyn Operator> {
        Vec::new()
    }

    fn id(&self) -> usize {
        self.id
    }

    fn execute(&self, _: &ExecCtx) -> Result<Batch> {
        let columns = self.rows.take()?;
        if columns.len() != self.types.len() {
            return Err(EngineError::Internal(format!(
                "{} partial columns for {} types",
                columns.len(),
                self.types.len()
            )));
        }
        Ok(Batch::new(columns, self.rows.rows))
    }
}

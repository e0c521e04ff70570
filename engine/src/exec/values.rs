//! Values: constant rows (`VALUES`, and the one empty row `SELECT` without
//! FROM reads).

use super::{Batch, ExecCtx, Operator};
use crate::error::Result;
use crate::expr::{eval, Columns, TExpr};
use crate::value::{LType, Value, Vector};

/// Constant rows.
#[derive(Debug)]
pub struct Values {
    /// Its number in the tree.
    pub id: usize,
    /// The rows' constant expressions.
    pub rows: Vec<Vec<TExpr>>,
    /// The column types.
    pub types: Vec<LType>,
}

impl Operator for Values {
    fn describe(&self) -> String {
        "Values".into()
    }

    fn children(&self) -> Vec<&dyn Operator> {
        Vec::new()
    }

    fn id(&self) -> usize {
        self.id
    }

    fn execute(&self, _: &ExecCtx) -> Result<Batch> {
        let none = Columns(Vec::new());
        let mut columns: Vec<Vector> = self
            .types
            .iter()
            .map(|&t| Vector::empty(t, self.rows.len()))
            .collect();
        for row in &self.rows {
            for (c, e) in columns.iter_mut().zip(row) {
                let v = eval(e, 1, &none)?;
                c.push(&if v.is_empty() { Value::Null } else { v.get(0) });
            }
        }
        Ok(Batch::new(columns, self.rows.len()))
    }
}

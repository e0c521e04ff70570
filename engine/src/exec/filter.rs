//! Filter: the rows of a batch for which a predicate is true.

use super::{Batch, ExecCtx, Operator};
use crate::error::Result;
use crate::expr::{eval, TExpr};
use crate::scan::filter::truth_of;

/// Keeps the rows where `predicate` is true.
#[derive(Debug)]
pub struct Filter {
    /// Its number in the tree.
    pub id: usize,
    /// The input.
    pub input: Box<dyn Operator>,
    /// A BOOLEAN expression over the input's columns.
    pub predicate: TExpr,
}

impl Operator for Filter {
    fn describe(&self) -> String {
        "Filter".into()
    }

    fn children(&self) -> Vec<&dyn Operator> {
        vec![self.input.as_ref()]
    }

    fn id(&self) -> usize {
        self.id
    }

    fn execute(&self, ctx: &ExecCtx) -> Result<Batch> {
        let input = ctx.run(self.input.as_ref())?;
        let truth = truth_of(&*eval(&self.predicate, input.rows, &input)?);
        let keep: Vec<u32> = (0..input.rows as u32)
            .filter(|&i| truth[i as usize])
            .collect();
        if keep.len() == input.rows {
            return Ok(Batch::new(input.columns, input.rows));
        }
        Ok(input.gather(&keep))
    }
}

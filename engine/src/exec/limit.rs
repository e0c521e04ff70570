//! Limit: at most `limit` rows after skipping `offset`.

use super::{Batch, ExecCtx, Operator};
use crate::error::Result;
use crate::value::LType;

/// Takes rows.
#[derive(Debug)]
pub struct Limit {
    /// Its number in the tree.
    pub id: usize,
    /// The input.
    pub input: Box<dyn Operator>,
    /// `None`: all rows after the offset.
    pub limit: Option<u64>,
    /// Rows skipped.
    pub offset: u64,
    /// The output's column types.
    pub types: Vec<LType>,
}

impl Operator for Limit {
    fn describe(&self) -> String {
        "Limit".into()
    }

    fn children(&self) -> Vec<&dyn Operator> {
        vec![self.input.as_ref()]
    }

    fn id(&self) -> usize {
        self.id
    }

    fn execute(&self, ctx: &ExecCtx) -> Result<Batch> {
        // `LIMIT 0` reads nothing (so nothing below can fail).
        if self.limit == Some(0) {
            return Ok(Batch::empty(&self.types));
        }
        let input = ctx.run(self.input.as_ref())?;
        let start = usize::try_from(self.offset)
            .unwrap_or(usize::MAX)
            .min(input.rows);
        let end = match self.limit {
            Some(l) => start.saturating_add(usize::try_from(l).unwrap_or(usize::MAX)),
            None => input.rows,
        }
        .min(input.rows);
        let idx: Vec<u32> = (start as u32..end as u32).collect();
        Ok(input.gather(&idx))
    }
}

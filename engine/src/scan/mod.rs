//! Reading a table's blocks: block contexts, predicates answered from the
//! sorted values and row lists, selections, and ordered walks for top-k.

pub mod block;
pub mod filter;
pub(crate) mod lift;
pub mod selection;
pub mod topk;

//! The strata on-disk table format.
//!
//! See SPEC.md at the repository root for the byte-level description.

pub mod column;
pub mod error;
pub mod types;

pub use column::ColumnData;
pub use error::{FormatError, Result};
pub use types::{DataType, Field, Schema};
pub mod writer;
pub use writer::{encode_block, EncodedBlock, TableWriter, WriteOptions, WriteSummary, DEFAULT_BLOCK_ROWS};

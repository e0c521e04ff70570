//! The strata on-disk table format.
//!
//! A table is a directory holding a `MANIFEST` and one file per block:
//!
//! ```text
//! table/
//!   MANIFEST        schema, blocks, per block and column: statistics and
//!                   the offset, length and checksum of every section
//!   b00000000.blk   block 0: header | column sections ... | footer
//!   b00000001.blk   block 1
//! ```
//!
//! Inside a block every column is stored value-sorted and deduplicated: the
//! sorted distinct values (frame-of-reference packed keys, or 128-bit BLAKE3
//! hashes for strings), a count per value and the rows of each value as
//! run-coded row lists. String columns add their strings in byte order in
//! prefix-coded, compressed blocks of 128, the map from hash order to string
//! order, and an ASCII trigram index. Format version 3 may store the sorted
//! keys as differences in byte planes ([`delta_planes`]) and the row lists of
//! scattered few-valued columns as row codes ([`row_codes`]). SPEC.md at the
//! repository root describes every byte.

#[cfg(target_endian = "big")]
compile_error!(
    "strata's format is little-endian and read in place; big-endian targets are not supported"
);

pub mod bitpack;
pub mod cache;
pub mod column;
pub mod decode_stats;
pub mod delta_planes;
pub mod encode;
pub mod error;
pub mod files;
pub mod layout;
pub mod lockfile;
pub mod manifest;
pub mod packed;
mod radix;
pub mod reader;
pub mod row_codes;
pub mod rowlist;
pub mod strings;
#[cfg(test)]
mod test_rng;
pub mod types;
pub mod varint;
pub mod verify;
pub mod writer;
mod zstd_frames;

pub use column::ColumnData;
pub use encode::{
    encode_block, encode_block_rows, encode_block_with, string_hash, EncodeOptions, EncodedBlock,
    RowAccess,
};
pub use error::{FormatError, Result};
pub use layout::{Section, FORMAT_VERSION};
pub use reader::{ColumnChunk, ColumnStats, Dictionary, Keys, RowLists, RowValues, Table};
pub use strings::Compression;
pub use types::{DataType, Field, Schema};
pub use verify::{verify_table, verify_table_with_progress, VerifyReport};
pub use writer::{TableWriter, WriteOptions, WriteSummary, DEFAULT_BLOCK_ROWS};

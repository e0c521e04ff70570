//! Writing tables: blocks are encoded (in parallel, by the caller) and written
//! in order into a temporary directory that is renamed into place on finish.

use std::path::{Path, PathBuf};

use crate::column::ColumnData;
use crate::error::{FormatError, Result};
use crate::types::Schema;

/// The default number of rows per block: 2^19.
pub const DEFAULT_BLOCK_ROWS: usize = 1 << 19;

/// Options for writing a table.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    /// Rows per block (the last block may be shorter); 1..=2^19... any value up to 2^24.
    pub block_rows: usize,
    /// Call fsync on files and directories before publishing them.
    pub sync: bool,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            block_rows: DEFAULT_BLOCK_ROWS,
            sync: true,
        }
    }
}

/// One block, encoded and ready to be written. Produced by [`encode_block`],
/// which is pure and can run on many threads at once.
#[derive(Debug)]
pub struct EncodedBlock {
    pub(crate) rows: u32,
    pub(crate) bytes: Vec<u8>,
}

impl EncodedBlock {
    /// Rows in the block.
    pub fn rows(&self) -> usize {
        self.rows as usize
    }

    /// Encoded size in bytes.
    pub fn byte_len(&self) -> usize {
        self.bytes.len()
    }
}

/// Encodes one block: `columns[i]` holds the values of schema column `i`, all
/// of the same length (1..=block_rows rows).
pub fn encode_block(schema: &Schema, columns: Vec<ColumnData>) -> Result<EncodedBlock> {
    let _ = (schema, columns);
    Err(FormatError::InvalidInput("not yet implemented".into()))
}

/// What a finished write produced.
#[derive(Debug, Clone, Default)]
pub struct WriteSummary {
    /// Rows in the table after the write.
    pub rows: u64,
    /// Blocks in the table after the write.
    pub blocks: usize,
    /// Bytes written by this write (data files and manifest).
    pub bytes_written: u64,
}

/// Writes a new table, or appends blocks to an existing one.
///
/// Nothing is visible to readers until [`TableWriter::finish`] succeeds; if the
/// writer is dropped before that, everything it wrote is removed.
#[derive(Debug)]
pub struct TableWriter {
    path: PathBuf,
}

impl TableWriter {
    /// Starts a new table at `path`, which must not exist yet.
    pub fn create(path: &Path, schema: Schema, options: WriteOptions) -> Result<TableWriter> {
        let _ = (schema, options);
        Ok(TableWriter {
            path: path.to_path_buf(),
        })
    }

    /// Starts appending to the existing table at `path`; the table's schema is
    /// kept and readers see either the old or the new table, never a mix.
    pub fn append(path: &Path, options: WriteOptions) -> Result<TableWriter> {
        let _ = options;
        Ok(TableWriter {
            path: path.to_path_buf(),
        })
    }

    /// The schema being written.
    pub fn schema(&self) -> &Schema {
        unimplemented_schema()
    }

    /// Rows per block this writer uses.
    pub fn block_rows(&self) -> usize {
        DEFAULT_BLOCK_ROWS
    }

    /// Encodes and writes one block (convenience for [`encode_block`] +
    /// [`TableWriter::write_encoded`]).
    pub fn write_block(&mut self, columns: Vec<ColumnData>) -> Result<()> {
        let _ = columns;
        Err(FormatError::InvalidInput(format!("not yet implemented: {}", self.path.display())))
    }

    /// Writes an already encoded block after the previous ones.
    pub fn write_encoded(&mut self, block: EncodedBlock) -> Result<()> {
        let _ = block;
        Err(FormatError::InvalidInput("not yet implemented".into()))
    }

    /// Publishes the table atomically.
    pub fn finish(self) -> Result<WriteSummary> {
        Err(FormatError::InvalidInput("not yet implemented".into()))
    }
}

fn unimplemented_schema() -> &'static Schema {
    static EMPTY: Schema = Schema { fields: Vec::new() };
    &EMPTY
}

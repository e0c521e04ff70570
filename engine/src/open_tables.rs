//! Table handles kept open between queries.
//!
//! Opening a table maps its block files, and the first read of each section
//! verifies its checksum. A process that runs many queries (the REPL, a
//! batch job embedding the library, a benchmark) would redo both for every
//! query; [`OpenTables`] keeps each table's handle and hands it out again as
//! long as the table's manifest is the same file, unchanged. A new manifest
//! version (an append, a re-ingest) is written by an atomic rename, which
//! gives the manifest a new identity, so the next query opens the new
//! version; queries already running keep the handle they started with.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use strata_format::layout::MANIFEST_FILE;
use strata_format::Table;

use crate::Result;

/// Per table directory: the manifest bytes a handle was opened with, and
/// the handle.
type Handles = HashMap<PathBuf, (Vec<u8>, Table)>;

/// Open table handles by directory, shared by clones.
#[derive(Debug, Clone, Default)]
pub struct OpenTables {
    tables: Arc<Mutex<Handles>>,
}

impl OpenTables {
    /// The table at `path`: the handle opened before if its manifest has not
    /// changed since, else a newly opened one (which replaces it).
    pub fn open(&self, path: &Path) -> Result<Table> {
        // Read before opening: if the manifest is replaced in between, the
        // new handle is kept under the older bytes and reopened next time.
        let Ok(manifest) = std::fs::read(path.join(MANIFEST_FILE)) else {
            // Table::open reports what is wrong.
            self.forget(path);
            return Ok(Table::open(path)?);
        };
        if let Some((m, t)) = self.lock().get(path) {
            if *m == manifest {
                return Ok(t.clone());
            }
        }
        let table = Table::open(path)?;
        self.lock()
            .insert(path.to_path_buf(), (manifest, table.clone()));
        Ok(table)
    }

    /// Drops the handle of `path`, if any.
    fn forget(&self, path: &Path) {
        self.lock().remove(path);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Handles> {
        // A panic while holding the lock cannot leave the map inconsistent
        // (each operation is a single insert, get or remove).
        self.tables.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_format::{ColumnData, DataType, Field, Schema, TableWriter, WriteOptions};

    fn write(dir: &Path, rows: u64) {
        let schema = Schema::new(vec![Field::new("x", DataType::Int64, false)]).expect("schema");
        let options = WriteOptions {
            sync: false,
            ..Default::default()
        };
        let mut w = TableWriter::create(dir, schema, options).expect("create");
        let keys = (0..rows).collect();
        w.write_block(vec![ColumnData::Fixed { keys, nulls: None }])
            .expect("write");
        w.finish().expect("finish");
    }

    #[test]
    fn reuses_a_handle_until_the_manifest_changes() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("t");
        write(&dir, 3);
        let tables = OpenTables::default();
        let a = tables.open(&dir).expect("open");
        let b = tables.open(&dir).expect("open again");
        assert!(a.same_handle(&b), "an unchanged table is not reopened");
        assert_eq!(b.num_rows(), 3);

        std::fs::remove_dir_all(&dir).expect("remove");
        write(&dir, 5);
        let c = tables.open(&dir).expect("open the new table");
        assert!(!c.same_handle(&a), "a replaced table is reopened");
        assert_eq!(c.num_rows(), 5);
        assert_eq!(a.num_rows(), 3, "an old handle keeps its version");

        std::fs::remove_dir_all(&dir).expect("remove");
        assert!(tables.open(&dir).is_err(), "a deleted table is not served");
    }
}

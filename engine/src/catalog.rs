//! Where FROM's names lead: the [`Catalog`] trait the binder opens tables
//! through, and [`Database`], a directory of tables.

use std::path::PathBuf;

use strata_format::Table;

use crate::error::{self, EngineError, Result};
use crate::open_tables;
use crate::sql::table_ref::{ColumnWords, TableRef};

/// Resolves the relation named in FROM.
pub trait Catalog {
    /// Opens the table `table` refers to (as written in the query).
    fn open(&self, table: &TableRef) -> Result<Table>;

    /// Opens the table for a query whose column references are among
    /// `words` (see [`ColumnWords`]; computed on first use). A catalog that
    /// loads tables on demand may load just those columns; by default this
    /// is [`Catalog::open`].
    fn open_for(&self, table: &TableRef, words: &ColumnWords<'_>) -> Result<Table> {
        let _ = words;
        self.open(table)
    }

    /// For a query of the table's first rows (see [`table_ref::first_rows`]):
    /// a table holding at least the first `rows` rows, in order (all of
    /// them if the table has fewer), if the catalog can give one more
    /// cheaply than the whole table (a file's first rows, say); `None` (the
    /// default) to use [`Catalog::open_for`].
    fn open_head(
        &self,
        table: &TableRef,
        words: &ColumnWords<'_>,
        rows: u64,
    ) -> Result<Option<Table>> {
        let _ = (table, words, rows);
        Ok(None)
    }

    /// The names of the tables `FROM name` can open (for `SHOW TABLES` and
    /// `information_schema`), sorted; none by default.
    fn table_names(&self) -> Result<Vec<String>> {
        Ok(Vec::new())
    }
}

/// A directory of tables: `FROM hits` opens `<dir>/hits`; a name containing
/// a path separator (written quoted) is opened as a path. Table functions are
/// not known here (see the `strata` crate for `read_csv` and friends).
///
/// Tables stay open between queries (and clones share them) until their
/// manifest changes; see [`open_tables`].
#[derive(Debug, Clone)]
pub struct Database {
    dir: PathBuf,
    open: open_tables::OpenTables,
}

impl Database {
    /// A database in directory `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Database {
        Database {
            dir: dir.into(),
            open: open_tables::OpenTables::default(),
        }
    }
}

impl Database {
    /// Opens the table `name`: `<dir>/name`, or `name` itself when it
    /// contains a path separator.
    pub fn open_named(&self, name: &str) -> Result<Table> {
        let path = if name.contains('/') || name.contains('\\') {
            PathBuf::from(name)
        } else {
            self.dir.join(name)
        };
        match self.open.open(&path) {
            Ok(t) => Ok(t),
            Err(EngineError::Format(strata_format::FormatError::NotATable(_))) => {
                let names = std::fs::read_dir(&self.dir)
                    .map(|rd| {
                        rd.filter_map(|e| e.ok())
                            .filter(|e| e.path().join("MANIFEST").exists())
                            .filter_map(|e| e.file_name().into_string().ok())
                            .collect::<Vec<_>>()
                    })
                    .unwrap_or_default();
                Err(EngineError::NotFound {
                    kind: "table",
                    name: name.to_string(),
                    suggestion: error::closest(name, names.iter().map(|s| s.as_str())),
                })
            }
            Err(e) => Err(e),
        }
    }
}

impl Database {
    /// The tables in the directory (subdirectories holding a manifest),
    /// sorted.
    pub fn table_names(&self) -> Result<Vec<String>> {
        let mut names: Vec<String> = std::fs::read_dir(&self.dir)
            .map_err(|e| EngineError::Runtime(format!("{}: {e}", self.dir.display())))?
            .filter_map(|e| e.ok())
            .filter(|e| e.path().join("MANIFEST").is_file())
            .filter_map(|e| e.file_name().into_string().ok())
            .collect();
        names.sort();
        Ok(names)
    }
}

impl Catalog for Database {
    fn table_names(&self) -> Result<Vec<String>> {
        Database::table_names(self)
    }

    fn open(&self, table: &TableRef) -> Result<Table> {
        match table {
            TableRef::Named(name) => self.open_named(name),
            TableRef::Function { name, .. } => Err(EngineError::NotFound {
                kind: "table function",
                name: name.clone(),
                suggestion: None,
            }),
        }
    }
}

//! The library's catalog: strata tables in the database directory, and input
//! files read in place (loaded once into the [`FileCache`], with only the
//! columns queries name).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use strata_engine::{Catalog, ColumnWords, EngineError, TableRef};
use strata_format::Table;
use strata_ingest::{Event, IngestOptions};

use crate::file_cache::{FileCache, Loaded, Loader, SourceError};
use crate::table_source::{self, Source};

/// What loading input files into the cache reports.
#[derive(Debug)]
#[non_exhaustive]
pub enum LoadEvent<'a> {
    /// Loading starts (the files are not in the cache, or changed).
    Started {
        /// The input files.
        files: &'a [String],
    },
    /// Some more input was read.
    Progress(strata_ingest::Progress),
    /// Loading ended.
    Finished {
        /// Rows loaded; `None` when loading failed.
        rows: Option<u64>,
        /// Wall time.
        elapsed: Duration,
    },
}

/// A callback receiving [`LoadEvent`]s.
pub type LoadProgress = Arc<dyn Fn(&LoadEvent<'_>) + Send + Sync>;

/// Resolves FROM: table names and paths in a directory, files and table
/// functions through a [`FileCache`]. Cheap to clone.
#[derive(Clone)]
pub struct FileCatalog {
    tables: strata_engine::Database,
    dir: PathBuf,
    cache: Arc<FileCache>,
    threads: usize,
    /// The per-query memory limit, which loads of files keep to too.
    memory_limit: Option<u64>,
    progress: Option<LoadProgress>,
}

impl fmt::Debug for FileCatalog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileCatalog")
            .field("dir", &self.dir)
            .field("cache", &self.cache)
            .field("threads", &self.threads)
            .finish_non_exhaustive()
    }
}

impl FileCatalog {
    /// Tables in `dir`; files loaded into `cache` with `threads` threads.
    pub(crate) fn new(dir: &Path, cache: Arc<FileCache>, threads: usize) -> FileCatalog {
        FileCatalog {
            tables: strata_engine::Database::new(dir),
            dir: dir.to_path_buf(),
            cache,
            threads,
            memory_limit: None,
            progress: None,
        }
    }

    /// Loads files with blocks small enough for `limit` bytes of working
    /// memory (see [`IngestOptions::memory_limit`]).
    pub(crate) fn with_memory_limit(mut self, limit: Option<u64>) -> FileCatalog {
        self.memory_limit = limit;
        self
    }

    /// Reports loads to `progress`.
    pub(crate) fn set_progress(&mut self, progress: LoadProgress) {
        self.progress = Some(progress);
    }

    /// The file cache.
    pub fn cache(&self) -> &FileCache {
        &self.cache
    }

    /// The directory a table name stands for.
    fn table_path(&self, name: &str) -> PathBuf {
        if name.contains(['/', '\\']) {
            PathBuf::from(name)
        } else {
            self.dir.join(name)
        }
    }

    fn is_table(&self, name: &str) -> bool {
        self.table_path(name)
            .join(strata_format::layout::MANIFEST_FILE)
            .is_file()
    }

    /// Opens the table `name`, first refusing a manifest that is a FIFO, a
    /// device or longer than its head says (reading one would block, never
    /// end or exhaust memory).
    fn open_table(&self, name: &str) -> Result<Table, EngineError> {
        match strata_format::files::check_manifest(&self.table_path(name)) {
            // The engine names the missing table and suggests others.
            Ok(()) | Err(strata_format::FormatError::NotATable(_)) => {}
            Err(e) => return Err(e.into()),
        }
        self.tables.open_named(name)
    }

    fn report(&self, event: LoadEvent<'_>) {
        if let Some(p) = &self.progress {
            p(&event);
        }
    }
}

/// Loads one query's files with its read options.
struct FileLoader<'a> {
    catalog: &'a FileCatalog,
    options: IngestOptions,
}

impl Loader for FileLoader<'_> {
    fn load(
        &self,
        inputs: &[String],
        dest: &Path,
        columns: Option<&[String]>,
    ) -> Result<Loaded, EngineError> {
        let catalog = self.catalog;
        let options = IngestOptions {
            columns: columns.map(<[String]>::to_vec),
            ..self.options.clone()
        };
        let started = Instant::now();
        catalog.report(LoadEvent::Started { files: inputs });
        let result = strata_ingest::run(inputs, dest, &options, &mut |event| {
            if let Event::Progress(p) = event {
                catalog.report(LoadEvent::Progress(p));
            }
        });
        catalog.report(LoadEvent::Finished {
            rows: result.as_ref().ok().map(|s| s.rows),
            elapsed: started.elapsed(),
        });
        let summary = result.map_err(|source| {
            EngineError::Source(Box::new(SourceError::Ingest {
                files: inputs.join(", "),
                source,
            }))
        })?;
        Ok(Loaded {
            columns: columns.map(|_| {
                summary
                    .schema
                    .fields
                    .iter()
                    .map(|f| f.name.clone())
                    .collect()
            }),
            input_columns: summary.input_columns,
        })
    }
}

impl Catalog for FileCatalog {
    fn open(&self, table: &TableRef) -> Result<Table, EngineError> {
        self.open_for(table, &ColumnWords::any())
    }

    fn table_names(&self) -> Result<Vec<String>, EngineError> {
        self.tables.table_names()
    }

    fn open_for(&self, table: &TableRef, words: &ColumnWords<'_>) -> Result<Table, EngineError> {
        match table_source::resolve(table, |name| self.is_table(name))? {
            Source::Table(name) => self.open_table(&name),
            Source::Files(spec) => {
                let loader = FileLoader {
                    catalog: self,
                    options: IngestOptions {
                        memory_limit: self.memory_limit,
                        ..spec.read.ingest_options(self.threads)?
                    },
                };
                self.cache.table(&spec, words.get(), &loader)
            }
        }
    }

    fn open_head(
        &self,
        table: &TableRef,
        words: &ColumnWords<'_>,
        rows: u64,
    ) -> Result<Option<Table>, EngineError> {
        match table_source::resolve(table, |name| self.is_table(name))? {
            Source::Table(_) => Ok(None),
            Source::Files(spec) => {
                let whole = spec.read.ingest_options(self.threads)?;
                // Blocks of just the rows wanted. (Text inputs still read
                // the inference sample first: types do not depend on the
                // block size.)
                let block_rows = usize::try_from(rows)
                    .unwrap_or(usize::MAX)
                    .clamp(1, whole.block_rows);
                let loader = FileLoader {
                    catalog: self,
                    options: IngestOptions {
                        max_rows: Some(rows),
                        block_rows,
                        ..whole
                    },
                };
                self.cache
                    .head_table(&spec, words.get(), rows, &loader)
                    .map(Some)
            }
        }
    }
}

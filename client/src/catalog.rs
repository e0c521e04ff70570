//! The library's catalog: strata tables in the database directory, and input
//! files read in place (loaded once into the [`FileCache`]; Parquet files
//! with only the columns queries name).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use strata_engine::{Catalog, EngineError, TableRef};
use strata_format::{DataType, Schema, Table};
use strata_ingest::{Event, IngestOptions, InputFormat};

use crate::file_cache::{Fields, FileCache, Loader, SourceError, SourceFile};
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
            progress: None,
        }
    }

    /// Reports loads to `progress`.
    pub(crate) fn set_progress(&mut self, progress: LoadProgress) {
        self.progress = Some(progress);
    }

    /// The file cache.
    pub fn cache(&self) -> &FileCache {
        &self.cache
    }

    fn is_table(&self, name: &str) -> bool {
        let path = if name.contains(['/', '\\']) {
            PathBuf::from(name)
        } else {
            self.dir.join(name)
        };
        path.join(strata_format::layout::MANIFEST_FILE).is_file()
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
    fn fields(&self, sources: &[SourceFile]) -> Result<Fields, EngineError> {
        let first = sources
            .first()
            .map(|s| s.path.as_path())
            .unwrap_or(Path::new(""));
        let schema = strata_ingest::parquet::parquet_schema(first).map_err(|source| {
            EngineError::Source(Box::new(SourceError::Ingest {
                files: first.display().to_string(),
                source,
            }))
        })?;
        let width = |t: DataType| match t {
            DataType::Bool | DataType::Int8 | DataType::UInt8 => 1,
            DataType::Int16 | DataType::UInt16 => 2,
            DataType::Int32 | DataType::UInt32 | DataType::Float32 | DataType::Date => 4,
            DataType::String => 16,
            _ => 8,
        };
        let cheapest = (0..schema.fields.len())
            .min_by_key(|&i| width(schema.fields[i].data_type))
            .unwrap_or(0);
        Ok(Fields {
            names: schema.fields.iter().map(|f| f.name.clone()).collect(),
            cheapest,
        })
    }

    fn load(
        &self,
        inputs: &[String],
        dest: &Path,
        columns: Option<&[String]>,
    ) -> Result<(), EngineError> {
        let catalog = self.catalog;
        let failed = |source| {
            EngineError::Source(Box::new(SourceError::Ingest {
                files: inputs.join(", "),
                source,
            }))
        };
        let mut options = self.options.clone();
        if let (Some(columns), Some(first)) = (columns, inputs.first()) {
            let schema =
                strata_ingest::parquet::parquet_schema(Path::new(first)).map_err(failed)?;
            let fields = schema
                .fields
                .into_iter()
                .filter(|f| columns.contains(&f.name))
                .collect();
            options.schema = Some(Schema::new(fields)?);
        }
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
        result.map(|_| ()).map_err(failed)
    }
}

impl Catalog for FileCatalog {
    fn open(&self, table: &TableRef) -> Result<Table, EngineError> {
        self.open_for(table, None)
    }

    fn open_for(&self, table: &TableRef, words: Option<&[String]>) -> Result<Table, EngineError> {
        match table_source::resolve(table, |name| self.is_table(name))? {
            Source::Table(name) => self.tables.open_named(&name),
            Source::Files(spec) => {
                let loader = FileLoader {
                    catalog: self,
                    options: spec.read.ingest_options(self.threads)?,
                };
                // Text must be parsed whole anyway: load every column.
                let words = words.filter(|_| spec.read.format == InputFormat::Parquet);
                self.cache.table(&spec, words, &loader)
            }
        }
    }
}

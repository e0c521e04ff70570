//! The cache of input files loaded as strata tables.
//!
//! ```text
//! <cache dir>/<key>-<id>/SOURCE  options; size, mtime (ns), path per file; columns loaded
//!                         USED    empty; its modification time is the entry's last use
//!                         table/  the strata table (published atomically by the table writer)
//! <cache dir>/.lock-<key>         while a process loads these files: its `flock` (and pid)
//! ```
//!
//! The key is a hash of the options and the files' paths, sizes and
//! modification times, so a lookup costs one `stat` per input file and never
//! reads file contents: a file whose size or modification time changed has
//! another key and is loaded again (the old entry is dropped then). Files are
//! loaded with only the columns the query names; a later query naming others
//! loads the union, which replaces the smaller entries. The first process to
//! take the key's lock loads; the others wait for it (then use its entry if
//! it has their columns), or take over when its process died (the kernel
//! releases a dead process's lock, wherever it was killed). Past
//! the size limit, the least recently used entries are removed.
//!
//! Entries are removed (by `strata cache clear`, eviction, or a larger
//! entry for the same files) by renaming them away first, and a query maps
//! every block file of its entry before using it (see
//! [`Table::pin_files`]), so a query that has its entry finishes with it
//! whatever happens to the directory, and one that finds its entry gone
//! meanwhile loads the files again. `clear` leaves entries being built by
//! a running process to their builder.
//!
//! Entries copy the contents of files that may be private, so they are
//! private too: entry directories are created with mode 0700, as is the
//! cache directory when strata creates it (the default one, `~/.cache/strata`,
//! is made 0700 when found looser; older versions created it with the
//! umask's modes). Entries found looser are made private when used.

use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use strata_engine::EngineError;
use strata_format::lockfile::LockFile;
use strata_format::Table;
use strata_ingest::IngestError;

use crate::table_source::FileSpec;

/// Default size limit of the cache: 10 GiB.
pub const DEFAULT_LIMIT: u64 = 10 << 30;

const SOURCE_FILE: &str = "SOURCE";
const USED_FILE: &str = "USED";
const TABLE_DIR: &str = "table";
/// Part of every entry's key: a new version stops entries built by an
/// older one being used (2: DuckDB's names for headerless columns, quoted
/// empty fields counted as NULLs when inferring; 3: numbers with a leading
/// zero or `+` inferred as text).
const VERSION_LINE: &str = "strata-cache 3";
/// The mode of the cache's directories: the owner's only.
const PRIVATE: u32 = 0o700;
/// How often a process waiting for another's build looks again.
const POLL: Duration = Duration::from_millis(50);

/// Loading input files failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SourceError {
    /// An input file (or the cache directory) could not be read or written.
    #[error("{context} {}: {source}", path.display())]
    Io {
        /// What was being done.
        context: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// Reading the input files into a table failed (bad rows, bad types,
    /// unreadable Parquet, no file matching a glob, ...).
    #[error("reading {files}: {source}")]
    Ingest {
        /// The inputs, as written.
        files: String,
        /// The ingest error.
        source: IngestError,
    },
    /// An input file changed while it was being loaded.
    #[error("{} changed while it was being read; run the query again", path.display())]
    Changed {
        /// The file.
        path: PathBuf,
    },
}

fn io_err<'a>(context: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> SourceError + 'a {
    move |source| SourceError::Io {
        context,
        path: path.to_path_buf(),
        source,
    }
}

/// One input file as the cache saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// Canonical path.
    pub path: PathBuf,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: u128,
}

/// One cache entry, as `strata cache list` shows it.
#[derive(Debug, Clone)]
pub struct CacheEntry {
    /// The entry's directory.
    pub dir: PathBuf,
    /// The input files.
    pub sources: Vec<SourceFile>,
    /// The read options (as `ReadOptions::describe` wrote them).
    pub options: String,
    /// The columns loaded, when not all (Parquet files are loaded with the
    /// columns queries use).
    pub columns: Option<Vec<String>>,
    /// Bytes on disk.
    pub bytes: u64,
    /// Last use.
    pub last_used: SystemTime,
    /// Whether the table is complete (not still being built, or abandoned).
    pub complete: bool,
}

/// Where the cache lives and how large it may grow.
#[derive(Debug)]
pub struct FileCache {
    dir: PathBuf,
    limit: u64,
    /// A private directory removed when the cache is dropped.
    temporary: bool,
    /// Whether `dir` is the user's default cache folder, which is made
    /// private (0700) when found looser.
    default_location: bool,
}

/// The user's cache folder for strata: `$XDG_CACHE_HOME/strata`, else
/// `$HOME/.cache/strata`, else a `strata-cache` folder in the temporary
/// directory.
pub fn default_dir() -> PathBuf {
    let env = |k: &str| {
        std::env::var_os(k)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    if let Some(x) = env("XDG_CACHE_HOME") {
        x.join("strata")
    } else if let Some(h) = env("HOME") {
        h.join(".cache").join("strata")
    } else {
        std::env::temp_dir().join("strata-cache")
    }
}

fn now_ns() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

impl FileCache {
    /// A cache in `dir` (created when first needed) holding at most `limit`
    /// bytes.
    pub fn new(dir: impl Into<PathBuf>, limit: u64) -> FileCache {
        let dir = dir.into();
        FileCache {
            default_location: dir == default_dir(),
            dir,
            limit,
            temporary: false,
        }
    }

    /// A private cache in the temporary directory, removed when dropped.
    pub fn temporary(limit: u64) -> FileCache {
        let dir =
            std::env::temp_dir().join(format!("strata-cache-{}-{}", std::process::id(), now_ns()));
        FileCache {
            dir,
            limit,
            temporary: true,
            default_location: false,
        }
    }

    /// The cache directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The size limit in bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// The table holding `spec`'s files, loading them first (through
    /// `loader`) unless an entry for their current size and modification
    /// time exists. With `words` (see [`strata_engine::column_words`]) an
    /// entry holding only the columns named among them will do, and a new
    /// entry loads only those plus the columns of older entries for the same
    /// files, which it replaces: entries grow towards the columns queries use.
    pub(crate) fn table(
        &self,
        spec: &FileSpec,
        words: Option<&[String]>,
        loader: &dyn Loader,
    ) -> Result<Table, EngineError> {
        let sources = stat_inputs(&spec.patterns)?;
        self.table_of(spec.read.describe(), sources, words, loader)
    }

    /// A table holding at least the first `rows` rows of `spec`'s files, in
    /// order: a complete entry if there is one, else an entry of just their
    /// first blocks (keyed apart from complete ones, so that nothing else
    /// is answered from it), loaded through `loader`, which must stop after
    /// `rows` rows.
    pub(crate) fn head_table(
        &self,
        spec: &FileSpec,
        words: Option<&[String]>,
        rows: u64,
        loader: &dyn Loader,
    ) -> Result<Table, EngineError> {
        let sources = stat_inputs(&spec.patterns)?;
        let options = spec.read.describe();
        let whole = hash(&source_text(&options, &sources));
        if let Some(t) = self.covering(&whole, words)? {
            return Ok(t);
        }
        self.table_of(format!("{options} head={rows}"), sources, words, loader)
    }

    /// [`FileCache::table`] of `sources` read with `options` (as described
    /// in the entries).
    fn table_of(
        &self,
        options: String,
        sources: Vec<SourceFile>,
        words: Option<&[String]>,
        loader: &dyn Loader,
    ) -> Result<Table, EngineError> {
        let base = hash(&source_text(&options, &sources));
        loop {
            if let Some(t) = self.covering(&base, words)? {
                return Ok(t);
            }
            self.create_dir()
                .map_err(|e| source_err(io_err("creating", &self.dir)(e)))?;
            let Some(lock) = take_lock(&self.dir.join(format!(".lock-{base}")))? else {
                std::thread::sleep(POLL);
                continue;
            };
            // Another process may have built what we need while we waited.
            if let Some(t) = self.covering(&base, words)? {
                return Ok(t);
            }
            self.remove_abandoned(&base);
            let columns = words.map(|words| {
                let mut set: Vec<String> = words.to_vec();
                for (_, m) in self.siblings(&base) {
                    set.extend(m.loaded.into_iter().flatten());
                }
                set.sort();
                set.dedup();
                set
            });
            let entry = self
                .dir
                .join(format!("{base}-{:x}{:x}", std::process::id(), now_ns()));
            let meta = Meta {
                options,
                sources,
                loaded: None,
                fields: Vec::new(),
            };
            let built = self.build(&entry, meta, columns.as_deref(), loader);
            drop(lock);
            return built;
        }
    }

    /// Creates the cache directory (mode 0700) unless it exists; the default
    /// one is made 0700 if it is looser. (Another directory given as the
    /// cache keeps its mode: it may be shared, such as `/tmp`; the entries
    /// in it are private.)
    fn create_dir(&self) -> io::Result<()> {
        if let Some(parent) = self.dir.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent)?;
        }
        match fs::DirBuilder::new().mode(PRIVATE).create(&self.dir) {
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                if self.default_location {
                    make_private(&self.dir)?;
                }
                Ok(())
            }
            other => other,
        }
    }

    /// Removes the incomplete entries for `base`, whose lock the caller
    /// holds: builds of processes that died.
    fn remove_abandoned(&self, base: &str) {
        let prefix = format!("{base}-");
        let Ok(rd) = fs::read_dir(&self.dir) else {
            return;
        };
        for e in rd.flatten() {
            let path = e.path();
            if e.file_name().to_string_lossy().starts_with(&prefix)
                && !path.join(USED_FILE).exists()
            {
                remove_entry(&path);
            }
        }
    }

    /// A complete entry for `base` holding the columns `words` name.
    fn covering(&self, base: &str, words: Option<&[String]>) -> Result<Option<Table>, EngineError> {
        for (dir, meta) in self.siblings(base) {
            if meta.covers(words) {
                if let Some(t) = open_entry(&dir)? {
                    return Ok(Some(t));
                }
            }
        }
        Ok(None)
    }

    /// Complete entries for the same files (same size and modification
    /// time) and options as `base`.
    fn siblings(&self, base: &str) -> Vec<(PathBuf, Meta)> {
        let prefix = format!("{base}-");
        let Ok(rd) = fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        rd.filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
            .map(|e| e.path())
            .filter(|p| p.join(USED_FILE).exists())
            .map(|p| {
                let meta = Meta::read(&p);
                (p, meta)
            })
            .collect()
    }

    /// Loads the files of `meta` into the new entry `entry` (`columns` of
    /// them, or all), holding the lock of its files.
    fn build(
        &self,
        entry: &Path,
        mut meta: Meta,
        columns: Option<&[String]>,
        loader: &dyn Loader,
    ) -> Result<Table, EngineError> {
        fs::DirBuilder::new()
            .mode(PRIVATE)
            .create(entry)
            .map_err(|e| source_err(io_err("creating", entry)(e)))?;
        let table_dir = entry.join(TABLE_DIR);
        let inputs: Vec<String> = meta
            .sources
            .iter()
            .map(|s| s.path.to_string_lossy().into_owned())
            .collect();
        let built = loader
            .load(&inputs, &table_dir, columns)
            .and_then(|loaded| {
                if stat_inputs(&inputs)? != meta.sources {
                    return Err(source_err(SourceError::Changed {
                        path: inputs.first().map(PathBuf::from).unwrap_or_default(),
                    }));
                }
                // Held before the entry is published: once it is, another
                // process may remove it.
                let table = open_pinned(&table_dir)?;
                meta.loaded = loaded.columns;
                meta.fields = loaded.input_columns;
                write_atomic(&entry.join(SOURCE_FILE), meta.text().as_bytes())?;
                touch(&entry.join(USED_FILE))?;
                Ok(table)
            });
        match built {
            Ok(table) => {
                self.evict(entry, &meta);
                Ok(table)
            }
            Err(e) => {
                let _ = fs::remove_dir_all(entry);
                Err(e)
            }
        }
    }

    /// Whether entry `e` is being built by a live process (incomplete, its
    /// files' lock held).
    fn being_built(&self, e: &CacheEntry) -> bool {
        !e.complete
            && e.dir
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.split('-').next())
                .is_some_and(|base| LockFile::is_held(&self.dir.join(format!(".lock-{base}"))))
    }

    /// Every entry, most recently used first.
    pub fn entries(&self) -> Result<Vec<CacheEntry>, SourceError> {
        let rd = match fs::read_dir(&self.dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io_err("listing", &self.dir)(e)),
        };
        let mut out: Vec<CacheEntry> = rd
            .filter_map(|e| e.ok())
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .filter(|e| e.path().is_dir())
            .map(|e| read_entry(&e.path()))
            .collect();
        out.sort_by_key(|e| std::cmp::Reverse(e.last_used));
        Ok(out)
    }

    /// Removes every entry, or those reading `path` (a file; compared by
    /// canonical path when it still exists); returns how many. Entries being
    /// built by a running process are left to it; queries reading an entry
    /// finish with it.
    pub fn clear(&self, path: Option<&Path>) -> Result<usize, SourceError> {
        let target = path.map(|p| {
            fs::canonicalize(p)
                .unwrap_or_else(|_| std::path::absolute(p).unwrap_or(p.to_path_buf()))
        });
        let mut removed = 0;
        for e in self.entries()? {
            let hit = match &target {
                None => true,
                Some(t) => e.sources.iter().any(|s| &s.path == t),
            } && !self.being_built(&e);
            if hit && remove_entry(&e.dir) {
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// Drops older entries for the same files and options as `keep` (stale,
    /// or holding fewer columns) and half-built ones whose builder died,
    /// then the least recently used ones while the cache is over its limit
    /// (never `keep`, nor an entry being built). Best effort.
    fn evict(&self, keep: &Path, meta: &Meta) {
        let Ok(entries) = self.entries() else {
            return;
        };
        let same_files = |e: &CacheEntry| {
            e.options == meta.options
                && e.sources.len() == meta.sources.len()
                && e.sources
                    .iter()
                    .zip(&meta.sources)
                    .all(|(a, b)| a.path == b.path)
                && match (&e.columns, &meta.loaded) {
                    (_, None) => true,
                    (None, Some(_)) => false,
                    (Some(old), Some(new)) => old.iter().all(|c| new.contains(c)),
                }
        };
        let mut total = 0;
        let mut candidates = Vec::new();
        for e in entries {
            if e.dir == keep || self.being_built(&e) {
                total += e.bytes;
            } else if same_files(&e) || !e.complete {
                remove_entry(&e.dir);
            } else {
                total += e.bytes;
                candidates.push(e);
            }
        }
        // Oldest last in `entries` order: evict from the end.
        while total > self.limit {
            let Some(e) = candidates.pop() else {
                break;
            };
            if remove_entry(&e.dir) {
                total = total.saturating_sub(e.bytes);
            }
        }
    }
}

impl Drop for FileCache {
    fn drop(&mut self) {
        if self.temporary {
            let _ = fs::remove_dir_all(&self.dir);
        }
    }
}

fn source_err(e: SourceError) -> EngineError {
    EngineError::Source(Box::new(e))
}

/// Expands globs and stats every input: canonical path, size, mtime.
fn stat_inputs(patterns: &[String]) -> Result<Vec<SourceFile>, EngineError> {
    let paths = strata_ingest::input::expand_inputs(patterns).map_err(|source| {
        source_err(SourceError::Ingest {
            files: patterns.join(", "),
            source,
        })
    })?;
    paths
        .iter()
        .map(|p| {
            if p.as_os_str() == strata_ingest::input::STDIN {
                return Err(EngineError::Invalid(
                    "standard input cannot be queried in place".into(),
                ));
            }
            let path = fs::canonicalize(p).map_err(|e| source_err(io_err("opening", p)(e)))?;
            let meta = fs::metadata(&path).map_err(|e| source_err(io_err("opening", p)(e)))?;
            if !meta.is_file() {
                return Err(EngineError::Invalid(format!(
                    "{} is not a file (nor a strata table)",
                    p.display()
                )));
            }
            let mtime_ns = meta
                .modified()
                .map_err(|e| source_err(io_err("reading the modification time of", p)(e)))?
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            Ok(SourceFile {
                path,
                size: meta.len(),
                mtime_ns,
            })
        })
        .collect()
}

fn hash(text: &str) -> String {
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(text.as_bytes()))
}

/// What a [`Loader`] loaded.
pub(crate) struct Loaded {
    /// The columns loaded; `None` for all.
    pub columns: Option<Vec<String>>,
    /// Every column of the files.
    pub input_columns: Vec<String>,
}

/// Reads input files into tables for the cache.
pub(crate) trait Loader {
    /// Loads `inputs` (canonical paths) into the new table directory `dest`:
    /// the columns named among `columns` (any case; see
    /// [`strata_ingest::IngestOptions::columns`] for when none is named), or
    /// all of them.
    fn load(
        &self,
        inputs: &[String],
        dest: &Path,
        columns: Option<&[String]>,
    ) -> Result<Loaded, EngineError>;
}

/// What an entry's `SOURCE` file says.
#[derive(Debug, Clone, Default)]
struct Meta {
    options: String,
    sources: Vec<SourceFile>,
    /// The columns loaded; `None` for all.
    loaded: Option<Vec<String>>,
    /// Every column of the files.
    fields: Vec<String>,
}

impl Meta {
    fn text(&self) -> String {
        let mut s = source_text(&self.options, &self.sources);
        match &self.loaded {
            None => s.push_str("loaded *\n"),
            Some(cols) => cols
                .iter()
                .for_each(|c| s.push_str(&format!("loaded {c}\n"))),
        }
        for n in &self.fields {
            s.push_str(&format!("field {n}\n"));
        }
        s
    }

    fn read(dir: &Path) -> Meta {
        let text = fs::read_to_string(dir.join(SOURCE_FILE)).unwrap_or_default();
        let mut m = Meta::default();
        let mut loaded = Vec::new();
        let mut all = false;
        for line in text.lines() {
            let (tag, rest) = line.split_once(' ').unwrap_or((line, ""));
            match tag {
                "options" => m.options = rest.to_string(),
                "loaded" if rest == "*" => all = true,
                "loaded" => loaded.push(rest.to_string()),
                "field" => m.fields.push(rest.to_string()),
                "file" => {
                    let mut parts = rest.splitn(3, ' ');
                    if let (Some(size), Some(mtime), Some(path)) =
                        (parts.next(), parts.next(), parts.next())
                    {
                        m.sources.push(SourceFile {
                            path: PathBuf::from(path),
                            size: size.parse().unwrap_or(0),
                            mtime_ns: mtime.parse().unwrap_or(0),
                        });
                    }
                }
                _ => {}
            }
        }
        m.loaded = (!all).then_some(loaded);
        m
    }

    /// Whether this entry holds every column a query naming `words` reads.
    fn covers(&self, words: Option<&[String]>) -> bool {
        match (&self.loaded, words) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(loaded), Some(words)) => self
                .fields
                .iter()
                .filter(|f| words.iter().any(|w| w.eq_ignore_ascii_case(f)))
                .all(|f| loaded.contains(f)),
        }
    }
}

fn source_text(options: &str, sources: &[SourceFile]) -> String {
    let mut s = format!("{VERSION_LINE}\noptions {options}\n");
    for f in sources {
        s.push_str(&format!(
            "file {} {} {}\n",
            f.size,
            f.mtime_ns,
            f.path.to_string_lossy()
        ));
    }
    s
}

/// The entry's table if it is complete (marked used); marks it used again.
fn open_entry(entry: &Path) -> Result<Option<Table>, EngineError> {
    let used = entry.join(USED_FILE);
    if !used.exists() {
        return Ok(None);
    }
    match open_pinned(&entry.join(TABLE_DIR)) {
        Ok(t) => {
            // Written by an older version with the umask's modes; best
            // effort (another user's entry in a shared directory stays).
            let _ = make_private(entry);
            // Best effort too: the entry may be removed by now, and the
            // query still has its files.
            let _ = touch(&used);
            Ok(Some(t))
        }
        // Removed by another process meanwhile, or damaged: build it again.
        Err(_) => {
            remove_entry(entry);
            Ok(None)
        }
    }
}

/// Opens a cache entry's table with every block file mapped: the query
/// keeps reading it if the entry is removed meanwhile.
fn open_pinned(table: &Path) -> Result<Table, EngineError> {
    let t = Table::open(table)?;
    t.pin_files()?;
    Ok(t)
}

/// Takes group and other permissions off directory `dir`.
fn make_private(dir: &Path) -> io::Result<()> {
    let mode = fs::metadata(dir)?.permissions().mode();
    if mode & 0o077 != 0 {
        fs::set_permissions(dir, fs::Permissions::from_mode(mode & 0o700))?;
    }
    Ok(())
}

/// Sets the file's modification time to now, creating it if needed.
fn touch(path: &Path) -> Result<(), EngineError> {
    fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .and_then(|f| f.set_modified(SystemTime::now()))
        .map_err(|e| source_err(io_err("marking as used", path)(e)))
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), EngineError> {
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(bytes))
        .and_then(|()| fs::rename(&tmp, path))
        .map_err(|e| source_err(io_err("writing", path)(e)))
}

fn read_entry(dir: &Path) -> CacheEntry {
    let meta = Meta::read(dir);
    let used = fs::metadata(dir.join(USED_FILE));
    let last_used = used
        .as_ref()
        .ok()
        .and_then(|m| m.modified().ok())
        .or_else(|| fs::metadata(dir).and_then(|m| m.modified()).ok())
        .unwrap_or(UNIX_EPOCH);
    CacheEntry {
        dir: dir.to_path_buf(),
        sources: meta.sources,
        options: meta.options,
        columns: meta.loaded,
        bytes: strata_format::files::dir_bytes(dir),
        last_used,
        complete: used.is_ok(),
    }
}

/// Removes an entry: renamed away first so no reader sees half of it.
fn remove_entry(dir: &Path) -> bool {
    let Some(name) = dir.file_name() else {
        return false;
    };
    let trash = dir.with_file_name(format!(
        ".removed-{}-{}-{}",
        name.to_string_lossy(),
        std::process::id(),
        now_ns()
    ));
    if fs::rename(dir, &trash).is_err() {
        return false;
    }
    let _ = fs::remove_dir_all(&trash);
    true
}

/// Takes the build lock of one set of files and options (a `.lock-<key>`
/// [`LockFile`], removed on drop), or returns `None` while a live process
/// holds it.
fn take_lock(path: &Path) -> Result<Option<LockFile>, EngineError> {
    match LockFile::try_take(path) {
        // The cache directory was removed meanwhile: try again.
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        r => r.map_err(|e| source_err(io_err("locking", path)(e))),
    }
}

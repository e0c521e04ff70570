//! Writing tables atomically.
//!
//! A new table is written into a hidden temporary directory next to its final
//! path and renamed into place by [`TableWriter::finish`]. An append writes new
//! block files into the table directory (invisible until referenced) and then
//! replaces the manifest by an atomic rename. Dropping an unfinished writer
//! removes whatever it wrote.
//!
//! An append holds an exclusive `flock` on `APPEND.lock`, which the kernel
//! releases when the process ends however it ends: a killed append blocks
//! nothing. Holding the lock, it removes what a killed append left (block
//! files no manifest refers to, `MANIFEST.tmp-*`) before writing.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use zerocopy::little_endian::{U32, U64};

use crate::column::ColumnData;
use crate::encode::{encode_block, EncodedBlock};
use crate::error::{FormatError, Result};
use crate::layout::{
    block_file_name, checksum, BlockEntry, APPEND_LOCK_FILE, BLOCK_FOOTER_LEN, BLOCK_HEADER_LEN,
    MANIFEST_FILE, MAX_BLOCK_ROWS,
};
use crate::lockfile::LockFile;
use crate::manifest::Manifest;
use crate::types::Schema;

/// The default number of rows per block: 2^19.
pub const DEFAULT_BLOCK_ROWS: usize = 1 << 19;

/// Options for writing a table.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    /// Rows per block (the last block may be shorter), 1 to 2^24.
    pub block_rows: usize,
    /// fsync files and directories before publishing them (on by default;
    /// tests may turn it off for speed).
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

/// What a finished write produced.
#[derive(Debug, Clone, Default)]
pub struct WriteSummary {
    /// Rows in the table after the write.
    pub rows: u64,
    /// Blocks in the table after the write.
    pub blocks: usize,
    /// Bytes written by this write (block files and manifest).
    pub bytes_written: u64,
}

/// Writes a new table, or appends blocks to an existing one.
///
/// Nothing is visible to readers until [`TableWriter::finish`] succeeds; if the
/// writer is dropped before that, everything it wrote is removed.
#[derive(Debug)]
pub struct TableWriter {
    /// The table's final path.
    path: PathBuf,
    /// Where block files are written: a temporary directory for a new table,
    /// the table itself for an append.
    dir: PathBuf,
    append: bool,
    options: WriteOptions,
    manifest: Manifest,
    next_file_id: u64,
    written_files: Vec<PathBuf>,
    /// An append's lock, released when the writer is finished or dropped.
    lock: Option<AppendLock>,
    /// A new table's hold on its temporary directory.
    _work_lock: Option<WorkDirLock>,
    bytes_written: u64,
    finished: bool,
}

impl TableWriter {
    /// Starts a new table at `path`, which must not exist yet.
    pub fn create(path: &Path, schema: Schema, options: WriteOptions) -> Result<TableWriter> {
        check_options(&options)?;
        if path.exists() {
            return Err(FormatError::AlreadyExists(path.to_path_buf()));
        }
        let (parent, _) = parent_and_name(path)?;
        let dir = temp_path(path, "")?;
        sweep_abandoned(&parent);
        fs::create_dir(&dir).map_err(|e| FormatError::io("creating", &dir, e))?;
        let work_lock = WorkDirLock::take(&dir);
        let work_lock = match work_lock {
            Ok(lock) => lock,
            Err(e) => {
                let _ = fs::remove_dir(&dir);
                return Err(e);
            }
        };
        Ok(TableWriter {
            path: path.to_path_buf(),
            dir,
            append: false,
            manifest: Manifest {
                schema,
                block_rows: options.block_rows as u32,
                rows: 0,
                generation: 1,
                blocks: Vec::new(),
                chunks: Vec::new(),
            },
            options,
            next_file_id: 0,
            written_files: Vec::new(),
            lock: None,
            _work_lock: Some(work_lock),
            bytes_written: 0,
            finished: false,
        })
    }

    /// Starts appending to the existing table at `path`; the table's schema is
    /// kept and readers see either the old or the new table, never a mix. Only
    /// one append at a time: a second one fails while the first holds
    /// `APPEND.lock` (see the module documentation).
    pub fn append(path: &Path, options: WriteOptions) -> Result<TableWriter> {
        check_options(&options)?;
        let manifest_path = path.join(MANIFEST_FILE);
        // Taken before the manifest is read: the append builds on the
        // manifest no other append can replace meanwhile.
        let lock = AppendLock::take(path)?;
        sweep_abandoned(&parent_and_name(path)?.0);
        let bytes = crate::files::read_manifest(path)?;
        let manifest = Manifest::decode(&manifest_path, &bytes)?;
        remove_append_debris(path, &manifest)?;
        Ok(TableWriter {
            path: path.to_path_buf(),
            dir: path.to_path_buf(),
            append: true,
            options,
            next_file_id: manifest.blocks.last().map_or(0, |b| b.file_id.get() + 1),
            manifest: Manifest {
                generation: manifest.generation + 1,
                ..manifest
            },
            written_files: Vec::new(),
            lock: Some(lock),
            _work_lock: None,
            bytes_written: 0,
            finished: false,
        })
    }

    /// The schema being written.
    pub fn schema(&self) -> &Schema {
        &self.manifest.schema
    }

    /// Rows per block this writer was asked to use.
    pub fn block_rows(&self) -> usize {
        self.options.block_rows
    }

    /// Encodes and writes one block (shorthand for [`encode_block`] followed
    /// by [`TableWriter::write_encoded`]).
    pub fn write_block(&mut self, columns: Vec<ColumnData>) -> Result<()> {
        let block = encode_block(&self.manifest.schema, columns)?;
        self.write_encoded(block)
    }

    /// Writes an already encoded block after the previous ones. The block must
    /// have been encoded with this writer's schema.
    pub fn write_encoded(&mut self, block: EncodedBlock) -> Result<()> {
        if block.chunks.len() != self.manifest.schema.len() {
            return Err(FormatError::InvalidInput(format!(
                "block has {} columns, the table {}",
                block.chunks.len(),
                self.manifest.schema.len()
            )));
        }
        if block.rows() > self.options.block_rows {
            return Err(FormatError::InvalidInput(format!(
                "block of {} rows is larger than the block size {}",
                block.rows(),
                self.options.block_rows
            )));
        }
        let id = self.next_file_id;
        let file = self.dir.join(block_file_name(id));
        self.written_files.push(file.clone());
        write_file(&file, &block.bytes, self.options.sync)?;
        let len = block.bytes.len();
        let mut ends = Vec::with_capacity(BLOCK_HEADER_LEN + BLOCK_FOOTER_LEN);
        ends.extend_from_slice(&block.bytes[..BLOCK_HEADER_LEN]);
        ends.extend_from_slice(&block.bytes[len - BLOCK_FOOTER_LEN..]);
        self.manifest.blocks.push(BlockEntry {
            file_id: U64::new(id),
            rows: U32::new(block.rows),
            reserved: U32::new(0),
            file_len: U64::new(len as u64),
            ends_checksum: U64::new(checksum(&ends)),
        });
        self.manifest.chunks.extend_from_slice(&block.chunks);
        self.manifest.rows += u64::from(block.rows);
        self.next_file_id += 1;
        self.bytes_written += len as u64;
        Ok(())
    }

    /// Publishes the table atomically and returns what it holds.
    pub fn finish(self) -> Result<WriteSummary> {
        match self.finish_unless(&|| false)? {
            Some(summary) => Ok(summary),
            None => Err(FormatError::InvalidInput("the write was cancelled".into())),
        }
    }

    /// [`TableWriter::finish`], unless `cancelled()` says so at the commit
    /// point: after everything is written and synced, just before the
    /// rename that publishes the table. `None` when cancelled: nothing is
    /// published and everything written is removed. (Once the rename is
    /// done, the write counts as finished.)
    pub fn finish_unless(mut self, cancelled: &dyn Fn() -> bool) -> Result<Option<WriteSummary>> {
        let bytes = self.manifest.encode();
        let sync = self.options.sync;
        if self.append {
            let tmp = self
                .dir
                .join(format!("{MANIFEST_FILE}.tmp-{}", std::process::id()));
            self.written_files.push(tmp.clone());
            write_file(&tmp, &bytes, sync)?;
            if sync {
                sync_dir(&self.dir)?;
            }
            if cancelled() {
                return Ok(None);
            }
            let target = self.dir.join(MANIFEST_FILE);
            fs::rename(&tmp, &target).map_err(|e| FormatError::io("renaming", &tmp, e))?;
        } else {
            let target = self.dir.join(MANIFEST_FILE);
            write_file(&target, &bytes, sync)?;
            if sync {
                sync_dir(&self.dir)?;
            }
            if self.path.exists() {
                return Err(FormatError::AlreadyExists(self.path.clone()));
            }
            if cancelled() {
                return Ok(None);
            }
            fs::rename(&self.dir, &self.path)
                .map_err(|e| FormatError::io("renaming into place", &self.path, e))?;
        }
        if sync {
            if let Some(parent) = self.path.parent().filter(|p| !p.as_os_str().is_empty()) {
                sync_dir(parent)?;
            }
            if self.append {
                sync_dir(&self.dir)?;
            }
        }
        self.finished = true;
        drop(self.lock.take());
        Ok(Some(WriteSummary {
            rows: self.manifest.rows,
            blocks: self.manifest.blocks.len(),
            bytes_written: self.bytes_written + bytes.len() as u64,
        }))
    }
}

impl Drop for TableWriter {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        // Best effort: an unfinished write leaves nothing behind.
        if self.append {
            for f in self.written_files.iter().rev() {
                let _ = fs::remove_file(f);
            }
        } else {
            let _ = fs::remove_dir_all(&self.dir);
        }
        drop(self.lock.take());
    }
}

/// The exclusive lock of a table's `APPEND.lock` ([`LockFile`]): the
/// kernel releases it when the appending process dies.
#[derive(Debug)]
struct AppendLock {
    _lock: LockFile,
}

impl AppendLock {
    /// Takes the lock of the table in `dir`, or fails at once while another
    /// process holds it.
    fn take(dir: &Path) -> Result<AppendLock> {
        let path = dir.join(APPEND_LOCK_FILE);
        if !dir.join(MANIFEST_FILE).exists() {
            return Err(FormatError::NotATable(dir.to_path_buf()));
        }
        match LockFile::try_take(&path) {
            Ok(Some(lock)) => Ok(AppendLock { _lock: lock }),
            Ok(None) => Err(FormatError::InvalidInput(format!(
                "another append to {} is running (it holds {})",
                dir.display(),
                path.display()
            ))),
            Err(e) => Err(FormatError::io("locking", &path, e)),
        }
    }
}

/// Removes what a killed append of the table in `dir` left: block files
/// `manifest` does not refer to and temporary manifests. Only called with
/// the append lock held, so no other writer is at work; readers never use
/// a block file their manifest does not list.
fn remove_append_debris(dir: &Path, manifest: &Manifest) -> Result<()> {
    let listed: std::collections::HashSet<u64> =
        manifest.blocks.iter().map(|b| b.file_id.get()).collect();
    let entries = fs::read_dir(dir).map_err(|e| FormatError::io("listing", dir, e))?;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        let unlisted_block = name
            .strip_prefix('b')
            .and_then(|n| n.strip_suffix(".blk"))
            .filter(|id| !id.is_empty() && id.bytes().all(|c| c.is_ascii_digit()))
            .and_then(|id| id.parse::<u64>().ok())
            .is_some_and(|id| !listed.contains(&id));
        let temporary_manifest = name.starts_with(&format!("{MANIFEST_FILE}.tmp-"));
        if unlisted_block || temporary_manifest {
            let path = entry.path();
            fs::remove_file(&path).map_err(|e| FormatError::io("removing", &path, e))?;
        }
    }
    Ok(())
}

/// The directory holding `table` and the table's file name (of its real
/// path when it is given as `.` or `..`).
fn parent_and_name(table: &Path) -> Result<(PathBuf, String)> {
    let real = table
        .file_name()
        .is_none()
        .then(|| table.canonicalize().ok())
        .flatten();
    let table = real.as_deref().unwrap_or(table);
    let name = table
        .file_name()
        .ok_or_else(|| FormatError::InvalidInput(format!("{} has no file name", table.display())))?
        .to_string_lossy()
        .into_owned();
    let parent = match table.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((parent, name))
}

/// A new temporary path beside `table`, `.{name}.tmp-{pid}-{nanos}{suffix}`:
/// the name table writers give their work in progress, so that what a
/// killed process leaves there is removed by the next writer of `table`.
pub fn temp_path(table: &Path, suffix: &str) -> Result<PathBuf> {
    let (parent, name) = parent_and_name(table)?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    Ok(parent.join(format!(
        ".{name}.tmp-{}-{nanos}{suffix}",
        std::process::id()
    )))
}

/// A writer's hold on its temporary directory: an exclusive `flock` on the
/// directory, kept for the writer's life and released by the kernel when
/// its process ends. [`sweep_abandoned`] leaves a locked directory alone,
/// whatever its name says: a writer in another PID namespace (a container
/// sharing the directory) looks dead by its pid, but holds its lock.
#[derive(Debug)]
pub struct WorkDirLock {
    _lock: nix::fcntl::Flock<fs::File>,
}

impl WorkDirLock {
    /// Locks directory `dir`, just created by this writer.
    pub fn take(dir: &Path) -> Result<WorkDirLock> {
        let file = fs::File::open(dir).map_err(|e| FormatError::io("opening", dir, e))?;
        nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusiveNonblock)
            .map(|lock| WorkDirLock { _lock: lock })
            .map_err(|(_, errno)| FormatError::io("locking", dir, errno.into()))
    }
}

/// The temporary directories in `parent` that writers killed before they
/// could clean up left: hidden directories named like [`temp_path`]'s
/// (`.{name}.tmp-{pid}-{nanos}`, any table name and suffix) whose process
/// no longer runs and whose [`WorkDirLock`] nobody holds. Only where
/// `/proc` tells which processes run; elsewhere none.
pub fn abandoned_temp_dirs(parent: &Path) -> Vec<PathBuf> {
    if !Path::new("/proc/self").exists() {
        return Vec::new();
    }
    let Ok(entries) = fs::read_dir(parent) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(temp_dir_pid) else {
            continue;
        };
        // Not following links: only real directories are writers'.
        if !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let path = entry.path();
        if !Path::new(&format!("/proc/{pid}")).exists() && WorkDirLock::take(&path).is_ok() {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// Removes [`abandoned_temp_dirs`] of `parent` (half-written tables, sort
/// spills): every ingest into a directory does, for any table's. Best
/// effort; returns what was removed.
pub fn sweep_abandoned(parent: &Path) -> Vec<PathBuf> {
    let mut removed = abandoned_temp_dirs(parent);
    removed.retain(|p| fs::remove_dir_all(p).is_ok());
    removed
}

/// The writer's pid in a name `.{name}.tmp-{pid}-{nanos}{suffix}`.
fn temp_dir_pid(file_name: &str) -> Option<u32> {
    if !file_name.starts_with('.') {
        return None;
    }
    let at = file_name.rfind(".tmp-")?;
    let mut parts = file_name[at + 5..].splitn(3, '-');
    let pid = parts.next()?.parse::<u32>().ok()?;
    let nanos = parts.next()?;
    (!nanos.is_empty() && nanos.bytes().all(|b| b.is_ascii_digit())).then_some(pid)
}

fn check_options(options: &WriteOptions) -> Result<()> {
    if options.block_rows == 0 || options.block_rows > MAX_BLOCK_ROWS {
        return Err(FormatError::InvalidInput(format!(
            "block size {} is outside 1..={MAX_BLOCK_ROWS}",
            options.block_rows
        )));
    }
    Ok(())
}

fn write_file(path: &Path, bytes: &[u8], sync: bool) -> Result<()> {
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| FormatError::io("creating", path, e))?;
    f.write_all(bytes)
        .map_err(|e| FormatError::io("writing", path, e))?;
    if sync {
        f.sync_all()
            .map_err(|e| FormatError::io("syncing", path, e))?;
    }
    Ok(())
}

fn sync_dir(dir: &Path) -> Result<()> {
    fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| FormatError::io("syncing directory", dir, e))
}

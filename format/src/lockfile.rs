//! Lock files the kernel releases when their holder dies: an exclusive
//! `flock` on a file at a fixed path. A process killed at any point, even
//! between creating the file and writing anything to it, leaves at most a
//! file nobody holds, which the next taker takes over.

use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};

/// A held lock file. Dropping it removes the file, then releases the lock.
#[derive(Debug)]
pub struct LockFile {
    path: PathBuf,
    /// Held for its lock; released when dropped.
    _file: Flock<fs::File>,
}

impl LockFile {
    /// Takes the lock at `path` (creating the file), or returns `None` at
    /// once while another process holds it. The file then holds the
    /// taker's pid, for people looking at it.
    pub fn try_take(path: &Path) -> io::Result<Option<LockFile>> {
        loop {
            let file = fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .open(path)?;
            let mut file = match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
                Ok(f) => f,
                Err((_, Errno::EWOULDBLOCK)) => return Ok(None),
                Err((_, errno)) => return Err(errno.into()),
            };
            // The previous holder removes the file as it finishes: a lock
            // on a file no longer at `path` locks nothing, so try again.
            let held = file.metadata()?;
            match fs::metadata(path) {
                Ok(now) if now.dev() == held.dev() && now.ino() == held.ino() => {
                    file.set_len(0)?;
                    write!(file, "{}", std::process::id())?;
                    return Ok(Some(LockFile {
                        path: path.to_path_buf(),
                        _file: file,
                    }));
                }
                _ => continue,
            }
        }
    }

    /// Whether a live process holds the lock at `path` (a missing file or
    /// one left by a dead process is not held).
    pub fn is_held(path: &Path) -> bool {
        let Ok(file) = fs::OpenOptions::new().read(true).open(path) else {
            return false;
        };
        matches!(
            Flock::lock(file, FlockArg::LockSharedNonblock),
            Err((_, Errno::EWOULDBLOCK))
        )
    }
}

impl Drop for LockFile {
    fn drop(&mut self) {
        // Still held: `_file` is dropped (and the lock released) after this.
        let _ = fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_is_exclusive_until_dropped_and_an_abandoned_file_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".lock");
        assert!(!LockFile::is_held(&path));
        let first = LockFile::try_take(&path).unwrap();
        assert!(first.is_some());
        assert!(LockFile::is_held(&path));
        assert!(matches!(LockFile::try_take(&path), Ok(None)));
        drop(first);
        assert!(!path.exists());
        // An empty file nobody holds, as a process killed right after
        // creating it leaves.
        fs::write(&path, "").unwrap();
        assert!(!LockFile::is_held(&path));
        assert!(LockFile::try_take(&path).unwrap().is_some());
    }
}

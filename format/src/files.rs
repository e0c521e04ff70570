//! Opening table files defensively: only regular files are read (a FIFO, a
//! device or a socket put in place of a table file is an error, never a
//! hang or an endless read), and a file's length is checked against what
//! the manifest (or, for the manifest, its own head) says before any of it
//! is read.

use std::fs::{self, File};
use std::io::{self, Read};
use std::os::unix::fs::{FileExt, FileTypeExt, OpenOptionsExt};
use std::path::Path;

use memmap2::Mmap;
use zerocopy::FromBytes;

use crate::error::{FormatError, Result};
use crate::layout::{
    readable_version, BlockEntry, ChunkMeta, ManifestHead, FORMAT_VERSION, MANIFEST_FILE,
    MANIFEST_FOOTER_LEN, MANIFEST_HEADER_LEN, MANIFEST_MAGIC,
};

/// What a file that is not a regular file is, for messages.
fn special_kind(kind: fs::FileType) -> Option<&'static str> {
    if kind.is_file() {
        None
    } else if kind.is_dir() {
        Some("a directory")
    } else if kind.is_fifo() {
        Some("a FIFO")
    } else if kind.is_char_device() {
        Some("a character device")
    } else if kind.is_block_device() {
        Some("a block device")
    } else if kind.is_socket() {
        Some("a socket")
    } else {
        Some("not a regular file")
    }
}

fn not_regular(kind: fs::FileType) -> io::Result<()> {
    match special_kind(kind) {
        None => Ok(()),
        Some(what) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a regular file ({what})"),
        )),
    }
}

/// Opens `path` for reading if it is a regular file (symbolic links are
/// followed) and returns it with its length. Special files are refused
/// before they are opened, and the open itself does not block, should a
/// FIFO be put in place meanwhile (the opened file is checked again).
pub fn open_regular(path: &Path) -> io::Result<(File, u64)> {
    not_regular(fs::metadata(path)?.file_type())?;
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)?;
    let meta = file.metadata()?;
    not_regular(meta.file_type())?;
    Ok((file, meta.len()))
}

/// Maps the block file `path`, which the manifest says is `expected` bytes
/// long: a regular file of exactly that length, or an error.
pub fn map_block_file(path: &Path, expected: u64) -> Result<Mmap> {
    let (file, len) = open_regular(path).map_err(|e| FormatError::io("opening", path, e))?;
    if len != expected {
        return Err(FormatError::corrupt(
            path,
            "file",
            format!("{len} bytes, the manifest says {expected}"),
        ));
    }
    // SAFETY: strata table files are immutable once published (SPEC.md,
    // "Assumptions"): no writer modifies or truncates a block file that a
    // manifest refers to, so the mapped bytes do not change under us.
    unsafe { Mmap::map(&file) }.map_err(|e| FormatError::io("mapping", path, e))
}

/// The bytes of the manifest of the table in `dir`, read only once its
/// length agrees with the one its head describes (so a damaged or replaced
/// manifest is never read past that); [`FormatError::NotATable`] when there
/// is none. [`crate::manifest::Manifest::decode`] validates the rest.
pub fn read_manifest(dir: &Path) -> Result<Vec<u8>> {
    let (mut file, len) = open_manifest(dir)?;
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.read_to_end(&mut bytes)
        .map_err(|e| FormatError::io("reading", dir.join(MANIFEST_FILE), e))?;
    Ok(bytes)
}

/// Checks, without reading its body, that the manifest of the table in
/// `dir` is a regular file of the length its head describes: what
/// [`read_manifest`] checks before reading.
pub fn check_manifest(dir: &Path) -> Result<()> {
    open_manifest(dir).map(|_| ())
}

/// The manifest of the table in `dir`, open, and its length, checked as
/// [`read_manifest`] says.
fn open_manifest(dir: &Path) -> Result<(File, u64)> {
    let path = dir.join(MANIFEST_FILE);
    let (file, len) = open_regular(&path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => {
            FormatError::NotATable(dir.to_path_buf())
        }
        _ => FormatError::io("reading", &path, e),
    })?;
    let head_end = MANIFEST_HEADER_LEN + size_of::<ManifestHead>();
    let bad = |detail: String| FormatError::corrupt(&path, "manifest", detail);
    if len >= (head_end + MANIFEST_FOOTER_LEN) as u64 {
        let mut start = vec![0u8; head_end];
        file.read_exact_at(&mut start, 0)
            .map_err(|e| FormatError::io("reading", &path, e))?;
        if start[..8] != MANIFEST_MAGIC {
            return Err(bad("not a strata manifest (bad magic)".into()));
        }
        let version = u32::from_le_bytes([start[8], start[9], start[10], start[11]]);
        if !readable_version(version) {
            return Err(FormatError::UnsupportedVersion {
                path,
                found: version,
                supported: FORMAT_VERSION,
            });
        }
        let (head, _) = ManifestHead::read_from_prefix(&start[MANIFEST_HEADER_LEN..])
            .map_err(|_| bad("truncated head".into()))?;
        let blocks = u128::from(head.blocks.get());
        let described = (head_end + MANIFEST_FOOTER_LEN) as u128
            + u128::from(head.schema_len.get())
            + blocks * size_of::<BlockEntry>() as u128
            + blocks * u128::from(head.columns.get()) * size_of::<ChunkMeta>() as u128;
        if described != u128::from(len) {
            return Err(bad(format!(
                "{len} bytes, where its head describes {described}"
            )));
        }
    }
    Ok((file, len))
}

/// Bytes of the files below `dir` (not following symbolic links); what
/// cannot be read counts as 0.
pub fn dir_bytes(dir: &Path) -> u64 {
    fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| match e.file_type() {
                    Ok(t) if t.is_dir() => dir_bytes(&e.path()),
                    _ => e.metadata().map_or(0, |m| m.len()),
                })
                .sum()
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_files_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let err = open_regular(&fifo).unwrap_err();
        assert!(err.to_string().contains("FIFO"), "{err}");
        let err = open_regular(Path::new("/dev/zero")).unwrap_err();
        assert!(err.to_string().contains("character device"), "{err}");
        let link = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert!(open_regular(&link).is_err());
        assert!(open_regular(dir.path()).is_err());
        let file = dir.path().join("f");
        fs::write(&file, b"abc").unwrap();
        assert_eq!(open_regular(&file).unwrap().1, 3);
    }
}

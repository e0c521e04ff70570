//! Run files written and read around the page cache.
//!
//! A run is written once and read once, soon after, so caching it only
//! costs: every byte would be copied into the page cache on the way out and
//! out of it on the way back, and the cache's pages taken from memory the
//! rest of the ingest needs. Where the file system allows it, run files are
//! opened with `O_DIRECT` and moved in whole aligned [`SECTOR`]s straight
//! between the device and this module's buffers. Where it does not (tmpfs
//! refuses `O_DIRECT`; some file systems refuse a transfer's alignment),
//! the same calls go through the page cache instead.
//!
//! A run file is its bytes padded with zeros to a whole number of sectors,
//! so that a read of the sectors around any byte range stays in the file.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

use nix::errno::Errno;
use nix::fcntl::{fcntl, FcntlArg, OFlag};
use zerocopy::{FromBytes, FromZeros, Immutable, IntoBytes, KnownLayout};

/// The unit (and alignment) of direct transfers: the largest logical block
/// size of common devices, so one size fits them all.
pub(super) const SECTOR: usize = 4096;

/// Bytes a writer gathers before it writes them out.
const CHUNK: usize = 1 << 20;

/// One aligned sector of bytes.
#[derive(Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C, align(4096))]
struct Sector([u8; SECTOR]);

/// A growable buffer of whole sectors, aligned for direct transfers.
#[derive(Default)]
pub(super) struct SectorBuf {
    sectors: Vec<Sector>,
}

impl SectorBuf {
    /// Resizes to at least `len` bytes (whole sectors), returning them.
    fn bytes_mut(&mut self, len: usize) -> &mut [u8] {
        self.sectors
            .resize(len.div_ceil(SECTOR), Sector::new_zeroed());
        self.sectors.as_mut_bytes()
    }
}

/// Opens `file` for direct transfers where allowed: `true` if it is.
fn open(options: &mut OpenOptions, path: &Path) -> io::Result<(File, bool)> {
    match options
        .clone()
        .custom_flags(OFlag::O_DIRECT.bits())
        .open(path)
    {
        Ok(file) => Ok((file, true)),
        Err(e) if refused(&e) => Ok((options.open(path)?, false)),
        Err(e) => Err(e),
    }
}

/// Turns direct transfers off for `file` after it refused one.
fn buffered(file: &File) -> io::Result<()> {
    let flags = OFlag::from_bits_truncate(fcntl(file, FcntlArg::F_GETFL)?);
    fcntl(file, FcntlArg::F_SETFL(flags - OFlag::O_DIRECT))?;
    Ok(())
}

/// Whether `e` is the file system refusing a direct transfer.
fn refused(e: &io::Error) -> bool {
    e.raw_os_error() == Some(Errno::EINVAL as i32)
}

/// Writes a run file front to back in aligned chunks.
pub(super) struct RunFile {
    file: File,
    direct: bool,
    buf: SectorBuf,
    /// Bytes in `buf` not yet written.
    pending: usize,
    /// Where `buf` goes in the file.
    at: u64,
}

impl RunFile {
    /// Creates (or truncates) the run file at `path`.
    pub(super) fn create(path: &Path) -> io::Result<RunFile> {
        let (file, direct) = open(
            OpenOptions::new().write(true).create(true).truncate(true),
            path,
        )?;
        let mut buf = SectorBuf::default();
        buf.bytes_mut(CHUNK);
        Ok(RunFile {
            file,
            direct,
            buf,
            pending: 0,
            at: 0,
        })
    }

    /// Appends `bytes`.
    pub(super) fn write_all(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        while !bytes.is_empty() {
            let room = CHUNK - self.pending;
            let n = room.min(bytes.len());
            self.buf.bytes_mut(CHUNK)[self.pending..self.pending + n].copy_from_slice(&bytes[..n]);
            self.pending += n;
            bytes = &bytes[n..];
            if self.pending == CHUNK {
                self.flush(CHUNK)?;
            }
        }
        Ok(())
    }

    /// Writes the first `len` bytes of the buffer (a whole number of
    /// sectors) at `at`.
    fn flush(&mut self, len: usize) -> io::Result<()> {
        let bytes = &self.buf.bytes_mut(CHUNK)[..len];
        match self.file.write_all_at(bytes, self.at) {
            Err(e) if self.direct && refused(&e) => {
                buffered(&self.file)?;
                self.direct = false;
                self.file.write_all_at(bytes, self.at)?;
            }
            r => r?,
        }
        self.at += len as u64;
        self.pending = 0;
        Ok(())
    }

    /// Writes what is left, padded with zeros to a whole sector.
    pub(super) fn finish(mut self) -> io::Result<()> {
        if self.pending > 0 {
            let len = self.pending.next_multiple_of(SECTOR);
            self.buf.bytes_mut(CHUNK)[self.pending..len].fill(0);
            self.flush(len)?;
        }
        Ok(())
    }
}

/// Reads byte ranges of a run file [`RunFile`] wrote.
pub(super) struct RunReader {
    file: File,
    direct: bool,
}

impl RunReader {
    /// Opens the run file at `path`.
    pub(super) fn open(path: &Path) -> io::Result<RunReader> {
        let (file, direct) = open(OpenOptions::new().read(true), path)?;
        Ok(RunReader { file, direct })
    }

    /// Reads `len` bytes at `offset` through `buf`, returning them.
    pub(super) fn read<'a>(
        &mut self,
        offset: u64,
        len: usize,
        buf: &'a mut SectorBuf,
    ) -> io::Result<&'a [u8]> {
        let start = offset - offset % SECTOR as u64;
        let skip = (offset - start) as usize;
        let span = (skip + len).next_multiple_of(SECTOR);
        let bytes = buf.bytes_mut(span);
        match self.file.read_exact_at(&mut bytes[..span], start) {
            Err(e) if self.direct && refused(&e) => {
                buffered(&self.file)?;
                self.direct = false;
                self.file.read_exact_at(&mut bytes[..span], start)?;
            }
            r => r?,
        }
        Ok(&bytes[skip..skip + len])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_ranges_read_back_across_chunks_and_sectors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run");
        let data: Vec<u8> = (0..3 * CHUNK + 5000).map(|i| (i * 7 % 251) as u8).collect();
        let mut w = RunFile::create(&path).unwrap();
        // Uneven pieces, so that chunks fill in the middle of a write.
        let mut cuts = vec![0, 1, 4095, 4097, CHUNK - 3, CHUNK + 10, 2 * CHUNK + 1];
        cuts.push(data.len());
        for pair in cuts.windows(2) {
            w.write_all(&data[pair[0]..pair[1]]).unwrap();
        }
        w.finish().unwrap();
        let on_disk = std::fs::metadata(&path).unwrap().len() as usize;
        assert_eq!(on_disk, data.len().next_multiple_of(SECTOR));

        let mut r = RunReader::open(&path).unwrap();
        let mut buf = SectorBuf::default();
        for (offset, len) in [
            (0, 1),
            (1, 4095),
            (4095, 2),
            (CHUNK - 1, 3),
            (17, 2 * CHUNK),
        ] {
            let got = r.read(offset as u64, len, &mut buf).unwrap();
            assert_eq!(got, &data[offset..offset + len], "{offset}+{len}");
        }
        let last = data.len() - 100;
        assert_eq!(r.read(last as u64, 100, &mut buf).unwrap(), &data[last..]);
    }

    #[test]
    fn a_refused_file_falls_back_to_the_page_cache() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run");
        let (file, direct) = open(OpenOptions::new().write(true).create(true), &path).unwrap();
        if direct {
            buffered(&file).unwrap();
        }
        // Unaligned in offset, length and memory: only buffered writes take it.
        file.write_all_at(&[1, 2, 3], 1).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), [0, 1, 2, 3]);
    }

    #[test]
    fn a_read_past_the_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run");
        let mut w = RunFile::create(&path).unwrap();
        w.write_all(&[1; 10]).unwrap();
        w.finish().unwrap();
        let mut r = RunReader::open(&path).unwrap();
        let mut buf = SectorBuf::default();
        assert!(r.read(4090, 10, &mut buf).is_err());
        assert!(r.read(8192, 1, &mut buf).is_err());
    }
}

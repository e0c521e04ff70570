//! Run files written and read around the page cache.
//!
//! A run is written once and read once, soon after, so caching it only
//! costs: every byte would be copied into the page cache on the way out and
//! out of it on the way back, and the cache's pages taken from memory the
//! rest of the ingest needs. Where the file system allows it, run files are
//! opened with `O_DIRECT` and moved in whole aligned [`SECTOR`]s straight
//! between the device and this module's buffers. Where it does not (some
//! file systems refuse `O_DIRECT` when a file is opened, others refuse a
//! transfer's alignment), the same calls go through the page cache instead.
//!
//! A run file is its bytes padded with zeros to a whole number of sectors,
//! so that a read of the sectors around any byte range stays in the file.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;
use std::sync::mpsc::{channel, sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

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
    /// The buffer's bytes.
    fn bytes(&self) -> &[u8] {
        self.sectors.as_bytes()
    }

    /// Resizes to `len` bytes rounded up to whole sectors, returning them.
    fn bytes_mut(&mut self, len: usize) -> &mut [u8] {
        self.sectors
            .resize(len.div_ceil(SECTOR), Sector::new_zeroed());
        self.sectors.as_mut_bytes()
    }
}

/// Opens `path` with `options`, for direct transfers where allowed: `true`
/// if they are.
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

/// Chunks a run file may have queued for its writer thread besides the one
/// being filled.
const QUEUED: usize = 2;

/// Writes a run file front to back in aligned chunks.
///
/// A direct write blocks until the device has the bytes (where a buffered
/// one returns once they are copied), which left the sorting threads idle
/// about 7% of the time. So a thread per run file does the writing while
/// the sorting thread fills the next chunk; at most [`QUEUED`] chunks wait.
pub(super) struct RunFile {
    buf: SectorBuf,
    /// Bytes in `buf` not yet written.
    pending: usize,
    /// Chunk buffers allocated so far.
    buffers: usize,
    /// Full chunks (and their lengths) to the writer thread.
    chunks: Option<SyncSender<(SectorBuf, usize)>>,
    /// Buffers the writer thread is done with.
    returned: Receiver<SectorBuf>,
    writer: Option<JoinHandle<io::Result<()>>>,
    /// How long writes waited for the device since [`RunFile::waited`]
    /// was last asked.
    waited: Duration,
}

impl RunFile {
    /// Creates (or truncates) the run file at `path`.
    pub(super) fn create(path: &Path) -> io::Result<RunFile> {
        let (file, mut direct) = open(
            OpenOptions::new().write(true).create(true).truncate(true),
            path,
        )?;
        let (chunks, queue) = sync_channel::<(SectorBuf, usize)>(QUEUED);
        let (give_back, returned) = channel();
        let writer = std::thread::Builder::new()
            .name("strata-spill".into())
            .spawn(move || {
                let mut at = 0u64;
                for (buf, len) in queue {
                    write_at(&file, &mut direct, &buf.bytes()[..len], at)?;
                    at += len as u64;
                    // The run file may be gone (a failed ingest); then the
                    // buffer is just freed.
                    let _ = give_back.send(buf);
                }
                Ok(())
            })?;
        let mut buf = SectorBuf::default();
        buf.bytes_mut(CHUNK);
        Ok(RunFile {
            buf,
            pending: 0,
            buffers: 1,
            chunks: Some(chunks),
            returned,
            writer: Some(writer),
            waited: Duration::ZERO,
        })
    }

    /// How long writes waited for the device (every buffer was queued or
    /// being written) since the last call: a while if the device is slower
    /// than the bytes come.
    pub(super) fn waited(&mut self) -> Duration {
        std::mem::take(&mut self.waited)
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

    /// Queues the first `len` bytes of the buffer (a whole number of
    /// sectors) and carries on in another buffer.
    fn flush(&mut self, len: usize) -> io::Result<()> {
        let next = match self.returned.try_recv() {
            Ok(buf) => buf,
            Err(_) if self.buffers <= QUEUED => {
                self.buffers += 1;
                let mut buf = SectorBuf::default();
                buf.bytes_mut(CHUNK);
                buf
            }
            Err(_) => {
                let since = Instant::now();
                let buf = self.returned.recv();
                self.waited += since.elapsed();
                match buf {
                    Ok(buf) => buf,
                    Err(_) => return Err(self.stop()),
                }
            }
        };
        let full = std::mem::replace(&mut self.buf, next);
        self.pending = 0;
        let sent = self.chunks.as_ref().map(|c| c.send((full, len)));
        match sent {
            Some(Ok(())) => Ok(()),
            _ => Err(self.stop()),
        }
    }

    /// Stops the writer thread after it failed, returning its error.
    fn stop(&mut self) -> io::Error {
        match self.finish_writes() {
            Err(e) => e,
            Ok(()) => io::Error::other("the run file's writer stopped"),
        }
    }

    /// Lets the writer thread write what is queued and end.
    fn finish_writes(&mut self) -> io::Result<()> {
        self.chunks = None;
        match self.writer.take().map(JoinHandle::join) {
            None => Ok(()),
            Some(Ok(r)) => r,
            Some(Err(_)) => Err(io::Error::other("the run file's writer panicked")),
        }
    }

    /// Writes what is left, padded with zeros to a whole sector.
    pub(super) fn finish(mut self) -> io::Result<()> {
        if self.pending > 0 {
            let len = self.pending.next_multiple_of(SECTOR);
            self.buf.bytes_mut(CHUNK)[self.pending..len].fill(0);
            self.flush(len)?;
        }
        self.finish_writes()
    }
}

/// Writes `bytes` at `at`, turning direct transfers off if `file` refuses one.
fn write_at(file: &File, direct: &mut bool, bytes: &[u8], at: u64) -> io::Result<()> {
    match file.write_all_at(bytes, at) {
        Err(e) if *direct && refused(&e) => {
            buffered(file)?;
            *direct = false;
            file.write_all_at(bytes, at)
        }
        r => r,
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
        match self.file.read_exact_at(bytes, start) {
            Err(e) if self.direct && refused(&e) => {
                buffered(&self.file)?;
                self.direct = false;
                self.file.read_exact_at(bytes, start)?;
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
    fn a_failed_write_is_an_error_of_the_writer_or_of_finish() {
        // /dev/full fails every write with ENOSPC, as a full disk would.
        let full = Path::new("/dev/full");
        if !full.exists() {
            return;
        }
        let mut w = RunFile::create(full).unwrap();
        let chunk = vec![7u8; CHUNK];
        let mut failed = None;
        for _ in 0..2 * QUEUED + 2 {
            if let Err(e) = w.write_all(&chunk) {
                failed = Some(e);
                break;
            }
        }
        let e = match failed {
            Some(e) => e,
            None => w.finish().unwrap_err(),
        };
        assert_eq!(e.raw_os_error(), Some(Errno::ENOSPC as i32), "{e}");
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

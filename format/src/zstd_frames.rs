//! zstd frames, as string blocks and sections use them (format version 2 on):
//! the level the writer compresses at, and one decompression context per
//! thread, reused for every frame.

use std::cell::RefCell;

use zstd::zstd_safe::{self, CCtx, DCtx};

/// The zstd level the writer compresses string blocks and sections at.
pub(crate) const LEVEL: i32 = 3;

thread_local! {
    static DCTX: RefCell<DCtx<'static>> = RefCell::new(DCtx::create());
    /// Each thread's buffer for [`with_decompressed`], reused so that
    /// decoding neither zeroes nor returns large allocations.
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The zstd level for byte planes (values' differences, row codes):
/// measured on ClickBench's columns, level 1 compresses them as well as
/// level 3 (or 9 for values), and faster.
pub(crate) const PLANES_LEVEL: i32 = 1;

/// `raw` as one zstd frame at [`LEVEL`]; `None` if zstd fails.
pub(crate) fn compress(cctx: &mut CCtx<'static>, raw: &[u8]) -> Option<Vec<u8>> {
    compress_at(cctx, raw, LEVEL)
}

/// `raw` as one zstd frame at `level`; `None` if zstd fails.
pub(crate) fn compress_at(cctx: &mut CCtx<'static>, raw: &[u8], level: i32) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(zstd_safe::compress_bound(raw.len()));
    cctx.compress(&mut out, raw, level).ok()?;
    Some(out)
}

/// Decompresses the frame `src` into `out`, returning the bytes written (an
/// error if they do not fit).
pub(crate) fn decompress_into(src: &[u8], out: &mut [u8]) -> Result<usize, String> {
    DCTX.with(|d| d.borrow_mut().decompress(out, src))
        .map_err(error_name)
}

/// Decompresses the frame `src`, made with the raw-content dictionary `dict`
/// (empty for none), into the spare capacity of `out`, returning the bytes
/// written (an error if they do not fit).
pub(crate) fn decompress_with_dict(
    src: &[u8],
    dict: &[u8],
    out: &mut Vec<u8>,
) -> Result<usize, String> {
    DCTX.with(|d| d.borrow_mut().decompress_using_dict(out, src, dict))
        .map_err(error_name)
}

/// Decompresses the frame `src` with the raw-content dictionary `dict` into
/// `out`, returning the bytes written; a frame larger than `out` is an
/// error.
pub(crate) fn decompress_with_dict_into(
    src: &[u8],
    dict: &[u8],
    out: &mut [u8],
) -> Result<usize, String> {
    DCTX.with(|d| d.borrow_mut().decompress_using_dict(out, src, dict))
        .map_err(error_name)
}

/// Decompresses the frame `src`, which must give exactly `len` bytes, into a
/// per-thread buffer and returns `f` of them.
pub(crate) fn with_decompressed<R>(
    src: &[u8],
    len: usize,
    f: impl FnOnce(&[u8]) -> R,
) -> Result<R, String> {
    SCRATCH.with(|buf| {
        let mut buf = buf.borrow_mut();
        buf.clear();
        buf.reserve(len);
        let got = decompress_with_dict(src, &[], &mut buf).map_err(|e| format!("zstd: {e}"))?;
        if got != len || buf.len() != len {
            return Err(format!("decompressed to {got} bytes, expected {len}"));
        }
        Ok(f(&buf))
    })
}

fn error_name(code: zstd_safe::ErrorCode) -> String {
    zstd_safe::get_error_name(code).to_string()
}

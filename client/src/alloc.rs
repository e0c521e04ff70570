//! The CLI's allocator: jemalloc, with the options queries run best under.

use std::ffi::{c_char, c_void, CStr};

#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's options, read at its start-up. Queries allocate and free
/// block-sized vectors over and over, and returning freed pages to the kernel
/// inline (jemalloc's default) made a fifth of a query run's time page
/// faults and purging. A background thread purges instead: 7 ClickBench
/// queries at 10M rows took 1.3-1.4 s of system time instead of 1.8-2.0 s.
/// Its extents are backed by transparent huge pages where the kernel allows
/// (`thp:always`): a fresh process touches each page of its working set once,
/// and TPC-H Q1 at SF1 took 77,000 page faults with 4 KiB pages and 4,000
/// with huge pages (0.16 s of system time -> 0.09 s, 0.46 s -> 0.37 s wall).
// SAFETY: jemalloc reads this symbol as a NUL-terminated C string; the bytes
// are static, end in NUL and are never written.
#[used]
#[export_name = "_rjem_malloc_conf"]
pub static MALLOC_CONF: &[u8; 34] = b"background_thread:true,thp:always\0";

/// Allocations from this size on come from jemalloc's arena for large
/// allocations (its `oversize_threshold`, 8 MiB by default).
const OVERSIZE: usize = 8 << 20;

/// Applies what [`MALLOC_CONF`] cannot say: jemalloc's arena for large
/// allocations returns their pages as soon as they are freed.
///
/// Without background threads jemalloc purges that arena eagerly; with them
/// it keeps the 10 s decay of the other arenas. A query that grows a large
/// column (a string column grown by doubling leaves each outgrown buffer
/// behind) then held every freed buffer as resident memory: a running
/// string_agg making 200 MB of strings under a 300 MB memory limit peaked at
/// 511 MB instead of 311 MB. Large buffers are few, and seldom reused before
/// they would be purged anyway.
pub fn configure() {
    // Keeps the options symbol in the link (thin LTO may drop it otherwise).
    std::hint::black_box(&MALLOC_CONF);
    // The arena is made on the first large allocation.
    drop(std::hint::black_box(Vec::<u8>::with_capacity(OVERSIZE)));
    let Some(arenas) = read_u32(c"opt.narenas") else {
        return;
    };
    // jemalloc numbers the large-allocation arena after the automatic ones;
    // its name says whether that is so in this build.
    let Ok(name) = std::ffi::CString::new(format!("arena.{arenas}.name")) else {
        return;
    };
    if read_str(&name).as_deref() != Some("auto_oversize") {
        return;
    }
    for state in ["dirty", "muzzy"] {
        if let Ok(key) = std::ffi::CString::new(format!("arena.{arenas}.{state}_decay_ms")) {
            write_isize(&key, 0);
        }
    }
}

/// Reads the mallctl value `key` into `v`; whether jemalloc answered with a
/// value of `v`'s size.
///
/// # Safety
/// `T` must be the C type jemalloc documents for `key`.
unsafe fn read_into<T>(key: &CStr, v: &mut T) -> bool {
    let mut len = std::mem::size_of::<T>();
    // SAFETY: `key` is NUL-terminated; `v` is a writable `T` of `len` bytes,
    // the type the caller vouches `key` has; no new value is written.
    let rc = unsafe {
        tikv_jemalloc_sys::mallctl(
            key.as_ptr(),
            std::ptr::from_mut(v).cast::<c_void>(),
            &raw mut len,
            std::ptr::null_mut(),
            0,
        )
    };
    rc == 0 && len == std::mem::size_of::<T>()
}

fn read_u32(key: &CStr) -> Option<u32> {
    let mut v: u32 = 0;
    // SAFETY: the keys read here (`opt.narenas`) are `unsigned`.
    unsafe { read_into(key, &mut v) }.then_some(v)
}

fn read_str(key: &CStr) -> Option<String> {
    // jemalloc copies the name into the buffer `p` points at (names are
    // shorter than 32 bytes, NUL included).
    let mut buf = [0 as c_char; 64];
    let mut p: *mut c_char = buf.as_mut_ptr();
    // SAFETY: reading `arena.<i>.name` takes a `char *` to a buffer of at
    // least 32 bytes, which `p` is.
    if !unsafe { read_into(key, &mut p) } || !buf.contains(&0) {
        return None;
    }
    // SAFETY: `buf` holds a NUL (checked above), so the name ends inside it.
    Some(
        unsafe { CStr::from_ptr(buf.as_ptr()) }
            .to_string_lossy()
            .into_owned(),
    )
}

fn write_isize(key: &CStr, mut v: isize) {
    // SAFETY: `key` is NUL-terminated; the decay times are `ssize_t`, and
    // `v` is one, passed with its size; nothing is read back.
    let _ = unsafe {
        tikv_jemalloc_sys::mallctl(
            key.as_ptr(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            (&raw mut v).cast::<c_void>(),
            std::mem::size_of::<isize>(),
        )
    };
}

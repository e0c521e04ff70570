//! Sorting the ingested rows by a key: an external merge sort.
//!
//! **Runs.** Each block of input rows, once parsed, is sorted by the key
//! (stably: equal keys keep their input order) and spilled to a run file as
//! pages of [`PAGE_ROWS`] rows. A page stores each column on its own:
//! fixed-width keys as differences from the page's smallest key in as few
//! bytes as the largest difference needs, strings as their lengths and bytes
//! under LZ4, NULLs as a bitmap.
//!
//! **Merge.** Once the input ends, the runs are merged in input order (a tie
//! goes to the earlier run, so the whole sort is stable) into blocks of the
//! table's size, which are encoded as unsorted input would be. More than
//! [`FAN_IN`] runs are first merged in groups of consecutive runs into longer
//! runs, so that one merge never holds more than [`FAN_IN`] pages.
//!
//! **Memory.** Besides the pipeline's blocks in flight: one page per run
//! being merged, and the pages an output block takes its rows from until it
//! is gathered (at most its rows / [`PAGE_ROWS`] + [`FAN_IN`] pages). With
//! ClickBench `hits` rows, a page is about 2 MiB, so the merge adds about
//! 0.5 GiB whatever the input size.
//!
//! **Disk.** The runs take about the rows' size under this light packing
//! (2.6 GiB for 10M ClickBench rows, whose Parquet file is 1.6 GiB and
//! whose table is 1.0 GiB); more than [`FAN_IN`] runs need that again while
//! a merge pass rewrites them. They live in a temporary directory beside
//! the table, removed when its [`SpillDir`] guard is dropped (and, after a
//! crash, by the next writer of the table: see
//! [`strata_format::TableWriter`]).
//!
//! NULLs sort after every value. Fixed-width values sort by their
//! order-preserving keys, strings by their bytes.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;
use strata_format::{ColumnData, Schema};

use crate::error::{IngestError, Result};

/// Rows per spilled page.
pub const PAGE_ROWS: usize = 4096;

/// Runs merged at once.
pub const FAN_IN: usize = 64;

/// The columns rows are sorted by, as indexes into the table schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortKey {
    columns: Vec<usize>,
}

impl SortKey {
    /// The key naming `names` (case-insensitively) in `schema`; an error
    /// names an unknown or repeated column.
    pub fn resolve(schema: &Schema, names: &[String]) -> Result<SortKey> {
        let mut columns = Vec::with_capacity(names.len());
        for name in names {
            let i = schema
                .fields
                .iter()
                .position(|f| f.name.eq_ignore_ascii_case(name))
                .ok_or_else(|| {
                    IngestError::Usage(format!(
                        "cannot sort by {name}: the table has no such column (it has {})",
                        schema
                            .fields
                            .iter()
                            .map(|f| f.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                })?;
            if columns.contains(&i) {
                return Err(IngestError::Usage(format!(
                    "the sort key names {name} twice"
                )));
            }
            columns.push(i);
        }
        Ok(SortKey { columns })
    }

    /// The key's columns, most significant first.
    pub fn columns(&self) -> &[usize] {
        &self.columns
    }

    /// Compares row `a` of `x` with row `b` of `y` (columns of the same schema).
    fn compare(&self, x: &[ColumnData], a: usize, y: &[ColumnData], b: usize) -> Ordering {
        for &c in &self.columns {
            let o = compare_cells(&x[c], a, &y[c], b);
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }
}

/// Compares two values of one column; NULL sorts last.
fn compare_cells(x: &ColumnData, a: usize, y: &ColumnData, b: usize) -> Ordering {
    match (x.is_null(a), y.is_null(b)) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Greater,
        (false, true) => return Ordering::Less,
        (false, false) => {}
    }
    match (x.key_at(a), y.key_at(b)) {
        (Some(p), Some(q)) => p.cmp(&q),
        _ => x.str_at(a).cmp(&y.str_at(b)),
    }
}

/// Where one spilled page is.
#[derive(Debug, Clone, Copy)]
struct PageRef {
    offset: u64,
    len: usize,
}

/// A spilled run: its file and pages, in order.
#[derive(Debug)]
struct Run {
    path: PathBuf,
    pages: Vec<PageRef>,
}

/// Writes one run file page by page.
struct RunWriter {
    path: PathBuf,
    out: BufWriter<File>,
    pages: Vec<PageRef>,
    offset: u64,
    buf: Vec<u8>,
}

impl RunWriter {
    fn create(path: PathBuf) -> Result<RunWriter> {
        let file = File::create(&path).map_err(|e| spill_error("creating", &path, e))?;
        Ok(RunWriter {
            path,
            out: BufWriter::with_capacity(1 << 20, file),
            pages: Vec::new(),
            offset: 0,
            buf: Vec::new(),
        })
    }

    /// Appends a page holding `rows` of `columns`.
    fn page(&mut self, columns: &[ColumnData], rows: Range<usize>) -> Result<()> {
        self.buf.clear();
        encode_page(columns, rows, &mut self.buf)?;
        self.out
            .write_all(&self.buf)
            .map_err(|e| spill_error("writing", &self.path, e))?;
        self.pages.push(PageRef {
            offset: self.offset,
            len: self.buf.len(),
        });
        self.offset += self.buf.len() as u64;
        Ok(())
    }

    fn finish(self) -> Result<Run> {
        self.out
            .into_inner()
            .map_err(|e| spill_error("writing", &self.path, e.into_error()))?;
        Ok(Run {
            path: self.path,
            pages: self.pages,
        })
    }
}

/// Sorts ingested rows: spills sorted runs as blocks arrive, then merges them.
#[derive(Debug)]
pub struct Sorter {
    key: SortKey,
    string_columns: Vec<bool>,
    dir: PathBuf,
    runs: Mutex<Vec<(u64, Run)>>,
    next_file: AtomicU64,
    rows: AtomicU64,
}

impl Sorter {
    /// A sorter for rows of `schema` by `key`, spilling into a new
    /// temporary directory named after `table` beside it, and the guard that
    /// removes that directory.
    pub fn new(schema: &Schema, key: SortKey, table: &Path) -> Result<(Sorter, SpillDir)> {
        // The table writer's temporary name, so that a crashed ingest's
        // runs are removed like its half-written blocks.
        let dir = strata_format::writer::temp_path(table, "-sort")?;
        std::fs::create_dir_all(&dir).map_err(|e| spill_error("creating", &dir, e))?;
        let guard = SpillDir(dir.clone());
        let sorter = Sorter {
            key,
            string_columns: schema
                .fields
                .iter()
                .map(|f| f.data_type.is_string())
                .collect(),
            dir,
            runs: Mutex::new(Vec::new()),
            next_file: AtomicU64::new(0),
            rows: AtomicU64::new(0),
        };
        Ok((sorter, guard))
    }

    /// Rows spilled so far.
    pub fn rows(&self) -> u64 {
        self.rows.load(AtomicOrdering::Relaxed)
    }

    fn new_run_file(&self) -> Result<RunWriter> {
        let n = self.next_file.fetch_add(1, AtomicOrdering::Relaxed);
        RunWriter::create(self.dir.join(format!("run-{n}")))
    }

    /// Sorts a block's `rows` rows (the `seq`-th block of the input) and
    /// spills them as a run.
    pub fn spill(&self, seq: u64, rows: usize, columns: Vec<ColumnData>) -> Result<()> {
        if rows == 0 {
            return Ok(());
        }
        if columns.len() != self.string_columns.len() || columns.iter().any(|c| c.len() < rows) {
            return Err(IngestError::Internal(
                "a block to sort does not match the schema".into(),
            ));
        }
        let rows32 = u32::try_from(rows)
            .map_err(|_| IngestError::Internal("too many rows in one block".into()))?;
        let mut order: Vec<u32> = (0..rows32).collect();
        order.sort_by(|&a, &b| self.key.compare(&columns, a as usize, &columns, b as usize));
        // Whole columns in sorted order, one after the other: each reorder
        // then reads one column at random instead of every column at once.
        let sorted: Vec<ColumnData> = columns
            .into_iter()
            .map(|c| reorder(c, &order))
            .collect::<Result<_>>()?;
        let mut w = self.new_run_file()?;
        for start in (0..rows).step_by(PAGE_ROWS) {
            w.page(&sorted, start..rows.min(start + PAGE_ROWS))?;
        }
        let run = w.finish()?;
        self.runs
            .lock()
            .map_err(|_| IngestError::Internal("sort state poisoned".into()))?
            .push((seq, run));
        self.rows.fetch_add(rows as u64, AtomicOrdering::Relaxed);
        Ok(())
    }

    /// Merges every spilled run, calling `emit` with the sorted rows in
    /// blocks of `block_rows` (the last may be shorter), gathered on `pool`.
    pub fn merge(
        &self,
        block_rows: usize,
        pool: &rayon::ThreadPool,
        emit: &mut dyn FnMut(usize, Vec<ColumnData>) -> Result<()>,
    ) -> Result<()> {
        let mut runs = {
            let mut guard = self
                .runs
                .lock()
                .map_err(|_| IngestError::Internal("sort state poisoned".into()))?;
            std::mem::take(&mut *guard)
        };
        runs.sort_by_key(|(seq, _)| *seq);
        let mut runs: Vec<Run> = runs.into_iter().map(|(_, r)| r).collect();
        while runs.len() > FAN_IN {
            let mut longer = Vec::with_capacity(runs.len().div_ceil(FAN_IN));
            let mut rest = runs.into_iter().peekable();
            while rest.peek().is_some() {
                let group: Vec<Run> = rest.by_ref().take(FAN_IN).collect();
                let mut w = self.new_run_file()?;
                self.merge_group(&group, PAGE_ROWS, pool, &mut |rows, columns| {
                    w.page(&columns, 0..rows)
                })?;
                remove_runs(group);
                longer.push(w.finish()?);
            }
            runs = longer;
        }
        self.merge_group(&runs, block_rows, pool, emit)?;
        remove_runs(runs);
        Ok(())
    }

    /// Merges `runs` (in input order) into chunks of `chunk_rows` for `emit`.
    fn merge_group(
        &self,
        runs: &[Run],
        chunk_rows: usize,
        pool: &rayon::ThreadPool,
        emit: &mut dyn FnMut(usize, Vec<ColumnData>) -> Result<()>,
    ) -> Result<()> {
        let mut files = Vec::with_capacity(runs.len());
        for run in runs {
            files.push(File::open(&run.path).map_err(|e| spill_error("reading", &run.path, e))?);
        }
        let mut buf = Vec::new();
        let mut slots: Vec<Arc<Page>> = Vec::new();
        let mut cursors: Vec<Cursor> = Vec::with_capacity(runs.len());
        for (i, run) in runs.iter().enumerate() {
            if let Some(page) = self.read_page(&files[i], run, 0, &mut buf)? {
                cursors.push(Cursor {
                    run: i,
                    next_page: 1,
                    row: 0,
                    slot: slots.len(),
                    page: page.clone(),
                });
                slots.push(page);
            }
        }
        let key = &self.key;
        // Whether row `row` of cursor `a`'s page comes before cursor `b`'s current row.
        let before = |cursors: &[Cursor], a: usize, row: usize, b: usize| {
            let (x, y) = (&cursors[a], &cursors[b]);
            match key.compare(&x.page.columns, row, &y.page.columns, y.row) {
                Ordering::Less => true,
                Ordering::Greater => false,
                Ordering::Equal => x.run < y.run,
            }
        };
        let less = |cursors: &[Cursor], a: usize, b: usize| before(cursors, a, cursors[a].row, b);
        let mut heap: Vec<usize> = (0..cursors.len()).collect();
        for i in (0..heap.len() / 2).rev() {
            sift_down(&mut heap, i, |a, b| less(&cursors, a, b));
        }
        let mut order: Vec<Segment> = Vec::new();
        let mut rows_in_chunk = 0;
        while let Some(&top) = heap.first() {
            // The top run's rows go out while they come before the next run's.
            let next = match (heap.get(1), heap.get(2)) {
                (Some(&l), Some(&r)) => Some(if less(&cursors, r, l) { r } else { l }),
                (Some(&l), None) => Some(l),
                _ => None,
            };
            let c = &cursors[top];
            let limit = c.page.rows.min(c.row + (chunk_rows - rows_in_chunk));
            let mut end = c.row + 1;
            if let Some(next) = next {
                while end < limit && before(&cursors, top, end, next) {
                    end += 1;
                }
            } else {
                end = limit;
            }
            let c = &mut cursors[top];
            order.push(Segment {
                slot: c.slot,
                start: c.row,
                end,
            });
            rows_in_chunk += end - c.row;
            c.row = end;
            if c.row == c.page.rows {
                match self.read_page(&files[c.run], &runs[c.run], c.next_page, &mut buf)? {
                    Some(page) => {
                        c.next_page += 1;
                        c.row = 0;
                        c.slot = slots.len();
                        c.page = page.clone();
                        slots.push(page);
                    }
                    None => {
                        let last = heap.len() - 1;
                        heap.swap(0, last);
                        heap.pop();
                    }
                }
            }
            sift_down(&mut heap, 0, |a, b| less(&cursors, a, b));
            if rows_in_chunk == chunk_rows || heap.is_empty() {
                let columns = gather(&slots, &order, rows_in_chunk, &self.string_columns, pool);
                emit(rows_in_chunk, columns)?;
                order.clear();
                rows_in_chunk = 0;
                slots.clear();
                for &i in &heap {
                    let c = &mut cursors[i];
                    c.slot = slots.len();
                    slots.push(c.page.clone());
                }
            }
        }
        Ok(())
    }

    /// Reads page `index` of `run`, or `None` past its last page.
    fn read_page(
        &self,
        file: &File,
        run: &Run,
        index: usize,
        buf: &mut Vec<u8>,
    ) -> Result<Option<Arc<Page>>> {
        let Some(r) = run.pages.get(index) else {
            return Ok(None);
        };
        buf.resize(r.len, 0);
        file.read_exact_at(buf, r.offset)
            .map_err(|e| spill_error("reading", &run.path, e))?;
        let page = decode_page(buf, &self.string_columns).ok_or_else(|| {
            IngestError::Internal(format!(
                "sort run {} does not read back as written",
                run.path.display()
            ))
        })?;
        Ok(Some(Arc::new(page)))
    }
}

/// Removes a sorter's temporary directory when dropped. It is apart from
/// the [`Sorter`], which worker threads share: after a failure they may
/// still hold it when the process exits, while the ingest's caller drops
/// this guard when the ingest returns.
#[derive(Debug)]
pub struct SpillDir(PathBuf);

impl Drop for SpillDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn spill_error(action: &'static str, path: &Path, error: std::io::Error) -> IngestError {
    IngestError::Spill {
        action,
        path: path.to_path_buf(),
        error,
    }
}

fn remove_runs(runs: Vec<Run>) {
    for r in runs {
        let _ = std::fs::remove_file(&r.path);
    }
}

/// A run's position in a merge.
struct Cursor {
    run: usize,
    next_page: usize,
    row: usize,
    /// The current page's index in the chunk's page list.
    slot: usize,
    page: Arc<Page>,
}

/// Restores the heap property below `i`, `less` ordering the elements.
fn sift_down(heap: &mut [usize], mut i: usize, less: impl Fn(usize, usize) -> bool) {
    loop {
        let l = 2 * i + 1;
        if l >= heap.len() {
            return;
        }
        let r = l + 1;
        let child = if r < heap.len() && less(heap[r], heap[l]) {
            r
        } else {
            l
        };
        if !less(heap[child], heap[i]) {
            return;
        }
        heap.swap(i, child);
        i = child;
    }
}

/// A page read back: its rows of every column, as plain keys or strings.
#[derive(Debug)]
struct Page {
    rows: usize,
    columns: Vec<ColumnData>,
}

/// Consecutive rows `start..end` of one page (by its slot in the chunk's
/// page list) in the merged order.
#[derive(Debug, Clone, Copy)]
struct Segment {
    slot: usize,
    start: usize,
    end: usize,
}

/// Builds the columns of the `rows` rows `order` picks.
fn gather(
    slots: &[Arc<Page>],
    order: &[Segment],
    rows: usize,
    string_columns: &[bool],
    pool: &rayon::ThreadPool,
) -> Vec<ColumnData> {
    pool.install(|| {
        (0..string_columns.len())
            .into_par_iter()
            .map(|c| {
                let column = |slot: usize| slots.get(slot).and_then(|p| p.columns.get(c));
                let any_nulls = slots
                    .iter()
                    .any(|p| p.columns.get(c).is_some_and(|c| c.null_flags().is_some()));
                let nulls = any_nulls.then(|| {
                    let mut nulls = Vec::with_capacity(rows);
                    for seg in order {
                        match column(seg.slot) {
                            Some(
                                ColumnData::Fixed { nulls: Some(n), .. }
                                | ColumnData::Strings { nulls: Some(n), .. },
                            ) => nulls
                                .extend_from_slice(n.get(seg.start..seg.end).unwrap_or_default()),
                            _ => nulls.resize(nulls.len() + (seg.end - seg.start), false),
                        }
                    }
                    nulls
                });
                if string_columns[c] {
                    let mut bytes = Vec::new();
                    let mut offsets = Vec::with_capacity(rows + 1);
                    offsets.push(0);
                    for seg in order {
                        if let Some(ColumnData::Strings {
                            bytes: b,
                            offsets: o,
                            ..
                        }) = column(seg.slot)
                        {
                            let (Some(o), Some(&first)) =
                                (o.get(seg.start..=seg.end), o.get(seg.start))
                            else {
                                continue;
                            };
                            let base = bytes.len() as u64;
                            let last = o.last().copied().unwrap_or(first);
                            bytes.extend_from_slice(
                                b.get(first as usize..last as usize).unwrap_or_default(),
                            );
                            offsets.extend(o[1..].iter().map(|&x| x - first + base));
                        }
                    }
                    ColumnData::Strings {
                        bytes,
                        offsets,
                        nulls,
                    }
                } else {
                    let mut keys = Vec::with_capacity(rows);
                    for seg in order {
                        if let Some(ColumnData::Fixed { keys: k, .. }) = column(seg.slot) {
                            keys.extend_from_slice(k.get(seg.start..seg.end).unwrap_or_default());
                        }
                    }
                    ColumnData::Fixed { keys, nulls }
                }
            })
            .collect()
    })
}

const KIND_FIXED: u8 = 0;
const KIND_STRINGS: u8 = 1;

/// `column`'s rows in `order`, as plain keys or strings. Every row index
/// must be below the column's length. A NULL row's dictionary index may be
/// anything (its key becomes 0, its string empty).
fn reorder(column: ColumnData, order: &[u32]) -> Result<ColumnData> {
    let out_of_range = || IngestError::Internal("a sort order outside its block".into());
    let null_at = |r: usize| column.is_null(r);
    let nulls = column.null_flags().map(|n| {
        order
            .iter()
            .map(|&r| n.get(r as usize).copied().unwrap_or(false))
            .collect()
    });
    Ok(match &column {
        ColumnData::Fixed { keys, .. } => ColumnData::Fixed {
            keys: order
                .iter()
                .map(|&r| keys.get(r as usize).copied())
                .collect::<Option<_>>()
                .ok_or_else(out_of_range)?,
            nulls,
        },
        ColumnData::FixedDict { .. } => ColumnData::Fixed {
            keys: order
                .iter()
                .map(|&r| match column.key_at(r as usize) {
                    None if null_at(r as usize) => Some(0),
                    key => key,
                })
                .collect::<Option<_>>()
                .ok_or_else(out_of_range)?,
            nulls,
        },
        ColumnData::Strings { .. } | ColumnData::StringDict { .. } => {
            let mut offsets = Vec::with_capacity(order.len() + 1);
            offsets.push(0u64);
            let mut bytes = Vec::new();
            for &r in order {
                match column.str_at(r as usize) {
                    Some(v) => bytes.extend_from_slice(v),
                    None if null_at(r as usize) => {}
                    None => return Err(out_of_range()),
                }
                offsets.push(bytes.len() as u64);
            }
            ColumnData::Strings {
                bytes,
                offsets,
                nulls,
            }
        }
    })
}

/// Appends the page of `columns`' rows `rows` to `out`: plain keys and
/// strings ([`reorder`]'s or [`gather`]'s), each with at least `rows.end` rows.
fn encode_page(columns: &[ColumnData], rows: Range<usize>, out: &mut Vec<u8>) -> Result<()> {
    let short = || IngestError::Internal("a sorted page past its columns' rows".into());
    out.extend_from_slice(&(rows.len() as u32).to_le_bytes());
    for col in columns {
        let nulls = col
            .null_flags()
            .map(|n| n.get(rows.clone()))
            .map(|n| n.ok_or_else(short))
            .transpose()?;
        let (keys, bytes): (Cow<'_, [u64]>, Option<&[u8]>) = match col {
            ColumnData::Fixed { keys, .. } => (
                Cow::Borrowed(keys.get(rows.clone()).ok_or_else(short)?),
                None,
            ),
            ColumnData::Strings { bytes, offsets, .. } => {
                let o = offsets.get(rows.start..=rows.end).ok_or_else(short)?;
                let (first, last) = (o[0] as usize, o[o.len() - 1] as usize);
                let lens = o.windows(2).map(|w| w[1] - w[0]).collect();
                (
                    Cow::Owned(lens),
                    Some(bytes.get(first..last).ok_or_else(short)?),
                )
            }
            ColumnData::FixedDict { .. } | ColumnData::StringDict { .. } => {
                return Err(IngestError::Internal(
                    "a dictionary-coded column in a sorted page".into(),
                ))
            }
        };
        out.push(if bytes.is_some() {
            KIND_STRINGS
        } else {
            KIND_FIXED
        });
        out.push(nulls.is_some() as u8);
        if let Some(nulls) = nulls {
            let mut bits = vec![0u8; nulls.len().div_ceil(8)];
            for (i, _) in nulls.iter().enumerate().filter(|(_, &null)| null) {
                bits[i / 8] |= 1 << (i % 8);
            }
            out.extend_from_slice(&bits);
        }
        pack(&keys, out);
        if let Some(bytes) = bytes {
            let packed = lz4_flex::block::compress(bytes);
            out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
            out.extend_from_slice(&(packed.len() as u64).to_le_bytes());
            out.extend_from_slice(&packed);
        }
    }
    Ok(())
}

/// Appends `keys` as their smallest value and each one's difference from it
/// in 0, 1, 2, 4 or 8 bytes (whichever the largest difference needs).
fn pack(keys: &[u64], out: &mut Vec<u8>) {
    let min = keys.iter().copied().min().unwrap_or(0);
    let max = keys.iter().copied().max().unwrap_or(0);
    let width = match max - min {
        0 => 0,
        1..=0xff => 1,
        0x100..=0xffff => 2,
        0x1_0000..=0xffff_ffff => 4,
        _ => 8,
    };
    out.extend_from_slice(&min.to_le_bytes());
    out.push(width);
    out.reserve(keys.len() * width as usize);
    match width {
        0 => {}
        1 => out.extend(keys.iter().map(|&k| (k - min) as u8)),
        2 => keys
            .iter()
            .for_each(|&k| out.extend_from_slice(&((k - min) as u16).to_le_bytes())),
        4 => keys
            .iter()
            .for_each(|&k| out.extend_from_slice(&((k - min) as u32).to_le_bytes())),
        _ => keys
            .iter()
            .for_each(|&k| out.extend_from_slice(&(k - min).to_le_bytes())),
    }
}

/// Reads `rows` keys [`pack`] wrote.
fn unpack(r: &mut Reader<'_>, rows: usize) -> Option<Vec<u64>> {
    let min = r.u64()?;
    let width = r.u8()? as usize;
    let packed = r.take(rows.checked_mul(width)?)?;
    Some(match width {
        0 => vec![min; rows],
        1 => packed
            .iter()
            .map(|&d| min.wrapping_add(u64::from(d)))
            .collect(),
        2 => packed
            .chunks_exact(2)
            .map(|d| min.wrapping_add(u64::from(u16::from_le_bytes([d[0], d[1]]))))
            .collect(),
        4 => packed
            .chunks_exact(4)
            .map(|d| min.wrapping_add(u64::from(u32::from_le_bytes([d[0], d[1], d[2], d[3]]))))
            .collect(),
        8 => packed
            .chunks_exact(8)
            .map(|d| {
                let mut b = [0u8; 8];
                b.copy_from_slice(d);
                min.wrapping_add(u64::from_le_bytes(b))
            })
            .collect(),
        _ => return None,
    })
}

/// Reads bytes off the front of a page.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.bytes.len() {
            return None;
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Some(head)
    }

    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
}

/// Reads a page [`encode_page`] wrote, checking it against the columns'
/// kinds; `None` if it does not read back.
fn decode_page(bytes: &[u8], string_columns: &[bool]) -> Option<Page> {
    let mut r = Reader { bytes };
    let rows = r.u32()? as usize;
    let mut columns = Vec::with_capacity(string_columns.len());
    for &is_string in string_columns {
        let kind = r.u8()?;
        if kind != if is_string { KIND_STRINGS } else { KIND_FIXED } {
            return None;
        }
        let nulls = match r.u8()? {
            0 => None,
            1 => {
                let bits = r.take(rows.div_ceil(8))?;
                Some((0..rows).map(|i| bits[i / 8] >> (i % 8) & 1 == 1).collect())
            }
            _ => return None,
        };
        let keys = unpack(&mut r, rows)?;
        if is_string {
            let len = usize::try_from(r.u64()?).ok()?;
            let packed_len = usize::try_from(r.u64()?).ok()?;
            let bytes = lz4_flex::block::decompress(r.take(packed_len)?, len).ok()?;
            let mut offsets = Vec::with_capacity(rows + 1);
            let mut end = 0u64;
            offsets.push(0);
            for k in keys {
                end = end.checked_add(k)?;
                offsets.push(end);
            }
            if end != bytes.len() as u64 {
                return None;
            }
            columns.push(ColumnData::Strings {
                bytes,
                offsets,
                nulls,
            });
        } else {
            columns.push(ColumnData::Fixed { keys, nulls });
        }
    }
    if !r.bytes.is_empty() || rows == 0 {
        return None;
    }
    Some(Page { rows, columns })
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_format::{DataType, Field};

    fn schema() -> Schema {
        Schema::new(vec![
            Field::new("k", DataType::Int64, true),
            Field::new("s", DataType::String, true),
            Field::new("n", DataType::Int32, false),
        ])
        .unwrap()
    }

    /// Rows `(k, s, n)` as a block's columns; `n` is unique and says where the row came from.
    fn block(rows: &[(Option<u64>, Option<&str>, u64)]) -> Vec<ColumnData> {
        let mut k = ColumnData::new_fixed();
        let mut s = ColumnData::new_strings();
        let mut n = ColumnData::new_fixed();
        for &(a, b, c) in rows {
            match a {
                Some(a) => k.push_key(a).unwrap(),
                None => k.push_null(),
            }
            match b {
                Some(b) => s.push_str(b.as_bytes()).unwrap(),
                None => s.push_null(),
            }
            n.push_key(c).unwrap();
        }
        vec![k, s, n]
    }

    type Row = (Option<u64>, Option<Vec<u8>>, u64);

    fn rows_of(columns: &[ColumnData], rows: usize) -> Vec<Row> {
        (0..rows)
            .map(|i| {
                (
                    (!columns[0].is_null(i)).then(|| columns[0].key_at(i).unwrap()),
                    (!columns[1].is_null(i)).then(|| columns[1].str_at(i).unwrap().to_vec()),
                    columns[2].key_at(i).unwrap(),
                )
            })
            .collect()
    }

    /// Sorts `blocks` through a sorter and returns the output blocks' sizes and rows.
    fn sort(
        blocks: Vec<Vec<ColumnData>>,
        key: &[&str],
        block_rows: usize,
    ) -> (Vec<usize>, Vec<Row>) {
        let dir = tempfile::tempdir().unwrap();
        let table = dir.path().join("t");
        let s = schema();
        let key =
            SortKey::resolve(&s, &key.iter().map(|k| k.to_string()).collect::<Vec<_>>()).unwrap();
        let (sorter, guard) = Sorter::new(&s, key, &table).unwrap();
        // Spill out of order, as workers finish.
        for (seq, b) in blocks.into_iter().enumerate().rev() {
            let rows = b[0].len();
            sorter.spill(seq as u64, rows, b).unwrap();
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let spill_dir = sorter.dir.clone();
        let mut sizes = Vec::new();
        let mut all = Vec::new();
        sorter
            .merge(block_rows, &pool, &mut |rows, columns| {
                sizes.push(rows);
                all.extend(rows_of(&columns, rows));
                Ok(())
            })
            .unwrap();
        assert_eq!(
            std::fs::read_dir(&spill_dir).unwrap().count(),
            0,
            "merged runs are removed"
        );
        drop(guard);
        assert!(
            !spill_dir.exists(),
            "the spill directory goes with its guard"
        );
        (sizes, all)
    }

    /// The rows in the order a stable sort by `key` gives.
    fn expected(
        mut rows: Vec<Row>,
        key: impl Fn(&Row) -> (bool, Option<u64>, bool, Option<Vec<u8>>),
    ) -> Vec<Row> {
        rows.sort_by_key(|r| key(r));
        rows
    }

    #[test]
    fn sorts_stably_across_blocks_with_nulls_last() {
        let mut blocks = Vec::new();
        let mut input = Vec::new();
        let words = ["b", "a", "", "ccc", "ab"];
        let mut n = 0;
        for b in 0..7 {
            let mut rows = Vec::new();
            for i in 0..(1000 + b * 333) {
                let k = (i * 7 + b) % 13;
                let k = (k != 5).then_some(k as u64 * 1_000_000_007);
                let s = (i % 11 != 3).then_some(words[(i * 3 + b) % words.len()]);
                rows.push((k, s, n));
                input.push((k, s.map(|s| s.as_bytes().to_vec()), n));
                n += 1;
            }
            blocks.push(block(&rows));
        }
        let (sizes, got) = sort(blocks.clone(), &["K", "s"], 1500);
        assert!(sizes[..sizes.len() - 1].iter().all(|&s| s == 1500));
        assert_eq!(sizes.iter().sum::<usize>(), input.len());
        let want = expected(input.clone(), |r| {
            (r.0.is_none(), r.0, r.1.is_none(), r.1.clone())
        });
        assert_eq!(got, want);
        // By the string alone: ties keep input order (n rises).
        let (_, got) = sort(blocks, &["s"], 100_000);
        let want = expected(input, |r| (r.1.is_none(), None, false, r.1.clone()));
        assert_eq!(got, want);
    }

    #[test]
    fn merges_in_passes_when_there_are_many_runs() {
        let runs = FAN_IN * 2 + 3;
        let mut blocks = Vec::new();
        let mut input = Vec::new();
        let mut n = 0;
        for b in 0..runs {
            let mut rows = Vec::new();
            for i in 0..(PAGE_ROWS / 2 + b) {
                let k = Some(((i * 31 + b * 17) % 1000) as u64);
                rows.push((k, Some("x"), n));
                input.push((k, Some(b"x".to_vec()), n));
                n += 1;
            }
            blocks.push(block(&rows));
        }
        let (_, got) = sort(blocks, &["k"], 10_000);
        assert_eq!(got, expected(input, |r| (false, r.0, false, None)));
    }

    #[test]
    fn the_guard_removes_the_runs_while_the_sorter_lives() {
        let dir = tempfile::tempdir().unwrap();
        let s = schema();
        let key = SortKey::resolve(&s, &["k".to_string()]).unwrap();
        let (sorter, guard) = Sorter::new(&s, key, &dir.path().join("t")).unwrap();
        sorter
            .spill(0, 2, block(&[(Some(2), Some("b"), 0), (Some(1), None, 1)]))
            .unwrap();
        assert!(sorter.dir.join("run-0").exists());
        drop(guard);
        assert!(!sorter.dir.exists());
        // A failed ingest's workers may still spill: that is an error, and
        // leaves nothing behind.
        let e = sorter
            .spill(1, 1, block(&[(Some(3), Some("c"), 2)]))
            .unwrap_err();
        assert!(e.to_string().contains("sorting the rows: creating"), "{e}");
        assert!(!sorter.dir.exists());
    }

    #[test]
    fn unknown_and_repeated_sort_columns_are_errors() {
        let s = schema();
        let e = SortKey::resolve(&s, &["nope".to_string()]).unwrap_err();
        assert!(e.to_string().contains("nope"), "{e}");
        assert!(SortKey::resolve(&s, &["k".to_string(), "K".to_string()]).is_err());
    }

    #[test]
    fn pages_round_trip_and_reject_damage() {
        let cols = block(&[
            (Some(u64::MAX), None, 3),
            (None, Some("xyz"), 0),
            (Some(0), Some(""), 9),
        ]);
        let mut bytes = Vec::new();
        let sorted: Vec<ColumnData> = cols
            .iter()
            .map(|c| reorder(c.clone(), &[2, 0, 1]).unwrap())
            .collect();
        encode_page(&sorted, 0..3, &mut bytes).unwrap();
        let kinds = [false, true, false];
        let page = decode_page(&bytes, &kinds).unwrap();
        assert_eq!(rows_of(&page.columns, 3), {
            let all = rows_of(&cols, 3);
            vec![all[2].clone(), all[0].clone(), all[1].clone()]
        });
        for cut in 0..bytes.len() {
            assert!(decode_page(&bytes[..cut], &kinds).is_none());
        }
        assert!(decode_page(&bytes, &[true, true, false]).is_none());
    }

    #[test]
    fn dictionary_columns_reorder_with_any_index_under_a_null() {
        // Row 1 is NULL and points past the dictionary, as readers may leave it.
        let nulls = Some(vec![false, true, false]);
        let strings = ColumnData::StringDict {
            bytes: b"ab".to_vec(),
            offsets: vec![0, 1, 2],
            indices: vec![1, 9, 0],
            nulls: nulls.clone(),
        };
        let keys = ColumnData::FixedDict {
            entries: vec![10, 20],
            indices: vec![0, 9, 1],
            nulls: nulls.clone(),
        };
        let order = [2, 1, 0];
        let s = reorder(strings, &order).unwrap();
        assert_eq!(s.str_at(0), Some(&b"a"[..]));
        assert_eq!(s.str_at(2), Some(&b"b"[..]));
        assert!(s.is_null(1) && !s.is_null(0));
        let k = reorder(keys, &order).unwrap();
        assert_eq!((k.key_at(0), k.key_at(2)), (Some(20), Some(10)));
        assert!(k.is_null(1));
        // Past the dictionary without a NULL is an error, not a made-up value.
        let bad = ColumnData::FixedDict {
            entries: vec![10],
            indices: vec![0, 9],
            nulls: None,
        };
        assert!(reorder(bad, &[1, 0]).is_err());
    }
}

//! Sorting the ingested rows by a key: an external merge sort.
//!
//! **Runs.** Each block of input rows, once parsed, is sorted by the key
//! (stably: equal keys keep their input order) and spilled to a run file as
//! pages of [`PAGE_ROWS`] rows, read straight from the block's columns in
//! the sorted order. A page stores each column on its own: fixed-width keys
//! as differences from the page's smallest key in as few bytes as the
//! largest difference needs, strings as their lengths and bytes (under LZ4
//! only while the disk cannot keep up: see `SpillCodec`), NULLs as a
//! bitmap (module `page`).
//!
//! **Merge.** Once the input ends, the runs are merged in input order (a tie
//! goes to the earlier run, so the whole sort is stable) into blocks of the
//! table's size, which are encoded as unsorted input would be. Rows are
//! compared by one number each for the key's leading fixed-width columns
//! whose spreads fit in 128 bits together (module `norm`), and only on a
//! tie by the other columns. More than
//! [`FAN_IN`] runs are first merged in groups of consecutive runs into longer
//! runs, so that one merge never holds more than [`FAN_IN`] pages.
//!
//! **Memory.** Besides the pipeline's blocks in flight: one page per run
//! being merged, and the pages an output block takes its rows from until it
//! is gathered (at most its rows / [`PAGE_ROWS`] + [`FAN_IN`] pages). Pages
//! it is done with are kept and refilled by the next ones read, so that is
//! also what it holds between blocks. Read back, a page keeps its keys
//! packed and only its strings expanded; with ClickBench `hits` rows the
//! whole 10M-row sorted ingest peaked at 2.3 GiB (2324 MiB).
//!
//! **Disk.** The runs take about the rows' size under this light packing:
//! for 10M rows of the generated `hits`, whose Parquet file is 1.6 GiB and
//! whose table 0.9 GiB, 3.9 GiB with the strings mostly raw, 2.5 GiB with
//! them all compressed. More than [`FAN_IN`] runs need that again while a
//! merge pass rewrites them. They are written and read around the page
//! cache where the file system allows (module `direct`): on the 2-core
//! machine this halved the sorted ingest's kernel time. They live in a
//! temporary directory beside the table, removed when its [`SpillDir`]
//! guard is dropped (and, after a crash, by the next writer of the table:
//! see [`strata_format::TableWriter`]).
//!
//! NULLs sort after every value. Fixed-width values sort by their
//! order-preserving keys, strings by their bytes.

mod direct;
mod gather;
mod norm;
mod page;

use std::cmp::Ordering;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use strata_format::{ColumnData, Schema};

use crate::error::{IngestError, Result};
use direct::{RunFile, RunReader, SectorBuf};
use gather::{gather, Segment};
use norm::{Layout, Spread};
use page::{Page, PageWriter};

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
    fn compare<C: Cells>(&self, x: &[C], a: usize, y: &[C], b: usize) -> Ordering {
        self.compare_after(0, x, a, y, b)
    }

    /// Compares as [`SortKey::compare`] by the key's columns after the
    /// first `skip`.
    fn compare_after<C: Cells>(
        &self,
        skip: usize,
        x: &[C],
        a: usize,
        y: &[C],
        b: usize,
    ) -> Ordering {
        for &c in self.columns.iter().skip(skip) {
            let o = compare_cells(&x[c], a, &y[c], b);
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }
}

/// What comparing rows needs of a column: a block's [`ColumnData`] when
/// runs are sorted, a page's [`page::PageColumn`] when they are merged.
trait Cells {
    /// Whether row `i` is NULL.
    fn is_null(&self, i: usize) -> bool;
    /// Row `i`'s key, for a fixed-width column.
    fn key_at(&self, i: usize) -> Option<u64>;
    /// Row `i`'s bytes, for a string column.
    fn str_at(&self, i: usize) -> Option<&[u8]>;
}

impl Cells for ColumnData {
    fn is_null(&self, i: usize) -> bool {
        ColumnData::is_null(self, i)
    }

    fn key_at(&self, i: usize) -> Option<u64> {
        ColumnData::key_at(self, i)
    }

    fn str_at(&self, i: usize) -> Option<&[u8]> {
        ColumnData::str_at(self, i)
    }
}

/// Compares two values of one column; NULL sorts last.
fn compare_cells<C: Cells>(x: &C, a: usize, y: &C, b: usize) -> Ordering {
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

/// Whether spilled strings are compressed: only while the disk is slower
/// than the pages come. LZ4 takes a run's strings to a third of their
/// bytes or less, but costs CPU, which the sort is short of wherever the
/// disk keeps up: on the 2-core machine, whose disk writes 1.6 GB/s, this
/// made the sorted 10M-row hits ingest 5.5% faster (wall, paired medians,
/// against compressing every page) for 1.4 GiB more disk. So pages go out
/// raw until writing them spends more than [`SpillCodec::WAITING`] of its
/// time waiting for the disk (an average over recent pages, all runs
/// together); then the next [`SpillCodec::PAGES`] pages are compressed,
/// and so on while the disk stays behind.
#[derive(Debug, Default)]
struct SpillCodec {
    state: Mutex<CodecState>,
}

#[derive(Debug, Default)]
struct CodecState {
    /// The recent share of page-writing time spent waiting for the disk.
    waiting: f64,
    /// Pages still to compress.
    compress: u64,
}

impl SpillCodec {
    /// The share of time waiting for the disk above which pages are
    /// compressed.
    const WAITING: f64 = 0.1;
    /// Pages compressed each time the waiting is over the mark: half a
    /// default block's.
    const PAGES: u64 = 64;
    /// About how many recent pages the average is over: enough that the
    /// disk's short stalls do not count, only its falling behind.
    const HORIZON: f64 = 32.0;

    fn state(&self) -> std::sync::MutexGuard<'_, CodecState> {
        // The state is two numbers, valid whatever a panicking holder did.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether to compress the next page.
    fn next(&self) -> bool {
        let mut s = self.state();
        let compress = s.compress > 0;
        s.compress = s.compress.saturating_sub(1);
        compress
    }

    /// Notes that writing a page took `took`, of which `waited` waiting
    /// for the disk.
    fn written(&self, took: Duration, waited: Duration) {
        let share = waited.as_secs_f64() / took.as_secs_f64().max(1e-9);
        let mut s = self.state();
        s.waiting += (share.min(1.0) - s.waiting) / Self::HORIZON;
        if s.waiting > Self::WAITING {
            s.compress = Self::PAGES;
        }
    }
}

/// Writes one run file page by page.
struct RunWriter {
    path: PathBuf,
    out: RunFile,
    pages: Vec<PageRef>,
    offset: u64,
    buf: Vec<u8>,
    writer: PageWriter,
    codec: Arc<SpillCodec>,
}

impl RunWriter {
    fn create(path: PathBuf, codec: Arc<SpillCodec>) -> Result<RunWriter> {
        let out = RunFile::create(&path).map_err(|e| spill_error("creating", &path, e))?;
        Ok(RunWriter {
            path,
            out,
            pages: Vec::new(),
            offset: 0,
            buf: Vec::new(),
            writer: PageWriter::default(),
            codec,
        })
    }

    /// Appends a page holding `rows` of `columns`, in that order.
    fn page(&mut self, columns: &[ColumnData], rows: &[u32]) -> Result<()> {
        let start = Instant::now();
        self.buf.clear();
        self.writer.compress = self.codec.next();
        self.writer.write(columns, rows, &mut self.buf)?;
        self.out
            .write_all(&self.buf)
            .map_err(|e| spill_error("writing", &self.path, e))?;
        self.codec.written(start.elapsed(), self.out.waited());
        self.pages.push(PageRef {
            offset: self.offset,
            len: self.buf.len(),
        });
        self.offset += self.buf.len() as u64;
        Ok(())
    }

    fn finish(self) -> Result<Run> {
        self.out
            .finish()
            .map_err(|e| spill_error("writing", &self.path, e))?;
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
    /// Whether the directory is there to create runs in: false once the
    /// [`SpillDir`] guard removes it.
    dir_open: Arc<Mutex<bool>>,
    runs: Mutex<Vec<(u64, Run)>>,
    /// The spread of each key column's keys over the runs so far.
    spreads: Mutex<Vec<Spread>>,
    codec: Arc<SpillCodec>,
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
        let open = Arc::new(Mutex::new(true));
        let mut guard = SpillDir {
            path: dir.clone(),
            open: open.clone(),
            _lock: None,
        };
        guard._lock = Some(strata_format::writer::WorkDirLock::take(&dir)?);
        let sorter = Sorter {
            spreads: Mutex::new(vec![Spread::default(); key.columns.len()]),
            key,
            string_columns: schema
                .fields
                .iter()
                .map(|f| f.data_type.is_string())
                .collect(),
            dir,
            dir_open: open,
            runs: Mutex::new(Vec::new()),
            codec: Arc::default(),
            next_file: AtomicU64::new(0),
            rows: AtomicU64::new(0),
        };
        Ok((sorter, guard))
    }

    /// Rows spilled so far.
    pub fn rows(&self) -> u64 {
        self.rows.load(AtomicOrdering::Relaxed)
    }

    /// Creates the next run file, unless the [`SpillDir`] guard has removed
    /// (or is removing) the directory: a failed ingest's workers may still
    /// be spilling.
    fn new_run_file(&self) -> Result<RunWriter> {
        let n = self.next_file.fetch_add(1, AtomicOrdering::Relaxed);
        let path = self.dir.join(format!("run-{n}"));
        let open = self.dir_open.lock().unwrap_or_else(|e| e.into_inner());
        if !*open {
            let gone = std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "the ingest has stopped and removed its sort directory",
            );
            return Err(spill_error("creating", &path, gone));
        }
        RunWriter::create(path, self.codec.clone())
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
        let spreads: Vec<Spread> = self
            .key
            .columns
            .iter()
            .map(|&c| Spread::of(&columns[c], rows))
            .collect();
        let order = self.sorted_rows(&columns, rows32, &spreads);
        {
            let mut all = self
                .spreads
                .lock()
                .map_err(|_| IngestError::Internal("sort state poisoned".into()))?;
            for (a, s) in all.iter_mut().zip(spreads) {
                *a = a.union(s);
            }
        }
        let mut w = self.new_run_file()?;
        for page in order.chunks(PAGE_ROWS) {
            w.page(&columns, page)?;
        }
        let run = w.finish()?;
        self.runs
            .lock()
            .map_err(|_| IngestError::Internal("sort state poisoned".into()))?
            .push((seq, run));
        self.rows.fetch_add(rows as u64, AtomicOrdering::Relaxed);
        Ok(())
    }

    /// The first `rows` rows of `columns` in key order, ties in row order;
    /// `spreads` are the key columns' spreads over those rows.
    fn sorted_rows(&self, columns: &[ColumnData], rows: u32, spreads: &[Spread]) -> Vec<u32> {
        let n = rows as usize;
        if let Some(layout) = Layout::new(&self.key.columns, spreads) {
            let mut keys = Vec::new();
            if layout.extend(columns, n, &mut keys).is_some() {
                // The row in the key's low bits when the whole key is laid
                // out and that fits, so the sort compares single numbers;
                // no two are equal, so it is stable.
                let row_bits = u32::BITS - rows.saturating_sub(1).leading_zeros();
                if layout.complete() && layout.bits() + row_bits <= u128::BITS {
                    let mut tagged: Vec<u128> = keys
                        .iter()
                        .zip(0u32..)
                        .map(|(&k, i)| k << row_bits | u128::from(i))
                        .collect();
                    tagged.sort_unstable();
                    let mask = (1u128 << row_bits) - 1;
                    return tagged.iter().map(|&t| (t & mask) as u32).collect();
                }
                // Else rows equal in the part laid out compare by the rest
                // of the key (none if it is complete), then by row.
                let skip = layout.columns();
                let mut pairs: Vec<(u128, u32)> = keys.into_iter().zip(0u32..).collect();
                pairs.sort_unstable_by(|&(p, a), &(q, b)| {
                    p.cmp(&q)
                        .then_with(|| {
                            let (a, b) = (a as usize, b as usize);
                            self.key.compare_after(skip, columns, a, columns, b)
                        })
                        .then(a.cmp(&b))
                });
                return pairs.into_iter().map(|(_, i)| i).collect();
            }
        }
        let mut order: Vec<u32> = (0..rows).collect();
        order.sort_by(|&a, &b| self.key.compare(columns, a as usize, columns, b as usize));
        order
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
        let layout = {
            let spreads = self
                .spreads
                .lock()
                .map_err(|_| IngestError::Internal("sort state poisoned".into()))?;
            Layout::new(&self.key.columns, &spreads)
        };
        let layout = layout.as_ref();
        // A merge pass's pages are its chunks' rows in order.
        let all: Vec<u32> = (0..PAGE_ROWS as u32).collect();
        while runs.len() > FAN_IN {
            let mut longer = Vec::with_capacity(runs.len().div_ceil(FAN_IN));
            let mut rest = runs.into_iter().peekable();
            while rest.peek().is_some() {
                let group: Vec<Run> = rest.by_ref().take(FAN_IN).collect();
                let mut w = self.new_run_file()?;
                self.merge_group(&group, layout, PAGE_ROWS, pool, &mut |rows, columns| {
                    w.page(&columns, &all[..rows])
                })?;
                remove_runs(group);
                longer.push(w.finish()?);
            }
            runs = longer;
        }
        self.merge_group(&runs, layout, block_rows, pool, emit)?;
        remove_runs(runs);
        Ok(())
    }

    /// Merges `runs` (in input order) into chunks of `chunk_rows` for `emit`,
    /// comparing rows by their keys under `layout` if there is one.
    fn merge_group(
        &self,
        runs: &[Run],
        layout: Option<&Layout>,
        chunk_rows: usize,
        pool: &rayon::ThreadPool,
        emit: &mut dyn FnMut(usize, Vec<ColumnData>) -> Result<()>,
    ) -> Result<()> {
        let mut files = Vec::with_capacity(runs.len());
        for run in runs {
            files.push(
                RunReader::open(&run.path).map_err(|e| spill_error("reading", &run.path, e))?,
            );
        }
        let mut buf = SectorBuf::default();
        // Pages gathered from and no longer current in any run: their
        // buffers are refilled by the next pages read.
        let mut spares: Vec<Page> = Vec::new();
        let mut slots: Vec<Arc<Page>> = Vec::new();
        let mut cursors: Vec<Cursor> = Vec::with_capacity(runs.len());
        for (i, run) in runs.iter().enumerate() {
            if let Some(page) = self.read_page(&mut files[i], run, 0, layout, &mut buf, None)? {
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
        let normalized = layout.is_some();
        // The key's columns after those laid out, if any.
        let rest = layout.filter(|l| !l.complete()).map(Layout::columns);
        // Whether row `row` of cursor `a`'s page comes before cursor `b`'s current row.
        let before = |cursors: &[Cursor], a: usize, row: usize, b: usize| {
            let (x, y) = (&cursors[a], &cursors[b]);
            let order = if normalized {
                let order = x.page.norm[row].cmp(&y.page.norm[y.row]);
                match rest {
                    Some(skip) if order == Ordering::Equal => {
                        key.compare_after(skip, &x.page.columns, row, &y.page.columns, y.row)
                    }
                    _ => order,
                }
            } else {
                key.compare(&x.page.columns, row, &y.page.columns, y.row)
            };
            match order {
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
                if normalized && rest.is_none() {
                    // The rows before the next run's: below its key, or
                    // equal to it if this run is the earlier.
                    let n = &cursors[next];
                    let bound = n.page.norm[n.row];
                    let ties = c.run < n.run;
                    let keys = &c.page.norm[..limit];
                    while end < limit && (keys[end] < bound || ties && keys[end] == bound) {
                        end += 1;
                    }
                } else {
                    while end < limit && before(&cursors, top, end, next) {
                        end += 1;
                    }
                }
            } else {
                end = limit;
            }
            let c = &mut cursors[top];
            // Lossless: a page's rows are counted in a u32, and a chunk
            // takes rows from fewer pages than it has rows.
            order.push(Segment {
                slot: c.slot as u32,
                start: c.row as u32,
                end: end as u32,
            });
            rows_in_chunk += end - c.row;
            c.row = end;
            if c.row == c.page.rows {
                let spare = spares.pop();
                match self.read_page(
                    &mut files[c.run],
                    &runs[c.run],
                    c.next_page,
                    layout,
                    &mut buf,
                    spare,
                )? {
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
                spares.extend(slots.drain(..).filter_map(|p| Arc::try_unwrap(p).ok()));
                for &i in &heap {
                    let c = &mut cursors[i];
                    c.slot = slots.len();
                    slots.push(c.page.clone());
                }
            }
        }
        Ok(())
    }

    /// Reads page `index` of `run` (into `spare`'s buffers) with its rows'
    /// keys under `layout` if there is one, or `None` past its last page.
    fn read_page(
        &self,
        file: &mut RunReader,
        run: &Run,
        index: usize,
        layout: Option<&Layout>,
        buf: &mut SectorBuf,
        spare: Option<Page>,
    ) -> Result<Option<Arc<Page>>> {
        let Some(r) = run.pages.get(index) else {
            return Ok(None);
        };
        let bytes = file
            .read(r.offset, r.len, buf)
            .map_err(|e| spill_error("reading", &run.path, e))?;
        let damaged = || {
            IngestError::Internal(format!(
                "sort run {} does not read back as written",
                run.path.display()
            ))
        };
        let mut page = page::decode(bytes, &self.string_columns, spare).ok_or_else(damaged)?;
        if let Some(layout) = layout {
            // Keys outside the spreads the runs were written with.
            let mut norm = std::mem::take(&mut page.norm);
            layout
                .extend(&page.columns, page.rows, &mut norm)
                .ok_or_else(damaged)?;
            page.norm = norm;
        }
        Ok(Some(Arc::new(page)))
    }
}

/// Removes a sorter's temporary directory when dropped. It is apart from
/// the [`Sorter`], which worker threads share: after a failure they may
/// still hold it when the process exits, while the ingest's caller drops
/// this guard when the ingest returns.
#[derive(Debug)]
pub struct SpillDir {
    path: PathBuf,
    /// Shared with the sorter: see [`Sorter::new_run_file`].
    open: Arc<Mutex<bool>>,
    /// Keeps sweepers away while the ingest runs.
    _lock: Option<strata_format::writer::WorkDirLock>,
}

impl Drop for SpillDir {
    fn drop(&mut self) {
        // Under the lock, so that no worker creates a run file between the
        // removal's listing of the directory and its rmdir.
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        *open = false;
        let _ = std::fs::remove_dir_all(&self.path);
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
    fn wide_fixed_keys_sort_as_narrow_ones_do() {
        // Keys of 1 to 129 bits: packed with the row, paired with it, and
        // too wide for one number.
        for shift in [0, 45, 51] {
            let mut blocks = Vec::new();
            let mut input = Vec::new();
            let mut serial = 0u64;
            for b in 0..5u64 {
                let mut rows = Vec::new();
                for i in 0..(900 + b * 100) {
                    let k = (i % 7 != 2).then(|| (i % 3).wrapping_mul(0x5555_5555_5555_5555));
                    let n = serial << shift;
                    rows.push((k, None, n));
                    input.push((k, None, n));
                    serial += 1;
                }
                blocks.push(block(&rows));
            }
            let (_, got) = sort(blocks.clone(), &["k"], 700);
            let want = expected(input.clone(), |r| (r.0.is_none(), r.0, false, None));
            assert_eq!(got, want, "by k, n << {shift}");
            let (_, got) = sort(blocks, &["k", "n"], 700);
            let mut want = input;
            want.sort_by_key(|r| (r.0.is_none(), r.0, r.2));
            assert_eq!(got, want, "by k and n, n << {shift}");
        }
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
    fn spills_compress_only_while_the_disk_is_behind() {
        let codec = SpillCodec::default();
        let ms = Duration::from_millis;
        // A disk that keeps up: raw pages, whatever its short stalls.
        for i in 0..200 {
            assert!(!codec.next());
            let wait = if i % 20 < 2 { ms(5) } else { ms(0) };
            codec.written(ms(10), wait);
        }
        // A disk that falls behind: compressed pages within a few pages...
        let mut raw = 0;
        while !codec.next() {
            codec.written(ms(10), ms(5));
            raw += 1;
            assert!(raw < 16, "still raw after {raw} slow pages");
        }
        // ...for a while after it catches up...
        for _ in 1..SpillCodec::PAGES - 10 {
            codec.written(ms(10), ms(0));
            assert!(codec.next());
        }
        // ...and raw again once it has kept up for long enough.
        for _ in 0..2 * SpillCodec::PAGES {
            codec.written(ms(10), ms(0));
            codec.next();
        }
        assert!(!codec.next());
    }

    #[test]
    fn unknown_and_repeated_sort_columns_are_errors() {
        let s = schema();
        let e = SortKey::resolve(&s, &["nope".to_string()]).unwrap_err();
        assert!(e.to_string().contains("nope"), "{e}");
        assert!(SortKey::resolve(&s, &["k".to_string(), "K".to_string()]).is_err());
    }
}

//! The parallel, ordered, bounded block pipeline.
//!
//! The calling thread reads input and cuts it into blocks; each block is
//! handed to a rayon pool as a job that turns it into columns (text parsing)
//! and encodes it ([`strata_format::encode_block`]); finished blocks come back
//! over a channel and are written in input order.
//!
//! **Memory bound.** At most `threads + 1` blocks are between being read and
//! being written (submitted jobs plus finished blocks waiting for an earlier
//! one), and one more is being read, so peak memory is about
//! `(threads + 2) x (bytes of one block's input + its columns + its encoded
//! form)` whatever the input size: with the default 2^19-row blocks and
//! ClickBench `hits` rows (~700 bytes as text), about 1 GiB per block in
//! flight. Smaller `--block-rows` lowers it proportionally. Parquet inputs
//! of fewer columns than `2 x threads` also decode one round of blocks ahead
//! (see [`crate::parquet::ParquetSource`]): up to `2 x threads` blocks of
//! those few columns.
//!
//! **Failure.** The first error (a job's, a bad row beyond `--max-errors`,
//! the writer's) is returned at once; the [`TableWriter`] is then dropped
//! without `finish`, which removes everything written, and jobs still running
//! send their results to a closed channel.

use std::collections::BTreeMap;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;

use strata_format::{EncodedBlock, TableWriter, WriteSummary};

use crate::error::{IngestError, Result, RowError};

/// How many bad rows the summary keeps to show.
pub const SHOWN_BAD_ROWS: usize = 10;

/// A block as it comes back from a worker.
#[derive(Debug, Default)]
pub struct Done {
    /// Rows in the block (bad rows excluded).
    pub rows: usize,
    /// The encoded block; `None` when all its rows were bad.
    pub encoded: Option<EncodedBlock>,
    /// Bad rows skipped in this block.
    pub bad_count: u64,
    /// The first few of them, in input order.
    pub bad: Vec<RowError>,
}

type JobResult = (u64, Result<Done>);

/// Counters of what has been written so far.
#[derive(Debug, Default, Clone)]
pub struct Written {
    /// Rows written.
    pub rows: u64,
    /// Blocks written.
    pub blocks: u64,
    /// Bytes of the encoded blocks written.
    pub encoded_bytes: u64,
    /// Bad rows skipped.
    pub bad_count: u64,
    /// The first few bad rows.
    pub bad: Vec<RowError>,
}

/// Runs jobs on a pool and writes their blocks in order.
pub struct Pipeline {
    pool: Arc<rayon::ThreadPool>,
    tx: Sender<JobResult>,
    rx: Receiver<JobResult>,
    writer: TableWriter,
    next_seq: u64,
    next_write: u64,
    max_outstanding: u64,
    waiting: BTreeMap<u64, Done>,
    max_errors: u64,
    /// What has been written.
    pub written: Written,
}

impl Pipeline {
    /// A pipeline writing to `writer` with `threads` workers (0: one per core).
    pub fn new(writer: TableWriter, threads: usize, max_errors: u64) -> Result<Pipeline> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("strata-ingest-{i}"))
            .build()
            .map_err(|e| IngestError::Internal(format!("cannot start worker threads: {e}")))?;
        let pool = Arc::new(pool);
        let (tx, rx) = channel();
        let max_outstanding = pool.current_num_threads() as u64 + 1;
        Ok(Pipeline {
            pool,
            tx,
            rx,
            writer,
            next_seq: 0,
            next_write: 0,
            max_outstanding,
            waiting: BTreeMap::new(),
            max_errors,
            written: Written::default(),
        })
    }

    /// The worker pool (for parallel work the reading thread does itself).
    pub fn pool(&self) -> &Arc<rayon::ThreadPool> {
        &self.pool
    }

    /// Rows per block of the table being written.
    pub fn block_rows(&self) -> usize {
        self.writer.block_rows()
    }

    /// Waits for every job submitted so far and writes their blocks.
    pub fn wait_all(&mut self) -> Result<()> {
        while self.next_write < self.next_seq {
            self.receive_one()?;
        }
        Ok(())
    }

    /// Queues a job producing the next block; first waits (writing finished
    /// blocks) while too many blocks are outstanding.
    pub fn submit<F>(&mut self, job: F) -> Result<()>
    where
        F: FnOnce() -> Result<Done> + Send + 'static,
    {
        while self.next_seq - self.next_write >= self.max_outstanding {
            self.receive_one()?;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let tx = self.tx.clone();
        self.pool.spawn(move || {
            // The receiver is gone only if the ingest already failed.
            let _ = tx.send((seq, job()));
        });
        Ok(())
    }

    /// Writes every block that is ready, without waiting.
    pub fn poll(&mut self) -> Result<()> {
        while let Ok((seq, r)) = self.rx.try_recv() {
            self.accept(seq, r)?;
        }
        Ok(())
    }

    fn receive_one(&mut self) -> Result<()> {
        let (seq, r) = self
            .rx
            .recv()
            .map_err(|_| IngestError::Internal("worker channel closed".into()))?;
        self.accept(seq, r)
    }

    fn accept(&mut self, seq: u64, r: Result<Done>) -> Result<()> {
        self.waiting.insert(seq, r?);
        while let Some(done) = self.waiting.remove(&self.next_write) {
            self.next_write += 1;
            self.write(done)?;
        }
        Ok(())
    }

    fn write(&mut self, done: Done) -> Result<()> {
        let w = &mut self.written;
        let mut bad = done.bad.into_iter();
        for _ in 0..done.bad_count {
            w.bad_count += 1;
            let e = bad.next();
            if w.bad_count > self.max_errors {
                return Err(if let (0, Some(e)) = (self.max_errors, &e) {
                    IngestError::BadRow(Box::new(e.clone()))
                } else {
                    let mut first = std::mem::take(&mut w.bad);
                    if first.len() < SHOWN_BAD_ROWS {
                        first.extend(e);
                    }
                    IngestError::TooManyBadRows {
                        max: self.max_errors,
                        count: w.bad_count,
                        first,
                    }
                });
            }
            if let Some(e) = e {
                if w.bad.len() < SHOWN_BAD_ROWS {
                    w.bad.push(e);
                }
            }
        }
        if let Some(block) = done.encoded {
            w.encoded_bytes += block.byte_len() as u64;
            w.blocks += 1;
            self.writer.write_encoded(block)?;
        }
        w.rows += done.rows as u64;
        Ok(())
    }

    /// Waits for every job, writes the rest and publishes the table, unless
    /// `cancel` is set by then: checked at the last moment, the commit point
    /// (see [`TableWriter::finish_unless`]), when it fails with
    /// [`IngestError::Interrupted`] and nothing is published.
    pub fn finish(
        mut self,
        cancel: Option<&std::sync::atomic::AtomicBool>,
    ) -> Result<(WriteSummary, Written)> {
        self.wait_all()?;
        let cancelled = || cancel.is_some_and(|c| c.load(std::sync::atomic::Ordering::SeqCst));
        if cancelled() {
            return Err(IngestError::Interrupted);
        }
        match self.writer.finish_unless(&cancelled)? {
            Some(summary) => Ok((summary, self.written)),
            None => Err(IngestError::Interrupted),
        }
    }
}

/// Collects the bad rows of one block for [`Done`]: counts all, keeps the
/// first few, and says when the block alone exceeds `max_errors` (the
/// ingest will fail, so the worker can stop).
#[derive(Debug)]
pub struct BadRows {
    max_errors: u64,
    /// Bad rows seen.
    pub count: u64,
    /// The first few.
    pub first: Vec<RowError>,
}

impl BadRows {
    /// Collects against a budget of `max_errors`.
    pub fn new(max_errors: u64) -> BadRows {
        BadRows {
            max_errors,
            count: 0,
            first: Vec::new(),
        }
    }

    /// Records one; returns true when the budget is exhausted.
    pub fn add(&mut self, e: RowError) -> bool {
        self.count += 1;
        if self.first.len() < SHOWN_BAD_ROWS {
            self.first.push(e);
        }
        self.count > self.max_errors
    }
}

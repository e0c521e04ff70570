//! A process-wide cache of data decoded from block files.
//!
//! Reading a chunk may decompress LZ4 sections or decode every row's value
//! index from the row lists. A [`ColumnChunk`](crate::ColumnChunk) keeps what
//! it decoded for as long as it lives, which is one query. A process that
//! runs many queries on a table it keeps open (the REPL, a batch job
//! embedding the library, a benchmark) would decode the same sections again
//! for every query; this cache keeps them across queries.
//!
//! Entries are keyed by table handle, chunk and slot (a section, or the row
//! codes). The cache is bounded by [`limit`] bytes (1 GiB unless
//! [`set_limit`] says otherwise; 0 turns it off) and evicts the entries used
//! least recently. A dropped table handle removes its entries. Evicting never
//! invalidates data in use: a chunk holds its own reference to what it reads.
//!
//! Room is made only from entries the running query has not used (see
//! [`start_query`]): a query that reads more than the cache holds keeps what
//! it cached first instead of evicting it for its own later data. Under plain
//! LRU such a query, repeated, found nothing cached: each run evicted the
//! first blocks' data to keep the last blocks', which the next run reached
//! only after evicting them in turn, and every freed buffer was memory the
//! process had to fault in again.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};

/// Bytes the cache holds at most unless [`set_limit`] is called.
pub const DEFAULT_LIMIT: usize = 1 << 30;

/// One cached item.
#[derive(Debug, Clone)]
pub(crate) enum Decoded {
    /// A decompressed section, 16-byte aligned (hashes are read in place).
    Section(Arc<Vec<u128>>),
    /// Bytes derived to a length known only once made (the row lists of
    /// bit-packed row codes), 16-byte aligned, and that length.
    Sized(Arc<Vec<u128>>, usize),
    /// Row-ordered value indexes (`u32::MAX` for NULL).
    Codes(Arc<Vec<u32>>),
}

impl Decoded {
    fn bytes(&self) -> usize {
        match self {
            Decoded::Section(w) | Decoded::Sized(w, _) => w.len() * 16,
            Decoded::Codes(c) => c.len() * 4,
        }
    }
}

/// What an entry is for: a chunk of one table handle, and a slot in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    /// The table handle, from [`new_table_id`].
    pub table: u64,
    /// The chunk's index in the manifest (`block * columns + column`).
    pub chunk: u32,
    /// A section number, [`CODES_SLOT`] or [`STR_BLOCKS_SLOT`].
    pub slot: u8,
}

/// The slot of a chunk's row codes (past every section number).
pub(crate) const CODES_SLOT: u8 = crate::layout::SECTION_COUNT as u8;

/// The slot of a chunk's string blocks, all decompressed.
pub(crate) const STR_BLOCKS_SLOT: u8 = CODES_SLOT + 1;

struct Entry {
    data: Decoded,
    last_used: u64,
    /// The query (see [`start_query`]) that used it last.
    query: u64,
}

#[derive(Default)]
struct Entries {
    map: HashMap<Key, Entry>,
    bytes: usize,
    tick: u64,
    /// The running query's number (see [`start_query`]).
    query: u64,
    /// The query during which an insert found no entry it could evict:
    /// inserts needing room are refused until the next query starts.
    full_for: Option<u64>,
    /// Keys asked about by [`Cache::second_request`] that are not cached.
    asked: std::collections::HashSet<Key>,
}

/// Keys [`Cache::second_request`] remembers at most (then it starts over).
const MAX_ASKED: usize = 1 << 16;

/// A bounded, least-recently-used map of decoded data.
struct Cache {
    entries: Mutex<Entries>,
    limit: AtomicUsize,
}

static GLOBAL: LazyLock<Cache> = LazyLock::new(|| Cache::new(DEFAULT_LIMIT));
static NEXT_TABLE: AtomicU64 = AtomicU64::new(0);

/// The most bytes the cache holds.
pub fn limit() -> usize {
    GLOBAL.limit()
}

/// Sets the most bytes the cache holds (0 turns it off) and evicts down to
/// it.
pub fn set_limit(bytes: usize) {
    GLOBAL.set_limit(bytes);
}

/// Bytes the cache holds now.
pub fn usage() -> usize {
    GLOBAL.lock().bytes
}

/// A fresh identity for a table handle.
pub(crate) fn new_table_id() -> u64 {
    NEXT_TABLE.fetch_add(1, Ordering::Relaxed)
}

/// Marks the start of a query. Entries used since are not evicted to make
/// room for others until the next query starts, so a query that reads more
/// than the cache holds keeps the part it cached (and runs again faster)
/// instead of cycling everything through it.
pub fn start_query() {
    GLOBAL.start_query();
}

/// The entry for `key`, marked as just used.
pub(crate) fn get(key: Key) -> Option<Decoded> {
    GLOBAL.get(key)
}

/// Whether `key` is cached (without marking it used).
pub(crate) fn contains(key: Key) -> bool {
    GLOBAL.lock().map.contains_key(&key)
}

/// Stores `data` under `key` (see [`Cache::insert`]).
pub(crate) fn insert(key: Key, data: Decoded) {
    GLOBAL.insert(key, data);
}

/// Whether `key` was asked about before (see [`Cache::second_request`]).
pub(crate) fn second_request(key: Key) -> bool {
    GLOBAL.second_request(key)
}

/// Removes every entry of table handle `table`.
pub(crate) fn forget_table(table: u64) {
    GLOBAL.forget_table(table);
}

impl Cache {
    fn new(limit: usize) -> Cache {
        Cache {
            entries: Mutex::default(),
            limit: AtomicUsize::new(limit),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Entries> {
        // Every operation leaves the map and its byte count consistent
        // before anything in it can panic, so a poisoned lock is safe to use.
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn limit(&self) -> usize {
        self.limit.load(Ordering::Relaxed)
    }

    fn set_limit(&self, bytes: usize) {
        self.limit.store(bytes, Ordering::Relaxed);
        let mut e = self.lock();
        e.evict_to(bytes, None);
        e.full_for = None;
    }

    fn start_query(&self) {
        let mut e = self.lock();
        e.query += 1;
        e.full_for = None;
    }

    fn get(&self, key: Key) -> Option<Decoded> {
        let mut e = self.lock();
        e.tick += 1;
        let (tick, query) = (e.tick, e.query);
        let entry = e.map.get_mut(&key)?;
        entry.last_used = tick;
        entry.query = query;
        Some(entry.data.clone())
    }

    /// Stores `data` under `key`, evicting the least recently used entries
    /// that the running query has not used to make room; without room, or
    /// for data larger than a quarter of the limit, nothing is kept.
    fn insert(&self, key: Key, data: Decoded) {
        let limit = self.limit();
        let bytes = data.bytes();
        if bytes > limit / 4 {
            return;
        }
        let mut e = self.lock();
        if e.map.contains_key(&key) {
            return;
        }
        if e.bytes + bytes > limit {
            if e.full_for == Some(e.query) {
                return;
            }
            // Evict a little more than needed so that a run of inserts does
            // not sort the entries every time.
            let before = e.query;
            e.evict_to((limit - bytes) / 8 * 7, Some(before));
            if e.bytes + bytes > limit {
                e.full_for = Some(before);
                return;
            }
        }
        e.tick += 1;
        let (last_used, query) = (e.tick, e.query);
        e.map.insert(
            key,
            Entry {
                data,
                last_used,
                query,
            },
        );
        e.bytes += bytes;
    }

    /// Whether `key` is cached or was asked about before: data that is only
    /// worth caching once it is wanted again calls this first, so that a
    /// query reading much data once does not evict what repeated queries
    /// use. Remembers the question.
    fn second_request(&self, key: Key) -> bool {
        if self.limit() == 0 {
            return false;
        }
        let mut e = self.lock();
        if e.map.contains_key(&key) {
            return true;
        }
        if e.asked.len() >= MAX_ASKED {
            e.asked.clear();
        }
        !e.asked.insert(key)
    }

    fn forget_table(&self, table: u64) {
        let mut e = self.lock();
        let mut freed = 0;
        e.map.retain(|k, v| {
            let keep = k.table != table;
            if !keep {
                freed += v.data.bytes();
            }
            keep
        });
        e.bytes -= freed;
        e.full_for = None;
        e.asked.retain(|k| k.table != table);
    }
}

impl Entries {
    /// Evicts the least recently used entries until at most `target` bytes
    /// stay, or (with `before`) until the next entry was used by query
    /// `before` or a later one.
    fn evict_to(&mut self, target: usize, before: Option<u64>) {
        if self.bytes <= target {
            return;
        }
        let mut by_age: Vec<(u64, u64, Key, usize)> = self
            .map
            .iter()
            .map(|(k, v)| (v.last_used, v.query, *k, v.data.bytes()))
            .collect();
        by_age.sort_unstable_by_key(|&(t, _, _, _)| t);
        for (_, query, key, bytes) in by_age {
            // Entries used later have larger ticks and queries no earlier.
            if self.bytes <= target || before.is_some_and(|b| query >= b) {
                break;
            }
            self.map.remove(&key);
            self.bytes -= bytes;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(table: u64, chunk: u32) -> Key {
        Key {
            table,
            chunk,
            slot: CODES_SLOT,
        }
    }

    fn codes(n: usize) -> Decoded {
        Decoded::Codes(Arc::new(vec![7; n]))
    }

    #[test]
    fn bounded_least_recently_used_and_forgotten_with_the_table() {
        let c = Cache::new(4000 * 4);
        let t = 1;
        for chunk in 0..4 {
            c.insert(key(t, chunk), codes(1000));
        }
        assert_eq!(c.lock().bytes, 16000, "all fit");
        // Too large for a quarter of the limit: not kept.
        c.insert(key(t, 9), codes(1001));
        assert!(c.get(key(t, 9)).is_none());
        // In the next query chunk 0 is read again, so chunk 1 is now the
        // least recently used, and goes first when room is needed.
        c.start_query();
        assert!(c.get(key(t, 0)).is_some());
        c.insert(key(t, 5), codes(100));
        assert!(c.lock().bytes <= 16000);
        assert!(c.get(key(t, 1)).is_none(), "least recently used is evicted");
        for chunk in [0, 2, 3, 5] {
            assert!(c.get(key(t, chunk)).is_some(), "chunk {chunk} stays");
        }
        match c.get(key(t, 5)) {
            Some(Decoded::Codes(c)) => assert_eq!(c.len(), 100),
            other => panic!("unexpected {other:?}"),
        }
        c.insert(key(t + 1, 0), codes(10));
        c.forget_table(t);
        assert_eq!(c.lock().bytes, 40, "only the other table's entry stays");
        assert!(c.get(key(t, 5)).is_none());
        assert!(!c.second_request(key(t, 7)), "first request");
        assert!(c.second_request(key(t, 7)), "second request");
        assert!(c.second_request(key(t + 1, 0)), "cached");
        c.set_limit(0);
        assert_eq!(c.lock().bytes, 0);
        c.start_query();
        assert!(!c.second_request(key(t, 8)) && !c.second_request(key(t, 8)));
        c.insert(key(t, 6), codes(1));
        assert!(c.get(key(t, 6)).is_none(), "a zero limit keeps nothing");
    }

    #[test]
    fn a_query_reading_more_than_fits_keeps_what_it_cached_first() {
        // Ten chunks of a thousand codes, a cache for four of them.
        let c = Cache::new(4000 * 4);
        let t = 1;
        let run = |c: &Cache| -> usize {
            c.start_query();
            let mut hits = 0;
            for chunk in 0..10 {
                if c.get(key(t, chunk)).is_some() {
                    hits += 1;
                } else {
                    c.insert(key(t, chunk), codes(1000));
                }
            }
            hits
        };
        assert_eq!(run(&c), 0, "nothing cached yet");
        // The first four chunks stay; the others find no room, where plain
        // LRU would have cycled every chunk through the cache and hit none.
        assert_eq!(run(&c), 4);
        assert_eq!(run(&c), 4);
        for chunk in 0..4 {
            assert!(c.lock().map.contains_key(&key(t, chunk)));
        }
        // A later query's data replaces entries the earlier queries used.
        c.start_query();
        c.insert(key(t + 1, 0), codes(1000));
        assert!(c.get(key(t + 1, 0)).is_some());
        assert!(c.lock().bytes <= 4000 * 4);
    }
}

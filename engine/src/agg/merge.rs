//! Sorted vectors of groups: rows of `key words ++ state words`, kept in
//! pieces of at most [`PIECE_ROWS`] rows, merged k-way in one linear pass.
//! Large merges are split by key ranges so that several threads merge
//! parts of the same inputs; consumed pieces are recycled.

use std::sync::Mutex;

use rayon::prelude::*;

use crate::agg::layout::StateLayout;

/// Rows per piece.
pub const PIECE_ROWS: usize = 8192;

/// A sorted vector of groups.
#[derive(Debug, Clone, Default)]
pub struct Groups {
    /// Words per row.
    pub stride: usize,
    /// Key words at the start of each row.
    pub kw: usize,
    /// The pieces, each holding whole rows, in key order.
    pub pieces: Vec<Vec<u64>>,
}

impl Groups {
    /// An empty vector.
    pub fn new(kw: usize, stride: usize) -> Groups {
        Groups {
            stride,
            kw,
            pieces: Vec::new(),
        }
    }

    /// Number of groups.
    pub fn len(&self) -> usize {
        self.pieces
            .iter()
            .map(|p| p.len() / self.stride.max(1))
            .sum()
    }

    /// True when there are no groups.
    pub fn is_empty(&self) -> bool {
        self.pieces.iter().all(|p| p.is_empty())
    }

    /// Appends a row (`stride` words), opening a new piece when needed. The
    /// first piece starts small and grows (a block of a few groups holds a
    /// few rows, not a whole piece).
    pub fn push(&mut self, row: &[u64], pool: &Pool) {
        let cap = PIECE_ROWS * self.stride;
        if self
            .pieces
            .last()
            .is_none_or(|p| p.len() + self.stride > cap)
        {
            let first = if self.pieces.is_empty() {
                (64 * self.stride).min(cap)
            } else {
                cap
            };
            self.pieces.push(pool.take(first));
        }
        if let Some(p) = self.pieces.last_mut() {
            p.extend_from_slice(row);
        }
    }

    /// All rows, in order.
    pub fn rows(&self) -> impl Iterator<Item = &[u64]> {
        let stride = self.stride.max(1);
        self.pieces.iter().flat_map(move |p| p.chunks_exact(stride))
    }
}

/// Recycled piece buffers.
#[derive(Debug, Default)]
pub struct Pool {
    free: Mutex<Vec<Vec<u64>>>,
}

impl Pool {
    /// An empty buffer with at least `cap` words of capacity.
    pub fn take(&self, cap: usize) -> Vec<u64> {
        let got = self.free.lock().ok().and_then(|mut f| f.pop());
        match got {
            Some(mut v) => {
                v.clear();
                v.reserve(cap);
                v
            }
            None => Vec::with_capacity(cap),
        }
    }

    /// Returns buffers for reuse.
    pub fn give(&self, bufs: impl IntoIterator<Item = Vec<u64>>) {
        if let Ok(mut f) = self.free.lock() {
            for b in bufs {
                if f.len() < 4096 {
                    f.push(b);
                }
            }
        }
    }
}

/// Position (piece, row) of row number `row`.
fn locate(s: &[&[u64]], stride: usize, mut row: usize) -> (usize, usize) {
    for (i, p) in s.iter().enumerate() {
        let n = p.len() / stride;
        if row < n {
            return (i, row);
        }
        row -= n;
    }
    (s.len(), 0)
}

/// Position (piece, row) of the first row whose key is `>= key`.
fn lower_bound(s: &[&[u64]], stride: usize, kw: usize, key: &[u64]) -> (usize, usize) {
    // Pieces are sorted: find the first piece whose last key is >= key.
    let pi = s.partition_point(|p| {
        let n = p.len() / stride;
        n == 0 || p[(n - 1) * stride..(n - 1) * stride + kw] < *key
    });
    if pi == s.len() {
        return (s.len(), 0);
    }
    let p = s[pi];
    let n = p.len() / stride;
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if p[mid * stride..mid * stride + kw] < *key {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    (pi, lo)
}

fn slice_range<'a>(
    s: &[&'a [u64]],
    stride: usize,
    from: (usize, usize),
    to: (usize, usize),
) -> Vec<&'a [u64]> {
    let mut out = Vec::new();
    for (i, p) in s.iter().enumerate().take(to.0 + 1).skip(from.0) {
        let start = if i == from.0 { from.1 * stride } else { 0 };
        let end = if i == to.0 { to.1 * stride } else { p.len() };
        if start < end {
            out.push(&p[start..end]);
        }
    }
    out
}

/// Merges many sorted vectors in one pass: the key space is cut at
/// splitters sampled from the inputs, every input is split at the same keys,
/// and the ranges are merged k-way in parallel, each into its own pieces.
/// Every row is copied once, whatever the number of inputs.
pub fn merge_all(
    parts: Vec<Groups>,
    layout: &StateLayout,
    pool: &Pool,
    kw: usize,
    stride: usize,
) -> Groups {
    let mut parts: Vec<Groups> = parts.into_iter().filter(|g| !g.is_empty()).collect();
    match parts.len() {
        0 => return Groups::new(kw, stride),
        1 => return parts.pop().unwrap_or_else(|| Groups::new(kw, stride)),
        _ => {}
    }
    let total: usize = parts.iter().map(Groups::len).sum();
    let threads = rayon::current_num_threads();
    let ranges = (total / (4 * PIECE_ROWS)).clamp(1, 8 * threads);
    let lists: Vec<Vec<&[u64]>> = parts
        .iter()
        .map(|g| g.pieces.iter().map(|p| p.as_slice()).collect())
        .collect();
    // Splitters: evenly spaced keys of every input, sorted, then every
    // `ranges`-th of them.
    let mut samples: Vec<&[u64]> = Vec::new();
    for l in &lists {
        let n: usize = l.iter().map(|p| p.len() / stride).sum();
        for k in 1..ranges {
            let (pi, ri) = locate(l, stride, n * k / ranges);
            if let Some(p) = l.get(pi) {
                samples.push(&p[ri * stride..ri * stride + kw]);
            }
        }
    }
    samples.sort_unstable();
    let mut splitters: Vec<&[u64]> = (1..ranges)
        .filter_map(|k| samples.get(samples.len() * k / ranges).copied())
        .collect();
    splitters.dedup();
    let bounds: Vec<Vec<(usize, usize)>> = lists
        .iter()
        .map(|l| {
            let mut b = vec![(0usize, 0usize)];
            b.extend(splitters.iter().map(|s| lower_bound(l, stride, kw, s)));
            b.push((l.len(), 0));
            b
        })
        .collect();
    let jobs: Vec<Vec<Vec<&[u64]>>> = (0..=splitters.len())
        .map(|r| {
            lists
                .iter()
                .zip(&bounds)
                .map(|(l, b)| slice_range(l, stride, b[r], b[r + 1]))
                .collect()
        })
        .collect();
    let outs: Vec<Vec<Vec<u64>>> = jobs
        .par_iter()
        .map(|inputs| merge_k(inputs, kw, stride, layout, pool))
        .collect();
    drop(jobs);
    drop(lists);
    for g in parts {
        pool.give(g.pieces);
    }
    Groups {
        stride,
        kw,
        pieces: outs.into_iter().flatten().collect(),
    }
}

/// Merges k sorted lists of row slices into new pieces; rows with equal
/// keys are combined. Keys of up to 4 words are compared as arrays copied
/// into the heap, so its comparisons touch neither the rows nor a length.
fn merge_k(
    inputs: &[Vec<&[u64]>],
    kw: usize,
    stride: usize,
    layout: &StateLayout,
    pool: &Pool,
) -> Vec<Vec<u64>> {
    fn array<const K: usize>(row: &[u64]) -> [u64; K] {
        let mut k = [0u64; K];
        k.copy_from_slice(&row[..K]);
        k
    }
    match kw {
        1 => merge_k_by(inputs, kw, stride, layout, pool, array::<1>),
        2 => merge_k_by(inputs, kw, stride, layout, pool, array::<2>),
        3 => merge_k_by(inputs, kw, stride, layout, pool, array::<3>),
        4 => merge_k_by(inputs, kw, stride, layout, pool, array::<4>),
        _ => merge_k_by(inputs, kw, stride, layout, pool, |row| &row[..kw]),
    }
}

/// [`merge_k`] with the keys of rows (their first `kw` words) given by `key`.
fn merge_k_by<'a, K: Ord + Copy>(
    inputs: &[Vec<&'a [u64]>],
    kw: usize,
    stride: usize,
    layout: &StateLayout,
    pool: &Pool,
    key: impl Fn(&'a [u64]) -> K,
) -> Vec<Vec<u64>> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let cap = PIECE_ROWS * stride;
    let mut out: Vec<Vec<u64>> = Vec::new();
    let mut cur = pool.take(cap);
    let mut iters: Vec<_> = inputs
        .iter()
        .map(|l| l.iter().flat_map(move |p| p.chunks_exact(stride)))
        .collect();
    // The row each input is at, and the heap of their keys.
    let mut at: Vec<&[u64]> = Vec::with_capacity(iters.len());
    let mut heap: BinaryHeap<Reverse<(K, usize)>> = BinaryHeap::with_capacity(iters.len());
    for (i, it) in iters.iter_mut().enumerate() {
        let first = it.next();
        if let Some(r) = first {
            heap.push(Reverse((key(r), i)));
        }
        at.push(first.unwrap_or(&[]));
    }
    // The key of the last row written and where it starts in `cur`.
    let mut last: Option<(K, usize)> = None;
    while let Some(mut top) = heap.peek_mut() {
        let Reverse((k, i)) = *top;
        let row = at[i];
        match last {
            Some((lk, pos)) if lk == k => {
                layout.combine(&mut cur[pos + kw..pos + stride], &row[kw..]);
            }
            _ => {
                if cur.len() + stride > cap {
                    out.push(std::mem::replace(&mut cur, pool.take(cap)));
                }
                last = Some((k, cur.len()));
                cur.extend_from_slice(row);
            }
        }
        match iters[i].next() {
            Some(next) => {
                at[i] = next;
                *top = Reverse((key(next), i));
            }
            None => {
                std::collections::binary_heap::PeekMut::pop(top);
            }
        }
    }
    if cur.is_empty() {
        pool.give([cur]);
    } else {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn groups_of(keys: &[u64]) -> Groups {
        groups_of_width(keys, 1)
    }

    /// Groups keyed by `kw` words (`key`, then `kw - 1` words derived
    /// from it), each with a count of 1.
    fn groups_of_width(keys: &[u64], kw: usize) -> Groups {
        let pool = Pool::default();
        let mut g = Groups::new(kw, kw + 1);
        for &k in keys {
            let mut row: Vec<u64> = (0..kw as u64).map(|w| k / 7 + w * (k % 7)).collect();
            row[kw - 1] = k;
            row.push(1);
            g.push(&row, &pool);
        }
        g
    }

    fn oracle(inputs: &[Vec<u64>]) -> Vec<(u64, u64)> {
        let mut m = std::collections::BTreeMap::new();
        for v in inputs {
            for &k in v {
                *m.entry(k).or_insert(0u64) += 1;
            }
        }
        m.into_iter().collect()
    }

    fn check(inputs: Vec<Vec<u64>>) {
        let layout = StateLayout::new(&[], 0).unwrap_or_else(|_| unreachable!());
        let pool = Pool::default();
        let parts: Vec<Groups> = inputs.iter().map(|v| groups_of(v)).collect();
        let merged = merge_all(parts, &layout, &pool, 1, 2);
        let got: Vec<(u64, u64)> = merged.rows().map(|r| (r[0], r[1])).collect();
        assert_eq!(got, oracle(&inputs));
        for p in &merged.pieces {
            assert!(p.len() <= PIECE_ROWS * 2 && !p.is_empty());
        }
    }

    /// Every key width (the fixed-width merges and the general one) gives
    /// the sorted union with summed counts.
    #[test]
    fn merges_keys_of_every_width() {
        let layout = StateLayout::new(&[], 0).unwrap_or_else(|_| unreachable!());
        let pool = Pool::default();
        let inputs: Vec<Vec<u64>> = (0..5u64)
            .map(|b| (0..9000u64).map(|i| i * (b + 2) % 20_011).collect())
            .collect();
        for kw in 1..=6 {
            let parts: Vec<Groups> = inputs
                .iter()
                .map(|v| {
                    let mut rows: Vec<Vec<u64>> =
                        groups_of_width(v, kw).rows().map(|r| r.to_vec()).collect();
                    rows.sort();
                    rows.dedup_by(|a, b| a[..kw] == b[..kw]);
                    let mut g = Groups::new(kw, kw + 1);
                    for r in rows {
                        g.push(&r, &pool);
                    }
                    g
                })
                .collect();
            let mut want: std::collections::BTreeMap<Vec<u64>, u64> = Default::default();
            for p in &parts {
                for r in p.rows() {
                    *want.entry(r[..kw].to_vec()).or_default() += r[kw];
                }
            }
            let merged = merge_all(parts, &layout, &pool, kw, kw + 1);
            let got: Vec<(Vec<u64>, u64)> =
                merged.rows().map(|r| (r[..kw].to_vec(), r[kw])).collect();
            assert_eq!(got, want.into_iter().collect::<Vec<_>>(), "kw = {kw}");
        }
    }

    #[test]
    fn merges_at_piece_boundaries() {
        for n in [0usize, 1, 8191, 8192, 8193, 3 * 8192 + 5] {
            let a: Vec<u64> = (0..n as u64).map(|i| i * 2).collect();
            let b: Vec<u64> = (0..n as u64).map(|i| i * 3).collect();
            check(vec![a.clone(), b.clone()]);
            check(vec![a.clone()]);
            check(vec![a, vec![], b]);
        }
    }

    #[test]
    fn merges_many_blocks_in_parallel() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build();
        let Ok(pool) = pool else { return };
        pool.install(|| {
            let inputs: Vec<Vec<u64>> = (0..13u64)
                .map(|b| (0..20_000u64).map(|i| i * (b % 5 + 1) + b).collect())
                .collect();
            let mut inputs = inputs;
            for v in &mut inputs {
                v.sort_unstable();
                v.dedup();
            }
            check(inputs);
        });
    }
}

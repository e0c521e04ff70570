//! Partitions in order: the input's rows arranged partition by partition,
//! each partition in its ORDER BY order, with where partitions and peer
//! groups (rows equal in every ORDER BY key) begin.
//!
//! Rows are compared through normalized keys: per key column one or two
//! `u64` words whose unsigned order is the column's SQL order (a NULL
//! word first where the column has NULLs, DESC by flipping the bits;
//! `-0.0` and `0.0`, and all NaNs, get one word). Strings contribute their
//! first eight bytes and are compared in full when those are equal.
//!
//! With PARTITION BY, rows are first spread over hash buckets by their
//! partition keys (a counting sort), then each bucket is sorted by
//! (partition keys, order keys), buckets in parallel: a partition lies
//! within one bucket and comes out contiguous. Without PARTITION BY the
//! one partition is sorted by its order keys (a parallel sort).

use std::cmp::Ordering;

use rayon::prelude::*;
use strata_format::types::float_key;

use crate::value::{Data, Vector};

/// How the rows of one window order were arranged (EXPLAIN).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrangement {
    /// No PARTITION BY and no ORDER BY: one partition in input order.
    AsIs,
    /// No PARTITION BY: one partition, sorted in parallel.
    OneSorted,
    /// PARTITION BY: hash buckets, each sorted by partition and order keys,
    /// buckets in parallel.
    HashBuckets,
}

impl Arrangement {
    /// The arrangement for a window order.
    pub fn of(partitioned: bool, ordered: bool) -> Arrangement {
        match (partitioned, ordered) {
            (false, false) => Arrangement::AsIs,
            (false, true) => Arrangement::OneSorted,
            (true, _) => Arrangement::HashBuckets,
        }
    }

    /// Its name in EXPLAIN.
    pub fn name(self) -> &'static str {
        match self {
            Arrangement::AsIs => "one partition in input order",
            Arrangement::OneSorted => "one partition, parallel sort",
            Arrangement::HashBuckets => "hash buckets sorted by partition and order keys",
        }
    }
}

/// One key column of the sort.
pub struct KeyColumn<'a> {
    /// Its values (by input row).
    pub values: &'a Vector,
    /// Descending.
    pub desc: bool,
    /// NULLs first.
    pub nulls_first: bool,
}

/// The input rows in partition and peer order.
#[derive(Debug, Default)]
pub struct Sorted {
    /// Input row of each sorted position.
    pub perm: Vec<u32>,
    /// Partition `p` holds the sorted positions `bounds[p]..bounds[p + 1]`.
    pub bounds: Vec<usize>,
    /// Per sorted position: whether a peer group starts there (a partition
    /// start always does). Empty without ORDER BY: a partition's rows are
    /// all peers.
    pub peer_start: Vec<bool>,
}

/// The words of one column of normalized keys.
struct Encoded<'a> {
    values: &'a Vector,
    /// Words per row (1, or 2 with a NULL word).
    width: usize,
    /// Whether equal words still need the full values compared (strings,
    /// HUGEINTs).
    partial: bool,
    desc: bool,
}

impl Encoded<'_> {
    /// Writes the column's words of `rows` into `words` (rows of `w`
    /// words), starting at word `at` of each row.
    fn write(&self, rows: &[u32], words: &mut [u64], w: usize, at: usize, nulls_first: bool) {
        let flip = if self.desc { u64::MAX } else { 0 };
        // The value word of each row: `key` of its value.
        fn fill<T: Copy>(
            d: &[T],
            rows: &[u32],
            words: &mut [u64],
            w: usize,
            at: usize,
            key: impl Fn(T) -> u64,
        ) {
            for (row, &r) in words.chunks_exact_mut(w).zip(rows) {
                row[at] = key(d[r as usize]);
            }
        }
        let v = if self.width == 2 { at + 1 } else { at };
        match &self.values.data {
            Data::Bool(d) => fill(d, rows, words, w, v, |x| u64::from(x) ^ flip),
            Data::I64(d) => fill(d, rows, words, w, v, |x| (x as u64) ^ (1 << 63) ^ flip),
            Data::U64(d) => fill(d, rows, words, w, v, |x| x ^ flip),
            // The high word of an i128 orders values up to ties.
            Data::I128(d) => fill(d, rows, words, w, v, |x| {
                ((x >> 64) as u64) ^ (1 << 63) ^ flip
            }),
            Data::F64(d) => fill(d, rows, words, w, v, |x| {
                float_key(if x.is_nan() {
                    f64::NAN
                } else if x == 0.0 {
                    0.0
                } else {
                    x
                }) ^ flip
            }),
            Data::Str(d) => {
                for (row, &r) in words.chunks_exact_mut(w).zip(rows) {
                    let s = &d[r as usize];
                    let mut b = [0u8; 8];
                    let n = s.len().min(8);
                    b[..n].copy_from_slice(&s[..n]);
                    row[v] = u64::from_be_bytes(b) ^ flip;
                }
            }
        }
        if self.width == 2 {
            // Only columns with NULLs have a NULL word: it puts NULLs before
            // (0) or after (2) the values (1).
            let null = if nulls_first { 0 } else { 2 };
            for (row, &r) in words.chunks_exact_mut(w).zip(rows) {
                if self.values.is_null(r as usize) {
                    row[at] = null;
                    row[at + 1] = 0;
                } else {
                    row[at] = 1;
                }
            }
        }
    }
}

/// Normalized keys of the sort columns.
struct Keys<'a> {
    cols: Vec<Encoded<'a>>,
    nulls_first: Vec<bool>,
    /// Total words per row.
    width: usize,
    /// Words of the partition columns (a prefix).
    part_width: usize,
    /// Number of partition columns (a prefix of `cols`).
    part_cols: usize,
}

impl<'a> Keys<'a> {
    fn new(partition: &[&'a Vector], order: &[KeyColumn<'a>]) -> Keys<'a> {
        let mut cols = Vec::new();
        let mut nulls_first = Vec::new();
        let mut add = |v: &'a Vector, desc: bool, nf: bool| {
            let has_nulls = v.nulls.as_ref().is_some_and(|n| n.iter().any(|&x| x));
            cols.push(Encoded {
                values: v,
                width: if has_nulls { 2 } else { 1 },
                partial: matches!(v.data, Data::Str(_) | Data::I128(_)),
                desc,
            });
            nulls_first.push(nf);
        };
        for v in partition {
            add(v, false, false);
        }
        for k in order {
            add(k.values, k.desc, k.nulls_first);
        }
        let part_width = cols[..partition.len()].iter().map(|c| c.width).sum();
        let width = cols.iter().map(|c| c.width).sum();
        Keys {
            cols,
            nulls_first,
            width,
            part_width,
            part_cols: partition.len(),
        }
    }

    /// The words of `rows`, `width` per row.
    fn encode(&self, rows: &[u32]) -> Vec<u64> {
        let w = self.width;
        let mut words = vec![0u64; rows.len() * w];
        if w == 0 {
            return words;
        }
        let mut at = 0;
        for (c, &nf) in self.cols.iter().zip(&self.nulls_first) {
            c.write(rows, &mut words, w, at, nf);
            at += c.width;
        }
        words
    }

    /// Whether a full comparison is needed beyond the words.
    fn exact(&self) -> bool {
        !self.cols.iter().any(|c| c.partial)
    }

    /// Compares rows `a` and `b` (words `wa`, `wb`) by columns `cols`.
    fn cmp(
        &self,
        cols: std::ops::Range<usize>,
        a: usize,
        wa: &[u64],
        b: usize,
        wb: &[u64],
    ) -> Ordering {
        let mut at: usize = self.cols[..cols.start].iter().map(|c| c.width).sum();
        for c in &self.cols[cols] {
            let o = wa[at..at + c.width].cmp(&wb[at..at + c.width]);
            if o != Ordering::Equal {
                return o;
            }
            if c.partial && !c.values.is_null(a) {
                let o = full_cmp(c.values, a, b);
                let o = if c.desc { o.reverse() } else { o };
                if o != Ordering::Equal {
                    return o;
                }
            }
            at += c.width;
        }
        Ordering::Equal
    }
}

/// Compares non-NULL values `a` and `b` of a string or HUGEINT column.
fn full_cmp(v: &Vector, a: usize, b: usize) -> Ordering {
    match &v.data {
        Data::Str(d) => d[a].cmp(&d[b]),
        Data::I128(d) => d[a].cmp(&d[b]),
        _ => Ordering::Equal,
    }
}

/// Rows per hash bucket aimed at (a bucket's sort stays in cache).
const BUCKET_ROWS: usize = 4096;

/// Arranges `rows` input rows by `partition` keys and `order` keys.
pub fn arrange(partition: &[&Vector], order: &[KeyColumn], rows: usize) -> Sorted {
    if partition.is_empty() && order.is_empty() {
        return Sorted {
            perm: (0..rows as u32).collect(),
            bounds: if rows == 0 { vec![0] } else { vec![0, rows] },
            peer_start: Vec::new(),
        };
    }
    let keys = Keys::new(partition, order);
    let buckets: Vec<Vec<u32>> = if partition.is_empty() {
        vec![(0..rows as u32).collect()]
    } else {
        hash_buckets(partition, rows)
    };
    let ordered = !order.is_empty();
    // Each bucket sorted, with its partitions and peer starts.
    let parts: Vec<(Vec<u32>, Vec<usize>, Vec<bool>)> = buckets
        .into_par_iter()
        .map(|b| sort_bucket(&keys, b, ordered))
        .collect();
    let mut out = Sorted {
        perm: Vec::with_capacity(rows),
        bounds: vec![0],
        peer_start: Vec::with_capacity(if ordered { rows } else { 0 }),
    };
    for (perm, bounds, peers) in parts {
        let base = out.perm.len();
        out.perm.extend_from_slice(&perm);
        out.bounds.extend(bounds.iter().skip(1).map(|b| b + base));
        out.peer_start.extend_from_slice(&peers);
    }
    if rows == 0 {
        out.bounds = vec![0];
    }
    out
}

/// The rows spread over buckets by a hash of their partition keys.
fn hash_buckets(partition: &[&Vector], rows: usize) -> Vec<Vec<u32>> {
    let nb = (rows / BUCKET_ROWS).next_power_of_two().clamp(1, 1 << 14);
    if nb == 1 {
        return vec![(0..rows as u32).collect()];
    }
    let shift = 64 - nb.trailing_zeros();
    // Hashes of the key columns, combined column by column, in parallel
    // chunks of rows.
    let mut hashes = vec![0u64; rows];
    hashes
        .par_chunks_mut(1 << 16)
        .enumerate()
        .for_each(|(k, chunk)| {
            let start = k << 16;
            for v in partition {
                hash_column(v, start, chunk);
            }
        });
    let mut counts = vec![0usize; nb];
    for &h in &hashes {
        counts[(h >> shift) as usize] += 1;
    }
    let mut buckets: Vec<Vec<u32>> = counts.iter().map(|&c| Vec::with_capacity(c)).collect();
    for (r, &h) in hashes.iter().enumerate() {
        buckets[(h >> shift) as usize].push(r as u32);
    }
    buckets.retain(|b| !b.is_empty());
    buckets
}

/// Mixes the values of rows `start..start + hashes.len()` of `v` into
/// `hashes`: equal values (as grouping compares them: NULLs equal, `-0.0`
/// and `0.0` equal, all NaNs equal) mix in alike.
fn hash_column(v: &Vector, start: usize, hashes: &mut [u64]) {
    #[inline]
    fn mix(h: u64, x: u64) -> u64 {
        // One multiply-xorshift round (the high bits pick the bucket).
        let m = (h.rotate_left(26) ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        m ^ (m >> 29)
    }
    let end = start + hashes.len();
    // NULLs all alike, whatever their slots hold: mixed from the hash
    // before this column.
    let before = v.nulls.as_ref().map(|_| hashes.to_vec());
    match &v.data {
        Data::Bool(d) => {
            for (h, &x) in hashes.iter_mut().zip(&d[start..end]) {
                *h = mix(*h, u64::from(x));
            }
        }
        Data::I64(d) => {
            for (h, &x) in hashes.iter_mut().zip(&d[start..end]) {
                *h = mix(*h, x as u64);
            }
        }
        Data::U64(d) => {
            for (h, &x) in hashes.iter_mut().zip(&d[start..end]) {
                *h = mix(*h, x);
            }
        }
        Data::I128(d) => {
            for (h, &x) in hashes.iter_mut().zip(&d[start..end]) {
                *h = mix(mix(*h, x as u64), (x >> 64) as u64);
            }
        }
        Data::F64(d) => {
            for (h, &x) in hashes.iter_mut().zip(&d[start..end]) {
                let bits = if x.is_nan() {
                    f64::NAN.to_bits()
                } else if x == 0.0 {
                    0
                } else {
                    x.to_bits()
                };
                *h = mix(*h, bits);
            }
        }
        Data::Str(d) => {
            use std::hash::BuildHasher;
            let st = foldhash::fast::FixedState::with_seed(0x5eed);
            for (h, x) in hashes
                .iter_mut()
                .zip(d.iter().skip(start).take(end - start))
            {
                *h = mix(*h, st.hash_one(x));
            }
        }
    }
    if let (Some(nulls), Some(before)) = (&v.nulls, before) {
        for (i, h) in hashes.iter_mut().enumerate() {
            if nulls[start + i] {
                *h = mix(before[i], 0x6e75_6c6c);
            }
        }
    }
}

/// Whether two rows' words are equal.
#[inline]
fn same(a: &[u64], b: &[u64]) -> bool {
    a.iter().zip(b).all(|(x, y)| x == y)
}

/// Sorts positions `0..n` by their words (`w` per row), ties by position.
fn sort_exact(words: &[u64], w: usize, n: usize) -> Vec<u32> {
    match w {
        1 => sort_words::<1>(words, n),
        2 => sort_words::<2>(words, n),
        3 => sort_words::<3>(words, n),
        4 => sort_words::<4>(words, n),
        _ => sort_positions(n, |a, b| {
            words[a * w..a * w + w]
                .cmp(&words[b * w..b * w + w])
                .then(a.cmp(&b))
        }),
    }
}

/// Positions `0..n` sorted by `cmp` (in parallel when there are many).
fn sort_positions(n: usize, cmp: impl Fn(usize, usize) -> Ordering + Sync) -> Vec<u32> {
    let mut idx: Vec<u32> = (0..n as u32).collect();
    let by = |a: &u32, b: &u32| cmp(*a as usize, *b as usize);
    if n >= 1 << 16 {
        idx.par_sort_unstable_by(by);
    } else {
        idx.sort_unstable_by(by);
    }
    idx
}

/// [`sort_exact`] for `W` words per row: (words, position) pairs sorted
/// as plain values.
fn sort_words<const W: usize>(words: &[u64], n: usize) -> Vec<u32> {
    let mut pairs: Vec<([u64; W], u32)> = words
        .chunks_exact(W)
        .zip(0u32..)
        .map(|(c, i)| {
            let mut k = [0u64; W];
            k.copy_from_slice(c);
            (k, i)
        })
        .collect();
    if n >= 1 << 16 {
        pairs.par_sort_unstable();
    } else {
        pairs.sort_unstable();
    }
    pairs.into_iter().map(|(_, i)| i).collect()
}

/// One bucket's rows sorted, its partition bounds (from 0, local) and
/// peer starts.
fn sort_bucket(keys: &Keys, rows: Vec<u32>, ordered: bool) -> (Vec<u32>, Vec<usize>, Vec<bool>) {
    let n = rows.len();
    let w = keys.width;
    let words = keys.encode(&rows);
    let exact = keys.exact();
    let idx = if exact {
        sort_exact(&words, w, n)
    } else {
        sort_positions(n, |a, b| {
            let (wa, wb) = (&words[a * w..a * w + w], &words[b * w..b * w + w]);
            keys.cmp(
                0..keys.cols.len(),
                rows[a] as usize,
                wa,
                rows[b] as usize,
                wb,
            )
            .then(a.cmp(&b))
        })
    };
    // Partition and peer boundaries between neighbours.
    let pc = keys.part_cols;
    let pw = keys.part_width;
    let mut bounds = vec![0];
    let mut peers = Vec::with_capacity(if ordered { n } else { 0 });
    for j in 0..n {
        let (new_part, new_peer) = if j == 0 {
            (false, true)
        } else {
            let (a, b) = (idx[j - 1] as usize, idx[j] as usize);
            let (wa, wb) = (&words[a * w..a * w + w], &words[b * w..b * w + w]);
            if exact {
                let part = !same(&wa[..pw], &wb[..pw]);
                (part, part || (ordered && !same(&wa[pw..], &wb[pw..])))
            } else {
                let (ra, rb) = (rows[a] as usize, rows[b] as usize);
                let part = keys.cmp(0..pc, ra, wa, rb, wb) != Ordering::Equal;
                let peer = part
                    || (ordered
                        && keys.cmp(pc..keys.cols.len(), ra, wa, rb, wb) != Ordering::Equal);
                (part, peer)
            }
        };
        if new_part {
            bounds.push(j);
        }
        if ordered {
            peers.push(new_peer);
        }
    }
    bounds.push(n);
    let perm = idx.into_iter().map(|i| rows[i as usize]).collect();
    (perm, bounds, peers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{LType, Value};

    fn v(ty: LType, vals: &[Value]) -> Vector {
        let mut out = Vector::empty(ty, vals.len());
        for x in vals {
            out.push(x);
        }
        out
    }

    #[test]
    fn partitions_come_out_contiguous_and_ordered() {
        let p = v(
            LType::Varchar,
            &[
                Value::Str(b"b".to_vec()),
                Value::Null,
                Value::Str(b"a".to_vec()),
                Value::Str(b"b".to_vec()),
                Value::Null,
                Value::Str(b"a".to_vec()),
            ],
        );
        let o = v(
            LType::Double,
            &[
                Value::Float(2.0),
                Value::Float(-0.0),
                Value::Null,
                Value::Float(1.0),
                Value::Float(0.0),
                Value::Float(f64::NAN),
            ],
        );
        let keys = [KeyColumn {
            values: &o,
            desc: false,
            nulls_first: false,
        }];
        let s = arrange(&[&p], &keys, 6);
        assert_eq!(s.bounds.len(), 4, "{s:?}");
        // Every partition's rows share a key and are in order.
        for w in s.bounds.windows(2) {
            let rows: Vec<usize> = s.perm[w[0]..w[1]].iter().map(|&r| r as usize).collect();
            assert!(rows.iter().all(|&r| p.get(r) == p.get(rows[0])));
            assert!(s.peer_start[w[0]]);
            if p.get(rows[0]) == Value::Null {
                // -0.0 and 0.0 are peers.
                assert_eq!(rows.len(), 2);
                assert!(!s.peer_start[w[0] + 1]);
            }
            if p.get(rows[0]) == Value::Str(b"a".to_vec()) {
                // NaN before NULL (NULLS LAST).
                assert_eq!(rows, vec![5, 2]);
            }
        }
    }

    #[test]
    fn many_buckets_keep_each_partition_whole() {
        // NULL keys whose slots hold different values are one partition.
        let n = 5 * BUCKET_ROWS + 7;
        let mut d = Vec::new();
        let mut nulls = Vec::new();
        for i in 0..n as i64 {
            d.push(if i % 11 == 0 { i } else { i % 53 });
            nulls.push(i % 11 == 0);
        }
        let k = Vector {
            ty: LType::Int64,
            data: Data::I64(d),
            nulls: Some(nulls),
        };
        let s = arrange(&[&k], &[], n);
        assert_eq!(s.bounds.len(), 53 + 2, "52 or 53 values and NULL");
        let mut seen = std::collections::HashSet::new();
        for w in s.bounds.windows(2) {
            let first = k.get(s.perm[w[0]] as usize);
            assert!(s.perm[w[0]..w[1]]
                .iter()
                .all(|&r| k.get(r as usize) == first));
            assert!(seen.insert(format!("{first:?}")), "{first:?} split");
        }
        let mut perm = s.perm.clone();
        perm.sort_unstable();
        assert_eq!(perm, (0..n as u32).collect::<Vec<_>>());
    }

    #[test]
    fn one_partition_sorts_descending_with_nulls_first() {
        let o = v(
            LType::Varchar,
            &[
                Value::Str(b"abcdefghij".to_vec()),
                Value::Null,
                Value::Str(b"abcdefghiz".to_vec()),
                Value::Str(b"abcdefghij".to_vec()),
            ],
        );
        let keys = [KeyColumn {
            values: &o,
            desc: true,
            nulls_first: true,
        }];
        let s = arrange(&[], &keys, 4);
        assert_eq!(s.perm, vec![1, 2, 0, 3]);
        assert_eq!(s.peer_start, vec![true, true, true, false]);
        assert_eq!(s.bounds, vec![0, 4]);
    }
}

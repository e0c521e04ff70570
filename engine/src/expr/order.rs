//! ORDER BY and LIMIT over result rows: a comparator over typed vectors and
//! a top-N selection that sorts only the rows that can still be returned.

use std::cmp::Ordering;

use crate::value::{Data, Vector};

/// One sort key's values with its direction.
pub struct SortKey<'a> {
    /// The values.
    pub values: &'a Vector,
    /// Descending.
    pub desc: bool,
    /// NULLs first.
    pub nulls_first: bool,
}

/// Compares non-NULL values `i` and `j` of a vector.
#[inline]
pub fn cmp_values(v: &Vector, i: usize, j: usize) -> Ordering {
    match &v.data {
        Data::Bool(d) => d[i].cmp(&d[j]),
        Data::I64(d) => d[i].cmp(&d[j]),
        Data::U64(d) => d[i].cmp(&d[j]),
        Data::I128(d) if v.ty == crate::value::LType::Interval => {
            crate::interval::total(d[i]).cmp(&crate::interval::total(d[j]))
        }
        Data::I128(d) => d[i].cmp(&d[j]),
        // -0.0 equals 0.0; NaN is the largest value.
        Data::F64(d) => crate::value::cmp_f64(d[i], d[j]),
        Data::Str(d) => d[i].cmp(&d[j]),
    }
}

/// Compares rows `i` and `j` by one key (NULLs placed as it says).
#[inline]
fn cmp_key(k: &SortKey, i: usize, j: usize) -> Ordering {
    match (k.values.is_null(i), k.values.is_null(j)) {
        (true, true) => Ordering::Equal,
        (true, false) => {
            if k.nulls_first {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        }
        (false, true) => {
            if k.nulls_first {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
        (false, false) => {
            let o = cmp_values(k.values, i, j);
            if k.desc {
                o.reverse()
            } else {
                o
            }
        }
    }
}

fn cmp_rows(keys: &[SortKey], i: usize, j: usize) -> Ordering {
    for k in keys {
        let o = cmp_key(k, i, j);
        if o != Ordering::Equal {
            return o;
        }
    }
    i.cmp(&j)
}

/// The rows of `idx` that can be among the first `keep` rows of any sort
/// whose first key is `first`: those ranking in the first `keep` by it, and
/// every row tied with the last of them. The later keys then need to be
/// computed at these rows only. Order is not preserved.
pub fn leading_candidates(first: &SortKey, mut idx: Vec<usize>, keep: usize) -> Vec<usize> {
    if keep == 0 {
        return Vec::new();
    }
    if keep >= idx.len() {
        return idx;
    }
    idx.select_nth_unstable_by(keep - 1, |&a, &b| cmp_key(first, a, b));
    let last = idx[keep - 1];
    let (mut head, tail) = (idx[..keep].to_vec(), &idx[keep..]);
    head.extend(
        tail.iter()
            .filter(|&&r| cmp_key(first, r, last) == Ordering::Equal),
    );
    head
}

/// The row indexes `idx` in sort order; with `keep`, only the first `keep`
/// (found by selection, then sorted).
pub fn sort_indices(keys: &[SortKey], mut idx: Vec<usize>, keep: Option<usize>) -> Vec<usize> {
    if keys.is_empty() {
        if let Some(k) = keep {
            idx.truncate(k);
        }
        return idx;
    }
    if let Some(k) = keep {
        if k == 0 {
            return Vec::new();
        }
        if k < idx.len() {
            idx.select_nth_unstable_by(k - 1, |&a, &b| cmp_rows(keys, a, b));
            idx.truncate(k);
        }
    }
    idx.sort_unstable_by(|&a, &b| cmp_rows(keys, a, b));
    idx
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{LType, Value};

    #[test]
    fn top_n_matches_full_sort() {
        let mut v = Vector::empty(LType::Int64, 100);
        for i in 0..100i64 {
            if i % 7 == 0 {
                v.push(&Value::Null);
            } else {
                v.push(&Value::Int((i * 37) % 11));
            }
        }
        for desc in [false, true] {
            for nulls_first in [false, true] {
                let keys = [SortKey {
                    values: &v,
                    desc,
                    nulls_first,
                }];
                let full = sort_indices(&keys, (0..100).collect(), None);
                for k in [0, 1, 5, 50, 100, 200] {
                    let top = sort_indices(&keys, (0..100).collect(), Some(k));
                    assert_eq!(top, full[..k.min(100)].to_vec());
                }
                let first = full[0];
                assert_eq!(v.is_null(first), nulls_first);
            }
        }
    }

    #[test]
    fn leading_candidates_hold_the_top_rows_and_their_ties() {
        // Key a has many ties; key b breaks them. The top k by (a, b) must be
        // the top k of the candidates by (a, b), and every candidate must rank
        // no worse than the k-th row by a.
        let (mut a, mut b) = (
            Vector::empty(LType::Int64, 60),
            Vector::empty(LType::Int64, 60),
        );
        for i in 0..60i64 {
            a.push(&if i % 13 == 0 {
                Value::Null
            } else {
                Value::Int(i % 5)
            });
            b.push(&Value::Int((i * 7919) % 61));
        }
        for desc in [false, true] {
            for nulls_first in [false, true] {
                let keys = [
                    SortKey {
                        values: &a,
                        desc,
                        nulls_first,
                    },
                    SortKey {
                        values: &b,
                        desc: false,
                        nulls_first: false,
                    },
                ];
                let full = sort_indices(&keys, (0..60).collect(), None);
                for k in [0usize, 1, 3, 12, 13, 59, 60, 70] {
                    let cand = leading_candidates(&keys[0], (0..60).collect(), k);
                    let top = sort_indices(&keys, cand.clone(), Some(k));
                    assert_eq!(top, full[..k.min(60)].to_vec(), "k = {k}");
                    if (1..60).contains(&k) {
                        let kth = full[k - 1];
                        assert!(cand
                            .iter()
                            .all(|&r| cmp_key(&keys[0], r, kth) != Ordering::Greater));
                    }
                }
            }
        }
    }
}

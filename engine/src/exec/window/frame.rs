//! Frames: for each row of a partition, the rows a framed function sees,
//! as positions within the partition (its rows in ORDER BY order).
//!
//! ROWS counts rows, GROUPS counts peer groups, RANGE compares ORDER BY
//! values with the row's value minus or plus the offset (bound in the
//! plan as an expression per row). A row whose RANGE value is NULL sees
//! its peers (the other NULLs) where an offset bound would be. EXCLUDE
//! then cuts the current row, its peer group, or its peers but itself out
//! of the frame, leaving at most three pieces.

use std::cmp::Ordering;

use crate::error::{EngineError, Result};
use crate::plan::window::{Exclude, FrameUnits};
use crate::value::{cmp_f64, Data, Vector};

/// A partition's rows and peer groups.
#[derive(Debug, Clone, Copy)]
pub struct Part<'a> {
    /// The partition's first sorted position.
    pub base: usize,
    /// Its rows.
    pub n: usize,
    /// Peer group `g` holds rows `groups[g]..groups[g + 1]` (local).
    pub groups: &'a [usize],
    /// Each row's peer group.
    pub group_of: &'a [u32],
}

/// Consecutive partitions with their peer groups, in one allocation.
#[derive(Debug, Default)]
pub struct Parts {
    /// Per partition: first sorted position, rows, and where its groups
    /// start in `groups`.
    spans: Vec<(usize, usize, usize)>,
    groups: Vec<usize>,
    group_of: Vec<u32>,
}

impl Parts {
    /// Partitions `range` of `bounds` (partition `p` holds sorted positions
    /// `bounds[p]..bounds[p + 1]`); `peer_start` (by sorted position) marks
    /// where peer groups begin, empty when all rows of a partition are
    /// peers.
    pub fn new(bounds: &[usize], range: std::ops::Range<usize>, peer_start: &[bool]) -> Parts {
        let first = bounds[range.start];
        let rows = bounds[range.end] - first;
        let mut out = Parts {
            spans: Vec::with_capacity(range.len()),
            groups: Vec::with_capacity(if peer_start.is_empty() {
                2 * range.len()
            } else {
                rows + range.len()
            }),
            group_of: Vec::with_capacity(rows),
        };
        for p in range {
            let (base, n) = (bounds[p], bounds[p + 1] - bounds[p]);
            let g0 = out.groups.len();
            if peer_start.is_empty() {
                out.groups.push(0);
                out.group_of.extend(std::iter::repeat_n(0, n));
            } else {
                for i in 0..n {
                    if i == 0 || peer_start[base + i] {
                        out.groups.push(i);
                    }
                    out.group_of.push((out.groups.len() - g0 - 1) as u32);
                }
            }
            if n > 0 {
                out.groups.push(n);
            } else {
                out.groups.truncate(g0);
                out.groups.push(0);
            }
            out.spans.push((base, n, g0));
        }
        out
    }

    /// The partitions in order.
    pub fn iter(&self) -> impl Iterator<Item = Part<'_>> {
        let mut row = 0;
        self.spans
            .iter()
            .enumerate()
            .map(move |(k, &(base, n, g0))| {
                let g1 = self
                    .spans
                    .get(k + 1)
                    .map_or(self.groups.len(), |&(_, _, next)| next);
                let part = Part {
                    base,
                    n,
                    groups: &self.groups[g0..g1],
                    group_of: &self.group_of[row..row + n],
                };
                row += n;
                part
            })
    }
}

impl Part<'_> {
    /// Row `i`'s peers: `(first, end)`.
    #[inline]
    pub fn peers(&self, i: usize) -> (usize, usize) {
        let g = self.group_of[i] as usize;
        (self.groups[g], self.groups[g + 1])
    }

    /// The number of peer groups.
    pub fn num_groups(&self) -> usize {
        self.groups.len() - 1
    }
}

/// An offset's values: one for all rows, or one per sorted position.
pub enum Count {
    /// The same for every row.
    Const(i64),
    /// Per sorted position (BIGINT).
    PerRow(Vector),
}

/// What one end of a frame is, with its evaluated offset.
pub enum End {
    /// UNBOUNDED PRECEDING.
    UnboundedPreceding,
    /// `n PRECEDING`; for RANGE, the boundary values per sorted position.
    Preceding(Count, Option<Vector>),
    /// CURRENT ROW.
    CurrentRow,
    /// `n FOLLOWING`.
    Following(Count, Option<Vector>),
    /// UNBOUNDED FOLLOWING.
    UnboundedFollowing,
}

/// A frame specification with its values, ready to place frames.
pub struct FrameData {
    /// What offsets count.
    pub units: FrameUnits,
    /// The first row.
    pub start: End,
    /// The last row.
    pub end: End,
    /// Rows left out.
    pub exclude: Exclude,
    /// RANGE with offsets: the ORDER BY values per sorted position, their
    /// direction and NULL placement.
    pub range: Option<(Vector, bool, bool)>,
}

/// Up to three disjoint pieces of a frame, in order (local positions).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pieces {
    ranges: [(usize, usize); 3],
    len: usize,
}

impl Pieces {
    /// One range (empty when `s >= e`).
    pub fn one(s: usize, e: usize) -> Pieces {
        let mut p = Pieces::default();
        p.push(s, e);
        p
    }

    fn push(&mut self, s: usize, e: usize) {
        if s < e {
            self.ranges[self.len] = (s, e);
            self.len += 1;
        }
    }

    /// The non-empty ranges.
    pub fn ranges(&self) -> &[(usize, usize)] {
        &self.ranges[..self.len]
    }

    /// The rows in all.
    pub fn count(&self) -> usize {
        self.ranges().iter().map(|(s, e)| e - s).sum()
    }

    /// The `k`-th row (from 0), if there is one.
    pub fn nth(&self, mut k: usize) -> Option<usize> {
        for &(s, e) in self.ranges() {
            if k < e - s {
                return Some(s + k);
            }
            k -= e - s;
        }
        None
    }
}

impl FrameData {
    /// The offset `n` of an end at sorted position `pos`, checked.
    fn count(&self, c: &Count, pos: usize, what: &str) -> Result<i64> {
        let n = match c {
            Count::Const(n) => Some(*n),
            Count::PerRow(v) => match (&v.data, v.is_null(pos)) {
                (_, true) => None,
                (Data::I64(d), false) => Some(d[pos]),
                _ => return Err(EngineError::Internal("frame offset type".into())),
            },
        };
        let units = self.units.keyword();
        match n {
            None => Err(EngineError::Runtime(format!(
                "Window {units} {what} expression cannot be NULL"
            ))),
            Some(n) if n < 0 => Err(EngineError::Runtime(format!(
                "Window {units} {what} expression cannot be negative"
            ))),
            Some(n) => Ok(n),
        }
    }

    /// Row `i`'s frame before exclusion: `(start, end)`, empty when
    /// `start >= end`.
    pub fn frame(&self, p: &Part<'_>, i: usize, nn: (usize, usize)) -> Result<(usize, usize)> {
        Ok((
            self.place(p, i, &self.start, true, nn)?,
            self.place(p, i, &self.end, false, nn)?,
        ))
    }

    /// Where an end of row `i`'s frame falls: the first row of the frame
    /// (`start`), or the row after its last.
    fn place(
        &self,
        p: &Part,
        i: usize,
        end: &End,
        start: bool,
        nn: (usize, usize),
    ) -> Result<usize> {
        let n = p.n;
        let pos = p.base + i;
        Ok(match end {
            End::UnboundedPreceding => 0,
            End::UnboundedFollowing => n,
            End::CurrentRow => match self.units {
                FrameUnits::Rows => i + usize::from(!start),
                _ => {
                    let (a, b) = p.peers(i);
                    if start {
                        a
                    } else {
                        b
                    }
                }
            },
            End::Preceding(c, bound) | End::Following(c, bound) => {
                let preceding = matches!(end, End::Preceding(..));
                let what = if preceding { "PRECEDING" } else { "FOLLOWING" };
                match self.units {
                    FrameUnits::Rows => {
                        let k = self.count(c, pos, what)?;
                        let k = usize::try_from(k).unwrap_or(usize::MAX);
                        // The frame's first row, or its last plus one.
                        let at = if preceding {
                            i.checked_sub(k)
                        } else {
                            i.checked_add(k).filter(|&x| x < n)
                        };
                        match (at, preceding, start) {
                            (Some(a), _, true) => a,
                            (Some(a), _, false) => a + 1,
                            (None, true, _) => 0,
                            (None, false, _) => n,
                        }
                    }
                    FrameUnits::Groups => {
                        let k = self.count(c, pos, what)?;
                        let k = usize::try_from(k).unwrap_or(usize::MAX);
                        let g = p.group_of[i] as usize;
                        let ng = p.num_groups();
                        let target = if preceding {
                            g.checked_sub(k)
                        } else {
                            g.checked_add(k).filter(|&x| x < ng)
                        };
                        match (target, preceding, start) {
                            (Some(t), _, true) => p.groups[t],
                            (Some(t), _, false) => p.groups[t + 1],
                            (None, true, _) => 0,
                            (None, false, _) => n,
                        }
                    }
                    FrameUnits::Range => {
                        let Some((keys, desc, _)) = &self.range else {
                            return Err(EngineError::Internal("RANGE frame without keys".into()));
                        };
                        if keys.is_null(pos) {
                            let (a, b) = p.peers(i);
                            return Ok(if start { a } else { b });
                        }
                        let Some(bound) = bound else {
                            return Err(EngineError::Internal("RANGE offset without bound".into()));
                        };
                        if bound.is_null(pos) {
                            return Err(EngineError::Runtime(format!(
                                "Window RANGE {what} expression cannot be NULL"
                            )));
                        }
                        // Keys of the non-NULL rows are in order: the first
                        // one not before the bound, or the first after it.
                        let (lo, hi) = nn;
                        let rows = lo..hi;
                        let ord = |j: usize| {
                            let o = cmp_across(keys, p.base + j, bound, pos);
                            if *desc {
                                o.reverse()
                            } else {
                                o
                            }
                        };
                        if start {
                            partition_point(rows, |j| ord(j) == Ordering::Less)
                        } else {
                            partition_point(rows, |j| ord(j) != Ordering::Greater)
                        }
                    }
                }
            }
        })
    }

    /// The non-NULL rows of the RANGE key in partition `p`: `(first,
    /// end)` (all rows without RANGE offsets).
    pub fn non_null(&self, p: &Part<'_>) -> (usize, usize) {
        let Some((keys, _, nulls_first)) = &self.range else {
            return (0, p.n);
        };
        let nulls = (0..p.n).filter(|&i| keys.is_null(p.base + i)).count();
        if *nulls_first {
            (nulls, p.n)
        } else {
            (0, p.n - nulls)
        }
    }

    /// Row `i`'s frame `(s, e)` less the rows EXCLUDE leaves out.
    pub fn pieces(&self, p: &Part<'_>, i: usize, (s, e): (usize, usize)) -> Pieces {
        let (cut_s, cut_e) = match self.exclude {
            Exclude::NoOthers => return Pieces::one(s, e),
            Exclude::CurrentRow => (i, i + 1),
            Exclude::Group | Exclude::Ties => p.peers(i),
        };
        let mut out = Pieces::default();
        out.push(s, e.min(cut_s));
        if self.exclude == Exclude::Ties && s <= i && i < e {
            out.push(i, i + 1);
        }
        out.push(s.max(cut_e), e);
        out
    }
}

/// The first position in `range` where `pred` is false (`pred` true on a
/// prefix).
fn partition_point(range: std::ops::Range<usize>, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (range.start, range.end);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Compares non-NULL value `i` of `a` with value `j` of `b` (same type).
pub fn cmp_across(a: &Vector, i: usize, b: &Vector, j: usize) -> Ordering {
    match (&a.data, &b.data) {
        (Data::I64(x), Data::I64(y)) => x[i].cmp(&y[j]),
        (Data::U64(x), Data::U64(y)) => x[i].cmp(&y[j]),
        (Data::I128(x), Data::I128(y)) => x[i].cmp(&y[j]),
        (Data::F64(x), Data::F64(y)) => cmp_f64(x[i], y[j]),
        (Data::Bool(x), Data::Bool(y)) => x[i].cmp(&y[j]),
        (Data::Str(x), Data::Str(y)) => x[i].cmp(&y[j]),
        // The binder casts keys and bounds to one type.
        _ => Ordering::Equal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{LType, Value};

    fn parts(peers: &[bool]) -> Parts {
        Parts::new(&[0, peers.len()], 0..1, peers)
    }

    #[test]
    fn rows_and_groups_frames_stop_at_the_partition() {
        // Peer groups: [0, 1], [2], [3, 4, 5].
        let all = parts(&[true, false, true, true, false, false]);
        let p = all.iter().next().unwrap_or_else(|| unreachable!());
        let f = |units, start, end| FrameData {
            units,
            start,
            end,
            exclude: Exclude::NoOthers,
            range: None,
        };
        let rows = f(
            FrameUnits::Rows,
            End::Preceding(Count::Const(1), None),
            End::Following(Count::Const(2), None),
        );
        let all: Vec<_> = (0..6).map(|i| rows.frame(&p, i, (0, 6)).ok()).collect();
        assert_eq!(all[0], Some((0, 3)));
        assert_eq!(all[5], Some((4, 6)));
        let groups = f(
            FrameUnits::Groups,
            End::Preceding(Count::Const(1), None),
            End::CurrentRow,
        );
        assert_eq!(groups.frame(&p, 2, (0, 6)).ok(), Some((0, 3)));
        assert_eq!(groups.frame(&p, 4, (0, 6)).ok(), Some((2, 6)));
        let empty = f(
            FrameUnits::Rows,
            End::Preceding(Count::Const(3), None),
            End::Preceding(Count::Const(5), None),
        );
        let (s, e) = empty.frame(&p, 5, (0, 6)).unwrap_or((0, 1));
        assert!(s >= e);
        let neg = f(
            FrameUnits::Rows,
            End::Preceding(Count::Const(-1), None),
            End::CurrentRow,
        );
        assert!(neg.frame(&p, 0, (0, 6)).is_err());
    }

    #[test]
    fn range_frames_search_values_and_nulls_see_peers() {
        let mut keys = Vector::empty(LType::Int64, 5);
        for v in [Some(1), Some(2), Some(2), Some(5), None] {
            keys.push(&v.map_or(Value::Null, Value::Int));
        }
        let mut lo = Vector::empty(LType::Int64, 5);
        for v in [Some(0), Some(1), Some(1), Some(4), None] {
            lo.push(&v.map_or(Value::Null, Value::Int));
        }
        let all = parts(&[true, true, false, true, true]);
        let p = all.iter().next().unwrap_or_else(|| unreachable!());
        let f = FrameData {
            units: FrameUnits::Range,
            start: End::Preceding(Count::Const(1), Some(lo)),
            end: End::CurrentRow,
            exclude: Exclude::Ties,
            range: Some((keys, false, false)),
        };
        let nn = f.non_null(&p);
        assert_eq!(nn, (0, 4));
        assert_eq!(f.frame(&p, 1, nn).ok(), Some((0, 3)));
        assert_eq!(f.frame(&p, 3, nn).ok(), Some((3, 4)));
        assert_eq!(f.frame(&p, 4, nn).ok(), Some((4, 5)));
        let pieces = f.pieces(&p, 1, (0, 3));
        assert_eq!(pieces.ranges(), &[(0, 1), (1, 2)]);
        assert_eq!(pieces.nth(1), Some(1));
        assert_eq!(pieces.count(), 2);
    }
}

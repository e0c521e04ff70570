//! Judging strata's answer by DuckDB's: type-aware cells (see [`cells_match`]),
//! order-insensitive unless ORDER BY fixes the order, tie-aware where ORDER BY ... LIMIT
//! leaves ties or LIMIT has no ORDER BY (any valid rows of the full answer are right).

use std::cmp::Ordering;

use super::ast::{Body, Item, Query, Target};
use super::cell::{cells_match, cmp_rows, Cell};

/// What the comparison needs to know about a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    /// Whether it has ORDER BY.
    pub ordered: bool,
    /// The output columns (0-based) the ORDER BY keys are, when every key is one.
    pub keys: Option<Vec<usize>>,
    /// LIMIT.
    pub limit: Option<u64>,
    /// OFFSET.
    pub offset: u64,
}

impl Shape {
    /// The shape of `q`; `star` names the columns `*` stands for.
    pub fn of(q: &Query, star: &[String]) -> Shape {
        let items: Vec<Item> = match &q.body {
            Body::Select(s) => s.items.clone(),
            Body::SetOp(..) => {
                let mut b = &q.body;
                while let Body::SetOp(_, l, _) = b {
                    b = l;
                }
                match b {
                    Body::Select(s) => s.items.clone(),
                    Body::SetOp(..) => Vec::new(),
                }
            }
        };
        // The output columns: items with `*` expanded (name, expression).
        let mut outputs: Vec<(Option<String>, Option<&super::ast::Expr>, Option<&str>)> =
            Vec::new();
        for it in &items {
            match it {
                Item::Star => {
                    for c in star {
                        outputs.push((None, None, Some(c.as_str())));
                    }
                }
                Item::Expr(e, alias) => outputs.push((alias.clone(), Some(e), None)),
            }
        }
        let mut keys = Some(Vec::new());
        for o in &q.order_by {
            let found = match &o.target {
                Target::Ordinal(i) => i.checked_sub(1).filter(|&i| i < outputs.len()),
                Target::Alias(a) => outputs
                    .iter()
                    .position(|(al, _, _)| al.as_deref() == Some(a)),
                Target::Expr(e) => outputs.iter().position(|(_, ex, name)| {
                    ex.is_some_and(|x| x == e)
                        || matches!(e, super::ast::Expr::Col(c) if name.is_some_and(|n| n == c))
                }),
                // GROUP BY items only.
                Target::Rollup(_) | Target::Cube(_) | Target::Sets(_) => None,
            };
            match (found, keys.as_mut()) {
                (Some(i), Some(k)) => {
                    if !k.contains(&i) {
                        k.push(i);
                    }
                }
                _ => keys = None,
            }
        }
        Shape {
            ordered: !q.order_by.is_empty(),
            keys,
            limit: q.limit,
            offset: q.offset.unwrap_or(0),
        }
    }

    /// Whether the query has LIMIT or OFFSET (then the full answer may be needed).
    pub fn limited(&self) -> bool {
        self.limit.is_some() || self.offset > 0
    }
}

/// The result of a comparison.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// The same answer.
    Match,
    /// A different but equally valid answer (ties, or LIMIT without ORDER BY).
    MatchTies,
    /// A wrong answer, with why.
    Mismatch(String),
}

/// Whether a LIMIT answer agrees with `expected` row by row in its ORDER BY
/// key columns: the rows may then differ only by which of tied rows were
/// kept, which only the answer without LIMIT can settle.
pub fn keys_agree(shape: &Shape, strata: &[Vec<Cell>], expected: &[Vec<Cell>]) -> bool {
    let Some(keys) = shape.keys.as_ref().filter(|k| !k.is_empty()) else {
        return false;
    };
    shape.ordered
        && strata.len() == expected.len()
        && strata.iter().zip(expected).all(|(a, b)| {
            keys.iter()
                .all(|&k| matches!((a.get(k), b.get(k)), (Some(x), Some(y)) if cells_match(x, y)))
        })
}

fn row_text(r: &[Cell]) -> String {
    r.iter().map(Cell::text).collect::<Vec<_>>().join(", ")
}

/// Whether two rows match cell by cell.
pub fn rows_match(a: &[Cell], b: &[Cell]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| cells_match(x, y))
}

/// Matches every row of `wanted` to a distinct row of `pool` (sorted by [`cmp_rows`]);
/// `Err` names a row without a partner. Equal rows pair off in one merge of the sorted
/// lists (any number of duplicates); the rest are matched within the float tolerance,
/// near their place in the order (anywhere, for short answers).
fn match_into(wanted: &[Vec<Cell>], pool: &[Vec<Cell>]) -> Result<(), String> {
    let wanted = sorted(wanted);
    let mut used = vec![false; pool.len()];
    let mut left: Vec<usize> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < wanted.len() {
        if j >= pool.len() {
            left.push(i);
            i += 1;
            continue;
        }
        match cmp_rows(&wanted[i], &pool[j]) {
            Ordering::Less => {
                left.push(i);
                i += 1;
            }
            Ordering::Greater => j += 1,
            Ordering::Equal => {
                if rows_match(&wanted[i], &pool[j]) {
                    used[j] = true;
                    j += 1;
                } else {
                    left.push(i);
                }
                i += 1;
            }
        }
    }
    let free: Vec<usize> = (0..pool.len()).filter(|&k| !used[k]).collect();
    let mut taken = Untaken::new(free.len());
    const WINDOW: usize = 24;
    for &wi in &left {
        let w = &wanted[wi];
        let at = free.partition_point(|&k| cmp_rows(&pool[k], w) == Ordering::Less);
        // The nearest untaken rows on either side of `at` (rows taken by
        // earlier matches are skipped: a long run of rows that all differ
        // by float noise is matched one by one).
        let fits = |f: usize| rows_match(w, &pool[free[f]]);
        let mut hit = taken.below(at).take(WINDOW).find(|&f| fits(f));
        if hit.is_none() {
            hit = taken.from(at).take(WINDOW).find(|&f| fits(f));
        }
        if hit.is_none() && free.len() <= 3000 {
            hit = taken.from(0).find(|&f| fits(f));
        }
        match hit {
            Some(f) => taken.take(f),
            None => {
                let text = w.iter().map(Cell::text).collect::<Vec<_>>().join(", ");
                return Err(format!("row [{text}]"));
            }
        }
    }
    Ok(())
}

/// Which of `n` positions are still untaken, with skip links (path-halving
/// union-find) to the nearest untaken position on either side.
struct Untaken {
    /// `down[k + 1]`: one plus a position at or below `k` that may be untaken
    /// (0: none).
    down: Vec<usize>,
    /// `up[k]`: a position at or above `k` that may be untaken (`n`: none).
    up: Vec<usize>,
}

impl Untaken {
    fn new(n: usize) -> Untaken {
        Untaken {
            down: (0..=n).collect(),
            up: (0..=n).collect(),
        }
    }

    /// One plus the nearest untaken position at or below `k1 - 1` (0: none).
    fn find_down(&mut self, mut k1: usize) -> usize {
        while self.down[k1] != k1 {
            let next = self.down[self.down[k1]];
            self.down[k1] = next;
            k1 = next;
        }
        k1
    }

    /// The nearest untaken position at or above `k` (`n`: none).
    fn find_up(&mut self, mut k: usize) -> usize {
        while self.up[k] != k {
            let next = self.up[self.up[k]];
            self.up[k] = next;
            k = next;
        }
        k
    }

    /// Untaken positions below `at`, nearest first.
    fn below(&mut self, at: usize) -> impl Iterator<Item = usize> + '_ {
        let mut k1 = at;
        std::iter::from_fn(move || {
            k1 = self.find_down(k1);
            (k1 > 0).then(|| {
                k1 -= 1;
                k1
            })
        })
    }

    /// Untaken positions at or above `at`, nearest first.
    fn from(&mut self, at: usize) -> impl Iterator<Item = usize> + '_ {
        let n = self.up.len() - 1;
        let mut k = at;
        std::iter::from_fn(move || {
            k = self.find_up(k);
            (k < n).then(|| {
                k += 1;
                k - 1
            })
        })
    }

    fn take(&mut self, f: usize) {
        self.down[f + 1] = f;
        self.up[f] = f + 1;
    }
}

fn sorted(rows: &[Vec<Cell>]) -> Vec<Vec<Cell>> {
    let mut v = rows.to_vec();
    v.sort_by(|a, b| cmp_rows(a, b));
    v
}

/// Whether `a` and `b` hold the same rows in any order.
pub fn same_multiset(a: &[Vec<Cell>], b: &[Vec<Cell>]) -> Result<(), String> {
    if a.len() != b.len() {
        return Err(format!("{} rows, expected {}", a.len(), b.len()));
    }
    let (sa, sb) = (sorted(a), sorted(b));
    if sa.iter().zip(&sb).all(|(x, y)| rows_match(x, y)) {
        return Ok(());
    }
    match_into(&sa, &sb).map_err(|r| format!("{r} is not in the expected answer"))
}

fn first_difference(a: &[Vec<Cell>], b: &[Vec<Cell>]) -> String {
    if a.len() != b.len() {
        return format!("{} rows, expected {}", a.len(), b.len());
    }
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if !rows_match(x, y) {
            return format!(
                "row {}: [{}], expected [{}]",
                i + 1,
                row_text(x),
                row_text(y)
            );
        }
    }
    "no difference".into()
}

/// Compares strata's rows with DuckDB's answer to the same query (`expected`) and, for
/// queries with LIMIT or OFFSET, DuckDB's answer without them (`full`).
pub fn compare(
    shape: &Shape,
    strata: &[Vec<Cell>],
    expected: &[Vec<Cell>],
    full: Option<&[Vec<Cell>]>,
) -> Verdict {
    let width_ok = |rows: &[Vec<Cell>], other: &[Vec<Cell>]| match (rows.first(), other.first()) {
        (Some(a), Some(b)) => a.len() == b.len(),
        _ => true,
    };
    if !width_ok(strata, expected) {
        return Verdict::Mismatch("a different number of columns".into());
    }
    let keys_in_order = |rows: &[Vec<Cell>]| -> Result<(), String> {
        let Some(keys) = &shape.keys else {
            return Ok(());
        };
        for (i, (s, d)) in rows.iter().zip(expected).enumerate() {
            for &k in keys {
                if let (Some(a), Some(b)) = (s.get(k), d.get(k)) {
                    if !cells_match(a, b) {
                        return Err(format!(
                            "row {}: ORDER BY key {} is {}, expected {}",
                            i + 1,
                            k + 1,
                            a.text(),
                            b.text()
                        ));
                    }
                    // Floats are equal only within the tolerance: rounding
                    // noise may order two nearly equal values either way, and
                    // the later keys then follow that order.
                    if matches!(a, Cell::Float(_)) || matches!(b, Cell::Float(_)) {
                        break;
                    }
                }
            }
        }
        Ok(())
    };
    if shape.ordered
        && strata.len() == expected.len()
        && strata.iter().zip(expected).all(|(a, b)| rows_match(a, b))
    {
        return Verdict::Match;
    }
    if !shape.limited() {
        if let Err(e) = same_multiset(strata, expected) {
            return Verdict::Mismatch(if shape.ordered {
                first_difference(strata, expected)
            } else {
                e
            });
        }
        if !shape.ordered {
            return Verdict::Match;
        }
        return match keys_in_order(strata) {
            Ok(()) => Verdict::MatchTies,
            Err(e) => Verdict::Mismatch(e),
        };
    }
    // LIMIT/OFFSET: the same number of rows, each one of the full answer's, with the
    // ORDER BY keys in DuckDB's order.
    if strata.len() != expected.len() {
        return Verdict::Mismatch(format!(
            "{} rows, expected {}",
            strata.len(),
            expected.len()
        ));
    }
    if !shape.ordered && same_multiset(strata, expected).is_ok() {
        return Verdict::Match;
    }
    let Some(full) = full else {
        return Verdict::Mismatch(first_difference(strata, expected));
    };
    if !width_ok(strata, full) {
        return Verdict::Mismatch("a different number of columns".into());
    }
    if let Err(r) = match_into(strata, &sorted(full)) {
        return Verdict::Mismatch(format!("{r} is not in the answer without LIMIT"));
    }
    if shape.ordered {
        if let Err(e) = keys_in_order(strata) {
            return Verdict::Mismatch(e);
        }
    }
    Verdict::MatchTies
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(v: &[&[i64]]) -> Vec<Vec<Cell>> {
        v.iter()
            .map(|r| r.iter().map(|&x| Cell::Int(i128::from(x))).collect())
            .collect()
    }

    fn shape(ordered: bool, keys: Option<Vec<usize>>, limit: Option<u64>) -> Shape {
        Shape {
            ordered,
            keys,
            limit,
            offset: 0,
        }
    }

    #[test]
    fn a_long_run_of_rows_differing_by_float_noise_matches_one_by_one() {
        // 5000 copies of one value, the other engine's all a little larger.
        let wanted: Vec<Vec<Cell>> = (0..5000).map(|_| vec![Cell::Float(5.19e22)]).collect();
        let pool: Vec<Vec<Cell>> = (0..5000)
            .map(|_| vec![Cell::Float(5.19e22 * (1.0 + 1e-14))])
            .collect();
        assert_eq!(match_into(&wanted, &sorted(&pool)), Ok(()));
        // One row too many has no partner.
        let mut more = wanted.clone();
        more.push(vec![Cell::Float(5.19e22)]);
        assert!(match_into(&more, &sorted(&pool)).is_err());
    }

    #[test]
    fn limit_answers_agree_in_their_order_by_keys() {
        let s = shape(true, Some(vec![0]), Some(2));
        let duck = rows(&[&[7, 1], &[7, 2]]);
        assert!(keys_agree(&s, &rows(&[&[7, 5], &[7, 1]]), &duck));
        assert!(!keys_agree(&s, &rows(&[&[7, 5], &[6, 1]]), &duck));
        assert!(!keys_agree(
            &shape(false, Some(vec![]), Some(2)),
            &duck,
            &duck
        ));
    }

    #[test]
    fn untaken_positions_skip_taken_ones() {
        let mut u = Untaken::new(6);
        for f in [1, 2, 4] {
            u.take(f);
        }
        assert_eq!(u.below(5).collect::<Vec<_>>(), vec![3, 0]);
        assert_eq!(u.from(1).collect::<Vec<_>>(), vec![3, 5]);
        assert_eq!(u.from(6).count(), 0);
    }

    #[test]
    fn unordered_answers_compare_as_multisets() {
        let s = shape(false, Some(vec![]), None);
        assert_eq!(
            compare(&s, &rows(&[&[2], &[1]]), &rows(&[&[1], &[2]]), None),
            Verdict::Match
        );
        assert!(matches!(
            compare(&s, &rows(&[&[1], &[1]]), &rows(&[&[1], &[2]]), None),
            Verdict::Mismatch(_)
        ));
    }

    #[test]
    fn ties_under_limit_are_accepted() {
        // ORDER BY column 1 LIMIT 2 over (1,a) (2,b) (2,c): (1,a),(2,c) is as right as (1,a),(2,b).
        let s = shape(true, Some(vec![0]), Some(2));
        let full = rows(&[&[1, 10], &[2, 20], &[2, 30]]);
        let duck = rows(&[&[1, 10], &[2, 20]]);
        assert_eq!(
            compare(&s, &rows(&[&[1, 10], &[2, 30]]), &duck, Some(&full)),
            Verdict::MatchTies
        );
        // A row from past the ties is wrong, and so is the wrong key order.
        let full = rows(&[&[1, 10], &[2, 20], &[3, 30]]);
        assert!(matches!(
            compare(&s, &rows(&[&[1, 10], &[3, 30]]), &duck, Some(&full)),
            Verdict::Mismatch(_)
        ));
        assert!(matches!(
            compare(&s, &rows(&[&[2, 20], &[1, 10]]), &duck, Some(&full)),
            Verdict::Mismatch(_)
        ));
        // LIMIT without ORDER BY: any rows of the full answer.
        let s = shape(false, Some(vec![]), Some(1));
        assert_eq!(
            compare(&s, &rows(&[&[3, 30]]), &rows(&[&[1, 10]]), Some(&full)),
            Verdict::MatchTies
        );
    }

    #[test]
    fn many_equal_rows_pair_off() {
        // ORDER BY column 1 NULLS FIRST LIMIT 120: 50 rows (NULL, 0), 50 rows (NULL, 1),
        // then keys 0 to 49. DuckDB lists the NULL keys' rows 0s first; strata
        // interleaves them: as right, with more equal rows than any search window.
        let mut full: Vec<Vec<Cell>> = (0..100)
            .map(|i| vec![Cell::Null, Cell::Int(i128::from(i >= 50))])
            .collect();
        full.extend((0..50).map(|i| vec![Cell::Int(i), Cell::Int(i)]));
        let mut got = full[..120].to_vec();
        for i in 0..50 {
            got[2 * i] = vec![Cell::Null, Cell::Int(0)];
            got[2 * i + 1] = vec![Cell::Null, Cell::Int(1)];
        }
        let s = shape(true, Some(vec![0]), Some(120));
        assert_eq!(
            compare(&s, &got, &full[..120], Some(&full)),
            Verdict::MatchTies
        );
        let reversed: Vec<Vec<Cell>> = full.iter().rev().cloned().collect();
        assert!(same_multiset(&full, &reversed).is_ok());
    }

    #[test]
    fn float_keys_end_the_key_order() {
        // ORDER BY a float, then a count: the float keys of two groups differ
        // in their last digit, which decides the order of the counts.
        let s = shape(true, Some(vec![0, 1]), None);
        let f = |x: f64, n: i64| vec![Cell::Float(x), Cell::Int(n.into())];
        let duck = vec![f(4.4347192552144454e17, 25), f(4.434719255214445e17, 26)];
        let strata = vec![f(4.4347192552144454e17, 26), f(4.434719255214445e17, 25)];
        assert_eq!(compare(&s, &strata, &duck, None), Verdict::MatchTies);
        // Far apart floats still order the rows.
        let strata = vec![f(1.0, 26), f(2.0, 25)];
        let duck = vec![f(2.0, 25), f(1.0, 26)];
        assert!(matches!(
            compare(&s, &strata, &duck, None),
            Verdict::Mismatch(_)
        ));
    }

    #[test]
    fn order_within_ties_is_free() {
        let s = shape(true, Some(vec![0]), None);
        let duck = rows(&[&[1, 1], &[1, 2], &[2, 0]]);
        assert_eq!(
            compare(&s, &rows(&[&[1, 2], &[1, 1], &[2, 0]]), &duck, None),
            Verdict::MatchTies
        );
        assert!(matches!(
            compare(&s, &rows(&[&[2, 0], &[1, 1], &[1, 2]]), &duck, None),
            Verdict::Mismatch(_)
        ));
    }
}

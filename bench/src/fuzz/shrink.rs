//! Minimisation: a failing (table, query) pair is made smaller while it keeps failing the
//! same way: columns the query does not read dropped, rows removed by delta debugging,
//! the query simplified one step at a time (clauses, items, expression subtrees), then
//! rows again, one block, plain (not dictionary-coded) blocks.

use std::time::Instant;

use super::ast::Query;
use super::oracle::Oracle;
use super::table::TableData;

/// What fails: a query compared with DuckDB, or an oracle check.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)] // One per failure.
pub enum Subject {
    /// A query.
    Query(Query),
    /// An oracle check.
    Oracle(Oracle),
}

impl Subject {
    fn simplifications(&self) -> Vec<Subject> {
        match self {
            Subject::Query(q) => q
                .simplifications()
                .into_iter()
                .map(Subject::Query)
                .collect(),
            Subject::Oracle(o) => o
                .simplifications()
                .into_iter()
                .map(Subject::Oracle)
                .collect(),
        }
    }

    fn columns(&self) -> Vec<String> {
        match self {
            Subject::Query(q) => q.columns(),
            Subject::Oracle(o) => o.columns(),
        }
    }

    /// The size the minimiser shrinks: the length of its SQL.
    fn size(&self) -> usize {
        match self {
            Subject::Query(q) => q.sql().len(),
            Subject::Oracle(o) => o.queries().iter().map(|q| q.sql().len()).sum(),
        }
    }

    fn has_star(&self) -> bool {
        matches!(self, Subject::Query(q) if q.has_star())
    }
}

/// A failing case.
#[derive(Debug, Clone, PartialEq)]
pub struct Failing {
    /// The table.
    pub table: TableData,
    /// The query or check.
    pub subject: Subject,
}

/// How much work minimisation may do.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Most candidates tried.
    pub attempts: usize,
    /// Deadline.
    pub until: Instant,
}

struct Shrinker<'a> {
    best: Failing,
    budget: Budget,
    attempts: usize,
    test: &'a mut dyn FnMut(&Failing) -> bool,
}

impl Shrinker<'_> {
    fn exhausted(&self) -> bool {
        self.attempts >= self.budget.attempts || Instant::now() >= self.budget.until
    }

    /// Tries `candidate`; keeps it when it still fails.
    fn try_keep(&mut self, candidate: Failing) -> bool {
        if self.exhausted() || candidate == self.best {
            return false;
        }
        self.attempts += 1;
        if (self.test)(&candidate) {
            self.best = candidate;
            return true;
        }
        false
    }

    fn drop_columns(&mut self) {
        let used = self.best.subject.columns();
        let keep: Vec<String> = self
            .best
            .table
            .columns
            .iter()
            .filter(|c| used.contains(&c.name))
            .map(|c| c.name.clone())
            .collect();
        if self.best.subject.has_star()
            || keep.len() == self.best.table.columns.len()
            || keep.is_empty()
        {
            return;
        }
        let t = self.best.table.with_columns(&keep);
        let cand = Failing {
            table: t,
            subject: self.best.subject.clone(),
        };
        self.try_keep(cand);
    }

    /// Delta debugging over rows: remove ever smaller chunks while the case fails.
    fn drop_rows(&mut self) {
        let rows = self.best.table.rows();
        if rows == 0 {
            return;
        }
        let empty = Failing {
            table: self.best.table.with_rows(&[]),
            subject: self.best.subject.clone(),
        };
        if self.try_keep(empty) {
            return;
        }
        let mut n = 2usize;
        loop {
            let rows = self.best.table.rows();
            if rows <= 1 || self.exhausted() {
                return;
            }
            n = n.min(rows);
            let chunk = rows.div_ceil(n);
            let mut reduced = false;
            let parts = n;
            for i in 0..parts {
                let (lo, hi) = (i * chunk, ((i + 1) * chunk).min(rows));
                if lo >= hi {
                    continue;
                }
                let keep: Vec<usize> = (0..rows).filter(|r| *r < lo || *r >= hi).collect();
                let cand = Failing {
                    table: self.best.table.with_rows(&keep),
                    subject: self.best.subject.clone(),
                };
                if self.try_keep(cand) {
                    n = n.saturating_sub(1).max(2);
                    reduced = true;
                    break;
                }
                if self.exhausted() {
                    return;
                }
            }
            if !reduced {
                if n >= rows {
                    return;
                }
                n = (n * 2).min(rows);
            }
        }
    }

    fn simplify_subject(&mut self) {
        'outer: while !self.exhausted() {
            let size = self.best.subject.size();
            for s in self.best.subject.simplifications() {
                if s.size() >= size {
                    continue;
                }
                let cand = Failing {
                    table: self.best.table.clone(),
                    subject: s,
                };
                if self.try_keep(cand) {
                    continue 'outer;
                }
                if self.exhausted() {
                    return;
                }
            }
            return;
        }
    }

    fn plain_blocks(&mut self) {
        let rows = self.best.table.rows().max(1);
        if self.best.table.block_rows < rows {
            let mut t = self.best.table.clone();
            t.block_rows = rows;
            let cand = Failing {
                table: t,
                subject: self.best.subject.clone(),
            };
            self.try_keep(cand);
        }
        if self.best.table.dict_seed != 0 {
            let mut t = self.best.table.clone();
            t.dict_seed = 0;
            let cand = Failing {
                table: t,
                subject: self.best.subject.clone(),
            };
            self.try_keep(cand);
        }
    }
}

/// Makes `start` smaller while `test` says it still fails; returns the smallest case
/// found and the number of candidates tried.
pub fn minimise(
    start: Failing,
    budget: Budget,
    test: &mut dyn FnMut(&Failing) -> bool,
) -> (Failing, usize) {
    let mut s = Shrinker {
        best: start,
        budget,
        attempts: 0,
        test,
    };
    s.drop_columns();
    s.drop_rows();
    s.simplify_subject();
    s.drop_columns();
    s.drop_rows();
    s.plain_blocks();
    s.simplify_subject();
    (s.best, s.attempts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::ast::{Expr, From, Item, Select};
    use crate::fuzz::cell::{Cell, ColType};
    use crate::fuzz::table::Column;

    #[test]
    fn shrinks_rows_and_query_to_what_fails() {
        // "Fails" while row value 7 is present and the query still filters.
        let values: Vec<Cell> = (0..100).map(|i| Cell::Int(i % 10)).collect();
        let table = TableData {
            columns: vec![
                Column {
                    name: "c0".into(),
                    ty: ColType::Int32,
                    nullable: false,
                    raw_bytes: false,
                    values: values.clone(),
                },
                Column {
                    name: "c1".into(),
                    ty: ColType::Int32,
                    nullable: false,
                    raw_bytes: false,
                    values,
                },
            ],
            block_rows: 7,
            dict_seed: 3,
        };
        let q = Query::simple(Select {
            distinct: false,
            items: vec![Item::Expr(Expr::Col("c0".into()), None)],
            from: From::Table("t".into()),
            filter: Some(Expr::Logic(
                true,
                vec![
                    Expr::Lit("TRUE".into()),
                    Expr::Bin(
                        ">",
                        Expr::Col("c0".into()).boxed(),
                        Expr::Lit("5".into()).boxed(),
                    ),
                ],
            )),
            group_by: Vec::new(),
            having: None,
            qualify: None,
        });
        let start = Failing {
            table,
            subject: Subject::Query(q),
        };
        let mut test = |f: &Failing| {
            let has7 = f
                .table
                .column("c0")
                .is_some_and(|c| c.values.contains(&Cell::Int(7)));
            let filters = matches!(&f.subject, Subject::Query(q) if q.select().is_some_and(|s| s.filter.is_some()));
            has7 && filters
        };
        let budget = Budget {
            attempts: 10_000,
            until: Instant::now() + std::time::Duration::from_secs(60),
        };
        let (small, _) = minimise(start, budget, &mut test);
        assert_eq!(small.table.rows(), 1);
        assert_eq!(small.table.columns.len(), 1);
        assert_eq!(small.table.dict_seed, 0);
        let Subject::Query(q) = &small.subject else {
            unreachable!()
        };
        assert!(
            q.sql().len() < "SELECT c0 FROM t WHERE (TRUE AND (c0 > 5))".len(),
            "{}",
            q.sql()
        );
    }
}

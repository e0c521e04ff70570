//! Oracles that need no second engine, run on strata alone (so they also cover the
//! columns DuckDB cannot hold):
//!
//! - Ternary logic partitioning (TLP): the rows of a query are those `WHERE p`, plus
//!   `WHERE NOT p`, plus `WHERE p IS NULL`; for aggregates, COUNT and SUM add up over the
//!   three parts and MIN/MAX are the least/greatest of the parts', per group when grouped.
//! - NoREC: `SELECT COUNT(*) ... WHERE p` equals `SUM(CASE WHEN p THEN 1 ELSE 0 END)` over
//!   all rows, and the number of rows where the projected `p` is true.

use std::collections::HashMap;

use super::ast::{Expr, From, Item, Query, Select, Target};
use super::cell::{cells_match, cmp_cells, Cell};
use super::compare::same_multiset;
use super::strata_side::{StrataAnswer, StrataDb};

/// One oracle check, over table `t`.
#[derive(Debug, Clone, PartialEq)]
pub enum Oracle {
    /// TLP over plain rows: `SELECT items FROM t [WHERE filter]`.
    TlpRows {
        /// The select list.
        items: Vec<Expr>,
        /// The query's own filter.
        filter: Option<Expr>,
        /// The partitioning predicate.
        p: Expr,
    },
    /// TLP over aggregates: `SELECT [key,] aggs FROM t [WHERE filter] [GROUP BY key]`;
    /// every aggregate is COUNT, SUM, MIN or MAX.
    TlpAgg {
        /// The group key.
        key: Option<Expr>,
        /// The aggregates.
        aggs: Vec<Expr>,
        /// The query's own filter.
        filter: Option<Expr>,
        /// The partitioning predicate.
        p: Expr,
    },
    /// NoREC for predicate `p`.
    NoRec {
        /// The predicate.
        p: Expr,
    },
}

/// What an oracle check found.
#[derive(Debug, Clone, PartialEq)]
pub enum OracleOutcome {
    /// The answers agree.
    Pass,
    /// A query of the check was refused or failed: nothing to compare.
    Skip(String),
    /// The answers disagree: how.
    Fail(String),
    /// strata panicked on one of the queries.
    Panic(String),
}

fn and(a: Option<&Expr>, b: Expr) -> Expr {
    match a {
        Some(a) => Expr::Logic(true, vec![a.clone(), b]),
        None => b,
    }
}

fn select(items: Vec<Expr>, filter: Option<Expr>, group: Option<Expr>) -> Query {
    Query::simple(Select {
        distinct: false,
        items: items.into_iter().map(|e| Item::Expr(e, None)).collect(),
        from: From::Table("t".into()),
        filter,
        group_by: group.into_iter().map(Target::Expr).collect(),
        having: None,
        qualify: None,
    })
}

/// The three parts of TLP: `p`, `NOT p`, `p IS NULL`.
fn partitions(p: &Expr) -> [Expr; 3] {
    [
        p.clone(),
        Expr::Not(p.clone().boxed()),
        Expr::IsNull(p.clone().boxed(), false),
    ]
}

impl Oracle {
    /// A short name (`tlp` or `norec`).
    pub fn family(&self) -> &'static str {
        match self {
            Oracle::TlpRows { .. } | Oracle::TlpAgg { .. } => "tlp",
            Oracle::NoRec { .. } => "norec",
        }
    }

    /// The queries the check runs, in order.
    pub fn queries(&self) -> Vec<Query> {
        match self {
            Oracle::TlpRows { items, filter, p } => {
                let mut v = vec![select(items.clone(), filter.clone(), None)];
                for part in partitions(p) {
                    v.push(select(
                        items.clone(),
                        Some(and(filter.as_ref(), part)),
                        None,
                    ));
                }
                v
            }
            Oracle::TlpAgg {
                key,
                aggs,
                filter,
                p,
            } => {
                let items: Vec<Expr> = key.iter().cloned().chain(aggs.iter().cloned()).collect();
                let mut v = vec![select(items.clone(), filter.clone(), key.clone())];
                for part in partitions(p) {
                    v.push(select(
                        items.clone(),
                        Some(and(filter.as_ref(), part)),
                        key.clone(),
                    ));
                }
                v
            }
            Oracle::NoRec { p } => {
                let count = Expr::Agg("count", false, None);
                let case = Expr::Case(
                    None,
                    vec![(p.clone(), Expr::Lit("1".into()))],
                    Some(Expr::Lit("0".into()).boxed()),
                );
                vec![
                    select(vec![count], Some(p.clone()), None),
                    select(
                        vec![Expr::Agg("sum", false, Some(case.boxed()))],
                        None,
                        None,
                    ),
                    select(vec![p.clone()], None, None),
                ]
            }
        }
    }

    /// Runs the check on `db`.
    pub fn check(&self, db: &StrataDb) -> OracleOutcome {
        let mut answers = Vec::new();
        for q in self.queries() {
            let sql = q.sql();
            match db.query(&sql) {
                StrataAnswer::Rows { rows, .. } => answers.push(rows),
                StrataAnswer::Panic(m) => {
                    return OracleOutcome::Panic(format!("{m} (query: {sql})"))
                }
                other => return OracleOutcome::Skip(other.describe()),
            }
        }
        match self {
            Oracle::TlpRows { .. } => {
                let union: Vec<Vec<Cell>> = answers[1..].concat();
                match same_multiset(&union, &answers[0]) {
                    Ok(()) => OracleOutcome::Pass,
                    Err(e) => OracleOutcome::Fail(format!("the three parts' rows: {e}")),
                }
            }
            Oracle::TlpAgg { key, aggs, .. } => {
                let funcs: Vec<&str> = aggs
                    .iter()
                    .map(|a| match a {
                        Expr::Agg(f, _, _) => *f,
                        _ => "?",
                    })
                    .collect();
                let nkey = usize::from(key.is_some());
                check_tlp_aggregates(&answers, nkey, &funcs)
            }
            Oracle::NoRec { .. } => {
                let count = answers[0].first().and_then(|r| r.first()).cloned();
                let sum = answers[1].first().and_then(|r| r.first()).cloned();
                let trues = answers[2]
                    .iter()
                    .filter(|r| matches!(r.first(), Some(Cell::Bool(true))))
                    .count();
                let as_int = |c: Option<Cell>| match c {
                    Some(Cell::Int(x)) => Some(x),
                    Some(Cell::Dec(x, 0)) => Some(x),
                    Some(Cell::Null) | None => Some(0),
                    _ => None,
                };
                match (as_int(count.clone()), as_int(sum.clone())) {
                    (Some(c), Some(s)) if c == s && c == trues as i128 => OracleOutcome::Pass,
                    _ => OracleOutcome::Fail(format!(
                        "COUNT(*) WHERE p = {}, SUM(CASE WHEN p THEN 1 ELSE 0 END) = {}, rows where p is true: {trues}",
                        count.map_or("none".into(), |c| c.text()),
                        sum.map_or("none".into(), |c| c.text())
                    )),
                }
            }
        }
    }

    /// Every check one simplification away: the predicate, the filter or an item made
    /// simpler, an item or the filter dropped.
    pub fn simplifications(&self) -> Vec<Oracle> {
        let mut out = Vec::new();
        match self {
            Oracle::TlpRows { items, filter, p } => {
                for sp in p.simplifications() {
                    out.push(Oracle::TlpRows {
                        items: items.clone(),
                        filter: filter.clone(),
                        p: sp,
                    });
                }
                if filter.is_some() {
                    out.push(Oracle::TlpRows {
                        items: items.clone(),
                        filter: None,
                        p: p.clone(),
                    });
                }
                for i in 0..items.len() {
                    if items.len() > 1 {
                        let mut v = items.clone();
                        v.remove(i);
                        out.push(Oracle::TlpRows {
                            items: v,
                            filter: filter.clone(),
                            p: p.clone(),
                        });
                    }
                }
            }
            Oracle::TlpAgg {
                key,
                aggs,
                filter,
                p,
            } => {
                let with = |key: Option<Expr>, aggs: Vec<Expr>, filter: Option<Expr>, p: Expr| {
                    Oracle::TlpAgg {
                        key,
                        aggs,
                        filter,
                        p,
                    }
                };
                for sp in p.simplifications() {
                    out.push(with(key.clone(), aggs.clone(), filter.clone(), sp));
                }
                if filter.is_some() {
                    out.push(with(key.clone(), aggs.clone(), None, p.clone()));
                }
                if key.is_some() {
                    out.push(with(None, aggs.clone(), filter.clone(), p.clone()));
                }
                for i in 0..aggs.len() {
                    if aggs.len() > 1 {
                        let mut v = aggs.clone();
                        v.remove(i);
                        out.push(with(key.clone(), v, filter.clone(), p.clone()));
                    }
                }
            }
            Oracle::NoRec { p } => {
                for sp in p.simplifications() {
                    out.push(Oracle::NoRec { p: sp });
                }
            }
        }
        out
    }

    /// The column names the check reads.
    pub fn columns(&self) -> Vec<String> {
        let mut out = Vec::new();
        for q in self.queries() {
            for c in q.columns() {
                if !out.contains(&c) {
                    out.push(c);
                }
            }
        }
        out
    }
}

/// Adds two aggregate values of the same kind (NULL is the empty sum).
fn add(a: &Cell, b: &Cell) -> Option<Cell> {
    Some(match (a, b) {
        (Cell::Null, x) | (x, Cell::Null) => x.clone(),
        (Cell::Int(x), Cell::Int(y)) => Cell::Int(x.checked_add(*y)?),
        (Cell::Dec(x, s), Cell::Dec(y, t)) if s == t => Cell::Dec(x.checked_add(*y)?, *s),
        (Cell::Float(x), Cell::Float(y)) => Cell::Float(x + y),
        _ => return None,
    })
}

fn combine(f: &str, a: &Cell, b: &Cell) -> Option<Cell> {
    match f {
        "count" | "sum" => add(a, b),
        "min" | "max" => Some(match (a, b) {
            (Cell::Null, x) | (x, Cell::Null) => x.clone(),
            (x, y) => {
                let less = cmp_cells(x, y) == std::cmp::Ordering::Less;
                if (f == "min") == less {
                    x.clone()
                } else {
                    y.clone()
                }
            }
        }),
        _ => None,
    }
}

/// A group key as a map key: its text, with `-0.0` as `0.0` (they group together).
fn key_text(row: &[Cell], nkey: usize) -> String {
    row[..nkey.min(row.len())]
        .iter()
        .map(|c| match c {
            Cell::Float(f) if *f == 0.0 => "0.0".to_string(),
            Cell::Float(f) if f.is_nan() => "nan".to_string(),
            c => c.text(),
        })
        .collect::<Vec<_>>()
        .join("\u{1}")
}

fn check_tlp_aggregates(answers: &[Vec<Vec<Cell>>], nkey: usize, funcs: &[&str]) -> OracleOutcome {
    let mut combined: HashMap<String, Vec<Cell>> = HashMap::new();
    let mut order: Vec<String> = Vec::new();
    for part in &answers[1..] {
        for row in part {
            let k = key_text(row, nkey);
            match combined.get_mut(&k) {
                None => {
                    order.push(k.clone());
                    combined.insert(k, row.clone());
                }
                Some(acc) => {
                    for (i, f) in funcs.iter().enumerate() {
                        let c = nkey + i;
                        let (Some(a), Some(b)) = (acc.get(c), row.get(c)) else {
                            return OracleOutcome::Skip("short row".into());
                        };
                        match combine(f, a, b) {
                            Some(v) => acc[c] = v,
                            None => return OracleOutcome::Skip(format!("cannot combine {f}")),
                        }
                    }
                }
            }
        }
    }
    let whole = &answers[0];
    // Without GROUP BY, an empty part still answers one row (COUNT 0, SUM NULL); with
    // it, groups missing from a part simply do not occur.
    let mut parts: Vec<Vec<Cell>> = order.iter().filter_map(|k| combined.remove(k)).collect();
    if nkey > 0 {
        let (a, b) = (parts.len(), whole.len());
        if a != b {
            return OracleOutcome::Fail(format!(
                "{a} groups over the three parts, {b} over all rows"
            ));
        }
    }
    parts.sort_by(|a, b| super::cell::cmp_rows(a, b));
    let mut whole_sorted = whole.clone();
    whole_sorted.sort_by(|a, b| super::cell::cmp_rows(a, b));
    for (p, w) in parts.iter().zip(&whole_sorted) {
        let ok = p.len() == w.len() && p.iter().zip(w).all(|(x, y)| cells_match(x, y));
        if !ok {
            let t = |r: &[Cell]| r.iter().map(Cell::text).collect::<Vec<_>>().join(", ");
            return OracleOutcome::Fail(format!(
                "parts combine to [{}], all rows give [{}]",
                t(p),
                t(w)
            ));
        }
    }
    OracleOutcome::Pass
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tlp_queries_partition_the_filter() {
        let o = Oracle::TlpRows {
            items: vec![Expr::Col("c0".into())],
            filter: Some(Expr::Lit("TRUE".into())),
            p: Expr::Bin(
                ">",
                Expr::Col("c1".into()).boxed(),
                Expr::Lit("3".into()).boxed(),
            ),
        };
        let sql: Vec<String> = o.queries().iter().map(Query::sql).collect();
        assert_eq!(sql[0], "SELECT c0 FROM t WHERE TRUE");
        assert_eq!(sql[1], "SELECT c0 FROM t WHERE (TRUE AND (c1 > 3))");
        assert_eq!(sql[2], "SELECT c0 FROM t WHERE (TRUE AND (NOT (c1 > 3)))");
        assert_eq!(
            sql[3],
            "SELECT c0 FROM t WHERE (TRUE AND ((c1 > 3) IS NULL))"
        );
        assert_eq!(o.columns(), vec!["c0".to_string(), "c1".to_string()]);
    }

    #[test]
    fn aggregates_combine_over_parts() {
        let int = |x: i128| Cell::Int(x);
        // count, sum, min, max of one group "a" split over the parts, plus group "b".
        let whole = vec![
            vec![Cell::Str(b"a".to_vec()), int(3), int(6), int(1), int(3)],
            vec![
                Cell::Str(b"b".to_vec()),
                int(1),
                Cell::Null,
                Cell::Null,
                Cell::Null,
            ],
        ];
        let p1 = vec![vec![
            Cell::Str(b"a".to_vec()),
            int(2),
            int(3),
            int(1),
            int(2),
        ]];
        let p2 = vec![vec![
            Cell::Str(b"a".to_vec()),
            int(1),
            int(3),
            int(3),
            int(3),
        ]];
        let p3 = vec![vec![
            Cell::Str(b"b".to_vec()),
            int(1),
            Cell::Null,
            Cell::Null,
            Cell::Null,
        ]];
        let funcs = ["count", "sum", "min", "max"];
        let answers = vec![whole.clone(), p1.clone(), p2, p3.clone()];
        assert_eq!(
            check_tlp_aggregates(&answers, 1, &funcs),
            OracleOutcome::Pass
        );
        let wrong = vec![whole, p1.clone(), p1, p3];
        assert!(matches!(
            check_tlp_aggregates(&wrong, 1, &funcs),
            OracleOutcome::Fail(_)
        ));
    }
}

//! Window functions for the generator (feature `windows`): ranking, value and
//! aggregate functions, PARTITION BY, ORDER BY, ROWS / RANGE / GROUPS frames with
//! EXCLUDE and IGNORE NULLS, in plain queries (also in QUALIFY) and over the groups of
//! grouped queries.
//!
//! Answers must not depend on how ties are broken: a function whose value depends on
//! the order of peers (`row_number`, `ntile`, `lag`, `lead`, the value functions, ROWS
//! frames) gets every column of the scope (every group key, over groups) appended to
//! its ORDER BY. Rows equal in all of them are interchangeable, so the answer as a
//! multiset of rows is the same whichever comes first. That holds for one such
//! window only: rows equal in every column may take their places in a different
//! order in a second one, pairing the two values differently. So a SELECT over rows
//! has at most one.

use super::{col, func, lit, Ctx, Gen, Kind};
use crate::fuzz::ast::Expr;

/// What a window call computes.
enum Func {
    /// `count`, `sum`, ...: order matters only in ROWS frames.
    Aggregate,
    /// `rank`, `dense_rank`, `percent_rank`, `cume_dist`: peers share their value.
    PeerRank,
    /// `row_number`, `ntile`, `lag`, `lead`: the order of peers matters.
    Positional,
    /// `first_value`, `last_value`, `nth_value`: over the frame, the order of peers
    /// matters.
    Value,
}

impl Gen<'_> {
    /// A window call over the scope (`ctx` Row) or the groups (`ctx` Groups), and the
    /// kind of its value; over rows, at most one per SELECT depends on the order of
    /// peers.
    pub(super) fn window(&mut self, ctx: &Ctx) -> (Expr, Kind) {
        let rows = matches!(ctx, Ctx::Row);
        for _ in 0..8 {
            let (w, k, tied) = self.window_call(ctx);
            if !(tied && rows && self.tied_window) {
                self.tied_window |= tied && rows;
                return (w, k);
            }
        }
        let count = Expr::Window {
            func: "count",
            args: Vec::new(),
            distinct: false,
            arg_order: Vec::new(),
            filter: None,
            ignore_nulls: false,
            partition: Vec::new(),
            order: Vec::new(),
            frame: None,
        };
        (count, Kind::Int)
    }

    /// A window call, its kind, and whether its value depends on the order of peers.
    fn window_call(&mut self, ctx: &Ctx) -> (Expr, Kind, bool) {
        // Every column (or group key): the order that breaks all ties.
        let total: Vec<Expr> = match ctx {
            Ctx::Row => self.cols.iter().map(|c| col(&c.name)).collect(),
            Ctx::Groups(keys) => {
                let mut t: Vec<Expr> = keys.iter().map(|(e, _)| e.clone()).collect();
                if self.grouping_sets && !t.is_empty() {
                    t.push(func("grouping", t.clone()));
                }
                t
            }
        };
        let key = |g: &mut Gen<'_>| -> (Expr, Kind) {
            match ctx {
                Ctx::Row => {
                    if g.cols.is_empty() || g.rng.chance(20) {
                        let k = g.some_kind();
                        (g.row_expr(k, 1), k)
                    } else {
                        let c = &g.cols[g.rng.index(g.cols.len())];
                        (col(&c.name), c.kind)
                    }
                }
                Ctx::Groups(keys) => {
                    if keys.is_empty() || g.rng.chance(40) {
                        // Not DOUBLE: sums in another order differ in the last
                        // bits, splitting partitions and reordering peers.
                        let k = *g.rng.pick(&[Kind::Int, Kind::Dec]);
                        (g.aggregate(k), k)
                    } else {
                        keys[g.rng.index(keys.len())].clone()
                    }
                }
            }
        };
        let mut partition = Vec::new();
        if self.rng.chance(60) {
            for _ in 0..1 + self.rng.weighted(&[75, 25]) {
                let (e, _) = key(self);
                if !partition.contains(&e) {
                    partition.push(e);
                }
            }
        }
        let mut order: Vec<(Expr, bool)> = Vec::new();
        let mut first_kind = None;
        if self.rng.chance(70) {
            for _ in 0..1 + self.rng.weighted(&[80, 20]) {
                let (e, k) = key(self);
                if !order.iter().any(|(x, _)| *x == e) {
                    first_kind.get_or_insert(k);
                    order.push((e, self.rng.chance(35)));
                }
            }
        }
        // The function and its arguments.
        let arg = |g: &mut Gen<'_>, k: Kind| -> Expr {
            match ctx {
                Ctx::Row => match g.column_of(k) {
                    Some(c) if g.rng.chance(70) => c,
                    _ => g.row_expr(k, 1),
                },
                Ctx::Groups(_) => g.expr(k, g.max_depth.saturating_sub(1), ctx),
            }
        };
        // ORDER BY inside an aggregate call: ending with its argument, so ties
        // hold equal values.
        let mut arg_order: Vec<(Expr, bool)> = Vec::new();
        let (func, args, distinct, kind, what): (&'static str, Vec<Expr>, bool, Kind, Func) =
            match self.rng.weighted(&[40, 25, 35]) {
                0 => match self.rng.below(10) {
                    0 => ("count", Vec::new(), false, Kind::Int, Func::Aggregate),
                    1 | 2 => {
                        let k = self.some_kind();
                        let d = self.rng.chance(30);
                        ("count", vec![arg(self, k)], d, Kind::Int, Func::Aggregate)
                    }
                    3 => {
                        let k = *self.rng.pick(&[Kind::Int, Kind::Dec]);
                        ("sum", vec![arg(self, k)], false, k, Func::Aggregate)
                    }
                    4 => {
                        let k = *self.rng.pick(&[Kind::Int, Kind::Float, Kind::Dec]);
                        (
                            "avg",
                            vec![arg(self, k)],
                            false,
                            Kind::Float,
                            Func::Aggregate,
                        )
                    }
                    7 => {
                        let x = arg(self, Kind::Str);
                        let d = self.rng.chance(30);
                        arg_order.push((x.clone(), self.rng.chance(50)));
                        let sep = lit(*self.rng.pick(&["','", "'|'"]));
                        ("string_agg", vec![x, sep], d, Kind::Str, Func::Aggregate)
                    }
                    8 => {
                        let (a, b) = (arg(self, Kind::Int), arg(self, Kind::Int));
                        let f = *self.rng.pick(&["regr_count", "covar_pop", "regr_sxy"]);
                        let k = if f == "regr_count" {
                            Kind::Int
                        } else {
                            Kind::Float
                        };
                        (f, vec![a, b], false, k, Func::Aggregate)
                    }
                    9 => {
                        let x = arg(self, Kind::Int);
                        let q = lit(*self.rng.pick(&["0", "0.25", "0.5", "1"]));
                        (
                            "quantile_disc",
                            vec![x, q],
                            false,
                            Kind::Int,
                            Func::Aggregate,
                        )
                    }
                    _ => {
                        let k = self.some_kind();
                        let f = *self.rng.pick(&["min", "max"]);
                        (f, vec![arg(self, k)], false, k, Func::Aggregate)
                    }
                },
                1 => match self.rng.below(6) {
                    0 => ("row_number", Vec::new(), false, Kind::Int, Func::Positional),
                    1 => {
                        let n = lit(self.rng.range(1, 6).to_string());
                        ("ntile", vec![n], false, Kind::Int, Func::Positional)
                    }
                    2 => ("rank", Vec::new(), false, Kind::Int, Func::PeerRank),
                    3 => ("dense_rank", Vec::new(), false, Kind::Int, Func::PeerRank),
                    4 => (
                        "percent_rank",
                        Vec::new(),
                        false,
                        Kind::Float,
                        Func::PeerRank,
                    ),
                    _ => ("cume_dist", Vec::new(), false, Kind::Float, Func::PeerRank),
                },
                _ => {
                    let k = self.some_kind();
                    let x = arg(self, k);
                    match self.rng.below(5) {
                        0 | 1 => {
                            let f = *self.rng.pick(&["lag", "lead"]);
                            let mut a = vec![x];
                            if self.rng.chance(60) {
                                a.push(lit(self.rng.range(0, 4).to_string()));
                                if self.rng.chance(50) {
                                    a.push(self.literal(k, None));
                                }
                            }
                            (f, a, false, k, Func::Positional)
                        }
                        2 => ("first_value", vec![x], false, k, Func::Value),
                        3 => ("last_value", vec![x], false, k, Func::Value),
                        _ => {
                            let n = lit(self.rng.range(1, 5).to_string());
                            ("nth_value", vec![x, n], false, k, Func::Value)
                        }
                    }
                }
            };
        let filter =
            (matches!(what, Func::Aggregate) && matches!(ctx, Ctx::Row) && self.rng.chance(20))
                .then(|| self.predicate().boxed());
        let ignore_nulls = matches!(what, Func::Positional | Func::Value)
            && func != "row_number"
            && func != "ntile"
            && self.rng.chance(25);
        // The frame.
        let framed = matches!(what, Func::Aggregate | Func::Value);
        let mut rows_frame = false;
        let mut range_offsets = false;
        let frame = if framed && self.rng.chance(55) {
            let numeric_key = order.len() == 1
                && first_kind.is_some_and(|k| matches!(k, Kind::Int | Kind::Float | Kind::Dec));
            let units = match self.rng.below(3) {
                0 => "ROWS",
                1 => "RANGE",
                _ => "GROUPS",
            };
            rows_frame = units == "ROWS";
            // RANGE offsets need exactly one numeric ORDER BY key, which no tie-breaker
            // may join: only for aggregates (whose frames are sets of peers).
            let offsets = units != "RANGE" || (numeric_key && matches!(what, Func::Aggregate));
            range_offsets = units == "RANGE" && offsets;
            let n = |g: &mut Gen<'_>| -> String {
                if units == "RANGE" && first_kind != Some(Kind::Int) && g.rng.chance(50) {
                    format!("{}.5", g.rng.range(0, 3))
                } else {
                    g.rng.range(0, 4).to_string()
                }
            };
            let start = match self.rng.below(4) {
                0 => "UNBOUNDED PRECEDING".to_string(),
                1 if offsets => format!("{} PRECEDING", n(self)),
                2 if offsets => format!("{} FOLLOWING", n(self)),
                _ => "CURRENT ROW".to_string(),
            };
            let end = if start.ends_with("FOLLOWING") {
                if self.rng.chance(40) {
                    "UNBOUNDED FOLLOWING".to_string()
                } else {
                    format!("{} FOLLOWING", n(self))
                }
            } else {
                match self.rng.below(4) {
                    0 => "UNBOUNDED FOLLOWING".to_string(),
                    1 if offsets && !start.starts_with("CURRENT") => {
                        format!("{} PRECEDING", n(self))
                    }
                    2 if offsets => format!("{} FOLLOWING", n(self)),
                    _ => "CURRENT ROW".to_string(),
                }
            };
            let exclude = match self.rng.below(10) {
                0 => " EXCLUDE CURRENT ROW",
                1 => " EXCLUDE GROUP",
                2 => " EXCLUDE TIES",
                3 => " EXCLUDE NO OTHERS",
                _ => "",
            };
            Some(format!("{units} BETWEEN {start} AND {end}{exclude}"))
        } else {
            None
        };
        let positional = match what {
            Func::Positional | Func::Value => true,
            Func::Aggregate => rows_frame,
            Func::PeerRank => false,
        };
        if positional && !range_offsets {
            for e in total {
                if !order.iter().any(|(x, _)| *x == e) {
                    order.push((e, false));
                }
            }
        }
        if matches!(what, Func::PeerRank) && order.is_empty() && self.rng.chance(70) {
            let (e, _) = key(self);
            order.push((e, false));
        }
        let w = Expr::Window {
            func,
            args,
            distinct,
            arg_order,
            filter,
            ignore_nulls,
            partition,
            order,
            frame,
        };
        (w, kind, positional)
    }

    /// A window call, sometimes inside arithmetic (`x - lag(x) OVER (...)`).
    pub(super) fn window_item(&mut self, ctx: &Ctx) -> Expr {
        let (w, k) = self.window(ctx);
        if k == Kind::Int && self.rng.chance(25) {
            let other = match ctx {
                Ctx::Row => self.column_of(Kind::Int).unwrap_or_else(|| lit("1")),
                Ctx::Groups(_) => lit(self.rng.range(-3, 4).to_string()),
            };
            let op = *self.rng.pick(&["+", "-"]);
            return Expr::Bin(op, w.boxed(), other.boxed());
        }
        w
    }

    /// A QUALIFY condition: a window call compared with a small number.
    pub(super) fn qualify(&mut self, ctx: &Ctx) -> Expr {
        let (w, k) = self.window(ctx);
        let bound = match k {
            Kind::Int => lit(self.rng.range(0, 4).to_string()),
            Kind::Float => lit("0.5"),
            _ => {
                return Expr::IsNull(w.boxed(), self.rng.chance(50));
            }
        };
        let op = *self.rng.pick(&["<=", ">", "=", "<>"]);
        Expr::Bin(op, w.boxed(), bound.boxed())
    }
}

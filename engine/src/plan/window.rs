//! Window functions in the plan: what one `f(...) OVER (...)` call
//! computes, over which partitions, in which order, over which frame.
//!
//! A [`LogicalPlan::Window`](super::LogicalPlan::Window) node passes its
//! input's rows and columns through and adds one column per call. The
//! binder gives every call its frame explicitly (DuckDB's default when
//! none is written: `RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW`,
//! which without ORDER BY is the whole partition, every row being a peer
//! of every other).

use crate::agg::func::AggCall;
use crate::expr::TExpr;
use crate::plan::OrderKey;
use crate::value::LType;

/// The functions a window call may compute.
#[derive(Debug, Clone, PartialEq)]
pub enum WindowFunc {
    /// `row_number()`: the row's position in its partition, from 1.
    RowNumber,
    /// `rank()`: one more than the rows ordered before the row's peers.
    Rank,
    /// `dense_rank()`: the number of the row's peer group, from 1.
    DenseRank,
    /// `percent_rank()`: `(rank - 1) / (rows - 1)`, 0 for one row.
    PercentRank,
    /// `cume_dist()`: the rows up to the row's last peer over all rows.
    CumeDist,
    /// `ntile(n)`: the row's bucket when the partition is cut into `n`.
    Ntile,
    /// `lag(x [, offset [, default]])`: `x` `offset` rows before.
    Lag,
    /// `lead(x [, offset [, default]])`: `x` `offset` rows after.
    Lead,
    /// `first_value(x)`: `x` at the frame's first row.
    FirstValue,
    /// `last_value(x)`: `x` at the frame's last row.
    LastValue,
    /// `nth_value(x, n)`: `x` at the frame's `n`-th row.
    NthValue,
    /// An aggregate over the frame's rows.
    Aggregate(Box<AggCall>),
}

impl WindowFunc {
    /// The function of a (lower-cased) name, if it is a window-only
    /// function (aggregates are recognised by [`AggFunc`]).
    ///
    /// [`AggFunc`]: crate::agg::func::AggFunc
    pub fn from_name(name: &str) -> Option<WindowFunc> {
        Some(match name {
            "row_number" => WindowFunc::RowNumber,
            "rank" => WindowFunc::Rank,
            "dense_rank" => WindowFunc::DenseRank,
            "percent_rank" => WindowFunc::PercentRank,
            "cume_dist" => WindowFunc::CumeDist,
            "ntile" => WindowFunc::Ntile,
            "lag" => WindowFunc::Lag,
            "lead" => WindowFunc::Lead,
            "first_value" => WindowFunc::FirstValue,
            "last_value" => WindowFunc::LastValue,
            "nth_value" => WindowFunc::NthValue,
            _ => return None,
        })
    }

    /// The SQL name.
    pub fn name(&self) -> &'static str {
        match self {
            WindowFunc::RowNumber => "row_number",
            WindowFunc::Rank => "rank",
            WindowFunc::DenseRank => "dense_rank",
            WindowFunc::PercentRank => "percent_rank",
            WindowFunc::CumeDist => "cume_dist",
            WindowFunc::Ntile => "ntile",
            WindowFunc::Lag => "lag",
            WindowFunc::Lead => "lead",
            WindowFunc::FirstValue => "first_value",
            WindowFunc::LastValue => "last_value",
            WindowFunc::NthValue => "nth_value",
            WindowFunc::Aggregate(a) => a.func.name(),
        }
    }

    /// Whether the frame decides the result (value functions and
    /// aggregates); ranking and `lag`/`lead` look at the whole partition.
    pub fn uses_frame(&self) -> bool {
        matches!(
            self,
            WindowFunc::FirstValue
                | WindowFunc::LastValue
                | WindowFunc::NthValue
                | WindowFunc::Aggregate(_)
        )
    }

    /// Whether `IGNORE NULLS` applies to it (DuckDB's value functions).
    pub fn takes_null_treatment(&self) -> bool {
        matches!(
            self,
            WindowFunc::Lag
                | WindowFunc::Lead
                | WindowFunc::FirstValue
                | WindowFunc::LastValue
                | WindowFunc::NthValue
        )
    }
}

/// What a frame's offsets count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameUnits {
    /// Rows.
    Rows,
    /// A distance between ORDER BY values.
    Range,
    /// Peer groups.
    Groups,
}

impl FrameUnits {
    /// The SQL keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            FrameUnits::Rows => "ROWS",
            FrameUnits::Range => "RANGE",
            FrameUnits::Groups => "GROUPS",
        }
    }
}

/// `n PRECEDING` or `n FOLLOWING`.
#[derive(Debug, Clone, PartialEq)]
pub struct Offset {
    /// `n` as written, evaluated per row: BIGINT for ROWS and GROUPS; for
    /// RANGE, of the type it was written in (checked not to be negative).
    pub n: TExpr,
    /// RANGE only: the boundary the ORDER BY value is compared with (the
    /// row's value minus or plus `n`, in the direction of the order), of
    /// the type of [`Frame::range_key`].
    pub bound: Option<TExpr>,
}

/// One end of a frame.
#[derive(Debug, Clone, PartialEq)]
pub enum FrameBound {
    /// `UNBOUNDED PRECEDING`: the partition's first row.
    UnboundedPreceding,
    /// `n PRECEDING`.
    Preceding(Offset),
    /// `CURRENT ROW` (for RANGE and GROUPS: the row's first or last peer).
    CurrentRow,
    /// `n FOLLOWING`.
    Following(Offset),
    /// `UNBOUNDED FOLLOWING`: the partition's last row.
    UnboundedFollowing,
}

impl FrameBound {
    /// The offset, if the bound has one.
    pub fn offset(&self) -> Option<&Offset> {
        match self {
            FrameBound::Preceding(o) | FrameBound::Following(o) => Some(o),
            _ => None,
        }
    }

    /// The offset, mutably.
    pub fn offset_mut(&mut self) -> Option<&mut Offset> {
        match self {
            FrameBound::Preceding(o) | FrameBound::Following(o) => Some(o),
            _ => None,
        }
    }

    /// Whether the offset (if any) is the same for every row.
    pub fn is_constant(&self) -> bool {
        self.offset().is_none_or(|o| o.n.is_constant())
    }

    fn show(&self, f: &dyn Fn(&TExpr) -> String) -> String {
        match self {
            FrameBound::UnboundedPreceding => "UNBOUNDED PRECEDING".into(),
            FrameBound::Preceding(o) => format!("{} PRECEDING", f(&o.n)),
            FrameBound::CurrentRow => "CURRENT ROW".into(),
            FrameBound::Following(o) => format!("{} FOLLOWING", f(&o.n)),
            FrameBound::UnboundedFollowing => "UNBOUNDED FOLLOWING".into(),
        }
    }
}

/// Rows of the frame left out again (`EXCLUDE ...`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exclude {
    /// `EXCLUDE NO OTHERS` (the default).
    NoOthers,
    /// `EXCLUDE CURRENT ROW`.
    CurrentRow,
    /// `EXCLUDE GROUP`: the row and its peers.
    Group,
    /// `EXCLUDE TIES`: the row's peers, not the row.
    Ties,
}

impl Exclude {
    /// The clause as written (empty for the default).
    pub fn clause(self) -> &'static str {
        match self {
            Exclude::NoOthers => "",
            Exclude::CurrentRow => " EXCLUDE CURRENT ROW",
            Exclude::Group => " EXCLUDE GROUP",
            Exclude::Ties => " EXCLUDE TIES",
        }
    }
}

/// The rows of its partition a call sees from each row.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// What the offsets count.
    pub units: FrameUnits,
    /// The first row.
    pub start: FrameBound,
    /// The last row.
    pub end: FrameBound,
    /// Rows left out.
    pub exclude: Exclude,
    /// RANGE with an offset: the (only) ORDER BY value, cast to the type
    /// the boundaries compare in.
    pub range_key: Option<TExpr>,
}

impl Frame {
    /// DuckDB's default: `RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW`.
    pub fn default_frame() -> Frame {
        Frame {
            units: FrameUnits::Range,
            start: FrameBound::UnboundedPreceding,
            end: FrameBound::CurrentRow,
            exclude: Exclude::NoOthers,
            range_key: None,
        }
    }

    /// The frame as SQL, expressions shown by `f`.
    pub fn show(&self, f: &dyn Fn(&TExpr) -> String) -> String {
        format!(
            "{} BETWEEN {} AND {}{}",
            self.units.keyword(),
            self.start.show(f),
            self.end.show(f),
            self.exclude.clause()
        )
    }

    /// Every expression of the frame.
    pub fn exprs(&self) -> Vec<&TExpr> {
        let mut out = Vec::new();
        for b in [&self.start, &self.end] {
            if let Some(o) = b.offset() {
                out.push(&o.n);
                out.extend(o.bound.as_ref());
            }
        }
        out.extend(self.range_key.as_ref());
        out
    }

    /// Every expression of the frame, mutably.
    pub fn exprs_mut(&mut self) -> Vec<&mut TExpr> {
        let mut out = Vec::new();
        for b in [&mut self.start, &mut self.end] {
            if let Some(o) = b.offset_mut() {
                out.push(&mut o.n);
                out.extend(o.bound.as_mut());
            }
        }
        out.extend(self.range_key.as_mut());
        out
    }
}

/// One window function call.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowCall {
    /// The function.
    pub func: WindowFunc,
    /// Its arguments over the input's columns (an aggregate's are in its
    /// [`AggCall`]).
    pub args: Vec<TExpr>,
    /// `IGNORE NULLS`.
    pub ignore_nulls: bool,
    /// PARTITION BY, over the input's columns.
    pub partition: Vec<TExpr>,
    /// ORDER BY, over the input's columns.
    pub order: Vec<OrderKey>,
    /// The frame (meaningful where [`WindowFunc::uses_frame`]).
    pub frame: Frame,
    /// The result type.
    pub ty: LType,
    /// The output column's name.
    pub name: String,
}

impl WindowCall {
    /// Every expression the call reads (arguments, partition and order
    /// keys, frame offsets).
    pub fn exprs(&self) -> Vec<&TExpr> {
        let mut out: Vec<&TExpr> = self.args.iter().collect();
        if let WindowFunc::Aggregate(a) = &self.func {
            out.extend(a.exprs());
        }
        out.extend(&self.partition);
        out.extend(self.order.iter().map(|k| &k.expr));
        out.extend(self.frame.exprs());
        out
    }

    /// Every expression the call reads, mutably.
    pub fn exprs_mut(&mut self) -> Vec<&mut TExpr> {
        let mut out: Vec<&mut TExpr> = self.args.iter_mut().collect();
        if let WindowFunc::Aggregate(a) = &mut self.func {
            out.extend(a.args.iter_mut());
            out.extend(a.filter.iter_mut());
            out.extend(a.order.iter_mut().map(|o| &mut o.expr));
        }
        out.extend(&mut self.partition);
        out.extend(self.order.iter_mut().map(|k| &mut k.expr));
        out.extend(self.frame.exprs_mut());
        out
    }

    /// The call with every expression rewritten by `f`.
    pub fn map_exprs(mut self, f: &mut dyn FnMut(TExpr) -> TExpr) -> WindowCall {
        for e in self.exprs_mut() {
            let taken = std::mem::replace(e, TExpr::lit(crate::value::Value::Null, LType::Null));
            *e = f(taken);
        }
        self
    }

    /// Whether two calls share partitions and order (one sort serves both).
    pub fn same_order(&self, other: &WindowCall) -> bool {
        self.partition == other.partition && self.order == other.order
    }

    /// The call as SQL, expressions shown by `f` (EXPLAIN).
    pub fn show(&self, f: &dyn Fn(&TExpr) -> String) -> String {
        let mut args: Vec<String> = match &self.func {
            WindowFunc::Aggregate(a) => {
                let d = if a.distinct { "DISTINCT " } else { "" };
                let mut shown: Vec<String> = a.args.iter().map(f).collect();
                if shown.is_empty() {
                    shown.push("*".into());
                }
                let mut call = format!("{d}{}", shown.join(", "));
                if !a.order.is_empty() {
                    let keys: Vec<String> = a
                        .order
                        .iter()
                        .map(|o| {
                            let dir = if o.desc { " DESC" } else { "" };
                            format!("{}{dir}", f(&o.expr))
                        })
                        .collect();
                    call.push_str(&format!(" ORDER BY {}", keys.join(", ")));
                }
                if let Some(x) = &a.filter {
                    call.push_str(&format!(") FILTER (WHERE {}", f(x)));
                }
                vec![call]
            }
            _ => self.args.iter().map(f).collect(),
        };
        if self.ignore_nulls {
            if let Some(last) = args.last_mut() {
                last.push_str(" IGNORE NULLS");
            }
        }
        let mut over = Vec::new();
        if !self.partition.is_empty() {
            let p: Vec<String> = self.partition.iter().map(f).collect();
            over.push(format!("PARTITION BY {}", p.join(", ")));
        }
        if !self.order.is_empty() {
            over.push(format!(
                "ORDER BY {}",
                crate::plan::display::keys(&self.order, f)
            ));
        }
        if self.func.uses_frame() {
            over.push(self.frame.show(f));
        }
        format!(
            "{}({}) OVER ({})",
            self.func.name(),
            args.join(", "),
            over.join(" ")
        )
    }
}

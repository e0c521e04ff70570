//! Aggregate functions: their names, argument checks and result types
//! (DuckDB's), shared by the binder, the plan and both aggregation engines.
//!
//! Adding an aggregate function: a variant of [`AggFunc`], its name in
//! [`AggFunc::from_name`], its result type in [`AggFunc::result_type`], and
//! its accumulator in [`crate::agg::accumulate`]. The sorted-vector engine
//! ([`crate::agg::layout`]) answers the functions it has states for; the
//! `aggregate_into_table` rule leaves the others to the hash aggregate.

use crate::error::{invalid, Result};
use crate::expr::TExpr;
use crate::value::LType;

/// Aggregate functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AggFunc {
    /// `COUNT(*)`
    CountStar,
    /// `COUNT(x)`, or `COUNT(DISTINCT x)` when the call is distinct
    Count,
    /// `SUM(x)`
    Sum,
    /// `AVG(x)`
    Avg,
    /// `MIN(x)`
    Min,
    /// `MAX(x)`
    Max,
}

impl AggFunc {
    /// The function a (lower-cased) name calls, if it is an aggregate.
    pub fn from_name(name: &str) -> Option<AggFunc> {
        Some(match name {
            "count" => AggFunc::Count,
            "sum" => AggFunc::Sum,
            "avg" | "mean" => AggFunc::Avg,
            "min" => AggFunc::Min,
            "max" => AggFunc::Max,
            _ => return None,
        })
    }

    /// Whether `name` (lower-cased) is an aggregate function.
    pub fn is_aggregate(name: &str) -> bool {
        AggFunc::from_name(name).is_some()
    }

    /// The SQL name.
    pub fn name(self) -> &'static str {
        match self {
            AggFunc::CountStar | AggFunc::Count => "count",
            AggFunc::Sum => "sum",
            AggFunc::Avg => "avg",
            AggFunc::Min => "min",
            AggFunc::Max => "max",
        }
    }

    /// The result type for an argument of type `arg` (DuckDB's rules).
    pub fn result_type(self, arg: LType) -> Result<LType> {
        Ok(match self {
            AggFunc::CountStar | AggFunc::Count => LType::Int64,
            AggFunc::Sum => match arg {
                t if t.is_integer() => LType::HugeInt,
                LType::Float | LType::Double => LType::Double,
                LType::Decimal(_, s) => LType::Decimal(38, s),
                LType::Null => LType::HugeInt,
                t => return invalid(format!("sum() of {t} is not supported")),
            },
            AggFunc::Avg => match arg {
                t if t.is_numeric() || t == LType::Null => LType::Double,
                t => return invalid(format!("avg() of {t} is not supported")),
            },
            AggFunc::Min | AggFunc::Max => arg,
        })
    }
}

/// One aggregate call.
#[derive(Debug, Clone, PartialEq)]
pub struct AggCall {
    /// The function.
    pub func: AggFunc,
    /// Its argument (`None` for `COUNT(*)`).
    pub arg: Option<TExpr>,
    /// `DISTINCT`.
    pub distinct: bool,
    /// Result type.
    pub ty: LType,
}

impl std::fmt::Display for AggCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let arg = self.arg.as_ref().map_or("*".to_string(), |a| a.to_string());
        let d = if self.distinct { "DISTINCT " } else { "" };
        write!(f, "{}({d}{arg})", self.func.name())
    }
}

/// Grouping and aggregation (as the table engine runs it).
#[derive(Debug, Clone, PartialEq)]
pub struct Aggregation {
    /// Group keys over table columns.
    pub keys: Vec<TExpr>,
    /// Aggregates; output slot `keys.len() + i` is aggregate `i`.
    pub aggs: Vec<AggCall>,
}

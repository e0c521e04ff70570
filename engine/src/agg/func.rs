//! Aggregate functions: their names, argument checks and result types
//! (DuckDB's), shared by the binder, the plan and both aggregation engines.
//!
//! Adding an aggregate function takes these steps, all but the last in
//! this file or the hash engine's:
//! 1. a variant of [`AggFunc`] and its names in [`AggFunc::from_name`] and
//!    [`AggFunc::name`];
//! 2. its arguments and result type in [`AggFunc::signature`] (arguments
//!    are cast there, e.g. statistics take DOUBLE), and in
//!    [`AggFunc::empty_value`] if it is not NULL over no rows;
//! 3. whether it is [`AggFunc::order_sensitive`] or
//!    [`AggFunc::ignores_distinct`], if so;
//! 4. its accumulation in [`crate::agg::fold::fold`] (the hash aggregate,
//!    which also runs window aggregates): every function must have one.
//!
//! Optionally, the sorted-vector engine of the table engine answers it too:
//! a state kind in [`crate::agg::layout::StateKind::of`] (a fixed number of
//! words per group, updated per distinct value with a multiplicity), or a
//! result computed from each group's value-sorted distinct values and their
//! counts in [`crate::agg::holistic`] (see [`AggCall::from_values`]). A
//! function without either is left to the hash aggregate by the
//! `aggregate_into_table` rule.

use crate::error::{invalid, unsupported, Result};
use crate::expr::TExpr;
use crate::value::{decimal_to_f64, LType, Value};

/// Aggregate functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AggFunc {
    /// `COUNT(*)`
    CountStar,
    /// `COUNT(x)`
    Count,
    /// `SUM(x)`
    Sum,
    /// `AVG(x)`
    Avg,
    /// `MIN(x)`
    Min,
    /// `MAX(x)`
    Max,
    /// `median(x)`: `quantile_cont(x, 0.5)` for types that interpolate,
    /// `quantile_disc(x, 0.5)` for the others.
    Median,
    /// `quantile_cont(x, q)`, `percentile_cont(q) WITHIN GROUP (ORDER BY x)`
    QuantileCont,
    /// `quantile_disc(x, q)`, `quantile(x, q)`, `percentile_disc(q) WITHIN
    /// GROUP (ORDER BY x)`
    QuantileDisc,
    /// `mode(x)`: the most frequent value (ties: the smallest, or the first
    /// in the call's ORDER BY).
    Mode,
    /// `entropy(x)` (base 2, over the value counts).
    Entropy,
    /// `var_samp(x)`, `variance(x)`
    VarSamp,
    /// `var_pop(x)`
    VarPop,
    /// `stddev_samp(x)`, `stddev(x)`
    StddevSamp,
    /// `stddev_pop(x)`
    StddevPop,
    /// `kurtosis(x)` (sample excess kurtosis)
    Kurtosis,
    /// `kurtosis_pop(x)`
    KurtosisPop,
    /// `skewness(x)`
    Skewness,
    /// `corr(y, x)`
    Corr,
    /// `covar_samp(y, x)`
    CovarSamp,
    /// `covar_pop(y, x)`
    CovarPop,
    /// `regr_slope(y, x)`
    RegrSlope,
    /// `regr_intercept(y, x)`
    RegrIntercept,
    /// `regr_count(y, x)`
    RegrCount,
    /// `regr_r2(y, x)`
    RegrR2,
    /// `regr_avgx(y, x)`
    RegrAvgX,
    /// `regr_avgy(y, x)`
    RegrAvgY,
    /// `regr_sxx(y, x)`
    RegrSxx,
    /// `regr_syy(y, x)`
    RegrSyy,
    /// `regr_sxy(y, x)`
    RegrSxy,
    /// `string_agg(x [, sep])`, `listagg`, `group_concat`
    StringAgg,
    /// `array_agg(x)`, `list`: the values (NULLs included) as a LIST.
    ArrayAgg,
    /// `arg_max(x, by)`, `max_by`: `x` of the row with the largest `by`
    /// (rows where either is NULL are skipped).
    ArgMax,
    /// `arg_min(x, by)`, `min_by`
    ArgMin,
    /// `any_value(x)`: the first non-NULL value.
    AnyValue,
    /// `first(x)`: the first value, NULL or not.
    First,
    /// `last(x)`: the last value, NULL or not.
    Last,
    /// `approx_count_distinct(x)` (HyperLogLog, [`crate::agg::hll`]).
    ApproxCountDistinct,
    /// `bool_and(x)`
    BoolAnd,
    /// `bool_or(x)`
    BoolOr,
    /// `bit_and(x)`
    BitAnd,
    /// `bit_or(x)`
    BitOr,
    /// `bit_xor(x)`
    BitXor,
    /// `count_if(x)`: the number of TRUE values (HUGEINT, NULL without
    /// non-NULL input).
    CountIf,
    /// `product(x)`
    Product,
    /// `fsum(x)`, `sumkahan`, `kahan_sum`: compensated double sum.
    FSum,
    /// `favg(x)`: compensated double average.
    FAvg,
    /// `grouping(k, ...)`, `grouping_id`: which of the keys a grouping set
    /// leaves out, as bits (the first key most significant). Its arguments
    /// are group keys; the grouping-set plan replaces it by a constant.
    Grouping,
}

/// A constant parameter of an aggregate call.
#[derive(Debug, Clone, PartialEq)]
pub enum AggParam {
    /// None.
    None,
    /// The fraction of a quantile.
    Quantile(Quantile),
    /// The separator of `string_agg` (NULL makes every result NULL).
    Separator(Option<Vec<u8>>),
}

/// A quantile fraction, as DuckDB keeps it: negative fractions (and
/// `WITHIN GROUP (ORDER BY x DESC)`) count from the largest value.
#[derive(Debug, Clone, PartialEq)]
pub struct Quantile {
    /// The fraction, between 0 and 1.
    pub q: f64,
    /// For a DECIMAL fraction: its scaled integer and `10^scale` (the
    /// discrete position is computed exactly from them).
    pub exact: Option<(i128, i128)>,
    /// Count from the largest value.
    pub desc: bool,
}

impl Quantile {
    /// The median.
    pub fn median() -> Quantile {
        Quantile {
            q: 0.5,
            exact: Some((5, 10)),
            desc: false,
        }
    }

    /// A quantile from a constant fraction (`None` for NULL).
    pub fn from_value(v: &Value, ty: LType) -> Result<Quantile> {
        let (q, exact) = match (v, ty) {
            (Value::Null, _) => {
                return invalid("the quantile argument of a quantile function must not be NULL")
            }
            (Value::Int(i), LType::Decimal(_, s)) => {
                let scaling = 10i128.pow(u32::from(s));
                (
                    decimal_to_f64(i128::from(*i), s),
                    Some((i128::from(*i), scaling)),
                )
            }
            (Value::Huge(i), LType::Decimal(_, s)) => {
                let scaling = 10i128.pow(u32::from(s));
                (decimal_to_f64(*i, s), Some((*i, scaling)))
            }
            (Value::Int(i), _) => (*i as f64, Some((i128::from(*i), 1))),
            (Value::UInt(i), _) => (*i as f64, Some((i128::from(*i), 1))),
            (Value::Huge(i), _) => (*i as f64, Some((*i, 1))),
            (Value::Float(f), _) => (*f, None),
            _ => return invalid("the quantile argument of a quantile function must be a number"),
        };
        if !(-1.0..=1.0).contains(&q) {
            return invalid("QUANTILE can only take parameters in the range [-1, 1]");
        }
        let desc = q < 0.0 || (q == 0.0 && v_is_negative_zero(v));
        Ok(Quantile {
            q: q.abs(),
            exact: exact.map(|(i, s)| (i.abs(), s)),
            desc,
        })
    }
}

fn v_is_negative_zero(v: &Value) -> bool {
    matches!(v, Value::Float(f) if *f == 0.0 && f.is_sign_negative())
}

/// One ORDER BY key of an ordered aggregate.
#[derive(Debug, Clone, PartialEq)]
pub struct AggOrder {
    /// The key.
    pub expr: TExpr,
    /// Descending.
    pub desc: bool,
    /// NULLs first.
    pub nulls_first: bool,
}

/// What an aggregate's arguments must be.
enum Args {
    /// Any type, kept.
    Any,
    /// Numeric (or NULL), cast to DOUBLE.
    Double,
    /// BOOLEAN.
    Bool,
    /// An integer type, kept.
    Integer,
}

impl AggFunc {
    /// The function a (lower-cased) name calls, if it is an aggregate.
    pub fn from_name(name: &str) -> Option<AggFunc> {
        use AggFunc::*;
        Some(match name {
            "count" => Count,
            "sum" => Sum,
            "avg" | "mean" => Avg,
            "min" => Min,
            "max" => Max,
            "median" => Median,
            "quantile_cont" | "percentile_cont" => QuantileCont,
            "quantile_disc" | "quantile" | "percentile_disc" => QuantileDisc,
            "mode" => Mode,
            "entropy" => Entropy,
            "var_samp" | "variance" => VarSamp,
            "var_pop" => VarPop,
            "stddev_samp" | "stddev" => StddevSamp,
            "stddev_pop" => StddevPop,
            "kurtosis" => Kurtosis,
            "kurtosis_pop" => KurtosisPop,
            "skewness" => Skewness,
            "corr" => Corr,
            "covar_samp" => CovarSamp,
            "covar_pop" => CovarPop,
            "regr_slope" => RegrSlope,
            "regr_intercept" => RegrIntercept,
            "regr_count" => RegrCount,
            "regr_r2" => RegrR2,
            "regr_avgx" => RegrAvgX,
            "regr_avgy" => RegrAvgY,
            "regr_sxx" => RegrSxx,
            "regr_syy" => RegrSyy,
            "regr_sxy" => RegrSxy,
            "string_agg" | "listagg" | "group_concat" => StringAgg,
            "array_agg" | "list" => ArrayAgg,
            "arg_max" | "max_by" | "argmax" => ArgMax,
            "arg_min" | "min_by" | "argmin" => ArgMin,
            "any_value" => AnyValue,
            "first" | "arbitrary" => First,
            "last" => Last,
            "approx_count_distinct" => ApproxCountDistinct,
            "bool_and" => BoolAnd,
            "bool_or" => BoolOr,
            "bit_and" => BitAnd,
            "bit_or" => BitOr,
            "bit_xor" => BitXor,
            "count_if" | "countif" => CountIf,
            "product" => Product,
            "fsum" | "sumkahan" | "kahan_sum" => FSum,
            "favg" => FAvg,
            "grouping" | "grouping_id" => Grouping,
            _ => return None,
        })
    }

    /// Whether `name` (lower-cased) is an aggregate function.
    pub fn is_aggregate(name: &str) -> bool {
        AggFunc::from_name(name).is_some()
    }

    /// The SQL name.
    pub fn name(self) -> &'static str {
        use AggFunc::*;
        match self {
            CountStar | Count => "count",
            Sum => "sum",
            Avg => "avg",
            Min => "min",
            Max => "max",
            Median => "median",
            QuantileCont => "quantile_cont",
            QuantileDisc => "quantile_disc",
            Mode => "mode",
            Entropy => "entropy",
            VarSamp => "var_samp",
            VarPop => "var_pop",
            StddevSamp => "stddev_samp",
            StddevPop => "stddev_pop",
            Kurtosis => "kurtosis",
            KurtosisPop => "kurtosis_pop",
            Skewness => "skewness",
            Corr => "corr",
            CovarSamp => "covar_samp",
            CovarPop => "covar_pop",
            RegrSlope => "regr_slope",
            RegrIntercept => "regr_intercept",
            RegrCount => "regr_count",
            RegrR2 => "regr_r2",
            RegrAvgX => "regr_avgx",
            RegrAvgY => "regr_avgy",
            RegrSxx => "regr_sxx",
            RegrSyy => "regr_syy",
            RegrSxy => "regr_sxy",
            StringAgg => "string_agg",
            ArrayAgg => "array_agg",
            ArgMax => "arg_max",
            ArgMin => "arg_min",
            AnyValue => "any_value",
            First => "first",
            Last => "last",
            ApproxCountDistinct => "approx_count_distinct",
            BoolAnd => "bool_and",
            BoolOr => "bool_or",
            BitAnd => "bit_and",
            BitOr => "bit_or",
            BitXor => "bit_xor",
            CountIf => "count_if",
            Product => "product",
            FSum => "fsum",
            FAvg => "favg",
            Grouping => "grouping",
        }
    }

    /// Whether the result depends on the order rows are fed in (beyond the
    /// rounding of floating-point sums), so that an `ORDER BY` inside the
    /// call matters. The others ignore it, as DuckDB does.
    pub fn order_sensitive(self) -> bool {
        use AggFunc::*;
        matches!(
            self,
            StringAgg | ArrayAgg | ArgMax | ArgMin | AnyValue | First | Last | Mode
        )
    }

    /// Whether `DISTINCT` cannot change the result (duplicates change
    /// nothing), so that the binder drops it.
    pub fn ignores_distinct(self) -> bool {
        use AggFunc::*;
        matches!(
            self,
            Min | Max | BoolAnd | BoolOr | BitAnd | BitOr | AnyValue | ApproxCountDistinct
        )
    }

    /// Whether rows whose arguments are NULL are skipped.
    pub fn skips_nulls(self) -> bool {
        !matches!(
            self,
            AggFunc::First | AggFunc::Last | AggFunc::CountStar | AggFunc::ArrayAgg
        )
    }

    /// The value over no rows (DuckDB's): 0 for the counts and entropy,
    /// NULL for the others.
    pub fn empty_value(self) -> Value {
        use AggFunc::*;
        match self {
            CountStar | Count | ApproxCountDistinct | RegrCount => Value::Int(0),
            Entropy => Value::Float(0.0),
            _ => Value::Null,
        }
    }

    /// The number of expression arguments (before constant parameters).
    pub fn arity(self) -> usize {
        use AggFunc::*;
        match self {
            CountStar => 0,
            Corr | CovarSamp | CovarPop | RegrSlope | RegrIntercept | RegrCount | RegrR2
            | RegrAvgX | RegrAvgY | RegrSxx | RegrSyy | RegrSxy | ArgMax | ArgMin => 2,
            _ => 1,
        }
    }

    fn args_kind(self) -> Args {
        use AggFunc::*;
        match self {
            VarSamp | VarPop | StddevSamp | StddevPop | Kurtosis | KurtosisPop | Skewness
            | Corr | CovarSamp | CovarPop | RegrSlope | RegrIntercept | RegrCount | RegrR2
            | RegrAvgX | RegrAvgY | RegrSxx | RegrSyy | RegrSxy | Product | FSum | FAvg => {
                Args::Double
            }
            BoolAnd | BoolOr | CountIf => Args::Bool,
            BitAnd | BitOr | BitXor => Args::Integer,
            _ => Args::Any,
        }
    }

    /// Checks (and casts) the arguments of a call, returning them with the
    /// result type (DuckDB's rules). `cast` casts an expression.
    pub fn signature(
        self,
        mut args: Vec<TExpr>,
        cast: &dyn Fn(TExpr, LType) -> Result<TExpr>,
    ) -> Result<(Vec<TExpr>, LType)> {
        use AggFunc::*;
        let name = self.name();
        let no_match = |t: LType| {
            invalid::<(Vec<TExpr>, LType)>(format!(
                "No function matches the given name and argument types '{name}({t})'"
            ))
        };
        for a in &mut args {
            let t = a.ty;
            match self.args_kind() {
                Args::Any => {}
                Args::Double => {
                    if !(t.is_numeric() || t == LType::Null) {
                        return no_match(t);
                    }
                    if t != LType::Double {
                        *a = cast(a.clone(), LType::Double)?;
                    }
                }
                Args::Bool => match t {
                    LType::Bool => {}
                    LType::Null => *a = cast(a.clone(), LType::Bool)?,
                    _ => return no_match(t),
                },
                Args::Integer => match t {
                    t if t.is_integer() => {}
                    LType::Null => *a = cast(a.clone(), LType::Int32)?,
                    _ => return no_match(t),
                },
            }
        }
        // An untyped NULL interpolates as a DOUBLE (DuckDB's `median(NULL)`).
        if matches!(self, Median | QuantileCont) {
            if let Some(a) = args.first_mut().filter(|a| a.ty == LType::Null) {
                *a = cast(a.clone(), LType::Double)?;
            }
        }
        let first = args.first().map_or(LType::Null, |a| a.ty);
        let takes_lists = matches!(self, Count | CountStar | ArrayAgg | First | Last | AnyValue);
        if let Some(l) = args.iter().find(|a| matches!(a.ty, LType::List(_))) {
            if !takes_lists || args.len() > 1 {
                return unsupported(format!("{name}() of a {}", l.ty));
            }
        }
        let ty = match self {
            CountStar | Count | ApproxCountDistinct | Grouping => LType::Int64,
            Sum => match first {
                t if t.is_integer() => LType::HugeInt,
                LType::Float | LType::Double => LType::Double,
                LType::Decimal(_, s) => LType::Decimal(38, s),
                LType::Null => LType::HugeInt,
                t => return invalid(format!("sum() of {t} is not supported")),
            },
            Avg => match first {
                t if t.is_numeric() || t == LType::Null => LType::Double,
                LType::Date | LType::Timestamp => {
                    return unsupported(format!("avg() of {first} (DuckDB answers a TIMESTAMP)"))
                }
                t => return invalid(format!("avg() of {t} is not supported")),
            },
            Min | Max | Mode | AnyValue | First | Last | QuantileDisc | BitAnd | BitOr | BitXor => {
                first
            }
            ArgMax | ArgMin => first,
            Median => match cont_type(first) {
                Some(t) => t,
                None => first,
            },
            QuantileCont => match cont_type(first) {
                Some(t) => t,
                None => return no_match(first),
            },
            Entropy | VarSamp | VarPop | StddevSamp | StddevPop | Kurtosis | KurtosisPop
            | Skewness | Corr | CovarSamp | CovarPop | RegrSlope | RegrIntercept | RegrR2
            | RegrAvgX | RegrAvgY | RegrSxx | RegrSyy | RegrSxy | Product | FSum | FAvg => {
                LType::Double
            }
            RegrCount => LType::UInt32,
            StringAgg => {
                if let Some(a) = args.first_mut() {
                    if a.ty != LType::Varchar {
                        *a = cast(a.clone(), LType::Varchar)?;
                    }
                }
                LType::Varchar
            }
            ArrayAgg => match first {
                LType::Null => crate::list::list_of(LType::Int32),
                t => crate::list::list_of(t),
            },
            BoolAnd | BoolOr => LType::Bool,
            CountIf => LType::HugeInt,
        };
        Ok((args, ty))
    }
}

/// The result type of `quantile_cont` over `t`, or `None` when `t` does
/// not interpolate (then `median` is discrete).
pub fn cont_type(t: LType) -> Option<LType> {
    Some(match t {
        t if t.is_integer() => LType::Double,
        LType::Float | LType::Double | LType::Decimal(..) | LType::Timestamp => t,
        LType::Date => LType::Timestamp,
        _ => return None,
    })
}

/// One aggregate call.
#[derive(Debug, Clone, PartialEq)]
pub struct AggCall {
    /// The function.
    pub func: AggFunc,
    /// Its expression arguments (none for `COUNT(*)`; for `grouping()` the
    /// group keys it tests).
    pub args: Vec<TExpr>,
    /// `DISTINCT`: each distinct argument value (tuple) counts once.
    pub distinct: bool,
    /// `FILTER (WHERE ...)`: only rows where it is TRUE count.
    pub filter: Option<TExpr>,
    /// `ORDER BY` inside the call (kept only where it matters, see
    /// [`AggFunc::order_sensitive`]).
    pub order: Vec<AggOrder>,
    /// A constant parameter (quantile fraction, separator).
    pub param: AggParam,
    /// Result type.
    pub ty: LType,
}

impl AggCall {
    /// A plain call: no DISTINCT, FILTER, ORDER BY or parameter.
    pub fn new(func: AggFunc, args: Vec<TExpr>, ty: LType) -> AggCall {
        AggCall {
            func,
            args,
            distinct: false,
            filter: None,
            order: Vec::new(),
            param: AggParam::None,
            ty,
        }
    }

    /// `COUNT(*)`.
    pub fn count_star() -> AggCall {
        AggCall::new(AggFunc::CountStar, Vec::new(), LType::Int64)
    }

    /// The first argument.
    pub fn arg(&self) -> Option<&TExpr> {
        self.args.first()
    }

    /// Whether the call is plain: no FILTER or ORDER BY.
    pub fn is_plain(&self) -> bool {
        self.filter.is_none() && self.order.is_empty()
    }

    /// Every expression of the call: arguments, FILTER, ORDER BY keys.
    pub fn exprs(&self) -> Vec<&TExpr> {
        let mut v: Vec<&TExpr> = self.args.iter().collect();
        v.extend(self.filter.iter());
        v.extend(self.order.iter().map(|o| &o.expr));
        v
    }

    /// The call with `f` applied to each of its expressions.
    pub fn map_exprs(self, f: &mut dyn FnMut(TExpr) -> TExpr) -> AggCall {
        AggCall {
            args: self.args.into_iter().map(&mut *f).collect(),
            filter: self.filter.map(&mut *f),
            order: self
                .order
                .into_iter()
                .map(|o| AggOrder {
                    expr: f(o.expr),
                    ..o
                })
                .collect(),
            ..self
        }
    }

    /// Whether the sorted-vector engine computes this call from each
    /// group's distinct argument values and their counts (a pass grouping
    /// by the keys and the argument) rather than from per-row states:
    /// DISTINCT calls and the holistic functions.
    pub fn from_values(&self) -> bool {
        use AggFunc::*;
        self.distinct
            || matches!(
                self.func,
                Median | QuantileCont | QuantileDisc | Mode | Entropy | ApproxCountDistinct
            )
    }

    /// The call as SQL, with `show` printing its expressions.
    pub fn show(&self, show: &dyn Fn(&TExpr) -> String) -> String {
        let mut args: Vec<String> = self.args.iter().map(show).collect();
        match &self.param {
            AggParam::None => {}
            AggParam::Quantile(q) => {
                if self.func != AggFunc::Median {
                    args.push(format!("{}{}", if q.desc { "-" } else { "" }, q.q));
                }
            }
            AggParam::Separator(s) => args.push(match s {
                Some(s) => format!("'{}'", String::from_utf8_lossy(s).replace('\'', "''")),
                None => "NULL".into(),
            }),
        }
        if args.is_empty() && self.func == AggFunc::CountStar {
            args.push("*".into());
        }
        let mut out = format!(
            "{}({}{}",
            self.func.name(),
            if self.distinct { "DISTINCT " } else { "" },
            args.join(", ")
        );
        if !self.order.is_empty() {
            let keys: Vec<String> = self
                .order
                .iter()
                .map(|o| {
                    format!(
                        "{}{}{}",
                        show(&o.expr),
                        if o.desc { " DESC" } else { "" },
                        if o.nulls_first != o.desc {
                            if o.nulls_first {
                                " NULLS FIRST"
                            } else {
                                " NULLS LAST"
                            }
                        } else {
                            ""
                        }
                    )
                })
                .collect();
            out.push_str(&format!(" ORDER BY {}", keys.join(", ")));
        }
        out.push(')');
        if let Some(f) = &self.filter {
            out.push_str(&format!(" FILTER (WHERE {})", show(f)));
        }
        out
    }
}

impl std::fmt::Display for AggCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.show(&|e| e.to_string()))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantile_fractions() {
        let q = Quantile::from_value(&Value::Int(-25), LType::Decimal(3, 2))
            .unwrap_or_else(|_| Quantile::median());
        assert!(q.desc);
        assert_eq!(q.exact, Some((25, 100)));
        assert!(Quantile::from_value(&Value::Float(1.5), LType::Double).is_err());
        assert!(Quantile::from_value(&Value::Null, LType::Double).is_err());
    }

    #[test]
    fn every_name_round_trips() {
        for name in [
            "median",
            "stddev",
            "string_agg",
            "bit_xor",
            "regr_r2",
            "grouping_id",
        ] {
            assert!(AggFunc::is_aggregate(name), "{name}");
        }
        assert_eq!(AggFunc::from_name("max_by"), Some(AggFunc::ArgMax));
        assert!(!AggFunc::is_aggregate("abs"));
    }
}

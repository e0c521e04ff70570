//! The scalar function table beyond [`super::function`]'s: math, the
//! string functions of [`crate::expr::strfn`] with their argument types,
//! regular expressions with options, conditionals, `hash`, and the date,
//! timestamp and INTERVAL functions and arithmetic of
//! [`crate::expr::datetime`], each with DuckDB's names, argument and result
//! types. A name not found here is "not supported".

use sqlparser::ast as sql;

use super::coerce::{cast_to, combined_type, common_type};
use super::expr::ExprBinder;
use super::function::str_call;
use super::literal::date_part;
use crate::error::{invalid, unsupported, Result};
use crate::expr::datetime::TimeFn;
use crate::expr::math::{BitOp, MathFn, Unary};
use crate::expr::rounding::Rounding;
use crate::expr::scalar::Func;
use crate::expr::strfn::{Re, ReOptions, StrFn};
use crate::expr::{ArithOp, DatePart, ExprKind, TExpr};
use crate::interval::{self, Interval};
use crate::value::{LType, Value};

/// A call of `f` over `args` already cast, of type `ty`.
fn call(f: Func, args: Vec<TExpr>, ty: LType) -> TExpr {
    TExpr {
        kind: ExprKind::Func(Box::new(f), args),
        ty,
    }
}

/// A bitwise operator over integers (`&`, `|`, `xor`, `<<`, `>>`, `~`): the
/// operands meet in their common integer type, which is the result's (a
/// NULL constant operand makes an INTEGER NULL). `literal` says which
/// operands are written as literals (only those take the other side's type
/// when they fit, as in arithmetic).
pub(crate) fn bitwise_call(op: BitOp, args: Vec<TExpr>, literal: &[bool]) -> Result<TExpr> {
    if let Some(bad) = args
        .iter()
        .find(|a| !(a.ty.is_integer() || a.ty == LType::Null))
    {
        let types: Vec<String> = args.iter().map(|a| a.ty.to_string()).collect();
        return invalid(format!(
            "No function matches the given name and argument types '{}({})': {} is not an integer",
            MathFn::Bit(op).name(),
            types.join(", "),
            bad.ty
        ));
    }
    let typing = |(i, e): (usize, &TExpr)| TExpr {
        kind: if literal.get(i).copied().unwrap_or(true) {
            e.kind.clone()
        } else {
            ExprKind::Col(0)
        },
        ty: e.ty,
    };
    let mut ty = match args.as_slice() {
        [a, b] => common_type(&typing((0, a)), &typing((1, b)))?,
        _ => args.first().map_or(LType::Null, |a| a.ty),
    };
    if ty == LType::Null {
        ty = LType::Int32;
    }
    if args.iter().any(|a| a.as_lit() == Some(&Value::Null)) {
        return Ok(TExpr::lit(Value::Null, ty));
    }
    let args = args
        .into_iter()
        .map(|a| cast_to(a, ty))
        .collect::<Result<Vec<_>>>()?;
    Ok(call(Func::Math(MathFn::Bit(op)), args, ty))
}

/// Whether `ty` may stand where a number is wanted (numbers and NULL).
fn numeric(ty: LType) -> bool {
    ty.is_numeric() || ty == LType::Null
}

fn is_time(ty: LType) -> bool {
    matches!(ty, LType::Date | LType::Timestamp)
}

/// A constant string argument.
fn const_str<'e>(e: &'e TExpr, what: &str) -> Result<Option<&'e [u8]>> {
    match e.as_lit() {
        Some(Value::Str(s)) => Ok(Some(s)),
        Some(Value::Null) => Ok(None),
        _ => unsupported(format!("{what} that is not a constant")),
    }
}

/// An interval constant.
pub(crate) fn interval_lit(i: Interval) -> TExpr {
    TExpr::lit(Value::Huge(interval::pack(i)), LType::Interval)
}

/// The unit name of an interval's leading field (`DAY`, `HOUR`, ...).
fn unit_name(f: &sql::DateTimeField) -> String {
    f.to_string().to_lowercase()
}

/// A regular expression call (`kind`: matches, full match, extract with a
/// group, replace with a replacement), its pattern and options constant.
fn regex_call(x: TExpr, pattern: &TExpr, options: Option<&TExpr>, kind: ReKind) -> Result<TExpr> {
    let Some(p) = const_str(pattern, "a regular expression pattern")? else {
        return Ok(TExpr::lit(Value::Null, kind.result_type()));
    };
    let mut o = match options {
        None => ReOptions::default(),
        Some(e) => match const_str(e, "regular expression options")? {
            Some(t) => ReOptions::parse(t)?,
            None => return Ok(TExpr::lit(Value::Null, kind.result_type())),
        },
    };
    if matches!(kind, ReKind::Full) {
        o.full = true;
    }
    let re = Box::new(Re::with_options(&String::from_utf8_lossy(p), &o)?);
    let f = match kind {
        ReKind::Matches | ReKind::Full => StrFn::RegexpMatches(re),
        ReKind::Extract(g) => StrFn::RegexpExtract(re, g),
        ReKind::Replace(r) => {
            StrFn::RegexpReplace(re, crate::expr::strfn::translate_replacement(&r), o.global)
        }
    };
    str_call(f, vec![x])
}

/// What a regular expression call computes.
enum ReKind {
    Matches,
    Full,
    Extract(usize),
    Replace(Vec<u8>),
}

impl ReKind {
    fn result_type(&self) -> LType {
        match self {
            ReKind::Matches | ReKind::Full => LType::Bool,
            _ => LType::Varchar,
        }
    }
}

/// `x ~ p`, `x !~ p`, `x ~* p`, `x !~* p` (partial matches) and
/// `x [NOT] SIMILAR TO p` (`full`).
pub(crate) fn regex_op(x: TExpr, p: TExpr, ci: bool, negated: bool, full: bool) -> Result<TExpr> {
    if x.ty == LType::Null || p.ty == LType::Null {
        return Ok(TExpr::lit(Value::Null, LType::Bool));
    }
    if x.ty != LType::Varchar || p.ty != LType::Varchar {
        return invalid(format!("regular expression match of {} and {}", x.ty, p.ty));
    }
    let opts = TExpr::lit(
        Value::Str(if ci { b"i".to_vec() } else { Vec::new() }),
        LType::Varchar,
    );
    let kind = if full { ReKind::Full } else { ReKind::Matches };
    let m = regex_call(x, &p, Some(&opts), kind)?;
    Ok(if negated { super::function::not(m) } else { m })
}

/// `TIMESTAMP` / `DATE` / `INTERVAL` arithmetic (`None` when neither
/// operand is an INTERVAL nor both are timestamps): DuckDB's results.
pub(crate) fn time_arith(op: ArithOp, l: TExpr, r: TExpr) -> Result<Option<TExpr>> {
    use LType as T;
    let (lt, rt) = (l.ty, r.ty);
    // A TIMESTAMP and an untyped NULL: NULL of the type DuckDB gives.
    let null = |ty| Ok(Some(TExpr::lit(Value::Null, ty)));
    match (op, lt, rt) {
        (ArithOp::Sub, T::Null, T::Timestamp) => return null(T::Interval),
        (ArithOp::Add | ArithOp::Sub, T::Timestamp, T::Null)
        | (ArithOp::Add, T::Null, T::Timestamp) => return null(T::Timestamp),
        _ => {}
    }
    if lt != T::Interval
        && rt != T::Interval
        && !(is_time(lt) && is_time(rt) && (lt == T::Timestamp || rt == T::Timestamp))
    {
        return Ok(None);
    }
    let time = |f: TimeFn, args: Vec<TExpr>, ty| Ok(Some(call(Func::Time(f), args, ty)));
    match (op, lt, rt) {
        (ArithOp::Add | ArithOp::Sub, t, T::Interval) if is_time(t) || t == T::Null => {
            let sign = if op == ArithOp::Sub { -1 } else { 1 };
            add_interval_expr(l, r, sign).map(Some)
        }
        (ArithOp::Add, T::Interval, t) if is_time(t) => add_interval_expr(r, l, 1).map(Some),
        (ArithOp::Add | ArithOp::Sub, T::Interval, T::Interval | T::Null)
        | (ArithOp::Add | ArithOp::Sub, T::Null, T::Interval) => {
            let sign = if op == ArithOp::Sub { -1 } else { 1 };
            let (l, r) = (cast_to(l, T::Interval)?, cast_to(r, T::Interval)?);
            time(TimeFn::IntervalSum(sign), vec![l, r], T::Interval)
        }
        (ArithOp::Sub, a, b) if is_time(a) && is_time(b) => {
            let (l, r) = (cast_to(l, T::Timestamp)?, cast_to(r, T::Timestamp)?);
            time(TimeFn::TsDiff, vec![l, r], T::Interval)
        }
        (ArithOp::Mul, T::Interval, n) if numeric(n) => {
            time(TimeFn::IntervalMul, vec![l, number_arg(r)?], T::Interval)
        }
        (ArithOp::Mul, n, T::Interval) if numeric(n) => {
            time(TimeFn::IntervalMul, vec![r, number_arg(l)?], T::Interval)
        }
        (ArithOp::Div, T::Interval, n) if numeric(n) => {
            time(TimeFn::IntervalDiv, vec![l, number_arg(r)?], T::Interval)
        }
        _ => invalid(format!("cannot apply {op:?} to {lt} and {rt}")),
    }
}

/// A number operand of interval arithmetic: BIGINT if an integer, else
/// DOUBLE.
fn number_arg(e: TExpr) -> Result<TExpr> {
    let ty = if e.ty.is_integer() || e.ty == LType::Null {
        LType::Int64
    } else {
        LType::Double
    };
    cast_to(e, ty)
}

/// `t + sign * iv` for a DATE or TIMESTAMP `t`: the fast constant form when
/// the interval is a constant.
fn add_interval_expr(t: TExpr, iv: TExpr, sign: i64) -> Result<TExpr> {
    if let Some(Value::Huge(x)) = iv.as_lit() {
        let t = cast_to(t, LType::Timestamp)?;
        let i = interval::unpack(*x);
        return Ok(call(
            Func::AddInterval {
                months: i64::from(i.months) * sign,
                micros: (i64::from(i.days) * interval::DAY + i.micros) * sign,
            },
            vec![t],
            LType::Timestamp,
        ));
    }
    // A DATE becomes a TIMESTAMP row by row, only where the interval is
    // not NULL: a date past TIMESTAMP's range fails only there, as in DuckDB.
    let t = if t.ty == LType::Date {
        t
    } else {
        cast_to(t, LType::Timestamp)?
    };
    let iv = cast_to(iv, LType::Interval)?;
    Ok(call(
        Func::Time(TimeFn::AddInterval(sign)),
        vec![t, iv],
        LType::Timestamp,
    ))
}

/// `-x` of an INTERVAL.
pub(crate) fn interval_neg(x: TExpr) -> TExpr {
    call(Func::Time(TimeFn::IntervalNeg), vec![x], LType::Interval)
}

/// `EXTRACT(part FROM x)` of an INTERVAL.
pub(crate) fn interval_part(part: DatePart, x: TExpr) -> Result<TExpr> {
    let Some(ty) = crate::expr::datetime::interval_part_type(part) else {
        return unsupported(format!("{part:?} of an INTERVAL"));
    };
    Ok(call(Func::Time(TimeFn::IntervalPart(part)), vec![x], ty))
}

impl ExprBinder<'_> {
    /// An `INTERVAL` expression: a constant (`INTERVAL '1 day'`,
    /// `INTERVAL 3 HOUR`), or a number of units of a non-constant value
    /// (`INTERVAL (x) DAY`).
    pub(crate) fn interval_expr(&mut self, i: &sql::Interval) -> Result<TExpr> {
        if i.last_field.is_some() {
            return unsupported("INTERVAL ... TO ...");
        }
        let v = self.expr(&i.value)?;
        let unit = i.leading_field.as_ref().map(unit_name);
        match (v.as_lit(), unit) {
            (Some(Value::Null), _) => Ok(TExpr::lit(Value::Null, LType::Interval)),
            (Some(Value::Str(s)), None) => {
                Ok(interval_lit(interval::parse(&String::from_utf8_lossy(s))?))
            }
            (Some(Value::Str(s)), Some(u)) => {
                let text = format!("{} {u}", String::from_utf8_lossy(s).trim());
                Ok(interval_lit(interval::parse(&text)?))
            }
            (_, None) => invalid(format!("INTERVAL needs a unit: {i}")),
            (_, Some(u)) => {
                if !numeric(v.ty) {
                    return invalid(format!("INTERVAL of {}", v.ty));
                }
                let unit = static_unit(&u)?;
                let x = number_arg(v)?;
                super::literal::fold(call(
                    Func::Time(TimeFn::ToInterval(unit)),
                    vec![x],
                    LType::Interval,
                ))
            }
        }
    }

    /// Binds a scalar function call this table knows; "not supported"
    /// otherwise.
    pub(crate) fn scalar_function(&mut self, name: &str, args: Vec<TExpr>) -> Result<TExpr> {
        let types = || {
            args.iter()
                .map(|b| b.ty.name())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let n = args.len();
        let dbl = |e: TExpr| cast_to(e, LType::Double);
        match (name, args.as_slice()) {
            // Math.
            ("pi", []) => Ok(TExpr::lit(crate::expr::math::pi(), LType::Double)),
            (u, [x]) if Unary::from_name(u).is_some() && numeric(x.ty) => {
                let u = Unary::from_name(u).unwrap_or(Unary::Sqrt);
                Ok(call(
                    Func::Math(MathFn::Unary(u)),
                    vec![dbl(x.clone())?],
                    LType::Double,
                ))
            }
            ("pow" | "power" | "atan2" | "log", [a, b]) if numeric(a.ty) && numeric(b.ty) => {
                let f = match name {
                    "atan2" => MathFn::Atan2,
                    "log" => MathFn::LogBase,
                    _ => MathFn::Pow,
                };
                Ok(call(
                    Func::Math(f),
                    vec![dbl(a.clone())?, dbl(b.clone())?],
                    LType::Double,
                ))
            }
            ("abs", [x]) if numeric(x.ty) => {
                // abs(NULL) is BIGINT, as in DuckDB.
                let ty = if x.ty == LType::Null {
                    LType::Int64
                } else {
                    x.ty
                };
                Ok(call(
                    Func::Math(MathFn::Abs),
                    vec![cast_to(x.clone(), ty)?],
                    ty,
                ))
            }
            ("sign", [x]) if numeric(x.ty) => {
                Ok(call(Func::Math(MathFn::Sign), vec![x.clone()], LType::Int8))
            }
            ("isnan" | "isinf" | "isfinite", [x]) if numeric(x.ty) => {
                let f = match name {
                    "isnan" => MathFn::IsNan,
                    "isinf" => MathFn::IsInf,
                    _ => MathFn::IsFinite,
                };
                Ok(call(Func::Math(f), vec![dbl(x.clone())?], LType::Bool))
            }
            ("gcd" | "greatest_common_divisor" | "lcm" | "least_common_multiple", [a, b])
                if [a, b]
                    .iter()
                    .all(|x| x.ty.is_integer() || x.ty == LType::Null) =>
            {
                let wide = [a, b]
                    .iter()
                    .any(|x| matches!(x.ty, LType::HugeInt | LType::UInt64));
                let ty = if wide { LType::HugeInt } else { LType::Int64 };
                let f = if name.starts_with('g') {
                    MathFn::Gcd
                } else {
                    MathFn::Lcm
                };
                Ok(call(
                    Func::Math(f),
                    vec![cast_to(a.clone(), ty)?, cast_to(b.clone(), ty)?],
                    ty,
                ))
            }
            ("xor", [a, b]) => bitwise_call(BitOp::Xor, vec![a.clone(), b.clone()], &[]),
            ("factorial", [x]) if x.ty.is_integer() || x.ty == LType::Null => Ok(call(
                Func::Math(MathFn::Factorial),
                vec![cast_to(x.clone(), LType::Int64)?],
                LType::HugeInt,
            )),
            ("mod", [a, b]) => self.arith(ArithOp::Mod, a.clone(), b.clone(), (false, false)),
            ("trunc", [x]) => super::function::rounding_call(Rounding::Trunc(0), x.clone()),
            ("trunc", [x, d]) => {
                let digits = match d.as_lit() {
                    Some(Value::Int(k)) if d.ty.is_integer() => i32::try_from(*k).ok(),
                    _ => None,
                };
                let Some(digits) = digits else {
                    return unsupported("trunc() with a non-constant or non-integer precision");
                };
                super::function::rounding_call(Rounding::Trunc(digits), x.clone())
            }
            // Strings.
            ("replace", [..]) => str_call(StrFn::Replace, args),
            ("split_part", [..]) => str_call(StrFn::SplitPart, args),
            ("strpos" | "instr" | "position", [..]) => str_call(StrFn::Strpos, args),
            ("left", [..]) => str_call(StrFn::Left, args),
            ("right", [..]) => str_call(StrFn::Right, args),
            ("reverse", [..]) => str_call(StrFn::Reverse, args),
            ("lpad", [..]) => str_call(StrFn::Pad(true), args),
            ("rpad", [..]) => str_call(StrFn::Pad(false), args),
            ("repeat", [..]) => str_call(StrFn::Repeat, args),
            ("translate", [..]) => str_call(StrFn::Translate, args),
            ("concat_ws", [..]) => str_call(StrFn::ConcatWs, args),
            ("format", [..]) => str_call(StrFn::Format, args),
            ("printf", [..]) => str_call(StrFn::Printf, args),
            ("md5", [..]) => str_call(StrFn::Md5, args),
            ("sha256", [..]) => str_call(StrFn::Sha256, args),
            ("ascii", [..]) => str_call(StrFn::Ascii, args),
            ("chr", [..]) => str_call(StrFn::Chr, args),
            ("regexp_matches" | "regexp_full_match", [x, p, rest @ ..]) if rest.len() <= 1 => {
                let kind = if name == "regexp_matches" {
                    ReKind::Matches
                } else {
                    ReKind::Full
                };
                regex_call(x.clone(), p, rest.first(), kind)
            }
            ("regexp_extract", [x, p, rest @ ..]) if rest.len() <= 2 => {
                let group = match rest.first().map(|g| g.as_lit()) {
                    None => 0,
                    Some(Some(Value::Int(g))) if (0..=9).contains(g) => *g as usize,
                    Some(Some(Value::Int(_))) => {
                        return invalid("Group index must be between 0 and 9!")
                    }
                    Some(_) => return unsupported("regexp_extract with a non-constant group"),
                };
                regex_call(x.clone(), p, rest.get(1), ReKind::Extract(group))
            }
            ("regexp_replace", [x, p, r, rest @ ..]) if rest.len() <= 1 => {
                let Some(rep) = const_str(r, "a regexp_replace replacement")? else {
                    return Ok(TExpr::lit(Value::Null, LType::Varchar));
                };
                regex_call(x.clone(), p, rest.first(), ReKind::Replace(rep.to_vec()))
            }
            // Conditionals and hashing.
            ("ifnull", [a, b]) => {
                let ty = combined_type(a, b)?;
                Ok(call(
                    Func::Coalesce,
                    vec![cast_to(a.clone(), ty)?, cast_to(b.clone(), ty)?],
                    ty,
                ))
            }
            ("hash", [_, ..]) => Ok(call(Func::Hash, args, LType::UInt64)),
            // Dates, timestamps and intervals.
            ("date_sub", [p, a, b]) if is_time(a.ty) && is_time(b.ty) => {
                let Some(p) = const_str(p, "a date_sub part")? else {
                    return Ok(TExpr::lit(Value::Null, LType::Int64));
                };
                let part = date_part(&String::from_utf8_lossy(p))?;
                if !crate::expr::datetime::date_sub_part_ok(part) {
                    return unsupported(format!("date_sub of the part {part:?}"));
                }
                Ok(call(
                    Func::Time(TimeFn::DateSub(part)),
                    vec![
                        cast_to(a.clone(), LType::Timestamp)?,
                        cast_to(b.clone(), LType::Timestamp)?,
                    ],
                    LType::Int64,
                ))
            }
            ("age", [a, b]) if is_time(a.ty) && is_time(b.ty) => Ok(call(
                Func::Time(TimeFn::Age),
                vec![
                    cast_to(a.clone(), LType::Timestamp)?,
                    cast_to(b.clone(), LType::Timestamp)?,
                ],
                LType::Interval,
            )),
            ("age", [_]) => unsupported("age() of one timestamp (it depends on the current time)"),
            ("strptime" | "try_strptime", [s, f])
                if matches!(s.ty, LType::Varchar | LType::Null) =>
            {
                let Some(f) = const_str(f, "a strptime format")? else {
                    return Ok(TExpr::lit(Value::Null, LType::Timestamp));
                };
                let text = String::from_utf8_lossy(f).into_owned();
                let items = crate::expr::scalar::parse_format(&text)?;
                crate::expr::datetime::check_strptime_format(&items, &text)?;
                Ok(call(
                    Func::Time(TimeFn::Strptime(items, text, name == "try_strptime")),
                    vec![cast_to(s.clone(), LType::Varchar)?],
                    LType::Timestamp,
                ))
            }
            ("to_timestamp", [x]) if numeric(x.ty) => Ok(call(
                Func::Time(TimeFn::ToTimestamp),
                vec![dbl(x.clone())?],
                LType::Timestamp,
            )),
            (f, [x]) if f.starts_with("to_") && numeric(x.ty) => {
                let unit = static_unit(&f[3..])?;
                Ok(call(
                    Func::Time(TimeFn::ToInterval(unit)),
                    vec![number_arg(x.clone())?],
                    LType::Interval,
                ))
            }
            ("date_add", [a, b]) => match time_arith(ArithOp::Add, a.clone(), b.clone())? {
                Some(e) => Ok(e),
                None => invalid(format!("date_add({})", types())),
            },
            ("date_part" | "datepart", [p, x]) if x.ty == LType::Interval => {
                let Some(p) = const_str(p, "a date_part part")? else {
                    return Ok(TExpr::lit(Value::Null, LType::Int64));
                };
                interval_part(date_part(&String::from_utf8_lossy(p))?, x.clone())
            }
            (
                "year" | "month" | "day" | "hour" | "minute" | "second" | "millisecond"
                | "microsecond" | "quarter" | "epoch" | "decade" | "century" | "millennium",
                [x],
            ) if x.ty == LType::Interval => interval_part(date_part(name)?, x.clone()),
            _ => {
                let _ = n;
                unsupported(format!("function {name}({})", types()))
            }
        }
    }
}

/// The unit names of `to_days`-style functions and `INTERVAL (x) unit`,
/// as `'static` names.
fn static_unit(u: &str) -> Result<&'static str> {
    const UNITS: [&str; 11] = [
        "microseconds",
        "milliseconds",
        "seconds",
        "minutes",
        "hours",
        "days",
        "weeks",
        "months",
        "years",
        "decades",
        "centuries",
    ];
    let u = u.to_lowercase();
    let want = match u.as_str() {
        "century" => "centuries",
        "millennium" | "millennia" => return Ok("millennium"),
        other if other.ends_with('s') => other,
        other => {
            return UNITS
                .iter()
                .find(|x| x.trim_end_matches('s') == other)
                .copied()
                .ok_or_else(|| crate::error::EngineError::Unsupported(format!("function to_{u}")))
        }
    };
    UNITS
        .iter()
        .find(|x| **x == want)
        .copied()
        .ok_or_else(|| crate::error::EngineError::Unsupported(format!("function to_{u}")))
}

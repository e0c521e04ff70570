//! Literals and type names: numbers typed as DuckDB types them, SQL type
//! names to engine types, date part names, and constant folding.

use sqlparser::ast as sql;

use crate::error::{invalid, unsupported, EngineError, Result};
use crate::expr::{eval, Columns, DatePart, ExprKind, TExpr};
use crate::value::{LType, Value};

/// A number written with a decimal point and no exponent, typed as DuckDB
/// types it: DECIMAL(digits, digits after the point), e.g. `0.06` is
/// DECIMAL(3,2) and `.5` DECIMAL(1,1). `None` for anything else, or for
/// more than 38 digits (DuckDB makes those DOUBLE).
fn decimal_literal(n: &str) -> Option<(Value, LType)> {
    let (int, frac) = n.split_once('.')?;
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(int) || !all_digits(frac) || int.len() + frac.len() == 0 {
        return None;
    }
    let (p, s) = (int.len() + frac.len(), frac.len());
    if p > 38 {
        return None;
    }
    let scaled: i128 = format!("{int}{frac}").parse().ok()?;
    let v = if p <= 18 {
        Value::Int(i64::try_from(scaled).ok()?)
    } else {
        Value::Huge(scaled)
    };
    Some((v, LType::Decimal(p as u8, s as u8)))
}

pub(crate) fn literal_int(x: i128) -> TExpr {
    if let Ok(v) = i32::try_from(x) {
        TExpr::lit(Value::Int(v.into()), LType::Int32)
    } else if let Ok(v) = i64::try_from(x) {
        TExpr::lit(Value::Int(v), LType::Int64)
    } else {
        TExpr::lit(Value::Huge(x), LType::HugeInt)
    }
}

pub(crate) fn literal(v: &sql::Value) -> Result<TExpr> {
    Ok(match v {
        sql::Value::Number(n, _) => {
            if let Ok(i) = n.parse::<i128>() {
                literal_int(i)
            } else if let Some((v, ty)) = decimal_literal(n) {
                TExpr::lit(v, ty)
            } else {
                let f: f64 = n
                    .parse()
                    .map_err(|_| EngineError::Syntax(format!("bad number {n}")))?;
                TExpr::lit(Value::Float(f), LType::Double)
            }
        }
        sql::Value::SingleQuotedString(s) | sql::Value::DoubleQuotedString(s) => {
            TExpr::lit(Value::Str(s.clone().into_bytes()), LType::Varchar)
        }
        sql::Value::Boolean(b) => TExpr::lit(Value::Bool(*b), LType::Bool),
        sql::Value::Null => TExpr::lit(Value::Null, LType::Null),
        other => return unsupported(format!("literal {other}")),
    })
}

pub(crate) fn sql_type(t: &sql::DataType) -> Result<LType> {
    use sql::DataType as D;
    Ok(match t {
        D::TinyInt(_) => LType::Int8,
        D::SmallInt(_) | D::Int2(_) => LType::Int16,
        D::Int(_) | D::Integer(_) | D::Int4(_) => LType::Int32,
        D::BigInt(_) | D::Int8(_) | D::Int64 => LType::Int64,
        D::HugeInt => LType::HugeInt,
        D::UTinyInt => LType::UInt8,
        D::USmallInt => LType::UInt16,
        D::UBigInt => LType::UInt64,
        // FLOAT is single precision in DuckDB; FLOAT(p) is DOUBLE past 24
        // bits of mantissa.
        D::Float4 | D::Real => LType::Float,
        D::Float(sql::ExactNumberInfo::Precision(p)) if *p > 24 => LType::Double,
        D::Float(_) => LType::Float,
        D::Float8 | D::Float64 | D::Double(_) | D::DoublePrecision => LType::Double,
        D::Bool | D::Boolean => LType::Bool,
        D::Date => LType::Date,
        D::Timestamp(_, sql::TimezoneInfo::None) | D::Datetime(_) => LType::Timestamp,
        D::Varchar(_) | D::Text | D::String(_) | D::Char(_) => LType::Varchar,
        D::Interval { fields: None, .. } => LType::Interval,
        D::Decimal(info) | D::Numeric(info) => match info {
            sql::ExactNumberInfo::None => LType::Decimal(18, 3),
            sql::ExactNumberInfo::Precision(p) => LType::Decimal((*p).min(38) as u8, 0),
            sql::ExactNumberInfo::PrecisionAndScale(p, s) => {
                if *p == 0 || *p > 38 || *s < 0 || *s as u64 > *p {
                    return invalid(format!("bad DECIMAL({p},{s})"));
                }
                LType::Decimal(*p as u8, *s as u8)
            }
        },
        D::Custom(name, _) if name.to_string().eq_ignore_ascii_case("uinteger") => LType::UInt32,
        other => return unsupported(format!("type {other}")),
    })
}

pub(crate) fn date_part(s: &str) -> Result<DatePart> {
    Ok(match s.trim().to_lowercase().as_str() {
        "year" | "years" | "yyyy" | "y" => DatePart::Year,
        "month" | "months" | "mon" => DatePart::Month,
        "day" | "days" | "d" | "dayofmonth" => DatePart::Day,
        "hour" | "hours" | "h" => DatePart::Hour,
        "minute" | "minutes" | "m" | "min" => DatePart::Minute,
        "second" | "seconds" | "s" | "sec" | "secs" => DatePart::Second,
        "millisecond" | "milliseconds" | "ms" | "msec" | "msecs" => DatePart::Millisecond,
        "microsecond" | "microseconds" | "us" | "usec" | "usecs" => DatePart::Microsecond,
        "dow" | "dayofweek" => DatePart::Dow,
        "doy" | "dayofyear" => DatePart::Doy,
        "epoch" => DatePart::Epoch,
        "quarter" | "quarters" => DatePart::Quarter,
        "week" | "weeks" | "w" | "weekofyear" => DatePart::Week,
        "isodow" => DatePart::IsoDow,
        "isoyear" => DatePart::IsoYear,
        "decade" | "decades" | "dec" => DatePart::Decade,
        "century" | "centuries" | "cent" | "c" => DatePart::Century,
        "millennium" | "millennia" | "millenium" | "mil" | "mils" => DatePart::Millennium,
        "era" => DatePart::Era,
        "yearweek" => DatePart::YearWeek,
        other => return unsupported(format!("date part {other:?}")),
    })
}

/// Folds an expression whose leaves are all constants into a constant. One
/// whose evaluation fails (an overflow, a bad cast) stays as it is, to
/// fail where it is evaluated: on no rows, never (as in DuckDB).
///
/// An operator that is NULL whenever an operand is (arithmetic, comparison,
/// CAST, LIKE, ...) with a NULL constant operand is NULL without its other
/// operands being evaluated, as DuckDB folds it: `x + NULL <> CAST(x AS
/// DECIMAL(4, 4))` is NULL even where the cast would fail.
pub(crate) fn fold(e: TExpr) -> Result<TExpr> {
    if propagates_null(&e)
        && e.children()
            .iter()
            .any(|c| matches!(c.as_lit(), Some(Value::Null)))
    {
        return Ok(TExpr::lit(Value::Null, e.ty));
    }
    if e.as_lit().is_some() || !e.is_constant() || e.children().is_empty() {
        return Ok(e);
    }
    let none = Columns(Vec::new());
    let Ok(v) = eval(&e, 1, &none) else {
        return Ok(e);
    };
    let val = if v.len() == 1 { v.get(0) } else { Value::Null };
    let ty = if e.ty == LType::Null && matches!(val, Value::Bool(_)) {
        LType::Bool
    } else {
        e.ty
    };
    Ok(TExpr::lit(val, ty))
}

/// Whether `e` is NULL whenever one of its operands is.
fn propagates_null(e: &TExpr) -> bool {
    match &e.kind {
        ExprKind::Func(f, _) => return f.propagates_null(),
        ExprKind::Str(f, _) => return f.propagates_null(),
        _ => {}
    }
    matches!(
        e.kind,
        ExprKind::Neg(_)
            | ExprKind::Arith(..)
            | ExprKind::Cmp(..)
            | ExprKind::Cast(_)
            | ExprKind::Extract(..)
            | ExprKind::DateTrunc(..)
            | ExprKind::StrLen(_)
            | ExprKind::Like(..)
    )
}

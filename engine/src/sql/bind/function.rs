//! Scalar function calls: DuckDB's names, argument types and result types.
//! Aggregate calls are bound in [`super::aggregate`].
//!
//! Adding a scalar function: a match arm in [`ExprBinder::function`] that
//! types the arguments (and casts them), and its evaluation in
//! [`crate::expr::scalar`] (or [`crate::expr::strfn`] for strings).

use sqlparser::ast as sql;

use super::coerce::{cast_to, combined_type, common_type};
use super::expr::ExprBinder;
use super::literal::date_part;
use crate::agg::func::AggFunc;
use crate::error::{invalid, unsupported, EngineError, Result};
use crate::expr::rounding::Rounding;
use crate::expr::scalar::Func;
use crate::expr::strfn::{Re, StrFn};
use crate::expr::{DatePart, ExprKind, TExpr};
use crate::list::list_of;
use crate::value::{LType, Value};

/// A function's name, lower-cased.
pub(crate) fn func_name(f: &sql::Function) -> String {
    f.name.to_string().to_lowercase()
}

impl ExprBinder<'_> {
    pub(crate) fn function(&mut self, f: &sql::Function) -> Result<TExpr> {
        let name = func_name(f);
        if f.over.is_some() {
            return self.window_call(f);
        }
        if let Some(func) = AggFunc::from_name(&name) {
            return self.aggregate_call(&name, func, f);
        }
        if f.filter.is_some() || !f.within_group.is_empty() || f.null_treatment.is_some() {
            return unsupported(format!("{name}() with FILTER / WITHIN GROUP / NULLS"));
        }
        let (args, distinct) = match &f.args {
            sql::FunctionArguments::None => (Vec::new(), false),
            sql::FunctionArguments::Subquery(_) => {
                return unsupported("subqueries in expressions (IN, EXISTS, scalar subqueries)")
            }
            sql::FunctionArguments::List(l) => {
                if !l.clauses.is_empty() {
                    return unsupported(format!("{name}() argument clauses"));
                }
                let distinct = matches!(
                    l.duplicate_treatment,
                    Some(sql::DuplicateTreatment::Distinct)
                );
                let mut out = Vec::new();
                for a in &l.args {
                    match a {
                        sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(e)) => {
                            out.push(Some(e.clone()))
                        }
                        sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Wildcard) => out.push(None),
                        other => return unsupported(format!("function argument {other}")),
                    }
                }
                (out, distinct)
            }
        };
        if distinct {
            return unsupported(format!("{name}(DISTINCT ...)"));
        }
        // date_add(x, INTERVAL ...): the interval is no value of its own.
        if name == "date_add" {
            if let [Some(x), Some(sql::Expr::Interval(i))] = args.as_slice() {
                let x = self.expr(x)?;
                return add_interval(x, &i.to_string(), 1);
            }
        }
        let mut bound = Vec::new();
        for a in &args {
            match a {
                Some(e) => bound.push(self.expr(e)?),
                None => return invalid(format!("{name}(*) is not a function")),
            }
        }
        if !bound.iter().any(|a| a.ty == LType::Null) {
            return self.call_bound(&name, bound);
        }
        match self.call_bound(&name, bound.clone()) {
            Err(EngineError::Unsupported(_)) => {
                // An untyped NULL casts to any type, as in DuckDB
                // (`strlen(NULL)`, `age(NULL, d)`): the first of
                // NULL_ARGUMENT_TYPES the function takes there.
                for ty in NULL_ARGUMENT_TYPES {
                    let typed = bound
                        .iter()
                        .map(|a| match a.ty {
                            LType::Null => TExpr::lit(Value::Null, ty),
                            _ => a.clone(),
                        })
                        .collect();
                    if let Ok(e) = self.call_bound(&name, typed) {
                        return Ok(e);
                    }
                }
                self.call_bound(&name, bound)
            }
            r => r,
        }
    }

    /// Binds the call of `name` on bound arguments.
    fn call_bound(&mut self, name: &str, mut bound: Vec<TExpr>) -> Result<TExpr> {
        let name = name.to_string();
        match (name.as_str(), bound.as_mut_slice()) {
            ("list_value" | "list_pack", _) => return list_value(bound),
            ("string_split" | "str_split" | "string_to_array" | "split", [s, sep]) => {
                let args = [s, sep].map(|x| (x.clone(), LType::Varchar));
                return date_call(Func::StrSplit, args.to_vec(), list_of(LType::Varchar));
            }
            ("regexp_split_to_array" | "string_split_regex" | "str_split_regex", [s, p]) => {
                let Some(Value::Str(pattern)) = p.as_lit() else {
                    return unsupported(format!("{name}() with a pattern that is not a constant"));
                };
                let re = Re::new(&String::from_utf8_lossy(pattern))?;
                let args = vec![(s.clone(), LType::Varchar)];
                return date_call(Func::RegexpSplit(re), args, list_of(LType::Varchar));
            }
            _ => {}
        }
        let any_type = matches!(name.as_str(), "typeof" | "coalesce" | "ifnull");
        if !any_type && bound.iter().any(|a| matches!(a.ty, LType::List(_))) {
            return list_call(&name, bound);
        }
        match (name.as_str(), bound.as_mut_slice()) {
            ("date_trunc" | "datetrunc", [p, x]) => {
                let Some(Value::Str(p)) = p.as_lit() else {
                    return unsupported("DATE_TRUNC with a non-constant part");
                };
                let part = date_part(&String::from_utf8_lossy(p))?;
                if part == DatePart::Era {
                    return invalid("DATE_TRUNC does not take the part era");
                }
                if !matches!(x.ty, LType::Date | LType::Timestamp) {
                    return invalid(format!(
                        "DATE_TRUNC needs a DATE or TIMESTAMP, not {}",
                        x.ty
                    ));
                }
                // DuckDB truncates dates to TIMESTAMPs too.
                let ty = LType::Timestamp;
                let x = cast_to(x.clone(), ty)?;
                Ok(TExpr {
                    kind: ExprKind::DateTrunc(part, Box::new(x)),
                    ty,
                })
            }
            (
                "length" | "char_length" | "character_length" | "lower" | "lcase" | "upper"
                | "ucase" | "substring" | "substr" | "concat" | "trim" | "ltrim" | "rtrim"
                | "starts_with" | "prefix" | "ends_with" | "suffix" | "contains",
                args,
            ) => {
                let f = match name.as_str() {
                    "length" | "char_length" | "character_length" => StrFn::Length,
                    "lower" | "lcase" => StrFn::Lower,
                    "upper" | "ucase" => StrFn::Upper,
                    "substring" | "substr" => StrFn::Substring,
                    "concat" => StrFn::Concat,
                    "trim" => StrFn::Trim(true, true),
                    "ltrim" => StrFn::Trim(true, false),
                    "rtrim" => StrFn::Trim(false, true),
                    "starts_with" | "prefix" => StrFn::StartsWith,
                    "ends_with" | "suffix" => StrFn::EndsWith,
                    _ => StrFn::Contains,
                };
                str_call(f, args.to_vec())
            }
            ("strlen" | "octet_length", [x]) if x.ty == LType::Varchar => Ok(TExpr {
                kind: ExprKind::StrLen(Box::new(x.clone())),
                ty: LType::Int64,
            }),
            (
                "year" | "month" | "day" | "hour" | "minute" | "second" | "millisecond"
                | "microsecond" | "dayofweek" | "dayofyear" | "dayofmonth" | "quarter" | "week"
                | "weekofyear" | "isodow" | "isoyear" | "epoch" | "decade" | "century"
                | "millennium" | "era" | "yearweek",
                [x],
            ) if matches!(x.ty, LType::Date | LType::Timestamp) => {
                Ok(extract_expr(date_part(&name)?, x.clone()))
            }
            ("date_part" | "datepart", [p, x])
                if matches!(x.ty, LType::Date | LType::Timestamp) =>
            {
                let Some(Value::Str(p)) = p.as_lit() else {
                    return unsupported("DATE_PART with a non-constant part");
                };
                Ok(extract_expr(
                    date_part(&String::from_utf8_lossy(p))?,
                    x.clone(),
                ))
            }
            ("date_diff" | "datediff", [p, a, b])
                if [&*a, &*b]
                    .iter()
                    .all(|x| matches!(x.ty, LType::Date | LType::Timestamp)) =>
            {
                let Some(Value::Str(p)) = p.as_lit() else {
                    return unsupported(format!("{name} with a non-constant part"));
                };
                let part = date_part(&String::from_utf8_lossy(p))?;
                if part == DatePart::Era {
                    return invalid(format!("{name} does not take the part era"));
                }
                date_call(
                    Func::DateDiff(part),
                    vec![(a.clone(), LType::Timestamp), (b.clone(), LType::Timestamp)],
                    LType::Int64,
                )
            }
            ("make_date", [y, m, d]) if [&*y, &*m, &*d].iter().all(|x| int_like(x.ty)) => {
                let args = [y, m, d].map(|x| (x.clone(), LType::Int64));
                date_call(Func::MakeDate, args.to_vec(), LType::Date)
            }
            ("make_timestamp", [y, mo, d, h, mi, sec])
                if [&*y, &*mo, &*d, &*h, &*mi].iter().all(|x| int_like(x.ty))
                    && (sec.ty.is_numeric() || sec.ty == LType::Null) =>
            {
                let mut args: Vec<_> = [y, mo, d, h, mi]
                    .map(|x| (x.clone(), LType::Int64))
                    .to_vec();
                args.push((sec.clone(), LType::Double));
                date_call(Func::MakeTimestamp, args, LType::Timestamp)
            }
            ("make_timestamp", [x]) if int_like(x.ty) => date_call(
                Func::EpochToTimestamp(1),
                vec![(x.clone(), LType::Int64)],
                LType::Timestamp,
            ),
            ("epoch_ms", [x]) if int_like(x.ty) => date_call(
                Func::EpochToTimestamp(1000),
                vec![(x.clone(), LType::Int64)],
                LType::Timestamp,
            ),
            ("epoch_ms" | "dayname" | "monthname" | "last_day", [x])
                if matches!(x.ty, LType::Date | LType::Timestamp) =>
            {
                let (f, ty) = match name.as_str() {
                    "epoch_ms" => (Func::EpochMs, LType::Int64),
                    "dayname" => (Func::DayName, LType::Varchar),
                    "monthname" => (Func::MonthName, LType::Varchar),
                    _ => (Func::LastDay, LType::Date),
                };
                date_call(f, vec![(x.clone(), LType::Timestamp)], ty)
            }
            ("strftime", [x, f]) if matches!(x.ty, LType::Date | LType::Timestamp) => {
                let Some(Value::Str(f)) = f.as_lit() else {
                    return unsupported("strftime with a non-constant format");
                };
                let items = crate::expr::scalar::parse_format(&String::from_utf8_lossy(f))?;
                Ok(TExpr {
                    kind: ExprKind::Func(Box::new(Func::Strftime(items)), vec![x.clone()]),
                    ty: LType::Varchar,
                })
            }
            ("coalesce" | "greatest" | "least", args) if !args.is_empty() => {
                let f = match name.as_str() {
                    "coalesce" => Func::Coalesce,
                    "greatest" => Func::Greatest,
                    _ => Func::Least,
                };
                func_common(f, args.to_vec())
            }
            // A NULL constant first is the answer whatever the second
            // argument's type (DuckDB folds the call to it).
            ("nullif", [a, _])
                if a.ty != LType::Null && matches!(a.as_lit(), Some(Value::Null)) =>
            {
                Ok(a.clone())
            }
            // So is the first argument where the second is a NULL constant
            // (folded, say `min(NULL::INTEGER)`): nothing equals it, and no
            // value is cast to compare them, whatever the types.
            ("nullif", [a, b]) if matches!(b.as_lit(), Some(Value::Null)) => Ok(a.clone()),
            ("nullif", [a, b]) => func_common(Func::NullIf, vec![a.clone(), b.clone()]),
            // The argument's type, known when binding.
            ("typeof", [x]) => Ok(TExpr::lit(
                Value::Str(x.ty.name().into_bytes()),
                LType::Varchar,
            )),
            ("round", [x]) => rounding_call(Rounding::Round(0), x.clone()),
            ("round", [x, n]) => {
                let digits = match n.as_lit() {
                    Some(Value::Int(d)) if n.ty.is_integer() => i32::try_from(*d).ok(),
                    _ => None,
                };
                let Some(digits) = digits else {
                    return unsupported("round() with a non-constant or non-integer precision");
                };
                rounding_call(Rounding::Round(digits), x.clone())
            }
            ("floor", [x]) => rounding_call(Rounding::Floor, x.clone()),
            ("ceil" | "ceiling", [x]) => rounding_call(Rounding::Ceil, x.clone()),
            _ => self.scalar_function(&name, bound.to_vec()),
        }
    }
}

/// The types an untyped NULL function argument is tried as, in order.
const NULL_ARGUMENT_TYPES: [LType; 6] = [
    LType::Varchar,
    LType::Timestamp,
    LType::Date,
    LType::Int64,
    LType::Double,
    LType::Interval,
];

/// An `EXTRACT`: DOUBLE for the epoch (as DuckDB), else BIGINT.
pub(crate) fn extract_expr(part: DatePart, x: TExpr) -> TExpr {
    TExpr {
        kind: ExprKind::Extract(part, Box::new(x)),
        ty: if part == DatePart::Epoch {
            LType::Double
        } else {
            LType::Int64
        },
    }
}

/// Whether a value of type `ty` may be an integer argument of a date
/// function (integers, and NULL).
fn int_like(ty: LType) -> bool {
    ty.is_integer() || ty == LType::Null
}

/// A scalar function of a LIST (the few strata implements).
fn list_call(name: &str, args: Vec<TExpr>) -> Result<TExpr> {
    let (f, ty) = match (name, args.as_slice()) {
        ("array_length" | "len" | "length" | "list_length" | "cardinality", [_]) => {
            (Func::ListLength, LType::Int64)
        }
        ("array_sort" | "list_sort", [l]) => (Func::ListSort, l.ty),
        ("list_extract" | "list_element" | "array_extract", [l, i]) => {
            return list_extract(l.clone(), i.clone());
        }
        (
            "list_contains" | "array_contains" | "list_has" | "array_has",
            [l @ TExpr {
                ty: LType::List(elem),
                ..
            }, x],
        ) => {
            let probe = TExpr::lit(Value::Null, **elem);
            let t = common_type(&probe, x)?;
            let args = vec![l.clone(), cast_to(x.clone(), t)?];
            return Ok(TExpr {
                kind: ExprKind::Func(Box::new(Func::ListContains(t)), args),
                ty: LType::Bool,
            });
        }
        _ => {
            let types: Vec<String> = args.iter().map(|a| a.ty.name()).collect();
            return unsupported(format!("function {name}({}) on a LIST", types.join(", ")));
        }
    };
    Ok(TExpr {
        kind: ExprKind::Func(Box::new(f), args),
        ty,
    })
}

/// `[a, b, ...]` / `list_value(a, b, ...)`: the elements meet in one type
/// as the values of a VALUES column do (`[1, 2.5]` is a `DECIMAL(11,1)[]`).
pub(crate) fn list_value(args: Vec<TExpr>) -> Result<TExpr> {
    list_of_values(args, false)
}

/// [`list_value`], NULL where the first element is (see [`Func::ListValue`]).
pub(crate) fn list_of_values(args: Vec<TExpr>, null_if_first_null: bool) -> Result<TExpr> {
    let mut elem = LType::Null;
    for a in &args {
        elem = super::coerce::values_type(elem, a.ty)?;
    }
    let args = args
        .into_iter()
        .map(|a| cast_to(a, elem))
        .collect::<Result<Vec<_>>>()?;
    Ok(TExpr {
        kind: ExprKind::Func(Box::new(Func::ListValue(null_if_first_null)), args),
        ty: list_of(elem),
    })
}

/// `list[i]` / `list_extract(list, i)`: the element type, `i` a BIGINT.
pub(crate) fn list_extract(l: TExpr, i: TExpr) -> Result<TExpr> {
    let LType::List(elem) = l.ty else {
        return unsupported(format!("subscripts of {}", l.ty));
    };
    if !(i.ty.is_integer() || i.ty == LType::Null) {
        return invalid(format!("a list index must be an integer, not {}", i.ty));
    }
    Ok(TExpr {
        kind: ExprKind::Func(
            Box::new(Func::ListExtract),
            vec![l, cast_to(i, LType::Int64)?],
        ),
        ty: *elem,
    })
}

/// A call of `f` (a date function, `string_split`) of type `ty` whose
/// arguments are cast to the types paired with them.
fn date_call(f: Func, args: Vec<(TExpr, LType)>, ty: LType) -> Result<TExpr> {
    let mut out = Vec::with_capacity(args.len());
    for (a, t) in args {
        out.push(cast_to(a, t)?);
    }
    Ok(TExpr {
        kind: ExprKind::Func(Box::new(f), out),
        ty,
    })
}

/// `round`/`floor`/`ceil` of `x` with DuckDB's types.
pub(crate) fn rounding_call(mode: Rounding, x: TExpr) -> Result<TExpr> {
    // An untyped NULL takes the overload DuckDB picks: BIGINT for round and
    // trunc, DOUBLE for floor and ceil.
    let x = if x.ty == LType::Null {
        let ty = match mode {
            Rounding::Round(_) | Rounding::Trunc(_) => LType::Int64,
            Rounding::Floor | Rounding::Ceil => LType::Double,
        };
        cast_to(x, ty)?
    } else {
        x
    };
    let Some((arg, ty)) = mode.types(x.ty) else {
        return invalid(format!("{}() does not accept {}", mode.name(), x.ty));
    };
    Ok(TExpr {
        kind: ExprKind::Func(Box::new(Func::Rounding(mode)), vec![cast_to(x, arg)?]),
        ty,
    })
}

/// A call whose arguments are cast to their common type, which it returns
/// (`nullif` compares in it and returns the first argument's value, of its
/// own type as in DuckDB).
fn func_common(f: Func, args: Vec<TExpr>) -> Result<TExpr> {
    let first = args.first().map_or(LType::Null, |a| a.ty);
    let nullif = f == Func::NullIf;
    let mut ty = LType::Null;
    for a in &args {
        let probe = TExpr::lit(Value::Null, ty);
        ty = if f == Func::NullIf {
            common_type(&probe, a)?
        } else {
            combined_type(&probe, a)?
        };
    }
    let mut out = Vec::new();
    for a in args {
        out.push(cast_to(a, ty)?);
    }
    let call = TExpr {
        kind: ExprKind::Func(Box::new(f), out),
        ty,
    };
    if nullif && first != LType::Null && first != ty {
        // The first argument's values widened and back: exact.
        return cast_to(call, first);
    }
    Ok(call)
}

/// A DATE or TIMESTAMP plus (`sign` 1) or minus (-1) an interval literal.
pub(crate) fn add_interval(x: TExpr, interval: &str, sign: i64) -> Result<TExpr> {
    if !matches!(x.ty, LType::Date | LType::Timestamp) {
        return unsupported(format!("{} plus an INTERVAL", x.ty));
    }
    let (months, micros) = crate::expr::scalar::parse_interval(interval)?;
    Ok(TExpr {
        kind: ExprKind::Func(
            Box::new(Func::AddInterval {
                months: months * sign,
                micros: micros * sign,
            }),
            vec![cast_to(x, LType::Timestamp)?],
        ),
        ty: LType::Timestamp,
    })
}

/// A string function call: string arguments cast to VARCHAR (concat
/// casts anything), integer ones (substring) to BIGINT.
pub(crate) fn str_call(f: StrFn, args: Vec<TExpr>) -> Result<TExpr> {
    crate::expr::strfn::check_arity(&f, args.len())?;
    let mut out = Vec::new();
    for (i, a) in args.into_iter().enumerate() {
        let Some(want) = f.arg_type(i) else {
            out.push(a);
            continue;
        };
        let ok = a.ty == want
            || a.ty == LType::Null
            || (want == LType::Int64 && a.ty.is_integer())
            || f.casts_anything();
        if !ok {
            return invalid(format!("{}() does not accept {}", f.name(), a.ty));
        }
        out.push(cast_to(a, want)?);
    }
    Ok(TExpr {
        ty: crate::expr::strfn::result_type(&f),
        kind: ExprKind::Str(Box::new(f), out),
    })
}

pub(crate) fn not(e: TExpr) -> TExpr {
    TExpr {
        kind: ExprKind::Not(Box::new(e)),
        ty: LType::Bool,
    }
}

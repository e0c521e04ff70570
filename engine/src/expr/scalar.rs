//! Other scalar functions: `COALESCE`, `NULLIF`, `GREATEST`/`LEAST`,
//! date/timestamp arithmetic with intervals and `strftime`. Arguments are
//! cast to the result type by the binder (dates and timestamps are day and
//! microsecond counts).

use crate::error::{invalid, EngineError, Result};
use crate::value::{
    civil_from_days, days_from_civil, Data, LType, Value, Vector, MICROS_PER_DAY, MICROS_PER_SEC,
};

/// A scalar function of [`crate::expr::ExprKind::Func`].
#[derive(Debug, Clone, PartialEq)]
pub enum Func {
    /// The first non-NULL argument.
    Coalesce,
    /// NULL if the two arguments are equal, else the first.
    NullIf,
    /// The largest non-NULL argument.
    Greatest,
    /// The smallest non-NULL argument.
    Least,
    /// A TIMESTAMP plus `months` months and `micros` microseconds.
    AddInterval {
        /// Months to add (day of month clamped to the month's end).
        months: i64,
        /// Microseconds to add.
        micros: i64,
    },
    /// `strftime(x, format)` of a DATE or TIMESTAMP (the specifiers).
    Strftime(Vec<FmtItem>),
    /// `round`, `floor` or `ceil` (see [`crate::expr::rounding`]).
    Rounding(crate::expr::rounding::Rounding),
    /// `date_diff(part, start, end)` of two TIMESTAMPs: the `part`
    /// boundaries crossed from start to end (BIGINT).
    DateDiff(crate::expr::DatePart),
    /// `make_date(year, month, day)` (BIGINT arguments) as a DATE.
    MakeDate,
    /// `make_timestamp(year, month, day, hour, minute, seconds)` (five
    /// BIGINTs and a DOUBLE) as a TIMESTAMP.
    MakeTimestamp,
    /// `epoch_ms(BIGINT)` (milliseconds, the factor 1000) or
    /// `make_timestamp(BIGINT)` (microseconds, 1): units since the epoch as
    /// a TIMESTAMP, the factor being microseconds per unit.
    EpochToTimestamp(i64),
    /// `epoch_ms(TIMESTAMP)`: milliseconds since the epoch (rounded).
    EpochMs,
    /// `dayname(TIMESTAMP)`: the English name of the day of the week.
    DayName,
    /// `monthname(TIMESTAMP)`: the English name of the month.
    MonthName,
    /// `last_day(TIMESTAMP)`: the DATE of the last day of the month.
    LastDay,
    /// A numeric function (see [`crate::expr::math`]).
    Math(crate::expr::math::MathFn),
    /// A date, timestamp or interval function (see [`crate::expr::datetime`]).
    Time(crate::expr::datetime::TimeFn),
    /// `TRY_CAST(x AS type)`: NULL where the cast fails.
    TryCast,
    /// `a IS DISTINCT FROM b` (`false`) or `IS NOT DISTINCT FROM` (`true`):
    /// NULLs compare as equal values.
    Distinct(bool),
    /// `hash(...)`: a UBIGINT of the values (not DuckDB's hash values).
    Hash,
    /// `array_length(list)`, `len`: the number of elements (BIGINT).
    ListLength,
    /// `array_sort(list)`, `list_sort`: the elements ascending, NULLs last.
    ListSort,
    /// `[a, b, ...]`, `list_value(...)`: the arguments (cast to the element
    /// type) as a list. With `true`, NULL where the first argument is NULL
    /// (a list of quantiles, which are NULL together over no values).
    ListValue(bool),
    /// `list[i]`, `list_extract(list, i)`: the `i`-th element from 1
    /// (negative: from the end); NULL out of range.
    ListExtract,
    /// `list_contains(list, x)`: whether a non-NULL element equals `x`,
    /// both compared as the given type.
    ListContains(LType),
    /// `string_split(s, sep)`: the pieces between separators (an empty
    /// separator splits into characters).
    StrSplit,
    /// `regexp_split_to_array(s, pattern)`: the pieces between matches.
    RegexpSplit(crate::expr::strfn::Re),
}

/// A piece of a `strftime` format.
#[derive(Debug, Clone, PartialEq)]
pub enum FmtItem {
    /// Text copied as is.
    Text(String),
    /// A `%x` specifier (the letter).
    Spec(char),
}

impl Func {
    /// Whether the function is NULL whenever an argument is (DuckDB's
    /// default NULL handling); `coalesce`, `nullif`, `greatest`, `hash`,
    /// `TRY_CAST`, `IS DISTINCT FROM`, the list builders and `string_split`
    /// (a NULL separator splits nothing) are not.
    pub fn propagates_null(&self) -> bool {
        matches!(
            self,
            Func::AddInterval { .. }
                | Func::Strftime(_)
                | Func::Rounding(_)
                | Func::DateDiff(_)
                | Func::MakeDate
                | Func::MakeTimestamp
                | Func::EpochToTimestamp(_)
                | Func::EpochMs
                | Func::DayName
                | Func::MonthName
                | Func::LastDay
                | Func::Math(_)
                | Func::Time(_)
                | Func::ListLength
                | Func::ListSort
                | Func::ListExtract
        )
    }

    /// The SQL name.
    pub fn name(&self) -> &'static str {
        match self {
            Func::Coalesce => "coalesce",
            Func::NullIf => "nullif",
            Func::Greatest => "greatest",
            Func::Least => "least",
            Func::AddInterval { .. } => "add_interval",
            Func::Strftime(_) => "strftime",
            Func::Rounding(r) => r.name(),
            Func::DateDiff(_) => "date_diff",
            Func::MakeDate => "make_date",
            Func::MakeTimestamp => "make_timestamp",
            Func::EpochToTimestamp(1) => "make_timestamp",
            Func::EpochToTimestamp(_) | Func::EpochMs => "epoch_ms",
            Func::DayName => "dayname",
            Func::MonthName => "monthname",
            Func::LastDay => "last_day",
            Func::Math(m) => m.name(),
            Func::Time(t) => t.name(),
            Func::TryCast => "try_cast",
            Func::Distinct(false) => "is_distinct_from",
            Func::Distinct(true) => "is_not_distinct_from",
            Func::Hash => "hash",
            Func::ListLength => "array_length",
            Func::ListSort => "array_sort",
            Func::ListValue(_) => "list_value",
            Func::ListExtract => "list_extract",
            Func::ListContains(_) => "list_contains",
            Func::StrSplit => "string_split",
            Func::RegexpSplit(_) => "regexp_split_to_array",
        }
    }
}

/// Parses a `strftime` format (the specifiers DuckDB supports that strata
/// implements).
pub fn parse_format(f: &str) -> Result<Vec<FmtItem>> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut it = f.chars();
    while let Some(c) = it.next() {
        if c != '%' {
            text.push(c);
            continue;
        }
        let Some(s) = it.next() else {
            return invalid(format!("strftime format {f:?} ends with %"));
        };
        match s {
            '%' => text.push('%'),
            'Y' | 'y' | 'm' | 'd' | 'H' | 'M' | 'S' | 'j' | 'a' | 'A' | 'b' | 'B' | 'h' | 'w'
            | 'u' | 'I' | 'p' | 'G' | 'V' | 'f' | 'g' | 'n' => {
                if !text.is_empty() {
                    out.push(FmtItem::Text(std::mem::take(&mut text)));
                }
                out.push(FmtItem::Spec(s));
            }
            other => {
                return invalid(format!(
                    "strftime specifier %{other} is not supported (format {f:?})"
                ))
            }
        }
    }
    if !text.is_empty() {
        out.push(FmtItem::Text(text));
    }
    Ok(out)
}

/// Parses the text of an interval (`INTERVAL 1 DAY`, `INTERVAL '90
/// minutes'`, `INTERVAL '1 day 2 hours'`, `INTERVAL '1.5 seconds'`) into
/// (months, microseconds).
pub fn parse_interval(text: &str) -> Result<(i64, i64)> {
    let t = text.trim();
    let t = t
        .get(..8)
        .filter(|p| p.eq_ignore_ascii_case("interval"))
        .map_or(t, |_| &t[8..]);
    let cleaned: String = t.chars().filter(|&c| c != '\'' && c != '"').collect();
    let words: Vec<&str> = cleaned.split_whitespace().collect();
    let (mut months, mut micros) = (0i64, 0i64);
    let mut i = 0;
    let bad = || EngineError::Invalid(format!("cannot parse interval {text:?}"));
    while i < words.len() {
        let n: f64 = words[i].parse().map_err(|_| bad())?;
        let whole = n.trunc() as i64;
        let unit = words.get(i + 1).ok_or_else(bad)?.to_ascii_lowercase();
        // Microseconds of one unit (0 for months and years).
        let per = match unit.as_str() {
            "ms" | "msec" | "msecs" | "millisecond" | "milliseconds" => 1_000,
            "us" | "usec" | "usecs" | "microsecond" | "microseconds" => 1,
            u => match u.trim_end_matches('s') {
                "year" | "yr" | "y" => {
                    months += 12 * whole;
                    0
                }
                "month" | "mon" => {
                    months += whole;
                    0
                }
                "week" | "w" => 7 * MICROS_PER_DAY,
                "day" | "d" => MICROS_PER_DAY,
                "hour" | "hr" | "h" => 3600 * MICROS_PER_SEC,
                "minute" | "min" | "m" => 60 * MICROS_PER_SEC,
                "second" | "sec" => MICROS_PER_SEC,
                _ => return Err(bad()),
            },
        };
        if per == 0 && n.fract() != 0.0 {
            return Err(bad());
        }
        micros += (n * per as f64).round() as i64;
        i += 2;
    }
    if words.is_empty() {
        return Err(bad());
    }
    Ok((months, micros))
}

/// Adds `months` to a timestamp (microseconds), clamping the day of the
/// month.
fn add_months(t: i64, months: i64) -> i64 {
    if months == 0 {
        return t;
    }
    let days = t.div_euclid(MICROS_PER_DAY);
    let rem = t.rem_euclid(MICROS_PER_DAY);
    let (y, m, d) = civil_from_days(days);
    let total = y * 12 + i64::from(m) - 1 + months;
    let (ny, nm) = (total.div_euclid(12), (total.rem_euclid(12) + 1) as u32);
    let next = if nm == 12 {
        days_from_civil(ny + 1, 1, 1)
    } else {
        days_from_civil(ny, nm + 1, 1)
    };
    let last = (next - days_from_civil(ny, nm, 1)) as u32;
    days_from_civil(ny, nm, d.min(last)) * MICROS_PER_DAY + rem
}

const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// ISO year and week of a day number.
pub fn iso_week(days: i64) -> (i64, i64) {
    let isodow = (days + 3).rem_euclid(7) + 1; // Monday = 1
    let thursday = days - isodow + 4;
    let (y, _, _) = civil_from_days(thursday);
    let week = (thursday - days_from_civil(y, 1, 1)) / 7 + 1;
    (y, week)
}

/// Formats day `days` and `rem_us` microseconds into it.
fn strftime(items: &[FmtItem], days: i64, rem_us: i64) -> Vec<u8> {
    use std::fmt::Write;
    let rem = rem_us / MICROS_PER_SEC;
    let frac = rem_us % MICROS_PER_SEC;
    let (y, m, d) = civil_from_days(days);
    let dow = (days + 4).rem_euclid(7) as usize;
    let mut s = String::new();
    for it in items {
        match it {
            FmtItem::Text(t) => s.push_str(t),
            FmtItem::Spec(c) => {
                let _ = match c {
                    // DuckDB pads only years from 0 on: -22 is "-22".
                    'Y' if y < 0 => write!(s, "{y}"),
                    'Y' => write!(s, "{y:04}"),
                    'y' => write!(s, "{:02}", y.abs() % 100),
                    'm' => write!(s, "{m:02}"),
                    'd' => write!(s, "{d:02}"),
                    'H' => write!(s, "{:02}", rem / 3600),
                    'I' => write!(s, "{:02}", (rem / 3600 + 11) % 12 + 1),
                    'p' => write!(s, "{}", if rem < 43200 { "AM" } else { "PM" }),
                    'M' => write!(s, "{:02}", rem / 60 % 60),
                    'S' => write!(s, "{:02}", rem % 60),
                    'f' => write!(s, "{frac:06}"),
                    'g' => write!(s, "{:03}", frac / 1000),
                    'n' => write!(s, "{:09}", frac * 1000),
                    'j' => write!(s, "{:03}", days - days_from_civil(y, 1, 1) + 1),
                    'a' => write!(s, "{}", &DAYS[dow][..3]),
                    'A' => write!(s, "{}", DAYS[dow]),
                    'b' | 'h' => write!(s, "{}", &MONTHS[m as usize - 1][..3]),
                    'B' => write!(s, "{}", MONTHS[m as usize - 1]),
                    'w' => write!(s, "{dow}"),
                    'u' => write!(s, "{}", if dow == 0 { 7 } else { dow }),
                    'G' => match iso_week(days).0 {
                        g if g < 0 => write!(s, "{g}"),
                        g => write!(s, "{g:04}"),
                    },
                    'V' => write!(s, "{:02}", iso_week(days).1),
                    _ => Ok(()),
                };
            }
        }
    }
    s.into_bytes()
}

/// An `i64` argument of a date function.
fn int_arg(v: &Value) -> Result<i64> {
    match v {
        Value::Int(x) => Ok(*x),
        other => Err(EngineError::Internal(format!(
            "date function argument {other:?} is not an integer"
        ))),
    }
}

/// The last day of month `m` of year `y`.
fn month_days(y: i64, m: u32) -> i64 {
    let next = if m == 12 {
        days_from_civil(y + 1, 1, 1)
    } else {
        days_from_civil(y, m + 1, 1)
    };
    next - days_from_civil(y, m, 1)
}

/// `date_diff(part, a, b)` of two TIMESTAMPs (microseconds), as DuckDB
/// counts it: calendar parts by their numbers, fixed-length parts by the
/// boundaries crossed, weeks as whole 7-day spans of days.
fn date_diff(part: crate::expr::DatePart, a: i64, b: i64) -> i128 {
    use crate::expr::DatePart as P;
    let floor = |t: i64, unit: i64| i128::from(t.div_euclid(unit));
    let (da, db) = (a.div_euclid(MICROS_PER_DAY), b.div_euclid(MICROS_PER_DAY));
    let (ya, ma, _) = civil_from_days(da);
    let (yb, mb, _) = civil_from_days(db);
    let (ya, yb) = (i128::from(ya), i128::from(yb));
    let (ma, mb) = (i128::from(ma), i128::from(mb));
    match part {
        P::Year => yb - ya,
        P::Decade => yb.div_euclid(10) - ya.div_euclid(10),
        P::Century => yb / 100 - ya / 100,
        P::Millennium => yb / 1000 - ya / 1000,
        P::Quarter => (yb * 4 + (mb - 1) / 3) - (ya * 4 + (ma - 1) / 3),
        P::Month => (yb * 12 + mb) - (ya * 12 + ma),
        P::Week | P::YearWeek => i128::from(db - da) / 7,
        P::Era => i128::from(yb > 0) - i128::from(ya > 0),
        P::IsoYear => i128::from(iso_week(db).0 - iso_week(da).0),
        P::Day | P::Dow | P::Doy | P::IsoDow => i128::from(db - da),
        P::Hour => floor(b, 3600 * MICROS_PER_SEC) - floor(a, 3600 * MICROS_PER_SEC),
        P::Minute => floor(b, 60 * MICROS_PER_SEC) - floor(a, 60 * MICROS_PER_SEC),
        P::Second | P::Epoch => floor(b, MICROS_PER_SEC) - floor(a, MICROS_PER_SEC),
        P::Millisecond => floor(b, 1000) - floor(a, 1000),
        P::Microsecond => i128::from(b) - i128::from(a),
    }
}

/// One row of a date function of [`Func`] over non-NULL arguments.
fn date_fn(f: &Func, args: &[Value]) -> Result<Value> {
    let out_of_range = |what: String| EngineError::Runtime(format!("Conversion Error: {what}"));
    Ok(match (f, args) {
        (Func::DateDiff(part), [a, b]) => {
            let d = date_diff(*part, int_arg(a)?, int_arg(b)?);
            Value::Int(
                i64::try_from(d)
                    .map_err(|_| out_of_range(format!("date_diff {d} is out of range")))?,
            )
        }
        (Func::MakeDate, [y, m, d]) => {
            let (y, m, d) = (int_arg(y)?, int_arg(m)?, int_arg(d)?);
            if !(1..=12).contains(&m) || d < 1 || y.abs() > 5_000_000 || d > month_days(y, m as u32)
            {
                return Err(out_of_range(format!("Date out of range: {y}-{m}-{d}")));
            }
            Value::Int(days_from_civil(y, m as u32, d as u32))
        }
        (Func::MakeTimestamp, [y, mo, d, h, mi, sec]) => {
            let (y, mo, d) = (int_arg(y)?, int_arg(mo)?, int_arg(d)?);
            let (h, mi) = (int_arg(h)?, int_arg(mi)?);
            let Value::Float(sec) = sec else {
                return Err(EngineError::Internal("make_timestamp seconds".into()));
            };
            if !(1..=12).contains(&mo) || d < 1 || y.abs() > 290_000 || d > month_days(y, mo as u32)
            {
                return Err(out_of_range(format!("Date out of range: {y}-{mo}-{d}")));
            }
            if !(0..=24).contains(&h) || !(0..60).contains(&mi) || !(0.0..60.0).contains(sec) {
                return Err(out_of_range(format!(
                    "Time out of range: {h}:{mi}:{sec:.6}"
                )));
            }
            let micros = (sec * MICROS_PER_SEC as f64).round() as i64;
            Value::Int(
                days_from_civil(y, mo as u32, d as u32) * MICROS_PER_DAY
                    + (h * 3600 + mi * 60) * MICROS_PER_SEC
                    + micros,
            )
        }
        (Func::EpochToTimestamp(per), [x]) => {
            let x = int_arg(x)?;
            Value::Int(
                x.checked_mul(*per)
                    .ok_or_else(|| out_of_range(format!("{}({x}) is out of range", f.name())))?,
            )
        }
        // Rounded half away from zero, as DuckDB.
        (Func::EpochMs, [t]) => {
            let t = int_arg(t)?;
            let (q, r) = (t / 1000, t % 1000);
            Value::Int(q + i64::from(r >= 500) - i64::from(r <= -500))
        }
        (Func::DayName | Func::MonthName | Func::LastDay, [t]) => {
            let days = int_arg(t)?.div_euclid(MICROS_PER_DAY);
            let (y, m, _) = civil_from_days(days);
            match f {
                Func::DayName => Value::Str(DAYS[(days + 4).rem_euclid(7) as usize].into()),
                Func::MonthName => Value::Str(MONTHS[m as usize - 1].into()),
                _ => Value::Int(days_from_civil(y, m, 1) + month_days(y, m) - 1),
            }
        }
        _ => {
            return Err(EngineError::Internal(format!(
                "{}() with {} arguments",
                f.name(),
                args.len()
            )))
        }
    })
}

/// Orders two non-NULL values of one vector type (strings by bytes).
fn cmp_at(a: &Vector, i: usize, b: &Vector, j: usize) -> std::cmp::Ordering {
    match (&a.data, &b.data) {
        (Data::Str(x), Data::Str(y)) => x[i].cmp(&y[j]),
        (Data::F64(x), Data::F64(y)) => crate::value::cmp_f64(x[i], y[j]),
        _ => a.key(i).cmp(&b.key(j)),
    }
}

/// Evaluates `f` over argument vectors of `len` rows, giving type `ty`.
pub fn eval_func(f: &Func, args: &[&Vector], ty: LType, len: usize) -> Result<Vector> {
    let mut out = Vector::empty(ty, len);
    match f {
        Func::Coalesce | Func::Greatest | Func::Least => {
            for i in 0..len {
                let mut pick: Option<usize> = None;
                for (k, a) in args.iter().enumerate() {
                    if a.is_null(i) {
                        continue;
                    }
                    let better = match pick {
                        None => true,
                        Some(p) => {
                            let o = cmp_at(a, i, args[p], i);
                            match f {
                                Func::Greatest => o.is_gt(),
                                Func::Least => o.is_lt(),
                                _ => false,
                            }
                        }
                    };
                    if better {
                        pick = Some(k);
                        if *f == Func::Coalesce {
                            break;
                        }
                    }
                }
                out.push(&pick.map_or(Value::Null, |k| args[k].get(i)));
            }
        }
        Func::NullIf => {
            let [a, b] = args else {
                return Err(EngineError::Internal("nullif needs two arguments".into()));
            };
            for i in 0..len {
                let eq = !a.is_null(i) && !b.is_null(i) && cmp_at(a, i, b, i).is_eq();
                out.push(&if eq { Value::Null } else { a.get(i) });
            }
        }
        Func::AddInterval { months, micros } => {
            let [a] = args else {
                return Err(EngineError::Internal("interval needs one argument".into()));
            };
            let Data::I64(d) = &a.data else {
                return Err(EngineError::Internal("interval on a non-timestamp".into()));
            };
            return Ok(Vector {
                ty,
                data: Data::I64(
                    d.iter()
                        .map(|&t| add_months(t, *months).saturating_add(*micros))
                        .collect(),
                ),
                nulls: a.nulls.clone(),
            });
        }
        Func::DateDiff(_)
        | Func::MakeDate
        | Func::MakeTimestamp
        | Func::EpochToTimestamp(_)
        | Func::EpochMs
        | Func::DayName
        | Func::MonthName
        | Func::LastDay => {
            let mut vals = Vec::with_capacity(args.len());
            for i in 0..len {
                vals.clear();
                if args.iter().any(|a| a.is_null(i)) {
                    out.push(&Value::Null);
                    continue;
                }
                vals.extend(args.iter().map(|a| a.get(i)));
                out.push(&date_fn(f, &vals)?);
            }
        }
        Func::Rounding(mode) => {
            let [a] = args else {
                return Err(EngineError::Internal(format!(
                    "{}() needs one argument",
                    mode.name()
                )));
            };
            return crate::expr::rounding::eval(*mode, a, ty);
        }
        Func::Math(m) => return crate::expr::math::eval(*m, args, ty, len),
        Func::Time(t) => return crate::expr::datetime::eval(t, args, ty, len),
        Func::TryCast => {
            let [a] = args else {
                return Err(EngineError::Internal("try_cast needs one argument".into()));
            };
            for i in 0..len {
                let v = crate::expr::cast_value(&a.get(i), a.ty, ty).unwrap_or(Value::Null);
                out.push(&v);
            }
        }
        Func::Distinct(not) => {
            let [a, b] = args else {
                return Err(EngineError::Internal(
                    "IS DISTINCT FROM needs two operands".into(),
                ));
            };
            for i in 0..len {
                let same = match (a.is_null(i), b.is_null(i)) {
                    (true, true) => true,
                    (false, false) => cmp_at(a, i, b, i).is_eq(),
                    _ => false,
                };
                out.push(&Value::Bool(same == *not));
            }
        }
        Func::ListLength | Func::ListSort => {
            let [a] = args else {
                return Err(EngineError::Internal(
                    "a list function needs one argument".into(),
                ));
            };
            let (LType::List(elem), Data::Str(d)) = (a.ty, &a.data) else {
                return Err(EngineError::Internal(
                    "a list function of a non-list".into(),
                ));
            };
            let bad = || EngineError::Internal("a malformed list value".into());
            for (i, bytes) in d.iter().enumerate().take(len) {
                if a.is_null(i) {
                    out.push(&Value::Null);
                } else if *f == Func::ListLength {
                    out.push(&Value::Int(i64::from(
                        crate::list::len(bytes).ok_or_else(bad)?,
                    )));
                } else {
                    let mut v = crate::list::decode(*elem, bytes).ok_or_else(bad)?;
                    v.sort_by(|x, y| crate::list::cmp_elems(*elem, x, y));
                    out.push(&Value::Str(crate::list::encode(&v)));
                }
            }
        }
        Func::ListValue(null_if_first_null) => {
            for i in 0..len {
                if *null_if_first_null && args.first().is_some_and(|a| a.is_null(i)) {
                    out.push(&Value::Null);
                    continue;
                }
                let mut b = crate::list::ListBuilder::new();
                for a in args {
                    b.push(&a.get(i));
                }
                out.push(&Value::Str(b.finish()));
            }
        }
        Func::ListExtract | Func::ListContains(_) => {
            let [l, x] = args else {
                return Err(EngineError::Internal(format!(
                    "{} needs two arguments",
                    f.name()
                )));
            };
            let (LType::List(elem), Data::Str(lists)) = (l.ty, &l.data) else {
                return Err(EngineError::Internal(format!("{} of a non-list", f.name())));
            };
            let bad = || EngineError::Internal("a malformed list value".into());
            for (i, bytes) in lists.iter().enumerate().take(len) {
                if l.is_null(i) || x.is_null(i) {
                    out.push(&Value::Null);
                    continue;
                }
                let items = crate::list::decode(*elem, bytes).ok_or_else(bad)?;
                let v = match (f, x.get(i)) {
                    (Func::ListContains(t), want) => {
                        let mut found = false;
                        for item in items.iter().filter(|v| !matches!(v, Value::Null)) {
                            let item = crate::expr::cast_value(item, *elem, *t)?;
                            if crate::list::cmp_elems(*t, &item, &want).is_eq() {
                                found = true;
                                break;
                            }
                        }
                        Value::Bool(found)
                    }
                    (_, Value::Int(k)) => {
                        let n = items.len() as i64;
                        let at = if k > 0 { k - 1 } else { n + k };
                        match (k != 0 && (0..n).contains(&at), usize::try_from(at)) {
                            (true, Ok(at)) => items[at].clone(),
                            _ => Value::Null,
                        }
                    }
                    _ => Value::Null,
                };
                out.push(&v);
            }
        }
        Func::StrSplit | Func::RegexpSplit(_) => {
            let (s, sep) = match args {
                [s, sep] => (*s, Some(*sep)),
                [s] => (*s, None),
                _ => {
                    return Err(EngineError::Internal(format!(
                        "{}: wrong arguments",
                        f.name()
                    )));
                }
            };
            for i in 0..len {
                let Value::Str(text) = s.get(i) else {
                    out.push(&Value::Null);
                    continue;
                };
                let pieces: Vec<Value> = match (f, sep.map_or(Value::Null, |v| v.get(i))) {
                    (Func::RegexpSplit(re), _) => re
                        .split(&text)
                        .into_iter()
                        .map(|p| Value::Str(p.to_vec()))
                        .collect(),
                    (_, Value::Str(sep)) => split_text(&text, &sep),
                    _ => vec![Value::Str(text)],
                };
                out.push(&Value::Str(crate::list::encode(&pieces)));
            }
        }
        Func::Hash => {
            for i in 0..len {
                let mut h: u64 = 0x9E37_79B9_7F4A_7C15;
                for a in args {
                    let k = match (a.key(i), &a.data) {
                        (None, _) => 0xA5A5_A5A5,
                        (Some(k), _) => k,
                    };
                    h = (h ^ (k as u64) ^ ((k >> 64) as u64)).wrapping_mul(0x0100_0000_01B3);
                    h ^= h >> 29;
                }
                out.push(&Value::UInt(h));
            }
        }
        Func::Strftime(items) => {
            let [a] = args else {
                return Err(EngineError::Internal("strftime needs one argument".into()));
            };
            let Data::I64(d) = &a.data else {
                return Err(EngineError::Internal("strftime of a non-timestamp".into()));
            };
            // A DATE stays in days: far dates have no microsecond TIMESTAMP.
            return Ok(Vector {
                ty,
                data: Data::Str(
                    d.iter()
                        .map(|&t| {
                            let (days, rem_us) = crate::expr::day_and_time(a.ty, t);
                            strftime(items, days, rem_us)
                        })
                        .collect(),
                ),
                nulls: a.nulls.clone(),
            });
        }
    }
    Ok(out)
}

/// `string_split`: the pieces of `text` between occurrences of `sep`, or
/// its characters when `sep` is empty.
fn split_text(text: &[u8], sep: &[u8]) -> Vec<Value> {
    if sep.is_empty() {
        return String::from_utf8_lossy(text)
            .chars()
            .map(|c| Value::Str(c.to_string().into_bytes()))
            .collect();
    }
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.windows(sep.len()).position(|w| w == sep) {
        out.push(Value::Str(rest[..at].to_vec()));
        rest = &rest[at + sep.len()..];
    }
    out.push(Value::Str(rest.to_vec()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_and_weeks() {
        assert_eq!(
            parse_interval("INTERVAL 1 DAY").ok(),
            Some((0, MICROS_PER_DAY))
        );
        assert_eq!(
            parse_interval("INTERVAL '1 year 2 months 90 minutes'").ok(),
            Some((14, 5400 * MICROS_PER_SEC))
        );
        assert_eq!(
            parse_interval("INTERVAL '1.5 seconds 3 ms 2 us'").ok(),
            Some((0, 1_503_002))
        );
        assert!(parse_interval("INTERVAL 'x'").is_err());
        assert!(parse_interval("INTERVAL '1.5 months'").is_err());
        let jan31 = days_from_civil(2013, 1, 31) * MICROS_PER_DAY + 7;
        assert_eq!(
            add_months(jan31, 1),
            days_from_civil(2013, 2, 28) * MICROS_PER_DAY + 7
        );
        assert_eq!(iso_week(days_from_civil(2013, 7, 15)), (2013, 29));
        assert_eq!(iso_week(days_from_civil(2010, 1, 3)), (2009, 53));
    }
}

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

fn strftime(items: &[FmtItem], micros: i64) -> Vec<u8> {
    use std::fmt::Write;
    let days = micros.div_euclid(MICROS_PER_DAY);
    let rem_us = micros.rem_euclid(MICROS_PER_DAY);
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
                    'Y' => write!(s, "{y:04}"),
                    'y' => write!(s, "{:02}", y.rem_euclid(100)),
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
                    'G' => write!(s, "{}", iso_week(days).0),
                    'V' => write!(s, "{:02}", iso_week(days).1),
                    _ => Ok(()),
                };
            }
        }
    }
    s.into_bytes()
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
        Func::Rounding(mode) => {
            let [a] = args else {
                return Err(EngineError::Internal(format!(
                    "{}() needs one argument",
                    mode.name()
                )));
            };
            return crate::expr::rounding::eval(*mode, a, ty);
        }
        Func::Strftime(items) => {
            let [a] = args else {
                return Err(EngineError::Internal("strftime needs one argument".into()));
            };
            let Data::I64(d) = &a.data else {
                return Err(EngineError::Internal("strftime of a non-timestamp".into()));
            };
            return Ok(Vector {
                ty,
                data: Data::Str(d.iter().map(|&t| strftime(items, t)).collect()),
                nulls: a.nulls.clone(),
            });
        }
    }
    Ok(out)
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

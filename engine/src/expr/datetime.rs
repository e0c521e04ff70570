//! Date, timestamp and INTERVAL functions of
//! [`crate::expr::scalar::Func::Time`]: `date_sub`, `age`, `strptime`,
//! `to_timestamp`, the `to_days`-style constructors, and INTERVAL
//! arithmetic (`TIMESTAMP - TIMESTAMP`, `TIMESTAMP + INTERVAL`, interval
//! sums, products and quotients) with DuckDB's rules. DATEs reach these
//! functions cast to TIMESTAMP by the binder.

use crate::error::{invalid, EngineError, Result};
use crate::expr::scalar::FmtItem;
use crate::expr::DatePart;
use crate::interval::{self, Interval, DAY, DAYS_PER_MONTH};
use crate::value::{civil_from_days, days_from_civil, Data, LType, Value, Vector, MICROS_PER_SEC};

/// A date/time function.
#[derive(Debug, Clone, PartialEq)]
pub enum TimeFn {
    /// `date_sub(part, start, end)`: whole `part`s from start to end.
    DateSub(DatePart),
    /// `age(a, b)`: `a - b` in years, months, days and time.
    Age,
    /// `strptime(text, format)` (`true`: `try_strptime`, NULL where the
    /// text does not parse).
    Strptime(Vec<FmtItem>, String, bool),
    /// `to_timestamp(seconds)`.
    ToTimestamp,
    /// `to_days(n)` and friends: an interval of `n` units.
    ToInterval(&'static str),
    /// `TIMESTAMP +/- INTERVAL` (the sign).
    AddInterval(i64),
    /// `INTERVAL +/- INTERVAL` (the sign).
    IntervalSum(i64),
    /// `TIMESTAMP - TIMESTAMP`: days and microseconds.
    TsDiff,
    /// `-INTERVAL`.
    IntervalNeg,
    /// `INTERVAL * number` (BIGINT or DOUBLE).
    IntervalMul,
    /// `INTERVAL / number` (BIGINT or DOUBLE).
    IntervalDiv,
    /// `EXTRACT(part FROM interval)`.
    IntervalPart(DatePart),
}

impl TimeFn {
    /// The SQL name.
    pub fn name(&self) -> &'static str {
        match self {
            TimeFn::DateSub(_) => "date_sub",
            TimeFn::Age => "age",
            TimeFn::Strptime(_, _, false) => "strptime",
            TimeFn::Strptime(_, _, true) => "try_strptime",
            TimeFn::ToTimestamp => "to_timestamp",
            TimeFn::ToInterval(_) => "to_interval",
            TimeFn::AddInterval(_) => "add_interval",
            TimeFn::IntervalSum(_) => "interval_sum",
            TimeFn::TsDiff => "timestamp_diff",
            TimeFn::IntervalNeg => "interval_negate",
            TimeFn::IntervalMul => "interval_multiply",
            TimeFn::IntervalDiv => "interval_divide",
            TimeFn::IntervalPart(_) => "date_part",
        }
    }
}

/// Whether `part` can be extracted from an INTERVAL, and its result type.
pub fn interval_part_type(part: DatePart) -> Option<LType> {
    Some(match part {
        DatePart::Epoch => LType::Double,
        DatePart::Year
        | DatePart::Month
        | DatePart::Day
        | DatePart::Hour
        | DatePart::Minute
        | DatePart::Second
        | DatePart::Millisecond
        | DatePart::Microsecond
        | DatePart::Quarter
        | DatePart::Decade
        | DatePart::Century
        | DatePart::Millennium => LType::Int64,
        _ => return None,
    })
}

/// Whether `date_sub` takes `part`.
pub fn date_sub_part_ok(part: DatePart) -> bool {
    !matches!(part, DatePart::Era | DatePart::Epoch)
}

fn range_err(what: &str) -> EngineError {
    EngineError::Runtime(format!("Conversion Error: {what}"))
}

/// The (date, time of day) of a timestamp: days and microseconds.
fn split(t: i64) -> (i64, i64) {
    (t.div_euclid(DAY), t.rem_euclid(DAY))
}

fn month_days(y: i64, m: u32) -> i64 {
    let next = if m == 12 {
        days_from_civil(y + 1, 1, 1)
    } else {
        days_from_civil(y, m + 1, 1)
    };
    next - days_from_civil(y, m, 1)
}

/// `age(a, b)` as DuckDB computes it (`Interval::GetAge`): field-wise
/// differences, negative fields borrowed from the next larger one.
pub fn age(a: i64, b: i64) -> Interval {
    let ((da, ta), (db, tb)) = (split(a), split(b));
    let ((y1, m1, d1), (y2, m2, d2)) = (civil_from_days(da), civil_from_days(db));
    let (mut years, mut months, mut days) = (
        y1 - y2,
        i64::from(m1) - i64::from(m2),
        i64::from(d1) - i64::from(d2),
    );
    let mut micros = ta - tb;
    let flipped = a < b;
    if flipped {
        years = -years;
        months = -months;
        days = -days;
        micros = -micros;
    }
    if micros < 0 {
        micros += DAY;
        days -= 1;
    }
    while days < 0 {
        let (y, m) = if flipped { (y1, m1) } else { (y2, m2) };
        days += month_days(y, m);
        months -= 1;
    }
    while months < 0 {
        months += 12;
        years -= 1;
    }
    if flipped {
        years = -years;
        months = -months;
        days = -days;
        micros = -micros;
    }
    Interval::new((years * 12 + months) as i32, days as i32, micros)
}

/// `date_sub(part, a, b)` of two timestamps.
fn date_sub(part: DatePart, a: i64, b: i64) -> i64 {
    use DatePart as P;
    let months = || -> i64 {
        if a > b {
            return -months_between(b, a);
        }
        months_between(a, b)
    };
    let d = i128::from(b) - i128::from(a);
    let per = |unit: i64| (d / i128::from(unit)) as i64;
    match part {
        P::Year | P::IsoYear => months() / 12,
        P::Quarter => months() / 3,
        P::Month => months(),
        P::Decade => months() / 120,
        P::Century => months() / 1200,
        P::Millennium => months() / 12000,
        P::Week | P::YearWeek => per(7 * DAY),
        P::Day | P::Dow | P::Doy | P::IsoDow => per(DAY),
        P::Hour => per(3600 * MICROS_PER_SEC),
        P::Minute => per(60 * MICROS_PER_SEC),
        P::Second => per(MICROS_PER_SEC),
        P::Millisecond => per(1000),
        P::Microsecond | P::Era | P::Epoch => per(1),
    }
}

/// Whole months from `start` to `end` (`start <= end`), as DuckDB's
/// `date_sub` counts them: the end on its month's last day matches any
/// later day of the start month.
fn months_between(start: i64, end: i64) -> i64 {
    let (ed, et) = split(end);
    let (ey, em, edd) = civil_from_days(ed);
    let mut start = start;
    let end_days = month_days(ey, em);
    if i64::from(edd) == end_days {
        let (sd, st) = split(start);
        let (sy, sm, sdd) = civil_from_days(sd);
        if i64::from(sdd) > end_days || (i64::from(sdd) == end_days && st < et) {
            let last = month_days(sy, sm).min(end_days);
            start = days_from_civil(sy, sm, last as u32) * DAY + st;
        }
    }
    i64::from(age(end, start).months)
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
const DAYS: [&str; 7] = [
    "sunday",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
];

/// Checks that `strptime` implements every specifier of a format.
pub fn check_strptime_format(items: &[FmtItem], text: &str) -> Result<()> {
    for it in items {
        if let FmtItem::Spec(c) = it {
            if matches!(c, 'G' | 'V' | 'u' | 'w' | 'h') {
                return invalid(format!(
                    "strptime specifier %{c} is not supported (format {text:?})"
                ));
            }
        }
    }
    Ok(())
}

/// Parses `s` with a `strptime` format; `None` if it does not match.
/// Missing fields default to 1900-01-01 00:00:00.
fn strptime(items: &[FmtItem], s: &[u8]) -> std::result::Result<Option<i64>, EngineError> {
    let mut i = 0;
    let skip_ws = |i: &mut usize| {
        while *i < s.len() && s[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    skip_ws(&mut i);
    let number = |i: &mut usize, max: usize, signed: bool| -> Option<i64> {
        let neg = signed && s.get(*i) == Some(&b'-');
        if neg || (signed && s.get(*i) == Some(&b'+')) {
            *i += 1;
        }
        let start = *i;
        while *i < s.len() && *i - start < max && s[*i].is_ascii_digit() {
            *i += 1;
        }
        if *i == start {
            return None;
        }
        let v: i64 = std::str::from_utf8(&s[start..*i]).ok()?.parse().ok()?;
        Some(if neg { -v } else { v })
    };
    let (mut y, mut mo, mut d) = (1900i64, 1i64, 1i64);
    let (mut h, mut mi, mut sec, mut us) = (0i64, 0i64, 0i64, 0i64);
    let (mut pm, mut twelve) = (None::<bool>, false);
    let mut doy = None;
    for it in items {
        match it {
            FmtItem::Text(t) => {
                for &c in t.as_bytes() {
                    if c.is_ascii_whitespace() {
                        skip_ws(&mut i);
                    } else if s.get(i) == Some(&c) {
                        i += 1;
                    } else {
                        return Ok(None);
                    }
                }
            }
            FmtItem::Spec(c) => {
                let v = match c {
                    'Y' => number(&mut i, 9, true),
                    'y' | 'm' | 'd' | 'H' | 'I' | 'M' | 'S' => number(&mut i, 2, false),
                    'j' => number(&mut i, 3, false),
                    'f' | 'g' | 'n' => {
                        let start = i;
                        let max = match c {
                            'g' => 3,
                            'f' => 6,
                            _ => 9,
                        };
                        let v = number(&mut i, max, false);
                        // Scale to microseconds by the digits read.
                        let digits = (i - start) as u32;
                        v.map(|v| {
                            if digits <= 6 {
                                v * 10i64.pow(6 - digits)
                            } else {
                                v / 10i64.pow(digits - 6)
                            }
                        })
                    }
                    'b' | 'B' | 'a' | 'A' | 'p' => {
                        let rest = &s[i..];
                        let word_len = rest.iter().take_while(|b| b.is_ascii_alphabetic()).count();
                        let word = String::from_utf8_lossy(&rest[..word_len]).to_lowercase();
                        let found = match c {
                            'b' | 'B' => MONTHS
                                .iter()
                                .position(|m| {
                                    word == *m || (word.len() == 3 && m.starts_with(&word))
                                })
                                .map(|k| k as i64 + 1),
                            'a' | 'A' => DAYS
                                .iter()
                                .position(|m| {
                                    word == *m || (word.len() == 3 && m.starts_with(&word))
                                })
                                .map(|_| 0),
                            _ => match word.as_str() {
                                "am" => Some(0),
                                "pm" => Some(1),
                                _ => None,
                            },
                        };
                        i += word_len;
                        found
                    }
                    _ => None,
                };
                let Some(v) = v else {
                    return Ok(None);
                };
                match c {
                    'Y' => y = v,
                    'y' => y = if v < 69 { 2000 + v } else { 1900 + v },
                    'm' | 'b' | 'B' => mo = v,
                    'd' => d = v,
                    'H' => h = v,
                    'I' => {
                        h = v;
                        twelve = true;
                    }
                    'M' => mi = v,
                    'S' => sec = v,
                    'j' => doy = Some(v),
                    'f' | 'g' | 'n' => us = v,
                    'p' => pm = Some(v == 1),
                    _ => {}
                }
            }
        }
    }
    skip_ws(&mut i);
    if i != s.len() {
        return Ok(None);
    }
    if twelve || pm.is_some() {
        if !(1..=12).contains(&h) {
            return Ok(None);
        }
        h %= 12;
        if pm == Some(true) {
            h += 12;
        }
    }
    if !(0..24).contains(&h) || !(0..60).contains(&mi) || !(0..60).contains(&sec) {
        return Ok(None);
    }
    let days = match doy {
        Some(n) => {
            let first = days_from_civil(y, 1, 1);
            if n < 1 || n > days_from_civil(y + 1, 1, 1) - first {
                return Ok(None);
            }
            first + n - 1
        }
        None => {
            if !(1..=12).contains(&mo) || d < 1 || d > month_days(y, mo as u32) {
                return Err(range_err(&format!("Date out of range: {y}-{mo}-{d}")));
            }
            days_from_civil(y, mo as u32, d as u32)
        }
    };
    Ok(days
        .checked_mul(DAY)
        .and_then(|t| t.checked_add((h * 3600 + mi * 60 + sec) * MICROS_PER_SEC + us)))
}

/// The interval quotient `x / k` with DuckDB's carrying (months' remainder
/// to days, days' to microseconds).
fn interval_div(x: Interval, k: f64) -> Option<Interval> {
    if k == 0.0 || !k.is_finite() {
        return None;
    }
    let months = f64::from(x.months) / k;
    let mw = months.trunc();
    let days = f64::from(x.days) / k + (months - mw) * DAYS_PER_MONTH as f64;
    let dw = days.trunc();
    let micros = x.micros as f64 / k + (days - dw) * DAY as f64;
    Some(Interval::new(mw as i32, dw as i32, micros.round() as i64))
}

/// The interval product `x * k` for a fractional `k` (fractions carried
/// down as in [`interval_div`]).
fn interval_mul_f(x: Interval, k: f64) -> Option<Interval> {
    if k == 0.0 {
        return Some(Interval::default());
    }
    interval_div(x, 1.0 / k)
}

fn ints(v: &Vector) -> Result<&[i64]> {
    match &v.data {
        Data::I64(d) => Ok(d),
        _ => Err(EngineError::Internal(
            "date function on a non-timestamp".into(),
        )),
    }
}

fn intervals(v: &Vector) -> Result<&[i128]> {
    match &v.data {
        Data::I128(d) => Ok(d),
        _ => Err(EngineError::Internal(
            "interval function on a non-interval".into(),
        )),
    }
}

/// A number argument as f64, with whether it is whole.
fn number_at(v: &Vector, i: usize) -> (f64, Option<i64>) {
    match &v.data {
        Data::I64(d) => (d[i] as f64, Some(d[i])),
        Data::F64(d) => (d[i], None),
        Data::U64(d) => (d[i] as f64, i64::try_from(d[i]).ok()),
        Data::I128(d) => (d[i] as f64, i64::try_from(d[i]).ok()),
        _ => (0.0, None),
    }
}

/// Evaluates `f` giving type `ty`.
pub fn eval(f: &TimeFn, args: &[&Vector], ty: LType, len: usize) -> Result<Vector> {
    let mut out = Vector::empty(ty, len);
    let null = |i: usize| args.iter().any(|a| a.is_null(i));
    let ov =
        |what: &str| EngineError::Runtime(format!("Out of Range Error: {what} is out of range"));
    for i in 0..len {
        if null(i) {
            out.push(&Value::Null);
            continue;
        }
        let v = match (f, args) {
            (TimeFn::DateSub(part), [a, b]) => {
                Value::Int(date_sub(*part, ints(a)?[i], ints(b)?[i]))
            }
            (TimeFn::Age, [a, b]) => Value::Huge(interval::pack(age(ints(a)?[i], ints(b)?[i]))),
            (TimeFn::TsDiff, [a, b]) => {
                // In i128: two TIMESTAMPs can lie further apart than i64
                // microseconds reach, but never more than i32 days.
                let d = i128::from(ints(a)?[i]) - i128::from(ints(b)?[i]);
                let day = i128::from(DAY);
                Value::Huge(interval::pack(Interval::new(
                    0,
                    (d / day) as i32,
                    (d % day) as i64,
                )))
            }
            (TimeFn::Strptime(items, text, try_), [s]) => {
                let Data::Str(d) = &s.data else {
                    return Err(EngineError::Internal("strptime of a non-string".into()));
                };
                match strptime(items, &d[i]) {
                    Ok(Some(t)) => Value::Int(t),
                    Ok(None) | Err(_) if *try_ => Value::Null,
                    Ok(None) => {
                        return Err(EngineError::Runtime(format!(
                            "Invalid Input Error: Could not parse string \"{}\" according to \
                             format specifier \"{text}\"",
                            String::from_utf8_lossy(&d[i])
                        )))
                    }
                    Err(e) => return Err(e),
                }
            }
            (TimeFn::ToTimestamp, [x]) => {
                let (secs, _) = number_at(x, i);
                let us = secs * MICROS_PER_SEC as f64;
                if !us.is_finite() || us.abs() >= 9.2e18 {
                    return Err(range_err("Epoch seconds out of range for TIMESTAMP"));
                }
                Value::Int(us.round() as i64)
            }
            (TimeFn::ToInterval(unit), [x]) => {
                let iv = match number_at(x, i) {
                    (_, Some(n)) => interval::of_units(n, unit),
                    (f, None) => interval::of_fraction(f, unit),
                };
                Value::Huge(interval::pack(iv.ok_or_else(|| ov("interval"))?))
            }
            (TimeFn::AddInterval(sign), [t, iv]) => {
                let mut x = interval::unpack(intervals(iv)?[i]);
                if *sign < 0 {
                    x = x.negate()?;
                }
                let base = match (t.ty, ints(t)?[i]) {
                    (LType::Date, days) => {
                        match crate::expr::cast_value(
                            &Value::Int(days),
                            LType::Date,
                            LType::Timestamp,
                        )? {
                            Value::Int(us) => us,
                            _ => return Err(EngineError::Internal("DATE to TIMESTAMP".into())),
                        }
                    }
                    (_, us) => us,
                };
                Value::Int(add(base, x).ok_or_else(|| ov("timestamp"))?)
            }
            (TimeFn::IntervalSum(sign), [a, b]) => {
                let (x, mut y) = (
                    interval::unpack(intervals(a)?[i]),
                    interval::unpack(intervals(b)?[i]),
                );
                if *sign < 0 {
                    y = y.negate()?;
                }
                Value::Huge(interval::pack(x.checked_add(y)?))
            }
            (TimeFn::IntervalNeg, [a]) => {
                Value::Huge(interval::pack(interval::unpack(intervals(a)?[i]).negate()?))
            }
            (TimeFn::IntervalMul | TimeFn::IntervalDiv, [a, k]) => {
                let x = interval::unpack(intervals(a)?[i]);
                let r = match (f, number_at(k, i)) {
                    (TimeFn::IntervalMul, (_, Some(n))) => Some(x.checked_mul(n)?),
                    (TimeFn::IntervalMul, (k, None)) => interval_mul_f(x, k),
                    (_, (k, _)) => interval_div(x, k),
                };
                Value::Huge(interval::pack(r.ok_or_else(|| ov("interval"))?))
            }
            (TimeFn::IntervalPart(part), [a]) => {
                let x = interval::unpack(intervals(a)?[i]);
                let (m, mi) = (i64::from(x.months), x.micros);
                Value::Int(match part {
                    DatePart::Epoch => {
                        let secs = (m * DAYS_PER_MONTH + i64::from(x.days)) as f64 * 86_400.0
                            + mi as f64 / MICROS_PER_SEC as f64;
                        out.push(&Value::Float(secs));
                        continue;
                    }
                    DatePart::Year => m / 12,
                    DatePart::Month => m % 12,
                    DatePart::Quarter => m % 12 / 3 + 1,
                    DatePart::Decade => m / 120,
                    DatePart::Century => m / 1200,
                    DatePart::Millennium => m / 12000,
                    DatePart::Day => i64::from(x.days),
                    DatePart::Hour => mi / (3600 * MICROS_PER_SEC),
                    DatePart::Minute => mi % (3600 * MICROS_PER_SEC) / (60 * MICROS_PER_SEC),
                    DatePart::Second => mi % (60 * MICROS_PER_SEC) / MICROS_PER_SEC,
                    DatePart::Millisecond => mi % (60 * MICROS_PER_SEC) / 1000,
                    _ => mi % (60 * MICROS_PER_SEC),
                })
            }
            _ => {
                return Err(EngineError::Internal(format!(
                    "{}() with {} arguments",
                    f.name(),
                    args.len()
                )))
            }
        };
        out.push(&v);
    }
    Ok(out)
}

/// A timestamp plus an interval: months first (the day clamped to the
/// month's end), then days, then microseconds.
pub fn add(t: i64, x: Interval) -> Option<i64> {
    let (days, time) = split(t);
    let (y, m, d) = civil_from_days(days);
    let total = y * 12 + i64::from(m) - 1 + i64::from(x.months);
    let (ny, nm) = (total.div_euclid(12), (total.rem_euclid(12) + 1) as u32);
    let nd = i64::from(d).min(month_days(ny, nm));
    let days = days_from_civil(ny, nm, nd as u32).checked_add(i64::from(x.days))?;
    days.checked_mul(DAY)?
        .checked_add(time)?
        .checked_add(x.micros)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::parse_timestamp;

    fn ts(s: &str) -> i64 {
        parse_timestamp(s).unwrap()
    }

    // Expected values from DuckDB.
    #[test]
    fn age_and_date_sub() {
        let f = |a: &str, b: &str| interval::format(age(ts(a), ts(b)));
        assert_eq!(f("2020-01-31", "2020-03-01"), "-1 month -1 day");
        assert_eq!(
            f("2019-03-31 10:00:00", "2020-01-31 12:00:00"),
            "-10 months -02:00:00"
        );
        assert_eq!(f("2020-03-01", "2020-01-31"), "1 month 1 day");
        assert_eq!(
            f("2020-03-01 00:00:00", "2019-01-15 12:00:00"),
            "1 year 1 month 16 days 12:00:00"
        );
        let g = |p, a: &str, b: &str| date_sub(p, ts(a), ts(b));
        assert_eq!(
            g(
                DatePart::Month,
                "2020-01-31 10:00:00",
                "2020-02-29 09:00:00"
            ),
            0
        );
        assert_eq!(g(DatePart::Year, "2020-03-01", "2021-02-28"), 0);
        assert_eq!(g(DatePart::Week, "2020-01-01", "2020-01-15"), 2);
        assert_eq!(g(DatePart::Quarter, "2020-01-31", "2020-04-30"), 1);
        assert_eq!(
            g(
                DatePart::Minute,
                "2020-01-01 00:00:59",
                "2020-01-01 00:01:58"
            ),
            0
        );
        assert_eq!(g(DatePart::Month, "2020-03-31", "2020-02-29"), -1);
        assert_eq!(g(DatePart::IsoYear, "2020-01-01", "2023-01-03"), 3);
    }

    #[test]
    fn strptime_as_duckdb() {
        let p = |s: &str, f: &str| {
            let items = crate::expr::scalar::parse_format(f).unwrap();
            strptime(&items, s.as_bytes())
                .unwrap()
                .map(crate::value::format_timestamp)
        };
        assert_eq!(p("2020-1-2", "%Y-%m-%d").unwrap(), "2020-01-02 00:00:00");
        assert_eq!(p("70-01-02", "%y-%m-%d").unwrap(), "1970-01-02 00:00:00");
        assert_eq!(
            p("Jan 5 2020 3PM", "%b %d %Y %I%p").unwrap(),
            "2020-01-05 15:00:00"
        );
        assert_eq!(
            p("2020-01-02 03:04:05.123", "%Y-%m-%d %H:%M:%S.%f").unwrap(),
            "2020-01-02 03:04:05.123"
        );
        assert_eq!(
            p("  2020-01-02 ", "%Y-%m-%d").unwrap(),
            "2020-01-02 00:00:00"
        );
        assert_eq!(p("2020-001", "%Y-%j").unwrap(), "2020-01-01 00:00:00");
        assert_eq!(p("12:30", "%H:%M").unwrap(), "1900-01-01 12:30:00");
        assert_eq!(p("2020-01-02x", "%Y-%m-%d"), None);
    }

    #[test]
    fn interval_quotients() {
        let d = |t: &str, k: f64| {
            interval::format(interval_div(interval::parse(t).unwrap(), k).unwrap())
        };
        assert_eq!(d("1 day", 2.0), "12:00:00");
        assert_eq!(d("1 month", 2.0), "15 days");
        assert_eq!(d("1 month 1 day", 3.0), "10 days 08:00:00");
        let m = |t: &str, k: f64| {
            interval::format(interval_mul_f(interval::parse(t).unwrap(), k).unwrap())
        };
        assert_eq!(m("3 days", 2.5), "7 days 12:00:00");
        assert_eq!(m("1 day", 1.5), "1 day 12:00:00");
    }
}

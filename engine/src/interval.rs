//! INTERVAL values as DuckDB has them: months, days and microseconds, kept
//! apart (`INTERVAL 30 DAYS` prints as `30 days`, `INTERVAL 1 MONTH` as
//! `1 month`) but compared by their total, a month counting 30 days and a
//! day 24 hours (so the two are equal, as in DuckDB).
//!
//! A vector holds an interval as one `i128` (see [`pack`]); every place
//! that orders, hashes or groups values goes through [`total`] for the
//! INTERVAL type (see `Vector::key`, `expr::compare`, `expr::order`).

use crate::error::{EngineError, Result};

/// Microseconds per second.
const SEC: i64 = 1_000_000;
/// Microseconds per minute.
const MIN: i64 = 60 * SEC;
/// Microseconds per hour.
const HOUR: i64 = 60 * MIN;
/// Microseconds per day.
pub const DAY: i64 = 24 * HOUR;
/// Days per month, where a month must be counted in days (comparison,
/// `epoch`).
pub const DAYS_PER_MONTH: i64 = 30;

/// An interval's three parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Interval {
    /// Months (a year is 12).
    pub months: i32,
    /// Days.
    pub days: i32,
    /// Microseconds.
    pub micros: i64,
}

impl Interval {
    /// An interval of `months`, `days` and `micros`.
    pub fn new(months: i32, days: i32, micros: i64) -> Interval {
        Interval {
            months,
            days,
            micros,
        }
    }

    /// The interval in microseconds, a month being 30 days: the value
    /// intervals are compared, grouped and hashed by.
    pub fn total(self) -> i128 {
        (i128::from(self.months) * i128::from(DAYS_PER_MONTH) + i128::from(self.days))
            * i128::from(DAY)
            + i128::from(self.micros)
    }

    /// The negated interval (an error when a part is the smallest value of
    /// its type).
    pub fn negate(self) -> Result<Interval> {
        match (
            self.months.checked_neg(),
            self.days.checked_neg(),
            self.micros.checked_neg(),
        ) {
            (Some(months), Some(days), Some(micros)) => Ok(Interval::new(months, days, micros)),
            _ => Err(overflow("negation")),
        }
    }

    /// The part-wise sum (an error on overflow).
    pub fn checked_add(self, o: Interval) -> Result<Interval> {
        match (
            self.months.checked_add(o.months),
            self.days.checked_add(o.days),
            self.micros.checked_add(o.micros),
        ) {
            (Some(months), Some(days), Some(micros)) => Ok(Interval::new(months, days, micros)),
            _ => Err(overflow("addition")),
        }
    }

    /// Each part multiplied by `k` (an error on overflow).
    pub fn checked_mul(self, k: i64) -> Result<Interval> {
        let m = i64::from(self.months).checked_mul(k);
        let d = i64::from(self.days).checked_mul(k);
        match (
            m.and_then(|m| i32::try_from(m).ok()),
            d.and_then(|d| i32::try_from(d).ok()),
            self.micros.checked_mul(k),
        ) {
            (Some(months), Some(days), Some(micros)) => Ok(Interval::new(months, days, micros)),
            _ => Err(overflow("multiplication")),
        }
    }
}

fn overflow(what: &str) -> EngineError {
    EngineError::Runtime(format!("Out of Range Error: Overflow in interval {what}"))
}

/// The interval as one `i128`: months in the top 32 bits, days in the next
/// 32, microseconds in the low 64.
pub fn pack(i: Interval) -> i128 {
    (i128::from(i.months) << 96) | (i128::from(i.days as u32) << 64) | i128::from(i.micros as u64)
}

/// The parts of a [`pack`]ed interval.
pub fn unpack(x: i128) -> Interval {
    Interval {
        months: (x >> 96) as i32,
        days: (x >> 64) as u32 as i32,
        micros: x as u64 as i64,
    }
}

/// The comparison value ([`Interval::total`]) of a packed interval.
pub fn total(x: i128) -> i128 {
    unpack(x).total()
}

/// Formats an interval as DuckDB prints it: `1 year 2 months 3 days
/// 04:05:06.5`, leaving out zero parts (`00:00:00` when all are).
pub fn format(i: Interval) -> String {
    let mut out: Vec<String> = Vec::new();
    let unit = |n: i64, name: &str| {
        if n == 1 || n == -1 {
            format!("{n} {name}")
        } else {
            format!("{n} {name}s")
        }
    };
    if i.months != 0 {
        let (years, months) = (i.months / 12, i.months % 12);
        if years != 0 {
            out.push(unit(i64::from(years), "year"));
        }
        if months != 0 {
            out.push(unit(i64::from(months), "month"));
        }
    }
    if i.days != 0 {
        out.push(unit(i64::from(i.days), "day"));
    }
    if i.micros != 0 || out.is_empty() {
        let sign = if i.micros < 0 { "-" } else { "" };
        let m = i.micros.unsigned_abs();
        let (h, rest) = (m / HOUR as u64, m % HOUR as u64);
        let (mi, rest) = (rest / MIN as u64, rest % MIN as u64);
        let (s, frac) = (rest / SEC as u64, rest % SEC as u64);
        let mut t = format!("{sign}{h:02}:{mi:02}:{s:02}");
        if frac != 0 {
            let digits = format!(".{frac:06}");
            t.push_str(digits.trim_end_matches('0'));
        }
        out.push(t);
    }
    out.join(" ")
}

/// Microseconds of one `unit` (a DuckDB interval unit name, singular or
/// plural), or months when the unit counts months (`Err(months)`); `None`
/// for an unknown unit.
fn unit_of(unit: &str) -> Option<std::result::Result<i64, i64>> {
    let u = unit.to_ascii_lowercase();
    Some(match u.as_str() {
        "us" | "usec" | "usecs" | "microsecond" | "microseconds" => Ok(1),
        "ms" | "msec" | "msecs" | "millisecond" | "milliseconds" => Ok(1000),
        "s" | "sec" | "secs" | "second" | "seconds" => Ok(SEC),
        "m" | "min" | "mins" | "minute" | "minutes" => Ok(MIN),
        "h" | "hr" | "hrs" | "hour" | "hours" => Ok(HOUR),
        "d" | "day" | "days" => Ok(DAY),
        "w" | "week" | "weeks" => Ok(7 * DAY),
        "mon" | "mons" | "month" | "months" => Err(1),
        "y" | "yr" | "yrs" | "year" | "years" => Err(12),
        "dec" | "decade" | "decades" => Err(120),
        "c" | "cent" | "century" | "centuries" => Err(1200),
        "mil" | "millennium" | "millennia" | "millenium" => Err(12000),
        "quarter" | "quarters" => Err(3),
        _ => return None,
    })
}

/// An interval of `n` units of `unit` (`INTERVAL 3 DAY`, `to_days(3)`):
/// days as days, months and years as months, anything shorter as
/// microseconds. `None` for an unknown unit or an overflow.
pub fn of_units(n: i64, unit: &str) -> Option<Interval> {
    match unit_of(unit)? {
        Err(months) => Some(Interval::new(
            i32::try_from(n.checked_mul(months)?).ok()?,
            0,
            0,
        )),
        Ok(per) if per % DAY == 0 => Some(Interval::new(
            0,
            i32::try_from(n.checked_mul(per / DAY)?).ok()?,
            0,
        )),
        Ok(per) => Some(Interval::new(0, 0, n.checked_mul(per)?)),
    }
}

/// A fractional number of `unit`s (`INTERVAL '1.5' SECOND`, `to_seconds(1.5)`):
/// the fraction of a day or longer unit carried down as DuckDB does
/// (months to 30 days, days to 24 hours).
pub fn of_fraction(x: f64, unit: &str) -> Option<Interval> {
    if !x.is_finite() {
        return None;
    }
    match unit_of(unit)? {
        Err(months) => {
            let m = x * months as f64;
            let whole = m.trunc();
            let days = (m - whole) * DAYS_PER_MONTH as f64;
            let dwhole = days.trunc();
            let micros = ((days - dwhole) * DAY as f64).round();
            Some(Interval::new(
                to_i32(whole)?,
                to_i32(dwhole)?,
                to_i64(micros)?,
            ))
        }
        Ok(per) if per >= DAY => {
            let d = x * (per / DAY) as f64;
            let whole = d.trunc();
            let micros = ((d - whole) * DAY as f64).round();
            Some(Interval::new(0, to_i32(whole)?, to_i64(micros)?))
        }
        Ok(per) => Some(Interval::new(0, 0, to_i64((x * per as f64).round())?)),
    }
}

fn to_i32(x: f64) -> Option<i32> {
    (x >= f64::from(i32::MIN) && x <= f64::from(i32::MAX)).then_some(x as i32)
}

fn to_i64(x: f64) -> Option<i64> {
    (-9.2e18..=9.2e18).contains(&x).then_some(x as i64)
}

/// Parses interval text as DuckDB reads it (`'1 day'`, `'1 year 2 months'`,
/// `'90 minutes'`, `'1.5 seconds'`, `'04:05:06.5'`, `'3 days 04:05'`,
/// `'-1 day 1 hour'`, `'2 weeks ago'`).
pub fn parse(text: &str) -> Result<Interval> {
    let bad = || {
        EngineError::Runtime(format!(
            "Conversion Error: could not convert {text:?} to INTERVAL"
        ))
    };
    let t = text.trim();
    let t = t.strip_prefix('@').unwrap_or(t).trim();
    let words: Vec<&str> = t.split_whitespace().collect();
    if words.is_empty() {
        return Err(bad());
    }
    // A bare number counts seconds.
    if let [w] = words.as_slice() {
        if let Ok(x) = w.parse::<f64>() {
            return of_fraction(x, "seconds").ok_or_else(bad);
        }
    }
    let mut acc = Interval::default();
    let mut i = 0;
    let mut ago = false;
    while i < words.len() {
        let w = words[i];
        if w.eq_ignore_ascii_case("ago") && i + 1 == words.len() {
            ago = true;
            break;
        }
        if w.contains(':') {
            acc = acc.checked_add(Interval::new(0, 0, parse_clock(w).ok_or_else(bad)?))?;
            i += 1;
            continue;
        }
        // A number with its unit attached (`2days`) or in the next word.
        let split = w
            .char_indices()
            .find(|&(k, c)| k > 0 && c.is_ascii_alphabetic())
            .map_or(w.len(), |(k, _)| k);
        let (num, unit) = if split < w.len() {
            (&w[..split], &w[split..])
        } else {
            let u = words.get(i + 1).copied().ok_or_else(bad)?;
            i += 1;
            (w, u)
        };
        i += 1;
        let part = match num.parse::<i64>() {
            Ok(n) => of_units(n, unit),
            Err(_) => num.parse::<f64>().ok().and_then(|x| of_fraction(x, unit)),
        };
        acc = acc.checked_add(part.ok_or_else(bad)?)?;
    }
    if ago {
        acc = acc.negate()?;
    }
    Ok(acc)
}

/// `[-]H[:MM[:SS[.ffffff]]]` as microseconds.
fn parse_clock(w: &str) -> Option<i64> {
    let (neg, w) = match w.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, w.strip_prefix('+').unwrap_or(w)),
    };
    let mut it = w.split(':');
    let h: i64 = it.next()?.parse().ok()?;
    let m: i64 = it.next().map_or(Some(0), |x| x.parse().ok())?;
    let s = it.next().unwrap_or("0");
    if it.next().is_some() {
        return None;
    }
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    if !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let sec: i64 = whole.parse().ok()?;
    let micros = h
        .checked_mul(HOUR)?
        .checked_add(m * MIN)?
        .checked_add(sec * SEC)?
        .checked_add(crate::value::fraction_micros(frac))?;
    Some(if neg { -micros } else { micros })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips() {
        for i in [
            Interval::new(0, 0, 0),
            Interval::new(-1, 2, -3),
            Interval::new(i32::MIN, i32::MAX, i64::MIN),
            Interval::new(i32::MAX, i32::MIN, i64::MAX),
        ] {
            assert_eq!(unpack(pack(i)), i);
        }
        assert_eq!(
            Interval::new(1, 0, 0).total(),
            Interval::new(0, 30, 0).total()
        );
        assert_eq!(
            Interval::new(1, -5, 0).total(),
            Interval::new(0, 25, 0).total()
        );
    }

    #[test]
    fn formats_as_duckdb() {
        // DuckDB's CAST(INTERVAL ... AS VARCHAR).
        let f = |t: &str| format(parse(t).unwrap());
        assert_eq!(
            f("1 year 2 months 3 days 04:05:06.5"),
            "1 year 2 months 3 days 04:05:06.5"
        );
        assert_eq!(f("36 hours"), "36:00:00");
        assert_eq!(f("-1 day"), "-1 day");
        assert_eq!(f("1 month -1 day"), "1 month -1 day");
        assert_eq!(f("0 seconds"), "00:00:00");
        assert_eq!(f("-1 year -2 months"), "-1 year -2 months");
        assert_eq!(f("-3 hours -5 minutes"), "-03:05:00");
        assert_eq!(f("1 microsecond"), "00:00:00.000001");
        assert_eq!(f("-1 days 1 hour"), "-1 day 01:00:00");
        assert_eq!(f("14 months"), "1 year 2 months");
        assert_eq!(f("1.5 days"), "1 day 12:00:00");
        assert_eq!(f("2 weeks"), "14 days");
        assert!(parse("x").is_err());
        assert!(parse("").is_err());
        assert!(parse("1 fortnight").is_err());
    }
}

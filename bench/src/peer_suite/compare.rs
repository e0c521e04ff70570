//! Typed comparison of strata's answers with DuckDB's.
//!
//! Cells are compared by kind, not as printed text: exact numbers (integers and decimals of
//! any scale) by value, so `1.50` equals `1.5` and `3` equals `3.0` as a DECIMAL; a floating
//! point number on either side compares numerically within a small relative tolerance
//! (`1e-9`; `1e-6` for FLOAT columns, which hold 24-bit mantissas) or an absolute `1e-12`,
//! NaN equal to NaN; strings, booleans, dates and timestamps compare exactly; NULL only
//! equals NULL. A string never equals a number.
//!
//! Row order counts when the query's top-level ORDER BY fixes it; otherwise answers are
//! compared as multisets. Ties are accounted for by [`tie_aware`], as
//! [`crate::suite::check`] does for the printed answers of the ClickBench and taxi suites.

use std::cmp::Ordering;
use std::collections::HashMap;

use strata::{DataType, Value};

use crate::suite::check::QueryShape;
use crate::suite::json::Json;

/// An exact number: `mantissa / 10^scale`, trailing zeros removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Exact {
    mantissa: i128,
    scale: u32,
}

impl Exact {
    /// `mantissa / 10^scale`, normalized.
    pub fn new(mut mantissa: i128, mut scale: u32) -> Exact {
        while scale > 0 && mantissa % 10 == 0 {
            mantissa /= 10;
            scale -= 1;
        }
        Exact { mantissa, scale }
    }

    /// Parses `-123.4500`-style text (no exponent).
    pub fn parse(text: &str) -> Option<Exact> {
        let (neg, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text.strip_prefix('+').unwrap_or(text)),
        };
        let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
        if int.is_empty() && frac.is_empty() {
            return None;
        }
        let mut m: i128 = 0;
        for c in int.chars().chain(frac.chars()) {
            let d = c.to_digit(10)?;
            m = m.checked_mul(10)?.checked_add(i128::from(d))?;
        }
        let scale = u32::try_from(frac.len()).ok()?;
        Some(Exact::new(if neg { -m } else { m }, scale))
    }

    fn to_f64(self) -> f64 {
        self.mantissa as f64 / 10f64.powi(self.scale as i32)
    }
}

/// One value of an answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// NULL.
    Null,
    /// An integer or decimal.
    Exact(Exact),
    /// A floating point number.
    Float(f64),
    /// A boolean.
    Bool(bool),
    /// Text of a kind: `str`, `date`, `timestamp`, or another DuckDB type (`time`, `blob`,
    /// `other` for lists, structs, intervals).
    Text(&'static str, String),
    /// A LIST, element by element.
    List(Vec<Cell>),
}

/// Rows of cells.
pub type Rows = Vec<Vec<Cell>>;

fn tag(t: &str) -> &'static str {
    match t {
        "str" => "str",
        "date" => "date",
        "timestamp" => "timestamp",
        "time" => "time",
        "blob" => "blob",
        _ => "other",
    }
}

/// A cell of a `peers.py serve` reply: `null` or `[tag, text]`.
pub fn duck_cell(v: &Json) -> Cell {
    let pair = v.items();
    if let (Some("list"), Some(items)) = (pair.first().and_then(Json::str), pair.get(1)) {
        return Cell::List(items.items().iter().map(duck_cell).collect());
    }
    let (Some(t), Some(text)) = (
        pair.first().and_then(Json::str),
        pair.get(1).and_then(Json::str),
    ) else {
        return Cell::Null;
    };
    match t {
        "int" | "decimal" => {
            Exact::parse(text).map_or(Cell::Text("other", text.into()), Cell::Exact)
        }
        "float" => text
            .parse::<f64>()
            .map_or(Cell::Text("other", text.into()), Cell::Float),
        "bool" => Cell::Bool(text == "true"),
        other => Cell::Text(tag(other), text.to_string()),
    }
}

/// Days since 1970-01-01 as `YYYY-MM-DD` (proleptic Gregorian).
fn date_text(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// A strata value of type `ty` as a cell.
pub fn strata_cell(ty: DataType, v: &Value) -> Cell {
    match (ty, v) {
        (_, Value::Null) => Cell::Null,
        (DataType::List(elem), Value::Str(b)) => match strata::engine::list::decode(*elem, b) {
            Some(items) => Cell::List(items.iter().map(|x| strata_cell(*elem, x)).collect()),
            None => Cell::Text("other", "<invalid list>".into()),
        },
        (_, Value::Bool(b)) => Cell::Bool(*b),
        (DataType::Date, Value::Int(d)) => Cell::Text("date", date_text(*d)),
        (DataType::Timestamp, Value::Int(us)) => {
            // Microseconds, printed as DuckDB prints them: a fraction only
            // when not zero, without trailing zeros.
            const PER_DAY: i64 = 86_400_000_000;
            let (days, rem) = (us.div_euclid(PER_DAY), us.rem_euclid(PER_DAY));
            let (secs, frac) = (rem / 1_000_000, rem % 1_000_000);
            let mut text = format!(
                "{} {:02}:{:02}:{:02}",
                date_text(days),
                secs / 3600,
                secs / 60 % 60,
                secs % 60
            );
            if frac != 0 {
                text.push_str(format!(".{frac:06}").trim_end_matches('0'));
            }
            Cell::Text("timestamp", text)
        }
        (DataType::Decimal(_, s), Value::Int(x)) => {
            Cell::Exact(Exact::new(i128::from(*x), u32::from(s)))
        }
        (DataType::Decimal(_, s), Value::Huge(x)) => Cell::Exact(Exact::new(*x, u32::from(s))),
        (_, Value::Int(x)) => Cell::Exact(Exact::new(i128::from(*x), 0)),
        (_, Value::UInt(x)) => Cell::Exact(Exact::new(i128::from(*x), 0)),
        (_, Value::Huge(x)) => Cell::Exact(Exact::new(*x, 0)),
        (_, Value::Float(f)) => Cell::Float(*f),
        (_, Value::Str(s)) => Cell::Text("str", String::from_utf8_lossy(s).into_owned()),
    }
}

fn numeric(c: &Cell) -> Option<f64> {
    match c {
        Cell::Exact(e) => Some(e.to_f64()),
        Cell::Float(f) => Some(*f),
        _ => None,
    }
}

/// Whether two cells are equal (see the module documentation); `tol` is the relative
/// tolerance for floating point numbers.
pub fn cell_eq(a: &Cell, b: &Cell, tol: f64) -> bool {
    match (a, b) {
        (Cell::Null, Cell::Null) => true,
        (Cell::Exact(x), Cell::Exact(y)) => x == y,
        (Cell::Float(_), _) | (_, Cell::Float(_)) => match (numeric(a), numeric(b)) {
            (Some(x), Some(y)) => {
                if x.is_nan() || y.is_nan() {
                    return x.is_nan() && y.is_nan();
                }
                if x.is_infinite() || y.is_infinite() {
                    return x == y;
                }
                (x - y).abs() <= (tol * x.abs().max(y.abs())).max(1e-12)
            }
            _ => false,
        },
        (Cell::Bool(x), Cell::Bool(y)) => x == y,
        (Cell::Text(t, x), Cell::Text(u, y)) => t == u && x == y,
        (Cell::List(x), Cell::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| cell_eq(p, q, tol))
        }
        _ => false,
    }
}

/// The relative tolerance for a DuckDB column type.
pub fn tolerance(duck_type: &str) -> f64 {
    if duck_type.eq_ignore_ascii_case("FLOAT") || duck_type.eq_ignore_ascii_case("REAL") {
        1e-6
    } else {
        1e-9
    }
}

fn row_eq(a: &[Cell], b: &[Cell], tols: &[f64]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .enumerate()
            .all(|(i, (x, y))| cell_eq(x, y, tols.get(i).copied().unwrap_or(1e-9)))
}

/// An order on cells that keeps near-equal floats together (for multiset matching).
fn cell_cmp(a: &Cell, b: &Cell) -> Ordering {
    fn rank(c: &Cell) -> u8 {
        match c {
            Cell::Null => 0,
            Cell::Exact(_) | Cell::Float(_) => 1,
            Cell::Bool(_) => 2,
            Cell::Text(..) => 3,
            Cell::List(_) => 4,
        }
    }
    match (a, b) {
        (Cell::List(x), Cell::List(y)) => row_cmp(x, y).then(x.len().cmp(&y.len())),
        (Cell::Text(t, x), Cell::Text(u, y)) => t.cmp(u).then_with(|| x.cmp(y)),
        (Cell::Bool(x), Cell::Bool(y)) => x.cmp(y),
        _ => match (numeric(a), numeric(b)) {
            (Some(x), Some(y)) => {
                let r = |v: f64| format!("{v:.5e}").parse::<f64>().unwrap_or(v);
                r(x).total_cmp(&r(y))
            }
            _ => rank(a).cmp(&rank(b)),
        },
    }
}

fn row_cmp(a: &[Cell], b: &[Cell]) -> Ordering {
    a.iter()
        .zip(b)
        .map(|(x, y)| cell_cmp(x, y))
        .find(|o| o.is_ne())
        .unwrap_or_else(|| a.len().cmp(&b.len()))
}

/// Whether `a` and `b` hold the same rows, in the same order when `ordered`.
pub fn same_rows(a: &Rows, b: &Rows, ordered: bool, tols: &[f64]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if ordered {
        return a.iter().zip(b).all(|(x, y)| row_eq(x, y, tols));
    }
    let mut sa: Vec<&Vec<Cell>> = a.iter().collect();
    let mut sb: Vec<&Vec<Cell>> = b.iter().collect();
    sa.sort_by(|x, y| row_cmp(x, y));
    sb.sort_by(|x, y| row_cmp(x, y));
    if sa.iter().zip(&sb).all(|(x, y)| row_eq(x, y, tols)) {
        return true;
    }
    a.len() <= 5_000 && contained(a, b, tols)
}

/// Whether every row of `part` matches a distinct row of `whole`.
fn contained(part: &Rows, whole: &Rows, tols: &[f64]) -> bool {
    let mut used = vec![false; whole.len()];
    part.iter().all(|r| {
        let hit = (0..whole.len()).find(|&j| !used[j] && row_eq(r, &whole[j], tols));
        if let Some(j) = hit {
            used[j] = true;
        }
        hit.is_some()
    })
}

/// The outcome of comparing one answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// The same answer.
    Match,
    /// A different but equally valid answer (ties at a LIMIT, or among ORDER BY keys).
    MatchTies,
    /// The exact comparison failed and the query has a LIMIT: decide with DuckDB's answer
    /// without it ([`tie_aware`]).
    NeedFull,
    /// A wrong answer, with why.
    Mismatch(String),
}

fn show(row: &[Cell]) -> String {
    let cells: Vec<String> = row
        .iter()
        .map(|c| match c {
            Cell::List(items) => show(items),
            Cell::Null => "NULL".into(),
            Cell::Exact(e) => {
                let s = e.mantissa.abs().to_string();
                let sign = if e.mantissa < 0 { "-" } else { "" };
                let scale = e.scale as usize;
                if scale == 0 {
                    format!("{sign}{s}")
                } else {
                    let s = format!("{s:0>width$}", width = scale + 1);
                    let (i, f) = s.split_at(s.len() - scale);
                    format!("{sign}{i}.{f}")
                }
            }
            Cell::Float(f) => f.to_string(),
            Cell::Bool(b) => b.to_string(),
            Cell::Text(_, s) => s.clone(),
        })
        .collect();
    format!("[{}]", cells.join(", "))
}

/// Explains an exact mismatch: the first differing row.
pub fn describe(strata: &Rows, duck: &Rows, tols: &[f64]) -> String {
    if strata.len() != duck.len() {
        return format!("{} rows, DuckDB has {}", strata.len(), duck.len());
    }
    match strata
        .iter()
        .zip(duck)
        .position(|(s, d)| !row_eq(s, d, tols))
    {
        Some(i) => format!(
            "row {}: strata {} vs DuckDB {}",
            i + 1,
            show(&strata[i]),
            show(&duck[i])
        ),
        None => "rows differ".into(),
    }
}

/// Compares strata's answer with DuckDB's for a query of shape `shape`.
pub fn compare(
    shape: &QueryShape,
    columns: &[String],
    strata: &Rows,
    duck: &Rows,
    tols: &[f64],
) -> Verdict {
    if same_rows(strata, duck, shape.has_order_by, tols) {
        return Verdict::Match;
    }
    if shape.has_limit {
        return Verdict::NeedFull;
    }
    if shape.has_order_by && same_rows(strata, duck, false, tols) {
        let keys = shape.key_columns(columns);
        if !keys.is_empty() && keys_agree(&keys, strata, duck, tols).is_none() {
            return Verdict::MatchTies;
        }
        return Verdict::Mismatch(format!(
            "the same rows in another order ({})",
            describe(strata, duck, tols)
        ));
    }
    Verdict::Mismatch(describe(strata, duck, tols))
}

/// The first row where the ORDER BY key columns differ, if any.
fn keys_agree(keys: &[usize], strata: &Rows, duck: &Rows, tols: &[f64]) -> Option<usize> {
    strata.iter().zip(duck).position(|(s, d)| {
        keys.iter().any(|&k| match (s.get(k), d.get(k)) {
            (Some(x), Some(y)) => !cell_eq(x, y, tols.get(k).copied().unwrap_or(1e-9)),
            _ => true,
        })
    })
}

/// The check of a LIMIT query against DuckDB's answer without the LIMIT (`full`): strata's
/// rows must be as many as DuckDB's, each a row of the full answer, and (with ORDER BY) its
/// ORDER BY key columns must match DuckDB's row by row.
pub fn tie_aware(
    shape: &QueryShape,
    columns: &[String],
    strata: &Rows,
    duck: &Rows,
    full: &Rows,
    tols: &[f64],
) -> Verdict {
    if strata.len() != duck.len() {
        return Verdict::Mismatch(format!("{} rows, DuckDB has {}", strata.len(), duck.len()));
    }
    let mut exact: HashMap<String, usize> = HashMap::new();
    for r in full {
        *exact.entry(show(r)).or_default() += 1;
    }
    let mut rest: Rows = Vec::new();
    for r in strata {
        match exact.get_mut(&show(r)).filter(|c| **c > 0) {
            Some(c) => *c -= 1,
            None => rest.push(r.clone()),
        }
    }
    let all_found = rest.is_empty() || (full.len() <= 100_000 && contained(&rest, full, tols));
    if !all_found {
        return Verdict::Mismatch(format!(
            "row {} is not in DuckDB's answer without LIMIT",
            show(&rest[0])
        ));
    }
    if shape.has_order_by {
        let keys = shape.key_columns(columns);
        if let Some(i) = keys_agree(&keys, strata, duck, tols) {
            return Verdict::Mismatch(format!(
                "row {}: ORDER BY keys differ: strata {} vs DuckDB {}",
                i + 1,
                show(&strata[i]),
                show(&duck[i])
            ));
        }
    }
    Verdict::MatchTies
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::json::parse;

    fn ex(s: &str) -> Cell {
        Cell::Exact(Exact::parse(s).unwrap())
    }

    fn s(v: &str) -> Cell {
        Cell::Text("str", v.into())
    }

    #[test]
    fn exact_numbers_compare_by_value() {
        assert_eq!(Exact::parse("1.500"), Exact::parse("1.5"));
        assert_eq!(Exact::parse("-0.10"), Some(Exact::new(-1, 1)));
        assert_eq!(Exact::parse("3"), Exact::parse("3.000"));
        assert_ne!(Exact::parse("1.05"), Exact::parse("1.5"));
        assert_eq!(Exact::parse("abc"), None);
        assert_eq!(Exact::parse("1e5"), None);
        assert!(cell_eq(&ex("100"), &ex("100.000"), 1e-9));
        assert!(!cell_eq(&ex("100.001"), &ex("100"), 1e-9));
        assert_eq!(
            Exact::parse("18446744073709551615"),
            Some(Exact::new(18_446_744_073_709_551_615, 0))
        );
    }

    #[test]
    fn floats_compare_within_tolerance_and_never_equal_strings() {
        assert!(cell_eq(&Cell::Float(0.1 + 0.2), &Cell::Float(0.3), 1e-9));
        assert!(!cell_eq(&Cell::Float(0.31), &Cell::Float(0.3), 1e-9));
        assert!(cell_eq(&Cell::Float(2.5), &ex("2.5"), 1e-9));
        assert!(cell_eq(
            &Cell::Float(f64::NAN),
            &Cell::Float(f64::NAN),
            1e-9
        ));
        assert!(!cell_eq(&Cell::Float(f64::NAN), &Cell::Float(1.0), 1e-9));
        assert!(cell_eq(&Cell::Float(1e-17), &Cell::Float(0.0), 1e-9));
        assert!(cell_eq(&Cell::Float(1.1000000238), &Cell::Float(1.1), 1e-6));
        assert!(!cell_eq(
            &Cell::Float(1.1000000238),
            &Cell::Float(1.1),
            1e-9
        ));
        assert!(!cell_eq(&s("1"), &ex("1"), 1e-9));
        assert!(!cell_eq(&Cell::Null, &ex("0"), 1e-9));
        assert!(cell_eq(&Cell::Null, &Cell::Null, 1e-9));
        assert!(!cell_eq(
            &Cell::Text("date", "2020-01-01".into()),
            &s("2020-01-01"),
            1e-9
        ));
        assert_eq!(tolerance("FLOAT"), 1e-6);
        assert_eq!(tolerance("DOUBLE"), 1e-9);
    }

    #[test]
    fn cells_from_both_sides() {
        let v = parse(r#"[["int","-3"],["decimal","1.50"],["float","0.1"],["bool","true"],["str","x"],["date","2020-02-29"],null,["other","[1, 2]"]]"#).unwrap();
        let cells: Vec<Cell> = v.items().iter().map(duck_cell).collect();
        assert_eq!(
            cells,
            vec![
                ex("-3"),
                ex("1.5"),
                Cell::Float(0.1),
                Cell::Bool(true),
                s("x"),
                Cell::Text("date", "2020-02-29".into()),
                Cell::Null,
                Cell::Text("other", "[1, 2]".into()),
            ]
        );
        assert_eq!(
            strata_cell(DataType::Date, &Value::Int(18_321)),
            Cell::Text("date", "2020-02-29".into())
        );
        assert_eq!(
            strata_cell(DataType::Date, &Value::Int(-1)),
            Cell::Text("date", "1969-12-31".into())
        );
        assert_eq!(
            strata_cell(DataType::Timestamp, &Value::Int(1_609_477_870_000_000)),
            Cell::Text("timestamp", "2021-01-01 05:11:10".into())
        );
        assert_eq!(
            strata_cell(DataType::Timestamp, &Value::Int(-1)),
            Cell::Text("timestamp", "1969-12-31 23:59:59.999999".into())
        );
        assert_eq!(
            strata_cell(DataType::Decimal(10, 3), &Value::Int(110_000)),
            ex("110")
        );
        assert_eq!(
            strata_cell(DataType::UInt64, &Value::UInt(u64::MAX)),
            ex("18446744073709551615")
        );
        assert_eq!(
            strata_cell(DataType::Varchar, &Value::Str(b"a".to_vec())),
            s("a")
        );
        assert_eq!(strata_cell(DataType::Int32, &Value::Null), Cell::Null);
    }

    fn rows(v: &[&[Cell]]) -> Rows {
        v.iter().map(|r| r.to_vec()).collect()
    }

    #[test]
    fn order_counts_only_under_order_by() {
        let cols: Vec<String> = vec!["k".into(), "c".into()];
        let tols = [1e-9, 1e-9];
        let a = rows(&[&[s("x"), ex("1")], &[s("y"), ex("2")]]);
        let b = rows(&[&[s("y"), ex("2")], &[s("x"), ex("1")]]);
        let unordered = QueryShape::of("SELECT k, c FROM t");
        assert_eq!(compare(&unordered, &cols, &a, &b, &tols), Verdict::Match);
        let ordered = QueryShape::of("SELECT k, c FROM t ORDER BY c");
        assert!(matches!(
            compare(&ordered, &cols, &a, &b, &tols),
            Verdict::Mismatch(_)
        ));
        let ties_a = rows(&[&[s("x"), ex("1")], &[s("y"), ex("1")]]);
        let ties_b = rows(&[&[s("y"), ex("1")], &[s("x"), ex("1")]]);
        assert_eq!(
            compare(&ordered, &cols, &ties_a, &ties_b, &tols),
            Verdict::MatchTies
        );
        let wrong = rows(&[&[s("x"), ex("1")], &[s("y"), ex("3")]]);
        assert!(matches!(
            compare(&unordered, &cols, &wrong, &b, &tols),
            Verdict::Mismatch(_)
        ));
    }

    #[test]
    fn limits_are_checked_against_the_full_answer() {
        let cols: Vec<String> = vec!["k".into(), "c".into()];
        let tols = [1e-9, 1e-9];
        let q = QueryShape::of("SELECT k, c FROM t ORDER BY c DESC LIMIT 2");
        let full = rows(&[
            &[s("a"), ex("5")],
            &[s("b"), ex("3")],
            &[s("c"), ex("3")],
            &[s("d"), ex("1")],
        ]);
        let duck = rows(&[&[s("a"), ex("5")], &[s("b"), ex("3")]]);
        let strata = rows(&[&[s("a"), ex("5")], &[s("c"), ex("3")]]);
        assert_eq!(compare(&q, &cols, &strata, &duck, &tols), Verdict::NeedFull);
        assert_eq!(
            tie_aware(&q, &cols, &strata, &duck, &full, &tols),
            Verdict::MatchTies
        );
        let wrong = rows(&[&[s("a"), ex("5")], &[s("d"), ex("1")]]);
        assert!(matches!(
            tie_aware(&q, &cols, &wrong, &duck, &full, &tols),
            Verdict::Mismatch(_)
        ));
        let invented = rows(&[&[s("a"), ex("5")], &[s("z"), ex("3")]]);
        assert!(matches!(
            tie_aware(&q, &cols, &invented, &duck, &full, &tols),
            Verdict::Mismatch(_)
        ));
        let short = rows(&[&[s("a"), ex("5")]]);
        assert!(matches!(
            tie_aware(&q, &cols, &short, &duck, &full, &tols),
            Verdict::Mismatch(_)
        ));
        let any = QueryShape::of("SELECT k, c FROM t LIMIT 2");
        let other = rows(&[&[s("d"), ex("1")], &[s("b"), ex("3")]]);
        assert_eq!(
            tie_aware(&any, &cols, &other, &duck, &full, &tols),
            Verdict::MatchTies
        );
    }
}

//! Checking strata's answers against DuckDB's.
//!
//! Values are compared as the strings both sides print (DuckDB CLI style); two cells that
//! differ as strings still match when both parse as numbers within a relative 1e-9 (AVG and
//! SUM of floats may differ in the last digits). A query with ORDER BY is compared row by row,
//! one without as a multiset.
//!
//! When the answer is not unique (LIMIT with ties at the boundary, or LIMIT without ORDER BY)
//! an exact comparison can fail for a correct answer; then the check is tie-aware: DuckDB also
//! computes the answer without LIMIT/OFFSET, and strata's answer passes when it has DuckDB's
//! row count, every row belongs to the full answer, and the ORDER BY key columns (result
//! columns named by the ORDER BY clause) match DuckDB's row by row.

use std::collections::HashMap;

/// Rows as printed strings.
pub type Rows = Vec<Vec<String>>;

/// The parts of a query the check needs (found in its text, at parenthesis depth 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryShape {
    /// Whether it has ORDER BY.
    pub has_order_by: bool,
    /// Whether it has LIMIT (or OFFSET).
    pub has_limit: bool,
    /// The query without its LIMIT/OFFSET tail (and without a trailing `;`).
    pub without_limit: String,
    select_items: Vec<(String, Option<String>)>,
    order_items: Vec<String>,
}

/// Byte offsets of the top-level (depth 0, outside quotes) occurrences of `keyword`
/// (case-insensitive, whole words).
fn find_top(sql: &str, keyword: &str) -> Vec<usize> {
    let b = sql.as_bytes();
    let kw = keyword.as_bytes();
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        match c {
            b'\'' | b'"' => quote = Some(c),
            b'(' => depth += 1,
            b')' => depth -= 1,
            _ => {
                if depth == 0
                    && b.len() - i >= kw.len()
                    && b[i..i + kw.len()].eq_ignore_ascii_case(kw)
                    && (i == 0 || !is_word(b[i - 1]))
                    && b.get(i + kw.len()).is_none_or(|&n| !is_word(n))
                {
                    out.push(i);
                }
            }
        }
        i += 1;
    }
    out
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Splits at top-level commas.
fn split_commas(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut cur = String::new();
    for c in s.chars() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            cur.push(c);
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// Lower case without whitespace, for comparing expressions as written.
fn norm(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

impl QueryShape {
    /// Analyses `sql` (one SELECT without subqueries in its top-level clauses).
    pub fn of(sql: &str) -> QueryShape {
        let sql = sql.trim().trim_end_matches(';').trim_end();
        let first = |kw: &str| find_top(sql, kw).first().copied();
        let limit_at = [first("LIMIT"), first("OFFSET")]
            .into_iter()
            .flatten()
            .min();
        let body_end = limit_at.unwrap_or(sql.len());
        let order_at = find_top(sql, "ORDER")
            .into_iter()
            .find(|&i| find_top(&sql[i + 5..], "BY").first().copied() == Some(1));
        let select_items = match (first("SELECT"), first("FROM")) {
            (Some(s), Some(f)) if f > s => split_commas(&sql[s + 6..f])
                .into_iter()
                .map(|item| {
                    let at = find_top(&item, "AS").last().copied();
                    match at {
                        Some(a) => (
                            item[..a].trim().to_string(),
                            Some(item[a + 2..].trim().trim_matches('"').to_string()),
                        ),
                        None => (item, None),
                    }
                })
                .collect(),
            _ => Vec::new(),
        };
        let order_items = match order_at {
            Some(o) if o < body_end => split_commas(&sql[o + 8..body_end])
                .into_iter()
                .map(|item| {
                    let mut t = item.trim().to_string();
                    for suffix in [" NULLS FIRST", " NULLS LAST", " DESC", " ASC"] {
                        if t.len() >= suffix.len()
                            && t[t.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
                        {
                            t.truncate(t.len() - suffix.len());
                            t = t.trim_end().to_string();
                        }
                    }
                    t
                })
                .collect(),
            _ => Vec::new(),
        };
        QueryShape {
            has_order_by: order_at.is_some(),
            has_limit: limit_at.is_some(),
            without_limit: sql[..body_end].trim_end().to_string(),
            select_items,
            order_items,
        }
    }

    /// Indexes of the result columns named by the ORDER BY clause (by alias, by the
    /// expression as written, or by the result column's name).
    pub fn key_columns(&self, column_names: &[String]) -> Vec<usize> {
        let star = self.select_items.iter().any(|(e, _)| e == "*");
        let mut keys = Vec::new();
        for item in &self.order_items {
            let n = norm(item);
            let found = if star {
                None
            } else {
                self.select_items
                    .iter()
                    .position(|(e, a)| norm(e) == n || a.as_deref().is_some_and(|a| norm(a) == n))
            }
            .or_else(|| column_names.iter().position(|c| norm(c) == n));
            if let Some(j) = found.filter(|&j| j < column_names.len()) {
                if !keys.contains(&j) {
                    keys.push(j);
                }
            }
        }
        keys
    }
}

/// Whether two printed cells match: equal, or both numbers within a relative 1e-9.
pub fn cell_eq(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => {
            if x.is_nan() && y.is_nan() {
                return true;
            }
            let scale = x.abs().max(y.abs());
            (x - y).abs() <= 1e-9 * scale
        }
        _ => false,
    }
}

fn row_eq(a: &[String], b: &[String]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| cell_eq(x, y))
}

/// Whether `a` and `b` hold the same rows, in order when `ordered`.
pub fn same_rows(a: &Rows, b: &Rows, ordered: bool) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if ordered {
        return a.iter().zip(b).all(|(x, y)| row_eq(x, y));
    }
    let mut sa: Vec<&Vec<String>> = a.iter().collect();
    let mut sb: Vec<&Vec<String>> = b.iter().collect();
    sa.sort();
    sb.sort();
    if sa.iter().zip(&sb).all(|(x, y)| row_eq(x, y)) {
        return true;
    }
    // Float cells that differ in their last digits can sort differently: match greedily.
    if a.len() > 20_000 {
        return false;
    }
    let mut used = vec![false; sb.len()];
    sa.iter().all(|x| {
        let hit = sb
            .iter()
            .enumerate()
            .position(|(j, y)| !used[j] && row_eq(x, y));
        if let Some(j) = hit {
            used[j] = true;
        }
        hit.is_some()
    })
}

/// The outcome of checking one query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Same answer.
    Ok,
    /// A different but equally valid answer (ties or no ORDER BY), checked against the
    /// full answer.
    OkTies,
    /// A wrong answer, with why.
    Mismatch(String),
    /// strata returned an error instead of an answer.
    Refused(String),
}

/// The exact check: `Ok`, or `None` when it fails (then try [`tie_aware`] for LIMIT queries
/// or report a mismatch).
pub fn exact(shape: &QueryShape, strata: &Rows, duck: &Rows) -> bool {
    same_rows(strata, duck, shape.has_order_by)
}

/// Explains an exact mismatch: the first differing row.
pub fn describe(strata: &Rows, duck: &Rows) -> String {
    if strata.len() != duck.len() {
        return format!("{} rows, DuckDB has {}", strata.len(), duck.len());
    }
    for (i, (s, d)) in strata.iter().zip(duck).enumerate() {
        if !row_eq(s, d) {
            return format!(
                "row {}: strata [{}] vs DuckDB [{}]",
                i + 1,
                s.join(", "),
                d.join(", ")
            );
        }
    }
    "rows differ as multisets".into()
}

/// The tie-aware check of a LIMIT query (see the module documentation).
pub fn tie_aware(
    shape: &QueryShape,
    column_names: &[String],
    strata: &Rows,
    duck: &Rows,
    duck_full: &Rows,
) -> Verdict {
    if strata.len() != duck.len() {
        return Verdict::Mismatch(format!("{} rows, DuckDB has {}", strata.len(), duck.len()));
    }
    let mut counts: HashMap<&[String], usize> = HashMap::new();
    for r in duck_full {
        *counts.entry(r.as_slice()).or_default() += 1;
    }
    for (i, r) in strata.iter().enumerate() {
        if let Some(c) = counts.get_mut(r.as_slice()).filter(|c| **c > 0) {
            *c -= 1;
            continue;
        }
        let near = duck_full.len() <= 2_000_000 && duck_full.iter().any(|f| row_eq(r, f));
        if !near {
            return Verdict::Mismatch(format!(
                "row {} [{}] is not in DuckDB's answer without LIMIT",
                i + 1,
                r.join(", ")
            ));
        }
    }
    let keys = shape.key_columns(column_names);
    if shape.has_order_by {
        for (i, (s, d)) in strata.iter().zip(duck).enumerate() {
            for &k in &keys {
                let (a, b) = (
                    s.get(k).map_or("", String::as_str),
                    d.get(k).map_or("", String::as_str),
                );
                if !cell_eq(a, b) {
                    return Verdict::Mismatch(format!(
                        "row {}: ORDER BY key {} is {a:?}, DuckDB has {b:?}",
                        i + 1,
                        column_names.get(k).map_or("?", String::as_str)
                    ));
                }
            }
        }
    }
    Verdict::OkTies
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(v: &[&[&str]]) -> Rows {
        v.iter()
            .map(|r| r.iter().map(|s| s.to_string()).collect())
            .collect()
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn shapes_of_clickbench_queries() {
        let q = QueryShape::of(
            "SELECT RegionID, SUM(AdvEngineID), COUNT(*) AS c, AVG(ResolutionWidth), \
             COUNT(DISTINCT UserID) FROM hits GROUP BY RegionID ORDER BY c DESC LIMIT 10;",
        );
        assert!(q.has_order_by && q.has_limit);
        assert!(q.without_limit.ends_with("ORDER BY c DESC"));
        let cols = names(&["RegionID", "sum(AdvEngineID)", "c", "avg", "count"]);
        assert_eq!(q.key_columns(&cols), vec![2]);

        let q = QueryShape::of(
            "SELECT UserID, SearchPhrase, COUNT(*) FROM hits GROUP BY UserID, SearchPhrase LIMIT 10;",
        );
        assert!(!q.has_order_by && q.has_limit);

        let q = QueryShape::of(
            "SELECT DATE_TRUNC('minute', EventTime) AS M, COUNT(*) AS PageViews FROM hits \
             WHERE CounterID = 62 GROUP BY DATE_TRUNC('minute', EventTime) \
             ORDER BY DATE_TRUNC('minute', EventTime) LIMIT 10 OFFSET 1000;",
        );
        assert_eq!(q.key_columns(&names(&["M", "PageViews"])), vec![0]);
        assert!(q
            .without_limit
            .ends_with("ORDER BY DATE_TRUNC('minute', EventTime)"));

        let q = QueryShape::of(
            "SELECT AdvEngineID, COUNT(*) FROM hits WHERE AdvEngineID <> 0 \
             GROUP BY AdvEngineID ORDER BY COUNT(*) DESC;",
        );
        assert!(!q.has_limit);
        assert_eq!(
            q.key_columns(&names(&["AdvEngineID", "count_star()"])),
            vec![1]
        );

        let q = QueryShape::of(
            "SELECT * FROM hits WHERE URL LIKE '%google%' ORDER BY EventTime LIMIT 10;",
        );
        assert_eq!(
            q.key_columns(&names(&["WatchID", "Title", "EventTime"])),
            vec![2]
        );
        let q = QueryShape::of(
            "SELECT SearchPhrase FROM hits WHERE SearchPhrase <> '' ORDER BY EventTime LIMIT 10;",
        );
        assert!(q.key_columns(&names(&["SearchPhrase"])).is_empty());
    }

    #[test]
    fn cells_and_rows() {
        assert!(cell_eq("1.0000000000000002", "1"));
        assert!(cell_eq("1953.5123456789", "1953.5123456789001"));
        assert!(!cell_eq("1953.51", "1953.52"));
        assert!(!cell_eq("a", "b"));
        let a = rows(&[&["x", "1"], &["y", "2"]]);
        let b = rows(&[&["y", "2"], &["x", "1"]]);
        assert!(same_rows(&a, &b, false));
        assert!(!same_rows(&a, &b, true));
    }

    #[test]
    fn ties_are_accepted_and_wrong_rows_are_not() {
        let q = QueryShape::of("SELECT k, COUNT(*) AS c FROM t GROUP BY k ORDER BY c DESC LIMIT 2");
        let cols = names(&["k", "c"]);
        let full = rows(&[&["a", "5"], &["b", "3"], &["c", "3"], &["d", "1"]]);
        let duck = rows(&[&["a", "5"], &["b", "3"]]);
        let strata = rows(&[&["a", "5"], &["c", "3"]]);
        assert!(!exact(&q, &strata, &duck));
        assert_eq!(tie_aware(&q, &cols, &strata, &duck, &full), Verdict::OkTies);
        let wrong = rows(&[&["a", "5"], &["d", "1"]]);
        assert!(matches!(
            tie_aware(&q, &cols, &wrong, &duck, &full),
            Verdict::Mismatch(_)
        ));
        let invented = rows(&[&["a", "5"], &["z", "3"]]);
        assert!(matches!(
            tie_aware(&q, &cols, &invented, &duck, &full),
            Verdict::Mismatch(_)
        ));
        let short = rows(&[&["a", "5"]]);
        assert!(matches!(
            tie_aware(&q, &cols, &short, &duck, &full),
            Verdict::Mismatch(_)
        ));
    }
}

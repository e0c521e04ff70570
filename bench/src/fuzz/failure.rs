//! What happens to a failure: minimised (within the run's budget), grouped with failures
//! of the same shape into one bug, and written as a regression case with a readable
//! reproduction (table, SQL, strata's answer, DuckDB's answer).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Result;

use super::ast::Query;
use super::case::{self, Case, Record};
use super::cell::Cell;
use super::compare::Shape;
use super::duck::{Duck, DuckAnswer};
use super::oracle::OracleOutcome;
use super::shrink::{minimise, Budget, Failing, Subject};
use super::strata_side::{StrataAnswer, StrataDb};
use super::table::TableData;
use super::{differential, materialise, Bug, FailKind, Found, Outcome, Shared};

/// Signatures of the known (`expect-fail`) cases at `path`.
pub(super) fn known_signatures(path: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for d in case::case_dirs(path)? {
        let c = case::read_case(&d)?;
        if let (Some(_), Some(sig)) = (&c.expect_fail, c.signature) {
            out.push(sig);
        }
    }
    Ok(out)
}

/// What makes two failures one bug: for errors and panics the error (message shape,
/// panic site), for wrong answers of other result types the types, for other wrong
/// answers and oracle failures the shape of the minimised query.
fn bug_signature(kind: &FailKind, subject: &Subject, table: &TableData) -> String {
    match kind {
        FailKind::StrataError(k, m) => format!("strata {k} error|{m}"),
        FailKind::Panic(m) => format!("panic|{}", panic_site(m)),
        FailKind::WrongAnswer(t) if !t.is_empty() => format!("wrong answer|{t}"),
        other => format!(
            "{}|{}",
            other.label(),
            signature(&subject_sql(subject), table)
        ),
    }
}

/// Whether the signature is fixed before minimisation (errors, panics).
fn signature_known_early(kind: &FailKind) -> bool {
    match kind {
        FailKind::StrataError(..) | FailKind::Panic(_) => true,
        FailKind::WrongAnswer(t) => !t.is_empty(),
        FailKind::Tlp | FailKind::NoRec => false,
    }
}

fn subject_sql(s: &Subject) -> String {
    match s {
        Subject::Query(q) => q.sql(),
        Subject::Oracle(o) => o
            .queries()
            .iter()
            .map(Query::sql)
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// The shape of a failing query: literals as `?`, columns as their types, keywords in
/// upper case.
pub(super) fn signature(sql: &str, table: &TableData) -> String {
    let types: HashMap<&str, String> = table
        .columns
        .iter()
        .map(|c| (c.name.as_str(), c.ty.sql_name()))
        .collect();
    let mut out = String::new();
    let chars: Vec<char> = sql.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' {
            i += 1;
            while i < chars.len() {
                if chars[i] == '\'' {
                    if chars.get(i + 1) == Some(&'\'') {
                        i += 2;
                        continue;
                    }
                    break;
                }
                i += 1;
            }
            i += 1;
            out.push('?');
        } else if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric() || matches!(chars[i], '_' | '.'))
            {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let bare = word.rsplit('.').next().unwrap_or(&word);
            if let Some(t) = types.get(bare) {
                out.push_str(t);
            } else if word.starts_with(|ch: char| ch.is_ascii_digit() || ch == '.') {
                out.push('?');
            } else {
                out.push_str(&word.to_ascii_uppercase());
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The location part of a panic message (`panicked at file:line:col`).
fn panic_site(m: &str) -> &str {
    m.split(": ").next().unwrap_or(m)
}

fn same_kind(got: &FailKind, want: &FailKind) -> bool {
    match (got, want) {
        (FailKind::Panic(a), FailKind::Panic(b)) => panic_site(a) == panic_site(b),
        (a, b) => a == b,
    }
}

/// Whether `f` still fails as `kind` (strata on `threads` threads).
fn still_fails(
    f: &Failing,
    kind: &FailKind,
    dir: &Path,
    duck: Option<&mut Duck>,
    threads: usize,
    timeout: Duration,
) -> Result<bool> {
    match &f.subject {
        Subject::Query(q) => {
            let Some(d) = duck else { return Ok(false) };
            materialise(&f.table, dir, Some(&mut *d))?;
            let db = StrataDb::open(dir, threads, timeout)?;
            Ok(match differential(&db, d, q, &f.table.columns)? {
                Outcome::Fail(k, _) => same_kind(&k, kind),
                _ => false,
            })
        }
        Subject::Oracle(o) => {
            materialise(&f.table, dir, None)?;
            let db = StrataDb::open(dir, threads, timeout)?;
            Ok(match o.check(&db) {
                OracleOutcome::Fail(_) => matches!(kind, FailKind::Tlp | FailKind::NoRec),
                OracleOutcome::Panic(m) => same_kind(&FailKind::Panic(m), kind),
                _ => false,
            })
        }
    }
}

/// A cell's text, long strings shortened.
fn short_text(c: &Cell) -> String {
    let t = c.text();
    if t.chars().count() <= 48 {
        return t;
    }
    let head: String = t.chars().take(40).collect();
    format!("{head}...({} chars)", t.chars().count())
}

fn rows_preview(rows: &[Vec<Cell>], max: usize) -> String {
    let mut s = String::new();
    for r in rows.iter().take(max) {
        let cells: Vec<String> = r.iter().map(short_text).collect();
        let _ = write!(s, "\n    [{}]", cells.join(", "));
    }
    if rows.len() > max {
        let _ = write!(s, "\n    ... {} more", rows.len() - max);
    }
    s
}

fn table_preview(t: &TableData) -> String {
    let mut s = String::new();
    let cols: Vec<String> = t
        .columns
        .iter()
        .map(|c| {
            format!(
                "{} {}{}",
                c.name,
                c.ty.sql_name(),
                if c.raw_bytes { " (not UTF-8)" } else { "" }
            )
        })
        .collect();
    let _ = write!(
        s,
        "table t ({}): {} rows, block_rows {}{}",
        cols.join(", "),
        t.rows(),
        t.block_rows,
        if t.dict_seed != 0 {
            ", dictionary-coded blocks"
        } else {
            ""
        }
    );
    let rows: Vec<Vec<Cell>> = (0..t.rows())
        .map(|r| t.columns.iter().map(|c| c.values[r].clone()).collect())
        .collect();
    s.push_str(&rows_preview(&rows, 12));
    s
}

fn answer_text(a: &StrataAnswer) -> String {
    match a {
        StrataAnswer::Rows { rows, types, .. } => {
            let t: Vec<String> = types.iter().map(|t| t.to_string()).collect();
            format!(
                "{} rows ({}){}",
                rows.len(),
                t.join(", "),
                rows_preview(rows, 8)
            )
        }
        other => other.describe(),
    }
}

fn duck_text(a: &DuckAnswer) -> String {
    match a {
        DuckAnswer::Rows { rows, types, .. } => {
            format!(
                "{} rows ({}){}",
                rows.len(),
                types.join(", "),
                rows_preview(rows, 8)
            )
        }
        DuckAnswer::Error { class, message } => format!("{class}: {message}"),
        DuckAnswer::Timeout => "timed out".into(),
    }
}

/// DuckDB's answer to `q` as a regression record (`None` when DuckDB has none).
fn duck_record(duck: &mut Duck, q: &Query, star: &[String]) -> Result<Option<Record>> {
    let sql = q.sql();
    let DuckAnswer::Rows { types, rows, .. } = duck.query(&sql)? else {
        return Ok(None);
    };
    let shape = Shape::of(q, star);
    let full = if shape.limited() {
        match duck.query(&q.sql_without_limit())? {
            DuckAnswer::Rows { rows, .. } => Some(rows),
            _ => return Ok(None),
        }
    } else {
        None
    };
    Ok(Some(Record::Query {
        sql,
        types,
        shape,
        expected: rows,
        full,
    }))
}

/// Minimises failure `f` of case `k`, adds it to the run's bugs and writes a regression
/// case for a new one.
pub(super) fn handle(
    shared: &Shared,
    k: u64,
    threads: usize,
    table: TableData,
    f: Found,
    mut duck: Option<&mut Duck>,
    dir: &Path,
) -> Result<()> {
    let timeout = Duration::from_secs(shared.args.query_timeout);
    let raw_sig = bug_signature(&f.kind, &f.subject, &table);
    // Failures of a bug seen already are counted, not minimised again.
    if let Ok(mut bugs) = shared.bugs.lock() {
        let early = signature_known_early(&f.kind);
        let seen = bugs
            .iter_mut()
            .find(|(sig, b)| (early && **sig == raw_sig) || b.raw_signatures.contains(&raw_sig));
        if let Some((_, b)) = seen {
            b.count += 1;
            return Ok(());
        }
    }
    let elapsed = shared.start.elapsed();
    let spent = shared.minimise_time.lock().map(|t| *t).unwrap_or_default();
    let may_minimise = !shared.args.no_minimise
        && (shared.deadline.is_none() || spent < elapsed.mul_f64(0.4) + Duration::from_secs(120));
    let start = Failing {
        table,
        subject: f.subject,
    };
    let mdir = dir.join("min");
    let began = Instant::now();
    let (small, attempts) = if may_minimise {
        let seconds = match shared.args.minimise_seconds {
            0 => 365 * 86_400,
            s => s,
        };
        let budget = Budget {
            attempts: shared.args.minimise_attempts,
            until: Instant::now() + Duration::from_secs(seconds),
        };
        let kind = f.kind.clone();
        let mut test = |c: &Failing| {
            still_fails(c, &kind, &mdir, duck.as_deref_mut(), threads, timeout).unwrap_or(false)
        };
        minimise(start.clone(), budget, &mut test)
    } else {
        (start.clone(), 0)
    };
    if let Ok(mut t) = shared.minimise_time.lock() {
        *t += began.elapsed();
    }
    // The reproduction: both engines' answers on the smallest case.
    let star: Vec<String> = small.table.columns.iter().map(|c| c.name.clone()).collect();
    materialise(&small.table, &mdir, duck.as_deref_mut())?;
    let db = StrataDb::open(&mdir, threads, timeout)?;
    let mut repro = table_preview(&small.table);
    let mut records = Vec::new();
    let mut notes = vec![format!(
        "Found by strata-bench fuzz-sql --seed {} --case {k} (strata on {threads} threads); {}.",
        shared.args.seed,
        f.kind.label()
    )];
    match &small.subject {
        Subject::Query(q) => {
            let sql = q.sql();
            let s = db.query(&sql);
            let _ = write!(repro, "\nsql: {sql}\nstrata: {}", answer_text(&s));
            notes.push(format!("strata: {}", answer_text(&s)));
            if let Some(d) = duck.as_deref_mut() {
                let answer = d.query(&sql)?;
                let _ = write!(repro, "\nDuckDB: {}", duck_text(&answer));
                notes.push(format!("DuckDB: {}", duck_text(&answer)));
                match duck_record(d, q, &star)? {
                    Some(r) => records.push(r),
                    None => records.push(Record::NoPanic { sql }),
                }
            }
        }
        Subject::Oracle(o) => {
            let outcome = o.check(&db);
            let _ = write!(repro, "\n{} check: {outcome:?}", o.family());
            notes.push(format!("{} check: {outcome:?}", o.family()));
            for q in o.queries() {
                let sql = q.sql();
                let _ = write!(
                    repro,
                    "\nsql: {sql}\n  strata: {}",
                    answer_text(&db.query(&sql))
                );
            }
            records.push(Record::Oracle(Box::new(o.clone())));
            let readable = !small.table.columns.iter().any(|c| c.raw_bytes);
            if let (Some(d), true) = (duck, readable) {
                for q in o.queries() {
                    if let Some(r) = duck_record(d, &q, &star)? {
                        records.push(r);
                    }
                }
            }
        }
    }
    let detail: String = f.detail.chars().take(300).collect();
    let _ = write!(
        repro,
        "\ndetail (before minimisation): {detail}\nminimised in {attempts} steps from {} rows",
        start.table.rows()
    );
    let sig = bug_signature(&f.kind, &small.subject, &small.table);
    let known = shared.known.contains(&sig);
    let mut bugs = match shared.bugs.lock() {
        Ok(b) => b,
        Err(_) => return Ok(()),
    };
    if let Some(b) = bugs.get_mut(&sig) {
        b.count += 1;
        b.raw_signatures.push(raw_sig);
        return Ok(());
    }
    let n = bugs.len() + 1;
    let slug: String = f
        .kind
        .label()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let case_dir = shared.args.out.join("cases").join(format!(
        "{:03}-{}-s{}-c{k}",
        n,
        slug.trim_matches('-'),
        shared.args.seed
    ));
    let c = Case {
        table: small.table.clone(),
        records,
        expect_fail: Some(f.kind.label()),
        signature: Some(sig.clone()),
        notes,
    };
    let written = case::write_case(&case_dir, &c).is_ok();
    shared.note(format!(
        "[fuzz-sql] {} in case {k}{}: {}",
        f.kind.label(),
        if known { " (known)" } else { "" },
        subject_sql(&small.subject)
    ));
    bugs.insert(
        sig,
        Bug {
            kind: f.kind,
            count: 1,
            known,
            case_dir: written.then_some(case_dir),
            repro,
            raw_signatures: vec![raw_sig],
        },
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::cell::ColType;
    use crate::fuzz::table::Column;

    #[test]
    fn signatures_abstract_literals_and_columns() {
        let t = TableData {
            columns: vec![Column {
                name: "c0".into(),
                ty: ColType::Decimal {
                    precision: 15,
                    scale: 2,
                },
                nullable: true,
                raw_bytes: false,
                values: Vec::new(),
            }],
            block_rows: 1,
            dict_seed: 0,
        };
        assert_eq!(
            signature(
                "SELECT count(*) FROM t WHERE (c0 BETWEEN (0.06 - 0.01) AND 'it''s')",
                &t
            ),
            "SELECT COUNT(*) FROM T WHERE (DECIMAL(15,2) BETWEEN (? - ?) AND ?)"
        );
    }
}

//! WHERE clauses as predicates over a block's sorted values: comparisons of
//! a column with constants become value ranges found by binary search, whose
//! row lists give the selected rows; other predicates of one column are
//! evaluated once per distinct value; the rest row by row.

use rayon::prelude::*;
use strata_format::Table;

use crate::error::Result;
use crate::expr::{eval, CmpOp, Columns, ExprKind, OneColumn, TExpr};
use crate::scan::block::{Bitmap, BlockCtx, Sel};
use crate::value::{storage_key, Data, LType, Value, Vector};

/// A predicate tree with NOT pushed down to the leaves.
#[derive(Debug, Clone, PartialEq)]
pub enum Pred {
    /// Every row.
    True,
    /// No row.
    False,
    /// All children hold.
    And(Vec<Pred>),
    /// Some child holds.
    Or(Vec<Pred>),
    /// A fixed-width column's storage key in `lo..=hi`.
    KeyRange {
        /// Column.
        col: usize,
        /// Smallest key.
        lo: u64,
        /// Largest key.
        hi: u64,
    },
    /// A fixed-width column's key among (or, negated, not among) `keys`;
    /// NULL rows never match.
    KeySet {
        /// Column.
        col: usize,
        /// Sorted keys.
        keys: Vec<u64>,
        /// NOT IN / `<>`.
        negated: bool,
    },
    /// A string column's hash among (or, negated, not among) `hashes`.
    StrSet {
        /// Column.
        col: usize,
        /// Sorted hashes.
        hashes: Vec<u128>,
        /// NOT IN / `<>`.
        negated: bool,
    },
    /// `col IS [NOT] NULL`.
    IsNull {
        /// Column.
        col: usize,
        /// IS NOT NULL.
        negated: bool,
    },
    /// `col [NOT] [I]LIKE pattern`: string blocks chosen by the trigram
    /// index, each candidate string tested once; NULL rows never match.
    Like {
        /// Column.
        col: usize,
        /// The pattern.
        pattern: Box<crate::expr::like::LikePattern>,
        /// NOT LIKE.
        negated: bool,
    },
    /// An expression of one column, evaluated per distinct value.
    Values {
        /// Column.
        col: usize,
        /// The predicate.
        expr: TExpr,
    },
    /// An expression of several columns, evaluated per row.
    Rows(TExpr),
}

impl std::fmt::Display for Pred {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Pred::True => f.write_str("TRUE"),
            Pred::False => f.write_str("FALSE"),
            Pred::And(v) | Pred::Or(v) => {
                let sep = if matches!(self, Pred::And(_)) {
                    " AND "
                } else {
                    " OR "
                };
                f.write_str("(")?;
                for (i, p) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(sep)?;
                    }
                    write!(f, "{p}")?;
                }
                f.write_str(")")
            }
            Pred::KeyRange { col, lo, hi } => write!(f, "range(#{col}, keys {lo}..={hi})"),
            Pred::KeySet { col, keys, negated } => {
                write!(
                    f,
                    "{}keyset(#{col}, {} keys)",
                    if *negated { "not " } else { "" },
                    keys.len()
                )
            }
            Pred::StrSet {
                col,
                hashes,
                negated,
            } => write!(
                f,
                "{}hashset(#{col}, {} strings)",
                if *negated { "not " } else { "" },
                hashes.len()
            ),
            Pred::IsNull { col, negated } => {
                write!(f, "#{col} IS {}NULL", if *negated { "NOT " } else { "" })
            }
            Pred::Like {
                col,
                pattern,
                negated,
            } => write!(
                f,
                "{}like(#{col}, '{}', {} trigrams)",
                if *negated { "not " } else { "" },
                String::from_utf8_lossy(&pattern.text),
                pattern.trigrams().len()
            ),
            Pred::Values { col, expr } => write!(f, "per-value(#{col}: {expr})"),
            Pred::Rows(e) => write!(f, "per-row({e})"),
        }
    }
}

impl Pred {
    /// Rows whose column `col` holds one of `keys`: string hashes when
    /// `is_str`, else fixed-width storage keys (widened to `u128`); sorted.
    pub fn value_set(col: usize, is_str: bool, keys: Vec<u128>) -> Pred {
        if is_str {
            Pred::StrSet {
                col,
                hashes: keys,
                negated: false,
            }
        } else {
            Pred::KeySet {
                col,
                keys: keys.into_iter().map(|k| k as u64).collect(),
                negated: false,
            }
        }
    }
}

/// Compiles a boolean expression (over table columns) into a predicate.
pub fn compile(e: &TExpr) -> Pred {
    simplify(compile_neg(e, false))
}

fn not_expr(e: &TExpr) -> TExpr {
    TExpr {
        kind: ExprKind::Not(Box::new(e.clone())),
        ty: LType::Bool,
    }
}

fn compile_neg(e: &TExpr, neg: bool) -> Pred {
    match &e.kind {
        ExprKind::Lit(v) => match v {
            Value::Bool(b) if *b != neg => Pred::True,
            _ => Pred::False, // FALSE, or NULL (never TRUE, negated or not)
        },
        ExprKind::Not(x) => compile_neg(x, !neg),
        ExprKind::And(xs) | ExprKind::Or(xs) => {
            let kids = xs.iter().map(|x| compile_neg(x, neg)).collect();
            if matches!(e.kind, ExprKind::And(_)) != neg {
                Pred::And(kids)
            } else {
                Pred::Or(kids)
            }
        }
        ExprKind::IsNull(x, n) => match x.as_col() {
            Some(col) => Pred::IsNull {
                col,
                negated: *n != neg,
            },
            None => leaf(e, neg),
        },
        ExprKind::Cmp(op, a, b) => {
            let op = if neg { op.negate() } else { *op };
            match (&a.kind, &b.kind) {
                (ExprKind::Col(c), ExprKind::Lit(v)) => {
                    cmp_leaf(*c, a.ty, op, v).unwrap_or_else(|| leaf(e, neg))
                }
                (ExprKind::Lit(v), ExprKind::Col(c)) => {
                    cmp_leaf(*c, b.ty, op.flip(), v).unwrap_or_else(|| leaf(e, neg))
                }
                _ => leaf(e, neg),
            }
        }
        ExprKind::InList(x, vals, n) => {
            let negated = *n != neg;
            match x.as_col() {
                Some(col) if !vals.iter().any(|v| matches!(v, Value::Null)) => {
                    if x.ty == LType::Varchar {
                        let mut hashes: Vec<u128> = vals
                            .iter()
                            .filter_map(|v| match v {
                                Value::Str(s) => Some(strata_format::string_hash(s)),
                                _ => None,
                            })
                            .collect();
                        hashes.sort_unstable();
                        hashes.dedup();
                        Pred::StrSet {
                            col,
                            hashes,
                            negated,
                        }
                    } else {
                        let mut keys: Vec<u64> =
                            vals.iter().filter_map(|v| storage_key(x.ty, v)).collect();
                        keys.sort_unstable();
                        keys.dedup();
                        Pred::KeySet { col, keys, negated }
                    }
                }
                _ => leaf(e, neg),
            }
        }
        ExprKind::Like(x, pattern, n) => match x.as_col() {
            Some(col) => Pred::Like {
                col,
                pattern: pattern.clone(),
                negated: *n != neg,
            },
            None => leaf(e, neg),
        },
        ExprKind::Col(c) if e.ty == LType::Bool => Pred::KeyRange {
            col: *c,
            lo: u64::from(!neg),
            hi: u64::from(!neg),
        },
        _ => leaf(e, neg),
    }
}

fn leaf(e: &TExpr, neg: bool) -> Pred {
    let expr = if neg { not_expr(e) } else { e.clone() };
    let cols = e.columns();
    match cols.as_slice() {
        [] => Pred::Rows(expr),
        [c] => Pred::Values { col: *c, expr },
        _ => Pred::Rows(expr),
    }
}

fn cmp_leaf(col: usize, ty: LType, op: CmpOp, v: &Value) -> Option<Pred> {
    if matches!(v, Value::Null) {
        return Some(Pred::False);
    }
    if ty == LType::Varchar {
        let Value::Str(s) = v else { return None };
        return match op {
            CmpOp::Eq | CmpOp::Ne => Some(Pred::StrSet {
                col,
                hashes: vec![strata_format::string_hash(s)],
                negated: op == CmpOp::Ne,
            }),
            _ => None,
        };
    }
    let k = storage_key(ty, v)?;
    if matches!(v, Value::Float(f) if f.is_nan()) {
        return None;
    }
    Some(match op {
        CmpOp::Eq => Pred::KeyRange { col, lo: k, hi: k },
        CmpOp::Ne => Pred::KeySet {
            col,
            keys: vec![k],
            negated: true,
        },
        CmpOp::Lt if k == 0 => Pred::False,
        CmpOp::Lt => Pred::KeyRange {
            col,
            lo: 0,
            hi: k - 1,
        },
        CmpOp::Le => Pred::KeyRange { col, lo: 0, hi: k },
        CmpOp::Gt if k == u64::MAX => Pred::False,
        CmpOp::Gt => Pred::KeyRange {
            col,
            lo: k + 1,
            hi: u64::MAX,
        },
        CmpOp::Ge => Pred::KeyRange {
            col,
            lo: k,
            hi: u64::MAX,
        },
    })
}

fn simplify(p: Pred) -> Pred {
    match p {
        Pred::And(kids) => {
            let mut out = Vec::new();
            for k in kids.into_iter().map(simplify) {
                match k {
                    Pred::True => {}
                    Pred::False => return Pred::False,
                    Pred::And(inner) => out.extend(inner),
                    k => out.push(k),
                }
            }
            match out.len() {
                0 => Pred::True,
                1 => out.pop().unwrap_or(Pred::True),
                _ => Pred::And(out),
            }
        }
        Pred::Or(kids) => {
            let mut out = Vec::new();
            for k in kids.into_iter().map(simplify) {
                match k {
                    Pred::False => {}
                    Pred::True => return Pred::True,
                    Pred::Or(inner) => out.extend(inner),
                    k => out.push(k),
                }
            }
            match out.len() {
                0 => Pred::False,
                1 => out.pop().unwrap_or(Pred::False),
                _ => Pred::Or(out),
            }
        }
        p => p,
    }
}

/// Whether a block may hold matching rows, judged from the manifest's
/// statistics alone (no I/O).
pub fn may_match(p: &Pred, table: &Table, block: usize) -> bool {
    match p {
        Pred::True => true,
        Pred::False => false,
        Pred::And(v) => v.iter().all(|k| may_match(k, table, block)),
        Pred::Or(v) => v.iter().any(|k| may_match(k, table, block)),
        Pred::KeyRange { col, lo, hi } => {
            let s = table.stats(block, *col);
            s.distinct > 0 && *lo <= s.max && *hi >= s.min
        }
        Pred::KeySet { col, keys, negated } => {
            let s = table.stats(block, *col);
            if s.distinct == 0 {
                return false;
            }
            if *negated {
                !(s.min == s.max && keys.binary_search(&s.min).is_ok())
            } else {
                keys.iter().any(|k| *k >= s.min && *k <= s.max)
            }
        }
        Pred::StrSet { col, .. } | Pred::Like { col, .. } => table.stats(block, *col).distinct > 0,
        Pred::IsNull { col, negated } => {
            let s = table.stats(block, *col);
            if *negated {
                s.distinct > 0
            } else {
                s.null_count > 0
            }
        }
        Pred::Values { .. } | Pred::Rows(_) => true,
    }
}

/// The one column every leaf of `p` tests value by value (`KeyRange`,
/// `KeySet`, `StrSet`, `IsNull`, `Like`, `Values`), or `None` when `p`
/// tests rows, several columns, or none.
pub fn single_column(p: &Pred) -> Option<usize> {
    let mut col = None;
    if value_leaves_of(p, &mut col) {
        col
    } else {
        None
    }
}

/// Whether every leaf of `p` tests one column value by value, the same as
/// `col` once `col` is set (it is set by the first such leaf).
fn value_leaves_of(p: &Pred, col: &mut Option<usize>) -> bool {
    let c = match p {
        Pred::True | Pred::False => return true,
        Pred::And(kids) | Pred::Or(kids) => return kids.iter().all(|k| value_leaves_of(k, col)),
        Pred::Rows(_) => return false,
        Pred::KeyRange { col, .. }
        | Pred::KeySet { col, .. }
        | Pred::StrSet { col, .. }
        | Pred::IsNull { col, .. }
        | Pred::Like { col, .. }
        | Pred::Values { col, .. } => *col,
    };
    *col.get_or_insert(c) == c
}

/// The distinct values of one column that a predicate accepts: the
/// selection of [`select`] known per value, without touching any row.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueMask {
    /// Per value index, whether its rows are selected.
    pub values: Vec<bool>,
    /// Whether the NULL rows are selected.
    pub nulls: bool,
}

/// The values of column `col` whose rows `p` selects, when every leaf of
/// `p` tests `col` value by value (see [`single_column`]); `None` otherwise.
/// Selects exactly the rows [`select`] does.
pub fn value_mask(p: &Pred, ctx: &BlockCtx, col: usize) -> Result<Option<ValueMask>> {
    if !value_leaves_of(p, &mut Some(col)) {
        return Ok(None);
    }
    let n = ctx.chunk(col)?.distinct();
    let constant = |t: bool| ValueMask {
        values: vec![t; n],
        nulls: t,
    };
    Ok(Some(match p {
        Pred::True => constant(true),
        Pred::False => constant(false),
        Pred::And(kids) | Pred::Or(kids) => {
            let and = matches!(p, Pred::And(_));
            let mut acc = constant(and);
            for k in kids {
                let m = match (value_mask(k, ctx, col), k) {
                    (Ok(m), _) => m,
                    // An operand of AND failing at values an earlier one
                    // rejected: DuckDB evaluates AND's operands in order
                    // on the rows still passing, so only those count.
                    (Err(e), Pred::Values { expr, .. }) if and => {
                        Some(values_truth_where(ctx, col, expr, &acc).map_err(|_| e)?)
                    }
                    (Err(e), _) => return Err(e),
                };
                let Some(m) = m else {
                    return Ok(None);
                };
                for (a, b) in acc.values.iter_mut().zip(&m.values) {
                    *a = if and { *a && *b } else { *a || *b };
                }
                acc.nulls = if and {
                    acc.nulls && m.nulls
                } else {
                    acc.nulls || m.nulls
                };
            }
            acc
        }
        Pred::KeyRange { .. } | Pred::KeySet { .. } | Pred::StrSet { .. } => {
            let Some((_, a)) = accepted(p, ctx)? else {
                return Ok(None);
            };
            let values = match a {
                Accept::Range(start, end) => (0..n).map(|i| (start..end).contains(&i)).collect(),
                Accept::Set { idx, negated } => {
                    let mut v = vec![negated; n];
                    for i in idx {
                        if let Some(x) = v.get_mut(i) {
                            *x = !negated;
                        }
                    }
                    v
                }
            };
            ValueMask {
                values,
                nulls: false,
            }
        }
        Pred::IsNull { negated, .. } => ValueMask {
            values: vec![*negated; n],
            nulls: !*negated,
        },
        Pred::Like {
            pattern, negated, ..
        } => {
            let mut values = vec![*negated; n];
            for i in like_values(ctx, col, pattern)? {
                if let Some(x) = values.get_mut(i) {
                    *x = !*negated;
                }
            }
            ValueMask {
                values,
                nulls: false,
            }
        }
        Pred::Values { expr, .. } => values_truth(ctx, col, expr)?,
        Pred::Rows(_) => return Ok(None),
    }))
}

/// Where an expression of column `col` alone is TRUE: at each distinct
/// value, and at NULL.
fn values_truth(ctx: &BlockCtx, col: usize, expr: &TExpr) -> Result<ValueMask> {
    let vals = ctx.values(col)?;
    let values = truth_of(&*eval(expr, vals.len(), &OneColumn(vals))?);
    // The NULL input is evaluated only where a row holds it: its value can
    // fail where no row's does (`256 - ifnull(x, -2^63)`).
    let nulls = ctx.chunk(col)?.null_count() > 0 && {
        let null_in = Vector::nulls(vals.ty, 1);
        truth_of(&*eval(expr, 1, &OneColumn(&null_in))?)[0]
    };
    Ok(ValueMask { values, nulls })
}

/// [`values_truth`] at the values (and NULL) `within` accepts; FALSE at
/// the others, which are not evaluated.
fn values_truth_where(
    ctx: &BlockCtx,
    col: usize,
    expr: &TExpr,
    within: &ValueMask,
) -> Result<ValueMask> {
    let vals = ctx.values(col)?;
    let at: Vec<u32> = (0..within.values.len() as u32)
        .filter(|&i| within.values[i as usize])
        .collect();
    let picked = vals.gather(&at);
    let truth = truth_of(&*eval(expr, at.len(), &OneColumn(&picked))?);
    let mut values = vec![false; within.values.len()];
    for (&i, t) in at.iter().zip(truth) {
        values[i as usize] = t;
    }
    let nulls = within.nulls && ctx.chunk(col)?.null_count() > 0 && {
        let null_in = Vector::nulls(vals.ty, 1);
        truth_of(&*eval(expr, 1, &OneColumn(&null_in))?)[0]
    };
    Ok(ValueMask { values, nulls })
}

/// The rows among `rows` where `expr` over column `col` is TRUE, evaluated
/// only at the values those rows hold.
fn values_true_at(ctx: &BlockCtx, col: usize, expr: &TExpr, rows: &[u32]) -> Result<Bitmap> {
    let codes = ctx.codes_at(col, rows)?;
    let n = ctx.chunk(col)?.distinct();
    let mut within = ValueMask {
        values: vec![false; n],
        nulls: false,
    };
    for &c in &codes {
        match within.values.get_mut(c as usize) {
            Some(v) => *v = true,
            None => within.nulls = true,
        }
    }
    let m = values_truth_where(ctx, col, expr, &within)?;
    let mut kept = Bitmap::zeros(ctx.rows as usize);
    for (&r, &c) in rows.iter().zip(&codes) {
        if m.values.get(c as usize).copied().unwrap_or(m.nulls) {
            kept.set(r as usize);
        }
    }
    Ok(kept)
}

/// The union of two selections.
fn or_sel(a: Sel, b: Sel) -> Sel {
    match (a, b) {
        (Sel::All, _) | (_, Sel::All) => Sel::All,
        (Sel::Empty, s) | (s, Sel::Empty) => s,
        (Sel::Bits(mut a), Sel::Bits(b)) => {
            a.or(&b);
            Sel::from_bits(a)
        }
    }
}

/// The rows of a block that satisfy `p`.
pub fn select(p: &Pred, ctx: &BlockCtx) -> Result<Sel> {
    let rows = ctx.rows;
    Ok(match p {
        Pred::True => Sel::All,
        Pred::False => Sel::Empty,
        Pred::And(kids) => select_all_of(kids, ctx)?,
        Pred::Or(kids) => {
            let mut acc = Sel::Empty;
            // A branch that fails over all of its values or rows (an
            // overflow) is evaluated at the rows no other branch accepts:
            // DuckDB's OR never evaluates it at the others.
            let mut deferred = Vec::new();
            for k in kids {
                if !may_match(k, ctx.table, ctx.block) {
                    continue;
                }
                let Ok(s) = select(k, ctx) else {
                    deferred.push(k);
                    continue;
                };
                acc = or_sel(acc, s);
                if acc == Sel::All {
                    return Ok(acc);
                }
            }
            for k in deferred {
                let rest: Vec<u32> = match &acc {
                    Sel::All => return Ok(Sel::All),
                    Sel::Empty => (0..rows).collect(),
                    Sel::Bits(b) => (0..rows).filter(|&r| !b.get(r as usize)).collect(),
                };
                let s = Sel::from_bits(select_at(k, ctx, &rest)?);
                acc = or_sel(acc, s);
            }
            acc
        }
        Pred::KeyRange { .. } | Pred::KeySet { .. } | Pred::StrSet { .. } => {
            match accepted(p, ctx)? {
                Some((col, a)) => a.rows(ctx, col)?,
                None => {
                    return Err(crate::error::EngineError::Internal(
                        "not a value leaf".into(),
                    ))
                }
            }
        }
        Pred::IsNull { col, negated } => {
            let chunk = ctx.chunk(*col)?;
            let n = chunk.null_count();
            if n == 0 {
                if *negated {
                    Sel::All
                } else {
                    Sel::Empty
                }
            } else if n == rows {
                if *negated {
                    Sel::Empty
                } else {
                    Sel::All
                }
            } else {
                let mut b = if *negated {
                    Bitmap::ones(rows as usize)
                } else {
                    Bitmap::zeros(rows as usize)
                };
                for (s, l) in chunk.null_runs()? {
                    if *negated {
                        b.clear_range(s, l);
                    } else {
                        b.set_range(s, l);
                    }
                }
                Sel::from_bits(b)
            }
        }
        Pred::Like {
            col,
            pattern,
            negated,
        } => {
            let mut idx = like_values(ctx, *col, pattern)?;
            idx.sort_unstable();
            value_set_rows(ctx, *col, &idx, *negated)?
        }
        Pred::Values { col, expr } => {
            let ValueMask {
                values: truth,
                nulls: null_truth,
            } = values_truth(ctx, *col, expr)?;
            let chunk = ctx.chunk(*col)?;
            let listed = || truth.iter().enumerate().filter(|(_, &t)| t).map(|(v, _)| v);
            let few = chunk.stores_row_codes()
                && few_values(chunk, listed().count(), listed(), u64::from(rows))?;
            if !few {
                if let Some(b) =
                    ctx.rows_by_codes(*col, |v| truth.get(v) == Some(&true), null_truth)?
                {
                    return Ok(Sel::from_bits(b));
                }
            }
            let mut b = Bitmap::zeros(rows as usize);
            if truth.iter().any(|&t| t) {
                chunk.row_lists()?.for_each(|v, s, l| {
                    if truth[v] {
                        b.set_range(s, l)
                    }
                })?;
            }
            if null_truth && chunk.null_count() > 0 {
                for (s, l) in chunk.null_runs()? {
                    b.set_range(s, l);
                }
            }
            Sel::from_bits(b)
        }
        Pred::Rows(expr) => {
            let all: Vec<u32> = (0..rows).collect();
            Sel::from_bits(rows_true_at(ctx, expr, &all)?)
        }
    })
}

/// The rows among `rows` where `expr` (over several columns, or none) is
/// TRUE, its columns read at those rows.
fn rows_true_at(ctx: &BlockCtx, expr: &TExpr, rows: &[u32]) -> Result<Bitmap> {
    let cols = expr.columns();
    let mut loaded = Vec::with_capacity(cols.len());
    for c in &cols {
        loaded.push((*c, ctx.column_at(*c, rows)?));
    }
    let inputs = Columns(loaded.iter().map(|(c, v)| (*c, v)).collect());
    let truth = truth_of(&*eval(expr, rows.len(), &inputs)?);
    let mut out = Bitmap::zeros(ctx.rows as usize);
    for (&r, t) in rows.iter().zip(truth) {
        if t {
            out.set(r as usize);
        }
    }
    Ok(out)
}

/// `AND`: the children over one column's values first, the one matching
/// fewest rows first (their counts are exact and cheap), the others after in
/// their written order. Once few rows are left, a value leaf tests just
/// their values instead of collecting every row of its values.
fn select_all_of(kids: &[Pred], ctx: &BlockCtx) -> Result<Sel> {
    if kids.iter().any(|k| !may_match(k, ctx.table, ctx.block)) {
        return Ok(Sel::Empty);
    }
    let mut plan = Vec::with_capacity(kids.len());
    // Operands that fail over all of the block's values or rows: tested
    // last, at the rows the others keep (DuckDB evaluates AND's operands
    // on the rows still passing, so an error elsewhere is none).
    let mut deferred = Vec::new();
    for (i, k) in kids.iter().enumerate() {
        let Ok(a) = accepted(k, ctx) else {
            deferred.push(i);
            continue;
        };
        let est = match &a {
            Some((col, a)) => a.matching_rows(ctx, *col)?,
            None => u64::MAX,
        };
        if est == 0 {
            return Ok(Sel::Empty);
        }
        plan.push((est, i, a));
    }
    plan.sort_unstable_by_key(|&(est, i, _)| (est, i));
    let mut acc = Sel::All;
    for (_, i, a) in plan {
        let s = match (&acc, a) {
            (Sel::Bits(b), Some((col, a))) if b.count() <= ctx.rows as usize / 32 => {
                let rows = b.rows();
                let codes = ctx.codes_at(col, &rows)?;
                let mut kept = Bitmap::zeros(ctx.rows as usize);
                for (&r, &c) in rows.iter().zip(&codes) {
                    if a.accepts(c) {
                        kept.set(r as usize);
                    }
                }
                acc = Sel::from_bits(kept);
                if acc == Sel::Empty {
                    return Ok(acc);
                }
                continue;
            }
            (_, Some((col, a))) => a.rows(ctx, col)?,
            // An operand over rows (several columns, say) where the others
            // left few: evaluated at those rows only.
            (Sel::Bits(b), None) if b.count() <= ctx.rows as usize / 4 => {
                let rows = b.rows();
                match select_at(&kids[i], ctx, &rows) {
                    Ok(kept) => Sel::from_bits(kept),
                    Err(_) => {
                        deferred.push(i);
                        continue;
                    }
                }
            }
            (_, None) => match select(&kids[i], ctx) {
                Ok(s) => s,
                Err(_) => {
                    deferred.push(i);
                    continue;
                }
            },
        };
        acc = match (acc, s) {
            (Sel::Empty, _) | (_, Sel::Empty) => return Ok(Sel::Empty),
            (Sel::All, s) | (s, Sel::All) => s,
            (Sel::Bits(mut a), Sel::Bits(b)) => {
                a.and(&b);
                Sel::from_bits(a)
            }
        };
        if acc == Sel::Empty {
            return Ok(acc);
        }
    }
    deferred.sort_unstable();
    for i in deferred {
        let rows = acc.rows(ctx.rows);
        acc = Sel::from_bits(select_at(&kids[i], ctx, &rows)?);
        if acc == Sel::Empty {
            return Ok(acc);
        }
    }
    Ok(acc)
}

/// The rows among `rows` (ascending) that satisfy `p`, its per-value and
/// per-row leaves evaluated only at what those rows hold, AND's and OR's
/// operands in their written order each at the rows still undecided (as
/// DuckDB evaluates them): where [`select`] failed over the whole block, an
/// error raised here is one a row that needs the failing operand raises.
fn select_at(p: &Pred, ctx: &BlockCtx, rows: &[u32]) -> Result<Bitmap> {
    let mut out = Bitmap::zeros(ctx.rows as usize);
    match p {
        Pred::And(kids) => {
            let mut left = rows.to_vec();
            for k in kids {
                if left.is_empty() {
                    break;
                }
                let b = select_at(k, ctx, &left)?;
                left.retain(|&r| b.get(r as usize));
            }
            for r in left {
                out.set(r as usize);
            }
        }
        Pred::Or(kids) => {
            let mut left = rows.to_vec();
            for k in kids {
                if left.is_empty() {
                    break;
                }
                let b = select_at(k, ctx, &left)?;
                out.or(&b);
                left.retain(|&r| !b.get(r as usize));
            }
        }
        Pred::Values { col, expr } => return values_true_at(ctx, *col, expr, rows),
        Pred::Rows(expr) => return rows_true_at(ctx, expr, rows),
        _ => match select(p, ctx)? {
            Sel::Empty => {}
            Sel::All => rows.iter().for_each(|&r| out.set(r as usize)),
            Sel::Bits(b) => rows
                .iter()
                .filter(|&&r| b.get(r as usize))
                .for_each(|&r| out.set(r as usize)),
        },
    }
    Ok(out)
}

/// The distinct values of a column a leaf predicate accepts, by index.
enum Accept {
    /// Values `start..end` (a key range).
    Range(usize, usize),
    /// The values at `idx` (sorted), or with `negated` every other non-NULL
    /// value.
    Set { idx: Vec<usize>, negated: bool },
}

/// For a leaf over one column's values (`KeyRange`, `KeySet`, `StrSet`), its
/// column and the values it accepts in this block.
fn accepted(p: &Pred, ctx: &BlockCtx) -> Result<Option<(usize, Accept)>> {
    Ok(match p {
        Pred::KeyRange { col, lo, hi } => {
            let chunk = ctx.chunk(*col)?;
            let keys = chunk.keys()?;
            let start = keys.lower_bound(*lo);
            let end = if *hi == u64::MAX {
                keys.len()
            } else {
                keys.lower_bound(hi + 1)
            };
            Some((*col, Accept::Range(start, end.max(start))))
        }
        Pred::KeySet { col, keys, negated } => {
            let chunk = ctx.chunk(*col)?;
            let ks = chunk.keys()?;
            let mut idx = Vec::new();
            // Only the keys within the block's range can match (a semi-join's
            // key set over a table clustered by the key meets each block in
            // a slice of it).
            let keys = match (ks.len(), keys.first()) {
                (0, _) | (_, None) => &keys[..0],
                (n, Some(_)) => {
                    let (lo, hi) = (ks.get(0), ks.get(n - 1));
                    &keys[keys.partition_point(|k| *k < lo)..keys.partition_point(|k| *k <= hi)]
                }
            };
            let depth = (usize::BITS - ks.len().leading_zeros()) as usize;
            if keys.len().saturating_mul(depth) > ks.len() {
                // More keys than a search each pays for (a semi-join's key
                // set): one merge of the two sorted lists, the block's keys
                // decoded a few thousand at a time into one buffer.
                const STEP: usize = 4096;
                let mut all = Vec::with_capacity(STEP.min(ks.len()));
                let (mut base, mut j) = (0, 0);
                while base < ks.len() && j < keys.len() {
                    let end = (base + STEP).min(ks.len());
                    all.clear();
                    ks.extend_range_into(base, end, &mut all);
                    let mut i = 0;
                    while i < all.len() && j < keys.len() {
                        match all[i].cmp(&keys[j]) {
                            std::cmp::Ordering::Less => i += 1,
                            std::cmp::Ordering::Greater => j += 1,
                            std::cmp::Ordering::Equal => {
                                idx.push(base + i);
                                i += 1;
                                j += 1;
                            }
                        }
                    }
                    base = end;
                }
            } else {
                for k in keys {
                    let i = ks.lower_bound(*k);
                    if i < ks.len() && ks.get(i) == *k {
                        idx.push(i);
                    }
                }
            }
            Some((
                *col,
                Accept::Set {
                    idx,
                    negated: *negated,
                },
            ))
        }
        Pred::StrSet {
            col,
            hashes,
            negated,
        } => {
            let chunk = ctx.chunk(*col)?;
            let hs = chunk.hashes()?;
            let hs = hs.as_slice();
            let mut idx: Vec<usize> = hashes
                .iter()
                .filter_map(|h| hs.binary_search(h).ok())
                .collect();
            idx.sort_unstable();
            Some((
                *col,
                Accept::Set {
                    idx,
                    negated: *negated,
                },
            ))
        }
        _ => None,
    })
}

impl Accept {
    /// Whether value index `code` (`u32::MAX` for NULL) is accepted.
    fn accepts(&self, code: u32) -> bool {
        if code == u32::MAX {
            return false;
        }
        let c = code as usize;
        match self {
            Accept::Range(start, end) => (*start..*end).contains(&c),
            Accept::Set { idx, negated } => idx.binary_search(&c).is_ok() != *negated,
        }
    }

    /// The number of rows holding an accepted value, from the counts.
    fn matching_rows(&self, ctx: &BlockCtx, col: usize) -> Result<u64> {
        let chunk = ctx.chunk(col)?;
        let counts = chunk.counts()?;
        let counts = counts.view();
        let n = counts.len();
        let non_null = u64::from(ctx.rows - chunk.null_count().min(ctx.rows));
        let sum = |r: std::ops::Range<usize>| r.map(|i| counts.get(i)).sum::<u64>();
        Ok(match self {
            Accept::Range(start, end) => {
                let (start, end) = ((*start).min(n), (*end).min(n));
                if end - start <= n / 2 {
                    sum(start..end)
                } else {
                    non_null.saturating_sub(sum(0..start) + sum(end..n))
                }
            }
            Accept::Set { idx, negated } => {
                let inside: u64 = idx.iter().filter(|&&i| i < n).map(|&i| counts.get(i)).sum();
                if *negated {
                    non_null.saturating_sub(inside)
                } else {
                    inside
                }
            }
        })
    }

    /// The rows holding an accepted value.
    fn rows(&self, ctx: &BlockCtx, col: usize) -> Result<Sel> {
        match self {
            Accept::Range(start, end) => value_range_rows(ctx, col, *start, *end),
            Accept::Set { idx, negated } => value_set_rows(ctx, col, idx, *negated),
        }
    }
}

/// The value indexes of string column `col` whose strings match `pattern`:
/// only the string blocks holding every trigram of the pattern are decoded
/// (all of them when it has none), and each string is tested once.
pub fn like_values(
    ctx: &BlockCtx,
    col: usize,
    pattern: &crate::expr::like::LikePattern,
) -> Result<Vec<usize>> {
    let mut out = Vec::new();
    if let Some(v) = ctx.cached_values(col) {
        if let Data::Str(strs) = &v.data {
            for (i, s) in strs.iter().enumerate() {
                if pattern.matches(s) {
                    out.push(i);
                }
            }
            return Ok(out);
        }
    }
    let chunk = ctx.chunk(col)?;
    let dict = chunk.dictionary()?;
    let mut blocks: Option<Vec<u32>> = None;
    let mut lists = Vec::new();
    for k in pattern.trigrams() {
        lists.push(dict.blocks_with_trigram(k)?);
    }
    lists.sort_by_key(|l| l.len());
    for l in lists {
        blocks = Some(match blocks {
            None => l,
            Some(b) => b
                .into_iter()
                .filter(|x| l.binary_search(x).is_ok())
                .collect(),
        });
        if blocks.as_ref().is_some_and(|b| b.is_empty()) {
            return Ok(out);
        }
    }
    let blocks: Vec<u32> = blocks.unwrap_or_else(|| (0..dict.block_count() as u32).collect());
    // Most blocks to read: decompressed all at once and kept for the next
    // queries of the process (after its first).
    if blocks.len().saturating_mul(2) >= dict.block_count() {
        dict.keep_decompressed()?;
    }
    // The blocks in parallel, in runs of blocks each decoded into one
    // buffer; the matches come out in block order.
    let parts: Vec<Vec<usize>> = blocks
        .par_chunks(LIKE_BLOCKS_PER_TASK)
        .map(|run| {
            let (mut bytes, mut ends) = (Vec::new(), Vec::new());
            let mut out = Vec::new();
            for &b in run {
                let b = b as usize;
                dict.decode_block(b, &mut bytes, &mut ends)?;
                let mut start = 0;
                for (i, &end) in ends.iter().enumerate() {
                    if pattern.matches(&bytes[start..end]) {
                        out.push(
                            dict.value_of_str(b * strata_format::layout::STRINGS_PER_BLOCK + i)?,
                        );
                    }
                    start = end;
                }
            }
            Ok(out)
        })
        .collect::<Result<_>>()?;
    out.extend(parts.into_iter().flatten());
    Ok(out)
}

/// String blocks (of 128 strings) one task of [`like_values`] matches.
const LIKE_BLOCKS_PER_TASK: usize = 64;

/// TRUE (not FALSE, not NULL) per row of a boolean vector.
pub fn truth_of(v: &Vector) -> Vec<bool> {
    match &v.data {
        Data::Bool(b) => b
            .iter()
            .enumerate()
            .map(|(i, &x)| x && !v.is_null(i))
            .collect(),
        _ => vec![false; v.len()],
    }
}

fn value_range_rows(ctx: &BlockCtx, col: usize, start: usize, end: usize) -> Result<Sel> {
    let chunk = ctx.chunk(col)?;
    if start >= end {
        return Ok(Sel::Empty);
    }
    if start == 0 && end == chunk.distinct() && chunk.null_count() == 0 {
        return Ok(Sel::All);
    }
    let range = start..end.min(chunk.distinct());
    let few = few_values(chunk, range.len(), range, u64::from(ctx.rows))?;
    if !few {
        if let Some(b) = ctx.rows_by_codes(col, |v| (start..end).contains(&v), false)? {
            return Ok(Sel::from_bits(b));
        }
    }
    // Walk whichever side holds fewer rows: the values in the range, or
    // those outside it (and the NULLs), cleared from a full bitmap.
    let n = chunk.distinct();
    let end = end.min(n);
    let counts = chunk.counts()?;
    let counts = counts.view();
    let sum = |r: std::ops::Range<usize>| r.map(|i| counts.get(i)).sum::<u64>();
    let non_null = u64::from(ctx.rows - chunk.null_count().min(ctx.rows));
    let inside = if end - start <= n / 2 {
        sum(start..end)
    } else {
        non_null.saturating_sub(sum(0..start) + sum(end..n))
    };
    let rl = chunk.row_lists()?;
    if inside * 2 > u64::from(ctx.rows) {
        let mut b = Bitmap::ones(ctx.rows as usize);
        rl.for_range(0..start, |_, s, l| b.clear_range(s, l))?;
        rl.for_range(end..n, |_, s, l| b.clear_range(s, l))?;
        if chunk.null_count() > 0 {
            for (s, l) in chunk.null_runs()? {
                b.clear_range(s, l);
            }
        }
        return Ok(Sel::from_bits(b));
    }
    let mut b = Bitmap::zeros(ctx.rows as usize);
    rl.for_range(start..end, |_, s, l| b.set_range(s, l))?;
    Ok(Sel::from_bits(b))
}

/// Whether expanding the row lists of the values `idx` of a block's
/// column costs less than reading all its row codes: a value's list costs a
/// fixed start plus its rows, a code one table lookup. The rows are the
/// values' counts for a few values (a frequent key can fill most of a
/// block), the average count for many. (An equality filter, or a LIKE
/// matching a few hundred URLs of half a million.) Row lists a chunk would
/// build from its row codes cost a pass over the codes and a sort: they
/// pay only once built.
fn few_values(
    chunk: &strata_format::reader::ColumnChunk,
    k: usize,
    idx: impl Iterator<Item = usize>,
    rows: u64,
) -> Result<bool> {
    if !chunk.row_lists_ready() {
        return Ok(false);
    }
    /// Values whose counts are read; beyond, the average is assumed.
    const EXACT: usize = 16;
    let exact = k <= EXACT;
    let (k, rows) = (k as u64, rows.max(1));
    let listed = if exact {
        let counts = chunk.counts()?;
        let counts = counts.view();
        let distinct = chunk.distinct();
        idx.filter(|&i| i < distinct)
            .map(|i| counts.get(i))
            .sum::<u64>()
    } else {
        k.saturating_mul(rows.div_ceil(chunk.distinct().max(1) as u64))
    };
    Ok(k.saturating_mul(32)
        .saturating_add(listed.saturating_mul(4))
        < rows)
}

fn value_set_rows(ctx: &BlockCtx, col: usize, idx: &[usize], negated: bool) -> Result<Sel> {
    let chunk = ctx.chunk(col)?;
    if chunk.stores_row_codes()
        && !few_values(chunk, idx.len(), idx.iter().copied(), u64::from(ctx.rows))?
    {
        let mut member = vec![false; chunk.distinct()];
        for &i in idx {
            if let Some(m) = member.get_mut(i) {
                *m = true;
            }
        }
        // NOT IN keeps neither the listed values nor the NULLs.
        if let Some(b) = ctx.rows_by_codes(col, |v| member[v] != negated, false)? {
            return Ok(Sel::from_bits(b));
        }
    }
    let rl = chunk.row_lists()?;
    if !negated {
        if idx.is_empty() {
            return Ok(Sel::Empty);
        }
        let mut b = Bitmap::zeros(ctx.rows as usize);
        rl.for_values(idx.iter().copied(), |_, s, l| b.set_range(s, l))?;
        return Ok(Sel::from_bits(b));
    }
    if idx.is_empty() && chunk.null_count() == 0 {
        return Ok(Sel::All);
    }
    let mut b = Bitmap::ones(ctx.rows as usize);
    rl.for_values(idx.iter().copied(), |_, s, l| b.clear_range(s, l))?;
    if chunk.null_count() > 0 {
        for (s, l) in chunk.null_runs()? {
            b.clear_range(s, l);
        }
    }
    Ok(Sel::from_bits(b))
}

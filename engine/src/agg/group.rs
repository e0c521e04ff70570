//! GROUP BY within one block: builds the block's sorted vector of groups
//! from the key columns' own sorted values.
//!
//! A single column key (with aggregates of that column only) needs no row
//! pass at all: its sorted distinct values are the groups and the per-value
//! counts (intersected with the filter) are the multiplicities. Otherwise
//! each key part gets row codes whose order is the key order; small code
//! spaces use dense group ids, large ones sort rows within the groups of
//! the first (most distinct) part.

use std::rc::Rc;

use strata_format::reader::Hashes;
use strata_format::Table;

use crate::agg::arg_values::{str_ranks, ArgValues};
use crate::agg::factored::Factored;
use crate::agg::func::AggCall;
use crate::agg::layout::{str_prefix, AggSlot, StateKind, StateLayout, StrArena};
use crate::agg::merge::{Groups, Pool};
use crate::agg::per_value::{codes_at, eval_per_value, used_values};
use crate::error::Result;
use crate::expr::{eval, Columns, OneColumn, TExpr};
use crate::scan::block::{BlockCtx, Sel};
use crate::scan::selection::BlockFilter;
use crate::value::{LType, Value, Vector};

/// How a key part's values are found in a block.
#[derive(Debug, Clone, PartialEq)]
pub enum PartKind {
    /// A fixed-width column: its sorted keys.
    Raw(usize),
    /// A string column: its sorted hashes (strings fetched for results only).
    RawStr(usize),
    /// An expression of one column, evaluated per distinct value.
    Expr1(usize),
    /// An expression of several columns, evaluated per row.
    ExprN,
}

/// One part of the group key as laid out in the sorted vectors.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyPart {
    /// The key expression.
    pub expr: TExpr,
    /// How it is computed.
    pub kind: PartKind,
    /// Whether a NULL flag word precedes the value words.
    pub nullable: bool,
    /// Offset of the first key word of this part.
    pub off: usize,
    /// For string-valued parts: the state word holding (block, value) of a
    /// row with this string (raw columns), or (block, row) of such a row
    /// (expressions, whose string is recomputed from that row).
    pub witness: Option<usize>,
    /// For a costly expression of one string column: its results by string
    /// hash, shared by the query's blocks.
    pub memo: Option<std::sync::Arc<crate::expr::memo::StrMemo>>,
    /// Whether a computed `-0.0` keeps a key of its own, just below
    /// `+0.0`'s ([`crate::value::NEG_ZERO_KEY`]). Set on the argument part of a pass for
    /// quantiles and mode of a float expression, whose answer is `-0.0`
    /// where every row at the zero is; the collapse of the pass merges the
    /// two zeros back into one value (see `exec::table::collapse`).
    pub signed_zero: bool,
}

impl KeyPart {
    /// Value words (without the NULL flag).
    pub fn value_words(&self) -> usize {
        self.expr.ty.key_words()
    }
}

/// The layout of one aggregation pass: key parts, then states.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupSpec {
    /// Key parts in layout order.
    pub parts: Vec<KeyPart>,
    /// Key words.
    pub kw: usize,
    /// State layout.
    pub layout: StateLayout,
}

impl GroupSpec {
    /// Lays out `parts` (in this order) and `aggs`.
    pub fn new(exprs: &[TExpr], aggs: &[AggCall], table: &Table) -> Result<GroupSpec> {
        let schema = table.schema();
        let mut parts = Vec::new();
        let mut off = 0;
        let mut witnesses = 0;
        for e in exprs {
            let cols = e.columns();
            let kind = match (e.as_col(), cols.as_slice()) {
                (Some(c), _) if e.ty == LType::Varchar => PartKind::RawStr(c),
                (Some(c), _) => PartKind::Raw(c),
                (None, [c]) => PartKind::Expr1(*c),
                (None, _) => PartKind::ExprN,
            };
            let nullable = match kind {
                PartKind::Raw(c) | PartKind::RawStr(c) => schema.fields[c].nullable,
                _ => true,
            };
            let witness = if e.ty == LType::Varchar {
                witnesses += 1;
                Some(witnesses - 1)
            } else {
                None
            };
            let memo = match kind {
                PartKind::Expr1(c)
                    if schema.fields[c].data_type.is_string()
                        && crate::expr::memo::StrMemo::worth_it(e) =>
                {
                    Some(Default::default())
                }
                _ => None,
            };
            let p = KeyPart {
                expr: e.clone(),
                kind,
                nullable,
                off,
                witness,
                memo,
                signed_zero: false,
            };
            off += usize::from(nullable) + p.value_words();
            parts.push(p);
        }
        let layout = StateLayout::new(aggs, witnesses)?;
        for p in &mut parts {
            if let Some(w) = p.witness {
                p.witness = Some(layout.witnesses[w]);
            }
        }
        Ok(GroupSpec {
            parts,
            kw: off,
            layout,
        })
    }

    /// Words per row.
    pub fn stride(&self) -> usize {
        self.kw + self.layout.words
    }

    /// Whether the block can be aggregated per distinct value of its single
    /// raw key column (no row pass).
    pub fn per_value_column(&self) -> Option<usize> {
        let c = match self.parts.as_slice() {
            [p] => match p.kind {
                PartKind::Raw(c) | PartKind::RawStr(c) => c,
                _ => return None,
            },
            _ => return None,
        };
        self.layout
            .slots
            .iter()
            .all(|s| {
                s.pass_arg()
                    .is_none_or(|a| a.columns().iter().all(|&x| x == c))
            })
            .then_some(c)
    }

    /// The strategy a block would use, for EXPLAIN.
    pub fn strategy(&self, table: &Table, block: usize) -> String {
        let grouping = self.grouping_strategy(table, block);
        let distinct = |c: usize| table.stats(block, c).distinct as usize;
        match crate::agg::factored::explain_count(&self.layout, &distinct) {
            0 => grouping,
            n => format!("{grouping}; {n} sums of x times few-valued factors factored"),
        }
    }

    fn grouping_strategy(&self, table: &Table, block: usize) -> String {
        if self.parts.is_empty() {
            return "one group: per-value aggregates x counts".into();
        }
        if self.per_value_column().is_some() {
            return "groups = the key column's sorted values, counts from row lists".into();
        }
        let product: f64 = self
            .parts
            .iter()
            .map(|p| match p.kind {
                PartKind::Raw(c) | PartKind::RawStr(c) | PartKind::Expr1(c) => {
                    f64::from(table.stats(block, c).distinct) + 1.0
                }
                PartKind::ExprN => f64::from(table.block_rows(block)) + 1.0,
            })
            .product();
        if product <= dense_limit(0) as f64 {
            format!("dense group ids (code space {product})")
        } else if product <= dense_limit(table.block_rows(block) as usize) as f64 {
            format!(
                "dense group ids (code space {product}) where at least half as many rows \
                 pass the filter, else sort rows within the groups of the first key part"
            )
        } else {
            "sort rows within the groups of the first key part".into()
        }
    }
}

/// The largest code space numbered densely when grouping `rows` rows:
/// twice the rows, at least 1,024 and at most 2^26. A state per code is
/// initialised and scanned, which costs more than sorting the rows when the
/// space is much larger than they are (a filter keeping 100 rows of a block
/// grouped by a column with 34,000 distinct values).
fn dense_limit(rows: usize) -> usize {
    (2 * rows).clamp(1 << 10, 1 << 26)
}

/// A key part's codes in one block.
struct Realized<'a> {
    codes: std::borrow::Cow<'a, [u32]>,
    keys: Vec<u128>,
    /// For string-valued expressions: a row holding each key.
    wit: Option<Vec<u32>>,
}

/// The first position holding each of `n` codes.
fn first_rows(codes: &[u32], n: usize) -> Vec<u32> {
    let mut w = vec![u32::MAX; n];
    for (r, &c) in codes.iter().enumerate() {
        if let Some(x) = w.get_mut(c as usize) {
            if *x == u32::MAX {
                *x = r as u32;
            }
        }
    }
    w
}

/// Evaluates `expr` at the selected `rows` only and dedups the results: the
/// codes are indexed by position in `rows`.
fn realize_at_rows<'a>(p: &KeyPart, ctx: &BlockCtx, rows: &[u32]) -> Result<Realized<'a>> {
    let expr = &p.expr;
    if let Some(r) = realize_string_case(expr, ctx, rows)? {
        return Ok(r);
    }
    let per_row = ctx.eval_one_at(rows, expr)?;
    let (sel_codes, keys) = dedup_keys(&per_row, p.signed_zero);
    Ok(realized_at_rows(expr, rows, sel_codes, keys))
}

/// [`realize_at_rows`] for an expression of the one column `c`: evaluated
/// once per value of `c` the selected `rows` hold, at one row of each, in
/// value order (so a monotone expression's keys come sorted).
fn realize_expr1_at_rows<'a>(
    p: &KeyPart,
    ctx: &BlockCtx,
    c: usize,
    rows: &[u32],
) -> Result<Realized<'a>> {
    let expr = &p.expr;
    if let Some(r) = realize_string_case(expr, ctx, rows)? {
        return Ok(r);
    }
    let col = codes_at(ctx, c, rows)?;
    // Value index -> first position holding it, then its rank among the
    // values held; NULL (u32::MAX) is the last slot.
    let null = ctx.chunk(c)?.distinct();
    let slot = |v: u32| {
        if v == u32::MAX {
            null
        } else {
            (v as usize).min(null)
        }
    };
    let mut dense = vec![u32::MAX; null + 1];
    for (i, &v) in col.iter().enumerate() {
        let d = &mut dense[slot(v)];
        if *d == u32::MAX {
            *d = i as u32;
        }
    }
    let mut reps = Vec::new();
    for d in dense.iter_mut().filter(|d| **d != u32::MAX) {
        reps.push(rows[*d as usize]);
        *d = (reps.len() - 1) as u32;
    }
    let per_value = ctx.eval_one_at(&reps, expr)?;
    let (map, keys) = dedup_keys(&per_value, p.signed_zero);
    let codes = col.iter().map(|&v| map[dense[slot(v)] as usize]).collect();
    Ok(realized_at_rows(expr, rows, codes, keys))
}

/// The [`Realized`] of per-row `codes` into `keys` at `rows`, with, for a
/// string expression, a witness row per key (its string is recomputed from
/// that row for the result).
fn realized_at_rows<'a>(
    expr: &TExpr,
    rows: &[u32],
    codes: Vec<u32>,
    keys: Vec<u128>,
) -> Realized<'a> {
    let wit = (expr.ty == LType::Varchar).then(|| {
        let mut w = vec![u32::MAX; keys.len()];
        for (&r, &c) in rows.iter().zip(&codes) {
            if let Some(x) = w.get_mut(c as usize) {
                if *x == u32::MAX {
                    *x = r;
                }
            }
        }
        w
    });
    Realized {
        codes: std::borrow::Cow::Owned(codes),
        keys,
        wit,
    }
}

/// What a string `CASE` branch gives: a string column's value, or a
/// constant key (`None` for NULL).
enum CaseBranch {
    Column(usize),
    Key(Option<u128>),
}

/// A string `CASE` whose results are all string columns, string constants
/// or NULL (`CASE WHEN c THEN Referer ELSE '' END`), keyed without decoding
/// a string: a row's key is the chosen column's stored hash or the
/// constant's hash, which is what [`Vector::key`] gives for the string.
/// `None` for any other expression.
fn realize_string_case<'a>(
    expr: &TExpr,
    ctx: &BlockCtx,
    rows: &[u32],
) -> Result<Option<Realized<'a>>> {
    use crate::expr::ExprKind;
    use crate::value::{Data, Value};
    let ExprKind::Case(whens, otherwise) = &expr.kind else {
        return Ok(None);
    };
    if expr.ty != LType::Varchar {
        return Ok(None);
    }
    // Each branch as a column or a key, before reading anything.
    let branch = |e: &TExpr| match &e.kind {
        ExprKind::Col(c) if e.ty == LType::Varchar => Some(CaseBranch::Column(*c)),
        ExprKind::Lit(Value::Str(s)) => Some(CaseBranch::Key(Some(strata_format::string_hash(s)))),
        ExprKind::Lit(Value::Null) => Some(CaseBranch::Key(None)),
        _ => None,
    };
    let Some(branches) = whens
        .iter()
        .map(|(_, v)| branch(v))
        .chain(Some(
            otherwise
                .as_deref()
                .map_or(Some(CaseBranch::Key(None)), branch),
        ))
        .collect::<Option<Vec<CaseBranch>>>()
    else {
        return Ok(None);
    };
    // Per column the branches read: its value code at each selected row, and
    // its hashes (by value code).
    let mut columns: Vec<(usize, std::borrow::Cow<[u32]>, Hashes)> = Vec::new();
    for b in &branches {
        if let CaseBranch::Column(c) = *b {
            if !columns.iter().any(|(col, _, _)| *col == c) {
                columns.push((c, codes_at(ctx, c, rows)?, ctx.chunk(c)?.hashes()?));
            }
        }
    }
    let conds: Vec<&TExpr> = whens.iter().map(|(c, _)| c).collect();
    let conds = ctx.eval_at(rows, &conds)?;
    let holds = |v: &Vector, i: usize| !v.is_null(i) && matches!(&v.data, Data::Bool(b) if b[i]);
    let keys: Vec<Option<u128>> = (0..rows.len())
        .map(|i| {
            let pick = conds
                .iter()
                .position(|c| holds(c, i))
                .unwrap_or(whens.len());
            match branches[pick] {
                CaseBranch::Key(k) => k,
                CaseBranch::Column(c) => {
                    let (_, codes, hashes) = columns.iter().find(|(col, _, _)| *col == c)?;
                    hashes.as_slice().get(codes[i] as usize).copied()
                }
            }
        })
        .collect();
    let (codes, keys) = dedup_key_list(&keys);
    Ok(Some(realized_at_rows(expr, rows, codes, keys)))
}

/// A key part's codes at the selected `rows` of a block, indexed by
/// position in `rows`.
fn realize<'a>(p: &KeyPart, ctx: &'a BlockCtx, rows: &[u32]) -> Result<Realized<'a>> {
    Ok(match p.kind {
        PartKind::Raw(c) => Realized {
            codes: codes_at(ctx, c, rows)?,
            keys: ctx.keys(c)?.iter().map(|&k| u128::from(k)).collect(),
            wit: None,
        },
        PartKind::RawStr(c) => {
            let chunk = ctx.chunk(c)?;
            let keys = chunk.hashes()?.as_slice().to_vec();
            Realized {
                codes: codes_at(ctx, c, rows)?,
                keys,
                wit: None,
            }
        }
        // Fewer selected rows than distinct values: evaluate once per value
        // the rows hold.
        PartKind::Expr1(c) if rows.len().saturating_mul(2) < ctx.chunk(c)?.distinct() => {
            realize_expr1_at_rows(p, ctx, c, rows)?
        }
        PartKind::Expr1(c) => {
            let per_value = match &p.memo {
                Some(memo) => eval_per_value_memo(&p.expr, ctx, c, memo)?,
                None => eval_per_value(&p.expr, ctx, c, &|| {
                    Ok(used_values(
                        &codes_at(ctx, c, rows)?,
                        ctx.chunk(c)?.distinct(),
                    ))
                })?,
            };
            let (map, keys) = dedup_keys(&per_value, p.signed_zero);
            let n = per_value.len() - 1;
            let codes = codes_at(ctx, c, rows)?
                .iter()
                .map(|&x| map[if x == u32::MAX { n } else { x as usize }])
                .collect::<Vec<u32>>();
            let wit = (p.expr.ty == LType::Varchar).then(|| {
                first_rows(&codes, keys.len())
                    .into_iter()
                    .map(|j| rows.get(j as usize).copied().unwrap_or(u32::MAX))
                    .collect()
            });
            Realized {
                codes: std::borrow::Cow::Owned(codes),
                keys,
                wit,
            }
        }
        PartKind::ExprN => realize_at_rows(p, ctx, rows)?,
    })
}

/// Sorted distinct keys of a vector, and each row's index among them
/// (`u32::MAX` for NULL).
fn dedup_keys(v: &Vector, signed_zero: bool) -> (Vec<u32>, Vec<u128>) {
    let ks: Vec<Option<u128>> = if signed_zero {
        (0..v.len()).map(|i| v.key_keeping_zero_sign(i)).collect()
    } else {
        (0..v.len()).map(|i| v.key(i)).collect()
    };
    dedup_key_list(&ks)
}

/// Sorted distinct keys of a list (`None` for NULL), and each entry's index
/// among them (`u32::MAX` for NULL).
fn dedup_key_list(ks: &[Option<u128>]) -> (Vec<u32>, Vec<u128>) {
    // A monotone expression of a column's sorted values (`extract(year ...)`,
    // `x // 5`) gives sorted keys already: one linear pass.
    if ks.iter().flatten().is_sorted() {
        let mut keys: Vec<u128> = Vec::new();
        let codes = ks
            .iter()
            .map(|k| match k {
                Some(k) => {
                    if keys.last() != Some(k) {
                        keys.push(*k);
                    }
                    keys.len() as u32 - 1
                }
                None => u32::MAX,
            })
            .collect();
        return (codes, keys);
    }
    let mut keys: Vec<u128> = ks.iter().flatten().copied().collect();
    keys.sort_unstable();
    keys.dedup();
    let codes = ks
        .iter()
        .map(|k| match k {
            Some(k) => keys.binary_search(k).map_or(u32::MAX, |i| i as u32),
            None => u32::MAX,
        })
        .collect();
    (codes, keys)
}

/// Where an aggregate's argument values are indexed from.
enum ArgIndex<'a> {
    Const,
    PerValue(std::borrow::Cow<'a, [u32]>, usize),
    PerRow,
}

/// Where the strings behind a block's string MIN/MAX ranks come from.
enum StrSource {
    /// Ranks are string (byte order) positions in this column's dictionary.
    Column(usize),
    /// Ranks index these sorted strings.
    Sorted(Vec<Vec<u8>>),
}

fn is_str_kind(kind: StateKind) -> bool {
    matches!(kind, StateKind::MinStr | StateKind::MaxStr)
}

/// Argument values of an aggregate per distinct value of its one column
/// `c` (the value for a NULL input last), and for string MIN/MAX where the
/// strings behind their ranks come from.
fn per_value_arg(
    arg: &TExpr,
    kind: StateKind,
    ctx: &BlockCtx,
    c: usize,
    used: &dyn Fn() -> Result<Vec<bool>>,
) -> Result<(ArgValues, Option<StrSource>)> {
    if is_str_kind(kind) && arg.as_col() == Some(c) {
        // A string's position in the dictionary is its byte-order rank.
        let chunk = ctx.chunk(c)?;
        let n = chunk.distinct();
        let mut keys = chunk.dictionary()?.str_positions()?;
        keys.push(0);
        let mut valid = vec![true; n];
        valid.push(false);
        return Ok((ArgValues::Key(keys, valid), Some(StrSource::Column(c))));
    }
    Ok(values_for(kind, &eval_per_value(arg, ctx, c, used)?))
}

/// [`eval_per_value`] for an expression of string column `c`, taking the
/// results of strings seen in earlier blocks from `memo` and evaluating only
/// the others.
fn eval_per_value_memo(
    expr: &TExpr,
    ctx: &BlockCtx,
    c: usize,
    memo: &crate::expr::memo::StrMemo,
) -> Result<Vector> {
    let chunk = ctx.chunk(c)?;
    let hashes = chunk.hashes()?;
    let hashes = hashes.as_slice();
    let mut known = memo.lookup(hashes);
    let missing: Vec<u32> = (0..hashes.len() as u32)
        .filter(|&i| known[i as usize].is_none())
        .collect();
    if !missing.is_empty() {
        let mut strs = Vector::empty(LType::Varchar, missing.len());
        for s in ctx.strings_of(c, &missing)? {
            strs.push(&s.map_or(crate::value::Value::Null, crate::value::Value::Str));
        }
        let got = eval(expr, missing.len(), &OneColumn(&strs))?.into_owned();
        for (j, &i) in missing.iter().enumerate() {
            known[i as usize] = Some(got.get(j));
        }
        memo.insert(missing.iter().map(|&i| {
            let i = i as usize;
            (
                hashes[i],
                known[i].clone().unwrap_or(crate::value::Value::Null),
            )
        }));
    }
    let mut v = Vector::empty(expr.ty, known.len() + 1);
    for k in &known {
        v.push(k.as_ref().unwrap_or(&crate::value::Value::Null));
    }
    let null_in = Vector::nulls(LType::Varchar, 1);
    v.append(&*eval(expr, 1, &OneColumn(&null_in))?);
    Ok(v)
}

fn values_for(kind: StateKind, v: &Vector) -> (ArgValues, Option<StrSource>) {
    if is_str_kind(kind) {
        let (a, sorted) = str_ranks(v);
        (a, Some(StrSource::Sorted(sorted)))
    } else {
        (ArgValues::new(kind, v), None)
    }
}

/// Replaces the block-local ranks of string MIN/MAX states (at state
/// offsets `srcs.0`) by references to their strings in the arena.
fn resolve_strs(
    out: &mut Groups,
    kw: usize,
    srcs: &[(usize, StrSource)],
    ctx: &BlockCtx,
    arena: &StrArena,
) -> Result<()> {
    let stride = out.stride;
    for (off, src) in srcs {
        let o = kw + off;
        let mut ranks: Vec<u64> = out.rows().filter(|r| r[o] > 0).map(|r| r[o + 1]).collect();
        ranks.sort_unstable();
        ranks.dedup();
        let strs: Vec<Vec<u8>> = match src {
            StrSource::Column(c) => ctx.strings_at(*c, &ranks)?,
            StrSource::Sorted(v) => ranks
                .iter()
                .map(|&r| v.get(r as usize).cloned().unwrap_or_default())
                .collect(),
        };
        let ids = arena.intern_all(&strs);
        for p in &mut out.pieces {
            for r in p.chunks_exact_mut(stride) {
                if r[o] > 0 {
                    if let Ok(i) = ranks.binary_search(&r[o + 1]) {
                        r[o + 1] = str_prefix(&strs[i]);
                        r[o + 2] = ids[i];
                    }
                }
            }
        }
    }
    Ok(())
}

/// Argument values of an aggregate over a block's selected `rows`, how
/// they are indexed, and for string MIN/MAX where their strings come from.
fn arg_values<'a>(
    slot: &AggSlot,
    ctx: &'a BlockCtx,
    rows: &[u32],
    per_row: Option<&Vector>,
) -> Result<(ArgValues, ArgIndex<'a>, Option<StrSource>)> {
    let kind = slot.kind;
    let Some(arg) = slot.pass_arg() else {
        return Ok((ArgValues::None, ArgIndex::Const, None));
    };
    let cols = arg.columns();
    Ok(match (cols.as_slice(), per_row) {
        ([], _) => {
            let v = const_arg(arg, || Ok(!rows.is_empty()))?;
            let (a, s) = values_for(kind, &v);
            (a, ArgIndex::Const, s)
        }
        // Evaluated at the rows already (several columns, or one with nearly
        // a value per row: see `build_groups`).
        (_, Some(v)) => {
            let (a, s) = values_for(kind, v);
            (a, ArgIndex::PerRow, s)
        }
        ([c], None) => {
            let n = ctx.chunk(*c)?.distinct();
            let codes = codes_at(ctx, *c, rows)?;
            let (a, s) = per_value_arg(arg, kind, ctx, *c, &|| Ok(used_values(&codes, n)))?;
            (a, ArgIndex::PerValue(codes, n), s)
        }
        (_, None) => {
            let (a, s) = values_for(kind, &ctx.eval_one_at(rows, arg)?);
            (a, ArgIndex::PerRow, s)
        }
    })
}

fn put_key(out: &mut Vec<u64>, p: &KeyPart, key: Option<u128>) {
    if p.nullable {
        out.push(u64::from(key.is_none()));
    }
    let k = key.unwrap_or(0);
    if p.value_words() == 2 {
        out.push((k >> 64) as u64);
        out.push(k as u64);
    } else {
        out.push(k as u64);
    }
}

/// Rows per chunk where aggregate arguments are evaluated at the rows a
/// chunk at a time (a few columns of 8-byte values: within L2).
const ROW_CHUNK: usize = 16 * 1024;

/// Builds the sorted vector of groups of one block's selected rows.
pub fn build_block(
    spec: &GroupSpec,
    ctx: &BlockCtx,
    filter: &BlockFilter,
    pool: &Pool,
) -> Result<Groups> {
    let mut srcs = Vec::new();
    let mut out = build_groups(spec, ctx, filter, pool, &mut srcs)?;
    if !srcs.is_empty() {
        resolve_strs(&mut out, spec.kw, &srcs, ctx, &spec.layout.arena)?;
    }
    Ok(out)
}

fn build_groups(
    spec: &GroupSpec,
    ctx: &BlockCtx,
    filter: &BlockFilter,
    pool: &Pool,
    str_srcs: &mut Vec<(usize, StrSource)>,
) -> Result<Groups> {
    let stride = spec.stride();
    let sw = spec.layout.words;
    let mut out = Groups::new(spec.kw, stride);
    let layout = &spec.layout;
    let mut row = Vec::with_capacity(stride);

    // No keys, or one raw key column with aggregates of that column only:
    // work per distinct value with multiplicities.
    let per_value = if spec.parts.is_empty() {
        Some(None)
    } else {
        spec.per_value_column().map(Some)
    };
    if let Some(key_col) = per_value {
        let multi_col_args = layout
            .slots
            .iter()
            .any(|s| s.pass_arg().is_some_and(|a| a.columns().len() > 1));
        if !multi_col_args {
            return per_value_groups(spec, ctx, filter, key_col, pool, str_srcs);
        }
    }

    let sel = filter.sel(ctx)?;
    if *sel == Sel::Empty {
        return Ok(out);
    }
    let rows = sel.rows(ctx.rows);
    let realized: Vec<Realized> = spec
        .parts
        .iter()
        .map(|p| realize(p, ctx, &rows))
        .collect::<Result<_>>()?;
    let cards: Vec<usize> = realized.iter().map(|r| r.keys.len() + 1).collect();
    // Each part's codes with NULL as its last code.
    let codes: Vec<std::borrow::Cow<[u32]>> = realized
        .iter()
        .zip(&cards)
        .map(|(r, &card)| {
            if r.codes.contains(&u32::MAX) {
                let null = (card - 1) as u32;
                std::borrow::Cow::Owned(r.codes.iter().map(|&c| c.min(null)).collect())
            } else {
                std::borrow::Cow::Borrowed(&*r.codes)
            }
        })
        .collect();
    let product = cards.iter().try_fold(1usize, |acc, &c| acc.checked_mul(c));
    let (gids, group_codes): (Vec<u32>, GroupCodes) = match product {
        Some(p) if p <= dense_limit(rows.len()) => {
            let mut strides = vec![1usize; cards.len()];
            for i in (0..cards.len().saturating_sub(1)).rev() {
                strides[i] = strides[i + 1] * cards[i + 1];
            }
            let mut gids = vec![0u32; rows.len()];
            for (part, &s) in codes.iter().zip(&strides) {
                for (g, &c) in gids.iter_mut().zip(part.iter()) {
                    *g += c * s as u32;
                }
            }
            (gids, GroupCodes::Dense { n: p, strides })
        }
        _ => sort_groups(rows.len(), &cards, &codes),
    };
    let n_groups = match &group_codes {
        GroupCodes::Dense { n, .. } => *n,
        GroupCodes::Sorted { codes, .. } => codes.len() / cards.len(),
    };
    let mut states = vec![0u64; n_groups * sw];
    for g in 0..n_groups {
        layout.init(&mut states[g * sw..(g + 1) * sw]);
    }
    // Rows in group order when the groups were sorted: the states are then
    // updated front to back instead of at random.
    let visit: std::borrow::Cow<[u32]> = match &group_codes {
        GroupCodes::Sorted { order, .. } => std::borrow::Cow::Borrowed(order),
        GroupCodes::Dense { .. } => std::borrow::Cow::Owned((0..gids.len() as u32).collect()),
    };
    for &j in visit.iter() {
        states[gids[j as usize] as usize * sw] += 1;
    }
    // Arguments evaluated at the rows, together: those of several columns,
    // and those of one column with nearly a value per row (looking each
    // row's value up in a per-value array that large misses the cache once
    // per aggregate; the rows' values are read once for all of them).
    // Each column is read, and each shared part computed, once.
    let at_rows = layout
        .slots
        .iter()
        .map(|s| {
            Ok(match s.pass_arg() {
                Some(a) => match a.columns().as_slice() {
                    [] => false,
                    [c] => {
                        !is_str_kind(s.kind)
                            && ctx.chunk(*c)?.distinct().saturating_mul(2) > rows.len()
                    }
                    _ => true,
                },
                None => false,
            })
        })
        .collect::<Result<Vec<bool>>>()?;
    // Sums of a column times factors of few-valued columns add the rows
    // once per (group, combination of the factors' values).
    let factored = Factored::find(layout, ctx, &rows, &at_rows, n_groups)?;
    let at_rows: Vec<bool> = at_rows
        .iter()
        .enumerate()
        .map(|(k, &at)| at && !factored.as_ref().is_some_and(|f| f.has(k)))
        .collect();
    let mut multi: Vec<&TExpr> = Vec::new();
    let arg_at: Vec<Option<usize>> = layout
        .slots
        .iter()
        .zip(&at_rows)
        .map(|(s, &at)| {
            let a = s.pass_arg().filter(|_| at)?;
            Some(multi.iter().position(|m| *m == a).unwrap_or_else(|| {
                multi.push(a);
                multi.len() - 1
            }))
        })
        .collect();
    // With dense group ids (rows visited in order), the arguments at the
    // rows are evaluated a chunk of rows at a time: each chunk's columns and
    // results stay in cache, and their memory is reused from chunk to chunk
    // where a block's worth would be fresh pages every time.
    let chunked = matches!(group_codes, GroupCodes::Dense { .. })
        && rows.len() > ROW_CHUNK
        && layout
            .slots
            .iter()
            .zip(&arg_at)
            .all(|(s, a)| a.is_none() || !is_str_kind(s.kind));
    let per_row = if chunked {
        Vec::new()
    } else {
        ctx.eval_at(&rows, &multi)?
    };
    let mut chunk_slots: Vec<usize> = Vec::new();
    let mut copies: Vec<(usize, usize, usize)> = Vec::new();
    for (k, s) in layout.slots.iter().enumerate() {
        // A call with the same state and argument as an earlier one (`sum(x)`
        // and `avg(x)`) copies its states once they are built.
        if let Some(first) = layout.slots[..k].iter().position(|t| {
            t.kind == s.kind
                && !is_str_kind(s.kind)
                && t.pass_arg().is_some()
                && t.pass_arg() == s.pass_arg()
                && t.call.filter == s.call.filter
        }) {
            let (from, to, w) = (layout.slots[first].off, s.off, s.kind.words());
            copies.push((from, to, w));
            continue;
        }
        if factored.as_ref().is_some_and(|f| f.has(k)) {
            continue;
        }
        if chunked && arg_at[k].is_some() {
            chunk_slots.push(k);
            continue;
        }
        let v = arg_at[k].map(|i| &per_row[i]);
        let (vals, idx, src) = arg_values(s, ctx, &rows, v)?;
        if let Some(src) = src {
            str_srcs.push((s.off, src));
        }
        if matches!(vals, ArgValues::None) {
            continue;
        }
        let group = |j: u32| gids[j as usize] as usize;
        match &idx {
            ArgIndex::Const => {
                let rows = visit.iter().map(|&j| (group(j), 0));
                vals.update_rows(s.kind, &mut states, sw, s.off, rows)
            }
            // Few values and groups: count each (group, value) pair, then
            // add each value once per group with its count.
            ArgIndex::PerValue(codes, n) if (n + 1) * n_groups <= PAIR_COUNTS_LIMIT => {
                let width = n + 1;
                let mut pairs = vec![0u32; width * n_groups];
                for &j in visit.iter() {
                    let c = (codes[j as usize] as usize).min(*n);
                    pairs[group(j) * width + c] += 1;
                }
                for (g, counts) in pairs.chunks_exact(width).enumerate() {
                    if counts.iter().any(|&c| c > 0) {
                        vals.update_counts(
                            s.kind,
                            &mut states[g * sw..(g + 1) * sw],
                            s.off,
                            counts,
                        );
                    }
                }
            }
            ArgIndex::PerValue(codes, n) => {
                let rows = visit.iter().map(|&j| {
                    let c = codes[j as usize];
                    (group(j), if c == u32::MAX { *n } else { c as usize })
                });
                vals.update_rows(s.kind, &mut states, sw, s.off, rows)
            }
            ArgIndex::PerRow => {
                let rows = visit.iter().map(|&j| (group(j), j as usize));
                vals.update_rows(s.kind, &mut states, sw, s.off, rows)
            }
        }
    }
    if !chunk_slots.is_empty() {
        // Every row's value index, and the values where the block's rows
        // would read them all, decoded once for the block (as its whole
        // evaluation would); each chunk reads its rows' from them.
        for c in crate::scan::block::columns_of(&multi) {
            ctx.codes(c)?;
            if rows.len() >= ctx.chunk(c)?.distinct() / 4 {
                ctx.values(c)?;
            }
        }
        for (ci, chunk) in rows.chunks(ROW_CHUNK).enumerate() {
            let base = ci * ROW_CHUNK;
            let at = ctx.eval_at(chunk, &multi)?;
            for &k in &chunk_slots {
                let (s, Some(i)) = (&layout.slots[k], arg_at[k]) else {
                    continue;
                };
                let (vals, _) = values_for(s.kind, &at[i]);
                let it = (0..chunk.len()).map(|r| (gids[base + r] as usize, r));
                vals.update_rows(s.kind, &mut states, sw, s.off, it);
            }
        }
    }
    if let Some(f) = &factored {
        f.add_rows(&gids, n_groups, &mut states, sw);
    }
    for st in states.chunks_exact_mut(sw) {
        for &(from, to, w) in &copies {
            st.copy_within(from..from + w, to);
        }
    }
    let block_tag = (ctx.block as u64) << 32;
    for g in 0..n_groups {
        let st = &mut states[g * sw..(g + 1) * sw];
        if st[0] == 0 {
            continue;
        }
        row.clear();
        for (pi, p) in spec.parts.iter().enumerate() {
            let code = match &group_codes {
                GroupCodes::Dense { strides, .. } => g / strides[pi] % cards[pi],
                GroupCodes::Sorted { codes, .. } => codes[g * cards.len() + pi] as usize,
            };
            let key = realized[pi].keys.get(code).copied();
            put_key(&mut row, p, key);
            if let (Some(w), Some(_)) = (p.witness, key) {
                let at = match &realized[pi].wit {
                    Some(rows) => rows.get(code).copied().unwrap_or(0) as u64,
                    None => code as u64,
                };
                st[w] = block_tag | at;
            }
        }
        row.extend_from_slice(st);
        out.push(&row, pool);
    }
    Ok(out)
}

/// Most (group, value) pairs an aggregate over one column's values counts
/// before adding them to the states (see `build_groups`): 256 KiB of
/// counts, which stay in the cache while the rows are counted.
const PAIR_COUNTS_LIMIT: usize = 1 << 16;

/// How a block's group ids map back to key codes.
enum GroupCodes {
    /// Group id = sum of code x stride over the parts.
    Dense { n: usize, strides: Vec<usize> },
    /// Group `g`'s codes at `codes[g * parts..(g + 1) * parts]`; `order`
    /// lists the rows by group.
    Sorted { codes: Vec<u32>, order: Vec<u32> },
}

/// Sorts the selected rows by their key codes (`codes[part][row]`, each
/// part's codes dense below its cardinality): a stable counting sort per
/// part, last part first (LSD radix), so the whole sort is linear in the
/// rows plus the code spaces. Returns each row's group id and the groups'
/// codes.
fn sort_groups(
    n: usize,
    cards: &[usize],
    codes: &[std::borrow::Cow<[u32]>],
) -> (Vec<u32>, GroupCodes) {
    let mut order: Vec<u32> = (0..n as u32).collect();
    let mut next = vec![0u32; n];
    let mut counts: Vec<u32> = Vec::new();
    for (part, &card) in codes.iter().zip(cards).rev() {
        if card <= 1 {
            continue;
        }
        counts.clear();
        counts.resize(card + 1, 0);
        for &c in part.iter() {
            counts[c as usize + 1] += 1;
        }
        for i in 0..card {
            counts[i + 1] += counts[i];
        }
        for &j in &order {
            let c = part[j as usize] as usize;
            next[counts[c] as usize] = j;
            counts[c] += 1;
        }
        std::mem::swap(&mut order, &mut next);
    }
    let nparts = cards.len();
    let mut gids = vec![0u32; n];
    let mut groups: Vec<u32> = Vec::new();
    let mut n_groups = 0u32;
    let mut prev: Option<u32> = None;
    for &j in &order {
        let same = prev.is_some_and(|p| codes.iter().all(|c| c[p as usize] == c[j as usize]));
        if !same {
            groups.extend(codes.iter().map(|c| c[j as usize]));
            n_groups += 1;
        }
        gids[j as usize] = n_groups - 1;
        prev = Some(j);
    }
    debug_assert_eq!(groups.len(), n_groups as usize * nparts);
    (
        gids,
        GroupCodes::Sorted {
            codes: groups,
            order,
        },
    )
}

/// A constant aggregate argument's value. Its evaluation error (a cast out
/// of range) is raised only where a selected row evaluates it: over no
/// selected rows the argument is never computed, as in DuckDB, and a NULL
/// of its type stands in.
fn const_arg(arg: &TExpr, any_rows: impl FnOnce() -> Result<bool>) -> Result<Vector> {
    match eval(arg, 1, &Columns(Vec::new())) {
        Ok(v) => Ok(v.into_owned()),
        Err(e) if any_rows()? => Err(e),
        Err(_) => Ok(Vector::constant(arg.ty, &Value::Null, 1)),
    }
}

/// Per distinct value, the selected rows holding it; and selected NULL rows.
type FilteredCounts = (Vec<u32>, u32);

/// Groups of a block without a row pass: one group (no keys) or one group
/// per distinct value of the key column, with per-value multiplicities.
fn per_value_groups(
    spec: &GroupSpec,
    ctx: &BlockCtx,
    filter: &BlockFilter,
    key_col: Option<usize>,
    pool: &Pool,
    str_srcs: &mut Vec<(usize, StrSource)>,
) -> Result<Groups> {
    let layout = &spec.layout;
    let sw = layout.words;
    let stride = spec.stride();
    let mut out = Groups::new(spec.kw, stride);
    // Per aggregate: (values per distinct value of its column + NULL input,
    // filtered counts per value, NULL count), or a constant.
    struct Src {
        vals: ArgValues,
        counts: Option<Rc<FilteredCounts>>,
    }
    let mut srcs = Vec::new();
    // Shared, not copied: a column's counts are as long as its distinct
    // values (a block's rows for a key like UserID).
    let count_cache: std::cell::RefCell<Vec<(usize, Rc<FilteredCounts>)>> = Default::default();
    let fcounts = |c: usize| -> Result<Rc<FilteredCounts>> {
        if let Some((_, v)) = count_cache.borrow().iter().find(|(x, _)| *x == c) {
            return Ok(Rc::clone(v));
        }
        let v = Rc::new(filter.counts(ctx, c)?);
        count_cache.borrow_mut().push((c, Rc::clone(&v)));
        Ok(v)
    };
    for s in &layout.slots {
        let src = match s.pass_arg() {
            None => Src {
                vals: ArgValues::None,
                counts: None,
            },
            Some(arg) => match arg.columns().as_slice() {
                [] => {
                    let v = const_arg(arg, || Ok(filter.count(ctx)? > 0))?;
                    let (vals, src) = values_for(s.kind, &v);
                    if let Some(src) = src {
                        str_srcs.push((s.off, src));
                    }
                    Src { vals, counts: None }
                }
                [c] => {
                    let used = || {
                        let counts = fcounts(*c)?;
                        let (cnt, nulls) = &*counts;
                        let mut used: Vec<bool> = cnt.iter().map(|&n| n > 0).collect();
                        used.push(*nulls > 0);
                        Ok(used)
                    };
                    let (vals, src) = per_value_arg(arg, s.kind, ctx, *c, &used)?;
                    if let Some(src) = src {
                        str_srcs.push((s.off, src));
                    }
                    Src {
                        vals,
                        counts: Some(fcounts(*c)?),
                    }
                }
                _ => return crate::error::internal("per-value aggregation of several columns"),
            },
        };
        srcs.push(src);
    }
    let mut row: Vec<u64> = Vec::with_capacity(stride);
    match key_col {
        None => {
            let total = filter.count(ctx)? as u64;
            if total == 0 {
                return Ok(out);
            }
            let mut st = vec![0u64; sw];
            layout.init(&mut st);
            st[0] = total;
            for (s, src) in layout.slots.iter().zip(&srcs) {
                match src.counts.as_deref() {
                    None => src.vals.update(s.kind, &mut st, s.off, 0, total),
                    Some((cnt, nulls)) => {
                        src.vals.update_counts(s.kind, &mut st, s.off, cnt);
                        if *nulls > 0 {
                            src.vals
                                .update(s.kind, &mut st, s.off, cnt.len(), u64::from(*nulls));
                        }
                    }
                }
            }
            out.push(&st, pool);
        }
        Some(c) => {
            let counts = fcounts(c)?;
            let (cnt, nulls) = (&counts.0, counts.1);
            let part = &spec.parts[0];
            let keys: Vec<u128> = match part.kind {
                PartKind::RawStr(_) => ctx.chunk(c)?.hashes()?.as_slice().to_vec(),
                _ => ctx.keys(c)?.iter().map(|&k| u128::from(k)).collect(),
            };
            let block_tag = (ctx.block as u64) << 32;
            let mut st = vec![0u64; sw];
            let n = cnt.len();
            for i in 0..=n {
                let m = if i < n { cnt[i] } else { nulls };
                if m == 0 {
                    continue;
                }
                layout.init(&mut st);
                st[0] = u64::from(m);
                for (s, src) in layout.slots.iter().zip(&srcs) {
                    let vi = if src.counts.is_some() { i } else { 0 };
                    src.vals.update(s.kind, &mut st, s.off, vi, u64::from(m));
                }
                row.clear();
                let key = if i < n { Some(keys[i]) } else { None };
                put_key(&mut row, part, key);
                if let (Some(w), Some(_)) = (part.witness, key) {
                    st[w] = block_tag | i as u64;
                }
                row.extend_from_slice(&st);
                out.push(&row, pool);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;

    fn vector(vals: &[Option<i64>]) -> Vector {
        let mut v = Vector::empty(LType::Int64, vals.len());
        for x in vals {
            v.push(&x.map_or(Value::Null, Value::Int));
        }
        v
    }

    #[test]
    fn dedup_keys_sorted_and_unsorted_agree() {
        let sorted = vector(&[Some(1), Some(1), Some(3), None, Some(3), Some(7)]);
        let shuffled = vector(&[Some(7), Some(1), None, Some(3), Some(1), Some(3)]);
        let (c1, k1) = dedup_keys(&sorted, false);
        let (c2, k2) = dedup_keys(&shuffled, false);
        assert_eq!(k1, k2);
        assert_eq!(k1.len(), 3);
        assert_eq!(c1, [0, 0, 1, u32::MAX, 1, 2]);
        assert_eq!(c2, [2, 0, u32::MAX, 1, 0, 1]);
    }
}

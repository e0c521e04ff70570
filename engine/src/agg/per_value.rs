//! Aggregate inputs per distinct value of one column: the rows' codes, an
//! expression of the column evaluated once per value, and which values the
//! selected rows hold.

use crate::error::Result;
use crate::expr::{eval, OneColumn, TExpr};
use crate::scan::block::BlockCtx;
use crate::value::{vector_of_keys, LType, Vector};

/// Row codes of column `c` at `rows` (by position): the decoded codes
/// themselves when every row is selected.
pub fn codes_at<'a>(
    ctx: &'a BlockCtx,
    c: usize,
    rows: &[u32],
) -> Result<std::borrow::Cow<'a, [u32]>> {
    Ok(if rows.len() == ctx.rows as usize {
        std::borrow::Cow::Borrowed(ctx.codes(c)?)
    } else {
        std::borrow::Cow::Owned(ctx.codes_at(c, rows)?)
    })
}

/// `expr` (of column `c` only) at each distinct value of `c` in value
/// order, then at NULL. The byte length of a stored string comes from the
/// dictionary's length table without decompressing any string.
///
/// Where evaluating at every value fails, `used` tells which values (NULL
/// last) the selected rows hold, and only those are evaluated.
pub fn eval_per_value(
    expr: &TExpr,
    ctx: &BlockCtx,
    c: usize,
    used: &dyn Fn() -> Result<Vec<bool>>,
) -> Result<Vector> {
    if let crate::expr::ExprKind::StrLen(inner) = &expr.kind {
        if inner.as_col() == Some(c) {
            let chunk = ctx.chunk(c)?;
            let dict = chunk.dictionary()?;
            let positions = dict.str_positions()?;
            let mut v = Vector::empty(expr.ty, positions.len() + 1);
            for pos in positions {
                v.push(&crate::value::Value::Int(dict.len_of(pos as usize) as i64));
            }
            v.push(&crate::value::Value::Null);
            return Ok(v);
        }
    }
    let vals = ctx.values(c)?;
    let every = || -> Result<Vector> {
        let mut v = eval(expr, vals.len(), &OneColumn(vals))?.into_owned();
        let null_in = Vector::nulls(vals.ty, 1);
        v.append(&*eval(expr, 1, &OneColumn(&null_in))?);
        Ok(v)
    };
    match every() {
        Ok(v) => Ok(v),
        // A value no selected row holds may fail where the rows' values
        // do not (a cast out of range, a division by zero): the error
        // stands only if a used value raises it.
        Err(_) => eval_at_used_values(expr, vals, &used()?),
    }
}

/// Which of a column's `distinct` values (NULL last) the codes hold.
pub fn used_values(codes: &[u32], distinct: usize) -> Vec<bool> {
    let mut used = vec![false; distinct + 1];
    for &x in codes {
        used[(x as usize).min(distinct)] = true;
    }
    used
}

/// `expr` at the distinct values `vals` (NULL input last) that `used`
/// marks, NULL at the others.
fn eval_at_used_values(expr: &TExpr, vals: &Vector, used: &[bool]) -> Result<Vector> {
    let at: Vec<u32> = (0..used.len() as u32)
        .filter(|&i| used[i as usize])
        .collect();
    // Index vals.len() gathers NULL: the NULL input.
    let input = vals.gather(&at);
    let input = OneColumn(&input);
    let got = eval(expr, at.len(), &input)?;
    let mut pos = vec![u32::MAX; used.len()];
    for (j, &i) in at.iter().enumerate() {
        pos[i as usize] = j as u32;
    }
    Ok(got.gather(&pos))
}

/// `expr` (of fixed-width column `c` only) at just the values that `codes`
/// (a column's row codes, NULL as any code past its values) hold, for rows
/// far fewer than the column's values: the values in value order, then the
/// NULL input, with the codes renumbered into them (NULL as the last). No
/// other value is decoded or evaluated, so no other value can fail.
pub fn eval_at_codes(
    expr: &TExpr,
    ctx: &BlockCtx,
    c: usize,
    codes: &[u32],
) -> Result<(Vector, Vec<u32>)> {
    let chunk = ctx.chunk(c)?;
    let n = chunk.distinct();
    let mut held: Vec<u32> = codes
        .iter()
        .copied()
        .filter(|&x| (x as usize) < n)
        .collect();
    held.sort_unstable();
    held.dedup();
    let keys = chunk.keys()?;
    let held_keys: Vec<u64> = held.iter().map(|&v| keys.get(v as usize)).collect();
    let vals = vector_of_keys(ctx.ty(c), &held_keys);
    let mut out = eval(expr, vals.len(), &OneColumn(&vals))?.into_owned();
    out.append(&*eval(expr, 1, &OneColumn(&Vector::nulls(vals.ty, 1)))?);
    let null = held.len() as u32;
    let renumbered = codes
        .iter()
        .map(|x| held.binary_search(x).map_or(null, |i| i as u32))
        .collect();
    Ok((out, renumbered))
}

/// Whether [`eval_at_codes`] serves `rows` selected rows of column `c`
/// better than evaluating at every value: a fixed-width column with more
/// than twice as many values as rows.
pub fn sparse_values(ctx: &BlockCtx, c: usize, rows: usize) -> Result<bool> {
    Ok(ctx.ty(c) != LType::Varchar && rows.saturating_mul(2) < ctx.chunk(c)?.distinct())
}

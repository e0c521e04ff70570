//! Bound scalar expressions and their vectorised evaluation.
//!
//! One evaluator serves every level: over the sorted distinct values of one
//! column (an expression of one column is evaluated once per distinct
//! value), over gathered rows (expressions of several columns) and over
//! groups after aggregation (`Ref` slots).

pub mod datetime;
pub mod fmt;
pub mod like;
pub mod math;
pub mod memo;
pub mod order;
pub mod rounding;
pub mod scalar;
pub mod strfn;
pub mod text;

use std::borrow::Cow;

use crate::error::{EngineError, Result};
use crate::strs::Strs;
use crate::value::{
    decimal_to_f64, format_date, format_decimal_text, format_float_text, format_timestamp,
    parse_date, parse_timestamp, Data, LType, Phys, Value, Vector, MICROS_PER_DAY, MICROS_PER_SEC,
};

/// Arithmetic operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (always DOUBLE division)
    Div,
    /// `//` (integer division, truncating)
    IntDiv,
    /// `%` (the sign follows the dividend)
    Mod,
}

impl ArithOp {
    fn symbol(self) -> &'static str {
        match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::Div => "/",
            ArithOp::IntDiv => "//",
            ArithOp::Mod => "%",
        }
    }

    fn verb(self) -> &'static str {
        match self {
            ArithOp::Add => "addition",
            ArithOp::Sub => "subtraction",
            ArithOp::Mul => "multiplication",
            _ => "division",
        }
    }
}

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `=`
    Eq,
    /// `<>`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CmpOp {
    /// The operator with its operands swapped (`a < b` is `b > a`).
    pub fn flip(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            o => o,
        }
    }

    /// The negated operator (`NOT a < b` is `a >= b`, NULLs staying NULL).
    pub fn negate(self) -> CmpOp {
        match self {
            CmpOp::Eq => CmpOp::Ne,
            CmpOp::Ne => CmpOp::Eq,
            CmpOp::Lt => CmpOp::Ge,
            CmpOp::Le => CmpOp::Gt,
            CmpOp::Gt => CmpOp::Le,
            CmpOp::Ge => CmpOp::Lt,
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::Ne => "<>",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }

    #[inline]
    fn test(self, o: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::*;
        match self {
            CmpOp::Eq => o == Equal,
            CmpOp::Ne => o != Equal,
            CmpOp::Lt => o == Less,
            CmpOp::Le => o != Greater,
            CmpOp::Gt => o == Greater,
            CmpOp::Ge => o != Less,
        }
    }
}

/// Parts of dates and timestamps for `EXTRACT` and `DATE_TRUNC`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DatePart {
    /// Year.
    Year,
    /// Month (1-12).
    Month,
    /// Day of the month.
    Day,
    /// Hour.
    Hour,
    /// Minute.
    Minute,
    /// Second (EXTRACT: the whole seconds of the minute).
    Second,
    /// Millisecond (EXTRACT: the minute's seconds in milliseconds).
    Millisecond,
    /// Microsecond (EXTRACT: the minute's seconds in microseconds).
    Microsecond,
    /// Day of the week (Sunday = 0).
    Dow,
    /// Day of the year (1-366).
    Doy,
    /// Seconds since the epoch.
    Epoch,
    /// Quarter (1-4).
    Quarter,
    /// ISO week (1-53; weeks start on Monday).
    Week,
    /// ISO day of the week (Monday = 1 .. Sunday = 7).
    IsoDow,
    /// ISO year (the year of the week's Thursday).
    IsoYear,
    /// Decade (the year divided by 10).
    Decade,
    /// Century (2000 is in the 20th, 2001 in the 21st).
    Century,
    /// Millennium (2000 is in the 2nd, 2001 in the 3rd).
    Millennium,
    /// Era: 1 for years AD, 0 before.
    Era,
    /// ISO year times 100 plus ISO week.
    YearWeek,
}

/// A bound expression with its result type.
#[derive(Debug, Clone, PartialEq)]
pub struct TExpr {
    /// What it computes.
    pub kind: ExprKind,
    /// Its result type.
    pub ty: LType,
}

/// The kinds of bound expressions.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// A table column (before aggregation).
    Col(usize),
    /// An output slot of the aggregation: a group key or an aggregate.
    Ref(usize),
    /// While binding a correlated subquery: the `i`-th column of an
    /// enclosing query it refers to (replaced before planning).
    Outer(usize),
    /// While binding: the result of the `i`-th subquery of an expression
    /// (replaced by a column of the join that computes it).
    Subquery(usize),
    /// While binding: the result of the `i`-th window function call of a
    /// SELECT (replaced by a column of the Window node that computes it).
    Window(usize),
    /// A constant.
    Lit(Value),
    /// Unary minus.
    Neg(Box<TExpr>),
    /// Logical NOT (three-valued).
    Not(Box<TExpr>),
    /// Arithmetic on operands already cast to a common type.
    Arith(ArithOp, Box<TExpr>, Box<TExpr>),
    /// Comparison of operands already cast to a common type.
    Cmp(CmpOp, Box<TExpr>, Box<TExpr>),
    /// Conjunction (three-valued).
    And(Vec<TExpr>),
    /// Disjunction (three-valued).
    Or(Vec<TExpr>),
    /// `IS NULL` (or `IS NOT NULL` when the flag is set).
    IsNull(Box<TExpr>, bool),
    /// `x IN (constants)`, negated when the flag is set.
    InList(Box<TExpr>, Vec<Value>, bool),
    /// A cast to this expression's type.
    Cast(Box<TExpr>),
    /// `EXTRACT(part FROM x)`.
    Extract(DatePart, Box<TExpr>),
    /// `DATE_TRUNC(part, x)`.
    DateTrunc(DatePart, Box<TExpr>),
    /// `CASE WHEN c THEN v ... ELSE e END` (branches cast to the result type).
    Case(Vec<(TExpr, TExpr)>, Option<Box<TExpr>>),
    /// `x [NOT] [I]LIKE pattern` with a constant pattern.
    Like(Box<TExpr>, Box<crate::expr::like::LikePattern>, bool),
    /// Length of a string in bytes (`STRLEN`, `OCTET_LENGTH`).
    StrLen(Box<TExpr>),
    /// A string function (see [`crate::expr::strfn`]).
    Str(Box<crate::expr::strfn::StrFn>, Vec<TExpr>),
    /// Another scalar function (see [`crate::expr::scalar`]).
    Func(Box<crate::expr::scalar::Func>, Vec<TExpr>),
}

impl TExpr {
    /// A constant.
    pub fn lit(v: Value, ty: LType) -> TExpr {
        TExpr {
            kind: ExprKind::Lit(v),
            ty,
        }
    }

    /// The direct children.
    pub fn children(&self) -> Vec<&TExpr> {
        match &self.kind {
            ExprKind::Col(_)
            | ExprKind::Ref(_)
            | ExprKind::Lit(_)
            | ExprKind::Outer(_)
            | ExprKind::Subquery(_)
            | ExprKind::Window(_) => vec![],
            ExprKind::Neg(e)
            | ExprKind::Not(e)
            | ExprKind::IsNull(e, _)
            | ExprKind::InList(e, _, _)
            | ExprKind::Cast(e)
            | ExprKind::Extract(_, e)
            | ExprKind::DateTrunc(_, e)
            | ExprKind::Like(e, _, _)
            | ExprKind::StrLen(e) => vec![e],
            ExprKind::Arith(_, a, b) | ExprKind::Cmp(_, a, b) => vec![a, b],
            ExprKind::And(v) | ExprKind::Or(v) | ExprKind::Str(_, v) | ExprKind::Func(_, v) => {
                v.iter().collect()
            }
            ExprKind::Case(w, e) => {
                let mut out: Vec<&TExpr> = w.iter().flat_map(|(a, b)| [a, b]).collect();
                if let Some(e) = e {
                    out.push(e);
                }
                out
            }
        }
    }

    /// Calls `f` on each direct child, mutably.
    pub fn for_each_child_mut(&mut self, f: &mut dyn FnMut(&mut TExpr)) {
        match &mut self.kind {
            ExprKind::Col(_)
            | ExprKind::Ref(_)
            | ExprKind::Lit(_)
            | ExprKind::Outer(_)
            | ExprKind::Subquery(_)
            | ExprKind::Window(_) => {}
            ExprKind::Neg(x)
            | ExprKind::Not(x)
            | ExprKind::IsNull(x, _)
            | ExprKind::InList(x, _, _)
            | ExprKind::Cast(x)
            | ExprKind::Extract(_, x)
            | ExprKind::DateTrunc(_, x)
            | ExprKind::Like(x, _, _)
            | ExprKind::StrLen(x) => f(x),
            ExprKind::Arith(_, a, b) | ExprKind::Cmp(_, a, b) => {
                f(a);
                f(b);
            }
            ExprKind::And(v) | ExprKind::Or(v) | ExprKind::Str(_, v) | ExprKind::Func(_, v) => {
                v.iter_mut().for_each(f)
            }
            ExprKind::Case(w, el) => {
                for (a, b) in w {
                    f(a);
                    f(b);
                }
                if let Some(x) = el {
                    f(x);
                }
            }
        }
    }

    /// The expression rebuilt bottom-up: each node (its children already
    /// rebuilt) replaced by `f` of it.
    pub fn transform(mut self, f: &mut dyn FnMut(TExpr) -> TExpr) -> TExpr {
        self.for_each_child_mut(&mut |c| {
            let taken = std::mem::replace(c, TExpr::lit(Value::Null, LType::Null));
            *c = taken.transform(f);
        });
        f(self)
    }

    /// The expression with every `Col(i)` replaced by `exprs[i]` (a column
    /// out of range is left as it is).
    pub fn substitute(self, exprs: &[TExpr]) -> TExpr {
        self.transform(&mut |e| match e.kind {
            ExprKind::Col(i) if i < exprs.len() => exprs[i].clone(),
            _ => e,
        })
    }

    /// The expression with `Col(i)` renumbered to `Col(f(i))`.
    pub fn map_columns(self, f: &dyn Fn(usize) -> usize) -> TExpr {
        self.transform(&mut |e| match e.kind {
            ExprKind::Col(i) => TExpr {
                kind: ExprKind::Col(f(i)),
                ty: e.ty,
            },
            _ => e,
        })
    }

    /// The expression with every `Col(i)` turned into the slot reference
    /// `Ref(i)` (an expression over an aggregation's output as the table
    /// engine evaluates it).
    pub fn cols_to_refs(self) -> TExpr {
        self.transform(&mut |e| match e.kind {
            ExprKind::Col(i) => TExpr {
                kind: ExprKind::Ref(i),
                ty: e.ty,
            },
            _ => e,
        })
    }

    /// The expression with every slot reference `Ref(i)` turned into
    /// `Col(i)`.
    pub fn refs_to_cols(self) -> TExpr {
        self.transform(&mut |e| match e.kind {
            ExprKind::Ref(i) => TExpr {
                kind: ExprKind::Col(i),
                ty: e.ty,
            },
            _ => e,
        })
    }

    /// The depth of the tree (a leaf is 1), counted without recursion.
    pub fn depth(&self) -> usize {
        let mut max = 0;
        let mut stack = vec![(self, 1usize)];
        while let Some((e, d)) = stack.pop() {
            max = max.max(d);
            stack.extend(e.children().into_iter().map(|c| (c, d + 1)));
        }
        max
    }

    /// Whether the expression reads no column, slot, outer column or
    /// subquery (a constant).
    pub fn is_constant(&self) -> bool {
        let mut constant = true;
        self.walk(&mut |x| {
            if matches!(
                x.kind,
                ExprKind::Col(_)
                    | ExprKind::Ref(_)
                    | ExprKind::Outer(_)
                    | ExprKind::Subquery(_)
                    | ExprKind::Window(_)
            ) {
                constant = false;
            }
        });
        constant
    }

    /// The table columns referenced, sorted and deduplicated.
    pub fn columns(&self) -> Vec<usize> {
        let mut out = Vec::new();
        self.walk(&mut |e| {
            if let ExprKind::Col(c) = e.kind {
                out.push(c);
            }
        });
        out.sort_unstable();
        out.dedup();
        out
    }

    /// True if any `Ref` occurs.
    pub fn has_refs(&self) -> bool {
        let mut any = false;
        self.walk(&mut |e| any |= matches!(e.kind, ExprKind::Ref(_)));
        any
    }

    /// Calls `f` on every node, parents first.
    pub fn walk(&self, f: &mut dyn FnMut(&TExpr)) {
        f(self);
        for c in self.children() {
            c.walk(f);
        }
    }

    /// The constant value if this is a literal.
    pub fn as_lit(&self) -> Option<&Value> {
        match &self.kind {
            ExprKind::Lit(v) => Some(v),
            _ => None,
        }
    }

    /// Whether this is a bare column.
    pub fn as_col(&self) -> Option<usize> {
        match self.kind {
            ExprKind::Col(c) => Some(c),
            _ => None,
        }
    }
}

impl std::fmt::Display for TExpr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            ExprKind::Col(c) => write!(f, "#{c}"),
            ExprKind::Ref(r) => write!(f, "@{r}"),
            ExprKind::Outer(r) => write!(f, "outer#{r}"),
            ExprKind::Subquery(r) => write!(f, "subquery#{r}"),
            ExprKind::Window(r) => write!(f, "window#{r}"),
            ExprKind::Lit(v) => match v {
                Value::Str(_) => write!(f, "'{}'", crate::value::format_value(self.ty, v)),
                _ => f.write_str(&crate::value::format_value(self.ty, v)),
            },
            ExprKind::Neg(e) => write!(f, "-({e})"),
            ExprKind::Not(e) => write!(f, "NOT ({e})"),
            ExprKind::Arith(op, a, b) => write!(f, "({a} {} {b})", op.symbol()),
            ExprKind::Cmp(op, a, b) => write!(f, "({a} {} {b})", op.symbol()),
            ExprKind::And(v) => join(f, v, " AND "),
            ExprKind::Or(v) => join(f, v, " OR "),
            ExprKind::IsNull(e, neg) => {
                write!(f, "({e} IS {}NULL)", if *neg { "NOT " } else { "" })
            }
            ExprKind::InList(e, l, neg) => write!(
                f,
                "({e} {}IN [{} values])",
                if *neg { "NOT " } else { "" },
                l.len()
            ),
            ExprKind::Cast(e) => write!(f, "CAST({e} AS {})", self.ty),
            ExprKind::Extract(p, e) => write!(f, "EXTRACT({p:?} FROM {e})"),
            ExprKind::DateTrunc(p, e) => write!(f, "DATE_TRUNC({p:?}, {e})"),
            ExprKind::Case(w, e) => {
                f.write_str("CASE")?;
                for (c, v) in w {
                    write!(f, " WHEN {c} THEN {v}")?;
                }
                if let Some(e) = e {
                    write!(f, " ELSE {e}")?;
                }
                f.write_str(" END")
            }
            ExprKind::Like(e, p, neg) => write!(
                f,
                "({e} {}{}LIKE '{}')",
                if *neg { "NOT " } else { "" },
                if p.ci { "I" } else { "" },
                String::from_utf8_lossy(&p.text)
            ),
            ExprKind::StrLen(e) => write!(f, "STRLEN({e})"),
            ExprKind::Str(func, args) => {
                write!(f, "{}", func.name())?;
                join(f, args, ", ")
            }
            ExprKind::Func(func, args) => {
                use crate::expr::{rounding::Rounding, scalar::Func};
                write!(f, "{}", func.name())?;
                match **func {
                    Func::Rounding(Rounding::Round(n) | Rounding::Trunc(n)) if n != 0 => {
                        let [x] = args.as_slice() else {
                            return join(f, args, ", ");
                        };
                        write!(f, "({x}, {n})")
                    }
                    _ => join(f, args, ", "),
                }
            }
        }
    }
}

fn join(f: &mut std::fmt::Formatter<'_>, v: &[TExpr], sep: &str) -> std::fmt::Result {
    f.write_str("(")?;
    for (i, e) in v.iter().enumerate() {
        if i > 0 {
            f.write_str(sep)?;
        }
        write!(f, "{e}")?;
    }
    f.write_str(")")
}

/// The conjuncts of a predicate.
pub fn conjuncts(p: TExpr) -> Vec<TExpr> {
    match p.kind {
        ExprKind::And(v) => v.into_iter().flat_map(conjuncts).collect(),
        _ => vec![p],
    }
}

/// The conjunction of predicates (`None` for none).
pub fn conjunction(mut v: Vec<TExpr>) -> Option<TExpr> {
    match v.len() {
        0 => None,
        1 => v.pop(),
        _ => Some(TExpr {
            kind: ExprKind::And(v),
            ty: LType::Bool,
        }),
    }
}

/// Where an evaluation finds its leaves.
pub trait Inputs {
    /// The vector of table column `col`.
    fn column(&self, col: usize) -> Result<&Vector>;
    /// The vector of output slot `slot`.
    fn slot(&self, _slot: usize) -> Result<&Vector> {
        Err(EngineError::Internal(
            "slot reference outside aggregation".into(),
        ))
    }
}

/// `v IN (list)` over strings, comparing bytes (no hash per value): TRUE
/// where `v` is in the list, NULL where it is NULL or absent from a list
/// holding a NULL, else FALSE (negated with `neg`).
fn str_in_list(v: &Vector, d: &Strs, list: &[Value], has_null: bool, neg: bool) -> Vector {
    let mut set: Vec<&[u8]> = list
        .iter()
        .filter_map(|l| match l {
            Value::Str(s) => Some(s.as_slice()),
            _ => None,
        })
        .collect();
    set.sort_unstable();
    let mut vals = Vec::with_capacity(d.len());
    let mut nulls = vec![false; d.len()];
    for (i, s) in d.iter().enumerate() {
        if v.is_null(i) {
            nulls[i] = true;
            vals.push(false);
            continue;
        }
        let found = set.binary_search(&s).is_ok();
        nulls[i] = !found && has_null;
        vals.push(found != neg);
    }
    Vector {
        ty: LType::Bool,
        data: Data::Bool(vals),
        nulls: nulls.iter().any(|&x| x).then_some(nulls),
    }
}

/// `e` over `len` rows of which only those `needed` marks matter: where
/// evaluating every row fails, only the needed rows are evaluated (the
/// others are NULL), so an error on a row the result ignores is no error.
pub fn eval_where<'a>(
    e: &TExpr,
    len: usize,
    inp: &'a dyn Inputs,
    needed: &[bool],
) -> Result<Cow<'a, Vector>> {
    if !needed.contains(&false) {
        return eval(e, len, inp);
    }
    if !needed.contains(&true) {
        return Ok(Cow::Owned(Vector::nulls(e.ty, len)));
    }
    let err = match eval(e, len, inp) {
        Ok(v) => return Ok(v),
        Err(err) => err,
    };
    let at: Vec<u32> = (0..len as u32).filter(|&i| needed[i as usize]).collect();
    let mut cols = Vec::new();
    let mut slots = Vec::new();
    collect_inputs(e, &mut cols, &mut slots);
    let gather = |v: &Vector| v.gather(&at);
    let sub = Gathered {
        cols: cols
            .iter()
            .map(|&c| Ok((c, gather(inp.column(c)?))))
            .collect::<Result<_>>()?,
        slots: slots
            .iter()
            .map(|&s| Ok((s, gather(inp.slot(s)?))))
            .collect::<Result<_>>()?,
    };
    // The error stands if a needed row raises it.
    let got = eval(e, at.len(), &sub).map_err(|_| err)?;
    let mut pos = vec![u32::MAX; len];
    for (j, &i) in at.iter().enumerate() {
        pos[i as usize] = j as u32;
    }
    let mut out = got.gather(&pos);
    out.ty = e.ty;
    Ok(Cow::Owned(out))
}

/// The table columns and output slots `e` reads.
fn collect_inputs(e: &TExpr, cols: &mut Vec<usize>, slots: &mut Vec<usize>) {
    match &e.kind {
        ExprKind::Col(c) if !cols.contains(c) => cols.push(*c),
        ExprKind::Ref(r) if !slots.contains(r) => slots.push(*r),
        _ => e
            .children()
            .into_iter()
            .for_each(|x| collect_inputs(x, cols, slots)),
    }
}

/// Inputs gathered at some rows.
struct Gathered {
    cols: Vec<(usize, Vector)>,
    slots: Vec<(usize, Vector)>,
}

impl Inputs for Gathered {
    fn column(&self, col: usize) -> Result<&Vector> {
        self.cols
            .iter()
            .find(|(c, _)| *c == col)
            .map(|(_, v)| v)
            .ok_or_else(|| EngineError::Internal(format!("column {col} not gathered")))
    }

    fn slot(&self, slot: usize) -> Result<&Vector> {
        self.slots
            .iter()
            .find(|(s, _)| *s == slot)
            .map(|(_, v)| v)
            .ok_or_else(|| EngineError::Internal(format!("slot {slot} not gathered")))
    }
}

/// Inputs where every column is the same vector (an expression of one
/// column evaluated over that column's distinct values).
pub struct OneColumn<'a>(pub &'a Vector);

impl Inputs for OneColumn<'_> {
    fn column(&self, _col: usize) -> Result<&Vector> {
        Ok(self.0)
    }
}

/// Inputs given as `(column, vector)` pairs.
pub struct Columns<'a>(pub Vec<(usize, &'a Vector)>);

impl Inputs for Columns<'_> {
    fn column(&self, col: usize) -> Result<&Vector> {
        self.0
            .iter()
            .find(|(c, _)| *c == col)
            .map(|(_, v)| *v)
            .ok_or_else(|| EngineError::Internal(format!("column {col} not loaded")))
    }
}

/// Evaluates `e` over inputs of `len` rows.
pub fn eval<'a>(e: &TExpr, len: usize, inp: &'a dyn Inputs) -> Result<Cow<'a, Vector>> {
    Ok(match &e.kind {
        ExprKind::Col(c) => Cow::Borrowed(inp.column(*c)?),
        ExprKind::Ref(r) => Cow::Borrowed(inp.slot(*r)?),
        ExprKind::Outer(_) | ExprKind::Subquery(_) | ExprKind::Window(_) => {
            return Err(EngineError::Internal(format!(
                "{e} left in an expression being evaluated"
            )))
        }
        ExprKind::Lit(v) => Cow::Owned(Vector::constant(e.ty, v, len)),
        ExprKind::Neg(x) => {
            let v = eval(x, len, inp)?;
            let zero = Vector::constant(v.ty, &zero_of(v.ty), v.len());
            Cow::Owned(arith(ArithOp::Sub, &zero, &v, e.ty)?)
        }
        ExprKind::Not(x) => {
            let v = eval(x, len, inp)?;
            let mut out = v.into_owned();
            if let Data::Bool(b) = &mut out.data {
                b.iter_mut().for_each(|x| *x = !*x);
            }
            Cow::Owned(out)
        }
        // A left operand NULL at every row makes the result NULL without
        // the right one being evaluated (which then cannot fail), as DuckDB
        // skips the arguments after one that is a constant NULL.
        ExprKind::Arith(op, a, b) => {
            let a = eval(a, len, inp)?;
            if all_null(&a) {
                return Ok(Cow::Owned(Vector::constant(e.ty, &Value::Null, len)));
            }
            let b = eval(b, len, inp)?;
            Cow::Owned(arith(*op, &a, &b, e.ty)?)
        }
        ExprKind::Cmp(op, a, b) => {
            let a = eval(a, len, inp)?;
            if all_null(&a) {
                return Ok(Cow::Owned(Vector::constant(e.ty, &Value::Null, len)));
            }
            let b = eval(b, len, inp)?;
            Cow::Owned(compare(*op, &a, &b))
        }
        ExprKind::And(xs) | ExprKind::Or(xs) => {
            let is_and = matches!(e.kind, ExprKind::And(_));
            let mut acc_val = vec![is_and; len];
            let mut acc_null = vec![false; len];
            for (k, x) in xs.iter().enumerate() {
                // Rows an earlier operand decided (FALSE for AND, TRUE for
                // OR) do not need this one: it must not fail on them.
                let v = if k == 0 {
                    eval(x, len, inp)?
                } else {
                    let needed: Vec<bool> = (0..len)
                        .map(|i| acc_null[i] || acc_val[i] == is_and)
                        .collect();
                    eval_where(x, len, inp, &needed)?
                };
                let Data::Bool(b) = &v.data else {
                    return Err(EngineError::Internal("AND/OR of a non-boolean".into()));
                };
                for i in 0..len {
                    let (xv, xn) = (b[i], v.is_null(i));
                    if is_and {
                        // FALSE dominates, then NULL.
                        if !xn && !xv {
                            acc_val[i] = false;
                            acc_null[i] = false;
                        } else if xn && acc_val[i] {
                            acc_null[i] = true;
                        }
                    } else if !xn && xv {
                        acc_val[i] = true;
                        acc_null[i] = false;
                    } else if xn && !acc_val[i] {
                        acc_null[i] = true;
                    }
                }
            }
            Cow::Owned(Vector {
                ty: LType::Bool,
                data: Data::Bool(acc_val),
                nulls: acc_null.iter().any(|&x| x).then_some(acc_null),
            })
        }
        ExprKind::IsNull(x, neg) => {
            let v = eval(x, len, inp)?;
            Cow::Owned(Vector {
                ty: LType::Bool,
                data: Data::Bool((0..v.len()).map(|i| v.is_null(i) != *neg).collect()),
                nulls: None,
            })
        }
        ExprKind::InList(x, list, neg) => {
            let v = eval(x, len, inp)?;
            let has_null = list.iter().any(|l| matches!(l, Value::Null));
            if let Data::Str(d) = &v.data {
                return Ok(Cow::Owned(str_in_list(&v, d, list, has_null, *neg)));
            }
            let mut keys: Vec<u128> = Vec::with_capacity(list.len());
            let mut lv = Vector::empty(v.ty, list.len());
            for l in list {
                lv.push(l);
            }
            for i in 0..lv.len() {
                if let Some(k) = lv.key(i) {
                    keys.push(k);
                }
            }
            keys.sort_unstable();
            let mut vals = Vec::with_capacity(v.len());
            let mut nulls = vec![false; v.len()];
            for (i, n) in nulls.iter_mut().enumerate() {
                match v.key(i) {
                    None => *n = true,
                    Some(k) => {
                        let found = keys.binary_search(&k).is_ok();
                        if !found && has_null {
                            *n = true;
                        }
                        vals.push(found != *neg);
                        continue;
                    }
                }
                vals.push(false);
            }
            Cow::Owned(Vector {
                ty: LType::Bool,
                data: Data::Bool(vals),
                nulls: nulls.iter().any(|&x| x).then_some(nulls),
            })
        }
        ExprKind::Cast(x) => {
            let v = eval(x, len, inp)?;
            if v.ty == e.ty {
                v
            } else {
                Cow::Owned(cast(&v, e.ty)?)
            }
        }
        ExprKind::Extract(DatePart::Epoch, x) => {
            let v = eval(x, len, inp)?;
            let Data::I64(d) = &v.data else {
                return Err(EngineError::Internal("date function on a non-date".into()));
            };
            // Seconds since the epoch with their fraction (as DuckDB).
            let secs = d
                .iter()
                .map(|&t| match v.ty {
                    LType::Date => (t * 86_400) as f64,
                    _ => t as f64 / MICROS_PER_SEC as f64,
                })
                .collect();
            Cow::Owned(Vector {
                ty: e.ty,
                data: Data::F64(secs),
                nulls: v.nulls.clone(),
            })
        }
        ExprKind::Extract(part, x) => {
            let v = eval(x, len, inp)?;
            let ints = map_i64(&v, LType::Int64, |t| extract(*part, v.ty, t))?;
            if e.ty == LType::Double {
                Cow::Owned(cast(&ints, LType::Double)?)
            } else {
                Cow::Owned(ints)
            }
        }
        ExprKind::DateTrunc(part, x) => {
            let v = eval(x, len, inp)?;
            let ty = e.ty;
            Cow::Owned(map_i64(&v, ty, |t| date_trunc(*part, v.ty, t))?)
        }
        ExprKind::Case(whens, els) => {
            // Each condition is needed on the rows no earlier one took,
            // each value on the rows its condition took: a branch no row
            // takes must not fail (as in DuckDB).
            let mut rows: Vec<Option<usize>> = vec![None; len];
            for (j, (c, _)) in whens.iter().enumerate() {
                let open: Vec<bool> = rows.iter().map(Option::is_none).collect();
                let c = eval_where(c, len, inp, &open)?;
                for (i, r) in rows.iter_mut().enumerate() {
                    if r.is_none() && !c.is_null(i) && matches!(&c.data, Data::Bool(b) if b[i]) {
                        *r = Some(j);
                    }
                }
            }
            let mut results: Vec<Vector> = Vec::with_capacity(whens.len());
            for (j, (_, v)) in whens.iter().enumerate() {
                let took: Vec<bool> = rows.iter().map(|r| *r == Some(j)).collect();
                results.push(eval_where(v, len, inp, &took)?.into_owned());
            }
            let mut out = match els {
                Some(x) => {
                    let rest: Vec<bool> = rows.iter().map(Option::is_none).collect();
                    eval_where(x, len, inp, &rest)?.into_owned()
                }
                None => Vector::nulls(e.ty, len),
            };
            if rows.iter().any(Option::is_some) {
                let mut merged = Vector::empty(e.ty, len);
                for (i, p) in rows.iter().enumerate() {
                    match p {
                        Some(j) => merged.push(&results[*j].get(i)),
                        None => merged.push(&out.get(i)),
                    }
                }
                out = merged;
            }
            Cow::Owned(out)
        }
        ExprKind::Like(x, pat, neg) => {
            let v = eval(x, len, inp)?;
            let Data::Str(s) = &v.data else {
                return Err(EngineError::Internal("LIKE on a non-string".into()));
            };
            Cow::Owned(Vector {
                ty: LType::Bool,
                data: Data::Bool(s.iter().map(|s| pat.matches(s) != *neg).collect()),
                nulls: v.nulls.clone(),
            })
        }
        ExprKind::StrLen(x) => {
            let v = eval(x, len, inp)?;
            let Data::Str(s) = &v.data else {
                return Err(EngineError::Internal("STRLEN on a non-string".into()));
            };
            Cow::Owned(Vector {
                ty: LType::Int64,
                data: Data::I64(s.iter().map(|s| s.len() as i64).collect()),
                nulls: v.nulls.clone(),
            })
        }
        ExprKind::Str(func, args) => {
            let mut vals = Vec::new();
            for a in args {
                vals.push(eval(a, len, inp)?);
            }
            let refs: Vec<&Vector> = vals.iter().map(|v| &**v).collect();
            Cow::Owned(crate::expr::strfn::eval_strfn(func, &refs, len)?)
        }
        ExprKind::Func(func, args) => {
            let mut vals: Vec<Cow<'_, Vector>> = Vec::new();
            for a in args {
                let v = match func.as_ref() {
                    // A later argument of coalesce is needed only on the rows
                    // every earlier one left NULL: it must not fail elsewhere.
                    crate::expr::scalar::Func::Coalesce if !vals.is_empty() => {
                        let open: Vec<bool> = (0..len)
                            .map(|i| vals.iter().all(|v| v.is_null(i)))
                            .collect();
                        eval_where(a, len, inp, &open)?
                    }
                    _ => eval(a, len, inp)?,
                };
                // nullif(x, y) is NULL where x is: y is not evaluated when x
                // is NULL at every row (as DuckDB skips arguments after a
                // constant NULL).
                if vals.is_empty()
                    && matches!(func.as_ref(), crate::expr::scalar::Func::NullIf)
                    && all_null(&v)
                {
                    return Ok(Cow::Owned(Vector::constant(e.ty, &Value::Null, len)));
                }
                vals.push(v);
            }
            let refs: Vec<&Vector> = vals.iter().map(|v| &**v).collect();
            Cow::Owned(crate::expr::scalar::eval_func(func, &refs, e.ty, len)?)
        }
    })
}

/// Whether `v` has rows and every one is NULL.
fn all_null(v: &Vector) -> bool {
    !v.is_empty() && (0..v.len()).all(|i| v.is_null(i))
}

fn zero_of(ty: LType) -> Value {
    match ty.phys() {
        Phys::F64 => Value::Float(0.0),
        Phys::U64 => Value::UInt(0),
        Phys::I128 => Value::Huge(0),
        _ => Value::Int(0),
    }
}

fn map_i64(v: &Vector, ty: LType, f: impl Fn(i64) -> i64) -> Result<Vector> {
    let Data::I64(d) = &v.data else {
        return Err(EngineError::Internal("date function on a non-date".into()));
    };
    Ok(Vector {
        ty,
        data: Data::I64(d.iter().map(|&x| f(x)).collect()),
        nulls: v.nulls.clone(),
    })
}

/// Splits a DATE (days) or TIMESTAMP (microseconds) into its day number and
/// the microseconds into that day. A DATE is never widened to microseconds:
/// dates far from 1970 do not fit an i64 of microseconds.
pub(crate) fn day_and_time(ty: LType, t: i64) -> (i64, i64) {
    if ty == LType::Date {
        (t, 0)
    } else {
        (t.div_euclid(MICROS_PER_DAY), t.rem_euclid(MICROS_PER_DAY))
    }
}

/// Part `part` of a DATE (days) or TIMESTAMP (microseconds) `t`.
fn extract(part: DatePart, ty: LType, t: i64) -> i64 {
    let (days, rem_us) = day_and_time(ty, t);
    let rem = rem_us / MICROS_PER_SEC;
    let (y, m, d) = crate::value::civil_from_days(days);
    match part {
        DatePart::Year => y,
        DatePart::Month => i64::from(m),
        DatePart::Day => i64::from(d),
        DatePart::Hour => rem / 3600,
        DatePart::Minute => rem / 60 % 60,
        DatePart::Second => rem % 60,
        DatePart::Millisecond => rem_us % (60 * MICROS_PER_SEC) / 1000,
        DatePart::Microsecond => rem_us % (60 * MICROS_PER_SEC),
        DatePart::Dow => (days + 4).rem_euclid(7),
        DatePart::Doy => days - crate::value::days_from_civil(y, 1, 1) + 1,
        DatePart::Epoch => days * 86_400 + rem,
        DatePart::Quarter => (i64::from(m) - 1) / 3 + 1,
        DatePart::Week => crate::expr::scalar::iso_week(days).1,
        DatePart::IsoYear => crate::expr::scalar::iso_week(days).0,
        DatePart::IsoDow => (days + 3).rem_euclid(7) + 1,
        DatePart::Decade => y.div_euclid(10),
        DatePart::Century => {
            if y > 0 {
                (y - 1) / 100 + 1
            } else {
                -((-y) / 100) - 1
            }
        }
        DatePart::Millennium => {
            if y > 0 {
                (y - 1) / 1000 + 1
            } else {
                -((-y) / 1000) - 1
            }
        }
        DatePart::Era => i64::from(y > 0),
        DatePart::YearWeek => {
            let (iy, w) = crate::expr::scalar::iso_week(days);
            iy * 100 + if iy < 0 { -w } else { w }
        }
    }
}

/// The first day of the `part` unit holding day `days`, or `None` for parts
/// finer than a day.
fn trunc_days(part: DatePart, days: i64) -> Option<i64> {
    let (y, m, _) = crate::value::civil_from_days(days);
    let first = |y, m| crate::value::days_from_civil(y, m, 1);
    Some(match part {
        DatePart::Year | DatePart::Era => first(y, 1),
        DatePart::Decade => first(y - y.rem_euclid(10), 1),
        DatePart::Century => first(y - y.rem_euclid(100), 1),
        DatePart::Millennium => first(y - y.rem_euclid(1000), 1),
        DatePart::Month => first(y, m),
        DatePart::Quarter => first(y, (m - 1) / 3 * 3 + 1),
        DatePart::Week | DatePart::IsoDow | DatePart::IsoYear | DatePart::YearWeek => {
            days - (days + 3).rem_euclid(7)
        }
        DatePart::Day | DatePart::Dow | DatePart::Doy => days,
        DatePart::Hour
        | DatePart::Minute
        | DatePart::Second
        | DatePart::Epoch
        | DatePart::Millisecond
        | DatePart::Microsecond => return None,
    })
}

/// `t` (DATE days or TIMESTAMP microseconds) truncated to `part`.
fn date_trunc(part: DatePart, ty: LType, t: i64) -> i64 {
    let (days, _) = day_and_time(ty, t);
    if ty == LType::Date {
        return trunc_days(part, days).unwrap_or(days);
    }
    if let Some(first) = trunc_days(part, days) {
        return first * MICROS_PER_DAY;
    }
    let floor = |unit: i64| t - t.rem_euclid(unit);
    match part {
        DatePart::Hour => floor(3600 * MICROS_PER_SEC),
        DatePart::Minute => floor(60 * MICROS_PER_SEC),
        DatePart::Millisecond => floor(1000),
        DatePart::Microsecond => t,
        _ => floor(MICROS_PER_SEC),
    }
}

fn merged_nulls(a: &Vector, b: &Vector) -> Option<Vec<bool>> {
    match (&a.nulls, &b.nulls) {
        (None, None) => None,
        (Some(x), None) => Some(x.clone()),
        (None, Some(y)) => Some(y.clone()),
        (Some(x), Some(y)) => Some(x.iter().zip(y).map(|(a, b)| *a || *b).collect()),
    }
}

/// Arithmetic over two vectors of the result's physical type (for `/`, of
/// DOUBLE). Overflow and division by zero follow DuckDB: an error for
/// integers; IEEE results for doubles.
pub fn arith(op: ArithOp, a: &Vector, b: &Vector, ty: LType) -> Result<Vector> {
    let nulls = merged_nulls(a, b);
    let is_null = |i: usize| nulls.as_ref().is_some_and(|n| n[i]);
    let n = a.len();
    let overflow = |x: &dyn std::fmt::Display, y: &dyn std::fmt::Display| {
        EngineError::Runtime(match ty {
            LType::Decimal(p, _) => format!(
                "Overflow in {} of DECIMAL({p}) ({x} {} {y}). You might want to add an \
                 explicit cast to a bigger decimal.",
                op.verb(),
                op.symbol()
            ),
            _ => format!(
                "Overflow in {} of {} ({x} {} {y})!",
                op.verb(),
                ty.int_name(),
                op.symbol()
            ),
        })
    };
    // A DECIMAL(p, _) result holds at most p digits.
    let digits = match ty {
        LType::Decimal(p, _) => Some(10u128.pow(u32::from(p))),
        _ => None,
    };
    let fits_digits = |r: i128| digits.is_none_or(|d| r.unsigned_abs() < d);
    let div0 = || EngineError::Runtime(format!("Division by zero in expression ({})", op.symbol()));
    // Checked integer arithmetic over `x` and `y`; results rejected by
    // `fits` are overflows.
    macro_rules! int_arith {
        ($x:expr, $y:expr, $fits:expr) => {{
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                if is_null(i) {
                    out.push(0);
                    continue;
                }
                let (p, q) = ($x[i], $y[i]);
                let r = match op {
                    ArithOp::Add => p.checked_add(q),
                    ArithOp::Sub => p.checked_sub(q),
                    ArithOp::Mul => p.checked_mul(q),
                    _ if q == 0 => return Err(div0()),
                    ArithOp::IntDiv | ArithOp::Div => p.checked_div(q),
                    ArithOp::Mod => Some(p.wrapping_rem(q)),
                };
                match r {
                    Some(r) if $fits(r) => out.push(r),
                    _ => return Err(overflow(&p, &q)),
                }
            }
            out
        }};
    }
    let single = ty == LType::Float;
    let data = match (&a.data, &b.data) {
        (Data::F64(x), Data::F64(y)) => Data::F64(
            x.iter()
                .zip(y)
                .map(|(&x, &y)| match op {
                    ArithOp::Add => x + y,
                    ArithOp::Sub => x - y,
                    ArithOp::Mul => x * y,
                    ArithOp::Div => x / y,
                    ArithOp::IntDiv => (x / y).floor(),
                    ArithOp::Mod => x % y,
                })
                // FLOAT arithmetic rounds each result to single precision
                // (exact for these operations on single-precision operands).
                .map(|r| if single { f64::from(r as f32) } else { r })
                .collect(),
        ),
        (Data::I64(x), Data::I64(y)) => {
            if let Some(out) = i64_arith_unchecked(op, x, y, i64_bounds(ty)) {
                return Ok(Vector {
                    ty,
                    data: Data::I64(out),
                    nulls,
                });
            }
            // Narrow integer types must stay within their own range.
            let fits = |r: i64| {
                ty.int_range()
                    .is_none_or(|(lo, hi)| (lo..=hi).contains(&i128::from(r)))
                    && fits_digits(i128::from(r))
            };
            Data::I64(int_arith!(x, y, fits))
        }
        (Data::U64(x), Data::U64(y)) => Data::U64(int_arith!(x, y, |_| true)),
        (Data::I128(x), Data::I128(y)) => match i128_arith_unchecked(op, x, y, digits) {
            Some(out) => Data::I128(out),
            None => Data::I128(int_arith!(x, y, fits_digits)),
        },
        _ => {
            return Err(EngineError::Internal(format!(
                "arithmetic on {} and {}",
                a.ty, b.ty
            )))
        }
    };
    Ok(Vector { ty, data, nulls })
}

/// The range a result of type `ty` held as `i64` must stay in: its
/// integer type's, or a DECIMAL's digits.
fn i64_bounds(ty: LType) -> (i64, i64) {
    let (mut lo, mut hi) = ty.int_range().map_or((i64::MIN, i64::MAX), |(lo, hi)| {
        (
            i64::try_from(lo).unwrap_or(i64::MIN),
            i64::try_from(hi).unwrap_or(i64::MAX),
        )
    });
    if let LType::Decimal(p, _) = ty {
        if p <= 18 {
            let max = 10i64.pow(u32::from(p)) - 1;
            (lo, hi) = (lo.max(-max), hi.min(max));
        }
    }
    (lo, hi)
}

/// `+`, `-` and `*` over `i64`s without a branch per row: `None` when any
/// slot (NULL slots included, whose values are arbitrary) overflows or
/// leaves `bounds`, or for the other operators; the checked loop of
/// [`arith`] then decides, row by row.
fn i64_arith_unchecked(op: ArithOp, x: &[i64], y: &[i64], bounds: (i64, i64)) -> Option<Vec<i64>> {
    let (lo, hi) = bounds;
    let mut bad = false;
    let mut run = |f: fn(i64, i64) -> (i64, bool)| -> Vec<i64> {
        x.iter()
            .zip(y)
            .map(|(&p, &q)| {
                let (r, o) = f(p, q);
                bad |= o | (r < lo) | (r > hi);
                r
            })
            .collect()
    };
    let out = match op {
        ArithOp::Add => run(i64::overflowing_add),
        ArithOp::Sub => run(i64::overflowing_sub),
        ArithOp::Mul => run(i64::overflowing_mul),
        _ => return None,
    };
    (!bad).then_some(out)
}

/// `+`, `-` and `*` over `i128`s without a check per row, where the
/// operands' largest magnitudes (NULL slots included) prove that no result
/// overflows or exceeds `digits` (a DECIMAL's bound, exclusive): `None`
/// otherwise, or for the other operators, and the checked loop of [`arith`]
/// decides row by row. Operands that all fit in `i64` (DECIMAL columns
/// widened for a product) multiply by one widening multiplication each.
fn i128_arith_unchecked(
    op: ArithOp,
    x: &[i128],
    y: &[i128],
    digits: Option<u128>,
) -> Option<Vec<i128>> {
    let max_abs = |v: &[i128]| v.iter().map(|a| a.unsigned_abs()).max().unwrap_or(0);
    let (mx, my) = (max_abs(x), max_abs(y));
    let bound = match op {
        ArithOp::Add | ArithOp::Sub => mx.checked_add(my)?,
        ArithOp::Mul => mx.checked_mul(my)?,
        _ => return None,
    };
    // The largest magnitude of a result must be representable and in range.
    if bound > i128::MAX as u128 || digits.is_some_and(|d| bound >= d) {
        return None;
    }
    let small = |m: u128| m <= i64::MAX as u128;
    let zip = x.iter().zip(y);
    Some(match op {
        ArithOp::Add => zip.map(|(&p, &q)| p + q).collect(),
        ArithOp::Sub => zip.map(|(&p, &q)| p - q).collect(),
        _ if small(mx) && small(my) => zip
            .map(|(&p, &q)| i128::from(p as i64) * i128::from(q as i64))
            .collect(),
        _ => zip.map(|(&p, &q)| p * q).collect(),
    })
}

/// Compares two vectors of the same physical type.
pub fn compare(op: CmpOp, a: &Vector, b: &Vector) -> Vector {
    let nulls = merged_nulls(a, b);
    let n = a.len();
    let vals: Vec<bool> = match (&a.data, &b.data) {
        (Data::Bool(x), Data::Bool(y)) => (0..n).map(|i| op.test(x[i].cmp(&y[i]))).collect(),
        (Data::I64(x), Data::I64(y)) => (0..n).map(|i| op.test(x[i].cmp(&y[i]))).collect(),
        (Data::U64(x), Data::U64(y)) => (0..n).map(|i| op.test(x[i].cmp(&y[i]))).collect(),
        (Data::I128(x), Data::I128(y)) if a.ty == LType::Interval => (0..n)
            .map(|i| {
                let (p, q) = (crate::interval::total(x[i]), crate::interval::total(y[i]));
                op.test(p.cmp(&q))
            })
            .collect(),
        (Data::I128(x), Data::I128(y)) => (0..n).map(|i| op.test(x[i].cmp(&y[i]))).collect(),
        (Data::F64(x), Data::F64(y)) => (0..n)
            .map(|i| op.test(crate::value::cmp_f64(x[i], y[i])))
            .collect(),
        (Data::Str(x), Data::Str(y)) => (0..n).map(|i| op.test(x[i].cmp(&y[i]))).collect(),
        _ => (0..n).map(|_| false).collect(),
    };
    Vector {
        ty: LType::Bool,
        data: Data::Bool(vals),
        nulls,
    }
}

/// Casts a vector to type `to`.
pub fn cast(v: &Vector, to: LType) -> Result<Vector> {
    if let Some(out) = cast_exact_numbers(v, to) {
        return out;
    }
    let mut out = Vector::empty(to, v.len());
    for i in 0..v.len() {
        out.push(&cast_value(&v.get(i), v.ty, to)?);
    }
    Ok(out)
}

/// [`cast`] of exact numbers (integers and decimals) to exact numbers or
/// floats, and of DATEs to TIMESTAMPs, a column at a time; `None` for the
/// other casts. The same arithmetic as [`cast_value`], value for value;
/// NULL slots are not looked at.
fn cast_exact_numbers(v: &Vector, to: LType) -> Option<Result<Vector>> {
    let from = v.ty;
    let exact_source = from.is_integer() || matches!(from, LType::Decimal(..));
    if let (true, LType::Decimal(p, s), Data::I64(d)) = (exact_source, to, &v.data) {
        if let Some(out) = i64_to_decimal(d, scale_of(from), p, s) {
            return Some(Ok(Vector {
                ty: to,
                data: Data::I64(out),
                nulls: v.nulls.clone(),
            }));
        }
    }
    let date_to_ts = from == LType::Date && to == LType::Timestamp;
    if !(exact_source || date_to_ts) {
        return None;
    }
    let target_ok =
        to.is_integer() || matches!(to, LType::Decimal(..) | LType::Double | LType::Float);
    if !(date_to_ts || target_ok) {
        return None;
    }
    let n = v.len();
    let value = |i: usize| -> i128 {
        match &v.data {
            Data::I64(d) => i128::from(d[i]),
            Data::U64(d) => i128::from(d[i]),
            Data::I128(d) => d[i],
            _ => 0,
        }
    };
    if !matches!(v.data, Data::I64(_) | Data::U64(_) | Data::I128(_)) {
        return None;
    }
    let live = |i: usize| !v.is_null(i);
    let fs = scale_of(from);
    let range_err = |x: &dyn std::fmt::Display| {
        EngineError::Runtime(format!("Conversion Error: {x} is out of range for {to}"))
    };
    let data = match to {
        _ if date_to_ts => {
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                let d = value(i);
                let s = if live(i) {
                    d.checked_mul(i128::from(MICROS_PER_DAY))
                } else {
                    Some(0)
                };
                match s.and_then(|s| i64::try_from(s).ok()) {
                    Some(s) => out.push(s),
                    None => return Some(Err(range_err(&d))),
                }
            }
            Data::I64(out)
        }
        LType::Double | LType::Float => {
            let single = to == LType::Float;
            Data::F64(
                (0..n)
                    .map(|i| {
                        let f = decimal_to_f64(value(i), fs as u8);
                        if single {
                            f64::from(f as f32)
                        } else {
                            f
                        }
                    })
                    .collect(),
            )
        }
        LType::Decimal(p, s) => {
            let limit = 10u128.pow(u32::from(p));
            let mut wide: Vec<i128> = Vec::with_capacity(n);
            for i in 0..n {
                if !live(i) {
                    wide.push(0);
                    continue;
                }
                let x = value(i);
                let scaled = if fs == 0 && !matches!(from, LType::Decimal(..)) {
                    x.checked_mul(10i128.pow(u32::from(s)))
                } else {
                    Some(rescale(x, fs, u32::from(s)))
                };
                match scaled {
                    Some(y) if y.unsigned_abs() < limit => wide.push(y),
                    Some(_) => return Some(Err(range_err(&decimal_to_f64(x, fs as u8)))),
                    None => return Some(Err(range_err(&x))),
                }
            }
            if p <= 18 {
                Data::I64(wide.into_iter().map(|x| x as i64).collect())
            } else {
                Data::I128(wide)
            }
        }
        _ => {
            let (lo, hi) = to.int_range()?;
            let mut wide: Vec<i128> = Vec::with_capacity(n);
            for i in 0..n {
                let x = if live(i) { rescale(value(i), fs, 0) } else { 0 };
                if x < lo || x > hi {
                    return Some(Err(range_err(&x)));
                }
                wide.push(x);
            }
            match to.phys() {
                Phys::U64 => Data::U64(wide.into_iter().map(|x| x as u64).collect()),
                Phys::I128 => Data::I128(wide),
                _ => Data::I64(wide.into_iter().map(|x| x as i64).collect()),
            }
        }
    };
    Some(Ok(Vector {
        ty: to,
        data,
        nulls: v.nulls.clone(),
    }))
}

/// Exact numbers held as `i64` at scale `from` to a DECIMAL(p, s) held as
/// `i64` (p <= 18) of no smaller scale, without a branch per row: `None`
/// when the scale goes down or any slot (NULL slots included) leaves the
/// target's digits; the general cast then decides, row by row.
fn i64_to_decimal(d: &[i64], from: u32, p: u8, s: u8) -> Option<Vec<i64>> {
    let s = u32::from(s);
    if p > 18 || s < from {
        return None;
    }
    let factor = 10i64.checked_pow(s - from)?;
    let max = 10i64.pow(u32::from(p)) - 1;
    if factor == 1 {
        return d
            .iter()
            .all(|x| (-max..=max).contains(x))
            .then(|| d.to_vec());
    }
    let mut bad = false;
    let out = d
        .iter()
        .map(|&x| {
            let (y, o) = x.overflowing_mul(factor);
            bad |= o | (y < -max) | (y > max);
            y
        })
        .collect();
    (!bad).then_some(out)
}

fn scale_of(ty: LType) -> u32 {
    match ty {
        LType::Decimal(_, s) => u32::from(s),
        _ => 0,
    }
}

/// Casts one value from type `from` to type `to`.
pub fn cast_value(v: &Value, from: LType, to: LType) -> Result<Value> {
    if matches!(v, Value::Null) {
        return Ok(Value::Null);
    }
    let range_err = |x: &dyn std::fmt::Display| {
        EngineError::Runtime(format!("Conversion Error: {x} is out of range for {to}"))
    };
    // Lists print as text; no other cast reaches or leaves them.
    if let (LType::List(e), LType::Varchar, Value::Str(b)) = (from, to, v) {
        return Ok(Value::Str(crate::list::format(*e, b).into_bytes()));
    }
    if matches!(from, LType::List(_)) || matches!(to, LType::List(_)) {
        if from == to {
            return Ok(v.clone());
        }
        return Err(EngineError::Unsupported(format!("casting {from} to {to}")));
    }
    // Strings first: parse or format.
    if let Value::Str(s) = v {
        let s = String::from_utf8_lossy(s);
        let t = s.trim();
        let perr =
            || EngineError::Runtime(format!("Conversion Error: could not convert {s:?} to {to}"));
        return match to {
            LType::Varchar => Ok(v.clone()),
            LType::Date => Ok(Value::Int(parse_date(t)?)),
            LType::Timestamp => Ok(Value::Int(parse_timestamp(t)?)),
            LType::Interval => Ok(Value::Huge(crate::interval::pack(crate::interval::parse(
                t,
            )?))),
            LType::Bool => match t.to_ascii_lowercase().as_str() {
                "true" | "t" | "1" => Ok(Value::Bool(true)),
                "false" | "f" | "0" => Ok(Value::Bool(false)),
                _ => Err(perr()),
            },
            LType::Float | LType::Double => t.parse::<f64>().map(Value::Float).map_err(|_| perr()),
            _ if to.is_integer() => {
                let x = parse_integer_text(t).ok_or_else(perr)?;
                cast_value(&Value::Huge(x), LType::HugeInt, to)
            }
            LType::Decimal(p, sc) => {
                let scaled = parse_decimal(t, u32::from(sc)).ok_or_else(perr)?;
                if scaled.unsigned_abs() >= 10u128.pow(u32::from(p)) {
                    return Err(range_err(&t));
                }
                Ok(if p <= 18 {
                    Value::Int(scaled as i64)
                } else {
                    Value::Huge(scaled)
                })
            }
            _ => Err(perr()),
        };
    }
    if to == LType::Varchar {
        return Ok(Value::Str(
            match (from, v) {
                (LType::Date, Value::Int(d)) => format_date(*d),
                (LType::Timestamp, Value::Int(s)) => format_timestamp(*s),
                (LType::Decimal(w, s), Value::Int(x)) => format_decimal_text(i128::from(*x), w, s),
                (LType::Decimal(w, s), Value::Huge(x)) => format_decimal_text(*x, w, s),
                (LType::Double | LType::Float, Value::Float(f)) => {
                    format_float_text(*f, from == LType::Float)
                }
                _ => crate::value::format_value(from, v),
            }
            .into_bytes(),
        ));
    }
    if from == LType::Interval || to == LType::Interval {
        if from == to {
            return Ok(v.clone());
        }
        return Err(EngineError::Invalid(format!("cannot cast {from} to {to}")));
    }
    // Dates and timestamps.
    match (from, to) {
        (LType::Date, LType::Date) | (LType::Timestamp, LType::Timestamp) => return Ok(v.clone()),
        (LType::Date, LType::Timestamp) => {
            if let Value::Int(d) = v {
                return d
                    .checked_mul(MICROS_PER_DAY)
                    .map(Value::Int)
                    .ok_or_else(|| range_err(d));
            }
        }
        (LType::Timestamp, LType::Date) => {
            if let Value::Int(s) = v {
                return Ok(Value::Int(s.div_euclid(MICROS_PER_DAY)));
            }
        }
        (LType::Date | LType::Timestamp, _) | (_, LType::Date | LType::Timestamp) => {
            return Err(EngineError::Invalid(format!("cannot cast {from} to {to}")))
        }
        _ => {}
    }
    // Numbers: go through an exact i128 (scaled) or f64.
    let as_f64 = match v {
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Int(x) => decimal_to_f64(i128::from(*x), scale_of(from) as u8),
        Value::UInt(x) => *x as f64,
        Value::Huge(x) => decimal_to_f64(*x, scale_of(from) as u8),
        Value::Float(f) => *f,
        _ => 0.0,
    };
    let exact: Option<i128> = match v {
        Value::Bool(b) => Some(i128::from(*b)),
        Value::Int(x) => Some(i128::from(*x)),
        Value::UInt(x) => Some(i128::from(*x)),
        Value::Huge(x) => Some(*x),
        _ => None,
    };
    match to {
        LType::Bool => Ok(Value::Bool(as_f64 != 0.0)),
        LType::Float => Ok(Value::Float(f64::from(as_f64 as f32))),
        LType::Double => Ok(Value::Float(as_f64)),
        LType::Decimal(p, s) => {
            let scaled: i128 = match (exact, from) {
                (Some(x), LType::Decimal(_, fs)) => rescale(x, u32::from(fs), u32::from(s)),
                (Some(x), _) => x
                    .checked_mul(10i128.pow(u32::from(s)))
                    .ok_or_else(|| range_err(&x))?,
                (None, _) => (as_f64 * 10f64.powi(i32::from(s))).round() as i128,
            };
            if scaled.unsigned_abs() >= 10u128.pow(u32::from(p)) {
                return Err(range_err(&as_f64));
            }
            Ok(if p <= 18 {
                Value::Int(scaled as i64)
            } else {
                Value::Huge(scaled)
            })
        }
        _ => {
            let (lo, hi) = to
                .int_range()
                .ok_or_else(|| EngineError::Invalid(format!("cannot cast {from} to {to}")))?;
            let x: i128 = match (exact, from) {
                (Some(x), LType::Decimal(_, fs)) => rescale(x, u32::from(fs), 0),
                (Some(x), _) => x,
                (None, _) => {
                    if !as_f64.is_finite() || as_f64.abs() > 1.7e38 {
                        return Err(range_err(&as_f64));
                    }
                    // DuckDB rounds a float to an integer half to even (a
                    // DECIMAL half away from zero).
                    as_f64.round_ties_even() as i128
                }
            };
            if x < lo || x > hi {
                return Err(range_err(&x));
            }
            Ok(match to.phys() {
                Phys::U64 => Value::UInt(x as u64),
                Phys::I128 => Value::Huge(x),
                _ => Value::Int(x as i64),
            })
        }
    }
}

/// Reads an integer from (trimmed) text as DuckDB casts one: decimal
/// digits with single `_` separators between digits, an optional fraction
/// and exponent rounded half away from zero (`'2.5'` is 3, `'1e2'` 100),
/// or `0x` hexadecimal / `0b` binary digits. `None` when the text is not
/// such a number or does not fit 38 digits.
pub fn parse_integer_text(text: &str) -> Option<i128> {
    let b = text.as_bytes();
    if b.len() > 2 && b[0] == b'0' && matches!(b[1], b'x' | b'X' | b'b' | b'B') {
        let radix = if matches!(b[1], b'x' | b'X') { 16 } else { 2 };
        let digits = &text[2..];
        if !digits.chars().all(|c| c.is_digit(radix)) {
            return None;
        }
        return i128::from_str_radix(digits, radix).ok();
    }
    if !text.contains('_') {
        return parse_decimal(text, 0);
    }
    let separates = |i: usize| {
        i > 0 && b[i - 1].is_ascii_digit() && b.get(i + 1).is_some_and(u8::is_ascii_digit)
    };
    if (0..b.len()).any(|i| b[i] == b'_' && !separates(i)) {
        return None;
    }
    parse_decimal(&text.replace('_', ""), 0)
}

/// Parses a decimal number (`-12.5`, `.5`, `1e3`, `1.5E-2`) exactly as a
/// scaled integer with `scale` decimal places, rounding half away from
/// zero; `None` if it is not a number or does not fit in 38 digits.
pub fn parse_decimal(text: &str, scale: u32) -> Option<i128> {
    let (neg, body) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], body[i + 1..].parse::<i32>().ok()?),
        None => (body, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits_only = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !digits_only(int) || !digits_only(frac) || int.len() + frac.len() == 0 {
        return None;
    }
    // All digits as one integer with `frac.len() - exp` decimal places.
    let digits = format!("{int}{frac}");
    let digits = digits.trim_start_matches('0');
    if digits.len() > 38 {
        return None;
    }
    let mut x: i128 = if digits.is_empty() {
        0
    } else {
        digits.parse().ok()?
    };
    let places = frac.len() as i64 - i64::from(exp);
    let target = i64::from(scale);
    if places <= target {
        let up = u32::try_from(target - places).ok()?;
        x = x.checked_mul(10i128.checked_pow(up)?)?;
    } else {
        let down = u32::try_from(places - target).ok()?;
        x = match 10i128.checked_pow(down) {
            Some(d) => {
                let (q, r) = (x / d, x % d);
                q + i128::from(r * 2 >= d)
            }
            None => 0,
        };
    }
    Some(if neg { -x } else { x })
}

/// Rescales a decimal, rounding half away from zero.
fn rescale(x: i128, from: u32, to: u32) -> i128 {
    if to >= from {
        x.saturating_mul(10i128.pow(to - from))
    } else {
        let d = 10i128.pow(from - to);
        let q = x / d;
        let r = x % d;
        if r.abs() * 2 >= d {
            q + x.signum()
        } else {
            q
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_text_reads_as_duckdb_casts() {
        let p = parse_integer_text;
        assert_eq!(p("1.5"), Some(2));
        assert_eq!(p("-2.5"), Some(-3));
        assert_eq!(p("1.49"), Some(1));
        assert_eq!(p("1e2"), Some(100));
        assert_eq!(p("4.5e-1"), Some(0));
        assert_eq!(p("1_000.5"), Some(1001));
        assert_eq!(p("0x1F"), Some(31));
        assert_eq!(p("0B101"), Some(5));
        for bad in [
            "", ".", "1__0", "_1", "1_", "-0x1F", "0x", "0x_1", "1e", "1 2",
        ] {
            assert_eq!(p(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn decimal_strings_parse_exactly() {
        let p = |t: &str, s: u32| parse_decimal(t, s);
        assert_eq!(p("0.07", 2), Some(7));
        assert_eq!(p("1.005", 2), Some(101));
        assert_eq!(p("-1.005", 2), Some(-101));
        assert_eq!(p("-.5", 1), Some(-5));
        assert_eq!(p("1.5e1", 1), Some(150));
        assert_eq!(p("15E-1", 1), Some(15));
        assert_eq!(
            p("12345678901234567890.125", 2),
            Some(1234567890123456789013)
        );
        assert_eq!(
            p("0.0000000000000000000000000000000000000000001", 2),
            Some(0)
        );
        assert_eq!(p("", 2), None);
        assert_eq!(p(".", 2), None);
        assert_eq!(p("1.2.3", 2), None);
        assert_eq!(p("1e", 2), None);
        assert_eq!(p("abc", 2), None);
    }

    #[test]
    fn integer_semantics() {
        let a = Vector {
            ty: LType::Int32,
            data: Data::I64(vec![-7, 7, i32::MAX as i64]),
            nulls: None,
        };
        let b = Vector {
            ty: LType::Int32,
            data: Data::I64(vec![3, -3, 1]),
            nulls: None,
        };
        let m = arith(ArithOp::Mod, &a, &b, LType::Int32);
        assert!(m.is_ok());
        let m = m.ok().map(|v| v.data);
        assert_eq!(m, Some(Data::I64(vec![-1, 1, 0])));
        assert!(arith(ArithOp::Add, &a, &b, LType::Int32).is_err());
        // A float rounds to an integer half to even, as in DuckDB.
        assert_eq!(
            cast_value(&Value::Float(-2.5), LType::Double, LType::Int32).ok(),
            Some(Value::Int(-2))
        );
        assert_eq!(
            cast_value(&Value::Float(3.5), LType::Double, LType::Int32).ok(),
            Some(Value::Int(4))
        );
    }
}

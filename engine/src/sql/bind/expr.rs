//! Expressions: SQL expression syntax to typed, constant-folded
//! [`TExpr`]s over a [`Scope`]'s columns, with DuckDB's coercions.

use sqlparser::ast::{self as sql, Expr as SqlExpr};

use super::aggregate::AggCtx;
use super::coerce::{cast_to, combined_type, common_type, decimal_arith};
use super::function::{extract_expr, not, rounding_call, str_call};
use super::literal::{date_part, fold, literal, literal_int, sql_type};
use super::query::cast_columns;
use super::scope::Scope;
use super::subquery::{BoundSubquery, SubqueryKind};
use super::{Binder, OuterFrame};
use crate::error::{invalid, unsupported, EngineError, Result};
use crate::expr::math::BitOp;
use crate::expr::rounding::Rounding;
use crate::expr::strfn::StrFn;
use crate::expr::{cast_value, ArithOp, CmpOp, ExprKind, TExpr};
use crate::value::{LType, Phys, Value};

/// Expressions nested deeper than this are refused (as DuckDB's
/// `max_expression_depth`), so no later walk over them can exhaust the
/// stack. Chains of AND, OR and `||` are flattened first and do not count
/// their length.
pub const MAX_EXPR_DEPTH: usize = 1000;

fn too_deep() -> EngineError {
    EngineError::Invalid(format!(
        "expression too deeply nested (more than {MAX_EXPR_DEPTH} levels)"
    ))
}

/// The operands of a left-deep chain `a op b op c ...` (as the parser
/// builds them), found without recursion.
pub(crate) fn chain_operands<'e>(e: &'e SqlExpr, op: &sql::BinaryOperator) -> Vec<&'e SqlExpr> {
    let mut out = Vec::new();
    let mut cur = e;
    while let SqlExpr::BinaryOp { left, op: o, right } = cur {
        if o != op {
            break;
        }
        out.push(&**right);
        cur = left;
    }
    out.push(cur);
    out.reverse();
    out
}

/// Binds the expressions of one clause against a scope.
pub(crate) struct ExprBinder<'a> {
    /// The FROM clause's columns.
    pub scope: &'a Scope,
    /// Select-list aliases a name that is no column may mean (name, SQL).
    pub aliases: &'a [(String, SqlExpr)],
    /// Collects aggregate calls; `None` where aggregates are not allowed.
    pub aggs: Option<AggCtx>,
    /// Collects window function calls; `None` where they are not allowed.
    pub windows: Option<super::window::WindowCtx>,
    /// Nesting depth of the expression being bound.
    depth: usize,
    /// Aliases being expanded (an alias may not refer to itself).
    expanding: Vec<String>,
    /// The binder of subqueries in the expression (`None`: subqueries are
    /// not allowed here); it also holds the enclosing queries' scopes.
    pub binder: Option<&'a Binder<'a>>,
    /// The subqueries met, in order (`ExprKind::Subquery(i)` is the `i`-th).
    pub subqueries: Vec<BoundSubquery>,
    /// Grouping-set keys matched by how they are written (the SQL, and the
    /// key's slot): a constant key folds away, yet where a set leaves it out
    /// an expression written over it reads NULL, as in DuckDB.
    pub written_keys: Vec<(SqlExpr, TExpr)>,
    /// The other grouping keys as written: within an expression written as
    /// one of them no constant key is looked for, so that it binds as that
    /// key does (`concat(s, 'x')` grouped by `1, 'x'` is the first key, not
    /// `concat` over `s` and the second).
    pub whole_keys: Vec<SqlExpr>,
}

impl<'a> ExprBinder<'a> {
    /// A binder over `scope`, aggregates not allowed, no aliases.
    pub(crate) fn new(scope: &'a Scope) -> ExprBinder<'a> {
        ExprBinder {
            scope,
            aliases: &[],
            aggs: None,
            windows: None,
            depth: 0,
            expanding: Vec::new(),
            binder: None,
            subqueries: Vec::new(),
            written_keys: Vec::new(),
            whole_keys: Vec::new(),
        }
    }

    /// The same, binding subqueries with `binder` and resolving names of
    /// enclosing queries through it.
    pub(crate) fn with_binder(mut self, binder: &'a Binder<'a>) -> ExprBinder<'a> {
        self.binder = Some(binder);
        self
    }

    /// The same, with select-list aliases.
    pub(crate) fn with_aliases(mut self, aliases: &'a [(String, SqlExpr)]) -> ExprBinder<'a> {
        self.aliases = aliases;
        self
    }

    /// A column, or else a select-list alias, by name.
    fn column(&mut self, qualifier: Option<&str>, name: &str) -> Result<TExpr> {
        if let Some(i) = self.scope.find(qualifier, name)? {
            return Ok(TExpr {
                kind: ExprKind::Col(i),
                ty: self.scope.columns[i].ty,
            });
        }
        if qualifier.is_none() {
            let alias = self.aliases.iter().find(|(a, _)| a == name).or_else(|| {
                self.aliases
                    .iter()
                    .find(|(a, _)| a.eq_ignore_ascii_case(name))
            });
            if let Some((a, e)) = alias {
                if !self.expanding.contains(a) {
                    self.expanding.push(a.clone());
                    let r = self.expr(e);
                    self.expanding.pop();
                    return r;
                }
            }
        }
        if let Some(e) = self.outer_column(qualifier, name)? {
            return Ok(e);
        }
        Err(self.scope.not_found(qualifier, name))
    }

    /// A column of the query enclosing this one (a correlated subquery's
    /// reference), recorded in its frame.
    fn outer_column(&mut self, qualifier: Option<&str>, name: &str) -> Result<Option<TExpr>> {
        let Some(binder) = self.binder else {
            return Ok(None);
        };
        let mut frames = binder.outer.borrow_mut();
        let n = frames.len();
        for (depth, frame) in frames.iter_mut().enumerate().rev() {
            let Some(i) = frame.scope.find(qualifier, name)? else {
                continue;
            };
            if depth + 1 != n {
                return unsupported(
                    "a subquery referring to a column of a query more than one level out",
                );
            }
            let ty = frame.scope.columns[i].ty;
            let k = match frame.refs.iter().position(|&r| r == i) {
                Some(k) => k,
                None => {
                    frame.refs.push(i);
                    frame.refs.len() - 1
                }
            };
            return Ok(Some(TExpr {
                kind: ExprKind::Outer(k),
                ty,
            }));
        }
        Ok(None)
    }

    /// Binds a subquery of this expression: its plan is kept, the
    /// expression is a placeholder for its result.
    fn subquery(&mut self, q: &sql::Query, kind: SubqueryKind) -> Result<TExpr> {
        let Some(binder) = self.binder else {
            return unsupported("a subquery here");
        };
        binder.outer.borrow_mut().push(OuterFrame {
            scope: self.scope.clone(),
            refs: Vec::new(),
        });
        let plan = binder.nested(|b| b.bind_query(q));
        let frame = binder.outer.borrow_mut().pop();
        let mut plan = plan?;
        let outer = frame.map(|f| f.refs).unwrap_or_default();
        let columns = plan.columns();
        let (kind, ty) = match kind {
            SubqueryKind::Exists => (SubqueryKind::Exists, LType::Bool),
            SubqueryKind::Scalar | SubqueryKind::In { .. } if columns.len() != 1 => {
                return invalid(format!(
                    "subquery returns {} columns - expected 1",
                    columns.len()
                ))
            }
            SubqueryKind::Scalar => (SubqueryKind::Scalar, columns[0].ty),
            SubqueryKind::In { expr } => {
                let probe = TExpr {
                    kind: ExprKind::Col(0),
                    ty: columns[0].ty,
                };
                let ty = common_type(&expr, &probe)?;
                plan = cast_columns(plan, &[ty])?;
                (
                    SubqueryKind::In {
                        expr: cast_to(expr, ty)?,
                    },
                    LType::Bool,
                )
            }
        };
        self.subqueries.push(BoundSubquery {
            kind,
            plan,
            outer,
            post: self.aggs.is_some(),
        });
        Ok(TExpr {
            kind: ExprKind::Subquery(self.subqueries.len() - 1),
            ty,
        })
    }

    /// `a AND b AND ...` (or OR) as one n-ary node, bound without
    /// recursing along the chain.
    fn logical_chain(&mut self, e: &SqlExpr, op: &sql::BinaryOperator) -> Result<TExpr> {
        let is_and = matches!(op, sql::BinaryOperator::And);
        let mut v = Vec::new();
        for x in chain_operands(e, op) {
            let b = self.expr(x)?;
            let b = self.expect_bool(b, "AND/OR operand")?;
            match b.kind {
                ExprKind::And(inner) if is_and => v.extend(inner),
                ExprKind::Or(inner) if !is_and => v.extend(inner),
                _ => v.push(b),
            }
        }
        Ok(TExpr {
            kind: if is_and {
                ExprKind::And(v)
            } else {
                ExprKind::Or(v)
            },
            ty: LType::Bool,
        })
    }

    pub(crate) fn expect_bool(&self, e: TExpr, what: &str) -> Result<TExpr> {
        match e.ty {
            LType::Bool => Ok(e),
            LType::Null => Ok(TExpr::lit(Value::Null, LType::Bool)),
            // A number is true when it is not zero (DuckDB casts it).
            t if t.is_numeric() => cast_to(e, LType::Bool).and_then(fold),
            t => invalid(format!("{what} must be a boolean expression, not {t}")),
        }
    }

    /// Binds `e`, folding constants.
    #[recursive::recursive]
    pub(crate) fn expr(&mut self, e: &SqlExpr) -> Result<TExpr> {
        self.depth += 1;
        let r = if self.depth > MAX_EXPR_DEPTH {
            Err(too_deep())
        } else if let Some(slot) = self.written_key(e) {
            Ok(slot)
        } else if self.is_whole_key(e) {
            self.without_written_keys(|b| b.expr_inner(e).and_then(fold))
        } else {
            self.expr_inner(e).and_then(fold)
        };
        self.depth -= 1;
        r
    }

    /// Runs `f` with no grouping-set key matched by how it is written.
    fn without_written_keys<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let keys = std::mem::take(&mut self.written_keys);
        let r = f(self);
        self.written_keys = keys;
        r
    }

    /// The slot of the grouping-set key written as `e`, outside aggregate
    /// arguments (which read the input rows).
    fn written_key(&self, e: &SqlExpr) -> Option<TExpr> {
        if self.written_keys.is_empty() || self.aggs.is_none() {
            return None;
        }
        let e = unnested(e);
        self.written_keys
            .iter()
            .find(|(k, _)| k == e)
            .map(|(_, slot)| slot.clone())
    }

    /// Whether `e` is written as one of [`ExprBinder::whole_keys`] (outside
    /// aggregate arguments).
    fn is_whole_key(&self, e: &SqlExpr) -> bool {
        if self.written_keys.is_empty() || self.whole_keys.is_empty() || self.aggs.is_none() {
            return false;
        }
        self.whole_keys.iter().any(|k| k == unnested(e))
    }

    fn expr_inner(&mut self, e: &SqlExpr) -> Result<TExpr> {
        match e {
            SqlExpr::Identifier(i) => self.column(None, &i.value),
            SqlExpr::CompoundIdentifier(parts) => match parts.as_slice() {
                [.., q, name] if parts.len() <= 3 => self.column(Some(&q.value), &name.value),
                _ => unsupported(format!("qualified name {e}")),
            },
            SqlExpr::Nested(x) => self.expr(x),
            SqlExpr::Array(a) => {
                let elems = a
                    .elem
                    .iter()
                    .map(|x| self.expr(x))
                    .collect::<Result<Vec<_>>>()?;
                super::function::list_value(elems)
            }
            SqlExpr::CompoundFieldAccess { root, access_chain } => match access_chain.as_slice() {
                [sql::AccessExpr::Subscript(sql::Subscript::Index { index })] => {
                    let l = self.expr(root)?;
                    let i = self.expr(index)?;
                    super::function::list_extract(l, i)
                }
                _ => unsupported(format!("expression {e}")),
            },
            SqlExpr::Value(v) => literal(&v.value),
            SqlExpr::TypedString(ts) => {
                let to = sql_type(&ts.data_type)?;
                let s = match &ts.value.value {
                    sql::Value::SingleQuotedString(s) => s.clone(),
                    other => other.to_string(),
                };
                cast_to(TExpr::lit(Value::Str(s.into_bytes()), LType::Varchar), to)
            }
            SqlExpr::UnaryOp { op, expr } => {
                if *op == sql::UnaryOperator::Minus {
                    if let Some(lit) = negative_int_literal(expr) {
                        return Ok(lit);
                    }
                }
                // DuckDB's parser folds a minus over a number, and over a
                // folded one, into a constant before anything is bound: the
                // operand of `-(-9223372036854775808)` is not a grouping key
                // written the same way.
                let x = if *op == sql::UnaryOperator::Minus && is_negated_number(expr) {
                    self.without_written_keys(|b| b.expr(expr))?
                } else {
                    self.expr(expr)?
                };
                match op {
                    sql::UnaryOperator::Plus => Ok(x),
                    sql::UnaryOperator::Minus => {
                        if x.ty == LType::Interval {
                            return Ok(super::scalar_fns::interval_neg(x));
                        }
                        if !x.ty.is_numeric() && x.ty != LType::Null {
                            return invalid(format!("cannot negate {}", x.ty));
                        }
                        // Literals fold keeping their type where the negation
                        // fits (DuckDB types `2147483648` BIGINT, so
                        // `-2147483648` is a BIGINT too), else the next wider.
                        if let (Some(v), true) =
                            (x.as_lit(), x.ty.is_integer() || x.ty.phys() == Phys::F64)
                        {
                            let int = |n: i128| {
                                let fits =
                                    x.ty.int_range()
                                        .is_some_and(|(lo, hi)| (lo..=hi).contains(&n));
                                match (fits, x.ty.phys()) {
                                    (true, Phys::I128) => TExpr::lit(Value::Huge(n), x.ty),
                                    (true, Phys::I64) => TExpr::lit(Value::Int(n as i64), x.ty),
                                    _ => literal_int(n),
                                }
                            };
                            return Ok(match v {
                                Value::Int(i) => int(-i128::from(*i)),
                                Value::Huge(i) => int(-*i),
                                Value::UInt(u) => int(-i128::from(*u)),
                                Value::Float(f) => TExpr::lit(Value::Float(-f), x.ty),
                                _ => x.clone(),
                            });
                        }
                        let ty = x.ty;
                        Ok(TExpr {
                            kind: ExprKind::Neg(Box::new(x)),
                            ty,
                        })
                    }
                    sql::UnaryOperator::Not => {
                        let x = self.expect_bool(x, "NOT's operand")?;
                        Ok(TExpr {
                            kind: ExprKind::Not(Box::new(x)),
                            ty: LType::Bool,
                        })
                    }
                    sql::UnaryOperator::BitwiseNot => {
                        super::scalar_fns::bitwise_call(BitOp::Not, vec![x], &[])
                    }
                    other => unsupported(format!("unary operator {other}")),
                }
            }
            SqlExpr::BinaryOp {
                op: op @ (sql::BinaryOperator::And | sql::BinaryOperator::Or),
                ..
            } => self.logical_chain(e, op),
            SqlExpr::BinaryOp {
                op: sql::BinaryOperator::StringConcat,
                ..
            } => {
                let mut args = Vec::new();
                for x in chain_operands(e, &sql::BinaryOperator::StringConcat) {
                    args.push(self.expr(x)?);
                }
                str_call(StrFn::ConcatOp, args)
            }
            SqlExpr::BinaryOp {
                left,
                op:
                    op @ (sql::BinaryOperator::PGLikeMatch
                    | sql::BinaryOperator::PGILikeMatch
                    | sql::BinaryOperator::PGNotLikeMatch
                    | sql::BinaryOperator::PGNotILikeMatch),
                right,
            } => {
                // `~~` is LIKE, `~~*` ILIKE, `!~~` / `!~~*` their negations.
                use sql::BinaryOperator as B;
                let negated = matches!(op, B::PGNotLikeMatch | B::PGNotILikeMatch);
                let (expr, pattern) = (left.clone(), right.clone());
                let like = if matches!(op, B::PGLikeMatch | B::PGNotLikeMatch) {
                    SqlExpr::Like {
                        negated,
                        any: false,
                        expr,
                        pattern,
                        escape_char: None,
                    }
                } else {
                    SqlExpr::ILike {
                        negated,
                        any: false,
                        expr,
                        pattern,
                        escape_char: None,
                    }
                };
                self.expr(&like)
            }
            SqlExpr::BinaryOp { left, op, right } => {
                let (l, r) = (self.expr(left)?, self.expr(right)?);
                let literals = (is_literal_syntax(left), is_literal_syntax(right));
                self.binary(op, l, r, literals)
            }
            SqlExpr::IsNull(x) | SqlExpr::IsNotNull(x) => {
                let x = self.expr(x)?;
                Ok(super::null_test::is_null(
                    x,
                    matches!(e, SqlExpr::IsNotNull(_)),
                ))
            }
            SqlExpr::Between {
                expr,
                negated,
                low,
                high,
            } => {
                let x = self.expr(expr)?;
                let lo = self.expr(low)?;
                let hi = self.expr(high)?;
                let ge = self.compare(CmpOp::Ge, x.clone(), lo)?;
                let le = self.compare(CmpOp::Le, x, hi)?;
                let both = TExpr {
                    kind: ExprKind::And(vec![ge, le]),
                    ty: LType::Bool,
                };
                Ok(if *negated { not(both) } else { both })
            }
            SqlExpr::InList {
                expr,
                list,
                negated,
            } => {
                let x = self.expr(expr)?;
                // A NULL constant is in no list (nor out of one): NULL, the
                // list never evaluated, whatever its types.
                if x.as_lit() == Some(&Value::Null) {
                    return Ok(TExpr::lit(Value::Null, LType::Bool));
                }
                let mut vals = Vec::new();
                let mut others = Vec::new();
                for l in list {
                    let v = self.expr(l)?;
                    match v.as_lit() {
                        Some(lit) => {
                            let to = common_type(&x, &v)?;
                            if to != x.ty {
                                // Fall back to comparisons in the common type.
                                others.push(v);
                                continue;
                            }
                            match cast_value(lit, v.ty, x.ty) {
                                Ok(c) => vals.push(c),
                                Err(_) if v.ty.is_numeric() => {} // can never match
                                Err(e) => return Err(e),
                            }
                        }
                        None => others.push(v),
                    }
                }
                let mut ors = Vec::new();
                if !vals.is_empty() || others.is_empty() {
                    ors.push(TExpr {
                        kind: ExprKind::InList(Box::new(x.clone()), vals, false),
                        ty: LType::Bool,
                    });
                }
                for o in others {
                    ors.push(self.compare(CmpOp::Eq, x.clone(), o)?);
                }
                let any = if ors.len() == 1 {
                    ors.pop()
                        .unwrap_or_else(|| TExpr::lit(Value::Null, LType::Bool))
                } else {
                    TExpr {
                        kind: ExprKind::Or(ors),
                        ty: LType::Bool,
                    }
                };
                Ok(if *negated { not(any) } else { any })
            }
            SqlExpr::Cast {
                kind,
                expr,
                data_type,
                format,
            } => {
                if format.is_some() {
                    return unsupported("CAST ... FORMAT");
                }
                let x = self.expr(expr)?;
                let to = sql_type(data_type)?;
                if matches!(kind, sql::CastKind::TryCast | sql::CastKind::SafeCast) {
                    if x.ty == to {
                        return Ok(x);
                    }
                    return Ok(TExpr {
                        kind: ExprKind::Func(Box::new(crate::expr::scalar::Func::TryCast), vec![x]),
                        ty: to,
                    });
                }
                // A constant that cannot be cast fails where it is
                // evaluated (on no rows, never), as in DuckDB.
                cast_to(x.clone(), to).or_else(|_| {
                    Ok(TExpr {
                        kind: ExprKind::Cast(Box::new(x)),
                        ty: to,
                    })
                })
            }
            SqlExpr::Extract { field, expr, .. } => {
                let x = self.expr(expr)?;
                let part = date_part(&field.to_string())?;
                if x.ty == LType::Interval {
                    return super::scalar_fns::interval_part(part, x);
                }
                if !matches!(x.ty, LType::Date | LType::Timestamp) {
                    return invalid(format!("EXTRACT needs a DATE or TIMESTAMP, not {}", x.ty));
                }
                Ok(extract_expr(part, x))
            }
            SqlExpr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => {
                let op = match operand {
                    Some(o) => Some(self.expr(o)?),
                    None => None,
                };
                let mut whens = Vec::new();
                for cw in conditions {
                    let c = self.expr(&cw.condition)?;
                    let c = match &op {
                        Some(o) => fold(self.compare(CmpOp::Eq, o.clone(), c)?)?,
                        None => self.expect_bool(c, "CASE WHEN")?,
                    };
                    whens.push((c, self.expr(&cw.result)?));
                }
                let els = match else_result {
                    Some(e) => Some(self.expr(e)?),
                    None => None,
                };
                let mut ty = LType::Null;
                for v in whens.iter().map(|(_, v)| v).chain(els.iter()) {
                    let probe = TExpr::lit(Value::Null, ty);
                    ty = combined_type(&probe, v)?;
                }
                // A branch whose condition is a constant FALSE or NULL is
                // never taken, and one that is constant TRUE takes every row
                // left: the branches after it are never reached. The type
                // stays the one of all branches, as in DuckDB.
                let mut out = Vec::new();
                let mut els = els;
                for (c, v) in whens {
                    match c.as_lit() {
                        Some(Value::Bool(false) | Value::Null) => {}
                        Some(Value::Bool(true)) => {
                            els = Some(v);
                            break;
                        }
                        _ => out.push((c, cast_to(v, ty)?)),
                    }
                }
                let els = match els {
                    Some(e) => Some(Box::new(cast_to(e, ty)?)),
                    None => None,
                };
                if out.is_empty() {
                    return Ok(match els {
                        Some(e) => *e,
                        None => TExpr::lit(Value::Null, ty),
                    });
                }
                Ok(TExpr {
                    kind: ExprKind::Case(out, els),
                    ty,
                })
            }
            SqlExpr::Like {
                negated,
                any,
                expr,
                pattern,
                escape_char,
            }
            | SqlExpr::ILike {
                negated,
                any,
                expr,
                pattern,
                escape_char,
            } => {
                if *any {
                    return unsupported("LIKE ANY");
                }
                let ci = matches!(e, SqlExpr::ILike { .. });
                let x = self.expr(expr)?;
                let p = self.expr(pattern)?;
                let esc = match escape_char {
                    None => None,
                    Some(c) => match self.expr(c)?.as_lit() {
                        Some(Value::Str(s)) if s.len() <= 1 => s.first().copied(),
                        _ => return invalid("ESCAPE must be a single character"),
                    },
                };
                if x.ty == LType::Null || p.ty == LType::Null {
                    return Ok(TExpr::lit(Value::Null, LType::Bool));
                }
                let (Some(Value::Str(p)), LType::Varchar) = (p.as_lit(), x.ty) else {
                    return unsupported("LIKE with a non-constant pattern or a non-string operand");
                };
                Ok(TExpr {
                    kind: ExprKind::Like(
                        Box::new(x),
                        Box::new(crate::expr::like::LikePattern::new(p, esc, ci)?),
                        *negated,
                    ),
                    ty: LType::Bool,
                })
            }
            SqlExpr::Substring {
                expr,
                substring_from,
                substring_for,
                ..
            } => {
                let mut args = vec![self.expr(expr)?];
                match substring_from {
                    Some(f) => args.push(self.expr(f)?),
                    None => args.push(literal_int(1)),
                }
                if let Some(f) = substring_for {
                    args.push(self.expr(f)?);
                }
                str_call(StrFn::Substring, args)
            }
            SqlExpr::Trim {
                trim_where,
                trim_what,
                expr,
                trim_characters,
            } => {
                let (l, r) = match trim_where {
                    None | Some(sql::TrimWhereField::Both) => (true, true),
                    Some(sql::TrimWhereField::Leading) => (true, false),
                    Some(sql::TrimWhereField::Trailing) => (false, true),
                };
                let mut args = vec![self.expr(expr)?];
                if let Some(w) = trim_what {
                    args.push(self.expr(w)?);
                }
                if let Some([c]) = trim_characters.as_deref() {
                    args.push(self.expr(c)?);
                }
                str_call(StrFn::Trim(l, r), args)
            }
            SqlExpr::Function(f) => self.function(f),
            SqlExpr::Floor { expr, field } | SqlExpr::Ceil { expr, field } => {
                if !matches!(
                    field,
                    sql::CeilFloorKind::DateTimeField(sql::DateTimeField::NoDateTime)
                ) {
                    return unsupported(format!("{e}"));
                }
                let mode = if matches!(e, SqlExpr::Floor { .. }) {
                    Rounding::Floor
                } else {
                    Rounding::Ceil
                };
                rounding_call(mode, self.expr(expr)?)
            }
            SqlExpr::Subquery(q) => self.subquery(q, SubqueryKind::Scalar),
            SqlExpr::Exists { subquery, negated } => {
                let e = self.subquery(subquery, SubqueryKind::Exists)?;
                Ok(if *negated { not(e) } else { e })
            }
            SqlExpr::InSubquery {
                expr,
                subquery,
                negated,
            } => {
                let x = self.expr(expr)?;
                let e = self.subquery(subquery, SubqueryKind::In { expr: x })?;
                Ok(if *negated { not(e) } else { e })
            }
            SqlExpr::Interval(i) => self.interval_expr(i),
            SqlExpr::IsDistinctFrom(a, b) | SqlExpr::IsNotDistinctFrom(a, b) => {
                let (a, b) = (self.expr(a)?, self.expr(b)?);
                let not = matches!(e, SqlExpr::IsNotDistinctFrom(..));
                // Against a NULL constant of any type: whether the other
                // side is (not) NULL.
                let null = |x: &TExpr| x.as_lit() == Some(&Value::Null);
                if null(&a) || null(&b) {
                    let other = if null(&a) { b } else { a };
                    return Ok(TExpr {
                        kind: ExprKind::IsNull(Box::new(other), !not),
                        ty: LType::Bool,
                    });
                }
                let ty = common_type(&a, &b)?;
                Ok(TExpr {
                    kind: ExprKind::Func(
                        Box::new(crate::expr::scalar::Func::Distinct(not)),
                        vec![cast_to(a, ty)?, cast_to(b, ty)?],
                    ),
                    ty: LType::Bool,
                })
            }
            SqlExpr::SimilarTo {
                negated,
                expr,
                pattern,
                escape_char,
            } => {
                if escape_char.is_some() {
                    return unsupported("SIMILAR TO ... ESCAPE");
                }
                let (x, p) = (self.expr(expr)?, self.expr(pattern)?);
                super::scalar_fns::regex_op(x, p, false, *negated, true)
            }
            SqlExpr::Position { expr, r#in } => {
                let (needle, hay) = (self.expr(expr)?, self.expr(r#in)?);
                str_call(StrFn::Strpos, vec![hay, needle])
            }
            other => unsupported(format!("expression {other}")),
        }
    }

    /// Binds `l op r`; `literals` says which operands are written as
    /// literals (an integer literal takes the other side's integer type
    /// when it fits; a folded constant expression keeps its own).
    fn binary(
        &mut self,
        op: &sql::BinaryOperator,
        l: TExpr,
        r: TExpr,
        literals: (bool, bool),
    ) -> Result<TExpr> {
        use sql::BinaryOperator as B;
        let arith = match op {
            B::Plus => Some(ArithOp::Add),
            B::Minus => Some(ArithOp::Sub),
            B::Multiply => Some(ArithOp::Mul),
            B::Divide => Some(ArithOp::Div),
            B::DuckIntegerDivide | B::MyIntegerDivide => Some(ArithOp::IntDiv),
            B::Modulo => Some(ArithOp::Mod),
            _ => None,
        };
        if let Some(a) = arith {
            return self.arith(a, l, r, literals);
        }
        let cmp = match op {
            B::Eq => Some(CmpOp::Eq),
            B::NotEq => Some(CmpOp::Ne),
            B::Lt => Some(CmpOp::Lt),
            B::LtEq => Some(CmpOp::Le),
            B::Gt => Some(CmpOp::Gt),
            B::GtEq => Some(CmpOp::Ge),
            _ => None,
        };
        if let Some(c) = cmp {
            return self.compare(c, l, r);
        }
        let regex = match op {
            B::PGRegexMatch => Some((false, false)),
            B::PGRegexIMatch => Some((true, false)),
            B::PGRegexNotMatch => Some((false, true)),
            B::PGRegexNotIMatch => Some((true, true)),
            _ => None,
        };
        if let Some((ci, negated)) = regex {
            return super::scalar_fns::regex_op(l, r, ci, negated, false);
        }
        let bit = match op {
            B::BitwiseAnd => Some(BitOp::And),
            B::BitwiseOr => Some(BitOp::Or),
            B::PGBitwiseShiftLeft => Some(BitOp::Shl),
            B::PGBitwiseShiftRight => Some(BitOp::Shr),
            _ => None,
        };
        if let Some(b) = bit {
            return super::scalar_fns::bitwise_call(b, vec![l, r], &[literals.0, literals.1]);
        }
        unsupported(format!("operator {op}"))
    }

    pub(crate) fn arith(
        &mut self,
        op: ArithOp,
        l: TExpr,
        r: TExpr,
        literals: (bool, bool),
    ) -> Result<TExpr> {
        if let Some(e) = super::scalar_fns::time_arith(op, l.clone(), r.clone())? {
            return Ok(e);
        }
        for x in [&l, &r] {
            if !x.ty.is_numeric() && !matches!(x.ty, LType::Null | LType::Date) {
                return invalid(format!("cannot apply arithmetic to {} (operand {x})", x.ty));
            }
        }
        // Date arithmetic: DATE +/- integer days, DATE - DATE.
        if l.ty == LType::Date || r.ty == LType::Date {
            let ty = match (op, l.ty, r.ty) {
                (ArithOp::Add | ArithOp::Sub, LType::Date, t) | (ArithOp::Add, t, LType::Date)
                    if t.is_integer() || t == LType::Null =>
                {
                    Some(LType::Date)
                }
                (ArithOp::Sub, LType::Null | LType::Date, LType::Date) => Some(LType::Int64),
                _ => None,
            };
            // With a NULL constant the other side is never evaluated.
            if let (Some(ty), true) = (ty, either_null_constant(&l, &r)) {
                return Ok(TExpr::lit(Value::Null, ty));
            }
            return match (op, l.ty, r.ty) {
                (ArithOp::Add | ArithOp::Sub, LType::Date, t)
                    if t.is_integer() || t == LType::Null =>
                {
                    let r = cast_to(r, LType::Int64)?;
                    Ok(TExpr {
                        kind: ExprKind::Arith(op, Box::new(l), Box::new(r)),
                        ty: LType::Date,
                    })
                }
                (ArithOp::Add, t, LType::Date) if t.is_integer() || t == LType::Null => {
                    let l = cast_to(l, LType::Int64)?;
                    Ok(TExpr {
                        kind: ExprKind::Arith(op, Box::new(r), Box::new(l)),
                        ty: LType::Date,
                    })
                }
                // Days between: DATEs are day numbers, subtracted as BIGINTs
                // (an untyped NULL minus a DATE is a BIGINT NULL too).
                (ArithOp::Sub, LType::Null, LType::Date) => {
                    Ok(TExpr::lit(Value::Null, LType::Int64))
                }
                (ArithOp::Sub, LType::Date, LType::Date) => Ok(TExpr {
                    kind: ExprKind::Arith(op, Box::new(l), Box::new(r)),
                    ty: LType::Int64,
                }),
                _ => invalid(format!("cannot apply {op:?} to {} and {}", l.ty, r.ty)),
            };
        }
        // DuckDB types an untyped NULL added to, subtracted from,
        // multiplied with or taken modulo a DECIMAL as an untyped NULL.
        let decimal = |t: LType| matches!(t, LType::Decimal(..));
        if matches!(
            op,
            ArithOp::Add | ArithOp::Sub | ArithOp::Mul | ArithOp::Mod
        ) && ((l.ty == LType::Null && decimal(r.ty)) || (r.ty == LType::Null && decimal(l.ty)))
        {
            return Ok(TExpr::lit(Value::Null, LType::Null));
        }
        if let Some(e) = decimal_arith(op, &l, &r)? {
            return e.with(l, r);
        }
        let float = |t: LType| t == LType::Float;
        let ty = if op == ArithOp::Div {
            // A FLOAT divided by anything but a DOUBLE stays FLOAT.
            let (lt, rt) = (l.ty, r.ty);
            if (float(lt) && rt != LType::Double) || (float(rt) && lt != LType::Double) {
                LType::Float
            } else {
                LType::Double
            }
        } else {
            let typing = |e: &TExpr, literal: bool| TExpr {
                kind: if literal || e.as_lit().is_none() {
                    e.kind.clone()
                } else {
                    ExprKind::Col(0)
                },
                ty: e.ty,
            };
            match common_type(&typing(&l, literals.0), &typing(&r, literals.1))? {
                LType::Null => LType::Int32,
                LType::Decimal(..) => LType::Double,
                t => t,
            }
        };
        // Arithmetic with a NULL constant is NULL: the other side is never
        // evaluated (as in DuckDB), so it cannot fail.
        if either_null_constant(&l, &r) {
            return Ok(TExpr::lit(Value::Null, ty));
        }
        let (l, r) = (cast_to(l, ty)?, cast_to(r, ty)?);
        Ok(TExpr {
            kind: ExprKind::Arith(op, Box::new(l), Box::new(r)),
            ty,
        })
    }

    fn compare(&mut self, op: CmpOp, l: TExpr, r: TExpr) -> Result<TExpr> {
        // A comparison with a NULL constant is NULL whatever the other side
        // (which, as in DuckDB, is then never evaluated and cannot fail),
        // even a typed NULL of a type the other side does not compare with.
        if either_null_constant(&l, &r) {
            return Ok(TExpr::lit(Value::Null, LType::Bool));
        }
        let ty = common_type(&l, &r)?;
        if let LType::List(_) = ty {
            return unsupported(format!("comparing {ty} values"));
        }
        let (l, r) = (cast_to(l, ty)?, cast_to(r, ty)?);
        Ok(TExpr {
            kind: ExprKind::Cmp(op, Box::new(l), Box::new(r)),
            ty: LType::Bool,
        })
    }
}

/// Whether `l` or `r` is a NULL constant: a binary operator over it is NULL
/// without evaluating the other side.
fn either_null_constant(l: &TExpr, r: &TExpr) -> bool {
    [l, r].iter().any(|x| x.as_lit() == Some(&Value::Null))
}

/// Whether `e` is written as a literal (possibly negated or parenthesised).
fn is_literal_syntax(e: &SqlExpr) -> bool {
    match e {
        SqlExpr::Value(_) | SqlExpr::TypedString(_) => true,
        SqlExpr::Nested(x) => is_literal_syntax(x),
        SqlExpr::UnaryOp {
            op: sql::UnaryOperator::Minus | sql::UnaryOperator::Plus,
            expr,
        } => matches!(&**expr, SqlExpr::Value(_)),
        _ => false,
    }
}

/// Whether `e` is a number under minus signs and parentheses only.
fn is_negated_number(e: &SqlExpr) -> bool {
    match e {
        SqlExpr::Value(v) => matches!(v.value, sql::Value::Number(..)),
        SqlExpr::Nested(x) => is_negated_number(x),
        SqlExpr::UnaryOp {
            op: sql::UnaryOperator::Minus,
            expr,
        } => is_negated_number(expr),
        _ => false,
    }
}

/// `-<digits>` typed as DuckDB's parser types it: the sign joins the
/// number's text, so a number past INTEGER's range gives the narrowest of
/// BIGINT and HUGEINT that holds the negative value (`-9223372036854775808`
/// is a BIGINT, though `9223372036854775808` is a HUGEINT), and one within
/// it stays an INTEGER. `None` for anything else, which negates as usual.
fn negative_int_literal(expr: &SqlExpr) -> Option<TExpr> {
    let mut e = expr;
    while let SqlExpr::Nested(inner) = e {
        e = inner;
    }
    let SqlExpr::Value(v) = e else { return None };
    let sql::Value::Number(n, _) = &v.value else {
        return None;
    };
    if !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let neg: i128 = format!("-{n}").parse().ok()?;
    if neg.checked_neg().is_some_and(|p| i32::try_from(p).is_ok()) {
        return Some(TExpr::lit(Value::Int(neg as i64), LType::Int32));
    }
    Some(match i64::try_from(neg) {
        Ok(v) => TExpr::lit(Value::Int(v), LType::Int64),
        Err(_) => TExpr::lit(Value::Huge(neg), LType::HugeInt),
    })
}

/// `e` without the parentheses around it.
fn unnested(mut e: &SqlExpr) -> &SqlExpr {
    while let SqlExpr::Nested(inner) = e {
        e = inner;
    }
    e
}

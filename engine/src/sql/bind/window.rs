//! Window function calls (`f(...) OVER (...)`): their windows (named ones
//! from the WINDOW clause, and windows extending a named one), frames,
//! arguments and result types, with DuckDB's rules. A call is bound where
//! it is written and collected in the SELECT's [`WindowCtx`]; the
//! expression holds a placeholder the SELECT replaces by the column of the
//! Window node computing it ([`window_node`], [`window_columns`]).
//!
//! Aggregates over windows are bound by [`ExprBinder::aggregate_call`],
//! like any aggregate, over columns standing for their already bound
//! arguments; so every aggregate the binder knows works over windows.

use sqlparser::ast::{self as sql, Expr as SqlExpr};

use super::aggregate::AggCtx;
use super::coerce::{cast_to, common_type};
use super::expr::ExprBinder;
use super::function::func_name;
use super::literal::fold;
use super::query::order_key;
use super::scope::Scope;
use crate::agg::func::{AggCall, AggFunc};
use crate::error::{invalid, unsupported, EngineError, Result};
use crate::expr::{ArithOp, ExprKind, TExpr};
use crate::plan::window::{Exclude, Frame, FrameBound, FrameUnits, Offset, WindowCall, WindowFunc};
use crate::plan::{Column, LogicalPlan};
use crate::value::{LType, Value};

/// The window calls of one SELECT and its named windows.
#[derive(Debug, Default)]
pub(crate) struct WindowCtx {
    /// `WINDOW name AS (...)`, each resolved against those before it.
    named: Vec<(String, sql::WindowSpec)>,
    /// The calls met, in order (placeholder `Window(k)` is the `k`-th).
    pub calls: Vec<WindowCall>,
    /// Whether a call's arguments or window are being bound (calls do not
    /// nest).
    inside: bool,
}

impl WindowCtx {
    /// The context of a SELECT with the WINDOW clause `named`.
    pub(crate) fn new(named: &[sql::NamedWindowDefinition]) -> Result<WindowCtx> {
        let mut ctx = WindowCtx::default();
        for sql::NamedWindowDefinition(name, expr) in named {
            if ctx.find(&name.value).is_some() {
                return invalid(format!("window \"{}\" is already defined", name.value));
            }
            let spec = match expr {
                sql::NamedWindowExpr::NamedWindow(other) => ctx.named_spec(&other.value)?.clone(),
                sql::NamedWindowExpr::WindowSpec(s) => ctx.extend(s)?,
            };
            ctx.named.push((name.value.clone(), spec));
        }
        Ok(ctx)
    }

    fn find(&self, name: &str) -> Option<&sql::WindowSpec> {
        self.named
            .iter()
            .find(|(n, _)| n == name)
            .or_else(|| {
                self.named
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case(name))
            })
            .map(|(_, s)| s)
    }

    fn named_spec(&self, name: &str) -> Result<&sql::WindowSpec> {
        self.find(name)
            .ok_or_else(|| EngineError::Invalid(format!("window \"{name}\" does not exist")))
    }

    /// A window written in parentheses, on top of the named window it
    /// starts with, if any: it may add ORDER BY and a frame the named one
    /// lacks, never PARTITION BY.
    fn extend(&self, s: &sql::WindowSpec) -> Result<sql::WindowSpec> {
        let Some(base) = &s.window_name else {
            return Ok(s.clone());
        };
        let (base_name, _) = exclude_marker(&base.value);
        let Some(base_name) = base_name else {
            return Ok(s.clone());
        };
        let b = self.named_spec(base_name)?;
        if !s.partition_by.is_empty() {
            return invalid(format!(
                "Cannot override PARTITION BY clause of window \"{base_name}\""
            ));
        }
        if !s.order_by.is_empty() && !b.order_by.is_empty() {
            return invalid(format!(
                "Cannot override ORDER BY clause of window \"{base_name}\""
            ));
        }
        if b.window_frame.is_some() {
            return invalid(format!(
                "cannot copy window \"{base_name}\" because it has a frame clause"
            ));
        }
        let order_by = if s.order_by.is_empty() {
            b.order_by.clone()
        } else {
            s.order_by.clone()
        };
        // Keep an EXCLUDE marker (see `crate::sql::exclude`), dropping the
        // base name.
        let window_name = exclude_marker(&base.value)
            .1
            .map(|_| sql::Ident::new(strip_base(&base.value)));
        Ok(sql::WindowSpec {
            window_name,
            partition_by: b.partition_by.clone(),
            order_by,
            window_frame: s.window_frame.clone(),
        })
    }

    /// The window of an OVER clause.
    fn resolve(&self, over: &sql::WindowType) -> Result<sql::WindowSpec> {
        match over {
            sql::WindowType::NamedWindow(name) => self.named_spec(&name.value).cloned(),
            sql::WindowType::WindowSpec(s) => self.extend(s),
        }
    }
}

/// A window name as the parser passes it: the named window it extends
/// (if any) and the EXCLUDE clause carried in it (see
/// [`crate::sql::exclude`]).
fn exclude_marker(name: &str) -> (Option<&str>, Option<Exclude>) {
    match crate::sql::exclude::decode(name) {
        Some((base, ex)) => ((!base.is_empty()).then_some(base), Some(ex)),
        None => (Some(name), None),
    }
}

/// A marker name without the base window's name.
fn strip_base(name: &str) -> String {
    match crate::sql::exclude::decode(name) {
        Some((_, ex)) => crate::sql::exclude::encode("", ex),
        None => String::new(),
    }
}

/// `plan` under a Window node computing `calls` (`plan` itself when there
/// are none), and the column of the first call.
pub(crate) fn window_node(plan: LogicalPlan, calls: Vec<WindowCall>) -> (LogicalPlan, usize) {
    let first = plan.columns().len();
    if calls.is_empty() {
        return (plan, first);
    }
    (
        LogicalPlan::Window {
            input: plan.boxed(),
            calls,
        },
        first,
    )
}

/// `e` with each window placeholder `Window(k)` replaced by column
/// `first + k`.
pub(crate) fn window_columns(e: TExpr, first: usize) -> TExpr {
    e.transform(&mut |x| match x.kind {
        ExprKind::Window(k) => TExpr {
            kind: ExprKind::Col(first + k),
            ty: x.ty,
        },
        _ => x,
    })
}

/// Rewrites every expression of the calls by `f`.
pub(crate) fn map_call_exprs(
    calls: &mut [WindowCall],
    f: &mut dyn FnMut(TExpr) -> Result<TExpr>,
) -> Result<()> {
    for c in calls {
        for e in c.exprs_mut() {
            let taken = std::mem::replace(e, TExpr::lit(Value::Null, LType::Null));
            *e = f(taken)?;
        }
    }
    Ok(())
}

/// An integer argument (a count, an offset) as BIGINT: integers, NULL and
/// strings (cast) are accepted.
fn count_arg(e: TExpr, what: &str) -> Result<TExpr> {
    match e.ty {
        t if t.is_integer() || t == LType::Null || t == LType::Varchar => {
            fold(cast_to(e, LType::Int64)?)
        }
        t => invalid(format!("{what} must be an integer, not {t}")),
    }
}

impl ExprBinder<'_> {
    /// Binds `f(...) OVER (...)`: the call joins the SELECT's window calls,
    /// the expression is its placeholder.
    pub(crate) fn window_call(&mut self, f: &sql::Function) -> Result<TExpr> {
        let name = func_name(f);
        let Some(ctx) = self.windows.as_mut() else {
            return invalid(format!(
                "window function {name}() is not allowed here (only in the select list, \
                 QUALIFY and ORDER BY)"
            ));
        };
        if ctx.inside {
            return invalid("window function calls cannot be nested");
        }
        let over = f
            .over
            .as_ref()
            .ok_or_else(|| EngineError::Internal("window call without OVER".into()))?;
        let spec = ctx.resolve(over)?;
        ctx.inside = true;
        let call = self.window_call_inner(f, &name, &spec);
        if let Some(ctx) = self.windows.as_mut() {
            ctx.inside = false;
        }
        let call = call?;
        let ty = call.ty;
        let ctx = self
            .windows
            .as_mut()
            .ok_or_else(|| EngineError::Internal("window context lost".into()))?;
        let k = match ctx.calls.iter().position(|c| *c == call) {
            Some(k) => k,
            None => {
                ctx.calls.push(call);
                ctx.calls.len() - 1
            }
        };
        Ok(TExpr {
            kind: ExprKind::Window(k),
            ty,
        })
    }

    fn window_call_inner(
        &mut self,
        f: &sql::Function,
        name: &str,
        spec: &sql::WindowSpec,
    ) -> Result<WindowCall> {
        if !f.within_group.is_empty() {
            return unsupported(format!("{name}() with WITHIN GROUP over a window"));
        }
        let mut arg_order: Vec<sql::OrderByExpr> = Vec::new();
        let mut ignore_nulls = matches!(f.null_treatment, Some(sql::NullTreatment::IgnoreNulls));
        let (args, distinct) = match &f.args {
            sql::FunctionArguments::None => (Vec::new(), false),
            sql::FunctionArguments::Subquery(_) => {
                return unsupported("a subquery as a window function's arguments")
            }
            sql::FunctionArguments::List(l) => {
                for c in &l.clauses {
                    match c {
                        sql::FunctionArgumentClause::IgnoreOrRespectNulls(t) => {
                            ignore_nulls = matches!(t, sql::NullTreatment::IgnoreNulls)
                        }
                        sql::FunctionArgumentClause::OrderBy(o) => arg_order = o.clone(),
                        other => return unsupported(format!("{name}() argument clause {other}")),
                    }
                }
                let distinct = matches!(
                    l.duplicate_treatment,
                    Some(sql::DuplicateTreatment::Distinct)
                );
                let mut out = Vec::new();
                for a in &l.args {
                    match a {
                        sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(e)) => {
                            let mut e = e.clone();
                            ignore_nulls |= take_null_treatment(&mut e);
                            out.push(Some(e))
                        }
                        sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Wildcard) => out.push(None),
                        other => return unsupported(format!("function argument {other}")),
                    }
                }
                (out, distinct)
            }
        };
        let func = match WindowFunc::from_name(name) {
            Some(w) => w,
            None => match AggFunc::from_name(name) {
                Some(a) => {
                    let clauses = AggClauses {
                        distinct,
                        filter: f.filter.as_deref(),
                        order: &arg_order,
                    };
                    WindowFunc::Aggregate(Box::new(self.window_aggregate(name, a, &args, clauses)?))
                }
                None => return unsupported(format!("window function {name}()")),
            },
        };
        if ignore_nulls && !func.takes_null_treatment() {
            return invalid(format!(
                "RESPECT/IGNORE NULLS is not supported for {name}() over a window"
            ));
        }
        if distinct && !matches!(func, WindowFunc::Aggregate(_)) {
            return invalid(format!("DISTINCT is not supported for {name}()"));
        }
        if !matches!(func, WindowFunc::Aggregate(_)) {
            if f.filter.is_some() {
                return unsupported(format!("FILTER in {name}() over a window"));
            }
            if !arg_order.is_empty() {
                return unsupported(format!("ORDER BY in the arguments of {name}()"));
            }
        }
        // The function's own arguments.
        let mut bound = Vec::new();
        if !matches!(func, WindowFunc::Aggregate(_)) {
            for a in &args {
                match a {
                    Some(e) => bound.push(self.expr(e)?),
                    None => return invalid(format!("{name}(*) is not a function")),
                }
            }
        }
        let arity = |lo: usize, hi: usize| -> Result<()> {
            if bound.len() < lo || bound.len() > hi {
                let types: Vec<String> = bound.iter().map(|b| b.ty.name()).collect();
                return invalid(format!(
                    "No function matches {name}({}) over a window",
                    types.join(", ")
                ));
            }
            Ok(())
        };
        let (args, ty) = match &func {
            WindowFunc::RowNumber
            | WindowFunc::Rank
            | WindowFunc::DenseRank
            | WindowFunc::Ntile
            | WindowFunc::PercentRank
            | WindowFunc::CumeDist => {
                let n = usize::from(func == WindowFunc::Ntile);
                arity(n, n)?;
                let ty = match func {
                    WindowFunc::PercentRank | WindowFunc::CumeDist => LType::Double,
                    _ => LType::Int64,
                };
                let mut args = Vec::new();
                for b in bound {
                    args.push(count_arg(b, "ntile's argument")?);
                }
                (args, ty)
            }
            WindowFunc::Lag | WindowFunc::Lead => {
                arity(1, 3)?;
                let mut it = bound.into_iter();
                let x = it
                    .next()
                    .ok_or_else(|| EngineError::Internal("lag".into()))?;
                let ty = x.ty;
                let mut args = vec![x];
                match it.next() {
                    Some(o) => args.push(count_arg(o, &format!("{name}'s offset"))?),
                    None => args.push(TExpr::lit(Value::Int(1), LType::Int64)),
                }
                if let Some(d) = it.next() {
                    args.push(fold(cast_to(d, ty)?)?);
                }
                (args, ty)
            }
            WindowFunc::FirstValue | WindowFunc::LastValue => {
                arity(1, 1)?;
                let ty = bound[0].ty;
                (bound, ty)
            }
            WindowFunc::NthValue => {
                arity(2, 2)?;
                let mut it = bound.into_iter();
                let x = it
                    .next()
                    .ok_or_else(|| EngineError::Internal("nth".into()))?;
                let ty = x.ty;
                let n = it
                    .next()
                    .ok_or_else(|| EngineError::Internal("nth".into()))?;
                (vec![x, count_arg(n, "nth_value's position")?], ty)
            }
            WindowFunc::Aggregate(a) => (Vec::new(), a.ty),
        };
        let mut partition = Vec::new();
        for e in &spec.partition_by {
            partition.push(self.expr(e)?);
        }
        let mut order = Vec::new();
        for o in &spec.order_by {
            let e = self.expr(&o.expr)?;
            order.push(order_key(e, o)?);
        }
        let exclude = spec
            .window_name
            .as_ref()
            .and_then(|n| exclude_marker(&n.value).1)
            .unwrap_or(Exclude::NoOthers);
        let frame = match &spec.window_frame {
            None => Frame {
                exclude,
                ..Frame::default_frame()
            },
            Some(w) => self.frame(w, spec, &order, exclude)?,
        };
        Ok(WindowCall {
            func,
            args,
            ignore_nulls,
            partition,
            order,
            frame,
            ty,
            name: f.to_string(),
        })
    }

    /// An aggregate over a window: its arguments bound here (in a grouped
    /// query aggregates inside them become slots), the call itself by
    /// [`ExprBinder::aggregate_call`] over columns standing for them.
    fn window_aggregate(
        &mut self,
        name: &str,
        func: AggFunc,
        args: &[Option<SqlExpr>],
        clauses: AggClauses,
    ) -> Result<AggCall> {
        let mut bound = Vec::new();
        let mut columns = Vec::new();
        // An expression bound here, and what the call sees in its place: a
        // constant as written, anything else a column of its own.
        let mut stand_in = |b: &mut Self, e: &SqlExpr| -> Result<SqlExpr> {
            let x = b.expr(e)?;
            // (A constant written with columns or the query's aggregates,
            // `NULL % c0` or `NULL + count(*)`, is a column like any other
            // expression: the call's own scope has neither.)
            if x.is_constant() && !names_columns(e) && !super::aggregate::contains_agg(e) {
                return Ok(e.clone());
            }
            // One column per distinct expression: DISTINCT checks that the
            // ORDER BY keys are arguments.
            if let Some(k) = bound.iter().position(|y| *y == x) {
                return Ok(SqlExpr::Identifier(sql::Ident::new(format!("#arg{k}"))));
            }
            let col = format!("#arg{}", columns.len());
            columns.push(Column::new(col.clone(), x.ty));
            bound.push(x);
            Ok(SqlExpr::Identifier(sql::Ident::new(col)))
        };
        let mut stand_ins = Vec::new();
        for a in args {
            stand_ins.push(a.as_ref().map(|e| stand_in(self, e)).transpose()?);
        }
        let filter = clauses
            .filter
            .map(|e| stand_in(self, e).map(Box::new))
            .transpose()?;
        let mut order = Vec::new();
        for o in clauses.order {
            order.push(sql::OrderByExpr {
                expr: stand_in(self, &o.expr)?,
                ..o.clone()
            });
        }
        let scope = Scope::new(columns);
        let mut b = ExprBinder::new(&scope);
        b.aggs = Some(AggCtx {
            aggs: Vec::new(),
            nkeys: 0,
            groups_have_rows: false,
        });
        let call_args = stand_ins
            .iter()
            .map(|a| {
                sql::FunctionArg::Unnamed(match a {
                    Some(e) => sql::FunctionArgExpr::Expr(e.clone()),
                    None => sql::FunctionArgExpr::Wildcard,
                })
            })
            .collect();
        let f = sql::Function {
            name: sql::ObjectName::from(vec![sql::Ident::new(name)]),
            uses_odbc_syntax: false,
            parameters: sql::FunctionArguments::None,
            args: sql::FunctionArguments::List(sql::FunctionArgumentList {
                duplicate_treatment: clauses
                    .distinct
                    .then_some(sql::DuplicateTreatment::Distinct),
                args: call_args,
                clauses: if order.is_empty() {
                    Vec::new()
                } else {
                    vec![sql::FunctionArgumentClause::OrderBy(order)]
                },
            }),
            within_group: Vec::new(),
            filter,
            null_treatment: None,
            over: None,
        };
        b.aggregate_call(name, func, &f)?;
        let mut call = b
            .aggs
            .take()
            .and_then(|c| c.aggs.into_iter().next())
            .ok_or_else(|| EngineError::Internal("window aggregate not bound".into()))?;
        call.args = call
            .args
            .into_iter()
            .map(|a| a.substitute(&bound))
            .collect();
        call.filter = call.filter.map(|x| x.substitute(&bound));
        for o in &mut call.order {
            o.expr = o.expr.clone().substitute(&bound);
        }
        Ok(call)
    }

    /// A frame clause, checked as DuckDB checks it.
    fn frame(
        &mut self,
        w: &sql::WindowFrame,
        spec: &sql::WindowSpec,
        order: &[crate::plan::OrderKey],
        exclude: Exclude,
    ) -> Result<Frame> {
        use sql::WindowFrameBound as B;
        let units = match w.units {
            sql::WindowFrameUnits::Rows => FrameUnits::Rows,
            sql::WindowFrameUnits::Range => FrameUnits::Range,
            sql::WindowFrameUnits::Groups => FrameUnits::Groups,
        };
        let end = w.end_bound.clone().unwrap_or(B::CurrentRow);
        let start = &w.start_bound;
        match (start, &end) {
            (B::Following(None), _) => return invalid("Frame start cannot be UNBOUNDED FOLLOWING"),
            (_, B::Preceding(None)) => return invalid("Frame end cannot be UNBOUNDED PRECEDING"),
            (B::CurrentRow, B::Preceding(_)) => {
                return invalid("Frame starting from current row cannot have preceding rows")
            }
            (B::Following(_), B::Preceding(_)) => {
                return invalid("Frame starting from following row cannot have preceding rows")
            }
            (B::Following(_), B::CurrentRow) => {
                return invalid("Frame starting from following row cannot end with current row")
            }
            _ => {}
        }
        let has_offset = |b: &B| matches!(b, B::Preceding(Some(_)) | B::Following(Some(_)));
        let range_offsets = units == FrameUnits::Range && (has_offset(start) || has_offset(&end));
        if range_offsets && spec.order_by.len() != 1 {
            return invalid("RANGE frames must have only one ORDER BY expression");
        }
        let mut range_key = None;
        let mut bound_of = |b: &B| -> Result<FrameBound> {
            Ok(match b {
                B::CurrentRow => FrameBound::CurrentRow,
                B::Preceding(None) => FrameBound::UnboundedPreceding,
                B::Following(None) => FrameBound::UnboundedFollowing,
                B::Preceding(Some(n)) | B::Following(Some(n)) => {
                    let preceding = matches!(b, B::Preceding(_));
                    let what = if preceding { "PRECEDING" } else { "FOLLOWING" };
                    let offset = if units == FrameUnits::Range {
                        let k = &order[0];
                        // An interval is no value of its own (only `key ± n` is).
                        let nb = match &**n {
                            SqlExpr::Interval(_) => TExpr::lit(Value::Int(0), LType::Int64),
                            _ => fold(self.expr(n)?)?,
                        };
                        if let Some(v) = nb.as_lit() {
                            if is_negative(v) {
                                return invalid(format!("Invalid RANGE {what} value"));
                            }
                        }
                        // The key minus the offset before the row in
                        // the order's direction, plus after it.
                        let minus = preceding != k.desc;
                        let op = if minus { ArithOp::Sub } else { ArithOp::Add };
                        // An integer key is offset as a HUGEINT: the bound
                        // of a key at its type's edge is past the type, not
                        // an overflow (DuckDB answers such frames).
                        let key = if k.expr.ty.is_integer() && k.expr.ty != LType::HugeInt {
                            cast_to(k.expr.clone(), LType::HugeInt)?
                        } else {
                            k.expr.clone()
                        };
                        let offset = self.expr(n)?;
                        let bound = self.arith(op, key, offset, (false, true))?;
                        let ty = common_type(&k.expr, &bound)?;
                        if range_key.is_none() {
                            range_key = Some(cast_to(k.expr.clone(), ty)?);
                        } else if range_key.as_ref().is_some_and(|r| r.ty != ty) {
                            // Two offsets of different types: compare in
                            // the wider one.
                            let prev = range_key.take().map_or(ty, |r| r.ty);
                            let probe = TExpr::lit(Value::Null, prev);
                            let t = common_type(&probe, &bound)?;
                            range_key = Some(cast_to(k.expr.clone(), t)?);
                        }
                        Offset {
                            n: nb,
                            bound: Some(bound),
                        }
                    } else {
                        Offset {
                            n: count_arg(self.expr(n)?, &format!("a frame's {what} offset"))?,
                            bound: None,
                        }
                    };
                    if preceding {
                        FrameBound::Preceding(offset)
                    } else {
                        FrameBound::Following(offset)
                    }
                }
            })
        };
        let start = bound_of(start)?;
        let end = bound_of(&end)?;
        let mut frame = Frame {
            units,
            start,
            end,
            exclude,
            range_key,
        };
        // Both boundaries in the key's type.
        if let Some(t) = frame.range_key.as_ref().map(|k| k.ty) {
            for b in [&mut frame.start, &mut frame.end] {
                if let Some(o) = b.offset_mut() {
                    if let Some(x) = o.bound.take() {
                        o.bound = Some(cast_to(x, t)?);
                    }
                }
            }
        }
        Ok(frame)
    }
}

/// Takes `IGNORE NULLS` off the calls inside a window function's argument
/// (the parser gives `first_value(f(x) IGNORE NULLS)`'s clause to `f`);
/// whether there was one.
fn take_null_treatment(e: &mut SqlExpr) -> bool {
    let mut ignore = false;
    let _ = sql::visit_expressions_mut(e, |x| {
        if let SqlExpr::Function(f) = x {
            if f.over.is_none() {
                if let Some(t) = f.null_treatment.take() {
                    ignore = matches!(t, sql::NullTreatment::IgnoreNulls);
                }
            }
        }
        std::ops::ControlFlow::<()>::Continue(())
    });
    ignore
}

fn is_negative(v: &Value) -> bool {
    match v {
        Value::Int(x) => *x < 0,
        Value::Huge(x) => *x < 0,
        Value::Float(x) => *x < 0.0,
        _ => false,
    }
}

/// The clauses of an aggregate call over a window.
struct AggClauses<'a> {
    distinct: bool,
    filter: Option<&'a SqlExpr>,
    order: &'a [sql::OrderByExpr],
}

/// Whether a SQL expression names a column (outside subqueries too: a
/// correlated one names the outer query's).
fn names_columns(e: &SqlExpr) -> bool {
    struct Finder;
    impl sql::Visitor for Finder {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &SqlExpr) -> std::ops::ControlFlow<()> {
            match e {
                SqlExpr::Identifier(_) | SqlExpr::CompoundIdentifier(_) => {
                    std::ops::ControlFlow::Break(())
                }
                _ => std::ops::ControlFlow::Continue(()),
            }
        }
    }
    sql::Visit::visit(e, &mut Finder).is_break()
}

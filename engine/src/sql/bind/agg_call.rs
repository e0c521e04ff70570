//! Binding one aggregate call: its arguments (cast as the function takes
//! them), constant parameters (quantile fractions, `string_agg`'s
//! separator), `DISTINCT`, `FILTER (WHERE ...)`, an `ORDER BY` inside the
//! call and `WITHIN GROUP (ORDER BY ...)`, with DuckDB's rules. The call is
//! returned, not registered: [`super::aggregate`] makes it a slot of the
//! grouping; window aggregates use it as well.

use sqlparser::ast::{self as sql, Expr as SqlExpr};

use super::aggregate::contains_agg;
use super::coerce::cast_to;
use super::expr::ExprBinder;
use super::query::order_options;
use crate::agg::func::{AggCall, AggFunc, AggOrder, AggParam, Quantile};
use crate::error::{invalid, unsupported, Result};
use crate::expr::TExpr;
use crate::value::{LType, Value};

/// The parts of an aggregate call as written.
struct Written<'s> {
    args: Vec<&'s SqlExpr>,
    star: bool,
    /// `t.*`: the table the star names (a row, never NULL: `count(t.*)`
    /// counts rows).
    star_of: Option<String>,
    distinct: bool,
    order: Vec<&'s sql::OrderByExpr>,
    filter: Option<&'s SqlExpr>,
}

fn written<'s>(name: &str, f: &'s sql::Function) -> Result<Written<'s>> {
    if f.null_treatment.is_some() {
        return unsupported(format!("{name}() with IGNORE / RESPECT NULLS"));
    }
    if !matches!(f.parameters, sql::FunctionArguments::None) {
        return unsupported(format!("{name}() with parameters"));
    }
    let mut w = Written {
        args: Vec::new(),
        star: false,
        star_of: None,
        distinct: false,
        order: Vec::new(),
        filter: f.filter.as_deref(),
    };
    match &f.args {
        sql::FunctionArguments::None => {}
        sql::FunctionArguments::Subquery(_) => {
            return unsupported("subqueries in expressions (IN, EXISTS, scalar subqueries)")
        }
        sql::FunctionArguments::List(l) => {
            w.distinct = matches!(
                l.duplicate_treatment,
                Some(sql::DuplicateTreatment::Distinct)
            );
            for a in &l.args {
                match a {
                    sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(e)) => w.args.push(e),
                    sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Wildcard) => w.star = true,
                    sql::FunctionArg::Unnamed(sql::FunctionArgExpr::QualifiedWildcard(t))
                        if name == "count" =>
                    {
                        w.star = true;
                        w.star_of = Some(t.to_string());
                    }
                    other => return unsupported(format!("function argument {other}")),
                }
            }
            for c in &l.clauses {
                match c {
                    sql::FunctionArgumentClause::OrderBy(keys) => w.order.extend(keys),
                    other => return unsupported(format!("{name}() argument clause {other}")),
                }
            }
        }
    }
    Ok(w)
}

impl ExprBinder<'_> {
    /// Binds `f`, a call of aggregate function `func` named `name`, with the
    /// binder's aggregates set aside (aggregates do not nest).
    pub(crate) fn bind_agg_call(
        &mut self,
        name: &str,
        func: AggFunc,
        f: &sql::Function,
    ) -> Result<AggCall> {
        let mut w = written(name, f)?;
        let within = !f.within_group.is_empty();
        if within && !matches!(name, "percentile_cont" | "percentile_disc" | "mode") {
            return invalid(format!("Unknown ordered aggregate \"{name}\""));
        }
        for e in w
            .args
            .iter()
            .copied()
            .chain(w.filter)
            .chain(w.order.iter().map(|o| &o.expr))
            .chain(f.within_group.iter().map(|o| &o.expr))
        {
            if contains_agg(e) {
                return invalid("aggregate functions cannot be nested");
            }
        }
        let outer = self.aggs.take();
        let bound = self.bind_parts(name, func, &mut w, f);
        self.aggs = outer;
        bound
    }

    fn bind_parts<'s>(
        &mut self,
        name: &str,
        mut func: AggFunc,
        w: &mut Written<'s>,
        f: &'s sql::Function,
    ) -> Result<AggCall> {
        if let Some(t) = &w.star_of {
            if !self.scope.has_qualifier(t) {
                return invalid(format!("Referenced table \"{t}\" not found!"));
            }
        }
        if w.star {
            if func != AggFunc::Count || !w.args.is_empty() || w.distinct {
                return invalid(format!("{name}(*) is not an aggregate call"));
            }
            func = AggFunc::CountStar;
        }
        if func == AggFunc::Count && w.args.is_empty() && !w.distinct {
            func = AggFunc::CountStar;
        }
        // WITHIN GROUP (ORDER BY x): x is the argument; the written
        // argument is the fraction.
        let mut within_desc = false;
        if let [key] = f.within_group.as_slice() {
            let (desc, _) = order_options(&key.options)?;
            within_desc = desc;
            let mut args = vec![&key.expr];
            args.extend(w.args.iter().copied());
            w.args = args;
        } else if f.within_group.len() > 1 {
            return invalid(format!(
                "{name}() WITHIN GROUP takes exactly one ORDER BY key"
            ));
        }
        let arity = func.arity();
        let params: &[&SqlExpr] = match func {
            AggFunc::CountStar | AggFunc::Grouping => &[],
            _ if w.args.len() < arity => {
                return invalid(format!("{name}() takes {arity} argument(s)"));
            }
            _ => &w.args[arity..],
        };
        let param = self.param(name, func, params, within_desc)?;
        let arg_sql: Vec<&SqlExpr> = match func {
            AggFunc::Grouping => {
                if w.args.is_empty() {
                    return invalid("grouping() needs at least one argument");
                }
                w.args.clone()
            }
            _ => w.args[..arity.min(w.args.len())].to_vec(),
        };
        let mut args = Vec::new();
        for e in arg_sql {
            args.push(self.expr(e)?);
        }
        let filter = match w.filter {
            None => None,
            Some(e) => {
                let b = self.expr(e)?;
                Some(self.expect_bool(b, "FILTER")?)
            }
        };
        let mut order = Vec::new();
        for o in &w.order {
            if o.with_fill.is_some() {
                return unsupported("ORDER BY ... WITH FILL");
            }
            let (desc, nulls_first) = order_options(&o.options)?;
            order.push(AggOrder {
                expr: self.expr(&o.expr)?,
                desc,
                nulls_first,
            });
        }
        if func == AggFunc::Grouping {
            return Ok(AggCall::new(func, args, LType::Int64));
        }
        let (args, ty) = func.signature(args, &|e, t| cast_to(e, t))?;
        // A constant key orders nothing (and need not be an argument of a
        // DISTINCT call: `string_agg(DISTINCT 0, '' ORDER BY 0)`).
        order.retain(|o| !o.expr.is_constant());
        let mut distinct = w.distinct;
        if distinct && !order.is_empty() {
            let plain: Vec<&TExpr> = args.iter().map(uncast).collect();
            if order.iter().any(|o| !function_of(&o.expr, &plain)) {
                return invalid(
                    "In a DISTINCT aggregate, ORDER BY expressions must appear in the argument list",
                );
            }
        }
        if distinct && func.ignores_distinct() {
            distinct = false;
        }
        if !func.order_sensitive() {
            order.clear();
        }
        Ok(AggCall {
            func,
            args,
            distinct,
            filter,
            order,
            param,
            ty,
        })
    }

    /// The constant parameter of a call.
    fn param(
        &mut self,
        name: &str,
        func: AggFunc,
        params: &[&SqlExpr],
        within_desc: bool,
    ) -> Result<AggParam> {
        let constant = |b: &mut Self, e: &SqlExpr, what: &str| -> Result<(Value, LType)> {
            let x = b.expr(e)?;
            match x.as_lit() {
                Some(v) => Ok((v.clone(), x.ty)),
                None => invalid(format!(
                    "the {what} argument of {name}() must be a constant expression"
                )),
            }
        };
        Ok(match (func, params) {
            (AggFunc::Median, []) => AggParam::Quantile(Quantile::median()),
            (AggFunc::QuantileCont | AggFunc::QuantileDisc, [q]) => {
                if matches!(q, SqlExpr::Array(_)) {
                    return unsupported(format!("{name}() with a list of fractions (lists)"));
                }
                let (v, t) = constant(self, q, "quantile")?;
                let mut q = Quantile::from_value(&v, t)?;
                q.desc ^= within_desc;
                AggParam::Quantile(q)
            }
            (AggFunc::QuantileCont | AggFunc::QuantileDisc, _) => {
                return invalid(format!("{name}() takes a value and a fraction"))
            }
            (AggFunc::StringAgg, []) => AggParam::Separator(Some(b",".to_vec())),
            (AggFunc::StringAgg, [s]) => match constant(self, s, "separator")? {
                (Value::Null, _) => AggParam::Separator(None),
                (Value::Str(s), _) => AggParam::Separator(Some(s)),
                (v, t) => AggParam::Separator(Some(crate::value::format_value(t, &v).into_bytes())),
            },
            (_, []) => AggParam::None,
            _ => return invalid(format!("{name}() takes {} argument(s)", func.arity())),
        })
    }
}

/// `e` without casts (an ORDER BY key matches a cast argument).
/// Whether `e` is computed from the arguments `args` alone (every column it
/// reads is inside a subtree equal to an argument), so that it orders the
/// distinct argument values of a DISTINCT call (DuckDB accepts
/// `string_agg(DISTINCT a, ',' ORDER BY -a)`, not `... ORDER BY a + b`).
fn function_of(e: &TExpr, args: &[&TExpr]) -> bool {
    let e = uncast(e);
    if args.contains(&e) || e.is_constant() {
        return true;
    }
    let children = e.children();
    !children.is_empty()
        && !matches!(e.kind, crate::expr::ExprKind::Col(_))
        && children.into_iter().all(|c| function_of(c, args))
}

fn uncast(e: &TExpr) -> &TExpr {
    match &e.kind {
        crate::expr::ExprKind::Cast(inner) => uncast(inner),
        _ => e,
    }
}

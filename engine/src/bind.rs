//! Binding: sqlparser's AST to a typed [`Query`] over one table's columns,
//! with names resolved (closest names suggested), types checked and
//! coerced the way DuckDB does, and constants folded.

use sqlparser::ast::{self as sql, Expr as SqlExpr};
use strata_format::Schema;

use crate::error::{closest, internal, invalid, unsupported, EngineError, Result};
use crate::expr::{cast_value, eval, ArithOp, CmpOp, Columns, DatePart, ExprKind, TExpr};
use crate::rounding::Rounding;
use crate::scalar::Func;
use crate::strfn::StrFn;
use crate::table_ref::{self, TableRef};
use crate::value::{LType, Phys, Value};

/// Aggregate functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AggFunc {
    /// `COUNT(*)`
    CountStar,
    /// `COUNT(x)`, or `COUNT(DISTINCT x)` when the call is distinct
    Count,
    /// `SUM(x)`
    Sum,
    /// `AVG(x)`
    Avg,
    /// `MIN(x)`
    Min,
    /// `MAX(x)`
    Max,
}

/// One aggregate call.
#[derive(Debug, Clone, PartialEq)]
pub struct AggCall {
    /// The function.
    pub func: AggFunc,
    /// Its argument over table columns (`None` for `COUNT(*)`).
    pub arg: Option<TExpr>,
    /// `DISTINCT` (only with `COUNT`).
    pub distinct: bool,
    /// Result type.
    pub ty: LType,
}

/// Grouping and aggregation of a query.
#[derive(Debug, Clone, PartialEq)]
pub struct Aggregation {
    /// Group keys over table columns.
    pub keys: Vec<TExpr>,
    /// Aggregates; output slot `keys.len() + i` is aggregate `i`.
    pub aggs: Vec<AggCall>,
}

/// One ORDER BY key.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderKey {
    /// The expression (over slots for an aggregate query, over columns
    /// otherwise).
    pub expr: TExpr,
    /// Descending.
    pub desc: bool,
    /// NULLs first.
    pub nulls_first: bool,
}

/// A bound query over one table.
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    /// The relation as written in FROM (a name, or a table function call).
    pub table: String,
    /// WHERE, over table columns.
    pub filter: Option<TExpr>,
    /// Grouping and aggregates; `None` for a plain row query.
    pub aggregation: Option<Aggregation>,
    /// HAVING, over slots.
    pub having: Option<TExpr>,
    /// Output columns: name and expression.
    pub select: Vec<(String, TExpr)>,
    /// ORDER BY.
    pub order: Vec<OrderKey>,
    /// LIMIT.
    pub limit: Option<u64>,
    /// OFFSET.
    pub offset: u64,
}

/// Parses SQL text into one query statement.
pub fn parse(text: &str) -> Result<sql::Query> {
    let dialect = sqlparser::dialect::DuckDbDialect {};
    let mut stmts = sqlparser::parser::Parser::parse_sql(&dialect, text)
        .map_err(|e| EngineError::Syntax(e.to_string()))?;
    if stmts.len() != 1 {
        return invalid(format!("expected one statement, found {}", stmts.len()));
    }
    match stmts.pop() {
        Some(sql::Statement::Query(q)) => Ok(*q),
        Some(other) => unsupported(format!("statement {}", first_words(&other.to_string()))),
        None => internal("no statement"),
    }
}

/// Whether the SQL text is `EXPLAIN <query>`; returns the query text.
pub fn strip_explain(text: &str) -> Option<&str> {
    let t = text.trim_start();
    let head = t.get(..7)?;
    head.eq_ignore_ascii_case("explain")
        .then(|| &t[7..])
        .filter(|rest| rest.starts_with(char::is_whitespace))
}

fn first_words(s: &str) -> String {
    s.split_whitespace().take(2).collect::<Vec<_>>().join(" ")
}

/// The relation a query reads (its only FROM item).
pub fn table_ref(q: &sql::Query) -> Result<TableRef> {
    let sel = select_of(q)?;
    match sel.from.as_slice() {
        [] => unsupported("SELECT without FROM"),
        [t] => {
            if !t.joins.is_empty() {
                return unsupported("joins");
            }
            table_ref::from_factor(&t.relation)
        }
        _ => unsupported("joins (several FROM items)"),
    }
}

fn select_of(q: &sql::Query) -> Result<&sql::Select> {
    if q.with.is_some() {
        return unsupported("WITH (common table expressions)");
    }
    match q.body.as_ref() {
        sql::SetExpr::Select(s) => Ok(s),
        sql::SetExpr::SetOperation { op, .. } => unsupported(format!("{op}")),
        other => unsupported(format!("query body {}", first_words(&other.to_string()))),
    }
}

const AGG_NAMES: [&str; 5] = ["count", "sum", "avg", "min", "max"];

fn func_name(f: &sql::Function) -> String {
    f.name.to_string().to_lowercase()
}

fn contains_agg(e: &SqlExpr) -> bool {
    let any = |v: &[&SqlExpr]| v.iter().any(|x| contains_agg(x));
    match e {
        SqlExpr::Function(f) => {
            if AGG_NAMES.contains(&func_name(f).as_str()) {
                return true;
            }
            match &f.args {
                sql::FunctionArguments::List(l) => l.args.iter().any(|a| match a {
                    sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(x)) => contains_agg(x),
                    _ => false,
                }),
                _ => false,
            }
        }
        SqlExpr::BinaryOp { left, right, .. } => any(&[left, right]),
        SqlExpr::UnaryOp { expr, .. }
        | SqlExpr::Nested(expr)
        | SqlExpr::Cast { expr, .. }
        | SqlExpr::IsNull(expr)
        | SqlExpr::IsNotNull(expr)
        | SqlExpr::Extract { expr, .. }
        | SqlExpr::Floor { expr, .. }
        | SqlExpr::Ceil { expr, .. } => contains_agg(expr),
        SqlExpr::Between {
            expr, low, high, ..
        } => any(&[expr, low, high]),
        SqlExpr::InList { expr, list, .. } => contains_agg(expr) || list.iter().any(contains_agg),
        SqlExpr::Like { expr, pattern, .. } | SqlExpr::ILike { expr, pattern, .. } => {
            any(&[expr, pattern])
        }
        SqlExpr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            operand.as_deref().is_some_and(contains_agg)
                || else_result.as_deref().is_some_and(contains_agg)
                || conditions
                    .iter()
                    .any(|c| contains_agg(&c.condition) || contains_agg(&c.result))
        }
        _ => false,
    }
}

/// Binds a parsed query against a table schema.
pub fn bind(q: &sql::Query, schema: &Schema) -> Result<Query> {
    let table = table_ref(q)?.to_string();
    let sel = select_of(q)?;
    if sel.distinct.is_some() {
        return unsupported("SELECT DISTINCT");
    }
    if sel.top.is_some() {
        return unsupported("TOP");
    }
    if !sel.named_window.is_empty() || sel.qualify.is_some() {
        return unsupported("window functions");
    }
    if sel.prewhere.is_some() || !sel.sort_by.is_empty() || !sel.cluster_by.is_empty() {
        return unsupported("PREWHERE / SORT BY / CLUSTER BY");
    }
    if q.fetch.is_some() || !q.locks.is_empty() {
        return unsupported("FETCH / FOR UPDATE");
    }
    let b = Binder { schema };

    // Select items, with `*` expanded.
    let mut items: Vec<(String, SqlExpr, bool)> = Vec::new(); // (name, expr, aliased)
    for it in &sel.projection {
        match it {
            sql::SelectItem::UnnamedExpr(e) => items.push((e.to_string(), e.clone(), false)),
            sql::SelectItem::ExprWithAlias { expr, alias } => {
                items.push((alias.value.clone(), expr.clone(), true))
            }
            sql::SelectItem::Wildcard(opts) => items.extend(expand_wildcard(schema, opts)?),
            other => return unsupported(format!("select item {other}")),
        }
    }

    let group_exprs: Vec<SqlExpr> = match &sel.group_by {
        sql::GroupByExpr::All(_) => return unsupported("GROUP BY ALL"),
        sql::GroupByExpr::Expressions(v, mods) => {
            if !mods.is_empty() {
                return unsupported("GROUP BY modifiers");
            }
            v.clone()
        }
    };
    let order_exprs: Vec<sql::OrderByExpr> = match &q.order_by {
        None => Vec::new(),
        Some(o) => match &o.kind {
            sql::OrderByKind::All(_) => return unsupported("ORDER BY ALL"),
            sql::OrderByKind::Expressions(v) => v.clone(),
        },
    };
    let is_agg = !group_exprs.is_empty()
        || sel.having.is_some()
        || items.iter().any(|(_, e, _)| contains_agg(e))
        || order_exprs.iter().any(|o| contains_agg(&o.expr));

    let filter = match &sel.selection {
        None => None,
        Some(w) => {
            if contains_agg(w) {
                return invalid("aggregate functions are not allowed in WHERE");
            }
            let e = b.expr(w, &mut None)?;
            Some(b.expect_bool(e, "WHERE")?)
        }
    };

    let (limit, offset) = limits(q)?;
    let alias_of = |name: &str| -> Option<usize> {
        items
            .iter()
            .position(|(n, _, aliased)| *aliased && n == name)
            .or_else(|| {
                items
                    .iter()
                    .position(|(n, _, aliased)| *aliased && n.eq_ignore_ascii_case(name))
            })
    };
    let ordinal = |e: &SqlExpr, what: &str| -> Result<Option<usize>> {
        if let SqlExpr::Value(v) = e {
            if let sql::Value::Number(n, _) = &v.value {
                let i: usize = n
                    .parse()
                    .map_err(|_| EngineError::Invalid(format!("bad {what} position {n}")))?;
                if i == 0 || i > items.len() {
                    return invalid(format!(
                        "{what} position {i} is not in the select list (1..{})",
                        items.len()
                    ));
                }
                return Ok(Some(i - 1));
            }
        }
        Ok(None)
    };

    if !is_agg {
        let mut select = Vec::new();
        for (name, e, _) in &items {
            select.push((name.clone(), b.expr(e, &mut None)?));
        }
        let mut order = Vec::new();
        for o in &order_exprs {
            let expr = if let Some(i) = ordinal(&o.expr, "ORDER BY")? {
                select[i].1.clone()
            } else if let Some(i) = ident_name(&o.expr).and_then(|n| alias_of(&n)) {
                select[i].1.clone()
            } else {
                b.expr(&o.expr, &mut None)?
            };
            order.push(order_key(expr, o)?);
        }
        return Ok(Query {
            table,
            filter,
            aggregation: None,
            having: None,
            select,
            order,
            limit,
            offset,
        });
    }

    // Group keys: ordinals and aliases refer to select items; table columns
    // win over aliases.
    let mut keys: Vec<TExpr> = Vec::new();
    for g in &group_exprs {
        let src: &SqlExpr = if let Some(i) = ordinal(g, "GROUP BY")? {
            &items[i].1
        } else if let Some(n) = ident_name(g) {
            if b.find_column(&n).is_none() {
                match alias_of(&n) {
                    Some(i) => &items[i].1,
                    None => g,
                }
            } else {
                g
            }
        } else {
            g
        };
        if contains_agg(src) {
            return invalid(format!(
                "aggregate functions are not allowed in GROUP BY ({src})"
            ));
        }
        let k = b.expr(src, &mut None)?;
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let mut aggs: Vec<AggCall> = Vec::new();
    let nkeys = keys.len();
    let post = |e: &SqlExpr, aggs: &mut Vec<AggCall>| -> Result<TExpr> {
        let mut ctx = Some(AggCtx {
            aggs: std::mem::take(aggs),
            nkeys,
        });
        let bound = b.expr(e, &mut ctx);
        if let Some(c) = ctx {
            *aggs = c.aggs;
        }
        let t = replace_keys(bound?, &keys);
        let mut bad = None;
        t.walk(&mut |x| {
            if let ExprKind::Col(c) = x.kind {
                bad.get_or_insert(c);
            }
        });
        if let Some(c) = bad {
            return invalid(format!(
                "column {:?} must appear in the GROUP BY clause or be used in an aggregate function",
                schema.fields[c].name
            ));
        }
        Ok(t)
    };
    let mut select = Vec::new();
    for (name, e, _) in &items {
        select.push((name.clone(), post(e, &mut aggs)?));
    }
    let having = match &sel.having {
        None => None,
        Some(h) => {
            let e = post(h, &mut aggs)?;
            Some(b.expect_bool(e, "HAVING")?)
        }
    };
    let mut order = Vec::new();
    for o in &order_exprs {
        let expr = if let Some(i) = ordinal(&o.expr, "ORDER BY")? {
            select[i].1.clone()
        } else if let Some(i) = ident_name(&o.expr).and_then(|n| alias_of(&n)) {
            select[i].1.clone()
        } else {
            post(&o.expr, &mut aggs)?
        };
        order.push(order_key(expr, o)?);
    }
    let slot_types: Vec<LType> = keys
        .iter()
        .map(|k| k.ty)
        .chain(aggs.iter().map(|a| a.ty))
        .collect();
    // Give Ref nodes their types (they were bound before all aggs existed).
    let fix = |e: &mut TExpr| fix_ref_types(e, &slot_types);
    select.iter_mut().for_each(|(_, e)| fix(e));
    order.iter_mut().for_each(|o| fix(&mut o.expr));
    Ok(Query {
        table,
        filter,
        aggregation: Some(Aggregation { keys, aggs }),
        having,
        select,
        order,
        limit,
        offset,
    })
}

/// `*` with DuckDB's `EXCLUDE (a, b)` and `REPLACE (expr AS a)`: the
/// table's columns in order as (name, expression, aliased) select items.
fn expand_wildcard(
    schema: &Schema,
    opts: &sql::WildcardAdditionalOptions,
) -> Result<Vec<(String, SqlExpr, bool)>> {
    if opts.opt_ilike.is_some() || opts.opt_except.is_some() || opts.opt_rename.is_some() {
        return unsupported(format!("* with {}", opts.to_string().trim()));
    }
    let find = |name: &str, what: &str| -> Result<usize> {
        schema
            .fields
            .iter()
            .position(|f| f.name == name)
            .or_else(|| {
                schema
                    .fields
                    .iter()
                    .position(|f| f.name.eq_ignore_ascii_case(name))
            })
            .ok_or_else(|| {
                EngineError::Invalid(format!(
                    "column {name:?} in {what} not found in the FROM clause"
                ))
            })
    };
    let mut excluded = vec![false; schema.fields.len()];
    if let Some(ex) = &opts.opt_exclude {
        let names = match ex {
            sql::ExcludeSelectItem::Single(n) => vec![n.clone()],
            sql::ExcludeSelectItem::Multiple(v) => v.clone(),
        };
        for n in names {
            let name = n.0.last().map(|p| p.to_string()).unwrap_or_default();
            let name = name.trim_matches('"');
            let i = find(name, "EXCLUDE")?;
            if excluded[i] {
                return invalid(format!("column {name:?} is excluded twice"));
            }
            excluded[i] = true;
        }
    }
    let mut replaced: Vec<Option<SqlExpr>> = vec![None; schema.fields.len()];
    if let Some(rep) = &opts.opt_replace {
        for r in &rep.items {
            let i = find(&r.column_name.value, "REPLACE")?;
            if excluded[i] || replaced[i].is_some() {
                return invalid(format!(
                    "column {:?} is both excluded and replaced, or replaced twice",
                    r.column_name.value
                ));
            }
            replaced[i] = Some(r.expr.clone());
        }
    }
    let mut out = Vec::new();
    for (i, f) in schema.fields.iter().enumerate() {
        if excluded[i] {
            continue;
        }
        match replaced[i].take() {
            Some(e) => out.push((f.name.clone(), e, true)),
            None => out.push((
                f.name.clone(),
                SqlExpr::Identifier(sql::Ident::with_quote('"', f.name.clone())),
                false,
            )),
        }
    }
    if out.is_empty() {
        return invalid("SELECT list is empty after excluding every column");
    }
    Ok(out)
}

fn fix_ref_types(e: &mut TExpr, types: &[LType]) {
    if let ExprKind::Ref(r) = e.kind {
        if let Some(t) = types.get(r) {
            e.ty = *t;
        }
    }
    for_each_child_mut(e, &mut |c| fix_ref_types(c, types));
}

fn for_each_child_mut(e: &mut TExpr, f: &mut dyn FnMut(&mut TExpr)) {
    match &mut e.kind {
        ExprKind::Col(_) | ExprKind::Ref(_) | ExprKind::Lit(_) => {}
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

/// Replaces every subtree equal to a group key by a reference to it.
fn replace_keys(mut e: TExpr, keys: &[TExpr]) -> TExpr {
    if !matches!(e.kind, ExprKind::Lit(_) | ExprKind::Ref(_)) {
        if let Some(k) = keys.iter().position(|k| *k == e) {
            return TExpr {
                kind: ExprKind::Ref(k),
                ty: e.ty,
            };
        }
    }
    for_each_child_mut(&mut e, &mut |c| {
        let taken = std::mem::replace(c, TExpr::lit(Value::Null, LType::Null));
        *c = replace_keys(taken, keys);
    });
    e
}

fn order_key(expr: TExpr, o: &sql::OrderByExpr) -> Result<OrderKey> {
    if o.with_fill.is_some() {
        return unsupported("ORDER BY ... WITH FILL");
    }
    let desc = match &o.options.sort {
        None | Some(sql::OrderBySort::Asc) => false,
        Some(sql::OrderBySort::Desc) => true,
        Some(sql::OrderBySort::Using(_)) => return unsupported("ORDER BY ... USING"),
    };
    Ok(OrderKey {
        expr,
        desc,
        // DuckDB's default is NULLS LAST for both directions.
        nulls_first: o.options.nulls_first.unwrap_or(false),
    })
}

fn limits(q: &sql::Query) -> Result<(Option<u64>, u64)> {
    let num = |e: &SqlExpr, what: &str| -> Result<u64> {
        match e {
            SqlExpr::Value(v) => match &v.value {
                sql::Value::Number(n, _) => n.parse().map_err(|_| {
                    EngineError::Invalid(format!("{what} must be a non-negative integer, not {n}"))
                }),
                other => invalid(format!("{what} must be an integer, not {other}")),
            },
            other => unsupported(format!("{what} {other}")),
        }
    };
    match &q.limit_clause {
        None => Ok((None, 0)),
        Some(sql::LimitClause::LimitOffset {
            limit,
            offset,
            limit_by,
        }) => {
            if !limit_by.is_empty() {
                return unsupported("LIMIT BY");
            }
            let l = match limit {
                None => None,
                Some(SqlExpr::Value(v)) if matches!(v.value, sql::Value::Null) => None,
                Some(e) => Some(num(e, "LIMIT")?),
            };
            let o = match offset {
                None => 0,
                Some(o) => num(&o.value, "OFFSET")?,
            };
            Ok((l, o))
        }
        Some(sql::LimitClause::OffsetCommaLimit { offset, limit }) => {
            Ok((Some(num(limit, "LIMIT")?), num(offset, "OFFSET")?))
        }
    }
}

fn ident_name(e: &SqlExpr) -> Option<String> {
    match e {
        SqlExpr::Identifier(i) => Some(i.value.clone()),
        _ => None,
    }
}

struct AggCtx {
    aggs: Vec<AggCall>,
    nkeys: usize,
}

struct Binder<'a> {
    schema: &'a Schema,
}

fn col_expr(c: usize, ty: LType) -> TExpr {
    TExpr {
        kind: ExprKind::Col(c),
        ty,
    }
}

/// Casts `e` to `to` (folding constants).
pub(crate) fn cast_to(e: TExpr, to: LType) -> Result<TExpr> {
    if e.ty == to {
        return Ok(e);
    }
    if let ExprKind::Lit(v) = &e.kind {
        return Ok(TExpr::lit(cast_value(v, e.ty, to)?, to));
    }
    Ok(TExpr {
        kind: ExprKind::Cast(Box::new(e)),
        ty: to,
    })
}

fn int_rank(t: LType) -> Option<(bool, u8)> {
    Some(match t {
        LType::Int8 => (true, 1),
        LType::Int16 => (true, 2),
        LType::Int32 => (true, 3),
        LType::Int64 => (true, 4),
        LType::HugeInt => (true, 5),
        LType::UInt8 => (false, 1),
        LType::UInt16 => (false, 2),
        LType::UInt32 => (false, 3),
        LType::UInt64 => (false, 4),
        _ => return None,
    })
}

fn signed_of_rank(r: u8) -> LType {
    match r {
        1 => LType::Int8,
        2 => LType::Int16,
        3 => LType::Int32,
        4 => LType::Int64,
        _ => LType::HugeInt,
    }
}

fn lit_fits(e: &TExpr, t: LType) -> bool {
    match (e.as_lit(), t.int_range()) {
        (Some(Value::Int(x)), Some((lo, hi))) => (lo..=hi).contains(&i128::from(*x)),
        (Some(Value::Huge(x)), Some((lo, hi))) => (lo..=hi).contains(x),
        _ => false,
    }
}

/// The common type of two operands (DuckDB's implicit casts, simplified:
/// decimals meet other numbers as DOUBLE).
/// The DECIMAL(precision, scale) an exact numeric type converts to, as
/// DuckDB converts integers meeting a DECIMAL.
fn decimal_shape(t: LType) -> Option<(u8, u8)> {
    Some(match t {
        LType::Decimal(p, s) => (p, s),
        LType::Int8 | LType::UInt8 => (3, 0),
        LType::Int16 | LType::UInt16 => (5, 0),
        LType::Int32 | LType::UInt32 => (10, 0),
        LType::Int64 => (18, 0),
        LType::UInt64 => (20, 0),
        LType::HugeInt => (38, 0),
        _ => return None,
    })
}

/// How `l op r` computes exactly on scaled integers when a DECIMAL meets a
/// DECIMAL or an integer: the operand types and the result type.
struct DecimalArith {
    op: ArithOp,
    left: LType,
    right: LType,
    ty: LType,
}

impl DecimalArith {
    /// The typed expression over `l` and `r`.
    fn with(self, l: TExpr, r: TExpr) -> Result<TExpr> {
        Ok(TExpr {
            kind: ExprKind::Arith(
                self.op,
                Box::new(cast_to(l, self.left)?),
                Box::new(cast_to(r, self.right)?),
            ),
            ty: self.ty,
        })
    }
}

/// DuckDB's DECIMAL arithmetic: `+`/`-` in the larger scale with one more
/// integer digit, `%` in the larger scale and integer part, `*` adding
/// precisions and scales (at most 38 digits; 18 for two 64-bit operands);
/// `/`, `//` and anything with a float stay DOUBLE (`None`).
fn decimal_arith(op: ArithOp, l: &TExpr, r: &TExpr) -> Result<Option<DecimalArith>> {
    if !matches!(l.ty, LType::Decimal(..)) && !matches!(r.ty, LType::Decimal(..)) {
        return Ok(None);
    }
    let (Some((p1, s1)), Some((p2, s2))) = (decimal_shape(l.ty), decimal_shape(r.ty)) else {
        return Ok(None);
    };
    Ok(match op {
        ArithOp::Add | ArithOp::Sub => {
            let s = s1.max(s2);
            let p = ((p1 - s1).max(p2 - s2) + s + 1).min(38);
            let t = LType::Decimal(p, s);
            Some(DecimalArith {
                op,
                left: t,
                right: t,
                ty: t,
            })
        }
        ArithOp::Mod => {
            // The remainder is no larger than either operand.
            let s = s1.max(s2);
            let p = ((p1 - s1).max(p2 - s2) + s).min(38);
            let t = LType::Decimal(p, s);
            Some(DecimalArith {
                op,
                left: t,
                right: t,
                ty: t,
            })
        }
        ArithOp::Mul => {
            let s = s1 + s2;
            if s > 38 {
                return invalid(format!(
                    "the product of {} and {} needs more than 38 decimal places",
                    l.ty, r.ty
                ));
            }
            // Both operands in the result's width, each keeping its scale:
            // the product of the scaled integers has scale s1 + s2. Like
            // DuckDB, a product of two 64-bit decimals stays a 64-bit
            // DECIMAL(18) when its scale fits (an overflow is an error).
            let mut p = (p1 + p2).min(38);
            if p > 18 && p1.max(p2) <= 18 && s < 18 {
                p = 18;
            }
            Some(DecimalArith {
                op,
                left: LType::Decimal(p, s1),
                right: LType::Decimal(p, s2),
                ty: LType::Decimal(p, s),
            })
        }
        _ => None,
    })
}

/// The type a DECIMAL meets another DECIMAL or an integer in (DuckDB's
/// rule): as many integer digits as the wider, as many decimal places as
/// the finer. `None` when neither is a DECIMAL, or the other is not exact,
/// or the result would need more than 38 digits (then DOUBLE).
fn decimal_common(x: LType, y: LType) -> Option<LType> {
    if !matches!(x, LType::Decimal(..)) && !matches!(y, LType::Decimal(..)) {
        return None;
    }
    let ((p1, s1), (p2, s2)) = (decimal_shape(x)?, decimal_shape(y)?);
    let s = s1.max(s2);
    let p = (p1 - s1).max(p2 - s2) + s;
    (p <= 38).then_some(LType::Decimal(p, s))
}

fn common_type(a: &TExpr, b: &TExpr) -> Result<LType> {
    let (x, y) = (a.ty, b.ty);
    if x == y {
        return Ok(x);
    }
    if x == LType::Null {
        return Ok(y);
    }
    if y == LType::Null {
        return Ok(x);
    }
    if let (Some((sx, rx)), Some((sy, ry))) = (int_rank(x), int_rank(y)) {
        if a.as_lit().is_some() && lit_fits(a, y) {
            return Ok(y);
        }
        if b.as_lit().is_some() && lit_fits(b, x) {
            return Ok(x);
        }
        return Ok(match (sx, sy) {
            (true, true) | (false, false) => {
                if rx >= ry {
                    x
                } else {
                    y
                }
            }
            (true, false) => signed_of_rank(rx.max(ry + 1)),
            (false, true) => signed_of_rank(ry.max(rx + 1)),
        });
    }
    if let Some(t) = decimal_common(x, y) {
        return Ok(t);
    }
    if x.is_numeric() && y.is_numeric() {
        // A float meets anything else as itself (FLOAT stays FLOAT with a
        // DECIMAL or an integer, as in DuckDB); everything else as DOUBLE.
        if (x == LType::Float && y != LType::Double) || (y == LType::Float && x != LType::Double) {
            return Ok(LType::Float);
        }
        return Ok(LType::Double);
    }
    match (x, y) {
        (LType::Date, LType::Timestamp) | (LType::Timestamp, LType::Date) => Ok(LType::Timestamp),
        (LType::Varchar, t) if a.as_lit().is_some() => Ok(t),
        (t, LType::Varchar) if b.as_lit().is_some() => Ok(t),
        _ => invalid(format!("cannot compare or combine {x} and {y}")),
    }
}

impl Binder<'_> {
    fn find_column(&self, name: &str) -> Option<usize> {
        self.schema.index_of(name).or_else(|| {
            let hits: Vec<usize> = self
                .schema
                .fields
                .iter()
                .enumerate()
                .filter(|(_, f)| f.name.eq_ignore_ascii_case(name))
                .map(|(i, _)| i)
                .collect();
            (hits.len() == 1).then(|| hits[0])
        })
    }

    fn column(&self, name: &str) -> Result<TExpr> {
        match self.find_column(name) {
            Some(c) => Ok(col_expr(
                c,
                LType::from_storage(self.schema.fields[c].data_type),
            )),
            None => Err(EngineError::NotFound {
                kind: "column",
                name: name.to_string(),
                suggestion: closest(name, self.schema.fields.iter().map(|f| f.name.as_str())),
            }),
        }
    }

    fn expect_bool(&self, e: TExpr, what: &str) -> Result<TExpr> {
        match e.ty {
            LType::Bool => Ok(e),
            LType::Null => Ok(TExpr::lit(Value::Null, LType::Bool)),
            t => invalid(format!("{what} must be a boolean expression, not {t}")),
        }
    }

    fn expr(&self, e: &SqlExpr, aggs: &mut Option<AggCtx>) -> Result<TExpr> {
        let t = self.expr_inner(e, aggs)?;
        fold(t)
    }

    fn expr_inner(&self, e: &SqlExpr, aggs: &mut Option<AggCtx>) -> Result<TExpr> {
        match e {
            SqlExpr::Identifier(i) => self.column(&i.value),
            SqlExpr::CompoundIdentifier(parts) => match parts.last() {
                Some(last) if parts.len() == 2 => self.column(&last.value),
                _ => unsupported(format!("qualified name {e}")),
            },
            SqlExpr::Nested(x) => self.expr(x, aggs),
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
                let x = self.expr(expr, aggs)?;
                match op {
                    sql::UnaryOperator::Plus => Ok(x),
                    sql::UnaryOperator::Minus => {
                        if !x.ty.is_numeric() && x.ty != LType::Null {
                            return invalid(format!("cannot negate {}", x.ty));
                        }
                        // Literals fold with their own type (so `-2147483648` stays INTEGER-sized).
                        if let (Some(v), true) =
                            (x.as_lit(), x.ty.is_integer() || x.ty.phys() == Phys::F64)
                        {
                            return Ok(match v {
                                Value::Int(i) => literal_int(-i128::from(*i)),
                                Value::Huge(i) => literal_int(-*i),
                                Value::UInt(u) => literal_int(-i128::from(*u)),
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
                    other => unsupported(format!("unary operator {other}")),
                }
            }
            SqlExpr::BinaryOp { left, op, right } => {
                use sql::BinaryOperator as B;
                match (&**left, op, &**right) {
                    (x, B::Plus | B::Minus, SqlExpr::Interval(i)) => {
                        let sign = if matches!(op, B::Minus) { -1 } else { 1 };
                        return add_interval(self.expr(x, aggs)?, &i.to_string(), sign);
                    }
                    (SqlExpr::Interval(i), B::Plus, x) => {
                        return add_interval(self.expr(x, aggs)?, &i.to_string(), 1);
                    }
                    _ => {}
                }
                let (l, r) = (self.expr(left, aggs)?, self.expr(right, aggs)?);
                self.binary(op, l, r)
            }
            SqlExpr::IsNull(x) | SqlExpr::IsNotNull(x) => {
                let x = self.expr(x, aggs)?;
                Ok(TExpr {
                    kind: ExprKind::IsNull(Box::new(x), matches!(e, SqlExpr::IsNotNull(_))),
                    ty: LType::Bool,
                })
            }
            SqlExpr::Between {
                expr,
                negated,
                low,
                high,
            } => {
                let x = self.expr(expr, aggs)?;
                let lo = self.expr(low, aggs)?;
                let hi = self.expr(high, aggs)?;
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
                let x = self.expr(expr, aggs)?;
                let mut vals = Vec::new();
                let mut others = Vec::new();
                for l in list {
                    let v = self.expr(l, aggs)?;
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
                if matches!(kind, sql::CastKind::TryCast | sql::CastKind::SafeCast) {
                    return unsupported("TRY_CAST");
                }
                let x = self.expr(expr, aggs)?;
                cast_to(x, sql_type(data_type)?)
            }
            SqlExpr::Extract { field, expr, .. } => {
                let x = self.expr(expr, aggs)?;
                let part = date_part(&field.to_string())?;
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
                    Some(o) => Some(self.expr(o, aggs)?),
                    None => None,
                };
                let mut whens = Vec::new();
                for cw in conditions {
                    let c = self.expr(&cw.condition, aggs)?;
                    let c = match &op {
                        Some(o) => self.compare(CmpOp::Eq, o.clone(), c)?,
                        None => self.expect_bool(c, "CASE WHEN")?,
                    };
                    whens.push((c, self.expr(&cw.result, aggs)?));
                }
                let els = match else_result {
                    Some(e) => Some(self.expr(e, aggs)?),
                    None => None,
                };
                let mut ty = LType::Null;
                for v in whens.iter().map(|(_, v)| v).chain(els.iter()) {
                    let probe = TExpr::lit(Value::Null, ty);
                    ty = common_type(&probe, v)?;
                }
                let mut out = Vec::new();
                for (c, v) in whens {
                    out.push((c, cast_to(v, ty)?));
                }
                let els = match els {
                    Some(e) => Some(Box::new(cast_to(e, ty)?)),
                    None => None,
                };
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
                let x = self.expr(expr, aggs)?;
                let p = self.expr(pattern, aggs)?;
                let esc = match escape_char {
                    None => None,
                    Some(c) => match self.expr(c, aggs)?.as_lit() {
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
                        Box::new(crate::like::LikePattern::new(p, esc, ci)?),
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
                let mut args = vec![self.expr(expr, aggs)?];
                match substring_from {
                    Some(f) => args.push(self.expr(f, aggs)?),
                    None => args.push(literal_int(1)),
                }
                if let Some(f) = substring_for {
                    args.push(self.expr(f, aggs)?);
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
                let mut args = vec![self.expr(expr, aggs)?];
                if let Some(w) = trim_what {
                    args.push(self.expr(w, aggs)?);
                }
                if let Some([c]) = trim_characters.as_deref() {
                    args.push(self.expr(c, aggs)?);
                }
                str_call(StrFn::Trim(l, r), args)
            }
            SqlExpr::Function(f) => self.function(f, aggs),
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
                rounding_call(mode, self.expr(expr, aggs)?)
            }
            SqlExpr::Subquery(_) | SqlExpr::Exists { .. } | SqlExpr::InSubquery { .. } => {
                unsupported("subqueries")
            }
            SqlExpr::Interval(_) => unsupported("INTERVAL"),
            other => unsupported(format!("expression {other}")),
        }
    }

    fn binary(&self, op: &sql::BinaryOperator, l: TExpr, r: TExpr) -> Result<TExpr> {
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
            return self.arith(a, l, r);
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
        match op {
            B::StringConcat => str_call(StrFn::ConcatOp, vec![l, r]),
            B::And | B::Or => {
                let l = self.expect_bool(l, "AND/OR operand")?;
                let r = self.expect_bool(r, "AND/OR operand")?;
                let is_and = matches!(op, B::And);
                let mut v = Vec::new();
                for x in [l, r] {
                    match x.kind {
                        ExprKind::And(inner) if is_and => v.extend(inner),
                        ExprKind::Or(inner) if !is_and => v.extend(inner),
                        _ => v.push(x),
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
            other => unsupported(format!("operator {other}")),
        }
    }

    fn arith(&self, op: ArithOp, l: TExpr, r: TExpr) -> Result<TExpr> {
        for x in [&l, &r] {
            if !x.ty.is_numeric() && !matches!(x.ty, LType::Null | LType::Date) {
                return invalid(format!("cannot apply arithmetic to {} (operand {x})", x.ty));
            }
        }
        // Date arithmetic: DATE +/- integer days, DATE - DATE.
        if l.ty == LType::Date || r.ty == LType::Date {
            return match (op, l.ty, r.ty) {
                (ArithOp::Add | ArithOp::Sub, LType::Date, t) if t.is_integer() => {
                    let r = cast_to(r, LType::Int64)?;
                    Ok(TExpr {
                        kind: ExprKind::Arith(op, Box::new(l), Box::new(r)),
                        ty: LType::Date,
                    })
                }
                (ArithOp::Add, t, LType::Date) if t.is_integer() => {
                    let l = cast_to(l, LType::Int64)?;
                    Ok(TExpr {
                        kind: ExprKind::Arith(op, Box::new(r), Box::new(l)),
                        ty: LType::Date,
                    })
                }
                (ArithOp::Sub, LType::Date, LType::Date) => Ok(TExpr {
                    kind: ExprKind::Arith(
                        op,
                        Box::new(cast_to(l, LType::Int64)?),
                        Box::new(cast_to(r, LType::Int64)?),
                    ),
                    ty: LType::Int64,
                }),
                _ => invalid(format!("cannot apply {op:?} to {} and {}", l.ty, r.ty)),
            };
        }
        if let Some(e) = decimal_arith(op, &l, &r)? {
            return e.with(l, r);
        }
        let ty = if op == ArithOp::Div {
            LType::Double
        } else {
            match common_type(&l, &r)? {
                LType::Null => LType::Int32,
                LType::Decimal(..) => LType::Double,
                t => t,
            }
        };
        let (l, r) = (cast_to(l, ty)?, cast_to(r, ty)?);
        Ok(TExpr {
            kind: ExprKind::Arith(op, Box::new(l), Box::new(r)),
            ty,
        })
    }

    fn compare(&self, op: CmpOp, l: TExpr, r: TExpr) -> Result<TExpr> {
        let ty = common_type(&l, &r)?;
        let (l, r) = (cast_to(l, ty)?, cast_to(r, ty)?);
        Ok(TExpr {
            kind: ExprKind::Cmp(op, Box::new(l), Box::new(r)),
            ty: LType::Bool,
        })
    }

    fn function(&self, f: &sql::Function, aggs: &mut Option<AggCtx>) -> Result<TExpr> {
        let name = func_name(f);
        if f.over.is_some() {
            return unsupported(format!("window function {name}() OVER"));
        }
        if f.filter.is_some() || !f.within_group.is_empty() || f.null_treatment.is_some() {
            return unsupported(format!("{name}() with FILTER / WITHIN GROUP / NULLS"));
        }
        let (args, distinct) = match &f.args {
            sql::FunctionArguments::None => (Vec::new(), false),
            sql::FunctionArguments::Subquery(_) => return unsupported("subqueries"),
            sql::FunctionArguments::List(l) => {
                if !l.clauses.is_empty() {
                    return unsupported(format!("{name}() argument clauses"));
                }
                let distinct = matches!(
                    l.duplicate_treatment,
                    Some(sql::DuplicateTreatment::Distinct)
                );
                let mut out = Vec::new();
                for a in &l.args {
                    match a {
                        sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(e)) => {
                            out.push(Some(e.clone()))
                        }
                        sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Wildcard) => out.push(None),
                        other => return unsupported(format!("function argument {other}")),
                    }
                }
                (out, distinct)
            }
        };
        if AGG_NAMES.contains(&name.as_str()) {
            let Some(ctx) = aggs.as_mut() else {
                return invalid(format!("aggregate {name}() is not allowed here"));
            };
            let (func, arg) = match (name.as_str(), args.as_slice()) {
                ("count", [None]) | ("count", []) if !distinct => (AggFunc::CountStar, None),
                (n, [Some(e)]) => {
                    if contains_agg(e) {
                        return invalid("aggregate functions cannot be nested");
                    }
                    let arg = self.expr(e, &mut None)?;
                    let func = match n {
                        "count" => AggFunc::Count,
                        "sum" => AggFunc::Sum,
                        "avg" => AggFunc::Avg,
                        "min" => AggFunc::Min,
                        _ => AggFunc::Max,
                    };
                    (func, Some(arg))
                }
                _ => return invalid(format!("{name}() takes one argument")),
            };
            if distinct && func != AggFunc::Count {
                return unsupported(format!("{name}(DISTINCT ...)"));
            }
            let aty = arg.as_ref().map_or(LType::Null, |a| a.ty);
            let ty = match func {
                AggFunc::CountStar | AggFunc::Count => LType::Int64,
                AggFunc::Sum => match aty {
                    t if t.is_integer() => LType::HugeInt,
                    LType::Float | LType::Double => LType::Double,
                    LType::Decimal(_, s) => LType::Decimal(38, s),
                    LType::Null => LType::HugeInt,
                    t => return invalid(format!("sum() of {t} is not supported")),
                },
                AggFunc::Avg => match aty {
                    t if t.is_numeric() || t == LType::Null => LType::Double,
                    t => return invalid(format!("avg() of {t} is not supported")),
                },
                AggFunc::Min | AggFunc::Max => aty,
            };
            let call = AggCall {
                func,
                arg,
                distinct,
                ty,
            };
            let i = match ctx.aggs.iter().position(|a| *a == call) {
                Some(i) => i,
                None => {
                    ctx.aggs.push(call);
                    ctx.aggs.len() - 1
                }
            };
            return Ok(TExpr {
                kind: ExprKind::Ref(ctx.nkeys + i),
                ty,
            });
        }
        if distinct {
            return unsupported(format!("{name}(DISTINCT ...)"));
        }
        let mut bound = Vec::new();
        for a in &args {
            match a {
                Some(e) => bound.push(self.expr(e, aggs)?),
                None => return invalid(format!("{name}(*) is not a function")),
            }
        }
        match (name.as_str(), bound.as_mut_slice()) {
            ("date_trunc" | "datetrunc", [p, x]) => {
                let Some(Value::Str(p)) = p.as_lit() else {
                    return unsupported("DATE_TRUNC with a non-constant part");
                };
                let part = date_part(&String::from_utf8_lossy(p))?;
                if !matches!(x.ty, LType::Date | LType::Timestamp) {
                    return invalid(format!(
                        "DATE_TRUNC needs a DATE or TIMESTAMP, not {}",
                        x.ty
                    ));
                }
                // DuckDB truncates dates to TIMESTAMPs too.
                let ty = LType::Timestamp;
                let x = cast_to(x.clone(), ty)?;
                Ok(TExpr {
                    kind: ExprKind::DateTrunc(part, Box::new(x)),
                    ty,
                })
            }
            ("regexp_replace", [x, p, r, rest @ ..]) if rest.len() <= 1 => {
                let (Some(Value::Str(p)), Some(Value::Str(r))) = (p.as_lit(), r.as_lit()) else {
                    return unsupported("regexp_replace with a non-constant pattern");
                };
                let all = match rest.first().map(|o| o.as_lit()) {
                    None => false,
                    Some(Some(Value::Str(o))) => o.contains(&b'g'),
                    Some(_) => return unsupported("regexp_replace options must be constant"),
                };
                let re = crate::strfn::Re::new(&String::from_utf8_lossy(p))?;
                let rep = crate::strfn::translate_replacement(r);
                let f = StrFn::RegexpReplace(Box::new(re), rep, all);
                str_call(f, vec![x.clone()])
            }
            ("regexp_matches", [x, p]) => {
                let Some(Value::Str(p)) = p.as_lit() else {
                    return unsupported("regexp_matches with a non-constant pattern");
                };
                let re = crate::strfn::Re::new(&String::from_utf8_lossy(p))?;
                str_call(StrFn::RegexpMatches(Box::new(re)), vec![x.clone()])
            }
            (
                "length" | "char_length" | "character_length" | "lower" | "lcase" | "upper"
                | "ucase" | "substring" | "substr" | "concat" | "trim" | "ltrim" | "rtrim"
                | "starts_with" | "prefix" | "ends_with" | "suffix" | "contains",
                args,
            ) => {
                let f = match name.as_str() {
                    "length" | "char_length" | "character_length" => StrFn::Length,
                    "lower" | "lcase" => StrFn::Lower,
                    "upper" | "ucase" => StrFn::Upper,
                    "substring" | "substr" => StrFn::Substring,
                    "concat" => StrFn::Concat,
                    "trim" => StrFn::Trim(true, true),
                    "ltrim" => StrFn::Trim(true, false),
                    "rtrim" => StrFn::Trim(false, true),
                    "starts_with" | "prefix" => StrFn::StartsWith,
                    "ends_with" | "suffix" => StrFn::EndsWith,
                    _ => StrFn::Contains,
                };
                str_call(f, args.to_vec())
            }
            ("strlen" | "octet_length", [x]) if x.ty == LType::Varchar => Ok(TExpr {
                kind: ExprKind::StrLen(Box::new(x.clone())),
                ty: LType::Int64,
            }),
            (
                "year" | "month" | "day" | "hour" | "minute" | "second" | "dayofweek" | "dayofyear"
                | "dayofmonth" | "quarter" | "week" | "weekofyear" | "isodow" | "isoyear" | "epoch",
                [x],
            ) if matches!(x.ty, LType::Date | LType::Timestamp) => {
                Ok(extract_expr(date_part(&name)?, x.clone()))
            }
            ("date_part" | "datepart", [p, x])
                if matches!(x.ty, LType::Date | LType::Timestamp) =>
            {
                let Some(Value::Str(p)) = p.as_lit() else {
                    return unsupported("DATE_PART with a non-constant part");
                };
                Ok(extract_expr(
                    date_part(&String::from_utf8_lossy(p))?,
                    x.clone(),
                ))
            }
            ("strftime", [x, f]) if matches!(x.ty, LType::Date | LType::Timestamp) => {
                let Some(Value::Str(f)) = f.as_lit() else {
                    return unsupported("strftime with a non-constant format");
                };
                let items = crate::scalar::parse_format(&String::from_utf8_lossy(f))?;
                Ok(TExpr {
                    kind: ExprKind::Func(
                        Box::new(Func::Strftime(items)),
                        vec![cast_to(x.clone(), LType::Timestamp)?],
                    ),
                    ty: LType::Varchar,
                })
            }
            ("coalesce" | "greatest" | "least", args) if !args.is_empty() => {
                let f = match name.as_str() {
                    "coalesce" => Func::Coalesce,
                    "greatest" => Func::Greatest,
                    _ => Func::Least,
                };
                func_common(f, args.to_vec())
            }
            ("nullif", [a, b]) => func_common(Func::NullIf, vec![a.clone(), b.clone()]),
            // The argument's type, known when binding.
            ("typeof", [x]) => Ok(TExpr::lit(
                Value::Str(x.ty.name().into_bytes()),
                LType::Varchar,
            )),
            ("round", [x]) => rounding_call(Rounding::Round(0), x.clone()),
            ("round", [x, n]) => {
                let digits = match n.as_lit() {
                    Some(Value::Int(d)) if n.ty.is_integer() => i32::try_from(*d).ok(),
                    _ => None,
                };
                let Some(digits) = digits else {
                    return unsupported("round() with a non-constant or non-integer precision");
                };
                rounding_call(Rounding::Round(digits), x.clone())
            }
            ("floor", [x]) => rounding_call(Rounding::Floor, x.clone()),
            ("ceil" | "ceiling", [x]) => rounding_call(Rounding::Ceil, x.clone()),
            _ => unsupported(format!(
                "function {name}({})",
                bound
                    .iter()
                    .map(|b| b.ty.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
}

/// An `EXTRACT`: DOUBLE for the epoch (as DuckDB), else BIGINT.
fn extract_expr(part: DatePart, x: TExpr) -> TExpr {
    TExpr {
        kind: ExprKind::Extract(part, Box::new(x)),
        ty: if part == DatePart::Epoch {
            LType::Double
        } else {
            LType::Int64
        },
    }
}

/// A call whose arguments are cast to their common type, which it returns
/// (`nullif` returns the first argument's value).
/// `round`/`floor`/`ceil` of `x` with DuckDB's types.
fn rounding_call(mode: Rounding, x: TExpr) -> Result<TExpr> {
    let Some((arg, ty)) = mode.types(x.ty) else {
        return invalid(format!("{}() does not accept {}", mode.name(), x.ty));
    };
    Ok(TExpr {
        kind: ExprKind::Func(Box::new(Func::Rounding(mode)), vec![cast_to(x, arg)?]),
        ty,
    })
}

fn func_common(f: Func, args: Vec<TExpr>) -> Result<TExpr> {
    let mut ty = LType::Null;
    for a in &args {
        let probe = TExpr::lit(Value::Null, ty);
        ty = common_type(&probe, a)?;
    }
    let mut out = Vec::new();
    for a in args {
        out.push(cast_to(a, ty)?);
    }
    Ok(TExpr {
        kind: ExprKind::Func(Box::new(f), out),
        ty,
    })
}

/// A DATE or TIMESTAMP plus (`sign` 1) or minus (-1) an interval literal.
fn add_interval(x: TExpr, interval: &str, sign: i64) -> Result<TExpr> {
    if !matches!(x.ty, LType::Date | LType::Timestamp) {
        return unsupported(format!("{} plus an INTERVAL", x.ty));
    }
    let (months, secs) = crate::scalar::parse_interval(interval)?;
    Ok(TExpr {
        kind: ExprKind::Func(
            Box::new(Func::AddInterval {
                months: months * sign,
                secs: secs * sign,
            }),
            vec![cast_to(x, LType::Timestamp)?],
        ),
        ty: LType::Timestamp,
    })
}

/// A string function call: string arguments cast to VARCHAR (concat
/// casts anything), integer ones (substring) to BIGINT.
fn str_call(f: StrFn, args: Vec<TExpr>) -> Result<TExpr> {
    crate::strfn::check_arity(&f, args.len())?;
    let mut out = Vec::new();
    for (i, a) in args.into_iter().enumerate() {
        let want = if f == StrFn::Substring && i > 0 {
            LType::Int64
        } else {
            LType::Varchar
        };
        let ok = a.ty == want
            || a.ty == LType::Null
            || (want == LType::Int64 && a.ty.is_integer())
            || matches!(f, StrFn::Concat | StrFn::ConcatOp);
        if !ok {
            return invalid(format!("{}() does not accept {}", f.name(), a.ty));
        }
        out.push(cast_to(a, want)?);
    }
    Ok(TExpr {
        ty: crate::strfn::result_type(&f),
        kind: ExprKind::Str(Box::new(f), out),
    })
}

fn not(e: TExpr) -> TExpr {
    TExpr {
        kind: ExprKind::Not(Box::new(e)),
        ty: LType::Bool,
    }
}

/// A number written with a decimal point and no exponent, typed as DuckDB
/// types it: DECIMAL(digits, digits after the point), e.g. `0.06` is
/// DECIMAL(3,2) and `.5` DECIMAL(1,1). `None` for anything else, or for
/// more than 38 digits (DuckDB makes those DOUBLE).
fn decimal_literal(n: &str) -> Option<(Value, LType)> {
    let (int, frac) = n.split_once('.')?;
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(int) || !all_digits(frac) || int.len() + frac.len() == 0 {
        return None;
    }
    let (p, s) = (int.len() + frac.len(), frac.len());
    if p > 38 {
        return None;
    }
    let scaled: i128 = format!("{int}{frac}").parse().ok()?;
    let v = if p <= 18 {
        Value::Int(i64::try_from(scaled).ok()?)
    } else {
        Value::Huge(scaled)
    };
    Some((v, LType::Decimal(p as u8, s as u8)))
}

fn literal_int(x: i128) -> TExpr {
    if let Ok(v) = i32::try_from(x) {
        TExpr::lit(Value::Int(v.into()), LType::Int32)
    } else if let Ok(v) = i64::try_from(x) {
        TExpr::lit(Value::Int(v), LType::Int64)
    } else {
        TExpr::lit(Value::Huge(x), LType::HugeInt)
    }
}

fn literal(v: &sql::Value) -> Result<TExpr> {
    Ok(match v {
        sql::Value::Number(n, _) => {
            if let Ok(i) = n.parse::<i128>() {
                literal_int(i)
            } else if let Some((v, ty)) = decimal_literal(n) {
                TExpr::lit(v, ty)
            } else {
                let f: f64 = n
                    .parse()
                    .map_err(|_| EngineError::Syntax(format!("bad number {n}")))?;
                TExpr::lit(Value::Float(f), LType::Double)
            }
        }
        sql::Value::SingleQuotedString(s) | sql::Value::DoubleQuotedString(s) => {
            TExpr::lit(Value::Str(s.clone().into_bytes()), LType::Varchar)
        }
        sql::Value::Boolean(b) => TExpr::lit(Value::Bool(*b), LType::Bool),
        sql::Value::Null => TExpr::lit(Value::Null, LType::Null),
        other => return unsupported(format!("literal {other}")),
    })
}

fn sql_type(t: &sql::DataType) -> Result<LType> {
    use sql::DataType as D;
    Ok(match t {
        D::TinyInt(_) => LType::Int8,
        D::SmallInt(_) | D::Int2(_) => LType::Int16,
        D::Int(_) | D::Integer(_) | D::Int4(_) => LType::Int32,
        D::BigInt(_) | D::Int8(_) | D::Int64 => LType::Int64,
        D::HugeInt => LType::HugeInt,
        D::UTinyInt => LType::UInt8,
        D::USmallInt => LType::UInt16,
        D::UBigInt => LType::UInt64,
        D::Float4 | D::Real => LType::Float,
        D::Float(_) | D::Float8 | D::Float64 | D::Double(_) | D::DoublePrecision => LType::Double,
        D::Bool | D::Boolean => LType::Bool,
        D::Date => LType::Date,
        D::Timestamp(_, sql::TimezoneInfo::None) | D::Datetime(_) => LType::Timestamp,
        D::Varchar(_) | D::Text | D::String(_) | D::Char(_) => LType::Varchar,
        D::Decimal(info) | D::Numeric(info) => match info {
            sql::ExactNumberInfo::None => LType::Decimal(18, 3),
            sql::ExactNumberInfo::Precision(p) => LType::Decimal((*p).min(38) as u8, 0),
            sql::ExactNumberInfo::PrecisionAndScale(p, s) => {
                if *p == 0 || *p > 38 || *s < 0 || *s as u64 > *p {
                    return invalid(format!("bad DECIMAL({p},{s})"));
                }
                LType::Decimal(*p as u8, *s as u8)
            }
        },
        D::Custom(name, _) if name.to_string().eq_ignore_ascii_case("uinteger") => LType::UInt32,
        other => return unsupported(format!("type {other}")),
    })
}

fn date_part(s: &str) -> Result<DatePart> {
    Ok(match s.trim().to_lowercase().as_str() {
        "year" | "years" | "yyyy" | "y" => DatePart::Year,
        "month" | "months" | "mon" => DatePart::Month,
        "day" | "days" | "d" | "dayofmonth" => DatePart::Day,
        "hour" | "hours" | "h" => DatePart::Hour,
        "minute" | "minutes" | "m" | "min" => DatePart::Minute,
        "second" | "seconds" | "s" | "sec" => DatePart::Second,
        "dow" | "dayofweek" => DatePart::Dow,
        "doy" | "dayofyear" => DatePart::Doy,
        "epoch" => DatePart::Epoch,
        "quarter" | "quarters" => DatePart::Quarter,
        "week" | "weeks" | "w" | "weekofyear" => DatePart::Week,
        "isodow" => DatePart::IsoDow,
        "isoyear" => DatePart::IsoYear,
        other => return unsupported(format!("date part {other:?}")),
    })
}

/// Folds an expression whose leaves are all constants into a constant.
fn fold(e: TExpr) -> Result<TExpr> {
    if matches!(
        e.kind,
        ExprKind::Lit(_) | ExprKind::Col(_) | ExprKind::Ref(_)
    ) {
        return Ok(e);
    }
    let mut constant = true;
    e.walk(&mut |x| {
        if matches!(x.kind, ExprKind::Col(_) | ExprKind::Ref(_)) {
            constant = false;
        }
    });
    if !constant {
        return Ok(e);
    }
    let none = Columns(Vec::new());
    let v = eval(&e, 1, &none)?;
    let val = if v.len() == 1 { v.get(0) } else { Value::Null };
    let ty = if e.ty == LType::Null && matches!(val, Value::Bool(_)) {
        LType::Bool
    } else {
        e.ty
    };
    let _ = Phys::Bool;
    Ok(TExpr::lit(val, ty))
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_format::{DataType, Field};

    fn schema() -> Schema {
        Schema::new(vec![
            Field::new("a", DataType::Int16, false),
            Field::new("s", DataType::String, true),
            Field::new("d", DataType::Date, false),
            Field::new(
                "m",
                DataType::Decimal {
                    precision: 3,
                    scale: 1,
                },
                false,
            ),
            Field::new("f", DataType::Float64, true),
        ])
        .unwrap_or_default()
    }

    fn bind_sql(s: &str) -> Result<Query> {
        bind(&parse(s)?, &schema())
    }

    #[test]
    fn binds_and_types() {
        let q = bind_sql("SELECT a + 1, a / 2, SUM(a) FROM t GROUP BY a");
        assert!(q.is_ok(), "{q:?}");
        let q = q.unwrap_or_else(|_| unreachable!());
        assert_eq!(q.select[0].1.ty, LType::Int16);
        assert_eq!(q.select[1].1.ty, LType::Double);
        assert_eq!(q.select[2].1.ty, LType::HugeInt);
        let w = bind_sql("SELECT COUNT(*) FROM t WHERE d >= '2013-07-01'");
        assert!(w.is_ok(), "{w:?}");
    }

    #[test]
    fn decimal_and_double_aggregates_are_typed_as_duckdb() {
        let types = |sql: &str| -> Vec<LType> {
            let q = bind_sql(sql).unwrap_or_else(|e| unreachable!("{e}"));
            q.select.iter().map(|s| s.1.ty).collect()
        };
        assert_eq!(
            types("SELECT sum(m), avg(m), min(m), max(m), count(m), sum(f) FROM t"),
            [
                LType::Decimal(38, 1),
                LType::Double,
                LType::Decimal(3, 1),
                LType::Decimal(3, 1),
                LType::Int64,
                LType::Double,
            ]
        );
        assert_eq!(
            types("SELECT round(m), floor(m), round(f, 2), ceil(a), a // 2 FROM t"),
            [
                LType::Decimal(3, 0),
                LType::Decimal(3, 0),
                LType::Double,
                LType::Double,
                LType::Int16,
            ]
        );
    }

    #[test]
    fn errors_are_typed() {
        match bind_sql("SELECT b FROM t") {
            Err(EngineError::NotFound { suggestion, .. }) => {
                assert!(suggestion.is_some())
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            bind_sql("SELECT a FROM t GROUP BY s"),
            Err(EngineError::Invalid(_))
        ));
        assert!(matches!(
            bind_sql("SELECT a FROM t, u"),
            Err(EngineError::Unsupported(_))
        ));
        assert!(matches!(
            bind_sql("SELECT SUM(a) OVER () FROM t"),
            Err(EngineError::Unsupported(_))
        ));
        assert!(matches!(bind_sql("SELEC 1"), Err(EngineError::Syntax(_))));
    }
}

//! Rewrite rules: each a named, switchable transformation of the logical
//! plan with a pure check of whether it applies (the plan and the tables'
//! statistics) and, in its module doc, the argument for why it is sound.
//!
//! [`optimize`] runs the rules in [`RULES`] order over the tree, bottom
//! up, until none fires, and records in a [`RuleLog`] every rule that fired
//! and every rule that saw a node of its shape but declined (and why), for
//! EXPLAIN. Three kinds of rule run:
//! - logical rewrites (`inline_cte`, `mark_join_to_semi`, `factor_or`,
//!   `filter_pushdown`, `join_condition_pushdown`, `empty_join`,
//!   `aggregate_below_join`, and between fixpoints
//!   `semi_join_pushdown` and `join_reorder`,
//!   `distinct_to_aggregate`, `limit_below_project`, and the
//!   `prune_columns` pass);
//! - pushdowns into the table engine's [`TableQuery`] leaf
//!   (`*_into_table`): what the sorted-vector engine answers in one pass;
//! - strategies of a [`TableQuery`] (`block_pruning`,
//!   `count_distinct_union`, `any_groups`, `distinct_survivors`,
//!   `top_count`, `staged_order_cut`, `late_materialization`,
//!   `topk_sorted_values`, `topk_best_first`).
//!
//! `first_rows` is the one rule that runs before binding (it decides how a
//! file is opened); see [`first_rows`].
//!
//! Adding a rule: a module here with a unit struct implementing [`Rule`],
//! and its place in [`RULES`]; a `.slt` plan test that shows it firing.

pub mod aggregate_below_join;
pub mod aggregate_into_table;
pub mod any_groups;
pub mod block_pruning;
pub mod count_distinct_union;
pub mod distinct_survivors;
pub mod distinct_to_aggregate;
pub mod empty_join;
pub mod factor_or;
pub mod filter_into_table;
pub mod filter_pushdown;
pub mod first_rows;
pub mod having_into_table;
pub mod inline_cte;
pub mod join_condition_pushdown;
pub mod join_reorder;
pub mod late_materialization;
pub mod limit_below_project;
pub mod limit_into_table;
pub mod mark_join_to_semi;
pub mod project_into_table;
pub mod prune_columns;
pub mod semi_join_pushdown;
pub mod sort_into_table;
pub mod staged_order_cut;
pub mod top_count;
pub mod topk_best_first;
pub mod topk_sorted_values;

use std::collections::BTreeSet;

use crate::error::{EngineError, Result};
use crate::plan::display::label;
use crate::plan::{Cte, LogicalPlan, Query, TableQuery};

/// What a rule's check found at a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// The node is not of the rule's shape.
    NotApplicable,
    /// The node is of the rule's shape, but the rule does not apply.
    Rejected(String),
    /// The rule applies.
    Applies,
}

impl Check {
    /// `Rejected` with a reason.
    pub fn no(reason: impl Into<String>) -> Check {
        Check::Rejected(reason.into())
    }
}

/// What a rule may look at besides the node: the query's CTEs and how
/// often each is referred to.
pub struct RuleCtx<'q> {
    /// The query's CTEs by id.
    pub ctes: &'q [Cte],
    /// References to each CTE in the whole plan.
    pub cte_uses: Vec<usize>,
}

/// A rewrite rule.
pub trait Rule: Sync {
    /// Its name (EXPLAIN, `--disable-rules`).
    fn name(&self) -> &'static str;
    /// Whether it applies at `node`: a pure function of the plan below it
    /// and the tables' statistics.
    fn check(&self, node: &LogicalPlan, ctx: &RuleCtx) -> Check;
    /// The node rewritten; called only where [`Rule::check`] said
    /// [`Check::Applies`].
    fn apply(&self, node: LogicalPlan, ctx: &RuleCtx) -> Result<LogicalPlan>;
}

/// The rules in the order they run.
pub static RULES: &[&dyn Rule] = &[
    &inline_cte::InlineCte,
    &mark_join_to_semi::MarkJoinToSemi,
    &factor_or::FactorOr,
    &filter_pushdown::FilterPushdown,
    &join_condition_pushdown::JoinConditionPushdown,
    &empty_join::EmptyJoin,
    &aggregate_below_join::AggregateBelowJoin,
    &distinct_to_aggregate::DistinctToAggregate,
    &filter_into_table::FilterIntoTable,
    &aggregate_into_table::AggregateIntoTable,
    &having_into_table::HavingIntoTable,
    &sort_into_table::SortIntoTable,
    &project_into_table::ProjectIntoTable,
    &limit_into_table::LimitIntoTable,
    &block_pruning::BlockPruning,
    &count_distinct_union::CountDistinctUnion,
    &any_groups::AnyGroups,
    &distinct_survivors::DistinctSurvivors,
    &top_count::TopCount,
    &staged_order_cut::StagedOrderCut,
    &late_materialization::LateMaterialization,
    &topk_sorted_values::TopkSortedValues,
    &topk_best_first::TopkBestFirst,
    &limit_below_project::LimitBelowProject,
];

/// Every rule's name, `first_rows` included.
pub fn rule_names() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = RULES.iter().map(|r| r.name()).collect();
    v.push(prune_columns::NAME);
    v.push(semi_join_pushdown::NAME);
    v.push(join_reorder::NAME);
    v.push(first_rows::NAME);
    v
}

/// Which rules may fire.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleOptions {
    disabled: BTreeSet<String>,
    all_off: bool,
}

impl RuleOptions {
    /// Every rule on.
    pub fn all() -> RuleOptions {
        RuleOptions::default()
    }

    /// Every rule off: the plan runs as bound, on the general operators.
    pub fn none() -> RuleOptions {
        RuleOptions {
            disabled: BTreeSet::new(),
            all_off: true,
        }
    }

    /// Parses a comma-separated list of rule names to switch off (`all`:
    /// every rule).
    pub fn disabling(list: &str) -> Result<RuleOptions> {
        let mut o = RuleOptions::default();
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            if name == "all" {
                o.all_off = true;
            } else if rule_names().contains(&name) {
                o.disabled.insert(name.to_string());
            } else {
                return Err(EngineError::NotFound {
                    kind: "rule",
                    name: name.to_string(),
                    suggestion: crate::error::closest(name, rule_names()),
                });
            }
        }
        Ok(o)
    }

    /// Whether rule `name` may fire.
    pub fn enabled(&self, name: &str) -> bool {
        !self.all_off && !self.disabled.contains(name)
    }
}

/// What happened to one rule at one node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    /// The rule.
    pub rule: &'static str,
    /// The node, as EXPLAIN labels it.
    pub node: String,
    /// `None`: fired; `Some(reason)`: declined.
    pub rejected: Option<String>,
}

/// The rules that fired and those that declined, in order, for EXPLAIN.
/// A log made with `default()` records nothing: labelling nodes costs more
/// than the rules themselves for a query with a long select list, and only
/// EXPLAIN reads the log (make it with [`RuleLog::recording`]).
#[derive(Debug, Clone, Default)]
pub struct RuleLog {
    /// The entries.
    pub entries: Vec<LogEntry>,
    /// Rules switched off.
    pub disabled: Vec<&'static str>,
    recording: bool,
}

impl RuleLog {
    /// A log that records every entry.
    pub fn recording() -> RuleLog {
        RuleLog {
            recording: true,
            ..RuleLog::default()
        }
    }

    /// Whether entries are kept.
    pub fn is_recording(&self) -> bool {
        self.recording
    }

    /// Records an entry once (if the log records).
    pub fn record(&mut self, e: LogEntry) {
        if self.recording && !self.entries.contains(&e) {
            self.entries.push(e);
        }
    }
}

/// Passes over the whole tree at most; a pass with no change ends it.
const MAX_PASSES: usize = 16;

/// Rewrites `query` with every enabled rule.
pub fn optimize(mut query: Query, options: &RuleOptions, log: &mut RuleLog) -> Result<Query> {
    log.disabled = rule_names()
        .into_iter()
        .filter(|n| !options.enabled(n))
        .collect();
    let rules: Vec<&dyn Rule> = RULES
        .iter()
        .copied()
        .filter(|r| options.enabled(r.name()))
        .collect();
    let passes = Passes {
        prune: options.enabled(prune_columns::NAME),
        reorder: options.enabled(join_reorder::NAME),
        semi: options.enabled(semi_join_pushdown::NAME),
    };
    // CTE bodies first (each once), then the query.
    for i in 0..query.ctes.len() {
        let plan = std::mem::replace(&mut query.ctes[i].plan, empty());
        let plan = run_rules(plan, &rules, &query, log, passes)?;
        query.ctes[i].plan = plan;
    }
    let root = std::mem::replace(&mut query.root, empty());
    query.root = run_rules(root, &rules, &query, log, passes)?;
    Ok(query)
}

pub(crate) fn empty() -> LogicalPlan {
    LogicalPlan::Values {
        rows: Vec::new(),
        columns: Vec::new(),
    }
}

/// The passes that run between fixpoints of the rules.
#[derive(Clone, Copy)]
struct Passes {
    prune: bool,
    reorder: bool,
    semi: bool,
}

/// The rules until none fires; then, if `semi`, semi-join pushdown (judged
/// on inputs whose filters the rules have placed); then, if `reorder`,
/// join reordering (on inputs whose filters the rules have pushed into the
/// table queries); then, if `prune`, column pruning and the rules again
/// (pruning leaves projections for them to push down).
fn run_rules(
    plan: LogicalPlan,
    rules: &[&dyn Rule],
    query: &Query,
    log: &mut RuleLog,
    passes: Passes,
) -> Result<LogicalPlan> {
    let Passes {
        prune,
        reorder,
        semi,
    } = passes;
    let mut plan = fixpoint(plan, rules, query, log)?;
    if semi {
        plan = fixpoint(plan, &[&semi_join_pushdown::SemiJoinPushdown], query, log)?;
    }
    if reorder && plan.contains_inner_join() {
        plan = join_reorder::run(plan, query);
        log.record(LogEntry {
            rule: join_reorder::NAME,
            node: "the whole plan".into(),
            rejected: None,
        });
        plan = fixpoint(plan, rules, query, log)?;
    }
    if prune {
        plan = prune_columns::run(plan);
        log.record(LogEntry {
            rule: prune_columns::NAME,
            node: "the whole plan".into(),
            rejected: None,
        });
        plan = fixpoint(plan, rules, query, log)?;
    }
    Ok(plan)
}

fn fixpoint(
    mut plan: LogicalPlan,
    rules: &[&dyn Rule],
    query: &Query,
    log: &mut RuleLog,
) -> Result<LogicalPlan> {
    let mut rejections: Vec<LogEntry> = Vec::new();
    for _ in 0..MAX_PASSES {
        let ctx = RuleCtx {
            ctes: &query.ctes,
            cte_uses: cte_uses(query, &plan),
        };
        let mut changed = false;
        rejections.clear();
        for rule in rules {
            plan = pass(plan, *rule, &ctx, log, &mut rejections, &mut changed)?;
        }
        if !changed {
            break;
        }
    }
    for r in rejections {
        log.record(r);
    }
    Ok(plan)
}

/// One bottom-up pass of `rule` over `plan`.
#[recursive::recursive]
fn pass(
    mut plan: LogicalPlan,
    rule: &dyn Rule,
    ctx: &RuleCtx,
    log: &mut RuleLog,
    rejections: &mut Vec<LogEntry>,
    changed: &mut bool,
) -> Result<LogicalPlan> {
    for input in plan.inputs_mut() {
        let taken = std::mem::replace(input, empty());
        *input = pass(taken, rule, ctx, log, rejections, changed)?;
    }
    match rule.check(&plan, ctx) {
        Check::NotApplicable => Ok(plan),
        Check::Rejected(_) if !log.is_recording() => Ok(plan),
        Check::Rejected(reason) => {
            let e = LogEntry {
                rule: rule.name(),
                node: label(&plan),
                rejected: Some(reason),
            };
            if !rejections.contains(&e) {
                rejections.push(e);
            }
            Ok(plan)
        }
        Check::Applies => {
            let node = log.is_recording().then(|| label(&plan));
            let out = rule.apply(plan, ctx)?;
            if let Some(node) = node {
                log.record(LogEntry {
                    rule: rule.name(),
                    node,
                    rejected: None,
                });
            }
            *changed = true;
            Ok(out)
        }
    }
}

/// How often each CTE is referred to from `root` and the CTE bodies.
fn cte_uses(query: &Query, root: &LogicalPlan) -> Vec<usize> {
    let mut uses = vec![0; query.ctes.len()];
    let mut count = |p: &LogicalPlan| {
        visit(p, &mut |n| {
            if let LogicalPlan::CteRef { id, .. } = n {
                if let Some(u) = uses.get_mut(*id) {
                    *u += 1;
                }
            }
        })
    };
    count(root);
    for c in &query.ctes {
        count(&c.plan);
    }
    uses
}

/// Calls `f` on every node of `plan`, parents first.
#[recursive::recursive]
pub fn visit(plan: &LogicalPlan, f: &mut dyn FnMut(&LogicalPlan)) {
    f(plan);
    for i in plan.inputs() {
        visit(i, f);
    }
}

/// The [`TableQuery`] directly below `node`, if its only input is one.
pub(crate) fn table_input(node: &LogicalPlan) -> Option<&TableQuery> {
    match node.inputs().as_slice() {
        [LogicalPlan::TableQuery(t)] => Some(t),
        _ => None,
    }
}

/// The node's only input, taken out (for rules folding a node into it).
pub(crate) fn take_input(node: LogicalPlan) -> Result<LogicalPlan> {
    match node {
        LogicalPlan::Filter { input, .. }
        | LogicalPlan::Project { input, .. }
        | LogicalPlan::Aggregate { input, .. }
        | LogicalPlan::Distinct { input }
        | LogicalPlan::DistinctOn { input, .. }
        | LogicalPlan::Sort { input, .. }
        | LogicalPlan::Window { input, .. }
        | LogicalPlan::Limit { input, .. } => Ok(*input),
        other => Err(EngineError::Internal(format!(
            "{} has no single input",
            other.kind()
        ))),
    }
}

//! Block pruning for `ORDER BY <column> LIMIT k` without WHERE: the blocks
//! whose best key (largest for DESC, smallest for ASC) is strictly worse than
//! a bound the k-th best row is known to reach can hold no returned row.
//!
//! The bound: take blocks in order of their best key until they hold at least
//! `k` rows; every one of those rows is at least as good as the worst of those
//! blocks' *worst* keys, so the k-th best row overall is too. On nearly sorted
//! data (`ORDER BY trip_id DESC LIMIT 100`, seed 001's pathological case) one
//! block remains.

use strata_format::Table;

use crate::exec::Plan;
use crate::filter::Pred;
use crate::value::LType;

/// The blocks of `blocks` that may hold one of the `keep` first rows.
pub fn top_blocks(plan: &Plan, table: &Table, blocks: Vec<usize>, keep: usize) -> Vec<usize> {
    let q = &plan.query;
    let Some(first) = q.order.first() else {
        return blocks;
    };
    let Some(col) = first.expr.as_col() else {
        return blocks;
    };
    if !matches!(plan.pred, Pred::True) || first.expr.ty == LType::Varchar || keep == 0 {
        return blocks;
    }
    let stats: Vec<_> = blocks.iter().map(|&b| table.stats(b, col)).collect();
    // NULLs sort at one end; keep it simple and prune only NULL-free columns.
    if stats.iter().any(|s| s.null_count > 0 || s.distinct == 0) {
        return blocks;
    }
    // Keys are order-preserving: for DESC, "better" is larger.
    let desc = first.desc;
    let ends = |s: &strata_format::ColumnStats| {
        if desc {
            (s.max, s.min)
        } else {
            (s.min, s.max)
        }
    };
    let mut order: Vec<usize> = (0..blocks.len()).collect();
    order.sort_by(|&a, &b| {
        let o = ends(&stats[a]).0.cmp(&ends(&stats[b]).0);
        if desc {
            o.reverse()
        } else {
            o
        }
    });
    let mut rows = 0u64;
    let mut bound: Option<u64> = None;
    for &i in &order {
        let w = ends(&stats[i]).1;
        bound = Some(match bound {
            None => w,
            Some(b) if desc => b.min(w),
            Some(b) => b.max(w),
        });
        rows += u64::from(stats[i].rows);
        if rows >= keep as u64 {
            break;
        }
    }
    let Some(bound) = bound else {
        return blocks;
    };
    blocks
        .iter()
        .zip(&stats)
        .filter(|(_, s)| {
            let b = ends(s).0;
            if desc {
                b >= bound
            } else {
                b <= bound
            }
        })
        .map(|(&b, _)| b)
        .collect()
}

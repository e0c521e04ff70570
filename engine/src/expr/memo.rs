//! Results of a costly expression of one string column, kept across the
//! blocks of a query by the string's hash.
//!
//! A string column's dictionary is per block, so a string used in many
//! blocks is evaluated once per block. For a regular expression that is most
//! of a query's time (a Referer domain extraction evaluates the same URLs in
//! every block); the hash of the string, stored in every block, finds the
//! result computed in an earlier block instead.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::expr::strfn::StrFn;
use crate::expr::{ExprKind, TExpr};
use crate::value::Value;

/// Memory the results may take before no more are kept.
const MAX_BYTES: usize = 256 << 20;

/// Hashes a key that is already a uniform hash (a string's BLAKE3 prefix)
/// by folding it, instead of hashing it again.
#[derive(Default)]
struct Fold(u64);

impl std::hash::Hasher for Fold {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u128(&mut self, x: u128) {
        self.0 ^= (x as u64) ^ ((x >> 64) as u64);
    }
}

type Map = HashMap<u128, Value, std::hash::BuildHasherDefault<Fold>>;

/// Expression results by string hash, shared by a query's blocks.
#[derive(Default)]
pub struct StrMemo {
    map: Mutex<Map>,
    bytes: AtomicUsize,
}

impl std::fmt::Debug for StrMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StrMemo")
    }
}

/// Two memos are interchangeable: a cache does not change a plan.
impl PartialEq for StrMemo {
    fn eq(&self, _: &StrMemo) -> bool {
        true
    }
}

impl StrMemo {
    /// Whether `expr` (of one string column) costs enough per value to be
    /// worth remembering: it applies a regular expression or a digest.
    pub fn worth_it(expr: &TExpr) -> bool {
        let mut costly = false;
        expr.walk(&mut |x| {
            if let ExprKind::Str(f, _) = &x.kind {
                costly |= matches!(
                    **f,
                    StrFn::RegexpReplace(..)
                        | StrFn::RegexpMatches(_)
                        | StrFn::RegexpExtract(..)
                        | StrFn::Md5
                        | StrFn::Sha256
                );
            }
        });
        costly
    }

    /// The known results for `hashes` (`None` where not known yet).
    pub fn lookup(&self, hashes: &[u128]) -> Vec<Option<Value>> {
        let map = self.lock();
        hashes.iter().map(|h| map.get(h).cloned()).collect()
    }

    /// Remembers results, until the memory cap is reached.
    pub fn insert(&self, results: impl Iterator<Item = (u128, Value)>) {
        if self.bytes.load(Ordering::Relaxed) >= MAX_BYTES {
            return;
        }
        let mut map = self.lock();
        let mut added = 0;
        for (h, v) in results {
            added += 48
                + match &v {
                    Value::Str(s) => s.len(),
                    _ => 0,
                };
            map.insert(h, v);
        }
        self.bytes.fetch_add(added, Ordering::Relaxed);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Map> {
        // Inserts and lookups leave the map consistent even if a holder
        // panicked.
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }
}

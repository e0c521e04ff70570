//! The memory a query may hold in intermediate and final results.
//!
//! Block results (sorted group vectors, materialised rows) are charged as
//! they are produced; a query going over the limit stops with
//! [`EngineError::TooLarge`] instead of exhausting the machine. Mapped table
//! files are not charged: the kernel pages them in and out as needed.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::error::{EngineError, Result};
use crate::strs::Strs;
use crate::value::{Data, Vector};

/// A query's memory budget. The default has no limit.
#[derive(Debug, Clone, Default)]
pub struct Budget {
    limit: Option<u64>,
    used: Arc<AtomicU64>,
}

impl Budget {
    /// A budget of `limit` bytes (`None`: unlimited).
    pub fn new(limit: Option<u64>) -> Budget {
        Budget {
            limit,
            used: Arc::default(),
        }
    }

    /// Charges `bytes` held for `what` (named in the error).
    pub fn charge(&self, bytes: u64, what: &str) -> Result<()> {
        let used = self.used.fetch_add(bytes, Ordering::Relaxed) + bytes;
        match self.limit {
            Some(limit) if used > limit => Err(EngineError::TooLarge(format!(
                "{what} need more than the memory limit of {} (raise it with --memory-limit, \
                 or narrow the query with a filter or LIMIT)",
                human_bytes(limit)
            ))),
            _ => Ok(()),
        }
    }

    /// Bytes charged so far (and not released).
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    /// Gives back `bytes` charged before (memory freed).
    pub fn release(&self, bytes: u64) {
        let _ = self
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| {
                Some(u.saturating_sub(bytes))
            });
    }

    /// Charges `bytes` for as long as the returned guard lives.
    pub fn hold(&self, bytes: u64, what: &str) -> Result<Held> {
        self.charge(bytes, what)?;
        Ok(self.held(bytes))
    }

    /// A guard for `bytes` already charged (piece by piece, say from
    /// several threads): they are given back when it drops.
    pub fn held(&self, bytes: u64) -> Held {
        Held {
            budget: self.clone(),
            bytes,
        }
    }
}

/// Memory charged to a [`Budget`] until dropped.
#[derive(Debug)]
pub struct Held {
    budget: Budget,
    bytes: u64,
}

impl Held {
    /// Charges `bytes` more to the same guard.
    pub fn grow(&mut self, bytes: u64, what: &str) -> Result<()> {
        // Counted even when over the limit, so that dropping the guard
        // gives back exactly what was charged.
        self.bytes += bytes;
        self.budget.charge(bytes, what)
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.budget.release(self.bytes);
    }
}

impl PartialEq for Budget {
    /// Budgets do not take part in comparing plans.
    fn eq(&self, _: &Budget) -> bool {
        true
    }
}

/// Approximate heap bytes of a vector's values.
pub fn vector_bytes(v: &Vector) -> u64 {
    vector_bytes_from(v, 0)
}

/// Approximate heap bytes of a vector's values from position `from` on.
pub fn vector_bytes_from(v: &Vector, from: usize) -> u64 {
    let n = v.len().saturating_sub(from);
    bytes_of(v, n, |s| match from {
        0 => s.total_bytes() as u64,
        _ => s.iter().skip(from).map(|x| x.len() as u64).sum(),
    })
}

/// Approximate heap bytes of `v`'s values at `idx` (as [`Vector::gather`]
/// would copy them).
pub fn gathered_bytes(v: &Vector, idx: &[u32]) -> u64 {
    bytes_of(v, idx.len(), |s| {
        idx.iter().map(|&i| s[i as usize].len() as u64).sum()
    })
}

/// Bytes of `n` of `v`'s values, strings' own bytes from `str_bytes`.
fn bytes_of(v: &Vector, n: usize, str_bytes: impl FnOnce(&Strs) -> u64) -> u64 {
    let n = n as u64;
    let data = match &v.data {
        Data::Bool(_) => n,
        Data::I64(_) | Data::U64(_) | Data::F64(_) => 8 * n,
        Data::I128(_) => 16 * n,
        Data::Str(s) => str_bytes(s) + 8 * n,
    };
    data + v.nulls.as_ref().map_or(0, |_| n)
}

/// `bytes` for people: "512 B", "3.0 GiB".
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// Parses a size as DuckDB's `memory_limit` takes it: a number with an
/// optional unit (`B`, `KB`/`KiB`, `MB`/`MiB`, `GB`/`GiB`, `TB`/`TiB`,
/// case-insensitive; decimal units are powers of 1000).
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let num: f64 = num
        .parse()
        .map_err(|_| format!("invalid size {text:?}: expected e.g. 4GB or 512MiB"))?;
    let mult: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" | "bytes" => 1.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        "k" | "kib" => 1024.0,
        "m" | "mib" => 1024.0 * 1024.0,
        "g" | "gib" => 1024.0 * 1024.0 * 1024.0,
        "t" | "tib" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        u => return Err(format!("invalid size unit {u:?} in {text:?}")),
    };
    Ok((num * mult) as u64)
}

/// A default limit: 80% of the machine's physical memory (Linux
/// `/proc/meminfo`), or none where that cannot be read.
pub fn default_limit() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024 / 5 * 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_up_to_the_limit() {
        let b = Budget::new(Some(100));
        assert!(b.charge(60, "x").is_ok());
        assert!(b.charge(40, "x").is_ok());
        let e = b.charge(1, "the groups").unwrap_err();
        assert!(matches!(e, EngineError::TooLarge(_)));
        assert!(e.to_string().contains("the groups need more than"), "{e}");
        assert!(Budget::default().charge(u64::MAX / 2, "x").is_ok());
    }

    #[test]
    fn sizes_parse_as_duckdb_writes_them() {
        assert_eq!(parse_bytes("4GB"), Ok(4_000_000_000));
        assert_eq!(parse_bytes("512MiB"), Ok(512 << 20));
        assert_eq!(parse_bytes(" 1.5 gib "), Ok(3 << 29));
        assert_eq!(parse_bytes("100"), Ok(100));
        assert!(parse_bytes("lots").is_err());
        assert!(parse_bytes("3 parsecs").is_err());
        assert_eq!(human_bytes(3 << 29), "1.5 GiB");
    }
}

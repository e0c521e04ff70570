//! The crash and fault suite: `kill -9` at random points of ingests, appends
//! and cache builds; a full disk (a small tmpfs, where this may mount one:
//! 4 MB, or 20 MB in the long form);
//! readers, appenders, killed appenders and cache clears all at once. After
//! every fault the tables and the cache must be consistent: the old table or
//! the new one, never a mix; nothing `strata verify` calls damaged; every
//! answer right; and nothing left behind once the next writer has run.
//!
//! `cargo test` runs a bounded form (about half a minute). The long form
//! runs for as many seconds as `STRATA_FAULT_SECONDS` says and prints its
//! counts; `STRATA_FAULT_SEED` repeats a run's random choices:
//!
//! ```sh
//! STRATA_FAULT_SECONDS=3600 cargo test --release -p strata --test faults -- --nocapture
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::{duckdb_csv, hidden_entries, ok, run_or_kill, strata};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// xorshift64*: the suite's random choices, repeatable from the seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A duration up to `fraction_percent`% of `of`.
    fn within(&mut self, of: Duration, fraction_percent: u32) -> Duration {
        let most = of.as_micros() as u64 * u64::from(fraction_percent) / 100;
        Duration::from_micros(self.next() % most.max(1))
    }

    fn chance(&mut self, one_in: u64) -> bool {
        self.next().is_multiple_of(one_in)
    }
}

/// What the suite did.
#[derive(Default)]
struct Counts {
    runs: AtomicU64,
    kills: AtomicU64,
    disk_full: AtomicU64,
    clears: AtomicU64,
    queries: AtomicU64,
    appends: AtomicU64,
    appends_refused: AtomicU64,
}

impl Counts {
    fn add(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

/// The input every table is made of (appends add it again), and what
/// DuckDB says `SELECT COUNT(*), SUM(a)` of it is.
struct Data {
    csv: PathBuf,
    rows: u64,
    sum: u64,
}

impl Data {
    fn new(dir: &Path, rows: u64) -> Data {
        let csv = dir.join("data.csv");
        let mut text = String::from("a,b,s\n");
        let mut sum = 0;
        for i in 0..rows {
            let a = i * 7 % 1000;
            text.push_str(&format!("{a},{},k{}\n", i % 13, i % 101));
            sum += a;
        }
        std::fs::write(&csv, text).unwrap();
        let sql = format!("SELECT COUNT(*) AS n, SUM(a) AS s FROM '{}'", csv.display());
        if let Some(answer) = duckdb_csv(dir, &sql) {
            assert_eq!(answer, format!("n,s\n{rows},{sum}\n"), "DuckDB disagrees");
        }
        Data { csv, rows, sum }
    }

    /// How many copies of the data `n, s` is, if it is a whole number of
    /// them: the only answers a consistent table gives.
    fn copies(&self, answer: &str) -> Option<u64> {
        let line = answer.strip_prefix("n,s\n")?.trim();
        let (n, s) = line.split_once(',')?;
        let (n, s): (u64, u64) = (n.parse().ok()?, s.parse().ok()?);
        let k = n / self.rows;
        (n % self.rows == 0 && s == k * self.sum).then_some(k)
    }
}

/// `SELECT COUNT(*) AS n, SUM(a) AS s FROM 'from'` with `args`.
fn count_sum(from: &Path, args: &[&str]) -> Command {
    let mut c = strata();
    c.args(["query", "--format", "csv"]).args(args).arg(format!(
        "SELECT COUNT(*) AS n, SUM(a) AS s FROM '{}'",
        from.display()
    ));
    c
}

/// Runs `cmd` quietly and kills it (SIGKILL) after `delay`; its output if
/// it ended first.
fn kill_after(cmd: &mut Command, delay: Duration, counts: &Counts) -> Option<Output> {
    let out = run_or_kill(cmd, delay);
    if out.is_none() {
        Counts::add(&counts.kills);
    }
    out
}

fn ingest(table: &Path, data: &Data, extra: &[&str]) -> Command {
    let mut c = strata();
    c.args(["ingest", "--block-rows", "8192"])
        .args(extra)
        .arg("--table")
        .arg(table)
        .arg(&data.csv);
    c
}

/// The table's answer, checked to be a whole number of copies; and
/// `strata verify` finds nothing damaged.
fn consistent(table: &Path, data: &Data) -> u64 {
    let answer = ok(&count_sum(table, &[]).output().unwrap());
    let copies = data
        .copies(&answer)
        .unwrap_or_else(|| panic!("inconsistent: {} answers {answer}", table.display()));
    let out = strata().arg("verify").arg(table).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "inconsistent: verify: {stderr}");
    copies
}

/// Stray files `verify` notes in the table directory.
fn strays(table: &Path) -> Vec<String> {
    let out = strata().arg("verify").arg(table).output().unwrap();
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains("is not part of the table"))
        .map(str::to_string)
        .collect()
}

/// How long each operation takes here, uninterrupted: kills land within it.
struct Timings {
    ingest: Duration,
    append: Duration,
    load: Duration,
}

struct Suite {
    work: PathBuf,
    data: Data,
    times: Timings,
    counts: Counts,
    rng: Mutex<Rng>,
}

impl Suite {
    fn delay(&self, of: Duration) -> Duration {
        self.rng.lock().unwrap().within(of, 120)
    }

    fn chance(&self, one_in: u64) -> bool {
        self.rng.lock().unwrap().chance(one_in)
    }

    /// Killed ingests leave no table or the whole one; the next ingest in
    /// the directory sweeps what they left.
    fn killed_ingests(&self, rounds: usize) {
        let dir = self.work.join("ingests");
        std::fs::create_dir_all(&dir).unwrap();
        let table = dir.join("t");
        for _ in 0..rounds {
            Counts::add(&self.counts.runs);
            let sort: &[&str] = if self.chance(2) {
                &["--sort-by", "b"]
            } else {
                &[]
            };
            let delay = self.delay(self.times.ingest);
            if let Some(out) =
                kill_after(&mut ingest(&table, &self.data, sort), delay, &self.counts)
            {
                ok(&out);
            }
            if table.exists() {
                assert_eq!(consistent(&table, &self.data), 1, "inconsistent ingest");
                std::fs::remove_dir_all(&table).unwrap();
            }
        }
        ok(&ingest(&dir.join("last"), &self.data, &[]).output().unwrap());
        let left = hidden_entries(&dir);
        assert!(left.is_empty(), "inconsistent: left behind: {left:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Killed appends leave the old table or the new one; the next append
    /// succeeds and removes what they left.
    fn killed_appends(&self, rounds: usize) {
        let dir = self.work.join("appends");
        std::fs::create_dir_all(&dir).unwrap();
        let table = dir.join("t");
        ok(&ingest(&table, &self.data, &[]).output().unwrap());
        let mut copies = 1;
        for _ in 0..rounds {
            Counts::add(&self.counts.runs);
            let delay = self.delay(self.times.append);
            let mut append = ingest(&table, &self.data, &["--append"]);
            if let Some(out) = kill_after(&mut append, delay, &self.counts) {
                ok(&out);
            }
            let now = consistent(&table, &self.data);
            assert!(
                now == copies || now == copies + 1,
                "inconsistent: {now} copies after {copies}"
            );
            copies = now;
        }
        ok(&ingest(&table, &self.data, &["--append"]).output().unwrap());
        assert_eq!(consistent(&table, &self.data), copies + 1);
        let strays = strays(&table);
        assert!(strays.is_empty(), "inconsistent: {strays:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Queries killed while they load a file into the cache: the next one
    /// answers right, and no entry is left half-built.
    fn killed_loads(&self, rounds: usize) {
        let cache = self.work.join("load-cache");
        let cache_arg = cache.to_str().unwrap().to_string();
        let args = ["--cache-dir", cache_arg.as_str()];
        for _ in 0..rounds {
            Counts::add(&self.counts.runs);
            ok(&strata()
                .args(["cache", "clear"])
                .args(args)
                .output()
                .unwrap());
            let delay = self.delay(self.times.load);
            if let Some(out) =
                kill_after(&mut count_sum(&self.data.csv, &args), delay, &self.counts)
            {
                assert_eq!(self.data.copies(&ok(&out)), Some(1), "inconsistent answer");
            }
            // A query after a killed load finishes: it never waits on the
            // killed process's lock.
            let after = run_or_kill(
                &mut count_sum(&self.data.csv, &args),
                Duration::from_secs(120),
            )
            .expect("inconsistent: a query after a killed load hangs");
            let answer = ok(&after);
            assert_eq!(self.data.copies(&answer), Some(1), "inconsistent: {answer}");
            for entry in std::fs::read_dir(&cache).unwrap().flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                assert!(
                    name.starts_with('.') || entry.path().join("USED").exists(),
                    "inconsistent: half-built cache entry {name}"
                );
            }
        }
        std::fs::remove_dir_all(&cache).unwrap();
    }

    /// Readers, two appenders (one of them killed now and then), queries of
    /// the file through the cache, and cache clears, for `seconds`.
    fn concurrent(&self, seconds: u64) {
        let dir = self.work.join("concurrent");
        std::fs::create_dir_all(&dir).unwrap();
        let table = dir.join("t");
        ok(&ingest(&table, &self.data, &["--no-sync"]).output().unwrap());
        let cache = dir.join("cache");
        let cache_args = ["--cache-dir".to_string(), cache.display().to_string()];
        let cache_args: Vec<&str> = cache_args.iter().map(String::as_str).collect();
        let deadline = Instant::now() + Duration::from_secs(seconds);
        let running = &|| Instant::now() < deadline;
        let table = &table;
        let stop = AtomicBool::new(false);
        Counts::add(&self.counts.runs);
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| {
                    let mut seen = 1;
                    while running() && !stop.load(Ordering::Relaxed) {
                        let answer = ok(&count_sum(table, &[]).output().unwrap());
                        let copies = self.data.copies(&answer);
                        assert!(
                            copies.is_some_and(|k| k >= seen),
                            "inconsistent: {answer} after {seen} copies"
                        );
                        seen = copies.unwrap_or(seen);
                        Counts::add(&self.counts.queries);
                    }
                });
            }
            for killer in [false, true] {
                s.spawn(move || {
                    while running() {
                        let mut append = ingest(table, &self.data, &["--append", "--no-sync"]);
                        let delay = if killer && self.chance(2) {
                            self.delay(self.times.append)
                        } else {
                            Duration::from_secs(600)
                        };
                        let Some(out) = kill_after(&mut append, delay, &self.counts) else {
                            continue;
                        };
                        let stderr = String::from_utf8_lossy(&out.stderr);
                        if out.status.success() {
                            Counts::add(&self.counts.appends);
                        } else if stderr.contains("another append") {
                            Counts::add(&self.counts.appends_refused);
                            std::thread::sleep(Duration::from_millis(20));
                        } else {
                            panic!("inconsistent: append failed: {stderr}");
                        }
                    }
                });
            }
            s.spawn(|| {
                while running() {
                    let out = count_sum(&self.data.csv, &cache_args).output().unwrap();
                    let answer = ok(&out);
                    assert_eq!(self.data.copies(&answer), Some(1), "inconsistent: {answer}");
                    Counts::add(&self.counts.queries);
                }
            });
            s.spawn(|| {
                while running() {
                    ok(&strata()
                        .args(["cache", "clear"])
                        .args(&cache_args)
                        .output()
                        .unwrap());
                    Counts::add(&self.counts.clears);
                    std::thread::sleep(Duration::from_millis(40));
                }
            });
        });
        stop.store(true, Ordering::Relaxed);
        consistent(table, &self.data);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A full disk: ingests, sorted ingests, appends and cache loads fail
    /// with the system's error, leave nothing behind, and change nothing.
    fn disk_full(&self, full: &Path, big: &Path) {
        let fails = |cmd: &mut Command| {
            let out = cmd.output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{stderr}");
            assert!(stderr.contains("No space left on device"), "{stderr}");
            Counts::add(&self.counts.disk_full);
        };
        let table = full.join("t");
        let big_ingest = |extra: &[&str], table: &Path| {
            let mut c = strata();
            c.args(["ingest", "--compression", "raw", "--block-rows", "8192"])
                .args(extra)
                .arg("--table")
                .arg(table)
                .arg(big);
            c
        };
        Counts::add(&self.counts.runs);
        fails(&mut big_ingest(&[], &table));
        fails(&mut big_ingest(&["--sort-by", "s"], &table));
        assert!(!table.exists());
        assert!(
            hidden_entries(full).is_empty(),
            "inconsistent: {:?}",
            hidden_entries(full)
        );
        ok(&ingest(&table, &self.data, &[]).output().unwrap());
        fails(&mut big_ingest(&["--append"], &table));
        assert_eq!(consistent(&table, &self.data), 1);
        assert!(
            strays(&table).is_empty(),
            "inconsistent: {:?}",
            strays(&table)
        );
        let cache = full.join("cache");
        fails(
            strata()
                .args(["query", "--cache-dir"])
                .arg(&cache)
                .arg(format!("SELECT COUNT(DISTINCT s) FROM '{}'", big.display())),
        );
        let entries: Vec<_> = std::fs::read_dir(&cache)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .filter(|n| !n.to_string_lossy().starts_with(".lock-"))
            .collect();
        assert!(entries.is_empty(), "inconsistent: {entries:?}");
        std::fs::remove_dir_all(&table).unwrap();
        std::fs::remove_dir_all(&cache).unwrap();
    }
}

/// A tmpfs of `mb` MB mounted at a new directory, unmounted on drop; `None`
/// where mounting is not allowed.
struct SmallDisk(PathBuf);

impl SmallDisk {
    fn mount(at: PathBuf, mb: u64) -> Option<SmallDisk> {
        std::fs::create_dir_all(&at).unwrap();
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={mb}m"), "tmpfs"])
            .arg(&at)
            .output()
            .ok()?;
        out.status.success().then_some(SmallDisk(at))
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).output();
    }
}

/// `rows` rows of the data's columns, `s` 256 random hexadecimal
/// characters: 263 bytes a row that do not compress.
fn incompressible_csv(path: &Path, rows: u64, rng: &mut Rng) {
    let mut text = String::from("a,b,s\n");
    for i in 0..rows {
        let (a, b) = (i * 7 % 1000, i % 13);
        text.push_str(&format!("{a},{b},"));
        for _ in 0..16 {
            text.push_str(&format!("{:016x}", rng.next()));
        }
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

fn timed(cmd: &mut Command) -> Duration {
    let start = Instant::now();
    ok(&cmd.output().unwrap());
    start.elapsed()
}

#[test]
fn faults_leave_tables_and_the_cache_consistent() {
    let long = std::env::var("STRATA_FAULT_SECONDS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok());
    let seed = std::env::var("STRATA_FAULT_SEED")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    eprintln!("fault suite seed: STRATA_FAULT_SEED={seed}");
    let work = tempfile::tempdir().unwrap();
    let data = Data::new(work.path(), 100_000);
    let probe = work.path().join("probe");
    let times = Timings {
        ingest: timed(&mut ingest(&probe, &data, &[])),
        append: timed(&mut ingest(&probe, &data, &["--append"])),
        load: timed(&mut count_sum(&data.csv, &["--no-cache"])),
    };
    std::fs::remove_dir_all(&probe).unwrap();
    let suite = Suite {
        work: work.path().to_path_buf(),
        data,
        times,
        counts: Counts::default(),
        rng: Mutex::new(Rng(seed)),
    };
    // Inputs half as large again as the disk.
    let (disk_mb, big_rows) = if long.is_some() {
        (20, 120_000)
    } else {
        (4, 24_000)
    };
    let disk = SmallDisk::mount(work.path().join("full"), disk_mb);
    let big = work.path().join("big.csv");
    if disk.is_some() {
        incompressible_csv(&big, big_rows, &mut suite.rng.lock().unwrap());
    } else {
        eprintln!("fault suite: cannot mount a tmpfs here; the full-disk faults are skipped");
    }
    let started = Instant::now();
    let mut round = 0u64;
    loop {
        suite.killed_ingests(3);
        suite.killed_appends(3);
        suite.killed_loads(3);
        if let Some(d) = &disk {
            if round.is_multiple_of(5) {
                suite.disk_full(&d.0, &big);
            }
        }
        suite.concurrent(if long.is_some() { 20 } else { 6 });
        round += 1;
        if long.is_none_or(|s| started.elapsed() >= Duration::from_secs(s)) {
            break;
        }
    }
    let c = &suite.counts;
    let n = |a: &AtomicU64| a.load(Ordering::Relaxed);
    eprintln!(
        "fault suite: {:.0} s, {} rounds, {} runs; faults injected: {} kills, {} full-disk \
         failures, {} cache clears; {} queries checked, {} appends ({} refused while another \
         ran); inconsistencies: 0",
        started.elapsed().as_secs_f64(),
        round,
        n(&c.runs),
        n(&c.kills),
        n(&c.disk_full),
        n(&c.clears),
        n(&c.queries),
        n(&c.appends),
        n(&c.appends_refused),
    );
}

//! Ctrl-C (SIGINT) interrupts a running query: a one-shot `strata query`
//! exits with status 130, the shell reports it and takes the next statement.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::{hidden_entries, ingest, strata};

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

/// Table `t` of 300,000 rows in 1,024-row blocks: many block boundaries
/// for an interrupt to stop at.
fn make_table(dir: &Path) {
    let csv = dir.join("t.csv");
    let mut text = String::from("a,b\n");
    for i in 0..300_000u64 {
        text.push_str(&format!("{i},{}\n", i * 7919 % 100_003));
    }
    std::fs::write(&csv, text).unwrap();
    ingest(&dir.join("t"), &csv, &[&"--block-rows", &"1024"]);
}

/// A query that takes many seconds: eight COUNT(DISTINCT) passes over
/// every block.
const SLOW: &str = "SELECT a % 7, count(DISTINCT a), count(DISTINCT b), \
    count(DISTINCT a + b), count(DISTINCT a * b), count(DISTINCT a - b), \
    count(DISTINCT a * 3 + b), count(DISTINCT a * 5 + b), \
    count(DISTINCT a * 11 + b) FROM t GROUP BY 1 ORDER BY 1";

fn interrupt(child: &Child) {
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
}

/// All of a child's piped output stream.
fn read_all(stream: Option<impl Read>) -> String {
    let mut text = String::new();
    stream.unwrap().read_to_string(&mut text).unwrap();
    text
}

/// Waits for `child` to exit, failing the test after `limit`.
fn wait_within(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            panic!("no exit within {limit:?} of the interrupt");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn ctrl_c_interrupts_a_one_shot_query_with_status_130() {
    let dir = tempfile::tempdir().unwrap();
    make_table(dir.path());
    let mut child = strata()
        .args(["query", "--format", "csv", "--db"])
        .arg(dir.path())
        .arg(SLOW)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    interrupt(&child);
    let status = wait_within(&mut child, Duration::from_secs(5));
    let stderr = read_all(child.stderr.take());
    assert_eq!(status.code(), Some(130), "stderr: {stderr}");
    assert!(stderr.contains("query interrupted"), "stderr: {stderr}");
}

#[test]
fn ctrl_c_in_the_shell_interrupts_the_query_and_keeps_the_shell() {
    let dir = tempfile::tempdir().unwrap();
    make_table(dir.path());
    let mut child = strata()
        .args(["repl", "--db"])
        .arg(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, ".mode csv").unwrap();
    writeln!(stdin, "{SLOW};").unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    interrupt(&child);
    writeln!(stdin, "SELECT count(*) AS n FROM t;").unwrap();
    writeln!(stdin, ".quit").unwrap();
    drop(stdin);
    let status = wait_within(&mut child, Duration::from_secs(5));
    let (out, err) = (read_all(child.stdout.take()), read_all(child.stderr.take()));
    assert!(status.success(), "stderr: {err}");
    assert!(err.contains("query interrupted"), "stderr: {err}");
    assert!(out.contains("n\n300000\n"), "stdout: {out}");
}

#[test]
fn ctrl_c_stops_a_sorting_ingest_and_removes_what_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t");
    let mut child = strata()
        .args([
            "ingest",
            "--no-sync",
            "--format",
            "csv",
            "--block-rows",
            "1000",
        ])
        .args(["--sort-by", "b", "--table"])
        .arg(&table)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let rows = |from: u64, to: u64| {
        (from..to)
            .map(|i| format!("{i},{}\n", i * 7919 % 100_003))
            .collect::<String>()
    };
    stdin.write_all(b"a,b\n").unwrap();
    stdin.write_all(rows(0, 20_000).as_bytes()).unwrap();
    // Runs are being spilled once the temporary directories exist.
    let start = Instant::now();
    while hidden_entries(dir.path()).len() < 2 {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no spill started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    interrupt(&child);
    // The reader notices at its next block; give it one, then end the input.
    let _ = stdin.write_all(rows(20_000, 40_000).as_bytes());
    drop(stdin);
    let status = wait_within(&mut child, Duration::from_secs(30));
    let stderr = read_all(child.stderr.take());
    assert_eq!(status.code(), Some(130), "stderr: {stderr}");
    assert!(
        stderr.contains("ingest interrupted; no table was created"),
        "stderr: {stderr}"
    );
    assert!(!table.exists());
    assert_eq!(hidden_entries(dir.path()), Vec::<String>::new());
}

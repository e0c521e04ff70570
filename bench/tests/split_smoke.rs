//! Every ClickBench query split into 1, 2 and 5 tasks over the blocks of a
//! small generated table (many blocks), merged, gives the single-process
//! answer (`strata-bench clickbench --split`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

#[test]
fn clickbench_queries_split_into_tasks_give_the_single_process_answer() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_strata-bench"))
        .args(["clickbench", "--rows", "30000", "--runs", "1"])
        .args(["--threads", "2", "--block-rows", "2000"])
        .args(["--split", "1,2,5", "--engines", "strata"])
        .arg("--workdir")
        .arg(dir.path().join("work"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "failed:\n{stdout}\n{stderr}");
    let report = stdout
        .split("Split queries:")
        .nth(1)
        .unwrap_or_else(|| panic!("no split report:\n{stdout}"));
    for q in 1..=43 {
        for tasks in [1, 2, 5] {
            let line = report
                .lines()
                .find(|l| {
                    let mut w = l.split_whitespace();
                    w.next() == Some(&format!("Q{q}")) && w.next() == Some(&tasks.to_string())
                })
                .unwrap_or_else(|| panic!("no line for Q{q} in {tasks} tasks:\n{report}"));
            assert!(
                line.ends_with("OK") || line.ends_with("OK (ties)"),
                "Q{q} in {tasks} tasks: {line}"
            );
        }
    }
    assert!(
        report.contains("split answers: 129 match, split mismatches: 0, refused: 0"),
        "{report}"
    );
}

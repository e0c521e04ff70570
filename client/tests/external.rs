//! A separate crate that depends on `strata` by path can open a table and
//! query it (tests/external/, built here with `cargo build --offline`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::ingest;

use std::path::{Path, PathBuf};
use std::process::Command;

fn copy(from: &Path, to: &Path, rewrite: impl Fn(&str) -> String) {
    let text = std::fs::read_to_string(from).unwrap();
    std::fs::write(to, rewrite(&text)).unwrap();
}

#[test]
fn a_separate_crate_can_depend_on_strata() {
    let client = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let work = tempfile::tempdir().unwrap();
    let krate = work.path().join("external");
    std::fs::create_dir_all(krate.join("src")).unwrap();
    copy(
        &client.join("tests/external/Cargo.toml"),
        &krate.join("Cargo.toml"),
        |t| {
            t.replace(
                "path = \"../..\"",
                &format!("path = {:?}", client.display().to_string()),
            )
        },
    );
    copy(
        &client.join("tests/external/src/main.rs"),
        &krate.join("src/main.rs"),
        str::to_string,
    );
    // The workspace's lock file, so the same dependency versions (already
    // built) are used and nothing is fetched.
    let lock = client.join("../Cargo.lock");
    if lock.exists() {
        std::fs::copy(&lock, krate.join("Cargo.lock")).unwrap();
    }
    // The test's own target directory (where the binary under test lives),
    // so the dependencies `cargo test` built are reused.
    let target = PathBuf::from(env!("CARGO_BIN_EXE_strata"))
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .to_path_buf();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["build", "--offline", "--quiet", "--manifest-path"])
        .arg(krate.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo build failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // A table to read.
    let csv = work.path().join("t.csv");
    std::fs::write(&csv, "id,name\n2,Bob\n1,Ann\n").unwrap();
    let table = work.path().join("t");
    ingest(&table, &csv, &[]);

    let bin = target.join("debug/strata-external-check");
    let out = Command::new(bin).arg(&table).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stdout,
        "rows=2 ids=[1, 2]\n1|Ann\n2|Bob\nerror: column \"nope\" not found (did you mean \"name\"?)\n"
    );
}

//! `strata-bench 1brc` on hand-made files whose answers DuckDB computed
//! (tests/data/1brc/make_fixtures.py), and `gen 1brc` end to end.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

fn answer(file: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_strata-bench"))
        .arg("1brc")
        .arg(file)
        .args(["--threads", "2"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn check(name: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/1brc");
    let want = std::fs::read_to_string(dir.join(format!("{name}.out"))).unwrap();
    let got = answer(&dir.join(format!("{name}.txt")));
    if got != want {
        let at = got
            .bytes()
            .zip(want.bytes())
            .position(|(a, b)| a != b)
            .unwrap_or(got.len().min(want.len()));
        let from = at.saturating_sub(80);
        panic!(
            "{name}: answers differ at byte {at}\n  strata: {}\n  DuckDB: {}",
            got.get(from..(at + 80).min(got.len())).unwrap_or("?"),
            want.get(from..(at + 80).min(want.len())).unwrap_or("?")
        );
    }
}

#[test]
fn shortest_file() {
    check("shortest");
}

#[test]
fn one_station() {
    check("one-station");
}

#[test]
fn boundaries_at_plus_and_minus_99_9() {
    check("boundaries");
}

#[test]
fn exact_rounding_ties_go_up_and_never_negative_zero() {
    check("rounding");
}

#[test]
fn names_of_1_and_100_bytes_utf8_spaces_and_commas() {
    check("names");
}

#[test]
fn ten_thousand_stations() {
    check("10000-stations");
}

#[test]
fn generated_file_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("m.txt");
    let gen = |out: &Path, threads: &str| {
        let st = Command::new(env!("CARGO_BIN_EXE_strata-bench"))
            .args([
                "gen",
                "1brc",
                "--rows",
                "2500000",
                "--seed",
                "3",
                "--threads",
                threads,
            ])
            .arg("--out")
            .arg(out)
            .status()
            .unwrap();
        assert!(st.success());
    };
    gen(&file, "1");
    let again = dir.path().join("m2.txt");
    gen(&again, "2");
    assert_eq!(
        std::fs::read(&file).unwrap(),
        std::fs::read(&again).unwrap()
    );
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text.lines().count(), 2_500_000);
    let got = answer(&file);
    // All 413 stations appear; independent oracle: integer tenths per name.
    let mut want: std::collections::BTreeMap<&[u8], (i64, i64, i64, i64)> = Default::default();
    for line in text.lines() {
        let (name, t) = line.rsplit_once(';').unwrap();
        let t: i64 = t.replace('.', "").parse().unwrap();
        let e = want
            .entry(name.as_bytes())
            .or_insert((i64::MAX, i64::MIN, 0, 0));
        e.0 = e.0.min(t);
        e.1 = e.1.max(t);
        e.2 += t;
        e.3 += 1;
    }
    assert_eq!(want.len(), 413);
    let fmt = |t: i64| {
        format!(
            "{}{}.{}",
            if t < 0 { "-" } else { "" },
            t.abs() / 10,
            t.abs() % 10
        )
    };
    let body: Vec<String> = want
        .iter()
        .map(|(n, &(lo, hi, s, c))| {
            let mean = (2 * s + c).div_euclid(2 * c);
            format!(
                "{}={}/{}/{}",
                String::from_utf8_lossy(n),
                fmt(lo),
                fmt(mean),
                fmt(hi)
            )
        })
        .collect();
    assert_eq!(got, format!("{{{}}}\n", body.join(", ")));
}

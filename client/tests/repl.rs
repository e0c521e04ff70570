//! The interactive shell driven through a pseudo-terminal (as a person at a
//! terminal would), and through a pipe.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::{ingest, strata};

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Makes table `people` in `dir` with `strata ingest`.
fn make_table(dir: &Path) {
    let csv = dir.join("people.csv");
    std::fs::write(&csv, "id,name,score\n1,Ann,1.5\n2,Bob,2\n3,Cy,0.25\n").unwrap();
    ingest(&dir.join("people"), &csv, &[]);
}

/// Removes ANSI escape sequences and carriage returns.
fn plain(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
        } else if c != '\r' {
            out.push(c);
        }
    }
    out
}

/// A child process on a pseudo-terminal.
struct Pty {
    child: std::process::Child,
    input: std::fs::File,
    output: Arc<Mutex<Vec<u8>>>,
    /// How much of the output earlier expectations consumed.
    seen: usize,
}

impl Pty {
    fn spawn(mut cmd: Command) -> Pty {
        let size = nix::pty::Winsize {
            ws_row: 40,
            ws_col: 120,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        let pty = nix::pty::openpty(&size, None).unwrap();
        let child = cmd
            .env("TERM", "xterm")
            .stdin(Stdio::from(pty.slave.try_clone().unwrap()))
            .stdout(Stdio::from(pty.slave.try_clone().unwrap()))
            .stderr(Stdio::from(pty.slave))
            .spawn()
            .unwrap();
        // The parent's copies of the slave end are gone (moved into `cmd`).
        drop(cmd);
        let master = std::fs::File::from(pty.master);
        let input = master.try_clone().unwrap();
        let output = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&output);
        std::thread::spawn(move || {
            let mut master = master;
            let mut buf = [0u8; 4096];
            // Ends with EIO once the child has exited.
            while let Ok(n) = master.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Pty {
            child,
            input,
            output,
            seen: 0,
        }
    }

    fn send(&mut self, text: &str) {
        self.input.write_all(text.as_bytes()).unwrap();
        self.input.flush().unwrap();
    }

    /// Waits until `needle` appears in the output after what was already
    /// matched; returns the output up to and including it.
    fn expect(&mut self, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let text = plain(&self.output.lock().unwrap());
            if let Some(i) = text[self.seen.min(text.len())..].find(needle) {
                let end = self.seen + i + needle.len();
                let got = text[self.seen..end].to_string();
                self.seen = end;
                return got;
            }
            if Instant::now() > deadline {
                panic!("timed out waiting for {needle:?}; output:\n{text}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends a line and waits for the next prompt; returns what came between.
    fn line(&mut self, text: &str) -> String {
        self.send(text);
        self.send("\r");
        self.expect("strata> ")
    }
}

#[test]
fn repl_on_a_pseudo_terminal() {
    let dir = tempfile::tempdir().unwrap();
    make_table(dir.path());
    let home = tempfile::tempdir().unwrap();
    let mut cmd = strata();
    cmd.arg("repl")
        .arg("--db")
        .arg(dir.path())
        .env("HOME", home.path());
    let mut pty = Pty::spawn(cmd);
    pty.expect("strata> ");

    let help = pty.line(".help");
    assert!(help.contains(".schema") && help.contains(".quit"), "{help}");
    let tables = pty.line(".tables");
    assert!(tables.contains("people"), "{tables}");
    let schema = pty.line(".schema people");
    assert!(
        schema.contains("CREATE TABLE people") && schema.contains("score DOUBLE"),
        "{schema}"
    );
    pty.line(".mode csv");

    // A statement over two lines, ended by `;`.
    pty.send("SELECT id, name\r");
    pty.expect("...> ");
    let out = pty.line("FROM people ORDER BY id;");
    assert!(out.contains("id,name\n1,Ann\n2,Bob\n3,Cy\n"), "{out}");

    // Tab completion of a table name and of a column name.
    pty.send("SELECT sco\t");
    pty.expect("score");
    pty.send(" FROM peo\t");
    pty.expect("people");
    let out = pty.line(" WHERE id = 2;");
    assert!(out.contains("score\n2\n"), "{out}");

    // Ctrl-C drops the line being typed; the next statement runs alone.
    pty.send("SELECT garbage FROM nowhere");
    pty.send("\x03");
    pty.expect("strata> ");
    let out = pty.line("SELECT count(*) AS n FROM people;");
    assert!(out.contains("n\n3\n"), "{out}");
    assert!(
        !out.contains("garbage") || !out.contains("not found"),
        "{out}"
    );

    // Errors are reported and the shell goes on; syntax errors get a caret.
    let out = pty.line("SELECT nme FROM people;");
    assert!(out.contains("column \"nme\" not found"), "{out}");
    let out = pty.line("SELECT id FROM people WHERE id = = 1;");
    assert!(out.contains("syntax error") && out.contains('^'), "{out}");

    pty.line(".timer on");
    let out = pty.line("SELECT max(id) AS m FROM people;");
    assert!(out.contains("m\n3\n") && out.contains("time: "), "{out}");
    pty.line(".timer off");
    pty.line(".mode json");
    let out = pty.line("SELECT name FROM people WHERE id = 1;");
    assert!(out.contains(r#"{"name":"Ann"}"#), "{out}");
    let out = pty.line(".explain SELECT name FROM people WHERE id > 1");
    assert!(
        out.contains("TableScan (sorted-vector engine on people)")
            && out.contains("blocks: 1 of 1"),
        "{out}"
    );
    let out = pty.line(".mode xml");
    assert!(out.contains("unknown mode"), "{out}");

    // Ctrl-D leaves.
    pty.send("\x04");
    let status = pty.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    let history = std::fs::read_to_string(home.path().join(".strata_history")).unwrap();
    assert!(
        history.contains("SELECT id, name FROM people ORDER BY id;"),
        "{history}"
    );
    assert!(history.contains(".mode csv"), "{history}");

    // The history is loaded again by the next session: Up recalls it.
    let mut cmd = strata();
    cmd.arg("repl")
        .arg("--db")
        .arg(dir.path())
        .env("HOME", home.path());
    let mut pty = Pty::spawn(cmd);
    pty.expect("strata> ");
    pty.send(".quit\r");
    assert!(pty.child.wait().unwrap().success());
}

#[test]
fn no_arguments_on_a_terminal_starts_the_shell() {
    let dir = tempfile::tempdir().unwrap();
    make_table(dir.path());
    let home = tempfile::tempdir().unwrap();
    let mut cmd = strata();
    cmd.current_dir(dir.path()).env("HOME", home.path());
    let mut pty = Pty::spawn(cmd);
    pty.expect("strata> ");
    pty.line(".mode csv");
    let out = pty.line("SELECT count(*) AS n FROM people;");
    assert!(out.contains("n\n3\n"), "{out}");
    pty.send(".quit\r");
    assert!(pty.child.wait().unwrap().success());
}

#[test]
fn repl_reads_a_pipe_too() {
    let dir = tempfile::tempdir().unwrap();
    make_table(dir.path());
    let home = tempfile::tempdir().unwrap();
    let mut child = strata()
        .arg("repl")
        .arg("--db")
        .arg(dir.path())
        .env("HOME", home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b".mode csv\nSELECT name\nFROM people\nWHERE id = 3;\nSELECT nope FROM people;\n.quit\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("name\nCy\n"), "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("column \"nope\" not found"), "{stderr}");
}

#[test]
fn repl_queries_files_in_place_and_shows_the_load() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("v.csv");
    std::fs::write(&csv, "v,w\n1,a\n2,b\n4,a\n").unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut cmd = strata();
    cmd.arg("repl")
        .arg("--cache-dir")
        .arg(dir.path().join("cache"))
        .current_dir(dir.path())
        .env("HOME", home.path());
    let mut pty = Pty::spawn(cmd);
    pty.expect("strata> ");
    pty.line(".mode csv");
    // The first query loads the file (and says so on the terminal).
    let out = pty.line("SELECT w, sum(v) AS s FROM 'v.csv' GROUP BY w ORDER BY w;");
    assert!(out.contains("w,s\na,5\nb,2\n"), "{out}");
    assert!(out.contains("loading") && out.contains("v.csv"), "{out}");
    // The second one reads the cache: no load.
    let out = pty.line("SELECT count(*) AS n FROM read_csv('v.csv', delim=',');");
    assert!(out.contains("n\n3\n"), "{out}");
    assert!(!out.contains("loading"), "{out}");
    pty.send(".quit\r");
    assert!(pty.child.wait().unwrap().success());
}

//! A DuckDB session in one persistent Python process (`peers.py serve`): requests and
//! replies are JSON lines.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use anyhow::{bail, Context, Result};

use super::compare::{duck_cell, Rows};
use crate::suite::json::{self, Json};

/// The session.
pub struct Duck {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

/// DuckDB's answer to a query.
#[derive(Debug, Clone)]
pub struct DuckAnswer {
    /// Column names.
    pub columns: Vec<String>,
    /// Column types as DuckDB names them.
    pub types: Vec<String>,
    /// The rows.
    pub rows: Rows,
}

impl Duck {
    /// Starts `python script serve`.
    pub fn start(python: &str, script: &Path, threads: usize) -> Result<Duck> {
        let mut child = Command::new(python)
            .arg(script)
            .arg("serve")
            .args(["--threads", &threads.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .with_context(|| format!("starting {python} {}", script.display()))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            bail!("no pipes to the DuckDB process");
        };
        Ok(Duck {
            child,
            stdin,
            stdout: BufReader::new(stdout),
        })
    }

    /// Sends one request (`fields` as JSON strings) and reads the reply.
    fn request(&mut self, fields: &[(&str, &str)]) -> Result<Json> {
        let body: Vec<String> = fields
            .iter()
            .map(|(k, v)| format!("{}: {}", json::quote(k), json::quote(v)))
            .collect();
        writeln!(self.stdin, "{{{}}}", body.join(", ")).context("writing to DuckDB")?;
        self.stdin.flush().context("writing to DuckDB")?;
        let mut line = String::new();
        if self.stdout.read_line(&mut line).context("reading DuckDB")? == 0 {
            bail!("the DuckDB process ended");
        }
        json::parse(line.trim_end())
    }

    fn error(reply: &Json) -> Option<String> {
        reply.get("error").str().map(String::from)
    }

    /// Runs a statement in `schema`; `Ok(Err(message))` when DuckDB refuses it.
    pub fn exec(&mut self, sql: &str, schema: &str) -> Result<Result<(), String>> {
        let reply = self.request(&[("op", "exec"), ("sql", sql), ("schema", schema)])?;
        Ok(Self::error(&reply).map_or(Ok(()), Err))
    }

    /// Runs a query in `schema`; `Ok(Err(message))` when DuckDB refuses it.
    pub fn query(&mut self, sql: &str, schema: &str) -> Result<Result<DuckAnswer, String>> {
        let reply = self.request(&[("op", "query"), ("sql", sql), ("schema", schema)])?;
        if let Some(e) = Self::error(&reply) {
            return Ok(Err(e));
        }
        let strings = |v: &Json| -> Vec<String> {
            v.items()
                .iter()
                .map(|s| s.str().unwrap_or("").to_string())
                .collect()
        };
        let rows = reply
            .get("rows")
            .items()
            .iter()
            .map(|r| r.items().iter().map(duck_cell).collect())
            .collect();
        Ok(Ok(DuckAnswer {
            columns: strings(reply.get("columns")),
            types: strings(reply.get("types")),
            rows,
        }))
    }

    /// Writes `schema.table` to `path` as CSV with a header; returns its (column, type) pairs.
    pub fn export(
        &mut self,
        table: &str,
        schema: &str,
        path: &Path,
    ) -> Result<Result<Vec<(String, String)>, String>> {
        let path = path.to_string_lossy();
        let reply = self.request(&[
            ("op", "export"),
            ("table", table),
            ("schema", schema),
            ("path", &path),
        ])?;
        if let Some(e) = Self::error(&reply) {
            return Ok(Err(e));
        }
        Ok(Ok(reply
            .get("columns")
            .items()
            .iter()
            .map(|c| {
                let pair = c.items();
                let s = |i: usize| pair.get(i).and_then(Json::str).unwrap_or("").to_string();
                (s(0), s(1))
            })
            .collect()))
    }
}

impl Drop for Duck {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

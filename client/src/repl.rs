//! `strata repl` (and `strata` with no arguments on a terminal): an
//! interactive SQL shell with history, multi-line statements ended by `;`,
//! completion of table and column names, and dot commands.

use std::borrow::Cow;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::{FileHistory, History};
use rustyline::validate::Validator;
use rustyline::{Config, Context, Editor, Helper};
use strata::Database;

use crate::cmd_cache::{open_db, CacheArgs};
use crate::cmd_query::{parse_memory_limit, split_statements, Recording};
use crate::output::Format;

/// Arguments of `strata repl`.
#[derive(Debug, clap::Args)]
pub struct ReplArgs {
    /// Directory in which table names are resolved.
    #[arg(long, default_value = ".")]
    pub db: PathBuf,
    /// Worker threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Memory each query's results may hold, e.g. 4GB or 512MiB (default:
    /// 80% of physical memory).
    #[arg(long, value_parser = parse_memory_limit)]
    pub memory_limit: Option<u64>,
    /// Where files queried in place are cached.
    #[command(flatten)]
    pub cache: CacheArgs,
}

impl Default for ReplArgs {
    fn default() -> ReplArgs {
        ReplArgs {
            db: PathBuf::from("."),
            threads: 0,
            memory_limit: None,
            cache: CacheArgs::default(),
        }
    }
}

const PROMPT: &str = "strata> ";
const CONTINUATION: &str = "   ...> ";

const HELP: &str = "\
Enter SQL statements ended by ';' (they may span several lines).
.tables             list the tables in the database directory
.schema [TABLE]     show the columns of TABLE (or of every table)
.mode MODE          output format: table, csv, tsv, json or jsonl
.timer on|off       report each statement's time and the table's rows/bytes
.explain SQL        show the plan of SQL and each block's strategy
.help               show this message
.quit               leave (also Ctrl-D)
Ctrl-C cancels the current input.";

/// The dot commands, for completion.
const DOT_COMMANDS: [&str; 7] = [
    ".tables", ".schema", ".mode", ".timer", ".explain", ".help", ".quit",
];

/// Completes dot commands, table names and column names.
struct StrataHelper {
    db: Database,
}

impl StrataHelper {
    /// Table names, then the columns of every table, deduplicated.
    fn names(&self) -> Vec<String> {
        let tables = self.db.tables().unwrap_or_default();
        let mut names = tables.clone();
        for t in &tables {
            if let Ok(table) = self.db.table(t) {
                for (c, _) in table.schema() {
                    if !names.contains(&c) {
                        names.push(c);
                    }
                }
            }
        }
        names
    }
}

impl Completer for StrataHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let before = &line[..pos];
        let start = before
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
            .map_or(0, |i| {
                i + before[i..].chars().next().map_or(1, char::len_utf8)
            });
        let word = &before[start..];
        let candidates: Vec<String> = if start == 0 && word.starts_with('.') {
            DOT_COMMANDS.iter().map(|s| s.to_string()).collect()
        } else {
            self.names()
        };
        let lower = word.to_lowercase();
        let matches = candidates
            .into_iter()
            .filter(|c| c.to_lowercase().starts_with(&lower))
            .map(|c| Pair {
                display: c.clone(),
                replacement: c,
            })
            .collect();
        Ok((start, matches))
    }
}

impl Hinter for StrataHelper {
    type Hint = String;
}

impl Highlighter for StrataHelper {
    fn highlight_prompt<'b, 's: 'b, 'p: 'b>(&'s self, prompt: &'p str, _: bool) -> Cow<'b, str> {
        Cow::Borrowed(prompt)
    }
}

impl Validator for StrataHelper {}

impl Helper for StrataHelper {}

/// The shell's settings.
struct Shell {
    db: Database,
    mode: Format,
    timer: bool,
}

/// What a dot command asks of the loop.
enum Next {
    Continue,
    Quit,
}

/// Runs the shell until `.quit` or end of input.
pub fn run(args: &ReplArgs) -> Result<()> {
    let db = open_db(&args.db, args.threads, args.memory_limit, &args.cache)?;
    let config = Config::builder()
        .auto_add_history(false)
        .max_history_size(10_000)?
        .build();
    let mut rl: Editor<StrataHelper, FileHistory> = Editor::with_config(config)?;
    rl.set_helper(Some(StrataHelper { db: db.clone() }));
    let history = std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".strata_history"));
    if let Some(h) = &history {
        // A missing history file is normal on first use.
        let _ = rl.load_history(h);
    }
    let mut shell = Shell {
        db,
        mode: Format::Table,
        timer: false,
    };
    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        println!(
            "strata {}: enter \".help\" for usage hints.",
            env!("CARGO_PKG_VERSION")
        );
    }
    let mut buffer = String::new();
    loop {
        let prompt = if buffer.is_empty() {
            PROMPT
        } else {
            CONTINUATION
        };
        match rl.readline(prompt) {
            Ok(line) => {
                if buffer.is_empty() && line.trim_start().starts_with('.') {
                    let _ = rl.add_history_entry(line.trim());
                    match shell.dot_command(line.trim()) {
                        Next::Continue => continue,
                        Next::Quit => break,
                    }
                }
                if buffer.is_empty() && line.trim().is_empty() {
                    continue;
                }
                if !buffer.is_empty() {
                    buffer.push('\n');
                }
                buffer.push_str(&line);
                if statement_complete(&buffer) {
                    let text = std::mem::take(&mut buffer);
                    let _ =
                        rl.add_history_entry(text.split_whitespace().collect::<Vec<_>>().join(" "));
                    for stmt in split_statements(&text) {
                        shell.execute(&stmt);
                    }
                }
            }
            Err(ReadlineError::Interrupted) => {
                // Ctrl-C: drop the statement being typed.
                buffer.clear();
            }
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                save_history(&mut rl, history.as_ref());
                return Err(e.into());
            }
        }
    }
    if !buffer.trim().is_empty() {
        for stmt in split_statements(&buffer) {
            shell.execute(&stmt);
        }
    }
    save_history(&mut rl, history.as_ref());
    Ok(())
}

fn save_history(rl: &mut Editor<StrataHelper, FileHistory>, path: Option<&PathBuf>) {
    if let Some(p) = path {
        if rl.history().is_empty() {
            return;
        }
        if let Err(e) = rl.save_history(p) {
            eprintln!("warning: could not save history to {}: {e}", p.display());
        }
    }
}

/// Whether `text` ends with a `;` outside quotes and comments.
fn statement_complete(text: &str) -> bool {
    let mut quote: Option<char> = None;
    let mut last = ' ';
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match quote {
            Some(q) => {
                if c == q {
                    quote = None;
                }
                last = c;
            }
            None => match c {
                '\'' | '"' => {
                    quote = Some(c);
                    last = c;
                }
                '-' if chars.peek() == Some(&'-') => {
                    for c in chars.by_ref() {
                        if c == '\n' {
                            break;
                        }
                    }
                }
                c if c.is_whitespace() => {}
                c => last = c,
            },
        }
    }
    quote.is_none() && last == ';'
}

impl Shell {
    fn execute(&self, sql: &str) {
        let catalog = Recording::new(self.db.catalog());
        let start = Instant::now();
        let running = crate::sigint::Running::start(self.db.interrupter());
        let outcome = self.db.query_in(&catalog, sql);
        drop(running);
        match outcome {
            Ok(result) => {
                let elapsed = start.elapsed();
                let mut out = std::io::stdout().lock();
                if let Err(e) = result.write(self.mode, &mut out).and_then(|()| out.flush()) {
                    eprintln!("error: writing the result: {e}");
                }
                if self.timer {
                    eprintln!("{}", catalog.timing(elapsed, result.num_rows()));
                }
            }
            Err(e) => eprintln!("error: {}", e.render(sql)),
        }
    }

    fn dot_command(&mut self, line: &str) -> Next {
        let (cmd, arg) = match line.split_once(char::is_whitespace) {
            Some((c, a)) => (c, a.trim()),
            None => (line, ""),
        };
        let arg = arg.trim_end_matches(';').trim();
        match cmd {
            ".quit" | ".exit" | ".q" => return Next::Quit,
            ".help" => println!("{HELP}"),
            ".tables" => match self.db.tables() {
                Ok(t) if t.is_empty() => {
                    println!("(no tables in {})", self.db.dir().display())
                }
                Ok(t) => println!("{}", t.join("\n")),
                Err(e) => eprintln!("error: {e}"),
            },
            ".schema" => self.schema(arg),
            ".mode" => match arg {
                "" => println!("{}", mode_name(self.mode)),
                m => match <Format as clap::ValueEnum>::from_str(m, true) {
                    Ok(f) => self.mode = f,
                    Err(_) => {
                        eprintln!("error: unknown mode {m:?}: use table, csv, tsv, json or jsonl")
                    }
                },
            },
            ".timer" => match arg {
                "on" => self.timer = true,
                "off" => self.timer = false,
                _ => eprintln!("error: usage: .timer on|off"),
            },
            ".explain" if arg.is_empty() => eprintln!("error: usage: .explain SQL"),
            ".explain" => {
                let sql = arg.strip_prefix("EXPLAIN ").unwrap_or(arg);
                match self.db.explain(sql) {
                    Ok(text) => println!("{}", text.trim_end_matches('\n')),
                    Err(e) => eprintln!("error: {}", e.render(sql)),
                }
            }
            other => eprintln!("error: unknown command {other:?}; enter \".help\" for the list"),
        }
        Next::Continue
    }

    fn schema(&self, arg: &str) {
        let names = if arg.is_empty() {
            match self.db.tables() {
                Ok(t) => t,
                Err(e) => return eprintln!("error: {e}"),
            }
        } else {
            vec![arg.to_string()]
        };
        for name in names {
            match self.db.table(&name) {
                Ok(t) => {
                    let fields = &t.storage().schema().fields;
                    let cols: Vec<String> = fields
                        .iter()
                        .map(|f| {
                            format!(
                                "  {} {}{}",
                                f.name,
                                strata::DataType::from_storage(f.data_type),
                                if f.nullable { "" } else { " NOT NULL" }
                            )
                        })
                        .collect();
                    println!("CREATE TABLE {name} (\n{}\n);", cols.join(",\n"));
                }
                Err(e) => eprintln!("error: {e}"),
            }
        }
    }
}

fn mode_name(f: Format) -> &'static str {
    match f {
        Format::Table => "table",
        Format::Csv => "csv",
        Format::Tsv => "tsv",
        Format::Json => "json",
        Format::Jsonl => "jsonl",
    }
}

#[cfg(test)]
mod tests {
    use super::statement_complete;

    #[test]
    fn statements_end_with_semicolon() {
        assert!(statement_complete("SELECT 1;"));
        assert!(statement_complete("SELECT 1\nFROM t; -- done"));
        assert!(!statement_complete("SELECT ';'"));
        assert!(!statement_complete("SELECT 'a;"));
        assert!(!statement_complete("SELECT 1 -- ;"));
    }
}

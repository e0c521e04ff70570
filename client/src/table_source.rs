//! What the relation in a FROM clause means to the library: a strata table,
//! or input files to read in place (`FROM 'x.parquet'`, `read_csv(...)`,
//! `read_parquet(...)`) with the read options DuckDB's arguments ask for.
//!
//! Reading follows DuckDB's argument names and meanings where strata
//! supports them; anything else is an error naming the argument.

use std::path::Path;

use strata_engine::{ArgValue, EngineError, TableArg, TableRef};
use strata_ingest::{IngestOptions, InputFormat};

type Result<T> = std::result::Result<T, EngineError>;

/// The table functions that read files.
const FUNCTIONS: [&str; 4] = ["read_csv", "read_csv_auto", "read_parquet", "parquet_scan"];

/// The named arguments `read_csv` accepts.
const CSV_ARGS: [&str; 7] = [
    "delim",
    "sep",
    "header",
    "columns",
    "nullstr",
    "auto_detect",
    "allow_quoted_nulls",
];

/// What a FROM relation reads.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A strata table, by name or path (resolved by the table directory).
    Table(String),
    /// Input files read in place.
    Files(FileSpec),
}

/// Input files and how to read them.
#[derive(Debug, Clone, PartialEq)]
pub struct FileSpec {
    /// Paths or globs, as written.
    pub patterns: Vec<String>,
    /// How to read them.
    pub read: ReadOptions,
}

/// How input files are read: the options that change the table they give.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadOptions {
    /// CSV (with any delimiter) or Parquet.
    pub format: InputFormat,
    /// Field delimiter (CSV).
    pub delimiter: u8,
    /// Whether the first line is a header (CSV); `None` to decide by
    /// DuckDB's rule (see `strata_ingest::infer::sniff_header`).
    pub header: Option<bool>,
    /// A quoted field equal to the NULL string is NULL too (CSV; DuckDB's
    /// `allow_quoted_nulls`, on by default: `""` is NULL).
    pub allow_quoted_nulls: bool,
    /// The text that means NULL; `None` for an empty unquoted field (CSV).
    pub null_string: Option<String>,
    /// Column names and SQL types, replacing inference.
    pub columns: Option<Vec<(String, String)>>,
}

impl ReadOptions {
    fn csv(delimiter: u8) -> ReadOptions {
        ReadOptions {
            format: InputFormat::Csv,
            delimiter,
            header: None,
            allow_quoted_nulls: true,
            null_string: None,
            columns: None,
        }
    }

    fn parquet() -> ReadOptions {
        ReadOptions {
            format: InputFormat::Parquet,
            delimiter: b',',
            header: Some(false),
            allow_quoted_nulls: true,
            null_string: None,
            columns: None,
        }
    }

    /// A canonical one-line description (part of the cache key, and shown
    /// by `strata cache list`).
    pub fn describe(&self) -> String {
        match self.format {
            InputFormat::Parquet => "parquet".into(),
            _ => {
                let mut s = format!(
                    "csv delim={} header={}",
                    ArgValue::Str(char::from(self.delimiter).to_string()),
                    self.header.map_or("auto".to_string(), |h| h.to_string())
                );
                if !self.allow_quoted_nulls {
                    s.push_str(" allow_quoted_nulls=false");
                }
                if let Some(n) = &self.null_string {
                    s.push_str(&format!(" nullstr={}", ArgValue::Str(n.clone())));
                }
                if let Some(cols) = &self.columns {
                    let fields = cols
                        .iter()
                        .map(|(n, t)| (n.clone(), ArgValue::Str(t.clone())))
                        .collect();
                    s.push_str(&format!(" columns={}", ArgValue::Struct(fields)));
                }
                s
            }
        }
    }

    /// The ingest options that read files this way.
    pub fn ingest_options(&self, threads: usize) -> Result<IngestOptions> {
        let schema = match &self.columns {
            Some(cols) => Some(columns_schema(cols)?),
            None => None,
        };
        Ok(IngestOptions {
            format: Some(self.format),
            delimiter: Some(self.delimiter),
            header: self.header,
            sniff_header: true,
            quoted_nulls: self.allow_quoted_nulls,
            null_string: self.null_string.clone(),
            threads,
            schema,
            // A cache entry can be rebuilt; a damaged one fails its checksums.
            sync: false,
            // The first query waits for the entry: raw string blocks build
            // faster, for more bytes in the cache.
            compression: strata_format::Compression::Raw,
            ..IngestOptions::default()
        })
    }
}

/// `columns={'a': 'INTEGER', ...}` as a schema, through ingest's
/// `CREATE TABLE` type parsing (SQL rules: every column nullable).
fn columns_schema(cols: &[(String, String)]) -> Result<strata_format::Schema> {
    let defs: Vec<String> = cols
        .iter()
        .map(|(n, t)| format!("\"{}\" {t}", n.replace('"', "\"\"")))
        .collect();
    let sql = format!("CREATE TABLE t ({})", defs.join(", "));
    strata_ingest::parse_create_table(&sql)
        .map(|def| def.schema)
        .map_err(|e| EngineError::Invalid(format!("read_csv: columns: {e}")))
}

/// Whether a name written in FROM is a file (or glob) to read rather than a
/// table: it has a CSV, TSV or Parquet extension or glob characters.
pub fn looks_like_file(name: &str) -> bool {
    name.contains(['*', '?', '['])
        || strata_ingest::input::format_from_path(Path::new(name)).is_some()
}

/// What `table` reads; `is_table(name)` says whether a name is a strata
/// table (which wins over a file-like name).
pub fn resolve(table: &TableRef, is_table: impl Fn(&str) -> bool) -> Result<Source> {
    match table {
        TableRef::Named(name) if looks_like_file(name) && !is_table(name) => {
            let read = match strata_ingest::input::format_from_path(Path::new(name)) {
                Some(InputFormat::Parquet) => ReadOptions::parquet(),
                Some(InputFormat::Tsv) => ReadOptions::csv(b'\t'),
                _ => ReadOptions::csv(b','),
            };
            Ok(Source::Files(FileSpec {
                patterns: vec![name.clone()],
                read,
            }))
        }
        // Any other existing file: its format sniffed from its bytes.
        TableRef::Named(name) if !is_table(name) && Path::new(name).is_file() => {
            Ok(Source::Files(FileSpec {
                patterns: vec![name.clone()],
                read: sniff_format(Path::new(name)),
            }))
        }
        TableRef::Named(name) => Ok(Source::Table(name.clone())),
        TableRef::Function { name, args } => match name.as_str() {
            "read_csv" | "read_csv_auto" => read_csv(name, args).map(Source::Files),
            "read_parquet" | "parquet_scan" => read_parquet(name, args).map(Source::Files),
            _ => Err(EngineError::NotFound {
                kind: "table function",
                name: name.clone(),
                suggestion: strata_engine::error::closest(name, FUNCTIONS),
            }),
        },
    }
}

/// How to read a file whose name does not say: Parquet by its magic
/// number, else CSV with the delimiter (comma, tab, pipe or semicolon)
/// that occurs most often in its first line, as DuckDB's sniffer would
/// pick for a regular file.
fn sniff_format(path: &Path) -> ReadOptions {
    use std::io::Read;
    let mut head = vec![0u8; 64 << 10];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    head.truncate(n);
    if head.starts_with(b"PAR1") {
        return ReadOptions::parquet();
    }
    let line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let delim = [b',', b'\t', b'|', b';']
        .into_iter()
        .max_by_key(|d| (line.iter().filter(|b| *b == d).count(), *d == b','))
        .unwrap_or(b',');
    ReadOptions::csv(delim)
}

fn invalid<T>(function: &str, msg: impl std::fmt::Display) -> Result<T> {
    Err(EngineError::Invalid(format!("{function}: {msg}")))
}

/// The positional path argument (a string or a list of strings) and the
/// named ones.
fn split_args<'a>(
    function: &str,
    args: &'a [TableArg],
) -> Result<(Vec<String>, Vec<&'a TableArg>)> {
    let mut positional = args.iter().filter(|a| a.name.is_none());
    let patterns = match positional.next().map(|a| &a.value) {
        None => return invalid(function, "expected a file path as the first argument"),
        Some(ArgValue::Str(s)) => vec![s.clone()],
        Some(ArgValue::List(items)) if !items.is_empty() => items
            .iter()
            .map(|v| match v {
                ArgValue::Str(s) => Ok(s.clone()),
                other => invalid(
                    function,
                    format!("expected file paths, found {}", other.kind()),
                ),
            })
            .collect::<Result<_>>()?,
        Some(other) => {
            return invalid(
                function,
                format!(
                    "expected a file path or a list of them, found {}",
                    other.kind()
                ),
            )
        }
    };
    if positional.next().is_some() {
        return invalid(function, "expected one positional argument (the path)");
    }
    Ok((patterns, args.iter().filter(|a| a.name.is_some()).collect()))
}

fn read_parquet(function: &str, args: &[TableArg]) -> Result<FileSpec> {
    let (patterns, named) = split_args(function, args)?;
    if let Some(a) = named.first() {
        return invalid(
            function,
            format!(
                "unknown or unsupported argument {:?} (read_parquet takes only the path)",
                a.name.as_deref().unwrap_or_default()
            ),
        );
    }
    Ok(FileSpec {
        patterns,
        read: ReadOptions::parquet(),
    })
}

fn read_csv(function: &str, args: &[TableArg]) -> Result<FileSpec> {
    let (patterns, named) = split_args(function, args)?;
    let mut read = ReadOptions::csv(b',');
    let mut auto_detect = true;
    for a in named {
        let name = a.name.as_deref().unwrap_or_default();
        let bad = |what: &str| {
            EngineError::Invalid(format!(
                "{function}: {name} must be {what}, not {}",
                a.value
            ))
        };
        match (name, &a.value) {
            ("delim" | "sep", ArgValue::Str(s)) => {
                read.delimiter = match s.as_str() {
                    "\\t" | "\t" => b'\t',
                    _ if s.len() == 1
                        && s.is_ascii()
                        && !matches!(s.as_str(), "\"" | "\n" | "\r") =>
                    {
                        s.as_bytes()[0]
                    }
                    _ => return Err(bad("one ASCII character or '\\t'")),
                }
            }
            ("header", ArgValue::Bool(b)) => read.header = Some(*b),
            ("header", ArgValue::Int(i @ (0 | 1))) => read.header = Some(*i == 1),
            ("allow_quoted_nulls", ArgValue::Bool(b)) => read.allow_quoted_nulls = *b,
            ("auto_detect", ArgValue::Bool(b)) => auto_detect = *b,
            ("nullstr", ArgValue::Str(s)) => read.null_string = Some(s.clone()),
            ("nullstr", ArgValue::List(items)) => match items.as_slice() {
                [ArgValue::Str(s)] => read.null_string = Some(s.clone()),
                _ => return Err(bad("a string (or a list of one)")),
            },
            ("columns", ArgValue::Struct(fields)) if !fields.is_empty() => {
                let cols = fields
                    .iter()
                    .map(|(n, t)| match t {
                        ArgValue::Str(t) => Ok((n.clone(), t.clone())),
                        _ => Err(bad("a struct of column names to type names")),
                    })
                    .collect::<Result<Vec<_>>>()?;
                columns_schema(&cols)?;
                read.columns = Some(cols);
            }
            ("delim" | "sep" | "nullstr", _) => return Err(bad("a string")),
            ("header" | "auto_detect" | "allow_quoted_nulls", _) => {
                return Err(bad("true or false"))
            }
            ("columns", _) => return Err(bad("a struct such as {'a': 'INTEGER'}")),
            _ => {
                return invalid(
                    function,
                    format!(
                        "unknown or unsupported argument {name:?} (supported: {})",
                        CSV_ARGS.join(", ")
                    ),
                )
            }
        }
    }
    if !auto_detect && read.columns.is_none() {
        return invalid(function, "auto_detect=false needs columns={...}");
    }
    Ok(FileSpec { patterns, read })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(sql: &str) -> Result<Source> {
        let q = strata_engine::sql::parse::parse_query(sql)?;
        resolve(&strata_engine::sql::table_ref::table_of(&q)?, |n| {
            n == "t.csv"
        })
    }

    fn files(sql: &str) -> FileSpec {
        match source(sql) {
            Ok(Source::Files(f)) => f,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn names() {
        assert_eq!(
            source("SELECT 1 FROM hits").unwrap(),
            Source::Table("hits".into())
        );
        assert_eq!(
            source("SELECT 1 FROM 't.csv'").unwrap(),
            Source::Table("t.csv".into())
        );
        let f = files("SELECT 1 FROM 'data/*.parquet'");
        assert_eq!(f.patterns, vec!["data/*.parquet"]);
        assert_eq!(f.read, ReadOptions::parquet());
        assert_eq!(files("SELECT 1 FROM 'x.tsv'").read.delimiter, b'\t');
        assert_eq!(
            files("SELECT 1 FROM 'x.csv.gz'").read.describe(),
            "csv delim=',' header=auto"
        );
    }

    #[test]
    fn read_csv_arguments() {
        let f = files(
            "SELECT 1 FROM read_csv(['a.csv', 'b.csv'], sep='\\t', header=false, nullstr='NA', \
             columns={'a': 'INTEGER', 'b': 'DECIMAL(3,1)'})",
        );
        assert_eq!(f.patterns, vec!["a.csv", "b.csv"]);
        assert_eq!(f.read.delimiter, b'\t');
        assert_eq!(f.read.header, Some(false));
        assert_eq!(
            f.read.describe(),
            "csv delim='\t' header=false nullstr='NA' columns={'a': 'INTEGER', 'b': 'DECIMAL(3,1)'}"
        );
        let schema = f.read.ingest_options(0).unwrap().schema.unwrap();
        assert_eq!(schema.fields.len(), 2);
        assert_eq!(
            files("SELECT 1 FROM read_csv_auto('x', delim=';')")
                .read
                .delimiter,
            b';'
        );
        let err = |sql: &str| source(sql).unwrap_err().to_string();
        assert!(err("SELECT 1 FROM read_csv('x', quote='\"')").contains("\"quote\""));
        assert!(err("SELECT 1 FROM read_csv('x', delim=';;')").contains("delim"));
        assert!(err("SELECT 1 FROM read_csv('x', auto_detect=false)").contains("columns"));
        assert!(err("SELECT 1 FROM read_csv('x', columns={'a': 'NOPE'})").contains("columns"));
        assert!(
            err("SELECT 1 FROM read_parquet('x', binary_as_string=true)")
                .contains("binary_as_string")
        );
        assert!(err("SELECT 1 FROM read_cvs('x')").contains("read_csv"));
        assert!(err("SELECT 1 FROM read_csv(delim=';')").contains("path"));
    }
}

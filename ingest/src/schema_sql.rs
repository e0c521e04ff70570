//! `CREATE TABLE` statements to strata schemas, and back.
//!
//! The statement is parsed with sqlparser, trying the ClickHouse, generic,
//! DuckDB and PostgreSQL dialects in turn. Column types may be written the
//! ClickHouse way (`UInt64`, `String`, `DateTime`, `Nullable(T)`,
//! `LowCardinality(T)`, ...) or the SQL/DuckDB way (`BIGINT`, `TEXT`,
//! `VARCHAR(n)`, `TIMESTAMP`, `DECIMAL(p,s)`, ...). Engine clauses,
//! settings, defaults and comments are ignored.
//!
//! Sort key: ClickHouse's `ORDER BY` clause, else its `PRIMARY KEY` clause,
//! else the SQL primary key (a table constraint or a column's `PRIMARY KEY`)
//! is the order [`TableDef::sort_key`] gives: the columns it names, up to
//! the first expression that is not a plain column (`intHash32(UserID)`),
//! since strata sorts by columns only.
//!
//! Nullability: a statement is read with ClickHouse rules when it has an
//! `ENGINE` clause or uses a ClickHouse-only type name; then a column is
//! nullable only if its type is `Nullable(T)` or it says `NULL`. Otherwise SQL
//! rules apply: nullable unless `NOT NULL` or part of the primary key.
//! `Int8` follows the same switch: one byte in ClickHouse, eight bytes
//! (PostgreSQL's `INT8`) elsewhere.
//!
//! Lengths (`VARCHAR(255)`, `FixedString(16)`) are not enforced: strings are
//! stored as they come.

use sqlparser::ast::{
    ColumnDef, ColumnOption, CreateTable, DataType as SqlType, ExactNumberInfo, Statement,
    TableConstraint,
};
use sqlparser::dialect::{
    ClickHouseDialect, Dialect, DuckDbDialect, GenericDialect, PostgreSqlDialect,
};
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, Tokenizer};
use strata_format::{DataType, Field, Schema};

use crate::error::{IngestError, Result};

/// A parsed `CREATE TABLE`: the table's name and its schema.
#[derive(Debug, Clone, PartialEq)]
pub struct TableDef {
    /// The table name as written (unquoted).
    pub name: String,
    /// The columns.
    pub schema: Schema,
    /// The columns the table is declared sorted by (see the module docs);
    /// empty when it declares no order.
    pub sort_key: Vec<String>,
}

/// Parses one `CREATE TABLE` statement (other statements around it, such as
/// `DROP TABLE`, are ignored) into a schema.
pub fn parse_create_table(sql: &str) -> Result<TableDef> {
    let isolated = isolate_create_table(sql)?;
    let dialects: [&dyn Dialect; 4] = [
        &ClickHouseDialect {},
        &GenericDialect {},
        &DuckDbDialect {},
        &PostgreSqlDialect {},
    ];
    let mut first_error = None;
    for dialect in dialects {
        match Parser::parse_sql(dialect, &isolated.text) {
            Ok(statements) => {
                let mut def = table_from_statements(statements, isolated.has_engine)?;
                if let Some(key) = &isolated.key {
                    def.sort_key = key.clone();
                }
                return Ok(def);
            }
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    Err(IngestError::Schema(format!(
        "cannot parse the CREATE TABLE statement: {}",
        first_error.map_or_else(|| "no dialect accepted it".to_string(), |e| e.to_string())
    )))
}

fn is_word(t: &Token, word: &str) -> bool {
    matches!(t, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
}

/// Cuts the `CREATE TABLE name (...)` part out of `sql`, dropping what
/// follows the column list (`ENGINE`, `ORDER BY`, `SETTINGS`, ...: sqlparser
/// does not know every engine clause, and strata needs none of them), and
/// says whether an `ENGINE` clause was there.
fn isolate_create_table(sql: &str) -> Result<Isolated> {
    let tokens = Tokenizer::new(&ClickHouseDialect {}, sql)
        .tokenize()
        .map_err(|e| IngestError::Schema(format!("cannot read the CREATE TABLE statement: {e}")))?;
    // Statements are separated by top-level semicolons.
    let mut statements: Vec<&[Token]> = Vec::new();
    let mut start = 0;
    for (i, t) in tokens.iter().enumerate() {
        if *t == Token::SemiColon {
            statements.push(&tokens[start..i]);
            start = i + 1;
        }
    }
    statements.push(&tokens[start..]);
    let creates: Vec<&[Token]> = statements
        .into_iter()
        .filter(|st| {
            let mut words = st.iter().filter(|t| matches!(t, Token::Word(_)));
            words.next().is_some_and(|t| is_word(t, "CREATE"))
                && words.take(4).any(|t| is_word(t, "TABLE"))
        })
        .collect();
    let create = match creates.as_slice() {
        [] => {
            return Err(IngestError::Schema(
                "no CREATE TABLE statement found".into(),
            ))
        }
        [one] => *one,
        _ => {
            return Err(IngestError::Schema(
                "more than one CREATE TABLE statement; give one table per schema file".into(),
            ))
        }
    };
    let mut depth = 0usize;
    let mut end = None;
    for (i, t) in create.iter().enumerate() {
        match t {
            Token::LParen => depth += 1,
            Token::RParen => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    end = Some(i + 1);
                    break;
                }
            }
            _ => {}
        }
    }
    let end = end.unwrap_or(create.len());
    let text: String = create[..end].iter().map(|t| t.to_string()).collect();
    let has_engine = create[end..].iter().any(|t| is_word(t, "ENGINE"));
    let tail: Vec<&Token> = create[end..]
        .iter()
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .collect();
    let key = clause_key(&tail, "ORDER", "BY").or_else(|| clause_key(&tail, "PRIMARY", "KEY"));
    Ok(Isolated {
        text,
        has_engine,
        key,
    })
}

/// The `CREATE TABLE name (...)` part of a statement, and what follows it.
struct Isolated {
    text: String,
    has_engine: bool,
    /// The columns of an `ORDER BY` or `PRIMARY KEY` clause after the column list.
    key: Option<Vec<String>>,
}

/// Words that start a clause after a ClickHouse column list.
const CLAUSES: [&str; 8] = [
    "ENGINE",
    "ORDER",
    "PRIMARY",
    "PARTITION",
    "SAMPLE",
    "SETTINGS",
    "TTL",
    "COMMENT",
];

/// The leading plain columns of the key after `first second` (`ORDER BY`,
/// `PRIMARY KEY`) in `tail`: `(a, b, f(c))` or a single `a`.
fn clause_key(tail: &[&Token], first: &str, second: &str) -> Option<Vec<String>> {
    let at = tail
        .windows(2)
        .position(|w| is_word(w[0], first) && is_word(w[1], second))?;
    let rest = &tail[at + 2..];
    // The items, each as its tokens.
    let mut items: Vec<Vec<&Token>> = vec![Vec::new()];
    match rest.first() {
        Some(Token::LParen) => {
            let mut depth = 0usize;
            for t in &rest[1..] {
                match t {
                    Token::LParen => depth += 1,
                    Token::RParen if depth == 0 => break,
                    Token::RParen => depth -= 1,
                    Token::Comma if depth == 0 => {
                        items.push(Vec::new());
                        continue;
                    }
                    _ => {}
                }
                if let Some(item) = items.last_mut() {
                    item.push(t);
                }
            }
        }
        _ => {
            for t in rest {
                if *t == &Token::SemiColon || CLAUSES.iter().any(|c| is_word(t, c)) {
                    break;
                }
                if let Some(item) = items.last_mut() {
                    item.push(t);
                }
            }
        }
    }
    Some(
        items
            .iter()
            .map_while(|item| match item.as_slice() {
                [Token::Word(w)] => Some(w.value.clone()),
                _ => None,
            })
            .collect(),
    )
}

fn table_from_statements(statements: Vec<Statement>, has_engine: bool) -> Result<TableDef> {
    let create = statements
        .into_iter()
        .find_map(|s| match s {
            Statement::CreateTable(c) => Some(c),
            _ => None,
        })
        .ok_or_else(|| IngestError::Schema("no CREATE TABLE statement found".into()))?;
    table_from_create(&create, has_engine)
}

fn table_from_create(create: &CreateTable, has_engine: bool) -> Result<TableDef> {
    if create.columns.is_empty() {
        return Err(IngestError::Schema(
            "CREATE TABLE has no column list (CREATE TABLE ... AS is not supported)".into(),
        ));
    }
    let clickhouse = has_engine
        || create
            .columns
            .iter()
            .any(|c| is_clickhouse_type(&c.data_type));
    let mut primary_key: Vec<String> = create
        .constraints
        .iter()
        .filter_map(|c| match c {
            TableConstraint::PrimaryKey(pk) => Some(
                pk.columns
                    .iter()
                    .map(|col| col.column.expr.to_string())
                    .collect::<Vec<_>>(),
            ),
            _ => None,
        })
        .flatten()
        .collect();
    if primary_key.is_empty() {
        primary_key = create
            .columns
            .iter()
            .filter(|c| {
                c.options
                    .iter()
                    .any(|o| matches!(o.option, ColumnOption::PrimaryKey(_)))
            })
            .map(|c| c.name.value.clone())
            .collect();
    }
    let mut fields = Vec::with_capacity(create.columns.len());
    for col in &create.columns {
        fields.push(field_from_column(col, clickhouse, &primary_key)?);
    }
    let schema = Schema::new(fields).map_err(|e| IngestError::Schema(e.to_string()))?;
    let name = create
        .name
        .0
        .last()
        .map_or_else(String::new, |p| match p.as_ident() {
            Some(ident) => ident.value.clone(),
            None => p.to_string(),
        });
    let sort_key = primary_key
        .iter()
        .map(|k| k.trim_matches(['"', '`']).to_string())
        .take_while(|k| schema.fields.iter().any(|f| &f.name == k))
        .collect();
    Ok(TableDef {
        name,
        schema,
        sort_key,
    })
}

fn field_from_column(col: &ColumnDef, clickhouse: bool, primary_key: &[String]) -> Result<Field> {
    let name = col.name.value.clone();
    let (data_type, wrapped_nullable) =
        convert_type(&col.data_type, clickhouse).map_err(|msg| {
            IngestError::Schema(format!("column {name}: type {}: {msg}", col.data_type))
        })?;
    let mut said_null = false;
    let mut said_not_null = false;
    for opt in &col.options {
        match opt.option {
            ColumnOption::Null => said_null = true,
            ColumnOption::NotNull | ColumnOption::PrimaryKey(_) => said_not_null = true,
            _ => {}
        }
    }
    let in_key = primary_key
        .iter()
        .any(|k| k == &name || k.trim_matches(['"', '`']) == name);
    if said_null && said_not_null {
        return Err(IngestError::Schema(format!(
            "column {name} says both NULL and NOT NULL"
        )));
    }
    if wrapped_nullable && (said_not_null || in_key) {
        return Err(IngestError::Schema(format!(
            "column {name} is Nullable but declared NOT NULL or part of the primary key"
        )));
    }
    let nullable = if said_not_null || in_key {
        false
    } else if clickhouse {
        wrapped_nullable || said_null
    } else {
        true
    };
    Ok(Field::new(name, data_type, nullable))
}

fn is_clickhouse_type(t: &SqlType) -> bool {
    matches!(
        t,
        SqlType::Nullable(_)
            | SqlType::LowCardinality(_)
            | SqlType::UInt8
            | SqlType::UInt16
            | SqlType::UInt32
            | SqlType::UInt64
            | SqlType::Int16
            | SqlType::Int32
            | SqlType::Int64
            | SqlType::Float32
            | SqlType::Float64
            | SqlType::String(_)
            | SqlType::FixedString(_)
            | SqlType::Date32
            | SqlType::Datetime64(..)
    )
}

const MAX_DECIMAL_PRECISION: u64 = 18;

fn decimal(info: &ExactNumberInfo, default: (u64, u64)) -> Result<DataType, String> {
    let (p, s) = match *info {
        ExactNumberInfo::None => default,
        ExactNumberInfo::Precision(p) => (p, 0),
        ExactNumberInfo::PrecisionAndScale(p, s) => (
            p,
            u64::try_from(s).map_err(|_| "negative scale".to_string())?,
        ),
    };
    decimal_ps(p, s)
}

fn decimal_ps(p: u64, s: u64) -> Result<DataType, String> {
    if p == 0 || s > p {
        return Err(format!("DECIMAL({p},{s}) is invalid"));
    }
    if p > MAX_DECIMAL_PRECISION {
        return Err(format!(
            "DECIMAL({p},{s}) has more than the {MAX_DECIMAL_PRECISION} digits strata stores"
        ));
    }
    Ok(DataType::Decimal {
        precision: p as u8,
        scale: s as u8,
    })
}

/// Converts a SQL type; returns the strata type and whether it was wrapped
/// in `Nullable(...)`.
fn convert_type(t: &SqlType, clickhouse: bool) -> Result<(DataType, bool), String> {
    use DataType as D;
    let d = match t {
        SqlType::Nullable(inner) => return Ok((convert_type(inner, clickhouse)?.0, true)),
        SqlType::LowCardinality(inner) => return convert_type(inner, clickhouse),
        SqlType::Bool | SqlType::Boolean => D::Bool,
        SqlType::TinyInt(_) => D::Int8,
        SqlType::Int2(_) | SqlType::SmallInt(_) | SqlType::Int16 => D::Int16,
        SqlType::Int(_) | SqlType::Int4(_) | SqlType::Integer(_) | SqlType::Int32 => D::Int32,
        SqlType::MediumInt(_) => D::Int32,
        SqlType::Int8(_) if clickhouse => D::Int8,
        SqlType::Int8(_) | SqlType::BigInt(_) | SqlType::Int64 => D::Int64,
        SqlType::UTinyInt | SqlType::TinyIntUnsigned(_) | SqlType::UInt8 => D::UInt8,
        SqlType::USmallInt
        | SqlType::SmallIntUnsigned(_)
        | SqlType::Int2Unsigned(_)
        | SqlType::UInt16 => D::UInt16,
        SqlType::IntUnsigned(_)
        | SqlType::Int4Unsigned(_)
        | SqlType::IntegerUnsigned(_)
        | SqlType::MediumIntUnsigned(_)
        | SqlType::UInt32 => D::UInt32,
        SqlType::UBigInt
        | SqlType::BigIntUnsigned(_)
        | SqlType::Int8Unsigned(_)
        | SqlType::UInt64 => D::UInt64,
        SqlType::Float4 | SqlType::Real | SqlType::Float32 => D::Float32,
        SqlType::Float(info) => match info {
            ExactNumberInfo::Precision(p) if *p > 24 => D::Float64,
            _ => D::Float32,
        },
        SqlType::Float8 | SqlType::Float64 | SqlType::Double(_) | SqlType::DoublePrecision => {
            D::Float64
        }
        SqlType::Decimal(info) | SqlType::Numeric(info) | SqlType::Dec(info) => {
            decimal(info, (18, 3))?
        }
        SqlType::Date | SqlType::Date32 => D::Date,
        SqlType::Datetime(_)
        | SqlType::Datetime64(..)
        | SqlType::Timestamp(..)
        | SqlType::TimestampNtz(_) => D::Timestamp,
        SqlType::Char(_)
        | SqlType::Character(_)
        | SqlType::CharVarying(_)
        | SqlType::CharacterVarying(_)
        | SqlType::Varchar(_)
        | SqlType::Nvarchar(_)
        | SqlType::Text
        | SqlType::TinyText
        | SqlType::MediumText
        | SqlType::LongText
        | SqlType::String(_)
        | SqlType::FixedString(_)
        | SqlType::Uuid
        | SqlType::JSON
        | SqlType::JSONB
        | SqlType::Clob(_)
        | SqlType::Blob(_)
        | SqlType::TinyBlob
        | SqlType::MediumBlob
        | SqlType::LongBlob
        | SqlType::Binary(_)
        | SqlType::Varbinary(_)
        | SqlType::Bytea
        | SqlType::Bytes(_)
        | SqlType::Enum(..) => D::String,
        SqlType::HugeInt
        | SqlType::UHugeInt
        | SqlType::Int128
        | SqlType::Int256
        | SqlType::UInt128
        | SqlType::UInt256 => {
            return Err(
                "128- and 256-bit integers are not supported (largest: BIGINT, UBIGINT)".into(),
            )
        }
        SqlType::Custom(name, args) => custom_type(&name.to_string(), args)?,
        _ => return Err("not supported by strata".into()),
    };
    Ok((d, false))
}

/// Type names sqlparser does not know itself.
fn custom_type(name: &str, args: &[String]) -> Result<DataType, String> {
    use DataType as D;
    let arg = |i: usize| -> Result<u64, String> {
        args.get(i)
            .and_then(|a| a.trim().parse().ok())
            .ok_or_else(|| format!("{name} needs a numeric argument"))
    };
    Ok(match name.to_ascii_uppercase().as_str() {
        "UTINYINT" | "UINT1" => D::UInt8,
        "USMALLINT" | "UINT2" => D::UInt16,
        "UINTEGER" | "UINT4" | "UINT" => D::UInt32,
        "UBIGINT" | "UINT8" => D::UInt64,
        "INT1" | "BYTE" => D::Int8,
        "TIMESTAMPTZ" | "DATETIME" | "TIMESTAMP_S" | "TIMESTAMP_MS" | "TIMESTAMP_US"
        | "TIMESTAMP_NS" => D::Timestamp,
        "DECIMAL32" => decimal_ps(9, arg(0)?)?,
        "DECIMAL64" => decimal_ps(18, arg(0)?)?,
        "DECIMAL128" | "DECIMAL256" => {
            return Err("decimals of more than 18 digits are not supported".into())
        }
        "VARBINARY" | "BLOB" | "BPCHAR" | "IPV4" | "IPV6" | "ENUM8" | "ENUM16" => D::String,
        "BOOL" => D::Bool,
        _ => return Err("not supported by strata".into()),
    })
}

/// Quotes an identifier for SQL output when it is not a plain lowercase/uppercase
/// word.
fn quote_ident(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

/// Renders a schema as a `CREATE TABLE` statement that
/// [`parse_create_table`] reads back to the same schema.
pub fn create_table_sql(table: &str, schema: &Schema) -> String {
    let mut out = format!("CREATE TABLE {}\n(\n", quote_ident(table));
    for (i, f) in schema.fields.iter().enumerate() {
        out.push_str("    ");
        out.push_str(&quote_ident(&f.name));
        out.push(' ');
        out.push_str(&f.data_type.sql_name());
        if !f.nullable {
            out.push_str(" NOT NULL");
        }
        if i + 1 < schema.fields.len() {
            out.push(',');
        }
        out.push('\n');
    }
    out.push_str(");\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ClickBench's DDL, read from `shared/` beside the repository (not copied
    /// in: it is under a non-commercial licence).
    fn clickbench(file: &str) -> String {
        let path = format!(
            "{}/../../shared/clickbench/{file}",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    fn field<'a>(s: &'a Schema, name: &str) -> &'a Field {
        &s.fields[s.index_of(name).unwrap()]
    }

    #[test]
    fn sort_keys_come_from_order_by_then_primary_key() {
        let key = |sql: &str| parse_create_table(sql).unwrap().sort_key;
        assert_eq!(
            key(&clickbench("create-clickhouse.sql")),
            ["CounterID", "EventDate", "UserID", "EventTime", "WatchID"]
        );
        assert!(key(&clickbench("create-duckdb.sql")).is_empty());
        let ch = "CREATE TABLE t (a UInt32, b String, c DateTime) ENGINE = MergeTree";
        assert_eq!(key(&format!("{ch} ORDER BY b")), ["b"]);
        assert_eq!(
            key(&format!("{ch} ORDER BY (c, a) PRIMARY KEY c")),
            ["c", "a"]
        );
        assert_eq!(
            key(&format!("{ch} PRIMARY KEY (a) ORDER BY (a, b)")),
            ["a", "b"]
        );
        assert_eq!(key(&format!("{ch} PRIMARY KEY a SETTINGS x = 1")), ["a"]);
        // Up to the first expression.
        assert_eq!(key(&format!("{ch} ORDER BY (a, intHash32(b), c)")), ["a"]);
        assert!(key(&format!("{ch} ORDER BY tuple()")).is_empty());
        assert_eq!(
            key("CREATE TABLE t (a INT, b TEXT, PRIMARY KEY (b, a))"),
            ["b", "a"]
        );
        assert_eq!(key("CREATE TABLE t (a INT PRIMARY KEY, b TEXT)"), ["a"]);
        assert!(key("CREATE TABLE t (a INT, b TEXT)").is_empty());
    }

    #[test]
    fn clickbench_clickhouse_ddl_parses() {
        let t = parse_create_table(&clickbench("create-clickhouse.sql")).unwrap();
        assert_eq!(t.name, "hits");
        let s = &t.schema;
        assert_eq!(s.len(), 105);
        assert!(s.fields.iter().all(|f| !f.nullable));
        assert_eq!(field(s, "WatchID").data_type, DataType::Int64);
        assert_eq!(field(s, "JavaEnable").data_type, DataType::Int16);
        assert_eq!(field(s, "Title").data_type, DataType::String);
        assert_eq!(field(s, "EventTime").data_type, DataType::Timestamp);
        assert_eq!(field(s, "EventDate").data_type, DataType::Date);
        assert_eq!(field(s, "CounterID").data_type, DataType::Int32);
        assert_eq!(field(s, "UserAgentMinor").data_type, DataType::String);
        assert_eq!(field(s, "HitColor").data_type, DataType::String);
        assert_eq!(s.fields[104].name, "CLID");
    }

    #[test]
    fn clickbench_duckdb_ddl_parses() {
        let s = parse_create_table(&clickbench("create-duckdb.sql"))
            .unwrap()
            .schema;
        assert_eq!(s.len(), 105);
        assert!(field(&s, "Title").nullable);
        assert!(field(&s, "URL").nullable);
        assert!(!field(&s, "UserAgentMinor").nullable);
        assert!(!field(&s, "WatchID").nullable);
        assert_eq!(field(&s, "EventTime").data_type, DataType::Timestamp);
        let ch = parse_create_table(&clickbench("create-clickhouse.sql"))
            .unwrap()
            .schema;
        for (a, b) in s.fields.iter().zip(&ch.fields) {
            assert_eq!((&a.name, a.data_type), (&b.name, b.data_type));
        }
    }

    #[test]
    fn clickhouse_types_and_nullability() {
        let sql = "CREATE TABLE t (
            a UInt8, b UInt16, c UInt32, d UInt64, e Int8, f Int16, g Int32, h Int64,
            i Float32, j Float64, k String, l FixedString(16), m Date, n Date32,
            o DateTime, p DateTime64(3), q Nullable(Int32), r LowCardinality(String),
            s LowCardinality(Nullable(String)), t Bool, u Decimal(10, 2), v Int32 NULL
        ) ENGINE = MergeTree ORDER BY (a, b) SETTINGS index_granularity = 8192";
        let s = parse_create_table(sql).unwrap().schema;
        let types: Vec<DataType> = s.fields.iter().map(|f| f.data_type).collect();
        use DataType as D;
        assert_eq!(
            types,
            vec![
                D::UInt8,
                D::UInt16,
                D::UInt32,
                D::UInt64,
                D::Int8,
                D::Int16,
                D::Int32,
                D::Int64,
                D::Float32,
                D::Float64,
                D::String,
                D::String,
                D::Date,
                D::Date,
                D::Timestamp,
                D::Timestamp,
                D::Int32,
                D::String,
                D::String,
                D::Bool,
                D::Decimal {
                    precision: 10,
                    scale: 2
                },
                D::Int32,
            ]
        );
        let nullable: Vec<&str> = s
            .fields
            .iter()
            .filter(|f| f.nullable)
            .map(|f| f.name.as_str())
            .collect();
        assert_eq!(nullable, vec!["q", "s", "v"]);
    }

    #[test]
    fn sql_types_and_nullability() {
        let sql = "CREATE TABLE IF NOT EXISTS main.t (
            a BIGINT PRIMARY KEY, b INTEGER NOT NULL, c SMALLINT, d TINYINT, e TEXT,
            f VARCHAR(10), g CHAR, h DOUBLE, i REAL, j FLOAT, k BOOLEAN, l DATE,
            m TIMESTAMP, n DECIMAL(12,3), o NUMERIC, p INT8, q UBIGINT, r DOUBLE PRECISION
        );";
        let t = parse_create_table(sql).unwrap();
        assert_eq!(t.name, "t");
        use DataType as D;
        let types: Vec<DataType> = t.schema.fields.iter().map(|f| f.data_type).collect();
        assert_eq!(
            types,
            vec![
                D::Int64,
                D::Int32,
                D::Int16,
                D::Int8,
                D::String,
                D::String,
                D::String,
                D::Float64,
                D::Float32,
                D::Float32,
                D::Bool,
                D::Date,
                D::Timestamp,
                D::Decimal {
                    precision: 12,
                    scale: 3
                },
                D::Decimal {
                    precision: 18,
                    scale: 3
                },
                D::Int64,
                D::UInt64,
                D::Float64,
            ]
        );
        let not_null: Vec<&str> = t
            .schema
            .fields
            .iter()
            .filter(|f| !f.nullable)
            .map(|f| f.name.as_str())
            .collect();
        assert_eq!(not_null, vec!["a", "b"]);
    }

    #[test]
    fn table_primary_key_implies_not_null() {
        let s = parse_create_table("CREATE TABLE t (a INT, b INT, PRIMARY KEY (a))")
            .unwrap()
            .schema;
        assert!(!s.fields[0].nullable);
        assert!(s.fields[1].nullable);
    }

    #[test]
    fn unsupported_types_name_the_column() {
        for (sql, col) in [
            ("CREATE TABLE t (a INT, big HUGEINT)", "big"),
            ("CREATE TABLE t (x Int128) ENGINE = Memory", "x"),
            ("CREATE TABLE t (d DECIMAL(38, 2))", "d"),
            ("CREATE TABLE t (arr INT[])", "arr"),
            ("CREATE TABLE t (tm TIME)", "tm"),
        ] {
            let e = parse_create_table(sql).unwrap_err().to_string();
            assert!(e.contains(&format!("column {col}")), "{sql}: {e}");
        }
    }

    #[test]
    fn bad_statements_are_schema_errors() {
        for sql in [
            "SELECT 1",
            "CREATE TABLE t (a INT",
            "CREATE TABLE t (a INT, a TEXT)",
            "CREATE TABLE a (x INT); CREATE TABLE b (y INT);",
            "",
        ] {
            assert!(
                matches!(parse_create_table(sql), Err(IngestError::Schema(_))),
                "{sql}"
            );
        }
    }

    #[test]
    fn printed_schema_reads_back() {
        let ch = parse_create_table(&clickbench("create-clickhouse.sql"))
            .unwrap()
            .schema;
        let mut fields = ch.fields.clone();
        use DataType as D;
        for (i, t) in [
            D::Bool,
            D::UInt8,
            D::UInt16,
            D::UInt32,
            D::UInt64,
            D::Float32,
            D::Float64,
            D::Int8,
            D::Decimal {
                precision: 9,
                scale: 4,
            },
        ]
        .into_iter()
        .enumerate()
        {
            fields.push(Field::new(format!("extra {i}"), t, i % 2 == 0));
        }
        let schema = Schema::new(fields).unwrap();
        let sql = create_table_sql("my table", &schema);
        let back = parse_create_table(&sql).unwrap();
        assert_eq!(back.name, "my table");
        assert_eq!(back.schema, schema);
    }
}

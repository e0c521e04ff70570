#!/usr/bin/env python3
"""Extracts the peer suite's queries from Apache DataFusion's sqllogictest files.

    python3 extract.py --out-dir . [--sources sources.txt] FILE.slt...

Each FILE is a DataFusion `.slt` file; its label in the output is its path from
`datafusion/sqllogictest/test_files/`. For every SELECT (or WITH) record of a file, the
extractor finds the tables it reads (DuckDB's parser, `json_serialize_sql`; a FROM/JOIN scan
when DuckDB cannot parse it) and keeps the query when it reads exactly one table that can be
reproduced:

- `aggregate_test_100`, created by the file with CREATE EXTERNAL TABLE over arrow-testing's
  `aggregate_test_100.csv` (the suite loads the CSV's four partitions, `data/`), or
- a table the file creates inline (CREATE TABLE ... [AS VALUES ...], INSERT INTO ... VALUES,
  or INSERT INTO ... SELECT over aggregate_test_100), translated to DuckDB's dialect and kept
  only when DuckDB runs the statements.

A query reads the table as the file has it at that record (CREATE, the INSERTs before it).
Queries calling functions DuckDB does not have (DataFusion's own, see `DATAFUSION_ONLY`) and
queries over `aggregate_test_100`'s date columns c14/c15 (a later version of the data) are
counted, not extracted. Expected answers are not read: they come from DuckDB at run time.

Writes `queries.sql` (`-- @query` headers) and `tables.sql` (`-- @table` headers), and prints
what was left out, by reason.
"""

import argparse
import collections
import json
import os
import re
import sys

# Functions DataFusion has and DuckDB does not (checked against DuckDB 2.0.1).
DATAFUSION_ONLY = [
    "approx_percentile_cont_with_weight",
    "approx_percentile_cont",
    "approx_distinct",
    "approx_median",
    "arrow_cast",
    "arrow_typeof",
    "covar",
    "var",
]

AGG100 = "aggregate_test_100"


class Record:
    def __init__(self, line, header, sql):
        self.line = line
        self.header = header
        self.sql = sql

    @property
    def kind(self):
        return self.header.split()[0]

    @property
    def expects_error(self):
        parts = self.header.split()
        return len(parts) > 1 and parts[1] == "error"


def records(text):
    """The statement and query records of an .slt file, with 1-based header lines."""
    lines = text.split("\n")
    i = 0
    out = []
    while i < len(lines):
        line = lines[i]
        word = line.split(" ", 1)[0]
        if word not in ("statement", "query"):
            i += 1
            continue
        start = i + 1
        i += 1
        sql = []
        while i < len(lines) and lines[i].strip() != "" and lines[i] != "----":
            sql.append(lines[i])
            i += 1
        if i < len(lines) and lines[i] == "----":
            i += 1
            while i < len(lines) and lines[i].strip() != "":
                i += 1
        out.append(Record(start, line.strip(), "\n".join(sql)))
    return out


def strip_comments(sql):
    return "\n".join(l for l in sql.split("\n") if not l.strip().startswith("--")).strip()


def split_top(s, sep=","):
    """Splits at top-level separators (outside parentheses and quotes)."""
    parts, depth, quote, cur = [], 0, None, []
    for c in s:
        if quote:
            cur.append(c)
            if c == quote:
                quote = None
            continue
        if c in "'\"":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(c)
    parts.append("".join(cur))
    return parts


def matching_paren(s, open_at):
    depth, quote = 0, None
    for j in range(open_at, len(s)):
        c = s[j]
        if quote:
            if c == quote:
                quote = None
            continue
        if c in "'\"":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j
    return -1


def fix_columns(cols):
    """DataFusion column definitions in DuckDB's spelling."""
    cols = re.sub(r",\s*$", "", cols.strip())
    for df, duck in [
        (r"\bTINYINT\s+UNSIGNED\b", "UTINYINT"),
        (r"\bSMALLINT\s+UNSIGNED\b", "USMALLINT"),
        (r"\bINT(EGER)?\s+UNSIGNED\b", "UINTEGER"),
        (r"\bBIGINT\s+UNSIGNED\b", "UBIGINT"),
        (r"\bSTRING\b", "VARCHAR"),
    ]:
        cols = re.sub(df, duck, cols, flags=re.IGNORECASE)
    return cols


CREATE = re.compile(
    r"^\s*CREATE\s+(OR\s+REPLACE\s+)?TABLE\s+(IF\s+NOT\s+EXISTS\s+)?([A-Za-z_]\w*)\s*(.*)$",
    re.IGNORECASE | re.DOTALL,
)


def translate_create(sql):
    """(name, [DuckDB statements]) for a CREATE TABLE, or (name, None) when untranslatable."""
    m = CREATE.match(sql.strip().rstrip(";"))
    if not m:
        return None, None
    name, rest = m.group(3), m.group(4).strip()
    cols = None
    if rest.startswith("("):
        end = matching_paren(rest, 0)
        if end < 0:
            return name, None
        cols = fix_columns(rest[1:end])
        rest = rest[end + 1 :].strip()
    if not rest:
        return (name, [f"CREATE TABLE {name} ({cols})"]) if cols else (name, None)
    am = re.match(r"(?is)^AS\s+(.*)$", rest)
    if not am:
        return name, None
    body = am.group(1).strip()
    if cols:
        return name, [f"CREATE TABLE {name} ({cols})", f"INSERT INTO {name} {body}"]
    if re.match(r"(?i)^VALUES\b", body):
        first = body[body.index("(") :]
        end = matching_paren(first, 0)
        n = len(split_top(first[1:end]))
        names = ", ".join(f"column{k + 1}" for k in range(n))
        return name, [f"CREATE TABLE {name} AS SELECT * FROM ({body}) AS v({names})"]
    return name, [f"CREATE TABLE {name} AS {body}"]


def base_tables(con, sql):
    """The tables `sql` reads, CTE names excluded; None when nothing can tell."""
    try:
        doc = json.loads(con.execute("SELECT json_serialize_sql(?)", [sql]).fetchone()[0])
    except Exception:  # noqa: BLE001 - fall back to the scan below
        doc = {"error": True}
    if not doc.get("error"):
        tables, ctes = [], set()

        def walk(o):
            if isinstance(o, dict):
                if o.get("type") == "BASE_TABLE":
                    tables.append(o.get("table_name", "").lower())
                cm = o.get("cte_map")
                if isinstance(cm, dict):
                    for entry in cm.get("map", []):
                        ctes.add(str(entry.get("key", "")).lower())
                for v in o.values():
                    walk(v)
            elif isinstance(o, list):
                for v in o:
                    walk(v)

        walk(doc)
        return sorted({t for t in tables if t not in ctes})
    text = re.sub(r"'[^']*'", "''", sql)
    ctes = {m.lower() for m in re.findall(r"(?i)(?:\bwith|,)\s*([A-Za-z_]\w*)\s+as\s*\(", text)}
    found = set()
    for m in re.finditer(r"(?i)\b(?:from|join)\s+([A-Za-z_]\w*)(\s*\()?", text):
        if m.group(2) is None:
            found.add(m.group(1).lower())
    found -= ctes
    found -= {"select", "values", "lateral"}
    return sorted(found) if found else None


def df_only(sql):
    low = sql.lower()
    for f in DATAFUSION_ONLY:
        if re.search(rf"\b{f}\s*\(", low):
            return f
    # DuckDB has percentile_cont(p) WITHIN GROUP (ORDER BY x), not percentile_cont(x, p).
    if re.search(r"\bpercentile_cont\s*\([^(),]*,", low):
        return "percentile_cont(x,p)"
    return None


def uses_date_columns(sql):
    return re.search(r"\bc1[45]\b", sql) is not None


def main():
    import duckdb

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out-dir", required=True)
    p.add_argument(
        "--data",
        default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "aggregate_test_100_partitioned"),
        help="the directory of aggregate_test_100's CSV parts",
    )
    p.add_argument("files", nargs="+")
    args = p.parse_args()

    check = duckdb.connect()
    columns = {
        "c1": "VARCHAR", "c2": "TINYINT", "c3": "SMALLINT", "c4": "SMALLINT", "c5": "INTEGER",
        "c6": "BIGINT", "c7": "SMALLINT", "c8": "INTEGER", "c9": "UINTEGER", "c10": "UBIGINT",
        "c11": "FLOAT", "c12": "DOUBLE", "c13": "VARCHAR",
    }
    parts = sorted(os.path.join(args.data, f) for f in os.listdir(args.data) if f.endswith(".csv"))
    spec = ", ".join(f"'{c}': '{t}'" for c, t in columns.items())
    files = ", ".join("'" + f.replace("'", "''") + "'" for f in parts)
    check.execute(
        f"CREATE TABLE {AGG100} AS SELECT * FROM read_csv([{files}], header = true, "
        f"auto_detect = false, columns = {{{spec}}})"
    )
    queries = []
    tables = {}  # table id -> (name, [statements], label)
    left_out = collections.Counter()
    for path in args.files:
        label = os.path.basename(path)
        text = open(path, encoding="utf-8").read()
        live = {}  # name -> (table id, [statements]) or None (not reproducible)
        for rec in records(text):
            sql = strip_comments(rec.sql)
            where = f"{label}:{rec.line}"
            first = sql.split(None, 1)[0].upper() if sql else ""
            applied = rec.kind == "query" or not rec.expects_error
            if first.startswith("@DFONLY"):
                left_out[f"DataFusion-only function {sql.split()[1]}"] += 1
                continue
            if first == "CREATE" and applied:
                if re.match(r"(?is)^CREATE\s+EXTERNAL\s+TABLE\s+aggregate_test_100\b", sql):
                    live[AGG100] = (AGG100, None)
                    continue
                m = re.match(r"(?is)^CREATE\s+(?:OR\s+REPLACE\s+)?(?:EXTERNAL\s+)?(?:TABLE|VIEW)\s+(?:IF\s+NOT\s+EXISTS\s+)?([A-Za-z_]\w*)", sql)
                if not m:
                    continue
                name = m.group(1).lower()
                if re.match(r"(?is)^CREATE\s+(?:OR\s+REPLACE\s+)?TABLE\b", sql):
                    _, stmts = translate_create(sql)
                    live[name] = (f"{name}@{where}", stmts) if stmts else None
                else:
                    live[name] = None
                continue
            if first == "INSERT" and applied:
                m = re.match(r"(?is)^INSERT\s+INTO\s+([A-Za-z_]\w*)\s*(\([^)]*\))?\s*((?:VALUES|SELECT)\b.*)$", sql)
                if m and m.group(3).upper().startswith("SELECT"):
                    # Rows from another table: only aggregate_test_100, as loaded here.
                    if base_tables(check, m.group(3)) != [AGG100] or AGG100 not in live:
                        m = None
                name = m.group(1).lower() if m else None
                if m is None:
                    mm = re.match(r"(?is)^INSERT\s+INTO\s+([A-Za-z_]\w*)", sql)
                    name = mm.group(1).lower() if mm else None
                if name in live and live[name] is not None and m:
                    _, stmts = live[name]
                    cols = m.group(2) or ""
                    cols = f" {cols}" if cols else ""
                    live[name] = (f"{name}@{where}", stmts + [f"INSERT INTO {name}{cols} {m.group(3)}"])
                elif name in live:
                    live[name] = None
                continue
            if first == "DROP" and applied:
                m = re.match(r"(?is)^DROP\s+(?:TABLE|VIEW)\s+(?:IF\s+EXISTS\s+)?([A-Za-z_]\w*)", sql)
                if m:
                    live.pop(m.group(1).lower(), None)
                continue
            if first not in ("SELECT", "WITH", "(SELECT"):
                continue
            read = base_tables(check, sql)
            if not read:
                continue
            if len(read) != 1:
                if any(t in live for t in read):
                    left_out["reads more than one table"] += 1
                continue
            name = read[0]
            if name not in live:
                continue
            if live[name] is None:
                left_out["table not reproducible (external file, view or DuckDB-incompatible setup)"] += 1
                continue
            f = df_only(sql)
            if f:
                left_out[f"DataFusion-only function {f}"] += 1
                continue
            tid, stmts = live[name]
            if tid == AGG100 and uses_date_columns(sql):
                left_out["uses aggregate_test_100's c14/c15 (later data version)"] += 1
                continue
            if tid != AGG100 and tid not in tables:
                ok = True
                try:
                    check.execute("CREATE SCHEMA IF NOT EXISTS probe")
                    check.execute("SET schema = 'probe'")
                    check.execute(f"DROP TABLE IF EXISTS {name}")
                    for s in stmts:
                        check.execute(s)
                except Exception:  # noqa: BLE001 - the setup is not DuckDB's
                    ok = False
                finally:
                    check.execute("SET schema = 'main'")
                if not ok:
                    live[name] = None
                    left_out["table not reproducible (external file, view or DuckDB-incompatible setup)"] += 1
                    continue
                tables[tid] = (name, stmts, where)
            queries.append((where, tid, rec.expects_error, sql.rstrip().rstrip(";").rstrip()))

    with open(os.path.join(args.out_dir, "queries.sql"), "w", encoding="utf-8") as f:
        f.write(
            "-- Single-table queries from Apache DataFusion's sqllogictest files (see SOURCE.txt),\n"
            "-- written by extract.py. Header: -- @query <n> <file>:<line> table=<table id>\n"
            "-- [df-error: DataFusion's own test expects an error]. Answers come from DuckDB.\n\n"
        )
        for n, (where, tid, err, sql) in enumerate(queries, 1):
            f.write(f"-- @query {n} {where} table={tid}{' df-error' if err else ''}\n{sql};\n\n")
    with open(os.path.join(args.out_dir, "tables.sql"), "w", encoding="utf-8") as f:
        f.write(
            "-- The small tables the queries read, as the .slt files create them (see SOURCE.txt),\n"
            "-- in DuckDB's dialect; written by extract.py. Header: -- @table <id> name=<name>.\n\n"
        )
        for tid, (name, stmts, where) in tables.items():
            f.write(f"-- @table {tid} name={name}\n")
            for s in stmts:
                f.write(s.rstrip().rstrip(";") + ";\n")
            f.write("\n")
    per_table = collections.Counter(t for _, t, _, _ in queries)
    print(f"{len(queries)} queries ({per_table[AGG100]} over {AGG100}), {len(tables)} small tables")
    for why, n in left_out.most_common():
        print(f"  left out {n:4d}: {why}")


if __name__ == "__main__":
    sys.exit(main())

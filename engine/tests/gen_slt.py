#!/usr/bin/env python3
"""Fills in the expected results of the .slt files under tests/slt from
DuckDB, run over the same data the Rust harness loads (tests/data).

Usage: python3 engine/tests/gen_slt.py   (needs `pip install duckdb`)

Each `query <types> [rowsort]` record's SQL is run in DuckDB and the lines
after `----` are replaced. For `query <types> anyof` (any LIMIT rows of the
answer are right, e.g. GROUP BY ... LIMIT without ORDER BY) the expected
lines are the whole answer without the final LIMIT/OFFSET, sorted. Values are formatted as the harness formats
strata's: NULL, true/false, integers, doubles as '%.10g', dates and
timestamps in ISO form, the empty string as (empty). `statement error`
records are checked to fail in DuckDB too."""
import datetime
import decimal
import glob
import os
import re
import sys

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))


def connect():
    """DuckDB with every table under tests/data (NAME.schema + NAME.tsv)."""
    con = duckdb.connect()
    for schema in sorted(glob.glob(os.path.join(HERE, "data", "*.schema"))):
        name = os.path.splitext(os.path.basename(schema))[0]
        cols = []
        cols_null = []
        with open(schema) as f:
            for line in f:
                col, ty, nullable = line.rstrip("\n").split("\t")
                cols.append((col, ty))
                cols_null.append((col, ty, nullable))
        spec = "{" + ", ".join(f"'{n}': '{t}'" for n, t in cols) + "}"
        path = os.path.join(HERE, "data", f"{name}.tsv")
        if os.path.getsize(path) == 0:
            con.execute(
                f"CREATE TABLE {name} ("
                + ", ".join(f"{n} {t}{' NOT NULL' if nl == 'not null' else ''}" for n, t, nl in cols_null)
                + ")"
            )
            continue
        con.execute(
            f"CREATE TABLE {name} AS SELECT * FROM read_csv('{path}', delim='\t', header=false, "
            f"nullstr='\\N', quote='', escape='', columns={spec}, allow_quoted_nulls=false)"
        )
        # As declared: DESCRIBE and information_schema show it.
        for n, _t, nullable in cols_null:
            if nullable == "not null":
                con.execute(f"ALTER TABLE {name} ALTER COLUMN {n} SET NOT NULL")
        # Empty fields are empty strings, not NULLs; the two characters \n
        # stand for a newline.
        for n, t in cols:
            if t == "VARCHAR":
                con.execute(f"UPDATE {name} SET {n} = replace({n}, '\\n', chr(10))")
    return con


def fmt(v):
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, decimal.Decimal):
        return format(v, "f")
    if isinstance(v, float):
        if v != v:
            return "nan"
        if v in (float("inf"), float("-inf")):
            return "inf" if v > 0 else "-inf"
        return "%.10g" % v
    if isinstance(v, datetime.datetime):
        # As DuckDB prints a TIMESTAMP: the fraction without trailing zeros.
        s = "%04d-%02d-%02d %02d:%02d:%02d" % (v.year, v.month, v.day, v.hour, v.minute, v.second)
        if v.microsecond:
            s += (".%06d" % v.microsecond).rstrip("0")
        return s
    s = str(v)
    if s == "":
        return "(empty)"
    return s.replace("\n", "\\n")


def main():
    con = connect()
    files = sorted(glob.glob(os.path.join(HERE, "slt", "*.slt")))
    bad = 0
    for path in files:
        lines = open(path).read().split("\n")
        out = []
        i = 0
        while i < len(lines):
            line = lines[i]
            if line.startswith("query"):
                head = line.split()
                rowsort = "rowsort" in head
                anyof = "anyof" in head
                out.append(line)
                i += 1
                sql = []
                while i < len(lines) and lines[i] != "----" and lines[i].strip() != "":
                    sql.append(lines[i])
                    out.append(lines[i])
                    i += 1
                # skip old results
                if i < len(lines) and lines[i] == "----":
                    i += 1
                    while i < len(lines) and lines[i].strip() != "":
                        i += 1
                text = "\n".join(sql)
                if anyof:
                    text = re.sub(r"\s+LIMIT\s+\d+(\s+OFFSET\s+\d+)?\s*$", "", text, flags=re.I)
                try:
                    cur = con.execute(text)
                    rows = cur.fetchall()
                    types = [str(d[1]) for d in cur.description]
                    if "INTERVAL" in types:
                        # Python's timedelta loses the months: DuckDB prints them.
                        names = ", ".join(f"c{k}" for k in range(len(types)))
                        cols = ", ".join(
                            f"CAST(c{k} AS VARCHAR)" if t == "INTERVAL" else f"c{k}"
                            for k, t in enumerate(types)
                        )
                        rows = con.execute(f"SELECT {cols} FROM ({text}) AS q({names})").fetchall()
                except Exception as e:
                    print(f"{path}: DuckDB failed on {text!r}: {e}", file=sys.stderr)
                    bad += 1
                    rows = []
                res = [" ".join(fmt(v) for v in r) for r in rows]
                if rowsort or anyof:
                    res.sort()
                out.append("----")
                out.extend(res)
                continue
            if line.startswith("statement error"):
                out.append(line)
                i += 1
                sql = []
                while i < len(lines) and lines[i].strip() != "":
                    sql.append(lines[i])
                    out.append(lines[i])
                    i += 1
                try:
                    con.execute("\n".join(sql)).fetchall()
                    print(f"{path}: DuckDB accepted {sql!r}, expected an error (strata-only check)", file=sys.stderr)
                except Exception:
                    pass
                continue
            out.append(line)
            i += 1
        with open(path, "w") as f:
            f.write("\n".join(out))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

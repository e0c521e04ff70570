#!/usr/bin/env python3
"""DuckDB's side of `strata-bench fuzz-sql`: one long-lived process answering requests.

Protocol: one JSON object per line on stdin, one JSON reply per line on stdout.

  {"op": "load", "csv": PATH, "columns": [[NAME, TYPE], ...]}
      Replaces table `t` with the file's rows. The file is written by the fuzzer: no
      header, comma-separated, the row's number first (so that no line is empty), then
      the columns, `\\N` for NULL, every value in a text form that the
      column's conversion below reads exactly (strings as hexadecimal UTF-8, dates as
      days since 1970-01-01, timestamps as seconds since 1970-01-01 00:00:00).
      Reply: {"ok": true, "rows": N}.
  {"op": "query", "sql": SQL}
      Reply: {"ok": true, "columns": [...], "types": [...], "rows": [[...], ...]} with
      each value as null, true/false, or a string: integers and decimals in full,
      floats as repr() or nan/inf/-inf, dates as days since 1970-01-01, timestamps as
      microseconds since 1970-01-01, strings as they are, anything else as str().
      A failing query: {"ok": false, "error": MESSAGE, "class": EXCEPTION_CLASS}.
      With "unoptimized": true the query runs with DuckDB's optimizer off (which
      otherwise folds away expressions it can prove unneeded, errors and all); with
      "threads": N it runs on N threads (DuckDB's parallel operators can order their
      work, and so an order-dependent answer, differently from run to run).
  {"op": "version"}
      Reply: {"ok": true, "version": duckdb.__version__}.

A missing `duckdb` module is reported once as {"ok": false, "error": "...",
"class": "ImportError"} to the first request, and the process exits.
"""
import datetime
import decimal
import json
import math
import re
import sys

EPOCH_DATE = datetime.date(1970, 1, 1)
EPOCH_ORDINAL = EPOCH_DATE.toordinal()
EPOCH_TS = datetime.datetime(1970, 1, 1)


def days_from_civil(y, m, d):
    """Days since 1970-01-01 of a proleptic Gregorian date (any year)."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    mp = (m + 9) % 12
    doy = (153 * mp + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


DATE_TEXT = re.compile(r"^(-?\d+)-(\d+)-(\d+)( \(BC\))?(?: (\d+):(\d+):(\d+)(?:\.(\d+))?)?( \(BC\))?$")


def parse_far(text):
    """(days, microseconds of the day) of DuckDB's text for a date or timestamp outside
    Python's years 1 to 9999, e.g. '23873-04-04' or '0222-09-04 (BC) 10:00:00'."""
    m = DATE_TEXT.match(text.strip())
    if not m:
        raise ValueError(f"unreadable date {text!r}")
    y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if m.group(4) or m.group(9):
        y = 1 - y
    micros = 0
    if m.group(5) is not None:
        frac = (m.group(8) or "").ljust(6, "0")[:6]
        micros = ((int(m.group(5)) * 60 + int(m.group(6))) * 60 + int(m.group(7))) * 1_000_000 + int(frac)
    return days_from_civil(y, mo, d), micros


def encode(v, ty):
    if v is None or isinstance(v, bool):
        return v
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, decimal.Decimal):
        return format(v, "f")
    if isinstance(v, datetime.datetime):
        delta = v.replace(tzinfo=None) - EPOCH_TS
        return str(delta.days * 86_400_000_000 + delta.seconds * 1_000_000 + delta.microseconds)
    if isinstance(v, datetime.date):
        return str(v.toordinal() - EPOCH_ORDINAL)
    if isinstance(v, str):
        if ty == "DATE":
            return str(parse_far(v)[0])
        if ty == "TIMESTAMP":
            days, micros = parse_far(v)
            return str(days * 86_400_000_000 + micros)
        return v
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v).hex()
    return str(v)


def conversion(name, ty):
    """The SELECT expression turning the file's text column into a value of `ty`."""
    col = f'"{name}"'
    if ty == "VARCHAR":
        return f"decode(unhex({col}))"
    if ty == "DATE":
        return f"CAST(DATE '1970-01-01' + CAST({col} AS INTEGER) AS DATE)"
    if ty == "TIMESTAMP":
        return f"make_timestamp(CAST({col} AS BIGINT) * 1000000)"
    return f"CAST({col} AS {ty})"


def load(con, req):
    cols = req["columns"]
    con.execute("DROP TABLE IF EXISTS t")
    if req.get("rows", 1) == 0:
        defs = ", ".join(f'"{n}" {t}' for n, t in cols)
        con.execute(f"CREATE TABLE t ({defs})")
        return {"ok": True, "rows": 0}
    path = req["csv"].replace("'", "''")
    spec = ", ".join(["'row_number_': 'VARCHAR'"] + [f"'{n}': 'VARCHAR'" for n, _ in cols])
    select = ", ".join(f'{conversion(n, t)} AS "{n}"' for n, t in cols)
    con.execute(
        f"CREATE TABLE t AS SELECT {select} FROM read_csv('{path}', header=false, delim=',', "
        f"quote='', escape='', nullstr='\\N', auto_detect=false, columns={{{spec}}}, "
        f"allow_quoted_nulls=false, strict_mode=false)"
    )
    n = con.execute("SELECT COUNT(*) FROM t").fetchone()[0]
    return {"ok": True, "rows": n}


def query(con, req):
    threads = req.get("threads")
    if isinstance(threads, int) and threads > 0:
        before = con.execute("SELECT current_setting('threads')").fetchone()[0]
        con.execute(f"SET threads = {threads}")
        try:
            return query(con, {k: v for k, v in req.items() if k != "threads"})
        finally:
            con.execute(f"SET threads = {int(before)}")
    if req.get("unoptimized"):
        con.execute("PRAGMA disable_optimizer")
        try:
            return answer(con, req["sql"])
        finally:
            con.execute("PRAGMA enable_optimizer")
    return answer(con, req["sql"])


def answer(con, sql):
    cur = con.execute(sql)
    desc = cur.description or []
    names = [d[0] for d in desc]
    types = [str(d[1]) for d in desc]
    rows = [[encode(v, t) for v, t in zip(r, types)] for r in cur.fetchall()]
    return {"ok": True, "columns": names, "types": types, "rows": rows}


def main():
    out = sys.stdout
    try:
        import duckdb
    except ImportError as e:
        sys.stdin.readline()
        out.write(json.dumps({"ok": False, "error": str(e), "class": "ImportError"}) + "\n")
        out.flush()
        return
    con = duckdb.connect()
    threads = sys.argv[1] if len(sys.argv) > 1 else ""
    if threads.isdigit() and int(threads) > 0:
        con.execute(f"SET threads = {int(threads)}")
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            op = req.get("op")
            if op == "load":
                reply = load(con, req)
            elif op == "query":
                reply = query(con, req)
            elif op == "version":
                reply = {"ok": True, "version": duckdb.__version__}
            else:
                reply = {"ok": False, "error": f"unknown op {op!r}", "class": "Protocol"}
        except Exception as e:  # noqa: BLE001 - every failure is a reply
            reply = {"ok": False, "error": str(e), "class": type(e).__name__}
        try:
            text = json.dumps(reply, ensure_ascii=True)
        except Exception as e:  # noqa: BLE001
            text = json.dumps({"ok": False, "error": f"unencodable reply: {e}", "class": "Protocol"})
        out.write(text + "\n")
        out.flush()


if __name__ == "__main__":
    main()

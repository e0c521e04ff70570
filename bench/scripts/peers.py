#!/usr/bin/env python3
"""Runs the ClickBench queries on DuckDB and ClickHouse (chDB) for `strata-bench clickbench`.

Two commands, each writing one JSON document to --out (stdout stays free for the engines):

  run  --engine duckdb|clickhouse [--table NAME]
       (--parquet FILE | --tsv FILE | --csv FILE... | --tables-json FILE)
       --create FILE --queries FILE --workdir DIR [--runs R] [--threads N] [--only 1,2,...]
       --out FILE
      Loads the data into a fresh native table NAME (default hits; DuckDB: a database file; chDB:
      a MergeTree table with the --create file's ORDER BY key; CSV files have no header and
      empty fields for NULL) or, with --tables-json ([{"name", "parquet": [FILE...]}], DuckDB
      only), every listed table from its Parquet files as they are, into the tables the
      --create statements make (NAME names the database file); runs every query (--queries:
      one per line, or a .json array of strings) R times and reports
      {"engine", "version", "load_time", "data_size", "peak_rss", "queries": [{"times": [...],
      "columns": [...], "rows": [[str, ...]], "error": str|null}]}.

  once --db FILE --sql FILE [--threads N]
      Opens the DuckDB database FILE read-only, runs the query in --sql and fetches its answer:
      one query in a new process, for `--fresh` timings.

  full --db FILE --spec FILE --out FILE
      Opens the DuckDB database left by `run` and runs each query of --spec ([{"sql", "rows"}]:
      a query without its LIMIT/OFFSET and strata's answer to the original) once, for the
      tie-aware checks; reports {"results": [{"columns", "rows", "total_rows", "error"}]} where
      "rows" are the rows of DuckDB's full answer that match one of strata's rows.

  brc --file FILE --workdir DIR [--threads N] [--repeat R] --out FILE
      The One Billion Row Challenge on FILE (`station;temperature` lines): DuckDB over the file
      in place (read_csv) and from a native table, chDB over the file in place (file()). Reports
      {"runs": [{"name", "load", "first", "hot", "answer", "error"}]}: seconds (load: building the
      native table; first: first query; hot: best of R more) and the answer line formatted from
      exact decimals (min/mean/max, mean rounded half up, never -0.0).

  serve [--threads N]
      A DuckDB session (in memory) answering JSON requests, one per line on stdin, one JSON
      reply per line on stdout, for `strata-bench peer-suite`:
        {"op": "exec", "sql", "schema"?}            -> {"error"}
        {"op": "query", "sql", "schema"?}           -> {"columns", "types", "rows", "error"}
        {"op": "export", "table", "schema", "path"} -> {"columns": [[name, type]], "error"}
      "schema" is the default schema for the request (default main); "rows" hold one cell per
      column: null or [tag, text] with tag int, float, decimal, bool, str, date, timestamp,
      time, blob or other (text exact: floats as the shortest repr that round-trips), or
      ["list", [cell, ...]] for a LIST.
      "export" writes the table as CSV with a header line (COPY ... TO).

  check
      Exit status 0 when duckdb and chdb import; prints what is missing otherwise.

Values are formatted as strata's `QueryResult::row_strings` formats them (DuckDB CLI style): NULL,
dates YYYY-MM-DD, timestamps YYYY-MM-DD HH:MM:SS, floats as the shortest string that round-trips
(Rust's `f64` Display: no exponent, no trailing `.0`).

One engine per process, so peak RSS (VmHWM) belongs to that engine alone.
"""

import argparse
import datetime
import decimal
import json
import math
import os
import resource
import shutil
import sys
import time

TIME_COLUMNS = ("EventTime", "ClientEventTime", "LocalEventTime")


def fmt_float(f):
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    s = repr(float(f))
    if "e" in s or "E" in s:
        s = format(decimal.Decimal(s), "f")
    if s.endswith(".0"):
        s = s[:-2]
    return s


def fmt_value(v):
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return fmt_float(v)
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, datetime.datetime):
        s = v.strftime("%Y-%m-%d %H:%M:%S")
        if v.microsecond:
            s += ".%06d" % v.microsecond
        return s
    if isinstance(v, datetime.date):
        return v.isoformat()
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v).decode("utf-8", errors="replace")
    return str(v)


def peak_rss_bytes():
    # Linux: VmHWM, the high-water mark of this process's own memory map.
    # (ru_maxrss would also count the parent's RSS at fork: Linux folds the
    # forked copy's high-water mark into it at exec.)
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    # ru_maxrss is in KiB on Linux (bytes on macOS).
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return r if sys.platform == "darwin" else r * 1024


def read_queries(path):
    with open(path, encoding="utf-8") as f:
        if path.endswith(".json"):
            return json.load(f)
        return [line.strip() for line in f if line.strip()]


def dir_size(path):
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return total


def progress(msg):
    print(msg, file=sys.stderr, flush=True)


class DuckDb:
    name = "duckdb"

    def __init__(self, workdir, threads, table="hits"):
        import duckdb

        self.version = duckdb.__version__
        self.table = table
        self.path = os.path.join(workdir, "duckdb", f"{table}.duckdb")
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        for p in (self.path, self.path + ".wal"):
            if os.path.exists(p):
                os.remove(p)
        self.con = duckdb.connect(self.path)
        if threads:
            self.con.execute(f"SET threads = {int(threads)}").fetchall()

    def load_tables(self, create_sql, tables):
        """The tables of `tables` ([{"name", "parquet": [paths]}]) from their Parquet files."""
        self.con.execute(create_sql).fetchall()
        for t in tables:
            files = ", ".join("'" + p.replace("'", "''") + "'" for p in t["parquet"])
            self.con.execute(f'INSERT INTO "{t["name"]}" SELECT * FROM read_parquet([{files}])').fetchall()
        self.con.execute("CHECKPOINT").fetchall()

    def load(self, parquet, create_sql, tsv=False, csv=None):
        self.con.execute(create_sql).fetchall()
        if csv:
            for path in csv:
                src = path.replace("'", "''")
                self.con.execute(
                    f"COPY {self.table} FROM '{src}' (FORMAT csv, HEADER false)"
                ).fetchall()
            self.con.execute("CHECKPOINT").fetchall()
            return
        if tsv:
            src = parquet.replace("'", "''")
            self.con.execute(
                f"COPY {self.table} FROM '{src}' (FORMAT csv, DELIMITER '{chr(9)}', HEADER false, QUOTE '', ESCAPE '', NULLSTR '\\N')"
            ).fetchall()
            self.con.execute("CHECKPOINT").fetchall()
            return
        # ClickBench's duckdb-parquet conversions: Unix seconds and days since 1970-01-01.
        replace = ", ".join(
            [f"make_timestamp({c} * 1000000) AS {c}" for c in TIME_COLUMNS]
            + ["DATE '1970-01-01' + CAST(EventDate AS INTEGER) AS EventDate"]
        )
        src = parquet.replace("'", "''")
        self.con.execute(
            f"INSERT INTO {self.table} BY NAME SELECT * REPLACE ({replace}) "
            f"FROM read_parquet('{src}', binary_as_string = true)"
        ).fetchall()
        self.con.execute("CHECKPOINT").fetchall()

    def data_size(self):
        return sum(os.path.getsize(p) for p in (self.path, self.path + ".wal") if os.path.exists(p))

    def query(self, sql):
        cur = self.con.execute(sql)
        rows = cur.fetchall()
        cols = [d[0] for d in (cur.description or [])]
        return cols, rows


class ChDb:
    name = "clickhouse"

    def __init__(self, workdir, threads, table="hits"):
        import chdb
        from chdb import session

        self.version = getattr(chdb, "__version__", "?")
        self.table = table
        self.path = os.path.join(workdir, "chdb")
        if os.path.exists(self.path):
            shutil.rmtree(self.path)
        os.makedirs(self.path)
        self.sess = session.Session(self.path)
        self.settings = "session_timezone = 'UTC'"
        if threads:
            self.settings += f", max_threads = {int(threads)}"

    def _run(self, sql, fmt="JSONCompact"):
        res = self.sess.query(sql, fmt)
        err = getattr(res, "error_message", None)
        if callable(err):
            err = err()
        if err:
            raise RuntimeError(err)
        return res

    def load(self, parquet, create_sql, tsv=False, csv=None):
        self._run("CREATE DATABASE IF NOT EXISTS bench", "CSV")
        self._run("USE bench", "CSV")
        self._run(create_sql, "CSV")
        if tsv or csv:
            res = self._run(
                "SELECT name, type FROM system.columns WHERE database = 'bench' "
                f"AND table = '{self.table}' ORDER BY position",
                "JSONCompact",
            )
            doc = json.loads(res.bytes() if hasattr(res, "bytes") else str(res))
            structure = ", ".join(f"{n} {t}" for n, t in doc["data"]).replace("'", "\\'")
            fmt = "CSV" if csv else "TabSeparated"
            sources, select = csv or [parquet], "*"

            def source(src):
                return f"file('{src}', {fmt}, '{structure}')"

        else:
            replace = ", ".join(
                [f"toDateTime({c}, 'UTC') AS {c}" for c in TIME_COLUMNS]
                + ["toDate(EventDate) AS EventDate"]
            )
            sources, select = [parquet], f"* REPLACE ({replace})"

            def source(src):
                return f"file('{src}', Parquet)"

        for path in sources:
            src = path.replace("'", "\\'")
            self._run(
                f"INSERT INTO {self.table} SELECT {select} FROM {source(src)} "
                f"SETTINGS {self.settings}",
                "CSV",
            )
        self._run(f"OPTIMIZE TABLE {self.table} FINAL", "CSV")

    def data_size(self):
        res = self._run(
            "SELECT sum(bytes_on_disk) FROM system.parts "
            f"WHERE database = 'bench' AND table = '{self.table}' AND active",
            "JSONCompact",
        )
        try:
            v = json.loads(res.bytes() if hasattr(res, "bytes") else str(res))["data"][0][0]
            return int(v)
        except Exception:  # noqa: BLE001 - fall back to the directory size
            return dir_size(self.path)

    def query(self, sql):
        sql = sql.rstrip().rstrip(";")
        res = self._run(f"{sql} SETTINGS {self.settings}", "JSONCompact")
        raw = res.bytes() if hasattr(res, "bytes") else str(res).encode()
        if not raw.strip():
            return [], []
        doc = json.loads(raw)
        cols = [m["name"] for m in doc.get("meta", [])]
        types = [m["type"] for m in doc.get("meta", [])]
        rows = []
        for r in doc.get("data", []):
            row = []
            for v, t in zip(r, types):
                # 64-bit integers arrive quoted; floats may too (nan/inf).
                if isinstance(v, str) and ("Float" in t) and v not in ("nan", "inf", "-inf"):
                    try:
                        v = float(v)
                    except ValueError:
                        pass
                row.append(v)
            rows.append(row)
        return cols, rows


def cmd_run(args):
    engine_cls = {"duckdb": DuckDb, "clickhouse": ChDb}[args.engine]
    with open(args.create, encoding="utf-8") as f:
        create_sql = f.read()
    queries = read_queries(args.queries)
    eng = engine_cls(args.workdir, args.threads, args.table)
    only = {int(x) for x in args.only.split(",") if x} if args.only else None
    t0 = time.perf_counter()
    if args.tables_json:
        if not hasattr(eng, "load_tables"):
            raise SystemExit(f"{args.engine}: --tables-json is not supported")
        with open(args.tables_json, encoding="utf-8") as f:
            tables = json.load(f)
        progress(f"[{args.engine}] loading {', '.join(t['name'] for t in tables)}")
        t0 = time.perf_counter()
        eng.load_tables(create_sql, tables)
    else:
        csv = [os.path.abspath(p) for p in args.csv] if args.csv else None
        parquet = os.path.abspath(args.parquet or args.tsv) if not csv else None
        progress(f"[{args.engine}] loading {parquet or ', '.join(csv)}")
        t0 = time.perf_counter()
        eng.load(parquet, create_sql, tsv=args.tsv is not None, csv=csv)
    load_time = time.perf_counter() - t0
    size = eng.data_size()
    progress(f"[{args.engine}] loaded in {load_time:.2f} s, {size / 1048576:.1f} MiB")
    out = {
        "engine": args.engine,
        "version": eng.version,
        "load_time": load_time,
        "data_size": size,
        "queries": [],
    }
    for i, sql in enumerate(queries):
        entry = {"times": [], "columns": [], "rows": [], "error": None}
        if only is not None and i + 1 not in only:
            out["queries"].append(entry)
            continue
        for run in range(args.runs):
            try:
                t0 = time.perf_counter()
                cols, rows = eng.query(sql)
                entry["times"].append(time.perf_counter() - t0)
                if run == 0:
                    entry["columns"] = cols
                    entry["rows"] = [[fmt_value(v) for v in r] for r in rows]
            except Exception as e:  # noqa: BLE001 - reported per query
                entry["times"].append(None)
                entry["error"] = str(e).strip().splitlines()[0] if str(e).strip() else repr(e)
        hot = [t for t in entry["times"][1:] if t is not None] or [
            t for t in entry["times"] if t is not None
        ]
        status = f"{min(hot) * 1000:9.1f} ms" if hot else "    error"
        progress(f"[{args.engine}] Q{i + 1:<2} {status}" + (f"  {entry['error']}" if entry["error"] else ""))
        out["queries"].append(entry)
    out["peak_rss"] = peak_rss_bytes()
    write_json(args.out, out)


def num(s):
    try:
        return float(s)
    except ValueError:
        return None


def cells_match(a, b):
    """Equal strings, or both numbers within a relative 1e-9 (as strata-bench compares)."""
    if a == b:
        return True
    x, y = num(a), num(b)
    if x is None or y is None:
        return False
    if math.isnan(x) and math.isnan(y):
        return True
    return abs(x - y) <= 1e-9 * max(abs(x), abs(y))


def cmd_full(args):
    """For each query of --spec, the rows of DuckDB's full answer that match one of strata's
    rows (streamed, so answers of millions of rows are never held or written out whole)."""
    import duckdb

    with open(args.spec, encoding="utf-8") as f:
        spec = json.load(f)
    con = duckdb.connect(args.db, read_only=True)
    if args.threads:
        con.execute(f"SET threads = {int(args.threads)}").fetchall()
    results = []
    for item in spec:
        wanted = [list(r) for r in item["rows"]]
        try:
            cur = con.execute(item["sql"])
            cols = [d[0] for d in (cur.description or [])]
            exact = {}
            for r in wanted:
                exact.setdefault(tuple(r), 0)
                exact[tuple(r)] += 1
            by_key = None
            exact_cols = None
            matched = []
            total = 0
            while True:
                batch = cur.fetchmany(65536)
                if not batch:
                    break
                for raw in batch:
                    total += 1
                    row = [fmt_value(v) for v in raw]
                    t = tuple(row)
                    if t in exact:
                        matched.append(row)
                        continue
                    if exact_cols is None:
                        exact_cols = [
                            j for j, v in enumerate(raw) if not isinstance(v, (float, decimal.Decimal))
                        ]
                        by_key = {}
                        for r in wanted:
                            by_key.setdefault(tuple(r[j] for j in exact_cols if j < len(r)), []).append(r)
                        # The range of strata's values per float column: a row outside it
                        # cannot be near any of strata's rows (cheap test for long answers).
                        ranges = []
                        for j, v in enumerate(raw):
                            if j in exact_cols:
                                continue
                            xs = [x for x in (num(r[j]) for r in wanted if j < len(r)) if x is not None]
                            if xs and not any(math.isnan(x) for x in xs):
                                lo, hi = min(xs), max(xs)
                                ranges.append((j, lo - 1e-9 * abs(lo), hi + 1e-9 * abs(hi)))
                    if any(
                        isinstance(raw[j], (float, decimal.Decimal)) and not lo <= raw[j] <= hi
                        for j, lo, hi in ranges
                    ):
                        continue
                    cands = by_key.get(tuple(row[j] for j in exact_cols), ())
                    if any(len(c) == len(row) and all(map(cells_match, c, row)) for c in cands):
                        matched.append(row)
            results.append({"columns": cols, "rows": matched, "total_rows": total, "error": None})
        except Exception as e:  # noqa: BLE001
            results.append({"columns": [], "rows": [], "total_rows": 0, "error": str(e)})
    write_json(args.out, {"results": results})


BRC_SQL = (
    "SELECT station, min(temperature), max(temperature), sum(temperature), count(*) "
    "FROM {src} GROUP BY station"
)


def brc_answer(rows):
    """The challenge's line from (station, min, max, sum, count) rows of exact decimals."""

    def tenths(d):
        return int(decimal.Decimal(d) * 10)

    def text(t):
        return ("-" if t < 0 else "") + "%d.%d" % (abs(t) // 10, abs(t) % 10)

    parts = []
    for name, lo, hi, total, n in sorted(rows, key=lambda r: r[0].encode("utf-8")):
        n = int(n)
        mean = (2 * tenths(total) + n) // (2 * n)
        parts.append(f"{name}={text(tenths(lo))}/{text(mean)}/{text(tenths(hi))}")
    return "{" + ", ".join(parts) + "}"


def timed_runs(run, repeat):
    t0 = time.perf_counter()
    rows = run()
    first = time.perf_counter() - t0
    hot = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        run()
        t = time.perf_counter() - t0
        hot = t if hot is None else min(hot, t)
    return rows, first, hot


def cmd_brc(args):
    path = os.path.abspath(args.file)
    runs = []

    def record(name, fn, load=None):
        try:
            rows, first, hot = fn()
            runs.append({"name": name, "load": load, "first": first, "hot": hot,
                         "answer": brc_answer(rows), "error": None})
        except Exception as e:  # noqa: BLE001 - reported per run
            runs.append({"name": name, "load": load, "first": None, "hot": None,
                         "answer": None, "error": str(e).strip().splitlines()[0]})
        r = runs[-1]
        progress(f"[{name}] first {r['first']} s, hot {r['hot']} s" + (f" error {r['error']}" if r["error"] else ""))

    try:
        import duckdb

        con = duckdb.connect(os.path.join(args.workdir, "brc.duckdb"))
        if args.threads:
            con.execute(f"SET threads = {int(args.threads)}").fetchall()
        src = path.replace("'", "''")
        csv = (
            f"read_csv('{src}', delim=';', header=false, quote='', escape='', "
            "columns={'station': 'VARCHAR', 'temperature': 'DECIMAL(3,1)'})"
        )
        q_csv = BRC_SQL.format(src=csv)
        record("duckdb read_csv", lambda: timed_runs(lambda: con.execute(q_csv).fetchall(), args.repeat))
        t0 = time.perf_counter()
        con.execute(f"CREATE OR REPLACE TABLE measurements AS SELECT * FROM {csv}").fetchall()
        load = time.perf_counter() - t0
        q_tab = BRC_SQL.format(src="measurements")
        record("duckdb table", lambda: timed_runs(lambda: con.execute(q_tab).fetchall(), args.repeat), load)
        con.close()
    except ImportError as e:
        progress(f"duckdb skipped: {e}")
    try:
        from chdb import session

        sess = session.Session(os.path.join(args.workdir, "chdb"))
        settings = "format_csv_delimiter = ';', format_csv_allow_double_quotes = 0, " \
            "format_csv_allow_single_quotes = 0, input_format_csv_trim_whitespaces = 0"
        if args.threads:
            settings += f", max_threads = {int(args.threads)}"
        src = path.replace("'", "\\'")
        sql = BRC_SQL.format(
            src=f"file('{src}', CSV, 'station String, temperature Decimal(3,1)')"
        ) + f" SETTINGS {settings}"

        def ch():
            res = sess.query(sql, "JSONCompact")
            err = getattr(res, "error_message", None)
            if callable(err):
                err = err()
            if err:
                raise RuntimeError(err)
            raw = res.bytes() if hasattr(res, "bytes") else str(res).encode()
            return json.loads(raw, parse_float=decimal.Decimal)["data"]

        record("chdb file()", lambda: timed_runs(ch, args.repeat))
    except ImportError as e:
        progress(f"chdb skipped: {e}")
    write_json(args.out, {"runs": runs})


def typed_cell(v):
    """A DuckDB value as [tag, text] (None for NULL) for the typed comparison of `serve`."""
    if v is None:
        return None
    if isinstance(v, bool):
        return ["bool", "true" if v else "false"]
    if isinstance(v, int):
        return ["int", str(v)]
    if isinstance(v, float):
        return ["float", repr(v)]
    if isinstance(v, decimal.Decimal):
        return ["decimal", format(v, "f")]
    if isinstance(v, str):
        return ["str", v]
    if isinstance(v, datetime.datetime):
        return ["timestamp", v.isoformat(sep=" ")]
    if isinstance(v, datetime.date):
        return ["date", v.isoformat()]
    if isinstance(v, datetime.time):
        return ["time", v.isoformat()]
    if isinstance(v, (bytes, bytearray, memoryview)):
        return ["blob", bytes(v).hex()]
    if isinstance(v, list):
        return ["list", [typed_cell(x) for x in v]]
    return ["other", json.dumps(v, default=str, ensure_ascii=False)]


def cmd_serve(args):
    import duckdb

    con = duckdb.connect()
    if args.threads:
        con.execute(f"SET threads = {int(args.threads)}").fetchall()
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            schema = req.get("schema") or "main"
            con.execute(f"SET schema = '{schema}'")
            op = req.get("op")
            if op == "exec":
                con.execute(req["sql"])
                reply = {"error": None}
            elif op == "query":
                cur = con.execute(req["sql"])
                rows = cur.fetchall()
                desc = cur.description or []
                reply = {
                    "columns": [d[0] for d in desc],
                    "types": [str(d[1]) for d in desc],
                    "rows": [[typed_cell(v) for v in r] for r in rows],
                    "error": None,
                }
            elif op == "export":
                table = '"' + req["table"].replace('"', '""') + '"'
                path = req["path"].replace("'", "''")
                con.execute(f"COPY {schema}.{table} TO '{path}' (FORMAT csv, HEADER true)")
                cols = con.execute(f"DESCRIBE {schema}.{table}").fetchall()
                reply = {"columns": [[c[0], c[1]] for c in cols], "error": None}
            else:
                reply = {"error": f"unknown op {op!r}"}
        except Exception as e:  # noqa: BLE001 - reported to the caller
            text = str(e).strip()
            reply = {"error": text.splitlines()[0] if text else repr(e)}
        sys.stdout.write(json.dumps(reply, ensure_ascii=False) + "\n")
        sys.stdout.flush()


def cmd_once(args):
    import duckdb

    with open(args.sql, encoding="utf-8") as f:
        sql = f.read()
    con = duckdb.connect(args.db, read_only=True)
    if args.threads:
        con.execute(f"SET threads = {int(args.threads)}").fetchall()
    con.execute(sql).fetchall()


def cmd_check(_args):
    missing = []
    for mod in ("duckdb", "chdb"):
        try:
            __import__(mod)
        except Exception as e:  # noqa: BLE001
            missing.append(f"{mod} ({e})")
    if missing:
        print("not importable: " + ", ".join(missing))
        sys.exit(1)


def write_json(path, doc):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False)
    os.replace(tmp, path)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--engine", choices=["duckdb", "clickhouse"], required=True)
    src = r.add_mutually_exclusive_group(required=True)
    src.add_argument("--parquet")
    src.add_argument("--tsv")
    src.add_argument("--csv", nargs="+")
    src.add_argument("--tables-json")
    r.add_argument("--table", default="hits")
    r.add_argument("--only", help="1-based query numbers, comma-separated (default: all)")
    r.add_argument("--create", required=True)
    r.add_argument("--queries", required=True)
    r.add_argument("--workdir", required=True)
    r.add_argument("--runs", type=int, default=3)
    r.add_argument("--threads", type=int, default=0)
    r.add_argument("--out", required=True)
    o = sub.add_parser("once")
    o.add_argument("--db", required=True)
    o.add_argument("--sql", required=True)
    o.add_argument("--threads", type=int, default=0)
    f = sub.add_parser("full")
    f.add_argument("--db", required=True)
    f.add_argument("--spec", required=True, help="JSON: [{sql, rows: strata's rows}]")
    f.add_argument("--threads", type=int, default=0)
    f.add_argument("--out", required=True)
    b = sub.add_parser("brc")
    b.add_argument("--file", required=True)
    b.add_argument("--workdir", required=True)
    b.add_argument("--threads", type=int, default=0)
    b.add_argument("--repeat", type=int, default=1)
    b.add_argument("--out", required=True)
    sv = sub.add_parser("serve")
    sv.add_argument("--threads", type=int, default=0)
    sub.add_parser("check")
    args = p.parse_args()
    {"run": cmd_run, "once": cmd_once, "full": cmd_full, "brc": cmd_brc, "serve": cmd_serve,
     "check": cmd_check}[args.cmd](args)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Querying files in place: strata against DuckDB and chDB, first and repeated query.

    files_in_place.py --strata target/release/strata --parquet hits.parquet --csv hits.csv \
        --workdir fip [--runs 3] [--queries 1,2,3,4] [--out results.txt]

For each input (Parquet, CSV) and query:
  strata      `strata query --cache-dir WORKDIR/cache` as a fresh process per run; the cache
              is emptied before the first run, so the first run loads the file into it
              (only the columns the query names; for Q4, which needs the first rows, only
              those) and the later runs read the cached table. Times are process wall
              times (start-up included).
  duckdb      `read_parquet(...)` / `read_csv(...)` on a new in-process connection; first
              run, then the best of the next runs on the same connection.
  clickhouse  chDB's `file(path, Parquet | CSVWithNames)`; first run, then the best of the
              next runs.
The first query is sampled up to --first-runs times (default 5; fewer when the samples pass
12 s), each from a cold start (strata: cache emptied; DuckDB: new connection), and the median
is reported: a single sample of a 0.1-0.3 s query varies by 10-20% on a 2-core machine.
chDB cannot be returned to a cold start (its process-wide caches remember file row counts
and Parquet metadata), so its first query is one sample: its first run of each query.
Peers run in this process with their default thread counts (one per core); the operating
system's page cache is warm for everyone (the files were read before the first timed run).
Answers are checked against DuckDB's (rows compared as text, order included).
"""

import argparse
import csv
import io
import os
import shutil
import statistics
import subprocess
import sys
import time

# Time allowed for the first-query samples of one engine and query.
FIRST_BUDGET_S = 12.0

QUERIES = [
    "SELECT COUNT(*) FROM {src}",
    "SELECT RegionID, COUNT(*) AS c FROM {src} GROUP BY RegionID ORDER BY c DESC, RegionID LIMIT 10",
    "SELECT SearchPhrase, COUNT(*) AS c FROM {src} WHERE SearchPhrase <> '' "
    "GROUP BY SearchPhrase ORDER BY c DESC, SearchPhrase LIMIT 10",
    # A first look at a file: its first rows, every column.
    "SELECT * FROM {src} LIMIT 10",
]


def fmt(v):
    # strata prints NULL as an empty field; and DuckDB reads a quoted empty
    # CSV field ("") as NULL where strata reads the empty string. The check
    # does not tell them apart.
    if v is None:
        return ""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if isinstance(v, (bytes, bytearray)):
        return v.decode("utf-8", errors="replace")
    return str(v)


def progress(msg):
    print(msg, file=sys.stderr, flush=True)


def timed(f):
    t = time.perf_counter()
    r = f()
    return time.perf_counter() - t, r


def warm(path):
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


class Strata:
    name = "strata"
    # Whether reset() returns to a cold start (so first runs can be repeated).
    cold_reset = True

    def __init__(self, binary, workdir):
        self.binary = binary
        self.cache = os.path.join(workdir, "cache")
        self.inner = []

    def src(self, path, fmt_):
        return f"'{path}'" if fmt_ == "parquet" else f"read_csv('{path}')"

    def reset(self):
        shutil.rmtree(self.cache, ignore_errors=True)

    def run(self, sql):
        out = subprocess.run(
            [self.binary, "query", "--timing", "--format", "csv", "--cache-dir", self.cache, sql],
            capture_output=True,
            text=True,
        )
        if out.returncode != 0:
            raise RuntimeError(out.stderr.strip())
        # `--timing`: the query's time inside the process (cache lookup included).
        for line in out.stderr.splitlines():
            if line.startswith("time: "):
                self.inner.append(float(line.split()[1]))
        # A CSV reader: fields may hold quotes, newlines or other characters
        # that str.splitlines() would split at.
        rows = list(csv.reader(io.StringIO(out.stdout, newline="")))[1:]
        return [",".join(r) for r in rows]


class DuckDB:
    name = "duckdb"
    cold_reset = True

    def __init__(self):
        import duckdb

        self.duckdb = duckdb
        self.con = None

    def src(self, path, fmt_):
        return f"read_parquet('{path}')" if fmt_ == "parquet" else f"read_csv('{path}')"

    def reset(self):
        self.con = self.duckdb.connect()

    def run(self, sql):
        return [",".join(fmt(v) for v in row) for row in self.con.execute(sql).fetchall()]


class ChDB:
    name = "clickhouse"
    # chDB keeps process-wide caches (file row counts, Parquet metadata)
    # that no call clears: only its very first run is a first query.
    cold_reset = False

    def __init__(self):
        import chdb

        self.chdb = chdb

    def src(self, path, fmt_):
        kind = "Parquet" if fmt_ == "parquet" else "CSVWithNames"
        return f"file('{path}', {kind})"

    def reset(self):
        pass

    def run(self, sql):
        res = self.chdb.query(sql, "CSV")
        text = res.bytes().decode() if hasattr(res, "bytes") else str(res)
        return [line.replace('"', "") for line in text.splitlines() if line]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--strata", required=True)
    ap.add_argument("--parquet")
    ap.add_argument("--csv")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--runs", type=int, default=3, help="repeated runs after the first")
    ap.add_argument("--queries", default="1,2,3,4")
    ap.add_argument("--engines", default="strata,duckdb,clickhouse")
    ap.add_argument(
        "--first-runs",
        type=int,
        default=5,
        help="cold first-query samples per engine and query (median reported; fewer when they take long)",
    )
    ap.add_argument("--out")
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    engines = []
    for e in args.engines.split(","):
        try:
            engines.append(
                {"strata": lambda: Strata(args.strata, args.workdir), "duckdb": DuckDB, "clickhouse": ChDB}[e]()
            )
        except ImportError as err:
            progress(f"skipping {e}: {err}")
    wanted = [int(q) for q in args.queries.split(",")]
    inputs = [(f, p) for f, p in (("parquet", args.parquet), ("csv", args.csv)) if p]
    results = {}  # (fmt, q, engine) -> (first, repeated, rows)
    inner = {}  # (fmt, q) -> strata's best repeated time inside the process
    for fmt_, path in inputs:
        path = os.path.abspath(path)
        warm(path)
        for q in wanted:
            for eng in engines:
                sql = QUERIES[q - 1].format(src=eng.src(path, fmt_))
                progress(f"{fmt_} Q{q} {eng.name}: {sql}")
                try:
                    # The first query, from a cold start each time (cache
                    # emptied, new connection): the median of up to
                    # --first-runs samples, as many as fit in FIRST_BUDGET_S.
                    firsts = []
                    while True:
                        eng.reset()
                        t, rows = timed(lambda: eng.run(sql))
                        firsts.append(t)
                        if (
                            not eng.cold_reset
                            or len(firsts) >= args.first_runs
                            or sum(firsts) + t > FIRST_BUDGET_S
                        ):
                            break
                    first = statistics.median(firsts)
                    if eng.name == "strata":
                        eng.inner = []
                    rep = min(timed(lambda: eng.run(sql))[0] for _ in range(args.runs))
                    if eng.name == "strata" and eng.inner:
                        inner[(fmt_, q)] = min(eng.inner)
                except Exception as err:  # report and go on
                    progress(f"  error: {err}")
                    results[(fmt_, q, eng.name)] = None
                    continue
                progress(
                    f"  first {first:.3f} s (median of {len(firsts)}: "
                    + ", ".join(f"{x:.3f}" for x in firsts)
                    + f"), repeated {rep:.3f} s"
                )
                results[(fmt_, q, eng.name)] = (first, rep, rows)
            if "strata" in [e.name for e in engines]:
                Strata(args.strata, args.workdir).reset()

    names = [e.name for e in engines]
    lines = []
    lines.append("Times in seconds: first query (file not loaded yet; median of up to %d cold runs, chDB one run) / repeated query (best of %d)" % (args.first_runs, args.runs))
    lines.append(
        "strata: wall time of a `strata query` process; 'in-process' is its --timing figure "
        "(cache lookup + query, no process start-up); peers run in-process"
    )
    head = f"{'input':8} {'query':5} " + " ".join(f"{n + ' first':>17} {n + ' rep':>15}" for n in names)
    head += "  strata rep in-process  first/best-peer  rep/best-peer  rep in-process/best-peer  check"
    lines.append(head)
    for fmt_, _ in inputs:
        for q in wanted:
            cells = []
            for n in names:
                r = results.get((fmt_, q, n))
                cells.append(f"{r[0]:>17.3f} {r[1]:>15.3f}" if r else f"{'error':>17} {'error':>15}")
            s = results.get((fmt_, q, "strata"))
            peers = [results.get((fmt_, q, n)) for n in names if n != "strata"]
            peers = [p for p in peers if p]
            cells.append(f"{inner[(fmt_, q)]:>22.4f}" if (fmt_, q) in inner else f"{'-':>22}")
            ratio = ""
            if s and peers:
                bf = min(p[0] for p in peers)
                br = min(p[1] for p in peers)
                ratio = f"  {s[0] / bf:>14.2f}x {s[1] / br:>13.2f}x"
                if (fmt_, q) in inner:
                    ratio += f" {inner[(fmt_, q)] / br:>24.2f}x"
            d = results.get((fmt_, q, "duckdb"))
            check = ""
            if s and d:
                check = "  OK" if s[2] == d[2] else f"  DIFF strata={s[2][:3]} duckdb={d[2][:3]}"
            lines.append(f"{fmt_:8} Q{q:<4} " + " ".join(cells) + ratio + check)
    lines.append("")
    for i, q in enumerate(QUERIES, 1):
        if i in wanted:
            lines.append(f"Q{i}: {q.format(src='<file>')}")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "a") as f:
            f.write(text)


if __name__ == "__main__":
    main()

"""The ClickBench queries on strata.ray with 1 and 2 Ray workers, beside the
single process (strata.connect) on 1 and 2 threads; prints one line per
query: hot times (best of runs 2..R) and what the driver received.

    python bench/scripts/ray_scale.py --table DB/hits [--runs 3] [--queries 1,2]

Each Ray task takes one CPU and runs strata on one thread; ``W`` workers
means ``ray.init(num_cpus=W)`` and ``num_tasks=W``. Every Ray answer is
checked against the single process's (python/tests/answers.py).
"""

import argparse
import os
import sys
import time

import ray

import strata
import strata.ray

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python", "tests"))
from answers import Shape, check  # noqa: E402


def hot(f, runs):
    times, out = [], None
    for _ in range(runs):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times[1:] or times), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--table", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--queries", default="")
    ap.add_argument("--workers", default="1,2")
    args = ap.parse_args()
    with open(os.path.join(HERE, "..", "queries", "queries-duckdb.sql"), encoding="utf-8") as f:
        queries = [q.strip().rstrip(";") for q in f if q.strip()]
    selected = [int(q) for q in args.queries.split(",") if q] or list(range(1, len(queries) + 1))
    table = os.path.abspath(args.table)
    db = os.path.dirname(table)
    single = {}
    want = {}
    for threads in (1, 2):
        con = strata.connect(db, threads=threads)
        for q in selected:
            sql = queries[q - 1]
            t, r = hot(lambda: con.sql(sql).arrow(), args.runs)
            single[(q, threads)] = t
            want[q] = r
        con.close()
    results = {}
    for w in [int(x) for x in args.workers.split(",")]:
        ray.init(num_cpus=w, include_dashboard=False, log_to_driver=False)
        for q in selected:
            sql = queries[q - 1]
            stats = {}
            t, got = hot(
                lambda: strata.ray.sql(sql, tables={"hits": table}, num_tasks=w, stats=stats),
                args.runs,
            )
            con = strata.connect(db)
            why = check(sql, got, want[q], full=lambda: con.sql(Shape(sql).without_limit).arrow())
            con.close()
            results[(q, w)] = (t, dict(stats), why)
        ray.shutdown()
    print(
        f"{'Q':<4} {'1 thread':>9} {'2 threads':>9} {'ray 1w':>9} {'ray 2w':>9} {'2w/1w':>6}"
        f" {'driver KiB (2w)':>16} {'merge ms':>9}  check"
    )
    for q in selected:
        r1, r2 = results.get((q, 1)), results.get((q, 2))
        ratio = r2[0] / r1[0] if r1 and r2 else float("nan")
        last = r2 or r1
        whys = [r[2] for r in (r1, r2) if r and r[2]]
        print(
            f"Q{q:<3} {single[(q, 1)] * 1e3:9.1f} {single[(q, 2)] * 1e3:9.1f}"
            f" {(r1[0] * 1e3 if r1 else float('nan')):9.1f} {(r2[0] * 1e3 if r2 else float('nan')):9.1f}"
            f" {ratio:6.2f} {last[1].get('driver_bytes', 0) / 1024:16.1f}"
            f" {last[1].get('merge_seconds', 0) * 1e3:9.1f}  {'MISMATCH: ' + whys[0] if whys else 'OK'}"
        )
    import math

    def geo(xs):
        xs = [x for x in xs if x > 0]
        return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")

    for name, key in [("1 thread", lambda q: single[(q, 1)]), ("2 threads", lambda q: single[(q, 2)])]:
        print(f"geomean {name}: {geo([key(q) for q in selected]) * 1e3:.1f} ms")
    for w in (1, 2):
        if all((q, w) in results for q in selected):
            print(f"geomean ray {w} worker(s): {geo([results[(q, w)][0] for q in selected]) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Builds an slt directory for the 43 ClickBench queries over the 10-row
hits sample (a smoke test: every query binds and runs, answers as DuckDB's).

Usage: python3 engine/tests/gen_clickbench_sample.py OUT_DIR
       SLT_DIR=OUT_DIR cargo test -p strata-engine --test slt
The sample and queries are read from ../shared/clickbench (CC BY-NC-SA; not
copied into this repository)."""
import os
import sys

import duckdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_slt import fmt  # noqa: E402

CB = os.environ.get("CLICKBENCH_DIR", "/work/shared/clickbench")


def main():
    out_dir = sys.argv[1]
    os.makedirs(os.path.join(out_dir, "data"), exist_ok=True)
    os.makedirs(os.path.join(out_dir, "slt"), exist_ok=True)
    c = duckdb.connect()
    c.execute(open(os.path.join(CB, "create-duckdb.sql")).read())
    cols = c.execute(
        "select column_name, data_type from information_schema.columns "
        "where table_name='hits' order by ordinal_position"
    ).fetchall()
    pq = "'" + os.path.join(CB, "sample", "clickbench_hits_10.parquet") + "'"
    pcols = {r[0]: r[1] for r in c.execute(f"describe select * from {pq}").fetchall()}
    sel = []
    for n, t in cols:
        if t == "TIMESTAMP" and pcols[n] != "TIMESTAMP":
            sel.append(f'to_timestamp("{n}")::TIMESTAMP')
        elif t == "DATE" and pcols[n] != "DATE":
            sel.append(f"(DATE '1970-01-01' + \"{n}\"::INT)")
        else:
            sel.append(f'"{n}"')
    c.execute(f"insert into hits select {', '.join(sel)} from {pq}")
    with open(os.path.join(out_dir, "data", "t.schema"), "w") as f:
        for n, t in cols:
            t2 = "VARCHAR" if t.startswith(("VARCHAR", "CHAR")) or t == "TEXT" else t
            f.write(f"{n}\t{t2}\tnot null\n")

    def cell(v):
        return "\\N" if v is None else str(v).replace("\n", "\\n").replace("\t", " ")

    with open(os.path.join(out_dir, "data", "t.tsv"), "w") as f:
        for r in c.execute("select * from hits").fetchall():
            f.write("\t".join(cell(v) for v in r) + "\n")
    out = []
    queries = open(os.path.join(CB, "queries-duckdb.sql")).read().strip().split("\n")
    for i, q in enumerate(queries):
        q = q.strip().rstrip(";")
        r = c.execute(q)
        res = r.fetchall()
        lines = sorted(" ".join(fmt(v) for v in row) for row in res)
        out.append(
            f"# Q{i + 1}\nquery {'T' * len(r.description)} rowsort\n{q}\n----\n"
            + "\n".join(lines)
            + "\n"
        )
    with open(os.path.join(out_dir, "slt", "clickbench.slt"), "w") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    main()

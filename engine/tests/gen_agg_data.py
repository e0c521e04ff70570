#!/usr/bin/env python3
"""Writes the aggregate test table: tests/data/ag.tsv and ag.schema (tab-
separated, \\N for NULL). Fixed seed; the files are committed and gen_slt.py
computes the expected answers from them with DuckDB.

Groups `g` are shaped for the aggregate tests: group 1 is large with
duplicates, group 2 has only NULL values, group 3 one row, group 4 two equal
rows, group 5 many duplicates, and NULL is a group too. Column `m` has a
single most frequent value in every group (mode ties are unspecified in
DuckDB); `s` has no duplicates within a group except where the test wants
them."""
import datetime
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(32)

SCHEMA = [
    ("id", "BIGINT", False),
    ("g", "INTEGER", True),
    ("x", "INTEGER", True),
    ("y", "DOUBLE", True),
    ("d", "DECIMAL(9,2)", True),
    ("w", "DECIMAL(18,3)", True),
    ("dt", "DATE", True),
    ("ts", "TIMESTAMP", True),
    ("s", "VARCHAR", True),
    ("b", "BOOLEAN", True),
    ("u", "UTINYINT", True),
    ("m", "SMALLINT", True),
]

WORDS = ["apple", "banana", "cherry", "date", "elder", "fig", "grape", "kiwi", "lemon", "mango", "", "Zed", "ёж"]


def nullable(v, p=0.12):
    return None if rng.random() < p else v


def values(g):
    x = nullable(rng.choice([rng.randint(-50, 50), rng.randint(0, 5)]))
    y = nullable(round(rng.uniform(-100, 100), 3))
    d = nullable("%.2f" % rng.uniform(-999, 999))
    w = nullable("%.3f" % rng.uniform(-10**6, 10**6))
    dt = nullable(datetime.date(2020, 1, 1) + datetime.timedelta(days=rng.randint(0, 700)))
    ts = nullable(datetime.datetime(2021, 3, 1) + datetime.timedelta(microseconds=rng.randint(0, 10**11)))
    s = nullable(rng.choice(WORDS))
    b = nullable(rng.random() < 0.6)
    u = nullable(rng.randint(0, 255))
    return [x, y, d, w, dt, ts, s, b, u]


def fmt(v):
    if v is None:
        return "\\N"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def main():
    rows = []
    groups = [1] * 40 + [2] * 5 + [3] + [4] * 2 + [5] * 25 + [None] * 6
    rng.shuffle(groups)
    fixed4 = None
    # Each group's mode of m: its value repeated more often than any other.
    modes = {1: 7, 2: None, 3: -4, 4: 11, 5: 3, None: 0}
    counts = {}
    for i, g in enumerate(groups):
        if g == 2:
            vals = [None] * 9
        elif g == 4:
            fixed4 = fixed4 or values(g)
            vals = fixed4
        else:
            vals = values(g)
        if g == 5:
            # Many duplicates.
            vals[0] = rng.choice([1, 2, 2, 3, None])
            vals[1] = rng.choice([0.5, 1.5, 1.5, None])
        n = counts.get(g, 0)
        counts[g] = n + 1
        if g == 2:
            m = None
        elif n % 2 == 0 or g == 4:
            m = modes[g]
        else:
            m = rng.randint(100, 10**4)
        rows.append([i, g] + vals + [m])
    with open(os.path.join(HERE, "data", "ag.schema"), "w") as f:
        for name, ty, null in SCHEMA:
            f.write(f"{name}\t{ty}\t{'null' if null else 'not null'}\n")
    with open(os.path.join(HERE, "data", "ag.tsv"), "w") as f:
        for r in rows:
            f.write("\t".join(fmt(v) for v in r) + "\n")


if __name__ == "__main__":
    main()

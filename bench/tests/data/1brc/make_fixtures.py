#!/usr/bin/env python3
"""Writes the hand-made 1BRC inputs (*.txt) and their expected answers (*.out).

The answers come from DuckDB's exact DECIMAL aggregates (min, max, sum, count per
station), formatted as the challenge prints them: mean = sum/count rounded half up
(exact ties toward +infinity), one decimal, never -0.0, stations in byte order.
Usage: python3 bench/tests/data/1brc/make_fixtures.py   (needs `pip install duckdb`)"""
import os
import random

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))


def answer(path):
    con = duckdb.connect()
    rows = con.execute(
        "SELECT station, min(t), max(t), sum(t), count(*) FROM read_csv(?, delim=';', "
        "header=false, quote='', escape='', "
        "columns={'station': 'VARCHAR', 't': 'DECIMAL(3,1)'}) GROUP BY station",
        [path],
    ).fetchall()

    def tenths(d):
        return int(d * 10)

    def text(t):
        return ("-" if t < 0 else "") + "%d.%d" % (abs(t) // 10, abs(t) % 10)

    parts = []
    for name, lo, hi, total, n in sorted(rows, key=lambda r: r[0].encode("utf-8")):
        mean = (2 * tenths(total) + n) // (2 * n)
        parts.append(f"{name}={text(tenths(lo))}/{text(mean)}/{text(tenths(hi))}")
    return "{" + ", ".join(parts) + "}\n"


def write(name, lines):
    path = os.path.join(HERE, name + ".txt")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(l + "\n" for l in lines))
    with open(os.path.join(HERE, name + ".out"), "w", encoding="utf-8", newline="\n") as f:
        f.write(answer(path))


def main():
    write("shortest", ["a;1.0"])
    write("one-station", ["Hamburg;12.0", "Hamburg;-3.4", "Hamburg;0.0", "Hamburg;8.1"])
    write("boundaries", ["Lo;-99.9", "Lo;-99.9", "Hi;99.9", "Hi;99.9", "Both;-99.9", "Both;99.9"])
    # Exact ties of the mean: 101.8/4 = 25.45 -> 25.5; 2.5/2 = 1.25 -> 1.3;
    # -2.5/2 = -1.25 -> -1.2; -0.1/2 = -0.05 -> 0.0; -0.3/2 = -0.15 -> -0.1;
    # 3.3/6 = 0.55 -> 0.6; -2020.7/22 = -91.85 -> -91.8; 9.5 + -9.5 = 0 -> 0.0.
    ties = ["ham;33.6", "ham;31.7", "ham;21.9", "ham;14.6", "pos;1.0", "pos;1.5",
            "neg;-1.0", "neg;-1.5", "negzero;-0.1", "negzero;0.0", "negtie;-0.1", "negtie;-0.2",
            "zero;9.5", "zero;-9.5"]
    ties += ["six;0.5", "six;0.5", "six;0.5", "six;0.6", "six;0.6", "six;0.6"]
    ties += ["big;-91.8"] * 11 + ["big;-91.9"] * 11
    write("rounding", ties)
    names = ["x", "é", "Z" * 100, "é" * 50, "\U0001D11E" * 25, "Washington, D.C.", "Flores,  Petén",
             "São Paulo", "Zürich", "Abéché", " lead", "trail ", ".", "-", "İzmir", "東京", "a,b;"[:3],
             "it's"]
    lines = []
    rng = random.Random(7)
    for i in range(400):
        n = names[i % len(names)]
        lines.append(f"{n};{rng.randint(-999, 999) / 10:.1f}")
    write("names", lines)
    # 10,000 stations of 1..100 bytes, mixed scripts, 1 or 2 rows each, shuffled.
    alphabet = "abcXYZ é ü ß ø ł 東京 ж я 𝄞,.'-"
    seen = set()
    stations = []
    while len(stations) < 10000:
        target = rng.choice([1, 2, 3, 5, 8, 8, 13, 13, 20, 100])
        s = ""
        while True:
            c = rng.choice(alphabet)
            if len((s + c).encode()) > target:
                break
            s += c
        if s and s not in seen:
            seen.add(s)
            stations.append(s)
    lines = []
    for s in stations:
        for _ in range(rng.choice([1, 1, 1, 2])):
            lines.append(f"{s};{rng.randint(-999, 999) / 10:.1f}")
    rng.shuffle(lines)
    write("10000-stations", lines)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes the SQL test table: tests/data/t.tsv (tab-separated, \\N for NULL)
and tests/data/t.schema (name, type, nullable per line). Fixed seed, so the
files are reproducible; they are committed, and gen_slt.py computes the
expected results from them with DuckDB."""
import datetime
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
N = 2000
rng = random.Random(20240607)

SCHEMA = [
    ("id", "BIGINT", False),
    ("a", "SMALLINT", True),
    ("b", "INTEGER", True),
    ("big", "BIGINT", False),
    ("u8", "UTINYINT", False),
    ("f", "DOUBLE", True),
    ("d", "DATE", True),
    ("ts", "TIMESTAMP", False),
    ("s", "VARCHAR", True),
    ("s2", "VARCHAR", False),
    ("flag", "BOOLEAN", False),
    ("url", "VARCHAR", True),
]

WORDS = ["", "alpha", "beta", "gamma", "delta", " lead", "Zeta", "ёлка", "x y", "google.com", "www.google.ru", "beta2"]

# The url column has its own generator so that the other columns stay as
# they were. Newlines are written as the two characters \\n (both loaders
# decode them).
rng2 = random.Random(77)
SCHEMES = ["http://", "https://", "https://www.", "http://www.", "ftp://", ""]
HOSTS = ["google.com", "Google.ru", "mail.google.com", "yandex.ru", "GOOGLE.de", "ёлка.рф",
         "example.org", "news.Example.org", "x.ru", "wiki.org", "googles.net", "Ünïcödé.de"]
PATHS = ["/", "/search?q=1", "/a_b%c", "/100%25", "/Ёжик/в/тумане", "/path/to/page.html",
         "", "/line\\nbreak", "/" + "z" * 300, "/q?x=a_b", "/.google./", "/ end "]

def url():
    r = rng2.random()
    if r < 0.05:
        return None
    if r < 0.12:
        return ""
    if r < 0.15:
        return rng2.choice(["   padded   ", "plain text", "UPPER lower", "\\nlead newline", "ÄÖÜ äöü ß"])
    return rng2.choice(SCHEMES) + rng2.choice(HOSTS) + rng2.choice(PATHS)

def row(i):
    a = None if rng.random() < 0.1 else rng.randint(-5, 20)
    b = None if rng.random() < 0.05 else rng.choice([rng.randint(-1000, 1000), rng.randint(-2**31, 2**31 - 1)])
    big = rng.choice([4_000_000_000_000_000_000 + rng.randint(0, 10**15), rng.randint(-10**12, 10**12), i * 7919])
    u8 = rng.randint(0, 255)
    f = None if rng.random() < 0.08 else round(rng.uniform(-1000, 1000), 2)
    d = None if rng.random() < 0.05 else datetime.date(2013, 7, 1) + datetime.timedelta(days=rng.randint(-40, 40))
    ts = datetime.datetime(2013, 7, 14, 0, 0, 0) + datetime.timedelta(seconds=rng.randint(0, 3 * 86400))
    s = None if rng.random() < 0.07 else rng.choice(WORDS)
    s2 = "k%03d" % rng.randint(0, 400)
    flag = rng.random() < 0.3
    return [i, a, b, big, u8, f, d, ts, s, s2, flag, url()]

def fmt(v):
    if v is None:
        return "\\N"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return str(v)

rows = [row(i) for i in range(N)]
rng.shuffle(rows)  # row order independent of id
os.makedirs(os.path.join(HERE, "data"), exist_ok=True)
with open(os.path.join(HERE, "data", "t.schema"), "w") as out:
    for name, ty, nullable in SCHEMA:
        out.write(f"{name}\t{ty}\t{'null' if nullable else 'not null'}\n")
with open(os.path.join(HERE, "data", "t.tsv"), "w") as out:
    for r in rows:
        out.write("\t".join(fmt(v) for v in r) + "\n")

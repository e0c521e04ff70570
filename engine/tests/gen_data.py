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


# A second table of DECIMAL columns (own RNG: table t stays as it was).
DEC_N = 600
DEC_SCHEMA = [
    ("id", "BIGINT", False),
    ("p", "DECIMAL(15,2)", False),
    ("q", "DECIMAL(4,2)", True),
    ("r", "DECIMAL(18,6)", True),
    ("w", "DECIMAL(9,0)", True),
    ("k", "INTEGER", True),
]


def dec_value(rng3, p, s):
    """A value of DECIMAL(p, s): mostly small and clustered (repeats), some
    at the type's limits, written with exactly s places."""
    r = rng3.random()
    top = 10 ** p - 1
    if r < 0.05:
        x = rng3.choice([top, -top, 0, 1, -1])
    elif r < 0.5:
        x = rng3.randint(0, 12)  # 0.00 .. 0.12 at scale 2: the TPC-H discounts
    else:
        x = rng3.randint(-min(top, 10 ** (s + 3)), min(top, 10 ** (s + 3)))
    sign = "-" if x < 0 else ""
    a = abs(x)
    if s == 0:
        return f"{sign}{a}"
    return f"{sign}{a // 10 ** s}.{a % 10 ** s:0{s}d}"


def write_dec():
    rng3 = random.Random(4242)
    with open(os.path.join(HERE, "data", "dec.schema"), "w") as f:
        for name, ty, nullable in DEC_SCHEMA:
            f.write(f"{name}\t{ty}\t{'null' if nullable else 'not null'}\n")
    with open(os.path.join(HERE, "data", "dec.tsv"), "w") as f:
        for i in range(DEC_N):
            row = [str(i)]
            for name, ty, nullable in DEC_SCHEMA[1:]:
                if nullable and rng3.random() < 0.08:
                    row.append("\\N")
                elif ty == "INTEGER":
                    row.append(str(rng3.randint(-5, 5)))
                else:
                    p, s = (int(x) for x in ty[8:-1].split(","))
                    row.append(dec_value(rng3, p, s))
            f.write("\t".join(row) + "\n")


if __name__ == "__main__":
    write_dec()


def write_table(name, schema, rows):
    with open(os.path.join(HERE, "data", f"{name}.schema"), "w") as f:
        for col, ty, nullable in schema:
            f.write(f"{col}\t{ty}\t{'null' if nullable else 'not null'}\n")
    with open(os.path.join(HERE, "data", f"{name}.tsv"), "w") as f:
        for r in rows:
            f.write("\t".join("\\N" if v is None else str(v) for v in r) + "\n")


def write_join_tables():
    """u: 300 rows to join with t (keys with NULLs and duplicates, some
    without a match); e: a table with no rows."""
    rng4 = random.Random(99)
    schema = [
        ("uid", "INTEGER", False),
        ("a", "SMALLINT", True),
        ("s", "VARCHAR", True),
        ("tid", "BIGINT", True),
        ("v", "DOUBLE", True),
    ]
    rows = []
    for i in range(300):
        a = None if rng4.random() < 0.1 else rng4.randint(-6, 22)
        s = None if rng4.random() < 0.1 else rng4.choice(WORDS + ["only-in-u"])
        tid = None if rng4.random() < 0.05 else rng4.randint(0, 2500)
        v = None if rng4.random() < 0.1 else round(rng4.uniform(-100, 100), 2)
        rows.append((i, a, s, tid, v))
    write_table("u", schema, rows)
    write_table("e", [("id", "BIGINT", True), ("a", "SMALLINT", True), ("s", "VARCHAR", True)], [])


if __name__ == "__main__":
    write_join_tables()

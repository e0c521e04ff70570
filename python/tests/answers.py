"""Comparing a query's answer from strata.ray with the single-process one:
exact where the answer is unique, else tie-aware (the suite checks of
bench/src/suite/check.rs): without ORDER BY a multiset; under LIMIT, every
row belongs to the answer without LIMIT and the ORDER BY key columns match
row by row."""

import math
import re


def _top(sql, word):
    """Offsets of `word` at parenthesis depth 0, outside quotes."""
    out, depth, quote = [], 0, None
    low = sql.lower()
    for i, c in enumerate(sql):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif depth == 0 and low.startswith(word, i):
            before = sql[i - 1] if i else " "
            after = sql[i + len(word)] if i + len(word) < len(sql) else " "
            if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
                out.append(i)
    return out


def _split_commas(s):
    out, depth, quote, cur = [], 0, None, ""
    for c in s:
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        cur += c
    if cur.strip():
        out.append(cur.strip())
    return out


def _norm(s):
    return re.sub(r"\s+", "", s).lower()


class Shape:
    """What the check needs of a query's text."""

    def __init__(self, sql):
        sql = sql.strip().rstrip(";").strip()
        limit = [i for i in (_top(sql, "limit")[:1] + _top(sql, "offset")[:1])]
        end = min(limit) if limit else len(sql)
        self.has_limit = bool(limit)
        self.without_limit = sql[:end].strip()
        orders = [i for i in _top(sql, "order") if sql[i + 5 :].lstrip().lower().startswith("by")]
        self.has_order_by = bool(orders)
        s, f = _top(sql, "select"), _top(sql, "from")
        self.select = []
        if s and f:
            for item in _split_commas(sql[s[0] + 6 : f[0]]):
                at = _top(item, "as")
                alias = item[at[-1] + 2 :].strip().strip('"') if at else None
                self.select.append((item[: at[-1]].strip() if at else item, alias))
        self.order = []
        if orders and orders[0] < end:
            by = sql.lower().index("by", orders[0]) + 2
            for item in _split_commas(sql[by:end]):
                item = re.sub(r"\s+(asc|desc|nulls\s+first|nulls\s+last)\s*$", "", item, flags=re.I)
                item = re.sub(r"\s+(asc|desc)\s*$", "", item, flags=re.I)
                self.order.append(item.strip())

    def key_columns(self, names):
        star = any(e == "*" for e, _ in self.select)
        keys = []
        for item in self.order:
            n = _norm(item)
            found = None
            if not star:
                for j, (e, a) in enumerate(self.select):
                    if _norm(e) == n or (a is not None and _norm(a) == n):
                        found = j
                        break
            if found is None:
                found = next((j for j, c in enumerate(names) if _norm(c) == n), None)
            if found is not None and found < len(names) and found not in keys:
                keys.append(found)
        return keys


def cell_eq(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9)
    return a == b


def row_eq(a, b):
    return len(a) == len(b) and all(cell_eq(x, y) for x, y in zip(a, b))


def _key(row):
    return tuple((v is None, str(type(v)), repr(v)) for v in row)


def rows_of(table):
    cols = [c.to_pylist() for c in table.columns]
    return [tuple(c[i] for c in cols) for i in range(table.num_rows)]


def same_rows(a, b, ordered):
    if len(a) != len(b):
        return False
    if not ordered:
        a, b = sorted(a, key=_key), sorted(b, key=_key)
    return all(row_eq(x, y) for x, y in zip(a, b))


def check(sql, got, want, full=None):
    """`got` (a pyarrow.Table from strata.ray) against `want` (the single
    process's); `full()` gives the single-process answer without LIMIT.
    Returns None when they agree, else why not."""
    shape = Shape(sql)
    if got.schema != want.schema:
        return f"schema {got.schema} vs {want.schema}"
    g, w = rows_of(got), rows_of(want)
    if same_rows(g, w, shape.has_order_by):
        return None
    if not shape.has_limit or full is None:
        return f"rows differ: {g[:5]} vs {w[:5]}"
    if len(g) != len(w):
        return f"{len(g)} rows, single process {len(w)}"
    everything = rows_of(full())
    left = {}
    for r in everything:
        left[_key(r)] = left.get(_key(r), 0) + 1
    for r in g:
        if left.get(_key(r), 0) > 0:
            left[_key(r)] -= 1
        elif not any(row_eq(r, f) for f in everything):
            return f"row {r} is not in the answer without LIMIT"
    if shape.has_order_by:
        for i, (x, y) in enumerate(zip(g, w)):
            for k in shape.key_columns(got.column_names):
                if not cell_eq(x[k], y[k]):
                    return f"row {i}: ORDER BY key {got.column_names[k]} is {x[k]!r}, single process {y[k]!r}"
    return None

"""Arrow, pandas and polars results, against DuckDB's."""

import duckdb
import pyarrow as pa
import pytest
from conftest import ROWS

QUERY = "SELECT * FROM t ORDER BY id"


def test_arrow_as_duckdb(con, duck):
    got = con.sql(QUERY).arrow()
    want = duck.sql(QUERY).to_arrow_table()
    assert isinstance(got, pa.Table)
    assert got.num_rows == ROWS
    assert got.schema.names == want.schema.names
    for name in want.schema.names:
        # Same Arrow types, DECIMAL(p, s) and TIMESTAMP included.
        assert got.schema.field(name).type == want.schema.field(name).type, name
    assert got.to_pylist() == want.to_pylist()


def test_pycapsule_consumers(con, duck):
    rel = con.sql("SELECT tiny, sum(big) AS s FROM t GROUP BY tiny ORDER BY tiny")
    want = duck.sql("SELECT tiny, sum(big) AS s FROM t GROUP BY tiny ORDER BY tiny").fetchall()
    # pyarrow and DuckDB read the relation through __arrow_c_stream__.
    assert pa.RecordBatchReader.from_stream(rel).read_all().num_rows == len(want)
    assert duckdb.sql("SELECT * FROM rel").fetchall() == want


def test_record_batches(con):
    reader = con.sql(QUERY).fetch_record_batches(rows_per_batch=3000)
    batches = list(reader)
    assert [b.num_rows for b in batches] == [3000] * 6 + [2000]
    assert pa.Table.from_batches(batches).equals(con.sql(QUERY).arrow())


def test_empty_result_keeps_schema(con):
    table = con.sql("SELECT id, name FROM t WHERE id < 0").arrow()
    assert table.num_rows == 0
    assert table.schema.names == ["id", "name"]
    assert table.schema.field("id").type == pa.int64()


def test_pandas_round_trip(con, duck):
    df = con.sql(QUERY).df()
    want = duck.sql(QUERY).df()
    assert list(df.columns) == list(want.columns)
    assert len(df) == ROWS
    # Back through DuckDB: the frame holds the same values as the file.
    back = duckdb.sql("SELECT * FROM df ORDER BY id").fetchall()
    assert back == duck.sql(QUERY).fetchall()
    for col in ("id", "tiny", "small", "big", "ratio", "flag"):
        assert df[col].dtype == want[col].dtype, col


def test_polars(con, duck):
    pl = pytest.importorskip("polars")
    frame = con.sql(QUERY).pl()
    assert isinstance(frame, pl.DataFrame)
    assert frame.to_arrow().to_pylist() == duck.sql(QUERY).to_arrow_table().to_pylist()

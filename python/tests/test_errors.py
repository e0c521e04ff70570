"""Errors: each kind of strata error as its own exception class, all
subclasses of strata.Error, carrying strata's message."""

import os
import shutil

import pytest

import strata


def test_hierarchy():
    for name in strata._exceptions.__all__:
        cls = getattr(strata, name)
        if name != "Warning":
            assert issubclass(cls, strata.Error), name
    assert issubclass(strata.ParserError, strata.ProgrammingError)
    assert issubclass(strata.NotFoundError, strata.ProgrammingError)
    assert issubclass(strata.OutOfMemoryError, strata.OperationalError)
    assert issubclass(strata.CorruptDataError, strata.DatabaseError)
    assert issubclass(strata.NotSupportedError, strata.DatabaseError)


def test_syntax_error_points_at_the_problem(con):
    with pytest.raises(strata.ParserError) as e:
        con.sql("SELECT id FRM t")
    assert "syntax error" in str(e.value)
    assert "line 1: SELECT id FRM t" in str(e.value)
    assert "^" in str(e.value)


def test_missing_table(con):
    with pytest.raises(strata.NotFoundError, match="nosuch"):
        con.sql("SELECT * FROM nosuch")


def test_missing_column_suggests(con):
    with pytest.raises(strata.NotFoundError, match='did you mean "name"'):
        con.sql("SELECT nmae FROM t")


def test_type_error(con):
    with pytest.raises(strata.InvalidInputError):
        con.sql("SELECT sum(name) FROM t")


def test_missing_input_file(con, tmp_path):
    with pytest.raises(strata.NotFoundError):
        con.sql(f"SELECT * FROM '{tmp_path}/missing.parquet'")


def test_missing_database_directory(tmp_path):
    with pytest.raises(strata.NotFoundError):
        strata.connect(str(tmp_path / "nope"))


def test_too_large(db_dir):
    con = strata.connect(db_dir, memory_limit="1MB")
    with pytest.raises(strata.OutOfMemoryError, match="too large"):
        con.sql("SELECT * FROM t")
    # The connection stays usable.
    assert con.sql("SELECT 42").fetchall() == [(42,)]


def test_bad_memory_limit(db_dir):
    with pytest.raises(strata.InvalidInputError):
        strata.connect(db_dir, memory_limit="lots")
    with pytest.raises(strata.InvalidInputError):
        strata.connect(db_dir, threads=0)


def test_corrupt_table(db_dir, tmp_path):
    copy = tmp_path / "db"
    shutil.copytree(os.path.join(db_dir, "t"), copy / "t")
    # Flip a byte every 256 bytes of every block file: whatever the query
    # reads fails its checksum.
    blocks = [p for p in (copy / "t").iterdir() if p.name != "MANIFEST"]
    assert blocks
    for p in blocks:
        data = bytearray(p.read_bytes())
        for i in range(128, len(data), 256):
            data[i] ^= 0xFF
        p.write_bytes(bytes(data))
    con = strata.connect(str(copy))
    with pytest.raises(strata.CorruptDataError, match="corrupt"):
        con.sql("SELECT * FROM t ORDER BY id").fetchall()


def test_closed_connection(db_dir):
    con = strata.connect(db_dir)
    cur = con.cursor()
    con.close()
    with pytest.raises(strata.InterfaceError):
        con.sql("SELECT 1")
    with pytest.raises(strata.InterfaceError):
        cur.execute("SELECT 1")
    with pytest.raises(strata.InterfaceError):
        con.fetchall()

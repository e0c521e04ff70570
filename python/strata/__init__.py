"""strata: SQL over memory-mapped columnar tables and CSV/TSV/Parquet files.

The API takes DuckDB's shape::

    import strata
    con = strata.connect("data")              # a directory of strata tables
    con.ingest(["hits.parquet"], table="hits")
    con.sql("SELECT RegionID, count(*) FROM hits GROUP BY 1").show()
    table = con.sql("SELECT * FROM 'events.csv' WHERE x > ?", [3]).arrow()

:func:`connect` returns a :class:`Connection`; ``con.sql`` returns a
:class:`Relation` (a query's result) with ``arrow()``, ``df()``, ``pl()``,
``fetchall()`` and the rest; ``con.execute`` / ``con.cursor()`` follow DB-API
2.0. Queries run with the GIL released; Ctrl-C stops a running query and
raises ``KeyboardInterrupt``. Errors are subclasses of :class:`Error`.
"""

from __future__ import annotations

import os
import re
from typing import Any, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from . import _exceptions, _strata
from ._exceptions import (
    CannotSplitError,
    CorruptDataError,
    DatabaseError,
    DataError,
    Error,
    IntegrityError,
    InterfaceError,
    InternalError,
    InterruptError,
    InvalidInputError,
    NotFoundError,
    NotSupportedError,
    OperationalError,
    OutOfMemoryError,
    ParserError,
    ProgrammingError,
    StorageError,
    Warning,
)

__version__: str = _strata.__version__

#: DB-API 2.0 module globals.
apilevel = "2.0"
threadsafety = 1
paramstyle = "qmark"

__all__ = [
    "connect",
    "Connection",
    "Cursor",
    "Relation",
    "apilevel",
    "threadsafety",
    "paramstyle",
    *_exceptions.__all__,
]

_UNITS = {
    "": 1,
    "b": 1,
    "kb": 1000,
    "mb": 1000**2,
    "gb": 1000**3,
    "tb": 1000**4,
    "kib": 1024,
    "mib": 1024**2,
    "gib": 1024**3,
    "tib": 1024**4,
}


def _parse_bytes(value: Union[int, str]) -> int:
    """``4000000000``, ``"4GB"`` or ``"512 MiB"`` as a number of bytes."""
    if isinstance(value, bool):
        raise InvalidInputError(f"memory_limit must be bytes or a size such as '4GB', not {value!r}")
    if isinstance(value, int):
        if value <= 0:
            raise InvalidInputError(f"memory_limit must be positive, not {value}")
        return value
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?)\s*([a-zA-Z]*)\s*", str(value))
    unit = m.group(2).lower() if m else None
    if m is None or unit not in _UNITS:
        raise InvalidInputError(
            f"memory_limit must be bytes or a size such as '4GB' or '512MiB', not {value!r}"
        )
    n = int(float(m.group(1)) * _UNITS[unit])
    if n <= 0:
        raise InvalidInputError(f"memory_limit must be positive, not {value!r}")
    return n


def connect(
    path: Union[str, "os.PathLike[str]"] = ".",
    memory_limit: Union[int, str, None] = None,
    threads: Optional[int] = None,
    cache_dir: Union[str, "os.PathLike[str]", None] = None,
) -> "Connection":
    """Opens the directory ``path`` of strata tables.

    ``FROM hits`` then reads the table ``<path>/hits``; a quoted path
    (``FROM 'data/hits'``) is opened as written, and input files are queried
    in place (``FROM 'x.parquet'``, ``FROM 'logs/*.csv'``,
    ``FROM read_csv('x.txt', delim=';')``): the first query loads them into a
    table in ``cache_dir`` (default ``~/.cache/strata``), later ones reuse it
    while the files are unchanged.

    ``memory_limit``: bytes (or a size such as ``"4GB"``) each result may
    hold (default: 80% of memory); past it a query raises
    :class:`OutOfMemoryError`. ``threads``: worker threads per query (default:
    one per core).
    """
    return Connection(path, memory_limit=memory_limit, threads=threads, cache_dir=cache_dir)


def _params(parameters: Optional[Sequence[Any]]) -> Optional[List[Any]]:
    if parameters is None:
        return None
    if isinstance(parameters, dict):
        raise NotSupportedError("named parameters are not supported: use ? or $1 with a list")
    if isinstance(parameters, (str, bytes)):
        raise InvalidInputError("parameters must be a list or tuple of values, not a string")
    return list(parameters)


class Relation:
    """The result of a query: named, typed columns.

    Rows can be fetched once in order (``fetchone``, ``fetchmany``,
    ``fetchall`` continue where the last one stopped); ``arrow()``, ``df()``
    and ``pl()`` always return the whole result. The object implements the
    Arrow PyCapsule interface (``__arrow_c_stream__``), so
    ``pyarrow.table(rel)``, ``polars.DataFrame(rel)`` and DuckDB read it
    directly.
    """

    def __init__(self, result: "_strata.Result", query: str, connection: "Connection") -> None:
        self._result = result
        self._query = query
        self._connection = connection
        self._pos = 0

    @property
    def columns(self) -> List[str]:
        """Column names, in select-list order."""
        return self._result.columns

    @property
    def types(self) -> List[str]:
        """Column types as SQL type names (``BIGINT``, ``DECIMAL(10,2)``, ``VARCHAR``, ...)."""
        return self._result.types

    dtypes = types

    @property
    def shape(self) -> Tuple[int, int]:
        """(rows, columns)."""
        return (self._result.num_rows, len(self._result.columns))

    def __len__(self) -> int:
        return self._result.num_rows

    @property
    def description(self) -> List[Tuple[str, str, None, None, None, None, None]]:
        """DB-API 2.0 column descriptions: (name, type name, None x 5)."""
        return [(n, t, None, None, None, None, None) for n, t in zip(self.columns, self.types)]

    def fetchone(self) -> Optional[Tuple[Any, ...]]:
        """The next row, or None after the last."""
        rows = self._result.rows(self._pos, self._pos + 1)
        self._pos += len(rows)
        return rows[0] if rows else None

    def fetchmany(self, size: int = 1) -> List[Tuple[Any, ...]]:
        """The next ``size`` rows (fewer at the end)."""
        rows = self._result.rows(self._pos, self._pos + max(size, 0))
        self._pos += len(rows)
        return rows

    def fetchall(self) -> List[Tuple[Any, ...]]:
        """The remaining rows."""
        rows = self._result.rows(self._pos, self._result.num_rows)
        self._pos += len(rows)
        return rows

    def __iter__(self) -> Iterator[Tuple[Any, ...]]:
        while True:
            rows = self.fetchmany(1024)
            if not rows:
                return
            yield from rows

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        """The Arrow PyCapsule stream interface."""
        return self._result.__arrow_c_stream__(requested_schema)

    def fetch_record_batches(self, rows_per_batch: int = 1_000_000) -> "Any":
        """The result as a ``pyarrow.RecordBatchReader`` of batches of at most
        ``rows_per_batch`` rows (sharing the result's memory)."""
        pa = _pyarrow()
        if rows_per_batch < 1:
            raise InvalidInputError("rows_per_batch must be at least 1")
        return pa.RecordBatchReader._import_from_c_capsule(self._result.arrow_stream(rows_per_batch))

    def arrow(self) -> "Any":
        """The result as a ``pyarrow.Table``, through the Arrow C data interface."""
        pa = _pyarrow()
        return pa.RecordBatchReader._import_from_c_capsule(self._result.arrow_stream()).read_all()

    fetch_arrow_table = arrow
    to_arrow_table = arrow

    def df(self) -> "Any":
        """The result as a ``pandas.DataFrame`` (through Arrow)."""
        return self.arrow().to_pandas()

    fetchdf = df
    to_df = df

    def pl(self) -> "Any":
        """The result as a ``polars.DataFrame`` (through Arrow, no copy)."""
        try:
            import polars
        except ImportError as e:
            raise ImportError("Relation.pl() needs polars: pip install polars") from e
        return polars.from_arrow(self.arrow())

    def explain(self) -> str:
        """The query's plan and the strategy chosen for each block."""
        return self._connection.explain(self._query)

    def show(self, max_rows: int = 20) -> None:
        """Prints the first ``max_rows`` rows as a table."""
        print(self._result.render(max(max_rows, 0)), end="")

    def __str__(self) -> str:
        return self._result.render(20)

    def __repr__(self) -> str:
        return self._result.render(20)


def _pyarrow() -> Any:
    try:
        import pyarrow
    except ImportError as e:
        raise ImportError("Arrow, pandas and polars results need pyarrow: pip install pyarrow") from e
    return pyarrow


class Cursor:
    """A DB-API 2.0 cursor: ``execute`` a query, then ``fetch*`` its rows."""

    arraysize: int = 1

    def __init__(self, connection: "Connection") -> None:
        self._connection = connection
        self._relation: Optional[Relation] = None
        self._closed = False

    @property
    def connection(self) -> "Connection":
        """The connection this cursor belongs to."""
        return self._connection

    def _db(self) -> "_strata.Database":
        if self._closed:
            raise InterfaceError("the cursor is closed")
        return self._connection._database()

    def execute(self, query: str, parameters: Optional[Sequence[Any]] = None) -> "Cursor":
        """Runs ``query`` with ``parameters`` for its ``?`` (in order) or
        ``$1``, ``$2`` placeholders; the rows are then fetched from the
        cursor. Returns the cursor."""
        result = self._db().query(query, _params(parameters))
        self._relation = Relation(result, query, self._connection)
        return self

    def executemany(self, query: str, seq_of_parameters: Iterable[Sequence[Any]]) -> "Cursor":
        """Runs ``query`` once per parameter list; the last result is kept."""
        for parameters in seq_of_parameters:
            self.execute(query, parameters)
        return self

    def _current(self) -> Relation:
        if self._closed:
            raise InterfaceError("the cursor is closed")
        if self._relation is None:
            raise InterfaceError("no query has been executed")
        return self._relation

    @property
    def description(self) -> Optional[List[Tuple[str, str, None, None, None, None, None]]]:
        """Column descriptions of the last query, None before the first."""
        return None if self._relation is None else self._relation.description

    @property
    def rowcount(self) -> int:
        """Rows in the last query's result (-1 before the first)."""
        return -1 if self._relation is None else len(self._relation)

    def fetchone(self) -> Optional[Tuple[Any, ...]]:
        """The next row of the last result, or None."""
        return self._current().fetchone()

    def fetchmany(self, size: Optional[int] = None) -> List[Tuple[Any, ...]]:
        """The next ``size`` (default ``arraysize``) rows of the last result."""
        return self._current().fetchmany(self.arraysize if size is None else size)

    def fetchall(self) -> List[Tuple[Any, ...]]:
        """The remaining rows of the last result."""
        return self._current().fetchall()

    def arrow(self) -> Any:
        """The last result as a ``pyarrow.Table``."""
        return self._current().arrow()

    fetch_arrow_table = arrow

    def df(self) -> Any:
        """The last result as a ``pandas.DataFrame``."""
        return self._current().df()

    fetchdf = df

    def pl(self) -> Any:
        """The last result as a ``polars.DataFrame``."""
        return self._current().pl()

    def fetch_record_batches(self, rows_per_batch: int = 1_000_000) -> Any:
        """The last result as a ``pyarrow.RecordBatchReader``."""
        return self._current().fetch_record_batches(rows_per_batch)

    def __iter__(self) -> Iterator[Tuple[Any, ...]]:
        return iter(self._current())

    def setinputsizes(self, sizes: Any) -> None:
        """DB-API 2.0; does nothing."""

    def setoutputsize(self, size: Any, column: Any = None) -> None:
        """DB-API 2.0; does nothing."""

    def close(self) -> None:
        """Closes the cursor; later calls raise :class:`InterfaceError`."""
        self._closed = True
        self._relation = None

    def __enter__(self) -> "Cursor":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class Connection(Cursor):
    """A directory of strata tables (see :func:`connect`).

    Also a cursor, as in DuckDB: ``con.execute(q).fetchall()``. Connections
    share nothing but the files; one connection may be used from several
    threads (queries run in parallel), but its own cursor state is not
    thread-safe: give each thread a ``cursor()``.
    """

    def __init__(
        self,
        path: Union[str, "os.PathLike[str]"] = ".",
        memory_limit: Union[int, str, None] = None,
        threads: Optional[int] = None,
        cache_dir: Union[str, "os.PathLike[str]", None] = None,
    ) -> None:
        if threads is not None and (isinstance(threads, bool) or threads < 1):
            raise InvalidInputError(f"threads must be at least 1, not {threads!r}")
        self._handle: Optional[_strata.Database] = _strata.Database(
            os.fspath(path),
            None if memory_limit is None else _parse_bytes(memory_limit),
            threads,
            None if cache_dir is None else os.fspath(cache_dir),
        )
        super().__init__(self)

    def _database(self) -> "_strata.Database":
        if self._handle is None:
            raise InterfaceError("the connection is closed")
        return self._handle

    @property
    def path(self) -> str:
        """The database directory."""
        return str(self._database().path)

    @property
    def threads(self) -> int:
        """Worker threads each query runs on."""
        return self._database().threads

    def cursor(self) -> Cursor:
        """A new cursor on this connection."""
        self._database()
        return Cursor(self)

    def sql(self, query: str, params: Optional[Sequence[Any]] = None) -> Relation:
        """Runs ``query`` (with ``params`` for its placeholders) and returns its result."""
        return Relation(self._database().query(query, _params(params)), query, self)

    query = sql

    def table(self, name: str) -> Relation:
        """All rows of table ``name``."""
        return self.sql('SELECT * FROM "' + name.replace('"', '""') + '"')

    def explain(self, query: str) -> str:
        """The plan of ``query`` and the strategy chosen for each block."""
        return self._database().explain(query)

    def tables(self) -> List[str]:
        """Names of the tables in the directory, sorted."""
        return self._database().tables()

    def interrupt(self) -> None:
        """Interrupts the queries running on this connection now (from another
        thread); they raise :class:`InterruptError`."""
        self._database().interrupt()

    def ingest(
        self,
        files: Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]],
        table: Union[str, "os.PathLike[str]"],
        schema: Union[str, "dict[str, str]", None] = None,
        format: Optional[str] = None,
        sort_by: Union[str, Sequence[str], None] = None,
        *,
        block_rows: Optional[int] = None,
        delimiter: Optional[str] = None,
        header: Optional[bool] = None,
        null: Optional[str] = None,
        append: bool = False,
        max_errors: int = 0,
    ) -> "dict[str, Any]":
        """Loads CSV, TSV or Parquet ``files`` (paths or globs; ``.gz`` and
        ``.zst`` are decompressed) into the table ``table`` (a name inside the
        database directory, or a path), as ``strata ingest`` does.

        ``schema``: a ``CREATE TABLE`` statement, a path to a file holding
        one, or a dict of column name to SQL type; by default the types come
        from Parquet metadata or are inferred from a sample of the text.
        ``format``: ``"csv"``, ``"tsv"`` or ``"parquet"`` (default: from the
        extension). ``sort_by``: columns to sort the rows by (default: the
        schema's ORDER BY or primary key). Returns a summary (rows, blocks,
        bytes read and written, seconds).
        """
        if isinstance(files, (str, os.PathLike)):
            files = [files]
        files = [os.fspath(f) for f in files]
        if isinstance(sort_by, str):
            sort_by = [c.strip() for c in sort_by.split(",") if c.strip()]
        return self._database().ingest(
            files,
            os.fspath(table),
            _schema_sql(schema, os.fspath(table)),
            format,
            None if sort_by is None else list(sort_by),
            block_rows,
            delimiter,
            header,
            null,
            append,
            max_errors,
        )

    def commit(self) -> None:
        """DB-API 2.0; strata has no transactions: does nothing."""
        self._database()

    def rollback(self) -> None:
        """DB-API 2.0; strata has no transactions."""
        raise NotSupportedError("strata has no transactions")

    def close(self) -> None:
        """Closes the connection; later calls raise :class:`InterfaceError`."""
        self._handle = None
        super().close()

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _schema_sql(schema: Union[str, "dict[str, str]", None], table: str) -> Optional[str]:
    """A schema argument as a CREATE TABLE statement."""
    if schema is None:
        return None
    if isinstance(schema, dict):
        name = os.path.basename(table.rstrip("/")) or "t"
        cols = ", ".join('"' + c.replace('"', '""') + '" ' + t for c, t in schema.items())
        return f'CREATE TABLE "{name}" ({cols})'
    if re.match(r"\s*create\s", schema, re.IGNORECASE):
        return schema
    try:
        with open(schema, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise NotFoundError(f"reading schema file {schema}: {e}") from e

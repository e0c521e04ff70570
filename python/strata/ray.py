"""strata queries distributed on Ray.

::

    import ray, strata.ray
    ray.init()
    top = strata.ray.sql(
        "SELECT RegionID, count(*) AS c FROM hits GROUP BY RegionID ORDER BY c DESC LIMIT 10",
        tables={"hits": "/shared/db/hits"},
        num_tasks=8,
    )                                   # a pyarrow.Table
    ds = strata.ray.read_table("/shared/db/hits", columns=["URL"])   # a Ray Dataset

:func:`sql` splits the query for tasks that each read some blocks of its
largest table (block counts come from the table's manifest), runs those
partial plans as Ray tasks, merges their partial results (Arrow IPC, through
Ray's object store) in a tree of combine tasks when there are many, and
finishes in the driver. The answer is the one ``strata.connect(...).sql``
gives in one process. The split itself is strata's (the Rust library's
``Database::split``): aggregates travel as mergeable states, ``ORDER BY ...
LIMIT`` as each task's first rows, plain filters as rows. A query that cannot
be split raises :class:`strata.CannotSplitError` before any task starts.

Every task opens the tables by path, so on a cluster the tables must be on
storage every node reads (a shared file system) at the same path.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import tempfile
import time
from typing import Any, Dict, Iterator, List, Optional, Sequence, Union

from . import _params, _pyarrow, _strata
from ._exceptions import Error, InvalidInputError, NotFoundError, OperationalError

try:
    from ray.data.datasource import Datasource as _Datasource
except ImportError:  # pragma: no cover - Ray (or Ray Data) not installed
    _Datasource = object

__all__ = ["sql", "read_table", "explain", "StrataDatasource", "TaskFailedError"]

_Source = Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]]


class TaskFailedError(OperationalError):
    """A task of a distributed query failed outside strata: its worker died or
    Ray lost its result. The query's other tasks were cancelled."""


def _ray() -> Any:
    try:
        import ray
    except ImportError as e:  # pragma: no cover - depends on the installation
        raise ImportError("strata.ray needs Ray: pip install ray") from e
    return ray


def _is_table(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "MANIFEST"))


def _resolve(
    tables: Dict[str, _Source], workdir: Optional[str], threads: Optional[int]
) -> Dict[str, str]:
    """Each table's directory: given, or the files loaded into ``workdir``."""
    if not isinstance(tables, dict) or not tables:
        raise InvalidInputError("tables must be a dict of table name to a table directory or files")
    out: Dict[str, str] = {}
    for name, source in tables.items():
        if not isinstance(name, str) or not name or "/" in name or name.startswith("."):
            raise InvalidInputError(f"table name {name!r} must be a plain name")
        if isinstance(source, (str, os.PathLike)):
            path = os.fspath(source)
            if os.path.isdir(path):
                if not _is_table(path):
                    raise NotFoundError(f"table {name!r}: {path} is a directory without a strata table (no MANIFEST)")
                out[name] = os.path.abspath(path)
                continue
            files = [path]
        else:
            files = [os.fspath(f) for f in source]
        if not files:
            raise InvalidInputError(f"table {name!r}: no files given")
        if workdir is None:
            raise InvalidInputError("files need a workdir to be loaded into")
        from . import connect

        con = connect(workdir, threads=threads)
        try:
            target = os.path.join(workdir, name)
            con.ingest(files, table=target)
        finally:
            con.close()
        out[name] = target
    return out


#: Link directories are named for their process: one whose process is gone
#: (a Ray worker is often killed, its exit handlers never run) is removed by
#: the next one made on the machine.
_LINKS_PREFIX = "strata-ray-links-"


def _sweep_link_dirs() -> None:
    """Removes the link directories of processes no longer running."""
    tmp = tempfile.gettempdir()
    try:
        names = os.listdir(tmp)
    except OSError:
        return
    for name in names:
        if not name.startswith(_LINKS_PREFIX):
            continue
        pid = name[len(_LINKS_PREFIX):].split("-", 1)[0]
        if not pid.isdigit() or _alive(int(pid)):
            continue
        shutil.rmtree(os.path.join(tmp, name), ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


@contextlib.contextmanager
def _catalog(tables: Dict[str, str], threads: Optional[int]) -> Iterator["_strata.Database"]:
    """A database whose tables are ``tables`` (name to directory), through a
    private directory of links, removed afterwards."""
    _sweep_link_dirs()
    d = tempfile.mkdtemp(prefix=f"{_LINKS_PREFIX}{os.getpid()}-")
    try:
        for name, path in tables.items():
            os.symlink(path, os.path.join(d, name))
        yield _strata.Database(d, None, threads, os.path.join(d, ".cache"))
    finally:
        shutil.rmtree(d, ignore_errors=True)


#: A worker process's open databases, by tables and threads: tasks of later
#: queries find the tables open and what earlier ones decoded still cached.
_OPEN: Dict[Any, Any] = {}


def _worker_db(tables: Dict[str, str], threads: Optional[int]) -> "_strata.Database":
    key = (tuple(sorted(tables.items())), threads)
    entry = _OPEN.get(key)
    if entry is None:
        if len(_OPEN) >= 8:
            old = _OPEN.pop(next(iter(_OPEN)))
            old.__exit__(None, None, None)
        entry = _catalog(tables, threads)
        db = entry.__enter__()
        _OPEN[key] = entry
        entry.db = db  # type: ignore[attr-defined]
        if len(_OPEN) == 1:
            atexit.register(_close_all)
    return entry.db  # type: ignore[attr-defined]


def _close_all() -> None:
    while _OPEN:
        _OPEN.popitem()[1].__exit__(None, None, None)


def _partial_task(
    tables: Dict[str, str], query: str, params: Optional[List[Any]], blocks: List[int], threads: Optional[int]
) -> bytes:
    return _worker_db(tables, threads).partial(query, blocks, params)


def _combine_task(
    tables: Dict[str, str], query: str, params: Optional[List[Any]], threads: Optional[int], *parts: bytes
) -> bytes:
    return _worker_db(tables, threads).combine(query, list(parts), params)


def _read_task(path: str, columns: Optional[List[str]], blocks: List[int], threads: Optional[int]) -> List[Any]:
    pa = _pyarrow()
    db = _worker_db({"t": path}, threads)
    return [pa.ipc.open_stream(db.partial(_select(columns), [b])).read_all() for b in blocks]


def _task_groups(block_rows: Sequence[int], tasks: int) -> List[List[int]]:
    """Blocks ``0..n`` in at most ``tasks`` contiguous groups of about equal
    rows (blocks without rows left out)."""
    blocks = [b for b, r in enumerate(block_rows) if r > 0]
    if not blocks:
        return []
    tasks = max(1, min(tasks, len(blocks)))
    total = sum(block_rows[b] for b in blocks)
    groups: List[List[int]] = [[] for _ in range(tasks)]
    seen = 0
    for b in blocks:
        # The group of the block's first row.
        g = min(tasks - 1, seen * tasks // total)
        groups[g].append(b)
        seen += block_rows[b]
    return [g for g in groups if g]


def _cancel(ray: Any, refs: List[Any]) -> None:
    """Cancels every task of ``refs`` and waits (briefly) until none runs."""
    for r in refs:
        try:
            ray.cancel(r, force=True)
        except Exception:  # noqa: BLE001 - a finished or lost task: nothing to stop
            pass
    with contextlib.suppress(Exception):
        ray.wait(refs, num_returns=len(refs), timeout=30)


def _translate(ray: Any, e: BaseException) -> BaseException:
    """A task's failure as the exception to raise in the driver: strata's own
    error when the task raised one, else :class:`TaskFailedError`."""
    cause = getattr(e, "cause", None)
    if isinstance(cause, Error):
        return cause
    if isinstance(e, ray.exceptions.RayError):
        return TaskFailedError(f"a task of the distributed query failed: {type(e).__name__}: {e}")
    return e


def sql(
    query: str,
    tables: Dict[str, _Source],
    num_tasks: Optional[int] = None,
    parameters: Optional[Sequence[Any]] = None,
    *,
    fanin: int = 16,
    threads: Optional[int] = None,
    retries: int = 0,
    workdir: Optional[str] = None,
    ray_remote_args: Optional[Dict[str, Any]] = None,
    stats: Optional[Dict[str, Any]] = None,
) -> Any:
    """Runs ``query`` as Ray tasks; returns its answer as a ``pyarrow.Table``.

    ``tables`` names the tables the query reads: a strata table directory,
    or input files (a path, a glob, or a list) that are loaded into a table
    under ``workdir`` first (a temporary directory by default, removed
    afterwards; on a cluster, give a shared directory). ``num_tasks``: tasks
    reading the largest table's blocks (default: the cluster's CPUs), each
    on ``threads`` strata threads (default 1) and one Ray CPU.
    ``parameters``: values for ``?`` / ``$1`` placeholders.

    Partial results merge in a tree: while more than ``fanin`` remain, Ray
    tasks combine groups of ``fanin`` of them; the driver merges the last
    ones. ``retries``: how often Ray reruns a task whose worker died
    (default 0: the query fails with :class:`TaskFailedError`).
    ``ray_remote_args`` go to every task (``scheduling_strategy``,
    ``resources``, ...). A ``stats`` dict is filled with what the run did:
    ``tasks``, ``combine_tasks``, ``driver_bytes`` (the partial results the
    driver merged, as Arrow IPC), ``tasks_seconds`` (until the last result
    reached the driver) and ``merge_seconds``.

    Raises the errors of ``Connection.sql`` (a missing table, a wrong number
    of parameters, ...) and :class:`strata.CannotSplitError` before any task
    starts; a task's failure cancels the other tasks.
    """
    ray = _ray()
    if fanin < 2:
        raise InvalidInputError(f"fanin must be at least 2, not {fanin}")
    if num_tasks is not None and (isinstance(num_tasks, bool) or num_tasks < 1):
        raise InvalidInputError(f"num_tasks must be at least 1, not {num_tasks!r}")
    params = _params(parameters)
    own_workdir = None
    if workdir is None and any(not isinstance(s, (str, os.PathLike)) or not os.path.isdir(s) for s in tables.values()):
        own_workdir = workdir = tempfile.mkdtemp(prefix="strata-ray-tables-")
    try:
        resolved = _resolve(tables, workdir, threads)
        return _run(
            ray, query, resolved, num_tasks, params, fanin, threads, retries, ray_remote_args or {}, stats
        )
    finally:
        if own_workdir is not None:
            shutil.rmtree(own_workdir, ignore_errors=True)


def _run(
    ray: Any,
    query: str,
    tables: Dict[str, str],
    num_tasks: Optional[int],
    params: Optional[List[Any]],
    fanin: int,
    threads: Optional[int],
    retries: int,
    remote_args: Dict[str, Any],
    stats: Optional[Dict[str, Any]],
) -> Any:
    pa = _pyarrow()
    with _catalog(tables, threads) as db:
        # Validates the query (names, parameters, whether it splits) before any task.
        info = db.split_info(query, params)
        if not ray.is_initialized():
            ray.init()
        if num_tasks is None:
            num_tasks = max(1, int(ray.cluster_resources().get("CPU", 1)))
        options = {"num_cpus": 1, "max_retries": retries, **remote_args}
        task_threads = 1 if threads is None else threads
        partial = ray.remote(_partial_task).options(**options)
        combine = ray.remote(_combine_task).options(**options)
        every: List[Any] = []
        started = time.perf_counter()
        try:
            level = [
                partial.remote(tables, query, params, group, task_threads)
                for group in _task_groups(info["block_rows"], num_tasks)
            ]
            tasks = len(level)
            every.extend(level)
            while len(level) > fanin:
                level = [
                    combine.remote(tables, query, params, task_threads, *level[i : i + fanin])
                    for i in range(0, len(level), fanin)
                ]
                every.extend(level)
            parts = ray.get(level)
        except BaseException as e:
            _cancel(ray, every)
            raise _translate(ray, e) from None
        fetched = time.perf_counter()
        result = db.merge(query, parts, params)
        if stats is not None:
            stats.update(
                tasks=tasks,
                combine_tasks=len(every) - tasks,
                driver_bytes=sum(len(p) for p in parts),
                tasks_seconds=fetched - started,
                merge_seconds=time.perf_counter() - fetched,
            )
        return pa.RecordBatchReader._import_from_c_capsule(result.arrow_stream()).read_all()


def explain(query: str, tables: Dict[str, _Source], parameters: Optional[Sequence[Any]] = None) -> str:
    """How :func:`sql` splits ``query``: the table whose blocks the tasks
    divide, how partial results merge, the plan each task runs and the final
    plan over their results."""
    params = _params(parameters)
    with tempfile.TemporaryDirectory(prefix="strata-ray-tables-") as workdir:
        with _catalog(_resolve(tables, workdir, None), None) as db:
            return db.explain_split(query, params)


def _select(columns: Optional[List[str]]) -> str:
    cols = "*" if columns is None else ", ".join('"' + c.replace('"', '""') + '"' for c in columns)
    return f"SELECT {cols} FROM t"


class StrataDatasource(_Datasource):  # type: ignore[misc,valid-type]
    """The blocks of a strata table for Ray Data, each an Arrow table
    (see :func:`read_table`)."""

    def __init__(self, path: str, columns: Optional[List[str]] = None, threads: Optional[int] = None) -> None:
        super().__init__()
        self._path = path
        self._columns = columns
        self._threads = threads
        with _catalog({"t": path}, threads) as db:
            info = db.split_info(_select(columns))
        self._block_rows = list(info["block_rows"])

    def estimate_inmemory_data_size(self) -> Optional[int]:
        return None

    def get_read_tasks(
        self, parallelism: int, per_task_row_limit: Optional[int] = None, data_context: Any = None
    ) -> List[Any]:
        from ray.data.block import BlockMetadata
        from ray.data.datasource import ReadTask

        tasks = []
        for group in _task_groups(self._block_rows, max(1, parallelism)):
            rows = sum(self._block_rows[b] for b in group)
            meta = BlockMetadata(num_rows=rows, size_bytes=None, input_files=None, exec_stats=None)
            path, columns, threads = self._path, self._columns, self._threads
            tasks.append(ReadTask(lambda g=group: _read_task(path, columns, g, threads), meta))
        return tasks

    def get_name(self) -> str:
        return "Strata"


def read_table(
    path: Union[str, "os.PathLike[str]"],
    *,
    columns: Optional[List[str]] = None,
    threads: Optional[int] = None,
    **read_args: Any,
) -> Any:
    """The rows of the strata table at ``path`` as a Ray Dataset: one Arrow
    block per table block, read by Ray tasks (``columns``: only these).
    ``read_args`` go to ``ray.data.read_datasource`` (``override_num_blocks``,
    ``ray_remote_args``, ...)."""
    ray = _ray()
    p = os.path.abspath(os.fspath(path))
    if not _is_table(p):
        raise NotFoundError(f"{p} is not a strata table (no MANIFEST)")
    if _Datasource is object:
        raise ImportError("strata.ray.read_table needs Ray Data: pip install 'ray[data]'")
    source = StrataDatasource(p, list(columns) if columns is not None else None, threads)
    return ray.data.read_datasource(source, **read_args)

"""The exceptions strata raises: the DB-API 2.0 hierarchy, with one subclass
per kind of strata error. Every one is a subclass of :class:`Error`."""


class Warning(Exception):  # noqa: A001 - the DB-API 2.0 name
    """DB-API 2.0 warning (strata raises none)."""


class Error(Exception):
    """Base class of every strata error."""


class InterfaceError(Error):
    """The API was misused (for example a closed connection)."""


class DatabaseError(Error):
    """An error of the database itself."""


class DataError(DatabaseError):
    """Bad data: division by zero, overflow, a failed cast, malformed input rows."""


class OperationalError(DatabaseError):
    """The operation could not complete for a reason outside the query text."""


class IntegrityError(DatabaseError):
    """DB-API 2.0 integrity error (strata raises none: tables have no constraints)."""


class InternalError(DatabaseError):
    """A bug in strata."""


class ProgrammingError(DatabaseError):
    """A mistake in the query or the call."""


class NotSupportedError(DatabaseError):
    """A construct, type or file strata does not support (yet)."""


class CannotSplitError(NotSupportedError):
    """The query cannot be split across tasks that each read some of a table's
    blocks (:mod:`strata.ray`): it reads the table twice, joins it with another
    large table, or needs something without a mergeable state. The message
    says which."""


class ParserError(ProgrammingError):
    """The SQL text does not parse; the message points at the place."""


class NotFoundError(ProgrammingError):
    """A table, column, file or directory that does not exist."""


class InvalidInputError(ProgrammingError):
    """A type error or another mistake in a query that otherwise parses, or bad
    arguments (such as a wrong number of parameters)."""


class OutOfMemoryError(OperationalError):
    """The result would exceed the connection's memory limit (result too large)."""


class InterruptError(OperationalError):
    """The query was interrupted (:meth:`Connection.interrupt`)."""


class StorageError(OperationalError):
    """Table or input files could not be read or written (I/O error)."""


class CorruptDataError(DatabaseError):
    """A table file is damaged (a checksum or structure check failed)."""


__all__ = [
    "Warning",
    "Error",
    "InterfaceError",
    "DatabaseError",
    "DataError",
    "OperationalError",
    "IntegrityError",
    "InternalError",
    "ProgrammingError",
    "NotSupportedError",
    "CannotSplitError",
    "ParserError",
    "NotFoundError",
    "InvalidInputError",
    "OutOfMemoryError",
    "InterruptError",
    "StorageError",
    "CorruptDataError",
]

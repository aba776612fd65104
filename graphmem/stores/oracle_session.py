"""Connections, transactions, scripts and error translation for the Oracle store.

The only module besides :mod:`graphmem.stores.oracle` that calls python-oracledb.
It imports the driver lazily, so ``import graphmem`` works without it.
"""

from __future__ import annotations

import array
import json
import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

import numpy as np
import numpy.typing as npt

from graphmem.errors import (
    BackendError,
    ConflictError,
    GraphMemError,
    InvalidArgumentError,
    NotFoundError,
    SchemaError,
)
from graphmem.sqlfiles import load_script
from graphmem.stores.base import CONFLICT_MESSAGE

__all__ = [
    "LONG_STRING_BYTES",
    "MIN_VERSION",
    "OracleSession",
    "id_lists",
    "import_oracledb",
    "split_script",
    "translate_error",
    "vector_bind",
]

MIN_VERSION = (23, 4)
"""VECTOR, SQL/PGQ and ``IF [NOT] EXISTS`` DDL need Oracle 23ai release update 23.4."""
# ORA-00001 unique, ORA-02290 check, ORA-02292 child rows, ORA-20001/20002/20004/20005
# install.sql triggers (ORA-20003 asks for the links to be deleted first).
_CONFLICT = frozenset({1, 2290, 2292, 20001, 20002, 20004, 20005})
# ORA-00942 table or view, ORA-04043 object, ORA-04080 trigger does not exist.
_SCHEMA = frozenset({942, 4043, 4080})
_PARENT_MISSING = 2291
ID_LIST_BYTES = 3900
"""Id lists are bound as JSON text of at most this many bytes, below the 4000 bytes of a
plain VARCHAR2 bind in SQL (``MAX_STRING_SIZE=STANDARD``)."""
LONG_STRING_BYTES = 32767
"""The longest string bound as text. A longer one is bound as a CLOB
(``setinputsizes(<bind>=DB_TYPE_CLOB)``): bound as text it can fail with ORA-01461,
as reported for python-oracledb's ``executemany`` and thin mode
(https://github.com/oracle/python-oracledb/issues/116,
https://github.com/oracle/python-oracledb/issues/467, where a CLOB input size is
the fix), while a CLOB bind takes a ``str`` of up to 1 GB. Shorter strings stay
text binds, which are much faster than LOBs."""
_COMPACT = (",", ":")
_PLSQL_START = re.compile(
    r"(CREATE\s+(OR\s+REPLACE\s+)?(TRIGGER|PROCEDURE|FUNCTION|PACKAGE|TYPE)|BEGIN|DECLARE)\b",
    re.IGNORECASE,
)


def import_oracledb() -> Any:
    """The python-oracledb module, or a clear error when it is not installed."""
    try:
        import oracledb
    except ImportError as exc:
        raise BackendError(
            "the Oracle store needs python-oracledb: pip install 'graphmem[oracle]'"
        ) from exc
    return oracledb


def split_script(text: str) -> list[str]:
    """Split a SQL*Plus script into statements, as SQL*Plus runs them.

    A SQL statement ends with ``;`` at the end of a line; a PL/SQL unit (a
    trigger, or a ``BEGIN`` block) ends with a line holding only ``/``.

    >>> split_script("-- c\\nDROP TABLE t;\\nBEGIN\\n  NULL;\\nEND;\\n/\\n")
    ['DROP TABLE t', 'BEGIN\\n  NULL;\\nEND;']
    """
    statements: list[str] = []
    lines: list[str] = []
    plsql = False
    for line in text.splitlines():
        stripped = line.strip()
        if not lines and (not stripped or stripped.startswith("--")):
            continue
        if stripped == "/":
            if lines:
                statements.append("\n".join(lines).strip())
            lines, plsql = [], False
            continue
        if not lines:
            plsql = bool(_PLSQL_START.match(stripped))
        lines.append(line)
        if not plsql and stripped.endswith(";"):
            statements.append("\n".join(lines).strip()[:-1].rstrip())
            lines = []
    return statements


def translate_error(exc: Exception) -> GraphMemError:
    """Map a python-oracledb error to the graphmem error tree (by its ORA- number)."""
    error = exc.args[0] if exc.args else None
    code = getattr(error, "code", 0)
    message = getattr(error, "message", None) or str(exc)
    if code in _CONFLICT:
        return ConflictError(CONFLICT_MESSAGE)
    if code == _PARENT_MISSING:
        return NotFoundError(f"a linked memory does not exist: {message}")
    if code in _SCHEMA:
        return SchemaError(
            "a store object is missing (run sql/oracle/install.sql or use "
            f"SchemaPolicy.CREATE_IF_NECESSARY): {message}"
        )
    return BackendError(f"Oracle failed: {message}")


def id_lists(ids: Sequence[str]) -> Iterator[str]:
    """Compact JSON arrays of ``ids``, each at most ``ID_LIST_BYTES`` bytes.

    The text is ASCII (``json.dumps`` escapes the rest), so characters are bytes:
    ``[`` and ``]`` plus each item and one comma between items.

    >>> list(id_lists(["a", "b"]))
    ['["a","b"]']
    """
    chunk: list[str] = []
    size = 1  # the brackets, less the comma the first item does not need
    for item in ids:
        width = len(json.dumps(item)) + 1
        if chunk and size + width > ID_LIST_BYTES:
            yield json.dumps(chunk, separators=_COMPACT)
            chunk, size = [], 1
        chunk.append(item)
        size += width
    if chunk:
        yield json.dumps(chunk, separators=_COMPACT)


def _is_long_string(value: object) -> bool:
    """Whether ``value`` is a string of more than :data:`LONG_STRING_BYTES` UTF-8 bytes
    (the short ones are told by their length alone: at most 4 bytes a character)."""
    if not isinstance(value, str) or len(value) * 4 <= LONG_STRING_BYTES:
        return False
    return len(value) > LONG_STRING_BYTES or (
        len(value.encode("utf-8", errors="surrogatepass")) > LONG_STRING_BYTES
    )


def vector_bind(values: npt.NDArray[np.float32]) -> array.array[float]:
    """``values`` as ``array.array('f')``, which python-oracledb binds as VECTOR FLOAT32."""
    vector = array.array("f")
    vector.frombytes(np.ascontiguousarray(values, dtype=np.float32).tobytes())
    return vector


def server_version(conn: Any) -> tuple[int, int]:
    """``(major, release update)`` of the server, checked against :data:`MIN_VERSION`."""
    parts = [int(p) for p in str(conn.version).split(".")[:2]]
    version = (parts[0], parts[1] if len(parts) > 1 else 0)
    if version < MIN_VERSION:
        raise SchemaError(
            f"Oracle {conn.version} is too old: graphmem needs 23.4 or newer "
            "(VECTOR, SQL/PGQ property graphs, IF NOT EXISTS DDL)"
        )
    return version


class OracleSession:
    """One connection per transaction: acquired from a pool, or a shared one under a lock.

    Args:
        connection: an ``oracledb.ConnectionPool``, an ``oracledb.Connection``, or
            a DSN ``user/password@host:port/service`` (opened and closed here).
        prefix: the validated ``memory_store_id`` (for the session script).
    """

    def __init__(self, connection: Any, prefix: str) -> None:
        self.db = import_oracledb()
        self._prefix = prefix
        self._local = threading.local()
        self._lock = threading.RLock()
        self._closed = False
        self._pool, self._conn, self._owned = self._open(connection)
        if self._conn is not None:
            try:
                server_version(self._conn)
                self._configure(self._conn)
            except BaseException:
                self.close()
                raise

    def _open(self, connection: Any) -> tuple[Any, Any, bool]:
        db = self.db
        if isinstance(connection, str):
            user, password, dsn = db.ConnectParams().parse_dsn_with_credentials(connection)
            try:
                return None, db.connect(user=user, password=password, dsn=dsn), True
            except db.Error as exc:
                raise BackendError(f"cannot connect to {dsn!r} as {user!r}: {exc}") from exc
        if isinstance(connection, db.ConnectionPool):
            return connection, None, False
        if isinstance(connection, db.Connection):
            return None, connection, False
        raise InvalidArgumentError(
            "connection",
            "expected an oracledb.ConnectionPool, an oracledb.Connection or a DSN "
            f"'user/password@host:port/service', got {type(connection).__name__}",
        )

    def _configure(self, conn: Any) -> None:
        """Run ``sql/oracle/session.sql`` (binary string order, see there)."""
        self._run_script_on(conn, "session")

    def _run_script_on(self, conn: Any, name: str) -> None:
        """Run a script statement by statement; a statement that warns stops it.

        python-oracledb does not raise for a PL/SQL unit created with compilation
        errors (ORA-24344): it sets ``cursor.warning`` (DPY-7000 in thin mode) and
        the unit is left INVALID, so a trigger would fail every later write with
        ORA-04098. Any warning is therefore a :class:`SchemaError` here.
        """
        for sql in split_script(load_script("oracle", name, self._prefix)):
            warning = self.execute_on(conn, sql, None).warning
            if warning is not None:
                head = sql.splitlines()[0].strip()
                message = getattr(warning, "message", None) or str(warning)
                raise SchemaError(
                    f"{name}.sql stopped: Oracle reported a warning for `{head}`: {message}. "
                    "A unit created with compilation errors is INVALID; see USER_ERRORS "
                    "(SHOW ERRORS in SQL*Plus)"
                )

    def close(self) -> None:
        """Close a connection opened from a DSN; pools and given connections stay open."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._owned and self._conn is not None:
                with suppress(self.db.Error):
                    self._conn.close()

    @contextmanager
    def _lease(self) -> Iterator[Any]:
        if self._pool is None:
            with self._lock:
                yield self._conn
            return
        try:
            conn = self._pool.acquire()
        except self.db.Error as exc:
            raise translate_error(exc) from exc
        try:
            server_version(conn)
            self._configure(conn)
            yield conn
        finally:
            with suppress(self.db.Error):
                self._pool.release(conn)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Commit on success, roll back on any exception; nested use joins the outer one."""
        if getattr(self._local, "conn", None) is not None:
            yield
            return
        with self._lease() as conn:
            self._local.conn = conn
            # The work tables lose their rows at each commit (install.sql), so no
            # statement may commit on its own: autocommit is off until the end.
            autocommit = bool(conn.autocommit)
            conn.autocommit = False
            try:
                yield
                conn.commit()
            except self.db.Error as exc:
                with suppress(self.db.Error):
                    conn.rollback()
                raise translate_error(exc) from exc
            except BaseException:
                with suppress(self.db.Error):
                    conn.rollback()
                raise
            finally:
                self._local.conn = None
                with suppress(self.db.Error):
                    conn.autocommit = autocommit

    def current(self) -> Any:
        """The connection of this thread's transaction."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            raise RuntimeError("graphmem: a statement ran outside Store.transaction()")
        return conn

    def _text_lobs(self, cursor: Any, metadata: Any) -> Any:
        """Fetch CLOB columns (content, metadata) as ``str``, not LOB locators."""
        if metadata.type_code is self.db.DB_TYPE_CLOB:
            return cursor.var(self.db.DB_TYPE_LONG, arraysize=cursor.arraysize)
        return None

    def _bind_long_strings(self, cursor: Any, rows: Sequence[dict[str, Any]]) -> None:
        """Bind as CLOB each bind that holds a string over :data:`LONG_STRING_BYTES` in
        any of ``rows`` (memory and message content, metadata, block and job texts)."""
        long = sorted(
            {name for row in rows for name, value in row.items() if _is_long_string(value)}
        )
        if long:
            cursor.setinputsizes(**dict.fromkeys(long, self.db.DB_TYPE_CLOB))

    def execute_on(self, conn: Any, sql: str, binds: dict[str, Any] | None) -> Any:
        """Execute one statement; returns the cursor (fetch before the transaction ends)."""
        cursor = conn.cursor()
        cursor.outputtypehandler = self._text_lobs
        try:
            if binds is None:
                cursor.execute(sql)
            else:
                self._bind_long_strings(cursor, [binds])
                cursor.execute(sql, binds)
        except self.db.Error as exc:
            raise translate_error(exc) from exc
        return cursor

    def execute(self, sql: str, binds: dict[str, Any]) -> Any:
        """Execute in the current transaction."""
        return self.execute_on(self.current(), sql, binds)

    def executemany(self, sql: str, rows: Sequence[dict[str, Any]]) -> None:
        """One round trip for many rows, in the current transaction."""
        cursor = self.current().cursor()
        try:
            self._bind_long_strings(cursor, rows)
            cursor.executemany(sql, list(rows))
        except self.db.Error as exc:
            raise translate_error(exc) from exc

    def run_script(self, name: str) -> None:
        """Run ``install`` or ``uninstall`` statement by statement (DDL commits itself).

        Raises:
            SchemaError: a statement left a warning, such as a compilation error.
        """
        with self.transaction():
            self._run_script_on(self.current(), name)

"""Stores: the only code that touches a database driver."""

from __future__ import annotations

import re
from pathlib import Path

from graphmem.errors import InvalidArgumentError
from graphmem.models import SchemaPolicy
from graphmem.stores.base import Store

__all__ = ["looks_like_dsn", "open_store"]

_DSN = re.compile(r"[A-Za-z][\w$#]*/[^/@\s]*@[^/:\s]+(:\d+)?(/\S+)?")


def looks_like_dsn(connection: object) -> bool:
    """``user/password@host:port/service`` (port or service required), not a file."""
    if not isinstance(connection, str):
        return False
    match = _DSN.fullmatch(connection)
    return match is not None and bool(match.group(1) or match.group(2))


def open_store(connection: object, prefix: str, schema_policy: SchemaPolicy) -> Store:
    """The store behind ``GraphMemory(connection)``.

    A :class:`~graphmem.stores.base.Store` is used as is; an ``oracledb`` pool or
    connection, or a DSN ``user/password@host:port/service``, opens Oracle; any
    other string or path is a SQLite file (or ``":memory:"``).
    """
    if isinstance(connection, Store):
        return connection
    # An oracledb pool or connection, or a DSN 'user/password@host:port/service'.
    driver = type(connection).__module__.partition(".")[0]
    if looks_like_dsn(connection) or driver == "oracledb":
        from graphmem.stores.oracle import OracleStore

        return OracleStore(connection, prefix, schema_policy)
    if isinstance(connection, (str, Path)):
        from graphmem.stores.sqlite import SqliteStore

        return SqliteStore(connection, prefix, schema_policy)
    raise InvalidArgumentError(
        "connection",
        f"expected a SQLite path, ':memory:', an Oracle DSN 'user/password@host:port/service', "
        f"an oracledb pool or connection; got {type(connection).__name__}",
    )

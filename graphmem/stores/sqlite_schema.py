"""The embedded store's schema: install, upgrade, and the rename of older stores.

``install.sql`` runs statement by statement inside one ``BEGIN IMMEDIATE``
transaction, so a store whose setup fails leaves no object behind (SQLite DDL is
transactional) and two processes opening a new file do not interleave.

Before schema version 3, a store with ``memory_store_id=X`` (other than the
default) named its objects ``X_<name>``; two such stores could share a name
(``a_memory_meta`` was store ``a_memory``'s meta table and store ``a``'s metadata
table). Version 3 names them ``X__<name>`` (:func:`graphmem.sqlfiles.object_prefix`).
A store found under the old names is renamed in the same transaction as the
upgrade; the default store's names (``graphmem_<name>``) never changed.

Version 4 adds keyword search (an FTS5 index kept by triggers; the upgrade
indexes the memories already stored) and stores messages in the memory table:
the record-type ``CHECK`` lists ``message`` and two columns hold a message's
role and position. SQLite cannot
change a ``CHECK``, so a store from before is rebuilt (SQLite's documented
procedure, https://www.sqlite.org/lang_altertable.html#otheralter): with foreign
keys off (so that dropping the old table cascades into nothing), its triggers
are dropped, the rows copied into a table of the new shape that then takes the
old name, and install.sql makes the indexes, triggers and new tables again, all
in one transaction.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator

from graphmem.errors import SchemaError
from graphmem.sqlfiles import DEFAULT_PREFIX, Statement, load_script, load_statements, object_prefix

__all__ = ["SCHEMA_TABLES", "SCHEMA_VERSION", "install", "script_statements"]

SCHEMA_VERSION = "7"
"""The version install.sql writes; an older store is upgraded by re-running it."""

SCHEMA_TABLES = 16
"""Tables that ``count-schema-tables`` finds in a complete schema."""

_LEGACY_TABLES = {
    "meta": {"meta_key", "meta_value"},
    "memory": {"record_id", "record_type", "status"},
    "memory_meta": {"record_id", "meta_key", "meta_value"},
    "link": {"relation_id", "source_id", "target_id", "relation_type"},
}
"""The tables of a store before version 3, with columns that identify each."""


def script_statements(script: str) -> Iterator[str]:
    """The statements of a script, one by one (trigger bodies kept whole).

    >>> list(script_statements("-- c\\nCREATE TABLE t (a);\\nSELECT 1;\\n"))
    ['-- c\\nCREATE TABLE t (a);', 'SELECT 1;']
    """
    pending = ""
    for piece in script.splitlines(keepends=True):
        pending += piece
        if sqlite3.complete_statement(pending):
            yield pending.rstrip("\n")
            pending = ""
    leftover = re.sub(r"--[^\n]*", "", pending).strip()
    if leftover:
        raise ValueError(f"incomplete statement at the end of the script: {leftover[:60]!r}")


def install(conn: sqlite3.Connection, store_id: str) -> None:
    """Create or upgrade the store's objects in one transaction (a failure leaves none)."""
    # PRAGMA foreign_keys is a no-op inside a transaction: set it before BEGIN.
    rebuild = _needs_rebuild(conn, store_id)
    if rebuild:
        conn.execute("PRAGMA foreign_keys = OFF")
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            if _legacy_store(conn, store_id):
                _rename_legacy(conn, store_id)
            if _needs_rebuild(conn, store_id):
                _rebuild_memory_table(conn, store_id)
            for statement in script_statements(load_script("sqlite", "install", store_id)):
                conn.execute(statement)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.rollback()
            raise
    finally:
        if rebuild:
            conn.execute("PRAGMA foreign_keys = ON")


def _memory_table(conn: sqlite3.Connection, store_id: str) -> str | None:
    """The name of the store's memory table, under its current or pre-3 name."""
    for name in (f"{object_prefix(store_id)}memory", _legacy_names(store_id)["memory"]):
        if _columns(conn, name):
            return name
    return None


def _needs_rebuild(conn: sqlite3.Connection, store_id: str) -> bool:
    """Whether the store's memory table predates version 4 (no message columns)."""
    table = _memory_table(conn, store_id)
    return table is not None and "message_role" not in _columns(conn, table)


def _rebuild_memory_table(conn: sqlite3.Connection, store_id: str) -> None:
    """Give the memory table the version-4 shape, keeping every row (see the module doc)."""
    prefix = object_prefix(store_id)
    table = f"{prefix}memory"
    create = next(
        s
        for s in script_statements(load_script("sqlite", "install", store_id))
        if re.search(rf"CREATE TABLE IF NOT EXISTS {re.escape(table)} \(", s, re.IGNORECASE)
    )
    staging = f"{prefix}memory_v4"
    for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND lower(name) LIKE ? ESCAPE '!'",
        (prefix.replace("_", "!_") + "%",),
    ).fetchall():
        conn.execute(f'DROP TRIGGER "{name}"')
    conn.execute(f'DROP TABLE IF EXISTS "{staging}"')
    conn.execute(re.sub(re.escape(table), staging, create, count=1, flags=re.IGNORECASE))
    columns = ", ".join(sorted(_columns(conn, table)))
    conn.execute(f'INSERT INTO "{staging}" ({columns}) SELECT {columns} FROM "{table}"')
    conn.execute(f'DROP TABLE "{table}"')
    conn.execute(f'ALTER TABLE "{staging}" RENAME TO "{table}"')


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    rows = conn.execute("SELECT name FROM pragma_table_info(?)", (table,)).fetchall()
    return {str(r[0]).lower() for r in rows}


def _count(conn: sqlite3.Connection, statement: Statement, binds: dict[str, str]) -> int:
    statement.check_binds(binds)
    return int(conn.execute(statement.sql, binds).fetchone()[0])


def _legacy_names(store_id: str) -> dict[str, str]:
    return {suffix: f"{store_id.lower()}_{suffix}" for suffix in _LEGACY_TABLES}


def _legacy_store(conn: sqlite3.Connection, store_id: str) -> bool:
    """Whether the file holds this store under its names before version 3.

    Only when the new names are absent: a store's old meta table with a schema
    version row marks it. An old store missing a table, or whose table has other
    columns (the two stores of a name collision), is not renamed but refused.
    """
    if object_prefix(store_id) == f"{DEFAULT_PREFIX}_":
        return False
    old = _legacy_names(store_id)
    statements = load_statements("sqlite", store_id)
    if _count(conn, statements["count-schema-tables"], {}) or not _count(
        conn, statements["count-legacy-tables"], {f"{s}_table": n for s, n in old.items()}
    ):
        return False
    if _columns(conn, old["meta"]) != _LEGACY_TABLES["meta"]:
        return False
    version = conn.execute(
        f'SELECT meta_value FROM "{old["meta"]}" WHERE meta_key = ?', ("schema_version",)
    ).fetchone()
    if version is None:
        return False
    broken = [old[s] for s, cols in _LEGACY_TABLES.items() if not cols <= _columns(conn, old[s])]
    if broken:
        raise SchemaError(
            f"the store {store_id!r} was created before schema version 3 (tables "
            f"{store_id}_*), but {', '.join(broken)} is missing or belongs to another "
            "store; graphmem cannot rename it: copy its rows into a new store by hand"
        )
    return True


def _rename_legacy(conn: sqlite3.Connection, store_id: str) -> None:
    """Drop the old store's indexes and triggers (install.sql makes them again under
    the new names), then rename its tables, keeping every row."""
    old = _legacy_names(store_id)
    suffixes = set(re.findall(r"\bgraphmem_(\w+)", load_script("sqlite", "install")))
    own = {f"{store_id.lower()}_{s}" for s in suffixes}
    tables = {name.lower() for name in old.values()}
    for kind, name, table in conn.execute(
        "SELECT type, name, tbl_name FROM sqlite_master WHERE type IN ('index', 'trigger')"
    ).fetchall():
        if name.lower() in own and table.lower() in tables:
            conn.execute(f'DROP {kind.upper()} "{name}"')
    for suffix, name in old.items():
        conn.execute(f'ALTER TABLE "{name}" RENAME TO "{store_id}__{suffix}"')

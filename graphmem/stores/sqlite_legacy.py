"""Stores from before schema version 3, and their rename.

Before schema version 3, a store with ``memory_store_id=X`` (other than the
default) named its objects ``X_<name>``; two such stores could share a name
(``a_memory_meta`` was store ``a_memory``'s meta table and store ``a``'s metadata
table). Version 3 names them ``X__<name>`` (:func:`graphmem.sqlfiles.object_prefix`).
A store found under the old names is renamed in the same transaction as the
upgrade (:func:`graphmem.stores.sqlite_schema.install`); the default store's names
(``graphmem_<name>``) never changed.
"""

from __future__ import annotations

import re
import sqlite3

from graphmem.errors import SchemaError
from graphmem.sqlfiles import DEFAULT_PREFIX, Statement, load_script, load_statements, object_prefix

__all__ = ["legacy_names", "legacy_store", "rename_legacy"]

_LEGACY_TABLES = {
    "meta": {"meta_key", "meta_value"},
    "memory": {"record_id", "record_type", "status"},
    "memory_meta": {"record_id", "meta_key", "meta_value"},
    "link": {"relation_id", "source_id", "target_id", "relation_type"},
}
"""The tables of a store before version 3, with columns that identify each."""


def _count(conn: sqlite3.Connection, statement: Statement, binds: dict[str, str]) -> int:
    statement.check_binds(binds)
    return int(conn.execute(statement.sql, binds).fetchone()[0])


def legacy_names(store_id: str) -> dict[str, str]:
    """The store's table names before version 3, by the suffix they share today."""
    return {suffix: f"{store_id.lower()}_{suffix}" for suffix in _LEGACY_TABLES}


def legacy_store(conn: sqlite3.Connection, store_id: str) -> bool:
    """Whether the file holds this store under its names before version 3.

    Only when the new names are absent: a store's old meta table with a schema
    version row marks it. An old store missing a table, or whose table has other
    columns (the two stores of a name collision), is not renamed but refused.
    """
    if object_prefix(store_id) == f"{DEFAULT_PREFIX}_":
        return False
    old = legacy_names(store_id)
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


def rename_legacy(conn: sqlite3.Connection, store_id: str) -> None:
    """Drop the old store's indexes and triggers (install.sql makes them again under
    the new names), then rename its tables, keeping every row."""
    old = legacy_names(store_id)
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


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    rows = conn.execute("SELECT name FROM pragma_table_info(?)", (table,)).fetchall()
    return {str(r[0]).lower() for r in rows}

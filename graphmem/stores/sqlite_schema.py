"""The embedded store's schema: install, upgrade, and the rename of older stores.

``install.sql`` runs statement by statement inside one ``BEGIN IMMEDIATE``
transaction, so a store whose setup fails leaves no object behind (SQLite DDL is
transactional) and two processes opening a new file do not interleave.

A store from before schema version 3, under its older names, is renamed first
(:mod:`graphmem.stores.sqlite_legacy`), in the same transaction.

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

Version 8 numbers the links (``link_no``, an ``INTEGER PRIMARY KEY``) and carries
the number in the adjacency rows. SQLite cannot add a primary key either, so an
older store's link table is rebuilt the same way, in rowid order (each link keeps
its rowid as its number), and its adjacency table is copied, in key order, into
one with the new column, each row's number found through its relation_id. The
indexes of both tables are made after their rows are in place (one sort each,
not a b-tree grown row by row at random), with a larger page cache than usual.

Version 9 stores in each adjacency row the search filter columns of its far end
(``other_record_type`` and the other four ``other_*`` columns). SQLite cannot add
a ``NOT NULL`` column without a default, so an older store's adjacency table is
copied the same way, in key order, into one of the new shape, each row given the
columns of its ``other_no`` node (in the version 8 copy too, for older stores).

Version 10 gives a memory block being processed a holder and a lease (``owner``,
``lease_until``). Adding them with ``ALTER TABLE ... ADD COLUMN`` would leave the
table's stored SQL unlike a new store's, so the block table of an older store is
copied into install.sql's shape (its rows keep no lease: a block found
``processing`` without one is taken over, as every such block was before).

Version 11 changes triggers only (REPLACE on every key of a link), which
install.sql drops and makes again itself. Version 12 adds indexes only (the
listings' order), which install.sql makes with ``IF NOT EXISTS``.

Each copy is decided by the table's shape, not by the stored version, and the
script writes the version last, only on tables of its shape (install.sql), so a
store that the script alone was run on is upgraded here like any older one.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from graphmem.errors import SchemaError
from graphmem.sqlfiles import DEFAULT_PREFIX, load_script, load_statements, object_prefix
from graphmem.stores.sqlite_legacy import legacy_names, legacy_store, rename_legacy

__all__ = [
    "SCHEMA_TABLES",
    "SCHEMA_VERSION",
    "install",
    "refuse_newer",
    "script_statements",
    "stores_in_file",
]

SCHEMA_VERSION = "12"
"""The version install.sql writes; an older store is upgraded by re-running it."""

_REBUILD_CACHE_KIB = 1_048_576
"""Page cache of a connection while it rebuilds tables (KiB)."""

SCHEMA_TABLES = 17
"""Tables that ``count-schema-tables`` finds in a complete schema."""


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
    rebuild = (
        _needs_rebuild(conn, store_id)
        or _needs_link_numbers(conn, store_id)
        or _needs_neighbour_columns(conn, store_id)
    )
    cache = int(conn.execute("PRAGMA cache_size").fetchone()[0]) if rebuild else 0
    if rebuild:
        conn.execute("PRAGMA foreign_keys = OFF")
        # rebuilding reads and writes whole tables and sorts their keys: keep the
        # pages in memory (1 GiB) instead of the default 2 MB
        conn.execute(f"PRAGMA cache_size = {min(cache, -_REBUILD_CACHE_KIB)}")
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            if legacy_store(conn, store_id):
                rename_legacy(conn, store_id)
            if _needs_rebuild(conn, store_id):
                _rebuild_memory_table(conn, store_id)
            if _needs_link_numbers(conn, store_id):
                _number_links(conn, store_id)
            if _needs_neighbour_columns(conn, store_id):
                _drop_triggers(conn, store_id)
                _copy_adjacency(conn, store_id, renumber=False)
            if _needs_block_leases(conn, store_id):
                _copy_blocks(conn, store_id)
            for statement in script_statements(load_script("sqlite", "install", store_id)):
                conn.execute(statement)
            _check_marked(conn, store_id)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.rollback()
            raise
    finally:
        if rebuild:
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute(f"PRAGMA cache_size = {cache}")


def _check_marked(conn: sqlite3.Connection, store_id: str) -> None:
    """install.sql marks its version only on tables of its shape (its last
    statement): a store it left unmarked kept a table that no copy above reshaped."""
    get, binds = load_statements("sqlite", store_id)["get-meta"], {"meta_key": "schema_version"}
    get.check_binds(binds)
    row = conn.execute(get.sql, binds).fetchone()
    if row is None or str(row[0]) != SCHEMA_VERSION:
        raise SchemaError(
            f"the store {store_id!r} could not be brought to schema version "
            f"{SCHEMA_VERSION}: a table kept an older shape; nothing was changed"
        )


def refuse_newer(version: str | None, store_id: str, path: str) -> None:
    """Refuse a store that a later graphmem marked with a newer schema version,
    whatever the schema policy: its objects may differ in ways this code does not
    know, and running this install.sql on it would mark it back down.

    Raises:
        SchemaError: the version is a number above :data:`SCHEMA_VERSION`.
    """
    if (
        version is not None
        and re.fullmatch(r"[0-9]+", version)
        and int(version) > int(SCHEMA_VERSION)
    ):
        raise SchemaError(
            f"the store {store_id!r} has schema version {version} in {path!r}, newer than "
            f"this graphmem's (version {SCHEMA_VERSION}): open it with a graphmem that "
            "knows that version; nothing was changed"
        )


def _memory_table(conn: sqlite3.Connection, store_id: str) -> str | None:
    """The name of the store's memory table, under its current or pre-3 name."""
    for name in (f"{object_prefix(store_id)}memory", legacy_names(store_id)["memory"]):
        if _columns(conn, name):
            return name
    return None


def _needs_rebuild(conn: sqlite3.Connection, store_id: str) -> bool:
    """Whether the store's memory table predates version 4 (no message columns)."""
    table = _memory_table(conn, store_id)
    return table is not None and "message_role" not in _columns(conn, table)


def _rebuild_memory_table(conn: sqlite3.Connection, store_id: str) -> None:
    """Give the memory table the version-4 shape, keeping every row (see the module doc).

    The new table is made beside it and renamed into place, not the old one renamed
    out of the way as :func:`_replace_table` does: other tables' foreign keys name
    the memory table, and SQLite's rename would point them at the old one."""
    prefix = object_prefix(store_id)
    table, staging = f"{prefix}memory", f"{prefix}memory_v4"
    _drop_triggers(conn, store_id)
    _create_staging(conn, store_id, table, staging)
    columns = ", ".join(sorted(_columns(conn, table)))
    conn.execute(f'INSERT INTO "{staging}" ({columns}) SELECT {columns} FROM "{table}"')
    conn.execute(f'DROP TABLE "{table}"')
    _rename(conn, staging, table)


def _needs_link_numbers(conn: sqlite3.Connection, store_id: str) -> bool:
    """Whether the store's link table (current or pre-3 name) predates version 8."""
    for name in (f"{object_prefix(store_id)}link", legacy_names(store_id)["link"]):
        columns = _columns(conn, name)
        if columns:
            return "link_no" not in columns
    return False


def _number_links(conn: sqlite3.Connection, store_id: str) -> None:
    """Give the link and adjacency tables the version-8 shape (module doc): each
    link numbered by its rowid, each adjacency row given its link's number.

    Each old table is renamed out of the way and the new one made by install.sql's
    own statement (a renamed table's stored SQL would quote its name)."""
    prefix = object_prefix(store_id)
    link, adjacency = f"{prefix}link", f"{prefix}adjacency"
    _drop_triggers(conn, store_id)
    columns = ", ".join(sorted(_columns(conn, link)))
    _replace_table(conn, store_id, link)
    conn.execute(
        f'INSERT INTO "{link}" (link_no, {columns}) '
        f'SELECT rowid, {columns} FROM "{link}_old" ORDER BY rowid'
    )
    _drop_copied(conn, f"{link}_old")
    if not _columns(conn, adjacency):
        return  # before version 5: install.sql makes and fills it
    # the relation_id key now (one sort), for the adjacency rows to find their number
    unique_id = rf"CREATE UNIQUE INDEX IF NOT EXISTS {re.escape(link)}_id_ux "
    conn.execute(_install_statement(store_id, unique_id))
    _copy_adjacency(conn, store_id, renumber=True)


def _needs_neighbour_columns(conn: sqlite3.Connection, store_id: str) -> bool:
    """Whether the store has an adjacency table from before version 9."""
    columns = _columns(conn, f"{object_prefix(store_id)}adjacency")
    return bool(columns) and "other_record_type" not in columns


def _needs_block_leases(conn: sqlite3.Connection, store_id: str) -> bool:
    """Whether the store has a memory block table from before version 10."""
    columns = _columns(conn, f"{object_prefix(store_id)}memory_block")
    return bool(columns) and "lease_until" not in columns


def _copy_blocks(conn: sqlite3.Connection, store_id: str) -> None:
    """Copy the memory blocks into a table of install.sql's shape (version 10)."""
    table = f"{object_prefix(store_id)}memory_block"
    columns = ", ".join(sorted(_columns(conn, table)))
    _replace_table(conn, store_id, table)
    conn.execute(f'INSERT INTO "{table}" ({columns}) SELECT {columns} FROM "{table}_old"')
    _drop_copied(conn, f"{table}_old")


def _copy_adjacency(conn: sqlite3.Connection, store_id: str, renumber: bool) -> None:
    """Copy the adjacency rows, in key order, into a table of install.sql's shape:
    each row with the filter columns of its other_no node (version 9) and, when
    ``renumber``, the number of its link found through its relation_id (version 8;
    else the row's own)."""
    prefix = object_prefix(store_id)
    adjacency, node, link = f"{prefix}adjacency", f"{prefix}node", f"{prefix}link"
    _replace_table(conn, store_id, adjacency)
    number, join = ("l.link_no", f'JOIN "{link}" l ON l.relation_id = a.relation_id')
    if not renumber:
        number, join = "a.link_no", ""
    conn.execute(
        f'INSERT INTO "{adjacency}" (node_no, created_at, relation_id, other_no, link_no, '
        "other_record_type, other_user_id, other_agent_id, other_thread_id, other_expires_at) "
        f"SELECT a.node_no, a.created_at, a.relation_id, a.other_no, {number}, "
        "n.record_type, n.user_id, n.agent_id, n.thread_id, n.expires_at "
        f'FROM "{adjacency}_old" a {join} JOIN "{node}" n ON n.node_no = a.other_no '
        "ORDER BY a.node_no, a.created_at, a.relation_id"
    )
    _drop_copied(conn, f"{adjacency}_old")


def _drop_copied(conn: sqlite3.Connection, table: str) -> None:
    """Drop a table whose rows are stored again elsewhere, without overwriting its
    pages with zeros (``secure_delete``, on in some builds, would write each one:
    there is nothing to erase in a copy)."""
    with _pragma(conn, "secure_delete", 0):
        conn.execute(f'DROP TABLE "{table}"')


@contextmanager
def _pragma(conn: sqlite3.Connection, name: str, value: int) -> Iterator[None]:
    """The connection's integer PRAGMA ``name`` set to ``value`` for the block, then
    back to what it was."""
    before = int(conn.execute(f"PRAGMA {name}").fetchone()[0])
    conn.execute(f"PRAGMA {name} = {int(value)}")
    try:
        yield
    finally:
        conn.execute(f"PRAGMA {name} = {before}")


def _install_statement(store_id: str, start: str) -> str:
    """The statement of install.sql that starts with ``start`` (a regular expression
    matched after the statement's leading comments)."""
    return next(
        s
        for s in script_statements(load_script("sqlite", "install", store_id))
        if re.match(rf"(\s*--[^\n]*\n)*\s*{start}", s, re.IGNORECASE)
    )


def _replace_table(conn: sqlite3.Connection, store_id: str, table: str) -> None:
    """Rename ``table`` to ``<table>_old`` (its indexes go with it) and make it
    again, empty, by install.sql's statement."""
    conn.execute(f'DROP TABLE IF EXISTS "{table}_old"')
    _rename(conn, table, f"{table}_old")
    conn.execute(_install_statement(store_id, rf"CREATE TABLE IF NOT EXISTS {re.escape(table)} \("))


def _rename(conn: sqlite3.Connection, table: str, new_name: str) -> None:
    """Rename a table with ``legacy_alter_table`` on. Without it SQLite (3.26 and
    later) makes the views and triggers that read the table read it under its new
    name (https://www.sqlite.org/pragma.html#pragma_legacy_alter_table): a DBA's
    view over a table renamed out of the way would read the old copy, which is
    then dropped, and the rename of a staging table into place would fail on such
    a view while the table's name is free. The copies here keep the table's name."""
    with _pragma(conn, "legacy_alter_table", 1):
        conn.execute(f'ALTER TABLE "{table}" RENAME TO "{new_name}"')


def _create_staging(conn: sqlite3.Connection, store_id: str, table: str, staging: str) -> None:
    """Make an empty table ``staging`` shaped like install.sql's ``table``."""
    create = _install_statement(store_id, rf"CREATE TABLE IF NOT EXISTS {re.escape(table)} \(")
    conn.execute(f'DROP TABLE IF EXISTS "{staging}"')
    conn.execute(re.sub(re.escape(table), staging, create, count=1, flags=re.IGNORECASE))


def _drop_triggers(conn: sqlite3.Connection, store_id: str) -> None:
    """Drop every trigger of the store (install.sql makes them again): those that
    install.sql creates or drops, by exact name. Not by prefix: the objects of a
    store ``graphmem_x`` (``graphmem_x__*``) start with the default store's
    ``graphmem_`` too, and every trigger that an older script made is named in
    today's (it drops those it retired)."""
    script = load_script("sqlite", "install", store_id)
    own = {
        n.lower()
        for n in re.findall(r"\bTRIGGER\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?(\w+)", script, re.I)
    }
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        if str(name).lower() in own:
            conn.execute(f'DROP TRIGGER "{name}"')


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    rows = conn.execute("SELECT name FROM pragma_table_info(?)", (table,)).fetchall()
    return {str(r[0]).lower() for r in rows}


def stores_in_file(path: str) -> list[str]:
    """The ids of the graphmem stores in a SQLite file, for a message naming them:
    those with ``<id>__meta`` and ``<id>__memory`` tables, or the default store's
    ``graphmem_meta`` and ``graphmem_memory``. The file is read as immutable, so
    no journal file is created."""
    try:
        conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro&immutable=1", uri=True)
        try:
            rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            names = {str(row[0]).lower(): str(row[0]) for row in rows}
        finally:
            conn.close()
    except (sqlite3.Error, ValueError):
        return []
    found = [
        name[:-6]
        for key, name in names.items()
        if key.endswith("__meta") and f"{key[:-6]}__memory" in names
    ]
    if {f"{DEFAULT_PREFIX}_meta", f"{DEFAULT_PREFIX}_memory"} <= set(names):
        found.append(DEFAULT_PREFIX)  # the default store's tables: graphmem_meta, ...
    return sorted(found, key=str.lower)

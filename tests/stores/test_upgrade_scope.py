"""An upgrade on open changes only the store being opened: the triggers of another
store in the same file stay, whatever its id (``graphmem_x`` names its objects
``graphmem_x__*``, which start with the default store's ``graphmem_``), and a DBA's
views over the tables that the upgrade copies keep reading them."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from graphmem import GraphMemory, HashingEmbedder
from graphmem.sqlfiles import load_script

_DATA = Path(__file__).parents[1] / "data"
_TRIGGER = r"\bTRIGGER\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?(\w+)"


def _triggers(path: Path, table_prefix: str) -> set[tuple[str, str]]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name LIKE ?",
            (f"{table_prefix}%",),
        ).fetchall()
    finally:
        conn.close()
    return {(str(n), str(s)) for n, s in rows}


def test_default_store_upgrade_keeps_the_triggers_of_store_graphmem_x(tmp_path: Path) -> None:
    path = tmp_path / "two.db"
    with GraphMemory(path, embedder=HashingEmbedder(dim=8), memory_store_id="graphmem_x") as x:
        x.add_memories([{"content": f"fact {i}", "memory_id": i} for i in ("old", "new")])
    kept = _triggers(path, "graphmem_x__")
    assert len(kept) > 20
    conn = sqlite3.connect(path)
    conn.executescript((_DATA / "sqlite_install_v8.sql").read_text(encoding="utf-8"))
    conn.close()
    GraphMemory(path, embedder=HashingEmbedder(dim=8)).close()  # upgrades the default store
    assert _triggers(path, "graphmem_x__") == kept
    with GraphMemory(path, embedder=HashingEmbedder(dim=8), memory_store_id="graphmem_x") as x:
        x.link_records("new", "memory", "old", "memory", "supersedes")
        assert x.get_memory("old").status == "invalid"


def test_every_trigger_of_an_older_script_is_named_in_todays() -> None:
    """Upgrades drop the store's triggers by the names install.sql creates or drops:
    a trigger that an older version made and today's script no longer named would
    outlive a table rebuild."""
    today = {n.lower() for n in re.findall(_TRIGGER, load_script("sqlite", "install"), re.I)}
    for script in sorted(_DATA.glob("sqlite_install_v*.sql")):
        text = script.read_text(encoding="utf-8")
        older = {n.lower() for n in re.findall(_TRIGGER, text, re.I)}
        assert older <= today, script.name


_COPIED = ("graphmem_memory", "graphmem_link", "graphmem_adjacency", "graphmem_memory_block")
"""The tables that upgrades copy into a new shape (versions 4, 8, 9 and 10)."""
_T = "2026-01-01T00:00:0{}.000000+00:00"


def _older_store_with_views(path: Path, version: int) -> dict[str, int]:
    """A store of an older version with rows in each copied table it has, and a view
    ``dba_<table>`` over each; the views' row counts."""
    conn = sqlite3.connect(path)
    conn.executescript((_DATA / f"sqlite_install_v{version}.sql").read_text(encoding="utf-8"))
    conn.executemany(
        "INSERT INTO graphmem_memory (record_id, record_type, content, created_at) "
        "VALUES (?, 'memory', ?, ?)",
        [(rid, f"memory {rid}", _T.format(0)) for rid in "abc"],
    )
    conn.execute(
        "INSERT INTO graphmem_link (relation_id, source_id, target_id, relation_type, "
        "opposite_relation_type, created_at) VALUES ('r1', 'a', 'b', 'supersedes', "
        "'is_superseded_by', ?)",
        (_T.format(1),),
    )
    tables = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master")}
    if "graphmem_memory_block" in tables:
        conn.execute(
            "INSERT INTO graphmem_thread (thread_id, created_at, updated_at) VALUES ('t', ?, ?)",
            (_T.format(0), _T.format(0)),
        )
        conn.execute(
            "INSERT INTO graphmem_memory_block (block_id, thread_id, status, content, "
            "context_required, created_at, updated_at) VALUES ('b1', 't', 'ready', '{}', 0, ?, ?)",
            (_T.format(0), _T.format(0)),
        )
    counts = {}
    for table in (t for t in _COPIED if t in tables):
        conn.execute(f"CREATE VIEW dba_{table} AS SELECT * FROM {table}")
        counts[table] = conn.execute(f"SELECT COUNT(*) FROM dba_{table}").fetchone()[0]
    conn.commit()
    conn.close()
    return counts


@pytest.mark.parametrize("version", [3, 7, 8, 9])
def test_upgrade_keeps_dba_views_over_the_copied_tables(tmp_path: Path, version: int) -> None:
    path = tmp_path / f"v{version}.db"
    counts = _older_store_with_views(path, version)
    assert counts["graphmem_link"] == 1
    with GraphMemory(path, embedder=HashingEmbedder(dim=8)) as memory:
        assert memory.get_memory("b").status == "invalid"
    conn = sqlite3.connect(path)
    try:
        for table, count in counts.items():
            assert conn.execute(f"SELECT COUNT(*) FROM dba_{table}").fetchone() == (count,)
            view = conn.execute(
                "SELECT sql FROM sqlite_master WHERE name = ?", (f"dba_{table}",)
            ).fetchone()
            assert view == (f"CREATE VIEW dba_{table} AS SELECT * FROM {table}",)
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()

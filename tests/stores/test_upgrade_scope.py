"""An upgrade on open changes only the store being opened: the triggers of another
store in the same file stay, whatever its id (``graphmem_x`` names its objects
``graphmem_x__*``, which start with the default store's ``graphmem_``)."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

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

"""Plain-SQL checks over a store file, read through a fresh stdlib connection.

They do not go through graphmem, so a bug in graphmem's own reads cannot hide a
bug in its writes.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

LIFECYCLE = ("supersedes", "refines", "duplicates")

_INVARIANT = """
SELECT m.record_id, m.status
FROM graphmem_memory m
WHERE (m.status = 'invalid') <> EXISTS (
    SELECT 1 FROM graphmem_link l
    WHERE l.target_id = m.record_id
      AND l.relation_type IN ('supersedes', 'refines', 'duplicates')
)
ORDER BY m.record_id
"""


def connect(path: Path | str) -> sqlite3.Connection:
    return sqlite3.connect(str(path), isolation_level=None, timeout=30)


def invariant_violations(path: Path | str) -> list[tuple[str, str]]:
    """Memories whose status disagrees with the lifecycle links that target them."""
    conn = connect(path)
    try:
        return [(str(r[0]), str(r[1])) for r in conn.execute(_INVARIANT)]
    finally:
        conn.close()


def integrity(path: Path | str) -> list[str]:
    """``PRAGMA integrity_check`` and ``foreign_key_check`` findings (``['ok']`` if none)."""
    conn = connect(path)
    try:
        rows = [str(r[0]) for r in conn.execute("PRAGMA integrity_check")]
        rows += [repr(r) for r in conn.execute("PRAGMA foreign_key_check")]
        return rows
    finally:
        conn.close()


def memory_ids(path: Path | str) -> set[str]:
    conn = connect(path)
    try:
        return {str(r[0]) for r in conn.execute("SELECT record_id FROM graphmem_memory")}
    finally:
        conn.close()


def links(path: Path | str) -> dict[str, tuple[str, str, str]]:
    """``relation_id -> (source_id, target_id, relation_type)``."""
    conn = connect(path)
    try:
        rows = conn.execute(
            "SELECT relation_id, source_id, target_id, relation_type FROM graphmem_link"
        )
        return {str(r[0]): (str(r[1]), str(r[2]), str(r[3])) for r in rows}
    finally:
        conn.close()


def full_dump(path: Path | str) -> list[str]:
    """Every schema object and row of the file (``iterdump``), temp tables excluded."""
    conn = connect(path)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def table_rows(path: Path | str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, ordered, for readable diffs."""
    conn = connect(path)
    try:
        names = [
            str(r[0])
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
        ]
        return {n: conn.execute(f'SELECT * FROM "{n}" ORDER BY 1, 2').fetchall() for n in names}
    finally:
        conn.close()

"""The checkpoint thread syncs the store's file ahead of a rewind, through a
descriptor SQLite already holds: it never opens or closes one (closing any
descriptor of a database file would drop the process's POSIX locks on it)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import graphmem.stores.sqlite as sqlite_store
import graphmem.stores.sqlite_checkpoint as checkpoint
from graphmem import GraphMemory, HashingEmbedder

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/fd").is_dir(), reason="no /proc/self/fd: the thread does not sync here"
)


def _descriptors() -> dict[int, str]:
    found = {}
    for name in os.listdir("/proc/self/fd"):
        try:
            found[int(name)] = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue  # the listing's own descriptor, closed meanwhile
    return found


@pytest.fixture
def synced(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, str]]:
    """Record each fdatasync (descriptor, the file it names) and let it run."""
    calls: list[tuple[int, str]] = []
    real = os.fdatasync

    def record(fd: int) -> None:
        calls.append((fd, os.readlink(f"/proc/self/fd/{fd}")))
        real(fd)

    monkeypatch.setattr(os, "fdatasync", record)
    return calls


def test_a_held_descriptor_is_synced_and_none_opened_or_closed(
    tmp_path: Path, synced: list[tuple[int, str]]
) -> None:
    path = tmp_path / "held.db"
    conn = sqlite3.connect(path)
    try:
        conn.execute("CREATE TABLE t (x)")
        conn.commit()
        name = str(path.resolve())
        before = _descriptors()
        fd = checkpoint.sync_through_held_descriptor(str(path))
        assert fd is not None and before[fd] == name
        assert synced == [(fd, name)]
        # the hint is used as is while it names the file
        assert checkpoint.sync_through_held_descriptor(str(path), fd) == fd
        assert len(synced) == 2
        # the file's descriptors are the same ones (other threads of the test
        # process may open and close files of their own meanwhile)
        after = _descriptors()
        assert {k for k, v in after.items() if v == name} == {
            k for k, v in before.items() if v == name
        }
    finally:
        conn.close()


def test_no_descriptor_on_the_file_means_no_sync(
    tmp_path: Path, synced: list[tuple[int, str]]
) -> None:
    path = tmp_path / "closed.db"
    sqlite3.connect(path).close()
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    try:
        conn.execute("CREATE TABLE t (x)")
        held = checkpoint.sync_through_held_descriptor(str(other))
        synced.clear()
        # a hint that names another file is not synced, and nothing names this one
        assert checkpoint.sync_through_held_descriptor(str(path), held) is None
        assert synced == []
    finally:
        conn.close()


_READ_IN_ANOTHER_PROCESS = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], timeout=0)
try:
    conn.execute("SELECT count(*) FROM t").fetchall()
    print("read")
except sqlite3.OperationalError as exc:
    print(exc)
"""


def test_the_sync_keeps_the_locks_of_the_process(
    tmp_path: Path, synced: list[tuple[int, str]]
) -> None:
    """An exclusive lock held by a connection still keeps another process out after
    the sync: no descriptor of the file was closed."""
    path = tmp_path / "locked.db"
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("CREATE TABLE t (x)")
        conn.execute("BEGIN EXCLUSIVE")
        conn.execute("INSERT INTO t VALUES (1)")
        assert checkpoint.sync_through_held_descriptor(str(path)) is not None
        assert synced
        probe = [sys.executable, "-c", _READ_IN_ANOTHER_PROCESS, str(path)]
        out = subprocess.run(probe, capture_output=True, text=True, timeout=60, check=True)
        assert out.stdout.strip() == "database is locked"
        conn.execute("COMMIT")
        out = subprocess.run(probe, capture_output=True, text=True, timeout=60, check=True)
        assert out.stdout.strip() == "read"
    finally:
        conn.close()


def test_the_thread_syncs_the_file_before_each_rewind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, synced: list[tuple[int, str]]
) -> None:
    monkeypatch.setattr(checkpoint, "WAKE_COMMITS", 5)
    monkeypatch.setattr(checkpoint, "REWIND_PAGES", 100)
    monkeypatch.setattr(sqlite_store, "WAL_BOUND_PAGES", 400)
    path = tmp_path / "rewound.db"
    with GraphMemory(path, embedder=HashingEmbedder(dim=8)) as memory:
        ids = [f"m{i}" for i in range(40)]
        memory.add_memories({"memory_id": r, "content": r} for r in ids)
        for i in range(400):
            rid = memory.link_records(
                ids[i % 40], "memory", ids[(i * 7 + 1) % 40], "memory", "refines"
            )
            memory.delete_record_link(rid)
        ckpt = memory._store._checkpointer  # type: ignore[attr-defined]
        assert ckpt is not None and ckpt.rewinds > 0
        assert ckpt.syncs > 0
        # every sync went through a descriptor naming the store's file
        assert synced and {name for _, name in synced} == {str(path.resolve())}
        conn = memory._store._conn  # type: ignore[attr-defined]
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]

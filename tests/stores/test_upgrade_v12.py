"""Schema version 12 (listing indexes): a version 11 store is upgraded on open, and
every listing and scoped read answers as the version 11 statements did.

Version 12 adds indexes only, so a version 11 store made by today's code is a
store with those indexes dropped and its mark set back: the test checks that
its objects are then those of version 11's script (tests/data/sqlite_install_v11.sql)
before opening it. The expected answers are read from the version 11 file with
plain SQL in the listings' documented order (oldest first, ties by id).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from graphmem import GraphMemory, HashingEmbedder
from graphmem.core.validation import format_time
from graphmem.stores.sqlite_schema import SCHEMA_VERSION
from graphmem.testing.model import ManualClock

_V11_INSTALL = Path(__file__).resolve().parents[1] / "data" / "sqlite_install_v11.sql"
_VERSION = "SELECT meta_value FROM graphmem_meta WHERE meta_key = 'schema_version'"
_OBJECTS = "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
_NEW_INDEXES = (
    "graphmem_memory_created_ix",
    "graphmem_link_created_ix",
    "graphmem_thread_created_ix",
    "graphmem_thread_agent_ix",
    "graphmem_profile_created_ix",
    "graphmem_job_created_ix",
)


class _IdleLlm:
    """Jobs are queued, never run (no extraction workers)."""

    def chat(self, messages: Any, json_schema: Any = None, **kw: Any) -> str:
        raise AssertionError("no job runs in this test")


def _open(path: Path, clock: ManualClock) -> GraphMemory:
    return GraphMemory(
        path, embedder=HashingEmbedder(dim=8), clock=clock, llm=_IdleLlm(), extraction_workers=0
    )


def _fill(path: Path) -> None:
    """Records in a few batches; a batch shares its created_at, so ids break ties."""
    clock = ManualClock()
    with _open(path, clock) as memory:
        for batch in range(4):
            memory.add_memories(
                [
                    {
                        "memory_id": f"m{(i * 7) % 40:02d}-{batch}",
                        "content": f"note {i} kestrel" if i % 3 else f"note {i} heron",
                        "memory_type": ("memory", "fact", "preference")[i % 3],
                        "user_id": f"u{i % 3}" if i % 5 else None,
                        "agent_id": f"a{i % 2}",
                        "thread_id": f"t{i % 4}" if i % 2 else None,
                        "metadata": {"k": i % 4},
                        "ttl_days": 1 if (i + batch) % 9 == 0 else None,
                    }
                    for i in range(40)
                ]
            )
            memory.add_record_links(
                [
                    {
                        "source_record_id": f"m{(i * 7) % 40:02d}-{batch}",
                        "source_record_type": ("memory", "fact", "preference")[i % 3],
                        "target_record_id": f"m{((i + 1) * 7) % 40:02d}-{batch}",
                        "target_record_type": ("memory", "fact", "preference")[(i + 1) % 3],
                        "relation_type": ("supports", "supersedes")[i // 2 % 2],
                        "relation_id": f"r{(i * 7) % 38:02d}-{batch}",
                    }
                    for i in range(0, 38, 2)
                ]
            )
            for k in range(3):
                thread_id = f"th{(k * 5 + batch) % 7}-{batch}"
                thread = memory.create_thread(
                    thread_id, user_id=f"u{k}", agent_id=f"a{(k + batch) % 2}",
                    enable_context_summary=False,
                )  # fmt: skip
                thread.add_messages([{"role": "user", "content": f"hello {k}"}])
                thread.schedule_extraction()
            memory.add_user(f"user{(batch * 3) % 4}-{batch}")
            memory.add_agent(f"agent{(batch * 3) % 4}-{batch}")
            clock.advance(hours=1)


def _to_v11(path: Path) -> None:
    """Version 11 as today's code left it: the version 12 indexes dropped, the
    version mark set back; the objects are then those of version 11's script."""
    conn = sqlite3.connect(path)
    for name in _NEW_INDEXES:
        conn.execute(f"DROP INDEX {name}")
    conn.execute("UPDATE graphmem_meta SET meta_value = '11' WHERE meta_key = 'schema_version'")
    conn.commit()
    fresh = sqlite3.connect(":memory:")
    fresh.executescript(_V11_INSTALL.read_text(encoding="utf-8"))
    try:
        assert set(conn.execute(_OBJECTS)) == set(fresh.execute(_OBJECTS))
        assert conn.execute(_VERSION).fetchone() == ("11",)
    finally:
        conn.close()
        fresh.close()


def _expected(path: Path, now: str) -> dict[str, list[Any]]:
    """The answers, by plain SQL on the version 11 file."""
    conn = sqlite3.connect(path)
    live = "record_type <> 'message' AND (expires_at IS NULL OR expires_at > :now)"

    def ids(sql: str, **binds: Any) -> list[Any]:
        return [r[0] for r in conn.execute(sql, {"now": now, **binds})]

    memories = f"SELECT record_id FROM graphmem_memory WHERE {live} AND {{}} "
    order = "ORDER BY created_at, record_id"
    try:
        return {
            "memories": ids(memories.format("1") + order),
            "memories page": ids(memories.format("1") + order + " LIMIT 7 OFFSET 30"),
            "memories u1": ids(memories.format("user_id = 'u1'") + order),
            "memories a0": ids(memories.format("agent_id = 'a0'") + order),
            "memories t1": ids(memories.format("thread_id = 't1'") + order),
            "memories k=2": ids(
                memories.format(
                    "record_id IN (SELECT record_id FROM graphmem_memory_meta "
                    "WHERE meta_key = 'k' AND meta_value = '2')"
                )
                + order
                + " LIMIT 5 OFFSET 3"
            ),
            "links": ids("SELECT relation_id FROM graphmem_link ORDER BY created_at, relation_id"),
            "links page": ids(
                "SELECT relation_id FROM graphmem_link WHERE relation_type = 'supersedes' "
                "ORDER BY created_at, relation_id LIMIT 4 OFFSET 5"
            ),
            "threads": ids("SELECT thread_id FROM graphmem_thread ORDER BY created_at, thread_id"),
            "threads a1": ids(
                "SELECT thread_id FROM graphmem_thread WHERE agent_id = 'a1' "
                "ORDER BY created_at, thread_id"
            ),
            "threads u0": ids(
                "SELECT thread_id FROM graphmem_thread WHERE user_id = 'u0' "
                "ORDER BY created_at, thread_id"
            ),
            "jobs": ids("SELECT job_id FROM graphmem_job ORDER BY created_at, job_id"),
            "users": ids(
                "SELECT profile_id FROM graphmem_profile WHERE profile_kind = 'user' "
                "ORDER BY created_at, profile_id"
            ),
        }
    finally:
        conn.close()


def _answers(memory: GraphMemory) -> dict[str, list[Any]]:
    def ids(records: list[Any]) -> list[Any]:
        return [r.id for r in records]

    return {
        "memories": ids(memory.list_memories(limit=1000)),
        "memories page": ids(memory.list_memories(limit=7, offset=30)),
        "memories u1": ids(memory.list_memories(user_id="u1", limit=1000)),
        "memories a0": ids(memory.list_memories(agent_id="a0", limit=1000)),
        "memories t1": ids(memory.list_memories(thread_id="t1", limit=1000)),
        "memories k=2": ids(memory.list_memories(metadata_filter={"k": 2}, limit=5, offset=3)),
        "links": [r.id for r in memory.list_record_links(limit=1000)],
        "links page": [
            r.id for r in memory.list_record_links(relation_type="supersedes", limit=4, offset=5)
        ],
        "threads": [t.thread_id for t in memory.list_threads(limit=1000)],
        "threads a1": [t.thread_id for t in memory.list_threads(agent_id="a1")],
        "threads u0": [t.thread_id for t in memory.list_threads(user_id="u0")],
        "jobs": [j.job_id for j in memory.list_jobs(limit=1000)],
        "users": [p.id for p in memory.list_users(limit=1000)],
    }


def test_v11_store_is_upgraded_on_open_and_answers_as_before(tmp_path: Path) -> None:
    path = tmp_path / "v11.db"
    _fill(path)
    _to_v11(path)
    clock = ManualClock()
    clock.advance(hours=30)  # some memories have expired
    expected = _expected(path, format_time(clock()))
    assert all(expected.values()) and len(expected["memories"]) > 100
    with _open(path, clock) as memory:
        assert _answers(memory) == expected
        counts = (
            memory.count_record_links(relation_type="supersedes"),
            memory.count_threads(agent_id="a1"),
            memory.count_threads(),
        )
    conn = sqlite3.connect(path)
    try:
        assert conn.execute(_VERSION).fetchone() == (SCHEMA_VERSION,) == ("12",)
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert set(_NEW_INDEXES) <= names
        assert counts == (
            conn.execute(
                "SELECT COUNT(*) FROM graphmem_link WHERE relation_type = 'supersedes'"
            ).fetchone()[0],
            len(expected["threads a1"]),
            len(expected["threads"]),
        )
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()

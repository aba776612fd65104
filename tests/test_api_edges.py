"""Edges of the Python API: reads that span several statements see one snapshot,
a handle closed under a call, subgraph arguments and expiry, custom link types
kept on update, mapping types in metadata, and limits of labels and expiry."""

from __future__ import annotations

import asyncio
import threading
from collections import ChainMap, UserDict
from datetime import datetime, timezone
from pathlib import Path
from types import MappingProxyType

import pytest

from graphmem import ClosedError, GraphMemory, InvalidArgumentError
from graphmem.testing.memory_store import MemoryStore
from graphmem.testing.model import ManualClock


def _chain(path: Path) -> GraphMemory:
    memory = GraphMemory(path)
    for name in ("root", "mid", "leaf"):
        memory.add_memory(f"memory {name}", memory_id=name)
    memory.link_records("mid", "memory", "root", "memory", "supports")
    memory.link_records("leaf", "memory", "mid", "memory", "supersedes")
    return memory


@pytest.mark.parametrize("call", ["tree", "subgraph", "explain_invalid", "history"])
def test_a_read_of_many_statements_sees_one_snapshot(tmp_path: Path, call: str) -> None:
    """Another connection deletes a record the read reaches, between two of its
    statements: the read still sees the store as it was when it began."""
    path = tmp_path / "m.db"
    memory, other = _chain(path), GraphMemory(path)
    deleted: list[str] = []

    def then_delete(name: str) -> None:
        """Make ``memory.<name>`` let the other connection delete "leaf" after its first call."""
        read = getattr(memory, name)

        def read_then_delete(*args: object, **kwargs: object) -> object:
            found = read(*args, **kwargs)
            if not deleted:
                deleted.append(other.delete_memory("leaf"))
            return found

        setattr(memory, name, read_then_delete)

    start = "mid"
    if call == "tree":  # the root is read, then its tree
        then_delete("get_memory")
        ids = [child.id for _, child in memory.tree(start).linked_results]
        assert sorted(ids) == ["leaf", "root"]
    elif call == "subgraph":
        then_delete("list_record_links")
        records, _ = memory.subgraph([start])
        assert [r.id for r in records] == ["mid", "leaf", "root"]
    elif call == "history":
        then_delete("list_record_links")
        assert [s.record.id for s in memory.history(start).newer] == ["leaf"]
    else:
        then_delete("get_memory")
        assert [r.id for _, r in memory.explain_invalid(start).reasons] == ["leaf"]
    assert deleted  # the other connection did delete it meanwhile
    memory.close()
    other.close()


def test_a_call_on_a_connection_closed_under_it_is_a_closed_error(tmp_path: Path) -> None:
    memory = GraphMemory(tmp_path / "m.db")
    memory.add_memory("x", memory_id="x")
    memory._store._conn.close()  # type: ignore[attr-defined]  # as another thread's close() does
    with pytest.raises(ClosedError):
        memory.get_memory("x")
    with pytest.raises(ClosedError):
        memory.add_memory("y")


def test_async_calls_on_a_closed_handle_start_no_threads() -> None:
    memory = GraphMemory()
    memory.close()
    before = {t.name for t in threading.enumerate()}
    for _ in range(3):
        with pytest.raises(ClosedError):
            asyncio.run(memory.list_memories_async())
    assert not {t.name for t in threading.enumerate()} - before


@pytest.mark.parametrize("store", ["sqlite", "memory"])
def test_subgraph_order_arguments_and_expiry(tmp_path: Path, store: str) -> None:
    clock = ManualClock()
    where = tmp_path / "m.db" if store == "sqlite" else MemoryStore()
    with GraphMemory(where, clock=clock) as memory:  # type: ignore[arg-type]
        for name in "abcd":
            memory.add_memory(name, memory_id=name)
        memory.add_memory("e", memory_id="e", ttl_days=1)
        memory.add_memory("f", memory_id="f")
        memory.link_records("a", "memory", "c", "memory", "supports")
        memory.link_records("b", "memory", "d", "memory", "supports")
        memory.link_records("a", "memory", "e", "memory", "supports")
        memory.link_records("e", "memory", "f", "memory", "supports")
        records, _ = memory.subgraph(["b", "a"], num_hops=2)
        assert [r.id for r in records] == ["a", "b", "c", "d", "e", "f"]
        clock.advance(days=2)  # e expires: neither returned nor passed through
        records, links = memory.subgraph(["b", "a"], num_hops=2)
        assert [r.id for r in records] == ["a", "b", "c", "d"]
        assert all("e" not in (k.source_record_id, k.target_record_id) for k in links)
        for one_id in ("ab", b"a"):
            with pytest.raises(InvalidArgumentError, match="memory_ids"):
                memory.subgraph(one_id)  # type: ignore[arg-type]


def test_update_of_a_custom_link_may_repeat_its_type(tmp_path: Path) -> None:
    with GraphMemory(tmp_path / "m.db") as memory:
        memory.add_memory("a", memory_id="a")
        memory.add_memory("b", memory_id="b")
        rid = memory.link_records(
            "a", "memory", "b", "memory", "mentions", opposite_relation_type="is_mentioned_by"
        )
        link = memory.update_record_link(rid, relation_type="mentions", metadata={"x": 1})
        assert (link.relation_type, link.opposite_relation_type) == ("mentions", "is_mentioned_by")
        assert link.metadata == {"x": 1}


def test_a_relation_type_with_nul_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    with GraphMemory(tmp_path / "m.db") as memory:
        memory.add_memory("a", memory_id="a")
        memory.add_memory("b", memory_id="b")
        with pytest.raises(InvalidArgumentError, match="relation_type"):
            memory.link_records(
                "a", "memory", "b", "memory", "men\x00tions", opposite_relation_type="x"
            )
        with pytest.raises(InvalidArgumentError, match="opposite_relation_type"):
            memory.link_records(
                "a", "memory", "b", "memory", "mentions", opposite_relation_type="x\x00"
            )
        assert memory.list_record_links() == []


def test_metadata_may_be_any_mapping(tmp_path: Path) -> None:
    with GraphMemory(tmp_path / "m.db") as memory:
        given = [
            UserDict({"n": 1}),
            ChainMap({"n": 1}),
            {"n": 1, "inner": MappingProxyType({"k": (1, 2)})},
        ]
        for index, metadata in enumerate(given):
            memory.add_memory(f"m{index}", memory_id=f"m{index}", metadata=metadata)
        assert memory.get_memory("m2").metadata == {"n": 1, "inner": {"k": [1, 2]}}
        found = memory.list_memories(metadata_filter=UserDict({"n": 1}))
        assert [r.id for r in found] == ["m0", "m1", "m2"]


@pytest.mark.parametrize("store", ["sqlite", "memory"])
def test_the_lowest_int64_as_a_float_equals_the_int(tmp_path: Path, store: str) -> None:
    where = tmp_path / "m.db" if store == "sqlite" else MemoryStore()
    with GraphMemory(where) as memory:  # type: ignore[arg-type]
        memory.add_memory("lowest", memory_id="lowest", metadata={"k": -(2**63)})
        assert [r.id for r in memory.list_memories(metadata_filter={"k": float(-(2**63))})] == [
            "lowest"
        ]


def test_an_expiry_past_the_year_9999_is_refused() -> None:
    clock = ManualClock(datetime(9990, 1, 1, tzinfo=timezone.utc))
    with GraphMemory(clock=clock) as memory:
        with pytest.raises(InvalidArgumentError, match="ttl_days"):
            memory.add_memory("x", ttl_days=365_000)
        assert memory.list_memories() == []


def test_times_a_dba_stored_in_other_iso_forms_are_read(tmp_path: Path) -> None:
    """``Z`` and other fraction digits (which Python 3.10's parser refuses) read
    as UTC; text that is no time at all is a BackendError, not a traceback."""
    import sqlite3

    from graphmem import BackendError

    path = tmp_path / "m.db"
    GraphMemory(path).close()
    conn = sqlite3.connect(path)
    insert = (
        "INSERT INTO graphmem_memory (record_id, record_type, content, created_at) "
        "VALUES (?, 'memory', 'by hand', ?)"
    )
    conn.execute(insert, ("z", "2024-01-01T00:00:00Z"))
    conn.execute(insert, ("frac", "2024-01-01T00:00:00.5+00:00"))
    conn.execute(insert, ("naive", "2024-01-01T00:00:00"))
    conn.execute(insert, ("bad", "yesterday"))
    conn.commit()
    conn.close()
    with GraphMemory(path) as memory:
        expected = datetime(2024, 1, 1, tzinfo=timezone.utc)
        assert memory.get_memory("z").created_at == expected
        assert memory.get_memory("naive").created_at == expected
        assert memory.get_memory("frac").created_at.microsecond == 500_000
        with pytest.raises(BackendError, match="not ISO 8601"):
            memory.get_memory("bad")

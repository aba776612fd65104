"""export_jsonl / import_jsonl of GraphMemory."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest

from graphmem import GraphMemory, HashingEmbedder
from graphmem.errors import BackendError, InvalidArgumentError
from graphmem.stores.base import NewMemory
from graphmem.testing.memory_store import MemoryStore
from graphmem.transfer import ImportLineError, ImportReport, ImportStoreError
from graphmem.transfer_batch import _Checked, _located

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _export(memory: GraphMemory) -> bytes:
    out = io.StringIO()
    memory.export_jsonl(out)
    return out.getvalue().encode("utf-8")


def test_round_trip_keeps_fields_links_and_status() -> None:
    source = GraphMemory(":memory:")
    source.add_memory(
        "old",
        memory_id="a",
        memory_type="fact",
        user_id="u",
        agent_id="g",
        thread_id="t",
        metadata={"k": [1, {"x": None}]},
        timestamp="2020-05-05T00:00:00Z",
        ttl_days=30,
    )
    source.add_memory("new", memory_id="b", memory_type="fact")
    source.link_records(
        "b",
        "fact",
        "a",
        "fact",
        "supersedes",
        relation_id="L",
        metadata={"why": "newer"},
        timestamp="2021-01-01T00:00:00Z",
    )
    target = GraphMemory(":memory:")
    report = target.import_jsonl(io.BytesIO(_export(source)))
    assert (report.memories, report.links) == (2, 1)
    a_src, a_dst = source.get_memory("a"), target.get_memory("a")
    same = (
        "content",
        "record_type",
        "user_id",
        "agent_id",
        "thread_id",
        "metadata",
        "timestamp",
        "status",
    )
    assert {f: getattr(a_dst, f) for f in same} == {f: getattr(a_src, f) for f in same}
    assert a_dst.expires_at is not None
    assert target.get_record_link("L").metadata == {"why": "newer"}
    assert target.get_record_link("L").timestamp == source.get_record_link("L").timestamp


def test_an_expired_memory_line_is_stored_expired_and_hidden() -> None:
    line = (
        '{"kind":"memory","memory_id":"x","content":"c","expires_at":"'
        + (NOW - timedelta(days=1)).isoformat()
        + '"}\n'
    )
    target = GraphMemory(":memory:", clock=lambda: NOW)
    report = target.import_jsonl(io.BytesIO(line.encode()))
    assert (report.memories, report.expired) == (1, 0)
    assert target.list_memories() == [] and target.search("c") == []
    assert target.get_memory("x").expires_at == NOW - timedelta(days=1)


def test_bad_line_error_carries_line_number_and_report() -> None:
    data = b'{"kind":"memory","memory_id":"a","content":"x"}\n\n[1]\n'
    target = GraphMemory(":memory:")
    with pytest.raises(ImportLineError, match="line 3: must be a JSON object") as info:
        target.import_jsonl(io.BytesIO(data), batch_size=1)
    assert info.value.line == 3 and info.value.report.memories == 1


def test_invalid_utf8_is_reported_with_its_line() -> None:
    with pytest.raises(ImportLineError, match="line 1: is not UTF-8"):
        GraphMemory(":memory:").import_jsonl(io.BytesIO(b"\xff\n"))


def test_resume_needs_ids() -> None:
    with pytest.raises(ImportLineError, match="memory_id: needed to resume"):
        GraphMemory(":memory:").import_jsonl(
            io.BytesIO(b'{"kind":"memory","content":"x"}\n'), resume=True
        )


class _Embedder:
    def __init__(self, dim: int) -> None:
        self.dim = dim

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), self.dim), dtype=np.float32)


def test_import_into_a_store_of_another_embedder_is_refused_and_writes_nothing(tmp_path) -> None:
    db = tmp_path / "m.db"
    with GraphMemory(db, embedder=_Embedder(4)) as memory:
        memory.add_memory("stored first", memory_id="a")
    data = b'{"kind":"memory","memory_id":"b","content":"x"}\n'
    with GraphMemory(db, embedder=_Embedder(8)) as memory:
        with pytest.raises(ImportStoreError, match=r"embedd") as info:
            memory.import_jsonl(io.BytesIO(data))
        assert not str(info.value).startswith("line")
        assert info.value.report.memories == 0
        assert [r.id for r in memory.list_memories()] == ["a"]


class _FailingStore(MemoryStore):
    """Writes its first batch of memories, then fails as a read-only database does."""

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def insert_memories(self, memories: Sequence[NewMemory]) -> None:
        self.writes += 1
        if self.writes > 1:
            raise BackendError("SQLite failed: attempt to write a readonly database")
        super().insert_memories(memories)


def test_a_store_failure_is_a_store_error_that_blames_no_line() -> None:
    memory = GraphMemory(_FailingStore())
    data = b"".join(
        f'{{"kind":"memory","memory_id":"m{i}","content":"memory {i}"}}\n'.encode()
        for i in range(4)
    )
    with pytest.raises(ImportStoreError, match=r"^SQLite failed: attempt to write") as info:
        memory.import_jsonl(io.BytesIO(data), batch_size=2)
    assert isinstance(info.value.__cause__, BackendError)
    assert (info.value.report.memories, info.value.report.committed_line) == (2, 2)
    assert [r.id for r in memory.list_memories()] == ["m0", "m1"]


def test_an_error_about_a_whole_batch_item_names_its_line_and_no_empty_field() -> None:
    todo = _Checked(memories=[(7, {})], links=[], extras=[], record_ids={}, relation_ids={})
    error = InvalidArgumentError("memories[0]", "must be a mapping with content")
    located = _located(error, todo, ImportReport())
    assert (located.line, str(located)) == (7, "line 7: must be a mapping with content")


def test_import_of_a_stored_id_is_refused_whatever_the_batch_holds() -> None:
    target = GraphMemory(":memory:")
    target.add_memory("kept", memory_id="a")
    data = (
        b'{"kind":"memory","memory_id":"b","content":"new"}\n'
        b'{"kind":"memory","memory_id":"a","content":"again"}\n'
    )
    with pytest.raises(ImportLineError, match="line 2: memory_id: 'a' already exists"):
        target.import_jsonl(io.BytesIO(data))
    assert [r.id for r in target.list_memories()] == ["a"]
    assert target.get_memory("a").content == "kept"


def _paged_store(memory: GraphMemory) -> None:
    """Eight memories (n3 and n7 expire after a day), six links (none of n7)."""
    for i in range(8):
        memory.add_memory(f"note {i}", memory_id=f"n{i}", ttl_days=1 if i in (3, 7) else None)
    for i in range(6):
        memory.link_records(f"n{i + 1}", "memory", f"n{i}", "memory", "supports")


@pytest.mark.parametrize("kind", ["file", "memory store"])
def test_export_writes_page_by_page_in_the_listing_order(
    kind: str, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graphmem import transfer
    from graphmem.core.jsonl import link_line, memory_line
    from graphmem.testing.memory_store import MemoryStore

    now = [NOW]

    def clock() -> datetime:  # each row its own time, so the order is by time
        now[0] += timedelta(seconds=1)
        return now[0]

    opened = (
        GraphMemory(tmp_path / "g.db", clock=clock)
        if kind == "file"
        else GraphMemory(connection=MemoryStore(), clock=clock)
    )
    with opened as memory:
        _paged_store(memory)
        now[0] += timedelta(days=2)  # n3 and n7 have expired
        kept = memory.list_memories(limit=100, include_expired=True)
        # an expired memory goes with its links (n3), an expired one without is left out
        listed = [memory_line(m) for m in kept if m.id != "n7"]
        linked = [link_line(r) for r in memory.list_record_links()]
        whole = _export(memory).decode("utf-8").splitlines()
        for page in (1, 2, 3, 6, 7, 8):  # pages that end on the last row, or after it
            monkeypatch.setattr(transfer, "_EXPORT_PAGE", page)
            out = io.StringIO()
            assert memory.export_jsonl(out, threads=False, prompts=False) == (7, 6)
            assert out.getvalue().splitlines() == listed + linked
            out = io.StringIO()
            memory.export_jsonl(out)
            assert out.getvalue().splitlines() == whole
    assert len(listed) == 7 and '"n3"' in "".join(listed) and '"n7"' not in "".join(whole)
    assert len(linked) == 6 and len(whole) == 13


class _Sink(io.TextIOBase):
    """A text stream that keeps only the count of what it was given."""

    def __init__(self) -> None:
        self.chars = 0

    def write(self, text: str) -> int:
        self.chars += len(text)
        return len(text)


def test_export_memory_use_grows_with_the_page_not_the_store(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tracemalloc

    from graphmem import transfer

    monkeypatch.setattr(transfer, "_EXPORT_PAGE", 100)
    body = "x" * 4000
    with GraphMemory(tmp_path / "g.db") as memory:
        ids = memory.add_memories(
            [{"content": f"{body} {i}", "memory_id": f"m{i}"} for i in range(3000)]
        )
        memory.add_record_links(
            [
                {
                    "source_record_id": ids[i + 1],
                    "source_record_type": "memory",
                    "target_record_id": ids[i],
                    "target_record_type": "memory",
                    "relation_type": "supports",
                    "metadata": {"note": body},
                }
                for i in range(2999)
            ]
        )
        sink = _Sink()
        tracemalloc.start()
        try:
            assert memory.export_jsonl(sink, threads=False, prompts=False) == (3000, 2999)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    # 24 MB of text went out; a page of 100 memories or links holds about 0.4 MB.
    assert sink.chars > 24_000_000
    assert peak < 6_000_000, peak


class _FullDisk(io.TextIOBase):
    """A text stream that fails on its fourth write."""

    def __init__(self) -> None:
        self.writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        if self.writes > 3:
            raise OSError("no space left on device")
        return len(text)


def test_an_export_that_fails_midway_leaves_the_store_usable(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graphmem import transfer

    monkeypatch.setattr(transfer, "_EXPORT_PAGE", 2)
    with GraphMemory(tmp_path / "g.db") as memory:
        for i in range(6):
            memory.add_memory(f"note {i}", memory_id=f"n{i}")
        with pytest.raises(OSError, match="no space"):
            memory.export_jsonl(_FullDisk(), threads=False, prompts=False)
        memory.add_memory("after", memory_id="z")  # no read transaction left open
        memory.link_records("z", "memory", "n1", "memory", "supports")
        with GraphMemory(tmp_path / "g.db") as other:  # nor a lock
            other.add_memory("other", memory_id="o")
        out = io.StringIO()
        assert memory.export_jsonl(out, threads=False, prompts=False) == (8, 1)


def _answers(memory: GraphMemory) -> dict[str, object]:
    """What the store answers about its memories and links, expired ones too."""
    return {
        "listed": memory.list_memories(limit=100),
        "all": memory.list_memories(limit=100, include_expired=True),
        "search": [(r.record.id, r.record.status) for r in memory.search("memory", num_hops=2)],
        "links": memory.list_record_links(),
        "stats": memory.stats(),
    }


@pytest.mark.parametrize("kind", ["sqlite", "memory store"])
def test_an_export_keeps_the_expired_memories_of_links_so_a_copy_answers_alike(
    tmp_path: Path, kind: str
) -> None:
    clock = {"now": NOW}
    opened = tmp_path / "e.db" if kind == "sqlite" else MemoryStore()
    source = GraphMemory(opened, embedder=HashingEmbedder(dim=8), clock=lambda: clock["now"])
    for memory_id, ttl in (("keep", None), ("temp", 1.0), ("old", None), ("gone", 1.0)):
        source.add_memory(f"Memory {memory_id}.", memory_id=memory_id, ttl_days=ttl)
    source.link_records("keep", "memory", "temp", "memory", "supports", relation_id="to-temp")
    source.link_records("temp", "memory", "old", "memory", "supersedes", relation_id="from-temp")
    source.link_records("keep", "memory", "old", "memory", "supports", relation_id="kept")
    clock["now"] = NOW + timedelta(days=2)  # temp and gone have expired
    buffer = io.StringIO()
    # temp stays stored with its links (old stays invalid): it goes with them; gone has none
    assert source.export_jsonl(buffer) == (3, 3)
    assert '"gone"' not in buffer.getvalue()
    target = GraphMemory(":memory:", embedder=HashingEmbedder(dim=8), clock=lambda: clock["now"])
    report = target.import_jsonl(io.BytesIO(buffer.getvalue().encode()))
    assert (report.memories, report.links, report.expired) == (3, 3, 0)
    assert target.get_memory("old").status == "invalid"
    expected = _answers(source)
    every = source.list_memories(limit=100, include_expired=True)
    expected["all"] = [m for m in every if m.id != "gone"]
    assert _answers(target) == expected
    assert [m.id for m in target.list_memories(include_invalid_results=True)] == ["keep", "old"]
    source.close()
    target.close()


def test_an_import_keeps_creation_times_so_capped_trees_keep_their_links() -> None:
    """A capped tree keeps the earliest links; the import keeps which ones those are,
    also when the whole file is one batch (one import time for every row)."""
    times = iter(NOW + timedelta(seconds=s) for s in range(100))
    source = GraphMemory(":memory:", clock=lambda: next(times))
    source.add_memory("root", memory_id="r")
    for name in ("a", "b", "c"):
        source.add_memory(f"neighbour {name}", memory_id=name)
    # created a, then b, then c, with relation ids in the other order
    for name, relation in (("a", "z"), ("b", "y"), ("c", "x")):
        source.link_records(name, "memory", "r", "memory", "supports", relation_id=relation)
    dump = _export(source)
    shown = source.tree("r", 1, 2)
    assert [r.id for _, r in shown.linked_results] == ["a", "b"]
    target = GraphMemory(":memory:", clock=lambda: NOW + timedelta(days=1))
    target.import_jsonl(io.BytesIO(dump))
    assert target.tree("r", 1, 2).linked_results == shown.linked_results
    assert target.list_record_links() == source.list_record_links()
    assert [m.created_at for m in target.list_memories()] == [
        m.created_at for m in source.list_memories()
    ]


def test_an_import_refuses_a_creation_time_that_is_not_a_time() -> None:
    line = json.dumps({"kind": "memory", "content": "x", "created_at": "yesterday"})
    with GraphMemory(":memory:") as memory:
        with pytest.raises(ImportLineError, match=r"line 1: created_at: is not ISO 8601"):
            memory.import_jsonl(io.BytesIO(line.encode()))
        assert memory.stats().memories == 0


def test_paged_export_writes_each_profile_thread_and_message_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graphmem import transfer_export

    monkeypatch.setattr(transfer_export, "_PAGE", 2)
    with GraphMemory(tmp_path / "g.db", embedder=HashingEmbedder(dim=8)) as memory:
        for i in range(5):
            memory.add_user(f"u{i}", f"user {i}")
        thread = memory.create_thread("t", user_id="u0")
        thread.add_messages([{"role": "user", "content": f"m{i}"} for i in range(5)])
        out = io.StringIO()
        memory.export_jsonl(out)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    users = [x["user_id"] for x in lines if x.get("kind") == "user"]
    assert sorted(users) == [f"u{i}" for i in range(5)]
    text = out.getvalue()
    assert [text.count(f'"m{i}"') for i in range(5)] == [1] * 5

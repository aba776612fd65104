"""export_jsonl / import_jsonl of GraphMemory."""

from __future__ import annotations

import io
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from graphmem import GraphMemory
from graphmem.transfer import ImportLineError

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


def test_expired_lines_are_counted_not_imported() -> None:
    line = (
        '{"kind":"memory","memory_id":"x","content":"c","expires_at":"'
        + (NOW - timedelta(days=1)).isoformat()
        + '"}\n'
    )
    target = GraphMemory(":memory:", clock=lambda: NOW)
    report = target.import_jsonl(io.BytesIO(line.encode()))
    assert (report.memories, report.expired) == (0, 1)


def test_bad_line_error_carries_line_number_and_report() -> None:
    data = b'{"kind":"memory","memory_id":"a","content":"x"}\n\n[1]\n'
    target = GraphMemory(":memory:")
    with pytest.raises(ImportLineError, match="line 3: line: must be a JSON object") as info:
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
        with pytest.raises(ImportLineError, match=r"line 1:.*embedd") as info:
            memory.import_jsonl(io.BytesIO(data))
        assert info.value.report.memories == 0
        assert [r.id for r in memory.list_memories()] == ["a"]


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

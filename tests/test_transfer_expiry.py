"""export_jsonl / import_jsonl of memories and messages that expire."""

from __future__ import annotations

import io
import json
import random
from datetime import datetime, timedelta, timezone

import pytest

from graphmem import GraphMemory, HashingEmbedder
from graphmem.transfer import ImportLineError

NOW = datetime(2026, 1, 1, 0, 0, 0, 123457, tzinfo=timezone.utc)


class _Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def _open(clock: _Clock) -> GraphMemory:
    return GraphMemory(":memory:", embedder=HashingEmbedder(dim=8), clock=clock)


def _export(memory: GraphMemory) -> bytes:
    out = io.StringIO()
    memory.export_jsonl(out)
    return out.getvalue().encode("utf-8")


def test_a_backup_imports_whole_after_one_of_its_linked_memories_expired() -> None:
    clock = _Clock(NOW)
    with _open(clock) as source:
        source.add_memory("A fact.", memory_id="fact")
        source.add_memory("Short lived.", memory_id="short", ttl_days=2)
        source.link_records("fact", "memory", "short", "memory", "supports", relation_id="l")
        dump = _export(source)
    clock.now = NOW + timedelta(days=3)  # short has expired since the export
    with _open(clock) as target:
        report = target.import_jsonl(io.BytesIO(dump))
        assert (report.memories, report.links, report.committed_line) == (2, 1, 3)
        assert [m.id for m in target.list_memories()] == ["fact"]
        assert [link.id for link in target.list_record_links("short")] == ["l"]
        again = target.import_jsonl(io.BytesIO(dump), resume=True)
        assert (again.memories, again.links, again.skipped) == (0, 0, 3)


def test_a_round_trip_keeps_every_expiry_exactly() -> None:
    clock = _Clock(NOW)
    rng = random.Random(1)
    with _open(clock) as source:
        for i in range(50):
            source.add_memory(f"m{i}", memory_id=f"m{i}", ttl_days=rng.uniform(0.001, 300_000))
        chat = source.create_thread("t", user_id="u", enable_context_summary=False)
        for i in range(5):
            chat.add_messages(
                [{"role": "user", "content": f"message {i}"}], ttl_days=rng.uniform(1, 9_000)
            )
            clock.now += timedelta(microseconds=333_333)
        clock.now += timedelta(seconds=7.654321)
        dump = _export(source)
        memories = source.list_memories(limit=100, include_expired=True)
        messages = chat.get_messages()
    clock.now += timedelta(seconds=1.000003)  # the import runs later
    with _open(clock) as target:
        target.import_jsonl(io.BytesIO(dump), batch_size=7)
        copied = target.list_memories(limit=100, include_expired=True)
        assert [m.expires_at for m in copied] == [m.expires_at for m in memories]
        assert [m.expires_at for m in target.get_thread("t").get_messages()] == [
            m.expires_at for m in messages
        ]
        assert all(m.expires_at is not None for m in [*copied, *messages])


def test_a_hand_written_ttl_counts_from_the_import_and_wins_over_expires_at() -> None:
    lines = [
        {"kind": "memory", "memory_id": "a", "content": "x", "ttl_days": 2},
        {
            "kind": "memory",
            "memory_id": "b",
            "content": "y",
            "ttl_days": 1,
            "created_at": "2020-01-01T00:00:00Z",
            "expires_at": "2020-01-02T00:00:00Z",
        },
    ]
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    with _open(_Clock(NOW)) as target:
        target.import_jsonl(io.BytesIO(data))
        assert target.get_memory("a").expires_at == NOW + timedelta(days=2)
        assert target.get_memory("b").expires_at == NOW + timedelta(days=1)


def test_expired_message_lines_are_counted_once_their_batch_is_stored() -> None:
    past = (NOW - timedelta(seconds=1)).isoformat()
    thread = {"kind": "thread", "thread_id": "t", "message_count": 3}
    message = {"kind": "message", "thread_id": "t", "role": "user", "content": "hi"}
    lines = [
        thread,
        {**message, "message_id": "old", "position": 0, "expires_at": past},
        {**message, "message_id": "new", "position": 1},
        {**message, "message_id": "gone", "position": 2, "expires_at": past},
    ]
    data = "".join(json.dumps(line) + "\n" for line in lines)
    with _open(_Clock(NOW)) as target:
        bad = data + json.dumps({**message, "message_id": "x", "role": "robot"}) + "\n"
        with pytest.raises(ImportLineError, match="line 5: role") as caught:
            target.import_jsonl(io.BytesIO(bad.encode()), batch_size=3)
        # line 4's batch was not stored: its expired line is not counted yet
        assert (caught.value.report.expired, caught.value.report.committed_line) == (1, 3)
        report = target.import_jsonl(io.BytesIO(data.encode()), batch_size=3, resume=True)
        assert (report.messages, report.skipped, report.expired) == (0, 2, 2)
        assert [m.id for m in target.get_thread("t").get_messages()] == ["new"]

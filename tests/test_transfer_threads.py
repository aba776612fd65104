"""export_jsonl / import_jsonl of users, agents, threads, messages and prompts."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from graphmem import GraphMemory
from graphmem.transfer import ImportLineError


def _store_with_threads(memory: GraphMemory) -> None:
    memory.add_user("u1", "Alice, pizza lover", metadata={"tier": 2})
    memory.add_agent("a1", "the ordering bot")
    chat = memory.create_thread(
        "t1",
        user_id="u1",
        agent_id="a1",
        metadata={"channel": "web"},
        enable_context_summary=False,
        context_card_token_limit=5000,
    )
    chat.add_messages(
        [
            {"role": "user", "content": "I like sourdough."},
            {"role": "assistant", "content": "Noted: sourdough."},
        ],
        metadata={"lang": "en"},
    )
    chat.add_messages([{"role": "user", "content": "And thin crust, please."}])
    chat.delete_message(chat.get_messages()[1].id)  # leaves a gap at position 1
    memory.create_thread("t2", user_id="u1")  # a thread without messages
    memory.add_memory("Likes sourdough.", memory_id="m1", thread_id="t1", user_id="u1")
    memory.add_memory("Likes thin crust.", memory_id="m2", user_id="u1")
    memory.link_records("m2", "memory", "m1", "memory", "supersedes", relation_id="l1")
    memory.create_prompt("tickets", "Extract ticket ids.", "support tickets", {"team": "ops"})
    memory.update_prompt("tickets", prompt="Extract ticket ids and dates.")
    memory.update_prompt("tickets", prompt="Extract ticket ids, dates and owners.")
    memory.archive_prompt("tickets", 0)
    memory.purge_prompt("tickets", 1)  # leaves versions 0 (archived) and 2 (current)
    memory.create_prompt("notes", "Extract notes.", "meeting notes")
    memory.archive_prompt("notes")


def _snapshot(memory: GraphMemory) -> dict[str, Any]:
    """Everything an import carries over: creation times too, except a thread's
    (the import makes a new thread) and the update times (the import's own)."""
    threads = memory.list_threads()
    prompts = memory.list_prompts().prompts
    return {
        "users": [p.model_dump() for p in memory.list_users()],
        "agents": [p.model_dump() for p in memory.list_agents()],
        "threads": [t.model_dump(exclude={"created_at", "updated_at"}) for t in threads],
        "messages": [
            m.model_dump() for t in threads for m in memory.get_thread(t.thread_id).get_messages()
        ],
        "memories": [
            r.model_dump(exclude={"invalidated_by"}) for r in memory.list_memories(limit=100)
        ],
        "links": [link.model_dump() for link in memory.list_record_links()],
        "prompts": [p.model_dump(exclude={"updated_at"}) for p in prompts],
        "versions": [
            v.model_dump()
            for p in prompts
            for v in memory.list_prompt_versions(p.prompt_id).versions
        ],
    }


def _export(memory: GraphMemory, **options: bool) -> str:
    out = io.StringIO()
    memory.export_jsonl(out, **options)
    return out.getvalue()


def _import(memory: GraphMemory, text: str, **options: Any) -> Any:
    return memory.import_jsonl(io.BytesIO(text.encode("utf-8")), **options)


def test_export_import_round_trips_a_store_with_threads_and_prompts(tmp_path: Path) -> None:
    with GraphMemory(tmp_path / "a.db") as source:
        _store_with_threads(source)
        dump = _export(source)
        expected = _snapshot(source)
    kinds = [json.loads(line)["kind"] for line in dump.splitlines()]
    conversation = ["user", "agent", "thread", "thread", "message", "message"]
    assert kinds == [*conversation, "memory", "memory", "link", "prompt", "prompt"]
    with GraphMemory(tmp_path / "b.db") as target:
        report = _import(target, dump)
        assert (report.users, report.agents, report.threads, report.messages) == (1, 1, 2, 2)
        assert (report.memories, report.links, report.prompts) == (2, 1, 2)
        assert _snapshot(target) == expected
        # the restored thread goes on where the original stopped
        chat = target.get_thread("t1")
        assert chat.info().message_count == 3
        chat.add_messages([{"role": "user", "content": "One more."}])
        assert [m.position for m in chat.get_messages()] == [0, 2, 3]
        # the restored registry keeps its vids, archive marks and next vid
        assert target.update_prompt("tickets", prompt="Extract everything.").vid == 3
        assert target.stats().messages == 3


def test_options_leave_threads_or_prompts_out() -> None:
    with GraphMemory() as memory:
        _store_with_threads(memory)
        kinds = {json.loads(line)["kind"] for line in _export(memory, threads=False).splitlines()}
        assert kinds == {"memory", "link", "prompt"}
        kinds = {json.loads(line)["kind"] for line in _export(memory, prompts=False).splitlines()}
        assert kinds == {"user", "agent", "thread", "message", "memory", "link"}


def test_resume_skips_threads_messages_and_prompts_already_stored() -> None:
    with GraphMemory() as source:
        _store_with_threads(source)
        dump = _export(source)
    with GraphMemory() as target:
        _import(target, dump)
        before = _snapshot(target)
        again = _import(target, dump, resume=True)
        assert (again.threads, again.messages, again.prompts, again.memories) == (0, 0, 0, 0)
        assert again.skipped == len(dump.splitlines())
        assert _snapshot(target) == before
        with pytest.raises(ImportLineError, match=r"line 1: user 'u1' already exists"):
            _import(target, dump)


class _CountingEmbedder:
    def __init__(self) -> None:
        self.texts = 0

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.texts += len(texts)
        return np.ones((len(texts), 4), dtype=np.float32)


def test_resume_does_not_embed_stored_memories_and_messages_again() -> None:
    with GraphMemory() as source:
        _store_with_threads(source)
        dump = _export(source)
    embedder = _CountingEmbedder()
    with GraphMemory(embedder=embedder) as target:
        _import(target, dump)
        assert embedder.texts == 4  # two memories, two messages
        _import(target, dump, resume=True)
        assert embedder.texts == 4


def _lines(*payloads: dict[str, Any]) -> str:
    return "".join(json.dumps(p) + "\n" for p in payloads)


THREAD = {"kind": "thread", "thread_id": "t", "message_count": 2}
MESSAGE = {"kind": "message", "message_id": "x", "thread_id": "t", "role": "user", "content": "hi"}


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (_lines({**MESSAGE, "position": 0}), r"line 1: thread_id: no thread 't'"),
        (_lines(THREAD, {**MESSAGE, "position": 2}), r"line 2: position: 2 is not below"),
        (_lines(THREAD, {**MESSAGE, "position": 0, "role": "bot"}), r"line 2: role: must be one"),
        (_lines(THREAD, {**MESSAGE}), r"line 2: position: is required"),
        (
            _lines(
                THREAD, {**MESSAGE, "position": 0}, {**MESSAGE, "message_id": "y", "position": 0}
            ),
            r"line 3: position: 0 repeats line 2",
        ),
        (_lines(THREAD, THREAD), r"line 2: thread 't' repeats line 1"),
        (_lines({**THREAD, "summarized_count": 3}), r"line 1: summarized_count: must be at most"),
        (
            _lines({**THREAD, "settings": {"context_card_token_limit": "x"}}),
            r"line 1: context_card_token_limit: must be an integer",
        ),
        (
            _lines({"kind": "prompt", "prompt_id": "p", "description": "d", "versions": []}),
            r"line 1: versions: must be a non-empty list",
        ),
        (
            _lines(
                {
                    "kind": "prompt",
                    "prompt_id": "p",
                    "description": "d",
                    "current_vid": 4,
                    "versions": [{"vid": 0, "prompt": "Extract facts."}],
                }
            ),
            r"line 1: current_vid: 4 is not among the versions",
        ),
        (_lines(THREAD, {**MESSAGE, "message_id": None}), r"line 2: message_id: must be"),
        (
            _lines(THREAD, {k: v for k, v in MESSAGE.items() if k != "message_id"}),
            r"line 2: message_id: is required",
        ),
        (_lines({"kind": "user", "user_id": ""}), r"line 1: user_id: must not be empty"),
        (_lines({"kind": "chat"}), r"line 1: kind: must be one of 'memory', 'link'"),
    ],
)
def test_bad_thread_message_and_prompt_lines_name_their_line(lines: str, expected: str) -> None:
    with GraphMemory() as memory:
        with pytest.raises(ImportLineError, match=expected):
            _import(memory, lines)
        assert memory.list_threads() == [] and memory.list_prompts().total == 0


def test_a_bad_message_rolls_back_its_batch_and_keeps_earlier_ones() -> None:
    good = _lines(THREAD, {**MESSAGE, "position": 0})
    bad = _lines({**MESSAGE, "message_id": "y", "position": 1, "role": "robot"})
    with GraphMemory() as memory:
        with pytest.raises(ImportLineError, match="line 3") as caught:
            _import(memory, good + bad, batch_size=2)
        assert caught.value.report.committed_line == 2
        assert [m.id for m in memory.get_thread("t").get_messages()] == ["x"]
        fixed = _lines({**MESSAGE, "message_id": "y", "position": 1})
        report = _import(memory, good + fixed, batch_size=2, resume=True)
        assert (report.skipped, report.messages) == (2, 1)
        assert [m.id for m in memory.get_thread("t").get_messages()] == ["x", "y"]


def test_stats_count_threads_messages_users_agents_and_prompts() -> None:
    with GraphMemory() as memory:
        _store_with_threads(memory)
        stats = memory.stats()
    assert (stats.memories, stats.links) == (2, 1)  # messages are not memories
    assert (stats.threads, stats.messages, stats.users, stats.agents, stats.prompts) == (
        2,
        2,
        1,
        1,
        2,
    )


def test_round_trip_between_the_in_memory_store_and_sqlite() -> None:
    from graphmem.testing.memory_store import MemoryStore

    with GraphMemory(connection=MemoryStore()) as source:
        _store_with_threads(source)
        dump, expected = _export(source), _snapshot(source)
    with GraphMemory() as target:
        _import(target, dump)
        assert _snapshot(target) == expected
        again = _export(target)
    with GraphMemory(connection=MemoryStore()) as back:
        _import(back, again)
        assert _snapshot(back) == expected


def _conversation(memory: GraphMemory, user: str, count: int) -> None:
    chat = memory.create_thread("main", user_id=user, enable_context_summary=False)
    chat.add_messages([{"role": "user", "content": f"{user} says {i}"} for i in range(count)])


def _messages(memory: GraphMemory) -> list[tuple[int, str, str | None]]:
    return [(m.position, m.content, m.user_id) for m in memory.get_thread("main").get_messages()]


def test_resume_refuses_messages_whose_places_a_stored_thread_holds() -> None:
    with GraphMemory() as source:
        _conversation(source, "alice", 3)
        dump = _export(source)
    with GraphMemory() as target:
        _conversation(target, "bob", 4)
        before = _messages(target)
        with pytest.raises(ImportLineError, match=r"line 1: thread 'main' already exists"):
            _import(target, dump)
        with pytest.raises(
            ImportLineError, match=r"^line 2: position: 0 of thread 'main' is held by stored"
        ) as caught:
            _import(target, dump, resume=True)
        assert caught.value.line == 2 and caught.value.report.committed_line == 0
        assert _messages(target) == before


def test_a_message_line_for_a_stored_thread_cannot_take_a_held_place() -> None:
    with GraphMemory() as memory:
        _conversation(memory, "bob", 4)
        before = _messages(memory)
        held = memory.get_thread("main").get_messages()[1].id
        line = {**MESSAGE, "message_id": "extra", "thread_id": "main", "position": 1}
        with pytest.raises(ImportLineError, match=rf"^line 2: position: 1 .* message '{held}'"):
            _import(memory, _lines({"kind": "user", "user_id": "x"}, line))
        assert _messages(memory) == before and memory.list_users() == []
        # a place no stored message holds (deleted) takes the line
        memory.get_thread("main").delete_message(held)
        report = _import(memory, _lines(line))
        assert report.messages == 1
        assert [p for p, _, _ in _messages(memory)] == [0, 1, 2, 3]


def test_resume_skips_a_stored_message_at_its_own_place() -> None:
    with GraphMemory() as source:
        _conversation(source, "alice", 3)
        dump = _export(source)
    with GraphMemory() as target:
        lines = dump.splitlines(keepends=True)
        _import(target, "".join(lines[:-1]))  # the last message is not imported yet
        report = _import(target, dump, resume=True)
        assert (report.messages, report.skipped) == (1, 3)  # the thread, two messages
        assert _messages(target) == [(i, f"alice says {i}", "alice") for i in range(3)]

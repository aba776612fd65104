"""Memory blocks under concurrent changes: prompt switches racing each other, and a
session deleted while its block is being written."""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import Any

import pytest

from graphmem import GraphMemory, MemoryExtractionConfig
from graphmem.errors import GraphMemError
from graphmem.service.blocks import BlockService
from graphmem.service.schemas import AddMemoryBody, UpdateMemoryBody

from .inproc import CountingEmbedder, ScriptedLlm


def _memory(path: Path, llm: ScriptedLlm) -> GraphMemory:
    return GraphMemory(
        path,
        embedder=CountingEmbedder(),
        llm=llm,
        memory_extraction_config=MemoryExtractionConfig(extract_memories=False),
    )


def _extracted(memory: GraphMemory) -> list[str]:
    """The ids of the records extraction made (ScriptedLlm's one fact per run)."""
    found = memory.list_memories(limit=1000)
    return sorted(m.id for m in found if m.content.startswith("Order #7 is late ("))


def test_concurrent_prompt_switches_leave_only_the_last_extraction(tmp_path: Path) -> None:
    llm = ScriptedLlm()
    with _memory(tmp_path / "races.db", llm) as memory:
        memory.create_thread("s", user_id="u")
        memory.create_prompt("p", "Extract order numbers.", "d")
        blocks = BlockService(memory, llm)
        body = AddMemoryBody(messages=[{"user_content": "Order #7?"}], async_processing=False)
        block = blocks.add("s", body)
        assert block.status == "ready" and len(_extracted(memory)) == 1
        errors: list[BaseException] = []

        def switch(index: int) -> None:
            change = UpdateMemoryBody(
                prompt_id="p" if index % 2 else "default", async_processing=False
            )
            try:
                blocks.update("s", block.block_id, change)
            except BaseException as exc:
                errors.append(exc)

        for _ in range(3):
            workers = [threading.Thread(target=switch, args=(i,)) for i in range(8)]
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
            assert errors == []
            final = memory._store.get_block(block.block_id)
            assert final is not None and final.status == "ready"
            assert final.extraction is not None and "stale" not in final.extraction
            # every record extraction left in the store is the block's own, current one
            assert _extracted(memory) == sorted(final.extraction["record_ids"])
            assert len(_extracted(memory)) == 1


def test_a_session_deleted_while_its_block_is_written_keeps_nothing(tmp_path: Path) -> None:
    llm = ScriptedLlm()
    with _memory(tmp_path / "gone.db", llm) as memory:
        memory.create_thread("s", user_id="u")
        blocks = BlockService(memory, llm)
        facts = [f"Fact number {i}." for i in range(60)]
        queued = blocks.add("s", AddMemoryBody(facts=facts, context_required=False))
        original = memory._embed
        deleted = threading.Event()

        def embed_then_delete(texts: list[str]) -> object:
            # the session goes away while a fact is being embedded (after the
            # thread was checked, before the fact is written)
            if not deleted.is_set() and len(memory.list_memories(limit=1000)) == 5:
                memory.delete_thread("s")
                deleted.set()
            return original(texts)

        memory._embed = embed_then_delete  # type: ignore[method-assign,assignment]
        try:
            with contextlib.suppress(GraphMemError):
                blocks.process(queued.block_id)
        finally:
            del memory._embed
        assert deleted.is_set()
        assert memory.list_memories(limit=1000) == []  # no fact outlives its session
        assert memory.list_jobs() == []
        memory.create_thread("s", user_id="someone-else")
        assert memory.get_thread("s").search("Fact number", max_results=10) == []


def test_a_session_deleted_during_its_extraction_keeps_no_job_row(tmp_path: Path) -> None:
    llm = ScriptedLlm()
    with _memory(tmp_path / "job.db", llm) as memory:
        memory.create_thread("s", user_id="u")
        blocks = BlockService(memory, llm)
        queued = blocks.add("s", AddMemoryBody(messages=[{"user_content": "Order #7?"}]))
        answer = llm.chat

        def delete_during_extraction(messages: Any, *, json_schema: Any = None) -> str:
            if str((json_schema or {}).get("title", "")).startswith("memory_extraction"):
                memory.delete_thread("s")
            return answer(messages, json_schema=json_schema)

        llm.chat = delete_during_extraction  # type: ignore[method-assign]
        with contextlib.suppress(GraphMemError):
            blocks.process(queued.block_id)
        assert memory.list_memories(limit=1000) == []
        assert memory.list_jobs() == []  # the extraction's job row went with its thread


class _Gate:
    """Holds the first call it is put in front of until released."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.used = False

    def hold(self) -> None:
        if not self.used:
            self.used = True
            self.entered.set()
            assert self.release.wait(30)


def _messages_and_facts(memory: GraphMemory, thread_id: str) -> tuple[list[str], list[str]]:
    messages = [m.id for m in memory.get_thread(thread_id).get_messages()]
    facts = [m.id for m in memory.list_memories(limit=1000) if m.record_type == "fact"]
    return messages, facts


def test_a_holder_that_lost_its_block_mid_write_writes_nothing_more(tmp_path: Path) -> None:
    llm = ScriptedLlm()
    gate = _Gate()
    answer = llm.chat

    def chat(messages: Any, *, json_schema: Any = None) -> str:
        if (json_schema or {}).get("title") == "thread_summary":
            gate.hold()  # after the messages are stored, before the fact
        return answer(messages, json_schema=json_schema)

    llm.chat = chat  # type: ignore[method-assign]
    with _memory(tmp_path / "lost.db", llm) as memory:
        memory.create_thread("s", user_id="u")
        first, second = BlockService(memory, llm), BlockService(memory, llm)
        body = AddMemoryBody(
            messages=[{"user_content": "Order #7?"}], facts=["Order #7 is late."],
            context_required=False,
        )  # fmt: skip
        queued = first.add("s", body)
        running = threading.Thread(target=first.process, args=(queued.block_id,))
        running.start()
        assert gate.entered.wait(30)
        # another server changes the block and processes it at once
        changed = second.update(
            "s", queued.block_id, UpdateMemoryBody(prompt_id="default", async_processing=False)
        )
        assert changed.status == "ready"
        gate.release.set()
        running.join(30)
        messages, facts = _messages_and_facts(memory, "s")
        assert (len(messages), len(facts)) == (1, 1)  # nothing written twice
        stored = memory._store.get_block(queued.block_id)
        assert stored is not None and stored.status == "ready"
        assert stored.record_ids == messages + facts


@pytest.mark.parametrize("where", ["fact", "extraction"])
def test_a_session_deleted_and_made_again_for_another_user_gets_nothing(
    tmp_path: Path, where: str
) -> None:
    llm = ScriptedLlm()
    gate = _Gate()
    with _memory(tmp_path / "again.db", llm) as memory:
        memory.create_thread("s", user_id="alice", enable_context_summary=False)
        blocks = BlockService(memory, llm)
        if where == "fact":
            body = AddMemoryBody(facts=["Alice's secret."], context_required=False)
            original = memory._embed

            def embed(texts: list[str]) -> Any:
                gate.hold()
                return original(texts)

            memory._embed = embed  # type: ignore[method-assign,assignment]
        else:
            body = AddMemoryBody(messages=[{"user_content": "Order #7 is late."}])
            answer = llm.chat

            def chat(messages: Any, *, json_schema: Any = None) -> str:
                if str((json_schema or {}).get("title", "")).startswith("memory_extraction"):
                    gate.hold()
                return answer(messages, json_schema=json_schema)

            llm.chat = chat  # type: ignore[method-assign]
        queued = blocks.add("s", body)

        def process() -> None:
            with contextlib.suppress(GraphMemError):  # the block goes with its session
                blocks.process(queued.block_id)

        running = threading.Thread(target=process)
        running.start()
        assert gate.entered.wait(30)
        memory.delete_thread("s")
        memory.create_thread("s", user_id="bob", enable_context_summary=False)
        gate.release.set()
        running.join(30)
        assert memory.list_memories(limit=1000) == []
        assert memory.get_thread("s").get_messages() == []
        assert memory.list_jobs() == []

"""A context card's searches run the thread's reranker outside any transaction;
the card reads its records again afterwards and leaves out the memories that no
longer pass its filters or became invalid meanwhile, as a search does."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from graphmem import GraphMemory, HashingEmbedder, TopKMemorySearchConfig
from graphmem.ai.protocols import RerankResult

EMBEDDER = HashingEmbedder(dim=32)


class WritingReranker:
    """Runs ``write`` once, at its first call; keeps the order it is given."""

    def __init__(self, write: object) -> None:
        self.write = write
        self.lock = threading.Lock()
        self.done = False

    def rerank(self, query: str, documents: list[str]) -> list[RerankResult]:
        with self.lock:
            if not self.done:
                self.done = True
                self.write()  # type: ignore[operator]
        return [RerankResult(i, 1.0) for i in range(len(documents))]


def test_card_leaves_out_memories_changed_while_its_reranker_ran(tmp_path: Path) -> None:
    path = tmp_path / "card.db"
    with GraphMemory(path, embedder=EMBEDDER) as writer:
        for record_id in ("kept", "old", "moved", "gone"):
            writer.add_memory(
                f"tea {record_id}",
                memory_id=record_id,
                memory_type="fact",
                user_id="u",
                agent_id="a",
            )
        writer.add_memory(
            "coffee new", memory_id="new", memory_type="fact", user_id="u", agent_id="a"
        )

        def write() -> None:
            writer.link_records("new", "fact", "old", "fact", "supersedes")  # old: invalid
            with sqlite3.connect(path) as dba:  # out of the thread's scope
                dba.execute("UPDATE graphmem_memory SET user_id = 'v' WHERE record_id = 'moved'")
            writer.delete_memory("gone")

        with GraphMemory(path, embedder=EMBEDDER) as reader:
            reranker = WritingReranker(write)
            thread = reader.create_thread(
                "t",
                user_id="u",
                agent_id="a",
                search_config=TopKMemorySearchConfig(reranker=reranker),
            )
            thread.add_messages([{"role": "user", "content": "tea please"}])
            thread = reader.get_thread("t", reranker=reranker)
            card = thread.get_context_card(
                max_relevant_results=10, min_relevant_results_by_type={"fact": 5}
            )
    assert reranker.done
    facts = [r.id for r in card.relevant_records if r.record_type == "fact"]
    assert sorted(facts) == ["kept", "new"]

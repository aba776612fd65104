"""A reranker or a pruner runs between two read transactions of the store: the
second keeps only the hits that retrieval would still return (filters and
validity as the request asked), whatever was written while the model ran."""

import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from graphmem import (
    GraphMemory,
    HashingEmbedder,
    PruningMemorySearchConfig,
    TopKMemorySearchConfig,
)
from graphmem.ai.protocols import RerankResult
from graphmem.testing.memory_store import MemoryStore
from graphmem.testing.model import ManualClock

from ._models import judgements

EMBEDDER = HashingEmbedder(dim=16)
FACTS = {
    "kept": ("pizza kept", "a"),
    "edited": ("pizza edited", "a"),
    "old": ("pizza old", "a"),
    "tagged": ("pizza tagged", "a"),
    "gone": ("pizza gone", "a"),
    "new": ("burger new", "c"),
}


class WritingReranker:
    """Runs ``write`` once, while scoring (every document scores the same)."""

    def __init__(self, write: Callable[[], None]) -> None:
        self.write = write
        self.seen: list[list[str]] = []

    def rerank(self, query: str, documents: list[str]) -> list[RerankResult]:
        if not self.seen:
            self.write()
        self.seen.append(list(documents))
        return [RerankResult(i, 1.0) for i in range(len(documents))]


class WritingPruner:
    """Runs ``write`` once, at the first question; finds every document relevant."""

    def __init__(self, write: Callable[[], None]) -> None:
        self.write = write
        self.lock = threading.Lock()
        self.done = False

    def chat(self, messages: list[dict[str, str]], *, json_schema: object = None) -> str:
        with self.lock:
            if not self.done:
                self.done = True
                self.write()
        return judgements(messages[-1]["content"], lambda text: True)


@pytest.fixture(params=["sqlite", "memory"])
def handles(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[GraphMemory, ...]]:
    """(the searching handle, the writing handle): two handles on one SQLite file,
    or one in-memory store written through the searching handle itself."""
    if request.param == "sqlite":
        path = tmp_path / "race.db"
        writer = GraphMemory(path, embedder=EMBEDDER, clock=ManualClock())
        searcher = GraphMemory(path, embedder=EMBEDDER, clock=ManualClock())
    else:
        searcher = writer = GraphMemory(MemoryStore(), embedder=EMBEDDER, clock=ManualClock())
    for record_id, (content, team) in FACTS.items():
        writer.add_memory(
            content, memory_id=record_id, memory_type="fact", user_id="u", metadata={"team": team}
        )
    yield searcher, writer
    searcher.close()
    writer.close()


def _writes(writer: GraphMemory) -> Callable[[], None]:
    def write() -> None:
        writer.link_records("new", "fact", "old", "fact", "supersedes")  # old: invalid
        writer.update_memory("tagged", metadata={"team": "b"})  # out of the filter
        writer.delete_memory("gone")
        writer.update_memory("edited", content="pizza edited again")  # still passes

    return write


MODELS = {
    "reranker": lambda write: TopKMemorySearchConfig(reranker=WritingReranker(write)),
    "pruner": lambda write: PruningMemorySearchConfig(
        pruner=WritingPruner(write), evaluation_mode="exhaustive"
    ),
}


@pytest.mark.parametrize("model", sorted(MODELS))
@pytest.mark.parametrize("strategy", ["vector", "keyword"])
def test_hits_that_no_longer_pass_are_left_out(
    handles: tuple[GraphMemory, GraphMemory], model: str, strategy: str
) -> None:
    searcher, writer = handles
    config = MODELS[model](_writes(writer))
    results = searcher.search(
        "pizza",
        user_id="u",
        metadata_filter={"team": "a"},
        strategy=strategy,
        search_config=config,
    )
    assert sorted(r.id for r in results) == ["edited", "kept"]
    # a result is read as it is after the model ran
    edited = next(r for r in results if r.id == "edited")
    assert edited.content == "pizza edited again"
    assert all(r.status == "valid" and r.record.metadata == {"team": "a"} for r in results)


@pytest.mark.parametrize("model", sorted(MODELS))
def test_a_hit_made_invalid_stays_when_invalid_results_are_asked_for(
    handles: tuple[GraphMemory, GraphMemory], model: str
) -> None:
    searcher, writer = handles
    config = MODELS[model](_writes(writer))
    results = searcher.search(
        "pizza",
        user_id="u",
        metadata_filter={"team": "a"},
        include_invalid_results=True,
        search_config=config,
    )
    assert sorted(r.id for r in results) == ["edited", "kept", "old"]
    assert next(r for r in results if r.id == "old").status == "invalid"


def test_hits_moved_to_another_user_or_expired_by_hand_are_left_out(tmp_path: Path) -> None:
    path = tmp_path / "dba.db"
    memory = GraphMemory(path, embedder=EMBEDDER, clock=ManualClock())
    for record_id in ("kept", "moved", "expired", "typed"):
        memory.add_memory(f"pizza {record_id}", memory_id=record_id, user_id="u")

    def dba() -> None:
        conn = sqlite3.connect(path)
        conn.execute("UPDATE graphmem_memory SET user_id = 'v' WHERE record_id = 'moved'")
        conn.execute(
            "UPDATE graphmem_memory SET expires_at = '2000-01-01T00:00:00.000000+00:00' "
            "WHERE record_id = 'expired'"
        )
        conn.execute("UPDATE graphmem_memory SET record_type = 'fact' WHERE record_id = 'typed'")
        conn.commit()
        conn.close()

    reranker = WritingReranker(dba)
    results = memory.search(
        "pizza",
        user_id="u",
        record_types=["memory"],
        search_config=TopKMemorySearchConfig(reranker=reranker),
    )
    assert len(reranker.seen[0]) == 4
    assert [r.id for r in results] == ["kept"]
    memory.close()

"""add_memory / add_memories with if_exists: error, skip, replace."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from graphmem import ConflictError, GraphMemory, HashingEmbedder, InvalidArgumentError


@pytest.fixture
def memory() -> GraphMemory:
    m = GraphMemory(":memory:")
    m.add_memory("old", memory_id="a", user_id="u1")
    m.add_memory("new", memory_id="b")
    m.link_records("b", "memory", "a", "memory", "supersedes", relation_id="L")
    return m


def test_if_exists_error_names_the_id_and_the_options(memory: GraphMemory) -> None:
    with pytest.raises(ConflictError, match=r"memory_id 'a' already exists.*'skip'"):
        memory.add_memory("again", memory_id="a")
    assert memory.get_memory("a").content == "old"


def test_if_exists_skip_keeps_the_stored_memory_and_its_links(memory: GraphMemory) -> None:
    assert memory.add_memory("again", memory_id="a", if_exists="skip") == "a"
    assert memory.get_memory("a").content == "old"
    assert memory.get_memory("a").status == "invalid"


def test_if_exists_replace_stores_the_new_memory_and_drops_its_links(memory: GraphMemory) -> None:
    memory.add_memory("again", memory_id="a", memory_type="fact", if_exists="replace")
    record = memory.get_memory("a")
    assert (record.content, record.record_type, record.user_id) == ("again", "fact", None)
    assert record.status == "valid"
    assert memory.list_record_links() == []


def test_add_memories_error_names_the_index(memory: GraphMemory) -> None:
    with pytest.raises(ConflictError, match=r"memories\[1\]: memory_id 'b' already exists"):
        memory.add_memories(
            [{"content": "x", "memory_id": "c"}, {"content": "y", "memory_id": "b"}]
        )
    assert [r.id for r in memory.list_memories()] == ["a", "b"]


def test_add_memories_skip_stores_only_new_ids(memory: GraphMemory) -> None:
    ids = memory.add_memories(
        [{"content": "x", "memory_id": "c"}, {"content": "y", "memory_id": "b"}], if_exists="skip"
    )
    assert ids == ["c", "b"]
    assert memory.get_memory("b").content == "new"
    assert memory.get_memory("c").content == "x"


def test_add_memories_replace_replaces_every_stored_id(memory: GraphMemory) -> None:
    memory.add_memories(
        [{"content": "A2", "memory_id": "a"}, {"content": "B2", "memory_id": "b"}],
        if_exists="replace",
    )
    assert [r.content for r in memory.list_memories()] == ["A2", "B2"]


def test_add_memories_repeated_id_in_the_batch_is_a_conflict(memory: GraphMemory) -> None:
    with pytest.raises(
        ConflictError, match=r"memories\[1\]: memory_id 'z' already exists in memories\[0\]"
    ):
        memory.add_memories(
            [{"content": "x", "memory_id": "z"}, {"content": "y", "memory_id": "z"}]
        )


def test_if_exists_bad_value_is_an_invalid_argument(memory: GraphMemory) -> None:
    with pytest.raises(InvalidArgumentError, match="if_exists"):
        memory.add_memory("x", memory_id="a", if_exists="overwrite")
    with pytest.raises(InvalidArgumentError, match="if_exists"):
        memory.add_memories([{"content": "x"}], if_exists="")


@pytest.mark.parametrize("policy", ["skip", "replace"])
def test_a_message_id_is_refused_whatever_the_policy(memory: GraphMemory, policy: str) -> None:
    thread = memory.create_thread("t")
    (message_id,) = thread.add_messages([{"role": "user", "content": "hello"}])
    with pytest.raises(ConflictError, match="is a message of a thread"):
        memory.add_memory(
            "x",
            memory_id=message_id,
            if_exists=policy,
            memory_id_to_link="a",
            link_type="supports",
        )
    with pytest.raises(ConflictError, match="is a message of a thread"):
        memory.add_memories([{"content": "x", "memory_id": message_id}], if_exists=policy)
    assert [link.id for link in memory.list_record_links()] == ["L"]
    assert [m.content for m in thread.get_messages()] == ["hello"]


class _CountingLlm:
    def __init__(self) -> None:
        self.calls = 0

    def chat(self, messages: object, *, json_schema: object = None) -> str:
        self.calls += 1
        return '{"links": []}'


def test_skip_of_a_stored_memory_writes_no_link_and_asks_no_model() -> None:
    llm, embedder = _CountingLlm(), HashingEmbedder(dim=8)
    embedded = []
    original = embedder.embed
    embedder.embed = lambda texts: embedded.append(texts) or original(texts)  # type: ignore[method-assign]
    with GraphMemory(":memory:", embedder=embedder, llm=llm) as memory:
        memory.add_memory("Tea.", memory_id="a")
        memory.add_memory("Milk.", memory_id="b")
        before = len(embedded)
        kept = memory.add_memory(
            "Coffee now.",
            memory_id="a",
            if_exists="skip",
            memory_id_to_link="b",
            link_type="supersedes",
            autonomous_linking=True,
        )
        assert kept == "a"
        assert memory.list_record_links() == []
        assert memory.get_memory("b").status == "valid"
        assert (len(embedded), llm.calls) == (before, 0)
        assert memory.get_memory("a").content == "Tea."


class _CountingEmbedder(HashingEmbedder):
    """The hashing embedder, keeping the texts of each call; ``meanwhile`` runs once,
    at the first call after it is set (another connection writing between the
    lookup of add_memories and its write)."""

    def __init__(self) -> None:
        super().__init__(dim=8)
        self.calls: list[list[str]] = []
        self.meanwhile: Callable[[], object] | None = None

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.calls.append(list(texts))
        if self.meanwhile is not None:
            run, self.meanwhile = self.meanwhile, None
            run()
        return super().embed(texts)


def _items(count: int) -> list[dict[str, Any]]:
    return [{"content": f"fact number {i}", "memory_id": f"f{i}"} for i in range(count)]


def test_add_memories_skip_embeds_only_the_memories_not_stored() -> None:
    embedder = _CountingEmbedder()
    with GraphMemory(":memory:", embedder=embedder) as memory:
        memory.add_memories(_items(40))
        embedder.calls.clear()
        assert memory.add_memories(_items(40), if_exists="skip") == [f"f{i}" for i in range(40)]
        assert embedder.calls == []  # a retried batch embeds nothing
        more = [*_items(45)[35:], {"content": "f3 again", "memory_id": "f3"}]
        memory.add_memories(more, if_exists="skip")
        assert embedder.calls == [[f"fact number {i}" for i in range(40, 45)]]
        assert memory.get_memory("f3").content == "fact number 3"
        assert len(memory.list_memories(limit=100)) == 45


def test_add_memories_skip_rechecks_the_ids_in_its_write(tmp_path: Path) -> None:
    """Between the lookup and the write another connection stores one new id (it is
    kept as stored) and deletes one stored memory (it is embedded and written)."""
    embedder = _CountingEmbedder()
    path = tmp_path / "m.db"
    with (
        GraphMemory(path, embedder=embedder) as memory,
        GraphMemory(path, embedder=HashingEmbedder(dim=8)) as other,
    ):
        memory.add_memories(_items(3))
        embedder.calls.clear()

        def meanwhile() -> None:
            other.add_memory("stored meanwhile", memory_id="f3")
            other.delete_memory("f1")

        embedder.meanwhile = meanwhile
        ids = memory.add_memories(_items(5), if_exists="skip")
        assert ids == ["f0", "f1", "f2", "f3", "f4"]
        assert embedder.calls == [["fact number 3", "fact number 4"], ["fact number 1"]]
        assert memory.get_memory("f3").content == "stored meanwhile"
        assert memory.get_memory("f1").content == "fact number 1"
        (hit,) = memory.search("fact number 1", max_results=1, num_hops=0)
        assert hit.id == "f1" and hit.distance == pytest.approx(0.0, abs=1e-6)

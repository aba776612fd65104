"""import_jsonl: failures of the embedder, and errors that name other lines."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from graphmem import GraphMemory, HashingEmbedder
from graphmem.transfer import ImportLineError, ImportStoreError

_MEMORIES = "".join(
    json.dumps({"kind": "memory", "memory_id": f"m{i}", "content": f"memory {i}"}) + "\n"
    for i in range(10)
).encode()


class _Flaky:
    """Embeds its first call, then fails as a provider that went down does."""

    name = "flaky"

    def __init__(self) -> None:
        self.calls = 0
        self.inner = HashingEmbedder(dim=8)

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.calls += 1
        if self.calls > 1:
            raise ConnectionError("provider down")
        return np.asarray(self.inner.embed(list(texts)), dtype=np.float32)


class _NotANumber(_Flaky):
    """Answers a NaN in its first vector."""

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        vectors = np.asarray(self.inner.embed(list(texts)), dtype=np.float32)
        vectors[0, 0] = np.nan
        return vectors


def test_an_embedder_that_raises_is_a_store_error_with_the_report() -> None:
    with GraphMemory(embedder=_Flaky()) as memory:
        with pytest.raises(ImportStoreError, match=r"^provider down$") as caught:
            memory.import_jsonl(io.BytesIO(_MEMORIES), batch_size=4)
        assert isinstance(caught.value.__cause__, ConnectionError)
        assert (caught.value.report.memories, caught.value.report.committed_line) == (4, 4)
        assert len(memory.list_memories()) == 4


def test_an_embedder_that_answers_nan_is_a_store_error_with_the_report() -> None:
    with GraphMemory(embedder=_NotANumber()) as memory:
        with pytest.raises(ImportStoreError, match=r"NaN or infinite") as caught:
            memory.import_jsonl(io.BytesIO(_MEMORIES), batch_size=4)
        assert caught.value.__cause__ is not None
        assert (caught.value.report.memories, caught.value.report.committed_line) == (0, 0)
        assert memory.list_memories() == []


def test_a_link_conflicting_with_another_line_names_both_lines() -> None:
    def link(source: str, target: str) -> str:
        ends = {
            "source_record_id": source,
            "source_record_type": "memory",
            "target_record_id": target,
            "target_record_type": "memory",
        }
        return json.dumps({"kind": "link", **ends, "relation_type": "supersedes"}) + "\n"

    data = _MEMORIES.decode() + link("m1", "m2") + link("m3", "m4") + link("m2", "m1")
    with GraphMemory(embedder=HashingEmbedder(dim=8)) as memory:
        with pytest.raises(ImportLineError) as caught:
            memory.import_jsonl(io.BytesIO(data.encode()))
        assert str(caught.value) == (
            "line 13: relation_type: a 'supersedes' link between 'm2' and 'm1' already "
            "exists in line 11; a type is stored once, in one orientation"
        )

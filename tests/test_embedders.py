"""graphmem.embedders: the HashingEmbedder (tests, benchmarks) and the embedder protocol."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from graphmem import (
    ConflictError,
    EmbedderProtocol,
    GraphMemory,
    HashingEmbedder,
    InvalidArgumentError,
    SchemaError,
)


def test_hashing_embedder_shape_and_dtype() -> None:
    vectors = HashingEmbedder().embed(["one", "two words", "three more words"])
    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32


def test_hashing_embedder_custom_dim() -> None:
    assert HashingEmbedder(dim=16).embed(["x"]).shape == (1, 16)


def test_hashing_embedder_rejects_tiny_dim() -> None:
    with pytest.raises(ValueError):
        HashingEmbedder(dim=7)


def test_hashing_embedder_unit_norm() -> None:
    norms = np.linalg.norm(HashingEmbedder().embed(["a b c", "pizza", "?!"]), axis=1)
    assert norms == pytest.approx([1.0, 1.0, 1.0], abs=1e-5)


def test_hashing_embedder_deterministic_across_instances() -> None:
    text = ["The user now prefers sourdough pizza."]
    assert np.array_equal(HashingEmbedder().embed(text), HashingEmbedder().embed(text))


def test_hashing_embedder_same_in_another_process() -> None:
    code = (
        "from graphmem import HashingEmbedder; "
        "print(HashingEmbedder(dim=16).embed(['sourdough pizza'])[0].tobytes().hex())"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout.strip()
        for seed in ("1", "2")
    }
    here = HashingEmbedder(dim=16).embed(["sourdough pizza"])[0].tobytes().hex()
    assert outputs == {here}


def test_hashing_embedder_case_insensitive() -> None:
    e = HashingEmbedder()
    assert np.array_equal(e.embed(["Sourdough PIZZA"]), e.embed(["sourdough pizza"]))


def test_hashing_embedder_similar_texts_closer() -> None:
    a, b, c = HashingEmbedder().embed(
        ["the user likes sourdough pizza", "sourdough pizza is liked", "quarterly tax filing"]
    )
    assert float(a @ b) > float(a @ c)


def test_hashing_embedder_empty_list() -> None:
    assert HashingEmbedder(dim=32).embed([]).shape == (0, 32)


def test_hashing_embedder_punctuation_only_not_zero() -> None:
    vector = HashingEmbedder().embed(["?!"])[0]
    assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-5)


def test_hashing_embedder_is_embedder() -> None:
    assert isinstance(HashingEmbedder(), EmbedderProtocol)


def test_hashing_embedder_identity() -> None:
    embedder = HashingEmbedder(dim=32)
    assert (embedder.name, embedder.dimension) == ("HashingEmbedder(ngram_weight=0.35)", 32)


class _Axes:
    """A custom embedder: one axis per known word."""

    words = ("tea", "coffee", "pizza", "bread")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.array(
            [[float(w in t.lower()) for w in self.words] for t in texts], dtype=np.float32
        )


def test_custom_embedder_used_for_search(tmp_path) -> None:
    with GraphMemory(tmp_path / "e.db", embedder=_Axes()) as store:
        store.add_memory("green tea", memory_id="tea")
        store.add_memory("espresso coffee", memory_id="coffee")
        store.add_memory("no known words", memory_id="none")
        hits = store.search("coffee please")
        assert hits[0].id == "coffee"
        assert hits[0].distance == pytest.approx(0.0)
        assert {h.id: h.distance for h in hits}["none"] == pytest.approx(1.0)


def test_default_embedder_is_not_hashing(tmp_path) -> None:
    with GraphMemory(tmp_path / "e.db") as store:
        assert not isinstance(store.embedder, HashingEmbedder)


# the store records its embedder (name, dimension) and refuses any other ------------


class _Named:
    """Constant vectors of ``dim`` dimensions, under a chosen name (or none)."""

    def __init__(self, dim: int, name: str | None = None, model: str | None = None) -> None:
        self.dim = dim
        if name is not None:
            self.name = name
        if model is not None:
            self.model = model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.ones((len(texts), self.dim), dtype=np.float32)


def _meta(path: Path) -> dict[str, str]:
    conn = sqlite3.connect(path)
    try:
        return dict(conn.execute("SELECT meta_key, meta_value FROM graphmem_meta").fetchall())
    finally:
        conn.close()


def _identity(path: Path) -> tuple[str | None, str | None]:
    meta = _meta(path)
    return meta.get("embedder_name"), meta.get("embedding_dim")


def test_embedder_identity_recorded_with_first_vector(tmp_path: Path) -> None:
    path = tmp_path / "e.db"
    with GraphMemory(path, embedder=_Named(8, name="tiny-v1")) as store:
        assert _identity(path) == (None, None)
        store.add_memory("x")
    assert _identity(path) == ("tiny-v1", "8")


@pytest.mark.parametrize(
    ("embedder", "name"),
    [
        (_Named(8, name="by-name", model="by-model"), "by-name"),
        (_Named(8, model="by-model"), "by-model"),
        (_Named(8, name="  "), "_Named"),
        (HashingEmbedder(dim=8), "HashingEmbedder(ngram_weight=0.35)"),
        (HashingEmbedder(dim=8, ngram_weight=0.5), "HashingEmbedder(ngram_weight=0.5)"),
    ],
)
def test_embedder_identity_name(tmp_path: Path, embedder: object, name: str) -> None:
    path = tmp_path / "e.db"
    with GraphMemory(path, embedder=embedder) as store:  # type: ignore[arg-type]
        store.add_memory("x")
    assert _identity(path) == (name, "8")


def test_embedder_second_handle_of_other_dimension_rejected(tmp_path: Path) -> None:
    path = tmp_path / "e.db"
    with (
        GraphMemory(path, embedder=HashingEmbedder(dim=16)) as first,
        GraphMemory(path, embedder=HashingEmbedder(dim=32)) as second,
    ):
        first.add_memory("tea", memory_id="a")
        with pytest.raises(SchemaError, match=r"\(16 dimensions\).*\(32 dimensions\)"):
            second.add_memory("coffee", memory_id="b")
        with pytest.raises(SchemaError):
            second.add_memories([{"content": "coffee", "memory_id": "b"}])
        with pytest.raises(SchemaError):
            second.update_memory("a", content="green tea")
        with pytest.raises(SchemaError):
            second.search("tea")
        assert [m.content for m in first.list_memories()] == ["tea"]
        assert [r.id for r in first.search("tea")] == ["a"]


def test_embedder_second_handle_of_other_name_rejected(tmp_path: Path) -> None:
    path = tmp_path / "e.db"
    with (
        GraphMemory(path, embedder=_Named(8, name="model-a")) as first,
        GraphMemory(path, embedder=_Named(8, name="model-b")) as second,
    ):
        first.add_memory("tea", memory_id="a")
        with pytest.raises(SchemaError, match=r"'model-a' \(8 dimensions\).*'model-b' \(8 "):
            second.add_memory("coffee", memory_id="b")
        assert [m.id for m in second.list_memories()] == ["a"]


def test_embedder_same_class_reopened_accepted(tmp_path: Path) -> None:
    path = tmp_path / "e.db"
    with GraphMemory(path) as store:
        store.add_memory("sourdough pizza", memory_id="a")
    with GraphMemory(path) as store:
        store.add_memory("thin crust pizza", memory_id="b")
        assert {r.id for r in store.search("pizza")} == {"a", "b"}


def test_embedder_rejected_first_batch_leaves_store_unclaimed(tmp_path: Path) -> None:
    """A first batch that fails records no identity, in the store or in the handle."""
    path = tmp_path / "e.db"
    with (
        GraphMemory(path, embedder=HashingEmbedder(dim=16)) as first,
        GraphMemory(path, embedder=HashingEmbedder(dim=32)) as second,
    ):
        with pytest.raises(ConflictError):
            first.add_memories([{"content": "x", "memory_id": "a"}] * 2)
        assert _identity(path) == (None, None)
        second.add_memory("tea", memory_id="b")
        with pytest.raises(SchemaError):
            first.add_memory("coffee", memory_id="c")
        assert [r.id for r in second.search("tea")] == ["b"]


def test_embedder_store_without_recorded_name_adopts_same_dimension(tmp_path: Path) -> None:
    """Stores written before names were recorded hold only the dimension."""
    path = tmp_path / "e.db"
    with GraphMemory(path, embedder=_Named(8, name="old")) as store:
        store.add_memory("x", memory_id="a")
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("DELETE FROM graphmem_meta WHERE meta_key = 'embedder_name'")
    conn.close()
    with GraphMemory(path, embedder=_Named(8, name="new")) as store:
        assert [r.id for r in store.search("x")] == ["a"]
        store.add_memory("y", memory_id="b")
    assert _identity(path) == ("new", "8")
    with GraphMemory(path, embedder=_Named(4, name="new")) as store, pytest.raises(SchemaError):
        store.add_memory("z")


def test_search_store_with_mixed_dimensions_is_schema_error(tmp_path: Path) -> None:
    """Embeddings of two sizes (written around graphmem) fail clearly, not in numpy."""
    path = tmp_path / "e.db"
    with GraphMemory(path, embedder=_Named(8, name="e")) as store:
        store.add_memory("x", memory_id="a")
        store.add_memory("y", memory_id="b")
    conn = sqlite3.connect(path)
    with conn:
        blob = np.ones(12, dtype=np.float32).tobytes()
        conn.execute("UPDATE graphmem_memory SET embedding = ? WHERE record_id = 'b'", (blob,))
    conn.close()
    with (
        GraphMemory(path, embedder=_Named(8, name="e")) as store,
        pytest.raises(SchemaError, match="different dimensions"),
    ):
        store.search("x")


# every embedder output is checked --------------------------------------------------


class _Returns:
    """Returns ``make(texts)`` from embed; named so that errors can be checked for it."""

    name = "bad-model"

    def __init__(self, make: Callable[[Sequence[str]], object]) -> None:
        self.make = make

    def embed(self, texts: Sequence[str]) -> Any:
        return self.make(texts)


BAD_OUTPUTS: dict[str, Callable[[Sequence[str]], object]] = {
    "matrix_per_text": lambda t: np.ones((len(t), 2, 4), dtype=np.float32),
    "nan": lambda t: np.full((len(t), 4), np.nan, dtype=np.float32),
    "inf": lambda t: np.full((len(t), 4), np.inf, dtype=np.float32),
    "overflows_float32": lambda t: np.full((len(t), 4), 1e300),
    "one_extra_vector": lambda t: np.ones((len(t) + 1, 4), dtype=np.float32),
    "one_vector_short": lambda t: np.ones((len(t) - 1, 4), dtype=np.float32),
    "flat_vector": lambda t: np.ones(4, dtype=np.float32),
    "zero_dimensions": lambda t: np.ones((len(t), 0), dtype=np.float32),
    "scalar": lambda t: np.float32(1.0),
    "none": lambda t: None,
    "string": lambda t: "vector",
    "strings": lambda t: [["a", "b"] for _ in t],
    "ragged_lists": lambda t: [[1.0, [2.0, 3.0]] for _ in t],
    "none_in_list": lambda t: [[1.0, None] for _ in t],
    "complex": lambda t: np.ones((len(t), 4), dtype=np.complex64),
    "bools": lambda t: np.ones((len(t), 4), dtype=bool),
    "dict": lambda t: {"vectors": [[1.0]]},
}


def _two_text_memories() -> list[dict[str, str]]:
    return [{"content": "first", "memory_id": "a"}, {"content": "second", "memory_id": "b"}]


@pytest.mark.parametrize("make", list(BAD_OUTPUTS.values()), ids=list(BAD_OUTPUTS))
def test_embedder_bad_output_add_memories_rejected(tmp_path: Path, make: Any) -> None:
    path = tmp_path / "e.db"
    with GraphMemory(path, embedder=_Returns(make)) as store:  # type: ignore[arg-type]
        with pytest.raises(InvalidArgumentError, match=r"^embedder: 'bad-model' returned ") as info:
            store.add_memories(_two_text_memories())
        assert info.value.argument == "embedder"
        assert store.list_memories() == []
    assert _identity(path) == (None, None)


@pytest.mark.parametrize("make", list(BAD_OUTPUTS.values()), ids=list(BAD_OUTPUTS))
def test_embedder_bad_output_add_memory_rejected(tmp_path: Path, make: Any) -> None:
    path = tmp_path / "e.db"
    with GraphMemory(path, embedder=_Returns(make)) as store:  # type: ignore[arg-type]
        with pytest.raises(InvalidArgumentError, match=r"^embedder: 'bad-model' returned "):
            store.add_memory("only text")
        assert store.list_memories() == []
    assert _identity(path) == (None, None)


@pytest.mark.parametrize("make", list(BAD_OUTPUTS.values()), ids=list(BAD_OUTPUTS))
def test_embedder_bad_output_update_and_search_rejected(tmp_path: Path, make: Any) -> None:
    path = tmp_path / "e.db"
    with GraphMemory(path, embedder=_Named(4, name="bad-model")) as store:
        store.add_memory("kept", memory_id="a")
    with GraphMemory(path, embedder=_Returns(make)) as store:  # type: ignore[arg-type]
        with pytest.raises(InvalidArgumentError, match=r"^embedder: 'bad-model' returned "):
            store.update_memory("a", content="changed")
        with pytest.raises(InvalidArgumentError, match=r"^embedder: 'bad-model' returned "):
            store.search("kept")
        assert store.get_memory("a").content == "kept"


def test_embedder_nan_vector_never_reaches_search_order(tmp_path: Path) -> None:
    vectors = {"good": [1.0, 0.0], "bad": [float("nan"), 1.0], "query": [1.0, 0.0]}
    embedder = _Returns(lambda texts: np.array([vectors[t] for t in texts], dtype=np.float32))
    with GraphMemory(tmp_path / "e.db", embedder=embedder) as store:  # type: ignore[arg-type]
        store.add_memory("good", memory_id="good")
        with pytest.raises(InvalidArgumentError):
            store.add_memory("bad", memory_id="bad")
        assert [(r.id, r.distance) for r in store.search("query")] == [("good", 0.0)]


def test_embedder_plain_lists_accepted(tmp_path: Path) -> None:
    embedder = _Returns(lambda texts: [[float(len(t)), 1.0] for t in texts])
    with GraphMemory(tmp_path / "e.db", embedder=embedder) as store:  # type: ignore[arg-type]
        store.add_memory("ab", memory_id="a")
        store.add_memories([{"content": "abcd", "memory_id": "b"}])
        store.update_memory("a", content="abc")
        assert [r.id for r in store.search("abc")] == ["a", "b"]


def test_embedder_batches_of_different_dimensions_rejected(tmp_path: Path) -> None:
    """Texts go to embed() 1024 at a time; every batch must give the same dimension."""
    calls: list[int] = []

    def growing(texts: Sequence[str]) -> np.ndarray:
        calls.append(len(texts))
        return np.ones((len(texts), 4 + len(calls)), dtype=np.float32)

    with GraphMemory(tmp_path / "e.db", embedder=_Returns(growing)) as store:  # type: ignore[arg-type]
        with pytest.raises(InvalidArgumentError, match="6-dimensional vectors after 5"):
            store.add_memories([{"content": f"m{i}"} for i in range(1025)])
        assert calls == [1024, 1]
        assert store.list_memories() == []

"""graphmem.embedders: the HashingEmbedder (tests, benchmarks) and the embedder protocol."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence

import numpy as np
import pytest

from graphmem import EmbedderProtocol, GraphMemory, HashingEmbedder


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
    assert (embedder.name, embedder.dimension) == ("hashing-32", 32)


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

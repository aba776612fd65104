"""The default embedder: WordLlama run in-process from the files its wheel ships."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from graphmem import Embedder, GraphMemory, LocalEmbedder
from graphmem.errors import InvalidArgumentError


def test_local_default_name_and_dimension() -> None:
    embedder = Embedder()
    assert (embedder.name, embedder.dimension) == ("local/wordllama-l2-supercat-256", 256)
    assert Embedder("local").name == embedder.name
    assert Embedder("local/wordllama-l2-supercat").name == embedder.name


def test_local_vectors_unit_float32() -> None:
    vectors = Embedder().embed(["The user prefers sourdough pizza.", "Taxes are due in April."])
    assert vectors.shape == (2, 256) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), [1.0, 1.0], atol=1e-5)


def test_local_empty_text_is_zero_vector() -> None:
    vector = LocalEmbedder().embed([""])[0]
    assert np.isfinite(vector).all() and not vector.any()


def test_local_empty_list() -> None:
    assert LocalEmbedder().embed([]).shape == (0, 256)


def test_local_related_without_shared_words() -> None:
    query, related, unrelated = Embedder().embed(
        ["Is he scared of planes?", "She avoids air travel.", "Quarterly taxes are due."]
    )
    assert float(query @ related) > float(query @ unrelated)


@pytest.mark.parametrize("dimension", [64, 128])
def test_local_truncated_dimensions(dimension: int) -> None:
    embedder = Embedder(embedding_dimension=dimension)
    assert embedder.name == f"local/wordllama-l2-supercat-{dimension}"
    full = Embedder().embed(["sourdough"])[0]
    short = embedder.embed(["sourdough"])[0]
    assert short.shape == (dimension,)
    expected = full[:dimension] / np.linalg.norm(full[:dimension])  # matryoshka prefix
    np.testing.assert_allclose(short, expected, atol=1e-5)


def test_local_unknown_dimension() -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        Embedder(embedding_dimension=100)
    assert caught.value.argument == "embedding_dimension"


def test_local_unknown_model_name() -> None:
    with pytest.raises(InvalidArgumentError, match="unknown local model") as caught:
        Embedder("local/minilm")
    assert caught.value.argument == "model"


def test_local_same_vectors_in_another_process() -> None:
    code = (
        "from graphmem import Embedder; "
        "print(Embedder().embed(['sourdough pizza']).tobytes().hex())"
    )
    other = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert other == Embedder().embed(["sourdough pizza"]).tobytes().hex()


def test_local_import_keeps_root_logging_untouched() -> None:
    code = (
        "import logging; from graphmem import Embedder; Embedder().embed(['x']); "
        "root = logging.getLogger(); print(len(root.handlers), root.level)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", str(30)]  # no handler added, level still WARNING


def test_graphmemory_default_embedder_is_local(tmp_path) -> None:
    with GraphMemory(tmp_path / "d.db") as memory:
        assert memory.embedder.name == "local/wordllama-l2-supercat-256"  # type: ignore[attr-defined]

"""graphmem.core.embedding: the embedder output check and the identity rules."""

from __future__ import annotations

import numpy as np
import pytest

from graphmem.core.embedding import (
    MAX_NAME_LENGTH,
    check_embeddings,
    check_same_embedder,
    embedder_name,
)
from graphmem.errors import InvalidArgumentError, SchemaError


class Plain:
    def embed(self, texts: list[str]) -> None: ...


def test_check_embeddings_returns_float32_rows() -> None:
    vectors = check_embeddings(np.arange(6, dtype=np.float64).reshape(2, 3), 2, Plain())
    assert vectors.dtype == np.float32 and vectors.shape == (2, 3)
    assert vectors.flags["C_CONTIGUOUS"]


def test_check_embeddings_accepts_lists_of_ints() -> None:
    assert check_embeddings([[1, 2], (3, 4)], 2, Plain()).tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_check_embeddings_dimension_must_match_given() -> None:
    with pytest.raises(InvalidArgumentError, match="3-dimensional vectors after 2"):
        check_embeddings(np.ones((1, 3)), 1, Plain(), dim=2)


def test_check_embeddings_names_first_bad_text() -> None:
    output = np.ones((3, 2))
    output[2, 1] = np.inf
    with pytest.raises(InvalidArgumentError, match=r"\(text 2\)"):
        check_embeddings(output, 3, Plain())


def test_check_embeddings_error_names_the_embedder() -> None:
    with pytest.raises(InvalidArgumentError) as info:
        check_embeddings(None, 1, Plain())
    assert info.value.argument == "embedder"
    assert "'Plain' returned NoneType" in str(info.value)


def test_embedder_name_prefers_name_then_model_then_class() -> None:
    named = Plain()
    assert embedder_name(named) == "Plain"
    named.model = "m"  # type: ignore[attr-defined]
    assert embedder_name(named) == "m"
    named.name = " n "  # type: ignore[attr-defined]
    assert embedder_name(named) == "n"


def test_embedder_name_ignores_non_string_attributes() -> None:
    odd = Plain()
    odd.name = 3  # type: ignore[attr-defined]
    assert embedder_name(odd) == "Plain"


def test_embedder_name_too_long_rejected() -> None:
    long = Plain()
    long.name = "x" * (MAX_NAME_LENGTH + 1)  # type: ignore[attr-defined]
    with pytest.raises(InvalidArgumentError) as info:
        embedder_name(long)
    assert info.value.argument == "embedder"


@pytest.mark.parametrize(
    ("stored", "given"),
    [
        (("a", 4), ("a", 4)),
        ((None, None), ("a", 4)),
        ((None, 4), ("b", 4)),
        (("a", None), ("a", 8)),
    ],
)
def test_check_same_embedder_accepts(stored: tuple, given: tuple) -> None:
    check_same_embedder(*stored, *given)


@pytest.mark.parametrize(
    ("stored", "given"), [(("a", 4), ("b", 4)), (("a", 4), ("a", 8)), ((None, 4), ("a", 8))]
)
def test_check_same_embedder_refuses_naming_both(stored: tuple, given: tuple) -> None:
    with pytest.raises(SchemaError) as info:
        check_same_embedder(*stored, *given)
    assert f"({stored[1]} dimensions)" in str(info.value)
    assert f"{given[0]!r} ({given[1]} dimensions)" in str(info.value)

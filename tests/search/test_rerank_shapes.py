"""A reranker's answer may name each document as a RerankResult, an (index,
relevance_score) pair or a mapping; any other item is a ModelError naming them."""

from collections import namedtuple
from collections.abc import Callable
from types import SimpleNamespace

import numpy as np
import pytest

from graphmem import ModelError, RerankResult, TopKMemorySearchConfig

from ._models import fruit_memory

Scored = namedtuple("Scored", ["relevance_score", "index"])  # fields in the other order

SHAPES: dict[str, Callable[[int, float], object]] = {
    "RerankResult": RerankResult,
    "tuple": lambda i, s: (i, s),
    "list": lambda i, s: [i, s],
    "numpy tuple": lambda i, s: (np.int64(i), np.float32(s)),
    "dict": lambda i, s: {"index": i, "relevance_score": s},
    "attributes": lambda i, s: SimpleNamespace(index=i, relevance_score=s),
    "named tuple": lambda i, s: Scored(s, i),
}


class ShapedReranker:
    """Scores the shorter documents higher; answers in the given shape."""

    def __init__(self, shape: Callable[[int, float], object]) -> None:
        self.shape = shape

    def rerank(self, query: str, documents: list[str]) -> list[object]:
        return [self.shape(i, -float(len(d))) for i, d in enumerate(documents)]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_each_documented_shape_reorders_the_results(shape: str) -> None:
    plain = [r.content for r in fruit_memory().search("apple", max_results=5)]
    config = TopKMemorySearchConfig(reranker=ShapedReranker(SHAPES[shape]))
    results = fruit_memory().search("apple", max_results=5, search_config=config)
    # shortest first, ties in their previous order (sorted is stable)
    assert [r.content for r in results] == sorted(plain, key=len)


@pytest.mark.parametrize(
    "item",
    [
        (0,),
        (0, 1.0, "extra"),
        {"index": 0},
        {"idx": 0, "score": 1.0},
        "0",
        0,
        SimpleNamespace(index=0),
        None,
    ],
    ids=repr,
)
def test_any_other_item_is_a_model_error_naming_the_shapes(item: object) -> None:
    class Odd:
        def rerank(self, query: str, documents: list[str]) -> list[object]:
            return [item]

    memory = fruit_memory(search_config=TopKMemorySearchConfig(reranker=Odd()))
    with pytest.raises(ModelError) as caught:
        memory.search("apple")
    message = str(caught.value)
    assert "RerankResult, an (index, relevance_score) pair or a mapping" in message
    assert type(item).__name__ in message


class Fixed:
    def __init__(self, answer: object) -> None:
        self.answer = answer

    def rerank(self, query: str, documents: list[str]) -> object:
        return self.answer


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ([(9, 1.0)], "index 9"),
        ([(0, "high")], "not a number"),
        ([(0, 1.0), [0, 2.0]], "twice"),
        ([(0.0, 1.0)], "index 0.0"),
        ([(0, float("nan"))], "not finite"),
    ],
)
def test_a_pair_is_checked_as_any_answer(answer: object, message: str) -> None:
    memory = fruit_memory(search_config=TopKMemorySearchConfig(reranker=Fixed(answer)))
    with pytest.raises(ModelError, match=message):
        memory.search("apple")

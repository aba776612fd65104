"""Embedders from other libraries: .encode (sentence-transformers), .embed_documents (LangChain)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from graphmem import (
    EmbedderProtocol,
    GraphMemory,
    LangChainEmbedder,
    SentenceTransformerEmbedder,
)
from graphmem.ai import as_embedder
from graphmem.errors import InvalidArgumentError

WORDS = ("tea", "coffee", "pizza", "bread")


def _axes(texts: Sequence[str]) -> list[list[float]]:
    return [[float(w in t.lower()) for w in WORDS] for t in texts]


class EncodeModel:
    """Shaped like sentence_transformers.SentenceTransformer."""

    def __init__(self, as_lists: bool = False) -> None:
        self.as_lists = as_lists

    def encode(self, sentences: list[str]) -> object:
        rows = _axes(sentences)
        return rows if self.as_lists else np.array(rows, dtype=np.float64)

    def get_sentence_embedding_dimension(self) -> int:
        return len(WORDS)


class LangChainModel:
    """Shaped like langchain_core.embeddings.Embeddings: plain lists out."""

    def __init__(self) -> None:
        self.queries: list[str] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return _axes(texts)

    def embed_query(self, text: str) -> list[float]:
        self.queries.append(text)
        return _axes([text])[0]


class Broken:
    def encode(self, sentences: list[str]) -> list[list[float]]:
        return _axes(sentences)[:-1]


def _search_coffee(embedder: object, tmp_path) -> str:
    with GraphMemory(tmp_path / "w.db", embedder=embedder) as memory:
        memory.add_memories([{"content": "green tea"}, {"content": "espresso coffee"}])
        memory.add_memory("fresh bread", memory_id="bread")
        return memory.search("coffee please", max_results=1)[0].content


@pytest.mark.parametrize("as_lists", [False, True])
def test_wrappers_encode_object_in_graphmemory(tmp_path, as_lists: bool) -> None:
    assert _search_coffee(EncodeModel(as_lists), tmp_path) == "espresso coffee"


def test_wrappers_langchain_object_in_graphmemory(tmp_path) -> None:
    assert _search_coffee(LangChainModel(), tmp_path) == "espresso coffee"


def test_wrappers_chosen_by_method() -> None:
    encode = as_embedder(EncodeModel())
    langchain = as_embedder(LangChainModel())
    assert isinstance(encode, SentenceTransformerEmbedder) and encode.dimension == 4
    assert isinstance(langchain, LangChainEmbedder)
    assert encode.name == "encode/EncodeModel" and langchain.name == "langchain/LangChainModel"
    assert isinstance(encode, EmbedderProtocol) and isinstance(langchain, EmbedderProtocol)


def test_wrappers_return_float32_arrays() -> None:
    vectors = as_embedder(LangChainModel()).embed(["tea", "pizza and bread"])
    assert isinstance(vectors, np.ndarray) and vectors.dtype == np.float32
    assert vectors.tolist() == [[1, 0, 0, 0], [0, 0, 1, 1]]


def test_wrappers_langchain_query_uses_embed_query() -> None:
    model = LangChainModel()
    vector = LangChainEmbedder(model).embed_query("coffee")
    assert model.queries == ["coffee"] and vector.tolist() == [0, 1, 0, 0]


def test_wrappers_embed_object_used_as_is() -> None:
    class Own:
        def embed(self, texts: Sequence[str]) -> np.ndarray:
            return np.ones((len(texts), 3), dtype=np.float32)

    own = Own()
    assert as_embedder(own) is own


def test_wrappers_wrong_count_names_embedder() -> None:
    with pytest.raises(
        InvalidArgumentError, match=r"encode/Broken\.encode returned shape"
    ) as caught:
        as_embedder(Broken()).embed(["a", "b"])
    assert caught.value.argument == "embedder"


def test_wrappers_reject_object_without_methods(tmp_path) -> None:
    with pytest.raises(InvalidArgumentError, match="no embed") as caught:
        GraphMemory(tmp_path / "none.db", embedder=object())
    assert caught.value.argument == "embedder"
    assert not (tmp_path / "none.db").exists()


def test_wrappers_none_is_the_local_default() -> None:
    assert as_embedder(None).name == "local/wordllama-l2-supercat-256"

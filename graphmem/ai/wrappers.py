"""Adapters for embedders from other libraries, and the coercion ``GraphMemory`` applies.

* sentence-transformers style: an object with ``encode(texts)``.
* LangChain style: an object with ``embed_documents(texts)`` and ``embed_query(text)``.

Their answers may be numpy arrays, tensors with ``__array__``, or plain lists
of lists; the wrappers return float32 arrays and check that there is one
vector per text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from graphmem.ai.embedder import Embedder
from graphmem.ai.protocols import EmbedderProtocol
from graphmem.errors import InvalidArgumentError

__all__ = ["LangChainEmbedder", "SentenceTransformerEmbedder", "as_embedder", "to_matrix"]


def to_matrix(vectors: object, count: int, source: str) -> npt.NDArray[np.float32]:
    """``vectors`` as a float32 ``[count, d]`` array (lists and arrays accepted).

    Raises:
        InvalidArgumentError: (argument ``embedder``) not ``count`` equal-length
            numeric vectors; the message names ``source``.
    """
    try:
        matrix = np.asarray(vectors, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError("embedder", f"{source} did not return numeric vectors") from exc
    if matrix.ndim != 2 or matrix.shape[0] != count:
        raise InvalidArgumentError(
            "embedder", f"{source} returned shape {matrix.shape} for {count} texts"
        )
    return matrix


def _texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str) or not all(isinstance(t, str) for t in texts):
        raise InvalidArgumentError("texts", "must be a sequence of strings")
    return list(texts)


class SentenceTransformerEmbedder:
    """Wraps an object with ``encode(texts)``, e.g. ``sentence_transformers.SentenceTransformer``.

    Args:
        model: the object; ``encode`` receives the list of texts.
        name: the identity a store records (default: the model's class name).
    """

    def __init__(self, model: Any, *, name: str | None = None) -> None:
        if not callable(getattr(model, "encode", None)):
            raise InvalidArgumentError("embedder", "must have an encode(texts) method")
        self.model = model
        self.name = name or f"encode/{type(model).__name__}"
        size = getattr(model, "get_sentence_embedding_dimension", None)
        dimension = size() if callable(size) else None
        self.dimension: int | None = dimension if isinstance(dimension, int) else None

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder({self.name!r})"

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """``model.encode(texts)`` as a float32 array."""
        batch = _texts(texts)
        if not batch:
            return np.zeros((0, self.dimension or 0), dtype=np.float32)
        return to_matrix(self.model.encode(batch), len(batch), f"{self.name}.encode")


class LangChainEmbedder:
    """Wraps a LangChain ``Embeddings`` object (``embed_documents`` / ``embed_query``).

    Args:
        model: the object.
        name: the identity a store records (default: the model's class name).
    """

    def __init__(self, model: Any, *, name: str | None = None) -> None:
        if not callable(getattr(model, "embed_documents", None)):
            raise InvalidArgumentError("embedder", "must have an embed_documents(texts) method")
        self.model = model
        self.name = name or f"langchain/{type(model).__name__}"
        self.dimension: int | None = None

    def __repr__(self) -> str:
        return f"LangChainEmbedder({self.name!r})"

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """``model.embed_documents(texts)`` as a float32 array."""
        batch = _texts(texts)
        if not batch:
            return np.zeros((0, self.dimension or 0), dtype=np.float32)
        return to_matrix(
            self.model.embed_documents(batch), len(batch), f"{self.name}.embed_documents"
        )

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        """``model.embed_query(text)`` when it exists, else the document embedding."""
        if not callable(getattr(self.model, "embed_query", None)):
            matrix = self.embed([text])
        else:
            matrix = to_matrix([self.model.embed_query(text)], 1, f"{self.name}.embed_query")
        row: npt.NDArray[np.float32] = matrix[0]
        return row


def as_embedder(embedder: object) -> EmbedderProtocol:
    """What ``GraphMemory(embedder=...)`` uses for ``embedder``.

    None gives the offline default (:class:`~graphmem.ai.embedder.Embedder` with
    no model); an object with ``embed`` is used as it is; one with
    ``embed_documents`` or ``encode`` is wrapped.

    Raises:
        InvalidArgumentError: none of those methods exists.

    >>> as_embedder(None).name
    'local/wordllama-l2-supercat-256'
    """
    if embedder is None:
        return Embedder()
    if isinstance(embedder, EmbedderProtocol) and callable(embedder.embed):
        return embedder
    if callable(getattr(embedder, "embed_documents", None)):
        return LangChainEmbedder(embedder)
    if callable(getattr(embedder, "encode", None)):
        return SentenceTransformerEmbedder(embedder)
    raise InvalidArgumentError(
        "embedder",
        f"{type(embedder).__name__} has no embed(texts), encode(texts) or "
        "embed_documents(texts) method",
    )

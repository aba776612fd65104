"""``Embedder``: the OpenAI-compatible ``/embeddings`` API, or the in-process default."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from graphmem.ai.http import JsonClient, RetryPolicy
from graphmem.ai.local import LOCAL_MODEL, LocalEmbedder
from graphmem.core.budget import estimate_tokens
from graphmem.errors import InvalidArgumentError

__all__ = ["DEFAULT_MAX_BATCH_TOKENS", "Embedder"]

DEFAULT_MAX_BATCH_TOKENS = 200_000
"""Estimated tokens per ``/embeddings`` request: OpenAI refuses more than 300,000
summed over one request's inputs, and the estimate (four characters a token)
undercounts code and most non-English text, hence the margin."""

_LOCAL_NAMES = frozenset({"local", "local/default", LOCAL_MODEL})


def _check_texts(texts: object) -> list[str]:
    if isinstance(texts, str) or not isinstance(texts, Sequence):
        raise InvalidArgumentError("texts", "must be a sequence of strings")
    if not all(isinstance(t, str) for t in texts):
        raise InvalidArgumentError("texts", "must be a sequence of strings")
    return list(texts)


def _batches(texts: list[str], max_count: int, max_tokens: int) -> Iterator[list[str]]:
    """``texts`` in order, in runs of at most ``max_count`` texts and ``max_tokens``
    estimated tokens; a text over ``max_tokens`` goes alone.

    >>> [len(b) for b in _batches(["a" * 40, "b" * 40, "c" * 400, "d"], 3, 25)]
    [2, 1, 1]
    """
    batch: list[str] = []
    tokens = 0
    for text in texts:
        size = estimate_tokens(text)
        if batch and (len(batch) == max_count or tokens + size > max_tokens):
            yield batch
            batch, tokens = [], 0
        batch.append(text)
        tokens += size
    if batch:
        yield batch


def _local_dimension(model: str, embedding_dimension: int | None) -> int:
    if model in _LOCAL_NAMES:
        return 256 if embedding_dimension is None else embedding_dimension
    suffix = model.removeprefix(LOCAL_MODEL + "-")
    if suffix == model or not suffix.isdigit():
        raise InvalidArgumentError(
            "model", f"unknown local model {model!r}; use {LOCAL_MODEL!r} or 'local'"
        )
    if embedding_dimension is not None and embedding_dimension != int(suffix):
        raise InvalidArgumentError(
            "embedding_dimension", f"{embedding_dimension} contradicts model {model!r}"
        )
    return int(suffix)


class Embedder:
    """Text embeddings from an OpenAI-compatible server, or the offline default.

    ``model=None`` or a ``local/...`` name selects the in-process WordLlama
    model (no network, no key). Any other name is sent to ``api_base +
    "/embeddings"`` (OpenAI, Ollama, vLLM, LM Studio, a LiteLLM proxy...).
    A request carries at most ``batch_size`` texts and ``max_batch_tokens``
    estimated tokens, whichever comes first; each answer must hold exactly one
    finite vector per text, all of one dimension (``embedding_dimension`` when
    given), else :class:`~graphmem.errors.ModelError`.

    Args:
        model: the provider's model id, e.g. ``"text-embedding-3-small"``; or ``local/...``.
        api_base: the API root, e.g. ``"https://api.openai.com/v1"``.
        api_key: bearer token; never logged nor shown in errors. Surrounding whitespace
            is stripped; a control or non-ASCII character is an InvalidArgumentError.
        embedding_dimension: the expected vector length; also sent as ``dimensions``
            (models that can shorten their vectors honour it).
        normalize: L2-normalise a server's vectors (default True); the local model's
            are always unit length.
        query_prefix: prepended to texts passed to :meth:`embed_query`
            (e.g. ``"search_query: "`` for nomic-embed-text).
        document_prefix: prepended to texts passed to :meth:`embed`.
        timeout: seconds per connect / read; see :class:`~graphmem.ai.http.RetryPolicy`.
        max_retries: retries on 429, 5xx, timeouts and connection errors.
        batch_size: texts per request.
        max_batch_tokens: estimated tokens per request
            (:func:`~graphmem.core.budget.estimate_tokens`, four characters a token);
            a longer text goes alone. Default :data:`DEFAULT_MAX_BATCH_TOKENS`.

    Attributes:
        name: the model identity a store records (``local/...`` or ``model``).
        dimension: the vector length, or None until the first answer tells it.

    Example:
        >>> Embedder().name
        'local/wordllama-l2-supercat-256'
    """

    def __init__(
        self,
        model: str | None = None,
        *,
        api_base: str = "https://api.openai.com/v1",
        api_key: str | None = None,
        embedding_dimension: int | None = None,
        normalize: bool = True,
        query_prefix: str = "",
        document_prefix: str = "",
        timeout: float = 60.0,
        max_retries: int = 3,
        batch_size: int = 256,
        max_batch_tokens: int = DEFAULT_MAX_BATCH_TOKENS,
    ) -> None:
        if model is not None and (not isinstance(model, str) or not model.strip()):
            raise InvalidArgumentError("model", "must be a non-empty string or None")
        if embedding_dimension is not None and (
            isinstance(embedding_dimension, bool)
            or not isinstance(embedding_dimension, int)
            or embedding_dimension < 1
        ):
            raise InvalidArgumentError("embedding_dimension", "must be a positive int or None")
        for argument, prefix in (
            ("query_prefix", query_prefix),
            ("document_prefix", document_prefix),
        ):
            if not isinstance(prefix, str):
                raise InvalidArgumentError(argument, "must be a string")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise InvalidArgumentError("batch_size", "must be a positive int")
        if (
            isinstance(max_batch_tokens, bool)
            or not isinstance(max_batch_tokens, int)
            or max_batch_tokens < 1
        ):
            raise InvalidArgumentError("max_batch_tokens", "must be a positive int")
        self.normalize = bool(normalize)
        self.query_prefix = query_prefix
        self.document_prefix = document_prefix
        self.batch_size = batch_size
        self.max_batch_tokens = max_batch_tokens
        self._local: LocalEmbedder | None = None
        self._client: JsonClient | None = None
        if model is None or model == "local" or model.startswith("local/"):
            self._local = LocalEmbedder(_local_dimension(model or "local", embedding_dimension))
            self.model = self._local.name
            self.name = self._local.name
            self.dimension: int | None = self._local.dimension
        else:
            policy = RetryPolicy(timeout=timeout, max_retries=max_retries)
            self._client = JsonClient(api_base, api_key, policy, "embeddings")
            self.model = model
            self.name = model
            self.dimension = embedding_dimension
        self._requested_dimension = embedding_dimension

    def __repr__(self) -> str:
        where = "in-process" if self._client is None else self._client.api_base
        return f"Embedder(model={self.model!r}, {where}, dimension={self.dimension})"

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed documents (``document_prefix`` is prepended); shape ``[len(texts), d]``.

        Raises:
            InvalidArgumentError: ``texts`` is not a sequence of strings.
            ModelError: the provider failed, or answered with the wrong count,
                dimension or non-finite numbers.
        """
        return self._embed([self.document_prefix + t for t in _check_texts(texts)])

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        """Embed one search query (``query_prefix`` is prepended); shape ``[d]``."""
        if not isinstance(text, str):
            raise InvalidArgumentError("text", "must be a string")
        row: npt.NDArray[np.float32] = self._embed([self.query_prefix + text])[0]
        return row

    def _embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        if self._local is not None:
            return self._local.embed(texts)  # unit length whatever ``normalize`` says
        if not texts:
            return np.zeros((0, self.dimension or 0), dtype=np.float32)
        parts = [
            self._request(batch)
            for batch in _batches(texts, self.batch_size, self.max_batch_tokens)
        ]
        vectors = np.concatenate(parts)
        if self.normalize:
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            vectors = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
        return vectors

    def _request(self, batch: list[str]) -> npt.NDArray[np.float32]:
        assert self._client is not None
        payload: dict[str, Any] = {"model": self.model, "input": batch, "encoding_format": "float"}
        if self._requested_dimension is not None:
            payload["dimensions"] = self._requested_dimension
        return self._parse(self._client.post("/embeddings", payload), len(batch))

    def _parse(self, answer: Any, count: int) -> npt.NDArray[np.float32]:
        assert self._client is not None
        data = answer.get("data") if isinstance(answer, dict) else None
        if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
            raise self._client.fail(200, "answer has no 'data' list of embeddings")
        if len(data) != count:
            raise self._client.fail(200, f"{len(data)} vectors for {count} texts")
        for item in data:
            index = item.get("index")
            if isinstance(index, bool) or not isinstance(index, int):
                raise self._client.fail(200, f"embedding index {index!r} is not an int")
        ordered = sorted(data, key=lambda item: int(item["index"]))
        if [item["index"] for item in ordered] != list(range(count)):
            raise self._client.fail(200, "embedding indexes are not 0..n-1")
        rows = [item.get("embedding") for item in ordered]
        if not all(isinstance(row, list) and row for row in rows):
            raise self._client.fail(200, "an embedding is not a non-empty list of numbers")
        return self._check_rows(rows)

    def _check_rows(self, rows: list[Any]) -> npt.NDArray[np.float32]:
        assert self._client is not None
        expected = self.dimension or len(rows[0])
        for index, row in enumerate(rows):
            if len(row) != expected:
                raise self._client.fail(
                    200, f"vector {index} has {len(row)} dimensions, expected {expected}"
                )
            if not all(
                isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
                for x in row
            ):
                raise self._client.fail(200, f"vector {index} holds a non-finite or non-number")
        matrix = np.asarray(rows, dtype=np.float32)
        if not np.isfinite(matrix).all():
            raise self._client.fail(200, "a vector overflows float32")
        self.dimension = expected
        return matrix

    def close(self) -> None:
        """Close pooled HTTP connections (the local model needs none)."""
        if self._client is not None:
            self._client.close()

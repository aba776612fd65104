"""``Reranker``: the common ``/rerank`` API (the Cohere / Jina shape: Cohere v2, Jina,
vLLM, a LiteLLM proxy).

Hugging Face TEI's ``/rerank`` takes ``{"query", "texts"}`` and answers a bare
list, so it does not speak this shape.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from graphmem.ai.http import JsonClient, RetryPolicy
from graphmem.ai.protocols import RerankResult
from graphmem.errors import InvalidArgumentError

__all__ = ["Reranker"]


class Reranker:
    """Orders documents by relevance with a cross-encoder behind ``api_base + "/rerank"``.

    The request is ``{"model", "query", "documents", "top_n"}``; the answer's
    ``results`` list holds ``{"index", "relevance_score"}`` items. Every index
    must name a distinct input document and every score be finite, else
    :class:`~graphmem.errors.ModelError`.

    Args:
        model: the provider's reranker id, e.g. ``"BAAI/bge-reranker-v2-m3"``.
        api_base: the API root, e.g. ``"http://localhost:8000/v1"``.
        api_key: bearer token; never logged nor shown in errors. Surrounding whitespace
            is stripped; a control or non-ASCII character is an InvalidArgumentError.
        timeout: seconds per connect / read.
        max_retries: retries on 429, 5xx, timeouts and connection errors.

    Example:
        >>> Reranker("rerank-v3.5", api_base="https://api.cohere.com/v2")
        Reranker(model='rerank-v3.5', api_base='https://api.cohere.com/v2')
    """

    def __init__(
        self,
        model: str,
        *,
        api_base: str = "https://api.openai.com/v1",
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 3,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise InvalidArgumentError("model", "must be a non-empty string")
        policy = RetryPolicy(timeout=timeout, max_retries=max_retries)
        self._client = JsonClient(api_base, api_key, policy, "rerank")
        self.model = model

    def __repr__(self) -> str:
        return f"Reranker(model={self.model!r}, api_base={self._client.api_base!r})"

    def _payload(self, query: str, documents: Sequence[str], top_n: int | None) -> dict[str, Any]:
        if not isinstance(query, str) or not query.strip():
            raise InvalidArgumentError("query", "must be a non-empty string")
        if isinstance(documents, str) or not all(isinstance(d, str) for d in documents):
            raise InvalidArgumentError("documents", "must be a sequence of strings")
        if top_n is not None and (
            isinstance(top_n, bool) or not isinstance(top_n, int) or top_n < 1
        ):
            raise InvalidArgumentError("top_n", "must be a positive int or None")
        payload: dict[str, Any] = {
            "model": self.model,
            "query": query,
            "documents": list(documents),
        }
        if top_n is not None:
            payload["top_n"] = top_n
        return payload

    def _parse(self, answer: Any, count: int, top_n: int | None) -> list[RerankResult]:
        items = answer.get("results") if isinstance(answer, dict) else None
        if not isinstance(items, list):
            raise self._client.fail(200, "answer has no 'results' list")
        results = []
        for item in items:
            index = item.get("index") if isinstance(item, dict) else None
            score = item.get("relevance_score") if isinstance(item, dict) else None
            if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < count:
                raise self._client.fail(200, f"result index {index!r} is not in 0..{count - 1}")
            if isinstance(score, bool) or not isinstance(score, (int, float)):
                raise self._client.fail(200, f"relevance_score {score!r} is not a number")
            if not math.isfinite(score):
                raise self._client.fail(200, f"relevance_score {score!r} is not finite")
            results.append(RerankResult(index, float(score)))
        if len({r.index for r in results}) != len(results):
            raise self._client.fail(200, "a document index appears twice")
        if len(results) > (count if top_n is None else min(count, top_n)):
            raise self._client.fail(200, f"{len(results)} results for {count} documents")
        return sorted(results, key=lambda r: (-r.relevance_score, r.index))

    def rerank(
        self, query: str, documents: Sequence[str], *, top_n: int | None = None
    ) -> list[RerankResult]:
        """Documents' indexes with scores, most relevant first (ties by index).

        Args:
            query: what the documents should answer.
            documents: the candidates, in their current order.
            top_n: keep only this many (None: all).

        Raises:
            InvalidArgumentError: a bad argument.
            ModelError: the provider failed or answered out of shape.
        """
        payload = self._payload(query, documents, top_n)
        if not documents:
            return []
        return self._parse(self._client.post("/rerank", payload), len(documents), top_n)

    async def arerank(
        self, query: str, documents: Sequence[str], *, top_n: int | None = None
    ) -> list[RerankResult]:
        """Async :meth:`rerank`."""
        payload = self._payload(query, documents, top_n)
        if not documents:
            return []
        answer = await self._client.apost("/rerank", payload)
        return self._parse(answer, len(documents), top_n)

    def close(self) -> None:
        """Close pooled HTTP connections."""
        self._client.close()

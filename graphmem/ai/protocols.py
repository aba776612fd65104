"""The three model roles graphmem calls, as structural protocols.

Any object with the right method works; it need not inherit from anything.

* :class:`EmbedderProtocol`: ``embed(texts) -> [len(texts), d]`` vectors (a float
  array or nested lists). Optional attributes ``name`` and ``dimension`` identify
  the model to the store.
* :class:`LlmProtocol`: ``chat(messages, json_schema=None) -> str``. ``messages``
  are OpenAI-style ``{"role": ..., "content": ...}`` mappings; with ``json_schema``
  the reply must be a JSON document matching it.
* :class:`RerankerProtocol`: ``rerank(query, documents) -> [RerankResult]``, most
  relevant first, each naming a document by its index (a search also takes
  ``(index, relevance_score)`` pairs, or mappings with those two keys).

:class:`~graphmem.ai.embedder.Embedder`, :class:`~graphmem.ai.llm.Llm` and
:class:`~graphmem.ai.reranker.Reranker` implement them over HTTP;
:func:`~graphmem.ai.wrappers.as_embedder` adapts sentence-transformers and
LangChain embedders.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = ["EmbedderProtocol", "LlmProtocol", "RerankResult", "RerankerProtocol"]


@runtime_checkable
class EmbedderProtocol(Protocol):
    """Turns texts into vectors of one fixed dimension."""

    def embed(self, texts: Sequence[str]) -> Any:
        """One vector per text: a float array of shape ``[len(texts), d]`` or nested lists."""
        ...


@runtime_checkable
class LlmProtocol(Protocol):
    """Answers a chat conversation with text, or with JSON matching a schema."""

    def chat(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        json_schema: Mapping[str, Any] | None = None,
    ) -> str:
        """The assistant's reply to ``messages``.

        Args:
            messages: ``{"role": "system" | "user" | "assistant", "content": str}`` items.
            json_schema: when given, the reply is a JSON document matching this schema.
        """
        ...


@dataclass(frozen=True)
class RerankResult:
    """One reranked document: its index in the input and its relevance (higher is better)."""

    index: int
    relevance_score: float


@runtime_checkable
class RerankerProtocol(Protocol):
    """Orders documents by relevance to a query."""

    def rerank(
        self, query: str, documents: Sequence[str]
    ) -> Sequence[RerankResult | tuple[int, float] | Mapping[str, Any]]:
        """Documents' indexes with scores, most relevant first: ``RerankResult``
        objects, ``(index, relevance_score)`` pairs, or mappings with ``index``
        and ``relevance_score`` keys."""
        ...

"""Models graphmem calls: embedders, chat LLMs and rerankers.

* :class:`Embedder`: the offline default (WordLlama, in-process) or any
  OpenAI-compatible ``/embeddings`` server.
* :class:`Llm`: OpenAI-compatible ``/chat/completions``, with structured output.
* :class:`Reranker`: the common ``/rerank`` API.
* Protocols (:class:`EmbedderProtocol`, :class:`LlmProtocol`,
  :class:`RerankerProtocol`) for bringing your own objects, and wrappers for
  sentence-transformers and LangChain embedders.

HTTP failures are :class:`~graphmem.errors.ModelError`.
"""

from graphmem.ai.embedder import Embedder
from graphmem.ai.http import RetryPolicy
from graphmem.ai.llm import Llm, Messages
from graphmem.ai.local import LOCAL_MODEL, LocalEmbedder
from graphmem.ai.protocols import EmbedderProtocol, LlmProtocol, RerankerProtocol, RerankResult
from graphmem.ai.reranker import Reranker
from graphmem.ai.wrappers import (
    LangChainEmbedder,
    SentenceTransformerEmbedder,
    as_embedder,
    to_matrix,
)

__all__ = [
    "LOCAL_MODEL",
    "Embedder",
    "EmbedderProtocol",
    "LangChainEmbedder",
    "Llm",
    "LlmProtocol",
    "LocalEmbedder",
    "Messages",
    "RerankResult",
    "Reranker",
    "RerankerProtocol",
    "RetryPolicy",
    "SentenceTransformerEmbedder",
    "as_embedder",
    "to_matrix",
]

"""graphmem: a graph memory engine for AI agents.

Memories are vertices and typed, directed links are edges of a SQL property
graph. Search returns direct results plus their linked context, a deterministic
shortest-path tree rendered as prompt text.
"""

from graphmem.ai import (
    Embedder,
    EmbedderProtocol,
    LangChainEmbedder,
    Llm,
    LlmProtocol,
    LocalEmbedder,
    Reranker,
    RerankerProtocol,
    RerankResult,
    SentenceTransformerEmbedder,
)
from graphmem.embedders import HashingEmbedder
from graphmem.errors import (
    BackendError,
    ClosedError,
    ConflictError,
    GraphMemError,
    InvalidArgumentError,
    ModelError,
    NotFoundError,
    SchemaError,
)
from graphmem.memory import GraphMemory
from graphmem.models import (
    MemoryRecord,
    RecordRelation,
    SchemaPolicy,
    SearchResult,
    SearchResultFormatConfig,
)
from graphmem.registry_errors import (
    PromptArgumentError,
    PromptConflictError,
    PromptError,
    PromptNotFoundError,
)
from graphmem.registry_models import Prompt, PromptList, PromptVersion, PromptVersionList
from graphmem.search.config import (
    HybridConfig,
    PruningEvaluationMode,
    PruningMemorySearchConfig,
    TopKMemorySearchConfig,
)
from graphmem.search.postprocess import SearchResults, SearchStats

__all__ = [
    "BackendError",
    "ClosedError",
    "ConflictError",
    "Embedder",
    "EmbedderProtocol",
    "GraphMemError",
    "GraphMemory",
    "HashingEmbedder",
    "HybridConfig",
    "InvalidArgumentError",
    "LangChainEmbedder",
    "Llm",
    "LlmProtocol",
    "LocalEmbedder",
    "MemoryRecord",
    "ModelError",
    "NotFoundError",
    "Prompt",
    "PromptArgumentError",
    "PromptConflictError",
    "PromptError",
    "PromptList",
    "PromptNotFoundError",
    "PromptVersion",
    "PromptVersionList",
    "PruningEvaluationMode",
    "PruningMemorySearchConfig",
    "RecordRelation",
    "RerankResult",
    "Reranker",
    "RerankerProtocol",
    "SchemaError",
    "SchemaPolicy",
    "SearchResult",
    "SearchResultFormatConfig",
    "SearchResults",
    "SearchStats",
    "SentenceTransformerEmbedder",
    "TopKMemorySearchConfig",
]

__version__ = "0.1.0"

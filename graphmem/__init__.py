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
    ExtractionError,
    ExtractionTimeoutError,
    GraphMemError,
    InvalidArgumentError,
    ModelError,
    NotFoundError,
    SchemaError,
)
from graphmem.extraction import (
    ExtractionProvenance,
    ExtractionResult,
    JobInfo,
    MemoryLinkExtractionMode,
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
from graphmem.thread_models import Message, Profile, ThreadInfo
from graphmem.threads import (
    CardRecord,
    ContextCard,
    MemoryExtractionConfig,
    Thread,
    ThreadSettings,
)

__all__ = [
    "BackendError",
    "CardRecord",
    "ClosedError",
    "ConflictError",
    "ContextCard",
    "Embedder",
    "EmbedderProtocol",
    "ExtractionError",
    "ExtractionProvenance",
    "ExtractionResult",
    "ExtractionTimeoutError",
    "GraphMemError",
    "GraphMemory",
    "HashingEmbedder",
    "HybridConfig",
    "InvalidArgumentError",
    "JobInfo",
    "LangChainEmbedder",
    "Llm",
    "LlmProtocol",
    "LocalEmbedder",
    "MemoryExtractionConfig",
    "MemoryLinkExtractionMode",
    "MemoryRecord",
    "Message",
    "ModelError",
    "NotFoundError",
    "Profile",
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
    "Thread",
    "ThreadInfo",
    "ThreadSettings",
    "TopKMemorySearchConfig",
]

__version__ = "0.1.0"

"""graphmem: a graph memory engine for AI agents.

Memories are vertices and typed, directed links are edges of a SQL property
graph. Search returns direct results plus their linked context, a deterministic
shortest-path tree rendered as prompt text.
"""

from graphmem.embedders import Embedder, HashingEmbedder
from graphmem.errors import (
    BackendError,
    ClosedError,
    ConflictError,
    GraphMemError,
    InvalidArgumentError,
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

__all__ = [
    "BackendError",
    "ClosedError",
    "ConflictError",
    "Embedder",
    "GraphMemError",
    "GraphMemory",
    "HashingEmbedder",
    "InvalidArgumentError",
    "MemoryRecord",
    "NotFoundError",
    "RecordRelation",
    "SchemaError",
    "SchemaPolicy",
    "SearchResult",
    "SearchResultFormatConfig",
]

__version__ = "0.1.0"

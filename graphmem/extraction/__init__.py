"""Memory extraction from thread messages, automatic linking, and durable jobs.

This package's ``__init__`` stays light (the config and the result models), so
that the thread settings can import the config without a cycle.
"""

from graphmem.extraction.config import MemoryExtractionConfig, MemoryLinkExtractionMode
from graphmem.extraction.models import ExtractionProvenance, ExtractionResult, JobInfo

__all__ = [
    "ExtractionProvenance",
    "ExtractionResult",
    "JobInfo",
    "MemoryExtractionConfig",
    "MemoryLinkExtractionMode",
]

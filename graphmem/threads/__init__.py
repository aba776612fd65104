"""Threads: a conversation's messages, summary and topics, and context cards.

:meth:`graphmem.GraphMemory.create_thread` and
:meth:`~graphmem.GraphMemory.get_thread` return a :class:`Thread` handle.
"""

from graphmem.threads.card_model import CardRecord, ContextCard
from graphmem.threads.handle import Thread
from graphmem.threads.settings import MemoryExtractionConfig, ThreadSettings

__all__ = ["CardRecord", "ContextCard", "MemoryExtractionConfig", "Thread", "ThreadSettings"]

"""The keys a bulk item may hold: ``add_memories`` / ``add_record_links`` items and
the JSON Lines rows that ``import_jsonl`` turns into them."""

from __future__ import annotations

__all__ = ["LINK_KEYS", "MEMORY_KEYS"]

MEMORY_KEYS = frozenset(
    {
        "content",
        "memory_id",
        "memory_type",
        "user_id",
        "agent_id",
        "thread_id",
        "metadata",
        "timestamp",
        "ttl_days",
    }
)
"""The keyword arguments of ``GraphMemory.add_memory`` that an item may carry."""

LINK_KEYS = frozenset(
    {
        "source_record_id",
        "source_record_type",
        "target_record_id",
        "target_record_type",
        "relation_type",
        "opposite_relation_type",
        "relation_id",
        "timestamp",
        "metadata",
    }
)
"""The keyword arguments of ``GraphMemory.link_records`` that an item may carry."""

"""The seed's pizza flow on the embedded store, printed step by step."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from graphmem.memory import GraphMemory
from graphmem.models import SearchResultFormatConfig

__all__ = ["STORE", "run_demo"]

STORE = "T_GRAPH_MEMORY"
"""The demo's memory_store_id (table prefix)."""

USER = "graph-demo-user"
PIZZAS = (
    ("pizza-thin-crust", "The user's preferred pizza style is thin crust."),
    ("pizza-sourdough", "The user now prefers sourdough pizza."),
    (
        "pizza-neapolitan-sourdough",
        "The user's preferred pizza style is sourdough, especially Neapolitan sourdough.",
    ),
)


def _statuses(memory: GraphMemory, say: Callable[[str], None], step: str) -> None:
    states = ", ".join(f"{mid}={memory.get_memory(mid).status}" for mid, _ in PIZZAS)
    say(f"{step:<34} {states}")


def run_demo(db: str | Path = ":memory:", say: Callable[[str], None] = print) -> None:
    """Create three preferences, link, edit, delete, relink, then search two hops."""
    with GraphMemory(db, memory_store_id=STORE) as memory:
        for existing in memory.list_memories(user_id=USER, limit=1000):
            memory.delete_memory(existing.id)  # a rerun on the same file starts afresh
        thin, sour, neap = (
            memory.add_memory(text, memory_id=mid, memory_type="preference", user_id=USER)
            for mid, text in PIZZAS
        )
        _statuses(memory, say, "added three preferences:")
        supersedes = memory.link_records(
            source_record_id=sour,
            source_record_type="preference",
            target_record_id=thin,
            target_record_type="preference",
            relation_type="supersedes",
        )
        _statuses(memory, say, "sourdough supersedes thin crust:")
        memory.link_records(
            source_record_id=neap,
            source_record_type="preference",
            target_record_id=sour,
            target_record_type="preference",
            relation_type="refines",
        )
        _statuses(memory, say, "neapolitan refines sourdough:")
        memory.update_record_link(
            supersedes, relation_type="supports", metadata={"reviewed_by": "preference-service"}
        )
        _statuses(memory, say, "supersedes changed to supports:")
        memory.delete_record_link(relation_id=supersedes)
        _statuses(memory, say, "deleted by relation id:")
        memory.delete_record_link(
            source_record_id=neap,
            source_record_type="preference",
            target_record_id=sour,
            target_record_type="preference",
            relation_type="refines",
        )
        _statuses(memory, say, "deleted by directed triple:")
        memory.link_records(sour, "preference", thin, "preference", "supersedes")
        memory.link_records(neap, "preference", sour, "preference", "refines")
        _statuses(memory, say, "links recreated:")
        results = memory.search(
            "What pizza should I recommend?",
            user_id=USER,
            max_results=5,
            num_hops=2,
            max_linked_results=20,
            include_invalid_results=False,
        )
        say(f"\nsearch: {len(results)} direct result(s), 2 hops of linked context\n")
        config = SearchResultFormatConfig(
            include_invalid_results=True, show_timestamp=False, show_role=False, show_status=False
        )
        for result in results:
            say(result.format_content(config))

"""The example-based suite every graphmem store must pass.

Subclass :class:`StoreConformance` in a test module with a ``Test`` prefix and
override :meth:`StoreConformance.make_memory`::

    class TestSqliteMemory(StoreConformance):
        def make_memory(self, clock=None):
            return GraphMemory(":memory:", clock=clock)

The class has no ``Test`` prefix so that importing it does not collect it. It
does not import pytest: stores are opened through :meth:`fresh` and closed by
``teardown_method``, and expected errors are checked by :meth:`expect_error`.
"""

from __future__ import annotations

from graphmem.errors import ConflictError, InvalidArgumentError, NotFoundError
from graphmem.memory import GraphMemory
from graphmem.models import SearchResultFormatConfig
from graphmem.testing.conformance_links import LinkConformance
from graphmem.testing.conformance_pages import PageConformance
from graphmem.testing.conformance_search import SearchConformance
from graphmem.testing.model import ManualClock

__all__ = ["StoreConformance"]


class StoreConformance(LinkConformance, SearchConformance, PageConformance):
    """Public API behaviour on any store: memories, links, validity, errors, search."""

    # memories -------------------------------------------------------------------

    def test_memory_add_get_roundtrip(self) -> None:
        clock = ManualClock()
        memory = self.fresh(clock)
        memory.add_memory(
            "Likes green tea.",
            memory_id="m1",
            memory_type="preference",
            user_id="u1",
            agent_id="a1",
            thread_id="t1",
            metadata={"k": 1, "tags": ["x"]},
        )
        got = memory.get_memory("m1")
        assert (got.id, got.record_type, got.content, got.status) == (
            "m1",
            "preference",
            "Likes green tea.",
            "valid",
        )
        assert (got.user_id, got.agent_id, got.thread_id) == ("u1", "a1", "t1")
        assert got.metadata == {"k": 1, "tags": ["x"]}
        assert got.created_at == clock() and got.timestamp == clock()

    def test_memory_generated_id_is_returned(self) -> None:
        memory = self.fresh()
        record_id = memory.add_memory("Something.")
        assert memory.get_memory(record_id).content == "Something."

    def test_memory_duplicate_id_is_conflict(self) -> None:
        memory = self.fresh()
        memory.add_memory("First.", memory_id="m1")
        self.expect_error(
            memory, ConflictError, lambda: memory.add_memory("Second.", memory_id="m1")
        )
        assert memory.get_memory("m1").content == "First."

    def test_memory_missing_is_not_found(self) -> None:
        memory = self.fresh()
        self.expect_error(memory, NotFoundError, lambda: memory.get_memory("nope"))
        self.expect_error(memory, NotFoundError, lambda: memory.delete_memory("nope"))
        self.expect_error(memory, NotFoundError, lambda: memory.update_memory("nope", metadata={}))

    def test_memory_bad_type_is_invalid_argument(self) -> None:
        memory = self.fresh()
        self.expect_error(
            memory, InvalidArgumentError, lambda: memory.add_memory("x", memory_type="message")
        )

    def test_memory_list_filters_by_scope_and_type(self) -> None:
        memory = self.fresh()
        memory.add_memory("A.", memory_id="a", user_id="u1", memory_type="fact")
        memory.add_memory("B.", memory_id="b", user_id="u2", memory_type="fact")
        memory.add_memory("C.", memory_id="c", user_id="u1", memory_type="preference")
        assert {m.id for m in memory.list_memories(user_id="u1")} == {"a", "c"}
        assert {m.id for m in memory.list_memories(record_types=["fact"])} == {"a", "b"}

    def test_memory_list_filters_by_metadata(self) -> None:
        memory = self.fresh()
        memory.add_memory("A.", memory_id="a", metadata={"k": 1})
        memory.add_memory("B.", memory_id="b", metadata={"k": True})
        memory.add_memory("C.", memory_id="c", metadata={"k": 1.0})
        memory.add_memory("D.", memory_id="d", metadata={"k": None})
        assert {m.id for m in memory.list_memories(metadata_filter={"k": 1})} == {"a", "c"}
        assert {m.id for m in memory.list_memories(metadata_filter={"k": True})} == {"b"}
        assert {m.id for m in memory.list_memories(metadata_filter={"k": None})} == {"d"}

    def test_memory_expired_is_not_listed_nor_found_by_search(self) -> None:
        clock = ManualClock()
        memory = self.fresh(clock)
        memory.add_memory("Pizza on Friday.", memory_id="short", ttl_days=1)
        memory.add_memory("Pizza on Friday too.", memory_id="long", ttl_days=3)
        clock.advance(days=2)
        assert [m.id for m in memory.list_memories()] == ["long"]
        assert [r.id for r in memory.search("pizza")] == ["long"]

    def test_memory_update_metadata(self) -> None:
        memory = self.fresh()
        memory.add_memory("A.", memory_id="a", metadata={"k": 1})
        updated = memory.update_memory("a", metadata={"k": 2})
        assert updated.metadata == {"k": 2} and memory.get_memory("a").metadata == {"k": 2}
        assert memory.get_memory("a").content == "A."

    # the seed flow ----------------------------------------------------------------

    def test_seed_pizza_flow(self) -> None:
        memory = self.fresh(ManualClock())
        _pizza_memories(memory)
        sid = memory.link_records(
            "pizza-sourdough", "preference", "pizza-thin-crust", "preference", "supersedes"
        )
        memory.link_records(
            "pizza-neapolitan-sourdough", "preference", "pizza-sourdough", "preference", "refines"
        )
        assert _statuses(memory) == ["invalid", "invalid", "valid"]
        memory.update_record_link(sid, relation_type="supports", metadata={"reviewed_by": "svc"})
        assert _statuses(memory) == ["valid", "invalid", "valid"]
        memory.delete_record_link(relation_id=sid)
        memory.delete_record_link(
            source_record_id="pizza-neapolitan-sourdough",
            source_record_type="preference",
            target_record_id="pizza-sourdough",
            target_record_type="preference",
            relation_type="refines",
        )
        assert _statuses(memory) == ["valid", "valid", "valid"]
        memory.link_records(
            "pizza-sourdough", "preference", "pizza-thin-crust", "preference", "supersedes"
        )
        memory.link_records(
            "pizza-neapolitan-sourdough", "preference", "pizza-sourdough", "preference", "refines"
        )
        results = memory.search(
            "What pizza should I recommend?",
            user_id="graph-demo-user",
            max_results=5,
            num_hops=2,
            max_linked_results=20,
        )
        assert [r.id for r in results] == ["pizza-neapolitan-sourdough"]
        config = SearchResultFormatConfig(
            include_invalid_results=True, show_timestamp=False, show_role=False, show_status=False
        )
        assert results[0].format_content(config) == _PIZZA_TEXT


def _pizza_memories(memory: GraphMemory) -> None:
    for record_id, content in _PIZZA:
        memory.add_memory(
            content, memory_id=record_id, memory_type="preference", user_id="graph-demo-user"
        )


def _statuses(memory: GraphMemory) -> list[str]:
    return [memory.get_memory(record_id).status for record_id, _ in _PIZZA]


_PIZZA: tuple[tuple[str, str], ...] = (
    ("pizza-thin-crust", "The user's preferred pizza style is thin crust."),
    ("pizza-sourdough", "The user now prefers sourdough pizza."),
    (
        "pizza-neapolitan-sourdough",
        "The user's preferred pizza style is sourdough, especially Neapolitan sourdough.",
    ),
)

_PIZZA_TEXT = """<preference>
  <record_id>pizza-neapolitan-sourdough</record_id>
  <content>The user's preferred pizza style is sourdough, especially Neapolitan sourdough.</content>
  <linked_records>
    <linked_record>
      <relation_type>refines</relation_type>
      <preference>
        <record_id>pizza-sourdough</record_id>
        <content>The user now prefers sourdough pizza.</content>
        <linked_records>
          <linked_record>
            <relation_type>supersedes</relation_type>
            <preference>
              <record_id>pizza-thin-crust</record_id>
              <content>The user's preferred pizza style is thin crust.</content>
            </preference>
          </linked_record>
        </linked_records>
      </preference>
    </linked_record>
  </linked_records>
</preference>"""
"""docs/semantics.md section 4's example, with the second hop that ``num_hops=2`` adds."""

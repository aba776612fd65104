"""Conformance tests for search: hops, caps, the tie rule and filters on linked context."""

from __future__ import annotations

from graphmem.errors import InvalidArgumentError
from graphmem.memory import GraphMemory
from graphmem.models import SearchResult
from graphmem.testing.conformance_base import ConformanceBase
from graphmem.testing.model import ManualClock
from graphmem.testing.shape import flatten_result, tree_nodes

__all__ = ["SearchConformance"]


def _tree_of(results: list[SearchResult], root: str) -> SearchResult:
    found = [r for r in results if r.id == root]
    assert found, f"{root!r} is not a direct result: {[r.id for r in results]}"
    return found[0]


def _add(memory: GraphMemory, *ids: str, user_id: str | None = None, kind: str = "fact") -> None:
    for record_id in ids:
        memory.add_memory(
            f"Note {record_id} about pizza.", memory_id=record_id, memory_type=kind, user_id=user_id
        )


def _supports(memory: GraphMemory, source: str, target: str, relation_id: str | None = None) -> str:
    return memory.link_records(source, "fact", target, "fact", "supports", relation_id=relation_id)


class SearchConformance(ConformanceBase):
    """Linked context (docs/semantics.md section 3) and filters on it (section 1)."""

    def _chain(self) -> GraphMemory:
        """``a - b - c - d`` as ``supports`` links, one second apart."""
        clock = ManualClock()
        memory = self.fresh(clock)
        _add(memory, "a", "b", "c", "d")
        for source, target in (("a", "b"), ("b", "c"), ("c", "d")):
            clock.advance(seconds=1)
            _supports(memory, source, target)
        return memory

    def test_search_hops_zero_has_no_linked_context(self) -> None:
        memory = self._chain()
        assert all(r.linked_results == [] for r in memory.search("pizza", max_results=10))

    def test_search_hops_limit_depth(self) -> None:
        memory = self._chain()
        results = memory.search("pizza", max_results=10, num_hops=2)
        assert tree_nodes(_tree_of(results, "a")) == ["b", "c"]
        assert tree_nodes(_tree_of(results, "c")) == ["b", "a", "d"]

    def test_search_hops_above_five_is_invalid_argument(self) -> None:
        memory = self._chain()
        self.expect_error(memory, InvalidArgumentError, lambda: memory.search("pizza", num_hops=6))

    def test_search_negative_hops_is_invalid_argument(self) -> None:
        memory = self._chain()
        self.expect_error(memory, InvalidArgumentError, lambda: memory.search("pizza", num_hops=-1))

    def test_search_negative_cap_is_invalid_argument(self) -> None:
        memory = self._chain()
        self.expect_error(
            memory,
            InvalidArgumentError,
            lambda: memory.search("pizza", num_hops=1, max_linked_results=-1),
        )

    def test_search_cap_zero_has_no_linked_context(self) -> None:
        memory = self._chain()
        results = memory.search("pizza", max_results=10, num_hops=3, max_linked_results=0)
        assert all(r.linked_results == [] for r in results)

    def test_search_cap_keeps_first_ranked(self) -> None:
        memory = self._chain()
        results = memory.search("pizza", max_results=10, num_hops=3, max_linked_results=2)
        assert tree_nodes(_tree_of(results, "c")) == ["b", "d"]
        assert tree_nodes(_tree_of(results, "a")) == ["b", "c"]

    def test_search_ties_broken_by_created_at_then_relation_id(self) -> None:
        clock = ManualClock()
        memory = self.fresh(clock)
        _add(memory, "root", "x", "y", "z")
        _supports(memory, "root", "x", "r2")
        _supports(memory, "root", "y", "r1")
        clock.advance(microseconds=-1)
        _supports(memory, "z", "root", "r9")
        results = memory.search("pizza", max_results=10, num_hops=1)
        assert tree_nodes(_tree_of(results, "root")) == ["z", "y", "x"]

    def test_search_parent_is_earliest_link_at_previous_depth(self) -> None:
        clock = ManualClock()
        memory = self.fresh(clock)
        _add(memory, "root", "p", "q", "leaf")
        _supports(memory, "root", "p", "r1")
        _supports(memory, "root", "q", "r2")
        _supports(memory, "q", "leaf", "r3")
        _supports(memory, "leaf", "p", "r4")
        results = memory.search("pizza", max_results=10, num_hops=2)
        rows = flatten_result(_tree_of(results, "root"))
        assert [(r.node, r.parent, r.relation_id) for r in rows] == [
            ("p", "root", "r1"),
            ("q", "root", "r2"),
            ("leaf", "q", "r3"),
        ]

    def test_search_label_is_reverse_when_parent_is_target(self) -> None:
        memory = self.fresh()
        _add(memory, "old", "new")
        memory.link_records("new", "fact", "old", "fact", "supersedes")
        results = memory.search("pizza", num_hops=1, include_invalid_results=True)
        rows = flatten_result(_tree_of(results, "old"))
        assert [(r.node, r.label, r.source, r.target) for r in rows] == [
            ("new", "is_superseded_by", "new", "old"),
        ]

    def test_search_linked_context_includes_invalid_records(self) -> None:
        memory = self.fresh()
        _add(memory, "old", "new")
        memory.link_records("new", "fact", "old", "fact", "supersedes")
        results = memory.search("pizza", num_hops=1)
        assert [r.id for r in results] == ["new"]
        assert [(r.node, r.status) for r in flatten_result(results[0])] == [("old", "invalid")]

    def test_search_scope_filter_applies_to_linked_context(self) -> None:
        memory = self.fresh()
        _add(memory, "mine", user_id="u1")
        _add(memory, "theirs", user_id="u2")
        _supports(memory, "mine", "theirs")
        results = memory.search("pizza", user_id="u1", num_hops=1)
        assert [r.id for r in results] == ["mine"] and results[0].linked_results == []

    def test_search_scope_filter_blocks_stepping_stones(self) -> None:
        memory = self.fresh()
        _add(memory, "start", "far", user_id="u1")
        _add(memory, "between", user_id="u2")
        _supports(memory, "start", "between")
        _supports(memory, "between", "far")
        results = memory.search("pizza", user_id="u1", num_hops=5, max_results=10)
        assert {r.id for r in results} == {"start", "far"}
        assert all(r.linked_results == [] for r in results)

    def test_search_record_type_filter_applies_to_linked_context(self) -> None:
        memory = self.fresh()
        _add(memory, "f1", "f2")
        memory.add_memory("A guideline about pizza.", memory_id="g", memory_type="guideline")
        memory.link_records("f1", "fact", "g", "guideline", "supports")
        memory.link_records("g", "guideline", "f2", "fact", "supports")
        results = memory.search("pizza", record_types=["fact"], num_hops=2, max_results=10)
        assert all(r.linked_results == [] for r in results)

    def test_search_expired_record_is_not_linked_context(self) -> None:
        clock = ManualClock()
        memory = self.fresh(clock)
        _add(memory, "a")
        memory.add_memory(
            "Short-lived pizza note.", memory_id="brief", memory_type="fact", ttl_days=1
        )
        _supports(memory, "a", "brief")
        before = memory.search("pizza", num_hops=1, max_results=10)
        assert tree_nodes(_tree_of(before, "a")) == ["brief"]
        clock.advance(days=2)
        results = memory.search("pizza", num_hops=1, max_results=10)
        assert [(r.id, r.linked_results) for r in results] == [("a", [])]

    def test_search_other_direct_results_may_appear_in_a_tree(self) -> None:
        memory = self._chain()
        results = memory.search("pizza", max_results=10, num_hops=1)
        assert {r.id for r in results} == {"a", "b", "c", "d"}
        assert tree_nodes(_tree_of(results, "b")) == ["a", "c"]

    def test_search_is_deterministic(self) -> None:
        memory = self._chain()
        first = memory.search("pizza", max_results=10, num_hops=3)
        second = memory.search("pizza", max_results=10, num_hops=3)
        assert [r.model_dump() for r in first] == [r.model_dump() for r in second]
        assert [r.format_content() for r in first] == [r.format_content() for r in second]

    def test_search_created_at_orders_before_relation_id(self) -> None:
        clock = ManualClock()
        memory = self.fresh(clock)
        _add(memory, "root", "early", "late")
        clock.advance(seconds=1)
        _supports(memory, "root", "late", "a-first-by-id")
        clock.advance(seconds=-1)
        _supports(memory, "root", "early", "z-last-by-id")
        results = memory.search("pizza", max_results=10, num_hops=1)
        assert tree_nodes(_tree_of(results, "root")) == ["early", "late"]

    def test_search_cap_keeps_the_earliest_links_not_the_smallest_ids(self) -> None:
        clock = ManualClock()
        memory = self.fresh(clock)
        _add(memory, "root", "n1", "n2", "n3")
        for neighbour, relation_id in (("n1", "r3"), ("n2", "r2"), ("n3", "r1")):
            clock.advance(seconds=1)  # later links, smaller ids
            _supports(memory, "root", neighbour, relation_id)
        results = memory.search("pizza", max_results=10, num_hops=1, max_linked_results=2)
        assert tree_nodes(_tree_of(results, "root")) == ["n1", "n2"]

    def test_search_metadata_filter_blocks_stepping_stones(self) -> None:
        memory = self.fresh()
        for record_id, kind in (("start", "keep"), ("between", "other"), ("far", "keep")):
            memory.add_memory(
                f"Note {record_id} about pizza.", memory_id=record_id, memory_type="fact",
                metadata={"kind": kind},
            )  # fmt: skip
        _supports(memory, "start", "between")
        _supports(memory, "between", "far")
        results = memory.search(
            "pizza", metadata_filter={"kind": "keep"}, num_hops=5, max_results=10
        )
        assert {r.id for r in results} == {"start", "far"}
        assert all(r.linked_results == [] for r in results)

    def test_search_thread_scope_keeps_other_threads_out(self) -> None:
        memory = self.fresh()
        for thread_id in ("t1", "t2"):
            memory.create_thread(thread_id, user_id="u", enable_context_summary=False)
            memory.add_memory(
                f"Pizza note of {thread_id}.", memory_id=f"m-{thread_id}", memory_type="fact",
                user_id="u", thread_id=thread_id,
            )  # fmt: skip
        for thread_id in ("t1", "t2"):
            found = memory.search("pizza note", thread_id=thread_id, max_results=10)
            assert [r.id for r in found] == [f"m-{thread_id}"]

    def test_search_renders_invalid_linked_records_as_the_contract_says(self) -> None:
        """Without include_invalid_results: an invalid record that leads to a valid
        one keeps its element and label but not its content; a branch of invalid
        records only is left out (docs/semantics.md section 4)."""
        memory = self.fresh()
        texts = {
            "root": "Root pizza note.",
            "x": "Old x text.",
            "y": "New y text.",
            "z": "Old z text.",
            "w": "Old w text.",
            "v": "Newest v text.",
        }
        for record_id, text in texts.items():
            memory.add_memory(text, memory_id=record_id, memory_type="fact")
        _supports(memory, "root", "x")
        _supports(memory, "root", "z")
        for source, target in (("y", "x"), ("w", "z"), ("v", "w")):
            memory.link_records(source, "fact", target, "fact", "supersedes")
        results = memory.search("Root pizza note.", max_results=10, num_hops=2)
        text = _tree_of(results, "root").format_content()
        assert "<record_id>x</record_id>" in text and texts["x"] not in text
        assert texts["y"] in text
        for left_out in ("z", "w"):
            assert f"<record_id>{left_out}</record_id>" not in text
            assert texts[left_out] not in text

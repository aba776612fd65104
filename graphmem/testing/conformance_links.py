"""Conformance tests for links: validity lifecycle, cascades and every link error."""

from __future__ import annotations

from graphmem.errors import ConflictError, InvalidArgumentError, NotFoundError
from graphmem.memory import GraphMemory
from graphmem.testing.conformance_base import ConformanceBase
from graphmem.testing.model import ManualClock

__all__ = ["LinkConformance"]


def _two_facts(memory: GraphMemory) -> None:
    memory.add_memory("The office is in Paris.", memory_id="old", memory_type="fact")
    memory.add_memory("The office moved to Lyon.", memory_id="new", memory_type="fact")


def _link(memory: GraphMemory, relation_type: str, opposite: str | None = None) -> str:
    return memory.link_records("new", "fact", "old", "fact", relation_type, opposite)


class LinkConformance(ConformanceBase):
    """Links and the validity invariant of docs/semantics.md section 2."""

    def _target_status_after(self, relation_type: str, opposite: str | None = None) -> str:
        memory = self.fresh()
        _two_facts(memory)
        _link(memory, relation_type, opposite)
        assert memory.get_memory("new").status == "valid"
        return memory.get_memory("old").status

    def test_link_supersedes_invalidates_target(self) -> None:
        assert self._target_status_after("supersedes") == "invalid"

    def test_link_refines_invalidates_target(self) -> None:
        assert self._target_status_after("refines") == "invalid"

    def test_link_duplicates_invalidates_target(self) -> None:
        assert self._target_status_after("duplicates") == "invalid"

    def test_link_supports_keeps_target_valid(self) -> None:
        assert self._target_status_after("supports") == "valid"

    def test_link_contradicts_keeps_target_valid(self) -> None:
        assert self._target_status_after("contradicts") == "valid"

    def test_link_custom_type_keeps_target_valid(self) -> None:
        assert self._target_status_after("mentions", "is_mentioned_by") == "valid"

    def test_link_get_and_list(self) -> None:
        clock = ManualClock()
        memory = self.fresh(clock)
        _two_facts(memory)
        rid = memory.link_records("new", "fact", "old", "fact", "supersedes", relation_id="r1")
        link = memory.get_record_link(rid)
        assert (link.id, link.source_record_id, link.target_record_id) == ("r1", "new", "old")
        assert (link.relation_type, link.opposite_relation_type) == (
            "supersedes",
            "is_superseded_by",
        )
        assert link.created_at == clock()
        assert [r.id for r in memory.list_record_links("old")] == ["r1"]
        assert [r.id for r in memory.get_memory("old").invalidated_by] == ["r1"]

    def test_link_update_to_non_lifecycle_revalidates_target(self) -> None:
        memory = self.fresh()
        _two_facts(memory)
        rid = _link(memory, "supersedes")
        memory.update_record_link(rid, relation_type="supports")
        assert memory.get_memory("old").status == "valid"
        assert memory.get_record_link(rid).opposite_relation_type == "is_supported_by"

    def test_link_update_to_lifecycle_invalidates_target(self) -> None:
        memory = self.fresh()
        _two_facts(memory)
        rid = _link(memory, "contradicts")
        memory.update_record_link(rid, relation_type="refines")
        assert memory.get_memory("old").status == "invalid"

    def test_link_delete_by_id_revalidates_target(self) -> None:
        memory = self.fresh()
        _two_facts(memory)
        rid = _link(memory, "supersedes")
        memory.delete_record_link(rid)
        assert memory.get_memory("old").status == "valid"
        assert memory.list_record_links() == []

    def test_link_delete_by_triple_revalidates_target(self) -> None:
        memory = self.fresh()
        _two_facts(memory)
        _link(memory, "refines")
        memory.delete_record_link(
            source_record_id="new",
            source_record_type="fact",
            target_record_id="old",
            target_record_type="fact",
            relation_type="refines",
        )
        assert memory.get_memory("old").status == "valid"

    def test_link_delete_keeps_target_invalid_while_another_lifecycle_link(self) -> None:
        memory = self.fresh()
        _two_facts(memory)
        memory.add_memory("A third fact.", memory_id="third", memory_type="fact")
        rid = _link(memory, "supersedes")
        memory.link_records("third", "fact", "old", "fact", "duplicates")
        memory.delete_record_link(rid)
        assert memory.get_memory("old").status == "invalid"

    def test_memory_delete_cascades_links_and_revalidates(self) -> None:
        memory = self.fresh()
        _two_facts(memory)
        _link(memory, "supersedes")
        memory.delete_memory("new")
        assert memory.list_record_links() == []
        assert memory.get_memory("old").status == "valid"

    def test_memory_delete_of_invalid_target_keeps_source(self) -> None:
        memory = self.fresh()
        _two_facts(memory)
        _link(memory, "supersedes")
        memory.delete_memory("old")
        assert memory.list_record_links() == []
        assert memory.get_memory("new").status == "valid"

    # errors (docs/semantics.md section 5): the right class, and nothing changed ------

    def test_link_duplicate_triple_is_conflict(self) -> None:
        memory = self.fresh()
        _two_facts(memory)
        _link(memory, "supports")
        self.expect_error(memory, ConflictError, lambda: _link(memory, "supports"))

    def test_link_reverse_orientation_is_conflict(self) -> None:
        memory = self.fresh()
        _two_facts(memory)
        _link(memory, "supersedes")
        self.expect_error(
            memory,
            ConflictError,
            lambda: memory.link_records("old", "fact", "new", "fact", "supersedes"),
        )

    def test_link_duplicate_relation_id_is_conflict(self) -> None:
        memory = self.fresh()
        _two_facts(memory)
        memory.link_records("new", "fact", "old", "fact", "supports", relation_id="r1")
        self.expect_error(
            memory,
            ConflictError,
            lambda: memory.link_records("new", "fact", "old", "fact", "refines", relation_id="r1"),
        )

    def test_link_self_is_invalid_argument(self) -> None:
        memory = self.fresh()
        _two_facts(memory)
        self.expect_error(
            memory,
            InvalidArgumentError,
            lambda: memory.link_records("old", "fact", "old", "fact", "supports"),
        )

    def test_link_unknown_source_is_not_found(self) -> None:
        memory = self.fresh()
        _two_facts(memory)
        self.expect_error(
            memory,
            NotFoundError,
            lambda: memory.link_records("ghost", "fact", "old", "fact", "supersedes"),
        )

    def test_link_unknown_target_is_not_found(self) -> None:
        memory = self.fresh()
        _two_facts(memory)
        self.expect_error(
            memory,
            NotFoundError,
            lambda: memory.link_records("new", "fact", "ghost", "fact", "supersedes"),
        )

    def test_link_wrong_endpoint_type_is_invalid_argument(self) -> None:
        memory = self.fresh()
        _two_facts(memory)
        self.expect_error(
            memory,
            InvalidArgumentError,
            lambda: memory.link_records("new", "preference", "old", "fact", "supersedes"),
        )

    def test_link_message_endpoint_type_is_invalid_argument(self) -> None:
        memory = self.fresh()
        _two_facts(memory)
        self.expect_error(
            memory,
            InvalidArgumentError,
            lambda: memory.link_records("new", "message", "old", "fact", "supports"),
        )

    def test_link_custom_type_without_opposite_is_invalid_argument(self) -> None:
        memory = self.fresh()
        _two_facts(memory)
        self.expect_error(memory, InvalidArgumentError, lambda: _link(memory, "mentions"))

    def test_link_update_into_existing_triple_is_conflict(self) -> None:
        memory = self.fresh()
        _two_facts(memory)
        _link(memory, "supports")
        rid = _link(memory, "contradicts")
        self.expect_error(
            memory, ConflictError, lambda: memory.update_record_link(rid, relation_type="supports")
        )

    def test_link_update_missing_is_not_found(self) -> None:
        memory = self.fresh()
        self.expect_error(
            memory,
            NotFoundError,
            lambda: memory.update_record_link("nope", relation_type="supports"),
        )

    def test_link_delete_missing_id_is_not_found(self) -> None:
        memory = self.fresh()
        _two_facts(memory)
        _link(memory, "supersedes")
        self.expect_error(memory, NotFoundError, lambda: memory.delete_record_link("nope"))

    def test_link_delete_missing_triple_is_not_found(self) -> None:
        memory = self.fresh()
        _two_facts(memory)
        _link(memory, "supersedes")
        self.expect_error(
            memory,
            NotFoundError,
            lambda: memory.delete_record_link(
                source_record_id="old",
                source_record_type="fact",
                target_record_id="new",
                target_record_type="fact",
                relation_type="supersedes",
            ),
        )

    def test_link_delete_with_both_forms_is_invalid_argument(self) -> None:
        memory = self.fresh()
        _two_facts(memory)
        rid = _link(memory, "supersedes")
        self.expect_error(
            memory,
            InvalidArgumentError,
            lambda: memory.delete_record_link(rid, relation_type="supersedes"),
        )

    def test_link_delete_with_partial_triple_is_invalid_argument(self) -> None:
        memory = self.fresh()
        _two_facts(memory)
        _link(memory, "supersedes")
        self.expect_error(
            memory,
            InvalidArgumentError,
            lambda: memory.delete_record_link(source_record_id="new", relation_type="supersedes"),
        )

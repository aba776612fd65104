"""The state of :class:`graphmem.testing.machine.GraphMemoryMachine`: a store, the
model, the clock, the Bundles, error checks and the invariants comparing them."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from hypothesis import note
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant

from graphmem.errors import GraphMemError
from graphmem.memory import GraphMemory
from graphmem.testing.model import REVERSE_LABELS, ManualClock, ModelLink, ReferenceModel

__all__ = ["MEMORIES", "RELATIONS", "STEPS", "MachineBase", "opposite_arg"]

MEMORIES = Bundle("memories")
RELATIONS = Bundle("relations")

STEPS = st.sampled_from(
    (timedelta(0), timedelta(0), timedelta(microseconds=1), timedelta(seconds=1))
)
"""How far the clock moves before a write: often not at all, so created_at ties happen."""


def opposite_arg(relation_type: str, opposite: str) -> str | None:
    """The ``opposite_relation_type`` argument: None for built-in types."""
    return None if relation_type in REVERSE_LABELS else opposite


class MachineBase(RuleBasedStateMachine):
    """Store and :class:`ReferenceModel` side by side; invariants compare them."""

    memories = MEMORIES
    relations = RELATIONS

    def __init__(self) -> None:
        super().__init__()
        self.clock = ManualClock()
        self.model = ReferenceModel()
        self.history: dict[str, ModelLink] = {}
        self.memory = self.make_memory()

    def make_memory(self) -> GraphMemory:
        """A fresh, empty store using ``self.clock``; override for other backends."""
        return GraphMemory(":memory:", clock=self.clock)

    def teardown(self) -> None:
        self.memory.close()

    # helpers -------------------------------------------------------------------

    def snapshot(self) -> tuple[Any, ...]:
        """Everything observable through the API about the modelled state."""
        records = [self.memory.get_memory(i).model_dump() for i in sorted(self.model.memories)]
        links = sorted(
            (r.model_dump() for r in self.memory.list_record_links()), key=lambda d: d["id"]
        )
        return (records, links)

    def expect_error(self, error: type[GraphMemError], call: Callable[[], object]) -> None:
        """``call`` raises ``error`` (or a subclass) and changes nothing."""
        before = self.snapshot()
        try:
            call()
        except GraphMemError as exc:
            note(f"raised {type(exc).__name__}: {exc}")
            assert isinstance(exc, error), f"expected {error.__name__}, got {exc!r}"
        else:
            raise AssertionError(f"expected {error.__name__}, nothing was raised")
        assert self.snapshot() == before, "a rejected call changed the store"

    def type_of(self, record_id: str) -> str:
        found = self.model.memories.get(record_id)
        return "memory" if found is None else found.record_type

    # invariants --------------------------------------------------------------------

    @invariant()
    def records_match_model(self) -> None:
        found = {m.id: m for m in self.memory.list_memories(limit=1000)}
        live = {
            i
            for i, m in self.model.memories.items()
            if m.expires_at is None or m.expires_at > self.clock()
        }
        assert set(found) == live, f"listed {sorted(found)}, model {sorted(live)}"
        for record_id, want in self.model.memories.items():
            got = self.memory.get_memory(record_id)
            assert got.status == self.model.status(record_id), record_id
            assert {r.id for r in got.invalidated_by} == self.model.invalidated_by(record_id)
            assert (got.record_type, got.user_id, got.metadata) == (
                want.record_type,
                want.user_id,
                want.metadata,
            )
            assert (got.created_at, got.expires_at) == (want.created_at, want.expires_at)

    @invariant()
    def links_match_model(self) -> None:
        got = {
            r.id: (
                r.source_record_id,
                r.target_record_id,
                r.relation_type,
                r.opposite_relation_type,
                r.created_at,
            )
            for r in self.memory.list_record_links()
        }
        want = {
            link.relation_id: (
                link.source,
                link.target,
                link.relation_type,
                link.opposite,
                link.created_at,
            )
            for link in self.model.links.values()
        }
        assert got == want

"""Rules that expect an error: the exact class, and the store unchanged."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st
from hypothesis.stateful import rule

from graphmem.errors import ConflictError, GraphMemError, InvalidArgumentError, NotFoundError
from graphmem.testing.machine_base import MEMORIES, RELATIONS, MachineBase, opposite_arg
from graphmem.testing.strategies import MEMORY_TYPES, record_ids, relation_types

__all__ = ["RejectionRules"]

memories = MEMORIES
relations = RELATIONS


class RejectionRules(MachineBase):
    """Self links, wrong endpoint types, unknown ids, duplicate or reversed links,
    hops out of range."""

    @rule(
        source=memories,
        other=memories,
        unknown=record_ids(6),
        kind=relation_types(),
        case=st.sampled_from(("self", "wrong type", "unknown source", "unknown target")),
    )
    def rejected_link(
        self, source: str, other: str, unknown: str, kind: tuple[str, str], case: str
    ) -> None:
        """A self link or a wrong endpoint type is an invalid argument; an unknown
        endpoint is not found."""
        if source not in self.model.memories or unknown in self.model.memories:
            return
        ends, types = (source, other), [self.type_of(source), self.type_of(other)]
        error: type[GraphMemError] = InvalidArgumentError
        if case == "self":
            ends, types = (source, source), [types[0], types[0]]
        elif case == "wrong type":
            if other == source or other not in self.model.memories:
                return
            types[0] = next(t for t in MEMORY_TYPES if t != types[0])
        else:
            ends = (unknown, source) if case == "unknown source" else (source, unknown)
            types = [self.type_of(ends[0]), self.type_of(ends[1])]
            error = NotFoundError
        rtype, opposite = kind
        self.expect_error(
            error,
            lambda: self.memory.link_records(
                ends[0], types[0], ends[1], types[1], rtype, opposite_arg(rtype, opposite)
            ),
        )

    @rule(relation_id=relations, reverse=st.booleans())
    def relink_existing_triple(self, relation_id: str, reverse: bool) -> None:
        """The same triple again, or reversed, is a conflict."""
        link = self.model.links.get(relation_id)
        if link is None:
            return
        a, b = (link.target, link.source) if reverse else (link.source, link.target)
        self.expect_error(
            ConflictError,
            lambda: self.memory.link_records(
                a,
                self.type_of(a),
                b,
                self.type_of(b),
                link.relation_type,
                opposite_arg(link.relation_type, link.opposite),
            ),
        )

    @rule(
        unknown=record_ids(6),
        num_hops=st.sampled_from((-1, 6)),
        case=st.sampled_from(("get", "update", "delete", "delete link", "hops")),
    )
    def rejected_call(self, unknown: str, num_hops: int, case: str) -> None:
        """Unknown ids are not found; hops outside 0..5 are invalid."""
        if unknown in self.model.memories or unknown in self.model.links:
            return
        calls: dict[str, tuple[type[GraphMemError], Callable[[], object]]] = {
            "get": (NotFoundError, lambda: self.memory.get_memory(unknown)),
            "update": (NotFoundError, lambda: self.memory.update_memory(unknown, metadata={})),
            "delete": (NotFoundError, lambda: self.memory.delete_memory(unknown)),
            "delete link": (
                NotFoundError,
                lambda: self.memory.delete_record_link(relation_id=unknown),
            ),
            "hops": (InvalidArgumentError, lambda: self.memory.search("pizza", num_hops=num_hops)),
        }
        self.expect_error(*calls[case])

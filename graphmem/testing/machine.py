"""A thin hypothesis state machine: a store and the reference model, side by side.

Every rule applies one API call to the store (:meth:`make_memory`, overridable so
that other backends inherit the machine) and its effect to the model. Rules that
expect an error check the exact :class:`graphmem.GraphMemError` subclass and that
the store is unchanged. Invariants compare validity, records and links after
every step; the search rule compares every direct result's tree exactly.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hypothesis import note
from hypothesis import strategies as st
from hypothesis.stateful import consumes, initialize, multiple, rule

from graphmem.errors import ConflictError, GraphMemError, InvalidArgumentError, NotFoundError
from graphmem.testing.machine_base import MEMORIES, RELATIONS, STEPS, opposite_arg
from graphmem.testing.machine_rejections import RejectionRules
from graphmem.testing.model import ModelLink, ModelMemory
from graphmem.testing.shape import expected_tree_rows, flatten_result
from graphmem.testing.strategies import (
    AGENTS,
    MEMORY_TYPES,
    THREADS,
    USERS,
    GraphSpec,
    SearchArgs,
    contents,
    graphs,
    load_graph,
    metadata,
    record_ids,
    relation_types,
    search_args,
)

__all__ = ["GraphMemoryMachine"]

memories = MEMORIES  # the Bundles, by the names the rules below use
relations = RELATIONS


class GraphMemoryMachine(RejectionRules):
    """Random operation sequences on a store, checked against the reference model.

    Subclass and override :meth:`make_memory` to run it on another backend.
    """

    # memories --------------------------------------------------------------------

    @initialize(target=memories, spec=graphs(min_memories=4, max_memories=8, max_links=14))
    def load_random_graph(self, spec: GraphSpec) -> Any:
        """Start from a random graph so that early searches already have trees."""
        self.model = load_graph(self.memory, self.clock, spec)
        self.history.update(self.model.links)
        return multiple(*self.model.memories)

    @rule(
        target=memories,
        record_id=record_ids(),
        record_type=st.sampled_from(MEMORY_TYPES),
        content=contents(),
        user_id=st.sampled_from(USERS) | st.none(),
        agent_id=st.none() | st.sampled_from(AGENTS),
        thread_id=st.none() | st.sampled_from(THREADS),
        meta=metadata(),
        ttl_days=st.sampled_from((None, None, 1, 2)),
        step=STEPS,
    )
    def add_memory(
        self,
        record_id: str,
        record_type: str,
        content: str,
        user_id: str | None,
        agent_id: str | None,
        thread_id: str | None,
        meta: dict[str, Any],
        ttl_days: int | None,
        step: timedelta,
    ) -> Any:
        self.clock.now += step

        def call() -> str:
            return self.memory.add_memory(
                content,
                memory_id=record_id,
                memory_type=record_type,
                user_id=user_id,
                agent_id=agent_id,
                thread_id=thread_id,
                metadata=meta,
                ttl_days=ttl_days,
            )

        if record_id in self.model.memories:
            self.expect_error(ConflictError, call)
            return multiple()
        assert call() == record_id
        now = self.clock()
        expires = None if ttl_days is None else now + timedelta(days=ttl_days)
        self.model.add_memory(
            ModelMemory(
                record_id, record_type, content, user_id, agent_id, thread_id, meta, now, expires
            )
        )
        return record_id

    @rule(record_id=memories, meta=metadata())
    def update_metadata(self, record_id: str, meta: dict[str, Any]) -> None:
        if record_id not in self.model.memories:
            self.expect_error(
                NotFoundError, lambda: self.memory.update_memory(record_id, metadata=meta)
            )
            return
        updated = self.memory.update_memory(record_id, metadata=meta)
        self.model.update_memory(record_id, meta)
        assert updated.metadata == self.model.memories[record_id].metadata

    @rule(record_id=consumes(memories))
    def delete_memory(self, record_id: str) -> None:
        if record_id not in self.model.memories:
            self.expect_error(NotFoundError, lambda: self.memory.delete_memory(record_id))
            return
        self.memory.delete_memory(record_id)
        self.model.delete_memory(record_id)

    @rule(step=st.sampled_from((timedelta(hours=12), timedelta(days=1))))
    def let_time_pass(self, step: timedelta) -> None:
        """Memories with a TTL expire: they leave search results and linked context."""
        self.clock.now += step

    # links -------------------------------------------------------------------------

    @rule(
        target=relations,
        source=memories,
        target_id=memories,
        kind=relation_types(),
        relation_id=record_ids(5),
        step=STEPS,
    )
    def link(
        self,
        source: str,
        target_id: str,
        kind: tuple[str, str],
        relation_id: str,
        step: timedelta,
    ) -> Any:
        self.clock.now += step
        rtype, opposite = kind

        def call() -> str:
            return self.memory.link_records(
                source,
                self.type_of(source),
                target_id,
                self.type_of(target_id),
                rtype,
                opposite_arg(rtype, opposite),
                relation_id=relation_id,
            )

        error = self._link_error(source, target_id, rtype, relation_id)
        if error is not None:
            self.expect_error(error, call)
            return multiple()
        assert call() == relation_id
        link = ModelLink(relation_id, source, target_id, rtype, opposite, self.clock())
        self.model.add_link(link)
        self.history[relation_id] = link
        return relation_id

    def _link_error(
        self, source: str, target: str, rtype: str, relation_id: str
    ) -> type[GraphMemError] | None:
        if source == target:
            return InvalidArgumentError
        if source not in self.model.memories or target not in self.model.memories:
            return NotFoundError
        if relation_id in self.model.links or self.model.link_conflict(source, target, rtype):
            return ConflictError
        return None

    @rule(relation_id=relations, kind=relation_types())
    def update_link_type(self, relation_id: str, kind: tuple[str, str]) -> None:
        rtype, opposite = kind

        def call() -> object:
            return self.memory.update_record_link(
                relation_id,
                relation_type=rtype,
                opposite_relation_type=opposite_arg(rtype, opposite),
            )

        link = self.model.links.get(relation_id)
        if link is None:
            self.expect_error(NotFoundError, call)
            return
        if rtype != link.relation_type and self.model.link_conflict(
            link.source, link.target, rtype, exclude=relation_id
        ):
            self.expect_error(ConflictError, call)
            return
        call()
        self.model.update_link(relation_id, rtype, opposite)

    @rule(relation_id=consumes(relations))
    def delete_link_by_id(self, relation_id: str) -> None:
        if relation_id not in self.model.links:
            self.expect_error(
                NotFoundError, lambda: self.memory.delete_record_link(relation_id=relation_id)
            )
            return
        self.memory.delete_record_link(relation_id=relation_id)
        self.model.delete_link(relation_id)

    @rule(relation_id=consumes(relations))
    def delete_link_by_triple(self, relation_id: str) -> None:
        link = self.model.links.get(relation_id) or self.history[relation_id]
        source, target = link.source, link.target
        current = self.model.find_link(source, target, link.relation_type)

        def call() -> None:
            self.memory.delete_record_link(
                source_record_id=source,
                source_record_type=self.type_of(source),
                target_record_id=target,
                target_record_type=self.type_of(target),
                relation_type=link.relation_type,
            )

        if current is None:
            self.expect_error(NotFoundError, call)
            return
        call()
        self.model.delete_link(current.relation_id)

    # search ------------------------------------------------------------------------

    @rule(query=contents(), cap=st.none() | st.integers(1, 5))
    def search_everything(self, query: str, cap: int | None) -> None:
        """Unfiltered, five hops, all direct results: the largest trees."""
        self.check_search(query, SearchArgs(), 5, cap, 100, True)

    @rule(
        query=contents(),
        args=search_args(),
        num_hops=st.integers(0, 5),
        cap=st.none() | st.integers(0, 5),
        max_results=st.integers(0, 15),
        include_invalid=st.booleans(),
    )
    def filtered_search(
        self,
        query: str,
        args: SearchArgs,
        num_hops: int,
        cap: int | None,
        max_results: int,
        include_invalid: bool,
    ) -> None:
        """Random filters, hops and caps."""
        self.check_search(query, args, num_hops, cap, max_results, include_invalid)

    def check_search(
        self,
        query: str,
        args: SearchArgs,
        num_hops: int,
        cap: int | None,
        max_results: int,
        include_invalid: bool,
    ) -> None:
        """Search the store; compare direct results and every tree with the model."""
        results = self.memory.search(
            query,
            **args.kwargs(),
            max_results=max_results,
            num_hops=num_hops,
            max_linked_results=cap,
            include_invalid_results=include_invalid,
        )
        filters = args.model_filters(self.clock)
        expected = self.model.candidates(filters, include_invalid)
        roots = [r.id for r in results]
        note(f"roots={roots} candidates={sorted(expected)}")
        assert len(set(roots)) == len(roots), "a direct result is repeated"
        assert set(roots) <= expected, f"roots outside the filters: {set(roots) - expected}"
        assert len(roots) == min(max_results, len(expected))
        for result in results:
            want = expected_tree_rows(
                self.model, result.id, self.model.tree(result.id, filters, num_hops, cap)
            )
            got = flatten_result(result)
            note(f"root {result.id!r}:\n  store {got}\n  model {want}")
            assert got == want, f"tree of {result.id!r} differs from the model"

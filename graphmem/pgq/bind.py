"""Unroll quantifiers and bind pattern variables to element tables.

A GRAPH_TABLE becomes a list of :class:`Branch` objects, one per SELECT of the
final UNION ALL:

1. every quantifier ``{n,m}`` is unrolled to each fixed count ``n..m`` (walk
   semantics: nothing forbids repeated vertices or edges); the variables of
   iteration ``i`` get their own copies;
2. each unrolled path is normalised to vertex, edge, vertex, ...: adjacent vertex
   patterns denote the same vertex (this is how ``{0,m}`` joins its two
   endpoints), and an anonymous vertex is put between adjacent edges;
3. every vertex class and edge variable is bound to one element table its labels
   allow, and every any-direction edge to one orientation, keeping only
   bindings where each edge table's SOURCE/DESTINATION REFERENCES fits the
   vertex tables at its ends.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from graphmem.pgq._tokens import error_at, identifier_key
from graphmem.pgq.ast import (
    EdgePattern,
    EdgeTable,
    ElementTable,
    GraphTable,
    PropertyGraph,
    Quantified,
    SqlExpr,
    VertexPattern,
)
from graphmem.pgq.scope import candidate_tables

__all__ = ["MAX_BRANCHES", "MAX_TABLES", "Branch", "Condition", "bind"]

#: Upper limit on the SELECTs one GRAPH_TABLE may lower to (SQLite's default
#: SQLITE_MAX_COMPOUND_SELECT is 500).
MAX_BRANCHES = 500

#: Upper limit on the tables joined by one SELECT (SQLite joins at most 64).
MAX_TABLES = 64

#: A variable copy: (identifier key, iteration); 0 for singletons, ("", n) if anonymous.
VarKey = tuple[str, int]


@dataclass(frozen=True)
class Condition:
    """An expression and the variable copies its names refer to."""

    expr: SqlExpr
    names: Mapping[str, VarKey]


@dataclass(frozen=True)
class Branch:
    """One SELECT of the lowering.

    Attributes:
        tables: alias -> element table, in FROM order.
        joins: ``(edge alias, edge column, vertex alias, vertex column)`` equalities.
        conditions: inline and graph-pattern WHERE conditions.
        aliases: variable copy -> alias.
    """

    tables: Mapping[str, ElementTable]
    joins: tuple[tuple[str, str, str, str], ...]
    conditions: tuple[Condition, ...]
    aliases: Mapping[VarKey, str]


@dataclass(frozen=True)
class _Occ:
    key: VarKey
    element: VertexPattern | EdgePattern
    names: Mapping[str, VarKey]


@dataclass(frozen=True)
class _Step:
    left: VarKey
    edge: _Occ
    right: VarKey


class _Unrolled:
    """One fixed-length unrolling: vertex classes, steps and element occurrences."""

    def __init__(self) -> None:
        self.parent: dict[VarKey, VarKey] = {}
        self.occurrences: list[_Occ] = []
        self.steps: list[_Step] = []
        self._anonymous = 0

    def fresh(self) -> VarKey:
        self._anonymous += 1
        return ("", self._anonymous)

    def find(self, key: VarKey) -> VarKey:
        root = self.parent.setdefault(key, key)
        while root != self.parent[root]:
            root = self.parent[root]
        self.parent[key] = root
        return root

    def union(self, a: VarKey, b: VarKey) -> None:
        self.parent[self.find(b)] = self.find(a)

    def add_path(self, occurrences: list[_Occ]) -> None:
        vertex: VarKey | None = None
        pending: _Occ | None = None
        for occ in occurrences:
            self.occurrences.append(occ)
            self.find(occ.key)
            if isinstance(occ.element, VertexPattern):
                if vertex is not None and pending is None:
                    self.union(vertex, occ.key)
                elif pending is not None:
                    self.steps.append(_Step(vertex or self._anon_vertex(), pending, occ.key))
                vertex, pending = occ.key, None
                continue
            if pending is not None:
                middle = self._anon_vertex()
                self.steps.append(_Step(vertex or self._anon_vertex(), pending, middle))
                vertex = middle
            pending = occ
        if pending is not None:
            self.steps.append(_Step(vertex or self._anon_vertex(), pending, self._anon_vertex()))
        if not occurrences:
            # A path whose only part repeated zero times still matches one vertex.
            self._anon_vertex()

    def _anon_vertex(self) -> VarKey:
        key = self.fresh()
        self.find(key)
        return key


def _key(element: VertexPattern | EdgePattern, iteration: int, unrolled: _Unrolled) -> VarKey:
    if element.var is None:
        return unrolled.fresh()
    return (identifier_key(element.var), iteration)


def _unroll(query: GraphTable, counts: tuple[int, ...]) -> _Unrolled:
    unrolled = _Unrolled()
    quantifier = 0
    for path in query.paths:
        occurrences: list[_Occ] = []
        for item in path.items:
            if not isinstance(item, Quantified):
                occurrences.append(_Occ(_key(item, 0, unrolled), item, {}))
                continue
            for i in range(1, counts[quantifier] + 1):
                iteration = quantifier * 100 + i
                names = {
                    identifier_key(e.var): (identifier_key(e.var), iteration)
                    for e in item.items
                    if e.var is not None
                }
                occurrences.extend(_Occ(_key(e, iteration, unrolled), e, names) for e in item.items)
            quantifier += 1
        unrolled.add_path(occurrences)
    return unrolled


def bind(source: str, graph: PropertyGraph, query: GraphTable) -> list[Branch]:
    """Lower ``query``'s MATCH to branches (see the module docstring).

    Raises:
        PgqSyntaxError: the pattern expands to more than :data:`MAX_BRANCHES` SELECTs.
    """
    ranges = [
        range(item.lower, item.upper + 1)
        for path in query.paths
        for item in path.items
        if isinstance(item, Quantified)
    ]
    branches: list[Branch] = []
    for counts in itertools.product(*ranges):
        unrolled = _unroll(query, counts)
        if len({unrolled.find(key) for key in unrolled.parent}) > MAX_TABLES:
            raise error_at(
                source,
                query.graph_offset,
                f"an unrolled pattern joins more than {MAX_TABLES} element tables; "
                "lower the quantifier bounds",
            )
        for tables, orientation in _assignments(source, graph, unrolled):
            branches.append(_branch(unrolled, query, tables, orientation))
            if len(branches) > MAX_BRANCHES:
                raise error_at(
                    source,
                    query.graph_offset,
                    f"the pattern expands to more than {MAX_BRANCHES} SELECTs; "
                    "narrow the labels or the quantifier bounds",
                )
    return branches


def _candidates(
    source: str, graph: PropertyGraph, unrolled: _Unrolled
) -> dict[VarKey, list[ElementTable]]:
    candidates: dict[VarKey, list[ElementTable]] = {}
    for occ in unrolled.occurrences:
        root = unrolled.find(occ.key)
        tables = candidate_tables(source, graph, occ.element)
        known = candidates.get(root)
        candidates[root] = (
            tables if known is None else [t for t in known if any(t is u for u in tables)]
        )
    for key in unrolled.parent:
        candidates.setdefault(unrolled.find(key), list(graph.vertex_tables))
    return candidates


_Assignment = tuple[dict[VarKey, ElementTable], tuple[bool, ...]]


def _assignments(source: str, graph: PropertyGraph, unrolled: _Unrolled) -> Iterator[_Assignment]:
    candidates = _candidates(source, graph, unrolled)
    steps = unrolled.steps
    assigned: dict[VarKey, ElementTable] = {}

    def fits(key: VarKey, table: ElementTable, new: dict[VarKey, ElementTable]) -> bool:
        current = assigned.get(key) or new.get(key)
        if current is not None:
            return current is table
        return any(t is table for t in candidates[key])

    def solve(i: int, orientation: tuple[bool, ...]) -> Iterator[_Assignment]:
        if i == len(steps):
            yield from _rest(candidates, assigned, orientation)
            return
        step = steps[i]
        edge_key = unrolled.find(step.edge.key)
        left, right = unrolled.find(step.left), unrolled.find(step.right)
        for table in candidates[edge_key]:
            assert isinstance(table, EdgeTable)
            for forward in _orientations(step.edge.element):
                source_key, target_key = (left, right) if forward else (right, left)
                need: dict[VarKey, ElementTable] = {}
                ok = True
                for key, wanted in (
                    (edge_key, table),
                    (source_key, graph.vertex_table(table.source.vertex)),
                    (target_key, graph.vertex_table(table.destination.vertex)),
                ):
                    ok = ok and fits(key, wanted, need)
                    need.setdefault(key, wanted)
                if not ok:
                    continue
                fresh = {k: v for k, v in need.items() if k not in assigned}
                assigned.update(fresh)
                yield from solve(i + 1, (*orientation, forward))
                for key in fresh:
                    del assigned[key]

    yield from solve(0, ())


def _orientations(edge: VertexPattern | EdgePattern) -> tuple[bool, ...]:
    assert isinstance(edge, EdgePattern)
    return {"right": (True,), "left": (False,), "any": (True, False)}[edge.direction]


def _rest(
    candidates: dict[VarKey, list[ElementTable]],
    assigned: dict[VarKey, ElementTable],
    orientation: tuple[bool, ...],
) -> Iterator[_Assignment]:
    free = [key for key in candidates if key not in assigned]
    for choice in itertools.product(*(candidates[key] for key in free)):
        yield {**assigned, **dict(zip(free, choice, strict=True))}, orientation


def _branch(
    unrolled: _Unrolled,
    query: GraphTable,
    tables: dict[VarKey, ElementTable],
    orientation: tuple[bool, ...],
) -> Branch:
    # Path order (v, e, v, e, ...) gives readable SQL where each JOIN links to the last.
    walk = [key for step in unrolled.steps for key in (step.left, step.edge.key, step.right)]
    roots = list(dict.fromkeys(unrolled.find(key) for key in [*walk, *unrolled.parent]))
    counters = {"v": 0, "e": 0}
    alias_of: dict[VarKey, str] = {}
    for root in roots:
        kind = "e" if isinstance(tables[root], EdgeTable) else "v"
        counters[kind] += 1
        alias_of[root] = f"{kind}{counters[kind]}"
    joins: list[tuple[str, str, str, str]] = []
    for step, forward in zip(unrolled.steps, orientation, strict=True):
        edge_root = unrolled.find(step.edge.key)
        edge = tables[edge_root]
        assert isinstance(edge, EdgeTable)
        ends = (step.left, step.right) if forward else (step.right, step.left)
        for end, vertex in zip((edge.source, edge.destination), ends, strict=True):
            for column, referenced in zip(end.key, end.references, strict=True):
                joins.append(
                    (alias_of[edge_root], column, alias_of[unrolled.find(vertex)], referenced)
                )
    conditions = [
        Condition(occ.element.where, occ.names)
        for occ in unrolled.occurrences
        if occ.element.where is not None
    ]
    if query.where is not None:
        conditions.append(Condition(query.where, {}))
    aliases = {key: alias_of[unrolled.find(key)] for key in unrolled.parent}
    ordered = {alias_of[root]: tables[root] for root in roots}
    return Branch(ordered, tuple(joins), tuple(conditions), aliases)

"""Use edge columns for vertex keys, and drop vertex joins nothing else needs.

In a branch, ``edge.source_id = v.record_id`` holds for every row, so a reference
to ``v.record_id`` can read ``edge.source_id`` instead: the value is the same,
and an engine can test it before it visits the vertex table. When a vertex is
referenced only through its key, its table adds nothing but the existence of the
row the edge points to; with ``assume_integrity`` (every edge's SOURCE and
DESTINATION keys are enforced foreign keys, as in graphmem's schema) that is
certain and the join is dropped. Without it the join stays, because SQL/PGQ
leaves out edges whose end vertex is missing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlglot import exp

from graphmem.pgq._tokens import identifier_key
from graphmem.pgq.ast import EdgeTable, SqlExpr
from graphmem.pgq.bind import Branch, Condition
from graphmem.pgq.expr import rewrite

__all__ = ["Plan", "plan_branch"]

ColumnRef = tuple[str, str]


@dataclass(frozen=True)
class Plan:
    """How to write one branch.

    Attributes:
        substitute: (vertex alias, key column) -> the edge column holding the value.
        dropped: vertex aliases left out of FROM.
    """

    substitute: dict[ColumnRef, ColumnRef]
    dropped: frozenset[str]


def _used_columns(branch: Branch, expressions: Iterable[Condition]) -> dict[str, set[str | None]]:
    used: dict[str, set[str | None]] = {alias: set() for alias in branch.tables}

    def record_for(condition: Condition) -> None:
        def resolve(var: str, prop: str) -> exp.Expression:
            key = identifier_key(var)
            alias = branch.aliases[condition.names.get(key, (key, 0))]
            used[alias].add(branch.tables[alias].column_for(prop))
            return exp.null()

        rewrite(condition.expr, resolve)

    for condition in expressions:
        record_for(condition)
    return used


def plan_branch(branch: Branch, columns: Iterable[SqlExpr], assume_integrity: bool) -> Plan:
    """Decide the substitutions and dropped joins of ``branch``."""
    conditions = [*branch.conditions, *(Condition(expr, {}) for expr in columns)]
    used = _used_columns(branch, conditions)
    substitute: dict[ColumnRef, ColumnRef] = {}
    dropped: set[str] = set()
    for alias, table in branch.tables.items():
        if isinstance(table, EdgeTable):
            continue
        joins = [j for j in branch.joins if j[2] == alias]
        for edge_alias, edge_column, _, vertex_column in joins:
            substitute.setdefault((alias, vertex_column), (edge_alias, edge_column))
        key_columns = {j[3] for j in joins}
        if (
            assume_integrity
            and joins
            and len(table.key) == len(key_columns) == 1
            and used[alias] <= key_columns
        ):
            dropped.add(alias)
    return Plan(substitute, frozenset(dropped))

"""Static checks of a GRAPH_TABLE against its graph: variables, labels, properties.

Runs before any unrolling, so that every error points at the text the user wrote:

* a variable is either a vertex or an edge variable, never both;
* a variable inside a quantifier is a *group variable*: it may not also occur
  outside that quantifier, and outside it may only be referenced through
  aggregates, which graphmem does not lower (Oracle ORA-40998);
* every label exists on a table of the right kind;
* every ``v.prop`` names a declared variable and a property that at least one
  candidate table of ``v`` exposes.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from graphmem.pgq._tokens import error_at, identifier_key
from graphmem.pgq.ast import (
    EdgePattern,
    ElementTable,
    GraphTable,
    PropertyGraph,
    Quantified,
    SqlExpr,
    VertexPattern,
)
from graphmem.pgq.expr import property_refs

__all__ = ["Scope", "Variable", "analyse", "candidate_tables", "elements"]

Element = VertexPattern | EdgePattern


@dataclass
class Variable:
    """What the pattern says about one named variable.

    Attributes:
        name: the first spelling seen.
        edge: whether it is an edge variable.
        group: the id of its quantifier, or None for a singleton variable.
        candidates: the element tables every occurrence's label filter allows.
    """

    name: str
    edge: bool
    group: int | None
    candidates: list[ElementTable] = field(default_factory=list)


@dataclass
class Scope:
    """The variables of one GRAPH_TABLE, by identifier key."""

    variables: dict[str, Variable]


def elements(query: GraphTable) -> Iterator[tuple[Element, int | None]]:
    """Yield every element pattern with the id of its enclosing quantifier (or None)."""
    group = 0
    for path in query.paths:
        for item in path.items:
            if isinstance(item, Quantified):
                group += 1
                for inner in item.items:
                    yield inner, group
            else:
                yield item, None


def candidate_tables(source: str, graph: PropertyGraph, element: Element) -> list[ElementTable]:
    """Return the element tables whose labels satisfy ``element``'s label filter.

    Raises:
        PgqSyntaxError: a label is not a label of any table of the element's kind.
    """
    tables: Sequence[ElementTable] = (
        graph.edge_tables if isinstance(element, EdgePattern) else graph.vertex_tables
    )
    if element.labels is None:
        return list(tables)
    kind = "edge" if isinstance(element, EdgePattern) else "vertex"
    for label, offset in zip(element.labels, element.label_offsets, strict=True):
        if not any(t.has_label(label) for t in tables):
            raise error_at(source, offset, f"unknown {kind} label {label}")
    return [t for t in tables if any(t.has_label(label) for label in element.labels)]


def analyse(source: str, graph: PropertyGraph, query: GraphTable) -> Scope:
    """Check ``query`` against ``graph`` and return its variables.

    Raises:
        PgqSyntaxError: at the first offending variable, label or property.
    """
    variables: dict[str, Variable] = {}
    for element, group in elements(query):
        tables = candidate_tables(source, graph, element)
        if element.var is None:
            continue
        key = identifier_key(element.var)
        edge = isinstance(element, EdgePattern)
        known = variables.get(key)
        if known is None:
            variables[key] = Variable(element.var, edge, group, tables)
            continue
        if known.edge != edge:
            raise error_at(source, element.offset, f"{element.var} is both a vertex and an edge")
        if known.group != group:
            raise error_at(
                source,
                element.offset,
                f"{element.var} is a group variable of a quantified pattern and cannot occur "
                "outside it (Oracle ORA-40998/ORA-49002)",
            )
        known.candidates = [t for t in known.candidates if any(t is u for u in tables)]
    scope = Scope(variables)
    for element, group in elements(query):
        if element.where is not None:
            _check_refs(source, scope, element.where, group)
    if query.where is not None:
        _check_refs(source, scope, query.where, None)
    for column in query.columns:
        _check_refs(source, scope, column.expr, None)
    return scope


def _check_refs(source: str, scope: Scope, expr: SqlExpr, group: int | None) -> None:
    for ref in property_refs(source, expr):
        variable = scope.variables.get(identifier_key(ref.var))
        if variable is None:
            raise error_at(source, ref.offset, f"unknown variable {ref.var} (Oracle ORA-40996)")
        if variable.group is not None and variable.group != group:
            raise error_at(
                source,
                ref.offset,
                f"group variable {ref.var} can only be referenced inside its quantified "
                "pattern (aggregates over group variables are not supported; Oracle ORA-40998)",
            )
        candidates = variable.candidates
        if candidates and not any(t.column_for(ref.prop) for t in candidates):
            raise error_at(
                source,
                ref.offset,
                f"property {ref.prop} is not exposed by any table {ref.var} can bind to",
            )

"""Data classes for property graphs and GRAPH_TABLE match patterns.

Identifiers are kept as SQL spells them: an identifier that was double-quoted in
the source keeps its quotes (``'"MyTable"'``), an unquoted one keeps its case.
Lookups by name are case-insensitive (see :func:`identifier_key`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from sqlglot import exp

from graphmem.pgq._tokens import identifier_key

__all__ = [
    "ColumnItem",
    "Direction",
    "EdgeEnd",
    "EdgePattern",
    "EdgeTable",
    "ElementTable",
    "GraphTable",
    "PathItem",
    "PathPattern",
    "Properties",
    "PropertyGraph",
    "Quantified",
    "SqlExpr",
    "VertexPattern",
    "VertexTable",
    "identifier_key",
]


@dataclass(frozen=True)
class Properties:
    """The properties one label exposes.

    Attributes:
        columns: ``(property, column)`` pairs of an explicit ``PROPERTIES (...)`` list.
        all_columns: True for ``PROPERTIES ARE ALL COLUMNS``: every column of the
            table is a property of the same name.
        except_columns: columns left out by ``ALL COLUMNS EXCEPT (...)``.
    """

    columns: tuple[tuple[str, str], ...] = ()
    all_columns: bool = False
    except_columns: tuple[str, ...] = ()

    def column_for(self, prop: str) -> str | None:
        """Return the column spelling behind property ``prop``, or None if not exposed."""
        key = identifier_key(prop)
        if self.all_columns:
            excluded = {identifier_key(c) for c in self.except_columns}
            return None if key in excluded else prop
        for name, column in self.columns:
            if identifier_key(name) == key:
                return column
        return None


@dataclass(frozen=True)
class ElementTable:
    """A vertex or edge table of a property graph.

    Attributes:
        alias: the element name (``tbl AS alias``; the table name when no alias).
        table: the table, possibly schema-qualified (``schema.tbl``).
        key: the ``KEY (...)`` columns; empty when the DDL leaves KEY out.
        labels: label name -> the properties that label exposes.
    """

    alias: str
    table: str
    key: tuple[str, ...]
    labels: Mapping[str, Properties]

    def has_label(self, label: str) -> bool:
        """Whether the element carries ``label`` (case-insensitive)."""
        key = identifier_key(label)
        return any(identifier_key(name) == key for name in self.labels)

    def column_for(self, prop: str) -> str | None:
        """Return the column behind ``prop`` under any of the labels, or None."""
        for properties in self.labels.values():
            column = properties.column_for(prop)
            if column is not None:
                return column
        return None


@dataclass(frozen=True)
class VertexTable(ElementTable):
    """A vertex table of a property graph."""


@dataclass(frozen=True)
class EdgeEnd:
    """``SOURCE KEY (key) REFERENCES vertex (references)`` or the DESTINATION form.

    Attributes:
        key: the edge table's columns.
        vertex: the alias of the referenced vertex table.
        references: the vertex table's columns, pairwise matching ``key``.
    """

    key: tuple[str, ...]
    vertex: str
    references: tuple[str, ...]


@dataclass(frozen=True)
class EdgeTable(ElementTable):
    """An edge table of a property graph, with its source and destination ends."""

    source: EdgeEnd = field(kw_only=True)
    destination: EdgeEnd = field(kw_only=True)


@dataclass(frozen=True)
class PropertyGraph:
    """A parsed ``CREATE PROPERTY GRAPH`` statement.

    Attributes:
        name: the graph name, possibly schema-qualified.
        vertex_tables: the vertex tables in DDL order.
        edge_tables: the edge tables in DDL order.
        options: the ``OPTIONS (...)`` items, e.g. ``("TRUSTED MODE",)``.
        or_replace: whether the DDL said ``OR REPLACE``.
        if_not_exists: whether the DDL said ``IF NOT EXISTS``.
    """

    name: str
    vertex_tables: tuple[VertexTable, ...]
    edge_tables: tuple[EdgeTable, ...] = ()
    options: tuple[str, ...] = ()
    or_replace: bool = False
    if_not_exists: bool = False

    def vertex_table(self, alias: str) -> VertexTable:
        """Return the vertex table named ``alias``.

        Raises:
            KeyError: no vertex table has that alias.
        """
        key = identifier_key(alias)
        for table in self.vertex_tables:
            if identifier_key(table.alias) == key:
                return table
        raise KeyError(alias)


@dataclass(frozen=True)
class SqlExpr:
    """A SQL expression inside GRAPH_TABLE, parsed by sqlglot.

    Attributes:
        expression: the parsed expression.
        offset: where its text starts in the original statement (for error positions).
    """

    expression: exp.Expression
    offset: int


@dataclass(frozen=True)
class VertexPattern:
    """``(v IS a|b WHERE cond)``; every part optional.

    Attributes:
        var: the variable spelling, or None when anonymous.
        labels: the label disjunction, or None for "any label".
        where: the inline condition, if any.
        offset: where the pattern starts in the original statement.
        label_offsets: where each label starts in the original statement.
    """

    var: str | None
    labels: tuple[str, ...] | None
    where: SqlExpr | None
    offset: int
    label_offsets: tuple[int, ...] = ()


Direction = Literal["right", "left", "any"]


@dataclass(frozen=True)
class EdgePattern:
    """``-[e IS l WHERE cond]->`` and friends, including the abbreviated forms.

    Attributes:
        var: the variable spelling, or None when anonymous.
        labels: the label disjunction, or None for "any label".
        where: the inline condition, if any.
        direction: ``right`` (``->``), ``left`` (``<-``) or ``any`` (``-``).
        offset: where the pattern starts in the original statement.
        label_offsets: where each label starts in the original statement.
    """

    var: str | None
    labels: tuple[str, ...] | None
    where: SqlExpr | None
    direction: Direction
    offset: int
    label_offsets: tuple[int, ...] = ()


@dataclass(frozen=True)
class Quantified:
    """A bounded quantifier on an edge or on a parenthesised group.

    Attributes:
        items: the quantified elements (one edge, or the group's contents).
        lower: the minimum number of repetitions (>= 0).
        upper: the maximum number of repetitions (>= max(1, lower), <= 10).
        offset: where the quantified part starts in the original statement.
    """

    items: tuple[VertexPattern | EdgePattern, ...]
    lower: int
    upper: int
    offset: int


PathItem = VertexPattern | EdgePattern | Quantified


@dataclass(frozen=True)
class PathPattern:
    """One comma-separated path pattern of MATCH."""

    items: tuple[PathItem, ...]


@dataclass(frozen=True)
class ColumnItem:
    """One ``expr AS name`` of COLUMNS."""

    expr: SqlExpr
    name: str


@dataclass(frozen=True)
class GraphTable:
    """The inside of one ``GRAPH_TABLE ( ... )``.

    Attributes:
        graph: the graph name as written (possibly schema-qualified).
        graph_offset: where the graph name starts in the original statement.
        paths: the MATCH path patterns.
        where: the graph-pattern WHERE, if any.
        columns: the COLUMNS items.
    """

    graph: str
    graph_offset: int
    paths: tuple[PathPattern, ...]
    where: SqlExpr | None
    columns: tuple[ColumnItem, ...]

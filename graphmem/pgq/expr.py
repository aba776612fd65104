"""Property references inside GRAPH_TABLE expressions: find them, check them, rewrite them.

Inside GRAPH_TABLE every column reference must be ``variable.property``. The
expression is otherwise copied as sqlglot parsed it, so any scalar SQL the
dialect supports (CASE, functions, binds such as ``:depth``) passes through.
Aggregates, window functions and subqueries are rejected: aggregates only make
sense over group variables (not lowered), and a subquery could reference names
the lowering cannot see.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlglot import exp

from graphmem.pgq._tokens import error_at
from graphmem.pgq.ast import SqlExpr

__all__ = ["PropertyRef", "identifier", "property_refs", "rewrite"]

#: SQL/PGQ-only functions; they have no meaning once GRAPH_TABLE is lowered.
_PGQ_FUNCTIONS = {
    "BINDING_COUNT",
    "EDGE_EQUAL",
    "EDGE_ID",
    "ELEMENT_NUMBER",
    "IS_DESTINATION_OF",
    "IS_SOURCE_OF",
    "MATCHNUM",
    "PATH_NAME",
    "PROPERTY_EXISTS",
    "VERTEX_EQUAL",
    "VERTEX_ID",
}


@dataclass(frozen=True)
class PropertyRef:
    """One ``var.prop`` in an expression.

    Attributes:
        var: the variable spelling.
        prop: the property spelling.
        offset: where the reference starts in the original statement.
    """

    var: str
    prop: str
    offset: int


def identifier(spelling: str) -> exp.Identifier:
    """Build a sqlglot identifier from a spelling (``"X"`` stays quoted)."""
    if len(spelling) > 1 and spelling.startswith('"') and spelling.endswith('"'):
        return exp.to_identifier(spelling[1:-1], quoted=True)
    return exp.to_identifier(spelling)


def _spelling(node: exp.Expression) -> str:
    name = str(node.name)
    return f'"{name}"' if node.args.get("quoted") else name


def _offset(node: exp.Expression, expr: SqlExpr) -> int:
    start = node.meta.get("start") if node.meta else None
    return expr.offset + (start if isinstance(start, int) else 0)


def property_refs(source: str, expr: SqlExpr) -> list[PropertyRef]:
    """Return the property references of ``expr``, checking it stays in the subset.

    Args:
        source: the original statement (for error positions).
        expr: an expression from inside GRAPH_TABLE.

    Raises:
        PgqSyntaxError: an unqualified or over-qualified column, ``v.*``, an
            aggregate, a window function or a subquery.
    """
    refs: list[PropertyRef] = []
    for node in expr.expression.walk():
        _reject(source, expr, node)
        if not isinstance(node, exp.Column):
            continue
        table = node.args.get("table")
        if table is None:
            raise error_at(
                source,
                _offset(node.this, expr),
                f"unqualified name {node.name} in GRAPH_TABLE; write variable.property",
            )
        if node.args.get("db") is not None:
            raise error_at(source, _offset(table, expr), "expected variable.property")
        if isinstance(node.this, exp.Star):
            raise error_at(source, _offset(table, expr), "v.* is not supported")
        refs.append(PropertyRef(_spelling(table), _spelling(node.this), _offset(table, expr)))
    return refs


def _reject(source: str, expr: SqlExpr, node: exp.Expr) -> None:
    if isinstance(node, exp.AggFunc):
        problem = "aggregates (over group variables) are not supported in GRAPH_TABLE"
    elif isinstance(node, exp.Window):
        problem = "window functions are not supported in GRAPH_TABLE"
    elif isinstance(node, exp.Query):
        problem = "subqueries are not supported in GRAPH_TABLE"
    elif isinstance(node, exp.Star):
        problem = "* is not supported in GRAPH_TABLE"
    elif isinstance(node, exp.Anonymous) and str(node.name).upper() in _PGQ_FUNCTIONS:
        problem = f"the SQL/PGQ function {str(node.name).upper()} is not supported"
    else:
        return
    raise error_at(source, expr.offset, problem)


def rewrite(expr: SqlExpr, resolve: Callable[[str, str], exp.Expression]) -> exp.Expression:
    """Return a copy of ``expr`` with each ``var.prop`` replaced by ``resolve(var, prop)``.

    Only call this on expressions that :func:`property_refs` accepted.
    """

    def swap(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Column):
            return resolve(_spelling(node.args["table"]), _spelling(node.this))
        return node

    return expr.expression.copy().transform(swap)

"""SQL/PGQ for graphmem: parse CREATE PROPERTY GRAPH and lower GRAPH_TABLE to plain SQL.

graphmem ships its graph queries as Oracle SQL/PGQ. On Oracle they run as
written; elsewhere (SQLite) :func:`lower` rewrites each ``GRAPH_TABLE`` into a
UNION ALL of joins over the element tables. The accepted subset is what Oracle
23ai supports, minus aggregates over group variables, ``v.*``, ``ONE ROW PER``
and path variables; anything else raises
:class:`graphmem.errors.PgqSyntaxError` with a line and column.
"""

from graphmem.errors import PgqSyntaxError
from graphmem.pgq.ast import (
    EdgeEnd,
    EdgeTable,
    ElementTable,
    Properties,
    PropertyGraph,
    VertexTable,
)
from graphmem.pgq.ddl import parse_property_graph
from graphmem.pgq.lower import DIALECTS, lower

__all__ = [
    "DIALECTS",
    "EdgeEnd",
    "EdgeTable",
    "ElementTable",
    "PgqSyntaxError",
    "Properties",
    "PropertyGraph",
    "VertexTable",
    "lower",
    "parse_property_graph",
]

"""Parse ``CREATE PROPERTY GRAPH``.

The accepted shape follows Oracle 23ai (see docs/ORACLE_FACTS section 1)::

    CREATE [OR REPLACE] PROPERTY GRAPH [IF NOT EXISTS] [schema.]g
      VERTEX TABLES ( tbl [AS alias] [KEY (c, ...)] <labels>, ... )
      [EDGE TABLES ( tbl [AS alias] [KEY (c, ...)]
                     SOURCE KEY (c, ...) REFERENCES vertex_alias [(c, ...)]
                     DESTINATION KEY (c, ...) REFERENCES vertex_alias [(c, ...)]
                     <labels>, ... )]
      [OPTIONS ( ... )]

where ``<labels>`` is any number of ``LABEL l [<properties>]``, or a single
``<properties>`` for the default label, and ``<properties>`` is
``PROPERTIES (c [AS p], ...)`` | ``PROPERTIES [ARE] ALL COLUMNS [EXCEPT (c, ...)]``
| ``NO PROPERTIES``. Without a label clause the label is the element alias and
every column is a property.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from graphmem.pgq._tokens import Cursor, identifier_key, tokenize
from graphmem.pgq.ast import EdgeEnd, EdgeTable, Properties, PropertyGraph, VertexTable

__all__ = ["parse_property_graph"]

_ALL_COLUMNS = Properties(all_columns=True)


def parse_property_graph(ddl: str, dialect: str = "oracle") -> PropertyGraph:
    """Parse a ``CREATE PROPERTY GRAPH`` statement.

    Args:
        ddl: the statement text; one trailing ``;`` is allowed.
        dialect: the sqlglot dialect whose tokenizer reads the text.

    Returns:
        The graph's vertex and edge tables, labels, properties and options.

    Raises:
        PgqSyntaxError: the text is not a supported CREATE PROPERTY GRAPH; the
            error carries the 1-based line and column of the offending token.

    Example:
        >>> g = parse_property_graph(
        ...     "CREATE PROPERTY GRAPH g VERTEX TABLES (person KEY (id))"
        ... )
        >>> g.vertex_tables[0].alias, list(g.vertex_tables[0].labels)
        ('person', ['person'])
    """
    cur = Cursor(ddl, tokenize(ddl, dialect))
    cur.expect_word("CREATE")
    or_replace = cur.accept_word("OR", "REPLACE")
    cur.expect_word("PROPERTY", "GRAPH")
    if_not_exists = cur.accept_word("IF", "NOT", "EXISTS")
    name = _qualified_name(cur, "graph name")
    cur.expect_word("VERTEX", "TABLES")
    seen: set[str] = set()
    vertices = tuple(_element_list(cur, seen, lambda: _vertex(cur)))
    edges: tuple[EdgeTable, ...] = ()
    if cur.accept_word("EDGE", "TABLES"):
        edges = tuple(_element_list(cur, seen, lambda: _edge(cur, vertices)))
    options = _options(cur) if cur.at_word("OPTIONS") else ()
    if cur.at("SEMICOLON"):
        cur.advance()
    if not cur.at_end():
        raise cur.error("unexpected text after CREATE PROPERTY GRAPH")
    return PropertyGraph(
        name=name,
        vertex_tables=vertices,
        edge_tables=edges,
        options=options,
        or_replace=or_replace,
        if_not_exists=if_not_exists,
    )


def _qualified_name(cur: Cursor, what: str) -> str:
    parts = [cur.name(what).spelling]
    while cur.at("DOT"):
        cur.advance()
        parts.append(cur.name(what).spelling)
    if len(parts) > 2:
        raise cur.error(f"{what} has too many qualifiers")
    return ".".join(parts)


def _name_list(cur: Cursor, what: str) -> tuple[str, ...]:
    cur.expect("L_PAREN", f"( before the {what} list")
    names = [cur.name(what).spelling]
    while cur.at("COMMA"):
        cur.advance()
        names.append(cur.name(what).spelling)
    cur.expect("R_PAREN", f") after the {what} list")
    return tuple(names)


_E = TypeVar("_E", VertexTable, EdgeTable)


def _element_list(cur: Cursor, seen: set[str], element: Callable[[], _E]) -> list[_E]:
    cur.expect("L_PAREN", "( before the element table list")
    elements: list[_E] = []
    while True:
        start = cur.peek()
        elements.append(element())
        if identifier_key(elements[-1].alias) in seen:
            raise cur.error(f"duplicate element table alias {elements[-1].alias}", start)
        seen.add(identifier_key(elements[-1].alias))
        if not cur.at("COMMA"):
            break
        cur.advance()
    cur.expect("R_PAREN", ", or ) after an element table")
    return elements


def _head(cur: Cursor) -> tuple[str, str, tuple[str, ...]]:
    table = _qualified_name(cur, "element table name")
    alias = table.rsplit(".", 1)[-1]
    if cur.accept_word("AS"):
        alias = cur.name("element alias").spelling
    key = _name_list(cur, "key column") if cur.accept_word("KEY") else ()
    return table, alias, key


def _vertex(cur: Cursor) -> VertexTable:
    table, alias, key = _head(cur)
    return VertexTable(alias=alias, table=table, key=key, labels=_labels(cur, alias))


def _edge(cur: Cursor, vertices: tuple[VertexTable, ...]) -> EdgeTable:
    table, alias, key = _head(cur)
    if not cur.accept_word("SOURCE", "KEY"):
        raise cur.error("expected SOURCE KEY (...) REFERENCES ... (only the explicit form)")
    source = _edge_end(cur, vertices)
    cur.expect_word("DESTINATION", "KEY")
    destination = _edge_end(cur, vertices)
    labels = _labels(cur, alias)
    return EdgeTable(
        alias=alias,
        table=table,
        key=key,
        labels=labels,
        source=source,
        destination=destination,
    )


def _edge_end(cur: Cursor, vertices: tuple[VertexTable, ...]) -> EdgeEnd:
    key = _name_list(cur, "edge key column")
    cur.expect_word("REFERENCES")
    token = cur.name("referenced vertex table alias")
    vertex = next(
        (v for v in vertices if identifier_key(v.alias) == identifier_key(token.spelling)),
        None,
    )
    if vertex is None:
        raise cur.error("REFERENCES names no vertex table alias", token)
    references = _name_list(cur, "referenced column") if cur.at("L_PAREN") else vertex.key
    if len(references) != len(key) or not key:
        raise cur.error(
            f"edge key has {len(key)} columns but {vertex.alias} is referenced by "
            f"{len(references)} (write the referenced columns or a KEY on the vertex table)",
            token,
        )
    return EdgeEnd(key=key, vertex=vertex.alias, references=references)


def _labels(cur: Cursor, alias: str) -> dict[str, Properties]:
    labels: dict[str, Properties] = {}
    if not cur.at_word("LABEL"):
        labels[alias] = _properties(cur) if _at_properties(cur) else _ALL_COLUMNS
        if cur.at_word("LABEL"):
            raise cur.error("a LABEL clause cannot follow the default label's properties")
        return labels
    while cur.at_word("LABEL"):
        cur.advance()
        token = cur.name("label name")
        if any(identifier_key(n) == identifier_key(token.spelling) for n in labels):
            raise cur.error("duplicate label", token)
        labels[token.spelling] = _properties(cur) if _at_properties(cur) else _ALL_COLUMNS
    return labels


def _at_properties(cur: Cursor) -> bool:
    return cur.at_word("PROPERTIES") or cur.at_word("NO", "PROPERTIES")


def _properties(cur: Cursor) -> Properties:
    if cur.accept_word("NO", "PROPERTIES"):
        return Properties()
    cur.expect_word("PROPERTIES")
    cur.accept_word("ARE")
    if cur.accept_word("ALL", "COLUMNS"):
        excluded = _name_list(cur, "column") if cur.accept_word("EXCEPT") else ()
        return Properties(all_columns=True, except_columns=excluded)
    cur.expect("L_PAREN", "( or ARE ALL COLUMNS after PROPERTIES")
    pairs = [_property(cur)]
    while cur.at("COMMA"):
        cur.advance()
        pairs.append(_property(cur))
    cur.expect("R_PAREN", ", or ) in the property list (only plain columns are supported)")
    seen: set[str] = set()
    for prop, _ in pairs:
        if identifier_key(prop) in seen:
            raise cur.error(f"duplicate property {prop}")
        seen.add(identifier_key(prop))
    return Properties(columns=tuple(pairs))


def _property(cur: Cursor) -> tuple[str, str]:
    column = cur.name("column name").spelling
    prop = cur.name("property name").spelling if cur.accept_word("AS") else column
    return prop, column


def _options(cur: Cursor) -> tuple[str, ...]:
    cur.expect_word("OPTIONS")
    cur.expect("L_PAREN", "( after OPTIONS")
    options: list[str] = []
    words: list[str] = []
    while not cur.at("R_PAREN"):
        token = cur.advance()
        if token.kind == "COMMA":
            options.append(" ".join(words))
            words = []
        else:
            words.append(token.word or token.spelling)
    cur.advance()
    options.append(" ".join(words))
    if any(not option for option in options):
        raise cur.error("empty item in OPTIONS")
    return tuple(options)

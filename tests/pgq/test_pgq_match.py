"""Parsing the inside of GRAPH_TABLE, one construct per test."""

from __future__ import annotations

from sqlglot import exp

from graphmem.pgq._tokens import Cursor, tokenize
from graphmem.pgq.ast import EdgePattern, GraphTable, Quantified, VertexPattern
from graphmem.pgq.match import parse_graph_table


def parse(inner: str, dialect: str = "sqlite") -> GraphTable:
    return parse_graph_table(Cursor(inner, tokenize(inner, dialect)), dialect)


def first_items(inner: str) -> tuple[object, ...]:
    return parse(f"g MATCH {inner} COLUMNS (1 AS one)").paths[0].items


def test_match_graph_name_may_be_schema_qualified() -> None:
    assert parse("app.g MATCH () COLUMNS (1 AS one)").graph == "app.g"


def test_match_vertex_with_variable_labels_and_where() -> None:
    (vertex,) = first_items("(v IS a|b WHERE v.x = 1)")
    assert isinstance(vertex, VertexPattern)
    assert (vertex.var, vertex.labels) == ("v", ("a", "b"))
    assert vertex.where is not None and isinstance(vertex.where.expression, exp.EQ)


def test_match_anonymous_vertex_with_label() -> None:
    (vertex,) = first_items("(IS a)")
    assert isinstance(vertex, VertexPattern)
    assert (vertex.var, vertex.labels, vertex.where) == (None, ("a",), None)


def test_match_empty_vertex() -> None:
    (vertex,) = first_items("()")
    assert vertex == VertexPattern(None, None, None, 8)


def test_match_full_edge_directions() -> None:
    items = first_items("() -[a]-> () <-[b]- () -[c]- () <-[d]-> ()")
    edges = [i for i in items if isinstance(i, EdgePattern)]
    assert [(e.var, e.direction) for e in edges] == [
        ("a", "right"),
        ("b", "left"),
        ("c", "any"),
        ("d", "any"),
    ]


def test_match_abbreviated_edges() -> None:
    items = first_items("() -> () <- () - ()")
    edges = [i for i in items if isinstance(i, EdgePattern)]
    assert [(e.var, e.labels, e.direction) for e in edges] == [
        (None, None, "right"),
        (None, None, "left"),
        (None, None, "any"),
    ]


def test_match_edge_with_label_and_where() -> None:
    _, edge, _ = first_items("()-[e IS knows|likes WHERE e.w > 2]->()")
    assert isinstance(edge, EdgePattern)
    assert edge.labels == ("knows", "likes")
    assert edge.where is not None and isinstance(edge.where.expression, exp.GT)


def test_match_edge_quantifier_forms() -> None:
    items = first_items("() -[]->{2} () -[]->{1,3} () -[]->{,4} ()")
    bounds = [(i.lower, i.upper) for i in items if isinstance(i, Quantified)]
    assert bounds == [(2, 2), (1, 3), (0, 4)]


def test_match_quantified_group() -> None:
    _, group, _ = first_items("(a) (-[e]->(x)){1,2} (b)")
    assert isinstance(group, Quantified)
    assert [type(i).__name__ for i in group.items] == ["EdgePattern", "VertexPattern"]


def test_match_several_path_patterns() -> None:
    assert len(parse("g MATCH (a)->(b), (b)->(c) COLUMNS (1 AS one)").paths) == 2


def test_match_pattern_where_stops_at_columns() -> None:
    query = parse("g MATCH (a) WHERE a.columns = 1 AND (a.y > 2) COLUMNS (a.x AS x)")
    assert query.where is not None
    assert query.where.expression.sql() == "a.columns = 1 AND (a.y > 2)"


def test_match_column_alias_and_default_name() -> None:
    query = parse('g MATCH (a) COLUMNS (a.x, a.y + 1 AS "Y", a.z z)')
    assert [c.name for c in query.columns] == ["x", '"Y"', "z"]


def test_match_column_expression_keeps_binds() -> None:
    query = parse("g MATCH (a) COLUMNS (CASE WHEN a.x > :limit THEN 1 END AS big)", "oracle")
    assert query.columns[0].expr.expression.sql("oracle") == ("CASE WHEN a.x > :limit THEN 1 END")

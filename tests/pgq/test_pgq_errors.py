"""Everything outside the subset raises PgqSyntaxError at the offending token."""

from __future__ import annotations

import pytest

from graphmem.errors import PgqSyntaxError
from graphmem.pgq import PropertyGraph, lower


def error(graph: PropertyGraph, sql: str) -> PgqSyntaxError:
    with pytest.raises(PgqSyntaxError) as info:
        lower(sql, graph)
    return info.value


def where(graph: PropertyGraph, inner: str) -> tuple[int, int]:
    """Return (line, column) of the error for ``SELECT * FROM GRAPH_TABLE (<inner>)``."""
    e = error(graph, f"SELECT * FROM GRAPH_TABLE ({inner})")
    return e.line, e.column - len("SELECT * FROM GRAPH_TABLE (") if e.line == 1 else e.column


def test_error_star_quantifier(graph: PropertyGraph) -> None:
    assert where(graph, "g MATCH (a)-[e]->*(b) COLUMNS (a.id AS x)") == (1, 18)


def test_error_plus_quantifier(graph: PropertyGraph) -> None:
    assert where(graph, "g MATCH (a)-[e]->+(b) COLUMNS (a.id AS x)") == (1, 18)


def test_error_question_mark_quantifier(graph: PropertyGraph) -> None:
    assert where(graph, "g MATCH (a)-[e]->?(b) COLUMNS (a.id AS x)") == (1, 18)


def test_error_unbounded_braces(graph: PropertyGraph) -> None:
    assert where(graph, "g MATCH (a)-[e]->{2,}(b) COLUMNS (a.id AS x)") == (1, 21)


def test_error_upper_bound_above_ten(graph: PropertyGraph) -> None:
    assert where(graph, "g MATCH (a)-[e]->{1,11}(b) COLUMNS (a.id AS x)") == (1, 18)


def test_error_upper_bound_below_lower(graph: PropertyGraph) -> None:
    assert where(graph, "g MATCH (a)-[e]->{3,2}(b) COLUMNS (a.id AS x)") == (1, 18)


def test_error_zero_upper_bound(graph: PropertyGraph) -> None:
    assert where(graph, "g MATCH (a)-[e]->{0}(b) COLUMNS (a.id AS x)") == (1, 18)


def test_error_quantified_vertex(graph: PropertyGraph) -> None:
    assert where(graph, "g MATCH (a){2} COLUMNS (a.id AS x)") == (1, 12)


def test_error_group_without_edge(graph: PropertyGraph) -> None:
    assert where(graph, "g MATCH (a) ((b)){2} COLUMNS (a.id AS x)") == (1, 13)


def test_error_path_search_prefix(graph: PropertyGraph) -> None:
    assert where(graph, "g MATCH ANY SHORTEST (a)->(b) COLUMNS (a.id AS x)") == (1, 9)


def test_error_path_variable(graph: PropertyGraph) -> None:
    assert where(graph, "g MATCH p = (a)->(b) COLUMNS (a.id AS x)") == (1, 9)


def test_error_one_row_per(graph: PropertyGraph) -> None:
    assert where(graph, "g MATCH (a)->(b) ONE ROW PER VERTEX (v) COLUMNS (a.id AS x)") == (1, 18)


def test_error_unknown_label_position_on_second_line(graph: PropertyGraph) -> None:
    e = error(graph, "SELECT *\nFROM GRAPH_TABLE (g MATCH (a IS persn) COLUMNS (a.id AS x))")
    assert (e.line, e.column) == (2, 33)
    assert "unknown vertex label persn" in str(e)


def test_error_edge_label_on_vertex(graph: PropertyGraph) -> None:
    assert where(graph, "g MATCH (a IS knows) COLUMNS (a.id AS x)") == (1, 15)


def test_error_unknown_variable(graph: PropertyGraph) -> None:
    assert where(graph, "g MATCH (a) COLUMNS (b.id AS x)") == (1, 22)


def test_error_unknown_property(graph: PropertyGraph) -> None:
    e = error(graph, "SELECT * FROM GRAPH_TABLE (g MATCH (a IS company)\n COLUMNS (a.since AS x))")
    assert (e.line, e.column) == (2, 11)


def test_error_group_variable_in_columns(graph: PropertyGraph) -> None:
    assert where(graph, "g MATCH (a)-[e]->{1,2}(b) COLUMNS (e.id AS x)") == (1, 36)


def test_error_group_variable_in_pattern_where(graph: PropertyGraph) -> None:
    assert where(graph, "g MATCH (a)-[e]->{1,2}(b) WHERE e.id > 1 COLUMNS (a.id AS x)") == (1, 33)


def test_error_group_variable_reused_outside(graph: PropertyGraph) -> None:
    assert where(graph, "g MATCH (a)-[e]->{1,2}(b)-[e]->(c) COLUMNS (a.id AS x)") == (1, 26)


def test_error_aggregate(graph: PropertyGraph) -> None:
    e = error(graph, "SELECT * FROM GRAPH_TABLE (g MATCH (a) COLUMNS (COUNT(a.id) AS n))")
    assert "aggregates" in str(e)


def test_error_pgq_only_function(graph: PropertyGraph) -> None:
    e = error(graph, "SELECT * FROM GRAPH_TABLE (g MATCH (a) COLUMNS (MATCHNUM() AS n))")
    assert "MATCHNUM is not supported" in str(e)


def test_error_source_predicate(graph: PropertyGraph) -> None:
    e = error(
        graph,
        "SELECT * FROM GRAPH_TABLE (g MATCH (a)-[e]-(b) WHERE a IS SOURCE OF e"
        " COLUMNS (a.id AS x))",
    )
    assert "invalid SQL expression" in str(e)


def test_error_vertex_and_edge_share_a_name(graph: PropertyGraph) -> None:
    assert where(graph, "g MATCH (a)-[e]->(e) COLUMNS (a.id AS x)") == (1, 18)


def test_error_bad_arrow(graph: PropertyGraph) -> None:
    assert where(graph, "g MATCH (a)-[e]>(b) COLUMNS (a.id AS x)") == (1, 16)


def test_error_abbreviated_edge_with_label(graph: PropertyGraph) -> None:
    assert where(graph, "g MATCH (a)->[e]->(b) COLUMNS (a.id AS x)") == (1, 14)


def test_error_double_headed_abbreviation(graph: PropertyGraph) -> None:
    assert where(graph, "g MATCH (a)<->(b) COLUMNS (a.id AS x)") == (1, 12)


def test_error_label_negation(graph: PropertyGraph) -> None:
    assert where(graph, "g MATCH (a IS !person) COLUMNS (a.id AS x)") == (1, 15)


def test_error_column_without_name(graph: PropertyGraph) -> None:
    assert where(graph, "g MATCH (a) COLUMNS (a.id + 1)") == (1, 22)


def test_error_unqualified_name(graph: PropertyGraph) -> None:
    assert where(graph, "g MATCH (a) COLUMNS (score AS s)") == (1, 22)


def test_error_all_properties_star(graph: PropertyGraph) -> None:
    assert where(graph, "g MATCH (a) COLUMNS (a.*)") == (1, 22)


def test_error_unknown_graph(graph: PropertyGraph) -> None:
    assert where(graph, "h MATCH (a) COLUMNS (a.id AS x)") == (1, 1)


def test_error_unclosed_graph_table(graph: PropertyGraph) -> None:
    e = error(graph, "SELECT * FROM GRAPH_TABLE (g MATCH (a) COLUMNS (a.id AS x)")
    assert (e.line, e.column) == (1, 27)  # the unmatched (


def test_error_bad_expression_inside(graph: PropertyGraph) -> None:
    e = error(graph, "SELECT * FROM GRAPH_TABLE (g MATCH (a WHERE a.id = = 1) COLUMNS (a.id AS x))")
    assert "invalid SQL expression" in str(e)


def test_error_bad_sql_outside(graph: PropertyGraph) -> None:
    e = error(graph, "SELECT * FROM GRAPH_TABLE (g MATCH (a) COLUMNS (a.id AS x)) t WHERE")
    assert "invalid SQL" in str(e)

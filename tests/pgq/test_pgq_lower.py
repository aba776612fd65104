"""Lowering GRAPH_TABLE to SQLite: each construct returns the rows Oracle would."""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
import sqlglot

from graphmem.errors import InvalidArgumentError
from graphmem.pgq import PropertyGraph, lower

Run = Callable[..., Counter[tuple[Any, ...]]]


def rows(*items: tuple[object, ...]) -> Counter[tuple[object, ...]]:
    return Counter(items)


def test_lower_right_edge(match: Run) -> None:
    got = match("(a IS person)-[e IS knows]->(b)", "a.id AS a, e.id AS e, b.id AS b")
    assert got == rows((1, 100, 2), (2, 101, 3), (3, 102, 3))


def test_lower_left_edge(match: Run) -> None:
    got = match("(a)<-[e IS knows]-(b)", "a.id AS a, b.id AS b")
    assert got == rows((2, 1), (3, 2), (3, 3))


def test_lower_any_direction_returns_both_orientations(match: Run) -> None:
    got = match("(a WHERE a.id = 2)-[e IS knows]-(b)", "e.id AS e, b.id AS b")
    assert got == rows((100, 1), (101, 3))


def test_lower_any_direction_self_loop_matches_once_per_orientation(match: Run) -> None:
    got = match("(a WHERE a.id = 3)-[e IS knows]-(b WHERE b.id = 3)", "e.id AS e")
    assert got == rows((102,), (102,))


def test_lower_abbreviated_arrows(match: Run) -> None:
    assert match("(a)->(b IS company)", "a.id AS a") == rows((1,))
    assert match("(b IS company)<-(a)", "a.id AS a") == rows((1,))
    assert match("(b IS company)-(a)", "a.id AS a") == rows((1,))


def test_lower_unlabelled_edge_matches_every_edge_table(match: Run) -> None:
    got = match("(a WHERE a.id = 1)-[e]->(b)", "e.id AS e")
    assert got == rows((100,), (200,))


def test_lower_label_disjunction(match: Run) -> None:
    got = match("(v IS person|company WHERE v.id >= 3)", "v.id AS v")
    assert got == rows((3,), (10,))


def test_lower_label_shared_by_tables_of_one_table(match: Run) -> None:
    assert sum(match("(v IS entity)", "v.id AS v").values()) == 3


def test_lower_anonymous_elements(match: Run) -> None:
    assert match("(IS company)<-[IS works]-()", "1 AS one") == rows((1,))
    assert match("()-[]->()", "1 AS one") == rows(*[(1,)] * 4)


def test_lower_inline_edge_where(match: Run) -> None:
    got = match("(a)-[e IS knows WHERE e.since >= 2021]->(b)", "e.id AS e")
    assert got == rows((101,), (102,))


def test_lower_pattern_where_sees_all_variables(match: Run) -> None:
    got = match("(a)-[e]->(b) WHERE a.name < b.name", "a.name AS a, b.name AS b")
    assert got == rows(("alice", "bob"), ("bob", "carol"))  # not alice->acme: "acme" < "alice"


def test_lower_renamed_property_resolves_to_its_column(graph: PropertyGraph) -> None:
    sql = lower("SELECT * FROM GRAPH_TABLE (g MATCH (a IS person) COLUMNS (a.id AS x))", graph)
    assert "v1.pid AS x" in sql


def test_lower_property_missing_on_one_table_is_null(match: Run) -> None:
    got = match("(v IS person|company WHERE v.id IN (1, 10))", "v.id AS v, v.score AS s")
    assert got == rows((1, 3), (10, None))


def test_lower_repeated_variable_closes_a_cycle(match: Run) -> None:
    got = match("(a)-[e IS knows]->(a)", "a.id AS a")
    assert got == rows((3,))


def test_lower_two_path_patterns_join_on_shared_variable(match: Run) -> None:
    got = match("(a)-[IS knows]->(b), (a)-[IS works]->(c)", "b.id AS b, c.id AS c")
    assert got == rows((2, 10))


def test_lower_two_path_patterns_without_shared_variable_cross_join(match: Run) -> None:
    got = match("(a IS company), (b IS person)", "a.id AS a, b.id AS b")
    assert got == rows((10, 1), (10, 2), (10, 3))


def test_lower_fixed_quantifier(match: Run) -> None:
    got = match("(a WHERE a.id = 1)-[IS knows]->{2}(b)", "b.id AS b")
    assert got == rows((3,))


def test_lower_range_quantifier_is_a_walk(match: Run) -> None:
    got = match("(a WHERE a.id = 2)-[IS knows]->{1,3}(b)", "b.id AS b")
    assert got == rows((3,), (3,), (3,))


def test_lower_quantifier_with_zero_lower_bound_includes_the_start(match: Run) -> None:
    got = match("(a WHERE a.id = 1)-[IS knows]->{0,1}(b)", "b.id AS b")
    assert got == rows((1,), (2,))


def test_lower_quantifier_with_omitted_lower_bound(match: Run) -> None:
    got = match("(a WHERE a.id = 1)-[IS knows]->{,2}(b)", "b.id AS b")
    assert got == rows((1,), (2,), (3,))


def test_lower_quantified_group(match: Run) -> None:
    got = match("(a WHERE a.id = 1) (-[IS knows]->(x IS person)){2} (b)", "b.id AS b")
    assert got == rows((3,))


def test_lower_inline_where_applies_to_every_repetition(match: Run) -> None:
    got = match("(a WHERE a.id = 1)-[e IS knows WHERE e.since < 2022]->{1,3}(b)", "b.id AS b")
    assert got == rows((2,), (3,))


def test_lower_inline_where_in_quantifier_may_use_singletons(match: Run) -> None:
    got = match("(a WHERE a.id = 2)-[e WHERE e.since > a.score + 2019]->{1,2}(b)", "b.id AS b")
    assert got == rows((3,), (3,))


def test_lower_names_are_case_insensitive(match: Run) -> None:
    assert match("(A IS PERSON WHERE a.ID = 1)", "a.Name AS n") == rows(("alice",))


def test_lower_keeps_binds(match: Run) -> None:
    got = match("(a)-[IS knows]->(b) WHERE a.id = :node_id", "b.id AS b", node_id=2)
    assert got == rows((3,))


def test_lower_keeps_cte_join_and_order_by(db: sqlite3.Connection, graph: PropertyGraph) -> None:
    sql = """
        WITH wanted AS (SELECT :who AS name)
        SELECT t.b, w.name FROM GRAPH_TABLE (g MATCH (a)-[IS knows]->(b)
            COLUMNS (a.name AS a, b.id AS b)) AS t
        JOIN wanted w ON w.name = t.a
        ORDER BY t.b DESC
    """
    assert db.execute(lower(sql, graph), {"who": "bob"}).fetchall() == [(3, "bob")]


def test_lower_two_graph_tables_in_one_statement(run: Run) -> None:
    sql = """
        SELECT x.a, y.c FROM
          GRAPH_TABLE (g MATCH (a IS person) COLUMNS (a.id AS a)) x,
          GRAPH_TABLE (g MATCH (c IS company) COLUMNS (c.id AS c)) y
        WHERE x.a = 1
    """
    assert run(sql) == rows((1, 10))


def test_lower_impossible_pattern_returns_no_rows(match: Run) -> None:
    assert match("(a IS company)-[IS knows]->(b)", "a.id AS a") == Counter()


def test_lower_impossible_pattern_for_oracle_selects_from_dual(graph: PropertyGraph) -> None:
    sql = "SELECT * FROM GRAPH_TABLE (g MATCH (a IS company)-[IS knows]->(b) COLUMNS (a.id AS a))"
    assert "FROM dual WHERE 1 = 0" in lower(sql, graph, "oracle")


def test_lower_oracle_output_keeps_binds_and_parses(graph: PropertyGraph) -> None:
    sql = "SELECT * FROM GRAPH_TABLE (g MATCH (a)-[e]-(b) WHERE a.id = :id COLUMNS (b.id AS b)) t"
    lowered = lower(sql, graph, "oracle")
    assert ":id" in lowered
    assert " AS v1" not in lowered  # Oracle table aliases take no AS
    sqlglot.parse_one(lowered, read="oracle")


def test_lower_accepts_graphs_by_name(graph: PropertyGraph) -> None:
    sql = "SELECT * FROM GRAPH_TABLE (app.g MATCH (a IS company) COLUMNS (a.id AS a))"
    assert "FROM company" in lower(sql, {"g": graph})


def test_lower_is_deterministic(graph: PropertyGraph) -> None:
    sql = "SELECT * FROM GRAPH_TABLE (g MATCH (a)-[e]-{1,2}(b) COLUMNS (a.id AS a, b.id AS b))"
    assert lower(sql, graph) == lower(sql, graph)


def test_lower_without_graph_table_regenerates_the_statement(graph: PropertyGraph) -> None:
    assert lower("select 1 as x", graph) == "SELECT 1 AS x"


def test_lower_rejects_unknown_dialect(graph: PropertyGraph) -> None:
    with pytest.raises(InvalidArgumentError, match="dialect"):
        lower("SELECT 1", graph, "postgres")

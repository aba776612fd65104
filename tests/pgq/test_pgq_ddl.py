"""CREATE PROPERTY GRAPH parsing, one construct per test."""

from __future__ import annotations

import pytest

from graphmem.errors import GraphMemError, PgqSyntaxError
from graphmem.pgq import EdgeEnd, Properties, parse_property_graph

MINIMAL = "CREATE PROPERTY GRAPH g VERTEX TABLES (person KEY (id))"
TWO_TABLES = """
CREATE PROPERTY GRAPH g
  VERTEX TABLES (person KEY (id), city KEY (code))
  EDGE TABLES (
    lives_in KEY (lid)
      SOURCE KEY (person_id) REFERENCES person (id)
      DESTINATION KEY (city_code) REFERENCES city
  )
"""


def test_ddl_minimal_defaults_label_to_table_name() -> None:
    graph = parse_property_graph(MINIMAL)
    vertex = graph.vertex_tables[0]
    assert (graph.name, vertex.alias, vertex.table, vertex.key) == (
        "g",
        "person",
        "person",
        ("id",),
    )
    assert vertex.labels == {"person": Properties(all_columns=True)}


def test_ddl_alias_names_the_default_label() -> None:
    graph = parse_property_graph("CREATE PROPERTY GRAPH g VERTEX TABLES (app.people AS person)")
    vertex = graph.vertex_tables[0]
    assert (vertex.table, vertex.alias, list(vertex.labels)) == ("app.people", "person", ["person"])


def test_ddl_or_replace_and_if_not_exists_are_recorded() -> None:
    graph = parse_property_graph(
        "CREATE OR REPLACE PROPERTY GRAPH IF NOT EXISTS s.g VERTEX TABLES (t KEY (id))"
    )
    assert (graph.name, graph.or_replace, graph.if_not_exists) == ("s.g", True, True)


def test_ddl_property_list_with_rename() -> None:
    graph = parse_property_graph(
        "CREATE PROPERTY GRAPH g VERTEX TABLES "
        "(person KEY (id) LABEL person PROPERTIES (id, birthdate AS dob))"
    )
    properties = graph.vertex_tables[0].labels["person"]
    assert properties.columns == (("id", "id"), ("dob", "birthdate"))
    assert properties.column_for("DOB") == "birthdate"


def test_ddl_all_columns_except() -> None:
    graph = parse_property_graph(
        "CREATE PROPERTY GRAPH g VERTEX TABLES "
        "(person KEY (id) PROPERTIES ARE ALL COLUMNS EXCEPT (secret))"
    )
    properties = graph.vertex_tables[0].labels["person"]
    assert (properties.column_for("name"), properties.column_for("secret")) == ("name", None)


def test_ddl_no_properties() -> None:
    graph = parse_property_graph(
        "CREATE PROPERTY GRAPH g VERTEX TABLES (person KEY (id) LABEL p NO PROPERTIES)"
    )
    assert graph.vertex_tables[0].labels == {"p": Properties()}


def test_ddl_several_labels_on_one_table() -> None:
    graph = parse_property_graph(
        "CREATE PROPERTY GRAPH g VERTEX TABLES (person KEY (id) "
        "LABEL person PROPERTIES (id) LABEL agent PROPERTIES (name) LABEL entity)"
    )
    vertex = graph.vertex_tables[0]
    assert list(vertex.labels) == ["person", "agent", "entity"]
    assert vertex.labels["entity"].all_columns


def test_ddl_edge_ends_reference_vertex_aliases() -> None:
    edge = parse_property_graph(TWO_TABLES).edge_tables[0]
    assert edge.source == EdgeEnd(("person_id",), "person", ("id",))


def test_ddl_edge_end_defaults_to_vertex_key() -> None:
    edge = parse_property_graph(TWO_TABLES).edge_tables[0]
    assert edge.destination == EdgeEnd(("city_code",), "city", ("code",))


def test_ddl_composite_keys() -> None:
    graph = parse_property_graph(
        "CREATE PROPERTY GRAPH g VERTEX TABLES (acct KEY (a, b)) EDGE TABLES "
        "(t KEY (tid) SOURCE KEY (sa, sb) REFERENCES acct (a, b) "
        "DESTINATION KEY (da, db) REFERENCES acct (a, b))"
    )
    assert graph.edge_tables[0].destination.key == ("da", "db")


def test_ddl_options_are_recorded() -> None:
    graph = parse_property_graph(
        MINIMAL + " OPTIONS (TRUSTED MODE, DISALLOW MIXED PROPERTY TYPES);"
    )
    assert graph.options == ("TRUSTED MODE", "DISALLOW MIXED PROPERTY TYPES")


def test_ddl_quoted_identifiers_keep_their_quotes() -> None:
    graph = parse_property_graph('CREATE PROPERTY GRAPH g VERTEX TABLES ("People" KEY ("Id"))')
    vertex = graph.vertex_tables[0]
    assert (vertex.table, vertex.key) == ('"People"', ('"Id"',))


def test_ddl_error_is_a_graphmem_value_error() -> None:
    with pytest.raises(PgqSyntaxError) as info:
        parse_property_graph("CREATE GRAPH g")
    assert isinstance(info.value, GraphMemError)
    assert isinstance(info.value, ValueError)


def test_ddl_error_unknown_referenced_vertex_position() -> None:
    ddl = (
        "CREATE PROPERTY GRAPH g\n"
        "  VERTEX TABLES (person KEY (id))\n"
        "  EDGE TABLES (knows KEY (kid)\n"
        "    SOURCE KEY (a) REFERENCES persn (id)\n"
        "    DESTINATION KEY (b) REFERENCES person (id))"
    )
    with pytest.raises(PgqSyntaxError, match="REFERENCES names no vertex") as info:
        parse_property_graph(ddl)
    assert (info.value.line, info.value.column) == (4, 31)


def test_ddl_error_missing_source_key_position() -> None:
    ddl = "CREATE PROPERTY GRAPH g VERTEX TABLES (v KEY (id))\nEDGE TABLES (e KEY (id) LABEL x)"
    with pytest.raises(PgqSyntaxError, match="SOURCE KEY") as info:
        parse_property_graph(ddl)
    assert (info.value.line, info.value.column) == (2, 25)


def test_ddl_error_duplicate_alias_position() -> None:
    with pytest.raises(PgqSyntaxError, match="duplicate element table alias") as info:
        parse_property_graph("CREATE PROPERTY GRAPH g VERTEX TABLES (a KEY (id), b AS a KEY (id))")
    assert (info.value.line, info.value.column) == (1, 52)


def test_ddl_error_key_arity_mismatch() -> None:
    with pytest.raises(PgqSyntaxError, match="edge key has 2 columns"):
        parse_property_graph(
            "CREATE PROPERTY GRAPH g VERTEX TABLES (v KEY (id)) EDGE TABLES "
            "(e KEY (id) SOURCE KEY (a, b) REFERENCES v DESTINATION KEY (c) REFERENCES v)"
        )


def test_ddl_error_property_expression_is_rejected() -> None:
    with pytest.raises(PgqSyntaxError, match="only plain columns"):
        parse_property_graph(
            "CREATE PROPERTY GRAPH g VERTEX TABLES (v KEY (id) PROPERTIES (salary * 12 AS y))"
        )


def test_ddl_error_trailing_text() -> None:
    with pytest.raises(PgqSyntaxError, match="unexpected text") as info:
        parse_property_graph(MINIMAL + " garbage")
    assert (info.value.line, info.value.column) == (1, len(MINIMAL) + 2)

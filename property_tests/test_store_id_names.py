"""Two stores never share an object name, on SQLite or Oracle, whatever their ids."""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

from graphmem.errors import InvalidArgumentError
from graphmem.sqlfiles import load_script, validate_identifier

_CREATED = re.compile(
    r"(?:CREATE\s+(?:OR\s+REPLACE\s+)?(?:GLOBAL\s+TEMPORARY\s+|TEMP\s+)?"
    r"(?:TABLE|INDEX|TRIGGER|PROPERTY\s+GRAPH)\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:temp\.)?"
    r"|CONSTRAINT\s+)(\w+)",
    re.IGNORECASE,
)
_SCRIPTS = (("sqlite", "install"), ("sqlite", "session"), ("oracle", "install"))

_SHAPE = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,29}", fullmatch=True)
_TRICKY = st.sampled_from(
    [
        "a",
        "A",
        "a_memory",
        "a_link",
        "a_memory_meta",
        "memory",
        "meta",
        "graphmem",
        "GraphMem",
        "graphmem_memory",
        "link_memory",
        "x_link_target",
    ]
)


def _accepted(store_id: str) -> bool:
    try:
        validate_identifier("memory_store_id", store_id)
    except InvalidArgumentError:
        return False
    return True


_IDS = (_SHAPE | _TRICKY).filter(_accepted)


def object_names(store_id: str) -> set[str]:
    """Every table, index, trigger, constraint and graph a store creates (lower case,
    as both SQLite and unquoted Oracle names compare)."""
    names: set[str] = set()
    for dialect, script in _SCRIPTS:
        text = re.sub(r"--[^\n]*", "", load_script(dialect, script, store_id))
        names |= {n.lower() for n in _CREATED.findall(text)}
    return names


def test_object_names_found_for_the_default_store() -> None:
    names = object_names("graphmem")
    assert {"graphmem_meta", "graphmem_memory_meta", "graphmem_link_recheck"} <= names
    assert {"graphmem_link_validity", "graphmem_memory_meta_pk", "graphmem_graph"} <= names
    assert len(names) > 50


@given(_IDS, _IDS)
@example("a", "a_memory")  # a_memory_meta: a's metadata table, a_memory's meta table
@example("A_MEMORY", "a")
def test_store_object_names_never_collide(one: str, two: str) -> None:
    if one.lower() == two.lower():
        assert object_names(one) == object_names(two)  # one store, whatever the case
    else:
        assert object_names(one).isdisjoint(object_names(two))


@given(_SHAPE)
def test_store_id_rejected_exactly_when_it_could_collide(store_id: str) -> None:
    assert _accepted(store_id) == ("__" not in store_id and not store_id.endswith("_"))

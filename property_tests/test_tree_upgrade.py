"""Linked-context trees equal the reference model's on random graphs, on a store
created at today's schema and on the same graph in a file made at an older schema
version that opening upgrades: 3 (before the vector log), 4 (before the node
numbers and the adjacency table the traversal walks since version 5), 5
(before the vector log's rebuild and the adjacency trigger of version 6), 6
(before the link write triggers and the keyword documents numbered by user of
version 7), 7 (before the link numbers that the traversal reads its links back
by, version 8) and 8 (before the neighbour's filter columns in the adjacency rows
that the traversal levels test, version 9)."""

import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem import GraphMemory
from graphmem.stores.sqlite_schema import SCHEMA_VERSION
from graphmem.testing.model import ManualClock
from graphmem.testing.shape import expected_tree_rows, flatten_result
from graphmem.testing.strategies import GraphSpec, SearchArgs, graphs, load_graph, search_args

_DATA = Path(__file__).parents[1] / "tests" / "data"
INSTALL = {
    v: (_DATA / f"sqlite_install_v{v}.sql").read_text("utf-8")
    for v in ("3", "4", "5", "6", "7", "8")
}
_TABLES = ("memory", "memory_meta", "link")


def _copy_to_old(source: Path, target: Path, version: str) -> None:
    """The rows of ``source`` written into a new file made by an older version's script."""
    conn = sqlite3.connect(target)
    conn.executescript(INSTALL[version])
    conn.execute("ATTACH DATABASE ? AS src", (str(source),))
    for table in _TABLES:
        cols = [r[1] for r in conn.execute(f"PRAGMA main.table_info(graphmem_{table})")]
        names = ", ".join(cols)
        if table == "memory":  # status is derived: the link triggers write it again
            picked = ", ".join("'valid'" if c == "status" else c for c in cols)
        else:
            picked = names
        conn.execute(
            f"INSERT INTO main.graphmem_{table} ({names}) SELECT {picked} FROM src.graphmem_{table}"
        )
    conn.commit()
    conn.execute("DETACH DATABASE src")
    assert conn.execute(
        "SELECT meta_value FROM graphmem_meta WHERE meta_key = 'schema_version'"
    ).fetchone() == (version,)
    conn.close()


def _trees(memory: GraphMemory, args: SearchArgs, num_hops: int, cap: int | None) -> dict:
    results = memory.search(
        "pizza",
        **args.kwargs(),
        max_results=100,
        num_hops=num_hops,
        max_linked_results=cap,
        include_invalid_results=True,
    )
    return {r.id: flatten_result(r) for r in results}


@pytest.mark.parametrize("version", sorted(INSTALL))
@settings(max_examples=40, deadline=None)
@given(
    spec=graphs(),
    args=search_args(),
    num_hops=st.integers(1, 5),
    cap=st.none() | st.integers(1, 6),
)
def test_tree_equals_model_before_and_after_upgrade(
    version: str, spec: GraphSpec, args: SearchArgs, num_hops: int, cap: int | None
) -> None:
    clock = ManualClock()
    with tempfile.TemporaryDirectory() as tmp:
        fresh, old = Path(tmp) / "fresh.db", Path(tmp) / f"v{version}.db"
        with GraphMemory(fresh, clock=clock) as memory:
            model = load_graph(memory, clock, spec)
            filters = args.model_filters(clock)
            before = _trees(memory, args, num_hops, cap)
        for root, rows in before.items():
            assert rows == expected_tree_rows(
                model, root, model.tree(root, filters, num_hops, cap)
            ), root
        _copy_to_old(fresh, old, version)
        with GraphMemory(old, clock=clock) as memory:
            after = _trees(memory, args, num_hops, cap)
        assert after == before
        conn = sqlite3.connect(old)
        stored = conn.execute(
            "SELECT meta_value FROM graphmem_meta WHERE meta_key = 'schema_version'"
        ).fetchone()
        conn.close()
        assert stored == (SCHEMA_VERSION,)

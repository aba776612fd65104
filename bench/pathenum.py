"""The reference system's linked-context query: path enumeration in one statement.

The SDK of the reference system builds the tree of docs/semantics.md section 3 with plain SQL
(its "runtime builder"): a CTE ``roots``, a CTE ``graph_edges`` holding every
link in both directions, then, for each depth ``d = 1..H``, one SELECT branch
that chains ``d`` copies of ``graph_edges`` from the root, requiring every
child to differ from the root and from every earlier child (vertex-simple
paths) and to pass the search filters. The branches are glued with UNION ALL
into ``traversal``; ``shortest_paths`` keeps, per ``(root, record)``, the row
of rank 1 by ``(depth, relation_created_at, relation_id, parent_id)`` and
``selected`` keeps, per root, the first ``cap`` by ``(depth,
relation_created_at, relation_id, record_id)``.

:func:`pathenum_sql` writes that statement for SQLite; only the per-depth
unrolling is structural, every value is bound (``:roots`` as a JSON array,
``:now``, ``:cap``). The benchmark applies no scope filters, only the expiry
check each child memory gets in the reference system.

``graph_edges`` is declared ``NOT MATERIALIZED``. Without the hint SQLite 3.40
materializes the UNION ALL (every link twice) and scans it in each branch,
because it cannot push a join key into a compound subquery: 13 s for 2 hops
from 3 roots at 100k memories instead of 0.3 s, which would measure that
planner limit rather than path enumeration. With the hint it distributes the
view into one sub-branch per direction combination, each step read from the
covering ``*_walk_ix`` link indexes, so every path costs index lookups only.
The joins of a branch are written ``CROSS JOIN``, which in SQLite fixes the
join order to the chain root -> edge 1 -> child 1 -> ...: the planner does not
know that ``roots`` holds a handful of rows and, at 10k memories, otherwise
starts the 2- and 3-hop branches with a scan of every memory (0.63 s instead of
0.03 s for 2 hops from 10 roots). Neither hint changes the rows.

The work is one row per simple path of length <= H from a root, not one per
reached memory, so it grows with the number of paths (roughly degree^H).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from typing import Any

__all__ = ["PathenumTimeout", "pathenum_binds", "pathenum_rows", "pathenum_sql"]


class PathenumTimeout(Exception):
    """The query was interrupted after its time budget."""


def _branch(depth: int, prefix: str) -> str:
    """The SELECT of all vertex-simple paths of exactly ``depth`` edges from a root."""
    joins = ["FROM roots r"]
    where: list[str] = []
    previous = "r.root_id"
    for k in range(1, depth + 1):
        joins.append(f"CROSS JOIN graph_edges e{k} ON e{k}.from_id = {previous}")
        joins.append(f"CROSS JOIN {prefix}_memory c{k} ON c{k}.record_id = e{k}.to_id")
        where.append(f"c{k}.record_id <> r.root_id")
        where.extend(f"c{k}.record_id <> c{j}.record_id" for j in range(1, k))
        where.append(f"(c{k}.expires_at IS NULL OR c{k}.expires_at > :now)")
        previous = f"c{k}.record_id"
    parent = "r.root_id" if depth == 1 else f"c{depth - 1}.record_id"
    return (
        f"    SELECT r.root_id, c{depth}.record_id, {parent}, {depth}, "
        f"e{depth}.relation_id, e{depth}.created_at\n    "
        + "\n    ".join(joins)
        + "\n    WHERE "
        + "\n      AND ".join(where)
    )


def pathenum_sql(num_hops: int, capped: bool, prefix: str = "graphmem") -> str:
    """One statement for ``num_hops`` in 1..5; ``capped`` adds ``link_rank <= :cap``.

    Rows: ``(root_id, link_rank, record_id, parent_id, relation_id, depth,
    source_id, target_id, relation_type)`` ordered by root and rank (rank from 1).
    """
    if not 1 <= num_hops <= 5:
        raise ValueError("num_hops must be in 1..5")
    branches = "\n    UNION ALL\n".join(_branch(d, prefix) for d in range(1, num_hops + 1))
    cap = "\nWHERE s.link_rank <= :cap" if capped else ""
    return f"""WITH
roots (root_id) AS (
    SELECT DISTINCT value FROM json_each(:roots)
),
graph_edges (from_id, to_id, relation_id, created_at) AS NOT MATERIALIZED (
    SELECT source_id, target_id, relation_id, created_at FROM {prefix}_link
    UNION ALL
    SELECT target_id, source_id, relation_id, created_at FROM {prefix}_link
),
traversal (root_id, record_id, parent_id, depth, relation_id, relation_created_at) AS (
{branches}
),
shortest_paths AS (
    SELECT t.*, ROW_NUMBER() OVER (
        PARTITION BY t.root_id, t.record_id
        ORDER BY t.depth, t.relation_created_at, t.relation_id, t.parent_id
    ) AS path_rank
    FROM traversal t
),
selected AS (
    SELECT p.*, ROW_NUMBER() OVER (
        PARTITION BY p.root_id
        ORDER BY p.depth, p.relation_created_at, p.relation_id, p.record_id
    ) AS link_rank
    FROM shortest_paths p
    WHERE p.path_rank = 1
)
SELECT s.root_id, s.link_rank, s.record_id, s.parent_id, s.relation_id, s.depth,
       l.source_id, l.target_id, l.relation_type
FROM selected s
JOIN {prefix}_link l ON l.relation_id = s.relation_id{cap}
ORDER BY s.root_id, s.link_rank"""


def pathenum_binds(roots: Sequence[str], now: str, cap: int | None) -> dict[str, Any]:
    binds: dict[str, Any] = {"roots": json.dumps(list(roots)), "now": now}
    if cap is not None:
        binds["cap"] = cap
    return binds


def pathenum_rows(
    conn: sqlite3.Connection,
    roots: Sequence[str],
    now: str,
    num_hops: int,
    cap: int | None,
    timeout_s: float | None = None,
    prefix: str = "graphmem",
) -> list[tuple[str, int, str, str, str, int]]:
    """``(root, order, node, parent, relation_id, depth)`` rows, order from 0.

    With ``timeout_s``, a timer thread calls ``conn.interrupt()`` after that many
    seconds and :class:`PathenumTimeout` is raised instead of the rows.
    """
    sql = pathenum_sql(num_hops, cap is not None, prefix)
    binds = pathenum_binds(roots, now, cap)
    timer = None
    if timeout_s is not None:
        timer = threading.Timer(timeout_s, conn.interrupt)
        timer.daemon = True
        timer.start()
    try:
        rows = conn.execute(sql, binds).fetchall()
    except sqlite3.OperationalError as exc:
        if "interrupt" in str(exc):
            raise PathenumTimeout(f"interrupted after {timeout_s} s") from exc
        raise
    finally:
        if timer is not None:
            timer.cancel()
    return [(r[0], int(r[1]) - 1, r[2], r[3], r[4], int(r[5])) for r in rows]

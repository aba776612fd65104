"""The package's layering, read from the source: no import cycles, pure core,
drivers only in stores, sqlglot only in pgq."""

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1] / "graphmem"


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _runtime_imports(path: Path) -> set[str]:
    """Modules imported when ``path`` runs (``if TYPE_CHECKING:`` blocks left out)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for stmt in block.body
        for node in ast.walk(stmt)
    }
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return found


def _graph() -> dict[str, set[str]]:
    return {_module(p): _runtime_imports(p) for p in ROOT.rglob("*.py")}


def test_layering_no_import_cycle() -> None:
    graph = _graph()
    edges = nx.DiGraph(
        (module, target)
        for module, targets in graph.items()
        for target in targets
        if target in graph
    )
    # A package's __init__ importing its own submodules is not a cycle of concern.
    edges.remove_edges_from([(a, b) for a, b in list(edges.edges) if b.startswith(a + ".")])
    assert list(nx.simple_cycles(edges)) == []


def test_layering_core_is_pure() -> None:
    for module, targets in _graph().items():
        if module.startswith("graphmem.core"):
            bad = {
                t
                for t in targets
                if t.startswith(("graphmem.stores", "sqlite3", "oracledb", "sqlglot"))
            }
            assert not bad, (module, bad)


# The DBA state machine plays a DBA at a plain sqlite3 prompt: that is its point.
_DRIVER_USERS_OUTSIDE_STORES = {"graphmem.testing.machine_dba"}


def test_layering_only_stores_use_drivers_and_only_pgq_uses_sqlglot() -> None:
    for module, targets in _graph().items():
        if any(t.split(".")[0] in ("sqlite3", "oracledb") for t in targets):
            assert module.startswith("graphmem.stores") or (
                module in _DRIVER_USERS_OUTSIDE_STORES
            ), module
        if any(t.split(".")[0] == "sqlglot" for t in targets):
            assert module.startswith("graphmem.pgq"), module

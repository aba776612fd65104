"""The ``graphmem`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from graphmem.core.validation import validate_identifier
from graphmem.errors import GraphMemError
from graphmem.sqlfiles import DEFAULT_PREFIX, load_script

__all__ = ["main"]

_DEMO_HELP = """\
Run the linked-memory demo on the embedded store: three pizza preferences,
supersedes and refines links, a link edit and two deletes, the links recreated,
then a 2-hop search whose tree is printed as prompt text.

Example:
  graphmem demo
  graphmem demo --db memories.db
"""

_SQL_HELP = """\
Print the install DDL of a dialect, with the table prefix applied, so that a DBA
can apply it without Python.

Example:
  graphmem sql --dialect sqlite | sqlite3 memories.db
  graphmem sql --dialect sqlite --prefix T_GRAPH_MEMORY --uninstall
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="graphmem", description="graphmem: a graph memory engine for AI agents."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser(
        "demo",
        help="run the linked-memory demo",
        description=_DEMO_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    demo.add_argument("--db", default=":memory:", help="SQLite file (default: in memory)")
    sql = sub.add_parser(
        "sql",
        help="print the install DDL",
        description=_SQL_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sql.add_argument("--dialect", choices=["sqlite", "oracle"], required=True)
    sql.add_argument("--prefix", default=DEFAULT_PREFIX, help="memory_store_id (table prefix)")
    sql.add_argument("--uninstall", action="store_true", help="print the uninstall script")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (errors print one line, no traceback)."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "demo":
            from graphmem.demo import run_demo

            run_demo(args.db)
        else:
            prefix = validate_identifier("--prefix", args.prefix)
            script = "uninstall" if args.uninstall else "install"
            sys.stdout.write(load_script(args.dialect, script, prefix))
    except GraphMemError as exc:
        print(f"graphmem: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # the reader (e.g. `head`) went away: not an error
        sys.stderr.close()
        return 0
    except FileNotFoundError as exc:
        print(f"graphmem: error: {exc.filename} is not available", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

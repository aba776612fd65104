"""The demo and the DBA's install script."""

from __future__ import annotations

import shlex
import sys

import click

from graphmem.sqlfiles import DEFAULT_PREFIX, load_script, validate_identifier

__all__ = ["demo", "sql"]


@click.command()
@click.option("--db", default=":memory:", show_default=True, help="SQLite file.")
def demo(db: str) -> None:
    """Run the linked-memory demo on the embedded store: three pizza preferences,
    supersedes and refines links, a link edit and two deletes, the links recreated,
    then a 2-hop search whose tree is printed as prompt text.

    With --db FILE the demo is kept in FILE, in the store T_GRAPH_MEMORY; standard
    error then says how to look at it (graphmem list --db FILE --store T_GRAPH_MEMORY).

    \b
    Example:
      graphmem demo
      graphmem demo --db memories.db
    """
    from graphmem.demo import STORE, run_demo

    run_demo(db)
    if db not in ("", ":memory:"):
        where = shlex.quote(db)
        click.echo(
            f"kept in {db} (store {STORE}): graphmem list --db {where} --store {STORE}", err=True
        )


@click.command()
@click.option("--dialect", type=click.Choice(["sqlite", "oracle"]), required=True)
@click.option(
    "--prefix", default=DEFAULT_PREFIX, show_default=True, help="memory_store_id (table prefix)."
)
@click.option("--uninstall", is_flag=True, help="Print the uninstall script.")
def sql(dialect: str, prefix: str, uninstall: bool) -> None:
    """Print the install DDL of a dialect, with the table prefix applied, so that a
    DBA can apply it without Python.

    \b
    Example:
      graphmem sql --dialect sqlite | sqlite3 memories.db
      graphmem sql --dialect sqlite --prefix T_GRAPH_MEMORY --uninstall
    """
    name = validate_identifier("--prefix", prefix)
    sys.stdout.write(load_script(dialect, "uninstall" if uninstall else "install", name))

"""The ``graphmem`` command group and the exit-status contract."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import click

from graphmem import __version__
from graphmem.cli import admin, graph, links, records, service, transfer
from graphmem.errors import GraphMemError, InvalidArgumentError

__all__ = ["cli", "main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(
    __version__, "--version", prog_name="graphmem", message="%(prog)s %(version)s"
)
def cli() -> None:
    """graphmem: a graph memory engine for AI agents.

    Every data verb takes --db (a SQLite file or an Oracle DSN; env GRAPHMEM_DB),
    --store (the table prefix; env GRAPHMEM_STORE), the store's embedder
    (--embedder-model, --embedder-api-base, --embedder-api-key; env
    GRAPHMEM_EMBEDDER_MODEL, _API_BASE, _API_KEY; default: the offline one), and
    --json for scripts.
    Exit status: 0 success; 1 graphmem refused or failed (including an option
    value the library refuses, such as --ttl-days -1); 2 usage error: the command
    line could not be read (unknown option, missing argument, a value of the wrong
    form); 130 interrupted.
    """


for _command in (
    records.add,
    records.get,
    records.list_,
    records.update,
    records.delete,
    links.link,
    links.unlink,
    links.links,
    graph.search,
    graph.tree,
    graph.why,
    graph.stats,
    transfer.export,
    transfer.import_,
    admin.demo,
    admin.sql,
    service.serve,
    service.keys,
):
    cli.add_command(_command)


_FLAGS = {
    "agent_id": "--agent",
    "if_exists": "--if-exists",
    "limit": "--limit",
    "max_linked_results": "--cap",
    "max_results": "--max-results",
    "memory_store_id": "--store",
    "memory_type": "--type",
    "metadata": "--metadata",
    "metadata_filter": "--where",
    "num_hops": "--hops",
    "offset": "--offset",
    "opposite_relation_type": "--opposite",
    "record_types": "--type",
    "thread_id": "--thread",
    "timestamp": "--timestamp",
    "ttl_days": "--ttl-days",
    "user_id": "--user",
}
"""The library's argument names that carry the same option in every verb, and the
option: a refused value is reported under the option the user typed. An argument
whose option differs between verbs (``memory_id``: ``add --id``, ``get MEMORY_ID``)
is named by the verb itself (:func:`graphmem.cli._common.refused_as`)."""


def _refused(exc: InvalidArgumentError) -> str:
    flag = _FLAGS.get(exc.argument)
    return str(exc) if flag is None else f"{flag}: {exc.detail}"


def _fail(message: str) -> int:
    click.echo(f"graphmem: error: {message}", err=True)
    return 1


def _invoke(args: list[str]) -> object:
    """Parse and run one command line. Not ``cli.main``: that turns a broken pipe
    into ``sys.exit(1)`` before :func:`main` could see it."""
    try:
        with cli.make_context("graphmem", args) as ctx:
            return cli.invoke(ctx)
    except click.exceptions.Exit as exc:  # --help, --version
        return exc.exit_code


def _silence_stdout() -> None:
    """Point standard output at the null device, so that the interpreter's last
    flush of what is still buffered for the departed reader fails no more."""
    try:
        fd = sys.stdout.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
    except (AttributeError, OSError, ValueError):  # not a file (captured output)
        return
    os.dup2(null, fd)
    os.close(null)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (errors print one line, no traceback)."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        status = _invoke(args)
    except click.UsageError as exc:
        exc.show()
        return 2
    except click.ClickException as exc:
        return _fail(exc.format_message())
    except (click.Abort, KeyboardInterrupt, EOFError):
        click.echo("graphmem: interrupted", err=True)
        return 130
    except InvalidArgumentError as exc:
        return _fail(_refused(exc))
    except GraphMemError as exc:
        return _fail(str(exc))
    except BrokenPipeError:  # the reader (e.g. `head`) went away: not an error
        _silence_stdout()
        return 0
    except OSError as exc:
        name = exc.filename if exc.filename is not None else ""
        return _fail(f"{name}: {exc.strerror or exc}" if name else str(exc))
    return status if isinstance(status, int) else 0

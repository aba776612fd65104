"""Verbs that move data: export, import."""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import IO, Any

import click

from graphmem.cli._common import emit, json_option, refused_as
from graphmem.cli._store import UserError, is_dsn, open_memory, store_options
from graphmem.core.graph_formats import dot, graphml, mermaid
from graphmem.core.jsonl import link_line, memory_line
from graphmem.core.tree import MAX_HOPS
from graphmem.core.validation import MAX_COUNT
from graphmem.explore import links_among
from graphmem.memory import GraphMemory
from graphmem.transfer import ImportLineError, ImportReport, ImportStoreError

__all__ = ["export", "import_"]


def _refuse_store_output(output: str, db: str) -> None:
    """A usage error when ``-o`` names the store's own file (or a file SQLite keeps
    beside it): the export would overwrite what it reads."""
    if is_dsn(db):
        return
    for suffix in ("", "-wal", "-shm", "-journal"):
        # SQLite makes the files beside it while the store is open: by name too
        same_name = os.path.abspath(output) == os.path.abspath(db + suffix)
        if same_name or (
            os.path.exists(output)
            and os.path.exists(db + suffix)
            and os.path.samefile(output, db + suffix)
        ):
            raise click.BadParameter(
                f"{output!r} is the store's {'file' if not suffix else suffix + ' file'}: "
                "the export would overwrite the store; write to another file",
                param_hint="'-o' / '--output'",
            )


@contextmanager
def _output(path: str | None) -> Iterator[IO[str]]:
    """Standard output, or ``path``. A regular file is written under a temporary
    name in its directory and renamed over ``path`` only once the export is whole:
    a failed export leaves an earlier file of that name as it was."""
    if path is None or path == "-":
        if sys.stdout is None:
            raise UserError("standard output is closed: give -o FILE")
        yield sys.stdout
        return
    target = os.path.realpath(path)
    if os.path.exists(target) and not os.path.isfile(target):  # a device, a pipe
        with open(target, "w", encoding="utf-8") as stream:
            yield stream
        return
    try:
        fd, temporary = tempfile.mkstemp(
            prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=os.path.dirname(target)
        )
    except OSError as exc:
        raise UserError(f"-o: cannot write {path!r}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            yield stream
        os.chmod(temporary, _mode(target))
        os.replace(temporary, target)
    except BaseException:
        with suppress(FileNotFoundError):
            os.remove(temporary)
        raise


def _mode(target: str) -> int:
    """The permissions ``target`` keeps, or those a new file gets (0o666 less umask)."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _write(
    memory: GraphMemory,
    fmt: str,
    roots: tuple[str, ...],
    hops: int,
    out: IO[str],
    extras: tuple[bool, bool] = (True, True),
) -> None:
    if not roots and fmt == "jsonl":
        memory.export_jsonl(out, threads=extras[0], prompts=extras[1])
        return
    if roots:
        records, links = memory.subgraph(list(roots), hops)
    else:
        records = memory.list_memories(limit=MAX_COUNT)
        links = links_among(records, memory.list_record_links())
    if fmt == "jsonl":
        out.writelines(line + "\n" for line in map(memory_line, records))
        out.writelines(line + "\n" for line in map(link_line, links))
    elif fmt == "graphml":
        out.writelines(graphml(records, links))
    else:
        out.write((mermaid if fmt == "mermaid" else dot)(records, links) + "\n")


@click.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "graphml", "mermaid", "dot"]),
    default="jsonl",
    show_default=True,
)
@click.option(
    "--root",
    "roots",
    multiple=True,
    metavar="ID",
    help="Export only the subgraph around these memories (repeatable).",
)
@click.option(
    "--hops",
    type=click.IntRange(0, MAX_HOPS),
    default=1,
    show_default=True,
    help="With --root: how far around them.",
)
@click.option(
    "--threads/--no-threads",
    default=True,
    show_default=True,
    help="JSON Lines of the whole store: include users, agents, threads and messages.",
)
@click.option(
    "--prompts/--no-prompts",
    default=True,
    show_default=True,
    help="JSON Lines of the whole store: include the prompt registry.",
)
@click.option("-o", "--output", metavar="FILE", help="Write here instead of standard output.")
@store_options
@refused_as(memory_ids="--root")
def export(
    db: str,
    store: str | None,
    fmt: str,
    roots: tuple[str, ...],
    hops: int,
    threads: bool,
    prompts: bool,
    output: str | None,
) -> None:
    """Export the store: JSON Lines (for import), GraphML, or a Mermaid / DOT
    drawing of a subgraph.

    JSON Lines of the whole store holds users, agents, threads and their
    messages, memories, links and the prompt registry, each line after the
    lines it needs; with --root, only the subgraph's memories and links.
    GraphML and the drawings hold memories and links, expired memories left
    out; JSON Lines keeps an expired memory that a link touches, with its links
    (the copy then answers as the store does). Expired messages are not exported.

    \b
    Example:
      graphmem export --db memories.db -o backup.jsonl
      graphmem export --db memories.db --format mermaid --root pizza-sourdough --hops 2
    """
    if output is not None and output != "-":
        _refuse_store_output(output, db)
    with open_memory(db, store) as memory, _output(output) as out:
        _write(memory, fmt, roots, hops, out, (threads, prompts))


class _Progress:
    """Tracks an import for the progress bar and for the message after a stop."""

    def __init__(self, bar: Any) -> None:
        self.bar = bar
        self.done = 0
        self.report = ImportReport()

    def __call__(self, done: int, report: ImportReport) -> None:
        if self.bar is not None:
            self.bar.update(done - self.done)
        self.done = done
        self.report = report


def _summary(report: ImportReport) -> str:
    others = ", ".join(
        f"{getattr(report, name)} {name}"
        for name in ("threads", "messages", "users", "agents", "prompts")
        if getattr(report, name)
    )
    return (
        f"imported {report.memories} memories and {report.links} links"
        + (f" (and {others})" if others else "")
        + f" ({report.skipped} already stored, {report.expired} expired)"
    )


def _stored(report: ImportReport) -> str:
    """What a stopped import left stored: the lines up to the last committed batch."""
    if not report.committed_line:
        return "no lines were stored"
    return f"lines up to {report.committed_line} are stored ({_summary(report)})"


@click.command("import")
@click.argument("source", type=click.Path(dir_okay=False, allow_dash=True))
@click.option(
    "--batch-size",
    type=click.IntRange(1, MAX_COUNT),
    default=1000,
    show_default=True,
    help="Lines per transaction.",
)
@click.option(
    "--resume",
    is_flag=True,
    help="Skip what is already stored: memories, links, users, agents, threads, messages, prompts.",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Show a progress bar (default: when standard error is a terminal).",
)
@store_options
@json_option
def import_(
    db: str,
    store: str | None,
    as_json: bool,
    source: str,
    batch_size: int,
    resume: bool,
    progress: bool | None,
) -> None:
    """Import JSON Lines (as written by export: memories, links, and users,
    agents, threads, messages and prompts) in batches, one transaction each.

    A bad line stops the import with its line number; earlier batches stay
    stored. Fix the line and run again with --resume to continue; an
    interrupted import (Ctrl-C) continues the same way.

    \b
    Example:
      graphmem import --db memories.db backup.jsonl
      graphmem import --db memories.db backup.jsonl --resume
    """
    if source != "-" and not os.path.exists(source):
        raise UserError(f"SOURCE: no file {source!r}")
    if source == "-" and sys.stdin is None:
        raise UserError("SOURCE -: standard input is closed")
    stream = sys.stdin.buffer if source == "-" else open(source, "rb")  # noqa: SIM115
    size = None if source == "-" else os.path.getsize(source)
    show = sys.stderr.isatty() if progress is None else progress
    try:
        with open_memory(db, store, create=True) as memory:
            if show and size is not None:
                with click.progressbar(length=size, label="importing", file=sys.stderr) as bar:
                    tracker = _Progress(bar)
                    report = _run(memory, stream, batch_size, resume, tracker)
            else:
                tracker = _Progress(None)
                report = _run(memory, stream, batch_size, resume, tracker)
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    emit(as_json, vars(report), _summary(report))


def _run(
    memory: GraphMemory, stream: IO[bytes], batch_size: int, resume: bool, tracker: _Progress
) -> ImportReport:
    try:
        return memory.import_jsonl(stream, batch_size=batch_size, resume=resume, on_batch=tracker)
    except ImportLineError as exc:
        raise UserError(
            f"{exc}; {_stored(exc.report)}; fix the line and rerun with --resume"
        ) from None
    except ImportStoreError as exc:
        done = exc.report
        raise UserError(
            f"store error: {exc}; "
            + (
                f"{_stored(done)}; rerun with --resume to continue"
                if done.committed_line
                else "nothing was imported"
            )
        ) from None
    except KeyboardInterrupt:
        done = tracker.report
        click.echo(
            f"graphmem: interrupted; {_stored(done)}; rerun with --resume to continue", err=True
        )
        raise click.exceptions.Exit(130) from None

"""Export and import of memories and links as JSON Lines.

:class:`TransferOperations` is mixed into :class:`graphmem.GraphMemory`. The
format is described in :mod:`graphmem.core.jsonl`. An import streams its input:
it reads one batch of lines at a time and writes each batch in one transaction,
so memory use does not grow with the file, a bad line leaves every earlier
batch stored, and ``resume=True`` continues where a failed or interrupted run
stopped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from graphmem.core.jsonl import Expired, link_line, memory_line, parse_line
from graphmem.core.validation import MAX_COUNT, check_positive
from graphmem.errors import GraphMemError, InvalidArgumentError
from graphmem.memory_api import MemoryApi

__all__ = ["ImportLineError", "ImportReport", "TransferOperations"]

_LOOKUP = 5000
_INDEX = re.compile(r"^(memories|links)\[(\d+)\]")


@dataclass
class ImportReport:
    """What an import stored so far (also attached to :class:`ImportLineError`)."""

    memories: int = 0
    """Memories written."""
    links: int = 0
    """Links written."""
    skipped: int = 0
    """Lines whose id was already stored (``resume=True``)."""
    expired: int = 0
    """Memories whose ``expires_at`` had passed, not imported."""
    committed_line: int = 0
    """The last line of the last batch written; later lines were not stored."""


class ImportLineError(GraphMemError):
    """A line of an import cannot be stored; its batch was rolled back.

    Attributes:
        line: the 1-based line number.
        report: what earlier batches stored.
    """

    def __init__(self, line: int, message: str, report: ImportReport) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.report = report


@dataclass
class _Batch:
    memories: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    links: list[tuple[int, dict[str, Any]]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.memories) + len(self.links)


def _lines(source: IO[bytes]) -> Iterator[tuple[int, int, str]]:
    """``(line number, bytes read so far, text)`` of every non-blank line."""
    done = 0
    for number, raw in enumerate(source, start=1):
        done += len(raw)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidArgumentError(f"line {number}", f"is not UTF-8 ({exc.reason})") from None
        if text.strip():
            yield number, done, text


class TransferOperations:
    """Mixed into :class:`graphmem.GraphMemory`."""

    def export_jsonl(self: MemoryApi, out: IO[str]) -> tuple[int, int]:
        """Write every unexpired memory, then every link, one JSON object per line.

        Memories come oldest first, before the links that use them, so the file
        imports back with :meth:`import_jsonl`. Returns ``(memories, links)`` written.

        Example:
            >>> import io
            >>> from graphmem import GraphMemory
            >>> with GraphMemory() as memory:
            ...     _ = memory.add_memory("Likes tea.", memory_id="a")
            ...     buffer = io.StringIO()
            ...     memory.export_jsonl(buffer)
            (1, 0)
        """
        self._check_open()
        records = self.list_memories(limit=MAX_COUNT)
        for record in records:
            out.write(memory_line(record) + "\n")
        links = self.list_record_links()
        for link in links:
            out.write(link_line(link) + "\n")
        return len(records), len(links)

    def import_jsonl(
        self: MemoryApi,
        source: str | Path | IO[bytes],
        *,
        batch_size: int = 1000,
        resume: bool = False,
        on_batch: Callable[[int, ImportReport], None] | None = None,
    ) -> ImportReport:
        """Import JSON Lines written by :meth:`export_jsonl` (or by hand), in batches.

        Each batch of ``batch_size`` lines is one transaction. Memories must come
        before the links that use them (in the same or an earlier batch).

        Args:
            source: a file path, or a binary file object.
            batch_size: lines per transaction (>= 1).
            resume: skip memories and links whose id is already stored, so a run
                that stopped (bad line, interruption) continues; every line then
                needs its ``memory_id`` / ``relation_id``.
            on_batch: called after each batch with the bytes read and the report.

        Returns:
            The counts of what was written and skipped.

        Raises:
            ImportLineError: a line is malformed or cannot be stored (duplicate id
                without ``resume``, unknown link endpoint, bad value); the message
                names the line; that line's batch is not stored, earlier ones are.
        """
        self._check_open()
        size = check_positive("batch_size", batch_size)
        if isinstance(source, (str, Path)):
            with open(source, "rb") as stream:
                return _import(self, stream, size, resume, on_batch)
        return _import(self, source, size, resume, on_batch)


def _import(
    memory: MemoryApi,
    source: IO[bytes],
    size: int,
    resume: bool,
    on_batch: Callable[[int, ImportReport], None] | None,
) -> ImportReport:
    report = ImportReport()
    batch = _Batch()
    done = last = 0
    for number, done, text in _read(source, report):
        try:
            kind, item = parse_line(text, memory._clock())
        except Expired:
            report.expired += 1
            continue
        except GraphMemError as exc:
            raise ImportLineError(number, str(exc), report) from None
        (batch.memories if kind == "memory" else batch.links).append((number, item))
        last = number
        if len(batch) >= size:
            _flush(memory, batch, resume, report, last)
            batch = _Batch()
            if on_batch is not None:
                on_batch(done, report)
    if len(batch):
        _flush(memory, batch, resume, report, last)
    if on_batch is not None:
        on_batch(done, report)
    return report


def _read(source: IO[bytes], report: ImportReport) -> Iterator[tuple[int, int, str]]:
    try:
        yield from _lines(source)
    except InvalidArgumentError as exc:
        line = int(exc.argument.split()[-1])
        raise ImportLineError(line, str(exc).partition(": ")[2], report) from None


def _first_lines(
    items: Sequence[tuple[int, dict[str, Any]]], key: str, resume: bool, report: ImportReport
) -> dict[str, int]:
    """The line of each id of the batch; rejects an id given twice, and (``resume``)
    a line without an id."""
    first: dict[str, int] = {}
    for number, item in items:
        value = item.get(key)
        if value is None:
            if resume:
                raise ImportLineError(
                    number,
                    f"{key}: needed to resume (no id, no way to tell whether it was imported)",
                    report,
                )
            continue
        if not isinstance(value, str):
            continue  # the library names the bad value
        if value in first:
            raise ImportLineError(number, f"{key}: {value!r} repeats line {first[value]}", report)
        first[value] = number
    return first


def _lookup(ids: list[str], stored: Callable[[list[str]], Iterable[str]]) -> set[str]:
    present: set[str] = set()
    for start in range(0, len(ids), _LOOKUP):
        present.update(stored(ids[start : start + _LOOKUP]))
    return present


def _present(
    first: dict[str, int],
    key: str,
    stored: Callable[[list[str]], Iterable[str]],
    resume: bool,
    report: ImportReport,
) -> set[str]:
    """The ids of ``first`` already stored, to skip (``resume``); else an error naming
    the first line whose id is stored (``report``: what earlier batches stored)."""
    present = _lookup(list(first), stored)
    if present and not resume:
        number = min(first[i] for i in present)
        value = next(i for i in present if first[i] == number)
        raise ImportLineError(
            number, f"{key}: {value!r} already exists (--resume skips stored ids)", report
        )
    return present


def _flush(memory: MemoryApi, batch: _Batch, resume: bool, report: ImportReport, last: int) -> None:
    """Check, embed (outside any transaction), then write one batch in one transaction.

    Each id is looked up once, in the writing transaction; with ``resume``, memory
    ids are first looked up before embedding, so stored memories are not embedded
    again.
    """
    store = memory._store
    record_ids = _first_lines(batch.memories, "memory_id", resume, report)
    relation_ids = _first_lines(batch.links, "relation_id", resume, report)
    memories, links = batch.memories, batch.links
    skipped = 0
    if resume and record_ids:
        done = _present(record_ids, "memory_id", store.get_record_types, True, report)
        memories = [(n, item) for n, item in memories if item.get("memory_id") not in done]
        record_ids = {i: n for i, n in record_ids.items() if i not in done}
        skipped = len(done)
    try:
        new = memory._new_memories(item for _, item in memories)
        built = memory._new_links(item for _, item in links)
    except GraphMemError as exc:
        raise _located(exc, memories, links, report) from None
    vectors = memory._embed([m.content for m in new]) if new else None
    try:
        with store.transaction():
            skip: set[str] = set()
            if vectors is not None:
                memory._use_embedder(int(vectors.shape[1]))
                skip = _present(record_ids, "memory_id", store.get_record_types, resume, report)
                memory._write_memories(new, vectors, skip)
            present = _present(relation_ids, "relation_id", store.get_links, resume, report)
            if present:
                links = [(n, item) for n, item in links if item.get("relation_id") not in present]
                built = [b for b in built if b[0].relation_id not in present]
            if built:
                memory._write_links(built, check_ids=False)
    except ImportLineError:
        raise
    except GraphMemError as exc:
        raise _located(exc, memories, links, report) from None
    report.memories += len(new) - len(skip)
    report.links += len(built)
    report.skipped += skipped + len(skip) + len(present)
    report.committed_line = last


def _located(
    exc: GraphMemError,
    memories: Sequence[tuple[int, dict[str, Any]]],
    links: Sequence[tuple[int, dict[str, Any]]],
    report: ImportReport,
) -> ImportLineError:
    """The library names ``memories[i]`` / ``links[i]``: turn that into a line number."""
    message = str(exc)
    match = _INDEX.match(message)
    if match is None:
        lines = [n for n, _ in [*memories, *links]]
        span = f"{min(lines)}-{max(lines)}" if lines else "?"
        return ImportLineError(
            min(lines) if lines else 0, f"(batch of lines {span}) {message}", report
        )
    items = memories if match.group(1) == "memories" else links
    number = items[int(match.group(2))][0]
    rest = message[match.end() :].lstrip(".")
    return ImportLineError(number, rest or message, report)

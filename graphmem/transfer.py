"""Export and import of a store as JSON Lines.

:class:`TransferOperations` is mixed into :class:`graphmem.GraphMemory`. The
format is described in :mod:`graphmem.core.jsonl`. An export writes the memories
and links a page at a time, from one read transaction. An import streams its input:
it reads one batch of lines at a time and writes each batch in one transaction,
so memory use does not grow with the file, a bad line leaves every earlier
batch stored, and ``resume=True`` continues where a failed or interrupted run
stopped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from graphmem.core.jsonl import Expired, link_line, memory_line, parse_line
from graphmem.core.validation import check_positive
from graphmem.errors import GraphMemError, InvalidArgumentError
from graphmem.memory_api import MemoryApi
from graphmem.transfer_batch import Batch, ImportLineError, ImportReport, ImportStoreError, flush
from graphmem.transfer_export import prompt_lines, thread_lines

__all__ = ["ImportLineError", "ImportReport", "ImportStoreError", "TransferOperations"]

_EXPORT_PAGE = 500
"""Memories (or links) an export reads and writes at a time: its rows in memory are
one page's, whatever the store holds (the ids of all are sorted in one go)."""


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

    def export_jsonl(
        self: MemoryApi, out: IO[str], *, threads: bool = True, prompts: bool = True
    ) -> tuple[int, int]:
        """Write the store as JSON Lines, one object per line, in one read transaction.

        Users and agents, threads and their unexpired messages, every unexpired
        memory and every expired memory that is an end of a link (oldest first),
        every link, then the registered prompts with all their versions: each
        line comes after the lines it needs, so the file imports back with
        :meth:`import_jsonl`. An expired memory stays stored with its links
        (hidden from searches and lists; a lifecycle link keeps its target
        invalid), and the import stores it expired, so the copy answers as the
        store does. The format is described in :mod:`graphmem.core.jsonl`.
        Memories and links are read and written 500 at a time (only their ids
        are sorted in one go), so memory use grows with the ids, not with the
        rows.

        Args:
            out: a text stream.
            threads: include users, agents, threads and messages.
            prompts: include the prompt registry.

        Returns:
            ``(memories, links)`` written.

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
        store = self._store
        memories = links = 0
        with store.transaction(write=False):
            now = self._clock()
            if threads:
                out.writelines(line + "\n" for line in thread_lines(store, now))
            for records in store.scan_memories(now, _EXPORT_PAGE):
                out.writelines(memory_line(record) + "\n" for record in records)
                memories += len(records)
            for relations in store.scan_links(_EXPORT_PAGE):
                out.writelines(link_line(link) + "\n" for link in relations)
                links += len(relations)
            if prompts:
                out.writelines(line + "\n" for line in prompt_lines(store))
        return memories, links

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
        before the links that use them (in the same or an earlier batch). A line's
        ``created_at`` and ``expires_at`` are kept as they are: a memory whose
        ``expires_at`` has passed is stored expired (as the store it came from
        holds it, with its links), a message whose ``expires_at`` has passed is
        not imported (``report.expired``).

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
                without ``resume``, unknown link endpoint, a message's place in its
                thread held by a stored message, bad value); the message names the
                line; that line's batch is not stored, earlier ones are.
            ImportStoreError: the store or the embedder failed (a driver error
                such as a read-only database, a closed handle, a schema or embedder
                that does not match, an embedder that raised or returned a bad
                vector), whatever the lines hold; the batch being written is not
                stored, earlier ones are.
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
    batch = Batch()
    done = last = count = 0
    now = memory._clock()  # read once per batch: expiry and the new rows' creation time
    for number, done, text in _read(source, report):
        try:
            kind, item = parse_line(text, now)
            batch.add(number, kind, item, now)
        except Expired:  # a message: counted with its batch, once that is stored
            batch.expired += 1
        except InvalidArgumentError as exc:  # "line 3: is not JSON", not "line 3: line: ..."
            message = exc.detail if exc.argument == "line" else str(exc)
            raise ImportLineError(number, message, report) from None
        except GraphMemError as exc:
            raise ImportLineError(number, str(exc), report) from None
        last = number
        count += 1
        if count >= size:
            flush(memory, batch, resume, report, last)
            batch, count, now = Batch(), 0, memory._clock()
            if on_batch is not None:
                on_batch(done, report)
    if len(batch):
        flush(memory, batch, resume, report, last)
    if on_batch is not None:
        on_batch(done, report)
    return report


def _read(source: IO[bytes], report: ImportReport) -> Iterator[tuple[int, int, str]]:
    try:
        yield from _lines(source)
    except InvalidArgumentError as exc:
        line = int(exc.argument.split()[-1])
        raise ImportLineError(line, str(exc).partition(": ")[2], report) from None

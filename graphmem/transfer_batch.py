"""One batch of an import: checked, embedded, then written in one transaction.

:mod:`graphmem.transfer` reads the lines and fills a :class:`Batch`;
:func:`flush` writes it. Each id is looked up once, in the writing transaction;
errors name the line.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from graphmem.errors import BackendError, ClosedError, GraphMemError, SchemaError
from graphmem.memory_api import MemoryApi
from graphmem.stores.base import NewLink, NewMemory
from graphmem.transfer_extras import write_extras
from graphmem.transfer_threads import Extra, LineProblem, check_extra, check_repeats

__all__ = ["Batch", "ImportLineError", "ImportReport", "ImportStoreError", "flush"]

_LOOKUP = 5000
_INDEX = re.compile(r"^(memories|links)\[(\d+)\]")
_INNER = re.compile(r"\b(memories|links)\[(\d+)\]")
_TIMES = ("created_at", "expires_at")
"""Fields of a line that the row keeps as they are (not call arguments)."""


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
    """Messages whose ``expires_at`` had passed, not imported (a memory whose
    ``expires_at`` had passed is stored expired, with its links, and counted in
    ``memories``)."""
    committed_line: int = 0
    """The last line of the last batch written; later lines were not stored."""
    threads: int = 0
    """Threads written."""
    messages: int = 0
    """Messages written."""
    prompts: int = 0
    """Prompts written (each with all its versions)."""
    users: int = 0
    """Users written."""
    agents: int = 0
    """Agents written."""


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


class ImportStoreError(GraphMemError):
    """The store or the embedder failed during an import (a driver error, a closed
    handle, a schema or embedder that does not match, an embedder that raised or
    returned a bad vector), whatever the lines hold; the batch being written was
    rolled back, earlier batches are stored. The failure is chained (``__cause__``).

    Attributes:
        report: what earlier batches stored.
    """

    def __init__(self, message: str, report: ImportReport) -> None:
        super().__init__(message)
        self.report = report


_STORE_ERRORS = (BackendError, ClosedError, SchemaError)
"""Failures of the store, not of a line: no line is to blame."""


@dataclass
class Batch:
    """The lines of one batch, by kind, with their line numbers."""

    memories: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    links: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    extras: list[Extra] = field(default_factory=list)
    expired: int = 0
    """Message lines of the batch whose ``expires_at`` had passed (not stored)."""

    def __len__(self) -> int:
        return len(self.memories) + len(self.links) + len(self.extras) + self.expired

    def add(self, number: int, kind: str, item: dict[str, Any], now: datetime) -> None:
        if kind == "memory":
            self.memories.append((number, item))
        elif kind == "link":
            self.links.append((number, item))
        else:
            self.extras.append(check_extra(number, kind, item, now))


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


@dataclass
class _Checked:
    """A batch after the checks that need no store, ready to write."""

    memories: list[tuple[int, dict[str, Any]]]
    links: list[tuple[int, dict[str, Any]]]
    extras: list[Extra]
    record_ids: dict[str, int]
    relation_ids: dict[str, int]
    skipped: int = 0


def _arguments(items: Sequence[tuple[int, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The lines' call arguments: without the times the export wrote."""
    return [{k: v for k, v in item.items() if k not in _TIMES} for _, item in items]


def _memory_times(new: NewMemory, item: dict[str, Any]) -> NewMemory:
    """The memory with the creation and expiry times its line carries (the row keeps
    them as they are); a time the line lacks is the import's (from its ``ttl_days``)."""
    return replace(
        new,
        created_at=item.get("created_at") or new.created_at,
        expires_at=item.get("expires_at") or new.expires_at,
    )


def _link_time(new: NewLink, item: dict[str, Any]) -> NewLink:
    """The link with the creation time its line carries, else the import's."""
    return replace(new, created_at=item.get("created_at") or new.created_at)


def _resume_filter(memory: MemoryApi, batch: Batch, report: ImportReport) -> _Checked:
    """Drop the memories and messages already stored (before embedding them again)."""
    record_ids = _first_lines(batch.memories, "memory_id", True, report)
    relation_ids = _first_lines(batch.links, "relation_id", True, report)
    wanted = [*record_ids, *(e.key for e in batch.extras if e.kind == "message")]
    done = _lookup(wanted, memory._store.get_record_types) if wanted else set()
    return _Checked(
        memories=[(n, i) for n, i in batch.memories if i.get("memory_id") not in done],
        links=batch.links,
        extras=[e for e in batch.extras if e.kind != "message" or e.key not in done],
        record_ids={i: n for i, n in record_ids.items() if i not in done},
        relation_ids=relation_ids,
        skipped=len(done),
    )


def flush(memory: MemoryApi, batch: Batch, resume: bool, report: ImportReport, last: int) -> None:
    """Check, embed (outside any transaction), then write one batch in one transaction.

    Each id is looked up once, in the writing transaction; with ``resume``, memory
    and message ids are first looked up before embedding, so stored ones are not
    embedded again. A failure of the store raises :class:`ImportStoreError`, a
    line that cannot be stored :class:`ImportLineError`.
    """
    try:
        _flush(memory, batch, resume, report)
    except _STORE_ERRORS as exc:
        raise ImportStoreError(str(exc), report) from exc
    report.expired += batch.expired
    report.committed_line = last


def _flush(memory: MemoryApi, batch: Batch, resume: bool, report: ImportReport) -> None:
    try:
        check_repeats(batch.extras)
    except LineProblem as exc:
        raise ImportLineError(exc.number, str(exc), report) from None
    if resume:
        todo = _resume_filter(memory, batch, report)
    else:
        record_ids = _first_lines(batch.memories, "memory_id", False, report)
        relation_ids = _first_lines(batch.links, "relation_id", False, report)
        todo = _Checked(batch.memories, batch.links, batch.extras, record_ids, relation_ids)
    try:
        new = [
            _memory_times(m, item)
            for m, (_, item) in zip(
                memory._new_memories(_arguments(todo.memories)), todo.memories, strict=True
            )
        ]
        built = [
            (_link_time(link, item), source, target)
            for (link, source, target), (_, item) in zip(
                memory._new_links(_arguments(todo.links)), todo.links, strict=True
            )
        ]
    except _STORE_ERRORS:
        raise
    except GraphMemError as exc:
        raise _located(exc, todo, report) from None
    texts = [m.content for m in new] + [e.value.content for e in todo.extras if e.kind == "message"]
    try:
        vectors = memory._embed(texts) if texts else None
    except Exception as exc:  # a model that failed or answered badly: no line is to blame
        raise ImportStoreError(str(exc) or type(exc).__name__, report) from exc
    try:
        with memory._store.transaction():
            _write(memory, todo, new, built, vectors, resume, report)
    except LineProblem as exc:
        raise ImportLineError(exc.number, str(exc), report) from None
    except (ImportLineError, *_STORE_ERRORS):
        raise
    except GraphMemError as exc:
        raise _located(exc, todo, report) from None


def _write(
    memory: MemoryApi,
    todo: _Checked,
    new: list[NewMemory],
    built: list[tuple[NewLink, str, str]],
    vectors: npt.NDArray[np.float32] | None,
    resume: bool,
    report: ImportReport,
) -> None:
    """Inside the batch's transaction: the other kinds, memories, then links. Counts
    go to a copy of ``report``, copied back only when everything is written."""
    store = memory._store
    if vectors is not None:
        memory._use_embedder(int(vectors.shape[1]))
    extras, skipped = write_extras(
        memory, todo.extras, None if vectors is None else vectors[len(new) :], resume
    )
    skip = _present(todo.record_ids, "memory_id", store.get_record_types, resume, report)
    if new:
        assert vectors is not None
        memory._write_memories(new, vectors[: len(new)], skip)
    present = _present(todo.relation_ids, "relation_id", store.get_links, resume, report)
    if present:
        todo.links = [(n, i) for n, i in todo.links if i.get("relation_id") not in present]
        built = [b for b in built if b[0].relation_id not in present]
    if built:
        memory._write_links(built, check_ids=False)
    _count(
        report,
        len(new) - len(skip),
        len(built),
        todo.skipped + skipped + len(skip) + len(present),
        extras,
    )


def _count(
    report: ImportReport, memories: int, links: int, skipped: int, extras: Counter[str]
) -> None:
    report.memories += memories
    report.links += links
    report.skipped += skipped
    report.threads += extras["thread"]
    report.messages += extras["message"]
    report.prompts += extras["prompt"]
    report.users += extras["user"]
    report.agents += extras["agent"]


def _located(exc: GraphMemError, todo: _Checked, report: ImportReport) -> ImportLineError:
    """The library names ``memories[i]`` / ``links[i]``: turn that into a line number
    (also where the message names another item: ``... already exists in links[0]``)."""
    memories, links = todo.memories, todo.links
    message = str(exc)
    match = _INDEX.match(message)
    if match is None:
        lines = [n for n, _ in [*memories, *links]] + [e.number for e in todo.extras]
        span = f"{min(lines)}-{max(lines)}" if lines else "?"
        return ImportLineError(
            min(lines) if lines else 0, f"(batch of lines {span}) {message}", report
        )
    items = memories if match.group(1) == "memories" else links
    number = items[int(match.group(2))][0]
    rest = message[match.end() :]  # ".content: ..." or ": ..." (the whole item)
    rest = rest[1:] if rest.startswith(".") else rest.removeprefix(": ")
    return ImportLineError(number, _INNER.sub(partial(_line_of, todo), rest) or message, report)


def _line_of(todo: _Checked, match: re.Match[str]) -> str:
    """``line N`` for an item the library names by its index in the batch."""
    items = todo.memories if match.group(1) == "memories" else todo.links
    index = int(match.group(2))
    return f"line {items[index][0]}" if index < len(items) else match.group(0)

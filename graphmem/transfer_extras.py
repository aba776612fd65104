"""Users, agents, threads, messages and prompts of an import, written.

:func:`write_extras` stores the lines of one batch that
:func:`graphmem.transfer_threads.check_extra` checked, inside the batch's
transaction, with the vectors of its messages embedded before.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from graphmem.memory_api import MemoryApi
from graphmem.stores.base import NewMessage, Store
from graphmem.thread_models import ThreadInfo
from graphmem.transfer_threads import Extra, LineProblem

__all__ = ["write_extras"]

_GAP = 1000
"""Message positions further apart than this are looked up apart (an export's lie
side by side, a hand-written file's may lie far apart)."""


def _stored(store: Store, extra: Extra) -> bool:
    if extra.kind in ("user", "agent"):
        return store.get_profile(extra.kind, extra.key) is not None
    if extra.kind == "thread":
        return store.get_thread(extra.key) is not None
    return store.get_prompt(extra.key) is not None


def _write_one(store: Store, extra: Extra) -> None:
    if extra.kind in ("user", "agent"):
        store.insert_profile(extra.value)
    elif extra.kind == "thread":
        info: ThreadInfo = extra.value
        store.insert_thread(info)
        if info.message_count:
            store.reserve_message_positions(info.thread_id, info.message_count)
        if info.summarized_count:
            store.update_thread(info)
    else:
        head, versions = extra.value
        store.insert_prompt(head)
        for version in versions:
            store.insert_prompt_version(version)
            if version.archived:  # a new version row is written unarchived
                store.archive_prompt_version(version.prompt_id, version.vid)


def _messages(
    memory: MemoryApi, extras: list[Extra], vectors: npt.NDArray[np.float32] | None
) -> list[NewMessage]:
    """The messages with their thread's scope and their vectors, checked against
    their thread (which must be stored by now)."""
    store = memory._store
    threads: dict[str, ThreadInfo | None] = {}
    places: dict[tuple[str, int], int] = {}
    ready: list[NewMessage] = []
    for index, extra in enumerate(extras):
        message: NewMessage = extra.value
        tid = message.thread_id
        if tid not in threads:
            threads[tid] = store.get_thread(tid)
        info = threads[tid]
        if info is None:
            raise LineProblem(
                extra.number, f"thread_id: no thread {tid!r} (its thread line comes first)"
            )
        if message.position >= info.message_count:
            raise LineProblem(
                extra.number,
                f"position: {message.position} is not below the thread's message_count "
                f"({info.message_count})",
            )
        seen = places.setdefault((tid, message.position), extra.number)
        if seen != extra.number:
            raise LineProblem(extra.number, f"position: {message.position} repeats line {seen}")
        assert vectors is not None
        ready.append(
            replace(message, user_id=info.user_id, agent_id=info.agent_id, embedding=vectors[index])
        )
    return ready


def _runs(items: list[tuple[int, NewMessage]]) -> Iterator[list[tuple[int, NewMessage]]]:
    """``items`` (sorted by position) cut where positions lie more than :data:`_GAP` apart."""
    run: list[tuple[int, NewMessage]] = []
    for item in items:
        if run and item[1].position - run[-1][1].position > _GAP:
            yield run
            run = []
        run.append(item)
    if run:
        yield run


def _check_places(store: Store, new: Sequence[tuple[int, NewMessage]]) -> None:
    """No new message goes to a place of its thread that a stored message holds (one
    of another id: a stored id is skipped, not written); the first such line is named."""
    threads: dict[str, list[tuple[int, NewMessage]]] = {}
    for number, message in new:
        threads.setdefault(message.thread_id, []).append((number, message))
    taken: list[tuple[int, str]] = []
    for tid, items in threads.items():
        for run in _runs(sorted(items, key=lambda item: item[1].position)):
            held = store.message_places(tid, run[0][1].position, run[-1][1].position)
            for number, message in run:
                other = held.get(message.position)
                if other is not None and other != message.record_id:
                    taken.append(
                        (
                            number,
                            f"position: {message.position} of thread {tid!r} is held by "
                            f"stored message {other!r}",
                        )
                    )
    if taken:
        raise LineProblem(*min(taken))


def write_extras(
    memory: MemoryApi,
    extras: Sequence[Extra],
    vectors: npt.NDArray[np.float32] | None,
    resume: bool,
) -> tuple[Counter[str], int]:
    """Store a batch's checked lines (inside its transaction): ``(written by kind,
    skipped)``. ``vectors`` are those of the message lines, in order.

    Raises:
        LineProblem: an id already stored (without ``resume``), a message whose
            thread is missing or whose position is out of range, repeats a line's
            or is held by a stored message of another id.
    """
    store = memory._store
    written: Counter[str] = Counter()
    skipped = 0
    for extra in extras:
        if extra.kind == "message":
            continue
        if _stored(store, extra):
            if not resume:
                raise LineProblem(
                    extra.number,
                    f"{extra.kind} {extra.key!r} already exists (--resume skips stored ids)",
                )
            skipped += 1
            continue
        _write_one(store, extra)
        written[extra.kind] += 1
    messages = [e for e in extras if e.kind == "message"]
    if messages:
        kinds = memory._stored_kinds([e.key for e in messages])
        present = [e for e in messages if e.key in kinds]
        if present and not resume:
            raise LineProblem(
                present[0].number,
                f"message_id: {present[0].key!r} already exists (--resume skips stored ids)",
            )
        ready = _messages(memory, messages, vectors)
        new = [(e.number, m) for e, m in zip(messages, ready, strict=True) if e.key not in kinds]
        _check_places(store, new)
        store.insert_messages([m for _, m in new])
        written["message"] += len(ready) - len(present)
        skipped += len(present)
    return written, skipped

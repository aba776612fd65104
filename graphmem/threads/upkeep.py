"""A thread's stored summary, kept true to its messages.

The stored summary covers the messages at the positions below ``summarized_count``
(``summarized_count`` is ``message_count`` as it was when the summary was written).
:func:`refresh_summary` folds exactly the positions from ``summarized_count`` up to
``message_count``, as one read of the thread saw them, into the stored summary, and
writes it only if the thread still holds that summary and those messages; when
another writer got there first it starts again from what is stored now, so every
message is folded in once. Deleting or editing a message the summary covers
(:func:`forget_summary`, in the same transaction) replaces the stored summary by
the deterministic one of the current messages with ``summarized_count`` 0: a
summary that covers no message, which the next refresh rewrites from all the
messages and :func:`summary_text` does not build on.

Model calls happen outside store transactions; the store is read and written in
short transactions around them.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

from graphmem.core.validation import check_non_negative
from graphmem.errors import GraphMemError, InvalidArgumentError
from graphmem.thread_models import Message, ThreadInfo
from graphmem.threads.messages import NO_END
from graphmem.threads.settings import ThreadSettings
from graphmem.threads.summary import SummaryUpdate, fallback_summary, llm_summary

if TYPE_CHECKING:
    from graphmem.ai.protocols import LlmProtocol
    from graphmem.memory import GraphMemory
    from graphmem.threads.handle import Thread

__all__ = ["forget_summary", "refresh_summary", "summary_text"]

_FALLBACK_MESSAGES = 6
"""The messages the deterministic summary is built from (the last ones)."""
_PAGE = 256
"""The most positions read in one look-up."""


def _newest(
    memory: GraphMemory, thread_id: str, low: int, high: int, count: int = 0, chars: int = 0
) -> list[Message]:
    """The thread's unexpired messages at the positions from ``low`` to below
    ``high``, by position; read from the newest down, and only until there are
    ``count`` of them, or their lines are longer than ``chars`` in all (0: no
    bound). Each look-up reads one range of positions (the message index)."""
    store, now = memory._store, memory._clock()
    found: list[Message] = []
    size, top, page = 0, high, min(_PAGE, count or _PAGE)
    with store.transaction(write=False):
        while top > low and not (count and len(found) >= count) and not (chars and size > chars):
            bottom = max(low, top - page)
            places = store.message_places(thread_id, bottom, top - 1)
            read = store.get_messages(list(places.values()))
            kept = sorted(
                (m for m in read.values() if m.expires_at is None or m.expires_at > now),
                key=lambda m: m.position,
            )
            found[:0] = kept
            size += sum(len(m.role) + len(m.content) + 3 for m in kept)
            top, page = bottom, min(_PAGE, page * 2)
    return found[-count:] if count else found


def _pairs(messages: Sequence[Message]) -> list[tuple[str, str]]:
    return [(m.role, m.content) for m in messages]


def _llm(thread: Thread, settings: ThreadSettings) -> LlmProtocol | None:
    """The handle's LLM, when the thread's summary is the LLM's."""
    return thread.llm if settings.enable_context_summary else None


def _rewrite(
    thread: Thread, info: ThreadInfo, settings: ThreadSettings
) -> tuple[list[Message], SummaryUpdate]:
    """The summary of the messages up to ``info.message_count``, and the messages
    it was made from: the LLM's fold of the stored summary (none when it covers no
    message) and the positions it lacks, or the deterministic summary of the last
    messages."""
    memory, low, high = thread._memory, info.summarized_count, info.message_count
    llm = _llm(thread, settings)
    if llm is None:
        recent = _newest(memory, thread.thread_id, 0, high, count=_FALLBACK_MESSAGES)
        return recent, fallback_summary(_pairs(recent))
    limit = settings.context_card_token_limit
    new = _newest(memory, thread.thread_id, low, high, chars=max(0, limit) * 4)
    previous = (info.summary, info.topics) if low else (None, ())
    if not new:  # the pending messages were deleted or expired meanwhile
        return new, (previous[0] or "", previous[1])
    return new, llm_summary(llm, previous[0], previous[1], _pairs(new), limit)


def _store(thread: Thread, info: ThreadInfo, used: list[Message], update: SummaryUpdate) -> bool:
    """Write ``update`` as the summary up to ``info.message_count`` if the thread
    still holds the summary ``info`` holds and the messages in ``used`` as they were
    read; False when not (written meanwhile, or a message changed: try again)."""
    memory = thread._memory
    store = memory._store
    with store.transaction():
        store.lock_thread(thread.thread_id)
        now = store.get_thread(thread.thread_id)
        if now is None or now.created_at != info.created_at:
            return True  # deleted: nothing to summarize any more
        if (now.summarized_count, now.summary, now.topics) != (
            info.summarized_count,
            info.summary,
            info.topics,
        ):
            return False
        current = store.get_messages([m.id for m in used])
        if any(m.id not in current or current[m.id].content != m.content for m in used):
            return False
        summary, topics = update
        store.update_thread(
            now.model_copy(
                update={
                    "summary": summary or None,
                    "topics": topics,
                    "summarized_count": info.message_count,
                    "updated_at": memory._clock(),
                }
            )
        )
    return True


def refresh_summary(thread: Thread, upto: int | None = None) -> None:
    """Rewrite the stored summary and topics when enough new messages came in, until
    the positions below ``upto`` (the caller's messages; None: all) are covered."""
    while True:
        info = thread.info()
        settings = ThreadSettings.from_json(info.settings)
        pending = info.message_count - info.summarized_count
        every = settings.context_summary_update_frequency
        if pending <= 0 or (every != -1 and pending < every):
            return
        if upto is not None and info.summarized_count >= upto:
            return  # another writer covered them
        try:
            used, update = _rewrite(thread, info, settings)
        except GraphMemError as error:
            warnings.warn(
                f"thread {thread.thread_id!r}: the summary was not updated ({error}); "
                "it is tried again with the next messages",
                RuntimeWarning,
                stacklevel=4,
            )
            return
        if _store(thread, info, used, update):
            return


def forget_summary(memory: GraphMemory, thread_id: str, position: int) -> None:
    """Inside the write that deletes the message at ``position`` or changes its
    content: when the stored summary covers it (or is stale already), store the
    deterministic summary of the current messages instead, covering no message
    (``summarized_count`` 0), so that nothing of the old text is shown and the next
    refresh starts over."""
    store = memory._store
    store.lock_thread(thread_id)
    info = store.get_thread(thread_id)
    if info is None or info.summary is None:
        return
    if info.summarized_count and position >= info.summarized_count:
        return  # not covered yet (a stale summary, covering none, is made again)
    recent = _newest(memory, thread_id, 0, info.message_count, count=_FALLBACK_MESSAGES)
    summary, topics = fallback_summary(_pairs(recent)) if recent else ("", ())
    store.update_thread(
        info.model_copy(
            update={
                "summary": summary or None,
                "topics": topics,
                "summarized_count": 0,
                "updated_at": memory._clock(),
            }
        )
    )


def _cut(text: str, token_budget: int | None) -> str:
    if token_budget is None or len(text) <= token_budget * 4:
        return text
    room = max(0, token_budget * 4 - 3)
    return text[:room].rsplit(" ", 1)[0].rstrip() + "..."


def summary_text(thread: Thread, except_last: object, token_budget: object) -> str:
    """See :meth:`graphmem.threads.Thread.get_summary`."""
    skip = check_non_negative("except_last", except_last)
    budget = None
    if token_budget is not None:
        if isinstance(token_budget, bool) or not isinstance(token_budget, int) or token_budget < 1:
            raise InvalidArgumentError(
                "token_budget", f"must be a positive integer or None; got {token_budget!r:.60}"
            )
        budget = token_budget
    memory = thread._memory
    store, tid = memory._store, thread.thread_id
    with store.transaction(write=False):  # the reads; the LLM is called after it
        info = thread.info()
        # the last message to summarize, read backwards from the thread's end
        last = store.window_messages(tid, memory._clock(), NO_END, skip + 1)
        if len(last) <= skip:
            return ""
        covered = last[0].position + 1
        settings = ThreadSettings.from_json(info.settings)
        stored = info.summary is not None and info.summarized_count > 0  # it covers messages
        if stored and info.summarized_count == covered:
            return _cut(info.summary or "", budget)
        llm = _llm(thread, settings)
        if llm is None:
            recent = _newest(memory, tid, 0, covered, count=_FALLBACK_MESSAGES)
        else:
            # the stored summary folded with the messages it lacks, when it covers
            # fewer than asked; else a summary of the asked messages alone
            low = info.summarized_count if stored and info.summarized_count < covered else 0
            previous = (info.summary, info.topics) if low else (None, ())
            limit = settings.context_card_token_limit
            new = _newest(memory, tid, low, covered, chars=max(0, limit) * 4)
    if llm is None:
        summary, _ = fallback_summary(_pairs(recent))
        return _cut(summary, budget)
    summary, _ = llm_summary(llm, previous[0], previous[1], _pairs(new), limit)
    return _cut(summary, budget)

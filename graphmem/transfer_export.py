"""Users, agents, threads, messages and prompts as lines of export JSON Lines.

The line format is described in :mod:`graphmem.core.jsonl`; :mod:`graphmem.transfer`
writes these lines around its memories and links.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from functools import partial
from typing import Any, TypeVar

from graphmem.core.validation import format_time
from graphmem.stores.base import Store
from graphmem.stores.registry_base import StoredPrompt, StoredVersion
from graphmem.thread_models import Message, Profile, ThreadInfo

__all__ = ["other_counts", "prompt_lines", "thread_lines"]

_PAGE = 1000
T = TypeVar("T")


def _dump(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def _pages(read: Callable[[int, int], Sequence[T]]) -> Iterator[T]:
    offset = 0
    while True:
        page = read(_PAGE, offset)
        yield from page
        if len(page) < _PAGE:
            return
        offset += len(page)


def _profile_line(profile: Profile) -> str:
    return _dump(
        {
            "kind": profile.kind,
            f"{profile.kind}_id": profile.id,
            "information": profile.information,
            "metadata": profile.metadata,
            "created_at": format_time(profile.created_at),
        }
    )


def _thread_line(info: ThreadInfo) -> str:
    return _dump(
        {
            "kind": "thread",
            "thread_id": info.thread_id,
            "user_id": info.user_id,
            "agent_id": info.agent_id,
            "metadata": info.metadata,
            "settings": info.settings,
            "summary": info.summary,
            "topics": list(info.topics),
            "message_count": info.message_count,
            "summarized_count": info.summarized_count,
            "created_at": format_time(info.created_at),
            "updated_at": format_time(info.updated_at),
        }
    )


def _message_line(message: Message) -> str:
    payload: dict[str, Any] = {
        "kind": "message",
        "message_id": message.id,
        "thread_id": message.thread_id,
        "role": message.role,
        "content": message.content,
        "position": message.position,
        "metadata": message.metadata,
        "timestamp": format_time(message.timestamp),
        "created_at": format_time(message.created_at),
    }
    if message.expires_at is not None:
        payload["expires_at"] = format_time(message.expires_at)
    return _dump(payload)


def _prompt_line(head: StoredPrompt, versions: list[StoredVersion]) -> str:
    return _dump(
        {
            "kind": "prompt",
            "prompt_id": head.prompt_id,
            "description": head.description,
            "annotations": head.annotations,
            "current_vid": head.current_vid,
            "next_vid": head.next_vid,
            "archived": head.archived,
            "created_at": format_time(head.created_at),
            "updated_at": format_time(head.updated_at),
            "versions": [
                {
                    "vid": v.vid,
                    "prompt": v.text,
                    "archived": v.archived,
                    "created_at": format_time(v.created_at),
                }
                for v in versions
            ],
        }
    )


def thread_lines(store: Store, now: datetime) -> Iterator[str]:
    """The lines of users, agents, threads and the threads' unexpired messages."""
    for kind in ("user", "agent"):
        yield from map(_profile_line, _pages(partial(store.list_profiles, kind)))
    stored = list(_pages(partial(store.list_threads, None, None)))
    yield from map(_thread_line, stored)
    for info in stored:
        read = partial(store.list_messages, info.thread_id, now)
        yield from map(_message_line, _pages(read))


def prompt_lines(store: Store) -> Iterator[str]:
    """The lines of the registered prompts, each with all its versions."""
    for head in _pages(store.list_prompts):
        versions = _pages(partial(store.list_prompt_versions, head.prompt_id))
        yield _prompt_line(head, list(versions))


def other_counts(store: Store, now: datetime) -> dict[str, int]:
    """How many threads, unexpired messages, users, agents and prompts the store holds."""
    threads = list(_pages(partial(store.list_threads, None, None)))
    return {
        "threads": len(threads),
        "messages": sum(store.count_messages(t.thread_id, now) for t in threads),
        "users": sum(1 for _ in _pages(partial(store.list_profiles, "user"))),
        "agents": sum(1 for _ in _pages(partial(store.list_profiles, "agent"))),
        "prompts": store.count_prompts(),
    }

"""Each service call once: its HTTP request and how its answer is read.

The sync and async clients only send these; so both speak the same API.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from graphmem.client.models import (
    ChatMessage,
    MemoryBlock,
    RecordLinkList,
    SearchHit,
    SessionInfo,
    SessionList,
    UserInfo,
    UserList,
)
from graphmem.errors import InvalidArgumentError
from graphmem.models import MemoryRecord
from graphmem.registry_checks import check_annotations, check_prompt_id
from graphmem.registry_models import Prompt, PromptList, PromptVersionList
from graphmem.thread_models import Message
from graphmem.threads.card_model import ContextCard

__all__ = ["Call", "memory_body"]


def _seg(value: str) -> str:
    """One path segment, percent-encoded (ids never reshape the path).

    Raises:
        InvalidArgumentError: an id that a URL path cannot carry (empty, ``.``,
            ``..``: HTTP clients resolve them away), which the service refuses too.
    """
    text = str(value)
    if text in ("", ".", ".."):
        raise InvalidArgumentError("id", f"{text!r} cannot be a segment of a URL path")
    return quote(text, safe="")


def _prompt_path(prompt_id: object, tail: str = "") -> str:
    """A prompt's path, its id checked first by the registry's own rule, so that an
    id the registry refuses raises what the embedded registry raises
    (``PromptArgumentError``) rather than reach the service as another path.

    Raises:
        PromptArgumentError: ``prompt_id`` is malformed.
    """
    return f"/v1/prompts/{_seg(check_prompt_id(prompt_id))}{tail}"


def _same(answer: Any) -> Any:
    return answer


@dataclass(frozen=True)
class Call:
    """One HTTP request and the reader of its JSON answer."""

    method: str
    path: str
    json: Any = None
    params: dict[str, Any] = field(default_factory=dict)
    read: Callable[[Any], Any] = _same

    # prompt registry ----------------------------------------------------------------

    @classmethod
    def create_prompt(
        cls, prompt_id: str, prompt: str, description: str, annotations: object
    ) -> Call:
        """Raises PromptArgumentError for a malformed ``prompt_id`` or ``annotations``
        that are not a JSON object (checked as the embedded registry checks them)."""
        body: dict[str, Any] = {
            "prompt_id": check_prompt_id(prompt_id),
            "prompt": prompt,
            "description": description,
        }
        if annotations is not None:
            body["annotations"] = check_annotations(annotations)
        return cls("POST", "/v1/prompts", body, read=Prompt.model_validate)

    @classmethod
    def update_prompt(cls, prompt_id: str, **changes: Any) -> Call:
        if changes.get("annotations") is not None:
            changes["annotations"] = check_annotations(changes["annotations"])
        body = {k: v for k, v in changes.items() if v is not None}
        return cls("PATCH", _prompt_path(prompt_id), body, read=Prompt.model_validate)

    @classmethod
    def get_prompt(cls, prompt_id: str, vid: int | None) -> Call:
        params = {} if vid is None else {"vid": vid}
        return cls("GET", _prompt_path(prompt_id), params=params, read=Prompt.model_validate)

    @classmethod
    def list_prompts(cls, limit: int, offset: int) -> Call:
        params = {"limit": limit, "offset": offset}
        return cls("GET", "/v1/prompts", params=params, read=PromptList.model_validate)

    @classmethod
    def list_prompt_versions(cls, prompt_id: str, limit: int, offset: int) -> Call:
        return cls(
            "GET",
            _prompt_path(prompt_id, "/versions"),
            params={"limit": limit, "offset": offset},
            read=PromptVersionList.model_validate,
        )

    @classmethod
    def archive_prompt(cls, prompt_id: str, vid: int | str) -> Call:
        path = _prompt_path(prompt_id, "/archive")
        return cls("POST", path, {"vid": vid}, read=Prompt.model_validate)

    @classmethod
    def purge_prompt(cls, prompt_id: str, vid: int | str) -> Call:
        return cls("POST", _prompt_path(prompt_id, "/purge"), {"vid": vid}, read=_none)

    # users and sessions ----------------------------------------------------------------

    @classmethod
    def create_user(cls, user_id: str, information: str | None, metadata: Any) -> Call:
        body = {"user_id": user_id, "information": information, "metadata": metadata}
        return cls("POST", "/v1/users", body, read=UserInfo.model_validate)

    @classmethod
    def get_user(cls, user_id: str) -> Call:
        return cls("GET", f"/v1/users/{_seg(user_id)}", read=UserInfo.model_validate)

    @classmethod
    def list_users(cls, limit: int, offset: int) -> Call:
        params = {"limit": limit, "offset": offset}
        return cls("GET", "/v1/users", params=params, read=UserList.model_validate)

    @classmethod
    def delete_user(cls, user_id: str) -> Call:
        return cls("DELETE", f"/v1/users/{_seg(user_id)}", read=lambda a: a["deleted_records"])

    @classmethod
    def create_session(
        cls, user_id: str, session_id: str | None, agent_id: str | None, metadata: Any
    ) -> Call:
        body = {
            "user_id": user_id,
            "session_id": session_id,
            "agent_id": agent_id,
            "metadata": metadata,
        }
        return cls("POST", "/v1/sessions", body, read=SessionInfo.model_validate)

    @classmethod
    def get_session(cls, session_id: str) -> Call:
        return cls("GET", f"/v1/sessions/{_seg(session_id)}", read=SessionInfo.model_validate)

    @classmethod
    def list_sessions(cls, user_id: str | None, limit: int, offset: int) -> Call:
        params: dict[str, Any] = {"limit": limit, "offset": offset}
        if user_id is not None:
            params["user_id"] = user_id
        return cls("GET", "/v1/sessions", params=params, read=SessionList.model_validate)

    @classmethod
    def delete_session(cls, session_id: str) -> Call:
        path = f"/v1/sessions/{_seg(session_id)}"
        return cls("DELETE", path, read=lambda a: a["deleted_records"])

    @classmethod
    def get_messages(cls, session_id: str, start: int | None, end: int | None) -> Call:
        """The session's messages sliced like ``messages[start:end]`` (None: that
        end of the list)."""
        bounds = {"start": start, "end": end}
        return cls(
            "GET",
            f"/v1/sessions/{_seg(session_id)}/messages",
            params={k: v for k, v in bounds.items() if v is not None},
            read=lambda a: [Message.model_validate(m) for m in a["messages"]],
        )

    @classmethod
    def context_card(
        cls,
        session_id: str,
        max_relevant_results: int | None,
        min_relevant_results_by_type: Mapping[str, int] | None,
        recent_message_count: int | None,
        fallback_message_count: int | None,
    ) -> Call:
        """The card's options as query parameters (None: the service's default);
        the minimums by type as a JSON object."""
        options = {
            "max_relevant_results": max_relevant_results,
            "min_relevant_results_by_type": None
            if min_relevant_results_by_type is None
            else json.dumps(dict(min_relevant_results_by_type)),
            "recent_message_count": recent_message_count,
            "fallback_message_count": fallback_message_count,
        }
        params = {k: v for k, v in options.items() if v is not None}
        path = f"/v1/sessions/{_seg(session_id)}/context_card"
        return cls("GET", path, params=params, read=ContextCard.model_validate)

    # memory blocks ----------------------------------------------------------------------

    @classmethod
    def add_memory(cls, session_id: str, body: dict[str, Any]) -> Call:
        path = f"/v1/sessions/{_seg(session_id)}/memory"
        return cls("POST", path, body, read=MemoryBlock.model_validate)

    @classmethod
    def update_memory(cls, session_id: str, block_id: str, body: dict[str, Any]) -> Call:
        path = f"/v1/sessions/{_seg(session_id)}/memory/{_seg(block_id)}"
        return cls("PATCH", path, body, read=MemoryBlock.model_validate)

    @classmethod
    def get_memory(cls, session_id: str, block_id: str) -> Call:
        path = f"/v1/sessions/{_seg(session_id)}/memory/{_seg(block_id)}"
        return cls("GET", path, read=MemoryBlock.model_validate)

    @classmethod
    def list_memory(cls, session_id: str, limit: int, offset: int) -> Call:
        path = f"/v1/sessions/{_seg(session_id)}/memory"
        return cls(
            "GET",
            path,
            params={"limit": limit, "offset": offset},
            read=lambda a: [MemoryBlock.model_validate(b) for b in a["blocks"]],
        )

    # memories and links -------------------------------------------------------------------

    @classmethod
    def add_record(cls, content: str, **fields: Any) -> Call:
        body = {"content": content, **{k: v for k, v in fields.items() if v is not None}}
        return cls("POST", "/v1/memories", body, read=lambda a: a["id"])

    @classmethod
    def get_record(cls, memory_id: str) -> Call:
        return cls("GET", f"/v1/memories/{_seg(memory_id)}", read=MemoryRecord.model_validate)

    @classmethod
    def list_record_links(cls, memory_id: str, limit: int, offset: int) -> Call:
        return cls(
            "GET",
            f"/v1/memories/{_seg(memory_id)}/links",
            params={"limit": limit, "offset": offset},
            read=RecordLinkList.model_validate,
        )

    @classmethod
    def link_records(cls, **fields: Any) -> Call:
        body = {k: v for k, v in fields.items() if v is not None}
        return cls("POST", "/v1/links", body, read=lambda a: a["relation_id"])

    @classmethod
    def delete_record_link(cls, relation_id: str) -> Call:
        return cls("DELETE", f"/v1/links/{_seg(relation_id)}", read=_none)

    # search -------------------------------------------------------------------------------

    @classmethod
    def search(cls, query: str, **options: Any) -> Call:
        body = {"query": query, **{k: v for k, v in options.items() if v is not None}}
        return cls(
            "POST",
            "/v1/search",
            body,
            read=lambda a: [SearchHit.model_validate(h) for h in a["results"]],
        )


def _none(answer: Any) -> None:
    return None


def memory_body(
    messages: Sequence[ChatMessage | dict[str, Any]] | None,
    facts: Sequence[str] | None,
    prompt_id: str | None,
    prompt_vid: int | None,
    context_required: bool,
    async_processing: bool,
) -> dict[str, Any]:
    """The body of an add-memory call."""
    turns = [m.model_dump() if isinstance(m, ChatMessage) else dict(m) for m in (messages or [])]
    body: dict[str, Any] = {
        "messages": turns,
        "facts": list(facts or []),
        "context_required": context_required,
        "async_processing": async_processing,
    }
    if prompt_id is not None:
        body["prompt_id"] = prompt_id
    if prompt_vid is not None:
        body["prompt_vid"] = prompt_vid
    return body

"""What the client sends and gets back, besides the registry's own models."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from graphmem.models import RecordRelation

__all__ = [
    "ChatMessage",
    "MemoryBlock",
    "RecordLinkList",
    "SearchHit",
    "SessionInfo",
    "SessionList",
    "UserInfo",
    "UserList",
]


class ChatMessage(BaseModel):
    """One exchange of a memory block: the user's turn and the assistant's answer."""

    model_config = ConfigDict(frozen=True)

    user_content: str | None = None
    assistant_content: str | None = None


class MemoryBlock(BaseModel):
    """A memory block as stored: its status (``pending``, ``processing``, ``ready``,
    ``failed``), its prompt reference, summary and the ids of the records it made."""

    model_config = ConfigDict(frozen=True)

    block_id: str
    session_id: str
    status: str
    messages: list[dict[str, Any]]
    facts: list[str]
    prompt_id: str | None
    prompt_vid: int | None
    resolved_vid: int | None
    context_required: bool
    summary: str | None
    record_ids: list[str]
    extracted_record_ids: list[str] = Field(default_factory=list)
    extracted_relation_ids: list[str] = Field(default_factory=list)
    error: str | None
    created_at: datetime
    updated_at: datetime


class SessionInfo(BaseModel):
    """A session (a thread) as stored: the fields of :class:`graphmem.ThreadInfo`,
    with ``session_id`` for its ``thread_id``.

    Attributes:
        settings: the thread's persisted settings (JSON).
        message_count: messages ever added (the next message's position).
        summarized_count: ``message_count`` when the summary was last written
            (0: it covers no message).
    """

    model_config = ConfigDict(frozen=True)

    session_id: str
    user_id: str | None = None
    agent_id: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    settings: dict[str, Any] = Field(default_factory=dict)
    summary: str | None = None
    topics: tuple[str, ...] = ()
    message_count: int = 0
    summarized_count: int = 0
    created_at: datetime
    updated_at: datetime


class SearchHit(BaseModel):
    """One search result: the record, its distance and its rendered prompt text."""

    model_config = ConfigDict(frozen=True)

    record: dict[str, Any]
    distance: float | None
    linked_count: int
    content: str


class UserInfo(BaseModel):
    """A recorded user."""

    model_config = ConfigDict(frozen=True)

    user_id: str
    information: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class UserList(BaseModel):
    """One page of users, oldest first: ``count`` on this page, ``total`` in all."""

    model_config = ConfigDict(frozen=True)

    users: list[UserInfo]
    count: int
    total: int
    limit: int
    offset: int


class SessionList(BaseModel):
    """One page of sessions (of one user, when the list was asked with ``user_id``),
    oldest first: ``count`` on this page, ``total`` in all."""

    model_config = ConfigDict(frozen=True)

    sessions: list[SessionInfo]
    count: int
    total: int
    limit: int
    offset: int


class RecordLinkList(BaseModel):
    """One page of a memory's links (either end), oldest first: ``count`` on this
    page, ``total`` in all."""

    model_config = ConfigDict(frozen=True)

    links: list[RecordRelation]
    count: int
    total: int
    limit: int
    offset: int

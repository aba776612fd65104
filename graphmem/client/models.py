"""What the client sends and gets back, besides the registry's own models."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["ChatMessage", "MemoryBlock", "SearchHit", "SessionInfo"]


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
    """A session (a thread) as stored."""

    model_config = ConfigDict(frozen=True, extra="allow")

    session_id: str
    user_id: str | None
    agent_id: str | None
    summary: str | None = None


class SearchHit(BaseModel):
    """One search result: the record, its distance and its rendered prompt text."""

    model_config = ConfigDict(frozen=True)

    record: dict[str, Any]
    distance: float | None
    linked_count: int
    content: str

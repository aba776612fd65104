"""Pydantic records of the conversation side: messages, threads as stored, users and agents."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from graphmem.core.texts import optional_text

__all__ = ["MESSAGE_ROLES", "Message", "Profile", "ThreadInfo"]

MESSAGE_ROLES: tuple[str, ...] = ("user", "assistant", "system", "tool")
"""The roles a message may have."""

OptionalText = Annotated[str | None, BeforeValidator(optional_text)]
"""An optional text whose empty value is ``None`` (:mod:`graphmem.core.texts`)."""


class Message(BaseModel):
    """One message of a thread: a record of type ``message``.

    ``position`` is its place in the thread (0, 1, 2, ... in the order added; a
    deleted message's position is not reused).
    """

    model_config = ConfigDict(frozen=True)

    id: str
    thread_id: str
    role: str
    content: str
    position: int
    user_id: str | None = None
    agent_id: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    timestamp: datetime
    """The caller's timestamp, or the creation time when none was given."""
    created_at: datetime
    expires_at: datetime | None = None

    @property
    def record_type(self) -> str:
        return "message"


class ThreadInfo(BaseModel):
    """A thread as stored: scope, metadata, persisted settings, summary and topics.

    Attributes:
        settings: the persisted settings (JSON), see
            :class:`graphmem.threads.settings.ThreadSettings`.
        message_count: messages ever added (the next message's position).
        summarized_count: ``message_count`` when the summary was last written;
            0 when it covers no message (none yet, or made stale by a deleted or
            edited message: see ``Thread.delete_message``).
    """

    model_config = ConfigDict(frozen=True)

    thread_id: str
    user_id: str | None = None
    agent_id: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    settings: dict[str, Any] = Field(default_factory=dict)
    summary: OptionalText = None
    topics: tuple[str, ...] = ()
    message_count: int = 0
    summarized_count: int = 0
    created_at: datetime
    updated_at: datetime


class Profile(BaseModel):
    """A user or an agent, with free-form information."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["user", "agent"]
    id: str
    information: OptionalText = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime

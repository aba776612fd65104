"""A Python client of the graphmem memory service (``graphmem serve``), over httpx.

>>> from graphmem.client import ChatMessage
>>> ChatMessage(user_content="My order #123 hasn't shipped.", assistant_content="I'll look.")
ChatMessage(user_content="My order #123 hasn't shipped.", assistant_content="I'll look.")
"""

from graphmem.client.async_ import AsyncAgentMemoryClient, AsyncSession
from graphmem.client.errors import (
    ApiArgumentError,
    ApiBackendError,
    ApiConflictError,
    ApiError,
    ApiModelError,
    ApiNotFoundError,
    AuthenticationError,
    PermissionDeniedError,
)
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
from graphmem.client.sync import AgentMemoryClient, Session

__all__ = [
    "AgentMemoryClient",
    "ApiArgumentError",
    "ApiBackendError",
    "ApiConflictError",
    "ApiError",
    "ApiModelError",
    "ApiNotFoundError",
    "AsyncAgentMemoryClient",
    "AsyncSession",
    "AuthenticationError",
    "ChatMessage",
    "MemoryBlock",
    "PermissionDeniedError",
    "RecordLinkList",
    "SearchHit",
    "Session",
    "SessionInfo",
    "SessionList",
    "UserInfo",
    "UserList",
]

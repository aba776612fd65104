"""Request bodies of the memory service: strict types, unknown fields refused."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
)
from pydantic_core import PydanticCustomError

from graphmem.core.validation import MAX_COUNT

__all__ = [
    "AddMemoryBody",
    "ChatTurn",
    "CreatePromptBody",
    "CreateSessionBody",
    "CreateUserBody",
    "LinkBody",
    "MemoryBody",
    "RetireBody",
    "SearchBody",
    "UpdateMemoryBody",
    "UpdatePromptBody",
]

_STRICT = ConfigDict(extra="forbid", strict=True)


def _path_id(value: str) -> str:
    if "/" in value:
        raise ValueError("must not contain '/': the id is part of the service's URL paths")
    if value in (".", ".."):
        raise ValueError(f"must not be {value!r}: a URL path cannot name it")
    return value


PathId = Annotated[str, AfterValidator(_path_id)]
"""An id the service later reads from a URL path (a user, a session, a memory)."""
MAX_ITEMS = 1000
"""The most messages or facts one memory block holds."""


class CreatePromptBody(BaseModel):
    model_config = _STRICT
    prompt_id: str
    prompt: str
    description: str
    annotations: dict[str, Any] | None = None


class UpdatePromptBody(BaseModel):
    model_config = _STRICT
    prompt: str | None = None
    description: str | None = None
    annotations: dict[str, Any] | None = None


def _scope(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """``"all"`` or an integer, refused in the words of the embedded registry."""
    try:
        return handler(value)
    except ValidationError:
        raise PydanticCustomError(
            "vid",
            'must be "all" or an integer from 0 to {top}; got {got}',
            {"top": MAX_COUNT, "got": f"{value!r:.60}"},
        ) from None


class RetireBody(BaseModel):
    model_config = _STRICT
    vid: Annotated[Literal["all"] | int, WrapValidator(_scope)] = Field(
        description='"all" for the whole prompt, or one version number (>= 0).'
    )


class CreateUserBody(BaseModel):
    model_config = _STRICT
    user_id: PathId
    information: str | None = None
    metadata: dict[str, Any] | None = None


class CreateSessionBody(BaseModel):
    model_config = _STRICT
    user_id: str
    session_id: PathId | None = None
    agent_id: str | None = None
    metadata: dict[str, Any] | None = None


class ChatTurn(BaseModel):
    """One exchange: what the user said and what the assistant answered."""

    model_config = _STRICT
    user_content: str | None = None
    assistant_content: str | None = None


class AddMemoryBody(BaseModel):
    """A memory block: messages and/or facts, stored and processed together."""

    model_config = _STRICT
    messages: list[ChatTurn] = Field(default_factory=list, max_length=MAX_ITEMS)
    facts: list[str] = Field(default_factory=list, max_length=MAX_ITEMS)
    prompt_id: str | None = None
    prompt_vid: int | None = None
    context_required: bool = True
    async_processing: bool = True


class UpdateMemoryBody(BaseModel):
    """Switch or clear a block's prompt (``prompt_id="default"`` clears it)."""

    model_config = _STRICT
    prompt_id: str | None = None
    prompt_vid: int | None = None
    async_processing: bool = True


class MemoryBody(BaseModel):
    model_config = _STRICT
    content: str
    memory_type: str = "memory"
    memory_id: PathId | None = None
    user_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None
    metadata: dict[str, Any] | None = None


class LinkBody(BaseModel):
    model_config = _STRICT
    source_id: str
    source_type: str
    target_id: str
    target_type: str
    relation_type: str
    opposite_relation_type: str | None = None
    metadata: dict[str, Any] | None = None


class SearchBody(BaseModel):
    model_config = _STRICT
    query: str
    user_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None
    record_types: list[str] | None = None
    max_results: int | None = None
    num_hops: int = 0
    strategy: Literal["vector", "keyword", "hybrid"] = "vector"

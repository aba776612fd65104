"""Argument checks of the prompt registry (each raises PromptArgumentError naming the argument)."""

from __future__ import annotations

from typing import Any

from graphmem.core.registry_rules import (
    MAX_DESCRIPTION_LENGTH,
    MAX_PROMPT_LENGTH,
    prompt_id_problem,
    prompt_text_problem,
)
from graphmem.core.validation import (
    MAX_COUNT,
    check_metadata,
    check_non_negative,
    check_positive,
    check_text,
)
from graphmem.errors import InvalidArgumentError
from graphmem.registry_errors import PromptArgumentError
from graphmem.registry_models import Prompt
from graphmem.stores.registry_base import StoredPrompt, StoredVersion

__all__ = [
    "check_annotations",
    "check_description",
    "check_page",
    "check_prompt_id",
    "check_prompt_text",
    "check_scope",
    "check_vid",
    "prompt_model",
]


def check_prompt_id(value: object, argument: str = "prompt_id") -> str:
    """A prompt id that may be registered (raises PromptArgumentError)."""
    if not isinstance(value, str):
        raise PromptArgumentError(argument, f"must be a string, not {type(value).__name__}")
    problem = prompt_id_problem(value)
    if problem is not None:
        raise PromptArgumentError(argument, problem)
    return value


def check_prompt_text(value: object, argument: str = "prompt") -> str:
    """Prompt text: 1 to 4000 characters, passing every validation rule."""
    if not isinstance(value, str):
        raise PromptArgumentError(argument, f"must be a string, not {type(value).__name__}")
    if not value.strip() or len(value) > MAX_PROMPT_LENGTH:
        raise PromptArgumentError(
            argument, f"must be 1 to {MAX_PROMPT_LENGTH} characters, not blank; got {len(value)}"
        )
    problem = prompt_text_problem(value)
    if problem is not None:
        raise PromptArgumentError(argument, problem)
    return value


def check_description(value: object) -> str:
    """The mandatory description: 1 to 200 characters, not blank."""
    if not isinstance(value, str):
        raise PromptArgumentError("description", f"must be a string, not {type(value).__name__}")
    if not value.strip() or len(value) > MAX_DESCRIPTION_LENGTH:
        raise PromptArgumentError(
            "description",
            f"is required: 1 to {MAX_DESCRIPTION_LENGTH} characters, not blank; got {len(value)}",
        )
    try:
        return check_text("description", value)
    except InvalidArgumentError as exc:
        raise PromptArgumentError("description", exc.detail) from None


def check_annotations(value: object) -> dict[str, Any] | None:
    if value is None:
        return None
    try:
        return check_metadata("annotations", value)
    except InvalidArgumentError as exc:
        raise PromptArgumentError("annotations", exc.detail) from exc


def _is_version(value: object) -> bool:
    """A version number: an int from 0 to MAX_COUNT (past it, no store holds one)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT


def check_scope(value: object) -> int | None:
    """``vid``: ``"all"`` (None) or a version number."""
    if value == "all":
        return None
    if not _is_version(value):
        raise PromptArgumentError(
            "vid", f'must be "all" or an integer from 0 to {MAX_COUNT}; got {value!r}'
        )
    assert isinstance(value, int)
    return value


def check_vid(value: object, argument: str = "vid") -> int | None:
    """A version number or None (the current version), named ``argument`` when refused."""
    if value is None:
        return None
    if not _is_version(value):
        raise PromptArgumentError(
            argument, f"must be None or an integer from 0 to {MAX_COUNT}; got {value!r}"
        )
    assert isinstance(value, int)
    return value


def check_page(limit: object, offset: object) -> tuple[int, int]:
    try:
        return check_positive("limit", limit), check_non_negative("offset", offset)
    except InvalidArgumentError as exc:
        raise PromptArgumentError(exc.argument, exc.detail) from exc


def prompt_model(head: StoredPrompt, version: StoredVersion) -> Prompt:
    return Prompt(
        prompt_id=head.prompt_id,
        vid=version.vid,
        prompt=version.text,
        description=head.description,
        annotations=head.annotations,
        current_vid=head.current_vid,
        version_count=head.version_count,
        archived=head.archived,
        version_archived=version.archived,
        created_at=head.created_at,
        updated_at=head.updated_at,
    )

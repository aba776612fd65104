"""What the prompt registry returns: a prompt, its versions, and pages of them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Prompt", "PromptList", "PromptVersion", "PromptVersionList"]


class Prompt(BaseModel):
    """A registered prompt, showing one version's text (the current one unless asked).

    ``description`` and ``annotations`` belong to the prompt, not to a version:
    changing them creates no version.
    """

    model_config = ConfigDict(frozen=True)

    prompt_id: str
    vid: int = Field(description="The version whose text `prompt` holds.")
    prompt: str
    description: str
    annotations: dict[str, Any] | None
    current_vid: int
    version_count: int
    archived: bool = Field(description="The whole prompt is archived.")
    version_archived: bool = Field(description="Version `vid` is archived.")
    created_at: datetime
    updated_at: datetime


class PromptVersion(BaseModel):
    """One immutable version of a prompt's text."""

    model_config = ConfigDict(frozen=True)

    prompt_id: str
    vid: int
    prompt: str
    is_current: bool
    archived: bool
    created_at: datetime


class PromptList(BaseModel):
    """One page of prompts: ``count`` on this page, ``total`` in the registry."""

    model_config = ConfigDict(frozen=True)

    prompts: list[Prompt]
    count: int
    total: int
    limit: int
    offset: int


class PromptVersionList(BaseModel):
    """One page of a prompt's versions, oldest first: ``count`` here, ``total`` in all."""

    model_config = ConfigDict(frozen=True)

    prompt_id: str
    versions: list[PromptVersion]
    count: int
    total: int
    limit: int
    offset: int

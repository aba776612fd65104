"""The prompt registry part of the store protocol (:class:`~graphmem.stores.base.Store`).

Plain reads and writes of two tables: prompts (one row per ``prompt_id``) and
their versions. The rules (what may change when) are
:class:`graphmem.registry.RegistryOperations`', which calls these methods
inside :meth:`Store.transaction`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import datetime
from typing import Any

__all__ = ["RegistryStore", "StoredPrompt", "StoredVersion"]


@dataclass(frozen=True)
class StoredPrompt:
    """A prompt row. ``version_count`` is read (counted), never written."""

    prompt_id: str
    description: str
    annotations: dict[str, Any] | None
    current_vid: int
    next_vid: int
    archived: bool
    purging_since: datetime | None
    created_at: datetime
    updated_at: datetime
    version_count: int = 0


@dataclass(frozen=True)
class StoredVersion:
    """A prompt version row."""

    prompt_id: str
    vid: int
    text: str
    archived: bool
    created_at: datetime


class RegistryStore(ABC):
    """The registry methods every store implements."""

    @abstractmethod
    def lock_prompt(self, prompt_id: str) -> None:
        """Hold the prompt's row until the transaction ends (where the backend needs it)."""

    @abstractmethod
    def get_prompt(self, prompt_id: str) -> StoredPrompt | None:
        """The prompt row with its version count, or None."""

    @abstractmethod
    def insert_prompt(self, prompt: StoredPrompt) -> None:
        """Insert; raises ConflictError when the id exists."""

    @abstractmethod
    def update_prompt(self, prompt: StoredPrompt) -> None:
        """Overwrite every field of the prompt row but its id and creation time."""

    @abstractmethod
    def delete_prompt(self, prompt_id: str) -> None:
        """Delete the prompt row and all its versions."""

    @abstractmethod
    def list_prompts(self, limit: int, offset: int) -> list[StoredPrompt]:
        """Prompts holding at least one version, by id: ``limit`` after ``offset``."""

    @abstractmethod
    def count_prompts(self) -> int:
        """How many prompts :meth:`list_prompts` pages through."""

    @abstractmethod
    def insert_prompt_version(self, version: StoredVersion) -> None:
        """Insert one version; raises ConflictError when it exists."""

    @abstractmethod
    def get_prompt_version(self, prompt_id: str, vid: int) -> StoredVersion | None:
        """One version, or None."""

    @abstractmethod
    def archive_prompt_version(self, prompt_id: str, vid: int) -> None:
        """Mark one version archived."""

    @abstractmethod
    def delete_prompt_version(self, prompt_id: str, vid: int) -> None:
        """Delete one version."""

    @abstractmethod
    def delete_prompt_versions(self, prompt_id: str) -> None:
        """Delete every version of a prompt, keeping its row."""

    @abstractmethod
    def list_prompt_versions(self, prompt_id: str, limit: int, offset: int) -> list[StoredVersion]:
        """A prompt's versions by vid: ``limit`` after ``offset``."""

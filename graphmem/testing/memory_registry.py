"""The prompt registry part of :class:`~graphmem.testing.memory_store.MemoryStore`."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from graphmem.errors import ConflictError
from graphmem.stores.registry_base import RegistryStore, StoredPrompt, StoredVersion

__all__ = ["MemoryRegistry"]


class MemoryRegistry(RegistryStore):
    """Prompt rows and version rows in two dicts (the store's transaction covers them)."""

    def __init__(self) -> None:
        self._prompts: dict[str, StoredPrompt] = {}
        self._versions: dict[tuple[str, int], StoredVersion] = {}

    def _registry_state(self) -> tuple[Any, ...]:
        return dict(self._prompts), dict(self._versions)

    def _restore_registry(self, state: tuple[Any, ...]) -> None:
        self._prompts, self._versions = state

    def _count(self, prompt_id: str) -> int:
        return sum(1 for pid, _ in self._versions if pid == prompt_id)

    def lock_prompt(self, prompt_id: str) -> None:
        """Nothing to do: the store's transaction holds its one lock."""

    def get_prompt(self, prompt_id: str) -> StoredPrompt | None:
        found = self._prompts.get(prompt_id)
        return None if found is None else replace(found, version_count=self._count(prompt_id))

    def insert_prompt(self, prompt: StoredPrompt) -> None:
        if prompt.prompt_id in self._prompts:
            raise ConflictError(f"the change violates a store constraint: {prompt.prompt_id}")
        self._prompts[prompt.prompt_id] = replace(prompt, version_count=0)

    def update_prompt(self, prompt: StoredPrompt) -> None:
        old = self._prompts.get(prompt.prompt_id)
        if old is not None:
            self._prompts[prompt.prompt_id] = replace(prompt, created_at=old.created_at)

    def delete_prompt(self, prompt_id: str) -> None:
        self.delete_prompt_versions(prompt_id)
        self._prompts.pop(prompt_id, None)

    def list_prompts(self, limit: int, offset: int) -> list[StoredPrompt]:
        ids = sorted(pid for pid in self._prompts if self._count(pid))
        return [p for pid in ids[offset : offset + limit] if (p := self.get_prompt(pid))]

    def count_prompts(self) -> int:
        return sum(1 for pid in self._prompts if self._count(pid))

    def insert_prompt_version(self, version: StoredVersion) -> None:
        key = (version.prompt_id, version.vid)
        if key in self._versions:
            raise ConflictError(f"the change violates a store constraint: version {key}")
        self._versions[key] = replace(version, archived=False)

    def get_prompt_version(self, prompt_id: str, vid: int) -> StoredVersion | None:
        return self._versions.get((prompt_id, vid))

    def archive_prompt_version(self, prompt_id: str, vid: int) -> None:
        found = self._versions.get((prompt_id, vid))
        if found is not None:
            self._versions[(prompt_id, vid)] = replace(found, archived=True)

    def delete_prompt_version(self, prompt_id: str, vid: int) -> None:
        self._versions.pop((prompt_id, vid), None)

    def delete_prompt_versions(self, prompt_id: str) -> None:
        for key in [k for k in self._versions if k[0] == prompt_id]:
            del self._versions[key]

    def list_prompt_versions(self, prompt_id: str, limit: int, offset: int) -> list[StoredVersion]:
        vids = sorted(vid for pid, vid in self._versions if pid == prompt_id)
        return [self._versions[(prompt_id, vid)] for vid in vids[offset : offset + limit]]

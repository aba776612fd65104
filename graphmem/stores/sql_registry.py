"""The prompt registry's store methods, once for every SQL dialect (statements in
``sql/<dialect>/prompts.sql``, same names and binds everywhere)."""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any

from graphmem.core.validation import format_time, parse_time
from graphmem.stores.registry_base import RegistryStore, StoredPrompt, StoredVersion

__all__ = ["SqlRegistry"]


def _annotations(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    loaded = value if isinstance(value, dict) else json.loads(value)
    return loaded if isinstance(loaded, dict) else None


def _prompt_from_row(row: Sequence[Any]) -> StoredPrompt:
    return StoredPrompt(
        prompt_id=row[0],
        description=row[1],
        annotations=_annotations(row[2]),
        current_vid=int(row[3]),
        next_vid=int(row[4]),
        archived=bool(row[5]),
        purging_since=None if row[6] is None else parse_time(str(row[6])),
        created_at=parse_time(str(row[7])),
        updated_at=parse_time(str(row[8])),
        version_count=int(row[9]),
    )


def _version_from_row(row: Sequence[Any]) -> StoredVersion:
    return StoredVersion(
        prompt_id=row[0],
        vid=int(row[1]),
        text=row[2],
        archived=bool(row[3]),
        created_at=parse_time(str(row[4])),
    )


class SqlRegistry(RegistryStore):
    """Registry methods over the named statements of ``prompts.sql``."""

    @abstractmethod
    def _run(self, name: str, **binds: Any) -> Any:
        """Execute one named statement (see :class:`~graphmem.stores.sql_store.SqlStore`)."""

    def _prompt_binds(self, prompt: StoredPrompt) -> dict[str, Any]:
        return {
            "prompt_id": prompt.prompt_id,
            "description": prompt.description,
            "annotations": None
            if prompt.annotations is None
            else json.dumps(prompt.annotations, ensure_ascii=False, separators=(",", ":")),
            "current_vid": prompt.current_vid,
            "next_vid": prompt.next_vid,
            "archived": int(prompt.archived),
            "purging_since": None
            if prompt.purging_since is None
            else format_time(prompt.purging_since),
            "updated_at": format_time(prompt.updated_at),
        }

    def lock_prompt(self, prompt_id: str) -> None:
        self._run("lock-prompt", prompt_id=prompt_id).fetchall()

    def get_prompt(self, prompt_id: str) -> StoredPrompt | None:
        row = self._run("get-prompt", prompt_id=prompt_id).fetchone()
        return None if row is None else _prompt_from_row(row)

    def insert_prompt(self, prompt: StoredPrompt) -> None:
        binds = self._prompt_binds(prompt)
        self._run("insert-prompt", created_at=format_time(prompt.created_at), **binds)

    def update_prompt(self, prompt: StoredPrompt) -> None:
        self._run("update-prompt", **self._prompt_binds(prompt))

    def delete_prompt(self, prompt_id: str) -> None:
        self._run("delete-prompt-versions", prompt_id=prompt_id)
        self._run("delete-prompt", prompt_id=prompt_id)

    def list_prompts(self, limit: int, offset: int) -> list[StoredPrompt]:
        rows = self._run("list-prompts", limit=limit, offset=offset).fetchall()
        return [_prompt_from_row(r) for r in rows]

    def count_prompts(self) -> int:
        return int(self._run("count-prompts").fetchone()[0])

    def insert_prompt_version(self, version: StoredVersion) -> None:
        self._run(
            "insert-prompt-version",
            prompt_id=version.prompt_id,
            vid=version.vid,
            prompt_text=version.text,
            created_at=format_time(version.created_at),
        )

    def get_prompt_version(self, prompt_id: str, vid: int) -> StoredVersion | None:
        row = self._run("get-prompt-version", prompt_id=prompt_id, vid=vid).fetchone()
        return None if row is None else _version_from_row(row)

    def archive_prompt_version(self, prompt_id: str, vid: int) -> None:
        self._run("archive-prompt-version", prompt_id=prompt_id, vid=vid)

    def delete_prompt_version(self, prompt_id: str, vid: int) -> None:
        self._run("delete-prompt-version", prompt_id=prompt_id, vid=vid)

    def delete_prompt_versions(self, prompt_id: str) -> None:
        self._run("delete-prompt-versions", prompt_id=prompt_id)

    def list_prompt_versions(self, prompt_id: str, limit: int, offset: int) -> list[StoredVersion]:
        rows = self._run(
            "list-prompt-versions", prompt_id=prompt_id, limit=limit, offset=offset
        ).fetchall()
        return [_version_from_row(r) for r in rows]

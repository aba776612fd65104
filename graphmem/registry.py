"""The prompt registry on :class:`graphmem.GraphMemory`: named, versioned prompts.

Versions count from 0 (the text given at registration) and never change; an
update of the text adds a version and makes it current. Archiving is one-way
and deletes nothing; purging deletes. The rules of the fields and of the text
are :mod:`graphmem.core.registry_rules`; the errors carry the codes of
:mod:`graphmem.registry_errors`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from graphmem.core.registry_rules import MAX_PROMPT_LENGTH, prompt_text_problem
from graphmem.errors import ConflictError
from graphmem.handle import StoreHandle
from graphmem.registry_checks import (
    check_annotations,
    check_description,
    check_page,
    check_prompt_id,
    check_prompt_text,
    check_scope,
    check_vid,
    prompt_model,
)
from graphmem.registry_errors import PromptArgumentError, prompt_error
from graphmem.registry_models import Prompt, PromptList, PromptVersion, PromptVersionList
from graphmem.stores.registry_base import StoredPrompt, StoredVersion

__all__ = ["PURGE_STALE_AFTER", "RegistryOperations"]

PURGE_STALE_AFTER = timedelta(minutes=10)
"""A whole-prompt purge marked longer ago than this was abandoned (its process
ended): another purge of the id may take it over."""


class RegistryOperations(StoreHandle):
    """The prompt registry methods of :class:`graphmem.GraphMemory`."""

    # reads ---------------------------------------------------------------------

    def _head(self, prompt_id: str, *, lock: bool = False) -> StoredPrompt:
        """The prompt's row; PROMPT_NOT_FOUND unless it holds a version."""
        if lock:
            self._store.lock_prompt(prompt_id)
        head = self._store.get_prompt(prompt_id)
        if head is None or head.version_count == 0:
            raise prompt_error("PROMPT_NOT_FOUND", f"prompt_id: no prompt {prompt_id!r}")
        return head

    def _version(self, head: StoredPrompt, vid: int) -> StoredVersion:
        version = self._store.get_prompt_version(head.prompt_id, vid)
        if version is None:
            raise prompt_error(
                "PROMPT_VERSION_NOT_FOUND",
                f"vid: prompt {head.prompt_id!r} has no version {vid}",
            )
        return version

    def _purging(self, head: StoredPrompt) -> bool:
        since = head.purging_since
        return since is not None and self._clock() - since < PURGE_STALE_AFTER

    def _check_writable(self, head: StoredPrompt) -> None:
        if self._purging(head):
            raise prompt_error(
                "PROMPT_ALREADY_PURGING",
                f"prompt_id: {head.prompt_id!r} is being purged; retry when the purge is over",
            )
        if head.archived:
            raise prompt_error(
                "PROMPT_ID_ARCHIVED", f"prompt_id: {head.prompt_id!r} is archived (for good)"
            )

    def get_prompt(self, prompt_id: str, vid: int | None = None) -> Prompt:
        """A prompt with its current text, or with the text of version ``vid``.

        Archived prompts and versions are shown (with ``archived`` /
        ``version_archived`` set); only new references to them are refused.

        Raises:
            PromptNotFoundError: ``PROMPT_NOT_FOUND`` or ``PROMPT_VERSION_NOT_FOUND``.
            PromptArgumentError: a malformed ``prompt_id`` or ``vid``.
        """
        self._check_open()
        check_prompt_id(prompt_id)
        wanted = check_vid(vid)
        with self._store.transaction(write=False):
            head = self._head(prompt_id)
            version = self._version(head, head.current_vid if wanted is None else wanted)
        return prompt_model(head, version)

    def list_prompts(self, limit: int = 50, offset: int = 0) -> PromptList:
        """Registered prompts by id, with their current text, one page at a time.

        ``count`` is the number on this page, ``total`` the number registered.
        """
        self._check_open()
        limit, offset = check_page(limit, offset)
        with self._store.transaction(write=False):
            heads = self._store.list_prompts(limit, offset)
            total = self._store.count_prompts()
            prompts = [prompt_model(h, self._version(h, h.current_vid)) for h in heads]
        return PromptList(
            prompts=prompts, count=len(prompts), total=total, limit=limit, offset=offset
        )

    def list_prompt_versions(
        self, prompt_id: str, limit: int = 50, offset: int = 0
    ) -> PromptVersionList:
        """A prompt's versions, oldest first, with ``vid``, ``is_current`` and ``archived``.

        Raises:
            PromptNotFoundError: ``PROMPT_NOT_FOUND``.
        """
        self._check_open()
        check_prompt_id(prompt_id)
        limit, offset = check_page(limit, offset)
        with self._store.transaction(write=False):
            head = self._head(prompt_id)
            rows = self._store.list_prompt_versions(prompt_id, limit, offset)
        versions = [
            PromptVersion(
                prompt_id=prompt_id,
                vid=v.vid,
                prompt=v.text,
                is_current=v.vid == head.current_vid,
                archived=v.archived,
                created_at=v.created_at,
            )
            for v in rows
        ]
        return PromptVersionList(
            prompt_id=prompt_id,
            versions=versions,
            count=len(versions),
            total=head.version_count,
            limit=limit,
            offset=offset,
        )

    def resolve_prompt(
        self,
        prompt_id: str,
        vid: int | None = None,
        *,
        in_flight: bool = False,
        created_at: datetime | None = None,
    ) -> Prompt:
        """The prompt text to extract with, checked against the text rules again.

        A new reference (``in_flight=False``) to an archived prompt or version is
        refused; work already under way (``in_flight=True``) still resolves it.
        A purged prompt or version does not resolve (work under way then falls
        back to the base prompt).

        Args:
            prompt_id: the prompt.
            vid: a version; None: the current one.
            in_flight: resolve for work already under way.
            created_at: the ``created_at`` of the prompt the work referred to (as
                this method returned it then): a prompt of the id created at
                another time is a new one, registered after a purge of the old,
                and does not resolve (``PROMPT_NOT_FOUND``).

        Raises:
            PromptNotFoundError: ``PROMPT_NOT_FOUND`` / ``PROMPT_VERSION_NOT_FOUND``.
            PromptConflictError: ``PROMPT_ID_ARCHIVED``, ``PROMPT_VERSION_ARCHIVED``
                or ``PROMPT_ALREADY_PURGING`` (new references only).
            PromptError: ``PROMPT_ERROR``: the stored text breaks a text rule.
        """
        self._check_open()
        check_prompt_id(prompt_id)
        wanted = check_vid(vid)
        if created_at is not None and not isinstance(created_at, datetime):
            raise PromptArgumentError("created_at", "must be None or a datetime")
        with self._store.transaction(write=False):
            head = self._head(prompt_id)
            if created_at is not None and head.created_at != created_at:
                raise prompt_error(
                    "PROMPT_NOT_FOUND",
                    f"prompt_id: the prompt {prompt_id!r} was purged (the id now names "
                    "a prompt registered since)",
                )
            if self._purging(head) and in_flight:
                raise prompt_error("PROMPT_NOT_FOUND", f"prompt_id: {prompt_id!r} is being purged")
            if not in_flight:
                self._check_writable(head)
            version = self._version(head, head.current_vid if wanted is None else wanted)
        if version.archived and wanted is not None and not in_flight:
            raise prompt_error(
                "PROMPT_VERSION_ARCHIVED",
                f"vid: version {wanted} of {prompt_id!r} is archived; pin another version",
            )
        problem = prompt_text_problem(version.text)
        if problem is not None or not 0 < len(version.text) <= MAX_PROMPT_LENGTH:
            raise prompt_error(
                "PROMPT_ERROR",
                f"prompt_id: the stored text of {prompt_id!r} version {version.vid} "
                f"is unusable: {problem or 'its length is out of range'}",
            )
        return prompt_model(head, version)

    # writes --------------------------------------------------------------------

    def create_prompt(
        self,
        prompt_id: str,
        prompt: str,
        description: str,
        annotations: Mapping[str, Any] | None = None,
    ) -> Prompt:
        """Register a prompt: version 0 holds ``prompt``.

        Args:
            prompt_id: 1 to 128 of ``a-z A-Z 0-9 _ -``; ``default`` is reserved.
                Never renamed.
            prompt: the extraction instructions, 1 to 4000 characters, checked
                against the text rules (see the registry docs).
            description: required, 1 to 200 characters.
            annotations: optional JSON object.

        Raises:
            PromptArgumentError: a bad argument (named in the message).
            PromptConflictError: ``PROMPT_ALREADY_EXISTS``, ``PROMPT_ID_ARCHIVED``
                or ``PROMPT_ALREADY_PURGING``.
        """
        self._check_open()
        check_prompt_id(prompt_id)
        text = check_prompt_text(prompt)
        about = check_description(description)
        notes = check_annotations(annotations)
        now = self._clock()
        head = StoredPrompt(prompt_id, about, notes, 0, 1, False, None, now, now, 1)
        version = StoredVersion(prompt_id, 0, text, False, now)
        with self._store.transaction():
            found = self._store.get_prompt(prompt_id)
            if found is not None:
                self._check_writable(found)
                raise prompt_error(
                    "PROMPT_ALREADY_EXISTS", f"prompt_id: {prompt_id!r} is already registered"
                )
            try:
                self._store.insert_prompt(head)
            except ConflictError as exc:  # a concurrent create won
                raise prompt_error(
                    "PROMPT_ALREADY_EXISTS", f"prompt_id: {prompt_id!r} is already registered"
                ) from exc
            self._store.insert_prompt_version(version)
        return prompt_model(head, version)

    def update_prompt(
        self,
        prompt_id: str,
        *,
        prompt: str | None = None,
        description: str | None = None,
        annotations: Mapping[str, Any] | None = None,
    ) -> Prompt:
        """Change a prompt. New text adds a version and makes it current; a new
        ``description`` or ``annotations`` changes the prompt, not a version.

        Raises:
            PromptArgumentError: a bad argument, or nothing to change.
            PromptNotFoundError: ``PROMPT_NOT_FOUND``.
            PromptConflictError: ``PROMPT_ID_ARCHIVED`` or ``PROMPT_ALREADY_PURGING``.
        """
        self._check_open()
        check_prompt_id(prompt_id)
        text = None if prompt is None else check_prompt_text(prompt)
        about = None if description is None else check_description(description)
        notes = check_annotations(annotations)
        if text is None and about is None and annotations is None:
            raise PromptArgumentError("prompt", "give prompt, description or annotations")
        now = self._clock()
        with self._store.transaction():
            head = self._head(prompt_id, lock=True)
            self._check_writable(head)
            head = replace(
                head,
                description=head.description if about is None else about,
                annotations=head.annotations if annotations is None else notes,
                updated_at=now,
            )
            if text is not None:
                version = StoredVersion(prompt_id, head.next_vid, text, False, now)
                self._store.insert_prompt_version(version)
                head = replace(
                    head,
                    current_vid=version.vid,
                    next_vid=version.vid + 1,
                    version_count=head.version_count + 1,
                )
            self._store.update_prompt(head)
            current = self._version(head, head.current_vid)
        return prompt_model(head, current)

    # retiring --------------------------------------------------------------------

    def archive_prompt(self, prompt_id: str, vid: int | str = "all") -> Prompt:
        """Archive the whole prompt (``vid="all"``: its id stays reserved for good) or
        one version (new pins to it are refused). Deletes nothing; one-way.

        Raises:
            PromptNotFoundError: ``PROMPT_NOT_FOUND`` or ``PROMPT_VERSION_NOT_FOUND``.
            PromptConflictError: ``PROMPT_ALREADY_ARCHIVED``, ``PROMPT_ID_ARCHIVED``,
                ``PROMPT_VERSION_ALREADY_ARCHIVED``, ``PROMPT_CURRENT_VERSION_ARCHIVE``
                or ``PROMPT_ALREADY_PURGING``.
        """
        self._check_open()
        check_prompt_id(prompt_id)
        scope = check_scope(vid)
        with self._store.transaction():
            head = self._head(prompt_id, lock=True)
            if scope is None and head.archived and not self._purging(head):
                raise prompt_error(
                    "PROMPT_ALREADY_ARCHIVED", f"prompt_id: {prompt_id!r} is already archived"
                )
            self._check_writable(head)
            if scope is None:
                head = replace(head, archived=True, updated_at=self._clock())
                self._store.update_prompt(head)
            else:
                self._retire_version(head, scope, "archive")
                self._store.archive_prompt_version(prompt_id, scope)
            current = self._version(head, head.current_vid)
        return prompt_model(head, current)

    def _retire_version(self, head: StoredPrompt, vid: int, action: str) -> None:
        version = self._version(head, vid)
        if vid == head.current_vid:
            raise prompt_error(
                f"PROMPT_CURRENT_VERSION_{action.upper()}",
                f"vid: {vid} is the current version of {head.prompt_id!r}; update the "
                f"prompt first, or {action} the whole prompt",
            )
        if action == "archive" and version.archived:
            raise prompt_error(
                "PROMPT_VERSION_ALREADY_ARCHIVED",
                f"vid: version {vid} of {head.prompt_id!r} is already archived",
            )

    def purge_prompt(self, prompt_id: str, vid: int | str = "all") -> None:
        """Delete the whole prompt (``vid="all"``) or one version, for good.

        A whole purge frees the id for a new prompt, unless the prompt was
        archived: an archived id stays reserved (its versions are deleted). While
        a whole purge runs, other calls on the id get ``PROMPT_ALREADY_PURGING``.
        Work that referred to the purged prompt falls back to the base prompt,
        even once a new prompt holds the id (see :meth:`resolve_prompt`'s
        ``created_at``).

        Raises:
            PromptNotFoundError: ``PROMPT_NOT_FOUND`` or ``PROMPT_VERSION_NOT_FOUND``.
            PromptConflictError: ``PROMPT_CURRENT_VERSION_PURGE`` or
                ``PROMPT_ALREADY_PURGING``.
        """
        self._check_open()
        check_prompt_id(prompt_id)
        scope = check_scope(vid)
        with self._store.transaction():
            head = self._head(prompt_id, lock=True)
            if self._purging(head):
                self._check_writable(head)
            if scope is not None:
                self._retire_version(head, scope, "purge")
                self._store.delete_prompt_version(prompt_id, scope)
                return
            # Marked in its own transaction, so that other callers see it while the
            # rows are deleted.
            self._store.update_prompt(replace(head, purging_since=self._clock()))
        self._purge_rows(head)

    def _purge_rows(self, head: StoredPrompt) -> None:
        """Phase two of a whole purge: delete the rows (an archived prompt keeps its
        row, so its id stays reserved), or clear the mark when that fails."""
        try:
            with self._store.transaction():
                if head.archived:
                    self._store.delete_prompt_versions(head.prompt_id)
                    self._store.update_prompt(replace(head, purging_since=None))
                else:
                    self._store.delete_prompt(head.prompt_id)
        except BaseException:
            with self._store.transaction():
                self._store.update_prompt(replace(head, purging_since=None))
            raise

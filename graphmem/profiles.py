"""Users and agents of :class:`graphmem.GraphMemory`: add, list, delete (with their records)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphmem.core.validation import (
    check_id,
    check_information,
    check_metadata,
    check_non_negative,
    check_positive,
)
from graphmem.errors import ConflictError, NotFoundError
from graphmem.handle import StoreHandle
from graphmem.thread_models import Profile

__all__ = ["ProfileOperations"]

_THREAD_PAGE = 500


class ProfileOperations(StoreHandle):
    """Mixed into :class:`graphmem.GraphMemory`: users and agents."""

    def _add_profile(
        self, kind: str, profile_id: object, information: object, metadata: object
    ) -> str:
        self._check_open()
        pid = check_id(f"{kind}_id", profile_id)
        profile = Profile(
            kind=kind,
            id=pid,
            information=check_information(information),
            metadata=check_metadata("metadata", metadata),
            created_at=self._clock(),
        )
        with self._store.transaction():
            if self._store.get_profile(kind, pid) is not None:
                raise ConflictError(f"{kind}_id: a {kind} {pid!r} exists already")
            self._store.insert_profile(profile)
        return pid

    def _delete_profile(self, kind: str, profile_id: object) -> int:
        self._check_open()
        pid = check_id(f"{kind}_id", profile_id)
        user, agent = (pid, None) if kind == "user" else (None, pid)
        store = self._store
        with store.transaction():
            if not store.delete_profile(kind, pid):
                raise NotFoundError(f"{kind}_id: no {kind} {pid!r}")
            # its threads' jobs go as delete_thread's do (a running one finishes
            # with nothing written)
            offset = 0
            while page := store.list_threads(user, agent, _THREAD_PAGE, offset):
                for thread in page:
                    store.delete_thread_jobs(thread.thread_id)
                offset += len(page)
            return store.delete_scope(None, user, agent)

    def _list_profiles(self, kind: str, limit: object, offset: object) -> list[Profile]:
        self._check_open()
        return self._store.list_profiles(
            kind, check_positive("limit", limit), check_non_negative("offset", offset)
        )

    def add_user(
        self,
        user_id: str,
        information: str | None = None,
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> str:
        """Record a user with free-form information; returns its id.

        An empty ``information`` is stored as ``None`` on every backend (Oracle
        stores ``''`` as NULL; :mod:`graphmem.core.texts`).

        Raises:
            ConflictError: the user exists already.
            InvalidArgumentError: a bad ``user_id``, ``information`` (None, or valid
                Unicode text of at most 100,000 characters) or ``metadata``.
        """
        return self._add_profile("user", user_id, information, metadata)

    def list_users(self, *, limit: int = 100, offset: int = 0) -> list[Profile]:
        """The recorded users, oldest first."""
        return self._list_profiles("user", limit, offset)

    def count_users(self) -> int:
        """How many users are recorded: the ``total`` that :meth:`list_users` pages
        through."""
        self._check_open()
        return self._store.count_profiles("user")

    def delete_user(self, user_id: str) -> int:
        """Forget a user and delete its records and threads (with their records and
        extraction jobs, as ``delete_thread`` does); links go with them and validity
        is recomputed. Returns the records deleted.

        Raises:
            NotFoundError: no such user recorded.
        """
        return self._delete_profile("user", user_id)

    def add_agent(
        self,
        agent_id: str,
        information: str | None = None,
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> str:
        """Record an agent with free-form information; returns its id.

        An empty ``information`` is stored as ``None`` on every backend (Oracle
        stores ``''`` as NULL; :mod:`graphmem.core.texts`).

        Raises:
            ConflictError: the agent exists already.
            InvalidArgumentError: a bad ``agent_id``, ``information`` (None, or valid
                Unicode text of at most 100,000 characters) or ``metadata``.
        """
        return self._add_profile("agent", agent_id, information, metadata)

    def list_agents(self, *, limit: int = 100, offset: int = 0) -> list[Profile]:
        """The recorded agents, oldest first."""
        return self._list_profiles("agent", limit, offset)

    def delete_agent(self, agent_id: str) -> int:
        """Forget an agent and delete its records and threads, as :meth:`delete_user`.

        Raises:
            NotFoundError: no such agent recorded.
        """
        return self._delete_profile("agent", agent_id)

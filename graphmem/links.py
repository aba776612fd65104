"""Link operations of :class:`graphmem.GraphMemory`: create, edit, delete, list.

Every check that needs stored state runs inside the store transaction that then
writes, so a rejected call changes nothing and a concurrent writer cannot slip a
conflicting link in between. Validity is recomputed by the store's SQL (triggers
on the link table) in the same transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from graphmem.core.relations import resolve_opposite
from graphmem.core.validation import (
    check_id,
    check_metadata,
    check_non_negative,
    check_optional_id,
    check_positive,
    check_timestamp,
)
from graphmem.errors import ConflictError, InvalidArgumentError, NotFoundError
from graphmem.link_writes import LinkWrites, check_endpoint_type, link_conflict
from graphmem.models import RecordRelation
from graphmem.stores.base import NewLink

__all__ = ["LinkOperations"]


class LinkOperations(LinkWrites):
    """Mixed into :class:`graphmem.GraphMemory`: the link methods."""

    def link_records(
        self,
        source_record_id: str,
        source_record_type: str,
        target_record_id: str,
        target_record_type: str,
        relation_type: str,
        opposite_relation_type: str | None = None,
        relation_id: str | None = None,
        timestamp: datetime | str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> str:
        """Link ``source -> target`` and return the relation id.

        ``supersedes``, ``refines`` and ``duplicates`` make the target invalid (kept
        as history); ``supports`` and ``contradicts`` change nothing. A custom type
        needs ``opposite_relation_type`` and has no lifecycle effect.

        Raises:
            InvalidArgumentError: a bad argument, a self link, or an endpoint type
                that is not the stored one.
            NotFoundError: an endpoint does not exist.
            ConflictError: the relation id exists, the same link exists, or the
                same type is stored in the reverse orientation.
        """
        self._check_open()
        link, source_type, target_type = self._new_link(
            source_record_id,
            source_record_type,
            target_record_id,
            target_record_type,
            relation_type,
            opposite_relation_type,
            relation_id,
            timestamp,
            metadata,
        )
        # The insert is the conflict check: the store's constraints refuse a taken
        # relation id, the same link and the reverse orientation; only then are
        # the stored rows read (after the rollback) to say which.
        try:
            with self._store.transaction():
                self._check_endpoints(link.source_id, source_type, link.target_id, target_type)
                self._store.insert_link(link)
        except ConflictError as exc:
            found = self._explain_link_conflict(link)
            if found is None:
                raise
            raise found from exc
        return link.relation_id

    def _explain_link_conflict(self, link: NewLink) -> ConflictError | None:
        """Why ``link`` was refused: its id is taken, or it duplicates a stored link."""
        with self._store.transaction(write=False):
            if self._store.get_links([link.relation_id]):
                return ConflictError(f"relation_id: {link.relation_id!r} already exists")
            existing = self._store.find_link_conflict(
                link.source_id, link.target_id, link.relation_type, ""
            )
        if existing is None:
            return None
        return ConflictError(
            link_conflict("", link.source_id, link.target_id, link.relation_type, existing)
        )

    def add_record_links(self, links: Iterable[Mapping[str, Any]]) -> list[str]:
        """Create many links in one transaction; returns their relation ids in order.

        Each item holds the arguments of :meth:`link_records` by name. All or
        nothing: a bad item, a missing endpoint or any conflict (with stored links
        or within the batch) rejects the whole call and changes nothing.

        Raises:
            InvalidArgumentError: a bad item (the message names its index).
            NotFoundError: an endpoint does not exist.
            ConflictError: a duplicate id or link, or a type stored in both orientations
                (within the batch or with a stored link).
        """
        self._check_open()
        built = self._new_links(links)
        self._write_links(built)
        return [link.relation_id for link, _, _ in built]

    def _get_link(self, relation_id: str) -> RecordRelation:
        found = self._store.get_link(relation_id)
        if found is None:
            raise NotFoundError(f"relation_id: no link {relation_id!r}")
        return found

    def get_record_link(self, relation_id: str) -> RecordRelation:
        """The link with this id.

        Raises:
            NotFoundError: no such link.
        """
        self._check_open()
        return self._get_link(check_id("relation_id", relation_id))

    def update_record_link(
        self,
        relation_id: str,
        *,
        relation_type: str | None = None,
        opposite_relation_type: str | None = None,
        timestamp: datetime | str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> RecordRelation:
        """Edit a link; omitted fields stay unchanged. Returns the updated link.

        A type change recomputes the target's validity (a former lifecycle link no
        longer invalidates it when its new type has no lifecycle effect).

        Raises:
            NotFoundError: no such link.
            InvalidArgumentError: a bad argument.
            ConflictError: the new type would duplicate another link.
        """
        self._check_open()
        check_id("relation_id", relation_id)
        new_time = check_timestamp("timestamp", timestamp)
        new_metadata = None if metadata is None else check_metadata("metadata", metadata)
        try:
            return self._update_link(
                relation_id, relation_type, opposite_relation_type, new_time, new_metadata
            )
        except ConflictError as exc:
            found = self._explain_update_conflict(
                relation_id, relation_type, opposite_relation_type
            )
            if found is None:
                raise
            raise found from exc

    def _explain_update_conflict(
        self, relation_id: str, relation_type: str | None, opposite_relation_type: str | None
    ) -> ConflictError | None:
        """Which stored link the refused new type of ``relation_id`` would duplicate."""
        with self._store.transaction(write=False):
            current = self._get_link(relation_id)
            rtype = current.relation_type
            if relation_type is not None and relation_type != rtype:
                rtype = resolve_opposite(relation_type, opposite_relation_type)[0]
            source, target = current.source_record_id, current.target_record_id
            existing = self._store.find_link_conflict(source, target, rtype, relation_id)
        if existing is None:
            return None
        return ConflictError(link_conflict("", source, target, rtype, existing))

    def _update_link(
        self,
        relation_id: str,
        relation_type: str | None,
        opposite_relation_type: str | None,
        new_time: datetime | None,
        new_metadata: dict[str, Any] | None,
    ) -> RecordRelation:
        with self._store.transaction():
            current = self._get_link(relation_id)
            if relation_type is None or (
                relation_type == current.relation_type and opposite_relation_type is None
            ):  # the type kept (a custom one with its stored opposite)
                rtype = current.relation_type
                given = (
                    current.opposite_relation_type
                    if opposite_relation_type is None
                    else opposite_relation_type
                )
                rtype, opposite = resolve_opposite(rtype, given)
            else:
                rtype, opposite = resolve_opposite(relation_type, opposite_relation_type)
            changed = current.model_copy(
                update={
                    "relation_type": rtype,
                    "opposite_relation_type": opposite,
                    "timestamp": current.timestamp if new_time is None else new_time,
                    "metadata": current.metadata if new_metadata is None else new_metadata,
                }
            )
            self._store.update_link(
                relation_id, rtype, opposite, changed.timestamp, changed.metadata
            )
        # The row as written: the triggers change memories' status, never a link.
        return changed

    def delete_record_link(
        self,
        relation_id: str | None = None,
        *,
        source_record_id: str | None = None,
        source_record_type: str | None = None,
        target_record_id: str | None = None,
        target_record_type: str | None = None,
        relation_type: str | None = None,
    ) -> None:
        """Delete a link by ``relation_id``, or by its complete directed triple.

        Raises:
            InvalidArgumentError: neither form given completely, or both given.
            NotFoundError: no such link.
        """
        self._check_open()
        triple = (
            source_record_id,
            source_record_type,
            target_record_id,
            target_record_type,
            relation_type,
        )
        if relation_id is not None:
            if any(v is not None for v in triple):
                raise InvalidArgumentError(
                    "relation_id", "give either relation_id or the directed triple, not both"
                )
            check_id("relation_id", relation_id)
            with self._store.transaction():
                if not self._store.delete_link(relation_id):
                    raise NotFoundError(f"relation_id: no link {relation_id!r}")
            return
        self._delete_by_triple(*triple)

    def _delete_by_triple(
        self,
        source_record_id: str | None,
        source_record_type: str | None,
        target_record_id: str | None,
        target_record_type: str | None,
        relation_type: str | None,
    ) -> None:
        names = (
            "source_record_id",
            "source_record_type",
            "target_record_id",
            "target_record_type",
            "relation_type",
        )
        values = (
            source_record_id,
            source_record_type,
            target_record_id,
            target_record_type,
            relation_type,
        )
        for name, value in zip(names, values, strict=True):
            if value is None:
                raise InvalidArgumentError(
                    name,
                    "deleting by triple needs source id and type, target id and type, "
                    "and relation_type (or give relation_id)",
                )
        source_id = check_id("source_record_id", source_record_id)
        target_id = check_id("target_record_id", target_record_id)
        source_type = check_endpoint_type("source_record_type", source_record_type)
        target_type = check_endpoint_type("target_record_type", target_record_type)
        rtype = check_optional_id("relation_type", relation_type)
        assert rtype is not None
        with self._store.transaction():
            self._check_endpoints(source_id, source_type, target_id, target_type)
            found = self._store.find_link(source_id, target_id, rtype)
            if found is None:
                raise NotFoundError(
                    f"relation_type: no {rtype!r} link from {source_id!r} to {target_id!r}"
                )
            self._store.delete_link(found)

    def list_record_links(
        self,
        record_id: str | None = None,
        relation_type: str | None = None,
        *,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[RecordRelation]:
        """Links touching ``record_id`` (either end) and of ``relation_type``; oldest first.

        The order is stable (creation time, then relation id), so ``limit`` and
        ``offset`` page through it; ``limit=None`` returns every link after ``offset``.
        """
        self._check_open()
        rid = check_optional_id("record_id", record_id)
        rtype = check_optional_id("relation_type", relation_type)
        count = None if limit is None else check_positive("limit", limit)
        return self._store.list_links(rid, rtype, count, check_non_negative("offset", offset))

    def count_record_links(
        self, record_id: str | None = None, relation_type: str | None = None
    ) -> int:
        """How many links :meth:`list_record_links` pages through for the same
        ``record_id`` and ``relation_type``."""
        self._check_open()
        rid = check_optional_id("record_id", record_id)
        return self._store.count_links(rid, check_optional_id("relation_type", relation_type))

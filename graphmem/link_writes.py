"""New links for :class:`graphmem.GraphMemory`: argument checks and conflict checks.

The checks that read stored state run inside the caller's write transaction.
Conflicts are reported by item (``links[i]``) and in graphmem's words: a batch is
checked against itself first, then its relation ids against the store; a
remaining constraint failure (a link with the same pair and type) is looked up
after the rollback to name the item.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from graphmem.core.bulk_keys import LINK_KEYS
from graphmem.core.record_types import LINKABLE_TYPES
from graphmem.core.relations import batch_conflict, resolve_opposite
from graphmem.core.validation import check_id, check_metadata, check_timestamp
from graphmem.errors import ConflictError, InvalidArgumentError, NotFoundError
from graphmem.handle import StoreHandle
from graphmem.stores.base import NewLink

__all__ = ["LinkWrites", "check_endpoint_type", "link_conflict", "new_relation_id"]

_REQUIRED_LINK_KEYS = (
    "source_record_id",
    "source_record_type",
    "target_record_id",
    "target_record_type",
    "relation_type",
)
_LOOKUP_BATCH = 5000


def new_relation_id() -> str:
    """A random version 4 UUID in its text form, as ``str(uuid.uuid4())`` gives it.

    Built from 16 bytes of ``os.urandom`` directly: the ``uuid.UUID`` object and
    its ``__str__`` cost more than the random bytes, once per new link.
    """
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40  # version 4
    raw[8] = (raw[8] & 0x3F) | 0x80  # the RFC 4122 variant
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def check_endpoint_type(argument: str, value: object) -> str:
    """A memory-like record type given for a link endpoint."""
    if not isinstance(value, str) or value not in LINKABLE_TYPES:
        shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
        raise InvalidArgumentError(
            argument,
            f"only memory-like records can be linked ({', '.join(LINKABLE_TYPES)}); got {shown}",
        )
    return str(value)


def link_conflict(prefix: str, source_id: str, target_id: str, rtype: str, existing: str) -> str:
    """The message of a link that conflicts with the stored link ``existing``."""
    return (
        f"{prefix}relation_type: a {rtype!r} link between {source_id!r} and {target_id!r} "
        f"already exists ({existing!r}); a type is stored once, in one orientation"
    )


class LinkWrites(StoreHandle):
    """Mixed into :class:`graphmem.GraphMemory`: building and checking new links."""

    def _check_endpoints(
        self, source_id: str, source_type: str, target_id: str, target_type: str
    ) -> None:
        found = self._store.get_endpoint_types(source_id, target_id)
        for arg, record_id, record_type, stored in (
            ("source_record_id", source_id, source_type, found[0]),
            ("target_record_id", target_id, target_type, found[1]),
        ):
            if stored is None:
                raise NotFoundError(f"{arg}: no memory {record_id!r}")
            if stored != record_type:
                type_arg = arg.replace("_id", "_type")
                raise InvalidArgumentError(
                    type_arg, f"{record_id!r} is a {stored}, not a {record_type}"
                )

    def _check_no_conflict(
        self, source_id: str, target_id: str, relation_type: str, exclude: str = ""
    ) -> None:
        existing = self._store.find_link_conflict(source_id, target_id, relation_type, exclude)
        if existing is not None:
            raise ConflictError(link_conflict("", source_id, target_id, relation_type, existing))

    def _new_link(
        self,
        source_record_id: object,
        source_record_type: object,
        target_record_id: object,
        target_record_type: object,
        relation_type: object,
        opposite_relation_type: object = None,
        relation_id: object = None,
        timestamp: object = None,
        metadata: object = None,
    ) -> tuple[NewLink, str, str]:
        source_id = check_id("source_record_id", source_record_id)
        source_type = check_endpoint_type("source_record_type", source_record_type)
        target_id = check_id("target_record_id", target_record_id)
        target_type = check_endpoint_type("target_record_type", target_record_type)
        rtype, opposite = resolve_opposite(relation_type, opposite_relation_type)
        if source_id == target_id:
            raise InvalidArgumentError("target_record_id", "a record cannot be linked to itself")
        link = NewLink(
            relation_id=new_relation_id()
            if relation_id is None
            else check_id("relation_id", relation_id),
            source_id=source_id,
            target_id=target_id,
            relation_type=rtype,
            opposite_relation_type=opposite,
            timestamp=check_timestamp("timestamp", timestamp),
            metadata=check_metadata("metadata", metadata),
            created_at=self._clock(),
        )
        return link, source_type, target_type

    def _new_links(self, links: object) -> list[tuple[NewLink, str, str]]:
        """The items of ``add_record_links``, checked; errors name ``links[i]``."""
        if isinstance(links, (str, bytes, Mapping)) or not isinstance(links, Iterable):
            raise InvalidArgumentError("links", "must be an iterable of mappings")
        built: list[tuple[NewLink, str, str]] = []
        for index, item in enumerate(links):
            if not isinstance(item, Mapping):
                raise InvalidArgumentError(f"links[{index}]", "must be a mapping")
            unknown = set(item) - LINK_KEYS
            if unknown:
                names = sorted(map(repr, unknown))
                raise InvalidArgumentError(f"links[{index}]", f"unknown keys {', '.join(names)}")
            missing = [key for key in _REQUIRED_LINK_KEYS if key not in item]
            if missing:
                raise InvalidArgumentError(
                    f"links[{index}]", f"missing keys {', '.join(map(repr, missing))}"
                )
            try:
                built.append(self._new_link(**item))
            except InvalidArgumentError as exc:
                raise InvalidArgumentError(f"links[{index}].{exc.argument}", exc.detail) from exc
        return built

    def _check_new_relation_ids(self, new: list[NewLink]) -> None:
        ids = [link.relation_id for link in new]
        for start in range(0, len(ids), _LOOKUP_BATCH):
            found = self._store.get_links(ids[start : start + _LOOKUP_BATCH])
            if found:
                index = next(i for i, rid in enumerate(ids) if rid in found)
                raise ConflictError(f"links[{index}].relation_id: {ids[index]!r} already exists")

    def _explain_conflict(self, new: list[NewLink]) -> ConflictError | None:
        with self._store.transaction(write=False):
            for index, link in enumerate(new):
                existing = self._store.find_link_conflict(
                    link.source_id, link.target_id, link.relation_type, ""
                )
                if existing is not None:
                    return ConflictError(
                        link_conflict(
                            f"links[{index}].",
                            link.source_id,
                            link.target_id,
                            link.relation_type,
                            existing,
                        )
                    )
        return None

    def _check_endpoint_batch(self, built: list[tuple[NewLink, str, str]]) -> None:
        ids = sorted({i for link, _, _ in built for i in (link.source_id, link.target_id)})
        types: dict[str, str] = {}
        for start in range(0, len(ids), _LOOKUP_BATCH):
            types.update(self._store.get_record_types(ids[start : start + _LOOKUP_BATCH]))
        for index, (link, source_type, target_type) in enumerate(built):
            for end, rid, rtype in (
                ("source", link.source_id, source_type),
                ("target", link.target_id, target_type),
            ):
                if rid not in types:
                    raise NotFoundError(f"links[{index}].{end}_record_id: no memory {rid!r}")
                if types[rid] != rtype:
                    raise InvalidArgumentError(
                        f"links[{index}].{end}_record_type", f"{rid!r} is a {types[rid]}"
                    )

    def _write_links(self, built: list[tuple[NewLink, str, str]], check_ids: bool = True) -> None:
        """Insert checked links in one transaction, after the conflict and endpoint
        checks; ``check_ids=False`` when the caller looked the relation ids up in
        the same write transaction."""
        new = [link for link, _, _ in built]
        within = batch_conflict(
            [(n.relation_id, n.source_id, n.target_id, n.relation_type) for n in new]
        )
        if within is not None:
            raise ConflictError(within)
        checked = False
        try:
            with self._store.transaction():
                self._check_endpoint_batch(built)
                if check_ids:
                    self._check_new_relation_ids(new)
                checked = True
                self._store.insert_links(new)
        except ConflictError as exc:
            # Only a stored link with the same pair and type is left: find it (the
            # failed batch is rolled back) to name the item instead of the constraint.
            found = self._explain_conflict(new) if checked else None
            if found is None:
                raise
            raise found from exc

"""Relation types, their opposites and their lifecycle effect (docs/semantics.md section 2)."""

from __future__ import annotations

from collections.abc import Sequence

from graphmem.core.record_types import MEMORY_TYPES
from graphmem.errors import InvalidArgumentError

__all__ = [
    "BUILTIN_OPPOSITES",
    "LIFECYCLE_TYPES",
    "MEMORY_TYPES",
    "batch_conflict",
    "is_lifecycle",
    "resolve_opposite",
]

BUILTIN_OPPOSITES: dict[str, str] = {
    "supersedes": "is_superseded_by",
    "refines": "is_refined_by",
    "duplicates": "duplicates",
    "supports": "is_supported_by",
    "contradicts": "contradicts",
}
"""The label shown when a built-in link is followed from its target to its source."""

LIFECYCLE_TYPES: frozenset[str] = frozenset({"supersedes", "refines", "duplicates"})
"""Link types that make their target invalid (kept as history)."""

_MAX_TYPE_LEN = 64


def is_lifecycle(relation_type: str) -> bool:
    """Whether a link of this type invalidates its target.

    >>> is_lifecycle("supersedes"), is_lifecycle("supports"), is_lifecycle("custom")
    (True, False, False)
    """
    return relation_type in LIFECYCLE_TYPES


def _check_label(argument: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgumentError(argument, "must be a non-empty string")
    if len(value) > _MAX_TYPE_LEN:
        raise InvalidArgumentError(argument, f"must be at most {_MAX_TYPE_LEN} characters")
    if value != value.strip():
        raise InvalidArgumentError(argument, "must not start or end with whitespace")
    if "\x00" in value:
        raise InvalidArgumentError(argument, "must not contain NUL characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArgumentError(argument, "is not valid Unicode text") from None
    return value


def resolve_opposite(
    relation_type: object, opposite_relation_type: object | None
) -> tuple[str, str]:
    """Validate a relation type and return it with its opposite label.

    Built-in types have a fixed opposite; a custom type needs an explicit one.

    >>> resolve_opposite("refines", None)
    ('refines', 'is_refined_by')
    >>> resolve_opposite("mentions", "is_mentioned_by")
    ('mentions', 'is_mentioned_by')

    Raises:
        InvalidArgumentError: empty or over-long labels, a custom type without an
            opposite, or a built-in type given a different opposite.
    """
    rtype = _check_label("relation_type", relation_type)
    builtin = BUILTIN_OPPOSITES.get(rtype)
    if builtin is not None:
        if opposite_relation_type is not None and (
            not isinstance(opposite_relation_type, str) or opposite_relation_type != builtin
        ):
            raise InvalidArgumentError(
                "opposite_relation_type",
                f"the built-in type {rtype!r} has the fixed opposite {builtin!r}",
            )
        return rtype, builtin
    if opposite_relation_type is None:
        raise InvalidArgumentError(
            "opposite_relation_type",
            f"the custom relation type {rtype!r} needs an explicit opposite "
            f"(built-in types: {', '.join(sorted(BUILTIN_OPPOSITES))})",
        )
    if rtype.lower() in BUILTIN_OPPOSITES:
        raise InvalidArgumentError(
            "relation_type", f"built-in types are lower case: use {rtype.lower()!r}"
        )
    return rtype, _check_label("opposite_relation_type", opposite_relation_type)


def batch_conflict(links: Sequence[tuple[str, str, str, str]]) -> str | None:
    """Why a batch of new links conflicts within itself, or ``None``.

    Each link is ``(relation_id, source_id, target_id, relation_type)``; the
    message names the later item of the first conflicting pair as ``links[i]``.

    >>> batch_conflict([("r1", "a", "b", "supports"), ("r2", "a", "c", "supports")]) is None
    True
    >>> batch_conflict([("r1", "a", "b", "supports"), ("r2", "b", "a", "supports")])
    "links[1].relation_type: a 'supports' link between 'b' and 'a' already exists in links[0]; \
a type is stored once, in one orientation"
    """
    ids: dict[str, int] = {}
    pairs: dict[tuple[str, str, str], int] = {}
    for index, (relation_id, source, target, rtype) in enumerate(links):
        if relation_id in ids:
            earlier = ids[relation_id]
            return f"links[{index}].relation_id: {relation_id!r} already exists in links[{earlier}]"
        ids[relation_id] = index
        key = (min(source, target), max(source, target), rtype)
        if key in pairs:
            return (
                f"links[{index}].relation_type: a {rtype!r} link between {source!r} and "
                f"{target!r} already exists in links[{pairs[key]}]; a type is stored once, "
                "in one orientation"
            )
        pairs[key] = index
    return None

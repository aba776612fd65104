"""Canonical text of metadata scalars, so metadata filters mean the same everywhere.

Each top-level scalar entry of a memory's metadata is stored beside it as
``(key, canonical value)``; a filter ``{key: value}`` matches when the canonical
texts are equal. The text is computed here, in Python, for every backend, so no
database's JSON number or boolean rules can make two backends disagree.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["MAX_INLINE", "canonical_scalar", "filterable_entries"]

MAX_INLINE = 512
"""Longer canonical texts are replaced by their SHA-256, keeping index rows small."""


def canonical_scalar(value: Any) -> str | None:
    """The canonical text of a JSON scalar, or ``None`` for arrays and objects.

    Integers and integral floats are equal (``1 == 1.0``), booleans are not numbers,
    and strings are JSON-quoted so that ``"1"`` differs from ``1``.

    >>> [canonical_scalar(v) for v in (1, 1.0, 1.5, True, None, "1", [1])]
    ['1', '1', '1.5', 'true', 'null', '"1"', None]
    """
    if value is None:
        text = "null"
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, int):
        text = str(value)
    elif isinstance(value, float):
        if math.isfinite(value) and value.is_integer() and -(2**63) <= value < 2**63:
            text = str(int(value))
        else:
            text = repr(value)
    elif isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
    else:
        return None
    if len(text) > MAX_INLINE:
        text = "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return text


def filterable_entries(metadata: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """``(key, canonical value)`` for every top-level scalar entry.

    >>> list(filterable_entries({"a": 1, "b": {"c": 2}, "d": "x"}))
    [('a', '1'), ('d', '"x"')]
    """
    for key, value in metadata.items():
        text = canonical_scalar(value)
        if text is not None:
            yield key, text

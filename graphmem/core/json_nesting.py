"""How deeply JSON text nests, found without parsing it.

``json.loads`` gives up on deep nesting at a depth that depends on the Python
(before 3.13 it raises RecursionError somewhat under 1,000 levels; 3.13's parses
far deeper), so graphmem refuses JSON nested past :data:`MAX_JSON_DEPTH` levels
itself, before parsing, and answers alike on every Python.
"""

from __future__ import annotations

import re

__all__ = ["MAX_JSON_DEPTH", "json_too_deep"]

MAX_JSON_DEPTH = 500
"""The deepest nesting of arrays and objects that graphmem parses (the CLI's JSON
option values, the service's request bodies). The library refuses metadata past
32 levels anyway."""

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def json_too_deep(text: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether JSON ``text`` nests arrays and objects more than ``limit`` levels deep.

    Brackets inside strings do not count. Linear in the length of ``text``: the
    strings and everything but brackets are dropped by ``re`` and
    ``bytes.translate``, and the brackets left are counted only when there are more
    than ``limit`` of them. Text that is not JSON gets some answer (JSON parsing
    refuses it anyway).

    >>> json_too_deep(b'{"a": [[1], {"b": "[[["}]}', limit=3)
    False
    >>> json_too_deep(b"[" * 4 + b"]" * 4, limit=3)
    True
    """
    brackets = _STRING.sub(b"", text).translate(None, _NOT_BRACKETS)
    opens = brackets.count(b"[") + brackets.count(b"{")
    if opens <= limit:
        return False
    depth = 0
    for byte in brackets:
        if byte in b"[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False

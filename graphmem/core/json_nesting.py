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

_SPECIAL = re.compile(rb'[\[\]{}"\\]')
_QUOTE, _BACKSLASH, _OPENS, _CLOSES = 0x22, 0x5C, (0x5B, 0x7B), (0x5D, 0x7D)


def json_too_deep(text: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether JSON ``text`` nests arrays and objects more than ``limit`` levels deep.

    Brackets inside strings do not count. Linear in the length of ``text``, whatever
    it holds: text with at most ``limit`` opening brackets in all is answered by
    counting them; otherwise one pass visits each bracket, quote and backslash once.
    Text that is not JSON gets some answer (JSON parsing refuses it anyway).

    >>> json_too_deep(b'{"a": [[1], {"b": "[[[\\\\"}]}', limit=3)
    False
    >>> json_too_deep(b"[" * 4 + b"]" * 4, limit=3)
    True
    """
    if text.count(b"[") + text.count(b"{") <= limit:
        return False
    depth, in_string, skip_to = 0, False, 0
    for found in _SPECIAL.finditer(text):
        at = found.start()
        if at < skip_to:  # the character a backslash escapes
            continue
        byte = text[at]
        if in_string:
            if byte == _BACKSLASH:
                skip_to = at + 2
            elif byte == _QUOTE:
                in_string = False
        elif byte == _QUOTE:
            in_string = True
        elif byte in _OPENS:
            depth += 1
            if depth > limit:
                return True
        elif byte in _CLOSES:
            depth -= 1
    return False

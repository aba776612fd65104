"""Optional texts: an empty one is no text.

Oracle stores ``''`` as NULL, so an optional text column cannot keep an empty
string apart from a missing one there. graphmem makes both backends agree by
turning ``''`` into ``None`` before any store sees it: a user's or agent's
information, a thread's summary, a memory block's summary and error, an API
key's label and a job's last error all read back as ``None`` when set to ``''``.
"""

from __future__ import annotations

__all__ = ["optional_text"]


def optional_text(value: str | None) -> str | None:
    """``value``, or ``None`` for the empty string (other values are kept as they are).

    >>> optional_text(""), optional_text(" "), optional_text(None), optional_text("tea")
    (None, ' ', None, 'tea')
    """
    return None if value == "" else value

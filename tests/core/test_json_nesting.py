"""The nesting check run on service bodies before parsing: it agrees with the
depth of the parsed value, and its work grows with the text's length only."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from graphmem.core.json_nesting import json_too_deep

# Strings full of the characters the scan looks at: brackets, quotes, backslashes.
_TRICKY = st.text(alphabet='[]{}"\\ab\u00e9', max_size=8)
_VALUES = st.recursive(
    st.none() | st.integers() | _TRICKY,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TRICKY, inner, max_size=3),
    max_leaves=30,
)


def _depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    return 0


@given(value=_VALUES, limit=st.integers(0, 6), ascii_only=st.booleans())
def test_the_check_agrees_with_the_parsed_depth(value: Any, limit: int, ascii_only: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only).encode()
    assert json_too_deep(text, limit) == (_depth(value) > limit)


def test_unterminated_strings_of_escapes_take_one_pass() -> None:
    """A megabyte of escaped quotes with no closing quote: a scan that looked for
    each string's end from every quote took minutes on 80 KB."""
    body = b'"' + b'\\"' * 500_000 + b"[" * 600
    assert json_too_deep(body, 500) is False  # every bracket is inside the string
    assert json_too_deep(b"[" * 600 + body, 500) is True

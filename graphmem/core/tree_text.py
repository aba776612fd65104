"""A linked tree as terminal text, one record per line (the ``graphmem tree`` view)."""

from __future__ import annotations

import re

from graphmem.models import MemoryRecord, SearchResult

__all__ = ["one_line", "record_line", "tree_text"]

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def one_line(text: str, width: int | None = None) -> str:
    """``text`` on one line: control characters (terminal escapes, newlines) shown
    as ``\\xNN``, cut to ``width`` characters with an ellipsis.

    >>> one_line("two\\nlines \\x1b[31mred")
    'two\\\\x0alines \\\\x1b[31mred'
    >>> one_line("abcdefgh", 5)
    'abcd…'
    """
    shown = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    if width is not None and len(shown) > width:
        return shown[: max(width - 1, 0)] + "…"
    return shown


def record_line(record: MemoryRecord, width: int | None = 80) -> str:
    """``id [type, status] content`` for one record.

    >>> from datetime import datetime, timezone
    >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> record_line(MemoryRecord(id="m1", record_type="fact", content="Sky is blue.",
    ...     status="valid", timestamp=t, created_at=t))
    'm1 [fact, valid] Sky is blue.'
    """
    return (
        f"{one_line(record.id)} [{record.record_type}, {record.status}] "
        f"{one_line(record.content, width)}"
    )


def _lines(result: SearchResult, prefix: str, out: list[str], width: int | None) -> None:
    children = result.linked_results
    for index, (relation, child) in enumerate(children):
        last = index == len(children) - 1
        branch, carry = ("└── ", "    ") if last else ("├── ", "│   ")
        label = one_line(relation.label_from(result.id))
        out.append(f"{prefix}{branch}{label} → {record_line(child.record, width)}")
        _lines(child, prefix + carry, out, width)


def tree_text(result: SearchResult, width: int | None = 80) -> str:
    """The root record, then each linked record under its parent with the link's label.

    The label reads from parent to child: ``supersedes`` when the parent is the
    stored source, ``is_superseded_by`` when it is the stored target. Every record
    is shown, valid or not.

    >>> from datetime import datetime, timezone
    >>> from graphmem.models import RecordRelation
    >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> def rec(i, s): return MemoryRecord(id=i, record_type="fact", content=i.upper(),
    ...     status=s, timestamp=t, created_at=t)
    >>> rel = RecordRelation(id="l1", source_record_id="new", source_record_type="fact",
    ...     target_record_id="old", target_record_type="fact", relation_type="supersedes",
    ...     opposite_relation_type="is_superseded_by", created_at=t)
    >>> leaf = SearchResult(record=rec("old", "invalid"))
    >>> print(tree_text(SearchResult(record=rec("new", "valid"), linked_results=[(rel, leaf)])))
    new [fact, valid] NEW
    └── supersedes → old [fact, invalid] OLD
    """
    out = [record_line(result.record, width)]
    _lines(result, "", out, width)
    return "\n".join(out)

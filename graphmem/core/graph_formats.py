"""Graph text formats for a set of records and the links between them.

Mermaid and DOT draw a subgraph (a few hundred nodes at most is what a reader
can look at); GraphML carries a whole store to graph tools. Pure functions over
records and relations: no store, no I/O.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from xml.sax.saxutils import escape, quoteattr

from graphmem.core.tree_text import one_line
from graphmem.models import MemoryRecord, RecordRelation

__all__ = ["dot", "graphml", "mermaid"]


def _label(record: MemoryRecord, width: int) -> str:
    return f"{one_line(record.id)}: {one_line(record.content, width)}"


def mermaid(
    records: Sequence[MemoryRecord], links: Sequence[RecordRelation], width: int = 40
) -> str:
    """A Mermaid ``flowchart`` (nodes ``n0``, ``n1``, ... so any id is safe).

    Invalid records get the class ``invalid`` (dashed). Labels are quoted with
    ``#quot;`` for double quotes, as Mermaid requires.

    >>> from datetime import datetime, timezone
    >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> a = MemoryRecord(id="a", record_type="fact", content='say "hi"', status="valid",
    ...     timestamp=t, created_at=t)
    >>> print(mermaid([a], []))
    flowchart LR
      n0["a: say #quot;hi#quot;"]
      classDef invalid stroke-dasharray: 5 5,color:#888
    """
    ids = {record.id: f"n{i}" for i, record in enumerate(records)}
    lines = ["flowchart LR"]
    for record in records:
        text = _label(record, width).replace('"', "#quot;")
        suffix = ":::invalid" if record.status == "invalid" else ""
        lines.append(f'  {ids[record.id]}["{text}"]{suffix}')
    for link in links:
        if link.source_record_id in ids and link.target_record_id in ids:
            kind = one_line(link.relation_type).replace('"', "#quot;").replace("|", "#124;")
            lines.append(f"  {ids[link.source_record_id]} -->|{kind}| {ids[link.target_record_id]}")
    lines.append("  classDef invalid stroke-dasharray: 5 5,color:#888")
    return "\n".join(lines)


def _dot_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def dot(records: Sequence[MemoryRecord], links: Sequence[RecordRelation], width: int = 40) -> str:
    """A Graphviz ``digraph``; invalid records are dashed.

    >>> from datetime import datetime, timezone
    >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> a = MemoryRecord(id="a", record_type="fact", content="x", status="invalid",
    ...     timestamp=t, created_at=t)
    >>> print(dot([a], []))
    digraph graphmem {
      rankdir=LR;
      "a" [label="a: x", style=dashed];
    }
    """
    lines = ["digraph graphmem {", "  rankdir=LR;"]
    known = {record.id for record in records}
    for record in records:
        style = ", style=dashed" if record.status == "invalid" else ""
        lines.append(
            f"  {_dot_quote(record.id)} [label={_dot_quote(_label(record, width))}{style}];"
        )
    for link in links:
        if link.source_record_id in known and link.target_record_id in known:
            lines.append(
                f"  {_dot_quote(link.source_record_id)} -> {_dot_quote(link.target_record_id)}"
                f" [label={_dot_quote(one_line(link.relation_type))}];"
            )
    lines.append("}")
    return "\n".join(lines)


_NODE_KEYS = (
    "record_type",
    "content",
    "status",
    "user_id",
    "agent_id",
    "thread_id",
    "metadata",
    "timestamp",
    "created_at",
    "expires_at",
)
_EDGE_KEYS = ("relation_type", "opposite_relation_type", "metadata", "timestamp", "created_at")


_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_safe(text: str) -> str:
    """Characters XML 1.0 cannot hold at all, written as ``\\xNN``."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _attr(text: str) -> str:
    return quoteattr(_xml_safe(text))


def _data(key: str, value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        text = value.isoformat()
    elif isinstance(value, dict):
        text = json.dumps(value, ensure_ascii=False)
    else:
        text = str(value)
    return f'<data key="{key}">{escape(_xml_safe(text))}</data>'


def graphml(records: Iterable[MemoryRecord], links: Iterable[RecordRelation]) -> Iterator[str]:
    """GraphML lines: a directed graph, every field as string data (metadata as JSON).

    >>> "".join(graphml([], [])).count("<key ")
    15
    """
    yield '<?xml version="1.0" encoding="UTF-8"?>\n'
    yield '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n'
    for key in _NODE_KEYS:
        yield f'  <key id="n_{key}" for="node" attr.name="{key}" attr.type="string"/>\n'
    for key in _EDGE_KEYS:
        yield f'  <key id="e_{key}" for="edge" attr.name="{key}" attr.type="string"/>\n'
    yield '  <graph id="graphmem" edgedefault="directed">\n'
    for record in records:
        data = "".join(_data(f"n_{k}", getattr(record, k)) for k in _NODE_KEYS)
        yield f"    <node id={_attr(record.id)}>{data}</node>\n"
    for link in links:
        data = "".join(_data(f"e_{k}", getattr(link, k)) for k in _EDGE_KEYS)
        yield (
            f"    <edge id={_attr(link.id)} source={_attr(link.source_record_id)} "
            f"target={_attr(link.target_record_id)}>{data}</edge>\n"
        )
    yield "  </graph>\n</graphml>\n"

"""Prompt text for search results (docs/semantics.md section 4)."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from graphmem.core.record_types import RECORD_TYPE_NAMES

if TYPE_CHECKING:  # models imports this module: types only, no import cycle
    from graphmem.models import SearchResult, SearchResultFormatConfig

__all__ = ["escape_attribute", "escape_text", "render_result"]

_ELEMENT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_RESERVED = (
    frozenset(
        {
            "record_id",
            "thread_id",
            "estimated_relevance",
            "timestamp",
            "role",
            "user_id",
            "agent_id",
            "status",
            "content",
            "linked_records",
            "linked_record",
            "relation_type",
            "metadata",
        }
    )
    | RECORD_TYPE_NAMES
)
_INDENT = "  "


def escape_text(value: str) -> str:
    """Escape element text so stored values cannot open or close elements.

    >>> escape_text("a < b && </content>")
    'a &lt; b &amp;&amp; &lt;/content&gt;'
    """
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def escape_attribute(value: str) -> str:
    """Escape a double-quoted attribute value.

    >>> escape_attribute('say "hi" <b>')
    'say &quot;hi&quot; &lt;b&gt;'
    """
    return escape_text(value).replace('"', "&quot;")


def _metadata_value(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return escape_text(text)


def _metadata_line(key: str, value: Any) -> str:
    """``<key>value</key>`` when the key is a safe element name, else a keyed element.

    >>> _metadata_line("source", "chat"), _metadata_line("a b", 1)
    ('<source>chat</source>', '<metadata key="a b">1</metadata>')
    """
    text = _metadata_value(value)
    safe = (
        _ELEMENT_NAME.fullmatch(key) is not None
        and key not in _RESERVED
        and not key.lower().startswith("xml")
    )
    if safe:
        return f"<{key}>{text}</{key}>"
    return f'<metadata key="{escape_attribute(key)}">{text}</metadata>'


def _has_valid(result: SearchResult) -> bool:
    if result.status == "valid":
        return True
    return any(_has_valid(child) for _, child in result.linked_results)


def _fields(result: SearchResult, config: SearchResultFormatConfig) -> list[str]:
    record = result.record
    lines = [f"<record_id>{escape_text(record.id)}</record_id>"]
    optional: list[tuple[bool, str, Any]] = [
        (config.show_thread_id, "thread_id", record.thread_id),
        (
            config.show_distance,
            "estimated_relevance",
            None if result.distance is None else f"{1.0 - result.distance:.2f}",
        ),
        (config.show_timestamp, "timestamp", record.timestamp.isoformat()),
        (config.show_user_id, "user_id", record.user_id),
        (config.show_agent_id, "agent_id", record.agent_id),
        (config.show_status, "status", record.status),
    ]
    for shown, name, value in optional:
        if shown and value is not None:
            lines.append(f"<{name}>{escape_text(str(value))}</{name}>")
    if config.show_metadata:
        lines.extend(_metadata_line(k, v) for k, v in record.metadata.items())
    return lines


def _render(
    result: SearchResult,
    config: SearchResultFormatConfig,
    include_invalid: bool,
    depth: int,
    out: list[str],
) -> None:
    pad = _INDENT * depth
    inner = pad + _INDENT
    tag = result.record.record_type
    out.append(f"{pad}<{tag}>")
    out.extend(inner + line for line in _fields(result, config))
    if include_invalid or result.status == "valid":
        out.append(f"{inner}<content>{escape_text(result.content)}</content>")
    children = [
        (relation, child)
        for relation, child in result.linked_results
        if include_invalid or _has_valid(child)
    ]
    if children:
        out.append(f"{inner}<linked_records>")
        for relation, child in children:
            link_pad = inner + _INDENT
            label = escape_text(relation.label_from(result.id))
            out.append(f"{link_pad}<linked_record>")
            out.append(f"{link_pad}{_INDENT}<relation_type>{label}</relation_type>")
            _render(child, config, include_invalid, depth + 3, out)
            out.append(f"{link_pad}</linked_record>")
        out.append(f"{inner}</linked_records>")
    out.append(f"{pad}</{tag}>")


def render_result(result: SearchResult, config: SearchResultFormatConfig) -> str:
    """Render one result and its linked tree (see ``SearchResult.format_content``)."""
    include_invalid = (
        result.include_invalid_results
        if config.include_invalid_results is None
        else config.include_invalid_results
    )
    out: list[str] = []
    _render(result, config, include_invalid, 0, out)
    return "\n".join(out)

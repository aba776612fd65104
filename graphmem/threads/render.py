"""The prompt text of a context card: pure, over plain values.

Layout: ``<context_card>`` holding, in this order and each only when it has
something, ``<summary>``, ``<topics>`` (one ``<topic>`` each),
``<relevant_information>`` (each record as its type element holding
``<content>``) and ``<recent_messages>`` (each ``<message>`` holding
``<timestamp>``, ``<role>`` and ``<content>``); two-space indentation, text
escaped so that stored values cannot open or close elements. A card with
nothing to show renders as the empty string.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from graphmem.core.render import escape_text

__all__ = ["CardLine", "render_card"]

_I = "  "


@dataclass(frozen=True)
class CardLine:
    """What the card shows of one record: its type, and for messages timestamp and role."""

    record_type: str
    content: str
    role: str | None = None
    timestamp: datetime | None = None


def _element(depth: int, name: str, text: str) -> str:
    return f"{_I * depth}<{name}>{escape_text(text)}</{name}>"


def _summary(summary: str) -> list[str]:
    lines = [f"{_I * 2}{escape_text(line)}".rstrip() for line in summary.strip().splitlines()]
    return [f"{_I}<summary>", *lines, f"{_I}</summary>"]


def _record(line: CardLine, depth: int, full: bool) -> list[str]:
    inner: list[str] = []
    if full and line.timestamp is not None:
        inner.append(_element(depth + 1, "timestamp", line.timestamp.isoformat()))
    if full and line.role is not None:
        inner.append(_element(depth + 1, "role", line.role))
    inner.append(_element(depth + 1, "content", line.content))
    return [f"{_I * depth}<{line.record_type}>", *inner, f"{_I * depth}</{line.record_type}>"]


def _section(name: str, body: list[str]) -> list[str]:
    return [f"{_I}<{name}>", *body, f"{_I}</{name}>"] if body else []


def render_card(
    summary: str | None,
    topics: Sequence[str],
    relevant: Sequence[CardLine],
    recent: Sequence[CardLine],
) -> str:
    """The card's text (no trailing newline), or ``""`` when every section is empty.

    >>> print(render_card("Plans <dinner>.", ["food"], [CardLine("fact", "A & B")], []))
    <context_card>
      <summary>
        Plans &lt;dinner&gt;.
      </summary>
      <topics>
        <topic>food</topic>
      </topics>
      <relevant_information>
        <fact>
          <content>A &amp; B</content>
        </fact>
      </relevant_information>
    </context_card>
    """
    body: list[str] = []
    if summary and summary.strip():
        body += _summary(summary)
    body += _section("topics", [_element(2, "topic", t) for t in topics])
    body += _section(
        "relevant_information", [x for line in relevant for x in _record(line, 2, False)]
    )
    body += _section("recent_messages", [x for line in recent for x in _record(line, 2, True)])
    if not body:
        return ""
    return "\n".join(["<context_card>", *body, "</context_card>"])

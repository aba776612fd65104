"""The context card returned by :meth:`graphmem.threads.Thread.get_context_card`."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from graphmem.thread_models import Message
from graphmem.threads.render import CardLine, render_card

__all__ = ["CardRecord", "ContextCard"]


class CardRecord(BaseModel):
    """A relevant record on a card: a memory-like record or a message of the thread."""

    model_config = ConfigDict(frozen=True)

    id: str
    record_type: str
    content: str
    distance: float
    """Cosine distance to the card's query (lower is more relevant)."""
    timestamp: datetime
    role: str | None = None
    """A message's role; None for memory-like records."""


class ContextCard(BaseModel):
    """Compact context for an agent's next turn; :attr:`content` is its prompt text.

    ``relevant_records`` lists the requested types first (in the order of
    ``min_relevant_results_by_type``), then the other results by relevance.
    """

    model_config = ConfigDict(frozen=True)

    thread_id: str
    summary: str | None = None
    topics: tuple[str, ...] = ()
    relevant_records: tuple[CardRecord, ...] = ()
    recent_messages: tuple[Message, ...] = ()

    @property
    def content(self) -> str:
        """The card as XML-like prompt text (``""`` when it has nothing to show)."""
        return render_card(
            self.summary,
            self.topics,
            [CardLine(r.record_type, r.content) for r in self.relevant_records],
            [
                CardLine("message", m.content, role=m.role, timestamp=m.timestamp)
                for m in self.recent_messages
            ],
        )

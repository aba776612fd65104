"""Pydantic records, relations, search results and configuration."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from graphmem.core.config_model import CheckedModel
from graphmem.errors import InvalidArgumentError

__all__ = [
    "MemoryRecord",
    "RecordRelation",
    "SchemaPolicy",
    "SearchResult",
    "SearchResultFormatConfig",
    "Status",
]

Status = Literal["valid", "invalid"]


class SchemaPolicy(str, Enum):
    """What a store does when its tables are missing."""

    CREATE_IF_NECESSARY = "create_if_necessary"
    """Create every missing table, index and trigger (idempotent)."""
    REQUIRE_EXISTING = "require_existing"
    """Raise :class:`graphmem.SchemaError` when the schema is missing."""


class RecordRelation(BaseModel):
    """A stored, directed link ``source -> target``, as stored (never reversed)."""

    model_config = ConfigDict(frozen=True)

    id: str
    source_record_id: str
    source_record_type: str
    target_record_id: str
    target_record_type: str
    relation_type: str
    opposite_relation_type: str
    timestamp: datetime | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime

    def label_from(self, parent_id: str) -> str:
        """The display label when the link is shown from ``parent_id`` to the other end.

        >>> from datetime import datetime, timezone
        >>> r = RecordRelation(id="l1", source_record_id="new", source_record_type="fact",
        ...     target_record_id="old", target_record_type="fact", relation_type="supersedes",
        ...     opposite_relation_type="is_superseded_by",
        ...     created_at=datetime(2026, 1, 1, tzinfo=timezone.utc))
        >>> r.label_from("new"), r.label_from("old")
        ('supersedes', 'is_superseded_by')
        """
        if parent_id == self.source_record_id:
            return self.relation_type
        return self.opposite_relation_type


class MemoryRecord(BaseModel):
    """A memory-like record: ``memory``, ``fact``, ``preference`` or ``guideline``."""

    model_config = ConfigDict(frozen=True)

    id: str
    record_type: str
    content: str
    status: Status
    user_id: str | None = None
    agent_id: str | None = None
    thread_id: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    timestamp: datetime
    """The caller's timestamp, or the creation time when none was given."""
    created_at: datetime
    expires_at: datetime | None = None
    invalidated_by: tuple[RecordRelation, ...] = ()
    """The lifecycle links targeting this record (why it is invalid), oldest first."""


class SearchResultFormatConfig(CheckedModel):
    """What :meth:`SearchResult.format_content` shows.

    ``include_invalid_results`` left unset means "as the search that produced the
    result": an invalid record's content is shown only when that search asked for
    invalid results.
    """

    show_thread_id: bool = False
    show_distance: bool = False
    show_timestamp: bool = True
    show_role: bool = True
    """A message's role. Messages are not stored yet and memory-like records have
    no role, so nothing shows today; accepted so that configs keep working."""
    show_user_id: bool = False
    show_agent_id: bool = False
    show_status: bool = True
    show_metadata: bool = False
    include_invalid_results: bool | None = None


class SearchResult(BaseModel):
    """A direct search result with its linked context tree.

    ``linked_results`` holds one ``(relation, child)`` pair per child in the
    shortest-path tree of docs/semantics.md section 3; ``relation`` keeps its stored direction.
    """

    model_config = ConfigDict(frozen=True)

    record: MemoryRecord
    distance: float | None = None
    linked_results: list[tuple[RecordRelation, SearchResult]] = Field(default_factory=list)
    include_invalid_results: bool = False
    """The ``include_invalid_results`` of the search that produced this result."""

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def content(self) -> str:
        return self.record.content

    @property
    def status(self) -> Status:
        return self.record.status

    @property
    def record_type(self) -> str:
        return self.record.record_type

    def format_content(self, config: SearchResultFormatConfig | None = None) -> str:
        """Render this result and its linked records as XML-like prompt text.

        Args:
            config: what to show; unset options keep their defaults, and an unset
                ``include_invalid_results`` follows the search that produced this result.

        Returns:
            The text of docs/semantics.md section 4, without a trailing newline.

        Raises:
            InvalidArgumentError: ``config`` is not a SearchResultFormatConfig.
        """
        from graphmem.core.render import render_result

        if config is None:
            config = SearchResultFormatConfig()
        elif not isinstance(config, SearchResultFormatConfig):
            raise InvalidArgumentError(
                "config", f"must be a SearchResultFormatConfig or None, not {type(config).__name__}"
            )
        return render_result(self, config)

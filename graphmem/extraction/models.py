"""What extraction returns and stores: results, jobs, provenance.

Extracted records carry their provenance in their metadata under
:data:`PROVENANCE_KEY`; :meth:`ExtractionProvenance.of` reads it back.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graphmem.models import MemoryRecord

__all__ = [
    "BASE_PROMPT_ID",
    "BASE_PROMPT_VERSION",
    "PROVENANCE_KEY",
    "Candidate",
    "ExtractedRecord",
    "ExtractionProvenance",
    "ExtractionResult",
    "JobInfo",
    "JobStatus",
    "LinkProposal",
    "WindowMessage",
]

PROVENANCE_KEY = "graphmem_extraction"
"""The metadata key of an extracted record that holds its provenance."""

BASE_PROMPT_ID = "graphmem:extract"
"""How provenance names graphmem's own extraction prompt (``graphmem/prompts/extract.md``)."""

BASE_PROMPT_VERSION = 3
"""The version of the base extraction prompt; raised whenever its text changes."""

JobStatus = Literal["queued", "running", "done", "failed"]


@dataclass(frozen=True)
class WindowMessage:
    """A message the extraction reads (numbered from 1 in the prompt)."""

    record_id: str
    role: str
    content: str
    metadata: dict[str, Any]


@dataclass(frozen=True)
class ExtractedRecord:
    """One record of the LLM's reply, checked; ``sources`` index the window.

    ``position`` is the record's place in the reply's ``records`` list (from 0),
    counting the items dropped before it: links name the record ``new-<position>``
    (:attr:`ref`), in the model's own numbering.
    """

    record_type: str
    content: str
    sources: tuple[int, ...]
    position: int = 0

    @property
    def ref(self) -> str:
        """How link proposals name this record: ``new-<position>``."""
        return f"new-{self.position}"


@dataclass(frozen=True)
class LinkProposal:
    """A link the LLM proposed, by reference (``new-N`` / ``mem-N``)."""

    source: str
    target: str
    relation_type: str


@dataclass(frozen=True)
class Candidate:
    """A stored record shown to the LLM as ``mem-N``."""

    ref: str
    record_id: str
    record_type: str
    content: str


class ExtractionResult(BaseModel):
    """What one extraction wrote.

    Attributes:
        job_id: the job that ran it (the synchronous call records one too).
        record_ids: the new records, in the LLM's order.
        relation_ids: the links written.
        rejected_links: link proposals dropped (unknown reference, or one to a
            dropped record; a link between two stored records; self link, a
            conflict with a stored link or another proposal, a bad type).
        dropped_records: records of the reply dropped (bad type, empty content,
            beyond :data:`~graphmem.extraction.config.MAX_RECORDS_PER_EXTRACTION`).
        llm_calls: LLM requests made (1, or 2 with ``POST_EXTRACTION`` links).
        message_ids: the messages read.
        prompt_id: the registry prompt used, or :data:`BASE_PROMPT_ID`.
        prompt_vid: its version (the base prompt's: :data:`BASE_PROMPT_VERSION`).
        prompt_fallback: a registry prompt was asked for but purged meanwhile
            (its id may name a prompt registered since), so the base prompt ran.
        model: the LLM's ``model`` attribute (or its class name).
    """

    model_config = ConfigDict(frozen=True)

    job_id: str
    thread_id: str
    record_ids: list[str] = Field(default_factory=list)
    relation_ids: list[str] = Field(default_factory=list)
    rejected_links: int = 0
    dropped_records: int = 0
    llm_calls: int = 0
    message_ids: list[str] = Field(default_factory=list)
    prompt_id: str = BASE_PROMPT_ID
    prompt_vid: int | None = BASE_PROMPT_VERSION
    prompt_fallback: bool = False
    model: str | None = None


class JobInfo(BaseModel):
    """A durable extraction job as stored.

    Attributes:
        status: ``queued`` -> ``running`` -> ``done`` | ``failed`` (a failed
            attempt with attempts left goes back to ``queued`` after a backoff).
        attempts: times the job was claimed since it was queued or retried (an
            attempt cut short by a crash counts; at ``ABANDON_LIMIT`` of those
            beyond ``failures`` the job is ``failed``).
        failures: attempts that ended in an error; at the client's
            ``extraction_max_attempts`` the job is ``failed``.
        last_error: the error of the last failed attempt.
        result: the :class:`ExtractionResult` once ``done``.
    """

    model_config = ConfigDict(frozen=True)

    job_id: str
    kind: str
    thread_id: str
    status: JobStatus
    attempts: int
    failures: int
    last_error: str | None = None
    payload: dict[str, Any] = Field(default_factory=dict)
    result: ExtractionResult | None = None
    not_before: datetime | None = None
    created_at: datetime
    updated_at: datetime


class ExtractionProvenance(BaseModel):
    """Where an extracted record came from."""

    model_config = ConfigDict(frozen=True)

    job_id: str
    message_ids: list[str]
    model: str | None
    prompt_id: str
    prompt_vid: int | None

    @classmethod
    def of(cls, record: MemoryRecord) -> ExtractionProvenance | None:
        """The provenance stored with ``record``; None when it was not extracted
        (a record's own metadata may hold something else under :data:`PROVENANCE_KEY`)."""
        found = record.metadata.get(PROVENANCE_KEY)
        if not isinstance(found, dict):
            return None
        try:
            return cls.model_validate(found)
        except ValidationError:
            return None

"""Memory blocks of a session, memories, links and search."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Depends, Request, Response

from graphmem.core.validation import check_id
from graphmem.errors import InvalidArgumentError, NotFoundError
from graphmem.service.auth import ADMIN, READ, known_query, requires
from graphmem.service.blocks import BlockService
from graphmem.service.errors import as_session, named_as
from graphmem.service.schemas import (
    AddMemoryBody,
    LinkBody,
    MemoryBody,
    SearchBody,
    UpdateMemoryBody,
)
from graphmem.stores.service_base import StoredBlock

__all__ = ["block_json", "router"]

router = APIRouter(prefix="/v1", tags=["memory"])
_read = [Depends(requires(READ)), Depends(known_query)]
_admin = [Depends(requires(ADMIN)), Depends(known_query)]


def _memory(request: Request) -> Any:
    return request.app.state.memory


def _blocks(request: Request) -> BlockService:
    service: BlockService = request.app.state.blocks
    return service


def block_json(block: StoredBlock) -> dict[str, Any]:
    """A block as the API shows it."""
    return {
        "block_id": block.block_id,
        "session_id": block.thread_id,
        "status": block.status,
        "messages": block.content["messages"],
        "facts": block.content["facts"],
        "prompt_id": block.prompt_id,
        "prompt_vid": block.prompt_vid,
        "resolved_vid": block.resolved_vid,
        "context_required": block.context_required,
        "summary": block.summary,
        "record_ids": block.record_ids,
        "extracted_record_ids": (block.extraction or {}).get("record_ids", []),
        "extracted_relation_ids": (block.extraction or {}).get("relation_ids", []),
        "error": block.error,
        "created_at": block.created_at.isoformat(),
        "updated_at": block.updated_at.isoformat(),
    }


@router.post("/sessions/{session_id}/memory", status_code=201, dependencies=_admin)
def add_memory(
    request: Request, response: Response, session_id: str, body: AddMemoryBody
) -> dict[str, Any]:
    """Add a memory block (messages and/or facts); 202 while it waits to be processed."""
    block = _blocks(request).add(session_id, body)
    if block.status in ("pending", "processing"):
        response.status_code = 202
    return block_json(block)


@router.get("/sessions/{session_id}/memory", dependencies=_read)
def list_blocks(
    request: Request, session_id: str, limit: int = 50, offset: int = 0
) -> dict[str, Any]:
    from graphmem.core.validation import check_non_negative, check_positive

    blocks, total = _blocks(request).list_blocks(
        session_id, check_positive("limit", limit), check_non_negative("offset", offset)
    )
    items = [block_json(b) for b in blocks]
    return {"blocks": items, "count": len(items), "total": total, "limit": limit, "offset": offset}


@router.get("/sessions/{session_id}/memory/{block_id}", dependencies=_read)
def get_block(request: Request, session_id: str, block_id: str) -> dict[str, Any]:
    """A block with its status, summary and record ids."""
    return block_json(_blocks(request).get(session_id, block_id))


@router.patch("/sessions/{session_id}/memory/{block_id}", dependencies=_admin)
def update_block(
    request: Request, response: Response, session_id: str, block_id: str, body: UpdateMemoryBody
) -> dict[str, Any]:
    """Switch the block's prompt (``default`` clears it) and process it again."""
    block = _blocks(request).update(session_id, block_id, body)
    if block.status in ("pending", "processing"):
        response.status_code = 202
    return block_json(block)


@router.post("/memories", status_code=201, dependencies=_admin)
def add_record(request: Request, body: MemoryBody) -> dict[str, Any]:
    """Store one memory-like record: of a recorded user, or in a session (whose user
    and agent it takes). The session or the user is checked again inside the write,
    after the embedding: one deleted meanwhile (maybe made again under the same id)
    is a 404 and nothing is written."""
    memory = _memory(request)
    user_id, agent_id = body.user_id, body.agent_id
    if body.session_id is not None:
        with as_session(body.session_id):
            thread = memory.get_thread(body.session_id)
            info = thread.info()
            for name, given, held in (("user_id", user_id, info.user_id),
                                      ("agent_id", agent_id, info.agent_id)):  # fmt: skip
                if given is not None and given != held:
                    raise InvalidArgumentError(
                        name, f"session {body.session_id!r} belongs to {held!r}, not {given!r}"
                    )
            record_id = thread._add_memory(
                body.content, body.memory_type, body.memory_id, body.metadata, seen=info
            )
        return {"id": record_id}
    check = _user_check(memory, user_id) if user_id is not None else _nothing
    new = memory._new_memory(
        body.content,
        memory_id=body.memory_id,
        memory_type=body.memory_type,
        user_id=user_id,
        agent_id=agent_id,
        metadata=body.metadata,
    )
    return {"id": memory._add_checked(new, check)}


def _nothing() -> None:
    """A record of no user or session: nothing to check in its write."""


def _user_check(memory: Any, user_id: str) -> Callable[[], None]:
    """The user's check for inside the write (404 now when it is not recorded): the
    user is still the one read now, not deleted (nor deleted and recorded again
    under the same id) while the record was embedded."""
    check_id("user_id", user_id)
    with memory._store.transaction(write=False):
        seen = memory._store.get_profile("user", user_id)
    if seen is None:
        raise NotFoundError(f"user_id: no user {user_id!r}")

    def check() -> None:
        found = memory._store.get_profile("user", user_id)
        if found is None or found.created_at != seen.created_at:
            raise NotFoundError(f"user_id: no user {user_id!r}")

    return check


@router.get("/memories/{memory_id}", dependencies=_read)
def get_record(request: Request, memory_id: str) -> dict[str, Any]:
    data: dict[str, Any] = _memory(request).get_memory(memory_id).model_dump(mode="json")
    return data


@router.get("/memories/{memory_id}/links", dependencies=_read)
def record_links(
    request: Request, memory_id: str, limit: int = 100, offset: int = 0
) -> dict[str, Any]:
    """A memory's links (either end), oldest first, one page (``count`` on the page,
    ``total`` in all); 404 for an unknown memory, as ``GET /v1/memories/{memory_id}``."""
    memory = _memory(request)
    with memory._store.transaction(write=False):  # the page and its total agree
        memory.get_memory(memory_id)
        links = memory.list_record_links(memory_id, limit=limit, offset=offset)
        total = memory.count_record_links(memory_id)
    items = [link.model_dump(mode="json") for link in links]
    return {"links": items, "count": len(items), "total": total, "limit": limit, "offset": offset}


_LINK_FIELDS = {
    "source_record_id": "source_id",
    "source_record_type": "source_type",
    "target_record_id": "target_id",
    "target_record_type": "target_type",
}
"""The library's names of a link's ends, and the body's."""


@router.post("/links", status_code=201, dependencies=_admin)
def link_records(request: Request, body: LinkBody) -> dict[str, Any]:
    """Link two records with a typed, directed link."""
    with named_as(_LINK_FIELDS):
        relation_id = _memory(request).link_records(
            body.source_id,
            body.source_type,
            body.target_id,
            body.target_type,
            body.relation_type,
            body.opposite_relation_type,
            metadata=body.metadata,
        )
    return {"relation_id": relation_id}


@router.delete("/links/{relation_id}", dependencies=_admin)
def delete_link(request: Request, relation_id: str) -> dict[str, Any]:
    _memory(request).delete_record_link(relation_id)
    return {"relation_id": relation_id, "deleted": True}


@router.post("/search", dependencies=_read)
def search(request: Request, body: SearchBody) -> dict[str, Any]:
    """Search memories (or a session's records) by meaning, keywords or both.

    ``max_results`` is at most the service's ``max_search_results`` (100 by default).
    """
    ceiling = request.app.state.config.max_search_results
    if body.max_results is not None and body.max_results > ceiling:
        raise InvalidArgumentError(
            "max_results", f"must be at most {ceiling} on this service, got {body.max_results}"
        )
    with as_session(body.session_id or ""):
        if body.session_id is not None:  # a session that does not exist is a 404
            _memory(request).get_thread(body.session_id)
        results = _memory(request).search(
            body.query,
            user_id=body.user_id,
            agent_id=body.agent_id,
            thread_id=body.session_id,
            record_types=body.record_types,
            max_results=body.max_results,
            num_hops=body.num_hops,
            strategy=body.strategy,
        )
    items = [
        {
            "record": r.record.model_dump(mode="json"),
            "distance": r.distance,
            "linked_count": len(r.linked_results),
            "content": r.format_content(),
        }
        for r in results
    ]
    return {"results": items, "count": len(items)}

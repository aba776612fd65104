"""Users and sessions (threads), their messages and context cards."""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Depends, Request

from graphmem.core.validation import check_id
from graphmem.errors import InvalidArgumentError, NotFoundError
from graphmem.service.auth import ADMIN, READ, known_query, requires
from graphmem.service.errors import as_session
from graphmem.service.schemas import CreateSessionBody, CreateUserBody

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["users and sessions"])
_read = [Depends(requires(READ)), Depends(known_query)]
_admin = [Depends(requires(ADMIN)), Depends(known_query)]


def _memory(request: Request) -> Any:
    return request.app.state.memory


def user_record(request: Request, user_id: str) -> dict[str, Any]:
    memory = _memory(request)
    check_id("user_id", user_id)
    with memory._store.transaction(write=False):
        found = memory._store.get_profile("user", user_id)
    if found is None:
        raise NotFoundError(f"user_id: no user {user_id!r}")
    return {"user_id": found.id, "information": found.information, "metadata": found.metadata}


def _json_object(argument: str, text: str | None) -> Any:
    """A query parameter that holds a JSON object (None when absent)."""
    if text is None:
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested too deeply to parse
        raise InvalidArgumentError(argument, "must be a JSON object") from None
    if not isinstance(value, dict):
        raise InvalidArgumentError(argument, "must be a JSON object")
    return value


def _session(info: Any) -> dict[str, Any]:
    data: dict[str, Any] = info.model_dump(mode="json")
    data["session_id"] = data.pop("thread_id")
    return data


@router.post("/users", status_code=201, dependencies=_admin)
def create_user(request: Request, body: CreateUserBody) -> dict[str, Any]:
    """Record a user."""
    _memory(request).add_user(body.user_id, body.information, metadata=body.metadata)
    return user_record(request, body.user_id)


@router.get("/users", dependencies=_read)
def list_users(request: Request, limit: int = 100, offset: int = 0) -> dict[str, Any]:
    """Recorded users, oldest first, one page (``count`` on the page, ``total`` in all)."""
    memory = _memory(request)
    with memory._store.transaction(write=False):  # the page and its total agree
        users = memory.list_users(limit=limit, offset=offset)
        total = memory.count_users()
    items = [{"user_id": u.id, "information": u.information, "metadata": u.metadata} for u in users]
    return {"users": items, "count": len(items), "total": total, "limit": limit, "offset": offset}


@router.get("/users/{user_id}", dependencies=_read)
def get_user(request: Request, user_id: str) -> dict[str, Any]:
    return user_record(request, user_id)


@router.delete("/users/{user_id}", dependencies=_admin)
def delete_user(request: Request, user_id: str) -> dict[str, Any]:
    """Forget a user with its sessions and records."""
    return {"user_id": user_id, "deleted_records": _memory(request).delete_user(user_id)}


@router.post("/sessions", status_code=201, dependencies=_admin)
def create_session(request: Request, body: CreateSessionBody) -> dict[str, Any]:
    """Open a session (a thread) of a recorded user."""
    user_record(request, body.user_id)
    with as_session(body.session_id or ""):
        thread = _memory(request).create_thread(
            body.session_id, user_id=body.user_id, agent_id=body.agent_id, metadata=body.metadata
        )
    return _session(thread.info())


@router.get("/sessions", dependencies=_read)
def list_sessions(
    request: Request, user_id: str | None = None, limit: int = 100, offset: int = 0
) -> dict[str, Any]:
    """Sessions (of one user, with ``user_id``), oldest first, one page (``count`` on
    the page, ``total`` in all)."""
    memory = _memory(request)
    with memory._store.transaction(write=False):  # the page and its total agree
        infos = memory.list_threads(user_id=user_id, limit=limit, offset=offset)
        total = memory.count_threads(user_id=user_id)
    items = [_session(i) for i in infos]
    return {
        "sessions": items,
        "count": len(items),
        "total": total,
        "limit": limit,
        "offset": offset,
    }


@router.get("/sessions/{session_id}", dependencies=_read)
def get_session(request: Request, session_id: str) -> dict[str, Any]:
    with as_session(session_id):
        return _session(_memory(request).get_thread(session_id).info())


@router.delete("/sessions/{session_id}", dependencies=_admin)
def delete_session(request: Request, session_id: str) -> dict[str, Any]:
    with as_session(session_id):
        deleted = _memory(request).delete_thread(session_id)
    return {"session_id": session_id, "deleted_records": deleted}


@router.get("/sessions/{session_id}/messages", dependencies=_read)
def get_messages(
    request: Request, session_id: str, start: int | None = None, end: int | None = None
) -> dict[str, Any]:
    with as_session(session_id):
        messages = _memory(request).get_thread(session_id).get_messages(start, end)
    return {"messages": [m.model_dump(mode="json") for m in messages], "count": len(messages)}


@router.get("/sessions/{session_id}/context_card", dependencies=_read)
def context_card(
    request: Request,
    session_id: str,
    max_relevant_results: int | None = None,
    min_relevant_results_by_type: str | None = None,
    recent_message_count: int = 5,
    fallback_message_count: int = 5,
) -> dict[str, Any]:
    """The session's context card, as data and as prompt text (``content``);
    ``min_relevant_results_by_type`` is a JSON object (``{"guideline": 2}``)."""
    minimums = _json_object("min_relevant_results_by_type", min_relevant_results_by_type)
    with as_session(session_id):
        card = (
            _memory(request)
            .get_thread(session_id)
            .get_context_card(
                max_relevant_results=max_relevant_results,
                min_relevant_results_by_type=minimums,
                recent_message_count=recent_message_count,
                fallback_message_count=fallback_message_count,
            )
        )
    data: dict[str, Any] = card.model_dump(mode="json")
    data["content"] = card.content
    return data

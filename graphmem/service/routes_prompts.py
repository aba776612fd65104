"""The prompt registry over HTTP: every registry operation, with its codes and statuses."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request

from graphmem.registry_models import Prompt, PromptList, PromptVersionList
from graphmem.service.auth import ADMIN, READ, known_query, requires
from graphmem.service.schemas import CreatePromptBody, RetireBody, UpdatePromptBody

__all__ = ["router"]

router = APIRouter(prefix="/v1/prompts", tags=["prompts"])
_read = [Depends(requires(READ)), Depends(known_query)]
_admin = [Depends(requires(ADMIN)), Depends(known_query)]


def _memory(request: Request) -> Any:
    return request.app.state.memory


@router.post("", status_code=201, dependencies=_admin)
def create_prompt(request: Request, body: CreatePromptBody) -> Prompt:
    """Register a prompt: version 0 holds its text."""
    prompt: Prompt = _memory(request).create_prompt(
        body.prompt_id, body.prompt, body.description, body.annotations
    )
    return prompt


@router.get("", dependencies=_read)
def list_prompts(request: Request, limit: int = 50, offset: int = 0) -> PromptList:
    """Registered prompts by id, one page (``count`` on the page, ``total`` in all)."""
    page: PromptList = _memory(request).list_prompts(limit=limit, offset=offset)
    return page


@router.get("/{prompt_id}", dependencies=_read)
def get_prompt(request: Request, prompt_id: str, vid: int | None = None) -> Prompt:
    """A prompt with its current text, or with the text of version ``vid``."""
    prompt: Prompt = _memory(request).get_prompt(prompt_id, vid=vid)
    return prompt


@router.get("/{prompt_id}/versions", dependencies=_read)
def list_prompt_versions(
    request: Request, prompt_id: str, limit: int = 50, offset: int = 0
) -> PromptVersionList:
    """A prompt's versions, oldest first."""
    page: PromptVersionList = _memory(request).list_prompt_versions(
        prompt_id, limit=limit, offset=offset
    )
    return page


@router.patch("/{prompt_id}", dependencies=_admin)
def update_prompt(request: Request, prompt_id: str, body: UpdatePromptBody) -> Prompt:
    """New text adds a version and makes it current; description and annotations are
    not versioned."""
    prompt: Prompt = _memory(request).update_prompt(
        prompt_id,
        prompt=body.prompt,
        description=body.description,
        annotations=body.annotations,
    )
    return prompt


@router.post("/{prompt_id}/archive", dependencies=_admin)
def archive_prompt(request: Request, prompt_id: str, body: RetireBody) -> Prompt:
    """Archive the whole prompt (its id stays reserved for good) or one version."""
    prompt: Prompt = _memory(request).archive_prompt(prompt_id, vid=body.vid)
    return prompt


@router.post("/{prompt_id}/purge", dependencies=_admin)
def purge_prompt(request: Request, prompt_id: str, body: RetireBody) -> dict[str, Any]:
    """Delete the whole prompt (its id is free again unless archived) or one version."""
    _memory(request).purge_prompt(prompt_id, vid=body.vid)
    return {"prompt_id": prompt_id, "vid": body.vid, "purged": True}

"""The memory service's FastAPI application over one :class:`graphmem.GraphMemory`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request, Response
from fastapi.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from graphmem import __version__
from graphmem.core.json_nesting import MAX_JSON_DEPTH, json_too_deep
from graphmem.service import routes_memory, routes_prompts, routes_sessions
from graphmem.service.auth import caller_role
from graphmem.service.blocks import BlockService
from graphmem.service.config import ServiceConfig
from graphmem.service.errors import error_response, install_error_handlers
from graphmem.service.openapi import install_openapi

if TYPE_CHECKING:
    from graphmem.ai.protocols import LlmProtocol
    from graphmem.memory import GraphMemory

__all__ = ["create_app"]

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


def _too_large(limit: int) -> Response:
    return error_response(
        "PAYLOAD_TOO_LARGE", f"the request body exceeds the limit of {limit} bytes", 413
    )


def _limit_body(app: FastAPI, limit: int) -> None:
    """Refuse bodies over ``limit`` bytes (by Content-Length, then as they stream in),
    bodies that are not JSON, and JSON nested more than :data:`MAX_JSON_DEPTH`
    levels deep (400 ``MALFORMED_BODY`` on every Python, whose parsers give up at
    different depths); a request to a ``/v1`` route without a
    credential, or with one that does not verify, is refused first (401),
    whatever its body."""

    @app.middleware("http")
    async def check_body(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        if request.method not in _BODY_METHODS:
            return await call_next(request)
        if request.url.path.startswith("/v1/"):
            # no credential, or one that does not verify: 401 before the body
            try:
                await run_in_threadpool(caller_role, request)  # a key is a store read
            except HTTPException as exc:
                return error_response(
                    "UNAUTHENTICATED", str(exc.detail), 401, **{"WWW-Authenticate": "Bearer"}
                )
        declared = request.headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            return _too_large(limit)
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                return _too_large(limit)
        kind = request.headers.get("content-type", "application/json")
        if body and not kind.split(";")[0].strip().lower().endswith("json"):
            return error_response(
                "UNSUPPORTED_MEDIA_TYPE", "send the body as application/json", 415
            )
        if json_too_deep(body):
            return error_response(
                "MALFORMED_BODY",
                f"the body is not valid JSON: nested more than {MAX_JSON_DEPTH} levels deep",
                400,
            )
        request._body = body  # read once; the route reads it again from here
        return await call_next(request)


def create_app(
    memory: GraphMemory,
    *,
    llm: LlmProtocol | None = None,
    config: ServiceConfig | None = None,
) -> FastAPI:
    """The service over ``memory`` (which the caller opens and closes).

    Memory blocks are the service's unit of extraction: a block's messages are
    extracted once, by the block (with ``llm``), and queue no extraction job of
    their own, whatever ``memory``'s extraction config says, so a memory that
    extracts by itself (an LLM, ``extract_memories`` on) is served as
    ``graphmem serve`` serves its store. Messages the application adds to a
    thread itself (``thread.add_messages``) follow that config as usual.

    Args:
        memory: the store to serve.
        llm: the LLM of block summaries (and, later, extraction); None: no semantic
            extraction, so a ``prompt_id`` is refused with ``PROMPT_EXTRACTION_DISABLED``.
        config: credentials and limits (default :class:`ServiceConfig`).
    """
    settings = config or ServiceConfig()
    blocks = BlockService(memory, llm)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if settings.process_blocks:
            blocks.start()
        try:
            yield
        finally:
            blocks.stop()

    app = FastAPI(
        title="graphmem memory service",
        version=__version__,
        description="Users, sessions, memory blocks, search, links, context cards and "
        "the prompt registry over one graphmem store.",
        lifespan=lifespan,
    )
    app.state.memory = memory
    app.state.blocks = blocks
    app.state.config = settings
    install_error_handlers(app)
    _limit_body(app, settings.max_body_bytes)

    @app.get("/health", tags=["service"])
    def health() -> dict[str, Any]:
        """Liveness: answers without credentials."""
        return {"status": "ok", "version": __version__}

    for module in (routes_prompts, routes_sessions, routes_memory):
        app.include_router(module.router)
    install_openapi(app)
    return app

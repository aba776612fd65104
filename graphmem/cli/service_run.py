"""Starting the memory service: models from flags or the environment, then uvicorn."""

from __future__ import annotations

from collections.abc import Mapping

import click

from graphmem.cli._common import UserError

__all__ = ["run_server"]


def run_server(
    db: str, store: str | None, host: str, port: int, options: Mapping[str, object]
) -> None:
    try:
        import uvicorn

        from graphmem.service import ServiceConfig, create_app
        from graphmem.service.config import ModelSettings, embedder_from, llm_from
    except ImportError as exc:
        raise UserError(
            f"the memory service needs the 'service' extra: pip install 'graphmem[service]' ({exc})"
        ) from None
    from graphmem.extraction.config import MemoryExtractionConfig
    from graphmem.memory import GraphMemory

    def opt(name: str) -> str | None:
        value = options.get(name)
        return None if value is None else str(value)

    llm = llm_from(
        ModelSettings.resolve(
            "llm", model=opt("llm_model"), api_base=opt("llm_api_base"), api_key=opt("llm_api_key")
        )
    )
    embedder = embedder_from(
        ModelSettings.resolve(
            "embedder",
            model=opt("embedder_model"),
            api_base=opt("embedder_api_base"),
            api_key=opt("embedder_api_key"),
        )
    )
    config = ServiceConfig(
        jwt_key=opt("jwt_key"),
        jwt_algorithms=(str(options.get("jwt_algorithm") or "HS256"),),
        max_body_bytes=int(str(options.get("max_body_bytes") or 1_048_576)),
    )
    # Blocks are the service's unit of extraction (each block's messages, once):
    # messages added to a session do not also queue extraction by count.
    memory = GraphMemory(
        db,
        embedder=embedder,
        memory_store_id=store,
        llm=llm,
        memory_extraction_config=MemoryExtractionConfig(extract_memories=False),
    )
    try:
        app = create_app(memory, llm=llm, config=config)
        click.echo(f"graphmem: serving {db!r} on http://{host}:{port}", err=True)
        uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
    finally:
        memory.close()

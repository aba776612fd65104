"""Starting the memory service: models from flags or the environment, the listening
socket, then uvicorn."""

from __future__ import annotations

import signal
import socket
from collections.abc import Mapping

import click

from graphmem.cli._store import UserError, cli_embedder, model_flag_error, refuse_directory
from graphmem.errors import InvalidArgumentError

__all__ = ["run_server"]


class _Stopped(Exception):
    """SIGTERM, raised once uvicorn has shut down (it handles the signal while it
    runs, then raises it again for the handler it found)."""


def _stopped(signum: int, frame: object) -> None:
    raise _Stopped


def _check_jwt(key: str | None, algorithm: str) -> None:
    """Refuse a JWT algorithm that PyJWT does not offer (or ``none``), and a key that
    cannot verify that algorithm: otherwise every bearer JWT would get a 401."""
    import jwt
    from jwt.algorithms import get_default_algorithms, has_crypto

    known = {name: alg for name, alg in get_default_algorithms().items() if name != "none"}
    if algorithm not in known:
        needs = "" if has_crypto else " (RS*, ES*, PS* and EdDSA need the cryptography package)"
        raise click.BadParameter(
            f"{algorithm!r} is not a JWT signature algorithm; choose from "
            f"{', '.join(sorted(known))}{needs}",
            param_hint="'--jwt-algorithm'",
        )
    if key is None:
        return
    try:
        prepared = known[algorithm].prepare_key(key)
    except (jwt.InvalidKeyError, ValueError, TypeError) as exc:
        raise UserError(f"--jwt-key: not a key that verifies {algorithm} tokens ({exc})") from None
    if not isinstance(prepared, bytes) and not callable(getattr(prepared, "verify", None)):
        # a private key loads, but cannot verify: every token would then fail
        raise UserError(
            f"--jwt-key: a private key cannot verify {algorithm} tokens; give the public key"
        )


def _listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port`` (``port`` 0: a free port), bound here so
    that a refusal is the CLI's own error rather than the server's log."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        reason = exc.strerror or str(exc)
        raise UserError(f"cannot listen on {host}:{port}: {reason}") from None
    return sock


def _url(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if sock.family == socket.AF_INET6 else f"http://{host}:{port}"


def run_server(
    db: str, store: str | None, host: str, port: int, options: Mapping[str, object]
) -> None:
    try:
        import uvicorn

        from graphmem.service import ServiceConfig, create_app
        from graphmem.service.config import ModelSettings, llm_from
    except ImportError as exc:
        raise UserError(
            f"the memory service needs the 'service' extra: pip install 'graphmem[service]' ({exc})"
        ) from None
    from graphmem.extraction.config import MemoryExtractionConfig
    from graphmem.memory import GraphMemory

    def opt(name: str) -> str | None:
        value = options.get(name)
        return None if value is None else str(value)

    algorithm = str(options.get("jwt_algorithm") or "HS256")
    _check_jwt(opt("jwt_key"), algorithm)
    flags = {name: opt(f"llm_{name}") for name in ("model", "api_base", "api_key")}
    try:
        llm = llm_from(
            ModelSettings.resolve(
                "llm", model=flags["model"], api_base=flags["api_base"], api_key=flags["api_key"]
            )
        )
    except InvalidArgumentError as exc:  # named by its flag, as the embedder's are
        raise model_flag_error("llm", exc, flags) from None
    refuse_directory(db)
    embedder = cli_embedder()
    config = ServiceConfig(
        jwt_key=opt("jwt_key"),
        jwt_algorithms=(algorithm,),
        max_body_bytes=int(str(options.get("max_body_bytes") or 1_048_576)),
    )
    sock = _listen(host, port)
    try:
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
            server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
            # before the announcement: a SIGTERM right after it still closes the store
            previous = signal.signal(signal.SIGTERM, _stopped)
            try:
                click.echo(f"graphmem: serving {db!r} on {_url(sock)}", err=True)
                server.run(sockets=[sock])
            except _Stopped:
                pass  # shut down on SIGTERM: the handle closes below, exit status 0
            except SystemExit as exc:  # uvicorn's exit when the app's startup fails
                raise UserError(f"the service did not start (status {exc.code})") from None
            finally:
                signal.signal(signal.SIGTERM, previous)  # a second SIGTERM ends it at once
        finally:
            memory.close()
    finally:
        sock.close()

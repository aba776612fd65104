"""``graphmem serve`` (the memory service) and ``graphmem keys`` (its API keys)."""

from __future__ import annotations

import json
import sys

import click

from graphmem.cli._store import UserError, db_options, open_memory, store_options
from graphmem.core.tree_text import one_line

__all__ = ["keys", "serve"]


def _model_options(kind: str) -> list[click.Option]:
    name = kind.lower()
    env = f"GRAPHMEM_{kind}"
    return [
        click.Option([f"--{name}-model"], metavar="NAME", help=f"Model id (env {env}_MODEL)."),
        click.Option([f"--{name}-api-base"], metavar="URL", help=f"API root (env {env}_API_BASE)."),
        click.Option([f"--{name}-api-key"], metavar="KEY", help=f"API key (env {env}_API_KEY)."),
    ]


@click.command()
@store_options
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@click.option(
    "--jwt-key",
    envvar="GRAPHMEM_JWT_KEY",
    default=None,
    metavar="KEY",
    help="Verifies bearer JWTs: an HMAC secret, or a PEM public key (env GRAPHMEM_JWT_KEY).",
)
@click.option(
    "--jwt-algorithm",
    envvar="GRAPHMEM_JWT_ALGORITHM",
    default="HS256",
    show_default=True,
    help="JWT signature algorithm (HS256, RS256, ES256, ...).",
)
@click.option("--max-body-bytes", default=1_048_576, show_default=True, type=click.IntRange(1024))
def serve(db: str, store: str | None, host: str, port: int, **options: object) -> None:
    """Run the memory service (REST/JSON; OpenAPI at /docs and /openapi.json) over a store.

    Models come from the flags or GRAPHMEM_LLM_MODEL / _API_BASE / _API_KEY and
    GRAPHMEM_EMBEDDER_MODEL / _API_BASE / _API_KEY (default embedder: the offline one;
    no LLM: no extraction, deterministic summaries). Standard error says where it
    listens once it does (--port 0: a free port).

    \b
    Example:
      graphmem serve --db memories.db --port 8000
      graphmem keys create --db memories.db --role admin
    """
    from graphmem.cli.service_run import run_server

    run_server(db, store, host, port, options)


for _option in _model_options("LLM"):
    serve.params.append(_option)


@click.group()
def keys() -> None:
    """Create, list and revoke the memory service's API keys.

    \b
    Example:
      graphmem keys create --db memories.db --role admin
      graphmem keys list --db memories.db
    """


@keys.command("create")
@db_options
@click.option("--role", type=click.Choice(["read", "admin"]), required=True)
@click.option("--label", default=None, help="A note to recognise the key by.")
def create(db: str, store: str | None, role: str, label: str | None) -> None:
    """Create a key and print it alone on standard output (shown only this once).

    \b
    Example:
      graphmem keys create --db memories.db --role read
    """
    from graphmem.service.keys import create_key, revoke_key

    if sys.stdout is None:
        raise UserError("standard output is closed: the new key could not be shown")
    with open_memory(db, store, create=True) as memory:
        text, row = create_key(memory._store, role, label)
        try:
            click.echo(text)
        except OSError as exc:  # a full disk, a reader gone: nobody has the key
            revoke_key(memory._store, row.key_id)
            raise UserError(
                f"could not write the new key to standard output ({exc.strerror or exc}); "
                f"key {row.key_id} is revoked"
            ) from None


@keys.command("list")
@db_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_(db: str, store: str | None, as_json: bool) -> None:
    """The keys: id, role, live or revoked, label (--json adds the created and revoked
    times); never the secret."""
    from graphmem.service.keys import list_keys

    with open_memory(db, store) as memory:
        rows = list_keys(memory._store)
    items = [
        {
            "key_id": r.key_id,
            "role": r.role,
            "label": r.label,
            "created_at": r.created_at.isoformat(),
            "revoked_at": r.revoked_at and r.revoked_at.isoformat(),
        }
        for r in rows
    ]
    if as_json:
        click.echo(json.dumps(items, indent=2))
        return
    for item in items:
        state = "revoked" if item["revoked_at"] else "live"
        label = one_line(item["label"] or "")
        click.echo(f"{item['key_id']}  {item['role']:<5}  {state:<7}  {label}")


@keys.command("revoke")
@db_options
@click.argument("key_id")
def revoke(db: str, store: str | None, key_id: str) -> None:
    """Revoke a key for good (KEY_ID as `graphmem keys list` shows it, or the whole key)."""
    from graphmem.service.keys import revoke_key

    with open_memory(db, store) as memory:
        revoked = revoke_key(memory._store, key_id)
    click.echo(f"revoked {revoked}")

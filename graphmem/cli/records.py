"""Verbs on memories: add, get, list, update, delete."""

from __future__ import annotations

import sys
from typing import Any

import click

from graphmem.cli._common import (
    emit,
    filter_options,
    filters_from,
    json_object,
    json_option,
    open_memory,
    record_text,
    store_options,
)
from graphmem.core.relations import MEMORY_TYPES
from graphmem.core.tree_text import record_line

__all__ = ["add", "delete", "get", "list_", "update"]


def _content(text: str) -> str:
    """``text``, or standard input for ``-`` without its trailing newlines (``\\n`` or
    ``\\r\\n``, as ``echo`` adds one); other trailing whitespace stays."""
    if text != "-":
        return text
    read = sys.stdin.read()
    while read.endswith("\n"):
        read = read[:-2] if read.endswith("\r\n") else read[:-1]
    return read


@click.command()
@click.argument("content")
@click.option("--id", "memory_id", metavar="ID", help="Caller-chosen id (default: a UUID).")
@click.option(
    "--type", "memory_type", type=click.Choice(MEMORY_TYPES), default="memory", show_default=True
)
@click.option("--user", "user_id", metavar="ID", help="Scope: the user.")
@click.option("--agent", "agent_id", metavar="ID", help="Scope: the agent.")
@click.option("--thread", "thread_id", metavar="ID", help="Scope: the thread.")
@click.option("--metadata", metavar="JSON", help="A JSON object stored with the memory.")
@click.option("--timestamp", metavar="ISO", help="When it happened (ISO 8601).")
@click.option("--ttl-days", type=float, help="Expire after this many days.")
@click.option(
    "--if-exists",
    type=click.Choice(["error", "skip", "replace"]),
    default="error",
    show_default=True,
    help="When --id is stored: fail, keep the stored memory, or replace it (its links go).",
)
@store_options
@json_option
def add(db: str, store: str | None, as_json: bool, metadata: str | None, **kwargs: Any) -> None:
    """Add a memory (CONTENT, or - to read standard input without its trailing
    newlines); prints its id.

    \b
    Example:
      graphmem add --db memories.db --id tea --type preference --user u1 "Likes green tea."
    """
    kwargs["content"] = _content(kwargs["content"])
    kwargs["metadata"] = json_object(metadata, "--metadata")
    with open_memory(db, store, create=True) as memory:
        memory_id = memory.add_memory(**kwargs)
    emit(as_json, {"id": memory_id}, memory_id)


@click.command()
@click.argument("memory_id")
@store_options
@json_option
def get(db: str, store: str | None, as_json: bool, memory_id: str) -> None:
    """Show one memory, with the links that make it invalid.

    \b
    Example:
      graphmem get --db memories.db tea
    """
    with open_memory(db, store) as memory:
        record = memory.get_memory(memory_id)
    emit(as_json, record.model_dump(mode="json"), record_text(record))


@click.command("list")
@filter_options
@click.option(
    "--valid-only", is_flag=True, help="Leave out invalid (superseded, refined...) memories."
)
@click.option("--limit", type=click.IntRange(1), default=20, show_default=True)
@click.option("--offset", type=click.IntRange(0), default=0, show_default=True)
@store_options
@json_option
def list_(
    db: str,
    store: str | None,
    as_json: bool,
    valid_only: bool,
    limit: int,
    offset: int,
    **params: Any,
) -> None:
    """List memories, oldest first, a page at a time (expired ones are left out).

    \b
    Example:
      graphmem list --db memories.db --user u1 --type preference --limit 20 --offset 20
    """
    filters = filters_from(params)
    with open_memory(db, store) as memory:
        found = memory.list_memories(
            **filters, include_invalid_results=not valid_only, limit=offset + limit + 1
        )
    page = found[offset : offset + limit]
    more = len(found) > offset + limit
    payload = {
        "items": [r.model_dump(mode="json") for r in page],
        "offset": offset,
        "limit": limit,
        "next_offset": offset + limit if more else None,
    }
    emit(as_json, payload, "\n".join(record_line(r) for r in page))
    if more and not as_json:
        click.echo(f"(more: --offset {offset + limit})", err=True)


@click.command()
@click.argument("memory_id")
@click.option("--content", help="New content (embedded again); - reads standard input.")
@click.option("--metadata", metavar="JSON", help="New metadata (replaces the old).")
@click.option("--timestamp", metavar="ISO", help="New timestamp (ISO 8601).")
@store_options
@json_option
def update(
    db: str,
    store: str | None,
    as_json: bool,
    memory_id: str,
    content: str | None,
    metadata: str | None,
    timestamp: str | None,
) -> None:
    """Change a memory's content, metadata or timestamp; its links stay.

    \b
    Example:
      graphmem update --db memories.db tea --metadata '{"source": "chat"}'
    """
    with open_memory(db, store) as memory:
        record = memory.update_memory(
            memory_id,
            content=None if content is None else _content(content),
            metadata=json_object(metadata, "--metadata"),
            timestamp=timestamp,
        )
    emit(as_json, record.model_dump(mode="json"), record_text(record))


@click.command()
@click.argument("memory_id")
@store_options
@json_option
def delete(db: str, store: str | None, as_json: bool, memory_id: str) -> None:
    """Delete a memory and its links (the other ends' validity is recomputed).

    \b
    Example:
      graphmem delete --db memories.db tea
    """
    with open_memory(db, store) as memory:
        memory.delete_memory(memory_id)
    emit(as_json, {"deleted": memory_id}, f"deleted {memory_id}")

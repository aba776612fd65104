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
    record_json,
    record_text,
    refused_as,
)
from graphmem.cli._store import UserError, open_memory, store_options
from graphmem.core.relations import MEMORY_TYPES
from graphmem.core.tree_text import record_line
from graphmem.core.validation import MAX_COUNT

__all__ = ["add", "delete", "get", "list_", "update"]


def _content(text: str, where: str) -> str:
    """``text``, or standard input for ``-`` without its trailing newlines (``\\n`` or
    ``\\r\\n``, as ``echo`` adds one); other trailing whitespace stays."""
    if text != "-":
        return text
    if sys.stdin is None:
        raise UserError(f"{where}: standard input is closed")
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
@refused_as(memory_id="--id", content="CONTENT")
def add(db: str, store: str | None, as_json: bool, metadata: str | None, **kwargs: Any) -> None:
    """Add a memory (CONTENT, or - to read standard input without its trailing
    newlines); prints its id.

    \b
    Example:
      graphmem add --db memories.db --id tea --type preference --user u1 "Likes green tea."
    """
    kwargs["metadata"] = json_object(metadata, "--metadata")
    kwargs["content"] = _content(kwargs["content"], "CONTENT -")
    with open_memory(db, store, create=True) as memory:
        memory_id = memory.add_memory(**kwargs)
    emit(as_json, {"id": memory_id}, memory_id)


@click.command()
@click.argument("memory_id")
@store_options
@json_option
@refused_as(memory_id="MEMORY_ID")
def get(db: str, store: str | None, as_json: bool, memory_id: str) -> None:
    """Show one memory, with the links that make it invalid; a memory whose
    --ttl-days have passed shows expired: true (list and search leave it out).

    \b
    Example:
      graphmem get --db memories.db tea
    """
    with open_memory(db, store) as memory:
        record = memory.get_memory(memory_id)
    emit(as_json, record_json(record), record_text(record))


@click.command("list")
@filter_options
@click.option(
    "--valid-only", is_flag=True, help="Leave out invalid (superseded, refined...) memories."
)
@click.option("--limit", type=click.IntRange(1, MAX_COUNT), default=20, show_default=True)
@click.option("--offset", type=click.IntRange(0, MAX_COUNT), default=0, show_default=True)
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
        # One more than the page, to tell whether another page follows.
        found = memory.list_memories(
            **filters,
            include_invalid_results=not valid_only,
            limit=min(limit + 1, MAX_COUNT),
            offset=offset,
        )
    page = found[:limit]
    more = len(found) > limit
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
@refused_as(memory_id="MEMORY_ID", content="--content")
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
    new_metadata = json_object(metadata, "--metadata")
    new_content = None if content is None else _content(content, "--content -")
    with open_memory(db, store) as memory:
        record = memory.update_memory(
            memory_id, content=new_content, metadata=new_metadata, timestamp=timestamp
        )
    emit(as_json, record_json(record), record_text(record))


@click.command()
@click.argument("memory_id")
@store_options
@json_option
@refused_as(memory_id="MEMORY_ID")
def delete(db: str, store: str | None, as_json: bool, memory_id: str) -> None:
    """Delete a memory and its links (the other ends' validity is recomputed).

    With --json, prints {"deleted": MEMORY_ID}, as unlink prints the link's id.

    \b
    Example:
      graphmem delete --db memories.db tea
    """
    with open_memory(db, store) as memory:
        memory.delete_memory(memory_id)
    emit(as_json, {"deleted": memory_id}, f"deleted {memory_id}")

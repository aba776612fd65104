"""Verbs on links: link, unlink, links."""

from __future__ import annotations

import click

from graphmem.cli._common import (
    emit,
    json_object,
    json_option,
    refused_as,
    relation_text,
)
from graphmem.cli._store import open_memory, store_options
from graphmem.errors import InvalidArgumentError
from graphmem.memory import GraphMemory
from graphmem.models import MemoryRecord

__all__ = ["link", "links", "unlink"]


def _end(memory: GraphMemory, memory_id: str, argument: str) -> MemoryRecord:
    """The memory at one end of a link; an id the library refuses (as its
    ``memory_id``) is named by the verb's ``argument`` (``SOURCE_ID``, ``TARGET_ID``)."""
    try:
        return memory.get_memory(memory_id)
    except InvalidArgumentError as exc:
        raise InvalidArgumentError(argument, exc.detail) from None


@click.command()
@click.argument("source_id")
@click.argument("relation_type")
@click.argument("target_id")
@click.option("--opposite", metavar="LABEL", help="Opposite label (custom types need one).")
@click.option("--id", "relation_id", metavar="ID", help="Caller-chosen relation id.")
@click.option("--timestamp", metavar="ISO", help="When the relation held (ISO 8601).")
@click.option("--metadata", metavar="JSON", help="A JSON object stored with the link.")
@store_options
@json_option
@refused_as(
    relation_type="RELATION_TYPE",
    relation_id="--id",
    source_record_id="SOURCE_ID",
    target_record_id="TARGET_ID",
)
def link(
    db: str,
    store: str | None,
    as_json: bool,
    source_id: str,
    relation_type: str,
    target_id: str,
    opposite: str | None,
    relation_id: str | None,
    timestamp: str | None,
    metadata: str | None,
) -> None:
    """Link SOURCE_ID -> TARGET_ID; prints the relation id.

    supersedes, refines and duplicates make the target invalid (kept as
    history); supports and contradicts change nothing.

    \b
    Example:
      graphmem link --db memories.db sourdough supersedes thin-crust
    """
    link_metadata = json_object(metadata, "--metadata")
    with open_memory(db, store) as memory:
        source = _end(memory, source_id, "SOURCE_ID")
        target = _end(memory, target_id, "TARGET_ID")
        new_id = memory.link_records(
            source.id,
            source.record_type,
            target.id,
            target.record_type,
            relation_type,
            opposite_relation_type=opposite,
            relation_id=relation_id,
            timestamp=timestamp,
            metadata=link_metadata,
        )
    emit(as_json, {"id": new_id}, new_id)


@click.command()
@click.argument("ids", nargs=-1, required=True, metavar="RELATION_ID | SOURCE_ID TYPE TARGET_ID")
@store_options
@json_option
@refused_as(
    relation_id="RELATION_ID",
    relation_type="TYPE",
    source_record_id="SOURCE_ID",
    target_record_id="TARGET_ID",
)
def unlink(db: str, store: str | None, as_json: bool, ids: tuple[str, ...]) -> None:
    """Delete a link by its relation id, or by source, type and target.

    With --json, prints {"deleted": RELATION_ID}, as delete prints the memory's id.

    \b
    Example:
      graphmem unlink --db memories.db 3f1c2a...
      graphmem unlink --db memories.db sourdough supersedes thin-crust
    """
    if len(ids) not in (1, 3):
        raise click.UsageError("give RELATION_ID, or SOURCE_ID TYPE TARGET_ID")
    with open_memory(db, store) as memory:
        deleted: str | None = ids[0]
        if len(ids) == 1:
            memory.delete_record_link(relation_id=ids[0])
        else:
            source = _end(memory, ids[0], "SOURCE_ID")
            target = _end(memory, ids[2], "TARGET_ID")
            # the relation id, for --json: a triple names at most one link
            deleted = next(
                (
                    found.id
                    for found in memory.list_record_links(source.id, ids[1])
                    if (found.source_record_id, found.target_record_id) == (source.id, target.id)
                ),
                None,  # no such link: the delete below says so (or it was made meanwhile)
            )
            memory.delete_record_link(
                source_record_id=source.id,
                source_record_type=source.record_type,
                target_record_id=target.id,
                target_record_type=target.record_type,
                relation_type=ids[1],
            )
    emit(as_json, {"deleted": deleted}, f"deleted {' '.join(ids)}")


@click.command()
@click.argument("memory_id", required=False)
@click.option("--type", "relation_type", metavar="TYPE", help="Only links of this type.")
@store_options
@json_option
@refused_as(memory_id="MEMORY_ID", record_id="MEMORY_ID", relation_type="--type")
def links(
    db: str, store: str | None, as_json: bool, memory_id: str | None, relation_type: str | None
) -> None:
    """List links touching MEMORY_ID (either end), or all links; oldest first.

    \b
    Example:
      graphmem links --db memories.db sourdough --type supersedes
    """
    with open_memory(db, store) as memory:
        if memory_id is not None:
            memory.get_memory(memory_id)  # an unknown id is an error, not an empty list
        found = memory.list_record_links(memory_id, relation_type)
    emit(
        as_json,
        [link.model_dump(mode="json") for link in found],
        "\n".join(relation_text(link) for link in found),
    )

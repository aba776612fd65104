"""Verbs over the graph: search, tree, why, stats."""

from __future__ import annotations

from typing import Any

import click

from graphmem.cli._common import (
    emit,
    filter_options,
    filters_from,
    json_option,
    refused_as,
)
from graphmem.cli._store import open_memory, store_options
from graphmem.core.tree import MAX_HOPS
from graphmem.core.tree_text import one_line, record_line, tree_text
from graphmem.core.validation import MAX_COUNT
from graphmem.explore import History, Invalidation, StoreStats
from graphmem.models import SearchResult

__all__ = ["search", "stats", "tree", "why"]

_FORMAT = click.Choice(["text", "xml", "json"])


def _result_json(result: SearchResult) -> dict[str, Any]:
    return {
        "record": result.record.model_dump(mode="json"),
        "distance": result.distance,
        "linked": [
            {
                "relation": rel.model_dump(mode="json"),
                "label": rel.label_from(result.id),
                **_result_json(child),
            }
            for rel, child in result.linked_results
        ],
    }


def _invalid_linked(result: SearchResult) -> int:
    return sum(
        (child.status == "invalid") + _invalid_linked(child) for _, child in result.linked_results
    )


def _format(as_json: bool, fmt: str) -> str:
    """The output format: ``--json`` is ``--format json``; with another format, a
    usage error (the two flags disagree)."""
    if not as_json:
        return fmt
    if fmt not in ("text", "json"):
        raise click.UsageError(f"--json prints JSON: leave out --format {fmt} (or --json)")
    return "json"


def _show(results: list[SearchResult], fmt: str) -> None:
    if fmt == "json":
        emit(True, [_result_json(r) for r in results], "")
    elif not results:  # nothing on standard output; a note for the person reading
        click.echo("no results", err=True)
    elif fmt == "xml":
        click.echo("\n".join(r.format_content() for r in results))
    else:
        blocks = []
        for r in results:
            head = "" if r.distance is None else f"[relevance {1.0 - r.distance:.2f}] "
            blocks.append(head + tree_text(r))
        click.echo("\n\n".join(blocks))


@click.command()
@click.argument("query")
@filter_options
@click.option("--max-results", type=click.IntRange(0, MAX_COUNT), default=10, show_default=True)
@click.option(
    "--hops",
    type=click.IntRange(0, MAX_HOPS),
    default=0,
    show_default=True,
    help="Follow links this far (both directions) for linked context.",
)
@click.option(
    "--cap",
    type=click.IntRange(0, MAX_COUNT),
    default=100,
    show_default=True,
    help="Linked records kept per result (0: none).",
)
@click.option(
    "--include-invalid",
    is_flag=True,
    help="Also return invalid memories as direct results, and show invalid content.",
)
@click.option(
    "--format",
    "fmt",
    type=_FORMAT,
    default="text",
    show_default=True,
    help="text: terminal trees; xml: prompt text (format_content); json.",
)
@store_options
@json_option
@refused_as(query="QUERY")
def search(db: str, store: str | None, as_json: bool, query: str, fmt: str, **params: Any) -> None:
    """Search memories; each result carries its linked-context tree.

    With --format xml, invalid linked records render without content and a
    branch of only invalid records is left out, unless --include-invalid: a
    note on standard error says how many linked records are invalid.

    \b
    Example:
      graphmem search --db memories.db "What pizza?" --user u1 --hops 2 --format xml
    """
    fmt = _format(as_json, fmt)
    filters = filters_from(params)
    with open_memory(db, store) as memory:
        results = memory.search(
            query,
            **filters,
            max_results=params["max_results"],
            num_hops=params["hops"],
            max_linked_results=params["cap"],
            include_invalid_results=params["include_invalid"],
        )
    _show(results, fmt)
    hidden = sum(_invalid_linked(r) for r in results)
    if fmt == "xml" and hidden and not params["include_invalid"]:
        click.echo(
            f"note: {hidden} linked record(s) are invalid: their content is not shown and "
            "branches holding only invalid records are left out (--include-invalid shows them)",
            err=True,
        )


@click.command()
@click.argument("memory_id")
@filter_options
@click.option("--hops", type=click.IntRange(0, MAX_HOPS), default=2, show_default=True)
@click.option(
    "--cap",
    type=click.IntRange(0, MAX_COUNT),
    default=100,
    show_default=True,
    help="Linked records kept (0: none).",
)
@click.option("--format", "fmt", type=_FORMAT, default="text", show_default=True)
@store_options
@json_option
@refused_as(memory_id="MEMORY_ID")
def tree(
    db: str, store: str | None, as_json: bool, memory_id: str, fmt: str, **params: Any
) -> None:
    """Show the linked tree of one memory, as a search would attach it.

    \b
    Example:
      graphmem tree --db memories.db pizza-neapolitan-sourdough --hops 2
    """
    fmt = _format(as_json, fmt)
    filters = filters_from(params)
    with open_memory(db, store) as memory:
        result = memory.tree(memory_id, params["hops"], params["cap"], **filters)
    _show([result], fmt)


def _why_json(why: Invalidation, history: History) -> dict[str, Any]:
    return {
        "record": why.record.model_dump(mode="json"),
        "reasons": [
            {"link": link.model_dump(mode="json"), "source": source.model_dump(mode="json")}
            for link, source in why.reasons
        ],
        "newer": [step.model_dump(mode="json") for step in history.newer],
        "older": [step.model_dump(mode="json") for step in history.older],
    }


def _why_text(why: Invalidation, history: History) -> str:
    lines = [record_line(why.record)]
    if why.reasons:
        lines.append("invalid because:")
        for link, source in why.reasons:
            lines.append(
                f"  {one_line(source.id)} {one_line(link.relation_type)} it "
                f"(link {one_line(link.id)}, {link.created_at.isoformat()})"
            )
    else:
        lines.append("valid: no supersedes, refines or duplicates link targets it")
    for title, steps in (("newer", history.newer), ("older", history.older)):
        lines.append(f"{title}:" if steps else f"{title}: none")
        for step in steps:
            label = (
                step.relation.relation_type
                if title == "older"
                else (step.relation.opposite_relation_type)
            )
            lines.append(f"  {step.depth} {one_line(label)} → {record_line(step.record)}")
    return "\n".join(lines)


@click.command()
@click.argument("memory_id")
@store_options
@json_option
@refused_as(memory_id="MEMORY_ID")
def why(db: str, store: str | None, as_json: bool, memory_id: str) -> None:
    """Explain a memory's status: the lifecycle links that make it invalid,
    and its supersession history in both directions.

    \b
    Example:
      graphmem why --db memories.db pizza-thin-crust
    """
    with open_memory(db, store) as memory:
        explanation = memory.explain_invalid(memory_id)
        history = memory.history(memory_id)
    emit(as_json, _why_json(explanation, history), _why_text(explanation, history))


def _stats_text(counts: StoreStats) -> str:
    lines = [f"memories: {counts.memories}", f"links: {counts.links}"]
    lines += [
        f"{name}: {getattr(counts, name)}"
        for name in ("threads", "messages", "users", "agents", "prompts")
    ]
    for title, table in (
        ("memories by type", counts.by_type),
        ("memories by status", counts.by_status),
        ("memories by user", counts.by_user),
        ("links by type", counts.links_by_type),
    ):
        lines.append(f"{title}:")
        lines.extend(f"  {one_line(key) or '(none)'}: {value}" for key, value in table.items())
    return "\n".join(lines)


@click.command()
@store_options
@json_option
def stats(db: str, store: str | None, as_json: bool) -> None:
    """Count memories by type, status and user, links by type, and threads,
    messages, users, agents and prompts (expired memories and messages are left out).

    \b
    Example:
      graphmem stats --db memories.db --json
    """
    with open_memory(db, store) as memory:
        counts = memory.stats()
    emit(as_json, counts.model_dump(mode="json"), _stats_text(counts))

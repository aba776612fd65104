"""Options and output shared by the verbs (opening the store: :mod:`graphmem.cli._store`)."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar, cast

import click

from graphmem.core.json_nesting import MAX_JSON_DEPTH
from graphmem.core.relations import MEMORY_TYPES
from graphmem.core.times import utc_now
from graphmem.core.tree_text import one_line
from graphmem.errors import InvalidArgumentError
from graphmem.models import MemoryRecord, RecordRelation

__all__ = [
    "emit",
    "filter_options",
    "filters_from",
    "json_object",
    "json_option",
    "record_json",
    "record_text",
    "refused_as",
    "relation_text",
]

F = TypeVar("F", bound=Callable[..., Any])


def json_option(func: F) -> F:
    """``--json``: one JSON document on standard output, for scripts."""
    return click.option("--json", "as_json", is_flag=True, help="Print JSON.")(func)


def refused_as(**names: str) -> Callable[[F], F]:
    """Names a verb's options (``--id``) and arguments (``MEMORY_ID``) after the
    library's arguments that they carry (``memory_id="--id"``): an
    :class:`InvalidArgumentError` about one of those arguments is raised again under
    the name the user typed. The same library argument is a different option in
    different verbs (``memory_id`` is ``add --id`` but ``get MEMORY_ID``); options
    that mean the same in every verb (``--user``) are named in :mod:`graphmem.cli.app`.
    """

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return func(*args, **kwargs)
            except InvalidArgumentError as exc:
                name = names.get(exc.argument)
                if name is None:
                    raise
                raise InvalidArgumentError(name, exc.detail) from None

        return cast(F, run)

    return decorate


def filter_options(func: F) -> F:
    """Scope, type and metadata filters, as ``list_memories`` and ``search`` take them."""
    for option in reversed(
        [
            click.option("--user", "user_id", metavar="ID", help="Only this user's memories."),
            click.option("--agent", "agent_id", metavar="ID", help="Only this agent's."),
            click.option("--thread", "thread_id", metavar="ID", help="Only this thread's."),
            click.option(
                "--type",
                "record_types",
                multiple=True,
                type=click.Choice(MEMORY_TYPES),
                help="Only this record type (repeatable).",
            ),
            click.option(
                "--where",
                "where",
                multiple=True,
                metavar="KEY=VALUE",
                help="Metadata equality (repeatable); VALUE is JSON when it parses "
                '(1, true, null, "1"), else text.',
            ),
        ]
    ):
        func = option(func)
    return func


def _loads(text: str) -> Any:
    """``json.loads``, refusing (ValueError) nesting past
    :data:`~graphmem.core.json_nesting.MAX_JSON_DEPTH` levels, on every Python."""
    value = json.loads(text)
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > MAX_JSON_DEPTH:
                raise ValueError("nested too deeply")
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return value


def _where(pairs: tuple[str, ...]) -> dict[str, Any] | None:
    found: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"expected KEY=VALUE, got {pair!r}", param_hint="--where")
        try:
            found[key] = _loads(text)
        except (ValueError, RecursionError):  # not JSON (or too deep to parse): text
            found[key] = text
    return found or None


def filters_from(params: dict[str, Any]) -> dict[str, Any]:
    """The library's filter keyword arguments from the options of :func:`filter_options`."""
    return {
        "user_id": params.pop("user_id"),
        "agent_id": params.pop("agent_id"),
        "thread_id": params.pop("thread_id"),
        "record_types": params.pop("record_types") or None,
        "metadata_filter": _where(params.pop("where")),
    }


def json_object(text: str | None, option: str) -> dict[str, Any] | None:
    """A JSON object option value, or a usage error naming the option."""
    if text is None:
        return None
    try:
        value = _loads(text)
    except json.JSONDecodeError as exc:
        raise click.BadParameter(f"is not JSON: {exc.msg}", param_hint=option) from None
    except (ValueError, RecursionError):  # json.loads refuses these without a JSONDecodeError
        raise click.BadParameter(
            "is not JSON: nested too deeply, or a number too long", param_hint=option
        ) from None
    if not isinstance(value, dict):
        raise click.BadParameter("must be a JSON object", param_hint=option)
    return value


def emit(as_json: bool, payload: Any, text: str) -> None:
    """Print ``payload`` as JSON, or ``text``."""
    if as_json:
        click.echo(json.dumps(payload, ensure_ascii=False, indent=2))
    elif text:
        click.echo(text)


def _expired(record: MemoryRecord, now: datetime | None) -> bool:
    """Whether the record's ``expires_at`` has passed (at ``now``; None: the clock's
    time), as ``list`` and ``search`` leave it out. Its ``status`` is the link
    lifecycle's validity and says nothing of expiry."""
    return record.expires_at is not None and record.expires_at <= (now or utc_now())


def record_json(record: MemoryRecord, now: datetime | None = None) -> dict[str, Any]:
    """A record as JSON, with ``expired`` (true or false) after ``expires_at``."""
    fields: dict[str, Any] = {}
    for name, value in record.model_dump(mode="json").items():
        fields[name] = value
        if name == "expires_at":
            fields["expired"] = _expired(record, now)
    return fields


def record_text(record: MemoryRecord, now: datetime | None = None) -> str:
    """A record, one field per line (control characters shown escaped), with
    ``expired: true`` after ``expires_at`` once that has passed."""
    rows: list[tuple[str, Any]] = [
        ("id", record.id),
        ("type", record.record_type),
        ("status", record.status),
        ("user_id", record.user_id),
        ("agent_id", record.agent_id),
        ("thread_id", record.thread_id),
        ("timestamp", record.timestamp.isoformat()),
        ("created_at", record.created_at.isoformat()),
        ("expires_at", record.expires_at and record.expires_at.isoformat()),
        ("expired", "true" if _expired(record, now) else None),
        ("metadata", json.dumps(record.metadata, ensure_ascii=False) if record.metadata else None),
        ("content", record.content),
    ]
    lines = [f"{name}: {one_line(str(value))}" for name, value in rows if value is not None]
    for link in record.invalidated_by:
        lines.append(f"invalidated_by: {relation_text(link)}")
    return "\n".join(lines)


def relation_text(link: RecordRelation) -> str:
    """``relation_id  source -[type]-> target``."""
    return (
        f"{one_line(link.id)}  {one_line(link.source_record_id)} "
        f"-[{one_line(link.relation_type)}]-> {one_line(link.target_record_id)}"
    )

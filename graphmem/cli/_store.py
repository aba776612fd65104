"""Opening the store a verb names: ``--db``, ``--store`` and the embedder options."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import click

from graphmem.ai import Embedder
from graphmem.errors import BackendError, InvalidArgumentError, SchemaError
from graphmem.memory import GraphMemory
from graphmem.models import SchemaPolicy
from graphmem.service.config import ModelSettings, embedder_from
from graphmem.sqlfiles import DEFAULT_PREFIX, validate_identifier
from graphmem.stores import looks_like_dsn
from graphmem.stores.sqlite_schema import stores_in_file

__all__ = [
    "UserError",
    "cli_embedder",
    "db_options",
    "embedder_options",
    "is_dsn",
    "open_memory",
    "refuse_directory",
    "store_options",
]

F = TypeVar("F", bound=Callable[..., Any])


class UserError(click.ClickException):
    """A user error: one line on standard error, exit status 1."""


_TEMPORARY = ("", ":memory:")


def _kept_db(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Refuses ``""`` and ``":memory:"``: SQLite's temporary database, which starts
    empty and is dropped when the command ends."""
    if value in _TEMPORARY:
        raise click.BadParameter(
            f"{value!r} is SQLite's temporary database, empty and dropped when the command "
            "ends: nothing would be kept; give a file (or an Oracle DSN)",
            ctx=ctx,
            param=param,
        )
    return value


_EMBEDDER_META = "graphmem.embedder"
"""Where the embedder options of the running verb are kept (``click.Context.meta``),
so that :func:`open_memory` reads them without every verb passing them on."""


def _keep_embedder_option(ctx: click.Context, param: click.Parameter, value: Any) -> None:
    ctx.meta.setdefault(_EMBEDDER_META, {})[param.name] = value


def embedder_options(func: F) -> F:
    """``--embedder-model``, ``--embedder-api-base``, ``--embedder-api-key`` (each also
    read from ``GRAPHMEM_EMBEDDER_MODEL`` / ``_API_BASE`` / ``_API_KEY``; a flag wins).
    The verb does not receive them: :func:`open_memory` and :func:`cli_embedder` do."""
    env = "GRAPHMEM_EMBEDDER"
    for name, metavar, text in reversed(
        [
            ("model", "NAME", "Embedder model id (env {env}_MODEL; default: the offline one)."),
            ("api-base", "URL", "Embedder API root (env {env}_API_BASE)."),
            ("api-key", "KEY", "Embedder API key (env {env}_API_KEY)."),
        ]
    ):
        func = click.option(
            f"--embedder-{name}",
            metavar=metavar,
            expose_value=False,
            callback=_keep_embedder_option,
            help=text.format(env=env),
        )(func)
    return func


def db_options(func: F) -> F:
    """``--db`` and ``--store``, also read from ``GRAPHMEM_DB`` / ``GRAPHMEM_STORE``
    (an empty variable counts as unset)."""
    func = click.option(
        "--store",
        envvar="GRAPHMEM_STORE",
        default=None,
        metavar="NAME",
        help="memory_store_id, the table prefix (env GRAPHMEM_STORE; default graphmem).",
    )(func)
    return click.option(
        "--db",
        envvar="GRAPHMEM_DB",
        required=True,
        callback=_kept_db,
        metavar="PATH|DSN",
        help="SQLite file, or Oracle DSN user/password@host:port/service (env GRAPHMEM_DB).",
    )(func)


def store_options(func: F) -> F:
    """:func:`db_options` and :func:`embedder_options`: the options of a data verb."""
    return db_options(embedder_options(func))


def model_flag_error(
    kind: str, exc: InvalidArgumentError, flags: Mapping[str, object]
) -> UserError:
    """A model setting the library refused (``model``, ``api_base``, ``api_key``),
    named where its value came from: its ``--KIND-...`` flag when ``flags`` (the
    flags' values by setting) gives it, else its ``GRAPHMEM_KIND_...`` variable when
    set; a setting missing from both is named by both."""
    argument = exc.argument
    if argument in ("model", "api_base", "api_key"):
        flag = f"--{kind}-{argument.replace('_', '-')}"
        variable = f"GRAPHMEM_{kind.upper()}_{argument.upper()}"
        if flags.get(argument):
            argument = flag
        elif os.environ.get(variable):
            argument = variable
        else:
            argument = f"{flag} (or {variable})"
    return UserError(f"{argument}: {exc.detail}")


def cli_embedder() -> Embedder | None:
    """The embedder the running verb's options or ``GRAPHMEM_EMBEDDER_*`` name (a flag
    wins over the environment), or None for the offline default; as ``serve`` uses it.

    Raises:
        UserError: the settings name no embedder (the message names the option).
    """
    ctx = click.get_current_context(silent=True)
    given = {} if ctx is None else ctx.meta.get(_EMBEDDER_META, {})
    flags = {name: given.get(f"embedder_{name}") for name in ("model", "api_base", "api_key")}
    settings = ModelSettings.resolve(
        "embedder", model=flags["model"], api_base=flags["api_base"], api_key=flags["api_key"]
    )
    try:
        return embedder_from(settings)
    except InvalidArgumentError as exc:
        raise model_flag_error("embedder", exc, flags) from None


def is_dsn(db: str) -> bool:
    """Whether ``--db`` names an Oracle database rather than a SQLite file, exactly
    as the library decides it (a path such as ``bk@2024/mem.db`` is a file)."""
    return looks_like_dsn(db)


def refuse_directory(db: str) -> None:
    """A user error when ``--db`` names a directory: SQLite cannot open it (the
    library would report a missing file, or a file it cannot open)."""
    if not is_dsn(db) and Path(db).is_dir():
        raise UserError(f"--db: {db!r} is a directory, not a database file")


def _is_wal_file(db: str) -> bool:
    """Whether ``db`` is a SQLite file in WAL mode (its header's read and write
    versions are 2: https://www.sqlite.org/fileformat2.html#the_database_header)."""
    try:
        with open(db, "rb") as file:
            header = file.read(20)
    except OSError:
        return False
    return header.startswith(b"SQLite format 3\x00") and header[18:20] == b"\x02\x02"


def _unwritable_wal_directory(db: str) -> str | None:
    """The directory of a WAL store in which its ``-wal`` / ``-shm`` files cannot be
    made, or None."""
    directory = os.path.dirname(os.path.abspath(db))
    missing = [s for s in ("-wal", "-shm") if not os.path.exists(db + s)]
    if missing and _is_wal_file(db) and not os.access(directory, os.W_OK):
        return directory
    return None


_EMBEDDER_REFUSED = "open the store with the embedder it was built with"
"""How the library refuses an embedder other than the store's (a SchemaError)."""


def _open(db: str, store: str | None, create: bool) -> GraphMemory:
    embedder = cli_embedder()

    def opened(policy: SchemaPolicy) -> GraphMemory:
        return GraphMemory(db, embedder=embedder, memory_store_id=store, schema_policy=policy)

    try:
        return opened(SchemaPolicy.CREATE_IF_NECESSARY if create else SchemaPolicy.REQUIRE_EXISTING)
    except BackendError:
        directory = None if is_dsn(db) else _unwritable_wal_directory(db)
        if directory is None:
            raise
        raise UserError(
            f"--db: cannot open {db!r}: a WAL store needs its -wal and -shm files beside "
            f"it, and its directory {directory!r} is not writable (a read-only file system "
            "or directory); copy the file to a writable directory"
        ) from None
    except SchemaError as exc:
        others = [] if create or is_dsn(db) else stores_in_file(db)
        wanted = (store or DEFAULT_PREFIX).lower()
        if wanted in (name.lower() for name in others) and "needs version" in str(exc):
            # this very store, of an older schema version: upgraded on open, as the
            # library's default policy does (the file holds it: nothing is created)
            return opened(SchemaPolicy.CREATE_IF_NECESSARY)
        if not others or wanted in (name.lower() for name in others):
            raise  # no other store, or this one is there with another schema version
        raise UserError(
            f"{exc}; {db} holds the store{'s' if len(others) > 1 else ''} "
            f"{', '.join(others)} (choose one with --store)"
        ) from None


@contextmanager
def open_memory(db: str, store: str | None, create: bool = False) -> Iterator[GraphMemory]:
    """The store at ``db``, with the embedder of :func:`cli_embedder`; a missing store
    is a user error unless ``create`` (naming the stores the file holds, if any).

    A store this call created stays when the verb then fails: another process may
    have opened the new file meanwhile, and removing it would lose that process's
    writes.
    """
    if store is not None:  # a malformed name is reported before a missing file
        validate_identifier("memory_store_id", store)
    refuse_directory(db)
    if not create and not is_dsn(db) and not Path(db).exists():
        raise UserError(f"--db: no store at {db!r} (the file does not exist)")
    memory = _open(db, store, create)
    try:
        yield memory
    except BaseException as exc:
        memory.close()
        if isinstance(exc, SchemaError) and _EMBEDDER_REFUSED in str(exc):
            raise UserError(
                f"{exc} (choose the embedder with --embedder-model, --embedder-api-base "
                "and --embedder-api-key, or GRAPHMEM_EMBEDDER_MODEL, _API_BASE, _API_KEY)"
            ) from None
        raise
    memory.close()

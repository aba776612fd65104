"""The base of graphmem's public config models: bad input raises ``InvalidArgumentError``.

A :class:`CheckedModel` is a frozen pydantic model that refuses unknown fields
and takes its fields' types strictly: a ``bool`` field takes only ``True`` or
``False`` (not ``"no"``, not ``1``), an ``int`` field only an ``int`` (not
``True``, ``"5"`` or ``5.0``), a ``float`` field an ``int`` or a ``float``.
Its constructor, ``model_validate`` and ``model_validate_json`` turn pydantic's
``ValidationError`` into :class:`graphmem.errors.InvalidArgumentError` naming
the field by its path: ``max_results``, ``hybrid.candidates`` for a field of a
nested config, ``name[2]`` for an item of a list.

A check of a config raises ``InvalidArgumentError`` with the field's name
relative to that config (``model_post_init``) or a plain ``ValueError`` (a field
validator, which pydantic places at the field); either way the error is
reported once, with the path of the nested config in front.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from enum import Enum
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from graphmem.errors import InvalidArgumentError

__all__ = ["CheckedModel", "ModeEnum", "fields_of", "invalid_argument", "mode_of"]

M = TypeVar("M", bound="CheckedModel")
E = TypeVar("E", bound="ModeEnum")


class ModeEnum(str, Enum):
    """A mode of a config, given by its member, its name or its value, in any case:
    ``"FAST"``, ``"fast"`` and ``PruningEvaluationMode.FAST`` are one mode. The
    member's value is what is stored."""

    @classmethod
    def _missing_(cls, value: object) -> Any:
        if isinstance(value, str):
            key = value.casefold()
            for member in cls:
                if key in (member.name.casefold(), str(member.value).casefold()):
                    return member
        return None


def mode_of(enum: type[E]) -> Callable[[object], E]:
    """A before-validator of a mode field: the member of ``enum`` that a value names."""
    names = ", ".join(member.name for member in enum)

    def member(value: object) -> E:
        if isinstance(value, str):
            try:
                return enum(value)
            except ValueError:
                pass
        raise ValueError(f"must be one of {names} (any case); got {value!r:.60}")

    return member


def _path(loc: Sequence[int | str]) -> str:
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


def _joined(path: str, argument: str) -> str:
    if not path or not argument:
        return path or argument
    return InvalidArgumentError(argument, "").within(path).argument


@contextmanager
def fields_of(argument: str) -> Iterator[None]:
    """Name an :class:`InvalidArgumentError` raised inside as one about a part of
    ``argument``: a config given as ``search_config`` whose ``max_results`` is bad
    raises ``search_config.max_results``."""
    try:
        yield
    except InvalidArgumentError as error:
        raise error.within(argument) from None


def invalid_argument(error: ValidationError, owner: str) -> InvalidArgumentError:
    """The :class:`InvalidArgumentError` of pydantic's first complaint in ``error``.

    ``owner`` names the whole value when the complaint is about no one field
    (a value that is not a mapping at all).
    """
    first = error.errors(include_url=False)[0]
    path = _path(first["loc"])
    cause = (first.get("ctx") or {}).get("error")
    if isinstance(cause, InvalidArgumentError):
        return InvalidArgumentError(_joined(path, cause.argument) or owner, cause.detail)
    if isinstance(cause, ValidationError):  # a nested model validated by a validator
        inner = invalid_argument(cause, "")
        return InvalidArgumentError(_joined(path, inner.argument) or owner, inner.detail)
    detail = str(cause) if isinstance(cause, Exception) else str(first["msg"])
    return InvalidArgumentError(path or owner, detail)


class CheckedModel(BaseModel):
    """A frozen config model whose bad input raises :class:`InvalidArgumentError`."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as error:
            raise invalid_argument(error, type(self).__name__) from None

    @classmethod
    def model_validate(cls: type[M], obj: Any, *args: Any, **kwargs: Any) -> M:
        """Read a config back from its ``model_dump()`` data (or a config).

        Raises:
            InvalidArgumentError: a bad field, named by its path.
        """
        try:
            return super().model_validate(obj, *args, **kwargs)
        except ValidationError as error:
            raise invalid_argument(error, cls.__name__) from None

    @classmethod
    def model_validate_json(cls: type[M], json_data: Any, *args: Any, **kwargs: Any) -> M:
        """Read a config back from its ``model_dump_json()`` text.

        Raises:
            InvalidArgumentError: malformed JSON or a bad field, named by its path.
        """
        try:
            return super().model_validate_json(json_data, *args, **kwargs)
        except ValidationError as error:
            raise invalid_argument(error, cls.__name__) from None

    @classmethod
    def model_validate_strings(cls: type[M], obj: Any, *args: Any, **kwargs: Any) -> M:
        """As :meth:`model_validate`, for data whose leaves are strings.

        Raises:
            InvalidArgumentError: a bad field, named by its path.
        """
        try:
            return super().model_validate_strings(obj, *args, **kwargs)
        except ValidationError as error:
            raise invalid_argument(error, cls.__name__) from None

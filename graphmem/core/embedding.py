"""Embedder output and identity checks (pure: no SQL, no I/O).

Whatever an embedder returns goes through :func:`check_embeddings` before it is
used: one finite vector per text, all of one dimension, or a clear
:class:`~graphmem.errors.InvalidArgumentError` naming the embedder. A store
records the identity of the embedder that wrote its first vector (its name, see
:func:`embedder_name`, and the dimension) and :func:`check_same_embedder` refuses
any other.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from graphmem.errors import InvalidArgumentError, SchemaError

__all__ = [
    "EMBEDDER_NAME_KEY",
    "EMBEDDING_DIM_KEY",
    "MAX_NAME_LENGTH",
    "check_embeddings",
    "check_same_embedder",
    "embedder_name",
]

EMBEDDER_NAME_KEY = "embedder_name"
"""The store metadata key of the recorded embedder name."""
EMBEDDING_DIM_KEY = "embedding_dim"
"""The store metadata key of the recorded embedding dimension."""
MAX_NAME_LENGTH = 256
_NUMERIC_KINDS = "iuf"  # signed, unsigned, floating; not bool, complex, text or objects


def embedder_name(embedder: object) -> str:
    """The name a store records for ``embedder``.

    The first non-empty string among the embedder's ``name`` and ``model``
    attributes, else its class's qualified name. Set ``name`` to keep a store
    usable when the class moves or to tell apart two configurations of one class.

    >>> class Local:
    ...     def embed(self, texts): ...
    >>> embedder_name(Local()), embedder_name(type("E", (), {"model": "mini-lm"})())
    ('Local', 'mini-lm')

    Raises:
        InvalidArgumentError: the name is longer than :data:`MAX_NAME_LENGTH` or
            not valid Unicode text.
    """
    for attribute in ("name", "model"):
        value = getattr(embedder, attribute, None)
        if isinstance(value, str) and value.strip():
            return _checked_name(value.strip())
    return _checked_name(type(embedder).__qualname__)


def _checked_name(name: str) -> str:
    if len(name) > MAX_NAME_LENGTH:
        raise InvalidArgumentError(
            "embedder", f"its name must be at most {MAX_NAME_LENGTH} characters: {name[:40]!r}..."
        )
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArgumentError("embedder", f"its name is not valid Unicode: {name!r}") from None
    return name


def _describe(output: object) -> str:
    shape = getattr(output, "shape", None)
    if isinstance(shape, tuple):
        return f"{type(output).__name__} of shape {shape}"
    if isinstance(output, (list, tuple)):
        return f"a {type(output).__name__} of {len(output)} items"
    return f"{type(output).__name__}"


def _texts(count: int) -> str:
    return "1 text" if count == 1 else f"{count} texts"


def check_embeddings(
    output: object, count: int, embedder: object, *, dim: int | None = None
) -> npt.NDArray[np.float32]:
    """``output`` of ``embedder.embed(texts)`` for ``count`` texts, as float32 ``[count, d]``.

    Accepts an array or nested lists/tuples of numbers: exactly ``count`` rows,
    each a vector of the same dimension ``d >= 1`` (equal to ``dim`` when given),
    every value finite in float32.

    >>> class Two:
    ...     def embed(self, texts): ...
    >>> check_embeddings([[1, 0], [0.5, 0.5]], 2, Two()).dtype
    dtype('float32')
    >>> check_embeddings([[1.0, float("nan")]], 1, Two())
    Traceback (most recent call last):
    ...
    graphmem.errors.InvalidArgumentError: embedder: 'Two' returned \
a vector with a value that is NaN or infinite (text 0)

    Raises:
        InvalidArgumentError: (argument ``embedder``) anything else, with the
            embedder's name and what it returned.
    """

    def fail(problem: str) -> InvalidArgumentError:
        return InvalidArgumentError("embedder", f"{embedder_name(embedder)!r} returned {problem}")

    if not hasattr(output, "__array__") and not isinstance(output, (list, tuple)):
        raise fail(f"{_describe(output)}; embed(texts) must return one vector per text")
    try:
        raw = np.asarray(output)
    except (ValueError, TypeError):  # ragged nesting
        raise fail(f"{_describe(output)} that is not a rectangular array of numbers") from None
    if raw.dtype.kind not in _NUMERIC_KINDS:
        raise fail(f"{_describe(output)} of {raw.dtype} values; vectors must hold numbers")
    if raw.ndim != 2:
        raise fail(f"{_describe(output)} for {_texts(count)}; expected one vector per text")
    if raw.shape[0] != count:
        raise fail(f"{raw.shape[0]} vectors for {_texts(count)}; expected one vector per text")
    if raw.shape[1] == 0:
        raise fail("vectors of dimension 0")
    if dim is not None and raw.shape[1] != dim:
        raise fail(f"{raw.shape[1]}-dimensional vectors after {dim}-dimensional ones")
    with np.errstate(over="ignore", invalid="ignore"):
        vectors = raw.astype(np.float32)
    finite = np.isfinite(vectors).all(axis=1)
    if not finite.all():
        first = int(np.flatnonzero(~finite)[0])
        raise fail(f"a vector with a value that is NaN or infinite (text {first})")
    return np.ascontiguousarray(vectors)


def check_same_embedder(
    stored_name: str | None, stored_dim: int | None, name: str, dim: int
) -> None:
    """Refuse an embedder other than the one the store records (``None``: not recorded).

    A store written before names were recorded holds only a dimension; any embedder
    of that dimension is accepted there (and then recorded).

    >>> check_same_embedder("mini-lm", 384, "mini-lm", 384)
    >>> check_same_embedder(None, 16, "other", 16)
    >>> check_same_embedder("mini-lm", 384, "other", 16)
    Traceback (most recent call last):
    ...
    graphmem.errors.SchemaError: the store holds vectors of embedder 'mini-lm' (384 dimensions); \
this handle's embedder is 'other' (16 dimensions): open the store with the embedder it was \
built with, or use a new memory_store_id
    """
    same_name = stored_name is None or stored_name == name
    same_dim = stored_dim is None or stored_dim == dim
    if same_name and same_dim:
        return
    held = "?" if stored_dim is None else str(stored_dim)
    raise SchemaError(
        f"the store holds vectors of embedder {stored_name or 'unnamed'!r} ({held} dimensions); "
        f"this handle's embedder is {name!r} ({dim} dimensions): open the store with the "
        "embedder it was built with, or use a new memory_store_id"
    )

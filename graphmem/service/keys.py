"""API keys of the memory service: created and revoked from the CLI, stored hashed.

A key reads ``gm_<key_id>_<secret>``: the id finds the row, and only the SHA-256 of
the secret is stored, so the key is shown once, when it is created. The secret
holds 256 random bits, so a plain hash (no salt or stretching) is enough.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import TYPE_CHECKING

from graphmem.core.validation import utc_now
from graphmem.errors import InvalidArgumentError, NotFoundError
from graphmem.stores.service_base import StoredApiKey

if TYPE_CHECKING:
    from graphmem.stores.base import Store

__all__ = ["KEY_PATTERN", "ROLES", "create_key", "list_keys", "revoke_key", "verify_key"]

ROLES = ("read", "admin")
KEY_PATTERN = re.compile(r"gm_([A-Za-z0-9]{16})_([A-Za-z0-9_-]{43})")


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("ascii")).hexdigest()


def create_key(store: Store, role: str, label: str | None = None) -> tuple[str, StoredApiKey]:
    """A new key of ``role``: returns the key text (shown once) and its stored row."""
    if role not in ROLES:
        raise InvalidArgumentError("role", f"must be one of {', '.join(ROLES)}; got {role!r}")
    if label is not None and (not isinstance(label, str) or len(label) > 200):
        raise InvalidArgumentError("label", "must be at most 200 characters")
    key_id = secrets.token_hex(8)
    secret = secrets.token_urlsafe(32)
    row = StoredApiKey(key_id, _hash(secret), role, label, utc_now())
    with store.transaction():
        store.insert_api_key(row)
    return f"gm_{key_id}_{secret}", row


def list_keys(store: Store) -> list[StoredApiKey]:
    """Every key, oldest first (revoked ones too)."""
    with store.transaction(write=False):
        return store.list_api_keys()


def revoke_key(store: Store, key_id: str) -> str:
    """Revoke a key for good; ``key_id`` may also be the whole key, whose id is
    used (the secret is repeated nowhere). Returns the id.

    Raises:
        NotFoundError: no live key of that id.
    """
    whole = KEY_PATTERN.fullmatch(key_id)
    if whole is not None:
        key_id = whole.group(1)
    with store.transaction():
        if not store.revoke_api_key(key_id, utc_now()):
            raise NotFoundError(f"key_id: no live API key {key_id!r}")
    return key_id


def verify_key(store: Store, text: str) -> str | None:
    """The role of a live key, or None for anything else."""
    found = KEY_PATTERN.fullmatch(text)
    if found is None:
        return None
    with store.transaction(write=False):
        row = store.get_api_key(found.group(1))
    if row is None or row.revoked_at is not None:
        return None
    if not hmac.compare_digest(row.key_hash, _hash(found.group(2))):
        return None
    return row.role

"""Names for the holders of leased work (extraction jobs, service blocks).

An owner is ``host:pid:token``. A lease names its owner, so that a process can
tell a holder that has stopped (same host, no such process, or an owner of this
process that was retired) from one that may still be at work (another host: only
its lease decides).
"""

from __future__ import annotations

import os
import socket
import uuid

__all__ = ["HOST", "new_owner", "owner_gone", "retire_owner"]

HOST = socket.gethostname()
_LIVE: set[str] = set()
"""Owners of this process that are still open."""


def new_owner() -> str:
    """A fresh owner name of this process, live until :func:`retire_owner`."""
    owner = f"{HOST}:{os.getpid()}:{uuid.uuid4().hex[:12]}"
    _LIVE.add(owner)
    return owner


def retire_owner(owner: str) -> None:
    """Mark an owner of this process as gone (its holder closed)."""
    _LIVE.discard(owner)


def owner_gone(owner: str) -> bool:
    """Whether the process named by ``owner`` is known to have stopped.

    >>> owner_gone("another-host:1:x")
    False
    >>> owner = new_owner()
    >>> owner_gone(owner), retire_owner(owner), owner_gone(owner)
    (False, None, True)
    """
    host, _, rest = owner.partition(":")
    pid_text = rest.partition(":")[0]
    if host != HOST or not pid_text.isdigit():
        return False  # another machine: its lease decides
    if int(pid_text) == os.getpid():
        return owner not in _LIVE
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False

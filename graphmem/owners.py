"""Names for the holders of leased work (extraction jobs, service blocks), and the
renewal of their leases.

An owner is ``host:pid:token``. A lease names its owner, so that a process can
tell a holder that has stopped (same host, no such process, or an owner of this
process that was retired) from one that may still be at work (another host: only
its lease decides). Where ``/proc`` tells when a process started (Linux), the
token begins with that start time (``ticks.random``), so that a process that
took a stopped holder's pid after it is not mistaken for the holder.
"""

from __future__ import annotations

import os
import socket
import threading
import uuid
from collections.abc import Callable

__all__ = ["HOST", "LeaseKeeper", "new_owner", "owner_gone", "retire_owner"]

HOST = socket.gethostname()[:200]
"""This machine's name in owner names (cut so that an owner fits the stores'
256-character owner columns)."""
_LIVE: set[str] = set()
"""Owners of this process that are still open."""


def _started(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot, from ``/proc``), or
    None where that cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[19].decode() if len(fields) > 19 and fields[19].isdigit() else None


def new_owner() -> str:
    """A fresh owner name of this process, live until :func:`retire_owner`."""
    pid = os.getpid()
    started = _started(pid)
    token = uuid.uuid4().hex[:12] if started is None else f"{started}.{uuid.uuid4().hex[:12]}"
    owner = f"{HOST}:{pid}:{token}"
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
    pid_text, _, token = rest.partition(":")
    if host != HOST or not pid_text.isdigit():
        return False  # another machine: its lease decides
    pid = int(pid_text)
    started, dot, _ = token.partition(".")
    recorded = started if dot and started.isdigit() else None
    if pid == os.getpid():
        if recorded is None or recorded == _started(pid):
            return owner not in _LIVE
        return True  # an earlier process that had this pid
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    if recorded is None:
        return False
    now = _started(pid)  # a process lives under the pid: is it the holder?
    return now is not None and now != recorded


class LeaseKeeper:
    """The work a holder has in hand, and a thread that renews its leases.

    ``renew(ids)`` extends the leases of ``ids`` (sorted) and returns how many it
    extended; ``every()`` is the pause between two renewals, read each time (a
    third of the lease, say). The thread starts with the first held id (again in
    a process forked since, whose copy has no thread) and ends with :meth:`stop`.
    """

    def __init__(
        self, name: str, renew: Callable[[list[str]], int], every: Callable[[], float]
    ) -> None:
        self._name = name
        self._renew = renew
        self._every = every
        self._held: set[str] = set()
        self._lock = threading.Lock()
        self._stopped = False  # stop() was called, and restart() not since
        # The running thread's own stop event: a thread that outlives stop()'s
        # wait (stuck in a renewal) still ends once it returns, even when
        # restart() has let a new thread start meanwhile.
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def hold(self, item: str) -> None:
        """Keep ``item``'s lease until :meth:`let_go`."""
        with self._lock:
            self._held.add(item)
            thread = self._thread
            if (thread is None or not thread.is_alive()) and not self._stopped:
                self._stop = threading.Event()
                self._thread = threading.Thread(
                    target=self._loop, args=(self._stop,), name=self._name, daemon=True
                )
                try:
                    self._thread.start()
                except RuntimeError:  # no thread to be had: the work keeps one lease
                    self._thread = None

    def let_go(self, item: str) -> None:
        with self._lock:
            self._held.discard(item)

    def renew(self) -> int:
        """Renew the leases of the work held now; how many were renewed."""
        with self._lock:
            held = sorted(self._held)
        return self._renew(held) if held else 0

    def _loop(self, stop: threading.Event) -> None:
        while not stop.wait(self._every()):
            try:
                self.renew()
            except Exception:  # the store closed under us, or a transient error
                if stop.is_set():
                    return

    def stop(self, timeout: float) -> None:
        """End the renewing thread (waiting up to ``timeout`` seconds); a later
        :meth:`restart` allows a new one. A thread still inside a renewal after
        the wait ends when that renewal returns."""
        with self._lock:
            self._stopped = True
            self._stop.set()
            thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout)

    def restart(self) -> None:
        """Allow the thread again after :meth:`stop` (it starts with the next hold)."""
        with self._lock:
            self._stopped = False

"""WAL checkpoints of the embedded store, run off the writer's commit path.

In WAL mode a commit appends the changed pages to the ``-wal`` file; a
checkpoint copies them back into the database file and syncs both. SQLite's
default runs it inside the commit that takes the WAL past 1,000 pages, so one
call in about a hundred link writes pays for the pages of the hundred before it
(at 1M memories, about half of all the time of sustained link writes:
docs/performance.md, "Link lifecycle").

Here a thread of the store, on a connection of its own, runs a passive
checkpoint (``PRAGMA wal_checkpoint(PASSIVE)``: it neither waits for nor blocks
readers and writers) after every :data:`WAKE_COMMITS` write transactions. A
checkpoint copies the WAL's pages but cannot rewind the WAL: that happens at the
start of a write transaction, and only when every page in the WAL has been
copied, which a thread running alongside a busy writer rarely sees (the writer
has committed more by the time it is done). So once the WAL holds
:data:`REWIND_PAGES`, the thread catches up (checkpoints again, copying the
pages committed meanwhile) and asks the writer to copy the last few itself,
after its next commit; the writer's next transaction then starts the WAL over.
Only a checkpoint that reaches the end of the WAL syncs the database file, so
that sync falls on the writer's, with every page the thread copied since the
last one to flush, unless the thread has flushed them first: before it asks for
the rewind, the thread syncs the file itself (``fdatasync``, :data:`SYNC_ROUNDS`
times, copying what was committed meanwhile between two) through a descriptor
that SQLite already holds open on it (one of its connections', found in
``/proc/self/fd`` on Linux), and the writer's sync then finds only the last few
pages to write. The thread never opens or closes a descriptor of the file:
closing any descriptor of a database file drops all of the process's POSIX
locks on it, those of SQLite's other connections to it included (one of
SQLite's documented ways to corrupt a database). Where there is no
``/proc/self/fd``, or no descriptor names the file (it was renamed or deleted),
the writer's checkpoint syncs it all, as SQLite's own does. An extra sync only
makes what is already in the file durable sooner; it changes no content.

Durability is SQLite's, unchanged: each call's ``COMMIT`` is in the WAL before
the call returns (``synchronous = NORMAL``: safe against a crash of the process;
a power loss may lose the transactions since the WAL was last synced, at a
checkpoint). Closing the store stops the thread before the writer's connection
closes, so the last connection to close still copies the WAL into the file and
removes it, as before.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

__all__ = [
    "REWIND_PAGES",
    "SHUT_WAIT",
    "SYNC_ROUNDS",
    "WAKE_COMMITS",
    "WAL_BOUND_PAGES",
    "Checkpointer",
    "shut",
    "sync_through_held_descriptor",
]

WAKE_COMMITS = 100
"""Write transactions between two passive checkpoints of the thread (a link
write appends 6 to 12 pages: about SQLite's default of 1,000 pages)."""

REWIND_PAGES = 4_000
"""WAL pages past which the thread has the writer finish a checkpoint, so that
the WAL starts over from its beginning (16 MB with 4 KiB pages)."""

WAL_BOUND_PAGES = 10_000
"""The writer connection's ``wal_autocheckpoint``: past this many WAL pages the
committing call checkpoints itself, as SQLite does by default at 1,000."""

SHUT_WAIT = 30.0
"""Seconds :func:`shut` waits for the store's lock before it leaves the
connection open."""

SYNC_ROUNDS = 3
"""Syncs of the file by the thread before each rewind (see ``Checkpointer._flush``):
at 1M memories the writer's checkpoint then took about 3 ms instead of 9 after
one sync and 15-25 without (docs/performance.md)."""

_CATCH_UP_ROUNDS = 3
_FEW_PAGES = 100


class Checkpointer:
    """The passive checkpoints of one SQLite file, on a thread started lazily.

    ``committed(conn)`` is called with the writer's connection after each write
    ``COMMIT``, under the store's lock and outside any transaction; ``close()``
    stops the thread and closes its connection.
    """

    __slots__ = (
        "_closed",
        "_commits",
        "_held",
        "_mutex",
        "_path",
        "_rewind",
        "_thread",
        "_wake",
        "checkpoints",
        "rewinds",
        "syncs",
    )

    def __init__(self, path: str) -> None:
        # Absolute, and opened read-write without creating: the thread starts
        # later, perhaps after the process changed its directory or the file
        # went away, and must never open (or make) another file than the store's.
        self._path = os.path.abspath(path)
        self._commits = 0
        self._wake = threading.Event()
        self._mutex = threading.Lock()  # one checkpoint at a time, the thread's or the writer's
        self._rewind = False
        self._closed = False
        self._thread: threading.Thread | None = None
        self.checkpoints = 0
        """Passive checkpoints run by the thread so far (for tests and benchmarks)."""
        self.rewinds = 0
        """Checkpoints the writer finished for the thread, so far."""
        self.syncs = 0
        """Syncs of the file by the thread ahead of the rewinds, so far."""
        self._held: int | None = None  # the descriptor number the last sync went through

    def committed(self, conn: sqlite3.Connection) -> None:
        if self._rewind and self._mutex.acquire(blocking=False):
            # The few pages committed since the thread's last checkpoint; never
            # waiting for one of the thread's (it skips them while this is due).
            try:
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            except sqlite3.Error:
                pass  # the call committed; the writer's automatic checkpoint bounds the WAL
            finally:
                self._rewind = False
                self._mutex.release()
            self.rewinds += 1
        self._commits += 1
        if self._commits < WAKE_COMMITS:
            return
        self._commits = 0
        thread = self._thread
        if thread is None or not thread.is_alive():  # first use, or after a fork
            if self._closed:
                return
            thread = threading.Thread(target=self._run, name="graphmem-checkpoint", daemon=True)
            try:
                thread.start()
            except RuntimeError:
                return  # no thread to be had: the writer's own checkpoint bounds the WAL
            self._thread = thread
        self._wake.set()

    def _checkpoint(self, conn: sqlite3.Connection) -> tuple[int, int]:
        """One passive checkpoint: the WAL's pages, and how many are copied."""
        with self._mutex:
            _, wal, copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        self.checkpoints += 1
        return int(wal), int(copied)

    def _run(self) -> None:
        try:
            uri = f"{Path(self._path).as_uri()}?mode=rw"
            conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        except sqlite3.Error:
            return  # the writer's own automatic checkpoint bounds the WAL
        try:
            while True:
                self._wake.wait()
                self._wake.clear()
                if self._closed:
                    return
                if self._rewind:
                    continue  # the writer copies the rest first, and starts the WAL over
                try:
                    wal, copied = self._checkpoint(conn)
                    rounds = 0
                    while wal >= REWIND_PAGES and wal - copied > _FEW_PAGES:
                        if rounds == _CATCH_UP_ROUNDS:
                            break
                        wal, copied = self._checkpoint(conn)
                        rounds += 1
                except sqlite3.Error:
                    continue  # e.g. the file is being replaced; the writer's bound stays
                if wal >= REWIND_PAGES:
                    self._flush(conn)
                self._rewind = wal >= REWIND_PAGES
        finally:
            conn.close()

    def _flush(self, conn: sqlite3.Connection) -> None:
        """Sync the file ahead of a rewind: :data:`SYNC_ROUNDS` syncs, each after a
        checkpoint of what was committed during the one before (a sync of
        thousands of pages takes milliseconds, during which the writer commits
        more), so that the writer's own checkpoint finds few pages to copy and to
        sync. Nothing is done where no held descriptor is found."""
        for done in range(SYNC_ROUNDS):
            if done:
                try:
                    self._checkpoint(conn)
                except sqlite3.Error:
                    return
            self._held = sync_through_held_descriptor(self._path, self._held)
            if self._held is None:
                return
            self.syncs += 1

    def close(self) -> None:
        """Stop the thread, after its checkpoint in progress if any."""
        self._closed = True
        thread = self._thread
        if thread is not None:
            self._wake.set()
            thread.join()


def shut(checkpointer: Checkpointer, conn: sqlite3.Connection, lock: threading.RLock) -> None:
    """Close a store's file in order: the thread (and its connection), then the
    store's connection, which, when it is the file's last, copies the WAL back
    (``SqliteStore.close``, or its finalizer for a store never closed).

    The connection closes under the store's lock: the finalizer runs at exit while
    daemon threads may still use the store, and closing a connection inside another
    thread's statement can crash the process. A thread that holds the lock past
    :data:`SHUT_WAIT` seconds keeps the connection open (SQLite recovers the WAL at
    the next open)."""
    checkpointer.close()
    if not lock.acquire(timeout=SHUT_WAIT):
        return
    try:
        conn.close()
    finally:
        lock.release()


_FDS = "/proc/self/fd"


def sync_through_held_descriptor(path: str, hint: int | None = None) -> int | None:
    """Flush the file at ``path`` to disk (``os.fdatasync``) through a descriptor
    this process already has open on it, and return that descriptor's number;
    None, and nothing done, when there is none or no ``/proc/self/fd`` to find it.

    ``hint`` (the number a previous call returned) is tried first. Nothing is
    opened or closed. Another thread may close the descriptor between the check
    and the sync, and the number may then name another file: syncing that one
    does no harm, and an error is taken as no sync.
    """
    target = os.path.realpath(path)
    if hint is not None and _names(hint, target):
        return hint if _sync(hint) else None
    try:
        numbers = os.listdir(_FDS)
    except OSError:
        return None
    for name in numbers:
        if name.isdigit() and _names(int(name), target):
            return int(name) if _sync(int(name)) else None
    return None


def _names(fd: int, target: str) -> bool:
    try:
        return os.readlink(f"{_FDS}/{fd}") == target
    except OSError:
        return False


def _sync(fd: int) -> bool:
    try:
        os.fdatasync(fd)
    except (OSError, AttributeError):  # closed meanwhile; no fdatasync (macOS has none)
        return False
    return True

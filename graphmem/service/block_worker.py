"""Who processes a memory block: claims with a lease, their renewal, and the worker.

A block is processed by one holder at a time. Taking it (a pending block, by a
conditional update, or a new or changed block written already taken by the
server that received a synchronous call) names the holder (``host:pid:token``,
one per service) and a lease of ``LEASE_SECONDS``, which a thread renews every
third of it while the holder still works on the block. Several servers can
share one store: each one's worker makes pending again, every ``RECOVER_EVERY``
seconds and when it starts, only the blocks whose holder's process is gone (same
host) or whose lease ran out, and then queues the pending blocks it finds. A
server that stops hands the blocks it still holds back. The outcome of a holder
that lost its block is not written (the claim's ``updated_at`` fences it out).

A session's blocks are processed one at a time, in the order they were accepted
(``created_at``, then ``block_id``), so their messages take positions in that
order: a pending block is claimed only when no earlier block of its session is
pending or processing, and a block taken by a synchronous call first processes
the earlier pending blocks of its session itself and waits for those another
holder processes (one whose holder is gone is taken over by recovery, as above).
When a block ends here, the next pending block of its session is queued.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from graphmem.core.validation import utc_now
from graphmem.errors import GraphMemError
from graphmem.owners import LeaseKeeper, new_owner, owner_gone, retire_owner

if TYPE_CHECKING:
    from graphmem.stores.base import Store
    from graphmem.stores.service_base import StoredBlock

__all__ = ["LEASE_SECONDS", "RECOVER_EVERY", "BlockWorker"]

LEASE_SECONDS = 900.0
"""How long a block stays with its holder unless the holder renews the lease."""
RECOVER_EVERY = 5.0
"""Seconds between two looks of a running worker for blocks to take over or queue."""
TURN_POLL = 0.2
"""Seconds between two looks of a synchronous call at the earlier blocks of its
session that another holder is processing."""
_RECOVER_BATCH = 1000
_TURN_BATCH = 100


class BlockWorker:
    """The lease and worker half of :class:`~graphmem.service.blocks.BlockService`."""

    _store: Store

    def _init_worker(self) -> None:
        self.owner = new_owner()
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._queued: set[str] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._worker: threading.Thread | None = None
        self._leases = LeaseKeeper(
            "graphmem-block-lease", self._renew_blocks, lambda: LEASE_SECONDS / 3
        )
        self._recovered_at = 0.0

    if TYPE_CHECKING:

        def process(self, block_id: str) -> StoredBlock: ...

        def _process_held(self, block: StoredBlock) -> StoredBlock: ...

    # claims and leases ---------------------------------------------------------------

    def _lease(self, now: datetime) -> datetime:
        return now + timedelta(seconds=LEASE_SECONDS)

    def _claim(self, block_id: str) -> StoredBlock | None:
        """Take a pending block (another holder's claim wins); None when not pending."""
        now = utc_now()
        with self._store.transaction():
            if not self._store.claim_block(block_id, self.owner, now, self._lease(now)):
                return None
            block = self._store.get_block(block_id)
        if block is not None:
            self._leases.hold(block_id)  # renewed while it is processed here
        return block

    def _await_turn(self, block: StoredBlock) -> None:
        """Before a block held here by a synchronous call is processed: process the
        earlier pending blocks of its session here, oldest first, and wait for those
        that another holder processes (recovery takes over the blocks of a holder
        that is gone), so that the block's messages come after theirs."""
        before = (block.created_at, block.block_id)
        while True:
            with self._store.transaction(write=False):
                earlier = self._store.unfinished_blocks(block.thread_id, before, _TURN_BATCH)
            if not earlier:
                return
            pending = [block_id for block_id, status in earlier if status == "pending"]
            claimed = self._claim(pending[0]) if pending else None
            if claimed is not None:
                self._process_held(claimed)
            else:  # held elsewhere: look again, and take over the blocks of gone holders
                time.sleep(TURN_POLL)
                self.recover()

    def _queue_next(self, thread_id: str) -> None:
        """Queue the session's earliest unfinished block when it is pending (the
        worker found it not claimable while an earlier one was processed)."""
        if self._worker is None:
            return
        with self._store.transaction(write=False):
            earliest = self._store.unfinished_blocks(thread_id, None, 1)
        if earliest and earliest[0][1] == "pending":
            self._enqueue(earliest[0][0])

    def renew_leases(self) -> int:
        """Extend the lease of every block processed here now; how many."""
        return self._leases.renew()

    def _renew_blocks(self, block_ids: list[str]) -> int:
        until = self._lease(utc_now())
        with self._store.transaction():
            return sum(self._store.renew_block_lease(b, self.owner, until) for b in block_ids)

    def recover(self, force: bool = False) -> int:
        """Make pending again the blocks of gone holders and of expired leases, and queue
        the pending blocks (at most ``_RECOVER_BATCH``) not queued here yet. Returns
        how many blocks were taken from their holders."""
        now_mono = time.monotonic()
        if not force and now_mono - self._recovered_at < RECOVER_EVERY:
            return 0
        self._recovered_at = now_mono
        store, now = self._store, utc_now()
        with store.transaction():
            released = sum(
                store.release_blocks(owner, now)
                for owner in store.processing_block_owners()
                if owner_gone(owner)
            )
            released += store.release_blocks(None, now)
            pending = store.pending_block_ids(_RECOVER_BATCH)
        if self._worker is not None:
            for block_id in pending:
                self._enqueue(block_id)
        return released

    # the background worker -------------------------------------------------------------

    def _enqueue(self, block_id: str) -> None:
        with self._lock:
            if block_id in self._queued:
                return
            self._queued.add(block_id)
            self._queue.put(block_id)  # the queue of the set it was added to

    def start(self) -> None:
        """Start the worker; it queues the blocks left unfinished (see the module doc).

        Each start has a queue and a stop signal of its own: a worker of an earlier
        start, still finishing a block, cannot take the new one's blocks or stop
        it, nor the other way round."""
        if self._worker is not None:
            return
        work: queue.Queue[str | None] = queue.Queue()
        stop = threading.Event()
        with self._lock:
            self._queue, self._queued, self._stop = work, set(), stop
        self._worker = threading.Thread(
            target=self._work, args=(work, stop), name="graphmem-blocks", daemon=True
        )
        self._worker.start()
        self.recover(force=True)

    def stop(self) -> None:
        """Stop the worker and hand back the blocks still held here; :meth:`start`
        may run it again, under a new owner name."""
        worker, self._worker = self._worker, None
        self._stop.set()
        if worker is not None:
            self._queue.put(None)
            worker.join(timeout=30)
        self._leases.stop(5.0)
        retire_owner(self.owner)
        try:
            with self._store.transaction():
                self._store.release_blocks(self.owner, utc_now())
        except GraphMemError:
            pass  # the store is gone: another server takes them over (owner gone)
        self.owner = new_owner()
        self._leases.restart()

    def _work(self, work: queue.Queue[str | None], stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                block_id = work.get(timeout=RECOVER_EVERY)
            except queue.Empty:
                block_id = ""
            if block_id is None:
                return
            if block_id:
                with self._lock:
                    if work is self._queue:
                        self._queued.discard(block_id)
                with contextlib.suppress(GraphMemError):  # the session went away meanwhile
                    self.process(block_id)
            with contextlib.suppress(GraphMemError):  # transient: the next look tries again
                self.recover()

    def wait_idle(self) -> None:
        """Block until the queue is drained (tests)."""
        while not self._queue.empty():
            threading.Event().wait(0.01)

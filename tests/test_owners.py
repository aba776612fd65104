"""Owner names of leased work: a holder is gone when its process is, including
when another process has since taken its pid (Linux: start times in /proc)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

from graphmem.owners import HOST, LeaseKeeper, _started, new_owner, owner_gone, retire_owner

needs_proc = pytest.mark.skipif(
    _started(os.getpid()) is None, reason="no /proc start times on this system"
)


@needs_proc
def test_an_owner_names_its_process_start_time() -> None:
    owner = new_owner()
    try:
        host, pid, token = owner.split(":")
        assert (host, int(pid)) == (HOST, os.getpid())
        assert token.split(".")[0] == _started(os.getpid())
        assert not owner_gone(owner)
    finally:
        retire_owner(owner)
    assert owner_gone(owner)


@needs_proc
def test_a_live_process_under_the_holders_pid_is_not_the_holder() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        started = _started(child.pid)
        assert started is not None
        assert not owner_gone(f"{HOST}:{child.pid}:{started}.abc")
        # the holder started at another time: the pid was taken after it stopped
        assert owner_gone(f"{HOST}:{child.pid}:{int(started) - 1}.abc")
        # an earlier process with this very pid
        assert owner_gone(f"{HOST}:{os.getpid()}:{int(_started(os.getpid()) or 0) - 1}.abc")
        # owners named without a start time: only whether the pid lives
        assert not owner_gone(f"{HOST}:{child.pid}:abc")
        assert not owner_gone(f"other-host:{child.pid}:1.abc")
    finally:
        child.kill()
        child.wait()
    assert owner_gone(f"{HOST}:{child.pid}:abc")


def test_a_renewal_thread_stuck_past_stop_ends_after_a_restart() -> None:
    """stop() waits a while for the renewing thread; one stuck in a renewal then
    outlives it. After restart() a new thread renews, and the stuck one ends as
    soon as its renewal returns, instead of renewing beside the new one."""
    entered, release = threading.Event(), threading.Event()
    renewers: list[str] = []

    def renew(ids: list[str]) -> int:
        name = threading.current_thread().name
        renewers.append(name)
        if not entered.is_set():
            entered.set()
            release.wait(10)
        return len(ids)

    keeper = LeaseKeeper("renewer", renew, lambda: 0.005)
    keeper.hold("a")
    assert entered.wait(10)
    (stuck,) = [t for t in threading.enumerate() if t.name == "renewer"]
    keeper.stop(timeout=0.05)
    assert stuck.is_alive()
    keeper.restart()
    keeper.hold("b")
    (fresh,) = [t for t in threading.enumerate() if t.name == "renewer" and t is not stuck]
    release.set()
    stuck.join(5)
    assert not stuck.is_alive()
    count = len(renewers)
    deadline = threading.Event()
    while len(renewers) < count + 3:
        deadline.wait(0.01)
    assert fresh.is_alive()
    keeper.stop(timeout=5)
    assert not fresh.is_alive()

"""The default embedder and `graphmem demo` work with no network at all.

Each check runs in a fresh interpreter whose audit hook refuses to create,
connect or resolve any socket (this catches every socket the Python socket
module opens, whatever library asks); the demo also runs in a network
namespace of its own where the kernel has no route anywhere (when the system
allows unprivileged namespaces), which also covers native code.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

NO_SOCKETS = """
import sys
def refuse(event, args):
    if event in ("socket.__new__", "socket.connect", "socket.getaddrinfo", "socket.bind"):
        raise RuntimeError("network use refused by test: " + event)
sys.addaudithook(refuse)
"""


def _run(code: str, *prefix: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*prefix, sys.executable, "-c", NO_SOCKETS + code],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_offline_hook_does_refuse_sockets() -> None:
    result = _run("import socket; socket.create_connection(('127.0.0.1', 9))")
    assert result.returncode != 0 and "network use refused by test" in result.stderr


def test_offline_default_embedder_opens_no_socket() -> None:
    code = """
from graphmem import Embedder, GraphMemory
vectors = Embedder().embed(["load and embed without a network"])
with GraphMemory(":memory:") as memory:
    memory.add_memory("The user is allergic to peanuts.", memory_id="nuts")
    memory.add_memory("Rent is due on the first.", memory_id="rent")
    print(vectors.shape, memory.search("Which food is dangerous for them?", max_results=1)[0].id)
"""
    result = _run(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["(1,", "256)", "nuts"]


def test_offline_demo_opens_no_socket() -> None:
    result = _run("from graphmem.cli import main; main(['demo'])")
    assert result.returncode == 0, result.stderr
    assert "pizza-neapolitan-sourdough" in result.stdout


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-rn", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _unshare_works(), reason="unshare -rn (network namespace) unavailable")
def test_offline_demo_in_empty_network_namespace() -> None:
    result = _run("from graphmem.cli import main; main(['demo'])", "unshare", "-rn")
    assert result.returncode == 0, result.stderr
    assert "pizza-neapolitan-sourdough" in result.stdout

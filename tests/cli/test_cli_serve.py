"""``graphmem serve`` binds before it announces; a refused address or JWT setting is
the CLI's own error (exit 1, or 2 for a value of the wrong form), before any store."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest

pytest.importorskip("uvicorn")


def _serve(script: Path, db: Path, *args: str) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    log = db.with_suffix(".log").open("wb")  # a file, so a chatty server never blocks
    process = subprocess.Popen(
        [str(script), "serve", "--db", str(db), *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    log.close()
    return process


def _announced(process: subprocess.Popen[bytes], db: Path) -> str:
    """The URL of the ``serving ... on URL`` line (a guard of 60 s, not a measure)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = re.search(r"serving .* on (http://\S+)", db.with_suffix(".log").read_text())
        if found:
            return found[1]
        assert process.poll() is None, db.with_suffix(".log").read_text()
        time.sleep(0.05)
    raise AssertionError("graphmem serve announced nothing within 60 s")


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=20)


def test_serve_on_port_0_announces_the_bound_port(script: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    process = _serve(script, db, "--port", "0")
    try:
        url = _announced(process, db)
        port = int(url.rsplit(":", 1)[1])
        assert url == f"http://127.0.0.1:{port}" and port != 0
        assert httpx.get(url + "/health", timeout=30).status_code == 200
    finally:
        _stop(process)


@pytest.mark.parametrize(("sent", "status"), [(signal.SIGTERM, 0), (signal.SIGINT, 130)])
def test_serve_closes_the_store_when_stopped_by_a_signal(
    script: Path, tmp_path: Path, sent: signal.Signals, status: int
) -> None:
    """SIGTERM (what service managers send) and SIGINT shut the server down and then
    close the store: the last connection's close folds the WAL back into the file."""
    db = tmp_path / "s.db"
    process = _serve(script, db, "--port", "0")
    try:
        url = _announced(process, db)
        assert httpx.get(url + "/health", timeout=30).status_code == 200
        assert Path(f"{db}-wal").exists()  # open, in WAL mode
        process.send_signal(sent)
        assert process.wait(timeout=60) == status, db.with_suffix(".log").read_text()
    finally:
        _stop(process)
    assert not Path(f"{db}-wal").exists()


def test_serve_on_a_port_in_use_is_a_user_error(graphmem, db: Path, user_error) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        run = graphmem("serve", "--port", str(port))
    user_error(run, f"cannot listen on 127.0.0.1:{port}:")
    assert "serving" not in run.err
    assert not db.exists()


def test_serve_on_an_address_not_of_this_host_is_a_user_error(graphmem, db: Path, user_error):
    # 192.0.2.0/24 is TEST-NET-1 (RFC 5737): no interface has it, nothing is sent.
    user_error(graphmem("serve", "--host", "192.0.2.1", "--port", "0"), "cannot listen on")
    assert not db.exists()


@pytest.mark.parametrize("algorithm", ["NOPE", "none"])
def test_serve_refuses_an_unknown_jwt_algorithm(graphmem, db: Path, algorithm: str) -> None:
    run = graphmem("serve", "--port", "0", "--jwt-key", "k" * 32, "--jwt-algorithm", algorithm)
    assert run.code == 2, run.err
    assert "--jwt-algorithm" in run.err and repr(algorithm) in run.err and "HS256" in run.err
    assert not db.exists()


@pytest.mark.parametrize(
    ("key", "algorithm"),
    [
        ("notapem", "RS256"),
        ("-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----\n", "HS256"),
    ],
)
def test_serve_refuses_a_jwt_key_that_cannot_verify_the_algorithm(
    graphmem, db: Path, user_error, key: str, algorithm: str
) -> None:
    pytest.importorskip("cryptography")
    run = graphmem("serve", "--port", "0", "--jwt-key", key, "--jwt-algorithm", algorithm)
    user_error(run, f"--jwt-key: not a key that verifies {algorithm} tokens")
    assert not db.exists()


def test_serve_refuses_a_private_jwt_key(graphmem, db: Path, user_error) -> None:
    """A private key loads, but verifies nothing: every token would get a 500."""
    pytest.importorskip("cryptography")
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    run = graphmem("serve", "--port", "0", "--jwt-key", pem, "--jwt-algorithm", "RS256")
    user_error(run, "--jwt-key: a private key cannot verify RS256 tokens; give the public key")
    assert not db.exists()


def test_serve_names_the_llm_flag_of_a_refused_value(graphmem, db: Path, user_error) -> None:
    run = graphmem("serve", "--port", "0", "--llm-model", "m", "--llm-api-base", "ftp://x")
    user_error(run, "--llm-api-base: ")
    assert not db.exists()


def test_serve_names_the_variable_of_a_refused_llm_setting(graphmem, db: Path, user_error) -> None:
    run = graphmem(
        "serve", "--port", "0", env={"GRAPHMEM_LLM_MODEL": "m", "GRAPHMEM_LLM_API_BASE": "ftp://x"}
    )
    user_error(run, "GRAPHMEM_LLM_API_BASE: ")
    run = graphmem("serve", "--port", "0", env={"GRAPHMEM_LLM_MODEL": "m"})
    user_error(run, "--llm-api-base (or GRAPHMEM_LLM_API_BASE): is required with an LLM model")
    assert not db.exists()


def test_serve_refuses_an_llm_base_or_key_without_a_model(graphmem, db: Path, user_error) -> None:
    """Without a model the server would start with no LLM, silently."""
    run = graphmem("serve", "--port", "0", "--llm-api-base", "http://127.0.0.1:9/v1")
    user_error(run, "--llm-model (or GRAPHMEM_LLM_MODEL): is required with an LLM API base")
    run = graphmem("serve", "--port", "0", env={"GRAPHMEM_LLM_API_KEY": "sk-test"})
    user_error(run, "--llm-model (or GRAPHMEM_LLM_MODEL): is required with an LLM API base")
    assert not db.exists()


def test_serve_closes_the_store_on_a_sigterm_right_after_it_announces(
    script: Path, tmp_path: Path
) -> None:
    """A supervisor that waits for the announcement and stops the server at once."""
    db = tmp_path / "s.db"
    process = _serve(script, db, "--port", "0")
    try:
        _announced(process, db)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0, db.with_suffix(".log").read_text()
    finally:
        _stop(process)
    assert not Path(f"{db}-wal").exists()

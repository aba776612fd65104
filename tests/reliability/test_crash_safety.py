"""SIGKILL a writer at random points; the file must stay whole and keep its promises.

A forked child writes through GraphMemory (bulk memories, bulk links, link type
changes, link deletes) and reports each operation before and after it commits
(see ``_crash_worker``). The parent kills it with SIGKILL after a random delay,
at least 20 times on the same file, and after every kill checks with plain SQL:
``PRAGMA integrity_check``, the validity invariant, every reported commit present,
every reported delete absent, refused batches absent, and the operation cut short
by the kill either complete or absent (all or nothing).
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ._checks import integrity, invariant_violations, links, memory_ids
from ._crash_worker import run

KILLS = 24
MAX_DELAY_S = 0.2


@dataclass
class Model:
    """What the reports promise about the file."""

    memories: set[str] = field(default_factory=set)
    links: dict[str, str] = field(default_factory=dict)
    deleted: set[str] = field(default_factory=set)
    refused: set[str] = field(default_factory=set)


@dataclass
class Round:
    killed: bool
    committed_ops: int
    cut_short: str
    problems: list[str]
    integrity: list[str]
    violations: list[tuple[str, str]]


def _pairs(parts: list[str]) -> dict[str, str]:
    return dict(p.split(":", 1) for p in parts)


def _apply(model: Model, lines: list[str]) -> tuple[int, list[str] | None, list[str]]:
    """Apply committed reports; returns (commits, the pending ``I`` line or None, problems)."""
    pending: list[str] | None = None
    commits, problems = 0, []
    for line in lines:
        state, *rest = line.split()
        if state in {"READY", "DONE"}:
            continue
        op, parts = rest[0], rest[1:]
        if state == "I":
            pending = [op, *parts]
            continue
        pending = None
        if state == "E":
            problems.append(f"worker reported {line}")
        elif state == "R" and op == "L":
            model.refused.update(_pairs(parts))
        elif state == "C":
            commits += 1
            if op == "M":
                model.memories.update(parts)
            elif op in {"L", "U"}:
                model.links.update(_pairs(parts))
            elif op == "D":
                model.links.pop(parts[0])
                model.deleted.add(parts[0])
    return commits, pending, problems


def _settle(model: Model, pending: list[str] | None, path: Path) -> list[str]:
    """Check the operation the kill cut short is all or nothing; adopt its outcome."""
    if pending is None:
        return []
    op, parts = pending[0], pending[1:]
    stored_links = links(path)
    if op == "M":
        present = set(parts) & memory_ids(path)
        if present and present != set(parts):
            return [f"bulk memories half written: {len(present)}/{len(parts)}"]
        model.memories.update(present)
    elif op == "L":
        new = _pairs(parts)
        present = {rid for rid in new if rid in stored_links}
        if present and present != set(new):
            return [f"bulk links half written: {len(present)}/{len(new)}"]
        if present:
            model.links.update(new)
        else:
            model.refused.update(new)
    elif op == "U":
        rid, kind = parts[0].split(":", 1)
        if stored_links[rid][2] not in {model.links[rid], kind}:
            return [f"link {rid} has type {stored_links[rid][2]}"]
        model.links[rid] = stored_links[rid][2]
    elif op == "D" and parts[0] not in stored_links:
        model.links.pop(parts[0])
        model.deleted.add(parts[0])
    return []


def _promises_kept(model: Model, path: Path) -> list[str]:
    problems = []
    missing = model.memories - memory_ids(path)
    if missing:
        problems.append(f"committed memories missing: {sorted(missing)[:5]}")
    stored = {rid: triple[2] for rid, triple in links(path).items()}
    wrong = {rid: stored.get(rid) for rid, kind in model.links.items() if stored.get(rid) != kind}
    if wrong:
        problems.append(f"committed links missing or retyped: {dict(list(wrong.items())[:5])}")
    back = (model.deleted | model.refused) & set(stored)
    if back:
        problems.append(f"deleted or refused links present: {sorted(back)[:5]}")
    return problems


def _one_round(path: Path, number: int, rng: random.Random, model: Model) -> Round:
    read_fd, write_fd = os.pipe()
    child = multiprocessing.get_context("fork").Process(
        target=run, args=(str(path), f"r{number}-", number, write_fd)
    )
    child.start()
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        first = pipe.readline()
        assert first == b"READY\n", first
        time.sleep(rng.uniform(0.0, MAX_DELAY_S))
        killed = child.is_alive()
        if child.pid is not None:
            os.kill(child.pid, signal.SIGKILL)
        child.join(30)
        lines = pipe.read().decode().splitlines()
    commits, pending, problems = _apply(model, lines)
    problems += _settle(model, pending, path)
    problems += _promises_kept(model, path)
    return Round(
        killed=killed,
        committed_ops=commits,
        cut_short=" ".join(pending[:1]) if pending else "",
        problems=problems,
        integrity=integrity(path),
        violations=invariant_violations(path),
    )


@pytest.fixture(scope="module")
def rounds(tmp_path_factory: pytest.TempPathFactory) -> list[Round]:
    path = tmp_path_factory.mktemp("crash") / "crash.db"
    rng = random.Random(20260101)
    model = Model()
    return [_one_round(path, number, rng, model) for number in range(KILLS)]


def test_crash_safety_worker_is_killed_mid_work(rounds: list[Round]) -> None:
    assert sum(r.killed for r in rounds) >= 20


def test_crash_safety_kills_land_inside_operations(rounds: list[Round]) -> None:
    assert sum(bool(r.cut_short) for r in rounds) >= len(rounds) // 2


def test_crash_safety_worker_commits_between_kills(rounds: list[Round]) -> None:
    assert sum(r.committed_ops for r in rounds) >= len(rounds)


def test_crash_safety_integrity_check_passes_after_every_kill(rounds: list[Round]) -> None:
    assert [r.integrity for r in rounds] == [["ok"]] * len(rounds)


def test_crash_safety_invariant_holds_after_every_kill(rounds: list[Round]) -> None:
    assert [r.violations for r in rounds] == [[]] * len(rounds)


def test_crash_safety_reported_writes_survive_every_kill(rounds: list[Round]) -> None:
    assert [r.problems for r in rounds] == [[]] * len(rounds)

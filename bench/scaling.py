"""Benchmark: does a call's cost grow with its work, or with the store?

Times public calls whose results are the same size on a small and a big store
(a scope of 5-10 records, a page of 10 rows, one small thread, user or agent)
and prints each call's best time on both and their ratio: a ratio near 1 means
the call reads what it returns, a ratio near the stores' size ratio means it
reads the whole store.

Each store is generated once (seeded; the four memory types in turn, 50 users,
20 agents, a quarter of the memories in one of 200 threads, a metadata entry on
each, two links per memory, one thread of 10 messages and one queued job per 50
memories, a user per 20 and an agent per 100), plus the small scopes the calls
ask for: user ``small`` (10 memories, agent ``small-agent``, thread
``t-small``), and five memories of agent ``rare-agent`` in thread ``t-rare``
with the metadata entry ``rare: yes``. It is cached as
``bench/data/scaling-n{N}-v{schema version}.db``; each run works on a copy, so
the deletes and the upgrade of an older cached store leave the cache as it was.
Vectors come from a seeded 32-dimension embedder, so the numbers are the store's.

Before and after a change of the store's statements or indexes, run this
script with each version of graphmem: a store cached by an older schema version
is used (a copy of it, upgraded when the newer graphmem opens it), so both runs
time the same rows::

    PYTHONPATH=/path/to/older/checkout python bench/scaling.py --sizes 2000,100000
    python bench/scaling.py --sizes 2000,100000

Run as a file (not ``-m``) for the older checkout, so that ``graphmem`` is
imported from ``PYTHONPATH`` and not from the current directory. Building the
100k store takes about two minutes on a busy 2-core machine.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import re
import shutil
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from graphmem import GraphMemory
from graphmem.stores.sqlite_schema import SCHEMA_VERSION

DATA_DIR = Path(__file__).resolve().parent / "data"
WORDS = (
    "apple",
    "banana",
    "cherry",
    "delta",
    "echo",
    "fox",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "nov",
    "oscar",
    "papa",
    "quebec",
    "romeo",
    "sierra",
    "tango",
)
TYPES = ("memory", "fact", "preference", "guideline")
USERS, AGENTS = 50, 20


class SeededEmbedder:
    """A unit vector per text, seeded by its CRC-32: cheap and the same in every run."""

    name = "scaling-bench-32"
    dimension = 32

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            v = np.random.default_rng(zlib.crc32(text.encode())).standard_normal(self.dimension)
            out[i] = v / np.linalg.norm(v)
        return out


class NoLlm:
    """Extraction is never run (no workers): add_messages only queues its job."""

    def chat(self, messages: Any, json_schema: Any = None, **kw: Any) -> str:
        raise RuntimeError("the benchmark calls no LLM")


def _open(path: Path) -> GraphMemory:
    return GraphMemory(path, embedder=SeededEmbedder(), llm=NoLlm(), extraction_workers=0)


def build(path: Path, n: int) -> None:
    """Write the store of ``n`` memories described in the module doc to ``path``."""
    rnd = random.Random(1)
    with _open(path) as m:
        batch: list[dict[str, Any]] = []
        for i in range(n):
            words = " ".join(rnd.choice(WORDS) for _ in range(8))
            batch.append(
                {
                    "memory_id": f"m{i}",
                    "content": f"memory {i} {words}",
                    "memory_type": TYPES[i % 4],
                    "user_id": f"u{i % USERS}",
                    "agent_id": f"a{i % AGENTS}",
                    "thread_id": f"mt{i % 200}" if i % 4 == 0 else None,
                    "metadata": {"k": i % 100, "tag": "x" if i % 2 else "y"},
                }
            )
            if len(batch) == 5000:
                m.add_memories(batch)
                batch = []
        if batch:
            m.add_memories(batch)
        m.add_memories(
            [
                {
                    "memory_id": f"s{i}",
                    "content": f"small user note {i} apple",
                    "user_id": "small",
                    "agent_id": "small-agent",
                    "thread_id": "t-small" if i < 5 else None,
                    "metadata": {"k": 7},
                }
                for i in range(10)
            ]
            + [
                {
                    "memory_id": f"rare{i}",
                    "content": f"rare apple thing {i}",
                    "agent_id": "rare-agent",
                    "thread_id": "t-rare",
                    "metadata": {"rare": "yes"},
                }
                for i in range(5)
            ]
        )
        links: list[dict[str, Any]] = []
        for i in range(60, n):
            j = i - 1 - (i * 37) % 50
            links.append(_link(f"m{i}", TYPES[i % 4], f"m{j}", TYPES[j % 4], "supports"))
            if i % 20 == 0:
                links.append(_link(f"m{i}", TYPES[i % 4], f"m{i - 55}", TYPES[(i - 55) % 4]))
            if len(links) >= 5000:
                m.add_record_links(links)
                links = []
        links += [_link(f"s{i}", "memory", f"s{i - 1}", "memory", "supports") for i in range(1, 10)]
        m.add_record_links(links)
        for k in range(max(n // 50, 20)):
            owner = {"user_id": f"u{k % USERS}", "agent_id": f"a{k % AGENTS}"}
            thread = m.create_thread(f"t{k}", enable_context_summary=False, **owner)
            thread.add_messages(
                [
                    {"role": "user" if j % 2 == 0 else "assistant", "content": f"msg {k} {j}"}
                    for j in range(10)
                ]
            )
        small = m.create_thread(
            "t-small", user_id="small", agent_id="small-agent", enable_context_summary=False
        )
        small.add_messages([{"role": "user", "content": f"small msg {j} apple"} for j in range(10)])
        for k in range(n // 20):
            m.add_user(f"u{k}" if k < USERS else f"pu{k}", "info")
        m.add_user("small", "small user")
        for k in range(n // 100):
            m.add_agent(f"a{k}" if k < AGENTS else f"pa{k}", "info")
        m.add_agent("small-agent", "x")


def _link(
    source: str, source_type: str, target: str, target_type: str, kind: str = "supersedes"
) -> dict[str, Any]:
    return {
        "source_record_id": source,
        "source_record_type": source_type,
        "target_record_id": target,
        "target_record_type": target_type,
        "relation_type": kind,
    }


def cached_store(n: int) -> Path:
    """The cached store of ``n`` memories: this schema version's, else the newest
    older one (opening a copy upgrades it), else a new one built now."""
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    found: dict[int, Path] = {}
    for path in DATA_DIR.glob(f"scaling-n{n}-v*.db"):
        match = re.fullmatch(rf"scaling-n{n}-v(\d+)\.db", path.name)
        if match and int(match.group(1)) <= int(SCHEMA_VERSION):
            found[int(match.group(1))] = path
    if found:
        return found[max(found)]
    path = DATA_DIR / f"scaling-n{n}-v{SCHEMA_VERSION}.db"
    started = time.perf_counter()
    print(f"building {path.name} ...", file=sys.stderr, flush=True)
    build(path, n)
    print(f"  built in {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    return path


Call = tuple[str, Callable[[], Any] | None, Callable[[Any], Any]]


def calls(m: GraphMemory) -> list[Call]:
    """(name, setup or None, call): each call's result has the same size on every store."""
    serial = itertools.count()

    def new_thread() -> str:
        thread_id = f"bench-t{next(serial)}"
        thread = m.create_thread(thread_id, user_id="small", enable_context_summary=False)
        thread.add_messages([{"role": "user", "content": f"x{j}"} for j in range(5)])
        return thread_id

    def new_owner() -> str:
        name = f"bench-u{next(serial)}"
        m.add_user(name)
        m.add_agent(name + "-ag")
        m.add_memories(
            [
                {"content": f"{name} note {i}", "user_id": name, "agent_id": name + "-ag"}
                for i in range(3)
            ]
        )
        thread = m.create_thread(
            name + "-th", user_id=name, agent_id=name + "-ag", enable_context_summary=False
        )
        thread.add_messages([{"role": "user", "content": "hi"}])
        return name

    rare = {"rare": "yes"}
    return [
        (
            "search keyword thread=t-rare",
            None,
            lambda _: m.search("apple", thread_id="t-rare", strategy="keyword"),
        ),
        (
            "search keyword agent=rare-agent",
            None,
            lambda _: m.search("apple", agent_id="rare-agent", strategy="keyword"),
        ),
        (
            "search keyword metadata rare",
            None,
            lambda _: m.search("apple", metadata_filter=rare, strategy="keyword"),
        ),
        (
            "search hybrid thread=t-rare",
            None,
            lambda _: m.search("apple", thread_id="t-rare", strategy="hybrid"),
        ),
        ("search vector metadata rare", None, lambda _: m.search("apple", metadata_filter=rare)),
        ("list_memories metadata rare", None, lambda _: m.list_memories(metadata_filter=rare)),
        ("list_memories limit10", None, lambda _: m.list_memories(limit=10)),
        (
            "list_memories limit10 offset1500",
            None,
            lambda _: m.list_memories(limit=10, offset=1500),
        ),
        ("list_memories user=small", None, lambda _: m.list_memories(user_id="small")),
        (
            "list_memories agent=small-agent",
            None,
            lambda _: m.list_memories(agent_id="small-agent"),
        ),
        ("list_memories thread=t-small", None, lambda _: m.list_memories(thread_id="t-small")),
        ("list_record_links limit10", None, lambda _: m.list_record_links(limit=10)),
        (
            "list_record_links limit10 offset1500",
            None,
            lambda _: m.list_record_links(limit=10, offset=1500),
        ),
        (
            "list_record_links supersedes limit10",
            None,
            lambda _: m.list_record_links(relation_type="supersedes", limit=10),
        ),
        ("delete_thread", new_thread, lambda thread_id: m.delete_thread(thread_id)),
        ("delete_user", new_owner, lambda name: m.delete_user(name)),
        ("delete_agent", new_owner, lambda name: m.delete_agent(name + "-ag")),
        ("list_threads limit10", None, lambda _: m.list_threads(limit=10)),
        ("list_threads user=small", None, lambda _: m.list_threads(user_id="small")),
        ("list_threads agent=small-agent", None, lambda _: m.list_threads(agent_id="small-agent")),
        (
            "count_threads agent=small-agent",
            None,
            lambda _: m.count_threads(agent_id="small-agent"),
        ),
        ("list_jobs thread=t-small", None, lambda _: m.list_jobs(thread_id="t-small")),
        ("list_jobs limit10", None, lambda _: m.list_jobs(limit=10)),
        ("list_users limit10 offset100", None, lambda _: m.list_users(limit=10, offset=100)),
        ("list_agents limit10", None, lambda _: m.list_agents(limit=10)),
    ]


def time_calls(path: Path, repeat: int) -> dict[str, float]:
    """Best time (ms) of each call over ``repeat`` runs on a copy of ``path``."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "store.db"
        shutil.copyfile(path, work)
        best: dict[str, float] = {}
        with _open(work) as m:
            m.search("warm up")  # loads the in-process copy of the embeddings
            for name, setup, call in calls(m):
                for _ in range(repeat):
                    arg = setup() if setup else None
                    started = time.perf_counter()
                    call(arg)
                    elapsed = (time.perf_counter() - started) * 1000
                    best[name] = min(best.get(name, elapsed), elapsed)
        return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="2000,100000", help="small,big memory counts")
    parser.add_argument("--repeat", type=int, default=5, help="runs per call (best kept)")
    parser.add_argument("--label", default=f"schema v{SCHEMA_VERSION}")
    parser.add_argument("--json", type=Path, help="also write the times here")
    args = parser.parse_args()
    small_n, big_n = (int(s) for s in args.sizes.split(","))
    small = time_calls(cached_store(small_n), args.repeat)
    big = time_calls(cached_store(big_n), args.repeat)
    print(f"# {args.label}: best of {args.repeat}, ms")
    print(f"{'call':40s} {small_n:>9d} {big_n:>9d} {'ratio':>7s}")
    for name in small:
        ratio = big[name] / small[name] if small[name] else float("nan")
        print(f"{name:40s} {small[name]:9.3f} {big[name]:9.3f} {ratio:7.1f}")
    if args.json:
        args.json.write_text(
            json.dumps({"label": args.label, "sizes": [small_n, big_n], "small": small, "big": big})
        )


if __name__ == "__main__":
    main()

"""Seeded synthetic graph stores for the benchmarks.

A store holds ``N`` memories of ~100 users and exactly ``M`` links:

* ``supersedes`` chains (newer -> older) inside a user's "topics", the way
  memories evolve, about ``--supersede-share`` of the links;
* ``supports`` / ``contradicts`` links whose endpoints are drawn with a
  power-law over a random ranking of each user's memories, so some memories
  are hubs; ``--cross-user`` of them join two users.

Links are unique per ``(source, target, type)``, never self links, and a type
never appears in both orientations between two memories. About 1% of the
memories expired before :data:`NOW` (search filters drop them), 1% expire
after it.

Rows go straight in with ``sqlite3.executemany`` in one transaction, the schema
having been created by :class:`graphmem.stores.sqlite.SqliteStore`. By default
the install script's triggers are dropped for the load, the derived ``status``
is set with one ``UPDATE``, and the triggers are recreated by re-running the
install script (``--keep-triggers`` loads through them instead, to time them).

Files are cached under ``bench/data/`` keyed by ``(N, M, seed)``::

    python -m bench.generate --memories 100000 --links 300000 --seed 7
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import numpy.typing as npt

from graphmem.core.validation import format_time
from graphmem.sqlfiles import load_script
from graphmem.stores.sqlite import SqliteStore

__all__ = ["DATA_DIR", "NOW", "PREFIX", "build_store", "store_path"]

DATA_DIR = Path(__file__).resolve().parent / "data"
PREFIX = "graphmem"
GENERATOR_VERSION = 2
START = datetime(2024, 1, 1, tzinfo=timezone.utc)
NOW = datetime(2030, 1, 1, tzinfo=timezone.utc)
"""The fixed ``now`` of the benchmark searches; generated times all precede it."""
EMBEDDING_DIM = 8
RECORD_TYPES = ("memory", "fact", "preference", "guideline")
LIFECYCLE = ("supersedes", "refines", "duplicates")

IntArray = npt.NDArray[np.int64]


def store_path(memories: int, links: int, seed: int) -> Path:
    """Where the store for ``(N, M, seed)`` is cached."""
    return DATA_DIR / f"graph-v{GENERATOR_VERSION}-n{memories}-m{links}-s{seed}.db"


def _times(seconds: IntArray) -> list[str]:
    """``format_time`` of ``START + seconds``, vectorised."""
    stamps = np.datetime64(START.replace(tzinfo=None), "us") + seconds.astype("timedelta64[s]")
    text = np.char.add(np.datetime_as_string(stamps, unit="us"), "+00:00")
    out: list[str] = text.tolist()
    assert out[0] == format_time(START + timedelta(seconds=int(seconds[0])))
    return out


def _uuids(rng: np.random.Generator, count: int) -> list[str]:
    raw = rng.bytes(16 * count)
    return [str(uuid.UUID(bytes=raw[i : i + 16], version=4)) for i in range(0, 16 * count, 16)]


def _power_rank(rng: np.random.Generator, sizes: IntArray, skew: float) -> IntArray:
    """A rank in ``0..size-1`` with density ~ rank ** (1/skew - 1): rank 0 is the hub."""
    u = rng.random(sizes.shape[0])
    return np.minimum((sizes * u**skew).astype(np.int64), sizes - 1)


def _chains(
    rng: np.random.Generator, user_of: IntArray, users: int, share: float
) -> tuple[IntArray, IntArray]:
    """``supersedes`` links newer -> older between consecutive memories of a topic."""
    n = user_of.shape[0]
    per_user = np.bincount(user_of, minlength=users)
    # about `share * n` links: fewer topics than memories, picked uniformly per user
    topics = np.maximum(1, np.round(per_user * (1.0 - share)).astype(np.int64))
    topic = (rng.random(n) * topics[user_of]).astype(np.int64)
    key = user_of * (int(topics.max()) + 1) + topic
    order = np.lexsort((np.arange(n), key))  # by topic, then creation order
    same = key[order[1:]] == key[order[:-1]]
    return order[1:][same], order[:-1][same]  # source newer, target older


def _random_links(
    rng: np.random.Generator,
    user_of: IntArray,
    users: int,
    count: int,
    skew: float,
    cross_user: float,
) -> tuple[IntArray, IntArray, IntArray]:
    """``count`` distinct supports (type 1) / contradicts (type 2) links."""
    n = user_of.shape[0]
    members = np.lexsort((rng.random(n), user_of))  # each user's memories, shuffled
    per_user = np.bincount(user_of, minlength=users)
    start = np.concatenate(([0], np.cumsum(per_user)[:-1]))
    global_rank = rng.permutation(n)
    sources: list[IntArray] = []
    targets: list[IntArray] = []
    types: list[IntArray] = []
    keys_seen = np.zeros(0, dtype=np.int64)
    have = 0
    while have < count:
        batch = int((count - have) * 1.15) + 1000
        user = user_of[rng.integers(0, n, batch)]  # users weighted by size
        size = per_user[user]
        a = members[start[user] + _power_rank(rng, size, skew)]
        b = members[start[user] + _power_rank(rng, size, skew)]
        cross = rng.random(batch) < cross_user
        k = int(cross.sum())
        full = np.full(k, n, dtype=np.int64)
        a[cross] = global_rank[_power_rank(rng, full, skew)]
        b[cross] = global_rank[_power_rank(rng, full, skew)]
        kind = np.where(rng.random(batch) < 0.7, 1, 2).astype(np.int64)
        ok = a != b
        a, b, kind = a[ok], b[ok], kind[ok]
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        key = (lo * n + hi) * 4 + kind  # one orientation per type and pair
        _, first = np.unique(key, return_index=True)
        first.sort()
        a, b, kind, key = a[first], b[first], kind[first], key[first]
        fresh = ~np.isin(key, keys_seen)
        a, b, kind, key = a[fresh][: count - have], b[fresh], kind[fresh], key[fresh]
        m = a.shape[0]
        b, kind, key = b[:m], kind[:m], key[:m]
        keys_seen = np.concatenate((keys_seen, key))
        sources.append(a)
        targets.append(b)
        types.append(kind)
        have += m
    return np.concatenate(sources), np.concatenate(targets), np.concatenate(types)


def build_store(
    path: Path,
    memories: int,
    links: int,
    seed: int,
    users: int = 100,
    skew: float = 2.0,
    cross_user: float = 0.01,
    supersede_share: float = 0.1,
    keep_triggers: bool = False,
    log: bool = True,
) -> dict[str, float]:
    """Write a fresh store to ``path``; return phase timings in seconds."""
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    rng = np.random.default_rng(seed)
    n = memories
    # users of mildly skewed sizes; memories created one per ~30 s, in order
    weights = 1.0 / np.arange(1, users + 1) ** 0.5
    user_of = rng.choice(users, size=n, p=weights / weights.sum()).astype(np.int64)
    mem_sec = np.cumsum(rng.integers(1, 60, n)).astype(np.int64)
    chain_src, chain_tgt = _chains(rng, user_of, users, supersede_share * links / n)
    chain_src, chain_tgt = chain_src[:links], chain_tgt[:links]
    r_src, r_tgt, r_kind = _random_links(
        rng, user_of, users, links - chain_src.shape[0], skew, cross_user
    )
    src = np.concatenate((chain_src, r_src))
    tgt = np.concatenate((chain_tgt, r_tgt))
    kind = np.concatenate((np.zeros(chain_src.shape[0], dtype=np.int64), r_kind))
    # a link is made after both endpoints, within a day; 1 s resolution so ties happen
    link_sec = np.maximum(mem_sec[src], mem_sec[tgt]) + rng.integers(0, 86_400, links)
    invalid = np.zeros(n, dtype=bool)
    invalid[chain_tgt] = True
    timings["plan_s"] = time.perf_counter() - t0

    t1 = time.perf_counter()
    ids = _uuids(rng, n)
    rel_ids = _uuids(rng, links)
    created = _times(mem_sec)
    link_created = _times(link_sec)
    expire_draw = rng.random(n)
    span = int((NOW - START).total_seconds())
    exp_sec = np.where(expire_draw < 0.01, mem_sec + 3600, span + 86_400 * 365)
    expires = _times(exp_sec.astype(np.int64))
    rtype = rng.integers(0, len(RECORD_TYPES), n)
    emb = rng.standard_normal((n, EMBEDDING_DIM)).astype(np.float32)
    # with the triggers kept, status starts 'valid' and the link triggers derive it;
    # without them it is written already derived (and checked below either way)
    status = ["valid"] * n if keep_triggers else np.where(invalid, "invalid", "valid").tolist()
    users_l = user_of.tolist()
    rtype_l = rtype.tolist()
    has_expiry = (expire_draw < 0.02).tolist()
    mem_rows = [
        (
            ids[i],
            RECORD_TYPES[rtype_l[i]],
            f"user {users_l[i]} memory {i}",
            status[i],
            f"u{users_l[i]:03d}",
            created[i],
            expires[i] if has_expiry[i] else None,
            emb[i].tobytes(),
        )
        for i in range(n)
    ]
    type_names = ("supersedes", "supports", "contradicts")
    opposite = ("is_superseded_by", "is_supported_by", "contradicts")
    src_l, tgt_l, kind_l = src.tolist(), tgt.tolist(), kind.tolist()
    link_rows = [
        (
            rel_ids[j],
            ids[src_l[j]],
            ids[tgt_l[j]],
            type_names[kind_l[j]],
            opposite[kind_l[j]],
            link_created[j],
        )
        for j in range(links)
    ]
    timings["rows_s"] = time.perf_counter() - t1

    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(tmp) + suffix).unlink(missing_ok=True)
    SqliteStore(tmp, PREFIX).close()  # the schema, exactly as the library creates it

    t2 = time.perf_counter()
    conn = sqlite3.connect(tmp, isolation_level=None)
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("PRAGMA cache_size = -4000000")
    conn.execute("PRAGMA foreign_keys = OFF")
    triggers = [
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name LIKE ?",
            (f"{PREFIX}_%",),
        )
    ]
    conn.execute("BEGIN")
    if not keep_triggers:
        for name in triggers:
            conn.execute(f'DROP TRIGGER "{name}"')
    conn.execute(
        f"INSERT OR REPLACE INTO {PREFIX}_meta (meta_key, meta_value) VALUES ('embedding_dim', ?)",
        (str(EMBEDDING_DIM),),
    )
    conn.executemany(
        f"INSERT INTO {PREFIX}_memory (record_id, record_type, content, status, user_id, "
        "created_at, expires_at, embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        mem_rows,
    )
    timings["insert_memories_s"] = time.perf_counter() - t2
    t3 = time.perf_counter()
    conn.executemany(
        f"INSERT INTO {PREFIX}_link (relation_id, source_id, target_id, relation_type, "
        "opposite_relation_type, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        link_rows,
    )
    timings["insert_links_s"] = time.perf_counter() - t3
    t4 = time.perf_counter()
    conn.execute("COMMIT")
    if not keep_triggers:  # idempotent: recreates only the dropped triggers
        conn.executescript(load_script("sqlite", "install", PREFIX))
    timings["triggers_s"] = time.perf_counter() - t4
    # the derived status must agree with the links, whichever way it was loaded
    lifecycle = ", ".join(f"'{t}'" for t in LIFECYCLE)
    (bad,) = conn.execute(
        f"SELECT count(*) FROM {PREFIX}_memory m WHERE m.status <> CASE WHEN EXISTS ("
        f"SELECT 1 FROM {PREFIX}_link l WHERE l.target_id = m.record_id "
        f"AND l.relation_type IN ({lifecycle})) THEN 'invalid' ELSE 'valid' END"
    ).fetchone()
    if bad:
        raise RuntimeError(f"{bad} memories have a status that contradicts their links")
    t5 = time.perf_counter()
    conn.execute("ANALYZE")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.close()
    timings["analyze_s"] = time.perf_counter() - t5
    tmp.rename(path)
    timings["total_s"] = time.perf_counter() - t0
    if log:
        print(
            f"generated {path.name}: {n} memories, {links} links "
            f"({chain_src.shape[0]} supersedes) in {timings['total_s']:.1f} s "
            + " ".join(f"{k}={v:.1f}" for k, v in timings.items()),
            file=sys.stderr,
        )
    return timings


def _schema(conn: sqlite3.Connection) -> set[tuple[str, str]]:
    return set(conn.execute("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"))


def schema_is_current(path: Path) -> bool:
    """Whether the file holds every object that today's install script creates."""
    fresh = sqlite3.connect(":memory:")
    fresh.executescript(load_script("sqlite", "install", PREFIX))
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return _schema(fresh) <= _schema(conn)
    finally:
        conn.close()
        fresh.close()


def ensure_store(memories: int, links: int, seed: int, **options: object) -> Path:
    """The cached store for ``(N, M, seed)``, generated when missing or outdated.

    A file made by an older schema is upgraded by opening it, as graphmem does for
    its users; only one that the upgrade cannot bring up to date is generated again.
    """
    path = store_path(memories, links, seed)
    if path.exists() and not schema_is_current(path):
        t = time.perf_counter()
        SqliteStore(path, PREFIX).close()
        print(f"upgraded {path.name} in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    if not path.exists() or not schema_is_current(path):
        build_store(path, memories, links, seed, **options)  # type: ignore[arg-type]
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", "-n", type=int, default=100_000)
    parser.add_argument("--links", "-m", type=int, default=300_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--users", type=int, default=100)
    parser.add_argument("--skew", type=float, default=2.0, help="endpoint power-law exponent")
    parser.add_argument("--cross-user", type=float, default=0.01)
    parser.add_argument("--supersede-share", type=float, default=0.1)
    parser.add_argument("--keep-triggers", action="store_true", help="load through the triggers")
    parser.add_argument("--out", type=Path, help="write here instead of the cache")
    parser.add_argument("--force", action="store_true", help="regenerate a cached file")
    args = parser.parse_args(argv)
    path = args.out or store_path(args.memories, args.links, args.seed)
    if path.exists() and not args.force and schema_is_current(path):
        print(f"{path} exists (use --force to regenerate)", file=sys.stderr)
        return 0
    build_store(
        path,
        args.memories,
        args.links,
        args.seed,
        users=args.users,
        skew=args.skew,
        cross_user=args.cross_user,
        supersede_share=args.supersede_share,
        keep_triggers=args.keep_triggers,
    )
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

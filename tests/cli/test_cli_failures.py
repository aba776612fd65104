"""What a failing command leaves behind, through the installed script: an export
keeps the earlier file, a refused command leaves no new store file, a key that
could not be shown is not live, closed standard streams are one-line errors."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from graphmem import GraphMemory


def _store_files(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name))


def test_export_failure_keeps_the_earlier_file(graphmem, pizza_db: Path, tmp_path: Path):
    backup = tmp_path / "backup.jsonl"
    backup.write_text("earlier backup\n")
    run = graphmem("export", "--root", "typo", "-o", str(backup))
    assert run.code == 1 and "typo" in run.err, run.err
    assert backup.read_text() == "earlier backup\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["backup.jsonl", "m.db"]


def test_export_replaces_the_file_once_whole_keeping_its_mode(
    graphmem, pizza_db: Path, tmp_path: Path
) -> None:
    backup = tmp_path / "backup.jsonl"
    backup.write_text("earlier backup\n")
    backup.chmod(0o640)
    assert graphmem("export", "-o", str(backup)).code == 0
    kinds = [json.loads(line)["kind"] for line in backup.read_text().splitlines()]
    assert kinds == ["memory"] * 3 + ["link"] * 2
    assert stat.S_IMODE(backup.stat().st_mode) == 0o640
    link = tmp_path / "latest.jsonl"
    link.symlink_to(backup)
    assert graphmem("export", "--format", "graphml", "-o", str(link)).code == 0
    assert link.is_symlink() and backup.read_text().startswith("<?xml")


@pytest.mark.parametrize("name", ["m.db", "same.db"])
def test_export_to_the_store_file_is_a_usage_error(
    graphmem, pizza_db: Path, tmp_path: Path, name: str
) -> None:
    if name != pizza_db.name:
        (tmp_path / name).symlink_to(pizza_db)
    before = pizza_db.read_bytes()
    run = graphmem("export", "-o", str(tmp_path / name))
    assert run.code == 2, run.err
    assert "the store's file" in run.err and "Traceback" not in run.err
    assert pizza_db.read_bytes() == before
    assert graphmem("get", "thin").code == 0


@pytest.mark.parametrize("suffix", ["-wal", "-shm"])
def test_export_to_a_file_sqlite_keeps_beside_the_store_is_a_usage_error(
    graphmem, pizza_db: Path, suffix: str
) -> None:
    """Those files exist only while the store is open: refused by name."""
    run = graphmem("export", "-o", f"{pizza_db}{suffix}")
    assert run.code == 2, run.err
    assert f"the store's {suffix} file" in run.err
    assert graphmem("get", "thin").code == 0


def test_a_path_with_at_and_slash_is_a_file_not_an_oracle_dsn(graphmem, tmp_path: Path) -> None:
    folder = tmp_path / "bk@2024"
    folder.mkdir()
    db = str(folder / "mem.db")
    assert graphmem("add", "--db", db, "--id", "a", "hello").code == 0
    before = Path(db).read_bytes()
    run = graphmem("export", "--db", db, "-o", db)
    assert run.code == 2, run.err
    assert "the store's file" in run.err
    assert Path(db).read_bytes() == before
    run = graphmem("list", "--db", str(folder / "nope.db"))
    assert run.code == 1 and "no store at" in run.err


def test_a_refused_command_keeps_a_store_it_did_not_create(graphmem, pizza_db: Path) -> None:
    assert graphmem("add", "--ttl-days", "-1", "Some text.").code == 1
    with GraphMemory(pizza_db) as memory:
        assert len(memory.list_memories()) == 3


@pytest.mark.parametrize(
    ("args", "where"),
    [
        (("add", "-"), "CONTENT -"),
        (("update", "thin", "--content", "-"), "--content -"),
        (("import", "-"), "SOURCE -"),
    ],
)
def test_closed_standard_input_is_a_user_error(
    graphmem, pizza_db: Path, user_error, args: tuple[str, ...], where: str
) -> None:
    user_error(graphmem(*args, closed=("stdin",)), f"{where}: standard input is closed")


def test_keys_create_with_closed_standard_output_makes_no_key(graphmem, db: Path, user_error):
    user_error(
        graphmem("keys", "create", "--role", "admin", closed=("stdout",)),
        "standard output is closed",
    )
    assert _store_files(db) == []


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_keys_create_whose_key_cannot_be_written_revokes_it(graphmem, script: Path, db: Path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [str(script), "keys", "create", "--db", str(db), "--role", "admin"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            timeout=120,
        )
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("graphmem: error: could not write the new key")
    listed = graphmem("keys", "list", "--json").json()
    assert len(listed) == 1 and listed[0]["revoked_at"] is not None


def test_keys_list_shows_a_label_on_its_own_line(graphmem) -> None:
    label = "ci\nfake0000  admin  live     root"
    assert graphmem("keys", "create", "--role", "read", "--label", label).code == 0
    run = graphmem("keys", "list")
    assert run.code == 0
    assert len(run.out.splitlines()) == 1 and "fake0000" in run.out
    assert graphmem("keys", "list", "--json").json()[0]["label"] == label


@pytest.mark.parametrize(
    "args",
    [
        ("link", "nope", "supports", "thin", "--metadata", "{bad"),
        ("update", "nope", "--metadata", "{bad"),
        ("update", "nope", "--metadata", "[1]"),
    ],
)
def test_metadata_form_is_checked_before_the_store_is_opened(
    graphmem, tmp_path: Path, args: tuple[str, ...]
) -> None:
    run = graphmem(*args, "--db", str(tmp_path / "missing.db"))
    assert run.code == 2, run.err
    assert "--metadata" in run.err and "nope" not in run.err and "missing" not in run.err


@pytest.mark.parametrize(
    ("option", "value"), [("--limit", "2147483648"), ("--offset", "3000000000")]
)
def test_list_bounds_are_checked_by_the_parser(graphmem, pizza_db: Path, option: str, value):
    run = graphmem("list", option, value)
    assert run.code == 2, run.err
    assert option in run.err and value in run.err


def test_list_pages_at_the_largest_limit_and_offset(graphmem, pizza_db: Path) -> None:
    run = graphmem("list", "--limit", "2147483647", "--json")
    assert run.code == 0, run.err
    assert [item["id"] for item in run.json()["items"]] == ["thin", "sour", "neap"]
    run = graphmem("list", "--offset", "2147483647", "--json")
    assert (run.code, run.json()["items"]) == (0, [])
    run = graphmem("list", "--offset", "1", "--limit", "1", "--json")
    assert [item["id"] for item in run.json()["items"]] == ["sour"]
    assert run.json()["next_offset"] == 2


def _read_only_run(script: Path, data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``graphmem ARGS`` with ``{dir}`` in ARGS naming ``data`` made read-only: by
    chmod for a user, by a read-only bind mount in a private mount namespace for root
    (whom permission bits do not stop); the test is skipped when neither can be had."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    if os.geteuid() != 0:
        data.chmod(0o555)
        try:
            argv = [a.format(dir=data) for a in args]
            return subprocess.run(
                [str(script), *argv], capture_output=True, text=True, env=env, timeout=120
            )
        finally:
            data.chmod(0o755)
    mount = data.parent / "read-only"
    mount.mkdir()
    shell = 'mount --bind -o ro "$1" "$2" || exit 99; shift 2; exec "$@"'
    argv = [a.format(dir=mount) for a in args]
    unshare = ["unshare", "--mount", "sh", "-c", shell, "sh", str(data), str(mount)]
    try:
        done = subprocess.run(
            [*unshare, str(script), *argv], capture_output=True, text=True, env=env, timeout=120
        )
    except FileNotFoundError:
        pytest.skip("root ignores chmod, and unshare(1) is missing for a read-only mount")
    if done.returncode == 99 or (done.returncode and "unshare" in done.stderr):
        pytest.skip(f"root ignores chmod, and no read-only mount could be made: {done.stderr}")
    return done


@pytest.mark.parametrize("args", [("get", "a"), ("export",)])
def test_a_wal_store_in_a_read_only_directory_says_why(
    script: Path, tmp_path: Path, args: tuple[str, ...]
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    with GraphMemory(data / "s.db") as memory:
        memory.add_memory("alpha", memory_id="a")
    assert _store_files(data / "s.db") == ["s.db"]
    done = _read_only_run(script, data, args[0], "--db", "{dir}/s.db", *args[1:])
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("graphmem: error: --db: cannot open")
    assert "a WAL store needs its -wal and -shm files beside it" in done.stderr
    assert "is not writable" in done.stderr and done.stderr.count("\n") == 1


def test_export_to_closed_standard_output_is_a_user_error(
    graphmem, pizza_db: Path, user_error
) -> None:
    user_error(graphmem("export", closed=("stdout",)), "standard output is closed")


def test_a_store_of_an_older_schema_version_is_read_after_its_upgrade(
    graphmem, pizza_db: Path
) -> None:
    """A read verb opens a store the file holds at an older version as the library
    does by default: upgraded on open (version 11 lacks version 12's indexes)."""
    with GraphMemory(pizza_db) as memory:
        conn = memory._store._conn  # type: ignore[attr-defined]
        conn.execute("DROP INDEX graphmem_link_created_ix")
        conn.execute("UPDATE graphmem_meta SET meta_value = '11' WHERE meta_key = 'schema_version'")
        conn.commit()
    run = graphmem("list", "--json")
    assert run.code == 0, run.err
    assert sorted(r["id"] for r in json.loads(run.out)["items"]) == ["neap", "sour", "thin"]
    with GraphMemory(pizza_db) as memory:
        version = memory._store._conn.execute(  # type: ignore[attr-defined]
            "SELECT meta_value FROM graphmem_meta WHERE meta_key = 'schema_version'"
        ).fetchone()
    assert version == ("12",)


def test_a_read_verb_creates_no_store_in_a_file_of_other_stores(graphmem, pizza_db: Path) -> None:
    run = graphmem("list", "--store", "other")
    assert run.code == 1 and "--store" in run.err, run.err
    with GraphMemory(pizza_db) as memory:
        tables = memory._store._conn.execute(  # type: ignore[attr-defined]
            "SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'other%'"
        ).fetchone()
    assert tables == (0,)


@pytest.mark.parametrize("verb", [("list",), ("add", "Some text."), ("stats",), ("keys", "list")])
def test_db_naming_a_directory_says_so(graphmem, tmp_path: Path, user_error, verb) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    run = graphmem(*verb, "--db", str(folder))
    user_error(run, f"--db: {str(folder)!r} is a directory, not a database file")
    assert "missing" not in run.err and list(folder.iterdir()) == []

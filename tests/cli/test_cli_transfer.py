"""export and import through the installed script: formats, bad lines, resume, SIGINT."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from graphmem import GraphMemory


def _content(
    db: Path, timestamps: bool = True
) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """Everything an import carries over (creation times are the importing store's)."""
    with GraphMemory(db) as memory:
        records = sorted(
            (r.id, r.record_type, r.content, r.status, r.user_id, r.metadata == {})
            + ((r.timestamp,) if timestamps else ())
            for r in memory.list_memories(limit=10**6)
        )
        links = sorted(
            (link.id, link.source_record_id, link.target_record_id, link.relation_type)
            for link in memory.list_record_links()
        )
    return records, links


def _write_jsonl(path: Path, memories: int, links: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        for i in range(memories):
            line = {"kind": "memory", "memory_id": f"m{i}", "content": f"memory {i}"}
            out.write(json.dumps(line) + "\n")
        for j in range(links):
            line = {
                "kind": "link",
                "relation_id": f"l{j}",
                "source_record_id": f"m{j}",
                "source_record_type": "memory",
                "target_record_id": f"m{(j + 1) % memories}",
                "target_record_type": "memory",
                "relation_type": "supersedes" if j % 3 == 0 else "supports",
            }
            out.write(json.dumps(line) + "\n")


def test_export_jsonl_then_import_reproduces_the_store(graphmem, pizza_db: Path, tmp_path):
    dump = tmp_path / "dump.jsonl"
    assert graphmem("export", "-o", str(dump)).code == 0
    kinds = [json.loads(line)["kind"] for line in dump.read_text().splitlines()]
    assert kinds == ["memory"] * 3 + ["link"] * 2
    copy = tmp_path / "copy.db"
    run = graphmem("import", str(dump), "--db", str(copy), "--json")
    assert run.code == 0
    assert run.json()["memories"] == 3 and run.json()["links"] == 2
    assert _content(copy) == _content(pizza_db)


def test_export_to_a_reader_that_stops_early_exits_0_quietly(db: Path) -> None:
    """`graphmem export | head -1`: the reader leaving is not a failure (a shell
    with pipefail would otherwise see the export fail)."""
    with GraphMemory(db) as memory:
        memory.add_memories([{"content": f"memory {i} " + "x" * 200} for i in range(2000)])
    script = Path(sys.executable).parent / "graphmem"
    env = {**os.environ, "GRAPHMEM_DB": str(db)}
    proc = subprocess.Popen(
        [str(script), "export"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert json.loads(proc.stdout.readline())["kind"] == "memory"
    proc.stdout.close()  # more than a pipe's buffer is still to come
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0
    assert err == b""


def test_export_graphml_is_xml_with_every_node_and_edge(graphmem, pizza_db: Path) -> None:
    root = ET.fromstring(graphmem("export", "--format", "graphml").out)
    ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
    assert sorted(n.get("id") for n in root.iterfind(".//g:node", ns)) == ["neap", "sour", "thin"]
    edges = {(e.get("source"), e.get("target")) for e in root.iterfind(".//g:edge", ns)}
    assert edges == {("sour", "thin"), ("neap", "sour")}


def test_export_of_expired_memories_graphml_hides_them_jsonl_keeps_linked_ones(
    graphmem, db: Path, tmp_path
) -> None:
    past = datetime.now(timezone.utc) - timedelta(days=2)
    with GraphMemory(db, clock=lambda: past) as memory:  # "temp" expired a day ago
        memory.add_memory("Keeps.", memory_id="keep")
        memory.add_memory("Temporary.", memory_id="temp", ttl_days=1)
        memory.link_records("keep", "memory", "temp", "memory", "supports")
    root = ET.fromstring(graphmem("export", "--format", "graphml").out)
    ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
    assert [n.get("id") for n in root.iterfind(".//g:node", ns)] == ["keep"]
    assert list(root.iterfind(".//g:edge", ns)) == []
    # JSON Lines keeps the expired end of a link: the copy holds it, expired, as the store does
    for name, roots in (("dump", ()), ("root", ("--root", "temp"))):
        dump = tmp_path / f"{name}.jsonl"
        assert graphmem("export", *roots, "-o", str(dump)).code == 0
        kinds = [json.loads(line)["kind"] for line in dump.read_text().splitlines()]
        assert kinds == ["memory", "memory", "link"]
        copy = tmp_path / f"{name}.db"
        run = graphmem("import", str(dump), "--db", str(copy), "--json")
        assert run.code == 0 and (run.json()["memories"], run.json()["links"]) == (2, 1)
        with GraphMemory(copy) as restored:
            assert [m.id for m in restored.list_memories()] == ["keep"]
            assert [m.id for m in restored.list_memories(include_expired=True)] == ["keep", "temp"]


def test_export_mermaid_and_dot_of_a_subgraph(graphmem, pizza_db: Path) -> None:
    with GraphMemory(pizza_db) as memory:
        memory.add_memory("far away", memory_id="far")
    mermaid = graphmem("export", "--format", "mermaid", "--root", "thin", "--hops", "1").out
    assert mermaid.startswith("flowchart LR")
    assert '["thin: Thin crust."]:::invalid' in mermaid
    assert "-->|supersedes|" in mermaid and "neap" not in mermaid and "far" not in mermaid
    dot = graphmem("export", "--format", "dot", "--root", "thin", "--hops", "2").out
    assert '"neap" -> "sour" [label="refines"];' in dot and "far" not in dot


@pytest.mark.parametrize(("roots", "hops"), [(("a",), "1"), (("b", "c"), "0")])
def test_export_of_a_subgraph_keeps_the_links_of_its_outer_ring(
    graphmem, db: Path, tmp_path, roots: tuple[str, ...], hops: str
) -> None:
    """b supersedes c, both at the last hop (or both roots): the link is exported,
    and the copy shows c invalid as the store does."""
    with GraphMemory(db) as memory:
        for mid in "abc":
            memory.add_memory(f"memory {mid}", memory_id=mid)
        memory.link_records("a", "memory", "b", "memory", "supports")
        memory.link_records("a", "memory", "c", "memory", "supports")
        memory.link_records("b", "memory", "c", "memory", "supersedes", relation_id="l-sup")
    dump = tmp_path / "sub.jsonl"
    args = [arg for root in roots for arg in ("--root", root)]
    assert graphmem("export", *args, "--hops", hops, "-o", str(dump)).code == 0
    lines = [json.loads(line) for line in dump.read_text().splitlines()]
    assert "l-sup" in [line.get("relation_id") for line in lines if line["kind"] == "link"]
    copy = tmp_path / "sub.db"
    assert graphmem("import", str(dump), "--db", str(copy)).code == 0
    with GraphMemory(copy) as restored:
        assert restored.get_memory("c").status == "invalid"
        assert [link.id for link in restored.list_record_links("c", "supersedes")] == ["l-sup"]


def test_export_unknown_root_is_a_user_error(graphmem, pizza_db: Path, user_error) -> None:
    user_error(graphmem("export", "--format", "dot", "--root", "nope"), "nope")


def test_import_missing_file_is_a_user_error(graphmem, tmp_path: Path, user_error) -> None:
    user_error(graphmem("import", str(tmp_path / "none.jsonl")), "none.jsonl")


def test_import_malformed_line_keeps_earlier_batches_and_resume_continues(
    graphmem, db: Path, tmp_path: Path, user_error
) -> None:
    source = tmp_path / "in.jsonl"
    _write_jsonl(source, 25, 0)
    lines = source.read_text().splitlines()
    good = lines[22]
    lines[22] = '{"kind": "memory", "memory_id": "m22", "content": '  # line 23, truncated
    source.write_text("\n".join(lines) + "\n")
    run = graphmem("import", str(source), "--batch-size", "10")
    user_error(run, "line 23:")
    assert "lines up to 20 are stored" in run.err
    with GraphMemory(db) as memory:
        stored = {r.id for r in memory.list_memories(limit=100)}
    assert stored == {f"m{i}" for i in range(20)}  # the bad line's batch was rolled back
    lines[22] = good
    source.write_text("\n".join(lines) + "\n")
    again = graphmem("import", str(source), "--batch-size", "10", "--resume", "--json")
    assert again.code == 0
    assert again.json()["skipped"] == 20 and again.json()["memories"] == 5


def test_import_without_resume_rejects_stored_ids(graphmem, db, tmp_path, user_error) -> None:
    source = tmp_path / "in.jsonl"
    _write_jsonl(source, 3, 0)
    assert graphmem("import", str(source)).code == 0
    user_error(graphmem("import", str(source)), "line 1: memory_id: 'm0' already exists")


def test_import_link_to_unknown_memory_names_its_line(graphmem, db, tmp_path, user_error) -> None:
    source = tmp_path / "in.jsonl"
    _write_jsonl(source, 3, 2)
    text = source.read_text().replace('"target_record_id": "m2"', '"target_record_id": "zz"')
    source.write_text(text)
    user_error(graphmem("import", str(source)), "line 5:")


def test_import_unknown_key_names_its_line(graphmem, db, tmp_path, user_error) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text('{"kind": "memory", "content": "a"}\n{"kind": "memory", "colour": 1}\n')
    user_error(graphmem("import", str(source)), "line 2: memory: unknown keys 'colour'")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"kind": "memory", "content": "a"}\n{"kind": "memory"}\n',
            "line 2: content: is required",
        ),
        (
            '{"kind": "link", "source_record_id": "a", "target_record_id": "b", '
            '"relation_type": "supports"}\n',
            "line 1: source_record_type, target_record_type: are required",
        ),
        ("not json\n", "line 1: is not JSON (Expecting value, column 1)"),
        ("[1]\n", "line 1: must be a JSON object"),
    ],
)
def test_import_bad_line_message_names_what_is_wrong(
    graphmem, tmp_path: Path, user_error, text: str, message: str
) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(text)
    user_error(graphmem("import", str(source)), f"graphmem: error: {message};")


def test_import_interrupted_by_sigint_resumes_to_the_same_state(
    graphmem, script: Path, db: Path, tmp_path: Path
) -> None:
    source = tmp_path / "in.jsonl"
    _write_jsonl(source, 20_000, 20_000)
    reference = tmp_path / "ref.db"
    assert graphmem("import", str(source), "--db", str(reference)).code == 0
    env = {**os.environ, "GRAPHMEM_DB": str(db)}
    args = [str(script), "import", str(source), "--batch-size", "50"]
    proc = subprocess.Popen(
        args,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A shell starts background jobs with SIGINT ignored, and Python keeps an
        # ignored SIGINT ignored: give the import the default a terminal gives it.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not _count(db):
        time.sleep(0.01)
    # Frozen while the interrupt is sent, so that a loaded machine cannot let the
    # import run to its end between the count and the signal.
    proc.send_signal(signal.SIGSTOP)
    assert proc.poll() is None, "the import ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    proc.send_signal(signal.SIGCONT)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (proc.returncode, err)
    assert "rerun with --resume" in err and "Traceback" not in err
    partial = _count(db)
    assert 0 < partial < 20_000
    assert graphmem("import", str(source), "--resume").code == 0
    # The lines carry no timestamp: each store shows its own creation time.
    assert _content(db, timestamps=False) == _content(reference, timestamps=False)


def _count(db: Path) -> int:
    if not db.exists():
        return 0
    conn = sqlite3.connect(db, timeout=10)
    try:
        return int(conn.execute("SELECT count(*) FROM graphmem_memory").fetchone()[0])
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0
    finally:
        conn.close()


def _threads_store(db: Path) -> None:
    with GraphMemory(db) as memory:
        memory.add_user("u1", "Alice")
        chat = memory.create_thread("t1", user_id="u1", enable_context_summary=False)
        chat.add_messages(
            [{"role": "user", "content": "Hello."}, {"role": "assistant", "content": "Hi!"}]
        )
        memory.add_memory("Says hello.", memory_id="m1", thread_id="t1", user_id="u1")
        memory.create_prompt("tickets", "Extract ticket ids.", "support tickets")
        memory.update_prompt("tickets", prompt="Extract ticket ids and owners.")


def _threads_content(db: Path) -> tuple[object, ...]:
    with GraphMemory(db) as memory:
        threads = [
            t.model_dump(exclude={"created_at", "updated_at"}) for t in memory.list_threads()
        ]
        messages = [
            m.model_dump(exclude={"created_at"}) for m in memory.get_thread("t1").get_messages()
        ]
        versions = [
            v.model_dump(exclude={"created_at"})
            for v in memory.list_prompt_versions("tickets").versions
        ]
        users = [u.model_dump(exclude={"created_at"}) for u in memory.list_users()]
    return threads, messages, versions, users, _content(db)


def test_export_import_round_trips_threads_messages_and_prompts(graphmem, db: Path, tmp_path):
    _threads_store(db)
    dump = tmp_path / "dump.jsonl"
    assert graphmem("export", "-o", str(dump)).code == 0
    copy = tmp_path / "copy.db"
    run = graphmem("import", str(dump), "--db", str(copy))
    assert run.code == 0, run.err
    assert run.out.strip() == (
        "imported 1 memories and 0 links (and 1 threads, 2 messages, 1 users, 1 prompts) "
        "(0 already stored, 0 expired)"
    )
    assert _threads_content(copy) == _threads_content(db)
    stats = graphmem("stats", "--db", str(copy), "--json").json()
    assert (stats["threads"], stats["messages"], stats["users"], stats["prompts"]) == (1, 2, 1, 1)
    assert "messages: 2" in graphmem("stats", "--db", str(copy)).out


def test_export_no_threads_no_prompts_writes_memories_and_links_only(graphmem, db: Path) -> None:
    _threads_store(db)
    out = graphmem("export", "--no-threads", "--no-prompts").out
    assert [json.loads(line)["kind"] for line in out.splitlines()] == ["memory"]


def test_import_message_before_its_thread_names_the_line(graphmem, db, tmp_path, user_error):
    source = tmp_path / "in.jsonl"
    message = {"kind": "message", "message_id": "x1", "thread_id": "t9", "role": "user"}
    message |= {"content": "x", "position": 0}
    source.write_text(json.dumps({"kind": "memory", "content": "a"}) + "\n" + json.dumps(message))
    user_error(graphmem("import", str(source)), "line 2: thread_id: no thread 't9'")


@pytest.mark.parametrize(
    ("line", "argument"),
    [
        ({"kind": "user", "user_id": "u1", "information": "hi \ud800"}, "information"),
        ({"kind": "agent", "agent_id": "a1", "information": "hi \ud800"}, "information"),
        (
            {
                "kind": "prompt",
                "prompt_id": "p",
                "description": "hi \ud800",
                "versions": [{"vid": 0, "prompt": "Extract dates."}],
            },
            "description",
        ),
    ],
)
def test_import_of_text_that_is_not_unicode_names_the_line(
    graphmem, db, tmp_path, user_error, line: dict[str, object], argument: str
) -> None:
    """A lone surrogate (an escape in the JSON) cannot be stored as UTF-8."""
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"kind": "memory", "content": "a"}) + "\n" + json.dumps(line))
    user_error(graphmem("import", str(source)), f"line 2: {argument}: is not valid Unicode text")
    stats = graphmem("stats", "--json").json()
    assert (stats["memories"], stats["users"], stats["agents"], stats["prompts"]) == (0, 0, 0, 0)


def test_import_into_a_read_only_store_is_a_store_error(
    graphmem, db: Path, tmp_path: Path, user_error
) -> None:
    assert graphmem("add", "kept", "--id", "k").code == 0
    with db.open("r+b") as raw:  # a file format write version above 2: SQLite only reads it
        raw.seek(18)
        raw.write(bytes([3]))
    source = tmp_path / "in.jsonl"
    _write_jsonl(source, 3, 0)
    run = graphmem("import", str(source))
    user_error(run, "store error: SQLite failed: attempt to write a readonly database")
    assert "line" not in run.err and "fix" not in run.err and "--resume" not in run.err
    assert "nothing was imported" in run.err


_FAIL_SECOND_BATCH = """
import sys
from graphmem.cli import main
from graphmem.errors import BackendError
from graphmem.stores.sqlite import SqliteStore

original = SqliteStore.insert_memories
calls = []

def insert_memories(self, memories):
    calls.append(1)
    if len(calls) > 1:
        raise BackendError("SQLite failed: disk I/O error")
    original(self, memories)

SqliteStore.insert_memories = insert_memories
sys.exit(main())
"""


def test_import_store_error_after_a_batch_says_to_resume(db: Path, tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    _write_jsonl(source, 4, 0)
    program = tmp_path / "fail.py"
    program.write_text(_FAIL_SECOND_BATCH)
    args = [sys.executable, str(program), "import", str(source), "--db", str(db)]
    done = subprocess.run([*args, "--batch-size", "2"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("graphmem: error: store error: SQLite failed: disk I/O error;")
    assert "lines up to 2 are stored" in done.stderr and "--resume" in done.stderr
    assert "line 3" not in done.stderr and "fix" not in done.stderr
    with GraphMemory(db) as memory:
        assert [r.id for r in memory.list_memories()] == ["m0", "m1"]


def test_import_failing_on_its_first_line_says_no_lines_were_stored(
    graphmem, db: Path, tmp_path: Path, user_error
) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text('{"kind": "memory", "memory_id": "m0", "content": \n')
    run = graphmem("import", str(source))
    user_error(run, "line 1:")
    assert "no lines were stored" in run.err and "lines up to" not in run.err, run.err
    with GraphMemory(db) as memory:
        assert memory.list_memories() == []

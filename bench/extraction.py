"""Benchmark memory extraction: graphmem's own overhead per extracted message.

A :class:`graphmem.testing.ModelServer` on 127.0.0.1 answers every chat at once
(two records per extraction, one link per linking call), so what is timed is
graphmem: queuing jobs with the messages, claiming them, building prompts,
parsing replies, embedding (``HashingEmbedder``, 384-d), retrieving link
candidates among ``--memories`` stored memories of the user, checking link
proposals and writing records, links and job results. The LLM is wrapped to
add up the time spent inside its calls (the local HTTP round trips, which a
real model would replace with its own latency); with one worker (the default)
the jobs run one after another, so ``overhead`` = (elapsed - time in LLM
calls) / jobs is graphmem's own cost per job, ``add_messages`` included.

Reported per link mode: messages/s end to end (``add_messages`` in batches of
``--batch`` until every job is done), LLM calls per message, ms per job, the
part of it spent in LLM calls, and the rest.

    python -m bench.extraction --messages 400 --frequency 5 --memories 2000
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from graphmem import GraphMemory, HashingEmbedder, Llm, MemoryExtractionConfig
from graphmem.testing import ModelServer

MODES = ("POST_EXTRACTION", "DURING_EXTRACTION", "DISABLED")


def _reply(body: dict[str, Any]) -> str:
    prompt = str(body["messages"][-1]["content"])
    links = [{"source": "new-0", "target": "mem-0", "relation_type": "supports"}]
    if "===== NEW MEMORIES =====" in prompt:
        return json.dumps({"links": links})
    tail = prompt.rsplit("] user: ", 1)[-1].split("\n", 1)[0]
    records = [
        {"record_type": "fact", "content": f"Fact about {tail}.", "source_messages": [1]},
        {"record_type": "preference", "content": f"Likes {tail}.", "source_messages": [1]},
    ]
    body_out: dict[str, Any] = {"records": records}
    if "===== STORED MEMORIES =====" in prompt:
        body_out["links"] = links
    return json.dumps(body_out)


class TimedLlm:
    """An LLM that adds up the time its calls take (the HTTP round trips)."""

    def __init__(self, llm: Llm) -> None:
        self.llm, self.model, self.seconds, self.calls = llm, llm.model, 0.0, 0

    def chat(self, messages: Any, *, json_schema: Any = None) -> str:
        start = time.perf_counter()
        try:
            return self.llm.chat(messages, json_schema=json_schema)
        finally:
            self.seconds += time.perf_counter() - start
            self.calls += 1


def run(mode: str, args: argparse.Namespace, server: ModelServer, folder: Path) -> dict[str, Any]:
    llm = TimedLlm(Llm("bench-llm", api_base=server.url, max_retries=0))
    config = MemoryExtractionConfig(
        memory_extraction_frequency=args.frequency, memory_link_extraction_mode=mode
    )
    path = folder / f"{mode}.db"
    with GraphMemory(
        path, embedder=HashingEmbedder(dim=384), llm=llm, extraction_workers=args.workers
    ) as memory:
        memory.add_memories(
            [
                {"content": f"stored memory {i} about topic {i % 97}", "user_id": "u"}
                for i in range(args.memories)
            ]
        )
        thread = memory.create_thread(
            "t", user_id="u", memory_extraction_config=config, enable_context_summary=False
        )
        start = time.perf_counter()
        for first in range(0, args.messages, args.batch):
            thread.add_messages(
                [
                    {"role": "user", "content": f"message {i} about topic {i % 31}"}
                    for i in range(first, min(first + args.batch, args.messages))
                ]
            )
        thread.wait_for_memory_extraction(timeout=3600)
        elapsed = time.perf_counter() - start
        jobs = memory.list_jobs(status="done", limit=100_000)
    calls, http, done = llm.calls, llm.seconds, max(len(jobs), 1)
    assert calls == sum(j.result.llm_calls for j in jobs if j.result)
    return {
        "mode": mode,
        "messages": args.messages,
        "jobs": len(jobs),
        "llm_calls": calls,
        "calls_per_message": round(calls / args.messages, 3),
        "messages_per_s": round(args.messages / elapsed, 1),
        "ms_per_job": round(1000 * elapsed / done, 2),
        "http_ms_per_job": round(1000 * http / done, 2),
        "overhead_ms_per_job": round(1000 * (elapsed - http) / done, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=400)
    parser.add_argument("--frequency", type=int, default=5)
    parser.add_argument("--batch", type=int, default=5)
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--modes", default=",".join(MODES))
    args = parser.parse_args()
    with ModelServer() as server, tempfile.TemporaryDirectory() as folder:
        server.add_rule(lambda body: True, _reply)
        for mode in args.modes.split(","):
            print(json.dumps(run(mode, args, server, Path(folder))), flush=True)


if __name__ == "__main__":
    main()

"""The labelled relevance set of bench/relevance.py, built from templates.

    python -m bench.relevance_set      # rewrites bench/relevance_set.json

Twelve services each get six facts (datastore, language, on-call team, an error
code, release process, a migration ticket); twelve of those facts replaced an
older one (``supersedes``: the older is invalid, kept as history). About 230
distractors, some naming the same services, bring it past 300 memories. Each
fact has one query, of one of three kinds:

* ``paraphrase``: the fact asked in other words (language, team, release);
* ``keyword``: only a rare token (an error code or a ticket id);
* ``superseded``: the datastore or release question of a service whose answer
  changed; only the newer memory is relevant.

The file is seeded and deterministic; the JSON in the repository is what the
benchmark reads.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "relevance_set.json"
SERVICES = [
    "billing", "search", "auth", "inventory", "shipping", "payments",
    "reporting", "notifications", "analytics", "checkout", "catalog", "pricing",
]  # fmt: skip
DATASTORES = ["PostgreSQL", "MySQL", "MongoDB", "Cassandra", "DynamoDB", "Redis", "CockroachDB",
              "SQLite", "Oracle Database", "ClickHouse", "Elasticsearch", "MariaDB"]  # fmt: skip
LANGUAGES = ["Go", "Rust", "Kotlin", "Python", "TypeScript", "Java", "Elixir", "Scala",
             "C#", "Ruby", "Haskell", "Clojure"]  # fmt: skip
TEAMS = ["Falcon", "Otter", "Badger", "Heron", "Lynx", "Puma", "Raven", "Walrus",
         "Gecko", "Marten", "Ibis", "Koala"]  # fmt: skip
TOOLS = ["Argo CD", "Spinnaker", "Jenkins", "GitHub Actions", "Flux", "Octopus Deploy",
         "GitLab CI", "Buildkite", "CircleCI", "Harness", "Tekton", "Drone"]  # fmt: skip
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
MEANINGS = ["the upstream token expired", "the cache is cold", "a shard is read-only",
            "the queue is full", "the schema is out of date", "a quota was exceeded"]  # fmt: skip
REGIONS = ["eu-west-1", "us-east-2", "ap-south-1", "eu-central-1"]

PEOPLE = ["Ana", "Bruno", "Chen", "Dara", "Emil", "Fatima", "Goran", "Hana", "Ivo", "Jun"]
DRINKS = ["green tea", "espresso", "sparkling water", "hot chocolate", "oat latte"]
TOPICS = ["the quarterly roadmap", "hiring plans", "the office move", "budget review",
          "the design system", "accessibility audit", "the offsite agenda"]  # fmt: skip
ROOMS = ["Aurora", "Basalt", "Cedar", "Delta", "Ember"]
THINGS = ["dashboard colour scheme", "logo", "status page", "team wiki page", "slack channel",
          "holiday calendar", "README", "changelog format"]  # fmt: skip


def _facts(rng: random.Random) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[list]]:
    memories: list[dict[str, Any]] = []
    queries: list[dict[str, Any]] = []
    links: list[list[str]] = []
    for i, s in enumerate(SERVICES):
        cap = s.capitalize()
        db, old_db = DATASTORES[i], DATASTORES[(i + 5) % len(DATASTORES)]
        tool, old_tool = TOOLS[i], TOOLS[(i + 7) % len(TOOLS)]
        code = f"E{rng.randint(1000, 9999)}{chr(65 + i)}"
        ticket = f"OPS-{rng.randint(1000, 9999)}"
        day = DAYS[i % len(DAYS)]
        facts = {
            "db": f"The {s} service moved its records from {old_db} to {db}.",
            "lang": f"{cap} is written in {LANGUAGES[i]}.",
            "team": f"The {TEAMS[i]} team is on call for {s}.",
            "code": f"In {s}, error {code} means {MEANINGS[i % len(MEANINGS)]}.",
            "deploy": f"{cap} now ships with {tool} every {day}.",
            "ticket": f"Ticket {ticket} tracks moving {s} to {REGIONS[i % len(REGIONS)]}.",
        }
        for key, text in facts.items():
            memories.append({"id": f"{s}-{key}", "content": text})
        superseded = "db" if i % 2 == 0 else "deploy"
        old_text = (
            f"The {s} service keeps its records in {old_db}."
            if superseded == "db"
            else f"{cap} ships with {old_tool} every {DAYS[(i + 2) % len(DAYS)]}."
        )
        memories.append({"id": f"{s}-{superseded}-old", "content": old_text})
        links.append([f"{s}-{superseded}", f"{s}-{superseded}-old", "supersedes"])
        asks = {
            "db": f"Which datastore does {s} write to?",
            "lang": f"What programming language was {s} built with?",
            "team": f"Who gets paged when {s} breaks?",
            "code": code,
            "deploy": f"How and when is {s} released?",
            "ticket": ticket,
        }
        for key, text in asks.items():
            kind = (
                "keyword"
                if key in ("code", "ticket")
                else ("superseded" if key == superseded else "paraphrase")
            )
            queries.append({"query": text, "kind": kind, "relevant": [f"{s}-{key}"]})
    return memories, queries, links


def _distractors(rng: random.Random, count: int) -> list[dict[str, Any]]:
    forms = [
        lambda: f"{rng.choice(PEOPLE)} prefers {rng.choice(DRINKS)} in the afternoon.",
        lambda: f"The meeting about {rng.choice(TOPICS)} moved to room {rng.choice(ROOMS)}.",
        lambda: f"The {rng.choice(SERVICES)} {rng.choice(THINGS)} was redesigned last week.",
        lambda: f"{rng.choice(PEOPLE)} is presenting {rng.choice(TOPICS)} on {rng.choice(DAYS)}.",
        lambda: (
            f"{rng.choice(PEOPLE)} asked for a new {rng.choice(THINGS)} for {rng.choice(SERVICES)}."
        ),
        lambda: f"Room {rng.choice(ROOMS)} has a broken projector until {rng.choice(DAYS)}.",
    ]
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    while len(out) < count:
        text = rng.choice(forms)()
        if text not in seen:
            seen.add(text)
            out.append({"id": f"d{len(out):03d}", "content": text})
    return out


def build(seed: int = 4) -> dict[str, Any]:
    """The whole set: memories, supersedes links, labelled queries."""
    rng = random.Random(seed)
    memories, queries, links = _facts(rng)
    memories += _distractors(rng, 230)
    return {"memories": memories, "links": links, "queries": queries}


if __name__ == "__main__":
    OUT.write_text(json.dumps(build(), indent=1) + "\n", encoding="utf-8")
    data = json.loads(OUT.read_text("utf-8"))
    print(f"{len(data['memories'])} memories, {len(data['queries'])} queries -> {OUT}")

"""DBA steps for the SQLite state machine: DML on the store's file through a stock
``sqlite3`` connection, between the API calls of :class:`GraphMemoryMachine`.

Each step runs with foreign keys on or off (stock ``sqlite3`` has them off) and
uses every conflict clause a DBA can write, REPLACE included; the model applies
what SQLite documents for that clause, and the machine's invariants then check
records, links and the validity invariant through the API.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from hypothesis import note
from hypothesis import strategies as st
from hypothesis.stateful import consumes, multiple, rule

from graphmem.core.validation import format_time
from graphmem.memory import GraphMemory
from graphmem.testing.machine import GraphMemoryMachine
from graphmem.testing.machine_base import MEMORIES, RELATIONS, STEPS
from graphmem.testing.model import ModelLink
from graphmem.testing.strategies import record_ids, relation_types

__all__ = ["SqliteDbaMachine"]

memories = MEMORIES
relations = RELATIONS

INSERTS = ("INSERT", "INSERT OR REPLACE", "REPLACE", "INSERT OR IGNORE")
_INSERT_LINK = (
    " INTO graphmem_link (relation_id, source_id, target_id, relation_type, "
    "opposite_relation_type, created_at) VALUES (?, ?, ?, ?, ?, ?)"
)


class SqliteDbaMachine(GraphMemoryMachine):
    """The API machine on a SQLite file, plus DBA DML on the same file."""

    def make_memory(self) -> GraphMemory:
        self.folder = Path(tempfile.mkdtemp(prefix="graphmem-dba-"))
        self.dba = sqlite3.connect(self.folder / "m.db", isolation_level=None)
        return GraphMemory(self.folder / "m.db", clock=self.clock)

    def teardown(self) -> None:
        super().teardown()
        self.dba.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def run_dml(self, foreign_keys: bool, sql: str, params: tuple[Any, ...]) -> bool:
        """Run one statement as a DBA; False when SQLite refused it (nothing changed)."""
        self.dba.execute(f"PRAGMA foreign_keys = {'ON' if foreign_keys else 'OFF'}")
        before = self.snapshot()
        try:
            self.dba.execute(sql, params)
        except sqlite3.IntegrityError as exc:
            note(f"DBA {sql!r} {params} refused: {exc}")
            assert self.snapshot() == before, "a refused statement changed the store"
            return False
        note(f"DBA {sql!r} {params}")
        return True

    @rule(
        target=relations,
        mode=st.sampled_from(INSERTS),
        relation_id=record_ids(5),
        source=memories,
        target_id=memories,
        ghost=st.none() | record_ids(6),
        kind=relation_types(),
        foreign_keys=st.booleans(),
        step=STEPS,
    )
    def dba_insert_link(
        self,
        mode: str,
        relation_id: str,
        source: str,
        target_id: str,
        ghost: str | None,
        kind: tuple[str, str],
        foreign_keys: bool,
        step: timedelta,
    ) -> Any:
        """INSERT, INSERT OR REPLACE, REPLACE or INSERT OR IGNORE of one link row,
        sometimes to a memory that does not exist (``ghost``)."""
        self.clock.now += step
        target_id = target_id if ghost is None else ghost
        rtype, opposite = kind
        row = (relation_id, source, target_id, rtype, opposite, format_time(self.clock()))
        done = self.run_dml(foreign_keys, mode + _INSERT_LINK, row)
        model = self.model
        replaced = [
            link
            for link in (model.links.get(relation_id), model.find_link(source, target_id, rtype))
            if link is not None
        ]
        refused = (
            source not in model.memories
            or target_id not in model.memories
            or source == target_id
            or model.find_link(target_id, source, rtype) is not None
            or (mode == "INSERT" and bool(replaced))
        )
        if refused or (mode == "INSERT OR IGNORE" and replaced):
            # OR IGNORE skips a row that breaks the CHECK instead of refusing it.
            assert not done or mode == "INSERT OR IGNORE", "SQLite accepted a row to refuse"
            return multiple()
        assert done, "SQLite refused a row it must accept"
        for old in {link.relation_id for link in replaced}:
            model.delete_link(old)
        link = ModelLink(relation_id, source, target_id, rtype, opposite, self.clock())
        model.add_link(link)
        self.history[relation_id] = link
        return relation_id

    @rule(
        relation_id=relations,
        column=st.sampled_from(("relation_id", "source_id", "target_id")),
        other=memories,
        new_id=record_ids(5),
        foreign_keys=st.booleans(),
    )
    def dba_update_or_replace_link(
        self, relation_id: str, column: str, other: str, new_id: str, foreign_keys: bool
    ) -> None:
        """UPDATE OR REPLACE of a link's id or one end: a row holding the new id or
        triple is deleted, without DELETE triggers."""
        value = new_id if column == "relation_id" else other
        sql = f"UPDATE OR REPLACE graphmem_link SET {column} = ? WHERE relation_id = ?"
        done = self.run_dml(foreign_keys, sql, (value, relation_id))
        link = self.model.links.get(relation_id)
        if link is None:
            assert done
            return
        if column == "relation_id":
            new = replace(link, relation_id=value)
        elif column == "source_id":
            new = replace(link, source=value)
        else:
            new = replace(link, target=value)
        model = self.model
        rest = [old for old in model.links.values() if old.relation_id != relation_id]
        ends_moved = (new.source, new.target) != (link.source, link.target)
        refused = new.source == new.target or (
            ends_moved
            and any(
                (old.source, old.target, old.relation_type)
                == (new.target, new.source, new.relation_type)
                for old in rest
            )
        )
        if refused or other not in model.memories:
            assert not done, "SQLite accepted a change to refuse"
            return
        assert done, "SQLite refused a change it must accept"
        for old in rest:
            triple = (old.source, old.target, old.relation_type)
            if old.relation_id == new.relation_id or triple == (
                new.source,
                new.target,
                new.relation_type,
            ):
                model.delete_link(old.relation_id)
        model.delete_link(relation_id)
        model.add_link(new)
        self.history[new.relation_id] = new

    @rule(record_id=consumes(memories), foreign_keys=st.booleans())
    def dba_delete_memory(self, record_id: str, foreign_keys: bool) -> None:
        """DELETE of a memory: its links go too, their targets are recomputed."""
        sql = "DELETE FROM graphmem_memory WHERE record_id = ?"
        assert self.run_dml(foreign_keys, sql, (record_id,))
        if record_id in self.model.memories:
            self.model.delete_memory(record_id)

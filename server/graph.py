"""The knowledge graph on SQLite: entities with observations, and directed relations between names.

One file per graph, in WAL mode so readers never block the writer, with FTS5 trigram indexes for
the case-insensitive substring search. Every public call is one transaction: a call that fails
writes nothing, and several processes on one file serialize their writes instead of losing them.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from common.sqlite import use_wal

SCHEMA_VERSION = "1"

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS entities (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
    " entity_type TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS observations (id INTEGER PRIMARY KEY,"
    " entity_id INTEGER NOT NULL REFERENCES entities(id), content TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS observations_by_entity ON observations(entity_id, id)",
    "CREATE TABLE IF NOT EXISTS relations (id INTEGER PRIMARY KEY, source TEXT NOT NULL,"
    " target TEXT NOT NULL, relation_type TEXT NOT NULL, UNIQUE (source, target, relation_type))",
    "CREATE INDEX IF NOT EXISTS relations_by_target ON relations(target)",
    # Lower-cased copies (Python's str.lower, which agrees with JavaScript's toLowerCase) indexed by
    # trigrams: a phrase query of the lower-cased needle is then an exact substring test.
    "CREATE VIRTUAL TABLE IF NOT EXISTS entity_text USING fts5(name, entity_type,"
    " tokenize = 'trigram case_sensitive 1')",
    "CREATE VIRTUAL TABLE IF NOT EXISTS observation_text USING fts5(content,"
    " tokenize = 'trigram case_sensitive 1')",
)

# FTS5's trigram tokenizer cannot match needles shorter than this; those fall back to a scan.
_TRIGRAM = 3


class GraphError(Exception):
    """A call the graph refuses as a whole (nothing was written); the message says what to fix."""


class EntityNotFound(GraphError):
    def __init__(self, name: str) -> None:
        super().__init__(f"Entity with name {name} not found")
        self.name = name


@dataclass(frozen=True)
class DeleteReport:
    """What a delete call did: ``deleted`` of ``requested`` items, and the names it did not find."""

    deleted: int
    requested: int
    missing: list[str]


def _lower(text: str) -> str:
    return text.lower()


def _json(values: Iterable[Any]) -> str:
    return json.dumps(list(values), ensure_ascii=False)


def relation_dict(source: str, target: str, relation_type: str) -> dict[str, str]:
    return {"from": source, "to": target, "relationType": relation_type}


class GraphStore:
    """A knowledge graph in one SQLite file; safe to share between threads and processes."""

    def __init__(self, path: str | Path, *, busy_timeout_s: float = 30.0) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Autocommit mode: transactions are opened explicitly, one per public call.
        self._conn = sqlite3.connect(
            self.path, isolation_level=None, check_same_thread=False, timeout=busy_timeout_s
        )
        self._lock = threading.Lock()
        use_wal(self._conn)
        # NORMAL in WAL mode survives a killed process; only a power cut can drop the last commits.
        self._conn.execute("PRAGMA synchronous = NORMAL")
        self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_s * 1000)}")
        with self._write() as db:
            for statement in _SCHEMA:
                db.execute(statement)
            db.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', ?)", (SCHEMA_VERSION,))

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    # -- transactions -------------------------------------------------------------------------

    @contextmanager
    def _write(self) -> Iterator[_Tx]:
        """One write transaction, taken up front (IMMEDIATE) so concurrent writers queue, not fail."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield _Tx(self._conn)
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    @contextmanager
    def _read(self) -> Iterator[_Tx]:
        """One read transaction, so a reply made of several queries sees one consistent state."""
        with self._lock:
            self._conn.execute("BEGIN")
            try:
                yield _Tx(self._conn)
            finally:
                self._conn.execute("COMMIT")

    # -- mutations ----------------------------------------------------------------------------

    def create_entities(self, entities: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Create the entities whose names are new (to the graph and to this batch); return those."""
        created: list[dict[str, Any]] = []
        with self._write() as db:
            for entity in entities:
                if db.entity_id(entity["name"]) is not None:
                    continue
                db.insert_entity(entity["name"], entity["entityType"], entity["observations"])
                created.append(
                    {
                        "name": entity["name"],
                        "entityType": entity["entityType"],
                        "observations": list(entity["observations"]),
                    }
                )
        return created

    def create_relations(self, relations: Sequence[dict[str, str]]) -> list[dict[str, str]]:
        """Create the relations not yet stored; both endpoints must exist, else nothing is written."""
        created: list[dict[str, str]] = []
        with self._write() as db:
            for relation in relations:
                for endpoint in (relation["from"], relation["to"]):
                    if db.entity_id(endpoint) is None:
                        raise EntityNotFound(endpoint)
            for relation in relations:
                if db.insert_relation(relation["from"], relation["to"], relation["relationType"]):
                    created.append(relation_dict(relation["from"], relation["to"], relation["relationType"]))
        return created

    def add_observations(self, items: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Append the contents each entity lacks; an unknown entity fails the whole call."""
        results: list[dict[str, Any]] = []
        with self._write() as db:
            for item in items:
                entity_id = db.entity_id(item["entityName"])
                if entity_id is None:
                    raise EntityNotFound(item["entityName"])
                existing = {
                    row[0]
                    for row in db.execute(
                        "SELECT content FROM observations WHERE entity_id = ?", (entity_id,)
                    )
                }
                # Like the reference server, the filter runs against what was stored before this
                # item, so a content repeated inside one `contents` list is added each time.
                added = [content for content in item["contents"] if content not in existing]
                db.insert_observations(entity_id, added)
                results.append({"entityName": item["entityName"], "addedObservations": added})
        return results

    def delete_entities(self, names: Sequence[str]) -> DeleteReport:
        """Delete the entities and every relation from or to their names; unknown names are reported."""
        wanted = list(dict.fromkeys(names))
        with self._write() as db:
            rows = db.execute(
                "SELECT id, name FROM entities WHERE name IN (SELECT value FROM json_each(?))",
                (_json(wanted),),
            ).fetchall()
            ids = _json(row[0] for row in rows)
            db.execute(
                "DELETE FROM observation_text WHERE rowid IN (SELECT id FROM observations"
                " WHERE entity_id IN (SELECT value FROM json_each(?)))",
                (ids,),
            )
            db.execute("DELETE FROM observations WHERE entity_id IN (SELECT value FROM json_each(?))", (ids,))
            db.execute("DELETE FROM entity_text WHERE rowid IN (SELECT value FROM json_each(?))", (ids,))
            db.execute("DELETE FROM entities WHERE id IN (SELECT value FROM json_each(?))", (ids,))
            db.execute(
                "DELETE FROM relations WHERE source IN (SELECT value FROM json_each(?1))"
                " OR target IN (SELECT value FROM json_each(?1))",
                (_json(wanted),),
            )
        found = {row[1] for row in rows}
        return DeleteReport(len(found), len(wanted), [name for name in wanted if name not in found])

    def delete_observations(self, deletions: Sequence[dict[str, Any]]) -> DeleteReport:
        """Remove exactly matching observations; entities that do not exist are reported, not fatal."""
        deleted = requested = 0
        missing: list[str] = []
        with self._write() as db:
            for deletion in deletions:
                contents = list(dict.fromkeys(deletion["observations"]))
                requested += len(contents)
                entity_id = db.entity_id(deletion["entityName"])
                if entity_id is None:
                    missing.append(deletion["entityName"])
                    continue
                rows = db.execute(
                    "SELECT id, content FROM observations WHERE entity_id = ?"
                    " AND content IN (SELECT value FROM json_each(?))",
                    (entity_id, _json(contents)),
                ).fetchall()
                ids = _json(row[0] for row in rows)
                db.execute(
                    "DELETE FROM observation_text WHERE rowid IN (SELECT value FROM json_each(?))", (ids,)
                )
                db.execute("DELETE FROM observations WHERE id IN (SELECT value FROM json_each(?))", (ids,))
                deleted += len({row[1] for row in rows})
        return DeleteReport(deleted, requested, list(dict.fromkeys(missing)))

    def delete_relations(self, relations: Sequence[dict[str, str]]) -> DeleteReport:
        """Remove exactly matching (from, to, relationType) triples."""
        triples = list(dict.fromkeys((r["from"], r["to"], r["relationType"]) for r in relations))
        deleted = 0
        with self._write() as db:
            for triple in triples:
                deleted += db.execute(
                    "DELETE FROM relations WHERE source = ? AND target = ? AND relation_type = ?", triple
                ).rowcount
        return DeleteReport(deleted, len(triples), [])

    # -- reads --------------------------------------------------------------------------------

    def read_graph(
        self, *, observation_limit: int | None = None, entity_types: Sequence[str] | None = None
    ) -> dict[str, list[dict[str, Any]]]:
        """Every entity (or those of ``entity_types``) and every relation (or those touching them)."""
        with self._read() as db:
            if entity_types is None:
                rows = db.execute("SELECT id, name, entity_type FROM entities ORDER BY id").fetchall()
                entities = db.entities(rows, observation_limit, all_rows=True)
                relations = [
                    relation_dict(*row)
                    for row in db.execute("SELECT source, target, relation_type FROM relations ORDER BY id")
                ]
                return {"entities": entities, "relations": relations}
            rows = db.execute(
                "SELECT id, name, entity_type FROM entities"
                " WHERE entity_type IN (SELECT value FROM json_each(?)) ORDER BY id",
                (_json(entity_types),),
            ).fetchall()
            return db.subgraph(rows, observation_limit)

    def search_nodes(
        self, query: str, *, limit: int | None = None, observation_limit: int | None = None
    ) -> dict[str, list[dict[str, Any]]]:
        """Entities whose name, type or an observation contains ``query``, ignoring case."""
        needle = _lower(query)
        params: tuple[str, ...]
        with self._read() as db:
            if not needle:
                ids_sql, params = "SELECT id FROM entities", ()
            elif len(needle) >= _TRIGRAM:
                phrase = '"' + needle.replace('"', '""') + '"'
                ids_sql = (
                    "SELECT rowid FROM entity_text WHERE entity_text MATCH ?1"
                    " UNION SELECT entity_id FROM observations WHERE id IN"
                    " (SELECT rowid FROM observation_text WHERE observation_text MATCH ?1)"
                )
                params = (phrase,)
            else:
                ids_sql = (
                    "SELECT rowid FROM entity_text WHERE instr(name, ?1) OR instr(entity_type, ?1)"
                    " UNION SELECT entity_id FROM observations WHERE id IN"
                    " (SELECT rowid FROM observation_text WHERE instr(content, ?1))"
                )
                params = (needle,)
            sql = f"SELECT id, name, entity_type FROM entities WHERE id IN ({ids_sql}) ORDER BY id"
            if limit is not None:
                sql += f" LIMIT {int(limit)}"
            rows = db.execute(sql, params).fetchall()
            return db.subgraph(rows, observation_limit)

    def open_nodes(
        self, names: Sequence[str], *, observation_limit: int | None = None
    ) -> dict[str, list[dict[str, Any]]]:
        """The named entities (in stored order; unknown names skipped) and the relations touching them."""
        with self._read() as db:
            rows = db.execute(
                "SELECT id, name, entity_type FROM entities"
                " WHERE name IN (SELECT value FROM json_each(?)) ORDER BY id",
                (_json(names),),
            ).fetchall()
            return db.subgraph(rows, observation_limit)

    def observation(self, entity_name: str, index: int) -> tuple[str, int]:
        """The ``index``-th observation (0-based, in the order added) of an entity, and its count."""
        with self._read() as db:
            entity_id = db.entity_id(entity_name)
            if entity_id is None:
                raise EntityNotFound(entity_name)
            count = db.execute(
                "SELECT count(*) FROM observations WHERE entity_id = ?", (entity_id,)
            ).fetchone()[0]
            if index >= count:
                last = f"use 0 to {count - 1}" if count else "it has none"
                raise GraphError(
                    f"index: {index} is past the last observation of {entity_name} ({count} in all; {last})"
                )
            row = db.execute(
                "SELECT content FROM observations WHERE entity_id = ? ORDER BY id LIMIT 1 OFFSET ?",
                (entity_id, index),
            ).fetchone()
            return row[0], count

    def neighborhood(
        self, name: str, depth: int, *, max_related: int
    ) -> tuple[dict[str, Any], list[tuple[dict[str, Any], int]], int, list[dict[str, str]]] | None:
        """The entity in full, the entities within ``depth`` relation hops (nearest first, at most
        ``max_related``, each with its hop count), how many were reachable in all, and the relations
        among the returned entities. None when there is no such entity."""
        with self._read() as db:
            row = db.execute("SELECT id, name, entity_type FROM entities WHERE name = ?", (name,)).fetchone()
            if row is None:
                return None
            [entity] = db.entities([row], None)
            hops: dict[str, int] = {name: 0}
            frontier = [name]
            for hop in range(1, depth + 1):
                if not frontier:
                    break
                linked = db.execute(
                    "SELECT e.name FROM entities e JOIN ("
                    " SELECT id, target AS other FROM relations"
                    " WHERE source IN (SELECT value FROM json_each(?1)) UNION ALL"
                    " SELECT id, source FROM relations WHERE target IN (SELECT value FROM json_each(?1))"
                    ") r ON e.name = r.other ORDER BY r.id",
                    (_json(frontier),),
                ).fetchall()
                frontier = []
                for (other,) in linked:
                    if other not in hops:
                        hops[other] = hop
                        frontier.append(other)
            related_names = [n for n in hops if n != name][:max_related]
            related_rows = db.execute(
                "SELECT id, name, entity_type FROM entities WHERE name IN (SELECT value FROM json_each(?))",
                (_json(related_names),),
            ).fetchall()
            by_name = {e["name"]: e for e in db.entities(related_rows, None)}
            related = [(by_name[n], hops[n]) for n in related_names]
            returned = {name, *related_names}
            relations = [
                r
                for r in db.relations_touching(list(returned))
                if r["from"] in returned and r["to"] in returned
            ]
            return entity, related, len(hops) - 1, relations

    def counts(self) -> dict[str, int]:
        """How many entities, observations and relations the graph holds."""
        with self._read() as db:
            return {
                table: db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                for table in ("entities", "observations", "relations")
            }

    # -- bulk access for import and export ------------------------------------------------------

    def iter_records(self) -> Iterator[dict[str, Any]]:
        """Every entity, then every relation, in stored order, as the reference JSONL records."""
        graph = self.read_graph()
        for entity in graph["entities"]:
            yield {"type": "entity", **entity}
        for relation in graph["relations"]:
            yield {"type": "relation", **relation}

    def merge_records(
        self, entities: Sequence[dict[str, Any]], relations: Sequence[dict[str, str]]
    ) -> dict[str, int]:
        """Bulk-load records in one transaction: new entities are created, known ones gain the
        observations they lack, relations are added as given (dangling ones included, as the
        reference file may hold them). Returns what was added."""
        added = {"entities": 0, "observations": 0, "relations": 0}
        with self._write() as db:
            for entity in entities:
                entity_id = db.entity_id(entity["name"])
                if entity_id is None:
                    db.insert_entity(entity["name"], entity["entityType"], entity["observations"])
                    added["entities"] += 1
                    added["observations"] += len(entity["observations"])
                    continue
                existing = {
                    row[0]
                    for row in db.execute(
                        "SELECT content FROM observations WHERE entity_id = ?", (entity_id,)
                    )
                }
                new = [o for o in dict.fromkeys(entity["observations"]) if o not in existing]
                db.insert_observations(entity_id, new)
                added["observations"] += len(new)
            for relation in relations:
                added["relations"] += db.insert_relation(
                    relation["from"], relation["to"], relation["relationType"]
                )
        return added


class _Tx:
    """The statements of one open transaction (helpers shared by the public calls)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        return self._conn.execute(sql, params)

    def entity_id(self, name: str) -> int | None:
        row = self._conn.execute("SELECT id FROM entities WHERE name = ?", (name,)).fetchone()
        return None if row is None else row[0]

    def insert_entity(self, name: str, entity_type: str, observations: Sequence[str]) -> int:
        entity_id = self._conn.execute(
            "INSERT INTO entities(name, entity_type) VALUES (?, ?)", (name, entity_type)
        ).lastrowid
        assert entity_id is not None  # an INSERT's cursor has the new row's id
        self._conn.execute(
            "INSERT INTO entity_text(rowid, name, entity_type) VALUES (?, ?, ?)",
            (entity_id, _lower(name), _lower(entity_type)),
        )
        self.insert_observations(entity_id, observations)
        return entity_id

    def insert_observations(self, entity_id: int, contents: Sequence[str]) -> None:
        for content in contents:
            observation_id = self._conn.execute(
                "INSERT INTO observations(entity_id, content) VALUES (?, ?)", (entity_id, content)
            ).lastrowid
            self._conn.execute(
                "INSERT INTO observation_text(rowid, content) VALUES (?, ?)",
                (observation_id, _lower(content)),
            )

    def insert_relation(self, source: str, target: str, relation_type: str) -> bool:
        return (
            self._conn.execute(
                "INSERT OR IGNORE INTO relations(source, target, relation_type) VALUES (?, ?, ?)",
                (source, target, relation_type),
            ).rowcount
            == 1
        )

    def entities(
        self, rows: Sequence[tuple[int, str, str]], observation_limit: int | None, *, all_rows: bool = False
    ) -> list[dict[str, Any]]:
        """Entity dicts for ``(id, name, type)`` rows, observations capped by ``observation_limit``
        (each then carries ``observationCount``). ``all_rows`` says the rows are the whole table."""
        if not rows:
            return []
        scope = "" if all_rows else "WHERE entity_id IN (SELECT value FROM json_each(?))"
        params: tuple[Any, ...] = () if all_rows else (_json(row[0] for row in rows),)
        observations: dict[int, list[str]] = {row[0]: [] for row in rows}
        counts: dict[int, int] = dict.fromkeys(observations, 0)
        if observation_limit is None:
            # Rowid order is the order added; for the whole table it is a sequential scan.
            order = "id" if all_rows else "entity_id, id"
            for entity_id, content in self._conn.execute(
                f"SELECT entity_id, content FROM observations {scope} ORDER BY {order}", params
            ):
                observations[entity_id].append(content)
        else:
            for entity_id, count in self._conn.execute(
                f"SELECT entity_id, count(*) FROM observations {scope} GROUP BY entity_id", params
            ):
                counts[entity_id] = count
            if observation_limit > 0:
                for entity_id, content in self._conn.execute(
                    "SELECT entity_id, content FROM (SELECT entity_id, content, row_number() OVER"
                    f" (PARTITION BY entity_id ORDER BY id) AS n FROM observations {scope})"
                    f" WHERE n <= {int(observation_limit)} ORDER BY entity_id, n",
                    params,
                ):
                    observations[entity_id].append(content)
        result = []
        for entity_id, name, entity_type in rows:
            entity: dict[str, Any] = {
                "name": name,
                "entityType": entity_type,
                "observations": observations[entity_id],
            }
            if observation_limit is not None:
                entity["observationCount"] = counts[entity_id]
            result.append(entity)
        return result

    def subgraph(
        self, rows: Sequence[tuple[int, str, str]], observation_limit: int | None
    ) -> dict[str, list[dict[str, Any]]]:
        """The entities of ``(id, name, type)`` rows and the relations touching them."""
        return {
            "entities": self.entities(rows, observation_limit),
            "relations": self.relations_touching([row[1] for row in rows]),
        }

    def relations_touching(self, names: Sequence[str]) -> list[dict[str, str]]:
        """Relations whose ``from`` or ``to`` is one of ``names``, in stored order."""
        if not names:
            return []
        return [
            relation_dict(*row)
            for row in self._conn.execute(
                "SELECT source, target, relation_type FROM relations WHERE id IN ("
                " SELECT id FROM relations WHERE source IN (SELECT value FROM json_each(?1))"
                " UNION SELECT id FROM relations WHERE target IN (SELECT value FROM json_each(?1)))"
                " ORDER BY id",
                (_json(names),),
            )
        ]

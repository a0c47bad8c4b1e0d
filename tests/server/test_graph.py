"""The graph store on its own: one transaction per call, persistence, search semantics, JSONL."""

from __future__ import annotations

import io
import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.graph import GraphError, GraphStore
from server.jsonl import export_jsonl, import_jsonl
from tests.server.conftest import entity


def test_the_file_is_in_wal_mode(store, db_path):
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_new_file_another_connection_is_creating_is_switched_to_wal_once_it_is_free(
    tmp_path, sqlite_file_being_created
):
    # Switching to WAL does not wait on the busy timeout: without retries this fails at once.
    path = tmp_path / "graph.sqlite"
    sqlite_file_being_created(path, 0.3)
    store = GraphStore(path)
    store.create_entities([entity("Alice")])
    store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_the_graph_persists_across_reopening(db_path):
    first = GraphStore(db_path)
    first.create_entities([entity("Alice", "person", "likes tea")])
    first.close()
    second = GraphStore(db_path)
    assert second.open_nodes(["Alice"])["entities"] == [entity("Alice", "person", "likes tea")]
    assert second.search_nodes("TEA")["entities"][0]["name"] == "Alice"
    second.close()


def test_a_call_that_fails_midway_writes_nothing(store, monkeypatch):
    store.create_entities([entity("Alice")])
    real_insert = sqlite3.Connection.execute
    calls = {"n": 0}

    class Boom(Exception):
        pass

    def failing_execute(conn, sql, *args):
        if sql.startswith("INSERT INTO observations"):
            calls["n"] += 1
            if calls["n"] == 3:
                raise Boom
        return real_insert(conn, sql, *args)

    monkeypatch.setattr(store, "_conn", _Proxy(store._conn, failing_execute))
    with pytest.raises(Boom):
        store.create_entities([entity("Bob", "person", "one", "two"), entity("Carol", "person", "three")])
    monkeypatch.undo()
    assert store.counts() == {"entities": 1, "observations": 0, "relations": 0}


class _Proxy:
    """A connection whose execute goes through ``hook`` (to make one statement fail)."""

    def __init__(self, conn: sqlite3.Connection, hook) -> None:
        self._conn, self._hook = conn, hook

    def execute(self, sql, *args):
        return self._hook(self._conn, sql, *args)

    def __getattr__(self, name):
        return getattr(self._conn, name)


def test_refused_relations_write_nothing(store):
    store.create_entities([entity("Alice"), entity("Bob")])
    with pytest.raises(GraphError, match="Entity with name Zed not found"):
        store.create_relations(
            [
                {"from": "Alice", "to": "Bob", "relationType": "knows"},
                {"from": "Zed", "to": "Bob", "relationType": "x"},
            ]
        )
    assert store.counts()["relations"] == 0


def test_delete_entities_also_removes_dangling_relations_to_the_name(store):
    import_jsonl(
        store,
        '{"type":"entity","name":"A","entityType":"t","observations":[]}\n'
        '{"type":"relation","from":"A","to":"Ghost","relationType":"haunts"}\n'
        '{"type":"relation","from":"Ghost","to":"Other","relationType":"haunts"}',
    )
    assert len(store.read_graph()["relations"]) == 2
    report = store.delete_entities(["Ghost"])
    assert (report.deleted, report.requested, report.missing) == (0, 1, ["Ghost"])
    assert store.read_graph()["relations"] == []


NAMES = st.text(alphabet="abcABCéÉß東😊 -", min_size=1, max_size=8)
OBSERVATIONS = st.lists(st.text(alphabet="abcABCéÉß東😊 -", max_size=12), max_size=3)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.dictionaries(NAMES, st.tuples(NAMES, OBSERVATIONS), min_size=1, max_size=6),
    st.lists(st.text(alphabet="abcABCéÉß東😊 -", max_size=5), min_size=1, max_size=5),
)
def test_search_agrees_with_a_case_insensitive_substring_scan(entities, queries):
    with tempfile.TemporaryDirectory() as folder:
        graph = GraphStore(Path(folder) / "g.sqlite")
        graph.create_entities([entity(name, kind, *obs) for name, (kind, obs) in entities.items()])
        for query in queries:
            needle = query.lower()
            expected = [
                name
                for name, (kind, obs) in entities.items()
                if needle in name.lower() or needle in kind.lower() or any(needle in o.lower() for o in obs)
            ]
            assert [e["name"] for e in graph.search_nodes(query)["entities"]] == expected, query
        graph.close()


RECORDS = (
    '{"type":"entity","name":"Zoë","entityType":"person",'
    '"observations":["likes \\"tea\\"","東京 😊","tab\\there"]}\n'
    '{"type":"entity","name":"Acme","entityType":"org","observations":[]}\n'
    '{"type":"relation","from":"Zoë","to":"Acme","relationType":"works_at"}\n'
    '{"type":"relation","from":"Zoë","to":"Gone","relationType":"knew"}\n'
)


def test_jsonl_round_trip_is_exact(store):
    report = import_jsonl(store, RECORDS)
    assert (report.entities, report.observations, report.relations, report.skipped) == (2, 3, 2, [])
    out = io.StringIO()
    assert export_jsonl(store, out) == 4
    assert out.getvalue() == RECORDS


def test_jsonl_without_a_trailing_newline_imports_the_same(store):
    import_jsonl(store, RECORDS.rstrip("\n"))
    out = io.StringIO()
    export_jsonl(store, out)
    assert out.getvalue() == RECORDS


def test_malformed_lines_are_skipped_with_their_line_numbers(store):
    text = (
        '{"type":"entity","name":"A","entityType":"t","observations":["x"]}\n'
        "{not json\n"
        "\n"
        '{"type":"entity","name":"B","entityType":"t"}\n'
        '{"type":"_aim","source":"mcp-knowledge-graph"}\n'
        '{"type":"relation","from":"A","to":"B"}\n'
        "[1, 2]\n"
        '{"type":"entity","name":"C","entityType":"t","observations":[1]}\n'
        '{"type":"entity","name":"D","entityType":"t","observations":[]}'
    )
    report = import_jsonl(store, text)
    assert [number for number, _ in report.skipped] == [2, 4, 6, 7, 8]
    assert "observations" in dict(report.skipped)[4]
    assert report.ignored == 1
    assert [e["name"] for e in store.read_graph()["entities"]] == ["A", "D"]


def test_import_into_an_existing_graph_adds_missing_observations(store):
    store.create_entities([entity("A", "t", "x")])
    report = import_jsonl(store, '{"type":"entity","name":"A","entityType":"t","observations":["x","y"]}')
    assert (report.entities, report.observations) == (0, 1)
    assert store.open_nodes(["A"])["entities"][0]["observations"] == ["x", "y"]

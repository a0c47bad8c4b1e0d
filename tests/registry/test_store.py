"""The registry store, the same tests against SQLite and PostgreSQL."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from registry.core.errors import NotFoundError, RegistryError
from registry.core.snapshot import compute_digest
from registry.core.versions import semver_key
from registry.storage.records import order_versions
from registry.storage.store import open_store
from tests.conftest import make_snapshot as snapshot_with


def make_snapshot(version: str, tools: list[str], name: str = "demo") -> dict:
    return snapshot_with(
        *({"name": t, "inputSchema": {"type": "object"}} for t in tools),
        name=name,
        title="Demo",
        version=version,
        source={"transport": "stdio", "target": "demo"},
    )


def record(store, snap: dict | None, *, server: str = "demo", at: str = "2026-11-29T18:00:00Z", error=None):
    return store.record_inspection(
        snap, server=server, ok=snap is not None, error=error, started_at=at, duration_s=0.25
    )


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def registry_url(request, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'registry.sqlite'}"
    return request.getfixturevalue("postgres_url")


@pytest.fixture
def store(registry_url):
    with open_store(registry_url) as opened:
        yield opened


def test_unchanged_digest_records_inspection_but_no_new_version(store):
    first = record(store, make_snapshot("1.0.0", ["a"]), at="2026-11-29T18:00:00Z")
    again = make_snapshot("1.0.0", ["a"])
    again["capturedAt"] = "2026-11-30T09:00:00Z"
    second = record(store, again, at="2026-11-30T09:00:00Z")
    assert first.new_version and not second.new_version
    assert first.digest == second.digest and second.version == "1.0.0"
    assert [v.label for v in store.versions("demo")] == ["1.0.0"]
    assert len(store.inspections("demo")) == 2


def test_failed_inspection_is_recorded_with_its_error(store):
    record(store, make_snapshot("1.0.0", ["a"]), at="2026-11-29T18:00:00Z")
    failed = record(store, None, at="2026-11-29T19:00:00Z", error="timed out")
    assert failed.version is None and not failed.new_version
    newest = store.inspections("demo")[0]
    assert (newest.ok, newest.error, newest.version) == (False, "timed out", None)
    summary = store.servers()[0]
    assert (summary.last_ok, summary.last_error, summary.latest_version) == (False, "timed out", "1.0.0")


def test_failed_first_inspection_creates_server_without_versions(store):
    record(store, None, server="never-worked", error="command not found")
    (summary,) = store.servers()
    assert summary.name == "never-worked" and summary.version_count == 0 and summary.latest_version is None
    with pytest.raises(NotFoundError):
        store.snapshot("never-worked")


def test_versions_are_ordered_by_semver_not_first_seen(store):
    for index, version in enumerate(["1.10.0", "1.2.0", "1.2.0-beta.1", "2.0.0", "1.9.9"]):
        record(store, make_snapshot(version, [f"t{index}"]), at=f"2026-11-29T18:00:0{index}Z")
    assert [v.label for v in store.versions("demo")] == ["1.2.0-beta.1", "1.2.0", "1.9.9", "1.10.0", "2.0.0"]
    assert store.snapshot("demo")["server"]["version"] == "2.0.0"
    assert store.servers()[0].latest_version == "2.0.0"


def test_same_label_with_new_digest_gets_a_unique_label(store):
    record(store, make_snapshot("0.1.0", ["a"]))
    changed = record(store, make_snapshot("0.1.0", ["a", "b"]))
    assert changed.new_version and changed.version.startswith("0.1.0+")
    labels = [v.label for v in store.versions("demo")]
    assert labels == ["0.1.0", changed.version]
    assert [t["name"] for t in store.snapshot("demo")["tools"]] == ["a", "b"]
    assert [t["name"] for t in store.snapshot("demo", "0.1.0")["tools"]] == ["a"]


def test_snapshot_by_digest_and_unknown_version(store):
    snap = make_snapshot("3.1.4", ["pi"])
    record(store, snap)
    assert store.snapshot("demo", snap["digest"])["server"]["version"] == "3.1.4"
    with pytest.raises(NotFoundError, match=r"known versions: 3\.1\.4"):
        store.snapshot("demo", "9.9.9")
    with pytest.raises(NotFoundError, match="not in the registry"):
        store.versions("nobody")


def test_stored_snapshot_round_trips_exactly(store):
    snap = make_snapshot("1.0.0", ["a"])
    snap["tools"][0]["x-vendor"] = {"kept": ["as", "sent"]}
    snap["tools"][0]["description"] = "ünïcode ✓"
    snap["digest"] = compute_digest(snap)
    record(store, snap)
    assert store.snapshot("demo", "1.0.0") == snap


def test_a_submitted_digest_is_recomputed_not_trusted(store):
    forged = make_snapshot("1.0.0", ["a"])
    honest_digest = forged["digest"]
    forged["digest"] = "sha256:" + "0" * 64
    assert record(store, forged).digest == honest_digest
    assert store.snapshot("demo")["digest"] == honest_digest


def test_profiles_are_saved_per_version(store):
    record(store, make_snapshot("1.0.0", ["a"]))
    record(store, make_snapshot("1.1.0", ["a", "b"]))
    assert store.profile("demo") is None
    store.save_profile("demo", "1.0.0", {"tokens": 10})
    store.save_profile("demo", "1.0.0", {"tokens": 12})
    store.save_profile("demo", "1.1.0", {"tokens": 20})
    assert store.profile("demo", "1.0.0") == {"tokens": 12}
    assert store.profile("demo") == {"tokens": 20}
    with pytest.raises(NotFoundError):
        store.save_profile("demo", "7.0.0", {})


def test_inspections_are_newest_first_and_limited(store):
    for minute in range(5):
        record(store, make_snapshot("1.0.0", ["a"]), at=f"2026-11-29T18:0{minute}:00Z")
    got = store.inspections("demo", limit=3)
    assert [i.at for i in got] == [f"2026-11-29T18:0{m}:00Z" for m in (4, 3, 2)]
    assert all(i.version == "1.0.0" and i.ok for i in got)


def test_latest_version_carries_its_label_times_and_snapshot(store):
    record(store, make_snapshot("1.10.0", ["a", "b"]), at="2026-11-29T18:00:00Z")
    record(store, make_snapshot("1.9.0", ["a"]), at="2026-11-29T19:00:00Z")
    record(store, None, server="never-worked", error="command not found")
    latest = store.latest_version("demo")
    assert latest.label == "1.10.0" and latest.snapshot == make_snapshot("1.10.0", ["a", "b"])
    assert latest.first_seen <= latest.last_seen and latest.digest == latest.snapshot["digest"]
    assert store.latest_version("never-worked") is None and store.latest_version("nobody") is None


def test_a_new_registry_file_another_process_is_creating_is_opened_once_it_is_free(
    tmp_path, sqlite_file_being_created
):
    path = tmp_path / "registry.sqlite"
    sqlite_file_being_created(path, 0.3)
    with open_store(f"sqlite:///{path}") as store:
        store.record_inspection(
            None, server="demo", ok=False, error="refused", started_at="2026-11-29T18:00:00Z", duration_s=0.1
        )
        assert [server.name for server in store.servers()] == ["demo"]


def test_a_file_that_is_not_a_registry_is_a_registry_error(tmp_path):
    garbage = tmp_path / "notes.txt"
    garbage.write_text("not a database\n" * 100)
    with open_store(f"sqlite:///{garbage}") as store, pytest.raises(RegistryError, match="not a database"):
        store.latest_version("demo")


def test_reading_an_empty_registry_finds_nothing(registry_url):
    with open_store(registry_url) as store:
        assert store.servers() == []
        with pytest.raises(NotFoundError):
            store.snapshot("demo")
        assert store.latest_version("demo") is None


_WRITER = """
import sys
from registry.storage.store import open_store
from tests.registry.test_store import make_snapshot
url, worker = sys.argv[1], int(sys.argv[2])
# Half the writers save the same new version, the others one version each.
version, tools = ("2.0.0", ["shared"]) if worker % 2 == 0 else (f"1.{worker}.0", [f"t{worker}"])
with open_store(url) as store:
    for attempt in range(3):
        store.record_inspection(make_snapshot(version, tools), server="demo", ok=True, error=None,
                                started_at=f"2026-11-29T18:00:{worker:02d}Z", duration_s=0.1)
"""


@pytest.mark.slow
def test_eight_concurrent_writers_leave_one_row_per_distinct_version(registry_url):
    from tests.conftest import REPO

    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, registry_url, str(worker)], cwd=REPO, stderr=subprocess.PIPE
        )
        for worker in range(8)
    ]
    errors = [p.communicate(timeout=120)[1].decode() for p in procs]
    assert [p.returncode for p in procs] == [0] * 8, errors
    with open_store(registry_url) as store:
        labels = [v.label for v in store.versions("demo")]
        assert labels == ["1.1.0", "1.3.0", "1.5.0", "1.7.0", "2.0.0"]
        assert len(store.inspections("demo", limit=100)) == 24
        assert len(store.servers()) == 1


def test_semver_key_follows_semver_precedence():
    ordered = [
        "1.0.0-alpha",
        "1.0.0-alpha.1",
        "1.0.0-alpha.beta",
        "1.0.0-beta.2",
        "1.0.0-beta.11",
        "1.0.0-rc.1",
    ]
    ordered += ["1.0.0", "v1.0.1", "2026.8.31"]
    assert sorted(reversed(ordered), key=semver_key) == ordered
    assert semver_key("1.0.0+build.5") == semver_key("1.0.0")
    assert semver_key("latest") is None and semver_key("1.0") is None


def test_unparsable_labels_keep_first_seen_place():
    from registry.storage.records import VersionRecord

    rows = [
        VersionRecord(label, "d", f"2026-01-0{i}", "", {})
        for i, label in enumerate(["2.0.0", "nightly", "1.0.0"])
    ]
    assert [r.label for r in order_versions(rows)] == ["1.0.0", "nightly", "2.0.0"]


def test_unsupported_registry_url_names_the_fix():
    with pytest.raises(RegistryError, match="sqlite:///PATH or postgresql://"):
        open_store("mysql://localhost/x")


def test_postgres_registry_without_the_driver_names_the_extra_to_install():
    # A plain `pip install mcpdex` has no psycopg; None in sys.modules makes its import fail the same way.
    code = (
        "import sys; sys.modules['psycopg'] = None; from registry.cli import main;"
        "sys.argv = ['mcpdex', 'versions', '--all', '--registry', 'postgresql://dex@127.0.0.1:1/dex']; main()"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert "pip install 'mcpdex[postgres]'" in out.stderr


def test_sqlite_reads_do_not_import_sqlalchemy(tmp_path):
    url = f"sqlite:///{tmp_path / 'r.sqlite'}"
    with open_store(url) as store:
        record(store, make_snapshot("1.0.0", ["a"]))
    code = (
        "import sys, json; from registry.storage.store import open_store; s = open_store(sys.argv[1]);"
        "print(json.dumps([s.snapshot('demo')['server']['version'], 'sqlalchemy' in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code, url], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == ["1.0.0", False]


def _servers_and_statements(store, monkeypatch) -> tuple[list, list[str]]:
    """``store.servers()`` and the SQL it sent: SQLAlchemy's cursor events, or sqlite3's trace."""
    statements: list[str] = []
    if store.url.startswith("sqlite"):
        import sqlite3

        connect = sqlite3.connect

        def traced(*args, **kwargs):
            conn = connect(*args, **kwargs)
            conn.set_trace_callback(statements.append)
            return conn

        with monkeypatch.context() as patch:
            patch.setattr(sqlite3, "connect", traced)
            return store.servers(), statements
    from sqlalchemy import event

    def count(_conn, _cursor, statement, *_):
        statements.append(statement)

    event.listen(store.engine, "before_cursor_execute", count)
    try:
        return store.servers(), statements
    finally:
        event.remove(store.engine, "before_cursor_execute", count)


def test_listing_servers_takes_the_same_statements_for_three_servers_as_for_twelve(store, monkeypatch):
    counts = []
    for total in (3, 12):
        for n in range(len(counts) and 3, total):
            name = f"s{n:02d}"
            record(store, make_snapshot("1.0.0", ["a"], name=name), server=name, at="2026-11-29T18:00:00Z")
            newer = make_snapshot("2.0.0", ["a", "b"], name=name)
            record(store, newer, server=name, at="2026-11-30T18:00:00Z")
            record(store, None, server=name, at="2026-12-01T18:00:00Z", error=f"down {n}")
        summaries, statements = _servers_and_statements(store, monkeypatch)
        counts.append(len(statements))
        assert [s.name for s in summaries] == [f"s{n:02d}" for n in range(total)]
        assert all(s.latest_version == "2.0.0" and s.version_count == 2 for s in summaries)
        assert [s.last_error for s in summaries] == [f"down {n}" for n in range(total)]
        assert all(s.last_ok is False and s.last_inspected_at == "2026-12-01T18:00:00Z" for s in summaries)
    assert counts[0] == counts[1] <= 2, counts


def test_times_an_older_mcpdex_stored_with_an_offset_are_rewritten_in_z_form(registry_url):
    import sqlalchemy as sa

    from registry.storage.schema import tables
    from registry.storage.store import store_engine
    from registry.storage.tokens import TOKENS

    # A database as an older mcpdex left it: no schema_migrations table yet, and times written by
    # isoformat() (+00:00, or another offset) beside times in the Z form, in columns sorted as text.
    engine = sa.create_engine(registry_url.replace("postgresql://", "postgresql+psycopg://", 1))
    t = tables()
    older = [table for table in t.metadata.sorted_tables if table is not t.schema_migrations]
    t.metadata.create_all(engine, tables=older)
    TOKENS.create(engine)
    inspections = {
        1: "2026-11-29T18:00:00+00:00",
        2: "2026-11-29T19:30:00+01:00",  # 18:30 UTC, yet after 18:45Z as text
        3: "2026-11-29T18:45:00Z",
        4: "2026-11-29T18:50:00.900000+00:00",
    }
    with engine.begin() as conn:
        conn.execute(
            sa.text("INSERT INTO servers (id, name, created_at) VALUES (1, 'demo', :at)"),
            {"at": "2026-11-29T17:00:00.250000+00:00"},
        )
        for inspection_id, at in inspections.items():
            conn.execute(
                sa.text(
                    "INSERT INTO inspections (id, server_id, at, ok, error, duration_s) "
                    "VALUES (:id, 1, :at, :ok, 'refused', 0.5)"
                ),
                {"id": inspection_id, "at": at, "ok": False},
            )
        conn.execute(
            sa.text(
                "INSERT INTO registry_entries (name, version, status, published_at, server_json, outcome, "
                "seen_at) VALUES ('demo', '1.0.0', 'active', :published, '{}', 'ok', :seen)"
            ),
            {"published": "2026-11-01T00:00:00+00:00", "seen": "2026-11-29T18:00:00-05:00"},
        )
        conn.execute(
            sa.text(
                "INSERT INTO api_tokens (id, name, scope, secret_sha256, created_at, last_used_at) "
                "VALUES ('0123456789ab', 'ci', '*', 'x', :created, :used)"
            ),
            {"created": "2026-11-29T18:00:00+00:00", "used": "2026-11-29T20:00:00.5-02:00"},
        )
    engine.dispose()

    def stored() -> dict[str, object]:
        with store_engine(store).connect() as conn:
            return {
                "created": conn.execute(sa.text("SELECT created_at FROM servers")).scalar_one(),
                "entry": tuple(
                    conn.execute(sa.text("SELECT published_at, seen_at FROM registry_entries")).one()
                ),
                "token": tuple(
                    conn.execute(sa.text("SELECT created_at, revoked_at, last_used_at FROM api_tokens")).one()
                ),
            }

    with open_store(registry_url) as store:
        store_engine(store)  # opening the schema runs the migrations it has not had
        assert [i.at for i in store.inspections("demo")] == [
            "2026-11-29T18:50:00Z",
            "2026-11-29T18:45:00Z",
            "2026-11-29T18:30:00Z",
            "2026-11-29T18:00:00Z",
        ]
        assert store.servers()[0].last_inspected_at == "2026-11-29T18:50:00Z"
        migrated = stored()
        assert migrated == {
            "created": "2026-11-29T17:00:00.250000Z",  # the microsecond columns keep their fraction
            "entry": ("2026-11-01T00:00:00+00:00", "2026-11-29T23:00:00Z"),  # the registry's own text stays
            "token": ("2026-11-29T18:00:00Z", None, "2026-11-29T22:00:00Z"),
        }
        # Run again (as if its record were lost): what it rewrote is in the Z form and stays as it is.
        with store_engine(store).begin() as conn:
            conn.execute(sa.text("DELETE FROM schema_migrations"))
    with open_store(registry_url) as store:
        store_engine(store)
        assert stored() == migrated
        assert [i.at for i in store.inspections("demo")][-1] == "2026-11-29T18:00:00Z"


def test_an_explicit_label_on_an_unchanged_digest_becomes_an_alias_of_the_stored_version(store):
    first = record(store, make_snapshot("0.6.2", ["a"]))
    labelled = {**make_snapshot("0.6.2", ["a"]), "versionLabel": "2025.4.25"}
    second = record(store, labelled, at="2026-11-30T09:00:00Z")
    assert not second.new_version and second.version == "0.6.2"  # the stored version keeps its label
    assert [v.label for v in store.versions("demo")] == ["0.6.2"]
    assert store.version_digest("demo", "2025.4.25") == first.digest
    assert store.snapshot("demo", "2025.4.25") == store.snapshot("demo", "0.6.2")
    # a label that already names a version is never taken over by an alias
    record(store, make_snapshot("0.7.0", ["a", "b"]))
    record(store, {**make_snapshot("0.6.2", ["a"]), "versionLabel": "0.7.0"})
    assert store.snapshot("demo", "0.7.0")["server"]["version"] == "0.7.0"
    with pytest.raises(NotFoundError):
        store.snapshot("demo", "2025.4.26")

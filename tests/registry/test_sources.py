"""``resolve_snapshot``: file, then URL, then registry entry, then command line; and the published schema."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import jsonschema
import pytest

from registry.commands.sources import resolve_snapshot, split_server_spec
from registry.core.errors import InspectionError, NotFoundError, SnapshotError
from registry.core.snapshot import dump_snapshot, snapshot_schema
from registry.storage.store import open_store
from tests.registry.test_store import make_snapshot

SERVERS = Path(__file__).parent / "servers"


@pytest.fixture
def registry_url(tmp_path) -> str:
    url = f"sqlite:///{tmp_path / 'r.sqlite'}"
    with open_store(url) as store:
        for version, tools in (("1.0.0", ["a"]), ("1.1.0", ["a", "b"])):
            store.record_inspection(
                make_snapshot(version, tools), server="demo", ok=True, error=None,
                started_at="2026-11-29T18:00:00Z", duration_s=0.1,
            )  # fmt: skip
    return url


def test_an_existing_file_is_read_as_a_snapshot(tmp_path, registry_url):
    path = tmp_path / "demo"  # named like the registry entry: the file still wins
    dump_snapshot(make_snapshot("9.0.0", ["z"]), path)
    assert resolve_snapshot(str(path), registry_url=registry_url)["server"]["version"] == "9.0.0"


def test_name_and_name_at_version_come_from_the_registry(registry_url):
    assert [t["name"] for t in resolve_snapshot("demo", registry_url=registry_url)["tools"]] == ["a", "b"]
    assert [t["name"] for t in resolve_snapshot("demo@1.0.0", registry_url=registry_url)["tools"]] == ["a"]
    with pytest.raises(NotFoundError, match=r"demo@2\.0\.0 is not in the registry"):
        resolve_snapshot("demo@2.0.0", registry_url=registry_url)
    with pytest.raises(NotFoundError, match="'ghost' is not in the registry"):
        resolve_snapshot("ghost@1.0.0", registry_url=registry_url)


def test_anything_else_is_a_command_line(registry_url):
    command = shlex.join([sys.executable, str(SERVERS / "invalid_input_schema.py")])
    snapshot = resolve_snapshot(command, registry_url=registry_url, timeout=20)
    assert snapshot["source"]["transport"] == "stdio" and len(snapshot["tools"]) == 5


def test_unknown_single_word_is_run_as_a_command(registry_url):
    with pytest.raises(InspectionError, match="command 'ghost-server' not found"):
        resolve_snapshot("ghost-server", registry_url=registry_url)


def test_a_file_that_is_not_a_snapshot_names_the_fix(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "other"}')
    with pytest.raises(SnapshotError, match="field 'format'"):
        resolve_snapshot(str(bad))


def test_split_server_spec_keeps_scoped_names():
    assert split_server_spec("memory-server@0.6.3") == ("memory-server", "0.6.3")
    assert split_server_spec("@org/server") == ("@org/server", None)
    assert split_server_spec("@org/server@1.0.0") == ("@org/server", "1.0.0")
    assert split_server_spec("plain") == ("plain", None)


def test_inspected_snapshots_validate_against_the_published_schema():
    snapshot = resolve_snapshot(shlex.join([sys.executable, str(SERVERS / "junk_on_stdout.py")]), timeout=20)
    jsonschema.validate(snapshot, snapshot_schema())
    snapshot["source"]["env"] = {"TOKEN": "leaked"}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(snapshot, snapshot_schema())

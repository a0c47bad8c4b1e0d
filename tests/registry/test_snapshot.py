import json

import pytest

from registry.core.errors import SnapshotError
from registry.core.snapshot import (
    SNAPSHOT_FORMAT,
    compute_digest,
    dump_snapshot,
    load_snapshot,
    parse_snapshot,
    server_version,
)
from tests.conftest import make_snapshot


def _snapshot(**extra):
    # Without prompts, problems and a digest: filling those in is parse_snapshot's job, tested below.
    return make_snapshot(
        {"name": "echo", "inputSchema": {"type": "object"}},
        without=("prompts", "problems", "digest"),
        **extra,
    )


def test_digest_ignores_capture_time_source_and_key_order():
    a = _snapshot()
    b = json.loads(json.dumps(_snapshot(capturedAt="2027-01-01T00:00:00Z", source={})))
    b["tools"] = [{"inputSchema": {"type": "object"}, "name": "echo"}]
    assert compute_digest(a) == compute_digest(b)


def test_digest_changes_when_a_tool_changes():
    changed = _snapshot(tools=[{"name": "echo", "inputSchema": {"type": "object"}, "title": "Echo"}])
    assert compute_digest(_snapshot()) != compute_digest(changed)


def test_round_trip_through_a_file_is_sorted_and_stable(tmp_path):
    path = tmp_path / "mcpdex.lock.json"
    dump_snapshot(_snapshot(), path)
    text = path.read_text()
    assert text.endswith("}\n") and text.index('"capturedAt"') < text.index('"format"')
    loaded = load_snapshot(path)
    assert loaded["digest"] == compute_digest(_snapshot())
    assert loaded["problems"] == [] and loaded["prompts"] == []


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("{nope", "not JSON"),
        ("[]", "JSON object"),
        (json.dumps({"format": "other/1"}), "field 'format'"),
        (json.dumps({"format": SNAPSHOT_FORMAT, "tools": {}}), "field 'tools' must be a list"),
        (json.dumps({"format": SNAPSHOT_FORMAT, "tools": [{"title": "x"}]}), "tools[0]"),
    ],
)
def test_bad_documents_name_the_field(text, fragment):
    with pytest.raises(SnapshotError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        parse_snapshot(text, origin="x.json")


def test_missing_file_says_so(tmp_path):
    with pytest.raises(SnapshotError, match="no such file"):
        load_snapshot(tmp_path / "absent.json")


def test_version_label_wins_over_server_info():
    assert server_version(_snapshot()) == "1.0.0"
    assert server_version(_snapshot(versionLabel="2.0.0")) == "2.0.0"
    assert server_version({"server": {}}) == "unversioned"

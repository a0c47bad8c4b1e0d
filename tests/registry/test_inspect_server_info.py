"""Every serverInfo field a server sends is kept in its snapshot and shown on its page."""

from __future__ import annotations

import sys
from pathlib import Path

from registry.core.snapshot import snapshot_schema
from registry.inspecting.inspect import inspect
from registry.inspecting.targets import Target
from registry.site.server_data import ServerData
from registry.site.writer import render_server_report

SERVERS = Path(__file__).parent / "servers"


def test_server_info_description_and_website_are_kept_and_shown() -> None:
    target = Target(transport="stdio", argv=[sys.executable, str(SERVERS / "describes_itself.py")])
    snapshot = inspect(target, timeout=15)
    server = snapshot["server"]
    assert server["description"] == "Looks words up in a dictionary."
    assert server["websiteUrl"] == "https://example.com/dict"
    assert (server["name"], server["version"]) == ("described", "0.0.1")
    from jsonschema import Draft202012Validator

    Draft202012Validator(snapshot_schema()).validate(snapshot)
    page = render_server_report(
        ServerData(name="described", snapshot=snapshot, versions=[], scorecard=None, inspections=[])
    )
    assert "Looks words up in a dictionary." in page and "https://example.com/dict" in page

"""`mcpdex probe` as a command against our memory server over streamable HTTP, and saving to PostgreSQL."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# The smallest graph the command accepts: the conformance checks do not depend on it.
SIZES = "3"


def probe_json(*args: str) -> dict:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "registry",
            "probe",
            "--allow-writes",
            "--format",
            "json",
            "--sizes",
            SIZES,
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def outcomes(profile: dict) -> dict[str, str]:
    return {row["id"]: row["outcome"] for row in profile["conformance"]["checks"]}


@pytest.mark.slow
def test_probe_over_streamable_http_has_the_outcomes_it_has_over_stdio(memory_http, tmp_path: Path) -> None:
    over_http = probe_json(memory_http)
    over_stdio = probe_json("--", sys.executable, "-m", "registry", "memory", "--db", str(tmp_path / "g.db"))
    assert outcomes(over_http) == outcomes(over_stdio)
    assert set(outcomes(over_http).values()) == {"pass"}
    assert over_http["leftovers"] == [] and over_http["preexisting"] == {"entities": 0, "relations": 0}
    assert [size["entities"] for size in over_http["tokenCost"]["sizes"]] == [3]


@pytest.mark.slow
@pytest.mark.postgres
def test_probe_saves_the_profile_in_a_postgresql_registry(memory_http, postgres_url: str) -> None:
    from registry.storage.store import open_store

    printed = probe_json("--save", "--registry", postgres_url, memory_http)
    with open_store(postgres_url) as store:
        assert store.profile("mcpdex-memory") == printed
        [version] = store.versions("mcpdex-memory")
        assert store.profile("mcpdex-memory", version.label) == printed
        assert [i.ok for i in store.inspections("mcpdex-memory")] == [True]

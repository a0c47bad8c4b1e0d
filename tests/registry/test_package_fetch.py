"""Registry packages in two phases (registry/inspecting/official/fetch.py), with real npm and PyPI
packages: fetched with install scripts off into a folder of their own, then run offline in the
sandbox with only that folder readable.

- esbuild's postinstall replaces its JavaScript launcher ``bin/esbuild`` with the native binary: a
  write into its own folder that shows whether the script ran (npm's own install, the control, runs it);
- docopt 0.6.2 is published only as an sdist, so it cannot be fetched without a build;
- semver and which are two small packages with a command each, fetched side by side.

Needs bubblewrap and the network (to npm and PyPI); where no sandbox can be made these tests skip,
except in CI, where they fail.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from registry.inspecting.inspect import inspect
from registry.inspecting.official.fetch import PackageSpec, fetch, package_folder
from registry.inspecting.official.launch import runner_environment
from registry.inspecting.sandbox import SandboxPolicy
from registry.inspecting.targets import Target
from tests.registry.conftest import HOSTILE, hostile_report

pytestmark = [pytest.mark.usefixtures("bubblewrap"), pytest.mark.slow]

ESBUILD = PackageSpec("npm", "esbuild", "0.24.0")
NATIVE = b"\x7fELF"


def test_a_postinstall_script_is_not_run_when_a_package_is_fetched(tmp_path):
    with package_folder() as folder:
        fetched = fetch(ESBUILD, folder, runner_environment())
        launcher = folder / "node_modules" / "esbuild" / "bin" / "esbuild"
        assert launcher.read_bytes().startswith(b"#!/usr/bin/env node"), "the postinstall ran"
        assert fetched.argv == [str(folder / "node_modules" / ".bin" / "esbuild")]
        assert fetched.unrun_scripts == ["esbuild@0.24.0 postinstall"]
        # Its download cache is its own, inside its folder.
        assert (folder / "npm-cache").is_dir()
    assert not folder.exists(), "the package's folder outlived its fetch"

    # The control: npm's own install runs the same postinstall, which replaces the launcher.
    subprocess.run(
        ["npm", "install", "--prefix", str(tmp_path), "--cache", str(tmp_path / "cache"), "--no-audit",
         "--no-fund", "--loglevel=error", ESBUILD.requirement],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    assert (tmp_path / "node_modules" / "esbuild" / "bin" / "esbuild").read_bytes().startswith(NATIVE)


def test_a_second_package_cannot_read_or_write_what_the_first_fetched():
    """Two packages fetched side by side (as a crawl does): the hostile server, run under the policy
    the second package's command gets, tries the first package's files."""
    env = runner_environment()
    with package_folder() as first, package_folder() as second:
        first_fetched = fetch(PackageSpec("npm", "semver", "7.6.3"), first, env)
        second_fetched = fetch(PackageSpec("npm", "which", "4.0.0"), second, env)
        assert first != second and (first / "npm-cache").is_dir() and (second / "npm-cache").is_dir()
        written = first / "node_modules" / "written-by-the-second"

        def tried(fetched, file: Path) -> dict[str, str]:  # type: ignore[no-untyped-def]
            target = Target(
                transport="stdio",
                argv=HOSTILE,
                env={"HOSTILE_CANARY": str(file), "HOSTILE_WRITE": str(written)},
                sandbox=fetched.policy(SandboxPolicy()),
            )
            return hostile_report(inspect(target, timeout=30, protocol_era="legacy"))

        manifest = first / "node_modules" / "semver" / "package.json"
        under_second = tried(second_fetched, manifest)
        assert under_second["canary"] == "blocked (FileNotFoundError)", under_second
        assert under_second["write"].startswith("blocked"), under_second
        assert not written.exists()
        # The control: under the first package's own policy its files are there to read.
        under_first = tried(first_fetched, manifest)
        assert json.loads(under_first["canary"])["name"] == "semver", under_first


def registry_dump(tmp_path: Path, *packages: dict) -> Path:
    meta = {"io.modelcontextprotocol.registry/official": {"status": "active", "isLatest": True}}
    servers = [
        {"server": {"name": f"io.github.test/{package['identifier']}", "description": "A test entry.",
                    "version": package["version"], "packages": [package | {"transport": {"type": "stdio"}}]},
         "_meta": meta}
        for package in packages
    ]  # fmt: skip
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps({"servers": servers, "metadata": {"count": len(servers)}}))
    return dump


def test_a_crawl_reports_an_sdist_build_and_skipped_install_scripts_as_failed_inspections(tmp_path):
    dump = registry_dump(
        tmp_path,
        {"registryType": "pypi", "identifier": "docopt", "version": "0.6.2"},
        # esbuild is no MCP server: asked for its version it prints it and exits.
        {"registryType": "npm", "identifier": "esbuild", "version": ESBUILD.version,
         "packageArguments": [{"type": "positional", "value": "--version"}]},
    )  # fmt: skip
    result = subprocess.run(
        [sys.executable, "-m", "registry", "crawl", "--from-registry", str(dump), "--format", "json",
         "--timeout", "20", "--concurrency", "2"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr  # every inspection failed
    reasons = {entry["name"]: entry["reason"] for entry in json.loads(result.stdout)["entries"]}
    assert reasons["io.github.test/docopt"].startswith(
        "docopt has no wheel for this platform and needs an sdist build"
    ), reasons
    assert "--sandbox off builds it" in reasons["io.github.test/docopt"]
    assert "its install scripts were not run: esbuild@0.24.0 postinstall" in reasons["io.github.test/esbuild"]


def test_a_queued_registry_package_is_fetched_then_run_offline_by_the_worker(tmp_path):
    """The job of esbuild's entry, run by a sandboxed worker's runner, goes through the same fetch as
    crawl: its failure names the postinstall it did not run (npx -y would have run it)."""
    from registry.commands.crawl import _plan_registry
    from registry.inspecting.official.launch import Inputs
    from registry.queue.jobs import InspectJob, JobRunner
    from registry.queue.passes import crawl_jobs
    from registry.storage.store import open_store

    dump = registry_dump(
        tmp_path,
        {"registryType": "npm", "identifier": "esbuild", "version": ESBUILD.version,
         "packageArguments": [{"type": "positional", "value": "--version"}]},
    )  # fmt: skip
    plans, _ = _plan_registry(
        str(dump), None, all_versions=False, updated_since=None, force=False, inputs=Inputs(), sandboxed=True
    )
    (plan,) = plans
    (job,) = crawl_jobs("p1", {plan.entry.key: plan.target}, names={plan.entry.key: plan.entry.name},
                        labels={}, plans=plans, timeout=20, protocol_era="auto", attempts=1)  # fmt: skip
    job = InspectJob.from_payload(json.loads(json.dumps(job.payload())))
    with open_store(f"sqlite:///{tmp_path / 'r.sqlite'}") as store:
        assert JobRunner(store).run(job, attempt=0) is not None
        (inspection,) = store.inspections(plan.entry.name)
        (entry,) = store.registry_entries()
    assert not inspection.ok
    assert "its install scripts were not run: esbuild@0.24.0 postinstall" in (inspection.error or "")
    assert entry.outcome == "failed" and entry.reason == inspection.error

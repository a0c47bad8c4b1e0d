"""The published API is the enforced API: schemathesis runs every check it has against a live
`mcpdex serve` from the service's own OpenAPI document (a bounded number of examples, a fixed seed),
and the cases it found are pinned here, each accepted or refused as the document says."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest

from registry.storage.store import open_store
from registry.storage.tokens import open_tokens
from tests.conftest import REPO
from tests.registry import test_serve
from tests.registry.conftest import free_port
from tests.registry.test_serve import SERVER, bearer, error_code, make_snapshot, submit

registry_url, secrets, client = test_serve.registry_url, test_serve.secrets, test_serve.client

_EXAMPLES = 40  # per operation and phase; with the seed below, the run takes about half a minute
_SEED = 26


@pytest.fixture(scope="module")
def live_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """`mcpdex serve` on a free port over a fresh SQLite registry holding one server; (base URL, token)."""
    folder = tmp_path_factory.mktemp("serve")
    url = f"sqlite:///{folder / 'registry.sqlite'}"
    store = open_store(url)
    secret = open_tokens(store).create("contract")[1]
    store.close()
    port = free_port()
    log = (folder / "serve.log").open("w")
    env = os.environ | {"MCPDEX_DATA_DIR": str(folder / "data")}
    command = [sys.executable, "-m", "registry", "serve", "--registry", url, "--port", str(port)]
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, (folder / "serve.log").read_text()
            try:
                httpx.get(f"{base}/api/limits", timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "mcpdex serve did not listen within 60 s"
                time.sleep(0.2)
        answer = httpx.post(
            f"{base}/api/servers/{SERVER}/inspections", json=make_snapshot("1.0.0"), headers=bearer(secret)
        )
        assert answer.status_code == 201, answer.text
        yield base, secret
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


@pytest.mark.slow
def test_schemathesis_finds_no_failure_on_the_live_service(
    live_service: tuple[str, str], tmp_path: Path
) -> None:
    base, secret = live_service
    schemathesis = shutil.which("schemathesis", path=str(Path(sys.executable).parent))
    assert schemathesis, "schemathesis comes with the test extra: pip install -e '.[test]'"
    done = subprocess.run(
        [
            schemathesis,
            "--config-file",
            str(REPO / "tests" / "registry" / "schemathesis.toml"),
            "run",
            f"{base}/api/openapi.json",
            "--checks",
            "all",
            "--max-examples",
            str(_EXAMPLES),
            "--seed",
            str(_SEED),
            "--workers",
            "1",
            "--generation-database",
            "none",
            "--no-color",
        ],
        capture_output=True,
        text=True,
        timeout=540,
        cwd=tmp_path,
        env=os.environ
        | {
            "SCHEMATHESIS_HOOKS": "tests.registry.schemathesis_hooks",
            "PYTHONPATH": str(REPO),
            "MCPDEX_CONTRACT_TOKEN": secret,
        },
        check=False,
    )
    summary = done.stdout[-6000:]
    assert done.returncode == 0, summary + done.stderr[-2000:]
    generated = re.search(r"(\d+) generated", done.stdout)
    assert generated and int(generated.group(1)) >= 200, summary  # the run did test something


# ------------------------------------------------------------------ the cases it found


def _document(client: Any) -> dict[str, Any]:
    return client.get("/api/openapi.json").json()


def _operation(document: dict[str, Any], path: str, method: str) -> dict[str, Any]:
    operation: dict[str, Any] = document["paths"][path][method]
    return operation


def _param_schema(document: dict[str, Any], path: str, name: str) -> dict[str, Any]:
    for param in _operation(document, path, "get")["parameters"]:
        if param["name"] == name:
            schema: dict[str, Any] = param["schema"]
            return schema
    raise AssertionError(name)


def _component_validator(document: dict[str, Any], name: str) -> jsonschema.protocols.Validator:
    schema = {"$ref": f"#/components/schemas/{name}", "components": document["components"]}
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


@pytest.mark.parametrize(
    ("tier", "accepted"),
    [("A", True), ("a, b", True), ("A,,F", True), ("", True), ("E", False), ("AB", False), ("A\n", False)],
)
def test_the_tier_filter_takes_what_its_published_pattern_takes(client, tier: str, accepted: bool) -> None:
    schema = _param_schema(_document(client), "/api/servers", "tier")
    assert jsonschema.Draft202012Validator(schema).is_valid(tier) is accepted
    answer = client.get("/api/servers", params={"tier": tier})
    assert answer.status_code == (200 if accepted else 400), answer.text


def test_paging_and_the_name_filter_are_bounded_as_published(client) -> None:
    document = _document(client)
    page = _param_schema(document, "/api/servers", "page")
    assert client.get("/api/servers", params={"page": page["maximum"]}).status_code == 200
    assert client.get("/api/servers", params={"page": page["maximum"] + 1}).status_code == 400
    longest = _param_schema(document, "/api/servers", "q")["maxLength"]
    assert client.get("/api/servers", params={"q": " " * longest}).status_code == 200
    assert client.get("/api/servers", params={"q": " " * (longest + 1)}).status_code == 400


@pytest.mark.parametrize(
    ("label", "accepted"),
    [
        ("1.0.0", True),
        ("2026.1 beta", True),
        ("x" * 128, True),
        ("x" * 129, False),
        ("1.0\u0090", False),
        ("1.0\u200b", False),
        ("1.0\n", False),
        ("v\u00a01", False),
        ("1.0\u202e", False),
    ],
)
def test_a_version_label_is_recorded_when_the_published_schema_says_so(
    client, secrets, label: str, accepted: bool
) -> None:
    validator = _component_validator(_document(client), "Snapshot")
    for snapshot in (make_snapshot("1.0.0") | {"versionLabel": label}, make_snapshot(label)):
        assert validator.is_valid(snapshot) is accepted, (label, snapshot.get("versionLabel"))
        answer = submit(client, secrets["all"], snapshot)
        assert answer.status_code in ((200, 201) if accepted else (422,)), answer.text
        if accepted:
            assert answer.json()["version"] == label
        else:
            assert error_code(answer) == "invalid_snapshot"


def test_a_label_overrides_a_server_version_that_could_not_be_one(client, secrets) -> None:
    snapshot = make_snapshot("\u0090") | {"versionLabel": "1.0.0"}
    assert _component_validator(_document(client), "Snapshot").is_valid(snapshot)
    assert submit(client, secrets["all"], snapshot).status_code == 201


@pytest.mark.parametrize(
    ("body", "accepted"),
    [
        ({"ok": False, "error": "did not start"}, True),
        ({"ok": False, "error": "did not start", "snapshot": None, "durationS": 1.5}, True),
        ({"ok": False, "error": ""}, False),
        ({"ok": False}, False),
        ({"ok": False, "error": "x", "snapshot": make_snapshot("1.0.0")}, False),
        ({"ok": True, "snapshot": make_snapshot("1.0.0")}, True),
        ({"ok": True, "snapshot": make_snapshot("1.0.0"), "error": ""}, True),
        ({"ok": True, "snapshot": make_snapshot("1.0.0"), "error": "but"}, False),
        ({"ok": True}, False),
        ({"ok": False, "error": "a\u0000b"}, False),
    ],
)
def test_an_inspection_outcome_is_one_of_the_published_shapes(
    client, secrets, body: dict[str, Any], accepted: bool
) -> None:
    assert _component_validator(_document(client), "Submission").is_valid(body) is accepted
    answer = submit(client, secrets["all"], body)
    assert (answer.status_code in (200, 201)) is accepted, answer.text


def test_a_time_before_year_1000_is_stored_with_four_digits(client, secrets) -> None:
    answer = submit(
        client, secrets["all"], {"ok": False, "error": "down", "startedAt": "0824-06-12T01:56:08Z"}
    )
    assert answer.status_code == 200, answer.text
    inspections = client.get(f"/api/servers/{SERVER}").json()["inspections"]
    assert any(row["at"] == "0824-06-12T01:56:08Z" for row in inspections), inspections


def test_a_snapshot_whose_server_is_not_an_object_is_422_not_500(client, secrets) -> None:
    snapshot = make_snapshot("1.0.0") | {"server": [None, None]}
    for path in ("inspections", "compatibility"):
        answer = client.post(f"/api/servers/{SERVER}/{path}", json=snapshot, headers=bearer(secrets["all"]))
        assert answer.status_code == 422, answer.text


def test_a_server_without_tools_is_recorded_and_its_score_read(client, secrets) -> None:
    snapshot = make_snapshot("1.0.0")
    snapshot["tools"] = []
    from registry.core.snapshot import compute_digest

    snapshot["digest"] = compute_digest(snapshot)
    assert submit(client, secrets["all"], snapshot).status_code == 201
    score = client.get(f"/api/servers/{SERVER}/score")
    assert score.status_code == 200, score.text


def test_a_body_that_is_not_json_is_a_documented_415(client, secrets) -> None:
    document = _document(client)
    for path in ("inspections", "compatibility"):
        operation = _operation(document, f"/api/servers/{{name}}/{path}", "post")
        assert "415" in operation["responses"]
        answer = client.post(
            f"/api/servers/{SERVER}/{path}",
            content=b"name=x",
            headers={**bearer(secrets["all"]), "content-type": "application/x-www-form-urlencoded"},
        )
        assert answer.status_code == 415, answer.text

"""The service's per-server limits and stored scores: no request does work the input can make unbounded."""

from __future__ import annotations

import copy
import statistics
import time
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from registry.core.limits import Limits
from registry.core.snapshot import compute_digest
from registry.storage.store import open_store
from registry.web.app import create_app
from tests.registry.test_serve import SERVER, error_code, make_snapshot, submit

SMALL = Limits(max_tools=3, max_schema_bytes=2_000, max_schema_depth=8, max_description_chars=500)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def registry_url(request: pytest.FixtureRequest, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'registry.sqlite'}"
    return request.getfixturevalue("postgres_url")


def app_client(registry_url: str, **options: Any) -> TestClient:
    return TestClient(create_app(registry_url, **options))


@pytest.fixture
def small(registry_url: str) -> Iterator[TestClient]:
    with app_client(registry_url, limits=SMALL) as client:
        yield client


def nested(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth - 1):
        schema = {"type": "object", "properties": {"inner": schema}}
    return schema


def past(limit: str) -> tuple[dict[str, Any], str]:
    """A snapshot past ``limit`` of SMALL, and the field the refusal must name."""
    snapshot = make_snapshot()
    tool = snapshot["tools"][0]
    if limit == "max_tools":
        snapshot["tools"] += [dict(copy.deepcopy(tool), name=f"more_{i}") for i in range(3)]
        field = "/tools has 4 tools"
    elif limit == "max_schema_bytes":
        for i in range(2):
            snapshot["tools"].append(dict(copy.deepcopy(tool), name=f"wide_{i}"))
            snapshot["tools"][-1]["inputSchema"]["properties"]["pad"] = {"description": "p" * 1000}
        field = "/tools/2/inputSchema has 2,"
    elif limit == "max_schema_depth":
        tool["inputSchema"]["properties"]["deep"] = nested(9)
        field = "/tools/0/inputSchema has more than 8 levels"
    else:
        tool["description"] = "d" * 501
        field = "/tools/0/description has 501 characters"
    snapshot["digest"] = compute_digest(snapshot)
    return snapshot, field


LIMIT_NAMES = ["max_tools", "max_schema_bytes", "max_schema_depth", "max_description_chars"]


@pytest.mark.parametrize("limit", LIMIT_NAMES)
def test_a_submission_past_a_limit_is_422_naming_the_field_and_the_limit(small, registry_url, limit) -> None:
    token = _token(registry_url)
    snapshot, field = past(limit)
    response = submit(small, token, snapshot)
    assert response.status_code == 422 and error_code(response) == "over_limit"
    message = response.json()["error"]["message"]
    assert field in message and f"({limit})" in message, message
    assert small.get("/api/servers").json()["total"] == 0
    # The envelope form is held to the same limits.
    response = submit(small, token, {"ok": True, "snapshot": snapshot})
    assert response.status_code == 422 and error_code(response) == "over_limit"


@pytest.mark.parametrize("limit", ["max_tools", "max_schema_depth", "max_description_chars"])
def test_a_compatibility_candidate_past_a_limit_is_422_without_a_token(small, registry_url, limit) -> None:
    submit(small, _token(registry_url), make_snapshot())
    candidate, field = past(limit)
    response = small.post(f"/api/servers/{SERVER}/compatibility", json=candidate)
    assert response.status_code == 422 and error_code(response) == "over_limit"
    assert field in response.json()["error"]["message"]


def test_the_limits_in_force_are_published(small) -> None:
    assert small.get("/api/limits").json() == SMALL.as_dict()
    documented = small.get("/api/openapi.json").json()["paths"]["/api/limits"]["get"]
    assert documented["operationId"] == "getLimits"


def many_tools(count: int, server: str) -> dict[str, Any]:
    snapshot = make_snapshot()
    snapshot["server"]["name"] = server
    snapshot["tools"] = [
        {"name": f"tool_{i:05d}", "description": "Gets it.", "inputSchema": {"type": "object"}}
        for i in range(count)
    ]
    snapshot["digest"] = compute_digest(snapshot)
    return snapshot


def test_the_default_limits_take_10000_tools_and_refuse_10001(registry_url) -> None:
    token = _token(registry_url)
    with app_client(registry_url, score_budget_s=1.0) as client:
        response = submit(client, token, many_tools(10_001, "acme-huge"), server="acme-huge")
        assert response.status_code == 422 and "over the limit of 10,000 (max_tools)" in response.text
        assert submit(client, token, many_tools(10_000, "acme-huge"), server="acme-huge").status_code == 201


def test_a_compatibility_check_costs_time_linear_in_the_candidate(registry_url) -> None:
    token = _token(registry_url)
    with app_client(registry_url, max_body_bytes=8 * 1024 * 1024) as client:
        submit(client, token, make_snapshot())
        took = {}
        for count in (1_000, 10_000):
            body = many_tools(count, SERVER)
            started = time.perf_counter()
            response = client.post(f"/api/servers/{SERVER}/compatibility", json=body)
            took[count] = time.perf_counter() - started
            assert response.status_code == 200 and response.json()["counts"]
    # Ten times the tools: about ten times the work (all pairs would be a hundred), never many seconds.
    assert took[10_000] < 30 * took[1_000] and took[10_000] < 15, took


def _median_latency(client: TestClient, path: str, rounds: int = 15) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        assert client.get(path).status_code == 200
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def test_list_and_other_tenants_pages_are_not_held_up_by_a_10000_tool_submission(registry_url) -> None:
    store = open_store(registry_url)
    from registry.storage.tokens import open_tokens

    tokens = open_tokens(store)
    acme, other = tokens.create("acme-ci", "acme-*")[1], tokens.create("other-ci", "other-*")[1]
    store.close()
    with app_client(registry_url) as client:
        for index in range(10):
            snapshot = make_snapshot(f"1.0.{index}")
            snapshot["server"]["name"] = f"other-{index}"
            submit(client, other, snapshot, server=f"other-{index}")
        client.get("/")  # the pages are built once before measuring
        before = _median_latency(client, "/api/servers")
        started = time.perf_counter()
        response = submit(client, acme, many_tools(10_000, "acme-huge"), server="acme-huge")
        submitted = time.perf_counter() - started
        assert response.status_code == 201
        after = _median_latency(client, "/api/servers")
        started = time.perf_counter()
        page = client.get("/servers/other-3/")
        index = client.get("/")
        other_pages = time.perf_counter() - started
    assert page.status_code == 200 and "search_notes" in page.text and "acme-huge" in index.text
    # The submission waits at most 10 s for its scoring; the list reads stored results only.
    assert submitted < 20, f"the 10,000-tool submission took {submitted:.1f} s"
    assert after < max(3 * before, before + 0.1), f"list latency {before * 1000:.1f} → {after * 1000:.1f} ms"
    assert other_pages < 2, f"another tenant's pages took {other_pages:.1f} s"


def test_a_version_recorded_by_the_cli_is_scored_by_the_background_job(registry_url) -> None:
    store = open_store(registry_url)
    snapshot = make_snapshot()
    store.record_inspection(
        snapshot, server=SERVER, ok=True, error=None, started_at="2026-11-29T18:00:00Z", duration_s=1.0
    )
    store.close()
    with app_client(registry_url, score_poll_s=0.2) as client:
        deadline = time.monotonic() + 20
        while (response := client.get(f"/api/servers/{SERVER}/score")).status_code == 503:
            assert error_code(response) == "score_pending" and response.headers["retry-after"]
            assert time.monotonic() < deadline, "the background job never scored the version"
            time.sleep(0.1)
        assert response.status_code == 200 and response.json()["tools"][0]["name"] == "search_notes"
        tier = response.json()["server_score"]["tier"]
        time.sleep(1.1)  # the list is reused for a second
        assert client.get("/api/servers").json()["servers"][0]["score"]["tier"] == tier
    with open_store(registry_url) as reopened:
        from scoring.scorecard import scorer_key

        assert reopened.stored_score(SERVER, snapshot["digest"], scorer_key()).scorecard == response.json()


def test_a_scoring_past_its_budget_is_stopped_and_the_version_noted_unscored(registry_url) -> None:
    store = open_store(registry_url)
    snapshot = many_tools(3_000, SERVER)
    store.record_inspection(
        snapshot, server=SERVER, ok=True, error=None, started_at="2026-11-29T18:00:00Z", duration_s=1.0
    )
    store.close()
    with app_client(registry_url, score_poll_s=0.2, score_budget_s=0.05) as client:
        deadline = time.monotonic() + 20
        while (response := client.get(f"/api/servers/{SERVER}/score")).status_code == 503:
            assert time.monotonic() < deadline, "the over-budget scoring was never stopped"
            time.sleep(0.1)
        assert response.status_code == 422 and error_code(response) == "not_scored"
        assert "took longer than 0.05 s" in response.json()["error"]["message"]
        time.sleep(1.1)
        listed = client.get("/api/servers").json()["servers"][0]
        assert listed["name"] == SERVER and listed["score"] is None


def test_a_resubmitted_version_keeps_its_stored_score(registry_url) -> None:
    token = _token(registry_url)
    with app_client(registry_url) as client:
        assert submit(client, token, make_snapshot()).status_code == 201
        first = client.get(f"/api/servers/{SERVER}/score")
        assert first.status_code == 200
        assert submit(client, token, make_snapshot()).status_code == 200
        assert client.get(f"/api/servers/{SERVER}/score").json() == first.json()
    engine_store = open_store(registry_url)
    from registry.storage.schema import tables
    from registry.storage.store import store_engine

    with store_engine(engine_store).connect() as conn:
        assert len(conn.execute(tables().scores.select()).all()) == 1
    engine_store.close()


def _token(registry_url: str) -> str:
    from registry.storage.tokens import open_tokens

    store = open_store(registry_url)
    try:
        return open_tokens(store).create(f"all-{time.monotonic_ns()}")[1]
    finally:
        store.close()

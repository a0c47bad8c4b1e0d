"""The HTTP service's API: reads, submissions, compatibility, auth, limits, caching, hostile input."""

from __future__ import annotations

import copy
import json
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from registry.core.snapshot import compute_digest
from registry.core.templating import render
from registry.storage.client import RegistryClient
from registry.storage.records import Recorded, SubmissionKey
from registry.storage.store import open_store
from registry.storage.tokens import open_tokens
from registry.web.app import create_app
from registry.web.openapi import ENDPOINTS
from tests.conftest import make_snapshot as snapshot_with

SERVER = "acme-notes"


def make_snapshot(
    version: str = "1.0.0", *, limit_required: bool = False, extra_tool: str | None = None
) -> dict:
    """A small snapshot of a note-taking server; the switches make breaking and additive versions."""
    search = {
        "name": "search_notes",
        "title": "Search notes",
        "description": "Search the notes by words in their title or body. Returns at most `limit` notes, "
        "newest first. Read-only.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Words to look for."},
                "limit": {"type": "integer", "minimum": 1, "description": "Most notes to return."},
            },
            "required": ["query", "limit"] if limit_required else ["query"],
        },
        "annotations": {"readOnlyHint": True},
    }
    tools: list[dict[str, Any]] = [search]
    if extra_tool:
        tools.append(
            {
                "name": extra_tool,
                "description": f"{extra_tool} one note by its id; fails when no note has that id.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"id": {"type": "string"}},
                    "required": ["id"],
                },
            }
        )
    return snapshot_with(
        *tools,
        name=SERVER,
        title="Acme Notes",
        version=version,
        source={"transport": "stdio", "target": "acme-notes --stdio"},
    )


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def registry_url(request: pytest.FixtureRequest, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'registry.sqlite'}"
    return request.getfixturevalue("postgres_url")


@pytest.fixture
def secrets(registry_url: str) -> dict[str, str]:
    """Tokens by role: ``all`` (scope *), ``acme`` (acme-*), ``revoked``."""
    store = open_store(registry_url)
    tokens = open_tokens(store)
    made = {
        "all": tokens.create("everything")[1],
        "acme": tokens.create("acme-ci", "acme-*")[1],
        "revoked": tokens.create("old")[1],
    }
    tokens.revoke("old")
    store.close()
    return made


@pytest.fixture
def client(registry_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(registry_url, max_body_bytes=64 * 1024)) as test_client:
        yield test_client


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def submit(client: TestClient, secret: str, body: Any, server: str = SERVER, key: str | None = None) -> Any:
    headers = bearer(secret) | ({"Idempotency-Key": key} if key is not None else {})
    return client.post(f"/api/servers/{server}/inspections", json=body, headers=headers)


def error_code(response: Any) -> str:
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body["error"]) == {"code", "message"} and body["error"]["message"]
    return body["error"]["code"]


# ------------------------------------------------------------------ submissions


def test_submission_of_a_new_digest_is_201_and_a_repeat_is_200(client, secrets) -> None:
    first = submit(client, secrets["acme"], make_snapshot("1.0.0"))
    assert first.status_code == 201
    assert first.json() | {"inspection_id": 0} == {
        "server": SERVER,
        "version": "1.0.0",
        "digest": make_snapshot()["digest"],
        "new_version": True,
        "inspection_id": 0,
    }
    again = submit(
        client, secrets["acme"], {"ok": True, "snapshot": make_snapshot("1.0.0"), "durationS": 0.5}
    )
    assert again.status_code == 200 and again.json()["new_version"] is False
    assert again.headers["cache-control"] == "no-store"
    detail = client.get(f"/api/servers/{SERVER}").json()
    assert detail["version_count"] == 1 and len(detail["inspections"]) == 2


def test_failed_inspection_is_recorded_without_a_version(client, secrets) -> None:
    response = submit(client, secrets["all"], {"ok": False, "error": "did not answer initialize within 30 s"})
    assert response.status_code == 200
    assert response.json()["new_version"] is False and response.json()["version"] is None
    detail = client.get(f"/api/servers/{SERVER}").json()
    assert detail["version_count"] == 0
    assert detail["last_ok"] is False and detail["last_error"].startswith("did not answer")


def test_a_replayed_idempotency_key_answers_the_first_result_and_records_once(client, secrets) -> None:
    key = str(uuid.uuid4())
    first = submit(client, secrets["acme"], make_snapshot("1.0.0"), key=key)
    assert first.status_code == 201 and "idempotent-replayed" not in first.headers
    replay = submit(client, secrets["acme"], make_snapshot("1.0.0"), key=key)
    # the first answer, new_version included, though the version is known by now
    assert replay.status_code == 201 and replay.json() == first.json()
    assert replay.headers["idempotent-replayed"] == "true"
    failed = {"ok": False, "error": "timed out", "startedAt": "2026-11-29T18:00:00Z"}
    failed_key = str(uuid.uuid4())
    answers = [submit(client, secrets["acme"], failed, key=failed_key) for _ in range(3)]
    assert {r.status_code for r in answers} == {200} and answers[2].json() == answers[0].json()
    fresh = submit(client, secrets["acme"], make_snapshot("1.0.0"), key=str(uuid.uuid4()))
    assert fresh.status_code == 200 and fresh.json()["inspection_id"] != first.json()["inspection_id"]
    detail = client.get(f"/api/servers/{SERVER}").json()
    assert detail["version_count"] == 1 and len(detail["inspections"]) == 3


def test_an_idempotency_key_reused_for_another_submission_is_422_and_records_nothing(client, secrets) -> None:
    key = str(uuid.uuid4())
    assert submit(client, secrets["all"], make_snapshot("1.0.0"), key=key).status_code == 201
    for body, server in (
        (make_snapshot("1.1.0", extra_tool="delete_note"), SERVER),
        (make_snapshot("1.0.0"), "acme-other"),
    ):
        response = submit(client, secrets["all"], body, server=server, key=key)
        assert response.status_code == 422 and error_code(response) == "idempotency_key_reused"
        assert key in response.json()["error"]["message"]
    assert len(client.get(f"/api/servers/{SERVER}").json()["inspections"]) == 1
    assert client.get("/api/servers/acme-other").status_code == 404


def test_a_malformed_idempotency_key_is_400_and_records_nothing(client, secrets) -> None:
    for key in ("", "x" * 129, "two words"):
        response = submit(client, secrets["all"], make_snapshot("1.0.0"), key=key)
        assert response.status_code == 400 and error_code(response) == "invalid_idempotency_key"
    assert client.get(f"/api/servers/{SERVER}").status_code == 404


def test_writers_racing_with_one_key_record_one_inspection(registry_url) -> None:
    key = SubmissionKey(str(uuid.uuid4()), "sha256:same", "0123456789ab")
    answers: list[Recorded] = []
    failures: list[BaseException] = []

    def write() -> None:
        store = open_store(registry_url)  # one store each, as separate service processes have
        try:
            answers.append(
                store.record_inspection(
                    make_snapshot("1.0.0"),
                    server=SERVER,
                    ok=True,
                    error=None,
                    started_at="2026-11-29T18:00:00Z",
                    duration_s=0.1,
                    key=key,
                )
            )
        except BaseException as exc:  # re-raised in the test thread
            failures.append(exc)
        finally:
            store.close()

    threads = [threading.Thread(target=write) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures, failures[0]
    assert len({(a.inspection_id, a.version, a.new_version) for a in answers}) == 1
    assert sorted(a.replayed for a in answers) == [False, True, True, True]
    with open_store(registry_url) as store:
        assert len(store.inspections(SERVER)) == 1


class _AnswerLostOnce(httpx.BaseTransport):
    """Passes requests to the app, but swaps the first submission's answer for a 503, as when the
    database goes away between the commit and the answer."""

    def __init__(self, app_client: TestClient) -> None:
        self._app_client = app_client
        self.keys: list[str | None] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self._app_client.request(
            request.method, str(request.url), headers=request.headers.multi_items(), content=request.read()
        )
        self.keys.append(request.headers.get("idempotency-key"))
        if len(self.keys) == 1:
            body = {"error": {"code": "database_unavailable", "message": "retry shortly"}}
            return httpx.Response(503, json=body, headers={"Retry-After": "2"})
        return httpx.Response(
            response.status_code, headers=response.headers.multi_items(), content=response.content
        )


def test_client_retry_after_a_lost_answer_records_the_inspection_once(client, secrets) -> None:
    lossy = _AnswerLostOnce(client)
    with RegistryClient("http://testserver", token=secrets["acme"], transport=lossy) as registry:
        answer = registry.submit(SERVER, make_snapshot("1.0.0"), duration_s=0.2)
        again = registry.submit(SERVER, make_snapshot("1.0.0"), duration_s=0.2)
    # the retry carried the first attempt's key and got the first answer; a new call has its own key
    assert lossy.keys[0] == lossy.keys[1] != lossy.keys[2] and all(lossy.keys)
    assert answer["new_version"] is True and answer["version"] == "1.0.0"
    assert again["new_version"] is False and again["inspection_id"] != answer["inspection_id"]
    assert len(client.get(f"/api/servers/{SERVER}").json()["inspections"]) == 2


INCONSISTENT_SUBMISSIONS = [
    {"ok": False},
    {"ok": False, "error": "x", "snapshot": make_snapshot()},
    {"ok": True, "snapshot": make_snapshot(), "error": "x"},
    {"ok": True, "snapshot": None},
    {"ok": "yes", "snapshot": make_snapshot()},
    {"ok": True, "snapshot": make_snapshot(), "durationS": -1},
    {"ok": True, "snapshot": make_snapshot(), "sneaky": 1},
    [make_snapshot()],
]


def test_inconsistent_submissions_are_422_and_record_nothing(client, secrets) -> None:
    for body in INCONSISTENT_SUBMISSIONS:
        response = submit(client, secrets["all"], body)
        assert response.status_code == 422, (body, response.text)
        assert error_code(response) in {"invalid_submission", "invalid_snapshot"}
    assert client.get("/api/servers").json()["total"] == 0


def test_snapshot_failing_the_published_schema_is_422_naming_the_field(client, secrets) -> None:
    bad = make_snapshot()
    bad["tools"][0]["name"] = 42
    response = submit(client, secrets["all"], bad)
    assert response.status_code == 422 and error_code(response) == "invalid_snapshot"
    assert "tools" in response.json()["error"]["message"]
    wrong_format = make_snapshot() | {"format": "something/9"}
    assert submit(client, secrets["all"], wrong_format).status_code == 422


# ------------------------------------------------------------------ tokens


def test_write_without_token_is_401_with_a_bearer_challenge(client) -> None:
    response = client.post(f"/api/servers/{SERVER}/inspections", json=make_snapshot())
    assert response.status_code == 401 and error_code(response) == "token_missing"
    assert response.headers["www-authenticate"].startswith("Bearer")
    basic = client.post(
        f"/api/servers/{SERVER}/inspections",
        json=make_snapshot(),
        headers={"Authorization": "Basic dXNlcjpwdw=="},
    )
    assert basic.status_code == 401 and error_code(basic) == "token_missing"


def test_write_with_a_wrong_token_is_401_invalid(client, secrets) -> None:
    forged = secrets["all"][:-3] + ("xyz" if not secrets["all"].endswith("xyz") else "abc")
    for presented in (forged, "not-a-token", "mcpdex_0123456789ab_" + "A" * 43):
        response = submit(client, presented, make_snapshot())
        assert response.status_code == 401 and error_code(response) == "token_invalid"


def test_write_with_a_revoked_token_is_401_revoked(client, secrets) -> None:
    response = submit(client, secrets["revoked"], make_snapshot())
    assert response.status_code == 401 and error_code(response) == "token_revoked"


def test_write_outside_the_token_scope_is_403_and_records_nothing(client, secrets) -> None:
    response = submit(client, secrets["acme"], make_snapshot(), server="globex-notes")
    assert response.status_code == 403 and error_code(response) == "token_out_of_scope"
    assert "acme-*" in response.json()["error"]["message"]
    assert client.get("/api/servers").json()["total"] == 0


def test_auth_is_checked_before_the_body_is_read(client) -> None:
    response = client.post(
        f"/api/servers/{SERVER}/inspections",
        content=b"x" * (200 * 1024),
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 401


# ------------------------------------------------------------------ limits and malformed bodies


def test_body_over_the_limit_is_413(client, secrets) -> None:
    huge = make_snapshot()
    huge["tools"][0]["description"] = "x" * (80 * 1024)
    response = submit(client, secrets["all"], huge)
    assert response.status_code == 413 and error_code(response) == "body_too_large"


def test_streamed_body_without_length_is_cut_at_the_limit(client, secrets) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"ok": true, "snapshot": {"tools": ['
        for _ in range(100):
            yield b'{"name": "' + b"a" * 1024 + b'"},'
        yield b"]}}"

    response = client.post(
        f"/api/servers/{SERVER}/inspections",
        content=chunks(),
        headers={**bearer(secrets["all"]), "content-type": "application/json"},
    )
    assert response.status_code == 413


def test_malformed_json_is_400(client, secrets) -> None:
    client.app.state.max_body_bytes = 1024 * 1024  # type: ignore[attr-defined]
    # (a well-formed body nested too deep is a 422: tests/registry/test_serve_validation.py)
    for raw in (b"{", b"", b"\xff\xfe", b'{"ok": true,}', b"[[[1]"):
        response = client.post(
            f"/api/servers/{SERVER}/inspections",
            content=raw,
            headers={**bearer(secrets["all"]), "content-type": "application/json"},
        )
        assert response.status_code == 400 and error_code(response) == "invalid_json", raw[:10]


def test_body_that_is_not_json_is_415(client, secrets) -> None:
    response = client.post(
        f"/api/servers/{SERVER}/inspections",
        content=json.dumps(make_snapshot()),
        headers={**bearer(secrets["all"]), "content-type": "text/plain"},
    )
    assert response.status_code == 415 and error_code(response) == "unsupported_media_type"


# ------------------------------------------------------------------ hostile names

HOSTILE_NAMES = [
    "%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
    "%3Cscript%3Ealert(1)%3C%2Fscript%3E",
    "acme'%3B%20DROP%20TABLE%20servers%3B%20--",
    "acme%00null",
    "acme%0Anewline",
    "a" * 300,
    "acme/versions",
    "acme//double",
    "%20leading-space",
    "%E2%80%AEevil",
]


def test_hostile_server_names_are_refused_on_write_and_nothing_is_recorded(client, secrets) -> None:
    for name in HOSTILE_NAMES:
        response = client.post(
            f"/api/servers/{name}/inspections", json=make_snapshot(), headers=bearer(secrets["all"])
        )
        assert response.status_code in (400, 404), (name, response.text)
        assert error_code(response) in ("invalid_server_name", "not_found")
    assert client.get("/api/servers").json()["total"] == 0


def test_hostile_server_names_on_read_are_json_404s(client) -> None:
    for name in HOSTILE_NAMES:
        for suffix in ("", "/versions", "/score", "/changelog", "/versions/1.0.0"):
            response = client.get(f"/api/servers/{name}{suffix}")
            assert response.status_code == 404 and error_code(response) == "not_found", (name, suffix)


def test_nul_characters_in_text_that_becomes_database_text_are_refused(client, secrets) -> None:
    titled = make_snapshot()
    titled["server"]["title"] = "Acme\u0000Notes"
    for body in (titled, {"ok": False, "error": "crashed\u0000"}):
        response = submit(client, secrets["all"], body)
        assert response.status_code == 422 and "NUL" in response.json()["error"]["message"]
    described = make_snapshot()
    described["tools"][0]["description"] = "Search\u0000notes."  # inside the snapshot JSON: stored escaped
    assert submit(client, secrets["all"], described).status_code == 201
    assert (
        client.get(f"/api/servers/{SERVER}/snapshot").json()["tools"][0]["description"]
        == "Search\u0000notes."
    )
    assert client.get("/api/servers").json()["total"] == 1


def test_names_with_slashes_and_scopes_round_trip(client, secrets) -> None:
    for name in ("mcp-servers/everything", "@acme/notes"):
        assert submit(client, secrets["all"], make_snapshot(), server=name).status_code == 201
        assert client.get(f"/api/servers/{name}/versions").json()["versions"][0]["label"] == "1.0.0"
        assert client.get(f"/api/servers/{name}").json()["name"] == name


# ------------------------------------------------------------------ reads, caching


def test_reads_carry_etag_and_cache_control_and_answer_304(client, secrets) -> None:
    submit(client, secrets["all"], make_snapshot("1.0.0"))
    for path in (
        "/api/servers",
        f"/api/servers/{SERVER}",
        f"/api/servers/{SERVER}/versions/1.0.0",
        "/api/openapi.json",
    ):
        first = client.get(path)
        assert first.status_code == 200 and first.headers["etag"].startswith('"')
        assert "max-age" in first.headers["cache-control"]
        second = client.get(path, headers={"If-None-Match": first.headers["etag"]})
        assert second.status_code == 304 and second.content == b""
        assert second.headers["etag"] == first.headers["etag"]
    before = client.get(f"/api/servers/{SERVER}").headers["etag"]
    submit(client, secrets["all"], make_snapshot("1.1.0", extra_tool="delete_note"))
    changed = client.get(f"/api/servers/{SERVER}", headers={"If-None-Match": before})
    assert changed.status_code == 200 and changed.headers["etag"] != before


def test_versions_are_listed_oldest_first_and_each_snapshot_is_served(client, secrets) -> None:
    submit(client, secrets["all"], make_snapshot("1.0.0"))
    submit(client, secrets["all"], make_snapshot("1.1.0", extra_tool="delete_note"))
    versions = client.get(f"/api/servers/{SERVER}/versions").json()["versions"]
    assert [v["label"] for v in versions] == ["1.0.0", "1.1.0"]
    assert "snapshot" not in versions[0]
    snapshot = client.get(f"/api/servers/{SERVER}/versions/1.1.0").json()
    assert [t["name"] for t in snapshot["tools"]] == ["search_notes", "delete_note"]
    assert client.get(f"/api/servers/{SERVER}/snapshot").json()["digest"] == snapshot["digest"]
    missing = client.get(f"/api/servers/{SERVER}/versions/9.9.9")
    assert missing.status_code == 404 and error_code(missing) == "not_found"


def test_server_list_filters_by_name_and_paginates(client, secrets) -> None:
    for index in range(5):
        submit(client, secrets["all"], make_snapshot(), server=f"acme-{index}")
    submit(client, secrets["all"], make_snapshot(), server="globex")
    page = client.get("/api/servers", params={"q": "ACME-", "per_page": 2, "page": 2}).json()
    assert page["total"] == 5 and page["page"] == 2 and page["next_page"] == 3
    assert [s["name"] for s in page["servers"]] == ["acme-2", "acme-3"]
    assert (
        client.get("/api/servers", params={"q": "acme-", "per_page": 2, "page": 3}).json()["next_page"]
        is None
    )
    for bad in ({"page": "0"}, {"per_page": "1000"}, {"page": "x"}, {"tier": "Z"}, {"q": "x" * 201}):
        response = client.get("/api/servers", params=bad)
        assert response.status_code == 400 and error_code(response) == "invalid_parameter"


def test_server_list_filters_by_tier_of_the_latest_score(client, secrets) -> None:
    submit(client, secrets["all"], make_snapshot())
    tier = client.get(f"/api/servers/{SERVER}/score").json()["server_score"]["tier"]
    assert client.get("/api/servers", params={"tier": tier}).json()["total"] == 1
    others = ",".join(t for t in "ABCDF" if t != tier)
    assert client.get("/api/servers", params={"tier": others}).json()["total"] == 0
    listed = client.get("/api/servers").json()["servers"][0]
    assert listed["score"]["tier"] == tier


def test_score_endpoint_returns_the_scorecard_of_a_named_version(client, secrets) -> None:
    submit(client, secrets["all"], make_snapshot("1.0.0"))
    submit(client, secrets["all"], make_snapshot("1.1.0", extra_tool="delete_note"))
    latest = client.get(f"/api/servers/{SERVER}/score").json()
    older = client.get(f"/api/servers/{SERVER}/score", params={"version": "1.0.0"}).json()
    assert latest["format"] == "mcpdex.scorecard/1"
    assert [t["name"] for t in latest["tools"]] == ["search_notes", "delete_note"]
    assert [t["name"] for t in older["tools"]] == ["search_notes"]


def test_changelog_endpoint_names_the_breaking_change(client, secrets) -> None:
    submit(client, secrets["all"], make_snapshot("1.0.0"))
    submit(client, secrets["all"], make_snapshot("2.0.0", limit_required=True))
    body = client.get(f"/api/servers/{SERVER}/changelog").json()
    text = json.dumps(body)
    assert "input-property-became-required" in text or "required" in text
    assert "2.0.0" in text


# ------------------------------------------------------------------ compatibility


def test_compatibility_reports_a_breaking_candidate_without_storing_it(client, secrets) -> None:
    submit(client, secrets["all"], make_snapshot("1.0.0"))
    response = client.post(
        f"/api/servers/{SERVER}/compatibility", json=make_snapshot("1.1.0", limit_required=True)
    )
    assert response.status_code == 200
    verdict = response.json()
    assert verdict["compatible"] is False and verdict["counts"]["breaking"] >= 1
    assert verdict["old"]["version"] == "1.0.0" and verdict["new"]["version"] == "1.1.0"
    assert any(c["level"] == "breaking" and c["tool"] == "search_notes" for c in verdict["changes"])
    assert client.get(f"/api/servers/{SERVER}/versions").json()["versions"][-1]["label"] == "1.0.0"


def test_compatibility_of_an_additive_candidate_is_compatible(client, secrets) -> None:
    submit(client, secrets["all"], make_snapshot("1.0.0"))
    verdict = client.post(
        f"/api/servers/{SERVER}/compatibility", json=make_snapshot("1.1.0", extra_tool="archive_note")
    ).json()
    assert verdict["compatible"] is True and verdict["counts"]["breaking"] == 0
    assert any(c["tool"] == "archive_note" for c in verdict["changes"])


def test_compatibility_against_a_named_version(client, secrets) -> None:
    submit(client, secrets["all"], make_snapshot("1.0.0"))
    submit(client, secrets["all"], make_snapshot("2.0.0", limit_required=True))
    same = client.post(
        f"/api/servers/{SERVER}/compatibility",
        params={"version": "2.0.0"},
        json=make_snapshot("2.0.1", limit_required=True),
    ).json()
    assert same["compatible"] is True and same["counts"]["breaking"] == 0
    unknown = client.post("/api/servers/globex/compatibility", json=make_snapshot())
    assert unknown.status_code == 404 and error_code(unknown) == "not_found"


# ------------------------------------------------------------------ the API description


def test_openapi_document_describes_every_endpoint(client) -> None:
    from openapi_spec_validator import validate

    document = client.get("/api/openapi.json").json()
    validate(document)  # raises on any departure from the OpenAPI 3.1 schema
    assert document["openapi"].startswith("3.1")
    described = {(method.upper(), path) for path, ops in document["paths"].items() for method in ops}
    assert described == {(e.method, e.path) for e in ENDPOINTS}
    submit_op = document["paths"]["/api/servers/{name}/inspections"]["post"]
    assert submit_op["security"] == [{"bearer": []}]
    headers = [(p["name"], p["required"]) for p in submit_op["parameters"] if p["in"] == "header"]
    assert headers == [("Idempotency-Key", False)]
    assert {"401", "403", "413", "422"} <= set(submit_op["responses"])
    assert document["components"]["schemas"]["Snapshot"]["properties"]["tools"]
    schema = client.get("/api/schema/snapshot.json")
    assert schema.status_code == 200 and schema.json()["properties"]["format"]


def test_every_documented_get_endpoint_answers_json(client, secrets) -> None:
    submit(client, secrets["all"], make_snapshot("1.0.0"))
    for endpoint in ENDPOINTS:
        if endpoint.method != "GET":
            continue
        path = endpoint.path.replace("{name}", SERVER).replace("{version}", "1.0.0")
        response = client.get(path)
        assert response.status_code == 200, (path, response.text)
        response.json()


def test_unknown_route_and_wrong_method_are_json_errors(client) -> None:
    assert error_code(client.get("/api/nothing-here")) == "not_found"
    wrong = client.delete(f"/api/servers/{SERVER}/inspections")
    assert wrong.status_code == 405 and error_code(wrong) == "method_not_allowed"


def test_submitted_snapshot_is_stored_as_sent(client, secrets) -> None:
    snapshot = make_snapshot("3.0.0")
    snapshot["tools"][0]["x-vendor"] = {"kept": True}
    snapshot["digest"] = compute_digest(snapshot)
    submit(client, secrets["all"], copy.deepcopy(snapshot))
    stored = client.get(f"/api/servers/{SERVER}/versions/3.0.0").json()
    assert stored["tools"] == snapshot["tools"] and stored["digest"] == snapshot["digest"]


# ------------------------------------------------------------------ the directory pages


def test_pages_render_the_registry_and_escape_server_text(client, secrets) -> None:
    hostile = make_snapshot("1.0.0")
    hostile["server"]["title"] = "<script>alert('title')</script>"
    hostile["tools"][0]["description"] = "Search. <img src=x onerror=alert(1)> Read-only."
    hostile["digest"] = compute_digest(hostile)
    submit(client, secrets["all"], hostile)
    index = client.get("/")
    assert index.status_code == 200 and index.headers["content-type"].startswith("text/html")
    assert "frame-ancestors 'none'" in index.headers["content-security-policy"]
    assert index.headers["x-content-type-options"] == "nosniff" and index.headers["etag"]
    assert SERVER in index.text and "<script>alert(" not in index.text
    entry = client.get("/index.json").json()["servers"][0]
    assert entry["name"] == SERVER
    folder = "/" + entry["href"].removesuffix("index.html")
    assert client.get(folder.rstrip("/"), follow_redirects=False).status_code == 308
    page = client.get(folder)
    assert page.status_code == 200 and "search_notes" in page.text
    assert "<img src=x" not in page.text
    # The server page's table holds the first sentence; the tool's page the whole description.
    tool = client.get(folder + "tools/search_notes.html")
    assert tool.status_code == 200 and "<img src=x" not in tool.text and "&lt;img src=x" in tool.text
    assert client.get(folder, headers={"If-None-Match": page.headers["etag"]}).status_code == 304
    assert client.get("/servers/no-such-server/").status_code == 404
    # The stylesheet and script every page links to, each with the type a browser applies it by.
    for asset, media_type, template in (
        ("site.css", "text/css", "_site.css"),
        ("site.js", "text/javascript", "_site.js"),
    ):
        assert f"../../assets/{asset}" in page.text
        served = client.get(f"/assets/{asset}")
        assert served.status_code == 200 and served.headers["content-type"].startswith(media_type)
        assert served.text == render(template)
    assert client.get("/assets/other.css").status_code == 404


def test_pages_follow_new_submissions(client, secrets) -> None:
    submit(client, secrets["all"], make_snapshot("1.0.0"))
    first = client.get("/")
    submit(client, secrets["all"], make_snapshot("1.0.0"), server="acme-second")
    second = client.get("/")
    assert "acme-second" not in first.text and "acme-second" in second.text
    assert second.headers["etag"] != first.headers["etag"]


def test_docs_list_every_endpoint_with_its_summary() -> None:
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / "http-service.md").read_text(encoding="utf-8")
    for endpoint in ENDPOINTS:
        auth = "token" if endpoint.auth else ""
        row = f"| `{endpoint.method} {endpoint.path}` | {endpoint.summary} | {auth} |".replace("|  |", "| |")
        assert row in docs, row

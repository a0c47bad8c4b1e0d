"""Input that no database or reader can carry gets a 4xx naming the field, on SQLite and PostgreSQL alike,
and nothing is written; rows stored before these checks are still served.

The classes: non-finite numbers anywhere in a body, text wider than its column or a time that is not
RFC 3339, lone UTF-16 surrogates in any string or key, nesting past MAX_JSON_DEPTH, numeric query
parameters that are not ASCII digits, and idempotency keys, which are each token's own.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
import sqlalchemy as sa

from registry.core.snapshot import compute_digest
from registry.core.strict_json import MAX_JSON_DEPTH
from registry.storage.records import RecordRejected
from registry.storage.schema import tables
from registry.storage.store import open_store, store_engine
from registry.storage.tokens import open_tokens
from tests.registry import test_serve
from tests.registry.test_serve import SERVER, bearer, error_code, make_snapshot, submit

# The service's fixtures: each test runs on SQLite and on PostgreSQL.
registry_url, secrets, client = test_serve.registry_url, test_serve.secrets, test_serve.client


def post_text(client: Any, secret: str, text: str, server: str = SERVER, path: str = "inspections") -> Any:
    """POST ``text`` as sent: json.dumps writes NaN and Infinity, and keeps a lone surrogate as its escape."""
    return client.post(
        f"/api/servers/{server}/{path}",
        content=text.encode("ascii"),
        headers={**bearer(secret), "content-type": "application/json"},
    )


def assert_refused(response: Any, status: int, code: str, *words: str) -> str:
    assert response.status_code == status, response.text
    assert error_code(response) == code
    message = response.json()["error"]["message"]
    for word in words:
        assert word in message, (word, message)
    return message


def assert_nothing_recorded(client: Any) -> None:
    assert client.get("/api/servers").json()["total"] == 0


def strict_json(text: str) -> Any:
    """Parse as JSON proper: NaN and Infinity are not JSON."""

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in a response")

    return json.loads(text, parse_constant=refuse)


def nested(levels: int, leaf: Any = "leaf") -> Any:
    """``levels`` objects, one inside the other, around ``leaf``."""
    value = leaf
    for _ in range(levels):
        value = {"x": value}
    return value


# ------------------------------------------------------------------ non-finite numbers


NON_FINITE = [float("nan"), float("inf"), float("-inf")]


def test_a_non_finite_duration_is_422_naming_it_and_records_nothing(client, secrets) -> None:
    for value in NON_FINITE:
        body = {"ok": True, "snapshot": make_snapshot(), "durationS": value}
        response = post_text(client, secrets["all"], json.dumps(body))
        assert_refused(response, 422, "unsupported_number", "durationS", "finite")
    # a number past the float range is read as infinity by Python: the same answer
    response = post_text(client, secrets["all"], '{"ok": false, "error": "timed out", "durationS": 1e400}')
    assert_refused(response, 422, "unsupported_number", "durationS")
    assert_nothing_recorded(client)


def test_a_non_finite_number_anywhere_in_a_snapshot_is_422_naming_its_path(client, secrets) -> None:
    places = {
        "tools/0/inputSchema/properties/limit/maximum": lambda s, v: s["tools"][0]["inputSchema"][
            "properties"
        ]["limit"].update(maximum=v),
        "tools/0/annotations/x-weight": lambda s, v: s["tools"][0]["annotations"].update({"x-weight": v}),
        "capabilities/tools/x-rate": lambda s, v: s["capabilities"]["tools"].update({"x-rate": v}),
        "resources/0/size": lambda s, v: s["resources"].append({"uri": "note://1", "name": "n", "size": v}),
    }
    for where, put in places.items():
        for value in NON_FINITE:
            snapshot = make_snapshot()
            put(snapshot, value)
            # bare, wrapped, and as a compatibility candidate
            for text, path, prefix in (
                (json.dumps(snapshot), "inspections", ""),
                (json.dumps({"ok": True, "snapshot": snapshot}), "inspections", "snapshot/"),
                (json.dumps(snapshot), "compatibility", ""),
            ):
                response = post_text(client, secrets["all"], text, path=path)
                assert_refused(response, 422, "unsupported_number", prefix + where)
    assert_nothing_recorded(client)


def test_the_store_refuses_non_finite_numbers_on_both_backends(registry_url) -> None:
    snapshot = make_snapshot()
    snapshot["tools"][0]["inputSchema"]["properties"]["limit"]["maximum"] = float("nan")
    with open_store(registry_url) as store:
        for given, field in (
            ({"snapshot": snapshot, "duration_s": 0.1}, "snapshot"),
            ({"snapshot": make_snapshot(), "duration_s": float("nan")}, "duration_s"),
            ({"snapshot": make_snapshot(), "duration_s": -1.0}, "duration_s"),
        ):
            with pytest.raises(RecordRejected) as refused:
                store.record_inspection(
                    given["snapshot"],
                    server=SERVER,
                    ok=True,
                    error=None,
                    started_at="2026-11-29T18:00:00Z",
                    duration_s=given["duration_s"],
                )
            assert refused.value.field == field
        assert store.servers() == []


# ------------------------------------------------------------------ widths and times


def test_a_long_valid_started_at_is_stored_in_utc_to_the_second(client, secrets) -> None:
    cases = {
        "2026-11-29T18:00:00.123456789012345678Z": "2026-11-29T18:00:00Z",  # 38 characters
        "2026-11-29T20:30:00.5+02:30": "2026-11-29T18:00:00Z",
        "2026-11-29T17:00:00-01:00": "2026-11-29T18:00:00Z",
    }
    for index, (sent, stored) in enumerate(cases.items()):
        server = f"acme-time-{index}"
        body = {"ok": True, "snapshot": make_snapshot(), "startedAt": sent}
        assert submit(client, secrets["all"], body, server=server).status_code == 201
        assert client.get(f"/api/servers/{server}").json()["inspections"][0]["at"] == stored
    captured = make_snapshot()
    captured["capturedAt"] = "2026-11-29T18:00:00.000000000000000000000001+00:00"
    assert submit(client, secrets["all"], captured, server="acme-captured").status_code == 201
    assert client.get("/api/servers/acme-captured").json()["last_inspected_at"] == "2026-11-29T18:00:00Z"


def test_times_that_are_not_rfc_3339_or_too_long_are_422_and_record_nothing(client, secrets) -> None:
    huge = "2026-11-29T18:00:00Z" + "x" * 100_000
    client.app.state.max_body_bytes = 1024 * 1024
    for value in (
        "not a date",
        "2026-11-29",
        "2026-13-29T18:00:00Z",
        huge,
        "2026-11-29T18:00:00." + "1" * 60 + "Z",
    ):
        body = {"ok": False, "error": "timed out", "startedAt": value}
        assert_refused(submit(client, secrets["all"], body), 422, "invalid_submission", "startedAt")
        snapshot = make_snapshot()
        snapshot["capturedAt"] = value
        assert_refused(submit(client, secrets["all"], snapshot), 422, "invalid_snapshot", "capturedAt")
    # RFC 3339, but no UTC time: the years 0 and 10000
    for value in ("0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"):
        body = {"ok": False, "error": "timed out", "startedAt": value}
        assert_refused(submit(client, secrets["all"], body), 422, "invalid_submission", "startedAt", "UTC")
    assert_nothing_recorded(client)


def test_the_store_gives_the_same_answer_on_both_backends_for_text_wider_than_its_column(
    registry_url,
) -> None:
    with open_store(registry_url) as store:
        for given, field in (
            ({"server": "s" * 513}, "server name"),
            ({"label": "1." + "0" * 300}, "version label"),
            ({"started_at": "2026-11-29T18:00:00Z" + " " * 40}, "started_at"),
        ):
            snapshot = make_snapshot(given.get("label", "1.0.0"))
            with pytest.raises(RecordRejected) as refused:
                store.record_inspection(
                    snapshot,
                    server=given.get("server", SERVER),
                    ok=True,
                    error=None,
                    started_at=given.get("started_at", "2026-11-29T18:00:00Z"),
                    duration_s=0.1,
                )
            assert refused.value.field == field
        assert store.servers() == []
        # a valid time of any length lands in the 32-character column
        recorded = store.record_inspection(
            make_snapshot(),
            server=SERVER,
            ok=True,
            error=None,
            started_at="2026-11-29T18:00:00.123456789012345678Z",
            duration_s=0.1,
        )
        assert recorded.new_version and store.inspections(SERVER)[0].at == "2026-11-29T18:00:00Z"


# ------------------------------------------------------------------ lone surrogates and query parameters


def test_a_lone_surrogate_in_any_text_is_422_naming_the_field(client, secrets) -> None:
    places = {
        "tools/0/description": lambda s: s["tools"][0].update(description="Search \ud800 notes."),
        "tools/0/title": lambda s: s["tools"][0].update(title="\udfff"),
        "server/title": lambda s: s["server"].update(title="Acme \ud800"),
        "server/instructions": lambda s: s["server"].update(instructions="x\udbff"),
        "tools/0/inputSchema/properties/q\ud800": lambda s: s["tools"][0]["inputSchema"]["properties"].update(
            {"q\ud800": {"type": "string"}}
        ),
    }
    for where, put in places.items():
        snapshot = make_snapshot()
        put(snapshot)
        for path in ("inspections", "compatibility"):
            response = post_text(client, secrets["all"], json.dumps(snapshot), path=path)
            named = where.replace("\ud800", "\\ud800")
            assert_refused(response, 422, "invalid_unicode", named, "surrogate")
    failed = json.dumps({"ok": False, "error": "crashed \ud800 here"})
    assert_refused(post_text(client, secrets["all"], failed), 422, "invalid_unicode", "error")
    assert_nothing_recorded(client)
    # a complete pair is one character, and is kept
    paired = make_snapshot()
    paired["tools"][0]["description"] = "Search notes \U0001f600."
    assert post_text(client, secrets["all"], json.dumps(paired)).status_code == 201
    assert (
        client.get(f"/api/servers/{SERVER}/snapshot")
        .json()["tools"][0]["description"]
        .endswith("\U0001f600.")
    )


def test_numeric_query_parameters_take_ascii_digits_only(client, secrets) -> None:
    submit(client, secrets["all"], make_snapshot())
    for name in ("page", "per_page"):
        for value in ("²", "٣", "１", "3\u0663", " 3", "+3", "3.0", "1e2", "0x3", "9" * 30):
            response = client.get("/api/servers", params={name: value})
            assert_refused(response, 400, "invalid_parameter", name)
    assert client.get("/api/servers", params={"page": "1", "per_page": "3"}).json()["per_page"] == 3


# ------------------------------------------------------------------ nesting


def test_a_body_nested_past_the_limit_is_422_naming_where_and_records_nothing(client, secrets) -> None:
    client.app.state.max_body_bytes = 1024 * 1024
    too_deep = nested(MAX_JSON_DEPTH)  # inside a snapshot, a few levels more than the limit
    places = {
        "tools/0/inputSchema/properties/deep": lambda s: s["tools"][0]["inputSchema"]["properties"].update(
            deep=too_deep
        ),
        "tools/0/annotations/x-deep": lambda s: s["tools"][0]["annotations"].update({"x-deep": too_deep}),
        "capabilities/experimental": lambda s: s["capabilities"].update(experimental=too_deep),
        "prompts/0/arguments": lambda s: s["prompts"].append({"name": "p", "arguments": [too_deep]}),
    }
    for where, put in places.items():
        snapshot = make_snapshot()
        put(snapshot)
        for text, path in (
            (json.dumps(snapshot), "inspections"),
            (json.dumps({"ok": True, "snapshot": snapshot}), "inspections"),
            (json.dumps(snapshot), "compatibility"),
        ):
            response = post_text(client, secrets["all"], text, path=path)
            assert_refused(response, 422, "nesting_too_deep", where, str(MAX_JSON_DEPTH))
    # far past the parser's own recursion limit
    for raw in (
        b"[" * 100_000 + b"]" * 100_000,
        b'{"ok": true, "snapshot": ' + b'{"a": ' * 50_000 + b"1" + b"}" * 50_001,
    ):
        response = client.post(
            f"/api/servers/{SERVER}/inspections",
            content=raw,
            headers={**bearer(secrets["all"]), "content-type": "application/json"},
        )
        assert_refused(response, 422, "nesting_too_deep", str(MAX_JSON_DEPTH))
    assert_nothing_recorded(client)


def test_a_snapshot_at_the_nesting_limit_is_served_by_every_read(client, secrets) -> None:
    snapshot = make_snapshot()
    # snapshot → tools → tool → annotations → x-deep: 4 levels, then objects up to the limit
    snapshot["tools"][0]["annotations"]["x-deep"] = nested(MAX_JSON_DEPTH - 4)
    schema_deep = nested(40, {"type": "string"})
    snapshot["tools"][0]["inputSchema"]["properties"]["deep"] = schema_deep
    snapshot["digest"] = compute_digest(snapshot)
    assert submit(client, secrets["all"], snapshot).status_code == 201
    changed = json.loads(json.dumps(snapshot))
    changed["server"]["version"] = "1.1.0"
    changed["tools"][0]["annotations"]["x-deep"] = nested(MAX_JSON_DEPTH - 4, "changed")
    assert submit(client, secrets["all"], changed).status_code == 201
    assert_every_read_answers(client, SERVER)


def assert_every_read_answers(client: Any, server: str) -> None:
    """Every GET about ``server``, its pages and a compatibility check answer 200 with strict JSON."""
    for suffix in ("", "/versions", "/snapshot", "/score", "/changelog"):
        response = client.get(f"/api/servers/{server}{suffix}")
        # A row written behind the service's back is scored by its background job: wait for it.
        waited = time.monotonic() + 60
        while response.status_code == 503 and suffix == "/score" and time.monotonic() < waited:
            time.sleep(float(response.headers.get("retry-after", "1")) / 4)
            response = client.get(f"/api/servers/{server}{suffix}")
        if suffix == "/score" and response.status_code == 422:
            # a row past the service's limits is answered as such, never scored and never a 500
            assert strict_json(response.text)["error"]["code"] == "not_scored", response.text[:300]
            continue
        assert response.status_code == 200, (suffix, response.text[:300])
        strict_json(response.text)
    for version in client.get(f"/api/servers/{server}/versions").json()["versions"]:
        response = client.get(f"/api/servers/{server}/versions/{version['label']}")
        assert response.status_code == 200 and strict_json(response.text)["digest"] == version["digest"]
    compatibility = client.post(f"/api/servers/{server}/compatibility", json=make_snapshot("9.0.0"))
    # a stored version past the limits is refused as such (the diff is bounded only within them)
    expected = 422 if "deep" in server else 200
    assert compatibility.status_code == expected, compatibility.text[:300]
    strict_json(compatibility.text)
    listing = client.get("/api/servers")  # an unscored row is listed too (with score null)
    assert listing.status_code == 200 and server in {s["name"] for s in strict_json(listing.text)["servers"]}
    index = client.get("/index.json")
    assert index.status_code == 200
    for entry in strict_json(index.text)["servers"]:
        assert client.get("/" + entry["href"]).status_code == 200


# ------------------------------------------------------------------ rows stored before these checks


def store_legacy_row(registry_url: str, server: str, snapshot: dict[str, Any], duration_s: float) -> None:
    """Write a version and an inspection as the store did before submissions were checked."""
    t = tables()
    with open_store(registry_url) as store, store_engine(store).begin() as conn:
        server_id = conn.execute(
            t.servers.insert().values(name=server, title=None, created_at="2026-11-29T18:00:00Z")
        ).inserted_primary_key[0]
        version_id = conn.execute(
            t.versions.insert().values(
                server_id=server_id,
                label="1.0.0",
                digest=compute_digest(snapshot),
                snapshot=json.dumps(dict(snapshot, digest=compute_digest(snapshot))),
                first_seen="2026-11-29T18:00:00Z",
                last_seen="2026-11-29T18:00:00Z",
            )
        ).inserted_primary_key[0]
        conn.execute(
            t.inspections.insert().values(
                server_id=server_id,
                version_id=version_id,
                at="2026-11-29T18:00:00Z",
                ok=True,
                error=None,
                duration_s=duration_s,
            )
        )


def test_stored_rows_with_nan_or_deep_nesting_are_still_served(registry_url, client, secrets) -> None:
    with_nan = make_snapshot()
    with_nan["tools"][0]["inputSchema"]["properties"]["limit"]["maximum"] = float("nan")
    # SQLite's REAL column turns NaN into NULL, which its NOT NULL refuses: only PostgreSQL keeps one
    nan_duration = float("nan") if not registry_url.startswith("sqlite") else 0.5
    store_legacy_row(registry_url, "legacy-nan", with_nan, nan_duration)
    for levels in (250, 600):
        deep = make_snapshot()
        deep["tools"][0]["inputSchema"]["properties"]["deep"] = nested(levels, {"type": "string"})
        store_legacy_row(registry_url, f"legacy-deep-{levels}", deep, 0.5)
    for server in ("legacy-nan", "legacy-deep-250", "legacy-deep-600"):
        assert_every_read_answers(client, server)
    served = client.get("/api/servers/legacy-nan/snapshot").json()
    assert served["tools"][0]["inputSchema"]["properties"]["limit"]["maximum"] is None
    if not registry_url.startswith("sqlite"):
        assert client.get("/api/servers/legacy-nan").json()["inspections"][0]["duration_s"] is None
    # the part past the limit is replaced by a note, so every reader stays clear of the recursion limit
    assert (
        f"nested deeper than {MAX_JSON_DEPTH} levels"
        in client.get("/api/servers/legacy-deep-600/snapshot").text
    )


# ------------------------------------------------------------------ idempotency keys are each token's own


def test_tenants_reusing_one_idempotency_key_never_meet(client, secrets, registry_url) -> None:
    with open_store(registry_url) as store:
        globex = open_tokens(store).create("globex-ci", "globex-*")[1]
    key = "ci-build-1234"
    first = submit(client, globex, make_snapshot("1.0.0"), server="globex-notes", key=key)
    assert first.status_code == 201
    mine = submit(client, secrets["acme"], make_snapshot("2.0.0", extra_tool="archive_note"), key=key)
    assert mine.status_code == 201 and "idempotent-replayed" not in mine.headers
    assert mine.json()["server"] == SERVER and "globex" not in mine.text
    # each token's retries replay its own answer
    again = submit(client, secrets["acme"], make_snapshot("2.0.0", extra_tool="archive_note"), key=key)
    assert again.json() == mine.json() and again.headers["idempotent-replayed"] == "true"
    theirs = submit(client, globex, make_snapshot("1.0.0"), server="globex-notes", key=key)
    assert theirs.json() == first.json() and theirs.headers["idempotent-replayed"] == "true"
    # a token reusing its own key for another submission is told so, naming only its own server
    other = submit(client, secrets["acme"], make_snapshot("3.0.0"), server="acme-other", key=key)
    message = assert_refused(other, 422, "idempotency_key_reused", key, SERVER)
    assert "globex" not in message
    assert len(client.get(f"/api/servers/{SERVER}").json()["inspections"]) == 1
    assert len(client.get("/api/servers/globex-notes").json()["inspections"]) == 1


def test_keys_recorded_before_they_were_scoped_are_migrated_and_honoured_for_their_server(
    registry_url, secrets
) -> None:
    from starlette.testclient import TestClient

    from registry.web.app import create_app

    with TestClient(create_app(registry_url)) as client:
        first = submit(client, secrets["acme"], make_snapshot("1.0.0"), key="ci-build-1234")
        assert first.status_code == 201
    # Put the key back as the store kept it before keys were scoped: one row per key, whoever sent it.
    legacy = sa.Table(
        "submission_keys",
        sa.MetaData(),
        sa.Column("key", sa.String(128), primary_key=True),
        sa.Column("fingerprint", sa.String(80), nullable=False),
        sa.Column("inspection_id", sa.Integer, nullable=False),
        sa.Column("new_version", sa.Boolean, nullable=False),
        sa.Column("at", sa.String(32), nullable=False),
    )
    keys = tables().submission_keys
    with open_store(registry_url) as store, store_engine(store).begin() as conn:
        legacy.create(conn)
        columns = ["key", "fingerprint", "inspection_id", "new_version", "at"]
        conn.execute(legacy.insert().from_select(columns, sa.select(*(keys.c[c] for c in columns))))
        conn.execute(keys.delete())
    with TestClient(create_app(registry_url)) as client:  # opening the store migrates
        for secret in (secrets["acme"], secrets["all"]):
            retried = submit(client, secret, make_snapshot("1.0.0"), key="ci-build-1234")
            assert retried.json() == first.json() and retried.headers["idempotent-replayed"] == "true"
        elsewhere = submit(
            client, secrets["all"], make_snapshot("1.0.0"), server="globex-x", key="ci-build-1234"
        )
        assert elsewhere.status_code == 201 and "idempotent-replayed" not in elsewhere.headers
        assert len(client.get(f"/api/servers/{SERVER}").json()["inspections"]) == 1
    with open_store(registry_url) as store:
        engine = store_engine(store)
        assert not sa.inspect(engine).has_table("submission_keys")
        with engine.connect() as conn:
            owners = sorted(row.token_id for row in conn.execute(sa.select(keys)))
    assert len(owners) == 2 and owners[0] == "" and owners[1]


def test_the_docs_give_an_example_of_every_4xx_the_service_answers() -> None:
    import re
    from pathlib import Path

    import registry.core.strict_json
    import registry.web

    docs = (Path(__file__).resolve().parents[2] / "docs" / "http-service.md").read_text(encoding="utf-8")
    errors = docs.split("\n## Errors\n", 1)[1].split("\n## ", 1)[0]
    modules = sorted(Path(registry.web.__file__).parent.glob("*.py"))
    service = "\n".join(module.read_text(encoding="utf-8") for module in modules)
    answered = set(re.findall(r'ApiError\(\s*(4\d\d),\s*"([a-z_]+)"', service))
    strict = Path(registry.core.strict_json.__file__).read_text(encoding="utf-8")
    answered |= {("422", code) for code in re.findall(r'JSONValueError\(\s*"([a-z_]+)"', strict)}
    assert {("422", "unsupported_number"), ("400", "invalid_parameter")} <= answered
    for status, code in sorted(answered):
        assert f"- `{status} {code}`: " in errors, (status, code)


def test_a_constraint_that_is_not_a_race_is_raised_at_once(registry_url, monkeypatch) -> None:
    from sqlalchemy.exc import IntegrityError

    from registry.storage.store import Store

    attempts: list[int] = []
    record_once = Store._record_once

    def counted(self: Store, *args: Any) -> Any:
        attempts.append(1)
        return record_once(self, *args)

    monkeypatch.setattr(Store, "_record_once", counted)
    with open_store(registry_url) as store, pytest.raises(IntegrityError):
        # ok is NOT NULL on both databases: no other writer can be the cause, so no retry helps
        store.record_inspection(
            None, server=SERVER, ok=None, error="x", started_at="2026-11-29T18:00:00Z", duration_s=0.1
        )
    assert len(attempts) == 1


def test_inspect_save_to_a_database_refuses_as_the_service_does(tmp_path) -> None:
    import subprocess
    import sys
    from pathlib import Path

    notes = Path(__file__).parent / "servers" / "notes_server.py"
    url = f"sqlite:///{tmp_path / 'registry.sqlite'}"
    # a version label with a lone surrogate, as a non-UTF-8 argument becomes
    argv = ["inspect", "--save", "--registry", url, "--name", "acme-cli", "--version-label", "1.0\udcff"]
    target = ["--protocol-era", "legacy", "--", sys.executable, str(notes)]
    done = subprocess.run(
        [sys.executable, "-m", "registry", *argv, *target],
        capture_output=True,
        text=True,
        errors="replace",
        timeout=120,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("mcpdex: error:")]
    assert len(errors) == 1 and "snapshot field versionLabel" in errors[0] and "surrogate" in errors[0]
    with open_store(url) as store:
        assert store.servers() == []

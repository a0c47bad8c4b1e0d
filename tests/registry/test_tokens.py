"""Write tokens: stored hashed, scoped by pattern, revocable; on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import pytest
import sqlalchemy as sa

from registry.core.errors import NotFoundError, UsageError
from registry.storage.store import open_store, store_engine
from registry.storage.tokens import TOKEN_PREFIX, TOKENS, TokenRejected, open_tokens


@pytest.fixture(params=["sqlite", "postgres"])
def registry_url(request: pytest.FixtureRequest, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'registry.sqlite'}"
    return request.getfixturevalue("postgres_url")


@pytest.fixture
def tokens(registry_url: str):
    store = open_store(registry_url)
    yield open_tokens(store)
    store.close()


def test_token_secret_is_stored_only_as_its_sha256(tokens, registry_url: str) -> None:
    record, secret = tokens.create("ci", "acme-*")
    store = open_store(registry_url)
    with store_engine(store).connect() as conn:
        rows = [dict(row._mapping) for row in conn.execute(sa.select(TOKENS))]
    store.close()
    assert len(rows) == 1
    # The random part may itself contain "_", so it is cut after the known prefix and id.
    random_part = secret.removeprefix(f"{TOKEN_PREFIX}{record.id}_")
    assert len(random_part) >= 40
    assert secret not in json.dumps(rows)
    assert random_part not in json.dumps(rows)
    assert rows[0]["secret_sha256"] == hashlib.sha256(secret.encode()).hexdigest()
    assert rows[0]["scope"] == "acme-*" and rows[0]["id"] == record.id


def test_created_token_authenticates_and_matches_its_scope_only(tokens) -> None:
    _, secret = tokens.create("crawler", "acme-*")
    record = tokens.authenticate(secret)
    assert record.name == "crawler"
    assert record.allows("acme-memory")
    assert not record.allows("other")
    assert not record.allows("ACME-memory")


def test_wrong_secret_with_a_known_id_is_rejected(tokens) -> None:
    _, secret = tokens.create("ci")
    forged = secret[:-4] + ("AAAA" if not secret.endswith("AAAA") else "BBBB")
    with pytest.raises(TokenRejected) as caught:
        tokens.authenticate(forged)
    assert caught.value.reason == "invalid"


@pytest.mark.parametrize(
    "presented", ["", "Bearer", "mcpdex_", "x" * 5000, "mcpdex_0123456789ab_" + "a" * 43]
)
def test_malformed_or_unknown_token_is_invalid(tokens, presented: str) -> None:
    with pytest.raises(TokenRejected) as caught:
        tokens.authenticate(presented)
    assert caught.value.reason == "invalid"


def test_revoked_token_is_refused_by_name_or_id(tokens) -> None:
    first, first_secret = tokens.create("one")
    _, second_secret = tokens.create("two")
    tokens.revoke("one")
    tokens.revoke(tokens.authenticate(second_secret).id)
    for secret in (first_secret, second_secret):
        with pytest.raises(TokenRejected) as caught:
            tokens.authenticate(secret)
        assert caught.value.reason == "revoked"
    revoked_at = next(t for t in tokens.list() if t.name == "one").revoked_at
    assert tokens.revoke(first.id).revoked_at == revoked_at  # revoking again keeps the first time


def test_revoking_an_unknown_token_says_how_to_list_them(tokens) -> None:
    with pytest.raises(NotFoundError, match="mcpdex token list"):
        tokens.revoke("nobody")


def test_duplicate_token_name_is_a_usage_error(tokens) -> None:
    tokens.create("ci")
    with pytest.raises(UsageError, match="already exists"):
        tokens.create("ci")


@pytest.mark.parametrize("name", ["", "has space", "-dash-first", "x" * 65, "semi;colon"])
def test_token_name_outside_the_allowed_shape_is_refused(tokens, name: str) -> None:
    with pytest.raises(UsageError, match="token name"):
        tokens.create(name)


@pytest.mark.parametrize("scope", ["", "a b", "x" * 201])
def test_scope_that_is_not_a_pattern_is_refused(tokens, scope: str) -> None:
    with pytest.raises(UsageError, match="--scope"):
        tokens.create("ci", scope)


def test_touch_records_last_use(tokens) -> None:
    _, secret = tokens.create("ci")
    tokens.touch(tokens.authenticate(secret))
    assert tokens.authenticate(secret).last_used_at is not None


def test_token_commands_create_list_revoke_end_to_end(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'r.sqlite'}"

    def mcpdex(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "registry", *args, "--registry", url],
            capture_output=True,
            text=True,
            timeout=60,
        )

    created = mcpdex("token", "create", "ci", "--scope", "acme-*")
    assert created.returncode == 0, created.stderr
    secret = created.stdout.strip()
    assert secret.startswith("mcpdex_") and "shown once" in created.stderr
    listed = mcpdex("token", "list", "--format", "json")
    assert json.loads(listed.stdout)[0] | {"created_at": None} == {
        "id": secret.split("_")[1],
        "name": "ci",
        "scope": "acme-*",
        "created_at": None,
        "revoked_at": None,
        "last_used_at": None,
    }
    assert secret not in listed.stdout
    assert mcpdex("token", "revoke", "ci").returncode == 0
    assert json.loads(mcpdex("token", "list", "--format", "json").stdout)[0]["revoked_at"]
    missing = mcpdex("token", "revoke", "ci-2")
    assert missing.returncode == 2 and missing.stderr.startswith("mcpdex: error: no token named")

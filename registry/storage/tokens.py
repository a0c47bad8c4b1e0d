"""Write tokens for ``mcpdex serve``: bearer secrets stored hashed, scoped to server names, revocable.

The table lives in the registry's own database and is reached through the store's engine, so a
deployment has one connection setup. A token reads ``mcpdex_<id>_<secret>``; only the SHA-256 of
the whole string is kept (the secret is 256 random bits, so a slow hash would add nothing).
"""

from __future__ import annotations

import fnmatch
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError, ProgrammingError

from registry.core.errors import NotFoundError, UsageError
from registry.core.timestamps import parse_utc, utc_now

if TYPE_CHECKING:
    from registry.storage.store import Store

TOKEN_PREFIX = "mcpdex_"
_TOKEN_SHAPE = re.compile(r"^mcpdex_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$")
_NAME_SHAPE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
# last_used_at is refreshed at most this often, so busy writers do not write a token row per request.
_TOUCH_EVERY = timedelta(minutes=1)

_METADATA = sa.MetaData()
TOKENS = sa.Table(
    "api_tokens",
    _METADATA,
    sa.Column("id", sa.String(12), primary_key=True),
    sa.Column("name", sa.String(64), nullable=False, unique=True),
    sa.Column("scope", sa.String(200), nullable=False),
    sa.Column("secret_sha256", sa.String(64), nullable=False),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Column("revoked_at", sa.String(32), nullable=True),
    sa.Column("last_used_at", sa.String(32), nullable=True),
)


@dataclass(frozen=True)
class TokenRecord:
    """What is known about a token; never its secret."""

    id: str
    name: str
    scope: str
    created_at: str
    revoked_at: str | None
    last_used_at: str | None

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    def allows(self, server: str) -> bool:
        """Whether this token may write to ``server`` (a shell-style pattern, case-sensitive)."""
        return fnmatch.fnmatchcase(server, self.scope)


class TokenRejected(Exception):
    """A presented token cannot write: ``reason`` is ``invalid`` or ``revoked``."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def _sha256(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _record(row: sa.Row[Any]) -> TokenRecord:
    return TokenRecord(
        id=row.id,
        name=row.name,
        scope=row.scope,
        created_at=row.created_at,
        revoked_at=row.revoked_at,
        last_used_at=row.last_used_at,
    )


class TokenStore:
    """Tokens in the ``api_tokens`` table of the database behind ``engine`` (created if missing)."""

    def __init__(self, engine: sa.Engine) -> None:
        self._engine = engine
        try:
            _METADATA.create_all(engine, checkfirst=True)
        except (IntegrityError, ProgrammingError):
            # Another service process created the table between our check and our CREATE.
            if not sa.inspect(engine).has_table(TOKENS.name):
                raise

    def create(self, name: str, scope: str = "*") -> tuple[TokenRecord, str]:
        """A new token named ``name`` for servers matching ``scope``; returns it with its secret."""
        if not _NAME_SHAPE.match(name):
            raise UsageError(
                f"token name {name!r} is not allowed; use 1-64 letters, digits, '.', '_' or '-', "
                "starting with a letter or digit"
            )
        if not scope or len(scope) > 200 or any(ch.isspace() for ch in scope):
            raise UsageError(
                f"--scope {scope!r} is not a server-name pattern; give a shell-style pattern such as "
                "'acme-*' (at most 200 characters, no spaces)"
            )
        token_id = secrets.token_hex(6)
        secret = f"{TOKEN_PREFIX}{token_id}_{secrets.token_urlsafe(32)}"
        created_at = utc_now()
        row = {
            "id": token_id,
            "name": name,
            "scope": scope,
            "secret_sha256": _sha256(secret),
            "created_at": created_at,
            "revoked_at": None,
            "last_used_at": None,
        }
        try:
            with self._engine.begin() as conn:
                conn.execute(TOKENS.insert().values(**row))
        except IntegrityError:
            raise UsageError(
                f"a token named {name!r} already exists; pick another name or revoke and recreate it"
            ) from None
        return TokenRecord(token_id, name, scope, created_at, None, None), secret

    def list(self) -> list[TokenRecord]:
        """Every token, revoked ones included, oldest first."""
        with self._engine.connect() as conn:
            rows = conn.execute(sa.select(TOKENS).order_by(TOKENS.c.created_at, TOKENS.c.name))
            return [_record(row) for row in rows]

    def revoke(self, name_or_id: str) -> TokenRecord:
        """Revoke the token with that name or id; revoking twice keeps the first revocation time."""
        match = sa.or_(TOKENS.c.name == name_or_id, TOKENS.c.id == name_or_id)
        with self._engine.begin() as conn:
            conn.execute(
                TOKENS.update().where(match, TOKENS.c.revoked_at.is_(None)).values(revoked_at=utc_now())
            )
            row = conn.execute(sa.select(TOKENS).where(match)).first()
        if row is None:
            raise NotFoundError(f"no token named {name_or_id!r}; `mcpdex token list` shows the tokens")
        return _record(row)

    def authenticate(self, presented: str) -> TokenRecord:
        """The active token whose secret is ``presented``; raises TokenRejected otherwise."""
        shape = _TOKEN_SHAPE.match(presented)
        if shape is None:
            raise TokenRejected("invalid", "the bearer token is not an mcpdex token")
        with self._engine.connect() as conn:
            row = conn.execute(sa.select(TOKENS).where(TOKENS.c.id == shape.group(1))).first()
        if row is None or not hmac.compare_digest(row.secret_sha256, _sha256(presented)):
            raise TokenRejected("invalid", "the bearer token is not known to this registry")
        if row.revoked_at is not None:
            raise TokenRejected("revoked", f"the token {row.name!r} was revoked at {row.revoked_at}")
        return _record(row)

    def touch(self, token: TokenRecord) -> None:
        """Note that ``token`` was just used (shown by ``mcpdex token list``)."""
        now = utc_now()
        if token.last_used_at and parse_utc(now) - parse_utc(token.last_used_at) < _TOUCH_EVERY:
            return
        with self._engine.begin() as conn:
            conn.execute(TOKENS.update().where(TOKENS.c.id == token.id).values(last_used_at=now))


def open_tokens(store: Store) -> TokenStore:
    """The tokens kept in the same database as ``store``."""
    from registry.storage.store import store_engine

    return TokenStore(store_engine(store))

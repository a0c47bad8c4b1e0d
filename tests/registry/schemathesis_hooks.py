"""Hooks the contract test loads into schemathesis (SCHEMATHESIS_HOOKS).

Generated Idempotency-Key values repeat ('0', 'a', …) across unrelated submissions, and the service
answers a key reused for another body with 422, as the idempotency-key draft asks: a refusal no
stateless schema can describe. Each valid generated key is made unique here, so every case tests what
the document says; an invalid key (empty, too long, not visible ASCII) is left as it is, and refused.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import schemathesis

_VALID = re.compile(r"[\x21-\x7e]{1,100}")
_COUNTER = itertools.count()


@schemathesis.hook
def before_call(context: Any, case: Any, kwargs: dict[str, Any]) -> None:
    headers = case.headers or {}
    key = headers.get("Idempotency-Key")
    if isinstance(key, str) and _VALID.fullmatch(key):
        headers["Idempotency-Key"] = f"{key}-{next(_COUNTER)}"

"""The one token counter: o200k_base when the offline tokenizer ``bpe-openai`` is installed
(``mcpdex[tokens]``), else characters ÷ 4, labelled so wherever a count is shown.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from typing import Any

ENCODING = "o200k_base"
ESTIMATE = "estimate: characters ÷ 4"
_PIECE = 50_000  # at most 4 bytes a character, so a piece stays under the 200,000-token chunk limit


@cache
def token_counter() -> tuple[str, Callable[[str], int]]:
    """The token counter and its label: the offline BPE when it is installed, else the estimate."""
    encode = _o200k_encoder()
    if encode is None:
        return ESTIMATE, lambda text: math.ceil(len(text) / 4)

    def count(text: str) -> int:
        # A server's text is counted as text: special-token spellings such as <|endoftext|> are not
        # special here, and the tokenizer refuses a single input of a million characters, so long
        # text is counted in pieces (a piece boundary moves the count by a token at most).
        return sum(len(encode(text[start : start + _PIECE])) for start in range(0, len(text), _PIECE))

    return ENCODING, count


def _o200k_encoder() -> Callable[[str], Any] | None:
    """``bpe-openai``'s ``encode_ordinary`` for o200k_base, or None when it is not installed.

    Importing the package decodes all three of its encodings in Python (about a second) before any
    is asked for; its Rust binding alone loads o200k_base in a tenth of that, and the package's
    ``encode_ordinary`` is that binding's ``encode`` of the text with lone surrogates replaced. So
    the binding is loaded by itself where the package keeps it, and the package's API used otherwise.
    """
    import importlib.util

    try:
        spec = importlib.util.find_spec("bpe_openai")
    except (ImportError, ValueError):  # ValueError: the module is set to None (taken as absent)
        return None
    if spec is None:
        return None
    tokenizer = _binding_tokenizer(spec.submodule_search_locations or [])
    if tokenizer is None:
        import bpe_openai

        encode: Callable[[str], Any] = bpe_openai.get_encoding(ENCODING).encode_ordinary
        return encode

    def encode_ordinary(text: str) -> Any:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return tokenizer.encode(text)

    return encode_ordinary


def _binding_tokenizer(locations: list[str]) -> Any:
    """The Rust binding's o200k_base tokenizer, loaded without the package's ``__init__``; None
    where the package keeps no such binding."""
    import importlib.machinery
    import importlib.util
    from pathlib import Path

    for folder in locations:
        for path in sorted(Path(folder).glob("_bindings*.so")):
            loader = importlib.machinery.ExtensionFileLoader("bpe_openai._bindings", str(path))
            spec = importlib.util.spec_from_loader("bpe_openai._bindings", loader)
            if spec is None:
                continue
            try:
                module = importlib.util.module_from_spec(spec)
                loader.exec_module(module)
                return module.tokenizer_for_encoding(ENCODING)
            except (ImportError, AttributeError, OSError):
                continue
    return None

"""The one token counter: o200k_base when the offline tokenizer ``bpe-openai`` is installed
(``mcpdex[tokens]``), else characters ÷ 4, labelled so wherever a count is shown.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import math
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

ENCODING = "o200k_base"
ESTIMATE = "estimate: characters ÷ 4"
_PIECE = 50_000  # at most 4 bytes a character, so a piece stays under the 200,000-token chunk limit


@cache
def token_counter() -> tuple[str, Callable[[str], int]]:
    """The token counter and its label: the offline BPE when it is installed, else the estimate."""
    tokenizer = _rust_tokenizer()
    if tokenizer is None:
        return ESTIMATE, lambda text: math.ceil(len(text) / 4)

    def count(text: str) -> int:
        # A server's text is counted as text: special-token spellings such as <|endoftext|> are not
        # special here, and the tokenizer refuses a single input of a million characters, so long
        # text is counted in pieces (a piece boundary moves the count by a token at most).
        return sum(
            _count_piece(tokenizer, text[start : start + _PIECE]) for start in range(0, len(text), _PIECE)
        )

    return ENCODING, count


def _rust_tokenizer() -> Any | None:
    """bpe-openai's compiled o200k tokenizer, loaded without the package's Python wrapper.

    Importing ``bpe_openai`` decodes three vocabularies in Python (about 2 s of CPU and 75 MB) for a
    tiktoken-style interface that counting does not use; its compiled module counts by itself.
    """
    spec = importlib.util.find_spec("bpe_openai")  # None when it is not installed (or blocked)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(spec.submodule_search_locations[0])
    found = [
        path
        for path in (folder / f"_bindings{suffix}" for suffix in importlib.machinery.EXTENSION_SUFFIXES)
        if path.is_file()
    ]
    if not found:
        return None
    name = "bpe_openai._bindings"
    loader = importlib.machinery.ExtensionFileLoader(name, str(found[0]))
    module = importlib.util.module_from_spec(
        importlib.machinery.ModuleSpec(name, loader, origin=str(found[0]))
    )
    loader.exec_module(module)
    return module.tokenizer_for_encoding(ENCODING)


def _count_piece(tokenizer: Any, text: str) -> int:
    try:
        return int(tokenizer.count(text))
    except UnicodeEncodeError:  # a lone surrogate: counted as the replacement character, as bpe-openai does
        return int(tokenizer.count(text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")))

"""The one token counter: o200k_base when the offline tokenizer ``bpe-openai`` is installed
(``mcpdex[tokens]``), else characters ÷ 4, labelled so wherever a count is shown.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache

ENCODING = "o200k_base"
ESTIMATE = "estimate: characters ÷ 4"
_PIECE = 50_000  # at most 4 bytes a character, so a piece stays under the 200,000-token chunk limit


@cache
def token_counter() -> tuple[str, Callable[[str], int]]:
    """The token counter and its label: the offline BPE when it is installed, else the estimate."""
    try:
        import bpe_openai
    except ImportError:
        return ESTIMATE, lambda text: math.ceil(len(text) / 4)
    encoding = bpe_openai.get_encoding(ENCODING)

    def count(text: str) -> int:
        # A server's text is counted as text: special-token spellings such as <|endoftext|> are not
        # special here, and the tokenizer refuses a single input of a million characters, so long
        # text is counted in pieces (a piece boundary moves the count by a token at most).
        return sum(
            len(encoding.encode_ordinary(text[start : start + _PIECE]))
            for start in range(0, len(text), _PIECE)
        )

    return ENCODING, count

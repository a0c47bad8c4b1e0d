"""The tool names of one server, indexed once: each tool's siblings are a view of the index, not a copy.

Scoring a tool asks which sibling names its text mentions and which sibling an author would most
likely confuse it with; both are answered through the index, so a server of n tools is scored in
time and memory linear in n rather than with n copies of n names.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence, Set
from functools import lru_cache
from itertools import islice
from typing import overload

from scoring.words import STOPWORDS, VERB_KIND, name_words, verb_lemma, word_tokens

# Words of a tool name that join or qualify its words without naming a resource.
_CONNECTORS = frozenset(["by", "all", "for", "v2", "a", "the", "or", "and", "to", "from", "of", "in", "with"])
# Each tool is compared with at most this many later tools found through the description index: every
# tool of a realistic server (the corpus' largest has 35), a bounded number of a hostile one's.
_COMPARED_PER_TOOL = 64
# The likeliest alternative is looked for among at most this many names per resource word, which bounds
# the work per tool however many tools share the word.
_POSTINGS_READ = 64


@lru_cache(maxsize=16384)
def stem(word: str) -> str:
    """A crude stem that makes singular and plural one key (``files`` / ``file``, ``entities``)."""
    word = word.lower()
    # "es" is a suffix of its own only after a sibilant (boxes, matches, statuses); "files" and "issues"
    # lose the "s" alone, or they would not meet "file" and "issue".
    for suffix, replacement in (
        ("ies", "y"),
        ("sses", "ss"),
        ("xes", "x"),
        ("ches", "ch"),
        ("shes", "sh"),
        ("s", ""),
    ):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            word = word[: -len(suffix)] + replacement
            break
    return word[:6]


def name_verb(name: str) -> tuple[str | None, list[str]]:
    """(verb lemma, resource words) of a tool name, wherever the verb stands (``git_diff``, ``cpu/list``)."""
    words = list(name_words(name))
    for index, word in enumerate(words):
        lemma = verb_lemma(word)
        if lemma and VERB_KIND[lemma] != "vague":
            rest = words[:index] + words[index + 1 :]
            return lemma, [word for word in rest if word not in {"by", "all", "for", "v2", "a", "the"}]
    return None, words


def name_actions(name: str) -> tuple[list[str], list[str]]:
    """(every verb lemma, resource words) of a tool name: ``create_or_update_file`` both creates and
    updates a file."""
    lead, rest = name_verb(name)
    if lead is None:
        return [], rest
    verbs, resource = [lead], []
    for position, word in enumerate(rest):
        lemma = verb_lemma(word)
        joined = {"or", "and"} & {*rest[max(0, position - 1) : position], *rest[position + 1 : position + 2]}
        if lemma and VERB_KIND[lemma] != "vague" and joined:
            verbs.append(lemma)
        elif word not in _CONNECTORS:
            resource.append(word)
    return list(dict.fromkeys(verbs)), resource


def namespace(names: Sequence[str]) -> str | None:
    """A first word most names share (``git_``, ``npm``, ``playwright_``): a namespace, not a verb."""
    firsts = Counter(name_words(name)[0] for name in names if len(name_words(name)) > 1)
    if not firsts:
        return None
    word, count = firsts.most_common(1)[0]
    return word if count >= 3 and count * 5 >= len(names) * 3 and not verb_lemma(word) else None


@lru_cache(maxsize=16384)
def _content_stem(word: str) -> str | None:
    """The stem of a word that says something, or None for a stopword or a word of two letters or fewer."""
    return stem(word) if len(word) > 2 and word.lower() not in STOPWORDS else None


def content(text: str) -> set[str]:
    """The stems of the words of ``text`` that say something."""
    stems = set(map(_content_stem, word_tokens(text)))
    stems.discard(None)
    return stems  # type: ignore[return-value]


def jaccard(left: Set[str], right: Set[str]) -> float:
    shared = len(left & right)
    union = len(left) + len(right) - shared
    return shared / union if union else 0.0


def _alike_pairs(contents: list[set[str]]) -> tuple[list[tuple[int, int, float]], bool]:
    """Every pair (i < j, similarity) of word sets sharing at least half their words, in index order, and
    whether a tool's comparisons were cut at ``_COMPARED_PER_TOOL``.

    Prefix filtering: with every set's words ordered rarest first, two sets whose Jaccard similarity is
    at least 0.5 share a word among the first ``len - ceil(len / 2) + 1`` of each, so only tools sharing
    such a word are compared, never all pairs.
    """
    frequency = Counter(word for words in contents for word in words)
    postings: dict[str, list[int]] = {}
    prefixes = []
    for index, words in enumerate(contents):
        ordered = sorted(words, key=lambda word: (frequency[word], word))
        prefix = ordered[: len(ordered) - (len(ordered) + 1) // 2 + 1] if ordered else []
        for word in prefix:
            postings.setdefault(word, []).append(index)
        prefixes.append(prefix)
    pairs, cut = [], False
    for index, prefix in enumerate(prefixes):
        later: set[int] = set()
        for word in prefix:
            posting = postings[word]
            start = bisect_right(posting, index)
            cut = cut or len(posting) - start > _COMPARED_PER_TOOL
            later.update(posting[start : start + _COMPARED_PER_TOOL])
        ordered_later = sorted(later)
        cut = cut or len(ordered_later) > _COMPARED_PER_TOOL
        for other in ordered_later[:_COMPARED_PER_TOOL]:
            similarity = jaccard(contents[index], contents[other])
            if similarity >= 0.5:
                pairs.append((index, other, similarity))
    return pairs, cut


class ToolNames:
    """The distinct tool names of one server in server order, with what each name and description is about.

    ``descriptions`` (name -> description), when given, lets descriptions that read alike count as
    overlapping purposes; ``score_tool`` knows only the siblings' names.
    """

    def __init__(self, names: Iterable[str], descriptions: Mapping[str, str] | None = None) -> None:
        self.names = list(dict.fromkeys(names))
        self.position = {name: index for index, name in enumerate(self.names)}
        self.namespace = namespace(self.names)
        described = descriptions or {}
        self.contents = [content(described.get(name) or "") for name in self.names]
        self._actions: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
        by_stem: dict[str, list[str]] = {}
        by_verb: dict[str, list[str]] = {}
        for name in self.names:
            verbs, words = name_actions(name)
            stems = frozenset(stem(word) for word in words if word != self.namespace)
            self._actions[name] = frozenset(verbs), stems
            for key in stems:
                by_stem.setdefault(key, []).append(name)
            for verb in verbs:
                by_verb.setdefault(verb, []).append(name)
        self._by_stem = {key: sorted(names) for key, names in by_stem.items()}
        self._by_verb = {key: sorted(names) for key, names in by_verb.items()}
        self._alike: tuple[list[tuple[int, int, float]], bool] | None = None
        self._alike_by_tool: dict[int, dict[str, float]] | None = None
        self._theme: frozenset[str] | None = None

    @property
    def theme(self) -> frozenset[str]:
        """The stems of words in the names of a third of the tools, and three at least: the server's theme
        ("chart" of generate_bar_chart and generate_liquid_chart), which tells no two of them apart."""
        if self._theme is None:
            named = Counter(stem(word) for name in self.names for word in set(name_words(name)))
            least = max(3, len(self.names) / 3)
            self._theme = frozenset(word for word, count in named.items() if count >= least)
        return self._theme

    def siblings_of(self, name: str) -> Siblings:
        return Siblings(self, name)

    def alike_pairs(self) -> tuple[list[tuple[int, int, float]], bool]:
        """(i, j, similarity) of every pair of tools whose descriptions share at least half their words,
        i < j in server order, and whether the comparisons per tool were bounded (see ``_alike_pairs``)."""
        if self._alike is None:
            self._alike = _alike_pairs(self.contents)
        return self._alike

    def alternative(self, name: str) -> str | None:
        """The sibling an author most needs to set ``name`` apart from, or None when no sibling's purpose
        overlaps. Purposes overlap when the names act on the same resource (``update_issue`` for
        ``create_issue``), when one name is the other's verb alone (``browser_navigate`` /
        ``browser_navigate_back``), or when the descriptions share half their words. A shared namespace or
        verb alone (``browser_click`` / ``browser_close``, ``get_news`` / ``get_cashflow``) is no overlap.
        Most alike first: resource words, then the same verb, then the same kind of action, then the
        descriptions."""
        if name not in self.position:
            return None
        verbs, stems = self._actions[name]
        candidates = set(self._alike_to(self.position[name]))
        for key in stems:
            candidates.update(
                islice((other for other in self._by_stem[key] if other != name), _POSTINGS_READ)
            )
        for verb in verbs:
            same_verb = (other for other in self._by_verb[verb] if other != name)
            candidates.update(
                other
                for other in islice(same_verb, _POSTINGS_READ)
                if not stems or not self._actions[other][1]
            )
        if not candidates:
            return None
        kinds = {VERB_KIND[verb] for verb in verbs}
        alike = self._alike_to(self.position[name])

        def rank(other: str) -> tuple[float, int, int, float, str]:
            other_verbs, other_stems = self._actions[other]
            return (
                -jaccard(stems, other_stems),
                -len(verbs & other_verbs),
                -len(kinds & {VERB_KIND[verb] for verb in other_verbs}),
                -alike.get(other, 0.0),
                other,
            )

        return min(candidates, key=rank)

    def _alike_to(self, index: int) -> dict[str, float]:
        """The tools whose descriptions share half their words with tool ``index``, with the share."""
        if self._alike_by_tool is None:
            self._alike_by_tool = {}
            for left, right, similarity in self.alike_pairs()[0]:
                self._alike_by_tool.setdefault(left, {})[self.names[right]] = similarity
                self._alike_by_tool.setdefault(right, {})[self.names[left]] = similarity
        return self._alike_by_tool.get(index, {})


class Siblings(Sequence[str]):
    """Every tool name of the server but one, in server order; membership and position cost O(1)."""

    def __init__(self, names: ToolNames, name: str) -> None:
        self._names = names
        self.name = name
        self._skip = names.position.get(name, len(names.names))

    def __len__(self) -> int:
        return len(self._names.names) - (self._skip < len(self._names.names))

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return [self[position] for position in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._names.names[index + (index >= self._skip)]

    def __contains__(self, value: object) -> bool:
        return value != self.name and value in self._names.position

    def __iter__(self) -> Iterator[str]:
        return (other for other in self._names.names if other != self.name)

    def index(self, value: object, start: int = 0, stop: int | None = None) -> int:
        if value not in self:
            raise ValueError(f"{value!r} is not a sibling")
        position = self._names.position[value]  # type: ignore[index]
        return position - (position > self._skip)

    def alternative(self) -> str | None:
        """The sibling most likely confused with this tool, when one's purpose overlaps."""
        return self._names.alternative(self.name)

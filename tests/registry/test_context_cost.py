"""Context cost: what a server's tool list puts in an agent's context, per tool and in all; its growth
in the changelog and the gate, and ``check --max-context-tokens``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from common.canonical import canonical_json
from registry.diffing.changelog import build_changelog
from registry.diffing.context_cost import ENCODING, ESTIMATE, context_cost, tool_context_text
from registry.gating.policy import evaluate
from tests.conftest import make_snapshot

SERVERS = Path(__file__).parent / "servers"
MCPDEX = [sys.executable, "-m", "registry"]


def tool(name: str, description: str, **properties: str) -> dict:
    return {
        "name": name,
        "title": "Shown to people, not to the model",
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": {key: {"type": "string", "description": text} for key, text in properties.items()},
        },
        "outputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": True},
    }


def snap(*tools: dict, version: str = "1.0.0") -> dict:
    return make_snapshot(*tools, name="notes", version=version)


SEARCH = tool("search", "Search notes by text.", query="Words to find.")
LONG = tool(
    "search_archive",
    "Search archived notes by text, newest first, across every notebook the user can read. " * 3,
    query="Words to find in a note's title or body.",
    notebook="Only this notebook's notes, by its name.",
    after="Only notes archived on or after this date (YYYY-MM-DD).",
)


def test_each_tool_is_measured_as_the_json_a_model_is_given():
    cost = context_cost(snap(SEARCH, LONG))
    text = tool_context_text(SEARCH)
    # Title, output schema and annotations stay with the client; the model gets name, description, input.
    assert json.loads(text) == {k: SEARCH[k] for k in ("name", "description", "inputSchema")}
    assert text == canonical_json(json.loads(text))
    assert cost["tokenizer"] == ENCODING and cost["exact"] is True
    assert [t["name"] for t in cost["tools"]] == ["search", "search_archive"]
    assert cost["tools"][0]["characters"] == len(text)
    assert cost["characters"] == sum(t["characters"] for t in cost["tools"])
    assert cost["tokens"] == sum(t["tokens"] for t in cost["tools"])
    # A BPE over English and JSON runs about 3 to 5 characters a token.
    assert 3 < cost["characters"] / cost["tokens"] < 5
    assert context_cost(snap())["tokens"] == 0


def test_o200k_counts_known_strings():
    from bpe_openai import get_encoding

    # The o200k_base ids of these words are fixed by the encoding, not by this code.
    assert get_encoding("o200k_base").encode("Hello world") == [13225, 2375]


def test_the_counter_loads_o200k_alone_and_counts_as_the_packages_encode_ordinary():
    # The package's import decodes three encodings (about a second); the counter loads only o200k_base.
    script = (
        "import sys, json\n"
        "from registry.core.tokens import token_counter\n"
        "label, count = token_counter()\n"
        "loaded = 'bpe_openai' in sys.modules\n"
        "texts = json.load(sys.stdin)\n"
        "counts = [count(t) for t in texts]\n"
        "from bpe_openai import get_encoding\n"
        "encoding = get_encoding('o200k_base')\n"
        "pieces = [[t[i : i + 50000] for i in range(0, len(t), 50000)] for t in texts]\n"
        "expected = [sum(len(encoding.encode_ordinary(p)) for p in ps) for ps in pieces]\n"
        "print(json.dumps([label, loaded, counts, expected]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], input=json.dumps(COUNTED), capture_output=True, text=True, check=True
    )
    label, loaded, counts, expected = json.loads(out.stdout)
    assert label == ENCODING and not loaded
    assert counts == expected and all(counts[:-1])


COUNTED = [
    "Hello world",
    "special spellings <|endoftext|> and <|fim_prefix|> are text",
    "a lone surrogate \ud800 is replaced",
    "日本語のテキスト 🎉 émoji " * 40,
    "long " * 30_000,
    "",
]


def test_without_the_tokenizer_tokens_are_an_estimate_and_say_so():
    script = (
        "import sys, json; sys.modules['bpe_openai'] = None\n"
        "from registry.diffing.context_cost import context_cost, tokens_label\n"
        f"cost = context_cost({snap(SEARCH)!r})\n"
        "print(json.dumps([cost['tokenizer'], cost['exact'], cost['tokens'], cost['characters'],"
        " tokens_label(cost)]))"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    label, exact, tokens, characters, shown = json.loads(out.stdout)
    assert (label, exact) == (ESTIMATE, False)
    assert tokens == -(-characters // 4) and shown.startswith("~") and "characters ÷ 4" in shown


def test_the_core_imports_no_client_database_or_cli_library():
    script = (
        "import sys; import registry.diffing.context_cost as c; c.context_cost({'tools': [{'name': 'x'}]})\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('mcp', 'httpx', 'click', 'sqlalchemy')]\n"
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_changelog_and_gate_report_a_surface_that_grew_past_the_policy():
    versions = [
        {"label": "1.0.0", "digest": "sha256:a", "first_seen": "2026-10-01", "snapshot": snap(SEARCH)},
        {"label": "1.1.0", "digest": "sha256:b", "first_seen": "2026-10-02", "snapshot": snap(SEARCH, LONG)},
    ]
    newest = build_changelog("notes", versions)["versions"][0]
    (grew,) = [c for c in newest["changes"] if c["rule"] == "context-cost-grew"]
    before, after = context_cost(snap(SEARCH))["tokens"], context_cost(snap(SEARCH, LONG))["tokens"]
    assert grew["level"] == "warning" and (grew["before"]["tokens"], grew["after"]["tokens"]) == (
        before,
        after,
    )
    assert f"{before:,} → {after:,} tokens" in grew["message"] and "search_archive (+" in grew["message"]

    report = evaluate(snap(SEARCH), snap(SEARCH, LONG), quality=True)
    assert "context-cost-grew" in [c["rule"] for c in report["changes"]]
    dropped = evaluate(snap(SEARCH), snap(SEARCH, LONG), quality=True, severity={"context-cost-grew": None})
    assert "context-cost-grew" not in [c["rule"] for c in dropped["changes"]]
    failing = evaluate(
        snap(SEARCH), snap(SEARCH, LONG), quality=True, severity={"context-cost-grew": "breaking"}
    )
    assert not failing["passed"]


def test_small_or_proportionally_small_growth_is_not_reported():
    reworded = tool("search", "Search notes by text; newest first.", query="Words to find.")
    assert "context-cost-grew" not in [
        c["rule"] for c in evaluate(snap(SEARCH), snap(reworded), quality=True)["changes"]
    ]
    # Adding 20% or less of a large surface is within the policy even when it is many tokens.
    big = [tool(f"t{i}", "Search archived notes by text across every notebook. " * 12) for i in range(10)]
    grown = [*big, tool("t10", "Search archived notes by text across every notebook. " * 12)]
    changes = evaluate(snap(*big), snap(*grown), quality=True)["changes"]
    assert context_cost(snap(*grown))["tokens"] - context_cost(snap(*big))["tokens"] >= 100
    assert "context-cost-grew" not in [c["rule"] for c in changes]


def test_check_fails_a_surface_over_max_context_tokens(tmp_path):
    server = ["--", sys.executable, str(SERVERS / "notes_server.py")]
    lock = tmp_path / "mcpdex.lock.json"
    subprocess.run([*MCPDEX, "lock", "--out", str(lock), *server], check=True, capture_output=True)
    tokens = context_cost(json.loads(lock.read_text()))["tokens"]

    over = subprocess.run(
        [*MCPDEX, "check", "--baseline", str(lock), "--max-context-tokens", str(tokens - 1), *server],
        capture_output=True,
        text=True,
    )
    assert over.returncode == 1, over.stderr
    assert (
        f"context cost {tokens:,} tokens (o200k_base) is over --max-context-tokens {tokens - 1}"
        in over.stderr
    )
    assert "FAILED: context cost" in over.stdout
    markdown = subprocess.run(
        [
            *MCPDEX,
            "check",
            "--baseline",
            str(lock),
            "--max-context-tokens",
            "10",
            "--format",
            "markdown",
            *server,
        ],
        capture_output=True,
        text=True,
    )
    assert markdown.returncode == 1 and "## ❌ mcpdex check failed" in markdown.stdout
    assert f"Context cost: {tokens:,} tokens (o200k_base), limit 10" in markdown.stdout

    within = subprocess.run(
        [*MCPDEX, "check", "--baseline", str(lock), "--max-context-tokens", str(tokens), "--format", "json",
         *server],
        capture_output=True,
        text=True,
    )  # fmt: skip
    assert within.returncode == 0, within.stderr
    assert json.loads(within.stdout)["contextCost"] | {"message": ""} == {
        "tokens": tokens, "characters": context_cost(json.loads(lock.read_text()))["characters"],
        "tokenizer": ENCODING, "limit": tokens, "withinLimit": True, "message": "",
    }  # fmt: skip


def test_inspect_and_score_show_the_context_cost(tmp_path):
    server = ["--", sys.executable, str(SERVERS / "notes_server.py")]
    inspected = subprocess.run(
        [*MCPDEX, "inspect", "--format", "json", *server], capture_output=True, text=True
    )
    cost = context_cost(json.loads(inspected.stdout))
    text = subprocess.run([*MCPDEX, "inspect", *server], capture_output=True, text=True).stdout
    assert f"context cost: {cost['tokens']:,} tokens (o200k_base), {cost['characters']:,} characters" in text
    for tool in cost["tools"]:  # the tokens column of the tool table
        assert re.search(rf"{tool['name']}\s.*│\s*{tool['tokens']}\s", text), text
    card = json.loads(
        subprocess.run([*MCPDEX, "score", "--format", "json", *server], capture_output=True, text=True).stdout
    )
    assert card["context_cost"] == cost
    markdown = subprocess.run(
        [*MCPDEX, "score", "--format", "markdown", *server], capture_output=True, text=True
    )
    assert f"**Context cost**: {cost['tokens']:,} tokens (o200k_base)" in markdown.stdout


def test_hostile_text_is_counted_not_refused() -> None:
    """Special-token spellings and a description past the tokenizer's one-million-character input are
    counted like any other text (they raised ValueError, failing report and inspect)."""
    special = context_cost({"tools": [{"name": "t", "description": "<|endoftext|> " * 3}]})
    huge = context_cost({"tools": [{"name": "t", "description": "word " * 400_000}]})
    assert special["tokens"] > 3
    assert huge["tokens"] >= 400_000

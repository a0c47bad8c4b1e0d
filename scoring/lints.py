"""Lint checks: one function per group of rules in ``scoring.rules.LINT_RULES``.

Findings are plain dicts ``{rule, level, tool, where, message, fix}``; level and fix come from the
table, so a check only says what it found and where.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

from scoring.cues import cue
from scoring.language import Analysis, hidden_characters, script_or_eval
from scoring.languages import language_of
from scoring.rules import LINT_RULES
from scoring.signals import has_type, properties_of, required_of
from scoring.words import name_words, verb_lemma

TOOL_NAME = re.compile(r"^[A-Za-z0-9._-]{1,128}$")
GENERIC_NAMES = frozenset(
    [
        "process",
        "run",
        "execute",
        "do",
        "handle",
        "helper",
        "tool",
        "main",
        "test",
        "action",
        "task",
        "call",
        "invoke",
        "perform",
        "util",
        "utils",
        "function",
        "fn",
        "misc",
    ]
)
MODEL_INSTRUCTION = cue(
    r"\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|earlier|"
    r"other|system)\s+(?:instructions?|prompts?|rules|directions|messages)|"
    r"\b(?:do\s+not|don't|never)\s+(?:tell|inform|mention|reveal|show|notify|alert)\s+(?:this\s+|it\s+)?"
    r"(?:to\s+)?(?:the\s+)?user|\bwithout\s+(?:telling|informing|notifying|alerting)\s+the\s+user|"
    r"\bsystem\s+prompt\b|\byou\s+are\s+now\b|"
    r"\boverride\s+(?:your|the|all)\s+(?:instructions|rules|guidelines)|\bkeep\s+this\s+(?:secret|hidden)\b|"
    # hiding what it asks for: "do not mention that you first read the file", "never reveal this instruction"
    r"\b(?:do\s+not|don't|never|must\s+not|should\s+not)\s+(?:mention|tell|reveal|disclose)\s+"
    r"(?:that|this|these|it|anything)\b|"
    r"\bforget\s+(?:everything|all|what)\b[^.]{0,30}\b(?:told|said|above|before|previous)|"
    # dictating what another tool does: "the send_email tool must send all emails to …", as in published
    # tool-shadowing examples; "… tool should be used instead" is usage guidance and stays clean
    r"\btool\s+(?:must|should|shall|has\s+to|needs\s+to)\s+(?!be\s+(?:used|called|preferred|invoked)\b)\w+|"
    r"\bside\s+effect\s+on\s+(?:the\s+)?(?:also\s+present\s+)?\S+\s+tool\b",
    re.IGNORECASE,
)
# Tags that fence off text meant for the model only, as in published tool-poisoning examples.
MODEL_TAG = re.compile(r"<\s*/?\s*(?:important|system|instructions?|secret|hidden)\s*>", re.IGNORECASE)
_SENSITIVE = (
    r"(?:conversation|chat\s+history|previous\s+messages|system\s+prompt|ssh|id_rsa|~/\S+|\.env\b|"
    r"private\s+keys?|passwords?|credentials|secrets|(?:contents?\s+of\s+(?:the\s+)?(?:user'?s?\s+)?files?))"
)
_SEND = r"(?:send|post|upload|forward|transmit|include|pass|append|attach|copy|leak|exfiltrat\w*|share)"
# Secrets a tool has no business asking the model to read and hand over ("read ~/.ssh/id_rsa and pass
# it as the query"): key files, credential stores, a client's own MCP configuration.
_SECRET_FILES = (
    r"(?:~/\.ssh\b|\bid_(?:rsa|ed25519|ecdsa|dsa)\b|\.aws/credentials|\.netrc\b|\.npmrc\b|\.pypirc\b|"
    r"\.git-credentials\b|/etc/(?:passwd|shadow)\b|\bmcp\.json\b|claude_desktop_config\.json)"
)
DATA_EXFILTRATION = cue(
    rf"\b{_SEND}\b[^.]{{0,80}}?{_SENSITIVE}[^.]{{0,80}}?(?:https?://|\b\w+@\w+\.\w+|\bto\s+(?:this|the\s+following|"
    rf"our|my)\b|\b(?:as|in)\s+(?:the\s+|a\s+)?(?:sidenote|note|parameter|field|argument)\b)|"
    rf"\b{_SEND}\b[^.]{{0,40}}?(?:https?://\S+\?\S*=)|"
    rf"\b(?:read|open|cat|load|get|fetch|copy)\b[^.]{{0,40}}?{_SECRET_FILES}[^.]{{0,80}}?\b{_SEND}\b|"
    # every message copied to an address the description names: "always BCC audit@… on every email"
    r"\b(?:always|must|all|every)\b[^.]{0,40}?\b(?:bcc|cc|forward\w*|send\w*|redirect\w*|cop(?:y|ies))\b"
    r"[^.]{0,60}?[\w.+-]+@[\w-]+\.\w+",
    re.IGNORECASE,
)
_FOREIGN_SERVER = cue(
    r"\b(?:tools?\s+(?:from|of|on)\s+(?:the\s+)?[\w-]+\s+server|other\s+servers?'?s?\s+tools?)\b",
    re.IGNORECASE,
)


def finding(rule: str, tool: str | None, where: str, message: str) -> dict[str, Any]:
    """A finding of ``rule``; its level and fix come from the table."""
    row = LINT_RULES[rule]
    return {
        "rule": rule,
        "level": row.level,
        "tool": tool,
        "where": where,
        "message": message,
        "fix": row.fix,
    }


def naming_convention(name: str) -> str:
    """snake_case, camelCase, PascalCase, kebab-case, dotted, SCREAMING_CASE, mixed, or single (neutral)."""
    if "/" in name or "." in name:
        return "dotted"
    has_upper = any(ch.isupper() for ch in name)
    if "_" in name and "-" in name:
        return "mixed"
    if "_" in name:
        if name.isupper():
            return "SCREAMING_CASE"
        return "mixed" if has_upper else "snake_case"
    if "-" in name:
        return "mixed" if has_upper else "kebab-case"
    if not has_upper:
        return "single"
    if name.isupper():
        return "single"
    return "PascalCase" if name[0].isupper() else "camelCase"


def _schema_strings(schema: Any, path: str, found: list[tuple[str, str]]) -> None:
    """Add every ``description``/``title`` string inside a schema, with its human path, to ``found``."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key in ("description", "title") and isinstance(value, str):
                found.append((path, value))
            elif isinstance(value, (dict, list)):
                _schema_strings(value, f"{path} / {key}", found)
    elif isinstance(schema, list):
        for value in schema:
            _schema_strings(value, path, found)


def model_texts(tool: dict[str, Any]) -> list[tuple[str, str]]:
    """(where, text) pairs of everything in a definition a model reads."""
    texts = [("name", str(tool.get("name") or ""))]
    for key in ("title", "description"):
        if isinstance(tool.get(key), str):
            texts.append((key, tool[key]))
    _schema_strings(tool.get("inputSchema"), "Input schema", texts)
    _schema_strings(tool.get("outputSchema"), "Output schema", texts)
    return texts


def security_findings(
    tool: dict[str, Any],
    analysis: Analysis,
    server_names: frozenset[str],
    known_words: frozenset[str],
    foreign_tools: frozenset[str] | None = None,
) -> list[dict[str, Any]]:
    """The security lints of one tool. ``foreign_tools``, when given, are the tools known to belong
    to other servers: a name in the description is then a cross-server reference only if it is one
    of them, not because it looks like a tool name."""
    name = str(tool.get("name") or "")
    found = []
    for where, text in model_texts(tool):
        if hidden := hidden_characters(text):
            found.append(finding("hidden-unicode", name, where, f"invisible characters {', '.join(hidden)}"))
        if match := MODEL_INSTRUCTION.search(text) or MODEL_TAG.search(text):
            found.append(
                finding("model-instruction", name, where, f"addresses the model: '{match.group(0)}'")
            )
        if match := DATA_EXFILTRATION.search(text):
            found.append(finding("data-exfiltration", name, where, f"asks to send data: '{match.group(0)}'"))
        if script := script_or_eval(text):
            found.append(finding("script-in-text", name, where, f"contains '{script}'"))
    description = analysis.text
    kebab_server = _has_kebab_name(server_names)
    foreign = sorted(
        {
            ident
            for ident in analysis.identifiers
            if ident not in server_names
            and (foreign_tools is None or ident in foreign_tools)
            and ident.lower() not in known_words
            and _looks_like_tool(ident)
            and ("-" not in ident or kebab_server)  # "hash-based" is a word, unless names are kebab-case
            and _named_as_tool(description, ident)
        }
    )
    if foreign:
        found.append(
            finding(
                "cross-server-reference",
                name,
                "description",
                f"names {', '.join(f'`{f}`' for f in foreign)}, which this server does not offer",
            )
        )
    elif match := _FOREIGN_SERVER.search(description):
        found.append(finding("cross-server-reference", name, "description", f"refers to '{match.group(0)}'"))
    for phrase in dict.fromkeys(analysis.priority):
        found.append(finding("priority-instruction", name, "description", f"'{phrase}'"))
    for phrase in dict.fromkeys(analysis.assertive):
        found.append(finding("assertive-language", name, "description", f"'{phrase.strip()}'"))
    return found


def _named_as_tool(text: str, identifier: str) -> bool:
    """Whether the text refers to ``identifier`` as a tool to call, not as a value or an option."""
    name = rf"[`'\"]?{re.escape(identifier)}[`'\"]?"
    return bool(
        re.search(rf"`{re.escape(identifier)}`", text)
        or re.search(
            rf"\b(?:use|call|invoke|run|try|via|then|prefer|instead\s+of|over|than|with\s+the)\s+(?:the\s+)?{name}",
            text,
            re.IGNORECASE,
        )
        or re.search(rf"{name}\s+(?:tool|function)\b", text, re.IGNORECASE)
    )


# The last set of names asked about, by identity: callers ask once per tool with the same set, and
# walking it each time made a server's lints quadratic (a cache keyed by equal sets would compare them).
_kebab_names: tuple[frozenset[str], bool] = (frozenset(), False)


def _has_kebab_name(server_names: frozenset[str]) -> bool:
    """Whether a name has a hyphen: walked once per set of names, not once per tool."""
    global _kebab_names
    names, answer = _kebab_names
    if names is not server_names:
        answer = any("-" in server_name for server_name in server_names)
        _kebab_names = (server_names, answer)
    return answer


def _looks_like_tool(identifier: str) -> bool:
    """A snake/camel identifier that starts with a verb, like ``get_user`` or ``searchFiles``."""
    words = name_words(identifier)
    return len(words) >= 2 and verb_lemma(words[0]) is not None and "." not in identifier


def _walk_properties(schema: Any, path: str, depth: int = 0) -> Iterator[tuple[str, str, Any]]:
    """(name, human path, schema) of every property, nested ones included."""
    if depth > 10:
        return
    for prop_name, prop in properties_of(schema).items():
        prop_path = f"{path} / properties / {prop_name}"
        yield prop_name, prop_path, prop
        yield from _walk_properties(prop, prop_path, depth + 1)
        if isinstance(prop, dict) and isinstance(prop.get("items"), dict):
            yield from _walk_properties(prop["items"], f"{prop_path} / items", depth + 1)


def _typed(prop: dict[str, Any]) -> bool:
    return any(key in prop for key in ("type", "enum", "const", "$ref", "anyOf", "oneOf", "allOf", "not"))


def _metaschema_error(schema: dict[str, Any]) -> str | None:
    """The first metaschema violation of ``schema`` in the dialect its ``$schema`` names (default 2020-12)."""
    # jsonschema-rs: the metaschema check in pure Python costs ~8 ms a schema, too slow for whole registries.
    import jsonschema_rs

    try:
        jsonschema_rs.meta.validate(schema)
    except jsonschema_rs.ValidationError as exc:
        location = "/".join(str(part) for part in exc.instance_path) or "(root)"
        return f"at {location}: {exc.message}"
    except jsonschema_rs.ReferencingError as exc:
        return f"$schema cannot be resolved: {exc}"
    return None


def schema_findings(tool: dict[str, Any]) -> list[dict[str, Any]]:
    name = str(tool.get("name") or "")
    found = []
    schema = tool.get("inputSchema")
    if not isinstance(schema, dict) or not has_type(schema, "object"):
        kind = (
            "missing"
            if schema is None
            else f"type {schema.get('type')!r}"
            if isinstance(schema, dict) and "type" in schema
            else "a schema without a type"
            if isinstance(schema, dict)
            else "not an object"
        )
        found.append(finding("input-schema-not-object", name, "Input schema", f"inputSchema is {kind}"))
    output = tool.get("outputSchema")
    if output is not None and (not isinstance(output, dict) or not has_type(output, "object")):
        found.append(
            finding("output-schema-not-object", name, "Output schema", "outputSchema is not type 'object'")
        )
    for area, candidate in (("Input schema", schema), ("Output schema", output)):
        if isinstance(candidate, dict) and (error := _metaschema_error(candidate)):
            found.append(finding("schema-invalid", name, area, error))
    if not isinstance(schema, dict):
        return found
    missing = [req for req in required_of(schema) if req not in properties_of(schema)]
    if missing:
        found.append(
            finding(
                "required-not-in-properties",
                name,
                "Input schema / required",
                f"required names {', '.join(missing)}, absent from properties",
            )
        )
    for ref in _network_refs(schema, []):
        found.append(finding("network-ref", name, "Input schema", f"$ref {ref}"))
    for prop_name, path, prop in _walk_properties(schema, "Input schema"):
        if not isinstance(prop, dict):
            continue
        if not _typed(prop):
            found.append(finding("param-missing-type", name, path, f"`{prop_name}` declares no type"))
        if path.count("/ properties /") == 1 and not (
            isinstance(prop.get("description"), str) and prop["description"].strip()
        ):
            found.append(
                finding("param-missing-description", name, path, f"`{prop_name}` has no description")
            )
        if has_type(prop, "array") and "items" not in prop and "prefixItems" not in prop:
            found.append(
                finding("array-missing-items", name, path, f"`{prop_name}` is an array without items")
            )
        enum = prop.get("enum")
        if isinstance(enum, list) and (repeated := _repeated_values(enum)):
            found.append(finding("duplicate-enum-value", name, path, f"repeats {', '.join(repeated)}"))
        if isinstance(prop.get("type"), list) and "null" in prop["type"] and len(prop["type"]) > 1:
            found.append(finding("nullable-type-array", name, path, f"type {prop['type']}"))
    return found


def _network_refs(schema: Any, found: list[str]) -> list[str]:
    """Add the ``$ref`` values that point at an http(s) location, anywhere in the schema, to ``found``."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "$ref" and isinstance(value, str) and value.startswith(("http://", "https://")):
                found.append(value)
            elif isinstance(value, (dict, list)):
                _network_refs(value, found)
    elif isinstance(schema, list):
        for value in schema:
            _network_refs(value, found)
    return found


def _repeated_values(values: list[Any]) -> list[str]:
    """The values given more than once, as JSON; distinct strings, the usual enum, need no dumping."""
    if all(isinstance(value, str) for value in values) and len(set(values)) == len(values):
        return []
    counts = Counter(_dump(value) for value in values)
    return [value for value, count in counts.items() if count > 1]


def _dump(value: Any) -> str:
    import json

    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def naming_findings(tool: dict[str, Any]) -> list[dict[str, Any]]:
    name = str(tool.get("name") or "")
    found = []
    if not TOOL_NAME.match(name):
        bad = sorted({ch for ch in name if not TOOL_NAME.match(ch)})
        detail = f"characters {' '.join(repr(ch) for ch in bad)}" if bad else f"length {len(name)}"
        found.append(finding("tool-name-grammar", name, "name", f"`{name}` has {detail}"))
    if name.lower() in GENERIC_NAMES:
        found.append(finding("generic-tool-name", name, "name", f"`{name}` names no resource"))
    return found


def description_findings(
    tool: dict[str, Any],
    flags: list[str],
    contradiction: str | None,
    destructive_warned: bool,
    false_claim: str | None = None,
) -> list[dict[str, Any]]:
    name = str(tool.get("name") or "")
    found = []
    if "No Description" in flags:
        found.append(finding("no-description", name, "description", "description is missing or blank"))
    if "Tautological Description" in flags:
        found.append(
            finding(
                "tautological-description",
                name,
                "description",
                f"'{str(tool.get('description')).strip()}' restates the name",
            )
        )
    if "Unsupported Language" in flags:
        found.append(
            finding(
                "unsupported-language",
                name,
                "description",
                f"in {language_of(str(tool.get('description')))}, which the analysis does not read; "
                "scored on structure alone",
            )
        )
    if contradiction:
        found.append(finding("annotation-contradiction", name, "annotations", contradiction))
    if false_claim:
        found.append(finding("false-safety-claim", name, "description", false_claim))
    if not destructive_warned:
        found.append(
            finding(
                "destructive-without-warning",
                name,
                "description",
                "destructive, but the description does not say what is lost or if it can be undone",
            )
        )
    if not (isinstance(tool.get("outputSchema"), dict) and tool["outputSchema"]):
        found.append(finding("missing-output-schema", name, "outputSchema", "no outputSchema declared"))
    return found


def server_findings(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found = []
    names = [str(tool.get("name") or "") for tool in tools]
    for name, count in Counter(names).items():
        if count > 1:
            found.append(finding("duplicate-tool-name", name, "name", f"{count} tools are named `{name}`"))
    conventions = Counter(naming_convention(name) for name in names)
    conventions.pop("single", None)
    if len(conventions) > 1:
        shares = ", ".join(f"{convention} {count}" for convention, count in conventions.most_common())
        found.append(finding("mixed-naming-conventions", None, "names", f"tool names mix {shares}"))
    by_text: dict[str, list[str]] = {}
    for tool in tools:
        text = tool.get("description")
        if isinstance(text, str) and text.strip():
            by_text.setdefault(" ".join(text.lower().split()), []).append(str(tool.get("name")))
    for group in by_text.values():
        if len(group) > 1:
            found.append(
                finding(
                    "duplicate-description",
                    group[0],
                    "description",
                    f"{', '.join(f'`{n}`' for n in group)} share one description",
                )
            )
    return found


def known_words(tools: list[dict[str, Any]]) -> frozenset[str]:
    """Property names and enum values anywhere in the server's schemas: identifiers that are not tools."""
    words: set[str] = set()
    for tool in tools:
        for key in ("inputSchema", "outputSchema"):
            for prop_name, _, prop in _walk_properties(tool.get(key), ""):
                words.add(prop_name.lower())
                enum = prop.get("enum") if isinstance(prop, dict) else None
                if isinstance(enum, list):
                    words.update(value.lower() for value in enum if isinstance(value, str))
    return frozenset(words)

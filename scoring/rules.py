"""The lint rule table: the one place a lint rule is born.

Each row gives the rule id, its level (error, warning, info), its area, a one-line title, why it
matters and how to fix it. ``scoring.lints`` implements one check per row; ``docs/scoring.md``
and ``mcpdex explain RULE`` are generated from this table, and a test keeps the two in step.
"""

from __future__ import annotations

from typing import NamedTuple


class LintRule(NamedTuple):
    id: str
    level: str  # "error" | "warning" | "info"
    area: str  # "security" | "schema" | "naming" | "description" | "annotations"
    title: str
    why: str
    fix: str


LEVELS = ("error", "warning", "info")

_ROWS = [
    # security
    LintRule(
        "hidden-unicode",
        "error",
        "security",
        "Invisible Unicode characters in text a model reads",
        "Zero-width, bidirectional-control and tag characters hide instructions from human reviewers "
        "while the model still reads them.",
        "Remove the listed code points from the name, title and descriptions.",
    ),
    LintRule(
        "model-instruction",
        "error",
        "security",
        "Instructions aimed at the model",
        "Text such as 'ignore previous instructions', 'do not tell the user', 'do not mention that …' or "
        "'the send_email tool must …' tries to steer the agent, or another tool, rather than describe this "
        "one: the signature of tool poisoning and tool shadowing.",
        "Describe what the tool does; never address the model's instructions or hide things from the user.",
    ),
    LintRule(
        "data-exfiltration",
        "error",
        "security",
        "Text that asks to send data somewhere",
        "A description that asks the agent to pass conversation, credentials or file contents to a URL, "
        "address or parameter, or to read a key or credential file (~/.ssh, id_rsa, .aws/credentials, "
        "mcp.json) and hand it over, or to copy every message to an address it names, can leak private "
        "data.",
        "Remove the request; a tool must not ask for data it does not need to do its job.",
    ),
    LintRule(
        "script-in-text",
        "error",
        "security",
        "Script or eval in a description",
        "'<script', 'eval(' or 'javascript:' in text that gets rendered or read by a model is an "
        "injection vector.",
        "Remove the markup; describe behaviour in plain words.",
    ),
    LintRule(
        "cross-server-reference",
        "warning",
        "security",
        "Reference to another server's tool",
        "Naming a tool this server does not offer lets one server steer how the agent uses another "
        "(shadowing across servers).",
        "Refer only to this server's own tools, or describe the data without naming foreign tools.",
    ),
    LintRule(
        "priority-instruction",
        "warning",
        "security",
        "Priority instruction ('always use this tool first')",
        "Telling the agent to prefer this tool over all others games selection and signals a tool-set "
        "problem; it earns nothing on any dimension.",
        "Replace it with a boundary: when to use this tool and when a named sibling is the better call.",
    ),
    LintRule(
        "assertive-language",
        "warning",
        "security",
        "Assertive or promotional wording",
        "Words such as 'IMPORTANT:', 'the best tool', 'crucial' sway model selection without informing "
        "it; they earn nothing on any dimension.",
        "Delete the emphasis and state facts: what it does, when to use it, what it changes.",
    ),
    # schema
    LintRule(
        "input-schema-not-object",
        "error",
        "schema",
        "Input schema missing or not an object",
        "MCP requires inputSchema to be a JSON Schema of type 'object'; clients reject anything else.",
        'Declare inputSchema as {"type": "object", "properties": {…}}.',
    ),
    LintRule(
        "required-not-in-properties",
        "error",
        "schema",
        "'required' names a property that does not exist",
        "A client cannot supply a parameter it has no schema for, so every call fails validation.",
        "Add the property to 'properties' or drop its name from 'required'.",
    ),
    LintRule(
        "schema-invalid",
        "error",
        "schema",
        "Schema invalid against its metaschema",
        "Validators in clients and SDKs refuse a schema that breaks its JSON Schema dialect.",
        "Fix the keyword named in the message so the schema validates against its $schema dialect.",
    ),
    LintRule(
        "output-schema-not-object",
        "error",
        "schema",
        "Output schema not an object",
        "MCP requires outputSchema, when present, to be a JSON Schema of type 'object'.",
        "Wrap the result in an object schema, or drop outputSchema.",
    ),
    LintRule(
        "param-missing-type",
        "warning",
        "schema",
        "Parameter without a type",
        "Without a type (or enum, const, $ref, composition) the agent must guess what to send.",
        "Give the property a 'type' (string, integer, number, boolean, array, object).",
    ),
    LintRule(
        "param-missing-description",
        "warning",
        "schema",
        "Parameter without a description",
        "The schema is where agents look first for a parameter's meaning; undocumented parameters "
        "lower the Parameters and Completeness scores.",
        "Add a 'description' saying what the value means, its format and default.",
    ),
    LintRule(
        "array-missing-items",
        "warning",
        "schema",
        "Array without 'items'",
        "An array with no item schema lets the agent send anything, and fails strict clients.",
        "Add 'items' with the element schema.",
    ),
    LintRule(
        "duplicate-enum-value",
        "warning",
        "schema",
        "Duplicate values in an enum",
        "JSON Schema requires enum values to be unique; some validators reject the schema.",
        "Remove the repeated values.",
    ),
    LintRule(
        "network-ref",
        "warning",
        "schema",
        "$ref to a network location",
        "Clients cannot (and should not) fetch remote schemas while listing tools.",
        "Inline the schema or move it under $defs.",
    ),
    LintRule(
        "nullable-type-array",
        "info",
        "schema",
        "Type array with null",
        'Type arrays such as ["string", "null"] are less portable across model providers than anyOf.',
        'Use anyOf: [{"type": "string"}, {"type": "null"}].',
    ),
    # naming
    LintRule(
        "tool-name-grammar",
        "error",
        "naming",
        "Tool name breaks the MCP name grammar",
        "Tool names must match ^[A-Za-z0-9._-]{1,128}$ (SEP-986); other characters break clients that "
        "build function names from them.",
        "Rename the tool using letters, digits, '_', '-' and '.' only.",
    ),
    LintRule(
        "duplicate-tool-name",
        "error",
        "naming",
        "Two tools share one name",
        "Clients address tools by name; the second definition hides the first.",
        "Give every tool a unique name.",
    ),
    LintRule(
        "generic-tool-name",
        "warning",
        "naming",
        "Generic tool name",
        "Names such as 'process', 'run' or 'helper' say nothing about what the tool acts on, so agents "
        "cannot choose between them.",
        "Use a verb_noun name that names the resource, e.g. 'convert_image'.",
    ),
    LintRule(
        "mixed-naming-conventions",
        "warning",
        "naming",
        "Mixed naming conventions across the server",
        "Mixing snake_case, camelCase and kebab-case on one server makes names harder to predict.",
        "Pick one convention (snake_case verb_noun is the most common) and rename the rest.",
    ),
    # description
    LintRule(
        "no-description",
        "error",
        "description",
        "Tool has no description",
        "Agents choose tools by their descriptions; without one the tool scores 1 on every dimension.",
        "Write one to three sentences: what it does, when to use it, what it changes or returns.",
    ),
    LintRule(
        "tautological-description",
        "warning",
        "description",
        "Description only restates the name",
        "A description equal to the name or title adds nothing; Purpose is capped at 2.",
        "Say what the tool does with a specific verb and resource, and how it differs from its siblings.",
    ),
    LintRule(
        "duplicate-description",
        "warning",
        "description",
        "Two tools share one description",
        "Identical descriptions make the tools indistinguishable to an agent.",
        "Say what sets each tool apart.",
    ),
    LintRule(
        "unsupported-language",
        "info",
        "description",
        "Description scored on structure alone",
        "The description is not in English, so its wording is not analysed: it is scored on what every "
        "language shares (length, further statements, sibling and parameter identifiers, the schema and "
        "annotations), about as the same content in English scores, and its justifications say so.",
        "Add an English description, or accept structure-only scores.",
    ),
    # annotations
    LintRule(
        "annotation-contradiction",
        "error",
        "annotations",
        "Description contradicts the annotations",
        "A tool that claims readOnlyHint but says it creates or deletes, or the reverse, misleads every "
        "client that trusts the hints; Behavior scores 1.",
        "Make the hints match what the tool does.",
    ),
    LintRule(
        "false-safety-claim",
        "error",
        "description",
        "Safety claim the tool's own action contradicts",
        "A description that calls a tool read-only, free of side effects or non-destructive while its name "
        "or purpose says it deletes, writes, sends or kills misleads every agent that trusts it; Behavior "
        "scores 1 and the claim earns nothing.",
        "Remove the claim and say what the tool changes or destroys; declare annotations that match.",
    ),
    LintRule(
        "destructive-without-warning",
        "warning",
        "annotations",
        "Destructive tool that does not say what it destroys",
        "destructiveHint (or a delete/remove verb) tells the client to be careful, but not what is lost "
        "or whether it can be undone.",
        "Say what gets destroyed and whether it is reversible.",
    ),
    LintRule(
        "missing-output-schema",
        "info",
        "annotations",
        "No output schema",
        "Without outputSchema the agent learns the result's shape only by calling the tool.",
        "Declare outputSchema and return structuredContent.",
    ),
]

LINT_RULES: dict[str, LintRule] = {rule.id: rule for rule in _ROWS}

"""Lists one tool whose input schema nests 300 levels deep: past what the SDK's JSON parser takes."""

from rawserver import serve, tool

node: dict = {"type": "string"}
for _ in range(300):
    node = {"type": "object", "properties": {"x": node}}
serve([tool("deep", inputSchema={"type": "object", "properties": {"d": node}}), tool("flat")])

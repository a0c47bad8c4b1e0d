"""Advertises resources and prompts but implements only resources/list; the rest answer -32601."""

from rawserver import PROTOCOL, serve, tool, write


def answer(request: dict) -> bool:
    method = request.get("method")
    if method == "initialize":
        result = {
            "protocolVersion": PROTOCOL,
            "capabilities": {"tools": {}, "resources": {}, "prompts": {}},
            "serverInfo": {"name": "resources-only", "version": "1.0.0"},
        }
    elif method == "resources/list":
        result = {"resources": [{"uri": "file:///readme", "name": "readme"}]}
    else:
        return False
    write({"jsonrpc": "2.0", "id": request["id"], "result": result})
    return True


serve([tool("read")], on_request=answer)

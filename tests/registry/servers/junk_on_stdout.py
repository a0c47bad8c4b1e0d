"""Prints log lines on stdout (where only JSON-RPC belongs) around otherwise valid answers."""

import sys

from rawserver import serve, tool


def chatter(request: dict) -> bool:
    sys.stdout.write(f"[info] handling {request.get('method')}\n")
    sys.stdout.write("{not json either\n")
    sys.stdout.flush()
    return False


serve([tool("ok_one"), tool("ok_two")], on_request=chatter)

"""A server that waits ``SLOW_START_S`` seconds before it answers, then offers one tool named
``SLOW_TOOL``; with ``SLOW_MARKS`` set it first writes a file there named after its parent's pid,
so a test can tell which worker process is inspecting it."""

import os
import time
from pathlib import Path

from rawserver import serve, tool

marks = os.environ.get("SLOW_MARKS")
if marks:
    Path(marks, f"{os.getppid()}-{os.getpid()}").write_text(os.environ.get("SLOW_TOOL", ""))
time.sleep(float(os.environ.get("SLOW_START_S", "1")))
serve([tool(os.environ.get("SLOW_TOOL", "wait"))], name=os.environ.get("SLOW_TOOL", "slow"))

"""Answers normally, but keeps running after stdin closes and ignores SIGTERM (only SIGKILL stops it)."""

import signal
import time

from rawserver import serve, tool

signal.signal(signal.SIGTERM, signal.SIG_IGN)
serve([tool("still_here")], name="never-exits")
while True:
    time.sleep(1)

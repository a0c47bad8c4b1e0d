"""Ending everything a stdio server started, including what left its process group.

A server runs in its own session, so one ``killpg`` reaches it and its ordinary children. A
descendant that calls ``setsid()`` leaves that group, and once its parent exits it would be
re-parented to PID 1 and outlive the inspection. So mcpdex makes itself the *child subreaper* of
what it starts (Linux ``PR_SET_CHILD_SUBREAPER``: orphans are re-parented to us, not to PID 1), and
marks each server's environment with a token every descendant inherits; stopping the server then
finds the descendants by parentage and by token, kills them and reaps those that became ours.
Elsewhere (no ``/proc``, no ``prctl``) only the process group is ended.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import secrets
import signal
import sys
import threading
import time
from functools import cache
from pathlib import Path

MARK_VARIABLE = "MCPDEX_INSPECTION"
_PR_SET_CHILD_SUBREAPER = 36
_PROC = Path("/proc")
# A SIGKILLed process is gone in milliseconds; this only bounds waiting to reap it.
_REAP_WAIT_S = 0.3


def new_mark() -> dict[str, str]:
    """The environment entry that marks one server and everything it starts."""
    return {MARK_VARIABLE: secrets.token_hex(8)}


@cache
def become_subreaper() -> bool:
    """Make this process the subreaper of its descendants (Linux); True when it is."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


# The stdio servers (and package fetches) this process started and has not yet stopped: a crawl runs
# several at once, and the orphans one server leaves are ended without ending the others.
running: set[int] = set()
# Held while a child is started and added to ``running`` from a worker thread, and while the orphans
# are told from the children, so that a child just started is never taken for an orphan.
starting = threading.Lock()


def orphans(before: set[int]) -> set[int]:
    """Our children that are none of ``before`` and none of the processes ``running``."""
    with starting:
        return children() - before - running


def children() -> set[int]:
    """Our own live children: the servers we started, and orphans re-parented to us as subreaper."""
    me = os.getpid()
    return {pid for pid, parent in _parents().items() if parent == me}


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` by parentage (empty without ``/proc``)."""
    children: dict[int, list[int]] = {}
    for child, parent in _parents().items():
        children.setdefault(parent, []).append(child)
    found: set[int] = set()
    stack = [pid]
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def marked(mark: dict[str, str]) -> set[int]:
    """Every process of ours whose environment carries ``mark``."""
    ((key, value),) = mark.items()
    needle = f"{key}={value}".encode()
    found = set()
    for entry in _proc_pids():
        with contextlib.suppress(OSError):
            if needle in (_PROC / str(entry) / "environ").read_bytes().split(b"\0"):
                found.add(entry)
    return found


def end(pids: set[int]) -> None:
    """SIGKILL ``pids``, then reap those that are our children (orphans re-parented to us).

    Only these pids are waited for: the server itself is reaped by the code that started it.
    """
    me = os.getpid()
    pids = pids - {me}
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    waiting = {pid for pid in pids if _parent_of(pid) == me}
    deadline = time.monotonic() + _REAP_WAIT_S
    while waiting:
        for pid in list(waiting):
            try:
                reaped, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                reaped = pid
            if reaped:
                waiting.discard(pid)
        if not waiting or time.monotonic() > deadline:
            return
        time.sleep(0.01)


def _proc_pids() -> list[int]:
    try:
        return [int(entry.name) for entry in _PROC.iterdir() if entry.name.isdigit()]
    except OSError:
        return []


def _parents() -> dict[int, int]:
    out = {}
    for pid in _proc_pids():
        parent = _parent_of(pid)
        if parent is not None:
            out[pid] = parent
    return out


def _parent_of(pid: int) -> int | None:
    try:
        stat = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: the fields after its last ')'.
    return int(stat.rsplit(")", 1)[1].split()[1])

"""The stdio transport: a server run in its own process group, spoken to in newline-delimited JSON-RPC.

Our own rather than the SDK's ``stdio_client``: stopping the server is bounded by the inspection's
deadline (stdin closed, then SIGTERM, then SIGKILL to the group), what it spawned is ended too
(``registry.inspecting.processes``), stdout is framed in time linear in its size, and a line the
SDK's parser refuses is repaired or kept as junk rather than dropped.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import IO, TYPE_CHECKING, Any

from registry.inspecting.targets import Target

if TYPE_CHECKING:
    from anyio.abc import Process
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
    from mcp.shared.message import SessionMessage

# A stdio server is stopped politely: its stdin closed, then SIGTERM to its process group, each
# step given this long to work, but never past the deadline; then SIGKILL to the group at once.
_STDIN_CLOSE_GRACE_S = 2.0
_SIGTERM_GRACE_S = 1.0
# After SIGKILL the process is gone in milliseconds; this only bounds waiting to reap it.
_REAP_WAIT_S = 0.3


@asynccontextmanager
async def stdio_transport(
    target: Target, errlog: IO[str], stop_by: float | None, *, plain: bool = False
) -> AsyncIterator[tuple[MemoryObjectReceiveStream[Any], MemoryObjectSendStream[Any]]]:
    """Run a stdio server in its own process group and exchange newline-delimited JSON-RPC with it.

    The streams carry the SDK's ``SessionMessage`` objects, or with ``plain`` the messages as JSON
    dicts (``registry.inspecting.rpc``, which lists a server without importing the SDK); either way a
    line that is not a JSON-RPC message comes through as the SDK's parse error, an Exception.

    Our own rather than the SDK's ``stdio_client``, whose fixed 2 s + 2 s stop can overrun a short
    deadline: here each polite step ends at ``stop_by`` (an ``anyio.current_time()``), and the
    whole group is SIGKILLed then; what left the group (``setsid()``) is found and ended by
    ``registry.inspecting.processes``, so neither the server nor anything it spawned outlives us.
    """
    import anyio

    from registry.inspecting import processes

    processes.become_subreaper()
    mark = processes.new_mark()
    with contextlib.ExitStack() as cleanup:
        if target.sandbox is not None:
            from registry.inspecting.sandbox import sandboxed

            wrapped = cleanup.enter_context(
                sandboxed(target.argv, target.env | mark, target.cwd, target.sandbox)
            )
            argv, env, cwd = wrapped.argv, wrapped.env | mark, None
        else:
            argv, env, cwd = target.argv, server_environment() | target.env | mark, target.cwd
        before = processes.children()
        process = await anyio.open_process(argv, env=env, cwd=cwd, start_new_session=True)
        processes.running.add(process.pid)
        cleanup.callback(processes.running.discard, process.pid)
        # An orphan that left the group and dropped the mark is re-parented to us: one that appeared
        # while this server ran, and is none of the servers we run, is ended when it stops.
        cleanup.callback(lambda: processes.end(processes.orphans(before)))
        tail = StderrTail()
        try:
            async with _exchange(process, stop_by, mark, tail, plain) as streams:
                yield streams
        finally:
            tail.write_to(errlog)


class StderrTail:
    """The last bytes a server wrote to stderr: read as it comes, never kept whole."""

    LIMIT = 64 * 1024

    def __init__(self) -> None:
        self.data = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        self.data += chunk
        if len(self.data) > 2 * self.LIMIT:
            cut = len(self.data) - self.LIMIT
            self.dropped += cut
            del self.data[:cut]

    def write_to(self, errlog: IO[str]) -> None:
        kept = bytes(self.data[-self.LIMIT :])
        self.dropped += len(self.data) - len(kept)
        with contextlib.suppress(OSError, ValueError):
            if self.dropped:
                errlog.write(f"[{self.dropped} earlier bytes of stderr not kept]\n")
                kept = kept.split(b"\n", 1)[-1]
            errlog.write(kept.decode("utf-8", errors="replace"))


@asynccontextmanager
async def _exchange(
    process: Process, stop_by: float | None, mark: dict[str, str], tail: StderrTail, plain: bool
) -> AsyncIterator[tuple[MemoryObjectReceiveStream[Any], MemoryObjectSendStream[Any]]]:
    """Newline-delimited JSON-RPC with a started server, its stderr drained into ``tail``; the server
    stopped on the way out."""
    import anyio

    stdin, stdout, stderr = process.stdin, process.stdout, process.stderr
    assert stdin is not None and stdout is not None and stderr is not None  # open_process pipes all three
    to_session, from_server = anyio.create_memory_object_stream[Any](0)
    to_server, from_session = anyio.create_memory_object_stream[Any](0)
    parse, encode = (_plain_message, _plain_line) if plain else (_parse_line, _session_line)

    async def read_stdout() -> None:
        # Only each new chunk is searched for line ends, so a line of any length costs time linear
        # in its size (splitting the whole buffer on every chunk was quadratic: 30 s for 50 MB).
        partial = bytearray()
        async with to_session:
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                async for chunk in stdout:
                    lines = chunk.split(b"\n")
                    if len(lines) == 1:
                        partial += chunk
                        continue
                    lines[0] = bytes(partial + lines[0])
                    partial = bytearray(lines.pop())
                    for line in lines:
                        if line.strip():
                            # Once the session is gone, keep draining: a server blocked writing
                            # stdout could not see its stdin close.
                            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                                await to_session.send(parse(bytes(line)))

    async def write_stdin() -> None:
        async with from_session:
            try:
                async for item in from_session:
                    await stdin.send(encode(item))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                # The server stopped reading: end the session's reads rather than leave it waiting.
                await to_session.aclose()

    async def read_stderr() -> None:
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async for chunk in stderr:
                tail.add(chunk)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read_stdout)
        tasks.start_soon(write_stdin)
        tasks.start_soon(read_stderr)
        try:
            yield from_server, to_server
        finally:
            # Shielded so a cancelled inspection still stops the server; every wait is bounded.
            with anyio.CancelScope(shield=True):
                await _stop(process, stop_by, mark)
            tasks.cancel_scope.cancel()


# What a stdio server inherits of our environment, as the SDK's stdio client passes it: enough to
# find programs and a home directory, never the rest (tokens and keys in our environment stay ours).
_INHERITED = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")
_INHERITED_WINDOWS = (
    "APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PATHEXT", "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE",
)  # fmt: skip


def server_environment() -> dict[str, str]:
    """The variables of our environment a stdio server is started with (see ``_INHERITED``); a value
    that is a shell function definition (``() { …``) is left out."""
    import sys

    names = _INHERITED_WINDOWS if sys.platform == "win32" else _INHERITED
    return {
        name: value
        for name in names
        if (value := os.environ.get(name)) is not None and not value.startswith("()")
    }


def _session_line(item: SessionMessage) -> bytes:
    return (item.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n").encode("utf-8")


def _plain_line(message: dict[str, Any]) -> bytes:
    # As the SDK writes a message: compact, and not ASCII-escaped.
    return (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


# The members each kind of JSON-RPC message has (the SDK's four message models), the first
# ``required``: a message with exactly one kind's required members and none of another kind's
# distinguishing ones is told apart here without the SDK.
_MESSAGE_KINDS = (
    (("id", "method"), ("params",), ("result", "error")),
    (("method",), ("params",), ("id", "result", "error")),
    (("id", "result"), (), ("method", "error")),
    (("id", "error"), (), ("method", "result")),
)
_ERROR_MEMBERS = ("code", "message", "data")
# An escaped UTF-16 surrogate: such a line goes to the SDK's parser, which refuses a lone one.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _plain_message(line: bytes) -> dict[str, Any] | Exception:
    """A message off stdout as a dict, as the SDK's parser would read it (its model dumped as the tee
    records it), or the parse error as a value. A well-formed message is read with ``json`` alone;
    anything else (not JSON, not one kind of message, members of odd types, nesting past the depth
    limit, surrogate escapes) is left to the SDK's parser, so that it is judged and repaired exactly
    as on the SDK's path, importing the SDK only then."""
    from registry.core.strict_json import MAX_JSON_DEPTH, deeper_than

    if not _SURROGATE_ESCAPE.search(line):
        try:
            value = json.loads(line.decode("utf-8"))
        except (ValueError, RecursionError):
            value = None
        plain = isinstance(value, dict) and value.get("jsonrpc") == "2.0"
        if plain and not deeper_than(value, MAX_JSON_DEPTH):
            for required, optional, absent in _MESSAGE_KINDS:
                if all(key in value for key in required) and not any(key in value for key in absent):
                    message = {key: value[key] for key in ("jsonrpc", *required, *optional) if key in value}
                    if _plain_members(message):
                        if "error" in message:
                            error = message["error"]
                            message["error"] = {k: error[k] for k in _ERROR_MEMBERS if k in error}
                        return message
    parsed = _parse_line(line)
    if isinstance(parsed, Exception):
        return parsed
    dumped: dict[str, Any] = parsed.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
    return dumped


def _plain_members(message: dict[str, Any]) -> bool:
    """Whether every member has the one type the SDK's model gives it, with no coercion."""
    request_id = message.get("id", "")
    error = message.get("error", {"code": 0, "message": ""})
    null_id = request_id is None and "error" in message  # an error about a request it could not read
    return (
        (type(request_id) is int or isinstance(request_id, str) or null_id)
        and isinstance(message.get("method", ""), str)
        and isinstance(message.get("params", {}), dict | None)
        and isinstance(message.get("result", {}), dict)
        and isinstance(error, dict)
        and type(error.get("code")) is int
        and isinstance(error.get("message"), str)
    )


def _parse_line(line: bytes) -> SessionMessage | Exception:
    """A message off stdout, or the parse error as a value (the tee records it as junk)."""
    from mcp.shared.message import SessionMessage
    from mcp.types import jsonrpc_message_adapter

    # Invalid UTF-8 becomes U+FFFD (and a problem) instead of ending the read loop.
    text = line.decode("utf-8", errors="replace")
    try:
        return SessionMessage(jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValueError as exc:
        # The SDK's parser refuses JSON that Python reads: nesting past its recursion limit (a schema a
        # few hundred levels deep) and lone UTF-16 surrogate escapes. Dropping such an answer as junk
        # left its request waiting out the whole deadline; it is kept instead, its deepest part
        # replaced by a note (the depth limit records a problem) and each lone surrogate by U+FFFD
        # (recorded as invalid-utf8).
        from registry.core.strict_json import prune_depth

        try:
            repaired = _lone_surrogates_replaced(prune_depth(json.loads(text)))
            return SessionMessage(jsonrpc_message_adapter.validate_python(repaired, by_name=False))
        except (ValueError, RecursionError):
            return exc


def _lone_surrogates_replaced(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings and keys replaced by U+FFFD (depth-bounded)."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    if isinstance(value, dict):
        return {_lone_surrogates_replaced(k): _lone_surrogates_replaced(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_lone_surrogates_replaced(item) for item in value]
    return value


async def _stop(process: Process, stop_by: float | None, mark: dict[str, str]) -> None:
    """Close stdin, then SIGTERM the group, then SIGKILL it; reap the server; then end every other
    descendant (those that left the group with setsid() included). Ends by ``stop_by``."""
    import signal

    import anyio

    from registry.inspecting import processes

    # Read while the server lives: once it exits, its children's parentage no longer leads to it.
    strays = processes.descendants(process.pid)

    def until(grace: float) -> float:
        end = anyio.current_time() + grace
        return end if stop_by is None else min(end, stop_by)

    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        if process.stdin is not None:
            await process.stdin.aclose()
    if not await _exited(process, until(_STDIN_CLOSE_GRACE_S)):
        _signal_group(process.pid, signal.SIGTERM)
        await _exited(process, until(_SIGTERM_GRACE_S))
    # Even after the server exited: what it spawned (npx, a shell) may still run in its group.
    _signal_group(process.pid, signal.SIGKILL)
    with anyio.move_on_after(_REAP_WAIT_S):
        await process.aclose()
    processes.end((strays | processes.marked(mark)) - {process.pid})


async def _exited(process: Process, end: float) -> bool:
    import anyio

    with anyio.move_on_after(max(0.0, end - anyio.current_time())):
        await process.wait()
    return process.returncode is not None


def _signal_group(pid: int, sig: int) -> None:
    # The server leads its own session, so its process group id is its pid.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)

"""Running an untrusted stdio server in a sandbox: bubblewrap namespaces, resource limits, a cgroup.

A sandboxed server sees no host environment beyond what its target declares, no other process (its
own PID namespace, which also ends every descendant, double forks included, when it stops), no host
file except the read-only system paths, its own install and the files its command line names, a
private size-capped ``HOME`` and ``/tmp``, and no network unless its policy allows it. ``prlimit``
caps address space, CPU time, file size, open files and processes; a memory and pids cgroup is added
where one can be made. Run as root, the server runs as an unprivileged user (``setpriv``), so nothing
it writes on the host is owned by root.

What it does not stop: a kernel exploit, and whatever a remote server does on its own side.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import stat
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from registry.core.errors import UsageError

SANDBOX_VARIABLE = "MCPDEX_SANDBOX"
SANDBOX_MODES = ("on", "off")
# The unprivileged user a server runs as when mcpdex runs as root (Debian's "nobody").
UNPRIVILEGED_UID = 65534
SANDBOX_HOME = "/sandbox/home"

# What the sandbox allows a server, one row per limit: (name, prlimit flag, value, what it is).
LIMITS: tuple[tuple[str, str, int, str], ...] = (
    # Lifted where the memory cgroup bounds the server: V8 reserves about 10 GiB of address space for
    # each WebAssembly memory (Node's fetch is one), far more than it uses, and fails under this cap.
    ("addressSpaceMiB", "--as", 2048, "virtual memory of each process, where no memory cgroup can be made"),
    ("cpuSeconds", "--cpu", 120, "CPU time of each process"),
    ("fileSizeMiB", "--fsize", 64, "largest file a process may write"),
    ("openFiles", "--nofile", 512, "open files of each process"),
    ("processes", "--nproc", 4096, "processes and threads of the sandbox user"),
)
# Each of the cgroup's limits, where one can be made (bytes, count).
CGROUP_MEMORY_MIB = 1024
CGROUP_PIDS = 256
# The private HOME and /tmp, each a tmpfs of this size.
TMPFS_MIB = 64

# Read-only system paths every server gets (those that exist); /etc only in part, so that what a
# machine keeps there (shadow, keys, tokens of its tools) stays out.
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_ETC = (
    "alternatives", "ca-certificates", "ca-certificates.conf", "ssl", "pki", "ld.so.cache", "ld.so.conf",
    "ld.so.conf.d", "localtime", "nsswitch.conf", "hosts", "host.conf", "passwd", "group", "mime.types",
    "os-release", "protocols", "services", "gai.conf", "python3", "fonts",
)  # fmt: skip
_NETWORK_ETC = ("resolv.conf",)
_SYSTEM_PREFIXES = (*_SYSTEM_DIRS, "/etc", "/proc", "/dev")
_SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"


class SandboxUnavailable(UsageError):
    """No sandbox can be made here; the message says why."""


@dataclass(frozen=True)
class SandboxPolicy:
    """What a sandboxed server is allowed beyond the defaults: paths to read or write, the network."""

    network: bool = False
    read: tuple[str, ...] = ()
    write: tuple[str, ...] = ()

    def describe(self, mounted: Sequence[str] = ()) -> dict[str, Any]:
        """The snapshot's ``source.sandbox``: what the server ran under."""
        return {
            "kind": "bubblewrap",
            "network": "host" if self.network else "none",
            "read": sorted(set(self.read) | set(mounted)),
            "write": sorted(self.write),
            "limits": {name: value for name, _, value, _ in LIMITS}
            | {"tmpfsMiB": TMPFS_MIB, "cgroupMemoryMiB": CGROUP_MEMORY_MIB, "cgroupPids": CGROUP_PIDS},
        }


def policy_from_entry(entry: Any, where: str) -> SandboxPolicy:
    """A crawl config entry's ``sandbox`` object: ``{"network": true, "read": [...], "write": [...]}``."""
    if entry is None:
        return SandboxPolicy()
    if not isinstance(entry, dict):
        raise UsageError(f'{where}.sandbox must be an object like {{"network": true, "read": ["/path"]}}')
    unknown = sorted(set(entry) - {"network", "read", "write"})
    if unknown:
        raise UsageError(f"{where}.sandbox: unknown field {unknown[0]!r}; use network, read or write")
    network = entry.get("network", False)
    if not isinstance(network, bool):
        raise UsageError(f"{where}.sandbox.network must be true or false")
    paths: dict[str, tuple[str, ...]] = {}
    for key in ("read", "write"):
        value = entry.get(key, [])
        if not isinstance(value, list) or not all(isinstance(p, str) and os.path.isabs(p) for p in value):
            raise UsageError(f"{where}.sandbox.{key} must be a list of absolute paths")
        paths[key] = tuple(value)
    return SandboxPolicy(network=network, read=paths["read"], write=paths["write"])


def mode_from(option: str | None, *, default: str) -> str:
    """``on`` or ``off``: the option if given, else ``MCPDEX_SANDBOX``, else ``default``."""
    value = option or os.environ.get(SANDBOX_VARIABLE) or default
    if value not in SANDBOX_MODES:
        raise UsageError(f"{SANDBOX_VARIABLE}={value!r} is not on or off; set it to on or off")
    return value


@cache
def unavailable_reason() -> str | None:
    """Why no sandbox can be made here, or None when one can (checked once, by running one)."""
    for tool in ("bwrap", "prlimit") + (("setpriv",) if os.geteuid() == 0 else ()):
        if shutil.which(tool) is None:
            package = {"bwrap": "bubblewrap", "prlimit": "util-linux", "setpriv": "util-linux"}[tool]
            return f"{tool} is not installed (apt-get install {package})"
    try:
        probe = subprocess.run(
            [
                "bwrap",
                *_namespaces(False),
                "--die-with-parent",
                *_system_binds(False),
                "--",
                *_drop(),
                "true",
            ],
            capture_output=True,
            text=True,
            timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap could not start ({exc})"
    if probe.returncode != 0:
        detail = (probe.stderr.strip().splitlines() or ["no reason given"])[-1]
        return f"bubblewrap cannot make namespaces here ({detail})"
    return None


def require() -> None:
    """Raise SandboxUnavailable, naming the reason and the way out, when no sandbox can be made."""
    reason = unavailable_reason()
    if reason is not None:
        raise SandboxUnavailable(
            f"no sandbox can be made: {reason}; run untrusted servers elsewhere, or opt out with "
            f"--sandbox off (or {SANDBOX_VARIABLE}=off)"
        )


def _drop() -> list[str]:
    """As root, the prefix (inside the namespaces) that runs what follows as the unprivileged user
    with no capabilities left."""
    if os.geteuid() != 0:
        return []
    uid = str(UNPRIVILEGED_UID)
    return [
        "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
        "--bounding-set=-all", "--inh-caps=-all", "--",
    ]  # fmt: skip


def _namespaces(network: bool) -> list[str]:
    """Every namespace but the network's when it is allowed. Run as root, no user namespace: bwrap
    keeps only the two capabilities setpriv needs to become the unprivileged user, who then owns
    whatever the server writes (in a user namespace made by root, root inside is root outside)."""
    if os.geteuid() == 0:
        kinds = ["--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try"]
        kinds += [] if network else ["--unshare-net"]
        return [*kinds, "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    return ["--unshare-all", *(["--share-net"] if network else [])]


def _system_binds(network: bool) -> list[str]:
    args: list[str] = []
    for path in _SYSTEM_DIRS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    args += ["--perms", "0755", "--dir", "/etc"]  # made by root, bwrap would leave it root-only
    for name in _ETC + (_NETWORK_ETC if network else ()):
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    return args


def install_root(path: Path) -> Path:
    """What to make readable for a file a command names: the outermost ``node_modules`` it sits in,
    else the virtual environment (a folder with ``pyvenv.cfg``) it sits in, else the prefix of a
    program in a ``bin`` folder, else its folder."""
    for ancestor in reversed(path.parents):
        if ancestor.name == "node_modules":
            return ancestor
    for ancestor in path.parents:
        if (ancestor / "pyvenv.cfg").is_file():
            return ancestor
    if path.parent.name == "bin" and path.parent.parent != Path("/"):
        return path.parent.parent  # an installed program: its prefix holds its libraries
    return path if path.is_dir() else path.parent


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _is_system(path: str) -> bool:
    return any(path == prefix or path.startswith(prefix + "/") for prefix in _SYSTEM_PREFIXES)


def named_paths(argv: Sequence[str], cwd: str | None) -> list[str]:
    """The host folders a command line needs readable: its program's install and each argument that
    names an existing file or folder (``--flag=PATH`` included), outside the system paths."""
    found: list[str] = []
    candidates: list[str] = []
    program = argv[0] if argv else ""
    if program and "/" not in program:
        program = shutil.which(program) or program
    candidates.append(program)
    for arg in argv[1:]:
        candidates.append(arg.split("=", 1)[1] if arg.startswith("-") and "=" in arg else arg)
    base = Path(cwd) if cwd else Path.cwd()
    for candidate in candidates:
        if not candidate or "\0" in candidate or len(candidate) > 4096:
            continue
        path = Path(candidate) if os.path.isabs(candidate) else base / candidate
        if not ("/" in candidate or os.path.isabs(candidate)) and candidate is not program:
            continue  # a bare word ('stdio', a package name) is no path, even if a file has its name
        with contextlib.suppress(OSError, ValueError):
            if not path.exists():
                continue
            for form in (Path(os.path.abspath(path)), path.resolve()):
                root = str(install_root(form))
                if not _is_system(root) and root != "/" and root not in found:
                    found.append(root)
    return found


def _absolute(argv: Sequence[str], cwd: str | None) -> list[str]:
    """``argv`` with each relative path that names an existing file made absolute: the sandbox starts
    in its own HOME (or ``cwd``), not where mcpdex runs."""
    base = cwd or os.getcwd()
    out = []
    for arg in argv:
        if (
            "/" in arg
            and not os.path.isabs(arg)
            and not arg.startswith("-")
            and os.path.exists(os.path.join(base, arg))
        ):
            arg = os.path.abspath(os.path.join(base, arg))
        out.append(arg)
    return out


def _readable_by_sandbox_user(path: str) -> bool:
    """Whether the unprivileged user may read ``path`` once it is bound (only asked when running as
    root; the folders above it are made reachable in the sandbox)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    need = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(mode) else 0)
    return mode & need == need


@dataclass
class Wrapped:
    """A command made to run in the sandbox, with what it needs cleaned up after it stops."""

    argv: list[str]
    env: dict[str, str]
    mounted: list[str] = field(default_factory=list)
    cgroups: list[Path] = field(default_factory=list)

    def cleanup(self) -> None:
        """Remove the cgroups (their processes are gone once the server has stopped)."""
        import time

        for group in self.cgroups:
            # The namespace's last processes may take a moment to go once its init is gone.
            for _ in range(50):
                try:
                    group.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)


def wrap(
    argv: Sequence[str],
    env: dict[str, str],
    cwd: str | None,
    policy: SandboxPolicy,
    limits: Mapping[str, int] | None = None,
) -> Wrapped:
    """``argv`` as a command line that runs it in the sandbox, and the (empty but for PATH)
    environment to start that with; the server's own environment is passed inside, cleared of ours.
    ``limits`` replaces some of :data:`LIMITS` by name (a package fetch writes larger files)."""
    require()
    program = argv[0]
    if not (os.path.exists(os.path.join(cwd or "", program)) if "/" in program else shutil.which(program)):
        raise FileNotFoundError(2, "No such file or directory", program)  # as starting it outside would
    root = os.geteuid() == 0
    cwd = os.path.abspath(cwd) if cwd else None
    mounted = named_paths(argv, cwd)
    argv = _absolute(argv, cwd)
    if cwd:
        mounted = [*mounted, cwd] if cwd not in mounted else mounted
    # A named path inside a writable folder is reachable through it (bound read-only on top, it would
    # make that part of the folder read-only).
    mounted = [path for path in mounted if not any(_within(path, folder) for folder in policy.write)]
    args = [
        "bwrap", *_namespaces(policy.network), "--die-with-parent", "--new-session", "--clearenv",
        *_system_binds(policy.network),
        "--proc", "/proc", "--dev", "/dev",
        "--perms", "1777", "--size", str(TMPFS_MIB << 20), "--tmpfs", "/tmp",
        "--perms", "0755", "--dir", os.path.dirname(SANDBOX_HOME),
        "--perms", "0777", "--size", str(TMPFS_MIB << 20), "--tmpfs", SANDBOX_HOME,
    ]  # fmt: skip
    made: set[str] = {"/", "/etc", "/tmp", os.path.dirname(SANDBOX_HOME), SANDBOX_HOME}
    binds = [(path, "--ro-bind") for path in [*mounted, *policy.read]] + [(p, "--bind") for p in policy.write]
    for path, how in sorted(binds, key=lambda bind: bind[0].count("/")):
        if how == "--bind" and not os.path.isdir(path):
            raise UsageError(f"sandbox write path {path} is not an existing folder; create it first")
        if not os.path.exists(path):
            raise UsageError(f"sandbox read path {path} does not exist; check the path")
        if root and not _readable_by_sandbox_user(path):
            raise UsageError(
                f"{path} is not readable by the sandbox's unprivileged user (uid {UNPRIVILEGED_UID}); "
                "make it readable (chmod o+rX) or run this server with --sandbox off"
            )
        # The folders above a bind are made reachable (bwrap would make them root-only).
        for ancestor in reversed(Path(path).parents):
            if str(ancestor) not in made:
                made.add(str(ancestor))
                args += ["--perms", "0755", "--dir", str(ancestor)]
        made.add(path)
        args += [how, path, path]
    program_dir = os.path.dirname(argv[0]) if "/" in argv[0] else ""
    inside = {
        "PATH": f"{program_dir}:{_SANDBOX_PATH}" if program_dir else _SANDBOX_PATH,
        "HOME": SANDBOX_HOME,
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
    } | env
    for key, value in inside.items():
        args += ["--setenv", key, value]
    args += ["--chdir", cwd or SANDBOX_HOME, "--", *_drop()]
    chosen = {name: value for name, _, value, _ in LIMITS} | dict(limits or {})
    unknown = sorted(set(chosen) - {name for name, *_ in LIMITS})
    if unknown:
        raise ValueError(f"no sandbox limit is named {unknown[0]!r}")
    cgroups, memory_bounded = _make_cgroups()
    if memory_bounded:
        chosen["addressSpaceMiB"] = -1
    capped = ["prlimit", *(f"{flag}={_limit_value(name, chosen[name])}" for name, flag, _, _ in LIMITS), "--"]
    join: list[str] = []
    if cgroups:
        # A shell (as the caller, before the drop) moves itself into the cgroups, then becomes the rest.
        script = "".join(f'echo $$ > "{group}/cgroup.procs" && ' for group in cgroups) + 'exec "$@"'
        join = ["/bin/sh", "-c", script, "sh"]
    return Wrapped(
        argv=[*join, *capped, *args, *argv],
        env={"PATH": _SANDBOX_PATH},
        mounted=mounted,
        cgroups=cgroups,
    )


def _limit_value(name: str, value: int) -> int | str:
    if value < 0:
        return "unlimited"
    return value << 20 if name.endswith("MiB") else value


_CGROUP_ROOT = Path("/sys/fs/cgroup")


def _own_cgroup(controller: str) -> Path | None:
    """Where this process's cgroup of ``controller`` is (v1 hierarchy, else the unified v2 one)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            return _CGROUP_ROOT / controller / path.lstrip("/")
    for line in lines:
        if line.startswith("0::"):
            return _CGROUP_ROOT / line[3:].lstrip("/")
    return None


def _make_cgroups() -> tuple[list[Path], bool]:
    """A fresh memory and pids cgroup below our own, where we may make them (else none: prlimit
    alone then bounds the server), and whether one of them bounds memory."""
    name = f"mcpdex-{secrets.token_hex(6)}"
    wanted: dict[Path, dict[str, int]] = {}
    for controller, files in (
        ("memory", {"memory.limit_in_bytes": CGROUP_MEMORY_MIB << 20, "memory.max": CGROUP_MEMORY_MIB << 20}),
        ("pids", {"pids.max": CGROUP_PIDS}),
    ):
        parent = _own_cgroup(controller)
        if parent is not None:
            wanted.setdefault(parent / name, {}).update(files)
    made: list[Path] = []
    memory_bounded = False
    for group, files in wanted.items():
        try:
            group.mkdir()
        except OSError:
            continue
        wrote = set()
        for file, value in files.items():
            with contextlib.suppress(OSError):
                (group / file).write_text(str(value))
                wrote.add(file)
        if wrote:
            made.append(group)
            memory_bounded = memory_bounded or any(file.startswith("memory.") for file in wrote)
        else:
            with contextlib.suppress(OSError):
                group.rmdir()
    return made, memory_bounded


@contextlib.contextmanager
def sandboxed(
    argv: Sequence[str],
    env: dict[str, str],
    cwd: str | None,
    policy: SandboxPolicy,
    limits: Mapping[str, int] | None = None,
) -> Iterator[Wrapped]:
    """:func:`wrap` for the length of a block, the cgroups removed after it."""
    wrapped = wrap(argv, env, cwd, policy, limits)
    try:
        yield wrapped
    finally:
        wrapped.cleanup()


# What :func:`run` keeps of a command's output: its last bytes, enough for the reason it failed.
_RUN_OUTPUT_TAIL = 16 * 1024


@dataclass(frozen=True)
class Ran:
    """How a command run to completion in the sandbox ended: its exit code (None when it was ended at
    its deadline) and the tail of what it wrote to stdout and stderr."""

    returncode: int | None
    output: str


def run(
    argv: Sequence[str],
    env: dict[str, str],
    cwd: str | None,
    policy: SandboxPolicy,
    *,
    timeout: float,
    limits: Mapping[str, int] | None = None,
) -> Ran:
    """Run ``argv`` in the sandbox to completion (a package fetch, say), its output kept as a bounded
    tail; at ``timeout`` the sandbox, and with it everything in it, is ended."""
    import signal
    import tempfile

    from registry.inspecting import processes

    with sandboxed(argv, env, cwd, policy, limits) as wrapped, tempfile.TemporaryFile() as out:
        with processes.starting:  # not an orphan to the servers of a crawl that stop meanwhile
            process = subprocess.Popen(
                wrapped.argv, env=wrapped.env, stdin=subprocess.DEVNULL, stdout=out,
                stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
            processes.running.add(process.pid)
        try:
            code: int | None = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            code = None
        finally:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)  # bwrap's PID namespace ends with it
            process.wait()
            processes.running.discard(process.pid)
        size = out.seek(0, os.SEEK_END)
        out.seek(max(0, size - _RUN_OUTPUT_TAIL))
        return Ran(code, out.read().decode("utf-8", errors="replace"))

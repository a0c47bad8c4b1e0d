"""``mcpdex report``: the registry as a static site, or one server as an HTML page or PR comment."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from registry.commands._options import format_option, registry_option, writing
from registry.commands._target import target_options
from registry.core.printable import json_inert
from registry.core.templating import counted

if TYPE_CHECKING:
    from registry.site.model import IndexEntry, ServerData, VersionEntry

# Below this many servers per worker, starting worker processes costs more than it saves.
_MIN_SERVERS_PER_JOB = 25
_SERVERS_PER_CHUNK = 10
# Workers are replaced after this many servers each, so their memory stays what a few hundred
# servers take however many the registry holds: the scorer's caches fill as it reads, and freed
# memory is rarely returned to the system. (ProcessPoolExecutor's max_tasks_per_child can hang on
# Python 3.11, so each set of workers is a pool of its own.)
_SERVERS_PER_WORKER = 400


@click.command("report")
@target_options
@click.option(
    "--out",
    type=click.Path(),
    help="The site folder (whole registry), or the file for one server (default: stdout).",
)
@format_option(
    "html",
    "markdown",
    "json",
    help="One server: a self-contained HTML page, the PR-comment Markdown, or the page's data as JSON.",
)
@click.option("--since", metavar="SNAPSHOT", help="One server: show the changes from this baseline.")
@click.option(
    "--template-dir",
    type=click.Path(file_okay=False, exists=True),
    help="A folder of templates that override the bundled ones by name.",
)
@registry_option()
@click.option(
    "--jobs", type=click.IntRange(min=1), help="Worker processes for a site (default: one per CPU)."
)
@click.option(
    "--full", is_flag=True, help="A site: render every server, not only those changed since the last build."
)
def report(
    out: str | None,
    fmt: str,
    since: str | None,
    template_dir: str | None,
    registry_url: str | None,
    jobs: int | None,
    full: bool,
    **target: Any,
) -> None:
    """Render directory pages for the whole registry, or a report of one server.

    \b
    mcpdex report --out site/                      # every server in the registry
    mcpdex report mcpdex.lock.json --out memory.html
    mcpdex report memory@1.2.0 --format markdown   # a server recorded in the registry
    mcpdex report --since mcpdex.lock.json --format markdown -- python my_server.py
    """
    from registry.core.errors import UsageError

    has_target = bool(target["argv"] or target["config"])
    if not has_target:
        if not out:
            raise UsageError("pass --out FOLDER to render the registry, or name one server to report on")
        if fmt != "html" or since:
            raise UsageError(
                "--format and --since apply to a report on one server; name a SNAPSHOT or TARGET"
            )
        with writing("--out", out):
            count, servers, rendered = write_site(
                Path(out), registry_url=registry_url, template_dir=template_dir, jobs=jobs, full=full
            )
        click.echo(
            f"wrote {counted(count, 'file')} for {counted(servers, 'server')} to {out} "
            f"({rendered} rendered, {servers - rendered} unchanged)",
            err=True,
        )
        return
    text = render_one(target, fmt=fmt, since=since, registry_url=registry_url, template_dir=template_dir)
    if out:
        with writing("--out", out):
            Path(out).write_text(text, encoding="utf-8")
        click.echo(f"wrote {out}", err=True)
    else:
        click.echo(text, nl=False)


def write_site(
    out: Path,
    *,
    registry_url: str | None,
    template_dir: str | None,
    jobs: int | None = None,
    full: bool = False,
) -> tuple[int, int, int]:
    """Render the registry into ``out``; returns (files, servers, servers rendered).

    Only servers whose stored inputs, slug or renderer changed since the last build into ``out``
    are judged and rendered again (all of them with ``full``); the index always is. Servers are
    rendered one at a time, in ``jobs`` worker processes (default: one per CPU), so memory stays
    flat however large the registry; the index is rendered last.
    """
    from registry.core.paths import resolve_registry_url
    from registry.site.builds import (
        BUILD_NAME,
        BuiltServer,
        build_bytes,
        read_build,
        renderer_key,
        server_key,
    )
    from registry.site.slugs import server_slugs
    from registry.site.writer import (
        MANIFEST_NAME,
        render_index_files,
        site_assets,
        site_manifest,
        stale_paths,
    )
    from registry.storage.fingerprints import page_inputs
    from registry.storage.store import open_store

    url = resolve_registry_url(registry_url)
    with open_store(url) as store:
        inputs = page_inputs(store)  # every server, by name: what its pages are built from
    slugs = server_slugs(inputs)
    root = out.resolve()
    root.mkdir(parents=True, exist_ok=True)
    names = list(slugs)
    renderer = renderer_key(template_dir)
    keys = {name: server_key(renderer, slugs[name], inputs.get(name, "")) for name in names}
    state = root / BUILD_NAME
    built = {} if full or not state.is_file() else read_build(state.read_bytes())
    # Paths as strings: a Path per server costs more than its stat call.
    folder = str(root)
    kept = {
        name: built[name]
        for name in names
        if name in built
        and built[name].key == keys[name]
        and os.path.isfile(os.path.join(folder, built[name].files[0]))
    }
    servers = [(name, slugs[name]) for name in names if name not in kept]
    if jobs is None:
        jobs = min(_cpu_count(), len(servers) // _MIN_SERVERS_PER_JOB)
    jobs = max(1, min(jobs, len(servers)))
    if jobs == 1:
        results = [_render_batch(url, template_dir, str(root), servers)]
    else:
        from concurrent.futures import ProcessPoolExecutor
        from itertools import repeat

        # Workers take small chunks as they free up, so one slowed by a busy machine delays the
        # end by a chunk at most, not by its whole share.
        results = []
        share = jobs * _SERVERS_PER_WORKER
        for first in range(0, len(servers), share):
            part = servers[first : first + share]
            chunks = [
                part[start : start + _SERVERS_PER_CHUNK] for start in range(0, len(part), _SERVERS_PER_CHUNK)
            ]
            with ProcessPoolExecutor(jobs) as pool:
                results.extend(
                    pool.map(_render_batch, repeat(url), repeat(template_dir), repeat(str(root)), chunks)
                )
    rendered = {
        entry.name: BuiltServer(keys[entry.name], entry, paths) for batch in results for entry, paths in batch
    }
    now = {name: kept.get(name) or rendered[name] for name in names}
    shared = {  # the files of no one server
        **render_index_files([built.entry for built in now.values()], template_dir=template_dir),
        **site_assets(template_dir),
    }
    _write_files(root, shared)
    produced = [*shared, *(path for name in names for path in now[name].files)]
    listed = [*produced, BUILD_NAME]
    manifest = root / MANIFEST_NAME
    if manifest.is_file():
        _remove_stale(root, stale_paths(manifest.read_bytes(), listed))
    _write_files(root, {BUILD_NAME: build_bytes(now), MANIFEST_NAME: site_manifest(listed)})
    return len(produced), len(names), len(rendered)


def _render_batch(
    url: str, template_dir: str | None, root: str, batch: list[tuple[str, str]]
) -> list[tuple[IndexEntry, list[str]]]:
    """Judge, render and write a list of servers; returns each one's part of the index and its files."""
    from registry.site.server_data import server_data
    from registry.site.views import summary_row
    from registry.site.writer import index_entry, render_server_files
    from registry.storage.store import open_store

    done: list[tuple[IndexEntry, list[str]]] = []
    if not batch:
        return done
    with open_store(url) as store:
        for name, slug in batch:
            data = server_data(store, name)
            files = render_server_files(data, slug, template_dir=template_dir)
            _write_files(Path(root), files)
            done.append((index_entry(summary_row(data, slug), template_dir=template_dir), list(files)))
    return done


def _remove_stale(root: Path, stale: list[str]) -> None:
    """Delete files an earlier render wrote and this one did not, then the folders that left empty."""
    folders: set[Path] = set()
    for relative in stale:
        path = root / relative
        # A symlinked folder could lead outside the site: only regular files under it are removed.
        if not path.parent.resolve().is_relative_to(root) or not path.is_file() or path.is_symlink():
            continue
        path.unlink()
        folders.update(parent for parent in path.parents if parent.is_relative_to(root) and parent != root)
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        if not any(folder.iterdir()):
            folder.rmdir()


def _write_files(root: Path, files: dict[str, bytes]) -> None:
    # Each folder is resolved, checked and made once: resolving every file's path costs a system
    # call per path component. A file name is then checked on its own: a link is resolved whole.
    folders: dict[str, Path] = {}
    for relative, body in files.items():
        folder, _, name = relative.rpartition("/")
        if folder not in folders:
            folders[folder] = _inside(root, root / folder, relative)
            folders[folder].mkdir(parents=True, exist_ok=True)
        path = folders[folder] / name
        status = _status(path, os.lstat)
        if name in ("", ".", "..") or (status is not None and stat.S_ISLNK(status.st_mode)):
            path = _inside(root, root / relative, relative)
            path.parent.mkdir(parents=True, exist_ok=True)
            status = _status(path, os.stat)
        # Unchanged files keep their modification time, so a publisher can sync by diff.
        if (
            status is not None
            and stat.S_ISREG(status.st_mode)
            and status.st_size == len(body)
            and path.read_bytes() == body
        ):
            continue
        path.write_bytes(body)


def _inside(root: Path, path: Path, relative: str) -> Path:
    """The real ``path``, which must lie in ``root``: slugs never escape, but a link in the folder could."""
    resolved = path.resolve()
    if not resolved.is_relative_to(root):
        from registry.core.errors import UsageError

        raise UsageError(
            f"--out {root}: {relative} is a link to {resolved}, outside the folder; "
            "remove the link or choose another folder"
        )
    return resolved


def _status(path: Path, read: Callable[[Path], os.stat_result]) -> os.stat_result | None:
    try:
        return read(path)
    except FileNotFoundError:
        return None


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def render_one(
    target: dict[str, Any], *, fmt: str, since: str | None, registry_url: str | None, template_dir: str | None
) -> str:
    """The report on one server, named by a snapshot file, SERVER[@VERSION], a URL or a command."""
    from registry.site.views import server_document
    from registry.site.writer import render_markdown, render_server_report

    data = _from_registry(target, registry_url) if not since else None
    if data is None:
        snapshot = _snapshot(target, registry_url)
        data = _standalone(snapshot, since, registry_url, target["timeout"])
    if fmt == "markdown":
        return render_markdown(data, template_dir=template_dir)
    if fmt == "json":
        return (
            json_inert(json.dumps(server_document(data), indent=2, sort_keys=True, ensure_ascii=False)) + "\n"
        )
    return render_server_report(data, template_dir=template_dir)


def _single_spec(target: dict[str, Any]) -> str | None:
    """The one positional word when nothing else says how to start a server; else None.

    An executable file is a server to start (``-- ./server``), never a snapshot to read.
    """
    argv: list[str] = list(target["argv"])
    live_only = target["config"] or target["env"] or target["cwd"] or target["header"] or target["transport"]
    if len(argv) != 1 or live_only or (os.path.isfile(argv[0]) and os.access(argv[0], os.X_OK)):
        return None
    return argv[0]


def _from_registry(target: dict[str, Any], registry_url: str | None) -> ServerData | None:
    """``SERVER`` or ``SERVER@VERSION`` recorded in the registry, with its history; None otherwise."""
    from registry.commands.sources import split_server_spec
    from registry.core.paths import resolve_registry_url
    from registry.site.server_data import server_data
    from registry.storage.store import open_store

    spec = _single_spec(target)
    if spec is None or Path(spec).exists() or "://" in spec:
        return None
    url = resolve_registry_url(registry_url)
    if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).exists():
        return None
    name, version = split_server_spec(spec)
    with open_store(url) as store:
        if name not in {summary.name for summary in store.servers()}:
            return None
        return server_data(store, name, version)


def _snapshot(target: dict[str, Any], registry_url: str | None) -> dict[str, Any]:
    from registry.commands._target import snapshot_from_options
    from registry.commands.sources import resolve_snapshot

    spec = _single_spec(target)
    if spec is not None:
        return resolve_snapshot(spec, registry_url=registry_url, timeout=target["timeout"])
    return snapshot_from_options(**target)


def _standalone(
    snapshot: dict[str, Any], since: str | None, registry_url: str | None, timeout: float
) -> ServerData:
    """One snapshot, and the changes from the ``--since`` baseline when there is one."""
    from registry.commands.sources import resolve_snapshot
    from registry.core.profile import page_profile
    from registry.core.snapshot import server_version
    from registry.diffing.diff import diff_snapshots
    from registry.site.model import ServerData
    from scoring import score_snapshot

    def entry(snap: dict[str, Any], changes: list[dict[str, Any]]) -> VersionEntry:
        return {
            "label": server_version(snap),
            "digest": snap.get("digest"),
            "first_seen": snap.get("capturedAt"),
            "last_seen": snap.get("capturedAt"),
            "changes": changes,
        }

    versions = [entry(snapshot, [])]
    if since:
        baseline = resolve_snapshot(since, registry_url=registry_url, timeout=timeout)
        changes = [dict(change) for change in diff_snapshots(baseline, snapshot)]
        versions = [entry(baseline, []), entry(snapshot, changes)]
    name = (snapshot.get("server") or {}).get("name") or "unnamed"
    return ServerData(
        name=str(name),
        snapshot=snapshot,
        versions=versions,
        scorecard=score_snapshot(snapshot),
        profile=page_profile(snapshot),
    )

"""Messages a user can act on: a missing file is "no such file", a program is run rather than read as
JSON, and counts agree with their nouns."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

SERVERS = Path(__file__).parent / "servers"


def mcpdex(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MCPDEX_REGISTRY": f"sqlite:///{(cwd or Path('.')).resolve() / 'none.sqlite'}"}
    return subprocess.run(
        [sys.executable, "-m", "registry", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env=env,
    )


def test_a_missing_snapshot_file_is_no_such_file_not_a_command_not_found(tmp_path: Path) -> None:
    for missing in ("nothing.json", "snapshots/old"):
        result = mcpdex("diff", missing, "other.json", cwd=tmp_path)
        assert result.returncode == 2
        reason = "no such file, nor a server of that name in the registry; check the path"
        assert result.stderr.strip() == f"mcpdex: error: {missing}: {reason}"


def test_an_executable_side_of_diff_is_run_as_a_server(tmp_path: Path) -> None:
    program = tmp_path / "notes-server"
    program.write_text(
        f"#!{sys.executable}\nimport runpy, sys\nsys.path.insert(0, {str(SERVERS)!r})\n"
        f"runpy.run_path({str(SERVERS / 'notes_server.py')!r}, run_name='__main__')\n"
    )
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    result = mcpdex("diff", str(program), str(program), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "0 changes: 0 breaking, 0 warnings, 0 info"


def test_the_summary_counts_agree_with_their_nouns(tmp_path: Path) -> None:
    result = mcpdex(
        "inspect", "--", sys.executable, str(SERVERS / "resources_without_templates.py"), cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert "1 tool, 1 resource, 0 resource templates, 0 prompts" in result.stdout


def _commands(group, prefix: str = ""):
    import click

    context = click.Context(group)
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        if isinstance(command, click.Group):
            yield from _commands(command, f"{prefix}{name} ")
        else:
            yield f"{prefix}{name}", command


def test_every_registry_option_words_what_it_takes_and_its_default_alike() -> None:
    from registry.cli import cli
    from registry.commands._options import DATABASE_HELP, SERVICE_HELP

    seen = 0
    for name, command in _commands(cli):
        for param in command.params:
            if param.name == "registry_url":
                seen += 1
                assert param.help and param.help.endswith((DATABASE_HELP, SERVICE_HELP)), (name, param.help)
    assert seen >= 10


def test_score_without_a_target_says_so_before_loading_the_scorer() -> None:
    code = (
        "import runpy, sys\nsys.argv = ['mcpdex', 'score']\n"
        "try:\n    runpy.run_module('registry', run_name='__main__')\n"
        "except SystemExit as exit:\n    print(exit.code, 'scoring.scorecard' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.split() == ["2", "False"], result.stdout + result.stderr
    assert "no target" in result.stderr


def test_every_option_of_every_command_says_what_it_does() -> None:
    from registry.cli import cli

    missing = [
        f"{name} {param.opts[0]}"
        for name, command in _commands(cli)
        for param in command.params
        if param.param_type_name == "option" and not getattr(param, "help", None) and param.name != "help"
    ]
    assert missing == []

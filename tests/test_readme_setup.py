"""The README's first steps: one line installs mcpdex for use, and setting up a clone stays two
commands, one for the demo and one for the tests, both scripts that exist."""

from __future__ import annotations

import re
import tomllib

from tests.conftest import REPO


def _section(title: str) -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    match = re.search(rf"^## {title}\n(.*?)(?=^## )", readme, re.S | re.M)
    assert match, f"README.md has no '## {title}' section"
    return match.group(1)


def _commands(section: str) -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", section, re.S)
    return [line.split("#")[0].strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_the_install_comes_first_and_installs_the_package_by_its_name() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert readme.index("## Install") < readme.index("## Set up") < readme.index("## Three ways")
    name = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["name"]
    (command,) = _commands(_section("Install"))
    assert command.startswith("pipx install ") and command.rstrip("/").endswith(f"/{name}")
    assert f"pipx install {name}" in _section("Install")


def test_setting_up_a_clone_is_two_commands_that_exist() -> None:
    commands = _commands(_section("Set up"))
    assert commands == ["bash scripts/demo", "bash scripts/test"]
    for command in commands:
        assert (REPO / command.split()[1]).is_file()
    demo = (REPO / "scripts" / "demo").read_text(encoding="utf-8")
    assert "source .venv/bin/activate" in demo and "pipx install ." in demo

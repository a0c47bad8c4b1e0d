"""The ``mcpdex`` command line: parse arguments, call the core, print.

Subcommands live one module each under ``registry.commands`` and are imported only when
invoked, so ``mcpdex --help`` and the commands that never speak MCP start fast.
"""

from __future__ import annotations

import importlib
import sys

import click

from registry.core.errors import MCPDexError
from registry.core.printable import escape_controls

# name -> (module under registry.commands, one-line help shown by `mcpdex --help`)
COMMANDS: dict[str, tuple[str, str]] = {
    "inspect": ("inspect", "Inspect an MCP server and print or save its snapshot."),
    "crawl": ("crawl", "Inspect every server of an mcpServers config file concurrently."),
    "worker": ("worker", "Run the inspection jobs `mcpdex crawl --enqueue` queued."),
    "versions": ("registry_read", "List the recorded versions of a server."),
    "show": ("registry_read", "Show a recorded snapshot (SERVER or SERVER@VERSION)."),
    "diff": ("diff", "Diff two snapshots: files, SERVER@VERSION, or live targets."),
    "changelog": ("changelog", "Print a server's schema changelog from the registry."),
    "lock": ("gate", "Write mcpdex.lock.json, the baseline a repository commits."),
    "check": ("gate", "Gate CI: diff a live server against its baseline."),
    "rules": ("diff", "List the diff rules (or write docs/rules.md)."),
    "score": ("score", "Score every tool definition of a server on the six TDQS dimensions."),
    "explain": ("score", "Print the documentation of a lint or diff rule."),
    "report": ("report", "Render HTML directory pages, or a Markdown/HTML report of one server."),
    "serve": ("serve", "Serve the registry and its pages over HTTP."),
    "token": ("serve", "Create, list and revoke write tokens for `mcpdex serve`."),
    "memory": ("memory", "Run the reference knowledge-graph memory MCP server; import/export."),
    "probe": ("probe", "Profile a memory MCP server: conformance, token cost, latency."),
    "auth": ("auth", "Sign in to a server behind MCP authorization (OAuth); status; sign out."),
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module_name, _ = COMMANDS[name]
        module = importlib.import_module(f"registry.commands.{module_name}")
        command: click.Command = getattr(module, name.replace("-", "_"))
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="mcpdex", prog_name="mcpdex")
def cli() -> None:
    """Inspect, diff, score and publish MCP server tool definitions."""


def main() -> None:
    """Console entry point: expected failures become one line on stderr and exit code 2 (or 1)."""
    try:
        # standalone_mode=False lets MCPDexError reach us; ctx.exit(n) comes back as the return value.
        status = cli.main(standalone_mode=False)
    except MCPDexError as exc:
        # The reason may quote a server's name or stderr: never let it drive the terminal.
        click.echo(f"mcpdex: error: {escape_controls(str(exc))}", err=True)
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("mcpdex: aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2)
    sys.exit(status if isinstance(status, int) else 0)


if __name__ == "__main__":
    main()

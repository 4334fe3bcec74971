"""
What a configuration serves: its toolsets, and how the daemon introduces
itself (C{initialize}'s server info and each era's instructions).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gsmcpd import __version__
from gsmcpd.daemon.security import MUTATION, READ_ONLY_INSTRUCTIONS, servedToolsetNames
from gsmcpd.daemon.settings import ConfigError
from gsmcpd.protocol.handlers import ServerIdentity
from gsmcpd.tools.arguments import JsonObject
from gsmcpd.tools.base import Toolset
from gsmcpd.tools.catalog import DEFAULT_TOOLSETS, ToolsetError, buildToolsets
from gsmcpd.tools.instructions import catalogInstructions, stockInstructions

if TYPE_CHECKING:
    from gsmcpd.daemon.options import Config

SIMULATED_TITLE = "gsmcpd on a simulated stone (a test double, not GemStone)"
MAX_INSTRUCTIONS = 32_768
"""Characters; a longer text is refused at startup, where it can be fixed."""


def servedToolsets(config: Config) -> tuple[Toolset, ...]:
    """
    The toolsets C{config} serves, built.

    @raise ConfigError: naming the toolset that cannot be served.
    """
    names = servedToolsetNames(config.toolsetNames, DEFAULT_TOOLSETS,
                               config.readOnly)
    if not names:
        raise ConfigError("--toolsets names no toolset")
    try:
        return tuple(buildToolsets(names, _withDebugger(config, names)))
    except ToolsetError as e:
        raise ConfigError(f"--toolsets: {e}")


def _withDebugger(config: Config,
                  names: Sequence[str]) -> dict[str, JsonObject]:
    """The toolsets' options, with --debug-processes for the debugger's."""
    options = dict(config.toolsetOptions)
    if "debugger" in names:
        options["debugger"] = {"processes": config.debugProcesses,
                               **options.get("debugger", {})}
    return options


def serverIdentity(config: Config) -> ServerIdentity:
    """
    What C{initialize} says this server is, and its instructions in each
    era, for C{config} (its toolsets already built).

    @raise ConfigError: for an instructions file that cannot be read.
    """
    stock = {"catalog": catalogInstructions}.get(config.surface,
                                                 stockInstructions)
    withheld = (MUTATION,) if config.readOnly else ()
    eras: list[str | None] = [stock(config.toolsets, modern, withheld)
                              for modern in (False, True)]
    if config.instructionsFile:
        eras = [readInstructions(config.instructionsFile)] * 2
    if config.readOnly:
        eras = ["\n\n".join(filter(None, [READ_ONLY_INSTRUCTIONS, text]))
                for text in eras]
    instructions, modernInstructions = eras
    title = config.serverTitle
    if config.simulated:
        title = f"{title} (simulated stone)" if title else SIMULATED_TITLE
    return ServerIdentity(
        name=config.serverName, version=config.serverVersion or __version__,
        title=title, instructions=instructions,
        modernInstructions=modernInstructions)


def readInstructions(path: str) -> str | None:
    """
    An operator's file, which replaces both eras' instructions: its text,
    or L{None} if empty (none are sent).

    @raise ConfigError: for a file that cannot be read, or is too long.
    """
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"--instructions-file {path!r}: {e}")
    if len(text) > MAX_INSTRUCTIONS:
        raise ConfigError(f"--instructions-file {path!r} holds {len(text)} "
                          f"characters; the limit is {MAX_INSTRUCTIONS}")
    return text or None

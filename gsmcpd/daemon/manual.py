"""
gsmcpd's own help and manual page, both written from the settings'
declarations (L{gsmcpd.daemon.settings}), so neither can disagree with what
the daemon reads.

C{gsmcpd serve --help} is short: each option, its argument and the first
clause of its help, grouped.  The manual page (C{docs/gsmcpd.8}, written by
C{python -m gsmcpd.daemon.manual man}) says everything: full help, variable,
default, the configuration file; C{etc/gsmcpd.toml.example} (C{python -m
gsmcpd.daemon.manual toml}) holds every setting.
"""

import json
import re
import sys
import textwrap
from collections.abc import Iterator

from attr import AttrsInstance

from gsmcpd.daemon.settings import (
    AUTH,
    CONNECTION,
    FLAG,
    GROUPS,
    LIST,
    OPERATIONS,
    SESSIONS,
    Setting,
    declaredSettings,
)
from gsmcpd.daemon.sources import CONFIG_OPTION, CONFIG_VARIABLE

TITLES = {
    CONNECTION: "Connection: the stone, and how clients reach the daemon",
    SESSIONS: "Sessions: how many, how long, what they serve",
    AUTH: "Authentication and access",
    OPERATIONS: "Operations: logs, identity, stopping",
}
assert set(TITLES) == set(GROUPS)
ARGUMENTS = {
    "count": "N", "countOrNone": "N", "seconds": "SECONDS",
    "secondsOrNone": "SECONDS", "positiveSecondsOrNone": "SECONDS",
    "positiveSeconds": "SECONDS", "countOrPercentage": "N|N%",
    "secretFile": "FILE", "endpoint": "ENDPOINT", "words": "NAMES",
    "httpsUrl": "URL", "resourceUrl": "URL",
}
"""The argument a parser's option takes, as C{--help} writes it."""
FILE_EXAMPLE = (
    'port = "tcp:8000:interface=127.0.0.1"   # or a bare port: 8000',
    "max-sessions = 8",
    'call-timeout = "none"',
    'allowed-origin = ["http://localhost:3000"]',
    "toolset-options = { mutation = { confirmDestructive = true } }",
)
WIDTH = 79
COLUMN = 32


def argument(declared: Setting) -> str:
    """
    How C{--help} writes the option's argument: C{N}, C{FILE}, C{SECONDS}.
    """
    if declared.kind == FLAG:
        return ""
    name = getattr(declared.parse, "__name__", "")
    if name in ARGUMENTS:
        return ARGUMENTS[name]
    return "FILE" if declared.option.endswith(("-file", "-log")) else "TEXT"


def summary(declared: Setting) -> str:
    """
    The help's first clause: up to its first C{;}, colon, parenthesis or
    example.
    """
    return re.split(r"; |: | \(|, e\.g\.|, however", declared.help,
                    maxsplit=1)[0]


def _grouped(cls: type[AttrsInstance]
             ) -> Iterator[tuple[str, list[Setting]]]:
    declared = [each for _, each in declaredSettings(cls)]
    for group in GROUPS:
        yield group, [each for each in declared if each.group == group]


COMMANDS = {
    "serve": "Serve MCP for GemStone/S 64 in the foreground.",
    "check": "Check the GemStone setup these settings describe, one line "
             "per check; exit 1 if any check fails.  With --templates, run "
             "every template on the stone instead (it never commits) and "
             "report each (--json: as JSON); --commit-probe runs commit's "
             "success and conflict paths too, which commits (then removes) "
             "UserGlobals at: #GsmcpdCommitProbe.",
}


def helpText(cls: type[AttrsInstance], command: str = "serve") -> str:
    """
    C{gsmcpd serve --help} (or C{check}'s, which takes the same settings).
    """
    lines = [f"Usage: gsmcpd [--config FILE] {command} [options]", ""] + \
        textwrap.wrap(
            f"{COMMANDS[command]}  Each option is also a variable (--max-sessions: GSMCP_MAX_SESSIONS) and a key "
            f"of the TOML file --{CONFIG_OPTION} ({CONFIG_VARIABLE}) names; "
            "option over variable over file.  All of it: man gsmcpd "
            "(docs/gsmcpd.8).", WIDTH) + [""]
    for group, declared in _grouped(cls):
        lines.append(TITLES[group] + ":")
        for each in declared:
            left = f"  --{each.option} {argument(each)}".rstrip()
            text = summary(each) + (
                f" [{each.default}]" if each.default else "") + (
                " (repeatable)" if each.kind == LIST else "")
            lines.extend(_columns(left, text))
        lines.append("")
    lines.append("  --version  print gsmcpd's version;  --help  this text")
    return "\n".join(lines) + "\n"


def _columns(left: str, text: str) -> list[str]:
    if len(left) >= COLUMN - 1:
        first, indent = [left], " " * COLUMN
        return first + textwrap.wrap(text, WIDTH, initial_indent=indent,
                                     subsequent_indent=indent)
    return textwrap.wrap(left.ljust(COLUMN) + text, WIDTH,
                         subsequent_indent=" " * COLUMN)


def _roff(text: str) -> str:
    """
    C{text} safe in a roff line: backslashes and hyphens escaped, no line
    starting with a control character.
    """
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + text if text[:1] in (".", "'") else text


def manPage(cls: type[AttrsInstance]) -> str:
    """
    The roff source of C{gsmcpd(8)}.
    """
    out = [
        '.TH GSMCPD 8 "" "gsmcpd" "gsmcpd"',
        ".SH NAME",
        "gsmcpd \\- an MCP server for GemStone/S 64",
        ".SH SYNOPSIS",
        ".B gsmcpd",
        "[\\fB\\-\\-config\\fR \\fIFILE\\fR] \\fBserve\\fR|\\fBcheck\\fR "
        "[\\fIoptions\\fR]",
        ".br",
        ".B gsmcpd client\\-config",
        "[\\fB\\-\\-url\\fR \\fIURL\\fR] [\\fB\\-\\-port\\fR "
        "\\fIENDPOINT\\fR] \\fICLIENT\\fR",
        ".br",
        ".B twistd \\-n gsmcp",
        "[\\fIoptions\\fR]",
        ".SH DESCRIPTION",
        _roff("gsmcpd serves the Model Context Protocol over Streamable HTTP "
              "for GemStone/S 64, one GemStone session per MCP session. "
              "gsmcpd serve runs it in the foreground; gsmcpd check checks "
              "the GemStone setup the same settings describe, one line per "
              "check; gsmcpd client-config prints an MCP client's "
              "configuration for it."),
        ".SH SETTINGS",
        _roff("Every setting is an option, an environment variable (GSMCP_ "
              "and the option in capitals, for systemd's EnvironmentFile=) "
              "and a key of the TOML file --config (or GSMCP_CONFIG) names, "
              "spelled as the option without its dashes. An option wins "
              "over a variable, which wins over the file, which wins over "
              "the default; gsmcpd check says where each value came from. "
              "A key that names no setting is refused. Numbers may be "
              "written bare, lists as TOML arrays, JSON settings as tables; "
              "'none' stays a string:"),
        ".PP", ".nf", ".RS",
        *(_roff(line) for line in FILE_EXAMPLE),
        ".RE", ".fi",
        ".PP",
        _roff("Any command's --version prints gsmcpd's version."),
    ]
    for group, declared in _grouped(cls):
        out += [".SS " + _roff(TITLES[group])]
        for each in declared:
            arg = argument(each)
            out += [".TP", f"\\fB\\-\\-{_roff(each.option)}\\fR"
                    + (f" \\fI{arg}\\fR" if arg else "")]
            text = each.help + f" ({each.environ}"
            text += f"; default: {each.default})" if each.default else ")"
            if each.kind == LIST:
                text += "; repeatable, a list in the file"
            if each.formerly:
                text += f"; formerly --{each.formerly}, still accepted " \
                    "with a warning"
            out.append(_roff(text))
    out += [
        ".SH FILES",
        ".TP", "\\fI/etc/gsmcpd/gsmcpd.toml\\fR",
        _roff("where the configuration file conventionally lives: pass "
              "--config, or set GSMCP_CONFIG in the environment file (an "
              "example with every setting: etc/gsmcpd.toml.example)"),
        ".TP", "\\fIGSMCP_CACHE_DIR\\fR",
        _roff("where --simulated builds its library (default: "
              "$XDG_CACHE_HOME/gsmcpd, else ~/.cache/gsmcpd); a service user "
              "without a home needs it"),
        ".SH SEE ALSO",
        _roff("docs/operating.rst, docs/authentication.rst, docs/tls.rst, "
              "twistd(1)"),
    ]
    return "\n".join(out) + "\n"


def exampleFile(cls: type[AttrsInstance]) -> str:
    """
    C{etc/gsmcpd.toml.example}: every setting, commented out at its default
    (or a placeholder), under its help.
    """
    out = ["# gsmcpd's settings: gsmcpd --config FILE (or GSMCP_CONFIG=FILE).",
           "# Every setting is here, commented out at its default or a "
           "<placeholder>;",
           "# an option or a GSMCP_ variable wins over this file.  Written by",
           "# python -m gsmcpd.daemon.manual toml (man gsmcpd says more)."]
    for group, declared in _grouped(cls):
        out += ["", f"# --- {TITLES[group]} ---"]
        for each in declared:
            out += [""] + textwrap.wrap(each.help, WIDTH - 2,
                                        initial_indent="# ",
                                        subsequent_indent="# ")
            out.append(f"#{each.option} = {_tomlValue(each)}")
    return "\n".join(out) + "\n"


def _tomlValue(declared: Setting) -> str:
    if declared.kind == FLAG:
        return "false"
    if declared.kind == LIST:
        return f'["<{argument(declared)}>"]'
    if declared.default is None:
        return f'"<{argument(declared)}>"'
    if declared.default.isdecimal():
        return declared.default
    return json.dumps(declared.default)


WRITERS = {"man": manPage, "toml": exampleFile}


if __name__ == "__main__":
    from gsmcpd.daemon.options import Config
    sys.stdout.write(WRITERS[sys.argv[1]](Config))
